"""Check that the docs say what is (issue 40, point 4): `python tools/check_docs.py [ROOT]`, exit 1 with the reasons.

* docs/BENCHMARKS.md has at most 300 lines, and every `## ` section of it holds a table whose header names the
  columns figure, goal, command, commit and machine (one current table per area; the history is in git and
  CHANGELOG.md).
* README.md has at most 150 lines and no dated figure: no date such as 2026-12-05 and no "session".
* Every Markdown file under docs/ is linked from docs/README.md on a line that says what it is for, and every
  local link of README.md and docs/README.md points at a file that exists.

`tests/test_docs.py` runs it in `make quick`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

BENCHMARKS_MAX_LINES = 300
README_MAX_LINES = 150
BENCHMARK_COLUMNS = ("figure", "goal", "command", "commit", "machine")

DATE = re.compile(r"\b(19|20)\d\d-[01]\d-[0-3]\d\b")
DATED_WORDS = re.compile(r"\b(sessions?|yesterday|today|tonight|this morning|this evening)\b", re.IGNORECASE)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _cells(line: str) -> list[str]:
    return [cell.strip().strip("`*").strip().lower() for cell in line.strip().strip("|").split("|")]


def _is_table_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def check_benchmarks(text: str) -> list[str]:
    """Problems of docs/BENCHMARKS.md: its length, and each `## ` section's table and its columns."""
    problems = []
    lines = text.splitlines()
    if len(lines) > BENCHMARKS_MAX_LINES:
        problems.append(f"docs/BENCHMARKS.md has {len(lines)} lines (at most {BENCHMARKS_MAX_LINES})")
    sections: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif sections:
            sections[-1][1].append(line)
    if not sections:
        problems.append("docs/BENCHMARKS.md has no `## ` section")
    for title, body in sections:
        headers = [
            _cells(line)
            for i, line in enumerate(body)
            if _is_table_row(line) and (i == 0 or not _is_table_row(body[i - 1]))
        ]
        if not headers:
            problems.append(f"docs/BENCHMARKS.md, section {title!r}: no table")
            continue
        if not any(all(column in header for column in BENCHMARK_COLUMNS) for header in headers):
            problems.append(
                f"docs/BENCHMARKS.md, section {title!r}: no table with the columns {', '.join(BENCHMARK_COLUMNS)}"
            )
    return problems


def check_readme(text: str) -> list[str]:
    """Problems of README.md: its length and any dated figure."""
    problems = []
    lines = text.splitlines()
    if len(lines) > README_MAX_LINES:
        problems.append(f"README.md has {len(lines)} lines (at most {README_MAX_LINES})")
    for number, line in enumerate(lines, 1):
        for pattern in (DATE, DATED_WORDS):
            found = pattern.search(line)
            if found:
                problems.append(
                    f"README.md:{number}: a dated figure ({found.group(0)!r}); dates belong in CHANGELOG.md"
                )
    return problems


def _local_links(text: str) -> list[tuple[int, str]]:
    links = []
    for number, line in enumerate(text.splitlines(), 1):
        for target in LINK.findall(line):
            if "://" in target or target.startswith(("#", "mailto:")):
                continue
            links.append((number, target.split("#", 1)[0]))
    return links


def check_links(root: Path, relative: str) -> list[str]:
    """Local links of one Markdown file that point at nothing."""
    path = root / relative
    return [
        f"{relative}:{number}: the link {target!r} points at nothing"
        for number, target in _local_links(path.read_text(encoding="utf-8"))
        if target and not (path.parent / target).exists()
    ]


def check_docs_index(root: Path) -> list[str]:
    """Every Markdown file under docs/ linked from docs/README.md, on a line that says what it is for."""
    docs = root / "docs"
    index = docs / "README.md"
    if not index.exists():
        return ["docs/README.md is missing"]
    described: set[Path] = set()
    linked: set[Path] = set()
    for line in index.read_text(encoding="utf-8").splitlines():
        targets = [t.split("#", 1)[0] for t in LINK.findall(line) if "://" not in t]
        words = re.sub(r"\[[^\]]*\]\([^)]*\)", "", line).strip(" |-*\t")
        for target in targets:
            if not target:
                continue
            resolved = (docs / target).resolve()
            linked.add(resolved)
            if len(words.split()) >= 3:
                described.add(resolved)
    problems = []
    for doc in sorted(docs.rglob("*.md")):
        if doc == index:
            continue
        name = doc.relative_to(root).as_posix()
        if doc.resolve() not in linked:
            problems.append(f"{name} is not linked from docs/README.md")
        elif doc.resolve() not in described:
            problems.append(f"{name}: its line in docs/README.md does not say what it is for")
    return problems


def check(root: Path) -> list[str]:
    """Every problem of the docs under root (the repository)."""
    problems = []
    benchmarks = root / "docs" / "BENCHMARKS.md"
    if benchmarks.exists():
        problems += check_benchmarks(benchmarks.read_text(encoding="utf-8"))
    else:
        problems.append("docs/BENCHMARKS.md is missing")
    readme = root / "README.md"
    if readme.exists():
        problems += check_readme(readme.read_text(encoding="utf-8"))
        problems += check_links(root, "README.md")
    else:
        problems.append("README.md is missing")
    problems += check_docs_index(root)
    if (root / "docs" / "README.md").exists():
        problems += check_links(root, "docs/README.md")
    return problems


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    problems = check(root)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print("docs: ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
