#!/usr/bin/env bash
# Usage: tools/with-redis.sh CMD [ARGS...]
#
# Starts a PRIVATE redis-server (own port, own temp dir, AOF on) for the
# integration tests, runs CMD with these variables exported, then shuts the
# server down (also on failure or Ctrl-C) and exits with CMD's exit code:
#   ARTEMIA_TEST_REDIS_URL   redis://127.0.0.1:PORT/0
#   ARTEMIA_TEST_REDIS_PORT  PORT
#   ARTEMIA_TEST_REDIS_DIR   the server's --dir (AOF files live here)
#   ARTEMIA_REDIS_SERVER_BIN path of redis-server, so tests can restart it
# The machine's own redis (6379) is never used.
set -euo pipefail

if [ $# -eq 0 ]; then
    echo "usage: $0 CMD [ARGS...]" >&2
    exit 2
fi

log() { echo "with-redis: $*" >&2; }

# 1. Make sure redis-server exists.
if ! command -v redis-server >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        log "redis-server not found; installing it with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq redis-server >&2
    else
        log "redis-server is not installed and I cannot install it (need root and apt-get)."
        log "Install it yourself, e.g.: sudo apt-get install redis-server"
        exit 1
    fi
fi
REDIS_BIN="$(command -v redis-server)"

# PING a port; succeeds only if a Redis answers PONG there.
redis_ping() {
    local port=$1
    if command -v redis-cli >/dev/null 2>&1; then
        [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ]
    else
        local reply
        exec 3<>"/dev/tcp/127.0.0.1/$port" 2>/dev/null || return 1
        printf 'PING\r\n' >&3
        IFS= read -r -t 2 reply <&3 || true
        exec 3<&- 3>&-
        [ "${reply%$'\r'}" = "+PONG" ]
    fi
}

# Is anything at all listening on the port?
port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

REDIS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/artemia-redis.XXXXXX")"
REDIS_PID=""
REDIS_PORT=""

cleanup() {
    if [ -n "$REDIS_PORT" ]; then
        # Tests may have restarted the server: shut down whatever serves our port.
        if command -v redis-cli >/dev/null 2>&1; then
            redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
        fi
    fi
    if [ -n "$REDIS_PID" ] && kill -0 "$REDIS_PID" 2>/dev/null; then
        kill "$REDIS_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$REDIS_PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$REDIS_PID" 2>/dev/null || true
    fi
    [ -n "$REDIS_PID" ] && wait "$REDIS_PID" 2>/dev/null || true
    rm -rf "$REDIS_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# 2. Start a private server on the first free port from 6390 upward.
for port in $(seq 6390 6490); do
    if port_in_use "$port" || redis_ping "$port"; then
        continue
    fi
    "$REDIS_BIN" --port "$port" --bind 127.0.0.1 \
        --appendonly yes --appendfsync everysec \
        --dir "$REDIS_DIR" --save "" --daemonize no \
        --logfile "$REDIS_DIR/redis.log" &
    REDIS_PID=$!
    for _ in $(seq 100); do
        if redis_ping "$port"; then REDIS_PORT=$port; break; fi
        kill -0 "$REDIS_PID" 2>/dev/null || break   # died (port raced away?): try next
        sleep 0.1
    done
    [ -n "$REDIS_PORT" ] && break
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
    REDIS_PID=""
done
if [ -z "$REDIS_PORT" ]; then
    log "could not start a private redis-server on ports 6390-6490; log:"
    cat "$REDIS_DIR/redis.log" >&2 2>/dev/null || true
    exit 1
fi

export ARTEMIA_TEST_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
export ARTEMIA_TEST_REDIS_PORT="$REDIS_PORT"
export ARTEMIA_TEST_REDIS_DIR="$REDIS_DIR"
export ARTEMIA_REDIS_SERVER_BIN="$REDIS_BIN"
log "private redis-server pid $REDIS_PID on $ARTEMIA_TEST_REDIS_URL (dir $REDIS_DIR)"

# 3. Run the command; keep its exit code.
rc=0
"$@" || rc=$?
exit "$rc"
