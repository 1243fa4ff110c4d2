"""Recall: hybrid search over a namespace's messages and facts."""
