#!/usr/bin/env bash
# build.sh OUTDIR - build the readers' fuzz targets (tests/fuzz/fuzz_*.c) with clang and
# libFuzzer, ASan and UBSan:
#   fuzz_stream      the stream reader            fuzz_profile     report/info/dump on a stream
#   fuzz_mpi         the MPI model on a stream    fuzz_powerfile   power meter files
#   fuzz_powerlog    power logs (power.rapl/perf) fuzz_loadlog     load logs (load.*)
#   fuzz_maps        maps.<pid> files             fuzz_kallsyms    the kallsyms copy
#   fuzz_metrics     metric group files           fuzz_experiment  meta.json, proc.<pid>.json
#   fuzz_otf2        the OTF2 import
#
# The main build uses gcc; libFuzzer needs clang, so the sources the targets need are compiled
# here, each once into OUTDIR/obj (through ccache when it is installed), and each target linked
# from its list. Exit status 77 (and the reason on stdout) when clang or libFuzzer is missing
# (Debian: clang libclang-rt-14-dev, see scripts/install-deps.sh).
set -euo pipefail

out=${1:?usage: build.sh OUTDIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
cc=${PSC_FUZZ_CC:-}
if [ -z "$cc" ]; then
	for c in clang clang-16 clang-15 clang-14; do
		if command -v "$c" >/dev/null 2>&1; then
			cc=$c
			break
		fi
	done
fi
if [ -z "$cc" ]; then
	echo "no clang compiler (install clang and libclang-rt-14-dev)"
	exit 77
fi
mkdir -p "$out/obj"

# libFuzzer is in clang's runtime library package; try a minimal target first
probe=$out/probe.c
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$probe"
if ! "$cc" -fsanitize=fuzzer "$probe" -o "$out/probe" >"$out/probe.log" 2>&1; then
	echo "$cc cannot link libFuzzer (install libclang-rt-14-dev): $(head -n 3 "$out/probe.log")"
	exit 77
fi
rm -f "$probe" "$out/probe" "$out/probe.log"

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(ccache)
pkgflags=$(pkg-config --cflags libcjson liblz4 libdw otf2)
# shellcheck disable=SC2206 # pkg-config's words
flags=(-g -O1 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fno-omit-frame-pointer
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -I"$src/src"
	-I"$src/tests/fuzz" $pkgflags)
link=(-fsanitize=fuzzer,address,undefined)
libs=$(pkg-config --libs libcjson liblz4 libdw otf2)

# the sources of the targets (src/ relative), each compiled once
stream_src="format/stream.c format/stream-chunk.c lib/qthread.c pmu/counts.c
	format/mpi-routines.c lib/array.c lib/mem.c lib/strv.c"
exp_src="$stream_src format/experiment.c format/experiment-damage.c format/experiment-json.c
	format/experiment-list.c format/experiment-meta.c format/experiment-proc.c
	format/experiment-streams.c model/experiment-open.c format/salvage.c format/layout.c
	analysis/profile/samples.c lib/hashmap.c pmu/clock.c model/objcache.c
	model/maps.c model/maps-text.c model/maps-union.c model/maps-history.c
	model/maps-pieces.c model/str-arena.c
	model/pass.c model/pass-isolate.c model/source-exp.c model/calls.c model/thread-label.c
	lib/fcopy.c"
cmd_src="$exp_src analysis/profile/regions.c pmu/metrics.c pmu/metric-expr.c
	lib/jsonw.c lib/utf8.c lib/strdist.c view/table.c lib/textesc.c
	view/caveats.c cli/options.c cli/cmd-info.c cli/cmd-dump.c model/exp-inventory.c
	lib/strbuf.c"
mpi_src="$exp_src analysis/mpi/mpi-read.c analysis/mpi/mpi-model.c analysis/mpi/mpi-match.c
	analysis/mpi/mpi-causal.c analysis/mpi/mpi-stats.c analysis/mpi/mpi-waits.c model/symbols.c
	model/elf-module.c lib/strbuf.c"
otf2_src="$mpi_src model/otf2-anchor.c model/otf2-import.c model/otf2-import-defs.c
	model/otf2-calls.c model/source-otf2.c analysis/mpi/mpi-scope.c analysis/profile/func-profile.c analysis/profile/func-profile-merge.c
	analysis/profile/func-tree.c analysis/profile/func-profile-build.c
	analysis/profile/func-profile-omp.c analysis/openmp/omp-settle.c analysis/openmp/omp-profile.c
	analysis/profile/regions.c
	pmu/metrics.c pmu/metric-expr.c"
declare -A target_src=(
	[fuzz_stream]="$stream_src"
	[fuzz_profile]="$cmd_src"
	[fuzz_experiment]="$cmd_src"
	[fuzz_mpi]="$mpi_src"
	[fuzz_powerfile]="analysis/energy/powerfile.c format/power.c lib/array.c lib/strbuf.c
		lib/mem.c"
	[fuzz_powerlog]="format/powerlog.c lib/textline.c format/power.c lib/strbuf.c lib/array.c
		lib/mem.c"
	[fuzz_loadlog]="format/loadlog.c lib/textline.c format/layout.c lib/array.c lib/mem.c"
	[fuzz_maps]="model/maps.c model/maps-text.c model/maps-union.c model/maps-history.c
		model/maps-pieces.c model/str-arena.c lib/hashmap.c lib/array.c lib/mem.c"
	[fuzz_kallsyms]="model/kallsyms.c lib/textline.c lib/fcopy.c format/layout.c lib/array.c
		lib/mem.c"
	[fuzz_metrics]="pmu/metrics.c pmu/metric-expr.c lib/array.c lib/strbuf.c lib/mem.c"
	[fuzz_otf2]="$otf2_src"
)
# the fixed files some targets read (their paths compiled in)
target_defs() {
	case $1 in
	fuzz_experiment)
		defs=(-DFUZZ_STREAM="\"$src/tests/fuzz/corpus/gen-regions-counters\""
			-DFUZZ_SAMPLES="\"$src/tests/fuzz/corpus/gen-samples\"") ;;
	fuzz_otf2) defs=(-DFUZZ_OTF2_ARCHIVE="\"$src/tests/fuzz/otf2-archive\"") ;;
	*) defs=() ;;
	esac
}

obj_of() { printf '%s/obj/%s.o' "$out" "${1//\//_}"; }

# every source once, two at a time
all=$(for t in "${!target_src[@]}"; do printf '%s\n' ${target_src[$t]}; done | sort -u)
compile() { "${launcher[@]}" "$cc" "${flags[@]}" -c "$src/src/$1" -o "$(obj_of "$1")"; }
printf '%s\n' "$all" | {
	fail=0
	while read -r s; do
		[ -n "$s" ] || continue
		compile "$s" &
		if [ "$(jobs -rp | wc -l)" -ge 2 ]; then
			wait -n || fail=1
		fi
	done
	while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
		wait -n || fail=1
	done
	exit "$fail"
}

built=()
for t in $(printf '%s\n' "${!target_src[@]}" | sort); do
	objs=()
	for s in ${target_src[$t]}; do
		objs+=("$(obj_of "$s")")
	done
	target_defs "$t"
	"$cc" "${flags[@]}" "${defs[@]}" "${link[@]}" -o "$out/$t" "$src/tests/fuzz/$t.c" \
		"${objs[@]}" $libs -lm
	built+=("$t")
done
echo "built ${built[*]} in $out with $cc"
