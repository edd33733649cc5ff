#!/usr/bin/env bash
# Names that attack the terminal: a program (hostile-prog.c) whose function symbol, regions,
# thread name, directory, argv and experiment directory carry ESC sequences (window title,
# colour, screen clear), BEL, CR, LF, DEL, a C1 CSI (U+009B), a bidirectional override
# (U+202E) and bytes that are not UTF-8. Every text command (report in every form, info, dump,
# timeline, energy, select with its files, stat, mpi in every form, and their error lines)
# must show them escaped (textesc.h): no byte below 0x20 but newline and tab, no DEL, no C1 or
# bidirectional control, valid UTF-8; and exactly as docs/cmd-report.md says ("\x1b]0;" for
# ESC ] 0 ;). Every JSON output (report, info, mpi --json, export --format chrome, and the
# experiment's own meta.json and proc files) must parse as UTF-8 JSON.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc) to build the test program"
san=()
[ "${PSC_SANITIZE:-OFF}" = ON ] && san=(-fsanitize=address,undefined)
# the program's directory: what /proc/PID/maps shows as it is (a newline it would write as
# \012, and the module could not be read for symbols)
bindir=$T/$'bin\e]0;PWN\a\e[2J\r\x7f\xc2\x9b\xff'
mkdir -p "$bindir"
prog=$bindir/prog
"$cc" -O1 -g -finstrument-functions -DPERFSCOPE -I"$PSC_SOURCE/include" \
	"$PSC_SOURCE/tests/e2e/hostile-prog.c" -o "$prog" -L"$PSC_BUILD" -lperfscope \
	-Wl,-rpath,"$PSC_BUILD" -pthread "${san[@]}" >"$T/cc.log" 2>&1 ||
	die "cannot build hostile-prog.c: $(cat "$T/cc.log")"
exp=$T/$'exp\e]0;EXP\a\n\xff'
arg=$'arg\e]0;ARG\a\r\n\xff\xc3'

# clean FILE..: text for a terminal (checked at the end, in one run of Python): each file valid
# UTF-8 without control characters (but newline and tab), DEL, C1 controls, line separators
# or bidirectional controls
texts=()
clean() {
	texts+=("$@")
}

# json_utf8 FILE: FILE is UTF-8 JSON (checked at the end too)
jsons=()
json_utf8() {
	jsons+=("$1")
}

