"""The shape of a turn: its agenda of tasks, the windows each phase opens, and the end of the turn.

A task returns False when it replaced itself on the agenda (the driver then does not remove it).
"""

from typing import Final

from service.game.cards import ARTEMIA_SPACES, HUNT_HAND
from service.game.rules.ahead import ahead_question
from service.game.rules.common import CREATURE, draw, move_counter, open_window, player
from service.game.rules.play_cards import card_names, card_options
from service.game.rules.prereveal import prereveal_tasks
from service.game.rules.reckoning import reckon_tasks
from service.game.state import Action, Event, Task, new_this_turn
from service.game.table import Table

TURN: Final[list[Task]] = [
    ["explore"],
    ["hunt"],
    ["prereveal"],
    ["reveal"],
    ["cards", 3],
    ["reckon"],
    ["zero"],
    ["end_cards"],
    ["end_turn"],
]


def choose_side(g: Table, events: list[Event]) -> bool:
    open_window(g, "setup", [CREATURE])
    g.s["agenda"][0] = ["start_turn"]
    return False


def side(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    """The Creature's answer in the setup window: the board side."""
    g.s["side"] = action["side"]
    events.append({"type": "side", "side": action["side"], "visible_to": None})


def pass_window(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    """No (more) cards in this window. In a card window, remember which cards the seat could play: a card played
    later that lets it play another one asks it again (engine ``_offer_responses``)."""
    w = g.s["window"]
    assert w is not None
    if w["kind"] in ("reckoning", "end"):
        w.setdefault("passed", {})[str(seat)] = card_names(g, seat)


def start_turn(g: Table, events: list[Event]) -> bool:
    s = g.s
    s["turn"] += 1
    s["this_turn"] = new_this_turn(s["hunt_card_limit_next"])
    s["hunt_card_limit_next"] = 1
    s["orders"] = [[] for _ in range(g.players)]
    events.append({"type": "turn", "turn": s["turn"], "visible_to": None})
    s["agenda"] = [list(task) for task in TURN]
    return False


def explore(g: Table, events: list[Event]) -> None:
    """The Hunted choose their places; the Creature may play a phase-1 card meanwhile (under strict secrecy the
    window does not wait for it: rules/secrecy.py)."""
    open_window(g, "explore", g.hunted_seats())
    w = g.s["window"]
    assert w is not None
    if card_options(g, CREATURE, 1):
        w["live"][CREATURE] = "may" if g.strict else "wait"


def hunt(g: Table, events: list[Event]) -> None:
    """The Creature hunts; meanwhile each Hunted with a choice at their place may answer its question ahead
    (rules/ahead.py), not waited for."""
    side = g.s["side"]
    assert side is not None
    g.s["this_turn"]["artemia_space"] = g.s["rescue"] in ARTEMIA_SPACES[side]
    open_window(g, "hunt", [CREATURE])
    w = g.s["window"]
    assert w is not None
    for seat in g.hunted_seats():
        if ahead_question(g, seat):
            w["live"][seat] = "may"


def prereveal(g: Table, events: list[Event]) -> bool:
    g.s["agenda"][0:1] = prereveal_tasks(g)
    return False


def reckon(g: Table, events: list[Event]) -> bool:
    g.s["agenda"][0:1] = reckon_tasks(g)
    return False


def cards(g: Table, events: list[Event], phase: int) -> None:
    """A card window: phase 3 (the Reckoning's, which also collects the Reckoning's questions) or 4."""
    live = [seat for seat in range(g.players) if card_options(g, seat, phase)]
    open_window(g, "reckoning" if phase == 3 else "end", live, deferred=phase == 3)


def end_cards(g: Table, events: list[Event]) -> None:
    cards(g, events, 4)


def end_turn(g: Table, events: list[Event]) -> bool:
    s = g.s
    creature = s["players"][CREATURE]
    for seat in g.hunted_seats():
        h = player(g, seat)
        h["discard"] += h["played"]
        h["played"], h["positions"] = [], []
        h["pending"], h["next_turn"] = h["next_turn"], None
    s["hunt_discard"] += creature["played"]
    creature["played"] = []
    s["tokens"] = {"creature": [], "target": [], "artemia": []}
    while len(creature["hand"]) < HUNT_HAND:
        card = draw(g, "hunt")
        if card is None:
            break
        creature["hand"].append(card)
    s["agenda"] = [["start_turn"]]
    if not s["this_turn"]["stasis"]:
        move_counter(g, "rescue", events)
    return False
