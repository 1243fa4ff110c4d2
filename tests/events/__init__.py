"""The event log: codec and ids, the SQLite and PostgreSQL stores, leases, migrations, crashes."""
