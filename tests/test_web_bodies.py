"""Every route refuses a body over ``ARTEMIA_MAX_BODY_BYTES`` with 413 before reading it: declared by
``Content-Length`` or streamed in chunks, through the real app served by uvicorn (`sms_support.world`).
The memory and time a 50 MB body costs are measured by ``python -m bench.bodies`` (docs/BENCHMARKS.md)."""

from fake_twilio import twilio_signature
from sms_support import URL, redis_state, world_fixtures

from service.web import SECRET_HEADER

served, world = world_fixtures("bodies-token", seed=1, over_http=True)
CAP = 65536


def chunks(total: int, size: int = 8192):
    """A body of ``total`` bytes sent without Content-Length (Transfer-Encoding: chunked)."""
    sent = 0
    while sent < total:
        piece = min(size, total - sent)
        sent += piece
        yield b"a" * piece


def test_a_declared_body_over_the_cap_is_413_on_every_route_and_changes_nothing(world):
    assert world.endpoint.settings.max_body_bytes == CAP  # the default
    before = redis_state(world.ctx.store.redis, ignore=(b"artemia:metrics",))
    big = b"x" * (CAP + 1)
    telegram = world.client.post("/telegram/webhook", content=big, headers={SECRET_HEADER: "tg-secret"})
    assert telegram.status_code == 413 and "65536" in telegram.text
    assert world.client.post("/sms/twilio", content=big).status_code == 413
    assert world.client.post("/healthz", content=big).status_code == 413  # before routing: any path, any method
    assert world.client.post("/no/such/route", content=big).status_code == 413
    assert redis_state(world.ctx.store.redis, ignore=(b"artemia:metrics",)) == before


def test_a_streamed_body_over_the_cap_is_413_and_changes_nothing(world):
    before = redis_state(world.ctx.store.redis, ignore=(b"artemia:metrics",))
    for path, headers in (("/telegram/webhook", {SECRET_HEADER: "tg-secret"}), ("/sms/twilio", {})):
        response = world.client.post(path, content=chunks(4 * CAP), headers=headers)
        assert response.status_code == 413, (path, response.status_code, response.text)
    assert redis_state(world.ctx.store.redis, ignore=(b"artemia:metrics",)) == before


def test_bodies_up_to_the_cap_are_handled_as_before(world):
    form = {"MessageSid": "SMcap", "From": "+447700000001", "Body": "HELP", "Pad": "p" * (CAP - 200)}
    signed = twilio_signature(world.twilio.auth_token, URL, form)
    response = world.post(form, signed)
    assert response.status_code == 200 and "<Message>" in response.text
    streamed = world.client.post("/telegram/webhook", content=chunks(CAP - 1), headers={SECRET_HEADER: "tg-secret"})
    assert streamed.status_code == 400  # read whole and found malformed: not refused for its size
