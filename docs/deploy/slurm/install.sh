#!/bin/bash
# Installs ncclx's Slurm hooks: writes DEST/prolog, DEST/epilog and
# DEST/healthcheck (copies of ncclx-hook.sh with the settings filled in) and
# prints the slurm.conf lines that use them. Run it as root on every node (or
# once on a shared path), then `scontrol reconfigure`.
#
#   install.sh --ncclx /usr/local/bin/ncclx --on-failure drain|run [options]
#
#   --ncclx PATH          the ncclx executable, an absolute path (hooks get no PATH);
#                         it must run here as the hooks will run it: with an empty environment
#   --on-failure POLICY   what a hook does when ncclx is missing, broken or times out:
#                         drain (drain the node, fail the hook) or run (log, let jobs run)
#   --dest DIR            where the hooks go (default /etc/slurm/ncclx)
#   --log-dir DIR         reports and the hooks' log (default /var/log/ncclx)
#   --timeout SECONDS     how long the doctor may take (default 120; the health check
#                         stops it at 45 at most: slurmd kills a health check at 60)
#   --slurmd-log FILE     slurmd's log file, where errors are also written when a hook
#                         exits 0 (default: SlurmdLogFile from `scontrol show config`;
#                         '' for none: slurmd logging to syslog, where logger writes too)
#   --scontrol PATH       scontrol (default: found on PATH now)
#   --slurm-conf FILE     export SLURM_CONF=FILE in the hooks (a HealthCheckProgram gets
#                         no SLURM_CONF: needed only when slurm.conf is not where scontrol
#                         looks by default)
#   -- ARGS…              more arguments for `ncclx doctor` (e.g. --nccl-version 2.28.3)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
template="$here/ncclx-hook.sh"
ncclx='' policy='' dest=/etc/slurm/ncclx log_dir=/var/log/ncclx timeout=120 slurmd_log=unset scontrol='' slurm_conf=''
doctor_args=()

die() {
  echo "install.sh: $*" >&2
  exit 2
}
need() { [ $# -ge 2 ] || die "$1 needs a value"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --ncclx) need "$@"; ncclx=$2; shift 2 ;;
    --on-failure) need "$@"; policy=$2; shift 2 ;;
    --dest) need "$@"; dest=$2; shift 2 ;;
    --log-dir) need "$@"; log_dir=$2; shift 2 ;;
    --timeout) need "$@"; timeout=$2; shift 2 ;;
    --slurmd-log) need "$@"; slurmd_log=$2; shift 2 ;;
    --scontrol) need "$@"; scontrol=$2; shift 2 ;;
    --slurm-conf) need "$@"; slurm_conf=$2; shift 2 ;;
    --) shift; doctor_args=("$@"); break ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

[ -n "$ncclx" ] || die "--ncclx PATH is required: the hooks run with no PATH, so they call ncclx by its absolute path"
[ -n "$policy" ] || die "--on-failure drain|run is required: decide what a hook does when ncclx cannot run"
case "$policy" in drain | run) ;; *) die "--on-failure must be drain or run, not '$policy'" ;; esac
case "$ncclx" in /*) ;; *) die "--ncclx must be an absolute path, not '$ncclx'" ;; esac
case "$dest$log_dir" in *$'\n'*) die "--dest and --log-dir must be one line" ;; esac
case "$dest" in /*) ;; *) die "--dest must be an absolute path, not '$dest'" ;; esac
case "$log_dir" in /*) ;; *) die "--log-dir must be an absolute path, not '$log_dir'" ;; esac
case "$timeout" in '' | *[!0-9]* | 0) die "--timeout must be a positive number of seconds, not '$timeout'" ;; esac
[ -x "$ncclx" ] && [ -f "$ncclx" ] || die "$ncclx is not an executable file"
[ -f "$template" ] || die "$template is missing (run install.sh from its directory in the ncclx tree)"

# Run ncclx exactly as a hook will: nothing in the environment, from /.
if ! version="$(cd / && env -i "$ncclx" --version 2>&1)"; then
  die "$ncclx does not run with an empty environment, as slurmd would run it: $version"
fi

if [ -z "$scontrol" ]; then
  scontrol="$(command -v scontrol || true)"
  [ -n "$scontrol" ] || die "scontrol is not on PATH: give --scontrol PATH"
fi
case "$scontrol" in /*) ;; *) scontrol="$(cd "$(dirname "$scontrol")" && pwd)/$(basename "$scontrol")" ;; esac
[ -x "$scontrol" ] || die "$scontrol is not executable"
if [ "$slurmd_log" = unset ]; then
  slurmd_log="$(SLURM_CONF="${slurm_conf:-${SLURM_CONF:-}}" "$scontrol" show config 2>/dev/null | awk -F' = ' '$1 ~ /^SlurmdLogFile *$/ { print $2 }')"
  [ "$slurmd_log" = "(null)" ] && slurmd_log=''
fi

# The settings block, every value quoted for bash (paths may hold spaces or quotes).
settings() {
  printf 'HOOK=%q\nNCCLX=%q\nON_FAILURE=%q\nTIMEOUT=%q\nLOG_DIR=%q\nSLURMD_LOG=%q\nSCONTROL=%q\nSLURM_CONF_FILE=%q\n' \
    "$1" "$ncclx" "$policy" "$timeout" "$log_dir" "$slurmd_log" "$scontrol" "$slurm_conf"
  printf 'DOCTOR_ARGS=('
  [ ${#doctor_args[@]} -gt 0 ] && printf ' %q' "${doctor_args[@]}"
  printf ' )\n'
}

mkdir -p -- "$dest" "$log_dir"
for hook in prolog epilog healthcheck; do
  tmp="$dest/.$hook.$$"
  # The template with its settings block replaced; the rest byte for byte. The block
  # goes through the environment: awk -v would turn the \\ and \n of bash's quoting
  # into other characters.
  NCCLX_SETTINGS="$(settings "$hook")" awk '
    /^# ---- settings: written by install.sh ----$/ { print; print ENVIRON["NCCLX_SETTINGS"]; skip = 1; next }
    /^# ---- end of settings ----$/ { skip = 0 }
    !skip' "$template" > "$tmp"
  bash -n "$tmp" || { rm -f -- "$tmp"; die "the $hook hook does not parse (a bug: please report it)"; }
  chmod 0755 "$tmp"
  mv -f -- "$tmp" "$dest/$hook"
done

cat <<EOF
ncclx $version: hooks written to $dest (policy when ncclx cannot run: $policy)
Add to slurm.conf on every node and the controller, then: scontrol reconfigure
  Prolog=$dest/prolog
  Epilog=$dest/epilog
  HealthCheckProgram=$dest/healthcheck
  HealthCheckInterval=300
Errors go to slurmd's log${slurmd_log:+ ($slurmd_log)}, syslog (tag ncclx-<hook>) and $log_dir/hooks.log.
EOF
