"""Display names of the cards and the game's words, in English and Czech.

Places keep their numbers (1..10) as ids, Hunt and Survival cards their ids from ``service/game/cards.json``.
English names are the published ones. Czech names of the places, of Klon, Přelud and Šestý smysl and of the
game's words (Bytost, Lovení, vůle, žetony…) are the Czech rulebook's; every other Czech
card name is **ours** (the rulebook excerpt does not name those cards) — `czech_is_ours()` tells which, and a
player who owns the Czech edition may find different names printed on the cards.

Czech is inflected: besides the nominative we keep the accusative ("hraj Řeku"), used in sentences and accepted
by the command parser. `spellings()` lists every form a player may type for a card (both languages, both cases,
a few common variants); the parser compares them after `fold()`.
"""

import unicodedata

from service.game.cards import CARDS, PLACE_ID

# id (or place number) -> (English, Czech nominative, Czech accusative, extra spellings a player may type)
_NAMES: dict[int | str, tuple[str, str, str, tuple[str, ...]]] = {
    # places: Czech from the rulebook
    1: ("Lair", "Doupě", "Doupě", ()),
    2: ("Jungle", "Džungle", "Džungli", ()),
    3: ("River", "Řeka", "Řeku", ()),
    4: ("Beach", "Pláž", "Pláž", ()),
    5: ("Rover", "Průzkumné vozidlo", "Průzkumné vozidlo", ("vozidlo",)),
    6: ("Swamp", "Bažina", "Bažinu", ()),
    7: ("Shelter", "Útočiště", "Útočiště", ()),
    8: ("Wreck", "Vrak", "Vrak", ()),
    9: ("Source", "Hlubina", "Hlubinu", ()),
    10: ("Artefact", "Artefakt", "Artefakt", ("artifact",)),
    # Hunt cards (the Creature's)
    "despair": ("Despair", "Zoufalství", "Zoufalství", ()),
    "force-field": ("Force Field", "Silové pole", "Silové pole", ()),
    "anticipation": ("Anticipation", "Předtucha", "Předtuchu", ()),
    "ascendancy": ("Ascendancy", "Nadvláda", "Nadvládu", ()),
    "fierceness": ("Fierceness", "Zuřivost", "Zuřivost", ()),
    "forbidden-zone": ("Forbidden Zone", "Zakázaná zóna", "Zakázanou zónu", ()),
    "interference": ("Interference", "Rušení", "Rušení", ()),
    "persecution": ("Persecution", "Pronásledování", "Pronásledování", ()),
    "mutation": ("Mutation", "Mutace", "Mutaci", ()),
    "phobia": ("Phobia", "Fobie", "Fobii", ()),
    "virus": ("Virus", "Virus", "Virus", ()),
    "clone": ("Clone", "Klon", "Klon", ()),
    "mirage": ("Mirage", "Přelud", "Přelud", ()),
    "scream": ("Scream", "Řev", "Řev", ()),
    "toxin": ("Toxin", "Toxin", "Toxin", ()),
    "cataclysm": ("Cataclysm", "Kataklyzma", "Kataklyzma", ()),
    "detour": ("Detour", "Oklika", "Okliku", ()),
    "stasis": ("Stasis", "Stáze", "Stázi", ()),
    "tracking": ("Tracking", "Stopování", "Stopování", ()),
    "flashback": ("Flashback", "Flashback", "Flashback", ()),
    # Survival cards (the Hunted's)
    "adrenaline": ("Adrenaline", "Adrenalin", "Adrenalin", ()),
    "ingenuity": ("Ingenuity", "Důvtip", "Důvtip", ()),
    "sacrifice": ("Sacrifice", "Oběť", "Oběť", ()),
    "sixth-sense": ("Sixth Sense", "Šestý smysl", "Šestý smysl", ()),
    "smokescreen": ("Smokescreen", "Kouřová clona", "Kouřovou clonu", ()),
    "strike-back": ("Strike Back", "Protiúder", "Protiúder", ()),
    "vortex": ("Vortex", "Vír", "Vír", ()),
    "detector": ("Detector", "Detektor", "Detektor", ()),
    "dodge": ("Dodge", "Úhyb", "Úhyb", ()),
    "drone": ("Drone", "Dron", "Dron", ()),
    "gate": ("Gate", "Brána", "Bránu", ()),
    "hologram": ("Hologram", "Hologram", "Hologram", ()),
    "wrong-track": ("Wrong Track", "Falešná stopa", "Falešnou stopu", ()),
    "amplifier": ("Amplifier", "Zesilovač", "Zesilovač", ()),
    "double-back": ("Double Back", "Návrat", "Návrat", ()),
}