# check_all: the checks of clean and json_utf8, one per file
check_all() {
	local out
	PSC_CHECKS=$((PSC_CHECKS + ${#texts[@]} + ${#jsons[@]}))
	out=$(python3 - "${texts[@]}" -- "${jsons[@]}" <<'PY'
import json, sys
bad_cp = set(range(0x80, 0xa0)) | {0x61c, 0x200e, 0x200f, 0x2028, 0x2029} | \
    set(range(0x202a, 0x202f)) | set(range(0x2066, 0x206a))
sep = sys.argv.index("--")
for p in sys.argv[1:sep]:
    b = open(p, "rb").read()
    try:
        t = b.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"{p!r}: not UTF-8 at byte {e.start}: {b[max(0, e.start - 30):e.start + 10]!r}")
        continue
    for i, ch in enumerate(t):
        c = ord(ch)
        if (c < 0x20 and ch not in "\n\t") or c == 0x7f or c in bad_cp:
            print(f"{p!r}: U+{c:04X} at character {i}: {t[max(0, i - 30):i + 10]!r}")
            break
for p in sys.argv[sep + 1:]:
    try:
        json.loads(open(p, "rb").read().decode("utf-8"))
    except Exception as e:
        print(f"{p!r}: not UTF-8 JSON: {e}")
PY
)
	if [ -n "$out" ]; then
		PSC_FAILURES=$((PSC_FAILURES + $(printf '%s\n' "$out" | wc -l)))
		printf 'FAIL: %s\n' "$out" >&2
	fi
}

# text NAME ARGS..: perfscope ARGS.. must succeed with clean stdout and stderr
text() {
	local name=$1
	shift
	run "$name" "$PERFSCOPE" "$@"
	expect_eq 0 "$RC" "perfscope $*: exit status"
	[ "$RC" -eq 0 ] || show "$name"
	clean "$T/$name.out" "$T/$name.err"
}

sample=(--sample --callgraph)
run probe "$PERFSCOPE" record -o "$T/probe" --sample --callgraph -- true
if [ "$RC" -ne 0 ]; then
	note "record --sample fails here ($(head -n 1 "$T/probe.err")): timeline is not checked"
	sample=()
fi
record_or_die rec "$exp" --functions "${sample[@]}" -- "$prog" "$arg"

# the escapes, exactly: the function, a region, a thread name
fn='evil\x1b]0;PWNED\x07\x1b[2J\r\x7f\u009b\u202e\xff\xc3fn'
outer='outer \x1b]0;PWNED\x07\x1b[31m\x1b[2J\r\n\x7f\u009b\u202e\xff\xc3'
inner='inner\n\x1b[1mline2'
thread='\x1b]0;T\x07\r\n\xffx'

text report report "$exp"
expect_grep "  $fn      3" "$T/report.out" "report: the function's row, escaped, with its 3 calls"
expect_grep "  $outer      all      1" "$T/report.out" "report: the outer region's row, escaped"
expect_grep "  $inner" "$T/report.out" "report: a region name with a newline on one line"
text tree report "$exp" --tree
expect_eq 2 "$(grep -cF "  $fn" "$T/tree.out")" "report --tree: the function on its two paths"
text tree-thread report "$exp" --tree --by thread
expect_grep "\"$thread\" of process" "$T/tree-thread.out" "report --tree --by thread: the thread's name"
text regions report "$exp" --by region
text threads report "$exp" --by thread
text csv report "$exp" --csv
expect_grep "$fn,all,3," "$T/csv.out" "report --csv: the function's row, escaped"
expect_eq 4 "$(wc -l <"$T/csv.out")" "report --csv: one line per function and the header"
text region-csv report "$exp" --by region --csv
expect_grep "$inner,all,2," "$T/region-csv.out" "report --by region --csv: no raw line break in a field"
run json "$PERFSCOPE" report "$exp" --json
expect_eq 0 "$RC" "report --json: exit status"
json_utf8 "$T/json.out"
expect_grep '"name": "evil\u001b]0;PWNED\u0007\u001b[2J\r\u007f\u009b'$'\xe2\x80\xae''\ufffd\ufffdfn"' \
	"$T/json.out" "report --json: the function's name, its invalid bytes as U+FFFD"
text info info "$exp"
expect_grep "exp\\x1b]0;EXP\\x07\\n\\xff" "$T/info.out" "info: the experiment directory, escaped"
run info-json "$PERFSCOPE" info "$exp" --json
json_utf8 "$T/info-json.out"
for f in "$exp"/meta.json "$exp"/proc.*.json; do
	json_utf8 "$f" # written by record and the runtime
done
text dump dump "$exp"
expect_grep "name=\"$thread\"" "$T/dump.out" "dump: the thread's name"
expect_grep "name=\"$inner\"" "$T/dump.out" "dump: a region's name"
run chrome "$PERFSCOPE" export "$exp" --format chrome -o "$T/trace.json"
expect_eq 0 "$RC" "export --format chrome: exit status"
json_utf8 "$T/trace.json"
if [ ${#sample[@]} -gt 0 ]; then
	text timeline timeline "$exp"
	expect_grep "region $outer begins" "$T/timeline.out" "timeline: the region's marker"
	text timeline-csv timeline "$exp" --csv
	text samples report "$exp" --by sample
	text sample-lines report "$exp" --by sample --lines
	text sample-csv report "$exp" --by sample --csv
	text sample-tree report "$exp" --by sample --tree
	text callers report "$exp" --by sample --callers $'evil\e]0;PWNED\a\e[2J\r\x7f\xc2\x9b\xe2\x80\xae\xff\xc3fn'
	expect_grep "Callers of $fn (" "$T/callers.out" "report --callers: the function, escaped"
	text callers-csv report "$exp" --by sample --csv --callers $'evil\e]0;PWNED\a\e[2J\r\x7f\xc2\x9b\xe2\x80\xae\xff\xc3fn'
	text accuracy report "$exp" --accuracy
fi

# energy: the power file's path is printed as the source
for i in $(seq 1 2000); do echo 12.5; done >"$bindir/power.txt"
text energy energy "$exp" --power "$bindir/power.txt" --power-rate 10000
expect_grep "$fn" "$T/energy.out" "energy: the function's row"
text energy-csv energy "$exp" --power "$bindir/power.txt" --power-rate 10000 --csv
run energy-missing "$PERFSCOPE" energy "$exp" --power "$bindir/none.txt"
expect_eq 2 "$RC" "energy with a missing power file: exit status"
clean "$T/energy-missing.err"
expect_eq 1 "$(wc -l <"$T/energy-missing.err")" "energy with a missing power file: one line"

# select: its messages, and its files (the filter's comments; the function's line names the
# module as the maps did, raw, so that the runtime finds it)
text select select "$exp" --top 3 -o "$T/f.filter"
clean "$T/f.filter.cflags"
grep '^#' "$T/f.filter" >"$T/f.comments"
clean "$T/f.comments"
expect_eq "$prog" "$(awk -F'\t' '/^[^#]/ && $3 == "main" { print $1 }' "$T/f.filter")" "select: main's module in the filter, as the maps name it"

# errors name the cause in one line
run missing "$PERFSCOPE" report "$T/"$'none\e]0;X\a'
expect_grep 'none\x1b]0;X\x07' "$T/missing.err" "report of a missing directory: its name, escaped"
expect_eq 2 "$RC" "report of a missing directory: exit status"
clean "$T/missing.err"

# stat shows the command it ran
run stat "$PERFSCOPE" stat -- "$prog" "$arg"
expect_eq 0 "$RC" "stat: exit status"
grep -v '^[01]$' "$T/stat.out" >"$T/stat.text" || true
clean "$T/stat.text" "$T/stat.err"
expect_grep "\"arg\\x1b]0;ARG\\x07\\r\\n\\xff\\xc3\"" "$T/stat.text" "stat: the argument, escaped"

# mpi: a run of the ring example from the hostile directory, its hosts then renamed
if command -v mpirun >/dev/null 2>&1 && [ -x "$EX/mpi/ring" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1
	cp "$EX/mpi/ring" "$bindir/ring"
	mexp=$T/$'mpi\e]0;M\a\xff'
	run mrec timeout -k 5 60 "$PERFSCOPE" record --mpi --load -o "$mexp" -- \
		mpirun -np 2 "$bindir/ring" -b 1 -n 2
	[ "$RC" -eq 0 ] || {
		show mrec
		die "record --mpi of ring exited $RC"
	}
	python3 - "$mexp" <<'PY'
import glob, re, sys
d = sys.argv[1]
for p in glob.glob(d + "/proc.*.json"):
    b = open(p, "rb").read()
    b = re.sub(rb'"host": *"[^"]*"', lambda m: b'"host":"n\\u001b]0;H\\u0007\\r\\n\\u009b\xff"', b)
    open(p, "wb").write(b)
for p in glob.glob(d + "/load.*"):
    b = open(p, "rb").read()
    b = re.sub(rb"# host [^\n]*", lambda m: b"# host h\x1b]0;LOAD\x07\r\xff", b)
    open(p, "wb").write(b)
PY
	for v in "" --waits --traffic --routines --patterns --load; do
		text "mpi$v" mpi "$mexp" $v
		text "mpi$v-csv" mpi "$mexp" $v --csv
		run "mpi$v-json" "$PERFSCOPE" mpi "$mexp" $v --json
		json_utf8 "$T/mpi$v-json.out"
	done
	expect_grep 'Load over time on h\x1b]0;LOAD\x07\r\xff' "$T/mpi--load.out" "mpi --load: the host, escaped"
	text mpi-report report "$mexp" --by rank
	text mpi-scope report "$mexp" --by scope
else
	note "mpirun or the ring example is missing: mpi is not checked"
fi

check_all
finish
