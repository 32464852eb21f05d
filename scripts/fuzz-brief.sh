#!/usr/bin/env bash
# Runs every fuzz target in the repository for a short while (FUZZTIME each,
# 5s by default), after its seed corpus. Go fuzzes one target per `go test`,
# so the targets are found with grep: a new `func FuzzXxx(f *testing.F)` in
# any *_test.go is picked up. Exits 1 if any target fails, naming each one;
# a failing input is written under that package's testdata/fuzz/FuzzXxx/.
#   FUZZTIME=30s scripts/fuzz-brief.sh
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-5s}

targets=$(grep -rHo --include='*_test.go' --exclude-dir=testdata '^func Fuzz[A-Za-z0-9_]*' . |
  sed -e 's|^\./||' -e 's|:func |:|' | sort)
if [[ -z $targets ]]; then
  echo "fuzz-brief: no fuzz targets found" >&2
  exit 1
fi

failed=()
while IFS=: read -r file name; do
  pkg=./$(dirname "$file")
  echo "fuzz-brief: $pkg $name for $FUZZTIME"
  if ! "$GO" test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$pkg"; then
    failed+=("$pkg $name")
  fi
done <<<"$targets"

if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'fuzz-brief: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "fuzz-brief: $(wc -l <<<"$targets") targets passed"
