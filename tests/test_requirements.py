"""requirements.txt (what a Procfile platform installs) is requirements.lock under its comment header: the same
pins and hashes, so a platform build installs exactly what the tests ran with."""

import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_requirements_txt_is_the_lock():
    text = (ROOT / "requirements.txt").read_text()
    body = "".join(line for line in text.splitlines(keepends=True)[3:])
    header = text.splitlines()[:3]
    assert all(line.startswith("#") for line in header)
    assert body == (ROOT / "requirements.lock").read_text(), "run: make requirements.txt"
