"""Floods and bills (issue 14, point 3), through the real app and pipeline (`sms_support.world`): each sender's
inbound token bucket (one "slow down", then silence until it refills), no word to a number that texted STOP but
to START and HELP, at most a few open tables per sender, a sender's text echoed at most 20 characters, keys of
strangers that expire, a shared budget of replies to strangers, and HELP with the operator's contact.
The counts of the issue's floods, before and after, are `python -m bench.floods` (docs/BENCHMARKS.md)."""

import pytest
from sms_support import redis_state, world_fixtures

from service import commands
from service.channels.sms.text import cost
from service.game import new_game
from service.store import keys

served, world = world_fixtures("flood-token", seed=2)
ANNA, BEDA, CYRIL = "+447700000101", "+447700000102", "+447700000103"
SLOW = "Artemia: too many texts at once. Wait a few minutes; until then your texts are not read."


def limits(world, **settings):
    """Set some flood settings of the world's pipeline (the SMS router and the Telegram handlers read them)."""
    world.ctx.settings = world.ctx.settings.model_copy(update=settings)


def keys_without_ttl(connection) -> list[bytes]:
    return [name for name in connection.scan_iter() if connection.ttl(name) == -1]


def test_past_the_burst_one_slow_down_then_silence_until_the_bucket_refills(world):
    limits(world, inbound_sms_burst=3, inbound_sms_per_minute=2.0)
    for _ in range(3):
        assert world.reply(ANNA, "?").startswith("You are in no game")
    assert world.reply(ANNA, "?") == SLOW
    dropped = keys.inbound_dropped("sms:" + ANNA).encode()

    def state():  # (the count of texts dropped unread aside)
        return {k: v for k, v in redis_state(world.ctx.store.redis).items() if k != dropped}

    before = state()
    for body in ("NEW", "LANG CS", "?", "JOIN K7QX"):
        assert world.reply(ANNA, body) == ""  # neither answered nor read
    assert state() == before  # no table opened, no setting changed
    assert 0 < world.ctx.store.redis.ttl(keys.inbound_bucket("sms:" + ANNA)) <= 92  # gone once full again
    assert world.reply(BEDA, "?").startswith("You are in no game")  # another number has its own bucket
    # HELP is always read and answered, past the bucket (issue 39, point 6); a text dropped unread and an answer
    # accepted both got no reply: the next text read says how many were lost (the one that got "slow down" and the
    # four after it: issue 38, point 14)
    helped = world.reply(ANNA, "HELP")
    assert helped.startswith(
        "Artemia: this text was read, but 5 texts you sent before it were not (too many at once): send them again "
        "if one was an answer. Artemia, Not Alone by SMS."
    ), helped
    assert world.reply(ANNA, "?") == ""  # and it took nothing from the bucket, nor gave any back
    world.clock.advance(30)  # one token back (2 a minute)
    assert world.reply(ANNA, "NEW").startswith(
        "Artemia: this text was read, but 1 text you sent before it was not (too many at once): send it again if it "
        "was an answer. Game "
    )
    assert world.reply(ANNA, "?") == SLOW  # empty again: one "slow down" again, then silence
    assert world.reply(ANNA, "?") == ""
    world.clock.advance(30)
    assert world.reply(ANNA, "?").startswith("Artemia: this text was read, but 2 texts you sent before it were not")
    world.clock.advance(30)
    assert world.reply(ANNA, "?").startswith("You are in no game")  # told once


