#!/usr/bin/env bash
# The HTML report's Process animation and Load views on a real MPI run with known structure:
# examples/mpi/barrier.c with 4 ranks, step S = 100 ms, 2 iterations, recorded with --load=20.
# After the first (lining-up) barrier ends at T0, rank r sleeps r x S before the next
# barrier, so at T0 + 1.5 S ranks 0 and 1 are in MPI_Barrier (waiting) and ranks 2 and 3
# compute. Checked in the report's data (per rank), then in Chromium with the view opened at
# that instant (its own test checks every square's pixels against the data at many instants,
# plays, steps and rewinds in virtual time); the Load view's averages table against
# `perfscope mpi --load --csv`, and so are the share bars beside the grid (each rank's host
# busy share and its own CPU share, as the page lists them in #load-bars-data); --grid 1x4
# and 2x2 are used, --grid 1x3 falls back with a caveat.
# A synthetic run of 8 ranks with 1,000,000 MPI events (bench/gen_mpi_exp.py) is aggregated
# to frames: each frame's state is its mix's largest share, the mix lists the short MPI calls
# hidden by computing, and the view's own test checks the bars and tooltips of those frames.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
. "$(dirname "$0")/html-lib.sh"
barrier=$(mpi_prog barrier)
np=4
step_ms=100

# barrier_clean: every rank arrived at each timed barrier within 30 ms of r x S after the first
# one to arrive (the program's own marks), so the instant T0 + 1.5 S is unambiguous
barrier_clean() {
	_marks_cat "$T/bar.marks" "$np" | awk -v s="$step_ms" '
	$2 == "barrier" && $3 >= 0 { t[$1 " " $3] = $5; if (!($3 in first) || $5 < first[$3]) first[$3] = $5 }
	END { for (k in t) { split(k, f, " "); d = (t[k] - first[f[2]]) / 1e6 - f[1] * s;
		if (d < -30 || d > 30) { print "rank " f[1] " iteration " f[2] " off by " d " ms"; bad = 1 } }
	      exit bad }'
}

run_rec() {
	run "$1" timeout -k 5 "$MPI_TIMEOUT" "$PERFSCOPE" record --mpi --load=20 -o "$2" -- \
		mpirun -np "$np" "$barrier" -d "$step_ms" -n 2 -m "$T/bar.marks"
	[ "$RC" -eq 0 ] && [ -f "$2/meta.json" ] || { show "$1"; die "record --mpi --load=20 exited $RC"; }
}
MPI_CLEAN=0
for try in 1 2 3; do
	rm -rf "$T/bar"
	run_rec rec "$T/bar"
	if barrier_clean >"$T/clean.out"; then
		MPI_CLEAN=1
		break
	fi
	note "try $try: $(head -n 2 "$T/clean.out" | tr '\n' ' ')"
done
ls "$T/bar"/load.* >/dev/null 2>&1 || die "the run left no load log"

run html "$PERFSCOPE" html "$T/bar" --grid 1x4
expect_eq 0 "$RC" "perfscope html --grid 1x4"
report=$T/bar/report.html

# the report's data: python reads the embedded JSON
data() {
	python3 - "$report" "$@" <<'PY'
import json, re, sys
html = open(sys.argv[1]).read()
d = json.loads(re.search(r'id="psc-data">(.*?)</script>', html, re.S).group(1))
st, what = d.get("states"), sys.argv[2]
def at(r, t):
    k = st["s"][r][0]
    for ti, s in zip(st["t"][r], st["s"][r]):
        if ti > t: break
        k = s
    return st["names"][k]
if what == "grid":
    print("%dx%d %dx%d" % (st["grid"][0], st["grid"][1], d["load"]["grid"][0], d["load"]["grid"][1]))
elif what == "instant":
    # T0: the end of rank 0's first stretch in MPI_Barrier (waiting or not)
    inb, t0 = False, None
    for ti, s in zip(st["t"][0], st["s"][0]):
        name = st["names"][s]
        b = name in ("waiting", "MPI_Barrier")
        if inb and not b:
            t0 = ti
            break
        inb = b
    print(t0 + int(1.5 * float(sys.argv[3]) * 1e6))
elif what == "states":
    t = int(sys.argv[3])
    print(" ".join(at(r, t) for r in range(st["ranks"])))
elif what == "summary":
    print(st["ranks"], st["frame_ns"], len(d["load"]["rank"]), len(d["load"]["hosts"]))
elif what == "caveats":
    print("\n".join(d["caveats"]))
PY
}
expect_eq "4 0 4 1" "$(data summary)" "states of 4 ranks kept exactly, load of 4 ranks on 1 host"
expect_eq "1x4 1x4" "$(data grid)" "--grid 1x4 in both views' data"
t1=$(data instant "$step_ms")
read -r s0 s1 s2 s3 <<<"$(data states "$t1")"
note "at T0 + 1.5 S = $t1 ns: $s0 $s1 $s2 $s3"
if [ "$MPI_CLEAN" = 1 ]; then
	for s in "$s0" "$s1"; do
		case $s in waiting | MPI_Barrier) ;; *) fail "ranks 0 and 1 are in the barrier at T0 + 1.5 S, not $s" ;; esac
	done
	expect_eq "computing computing" "$s2 $s3" "ranks 2 and 3 compute at T0 + 1.5 S"
else
	note "every try was disturbed: the instant's states are not checked"
fi

