#!/usr/bin/env bash
# A real Ollama server with tiny models, for Lantern's end-to-end tests.
#
#   scripts/ollama-test-server.sh start   # prints OLLAMA_HOST=127.0.0.1:PORT last
#   scripts/ollama-test-server.sh stop
#   scripts/ollama-test-server.sh status
#
# start builds Ollama v0.17.4 from the Go module proxy once (about 6 minutes
# on 2 idle cores, more when they are busy) and keeps the binary in a cache
# outside the repo (later starts take about a second); makes
# a tiny random-weight GGUF model with our own generator
# (internal/tinymodel); serves on a free loopback port with a temporary
# OLLAMA_MODELS; registers lantern-tiny (chat template with tools) and
# lantern-tiny-think (template with thinking); and prints the host. When the
# server is already running it only prints the host again. stop ends that
# server by its PID and removes its temporary files.
#
# Environment:
#   LANTERN_OLLAMA_CACHE  where the built binary is kept
#                         (default ${XDG_CACHE_HOME:-$HOME/.cache}/lantern/ollama-v0.17.4)
#   LANTERN_OLLAMA_STATE  where the running server's state is kept
#                         (default ${TMPDIR:-/tmp}/lantern-ollama-test)
#
# Everything but the final OLLAMA_HOST line goes to stderr, so
#   eval "$(scripts/ollama-test-server.sh start | tail -n1)"; export OLLAMA_HOST
# works.
# shellcheck disable=SC2317 # the exit on the last line makes shellcheck think every function is unreachable
set -euo pipefail

readonly OLLAMA_VERSION=0.17.4
readonly OLLAMA_MODULE=github.com/ollama/ollama
readonly MODEL_SEED=0

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
home_dir=${HOME:-$(cd ~ && pwd)}
cache_dir=${LANTERN_OLLAMA_CACHE:-${XDG_CACHE_HOME:-$home_dir/.cache}/lantern/ollama-v$OLLAMA_VERSION}
state_dir=${LANTERN_OLLAMA_STATE:-${TMPDIR:-/tmp}/lantern-ollama-test}
state_file=$state_dir/state
bin=$cache_dir/bin/ollama

log() { printf 'ollama-test-server: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 1
}

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root to run: $*"
	fi
}

# ensure_packages installs the Debian packages the build needs: the headers
# of llama.cpp's vendor/ folder that the module zip leaves out, and a C++
# compiler for cgo. Headers already present (installed some other way) are
# enough.
ensure_packages() {
	local missing=()
	[ -f /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
	[ -f /usr/include/stb/stb_image.h ] || missing+=(libstb-dev)
	command -v gcc >/dev/null 2>&1 || missing+=(gcc)
	command -v g++ >/dev/null 2>&1 || missing+=(g++)
	[ ${#missing[@]} -eq 0 ] && return 0
	command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and no apt-get to install them"
	log "installing ${missing[*]}"
	if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2; then
		as_root apt-get update -q >&2
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
	fi
}

# build_ollama builds the server once into the cache. The stand-in
# miniaudio.h in scripts/ollama-stub takes the place of the vendored one
# (only audio decoding, which Lantern never uses, needs it).
build_ollama() {
	if [ -x "$bin" ] && [ -f "$cache_dir/bin/.complete" ]; then
		return 0
	fi
	ensure_packages
	command -v go >/dev/null 2>&1 || die "go is not on PATH"
	mkdir -p "$cache_dir"
	local tmp_bin
	tmp_bin=$(mktemp -d "$cache_dir/.build.XXXXXX")
	log "building $OLLAMA_MODULE@v$OLLAMA_VERSION (once; 4 to 14 minutes on 2 cores, depending on load)"
	local start=$SECONDS
	# Run outside the repo so its go.mod and any go.work play no part.
	if ! (cd "$tmp_bin" &&
		GOBIN="$tmp_bin" GOWORK=off CGO_ENABLED=1 \
			CGO_CPPFLAGS="-I$script_dir/ollama-stub${CGO_CPPFLAGS:+ $CGO_CPPFLAGS}" \
			go install -ldflags "-s -w -X $OLLAMA_MODULE/version.Version=$OLLAMA_VERSION" \
			"$OLLAMA_MODULE@v$OLLAMA_VERSION") >&2; then
		rm -rf "$tmp_bin"
		die "building ollama failed"
	fi
	rm -rf "${cache_dir:?}/bin"
	mkdir -p "$cache_dir/bin"
	mv "$tmp_bin/ollama" "$bin"
	rm -rf "$tmp_bin"
	: >"$cache_dir/bin/.complete"
	log "built $bin in $((SECONDS - start)) s"
}

# The state file holds the running server's PID, host, run dir, binary and
# whether it is ready (models registered).
write_state() {
	printf 'PID=%s\nHOST=%s\nDIR=%s\nBIN=%s\nREADY=%s\n' "$pid" "$host" "$run_dir" "$bin" "$1" >"$state_file.tmp"
	mv "$state_file.tmp" "$state_file"
}

read_state() {
	pid='' host='' run_dir='' state_bin='' ready=''
	[ -f "$state_file" ] || return 1
	local key value
	while IFS='=' read -r key value; do
		case $key in
		PID) pid=$value ;;
		HOST) host=$value ;;
		DIR) run_dir=$value ;;
		BIN) state_bin=$value ;;
		READY) ready=$value ;;
		esac
	done <"$state_file"
	[ -n "$pid" ]
}

