#!/usr/bin/env bash
# Test prerequisites (README.md#the-two-commands): redis-server, Chromium and promtool (Debian's `prometheus` package;
# the alert and dashboard tests run it, docs/development.md#layout-and-conventions). Installs the missing ones with
# apt-get when it may (root on Debian/Ubuntu); otherwise prints the exact command to run and fails. Runs before every
# `npm test` (pretest). TEST_SETUP_DRY_RUN=1 prints what it would install; TEST_SETUP_CHROMIUM / TEST_SETUP_REDIS /
# TEST_SETUP_PROMTOOL override the paths looked at, and TEST_SETUP_UID the user id (the tests of this script use them).
set -euo pipefail

chromium="${TEST_SETUP_CHROMIUM:-/usr/bin/chromium}"
redis="${TEST_SETUP_REDIS:-$(command -v redis-server || echo /usr/bin/redis-server)}"
promtool="${TEST_SETUP_PROMTOOL:-$(command -v promtool || echo /usr/bin/promtool)}"
uid="${TEST_SETUP_UID:-$(id -u)}"

missing=()
[ -x "$redis" ] || missing+=(redis-server)
[ -x "$chromium" ] || missing+=(chromium)
[ -x "$promtool" ] || missing+=(prometheus)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

install="apt-get update && apt-get install -y ${missing[*]}"
if [ "$uid" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "test setup: missing ${missing[*]}. Install with:" >&2
  echo "  sudo sh -c '$install'" >&2
  exit 1
fi
echo "test setup: installing ${missing[*]}"
if [ "${TEST_SETUP_DRY_RUN:-}" = "1" ]; then
  echo "would run: $install"
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
if [[ " ${missing[*]} " == *" prometheus "* ]]; then
  # The package also brings a Prometheus server (and its node exporter) and may start them: only promtool is wanted.
  for service in prometheus prometheus-node-exporter; do
    systemctl disable --now "$service" >/dev/null 2>&1 || true
    if [ -x "/etc/init.d/$service" ]; then "/etc/init.d/$service" stop >/dev/null 2>&1 || true; fi
  done
fi
