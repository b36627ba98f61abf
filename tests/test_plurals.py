"""Every number beside a noun goes through gettext's plural forms (issue 38, point 13): each such message rendered
for 0, 1, 2 and 5 in English (one, other) and Czech (1; 2-4; 0 and 5+), through the functions that send it."""

import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest
from pipeline_support import make_ctx

from service.board import svg
from service.channels import longplay
from service.channels.telegram import lobby
from service.channels.telegram.update import SentMessage
from service.i18n.events import notice_text, to_the_star, track
from service.pipeline.absence import AbsenceError, PauseAsked
from service.pipeline.lobby import Lobby
from service.pipeline.records import Record

COUNTS = (0, 1, 2, 5)


def forms(en: tuple[str, ...], cs: tuple[str, ...]) -> list[tuple[str, int, str]]:
    """(lang, n, expected) for n in `COUNTS`: ``en`` and ``cs`` list the expected texts in that order."""
    return [("en", n, text) for n, text in zip(COUNTS, en, strict=True)] + [
        ("cs", n, text) for n, text in zip(COUNTS, cs, strict=True)
    ]


def board_texts(view: dict, lang: str) -> list[str]:
    """Every text drawn on the board picture of ``view``."""
    return [t.text or "" for t in ET.fromstring(svg.render(view, {}, lang)).iter("{http://www.w3.org/2000/svg}text")]


def settings_ctx(days: int) -> SimpleNamespace:
    """Just what the refusals read: the longest absence and pause allowed."""
    return SimpleNamespace(settings=SimpleNamespace(away_max_days=days, pause_max_days=days))


# ---------------------------------------------------------------------------------------------- the track


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        ("on the star", "1 space to the star", "2 spaces to the star", "5 spaces to the star"),
        ("na hvězdě", "1 pole do hvězdy", "2 pole do hvězdy", "5 polí do hvězdy"),
    ),
)
def test_a_counters_way_to_the_star(lang, n, expected):
    assert to_the_star(n, lang) == expected


@pytest.mark.parametrize(
    "lang, n, rescue",
    forms(
        (
            "Rescue: on the star",
            "Rescue: 1 space to the star",
            "Rescue: 2 spaces to the star",
            "Rescue: 5 spaces to the star",
        ),
        (
            "Záchrana: na hvězdě",
            "Záchrana: 1 pole do hvězdy",
            "Záchrana: 2 pole do hvězdy",
            "Záchrana: 5 polí do hvězdy",
        ),
    ),
)
def test_the_board_labels_the_rescue_counter_with_its_plural(lang, n, rescue):
    view = {"turn": 3, "rescue": n, "assimilation": 7, "hunted": [], "creature": {"hunt_cards": 3}}
    assert rescue in board_texts(view, lang)


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        (
            "🔵 Rescue counter: 0 spaces to ⭐ · 🔴 Assimilation counter: 0 spaces to ⭐ — the first to reach ⭐ wins.",
            "🔵 Rescue counter: 1 space to ⭐ · 🔴 Assimilation counter: 1 space to ⭐ — the first to reach ⭐ wins.",
            "🔵 Rescue counter: 2 spaces to ⭐ · 🔴 Assimilation counter: 2 spaces to ⭐ — the first to reach ⭐ wins.",
            "🔵 Rescue counter: 5 spaces to ⭐ · 🔴 Assimilation counter: 5 spaces to ⭐ — the first to reach ⭐ wins.",
        ),
        (
            "🔵 Ukazatel záchrany: do ⭐ zbývá 0 políček · 🔴 Ukazatel asimilace: do ⭐ zbývá 0 políček — "
            "kdo dojde k ⭐ první, vyhrává.",
            "🔵 Ukazatel záchrany: do ⭐ zbývá 1 políčko · 🔴 Ukazatel asimilace: do ⭐ zbývá 1 políčko — "
            "kdo dojde k ⭐ první, vyhrává.",
            "🔵 Ukazatel záchrany: do ⭐ zbývají 2 políčka · 🔴 Ukazatel asimilace: do ⭐ zbývají 2 políčka — "
            "kdo dojde k ⭐ první, vyhrává.",
            "🔵 Ukazatel záchrany: do ⭐ zbývá 5 políček · 🔴 Ukazatel asimilace: do ⭐ zbývá 5 políček — "
            "kdo dojde k ⭐ první, vyhrává.",
        ),
    ),
)
def test_the_status_track_says_each_counters_spaces(lang, n, expected):
    assert track({"rescue": n, "assimilation": n}, lang).splitlines()[1] == expected


