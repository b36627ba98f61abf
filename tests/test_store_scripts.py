"""The store's atomic Lua steps on fakeredis: submit, commit (CAS), deadline close, reminders, heartbeat, budget."""

import json

import fakeredis
import pytest

from service.store import Commit, Store, keys

G = "g1"


@pytest.fixture
def store():
    return Store(fakeredis.FakeRedis(server=fakeredis.FakeServer()))


def open_game(store, expected=(1, 2), window=5, version=0, prefilled=None, deadline=1000.0):
    """Commit a game whose window ``window`` waits for ``expected``."""
    return store.commit(
        G,
        Commit(
            version=version,
            window=None,
            engine_json="{}",
            next_window=window,
            status="collecting",
            deadline=deadline,
            now=100.0,
            expected=list(expected),
            prefilled=prefilled or {},
            streaks={},
            messages=[{"chat": "c", "text": "hi"}],
        ),
    )


def close(store):
    store.redis.hset(keys.snap(G), "status", "resolving")


def test_submit_counts_expected_answers_and_resolves_once(store):
    open_game(store)
    # the first accepted answer asks for a status refresh (no job pending), the next one joins it
    assert store.submit(G, 5, 1, [{"type": "pass"}], "u1", 101.0) == ("ACCEPTED", 1, True, False)
    assert store.submit(G, 5, 1, [{"type": "play"}], "u2", 102.0) == ("ACCEPTED", 1, False, False)  # replaced, 1 left
    assert store.answers(G) == {1: [{"type": "play"}]}
    assert store.take_refresh(G) == {1}  # the refresh job starts: the next accepted answer asks again
    assert store.redis.ttl(keys.refresh_mark(G)) == -2
    assert store.submit(G, 5, 2, [{"type": "pass"}], "u3", 103.0) == ("RESOLVE", 0, False, False)
    assert not store.redis.exists(keys.refresh_mark(G), keys.refresh_seats(G))  # the step's messages show it
    snap = store.load(G)
    assert (snap.status, snap.closed) == ("resolving", 103.0)
    assert store.submit(G, 5, 2, [{"type": "pass"}], "u4", 104.0) == ("CLOSED", 0, False, False)


def test_the_window_notes_whose_latest_answer_in_person_was_typed(store):
    open_game(store, expected=(1, 2, 3))
    store.submit(G, 5, 1, [{"type": "pass"}], "t1", 101.0, typed=True)
    store.submit(G, 5, 2, [{"type": "pass"}], "t2", 102.0, typed=True)
    store.submit(G, 5, 2, [{"type": "play"}], "q2", 103.0)  # then pressed a button: its latest answer
    store.submit(G, 5, 3, [{"type": "pass"}], "b3", 104.0, by_bot=True, typed=True)  # a bot's: not the player's
    answered_at, _, _, typed = store.absence(G)
    assert answered_at == {1: 101.0, 2: 102.0} and typed == {1}


def test_submit_refuses_wrong_window_unknown_game_and_duplicates(store):
    assert store.submit(G, 5, 1, [], None, 1.0) == ("NOGAME", 0, False, False)
    open_game(store)
    assert store.submit(G, 4, 1, [{"type": "pass"}], "a", 1.0) == ("STALE", 0, False, False)
    assert store.submit(G, 5, 1, [{"type": "pass"}], "a", 1.0) == ("ACCEPTED", 1, True, False)
    assert store.submit(G, 5, 1, [{"type": "other"}], "a", 1.0) == ("DUP", 0, False, False)
    assert store.answers(G) == {1: [{"type": "pass"}]}
    assert store.redis.ttl(keys.dedup(G)) > 80000


def test_answer_ahead_from_a_seat_not_asked_is_kept_but_not_counted(store):
    open_game(store, expected=(1,))
    assert store.submit(G, 5, 0, [{"type": "plan", "orders": []}], None, 1.0) == ("ACCEPTED", 1, True, False)
    assert store.submit(G, 5, 1, [{"type": "pass"}], None, 1.0) == ("RESOLVE", 0, False, False)