def test_a_number_that_texted_stop_gets_no_word_but_to_stop_start_and_help(world):
    limits(world, operator_contact="help@artemia.example")
    assert world.reply(ANNA, "NEW 3").startswith("Game ")
    assert world.reply(ANNA, "STOP").startswith("Artemia: no more messages")
    tables = world.ctx.store.redis.keys("artemia:lobby:*")
    for body in ("?", "NEW", "hello", "LANG CS", "play 3"):
        assert world.reply(ANNA, body) == "", body
    assert world.ctx.store.redis.keys("artemia:lobby:*") == tables  # nothing was read
    assert world.reply(ANNA, "STOP").startswith("Artemia: no more messages")  # a carrier keyword is always answered
    assert world.endpoint.directory.prefs(ANNA).stopped and world.endpoint.directory.prefs(ANNA).lang == "en"
    helped = world.reply(ANNA, "HELP")
    assert "help@artemia.example" in helped and helped.endswith("Msg & data rates may apply.")
    assert world.reply(ANNA, "START") == "Artemia: welcome back, your seats are yours again."
    assert world.reply(ANNA, "?") != ""


@pytest.mark.parametrize(
    "lang, stop, start, help_word", [("en", "STOP", "START", "HELP"), ("cs", "STOP", "START", "NAPOVEDA")]
)
def test_stop_start_and_help_pass_a_spent_flood_allowance_and_are_answered(world, lang, stop, start, help_word):
    """Issue 39, point 6: once a number had spent its allowance, START went unanswered and left it stopped."""
    limits(world, inbound_sms_burst=3, inbound_sms_per_minute=2.0)
    if lang == "cs":
        world.reply(ANNA, "JAZYK CS")
    for _ in range(20):
        world.reply(ANNA, "?")
    assert world.reply(ANNA, "?") == ""  # the allowance is spent
    for _ in range(3):  # the keywords pass it, every time
        assert world.reply(ANNA, help_word)
        assert world.reply(ANNA, stop)
        assert world.endpoint.directory.prefs(ANNA).stopped
        welcome = world.reply(ANNA, start)
        assert welcome and not world.endpoint.directory.prefs(ANNA).stopped
    assert welcome.startswith("Artemia: welcome back" if lang == "en" else "Artemia: vítej zpět")
    assert world.reply(ANNA, "?") == ""  # and took nothing from it: the rest still waits for the bucket


def test_help_names_the_operator_and_the_rates_in_english_and_czech(world):
    assert world.reply(ANNA, "HELP").endswith(" Msg & data rates may apply.")  # no contact set: no "Help:"
    limits(world, operator_contact="+420 800 123 456")
    assert "Help: +420 800 123 456. Msg & data rates may apply." in world.reply(ANNA, "HELP")
    world.reply(BEDA, "JAZYK CS")
    czech = world.reply(BEDA, "NAPOVEDA")
    # a long Czech text goes without its accents: with them it would take more segments (sms_text.outgoing)
    assert "Pomoc: +420 800 123 456." in czech and "uctovany poplatky" in czech


def test_at_most_three_open_tables_per_sender(world):
    limits(world, max_open_tables=3)
    codes = [world.reply(ANNA, "NEW").split()[1] for _ in range(3)]
    assert len(set(codes)) == 3
    before = redis_state(world.ctx.store.redis)
    refused = world.reply(ANNA, "NEW")
    assert refused == "You have too many games waiting to start: GO starts one, LEAVE <code> leaves one."
    assert redis_state(world.ctx.store.redis) == before
    world.reply(BEDA, f"JOIN {codes[0]}")
    assert world.reply(ANNA, f"GO {codes[0]}").startswith(f"{codes[0]} has begun")
    assert world.reply(ANNA, "NEW").startswith("Game ")  # one began: a fourth may open
    assert world.ctx.store.redis.ttl(keys.lobby_tables_of("sms:" + ANNA)) > 0


def test_a_telegram_user_has_three_open_tables_at_most_too(world):
    limits(world, max_open_tables=3)
    for n in range(3):
        world.telegram.say(701, "/newgame", chat={"id": -100800 - n, "type": "supergroup", "title": f"G{n}"})
    said = world.telegram.say(701, "/newgame", chat={"id": -100899, "type": "supergroup", "title": "G9"})
    assert said == "You have too many games waiting to begin: /begin or /cancel one first."
    assert world.lobby.at("-100899") is None


