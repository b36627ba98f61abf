"""Phase 2's reactions before the reveal, then the reveal.

Questions asked before the reveal, in this order: the Hunt cards' (card table ``before_reveal``: Forbidden Zone,
Ascendancy, Phobia), then for each Hunted in seat order the River (which card stays in play) and the Survival
cards that ask there (``asks_before_reveal``: Vortex).
"""

from service.game.answers import decide
from service.game.registry import ASKS_BEFORE_REVEAL, BEFORE_REVEAL
from service.game.rules.common import CREATURE, combos, discard_from_hand, has, player
from service.game.rules.play_cards import do_survival
from service.game.rules.survival import vortex_question
from service.game.state import Action, Event, Task
from service.game.table import Table


def prereveal_tasks(g: Table) -> list[Task]:
    tasks: list[Task] = []
    for card in BEFORE_REVEAL:
        if has(g, card.id):
            assert card.before_reveal is not None
            tasks += card.before_reveal(g)
    for seat in g.hunted_seats():
        h = g.s["players"][seat]
        if h["pending"] == "river" and len(h["played"]) == 2:
            tasks.append(["river", seat])
        for survival in ASKS_BEFORE_REVEAL:
            assert survival.asks_before_reveal is not None
            if survival.asks_before_reveal(g, seat):
                tasks.append([survival.id, seat])
    return tasks


# ---------------------------------------------------------------------------------------------- the questions
def forbidden_zone_question(g: Table, seat: int) -> list[Action]:
    return [{"type": "discard", "cards": [c]} for c in sorted(player(g, seat)["hand"])]


def ascendancy_question(g: Table, seat: int) -> list[Action]:
    hand = player(g, seat)["hand"]
    if len(hand) <= 2:
        return []
    return [{"type": "discard", "cards": sorted(set(hand) - set(keep))} for keep in combos(hand, 2)]


def phobia_question(g: Table, seat: int) -> list[Action]:
    return [{"type": "show", "cards": d["cards"]} for d in ascendancy_question(g, seat)]


def river_question(g: Table, seat: int) -> list[Action]:
    return [{"type": "keep", "card": c} for c in player(g, seat)["played"]]


# ---------------------------------------------------------------------------------------------- the tasks
def forbidden_zone(g: Table, events: list[Event], seat: int) -> None:
    action = decide(g, seat, "fz", forbidden_zone_question(g, seat), events)
    discard_from_hand(g, seat, action["cards"], events)


def ascendancy(g: Table, events: list[Event], seat: int) -> None:
    options = ascendancy_question(g, seat)
    if options:
        discard_from_hand(g, seat, decide(g, seat, "ascendancy", options, events)["cards"], events)


def phobia(g: Table, events: list[Event], seat: int) -> None:
    options = phobia_question(g, seat)
    if options:
        action = decide(g, seat, "phobia", options, events)
        g.s["this_turn"]["phobia_shown"] = {"seat": seat, "cards": action["cards"]}
        events.append({"type": "shown", "seat": seat, "cards": action["cards"], "visible_to": [CREATURE, seat]})


def river(g: Table, events: list[Event], seat: int) -> None:
    action = decide(g, seat, "river", river_question(g, seat), events)
    h = player(g, seat)
    h["hand"] += [c for c in h["played"] if c != action["card"]]
    h["played"] = [action["card"]]


def vortex(g: Table, events: list[Event], seat: int) -> None:
    options = vortex_question(g, seat)
    if options:
        action = decide(g, seat, "vortex", options, events)
        if action["type"] == "survival":
            do_survival(g, seat, action, events)


def reveal(g: Table, events: list[Event]) -> None:
    for seat in g.hunted_seats():
        h = player(g, seat)
        h["positions"] = list(h["played"])
    g.s["this_turn"]["revealed"] = True
    events.append(
        {
            "type": "reveal",
            "visible_to": None,
            "turn": g.turn,
            "played": {str(seat): list(player(g, seat)["played"]) for seat in g.hunted_seats()},
        }
    )
