#!/usr/bin/env bash
# Compressed chunks end to end (docs/format.md "Compressed chunks"): the runtime's writer thread
# compresses the chunks of examples/gauss_jordan (calls of about a microsecond leave it time),
# the stream header says version 4 (compressed chunks since 2), report counts every call exactly from the mixed stream,
# and a stream cut in the middle of a compressed chunk (a SIGKILL while it was written) is read
# up to the chunk before it, with the cut reported.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3

prog=$EX/gauss_jordan
[ -x "$prog" ] || die "$prog was not built"
n=600
axpy=$((n * (n - 1)))

# chunks STREAM: "compressed plain" counts, then the offset and size of the middle compressed
# chunk (0 0 when there is none)
chunks() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
at, z, r, zs = 64, 0, 0, []
while at + 16 <= len(d):
    magic, size, seq = struct.unpack_from("<IIQ", d, at)
    if magic == 0x5A435350:
        z += 1
        zs.append((at, size))
    elif magic == 0x4B435350:
        r += 1
    else:
        sys.exit("bad chunk magic at %d" % at)
    at += 16 + size
mid = zs[len(zs) // 2] if zs else (0, 0)
print(z, r, mid[0], mid[1])
PY
}

# 64 KiB buffers: about 175 chunks, each filled in about a millisecond. Whether the writer
# compresses a chunk by default depends on its pace against the thread's (a busy machine may
# leave them all plain), so this run asks for every full chunk to be compressed
d=$T/gj.exp
PERFSCOPE_COMPRESS=always record_or_die rec "$d" --functions --buffer-size 64K -- "$prog" $n
stream=$(ls "$d"/stream.*)
expect_eq 4 "$(od -An -tu4 -j8 -N4 "$stream" | tr -d ' ')" "stream header: version 4"
read -r nz nr zat zsize <<<"$(chunks "$stream")"
expect_cmp "$nz" '>=' 1 "the writer compressed chunks ($nz compressed, $nr plain)"
size=$(wc -c <"$stream")
# 2 records per call pair; the calls of find_pivot, scale_row, main, init, checksum, residual
events=$((2 * (axpy + 2 * n + 4)))
expect_cmp "$(awk -v s="$size" -v e="$events" 'BEGIN { print s / e }')" '<' 16 "bytes per event"

report_csv_or_die full "$d"
expect_eq "$axpy" "$(csv_get "$T/full.out" calls name=row_axpy)" "row_axpy: N (N - 1) calls"
expect_eq "$n" "$(csv_get "$T/full.out" calls name=find_pivot)" "find_pivot: N calls"
expect_eq "$n" "$(csv_get "$T/full.out" calls name=scale_row)" "scale_row: N calls"

# cut in the middle of a compressed chunk, as SIGKILL would leave it
c=$T/cut.exp
cp -r "$d" "$c"
truncate -s $((zat + 16 + zsize / 2)) "$c/$(basename "$stream")"
run cutrep "$PERFSCOPE" report "$c" --csv
expect_eq 0 "$RC" "report of a stream cut inside a compressed chunk exits 0"
got=$(csv_get "$T/cutrep.out" calls name=row_axpy)
expect_cmp "$got" '>' 0 "the cut stream's row_axpy calls before the cut"
expect_cmp "$got" '<' "$axpy" "the cut stream lacks the calls from the cut on"
run cutinfo "$PERFSCOPE" info "$c"
expect_eq 0 "$RC" "info on the cut stream exits 0"
expect_grep "$zat" "$T/cutinfo.out" "info names the cut's offset, the compressed chunk's"

# PERFSCOPE_COMPRESS=never: every chunk plain, the same calls
p=$T/plain.exp
PERFSCOPE_COMPRESS=never record_or_die recp "$p" --functions --buffer-size 64K -- "$prog" $n
read -r pz pr _ _ <<<"$(chunks "$(ls "$p"/stream.*)")"
expect_eq 0 "$pz" "PERFSCOPE_COMPRESS=never: no compressed chunk ($pr plain)"
report_csv_or_die plainrep "$p"
expect_eq "$axpy" "$(csv_get "$T/plainrep.out" calls name=row_axpy)" "plain: row_axpy: N (N - 1) calls"

finish
