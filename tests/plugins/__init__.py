"""The plugin seams: discovery, contract suites, embedders, extractors, LLM providers, agents."""
