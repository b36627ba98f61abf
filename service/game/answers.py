"""Answers given ahead: a seat's recorded answers and plans (``g.s["orders"]``), and how a deferred question is
decided when the rules reach it — a recorded answer or plan, the only option, a fallback, or a window that asks.
"""

from typing import Final

from service.game.autoplay import pick, power_score
from service.game.cards import SURVIVAL_CARDS
from service.game.rules.common import NeedAnswer, creature_places
from service.game.rules.secrecy import asks
from service.game.state import Action, Event
from service.game.table import Table

# Tasks whose decisions are collected in a window before they run, and the window that collects them.
DEFERRED_KIND: Final = {
    "fz": "prereveal",
    "ascendancy": "prereveal",
    "phobia": "prereveal",
    "river": "prereveal",
    "vortex": "prereveal",
    "scream": "reckoning",
    "toxin": "reckoning",
    "artemia": "reckoning",
    "resolve": "reckoning",
}


def from_orders(g: Table, seat: int, key: str | None, options: list[Action]) -> Action | None:
    """The first of the seat's orders for this question (then its plan) that answers it; used up, but for a
    planned ``pass``: "no cards this turn" answers every question it fits until the turn ends."""
    orders = g.s["orders"][seat]
    if not orders:
        return None
    for wanted in ((key,) if key is not None else ()) + (None,):
        for i, order in enumerate(orders):
            if order["key"] == wanted:
                action = order_answer(g, seat, order["action"], options)
                if action is not None:
                    if wanted is not None or action["type"] != "pass":
                        del orders[i]
                    return action
    return None


def order_answer(g: Table, seat: int, order: Action, options: list[Action]) -> Action | None:
    """The option a planned action answers: itself, or for a bare "use my place's power" order (``power``
    with at most ``place``/``use``, or ``via: "lair"``: copy the power of the Creature's place) the best such
    power, details chosen as auto-play would."""
    if order in options:
        return order
    if order["type"] == "keep" and order.get("safe"):
        return _safe_keep(g, order["card"], options)
    if order["type"] != "power" or set(order) - {"type", "place", "use", "via"} or order.get("via", "lair") != "lair":
        return None
    fitting = [
        o
        for o in options
        if o["type"] == "power"
        and o.get("via") == order.get("via")
        and all(o[k] == v for k, v in order.items() if k not in ("type", "via"))
    ]
    return max(fitting, key=lambda o: power_score(g, seat, o)) if fitting else None


def _safe_keep(g: Table, card: int, options: list[Action]) -> Action | None:
    """The River's conditional order: keep ``card`` unless the Creature token (or the Target under Clone) is on it
    and not on the other card played."""
    hunted = set(creature_places(g))
    keep = {o["card"]: o for o in options if o["type"] == "keep"}
    if card not in keep:
        return None
    others = [c for c in keep if c != card]
    if card in hunted and others and others[0] not in hunted:
        return keep[others[0]]
    return keep[card]


def matches_orders(g: Table, seat: int, key: str, options: list[Action]) -> bool:
    return any(
        o["key"] in (key, None) and order_answer(g, seat, o["action"], options) is not None for o in g.s["orders"][seat]
    )


def survival_card(action: Action) -> str | None:
    """The Survival card an answer spends: a card played (Vortex) or the one a place's power is used through
    (Drone, Gate); None for every other answer."""
    if action["type"] == "survival":
        return str(action["card"])
    via = action.get("via")
    return via if via in SURVIVAL_CARDS else None


def decide(g: Table, seat: int, key: str, options: list[Action], events: list[Event]) -> Action:
    """The answer to a deferred question: a recorded answer or plan, the only option, or a fallback. A fallback
    never spends a Survival card the seat did not name in its answer (every such question also offers an answer
    without the card)."""
    action = from_orders(g, seat, key, options)
    if action is not None:
        return action
    if f"{seat}:{key}" in g.s["this_turn"]["answered"]:  # answered, but an earlier step left that answer out
        named = {survival_card(o["action"]) for o in g.s["orders"][seat] if o["key"] == key}
        g.s["orders"][seat] = [o for o in g.s["orders"][seat] if o["key"] != key]
        options = [o for o in options if survival_card(o) in named | {None}]
        action = options[0] if len(options) == 1 else pick(g, seat, key, options)
        events.append({"type": "fallback", "seat": seat, "question": key, "action": action, "visible_to": [seat]})
        return action
    kind = key.split(":")[0]
    if not asks(g, kind, seat, options):
        return options[0]
    raise NeedAnswer(DEFERRED_KIND[kind])
