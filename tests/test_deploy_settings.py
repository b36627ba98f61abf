""".env.example lists every setting; the deploy files run the Procfile's entry points."""

import pathlib
import re

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
    assert (
        "--factory service.web:create_app" in procfile["web"] and "--log-config deploy/logging.json" in procfile["web"]
    )
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
