"""The vocabulary of the command language, shared by reading and writing: its keywords in both languages, how each
engine action is laid out as a command, and the messages its refusals and help are worded with.
"""

from typing import Any

from service.game.cards import ROVER, SOURCE
from service.game.registry import CARD_RULES
from service.i18n import N_, translator

Action = dict[str, Any]

# ---------------------------------------------------------------------------------------------- the words
# meaning: (English word, Czech word, other spellings accepted in both languages). The first two are what
# `describe` writes; every word is compared folded (no case, no diacritics).
KEYWORDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "side": ("side", "strana", ()),
    "play": ("play", "hraj", ("hrat",)),
    "resist": ("resist", "vzdoruj", ("r", "vzdorovat")),
    "giveup": ("give up", "vzdej se", ("giveup", "vzdat")),
    "keep": ("keep", "nech si", ("nechat", "ponech")),
    "card": ("card", "karta", ("c", "k", "kartu")),
    "hunt": ("hunt", "lov", ("creature", "bytost", "tokens", "zetony")),
    "pass": ("pass", "nic", ("pas",)),
    "discard": ("discard", "odhoď", ("d", "odhodit")),
    "show": ("show", "ukaž", ("ukazat",)),
    "lose": ("lose will", "ztrať vůli", ("ztratit",)),
    "power": ("power", "síla", ()),
    "take": ("take", "vezmi", ("vzit",)),
    "reserve": ("reserve", "rezerva", ("rezervy",)),
    "heal": ("heal", "vyleč", ("uzdrav",)),
    "draw": ("draw", "lízni", ("dober",)),
    "copy": ("copy", "kopíruj", ()),
    "use": ("use", "použij", ()),
    "via": ("via", "přes", ()),
    "back": ("back", "zpět", ("takeback",)),
    "plan": ("plan", "plán", ("predem",)),
    "later": ("later", "později", ("call", "pozdeji", "ask")),
    "help": ("help", "nápověda", ("pomoc",)),
    "status": ("status", "stav", ()),
    # labels inside a command, never the start of one
    "at": ("at", "na", ("on",)),
    "artemia": ("a", "a", ("artemia", "artemie")),
    "seat": ("p", "h", ("player", "hrac", "seat")),
}
LABELS = {"at", "artemia", "seat"}
VERBS = set(KEYWORDS) - LABELS
POWER_WORDS = ("power", "take", "reserve", "heal", "draw", "copy", "use", "via")  # verbs that are also labels
MARKERS = {"help": "_help", "status": "_status"}
# Words skipped between arguments ("give up", "the River", "vzdej se", "ztrať vůli", "take all").
FILLERS = {"the", "a", "and", "up", "se", "si", "will", "vuli", "vule", "all", "vse", "vsechno", "to", "z"}
# Two words read as one.
PHRASES = {("take", "back"): "back", ("vezmi", "zpet"): "back"}

