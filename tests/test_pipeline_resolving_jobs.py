"""Closed windows wait in the shard's ready set; at most ``resolvers`` resolving jobs drain it, each resolving one
window after another (`scheduling.resolvers`, `resolution.resolve_ready`). A burst costs a few jobs, not one per
window; no window is left behind by a job that was just ending; a job that runs long hands over; a game whose
resolution fails does not stop the others and is left to the sweeper."""

import collections
import threading
import time

from pipeline_support import CONFIG, Clock, make_ctx, run_jobs, table
from test_ops import samples

from service.game import Game
from service.ops import health
from service.pipeline import delivery, outbox, resolution, scheduling, upkeep
from service.pipeline.botplay import bot_answer
from service.pipeline.resolution import start_game
from service.store import keys

HUMANS = [1, 2]


def games(ctx, n: int, prefix: str = "rj") -> list[str]:
    ids = [f"{prefix}{i}" for i in range(n)]
    for i, g in enumerate(ids):
        start_game(ctx, g, {**CONFIG, "seed": i}, table(3, humans=HUMANS))
    run_jobs(ctx)
    return ids


def close_first_windows(ctx, ids: list[str]) -> None:
    """Every seat of each game's open window answers through the store; the last answer queues the resolution."""
    for g in ids:
        snap = ctx.store.load(g)
        game = Game.from_json(snap.json)
        for seat in sorted(ctx.store.expected(g) - set(ctx.store.answers(g))):
            status, *_ = ctx.store.submit(g, snap.window, seat, bot_answer(game, seat), None, ctx.clock())
        assert status == "RESOLVE"
        scheduling.resolve(ctx, g, snap.window)


def resolving_jobs(ctx) -> list:
    return [job for job in ctx.queue.get_jobs() if job.func_name == "workers.jobs.resolve_ready"]


def test_a_burst_of_closed_windows_costs_a_job_per_lease_not_per_window():
    ctx = make_ctx(clock=Clock(), resolvers=2)
    ids = games(ctx, 12)
    windows = {g: ctx.store.load(g).window for g in ids}
    close_first_windows(ctx, ids)
    assert len(resolving_jobs(ctx)) == 2  # the other ten windows wait for those two jobs
    assert ctx.store.ready_count() == 12

    def ready_gauge() -> float:  # what an operator sees of the backlog
        return samples(health.render_metrics(ctx.store.redis, ctx.settings).decode())[
            "artemia_windows_ready", (("shard", "0"),)
        ]

    assert ready_gauge() == 12
    run_jobs(ctx)
    assert ctx.store.ready_count() == 0 and not resolving_jobs(ctx) and ready_gauge() == 0
    for g in ids:
        assert ctx.store.load(g).window != windows[g]  # resolved, and the next window opened
        assert ctx.store.resolution_log(g)[1] == f"2:{windows[g]}"
    assert not ctx.store.redis.exists(keys.resolver(0), keys.resolver(1))  # both leases given back


def test_a_window_noted_while_every_lease_is_held_is_taken_by_a_holder():
    ctx = make_ctx(clock=Clock(), resolvers=1)
    first, second = games(ctx, 2)
    close_first_windows(ctx, [first])
    assert len(resolving_jobs(ctx)) == 1
    close_first_windows(ctx, [second])  # the lease is held: no job of its own
    assert len(resolving_jobs(ctx)) == 1 and ctx.store.ready_count() == 2
    run_jobs(ctx)
    assert ctx.store.ready_count() == 0
    assert all(len(ctx.store.resolution_log(g)) >= 2 for g in (first, second))
    # the job gave its lease back when it found nothing more: the next closed window gets a job at once
    third = games(ctx, 1, prefix="late")[0]
    close_first_windows(ctx, [third])
    assert len(resolving_jobs(ctx)) == 1


def test_a_job_that_has_run_long_hands_the_rest_to_a_new_job(monkeypatch):
    monkeypatch.setattr(resolution, "HANDOVER_SECONDS", 0.0)
    ctx = make_ctx(clock=Clock(), resolvers=1)
    ids = games(ctx, 3)
    close_first_windows(ctx, ids)
    (job,) = resolving_jobs(ctx)
    lease, token = job.args
    ctx.queue.remove(job)
    assert resolution.resolve_ready(ctx, lease, token) == {"resolved": 1}
    handed = resolving_jobs(ctx)
    assert len(handed) == 1 and handed[0].args[1] != token  # a new job, under a lease of its own
    assert ctx.store.ready_count() == 2
    run_jobs(ctx)
    assert ctx.store.ready_count() == 0 and all(len(ctx.store.resolution_log(g)) >= 2 for g in ids)


