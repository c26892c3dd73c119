#!/usr/bin/env bash
# bench/compare.sh: stax against the tools it should keep up with, on the
# same generated data, runs alternating, medians compared as ratios.
#
#   STAX=bin/stax bash bench/compare.sh            # the issue's full sizes
#   STAX=bin/stax SKILLS=500 PKGS=4 PKG_SKILLS=250 RUNS=3 bash bench/compare.sh
#   SKILLS_SMALL=0 ...                             # without the memory ratio rows
#   PKG_SIZE=7000 ...                              # smaller skills in the packages
#
# A BENCH_DIR keeps the data it was first given: change SKILLS, PKGS,
# PKG_SKILLS or PKG_SIZE with a new one.
#
# Rows: pack SKILLS skills vs tar --sort=name | gzip -6; install PKGS
# packages of PKG_SKILLS skills each (overlapping by half) fresh on tmpfs
# (/dev/shm) and on the disk of BENCH_DIR vs tar -xzf of each package in
# order; an unchanged re-install; peak RSS of validate, pack, install and
# a first push DIR (to Debian's docker-registry on loopback when it is
# installed, else to an OCI layout) at SKILLS against SKILLS_SMALL skills,
# and of the layered install;
# pull -o of the SKILLS-skill package from docker-registry, on tmpfs and on
# disk, vs crane blob | tar -xzf (crane built from the go-containerregistry
# module in go.mod).
set -euo pipefail

STAX=${STAX:-bin/stax}
STAX=$(realpath "$STAX")
SKILLS=${SKILLS:-5000}
SKILLS_SMALL=${SKILLS_SMALL:-500}
PKGS=${PKGS:-20}
PKG_SKILLS=${PKG_SKILLS:-1000}
PKG_SIZE=${PKG_SIZE:-0} # bytes per skill in the packages; 0 is the generator's 70 KB
RUNS=${RUNS:-5}
BENCH_DIR=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/stax-bench.XXXXXX")}
SHM=${SHM:-/dev/shm}
here=$(cd "$(dirname "$0")" && pwd)
export STAX_HOME=$BENCH_DIR/home SOURCE_DATE_EPOCH=0

gen() { (cd "$here/.." && go run ./bench/gen "$@"); }

# Data, generated once per BENCH_DIR.
if [ ! -d "$BENCH_DIR/lib" ]; then
	gen -dir "$BENCH_DIR/lib" -count "$SKILLS"
	for ((i = 0; i < PKGS; i++)); do
		gen -dir "$BENCH_DIR/pkgsrc/p$i" -first $((i * PKG_SKILLS / 2)) -count "$PKG_SKILLS" -variant "$i" -size "$PKG_SIZE"
	done
fi
if ((SKILLS_SMALL > 0)) && [ ! -d "$BENCH_DIR/lib-small" ]; then
	gen -dir "$BENCH_DIR/lib-small" -count "$SKILLS_SMALL"
fi
sources=()
for ((i = 0; i < PKGS; i++)); do
	if [ ! -d "$BENCH_DIR/layouts/p$i" ]; then
		"$STAX" pack --max-size 0 "$BENCH_DIR/pkgsrc/p$i" --name "p$i" --version 1.0.0 -t "oci:$BENCH_DIR/layouts/p$i:1.0.0" >/dev/null
		tar --sort=name -C "$BENCH_DIR/pkgsrc/p$i" -cf - . | gzip -6 >"$BENCH_DIR/layouts/p$i.tgz"
	fi
	sources+=("oci:$BENCH_DIR/layouts/p$i:1.0.0")
done

