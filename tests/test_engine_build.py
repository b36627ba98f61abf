"""The compiled engine (tools/build_engine.py): the one `make test` runs, and never a build older than its sources.

Each check runs in a copy of the package (``bench_engine.copy_of_the_engine``: service/game, with or without its
build), imported by a fresh Python process, so that the tree under test is left as it is.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.bench_engine import copy_of_the_engine
from service.game import buildinfo

ROOT = Path(__file__).resolve().parent.parent
COMPILED = buildinfo.is_compiled()


def test_make_test_runs_the_compiled_engine():
    if os.environ.get("ENGINE") == "source":
        pytest.skip("ENGINE=source: the tests run the engine's sources")
    assert COMPILED, "service/game has no compiled build: `make test` builds one (tools/build_engine.py)"
    assert (buildinfo.GAME_DIR / buildinfo.DIGEST_FILE).read_text().strip() == buildinfo.sources_digest()


def _import_in(tree: Path) -> subprocess.CompletedProcess:
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import service.game as g; from service.game import buildinfo; "
        "print(g.engine.__file__, buildinfo.running(), g.new_game({'players': 3}).waiting_for())"
    )
    return subprocess.run([sys.executable, "-c", script, str(tree)], capture_output=True, text=True, timeout=60)


@pytest.mark.integration
@pytest.mark.skipif(not COMPILED, reason="no compiled build to check (ENGINE=source)")
def test_a_build_runs_from_its_copy_and_an_edited_source_refuses_the_old_build(tmp_path):
    game = copy_of_the_engine(tmp_path, build=True) / "service" / "game"
    ran = _import_in(tmp_path)
    assert ran.returncode == 0, ran.stderr
    where, engine, waiting = ran.stdout.split(" ", 2)
    assert where.startswith(str(game)) and where.endswith(".so") and engine == "compiled" and waiting.strip() == "[0]"

    engine = game / "engine.py"
    engine.write_text(engine.read_text() + "\n# an edit the build has not seen\n")
    refused = _import_in(tmp_path)
    assert refused.returncode != 0
    assert "ImportError: the compiled engine in service/game is older than its sources" in refused.stderr
    assert "make engine" in refused.stderr


@pytest.mark.integration
@pytest.mark.skipif(not COMPILED, reason="no compiled build to check (ENGINE=source)")
def test_without_its_build_the_package_runs_its_sources(tmp_path):
    game = copy_of_the_engine(tmp_path) / "service" / "game"
    ran = _import_in(tmp_path)
    assert ran.returncode == 0, ran.stderr
    where, engine, waiting = ran.stdout.split(" ", 2)
    assert where == str(game / "engine.py") and engine == "sources" and waiting.strip() == "[0]"


@pytest.mark.integration
@pytest.mark.slow(reason="plays every digest game twice, compiled and from its sources, questions ahead included")
@pytest.mark.skipif(not COMPILED, reason="no compiled build to compare (ENGINE=source)")
def test_the_compiled_engine_plays_the_same_games_as_its_sources(tmp_path):
    """bench/engine_digest.py over 3 games of each kind (random, bots, eager bots, sampled worlds, searching bots)
    for 2-7 players under both secrecy settings, by the build and by a copy of its sources alone: the same digest.
    (A type the checker narrowed, which the build took at its word, once made them differ: engine.advance.)"""
    copy_of_the_engine(tmp_path)
    digests = []
    for tree in (ROOT, tmp_path):
        script = "import sys; sys.path.insert(0, sys.argv[1]); from bench.engine_digest import main; main(3)"
        ran = subprocess.run(
            [sys.executable, "-c", script, str(tree)], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        assert ran.returncode == 0, ran.stderr
        digests.append(ran.stdout.strip())
    assert re.fullmatch(r"\d+ games, \d+ applies, digest [0-9a-f]{64}", digests[0]), digests[0]
    assert digests[0] == digests[1]
