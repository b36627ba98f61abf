"""Reading a line of typed text into commands: its tokens, the names of places, cards and seats in it, and the
patterns of the actions each verb may mean (matched against the legal actions by `service.commands`).
"""

import functools
import re
from collections.abc import Callable, Collection, Iterable
from typing import Any

from service.cardnames import fold, spellings
from service.commands.words import (
    CARD_PARAMS,
    FILLERS,
    KEYWORDS,
    LIST_FIELDS,
    PHRASES,
    POWER_WORDS,
    SEAT_FIELDS,
    VERBS,
    VIA_CARDS,
    Fail,
    typed,
)
from service.game import Game
from service.game.cards import HUNT_CARDS, LAIR, PLACE_NUMBERS, SURVIVAL_CARDS

Pattern = dict[str, Any]  # a partial action a command may mean; None marks a value the player left out
Command = tuple[str, list[Pattern], str]  # (verb, patterns, the command's words)

_MEANING: dict[str, str] = {}
_LANGUAGE: dict[str, str] = {}
for _meaning, (_en, _cs, _more) in KEYWORDS.items():
    for _spelling in (_en, _cs, *_more):
        _MEANING.setdefault(fold(_spelling.split()[0]), _meaning)
    if fold(_en) != fold(_cs):
        _LANGUAGE[fold(_en.split()[0])], _LANGUAGE[fold(_cs.split()[0])] = "en", "cs"


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
            raise Fail("ambiguous_name", word=key, options=", ".join(options[:8]))
    return None, 0


# ---------------------------------------------------------------------------------------------- reading
_fold_word = functools.lru_cache(maxsize=4096)(fold)


def tokenize(text: str) -> list[str]:
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
    votes = [_LANGUAGE.get(t) for t in tokenize(text)]
    return "cs" if votes.count("cs") > votes.count("en") else "en"


class Reader:
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
            raise Fail("no_place", n=n)
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
            raise Fail("no_seat", n=n, last=self.game.players - 1)
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


def _read_play(r: Reader) -> list[Pattern]:
    return [{"type": "play", "cards": r.places() or None}]


def _read_resist(r: Reader) -> list[Pattern]:
    cards = r.places()
    return [{"type": "resist", **({"cards": cards} if cards else {})}]


def _read_keep(r: Reader) -> list[Pattern]:
    value = r.place_or_card()
    return [{"type": "keep" if isinstance(value, int) else "keep_survival", "card": value}]


def _read_discard(r: Reader) -> list[Pattern]:
    first = r.place_or_card()
    if isinstance(first, str):
        return [{"type": "discard_survival", "card": first}]
    return [{"type": "discard", "cards": None if first is None else [first, *r.places()]}]


def _read_card(r: Reader, card: str | None = None) -> list[Pattern]:
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


def _read_hunt(r: Reader) -> list[Pattern]:
    """`hunt 4 a7`, `creature 4 artemia 7`, `4 7`: the Creature token first, the Artemia token labelled or second."""
    pattern = {"type": "tokens"}
    for _ in range(2):
        label = r.label("artemia", "hunt")
        field = "artemia" if label == "artemia" or "creature" in pattern else "creature"
        if field in pattern or (place := r.place()) is None:
            break
        pattern[field] = place
    return [pattern]


def _read_power(r: Reader, label: str | None, pattern: Pattern | None = None) -> list[Pattern]:
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


def _starts_another_power(r: Reader, pattern: Pattern) -> bool:
    """Whether the next word begins a second power command ("power 4 power 9 heal p3" is two answers, one per
    place of an Artefact player): a new `power`, or a word for a field this command already has."""
    token = r.peek(POWER_WORDS + ("at",))
    meaning = _MEANING.get(token) if token is not None else None
    return (meaning == "power" and len(pattern) > 1) or (meaning is not None and _POWER_FIELD.get(meaning) in pattern)


def _read_back(r: Reader) -> list[Pattern]:
    pattern = {"type": "takeback", "card": r.place()}
    if r.label("at"):
        pattern["place"] = r.place()
    return [pattern]


def _read_bare(r: Reader) -> list[Pattern]:
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


READERS: dict[str, Callable[[Reader], list[Pattern]]] = {
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


def read_commands(reader: Reader) -> list[Command]:
    """The line as a list of (verb, patterns, the command's words)."""
    commands = []
    while reader.peek() is not None:
        start = reader.pos
        verb = reader.verb()
        patterns = READERS[verb](reader) if verb in READERS else []
        if verb == "bare" and not patterns:
            raise Fail("unknown", word=reader.peek())
        commands.append((verb, patterns, " ".join(reader.tokens[start : reader.pos])))
    return commands


def named_card(text: str) -> int | str | None:
    """The card ``text`` names when it is only `card <name>` ("card wrong track", "karta falešná stopa", "card 3"):
    a Hunt or Survival card, or a place; else None (more words, or no card of that name)."""
    words = tokenize(text)
    if len(words) < 2 or _MEANING.get(words[0]) != "card":
        return None
    if len(words) == 2 and words[1].isdigit():
        return int(words[1]) if int(words[1]) in PLACE_NUMBERS else None
    vocab = {**CARD_VOCAB["hunt"], **CARD_VOCAB["survival"], **PLACES}
    try:
        card, used = _lookup(words[1:], vocab)
    except Fail:  # a prefix of several names
        return None
    return card if used == len(words) - 1 else None
