"""memoryd.toml: sections and validation, durations, ``memoryd config``, hot reload."""
