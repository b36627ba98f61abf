"""Every test reads the settings afresh: the service reads them once per process (`get_settings` is cached), and
tests change the environment with monkeypatch."""

import pytest

from service.config import get_settings


@pytest.fixture(autouse=True)
def fresh_settings():
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()
