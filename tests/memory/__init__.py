"""The memory loop: writes reconciled against what memory holds, dedupe, the ingest gate."""
