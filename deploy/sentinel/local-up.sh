#!/bin/sh
# Usage: deploy/sentinel/local-up.sh DIR [SHARDS]      (stop: deploy/sentinel/local-down.sh DIR)
#
# The Sentinel setup of this directory on one machine, on loopback, each process with a port and a directory of
# its own under DIR: for each Redis service a primary and two replicas, and three sentinels watching them all.
# SHARDS=1 (default): the service "artemia". SHARDS=2: "artemia" (the index: REDIS_URL's role) and the game
# shards "artemia-shard0" and "artemia-shard1". The files are rendered by render.sh from the same templates a
# production machine uses (only addresses, ports and directories differ), so this is what the failover test
# (tests/integration/test_failover_real.py) runs. Needs REDIS_PASSWORD and SENTINEL_PASSWORD in the
# environment. Ports: BASE_PORT (default 7000) + 10 per service (+0 primary, +1 and +2 replicas), sentinels
# at BASE_PORT + 100, 101, 102; REPLICAS (default 2) replicas per service. Prints the settings for Artemia.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: local-up.sh DIR [SHARDS]}
shards=${2:-1}
base=${BASE_PORT:-7000}
replicas=${REPLICAS:-2}
server=${REDIS_SERVER_BIN:-redis-server}
: "${REDIS_PASSWORD:?set REDIS_PASSWORD}" "${SENTINEL_PASSWORD:?set SENTINEL_PASSWORD}"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

case "$shards" in
1) services="artemia" ;;
2) services="artemia artemia-shard0 artemia-shard1" ;;
*) echo "local-up.sh: SHARDS is 1 or 2" >&2; exit 2 ;;
esac

wait_port() { # a port answers (with or without a password: NOAUTH is an answer)
    for _ in $(seq 100); do
        if redis-cli -h 127.0.0.1 -p "$1" --no-auth-warning -a "$2" ping 2>/dev/null | grep -q PONG; then return 0; fi
        sleep 0.1
    done
    echo "local-up.sh: nothing answers on port $1 (log: $3)" >&2
    exit 1
}

start_node() { # port [primary port]
    node="$dir/$1"
    mkdir -p "$node"
    REDIS_BIND=127.0.0.1 REDIS_PORT=$1 REDIS_DIR=$node REDIS_ANNOUNCE_IP=127.0.0.1 \
        REDIS_REPLICAOF=${2:+127.0.0.1 $2} "$here/render.sh" node "$node/node.conf"
    "$server" "$node/node.conf" --daemonize yes
    wait_port "$1" "$REDIS_PASSWORD" "$node/redis.log"
}

monitored=""
n=0
for service in $services; do
    primary=$((base + 10 * n))
    start_node "$primary"
    r=1
    while [ "$r" -le "$replicas" ]; do
        start_node $((primary + r)) "$primary"
        r=$((r + 1))
    done
    monitored="$monitored $service=127.0.0.1:$primary"
    n=$((n + 1))
done

sentinels=""
for s in 0 1 2; do
    port=$((base + 100 + s))
    sdir="$dir/$port"
    mkdir -p "$sdir"
    SENTINEL_BIND=127.0.0.1 SENTINEL_PORT=$port SENTINEL_DIR=$sdir SENTINEL_ANNOUNCE_IP=127.0.0.1 \
        SENTINEL_SERVICES="$monitored" "$here/render.sh" sentinel "$sdir/sentinel.conf"
    "$server" "$sdir/sentinel.conf" --sentinel --daemonize yes
    wait_port "$port" "$SENTINEL_PASSWORD" "$sdir/sentinel.log"
    sentinels="$sentinels${sentinels:+,}127.0.0.1:$port"
done

echo "ARTEMIA_REDIS_SENTINELS=$sentinels"
echo "ARTEMIA_REDIS_SENTINEL_SERVICE=artemia"
if [ "$shards" = 2 ]; then
    echo "ARTEMIA_REDIS_SHARDS=sentinel:artemia-shard0,sentinel:artemia-shard1"
fi
echo "ARTEMIA_REDIS_ACK_REPLICAS=1"
echo "# and ARTEMIA_REDIS_PASSWORD, ARTEMIA_REDIS_SENTINEL_PASSWORD from REDIS_PASSWORD and SENTINEL_PASSWORD"
