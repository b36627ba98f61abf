"""The Survival cards' rules (the Hunted's cards): when each may be played, with which parameters, and its effect.

Each card has two plain functions, listed in the card table (service/game/registry.py):

    <card>_options(g, seat) -> the parameter dicts the card may be played with now ([] = not playable now)
    <card>(g, seat, action, events)  its effect, after the card was spent (``common.spend_survival``)

Vortex, Drone and Gate are offered where they are used (the Vortex question before the reveal, the place
questions of the Reckoning), so their ``options`` offer nothing in the card windows.
"""

from typing import Final

from service.game.cards import WILL_MAX
from service.game.rules.common import (
    CREATURE,
    can_survive,
    combos,
    creature_places,
    discard_place,
    move_counter,
    move_token,
    player,
    rng,
    take_back,
    token_moves,
)
from service.game.rules.secrecy import on_call
from service.game.state import Action, Event, Params
from service.game.table import Table

ALWAYS: Final[list[Params]] = [{}]
NEVER: Final[list[Params]] = []


def offered_elsewhere(g: Table, seat: int) -> list[Params]:
    return []


def no_effect(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    """Cards whose effect is the way they are used (Drone, Gate: a place's power)."""


# ---------------------------------------------------------------------------------------------- phase 1
def adrenaline_options(g: Table, seat: int) -> list[Params]:
    return ALWAYS if player(g, seat)["will"] < WILL_MAX else NEVER


def adrenaline(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    player(g, seat)["will"] += 1


def ingenuity_options(g: Table, seat: int) -> list[Params]:
    return ALWAYS if not g.s["marker_on_beach"] else NEVER


def ingenuity(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    g.s["marker_on_beach"] = True


def sacrifice_options(g: Table, seat: int) -> list[Params]:
    if g.s["this_turn"]["hunt_cards"]:
        return NEVER
    return [{"discard": c} for c in sorted(player(g, seat)["hand"])]


def sacrifice(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    discard_place(g, seat, action["discard"])
    g.s["this_turn"]["sacrifice"] = True


def sixth_sense_options(g: Table, seat: int) -> list[Params]:
    discard = player(g, seat)["discard"]
    return [{"cards": c} for c in combos(discard, 2)] if discard else NEVER


def sixth_sense(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    take_back(player(g, seat), action["cards"])


def smokescreen_options(g: Table, seat: int) -> list[Params]:
    return ALWAYS if not g.s["this_turn"]["smokescreen"] else NEVER


def smokescreen(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    g.s["this_turn"]["smokescreen"] = True


def strike_back_options(g: Table, seat: int) -> list[Params]:
    return ALWAYS if g.s["players"][CREATURE]["hand"] else NEVER


def strike_back(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    hand = g.s["players"][CREATURE]["hand"]
    taken = rng(g).sample(sorted(hand), min(2, len(hand)))
    for c in taken:
        hand.remove(c)
        g.s["hunt_deck"].insert(0, c)
    events.append({"type": "strike_back", "count": len(taken), "visible_to": None})


# ---------------------------------------------------------------------------------------------- phase 2
def vortex(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    """Swap the place card played for one from the discard pile (offered before the reveal)."""
    h = player(g, seat)
    h["played"][h["played"].index(action["give"])] = action["take"]
    h["discard"].remove(action["take"])
    h["discard"].append(action["give"])


def vortex_question(g: Table, seat: int) -> list[Action]:
    """The Vortex question before the reveal, to a holder on call: pass, or which played card to swap for which
    discarded one."""
    h = player(g, seat)
    if "vortex" not in h["survival"] or not can_survive(g, seat) or not on_call(g, seat):
        return []
    return [{"type": "pass"}] + [
        {"type": "survival", "card": "vortex", "give": give, "take": d}
        for give in h["played"]
        for d in sorted(h["discard"])
        if d not in g.s["this_turn"]["force_field"]
    ]


def vortex_asks(g: Table, seat: int) -> bool:
    """Whether the Vortex question is put to this seat before the reveal: it holds the Vortex, may play it and
    is on call (`secrecy.on_call`)."""
    h = g.s["players"][seat]
    return "vortex" in h["survival"] and can_survive(g, seat) and on_call(g, seat) and bool(h["discard"])


# ---------------------------------------------------------------------------------------------- phase 3
def detector_options(g: Table, seat: int) -> list[Params]:
    h = player(g, seat)
    on_artemia = set(h["positions"]) & set(g.s["tokens"]["artemia"])
    return ALWAYS if on_artemia and seat not in g.s["this_turn"]["detected"] else NEVER


def detector(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    g.s["this_turn"]["detected"].append(seat)


def dodge_options(g: Table, seat: int) -> list[Params]:
    h = player(g, seat)
    caught = set(h["positions"]) & set(creature_places(g))
    return ALWAYS if caught and seat not in g.s["this_turn"]["dodged"] else NEVER


def dodge(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    g.s["this_turn"]["dodged"].append(seat)


def hologram_options(g: Table, seat: int) -> list[Params]:
    return token_moves(g.s["tokens"]["artemia"])


def hologram(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    move_token(g, "artemia", action)


def wrong_track_options(g: Table, seat: int) -> list[Params]:
    # the Creature token and a Clone's Target may share a place: that place is offered once
    return token_moves(sorted(set(creature_places(g))))


def wrong_track(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    move_token(g, "creature" if action["from"] in g.s["tokens"]["creature"] else "target", action)


# ---------------------------------------------------------------------------------------------- phase 4
def amplifier_options(g: Table, seat: int) -> list[Params]:
    return ALWAYS if g.s["marker_on_beach"] else NEVER


def amplifier(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    g.s["marker_on_beach"] = False
    move_counter(g, "rescue", events)


def double_back_options(g: Table, seat: int) -> list[Params]:
    return [{"place": p} for p in sorted(player(g, seat)["played"])]


def double_back(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    h = player(g, seat)
    h["played"].remove(action["place"])
    h["hand"].append(action["place"])
