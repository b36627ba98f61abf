#!/bin/sh
# Usage: deploy/sentinel/render.sh node|sentinel OUT
#
# Writes a data node's or a sentinel's configuration to OUT from the templates beside this script and the
# environment (every ${NAME} of a template must be set: an unset one is an error, never an empty value). OUT is
# written once, mode 0600: an existing OUT is kept (Redis and the sentinels rewrite their own files after a
# failover), unless RENDER_AGAIN=1 (e.g. to change a password: then the node starts from the template's role).
#   node:     REDIS_BIND REDIS_PORT REDIS_DIR REDIS_ANNOUNCE_IP REDIS_PASSWORD REDIS_MIN_REPLICAS_TO_WRITE
#             REDIS_APPENDFSYNC, and for a replica REDIS_REPLICAOF="host port"
#   sentinel: SENTINEL_BIND SENTINEL_PORT SENTINEL_DIR SENTINEL_ANNOUNCE_IP SENTINEL_PASSWORD REDIS_PASSWORD
#             SENTINEL_DOWN_AFTER_MS SENTINEL_FAILOVER_TIMEOUT_MS, and SENTINEL_SERVICES="name=host:port ..."
# Defaults: REDIS_MIN_REPLICAS_TO_WRITE=1, REDIS_APPENDFSYNC=everysec, SENTINEL_DOWN_AFTER_MS=5000,
# SENTINEL_FAILOVER_TIMEOUT_MS=60000.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kind=${1:?usage: render.sh node|sentinel OUT}
out=${2:?usage: render.sh node|sentinel OUT}
: "${REDIS_MIN_REPLICAS_TO_WRITE:=1}" "${REDIS_APPENDFSYNC:=everysec}"
: "${SENTINEL_DOWN_AFTER_MS:=5000}" "${SENTINEL_FAILOVER_TIMEOUT_MS:=60000}"
export REDIS_MIN_REPLICAS_TO_WRITE REDIS_APPENDFSYNC SENTINEL_DOWN_AFTER_MS SENTINEL_FAILOVER_TIMEOUT_MS

if [ -e "$out" ] && [ "${RENDER_AGAIN:-0}" != 1 ]; then
    exit 0
fi

# ${NAME} -> the environment's value (awk's ENVIRON; a *PASSWORD is quoted for Redis); unset -> error
fill() {
    awk '{
        line = $0; done = ""
        while (match(line, /\$\{[A-Z_]+\}/)) {
            name = substr(line, RSTART + 2, RLENGTH - 3)
            if (!(name in ENVIRON) || ENVIRON[name] == "") { print "render.sh: " name " is not set" > "/dev/stderr"; exit 1 }
            value = ENVIRON[name]
            if (name ~ /PASSWORD$/) {  # quoted as Redis reads a quoted argument: any character is safe
                gsub(/\\/, "\\\\", value); gsub(/"/, "\\\"", value); value = "\"" value "\""
            }
            done = done substr(line, 1, RSTART - 1) value; line = substr(line, RSTART + RLENGTH)
        }
        print done line
    }' "$1"
}

umask 077
tmp="$out.rendering"
case "$kind" in
node)
    fill "$here/node.conf.in" >"$tmp"
    if [ -n "${REDIS_REPLICAOF:-}" ]; then
        printf '# a replica at its first start (the sentinels rewrite this after a failover)\nreplicaof %s\n' \
            "$REDIS_REPLICAOF" >>"$tmp"
    fi
    ;;
sentinel)
    fill "$here/sentinel.conf.in" >"$tmp"
    for item in ${SENTINEL_SERVICES:?SENTINEL_SERVICES is not set}; do
        SERVICE=${item%%=*} PRIMARY_HOST=${item#*=}
        PRIMARY_PORT=${PRIMARY_HOST##*:} PRIMARY_HOST=${PRIMARY_HOST%:*}
        export SERVICE PRIMARY_HOST PRIMARY_PORT
        fill "$here/sentinel-monitor.conf.in" >>"$tmp"
    done
    ;;
*)
    echo "render.sh: node or sentinel, not $kind" >&2
    exit 2
    ;;
esac
chmod 600 "$tmp"
mv "$tmp" "$out"
