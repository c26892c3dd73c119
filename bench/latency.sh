#!/usr/bin/env bash
# bench/latency.sh: stax against oras when every request to the registry
# costs a round trip. Debian's docker-registry on loopback, with
# bench/latency (a reverse proxy that delays each request by DELAY and counts
# them) in front of it; PKGS packages of PKG_SKILLS skills of about
# SKILL_SIZE bytes each (0: bench/gen's default, 70 kB, which makes the
# 40 MB set of ten packages of 50; 2000 makes small packages) are pushed
# to the registry directly, then every row pulls them through the proxy.
#
#   STAX=bin/stax bash bench/latency.sh
#   STAX=bin/stax PKGS=10 PKG_SKILLS=50 DELAY=50ms RUNS=3 bash bench/latency.sh
#   STAX=bin/stax SKILL_SIZE=2000 bash bench/latency.sh   # small skills
#
# Rows (median wall time of RUNS, requests the proxy saw in one run, ratio
# to the parallel oras pull): stax install of the PKGS references with a
# cold store, at the default --concurrency and with --concurrency PKGS (as
# many packages at once as the parallel oras pulls), and with
# --concurrency PKGS from a stax.yaml declaring them in version ranges
# with no stax.lock (tags listed first); stax install --frozen from that
# install's stax.yaml and stax.lock with the store already holding them;
# stax pull -o of each, one after another, and of all of them in one
# command with --concurrency PKGS; oras pull of each, one after another,
# all at once, and all at once with each layer then unpacked by tar -xzf
# (what installing with oras takes). oras is the version the Makefile
# pins, built into bin/tools on first use. A second table times stax
# outdated over a project naming OUTDATED_REPOS repositories in ranges
# (each holding 1.0.0, 1.1.0 and 2.0.0, pushed directly; the project
# locked at 1.1.0), in requests and in round trips (wall time over DELAY).
#
# The rows' runs are interleaved: RUNS rounds each run every row once,
# each round starting one row further on, after WARMUP rounds (1) that are
# not timed. Run one row after another, a row paid for where it stood: the
# first, just after the setup, took 0.50 s where the same install run
# second took 0.34 s, and a slow minute of a shared machine fell on one
# row alone (docs/performance.md).
# SHOW_REQUESTS=1 lists the requests of each row's last run after the
# tables, SHOW_RUNS=1 each row's wall times, in the order they ran.
set -euo pipefail

fail() { echo "latency: FAIL: $*" >&2; exit 1; }
STAX=${STAX:-bin/stax}
[ -x "$STAX" ] && [ -f "$STAX" ] || fail "no stax binary at $STAX (make build, or set STAX)"
STAX=$(realpath "$STAX")
PKGS=${PKGS:-10}
PKG_SKILLS=${PKG_SKILLS:-50}
SKILL_SIZE=${SKILL_SIZE:-0}
DELAY=${DELAY:-50ms}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-1}
OUTDATED_REPOS=${OUTDATED_REPOS:-20}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/stax-latency.XXXXXX")
export SOURCE_DATE_EPOCH=0 DOCKER_CONFIG=$work/docker
mkdir -p "$DOCKER_CONFIG"

