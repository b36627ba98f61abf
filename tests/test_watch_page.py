"""The watch page (issue 18): a game's unguessable token and its Watch button, the page and its JSON (the board,
the counters, the turn log), live versions and the replay's steps, the caching headers, the size, and that only
public information reaches it."""

import re

import pytest
from pipeline_support import CONFIG, answer_all, make_ctx, run_jobs, table
from starlette.testclient import TestClient

from service.cardnames import name
from service.channels.telegram.handling import Env
from service.channels.telegram.tables import Tables
from service.game import Game
from service.pipeline import cancelling, ingest, standins, watch
from service.pipeline.botplay import bot_answer
from service.pipeline.resolution import start_game
from service.web import create_app

PUBLIC = "https://watch.example.org"


def client_of(ctx) -> TestClient:
    return TestClient(create_app(Env(ctx, Tables(ctx.store.redis), "bot"), "secret"))


@pytest.fixture
def live():
    """A running 4-player game on the console with one human (seat 1): it waits for them every window."""
    ctx = make_ctx(public_url=PUBLIC)
    start_game(ctx, "live1", {**CONFIG, "players": 4}, table(4, humans=[1]))
    run_jobs(ctx)
    return ctx, ctx.store.meta("live1")["watch"]


@pytest.fixture
def finished():
    """A 3-player bots-only game played to its end, with a Czech table."""
    ctx = make_ctx(public_url=PUBLIC)
    start_game(ctx, "done1", {**CONFIG, "seed": 11}, {**table(3, humans=[]), "lang": "cs"})
    run_jobs(ctx)
    assert ctx.store.load("done1").status == "over"
    return ctx, ctx.store.meta("done1")["watch"]


def test_every_game_gets_its_own_unguessable_token_indexed_by_the_store():
    ctx = make_ctx()
    for game_id in ("t1", "t2"):
        start_game(ctx, game_id, CONFIG, table(3, humans=[1]))
    tokens = [ctx.store.meta(g)["watch"] for g in ("t1", "t2")]
    assert tokens[0] != tokens[1]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{22,}", t) for t in tokens)  # 128 random bits
    assert [ctx.store.game_of_watch(t) for t in tokens] == ["t1", "t2"]
    assert ctx.store.game_of_watch("t1") is None


def test_the_watch_url_needs_the_public_url_setting():
    meta = {"watch": "abcdefghijklmnopqrstuv"}
    assert watch.url(make_ctx().settings, meta) is None
    assert watch.url(make_ctx(public_url="ftp://x").settings, meta) is None
    assert watch.url(make_ctx(public_url=PUBLIC + "/").settings, meta) == PUBLIC + "/w/abcdefghijklmnopqrstuv"


@pytest.mark.parametrize("public_url", [PUBLIC, None])
def test_the_groups_status_message_carries_the_watch_button_only_with_a_public_url(public_url):
    ctx = make_ctx(public_url=public_url)
    meta = {**table(3, humans=[1, 2]), "group": "-100777"}
    meta["players"]["1"]["chat"], meta["players"]["2"]["chat"] = "11", "12"
    start_game(ctx, "tg1", CONFIG, meta)
    run_jobs(ctx)
    to_group = [m for m in ctx.sender.sent() if m["chat"] == "-100777"]
    assert to_group
    token = ctx.store.meta("tg1")["watch"]
    for m in to_group:
        if public_url:
            assert m["buttons"] == [[{"text": "👁 Watch", "url": f"{PUBLIC}/w/{token}"}]]
        else:
            assert not m["buttons"]
    private = [m for m in ctx.sender.sent() if m["chat"] in ("11", "12")]
    assert private and not any("url" in b for m in private for row in m["buttons"] or [] for b in row)


def test_the_page_shows_the_board_counters_and_log_of_the_running_game(live):
    ctx, token = live
    response = client_of(ctx).get(f"/w/{token}")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    html = response.text
    assert '<figure id="w-board"><svg' in html and 'id="rescue-counter"' in html
    assert 'class="counter rescue"' in html and 'class="counter assimilation"' in html
    assert "Waiting for: P1" in html and 'data-live="1"' in html and "w-nav" not in html
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert "script-src 'self'" in response.headers["content-security-policy"]


def test_a_move_gives_a_new_version_and_the_old_etag_stops_matching(live):
    ctx, token = live
    client = client_of(ctx)
    before = client.get(f"/w/{token}/data.json")
    etag = before.headers["etag"]
    assert client.get(f"/w/{token}/data.json", headers={"If-None-Match": etag}).status_code == 304
    answer_all(ctx, "live1")
    after = client.get(f"/w/{token}/data.json", headers={"If-None-Match": etag})
    assert after.status_code == 200 and after.headers["etag"] != etag
    assert after.json()["version"] > before.json()["version"]
    assert after.json()["steps"] > before.json()["steps"]
    assert after.json()["parts"]["board"].startswith("<svg")