# ---------------------------------------------------------------------------------------------- the discard pile


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        ("Discard: empty", "Discard: 1 card", "Discard: 2 cards", "Discard: 5 cards"),
        ("Odhozené: nic", "Odhozené: 1 karta", "Odhozené: 2 karty", "Odhozené: 5 karet"),
    ),
)
def test_a_discard_pile_too_long_to_name_is_counted(lang, n, expected):
    assert svg._discard_line(list(range(1, n + 1)), lang, room=0) == expected


def test_the_board_names_the_discarded_cards_and_counts_them_where_names_do_not_fit():
    hunted = {"seat": 1, "will": 3, "hand": 4, "survival": 0, "played": [2], "discard": [1, 5]}
    view = {"turn": 3, "rescue": 9, "assimilation": 7, "hunted": [hunted], "creature": {"hunt_cards": 3}}
    assert "Discard: 1 Lair, 5 Rover" in board_texts(view, "en")
    # "5 Průzkumné vozidlo" is too long to stand left of "Zahráno: 2 Džungle"
    assert "Odhozené: 2 karty (1, 5)" in board_texts(view, "cs")
    view["hunted"] = [{**hunted, "discard": [1, 5, 10, 4, 3, 6, 7, 8, 9]}]
    assert "Discard: 9 cards" in board_texts(view, "en") and "Odhozené: 9 karet" in board_texts(view, "cs")


# ---------------------------------------------------------------------------------------------- notices


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        (
            "A game of Not Alone begins: 0 players, 1 min to answer each step.",
            "A game of Not Alone begins: 1 player, 1 min to answer each step.",
            "A game of Not Alone begins: 2 players, 1 min to answer each step.",
            "A game of Not Alone begins: 5 players, 1 min to answer each step.",
        ),
        (
            "Začíná hra Nejsme tu sami: 0 hráčů, na každý krok je 1 min.",
            "Začíná hra Nejsme tu sami: 1 hráč, na každý krok je 1 min.",
            "Začíná hra Nejsme tu sami: 2 hráči, na každý krok je 1 min.",
            "Začíná hra Nejsme tu sami: 5 hráčů, na každý krok je 1 min.",
        ),
    ),
)
def test_the_start_notice_counts_the_players(lang, n, expected):
    assert notice_text({"kind": "start", "players": n, "seconds": 60}, {}, lang) == expected


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        (
            "Eva missed 0 deadlines in a row: a bot plays for them until they answer again.",
            "Eva missed 1 deadline in a row: a bot plays for them until they answer again.",
            "Eva missed 2 deadlines in a row: a bot plays for them until they answer again.",
            "Eva missed 5 deadlines in a row: a bot plays for them until they answer again.",
        ),
        (
            "Eva zmeškal(a) 0 termínů po sobě: dokud znovu neodpoví, hraje za něj/ni bot.",
            "Eva zmeškal(a) 1 termín: dokud znovu neodpoví, hraje za něj/ni bot.",
            "Eva zmeškal(a) 2 termíny po sobě: dokud znovu neodpoví, hraje za něj/ni bot.",
            "Eva zmeškal(a) 5 termínů po sobě: dokud znovu neodpoví, hraje za něj/ni bot.",
        ),
    ),
)
def test_the_bot_notice_counts_the_missed_deadlines(lang, n, expected):
    assert notice_text({"kind": "bot", "seat": 1, "misses": n}, {1: "Eva"}, lang) == expected


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        (
            "Game ABCD begins: you are a Hunted, against 0 bots (normal). Your questions come here.",
            "Game ABCD begins: you are a Hunted, against 1 bot (normal). Your questions come here.",
            "Game ABCD begins: you are a Hunted, against 2 bots (normal). Your questions come here.",
            "Game ABCD begins: you are a Hunted, against 5 bots (normal). Your questions come here.",
        ),
        (
            "Hra ABCD začíná: hraješ za roli Lovený proti 0 botům (úroveň: normální). Otázky ti budou chodit sem.",
            "Hra ABCD začíná: hraješ za roli Lovený proti 1 botovi (úroveň: normální). Otázky ti budou chodit sem.",
            "Hra ABCD začíná: hraješ za roli Lovený proti 2 botům (úroveň: normální). Otázky ti budou chodit sem.",
            "Hra ABCD začíná: hraješ za roli Lovený proti 5 botům (úroveň: normální). Otázky ti budou chodit sem.",
        ),
    ),
)
def test_a_solo_game_counts_its_bots(lang, n, expected):
    message = SentMessage.model_validate(
        {"message_id": 1, "chat": {"id": 5, "type": "private"}, "from": {"id": 5, "first_name": "Anna"}}
    )
    opened = SimpleNamespace(table=SimpleNamespace(code="ABCD"))
    # a lobby that opens any size (0 bots: a real one would refuse it), beside a real context
    env = SimpleNamespace(lobby=SimpleNamespace(solo=lambda *args: opened), ctx=make_ctx())
    assert lobby.solo_game(message, ["hunted", str(n + 1)], lang, env)["text"] == expected


