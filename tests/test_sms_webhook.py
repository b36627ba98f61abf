"""``POST /sms/twilio``: signatures, duplicate deliveries, TwiML, keywords and bad input, on the real pipeline."""

import pytest
from fake_twilio import FakeTwilio, serve, twilio_signature
from sms_support import URL, world_of

from service.channels.sms import inbound_from_twilio, twiml
from service.store import keys

ANNA, BEDA, CYRIL = "+420601000001", "+420601000002", "+420601000003"


@pytest.fixture(scope="module")
def served():
    fake = FakeTwilio(auth_token="webhook-token")
    with serve(fake.app) as base_url:
        yield fake, base_url


@pytest.fixture
def world(served, monkeypatch):
    fake, base_url = served
    fake.sent.clear()
    with world_of(fake, base_url, monkeypatch) as world:
        yield world


def test_twiml_is_escaped_xml_and_empty_when_there_is_no_reply():
    response = twiml('play 3 <River> & "more"')
    assert response.media_type == "text/xml"
    assert response.body.decode() == ('<?xml version="1.0" encoding="UTF-8"?><Response><Message>'
                                      'play 3 &lt;River&gt; &amp; "more"</Message></Response>')
    assert twiml(None).body.decode() == '<?xml version="1.0" encoding="UTF-8"?><Response/>'


def test_inbound_is_normalised():
    message = inbound_from_twilio({"From": ["+420 601-000-001"], "Body": ["  play 3 "], "MessageSid": ["SM1"]},
                                  1_900_000_000.0)
    assert (message.channel, message.sender, message.text, message.provider_msg_id) == \
        ("sms", ANNA, "play 3", "SM1")
    assert message.received_at.tzinfo is not None
    assert inbound_from_twilio({"From": ["ArtemiaInfo"], "Body": ["x"], "MessageSid": ["SM2"]}, 0) is None
    assert inbound_from_twilio({"From": [ANNA], "Body": ["x"]}, 0) is None


def test_a_bad_signature_is_403_and_changes_nothing(world):
    before = sorted(world.ctx.store.redis.keys())
    assert world.text(ANNA, "NEW", token="not-the-token").status_code == 403
    form = {"MessageSid": "SM9", "From": ANNA, "Body": "NEW"}
    assert world.post(form).status_code == 403  # no signature at all
    assert world.post(form, twilio_signature(world.twilio.auth_token, "https://evil.example/sms/twilio",
                                             form)).status_code == 403
    assert world.post(form, twilio_signature(world.twilio.auth_token, str(world.client.base_url).rstrip("/")
                                             + "/sms/twilio", form)).status_code == 403  # not the public URL
    signed = twilio_signature(world.twilio.auth_token, URL, form)
    assert world.post({**form, "Body": "STOP"}, signed).status_code == 403  # tampered
    assert sorted(world.ctx.store.redis.keys()) == before


def test_the_public_url_setting_is_what_is_signed(world):
    world.endpoint.settings = world.endpoint.settings.model_copy(
        update={"sms_public_url": "https://public.example/prefix"})
    assert world.text(ANNA, "HELP").status_code == 403  # signed for the old public URL
    form = {"MessageSid": "SM77", "From": ANNA, "Body": "HELP"}
    signed = twilio_signature(world.twilio.auth_token, "https://public.example/prefix/sms/twilio", form)
    assert world.post(form, signed).status_code == 200


def test_a_repeated_message_sid_is_dropped(world):
    first = world.reply(ANNA, "NEW 3", sid="SMdup")
    assert first.startswith("Game ") and "JOIN" in first
    lobbies = world.ctx.store.redis.keys("artemia:sms:lobby:*")
    assert world.reply(ANNA, "NEW 3", sid="SMdup") == ""  # Twilio's retry: acknowledged, nothing done
    assert world.ctx.store.redis.keys("artemia:sms:lobby:*") == lobbies


