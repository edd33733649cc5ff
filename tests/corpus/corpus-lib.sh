# shellcheck shell=bash
# corpus-lib.sh - what make-expected.sh and tests/e2e/test_corpus.sh share (sourced, not run):
# the working directory the commands run in, their environment, how each is run and the one
# normalisation of their outputs. Both must run the commands the same way, or the comparison
# compares two ways of running instead of two versions of perfscope.
#
# Environment of every command: LC_ALL=C, TZ=UTC, HOME a fresh empty directory,
# PERFSCOPE_CACHE_DIR a copy of tests/data/corpus/cache (the build-id cache holding the
# recorded programs, which exist nowhere else), DEBUGINFOD_URLS unset (libdw never asks the
# network for debug info), and no PERFSCOPE_* or XDG_* setting inherited. The experiments are
# named by relative paths, as typed in commands.txt, from the working directory.
#
# Normalisations (corpus_normalise, applied to standard output and standard error alike):
#   1. the working directory's absolute path (a fresh temporary directory each run) is
#      replaced by @WORK@: the cache entries info --json names ("cached") and the experiment's
#      absolute path in the filter file of select ("from the experiment DIR").
# Nothing else is changed: every number perfscope computes is compared as printed.
#
# html_parts FILE (for the html commands) prints an HTML report with the bodies of its code
# blocks replaced by one line each: Chart.js (built in from the system's libjs-chart.js, a
# version per distribution) by "[Chart.js: not compared]", perfscope's own scripts and style
# sheet (src/output/assets) by their size and SHA-256, so that they are still compared exactly
# without a copy in every expected report. The data (the psc-data JSON) and the page around the
# blocks are printed as they are.

# corpus_data: tests/data/corpus of this source tree (PSC_SOURCE)
corpus_data() {
	printf '%s\n' "$PSC_SOURCE/tests/data/corpus"
}

# corpus_prepare WORK: WORK (which must not exist) holding the experiments, the sources, the
# power files, the cache and an empty o/ for output files; the environment set for it. Dies
# while /tmp/perfscope-corpus exists (tests/corpus/record.sh running or interrupted): the
# experiments' objects would be read from there.
corpus_prepare() {
	local work=$1 data
	if [ -e /tmp/perfscope-corpus ]; then
		echo "/tmp/perfscope-corpus exists (tests/corpus/record.sh running or interrupted?): the corpus's objects would be read from it" >&2
		exit 2
	fi
	data=$(corpus_data)
	mkdir -p "$work"
	cp -r "$data/exp/." "$work/"
	cp -r "$data/src" "$work/src"
	cp -r "$data/power" "$work/power"
	mkdir -p "$work/o" "$work/.home" "$work/.cache"
	cp -r "$data/cache/." "$work/.cache/"
	chmod -R u+w "$work"
	chmod 700 "$work/.cache"
	unset PERFSCOPE_OUT PERFSCOPE_EVENTS PERFSCOPE_CLOCK PERFSCOPE_TEST_CLOCK_SKEW \
		PERFSCOPE_MPI_LOAD PERFSCOPE_FILTER PERFSCOPE_BUFFER_SIZE PERFSCOPE_COMPRESS \
		PERFSCOPE_METRICS_PATH PERFSCOPE_SYSFS_ROOT PERFSCOPE_PROCFS_ROOT \
		PERFSCOPE_POWERCAP_ROOT PERFSCOPE_CACHE_MAX_OBJECT DEBUGINFOD_URLS XDG_CACHE_HOME \
		XDG_CONFIG_HOME XDG_DATA_HOME
	export LC_ALL=C TZ=UTC HOME=$work/.home PERFSCOPE_CACHE_DIR=$work/.cache
	CORPUS_WORK=$work
}

# corpus_commands: the NAME<TAB>COMMAND pairs of commands.txt, one a line
corpus_commands() {
	sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' \
		-e 's/^\([^[:space:]]*\)[[:space:]]*/\1\t/' "$PSC_SOURCE/tests/corpus/commands.txt"
}

# corpus_normalise FILE: the normalisations of the header, in place
corpus_normalise() {
	sed -i -e "s|$CORPUS_WORK|@WORK@|g" "$1"
}

# html_parts FILE: FILE with its code blocks as one line each (see the header)
html_parts() {
	python3 - "$1" <<'PY'
import hashlib, re, sys
t = open(sys.argv[1], "rb").read()
def part(m):
    body = m.group(3)
    if m.group(2).strip():  # <script type="application/json" ...>: the data, as it is
        return m.group(0)
    if body.lstrip().startswith(b"/*!") and b"Chart.js" in body[:200]:
        text = b"[Chart.js: not compared]"
    else:
        text = b"[%d bytes, sha256 %s]" % (len(body), hashlib.sha256(body).hexdigest().encode())
    return b"<" + m.group(1) + m.group(2) + b">\n" + text + b"\n</" + m.group(1) + b">"
sys.stdout.buffer.write(re.sub(rb"<(script|style)([^>]*)>(.*?)</\1>", part, t, flags=re.S))
PY
}

# corpus_run NAME COMMAND OUT: runs COMMAND in CORPUS_WORK with `perfscope` the binary
# PERFSCOPE; OUT/NAME.out gets its standard output, OUT/NAME.err its standard error and a last
# line "exit N", both normalised
corpus_run() {
	local name=$1 cmd=$2 out=$3 rc=0
	(
		cd "$CORPUS_WORK" || exit 125
		# shellcheck disable=SC2317 # called by the commands
		perfscope() { "$PERFSCOPE" "$@"; }
		eval "$cmd"
	) >"$out/$name.out" 2>"$out/$name.err" </dev/null || rc=$?
	echo "exit $rc" >>"$out/$name.err"
	corpus_normalise "$out/$name.out"
	corpus_normalise "$out/$name.err"
}

# corpus_run_all OUT [JOBS]: every command of commands.txt into OUT (created), JOBS at a time
# (default 2: the commands are independent, each writes its own files)
corpus_run_all() {
	local out=$1 jobs=${2:-2} lane
	mkdir -p "$out"
	for ((lane = 0; lane < jobs; lane++)); do
		corpus_commands | awk -v n="$jobs" -v k="$lane" '(NR - 1) % n == k' |
			while IFS=$'\t' read -r name cmd; do
				corpus_run "$name" "$cmd" "$out"
			done &
	done
	wait
}
