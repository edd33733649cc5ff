#!/usr/bin/env bash
# Bad input gives exit status 2 (usage/input) or 127 (command not found) and a one-line cause,
# touches nothing it must not, and an unsupported event is reported, not fatal.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/pagewalk
[ -x "$prog" ] || die "$prog was not built"

# --- unknown event, with a suggestion (stat and record)
for cmd in stat record; do
	run ev-$cmd "$PERFSCOPE" $cmd -o "$T/ev-$cmd.dir" -e page-fault -- true
	expect_eq 2 "$RC" "$cmd -e page-fault: exit status"
	expect_grep "unknown event 'page-fault'" "$T/ev-$cmd.err" "$cmd -e page-fault: stderr names the event"
	expect_grep "did you mean" "$T/ev-$cmd.err" "$cmd -e page-fault: stderr suggests"
	expect_grep "'page-faults'" "$T/ev-$cmd.err" "$cmd -e page-fault: stderr suggests page-faults"
done
expect_no_file "$T/ev-record.dir" "record -e page-fault: no experiment directory left behind"
expect_no_file "$T/ev-stat.dir" "stat -e page-fault: no output file left behind"

# --- a hardware event on a machine without PMU: reported as not supported, the rest counted
run lj "$PERFSCOPE" list --json
pmu=$(json_eval "$T/lj.out" 'd["perf"]["core_pmu"]')
if [ "$pmu" = "null" ]; then
	run hw "$PERFSCOPE" stat -e cycles,page-faults -- "$prog" -n 1000
	expect_eq 0 "$RC" "stat -e cycles,page-faults without PMU: exit status"
	PSC_CHECKS=$((PSC_CHECKS + 1))
	grep -E 'cycles' "$T/hw.out" | grep -q 'not supported: ..*' ||
		fail "stat -e cycles,page-faults: cycles is not shown as 'not supported: REASON': $(cat "$T/hw.out")"
	run hwcsv "$PERFSCOPE" stat -e cycles,page-faults --csv -o "$T/hw.csv" -- "$prog" -n 1000
	expect_eq 0 "$RC" "stat -e cycles,page-faults --csv without PMU: exit status"
	expect_eq "" "$(csv_get "$T/hw.csv" value kind=event name=cycles)" "cycles value is missing, not 0"
	st=$(csv_get "$T/hw.csv" status kind=event name=cycles)
	PSC_CHECKS=$((PSC_CHECKS + 1))
	case "$st" in
	"not supported: "?*) ;;
	*) fail "stat CSV status of cycles: expected 'not supported: REASON', got '$st'" ;;
	esac
	expect_eq counted "$(csv_get "$T/hw.csv" status kind=event name=page-faults)" "page-faults still counted next to cycles"
	expect_cmp "$(csv_get "$T/hw.csv" value kind=event name=page-faults)" '>=' 1000 "page-faults next to cycles"

	# record too: the region still has its page faults, cycles is missing with a reason
	record_or_die rec-hw "$T/hw.exp" -e cycles,page-faults -- "$prog" -n 1000
	report_csv_or_die rep-hw "$T/hw.exp"
	expect_near 1000 "$(csv_get "$T/rep-hw.out" page-faults name=walk)" 2 "record -e cycles,page-faults: page-faults of walk"
	expect_eq "" "$(csv_get "$T/rep-hw.out" cycles name=walk)" "record -e cycles,page-faults: cycles missing, not 0"
	run rep-hw-text "$PERFSCOPE" report "$T/hw.exp"
	expect_grep "cycles: not supported" "$T/rep-hw-text.out" "report names cycles as not supported"
else
	note "this machine has a core PMU ($pmu): the 'not supported' check of cycles is not made"
fi

