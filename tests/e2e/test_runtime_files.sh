#!/usr/bin/env bash
# The runtime writes only its own files: with PERFSCOPE_OUT naming a directory another user
# owns, or one others may write to, it records nothing; in any directory it never follows a
# symbolic link planted under one of its file names, and never writes into a file it did not
# create (docs/runtime.md "Files").
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/pagewalk
[ -x "$prog" ] || die "$prog was not built"
id -u nobody >/dev/null 2>&1 || skip "no user 'nobody' to own a directory"

victim=$T/victim
printf 'secret\n' >"$victim"
chmod 600 "$victim"

# Links named as the runtime names its files, for the next pids, to the victim file: a
# program started now gets one of these pids.
plant() {
	python3 - "$1" "$victim" <<'PY'
import os, sys
d, victim = sys.argv[1], sys.argv[2]
last = int(open("/proc/sys/kernel/ns_last_pid").read())
for pid in range(last + 1, last + 3001):
    for name in ("maps.%d", "stream.%d.%d", "meta.json.tmp%d", "proc.%d.json.tmp%d"):
        os.symlink(victim, os.path.join(d, name % ((pid,) * name.count("%d"))))
PY
}

victim_intact() {
	expect_eq "secret" "$(cat "$victim")" "$1: the victim file is unchanged"
	expect_eq 600 "$(stat -c %a "$victim")" "$1: the victim file's mode is unchanged"
}

# 1. a directory of another user, full of links: nothing is written, the program runs
other=$T/other
mkdir "$other"
plant "$other"
chown -R nobody "$other"
n_before=$(find "$other" | wc -l)
run other env PERFSCOPE_OUT="$other" PERFSCOPE_EVENTS=page-faults "$prog" -n 1000
expect_eq 0 "$RC" "another user's directory: the program's exit status"
expect_eq "" "$(cat "$T/other.err")" "another user's directory: the program's stderr"
victim_intact "another user's directory"
expect_eq "$n_before" "$(find "$other" | wc -l)" "another user's directory: no file added"

# 2. a directory of ours that others may write to (no sticky bit): refused the same way
open=$T/open
mkdir "$open"
chmod 777 "$open"
run open env PERFSCOPE_OUT="$open" "$prog" -n 1000
expect_eq 0 "$RC" "a directory writable by all: the program's exit status"
expect_eq "" "$(ls -A "$open")" "a directory writable by all: nothing written"

# 3. our own directory holding planted links: recording goes on, no link is followed
ours=$T/ours
mkdir "$ours"
plant "$ours"
run ours env PERFSCOPE_OUT="$ours" PERFSCOPE_EVENTS=page-faults "$prog" -n 1000
expect_eq 0 "$RC" "planted links: the program's exit status"
victim_intact "planted links"
pid=$(find "$ours" -name 'proc.*.json' -type f | sed 's/.*proc\.\([0-9]*\)\.json/\1/')
[ -n "$pid" ] || die "planted links: no proc file was written"
[ -L "$ours/maps.$pid" ] || fail "planted links: maps.$pid is no longer the planted link"
[ -L "$ours/stream.$pid.$pid" ] || fail "planted links: stream.$pid.$pid is no longer the link"
# the only links gone are the names of the process's own temporary files, replaced (the
# directory is the user's: such a name is a leftover of a killed process of that pid)
expect_eq 11998 "$(find "$ours" -type l | wc -l)" "planted links: the other links are there"

# 4. a sticky directory anyone may write to, owned by us: recording works as usual
sticky=$T/sticky
mkdir "$sticky"
chmod 1777 "$sticky"
run sticky env PERFSCOPE_OUT="$sticky" PERFSCOPE_EVENTS=page-faults "$prog" -n 1000
expect_eq 0 "$RC" "sticky directory: the program's exit status"
report_csv_or_die rep "$sticky"
expect_eq 1 "$(csv_get "$T/rep.out" calls name=walk)" "sticky directory: calls of walk"

finish
