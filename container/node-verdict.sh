#!/bin/bash
# ncclx-node-verdict (in the ncclx image): runs `ncclx doctor` on this node
# and records the verdict on its Kubernetes Node object, the way GCP's
# cluster-health-scanner records its checks, so a scheduler can steer around
# a node with errors and an operator can list them with a label selector:
#
#   label      ncclx.dev/doctor=pass | fail | error   (error: ncclx could not run; exit 2, crash, timeout)
#   label      ncclx.dev/doctor-errors=<number of error results>
#   annotation ncclx.dev/doctor-first-error="<ID>: <summary>", ncclx.dev/doctor-time=<UTC time>
#   taint      ncclx.dev/doctor=fail:<NCCLX_TAINT>  only when NCCLX_TAINT is NoSchedule or
#              NoExecute: put on at fail, taken off at pass. Other taints are never touched;
#              after error the taint stays as the last verdict left it.
#
# Environment (docs/deploy/kubernetes/health-daemonset.yaml sets it):
#   NODE_NAME        this node (downward API spec.nodeName)            required
#   NCCLX_TAINT      "" (labels only), NoSchedule or NoExecute
#   NCCLX_INTERVAL   seconds between runs; 0 runs once and exits with the doctor's code
#   NCCLX_TIMEOUT    seconds the doctor may take (default 120)
#   NCCLX            the ncclx executable (default /usr/local/bin/ncclx)
#   KUBERNETES_SERVICE_HOST/PORT, the service account token and CA: set by Kubernetes.
#   NCCLX_K8S_API, NCCLX_K8S_TOKEN_FILE, NCCLX_K8S_CA: override those (tests, out-of-cluster).
# The service account needs get and patch on nodes, nothing else (ClusterRole ncclx-node-verdict).
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

KEY=ncclx.dev/doctor
NCCLX="${NCCLX:-/usr/local/bin/ncclx}"
SA=/var/run/secrets/kubernetes.io/serviceaccount
API="${NCCLX_K8S_API:-https://${KUBERNETES_SERVICE_HOST:-kubernetes.default.svc}:${KUBERNETES_SERVICE_PORT:-443}}"
TOKEN_FILE="${NCCLX_K8S_TOKEN_FILE:-$SA/token}"
CA="${NCCLX_K8S_CA:-$SA/ca.crt}"
TAINT="${NCCLX_TAINT:-}"
INTERVAL="${NCCLX_INTERVAL:-300}"
TIMEOUT="${NCCLX_TIMEOUT:-120}"
ERR="${TMPDIR:-/tmp}/ncclx-doctor.err"

say() { printf '%s ncclx-node-verdict: %s\n' "$(date -u +%FT%TZ)" "$*" >&2; }
die() { say "$*"; exit 2; }

[ -n "${NODE_NAME:-}" ] || die "NODE_NAME is not set (give it from the downward API: fieldRef spec.nodeName)"
case "$TAINT" in "" | NoSchedule | NoExecute) ;; *) die "NCCLX_TAINT must be empty, NoSchedule or NoExecute, not '$TAINT'" ;; esac
case "$INTERVAL" in '' | *[!0-9]*) die "NCCLX_INTERVAL must be a number of seconds, not '$INTERVAL'" ;; esac
case "$TIMEOUT" in '' | *[!0-9]* | 0) die "NCCLX_TIMEOUT must be a positive number of seconds, not '$TIMEOUT'" ;; esac

# One Kubernetes API call: method, path, optional merge-patch body. Prints the body; fails on HTTP errors, printing the status.
api() {
  local method=$1 path=$2 body=${3:-}
  local args=(-sS -X "$method" -H "Accept: application/json" -w '\n%{http_code}')
  [ -r "$TOKEN_FILE" ] && args+=(-H "Authorization: Bearer $(cat "$TOKEN_FILE")")
  [ -r "$CA" ] && args+=(--cacert "$CA")
  [ -n "$body" ] && args+=(-H "Content-Type: application/merge-patch+json" --data-binary "$body")
  local out code
  out="$(curl "${args[@]}" "$API$path")" || return 1
  code="${out##*$'\n'}"
  out="${out%$'\n'*}"
  printf '%s' "$out"
  [ "${code:0:1}" = 2 ] || { say "$method $path: HTTP $code: $(printf '%s' "$out" | head -c 300)"; return "$([ "$code" = 409 ] && echo 3 || echo 1)"; }
}

# Labels, annotations and (with NCCLX_TAINT) the taint, in one merge patch
# guarded by the node's resourceVersion: a node changed in between (409) is
# read again and the patch remade, so no one else's change is lost.
record() {
  local verdict=$1 errors=$2 first=$3 node patch try
  for try in 1 2 3 4 5; do
    node="$(api GET "/api/v1/nodes/$NODE_NAME")" || return 1
    patch="$(printf '%s' "$node" | jq -c --arg key "$KEY" --arg verdict "$verdict" --arg errors "$errors" --arg first "$first" \
      --arg time "$(date -u +%FT%TZ)" --arg effect "$TAINT" '
      {metadata: {resourceVersion: .metadata.resourceVersion,
                  labels: {($key): $verdict, ($key + "-errors"): $errors},
                  annotations: {($key + "-first-error"): $first, ($key + "-time"): $time}}}
      + if $effect == "" or $verdict == "error" then {} else
          {spec: {taints: ([(.spec.taints // [])[] | select(.key != $key)]
                           + if $verdict == "fail" then [{key: $key, value: "fail", effect: $effect}] else [] end)}}
        end')" || return 1
    api PATCH "/api/v1/nodes/$NODE_NAME" "$patch" >/dev/null
    case $? in
      0) return 0 ;;
      3) say "node $NODE_NAME changed while recording (attempt $try); reading it again" ;;
      *) return 1 ;;
    esac
  done
  return 1
}

once() {
  local report code errors first verdict
  report="$(timeout -k 5 "$TIMEOUT" "$NCCLX" doctor --json 2>"$ERR")"
  code=$?
  if [ "$code" -le 1 ] && errors="$(printf '%s' "$report" | jq -r '[.results[] | select(.severity == "error")] | length' 2>/dev/null)"; then
    first="$(printf '%s' "$report" | jq -r '[.results[] | select(.severity == "error")][0] // empty | "\(.id): \(.summary)"')"
    verdict=$([ "$code" -eq 0 ] && echo pass || echo fail)
  else
    # Could not run (2), crashed, timed out (124, 137) or printed no report: say so, decide nothing.
    errors=0 verdict=error
    first="ncclx could not run (exit $code): $(head -c 300 "$ERR" | tr '\n\t' '  ' | sed 's/ *$//')"
    [ "$code" -eq 124 ] || [ "$code" -eq 137 ] && first="ncclx doctor timed out after ${TIMEOUT} s"
  fi
  say "node $NODE_NAME: $verdict${first:+ ($first)}"
  record "$verdict" "$errors" "${first:0:1000}" || say "could not record the verdict on node $NODE_NAME"
  return "$code"
}

if [ "$INTERVAL" -eq 0 ]; then
  once
  exit $?
fi
# As the container's first process, bash would ignore SIGTERM without a handler.
trap 'exit 0' TERM INT
while :; do
  once
  sleep "$INTERVAL" &
  wait $!
done
