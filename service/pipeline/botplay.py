"""The bot that answers for a seat: a table's own bots at the level they were added with, and a player's seat the
bot plays for them (auto-play streak at its limit, or away) at ``vanished_bot_level``. Every answer is worked out
on a copy of the game from the seat's own knowledge (`service.game.botseat`), never from what it cannot see."""

from service.game import Game, botseat
from service.pipeline.context import Context

MAX_AUTOPLAY_STEPS = 200  # guards against an engine that never closes a window


def bot_answer(game: Game, seat: int, level: str | None = None, budget_ms: float = 200) -> list[dict]:
    """The bot's answer of ``seat`` for the open window (several actions when one is not enough): auto-play's, or
    with a ``level`` (service/game/search.py) the searching bot's, given only the seat's knowledge."""
    trial = Game.from_json(game.to_json())
    if trial.window is None:
        raise ValueError(f"seat {seat} has no window to answer: the game is over")
    window, actions = trial.window["id"], []
    while trial.window is not None and trial.window["id"] == window and seat in trial.waiting_for():
        action = trial.autoplay(seat) if level is None else botseat.answer(trial, seat, level, budget_ms=budget_ms)
        trial.apply(seat, action)
        actions.append(action)
        if len(actions) > MAX_AUTOPLAY_STEPS:
            raise RuntimeError(f"autoplay of seat {seat} never finishes window {window}")
    return actions


def taken_seats(meta: dict, streaks: dict[int, int], away: dict[int, float], at: float, bot_after: int) -> set[int]:
    """The players' seats (not the table's bots) the bot plays at ``at``: a streak of auto-plays at the limit, or
    a player away until later (`service.pipeline.absence`)."""
    bots = set(meta.get("bots", []))
    taken = {s for s, n in streaks.items() if n >= bot_after} | {s for s, until in away.items() if until > at}
    return taken - bots


def vanished_answer(ctx: Context, game: Game, seat: int) -> list[dict]:
    """The answer of the bot that plays a vanished player's seat (``vanished_bot_level``) in the open window."""
    return bot_answer(game, seat, ctx.settings.vanished_bot_level, ctx.settings.bot_budget_ms)


def bot_levels(
    ctx: Context, meta: dict, streaks: dict[int, int], away: dict[int, float], at: float
) -> dict[int, str | None]:
    """The seats a bot answers for, with its level: a table's bots at the level they were added with (None:
    auto-play, for the seats that filled a sized table), a seat the bot plays for its player (`taken_seats`:
    vanished, or away) at ``vanished_bot_level``."""
    taken = taken_seats(meta, streaks, away, at, ctx.settings.autoplay_bot_after)
    levels: dict[int, str | None] = {s: ctx.settings.vanished_bot_level for s in taken}
    added = meta.get("bot_levels", {})
    levels.update({s: added.get(str(s)) for s in meta.get("bots", [])})
    return levels
