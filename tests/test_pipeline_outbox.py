"""The outbox: stored before sent, sent once, within the shared budget, retried, and hidden info kept hidden."""

import pytest
from pipeline_support import CONFIG, Clock, make_ctx, run_jobs, table
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from service.game import new_game
from service.pipeline import news, outbox, scheduling, telling, upkeep
from service.store import Commit

G = "out1"


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def ctx(clock):
    ctx = make_ctx(clock=clock, rate_global_per_second=2)
    outgoing = [
        {"chat": "c1", "text": "one", "seat": 1, "group": False},
        {"chat": "c1", "text": "two", "seat": 1, "group": False},
        {"chat": "grp", "text": "table", "seat": None, "group": True},
        {"chat": "c2", "text": "three", "seat": 2, "group": False},
    ]
    ctx.store.commit(
        G,
        Commit(
            version=0,
            window=None,
            engine_json="{}",
            next_window=1,
            status="collecting",
            deadline=clock.now + 60,
            now=clock.now,
            expected=[1, 2],
            prefilled={},
            streaks={},
            messages=outgoing,
        ),
    )
    return ctx


def sent(ctx):
    return [(m["chat"], m["text"]) for m in ctx.sender.sent()]


def redeliveries(ctx):
    return sorted(ScheduledJobRegistry(queue=ctx.send_queue).get_job_ids())


def test_a_message_is_sent_once_however_often_it_is_delivered(ctx):
    assert upkeep.deliver(ctx, f"{G}-v1-0", 0, 0) == "sent"
    assert upkeep.deliver(ctx, f"{G}-v1-0", 0, 0) == "done"
    assert upkeep.deliver(ctx, f"{G}-v9-0", 0, 0) == "done"  # unknown message: nothing to do
    assert sent(ctx) == [("c1", "one")]


def test_a_batch_is_sent_in_one_job(ctx, clock):
    assert upkeep.deliver_batch(ctx, G, "v1") == ["sent"] * 4  # c1's second message waited out its 1 s budget
    assert sent(ctx) == [("c1", "one"), ("c1", "two"), ("grp", "table"), ("c2", "three")]
    # once all is sent, the batch and its markers are gone: a game keeps only what is still to be sent
    left = [*ctx.store.redis.scan_iter(match=f"{{g:{G}}}:out:*"), *ctx.store.redis.scan_iter(match=f"{{g:{G}}}:sent:*")]
    assert left == []
    assert upkeep.deliver_batch(ctx, G, "v1") == []
    assert upkeep.deliver(ctx, f"{G}-v1-2", 0, 0) == "done"  # a late job for one of its messages
    assert len(sent(ctx)) == 4


def test_a_delivery_job_that_dies_midway_runs_again_and_sends_the_rest_once(ctx):
    ctx.store.redis.set("test:fail:grp", "crash")  # the job dies at its third message
    scheduling.deliveries(ctx, G, "v1")
    run_jobs(ctx)
    assert sent(ctx) == [("c1", "one"), ("c1", "two")]
    (retry,) = ScheduledJobRegistry(queue=ctx.send_queue).get_job_ids()  # RQ's retry of the failed job
    assert retry == f"deliver-{G}-v1"
    ctx.store.redis.delete("test:fail:grp", *ctx.store.redis.scan_iter(match=f"{{g:{G}}}:sent:v1:2"))  # its lease
    ScheduledJobRegistry(queue=ctx.send_queue).remove(retry)  # expires; it is due
    ctx.send_queue.enqueue_job(Job.fetch(retry, connection=ctx.store.redis, serializer=ctx.send_queue.serializer))
    run_jobs(ctx)
    assert sent(ctx) == [("c1", "one"), ("c1", "two"), ("grp", "table"), ("c2", "three")]


def test_a_batch_stays_until_its_last_message_is_sent(ctx):
    for index in (0, 1, 3):
        assert upkeep.deliver(ctx, f"{G}-v1-{index}", 0, 0) == "sent"
    assert ctx.store.batch_size(G, "v1") == 4 and ctx.store.send_state(G, "v1", 0) == "sent"
    assert upkeep.deliver(ctx, f"{G}-v1-2", 0, 0) == "sent"
    assert ctx.store.batch_size(G, "v1") == 0 and ctx.store.send_state(G, "v1", 0) is None


