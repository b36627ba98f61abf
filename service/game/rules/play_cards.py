"""Playing Hunt and Survival cards: which cards may be played now (from the card table) and playing one.

Also the Creature's tokens at the end of the Hunting phase, the other live answer of the Creature.
"""

from typing import Final, cast

from service.game.cards import PLACE_NUMBERS
from service.game.registry import CARD_RULES
from service.game.rules.common import CREATURE, MEMO_CARDS, can_survive, has, spend_survival
from service.game.rules.secrecy import PASS, on_call
from service.game.state import Action, Event
from service.game.table import Table

_TOKENS: Final = tuple({"type": "tokens", "creature": c} for c in PLACE_NUMBERS)
_TOKENS_WITH_ARTEMIA: Final = tuple(
    {"type": "tokens", "creature": c, "artemia": a} for c in PLACE_NUMBERS for a in PLACE_NUMBERS
)


def survival_options(g: Table, seat: int, phase: int) -> list[Action]:
    hand = g.s["players"][seat]["survival"]
    if not hand or not can_survive(g, seat):
        return []
    options: list[Action] = []
    for card in sorted(set(hand)):
        rule = CARD_RULES[card]
        if rule.phase == phase:
            options += [{"type": "survival", "card": card, **p} for p in rule.options(g, seat)]
    return options


def creature_card_options(g: Table, phase: int) -> list[Action]:
    s, t = g.s, g.s["this_turn"]
    if t["sacrifice"] or len(t["hunt_cards"]) >= t["hunt_card_limit"]:
        return []
    options: list[Action] = []
    for card in sorted(s["players"][CREATURE]["hand"]):
        copy = None
        if CARD_RULES[card].copies:
            if not s["hunt_discard"] or CARD_RULES[s["hunt_discard"][-1]].copies:
                continue
            copy = s["hunt_discard"][-1]
        rule = CARD_RULES[copy or card]
        if rule.phase != phase or (copy and has(g, rule.id)):
            continue
        base = {"type": "hunt_card", "card": card, **({"copy": copy} if copy else {})}
        options += [{**base, **params} for params in rule.options(g, CREATURE)]
    return options


def card_options(g: Table, seat: int, phase: int) -> list[Action]:
    """The cards a seat may play in a card window of this phase, and ``pass`` when there is any; none after the
    hunt for a seat that is not on call (`secrecy.on_call`).

    Kept in the game's memo (cleared on every change of the state): opening a card window asks it for every seat,
    then the window asks it again for each seat it waits for, and a seat that passes for the cards it could play.
    The list is shared: callers read it and never change it."""
    key = MEMO_CARDS + 8 * phase + seat
    options: list[Action] | None = g.memo.get(key)
    if options is None:
        options = g.memo[key] = _card_options(g, seat, phase)
    return options


def _card_options(g: Table, seat: int, phase: int) -> list[Action]:
    if phase >= 3 and not on_call(g, seat):
        return []
    options = creature_card_options(g, phase) if seat == CREATURE else survival_options(g, seat, phase)
    return options + [PASS] if options else []


def card_names(g: Table, seat: int) -> list[str]:
    """The cards a seat may play in the open card window (Reckoning or end of turn)."""
    w = g.s["window"]
    assert w is not None
    phase = 3 if w["kind"] == "reckoning" else 4
    return sorted({o["card"] for o in card_options(g, seat, phase) if o["type"] != "pass"})


def do_survival(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    card = action["card"]
    params = {k: v for k, v in action.items() if k not in ("type", "card")}
    spend_survival(g, seat, card, events, params)
    CARD_RULES[card].effect(g, seat, action, events)


def do_hunt_card(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    s, t = g.s, g.s["this_turn"]
    card = action["card"]
    effect = cast(str, action.get("copy", card))
    s["players"][CREATURE]["hand"].remove(card)
    s["players"][CREATURE]["played"].append(card)
    played = {k: v for k, v in action.items() if k != "type"}
    played["as"] = effect
    t["hunt_cards"].append(played)
    t["hunt_effects"].append(effect)
    events.append({"type": "hunt_card", **played, "visible_to": None})
    CARD_RULES[effect].effect(g, seat, action, events)


def token_options(g: Table) -> list[Action]:
    t, tokens = g.s["this_turn"], g.s["tokens"]
    needs_artemia = (
        t["artemia_space"] or any(CARD_RULES[e].symbol == "artemia" for e in t["hunt_effects"])
    ) and not tokens["artemia"]
    return list(_TOKENS_WITH_ARTEMIA if needs_artemia else _TOKENS)


def place_tokens(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    tokens = g.s["tokens"]
    tokens["creature"] = [action["creature"]]
    if "artemia" in action:
        tokens["artemia"] = [action["artemia"]]
    placed = {k: list(v) for k, v in cast(dict[str, list[int]], tokens).items()}
    events.append({"type": "tokens", "tokens": placed, "visible_to": None})