now() { date +%s.%N; }
# seconds CMD...: wall time of one run.
seconds() { local s; s=$(now); "$@" >/dev/null 2>&1; printf '%.3f' "$(echo "$(now) - $s" | bc)"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { printf '%.2f' "$(echo "scale=4; $1 / $2" | bc)"; }
# peak CMD...: peak resident set of one run, in MiB.
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'; }

row() { printf '%-56s %10s %10s %8s\n' "$@"; }
row metric "stax" "baseline" "ratio"

# pack
stax_pack() { rm -rf "$BENCH_DIR/packout"; "$STAX" pack --max-size 0 "$BENCH_DIR/lib" --name lib --version 1.0.0 -t "oci:$BENCH_DIR/packout:1"; }
tar_pack() { tar --sort=name -C "$BENCH_DIR/lib" -cf - . | gzip -6 >"$BENCH_DIR/lib.tgz"; }
a=(); b=()
for ((r = 0; r < RUNS; r++)); do a+=("$(seconds stax_pack)"); b+=("$(seconds tar_pack)"); done
sa=$(printf '%s\n' "${a[@]}" | median); sb=$(printf '%s\n' "${b[@]}" | median)
row "pack $SKILLS skills (s) vs tar|gzip -6" "$sa" "$sb" "$(ratio "$sa" "$sb")"

# install, fresh and unchanged, on tmpfs and on disk
# settle DIR WHERE: DIR ready for a timed run, outside the timing, with no
# dirty pages of the run before left to slow it down. On tmpfs each run
# starts from an empty DIR; on a disk each run writes a directory of its
# own under DIR, all removed when the script ends (about 3 GB a run of
# the install rows, 1 GB of the pull rows): ext4 without a journal, as on this project's machine,
# skips the inodes freed in the last minute on every inode it allocates,
# and removing one run's tree just before the next made that one 2-4 times
# slower, more from run to run, whichever tool it was.
settle() { if [ "$2" = tmpfs ]; then rm -rf "$1"; fi; mkdir -p "$1"; sync; }
# done_with DIR WHERE: a row's DIR is removed now on tmpfs, and on a disk
# when the script ends, so that no timed row follows the removal.
leftovers=()
done_with() { if [ "$2" = tmpfs ]; then rm -rf "$1"; else leftovers+=("$1"); fi; }
cleanup() { if ((${#leftovers[@]})); then rm -rf "${leftovers[@]}"; fi; }
trap cleanup EXIT

install_rows() {
	local dir=$1/stax-bench-install label=$2 a=() b=() c=() r sa sb sc
	stax_install() { "$STAX" install --max-size 0 --dir "$dir/stax-$r" "${sources[@]}"; }
	tar_install() { for ((i = 0; i < PKGS; i++)); do tar -xzf "$BENCH_DIR/layouts/p$i.tgz" -C "$dir/tar-$r"; done; }
	rm -rf "$dir"
	for ((r = 0; r < RUNS; r++)); do
		settle "$dir" "$label" && mkdir "$dir/stax-$r"; a+=("$(seconds stax_install)")
		sync; c+=("$(seconds stax_install)")
		settle "$dir" "$label" && mkdir "$dir/tar-$r"; b+=("$(seconds tar_install)")
	done
	done_with "$dir" "$label"
	sa=$(printf '%s\n' "${a[@]}" | median); sb=$(printf '%s\n' "${b[@]}" | median); sc=$(printf '%s\n' "${c[@]}" | median)
	row "install ${PKGS}x$PKG_SKILLS fresh, $label (s) vs tar -xzf" "$sa" "$sb" "$(ratio "$sa" "$sb")"
	row "  unchanged re-install, $label (s)" "$sc" "-" "-"
}
if [ -d "$SHM" ] && [ -w "$SHM" ]; then install_rows "$SHM" tmpfs; fi
install_rows "$BENCH_DIR" disk

# peak memory
# A push goes to Debian's docker-registry on loopback when it is
# installed, each to a new repository; else to an OCI layout.
if [ -x "${DOCKER_REGISTRY:-/usr/bin/docker-registry}" ]; then
	work=$BENCH_DIR/registry
	mkdir -p "$work"
	fail() { echo "compare.sh: $*" >&2; exit 1; }
	# shellcheck source=../test/e2e/lib/registry.sh
	. "$here/../test/e2e/lib/registry.sh"
	start_registry >/dev/null
	trap 'stop_registry; cleanup' EXIT
	push_label=registry
	push_target() { echo "127.0.0.1:$port/bench/$1-$(date +%s%N):1.0.0"; }
else
	push_label="OCI layout"
	push_target() { rm -rf "$BENCH_DIR/pushout"; echo "oci:$BENCH_DIR/pushout:1.0.0"; }
fi
# The memory rows install on tmpfs when there is one: removing their
# files from a disk would slow the disk rows that follow.
proj="$BENCH_DIR/stax-bench-proj"
if [ -d "$SHM" ] && [ -w "$SHM" ]; then proj="$SHM/stax-bench-proj"; fi
libs=(lib)
if ((SKILLS_SMALL > 0)); then libs+=(lib-small); fi
for lib in "${libs[@]}"; do
	if [ ! -d "$BENCH_DIR/layouts/$lib" ]; then
		"$STAX" pack --max-size 0 "$BENCH_DIR/$lib" --name "$lib" --version 1.0.0 -t "oci:$BENCH_DIR/layouts/$lib:1.0.0" >/dev/null
	fi
done
# peak_of OP LIB: the peak RSS of one run of OP on LIB, from a clean state.
peak_of() {
	local lib=$BENCH_DIR/$2
	case $1 in
	validate) peak "$STAX" validate "$lib" ;;
	pack) rm -rf "$BENCH_DIR/packout" && peak "$STAX" pack --max-size 0 "$lib" --name lib --version 1.0.0 -t "oci:$BENCH_DIR/packout:1" ;;
	install) rm -rf "$proj" && mkdir -p "$proj" && peak "$STAX" install --max-size 0 --dir "$proj" "oci:$BENCH_DIR/layouts/$2:1.0.0" ;;
	push) peak "$STAX" push --max-size 0 "$lib" "$(push_target "$2")" ;;
	esac
}
# Memory flat in the number of skills: each operation on SKILLS skills,
# and on SKILLS_SMALL, RUNS times in alternation; the ratio is SKILLS's
# median peak over SKILLS_SMALL's.
for op in validate pack install push; do
	a=(); b=()
	for ((r = 0; r < RUNS; r++)); do
		a+=("$(peak_of "$op" lib)")
		if ((SKILLS_SMALL > 0)); then b+=("$(peak_of "$op" lib-small)"); fi
	done
	label="peak RSS $op $SKILLS skills"
	[ "$op" = push ] && label="peak RSS push DIR $SKILLS skills, $push_label"
	sa=$(printf '%s\n' "${a[@]}" | median)
	if ((SKILLS_SMALL > 0)); then
		sb=$(printf '%s\n' "${b[@]}" | median)
		row "$label vs $SKILLS_SMALL (MiB)" "$sa" "$sb" "$(ratio "$sa" "$sb")"
	else
		row "$label (MiB)" "$sa" "-" "-"
	fi
done
rm -rf "$proj" && mkdir -p "$proj"
row "peak RSS install ${PKGS}x$PKG_SKILLS (MiB)" "$(peak "$STAX" install --max-size 0 --dir "$proj" "${sources[@]}")" "-" "-"
rm -rf "$proj"

# pull -o of the SKILLS-skill package against crane blob | tar -xzf, from
# the docker-registry of the push rows, into tmpfs and onto the disk of
# BENCH_DIR; crane is built from the module stax requires. Each stax run
# has a new local store (beside its output), so that the layer is fetched.
pull_rows() {
	local ref=127.0.0.1:$port/bench/pull:1.0.0 digest
	(cd "$here/.." && go build -o "$BENCH_DIR/crane" github.com/google/go-containerregistry/cmd/crane)
	digest=$("$STAX" push --max-size 0 "oci:$BENCH_DIR/layouts/lib:1.0.0" "$ref" --output json | tr -d ' \n' |
		sed -n 's/.*"layers":\[{[^}]*"digest":"\(sha256:[0-9a-f]*\)".*/\1/p')
	[ -n "$digest" ] || fail "no layer digest in the output of stax push"
	if [ -d "$SHM" ] && [ -w "$SHM" ]; then pull_row "$SHM" tmpfs; fi
	pull_row "$BENCH_DIR" disk
}
pull_row() {
	local dir=$1/stax-bench-pull a=() b=() sa sb r
	stax_pull() { STAX_HOME=$dir/home-$r "$STAX" pull --max-size 0 "$ref" -o "$dir/stax-$r"; }
	crane_pull() { mkdir "$dir/crane-$r" && "$BENCH_DIR/crane" blob "${ref%:*}@$digest" | tar -xzf - -C "$dir/crane-$r"; }
	rm -rf "$dir"
	for ((r = 0; r < RUNS; r++)); do
		settle "$dir" "$2"; a+=("$(seconds stax_pull)")
		settle "$dir" "$2"; b+=("$(seconds crane_pull)")
	done
	done_with "$dir" "$2"
	sa=$(printf '%s\n' "${a[@]}" | median); sb=$(printf '%s\n' "${b[@]}" | median)
	row "pull -o $SKILLS skills, $2 (s) vs crane|tar" "$sa" "$sb" "$(ratio "$sa" "$sb")"
}
if [ "$push_label" = registry ]; then
	pull_rows
else
	echo "pull -o vs crane: skipped (docker-registry not installed)"
fi
echo "data: $BENCH_DIR (remove it when done)"
