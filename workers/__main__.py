"""Worker entry point: ``python -m workers [--burst] [--simple] [--shard N]``.

Runs an RQ worker with its scheduler on the configured queues with the JSON serializer, and makes sure the
periodic sweep is scheduled: the Procfile's worker (`workers.worker`), with its timings, so that a dead worker's
job is back within two minutes (docs/platform-notes.md §5). ``--simple`` runs jobs in the worker process
(``OpsSimpleWorker``, the Procfile's choice); without it each job runs in a forked work horse (``OpsWorker``).
With game shards (``ARTEMIA_REDIS_SHARDS``) a worker serves one shard, ``--shard N`` (default ``ARTEMIA_SHARD``):
its queues, its scheduler and its sweeper are that shard's; run workers for every shard.
"""

import argparse

from service.config import get_settings
from service.pipeline import context
from service.store import connect
from service.wiring import from_settings
from workers.worker import OpsSimpleWorker, OpsWorker

WORKER_TTL = 30  # the Procfile's --worker-ttl and --maintenance-interval
MAINTENANCE_INTERVAL = 30
JOB_MONITORING_INTERVAL = 10


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m workers", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    parser.add_argument("--simple", action="store_true", help="run jobs in-process (SimpleWorker, no fork)")
    parser.add_argument("--shard", type=int, default=None, help="the game shard to serve (ARTEMIA_REDIS_SHARDS)")
    args = parser.parse_args(argv)
    settings = get_settings()
    if args.shard is not None:
        settings = settings.model_copy(update={"shard": args.shard})
    if not connect.configured(settings):
        raise SystemExit("REDIS_URL is not set (for a local game without Redis run: python -m service.sandbox)")
    ctx = from_settings(settings)
    connection = ctx.queue.connection
    context.register(ctx)
    worker_class = OpsSimpleWorker if args.simple else OpsWorker
    worker = worker_class(
        ctx.queues,
        connection=connection,
        serializer=ctx.queue.serializer,
        worker_ttl=WORKER_TTL,
        maintenance_interval=MAINTENANCE_INTERVAL,
        job_monitoring_interval=JOB_MONITORING_INTERVAL,
    )
    worker.work(burst=args.burst, with_scheduler=True)


if __name__ == "__main__":
    main()
