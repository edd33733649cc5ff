#!/usr/bin/env bash
# record --force replaces an experiment, and only that, and only when it can:
# - in a directory holding an experiment and the user's files (-o . in a working directory),
#   it removes exactly the experiment's files: stream.c, maps.txt, power.csv, proc.py,
#   meta.json.bak and other near misses stay, byte for byte;
# - a directory that is not an experiment (no meta.json, a meta.json that is invalid JSON or
#   another program's) is refused with exit status 2 and one line, unless it is empty; so is
#   one where a name of an experiment's file is a directory;
# - an old experiment that cannot be removed (a file that cannot be moved: immutable as root,
#   a read-only directory otherwise; and, as root, another user's files in a sticky directory
#   with a meta.json anyone may write) is refused before the command runs: exit status 2, one
#   line, every old file as it was, and the report still shows the old run under its own
#   command line.
# fib(N) makes 2 fib(N+1) - 1 calls of fib: 177 for N=10, 15 for N=5.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

fib=$EX/fib
[ -x "$fib" ] || die "$fib was not built"

# snapshot DIR: every entry under DIR (hidden ones too) with its type, and every file's sum
# (or that DIR is missing)
snapshot() {
	if [ -d "$1" ]; then
		(cd "$1" && find . -mindepth 1 -printf '%y %p\n' | sort &&
			find . -type f -exec md5sum {} + | sort)
	else
		echo "$1 is missing"
	fi
}

# refused NAME DIR WHAT: the record of NAME exited 2 with one line naming DIR, the command
# (which creates $T/ran-NAME) did not run
refused() {
	expect_eq 2 "$RC" "$3: exit status"
	expect_eq 1 "$(wc -l <"$T/$1.err")" "$3: one line on stderr"
	expect_grep "$2" "$T/$1.err" "$3: stderr names the directory"
	expect_no_file "$T/ran-$1" "$3: the command did not run"
}

fib_calls() {
	report_csv_or_die "$1" "$2"
	csv_get "$T/$1.out" calls name=fib
}

# --- -o . in a working directory: only the experiment's files are replaced
mkdir "$T/here"
run here1 bash -c "cd '$T/here' && '$PERFSCOPE' record -o . --force --functions -- '$fib' 10"
expect_eq 0 "$RC" "record -o . --force into an empty directory: exit status"
expect_eq 177 "$(fib_calls rep-here1 "$T/here")" "first run: fib(10)'s calls"
mine="stream.c maps.txt power.csv proc.py meta.json.bak load.py samples.txt kallsyms.old
	live.1.2 stream.1.2.3.4 proc.-1.json stream.1.2x pmaps.txt samples.1.json meta.json~
	report.html"
for f in $mine; do
	echo "mine: $f" >"$T/here/$f"
done
old=$(cd "$T/here" && ls | grep -E '^(stream\.[0-9]+\.[0-9]+|proc\.[0-9]+\.json|maps\.[0-9]+)$')
[ -n "$old" ] || die "the first run wrote no stream, proc or maps file"
run here2 bash -c "cd '$T/here' && '$PERFSCOPE' record -o . --force --functions -- '$fib' 5"
expect_eq 0 "$RC" "record -o . --force over the experiment: exit status"
for f in $mine; do
	expect_eq "mine: $f" "$(cat "$T/here/$f" 2>&1)" "record -o . --force: the user's $f is kept"
done
for f in $old; do
	expect_no_file "$T/here/$f" "record -o . --force: the old run's $f is gone"
done
expect_eq 15 "$(fib_calls rep-here2 "$T/here")" "after --force: only fib(5)'s calls"
expect_eq "" "$(cd "$T/here" && ls -A | grep perfscope || true)" "no hidden directory is left"

# --- a directory that is not an experiment: refused unless empty
mkdir "$T/notexp"
echo "int main(void) { return 0; }" >"$T/notexp/stream.c"
echo "notes" >"$T/notexp/notes.txt"
echo "data" >"$T/notexp/stream.1.2"
before=$(snapshot "$T/notexp")
run ne "$PERFSCOPE" record -o "$T/notexp" --force -- touch "$T/ran-ne"
refused ne "$T/notexp" "record --force into a directory that is no experiment"
expect_grep "no meta.json" "$T/ne.err" "no experiment: stderr says why"
expect_eq "$before" "$(snapshot "$T/notexp")" "no experiment: nothing in it changed"

