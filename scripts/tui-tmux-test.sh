#!/usr/bin/env bash
# Drives Lantern's TUI in tmux as a person would: keystrokes in, screens out.
#
#   1. With the scripted fake Ollama (llm/llmtest, served by the tui package's
#      TestServeFakeOllama): start, see every pane, step one turn (Turn: 1),
#      type `inventory` and see it in the transcript (Turn: 2), complete
#      `ea` to `east` with Tab (the game's exits and actions), edit the
#      agent's memory at the lane (through the browser), add a memory and
#      supersede it, add an objective, hand back to the agent (resume) and
#      pause, quit; Memories.md then holds the edit and the supersession.
#      Started again, Lantern offers to continue the unfinished episode, and
#      does: the earlier transcript, the map's counts and the objective are
#      back. Then the keys: `i`, Esc, Esc while the agent thinks does not
#      cancel; `n` ×3 while paused plays 3 turns; a pasted block plays line
#      by line; a command sent while the transcript is scrolled up shows its
#      result; at 80 and 120 columns the footer ends with the help key and
#      changes with the focused pane. Review mode (v): a proposal waits in the
#      footer with its keys, enter plays it, e edits it (human-edited), x
#      rejects it with a reason and the agent proposes again. While it runs, a second Lantern on the
#      same work dir refuses at once, naming the first one's PID, and offers the read-only replay
#      of the stored episodes (no: exits non-zero; yes: the episode list, q leaves).
#   2. With the server unreachable (OLLAMA_HOST=127.0.0.1:9): the screen names
#      Ollama and the host, and a typed `inventory` still plays (Turn: 1).
#   3. The map pane: seven typed moves of the demo, then the pane draws the
#      rooms on the compass grid; f zooms it to full screen and back. At
#      80×24 esc hides the model-server notice; a memory edited in
#      Memories.md while its form is open makes the form ask, every answer
#      shown (m merge); a memory deleted by hand right after the TUI saved
#      it stays deleted.
#   The README's screenshot is taken before 3 (SCREENSHOT=FILE,
#   UPDATE_README=1).
#   In 1, review mode also shows "waiting for you" in the status, the
#   person's rejection live in Reasoning ("rejected by you") and the retry
#   as "proposal 2"; a paste of 8 lines asks before it plays. Then the
#   timeline: T opens it, an earlier turn is rewound to (after the question),
#   named alt (r), the status bar names it (Ep 1/alt), the footer shows the
#   outcome with T in it, a typed command plays on it, and the branch list
#   switches back to the first branch, whose later turns show again; the
#   replay list, lantern episodes, episodes show and run --json name it 1/alt,
#   and run --from 1/alt:TURN plays on from it.
#
# Needs tmux (scripts/test-deps.sh installs it) and Go. KEEP=1 keeps the temp
# dir (binaries, work dirs, logs). Exits 0 when both runs pass.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v tmux >/dev/null 2>&1 || scripts/test-deps.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lantern-tui-test.XXXXXX")
session="lantern-tui-test-$$"
fake_pid=""

# A tmux server of the script's own (private socket), kept alive by an idle
# session for the script's whole life: a session that starts just after
# another one ended never meets a server that is shutting down, and a
# person's own tmux is never touched.
tmux_socket="lantern-tui-test-$$"
tmux() { command tmux -L "$tmux_socket" "$@"; }
tmux new-session -d -s "$session-keepalive" -x 80 -y 24 "sleep 100000"

cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	tmux kill-session -t "$session-second" 2>/dev/null || true
	tmux kill-server 2>/dev/null || true
	rm -f "$tmp/host" "$tmp/host-shot" # a fake server stops when its file goes
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

# wait_gone TEXT: until the screen no longer shows TEXT.
wait_gone() {
	local deadline=$((SECONDS + ${WAIT:-30}))
	while ((SECONDS < deadline)); do
		[[ $(screen) != *"$1"* ]] && return 0
		sleep 0.2
	done
	fail "still saw: $1"
}

