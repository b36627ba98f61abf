"""Whole games at mixed tables on the real pipeline and the real app (``service.web``: both webhooks, one shared
lobby): two SMS players and two Telegram players, at a table opened in a Telegram group and joined by SMS, and at
one opened by SMS and joined on Telegram; and a STOP in the middle of a game. SMS players answer by posting
signed Twilio webhooks; Telegram players type their answers in their private chat with the bot."""

import json
import random

from sms_support import world_fixtures

from service.channels.sms.routing import read_answer
from service.channels.sms.text import cost
from service.commands.writing import describe
from service.game import Game, new_game
from service.game.bots import whole_answer

ANNA, BEDA = "+447700000001", "+447700000002"
TG_A, TG_B = 501, 502
GROUP = {"id": -100900, "type": "supergroup", "title": "Pátek"}


served, world = world_fixtures("game-token", seed=1)


def seat_of(world, address, code):
    return dict(world.lobby.games_of(address))[code]


def full_answer(game, seat, rng):
    """A bot's complete answer for the open window (a hunt card and then the tokens, say), as one message."""
    return whole_answer(game, seat, rng)


def play_window(world, code, rng, sms_seats, tg_seats=None, prefix_code=False):
    """Everyone the open window waits for answers it (SMS seats by text, Telegram seats by typing to the bot,
    any other seat is a bot's and answered already); then the jobs run."""
    store = world.ctx.store
    for seat in sorted(store.expected(code) - set(store.answers(code))):
        game = Game.from_json(store.load(code).json)
        text = " ".join(describe(a) for a in full_answer(game, seat, rng))
        if seat in sms_seats:
            reply = world.reply(sms_seats[seat], f"{code} {text}" if prefix_code else text)
            assert reply == "", (text, reply)  # no paid reply: the next SMS confirms it (CONFIRM OFF, the default)
        else:
            reply = world.telegram.say(tg_seats[seat], f"{code} {text}" if prefix_code else text)
            assert reply.startswith("Locked in"), (text, reply)
    world.pump()


def play_to_the_end(world, code, sms_seats, tg_seats, seed=3):
    rng, windows = random.Random(seed), 0
    while world.ctx.store.load(code).status != "over":
        play_window(world, code, rng, sms_seats, tg_seats, prefix_code=windows % 2 == 0)
        windows += 1
        assert windows < 400


def check_outbound(world, code):
    # every SMS stands on its own: the game code first; a question carries its deadline; two segments at most
    for number in (ANNA, BEDA):
        texts = world.twilio.to(number)
        assert texts and all(t.startswith(f"{code} ") for t in texts)
        assert any(" By " in t or " Do " in t for t in texts)
        assert max(cost(t).segments for t in texts) <= 2
        assert "Game over" in texts[-1] or "Konec hry" in texts[-1]
    # the Telegram players got the pipeline's own messages, and no SMS went to them
    assert {str(TG_A), str(TG_B)} <= {m["chat"] for m in world.recording.sent()}
    assert not any(m["chat"].startswith("sms:") for m in world.recording.sent())
    assert {m["To"] for m in world.twilio.sent} == {ANNA, BEDA}


def test_a_table_opened_in_a_telegram_group_and_joined_by_sms(world):
    tg = world.telegram
    lobby = tg.say(TG_A, "/newgame", chat=GROUP)
    code = world.lobby.at(str(GROUP["id"])).code
    assert f"JOIN {code} to +15005550006" in lobby
    assert "Tg501, Tg502" in tg.say(TG_B, "/join", chat=GROUP)
    assert world.reply(ANNA, f"JOIN {code} Anna").startswith(f"You joined {code} (3/7)")
    assert world.reply(BEDA, f"PŘIPOJ {code.lower()} Beda").startswith(f"Jsi ve hře {code} (4/7)")  # asked in Czech
    assert "Beda will be the Creature" not in (tg.say(TG_B, "/creature", chat=GROUP) or "")
    assert "Only the player who opened" in tg.say(TG_B, "/begin", chat=GROUP)
    # the bot may not write first to the Telegram players: /begin names them and waits until they press Join
    assert "I cannot write to Tg501, Tg502 in private yet" in tg.say(TG_A, "/begin", chat=GROUP)
    assert world.ctx.store.load(code) is None
    for user in (TG_A, TG_B):
        assert tg.say(user, f"/start j{code}").startswith(f"You are in game {code}!")
    assert tg.say(TG_A, "/begin", chat=GROUP) == (
        "The game begins! Tg502 is the Creature. Check your private chat with me for your choices."
    )
    meta = world.ctx.store.meta(code)
    assert meta["group"] == str(GROUP["id"]) and meta["code"] == code and meta["bots"] == []
    assert meta["players"]["0"]["address"] == f"tg:{TG_B}"
    by_address = {p["address"]: (int(s), p) for s, p in meta["players"].items()}
    assert by_address[f"sms:{ANNA}"][1]["name"] == "Anna" and by_address[f"sms:{ANNA}"][1]["chat"] == f"sms:{ANNA}"
    assert by_address[f"tg:{TG_A}"][1]["chat"] == str(TG_A)
    world.pump()
    sms_seats = {seat_of(world, f"sms:{n}", code): n for n in (ANNA, BEDA)}
    tg_seats = {seat_of(world, f"tg:{u}", code): u for u in (TG_A, TG_B)}
    assert set(sms_seats) | set(tg_seats) == {0, 1, 2, 3}
    play_to_the_end(world, code, sms_seats, tg_seats)
    check_outbound(world, code)
    assert "Turn" in tg.say(TG_A, "/status", chat=GROUP)


