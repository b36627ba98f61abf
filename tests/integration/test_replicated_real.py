"""Acknowledged means replicated for every change a message makes, not only for answers (issue 39, point 5): with
``ARTEMIA_REDIS_ACK_REPLICAS=1``, an SMS STOP is confirmed only once the replica has it. A real primary and replica
(redis-server processes); the replica is paused with SIGSTOP, as a machine that stops answering."""

import signal

import pytest
import redis
from sms_support import FakeTwilio, serve, world_of

from service.channels.sms.directory import Directory
from tests.sentinel_cluster import Cluster

pytestmark = pytest.mark.integration
ANNA = "+447700000201"
STOP_SID = "SM" + "5" * 32  # Twilio retries a message with its own sid


@pytest.fixture
def pair():
    cluster = Cluster(replicas=1, sentinels=0).start()
    yield cluster
    cluster.stop()


def test_a_stop_is_not_confirmed_while_the_replica_is_away_and_a_retry_takes_effect_on_both(pair):
    primary = redis.Redis(port=pair.primary_port)
    replica = redis.Redis(port=pair.replica_ports[0])
    twilio = FakeTwilio(auth_token="replicated")
    with (
        serve(twilio.app) as base_url,
        world_of(twilio, base_url, connection=primary, redis_ack_replicas=1, redis_ack_timeout_ms=300) as world,
    ):
        assert world.reply(ANNA, "HELP")  # with the replica there: confirmed as ever
        replica_proc = pair.procs[pair.replica_ports[0]]
        replica_proc.send_signal(signal.SIGSTOP)
        try:
            refused = world.text(ANNA, "STOP", sid=STOP_SID)
            assert refused.status_code >= 500  # not confirmed: Twilio sends it again
        finally:
            replica_proc.send_signal(signal.SIGCONT)
        pair.wait_replicas(pair.primary_port, 1)
        retried = world.text(ANNA, "STOP", sid=STOP_SID)  # Twilio's retry, the same message id
        assert retried.status_code == 200 and "no more messages" in retried.text
        assert Directory(replica).prefs(ANNA).stopped  # on the replica too: a failover now keeps the opt-out
