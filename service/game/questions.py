"""Who a window waits for, and the deferred questions it puts to each seat: read from a Table, never changed.

A deferred window collects answers for the deferred tasks ahead on the agenda (up to the next reveal or card
window, ``upcoming_tasks``); a seat is asked the first of its questions it has not answered and no order of its
plan answers (``next_question``). ``waiting`` is whom the open window waits for: its live questions, and in a
deferred window the seats it asked that still have a question. The engine (engine.Game) and the views
(observer.py) read them; each is memoised in the table's ``memo`` until the state changes.

Imports the rules' question tables and the answers ahead; never the engine.
"""

from typing import Any, Final

from service.game.answers import DEFERRED_KIND, matches_orders, survival_card
from service.game.rules.common import MEMO_QUESTION
from service.game.rules.dispatch import QUESTIONS, ask_task
from service.game.rules.prereveal import prereveal_tasks
from service.game.rules.reckoning import reckon_tasks
from service.game.rules.secrecy import PUBLIC_QUESTIONS, asks
from service.game.state import Action, Task, Window
from service.game.table import Table

_UNKNOWN: Final[Any] = object()  # not in the memo (None is a value there: no question)


def waiting(t: Table) -> list[int]:
    """The seats the open window waits for: a memoised list itself, for the engine's and the views' reading only
    (``Game.waiting_for`` gives a copy)."""
    w = t.s["window"]
    if w is None:
        return []
    live = w["live"]
    if not w["deferred"]:  # the live answers alone, which change with nearly every answer: not memoised
        return [seat for seat, answer in enumerate(live) if answer == "wait"]
    # The window's live answers change without a reset of the memo: the seats are kept with the answers seen.
    known = t.memo.get("waiting")
    if known is None or known[0] != live:
        known = (list(live), _deferred_waiting(t, w))
        t.memo["waiting"] = known
    seats: list[int] = known[1]
    return seats


def _deferred_waiting(t: Table, w: Window) -> list[int]:
    live, asked = w["live"], w.get("asked")  # (`asked_here`, inlined: this runs for every deferred answer)
    with_tasks = upcoming_tasks(t)
    return [
        seat
        for seat, answer in enumerate(live)
        if answer == "wait"
        or (seat in with_tasks and (asked is None or seat in asked) and next_question(t, seat) is not None)
    ]


def next_question(t: Table, seat: int) -> tuple[str, list[Action]] | None:
    """The first question this seat must still answer in the open deferred window, as (key, options)."""
    key = MEMO_QUESTION + seat
    found: Any = t.memo.get(key, _UNKNOWN)
    if found is _UNKNOWN:
        found = t.memo[key] = _next_question(t, seat)
    question: tuple[str, list[Action]] | None = found
    return question


def _next_question(t: Table, seat: int) -> tuple[str, list[Action]] | None:
    answered = t.s["this_turn"]["answered"]
    mine = f"{seat}:"
    for task in upcoming_tasks(t).get(seat, ()):
        key = task[0] if len(task) == 2 else f"{task[0]}:{task[2]}"
        if answered and mine + key in answered:
            continue
        options = ask_task(QUESTIONS[task[0]], t, task)
        if not asks(t, task[0], seat, options) or matches_orders(t, seat, key, options):
            continue
        return key, options
    return None


def has_public_question(t: Table, seat: int) -> bool:
    """Whether the open deferred window puts a question of ``secrecy.PUBLIC_QUESTIONS`` to the seat (a place
    question counts with two ways without a Survival card): what the table may be told it waits for."""
    answered = t.s["this_turn"]["answered"]
    for task in upcoming_tasks(t).get(seat, ()):
        kind = task[0]
        if kind not in PUBLIC_QUESTIONS:
            continue
        key = kind if len(task) == 2 else f"{kind}:{task[2]}"
        options = ask_task(QUESTIONS[kind], t, task)
        if kind == "resolve":
            options = [o for o in options if survival_card(o) is None and o["type"] != "pass"]
        if f"{seat}:{key}" in answered or matches_orders(t, seat, key, options):
            continue
        if asks(t, kind, seat, options):
            return True
    return False


def upcoming_tasks(t: Table) -> dict[int, list[Task]]:
    """The deferred tasks the open window collects answers for, by seat: up to the next reveal or card
    window."""
    if "upcoming" not in t.memo:
        by_seat: dict[int, list[Task]] = {}
        for task in _upcoming_tasks(t):
            if task[0] in DEFERRED_KIND:
                by_seat.setdefault(task[1], []).append(task)
        t.memo["upcoming"] = by_seat
    upcoming: dict[int, list[Task]] = t.memo["upcoming"]
    return upcoming


def _upcoming_tasks(t: Table) -> list[Task]:
    tasks: list[Task] = []
    for task in t.s["agenda"]:
        if task[0] in ("reveal", "end_cards"):
            break
        if task[0] == "prereveal":
            tasks.extend(prereveal_tasks(t))
        elif task[0] == "reckon":
            tasks.extend(reckon_tasks(t))
        else:
            tasks.append(task)
    return tasks
