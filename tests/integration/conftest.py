"""Fixtures for the integration tests: a real redis-server (from tools/with-redis.sh) and real RQ worker
processes (`rq worker --with-scheduler -S json`), each test on a database of its own."""

import os
import pathlib
import signal
import subprocess
import sys

import pytest
import redis
from rq import Worker

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # pipeline_support

from pipeline_support import RealTime, make_ctx  # noqa: E402

from tests import real_redis  # noqa: E402
from tests.real_redis import wait_for  # noqa: E402

# Worker settings: fast failure detection, a quick sweeper, and no send budget (the budget has unit tests).
WORKER_ENV = {
    "ARTEMIA_SENDER": "recording",
    "ARTEMIA_MIN_DEADLINE_SECONDS": "1",
    "ARTEMIA_SWEEP_INTERVAL_SECONDS": "1",
    "ARTEMIA_RESOLVE_GRACE_SECONDS": "3",
    "ARTEMIA_RATE_GLOBAL_PER_SECOND": "100000",
    "ARTEMIA_RATE_PRIVATE_PER_SECOND": "100000",
    "ARTEMIA_RATE_GROUP_PER_MINUTE": "1000000",
    "ARTEMIA_OUTBOX_KEEP_SENT": "1",  # audit mode: every stored message is checked against what was sent
}


@pytest.fixture(scope="session")
def server_url():
    return real_redis.server_url()


@pytest.fixture
def redis_url(server_url):
    """A flushed database of its own on the test server."""
    return real_redis.fresh_database(server_url)


@pytest.fixture
def ctx_for():
    """A pipeline context on a real Redis URL, with settings matching the workers' (``shards``: the URLs of the game
    shards, ``url`` then the index's)."""

    def make(url, shards: list[str] | None = None):
        return make_ctx(
            redis.Redis.from_url(url),
            clock=RealTime(),
            shards=[redis.Redis.from_url(shard) for shard in shards] if shards else None,
            **{k[len("ARTEMIA_") :].lower(): v for k, v in WORKER_ENV.items()},
        )

    return make


class Workers:
    """Real `rq worker` processes, each in a session of its own so it can be killed outright."""

    def __init__(self):
        self.procs: list[subprocess.Popen] = []

    def start(
        self,
        url: str,
        n: int = 1,
        simple: bool = False,
        scheduler: bool = True,
        worker_class: str | None = None,
        queues: tuple[str, ...] = ("artemia", "artemia-refresh", "artemia-send", "artemia-draw"),
        maintenance_interval: int = 5,
        **env,
    ):
        started = []
        for _ in range(n):
            cmd = [
                sys.executable,
                "-m",
                "rq.cli",
                "worker",
                "-c",
                "workers.rqconfig",
                "-S",
                "json",
                "--worker-ttl",
                "10",
                "--maintenance-interval",
                str(maintenance_interval),
                "--logging_level",
                "WARNING",
                "-u",
                url,
            ]
            cmd += ["--with-scheduler"] if scheduler else []
            cmd += ["-w", worker_class or "rq.worker.SimpleWorker"] if simple or worker_class else []
            full_env = {**os.environ, **WORKER_ENV, **env, "PYTHONPATH": str(ROOT)}
            started.append(subprocess.Popen(cmd + list(queues), env=full_env, cwd=ROOT, start_new_session=True))
        self.procs += started
        connection = redis.Redis.from_url(url)
        wait_for(lambda: len(Worker.all(connection=connection)) >= len(self.alive()), 20, "workers to register")
        return started

    def alive(self) -> list[subprocess.Popen]:
        return [p for p in self.procs if p.poll() is None]

    def kill(self, proc: subprocess.Popen) -> None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def stop_all(self) -> None:
        for proc in self.alive():
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture
def workers():
    pool = Workers()
    yield pool
    pool.stop_all()
