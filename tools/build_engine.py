"""Compile the rules engine (service/game) to C extension modules with mypyc, in place.

The engine is plain typed Python; mypyc turns each module into a C extension with the same behaviour, about 2.7×
as fast (docs/BENCHMARKS.md, "Engine speed"). The extensions sit beside the sources and Python loads them first,
so this also records a digest of the sources they were built from (``service/game/compiled-from.txt``): the
package refuses to import a build older than its sources (service/game/__init__.py), and ``make`` rebuilds it
whenever a source is newer. ``--clean`` removes every build, and the engine then runs from its sources.

Not compiled: the package's ``__init__`` (it checks the build) and ``state.py`` (TypedDicts that tests read as
classes; nothing in it is hot).

    python tools/build_engine.py           # build (a few seconds to half a minute)
    python tools/build_engine.py --clean   # back to the sources
"""

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The package's own record of what a build is, loaded by its path: importing the package would check the build.
_spec = importlib.util.spec_from_file_location("buildinfo", ROOT / "service" / "game" / "buildinfo.py")
assert _spec is not None and _spec.loader is not None
buildinfo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(buildinfo)


def clean() -> None:
    for path in buildinfo.extension_files():
        path.unlink()
    (buildinfo.GAME_DIR / buildinfo.DIGEST_FILE).unlink(missing_ok=True)


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import setup

    clean()
    sources = [str(path.relative_to(ROOT)) for path in buildinfo.compiled_sources()]
    setup(
        name="artemia-engine",
        ext_modules=mypycify(sources, group_name=buildinfo.BUILD_GROUP, opt_level="3"),
        script_args=["-q", "build_ext", "--inplace", "--build-temp", "build/engine"],
    )
    (buildinfo.GAME_DIR / buildinfo.DIGEST_FILE).write_text(buildinfo.sources_digest() + "\n")
    print(f"build_engine: {len(sources)} modules of service/game compiled with mypyc")


if __name__ == "__main__":
    os.chdir(ROOT)
    clean() if sys.argv[1:] == ["--clean"] else build()
