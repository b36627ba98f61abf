"""Short version of ``bench/due.py`` for ``make bench``: 50 Telegram tables whose windows close at their deadline in
the same second, sent through the Procfile's processes to the fake Bot API enforcing Telegram's limits; every
figure printed. docs/BENCHMARKS.md has the 1,000-table run. Environment: BENCH_DUE_TABLES (default 50). Skipped
without a Redis (``ARTEMIA_TEST_REDIS_URL`` / ``REDIS_URL``)."""

import os

from bench import due


def main() -> dict | None:
    if not (os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")):
        print("bench_due: skipped, no ARTEMIA_TEST_REDIS_URL or REDIS_URL (run it with make bench)")
        return None
    return due.main(["--tables", os.environ.get("BENCH_DUE_TABLES", "50")])


if __name__ == "__main__":
    main()
