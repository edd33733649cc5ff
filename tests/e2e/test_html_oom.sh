#!/usr/bin/env bash
# perfscope html out of memory: under address-space limits (ulimit -v) from the lowest at which
# the program loads up to one where the report is written, every run either writes the whole
# report (its MPI data there, nothing but "wrote" on stderr, exit 0) or says it ran out of
# memory in one line, exits 1 and leaves the existing output file as it was. Before, a limit
# in between wrote a report without its MPI views and exited 0.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
# the sanitizers reserve terabytes of address space: no address-space limit can be tried there
[ "${PSC_SANITIZE:-OFF}" = ON ] && skip "address-space limits (ulimit -v) do not work under ASan"
mpi_init

mpi_record rec "$T/ring" 2 "$(mpi_prog ring)" -b 2
run full "$PERFSCOPE" html "$T/ring" -o "$T/full.html"
expect_eq 0 "$RC" "html without a limit: exit status"
grep -q '"mpi":{' "$T/full.html" || die "the report without a limit has no MPI data"

# html KB: perfscope html under ulimit -v KB into $T/lim.html (which holds "old" before)
html_limited() {
	printf 'old\n' >"$T/lim.html"
	RC=0
	(
		ulimit -v "$1"
		exec "$PERFSCOPE" html "$T/ring" -o "$T/lim.html" --force
	) >"$T/lim.out" 2>"$T/lim.err" || RC=$?
}

# the lowest limit (in steps of 1 MB) at which the program and its libraries load
low=4000
while :; do
	html_limited "$low"
	grep -q "error while loading shared libraries" "$T/lim.err" || break
	low=$((low + 1000))
	[ "$low" -lt 200000 ] || die "perfscope does not load under ulimit -v 200000"
done
oom=0 ok=0
for ((kb = low; kb < low + 40000 && ok < 3; kb += 250)); do
	html_limited "$kb"
	if [ "$RC" = 0 ]; then
		ok=$((ok + 1))
		expect_eq 1 "$(grep -c '"mpi":{' "$T/lim.html")" "ulimit -v $kb: exit 0, so the report has its MPI data"
		expect_eq "perfscope html: wrote $T/lim.html" "$(cat "$T/lim.err")" "ulimit -v $kb: exit 0, nothing said but where"
	else
		oom=$((oom + 1))
		expect_eq 1 "$RC" "ulimit -v $kb: out of memory exits 1"
		expect_eq 1 "$(wc -l <"$T/lim.err")" "ulimit -v $kb: one line on stderr: $(head -c 300 "$T/lim.err")"
		expect_grep "out of memory" "$T/lim.err" "ulimit -v $kb: the line says out of memory"
		expect_eq old "$(cat "$T/lim.html")" "ulimit -v $kb: the output file is left as it was"
	fi
done
note "from ulimit -v $low: $oom runs out of memory, then $ok written"
[ "$oom" -gt 0 ] || fail "no limit from $low KB on ran out of memory: nothing was tried"
[ "$ok" -gt 0 ] || fail "no limit up to $kb KB wrote the report"

finish
