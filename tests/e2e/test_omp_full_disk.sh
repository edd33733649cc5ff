#!/usr/bin/env bash
# An OpenMP program recorded onto a full disk (a small tmpfs, filled but for a few pages, as the
# experiment directory): the program runs to its end with its own output, its streams are lost,
# and `report --openmp` says so in every format, the text report too (it printed nothing but
# "no OpenMP records" on stderr, as if the program had not used OpenMP). Needs root (mount).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

[ -x "$EX/omp_tri" ] || skip "examples/omp_tri was not built (no OpenMP compiler)"
[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
mkdir -p "$T/small"
mount -t tmpfs -o size=256k tmpfs "$T/small" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount "$T/small" 2>/dev/null || true; _psc_on_exit' EXIT
# room for the directory, meta.json, the maps and the process's file, not for a stream chunk
dd if=/dev/zero of="$T/small/filler" bs=4k count=50 2>/dev/null

OMP_NUM_THREADS=2 "$EX/omp_tri" 3000 >"$T/ref.out"
d=$T/small/exp
run rec env OMP_NUM_THREADS=2 "$PERFSCOPE" record -o "$d" -- "$EX/omp_tri" 3000
expect_eq 0 "$RC" "record on a full disk: exit status of omp_tri"
expect_eq "$(grep -c '^threads 2 rows 3000' "$T/ref.out")" \
	"$(grep -c '^threads 2 rows 3000' "$T/rec.out")" "omp_tri's own output"

run rep "$PERFSCOPE" report "$d" --openmp
expect_eq 0 "$RC" "report --openmp of the experiment on a full disk"
expect_grep "no OpenMP record could be read (the experiment's caveats below say what was lost)" \
	"$T/rep.err" "report --openmp: no OpenMP records were kept, and why"
expect_no_grep "built with -fopenmp" "$T/rep.err" "report --openmp: the build is not blamed"
expect_grep "bytes of chunks lost" "$T/rep.out" "report --openmp (text): what was lost"
run csv "$PERFSCOPE" report "$d" --openmp --format csv
expect_grep "bytes of chunks lost" "$T/csv.err" "report --openmp (csv): how much, on stderr"
finish
