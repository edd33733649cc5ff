#!/usr/bin/env bash
# record --power: the launcher reads energy counters during a real run into power.<source>.
#
# A fake powercap tree (PERFSCOPE_POWERCAP_ROOT) with package-0, package-0/core and psys: the
# recorded command runs phases (~0.3 s) while a shell loop beside it advances package-0 and
# core 20 times by known steps, starting close to max_energy_range_uj so that both wrap in
# the middle of the run; psys never moves. The first reading is taken before the command is
# released and the last after it ended, so the log must start at the fake's initial values and
# end at its final ones: after unwrapping, the energy is exactly the sum of the increments, and
# every reading in between is one of the states the fake went through. Then the usage errors
# (one line, exit 2, nothing left behind) and --power file:PATH.
#
# Where this machine has real RAPL (powercap or the perf power PMU) and may read it, a short
# record checks the log too; elsewhere that part is only noted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3

PC=$T/powercap
MAX=1000000000    # max_energy_range_uj of every fake zone
PKG0=999000000    # package-0 starts 1 J below the wrap: wraps at the 8th step
PKG_STEP=137000   # uJ per step
CORE0=999990000   # core wraps at the 10th step
CORE_STEP=1001
PSYS=12345
N=20

# values are written in place with a fixed width, as one write: a reader never sees the file
# empty or with a stale tail
put() {
	printf '%012d\n' "$2" 1<>"$1"
}
zone() {
	mkdir -p "$PC/$1"
	echo "$2" >"$PC/$1/name"
	echo "$MAX" >"$PC/$1/max_energy_range_uj"
	put "$PC/$1/energy_uj" "$3"
}
mkdir -p "$PC/intel-rapl"
echo 1 >"$PC/intel-rapl/enabled"
zone intel-rapl:0 package-0 "$PKG0"
zone intel-rapl:0:0 core "$CORE0"
zone intel-rapl:1 psys "$PSYS"

cat >"$T/advance.sh" <<'EOF'
# advance.sh PHASES PC N PKG0 PKG_STEP CORE0 CORE_STEP MAX: phases runs while the zones advance
set -eu
put() { printf '%012d\n' "$2" 1<>"$1"; }
"$1" -a 150 -b 150 >/dev/null &
p=$!
for ((i = 1; i <= $3; i++)); do
	put "$2/intel-rapl:0/energy_uj" $((($4 + i * $5) % $8))
	put "$2/intel-rapl:0:0/energy_uj" $((($6 + i * $7) % $8))
	sleep 0.01
done
wait $p
EOF

d=$T/p.exp
PERFSCOPE_POWERCAP_ROOT=$PC record_or_die rec "$d" --functions --power rapl --power-period 2ms -- \
	bash "$T/advance.sh" "$EX/phases_traced" "$PC" "$N" "$PKG0" "$PKG_STEP" "$CORE0" "$CORE_STEP" "$MAX"
expect_file "$d/power.rapl" "the power log"
expect_grep "RAPL zones every 2 ms" "$T/rec.err" "record says what it read"
expect_grep "perfscope record: power: zone psys never advanced: it does not work on this machine; its energy is not reported" \
	"$T/rec.err" "psys is said not to work"
expect_eq 1 "$(grep -c "never advanced" "$T/rec.err" || true)" "only psys is said not to work"
readings=$(sed -n 's/^perfscope record: power: \([0-9]*\) readings of 3 RAPL zones every 2 ms$/\1/p' "$T/rec.err")
expect_eq "rapl" "$(json_eval "$d/meta.json" 'd["power"]["source"]')" "meta.json power source"
expect_eq "power.rapl" "$(json_eval "$d/meta.json" 'd["power"]["file"]')" "meta.json power file"
expect_eq 2000000 "$(json_eval "$d/meta.json" 'd["power"]["period_ns"]')" "meta.json power period"
expect_eq "package-0,package-0/core,psys" "$(json_eval "$d/meta.json" '",".join(d["power"]["zones"])')" \
	"meta.json power zones"

python3 - "$d" "$readings" "$MAX" "$N" "$PKG0" "$PKG_STEP" "$CORE0" "$CORE_STEP" "$PSYS" \
	>"$T/check.out" 2>&1 <<'PY' || { cat "$T/check.out" >&2; fail "power.rapl does not hold the fake's energy"; }
