#!/bin/bash
# Slurm Prolog (slurm.conf: Prolog=/etc/slurm/prolog.d/ncclx.sh, or a file in
# a Prolog directory). A prolog that exits non-zero drains the node and
# requeues the job, so only the doctor's "errors found" (1) fails it; a doctor
# that could not run (2) is logged and lets the job start. slurmd does not keep
# a prolog's output, so every outcome goes to $out/doctor.log (and syslog when
# logger is there). The last good report is replaced only by a new report.
set -uo pipefail

out="${NCCLX_LOG_DIR:-/var/log/ncclx}"
mkdir -p -- "$out"
log() {
  printf '%s %s\n' "$(date -u +%FT%TZ)" "$*" >> "$out/doctor.log"
  command -v logger >/dev/null 2>&1 && logger -t ncclx-prolog -- "$*"
  return 0
}
ncclx doctor --json > "$out/doctor.json.tmp" 2> "$out/doctor.err"
code=$?
case "$code" in
  0 | 1) mv -- "$out/doctor.json.tmp" "$out/doctor.json" ;;
  *) rm -f -- "$out/doctor.json.tmp" ;;
esac
case "$code" in
  0) log "job ${SLURM_JOB_ID:-?}: doctor ok"; exit 0 ;;
  1) log "job ${SLURM_JOB_ID:-?}: doctor found errors on $(hostname -s): see $out/doctor.json; failing the prolog (the node drains)"; exit 1 ;;
  *) log "job ${SLURM_JOB_ID:-?}: doctor could not run (exit $code): $(head -c 300 "$out/doctor.err" | tr '\n' ' '); not blocking the job, previous report kept"; exit 0 ;;
esac
