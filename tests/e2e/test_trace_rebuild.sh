#!/usr/bin/env bash
# A program rebuilt after it was recorded keeps the names of the build that ran. The runtime
# writes each loaded object's build-id (and size, mtime) into the maps, record copies every
# object into the build-id cache (PERFSCOPE_CACHE_DIR, the test's own) when the command ends,
# and every reader checks the file it finds against the recorded build-id:
#  - a rebuild that moves the functions (a function added before them): report, select,
#    energy and the call tree name the calls of the build that ran, from the cache, with
#    their exact counts (3 calls of first_fn, 5 of second_fn);
#  - a rebuild with another -D that swaps the two functions but keeps the file's size and
#    mtime: only the build-id tells, and it does;
#  - the cache emptied: the program's addresses are shown as prog+0xOFFSET, one caveat names
#    the file and both build-ids, select refuses (exit 2, one line), never a name of the new
#    build; info says which objects changed and which came from the cache.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc)"
san=()
[ "${PSC_SANITIZE:-OFF}" = ON ] && san=(-fsanitize=address,undefined)

cat >"$T/prog.c" <<'C'
#include <stdio.h>

#ifdef MOVED
__attribute__((noinline)) int added_first(int x) { return x * 7 + 5 + added_first(x - 1); }
#endif
#ifndef SWAP
__attribute__((noinline)) int first_fn(int x) { return x * 3 + 1; }
__attribute__((noinline)) int second_fn(int x) { return x * 5 + 2; }
#else
__attribute__((noinline)) int second_fn(int x) { return x * 5 + 2; }
__attribute__((noinline)) int first_fn(int x) { return x * 3 + 1; }
#endif

int main(void)
{
	int s = 0;

	for (int i = 0; i < 3; i++)
		s += first_fn(i);
	for (int i = 0; i < 5; i++)
		s += second_fn(i);
	printf("%d\n", s);
	return 0;
}
C
# build OUT FLAGS..: the program, padded to 256 KiB so that builds have one size
build() {
	local out=$1
	shift
	"$cc" -O1 -g -finstrument-functions "$@" "$T/prog.c" -o "$out" "${san[@]}" \
		>"$out.cc.log" 2>&1 || die "cannot build $out: $(cat "$out.cc.log")"
	[ "$(stat -c %s "$out")" -le 262144 ] || skip "the test program is over 256 KiB"
	truncate -s 262144 "$out"
}
build "$T/v1"
build "$T/moved" -DMOVED
build "$T/swapped" -DSWAP
expect_ne "$(cmp -s "$T/v1" "$T/swapped" && echo same)" same "-DSWAP makes another file"

# names "name:calls" of the report of DIR, sorted, comma-joined
profile() { # NAME DIR
	report_csv_or_die "$1" "$2"
	awk -F, 'NR > 1 { print $1 ":" $3 }' "$T/$1.out" | sort | paste -sd, -
}
want="first_fn:3,main:1,second_fn:5"

mkdir "$T/bin"
cp -p "$T/v1" "$T/bin/prog"
record_or_die rec "$T/e1" --functions -- "$T/bin/prog"
expect_eq 72 "$(cat "$T/rec.out")" "the program's output"
expect_eq "$want" "$(profile base "$T/e1")" "the recorded build's profile"
n=$({ find "$T/cache/buildid" -name elf 2>/dev/null || true; } | wc -l)
expect_cmp "$n" ">=" 2 "record kept the program and its libraries in the cache ($n entries)"
id=$(readelf -n "$T/v1" | awk '/Build ID/ { print $3 }')
expect_eq "$(cksum <"$T/v1")" "$(cksum <"$T/cache/buildid/${id:0:2}/${id:2}/elf" 2>/dev/null || true)" \
	"the cache entry of the program's build-id is a copy of it"
expect_eq 700 "$(stat -c %a "$T/cache/buildid" 2>/dev/null || true)" "the cache's directories are the user's alone"

# --- a rebuild that moves the functions
cp "$T/moved" "$T/bin/prog"
expect_eq "$want" "$(profile moved "$T/e1")" "after a rebuild that moves the functions: names from the cache"
expect_no_grep "added_first" "$T/moved.out" "no name of the new build"
run movedt "$PERFSCOPE" report "$T/e1"
expect_no_grep "rebuilt" "$T/movedt.out" "no caveat: the cache had the build"
run tree "$PERFSCOPE" report "$T/e1" --tree
expect_grep "second_fn" "$T/tree.out" "the call tree names second_fn"
expect_no_grep "added_first" "$T/tree.out" "the call tree has no name of the new build"
run sel "$PERFSCOPE" select "$T/e1" --top 3 -o "$T/sel.filter"
expect_eq 0 "$RC" "select exit status after the rebuild"
expect_grep "first_fn" "$T/sel.filter" "the filter keeps first_fn"
expect_no_grep "added_first" "$T/sel.filter" "the filter has no name of the new build"
expect_no_grep "main" "$T/sel.filter.cflags" "the gcc options do not exclude main"
# energy: a constant 5 W meter over the run
read -r start end < <(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["start_ns"], m["end_ns"])' "$T/e1/meta.json")
python3 -c 'import sys
n = int((int(sys.argv[2]) - int(sys.argv[1])) * 1e-9 * 20000) + 10
open(sys.argv[3], "w").write("5.0\n" * n)' "$start" "$end" "$T/meter.txt"
run en "$PERFSCOPE" energy "$T/e1" --power "$T/meter.txt" --csv
expect_eq 0 "$RC" "energy exit status"
expect_eq "first_fn,main,second_fn" "$(awk -F, 'NR > 1 && $1 !~ /^\[/ { print $1 }' "$T/en.out" | sort | paste -sd, -)" \
	"energy names the recorded build's functions"

