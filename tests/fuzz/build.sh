#!/usr/bin/env bash
# build.sh OUTDIR - build the readers' fuzz targets (fuzz_stream.c, fuzz_profile.c,
# fuzz_powerfile.c, fuzz_powerlog.c, fuzz_mpi.c) with clang and libFuzzer, ASan and UBSan.
#
# The main build uses gcc; libFuzzer needs clang, so the targets are compiled here directly
# from the few sources they need. Exit status 77 (and the reason on stdout) when clang or
# libFuzzer is missing (Debian: clang libclang-rt-14-dev, see scripts/install-deps.sh).
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
mkdir -p "$out"

# libFuzzer is in clang's runtime library package; try a minimal target first
probe=$out/probe.c
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$probe"
if ! "$cc" -fsanitize=fuzzer "$probe" -o "$out/probe" >"$out/probe.log" 2>&1; then
	echo "$cc cannot link libFuzzer (install libclang-rt-14-dev): $(head -n 3 "$out/probe.log")"
	exit 77
fi
rm -f "$probe" "$out/probe" "$out/probe.log"

flags=(-g -O1 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"$src/src")

"$cc" "${flags[@]}" -o "$out/fuzz_stream" "$src/tests/fuzz/fuzz_stream.c" \
	"$src/src/analysis/stream.c" "$src/src/analysis/stream-chunk.c" "$src/src/core/qthread.c" "$src/src/core/counts.c" "$src/src/core/mpi-routines.c" -llz4

"$cc" "${flags[@]}" -o "$out/fuzz_profile" "$src/tests/fuzz/fuzz_profile.c" \
	"$src/src/analysis/stream.c" "$src/src/analysis/stream-chunk.c" "$src/src/core/qthread.c" "$src/src/analysis/experiment.c" \
	"$src/src/analysis/samples.c" "$src/src/analysis/u64map.c" \
	"$src/src/analysis/regions.c" "$src/src/core/counts.c" "$src/src/core/clock.c" \
	"$src/src/core/metrics.c" "$src/src/core/metric-expr.c" "$src/src/core/jsonw.c" \
	"$src/src/core/strdist.c" \
	"$src/src/output/table.c" "$src/src/core/array.c" "$src/src/cli/options.c" \
	"$src/src/cli/cmd-info.c" \
	"$src/src/cli/cmd-dump.c" "$src/src/core/mpi-routines.c" \
	"$src/src/analysis/objcache.c" "$src/src/analysis/maps.c" \
	$(pkg-config --cflags --libs libcjson libdw liblz4) -lm

"$cc" "${flags[@]}" -o "$out/fuzz_powerfile" "$src/tests/fuzz/fuzz_powerfile.c" \
	"$src/src/analysis/powerfile.c" "$src/src/analysis/power.c" -lm
"$cc" "${flags[@]}" -o "$out/fuzz_powerlog" "$src/tests/fuzz/fuzz_powerlog.c" \
	"$src/src/analysis/powerlog.c" "$src/src/analysis/textline.c" "$src/src/analysis/power.c" -lm
# the MPI model and the analyses of perfscope mpi
"$cc" "${flags[@]}" -o "$out/fuzz_mpi" "$src/tests/fuzz/fuzz_mpi.c" \
	"$src/src/analysis/stream.c" "$src/src/analysis/stream-chunk.c" "$src/src/core/qthread.c" "$src/src/analysis/experiment.c" \
	"$src/src/analysis/samples.c" "$src/src/analysis/u64map.c" \
	"$src/src/analysis/mpi-load.c" "$src/src/analysis/mpi-model.c" \
	"$src/src/analysis/mpi-match.c" "$src/src/analysis/mpi-causal.c" "$src/src/analysis/mpi-stats.c" \
	"$src/src/analysis/mpi-waits.c" "$src/src/core/counts.c" "$src/src/core/clock.c" \
	"$src/src/analysis/symbols.c" "$src/src/analysis/elf-module.c" "$src/src/analysis/maps.c" \
	"$src/src/analysis/objcache.c" \
	"$src/src/core/mpi-routines.c" $(pkg-config --cflags --libs libcjson libdw liblz4) -lm
echo "built $out/fuzz_stream, $out/fuzz_profile, $out/fuzz_powerfile, $out/fuzz_powerlog and $out/fuzz_mpi with $cc"
