"""What a database error means for the event log: a full disk or a damaged file, told to a
person as such, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import errno

from events.store.base import DamagedLog, StorageFull, StoreError

_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_NOTADB = 26
_PG_DISK_FULL = "53100"
_PG_CORRUPTED = ("XX001", "XX002")


def classify_database_error(exc: BaseException) -> StoreError | None:
    """Return the typed store error a database error amounts to: a full disk or a damaged
    file (each with a message for a person), or None for anything else."""
    orig = getattr(exc, "orig", None) or exc
    code = getattr(orig, "sqlite_errorcode", None)
    sqlstate = getattr(orig, "sqlstate", None)
    if (isinstance(code, int) and code & 0xFF == _SQLITE_FULL) or sqlstate == _PG_DISK_FULL:
        return StorageFull(f"the disk holding the event log is full ({orig}); nothing was written")
    if isinstance(orig, OSError) and orig.errno == errno.ENOSPC:
        return StorageFull(f"the disk holding the event log is full ({orig.strerror})")
    if (isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)) or (
        sqlstate in _PG_CORRUPTED
    ):
        return DamagedLog(f"the event log's database is damaged: {orig} (run `memoryd doctor`)")
    return None
