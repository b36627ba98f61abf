"""The one door every channel uses to a running game: read it, answer its open window, hand a seat to a bot
and back. No channel reads or writes a game through the store itself: it asks here, and keeps only its own
records (the SMS directory, Telegram's tables) in keys of its own (tests/test_architecture.py checks it).

Reads (each a `View` or plain data, never words):

    read(ctx, game_id, with_meta=True) -> View      the game's snapshot (None: no such game) and its meta
    reads_along(ctx, game_id, connection)           the same reads queued on a channel's own pipeline, when the
      / read_from(game_id, replies) -> View         game's keys are on that connection (one round trip for both)
    table(ctx, game_id) -> Table | None             a running game as a channel shows it
    state(ctx, game_id) -> TableState | None        the game, its open window's answers, asked seats and streaks
    games_of_user(ctx, user) -> [(game, seat)]      a player's games (meta's "user": a Telegram user's id)
    asked(ctx, user) -> [(game, seat)]              those of them whose seat is asked now
    seat_asked(ctx, game_id, seat) -> View | None   the game, when the seat is asked and has not answered yet
    is_over(ctx, game_id), meta(ctx, game_id), paused_until(ctx, game_id)

An answer — a button pressed, an answer typed, an SMS — goes through `answer`, which returns one `Outcome` that
each channel words in its player's language. A press of a window no longer open asks `press_closed` first (a
press Telegram delivers again after the window closed counted already: that is the recorded-retry path).

A seat handed to the bot uses the pipeline's own rule: a seat whose auto-play streak has reached
``autoplay_bot_after`` is bot-played until its player answers again — so STOP (SMS), a blocked bot (Telegram) or
leaving loses nothing, and START or any answer takes the seat back. A question the seat is being asked right now
is answered by the bot at once rather than at its deadline.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from service.game import Game
from service.pipeline import ingest, scheduling
from service.pipeline.botplay import vanished_answer
from service.pipeline.context import Context
from service.store.games import Snapshot, read_with_meta, with_meta


@dataclass(frozen=True)
class Table:
    """A running game as a channel sees it."""

    game_id: str
    game: Game
    window: int | None
    deadline: float
    over: bool


@dataclass(frozen=True)
class View:
    """A game as a channel read it to answer or to show it: its snapshot as stored (None: there is no such game)
    and its meta (None: not read; `ingest.submit` reads it when it needs it)."""

    game_id: str
    snap: Snapshot | None
    meta: dict | None = None

    @cached_property
    def game(self) -> Game:
        """The engine's game, as stored (only for a view of a game that exists)."""
        assert self.snap is not None
        return Game.from_json(self.snap.json)

    def open_for(self, window: int) -> bool:
        """Whether ``window`` is the open window, still collecting answers."""
        return self.snap is not None and self.snap.window == window and self.snap.status == "collecting"


@dataclass(frozen=True)
class Outcome:
    """What became of an answer (`answer`, `press_closed`): data, never words — each channel words it.

    ``result`` is the ingest's (`ingest.SubmitResult`: ACCEPTED — stored, the window waits for others;
    RESOLVE — stored, the last answer; DUP — already recorded; STALE — not the open window; CLOSED — resolving or
    over; INVALID — no game, not legal, incomplete: its reason and parameters say which). ``view``: the game as
    the answer was checked against (None when `ingest.submit` read it itself). ``retried``: a press delivered
    again after its window closed, which counted (its first delivery stored it)."""

    result: ingest.SubmitResult
    view: View | None = None
    retried: bool = False

    @property
    def status(self) -> ingest.Status:
        return self.result.status

    @property
    def stored(self) -> bool:
        return self.result.stored

    @property
    def reason(self) -> ingest.Reason | None:
        return self.result.reason

    @property
    def params(self) -> dict[str, Any]:
        return self.result.params

    @property
    def actions(self) -> tuple[dict, ...]:
        return self.result.actions


@dataclass(frozen=True)
class TableState:
    """A game and its open window, as a status shows them."""

    view: View
    answered: set[int]  # the seats that answered the open window
    expected: set[int]  # the seats it asked
    streaks: dict[int, int] = field(default_factory=dict)  # each seat's auto-play streak


# ---------------------------------------------------------------------------------------------- reads


