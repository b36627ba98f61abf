"""The plain-text command language shared by every channel (Telegram, SMS, console).

Short, SMS-friendly, English or Czech, case-insensitive, diacritics optional. Places by number (1..10) or by name,
cards by name; any unique prefix of a name in either language works ("riv", "reka", "Řeku", "bazina", "sixth",
"sest"). Text in parentheses is a comment, so what `describe` writes ("play 3 (River)") parses back.

    what                                 English                       Czech                          action
    -----------------------------------  ----------------------------  -----------------------------  ----------
    choose the board side                side 1                        strana 1                       side
    play a place card (two after the     play 3 · 3 · play river       hraj 3 · hraj reku             play
      River or the Artefact, in order)   play 3 5                      hraj 3 5
    resist, taking cards back            resist 2 4 · r 2 4            vzdoruj 2 4                    resist
    give up                              give up                       vzdej se                       giveup
    keep a Survival card (Shelter)       keep dodge                    nech si uhyb                   keep_survival
    River: the card that stays           keep 3                        nech si 3                      keep
    play a card with its parameters:     card sixth 1 2 · c dodge      karta sestysmysl 1 2           survival,
      places, a seat (p2 / h2 / 2)       card mirage 2 7 · mirage 2 7  karta prelud 2 7               hunt_card
                                         card detour p2 3 4            karta oklika h2 3 4
                                         card flashback 2 7            karta flashback 2 7
      the Drone and the Gate             card drone · card gate 7      karta dron · karta brana 7     power
    place the tokens                     hunt 4 a7 · 4 7               lov 4 a7 · bytost 4 artemie 7  tokens
    no card now                          pass                          nic                            pass
    discard place cards                  discard 2 · d 2 4             odhod 2                        discard
    discard a Survival card (Toxin)      discard dodge                 odhod uhyb                     discard_surv.
    show cards (Phobia)                  show 1 2                      ukaz 1 2                       show
    lose 1 Will (Scream)                 lose will                     ztrat vuli                     lose_will
    use your place's power               power · take 4                sila · vezmi 4                 power
      Lair: copy the Creature's place    copy 8                        kopiruj 8
      Rover, Source                      reserve 7 · heal p2 · draw    rezerva 7 · vylec h2 · lizni
      in full, as `describe` writes it   power 1 use 8 via lair        sila 1 pouzij 8 pres doupe
    or take back one card instead        back 4 · take back 4 · 4      zpet 4 · vezmi zpet 4          takeback
    answer ahead                         plan take 4 · plan pass       plan vezmi 4 · plan nic        plan
    ask me about my cards later          later                         později                        call
    help, status (no game action)        help · ? · status             napoveda · stav                _help, _status

`take 4` names the cards the power takes back; the Jungle's or the Swamp's own card may go unsaid.

Bare numbers mean the one thing they can mean now: `3` plays the River in Exploration, keeps it at the River
question, discards it for the Artemia token; `4 7` places the Creature token on 4 and the Artemia token on 7.
A bare card name plays that card. Seats are `p2`/`h2`/`2`, or a player's name when the caller passes `names`.

Several commands may share a line and are returned in order: `resist 2 4 play 3`. Each is checked against the
seat's legal actions at that point (the earlier ones applied to a copy of the game). Once the seat has nothing
left to answer now, the rest of the line is a plan answered later in the turn: `play 2 take 4` returns the play
and ``{"type": "plan", "orders": [<Jungle's power taking 4 back>]}``. `plan …` makes the rest a plan explicitly,
and a command sent while the seat has nothing to answer becomes a plan by itself. A plan's orders are checked
for form only: the engine matches them exactly against the legal actions when the question comes, and asks as
usual when none matches. `pass`/`nic` when passing is not possible now means "no cards this turn" (a plan).

`describe(action, lang)` writes the full command with the places' names as a comment: "power 2 take 2 4 (Jungle,
Beach)", "hraj 3 (Řeka)"; it parses back to the same action. `summary` puts what a seat may do now in a few lines
("resist 2 of 1, 4, 5 (1 Will)", "play 1, 2 or 4", "hunt 1-10 a1-10"), each choice written as a person types it
and every combination a line shows legal (the Mirage's adjacent pairs are written out: "1+2 1+6 … or 9+10");
`help_text` adds examples and how to answer ahead.

`help`/`?` and `status`/`stav` return ``[{"type": "_help"}]`` / ``[{"type": "_status"}]``; the channel answers them.
A command that is wrong, ambiguous or not possible now raises `CommandError`, whose message (in the language of
the command, or `lang`) says why and lists what is legal now.

One module over 600 lines on purpose: reading (`parse`) and writing (`describe`, `summary`) share the word tables
and LAYOUT and must stay each other's inverse, which is easiest to check with both in view.
"""

