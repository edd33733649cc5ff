#!/usr/bin/env bash
# OTF2 import and export: the Score-P ping-pong traces of tests/data/otf2 read by perfscope mpi
# (16 messages matched, 8 each way, 4177920 bytes each way, effective rates); an unreadable
# archive's error names it; perfscope export --format otf2 of a synthetic MPI experiment
# (bench/gen_mpi_exp.py: exact counts of calls, messages and collectives) read by otf2-print
# without a warning and by Python's otf2 with the same counts, and read back by perfscope mpi
# with the directory's waits, traffic and routines to the byte; function calls and regions of
# traced examples, counters as metrics; with libperfscope-mpi.so and mpirun, a recorded MPI run round trips too
# (a failed recording fails the test), and a traced ring with 2 skewed ranks has its measured
# clock offsets as location-group properties, equal to the experiment's;
# the output rules (no overwrite without --force, only an archive or an empty directory
# replaced, no -o -).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd otf2-print python3

DATA=$PSC_SOURCE/tests/data/otf2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

PYOTF2=$(python_otf2)
[ -n "$PYOTF2" ] || skip "no python3 with the otf2 module (python3-otf2)"

# counts of event kinds and definitions by Python's otf2, one "name count" per line
py_counts() {
	"$PYOTF2" -W error - "$1" <<'EOF'
import collections, sys
import otf2
with otf2.reader.open(sys.argv[1]) as r:
    c = collections.Counter(type(ev).__name__ for _, ev in r.events)
    d = r.definitions
    c["locations"] = len(d.locations)
    c["location_groups"] = len(d.location_groups)
    c["comms"] = len(d.comms)
    c["resolution"] = d.clock_properties.timer_resolution
    for k in sorted(c):
        print(k, c[k])
EOF
}
count_of() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$1"; }

# check_nesting ARCHIVE WHAT: on every location Enter/Leave nest, times never go back, and
# nothing is left open
check_nesting() {
	"$PYOTF2" - "$1" >"$T/nest.txt" 2>&1 <<'EOF' || fail "$2: the nesting check failed: $(cat "$T/nest.txt")"
import sys
import otf2
with otf2.reader.open(sys.argv[1]) as r:
    stacks, last, nest, order = {}, {}, 0, 0
    for loc, ev in r.events:
        order += ev.time < last.get(loc, 0)
        last[loc] = ev.time
        st = stacks.setdefault(loc, [])
        if isinstance(ev, otf2.events.Enter):
            st.append(ev.region)
        elif isinstance(ev, otf2.events.Leave):
            if st and st[-1] == ev.region:
                st.pop()
            else:
                nest += 1
    print("nest_errors", nest)
    print("order_errors", order)
    print("open", sum(len(s) for s in stacks.values()))
EOF
	expect_eq 0 "$(count_of "$T/nest.txt" nest_errors)" "$2: Enter/Leave nest"
	expect_eq 0 "$(count_of "$T/nest.txt" order_errors)" "$2: times never go back"
	expect_eq 0 "$(count_of "$T/nest.txt" open)" "$2: nothing left open"
}

# ---- import: the Score-P traces ----
for tr in ping-pong-otf2 ping-pong-otf2-papi; do
	run "$tr" "$PERFSCOPE" mpi "$DATA/$tr/traces.otf2" --traffic --csv
	expect_eq 0 "$RC" "$tr: perfscope mpi exit status" || show "$tr"
	for pair in "0 1 10" "1 0 20"; do
		set -- $pair
		expect_eq 8 "$(csv_get "$T/$tr.out" messages sender="$1" receiver="$2")" "$tr: messages $1->$2"
		expect_eq 8 "$(csv_get "$T/$tr.out" matched sender="$1" receiver="$2")" "$tr: matched $1->$2"
		expect_eq 4177920 "$(csv_get "$T/$tr.out" bytes sender="$1" receiver="$2")" "$tr: bytes $1->$2"
		for col in rate_mean_bps rate_min_bps rate_max_bps; do
			expect_cmp "$(csv_get "$T/$tr.out" $col sender="$1" receiver="$2")" ">" 0 "$tr: $col $1->$2"
		done
	done
	expect_eq 3 "$(awk 'NF == 0 { exit } { n++ } END { print n }' "$T/$tr.out")" \
		"$tr: two pairs and the header"
	expect_no_grep "unmatched" "$T/$tr.err" "$tr: nothing unmatched"
	# the routines Score-P recorded that the model has no place for are named
	expect_grep "MPI_Comm_size" "$T/$tr.err" "$tr: left-out routines"
