#!/usr/bin/env bash
# The long chaos run (issue 15): a personal pool started with kite up, under
# a submit load, while 100 rounds of SIGKILLs hit the collector, the
# negotiator, the schedd, the startd, the master and the whole pool (each
# kind once per round, at random), until at least 5000 jobs were
# acknowledged; then the queue drains and the checker proves that every
# acknowledged job ran to completion exactly once, none ran twice at once or
# after its completion was recorded, and nothing unacknowledged appeared.
# It prints the figures: kills per kind, jobs acknowledged, completed, lost,
# duplicated, concurrent, and the time to drain after the last kill.
#
#   scripts/chaos.sh [-chaos.seed N] [-chaos.rounds N] [-chaos.jobs N] [-chaos.dir DIR]
#
# It takes about 15 minutes on two cores. The pool's logs and the jobs' run
# records are kept in -chaos.dir (default: a new directory under /tmp,
# printed at the start). See docs/chaos.md.
set -euo pipefail
cd "$(dirname "$0")/.."
keep=""
for a in "$@"; do
  case $a in -chaos.dir | -chaos.dir=*) keep=yes ;; esac
done
extra=()
if [ -z "$keep" ]; then
  dir=$(mktemp -d /tmp/kite-chaos-XXXXXX)
  echo "The pool's logs and the run records: $dir"
  extra=(-chaos.dir "$dir")
fi
exec go test -count=1 -timeout 0 -run '^TestChaos$' -v ./internal/pooltest/chaos/ -args -chaos.long "${extra[@]}" "$@"