def test_answering_resets_the_autoplay_streak(store):
    open_game(store)
    store.set_streak(G, 1, 3)
    store.submit(G, 5, 1, [{"type": "pass"}], None, 1.0)
    assert store.streaks(G) == {}


def test_commit_is_a_compare_and_set_on_version_and_status(store):
    assert open_game(store) == 1
    assert open_game(store) == 0  # the game exists already
    c = Commit(
        version=1,
        window=5,
        engine_json='{"x":1}',
        next_window=6,
        status="collecting",
        deadline=2000.0,
        now=200.0,
        expected=[0],
        prefilled={2: [{"type": "pass"}]},
        streaks={1: 1, 2: 0},
        messages=[{"chat": "a", "text": "one"}, {"chat": "b", "text": "two"}],
    )
    assert store.commit(G, c) == 0  # window still collecting: not closed yet
    close(store)
    store.redis.hset(keys.answers(G), 1, "[]")  # the closed window's answers: dropped by the commit
    store.redis.sadd(keys.dedup(G), "u1")  # and their dedup ids
    assert store.commit(G, c) == 2
    assert not store.redis.exists(keys.dedup(G))
    assert store.commit(G, c) == 0  # the same resolution again loses
    snap = store.load(G)
    assert (snap.version, snap.window, snap.status, snap.json) == (2, 6, "collecting", '{"x":1}')
    assert store.expected(G) == {0}
    assert store.answers(G) == {2: [{"type": "pass"}]}
    assert store.streaks(G) == {1: 1}
    assert store.message(G, "v2", 1) == {"chat": "b", "text": "two"}
    assert store.batch_size(G, "v2") == 2
    assert store.resolution_log(G) == ["1:", "2:5"]


def test_deadline_close_only_after_the_deadline_and_only_while_collecting(store):
    open_game(store, deadline=1000.0)
    assert store.close_at_deadline(G, 5, 999.0) == ("EARLY", 1000.0)
    assert store.close_at_deadline(G, 4, 1001.0) == ("NOOP", None)
    assert store.close_at_deadline(G, 5, 1001.0) == ("CLOSED", None)
    assert store.close_at_deadline(G, 5, 1002.0) == ("NOOP", None)
    assert store.submit(G, 5, 1, [{"type": "pass"}], None, 1003.0) == ("CLOSED", 0, False, False)


def test_extend_deadline_moves_only_an_open_window(store):
    open_game(store, deadline=1000.0)
    assert store.extend_deadline(G, 5, 30.5) == 1030.5
    assert store.extend_deadline(G, 4, 10) is None
    close(store)
    assert store.extend_deadline(G, 5, 10) is None


def test_reminder_batch_is_written_once_and_only_while_open(store):
    open_game(store)
    assert store.write_reminder(G, 5, "w5r0", [{"chat": "c", "text": "hurry"}])
    assert not store.write_reminder(G, 5, "w5r0", [{"chat": "c", "text": "again"}])
    assert store.message(G, "w5r0", 0)["text"] == "hurry"
    close(store)
    assert not store.write_reminder(G, 5, "w5r1", [{"chat": "c", "text": "late"}])


def test_heartbeat_reports_the_gap_since_the_previous_beat(store):
    assert store.heartbeat(100.0) == 0
    assert store.heartbeat(130.0) == 30.0


def test_send_budget_token_buckets(store):
    args = (10.0, 2.0, 1.0, 1.0)  # global 10/s burst 2, chat 1/s burst 1
    assert store.take_send_token("a", 0.0, *args) == 0
    assert store.take_send_token("a", 0.0, *args) == pytest.approx(1.0)  # chat bucket empty
    assert store.take_send_token("b", 0.0, *args) == 0
    assert store.take_send_token("c", 0.0, *args) == pytest.approx(1 / 9)  # global bucket empty; a burst's first
    assert store.take_send_token("a", 1.0, *args) == 0  # second refills at 90 % of the rate
    assert store.throttled("a", 2.0, 3.0, 1.0, 3) is False  # a 429 for chat a: a waits, the others do not
    assert store.take_send_token("a", 2.0, *args) == pytest.approx(3.0)
    assert store.take_send_token("d", 2.0, *args) == 0
    assert store.throttled("b", 2.5, 3.0, 1.0, 3) is False
    assert store.throttled("c", 2.9, 2.0, 1.0, 3) is True  # three chats within a second: the bot's own limit
    assert store.take_send_token("e", 3.0, *args) == pytest.approx(1.9)
    assert store.throttled("f", 9.0, 1.0, 1.0, 3) is False  # the earlier 429s have left the window


