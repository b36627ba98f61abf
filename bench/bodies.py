"""What a huge request body costs the web process: a real ``uvicorn --factory service.web:serve`` process gets a
50 MB POST on ``/sms/twilio`` (unsigned) and on ``/telegram/webhook`` (with the secret), once with
``Content-Length`` and once chunked, with the default body cap and — the baseline, in the same run — with the cap
lifted (``ARTEMIA_MAX_BODY_BYTES`` = 1 GB: the body is read whole, as before the cap existed).

    python -m bench.bodies [--mb 50] [--json out.json]

Per request: the answer's status, the seconds until it came, and how much the server's resident memory grew
(its peak, ``VmHWM``, reset before each request through ``/proc/<pid>/clear_refs``; Linux, as root or the same
user). Goal (issue 14): under 20 MB and under 1 s with the cap. Needs a redis-server: ``ARTEMIA_TEST_REDIS_URL``
(``tools/with-redis.sh``), else ``REDIS_URL``; nothing is written to it by these requests.
"""

import argparse
import json
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.serving import free_port

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-secret"
PIECE = b"a" * 65536


def memory_kb(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


def start_server(redis_url: str, cap: int | None) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "ARTEMIA_WEBHOOK_SECRET": SECRET, "ARTEMIA_LOG_LEVEL": "WARNING"}
    if cap is not None:
        env["ARTEMIA_MAX_BODY_BYTES"] = str(cap)
    command = [sys.executable, "-m", "uvicorn", "--factory", "service.web:serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--loop", "uvloop", "--http", "httptools", "--no-proxy-headers"]
    command += ["--no-access-log", "--log-level", "warning"]
    proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the web process did not start")


def post(port: int, path: str, total: int, chunked: bool, headers: dict[str, str]) -> tuple[int | None, float, int]:
    """Send ``total`` bytes; stop sending as soon as the server answers. -> (status, seconds, bytes sent)."""
    started = time.perf_counter()
    sock = socket.create_connection(("127.0.0.1", port), timeout=120)
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}"
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    sock.sendall((head + extra + framing + "\r\n\r\n").encode())
    sent = 0
    try:
        while sent < total and not select.select([sock], [], [], 0)[0]:
            data = PIECE[: min(len(PIECE), total - sent)]
            sock.sendall(f"{len(data):x}\r\n".encode() + data + b"\r\n" if chunked else data)
            sent += len(data)
        if chunked and sent >= total:
            sock.sendall(b"0\r\n\r\n")
        answer = b""
        while b"\r\n" not in answer:
            part = sock.recv(4096)
            if not part:
                break
            answer += part
    except (BrokenPipeError, ConnectionResetError):
        answer = b""
    finally:
        sock.close()
    elapsed = time.perf_counter() - started
    status = int(answer.split()[1]) if answer.startswith(b"HTTP/") else None
    return status, elapsed, sent


def measure(proc: subprocess.Popen, port: int, total: int) -> list[dict]:
    rows = []
    post(port, "/sms/twilio", 10, False, {})  # warm: first request's imports and buffers
    for path, headers in (("/sms/twilio", {}), ("/telegram/webhook", {"X-Telegram-Bot-Api-Secret-Token": SECRET})):
        for chunked in (False, True):
            Path(f"/proc/{proc.pid}/clear_refs").write_text("5")  # peak RSS := current RSS
            before = memory_kb(proc.pid)
            status, seconds, sent = post(port, path, total, chunked, headers)
            after = memory_kb(proc.pid)
            rows.append(
                {
                    "path": path,
                    "framing": "chunked" if chunked else "content-length",
                    "status": status,
                    "seconds": round(seconds, 3),
                    "sent_mb": round(sent / 2**20, 1),
                    "rss_before_mb": round(before["VmRSS"] / 1024, 1),
                    "peak_growth_mb": round((after["VmHWM"] - before["VmRSS"]) / 1024, 1),
                }
            )
    return rows


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.bodies", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mb", type=int, default=50, help="body size in MB (default 50)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    url = os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")
    if not url:
        raise SystemExit("no Redis: run through tools/with-redis.sh or set REDIS_URL")
    total = args.mb * 2**20
    results = {}
    for label, cap in (("no cap (baseline: read whole)", 2**30), ("default cap (64 KB)", None)):
        proc, port = start_server(url, cap)
        try:
            results[label] = measure(proc, port, total)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    print(f"{args.mb} MB POST bodies; peak = growth of the web process's resident memory")
    print(f"{'server':32} {'path':18} {'framing':15} {'status':>6} {'seconds':>8} {'sent MB':>8} {'peak MB':>8}")
    for label, rows in results.items():
        for r in rows:
            print(
                f"{label:32} {r['path']:18} {r['framing']:15} {r['status']!s:>6} {r['seconds']:8.3f} "
                f"{r['sent_mb']:8.1f} {r['peak_growth_mb']:8.1f}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
