"""Reading whom a question is about and which attribute it asks for (the ``about`` leg's
query; the leg itself is tested with the engine in ``test_recall_engine.py``)."""

from __future__ import annotations

import pytest

from daemon.recall.about import About, asked_about


@pytest.mark.parametrize(
    ("question", "subject", "attributes"),
    [
        ("where do I live?", "user", {"residence"}),
        ("what do I do for a living?", "user", {"job", "work"}),
        ("what is my job?", "user", {"job", "work"}),
        ("who do I work for?", "user", {"employer", "work"}),
        ("who am I dating?", "user", {"partner", "relationship"}),
        ("what am I studying?", "user", {"education", "degree", "learning"}),
        ("what is my diet?", "user", {"diet"}),
        ("what does Naledi do?", "Naledi", {"job", "work"}),
        ("How old is Ben?", "Ben", {"age"}),
        ("where does my sister live?", None, {"residence", "family"}),
        ("what are my kids called?", None, {"family"}),
        ("Is Tom allergic to anything?", "Tom", {"allergy"}),
        ("what do I ride to work?", "user", {"vehicle"}),
        ("who is my boss?", None, {"family"}),
        ("what instrument do I play?", "user", {"hobby"}),
        ("What do I use to get around?", "user", {"vehicle"}),
        ("What's my usual drink?", "user", {"likes", "habit"}),
        ("Where is our home?", "user", {"residence"}),
    ],
)
def test_a_question_names_its_subject_and_attributes(
    question: str, subject: str | None, attributes: set[str]
) -> None:
    about = asked_about(question)
    assert about is not None
    assert about.subject == subject
    assert attributes <= set(about.attributes)


@pytest.mark.parametrize(
    "question", ["Alice Smith", "tell me a joke", "what happened at the meeting?"]
)
def test_a_question_without_an_attribute_is_about_nothing(question: str) -> None:
    assert asked_about(question) is None


def test_the_leg_query_is_the_subject_and_the_attribute_names() -> None:
    assert About("user", ("residence", "native_language")).query() == (
        "user residence native language"
    )
    assert About(None, ("job",)).query() == "job"
