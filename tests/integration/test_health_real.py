"""/healthz against real worker processes: a SIGKILLed worker shows even while a sender is alive, and its
scheduler does not outlive it holding the queues' scheduler locks."""

import os
import signal
import time

import pytest
import redis

from service.ops import health
from tests.real_redis import wait_for

pytestmark = pytest.mark.integration
WORKER = "workers.worker.OpsSimpleWorker"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_killed_worker_shows_and_its_scheduler_dies_with_it(redis_url, ctx_for, workers):
    ctx = ctx_for(redis_url)
    settings = ctx.settings.model_copy(update={"health_worker_stale_seconds": 5})
    connection = redis.Redis.from_url(redis_url)
    (worker,) = workers.start(redis_url, worker_class=WORKER)
    workers.start(redis_url, worker_class=WORKER, scheduler=False, queues=("artemia-send",))  # the sender
    wait_for(lambda: health.health(connection, settings)["ok"], 30, "a healthy service")
    children = [int(p) for p in open(f"/proc/{worker.pid}/task/{worker.pid}/children").read().split()]
    assert children, "the worker runs its scheduler in a child process"

    os.kill(worker.pid, signal.SIGKILL)  # the worker alone, not its process group: its scheduler is left behind
    worker.wait()
    killed = time.monotonic()
    wait_for(lambda: not any(alive(pid) for pid in children), 5, "the scheduler to die with its worker")
    assert not any(connection.exists(health.SCHEDULER_LOCK + q) for q in ("artemia", "artemia-send"))  # released
    # no scheduler: a warning at once (a healthy worker's scheduler would take the locks over; none is left here,
    # and the sweeper's stale heartbeat makes it a reason once timed jobs have failed to fire for that long)
    assert "no RQ scheduler holds the lock of queue artemia" in " | ".join(
        health.health(connection, settings)["warnings"]
    )

    def dead_worker_noticed():
        reasons = " | ".join(health.health(connection, settings)["reasons"]) + " |"
        return "takes queue artemia |" in reasons and reasons

    reasons = wait_for(dead_worker_noticed, 30, "the dead worker on /healthz")
    noticed = time.monotonic() - killed
    assert "takes queue artemia-send" not in reasons  # the sender is fine
    assert noticed <= settings.health_worker_stale_seconds + 2  # the heartbeat's age alone, nothing after it


def test_healthz_stays_ok_while_a_healthy_worker_takes_over_the_scheduler(redis_url, ctx_for, workers):
    """Issue 39, point 7: the worker holding the scheduler's locks dies while another healthy one runs: the service
    can still do its job (the other takes the locks over at its next maintenance), so health says ok throughout."""
    ctx = ctx_for(redis_url)
    settings = ctx.settings.model_copy(update={"health_worker_stale_seconds": 5})
    connection = redis.Redis.from_url(redis_url)
    pair = workers.start(redis_url, n=2, worker_class=WORKER)
    wait_for(lambda: health.health(connection, settings)["ok"], 30, "a healthy service")

    def scheduling(proc) -> bool:  # RQ runs a worker's scheduler in a child process, once it holds the locks
        return bool(open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split())

    holder = wait_for(lambda: next((p for p in pair if scheduling(p)), None), 30, "a worker to hold the locks")
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    lockless, started = [], time.monotonic()
    while time.monotonic() - started < 15:
        result = health.health(connection, settings)
        assert result["ok"], result["reasons"]
        lockless += [bool(result["warnings"])]
        time.sleep(0.5)
    assert any(lockless)  # the locks were free for a while: the old health said 503 for all of it