def test_a_table_opened_by_sms_and_joined_on_telegram(world):
    opened = world.reply(ANNA, "NOVÁ fast")  # a Czech keyword: a Czech answer
    code = opened.split()[1]
    assert f"PRIPOJ {code}" in opened and f"/join {code}" in opened
    assert world.reply(BEDA, f"PRIPOJ {code}").startswith(f"Jsi ve hře {code} (2/7)")
    assert world.telegram.say(TG_A, f"/join {code.lower()}").startswith(f"You are in game {code}!")
    assert world.telegram.say(TG_B, f"/join {code}").startswith(f"You are in game {code}!")
    assert world.telegram.say(TG_B, f"/join {code}").startswith(f"You are in game {code}!")  # twice: the same
    assert world.reply(ANNA, "CREATURE") == f"OK: you will be the Creature in {code}."
    # Beda opened nothing: a bare GO says who starts the table Beda joined, and how
    assert world.reply(BEDA, "GO") == (
        f"{code} starts when SMS {ANNA[-4:]}, who opened it, texts GO (on Telegram: /begin). Players so far: 4/7."
    )
    assert world.reply(BEDA, f"GO {code}").startswith(f"{code} starts when SMS {ANNA[-4:]}, who opened it, texts GO")
    assert world.reply(ANNA, "GO") == f"{code} has begun. You are the Creature; your questions come by SMS."
    assert world.telegram.say(TG_A, f"/join {code}").startswith(f"Your seat in game {code} is yours")
    meta = world.ctx.store.meta(code)
    assert meta["group"] is None and meta["deadline_seconds"] == 3600 and len(meta["players"]) == 4
    world.pump()
    sms_seats = {seat_of(world, f"sms:{n}", code): n for n in (ANNA, BEDA)}
    tg_seats = {seat_of(world, f"tg:{u}", code): u for u in (TG_A, TG_B)}
    assert sms_seats[0] == ANNA
    play_to_the_end(world, code, sms_seats, tg_seats, seed=5)
    check_outbound(world, code)


def test_a_sized_table_starts_itself_when_a_telegram_join_fills_it(world):
    code = world.reply(ANNA, "NEW 3").split()[1]
    world.reply(BEDA, f"JOIN {code}")
    assert world.telegram.say(TG_A, f"/start j{code}").startswith("The game begins!")
    assert world.ctx.store.load(code) is not None
    assert world.reply(BEDA, f"{code} ?").startswith(f"{code} T")


