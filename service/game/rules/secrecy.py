"""The table setting ``secrecy``: whether whom a window waits for may tell the table who holds a card.

Under ``fast`` a seat is asked whenever it holds a card it may play now, and the table sees whom it waits for:
"we are waiting for H1" in the Reckoning tells everybody that H1 holds a card.

Under ``strict`` what the table sees never depends on hidden cards, and nobody is asked a question whose only
answer is to pass:

* after its first question of a turn, a seat is asked about its cards only if it said so in that question
  (``call``: "ask me when I can play a card this turn", offered to a Hunted in the exploration and to the Creature
  in the hunt while it holds a card for later) — and then only when it holds one it may play at that moment;
* those card questions are not named: the table sees that a card may still be played, never by whom
  (``observer.shown_waiting``); a window's closing time may show that *some* seat had a card to decide on;
* the Creature may play its phase-1 card while the Hunted choose their places, but the exploration does not wait
  for it (its place in that window is ``may``: asked, not waited for).

A Hunted who draws a Survival card in the Reckoning (the Source; the draw is public) is put on call.
"""

from typing import Final

from service.game.cards import CARDS
from service.game.rules.common import CREATURE, can_survive, player
from service.game.state import Action, Event
from service.game.table import Table

SETTINGS: Final = ("strict", "fast")
DEFAULT: Final = "strict"  # waits per turn, measured in bench/pace.py: docs/BENCHMARKS.md
CALL: Final[Action] = {"type": "call"}
PASS: Final[Action] = {"type": "pass"}
# The cards a seat may play after its first question of a turn: Hunt cards of phases 3 and 4 and Flashback
# (it copies the last one played: no phase of its own); the Vortex and Survival cards of phases 3 and 4.
_LATER_HUNT: Final = frozenset(
    c for c, card in CARDS.items() if card["kind"] == "hunt" and card["phase"] in (3, 4, None)
)
_LATER_SURVIVAL: Final = frozenset(
    c for c, card in CARDS.items() if card["kind"] == "survival" and card["phase"] in (2, 3, 4)
)
# The questions whose being put depends only on what the table knows (the Creature's cards played, a River
# pending, the tokens, hand sizes): their seats are named under strict secrecy. A place question (``resolve``)
# is named when it has two ways without a Survival card.
PUBLIC_QUESTIONS: Final = {"fz", "ascendancy", "phobia", "river", "scream", "toxin", "artemia", "resolve"}


def is_strict(g: Table) -> bool:
    return g.strict


def on_call(g: Table, seat: int) -> bool:
    """Whether the seat is asked about the cards it may play later this turn: always under fast secrecy; under
    strict only once it asked for it (``call``)."""
    return not g.strict or seat in g.s["this_turn"]["on_call"]


def may_call(g: Table, seat: int) -> bool:
    """Whether ``call`` is offered to the seat now: strict secrecy, not on call yet, and it holds a card it could
    play later this turn (the Creature: a phase-3 or phase-4 Hunt card or one that copies, under this turn's
    limit; a Hunted: the Vortex or a phase-3 or phase-4 Survival card, none played this turn)."""
    if not g.strict or seat in g.s["this_turn"]["on_call"]:
        return False
    if seat == CREATURE:
        t = g.s["this_turn"]
        if t["sacrifice"] or len(t["hunt_cards"]) >= t["hunt_card_limit"]:
            return False
        return any(c in _LATER_HUNT for c in player(g, CREATURE)["hand"])
    return can_survive(g, seat) and any(c in _LATER_SURVIVAL for c in player(g, seat)["survival"])


def call(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    """The live answer ``call``: the seat is asked about its cards later this turn (only it is told)."""
    g.s["this_turn"]["on_call"].append(seat)
    events.append({"type": "call", "seat": seat, "visible_to": [seat]})


def asks(g: Table, kind: str, seat: int, options: list[Action]) -> bool:
    """Whether a deferred question (``kind``: its task's name) is put to the seat: when it has a choice; under
    strict secrecy Toxin also asks whoever holds two or more Survival cards (the number is public, whether they
    differ is not)."""
    if len(options) >= 2:
        return True
    return kind == "toxin" and bool(options) and g.strict and len(player(g, seat)["survival"]) >= 2
