"""The shared lobby (`service.pipeline.lobby`) on fakeredis and the real pipeline: codes, joining, settings, starting."""

import random
from concurrent.futures import ThreadPoolExecutor

import pytest
from pipeline_support import Clock, make_ctx

from service.pipeline.lobby import (
    ALPHABET,
    MAX_PLAYERS,
    Lobby,
    LobbyError,
    Player,
    Table,
    looks_like_code,
    new_code,
    sms_address,
    telegram_address,
)


def tg(n: int) -> Player:
    return Player(telegram_address(n), f"T{n}", "en", chat=str(n), user=str(n))


def sms(n: int) -> Player:
    number = f"+44770000{n:04d}"
    return Player(sms_address(number), f"S{n}", "cs", chat=sms_address(number))


@pytest.fixture
def lobby():
    return Lobby(make_ctx(clock=Clock()), rng=random.Random(4))


def reason(call, *args) -> str:
    with pytest.raises(LobbyError) as refused:
        call(*args)
    return refused.value.reason


def test_codes_are_short_unambiguous_and_never_a_word_or_a_number():
    assert not set("0O1IL") & set(ALPHABET)
    rng = random.Random(1)
    codes = {new_code(rng) for _ in range(2000)}
    assert all(looks_like_code(c) and set(c) <= set(ALPHABET) for c in codes)
    assert not looks_like_code("PLAY") and not looks_like_code("1234") and not looks_like_code("ŘK12")


def test_a_table_round_trips_through_json():
    table = Table("K7QX", "tg:1", "cs", [tg(1), sms(2)], creature="sms:+447700000002", size=4, place="-5/7")
    assert Table.from_json(table.to_json()) == table
    assert table.players[1].channel == "sms" and table.capacity == 4


def test_open_join_and_begin_deal_the_seats_and_start_the_game(lobby):
    table = lobby.open(tg(1), "en", place="-100")
    assert lobby.at("-100") == table and lobby.get(table.code.lower()) == table
    assert lobby.last_opened("tg:1") == table.code
    lobby.join(table.code, sms(2))
    lobby.join(table.code, tg(3))
    lobby.volunteer(table.code, sms(2).address)
    started = lobby.begin(table.code, "tg:1")
    assert started.creature.address == sms(2).address and started.seats[sms(2).address] == 0
    assert sorted(started.seats.values()) == [0, 1, 2]
    meta = lobby.ctx.store.meta(table.code)
    assert meta["group"] == "-100" and meta["code"] == table.code and meta["bots"] == []
    assert meta["players"]["0"] == {
        "name": "S2",
        "chat": sms(2).chat,
        "user": sms(2).address,
        "address": sms(2).address,
        "lang": "cs",
    }
    seat = started.seats["tg:1"]
    assert meta["players"][str(seat)]["user"] == "1" and meta["players"][str(seat)]["chat"] == "1"
    assert lobby.games_of("tg:1") == [(table.code, seat)]
    assert lobby.ctx.store.games_of_user("1") == [(table.code, seat)]
    assert lobby.ctx.store.load(table.code).status in ("collecting", "resolving")
    assert lobby.get(table.code).game == table.code
    assert reason(lobby.join, table.code, tg(4)) == "begun"
    assert reason(lobby.begin, table.code, "tg:1") == "begun"


def test_refusals_store_nothing(lobby):
    table = lobby.open(tg(1), "en", place="-100")
    before = lobby.get(table.code)
    assert reason(lobby.begin, table.code, "tg:1") == "too_few"
    lobby.join(table.code, tg(2))
    before = lobby.get(table.code)
    assert reason(lobby.begin, table.code, "tg:2") == "not_creator"
    assert reason(lobby.join, table.code, tg(2)) == "already"
    assert reason(lobby.join, "ZZ99", tg(3)) == "unknown"
    assert reason(lobby.join, "../x", tg(3)) == "unknown"
    assert reason(lobby.volunteer, table.code, "tg:9") == "not_in"
    assert reason(lobby.leave, table.code, "tg:9") == "not_in"
    assert reason(lobby.configure, table.code, "tg:2", "expert", "on") == "not_creator"
    assert reason(lobby.configure, table.code, "tg:1", "deadline", "soon") == "bad_setting"
    assert reason(lobby.configure, table.code, "tg:1", "size", "9") == "bad_setting"
    assert reason(lobby.configure, table.code, "tg:1", "tz", "Europe/Atlantis") == "bad_setting"
    assert reason(lobby.open, tg(5), "en", "-100") == "place_taken"
    assert lobby.get(table.code) == before
    assert lobby.ctx.store.load(table.code) is None


def test_a_table_holds_seven_and_a_sized_table_starts_when_full(lobby):
    big = lobby.open(tg(0), "en")
    for n in range(1, MAX_PLAYERS):
        lobby.join(big.code, tg(n))
    assert reason(lobby.join, big.code, tg(99)) == "full"
    small = lobby.open(sms(1), "cs", size=3, deadline="fast")
    assert lobby.join(small.code, tg(1))[1] is None
    table, started = lobby.join(small.code, sms(2))
    assert started is not None and started.table.game == small.code
    assert lobby.ctx.store.meta(small.code)["deadline_seconds"] == 3600