# --- another -D: the same size and mtime, another build-id
cp -p "$T/v1" "$T/bin/prog"
record_or_die rec2 "$T/e2" --functions -- "$T/bin/prog"
touch -r "$T/bin/prog" "$T/stamp"
cp "$T/swapped" "$T/bin/prog"
touch -r "$T/stamp" "$T/bin/prog"
expect_eq "$(stat -c %s "$T/v1")" "$(stat -c %s "$T/bin/prog")" "the swapped build has the size of the first"
expect_eq "$want" "$(profile swapped "$T/e2")" "same size and mtime, another build-id: names from the cache"

# --- without the cache: unnamed, said once, never the new build's names
rm -rf "$T/cache"
run bare "$PERFSCOPE" report "$T/e2" --csv
expect_eq 0 "$RC" "report without the cache: exit status"
expect_eq "" "$(awk -F, 'NR > 1 && ($1 ~ /^(first_fn|second_fn|main)$/)' "$T/bare.out")" \
	"no name of the new build"
expect_eq "1,3,5" "$(awk -F, 'NR > 1 && $1 ~ /^prog\+0x/ { print $3 }' "$T/bare.out" | sort -n | paste -sd, -)" \
	"the calls as prog+0xOFFSET, with their counts"
expect_eq 1 "$(grep -c "$T/bin/prog was rebuilt after the recording" "$T/bare.err" || true)" \
	"one warning names the file"
newid=$(readelf -n "$T/swapped" | awk '/Build ID/ { print $3 }')
expect_grep "build-id $id, now build-id $newid" "$T/bare.err" "the warning gives both build-ids"
run baret "$PERFSCOPE" report "$T/e2"
expect_eq 1 "$(grep -c "! $T/bin/prog was rebuilt" "$T/baret.out" || true)" "the text report's caveat"
run ex "$PERFSCOPE" export "$T/e2" --format chrome -o "$T/e2.json"
expect_eq 0 "$RC" "export without the cache: exit status"
expect_eq 1 "$(grep -c "^perfscope: warning: $T/bin/prog was rebuilt" "$T/ex.err" || true)" \
	"export warns once, among the experiment's caveats"
expect_no_grep '"first_fn"' "$T/e2.json" "the exported trace has no name of the new build"
run sel2 "$PERFSCOPE" select "$T/e2" --top 1 -o "$T/sel2.filter"
expect_eq 2 "$RC" "select refuses a rebuilt program without its copy"
expect_eq 1 "$(wc -l <"$T/sel2.err")" "select: one line"
expect_grep "$T/bin/prog was rebuilt or removed after the recording" "$T/sel2.err" "select names the file"
expect_no_file "$T/sel2.filter"
cp "$T/moved" "$T/bin/prog"
run en2 "$PERFSCOPE" energy "$T/e1" --power "$T/meter.txt"
expect_eq 0 "$RC" "energy without the cache: exit status"
expect_grep "! $T/bin/prog was rebuilt" "$T/en2.out" "energy's caveat"
expect_no_grep "added_first" "$T/en2.out" "energy has no name of the new build"
expect_no_grep "first_fn" "$T/en2.out" "energy has no name of either build"

# --- info: each object, its build-id and what became of it
run info "$PERFSCOPE" info "$T/e2"
expect_eq 0 "$RC" "info exit status"
movedid=$(readelf -n "$T/moved" | awk '/Build ID/ { print $3 }')
expect_eq 1 "$(grep -cE "^  $id  rebuilt \(now build-id $movedid\), not named .* $T/bin/prog *$" "$T/info.out" || true)" \
	"info: the program was rebuilt"
expect_eq 1 "$(grep -cE '^  [0-9a-f]+  same .*/libc\.so' "$T/info.out" || true)" "info: libc is the same"
# recorded with the moved build, read with the first one back in place
record_or_die rec3 "$T/e3" --functions -- "$T/bin/prog"
cp "$T/v1" "$T/bin/prog"
run info2 "$PERFSCOPE" info "$T/e3" --json
expect_eq "cached/read from it" "$(json_eval "$T/info2.out" '" ".join(o["state"] + "/" + o["cache"] for o in d["objects"] if o["path"].endswith("/bin/prog"))')" \
	"info --json: the program is read from the cache"
finish