def test_a_game_whose_resolution_fails_is_left_to_the_sweeper_and_the_others_go_on(monkeypatch):
    clock = Clock()
    ctx = make_ctx(clock=clock, resolvers=1)
    broken, fine = games(ctx, 2)
    upkeep.sweep(ctx)  # the sweeper's first heartbeat
    window = ctx.store.load(broken).window
    resolve_window = resolution.resolve_window

    def failing(ctx, game_id, window, *sending):
        if game_id == broken:
            raise RuntimeError("an engine error")
        return resolve_window(ctx, game_id, window, *sending)

    monkeypatch.setattr(resolution, "resolve_window", failing)
    close_first_windows(ctx, [broken, fine])
    (job,) = resolving_jobs(ctx)
    ctx.queue.remove(job)
    assert resolution.resolve_ready(ctx, *job.args) == {"failed": 1, "resolved": 1}
    assert ctx.store.load(broken).status == "resolving" and ctx.store.ready_count() == 0
    monkeypatch.setattr(resolution, "resolve_window", resolve_window)
    clock.advance(ctx.settings.resolve_grace_seconds + 1)
    upkeep.sweep(ctx)
    assert ctx.store.load(broken).window != window


def test_steps_are_sent_beside_the_job_only_while_sends_are_slow(monkeypatch):
    ctx = make_ctx(clock=Clock())
    monkeypatch.setitem(outbox._SENDS, "mean", 0.0)
    assert delivery.start_now(ctx, "g", ["v1"], []) is None  # a local sender: the job sends its steps itself
    for _ in range(30):
        outbox._note_send(0.05)  # sends that wait for Telegram
    under_way = delivery.start_now(ctx, "g", ["v1"], [])
    assert under_way is not None and under_way.result(5) == (True, [])


def test_a_resolving_job_goes_on_while_its_steps_are_sent_and_marks_each_once_sent(monkeypatch):
    """A send is a round trip to Telegram: the job resolves the next game's window meanwhile. Here every send
    waits until the test lets it go: all three windows are committed before any message has left, none is marked
    followed before its sends are done, and each is once they are."""
    monkeypatch.setitem(outbox._SENDS, "mean", 1.0)  # sends as slow as these
    ctx = make_ctx(clock=Clock(), resolvers=1, rate_global_per_second=1e6, rate_private_per_second=1e6)
    ids = games(ctx, 3)
    recording, go = ctx.sender, threading.Event()

    class HeldSender:
        def send(self, *args, **kwargs):
            go.wait(10)
            return recording.send(*args, **kwargs)

    ctx.sender = HeldSender()
    before = len(recording.sent())
    close_first_windows(ctx, ids)
    (job,) = resolving_jobs(ctx)
    ctx.queue.remove(job)
    outcome: dict = {}
    job_thread = threading.Thread(target=lambda: outcome.update(resolution.resolve_ready(ctx, *job.args)))
    job_thread.start()
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(len(ctx.store.resolution_log(g)) >= 2 for g in ids):
            time.sleep(0.01)
        snaps = [ctx.store.load(g) for g in ids]
        assert all(len(ctx.store.resolution_log(g)) >= 2 for g in ids)  # every window committed ...
        assert len(recording.sent()) == before  # ... while no message had left
        assert all(snap.followed < snap.version for snap in snaps)  # and none marked followed yet
    finally:
        go.set()
        job_thread.join(10)
    assert outcome == {"resolved": 3}
    assert all(ctx.store.load(g).followed == ctx.store.load(g).version for g in ids)
    run_jobs(ctx)  # what the inline sends left (the groups' statuses)
    sent_to = collections.Counter(m["chat"] for m in recording.sent()[before:])
    assert sent_to["chat1"] >= 3 and sent_to["chat2"] >= 3  # each seat's question of each game


def _burst_order(monkeypatch, settle_within: float) -> tuple[list[tuple[str, str]], list[str], object]:
    """Three tables' windows close at once and one resolving job takes them (a local sender: it sends each step
    itself). -> what happened, in order: ("send", game) for each message sent, ("followed", game) for each step
    marked followed; the games; the context."""
    monkeypatch.setattr(resolution, "SETTLE_WITHIN_SECONDS", settle_within)
    ctx = make_ctx(clock=Clock(), resolvers=1, rate_global_per_second=1e6, rate_private_per_second=1e6)
    ids, chats = ["burst0", "burst1", "burst2"], set()
    for i, g in enumerate(ids):  # chats of its own for each table: the clock stands still, and so do chat budgets
        meta = table(3, humans=HUMANS)
        for seat in HUMANS:
            meta["players"][str(seat)]["chat"] = f"{g}-chat{seat}"
            chats.add(f"{g}-chat{seat}")
        start_game(ctx, g, {**CONFIG, "seed": i}, meta)
    run_jobs(ctx)
    events: list[tuple[str, str]] = []
    recording, mark_followed = ctx.sender, ctx.store.mark_followed
    resolving: dict = {}

    class Noting:
        def send(self, chat, *args, **kwargs):
            if chat in chats:
                events.append(("send", resolving["game"]))
            return recording.send(chat, *args, **kwargs)

    def noting_mark(game_id, *args, **kwargs):
        events.append(("followed", game_id))
        return mark_followed(game_id, *args, **kwargs)

    resolve_window = resolution.resolve_window

    def noting_resolve(ctx, game_id, *args, **kwargs):
        resolving["game"] = game_id
        return resolve_window(ctx, game_id, *args, **kwargs)

    ctx.sender = Noting()
    monkeypatch.setattr(ctx.store, "mark_followed", noting_mark)
    monkeypatch.setattr(resolution, "resolve_window", noting_resolve)
    close_first_windows(ctx, ids)
    (job,) = resolving_jobs(ctx)
    ctx.queue.remove(job)
    assert resolution.resolve_ready(ctx, *job.args) == {"resolved": 3}
    return events, ids, ctx


