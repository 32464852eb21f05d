#!/usr/bin/env bash
# Drives Lantern's TUI in tmux as a person would (issue 9, acceptance 2).
#
#   1. With the scripted fake Ollama (llm/llmtest, served by the tui package's
#      TestServeFakeOllama): start, see every pane, step one turn (Turn: 1),
#      type `inventory` and see it in the transcript (Turn: 2), edit the
#      agent's memory at the lane (through the browser), add a memory and
#      supersede it, hand back to the agent (resume) and pause, quit;
#      Memories.md then holds the edit and the supersession. Started again,
#      Lantern offers to continue the unfinished episode, and does.
#      While it runs, a second Lantern on the same work dir refuses at once,
#      naming the first one's PID.
#   2. With the server unreachable (OLLAMA_HOST=127.0.0.1:9): the screen names
#      Ollama and the host, and a typed `inventory` still plays (Turn: 1).
#
# Needs tmux (scripts/test-deps.sh installs it) and Go. KEEP=1 keeps the temp
# dir (binaries, work dirs, logs). Exits 0 when both runs pass.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v tmux >/dev/null 2>&1 || scripts/test-deps.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lantern-tui-test.XXXXXX")
session="lantern-tui-test-$$"
fake_pid=""

cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	tmux kill-session -t "$session-second" 2>/dev/null || true
	rm -f "$tmp/host" # the fake server stops when its file goes
	if [[ -n $fake_pid ]]; then
		kill "$fake_pid" 2>/dev/null || true
		wait "$fake_pid" 2>/dev/null || true
	fi
	if [[ ${KEEP:-} == 1 ]]; then
		echo "tui-tmux-test: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

log() { printf 'tui-tmux-test: %s\n' "$*" >&2; }

screen() { tmux capture-pane -p -t "$session" 2>/dev/null; }

fail() {
	log "FAIL: $*"
	log "the screen:"
	screen >&2 || true
	for f in "$tmp"/wd-*/lantern.log; do
		[[ -f $f ]] && { log "$f:"; tail -n 20 "$f" >&2; }
	done
	exit 1
}

# wait_for TEXT...: until the screen shows every TEXT.
wait_for() {
	local deadline=$((SECONDS + ${WAIT:-30})) s t ok
	while ((SECONDS < deadline)); do
		s=$(screen) || s=""
		ok=1
		for t in "$@"; do
			if [[ $s != *"$t"* ]]; then
				ok=0
				break
			fi
		done
		((ok)) && return 0
		sleep 0.2
	done
	fail "never saw: $*"
}

keys() {
	tmux send-keys -t "$session" "$@"
	sleep 0.2
}

text() {
	tmux send-keys -t "$session" -l "$1"
	sleep 0.2
}

# start NAME HOST: Lantern in a fresh tmux session, its exit code written to
# $tmp/exit-NAME when it ends (the pane stays for inspection).
start() {
	tmux kill-session -t "$session" 2>/dev/null || true
	tmux new-session -d -s "$session" -x 160 -y 50 \
		"env OLLAMA_HOST='$2' '$tmp/lantern' tui --workdir '$tmp/wd-$1' --model lantern-fake --theme dark; echo \$? > '$tmp/exit-$1'; sleep 3600"
}

# quit NAME: q, then Lantern must exit 0.
quit() {
	keys q
	local deadline=$((SECONDS + 20))
	until [[ -s $tmp/exit-$1 ]]; do
		((SECONDS < deadline)) || fail "Lantern did not quit"
		sleep 0.2
	done
	local code
	code=$(<"$tmp/exit-$1")
	[[ $code == 0 ]] || fail "Lantern exited with $code"
}

log "building lantern and the fake Ollama"
go build -o "$tmp/lantern" .
go test -c -o "$tmp/tui.test" ./tui

LANTERN_TUI_FAKE_OLLAMA="$tmp/host" "$tmp/tui.test" -test.run '^TestServeFakeOllama$' -test.v >"$tmp/fake.log" 2>&1 &
fake_pid=$!
for _ in $(seq 200); do
	[[ -s $tmp/host ]] && break
	sleep 0.05
