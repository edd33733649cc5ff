#!/usr/bin/env bash
# test_docs_help.sh - every docs/cmd-NAME.md block introduced by "Exactly as `perfscope help
# NAME` prints them:" is what `perfscope help NAME` prints now, so the options a page lists
# never drift from the program's option tables.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

checked=0
for page in "$PSC_SOURCE"/docs/cmd-*.md; do
	name=$(basename "$page" .md)
	name=${name#cmd-}
	grep -qF "Exactly as \`perfscope help $name\` prints them:" "$page" || continue
	# the fenced block after the marker line (its blank line, then ``` ... ```)
	awk -v m="Exactly as \`perfscope help $name\` prints them:" '
		index($0, m) == 1 { found = 1; next }
		found == 1 && /^```/ { found = 2; next }
		found == 2 && /^```/ { exit }
		found == 2 { print }' "$page" >"$T/$name.doc"
	"$PERFSCOPE" help "$name" >"$T/$name.out" 2>&1 || true
	if cmp -s "$T/$name.doc" "$T/$name.out"; then
		checked=$((checked + 1))
	else
		fail "docs/cmd-$name.md's help block differs from perfscope help $name: $(diff "$T/$name.doc" "$T/$name.out" | head -3 | tr '\n' ' ')"
	fi
done
expect_cmp "$checked" ">=" 9 "help blocks checked (one per command page that has one)"
finish
