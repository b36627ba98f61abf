"""Helpers shared by the pipeline tests: a context on fakeredis with a hand-driven clock, job pumping, and
game metadata for tables of humans and bots."""

import time

import fakeredis
from rq import SimpleWorker

from service import wiring
from service.channels.recording import RecordingSender
from service.config import Settings
from service.game import Game
from service.pipeline import context, ingest
from service.pipeline.botplay import bot_answer


class Clock:
    def __init__(self, start: float = 1_900_000_000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


class RealTime:
    """The wall clock, for a context that shares its Redis with real processes (workers, a browser's page)."""

    def __call__(self) -> float:
        return time.time()

    def advance(self, seconds: float) -> float:
        time.sleep(seconds)
        return time.time()


# Inbound flood limits out of the way: the tests play whole games at machine speed on a clock that stands still
# (tests/test_floods.py sets its own limits).
UNLIMITED_INBOUND = {
    "inbound_sms_burst": 1_000_000,
    "inbound_telegram_burst": 1_000_000,
    "inbound_whatsapp_burst": 1_000_000,
    "sms_stranger_replies_per_hour": 1_000_000,
    "max_open_tables": 1_000_000,
}
# Jobs run here in-process and scheduled ones stay scheduled, so every version of a message leaves at once: no
# version that asks nothing is held back (test_pipeline_outbox tests the hold, the e2e tests run with it).
# Telegram's limits as send budgets out of the way: a test's clock stands still, and every message of a test (a
# webhook's replies too: `telegram.budget`) would otherwise share one instant's tokens. The budgets have tests of
# their own (test_pipeline_outbox, test_telegram_budget), which pass Telegram's numbers (`TELEGRAM_RATES`).
UNLIMITED_SENDS = {
    "rate_global_per_second": 1_000_000,
    "rate_global_burst": 1_000_000,
    "rate_group_per_minute": 1_000_000,
    "rate_group_burst": 1_000_000,
    "rate_private_per_second": 1_000_000,
    "rate_private_burst": 1_000_000,
}
TELEGRAM_RATES = {name: Settings.model_fields[name].default for name in UNLIMITED_SENDS}
NO_HOLDS = {
    "edit_settle_seconds": 0,
    "tick_settle_seconds": 0,
    "may_hold_seconds": 0,
}


def make_ctx(connection=None, clock=None, shards=None, **overrides) -> context.Context:
    """A pipeline context on ``connection`` (a fresh fakeredis by default) with a recording sender; ``shards``: the
    game shards' connections (the context is the first shard's, `Context.on`). Its clock is ``clock``, by default
    a `Clock` of its own that stands still until something sleeps: a wait for the send budget (a private chat's
    one message a second) advances it instead of holding the test up. Beside real processes, pass `RealTime()`."""
    connection = connection or fakeredis.FakeRedis(server=fakeredis.FakeServer())
    clock = clock or Clock()
    settings = Settings(
        **{
            "min_deadline_seconds": 1,
            "sender": "recording",
            **NO_HOLDS,
            **UNLIMITED_INBOUND,
            **UNLIMITED_SENDS,
            **overrides,
        }
    )
    ctx = wiring.build(connection, settings, sender=RecordingSender(connection), shards=shards)
    for each in ctx.shard_contexts or [ctx]:
        each.clock, each.sleep = clock, clock.advance
    context.register(ctx)
    return ctx


def run_jobs(ctx) -> None:
    """Run every queued job in this process, each shard's (scheduled jobs stay scheduled)."""
    for each in ctx.shard_contexts or [ctx]:
        SimpleWorker(each.queues, connection=each.queue.connection, serializer=each.queue.serializer).work(
            burst=True, logging_level="WARNING"
        )


def answer_all(ctx, game_id: str) -> None:
    """Every seat the open window still waits for answers with the bot's move; then the jobs run."""
    snap = ctx.store.load(game_id)
    game = Game.from_json(snap.json)
    for seat in sorted(ctx.store.expected(game_id) - set(ctx.store.answers(game_id))):
        ingest.submit(ctx, game_id, seat, bot_answer(game, seat), snap.window)
    run_jobs(ctx)


def table(players: int, humans: list[int], group: str | None = "grp", deadline: int = 60) -> dict:
    """Game metadata: humans get chats ``chat<seat>``, every other seat is a bot."""
    return {
        "players": {
            str(s): (
                {"name": f"P{s}", "chat": f"chat{s}", "user": f"user{s}"}
                if s in humans
                else {"name": f"Bot{s}", "chat": None, "user": None}
            )
            for s in range(players)
        },
        "group": group,
        "deadline_seconds": deadline,
        "lang": "en",
        "bots": [s for s in range(players) if s not in humans],
    }


# The pipeline's tests script fast secrecy's windows (only holders asked); strict tables are played end to end
# through the lobby, whose default it is (tests/e2e, tests/integration).
CONFIG = {"players": 3, "seed": 7, "side": 1, "expert": False, "secrecy": "fast"}
