"""memoryd's daemon: API, CLI, configuration, logging, systemd integration."""
