"""Of the hits that answer a question about the user's present alike, the newest first."""

from __future__ import annotations

from typing import Any

import pytest

from daemon.recall.engine import Hit
from daemon.recall.newest_first import applies, newest_first


def _hit(
    ref: str, text: str, said_at: int, *, kind: str = "message", role: str = "user", **meta: Any
) -> Hit:
    return Hit(
        doc_id=said_at,
        kind=kind,
        id=ref,
        text=text,
        score=1.0,
        created_at=said_at,
        conversation_id="c1" if kind == "message" else None,
        metadata=meta,
        role=role if kind == "message" else None,
        said_at=said_at,
    )


def _ids(hits: list[Hit]) -> list[str]:
    return [h.id for h in hits]


def test_a_later_statement_of_the_same_thing_moves_above_the_older_fact() -> None:
    old = _hit("tom", "Tom is the user's manager.", 100, kind="fact", predicate="family")
    chat = _hit("chat", "lunch was good today", 300)
    new = _hit("priya", "my old manager left, the new one is Priya", 200)
    got = newest_first("who is my manager?", [old, chat, new])
    # The two that hold "manager" swap slots; the one between keeps its place.
    assert _ids(got) == ["priya", "chat", "tom"]


def test_a_fact_of_the_asked_attribute_answers_alike_without_the_word() -> None:
    old = _hit("barista", "The user works as a barista.", 100, kind="fact", predicate="job")
    new = _hit("nurse", "The user works as a nurse.", 200, kind="fact", predicate="job")
    assert _ids(newest_first("what's my job?", [old, new])) == ["nurse", "barista"]


def test_hits_answering_differently_keep_their_order() -> None:
    # One holds "live", the other "city": not the same answer, nothing moves.
    first = _hit("a", "I live near the river", 100)
    second = _hit("b", "the city is loud", 200)
    assert _ids(newest_first("which city do I live in?", [first, second])) == ["a", "b"]


def test_the_assistants_words_are_not_the_users_present() -> None:
    old = _hit("user", "I live in Leeds", 100)
    reply = _hit("reply", "Many people live in Leeds", 200, role="assistant")
    assert _ids(newest_first("where do I live?", [old, reply])) == ["user", "reply"]


def test_a_later_word_in_passing_is_no_answer() -> None:
    # The newer message names work, but says nothing changed: the job memory holds stands.
    job = _hit("job", "The user works as a programmer.", 100, kind="fact", predicate="job")
    game = _hit("game", "using my free evenings to work on my indie game", 200)
    assert _ids(newest_first("what do I do for work?", [job, game])) == ["job", "game"]


def test_a_fact_about_someone_else_is_no_answer_about_the_user() -> None:
    mine = _hit("mine", "The user lives in Beirut.", 100, kind="fact", subject="user")
    his = _hit("his", "Karim lives in Montreal.", 200, kind="fact", subject="Karim")
    assert _ids(newest_first("where do I live?", [mine, his])) == ["mine", "his"]


@pytest.mark.parametrize(
    ("question", "present"),
    [
        ("who is my manager?", True),
        ("where do I live?", True),
        ("where did I live before Leeds?", False),
        ("when did I move to Leeds?", False),
        ("who was my first manager?", False),
        ("where does Kenji work?", False),
    ],
)
def test_only_a_question_about_the_users_present(question: str, present: bool) -> None:
    assert applies(question) is present
    old = _hit("old", "The user lives in Leeds; their manager is Tom.", 100, kind="fact")
    new = _hit("new", "I live in York now, my manager is Priya", 200)
    # Where both answer the question alike, the newer leads only when it applies.
    want = ["new", "old"] if present else ["old", "new"]
    assert _ids(newest_first(question, [old, new])) == want
