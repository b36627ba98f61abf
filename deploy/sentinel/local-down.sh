#!/bin/sh
# Usage: deploy/sentinel/local-down.sh DIR — stops what local-up.sh started in DIR (each process by its pid file).
set -eu
dir=${1:?usage: local-down.sh DIR}
for pidfile in "$dir"/*/redis.pid "$dir"/*/sentinel.pid; do
    [ -e "$pidfile" ] || continue
    kill "$(cat "$pidfile")" 2>/dev/null || true
done
