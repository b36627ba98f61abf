"""docs/contributing.md, "A language", done once for real: a German catalogue with three messages translated,
made the way `python -m service.i18n.compile --extract` makes one, and a whole bots-only game of the sandbox played
in German through the console channel. The three messages come out in German; every other line is the English
game's, line for line (an untranslated message falls back to its English msgid, and card names, which live in
`service.cardnames`, fall back to English too).

The catalogue lives in a temporary copy of the locale directory: the loader reads `service.i18n.LOCALE_DIR` and
`service.i18n.LANGS`, and `service.i18n.compile` its own imported copies of both, so the test patches those four
names and nothing else.
"""

import re
import shutil

import pytest
from babel.messages.pofile import read_po, write_po

from service import i18n, sandbox
from service.i18n import compile as catalogues

# English msgid -> German; a plural message has a (singular, plural) pair on both sides
GERMAN = {
    "Turn {n} begins.": "Runde {n} beginnt.",
    "You play: {cards}.": "Du spielst: {cards}.",
    ("{who} has {n} Will left.", "{who} has {n} Will left."): (
        "{who} hat noch {n} Punkt Willenskraft.",
        "{who} hat noch {n} Punkte Willenskraft.",
    ),
}
GAME = ["--bots-only", "--seed", "3", "--players", "3", "--timeout", "120"]


@pytest.fixture
def german(tmp_path, monkeypatch):
    """service/i18n/locale with a de/LC_MESSAGES/artemia.po (+ .mo) beside en and cs, and "de" a language."""
    locale = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale)
    # step 1: add "de" to LANGS and run the extraction, which writes an empty de catalogue of every message
    monkeypatch.setattr(catalogues, "LOCALE_DIR", locale)
    monkeypatch.setattr(catalogues, "LANGS", ("de",))
    catalogues.update(catalogues.extract())
    po = catalogues.po_path("de")
    assert po == locale / "de" / "LC_MESSAGES" / "artemia.po" and po.exists()
    # step 2: translate (here three messages; a translator edits the .po file)
    with po.open("rb") as f:
        catalog = read_po(f, locale="de")
    assert catalog.num_plurals == 2  # the header's Plural-Forms comes from the locale: German has two forms
    for english, translated in GERMAN.items():
        assert catalog[english] is not None and not any(catalog[english].string), english
        catalog[english].string = translated
    with po.open("wb") as f:
        write_po(f, catalog, width=116, omit_header=False, include_lineno=False)
    # step 3: compile (.po -> .mo); German is not in CHECKED, so its untranslated messages are not an error
    assert catalogues.compile_all() == []
    assert (locale / "de" / "LC_MESSAGES" / "artemia.mo").exists()
    # the loader: its directory and its languages; its cache is cleared now and after the test
    monkeypatch.setattr(i18n, "LOCALE_DIR", locale)
    monkeypatch.setattr(i18n, "LANGS", (*i18n.LANGS, "de"))
    i18n.translator.cache_clear()
    yield locale
    i18n.translator.cache_clear()


def test_the_german_catalogue_translates_three_messages_and_leaves_the_rest_english(german):
    t = i18n.translator("de")
    assert t.gettext("Turn {n} begins.") == "Runde {n} beginnt."
    assert [t.ngettext("{who} has {n} Will left.", "{who} has {n} Will left.", n) for n in (1, 2)] == [
        "{who} hat noch {n} Punkt Willenskraft.",
        "{who} hat noch {n} Punkte Willenskraft.",
    ]
    assert t.gettext("Reveal of turn {n}!") == "Reveal of turn {n}!"  # untranslated: the English msgid
    assert i18n.choose("de") == "de"
    assert i18n.translator("cs").gettext("Turn {n} begins.") not in ("Turn {n} begins.", "Runde {n} beginnt.")


def _chats(out: str) -> dict[str, list[str]]:
    """The console's output as each chat's lines in order (chats' messages interleave in any order)."""
    chats, label = {}, None
    for line in out.splitlines():
        if line.startswith("["):
            label, line = line[1 : line.index("]")], line[line.index("]") + 2 :]
        if line.strip():
            chats.setdefault(label, []).append(line.strip())
    return chats


def _pattern(message: str) -> re.Pattern:
    """A message with its placeholders as groups: "Runde {n} beginnt." -> r"Runde (?P<n>.+?) beginnt\\."."""
    parts = re.split(r"\{(\w+)\}", message)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)))


def _back_to_english(line: str) -> str:
    for english, translated in GERMAN.items():
        for en, de in zip(*(((english,), (translated,)) if isinstance(english, str) else (english, translated))):
            line = _pattern(de).sub(lambda m, en=en: en.format(**m.groupdict()), line)
    return line


def test_a_whole_bots_only_game_in_german_through_the_console(german, capsys):
    assert sandbox.main([*GAME, "--lang", "de"]) == 0
    german_game = _chats(capsys.readouterr().out)
    i18n.translator.cache_clear()
    assert sandbox.main([*GAME, "--lang", "en"]) == 0
    english_game = _chats(capsys.readouterr().out)

    lines = [line for chat in german_game.values() for line in chat]
    assert any(re.fullmatch(r"Runde \d+ beginnt\.", line) for line in lines)
    assert any(line.startswith("Du spielst: ") for line in german_game["seat 1"])
    assert any(re.fullmatch(r"Bot \d hat noch \d+ Punkte? Willenskraft\.", line) for line in lines)
    english = [line for line in lines if re.match(r"You play: |Turn \d+ begins|Bot \d has \d+ Will left", line)]
    assert not english, english
    assert "Bot 1 resists (Will left: 1)." in german_game["table"]  # untranslated: English
    assert "🏁 Game over. The Hunted win!" in german_game["table"]  # untranslated: English
    # everything else is the English game's, chat by chat and line by line
    assert {chat: [_back_to_english(line) for line in said] for chat, said in german_game.items()} == english_game
