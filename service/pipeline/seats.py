"""The one door every channel uses to a running game: read it, answer its open window, hand a seat to a bot
and back.

A seat handed to the bot uses the pipeline's own rule: a seat whose auto-play streak has reached
``autoplay_bot_after`` is bot-played until its player answers again — so STOP (SMS), a blocked bot (Telegram) or
leaving loses nothing, and START or any answer takes the seat back. A question the seat is being asked right now
is answered by the bot at once rather than at its deadline.
"""

from dataclasses import dataclass
from typing import Protocol

from service.game import Game
from service.pipeline import ingest
from service.pipeline.botplay import vanished_answer
from service.pipeline.context import Context


@dataclass(frozen=True)
class Table:
    """A running game as a channel sees it."""

    game_id: str
    game: Game
    window: int | None
    deadline: float
    over: bool


def table(ctx: Context, game_id: str) -> Table | None:
    snap = ctx.store.load(game_id)
    if snap is None:
        return None
    return Table(game_id, Game.from_json(snap.json), snap.window, snap.deadline, snap.status == "over")


def answer_now(ctx: Context, game_id: str, seat: int) -> None:
    """The bot answers the question the seat is asked right now, if it has not answered it yet."""
    store = ctx.store
    snap = store.load(game_id)
    if snap and snap.status == "collecting" and seat in store.expected(game_id) and seat not in store.answers(game_id):
        answer = vanished_answer(ctx, Game.from_json(snap.json), seat)
        ingest.submit(ctx, game_id, seat, answer, snap.current_window, snap=snap, by_bot=True)


def hand_to_bot(ctx: Context, game_id: str, seat: int, bot: bool) -> None:
    """Bot-play the seat from now on (its open question answered at once), or give it back."""
    if bot:
        answer_now(ctx, game_id, seat)
    ctx.store.set_streak(game_id, seat, ctx.settings.autoplay_bot_after if bot else 0)


class Games(Protocol):
    """What a channel's routing needs of running games (tests give a fake)."""

    def table(self, game_id: str) -> Table | None: ...

    def submit(
        self, game_id: str, seat: int, actions: list[dict], window: int, dedup_id: str | None
    ) -> ingest.SubmitResult: ...

    def hand_to_bot(self, game_id: str, seat: int, bot: bool) -> None: ...


class PipelineGames:
    """`Games` on the pipeline."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def table(self, game_id: str) -> Table | None:
        return table(self.ctx, game_id)

    def submit(
        self, game_id: str, seat: int, actions: list[dict], window: int, dedup_id: str | None
    ) -> ingest.SubmitResult:
        return ingest.submit(self.ctx, game_id, seat, actions, window, dedup_id)

    def hand_to_bot(self, game_id: str, seat: int, bot: bool) -> None:
        hand_to_bot(self.ctx, game_id, seat, bot)
