"""Fixtures shared by the Telegram tests: the fake Bot API served on 127.0.0.1 with the environment pointing
the sender at it (module-scoped server, state reset for each test)."""

import pytest

from service.channels.telegram import sender as telegram_send
from service.config import get_settings
from tests.fake_bot_api import FakeBotAPI, serve


@pytest.fixture(scope="module")
def server():
    fake = FakeBotAPI()
    with serve(fake) as base_url, pytest.MonkeyPatch.context() as env:
        env.setenv("TELEGRAM_API_BASE_URL", base_url)
        env.setenv("TELEGRAM_BOT_TOKEN", fake.token)
        get_settings.cache_clear()
        telegram_send.close()  # a client another test started (a worker's `warm`) talks to another server
        yield fake
        telegram_send.close()
    get_settings.cache_clear()


@pytest.fixture
def api(server):
    server.reset()
    return server
