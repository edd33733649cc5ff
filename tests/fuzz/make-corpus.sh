#!/usr/bin/env bash
# make-corpus.sh BUILD_DIR - regenerate the seed corpus tests/fuzz/corpus/ (committed).
#
# Seeds: the synthetic streams of gen_corpus.py, and the streams of real runs of the examples
# under `perfscope record` (regions with counters on two threads; function tracing when the
# build has it). Streams over 16 KiB are skipped so that the corpus stays small. The
# regression seeds (regress-*: inputs a fuzz target once failed on) are kept.
set -euo pipefail

build=${1:?usage: make-corpus.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/corpus
perfscope=$build/perfscope
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT

rm -f -- "$corpus"/gen-* "$corpus"/real-*
mkdir -p "$corpus"
python3 "$here/gen_corpus.py" "$corpus"

# take NAME DIR: copy DIR's streams into the corpus as real-NAME-1, real-NAME-2, ...
take() {
	local name=$1 dir=$2 i=0 s
	for s in "$dir"/stream.*; do
		[ -f "$s" ] || continue
		[ "$(wc -c <"$s")" -le 16384 ] || continue
		i=$((i + 1))
		cp -- "$s" "$corpus/real-$name-$i"
	done
}

"$perfscope" record -o "$tmp/threads" -e page-faults,task-clock -- \
	"$build/examples/threads" 10 >/dev/null
take threads "$tmp/threads"
"$perfscope" record -o "$tmp/loop" -- "$build/examples/loop_order" 64 >/dev/null
take loop_order "$tmp/loop"
if "$perfscope" record --help 2>&1 | grep -q -- --functions && [ -x "$build/examples/fib" ]; then
	"$perfscope" record --functions -o "$tmp/fib" -- "$build/examples/fib" 5 >/dev/null
	take fib "$tmp/fib"
fi
# compressed chunks (stream version 2): gauss_jordan's chunks of 64 KiB compress to about
# 20 KiB; the first 24 KiB hold one whole compressed chunk and one cut short
if [ -x "$build/examples/gauss_jordan" ]; then
	"$perfscope" record --functions --buffer-size 64K -o "$tmp/gj" -- \
		"$build/examples/gauss_jordan" 600 >/dev/null
	for s in "$tmp/gj"/stream.*; do
		head -c 24576 "$s" >"$corpus/real-gj-compressed-1"
	done
fi
# MPI records (enter, leave with items of every kind, communicators, clock records) when the
# build has MPI: small runs of the MPI examples, every rank's streams
if [ -f "$build/libperfscope-mpi.so" ] && command -v mpirun >/dev/null 2>&1; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1
	mex=$build/examples/mpi
	"$perfscope" record --mpi --load=0 -o "$tmp/mpi-cancel" -- mpirun -np 2 "$mex/cancel" >/dev/null
	take mpi-cancel "$tmp/mpi-cancel"
	"$perfscope" record --mpi --load=0 -o "$tmp/mpi-errret" -- mpirun -np 2 "$mex/errret" >/dev/null
	take mpi-errret "$tmp/mpi-errret"
	"$perfscope" record --mpi --load=0 -o "$tmp/mpi-inter" -- mpirun -np 4 "$mex/intercomm" >/dev/null
	take mpi-intercomm "$tmp/mpi-inter"
	"$perfscope" record --mpi --load=0 -o "$tmp/mpi-more" -- mpirun -np 4 "$mex/calls_more" >/dev/null
	take mpi-calls_more "$tmp/mpi-more"
fi
du -b -s "$corpus"
