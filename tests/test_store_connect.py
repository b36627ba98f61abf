"""Reaching Redis: by URL or through Sentinel (``service.store.connect``), and "acknowledged means replicated"
(the store's WAIT after a recorded answer or a commit), on the test's real redis-server, which has no replica; and
the scripts that share a round trip with other commands (sent by their SHA alone, loaded again when the server
forgot them)."""

import time

import pytest
import redis
from redis.sentinel import SentinelConnectionPool

from service.channels.telegram.tables import Admitted, Tables
from service.config import Settings
from service.pipeline.floods import Admission
from service.store import Commit, NotReplicated, Store, connect, keys
from tests.real_redis import fresh_database, server_url


def test_sentinels_are_read_as_host_port_pairs_and_a_bad_one_is_named():
    settings = Settings(redis_sentinels=" 10.0.0.1:26379, sentinel-b:26380 ,[::1]:26381")
    assert connect.sentinel_addresses(settings) == [("10.0.0.1", 26379), ("sentinel-b", 26380), ("[::1]", 26381)]
    with pytest.raises(ValueError, match="'nope'"):
        connect.sentinel_addresses(Settings(redis_sentinels="10.0.0.1:26379,nope"))


def test_rq_gets_the_same_connection_as_the_service():
    assert connect.rq_settings(Settings(redis_url="redis://h:1/2")) == {"REDIS_URL": "redis://h:1/2"}
    with_sentinels = connect.rq_settings(
        Settings(redis_url="redis://ignored", redis_sentinels="a:1,b:2", redis_sentinel_service="svc", redis_db=3)
    )
    assert with_sentinels["REDIS_URL"] is None  # RQ reads REDIS_URL first: it must not win over the sentinels
    assert with_sentinels["SENTINEL"]["INSTANCES"] == [("a", 1), ("b", 2)]
    assert (with_sentinels["SENTINEL"]["MASTER_NAME"], with_sentinels["SENTINEL"]["DB"]) == ("svc", 3)


def test_without_url_or_sentinels_there_is_no_connection():
    assert not connect.configured(Settings(redis_url=None))
    with pytest.raises(connect.NotConfigured):
        connect.connect(Settings(redis_url=None))


def test_with_sentinels_the_connection_asks_them_for_the_primary():
    settings = Settings(redis_sentinels="10.9.9.9:26379", redis_sentinel_service="svc", redis_password="pw")
    pool = connect.connect(settings).connection_pool
    assert isinstance(pool, SentinelConnectionPool) and pool.service_name == "svc" and pool.is_master
    assert pool.sentinel_manager.sentinels[0].connection_pool.connection_kwargs["host"] == "10.9.9.9"
    assert pool.connection_kwargs["password"] == "pw"  # the data nodes' password, not the sentinels'


def test_a_shard_can_be_a_sentinel_service_of_its_own():
    settings = Settings(
        redis_sentinels="10.9.9.9:26379", redis_sentinel_service="index", redis_shards="sentinel:g0, redis://h:1/0"
    )
    first, second = connect.connect_shards(settings)
    assert isinstance(first.connection_pool, SentinelConnectionPool) and first.connection_pool.service_name == "g0"
    assert second.connection_pool.connection_kwargs["host"] == "h"
    assert connect.connect(settings).connection_pool.service_name == "index"  # the global indexes
    worker = connect.rq_settings(settings.model_copy(update={"shard": 0}))
    assert worker["REDIS_URL"] is None and worker["SENTINEL"]["MASTER_NAME"] == "g0"
    assert connect.rq_settings(settings.model_copy(update={"shard": 1})) == {"REDIS_URL": "redis://h:1/0"}
    with pytest.raises(ValueError, match="sentinel:g0"):
        connect.shard_urls(Settings(redis_shards="sentinel:g0"))  # no sentinels to ask
    with pytest.raises(ValueError, match="'sentinel:'"):
        connect.shard_urls(settings.model_copy(update={"redis_shards": "sentinel:"}))


def _open(store, game="g1"):
    return store.commit(
        game,
        Commit(
            version=0,
            window=None,
            engine_json="{}",
            next_window=5,
            status="collecting",
            deadline=1e12,
            now=1.0,
            expected=[1, 2],
            prefilled={},
            streaks={},
            messages=[],
            actions=[],
        ),
    )


