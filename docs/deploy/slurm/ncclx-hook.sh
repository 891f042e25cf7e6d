#!/bin/bash
# ncclx as a Slurm Prolog, Epilog or HealthCheckProgram. Do not point
# slurm.conf at this file: install.sh writes one copy per hook with the
# settings below filled in (the absolute path of ncclx, the policy), and
# checks that ncclx runs before it does.
#
# slurmd runs these hooks with almost nothing in their environment: no PATH
# and no HOME (a Prolog or Epilog gets SLURM_JOB_ID, SLURMD_NODENAME and other
# SLURM_* variables; a HealthCheckProgram only SLURMD_NODENAME). So this
# script sets its own PATH and calls ncclx and scontrol by absolute path.
#
# What each outcome of `ncclx doctor` does (docs/deploy/README.md):
#   0  healthy          prolog, epilog: exit 0. healthcheck: resume the node if, and only
#                       if, its drain reason starts with "ncclx " (a drain of these hooks).
#   1  errors found     drain the node with Reason="ncclx <ID>: <summary>" (never over
#                       someone else's drain), log, exit 1: slurmd logs the output; a
#                       failed prolog requeues a batch job held.
#   ncclx missing, not executable, exit 2, crash or timeout: log the error, then
#       ON_FAILURE=drain  drain with Reason="ncclx could not run: …", exit 1 (as errors);
#       ON_FAILURE=run    leave the node as it is; prolog, epilog exit 0 (the job runs),
#                         healthcheck exit 1 (slurmd logs it, and does nothing else).
# Every error is written to slurmd's log file (SLURMD_LOG), to syslog (logger)
# and to $LOG_DIR/hooks.log; each hook's last report is $LOG_DIR/<hook>.json.

# ---- settings: written by install.sh ----
HOOK=''
NCCLX=''
ON_FAILURE=''
TIMEOUT=''
LOG_DIR=''
SLURMD_LOG=''
SCONTROL=''
SLURM_CONF_FILE=''
DOCTOR_ARGS=()
# ---- end of settings ----

set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
umask 022
[ -n "$SLURM_CONF_FILE" ] && export SLURM_CONF="$SLURM_CONF_FILE"
node="${SLURMD_NODENAME:-$(hostname -s)}"
job="${SLURM_JOB_ID:-}"

# One error, everywhere an operator looks: this hook's log, syslog, slurmd's own
# log (only when the hook exits 0 — a hook that fails has its output logged by
# slurmd already), and standard error.
log_error() {
  local msg="ncclx $HOOK${job:+ (job $job)} on $node: $*" quiet_slurmd=${LOG_ERROR_EXITING:-0}
  printf '%s %s\n' "$(date -u +%FT%TZ)" "$msg" >> "$LOG_DIR/hooks.log" 2>/dev/null
  command -v logger >/dev/null 2>&1 && logger -p daemon.err -t "ncclx-$HOOK" -- "$msg"
  if [ "$quiet_slurmd" = 0 ] && [ -n "$SLURMD_LOG" ] && [ -w "$SLURMD_LOG" ]; then
    printf '[%s] error: %s\n' "$(date +%Y-%m-%dT%H:%M:%S.%3N)" "$msg" >> "$SLURMD_LOG"
  fi
  printf '%s\n' "$msg" >&2
}
log_info() {
  printf '%s %s\n' "$(date -u +%FT%TZ)" "ncclx $HOOK${job:+ (job $job)} on $node: $*" >> "$LOG_DIR/hooks.log" 2>/dev/null
}

if [ -z "$HOOK" ] || [ -z "$NCCLX" ] || [ -z "$SCONTROL" ]; then
  echo "ncclx hook: not installed (run docs/deploy/slurm/install.sh, which fills in the settings); failing" >&2
  exit 1
fi
mkdir -p -- "$LOG_DIR" 2>/dev/null

if [ "$HOOK" = healthcheck ]; then
  # slurmd kills a HealthCheckProgram after 60 s, silently for the node
  # ("health_check poll timeout @ 60000 msec"): stop the doctor before that,
  # so the answer is "timed out", logged and handled by the policy.
  [ "$TIMEOUT" -gt 45 ] && TIMEOUT=45
  # slurmd starts a health check at every interval even when the last one
  # still runs; one at a time is enough (and piling them up slows them all).
  exec 9>>"$LOG_DIR/healthcheck.lock"
  if command -v flock >/dev/null 2>&1 && ! flock -n 9; then
    log_info "the previous health check still runs: this one does nothing"
    exit 0
  fi
fi

