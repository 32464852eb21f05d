#!/usr/bin/env bash
# Installs Debian's Slurm (slurm-wlm: slurmctld, slurmd and the client commands)
# and munge (Slurm's authentication), idempotently, for scripts/slurm-test.sh.
# Does nothing when sbatch, slurmctld, slurmd and munged are all present.
# Exits 2 (not 1) when the packages cannot be installed here (no apt-get, no
# root, no repository), so a caller can tell "cannot" from "broken".
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1 || [[ -x /usr/sbin/$1 ]]; }
if have sbatch && have slurmctld && have slurmd && have munged; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "slurm-deps: slurm-wlm and munge missing and apt-get is not available" >&2
  exit 2
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
    echo "slurm-deps: slurm-wlm and munge missing and installing them needs root" >&2
    exit 2
  fi
  sudo="sudo -n"
fi
echo "slurm-deps: installing Debian packages slurm-wlm munge" >&2
# The package lists may be stale (a mirror moved on): update them first.
if ! $sudo apt-get update >/dev/null; then
  echo "slurm-deps: apt-get update failed" >&2
  exit 2
fi
# No systemd here: the packages' services are not started by the install
# (policy-rc.d refuses), the test script runs the daemons itself.
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null; then
  echo "slurm-deps: apt-get install slurm-wlm munge failed" >&2
  exit 2
fi
have sbatch && have slurmctld && have slurmd && have munged
