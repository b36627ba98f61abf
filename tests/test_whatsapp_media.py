"""The board pictures WhatsApp fetches (`service.channels.sms.media`): published under an unguessable token that
expires, drawn once for Twilio's HEAD then GET, and a bare 404 for any token that is not a live one."""

import re

import fakeredis
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from service import board
from service.channels.sms import media
from service.game import new_game

PNG = b"\x89PNG\r\n\x1a\n"
TTL = 600


@pytest.fixture
def connection():
    return fakeredis.FakeRedis()


@pytest.fixture
def client(connection):
    app = Starlette(routes=media.ROUTES)
    app.state.media = media.MediaEndpoint(connection)
    with TestClient(app) as client:
        yield client


@pytest.fixture(autouse=True)
def empty_cache(monkeypatch):
    """Each test starts from an empty cache of drawn PNGs (``drawings``, tests/conftest.py, counts them)."""
    monkeypatch.setattr(media, "_drawn", type(media._drawn)())


def payload(lang: str = "en") -> dict:
    game = new_game({"players": 3, "seed": 1})
    return board.payload("g1", game.public_view(), {0: "Ann", 1: "Bob", 2: "Cy"}, lang, 1)


def path_of(url: str) -> str:
    return url[len("https://example.org") :]


def publish(connection, lang: str = "en", ttl: int = TTL) -> str:
    return media.publish(connection, payload(lang), ttl, "https://example.org/")


def test_publish_stores_the_compressed_payload_under_a_fresh_token_with_its_expiry(connection):
    url = publish(connection)
    match = re.fullmatch(r"https://example\.org/m/([A-Za-z0-9_-]{32})\.png", url)
    assert match, url
    key = f"artemia:wa:media:{match[1]}"
    assert media.media_key(match[1]) == key
    assert 0 < connection.ttl(key) <= TTL
    raw = connection.get(key)
    assert raw[:1] != b"{"  # compressed
    assert publish(connection) != url  # the same payload again: another token
    with pytest.raises(ValueError):
        media.publish(connection, payload(), 0, "https://example.org")


def test_get_draws_the_png_with_its_headers(connection, client, drawings):
    url = publish(connection)
    answer = client.get(path_of(url))
    assert answer.status_code == 200
    assert answer.content.startswith(PNG)
    headers = answer.headers
    assert headers["content-type"] == "image/png"
    assert int(headers["content-length"]) == len(answer.content)
    cache = re.fullmatch(r"public, max-age=(\d+), immutable", headers["cache-control"])
    assert cache and 0 < int(cache[1]) <= TTL
    digest = board.picture(payload()).digest
    assert headers["etag"] == f'"{digest}"'
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-robots-tag"] == "noindex"
    assert len(drawings) == 1


def test_head_then_get_draws_once_with_the_same_headers(connection, client, drawings):
    path = path_of(publish(connection))
    head = client.head(path)
    assert head.status_code == 200 and head.content == b""
    got = client.get(path)
    assert got.status_code == 200 and got.content.startswith(PNG)
    assert head.headers["content-length"] == got.headers["content-length"] == str(len(got.content))
    for name in ("content-type", "etag", "x-content-type-options", "referrer-policy", "x-robots-tag"):
        assert head.headers[name] == got.headers[name]
    assert len(drawings) == 1  # the GET found the HEAD's drawing
    assert client.get(path_of(publish(connection))).content == got.content  # another token, the same picture
    assert len(drawings) == 1


def test_a_matching_if_none_match_is_a_304_without_drawing(connection, client, drawings):
    path = path_of(publish(connection))
    etag = f'"{board.picture(payload()).digest}"'
    for given in (etag, f'W/{etag}, "other"', "*"):
        answer = client.get(path, headers={"If-None-Match": given})
        assert answer.status_code == 304 and answer.content == b""
        assert answer.headers["etag"] == etag
        assert answer.headers["cache-control"].endswith(", immutable")
    assert drawings == []
    assert client.get(path, headers={"If-None-Match": '"other"'}).status_code == 200
    assert len(drawings) == 1


def test_unknown_malformed_and_expired_tokens_are_the_same_404(connection, client, drawings):
    expired = publish(connection, ttl=1)
    token = re.search(r"/m/(.+)\.png$", expired)[1]
    connection.expire(media.media_key(token), 0)
    assert connection.get(media.media_key(token)) is None
    unknown = "A" * 32
    connection.set(media.media_key("short"), b"x")  # a key a malformed token might name: never read
    paths = [
        path_of(expired),
        f"/m/{unknown}.png",
        "/m/short.png",
        "/m/..%2Fx.png",
        f"/m/{'a' * 65}.png",
        f"/m/{'a' * 20}!.png",
    ]
    answers = [client.get(path) for path in paths]
    assert [answer.status_code for answer in answers] == [404] * len(paths)
    assert {answer.content for answer in answers} == {media.NOT_FOUND}
    assert {answer.headers["cache-control"] for answer in answers} == {"no-store"}
    assert "etag" not in answers[0].headers
    assert client.head(f"/m/{unknown}.png").status_code == 404
    assert drawings == []


def test_a_czech_board_draws_too(connection, client, drawings):
    english, czech = client.get(path_of(publish(connection))), client.get(path_of(publish(connection, "cs")))
    assert czech.status_code == 200 and czech.content.startswith(PNG)
    assert czech.headers["etag"] != english.headers["etag"]
    assert len(drawings) == 2


def test_build_takes_the_index_connection():
    class Store:
        redis = fakeredis.FakeRedis()

    class Ctx:
        store = Store()

    assert media.build(Ctx()).connection is Store.redis  # type: ignore[arg-type]