# --- command not found
for cmd in stat record; do
	run nf-$cmd "$PERFSCOPE" $cmd -o "$T/nf-$cmd.dir" -e page-faults -- psc-no-such-command-xyz
	expect_eq 127 "$RC" "$cmd -- psc-no-such-command-xyz: exit status"
	expect_grep "psc-no-such-command-xyz" "$T/nf-$cmd.err" "$cmd: stderr names the missing command"
done

# --- no command
for cmd in stat record; do
	run nc-$cmd "$PERFSCOPE" $cmd -e page-faults
	expect_eq 2 "$RC" "$cmd without a command: exit status"
	expect_ne "" "$(cat "$T/nc-$cmd.err")" "$cmd without a command: a cause on stderr"
	run nc2-$cmd "$PERFSCOPE" $cmd -e page-faults --
	expect_eq 2 "$RC" "$cmd -e page-faults -- (nothing after --): exit status"
done

# --- unknown option, with a suggestion
run uo "$PERFSCOPE" stat --repaet 3 -- true
expect_eq 2 "$RC" "stat --repaet: exit status"
expect_grep "'--repaet'" "$T/uo.err" "stat --repaet: stderr names the option"
expect_grep "did you mean --repeat" "$T/uo.err" "stat --repaet: suggestion"
run uo2 "$PERFSCOPE" report --csvv
expect_eq 2 "$RC" "report --csvv: exit status"
expect_grep "did you mean --csv" "$T/uo2.err" "report --csvv: suggestion"
run uc "$PERFSCOPE" statt -- true
expect_eq 2 "$RC" "perfscope statt: exit status"
expect_grep "did you mean 'stat'" "$T/uc.err" "perfscope statt: suggestion"

