"""The Hunt cards' rules (the Creature's cards): parameters and effects. Listed in service/game/registry.py.

    <card>_options(g, seat) -> the parameter dicts the card may be played with now
    <card>(g, seat, action, events)  its effect, after the card was played (``play_cards.do_hunt_card``)

Many Hunt cards change a later step of the turn rather than doing something when played (Clone, Mirage,
Persecution, Fierceness...): the rules of that step ask ``common.has(g, card)``; the card table names the step.
"""

from typing import Final

from service.game.cards import ADJACENT, ADJACENT_PAIRS, PLACE_NUMBERS
from service.game.rules.common import player
from service.game.state import Action, Event, Params
from service.game.table import Table

PLAIN: Final[list[Params]] = [{}]


def no_parameters(g: Table, seat: int) -> list[Params]:
    return PLAIN


def no_effect(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    """The card changes a later step of the turn (the rules there ask whether it was played)."""


# ---------------------------------------------------------------------------------------------- parameters
def any_hunted(g: Table, seat: int) -> list[Params]:
    return [{"seat": h} for h in g.hunted_seats()]


def hunted_with_three_cards(g: Table, seat: int) -> list[Params]:
    return [{"seat": h} for h in g.hunted_seats() if len(player(g, h)["hand"]) >= 3]


def target_pair(g: Table, seat: int) -> list[Params]:
    """Two adjacent places for the Target token, or nothing more when it is already placed."""
    return PLAIN if g.s["tokens"]["target"] else adjacent_pair(g, seat)


def adjacent_pair(g: Table, seat: int) -> list[Params]:
    return [{"places": list(pair)} for pair in ADJACENT_PAIRS]


def target_place(g: Table, seat: int) -> list[Params]:
    """A place for the Target token, or nothing more when it is already placed."""
    return PLAIN if g.s["tokens"]["target"] else any_place(g, seat)


def any_place(g: Table, seat: int) -> list[Params]:
    return [{"place": p} for p in PLACE_NUMBERS]


def detour_options(g: Table, seat: int) -> list[Params]:
    return [
        {"seat": h, "from": p, "to": q}
        for h in g.hunted_seats()
        for p in player(g, h)["positions"]
        for q in sorted(ADJACENT[p])
    ]


# ---------------------------------------------------------------------------------------------- effects
def place_target_pair(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    if "places" in action:
        g.s["tokens"]["target"] = list(action["places"])


def place_artemia_pair(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    if "places" in action:
        g.s["tokens"]["artemia"] = list(action["places"])


def place_target(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    if "place" in action:
        g.s["tokens"]["target"] = [action["place"]]


def force_field(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    """The Target token on two places nobody may play this turn; a Hunted who chose one of them chooses again."""
    place_target_pair(g, seat, action, events)
    g.s["this_turn"]["force_field"] = list(action["places"])
    w = g.s["window"]
    assert w is not None
    for other in g.hunted_seats():
        h = player(g, other)
        if set(h["played"]) & set(g.s["this_turn"]["force_field"]):
            h["hand"] += h["played"]
            h["played"] = []
            w["live"][other] = "wait"
            events.append({"type": "choose_again", "seat": other, "visible_to": None})


def despair(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    g.s["this_turn"]["despair"] = True


def tracking(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    g.s["hunt_card_limit_next"] = 2


def stasis(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    g.s["this_turn"]["stasis"] = True


def detour(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    positions = player(g, action["seat"])["positions"]
    positions[positions.index(action["from"])] = action["to"]
