#!/usr/bin/env bash
# Function tracing holds a bounded amount of memory: each thread has two chunks of
# --buffer-size (plus the compressor's buffer of one chunk), written out as they fill, so the
# traced program's maximum RSS does not grow with the length of its trace. A traced fib(25)
# (242785 calls) and fib(32) (7049155 calls, a trace 30 times as long) with --buffer-size 64k
# must peak within 1 MiB (16 chunks) of each other; with --buffer-size 8M, fib(32) must peak at
# least 2 and at most 3 chunks (8M - 64k each) higher, which shows that the measure sees the
# buffers. The program reads its own peak (getrusage ru_maxrss) at the end of main.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cat >"$T/rssfib.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

/* noipa and the empty asm: every call is a real call with its own pair of hooks */
__attribute__((noipa)) static unsigned long fib(unsigned n)
{
	unsigned long r;

	if (n < 2)
		return n;
	r = fib(n - 1) + fib(n - 2);
	__asm__ volatile("" : "+r"(r));
	return r;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	unsigned long r = fib(argc > 1 ? (unsigned)atoi(argv[1]) : 20);

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 2;
	printf("fib %lu maxrss_kib %ld\n", r, ru.ru_maxrss);
	return 0;
}
C
build_traced rssfib "$T/rssfib.c"

# rss NAME N BUFSIZE: record fib(N) with --buffer-size BUFSIZE; sets KIB to its peak RSS in KiB
# and checks the calls of fib: 2 F(N + 1) - 1
rss() {
	local name=$1 n=$2 bs=$3 d=$T/$1.exp
	record_or_die "$name" "$d" --functions --buffer-size "$bs" -- "$T/rssfib" "$n"
	report_csv_or_die "$name-csv" "$d"
	local want
	want=$(python3 -c "a, b = 0, 1
for _ in range($n + 1): a, b = b, a + b
print(2 * a - 1)")
	expect_eq "$want" "$(csv_get "$T/$name-csv.out" calls name=fib)" "fib($n) with --buffer-size $bs: calls of fib"
	rm -rf -- "$d" # fib(32) leaves tens of MB
	KIB=$(sed -n 's/^fib [0-9]* maxrss_kib \([0-9]*\)$/\1/p' "$T/$name.out")
	[ -n "$KIB" ] || die "fib($n) did not print its peak RSS: $(cat "$T/$name.out")"
}

rss small 25 64k
small=$KIB
rss large 32 64k
large=$KIB
rss big 32 8M
big=$KIB
note "peak RSS (KiB): fib(25) 64k $small, fib(32) 64k $large, fib(32) 8M $big"
expect_cmp "$(awk -v a="$small" -v b="$large" 'BEGIN { d = b - a; print d < 0 ? -d : d }')" '<=' 1024 \
	"--buffer-size 64k: peak RSS of fib(32) ($large KiB) within 1 MiB (16 chunks) of fib(25)'s ($small KiB)"
# 8M chunks: at least the two buffers are touched, at most them and the compressor's buffer
# (with the sanitizers, each malloc'd buffer also has 1/8 of its size in shadow memory)
chunk=$((8192 - 64))
hi=$((3 * chunk + 1024))
[ "${PSC_SANITIZE:-OFF}" = ON ] && hi=$((27 * chunk / 8 + 1024))
expect_cmp "$((big - large))" '>=' $((2 * chunk)) "--buffer-size 8M: fib(32)'s peak RSS grows by at least 2 chunks of 8M - 64k"
expect_cmp "$((big - large))" '<=' "$hi" "--buffer-size 8M: fib(32)'s peak RSS grows by at most 3 chunks of 8M - 64k"

finish