def test_unknown_or_malformed_tokens_are_not_found(live):
    ctx, token = live
    client = client_of(ctx)
    for path in ("/w/" + "A" * 22, "/w/short", f"/w/{token[:-1]}x/data.json", "/w/" + "é" * 22):
        response = client.get(path)
        assert response.status_code == 404 and "svg" not in response.text


def test_bad_steps_and_languages_are_refused_with_a_reason_and_a_step_past_the_end_shows_the_last(finished):
    ctx, token = finished
    client = client_of(ctx)
    last = client.get(f"/w/{token}/data.json").json()["steps"] - 1
    assert client.get(f"/w/{token}/data.json?step=999999").json()["step"] == last
    assert client.get(f"/w/{token}/data.json?lang=en").json()["where"].startswith("Step")
    for query in ("?step=²", "?step=-1", "?step=1234567", "?step=" + "9" * 4301, "?step=", "?step=1&lang=xx"):
        for path in (f"/w/{token}", f"/w/{token}/data.json"):
            response = client.get(path + query)
            assert response.status_code == 400, (path, query[:20])
            assert response.text.startswith(("step must be a step number", "lang must be one of: en, cs")), query


def test_a_finished_game_replays_step_by_step_in_the_tables_language(finished):
    ctx, token = finished
    client = client_of(ctx)
    end = client.get(f"/w/{token}")
    steps = int(re.search(r'max="(\d+)"', end.text).group(1)) + 1
    assert steps > 10 and "Záznam hry" in end.text and "Konec hry." in end.text
    assert end.headers["cache-control"].startswith("private, max-age=")
    first = client.get(f"/w/{token}?step=0")
    assert f"Krok 1 z {steps}" in first.text and 'aria-disabled="true">◀' in first.text
    assert f'href="/w/{token}?step=1&amp;lang=cs"' in first.text
    seen = [client.get(f"/w/{token}/data.json?step={n}").json() for n in range(steps)]
    assert [d["step"] for d in seen] == list(range(steps))
    assert len({d["parts"]["board"] for d in seen}) > steps // 2  # the board moves along
    assert "Kolo 1" in seen[0]["where"] and seen[-1]["over"]
    english = client.get(f"/w/{token}?step=2&lang=en")
    assert "Step 3 of" in english.text and 'lang="en"' in english.text