@pytest.mark.integration
def test_an_answer_no_replica_confirmed_is_not_acknowledged():
    connection = redis.Redis.from_url(fresh_database(server_url()))
    assert _open(Store(connection)) == 1
    waiting = Store(connection, ack_replicas=1, ack_timeout_ms=50)
    started = time.monotonic()
    with pytest.raises(NotReplicated, match="0 of 1 replicas confirmed within 50 ms"):
        waiting.submit("g1", 5, 1, [{"type": "pass"}], "u1", 2.0)
    assert time.monotonic() - started >= 0.05  # it waited for the replica
    assert isinstance(NotReplicated("x"), redis.exceptions.ConnectionError)  # the web answers 5xx, jobs retry
    # the retry (same update id) is a duplicate for the script, and still not acknowledged without a replica
    with pytest.raises(NotReplicated):
        waiting.submit("g1", 5, 1, [{"type": "pass"}], "u1", 2.0)
    # without the setting the primary's word is enough
    assert Store(connection).submit("g1", 5, 1, [{"type": "pass"}], "u1", 2.0) == ("DUP", 0, False, False)
    assert connection.ttl(keys.dedup("g1")) > 0
    # a retry that finds its window closed asks whether the answer was recorded: no more acknowledged than that
    with pytest.raises(NotReplicated):
        waiting.recorded("g1", "u1")
    assert Store(connection).recorded("g1", "u1") and not Store(connection).recorded("g1", "u2")


@pytest.mark.integration
def test_a_commit_no_replica_confirmed_is_not_acknowledged():
    connection = redis.Redis.from_url(fresh_database(server_url()))
    with pytest.raises(NotReplicated):
        _open(Store(connection, ack_replicas=1, ack_timeout_ms=20), "g2")


def script_exists_calls(connection) -> int:
    return int(connection.info("commandstats").get("cmdstat_script|exists", {}).get("calls", 0))


@pytest.mark.integration
def test_an_acknowledged_answer_asks_nothing_more_and_outlives_a_server_that_forgot_its_scripts():
    connection = redis.Redis.from_url(fresh_database(server_url()))
    assert _open(Store(connection)) == 1
    waiting = Store(connection, ack_replicas=1, ack_timeout_ms=10)
    connection.script_flush()  # a restarted or failed-over server knows no script
    connection.config_resetstat()
    with pytest.raises(NotReplicated):
        waiting.submit("g1", 5, 1, [{"type": "pass"}], "u1", 2.0)
    assert connection.sismember(keys.dedup("g1"), "u1")  # loaded again, and run
    with pytest.raises(NotReplicated):
        waiting.submit("g1", 5, 1, [{"type": "pass"}], "u2", 2.0)
    assert connection.hget(keys.answers("g1"), "1") == b'[{"type": "pass"}]'
    # the script and its WAIT in one round trip: redis-py's own pipelined scripts would ask SCRIPT EXISTS first
    assert script_exists_calls(connection) == 0


@pytest.mark.integration
def test_a_telegram_press_is_admitted_in_one_round_trip_with_the_callers_reads():
    connection = redis.Redis.from_url(fresh_database(server_url()))
    tables = Tables(connection)
    tables.set_lang(7, "cs")
    connection.set("other", "read")
    connection.script_flush()
    connection.config_resetstat()
    bucket = (keys.inbound_bucket("tg:7"), ["100.0", 1.0, 2, "1"])
    admitted = tables.admit(41, 7, bucket, lambda pipe: pipe.get("other"))
    assert admitted == Admitted(seen=False, lang="cs", verdict=Admission.READ, reads=(b"read",))
    assert tables.reachable(7) and connection.hget(keys.inbound_bucket("tg:7"), "tokens") == b"1"
    assert tables.admit(42, 8, (keys.inbound_bucket("tg:8"), ["100.0", 1.0, 2, "1"])).lang is None
    assert tables.admit(41, 7, bucket).verdict is Admission.READ  # not marked handled: admitted again
    assert tables.admit(41, 7, bucket).verdict is Admission.SLOW_DOWN
    tables.mark_seen(41)
    before = {key: connection.dump(key) for key in connection.keys()}
    assert tables.admit(41, 7, bucket, lambda pipe: pipe.get("other")) == Admitted(seen=True, reads=(b"read",))
    assert {key: connection.dump(key) for key in connection.keys()} == before  # a handled update changes nothing
    assert script_exists_calls(connection) == 0


