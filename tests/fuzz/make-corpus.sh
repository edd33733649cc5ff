#!/usr/bin/env bash
# make-corpus.sh BUILD_DIR - regenerate the seed corpora tests/fuzz/corpus*/ and the OTF2
# archive tests/fuzz/otf2-archive/ (committed).
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

# The other readers' seeds, from real experiments (small ones, cut where noted). Each corpus
# directory is rewritten; hand-made seeds (named hand-*) are kept.
fresh() {
	mkdir -p "$here/$1"
	find "$here/$1" -maxdepth 1 -type f ! -name 'hand-*' ! -name 'regress-*' -delete
}
export PERFSCOPE_CACHE_DIR=$tmp/cache
"$perfscope" record --sample --callgraph -o "$tmp/smp" -- "$build/examples/loop_order" 64 >/dev/null
meter=$tmp/meter.txt
for ((i = 0; i < 2000; i++)); do echo 50; done >"$meter"
"$perfscope" record --functions --power "file:$meter" --power-rate 20000 -o "$tmp/pw" -- \
	"$build/examples/fib" 5 >/dev/null

# maps: a process's map (cut to 8 KiB at a line end), and one with the snapshots dlopen adds
fresh corpus-maps
for d in threads fib smp; do
	m=$(ls "$tmp/$d"/maps.* | head -n 1)
	head -c 8192 "$m" | sed '$d' >"$here/corpus-maps/real-$d"
done
# kallsyms: the first and last 300 symbols (the modules' are at the end)
fresh corpus-kallsyms
if [ -f "$tmp/smp/kallsyms" ]; then
	head -n 300 "$tmp/smp/kallsyms" >"$here/corpus-kallsyms/real-head"
	tail -n 300 "$tmp/smp/kallsyms" >"$here/corpus-kallsyms/real-tail"
fi
# metric groups: the shipped ones
fresh corpus-metrics
for m in "$here/../../metrics"/*.metrics; do
	cp -- "$m" "$here/corpus-metrics/real-$(basename "$m" .metrics)"
done
# experiments: meta.json, a NUL, proc.<pid>.json with the pid made 1000 (fuzz_experiment.c)
fresh corpus-experiment
for d in threads fib smp pw; do
	p=$(ls "$tmp/$d"/proc.*.json | head -n 1)
	# without the blanks that pad the files to a block
	{
		sed -e 's/^ *$//' "$tmp/$d/meta.json" | sed -e '/^$/d'
		printf '\0'
		sed -E -e 's/^(  "pid": )[0-9]+/\11000/' -e 's/^ *$//' "$p" | sed -e '/^$/d'
	} >"$here/corpus-experiment/real-$d"
done
if [ -f "$build/libperfscope-mpi.so" ] && command -v mpirun >/dev/null 2>&1; then
	# load logs: 2 ranks of pingpong (its first 30 lines) and 3 of ring, every 10 ms
	fresh corpus-loadlog
	"$perfscope" record --mpi --load=10 -o "$tmp/load2" -- mpirun -np 2 "$mex/pingpong" >/dev/null
	head -n 30 "$tmp/load2"/load.* >"$here/corpus-loadlog/real-np2"
	"$perfscope" record --mpi --load=10 -o "$tmp/load3" -- mpirun -np 3 "$mex/ring" >/dev/null
	cp -- "$tmp/load3"/load.* "$here/corpus-loadlog/real-np3"
	# OTF2: the export of 2 ranks of ring_traced (functions and MPI); a seed per file
	"$perfscope" record --mpi --functions --load=0 -o "$tmp/ring" -- \
		mpirun -np 2 "$mex/ring_traced" >/dev/null
	rm -rf -- "$here/otf2-archive"
	"$perfscope" export "$tmp/ring" --format otf2 -o "$here/otf2-archive" >/dev/null
	fresh corpus-otf2
	i=0
	for f in $(cd "$here/otf2-archive" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); do
		{
			printf "\\$(printf '%03o' "$i")"
			cat "$here/otf2-archive/$f"
		} >"$here/corpus-otf2/real-$(echo "$f" | tr / -)"
		i=$((i + 1))
	done
	"$perfscope" record --mpi --load=0 -o "$tmp/cm" -- mpirun -np 4 "$mex/calls_more" >/dev/null
	"$perfscope" export "$tmp/cm" --format otf2 -o "$tmp/cm.otf2" >/dev/null
	# the calls_more archive's events in place of ring's: more kinds of MPI records
	i=0
	for f in $(cd "$here/otf2-archive" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); do
		case $f in
		traces/*.evt)
			{
				printf "\\$(printf '%03o' "$i")"
				cat "$tmp/cm.otf2/$f"
			} >"$here/corpus-otf2/real-calls_more-$(echo "$f" | tr / -)"
			;;
		esac
		i=$((i + 1))
	done
fi
du -b -s "$here"/corpus*
