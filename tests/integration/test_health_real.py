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
    assert not health.health(connection, settings)["ok"]  # no scheduler: at once

    def dead_worker_noticed():
        reasons = " | ".join(health.health(connection, settings)["reasons"]) + " |"
        return "takes queue artemia |" in reasons and reasons

    reasons = wait_for(dead_worker_noticed, 30, "the dead worker on /healthz")
    noticed = time.monotonic() - killed
    assert "takes queue artemia-send" not in reasons  # the sender is fine
    assert noticed <= settings.health_worker_stale_seconds + 2  # the heartbeat's age alone, nothing after it
