#!/usr/bin/env bash
# bench/compare.sh: stax against the tools it should keep up with, on the
# same generated data, runs alternating, medians compared as ratios.
#
#   STAX=bin/stax bash bench/compare.sh            # the issue's full sizes
#   STAX=bin/stax SKILLS=500 PKGS=4 PKG_SKILLS=250 RUNS=3 bash bench/compare.sh
#   SKILLS_SMALL=0 ...                             # without the memory ratio rows
#
# Rows: pack SKILLS skills vs tar --sort=name | gzip -6; install PKGS
# packages of PKG_SKILLS skills each (overlapping by half) fresh on tmpfs
# (/dev/shm) and on the disk of BENCH_DIR vs tar -xzf of each package in
# order; an unchanged re-install; peak RSS of validate, pack and install;
# peak RSS of validate and pack at SKILLS against SKILLS_SMALL skills;
# pull -o vs crane blob | tar -xzf when crane is installed.
set -euo pipefail

STAX=${STAX:-bin/stax}
STAX=$(realpath "$STAX")
SKILLS=${SKILLS:-5000}
SKILLS_SMALL=${SKILLS_SMALL:-500}
PKGS=${PKGS:-20}
PKG_SKILLS=${PKG_SKILLS:-1000}
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
		gen -dir "$BENCH_DIR/pkgsrc/p$i" -first $((i * PKG_SKILLS / 2)) -count "$PKG_SKILLS" -variant "$i"
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

row() { printf '%-44s %10s %10s %8s\n' "$@"; }
row metric "stax" "baseline" "ratio"

# pack
stax_pack() { rm -rf "$BENCH_DIR/packout"; "$STAX" pack --max-size 0 "$BENCH_DIR/lib" --name lib --version 1.0.0 -t "oci:$BENCH_DIR/packout:1"; }
tar_pack() { tar --sort=name -C "$BENCH_DIR/lib" -cf - . | gzip -6 >"$BENCH_DIR/lib.tgz"; }
a=(); b=()
for ((r = 0; r < RUNS; r++)); do a+=("$(seconds stax_pack)"); b+=("$(seconds tar_pack)"); done
sa=$(printf '%s\n' "${a[@]}" | median); sb=$(printf '%s\n' "${b[@]}" | median)
row "pack $SKILLS skills (s) vs tar|gzip -6" "$sa" "$sb" "$(ratio "$sa" "$sb")"

# install, fresh and unchanged, on tmpfs and on disk
install_rows() {
	local where=$1 label=$2 proj="$1/stax-bench-proj" out="$1/stax-bench-tar"
	stax_install() { rm -rf "$proj"; mkdir -p "$proj"; "$STAX" install --max-size 0 --dir "$proj" "${sources[@]}"; }
	tar_install() {
		rm -rf "$out"; mkdir -p "$out"
		for ((i = 0; i < PKGS; i++)); do tar -xzf "$BENCH_DIR/layouts/p$i.tgz" -C "$out"; done
	}
	local a=() b=() c=()
	for ((r = 0; r < RUNS; r++)); do
		a+=("$(seconds stax_install)")
		c+=("$(seconds "$STAX" install --max-size 0 --dir "$proj" "${sources[@]}")")
		b+=("$(seconds tar_install)")
	done
	local sa sb sc
	sa=$(printf '%s\n' "${a[@]}" | median); sb=$(printf '%s\n' "${b[@]}" | median); sc=$(printf '%s\n' "${c[@]}" | median)
	row "install ${PKGS}x$PKG_SKILLS fresh, $label (s) vs tar -xzf" "$sa" "$sb" "$(ratio "$sa" "$sb")"
	row "  unchanged re-install, $label (s)" "$sc" "-" "-"
	rm -rf "$proj" "$out"
}
if [ -d "$SHM" ] && [ -w "$SHM" ]; then install_rows "$SHM" tmpfs; fi
install_rows "$BENCH_DIR" disk

# peak memory
proj="$BENCH_DIR/stax-bench-proj"
rm -rf "$proj" && mkdir -p "$proj"
row "peak RSS validate $SKILLS skills (MiB)" "$(peak "$STAX" validate "$BENCH_DIR/lib")" "-" "-"
rm -rf "$BENCH_DIR/packout"
row "peak RSS pack $SKILLS skills (MiB)" "$(peak "$STAX" pack --max-size 0 "$BENCH_DIR/lib" --name lib --version 1.0.0 -t "oci:$BENCH_DIR/packout:1")" "-" "-"
# Memory flat in the number of skills: medians of RUNS runs at each size,
# in alternation; the ratio is SKILLS's peak over SKILLS_SMALL's.
if ((SKILLS_SMALL > 0)); then
	for op in validate pack; do
		a=(); b=()
		for ((r = 0; r < RUNS; r++)); do
			for lib in lib lib-small; do
				rm -rf "$BENCH_DIR/packout"
				args=(validate "$BENCH_DIR/$lib")
				[ "$op" = pack ] && args=(pack --max-size 0 "$BENCH_DIR/$lib" --name lib --version 1.0.0 -t "oci:$BENCH_DIR/packout:1")
				if [ "$lib" = lib ]; then a+=("$(peak "$STAX" "${args[@]}")"); else b+=("$(peak "$STAX" "${args[@]}")"); fi
			done
		done
		sa=$(printf '%s\n' "${a[@]}" | median); sb=$(printf '%s\n' "${b[@]}" | median)
		row "peak RSS $op $SKILLS vs $SKILLS_SMALL skills (MiB)" "$sa" "$sb" "$(ratio "$sa" "$sb")"
	done
fi
row "peak RSS install ${PKGS}x$PKG_SKILLS (MiB)" "$(peak "$STAX" install --max-size 0 --dir "$proj" "${sources[@]}")" "-" "-"
rm -rf "$proj"

# pull -o against crane, when crane is here and a registry can be started
if command -v crane >/dev/null && command -v docker-registry >/dev/null; then
	echo "pull: see bench/README (crane found; not automated in this version)"
else
	echo "pull -o vs crane: skipped (crane or docker-registry not installed)"
fi
echo "data: $BENCH_DIR (remove it when done)"
