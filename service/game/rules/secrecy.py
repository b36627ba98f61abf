"""The table setting ``secrecy``: whether who a window waits for may depend on the cards a seat holds.

Under ``fast`` a seat is waited for only when it has something to decide: the Creature in the exploration only
while it holds a phase-1 Hunt card, a Hunted before the reveal only while they hold the Vortex, and so on. That
is quick, but "we are waiting for H1" then tells everybody that H1 holds a card.

Under ``strict`` whether a window opens, whom it waits for and which questions are put depend on public
information only: the number of cards a seat holds, whether it may still play one this turn. A seat that may
hold a card of the moment is asked even when it holds none; its only answer is then ``pass`` (no card), and a
plan sent ahead ("no cards this turn", a planned card) answers without a wait, revealing nothing.
"""

from typing import TYPE_CHECKING, Final

from service.game.rules.common import CREATURE, can_survive, player
from service.game.state import Action

if TYPE_CHECKING:
    from service.game.engine import Game

SETTINGS: Final = ("strict", "fast")
DEFAULT: Final = "strict"  # waits per turn, measured in bench/bench_engine.py: docs/BENCHMARKS.md
PASS: Final[Action] = {"type": "pass"}


def is_strict(g: "Game") -> bool:
    return g.strict


def may_play_card(g: "Game", seat: int) -> bool:
    """Whether, as far as anyone else can tell, the seat may play a card now: the Creature holds a Hunt card
    and has not reached this turn's limit; a Hunted holds a Survival card and has not played one this turn."""
    holder = g.s["players"][seat]  # asked for every seat several times a window: read directly
    if seat == CREATURE:
        t = g.s["this_turn"]
        return bool(holder["hand"]) and not t["sacrifice"] and len(t["hunt_cards"]) < t["hunt_card_limit"]
    return bool(holder["survival"]) and can_survive(g, seat)


def hides_holding(g: "Game", seat: int) -> bool:
    """Whether, under strict secrecy, the seat is asked even when it holds no card for the moment."""
    return is_strict(g) and may_play_card(g, seat)


# The deferred questions whose number of options depends on a Survival card the seat may hold (the Vortex; the
# Drone and the Gate offer other places' powers; Toxin chooses among them): under strict secrecy, whether
# they are put follows the public test beside each.
_HOLDING_QUESTIONS: Final = {
    "vortex": hides_holding,
    "resolve": hides_holding,
    "toxin": lambda g, seat: is_strict(g) and len(player(g, seat)["survival"]) >= 2,
}


def asks(g: "Game", kind: str, seat: int, options: list[Action]) -> bool:
    """Whether a deferred question (``kind``: its task's name) is put to the seat: when it has a choice, and
    under strict secrecy also when a choice could come from a card the seat may hold."""
    if len(options) >= 2:
        return True
    hidden = _HOLDING_QUESTIONS.get(kind)
    return bool(options) and hidden is not None and hidden(g, seat)
