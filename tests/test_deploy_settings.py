""".env.example lists every setting; the deploy files run the Procfile's entry points."""

import pathlib
import re
import subprocess
import tomllib

import pytest
import yaml

from service.config import Settings

ROOT = pathlib.Path(__file__).resolve().parents[1]


def env_names(cls) -> set[str]:
    names = set()
    for name, field in cls.model_fields.items():
        alias = field.validation_alias
        names.add(alias.choices[0] if alias is not None else (cls.model_config.get("env_prefix", "") + name).upper())
    return names


def test_env_example_lists_every_setting():
    listed = set(re.findall(r"^#?([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M))
    wanted = env_names(Settings)
    wanted |= {
        "ARTEMIA_LOG_LEVEL",
        "ARTEMIA_WEBHOOK_SECRET",
        "ARTEMIA_BOT_USERNAME",
        "ARTEMIA_WEBHOOK_URL",
        "TELEGRAM_API_BASE_URL",
        "PORT",
        "FORWARDED_ALLOW_IPS",
    }
    assert wanted <= listed, sorted(wanted - listed)


def test_deploy_files_run_the_procfile_commands():
    procfile = dict(
        line.split(": ", 1)
        for line in (ROOT / "Procfile").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert set(procfile) == {"web", "worker", "sender"}
    assert "--factory service.web:serve" in procfile["web"] and "--log-config deploy/logging.json" in procfile["web"]
    for text in [
        (ROOT / "deploy" / name).read_text() for name in ("Dockerfile", "docker-compose.yml", "artemia-web.service")
    ]:
        assert "service.web:app" not in text
    compose = (ROOT / "deploy" / "docker-compose.yml").read_text()
    worker_unit = (ROOT / "deploy" / "artemia-worker@.service").read_text()
    for flags in (
        "-w workers.worker.OpsSimpleWorker",
        "--worker-ttl 30",
        "--maintenance-interval 30",
        "--job-monitoring-interval 10",
        "--with-scheduler",
        "-S json",
    ):
        assert flags in procfile["worker"] and flags in worker_unit, flags
        assert flags in compose.replace('", "', " "), flags


def test_secrets_stay_out_of_git_and_the_readme_says_chmod_600():
    assert ".env" in (ROOT / ".gitignore").read_text().splitlines()
    assert "chmod 600 .env" in (ROOT / "README.md").read_text()


def test_compose_hides_redis_behind_a_password_pins_images_and_checks_health():
    compose = yaml.safe_load((ROOT / "deploy" / "docker-compose.yml").read_text())
    services = compose["services"]
    redis_service = services["redis"]
    assert "ports" not in redis_service and "expose" not in redis_service
    assert "--requirepass" in " ".join(redis_service["command"]) and "$$REDIS_PASSWORD" in redis_service["command"][-1]
    assert redis_service["environment"]["REDIS_PASSWORD"].startswith("${REDIS_PASSWORD:?")
    assert re.fullmatch(r"redis:\d+\.\d+\.\d+(-\w+)?", redis_service["image"])
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert re.search(r"^FROM python:\d+\.\d+\.\d+-\S+$", dockerfile, re.M)
    for name in ("web", "worker", "sender"):
        service = services[name]
        assert service["environment"]["REDIS_URL"].startswith("redis://:${REDIS_PASSWORD:?"), name
        assert service["healthcheck"]["test"][0] == "CMD", name
    assert services["web"]["ports"] == ["127.0.0.1:8000:8000"]
    assert "workers.alive" in services["worker"]["healthcheck"]["test"]


def test_systemd_units_are_hardened():
    for unit in ("artemia-web.service", "artemia-worker@.service", "artemia-sender.service"):
        lines = (ROOT / "deploy" / unit).read_text().splitlines()
        for setting in ("NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes", "ProtectHome=yes"):
            assert setting in lines, (unit, setting)


def test_the_web_believes_forwarded_headers_itself_and_takes_its_log_level_from_the_environment():
    web_lines = [
        (ROOT / "Procfile").read_text(),
        (ROOT / "deploy" / "artemia-web.service").read_text(),
        (ROOT / "deploy" / "Dockerfile").read_text().replace('", "', " "),
    ]
    for text in web_lines:
        assert "--factory service.web:serve" in text and "--no-proxy-headers" in text
        assert "--proxy-headers" not in text.replace("--no-proxy-headers", "")


def test_the_images_and_the_venv_install_the_lock_with_hashes():
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "--require-hashes -r requirements.lock" in dockerfile and "--no-deps ." in dockerfile
    makefile = (ROOT / "Makefile").read_text()
    assert "--require-hashes -r requirements-dev.lock" in makefile and "--no-deps -e ." in makefile
    for lock in ("requirements.lock", "requirements-dev.lock"):
        pins = re.findall(r"^([a-z0-9_.-]+)==(\S+) \\$", (ROOT / lock).read_text(), re.M)
        blocks = re.split(r"^(?=[a-z0-9_.-]+==)", (ROOT / lock).read_text(), flags=re.M)[1:]
        assert pins and len(blocks) == len(pins) and all("--hash=sha256:" in block for block in blocks), lock
        names = {name for name, _ in pins}
        assert {"uvicorn", "babel", "starlette", "redis", "rq"} <= names, lock
    dev = dict(re.findall(r"^([a-z0-9_.-]+)==(\S+) \\$", (ROOT / "requirements-dev.lock").read_text(), re.M))
    runtime = dict(re.findall(r"^([a-z0-9_.-]+)==(\S+) \\$", (ROOT / "requirements.lock").read_text(), re.M))
    assert {"pytest", "hypothesis", "fakeredis", "ruff", "mypy"} <= set(dev)
    assert {name: dev[name] for name in runtime} == runtime  # the same versions in production as in the tests


def test_every_data_file_of_the_packages_goes_into_the_installed_package():
    """`pip install --no-deps .` (the image, a VPS) installs only the data files that package-data names: the
    card table, the catalogues, the fonts, the watch page's script, the compiled engine. A file missing there
    shows only on a deployed machine (the image once lacked cards.json and the catalogues)."""
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    tracked = subprocess.run(
        ["git", "ls-files", "service", "workers"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    data = [path for path in tracked if not path.endswith(".py")]
    built = [str(path.relative_to(ROOT)) for path in (ROOT / "service" / "game").rglob("*.so")]
    missing = []
    for path in data + built:
        parts = pathlib.PurePosixPath(path).parts
        owners = [
            (len(package.split(".")), package)
            for package in package_data
            if parts[: len(package.split("."))] == tuple(package.split("."))
        ]
        inside = [
            pathlib.PurePosixPath(*parts[depth:]).match(pattern)
            and len(pathlib.PurePosixPath(pattern).parts) == len(parts) - depth
            for depth, package in owners
            for pattern in package_data[package]
        ]
        if not any(inside):
            missing.append(path)
    assert data and not missing, f"not in [tool.setuptools.package-data]: {missing}"
