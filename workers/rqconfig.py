"""Settings module for the stock RQ CLI: ``rq worker -c workers.rqconfig --with-scheduler -S json``.

Importing it loads the job code into the worker parent, so each forked job starts warm instead of paying
~0.6 s of imports (engine, pydantic, redis) per job. ``-u URL`` on the command line overrides REDIS_URL. With
``ARTEMIA_REDIS_SENTINELS`` set, RQ (the worker and its scheduler) finds the primary through the sentinels.
"""

from service.config import get_settings
from service.store.connect import rq_settings
from workers import jobs  # noqa: F401  (preload: forked work horses inherit it)

_CONNECTION = rq_settings(get_settings())
REDIS_URL = _CONNECTION["REDIS_URL"]
SENTINEL = _CONNECTION.get("SENTINEL")
_S = get_settings()
QUEUES = [_S.queue_name, _S.refresh_queue_name, _S.send_queue_name, _S.draw_queue_name]  # by priority
