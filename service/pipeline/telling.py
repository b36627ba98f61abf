"""Asking every channel of a context for its words: the messages of a step, a reminder, a refresh after an answer,
an unreachable seat's notice (the news model: `service.pipeline.news`).

A channel's words cannot break a game: a channel whose rendering fails is logged and skipped (the resolution would
otherwise fail, and be retried, forever); the step still commits.
"""

import logging
from collections.abc import Callable
from typing import Any

from service.game import Game
from service.pipeline.context import Context
from service.pipeline.news import (
    LIVING_MESSAGES,
    MAX_NEWS_LINES,
    Channel,
    Readers,
    Refresh,
    Reminder,
    Step,
    StepNews,
    Unreachable,
    carry_turn_ends,
    merge_plain,
    next_segments,
    private_turns,
    split_turns,
)
from service.store import Snapshot

log = logging.getLogger(__name__)


def step_messages(ctx: Context, step: Step) -> tuple[list[dict], dict]:
    """(the step's outgoing messages, the news of the current turn after it)."""
    readers = Readers(ctx.store.redis, step.meta)
    parts = split_turns(step.news, step.events, step.notices)
    segment, closed = next_segments(step.news, step.events, step.notices)
    private = {}
    for seat in readers.seats():
        parts_of_seat = private_turns(step.news, step.events, seat)
        living = readers.kind(seat) in LIVING_MESSAGES
        private[seat] = carry_turn_ends(parts_of_seat, seat, step) if living else parts_of_seat
    news_after: dict[str, Any] = {
        "turn": parts[-1].turn,
        "items": parts[-1].items[-MAX_NEWS_LINES:],
        "private": {},
        "segment": segment.to_news(),
    }
    for seat, parts_of_seat in private.items():  # what each seat's living turn message shows so far
        if readers.kind(seat) in LIVING_MESSAGES and parts_of_seat[-1].items:
            news_after["private"][str(seat)] = parts_of_seat[-1].items[-MAX_NEWS_LINES:]
        if parts_of_seat[-1].since is not None:  # its message began in an earlier turn
            news_after.setdefault("since", {})[str(seat)] = parts_of_seat[-1].since
    if step.seen:
        news_after["seen"] = {str(seat): at for seat, at in sorted(step.seen.items())}
    if step.typed:
        news_after["typed"] = sorted(step.typed)
    told = StepNews(step, readers, parts, segment, closed, private, ctx.settings.bot_username)
    out = _each_channel(ctx, lambda channel: channel.step_messages(told), "step")
    return merge_plain(out), news_after


def reminder_messages(
    ctx: Context, game_id: str, meta: dict, game: Game, seats: list[int], window: int, deadline: float
) -> list[dict]:
    """A reminder to each of ``seats`` (those that have not answered), in their channel and language."""
    reminder = Reminder(game_id, meta, game, seats, window, deadline, Readers(ctx.store.redis, meta))
    return _each_channel(ctx, lambda channel: channel.reminder_messages(reminder), "reminder")


def refresh_messages(
    ctx: Context,
    game_id: str,
    snap: Snapshot,
    meta: dict,
    news: dict,
    answers: dict[int, list[dict]],
    expected: set[int],
    seat: int,
) -> list[dict]:
    """After an accepted answer that did not close the window (see `Refresh`)."""
    refresh = Refresh(
        game_id,
        snap,
        Game.from_json(snap.json),
        meta,
        news,
        answers,
        expected,
        seat,
        Readers(ctx.store.redis, meta),
        ctx.settings.bot_username,
    )
    return _each_channel(ctx, lambda channel: channel.refresh_messages(refresh), "refresh")


def unreachable_messages(ctx: Context, meta: dict, seat: int) -> list[dict]:
    """The group (or, without one, every other player) is told that ``seat`` cannot be reached and how to fix it."""
    notice = Unreachable(meta, seat, Readers(None, meta), ctx.settings.bot_username)
    return _each_channel(ctx, lambda channel: channel.unreachable_messages(notice), "unreachable notice")


def _each_channel(ctx: Context, render: Callable[[Channel], list[dict]], what: str) -> list[dict]:
    """Every channel's messages, in a fixed order. A channel whose rendering fails is logged and skipped: a
    wording bug must never stop a game (the resolution would fail, and be retried, forever)."""
    out: list[dict] = []
    for kind, channel in ctx.channels.items():
        try:
            out += render(channel)
        except Exception:
            log.exception("the %s channel could not render the %s", kind, what)
    return out
