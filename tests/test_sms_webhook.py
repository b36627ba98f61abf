"""``POST /sms/twilio``: signatures, duplicate deliveries, TwiML, keywords and bad input, on the real pipeline."""

from fake_twilio import twilio_signature
from sms_support import URL, redis_state, world_fixtures

from service.channels.sms.inbound import inbound_from_twilio, twiml
from service.store import keys

ANNA, BEDA, CYRIL = "+447700000001", "+447700000002", "+447700000003"


served, world = world_fixtures("webhook-token", seed=1)


def test_twiml_is_escaped_xml_and_empty_when_there_is_no_reply():
    response = twiml('play 3 <River> & "more"')
    assert response.media_type == "text/xml"
    assert response.body.decode() == (
        '<?xml version="1.0" encoding="UTF-8"?><Response><Message>'
        'play 3 &lt;River&gt; &amp; "more"</Message></Response>'
    )
    assert twiml(None).body.decode() == '<?xml version="1.0" encoding="UTF-8"?><Response/>'


def test_inbound_is_normalised():
    message = inbound_from_twilio(
        {"From": ["+44 7700-000-001"], "Body": ["  play 3 "], "MessageSid": ["SM1"]}, 1_900_000_000.0
    )
    assert (message.channel, message.sender, message.text, message.provider_msg_id) == ("sms", ANNA, "play 3", "SM1")
    assert message.received_at.tzinfo is not None
    assert inbound_from_twilio({"From": ["ArtemiaInfo"], "Body": ["x"], "MessageSid": ["SM2"]}, 0) is None
    assert inbound_from_twilio({"From": [ANNA], "Body": ["x"]}, 0) is None


def test_a_bad_signature_is_403_and_changes_nothing(world):
    before = redis_state(world.ctx.store.redis, ignore=(b"artemia:metrics",))
    assert world.text(ANNA, "NEW", token="not-the-token").status_code == 403
    form = {"MessageSid": "SM9", "From": ANNA, "Body": "NEW"}
    assert world.post(form).status_code == 403  # no signature at all
    assert (
        world.post(form, twilio_signature(world.twilio.auth_token, "https://evil.example/sms/twilio", form)).status_code
        == 403
    )
    assert (
        world.post(
            form,
            twilio_signature(world.twilio.auth_token, str(world.client.base_url).rstrip("/") + "/sms/twilio", form),
        ).status_code
        == 403
    )  # not the public URL
    signed = twilio_signature(world.twilio.auth_token, URL, form)
    assert world.post({**form, "Body": "STOP"}, signed).status_code == 403  # tampered
    assert redis_state(world.ctx.store.redis, ignore=(b"artemia:metrics",)) == before  # not even a MessageSid


def test_the_public_url_setting_is_what_is_signed(world):
    world.endpoint.settings = world.endpoint.settings.model_copy(
        update={"sms_public_url": "https://public.example/prefix"}
    )
    assert world.text(ANNA, "HELP").status_code == 403  # signed for the old public URL
    form = {"MessageSid": "SM77", "From": ANNA, "Body": "HELP"}
    signed = twilio_signature(world.twilio.auth_token, "https://public.example/prefix/sms/twilio", form)
    assert world.post(form, signed).status_code == 200


def test_forwarded_headers_are_believed_only_from_the_allowed_proxies(world):
    """SMS_TRUST_PROXY: X-Forwarded-Proto/Host choose the signed URL only when the peer (here 127.0.0.1) is one of
    FORWARDED_ALLOW_IPS; anyone else would choose the URL the signature is checked against."""
    form = {"MessageSid": "SM78", "From": ANNA, "Body": "HELP"}
    chosen = "https://chosen.example/sms/twilio"
    forwarded = {"X-Twilio-Signature": twilio_signature(world.twilio.auth_token, chosen, form)}
    forwarded |= {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "chosen.example"}
    settings = world.endpoint.settings.model_copy(update={"sms_public_url": None, "sms_trust_proxy": True})
    world.endpoint.settings = settings.model_copy(update={"forwarded_allow_ips": "10.0.0.0/8, 192.168.1.7"})
    assert world.client.post("/sms/twilio", data=form, headers=forwarded).status_code == 403
    world.endpoint.settings = settings.model_copy(update={"forwarded_allow_ips": "127.0.0.1,::1"})
    assert world.client.post("/sms/twilio", data=form, headers=forwarded).status_code == 200


