"""The bi-temporal ``facts`` projection.

Two clocks, never mixed. *Valid time* (``valid_from``/``valid_to``, from payloads) says when a
fact was true in the world; *transaction time* (``recorded_from``/``recorded_to``, from
:attr:`StoredEvent.recorded_at`) says when memoryd believed a version of it. The fold rules
are in :mod:`.fold`, the tables and :class:`FactRow` in :mod:`.tables`; facts are read at a
point of both clocks through :mod:`.queries`, and the claims, sources and decisions
reconciliation needs through :mod:`.claims`; the profile (facts grouped by subject and
attribute) through :mod:`.profile`.

This module names what the rest of memoryd reads.
"""

from projections.facts.claims import (
    KnownClaims,
    claims_of_facts,
    decisions_of,
    facts_about,
    replaced_sources,
)
from projections.facts.fold import FactsProjection
from projections.facts.profile import fresh_model_topics, grouped_topics, read_profile
from projections.facts.queries import Belief, fact_history, fact_versions, get_fact, query_facts
from projections.facts.tables import FactRow, fact_versions_table, subject_key

__all__ = [
    "Belief",
    "FactRow",
    "FactsProjection",
    "KnownClaims",
    "claims_of_facts",
    "decisions_of",
    "fact_history",
    "fact_versions",
    "fact_versions_table",
    "facts_about",
    "fresh_model_topics",
    "get_fact",
    "grouped_topics",
    "query_facts",
    "read_profile",
    "replaced_sources",
    "subject_key",
]
