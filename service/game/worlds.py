"""Worlds consistent with a seat's knowledge: the bots' search plays its rollouts in them.

``world(knowledge, rng)`` fills every secret of a seat's knowledge (observer.knowledge: the state with its
secrets masked as counts) with a guess the seat cannot rule out, and returns a complete state (state.State)
to build an engine Game from. Guesses are uniform over what is left:

    Hunt cards        the Creature's hand and the Hunt deck: the cards neither discarded nor played this turn
    Survival cards    other Hunted's cards, cards drawn to choose and the deck: the cards nobody has shown
    place cards       a Hunted's cards in hand and played face down: the starting places not in its discard pile,
                      then copies taken from the reserve that no pile or known hand accounts for; under
                      Smokescreen (for the Creature) the discard pile is guessed from the same cards
    the seed          a fresh one: what the decks hold after a reshuffle is unknown too

The module reads only the knowledge it is given: it never sees a game.
"""

import json
import random
from typing import Any

from service.game.cards import HUNT_CARDS, RESERVE_COPIES, RESERVE_PLACES, STARTING_PLACES, SURVIVAL_CARDS
from service.game.rules.common import CREATURE
from service.game.state import State


def _take(pool: list[Any], count: int) -> list[Any]:
    taken = pool[:count]
    del pool[:count]
    return taken


def _hunt_cards(k: dict[str, Any], rng: random.Random) -> None:
    creature = k["players"][CREATURE]
    seen = set(k["hunt_discard"]) | set(creature["played"])
    if isinstance(creature["hand"], list):
        seen |= set(creature["hand"])
    pool = [c for c in HUNT_CARDS if c not in seen]
    rng.shuffle(pool)
    if isinstance(creature["hand"], int):
        creature["hand"] = _take(pool, creature["hand"])
    k["hunt_deck"] = _take(pool, k["hunt_deck"])


def _survival_cards(k: dict[str, Any], hunted: list[dict[str, Any]], rng: random.Random) -> None:
    seen = set(k["survival_discard"])
    for h in hunted:
        for key in ("survival", "drawn_to_choose"):
            if isinstance(h[key], list):
                seen |= set(h[key])
    pool = [c for c in SURVIVAL_CARDS if c not in seen]
    rng.shuffle(pool)
    for h in hunted:
        for key in ("survival", "drawn_to_choose"):
            if isinstance(h[key], int):
                h[key] = _take(pool, h[key])
    k["survival_deck"] = _take(pool, k["survival_deck"])


def _unaccounted_reserve(k: dict[str, Any], hunted: list[dict[str, Any]]) -> list[int]:
    """The copies of reserve places taken by somebody that no known pile or hand holds."""
    copies = RESERVE_COPIES[k["config"]["players"]]
    taken = {p: copies - k["reserve"][p] for p in RESERVE_PLACES}
    for h in hunted:
        for key in ("hand", "played", "discard"):
            if isinstance(h[key], list):
                for p in h[key]:
                    if p in taken:
                        taken[p] -= 1
    return [p for p in RESERVE_PLACES for _ in range(max(0, taken[p]))]


def _place_cards(k: dict[str, Any], hunted: list[dict[str, Any]], rng: random.Random) -> None:
    extra = _unaccounted_reserve(k, hunted)
    rng.shuffle(extra)
    for h in hunted:
        if isinstance(h["hand"], list) and isinstance(h["played"], list) and isinstance(h["discard"], list):
            continue
        known = [p for key in ("hand", "played", "discard") if isinstance(h[key], list) for p in h[key]]
        unknown = sum(h[key] if isinstance(h[key], int) else 0 for key in ("hand", "played", "discard"))
        own = [p for p in STARTING_PLACES if p not in known]
        rng.shuffle(own)
        cards = own[:unknown]
        cards += _take(extra, unknown - len(cards))
        while len(cards) < unknown:  # more cards than the guess accounts for: any starting place
            cards.append(rng.choice(STARTING_PLACES))
        rng.shuffle(cards)
        for key in ("discard", "played", "hand"):
            if isinstance(h[key], int):
                h[key] = sorted(_take(cards, h[key])) if key != "played" else _take(cards, h[key])


def world(knowledge: dict[str, Any], rng: random.Random) -> State:
    """A complete state the seat cannot tell from the real one (a new dict; ``knowledge`` is not changed)."""
    k: dict[str, Any] = json.loads(json.dumps(knowledge))
    del k["seat"]
    k["config"]["seed"] = rng.randrange(2**31)
    hunted = k["players"][1:]
    _hunt_cards(k, rng)
    _survival_cards(k, hunted, rng)
    _place_cards(k, hunted, rng)
    phobia = k["this_turn"]["phobia_shown"]
    if phobia is not None and isinstance(phobia["cards"], int):
        phobia["cards"] = sorted(k["players"][phobia["seat"]]["hand"])[: phobia["cards"]]
    state: State = k  # type: ignore[assignment]  # every masked list is filled above
    return state
