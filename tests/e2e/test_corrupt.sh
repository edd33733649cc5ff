#!/usr/bin/env bash
# Damaged experiments. A stream truncated inside its header, a bit flipped in the header or in
# a chunk header, a flipped record type, time going backwards, a foreign file in place of a
# stream, or a record whose payload does not fit its type (length, name, region id, end
# reason, counter layout): `perfscope report`, `dump` and `info` exit 2 with one line naming
# the file and the byte offset. The offsets follow from the layout (docs/format.md): the header is bytes 0-63,
# chunk 0's header is at 64 (magic 64, size 68, sequence 72), its first record (the clock-sync
# record every chunk starts with) at 80, with its type in word 1 at 88; the tid is at 28.
# A stream cut inside its last chunk or at a chunk boundary (as SIGKILL leaves it) is no error:
# the report works and says where the data ends. Nor is one cut inside its header (a full disk):
# it is left out, and every command says so, naming the file and the byte.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/threads
[ -x "$prog" ] || die "$prog was not built"
good=$T/good
record_or_die rec "$good" -e page-faults -- "$prog"
main_tid=$(sed -n 's/.*main thread (tid \([0-9][0-9]*\)).*/\1/p' "$T/rec.out")
[ -n "$main_tid" ] || die "threads did not print its tid: $(cat "$T/rec.out")"
main=$(basename "$good"/stream.*."$main_tid")
[ -f "$good/$main" ] || die "no stream of the main thread ($main_tid) in $good"
run good-report "$PERFSCOPE" report "$good"
expect_eq 0 "$RC" "report of the intact experiment: exit status"
run good-dump "$PERFSCOPE" dump "$good"
expect_eq 0 "$RC" "dump of the intact experiment: exit status"

# flip_byte FILE OFFSET XOR: XOR one byte of FILE in place
flip_byte() {
	python3 - "$1" "$2" "$3" <<'EOF'
import sys
path, off, x = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 0)
with open(path, "r+b") as f:
    f.seek(off)
    b = f.read(1)[0]
    f.seek(off)
    f.write(bytes([b ^ x]))
EOF
}

# put_u64 FILE OFFSET VALUE: overwrite 8 bytes (little-endian) of FILE in place
put_u64() {
	python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    f.write(struct.pack("<Q", int(sys.argv[3], 0)))
EOF
}

# damaged NAME: a fresh copy of the good experiment in $T/NAME; prints its path
damaged() {
	rm -rf -- "${T:?}/$1"
	cp -r "$good" "$T/$1"
	echo "$T/$1"
}

# expect_defect NAME DIR OFFSET CAUSE [STREAM]: report, dump and info of DIR exit 2 with
# exactly one line on stderr naming STREAM (default: the main thread's), the byte OFFSET and
# CAUSE
expect_defect() {
	local name=$1 dir=$2 off=$3 cause=$4 stream=${5:-$main} cmd
	for cmd in report dump info; do
		run "$name-$cmd" "$PERFSCOPE" "$cmd" "$dir"
		expect_eq 2 "$RC" "$name: $cmd exit status"
		expect_eq 1 "$(wc -l <"$T/$name-$cmd.err")" "$name: $cmd prints one line on stderr"
		expect_grep "perfscope $cmd: $dir/$stream: byte $off: $cause" "$T/$name-$cmd.err" \
			"$name: $cmd names the file, the offset and the cause"
	done
}

d=$(damaged header-cut)
head -c 30 "$good/$main" >"$d/$main"
for cmd in report dump info; do
	run "header-cut-$cmd" "$PERFSCOPE" "$cmd" "$d"
	expect_eq 0 "$RC" "header-cut: $cmd exit status"
	expect_grep "$main: cut at byte 30, inside its 64-byte header: left out" \
		"$T/header-cut-$cmd.out" "header-cut: $cmd names the file and the byte"
done
expect_grep "thread-work" "$T/header-cut-report.out" "header-cut: the other thread's regions are read"