def test_stop_in_the_middle_of_a_mixed_game_hands_the_seat_to_a_bot_and_start_gives_it_back(world):
    code = world.reply(ANNA, "NEW 3").split()[1]
    world.reply(BEDA, f"JOIN {code}")
    world.telegram.say(TG_A, f"/join {code}")
    world.pump()
    anna, beda = seat_of(world, f"sms:{ANNA}", code), seat_of(world, f"sms:{BEDA}", code)
    tg = {seat_of(world, f"tg:{TG_A}", code): TG_A}
    rng = random.Random(11)
    play_window(world, code, rng, {anna: ANNA, beda: BEDA}, tg)
    play_window(world, code, rng, {anna: ANNA, beda: BEDA}, tg)

    assert world.reply(BEDA, "stop").startswith("Artemia: no more messages")
    assert world.endpoint.directory.prefs(BEDA).stopped
    store = world.ctx.store
    assert beda not in store.expected(code) - set(store.answers(code))  # not waited for, even now
    sent_to_beda = len(world.twilio.to(BEDA))
    for _ in range(6):
        if store.load(code).status == "over":
            break
        play_window(world, code, rng, {anna: ANNA}, tg)  # Anna and Telegram play; Beda's seat is the bot's
    assert len(world.twilio.to(BEDA)) == sent_to_beda  # not one message after STOP
    assert store.streaks(code).get(beda, 0) >= world.ctx.settings.autoplay_bot_after

    assert world.reply(BEDA, "START") == "Artemia: welcome back, your seats are yours again."
    assert not world.endpoint.directory.prefs(BEDA).stopped
    assert store.streaks(code).get(beda, 0) == 0
    windows = 0
    while store.load(code).status != "over":
        play_window(world, code, rng, {anna: ANNA, beda: BEDA}, tg)
        windows += 1
        assert windows < 400
    assert len(world.twilio.to(BEDA)) > sent_to_beda  # asked again after START


def test_the_creator_sets_secrecy_by_sms_or_telegram_and_the_game_plays_under_it(world):
    code = world.reply(ANNA, "NEW 3").split()[1]
    assert world.lobby.get(code).secrecy == "strict"  # the default: nobody can tell who holds a card
    assert world.reply(ANNA, f"SET {code} SECRECY fast") == f"OK. {code}: deadline daily, secrecy fast, expert off."
    world.reply(ANNA, "JAZYK CS")
    assert world.reply(ANNA, "NASTAV UTAJENI PRISNE").startswith(f"OK. {code}: lhůta daily, utajení přísné")
    world.reply(BEDA, f"JOIN {code}")
    before = world.lobby.get(code)
    assert "NASTAV" in world.reply(ANNA, f"NASTAV {code} UTAJENI")  # no value: how to use it
    assert world.reply(ANNA, f"NASTAV {code} UTAJENI obcas").startswith(f"{code}: takove nastaveni neni. LHUTA")
    assert world.reply(BEDA, f"SET {code} SECRECY fast") == (
        f"Only whoever opened {code} can start it or change its settings."
    )
    assert world.lobby.get(code) == before  # refusals change nothing
    world.reply(ANNA, "GO")
    assert json.loads(world.ctx.store.load(code).json)["config"]["secrecy"] == "strict"
    assert world.reply(ANNA, f"SET {code} SECRECY fast") == f"Hra {code} už začala."


def test_telegram_settings_secrecy_is_shown_and_refuses_other_values(world):
    tg = world.telegram
    tg.say(TG_A, "/newgame", chat=GROUP)
    shown = tg.say(TG_A, "/settings secrecy fast", chat=GROUP)
    assert "Secrecy: fast (only players holding a card are waited for)" in shown
    assert world.lobby.at(str(GROUP["id"])).secrecy == "fast"
    assert "secrecy strict|fast" in tg.say(TG_A, "/settings secrecy sometimes", chat=GROUP)
    assert world.lobby.at(str(GROUP["id"])).secrecy == "fast"
    assert "Only the player who opened" in tg.say(TG_B, "/settings secrecy strict", chat=GROUP)


def test_name_renames_the_number_at_its_tables_and_in_its_games(world):
    assert world.reply(ANNA, "NAME") == "Text NAME and the name the others see, e.g. NAME Anna (at most 20 characters)."
    code = world.reply(ANNA, "NEW 3").split()[1]
    assert world.lobby.get(code).player(f"sms:{ANNA}").name == f"SMS {ANNA[-4:]}"
    assert world.reply(ANNA, "NAME Anna Bláhová") == f"OK: you are Anna Bláhová (games: {code})."
    assert world.lobby.get(code).player(f"sms:{ANNA}").name == "Anna Bláhová"
    world.reply(BEDA, f"JOIN {code}")
    world.reply(ANNA, "GO")
    world.reply(ANNA, "JAZYK CS")
    assert world.reply(ANNA, "JMENO Anička " + "x" * 40) == f"OK: jsi Anička {'x' * 13} (hry: {code})."
    players = world.ctx.store.meta(code)["players"]
    assert [p["name"] for p in players.values() if p.get("address") == f"sms:{ANNA}"] == [f"Anička {'x' * 13}"]
    later = world.reply(ANNA, "NOVA 3").split()[1]  # the chosen name is kept for the next tables
    assert world.lobby.get(later).player(f"sms:{ANNA}").name == f"Anička {'x' * 13}"