def test_the_senders_text_is_echoed_at_most_twenty_characters(world):
    said = world.reply(ANNA, "JOIN " + "Ž" * 1595)
    assert said == "There is no game " + "Ž" * 19 + "...: check the code."  # "…" as SMS text has it
    assert cost(said).segments == 1
    game = new_game({"players": 3, "seed": 1})
    seat = game.waiting_for()[0]
    with pytest.raises(commands.CommandError) as refused:
        commands.parse("x" * 500, game, seat)
    assert "x" * 20 not in str(refused.value) and "x" * 19 + "…" in str(refused.value)


def test_what_a_stranger_leaves_expires(world):
    connection = world.ctx.store.redis
    for n in range(5):
        number = f"+44770000020{n}"
        world.reply(number, "LANG CS")
        world.reply(number, "ASCII ON")
        world.reply(number, "hello")
        world.reply(number, "STOP")
        world.telegram.say(900 + n, "/language cs")
    assert keys_without_ttl(connection) == []
    stranger = connection.ttl(keys.sms_number("+447700000200"))
    assert 0 < stranger <= world.ctx.settings.sms_stranger_ttl_seconds
    code = world.reply(ANNA, "NEW").split()[1]
    world.reply(BEDA, "LANG CS")
    world.reply(BEDA, f"JOIN {code}")  # a player now: its settings are kept long
    assert connection.ttl(keys.sms_number(BEDA)) > world.ctx.settings.sms_stranger_ttl_seconds
    world.reply(BEDA, "ASCII ON")  # a later change never cuts the longer TTL
    assert connection.ttl(keys.sms_number(BEDA)) > world.ctx.settings.sms_stranger_ttl_seconds


def test_strangers_share_one_hourly_budget_of_replies(world):
    limits(world, sms_stranger_replies_per_hour=2)
    said = [world.reply(f"+44770000030{n}", "hello") for n in range(4)]
    assert [s.startswith("You are in no game") for s in said] == [True, True, False, False]
    assert world.reply(CYRIL, "JOIN ZZ99") == ""  # an unknown code from a stranger: the same budget
    assert world.reply(CYRIL, "NEW").startswith("Game ")  # what does something is answered
    assert world.reply(CYRIL, "JOIN ZZ99").startswith("There is no game ZZ99")  # a player is no stranger
    assert world.reply("+447700000398", "LANG CS") == ""  # a setting of a stranger: stored, not confirmed
    assert world.endpoint.directory.prefs("+447700000398").lang == "cs"
    world.clock.advance(1800)  # one reply back (2 an hour)
    assert world.reply("+447700000399", "hello").startswith("You are in no game")


def test_a_telegram_user_gets_one_slow_down_then_silence(world):
    limits(world, inbound_telegram_burst=3, inbound_telegram_per_minute=60.0)
    group = {"id": -100700, "type": "supergroup", "title": "Talk"}
    for _ in range(10):
        assert world.telegram.say(501, "just talking", chat=group) is None  # table talk is not counted
    for _ in range(3):
        assert world.telegram.say(501, "/help") is not None
    assert (
        world.telegram.say(501, "/help") == "Too many messages at once: wait a minute. Until then I do not read them."
    )
    assert world.telegram.say(501, "/help") is None
    assert press(world, 501) is None  # a press counts too: silence
    world.clock.advance(1)
    assert press(world, 501) == "This button is not valid."
    assert press(world, 501) == "Too many messages at once: wait a minute. Until then I do not read them."
    assert press(world, 501) is None


def press(world, user: int) -> str | None:
    """The text of the answer to a (garbled) button press, None when there is no answer at all."""
    response = world.telegram.post(
        {
            "callback_query": {
                "id": f"q{next(world.telegram.ids)}",
                "from": world.telegram.user(user),
                "chat_instance": "c",
                "data": "d:garbage",
                "message": {"message_id": 5, "date": 1, "chat": {"id": user, "type": "private"}},
            }
        }
    )
    assert response.status_code == 200
    return response.json()["text"] if response.content else None