d=$(damaged header-tid)
flip_byte "$d/$main" 31 0x40
expect_defect header-tid "$d" 28 "bad tid"

d=$(damaged chunk-magic)
flip_byte "$d/$main" 64 0x01
expect_defect chunk-magic "$d" 64 "bad chunk magic 0x4b435351"

d=$(damaged chunk-size)
flip_byte "$d/$main" 68 0x04
expect_defect chunk-size "$d" 68 "bad chunk size"

d=$(damaged chunk-seq)
flip_byte "$d/$main" 72 0x01
expect_defect chunk-seq "$d" 72 "chunk sequence 1, expected 0"

d=$(damaged record-type)
flip_byte "$d/$main" 88 0xff # clock-sync (4) becomes 251
expect_defect record-type "$d" 88 "unknown record type 251"

d=$(damaged backwards)
put_u64 "$d/$main" 104 2 # the second record: ticks 0, kind 2 (extended), before the first
expect_defect backwards "$d" 104 "time goes backwards"

d=$(damaged foreign)
head -c 1024 /bin/true >"$d/$main"
expect_defect foreign "$d" 0 "not a perfscope stream (bad magic)"

# --- cut inside the last (here: only) chunk: no error, the cut is reported
d=$(damaged cut-last)
size=$(wc -c <"$good/$main")
head -c $((size - 8)) "$good/$main" >"$d/$main"
run cut-report "$PERFSCOPE" report "$d"
expect_eq 0 "$RC" "report of a stream cut in its last chunk: exit status"
expect_grep "$main: cut at byte 64 of $((size - 8)): the thread's records after it are missing" \
	"$T/cut-report.out" "report says where the stream was cut"
run cut-dump "$PERFSCOPE" dump "$d"
expect_eq 0 "$RC" "dump of a stream cut in its last chunk: exit status"
expect_grep "# cut at byte 64: the last chunk is incomplete" "$T/cut-dump.out" "dump says where the stream was cut"
run cut-info "$PERFSCOPE" info "$d" --json
expect_eq 0 "$RC" "info of a stream cut in its last chunk: exit status"
expect_eq 64 "$(json_eval "$T/cut-info.out" "[s['cut_at'] for s in d['streams'] if s['tid'] == $main_tid][0]")" \
	"info --json: cut_at of the cut stream"

# --- cut at a chunk boundary. twochunks writes chunk 0 (at 64: clock-sync 24 bytes, thread
# name "twochunks" 32, definition of "a" 24, 3 x (enter 16 + leave 16)) = 16 + 176 bytes, so
# chunk 1 starts at 64 + 16 + 176 = 256.
cat >"$T/twochunks.c" <<'C'
#include <perfscope.h>

int main(void)
{
	for (int i = 0; i < 3; i++) {
		psc_region_begin("a");
		psc_region_end("a");
	}
	psc_flush();
	for (int i = 0; i < 2; i++) {
		psc_region_begin("b");
		psc_region_end("b");
	}
	return 0;
}
C
build_c twochunks "$T/twochunks.c"
d=$T/two.exp
record_or_die rec-two "$d" -- "$T/twochunks"
streams=("$d"/stream.*)
[ "${#streams[@]}" -eq 1 ] || die "expected one stream in $d: ${streams[*]}"
run two-dump "$PERFSCOPE" dump "$d"
expect_eq 0 "$RC" "dump of twochunks: exit status"
expect_eq "256 chunk seq=1" "$(awk '$4 == "chunk" && $5 == "seq=1" { print $1, $4, $5 }' "$T/two-dump.out")" \
	"chunk 1 of twochunks starts at byte 256"
