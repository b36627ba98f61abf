"""Compile the gettext catalogues (``.po`` -> ``.mo``) without make: ``python -m service.i18n.compile``.

``--extract`` first collects the translatable strings from the code (``_``, ``gettext``, ``ngettext``, ``_t``, ``N_``,
``pgettext`` calls in ``service/``) and merges them into every language's ``.po`` (new strings empty, vanished ones
dropped).
Exits non-zero when a Czech string is missing, so CI notices an untranslated message.
"""

import argparse
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from service.i18n import DOMAIN, LANGS, LOCALE_DIR

SOURCES = Path(__file__).resolve().parents[1]
# _t(lang, text); pgettext(context, text): a word that reads differently where it is used ("you" as the object)
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "_t": (2,), "N_": None, "pgettext": ((1, "c"), 2)}
TRANSLATOR = "Artemia developers <artemia@localhost>"  # the header msgfmt --check wants filled in
CHECKED = ("cs",)  # languages whose every message must be translated (English msgids are the English text)


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract() -> Catalog:
    template = Catalog(project="artemia", domain=DOMAIN)
    for filename, lineno, message, comments, context in extract_from_dir(
        SOURCES, method_map=[("**.py", "python")], keywords=KEYWORDS
    ):
        template.add(message, locations=[(filename, lineno)], auto_comments=comments, context=context)
    return template


def update(template: Catalog) -> None:
    for lang in LANGS:
        path = po_path(lang)
        if path.exists():
            with path.open("rb") as f:
                catalog = read_po(f, locale=lang)
        else:
            catalog = Catalog(locale=lang, domain=DOMAIN, project="artemia")
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        catalog.fuzzy = False
        catalog.revision_date = template.creation_date
        catalog.last_translator = TRANSLATOR
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=116, omit_header=False, include_lineno=False)


def compile_all() -> list[str]:
    """Write every ``.mo``; -> the untranslated messages of the checked languages ("cs: <msgid>")."""
    missing = []
    for lang in LANGS:
        with po_path(lang).open("rb") as f:
            catalog = read_po(f, locale=lang)
        if lang in CHECKED:
            missing += [f"{lang}: {m.id}" for m in catalog if m.id and (not m.string or not all(m.string))]
        with po_path(lang).with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog)
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.i18n.compile", description=__doc__.splitlines()[0])
    parser.add_argument("--extract", action="store_true", help="refresh the .po files from the code first")
    args = parser.parse_args(argv)
    if args.extract:
        update(extract())
    missing = compile_all()
    for line in missing:
        print("untranslated", line, file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