def test_a_taker_whose_clock_was_read_earlier_does_not_turn_the_bucket_back(store):
    args = (10.0, 1.0, 5.0, 5.0)  # global 10/s burst 1
    assert store.take_send_token("a", 1.2, *args) == 0  # the bucket was full: empty now, counted to 1.2
    assert store.take_send_token("b", 2.5, *args) == 0  # refilled by 2.5
    assert store.take_send_token("c", 2.45, *args) > 0  # read its clock before b's script ran: nothing left
    store.redis.hset(keys.RATE_GLOBAL, "tokens", 1)  # a token back
    assert store.take_send_token("e", 2.3, *args) == 0  # a late script takes it: the bucket stays counted to 2.5
    assert store.take_send_token("f", 2.5, *args) > 0  # not refilled a second time for the 0.2 s between


def test_only_a_burst_after_a_quiet_second_refills_slower_in_its_first_second(store):
    args = (10.0, 1.0, 5.0, 5.0)  # global 10/s burst 1
    assert store.take_send_token("a", 0.0, *args) == 0
    assert store.take_send_token("b", 0.0, *args) == pytest.approx(1 / 9)  # the burst's first second: 9/s
    assert store.take_send_token("b", 1.5, *args) == 0  # quiet for a second and a half: a new burst
    assert store.take_send_token("c", 1.5, *args) == pytest.approx(1 / 9)
    assert store.take_send_token("c", 1.62, *args) == 0
    assert store.take_send_token("d", 2.6, *args) == 0  # less than a second after the last token: the same burst
    assert store.take_send_token("e", 2.6, *args) == pytest.approx(0.1)  # at the whole rate


def test_a_seats_message_short_of_the_global_budget_holds_back_the_groups_sends(store):
    args = (10.0, 1.0, 5.0, 5.0)  # global 10/s burst 1 (9/s in a burst's first second)
    assert store.take_send_token("group", 0.0, *args) == 0  # nothing waits: a status takes the token
    assert store.take_send_token("seat1", 0.0, *args, first=True) == pytest.approx(1 / 9)  # refused: flags until
    assert store.take_send_token("group", 0.1, *args) == pytest.approx(0.1)  # it tries again (0.111 + 0.03 s)
    assert store.take_send_token("seat1", 0.12, *args, first=True) == 0
    assert store.take_send_token("seat2", 0.12, *args, first=True) > 0  # flags until 0.261
    assert store.take_send_token("group", 0.2, *args) == pytest.approx(0.1)
    assert store.take_send_token("seat2", 0.24, *args, first=True) == 0
    assert store.take_send_token("group", 0.3, *args) == pytest.approx(0.46 / 9)  # no seat waits: the pace only
    assert store.take_send_token("group", 1.2, *args) == 0
    store.questions_coming(5.0, 0.5)  # windows resolved at their deadline: their questions are coming
    assert store.take_send_token("group", 5.2, *args) == pytest.approx(0.3)
    assert store.take_send_token("seat3", 5.2, *args, first=True) == 0
    store.questions_coming(5.1)  # never shortens the hold
    assert store.take_send_token("group", 5.5, *args) == 0


def test_indexes_player_to_games_and_chat_to_game(store):
    store.put_meta(G, {"players": {"0": {"user": "u0"}, "1": {"user": None}}, "group": "grp"}, 10.0)
    store.put_meta("g2", {"players": {"1": {"user": "u0"}}, "group": None}, 20.0)
    assert store.games_of_user("u0") == [("g2", 1), (G, 0)]  # the most recently begun first, with the seat
    assert store.games_of_user("nobody") == []
    assert store.game_of_chat("grp") == G
    assert json.loads(store.redis.hget(keys.meta(G), "json"))["group"] == "grp"


