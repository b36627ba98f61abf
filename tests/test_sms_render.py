"""The SMS seats' outbox messages: who gets what after a step, in the number's language and setting."""

import fakeredis
import pytest

from service.channels.sms.directory import Directory
from service.channels.sms.render import reminder_messages, step_messages
from service.channels.sms.text import cost
from service.game import new_game
from service.pipeline.outbox import fold_into

ANNA, BEDA = "+447700000001", "+447700000002"
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


def test_a_seat_not_asked_gets_the_news_only_when_there_is_some_held_for_its_next_message(game, directory):
    out = step_messages(META, game, REVEAL, [1], DEADLINE, directory)
    text = "K7QX T1 Places: p1 3, p2 5."
    assert out[1] == {
        "chat": f"sms:{BEDA}",
        "text": text,  # the code and the turn first, as every SMS
        "buttons": None,
        "seat": 2,
        "group": False,
        "fold_at": len("K7QX T1"),
        "fold_room": 160 - len(text),
        "fold_gsm": True,
        "hold_until": DEADLINE,  # held at most until the deadline of the window now open (outbox.hold)
        "fold_text": "Places: p1 3, p2 5.",
        "fold_size": len("Places: p1 3, p2 5."),
    }
    assert "hold_until" not in out[0]  # a question is never held
    quiet = step_messages(META, game, [], [1], DEADLINE + 600, directory)
    assert [m["seat"] for m in quiet] == [1, 2]  # no news for seat 2: a marker, never sent (outbox.hold)
    assert quiet[1]["keep"] and quiet[1]["hold_until"] == DEADLINE + 600
    kept = fold_into(out[1], quiet[1], "b:1")  # its held news waits one window longer for the next question
    assert kept == out[1] | {"hold_until": DEADLINE + 600, "extended": True, "folded": ["b:1"]}
    assert fold_into(kept, quiet[1], "b:2") is None  # once: a second marker sends it


def test_held_news_rides_on_the_question_after_it_when_it_fits(game, directory):
    (news,) = [m for m in step_messages(META, game, REVEAL, [1], DEADLINE, directory) if m["seat"] == 2]
    question = next(m for m in step_messages(META, game, [], [2], DEADLINE, directory) if m["seat"] == 2)
    merged = fold_into(news, question)
    assert merged is not None and merged["text"].startswith("K7QX T1 Exploration: play ")
    assert merged["text"].endswith(". Places: p1 3, p2 5.") and cost(merged["text"]).segments == 1
    directory.set_prefs(BEDA, 86400, lang="cs")  # Czech with accents: UCS-2 news never goes into a GSM-7 text
    (czech,) = [m for m in step_messages(META, game, REVEAL, [1], DEADLINE, directory) if m["seat"] == 2]
    assert czech["fold_gsm"] is True  # "Lokace: h1 3, h2 5." has no accent
    assert fold_into({**czech, "fold_gsm": False}, {**question, "fold_gsm": True}) is None


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