done
run waits "$PERFSCOPE" mpi "$DATA/ping-pong-otf2/traces.otf2" --waits --csv
expect_eq 0 "$RC" "Score-P waits exit status"
expect_grep "rank,peer,wait_ns,pct_exec,pct_wait" "$T/waits.out" "Score-P waits CSV"

# an archive that cannot be read: the OTF2 error and the path, one line (OTF2_Reader_Open
# leaks its half-made archive when it fails: no leak report in a sanitizer build)
noleak=(env)
if [ "${PSC_SANITIZE:-OFF}" = ON ]; then
	noleak=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
fi
mkdir bad
echo "not an anchor" >bad/traces.otf2
run bad "${noleak[@]}" "$PERFSCOPE" mpi bad/traces.otf2 --traffic
expect_ne 0 "$RC" "unreadable archive exit status"
expect_grep "bad/traces.otf2" "$T/bad.err" "unreadable archive: the path"
expect_grep "chunk header" "$T/bad.err" "unreadable archive: the OTF2 error"
expect_eq 1 "$(wc -l <"$T/bad.err" | tr -d ' ')" "unreadable archive: one line"
cp -r "$DATA/ping-pong-otf2" cut
chmod -R u+w cut
rm cut/traces/1.evt
run cut "${noleak[@]}" "$PERFSCOPE" mpi cut/traces.otf2 --traffic
expect_ne 0 "$RC" "missing event file exit status"
expect_grep "cut/traces/1.evt" "$T/cut.err" "missing event file: its path"

# ---- export: a synthetic MPI experiment, then read back ----
# compare DIR ARCHIVE WHAT: perfscope mpi gives the same waits, traffic and routines
compare() {
	local o
	for o in waits traffic routines; do
		"$PERFSCOPE" mpi "$1" --$o --all --csv >"$T/dir.$o.csv" 2>/dev/null || fail "$3: mpi $1 --$o"
		"$PERFSCOPE" mpi "$2" --$o --all --csv >"$T/arch.$o.csv" 2>/dev/null || fail "$3: mpi $2 --$o"
		PSC_CHECKS=$((PSC_CHECKS + 1))
		if ! cmp -s "$T/dir.$o.csv" "$T/arch.$o.csv"; then
			fail "$3: --$o differs between the directory and its OTF2 export:"
			diff "$T/dir.$o.csv" "$T/arch.$o.csv" | head -20 >&2 || true
		fi
	done
}

python3 "$PSC_SOURCE/bench/gen_mpi_exp.py" -e 20000 -p 4 syn >/dev/null
run export "$PERFSCOPE" export syn --format otf2 -o syn.otf2
expect_eq 0 "$RC" "export exit status" || show export
expect_file syn.otf2/traces.otf2 "the anchor file"
expect_grep "0 counter values, 10008 MPI calls (3200 messages sent, 400 collectives), 4 locations in 4 processes" \
	"$T/export.err" "export summary"
