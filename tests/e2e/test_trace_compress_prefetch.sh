#!/usr/bin/env bash
# The stream reader's prefetch thread (src/format/stream-chunk.c) changes no output: report,
# report --csv, dump and export --format chrome of a trace of compressed chunks print the same
# bytes with the prefetch (the default on 2 CPUs or more) and without it (taskset -c 0: a
# process that may use one CPU reads every chunk itself); so do the error of a damaged
# compressed chunk in the middle of the stream, the end of one cut inside such a chunk, and
# the report and dump of a trace of plain chunks.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3
require_cmd taskset

[ "$(nproc)" -ge 2 ] || skip "one CPU: the reader never prefetches, nothing to compare"
prog=$EX/gauss_jordan
[ -x "$prog" ] || die "$prog was not built"

# zchunk STREAM: offset and size of the middle compressed chunk, and the number of them
zchunk() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
at, zs = 64, []
while at + 16 <= len(d):
    magic, size, seq = struct.unpack_from("<IIQ", d, at)
    if magic == 0x5A435350:
        zs.append((at, size))
    at += 16 + size
mid = zs[len(zs) // 2] if zs else (0, 0)
print(mid[0], mid[1], len(zs))
PY
}

# same NAME EXIT CMD..: CMD run as it is and pinned to one CPU: both exit EXIT (0, or 1 for
# any failure), with the same stdout and stderr
same() {
	local name=$1 want=$2
	shift 2
	local rc2
	run "$name-2cpu" "$@"
	rc2=$RC
	run "$name-1cpu" taskset -c 0 "$@"
	if [ "$want" -eq 0 ]; then
		expect_eq 0 "$RC" "$name: exit status, pinned"
	else
		expect_cmp "$RC" '>' 0 "$name: fails, pinned"
	fi
	expect_eq "$RC" "$rc2" "$name: the same exit status unpinned"
	for s in out err; do
		if cmp -s "$T/$name-2cpu.$s" "$T/$name-1cpu.$s"; then
			expect_eq same same "$name: std$s identical with and without the prefetch"
		else
			fail "$name: std$s differs with and without the prefetch"
			diff "$T/$name-2cpu.$s" "$T/$name-1cpu.$s" | head -5 >&2 || true
		fi
	done
}

# 64 KiB buffers, every full chunk compressed: about 50 chunks
d=$T/gj.exp
PERFSCOPE_COMPRESS=always record_or_die rec "$d" --functions --buffer-size 64K -- "$prog" 300
stream=$(ls "$d"/stream.*)
read -r zat zsize nz <<<"$(zchunk "$stream")"
expect_cmp "$nz" '>=' 3 "the writer compressed chunks ($nz)"

same report 0 "$PERFSCOPE" report "$d"
same csv 0 "$PERFSCOPE" report "$d" --csv
expect_grep row_axpy "$T/csv-2cpu.out" "the report lists row_axpy"
same dump 0 "$PERFSCOPE" dump "$d"
expect_cmp "$(grep -c func-enter "$T/dump-2cpu.out")" '>' 89700 "dump shows every call"
same export 0 "$PERFSCOPE" export "$d" --format chrome -o -

# the middle compressed chunk claims 8 bytes more than its block holds: an error at its sizes
# word, after the records before it
b=$T/bad.exp
cp -r "$d" "$b"
python3 - "$b/$(basename "$stream")" "$zat" <<'PY'
import struct, sys
path, at = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(at + 16 + 24)
    raw = struct.unpack("<I", f.read(4))[0]
    f.seek(at + 16 + 24)
    f.write(struct.pack("<I", raw + 8))
PY
same badreport 1 "$PERFSCOPE" report "$b"
expect_grep "byte $((zat + 16 + 24 + 8)): compressed chunk does not decompress" \
	"$T/badreport-2cpu.err" "the error names the block's offset"
same baddump 1 "$PERFSCOPE" dump "$b"

# cut in the middle of that chunk: the records before it, the cut reported
c=$T/cut.exp
cp -r "$d" "$c"
truncate -s $((zat + 16 + zsize / 2)) "$c/$(basename "$stream")"
same cutcsv 0 "$PERFSCOPE" report "$c" --csv
same cutdump 0 "$PERFSCOPE" dump "$c"
expect_grep "$zat" "$T/cutdump-2cpu.out" "dump names the cut's offset"

# plain chunks (PERFSCOPE_COMPRESS=never) are read ahead too
p=$T/plain.exp
PERFSCOPE_COMPRESS=never record_or_die recp "$p" --functions --buffer-size 64K -- "$prog" 300
same plaincsv 0 "$PERFSCOPE" report "$p" --csv
same plaindump 0 "$PERFSCOPE" dump "$p"
expect_cmp "$(grep -c func-enter "$T/plaindump-2cpu.out")" '>' 89700 "plain: dump shows every call"

finish