def test_a_repeated_message_sid_is_dropped(world):
    first = world.reply(ANNA, "NEW 3", sid="SMdup")
    assert first.startswith("Game ") and "JOIN" in first
    lobbies = world.ctx.store.redis.keys("artemia:lobby:*")
    assert world.reply(ANNA, "NEW 3", sid="SMdup") == ""  # Twilio's retry: acknowledged, nothing done
    assert world.ctx.store.redis.keys("artemia:lobby:*") == lobbies


def test_help_and_unknown_numbers_and_garbage_get_one_helpful_reply(world):
    assert "NEW" in world.reply(ANNA, "help") and "STOP" in world.reply(ANNA, "INFO")
    before = redis_state(world.ctx.store.redis)
    assert world.reply(BEDA, "play 3").startswith("You are in no game")
    assert world.reply(BEDA, "asdf qwer").startswith("You are in no game")
    assert world.reply(BEDA, "").startswith("You are in no game")
    assert world.reply(BEDA, "JOIN ZZ99").startswith("There is no game ZZ99")
    assert world.reply(BEDA, "GO").startswith("You have no game waiting")
    assert redis_state(world.ctx.store.redis) == before


def code_of(reply: str) -> str:
    return reply.split()[1]  # "Game K7QX is open for 3. ..."


def test_new_join_go_start_a_game_with_bots_in_empty_seats(world):
    code = code_of(world.reply(ANNA, "NEW 4 fast"))
    assert world.reply(BEDA, f"join {code.lower()}").startswith(f"You joined {code} (2/4)")
    assert world.reply(BEDA, f"JOIN {code}").startswith(f"You are already in {code}")
    assert world.reply(BEDA, f"GO {code}").startswith(f"{code} starts when ")  # and who starts it
    assert world.reply(ANNA, "GO").startswith(f"{code} has begun. You are ")
    assert world.reply(CYRIL, f"JOIN {code}").startswith(f"Game {code} has already begun")
    meta = world.ctx.store.meta(code)
    assert meta["deadline_seconds"] == 3600 and len(meta["bots"]) == 2
    assert world.ctx.store.load(code).status in ("collecting", "resolving")
    seats = {number: dict(world.lobby.games_of(f"sms:{number}"))[code] for number in (ANNA, BEDA)}
    assert {meta["players"][str(s)]["chat"] for s in seats.values()} == {f"sms:{ANNA}", f"sms:{BEDA}"}


def test_a_command_for_a_game_the_number_is_not_in(world):
    code = code_of(world.reply(ANNA, "NEW 2"))
    world.reply(BEDA, f"JOIN {code}")
    other = "AB12" if code != "AB12" else "CD34"
    assert world.reply(ANNA, f"{other} play 3") == f"You are not in game {other}. Your games: {code}."
    assert world.reply(CYRIL, f"{code} play 3").startswith("You are in no game. Text NEW")


def test_settings_ascii_and_language(world):
    assert world.reply(ANNA, "LANG CS") == "OK: česky. SMS bez diakritiky jsou levnější: ASCII ON."
    assert world.reply(ANNA, "ASCII ON") == "OK: zpravy bez diakritiky."
    assert world.reply(ANNA, "play 3").startswith("Nejsi v zadne hre")
    assert world.reply(ANNA, "ascii off") == "OK: zprávy s diakritikou."
    assert world.reply(ANNA, "ASCII AUTO") == "OK: diakritika jen tam, kde SMS nezdraží."  # one segment either way
    assert world.endpoint.directory.prefs(ANNA).accents is False  # back to the default


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
    assert [g for g, _ in world.lobby.games_of(f"sms:{ANNA}")] == [second, first]
    assert world.reply(ANNA, "?").startswith(f"{second} T")
    assert world.reply(ANNA, f"{first.lower()} ?").startswith(f"{first} T")
    assert world.reply(ANNA, first).startswith(f"{first} T")  # the code alone: the current question
    assert world.reply(BEDA, "status").startswith(f"{first} T")


