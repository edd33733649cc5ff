#!/usr/bin/env bash
# perfscope info and dump on experiments whose content is known in advance: the threads example
# (two threads; regions main-work 1 call and outer 1 call with 10 calls of inner on the main
# thread, thread-work 1 call on the second), a program that execs itself (two images of one
# pid) and, when function tracing is built, the calls example (main 1, leaf 1000, rec 11 on the
# main thread; worker 1 + work 500 on each of two more threads). Every stream starts with its
# 64-byte header, then chunk 0's header at byte 64, then the clock-sync record at 80
# (docs/format.md).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/threads
[ -x "$prog" ] || die "$prog was not built"
d=$T/thr.exp
record_or_die rec "$d" -e page-faults -- "$prog"
main_tid=$(sed -n 's/.*main thread (tid \([0-9][0-9]*\)).*/\1/p' "$T/rec.out")
second_tid=$(sed -n 's/^second thread: tid \([0-9][0-9]*\)$/\1/p' "$T/rec.out")
[ -n "$main_tid" ] && [ -n "$second_tid" ] || die "threads did not print its tids: $(cat "$T/rec.out")"
pid=$main_tid # the main thread's tid is the pid

# --- info
run info "$PERFSCOPE" info "$d"
expect_eq 0 "$RC" "info: exit status"
expect_grep "streams: 2" "$T/info.out" "info: one stream per thread of threads (2)"
expect_grep "processes: 1" "$T/info.out" "info: one process"
expect_grep "command      $prog" "$T/info.out" "info: the command"
expect_grep "events       page-faults" "$T/info.out" "info: the events"
run info-json "$PERFSCOPE" info "$d" --json
expect_eq 0 "$RC" "info --json: exit status"
json_ok "$T/info-json.out" || fail "info --json is not JSON: $(head -c 500 "$T/info-json.out")"
j=$T/info-json.out
expect_eq 2 "$(json_eval "$j" 'len(d["streams"])')" "info --json: streams"
expect_eq "$pid" "$(json_eval "$j" 'd["processes"][0]["pid"]')" "info --json: pid"
expect_eq exited "$(json_eval "$j" 'd["processes"][0]["state"]')" "info --json: process state"
expect_eq true "$(json_eval "$j" "sorted(s['tid'] for s in d['streams']) == sorted([$main_tid, $second_tid])")" \
	"info --json: the streams of the main and the second thread"
sel="[s for s in d['streams'] if s['tid'] == $main_tid][0]"
sel2="[s for s in d['streams'] if s['tid'] == $second_tid][0]"
expect_eq 12 "$(json_eval "$j" "$sel['by_kind']['region-enter']")" "info: region enters of the main thread (main-work, outer, 10 x inner)"
expect_eq 12 "$(json_eval "$j" "$sel['by_kind']['region-leave']")" "info: region leaves of the main thread"
expect_eq 3 "$(json_eval "$j" "$sel['by_kind']['region-def']")" "info: regions defined on the main thread"
expect_eq 1 "$(json_eval "$j" "$sel2['by_kind']['region-enter']")" "info: region enters of the second thread (thread-work)"
expect_eq 1 "$(json_eval "$j" "$sel2['by_kind']['counters']")" "info: one counters record per thread"
expect_eq exit "$(json_eval "$j" "$sel['end']")" "info: the main thread's stream ended with the process"
expect_eq "thread exit" "$(json_eval "$j" "$sel2['end']")" "info: the second thread's stream ended with the thread"
expect_eq null "$(json_eval "$j" "$sel['cut_at']")" "info: no cut"
expect_eq "$(wc -c <"$d/stream.$pid.$main_tid")" "$(json_eval "$j" "$sel['bytes']")" "info: bytes of the main stream"
expect_eq 0 "$(json_eval "$j" "$sel['lost_records']")" "info: no records lost"

# --- dump: every record, one per line
run dump "$PERFSCOPE" dump "$d"
expect_eq 0 "$RC" "dump: exit status"
count() { awk -v k="$2" '$4 == k { n++ } END { print n + 0 }' "$1"; }
expect_eq 13 "$(count "$T/dump.out" region-enter)" "dump: region enter records (1 + 1 + 10 + 1)"
expect_eq 13 "$(count "$T/dump.out" region-leave)" "dump: region leave records"
expect_eq 4 "$(count "$T/dump.out" region-def)" "dump: region definitions (main-work, outer, inner, thread-work)"
expect_eq 10 "$(grep -c ' region-enter id=[0-9]* (inner) ' "$T/dump.out")" "dump: enters of inner, by name"
expect_eq 2 "$(count "$T/dump.out" end)" "dump: one end record per stream"
expect_eq 2 "$(awk '$1 == 64 && $4 == "chunk" && $5 == "seq=0"' "$T/dump.out" | wc -l)" "dump: chunk 0 at byte 64 in each stream"
expect_eq 2 "$(awk '$1 == 80 && $4 == "clock-sync"' "$T/dump.out" | wc -l)" "dump: a clock-sync record at byte 80 in each stream"
expect_grep "reason=thread exit" "$T/dump.out" "dump: the second thread's end reason"
expect_grep "page-faults=" "$T/dump.out" "dump: counter snapshots name their event"

