# lib.sh - helpers shared by the end-to-end tests (sourced, not run).
#
# Every tests/e2e/test_*.sh is a ctest (see tests/CMakeLists.txt) and gets:
#   PERFSCOPE    the perfscope CLI binary
#   PSC_BUILD    the build directory (examples in $PSC_BUILD/examples, libperfscope.so in it)
#   PSC_SOURCE   the repository root
#   PSC_FORTRAN  ON or OFF
# Exit status: 0 pass, 1 fail, 77 skipped (the reason printed on stdout).
#
# Usage in a test:
#   . "$(dirname "$0")/lib.sh"
#   psc_init                       # checks the environment, makes $T (removed at exit)
#   run NAME cmd args..            # $T/NAME.out, $T/NAME.err, exit status in $RC
#   expect_eq 0 "$RC" "what"       # checks; a failed check is reported and the test goes on
#   v=$(csv_get FILE column key=value..)
#   finish                         # optional: the exit trap does the same
#
# fail "msg" reports a failed check and lets the test continue so that one run shows every
# problem; the test then exits 1. die "msg" reports and stops at once (nothing sensible can
# follow). skip "reason" exits 77 unless a check already failed.

set -o errtrace

PSC_FAILURES=0
PSC_CHECKS=0
T=""

_psc_on_exit() {
	local st=$?
	if [ -n "$T" ] && [ -d "$T" ]; then
		rm -rf -- "$T"
	fi
	if [ "$PSC_FAILURES" -gt 0 ]; then
		echo "FAILED: $PSC_FAILURES of $PSC_CHECKS checks in $(basename "$0")" >&2
		exit 1
	fi
	exit "$st"
}

_psc_on_err() {
	local st=$? line=${BASH_LINENO[0]} cmd=$BASH_COMMAND
	echo "error: $(basename "$0"):$line: command exited with status $st: $cmd" >&2
}

psc_init() {
	trap _psc_on_exit EXIT
	trap _psc_on_err ERR
	: "${PERFSCOPE:?PERFSCOPE is not set (run the test through ctest)}"
	: "${PSC_BUILD:?PSC_BUILD is not set (run the test through ctest)}"
	: "${PSC_SOURCE:?PSC_SOURCE is not set (run the test through ctest)}"
	PSC_FORTRAN=${PSC_FORTRAN:-OFF}
	[ -x "$PERFSCOPE" ] || die "PERFSCOPE=$PERFSCOPE is not an executable"
	# shellcheck disable=SC2034 # used by the tests
	EX=$PSC_BUILD/examples
	T=$(mktemp -d "${TMPDIR:-/tmp}/psc-e2e.XXXXXX")
	# a missing measurement must never look like a passing one: no inherited settings
	unset PERFSCOPE_OUT PERFSCOPE_EVENTS
	# record --sample's kallsyms cache: the test's own, never the user's ~/.cache
	export PERFSCOPE_CACHE_DIR=$T/cache
	export LC_ALL=C
	cd "$T" || die "cannot enter $T"
}

fail() {
	PSC_FAILURES=$((PSC_FAILURES + 1))
	echo "FAIL: $*" >&2
}

die() {
	PSC_FAILURES=$((PSC_FAILURES + 1))
	echo "FAIL (fatal): $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*"
	if [ "$PSC_FAILURES" -gt 0 ]; then
		exit 1
	fi
	exit 77
}

note() {
	echo "note: $*"
}

finish() {
	if [ "$PSC_FAILURES" -gt 0 ]; then
		exit 1
	fi
	echo "ok: $PSC_CHECKS checks in $(basename "$0")"
	exit 0
}

# run NAME CMD.. : run CMD with stdout in $T/NAME.out and stderr in $T/NAME.err; $RC holds
# its exit status (never stops the test).
run() {
	local name=$1
	shift
	RC=0
	"$@" >"$T/$name.out" 2>"$T/$name.err" || RC=$?
}

# show NAME: print a run's outputs (to stderr), for the log of a failed check
show() {
	{
		echo "--- $1.out:"
		cat "$T/$1.out" 2>/dev/null || true
		echo "--- $1.err:"
		cat "$T/$1.err" 2>/dev/null || true
		echo "---"
	} >&2
}

# require_cmd CMD.. : skip the test when a needed program is missing
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "'$c' is not installed"
	done
}

_is_number() {
	[[ $1 =~ ^-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$ ]]
}

# expect_eq EXPECTED GOT [WHAT]
expect_eq() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if [ "$1" != "$2" ]; then
		fail "${3:-value}: expected '$1', got '$2'"
		return 0
	fi
}

# expect_ne UNEXPECTED GOT [WHAT]
expect_ne() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if [ "$1" = "$2" ]; then
		fail "${3:-value}: expected anything but '$1'"
	fi
}