def test_czech_keywords_with_or_without_diacritics(world):
    assert world.reply(ANNA, "JAZYK CS") == "OK: česky. SMS bez diakritiky jsou levnější: ASCII ON."
    assert world.reply(ANNA, "NÁPOVĚDA").startswith("Artemia, Nejsme tu sami po SMS. NOVA")
    assert world.reply(ANNA, "napoveda").startswith("Artemia, Nejsme tu sami")
    opened = world.reply(ANNA, "NOVÁ 3 rychle")
    code = code_of(opened)
    assert opened.startswith(f"Hra {code} je zalozena pro 3") and f"PRIPOJ {code}" in opened  # cheaper so
    world.reply(BEDA, "LANG CS")
    assert world.reply(BEDA, f"PŘIPOJ {code}").startswith(f"Jsi ve hře {code} (2/3)")
    assert world.reply(CYRIL, f"pripoj {code}").startswith(f"{code} zacala. Hrajes za: ")  # full: it begins
    assert world.ctx.store.meta(code)["deadline_seconds"] == 3600
    assert world.reply(ANNA, "ZAČNI").startswith(f"Hra {code} už začala")
    assert world.reply(ANNA, "NOVA").startswith("Hra ")
    assert world.reply(ANNA, "BYTOST").startswith("OK: ve hře ")


def test_the_creature_keyword_alone_or_with_a_code_else_a_hunt_command(world):
    code = code_of(world.reply(ANNA, "NEW"))
    world.reply(BEDA, f"JOIN {code}")
    assert world.reply(BEDA, f"creature {code.lower()}") == f"OK: you will be the Creature in {code}."
    assert world.lobby.get(code).creature == f"sms:{BEDA}"
    assert world.reply(ANNA, "GO").startswith(f"{code} has begun. You are Hunted 1")
    world.pump()
    said = world.reply(ANNA, "creature 3 artemia 5")  # not a keyword: the hunt command (not Anna's to give)
    assert said.startswith(f"{code}: ") and "Creature in" not in said


def test_join_with_a_name_and_leave(world):
    code = code_of(world.reply(ANNA, "NEW Anna"))
    assert world.reply(BEDA, f"JOIN {code} Beda Nováková").startswith(f"You joined {code}")
    assert [p.name for p in world.lobby.get(code).players] == ["Anna", "Beda Nováková"]
    assert world.reply(BEDA, f"LEAVE {code}") == f"You left {code}."
    assert world.reply(ANNA, "GO").startswith(f"{code} needs 2 to 7 players")


def test_a_stranger_is_answered_in_the_language_of_their_number_or_of_their_words(world):
    """A Czech number gets Czech until it chooses (LANG); a number abroad gets English, but a Czech keyword from
    it ("NÁPOVĚDA") is answered in Czech."""
    assert world.reply("+420601999001", "HELP").startswith("Artemia, Nejsme tu sami po SMS.")
    assert world.reply("+420601999001", "NEW").startswith("Hra ")
    assert world.reply("+420601999002", "LANG EN") == "OK: English."
    assert world.reply("+420601999002", "HELP").startswith("Artemia, Not Alone by SMS.")
    assert world.reply("+447700999003", "HELP").startswith("Artemia, Not Alone by SMS.")
    assert world.reply("+447700999003", "NÁPOVĚDA").startswith("Artemia, Nejsme tu sami po SMS.")
    assert world.reply("+447700999003", "HELP").startswith("Artemia, Not Alone by SMS.")  # nothing was stored
