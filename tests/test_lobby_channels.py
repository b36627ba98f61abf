"""The shared lobby through both webhooks of the real app: bad input from either channel gets one short, helpful
reply and leaves Redis exactly as it was (but for the record that the input was handled); duplicate deliveries
do nothing twice."""

from sms_support import redis_state, world_fixtures

from service.channels import ui
from service.commands.writing import describe
from service.game import Game
from service.pipeline.botplay import bot_answer

ANNA, BEDA, CYRIL = "+447700000001", "+447700000002", "+447700000009"
TG_A, TG_B, STRANGER = 601, 602, 699
GROUP = {"id": -100800, "type": "supergroup", "title": "Friday"}
OTHER_GROUP = {"id": -100801, "type": "group", "title": "Other"}


served, world = world_fixtures("lobby-token", seed=2)


def unchanged(world, attempts):
    """Each (channel, ...) attempt gets one short reply that contains ``expected``; nothing is stored."""
    before = redis_state(world.ctx.store.redis)
    for how, who, text, expected in attempts:
        if how == "sms":
            said = world.reply(who, text)
            assert len(said) <= 160, said
        elif how == "press":
            said = world.telegram.press(who, text)
        else:
            said = world.telegram.say(who, text, chat=how)
        assert said and expected in said, (how, who, text, said)
    assert redis_state(world.ctx.store.redis) == before


def test_bad_input_in_the_lobby_changes_nothing(world):
    world.telegram.say(TG_A, "/newgame", chat=GROUP)
    code = world.lobby.at(str(GROUP["id"])).code
    world.reply(ANNA, f"JOIN {code}")
    other = "AB23" if code != "AB23" else "CD45"
    unchanged(
        world,
        [
            (GROUP, TG_B, "/begin", "Only the player who opened"),  # a stranger
            (GROUP, TG_B, "/settings expert on", "Only the player who opened"),
            (GROUP, TG_B, "/cancel", "Only the player who opened"),
            (GROUP, TG_B, "/leave", "You are not in this game"),
            (GROUP, TG_B, "/creature", "Join first"),
            (GROUP, TG_A, "/settings deadline soon", "Usage: /settings"),
            (GROUP, TG_A, "/newgame", "already a game here"),
            (OTHER_GROUP, TG_A, "/begin", "There is no game here"),
            (
                "sms",
                ANNA,
                f"GO {code}",
                f"{code} starts when Tg601, who opened it",
            ),  # a player, not the creator: who starts it
            ("sms", ANNA, f"JOIN {code}", f"You are already in {code}"),
            ("sms", ANNA, "JOIN ZZ99", "There is no game ZZ99"),
            ("sms", ANNA, "JOIN", "Text JOIN and the game's code"),
            ("sms", ANNA, f"{other} play 3", "You are in no game"),
            ("sms", CYRIL, "play 3", "You are in no game"),  # an unknown number
            ("sms", CYRIL, "asdf qwer zxcv", "You are in no game"),
            ("sms", CYRIL, "GO", "no game waiting"),
            ("sms", CYRIL, f"CREATURE {code}", f"You have not joined {code}"),
            ("sms", CYRIL, f"LEAVE {code}", f"You have not joined {code}"),
            ({"id": TG_B, "type": "private"}, TG_B, "/join ZZ99", "no longer open"),
            ({"id": TG_B, "type": "private"}, TG_B, "/join", "Usage: /join <code>"),
            ({"id": TG_B, "type": "private"}, TG_B, "play 3", "no question to answer"),
            ({"id": TG_B, "type": "private"}, TG_B, f"{code} play 3", f"no question to answer in game {code}"),
        ],
    )
    assert world.ctx.store.load(code) is None


