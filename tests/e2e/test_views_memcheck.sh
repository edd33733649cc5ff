#!/usr/bin/env bash
# Views read nothing uninitialised: the reports of an OTF2 archive and of experiments (each
# view's text, CSV and JSON) under valgrind's memcheck, which sees what the sanitizers do not
# (a view whose separator field was left unset made `report ARCHIVE` branch on garbage).
# Skipped in sanitizer builds: valgrind cannot run the ASan runtime.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

require_cmd valgrind
[ "${PSC_SANITIZE:-OFF}" = ON ] && skip "sanitizer build: valgrind cannot run it"
data=$PSC_SOURCE/tests/data
archive=$data/otf2/ping-pong-otf2/traces.otf2
exp=$data/corpus/exp

# memcheck NAME ARGS..: perfscope ARGS under memcheck exits 0 with no error of valgrind's
memcheck() {
	local name=$1
	shift
	run "$name" valgrind -q --error-exitcode=99 "$PERFSCOPE" "$@"
	expect_eq 0 "$RC" "$name: exit status under memcheck (99: valgrind found an error)"
	expect_no_grep '==[0-9]*==' "$T/$name.err" "$name: valgrind's report"
}

for fmt in text csv json; do
	memcheck "archive-$fmt" report "$archive" --format "$fmt"
	memcheck "regions-$fmt" report "$exp/regions" --format "$fmt"
	memcheck "fib-$fmt" report "$exp/fib" --format "$fmt"
done
memcheck archive-scope report "$archive" --by scope
memcheck fib-tree report "$exp/fib" --tree
finish
