#!/usr/bin/env bash
# The function-tracing hooks preserve errno: a traced function that sets errno just before
# returning leaves it to its caller, and a value set before a call is what the callee sees on
# entry. Checked on the first call of each function (the hooks' slow path: the thread's buffer
# and the symbol are set up there), on later calls, and with --filter (the filtered slow path:
# a listed function and one the filter leaves out). The program's exit status names the first
# check that failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cat >"$T/errno.c" <<'C'
#include <errno.h>
#include <stdio.h>

/* noipa: every call is a real call with its own pair of hooks */
__attribute__((noipa)) static void set42(void) { errno = 42; }
__attribute__((noipa)) static void other42(void) { errno = 42; }
__attribute__((noipa)) static int seen(void) { return errno; }
__attribute__((noipa)) static int other_seen(void) { return errno; }

/* F sets errno to 42 before returning; G returns errno as it finds it on entry */
static int check(void (*f)(void), int (*g)(void), int base)
{
	errno = 0;
	f();
	if (errno != 42)
		return base + 1;
	errno = 7;
	if (g() != 7)
		return base + 2;
	if (errno != 7)
		return base + 3;
	return 0;
}

int main(void)
{
	int rc;

	/* first call of each function (slow path), then later calls (fast path) */
	for (int i = 0; i < 3; i++) {
		if ((rc = check(set42, seen, 10 * i + 10)) != 0)
			return rc;
		if ((rc = check(other42, other_seen, 10 * i + 50)) != 0)
			return rc;
	}
	printf("errno kept\n");
	return 0;
}
C
build_traced errno "$T/errno.c"

run plain "$T/errno"
expect_eq 0 "$RC" "errno: the program's own checks without perfscope"

d=$T/all.exp
run rec-all "$PERFSCOPE" record --functions -o "$d" -- "$T/errno"
expect_eq 0 "$RC" "errno kept by the hooks under record --functions (exit status: failed check)"
[ "$RC" -eq 0 ] || show rec-all
report_csv_or_die all "$d"
# the hooks did record: 3 calls of each function (the check would pass trivially otherwise)
for f in set42 other42 seen other_seen; do
	expect_eq 3 "$(csv_get "$T/all.out" calls name=$f)" "--functions: calls of $f"
done

# --filter: set42 and seen listed; other42 and other_seen run through the hooks' filtered path
prog=$(readlink -f "$T/errno")
{
	echo "# perfscope filter 1"
	nm "$prog" | awk -v m="$prog" '$3 == "set42" || $3 == "seen" || $3 == "main" { printf "%s\t0x%s\t%s\n", m, $1, $3 }'
} >"$T/errno.filter"
expect_eq 4 "$(wc -l <"$T/errno.filter")" "filter file: header and 3 functions"
d=$T/filt.exp
run rec-filt "$PERFSCOPE" record --filter "$T/errno.filter" -o "$d" -- "$T/errno"
expect_eq 0 "$RC" "errno kept by the hooks under record --filter (exit status: failed check)"
[ "$RC" -eq 0 ] || show rec-filt
report_csv_or_die filt "$d"
expect_eq 3 "$(csv_get "$T/filt.out" calls name=set42)" "--filter: calls of set42 (listed)"
expect_eq 3 "$(csv_get "$T/filt.out" calls name=seen)" "--filter: calls of seen (listed)"
expect_eq 1 "$(csv_get "$T/filt.out" calls name=main)" "--filter: calls of main (listed)"
expect_eq "" "$(csv_get "$T/filt.out" calls name=other42 2>/dev/null)" "--filter: other42 (not listed) is not recorded"

finish
