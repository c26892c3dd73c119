#!/usr/bin/env bash
# bench/git.sh: stax installing skills straight from a git repository
# against git itself, served by git daemon on loopback, runs alternating,
# medians compared as ratios (issue 33's speed goals).
#
#   STAX=bin/stax bash bench/git.sh
#   STAX=bin/stax RUNS=3 MONO_SKILLS=200 bash bench/git.sh
#
# Rows:
# - install of a SKILLS-skill repository of about SKILL_SIZE bytes a skill
#   (17 x 740 kB: 12 MB, the size of anthropics/skills), a cold $STAX_HOME
#   each run, vs git clone --depth 1 + cp -r skills/* .claude/skills/
#   (goal: <= 1.2);
# - install of one skill of a MONO_SKILLS-skill monorepo vs a shallow
#   clone of the whole monorepo (goal: <= 0.3), and the bytes of git
#   objects each kept (the cache's packs against the clone's): about what
#   each fetched (goal: the skill's bytes, twice at most, plus trees);
# - install --frozen of the first row's project from a second clone of
#   it, the commit cached: its time, and the connections git daemon saw
#   (goal: 0).
set -euo pipefail

STAX=${STAX:-bin/stax}
if ! [ -x "$STAX" ] || ! [ -f "$STAX" ]; then
	echo "bench/git.sh: no stax binary at $STAX (make build, or set STAX)" >&2
	exit 1
fi
STAX=$(realpath "$STAX")
RUNS=${RUNS:-5}
SKILLS=${SKILLS:-17}
SKILL_SIZE=${SKILL_SIZE:-740000}
MONO_SKILLS=${MONO_SKILLS:-500}
MONO_SIZE=${MONO_SIZE:-20000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/stax-bench-git.XXXXXX")
# Neither the user's git settings nor the system's change what is timed.
export SOURCE_DATE_EPOCH=0 GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=$work/userhome
mkdir -p "$HOME"

daemon_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "bench/git.sh: $*" >&2; exit 1; }

gen() { (cd "$here/.." && go run ./bench/gen "$@"); }
# repo NAME COUNT SIZE: the bare repository NAME.git under $work/srv,
# COUNT generated skills of about SIZE bytes under skills/, in one commit
# tagged v1.0.0.
repo() {
	local tree=$work/tree-$1 git=(git --git-dir="$work/srv/$1.git" --work-tree="$work/tree-$1")
	gen -dir "$tree/skills" -count "$2" -size "$3"
	git init --quiet --bare --initial-branch=main "$work/srv/$1.git"
	"${git[@]}" add --all
	"${git[@]}" -c user.name=bench -c user.email=bench@example.com commit --quiet -m "$2 skills"
	"${git[@]}" tag v1.0.0
}
repo lib "$SKILLS" "$SKILL_SIZE"
repo mono "$MONO_SKILLS" "$MONO_SIZE"

# git daemon on a free loopback port, serving filters as hosting services
# do; --verbose logs each connection, which the frozen row counts.
for _ in 1 2 3 4 5; do
	port=$((20000 + RANDOM % 20000))
	git -c uploadpack.allowFilter=true -c uploadpack.allowReachableSHA1InWant=true daemon --verbose --export-all \
		--reuseaddr --base-path="$work/srv" --listen=127.0.0.1 --port="$port" "$work/srv" 2>"$work/daemon.log" &
	daemon_pid=$!
	for _ in $(seq 50); do
		grep -q "Ready to rumble" "$work/daemon.log" 2>/dev/null && break
		kill -0 "$daemon_pid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q "Ready to rumble" "$work/daemon.log" && break
	wait "$daemon_pid" 2>/dev/null || true
	daemon_pid=
done
[ -n "$daemon_pid" ] || fail "git daemon did not start"
base=git://127.0.0.1:$port
connections() { grep -c "Connection from" "$work/daemon.log" || true; }

