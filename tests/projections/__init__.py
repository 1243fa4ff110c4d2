"""The projections: message, fact, search, consolidation and retrospective folds, the runner."""
