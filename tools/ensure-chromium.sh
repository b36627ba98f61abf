#!/usr/bin/env bash
# Usage: tools/ensure-chromium.sh
#
# Makes sure a headless Chromium and its WebDriver are installed for the browser test of the watch page
# (tests/test_watch_browser.py): Debian's `chromium` and `chromium-driver`, installed with apt-get when missing
# and running as root. Prints the two paths ("<chromium> <chromedriver>") and exits 0, or says why it cannot and
# exits 1 (the test then skips with that reason).
set -euo pipefail

log() { echo "ensure-chromium: $*" >&2; }

found() { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; }

if ! found; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        log "chromium or chromedriver not found; installing chromium and chromium-driver with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        # one installer at a time: parallel test workers may call this together
        exec 9>/tmp/artemia-ensure-chromium.lock
        flock 9
        if ! found; then
            apt-get update -qq >&2 || { log "apt-get update failed"; exit 1; }
            apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-noto-color-emoji >&2 \
                || { log "apt-get install chromium chromium-driver failed"; exit 1; }
        fi
    else
        log "chromium and chromedriver are not installed and I cannot install them (need root and apt-get)."
        log "Install them yourself, e.g.: sudo apt-get install chromium chromium-driver"
        exit 1
    fi
fi
echo "$(command -v chromium) $(command -v chromedriver)"
