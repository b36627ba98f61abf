"""Registering the webhook and the command menus, against the fake Bot API."""

import pytest

from service.channels.telegram import register as telegram_register
from tests.telegram_support import api, server  # noqa: F401 - fixtures


def test_register_sets_the_webhook_and_commands_per_language(api, monkeypatch):
    monkeypatch.setenv("ARTEMIA_WEBHOOK_SECRET", "s3cret_-token")
    assert telegram_register.main(["--url", "https://artemia.example/telegram/webhook"]) == 0
    hook = api.sent("setWebhook")[0]["params"]
    assert hook["url"] == "https://artemia.example/telegram/webhook"
    assert hook["secret_token"] == "s3cret_-token"
    assert hook["allowed_updates"] == ["message", "callback_query", "my_chat_member"]
    menus = {
        (c["params"].get("language_code"), c["params"]["scope"]["type"]): c["params"]["commands"]
        for c in api.sent("setMyCommands")
    }
    assert set(menus) == {
        (lang, scope) for lang in (None, "cs", "sk") for scope in ("all_group_chats", "all_private_chats")
    }
    english = {c["command"]: c["description"] for c in menus[None, "all_group_chats"]}
    czech = {c["command"]: c["description"] for c in menus["cs", "all_group_chats"]}
    assert (
        set(english)
        == set(czech)
        >= {"newgame", "join", "leave", "creature", "settings", "begin", "status", "cancel", "help", "rules"}
    )
    assert english["newgame"] != czech["newgame"]


@pytest.mark.parametrize("secret", ["", "has space", "x" * 257])
def test_register_refuses_a_bad_secret(api, monkeypatch, secret):
    monkeypatch.setenv("ARTEMIA_WEBHOOK_SECRET", secret)
    with pytest.raises(SystemExit):
        telegram_register.main(["--url", "https://artemia.example/telegram/webhook"])
    assert api.calls == []
