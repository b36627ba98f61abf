"""A Redis Sentinel setup on loopback for the failover test and the replication bench: a primary, a replica and
three sentinels, each a real ``redis-server`` process with its own port and directory (AOF on, fsync always).

    with Cluster() as cluster:
        cluster.primary_port, cluster.sentinel_ports, cluster.kill(port), cluster.restart(port)

The sentinels monitor the primary under SERVICE with a quorum of 2 and declare it down after DOWN_AFTER_MS.

`DeployedCluster` is the same setup as deploy/sentinel/ ships it: deploy/sentinel/local-up.sh renders the
production templates (passwords, min-replicas-to-write, AOF) for each node and sentinel and starts them; only the
addresses, ports, directories, the sentinels' down-after and fsync differ (environment variables of the script).
"""

import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis
from real_redis import free_port, server_binary

DEPLOY = Path(__file__).resolve().parents[1] / "deploy" / "sentinel"

SERVICE = "artemia"
DOWN_AFTER_MS = 1000


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except (redis.RedisError, OSError):
            value = None
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class Cluster:
    def __init__(self, replicas: int = 1, sentinels: int = 3):
        self.dir = Path(tempfile.mkdtemp(prefix="artemia-sentinel-"))
        self.primary_port = free_port()
        self.replica_ports = [free_port() for _ in range(replicas)]
        self.sentinel_ports = [free_port() for _ in range(sentinels)]
        self.procs: dict[int, subprocess.Popen] = {}
        self.password: str | None = None  # the data nodes'
        self.sentinel_password: str | None = None

    # --- processes -------------------------------------------------------------------------------------------
    def _start_data_node(self, port: int, replica_of: int | None = None) -> None:
        node_dir = self.dir / str(port)
        node_dir.mkdir(exist_ok=True)
        args = [server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node_dir)]
        args += ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
        if replica_of is not None:
            args += ["--replicaof", "127.0.0.1", str(replica_of)]
        self._spawn(port, args)

    def _start_sentinel(self, port: int) -> None:
        conf = self.dir / f"sentinel-{port}.conf"
        if not conf.exists():  # a restarted sentinel keeps what it learned (it rewrites its file)
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.dir}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary_port} 2\n"
                f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {SERVICE} 10000\n"
                f"sentinel parallel-syncs {SERVICE} 1\n"
            )
        self._spawn(port, [server_binary(), str(conf), "--sentinel"])

    def _spawn(self, port: int, args: list[str]) -> None:
        log = (self.dir / f"{port}.log").open("a")
        self.procs[port] = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        _wait(lambda: redis.Redis(port=port, socket_timeout=1).ping(), 10, f"redis-server on port {port}")

    def start(self) -> "Cluster":
        self._start_data_node(self.primary_port)
        for port in self.replica_ports:
            self._start_data_node(port, replica_of=self.primary_port)
        self.wait_replicas(self.primary_port, len(self.replica_ports))
        for port in self.sentinel_ports:
            self._start_sentinel(port)
        return self.discovered()

    def discovered(self) -> "Cluster":
        """Wait until every sentinel knows the replicas and the other sentinels."""
        for port in self.sentinel_ports:
            _wait(
                lambda port=port: (
                    len(self.sentinel(port).sentinel_slaves(SERVICE)) == len(self.replica_ports)
                    and len(self.sentinel(port).sentinel_sentinels(SERVICE)) == len(self.sentinel_ports) - 1
                ),
                20,
                f"sentinel {port} to discover the replicas and the other sentinels",
            )
        return self

    def kill(self, port: int) -> None:
        """SIGKILL one process (a machine lost)."""
        proc = self.procs.pop(port)
        proc.kill()
        proc.wait()

    def restart_as_node(self, port: int) -> None:
        """Start a data node again on its port and directory (its machine came back); the sentinels make it a
        replica of whatever is primary now."""
        self._start_data_node(port)

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.kill()
        for proc in self.procs.values():
            proc.wait()
        self.procs.clear()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "Cluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- reading ---------------------------------------------------------------------------------------------
    def sentinel(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=1, decode_responses=True, password=self.sentinel_password)

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=1, password=self.password)

    def sentinels_setting(self) -> str:
        return ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)

    def current_primary(self) -> int | None:
        """The primary's port as a majority of the live sentinels names it."""
        votes: dict[int, int] = {}
        for port in self.sentinel_ports:
            if port not in self.procs:
                continue
            try:
                host, primary = self.sentinel(port).sentinel_get_master_addr_by_name(SERVICE)
                votes[int(primary)] = votes.get(int(primary), 0) + 1
            except (redis.RedisError, TypeError):
                continue
        best = max(votes.items(), key=lambda item: item[1], default=(None, 0))
        return best[0] if best[1] >= 2 else None

    def wait_replicas(self, primary: int, count: int, timeout: float = 30) -> None:
        """Until the primary has ``count`` replicas connected and in sync."""

        def synced():
            info = self.node(primary).info("replication")
            return info.get("connected_slaves", 0) >= count and all(
                info.get(f"slave{i}", {}).get("state") == "online" for i in range(count)
            )

        _wait(synced, timeout, f"{count} replica(s) of port {primary} online")

    def wait_failover(self, old: int, timeout: float = 30) -> int:
        """Until the sentinels name a primary other than ``old``: its port."""
        return _wait(lambda: (p := self.current_primary()) not in (None, old) and p, timeout, "a failover")


