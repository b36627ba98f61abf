"""The real redis-server of the integration and end-to-end tests (started by tools/with-redis.sh, or one per
pytest-xdist worker: `Server`), a database of its own per test, and polling for what real processes do
asynchronously."""

import itertools
import os
import shutil
import subprocess
import tempfile
import time

import pytest
import redis

from service.ops.backup import free_port, server_binary  # (one way to find a port and the server, the tests' too)


def _own_databases() -> range:
    """This pytest-xdist worker's share of databases 1-15 on the shared server: two workers cycling through the
    same numbers flushed each other's databases under a long test (a lost resolution log, once in a run)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    index = int(worker) if worker.isdigit() else 0
    share = max(1, 15 // max(1, count))
    first = 1 + (index * share) % 15
    return range(first, min(16, first + share))


_databases = itertools.cycle(_own_databases())


def server_url() -> str:
    """The test server's URL without a database; the test fails when make test did not start one (these tests
    need a real redis-server: there is nothing to skip to)."""
    url = os.environ.get("ARTEMIA_TEST_REDIS_URL")
    if not url:
        pytest.fail("ARTEMIA_TEST_REDIS_URL is not set: run through tools/with-redis.sh (make test)")
    return url.rsplit("/", 1)[0]


def fresh_database(server: str) -> str:
    """The URL of the next database on ``server``, flushed."""
    url = f"{server}/{next(_databases)}"
    redis.Redis.from_url(url).flushdb()
    return url


def wait_for(predicate, timeout: float, what: str, interval: float = 0.05):
    """Poll ``predicate`` until it gives a truthy value (returned), or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class Server:
    """A private redis-server on a free loopback port with a directory of its own (AOF on), which a test may kill
    and start again on the same port and data: ``url``, ``port``, ``dir``, ``start()``, ``kill()``, ``stop()``."""

    def __init__(self, appendfsync: str = "always", port: int | None = None):
        self.port = port or free_port()
        self.dir = tempfile.mkdtemp(prefix="artemia-redis-")
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.appendfsync = appendfsync
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Server":
        args = [server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir]
        args += ["--appendonly", "yes", "--appendfsync", self.appendfsync, "--save", "", "--daemonize", "no"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
        client = redis.Redis(port=self.port)
        wait_for(lambda: _pings(client), 10, f"redis-server on port {self.port}")
        return self

    def kill(self) -> None:
        """SIGKILL: no chance to flush anything more."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False