# The node's line from scontrol: "… State=IDLE+DRAIN … Reason=ncclx ARP-002: … [root@…]".
node_line() { "$SCONTROL" show node "$node" -o 2>/dev/null; }
drained() { [[ "$1" =~ (^|\ )State=[^\ ]*DRAIN ]]; }
ours() { [[ "$1" == *" Reason=ncclx "* ]]; }

# Drain with our reason, unless someone else's drain is already there (its reason is kept:
# the health check must never resume a node it did not drain).
drain() {
  local reason="ncclx $1" line
  reason="${reason//[$'\t\r\n']/ }"
  line="$(node_line)"
  if drained "$line" && ! ours "$line"; then
    drain_result="already drained by someone else (Reason=${line##* Reason=}), reason kept"
    return 0
  fi
  if "$SCONTROL" update NodeName="$node" State=DRAIN Reason="${reason:0:200}"; then
    drain_result="node drained"
  else
    drain_result="scontrol could not drain the node"
  fi
}

resume_own_drain() {
  local line
  line="$(node_line)"
  if drained "$line" && ours "$line"; then
    "$SCONTROL" update NodeName="$node" State=RESUME && log_info "resumed: its ncclx drain (${line##* Reason=}) is cured"
  fi
}

# The first error of a doctor --json report as "<ID>: <summary>". The report is
# JSON.stringify(…, null, 2): each result's fields sit on their own lines at
# six spaces, "id" first, "severity" before "summary". GPU nodes need not have
# jq or Node.js, so awk reads that shape (test/deploy/slurm-hooks.test.ts holds
# it against the real output).
first_error() {
  awk '
    /^  "results": \[/ { in_results = 1; next }
    /^  \]/ { in_results = 0 }
    !in_results { next }
    /^    [{]/ { id = ""; err = 0 }
    /^      "id": "/ { id = $0; sub(/^      "id": "/, "", id); sub(/",?$/, "", id) }
    /^      "severity": "error",?$/ { err = 1 }
    /^      "summary": "/ && err {
      s = $0; sub(/^      "summary": "/, "", s); sub(/",?$/, "", s)
      gsub(/\\[nrt]/, " ", s); gsub(/\\"/, "\"", s); gsub(/\\\\/, "\\", s)
      print id ": " s; exit
    }' "$1"
}

# Run the doctor, keep its report, classify. Sets $outcome (healthy, errors, broken) and $why.
run_doctor() {
  local report="$LOG_DIR/$HOOK.json" tmp="$LOG_DIR/$HOOK.json.$$" err="$LOG_DIR/$HOOK.err" code
  if [ ! -e "$NCCLX" ]; then
    outcome=broken why="$NCCLX: not found"
    return
  fi
  if [ ! -x "$NCCLX" ]; then
    outcome=broken why="$NCCLX: not executable"
    return
  fi
  timeout -k 10 "$TIMEOUT" "$NCCLX" doctor --json "${DOCTOR_ARGS[@]}" > "$tmp" 2> "$err"
  code=$?
  case "$code" in
    0 | 1)
      if grep -q '^  "results": \[' "$tmp"; then
        mv -f -- "$tmp" "$report"
        if [ "$code" -eq 0 ]; then
          outcome=healthy why=''
        else
          outcome=errors why="$(first_error "$report")"
          [ -n "$why" ] || why="doctor: errors (see $report)"
        fi
        return
      fi
      why="exit $code without a report" ;;
    124 | 137) why="timed out after $TIMEOUT s" ;;
    126) why="$NCCLX: cannot execute" ;;
    127) why="$NCCLX: cannot execute (a missing interpreter or library?)" ;;
    *) why="exit $code" ;;
  esac
  rm -f -- "$tmp"
  outcome=broken
  why="$why: $(head -c 300 "$err" 2>/dev/null | tr '\n\t' '  ' | sed 's/ *$//')"
  why="${why%: }"
}

run_doctor
case "$outcome" in
  healthy)
    log_info "doctor: no errors"
    [ "$HOOK" = healthcheck ] && resume_own_drain
    exit 0
    ;;
  errors)
    drain "$why"
    LOG_ERROR_EXITING=1 log_error "doctor found errors: $why (report: $LOG_DIR/$HOOK.json); $drain_result"
    exit 1
    ;;
  broken)
    if [ "$ON_FAILURE" = drain ]; then
      drain "could not run: $why"
      LOG_ERROR_EXITING=1 log_error "ncclx could not run: $why; policy drain: $drain_result"
      exit 1
    fi
    if [ "$HOOK" = healthcheck ]; then
      LOG_ERROR_EXITING=1 log_error "ncclx could not run: $why; policy run: node left as it is"
      exit 1
    fi
    log_error "ncclx could not run: $why; policy run: the job starts unchecked"
    exit 0
    ;;
esac