def _free_block(size: int) -> int:
    """A base port with ``size`` free ports above it (local-up.sh numbers its ports from a base)."""
    for _ in range(200):
        base = free_port()
        if base + size >= 65000:
            continue
        taken = False
        for port in range(base, base + size):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    taken = True
                    break
        if not taken:
            return base
    raise RuntimeError("no block of free ports")


class DeployedCluster(Cluster):
    """deploy/sentinel/local-up.sh's setup (one service, SERVICE): a primary, ``replicas`` replicas, three
    sentinels, with passwords; each process found by its pid file."""

    def __init__(self, replicas: int = 2):
        self.dir = Path(tempfile.mkdtemp(prefix="artemia-deployed-sentinel-"))
        self.base = _free_block(103)
        self.primary_port = self.base
        self.replica_ports = [self.base + 1 + n for n in range(replicas)]
        self.sentinel_ports = [self.base + 100 + n for n in range(3)]
        self.procs = {}
        self.password = "data-" + secrets.token_urlsafe(12)
        self.sentinel_password = "sentinel-" + secrets.token_urlsafe(12)
        self.env = {
            **os.environ,
            "BASE_PORT": str(self.base),
            "REPLICAS": str(replicas),
            "REDIS_SERVER_BIN": server_binary(),
            "REDIS_PASSWORD": self.password,
            "SENTINEL_PASSWORD": self.sentinel_password,
            "SENTINEL_DOWN_AFTER_MS": str(DOWN_AFTER_MS),
            "SENTINEL_FAILOVER_TIMEOUT_MS": "10000",
            "REDIS_APPENDFSYNC": "always",
            # with one replica, writes must not stop while it is the one promoted (deploy/sentinel/node.conf.in)
            "REDIS_MIN_REPLICAS_TO_WRITE": "1" if replicas >= 2 else "0",
        }

    def start(self) -> "DeployedCluster":
        subprocess.run(
            [str(DEPLOY / "local-up.sh"), str(self.dir), "1"], env=self.env, check=True, capture_output=True, timeout=60
        )
        for port in [self.primary_port, *self.replica_ports]:
            self.procs[port] = int((self.dir / str(port) / "redis.pid").read_text())
        for port in self.sentinel_ports:
            self.procs[port] = int((self.dir / str(port) / "sentinel.pid").read_text())
        self.wait_replicas(self.primary_port, len(self.replica_ports))
        return self.discovered()

    def _gone(self, pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    def kill(self, port: int) -> None:
        pid = self.procs.pop(port)
        os.kill(pid, signal.SIGKILL)
        _wait(lambda: self._gone(pid), 10, f"process {pid} to die")

    def restart_as_node(self, port: int) -> None:
        """The node again from its rendered file (its machine came back); the sentinels make it a replica."""
        conf = self.dir / str(port) / "node.conf"
        subprocess.run([server_binary(), str(conf), "--daemonize", "yes"], check=True, timeout=30)
        _wait(lambda: self.node(port).ping(), 10, f"redis-server on port {port}")
        self.procs[port] = int((self.dir / str(port) / "redis.pid").read_text())

    def stop(self) -> None:
        for pid in self.procs.values():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.procs.clear()
        shutil.rmtree(self.dir, ignore_errors=True)
