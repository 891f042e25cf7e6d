#!/bin/bash
# Slurm HealthCheckProgram (slurm.conf: HealthCheckProgram=/usr/local/sbin/ncclx-healthcheck,
# HealthCheckInterval=300). slurmd runs it as root and ignores its exit code:
# draining is the program's job, as with NHC. The doctor's exit code decides:
# 1 (errors) drains the node with the first error as the reason; 0 resumes a
# node this script drained before (its reason starts with "ncclx "), so a
# fixed node comes back by itself. A drain by anyone else is never touched.
set -uo pipefail

node="$(hostname -s)"
report="$(ncclx doctor --json)"
code=$?
if [ "$code" -eq 1 ]; then
  # The first error's id and summary, cut to fit Slurm's reason field.
  reason="$(printf '%s' "$report" | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const r = JSON.parse(s).results.find((x) => x.severity === "error");
      process.stdout.write(r ? `ncclx ${r.id}: ${r.summary}` : "ncclx doctor: errors");
    });' 2>/dev/null || printf 'ncclx doctor: errors')"
  scontrol update NodeName="$node" State=DRAIN Reason="${reason:0:120}"
elif [ "$code" -eq 0 ]; then
  # Resume only a drain of our own: the reason we set starts with "ncclx ".
  info="$(scontrol show node "$node" -o 2>/dev/null)"
  case "$info" in
    *State=*DRAIN*Reason=ncclx\ *) scontrol update NodeName="$node" State=RESUME ;;
  esac
fi
exit 0
