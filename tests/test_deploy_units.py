"""The systemd units that ship (deploy/*.service, deploy/sentinel/*.service): each passes `systemd-analyze
security` with an exposure of at most 3.0 (checked offline, on the unit file alone), and each Redis it starts
takes its password from the environment (deploy/sentinel/render.sh), never a public address."""

import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
UNITS = sorted([*ROOT.glob("deploy/*.service"), *ROOT.glob("deploy/sentinel/*.service")])
MAX_EXPOSURE = 3.0


def exposure(unit: pathlib.Path, tmp: pathlib.Path) -> float:
    name = unit.name.replace("@.service", "@1.service")  # a template is analysed as an instance
    shutil.copy(unit, tmp / name)
    done = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--no-pager", str(tmp / name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    found = re.search(r"Overall exposure level for \S+: ([0-9.]+)", done.stdout + done.stderr)
    assert found, done.stdout + done.stderr
    return float(found.group(1))


@pytest.mark.integration
@pytest.mark.parametrize("unit", UNITS, ids=[u.name for u in UNITS])
def test_every_unit_is_hardened(unit, tmp_path):
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed (Debian: apt-get install systemd)")
    score = exposure(unit, tmp_path)
    print(f"{unit.relative_to(ROOT)}: exposure {score}")
    assert score <= MAX_EXPOSURE


def test_the_units_are_the_ones_documented():
    names = {u.name for u in UNITS}
    assert {"artemia-web.service", "artemia-worker@.service", "artemia-sender.service"} <= names
    assert {"artemia-redis.service", "artemia-sentinel.service", "artemia-backup.service"} <= names
    assert (ROOT / "deploy" / "artemia-backup.timer").exists()


def test_no_shipped_redis_configuration_binds_a_public_address_or_lacks_a_password():
    for conf in [ROOT / "deploy" / "redis.conf", *ROOT.glob("deploy/sentinel/*.conf.in")]:
        text = conf.read_text()
        binds = re.findall(r"^bind (.+)$", text, re.M)
        assert all(part in ("127.0.0.1", "-::1", "::1") or part.startswith("${") for b in binds for part in b.split())
        if conf.name == "redis.conf":  # docker compose's: every command using it passes the password from .env
            for compose in ROOT.glob("deploy/docker-compose*.yml"):
                commands = [line for line in compose.read_text().splitlines() if "redis-server" in line]
                assert commands and all('--requirepass \\"$$REDIS_PASSWORD\\"' in c for c in commands), compose
        elif conf.name != "sentinel-monitor.conf.in":
            assert re.search(r"^requirepass \$\{[A-Z_]*PASSWORD\}$", text, re.M), conf