def test_help_and_unknown_numbers_and_garbage_get_one_helpful_reply(world):
    assert "NEW" in world.reply(ANNA, "help") and "STOP" in world.reply(ANNA, "INFO")
    before = sorted(world.ctx.store.redis.keys())
    assert world.reply(BEDA, "play 3").startswith("You are in no game")
    assert world.reply(BEDA, "asdf qwer").startswith("You are in no game")
    assert world.reply(BEDA, "").startswith("You are in no game")
    assert world.reply(BEDA, "JOIN ZZ99").startswith("There is no game ZZ99")
    assert world.reply(BEDA, "GO").startswith("You have no game waiting")
    after = {k for k in world.ctx.store.redis.keys() if not k.startswith(b"artemia:sms:sid:")}
    assert after == {k for k in before if not k.startswith(b"artemia:sms:sid:")}


def code_of(reply: str) -> str:
    return reply.split()[1]  # "Game K7QX is open for 3. ..."


def test_new_join_go_start_a_game_with_bots_in_empty_seats(world):
    code = code_of(world.reply(ANNA, "NEW 4 fast"))
    assert world.reply(BEDA, f"join {code.lower()}").startswith(f"You joined {code} (2/4)")
    assert world.reply(BEDA, f"JOIN {code}").startswith(f"You are already in {code}")
    assert world.reply(BEDA, f"GO {code}").startswith("Only whoever opened")
    assert world.reply(ANNA, "GO").startswith(f"{code} has begun. You are ")
    assert world.reply(CYRIL, f"JOIN {code}").startswith(f"Game {code} has already begun")
    meta = world.ctx.store.meta(code)
    assert meta["deadline_seconds"] == 3600 and len(meta["bots"]) == 2
    assert world.ctx.store.load(code).status in ("collecting", "resolving")
    seats = {number: dict(world.endpoint.directory.games(number))[code] for number in (ANNA, BEDA)}
    assert {meta["players"][str(s)]["chat"] for s in seats.values()} == {f"sms:{ANNA}", f"sms:{BEDA}"}


def test_a_command_for_a_game_the_number_is_not_in(world):
    code = code_of(world.reply(ANNA, "NEW 2"))
    world.reply(BEDA, f"JOIN {code}")
    other = "AB12" if code != "AB12" else "CD34"
    assert world.reply(ANNA, f"{other} play 3") == f"You are not in game {other}. Your games: {code}."
    assert world.reply(CYRIL, f"{code} play 3").startswith("You are in no game. Text NEW")


def test_settings_ascii_and_language(world):
    assert world.reply(ANNA, "LANG CS") == "OK: česky."
    assert world.reply(ANNA, "ASCII ON") == "OK: zpravy bez diakritiky."
    assert world.reply(ANNA, "play 3").startswith("Nejsi v zadne hre")
    assert world.reply(ANNA, "ascii off") == "OK: zprávy s diakritikou."


def test_an_error_while_handling_releases_the_message_sid(world, monkeypatch):
    def boom(*args):
        raise RuntimeError("redis went away")

    monkeypatch.setattr(world.endpoint.router, "handle", boom)
    assert world.text(ANNA, "NEW", sid="SMfail").status_code == 500
    assert not world.ctx.store.redis.exists("artemia:sms:sid:SMfail")  # Twilio's retry will be handled
    assert world.ctx.store.redis.keys(keys.snap("*")) == []


def test_a_number_in_two_games_picks_by_code_or_the_most_recent_one(world):
    first = code_of(world.reply(ANNA, "NEW 2"))
    world.reply(BEDA, f"JOIN {first}")
    world.clock.advance(60)
    second = code_of(world.reply(ANNA, "NEW 2"))
    world.reply(CYRIL, f"JOIN {second}")
    assert [g for g, _ in world.endpoint.directory.games(ANNA)] == [second, first]
    assert world.reply(ANNA, "?").startswith(f"{second} T")
    assert world.reply(ANNA, f"{first.lower()} ?").startswith(f"{first} T")
    assert world.reply(ANNA, first).startswith(f"{first} T")  # the code alone: the current question
    assert world.reply(BEDA, "status").startswith(f"{first} T")
