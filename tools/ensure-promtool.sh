#!/usr/bin/env bash
# Usage: tools/ensure-promtool.sh
#
# Makes sure Prometheus's promtool is installed, for the checks of deploy/prometheus/ (tests/test_monitoring.py:
# `promtool check rules` and `promtool test rules`): Debian's `prometheus` package provides it, installed with
# apt-get when missing and running as root (like tools/ensure-chromium.sh; the package's own service is not
# needed and not started by us). Prints promtool's path and exits 0, or says why it cannot and exits 1.
set -euo pipefail

log() { echo "ensure-promtool: $*" >&2; }

if ! command -v promtool >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        log "promtool not found; installing Debian's prometheus package (it provides promtool) with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        # one installer at a time: parallel test workers may call this together
        exec 9>/tmp/artemia-ensure-promtool.lock
        flock 9
        if ! command -v promtool >/dev/null 2>&1; then
            apt-get update -qq >&2 || { log "apt-get update failed"; exit 1; }
            apt-get install -y -qq --no-install-recommends prometheus >&2 \
                || { log "apt-get install prometheus failed"; exit 1; }
        fi
    else
        log "promtool is not installed and I cannot install it (need root and apt-get)."
        log "Install it yourself, e.g.: sudo apt-get install prometheus"
        exit 1
    fi
fi
command -v promtool