import functools
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

from service.cardnames import fold, name, spellings, word
from service.game import Game
from service.game.cards import HUNT_CARDS, JUNGLE, LAIR, PLACE_NUMBERS, ROVER, SOURCE, SURVIVAL_CARDS, SWAMP
from service.game.registry import CARD_RULES
from service.i18n import N_, translator

Action = dict[str, Any]
Pattern = dict[str, Any]  # a partial action a command may mean; None marks a value the player left out
Command = tuple[str, list[Pattern], str]  # (verb, patterns, the command's words)

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

_MEANING: dict[str, str] = {}
_LANGUAGE: dict[str, str] = {}
for _meaning, (_en, _cs, _more) in KEYWORDS.items():
    for _spelling in (_en, _cs, *_more):
        _MEANING.setdefault(fold(_spelling.split()[0]), _meaning)
    if fold(_en) != fold(_cs):
        _LANGUAGE[fold(_en.split()[0])], _LANGUAGE[fold(_cs.split()[0])] = "en", "cs"

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


ECHO_MAX = 20  # the most characters of a player's own text that an answer repeats (a reply may be a paid SMS)


def echo(text: str) -> str:
    """The player's ``text`` as an answer repeats it: at most `ECHO_MAX` characters, cut with "…"."""
    return text if len(text) <= ECHO_MAX else text[: ECHO_MAX - 1] + "…"


class CommandError(ValueError):
    """A command that is wrong, ambiguous or not possible now; the message says why and what is legal now."""


