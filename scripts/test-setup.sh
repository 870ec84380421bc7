#!/usr/bin/env bash
# Test prerequisites (README.md#the-two-commands): redis-server and Chromium. Installs the missing ones with apt-get
# when it may (root on Debian/Ubuntu); otherwise prints the exact command to run and fails. Runs before every `npm test`
# (pretest). TEST_SETUP_DRY_RUN=1 prints what it would install; TEST_SETUP_CHROMIUM / TEST_SETUP_REDIS override the
# paths looked at, and TEST_SETUP_UID the user id (the tests of this script use them).
set -euo pipefail

chromium="${TEST_SETUP_CHROMIUM:-/usr/bin/chromium}"
redis="${TEST_SETUP_REDIS:-$(command -v redis-server || echo /usr/bin/redis-server)}"
uid="${TEST_SETUP_UID:-$(id -u)}"

missing=()
[ -x "$redis" ] || missing+=(redis-server)
[ -x "$chromium" ] || missing+=(chromium)
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
