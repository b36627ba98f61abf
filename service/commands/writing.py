"""Writing actions as commands, the inverse of reading them: `describe` writes one action, `summary` and
`help_text` what a seat may do now, each choice as a person types it.

`describe(action, lang)` writes the full command with the places' names as a comment: "power 2 take 2 4 (Jungle,
Beach)", "hraj 3 (Řeka)"; it parses back to the same action. `summary` puts what a seat may do now in a few lines
("resist 2 of 1, 4, 5 (1 Will)", "play 1, 2 or 4", "hunt 1-10 a1-10"), each choice written as a person types it
and every combination a line shows legal (the Mirage's adjacent pairs are written out: "1+2 1+6 … or 9+10");
`help_text` adds examples and how to answer ahead.
"""

import math
from collections.abc import Iterator
from typing import Any

from service.cardnames import name, word
from service.commands.words import CARD_PARAMS, KEYWORDS, LAYOUT, SEAT_FIELDS, Action, msg, typed
from service.game import Game
from service.game.cards import LAIR, PLACE_NUMBERS


def _word(meaning: str, lang: str) -> str:
    en, cs, _ = KEYWORDS[meaning]
    return cs if lang == "cs" else en


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
    return msg("or", lang, items=", ".join(items[:-1]), last=items[-1])


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
            choice = msg("of", lang, n=n, items=_span(rest, ", "))
        else:  # only some combinations: each written out, "1+2 1+6 … or 9+10"
            pairs = ["+".join(map(str, c)) for c in sorted(chosen, key=lambda c: [_order(x) for x in c])]
            choice = msg("or", lang, items=" ".join(pairs[:-1]), last=pairs[-1])
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
        line += " " + msg("will_cost", lang, n=1 if len(group[0]["cards"]) <= 2 else 2)
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


def summary(game: Game, seat: int, lang: str = "en") -> list[str]:
    """What the seat may do now, one short line per kind of answer, as a person types it: "resist 2 of 1, 4, 5
    (1 Will)", "play 1, 2 or 4"; every combination a line shows is legal."""
    return [_summary_line(part, lang) for group in _groups(typed(game.legal_actions(seat))) for part in _exact(group)]


def help_text(game: Game, seat: int, lang: str = "en") -> str:
    """What this seat may do now, with an example for each kind of answer, answering ahead, and the places."""
    if game.is_over:
        return msg("won_creature" if game.winner == "creature" else "won_hunted", lang)
    places = " ".join(f"{p} {name(p, lang)}" for p in PLACE_NUMBERS)
    footer = [msg("ahead", lang), msg("also", lang, places=places)]
    window = game.window
    assert window is not None  # the game is not over
    head = f"{msg('turn', lang, n=game.turn)} · {msg(window['kind'], lang)}"
    groups = _groups(typed(game.legal_actions(seat)))
    if not groups:
        named = game.public_view()["window"]["waiting"]  # (strict secrecy: never a seat asked only about its cards)
        who = ", ".join(word("creature", lang) if s == 0 else f"{_word('seat', lang)}{s}" for s in named)
        return "\n".join([f"{head}. {msg('nothing', lang, who=who)}", *footer])
    lines = [f"{head}:"]
    for group in groups:
        example = f" — {msg('e.g.', lang)} {describe(group[0], lang)}" if len(group) > 1 else ""
        lines.append(f"  {_summary_line(group, lang)}{example}")
    return "\n".join(lines + footer)