class _Fail(Exception):
    """A failure as a MESSAGES key and its parameters; `parse` words it in the player's language."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key, self.params = key, params


def _msg(key: str, lang: str, **params: Any) -> str:
    return translator(lang).gettext(MESSAGES[key]).format(**params)


def _word(meaning: str, lang: str) -> str:
    en, cs, _ = KEYWORDS[meaning]
    return cs if lang == "cs" else en


# ---------------------------------------------------------------------------------------------- names
def _vocabulary(ids: Iterable[int | str]) -> dict[str, Any]:
    return {spelling: card for card in ids for spelling in spellings(card)}


PLACES = _vocabulary(PLACE_NUMBERS)
CARD_VOCAB = {"hunt": _vocabulary(HUNT_CARDS), "survival": _vocabulary(SURVIVAL_CARDS)}
VIA_VOCAB = {**dict.fromkeys(spellings(LAIR), "lair"), **_vocabulary(VIA_CARDS)}


def _lookup(words: list[str], vocab: dict[str, Any], prefer: Callable[[], set[Any]] = set) -> tuple[Any, int]:
    """The value named by the first of `words` (or the first few joined: "sixth sense"), and how many words it
    took. An exact spelling wins, then a unique prefix; among several, those in `prefer()` (legal now) win."""
    for n in range(min(3, len(words)), 0, -1):
        key = "".join(words[:n])
        hits = {v for s, v in vocab.items() if s == key} or {v for s, v in vocab.items() if s.startswith(key)}
        if len(hits) > 1 and hits & prefer():
            hits &= prefer()
        if len(hits) == 1:
            return hits.pop(), n
        if n == 1 and hits:
            options = sorted({s for s, v in vocab.items() if v in hits and s.startswith(key)})
            raise _Fail("ambiguous_name", word=key, options=", ".join(options[:8]))
    return None, 0


# ---------------------------------------------------------------------------------------------- reading
_fold_word = functools.lru_cache(maxsize=4096)(fold)


def _tokens(text: str) -> list[str]:
    """Folded words and numbers; parenthesised text is a comment; "take back" is one word."""
    text = re.sub(r"\([^)]*\)?", " ", text)
    tokens: list[str] = []
    for token in (_fold_word(w) for w in re.findall(r"[^\W\d_]+|\d+", text.casefold())):
        if tokens and (tokens[-1], token) in PHRASES:
            tokens[-1] = PHRASES[tokens[-1], token]
        else:
            tokens.append(token)
    return tokens


def detect_language(text: str) -> str:
    """ "cs" when the text uses more Czech than English keywords, else "en"."""
    votes = [_LANGUAGE.get(t) for t in _tokens(text)]
    return "cs" if votes.count("cs") > votes.count("en") else "en"


class _Reader:
    """A cursor over the tokens of one line, with what it needs to read names: the game, the seat, names."""

    def __init__(self, tokens: list[str], game: Game, seat: int, names: dict[int, str] | None) -> None:
        self.tokens, self.pos = tokens, 0
        self.game, self.seat = game, seat
        self.names = {fold(n): s for s, n in (names or {}).items()}
        self.kind = "hunt" if seat == 0 else "survival"
        self._legal_values: set[Any] | None = None

    def legal_values(self) -> set[Any]:
        """Places, cards and seats named by a legal action now: they win when a prefix fits several names."""
        if self._legal_values is None:
            values = (v for a in typed(self.game.legal_actions(self.seat)) for v in a.values())
            self._legal_values = {
                x for v in values for x in (v if isinstance(v, list) else [v]) if not isinstance(x, bool)
            }
        return self._legal_values

    def peek(self, labels: Collection[str] = ()) -> str | None:
        """The next token, skipping fillers that are not a label wanted here."""
        while (
            self.pos < len(self.tokens)
            and self.tokens[self.pos] in FILLERS
            and _MEANING.get(self.tokens[self.pos]) not in labels
        ):
            self.pos += 1
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def label(self, *meanings: str) -> str | None:
        """The meaning of the next token if it is one of `meanings` (consumed), else None."""
        token = self.peek(meanings)
        if token is not None and _MEANING.get(token) in meanings:
            self.pos += 1
            return _MEANING[token]
        return None

    def verb(self) -> str:
        """The verb starting the next command (consumed), or "bare" when it starts with no verb."""
        return self.label(*VERBS) or "bare"

    def lookup(self, vocab: dict[str, Any], prefer: Callable[[], set[Any]] = set) -> Any:
        """The value of the name starting here (one to three words), or None when no name starts here."""
        token = self.peek()
        if token is None or token.isdigit() or token in _MEANING:
            return None
        words = [token]
        for later in self.tokens[self.pos + 1 : self.pos + 3]:
            if later.isdigit():
                break
            words.append(later)
        value, used = _lookup(words, vocab, prefer)
        self.pos += used
        return value

    def number(self) -> int | None:
        token = self.peek()
        if token is not None and token.isdigit():
            self.pos += 1
            return int(token)
        return None

    def place(self) -> Any:
        n = self.number()
        if n is not None and n not in PLACE_NUMBERS:
            raise _Fail("no_place", n=n)
        return n if n is not None else self.lookup(PLACES, self.legal_values)

    def places(self) -> list[Any]:
        found = []
        while (place := self.place()) is not None:
            found.append(place)
        return found

    def place_or_card(self) -> Any:
        """A place (a number or name) or a Survival card of this seat, whichever the name fits."""
        token = self.peek()
        if token is not None and token.isdigit():
            return self.place()
        return self.lookup({**PLACES, **CARD_VOCAB[self.kind]}, self.legal_values)

    def card(self, kind: str | None = None) -> Any:
        return self.lookup(CARD_VOCAB[kind or self.kind], self.legal_values)

    def seat_number(self) -> Any:
        """A Hunted's seat: `p2`, `h2`, `2`, or a name from `names`."""
        labelled = self.label("seat")
        n = self.number()
        if n is None and not labelled:
            n = self.lookup(self.names)
        if n is not None and not 1 <= n < self.game.players:
            raise _Fail("no_seat", n=n, last=self.game.players - 1)
        return n

    def field(self, field: str) -> Any:
        """A value of a card parameter, read by the field's kind."""
        if field in SEAT_FIELDS:
            return self.seat_number()
        if field in LIST_FIELDS:
            return self.places() or None
        return self.place()


# Each reader returns the patterns its command may mean, in order of preference: partial actions matched against
# the legal actions (see _fits). A None value marks something the player left out that the command needs.


def _read_play(r: _Reader) -> list[Pattern]:
    return [{"type": "play", "cards": r.places() or None}]


def _read_resist(r: _Reader) -> list[Pattern]:
    cards = r.places()
    return [{"type": "resist", **({"cards": cards} if cards else {})}]


def _read_keep(r: _Reader) -> list[Pattern]:
    value = r.place_or_card()
    return [{"type": "keep" if isinstance(value, int) else "keep_survival", "card": value}]


def _read_discard(r: _Reader) -> list[Pattern]:
    first = r.place_or_card()
    if isinstance(first, str):
        return [{"type": "discard_survival", "card": first}]
    return [{"type": "discard", "cards": None if first is None else [first, *r.places()]}]


