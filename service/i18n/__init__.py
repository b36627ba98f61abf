"""Translations: gettext catalogues (domain ``artemia``) for English and Czech, and the choice of language.

Messages are written in English in the code (``t.gettext("Turn {n}")``, ``t.ngettext(...)``) and translated in
``locale/<lang>/LC_MESSAGES/artemia.po``; a message kept in a table and translated when used is marked
``N_("...")``. The compiled ``.mo`` files are committed. After editing the code or a ``.po`` file run
``python -m service.i18n.compile`` (``--extract`` first refreshes the catalogues from the code).
Card names and the game's words are not here: they live in `service.cardnames` in both languages.

Language: a choice made for the user wins, then the chat's, then Telegram's ``language_code`` of the user
("cs" and "sk" read Czech, anything else English).
"""

import gettext
from functools import cache
from pathlib import Path

DOMAIN = "artemia"
LOCALE_DIR = Path(__file__).parent / "locale"
LANGS = ("en", "cs")
DEFAULT_LANG = "en"
_READS_CZECH = ("cs", "sk")


@cache
def translator(lang: str) -> gettext.NullTranslations:
    """The catalogue of ``lang`` (an unknown language gets English): use ``.gettext`` and ``.ngettext``."""
    lang = lang if lang in LANGS else DEFAULT_LANG
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


def N_(message: str) -> str:  # noqa: N802 - the usual gettext marker
    """Mark ``message`` for the catalogues without translating it (a table of messages translated when used)."""
    return message


def from_telegram(language_code: str | None) -> str:
    """Our language for Telegram's IETF ``language_code`` ("cs", "sk-SK" -> "cs"; anything else -> "en")."""
    base = (language_code or "").split("-")[0].lower()
    return "cs" if base in _READS_CZECH else DEFAULT_LANG


def choose(user_choice: str | None = None, chat_choice: str | None = None, language_code: str | None = None) -> str:
    """The language to talk in: the user's own choice, else the chat's, else from Telegram's language code."""
    for choice in (user_choice, chat_choice):
        if choice in LANGS:
            return choice
    return from_telegram(language_code)
