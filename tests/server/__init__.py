"""``memoryd serve``: sockets, tokens, systemd, logging, damage, full disks, several daemons."""
