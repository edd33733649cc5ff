#!/usr/bin/env bash
# test_stdout_full.sh - a command whose standard output cannot be written (a full disk behind a
# redirection: /dev/full) says so in one line and exits 1, whatever the command: main.c's one
# epilogue checks what every command wrote (before it, they exited 0 with nothing written).
# A pipe whose reader leaves early is not an error of perfscope's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
[ -w /dev/full ] || skip "no /dev/full"

# the corpus's programs are named from its build-id cache (no warning lines)
cp -r "$PSC_SOURCE/tests/data/corpus/cache" "$T/cache"
export PERFSCOPE_CACHE_DIR=$T/cache
exp=$PSC_SOURCE/tests/data/corpus/exp
cd "$exp"
for args in "info fib" "info --json fib" "report fib" "report --csv regions" "report --tree fib" \
	"dump --limit 50 fib" "mpi ring" "timeline phases" "energy energy" "list" "help report"; do
	rc=0
	# shellcheck disable=SC2086
	"$PERFSCOPE" $args >/dev/full 2>"$T/err" || rc=$?
	expect_eq 1 "$rc" "perfscope $args >/dev/full: exit status"
	# the cause, when the failing write was the last one (an earlier one's errno is gone)
	grep -v "^perfscope: warning: " "$T/err" >"$T/said" || true
	PSC_CHECKS=$((PSC_CHECKS + 1))
	grep -qxE "perfscope [a-z]+: cannot write standard output: (No space left on device|a write failed)" \
		"$T/said" || fail "perfscope $args >/dev/full: the cause: $(cat "$T/said")"
	expect_eq 1 "$(grep -c "cannot write" "$T/err")" "perfscope $args >/dev/full: said once"
done
# a reader that stops early (head) is no failure to report
set +e
trap - ERR
"$PERFSCOPE" dump fib 2>"$T/pipe.err" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
set -e
trap _psc_on_err ERR
expect_no_grep "cannot write" "$T/pipe.err" "dump | head: nothing said about the pipe"
case $rc in 0 | 141) ;; *) fail "dump | head: exit status $rc (0, or 141 for SIGPIPE)" ;; esac
finish
