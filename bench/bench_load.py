"""Short version of the load generator (``bench/load.py``) for ``make bench``: a few games through the webhook
against the Procfile processes, a short webhook rate measurement, every figure printed. ``make soak`` and
docs/BENCHMARKS.md have the long runs. Skipped without a Redis (``ARTEMIA_TEST_REDIS_URL`` / ``REDIS_URL``)."""

import os

from bench import load


def main() -> dict | None:
    if not (os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")):
        print("bench_load: skipped, no ARTEMIA_TEST_REDIS_URL or REDIS_URL (run it with make bench)")
        return None
    return load.main(
        [
            "--games",
            os.environ.get("BENCH_LOAD_GAMES", "8"),
            "--players",
            "4",
            "--workers",
            "2",
            "--rate-seconds",
            "3",
            "--rate-games",
            "10",
            "--timeout",
            os.environ.get("BENCH_LOAD_TIMEOUT", "90"),
            "--memory-every",
            "10",
        ]
    )


if __name__ == "__main__":
    main()
