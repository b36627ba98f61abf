"""Deadlines, auto-play streaks, reminders, the sweeper and downtime credit, on fakeredis with a fake clock."""

import pytest
from pipeline_support import CONFIG, Clock, make_ctx, run_jobs, table
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from service.game import Game
from service.pipeline import ingest, upkeep
from service.pipeline.resolution import follow_up, resolve_window, start_game

G = "pipe1"


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def ctx(clock):
    ctx = make_ctx(clock=clock, autoplay_bot_after=2, downtime_threshold_seconds=600)
    start_game(ctx, G, CONFIG, table(3, humans=[1, 2], deadline=60))
    upkeep.sweep(ctx)  # the sweeper's first heartbeat
    return ctx


def scheduled(ctx) -> list[str]:
    return ScheduledJobRegistry(queue=ctx.queue).get_job_ids()


def settle(ctx):
    """Run queued jobs until the game waits for a human (or is over)."""
    for _ in range(50):
        run_jobs(ctx)
        if ctx.store.load(G).status != "resolving":
            return ctx.store.load(G)
    raise AssertionError("the game keeps resolving")


def answer_for(ctx, seat):
    game = Game.from_json(ctx.store.load(G).json)
    from service.pipeline.botplay import bot_answer

    return bot_answer(game, seat)


def outbox_texts(ctx, batch):
    stored = (ctx.store.message(G, batch, i) for i in range(ctx.store.batch_size(G, batch)))
    return [message["text"] for message in stored if message is not None]  # (those sent are gone)


def test_opening_a_window_schedules_its_deadline_and_reminders(ctx, clock):
    snap = ctx.store.load(G)
    assert snap.deadline == clock.now + 60
    ids = scheduled(ctx)
    assert f"deadline-{G}-1-{int(snap.deadline * 1000)}" in ids
    assert [i.split("-")[3] for i in ids if i.startswith("remind-")] == ["0"]  # the next one is chained
    assert snap.followed == snap.version
    follow_up(ctx, G)  # again: nothing new
    assert scheduled(ctx) == ids


def test_a_window_answered_before_its_deadline_leaves_no_timer_waiting(ctx, clock):
    first = [i for i in scheduled(ctx) if i.startswith(("deadline-", "remind-"))]
    assert first and all(f"-{G}-1-" in i for i in first)
    for seat in (1, 2):
        ingest.submit(ctx, G, seat, answer_for(ctx, seat), 1)
    snap = settle(ctx)
    timers = [i for i in scheduled(ctx) if i.startswith(("deadline-", "remind-"))]
    assert not set(first) & set(timers) and not any(ctx.store.redis.exists(f"rq:job:{i}") for i in first)
    assert f"deadline-{G}-{snap.window}-{int(snap.deadline * 1000)}" in timers  # the open window keeps its own


def test_a_timed_job_is_never_due_before_its_time(ctx, clock):
    """RQ's scheduler keeps whole seconds: a deadline at x.3 s must be due at x+1 s, not at x s (a second early)."""
    at = 1_000_000.3
    upkeep.scheduling.deadline(ctx, G, 9, at)
    registry = ScheduledJobRegistry(queue=ctx.queue)
    due = registry.get_scheduled_time(f"deadline-{G}-9-{int(at * 1000)}").timestamp()
    assert at <= due < at + 1


def test_a_deadline_job_that_starts_a_little_early_closes_the_window_at_its_deadline(ctx, clock):
    """A deadline job started 0.7 s early found the deadline ahead and rescheduled itself under its own id, which
    RQ refused (the job itself still held it): the window waited for the sweeper, up to 30 s more."""
    deadline = ctx.store.load(G).deadline
    clock.now = deadline - 0.7
    assert upkeep.fire_deadline(ctx, G, 1) == "resolved"
    assert clock.now >= deadline  # it waited for the deadline, no longer
    assert ctx.store.load(G).window != 1


def test_deadline_autoplays_missing_seats_and_bots_take_over_after_n(ctx, clock):
    ingest.submit(ctx, G, 1, answer_for(ctx, 1), 1)
    assert upkeep.fire_deadline(ctx, G, 1) == "early"  # not yet
    clock.advance(61)
    assert upkeep.fire_deadline(ctx, G, 1) == "resolved"
    assert upkeep.fire_deadline(ctx, G, 1) == "noop"  # firing twice changes nothing
    assert ctx.store.streaks(G) == {2: 1}
    snap = settle(ctx)
    # seat 2 misses a second deadline: it becomes bot-played, and the table is told
    while 2 not in ctx.store.expected(G):
        for seat in ctx.store.expected(G) - set(ctx.store.answers(G)):
            ingest.submit(ctx, G, seat, answer_for(ctx, seat), snap.window)
        snap = settle(ctx)
    for seat in ctx.store.expected(G) - set(ctx.store.answers(G)) - {2}:
        ingest.submit(ctx, G, seat, answer_for(ctx, seat), snap.window)
    clock.advance(61)
    assert upkeep.fire_deadline(ctx, G, snap.window) == "resolved"
    assert ctx.store.streaks(G)[2] == 2
    stored = [t for v in range(1, ctx.store.load(G).version + 1) for t in outbox_texts(ctx, f"v{v}")]
    texts = stored + [m["text"] for m in ctx.sender.sent()]  # the resolution sent its private messages itself
    notice = [t for t in texts if "a bot plays for them" in t]
    assert notice and "P2" in notice[0]
    # from now on seat 2 is answered by a bot the moment a window asks it ...
    snap = settle(ctx)
    while 2 not in ctx.store.expected(G):
        for seat in ctx.store.expected(G) - set(ctx.store.answers(G)):
            ingest.submit(ctx, G, seat, answer_for(ctx, seat), snap.window)
        snap = settle(ctx)
    assert 2 in ctx.store.answers(G)
    # ... until its player answers again
    assert ingest.submit(ctx, G, 2, answer_for(ctx, 2), snap.window).status.value in ("ACCEPTED", "RESOLVE")
    assert 2 not in ctx.store.streaks(G)


