#!/usr/bin/env bash
# A real Slurm job array on this machine: installs Slurm and munge
# (scripts/slurm-deps.sh), starts munged, slurmctld and slurmd from a
# generated configuration in a temporary folder (loopback only, no
# systemd, no cgroups), submits scripts/bench-array.sbatch as
# `sbatch --array=0-3` over a two-game suite (the built-in demo and Zork I)
# played by their walkthroughs, merges the four shards and checks that the
# merge equals the unsharded run: the same report, episodes and turns.
# Skips (exit 0, saying so) where Slurm cannot be installed, unless
# LANTERN_REQUIRE_SHARED=1, where that fails. Stops the daemons it started.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
shared=${LANTERN_SHARED:-../shared}
start=$(date +%s)

skip() {
  if [[ ${LANTERN_REQUIRE_SHARED:-} == 1 ]]; then
    echo "slurm-test: FAIL: $*" >&2
    exit 1
  fi
  echo "slurm-test: SKIP: $*" >&2
  exit 0
}

if [[ ! -f $shared/stories/zork1.z3 || ! -f $shared/walkthroughs/zork1.txt ]]; then
  skip "no Zork I in the shared test data ($shared)"
fi
rc=0
./scripts/slurm-deps.sh || rc=$?
case $rc in
  0) ;;
  2) skip "slurm-wlm and munge cannot be installed here" ;;
  *) echo "slurm-test: FAIL: scripts/slurm-deps.sh exited $rc" >&2; exit 1 ;;
esac
if [[ $(id -u) -ne 0 ]]; then
  skip "slurmd must run as root (it starts jobs as their users)"
fi

tmp=$(mktemp -d /tmp/lantern-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  sleep 1
  for p in "${pids[@]}"; do
    kill -9 "$p" 2>/dev/null || true
  done
  if [[ ${KEEP:-} != 1 ]]; then
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT

fail() {
  echo "slurm-test: FAIL: $*" >&2
  for f in "$tmp"/log/*.log "$tmp"/out/*; do
    [[ -f $f ]] || continue
    echo "---- $f" >&2
    tail -n 30 "$f" >&2
  done
  exit 1
}

freeport() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}

mkdir -p "$tmp"/{munge,log,state,spool,out,games,walk,home}
chmod 755 "$tmp/munge"

# munge: a key of our own, its socket in the temporary folder.
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket
munged --force --key-file="$tmp/munge/munge.key" --socket="$sock" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/munged.seed" || fail "munged did not start"
pids+=("$(cat "$tmp/munge/munged.pid")")

ctlport=$(freeport)
dport=$(freeport)
while [[ $dport == "$ctlport" ]]; do dport=$(freeport); done
conf=$tmp/slurm.conf
cat >"$conf" <<CONF
ClusterName=lantern
SlurmctldHost=$(hostname -s)(127.0.0.1)
MailProg=/bin/true
SlurmctldPort=$ctlport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/slurmd-%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd-%n.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/backfill
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=lantern1 NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=lantern1 Default=YES MaxTime=30 State=UP
CONF
export SLURM_CONF=$conf
slurmctld -D -i -f "$conf" >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N lantern1 -f "$conf" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
  kill -0 "${pids[1]}" 2>/dev/null || fail "slurmctld stopped"
  kill -0 "${pids[2]}" 2>/dev/null || fail "slurmd stopped"
  if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    break
  fi
  sleep 1
done
sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)' || fail "the Slurm node did not come up: $(sinfo -N 2>&1 | tail -n 2)"

# The suite: the built-in demo and Zork I (its walkthrough wins with seed 12).
go build -o "$tmp/lantern" . || fail "build"
cp game_files/demo/demo.z3 "$tmp/games/demo.z3"
cp "$shared/stories/zork1.z3" "$tmp/games/zork1.z3"
cp game_files/demo/walkthrough.txt "$tmp/walk/demo.txt"
cp "$shared/walkthroughs/zork1.txt" "$tmp/walk/zork1.txt"
echo '{"zork1": 12, "demo": 3}' >"$tmp/seeds.json"
suite=(--story "$tmp/games" --agent "script:$tmp/walk" --seed-file "$tmp/seeds.json" --episodes 2 --max-turns 400 --width 60)
export HOME=$tmp/home XDG_DATA_HOME=$tmp/home/data XDG_CONFIG_HOME=$tmp/home/config XDG_STATE_HOME=$tmp/home/state

array_start=$(date +%s)
OUT=$tmp/shards LANTERN=$tmp/lantern timeout 600 sbatch --wait --array=0-3 --chdir="$tmp" --output="$tmp/out/%a.out" --error="$tmp/out/%a.err" \
  scripts/bench-array.sbatch "${suite[@]}" >"$tmp/sbatch.out" 2>&1 || fail "sbatch: $(cat "$tmp/sbatch.out")"
array_end=$(date +%s)
for k in 0 1 2 3; do
  grep -q "shard $((k + 1))/4" "$tmp/out/$k.out" || fail "task $k did not play shard $((k + 1))/4"
done

"$tmp/lantern" bench "${suite[@]}" --workdir "$tmp/whole" --export "$tmp/whole-export" >"$tmp/whole.txt" 2>"$tmp/out/whole.err" || fail "the unsharded run"
"$tmp/lantern" bench merge --width 60 --export "$tmp/merged-export" "$tmp"/shards/shard-{0,1,2,3} >"$tmp/merged.txt" 2>"$tmp/out/merge.err" || fail "merge: $(cat "$tmp/out/merge.err")"
diff -u "$tmp/whole.txt" "$tmp/merged.txt" || fail "the merged shards' report differs from the unsharded run's"
diff -u "$tmp/whole-export/episodes.csv" "$tmp/merged-export/episodes.csv" || fail "the merged shards' episodes differ"
# The last column of turns.csv is the harness time, the one column that
# depends on the clock.
diff -u <(cut -d, -f1-9 "$tmp/whole-export/turns.csv") <(cut -d, -f1-9 "$tmp/merged-export/turns.csv") || fail "the merged shards' turns differ"
grep -q "(complete)" "$tmp/merged.txt" || fail "the merged report is not complete"
end=$(date +%s)
echo "slurm-test: ok: sbatch --array=0-3 played 4 shards in $((array_end - array_start))s; merge equals the unsharded run; $((end - start))s in all" >&2