done
[[ -s $tmp/host ]] || {
	cat "$tmp/fake.log" >&2
	fail "the fake Ollama did not start"
}
host=$(<"$tmp/host")
log "fake Ollama at $host"

# 1. With the fake model server.
start fake "$host"
wait_for Transcript Reasoning Memory Objectives Map "Turn: 0" paused lantern-fake "L3 Muddy Lane"
log "panes shown, paused"
keys n
wait_for "Turn: 1" "T1 agent › north" "L4 Orchard" "played: north"
log "stepped one turn"
keys i
text inventory
keys Enter
wait_for "T2 human › inventory" "Turn: 2" "empty-handed"
keys Escape
log "typed inventory: Turn: 2"

# Edit the agent's memory at the lane, through the browser.
keys m b
wait_for "All locations" "L3    Muddy Lane"
keys g Enter
wait_for "[SUCCESS] Orchard lies north"
keys e
wait_for "Edit memory at L3"
keys C-u
text "The orchard is north of the lane"
keys C-s
wait_for "[SUCCESS] The orchard is north of the lane"
log "edited a memory"

# Add a memory here, then supersede it.
keys Escape
wait_for "L4 Orchard · 1 visits"
keys a
wait_for "New memory at L4"
text "Lunch in the grass"
keys Tab
text "A packed lunch lies in the grass."
keys C-s
wait_for "[NOTE] Lunch in the grass"
keys s
wait_for 'Supersede "Lunch in the grass"'
keys C-u
text "Lunch is edible"
keys C-s
wait_for "[NOTE] Lunch is edible" "by human"
log "added and superseded a memory"

# Hand back to the agent, then pause again.
keys Space
wait_for running "T3 agent ›"
keys Space
wait_for paused
log "resumed and paused"
quit fake

mem=$(ls "$tmp"/wd-fake/*/Memories.md)
for want in "The orchard is north of the lane" "[NOTE - SUPERSEDED] Lunch in the grass" 'by human: "Lunch is edible"' "[NOTE] Lunch is edible"; do
	grep -qF -- "$want" "$mem" || {
		cat "$mem" >&2
		fail "Memories.md lacks: $want"
	}
done
log "Memories.md holds both changes"

# The episode was left unfinished: a new start offers to continue it.
rm -f "$tmp/exit-fake"
start fake "$host"
wait_for "Continue that episode? [Y/n]"
keys Enter
wait_for "Resumed episode 1 after turn" "paused" "Turn: "
log "offered and resumed the unfinished episode"

# A second Lantern on the same work dir refuses, naming the owner's PID.
tmux new-session -d -s "$session-second" -x 160 -y 20 \
	"env OLLAMA_HOST='$host' '$tmp/lantern' tui --workdir '$tmp/wd-fake' --model lantern-fake --theme dark; echo \$? > '$tmp/exit-second'; sleep 3600"
deadline=$((SECONDS + 20))
until [[ -s $tmp/exit-second ]]; do
	((SECONDS < deadline)) || fail "the second Lantern did not refuse"
	sleep 0.2
done
second=$(tmux capture-pane -p -t "$session-second")
tmux kill-session -t "$session-second"
[[ $(<"$tmp/exit-second") != 0 && $second == *"in use by another Lantern (PID "* ]] || {
	printf '%s\n' "$second" >&2
	fail "the second Lantern did not refuse with the owner's PID"
}
log "a second Lantern on the same work dir refused, naming the owner"
quit fake

# 2. With the server unreachable.
start unreachable 127.0.0.1:9
wait_for "Ollama is not reachable at 127.0.0.1:9" Transcript "Turn: 0"
keys i
text inventory
keys Enter
wait_for "T1 human › inventory" "Turn: 1" "empty-handed"
keys Escape
log "unreachable: the notice names the host; typed inventory played (Turn: 1)"
quit unreachable

log "ok"
