"""Reading owned things out of a value: pets, vehicles, computers and phones."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.mentioned import PHONE_CASE
from plugins.extractors.claims.phrases import strip_det
from plugins.extractors.claims.subjects import (
    is_name,
    labels_an_attribute,
    leading_label,
    names_nobody,
)
from plugins.extractors.claims.values import clean_value, split_values

_LEADING_FILLER = re.compile(
    r"^(?:(?:yes|yeah|yep|no|nope|ok|okay|sure|fine)(?:[,!.]+\s*"
    r"|\s+(?=(?:i|i'm|we|my|update|so|well|yeah|anyway|but|and|got|just|finally|moved|started|been"
    r"|bought|picked|sold|quit|switched|joined|left|officially)\b))"
    r"|guess\s+who\s+(?=(?:got|just|is|has|finally)\b)"
    r"|(?:[\w ]{1,30}):\s+(?=\S)"
    r"|(?:so|well|oh|btw|anyway|anyways|and|but|actually|honestly|fyi|ps|um|uh"
    r"|hey+|hi+|hell+o+|hiya|heya|howdy|g'day|gday|yo|lol|haha|hmm|oh well|by the way|fun fact"
    r"|update|morning|good morning|evening|good evening|afternoon|cheers|aye"
    r"|heads up|too bad|ugh|ok so|okay so|so yeah|long story short|context|meanwhile|tho|though"
    r"|welp|right so|ooh+|omg|yay+|woo+hoo+|phew|well well|ngl|not gonna lie|lowkey|tbf|imo"
    # Greetings and exclamations of other languages that chat in English opens with.
    r"|alhamdulillah|mashallah|inshallah|wallahi?|yalla|abeg|oya|ayy+|hola|ola|ciao|chao|namaste"
    r"|salaam|salam|shalom|jambo|habari|sawubona|kia ora|aloha|bonjour|hallo|hej|hei|moi|tere"
    r"|sveiki|labas|szia|czesc|cześć|dobry den|zdravo|geia|yassou|moin|servus"
    r"|privet|ahoj|merhaba|konnichiwa|annyeong|ni hao|xin chao|sawasdee|mabuhay|kumusta|selam"
    r"|oi|eh|eish|eii+|chai|chale|ehen|yoh|haibo|ayo|ufff*|wow|whoa|woah|ay+ dios|madre mia"
    r"|mamma mia|oh la la|ja|nu|jeez|geez"
    r"|muraho|bula(?:\s+vinaka)?|mambo|sannu|kedu|sawubona|talofa|malo|xin chào"
    r"|bro|bruh|dude|fam|sis|lads|guys|boss|mate(?=\s+(?:i|i'm|im|my|we)\b)"
    r"|me(?=\s+(?:i|i'm|im)\b)"
    r"|(?:i'd|i\s+would)\s+say(?:\s+that)?(?=\s+i\b)|i\s+(?:guess|reckon|suppose)(?=\s+i\b)"
    r"|(?:because|cause|cuz|bc)(?=\s+(?:i|i'm|we|we're|my|our)\b)"
    r"|(?:also|plus)(?=\s+(?:my|our|heads\s+up|fyi|btw|by\s+the\s+way|quick|news|update"
    r"|good\s+news|big\s+news|just\s+so|for\s+the\s+record|for\s+context)\b)"
    r"|news|good news|big news|guess what|just so you know|for the record|for context"
    # "Happy to inform that I have joined Thoughtworks": the news is what follows.
    r"|(?:i'?m\s+|i\s+am\s+)?(?:happy|glad|pleased|excited|proud|thrilled|delighted)\s+to\s+(?:inform"
    r"|share|announce|say|report|tell\s+you)(?:\s+(?:you|everyone))?(?:\s+that)?"
    r"(?=\s+(?:i|i'm|i've|im|we|we're|we've|my|our)\b)"
    r"|(?:like|as)\s+(?:i(?:'ve|\s+have)?\s+(?:said|mentioned|told\s+you|explained|wrote))"
    r"(?:\s+(?:before|earlier|already))?"
    r"|remember(?=\s+(?:i|i'm|im|that|my|we|we're)\b)"
    r"|(?:just\s+a\s+)?(?:friendly\s+)?reminder(?:\s+that)?(?=\s+(?:i|i'm|im|my|we|we're)\b)"
    r"|as you know|you know what|to be honest|tbh|fwiw|quick update|weirdly|funnily enough"
    r"|surprisingly|oddly|sadly|luckily|unfortunately|fortunately|apparently|ironically"
    r"|frankly|admittedly|funnily|naturally"
    r"|(?:i\s+)?(?:just\s+)?(?:found out|learned|learnt|realized|realised|discovered)(?:\s+that)?"
    r"|turns out(?:\s+that)?|it turns out(?:\s+that)?"
    r"|" + lx.CLINICIAN_SAYS + r")\b[,:!.\-]*\s*)+",
    re.IGNORECASE,
)


def pets_in(rest: str) -> list[str]:
    """Pets named in "a dog named Rex", "two cats, Miso and Tofu", "a golden retriever"."""
    match = re.match(
        r"^(?P<count>a couple of|a pair of|a new|another|a second|an?|one|two|three|four|five"
        r"|\d+)?\s*"
        r"(?:(?:new|little|old|young|rescue|senior|adopted|sweet|big|small|fluffy|black|white"
        r"|grey|gray|orange|brown|ginger|german|golden|border|french|english|jack|retired"
        r"|racing|ex-racing|stray|tiny|huge|elderly|lovely|gorgeous|shy|three-legged)\s+)*"
        r"(?P<kind>(?:[\w\-]+\s+)?[\w\-]+?)s?(?:\s*,?\s*(?:named|called)?\s+"
        r"(?P<names>(?:(?:Mr|Mrs|Ms|Dr|Sir|Lady|Lord|Captain|Prof)\.?\s+)?[^.;!?]+))?"
        r"\s*[.!]?$",
        rest.strip(),
        re.IGNORECASE,
    )
    if match is None:
        return []
    kind_words = match.group("kind").casefold().split()
    compound = re.match(rf"^(?:an?\s+)?(?P<breed>{lx.COMPOUND_BREEDS})s?\b", rest.strip(), re.I)
    if compound is not None:
        kind_words = [compound.group("breed").casefold()]  # "a golden retriever called Biscuit"
    kind = next((w for w in reversed(kind_words) if lx.is_pet(w.split()[-1])), None)
    if kind is None:
        return []
    kind = kind[:-1] if kind.endswith("s") and kind[:-1] in lx.PETS | lx.DOG_BREEDS else kind
    if len(kind_words) == 2 and kind_words[1] == kind and kind_words[0] in lx.DOG_BREEDS:
        kind = " ".join(kind_words)  # "a beagle puppy": the breed is worth keeping
    names_text = match.group("names") or ""
    if re.match(r"(?:on|in|at|from|for|last|this|next|since|yesterday|today)\b", names_text, re.I):
        names_text = ""  # "a kitten on Saturday", "a puppy in March": when, not a name
    names = [
        n
        for n in split_values(clean_value(names_text))
        if is_name(n.split(" ")[0]) and not names_nobody(n.split(" ")[0])
    ]
    if names:
        return [f"{kind} {n}" for n in names]
    return [kind]


def is_vehicle_named(rest: str) -> bool:
    """Whether a car's make is named (not just "a car", which vehicle_in also takes)."""
    return any(w.casefold().strip(",.") in lx.CAR_BRANDS for w in clean_value(rest).split())


