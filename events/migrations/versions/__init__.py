"""Alembic revisions of the event tables; revision ``NNNN`` is store schema version N."""
