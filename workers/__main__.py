"""Worker entry point: ``python -m workers [--burst] [--simple]``.

Runs an RQ worker with its scheduler on the configured queue with the JSON serializer, and makes sure the
periodic sweep is scheduled. Equivalent to ``rq worker --with-scheduler -S json artemia`` plus the sweep seed.
Tuned like the Procfile's worker line, so that a dead worker's job is back within two minutes (TECH-NOTES §3.6).
"""

import argparse

import redis
from rq import SimpleWorker, Worker

from service.config import get_settings
from workers import context, jobs, scheduling  # noqa: F401  (jobs: preloaded for the forked horses)

WORKER_TTL = 30  # the Procfile's --worker-ttl and --maintenance-interval
MAINTENANCE_INTERVAL = 30


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m workers", description=__doc__.splitlines()[0])
    parser.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    parser.add_argument("--simple", action="store_true", help="run jobs in-process (SimpleWorker, no fork)")
    args = parser.parse_args(argv)
    settings = get_settings()
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set (for a local game without Redis run: python -m service.sandbox)")
    if settings.telegram_bot_token:  # preload for the forked work horses (the bot itself is made per process)
        import service.channels.telegram_jobs  # noqa: F401
        import service.channels.telegram_send  # noqa: F401
    connection = redis.Redis.from_url(settings.redis_url)
    ctx = context.build(connection, settings)
    scheduling.sweep(ctx, ctx.clock())
    worker_class = SimpleWorker if args.simple else Worker
    worker = worker_class(ctx.queues, connection=connection, serializer=ctx.queue.serializer,
                          worker_ttl=WORKER_TTL, maintenance_interval=MAINTENANCE_INTERVAL,
                          job_monitoring_interval=10)
    worker.work(burst=args.burst, with_scheduler=True)


if __name__ == "__main__":
    main()
