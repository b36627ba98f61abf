"""The real redis-server of the integration and end-to-end tests (started by tools/with-redis.sh), a database of
its own per test, and polling for what real processes do asynchronously."""

import itertools
import os
import time

import pytest
import redis

_databases = itertools.cycle(range(1, 16))


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