def test_a_page_load_is_under_100_kb_and_compressed_when_asked():
    """The page and its script, for a whole 7-player game (the longest turn log): under 100 KB as it is."""
    ctx = make_ctx()
    start_game(ctx, "big", {**CONFIG, "players": 7, "seed": 1}, {**table(7, humans=[]), "lang": "cs"})
    run_jobs(ctx)
    assert ctx.store.load("big").status == "over"
    token = ctx.store.meta("big")["watch"]
    client = client_of(ctx)
    plain = client.get(f"/w/{token}", headers={"Accept-Encoding": "identity"})
    script = client.get("/w/watch.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.text.count("<li>") > 50
    assert len(plain.content) + len(script.content) < 100_000
    squeezed = client.get(f"/w/{token}", headers={"Accept-Encoding": "gzip"})
    assert squeezed.headers["content-encoding"] == "gzip" and squeezed.text == plain.text
    assert int(squeezed.headers["content-length"]) < len(plain.content) // 3
    assert "immutable" in script.headers["cache-control"]


def test_the_history_is_kept_and_extended_as_a_fresh_replay_would_give_it(live):
    ctx, _ = live
    answer_all(ctx, "live1")
    early = watch.history(ctx.store, "live1")
    for _ in range(3):
        answer_all(ctx, "live1")
    extended = watch.history(ctx.store, "live1")
    watch._cache.clear()
    fresh = watch.history(ctx.store, "live1")
    assert extended == fresh and fresh[: len(early)] == early and len(fresh) > len(early)
    assert fresh[-1].view == Game.from_json(ctx.store.load("live1").json).public_view()


def test_no_hidden_card_or_pick_reaches_the_page(live):
    """Mid-game, with places face down: the page and its JSON name no card a player holds in secret (the audit
    over the soak's games is tests/e2e/test_e2e_secrets.py)."""
    ctx, token = live
    client = client_of(ctx)
    for _ in range(12):
        game = Game.from_json(ctx.store.load("live1").json)
        held = {card for seat in range(1, 4) for card in game.private_view(seat)["survival"]}
        held |= set(game.private_view(0)["hunt_cards"])
        texts = client.get(f"/w/{token}").text + client.get(f"/w/{token}/data.json").text
        for card in held:
            for lang in ("en", "cs"):
                assert name(card, lang) not in texts, (card, lang)
        assert '"you"' not in texts and "Your hand" not in texts
        answer_all(ctx, "live1")


def test_a_turns_end_phase_is_not_the_end_of_the_game():
    """Each step of a finished game (seed 2: eleven steps in a turn's end phase): "Game over" only at its last."""
    ctx = make_ctx(public_url=PUBLIC)
    start_game(ctx, "phase4", {**CONFIG, "seed": 2, "players": 4}, table(4, humans=[]))
    run_jobs(ctx)
    token, client = ctx.store.meta("phase4")["watch"], client_of(ctx)
    steps = client.get(f"/w/{token}/data.json").json()["steps"]
    seen = [client.get(f"/w/{token}/data.json?step={n}&lang=en").json() for n in range(steps)]
    assert [d["step"] for d in seen if "Game over" in d["where"] + d["parts"]["head"]] == [steps - 1]
    assert sum(d["where"].endswith(" · End of turn") for d in seen) == 11


def test_the_live_page_shows_who_is_still_waited_for_and_changes_when_someone_answers():
    ctx = make_ctx(public_url=PUBLIC)
    start_game(ctx, "wait1", {**CONFIG, "players": 3}, table(3, humans=[1, 2]))
    run_jobs(ctx)
    token = ctx.store.meta("wait1")["watch"]
    client = client_of(ctx)
    before = client.get(f"/w/{token}/data.json")
    assert "Waiting for: P1, P2" in before.json()["parts"]["head"]
    snap = ctx.store.load("wait1")
    game = Game.from_json(snap.json)
    assert ingest.submit(ctx, "wait1", 1, bot_answer(game, 1), snap.window).stored
    after = client.get(f"/w/{token}/data.json", headers={"If-None-Match": before.headers["etag"]})
    assert after.status_code == 200 and after.json()["version"] == before.json()["version"]
    assert after.json()["state"] != before.json()["state"]  # the page's script swaps the parts on this
    head = after.json()["parts"]["head"]
    assert "Waiting for: P2" in head and "P1" not in head.split("Waiting for:")[1]
    assert f'data-state="{after.json()["state"]}"' in client.get(f"/w/{token}").text


def test_a_cancelled_games_page_says_so_and_waits_for_nobody(live):
    ctx, token = live
    cancelling.cancel(ctx, "live1", notify=False)
    html = client_of(ctx).get(f"/w/{token}").text
    assert "The game was cancelled." in html and "Waiting for" not in html
    czech = client_of(ctx).get(f"/w/{token}?lang=cs").text
    assert "Hra byla zrušena." in czech


def test_the_page_names_its_icon_so_no_browser_asks_for_a_favicon_it_lacks(live):
    ctx, token = live
    client = client_of(ctx)
    html = client.get(f"/w/{token}").text
    assert '<link rel="icon" href="/w/icon.svg" type="image/svg+xml">' in html
    icon = client.get("/w/icon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.startswith("<svg") and "immutable" in icon.headers["cache-control"]


def test_a_replay_names_each_seat_by_whoever_held_it_at_that_step():
    """Seat 1 changes hands after a few windows: the steps before name its first player, the later ones the
    stand-in; the page's list of players names who plays now."""
    ctx = make_ctx(public_url=PUBLIC)
    start_game(ctx, "swap1", {**CONFIG, "players": 3}, table(3, humans=[1, 2]))
    run_jobs(ctx)
    for _ in range(3):
        answer_all(ctx, "swap1")
    token, _ = standins.offer_own(ctx, "swap1", "user1")
    standins.take(ctx, token, {"name": "Nova", "chat": "chat9", "user": "user9", "address": "user9", "lang": "en"})
    for _ in range(3):
        answer_all(ctx, "swap1")
    client, watch_token = client_of(ctx), ctx.store.meta("swap1")["watch"]
    steps = client.get(f"/w/{watch_token}/data.json").json()["steps"]
    seen = [client.get(f"/w/{watch_token}/data.json?step={n}&lang=en").json() for n in range(steps)]
    early, late = seen[1]["parts"], seen[-1]["parts"]
    assert "P1" in early["head"] + early["board"] and "Nova" not in early["head"] + early["board"] + early["log"]
    assert "Nova" in late["head"] + late["board"]
    assert "P1" in late["log"] and "Nova" in late["log"]  # earlier turns' moves by P1, later ones by Nova
    assert "Players: Bot0, Nova, P2" in client.get(f"/w/{watch_token}?step=1").text
