"""Fixtures of the end-to-end tests: the test redis-server (a database of its own per test), the fake Bot API
served on 127.0.0.1, and the stack (web + workers) started per test and stopped after it."""

import itertools
import os

import pytest
import redis

from tests.fake_bot_api import FakeBotAPI, serve

_databases = itertools.cycle(range(1, 16))


@pytest.fixture(scope="session")
def redis_server():
    url = os.environ.get("ARTEMIA_TEST_REDIS_URL")
    if not url:
        pytest.skip("ARTEMIA_TEST_REDIS_URL is not set: run through tools/with-redis.sh (make test)")
    return url.rsplit("/", 1)[0]


@pytest.fixture
def redis_url(redis_server):
    url = f"{redis_server}/{next(_databases)}"
    redis.Redis.from_url(url).flushdb()
    return url


@pytest.fixture(scope="module")
def bot_api_server():
    fake = FakeBotAPI()
    with serve(fake) as base_url:
        yield fake, base_url


@pytest.fixture
def bot_api(bot_api_server):
    fake, base_url = bot_api_server
    fake.reset()
    return fake, base_url


@pytest.fixture
def stacks():
    """Start stacks with ``stacks(Stack(...))``; all are stopped after the test."""
    from e2e_support import Stack  # noqa: F401  (tests/e2e is on sys.path)

    started = []

    def start(stack, workers=2):
        started.append(stack)
        return stack.start(workers)

    yield start
    for stack in started:
        stack.stop()