now() { date +%s.%N; }
# seconds CMD...: wall time of one run, which must succeed.
seconds() {
	local s
	s=$(now)
	"$@" >/dev/null 2>"$work/run.err" || { cat "$work/run.err" >&2; fail "$* failed"; }
	printf '%.3f' "$(echo "$(now) - $s" | bc)"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { printf '%.2f' "$(echo "scale=4; $1 / $2" | bc)"; }
row() { printf '%-64s %10s %10s %8s\n' "$@"; }
bytes() { du -sb "$1" | cut -f1; }

mb=$(echo "scale=1; $(bytes "$work/tree-lib/skills") / 1000000" | bc)
row metric "stax" "baseline" "ratio"

# 1. The whole repository, cold.
stax_lib() { STAX_HOME=$work/home-lib-$r "$STAX" install --max-size 0 --runtime claude-code --dir "$work/proj-lib-$r" "$base/lib.git"; }
clone_lib() {
	git clone --quiet --depth 1 "$base/lib.git" "$work/clone-lib-$r" &&
		mkdir -p "$work/cp-lib-$r/.claude/skills" && cp -r "$work/clone-lib-$r"/skills/* "$work/cp-lib-$r/.claude/skills/"
}
a=(); b=()
for ((r = 0; r < RUNS; r++)); do
	mkdir -p "$work/proj-lib-$r"
	a+=("$(seconds stax_lib)"); b+=("$(seconds clone_lib)")
done
sa=$(printf '%s\n' "${a[@]}" | median); sb=$(printf '%s\n' "${b[@]}" | median)
row "install $SKILLS skills ($mb MB) from git, cold (s) vs clone --depth 1+cp" "$sa" "$sb" "$(ratio "$sa" "$sb")"

# 2. One skill of a monorepo.
one=$(cd "$work/tree-mono/skills" && ls | sed -n 43p)
stax_one() { STAX_HOME=$work/home-mono-$r "$STAX" install --max-size 0 --runtime claude-code --dir "$work/proj-mono-$r" "$base/mono.git//skills/$one"; }
clone_mono() { git clone --quiet --depth 1 "$base/mono.git" "$work/clone-mono-$r"; }
a=(); b=()
for ((r = 0; r < RUNS; r++)); do
	mkdir -p "$work/proj-mono-$r"
	a+=("$(seconds stax_one)"); b+=("$(seconds clone_mono)")
done
sa=$(printf '%s\n' "${a[@]}" | median); sb=$(printf '%s\n' "${b[@]}" | median)
row "install 1 skill of $MONO_SKILLS from git (s) vs clone --depth 1 of all" "$sa" "$sb" "$(ratio "$sa" "$sb")"
sa=$(bytes "$work/home-mono-0/git"); sb=$(bytes "$work/clone-mono-0/.git/objects")
row "  git objects kept (bytes) vs the clone's" "$sa" "$sb" "$(ratio "$sa" "$sb")"
row "  the skill's files (bytes)" "$(bytes "$work/tree-mono/skills/$one")" "-" "-"

# 3. A frozen re-install whose commit is cached: a second clone of the
# project (its stax.yaml and stax.lock), the same $STAX_HOME.
stax_frozen() { STAX_HOME=$work/home-lib-0 "$STAX" install --max-size 0 --frozen --dir "$work/frozen-$r"; }
a=(); before=$(connections)
for ((r = 0; r < RUNS; r++)); do
	mkdir -p "$work/frozen-$r" && cp "$work/proj-lib-0/stax.yaml" "$work/proj-lib-0/stax.lock" "$work/frozen-$r/"
	a+=("$(seconds stax_frozen)")
done
sa=$(printf '%s\n' "${a[@]}" | median)
row "install --frozen, commit cached (s)" "$sa" "-" "-"
row "  connections to git daemon in $RUNS runs" "$(($(connections) - before))" "-" "-"