run print otf2-print syn.otf2/traces.otf2
expect_eq 0 "$RC" "otf2-print exit status"
expect_eq 0 "$(wc -c <"$T/print.err" | tr -d ' ')" "otf2-print says nothing on stderr"
expect_no_grep "WARNING" "$T/print.out" "otf2-print warnings"
expect_eq 10008 "$(grep -c '^ENTER ' "$T/print.out")" "otf2-print: Enter events"
expect_eq 3200 "$(grep -c '^MPI_ISEND ' "$T/print.out")" "otf2-print: MpiIsend events"
expect_eq 3200 "$(grep -c '^MPI_IRECV ' "$T/print.out")" "otf2-print: MpiIrecv events"
run printdefs otf2-print -G syn.otf2/traces.otf2
expect_eq 0 "$(wc -c <"$T/printdefs.err" | tr -d ' ')" "otf2-print -G says nothing on stderr"
expect_grep '"MPI_COMM_WORLD"' "$T/printdefs.out" "the world communicator"
expect_grep "Ticks per Seconds: 1000000000" "$T/printdefs.out" "clock in ns"
py_counts syn.otf2/traces.otf2 >py.txt 2>py.err || fail "python otf2 failed: $(cat py.err)"
expect_eq 0 "$(wc -c <py.err | tr -d ' ')" "python otf2 says nothing on stderr"
expect_eq 10008 "$(count_of py.txt Enter)" "python: Enter"
expect_eq 10008 "$(count_of py.txt Leave)" "python: Leave"
expect_eq 3200 "$(count_of py.txt MpiIsend)" "python: MpiIsend"
expect_eq 3200 "$(count_of py.txt MpiIsendComplete)" "python: MpiIsendComplete"
expect_eq 3200 "$(count_of py.txt MpiIrecvRequest)" "python: MpiIrecvRequest"
expect_eq 3200 "$(count_of py.txt MpiIrecv)" "python: MpiIrecv"
expect_eq 400 "$(count_of py.txt MpiCollectiveEnd)" "python: MpiCollectiveEnd"
expect_eq 4 "$(count_of py.txt locations)" "python: locations"
expect_eq 4 "$(count_of py.txt location_groups)" "python: location groups"
expect_eq 1000000000 "$(count_of py.txt resolution)" "python: timer resolution"
check_nesting syn.otf2/traces.otf2 "synthetic"
compare syn syn.otf2/traces.otf2 "synthetic round trip"
run syn_traffic "$PERFSCOPE" mpi syn.otf2/traces.otf2 --traffic --csv
expect_eq 800 "$(csv_get "$T/syn_traffic.out" matched sender=3 receiver=0)" "round trip: matched 3->0"

# a rank's streams missing: the archive has it missing too, and says so the same way
cp -r syn syn2
rm syn2/stream.1002.*
run export2 "$PERFSCOPE" export syn2 --format otf2 -o syn2.otf2
expect_eq 0 "$RC" "export without rank 2" || show export2
expect_grep "rank 2 of 4: no streams" "$T/export2.err" "export: the missing rank"
run miss "$PERFSCOPE" mpi syn2.otf2/traces.otf2 --traffic --csv
expect_grep "rank 2 of 4: no streams" "$T/miss.err" "import: the missing rank"
expect_eq 800 "$(csv_get "$T/miss.out" unmatched_sends sender=1 receiver=2)" "import: sends to rank 2 unmatched"
compare syn2 syn2.otf2/traces.otf2 "round trip without rank 2"

# ---- export: output rules ----
run again "$PERFSCOPE" export syn --format otf2 -o syn.otf2
expect_eq 2 "$RC" "existing archive without --force"
expect_grep "syn.otf2 exists; not overwriting it (use --force)" "$T/again.err" "no-overwrite message"
run force "$PERFSCOPE" export syn --format otf2 -o syn.otf2 --force
expect_eq 0 "$RC" "existing archive with --force" || show force
run print2 otf2-print syn.otf2/traces.otf2
expect_eq 10008 "$(grep -c '^LEAVE ' "$T/print2.out")" "the replaced archive reads"
mkdir other
echo keep >other/file
run notarch "$PERFSCOPE" export syn --format otf2 -o other --force
expect_eq 2 "$RC" "a directory that is no archive"
expect_eq keep "$(cat other/file)" "its file untouched"
mkdir empty
run empty "$PERFSCOPE" export syn --format otf2 -o empty --force
expect_eq 0 "$RC" "an empty directory with --force"
run stdout "$PERFSCOPE" export syn --format otf2 -o -
expect_eq 2 "$RC" "-o - for an archive"
run nomodel "$PERFSCOPE" export nonexistent.out --format otf2 -o x.otf2
expect_eq 2 "$RC" "a missing experiment"
expect_no_file x.otf2 "no archive for a missing experiment"

