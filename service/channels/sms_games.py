"""The SMS side's only door to running games: read one, answer its open window, hand a seat to a bot.

`Games` is the small interface the SMS routing needs; `PipelineGames` implements it on the pipeline
(``service.store``, ``service.ingest``, ``workers.resolution``). A seat handed to the bot uses the pipeline's
own rule: a seat whose auto-play streak has reached ``autoplay_bot_after`` is bot-played until its player
answers again — so STOP loses nothing and START (or any answer) takes the seat back. A question the seat
is being asked right now is answered by the bot at once rather than at its deadline.
"""

from dataclasses import dataclass
from typing import Protocol

from service import ingest
from service.game import Game
from workers.context import Context
from workers.resolution import bot_answer


@dataclass(frozen=True)
class Table:
    """A running game as the SMS side sees it."""

    game_id: str
    game: Game
    window: int | None
    deadline: float
    over: bool


class Games(Protocol):
    def table(self, game_id: str) -> Table | None: ...

    def submit(self, game_id: str, seat: int, actions: list[dict], window: int, dedup_id: str | None) -> str: ...

    def hand_to_bot(self, game_id: str, seat: int, bot: bool) -> None: ...


class PipelineGames:
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def table(self, game_id: str) -> Table | None:
        snap = self.ctx.store.load(game_id)
        if snap is None:
            return None
        return Table(game_id, Game.from_json(snap.json), snap.window, snap.deadline, snap.status == "over")

    def submit(self, game_id: str, seat: int, actions: list[dict], window: int, dedup_id: str | None) -> str:
        return ingest.submit(self.ctx, game_id, seat, actions, window, dedup_id).text

    def hand_to_bot(self, game_id: str, seat: int, bot: bool) -> None:
        """Bot-play the seat from now on (its open question answered at once), or give it back."""
        store = self.ctx.store
        if bot:
            snap = store.load(game_id)
            if snap and snap.status == "collecting" and seat in store.expected(game_id) \
                    and seat not in store.answers(game_id):
                ingest.submit(self.ctx, game_id, seat, bot_answer(Game.from_json(snap.json), seat), snap.window)
        store.set_streak(game_id, seat, self.ctx.settings.autoplay_bot_after if bot else 0)
