"""The Twilio REST sender against the fake Twilio on 127.0.0.1: the request, the error mapping, the stop list,
the ASCII setting, and the per-number budget of the outbox."""

import fakeredis
import pytest
from fake_twilio import FakeTwilio, serve
from pipeline_support import Clock

from service.channels.sms.directory import Directory
from service.channels.sms.sender import TwilioSender
from service.config import Settings
from service.pipeline import outbox
from service.pipeline.outbox import PermanentSendError, RetryAfter, TransientSendError
from service.store import Store

ANNA, BEDA = "+447700000001", "+447700000002"


@pytest.fixture(scope="module")
def twilio():
    fake = FakeTwilio(auth_token="secret")
    with serve(fake.app) as base_url:
        fake.base_url = base_url
        yield fake


@pytest.fixture
def redis_():
    return fakeredis.FakeRedis(server=fakeredis.FakeServer())


@pytest.fixture
def sender(twilio, redis_):
    twilio.sent.clear()
    twilio.failures.clear()
    settings = Settings(
        twilio_account_sid=twilio.account_sid,
        twilio_auth_token="secret",
        twilio_from="+15005550006",
        twilio_api_base_url=twilio.base_url,
    )
    return TwilioSender(settings, Directory(redis_))


def test_sends_to_the_number_from_ours_with_basic_auth(twilio, sender):
    sender.send(f"sms:{ANNA}", "K7QX T1 Exploration: play 1-5.")
    assert twilio.sent == [{"To": ANNA, "From": "+15005550006", "Body": "K7QX T1 Exploration: play 1-5."}]


def test_wrong_credentials_are_a_permanent_failure(twilio, sender):
    sender.settings = sender.settings.model_copy(update={"twilio_auth_token": "wrong"})
    with pytest.raises(PermanentSendError):
        sender.send(f"sms:{ANNA}", "hello")
    assert twilio.sent == []


def test_ascii_setting_and_gsm_punctuation_apply_at_send_time(twilio, sender):
    sender.send(f"sms:{ANNA}", "K7QX K1 Průzkum — hraj Řeku")
    sender.directory.set_prefs(ANNA, 86400, ascii=True)
    sender.send(f"sms:{ANNA}", "K7QX K1 Průzkum — hraj Řeku")
    assert twilio.to(ANNA) == ["K7QX K1 Průzkum - hraj Řeku", "K7QX K1 Pruzkum - hraj Reku"]


def test_429_means_retry_after(twilio, sender):
    twilio.fail(429, code=20429, retry_after=7)
    with pytest.raises(RetryAfter) as exc:
        sender.send(f"sms:{ANNA}", "x")
    assert exc.value.seconds == 7
    twilio.fail(429)
    with pytest.raises(RetryAfter) as exc:
        sender.send(f"sms:{ANNA}", "x")
    assert exc.value.seconds == 5.0


def test_5xx_is_transient_and_a_dead_server_too(twilio, sender):
    twilio.fail(503)
    with pytest.raises(TransientSendError):
        sender.send(f"sms:{ANNA}", "x")
    sender.url = "http://127.0.0.1:9/2010-04-01/Accounts/x/Messages.json"  # nothing listens on port 9
    with pytest.raises(TransientSendError):
        sender.send(f"sms:{ANNA}", "x")


def test_21610_marks_the_number_stopped_and_nothing_more_is_sent_to_it(twilio, sender):
    twilio.fail(400, code=21610, to=BEDA)
    sender.send(f"sms:{ANNA}", "to anna")  # other numbers are not affected
    with pytest.raises(PermanentSendError):
        sender.send(f"sms:{BEDA}", "to beda")
    assert sender.directory.prefs(BEDA).stopped
    requests = twilio.requests
    with pytest.raises(PermanentSendError):
        sender.send(f"sms:{BEDA}", "again")
    assert twilio.requests == requests  # no request at all for a stopped number
    assert twilio.to(ANNA) == ["to anna"] and twilio.to(BEDA) == []


def test_other_4xx_is_permanent_and_other_channels_are_refused(twilio, sender):
    twilio.fail(400, code=21211)  # invalid 'To' number
    with pytest.raises(PermanentSendError):
        sender.send(f"sms:{ANNA}", "x")
    assert not sender.directory.prefs(ANNA).stopped
    with pytest.raises(PermanentSendError):
        sender.send("12345", "a Telegram chat")


def test_the_outbox_budget_is_per_number(twilio, sender, redis_):
    """Through the pipeline's outbox: a second message to the same number waits for its token; another
    number's message goes at once."""
    store, clock = Store(redis_), Clock()
    settings = Settings(rate_private_per_second=0.5, rate_private_burst=1)
    chats = [f"sms:{ANNA}", f"sms:{ANNA}", f"sms:{BEDA}"]
    store.write_batch(
        "G1", "v1", [{"chat": c, "text": f"m{i}", "seat": i, "group": False} for i, c in enumerate(chats)]
    )

    def drain(chat):
        return outbox.drain(store, sender, settings, "G1", chat, clock, clock.advance)

    anna = drain(f"sms:{ANNA}")
    assert [o.status for o in anna.outcomes] == ["sent", "wait"] and anna.again == pytest.approx(
        2.0, abs=0.05
    )  # (less the global budget's short wait)
    assert [o.status for o in drain(f"sms:{BEDA}").outcomes] == ["sent"]
    clock.advance(2.0)
    assert [o.status for o in drain(f"sms:{ANNA}").outcomes] == ["sent"]
    assert twilio.to(ANNA) == ["m0", "m1"] and twilio.to(BEDA) == ["m2"]