def test_in_a_burst_every_table_is_sent_its_step_before_any_step_is_settled(monkeypatch):
    """The timers and the followed mark of a step wait while other tables' windows do (up to a second): every
    table's question goes out first. All are settled before the job ends."""
    events, ids, ctx = _burst_order(monkeypatch, settle_within=60.0)
    sends = [g for kind, g in events if kind == "send"]
    assert set(sends) == set(ids) and len(sends) >= 2 * len(ids)  # each table's two seats were asked
    assert events.index(("followed", ids[0])) > max(i for i, (kind, _) in enumerate(events) if kind == "send")
    for g in ids:
        snap = ctx.store.load(g)
        assert snap.followed == snap.version and snap.status == "collecting"
        assert f"deadline-{g}-{snap.window}-{scheduling.ms(snap.deadline)}" in ctx.queue.scheduled_job_registry
    run_jobs(ctx)


def test_a_step_is_settled_once_it_has_waited_its_time(monkeypatch):
    events, ids, _ = _burst_order(monkeypatch, settle_within=0.0)
    first_followed = events.index(("followed", ids[0]))
    assert all(g == ids[0] for kind, g in events[:first_followed] if kind == "send")  # before the next table's


def test_a_step_whose_follow_up_fails_is_left_to_the_sweeper_and_the_others_are_settled(monkeypatch):
    clock = Clock()
    ctx = make_ctx(clock=clock, resolvers=1)
    ids = games(ctx, 3)
    upkeep.sweep(ctx)  # the sweeper's first heartbeat
    schedule = resolution._schedule

    def failing(ctx, game_id, *args):
        if game_id == ids[1]:
            raise RuntimeError("a bug in the bot's answer for a taken seat")
        return schedule(ctx, game_id, *args)

    monkeypatch.setattr(resolution, "_schedule", failing)
    close_first_windows(ctx, ids)
    (job,) = resolving_jobs(ctx)
    ctx.queue.remove(job)
    assert resolution.resolve_ready(ctx, *job.args) == {"resolved": 3}
    followed = {g: ctx.store.load(g).followed == ctx.store.load(g).version for g in ids}
    assert followed == {ids[0]: True, ids[1]: False, ids[2]: True}
    monkeypatch.setattr(resolution, "_schedule", schedule)
    clock.advance(ctx.settings.resolve_grace_seconds + 1)
    upkeep.sweep(ctx)
    snap = ctx.store.load(ids[1])
    assert snap.followed == snap.version
    assert f"deadline-{ids[1]}-{snap.window}-{scheduling.ms(snap.deadline)}" in ctx.queue.scheduled_job_registry


def test_a_job_keeps_its_lease_until_its_last_steps_are_settled(monkeypatch):
    """The ready set runs empty while steps wait to be settled (a second each: here they wait for the end). The
    lease is still the job's while it settles them: given back first, another job could resolve the next window
    of one of those games before the earlier step's follow-up was done. A window that closes meanwhile finds every
    lease held, and the same job takes it before it ends."""
    monkeypatch.setattr(resolution, "SETTLE_WITHIN_SECONDS", 60.0)
    ctx = make_ctx(clock=Clock(), resolvers=1)
    first, late = games(ctx, 2)
    close_first_windows(ctx, [first])
    (job,) = resolving_jobs(ctx)
    ctx.queue.remove(job)
    lease, token = job.args
    settle, held_while_settling = resolution.settle, []

    def noting_settle(ctx, step):
        held_while_settling.append(ctx.store.redis.get(keys.resolver(lease)) == token.encode())
        if step.game_id == first:
            close_first_windows(ctx, [late])  # no free lease: no job of its own
        return settle(ctx, step)

    monkeypatch.setattr(resolution, "settle", noting_settle)
    assert resolution.resolve_ready(ctx, lease, token) == {"resolved": 2}
    assert held_while_settling == [True, True]
    assert not resolving_jobs(ctx) and ctx.store.ready_count() == 0
    assert not ctx.store.redis.exists(keys.resolver(lease))  # given back once nothing was left
    for g in (first, late):
        snap = ctx.store.load(g)
        assert len(ctx.store.resolution_log(g)) >= 2 and snap.followed == snap.version
