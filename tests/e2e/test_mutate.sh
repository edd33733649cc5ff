#!/usr/bin/env bash
# The mutation test: real experiments of every kind, damaged one file at a time, and every
# analysis command run on each damaged copy (tests/e2e/mutate.py drives it and says what passes).
#
# Experiments recorded here: regions with counters (threads), function tracing (fib), sampling
# with call chains (loop_order: samples, pmaps, kallsyms), power from a meter file and from the
# fake powercap tree of tests/data (power.meter, power.rapl), MPI on 2 ranks with functions
# and load logs (ring_traced, when mpirun is there), and the OTF2 export of the MPI run (of fib
# without MPI). Every file kind of them (meta.json, proc.*.json, stream.*, maps.*, pmaps.*,
# samples.*, power.*, load.*, kallsyms, the OTF2 anchor, definitions and events) is truncated
# (to 0, inside its header, inside a record, its last byte off) or has bytes flipped at seeded
# offsets. A command passes when it exits 0 (the mutant still valid, or the damage reported as
# a caveat) or 2 with exactly one line on stderr naming a file of the experiment, with the byte
# offset when that is the damaged binary file; never a signal, a sanitizer report (run it in
# the PERFSCOPE_SANITIZE build), a hang, another exit status or a message of several lines.
#
# Modes:
#   CI (default): a fixed sample, seeded (PSC_MUTATE_SEED, default 1): for each file kind of each
#     experiment, one file and one mutant (a truncation or flips), and 6 of the experiment's
#     commands on each, in turn, so that every command runs on several mutants.
#   Long, by hand: PSC_MUTATE_SECONDS=N first runs every command on every intact experiment
#     (each must exit 0), then random mutants (1 to 3 per file, 6 random commands each) for N
#     seconds. ctest stops every end-to-end test after 300 s, so run the script itself, with
#     the variables ctest gives it, e.g. in the sanitizer build:
#       PERFSCOPE=$PWD/build-asan/perfscope PSC_BUILD=$PWD/build-asan PSC_SOURCE=$PWD \
#         PSC_SANITIZE=ON LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp PSC_MUTATE_SECONDS=1200 \
#         PSC_MUTATE_SEED=$RANDOM bash tests/e2e/test_mutate.sh
#     It prints every failure, then the failures by class with one reproducer each:
#       python3 tests/e2e/mutate.py apply EXPERIMENT MUTANT FILE MUTATION; perfscope CMD...
#     The experiments are kept when PSC_MUTATE_KEEP=DIR is set (copied there), so that a
#     reproducer can be replayed after the test.
#
# OTF2 archives are read by OTF2's library, which reports no offsets: a message about a damaged
# OTF2 file must name the archive (its anchor), without a byte offset.
#
# Failures already reported and not fixed yet are listed in mutate.py's KNOWN, each with its
# reproducer; they are counted apart ("known failures") and do not fail the test (none now).
# A command is stopped after PSC_MUTATE_TIMEOUT seconds (30).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3

seed=${PSC_MUTATE_SEED:-1}
mode=ci
if [ -n "${PSC_MUTATE_SECONDS:-}" ]; then
	[[ $PSC_MUTATE_SECONDS =~ ^[0-9]+$ ]] ||
		die "PSC_MUTATE_SECONDS=$PSC_MUTATE_SECONDS: expected seconds"
	mode=$PSC_MUTATE_SECONDS
fi
[[ $seed =~ ^[0-9]+$ ]] || die "PSC_MUTATE_SEED=$seed: expected a number"

E=$T/exp
mkdir -p "$E"
exps=()
record_or_die reg "$E/regions" -e page-faults,task-clock -- "$EX/threads" 10
exps+=("regions=$E/regions")
record_or_die fn "$E/functions" --functions -- "$EX/fib" 5
exps+=("functions=$E/functions")
record_or_die smp "$E/sampling" --sample --callgraph -- "$EX/loop_order" 64
exps+=("sampling=$E/sampling")
for ((i = 0; i < 4000; i++)); do echo 50; done >"$T/meter.txt"
record_or_die pw "$E/power-meter" --functions --power "file:$T/meter.txt" --power-rate 20000 -- \
	"$EX/fib" 5
