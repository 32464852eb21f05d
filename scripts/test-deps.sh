#!/usr/bin/env bash
# Installs what the tests need, idempotently: Debian's frotz (for /usr/games/dfrotz,
# the reference interpreter of the differential tests). Does nothing when present.
set -euo pipefail

if [[ -x /usr/games/dfrotz ]]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: /usr/games/dfrotz is missing and apt-get is not available; install frotz by hand" >&2
  exit 1
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi
echo "test-deps: installing Debian package frotz (for dfrotz)" >&2
# apt keeps downloaded packages in /var/cache/apt/archives, so a second install is offline.
if ! $sudo apt-get install -y --no-install-recommends frotz >/dev/null; then
  $sudo apt-get update >/dev/null
  $sudo apt-get install -y --no-install-recommends frotz >/dev/null
fi
test -x /usr/games/dfrotz
