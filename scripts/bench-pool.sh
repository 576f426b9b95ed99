#!/usr/bin/env bash
# Throughput of a real personal pool (kite up: one process per daemon,
# TCP on loopback): JOBS jobs of /bin/true on SLOTS slots, from submit to
# the last job's end in the job event log.
#
#   scripts/bench-pool.sh [JOBS [SLOTS]]        (default 10000 8)
#
# Run it as the user who submits: as root, the startd runs jobs as nobody
# and sends their files (no shared file system), which costs more.
#
#   KITE_BENCH_AS=ACCOUNT scripts/bench-pool.sh ...   (as root)
#
# submits as the identity "bench", mapped to ACCOUNT (an unprivileged
# account): the schedd and the startd then open every file of each job as
# ACCOUNT and the job runs as it in its own directory, the multi-user
# pool's path (docs/security.md).
set -euo pipefail
jobs=${1:-10000}
slots=${2:-8}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'KITE_HOME=$work/pool "$work/kite" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
go build -o "$work/kite" ./tools/kite
export KITE_HOME=$work/pool
"$work/kite" up --slots "$slots" --detach ${KITE_BENCH_AS:+--set "schedd.identity_map=^bench\$ $KITE_BENCH_AS"} >/dev/null
mkdir "$work/job"
if [ -n "${KITE_BENCH_AS:-}" ]; then
  "$work/kite" token create --identity bench --levels READ,WRITE >"$work/bench.token"
  export KITE_POOL_TOKEN_FILE=$work/bench.token
  chmod o+x "$work"
  chown "$KITE_BENCH_AS" "$work/job"
fi
cd "$work/job"
printf 'executable = /bin/true\nshould_transfer_files = IF_NEEDED\nlog = bench.log\nqueue %d\n' "$jobs" >bench.sub
start=$(date +%s.%N)
"$work/kite" submit bench.sub >/dev/null
"$work/kite" wait bench.log >/dev/null
end=$(date +%s.%N)
awk -v n="$jobs" -v s="$start" -v e="$end" -v k="$slots" \
  'BEGIN { printf "%d jobs of /bin/true on %d slots in %.1f s: %.0f jobs/s\n", n, k, e - s, n / (e - s) }'