def read(ctx: Context, game_id: str, with_meta: bool = True) -> View:
    """The game's snapshot, and its meta (``with_meta``: in the same round trip)."""
    if with_meta:
        return View(game_id, *ctx.store.load_with_meta(game_id))
    return View(game_id, ctx.store.load(game_id))


def reads_along(ctx: Context, game_id: str, connection: Any) -> Callable[[Any], None] | None:
    """`read`'s reads, to queue on a pipeline of ``connection`` (a channel's own round trip: Telegram's admission
    of a press), when the game's keys are on it; None when they are not (then `read` it)."""
    if ctx.store.at(game_id) is not connection:
        return None
    return lambda pipe: read_with_meta(pipe, game_id)


def read_from(game_id: str, replies: Sequence[Any]) -> View:
    """The `View` that `reads_along`'s replies give."""
    return View(game_id, *with_meta(game_id, list(replies)))


def table(ctx: Context, game_id: str) -> Table | None:
    snap = ctx.store.load(game_id)
    if snap is None:
        return None
    return Table(game_id, Game.from_json(snap.json), snap.window, snap.deadline, snap.status == "over")


def state(ctx: Context, game_id: str, view: View | None = None, streaks: bool = True) -> TableState | None:
    """The game and its open window (None: there is no such game). ``view``: the game as just read (`read`);
    ``streaks``: read the seats' auto-play streaks too."""
    view = view or View(game_id, ctx.store.load(game_id), ctx.store.meta(game_id))
    if view.snap is None:
        return None
    answered = set(ctx.store.answers(game_id))
    expected = ctx.store.expected(game_id) if view.snap.status == "collecting" else set()
    return TableState(view, answered, expected, ctx.store.streaks(game_id) if streaks else {})


def meta(ctx: Context, game_id: str) -> dict:
    """The game's meta: its players, its table ({} for no such game)."""
    return ctx.store.meta(game_id)


def paused_until(ctx: Context, game_id: str) -> float | None:
    return ctx.store.paused_until(game_id)


def is_over(ctx: Context, game_id: str) -> bool:
    """Whether the game is over (or gone)."""
    snap = ctx.store.load(game_id)
    return snap is None or snap.status == "over"


def games_of_user(ctx: Context, user: str) -> list[tuple[str, int]]:
    """(game, seat) of every game the player ``user`` (meta's "user") plays, the most recently begun first."""
    return ctx.store.games_of_user(user)


def seat_of_user(meta: dict, user: str) -> int | None:
    """The seat of the player ``user`` (meta's "user") in a game of that meta."""
    return next((int(s) for s, p in meta.get("players", {}).items() if p.get("user") == user), None)


def asked(ctx: Context, user: str) -> list[tuple[str, int]]:
    """(game, seat) of every game where the player ``user``'s seat is asked now, by game id."""
    out = []
    for game_id in sorted(game_id for game_id, _ in games_of_user(ctx, user)):
        snap = ctx.store.load(game_id)
        seat = seat_of_user(ctx.store.meta(game_id), user)
        if snap and snap.status == "collecting" and seat in ctx.store.expected(game_id):
            out.append((game_id, seat))
    return out


def seat_asked(ctx: Context, game_id: str, seat: int) -> View | None:
    """The game (with its meta) when ``seat`` is asked in its open window and has not answered it yet, else None."""
    view = read(ctx, game_id)
    snap = view.snap
    if (
        snap is not None
        and snap.status == "collecting"
        and seat in ctx.store.expected(game_id)
        and seat not in ctx.store.answers(game_id)
    ):
        return view
    return None


# ---------------------------------------------------------------------------------------------- answers


def answer(
    ctx: Context,
    game_id: str,
    seat: int,
    actions: list[dict],
    window: int,
    dedup_id: str | None = None,
    view: View | None = None,
    typed: bool = False,
) -> Outcome:
    """The seat's answer to ``window``, stored at once (`ingest.submit`: checked on a copy of the game, recorded
    with the atomic submit script, its resolution or status refresh scheduled), or refused. ``view``: the game as
    the channel has just read it (`read`; None: read here, with the dedup id — a repeated delivery is recognised
    before anything is checked); ``typed``: typed in a chat of living messages (Telegram), so the next question
    comes below the reply."""
    snap = view.snap if view is not None else None
    meta = view.meta if view is not None else None
    result = ingest.submit(ctx, game_id, seat, actions, window, dedup_id, snap, meta=meta, typed=typed)
    return Outcome(result, view)