import json, sys
d, readings = sys.argv[1], sys.argv[2]
MAX, N, PKG0, PKG_STEP, CORE0, CORE_STEP, PSYS = map(int, sys.argv[3:])
meta = json.load(open(d + "/meta.json"))
lines = open(d + "/power.rapl").read().split("\n")
assert lines[-1] == "", "the log ends with a newline"
want = ["# perfscope power 1", "# source rapl", "# period_ns 2000000",
        "# column package-0 uJ 1e-06 %d" % MAX, "# column package-0/core uJ 1e-06 %d" % MAX,
        "# column psys uJ 1e-06 %d" % MAX, "time_ns,package-0,package-0/core,psys"]
assert lines[:7] == want, "header %r" % lines[:7]
rows = [list(map(int, l.split(","))) for l in lines[7:-1]]
assert str(len(rows)) == readings, "%d rows, record said %s readings" % (len(rows), readings)
t = [r[0] for r in rows]
assert all(a < b for a, b in zip(t, t[1:])), "times increase"
assert t[0] <= meta["start_ns"] and t[-1] >= meta["end_ns"], \
    "readings %d..%d cover the run %d..%d" % (t[0], t[-1], meta["start_ns"], meta["end_ns"])

def unwrap(col):
    out, total, wraps = [], 0, 0
    for i, v in enumerate(col):
        if i:
            if v < col[i - 1]:
                total += MAX - col[i - 1] + v
                wraps += 1
            else:
                total += v - col[i - 1]
        out.append(total)
    return out, wraps

