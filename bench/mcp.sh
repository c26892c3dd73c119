#!/usr/bin/env bash
# bench/mcp.sh: the cold start of stax mcp --package against stax pull -o
# of the same package, as whole processes: Debian's docker-registry on
# loopback holds one package of SKILLS generated skills of about SIZE
# bytes each; every run starts with a new $STAX_HOME, and the server ends
# on an empty stdin once it is ready to serve. BenchmarkMCPPackageCold
# (cmd/stax) times the same two as processes too, but of the test binary
# (which also initialises what the tests import) against a registry in
# the test process; this times the binary a user runs, and compares two.
#
#   STAX=bin/stax bash bench/mcp.sh
#   STAX=bin/stax BEFORE=/tmp/stax-before RUNS=15 bash bench/mcp.sh
#
# Rows (median of RUNS, after WARMUP rounds not timed): each binary's
# server and pull, wall and user+sys CPU seconds (/usr/bin/time), and the
# median of the ratios server over pull of each round. A round runs every
# command once, the binaries in turn, the server and the pull in turn.
# Never run it at a real-time priority (chrt): a Go process and the
# registry, both real-time on 2 cores, spun for minutes on each other.
set -euo pipefail
fail() { echo "mcp bench: FAIL: $*" >&2; exit 1; }
STAX=${STAX:-bin/stax}
for bin in "$STAX" ${BEFORE:+"$BEFORE"}; do
	[ -x "$bin" ] && [ -f "$bin" ] || fail "no stax binary at $bin (make build, or set STAX and BEFORE)"
done
STAX=$(realpath "$STAX")
BEFORE=${BEFORE:+$(realpath "$BEFORE")}
SKILLS=${SKILLS:-1000}
SIZE=${SIZE:-2000}
RUNS=${RUNS:-9}
WARMUP=${WARMUP:-1}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/stax-mcp-bench.XXXXXX")
export SOURCE_DATE_EPOCH=0 DOCKER_CONFIG=$work/docker
# The commands' stderr goes to $work/stderr.log, shown when the bench fails.
cleanup() {
	local status=$?
	if ((status != 0)) && [ -s "$work/stderr.log" ]; then
		echo "--- last lines of the commands' stderr:" >&2
		tail -n 20 "$work/stderr.log" >&2
	fi
	stop_registry
	rm -rf "$work"
}
# shellcheck source=../test/e2e/lib/registry.sh
. "$here/../test/e2e/lib/registry.sh"
trap cleanup EXIT
mkdir -p "$DOCKER_CONFIG" "$work/project" "$work/runs"
start_registry >/dev/null
command -v /usr/bin/time >/dev/null || fail "no /usr/bin/time (apt-get install time)"
(cd "$here/.." && go run ./bench/gen -dir "$work/src" -count "$SKILLS" -size "$SIZE" >/dev/null 2>>"$work/stderr.log") || fail "cannot generate the skills"
ref=127.0.0.1:$port/bench/mcp:1.0.0
STAX_HOME=$work/push-home "$STAX" push --max-size 0 "$work/src" "$ref" >/dev/null 2>>"$work/stderr.log" || fail "cannot push the package"

bins=("$STAX")
[ -n "$BEFORE" ] && bins=("$BEFORE" "$STAX")
# run BIN JOB TIMED: one cold run; its "user sys wall" appended to
# $work/times.BIN-INDEX.JOB when TIMED (CPU from /usr/bin/time, wall from
# bash's clock in microseconds: time's is in hundredths).
run() {
	local bin=${bins[$1]} home start end cpu=$work/cpu
	home=$(mktemp -d "$work/runs/home.XXXXXX")
	start=$EPOCHREALTIME
	case $2 in
	mcp) STAX_HOME=$home /usr/bin/time -o "$cpu" -f '%U %S' "$bin" mcp --dir "$work/project" --package "$ref" </dev/null >/dev/null 2>>"$work/stderr.log" ;;
	pull) STAX_HOME=$home /usr/bin/time -o "$cpu" -f '%U %S' "$bin" pull "$ref" -o "$home/out" >/dev/null 2>>"$work/stderr.log" ;;
	esac || fail "stax $2 ($bin) failed"
	end=$EPOCHREALTIME
	[ "$3" = timed ] && echo "$(cat "$cpu") $(awk -v s="$start" -v e="$end" 'BEGIN {printf "%.4f", e - s}')" >>"$work/times.$1.$2"
	rm -rf "$home"
}
for ((r = 0; r < WARMUP + RUNS; r++)); do
	timed=timed
	((r < WARMUP)) && timed=
	for i in "${!bins[@]}"; do
		if ((r % 2 == 0)); then run "$i" mcp "$timed"; run "$i" pull "$timed"; else run "$i" pull "$timed"; run "$i" mcp "$timed"; fi
	done
done
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
printf '%-40s %9s %9s %9s %9s %14s\n' "$SKILLS skills of $SIZE B, $RUNS runs" "mcp wall" "pull wall" "mcp CPU" "pull CPU" "ratio (wall)"
for i in "${!bins[@]}"; do
	mw=$(awk '{print $3}' "$work/times.$i.mcp" | median)
	pw=$(awk '{print $3}' "$work/times.$i.pull" | median)
	mc=$(awk '{print $1 + $2}' "$work/times.$i.mcp" | median)
	pc=$(awk '{print $1 + $2}' "$work/times.$i.pull" | median)
	ratio=$(paste "$work/times.$i.mcp" "$work/times.$i.pull" | awk '$6 > 0 {print $3 / $6}' | median)
	printf '%-40s %9.3f %9.3f %9.2f %9.2f %14.2f\n' "${bins[$i]}" "$mw" "$pw" "$mc" "$pc" "$ratio"
done
