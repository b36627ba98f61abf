"""Backups of the Redis data nodes, and their restore (``python -m service.admin backup`` / ``restore``).

Backup: a point-in-time RDB of every Redis of the deployment (the index of ``REDIS_URL`` or the Sentinel primary,
and each game shard), fetched over the network the way a replica gets its first copy (``SYNC`` after
``REPLCONF rdb-only 1``, what ``redis-cli --rdb`` does), so it works wherever the process can reach Redis: through
the password, TLS and Sentinel settings every process uses, without access to the server's disk. Redis forks and
writes a consistent snapshot; nothing stops or waits. One directory per backup, ``artemia-<UTC time>``, holds one
``<name>.rdb`` per node (``index``, ``shard-0``, ...; ``index`` alone when the games are not sharded) and
``manifest.json`` (sizes, SHA-256, the database number, keys and games counted at the time); files mode 0600: a
backup holds every hidden hand. ``--keep N`` deletes all but the newest N backups of the directory.

Restore: each RDB is loaded by a private ``redis-server`` on a free loopback port (the same or a newer Redis
release than the one that wrote it), and every key of the backed-up database is copied with its remaining time to
live (``DUMP`` / ``RESTORE``) into the node it came from, which must be empty (``--force``: replace what is
there). The target may be a fresh ``redis-server``, or a Sentinel primary whose replicas take the data as any
write. RQ's process state is not copied: worker registrations and scheduler locks belong to processes that no
longer exist (a restored lock would hold the new workers' scheduler off for up to a minute); queued, scheduled
and started jobs are copied, and a job that was running when the backup was taken is recovered as any abandoned
job is.

A leaf: it imports redis and the standard library only.
"""

import contextlib
import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import redis

RDB_MAGIC = b"REDIS"
EOF_MARK_LENGTH = 40  # diskless replication ends the RDB with the 40 random bytes announced in "$EOF:<mark>"
# RQ's process state: never restored (see the module docstring).
SKIPPED_PATTERNS = ("rq:workers", "rq:workers:", "rq:worker:", "rq:scheduler-lock:", "rq:scheduler:")
BATCH = 500


class BackupError(RuntimeError):
    """A backup or restore that cannot be done; the message says why."""


# ------------------------------------------------------------------------------------------ fetching an RDB


class _Reader:
    """Buffered reads from a connected socket (the replication stream is not RESP after its first line)."""

    def __init__(self, sock: socket.socket):
        self.sock, self.buffer = sock, b""

    def _fill(self) -> None:
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise BackupError("Redis closed the connection during the transfer")
        self.buffer += chunk

    def line(self) -> bytes:
        while b"\n" not in self.buffer:
            self._fill()
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.rstrip(b"\r")

    def chunks(self) -> Iterator[bytes]:
        """What is buffered, then whatever the socket gives, until the peer closes."""
        if self.buffer:
            yield self.buffer
            self.buffer = b""
        while chunk := self.sock.recv(1 << 20):
            yield chunk


def fetch_rdb(client: redis.Redis, path: Path, timeout: float = 600.0) -> int:
    """Write a point-in-time RDB of ``client``'s server to ``path`` (written whole or not at all). -> bytes."""
    connection = client.connection_pool.make_connection()  # a connection of its own, never returned to the pool
    try:
        connection.connect()
        connection.send_command("REPLCONF", "rdb-only", "1")  # Redis 7+: the RDB only, no command stream after it
        with contextlib.suppress(redis.ResponseError):
            connection.read_response()
        connection.send_command("SYNC")
        sock = getattr(connection, "_sock", None)  # redis-py keeps the socket there; the stream is read raw
        if sock is None:
            raise BackupError("no socket to read the RDB from")
        sock.settimeout(timeout)  # Redis sends a newline every second while its fork writes the snapshot
        reader = _Reader(sock)
        header = b""
        while not header:  # keep-alive newlines first
            header = reader.line()
        if header.startswith(b"-"):
            raise BackupError(f"Redis refused the transfer: {header[1:].decode(errors='replace')}")
        if not header.startswith(b"$"):
            raise BackupError(f"unexpected reply to SYNC: {header[:80]!r}")
        tmp = path.with_name(path.name + ".partial")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            if header.startswith(b"$EOF:"):  # diskless: streamed until the mark
                mark, tail = header[5:], b""
                if len(mark) != EOF_MARK_LENGTH:
                    raise BackupError(f"unexpected diskless header {header[:80]!r}")
                for chunk in reader.chunks():
                    data = tail + chunk
                    if data.endswith(mark):
                        out.write(data[: -len(mark)])
                        tail = b""
                        break
                    out.write(data[:-EOF_MARK_LENGTH])
                    tail = data[-EOF_MARK_LENGTH:]
                else:
                    raise BackupError("the diskless transfer ended without its end mark")
            else:
                left = int(header[1:])
                data, reader.buffer = reader.buffer[:left], reader.buffer[left:]
                out.write(data)
                left -= len(data)
                while left > 0:
                    chunk = sock.recv(min(left, 1 << 20))
                    if not chunk:
                        raise BackupError("Redis closed the connection during the transfer")
                    out.write(chunk)
                    left -= len(chunk)
            out.flush()
            os.fsync(out.fileno())
        with open(tmp, "rb") as check:
            if check.read(len(RDB_MAGIC)) != RDB_MAGIC:
                tmp.unlink()
                raise BackupError("what Redis sent is not an RDB file")
        tmp.rename(path)
        return path.stat().st_size
    finally:
        connection.disconnect()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _db_of(client: redis.Redis) -> int:
    return int(client.connection_pool.connection_kwargs.get("db", 0) or 0)