# ---------------------------------------------------------------------------------------------- long games


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        (
            "You may be away for at most 0 days: say an earlier time.",
            "You may be away for at most 1 day: say an earlier time.",
            "You may be away for at most 2 days: say an earlier time.",
            "You may be away for at most 5 days: say an earlier time.",
        ),
        (
            "Pryč můžeš být nejvýš 0 dní: napiš dřívější čas.",
            "Pryč můžeš být nejvýš 1 den: napiš dřívější čas.",
            "Pryč můžeš být nejvýš 2 dny: napiš dřívější čas.",
            "Pryč můžeš být nejvýš 5 dní: napiš dřívější čas.",
        ),
    ),
)
def test_away_too_far_counts_the_days(lang, n, expected):
    assert longplay.refusal(AbsenceError("too_far"), settings_ctx(n), lang, "/away") == expected


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        (
            "A pause lasts 1 to 0 days, e.g. /pause 2.",
            "A pause lasts 1 to 1 day, e.g. /pause 2.",
            "A pause lasts 1 to 2 days, e.g. /pause 2.",
            "A pause lasts 1 to 5 days, e.g. /pause 2.",
        ),
        (
            "Přestávka trvá 1 až 0 dní, např. /pause 2.",
            "Přestávka trvá 1 až 1 den, např. /pause 2.",
            "Přestávka trvá 1 až 2 dny, např. /pause 2.",
            "Přestávka trvá 1 až 5 dní, např. /pause 2.",
        ),
    ),
)
def test_a_pause_too_long_counts_the_days(lang, n, expected):
    assert longplay.refusal(AbsenceError("too_long"), settings_ctx(n), lang, "/pause") == expected


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        (
            "Eva votes for a pause: 0 of the 0 votes it needs.",
            "Eva votes for a pause: 0 of the 1 vote it needs.",
            "Eva votes for a pause: 0 of the 2 votes it needs.",
            "Eva votes for a pause: 0 of the 5 votes it needs.",
        ),
        (
            "Eva hlasuje pro přestávku: 0 z 0 potřebných hlasů.",
            "Eva hlasuje pro přestávku: 0 z 1 potřebného hlasu.",
            "Eva hlasuje pro přestávku: 0 z 2 potřebných hlasů.",
            "Eva hlasuje pro přestávku: 0 z 5 potřebných hlasů.",
        ),
    ),
)
def test_a_vote_for_a_pause_counts_the_votes_needed(monkeypatch, lang, n, expected):
    monkeypatch.setattr(longplay.absence, "pause", lambda *args: PauseAsked(None, 0, n))
    assert longplay.pause(make_ctx(), "G1", 1, False, "2", "Eva", lang, "/pause") == expected


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        (
            ("As the Creature: won 0 of 0 games.", "As the Hunted: won 0 of 0 games."),
            ("As the Creature: won 1 of 1 game.", "As the Hunted: won 0 of 1 game."),
            ("As the Creature: won 1 of 2 games.", "As the Hunted: won 0 of 2 games."),
            ("As the Creature: won 1 of 5 games.", "As the Hunted: won 0 of 5 games."),
        ),
        (
            ("Jako Bytost: vyhráno 0 z 0 her.", "Jako Lovený: vyhráno 0 z 0 her."),
            ("Jako Bytost: vyhráno 1 z 1 hry.", "Jako Lovený: vyhráno 0 z 1 hry."),
            ("Jako Bytost: vyhráno 1 ze 2 her.", "Jako Lovený: vyhráno 0 ze 2 her."),
            ("Jako Bytost: vyhráno 1 z 5 her.", "Jako Lovený: vyhráno 0 z 5 her."),
        ),
    ),
)
def test_a_record_counts_the_games_of_each_role(lang, n, expected):
    as_creature = Record(games=n + 1, creature_games=n, creature_wins=min(n, 1), hunted_games=1)
    as_hunted = Record(games=n + 1, creature_games=1, hunted_games=n)
    said = (
        longplay.record_text(as_creature, lang).splitlines()[1],
        longplay.record_text(as_hunted, lang).splitlines()[2],
    )
    assert said == expected