def vehicle_in(rest: str) -> str | None:
    value = clean_value(rest)
    words = [w.casefold().strip(",.") for w in value.split()]
    if not words:
        return None
    if is_vehicle_named(rest) or any(w in lx.VEHICLES for w in words[-2:]):
        return strip_det(value)
    return None


_COMPUTERS = frozenset(
    [
        "laptop",
        "macbook",
        "imac",
        "thinkpad",
        "chromebook",
        "desktop",
        "pc",
        "computer",
        "ipad",
        "tablet",
        "surface",
    ]
)


def without_filler(text: str) -> str:
    """Strip what opens a clause without saying anything ("ok update", "meanwhile")."""
    label = leading_label(text)
    if label is not None and labels_an_attribute(label):
        return text  # "Hobby: baking" is a note whose label names the attribute
    for _ in range(3):
        shorter = _LEADING_FILLER.sub("", text)
        if shorter == text:
            break
        text = shorter
    return text


def computer_in(rest: str) -> str | None:
    value = clean_value(rest)
    if any(w.casefold().strip(",.") in _COMPUTERS for w in value.split()):
        return strip_det(value)
    return None


def phone_in(rest: str) -> str | None:
    value = clean_value(rest)
    if any(w.casefold().strip(",.") in lx.PHONES for w in value.split()):
        return phone_name(strip_det(value))
    return None


def phone_name(value: str) -> str:
    """ "iphone 12" is an iPhone 12, "pixel 9" a Pixel 9, however it was typed."""
    return " ".join(PHONE_CASE.get(w.casefold(), w) for w in value.split())


_PLAYING = re.compile(
    r"\b(?:playing|at)\s+(?P<game>basketball|football|soccer|rugby|tennis|squash|hockey|netball"
    r"|volleyball|cricket|baseball|softball|badminton|padel|pickleball|futsal|handball|golf"
    r"|ultimate|lacrosse|(?:5|five|7|seven)[- ]a[- ]side)\b",
    re.IGNORECASE,
)


def game_played(text: str) -> str | None:
    """The game an injury was got at ("broke my ankle playing basketball"), if one is named."""
    found = _PLAYING.search(text)
    return found.group("game").casefold() if found is not None else None
