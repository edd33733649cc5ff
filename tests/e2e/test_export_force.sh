#!/usr/bin/env bash
# Outputs are written aside and replace the old ones only when complete:
# - export --format otf2 --force of a damaged experiment (a record type flipped in its stream)
#   exits 2 with one line and leaves the old archive byte for byte; into a new path it leaves
#   nothing. A good export replaces the archive and keeps what else the directory holds
#   (html's traces.html). An archive path that cannot be made exits 2, as chrome's does.
# - export --format chrome --force of the damaged experiment leaves the old file as it was.
# - every -o FILE --force whose writing fails (a file size limit: ulimit -f) exits 1 with one
#   line and leaves the old file as it was: info, dump, html, report, export chrome.
# - mpi -o EXISTING and mpi --load -o EXISTING exit 2, as every other command.
# No temporary file or directory is left behind in any case.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

calls=$EX/calls
fib=$EX/fib
[ -x "$calls" ] && [ -x "$fib" ] || die "the traced examples were not built"

# snapshot DIR: every entry under DIR (hidden ones too) with its type, and every file's sum
# (or that DIR is missing)
snapshot() {
	if [ -d "$1" ]; then
		(cd "$1" && find . -mindepth 1 -printf '%y %p\n' | sort &&
			find . -type f -exec md5sum {} + | sort)
	else
		echo "$1 is missing"
	fi
}

# no_leftovers DIR WHAT: no hidden entry (a temporary file or directory) in DIR
no_leftovers() {
	expect_eq "" "$(ls -A "$1" | grep '^\.' || true)" "$2: nothing temporary is left in $1"
}

record_or_die good "$T/good" --functions -- "$calls"
record_or_die small "$T/small" --functions -- "$fib" 5
main=$(cd "$T/good" && ls stream.* | head -1)
cp -r "$T/good" "$T/bad"
# the first record after the clock-sync record of chunk 0 gets an unknown type (byte 88)
python3 - "$T/bad/$main" <<'EOF'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(88)
    b = f.read(1)[0]
    f.seek(88)
    f.write(bytes([b ^ 0x40]))
EOF

mkdir "$T/out"

# --- OTF2
run o1 "$PERFSCOPE" export "$T/good" --format otf2 -o "$T/out/arch"
expect_eq 0 "$RC" "export otf2: exit status"
expect_file "$T/out/arch/traces.otf2" "export otf2: the anchor"
before=$(snapshot "$T/out/arch")
run o2 "$PERFSCOPE" export "$T/bad" --format otf2 -o "$T/out/arch" --force
expect_eq 2 "$RC" "export otf2 --force of a damaged experiment: exit status"
expect_eq 1 "$(wc -l <"$T/o2.err")" "export otf2 --force of a damaged experiment: one line"
expect_grep "$T/bad/$main: byte 88" "$T/o2.err" "export otf2 --force of a damaged experiment: the cause"
expect_eq "$before" "$(snapshot "$T/out/arch")" \
	"export otf2 --force of a damaged experiment: the old archive as it was"
run o3 "$PERFSCOPE" export "$T/bad" --format otf2 -o "$T/out/new-arch"
expect_eq 2 "$RC" "export otf2 of a damaged experiment into a new path: exit status"
expect_no_file "$T/out/new-arch" "export otf2 of a damaged experiment: no archive is left"
no_leftovers "$T/out" "export otf2 of a damaged experiment"

# a good export replaces the archive, and keeps the directory's other files
mkdir -p "$T/out/arch" # (gone after a failed export before the fix)
echo "mine" >"$T/out/arch/traces.html"
run o4 "$PERFSCOPE" export "$T/small" --format otf2 -o "$T/out/arch" --force
expect_eq 0 "$RC" "export otf2 --force: exit status"
expect_eq "mine" "$(cat "$T/out/arch/traces.html")" "export otf2 --force: traces.html is kept"
no_leftovers "$T/out/arch" "export otf2 --force"
run o5 "$PERFSCOPE" report "$T/out/arch/traces.otf2" --csv
expect_eq 0 "$RC" "report of the replaced archive: exit status"
expect_eq 15 "$(csv_get "$T/o5.out" calls name=fib)" "the replaced archive holds fib(5)'s calls"

