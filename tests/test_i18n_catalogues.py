"""Catalogues and the choice of language."""

import shutil
import subprocess
import sys

import pytest

from service import cardtexts, i18n
from service.i18n import compile as catalogues


@pytest.mark.parametrize(
    "code, lang", [("cs", "cs"), ("sk", "cs"), ("cs-CZ", "cs"), ("en", "en"), ("de", "en"), (None, "en"), ("", "en")]
)
def test_language_from_telegram(code, lang):
    assert i18n.from_telegram(code) == lang


def test_own_choice_beats_the_chat_and_telegram():
    assert i18n.choose("en", "cs", "cs") == "en"
    assert i18n.choose(None, "cs", "en") == "cs"
    assert i18n.choose(None, None, "sk") == "cs"
    assert i18n.choose("xx", None, "en") == "en"


def test_czech_catalogue_with_three_plural_forms():
    t = i18n.translator("cs")
    assert t.gettext("Reveal of turn {n}!") == "Odhalení – {n}. kolo!"
    forms = [
        t.ngettext("{who} discards {n} card.", "{who} discards {n} cards.", n).format(who="Eva", n=n) for n in (1, 3, 5)
    ]
    assert forms == ["Eva odhazuje 1 kartu.", "Eva odhazuje 3 karty.", "Eva odhazuje 5 karet."]
    assert i18n.translator("en").gettext("Reveal of turn {n}!") == "Reveal of turn {n}!"
    assert i18n.translator("xx").gettext("Reveal of turn {n}!") == "Reveal of turn {n}!"


def test_every_message_in_the_code_is_in_the_catalogues_and_translated():
    template = catalogues.extract()
    for lang in i18n.LANGS:
        with catalogues.po_path(lang).open("rb") as f:
            known = {m.id for m in catalogues.read_po(f, locale=lang) if m.id}
        assert {m.id for m in template if m.id} <= known, lang


def test_compiled_catalogues_are_up_to_date(tmp_path):
    """The committed .mo files match the .po files (python -m service.i18n.compile was run)."""
    before = {lang: catalogues.po_path(lang).with_suffix(".mo").read_bytes() for lang in i18n.LANGS}
    result = subprocess.run([sys.executable, "-m", "service.i18n.compile"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert before == {lang: catalogues.po_path(lang).with_suffix(".mo").read_bytes() for lang in i18n.LANGS}


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext's msgfmt is not installed")
@pytest.mark.parametrize("lang", i18n.LANGS)
def test_catalogues_pass_msgfmt_check_with_no_fuzzy_entry(lang):
    path = catalogues.po_path(lang)
    result = subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr
    with path.open("rb") as f:
        assert not [m.id for m in catalogues.read_po(f, locale=lang) if m.fuzzy and m.id]


def test_every_card_has_its_text_in_both_languages():
    from service.game.cards import CARDS

    assert set(cardtexts.CS) == set(CARDS)
    for card in CARDS:
        english, czech = cardtexts.text(card, "en"), cardtexts.text(card, "cs")
        assert english == CARDS[card]["effect"] and czech and czech != english, card
    assert cardtexts.text(3, "cs") == cardtexts.text("river", "cs")  # a place by number or by id