def _read_card(r: _Reader, card: str | None = None) -> list[Pattern]:
    """`card <name> <parameters>`; Flashback may name the card it copies; the Drone and the Gate are powers."""
    card = card or r.card()
    if card in VIA_CARDS:  # `card gate 7`: the number is the place whose power the Gate uses
        return _read_power(r, "use" if card == "gate" else "power", {"type": "power", "via": card})
    pattern = {"type": "hunt_card" if r.kind == "hunt" else "survival", "card": card}
    effect = card
    if card == "flashback" and (copy := r.card("hunt") or (r.game.public_view()["hunt_discard"] or [None])[-1]):
        effect = pattern["copy"] = copy  # by default the card Flashback copies now: the top of the discard
    for field in CARD_PARAMS.get(effect, ()):
        if (value := r.field(field)) is None:
            break
        pattern[field] = value
    return [pattern]


def _read_hunt(r: _Reader) -> list[Pattern]:
    """`hunt 4 a7`, `creature 4 artemia 7`, `4 7`: the Creature token first, the Artemia token labelled or second."""
    pattern = {"type": "tokens"}
    for _ in range(2):
        label = r.label("artemia", "hunt")
        field = "artemia" if label == "artemia" or "creature" in pattern else "creature"
        if field in pattern or (place := r.place()) is None:
            break
        pattern[field] = place
    return [pattern]


def _read_power(r: _Reader, label: str | None, pattern: Pattern | None = None) -> list[Pattern]:
    """The power family, its words in any order: `power 2 take 4`, `take 4`, `copy 8`, `reserve 7`, `draw`,
    `heal p2`, `power 1 use 8 via lair`. A bare number is "at": the place you are on or whose power you use."""
    pattern = pattern or {"type": "power"}
    while label is not None:
        if label == "take":
            pattern["take"] = r.places()
        elif label == "draw":
            pattern["draw"] = True
        elif label == "heal":
            pattern["heal"] = r.seat_number()
        elif label == "via":
            pattern["via"] = r.lookup(VIA_VOCAB)
        elif label == "reserve":
            pattern["reserve"] = r.place()
        elif label in ("use", "copy"):
            pattern["use"] = r.place()
            if label == "copy":
                pattern["via"] = "lair"
        elif label == "at":
            pattern["at"] = r.place()
        elif (at := r.place()) is not None:  # "power 2", "card gate 7"
            pattern["at"] = at
        label = None if _starts_another_power(r, pattern) else r.label(*POWER_WORDS, "at")
    return [pattern]


_POWER_FIELD = {
    "take": "take",
    "draw": "draw",
    "heal": "heal",
    "via": "via",
    "reserve": "reserve",
    "use": "use",
    "copy": "use",
    "at": "at",
}


def _starts_another_power(r: _Reader, pattern: Pattern) -> bool:
    """Whether the next word begins a second power command ("power 4 power 9 heal p3" is two answers, one per
    place of an Artefact player): a new `power`, or a word for a field this command already has."""
    token = r.peek(POWER_WORDS + ("at",))
    meaning = _MEANING.get(token) if token is not None else None
    return (meaning == "power" and len(pattern) > 1) or (meaning is not None and _POWER_FIELD.get(meaning) in pattern)


def _read_back(r: _Reader) -> list[Pattern]:
    pattern = {"type": "takeback", "card": r.place()}
    if r.label("at"):
        pattern["place"] = r.place()
    return [pattern]


def _read_bare(r: _Reader) -> list[Pattern]:
    """Places without a verb mean whatever they can mean now; a card name plays the card."""
    values = r.places()
    if not values:
        card = r.card()
        return _read_card(r, card) if card else []
    patterns = [{"type": kind, "cards": values} for kind in ("play", "discard", "show")]
    if len(values) == 1:
        patterns += [
            {"type": "keep", "card": values[0]},
            {"type": "side", "side": values[0]},
            {"type": "takeback", "card": values[0]},
        ]
    if len(values) <= 2:
        patterns.append({"type": "tokens", **dict(zip(("creature", "artemia"), values, strict=False))})
    return patterns


READERS: dict[str, Callable[[_Reader], list[Pattern]]] = {
    "side": lambda r: [{"type": "side", "side": r.number()}],
    "play": _read_play,
    "resist": _read_resist,
    "giveup": lambda r: [{"type": "giveup"}],
    "keep": _read_keep,
    "card": _read_card,
    "hunt": _read_hunt,
    "pass": lambda r: [{"type": "pass"}],
    "discard": _read_discard,
    "show": lambda r: [{"type": "show", "cards": r.places() or None}],
    "lose": lambda r: [{"type": "lose_will"}],
    "later": lambda r: [{"type": "call"}],
    "back": _read_back,
    "bare": _read_bare,
    **{verb: functools.partial(_read_power, label=verb) for verb in POWER_WORDS},
}