# ---------------------------------------------------------------------------------------------- the actions
# Parameters of Hunt and Survival cards, in the order they are typed ("places"/"cards": a list): the card table's.
CARD_PARAMS: dict[str, tuple[str, ...]] = {card: rule.params for card, rule in CARD_RULES.items() if rule.params}
# Cards whose parameter is left out when the Target token is already placed.
TARGET_OPTIONAL = {card for card, rule in CARD_RULES.items() if rule.target_optional}
VIA_CARDS = tuple(card for card, rule in CARD_RULES.items() if rule.via)  # played as a way of using a power
SEAT_FIELDS = ("seat", "heal")
LIST_FIELDS = ("cards", "places")  # list parameters of cards (the power's "take" is read by _read_power)
# How each action is written: the verb's meaning, then its fields in order, each with its label's meaning.
# An unlabelled field is required in a planned order (except Flashback's "copy", read from the game).
LAYOUT: dict[str, tuple[str, tuple[tuple[str, str | None], ...]]] = {
    "side": ("side", (("side", None),)),
    "play": ("play", (("cards", None),)),
    "resist": ("resist", (("cards", None),)),
    "giveup": ("giveup", ()),
    "keep_survival": ("keep", (("card", None),)),
    "survival": ("card", (("card", None),)),
    "hunt_card": ("card", (("card", None), ("copy", None))),
    "tokens": ("hunt", (("creature", None), ("artemia", "artemia"))),
    "pass": ("pass", ()),
    "keep": ("keep", (("card", None),)),
    "discard": ("discard", (("cards", None),)),
    "discard_survival": ("discard", (("card", None),)),
    "show": ("show", (("cards", None),)),
    "lose_will": ("lose", ()),
    "power": (
        "power",
        (
            ("place", None),
            ("use", "use"),
            ("via", "via"),
            ("take", "take"),
            ("reserve", "reserve"),
            ("heal", "heal"),
            ("draw", "draw"),
        ),
    ),
    "takeback": ("back", (("card", None), ("place", "at"))),
    "call": ("later", ()),
}
# Answers that only make sense when asked, never in a plan answered later in the turn.
NOT_PLANNABLE = {"side", "play", "resist", "giveup", "keep_survival", "call"}
CREATURE_ONLY = {"side", "hunt_card", "tokens"}  # and every other answer but "pass" is the Hunted's
# What a planned use of the Rover's or the Source's power must say (one of).
POWER_NEEDS = {ROVER: ("reserve",), SOURCE: ("heal", "draw")}

MESSAGES: dict[str, str] = {  # key -> English message id (service/i18n catalogues)
    "unknown": N_("I don't understand '{word}'."),
    "ambiguous_name": N_("'{word}' could be {options}: type more letters."),
    "no_place": N_("There is no place {n} (places are 1-10)."),
    "no_seat": N_("There is no player {n} (players are p1-p{last})."),
    "incomplete": N_("'{text}' needs more: which one?"),
    "not_now": N_("'{text}' is not possible now."),
    "ambiguous": N_("'{text}' could mean: {options}. Say which."),
    "not_plannable": N_("You have nothing to answer now, and '{text}' cannot be answered ahead."),
    "plan_bare": N_("In a plan, say what '{text}' is for (keep, discard, back…)."),
    "only_hunted": N_("'{text}' is for the Hunted."),
    "only_creature": N_("'{text}' is for the Creature."),
    "plan_where": N_("Say which of your places: {text} at 3."),
    "empty": N_("Type a command."),
    "game_over": N_("The game is over."),
    "won_creature": N_("The game is over: the Creature won."),
    "won_hunted": N_("The game is over: the Hunted won."),
    "legal": N_("Now you may: {lines}"),
    "nothing": N_("Nothing to answer now (waiting for {who})."),
    "ahead": N_(
        "Answer ahead: 'plan <command>', e.g. 'plan take 4'; 'plan pass' = no cards this turn. Skipping "
        "a window leaks only what a quick 'pass' would leak at a table."
    ),
    "also": N_("Also: status, help. Places: {places}."),
    "of": N_("{n} of {items}"),
    "or": N_("{items} or {last}"),
    "will_cost": N_("({n} Will)"),
    "e.g.": N_("e.g."),
    "turn": N_("Turn {n}"),
    "setup": N_("choose the board side"),
    "explore": N_("Exploration"),
    "hunt": N_("Hunting"),
    "prereveal": N_("Before the reveal"),
    "reckoning": N_("Reckoning"),
    "end": N_("End of turn"),
}


class Fail(Exception):
    """A failure as a MESSAGES key and its parameters; `parse` words it in the player's language."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key, self.params = key, params


def msg(key: str, lang: str, **params: Any) -> str:
    return translator(lang).gettext(MESSAGES[key]).format(**params)


def typed(legal: list[Action]) -> list[Action]:
    """The legal actions a person types as such: a question ahead (the game's rules/ahead.py) is typed as an answer
    ahead instead ("take 4" once nothing else is asked: a plan)."""
    return [action for action in legal if action["type"] != "ahead"]
