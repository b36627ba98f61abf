"""Auto-play: a legal, sensible answer for a seat that missed its deadline, from what that seat may know.

``auto_live`` answers a live question (a window's own question), ``pick`` a deferred one (asked by a task);
``power_score`` ranks the ways to use a place, also for plans that say only "use my place's power".
"""

import random
from typing import Final

from service.game.cards import (
    ARTEFACT,
    BEACH,
    JUNGLE,
    LAIR,
    PLACE_NUMBERS,
    RIVER,
    ROVER,
    SHELTER,
    SOURCE,
    STARTING_PLACES,
    SWAMP,
    WRECK,
)
from service.game.rules.common import CREATURE, PLACE_VALUE, peek_rng, player
from service.game.state import Action
from service.game.table import Table

SURVIVAL_KEEP_ORDER: Final = [
    "dodge",
    "wrong-track",
    "adrenaline",
    "sixth-sense",
    "amplifier",
    "detector",
    "hologram",
    "gate",
    "drone",
    "double-back",
    "vortex",
    "strike-back",
    "smokescreen",
    "ingenuity",
    "sacrifice",
]
_POWER_VALUE: Final = {
    LAIR: 0,
    JUNGLE: 5,
    RIVER: 5,
    BEACH: 7,
    ROVER: 7,
    SWAMP: 8,
    SHELTER: 7,
    WRECK: 12,
    SOURCE: 6,
    ARTEFACT: 5,
}


def auto_live(g: Table, seat: int, options: list[Action]) -> Action:
    """The answer to the open window's own question, ``options`` being the seat's legal actions."""
    w = g.s["window"]
    assert w is not None
    kind = w["kind"]
    rng = peek_rng(g, seat)
    if kind == "setup":
        return options[rng.randrange(2)]
    if kind == "hunt":
        return auto_tokens(g, options, rng)
    if kind != "explore" or seat == CREATURE:
        return {"type": "pass"} if {"type": "pass"} in options else options[0]
    h = player(g, seat)
    if h["drawn_to_choose"]:
        return min(options, key=lambda o: _keep_rank(o["card"]))
    plays = [o for o in options if o["type"] == "play"]
    if plays:
        return rng.choice(plays)
    resists = [o for o in options if o["type"] == "resist"]
    if resists and h["will"] >= 2:
        return max(resists, key=lambda o: sum(PLACE_VALUE[c] for c in o["cards"]))
    return next((o for o in options if o["type"] == "giveup"), options[0])


def _keep_rank(card: str) -> int:
    """Which Survival card auto-play keeps at the Shelter: the first in SURVIVAL_KEEP_ORDER (a card it does not
    list comes last)."""
    return SURVIVAL_KEEP_ORDER.index(card) if card in SURVIVAL_KEEP_ORDER else len(SURVIVAL_KEEP_ORDER)


def auto_tokens(g: Table, options: list[Action], rng: random.Random) -> Action:
    """Where the Hunted are most likely to be, judged only from public information (discard piles)."""
    smoke = g.s["this_turn"]["smokescreen"]
    weight = {p: rng.random() for p in PLACE_NUMBERS}
    for seat in g.hunted_seats():
        h = player(g, seat)
        known = set(STARTING_PLACES) | (set() if smoke else set(h["discard"]))
        for p in known:
            weight[p] += 0 if (not smoke and p in h["discard"]) else 1
    ranked = sorted(PLACE_NUMBERS, key=lambda p: -weight[p])
    wanted = {"type": "tokens", "creature": ranked[0]}
    if any("artemia" in o for o in options if o["type"] == "tokens"):
        wanted["artemia"] = ranked[1]
    return wanted


def pick(g: Table, seat: int, key: str, options: list[Action]) -> Action:
    """The sensible default answer to a deferred question."""
    kind = key.split(":")[0]
    h = player(g, seat)
    if kind in ("fz", "ascendancy", "artemia", "scream", "phobia"):
        if kind == "scream" and h["will"] >= 2:
            return {"type": "lose_will"}
        cards = [o for o in options if "cards" in o]
        if cards:
            return min(cards, key=lambda o: sum(PLACE_VALUE[c] for c in o["cards"]))
    if kind == "river":
        return options[peek_rng(g, seat).randrange(len(options))]
    if kind == "vortex":
        return {"type": "pass"}
    if kind == "resolve":
        return max(options, key=lambda o: power_score(g, seat, o))
    return options[0]


def power_score(g: Table, seat: int, option: Action) -> float:
    """How much a Hunted gains by a way of using a place (a power action, a takeback, or a pass: nothing)."""
    if option["type"] == "pass":
        return 0.0
    if option["type"] == "takeback":
        return float(PLACE_VALUE[option["card"]])  # (compiled, a float is a float: never an int)
    use = option["use"]
    score = float(_POWER_VALUE[use])
    if use == LAIR:
        score = 2.0 * len(option.get("take", ()))
    elif use == BEACH and g.s["marker_on_beach"]:
        score = 9.0
    if use == SOURCE and option.get("heal") == seat:
        score += 3.0
    score += sum(PLACE_VALUE[c] for c in option.get("take", ())) / 4 + option.get("reserve", 0) / 10
    return score - (3 if "via" in option and option["via"] != "lair" else 0)