proxy_pid=
# The tools' notices go to $work/stderr.log, shown when the bench fails.
cleanup() {
	local status=$?
	if ((status != 0)) && [ -s "$work/stderr.log" ]; then
		echo "--- last lines of the tools' stderr:" >&2
		tail -n 20 "$work/stderr.log" >&2
	fi
	[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null
	stop_registry
	rm -rf "$work"
}
# shellcheck source=../test/e2e/lib/registry.sh
. "$here/../test/e2e/lib/registry.sh"
trap cleanup EXIT
start_registry >/dev/null

(cd "$here/.." && go build -o "$work/latency" ./bench/latency) || fail "cannot build bench/latency"
# shellcheck source=../test/e2e/lib/tools.sh
. "$here/../test/e2e/lib/tools.sh"
ORAS_VERSION=$(tool_version oras)
ORAS=$(tool oras) || fail "cannot build oras $ORAS_VERSION from the Go module proxy"

"$work/latency" -log -target "http://127.0.0.1:$port" -delay "$DELAY" >"$work/proxy.out" 2>"$work/proxy.log" &
proxy_pid=$!
proxy=
for _ in $(seq 100); do
	proxy=$(head -n 1 "$work/proxy.out")
	[ -n "$proxy" ] && break
	sleep 0.1
done
[ -n "$proxy" ] || fail "bench/latency did not print its address"

# requests: the proxy's count so far (plain bash, no curl needed).
requests() {
	local line body=
	exec 3<>"/dev/tcp/${proxy%:*}/${proxy##*:}"
	printf 'GET /_count HTTP/1.0\r\nHost: %s\r\n\r\n' "$proxy" >&3
	while IFS= read -r line <&3; do body=$line; done
	exec 3<&-
	echo "${body%$'\r'}"
}

refs=()
printf 'install:\n  sources:\n' >"$work/ranged.yaml"
for ((i = 0; i < PKGS; i++)); do
	(cd "$here/.." && go run ./bench/gen -dir "$work/src/p$i" -first $((i * PKG_SKILLS)) -count "$PKG_SKILLS" -size "$SKILL_SIZE" -variant "$i")
	STAX_HOME=$work/push-home "$STAX" push --max-size 0 "$work/src/p$i" "127.0.0.1:$port/bench/p$i:1.0.0" >/dev/null 2>>"$work/stderr.log"
	refs+=("$proxy/bench/p$i:1.0.0")
	printf '    - {ref: %s/bench/p%s, version: ^1.0.0}\n' "$proxy" "$i" >>"$work/ranged.yaml"
done

# The outdated project: OUTDATED_REPOS repositories of one small package
# at three versions, pushed directly; the project names each through the
# proxy in the range ^1.0.0, and its install (through the proxy, before
# any row) locks 1.1.0.
outdated_proj=$work/outdated-proj
mkdir -p "$outdated_proj"
printf 'install:\n  sources:\n' >"$outdated_proj/stax.yaml"
for ((i = 0; i < OUTDATED_REPOS; i++)); do
	for v in 1.0.0 1.1.0 2.0.0; do
		src=$work/outdated-src/o$i-$v
		mkdir -p "$src/skills/o$i"
		printf 'name: o%s\nversion: %s\n' "$i" "$v" >"$src/stax.yaml"
		printf -- '---\nname: o%s\ndescription: Says its version. Use when timing outdated.\n---\no%s %s\n' "$i" "$i" "$v" >"$src/skills/o$i/SKILL.md"
		STAX_HOME=$work/push-home "$STAX" push "$src" "127.0.0.1:$port/bench/o$i:$v" >/dev/null 2>>"$work/stderr.log"
	done
	printf '    - {ref: %s/bench/o%s, version: ^1.0.0}\n' "$proxy" "$i" >>"$outdated_proj/stax.yaml"
done
(cd "$outdated_proj" && STAX_HOME=$work/outdated-home "$STAX" install --runtime claude-code >/dev/null 2>>"$work/stderr.log") ||
	fail "cannot install the outdated project"

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# Each job runs in a fresh directory $run (and a fresh store where the row
# says cold); prepare, when set, runs before the clock starts.
job_install() {
	export STAX_HOME=$run/home
	(cd "$run/proj" && "$STAX" install "${refs[@]}" >/dev/null)
}
prepare_frozen() {
	export STAX_HOME=$run/home
	(cd "$run/proj" && "$STAX" install "${refs[@]}" >/dev/null)
	mkdir "$run/proj2" && cp "$run/proj/stax.yaml" "$run/proj/stax.lock" "$run/proj2/"
}
job_frozen() { (cd "$run/proj2" && "$STAX" install --frozen >/dev/null); }
job_stax_pull() {
	export STAX_HOME=$run/home
	local i
	for ((i = 0; i < PKGS; i++)); do "$STAX" pull "${refs[i]}" -o "$run/out/p$i" >/dev/null; done
}
# One stax pull -o of all of them, as many at once as the parallel oras
# pulls: their skills merged into one directory.
job_stax_pull_all() {
	export STAX_HOME=$run/home
	"$STAX" pull --concurrency "$PKGS" -o "$run/out/all" "${refs[@]}" >/dev/null
}
# stax outdated reads stax.yaml and stax.lock and changes nothing, so
# every run asks about the same project.
job_outdated() { STAX_HOME=$run/home "$STAX" outdated --dir "$outdated_proj" >/dev/null; }
job_oras_serial() {
	local i
	for ((i = 0; i < PKGS; i++)); do "$ORAS" pull --plain-http -o "$run/out/p$i" "${refs[i]}" >/dev/null; done
}
job_oras_parallel() {
	local i pids=()
	for ((i = 0; i < PKGS; i++)); do
		"$ORAS" pull --plain-http -o "$run/out/p$i" "${refs[i]}" >/dev/null &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid"; done
}
# What a user of oras does to install the skills: each pull, then its
# layer unpacked, all at once.
job_oras_parallel_untar() {
	local i pids=()
	for ((i = 0; i < PKGS; i++)); do
		(cd "$run/out" && mkdir "p$i" && cd "p$i" &&
			"$ORAS" pull --plain-http "${refs[i]}" >/dev/null && tar -xzf skills.tar.gz && rm skills.tar.gz) &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid"; done
}
# The install asking for as many packages at once as the parallel oras
# pulls run.
job_install_wide() {
	export STAX_HOME=$run/home
	(cd "$run/proj" && "$STAX" install --concurrency "$PKGS" "${refs[@]}" >/dev/null)
}
# The same packages declared in version ranges, as stax add --version
# writes them, with no stax.lock yet: each repository's tags are listed
# before its package is looked up.
prepare_install_ranged() { cp "$work/ranged.yaml" "$run/proj/stax.yaml"; }
job_install_ranged() {
	export STAX_HOME=$run/home
	(cd "$run/proj" && "$STAX" install --concurrency "$PKGS" >/dev/null)
}

# run_once JOB R: run R of JOB, in a directory of its own, with its
# PREPARE (prepare_JOB, when defined) before the clock starts; appends
# its wall time to times[JOB] and sets reqs_of[JOB] to its requests. Each
# run starts with no dirty pages of the one before (sync), and leaves its
# directory for cleanup to remove when the script ends: ext4 without a
# journal skips the inodes freed in the last minute on every inode it
# allocates (see bench/compare.sh), so removing a run's tree just before
# the next made that one slower.
declare -A times reqs_of
run_once() {
	local t0 before logged
	run=$work/run-$1-$2
	mkdir -p "$run/proj" "$run/out"
	if declare -F "prepare_${1#job_}" >/dev/null; then "prepare_${1#job_}" 2>>"$work/stderr.log"; fi
	sync
	before=$(requests) logged=$(wc -l <"$work/proxy.log")
	t0=$(now)
	"$1" 2>>"$work/stderr.log"
	times[$1]+="$(echo "$(now) - $t0" | bc) "
	reqs_of[$1]=$(($(requests) - before))
	tail -n +$((logged + 1)) "$work/proxy.log" >"$work/requests-$1"
}
# measure JOB...: WARMUP rounds, untimed, then RUNS rounds, each running
# one run of every JOB in turn, each round starting one JOB further on, so
# that a row's runs are spread over the whole measurement and none always
# follows the same row (see the header). result JOB then sets $wall
# (median seconds) and $reqs (requests of the last run) for JOB. The
# warm-up: in one session on a shared machine, the first run of each of
# the first six rows, all within 15 s of the setup, took 2-4 times as long
# as its others.
measure() {
	local r k jobs=("$@")
	for ((r = -WARMUP; r < RUNS; r++)); do
		for ((k = 0; k < ${#jobs[@]}; k++)); do
			run_once "${jobs[(k + r + WARMUP) % ${#jobs[@]}]}" "$r"
		done
		((r >= 0)) || for k in "${jobs[@]}"; do times[$k]=; done
	done
}
result() {
	wall=$(printf '%s\n' ${times[$1]} | median) reqs=${reqs_of[$1]}
}

echo "latency: $("$STAX" version 2>/dev/null | head -n 1), oras $ORAS_VERSION, $("${DOCKER_REGISTRY:-/usr/bin/docker-registry}" --version)"
echo "latency: $PKGS packages of $PKG_SKILLS skills of $(du -sh "$work/src" | cut -f1) in all, $DELAY per request, median of $RUNS, $(nproc) cores"
rows=(job_install job_install_wide job_install_ranged job_frozen job_stax_pull job_stax_pull_all job_oras_serial job_oras_parallel_untar)
measure job_oras_parallel "${rows[@]}"
result job_oras_parallel
base=$wall base_reqs=$reqs
declare -A label=(
	[job_install]="stax install of the $PKGS references, cold store"
	[job_install_wide]="stax install --concurrency $PKGS, cold store"
	[job_install_ranged]="stax install --concurrency $PKGS of them declared in ranges (^1.0.0), no lock, cold store"
	[job_oras_parallel_untar]="oras pull of each, all at once, each layer then unpacked (tar -xzf)"
	[job_frozen]="stax install --frozen, store holding them"
	[job_stax_pull]="stax pull -o of each, one after another"
	[job_stax_pull_all]="stax pull --concurrency $PKGS -o of all of them, one command"
	[job_oras_serial]="oras pull of each, one after another"
	[job_oras_parallel]="oras pull of each, all at once"
)
printf '| %s | %s | %s | %s |\n|---|---|---|---|\n' job "wall (s)" requests "vs parallel oras"
row() { printf '| %s | %.2f | %s | %.2f× |\n' "${label[$1]}" "$wall" "$reqs" "$(echo "$wall / $base" | bc -l)"; }
for job in "${rows[@]}"; do
	result "$job"
	row "$job"
done
wall=$base reqs=$base_reqs
row job_oras_parallel

# seconds: DELAY (such as 50ms or 0.05s) in seconds.
seconds() {
	case $1 in
	*ms) echo "${1%ms} / 1000" | bc -l ;;
	*s) echo "${1%s}" ;;
	*) fail "DELAY $1: give it in ms or s" ;;
	esac
}
label[job_outdated]="stax outdated over $OUTDATED_REPOS repositories"
echo
printf '| %s | %s | %s | %s |\n|---|---|---|---|\n' job "wall (s)" requests "round trips (wall / $DELAY)"
measure job_outdated
result job_outdated
printf '| %s | %.2f | %s | %.1f |\n' "${label[job_outdated]}" "$wall" "$reqs" "$(echo "$wall / $(seconds "$DELAY")" | bc -l)"
if [ "${SHOW_RUNS:-}" = 1 ]; then
	for job in job_oras_parallel "${rows[@]}" job_outdated; do
		echo "runs of: ${label[$job]}: ${times[$job]}"
	done
fi
if [ "${SHOW_REQUESTS:-}" = 1 ]; then
	for job in job_install job_install_wide job_install_ranged job_frozen job_stax_pull job_stax_pull_all job_oras_serial job_oras_parallel job_oras_parallel_untar job_outdated; do
		echo "requests of one run of: ${label[$job]}"
		sed 's/sha256:\([0-9a-f]\{12\}\)[0-9a-f]*/sha256:\1…/; s/^/  /' "$work/requests-$job"
	done
fi
