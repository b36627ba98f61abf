"""The dashboard and the alert rules that ship (deploy/grafana/artemia.json, deploy/prometheus/): every metric they
name is one /metrics exports, and the rules pass promtool's check and their unit tests (alerts_test.yml), with
promtool from Debian's prometheus package (tools/ensure-promtool.sh installs it, as the browser test's Chromium)."""

import json
import pathlib
import re
import shutil
import subprocess

import fakeredis
import pytest
import yaml

from service.config import Settings
from service.ops import health, metrics

ROOT = pathlib.Path(__file__).resolve().parents[1]
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "artemia.json"
NAME = re.compile(r"\b(artemia_[a-z0-9_]+)")


def exported() -> set[str]:
    """The sample names of /metrics once every counter and histogram has a value."""
    connection = fakeredis.FakeRedis()
    for name, (_, labels) in metrics.COUNTERS.items():
        metrics.count(connection, name, **{label: "x" for label in labels})
    for name, (_, labels, _) in metrics.HISTOGRAMS.items():
        metrics.observe(connection, name, 0.1, **{label: "x" for label in labels})
    text = health.render_metrics(connection, Settings()).decode()
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}


def alert_expressions() -> dict[str, str]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return {rule["alert"]: rule["expr"] for group in groups for rule in group["rules"]}


def dashboard_expressions() -> list[str]:
    return [target["expr"] for panel in json.loads(DASHBOARD.read_text())["panels"] for target in panel["targets"]]


def test_every_metric_the_dashboard_and_the_alerts_name_is_exported():
    names = exported()
    used = {m for expr in [*alert_expressions().values(), *dashboard_expressions()] for m in NAME.findall(expr)}
    assert used and used <= names, f"not exported: {sorted(used - names)}"


def test_the_alerts_cover_what_an_operator_must_hear_of():
    exprs = alert_expressions()
    wanted = {
        "ArtemiaNoLiveWorker": "artemia_queue_workers",
        "ArtemiaDeadlineLate": 'artemia_resolution_latency_seconds_bucket{trigger="deadline"}',
        "ArtemiaSendBacklogGrowing": "artemia_outbox_depth",
        "ArtemiaReplicationLag": "artemia_redis_replication_lag_bytes",
        "ArtemiaRedisMemoryHigh": "artemia_redis_used_memory_bytes",
    }
    for alert, metric in wanted.items():
        assert metric in exprs[alert], alert


def test_the_dashboard_shows_each_figure_the_operator_reads():
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] == "artemia"
    text = " ".join(dashboard_expressions())
    for metric in (
        "artemia_answers_total",
        "artemia_windows_resolved_total",
        'artemia_resolution_latency_seconds_bucket{trigger="deadline"}',
        "artemia_outbox_depth",
        "artemia_throttled_total",
        "artemia_queue_workers",
        "artemia_redis_used_memory_bytes / clamp_min(artemia_games_open, 1)",
        "artemia_redis_replication_lag_bytes",
    ):
        assert metric in text, metric
    for panel in dashboard["panels"]:  # a data source chosen on import, never one of our machines
        assert panel["datasource"]["uid"] == "${datasource}"


@pytest.fixture(scope="module")
def promtool():
    done = subprocess.run(
        [str(ROOT / "tools" / "ensure-promtool.sh")], capture_output=True, text=True, timeout=1200, check=False
    )
    assert done.returncode == 0, "promtool is needed (tools/ensure-promtool.sh): " + done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.integration
def test_promtool_checks_the_rules_and_passes_their_unit_tests(promtool):
    checked = subprocess.run([promtool, "check", "rules", str(ALERTS)], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run(
        [promtool, "test", "rules", str(ALERTS.parent / "alerts_test.yml")], capture_output=True, text=True, timeout=120
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr


@pytest.mark.integration
def test_promtool_checks_the_prometheus_configuration(promtool, tmp_path):
    """deploy/prometheus/prometheus.yml as shipped, its token file where the test can make one."""
    token = tmp_path / "artemia-ops-token"
    token.write_text("secret\n")
    config = (ALERTS.parent / "prometheus.yml").read_text().replace("/etc/prometheus/artemia-ops-token", str(token))
    (tmp_path / "prometheus.yml").write_text(config)
    shutil.copy(ALERTS, tmp_path / "alerts.yml")
    checked = subprocess.run(
        [promtool, "check", "config", str(tmp_path / "prometheus.yml")], capture_output=True, text=True, timeout=120
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.integration
def test_a_real_redis_gives_the_memory_and_replication_gauges():
    import redis

    from tests import real_redis

    connection = redis.Redis.from_url(real_redis.fresh_database(real_redis.server_url()))
    text = health.render_metrics(connection, Settings()).decode()
    samples = {line.split(" ")[0]: float(line.split(" ")[1]) for line in text.splitlines() if line[:1] != "#"}
    assert samples['artemia_redis_used_memory_bytes{shard="0"}'] > 100_000
    assert samples['artemia_redis_connected_replicas{shard="0"}'] == 0
    assert samples['artemia_redis_replication_lag_bytes{shard="0"}'] == 0
    assert samples['artemia_queue_workers{queue="artemia",shard="0"}'] == 0
