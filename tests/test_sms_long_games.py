"""Long games by SMS (issue 17): AWAY <until>, AWAY OFF, STATS [OFF] and FORGETME on the real app and pipeline
(the SMS test world: fake Twilio, fakeredis, a hand-driven clock)."""

from datetime import UTC, datetime

from sms_support import world_fixtures

from service.pipeline import absence, records

ANNA, BEDA = "+447700000011", "+447700000012"

served, world = world_fixtures("long-token", seed=5)


def test_away_by_sms_covers_the_seats_and_stats_shows_the_finished_game(world):
    code = world.reply(ANNA, "NEW 3").split()[1]
    world.reply(BEDA, f"JOIN {code}")
    world.reply(ANNA, f"GO {code}")
    world.pump()
    store = world.ctx.store

    # bad input: a clear answer, nothing stored
    assert "passed" in world.reply(ANNA, "AWAY 2020-01-01 10:00")
    assert "at most 30 days" in world.reply(ANNA, "away 365d")
    assert "Say until when: AWAY 3d" in world.reply(ANNA, "AWAY whenever")
    assert absence.away_seats(world.ctx, code) == {}
    assert world.reply(BEDA, "STATS") == "You have no finished game on record yet."

    assert world.reply(ANNA, "AWAY 2d").startswith("Away until")
    assert len(absence.away_seats(world.ctx, code)) == 1
    world.pump()
    told = [text for text in world.twilio.to(BEDA) if "is away until" in text]  # the table is told, by SMS too
    assert told and told[0].startswith("SMS 0011 is away until")  # with no emoji: one would make it cost more
    assert not [text for text in world.twilio.to(ANNA) if "away" in text]  # she has her reply: no paid text more
    assert world.reply(ANNA, "PRYC KONEC").startswith("Vítej zpět")  # AWAY OFF, in Czech: answered in Czech
    assert absence.away_seats(world.ctx, code) == {}

    # LEAVE of a game that has begun: the bot plays the seat, the game goes on
    assert world.reply(BEDA, f"LEAVE {code}").startswith(f"You left game {code}")
    world.pump()
    left = [text for text in world.twilio.to(ANNA) if "left the game" in text]
    assert left and left[0].startswith("SMS 0012 left the game")
    assert not [text for text in world.twilio.to(BEDA) if "left the game" in text]
    assert store.games_of_user(f"sms:{BEDA}") == [] and len(store.meta(code)["bots"]) == 2
    assert "do not play" in world.reply(BEDA, f"LEAVE {code}")

    # both away: the bots finish the game, and it is on their records
    assert world.reply(ANNA, "AWAY 20d").startswith("Away until")
    for _ in range(50):
        world.pump()
        if store.load(code).status == "over":
            break
    assert store.load(code).status == "over"
    assert world.reply(ANNA, "STATS").startswith("📊 1 finished game.")
    assert world.reply(BEDA, "STATS") == "You have no finished game on record yet."  # he left before the end
    assert "deleted" in world.reply(ANNA, "STATS OFF")
    assert world.reply(ANNA, "stats").startswith("You keep no record")

    # FORGETME (ZAPOMEN), as /forgetme on Telegram: her name and number are gone from the finished game
    assert "FORGETME" in world.reply(BEDA, "HELP")
    [name] = [p["name"] for p in store.meta(code)["players"].values() if p.get("user") == f"sms:{ANNA}"]
    assert ANNA in str(world.lobby.get(code))
    assert world.reply(ANNA, "FORGETME").startswith("Done: your name and ids are gone from ")
    assert store.games_of_user(f"sms:{ANNA}") == [] and records.FORGOTTEN in str(store.meta(code)["players"])
    assert name not in str(store.meta(code)["players"]) and ANNA not in str(store.meta(code)["players"])
    assert ANNA not in str(world.lobby.get(code))  # nor at its table


def test_away_by_sms_is_read_and_confirmed_in_the_tables_zone_as_the_table_is_told(world):
    """A number abroad at an English table (its zone UTC): "AWAY 8.12. 18:00" is 18:00 UTC for the number and the
    table alike (it was read in the number's default zone, Prague, and confirmed as "18:00 +0100")."""
    uk, other = "+447700900011", "+447700900012"
    code = world.reply(uk, "NEW 3").split()[1]
    world.reply(other, f"JOIN {code}")
    world.reply(uk, f"GO {code}")
    world.pump()
    soon = datetime.fromtimestamp(world.ctx.clock() + 2 * 86400, UTC)
    said = world.reply(uk, f"AWAY {soon.day}.{soon.month}. 18:00")
    assert said.startswith("Away until ") and ", 18:00 UTC:" in said, said
    world.pump()
    told = [text for text in world.twilio.to(other) if "is away until" in text]
    assert told and ", 18:00 UTC" in told[-1], told