def _read_commands(reader: _Reader) -> list[Command]:
    """The line as a list of (verb, patterns, the command's words)."""
    commands = []
    while reader.peek() is not None:
        start = reader.pos
        verb = reader.verb()
        patterns = READERS[verb](reader) if verb in READERS else []
        if verb == "bare" and not patterns:
            raise _Fail("unknown", word=reader.peek())
        commands.append((verb, patterns, " ".join(reader.tokens[start : reader.pos])))
    return commands


# ---------------------------------------------------------------------------------------------- matching
def _fits(pattern: Pattern, action: Action) -> bool:
    """Whether a legal action is one the pattern may mean. Lists match in any order; "at" is the place or the
    place used; "take" is at least these cards, plus perhaps the place's own card ("this card" of the Jungle and
    the Swamp), which may go unsaid; "take" with no cards is any power that takes cards back (the Lair's)."""
    if pattern["type"] != action["type"]:
        return False
    for key, want in pattern.items():
        have = action.get(key)
        if key == "at":
            if want not in (action.get("place"), action.get("use")):
                return False
        elif key == "take" and action["type"] == "power":
            if have is None or (want and (not set(want) <= set(have) or len(set(have) - set(want)) > 1)):
                return False
        elif isinstance(want, list):
            if not isinstance(have, list) or sorted(want) != sorted(have):
                return False
        elif have != want:
            return False
    return True


def _looseness(pattern: Pattern, action: Action) -> int:
    """How much of the action the pattern leaves unsaid: fields it does not name, lists in another order."""
    named = set(pattern) | {k for k in ("place", "use") if "at" in pattern and action.get(k) == pattern["at"]}
    unsaid = sum(1 for k in action if k not in named)
    return unsaid + sum(1 for k, v in pattern.items() if isinstance(v, list) and action.get(k) != v)


def _match(patterns: list[Pattern], legal: list[Action], text: str) -> Action:
    """The one legal action the command means: the first pattern that fits any decides, and among the actions
    it fits, the one it leaves least unsaid ("power 5 reserve 7" is the Rover, not the Drone)."""
    for pattern in patterns:
        if None in pattern.values():
            raise _Fail("incomplete", text=text)
        hits = [a for a in legal if _fits(pattern, a)]
        if hits:
            least = min(_looseness(pattern, a) for a in hits)
            best = []
            for action in hits:  # the engine may offer the same action twice
                if _looseness(pattern, action) == least and action not in best:
                    best.append(action)
            if len(best) == 1:
                return best[0]
            raise _Fail("ambiguous", text=text, actions=best) if len(best) <= 6 else _Fail("incomplete", text=text)
    raise _Fail("not_now", text=text)


# ---------------------------------------------------------------------------------------------- plans
def _my_places(game: Game, seat: int) -> list[int]:
    """Where the seat is this turn: its revealed positions, else the cards it played."""
    view = game.view(seat)
    me = next(h for h in view["hunted"] if h["seat"] == seat)
    return me["played"] if isinstance(me["played"], list) else view["you"]["played"]


def _plan_order(patterns: list[Pattern], game: Game, seat: int, text: str) -> Action:
    """The full action a command means as a planned order, checked for form only (see the module docstring)."""
    if len(patterns) != 1:
        raise _Fail("plan_bare", text=text)
    action = dict(patterns[0])
    if action["type"] in NOT_PLANNABLE:
        raise _Fail("not_plannable", text=text)
    if action["type"] != "pass" and (action["type"] in CREATURE_ONLY) != (seat == 0):
        raise _Fail("only_hunted" if seat == 0 else "only_creature", text=text)
    if action["type"] in ("power", "takeback"):
        places = _my_places(game, seat)
        place = action.pop("at", action.get("place"))
        if place is None and len(places) != 1:
            raise _Fail("plan_where", text=text)
        action["place"] = places[0] if place is None else place
    if action["type"] == "power":
        _complete_power(action, game, seat)
    effect = action.get("copy", action.get("card"))
    needed = [f for f, label in LAYOUT[action["type"]][1] if label is None and f != "copy"]
    needed += [] if effect in TARGET_OPTIONAL else CARD_PARAMS.get(effect or "", ())
    if None in action.values() or any(field not in action for field in needed):
        raise _Fail("incomplete", text=text)
    return action


