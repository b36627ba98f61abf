"""Which engine runs: the compiled build (tools/build_engine.py, mypyc) or the sources, and whether a build is
current.

A compiled module sits beside its source and Python loads it first, so a build older than an edited source would
run the old rules without a word. ``check`` (called by the package before it imports anything else) refuses that:
the build records a digest of the sources it was made from, and a build whose digest differs from the sources'
is an ImportError that says how to rebuild. Kept interpreted, as is the package's ``__init__``.
"""

import hashlib
import sys
from pathlib import Path

GAME_DIR = Path(__file__).resolve().parent
BUILD_GROUP = "service.game.native"  # mypyc's shared library: service/game/native__mypyc.*.so
DIGEST_FILE = "compiled-from.txt"
INTERPRETED = {"__init__.py", "buildinfo.py", "state.py"}


def compiled_sources() -> list[Path]:
    """The modules the build compiles, in a fixed order."""
    paths = sorted(GAME_DIR.glob("*.py")) + sorted((GAME_DIR / "rules").glob("*.py"))
    return [path for path in paths if path.parent != GAME_DIR or path.name not in INTERPRETED]


def extension_files() -> list[Path]:
    """Every compiled file of a build in the tree."""
    return sorted(GAME_DIR.glob("*.so")) + sorted((GAME_DIR / "rules").glob("*.so"))


def sources_digest() -> str:
    digest = hashlib.sha256()
    for path in compiled_sources():
        digest.update(path.relative_to(GAME_DIR).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def is_compiled() -> bool:
    """Whether a compiled build lies in the tree (``check`` lets the package import it only when current)."""
    return bool(extension_files())


def running() -> str:
    """Which engine this process runs, as Python loaded it: "compiled" or "sources"."""
    engine = sys.modules.get("service.game.engine")
    return "compiled" if engine is not None and not (engine.__file__ or "").endswith(".py") else "sources"


def check() -> None:
    """Raise ImportError when a compiled build is present but was made from other sources than these."""
    if not is_compiled():
        return
    recorded = GAME_DIR / DIGEST_FILE
    made_from = recorded.read_text().strip() if recorded.exists() else "(unknown)"
    if made_from != sources_digest():
        raise ImportError(
            "the compiled engine in service/game is older than its sources: rebuild it with "
            "`make engine` (or `python tools/build_engine.py`), or remove it with "
            "`python tools/build_engine.py --clean` to run the sources"
        )
