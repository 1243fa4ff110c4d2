"""Allow ``python -m daemon.cli``."""

from daemon.cli import main

raise SystemExit(main())