def _complete_power(action: Action, game: Game, seat: int) -> None:
    """Fill in what a player leaves unsaid about a power, as the engine spells it: the place used is the one you
    are on (the Rover for the Drone); the Jungle and the Swamp also take back their own card; the Lair takes back
    the whole discard pile as it is now."""
    use = action.setdefault("use", ROVER if action.get("via") == "drone" else action["place"])
    take = set(action.get("take") or ())
    if use in (JUNGLE, SWAMP):
        take.add(action["place"])
    elif use == LAIR and not take:
        take = set(next(h["discard"] or () for h in game.view(seat)["hunted"] if h["seat"] == seat))
    if take:
        action["take"] = sorted(take)
    if use in POWER_NEEDS and not any(field in action for field in POWER_NEEDS[use]):
        action[POWER_NEEDS[use][0]] = None  # incomplete: which reserve card, or whom to heal


# ---------------------------------------------------------------------------------------------- parse
def parse(
    text: str, game: Game, seat: int, lang: str | None = None, names: dict[int, str] | None = None
) -> list[Action]:
    """The engine action(s) `text` means for `seat` now (see the module docstring); raises CommandError.

    `lang` ("en"/"cs") words the error; by default the command's own language. `names` optionally maps seats to
    player names, so that "card anticipation jana" works.
    """
    if text.strip() == "?":
        return [{"type": "_help"}]
    lang = lang or detect_language(text)
    try:
        commands = _read_commands(_Reader(_tokens(text), game, seat, names))
        if not commands:
            raise _Fail("empty")
        for verb, _, _ in commands:
            if verb in MARKERS:
                return [{"type": MARKERS[verb]}]
        if game.is_over:
            raise _Fail("game_over")
        return _resolve(commands, game, seat)
    except _Fail as fail:
        raise CommandError(_explain(fail, game, seat, lang)) from None


def _resolve(commands: list[Command], game: Game, seat: int) -> list[Action]:
    """Each command as the legal action it means at its point of the line, or, once the seat has nothing to
    answer (or after `plan`), as a planned order; the plan comes last."""
    actions: list[Action] = []
    orders: list[Action] = []
    planning, sim = False, game
    for i, (verb, patterns, text) in enumerate(commands):
        planning = planning or verb == "plan"
        if verb == "plan":
            continue
        legal = [] if planning else typed(sim.legal_actions(seat))
        if not legal or (patterns == [{"type": "pass"}] and {"type": "pass"} not in legal):
            planning = True
            orders.append(_plan_order(patterns, sim, seat, text))
            continue
        if i + 1 < len(commands) and not any(_fits(p, a) for p in patterns for a in legal):
            # Not asked now but more follows ("power 4 power 9 heal p2" when the Beach needs no answer):
            # keep it as an answer ahead instead of refusing the whole line.
            orders.append(_plan_order(patterns, sim, seat, text))
            continue
        actions.append(_match(patterns, legal, text))
        if i + 1 < len(commands):  # the rest of the line is read against the game as this command leaves it
            sim = game.copy() if sim is game else sim
            sim.apply(seat, actions[-1])
    if planning and not orders:
        raise _Fail("incomplete", text="plan")
    if orders:
        actions.append({"type": "plan", "orders": orders})
    return actions


def _explain(fail: _Fail, game: Game, seat: int, lang: str) -> str:
    params: dict[str, Any] = {
        k: echo(v) if k in ("word", "text") and isinstance(v, str) else v for k, v in fail.params.items()
    }
    if "actions" in params:
        params["options"] = " / ".join(describe(a, lang) for a in params.pop("actions"))
    lines = summary(game, seat, lang)
    legal = _msg("legal", lang, lines="; ".join(lines)) if lines else ""
    return " ".join(filter(None, [_msg(fail.key, lang, **params), legal]))


# ---------------------------------------------------------------------------------------------- writing
class _Alt(str):
    """Placeholder text standing for several values of a field in a summary line ("1, 2 or 4", "2 of 1, 4, 5")."""


def _item(field: str, value: Any, lang: str) -> str:
    """One value as written: a place number, a seat "p2"/"h2", a card's name."""
    if isinstance(value, _Alt):
        return value
    if field in SEAT_FIELDS:
        return f"{_word('seat', lang)}{value}"
    if field == "via":
        return name(LAIR if value == "lair" else value, lang, accusative=True)
    return name(value, lang) if isinstance(value, str) else str(value)


def _fields(action: Action) -> Iterator[tuple[str, str | None, Any]]:
    """(field, label, value) of the action in writing order, leaving out what goes without saying."""
    _, layout = LAYOUT[action["type"]]
    if action["type"] in ("survival", "hunt_card"):
        layout += tuple((f, None) for f in CARD_PARAMS.get(action.get("copy", action.get("card")) or "", ()))
    for field, label in layout:
        value = action.get(field)
        if value is not None and not (field == "use" and value == action.get("place")):
            yield field, label, value


