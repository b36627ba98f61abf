"""The SMS seats' outbox messages: who gets what after a step, in the number's language and setting."""

import fakeredis
import pytest

from service.channels.sms.directory import Directory
from service.channels.sms.render import reminder_messages, step_messages
from service.channels.sms.text import cost
from service.game import new_game

ANNA, BEDA = "+420601000001", "+420601000002"
DEADLINE = 1_900_000_000.0


@pytest.fixture
def directory():
    return Directory(fakeredis.FakeRedis(server=fakeredis.FakeServer()))


@pytest.fixture
def game():
    return new_game({"players": 3, "seed": 7, "side": 1, "expert": False})


META = {"code": "K7QX", "players": {"0": {"chat": "tg0"}, "1": {"chat": f"sms:{ANNA}"}, "2": {"chat": f"sms:{BEDA}"}}}
REVEAL = [
    {"type": "reveal", "turn": 1, "played": {"1": [3], "2": [5]}, "visible_to": None},
    {"type": "played", "seat": 2, "cards": [5], "visible_to": [2]},
]


def test_asked_seats_get_the_question_and_only_sms_seats_get_anything(game, directory):
    out = step_messages(META, game, [], [1, 2], DEADLINE, directory)
    assert [(m["chat"], m["seat"], m["group"]) for m in out] == [(f"sms:{ANNA}", 1, False), (f"sms:{BEDA}", 2, False)]
    assert all(m["text"].startswith("K7QX T1 Exploration: play ") and " By " in m["text"] for m in out)


def test_a_seat_not_asked_gets_the_news_only_when_there_is_some(game, directory):
    out = step_messages(META, game, REVEAL, [1], DEADLINE, directory)
    assert out[1] == {
        "chat": f"sms:{BEDA}",
        "text": "K7QX Places: p1 3, p2 5.",
        "buttons": None,
        "seat": 2,
        "group": False,
    }
    assert [m["seat"] for m in step_messages(META, game, [], [1], DEADLINE, directory)] == [1]


def test_each_number_gets_its_language_and_ascii_setting(game, directory):
    directory.set_prefs(ANNA, 86400, lang="cs")
    directory.set_prefs(BEDA, 86400, lang="cs", ascii=True)
    anna, beda = (m["text"] for m in step_messages(META, game, REVEAL, [1, 2], DEADLINE, directory))
    assert anna.startswith("K7QX K1 Průzkum: hraj ") and cost(anna).encoding == "UCS-2"
    assert beda.startswith("K7QX K1 Pruzkum: hraj ") and cost(beda).encoding == "GSM-7"
    assert beda.endswith("Lokace: h1 3, h2 5.")


def test_reminders_repeat_the_question_for_the_late_sms_seats_only(game, directory):
    out = reminder_messages(META, game, [0, 2], DEADLINE, directory)
    assert [m["chat"] for m in out] == [f"sms:{BEDA}"]
    assert out[0]["text"].startswith("! K7QX T1 Exploration: play ")


def test_the_game_code_defaults_to_the_game_id(game, directory):
    meta = {"players": META["players"]}
    assert step_messages(meta, game, [], [1], DEADLINE, directory, game_id="G42")[0]["text"].startswith("G42 T1 ")