def test_the_first_part_of_an_answer_is_held_and_the_rest_asked(world):
    """Issue 15, point 3: "card Smokescreen" is offered on its own; it is held (the seat must still play a place)
    and the reply asks the rest; the next text is read after it and both are recorded as one answer."""
    code = world.reply(ANNA, "NEW 2").split()[1]
    world.reply(BEDA, f"JOIN {code}")  # a full table starts itself
    world.pump()
    creature, hunted = (ANNA, BEDA) if "side 1 or 2" in world.reply(ANNA, "?") else (BEDA, ANNA)
    assert world.reply(creature, "CONFIRM ON") == "OK: each answer gets a reply of its own."
    assert world.reply(hunted, "CONFIRM ON") == "OK: each answer gets a reply of its own."
    assert world.reply(creature, "side 1").startswith(f"{code}: Locked in: side 1")
    world.pump()
    asked = world.reply(hunted, "?")
    assert asked.startswith(f"{code} T1 Exploration: card Smokescreen; play 1-5. By ")  # seed 1 deals it
    window = world.ctx.store.load(code).window
    noted = world.reply(hunted, "card Smokescreen")
    assert noted.startswith(f"{code} T1 Exploration, card Smokescreen noted: play 1-5. By ")
    assert world.endpoint.directory.prefs(hunted).held.actions == [{"type": "survival", "card": "smokescreen"}]
    assert world.ctx.store.load(code).window == window  # nothing recorded yet
    assert world.reply(hunted, "card Smokescreen").startswith(f"{code} T1 Exploration, card Smokescreen noted: ")
    refused = world.reply(hunted, "play 11")  # bad input: a clear reply, and the held part stays
    assert refused.startswith(f"{code}: ") and "play 1-5" in refused
    assert world.endpoint.directory.prefs(hunted).held is not None
    assert world.reply(hunted, "play 2").startswith(f"{code}: Locked in: card Smokescreen, play 2")
    assert world.endpoint.directory.prefs(hunted).held is None


def test_read_answer_reads_after_the_held_part_unless_the_text_repeats_it():
    game = new_game({"players": 3, "seed": 1})
    game.apply(0, {"type": "side", "side": 1})
    seat = 1  # seed 1 deals the first Hunted a Survival card
    card = next(a for a in game.legal_actions(seat) if a["type"] == "survival")
    word = describe(card, "en")
    held, actions, _ = read_answer(game, seat, [card], "play 2", "en")
    assert held == [card] and actions == [{"type": "play", "cards": [2]}]
    held, actions, _ = read_answer(game, seat, [card], f"{word} play 2", "en")  # sent whole again
    assert held == [] and actions == [card, {"type": "play", "cards": [2]}]
    held, actions, _ = read_answer(game, seat, [], "play 2", "en")
    assert held == [] and actions == [{"type": "play", "cards": [2]}]


def test_without_confirm_an_answer_gets_no_reply_and_its_ok_rides_on_the_next_sms(world):
    """Issue 15, point 4: CONFIRM OFF (the default) — an accepted answer costs no reply of its own; "OK: pass."
    waits on the number's lane and goes out inside its next SMS of the game; a refused answer is answered."""
    code = world.reply(ANNA, "NEW 2").split()[1]
    world.reply(BEDA, f"JOIN {code}")
    world.pump()
    creature, hunted = (ANNA, BEDA) if "side 1 or 2" in world.reply(ANNA, "?") else (BEDA, ANNA)
    assert world.reply(creature, "side 1") == ""  # the last answer: the next question follows at once
    world.pump()
    assert world.reply(creature, "play 11").startswith(f"{code}: ")  # refused: answered at once
    before = len(world.twilio.to(creature))
    # the Creature is not asked during the exploration (strict secrecy): "pass" is its "no cards this turn", an answer
    # ahead, accepted while the Hunted still choose
    assert world.reply(creature, "pass") == ""
    world.pump()
    assert len(world.twilio.to(creature)) == before  # held, not sent on its own
    assert world.reply(hunted, "play 2") == ""
    world.pump()
    after = world.twilio.to(creature)[before:]
    assert len(after) == 1 and after[0].startswith(f"{code} T1 ") and after[0].endswith(". OK: plan pass."), after