def _command(action: Action, lang: str) -> str:
    """The action as a command, without the comment: "power 2 take 2 4"."""
    parts = [_word(LAYOUT[action["type"]][0], lang)]
    for field, label, value in _fields(action):
        text = (
            ""
            if value is True
            else " ".join(_item(field, v, lang) for v in value)
            if isinstance(value, list)
            else _item(field, value, lang)
        )
        if label:
            word_ = _word(label, lang)
            text = f"{word_}{text}" if len(word_) == 1 else f"{word_} {text}".strip()
        parts.append(text)
    return " ".join(parts)


def _gloss(action: Action, lang: str) -> str:
    """The names of the places the action names, in writing order: "Jungle, Beach"."""
    places = []
    for field, _, value in _fields(action):
        if field not in ("side", *SEAT_FIELDS) and not isinstance(value, (_Alt, bool)):
            places += [
                v for v in (value if isinstance(value, list) else [value]) if isinstance(v, int) and v not in places
            ]
    return ", ".join(name(p, lang) for p in places)


def describe(action: Action, lang: str = "en") -> str:
    """Short text for an action, in English or Czech: "play 3 (River)" / "hraj 3 (Řeka)"; it parses back."""
    kind = action["type"]
    if kind == "plan":
        return " ".join([_word("plan", lang)] + [_command(order, lang) for order in action["orders"]])
    if kind.startswith("_"):
        return _word(kind[1:], lang)
    gloss = _gloss(action, lang)
    return f"{_command(action, lang)} ({gloss})" if gloss else _command(action, lang)


def _span(numbers: list[int], sep: str) -> str:
    """Sorted numbers as text: a run of four or more as "1-10", else joined by `sep`."""
    if len(numbers) >= 4 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return sep.join(map(str, numbers))


def _one_of(items: list[str], lang: str) -> str:
    """Choices as a person reads and types them: "1, 5 or 6", "p1 or p2"."""
    if len(items) == 1:
        return items[0]
    return _msg("or", lang, items=", ".join(items[:-1]), last=items[-1])


def _alternatives(field: str, values: list[Any], lang: str) -> "_Alt":
    """Several values of one field as placeholder text, worded as a person types a choice: "1-10", "1, 4 or 5",
    "p1 or p2", "2 of 1, 4, 5" (any two of them), "1+2 1+6 or 2+3" (exactly these pairs)."""
    if all(isinstance(v, list) for v in values):
        common = [x for x in values[0] if all(x in v for v in values)]
        rest = sorted({x for v in values for x in v} - set(common))
        n = len(values[0]) - len(common)
        chosen = {tuple(sorted(set(v) - set(common), key=_order)) for v in values}
        if n == 0:  # one combination only ("play 2 3"): nothing to choose
            return _Alt(" ".join(map(str, common)))
        if n == 1:
            choice = _numbers(rest, lang)
        elif len(chosen) == math.comb(len(rest), n):
            choice = _msg("of", lang, n=n, items=_span(rest, ", "))
        else:  # only some combinations: each written out, "1+2 1+6 … or 9+10"
            pairs = ["+".join(map(str, c)) for c in sorted(chosen, key=lambda c: [_order(x) for x in c])]
            choice = _msg("or", lang, items=" ".join(pairs[:-1]), last=pairs[-1])
        return _Alt(" ".join([*map(str, common), choice]))
    distinct = sorted(set(values), key=str)
    if field in SEAT_FIELDS or not all(isinstance(v, int) for v in distinct):
        return _Alt(_one_of([_item(field, v, lang) for v in distinct], lang))
    return _Alt(_numbers(sorted(distinct), lang))


def _numbers(numbers: list[int], lang: str) -> str:
    """One of sorted numbers: all of a run of four or more as "1-10", else each run of three or more as "1-3"
    among the others: "1-5, 9 or 10", "1, 4 or 5"."""
    spanned = _span(numbers, "|")
    if "-" in spanned:
        return spanned
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    items = [f"{r[0]}-{r[-1]}" if len(r) >= 3 else str(x) for r in runs for x in (r[:1] if len(r) >= 3 else r)]
    return _one_of(items, lang)