# --stream by PID.TID, by file name; --limit
run one "$PERFSCOPE" dump "$d" --stream "$pid.$second_tid"
expect_eq 0 "$RC" "dump --stream PID.TID: exit status"
expect_eq 1 "$(grep -c '^# ' "$T/one.out")" "dump --stream: one stream"
expect_grep "tid $second_tid " "$T/one.out" "dump --stream: the second thread's stream"
expect_eq 1 "$(count "$T/one.out" region-enter)" "dump --stream: region enters of the second thread"
expect_eq 1 "$(grep -c ' region-enter id=[0-9]* (thread-work) ' "$T/one.out")" "dump --stream: thread-work"
run byname "$PERFSCOPE" dump "$d" --stream "stream.$pid.$main_tid" --limit 3
expect_eq 0 "$RC" "dump --stream FILE --limit 3: exit status"
expect_eq 3 "$(awk '$1 ~ /^[0-9]+$/ && $4 != "chunk"' "$T/byname.out" | wc -l)" "dump --limit 3: three records"
expect_grep "# 28 more records not shown (--limit 3)" "$T/byname.out" "dump --limit: says how many more (31 records in all)"

# a lone stream file: no clock fit, the ns column is '-'
run lone "$PERFSCOPE" dump "$d/stream.$pid.$second_tid"
expect_eq 0 "$RC" "dump FILE: exit status"
expect_eq 1 "$(count "$T/lone.out" region-enter)" "dump FILE: region enters"
expect_eq "80 - clock-sync" "$(awk '$1 == 80 { print $1, $3, $4 }' "$T/lone.out")" "dump FILE: no ns without the experiment"

# usage and input errors: exit 2, one line
run nostream "$PERFSCOPE" dump "$d" --stream 1.2
expect_eq 2 "$RC" "dump --stream of a missing stream: exit status"
expect_grep "no stream '1.2'" "$T/nostream.err" "dump --stream of a missing stream: message"
run badlimit "$PERFSCOPE" dump "$d" --limit -1
expect_eq 2 "$RC" "dump --limit -1: exit status"
run nodir "$PERFSCOPE" info "$T/none"
expect_eq 2 "$RC" "info of a missing directory: exit status"
expect_eq 1 "$(wc -l <"$T/nodir.err")" "info of a missing directory: one line"

# --- exec: a second image of the same pid, with its own process entry and stream
cat >"$T/reexec.c" <<'C'
#include <perfscope.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	psc_region_begin(argc > 1 ? "after" : "before");
	psc_region_end(argc > 1 ? "after" : "before");
	if (argc == 1)
		execl(argv[0], argv[0], "again", (char *)0);
	return 0;
}
C
build_c reexec "$T/reexec.c"
d=$T/reexec.exp
record_or_die rec-reexec "$d" -- "$T/reexec"
run reexec-info "$PERFSCOPE" info "$d" --json
expect_eq 0 "$RC" "info of a program that execs itself: exit status"
j=$T/reexec-info.out
expect_eq "0 exec exec, 1 exited exited" \
	"$(json_eval "$j" '", ".join("%d %s %s" % (p["image"], p["state"], p["ended"]) for p in d["processes"])')" \
	"info: the first image was replaced by exec, the second exited"
expect_eq "0 exec, 1 exit" "$(json_eval "$j" '", ".join("%d %s" % (s["image"], s["end"]) for s in d["streams"])')" \
	"info: how the stream of each image ended"
run reexec-dump "$PERFSCOPE" dump "$d" --stream "$(json_eval "$j" 'd["processes"][0]["pid"]').$(json_eval "$j" 'd["processes"][0]["pid"]').1"
expect_eq 0 "$RC" "dump --stream PID.TID.IMAGE: exit status"
expect_eq 1 "$(grep -c ' region-enter id=[0-9]* (after) ' "$T/reexec-dump.out")" "dump --stream PID.TID.1: the region of the second image"
expect_no_grep "(before)" "$T/reexec-dump.out" "dump --stream PID.TID.1: nothing of the first image"

# --- function records: 16 bytes, address in hex
calls=$EX/calls
if [ ! -x "$calls" ] || ! "$PERFSCOPE" record --help | grep -q -- --functions; then
	note "no function tracing in this build: function records not checked"
	finish
fi
d=$T/calls.exp
record_or_die rec-calls "$d" --functions -- "$calls"
run calls-info "$PERFSCOPE" info "$d" --json
expect_eq 0 "$RC" "info of calls: exit status"
j=$T/calls-info.out
expect_eq 3 "$(json_eval "$j" 'len(d["streams"])')" "info: calls runs 3 threads"
expect_eq "[501, 501, 1012]" "$(json_eval "$j" 'sorted(s["by_kind"]["func-enter"] for s in d["streams"])')" \
	"info: function enters per thread (main 1 + leaf 1000 + rec 11; worker 1 + work 500)"
expect_eq "[501, 501, 1012]" "$(json_eval "$j" 'sorted(s["by_kind"]["func-exit"] for s in d["streams"])')" \
	"info: function exits per thread"
run calls-dump "$PERFSCOPE" dump "$d"
expect_eq 0 "$RC" "dump of calls: exit status"
expect_eq 2014 "$(count "$T/calls-dump.out" func-enter)" "dump: function enter records"
expect_eq 2014 "$(count "$T/calls-dump.out" func-exit)" "dump: function exit records"
expect_eq 4028 "$(grep -cE ' func-(enter|exit) +addr=0x[0-9a-f]+$' "$T/calls-dump.out")" \
	"dump: function records show their address in hex"

finish
