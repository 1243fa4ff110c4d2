"""Word forms the grammar reads: verb stems, copulas, auxiliaries and adverbs."""

from __future__ import annotations

import re

IRREGULAR = {
    "went": "go",
    "gone": "go",
    "goes": "go",
    "got": "get",
    "gotten": "get",
    "had": "have",
    "has": "have",
    "having": "have",
    "was": "be",
    "were": "be",
    "is": "be",
    "am": "be",
    "are": "be",
    "been": "be",
    "being": "be",
    "made": "make",
    "left": "leave",
    "bought": "buy",
    "sold": "sell",
    "flogged": "sell",  # British: "flogged my ps5 on ebay"
    "offloaded": "sell",
    "began": "begin",
    "begun": "begin",
    "became": "become",
    "grew": "grow",
    "grown": "grow",
    "taught": "teach",
    "ran": "run",
    "drove": "drive",
    "driven": "drive",
    "fell": "fall",
    "broke": "break",
    "tore": "tear",
    "torn": "tear",
    "broken": "break",
    "gave": "give",
    "given": "give",
    "met": "meet",
    "took": "take",
    "taken": "take",
    "spoke": "speak",
    "spoken": "speak",
    "wrote": "write",
    "written": "write",
    "felt": "feel",
    "found": "find",
    "kept": "keep",
    "lost": "lose",
    "won": "win",
    "ate": "eat",
    "eaten": "eat",
    "flew": "fly",
    "flown": "fly",
    "saw": "see",
    "seen": "see",
    "told": "tell",
    "said": "say",
    "came": "come",
    "knew": "know",
    "known": "know",
    "brought": "bring",
    "built": "build",
    "spent": "spend",
    "sent": "send",
    "paid": "pay",
    "led": "lead",
    "wed": "wed",
    "quit": "quit",
    "cut": "cut",
    "quitting": "quit",
    "born": "bear",
    "did": "do",
    "done": "do",
    "does": "do",
    "swam": "swim",
    "sang": "sing",
    "drank": "drink",
    "drunk": "drink",
    "rode": "ride",
    "chose": "choose",
    "hurt": "hurt",
    "split": "split",
    "set": "set",
    "put": "put",
    "read": "read",
    "let": "let",
    "dies": "die",
    "died": "die",
    "dying": "die",
    "lying": "lie",
    "cancelled": "cancel",
    "cancelling": "cancel",
    "travelled": "travel",
    "travelling": "travel",
    "labelled": "label",
    "modelled": "model",
    "fuelled": "fuel",
    "counselled": "counsel",
}


def stem(word: str) -> str:
    """Return a crude stem that every inflection of a verb shares ("lives", "living" -> "liv").

    Not a lemma: the same function is applied to both sides of every comparison, so the
    stems only need to agree with each other.
    """
    w = word.casefold().strip(".,;:!?'\"")
    w = IRREGULAR.get(w, w)
    if (len(w) > 4 and w.endswith("ies")) or (len(w) > 4 and w.endswith("ied")):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith("ing"):
        w = w[:-3]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "aeiouls":
            w = w[:-1]
    elif len(w) > 3 and w.endswith("ed"):
        w = w[:-2] if not w.endswith("eed") else w[:-1]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "aeiouls":
            w = w[:-1]
    elif len(w) > 3 and re.search(r"(?:ss|x|z|ch|sh|o)es$", w):
        w = w[:-2]
    elif len(w) > 2 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def stems(words: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words.split())


# Verbs the grammar knows (by stem); a name followed by one of these starts a statement.
VERBS = stems(
    """
    live move relocate settle reside stay work join start begin quit pack leave retire fire hire
    promote
    become teach study graduate drop marry divorce date see break split separate engage
    have own get adopt buy rescue sell lose like love enjoy adore prefer hate dislike detest
    loathe mind eat drink smoke vape speak play drive ride use switch swap trade transfer
    change travel fly go
    visit head plan turn recover diagnose suffer call name grow come bear run manage lead pick cut
    coach attend volunteer collect practice train learn know take need want wish die pass
    celebrate finish complete win miss cook bake write read watch listen follow support
    raise own rent share keep do make earn spend stop avoid follow wear sign take swap foster
    celebrate hit decide bother hold upgrade lease bank freelance remarry rehome cancel postpone
    reschedule finish complete defend apply enrol enroll expect give adopt diagnose stand bear
    tear sprain fracture dislocate injure twist defer email phone reply message
    """
)

COPULAS = frozenset({"am", "is", "are", "was", "were", "'m", "'s", "'re", "be", "been"})

CHANGE_ADVERBS = frozenset(
    {
        "now",
        "currently",
        "nowadays",
        "recently",
        "just",
        "finally",
        "officially",
        "again",
        "lately",
        "newly",
        "instead",
        "anew",
    }
)

SKIP_ADVERBS = frozenset(
    {
        "really",
        "actually",
        "still",
        "totally",
        "basically",
        "honestly",
        "literally",
        "definitely",
        "absolutely",
        "truly",
        "seriously",
        "kinda",
        "pretty",
        "much",
        "very",
        "so",
        "happily",
        "proudly",
        "mostly",
        "mainly",
        "primarily",
        "usually",
        "generally",
        "typically",
        "originally",
        "already",
        "always",
        "full-time",
        "part-time",
        "permanently",
        "officially",
        "even",
        "personally",
        "secretly",
        "genuinely",
        "fully",
        "completely",
        "only",
        "weirdly",
        "surprisingly",
        "apparently",
        "obviously",
        "sadly",
        "luckily",
        "unfortunately",
        "fortunately",
    }
)

ALSO_WORDS = frozenset({"also", "too", "additionally"})

MODALS = frozenset({"would", "'d", "could", "should", "might", "may", "must", "shall"})

QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})

PARTICIPLES = frozenset(
    {
        "born",
        "married",
        "divorced",
        "engaged",
        "separated",
        "widowed",
        "diagnosed",
        "fired",
        "hired",
        "promoted",
        "bumped",
        "laid",
        "let",
        "based",
        "located",
        "employed",
        "retired",
        "allergic",
        "raised",
        "adopted",
        "moved",
        "relocated",
        "transferred",
        "stationed",
        "enrolled",
        "accepted",
        "admitted",
        "vaccinated",
        "pregnant",
        "injured",
    }
)

HABITUAL_VERBS = (
    "knit crochet sew bike cycle hike climb surf ski skate paint draw garden meditate swim run "
    "jog bake cook volunteer fish hunt dance sing write journal foster"
)