def _groups(legal: list[Action]) -> list[list[Action]]:
    """Legal actions grouped by what they are (type, card, place used) and their shape (fields, list lengths)."""
    groups: dict[Any, list[Action]] = {}
    for action in legal:
        fixed = {
            k: v
            for k, v in action.items()
            if isinstance(v, str) or (action["type"] in ("power", "takeback") and k in ("place", "use"))
        }
        shape = tuple((k, len(v) if isinstance(v, list) else None) for k, v in action.items() if k not in fixed)
        groups.setdefault((tuple(sorted(fixed.items())), tuple(sorted(shape))), []).append(action)
    return list(groups.values())


def _summary_line(group: list[Action], lang: str) -> str:
    shape = dict(group[0])
    for field in shape:
        values = [a[field] for a in group]
        if any(v != values[0] for v in values):
            shape[field] = _alternatives(field, values, lang)
    line = _command(shape, lang)
    if shape["type"] == "resist":
        line += " " + _msg("will_cost", lang, n=1 if len(group[0]["cards"]) <= 2 else 2)
    return line


def _exact(group: list[Action]) -> list[list[Action]]:
    """The group split until each part is every combination of its fields' values, so that each line offers only
    legal answers: a card whose two places depend on each other gets one line per first place."""
    varying = [f for f in group[0] if len({_hashable(a[f]) for a in group}) > 1]
    combinations = math.prod(len({_hashable(a[f]) for a in group}) for f in varying[1:])
    if len(varying) < 2 or combinations * len({_hashable(a[varying[0]]) for a in group}) == len(
        {tuple(_hashable(a[f]) for f in varying) for a in group}
    ):
        return [group]
    parts: dict[Any, list[Action]] = {}
    for action in group:
        parts.setdefault(_hashable(action[varying[0]]), []).append(action)
    return [exact for part in parts.values() for exact in _exact(part)]


def _hashable(value: Any) -> Any:
    return tuple(sorted(value, key=_order)) if isinstance(value, list) else value


def _order(value: Any) -> tuple[int, int, str]:
    """Numbers in numeric order (2 before 10), then names."""
    return (0, value, "") if isinstance(value, int) else (1, 0, str(value))


def named_card(text: str) -> int | str | None:
    """The card ``text`` names when it is only `card <name>` ("card wrong track", "karta falešná stopa", "card 3"):
    a Hunt or Survival card, or a place; else None (more words, or no card of that name)."""
    words = _tokens(text)
    if len(words) < 2 or _MEANING.get(words[0]) != "card":
        return None
    if len(words) == 2 and words[1].isdigit():
        return int(words[1]) if int(words[1]) in PLACE_NUMBERS else None
    vocab = {**CARD_VOCAB["hunt"], **CARD_VOCAB["survival"], **PLACES}
    try:
        card, used = _lookup(words[1:], vocab)
    except _Fail:  # a prefix of several names
        return None
    return card if used == len(words) - 1 else None


def summary(game: Game, seat: int, lang: str = "en") -> list[str]:
    """What the seat may do now, one short line per kind of answer, as a person types it: "resist 2 of 1, 4, 5
    (1 Will)", "play 1, 2 or 4"; every combination a line shows is legal."""
    return [_summary_line(part, lang) for group in _groups(typed(game.legal_actions(seat))) for part in _exact(group)]


def typed(legal: list[Action]) -> list[Action]:
    """The legal actions a person types as such: a question ahead (the game's rules/ahead.py) is typed as an answer
    ahead instead ("take 4" once nothing else is asked: a plan)."""
    return [action for action in legal if action["type"] != "ahead"]


def help_text(game: Game, seat: int, lang: str = "en") -> str:
    """What this seat may do now, with an example for each kind of answer, answering ahead, and the places."""
    if game.is_over:
        return _msg("won_creature" if game.winner == "creature" else "won_hunted", lang)
    places = " ".join(f"{p} {name(p, lang)}" for p in PLACE_NUMBERS)
    footer = [_msg("ahead", lang), _msg("also", lang, places=places)]
    window = game.window
    assert window is not None  # the game is not over
    head = f"{_msg('turn', lang, n=game.turn)} · {_msg(window['kind'], lang)}"
    groups = _groups(typed(game.legal_actions(seat)))
    if not groups:
        named = game.public_view()["window"]["waiting"]  # (strict secrecy: never a seat asked only about its cards)
        who = ", ".join(word("creature", lang) if s == 0 else f"{_word('seat', lang)}{s}" for s in named)
        return "\n".join([f"{head}. {_msg('nothing', lang, who=who)}", *footer])
    lines = [f"{head}:"]
    for group in groups:
        example = f" — {_msg('e.g.', lang)} {describe(group[0], lang)}" if len(group) > 1 else ""
        lines.append(f"  {_summary_line(group, lang)}{example}")
    return "\n".join(lines + footer)