# expect_near EXPECTED GOT TOL [WHAT]: |GOT - EXPECTED| <= TOL (absolute)
expect_near() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if ! _is_number "$2"; then
		fail "${4:-value}: expected $1 +- $3, got '$2' (not a number)"
		return 0
	fi
	if ! awk -v e="$1" -v g="$2" -v t="$3" 'BEGIN { d = g - e; if (d < 0) d = -d; exit !(d <= t) }'; then
		fail "${4:-value}: expected $1 +- $3, got $2"
	fi
}

# expect_between LO HI GOT [WHAT]: LO <= GOT <= HI
expect_between() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if ! _is_number "$3"; then
		fail "${4:-value}: expected between $1 and $2, got '$3' (not a number)"
		return 0
	fi
	if ! awk -v l="$1" -v h="$2" -v g="$3" 'BEGIN { exit !(l <= g && g <= h) }'; then
		fail "${4:-value}: expected between $1 and $2, got $3"
	fi
}

# expect_within PCT A B [WHAT]: |A - B| <= PCT % of |A| (A is the reference)
expect_within() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if ! _is_number "$2" || ! _is_number "$3"; then
		fail "${4:-values}: expected '$2' and '$3' within $1 %, not both numbers"
		return 0
	fi
	if ! awk -v p="$1" -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
			r = a < 0 ? -a : a; exit !(d <= r * p / 100) }'; then
		fail "${4:-values}: expected $2 and $3 within $1 %"
	fi
}

# expect_cmp A OP B [WHAT]: numeric comparison, OP one of < <= > >= == !=
expect_cmp() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if ! _is_number "$1" || ! _is_number "$3"; then
		fail "${4:-values}: expected $1 $2 $3, not both numbers"
		return 0
	fi
	if ! awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
			if (op == "<") r = a < b; else if (op == "<=") r = a <= b;
			else if (op == ">") r = a > b; else if (op == ">=") r = a >= b;
			else if (op == "==") r = a == b; else if (op == "!=") r = a != b;
			else exit 2; exit !r }'; then
		fail "${4:-values}: $1 $2 $3 does not hold"
	fi
}

# expect_grep PATTERN FILE [WHAT]: FILE has a line matching the fixed string PATTERN
expect_grep() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if ! grep -qF -- "$1" "$2"; then
		fail "${3:-output}: '$1' not found in $(basename "$2"); it holds: $(head -c 2000 "$2")"
	fi
}

# expect_no_grep PATTERN FILE [WHAT]
expect_no_grep() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if grep -qF -- "$1" "$2"; then
		fail "${3:-output}: '$1' unexpectedly found in $(basename "$2")"
	fi
}

# expect_file PATH [WHAT] / expect_no_file PATH [WHAT]
expect_file() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	[ -e "$1" ] || fail "${2:-file}: $1 does not exist"
}

expect_no_file() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	[ ! -e "$1" ] || fail "${2:-file}: $1 exists but should not"
}

# csv_get FILE COLUMN [HEADER=VALUE..]: the COLUMN field (by header name) of the first row
# whose fields match every HEADER=VALUE; prints nothing (and a note on stderr) when the column
# or the row does not exist. Quoted fields ("a,b", "say ""hi""") are understood.
csv_get() {
	local file=$1 col=$2
	shift 2
	awk -v col="$col" -v nf="$#" -v filters="$(printf '%s\n' "$@")" -v file="$file" '
	function split_csv(line, out,    n, i, c, field, q) {
		n = 0; field = ""; q = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (q) {
				if (c == "\"") {
					if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ }
					else q = 0
				} else field = field c
			} else if (c == "\"") q = 1
			else if (c == ",") { out[++n] = field; field = "" }
			else field = field c
		}
		out[++n] = field
		return n
	}
	BEGIN {
		nfl = 0
		if (nf > 0) {
			m = split(filters, fl, "\n")
			for (i = 1; i <= m; i++) {
				if (fl[i] == "") continue
				p = index(fl[i], "=")
				fkey[++nfl] = substr(fl[i], 1, p - 1)
				fval[nfl] = substr(fl[i], p + 1)
			}
		}
	}
	{ sub(/\r$/, "") }
	NR == 1 {
		nh = split_csv($0, h)
		for (i = 1; i <= nh; i++) idx[h[i]] = i
		if (!(col in idx)) { printf "csv_get: no column \"%s\" in %s\n", col, file > "/dev/stderr"; bad = 1; exit }
		for (i = 1; i <= nfl; i++)
			if (!(fkey[i] in idx)) { printf "csv_get: no column \"%s\" in %s\n", fkey[i], file > "/dev/stderr"; bad = 1; exit }
		next
	}
	{
		split_csv($0, f)
		ok = 1
		for (i = 1; i <= nfl; i++) if (f[idx[fkey[i]]] != fval[i]) ok = 0
		if (ok) { print f[idx[col]]; found = 1; exit }
	}
	END {
		if (!bad && !found) printf "csv_get: no row with %s in %s\n", filters, file > "/dev/stderr"
	}' "$file" | tr -d '\n'
}