api_up() {
	[ -n "$1" ] || return 1
	local url=http://$1/api/version
	if command -v curl >/dev/null 2>&1; then
		curl -fsS -m 2 "$url" >/dev/null 2>&1
	else
		# Plain bash, in case curl is missing.
		local h=${1%:*} p=${1##*:} line
		exec 8<>"/dev/tcp/$h/$p" 2>/dev/null || return 1
		printf 'GET /api/version HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" >&8
		IFS= read -r -t 2 line <&8 || line=
		exec 8<&- 8>&-
		[[ $line == HTTP/*" 200"* ]]
	fi
}

# is_ours tells whether process $1 is alive and runs the ollama binary $2
# (serve or one of its runners), so a recycled PID is never taken for ours.
is_ours() {
	kill -0 "$1" 2>/dev/null || return 1
	local exe
	exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 0 # no /proc: trust kill -0
	[ "$exe" = "$2" ] || [ "$exe" = "$2 (deleted)" ]
}

running() {
	read_state && [ "$ready" = 1 ] && is_ours "$pid" "${state_bin:-$bin}" && api_up "$host"
}

# stop_server ends the server of the state file, and any of its runners left
# behind (setsid made the server the leader of its own process group, which
# its runners share), then removes its run dir and the state file.
stop_server() {
	if read_state; then
		local b=${state_bin:-$bin} _ p
		if is_ours "$pid" "$b"; then
			kill -TERM "$pid" 2>/dev/null || true
			for _ in $(seq 1 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			if is_ours "$pid" "$b"; then
				log "server $pid did not stop in 5 s; killing it"
				kill -KILL "$pid" 2>/dev/null || true
			fi
		fi
		if command -v pgrep >/dev/null 2>&1; then
			for p in $(pgrep -g "$pid" 2>/dev/null || true); do
				if is_ours "$p" "$b"; then
					kill -KILL "$p" 2>/dev/null || true
				fi
			done
		fi
		case $run_dir in
		"$state_dir"/run.*) rm -rf "$run_dir" ;;
		esac
	fi
	rm -f "$state_file"
}

# fail_start reports why start failed, shows the end of a log, and ends the
# half-started server, so the next start begins afresh.
fail_start() {
	local msg=$1 log_tail=${2:-}
	if [ -n "$log_tail" ] && [ -f "$log_tail" ]; then
		tail -n 30 "$log_tail" >&2 || true
	fi
	stop_server
	die "$msg"
}

# write_modelfiles writes the two Modelfiles. The templates use plain-text
# role markers (the tiny vocabulary has no special tokens for them). A tool
# call is rendered as a bare JSON object {"name": ..., "arguments": ...}, so
# Ollama parses any JSON object the model starts its reply with as a tool
# call; thinking is wrapped in <think>...</think>, and the prompt ends with
# <think> when thinking is on, so Ollama reads the reply as thinking.
# One thread: the model is tiny, and ggml's worker threads spin-wait, which
# makes each reply up to a hundred times slower when the two cores are busy
# with other work (go test -race running beside the end-to-end tests).
# shellcheck disable=SC2016 # the $ signs belong to Go templates
write_modelfiles() {
	local dir=$1 gguf=$2
	local common_head common_tail
	common_head='{{- range $i, $m := .Messages }}
{{- $last := eq (len (slice $.Messages $i)) 1 }}
{{- if eq .Role "system" }}<|system|>
{{ .Content }}<|end|>
{{ else if eq .Role "user" }}<|user|>
{{ .Content }}<|end|>
{{ else if eq .Role "tool" }}<|tool|>
{{ .Content }}<|end|>
{{ else if eq .Role "assistant" }}<|assistant|>
'
	common_tail='{{ if .ToolCalls }}{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}{{ end }}{{ else }}{{ .Content }}{{ end }}
{{- if not $last }}<|end|>
{{ end }}
{{- end }}'
	local tools_block='{{- if .Tools }}<|system|>
You can call these tools. To call one, reply with only a JSON object {"name": "<tool name>", "arguments": {<arguments>}}.
{{- range .Tools }}
{{ json . }}
{{- end }}<|end|>
{{ end }}'

	cat >"$dir/Modelfile.tiny" <<EOF
FROM $gguf
PARAMETER num_thread 1
TEMPLATE """$tools_block
$common_head$common_tail
{{- if and \$last (ne .Role "assistant") }}<|assistant|>
{{ end }}
{{- end }}"""
EOF

	cat >"$dir/Modelfile.think" <<EOF
FROM $gguf
PARAMETER num_thread 1
TEMPLATE """$tools_block
$common_head{{ if .Thinking }}<think>{{ .Thinking }}</think>
{{ end }}$common_tail
{{- if and \$last (ne .Role "assistant") }}<|assistant|>
{{ if and \$.IsThinkSet \$.Think }}<think>
{{ end }}
{{- end }}
{{- end }}"""
EOF
}

start_server() {
	mkdir -p "$state_dir"
	if running; then
		echo "OLLAMA_HOST=$host"
		return 0
	fi
	stop_server # a stale state file or a server that no longer answers

	build_ollama
	local t0=$SECONDS

	run_dir=$(mktemp -d "$state_dir/run.XXXXXX")
	mkdir -p "$run_dir/models" "$run_dir/home"
	local gguf=$run_dir/lantern-tiny.gguf
	(cd "$repo_dir" && go run ./internal/tinymodel/cmd/tinymodel -o "$gguf" -seed "$MODEL_SEED") >&2 ||
		{ rm -rf "$run_dir"; die "generating the tiny model failed"; }
	write_modelfiles "$run_dir" "$gguf"

	# Port 0: the kernel picks a free port and the server logs which. The
	# server's HOME is the run dir, so its key pair stays there; fd 9 (the
	# lock) is closed for it; setsid gives it its own process group, so a
	# signal to the caller's group leaves it alone and stop can find its
	# runners.
	local log_file=$run_dir/server.log
	local detach=()
	command -v setsid >/dev/null 2>&1 && detach=(setsid)
	(
		cd "$run_dir"
		exec env HOME="$run_dir/home" OLLAMA_HOST=127.0.0.1:0 OLLAMA_MODELS="$run_dir/models" \
			OLLAMA_NUM_PARALLEL=1 OLLAMA_KEEP_ALIVE=30m OLLAMA_NOPRUNE=1 \
			"${detach[@]}" "$bin" serve </dev/null >"$log_file" 2>&1 9>&-
	) &
	pid=$!
	host=
	write_state 0

	local _
	for _ in $(seq 1 300); do
		kill -0 "$pid" 2>/dev/null || fail_start "ollama serve exited; its log is above" "$log_file"
		if [ -z "$host" ]; then
			host=$(sed -n 's/.*Listening on \(127\.0\.0\.1:[0-9][0-9]*\).*/\1/p' "$log_file" | head -n1)
			[ -n "$host" ] && write_state 0
		fi
		if api_up "$host"; then
			break
		fi
		sleep 0.1
	done
	api_up "$host" || fail_start "ollama serve did not answer /api/version in 30 s; its log is above" "$log_file"

	local name file
	for name in lantern-tiny lantern-tiny-think; do
		file=$run_dir/Modelfile.tiny
		[ "$name" = lantern-tiny-think ] && file=$run_dir/Modelfile.think
		(cd "$run_dir" && HOME="$run_dir/home" OLLAMA_HOST=$host "$bin" create "$name" -f "$file") >>"$run_dir/create.log" 2>&1 ||
			fail_start "ollama create $name failed; its output is above" "$run_dir/create.log"
	done
	write_state 1
	log "server $pid on $host with lantern-tiny and lantern-tiny-think ($((SECONDS - t0)) s; log $log_file)"
	echo "OLLAMA_HOST=$host"
}

with_lock() {
	mkdir -p "$state_dir"
	exec 9>"$state_dir/lock"
	if command -v flock >/dev/null 2>&1; then
		flock 9
	fi
	"$@"
}

main() {
	case ${1:-} in
	start) with_lock start_server ;;
	stop) with_lock stop_server ;;
	status)
		if with_lock running; then
			echo "OLLAMA_HOST=$host"
		else
			log "not running"
			exit 1
		fi
		;;
	*)
		echo "usage: $0 start|stop|status" >&2
		exit 2
		;;
	esac
}

# One line, read whole before it runs: editing this file (a git pull) while
# a long build runs cannot change what the running script does.
{ main "$@"; exit; }
