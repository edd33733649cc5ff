#!/usr/bin/env bash
# test_report_otf2.sh - `perfscope report` given an OTF2 archive's anchor (the Score-P
# ping-pong of tests/data/otf2) says in one line that it reads directories and that
# `perfscope mpi` reads archives, and exits 2, with and without --categories.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
anchor=$PSC_SOURCE/tests/data/otf2/ping-pong-otf2/traces.otf2
[ -f "$anchor" ] || die "$anchor is missing"
for args in "" "--by scope --categories"; do
	# shellcheck disable=SC2086
	run rep "$PERFSCOPE" report $args "$anchor"
	expect_eq 2 "$RC" "report $args ARCHIVE: exit status"
	expect_eq 1 "$(wc -l <"$T/rep.err")" "report $args ARCHIVE: one line"
	expect_grep "perfscope report: $anchor: an OTF2 archive; report reads experiment directories (perfscope mpi $anchor reads archives)" \
		"$T/rep.err" "report $args ARCHIVE: message"
done
finish