def test_bad_input_in_a_running_game_changes_nothing(world):
    world.telegram.say(TG_A, "/newgame", chat=GROUP)
    code = world.lobby.at(str(GROUP["id"])).code
    world.reply(ANNA, f"JOIN {code}")
    world.reply(BEDA, f"JOIN {code}")
    world.telegram.say(TG_A, f"/start j{code}")  # the creator presses Join: the bot may write to them
    world.telegram.say(TG_A, "/begin", chat=GROUP)
    world.pump()
    store = world.ctx.store
    snap = store.load(code)
    game = Game.from_json(snap.json)
    seat = sorted(store.expected(code))[0]
    first = ui.Choice(code, snap.window, seat)
    someones = next(
        first.choose(i) for i in range(len(game.legal_actions(seat))) if ui.follow(game, seat, first.choose(i)).complete
    )
    other = "AB23" if code != "AB23" else "CD45"
    unchanged(
        world,
        [
            ("press", STRANGER, someones.data(), "This is not your game"),  # a stranger presses someone's button
            ("press", TG_A, "d:garbage", "This button is not valid"),
            ("press", TG_A, ui.Choice(code, snap.window + 7, seat).data(), "expired"),
            ("press", TG_A, f"d:{other}:1:0::", "This is not your game"),
            ("sms", ANNA, f"{other} play 3", f"You are not in game {other}. Your games: {code}"),
            ("sms", ANNA, "blorp blorp", f"{code}: "),
            ("sms", CYRIL, f"{code} play 3", "You are in no game"),
            ("sms", CYRIL, f"JOIN {code}", f"Game {code} has already begun"),
            ("sms", BEDA, f"GO {code}", f"Game {code} has already begun"),
            (GROUP, TG_B, "/newgame", "already a game here"),
            (GROUP, TG_B, "/join", "already begun"),
            (GROUP, TG_A, "/begin", "already begun"),
            ({"id": STRANGER, "type": "private"}, STRANGER, f"/join {code}", "already begun"),
        ],
    )


def test_duplicate_deliveries_do_nothing_twice(world):
    code = world.reply(ANNA, "NEW", sid="SMnew").split()[1]
    assert world.reply(ANNA, "NEW", sid="SMnew") == ""
    assert world.reply(BEDA, f"JOIN {code}", sid="SMjoin").startswith("You joined")
    assert world.reply(BEDA, f"JOIN {code}", sid="SMjoin") == ""
    first = world.telegram.say(TG_A, f"/join {code}", update_id=4242)
    assert first.startswith(f"You are in game {code}")
    assert world.telegram.say(TG_A, f"/join {code}", update_id=4242) is None  # Telegram's re-delivery
    assert [p.address for p in world.lobby.get(code).players] == [f"sms:{ANNA}", f"sms:{BEDA}", f"tg:{TG_A}"]
    assert world.reply(ANNA, "GO", sid="SMgo").startswith(f"{code} has begun")
    assert world.reply(ANNA, "GO", sid="SMgo") == ""
    world.pump()

    store = world.ctx.store
    numbers = {dict(world.lobby.games_of(f"sms:{n}"))[code]: n for n in (ANNA, BEDA)}
    tg_seat = dict(world.lobby.games_of(f"tg:{TG_A}"))[code]
    for _ in range(20):  # the Telegram player answers until an SMS player is asked
        missing = store.expected(code) - set(store.answers(code))
        if missing & set(numbers):
            break
        game = Game.from_json(store.load(code).json)
        assert world.telegram.say(TG_A, describe(game.legal_actions(tg_seat)[0])).startswith("Locked in")
        world.pump()
    seat = min(missing & set(numbers))
    game = Game.from_json(store.load(code).json)
    text = " ".join(describe(a) for a in bot_answer(game, seat))
    assert world.reply(numbers[seat], "CONFIRM ON", sid="SMconfirm").startswith("OK")  # a reply says it counted
    assert world.reply(numbers[seat], text, sid="SManswer").startswith(f"{code}: Locked in")
    before = redis_state(store.redis)
    assert world.reply(numbers[seat], text, sid="SManswer") == ""  # Twilio's retry of the answer
    assert redis_state(store.redis) == before


def test_bots_are_added_from_either_channel_and_bad_levels_change_nothing(world):
    world.telegram.say(TG_A, "/newgame", chat=GROUP)
    code = world.lobby.at(str(GROUP["id"])).code
    world.reply(ANNA, f"JOIN {code}")
    said = world.telegram.say(TG_A, "/addbot hard", chat=GROUP)
    assert "adds a bot (hard)" in said and "Players (3/7)" in said and "bot (hard)" in said
    assert "a bot (normal) takes a seat" in world.reply(ANNA, f"ADDBOT {code}")
    assert "a bot (easy) takes a seat" in world.reply(ANNA, f"BOT easy {code}")
    assert world.lobby.get(code).bots == ["hard", "normal", "easy"]
    unchanged(
        world,
        [
            (GROUP, TG_A, "/addbot brilliant", "Bots play at easy, normal or hard"),
            (GROUP, TG_B, "/addbot", "You are not in this game"),
            ("sms", ANNA, f"ADDBOT {code} genius", "Bots play at easy, normal or hard"),
            ("sms", CYRIL, f"ADDBOT {code}", f"You have not joined {code}"),
        ],
    )