cp -r "$d" "$T/two-good"
head -c 256 "${streams[0]}" >"$T/two.tmp" && mv "$T/two.tmp" "${streams[0]}"
report_csv_or_die two-report "$d"
expect_eq 3 "$(csv_get "$T/two-report.out" calls name=a)" "cut at a chunk boundary: the 3 calls of a"
expect_no_grep "b," "$T/two-report.out" "cut at a chunk boundary: nothing of chunk 1"
run two-dump-cut "$PERFSCOPE" dump "$d"
expect_eq 0 "$RC" "dump of a stream cut at a chunk boundary: exit status"
expect_grep "# no end record: the stream stops after chunk 1" "$T/two-dump-cut.out" \
	"dump says the stream has no end record"
run two-info "$PERFSCOPE" info "$d" --json
expect_eq "no end record" "$(json_eval "$T/two-info.out" "d['streams'][0]['end']")" \
	"info: a stream cut at a chunk boundary has no end record"

# --- records whose payload does not fit their type. twochunks' stream: clock-sync at 80
# (length in bytes 90-91), thread name at 104 (name at 120), definition of "a" at 136, the first
# enter at 160 (id in bytes 172-175), the end record at 384 (reason at 396). The good
# experiment's main stream (one event, thread name "threads"): counters record at 128 (the
# first event's group at 144), definition at 152, the first enter at 184 with its snapshot's
# member count at 200.
two=$(basename "${streams[0]}")
dmg2() {
	rm -rf -- "${T:?}/$1"
	cp -r "$T/two-good" "$T/$1"
	echo "$T/$1"
}
d=$(dmg2 clock-length)
flip_byte "$d/$two" 90 0x01 # 3 words become 2
expect_defect clock-length "$d" 88 "clock-sync record of 2 words, expected 3" "$two"
d=$(dmg2 name-nul)
put_u64 "$d/$two" 120 0x7878787878787878
put_u64 "$d/$two" 128 0x7878787878787878
expect_defect name-nul "$d" 120 "thread name record without a NUL-terminated name" "$two"
d=$(dmg2 undefined-id)
flip_byte "$d/$two" 172 0x4d # region id 0 becomes 77
expect_defect undefined-id "$d" 160 "region enter of region id 77, never defined before" "$two"
d=$(dmg2 end-reason)
flip_byte "$d/$two" 396 0x08 # exit (1) becomes 9
expect_defect end-reason "$d" 396 "unknown end reason 9" "$two"
d=$(damaged counters-group)
flip_byte "$d/$main" 144 0x05
expect_defect counters-group "$d" 144 "event 0: group 5 of 1 events"
d=$(damaged snapshot)
flip_byte "$d/$main" 200 0x03 # 1 member becomes 2
expect_defect snapshot "$d" 200 "counter group 0 has 2 members, the counters record 1"

# --- the real thing: SIGKILL after a flush leaves chunk 0 in the stream and the rest in the
# thread's live buffer file, which record appends: the stream ends "unclosed" and holds it all
cat >"$T/killed.c" <<'C'
#include <perfscope.h>
#include <signal.h>

int main(void)
{
	psc_region_begin("done");
	psc_region_end("done");
	psc_flush();
	psc_region_begin("lost");
	raise(SIGKILL);
	return 0;
}
C
build_c killed "$T/killed.c"
d=$T/killed.exp
run rec-killed "$PERFSCOPE" record -o "$d" -- "$T/killed"
[ -f "$d/meta.json" ] || die "no experiment was left by the killed program"
run killed-report "$PERFSCOPE" report "$d"
expect_eq 0 "$RC" "report of a killed run: exit status"
expect_grep "did not end cleanly" "$T/killed-report.out" "report of a killed run says so"
run killed-info "$PERFSCOPE" info "$d"
expect_eq 0 "$RC" "info of a killed run: exit status"
expect_grep "running (killed: the command ended by signal 9)" "$T/killed-info.out" "info: the process was killed"
expect_grep "unclosed" "$T/killed-info.out" "info: its stream was completed from its buffer"
expect_grep "  lost       all      1" "$T/killed-report.out" "report: the region begun after the flush is there"

finish