# ---- export: function calls and regions (no MPI) ----
if [ -x "$EX/calls" ]; then
	"$PERFSCOPE" record --functions -o calls.exp -- "$EX/calls" >/dev/null 2>&1
	run calls "$PERFSCOPE" export calls.exp --format otf2 -o calls.otf2
	expect_eq 0 "$RC" "calls export" || show calls
	run callsprint otf2-print calls.otf2/traces.otf2
	expect_eq 0 "$(wc -c <"$T/callsprint.err" | tr -d ' ')" "calls: otf2-print stderr"
	# examples/calls: main, 1000 leaf, 11 rec, 2 worker threads with 500 work each, ...
	expect_eq 2014 "$(grep -c '^ENTER ' "$T/callsprint.out")" "calls: Enter events"
	expect_eq 1000 "$(grep -c '^ENTER .*Region: "leaf"' "$T/callsprint.out")" "calls: leaf"
	py_counts calls.otf2/traces.otf2 >pyc.txt 2>&1 || fail "python otf2 on calls: $(cat pyc.txt)"
	expect_eq 2014 "$(count_of pyc.txt Enter)" "calls: python Enter"
	expect_eq 3 "$(count_of pyc.txt locations)" "calls: a location per thread"
	check_nesting calls.otf2/traces.otf2 "calls"
fi
if [ -x "$EX/pagewalk" ]; then
	# pagewalk -n 200 takes exactly 200 page faults in its region walk
	"$PERFSCOPE" record -e page-faults -o walk.exp -- "$EX/pagewalk" -n 200 >/dev/null 2>&1
	run walk "$PERFSCOPE" export walk.exp --format otf2 -o walk.otf2
	expect_eq 0 "$RC" "regions export" || show walk
	expect_grep "1 regions" "$T/walk.err" "regions export summary"
	run walkprint otf2-print walk.otf2/traces.otf2
	expect_eq 0 "$(wc -c <"$T/walkprint.err" | tr -d ' ')" "regions: otf2-print stderr"
	expect_eq 1 "$(grep -c '^ENTER .*Region: "walk"' "$T/walkprint.out")" "region walk"
	check_nesting walk.otf2/traces.otf2 "regions"
	mapfile -t v < <(sed -n 's/^METRIC .*("page-faults" <[0-9]*>; UINT64; \([0-9]*\)).*/\1/p' \
		"$T/walkprint.out")
	if [ "${#v[@]}" -gt 0 ]; then
		expect_eq 2 "${#v[@]}" "page-faults metric: one value at each boundary of walk"
		expect_eq 200 "$((v[1] - v[0]))" "page-faults metric: rises by the 200 pages walk touched"
		expect_grep "2 counter values" "$T/walk.err" "page-faults metric: export counts the values"
		run walkdefs otf2-print -G walk.otf2/traces.otf2
		expect_grep "Mode: ACCUMULATED_START" "$T/walkdefs.out" "page-faults metric member"
	else
		note "no page-faults metric values (event not countable here?)"
	fi
fi

