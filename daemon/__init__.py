"""memoryd's daemon: API, CLI, configuration, logging, systemd integration."""

import events.daemon_events  # noqa: F401  (register the daemon's event classes with the codec)