mkdir "$T/empty"
run em "$PERFSCOPE" record -o "$T/empty" --force -- true
expect_eq 0 "$RC" "record --force into an empty directory: exit status"
expect_file "$T/empty/meta.json" "record --force into an empty directory: meta.json"

# --- a meta.json that is not an experiment's
n=0
for meta in '{ "format": "perfscope-experiment", "version": 1, ' \
	'{"format": "something-else", "version": 1, "created_by": "x"}' \
	'{"format": "perfscope-experiment", "created_by": "x"}' '[1, 2]' ''; do
	n=$((n + 1))
	mkdir "$T/meta$n"
	printf '%s' "$meta" >"$T/meta$n/meta.json"
	echo "data" >"$T/meta$n/stream.1.2"
	before=$(snapshot "$T/meta$n")
	run meta$n "$PERFSCOPE" record -o "$T/meta$n" --force -- touch "$T/ran-meta$n"
	refused meta$n "$T/meta$n/meta.json" "meta.json '$meta'"
	expect_eq "$before" "$(snapshot "$T/meta$n")" "meta.json '$meta': nothing in it changed"
done
expect_grep "byte " "$T/meta1.err" "invalid JSON: stderr names the byte"

# --- an experiment's file name taken by a directory
record_or_die dirent "$T/dirent" --functions -- "$fib" 10
mkdir "$T/dirent/stream.1.2"
before=$(snapshot "$T/dirent")
run de "$PERFSCOPE" record -o "$T/dirent" --force -- touch "$T/ran-de"
refused de "$T/dirent/stream.1.2" "a directory named stream.1.2"
expect_eq "$before" "$(snapshot "$T/dirent")" "a directory named stream.1.2: nothing changed"

# --- an old experiment that cannot be removed: refused before the command runs
locked=$T/locked
record_or_die locked "$locked" --functions -- "$fib" 10
how=""
imm=""
if [ "$(id -u)" = 0 ]; then
	# root may remove anything but an immutable file
	imm=$(ls "$locked"/stream.* | head -1)
	if chattr +i "$imm" 2>/dev/null; then
		how="an immutable stream (root)"
		trap 'chattr -i "$imm" 2>/dev/null || true; _psc_on_exit' EXIT
	else
		note "chattr +i is not permitted here: the immutable case is not tried"
		imm=""
	fi
else
	# meta.json could still be rewritten in place: the issue's old data under a new command
	chmod a+w "$locked/meta.json"
	chmod a-w "$locked"
	how="a read-only directory"
fi
if [ -n "$how" ]; then
	before=$(snapshot "$locked")
	run lk "$PERFSCOPE" record -o "$locked" --force -- touch "$T/ran-lk"
	refused lk "$locked" "$how"
	expect_grep "cannot replace the experiment in $locked" "$T/lk.err" "$how: the cause"
	expect_grep "-o NEWDIR" "$T/lk.err" "$how: the fix"
	expect_eq "$before" "$(snapshot "$locked")" "$how: every old file as it was"
	expect_eq 177 "$(fib_calls rep-lk "$locked")" "$how: the report still shows the old run"
	expect_eq "$fib,10" "$(json_eval "$locked/meta.json" '",".join(d["command"])')" \
		"$how: meta.json names the old command"
fi
[ -z "$imm" ] || chattr -i "$imm"
chmod u+w "$locked"

# --- as root: another user replacing root's experiment in a sticky directory (the issue's
# report: the old files stayed, meta.json was rewritten in place, exit status 0)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	sticky=$T/sticky
	record_or_die sticky "$sticky" --functions -- "$fib" 10
	chmod 1777 "$sticky"
	chmod 0666 "$sticky/meta.json"
	chmod 0711 "$T"
	before=$(snapshot "$sticky")
	run st setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PERFSCOPE" record -o "$sticky" --force -- "$fib" 5
	expect_eq 2 "$RC" "another user's record --force: exit status"
	expect_eq 1 "$(wc -l <"$T/st.err")" "another user's record --force: one line"
	expect_no_grep "fib(5)" "$T/st.out" "another user's record --force: the command did not run"
	expect_eq "$before" "$(snapshot "$sticky")" "another user's record --force: nothing changed"
	expect_eq 177 "$(fib_calls rep-st "$sticky")" "another user's record --force: the old run"
	expect_eq "$fib,10" "$(json_eval "$sticky/meta.json" '",".join(d["command"])')" \
		"another user's record --force: meta.json names the old command"
	chmod 0700 "$T"
else
	note "not root or no setpriv: the other user's case is not tried"
fi

finish
