#!/usr/bin/env bash
# Installs what the tests need, idempotently: Debian's frotz (for /usr/games/dfrotz,
# the reference interpreter of the differential tests), tmux (for
# scripts/tui-tmux-test.sh, which drives the TUI in a real terminal) and chromium
# (a headless browser renders `lantern episodes export --format html`), and
# through scripts/slurm-deps.sh Slurm and munge. Does nothing when all are present.
set -euo pipefail

# Slurm and munge, for scripts/slurm-test.sh: where they cannot be installed
# (exit 2) the Slurm test skips, unless LANTERN_REQUIRE_SHARED=1.
rc=0
"$(dirname "$0")/slurm-deps.sh" || rc=$?
if [[ $rc -ne 0 && ( $rc -ne 2 || ${LANTERN_REQUIRE_SHARED:-} == 1 ) ]]; then
  echo "test-deps: scripts/slurm-deps.sh failed (exit $rc)" >&2
  exit 1
fi

missing=()
[[ -x /usr/games/dfrotz ]] || missing+=(frotz)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: ${missing[*]} missing and apt-get is not available; install them by hand" >&2
  exit 1
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi
echo "test-deps: installing Debian packages ${missing[*]}" >&2
# apt keeps downloaded packages in /var/cache/apt/archives, so a second install is offline.
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; then
  $sudo apt-get update >/dev/null
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
fi
test -x /usr/games/dfrotz
command -v tmux >/dev/null
command -v chromium >/dev/null
