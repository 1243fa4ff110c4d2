"""Recall: the engine and its legs, fusion, iterative recall, the embedding cache, route, CLI."""