# csv_header FILE: the first line
csv_header() {
	head -n 1 "$1" | tr -d '\r'
}

# json_ok FILE: FILE parses as JSON
json_ok() {
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
}

# json_eval FILE EXPR: print the Python expression EXPR evaluated with d = the parsed FILE;
# prints nothing when the expression fails (missing key, bad JSON)
json_eval() {
	python3 - "$1" "$2" <<'EOF' 2>/dev/null || true
import json, sys
try:
    with open(sys.argv[1]) as f:
        d = json.load(f)
    v = eval(sys.argv[2], {"d": d})
except Exception:
    sys.exit(0)
if isinstance(v, bool):
    print("true" if v else "false")
elif v is None:
    print("null")
else:
    print(v)
EOF
}

# python_otf2: prints a Python that imports the otf2 module (Debian's python3-otf2 is for the
# system Python, which may not be the first python3 on PATH), nothing when none does
python_otf2() {
	local py
	for py in python3 /usr/bin/python3; do
		if "$py" -c 'import otf2' 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
}

# build_c NAME SOURCE: compile SOURCE (a file) against the public header and libperfscope.so
# of this build into $T/NAME, with -DPERFSCOPE; skips the test without a C compiler
build_c() {
	local cc=${CC:-cc}
	command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc) to build the test program"
	local san=()
	# a sanitized libperfscope needs the sanitizer runtimes first in the program
	[ "${PSC_SANITIZE:-OFF}" = ON ] && san=(-fsanitize=address,undefined)
	"$cc" -O1 -DPERFSCOPE -I"$PSC_SOURCE/include" "$2" -o "$T/$1" -L"$PSC_BUILD" -lperfscope \
		-Wl,-rpath,"$PSC_BUILD" -pthread "${san[@]}" >"$T/$1.cc.log" 2>&1 ||
		die "cannot build $2: $(cat "$T/$1.cc.log")"
}

# build_traced NAME SOURCE [COMPILER]: SOURCE compiled with -g -finstrument-functions into
# $T/NAME, not linked with libperfscope (record --functions preloads it); with the sanitizer
# runtimes in sanitizer builds when COMPILER is GCC's (clang's ASan runtime cannot share a
# process with GCC's, which the sanitized runtime needs: record preloads it into the program)
build_traced() {
	local cc=${3:-${CC:-cc}} san=()
	command -v "$cc" >/dev/null 2>&1 || skip "no compiler ($cc) to build the test program"
	[ "${PSC_SANITIZE:-OFF}" = ON ] && ! "$cc" --version 2>/dev/null | grep -q clang &&
		san=(-fsanitize=address,undefined)
	"$cc" -O1 -g -finstrument-functions "$2" -o "$T/$1" -pthread "${san[@]}" \
		>"$T/$1.cc.log" 2>&1 || die "cannot build $2: $(cat "$T/$1.cc.log")"
}

# set_preload [LIB..]: PRE, the LD_PRELOAD that loads LIB.. (the runtime by default) into a
# program run without record; in sanitizer builds the ASan runtime first, as record puts it,
# and ASAN_OPTIONS exported so that it neither checks the link order nor reports leaks
set_preload() {
	local IFS=:
	PRE="${*:-$PSC_BUILD/libperfscope.so}"
	if [ "${PSC_SANITIZE:-OFF}" = ON ]; then
		PRE="$(${CC:-cc} -print-file-name=libasan.so):$PRE"
		export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
	fi
}

# record_or_die NAME DIR ARGS.. : perfscope record -o DIR ARGS.., which must succeed
record_or_die() {
	local name=$1 dir=$2
	shift 2
	run "$name" "$PERFSCOPE" record -o "$dir" "$@"
	if [ "$RC" -ne 0 ] || [ ! -f "$dir/meta.json" ]; then
		show "$name"
		die "perfscope record -o $dir $* exited $RC"
	fi
}

# report_csv_or_die NAME DIR ARGS.. : perfscope report DIR --csv ARGS.. into $T/NAME.out
report_csv_or_die() {
	local name=$1 dir=$2
	shift 2
	run "$name" "$PERFSCOPE" report "$dir" --csv "$@"
	if [ "$RC" -ne 0 ]; then
		show "$name"
		die "perfscope report $dir --csv $* exited $RC"
	fi
}

# omp_tri_progs: the builds of examples/omp_tri there are, as "CC:PROGRAM" in the array
# PROGS (gcc with libgomp, clang with libomp and OMPT); skips the test when there is none
omp_tri_progs() {
	PROGS=()
	[ -x "$EX/omp_tri" ] && PROGS+=("gcc:$EX/omp_tri")
	[ -x "$EX/omp_tri_clang" ] && PROGS+=("clang:$EX/omp_tri_clang")
	[ ${#PROGS[@]} -gt 0 ] || skip "examples/omp_tri was not built (no OpenMP compiler)"
}