def test_a_claim_left_by_a_dead_deliverer_is_retried_once_it_expires(ctx):
    assert ctx.store.claim_send(G, "v1", 2, outbox.CLAIM_LEASE_SECONDS)  # a deliverer claimed it, then died
    assert upkeep.deliver(ctx, f"{G}-v1-2", 0, 0) == "wait"
    job = ScheduledJobRegistry(queue=ctx.send_queue).get_job_ids()
    assert job == [f"deliver-{G}-v1-2-1"]  # looked at again when the claim has expired
    ctx.store.redis.delete(f"{{g:{G}}}:sent:v1:2")  # ... which Redis does after the lease
    assert upkeep.deliver(ctx, f"{G}-v1-2", 1, 0) == "sent"
    assert sent(ctx) == [("grp", "table")]


def test_per_chat_budget_waits_and_reschedules(ctx, clock):
    assert upkeep.deliver(ctx, f"{G}-v1-0", 0, 0) == "sent"
    t0 = clock.now
    assert upkeep.deliver(ctx, f"{G}-v1-1", 0, 0) == "sent"  # waited out the 1 s budget of chat c1
    assert clock.now - t0 == pytest.approx(1.0)
    assert sent(ctx) == [("c1", "one"), ("c1", "two")]


def test_global_budget_is_shared_and_long_waits_are_rescheduled(ctx, clock):
    ctx.settings.rate_global_per_second = 0.1  # one message per 10 s overall
    ctx.store.redis.delete("artemia:rl:global")
    assert upkeep.deliver(ctx, f"{G}-v1-2", 0, 0) == "sent"
    assert upkeep.deliver(ctx, f"{G}-v1-3", 0, 0) == "wait"
    assert redeliveries(ctx) == [f"deliver-{G}-v1-3-1"]
    assert sent(ctx) == [("grp", "table")]


def test_retry_after_pauses_every_send(ctx):
    ctx.store.redis.set("test:fail:c1", "retry_after:30")
    assert upkeep.deliver(ctx, f"{G}-v1-0", 0, 0) == "wait"
    assert upkeep.deliver(ctx, f"{G}-v1-3", 0, 0) == "wait"  # another chat waits too
    assert redeliveries(ctx) == [f"deliver-{G}-v1-0-1", f"deliver-{G}-v1-3-1"]
    assert sent(ctx) == []


def test_network_errors_retry_with_backoff_then_give_up(ctx):
    ctx.store.redis.set("test:fail:c2", "transient")
    assert upkeep.deliver(ctx, f"{G}-v1-3", 0, 0) == "retry"
    job = ctx.send_queue.fetch_job(f"deliver-{G}-v1-3-1")
    assert job.args == [f"{G}-v1-3", 1, 1]
    ctx.store.redis.delete("test:fail:c2")
    assert upkeep.deliver(ctx, f"{G}-v1-3", 1, 1) == "sent"  # a failed try left the message sendable
    ctx.store.redis.set("test:fail:c1", "transient")
    assert upkeep.deliver(ctx, f"{G}-v1-0", 7, ctx.settings.send_max_attempts - 1) == "failed"
    assert ctx.store.send_state(G, "v1", 0) == "failed"  # given up: never tried again
    assert upkeep.deliver(ctx, f"{G}-v1-0", 8, 0) == "done"


def test_a_blocked_player_is_marked_unreachable_and_bot_played(ctx):
    ctx.store.redis.set("test:fail:c2", "blocked")
    assert upkeep.deliver(ctx, f"{G}-v1-3", 0, 0) == "unreachable"
    assert ctx.store.streaks(G) == {2: ctx.settings.autoplay_bot_after}
    assert upkeep.deliver(ctx, f"{G}-v1-3", 1, 0) == "done"


def test_private_events_reach_only_their_seats_and_public_ones_the_table():
    meta = table(3, humans=[0, 1, 2], group="grp")
    game = new_game(CONFIG)
    events = [
        {"type": "played", "seat": 1, "cards": [5], "visible_to": [1]},
        {"type": "drawn", "seat": 0, "cards": [9], "visible_to": [0]},
        {"type": "caught", "seat": 2, "place": 4, "visible_to": None},
    ]

    def step(meta):
        out, _ = telling.step_messages(
            make_ctx(), news.Step("g", meta, game, events, [], [], 0.0, 1, news.empty_news(1))
        )
        return {m["chat"]: m["text"] for m in out}

    out = step(meta)
    assert "You play: 5" in out["chat1"] and "5 Rover" not in out["grp"] and "chat2" not in out
    assert "You draw: 9" in out["chat0"] and "9 " not in out["grp"] and "9 " not in out["chat1"]
    assert "P2 was caught" in out["grp"] and "caught" not in out["chat1"]
    no_group = step(table(3, humans=[1, 2], group=None))
    assert {chat for chat, text in no_group.items() if "caught" in text} == {"chat1", "chat2"}