exps+=("power=$E/power-meter")
# RAPL: a copy of the fake powercap tree of tests/data whose package zones advance during the
# run (written in place at a fixed width, as test_power_record.sh does)
cp -r "$PSC_SOURCE/tests/data/powercap-intel" "$T/powercap"
cat >"$T/advance.sh" <<'EOF'
set -eu
put() { printf '%012d\n' "$2" 1<>"$1"; }
"$1" -a 30 -b 30 >/dev/null &
p=$!
for ((i = 1; i <= 20; i++)); do
	put "$2/intel-rapl:0/energy_uj" $((1000000 + i * 137000))
	put "$2/intel-rapl:0:0/energy_uj" $((2000000 + i * 1001))
	sleep 0.01
done
wait $p
EOF
PERFSCOPE_POWERCAP_ROOT=$T/powercap record_or_die rapl "$E/power-rapl" --functions --power rapl \
	--power-period 2ms -- bash "$T/advance.sh" "$EX/phases_traced" "$T/powercap"
exps+=("power=$E/power-rapl")
otf2_from=$E/functions
if command -v mpirun >/dev/null 2>&1 && [ -f "$PSC_BUILD/libperfscope-mpi.so" ] &&
	[ -x "$EX/mpi/ring_traced" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1
	record_or_die mpi "$E/mpi" --mpi --functions --load=10 -- timeout 120 \
		mpirun -np 2 "$EX/mpi/ring_traced"
	exps+=("mpi=$E/mpi")
	otf2_from=$E/mpi
else
	note "no MPI experiment (mpirun or the MPI examples are missing)"
fi
run export "$PERFSCOPE" export "$otf2_from" --format otf2 -o "$E/otf2"
[ "$RC" -eq 0 ] || { show export; die "export --format otf2 of $otf2_from failed"; }
exps+=("otf2=$E/otf2/traces.otf2")
if [ -n "${PSC_MUTATE_KEEP:-}" ]; then
	mkdir -p "$PSC_MUTATE_KEEP"
	cp -a "$E"/. "$PSC_MUTATE_KEEP"/
	note "experiments kept in $PSC_MUTATE_KEEP"
fi

# Defects the mutation test found, each on the mutant that showed it (fixed: they must pass)
# export --format otf2 exited 1 (as for a failed write) on a damaged stream: now 2. The
# stream's magic is flipped: a stream cut short is no defect, it is read up to its cut (or
# left out when empty) and named by a caveat, which the second check holds it to
s=$(cd "$E/regions" && ls stream.* | head -n 1)
python3 "$PSC_SOURCE/tests/e2e/mutate.py" apply "$E/regions" "$T/m-cut" "$s" flip:0=ff
run cut-otf2 "$PERFSCOPE" export "$T/m-cut" --format otf2 -o "$T/m-cut.otf2"
expect_eq 2 "$RC" "export --format otf2 of an experiment with a damaged stream: exit status"
expect_eq 1 "$(wc -l <"$T/cut-otf2.err")" "export --format otf2 of a damaged stream: one line"
expect_grep "$T/m-cut/$s: byte 0: " "$T/cut-otf2.err" "the message names the stream and byte 0"
python3 "$PSC_SOURCE/tests/e2e/mutate.py" apply "$E/regions" "$T/m-empty" "$s" trunc:0
run empty-otf2 "$PERFSCOPE" export "$T/m-empty" --format otf2 -o "$T/m-empty.otf2"
expect_eq 0 "$RC" "export --format otf2 of an experiment with an empty stream: exit status"
expect_grep "$s: empty (0 bytes): left out" "$T/empty-otf2.err" \
	"the empty stream is named by a caveat"
# export --format otf2 printed the MPI model's warnings before failing on a damaged stream:
# three lines for one error (an MPI rank's stream with its magic flipped; one cut inside its
# header is left out with a caveat)
if [ -d "$E/mpi" ]; then
	s=$(cd "$E/mpi" && ls stream.* | head -n 1)
	python3 "$PSC_SOURCE/tests/e2e/mutate.py" apply "$E/mpi" "$T/m-mpi" "$s" flip:0=ff
	run mpi-otf2 "$PERFSCOPE" export "$T/m-mpi" --format otf2 -o "$T/m-mpi.otf2"
	expect_eq 2 "$RC" "export --format otf2 of an MPI run with a damaged stream: exit status"
	expect_eq 1 "$(wc -l <"$T/mpi-otf2.err")" "export --format otf2 of a damaged MPI stream: one line"
	expect_grep "$T/m-mpi/$s: byte 0: " "$T/mpi-otf2.err" "the message names the stream and byte 0"
fi
# OTF2's library spins opening an archive whose anchor's creator string lost its NUL (Debian's
# libotf2 3.0, in OTF2_AnchorFile_Load: 2.4 million page faults, 13 s, before it fails; more
# than the mutation test's 30 s in the sanitizer build): the anchor is read in a child first,
# stopped after 3 s. The anchor: perfscope's export of an MPI run with byte 65 flipped (how
# long the library takes depends on the bytes after it, the archive's random id among them)
mkdir "$T/m-anchor"
python3 -c 'import sys; open(sys.argv[1], "wb").write(bytes.fromhex(
"03424f54463200030203000200001000000000000000400000000000010102000000000000004300000000000000"
"766d007065726673636f7065207265636f72640f7065726673636f7065206578706f7274206f6620616e2065787065"
"72696d656e74000000000025aed257b61ddc120000000000000000020100"))' "$T/m-anchor/traces.otf2"
run anchor timeout 60 "$PERFSCOPE" report "$T/m-anchor/traces.otf2"
expect_eq 2 "$RC" "report of an archive whose anchor lost a NUL: exit status"
expect_eq 1 "$(wc -l <"$T/anchor.err")" "report of a damaged anchor: one line"
expect_grep "$T/m-anchor/traces.otf2: OTF2's library does not finish reading this anchor file" \
	"$T/anchor.err" "the message names the anchor and says the library does not finish"