# the browser: the views' own tests, the animation opened at T0 + 1.5 S
html_render "$report" anim "animation&at=$t1"
html_expect_ok anim
views=$(html_dom anim --views | tr '\n' ' ')
case " $views" in *" animation "*" load "*) ;; *) fail "views animation and load shown: $views" ;; esac
expect_eq "ok" "$(html_dom anim --tests | sed -n 's/^animation: \(ok\) (.*/\1/p')" "the animation's own test"
expect_eq "ok" "$(html_dom anim --tests | sed -n 's/^load: \(ok\) (.*/\1/p')" "the load view's own test"
counts=$(html_dom anim --text anim-counts)
if [ "$MPI_CLEAN" = 1 ]; then
	expect_eq 2 "$(sed -n 's/.*computing \([0-9]*\).*/\1/p' <<<"$counts")" "the page counts 2 computing ranks at T0 + 1.5 S ($counts)"
fi
html_render "$report" load load
html_expect_ok load

# the Load view's averages are perfscope mpi --load's
run loadcsv "$PERFSCOPE" mpi "$T/bar" --load --csv
expect_eq 0 "$RC" "perfscope mpi --load --csv"
html_dom load --table load-averages >"$T/avg.csv"
for ((r = 0; r < np; r++)); do
	want=$(csv_get "$T/loadcsv.out" mean rank="$r")
	got=$(awk -F, -v r="$r" 'NR > 1 && $1 == r { print $5 }' "$T/avg.csv")
	expect_near "$want" "${got:-nan}" 0.0006 "rank $r's mean CPU share in the page"
	expect_eq "$(csv_get "$T/loadcsv.out" samples rank="$r")" \
		"$(awk -F, -v r="$r" 'NR > 1 && $1 == r { print $4 }' "$T/avg.csv")" "rank $r's samples"
done

# the share bars beside the grid: the host's busy share and each rank's own CPU share
html_dom load --text load-bars-data >"$T/bars.txt"
expect_eq "$np" "$(grep -c '^rank [0-9]*: host .* busy [0-9.]*, own [0-9.]* CPUs of [0-9]*$' "$T/bars.txt")" "a share bar per rank ($(head -n 1 "$T/bars.txt"))"
for ((r = 0; r < np; r++)); do
	line=$(grep "^rank $r: " "$T/bars.txt")
	expect_near "$(csv_get "$T/loadcsv.out" mean rank=host)" "$(sed -n 's/.* busy \([0-9.]*\),.*/\1/p' <<<"$line")" 0.0006 "rank $r's bar: its host's busy share"
	expect_near "$(csv_get "$T/loadcsv.out" mean rank="$r")" "$(sed -n 's/.* own \([0-9.]*\) CPUs.*/\1/p' <<<"$line")" 0.0006 "rank $r's bar: its own CPU share"
done

# --grid 2x2: used; --grid 1x3 cannot hold 4 ranks: near-square 2x2 and a caveat
run g22 "$PERFSCOPE" html "$T/bar" --grid 2x2 -o "$T/g22.html"
expect_eq 0 "$RC" "html --grid 2x2"
report=$T/g22.html
expect_eq "2x2 2x2" "$(data grid)" "--grid 2x2"
html_render "$report" grid22 animation
html_expect_ok grid22
run g13 "$PERFSCOPE" html "$T/bar" --grid 1x3 -o "$T/g13.html"
expect_eq 0 "$RC" "html --grid 1x3"
report=$T/g13.html
expect_eq "2x2 2x2" "$(data grid)" "--grid 1x3 falls back to 2x2"
expect_eq 2 "$(data caveats | grep -c 'grid 1x3 holds fewer than the 4 ranks: 2x2 used')" "a caveat per view"
# aggregated frames: the mix of states per frame and rank
python3 "$PSC_SOURCE/bench/gen_mpi_exp.py" -e 1000000 -p 8 "$T/gen" >"$T/gen.out" || die "gen_mpi_exp.py failed"
run genh "$PERFSCOPE" html "$T/gen"
expect_eq 0 "$RC" "html of the synthetic run"
report=$T/gen/report.html
python3 - "$report" >"$T/mix.txt" <<'PY' || fail "the mix of the synthetic run: $(cat "$T/mix.txt")"
import json, re, sys
html = open(sys.argv[1]).read()
st = json.loads(re.search(r'id="psc-data">(.*?)</script>', html, re.S).group(1))["states"]
assert st["frame_ns"] > 0 and len(st["mix"]) == st["ranks"] == 8, (st["frame_ns"], len(st["mix"]))
# 8 ranks x 2000 frames stay under the mixes' budget (tests/unit/test_html_anim.c tests it)
assert st["mix_min_pm"] == 0, st["mix_min_pm"]
nframes = -(-st["duration_ns"] // st["frame_ns"])
marked = 0
for r in range(8):
    a, f, i, last = st["mix"][r], 0, 0, -1
    while i < len(a):
        f += a[i]
        n = a[i + 1]
        pairs = [(a[i + 2 + 2 * k], a[i + 3 + 2 * k]) for k in range(n)]
        i += 2 + 2 * n
        assert f > last and f < nframes, (r, f)
        last = f
        assert 2 <= n <= 4, (r, f, n)
        # largest first; the first is the frame's state in the change list
        assert all(pairs[k][1] >= pairs[k + 1][1] for k in range(n - 1)), (r, f, pairs)
        t = f * st["frame_ns"]
        k = max(j for j, x in enumerate(st["t"][r]) if x <= t)
        assert st["s"][r][k] == pairs[0][0], (r, f, pairs, st["s"][r][k])
        assert sum(v for _, v in pairs) <= 1000 + n, (r, f, pairs)
        if pairs[0][0] == 1 and sum(v for s, v in pairs[1:] if s >= 2) >= 50:
            marked += 1
print("frames with >= 5 % MPI beside computing:", marked)
assert marked > 100, marked
PY
html_render "$report" gen animation
html_expect_ok gen
expect_eq "ok" "$(html_dom gen --tests | sed -n 's/^animation: \(ok\) (.*/\1/p')" "the animation's own test on aggregated frames"
finish