def test_reminder_goes_to_missing_seats_once_with_the_absolute_deadline(ctx):
    ingest.submit(ctx, G, 1, answer_for(ctx, 1), 1)
    assert upkeep.remind(ctx, G, 1, 0)
    assert not upkeep.remind(ctx, G, 1, 0)
    assert [i.split("-")[3] for i in scheduled(ctx) if i.startswith("remind-")] == ["0", "1"]
    messages = [ctx.store.message(G, "w1r0", i) for i in range(ctx.store.batch_size(G, "w1r0"))]
    assert [m["chat"] for m in messages] == ["chat2"]
    assert "UTC" in messages[0]["text"]
    assert f"deliver-{G}-w1r0" in ctx.send_queue.job_ids


def test_a_reminder_job_run_again_delivers_the_batch_its_first_run_wrote(ctx):
    ingest.submit(ctx, G, 1, answer_for(ctx, 1), 1)
    assert upkeep.remind(ctx, G, 1, 0)
    ctx.send_queue.fetch_job(f"deliver-{G}-w1r0").delete()  # the first run died before queueing its delivery
    assert not upkeep.remind(ctx, G, 1, 0)  # RQ's retry: nothing written twice, the stored batch queued
    assert f"deliver-{G}-w1r0" in ctx.send_queue.job_ids
    assert ctx.store.batch_size(G, "w1r0") == 1


def test_an_answer_no_longer_legal_when_applied_is_auto_played_and_its_seat_told(ctx, clock):
    # Another seat's card applied first can make a stored answer illegal (rulings B, C); here the stored
    # answer is illegal from the start, which the resolution cannot tell apart.
    ctx.store.submit(G, 1, 1, answer_for(ctx, 1), None, clock.now)
    ctx.store.submit(G, 1, 2, [{"type": "play", "cards": [99]}], None, clock.now)
    before = len(ctx.sender.sent())
    assert resolve_window(ctx, G, 1) == "resolved"
    # what the step told each chat: sent by the resolving job itself, or still stored for its delivery job
    told = ctx.sender.sent()[before:] + [ctx.store.message(G, "v2", i) for i in range(ctx.store.batch_size(G, "v2"))]
    private = [m for m in told if m["chat"] == "chat2"]
    fallback = "Your earlier answer was no longer possible; a default was played for you."
    assert any(fallback in m["text"] for m in private)  # (after the first window's question, still in its lane)
    assert not any("no longer possible" in m["text"] for m in told if m["chat"] != "chat2")
    assert ctx.store.streaks(G).get(2, 0) == 0  # it answered: not counted as absent


def test_sweeper_resolves_a_closed_window_whose_job_went_missing(ctx, clock):
    # straight into the store: the RESOLVE caller "died" before enqueueing (or Redis failed over under it); the
    # answer that closed the window made the game due in the same script, long before its deadline
    grace = ctx.settings.resolve_grace_seconds
    for seat in (1, 2):
        ctx.store.submit(G, 1, seat, answer_for(ctx, seat), None, clock.now, due=clock.now + grace)
    assert ctx.store.due_games(clock.now + grace) == [G]
    assert upkeep.sweep(ctx) == {}  # within the grace period: left to its job
    clock.advance(grace)
    assert upkeep.sweep(ctx) == {"resolved": 1}
    assert ctx.store.resolution_log(G)[:2] == ["1:", "2:1"]


def test_sweeper_fires_an_overdue_deadline_and_redoes_lost_follow_ups(ctx, clock):
    clock.advance(61)
    assert upkeep.sweep(ctx) == {"resolved": 1}
    version = ctx.store.load(G).version
    ctx.store.mark_followed(G, version - 1, clock.now)  # as if the worker died right after the commit
    assert upkeep.check_game(ctx, G) == "followed"
    assert ctx.store.load(G).followed == version
    assert any(j.startswith("sweep-") for j in scheduled(ctx))