def test_bots_fill_the_seats_of_a_sized_table_begun_early(lobby):
    table = lobby.open(sms(1), "en", size=5)
    lobby.join(table.code, tg(2))
    started = lobby.begin(table.code, sms(1).address)
    meta = lobby.ctx.store.meta(table.code)
    assert len(meta["players"]) == 5 and len(meta["bots"]) == 3
    assert all(meta["players"][str(s)]["chat"] is None for s in meta["bots"])
    assert started.creature.address in (sms(1).address, "tg:2")  # a person, never a bot, is the Creature


def test_concurrent_joins_are_all_kept(lobby):
    table = lobby.open(tg(0), "en")
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda n: lobby.join(table.code, tg(n)), range(1, 7)))
    assert sorted(p.address for p in lobby.get(table.code).players) == sorted(f"tg:{n}" for n in range(7))


def test_an_interrupted_start_is_finished_by_the_next_begin(lobby, monkeypatch):
    table = lobby.open(tg(1), "en")
    lobby.join(table.code, tg(2))

    def crash(*args):
        raise RuntimeError("worker died")

    monkeypatch.setattr("service.pipeline.lobby.start_game", crash)
    with pytest.raises(RuntimeError):
        lobby.begin(table.code, "tg:1")
    dealt = lobby.get(table.code).seats
    assert dealt and lobby.ctx.store.load(table.code) is None
    monkeypatch.undo()
    assert lobby.begin(table.code, "tg:1").seats == dealt
    assert lobby.ctx.store.load(table.code) is not None
    assert reason(lobby.begin, table.code, "tg:1") == "begun"


def test_leave_hands_the_table_on_and_the_last_one_out_closes_it(lobby):
    table = lobby.open(tg(1), "en", place="-7/3")
    lobby.join(table.code, sms(2))
    lobby.volunteer(table.code, "tg:1")
    after = lobby.leave(table.code, "tg:1")
    assert after.creator == sms(2).address and after.creature is None
    assert lobby.leave(table.code, sms(2).address) is None
    assert lobby.get(table.code) is None and lobby.at("-7/3") is None
    assert lobby.open(tg(3), "en", place="-7/3").creator == "tg:3"


def test_a_place_is_free_again_once_its_game_is_over(lobby):
    table = lobby.open(tg(1), "en", place="-100")
    lobby.join(table.code, tg(2))
    lobby.begin(table.code, "tg:1")
    assert reason(lobby.open, tg(1), "en", "-100") == "place_taken"
    lobby.ctx.store.redis.hset(f"{{g:{table.code}}}:snap", "status", "over")
    again = lobby.open(tg(2), "en", place="-100")
    assert again.code != table.code and lobby.at("-100") == again


def test_a_player_may_be_in_several_games_most_recent_first(lobby):
    clock = lobby.ctx.clock
    codes = []
    for place in ("-1", "-2"):
        table = lobby.open(tg(1), "en", place=place)
        lobby.join(table.code, tg(2))
        lobby.begin(table.code, "tg:1")
        codes.append(table.code)
        clock.advance(10)
    assert [g for g, _ in lobby.games_of("tg:2")] == codes[::-1]


def test_a_time_zone_is_named_in_any_case_and_default_goes_back_to_the_language(lobby):
    table = lobby.open(tg(1), "en", "-100")
    assert lobby.configure(table.code, "tg:1", "tz", "europe/LONDON").tz == "Europe/London"
    assert lobby.configure(table.code, "tg:1", "tz", "default").tz is None


def test_bots_added_at_a_level_take_seats_and_keep_their_level():
    lobby = Lobby(make_ctx(clock=Clock(), bot_budget_ms=5), rng=random.Random(4))
    table = lobby.open(tg(1), "en", size=5)
    assert reason(lobby.add_bot, table.code, "tg:9", "hard") == "not_in"
    assert reason(lobby.add_bot, table.code, "tg:1", "brilliant") == "bad_level"
    lobby.add_bot(table.code, "tg:1", "hard")
    table, started = lobby.add_bot(table.code, "tg:1", "normal")
    assert table.bots == ["hard", "normal"] and table.seated == 3 and started is None
    assert Table.from_json(table.to_json()) == table
    lobby.join(table.code, tg(2))
    table, started = lobby.add_bot(table.code, "tg:2", "easy")  # the fifth of five seats: the game begins
    assert started is not None and started.table.game == table.code
    assert reason(lobby.add_bot, table.code, "tg:1", "easy") == "begun"
    meta = lobby.ctx.store.meta(table.code)
    assert len(meta["players"]) == 5 and len(meta["bots"]) == 3
    assert sorted(meta["bot_levels"].values()) == ["easy", "hard", "normal"]
    assert set(meta["bot_levels"]) == {str(s) for s in meta["bots"]}


def test_an_old_table_without_bots_still_loads():
    table = Table("K7QX", "tg:1", "cs", [tg(1)])
    raw = table.to_json().replace(', "bots": []', "")
    assert "bots" not in raw and Table.from_json(raw) == table
