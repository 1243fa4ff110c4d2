"""The entity extractor's sentence-start test equals the regular expression it replaces."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from projections.entities import _SENTENCE_END, _ends_sentence, extract_entities


@given(st.text(alphabet=".!?:;\n \t\u2003\u00a0\rxA'", max_size=30))
def test_ends_sentence_equals_the_pattern_at_every_cut(text: str) -> None:
    for end in range(len(text) + 1):
        assert _ends_sentence(text, end) == bool(_SENTENCE_END.search(text[:end])), end


def test_sentence_starts_still_split_names() -> None:
    keys = [e.key for e in extract_entities("I met Alice Smith.  Bob came:\n Carol Jones too")]
    assert keys == ["alice smith", "bob", "carol jones"]
