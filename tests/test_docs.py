"""The docs say what is (tools/check_docs.py): the repository's own docs pass, and each rule fails when broken."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("check_docs", ROOT / "tools" / "check_docs.py")
assert _spec and _spec.loader
check_docs = importlib.util.module_from_spec(_spec)
sys.modules["check_docs"] = check_docs
_spec.loader.exec_module(check_docs)

HEADER = "| area | figure | goal | command | commit | machine |\n|---|---|---|---|---|---|\n"
ROW = "| speed | 1,291 games/s | ≥ 1,000 | `make bench` | `cd984b8` | vm2 |\n"


def _repo(tmp_path: Path, *, benchmarks: str | None = None, readme: str | None = None) -> Path:
    (tmp_path / "docs").mkdir(parents=True)
    (tmp_path / "docs" / "BENCHMARKS.md").write_text(
        benchmarks if benchmarks is not None else "# Benchmarks\n\n## Engine\n\n" + HEADER + ROW, encoding="utf-8"
    )
    (tmp_path / "docs" / "rules.md").write_text("# Rules\n", encoding="utf-8")
    (tmp_path / "docs" / "README.md").write_text(
        "| Document | For |\n|---|---|\n"
        "| [BENCHMARKS.md](BENCHMARKS.md) | The current figure of each area. |\n"
        "| [rules.md](rules.md) | The rules of the game in our words. |\n",
        encoding="utf-8",
    )
    (tmp_path / "README.md").write_text(
        readme if readme is not None else "# Artemia\n\nSee [docs](docs/README.md).\n", encoding="utf-8"
    )
    return tmp_path


def test_the_repository_docs_pass():
    assert check_docs.check(ROOT) == []


def test_a_small_repository_passes(tmp_path):
    assert check_docs.check(_repo(tmp_path)) == []


def test_benchmarks_over_300_lines_fail(tmp_path):
    long = "# Benchmarks\n\n## Engine\n\n" + HEADER + ROW * 300
    problems = check_docs.check(_repo(tmp_path, benchmarks=long))
    assert any("lines (at most 300)" in p for p in problems)


def test_a_section_without_the_columns_fails(tmp_path):
    for case, table in enumerate(("| figure | value |\n|---|---|\n| a | b |\n", "no table, only prose\n")):
        text = "# Benchmarks\n\n## Engine\n\n" + HEADER + ROW + "\n## SMS\n\n" + table
        problems = check_docs.check(_repo(tmp_path / f"case{case}", benchmarks=text))
        assert problems and all("'SMS'" in p for p in problems), problems


def test_each_missing_column_fails(tmp_path):
    for column in check_docs.BENCHMARK_COLUMNS:
        header = HEADER.replace(f"| {column} |", "| other |", 1)
        text = "# Benchmarks\n\n## Engine\n\n" + header + ROW
        assert check_docs.check_benchmarks(text), column


def test_readme_over_150_lines_fails(tmp_path):
    problems = check_docs.check(_repo(tmp_path, readme="# Artemia\n" + "line\n" * 150))
    assert any("README.md has 151 lines" in p for p in problems)


def test_readme_with_a_dated_figure_fails(tmp_path):
    for case, line in enumerate(("Measured 2026-12-05: 1,291 games a second.", "In the fourth session, 0.91.")):
        problems = check_docs.check(_repo(tmp_path / f"case{case}", readme=f"# Artemia\n\n{line}\n"))
        assert any("a dated figure" in p for p in problems), line


def test_readme_link_to_nothing_fails(tmp_path):
    problems = check_docs.check(_repo(tmp_path, readme="# Artemia\n\n[gone](docs/gone.md)\n"))
    assert any("'docs/gone.md' points at nothing" in p for p in problems)


def test_a_doc_not_linked_from_the_index_fails(tmp_path):
    repo = _repo(tmp_path)
    (repo / "docs" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    assert check_docs.check(repo) == ["docs/orphan.md is not linked from docs/README.md"]


def test_a_link_without_a_line_saying_what_for_fails(tmp_path):
    repo = _repo(tmp_path)
    index = repo / "docs" / "README.md"
    index.write_text(index.read_text(encoding="utf-8") + "* [orphan.md](orphan.md)\n", encoding="utf-8")
    (repo / "docs" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    assert check_docs.check(repo) == ["docs/orphan.md: its line in docs/README.md does not say what it is for"]
