#!/usr/bin/env bash
# The corpus comparison (issue 20): every command of tests/corpus/commands.txt on the recorded
# experiments of tests/data/corpus must print byte for byte what tests/corpus/expected holds
# (standard output, standard error and exit status), as corpus-lib.sh runs and normalises them.
# A difference prints the command and the first lines of the diff; the test goes on through the
# list and fails at the end. After an intended change of an output: tests/corpus/README.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd otf2-print diff python3
. "$PSC_SOURCE/tests/corpus/corpus-lib.sh"
# the corpus names its programs under record.sh's staging directory, which must not exist here
EXP=$PSC_SOURCE/tests/corpus/expected
corpus_prepare "$T/work"
corpus_run_all "$T/got"
n=0
while IFS=$'\t' read -r name cmd; do
	n=$((n + 1))
	for ext in out err; do
		PSC_CHECKS=$((PSC_CHECKS + 1))
		if [ ! -f "$EXP/$name.$ext" ]; then
			fail "$name: $cmd: no expected $name.$ext (run tests/corpus/make-expected.sh)"
		elif ! cmp -s "$EXP/$name.$ext" "$T/got/$name.$ext"; then
			fail "$name: $cmd: standard $([ $ext = out ] && echo output || echo error) differs:"
			diff -u --label "expected/$name.$ext" --label "got/$name.$ext" \
				"$EXP/$name.$ext" "$T/got/$name.$ext" | head -n 20 >&2 || true
		fi
	done
done < <(corpus_commands)
# an expected output whose command left the list is stale
for f in "$EXP"/*.out; do
	name=$(basename "$f" .out)
	[ -f "$T/got/$name.out" ] || fail "expected/$name.out has no command in commands.txt"
done
note "$n commands compared"
finish
