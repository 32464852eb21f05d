#!/usr/bin/env bash
# Runs a command (the test suite) with the real Ollama test server running:
# starts scripts/ollama-test-server.sh (building Ollama once, cached), exports
# OLLAMA_HOST and LANTERN_OLLAMA_E2E=1 so the end-to-end tests run, and stops
# the server afterwards. LANTERN_OLLAMA_E2E=0 skips the server. When the
# server cannot start, the end-to-end tests are skipped, unless
# LANTERN_REQUIRE_SHARED=1 (CI), where that is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${LANTERN_OLLAMA_E2E:-} == 0 ]]; then
  exec "$@"
fi
line=""
if out=$(scripts/ollama-test-server.sh start); then
  line=$(tail -n1 <<<"$out")
fi
if [[ $line == OLLAMA_HOST=* ]]; then
  export OLLAMA_HOST=${line#OLLAMA_HOST=}
  export LANTERN_OLLAMA_E2E=1
  # The server's log, for the tests that count model loads and truncated
  # prompts in it.
  state_dir=${LANTERN_OLLAMA_STATE:-${TMPDIR:-/tmp}/lantern-ollama-test}
  run_dir=$(sed -n 's/^DIR=//p' "$state_dir/state" 2>/dev/null || true)
  [[ -n $run_dir ]] && export LANTERN_OLLAMA_LOG=$run_dir/server.log
  trap 'scripts/ollama-test-server.sh stop >/dev/null 2>&1 || true' EXIT
  echo "with-ollama: test server at $OLLAMA_HOST" >&2
elif [[ ${LANTERN_REQUIRE_SHARED:-} == 1 ]]; then
  echo "with-ollama: the Ollama test server did not start (see scripts/ollama-test-server.sh)" >&2
  exit 1
else
  echo "with-ollama: the Ollama test server did not start; end-to-end tests are skipped" >&2
fi
"$@"