# --- a malformed metric group file: FILE:LINE: cause
cat >"$T/bad.metrics" <<'GROUP'
# a group with a broken formula on line 3
description: broken on purpose
metric: broken = page-faults / ( time_s
events: page-faults
GROUP
for cmd in stat record; do
	run bg-$cmd "$PERFSCOPE" $cmd -o "$T/bg-$cmd.dir" -g "$T/bad.metrics" -- true
	expect_eq 2 "$RC" "$cmd -g bad.metrics: exit status"
	expect_grep "$T/bad.metrics:3:" "$T/bg-$cmd.err" "$cmd -g bad.metrics: stderr has FILE:3:"
done
expect_no_file "$T/bg-record.dir" "record -g bad.metrics: no experiment directory left behind"
run ng "$PERFSCOPE" stat -g no-such-group-xyz -- true
expect_eq 2 "$RC" "stat -g no-such-group-xyz: exit status"
expect_grep "no-such-group-xyz" "$T/ng.err" "stat -g no-such-group-xyz: stderr names it"

# --- record -o EXISTING_DIR: refused, untouched; --force replaces the experiment
record_or_die old "$T/exp" -e page-faults -- "$prog" -n 100
echo "mine" >"$T/exp/notes.txt"
before=$(cd "$T/exp" && find . -type f -exec md5sum {} + | sort)
run again "$PERFSCOPE" record -o "$T/exp" -e page-faults -- "$prog" -n 300
expect_eq 2 "$RC" "record -o EXISTING_DIR: exit status"
expect_grep "$T/exp" "$T/again.err" "record -o EXISTING_DIR: stderr names the directory"
expect_no_grep "expected page faults" "$T/again.out" "record -o EXISTING_DIR: the command was not run"
after=$(cd "$T/exp" && find . -type f -exec md5sum {} + | sort)
expect_eq "$before" "$after" "record -o EXISTING_DIR: content untouched"
old_streams=$(cd "$T/exp" && find . -maxdepth 1 -name "stream.*" | sort)
run force "$PERFSCOPE" record -o "$T/exp" --force -e page-faults -- "$prog" -n 300
expect_eq 0 "$RC" "record --force -o EXISTING_DIR: exit status"
report_csv_or_die rep-force "$T/exp"
expect_eq 1 "$(csv_get "$T/rep-force.out" calls name=walk)" "after --force: only the new run's walk"
expect_near 300 "$(csv_get "$T/rep-force.out" page-faults name=walk)" 2 "after --force: page-faults of the new run"
for s in $old_streams; do
	expect_no_file "$T/exp/$s" "after --force: the old experiment's streams are gone"
done
expect_eq "$prog,-n,300" "$(json_eval "$T/exp/meta.json" '",".join(d["command"])')" "after --force: meta.json is the new run's"

# --- stat -o EXISTING_FILE: refused, untouched; --force overwrites
printf 'precious\n' >"$T/keep.txt"
run so "$PERFSCOPE" stat -o "$T/keep.txt" -e page-faults -- true
expect_eq 2 "$RC" "stat -o EXISTING_FILE: exit status"
expect_grep "keep.txt" "$T/so.err" "stat -o EXISTING_FILE: stderr names the file"
expect_eq precious "$(cat "$T/keep.txt")" "stat -o EXISTING_FILE: file unchanged"
run sof "$PERFSCOPE" stat -o "$T/keep.txt" --force --csv -e page-faults -- true
expect_eq 0 "$RC" "stat -o EXISTING_FILE --force: exit status"
expect_eq "kind,name,value,unit,stddev,min,max,runs,running_pct,status" "$(csv_header "$T/keep.txt")" \
	"stat -o EXISTING_FILE --force: the results replace the file"

# --- report on something that is not an experiment
mkdir "$T/notexp"
echo data >"$T/notexp/a.txt"
run ne "$PERFSCOPE" report "$T/notexp"
expect_eq 2 "$RC" "report NOT_AN_EXPERIMENT: exit status"
expect_grep "$T/notexp" "$T/ne.err" "report NOT_AN_EXPERIMENT: stderr names the directory"
run nx "$PERFSCOPE" report "$T/does-not-exist"
expect_eq 2 "$RC" "report MISSING_DIR: exit status"
expect_grep "$T/does-not-exist" "$T/nx.err" "report MISSING_DIR: stderr names it"
run bo "$PERFSCOPE" report "$T/exp" --by nonsense
expect_eq 2 "$RC" "report --by nonsense: exit status"
run cj "$PERFSCOPE" report "$T/exp" --csv --json
expect_eq 2 "$RC" "report --csv --json: exit status"
run rz "$PERFSCOPE" stat -r 0 -- true
expect_eq 2 "$RC" "stat -r 0: exit status"

# --- psc_region_end without a begin: counted as a caveat, never fatal
cat >"$T/noend.c" <<'C'
#include <perfscope.h>
int main(void)
{
	psc_region_begin("ok");
	psc_region_end("ok");
	psc_region_end("never-begun");
	return 0;
}
C
build_c noend "$T/noend.c"
record_or_die rec-noend "$T/noend.exp" -e page-faults -- "$T/noend"
run rep-noend "$PERFSCOPE" report "$T/noend.exp"
expect_eq 0 "$RC" "report of an end without begin: exit status"
expect_grep "without a matching begin" "$T/rep-noend.out" "report (default --by region): caveat of the unmatched end"
report_csv_or_die rep-noend-c "$T/noend.exp"
expect_eq 1 "$(csv_get "$T/rep-noend-c.out" calls name=ok)" "report: the well-formed region is still counted"
run rep-noend-t "$PERFSCOPE" report "$T/noend.exp" --by thread
expect_eq 0 "$RC" "report --by thread of an end without begin: exit status"
expect_grep "without a matching begin" "$T/rep-noend-t.out" "report --by thread: caveat of the unmatched end"
run rep-noend-j "$PERFSCOPE" report "$T/noend.exp" --json
expect_eq 0 "$RC" "report --json of an end without begin: exit status"
expect_eq true "$(json_eval "$T/rep-noend-j.out" 'any("without a matching begin" in c for c in d["caveats"])')" \
	"report --json (default --by region): caveat of the unmatched end"

finish