# ---- export: a recorded MPI run ----
if [ -e "$PSC_BUILD/libperfscope-mpi.so" ] && [ -x "$EX/mpi/calls_mpi" ] &&
	command -v mpirun >/dev/null 2>&1; then
	run rec timeout 120 "$PERFSCOPE" record --mpi -o mpi.exp -- mpirun -np 4 "$EX/mpi/calls_mpi"
	if [ "$RC" = 0 ]; then
		run mexport "$PERFSCOPE" export mpi.exp --format otf2 -o mpi.otf2
		expect_eq 0 "$RC" "MPI export" || show mexport
		run mprint otf2-print mpi.otf2/traces.otf2
		expect_eq 0 "$(wc -c <"$T/mprint.err" | tr -d ' ')" "MPI: otf2-print stderr"
		py_counts mpi.otf2/traces.otf2 >pym.txt 2>&1 || fail "python otf2 on MPI: $(cat pym.txt)"
		check_nesting mpi.otf2/traces.otf2 "recorded"
		compare mpi.exp mpi.otf2/traces.otf2 "recorded round trip"
	else
		show rec
		fail "recording calls_mpi failed (rc $RC): the recorded round trip is not checked"
	fi
	# functions around MPI calls, two ranks with a skewed clock: the calls nest in the
	# functions on rank 0's clock
	if command -v mpicc >/dev/null 2>&1 &&
		mpicc -O1 -finstrument-functions -I"$PSC_SOURCE/examples/mpi" \
			"$PSC_SOURCE/examples/mpi/ring.c" -o ringf >cc.log 2>&1; then
		run recf timeout 120 "$PERFSCOPE" record --mpi --functions -o ringf.exp -- \
			mpirun -np 2 ./ringf -b 2 -n 3 : \
			-np 2 -x PERFSCOPE_TEST_CLOCK_SKEW=3000000:50 ./ringf -b 2 -n 3
		expect_eq 0 "$RC" "recording the traced ring" || show recf
		run fexport "$PERFSCOPE" export ringf.exp --format otf2 -o ringf.otf2
		expect_eq 0 "$RC" "traced ring export" || show fexport
		# function calls and MPI calls on one location per rank
		expect_eq 1 "$(grep -cE ': [0-9]+ events, [1-9][0-9]* function calls, .* [1-9][0-9]* MPI calls .*, 4 locations in 4 processes' "$T/fexport.err")" \
			"traced ring export summary"
		run fprint otf2-print ringf.otf2/traces.otf2
		expect_eq 0 "$(wc -c <"$T/fprint.err" | tr -d ' ')" "traced ring: otf2-print stderr"
		check_nesting ringf.otf2/traces.otf2 "traced ring"
		compare ringf.exp ringf.otf2/traces.otf2 "traced ring round trip"
		# the per-rank clock offsets read back from the archive: the location groups'
		# perfscope::clock_* properties equal the experiment's mpi-clock records exactly
		# (offset and round trip, MPI_Init and MPI_Finalize); ranks 0 and 1 are at 0, ranks
		# 2 and 3 at the injected -3 ms, within rtt/2 + 100 us + the 50 ppm drift since start
		run gdefs otf2-print -G ringf.otf2/traces.otf2
		expect_eq 0 "$RC" "traced ring: otf2-print -G exit status"
		sed -n 's/^LOCATION_GROUP_PROPERTY .*"MPI Rank \([0-9]*\)" .*Name: "perfscope::clock_\([a-z_]*\)_ns" .*Value: \(-*[0-9]*\)$/\1 \2 \3/p' \
			"$T/gdefs.out" | sort >props.txt
		run fdump "$PERFSCOPE" dump ringf.exp
		expect_eq 0 "$RC" "traced ring: dump exit status"
		awk '/^# / { r = "?"; if (match($0, / rank -?[0-9]+;/)) r = substr($0, RSTART + 6, RLENGTH - 7) }
			$4 == "mpi-clock" { ph = $5; sub("phase=", "", ph); o = $7; sub("offset_ns=", "", o)
				t = $8; sub("rtt_ns=", "", t); print r, "offset_" ph, o; print r, "rtt_" ph, t }' \
			"$T/fdump.out" | sort >clocks.txt
		expect_eq 16 "$(wc -l <props.txt)" "traced ring: clock properties in the archive (4 ranks x 4)"
		expect_eq "$(cat clocks.txt)" "$(cat props.txt)" "traced ring: archive clock properties = mpi-clock records"
		expect_eq "0 0 0 0 0 0 0 0" "$(awk '$1 < 2 { printf "%s%s", n++ ? " " : "", $3 }' props.txt)" \
			"traced ring: ranks 0 and 1 clock offsets and round trips"
		expect_eq "skewed skewed skewed skewed" "$(awk '/^# / { r = "?"; if (match($0, / rank -?[0-9]+;/)) r = substr($0, RSTART + 6, RLENGTH - 7) }
			$4 == "mpi-clock" && r >= 2 { o = $7; sub("offset_ns=", "", o); t = $8; sub("rtt_ns=", "", t)
				tol = t / 2 + 100000 + 60e-6 * $3; d = o + 3000000; if (d < 0) d = -d
				printf "%s%s", n++ ? " " : "", d <= tol ? "skewed" : o "+-" tol }' "$T/fdump.out")" \
			"traced ring: ranks 2 and 3 clock offsets near -3 ms"
	else
		note "no mpicc: functions around MPI calls not checked"
	fi
else
	note "no libperfscope-mpi.so, examples/mpi/calls_mpi or mpirun: recorded round trip not checked"
fi
finish