@pytest.mark.parametrize(
    "lang, n, expected",
    forms(
        (
            "Done: your name and ids are gone from 0 finished games, and your record is deleted.",
            "Done: your name and ids are gone from 1 finished game, and your record is deleted.",
            "Done: your name and ids are gone from 2 finished games, and your record is deleted.",
            "Done: your name and ids are gone from 5 finished games, and your record is deleted.",
        ),
        (
            "Hotovo: tvé jméno a identifikátory zmizely z 0 dohraných her a tvůj záznam je smazán.",
            "Hotovo: tvé jméno a identifikátory zmizely z 1 dohrané hry a tvůj záznam je smazán.",
            "Hotovo: tvé jméno a identifikátory zmizely ze 2 dohraných her a tvůj záznam je smazán.",
            "Hotovo: tvé jméno a identifikátory zmizely z 5 dohraných her a tvůj záznam je smazán.",
        ),
    ),
)
def test_forgetting_counts_the_games_scrubbed(monkeypatch, lang, n, expected):
    games = [f"G{i}" for i in range(n)]
    monkeypatch.setattr(longplay.records, "forget", lambda ctx, user: games)
    assert longplay.forget(Lobby(make_ctx()), "tg:1", lang) == expected  # tables gone: nothing to scrub there


@pytest.mark.parametrize(
    ("lang", "n", "start"),
    [
        ("en", 1, "Artemia: this text was read, but 1 text you sent before it was not"),
        ("en", 2, "Artemia: this text was read, but 2 texts you sent before it were not"),
        ("en", 5, "Artemia: this text was read, but 5 texts you sent before it were not"),
        ("cs", 1, "Artemia: tahle zpráva došla, ale 1 zpráva před ní ne"),
        ("cs", 2, "Artemia: tahle zpráva došla, ale 2 zprávy před ní ne"),
        ("cs", 5, "Artemia: tahle zpráva došla, ale 5 zpráv před ní ne"),
    ],
)
def test_the_texts_a_flood_dropped_are_counted(lang, n, start):
    from service.channels.sms.replies import dropped_note

    assert dropped_note(n, lang).startswith(start)