# report --by scope --categories leaked the experiment experiment_open had half read (the
# sanitizer build says so, on more lines than the one error). The proc file's first byte is
# flipped: one cut short leaves its process out with a caveat instead
if [ -d "$E/mpi" ]; then
	p=$(cd "$E/mpi" && ls proc.*.json | head -n 1)
	python3 "$PSC_SOURCE/tests/e2e/mutate.py" apply "$E/mpi" "$T/m-proc" "$p" flip:0=ff
	run scope "$PERFSCOPE" report "$T/m-proc" --by scope --categories
	expect_eq 2 "$RC" "report --by scope of an MPI run with a damaged proc.json: exit status"
	expect_eq 1 "$(wc -l <"$T/scope.err")" "report --by scope of a damaged proc.json: one line"
	expect_grep "$T/m-proc/$p: byte " "$T/scope.err" "the message names proc.json and a byte"
fi

run mutate python3 "$PSC_SOURCE/tests/e2e/mutate.py" run "$PERFSCOPE" "$T/work" "$seed" "$mode" \
	"${exps[@]}"
cat "$T/mutate.out"
[ -s "$T/mutate.err" ] && cat "$T/mutate.err" >&2
summary=$(grep '^mutants: ' "$T/mutate.out" || true)
[ -n "$summary" ] || die "mutate.py printed no summary (exit $RC)"
mutants=$(sed -n 's/^mutants: \([0-9]*\),.*/\1/p' <<<"$summary")
expect_cmp "$mutants" '>' 0 "mutants tried"
expect_eq 0 "$RC" "mutate.py: every command on every mutant passes (seed $seed, mode $mode)"
note "$summary"
finish