def test_a_sweeper_chain_that_ended_is_started_again_by_the_maintenance(ctx, clock):
    interval = ctx.settings.sweep_interval_seconds
    upkeep.sweep(ctx)  # beats, and schedules the next sweep
    clock.advance(upkeep.STALE_SWEEPS * interval)
    assert not upkeep.revive_sweeper(ctx)  # a chain that beat within three intervals is left alone
    for job_id in scheduled(ctx):  # the next sweep was lost (a failover) and nothing beat since
        ctx.queue.fetch_job(job_id).delete()
    clock.advance(1)
    assert upkeep.revive_sweeper(ctx)
    assert f"sweep-{int(clock.now // interval)}" in scheduled(ctx) + ctx.queue.job_ids
    assert not upkeep.revive_sweeper(ctx)  # one sweep per slot whoever asks


def test_downtime_is_added_back_to_open_deadlines(ctx, clock):
    old = ctx.store.load(G).deadline
    clock.advance(1000)  # the service was down; its deadline job fires first, before any sweep
    assert upkeep.fire_deadline(ctx, G, 1) == "deferred"
    assert f"sweep-{int(clock.now // ctx.settings.sweep_interval_seconds)}" in scheduled(ctx)
    assert upkeep.credit_downtime(ctx) == 1000 - ctx.settings.sweep_interval_seconds  # what that sweep does
    new = ctx.store.load(G).deadline
    assert new == pytest.approx(old + 970)
    assert f"deadline-{G}-1-{int(new * 1000)}" in scheduled(ctx)
    assert upkeep.fire_deadline(ctx, G, 1) == "early"
    assert upkeep.credit_downtime(ctx) == 0  # one gap is credited once


def test_the_sweeper_delivers_a_step_whose_delivery_job_was_lost(ctx, clock, monkeypatch):
    """A delivery job lost with a Redis primary (queued, not yet replicated): a grace period after the window
    opened, the sweeper drains the chats that still hold the step's messages; nobody waits for the deadline. (The
    resolving job sends none of them itself here, as when it dies right after its commit.)"""
    monkeypatch.setattr(ctx.settings, "deliver_inline_seconds", 0)
    first = settle(ctx)
    for seat in sorted(ctx.store.expected(G)):  # straight into the store: no job runs
        ctx.store.submit(G, first.window, seat, answer_for(ctx, seat), None, clock.now)
    assert resolve_window(ctx, G, first.window) == "resolved"
    snap = ctx.store.load(G)
    assert snap.status == "collecting"
    ctx.send_queue.empty()  # the step's delivery job is lost
    scheduled_sends = ScheduledJobRegistry(queue=ctx.send_queue)
    for job_id in scheduled_sends.get_job_ids():
        scheduled_sends.remove(job_id, delete_job=True)
    chats = ctx.store.batch_chats(G, f"v{snap.version}")
    assert chats and all(ctx.store.lane(G, chat) for chat in chats)
    assert upkeep.sweep(ctx) == {}  # not yet: the step's own job may still be on its way
    clock.advance(ctx.settings.resolve_grace_seconds)
    assert upkeep.sweep(ctx) == {"waiting": 1}
    drains = [job_id for job_id in scheduled_sends.get_job_ids() if job_id.startswith(f"drain-{G}-")]
    assert len(drains) == len(chats)  # one drain job per chat, due now
    for job_id in drains:
        Job.fetch(job_id, connection=ctx.store.redis, serializer=ctx.send_queue.serializer).perform()
    assert [chat for chat in chats if ctx.store.lane(G, chat)] == []
    assert ctx.store.load(G).window == snap.window  # delivered; the window still waits for its answers


@pytest.mark.parametrize("group", ["grp", "-100"])
def test_a_resolution_sends_the_seats_messages_itself_and_leaves_a_telegram_group_to_a_delivery_job(clock, group):
    """No job hop between a step's commit and its questions (`delivery.deliver_now`): each seat's chat gets the
    step's messages in the resolving job (two at once within a chat's budget), and a delivery job is queued only
    for a Telegram group's status (a console table's group is sent at once too)."""
    ctx = make_ctx(clock=clock)
    start_game(ctx, G, CONFIG, table(3, humans=[1, 2], group=group, deadline=60))
    first = settle(ctx)
    clock.advance(10)  # the players think: every chat's budget is full again
    before = len(ctx.sender.sent())
    for seat in sorted(ctx.store.expected(G)):  # straight into the store: no job runs
        ctx.store.submit(G, first.window, seat, answer_for(ctx, seat), None, clock.now)
    assert resolve_window(ctx, G, first.window) == "resolved"
    sent_now = {m["chat"] for m in ctx.sender.sent()[before:]}
    assert {"chat1", "chat2"} <= sent_now and (group in sent_now) == (group == "grp")
    deliveries = [job.id for job in ctx.send_queue.jobs]
    assert deliveries == ([] if group == "grp" else [f"deliver-{G}-v{ctx.store.load(G).version}"])
    run_jobs(ctx)
    assert [chat for chat in ("chat1", "chat2", group) if ctx.store.lane(G, chat)] == []
    assert group in {m["chat"] for m in ctx.sender.sent()[before:]}