def test_every_key_of_a_game_shares_one_hash_tag():
    tagged = [
        keys.snap(G),
        keys.expected(G),
        keys.answers(G),
        keys.autoplays(G),
        keys.meta(G),
        keys.log(G),
        keys.outbox(G, "v1"),
        keys.dedup(G),
    ]
    assert {k[: k.index("}") + 1] for k in tagged} == {"{g:g1}"}
    with pytest.raises(ValueError):
        keys.check_game_id("a-b")


def test_the_player_indexes_of_older_versions_fold_into_the_one_index(store):
    """Games stored by the code before the restructure kept three player indexes (a set per Telegram user, the
    lobby's zset and hash per address); the first look-up folds them into `keys.player_games` and deletes them."""
    for game_id, seat, user in ((G, 2, "42"), ("g2", 1, "42"), ("g3", 0, "sms:+447777000111")):
        store.redis.hset(keys.meta(game_id), "json", json.dumps({"players": {str(seat): {"user": user}}}))
    store.redis.sadd("artemia:user:42", G, "g2")
    store.redis.zadd("artemia:joined:tg:42", {"g2": 5.0})
    store.redis.hset("artemia:seats:tg:42", "g2", 1)
    store.redis.sadd("artemia:user:sms:+447777000111", "g3")
    store.redis.zadd("artemia:joined:sms:+447777000111", {"g3": 7.0})
    store.redis.hset("artemia:seats:sms:+447777000111", "g3", 0)
    assert store.games_of_user("42") == [("g2", 1), (G, 2)]
    assert store.games_of_user("sms:+447777000111") == [("g3", 0)]
    assert not store.redis.keys("artemia:user:*") and not store.redis.keys("artemia:joined:*")
    assert not store.redis.keys("artemia:seats:*")
    assert store.games_of_user("42") == [("g2", 1), (G, 2)]  # from the one index now


@pytest.mark.parametrize("keep", [False, True])
def test_a_done_message_leaves_its_batch_and_a_newer_version_behind_the_head_replaces_an_older_one(keep):
    """A sent message's body goes at once (the audit mode keeps it beside its mark); queuing a newer version of a
    living message takes the older versions waiting behind the lane's head off the lane, marked sent."""
    store = Store(fakeredis.FakeRedis(server=fakeredis.FakeServer()), keep_sent=keep)
    status = {"chat": "grp", "slot": "s"}
    store.write_batch(G, "v1", [{**status, "text": "1", "seq": 1}, {"chat": "p", "text": "question"}])
    store.write_batch(G, "v2", [{**status, "text": "2", "seq": 2}])
    store.write_batch(G, "r1", [{**status, "text": "screen"}])
    assert [e.raw for e in store.lane(G, "grp")] == ["v1|0|s|1", "v2|0|s|2", "r1|0|s|"]  # a screen replaces no step
    store.write_batch(G, "v3", [{**status, "text": "3", "seq": 3}, {"chat": "grp", "text": "other"}])
    assert [e.raw for e in store.lane(G, "grp")] == [
        "v1|0|s|1",
        "v3|0|s|3",
        "v3|1||",
    ]  # the head stays: it may be sending
    for batch in ("v2", "r1"):  # marked sent, never a send: their batches, all done, are gone (unless audited)
        assert store.send_state(G, batch, 0) == ("sent" if keep else None)
        assert store.redis.exists(keys.outbox(G, batch)) == keep
    assert store.mark_sent(G, "v1", 1) is False  # the group's head still waits: the batch stays, without the body
    assert (store.message(G, "v1", 1) is not None) == keep and store.send_state(G, "v1", 1) == "sent"
    assert store.batch_size(G, "v1") == 2 and store.batch_chats(G, "v1") == (["grp", "p"] if keep else ["grp"])
    assert store.mark_sent(G, "v1", 0) is not keep  # the last one: the batch goes (unless audited)
    assert store.redis.exists(keys.outbox(G, "v1")) == keep