# leave_input: Esc out of the command line, then wait until the footer
# offers "i type" again. A key sent before Lantern has read the Esc would
# arrive in the same read and be taken as alt+key (a busy machine is slow
# to read), so nothing is sent until the Esc has been seen to act.
leave_input() {
	keys Escape
	wait_for "i type"
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

# turn_now: the turn the status bar shows.
turn_now() { screen | grep -o 'Turn: [0-9]*' | head -n 1 | grep -o '[0-9]*'; }

# settle: until the turn stays the same for 2 s (a turn in flight when the
# agent was paused ends first).
settle() {
	local a b deadline=$((SECONDS + 30))
	a=$(turn_now)
	while ((SECONDS < deadline)); do
		sleep 2
		b=$(turn_now)
		[[ $a == "$b" ]] && return 0
		a=$b
	done
	fail "the turn never settled"
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
log "typed inventory: Turn: 2"
# Tab completes from what the game lets the player do in the orchard (its
# exits first).
text "ea"
keys Tab
wait_for "› east"
keys C-u
leave_input
log "tab completed ea to east"

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
wait_for "L4 Orchard · 1 visit"
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

# An objective of the person's.
keys o a
text "Find the lamp"
keys Enter
wait_for "• Find the lamp"
log "added an objective"

# Hand back to the agent, then pause again.
keys Space
wait_for running "T3 agent ›"
keys Space
wait_for paused
settle # the turn in flight when the pause came ends first
t_quit=$(turn_now)
((t_quit >= 3)) || fail "the agent played no turn after the resume"
log "resumed and paused at turn $t_quit"
map_counts=$(screen | grep -o '[0-9]* rooms\? · [0-9]* links\?' | head -n 1)
[[ -n $map_counts ]] || fail "no map counts on the screen"
log "map before quitting: $map_counts"
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
wait_for "Continue it? [Y/n]"
keys Enter
wait_for "Resumed 1/main after turn $t_quit" "paused" "Turn: $t_quit"
wait_for "T1 agent › north" "T2 human › inventory" "T3 agent ›" "$map_counts" "Find the lamp"
log "offered and resumed the unfinished episode: transcript, map ($map_counts) and objective are back"


# i, Esc, Esc while the agent thinks: Esc leaves the input, never cancels.
keys Space
wait_for "thinking…"
keys i
keys Escape # (apart: two Esc bytes at once read as alt+esc)
keys Escape
sleep 0.5
[[ $(screen) != *"cancelled the model call"* ]] || fail "i, Esc, Esc cancelled the model call"
wait_for running
keys Space
wait_for paused
settle
log "i, Esc, Esc did not cancel"

# n three times while paused: three turns.
t0=$(turn_now)
tmux send-keys -t "$session" n n n
wait_for "Turn: $((t0 + 3))"
settle
wait_for paused "Turn: $((t0 + 3))"
log "n ×3 played three turns ($t0 → $((t0 + 3)))"

# A pasted block of commands plays line by line.
t0=$(turn_now)
keys 1 i
tmux set-buffer -b lantern-paste $'look\nlook\nlook\nlook\nlook\nlook\nlook\nlook\n'
tmux paste-buffer -p -b lantern-paste -t "$session"
wait_for "Play the 8 pasted lines as 8 turns?"
sleep 1
[[ $(turn_now) == "$t0" ]] || fail "a paste of 8 lines played before the person said yes"
keys y
wait_for "pasted 8 lines" "Turn: $((t0 + 8))"
leave_input
log "a paste of 8 lines asked first, then played 8 turns"

# Scrolled up, a command sent shows its result.
keys PageUp PageUp
wait_for "End to follow"
keys i
text score
keys Enter
wait_for "T$((t0 + 9)) human › score"
[[ $(screen) != *"End to follow"* ]] || fail "the transcript stayed scrolled after sending"
leave_input
log "sending while scrolled followed the transcript"

# The footer at 80 and 120 columns: the focused pane's keys, ending with
# the help key.
footer_check() {
	local last
	last=$(screen | tail -n 1 | sed 's/[[:space:]]*$//')
	[[ $last == *"? help" ]] || fail "at $1 columns the footer does not end with the help key: '$last'"
	[[ $last == *"$2"* ]] || fail "at $1 columns the footer lacks '$2': '$last'"
}
wait_for "i type" # the last word has gone from the footer
for cols in 80 120; do
	tmux resize-window -t "$session" -x "$cols" -y 30
	sleep 0.5
	keys 1
	footer_check "$cols" "i type"
	keys 3
	footer_check "$cols" "e edit"
	keys 4
	footer_check "$cols" "c complete"
done
tmux resize-window -t "$session" -x 160 -y 50
log "the footer ends with the help key at 80 and 120 columns and follows the pane"

# Review mode: each proposal waits for the person; the footer says the keys.
keys 1
keys v
wait_for "review mode on"
settle
t0=$(turn_now)
keys n
wait_for "reject+remember" "e edit" "x reject" "waiting for you"
sleep 1
[[ $(turn_now) == "$t0" ]] || fail "review: the proposal was played before the person decided"
keys Enter
wait_for "Turn: $((t0 + 1))"
log "review: the proposal waited in the footer, the status said it waits for the person; enter played it"
keys n
wait_for "reject+remember"
keys e
wait_for "edit ›"
keys C-u
text inventory
keys Enter
wait_for "T$((t0 + 2)) human-edited › inventory"
log "review: e played the person's edit, shown as human-edited"
keys n
wait_for "reject+remember"
keys x
wait_for "why not?"
text "try the orchard first"
keys Enter
wait_for "reject+remember" # the agent proposes again for the same turn
[[ $(turn_now) == "$((t0 + 2))" ]] || fail "review: a rejection played a turn"
# The Reasoning pane shows the person's rejection live, and the retry goes
# on numbering the turn's proposals (2 or more, never 1 again).
wait_for 'rejected by you: "'
deadline=$((SECONDS + 30))
until screen | awk '/rejected by you: "/ { seen = 1 } seen && match($0, /proposal [0-9]+:/) { n = substr($0, RSTART + 9, RLENGTH - 10); if (n + 0 >= 2) ok = 1 } END { exit !ok }'; do
	((SECONDS < deadline)) || fail "review: the retry after the rejection is not numbered on (proposal 2 or more)"
	sleep 0.2
done
keys Enter
wait_for "Turn: $((t0 + 3))"
keys v
wait_for "review mode off"
settle
log "review: x rejected with a reason (shown live as rejected by you), the agent proposed again (numbered on); v switched review off"

# The timeline (T): rewind three turns back, play a command on the new
# branch, then switch back to the first branch from the branch list.
# wait_re REGEX WHAT: until a line of the screen matches REGEX.
wait_re() {
	local deadline=$((SECONDS + ${WAIT:-30}))
	until screen | grep -Eq -- "$1"; do
		((SECONDS < deadline)) || fail "never saw $2 (/$1/)"
		sleep 0.2
	done
}
rewind_steps() {
	local t_end t_back
	t_end=$(turn_now)
	t_back=$((t_end - 3))
	((t_back >= 1)) || fail "timeline: too few turns to rewind ($t_end)"
	keys T
	wait_for "Timeline ·" "play stands at turn $t_end" "▸ T$t_end "
	keys Up Up Up
	wait_for "▸ T$t_back "
	keys Enter
	wait_for "Rewind to turn $t_back of 1/main" "Memories are not rewound"
	keys r
	text alt
	keys Enter
	wait_for "The new branch will be named alt"
	keys y
	wait_for "Rewound to 1/main:$t_back" "Turn: $t_back"
	wait_re "Ep 1/alt │" "the new branch named in the status bar"
	! screen | grep -Eq "T$((t_back + 1)) (agent|human|human-edited) ›" || fail "timeline: a turn after $t_back is still in the transcript"
	! screen | grep -q "rewinding to" || fail "timeline: the footer still shows the rewind's progress"
	screen | tail -n 1 | grep -q "T timeline" || fail "timeline: T is not in the footer after the rewind"
	log "timeline: rewound from turn $t_end to $t_back on 1/alt; the status bar names it, the footer shows the outcome"
	keys i
	text inventory
	keys Enter
	wait_for "T$((t_back + 1)) human › inventory" "Turn: $((t_back + 1))"
	leave_input
	keys T
	wait_for "Timeline ·" "▸ T$((t_back + 1)) "
	keys b
	wait_for "The lines of play of this episode" "● 1/alt" "1/main" "1/main:$t_back"
	keys g Enter # the first branch is listed first
	wait_for "Switched to 1/main at turn $t_end" "Turn: $t_end"
	wait_re "T$t_end (agent|human|human-edited) ›" "turn $t_end of main in the transcript again"
	wait_re "Ep 1/main │" "the first branch named in the status bar"
	alt_last=$((t_back + 1))
	log "timeline: played turn $((t_back + 1)) on the new branch, switched back to main at turn $t_end"
}
rewind_steps

# A second Lantern on the same work dir refuses, naming the owner's PID,
# and offers the read-only replay: no leaves at once (non-zero); yes shows
# the stored episodes and q leaves it (zero).
second_pane() { tmux capture-pane -p -t "$session-second" 2>/dev/null; }
second_start() {
	rm -f "$tmp/exit-second"
	tmux new-session -d -s "$session-second" -x 160 -y 20 \
		"env OLLAMA_HOST='$host' '$tmp/lantern' tui --workdir '$tmp/wd-fake' --model lantern-fake --theme dark; echo \$? > '$tmp/exit-second'; sleep 3600"
	deadline=$((SECONDS + 20))
	until [[ $(second_pane) == *"Replay its past episodes read-only meanwhile?"* ]]; do
		((SECONDS < deadline)) || { second_pane >&2; fail "the second Lantern did not offer the replay"; }
		sleep 0.2
	done
	[[ $(second_pane) == *"in use by another Lantern (PID "* ]] || { second_pane >&2; fail "the second Lantern did not name the owner's PID"; }
}
second_exit() {
	deadline=$((SECONDS + 20))
	until [[ -s $tmp/exit-second ]]; do
		((SECONDS < deadline)) || { second_pane >&2; fail "the second Lantern did not exit"; }
		sleep 0.2
	done
	tmux kill-session -t "$session-second"
}
second_start
tmux send-keys -t "$session-second" n Enter
second_exit
[[ $(<"$tmp/exit-second") != 0 ]] || fail "the second Lantern, told no, exited 0"
second_start
tmux send-keys -t "$session-second" Enter
deadline=$((SECONDS + 20))
until [[ $(second_pane) == *"read-only replay"* && $(second_pane) == *"1/alt "* && $(second_pane) == *"1/main "* ]]; do
	((SECONDS < deadline)) || { second_pane >&2; fail "the read-only replay did not open"; }
	sleep 0.2
done
tmux send-keys -t "$session-second" q
second_exit
[[ $(<"$tmp/exit-second") == 0 ]] || fail "the read-only replay did not exit 0 on q"
log "a second Lantern on the same work dir refused, naming the owner, and replayed its episodes read-only (1/main and 1/alt listed)"
quit fake

# The line the TUI named 1/alt is 1/alt everywhere: lantern episodes, show,
# and run --from 1/alt:TURN plays on from it, each --json turn naming it.
"$tmp/lantern" episodes --workdir "$tmp/wd-fake" >"$tmp/episodes.txt" 2>&1 || fail "lantern episodes failed: $(<"$tmp/episodes.txt")"
grep -Eq "^1/alt +#[0-9]+ .* 1/main:$((alt_last - 1))\$" "$tmp/episodes.txt" || fail "lantern episodes does not list 1/alt forked at 1/main:$((alt_last - 1)): $(<"$tmp/episodes.txt")"
"$tmp/lantern" episodes show 1/alt --workdir "$tmp/wd-fake" >"$tmp/alt.md" 2>&1 || fail "episodes show 1/alt failed: $(<"$tmp/alt.md")"
grep -q '^# Line 1/alt (\\#' "$tmp/alt.md" || fail "episodes show 1/alt: $(head -3 "$tmp/alt.md")"
for ((i = 0; i < alt_last + 5; i++)); do echo look; done >"$tmp/looks.txt"
"$tmp/lantern" run --json --from "1/alt:$alt_last" --agent "script:$tmp/looks.txt" --max-turns $((alt_last + 2)) --workdir "$tmp/wd-fake" >"$tmp/from.jsonl" 2>"$tmp/from.err" ||
	fail "run --from 1/alt:$alt_last failed: $(<"$tmp/from.err")"
grep -q "\"line\":\"1/alt\",\"episode\":1,\"branch\":[0-9]*,\"turn\":$((alt_last + 1))," "$tmp/from.jsonl" ||
	fail "run --from 1/alt:$alt_last did not play turn $((alt_last + 1)) of 1/alt: $(<"$tmp/from.jsonl") $(<"$tmp/from.err")"
log "1/alt is named the same by the status bar, the replay list, lantern episodes, show and run --json; run --from 1/alt:$alt_last plays on it"

# 2. With the server unreachable.
start unreachable 127.0.0.1:9
wait_for "Ollama is not reachable at 127.0.0.1:9" Transcript "Turn: 0"
keys i
text inventory
keys Enter
wait_for "T1 human › inventory" "Turn: 1" "empty-handed"
leave_input
log "unreachable: the notice names the host; typed inventory played (Turn: 1)"
quit unreachable

# lantern bench on a terminal: a live status line (spinner, bar, episode,
# turn/max, score) redrawn in place with carriage returns, and cleared at the
# end; with its output not a terminal, plain lines only. pipe-pane records
# every byte the pane receives, so a fast scripted run is seen whole.
bench_session="$session-bench"
tmux kill-session -t "$bench_session" 2>/dev/null || true
: >"$tmp/bench-pane.raw"
tmux new-session -d -s "$bench_session" -x 160 -y 40 \
	"sleep 1; '$tmp/lantern' bench --agent 'script:$PWD/game_files/demo/walkthrough.txt' --episodes 2 --max-turns 50 --workdir '$tmp/wd-bench'; echo \$? > '$tmp/exit-bench'; sleep 3600"
tmux pipe-pane -o -t "$bench_session" "cat >> '$tmp/bench-pane.raw'"
deadline=$((SECONDS + 60))
until [[ -s $tmp/exit-bench ]]; do
	((SECONDS < deadline)) || fail "lantern bench did not finish"
	sleep 0.2
done
bench_screen=$(tmux capture-pane -p -t "$bench_session")
tmux kill-session -t "$bench_session"
[[ $(<"$tmp/exit-bench") == 0 ]] || {
	printf '%s\n' "$bench_screen" >&2
	fail "lantern bench exited with $(<"$tmp/exit-bench")"
}
raw=$(tr -d '\000' <"$tmp/bench-pane.raw")
for want in "episode 1 (1/2)" "episode 2 (2/2)" "turn 48/50" "score 100/" "left ≤" $'\r' "█"; do
	[[ $raw == *"$want"* ]] || {
		printf '%s\n' "$bench_screen" >&2
		fail "lantern bench on a terminal never showed ${want@Q} in its status line"
	}
done
[[ $raw == *"episode 2: victory"* && $bench_screen == *"Score over turns"* && $bench_screen != *"turn 48/50"* ]] || {
	printf '%s\n' "$bench_screen" >&2
	fail "lantern bench: the episode lines and the report should stay, the status line should be cleared"
}
"$tmp/lantern" bench --agent "script:$PWD/game_files/demo/walkthrough.txt" --episodes 1 --max-turns 50 --workdir "$tmp/wd-bench" \
	>/dev/null 2>"$tmp/bench-plain.log" || fail "lantern bench (not a terminal) failed"
if grep -q $'\r' "$tmp/bench-plain.log" || ! grep -q "episode 1: victory" "$tmp/bench-plain.log"; then
	cat "$tmp/bench-plain.log" >&2
	fail "lantern bench off a terminal should write plain lines"
fi
log "bench: the live status line showed episode, turn/max, score and time left on a terminal, plain lines off it"
# The README's screenshot: the demo after four steps of the fake model,
# at 118×34. SCREENSHOT=FILE keeps the capture there; UPDATE_README=1 puts
# it in the README's "The screen" section.
# A fake server of its own, so the agent plays the demo's opening afresh
# (the server stops when its file goes).
LANTERN_TUI_FAKE_OLLAMA="$tmp/host-shot" "$tmp/tui.test" -test.run '^TestServeFakeOllama$' >"$tmp/fake-shot.log" 2>&1 &
shot_pid=$!
for _ in $(seq 200); do
	[[ -s $tmp/host-shot ]] && break
	sleep 0.05
done
[[ -s $tmp/host-shot ]] || fail "the screenshot's fake Ollama did not start"
start shot "$(<"$tmp/host-shot")"
tmux resize-window -t "$session" -x 118 -y 34
wait_for "Turn: 0" paused lantern-fake
for n in 1 2 3 4; do
	keys n
	wait_for "Turn: $n"
done
wait_for paused "played: take apple"
sleep 1
screen | sed 's/[[:space:]]*$//' >"$tmp/screen.txt"
[[ -n ${SCREENSHOT:-} ]] && cp "$tmp/screen.txt" "$SCREENSHOT"
if [[ ${UPDATE_README:-} == 1 ]]; then
	awk -v shot="$tmp/screen.txt" '
		/^## The screen/ { in_sec = 1 }
		in_sec && /^```text$/ && !done { print; while ((getline l < shot) > 0) print l; skip = 1; next }
		skip && /^```$/ { skip = 0; done = 1 }
		!skip { print }
	' README.md >"$tmp/README.md" && cp "$tmp/README.md" README.md
	log "README: the screenshot was refreshed"
fi
log "screenshot: the demo after four steps, 118×34"
quit shot
rm -f "$tmp/host-shot"
wait "$shot_pid" 2>/dev/null || true

# 3. The map pane draws the demo's rooms (no model needed: the person plays).
# Seven moves of the walkthrough, typed; the map pane then shows the rooms
# as boxes on the compass grid, the current one in a double box; f zooms it
# to the whole screen and back.
# The session before was the tmux server's last: a new one may reach the
# server while it shuts down, so the start is tried again.
for try in 1 2 3; do
	start map 127.0.0.1:9 && break
	((try < 3)) || fail "map: tmux did not start"
	sleep 1
done
wait_for Transcript "Turn: 0" "L3 Muddy Lane"
keys i
n=0
for cmd in north up down east "open window" "enter window" west; do
	n=$((n + 1))
	text "$cmd"
	keys Enter
	wait_for "Turn: $n"
done
leave_input
keys M
wait_for "║L8" "│Orchard" "▣ L8 Parlour" "6 rooms · 6 links" "rooms not shown"
log "map: the pane draws the rooms, the current one in a double box"
keys f
wait_for "f back" "│Up the Apple Tree" "│Muddy Lane" "│Orchard" "│Kitchen" "║Parlour"
[[ $(screen) != *"Transcript"* ]] || fail "map: the zoomed map shares the screen"
keys f
wait_for Transcript "f full screen"
log "map: f zoomed the map to the whole screen and back"

# At 80×24: esc hides the model-server notice; a memory edited in
# Memories.md while its form is open makes the form ask, with every answer
# on screen.
tmux resize-window -t "$session" -x 80 -y 24
sleep 0.5
keys Escape
wait_for "notice hidden"
[[ $(screen) != *"Ollama is not reachable"* ]] || fail "esc did not hide the notice"
keys 3 a
wait_for "New memory at L"
text "Rope by the well"
keys Tab
text "A rope hangs here."
keys C-s
wait_for "[NOTE] Rope by the well"
mem=$(ls "$tmp"/wd-map/*/Memories.md)
keys e
wait_for "Edit memory at L"
# hand_edit AWK: Memories.md rewritten by hand (as an editor saves it).
hand_edit() { awk "$1" "$mem" >"$mem.new" && mv "$mem.new" "$mem"; }
hand_edit '{ print } /^\*\*\[NOTE\] Rope by the well\*\*/ { getline; print "A rope hangs here, frayed." }'
keys C-s
wait_for "r reload theirs" "o overwrite with yours" "m merge" "esc cancel"
keys Escape
wait_gone "Edit memory at L"
log "80×24: esc hid the notice; the outside-edit question showed all its answers (m merge)"

# A memory deleted by hand within 2 s of the TUI's save stays deleted: the
# pane drops it and the next save does not write it back.
keys a
wait_for "New memory at L"
text "Bucket is empty"
keys C-s
wait_for "[NOTE] Bucket is empty"
hand_edit '/^\*\*\[NOTE\] Bucket is empty\*\*/ { getline; next } { print }'
sleep 3 # the TUI reads Memories.md every 2 s
[[ $(screen) != *"Bucket is empty"* ]] || fail "the memory deleted by hand is still in the pane"
keys a
wait_for "New memory at L"
text "The well is deep"
keys C-s
wait_for "[NOTE] The well is deep"
sleep 1
if grep -qF "Bucket is empty" "$mem"; then
	cat "$mem" >&2
	fail "the next save wrote back the memory deleted by hand"
fi
[[ $(screen) != *"Bucket is empty"* ]] || fail "the memory deleted by hand came back in the pane"
log "a memory deleted by hand right after the TUI's save stayed deleted"

# At 80×24 a rewind's footer ends with its outcome, not its progress, and
# the timeline key stays in it.
keys Escape
keys T
wait_for "Timeline ·"
keys Up Enter
wait_for "Rewind to turn"
keys y
wait_for "rewound to 1/main:" "Ep 1/#"
footer=$(screen | tail -n 1)
[[ $footer == *"rewound to 1/main:"* && $footer != *"rewinding"* ]] || fail "80×24: the footer after a rewind is not its outcome: $footer"
[[ $footer == *"T timeline"* ]] || fail "80×24: the footer after a rewind lacks T: $footer"
log "80×24: after a rewind the footer shows the outcome with T timeline: $footer"
quit map


log "ok"
