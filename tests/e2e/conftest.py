"""Fixtures of the end-to-end tests: the test redis-server (a database of its own per test), the fake Bot API
served on 127.0.0.1, and the stack (web + workers) started per test and stopped after it."""

import pytest

from tests import real_redis
from tests.fake_bot_api import FakeBotAPI, serve


@pytest.fixture(scope="session")
def redis_server():
    return real_redis.server_url()


@pytest.fixture
def redis_url(redis_server):
    return real_redis.fresh_database(redis_server)


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