def press_closed(ctx: Context, view: View, window: int, dedup_id: str | None) -> Outcome | None:
    """A press of a button of ``window`` when that window is no longer open (None: it is): retried — a press
    delivered again whose answer was stored (our reply was lost, say a 5xx in a failover; a window still resolving
    gets its resolution queued again) — or STALE (``reason`` EXPIRED)."""
    if view.open_for(window):
        return None
    if dedup_id and view.snap is not None and ctx.store.recorded(view.game_id, dedup_id):
        ingest.requeue_if_resolving(ctx, view.game_id, window, view.snap)
        return Outcome(ingest.SubmitResult(ingest.Status.DUP, reason=ingest.Reason.DUP), view, retried=True)
    now = view.snap.window if view.snap is not None else None
    expired = ingest.SubmitResult(
        ingest.Status.STALE, reason=ingest.Reason.EXPIRED, params={"window": window, "now": now}
    )
    return Outcome(expired, view)


def answer_now(ctx: Context, game_id: str, seat: int) -> None:
    """The bot answers the question the seat is asked right now, if it has not answered it yet."""
    store = ctx.store
    snap = store.load(game_id)
    if snap and snap.status == "collecting" and seat in store.expected(game_id) and seat not in store.answers(game_id):
        actions = vanished_answer(ctx, Game.from_json(snap.json), seat)
        ingest.submit(ctx, game_id, seat, actions, snap.current_window, snap=snap, by_bot=True)


def bot_takes(ctx: Context, game_id: str, seat: int, dedup_id: str) -> None:
    """A bot plays ``seat`` from now on, the question already open included, answered as its player's own answer
    (``dedup_id``: once): a player who cannot be asked yet (a Telegram chat not begun)."""
    snap = ctx.store.load(game_id)
    if snap is not None and snap.status == "collecting" and seat in ctx.store.expected(game_id):
        actions = vanished_answer(ctx, Game.from_json(snap.json), seat)
        ingest.submit(ctx, game_id, seat, actions, snap.current_window, dedup_id, snap)
    ctx.store.set_streak(game_id, seat, ctx.settings.autoplay_bot_after)  # after the answer: an answer ends a streak


def hand_to_bot(ctx: Context, game_id: str, seat: int, bot: bool) -> None:
    """Bot-play the seat from now on (its open question answered at once), or give it back."""
    if bot:
        answer_now(ctx, game_id, seat)
    ctx.store.set_streak(game_id, seat, ctx.settings.autoplay_bot_after if bot else 0)


def take_back(ctx: Context, game_id: str, seat: int) -> None:
    """The seat a bot plays is its player's again, and the player is no longer away: the next question asks them."""
    ctx.store.set_streak(game_id, seat, 0)
    ctx.store.end_away(game_id, seat)


def confirm_later(ctx: Context, game_id: str, batch: str, message: dict) -> None:
    """A channel's message about an answer (an SMS "OK: play 3.") written to the game's outbox as batch ``batch``
    (once: a batch is written once) and delivered (held on its lane as the message says)."""
    ctx.store.write_batch(game_id, batch, [message])
    scheduling.deliveries(ctx, game_id, batch)


class Games(Protocol):
    """What a channel's routing needs of running games (tests give a fake)."""

    def table(self, game_id: str) -> Table | None: ...

    def answer(self, game_id: str, seat: int, actions: list[dict], window: int, dedup_id: str | None) -> Outcome: ...

    def hand_to_bot(self, game_id: str, seat: int, bot: bool) -> None: ...


class PipelineGames:
    """`Games` on the pipeline."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def table(self, game_id: str) -> Table | None:
        return table(self.ctx, game_id)

    def answer(self, game_id: str, seat: int, actions: list[dict], window: int, dedup_id: str | None) -> Outcome:
        return answer(self.ctx, game_id, seat, actions, window, dedup_id)

    def hand_to_bot(self, game_id: str, seat: int, bot: bool) -> None:
        hand_to_bot(self.ctx, game_id, seat, bot)
