"""Serve an ASGI app on 127.0.0.1 in a thread, for the fake Bot API and the fake Twilio in tests and benches."""

import contextlib
import socket
import threading
import time

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(app, path: str = ""):
    """Run ``app`` under uvicorn on a free loopback port; yields its base URL (plus ``path``)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the fake server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
