#!/usr/bin/env bash
# Every test, as `make test` runs it: installs what the tests need
# (scripts/test-deps.sh), then runs each step, timing it, and goes on after a
# failing step so one run shows every failure:
#
#   go-test   go test -race of every package (through gotestsum, pinned in
#             tools/go.mod), with the real Ollama test server
#             (scripts/with-ollama.sh); prints the ten slowest tests
#   fuzz      every fuzz target briefly (scripts/fuzz-brief.sh)
#   tmux      the TUI in a real terminal (scripts/tui-tmux-test.sh)
#   slurm     a real Slurm job array (scripts/slurm-test.sh)
#
# Ends with each step's time and a closing line "tests: N passed, N failed,
# N skipped" (the go tests); exits 1 if any step failed.
#
# Environment: GO (default go); LANTERN_TEST_JSON, where go test's JSON
# events are kept (default: a temporary file, removed); LANTERN_STEP_TIMES,
# a file each step's "name seconds status" line is appended to (.ci/run
# reads it).
set -uo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
json=${LANTERN_TEST_JSON:-}
if [[ -z $json ]]; then
  json=$(mktemp "${TMPDIR:-/tmp}/lantern-test-XXXXXX.json")
  trap 'rm -f "$json"' EXIT
fi
gotestsum=("$GO" tool -modfile=tools/go.mod gotestsum)

steps=()
failed=0

# step NAME CMD...: runs CMD, noting its time and status.
step() {
  local name=$1 start rc
  shift
  start=$(date +%s)
  echo "== $name" >&2
  "$@"
  rc=$?
  local secs=$(($(date +%s) - start)) status=ok
  if [[ $rc -ne 0 ]]; then
    status="FAILED (exit $rc)"
    failed=1
  fi
  steps+=("$(printf '%-8s %5ds  %s' "$name" "$secs" "$status")")
  if [[ -n ${LANTERN_STEP_TIMES:-} ]]; then
    echo "make-test:$name $secs $status" >>"$LANTERN_STEP_TIMES"
  fi
}

step deps ./scripts/test-deps.sh || true
if [[ $failed -ne 0 ]]; then
  echo "test: the test dependencies could not be installed" >&2
  exit 1
fi
step go-test ./scripts/with-ollama.sh "${gotestsum[@]}" --format pkgname --jsonfile "$json" -- -race -timeout 30m ./...
step fuzz env GO="$GO" ./scripts/fuzz-brief.sh
step tmux ./scripts/tui-tmux-test.sh
step slurm ./scripts/slurm-test.sh

echo
echo "The ten slowest tests:"
"${gotestsum[@]}" tool slowest --jsonfile "$json" --threshold 0s --num 10
echo
echo "Step times:"
printf '  %s\n' "${steps[@]}"
count() { grep -c "\"Action\":\"$1\",\"Package\":\"[^\"]*\",\"Test\"" "$json"; }
echo "tests: $(count pass) passed, $(count fail) failed, $(count skip) skipped"
exit $failed
