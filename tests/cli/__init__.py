"""The command line against a daemon or a data dir: client commands, events, replay, waiting."""