def backup(nodes: dict[str, redis.Redis], directory: str | Path, keep: int = 0, now: float | None = None) -> Path:
    """One backup of every node (``{name: client}``) under ``directory``; -> the backup's own directory. With
    ``keep``, older backups beyond the newest ``keep`` are deleted afterwards."""
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    stamp = datetime.fromtimestamp(now if now is not None else time.time(), UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = root / f"artemia-{stamp}"
    work = root / f".partial-artemia-{stamp}"
    work.mkdir(mode=0o700)
    manifest: dict = {"format": 1, "taken": stamp, "nodes": {}}
    try:
        for name, client in nodes.items():
            started = time.monotonic()
            keys_before = client.dbsize()
            games = sum(1 for _ in client.scan_iter(match="{g:*}:snap", count=1000))
            size = fetch_rdb(client, work / f"{name}.rdb")
            manifest["nodes"][name] = {
                "file": f"{name}.rdb",
                "bytes": size,
                "sha256": _sha256(work / f"{name}.rdb"),
                "db": _db_of(client),
                "keys": keys_before,
                "games": games,
                "seconds": round(time.monotonic() - started, 3),
            }
        fd = os.open(work / "manifest.json", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(manifest, out, indent=1)
        work.rename(target)  # a backup directory exists only complete
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    if keep > 0:
        for old in sorted(root.glob("artemia-*"))[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
    return target


# ------------------------------------------------------------------------------------------ restoring


def read_manifest(backup_dir: str | Path) -> dict:
    """The manifest, every file checked against its size and SHA-256."""
    backup_dir = Path(backup_dir)
    try:
        manifest = json.loads((backup_dir / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise BackupError(f"{backup_dir}: no readable manifest.json ({exc})") from None
    for node in manifest["nodes"].values():
        path = backup_dir / node["file"]
        if not path.exists() or path.stat().st_size != node["bytes"] or _sha256(path) != node["sha256"]:
            raise BackupError(f"{path}: missing, or not the file the backup wrote (size or SHA-256 differ)")
    return manifest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_binary() -> str:
    found = os.environ.get("ARTEMIA_REDIS_SERVER_BIN") or shutil.which("redis-server")
    if not found:
        raise BackupError("redis-server is not installed here (apt-get install redis-server)")
    return found


@contextlib.contextmanager
def loaded(rdb: Path, db: int = 0) -> Iterator[redis.Redis]:
    """A private redis-server on loopback that has loaded ``rdb`` (a copy: the backup is never written to); a
    client of its database ``db``."""
    work = Path(tempfile.mkdtemp(prefix="artemia-restore-"))
    shutil.copyfile(rdb, work / "dump.rdb")
    port = free_port()
    args = [server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(work), "--dbfilename"]
    args += ["dump.rdb", "--appendonly", "no", "--save", "", "--daemonize", "no", "--protected-mode", "yes"]
    args += ["--logfile", str(work / "redis.log")]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port, db=db, socket_timeout=30)
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                if client.ping() and not int(client.info("persistence").get("loading", 0)):
                    break
            except (redis.ConnectionError, redis.BusyLoadingError):
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log = (work / "redis.log").read_text(errors="replace")[-2000:] if (work / "redis.log").exists() else ""
                raise BackupError(f"redis-server could not load {rdb}:\n{log}")
            time.sleep(0.05)
        yield client
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)


def copy_keys(source: redis.Redis, target: redis.Redis) -> int:
    """Every key of ``source`` but RQ's process state into ``target``, with its remaining time to live. -> keys."""
    copied = 0
    names = [k for k in source.scan_iter(count=1000) if not k.decode(errors="replace").startswith(SKIPPED_PATTERNS)]
    for start in range(0, len(names), BATCH):
        batch = names[start : start + BATCH]
        read = source.pipeline(transaction=False)
        for key in batch:
            read.pttl(key)
            read.dump(key)
        values = read.execute()
        write = target.pipeline(transaction=False)
        for i, key in enumerate(batch):
            ttl, dumped = values[2 * i], values[2 * i + 1]
            if dumped is None or ttl == -2:  # expired meanwhile
                continue
            write.restore(key, max(int(ttl), 0), dumped, replace=True)
            copied += 1
        write.execute()
    return copied


def restore(backup_dir: str | Path, nodes: dict[str, redis.Redis], force: bool = False) -> dict[str, int]:
    """Copy the backup into ``nodes`` (``{name: client}``, the names the backup has). -> keys copied per node."""
    manifest = read_manifest(backup_dir)
    if set(manifest["nodes"]) != set(nodes):
        raise BackupError(
            f"the backup holds {sorted(manifest['nodes'])} and this deployment is {sorted(nodes)}: "
            "restore into the same shard layout"
        )
    if not force:
        for name, client in nodes.items():
            if client.dbsize():
                raise BackupError(
                    f"{name} is not empty ({client.dbsize()} keys): restore into an empty Redis, or --force"
                )
    copied = {}
    for name, client in nodes.items():
        node = manifest["nodes"][name]
        with loaded(Path(backup_dir) / node["file"], node["db"]) as source:
            copied[name] = copy_keys(source, client)
    return copied