# an archive that cannot be made: 2, as chrome's output
echo "a file" >"$T/out/afile"
run o6 "$PERFSCOPE" export "$T/good" --format otf2 -o "$T/out/afile/arch"
expect_eq 2 "$RC" "export otf2 into a path under a file: exit status"
expect_eq 1 "$(wc -l <"$T/o6.err")" "export otf2 into a path under a file: one line"
expect_grep "cannot write $T/out/afile/arch" "$T/o6.err" "export otf2 into a path under a file: the cause"
run o7 "$PERFSCOPE" export "$T/good" --format chrome -o "$T/out/afile/x.json"
expect_eq 2 "$RC" "export chrome into a path under a file: exit status"

# --- Chrome
run c1 "$PERFSCOPE" export "$T/good" --format chrome -o "$T/out/trace.json"
expect_eq 0 "$RC" "export chrome: exit status"
sum=$(md5sum <"$T/out/trace.json")
run c2 "$PERFSCOPE" export "$T/bad" --format chrome -o "$T/out/trace.json" --force
expect_eq 2 "$RC" "export chrome --force of a damaged experiment: exit status"
expect_eq 1 "$(wc -l <"$T/c2.err")" "export chrome --force of a damaged experiment: one line"
expect_eq "$sum" "$(md5sum <"$T/out/trace.json")" \
	"export chrome --force of a damaged experiment: the old file as it was"
run c3 "$PERFSCOPE" export "$T/bad" --format chrome -o "$T/out/new.json"
expect_eq 2 "$RC" "export chrome of a damaged experiment into a new file: exit status"
expect_no_file "$T/out/new.json" "export chrome of a damaged experiment: no file is left"
no_leftovers "$T/out" "export chrome of a damaged experiment"

# --- a write that fails halfway (files limited to 1 KiB, SIGXFSZ ignored: write gets EFBIG)
n=0
for cmd in "info $T/good --json" "dump $T/good" "html $T/good" "report $T/good --json" \
	"export $T/good --format chrome"; do
	n=$((n + 1))
	printf 'precious\n' >"$T/out/keep$n"
	# shellcheck disable=SC2086 # CMD is split into its words
	run w$n bash -c "trap '' XFSZ; ulimit -f 1; exec \"\$0\" \"\$@\"" "$PERFSCOPE" $cmd \
		-o "$T/out/keep$n" --force
	expect_eq 1 "$RC" "$cmd -o FILE --force, writing fails: exit status"
	expect_eq 1 "$(wc -l <"$T/w$n.err")" "$cmd -o FILE --force, writing fails: one line"
	expect_grep "keep$n" "$T/w$n.err" "$cmd -o FILE --force, writing fails: stderr names the file"
	expect_eq precious "$(cat "$T/out/keep$n")" \
		"$cmd -o FILE --force, writing fails: the old file as it was"
done
no_leftovers "$T/out" "writes that failed"

# --- mpi -o EXISTING: 2, as every other command
printf 'precious\n' >"$T/out/mpi.txt"
run m1 "$PERFSCOPE" mpi --load "$T/good" -o "$T/out/mpi.txt"
expect_eq 2 "$RC" "mpi --load -o EXISTING: exit status"
expect_grep "mpi.txt exists" "$T/m1.err" "mpi --load -o EXISTING: the cause"
run m2 "$PERFSCOPE" mpi "$PSC_SOURCE/tests/data/otf2/ping-pong-otf2/traces.otf2" \
	-o "$T/out/mpi.txt"
expect_eq 2 "$RC" "mpi ARCHIVE -o EXISTING: exit status"
expect_grep "mpi.txt exists" "$T/m2.err" "mpi ARCHIVE -o EXISTING: the cause"
expect_eq precious "$(cat "$T/out/mpi.txt")" "mpi -o EXISTING: the file as it was"
run m3 "$PERFSCOPE" mpi "$PSC_SOURCE/tests/data/otf2/ping-pong-otf2/traces.otf2" \
	-o "$T/out/mpi.txt" --force
expect_eq 0 "$RC" "mpi ARCHIVE -o EXISTING --force: exit status"
expect_grep "Wait" "$T/out/mpi.txt" "mpi ARCHIVE -o EXISTING --force: the report replaces the file"
no_leftovers "$T/out" "mpi -o"

finish
