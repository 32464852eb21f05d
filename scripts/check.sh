#!/usr/bin/env bash
# The quick loop (`make check`, a few minutes): go vet, the gofmt check, and
# the tests of the packages a change touches, with -short (the whole-game
# and process tests skip) and without -race. A change is what differs from
# CHECK_BASE (default HEAD: the uncommitted and untracked files); with
# nothing uncommitted, the last commit. CHECK_PKGS=./engine/... names the
# packages instead. `make test` runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
base=${CHECK_BASE:-HEAD}

changed() {
  { git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u
}
files=$(changed)
if [[ -z $files && $base == HEAD ]]; then
  files=$(git diff --name-only HEAD~1 HEAD 2>/dev/null || true)
fi

pkgs=${CHECK_PKGS:-}
if [[ -z $pkgs ]]; then
  declare -A seen=()
  for f in $files; do
    d=$(dirname "$f")
    # a file under testdata belongs to the package above it
    while [[ $d == *testdata* ]]; do d=$(dirname "$d"); done
    [[ -d $d ]] || continue
    compgen -G "$d/*.go" >/dev/null || continue
    [[ $d == tools* ]] && continue
    seen["./$d"]=1
  done
  pkgs="${!seen[*]}"
fi

echo "check: go vet" >&2
"$GO" vet ./...
echo "check: gofmt" >&2
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [[ -n $unformatted ]]; then
  echo "gofmt needed on:" >&2
  echo "$unformatted" >&2
  exit 1
fi
if [[ -z $pkgs ]]; then
  echo "check: no Go package changed" >&2
  exit 0
fi
echo "check: go test -short $pkgs" >&2
# shellcheck disable=SC2086 # one word a package
"$GO" test -short -timeout 5m $pkgs
