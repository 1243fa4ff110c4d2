"""Recall: hybrid search over a namespace's messages and facts (issue 5)."""

import events.recall_events  # noqa: F401  (registers RecallRecorded with the codec)