@pytest.mark.integration
def test_a_delivered_message_is_marked_with_what_it_shows_and_taken_off_its_lane_in_one_round_trip():
    connection = redis.Redis.from_url(fresh_database(server_url()))
    store = Store(connection)
    store.write_batch("g3", "v1", [{"chat": "c", "text": "one", "slot": "s"}, {"chat": "c", "text": "two"}])
    lane = store.lane("g3", "c")
    assert len(lane) == 2
    connection.script_flush()  # a restarted or failed-over server knows no script
    connection.config_resetstat()
    left, then = store.drop_from_lane("g3", "c", lane[0], "sent", ("s", "digest-1", 2), ("s", 7), then=lane[1])
    assert left == lane[1:]  # what is left, and the state of the next head read after the writes
    assert then == store.head_state("g3", "c", lane[1]) and then is not None and then.message["text"] == "two"
    assert store.send_state("g3", "v1", 0) == "sent" and store.shown("g3", "c", "s") == "digest-1"
    assert store.shown_news_lines("g3", "c", "s") == 2 and store.slot_seq("g3", "c", "s") == 7
    connection.set(keys.lane_lock("g3", "c"), "my-token")
    assert store.drop_from_lane("g3", "c", lane[1], "sent", release="another token") == ([], None)
    assert connection.get(keys.lane_lock("g3", "c")) == b"my-token"  # never another deliverer's lease
    assert store.drop_from_lane("g3", "c", lane[1], "sent", release="my-token") == ([], None)
    assert not connection.exists(keys.lane_lock("g3", "c"))  # the last message's drop gave the lease back
    assert not connection.exists(keys.outbox("g3", "v1"))  # the batch is complete: deleted
    assert store.drop_from_lane("g3", "c", lane[1], "sent") == ([], None)  # again (a retried job): nothing written
    assert not connection.exists(keys.outbox("g3", "v1"))
    assert script_exists_calls(connection) == 0


@pytest.mark.integration
def test_a_new_living_message_forgets_the_chats_records_of_its_kind_but_the_one_before():
    connection = redis.Redis.from_url(fresh_database(server_url()))
    store = Store(connection)

    def deliver(chat: str, slot: str, seq: int) -> None:
        store.write_batch("g4", f"v{seq}", [{"chat": chat, "text": slot, "slot": slot}])
        [head] = store.lane("g4", chat)
        store.drop_from_lane("g4", chat, head, "sent", (slot, f"digest {slot}", 1), (slot, seq))
        connection.hset(keys.telegram_slots("g4"), mapping={f"{chat}|{slot}": seq, f"{chat}|{slot}|picture": "d"})

    for turn in (1, 2):
        deliver("42", f"g4:p{turn}", turn * 100)
        deliver("-7", f"g4:s{turn}", turn * 100 + 1)
    connection.hset(keys.shown("g4"), "-7|g4:s1|unclosed", "{}")  # its closing version is still owed
    connection.hset(keys.telegram_slots("g4"), "-7|no pictures", "1")
    deliver("42", "g4:p2", 250)  # a later version of a slot delivered before forgets nothing
    assert store.slot_seq("g4", "42", "g4:p1") == 100
    deliver("42", "g4:p9", 900)  # the first of a new one: p1 goes, p2 (the one before) stays
    deliver("-7", "g4:s9", 901)  # s1 is kept for its closing version
    assert store.slot_seq("g4", "42", "g4:p1") == -1 and store.shown("g4", "42", "g4:p1") is None
    assert store.slot_seq("g4", "42", "g4:p2") == 250 and store.shown("g4", "42", "g4:p2") == "digest g4:p2"
    assert store.shown_news_lines("g4", "42", "g4:p1") == 0
    assert store.slot_seq("g4", "-7", "g4:s1") == 101 and store.shown("g4", "-7", "g4:s1") == "digest g4:s1"
    kept = [("42", "p2"), ("42", "p9"), ("-7", "s1"), ("-7", "s2"), ("-7", "s9")]
    assert sorted(connection.hkeys(keys.telegram_slots("g4"))) == sorted(
        [f"{chat}|g4:{slot}{suffix}".encode() for chat, slot in kept for suffix in ("", "|picture")]
        + [b"-7|no pictures"]
    )