def test_a_solo_game_in_private_puts_one_person_against_bots(world):
    world.ctx.settings = world.ctx.settings.model_copy(update={"bot_budget_ms": 5})
    said = world.telegram.say(TG_A, "/newgame hunted 3 hard")
    assert "you are a Hunted, against 2 bots (hard)" in said, said
    code = world.lobby.last_opened(f"tg:{TG_A}")
    meta = world.ctx.store.meta(code)
    seat = world.lobby.get(code).seats[f"tg:{TG_A}"]
    assert seat != 0 and 0 in meta["bots"] and sorted(meta["bots"] + [seat]) == [0, 1, 2]
    assert set(meta["bot_levels"].values()) == {"hard"}
    world.pump()  # the bot Creature chooses the board side; the exploration asks the person at once
    snap = world.ctx.store.load(code)
    assert snap.status == "collecting" and Game.from_json(snap.json).window["kind"] == "explore"
    assert set(world.ctx.store.expected(code)) - set(world.ctx.store.answers(code)) == {seat}
    said = world.telegram.say(TG_B, "/newgame creature 4")
    assert "you are the Creature, against 3 bots (normal)" in said, said
    assert world.lobby.get(world.lobby.last_opened(f"tg:{TG_B}")).seats == {f"tg:{TG_B}": 0}
    assert "Usage: /newgame" in world.telegram.say(TG_B, "/newgame dragon")


def test_a_game_without_a_group_links_its_watch_page_to_the_solo_player_and_to_sms_players(world):
    """The group's status message carries the page's button; a solo game and an SMS player have no such message."""
    world.ctx.settings = world.ctx.settings.model_copy(
        update={"bot_budget_ms": 5, "public_url": "https://watch.example.org"}
    )
    said = world.telegram.say(TG_A, "/newgame hunted 3")
    code = world.lobby.last_opened(f"tg:{TG_A}")
    link = f"https://watch.example.org/w/{world.ctx.store.meta(code)['watch']}"
    assert said.endswith(f"Your questions come here.\nThe board and the game so far: {link}"), said
    opened = world.reply(ANNA, "NEW 3")
    sms_code = opened.split()[1]
    begun = world.reply(ANNA, f"GO {sms_code}")
    sms_link = f"https://watch.example.org/w/{world.ctx.store.meta(sms_code)['watch']}"
    assert begun.startswith(f"{sms_code} has begun. You are ") and begun.endswith(f" Watch the game: {sms_link}"), begun


def test_a_bot_that_fills_a_table_of_a_set_size_begins_it_as_a_join_would(world):
    world.ctx.settings = world.ctx.settings.model_copy(update={"bot_budget_ms": 5})
    code = world.reply(BEDA, "NEW 3").split()[1]
    assert world.reply(BEDA, f"ADDBOT {code}").startswith(f"OK: a bot (normal) takes a seat at {code} (2/3)")
    begun = world.reply(BEDA, f"ADDBOT {code} hard")
    assert begun.startswith(f"{code} has begun. You are "), begun
    assert world.ctx.store.load(code) is not None and world.lobby.get(code).game == code


def test_a_solo_game_by_sms_puts_the_number_against_bots_at_once(world):
    world.ctx.settings = world.ctx.settings.model_copy(update={"bot_budget_ms": 5})
    said = world.reply(CYRIL, "SOLO bytost 4 tezky")
    code = said.split()[0]
    assert said.startswith(f"{code} has begun. You are the Creature; your questions come by SMS."), said
    meta = world.ctx.store.meta(code)
    assert len(meta["players"]) == 4 and sorted(meta["bots"]) == [1, 2, 3]
    assert set(meta["bot_levels"].values()) == {"hard"}
    world.pump()
    assert world.ctx.store.expected(code) == {0}  # the Creature chooses the board's side
    assert world.reply(ANNA, "SOLO dragon").startswith("Text SOLO [creature/hunted] [2-7]")
    assert world.reply(ANNA, "SOLO 9").startswith("Text SOLO")
