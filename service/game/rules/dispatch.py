"""The dispatch tables that connect the rules to the driver (service/game/engine.py) and to the deferred questions
(service/game/questions.py): task name -> function, live action -> function, and the action types.

A *task* is an agenda entry ``[name, *args]``; TASKS runs it. A *deferred* task asks its seat a question
(QUESTIONS gives the options) whose answer may be recorded before the task runs. A *live* action is a window's
own question, applied at once (LIVE_ACTIONS).
"""

from collections.abc import Callable
from typing import Any, Final

from service.game.rules import ahead, explore, play_cards, prereveal, reckoning, secrecy, turn
from service.game.rules.survival import vortex_question
from service.game.state import Action, Event, Task
from service.game.table import Table

TaskFn = Callable[..., Any]  # (g, events, *task arguments) -> False when it replaced itself on the agenda
LiveFn = Callable[[Table, int, Action, list[Event]], None]

TASKS: Final[dict[str, TaskFn]] = {
    "choose_side": turn.choose_side,
    "start_turn": turn.start_turn,
    "explore": turn.explore,
    "hunt": turn.hunt,
    "prereveal": turn.prereveal,
    "fz": prereveal.forbidden_zone,
    "ascendancy": prereveal.ascendancy,
    "phobia": prereveal.phobia,
    "river": prereveal.river,
    "vortex": prereveal.vortex,
    "reveal": prereveal.reveal,
    "cards": turn.cards,
    "reckon": turn.reckon,
    "resolve": reckoning.resolve,
    "scream": reckoning.scream,
    "toxin": reckoning.toxin,
    "artemia": reckoning.artemia,
    "catch": reckoning.catch,
    "zero": reckoning.zero,
    "end_cards": turn.end_cards,
    "end_turn": turn.end_turn,
}

# The tasks that change nothing but open a window: what the engine worked out from the state while they ran (each
# seat's card options) stays true after them.
OPENS_WINDOW_ONLY: Final = {"explore", "cards", "end_cards"}

# The deferred tasks: the question each asks its seat (the options; fewer than two = nothing to ask).
QUESTIONS: Final[dict[str, Callable[..., list[Action]]]] = {
    "fz": prereveal.forbidden_zone_question,
    "ascendancy": prereveal.ascendancy_question,
    "phobia": prereveal.phobia_question,
    "river": prereveal.river_question,
    "vortex": vortex_question,
    "resolve": reckoning.resolve_question,
    "scream": reckoning.scream_question,
    "toxin": reckoning.toxin_question,
    "artemia": reckoning.artemia_question,
}

# Live actions: a window's own questions, applied at once.
LIVE_ACTIONS: Final[dict[str, LiveFn]] = {
    "side": turn.side,
    "play": explore.play,
    "tokens": play_cards.place_tokens,
    "pass": turn.pass_window,
    "keep_survival": explore.keep_survival,
    "resist": explore.resist,
    "giveup": explore.giveup,
    "survival": play_cards.do_survival,
    "hunt_card": play_cards.do_hunt_card,
    "call": secrecy.call,
    "ahead": ahead.answer_ahead,
}
# The live actions after which the seat has answered the window (the others may be followed by more).
ANSWERS_THAT_CLOSE: Final = {"side", "play", "tokens", "pass"}
# Every action type, and what a plan may hold: the answers to questions (not a plan, nor a live answer of the window
# it is sent in).
ACTION_TYPES: Final = {
    "side",
    "play",
    "resist",
    "giveup",
    "keep_survival",
    "survival",
    "hunt_card",
    "tokens",
    "pass",
    "keep",
    "discard",
    "show",
    "lose_will",
    "discard_survival",
    "power",
    "takeback",
    "plan",
    "call",
    "ahead",
}
# What a plan may hold: the answers to questions (not a plan, nor a live answer of the window it is sent in).
PLAN_ORDERS: Final = ACTION_TYPES - {"plan", "call", "ahead"}


# A task's arguments passed one by one, not as ``*task[1:]``: that builds a list and a tuple on every call
# (measured: ~1 % of a game's instructions, compiled). Tasks take up to two arguments.
def run_task(fn: Callable[..., Any], g: Table, events: list[Event], task: Task) -> Any:
    n = len(task)
    if n == 1:
        return fn(g, events)
    if n == 2:
        return fn(g, events, task[1])
    return fn(g, events, task[1], task[2]) if n == 3 else fn(g, events, *task[1:])


def ask_task(fn: Callable[..., list[Action]], g: Table, task: Task) -> list[Action]:
    n = len(task)
    if n == 2:
        return fn(g, task[1])
    return fn(g, task[1], task[2]) if n == 3 else fn(g, *task[1:])