for k, (name, v0, step) in enumerate([("package-0", PKG0, PKG_STEP), ("core", CORE0, CORE_STEP)]):
    col = [r[k + 1] for r in rows]
    e, wraps = unwrap(col)
    assert col[0] == v0, "%s starts at the fake's first value %d, not %d" % (name, v0, col[0])
    assert wraps == 1, "%s wrapped %d times in the log, not once" % (name, wraps)
    # every reading is a state of the fake: a whole number of steps, never going back
    steps = [x // step for x in e]
    assert all(x % step == 0 for x in e), "%s: energy off the fake's steps: %r" % (name, e)
    assert all(a <= b for a, b in zip(steps, steps[1:])), "%s goes back" % name
    assert e[-1] == N * step, "%s: %d uJ, the fake added %d" % (name, e[-1], N * step)
assert all(r[3] == PSYS for r in rows), "psys never moved"
print("%d readings; package-0 and core wrapped once and add up to the fake's increments" % len(rows))
PY
PSC_CHECKS=$((PSC_CHECKS + 1))
note "$(cat "$T/check.out")"

# the energy analysis of that log: package-0 (the first zone that advanced) charged to the
# traced phases. The rows add up to the unwrapped counter interpolated linearly at the run's
# start and end (computed here from the log), which is what the fake added: all of it when
# every increment fell between two readings inside the run, as it does unless the sampler
# was held up right at the start or the end (then at most a step less). A wrap mishandled
# would be off by about 1000 J.
run energy "$PERFSCOPE" energy "$d" --csv
expect_eq 0 "$RC" "perfscope energy on the RAPL log exits 0"
python3 - "$T/energy.out" "$d" "$N" "$PKG_STEP" "$MAX" <<'PY' >"$T/full.out" 2>&1 ||
import bisect, csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d, N, STEP, MAX = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
meta = json.load(open(d + "/meta.json"))
log = [l for l in open(d + "/power.rapl").read().split("\n")[7:] if l]
t = [int(l.split(",")[0]) for l in log]
raw = [int(l.split(",")[1]) for l in log]
e = [0]
for a, b in zip(raw, raw[1:]):
    e.append(e[-1] + (b - a if b >= a else MAX - a + b))
def at(x):
    i = bisect.bisect_right(t, x) - 1
    return e[i] + (e[i + 1] - e[i]) * (x - t[i]) / (t[i + 1] - t[i])
want = (at(meta["end_ns"]) - at(meta["start_ns"])) * 1e-6
total = sum(float(r["energy_j"]) for r in rows)
assert abs(total - want) <= 1e-9 * want, (total, want)
assert (N - 1) * STEP * 1e-6 <= want <= N * STEP * 1e-6 * (1 + 1e-12), (want, N * STEP)
assert {"phase_a", "phase_b"} <= {r["name"] for r in rows}, rows
PY
	{
		cat "$T/full.out" >&2
		fail "the RAPL log's energy is charged in full"
	}
run energy_psys "$PERFSCOPE" energy "$d" --channel psys
expect_eq 2 "$RC" "the zone that never advanced cannot be attributed"
expect_grep "psys never advanced" "$T/energy_psys.err" "and says why"

# ---- usage errors: one line, exit 2, no directory --------------------------------------------
bad() { # NAME EXPECTED_TEXT ARGS..
	local name=$1 text=$2
	shift 2
	run "$name" "$@"
	expect_eq 2 "$RC" "$name exits 2"
	expect_eq 1 "$(wc -l <"$T/$name.err")" "$name says one line"
	expect_grep "$text" "$T/$name.err" "$name names the cause"
	expect_no_file "$T/x.exp" "$name leaves no directory"
}
bad bogus "--power bogus: give rapl (powercap), perf (the power PMU) or file:PATH" \
	"$PERFSCOPE" record -o "$T/x.exp" --power bogus -- true
bad short "--power-period 100us: below the 1ms minimum" \
	"$PERFSCOPE" record -o "$T/x.exp" --power rapl --power-period 100us -- true
bad unit "--power-period 1min: expected a duration, e.g. 10ms" \
	"$PERFSCOPE" record -o "$T/x.exp" --power rapl --power-period 1min -- true
bad alone "--power-period needs --power" \
	"$PERFSCOPE" record -o "$T/x.exp" --power-period 5ms -- true
bad fmt "--power-format is for --power file:PATH" \
	"$PERFSCOPE" record -o "$T/x.exp" --power rapl --power-format watts -- true
bad nopath "--power file: needs the meter's file" \
	"$PERFSCOPE" record -o "$T/x.exp" --power file: -- true
bad spec "--power-format/--power-scale:" \
	"$PERFSCOPE" record -o "$T/x.exp" --power file:m.csv --power-format watts,furlongs -- true
bad rate "--power-rate fast: expected samples per second" \
	"$PERFSCOPE" record -o "$T/x.exp" --power file:m.csv --power-rate fast -- true
mkdir -p "$T/empty"
PERFSCOPE_POWERCAP_ROOT=$T/empty bad norapl \
	"--power rapl: no RAPL zones under $T/empty (a VM or a CPU without RAPL): use --power perf or --power file:PATH" \
	"$PERFSCOPE" record -o "$T/x.exp" --power rapl -- true
mkdir -p "$T/sysfs/bus/event_source/devices/cpu"
PERFSCOPE_SYSFS_ROOT=$T/sysfs bad noperf "--power perf: no perf power PMU" \
	"$PERFSCOPE" record -o "$T/x.exp" --power perf -- true

# energy_uj readable by root only (the PLATYPUS fix): one line with the fix, exit 2, nothing
# created. Root reads any file, so the record runs as nobody (setpriv), where this can be done.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	mkdir -p "$T/denied/intel-rapl:0" "$T/nobody"
	echo package-0 >"$T/denied/intel-rapl:0/name"
	echo 1000 >"$T/denied/intel-rapl:0/max_energy_range_uj"
	echo 5 >"$T/denied/intel-rapl:0/energy_uj"
	chmod 0400 "$T/denied/intel-rapl:0/energy_uj"
	chmod 0777 "$T/nobody"
	chmod a+x "$T"
	run denied env PERFSCOPE_POWERCAP_ROOT="$T/denied" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$PERFSCOPE" record -o "$T/nobody/x.exp" --power rapl -- true
	if grep -q "Permission denied\|cannot open\|cannot execute" "$T/denied.err" &&
		! grep -q "energy_uj" "$T/denied.err"; then
		note "nobody cannot run $PERFSCOPE here: the permission message is not exercised"
	else
		expect_eq 2 "$RC" "a root-only energy_uj exits 2"
		expect_eq 1 "$(wc -l <"$T/denied.err")" "and says one line"
		expect_grep "perfscope record: --power rapl: cannot read $T/denied/intel-rapl:0/energy_uj: permission denied (RAPL energy is readable by root only since the 2020 PLATYPUS fix): run as root, or: sudo chmod a+r $T/denied/intel-rapl:*/energy_uj" \
			"$T/denied.err" "the cause and the fix"
		expect_no_file "$T/nobody/x.exp" "nothing is created"
	fi
else
	note "not root (or no setpriv): the permission message is checked by test_powercap only"
fi

# a directory that existed before is kept, without power files, when --power fails
mkdir -p "$T/old.exp"
PERFSCOPE_POWERCAP_ROOT=$T/empty run oldrun "$PERFSCOPE" record -o "$T/old.exp" --force --power rapl -- true
expect_eq 2 "$RC" "--power rapl without zones into an old directory exits 2"
expect_file "$T/old.exp" "the old directory is kept"

# ---- --power file:PATH --------------------------------------------------------------------------
# the meter's file is written during the run and copied after it
run meter "$PERFSCOPE" record -o "$T/m.exp" --power "file:$T/meter.csv" --power-format time,watts \
	--power-rate 1000 --power-offset=-2ms -- sh -c "printf '0 1.5\n0.001 1.75\n' >'$T/meter.csv'"
expect_eq 0 "$RC" "record --power file exits 0"
expect_file "$T/m.exp/power.meter" "the meter's file is copied"
cmp -s "$T/meter.csv" "$T/m.exp/power.meter" || fail "power.meter differs from the meter's file"
expect_eq "file" "$(json_eval "$T/m.exp/meta.json" 'd["power"]["source"]')" "meta.json power source file"
expect_eq "power.meter" "$(json_eval "$T/m.exp/meta.json" 'd["power"]["file"]')" "meta.json power file"
expect_eq "$T/meter.csv" "$(json_eval "$T/m.exp/meta.json" 'd["power"]["path"]')" "meta.json meter path"
expect_eq "time,watts" "$(json_eval "$T/m.exp/meta.json" 'd["power"]["format"]')" "meta.json meter format"
expect_eq 1000 "$(json_eval "$T/m.exp/meta.json" 'int(d["power"]["rate_hz"])')" "meta.json meter rate"
expect_eq -2000000 "$(json_eval "$T/m.exp/meta.json" 'int(d["power"]["offset_ns"])')" "meta.json meter offset"
expect_eq null "$(json_eval "$T/m.exp/meta.json" 'd["power"].get("scale")')" "no scale given, none stored"

# a meter file that is not there after the run: a warning, the experiment is kept
run nometer "$PERFSCOPE" record -o "$T/n.exp" --power file:/nonexistent/meter.csv -- true
expect_eq 0 "$RC" "a missing meter file does not fail the record"
expect_grep "warning: power meter file /nonexistent/meter.csv: No such file or directory after the run" \
	"$T/nometer.err" "the missing meter file is said"
expect_file "$T/n.exp/meta.json" "the experiment is kept"
expect_no_file "$T/n.exp/power.meter" "no power.meter without the meter's file"

# --force replaces the power log of an old experiment
PERFSCOPE_POWERCAP_ROOT=$PC record_or_die again "$d" --force --power rapl -- true
expect_eq 1 "$(grep -c "^# perfscope power 1$" "$d/power.rapl")" "one power log after --force"

# ---- real hardware, where there is some --------------------------------------------------------
if [ -r /sys/class/powercap/intel-rapl:0/energy_uj ]; then
	env -u PERFSCOPE_POWERCAP_ROOT "$PERFSCOPE" record -o "$T/real.exp" --power rapl -- "$EX/phases" -a 100 -b 100 \
		>"$T/real.out" 2>"$T/real.err" && python3 - "$T/real.exp/power.rapl" <<'PY' || fail "real RAPL log"
import sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[0] == "# perfscope power 1"
rows = [l for l in lines if l and not l.startswith("#")][1:]
assert len(rows) >= 2
PY
	PSC_CHECKS=$((PSC_CHECKS + 1))
else
	note "no readable RAPL powercap zone here: the real --power rapl is not exercised"
fi
if [ -d /sys/bus/event_source/devices/power/events ] &&
	"$PERFSCOPE" record -o "$T/perf.exp" --power perf -- "$EX/phases" -a 100 -b 100 >"$T/perf.out" 2>"$T/perf.err"; then
	expect_grep "perf energy event" "$T/perf.err" "record says which perf events it read"
	expect_grep "# source perf" "$T/perf.exp/power.perf" "the perf power log"
else
	note "no usable perf power PMU here: the real --power perf is not exercised"
fi
finish
