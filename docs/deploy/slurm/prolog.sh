#!/bin/bash
# Slurm Prolog (slurm.conf: Prolog=/etc/slurm/prolog.d/ncclx.sh, or a file in
# a Prolog directory). A prolog that exits non-zero drains the node and
# requeues the job, so only the doctor's "errors found" (1) fails it; a doctor
# that could not run (2) is logged and lets the job start.
set -uo pipefail

out="${NCCLX_LOG_DIR:-/var/log/ncclx}"
mkdir -p -- "$out"
ncclx doctor --json > "$out/doctor.json.tmp"
code=$?
mv -- "$out/doctor.json.tmp" "$out/doctor.json"
case "$code" in
  0) exit 0 ;;
  1) echo "ncclx doctor found errors on $(hostname -s): see $out/doctor.json" >&2; exit 1 ;;
  *) echo "ncclx doctor could not run (exit $code); not blocking the job" >&2; exit 0 ;;
esac