# The game's words. Czech ones are the rulebook's.
WORDS: dict[str, dict[str, str]] = {
    "creature": {"en": "Creature", "cs": "Bytost"},
    "hunted": {"en": "Hunted", "cs": "Lovení"},
    "a_hunted": {"en": "Hunted", "cs": "Lovený"},
    "will": {"en": "Will", "cs": "vůle"},
    "creature_token": {"en": "Creature token", "cs": "žeton Bytosti"},
    "target_token": {"en": "Target token", "cs": "žeton cíle"},
    "artemia_token": {"en": "Artemia token", "cs": "žeton Artemie"},
    "marker": {"en": "Marker counter", "cs": "žeton vysílání"},
    "rescue": {"en": "Rescue counter", "cs": "ukazatel záchrany"},
    "assimilation": {"en": "Assimilation counter", "cs": "ukazatel asimilace"},
    "place_card": {"en": "place card", "cs": "karta lokace"},
    "hunt_card": {"en": "Hunt card", "cs": "karta lovu"},
    "survival_card": {"en": "Survival card", "cs": "karta přežití"},
    "resist": {"en": "Resist", "cs": "Vzdorovat"},
    "giveup": {"en": "Give Up", "cs": "Vzdát se"},
    "phase1": {"en": "Exploration", "cs": "Průzkum"},
    "phase2": {"en": "Hunting", "cs": "Lov"},
    "phase3": {"en": "Reckoning", "cs": "Zúčtování"},
    "phase4": {"en": "End of turn", "cs": "Akce na konci kola"},
}


def _key(card: int | str) -> int | str:
    """Places may be named by number or by id ("river"); cards by id."""
    if isinstance(card, str) and CARDS.get(card, {}).get("kind") == "place":
        return CARDS[card]["number"]
    return card


def name(card: int | str, lang: str = "en", accusative: bool = False) -> str:
    """The display name of a place (number or id) or a Hunt/Survival card, e.g. name(3, "cs", True) == "Řeku"."""
    en, cs, cs_acc, _ = _NAMES[_key(card)]
    if lang == "cs":
        return cs_acc if accusative else cs
    return en


def word(key: str, lang: str = "en") -> str:
    """A game word from WORDS in the given language (English when the language is unknown)."""
    return WORDS[key].get(lang, WORDS[key]["en"])


def czech_is_ours(card: int | str) -> bool:
    """True when the Czech name is our translation, not the Czech rulebook's."""
    key = _key(card)
    return not (isinstance(key, int) or CARDS[key].get("name_cs_confirmed"))


def fold(text: str) -> str:
    """Lower case without diacritics, spaces, hyphens or apostrophes: how names are compared."""
    plain = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in plain if ch.isalnum() and not unicodedata.combining(ch))


def spellings(card: int | str) -> set[str]:
    """Every folded form a player may type for the card: English, Czech (both cases), its id, variants."""
    key = _key(card)
    en, cs, cs_acc, extra = _NAMES[key]
    card_id = PLACE_ID[key] if isinstance(key, int) else key
    forms = {en, cs, cs_acc, card_id, *extra}
    return {fold(form) for form in forms}
