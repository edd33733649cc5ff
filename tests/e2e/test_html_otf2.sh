#!/usr/bin/env bash
# test_html_otf2.sh - `perfscope html` on an OTF2 archive (its anchor file, *.otf2).
# - The traced MPI ring (examples/mpi/ring.c with -finstrument-functions, 4 ranks, 3 rounds of
#   64 KiB) recorded, exported with perfscope export --format otf2, and both reported: the
#   archive's report data has the experiment's per-rank MPI routine calls and bytes, its wait
#   matrix (point-to-point, collective, total) within the archive's clock tick per cell, its
#   message arrows, timeline rows and function slices, and its functions' calls; it has the
#   Summary, Profile, Timeline, Process animation, Waits, Traffic and Process detail views and
#   none of the views that need experiment files (Source, Energy, Counters, Load); its Summary
#   names the archive and what an archive lacks; the page reaches status ok in Chromium.
# - A Score-P archive (tests/data/otf2 ping-pong, 2 ranks): 16 messages as arrows, MPI_Send
#   and MPI_Recv per rank as the events say, status ok.
# - Bad input: a file named *.otf2 that is no archive, an archive with a truncated anchor and
#   one with a truncated event file: one line naming the anchor, exit 2, no report.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
. "$(dirname "$0")/html-lib.sh"
ring=$(mpi_prog ring_traced)
np=4
bytes=65536
rounds=3

# data NAME REPORT: the report's data into $T/NAME.json
data() {
	python3 - "$2" >"$T/$1.json" <<'EOF' || die "no data in $2"
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" id="psc-data">(.*?)</script>', s, re.S)
print(m.group(1).replace("\\u003c", "<"))
EOF
}

# expect_one_line NAME WHAT: the run's stderr is one line naming $2's path, stdout empty
expect_one_line() {
	expect_eq 1 "$(wc -l <"$T/$1.err")" "$2: one line on stderr ($(head -c 300 "$T/$1.err"))"
	expect_grep "$3" "$T/$1.err"
	expect_eq 0 "$(wc -c <"$T/$1.out")" "$2: nothing on stdout"
}

mpi_record rec "$T/ring" "$np" "$ring" -b 5 -n "$rounds" -s "$bytes"
run ex "$PERFSCOPE" export "$T/ring" --format otf2 -o "$T/ring.otf2"
expect_eq 0 "$RC" "perfscope export --format otf2" || show ex
run hexp "$PERFSCOPE" html "$T/ring"
expect_eq 0 "$RC" "perfscope html on the experiment" || show hexp
# the archive's report goes beside its anchor: ring.otf2/traces.html
run harc "$PERFSCOPE" html "$T/ring.otf2/traces.otf2"
expect_eq 0 "$RC" "perfscope html on the archive" || show harc
expect_file "$T/ring.otf2/traces.html"
data exp "$T/ring/report.html"
data arc "$T/ring.otf2/traces.html"

# the archive's data against the experiment's: prints "name: ok" or "name: what differs"
python3 - "$T/exp.json" "$T/arc.json" "$np" "$bytes" "$rounds" >"$T/cmp" <<'EOF'
import itertools, json, sys
e, a = (json.load(open(p)) for p in sys.argv[1:3])
np, nbytes, rounds = map(int, sys.argv[3:6])
def say(name, ok, detail=""):
    print(f"{name}: {'ok' if ok else 'differs ' + str(detail)}")
re_, ra = e["mpi"]["routines"], a["mpi"]["routines"]
say("routine names", re_["names"] == ra["names"], (re_["names"], ra["names"]))
for k in ("calls", "bytes"):
    say("routine " + k, re_[k] == ra[k], (re_[k], ra[k]))
# the ring as the program does it: rounds sends of nbytes per rank
n = len(ra["names"])
per = lambda key, r, name: ra[key][r * n + ra["names"].index(name)]
say("ring sends", all(per("calls", r, "MPI_Send") == rounds and per("bytes", r, "MPI_Send") == rounds * nbytes
                      for r in range(np)), ra["calls"])
tick = max(1, -(-10**9 // a["meta"]["archive"]["timer_resolution"]))
we, wa = e["mpi"]["waits"], a["mpi"]["waits"]
for k in ("p2p", "coll", "total"):
    d = [abs(x - y) for x, y in zip(we[k], wa[k])]
    say("waits " + k, len(we[k]) == len(wa[k]) and max(d) <= tick, (tick, d))
say("waits nonzero", sum(wa["p2p"]) > 0, wa["p2p"])
te, ta = e["timeline"], a["timeline"]
say("rows", [r["label"] for r in te["rows"]] == [r["label"] for r in ta["rows"]],
    ([r["label"] for r in te["rows"]], [r["label"] for r in ta["rows"]]))
say("arrows", ta["arrows"]["total"] == np * rounds and
    sorted(zip(te["arrows"]["from"], te["arrows"]["to"])) == sorted(zip(ta["arrows"]["from"], ta["arrows"]["to"])),
    (ta["arrows"]["total"], ta["arrows"]["from"], ta["arrows"]["to"]))
def slices(t, depth_min):
    return sorted((l["row"], l["depth"], t["names"][nm], d)
                  for l in t["lanes"] if l["depth"] >= depth_min
                  for s, d, nm in zip(itertools.accumulate(l["start"]), l["dur"], l["name"]))
fe, fa = slices(te, 0), slices(ta, 0)
say("function slices", len(fa) > 0 and len(fe) == len(fa) and
    all(x[:3] == y[:3] and abs(x[3] - y[3]) <= 2 * tick for x, y in zip(fe, fa)), (len(fe), len(fa)))
say("function names", "main" in {s[2] for s in fa} and sorted(set(te["names"])) == sorted(set(ta["names"])),
    (sorted(set(te["names"])), sorted(set(ta["names"]))))
say("MPI slices", slices(te, -1) != fe and len(slices(ta, -1)) == len(slices(te, -1)),
    (len(slices(te, -1)), len(slices(ta, -1))))
pe = {f["name"]: f["calls"] for f in e["profile"]["functions"]}
pa = {f["name"]: f["calls"] for f in a["profile"]["functions"]}
say("function calls", all(pa.get(k) == v for k, v in pe.items()), (pe, pa))
say("MPI routines in the profile", pa.get("MPI_Send") == np * rounds and pa.get("MPI_Recv") == np * rounds, pa)
m = a["meta"]
say("summary", m["processes"] == np and m["threads"] == np and m["archive"]["locations"] == np and
    m["archive"]["anchor"].endswith("traces.otf2") and
    m["clock"] == f"OTF2 timer, {m['archive']['timer_resolution']} ticks/s", m)
say("caveat", any("OTF2 archive" in c and "Source" in c for c in a["caveats"]), a["caveats"])
say("no experiment views", not any(k in a for k in ("source", "energy", "counters", "load")), sorted(a))
EOF
while read -r line; do
	case "$line" in *": ok") PSC_CHECKS=$((PSC_CHECKS + 1)) ;; *) fail "archive against experiment: $line" ;; esac
done <"$T/cmp"
expect_eq 18 "$(wc -l <"$T/cmp")" "comparisons made"

# in Chromium: every view the archive has renders and passes its own test
html_render "$T/ring.otf2/traces.html" ring
html_expect_ok ring
views=$(html_dom ring --views | tr '\n' ' ')
for v in summary profile timeline animation waits traffic detail; do
	case " $views" in *" $v "*) PSC_CHECKS=$((PSC_CHECKS + 1)) ;; *) fail "view $v not shown (views: $views)" ;; esac
done
for v in source energy counters load; do
	case " $views" in *" $v "*) fail "view $v shown for an archive (views: $views)" ;; *) PSC_CHECKS=$((PSC_CHECKS + 1)) ;; esac
done
html_render "$T/ring.otf2/traces.html" ring-timeline timeline
html_expect_ok ring-timeline

# a Score-P archive: the ping-pong of tests/data/otf2 (16 messages)
run pp "$PERFSCOPE" html "$PSC_SOURCE/tests/data/otf2/ping-pong-otf2/traces.otf2" -o "$T/pp.html"
expect_eq 0 "$RC" "perfscope html on the Score-P archive" || show pp
data pp "$T/pp.html"
expect_eq 16 "$(json_eval "$T/pp.json" "d['timeline']['arrows']['total']")" "Score-P: 16 messages as arrows"
expect_eq "8 8 8 8" "$(json_eval "$T/pp.json" "' '.join(str(d['mpi']['routines']['calls'][r * len(d['mpi']['routines']['names']) + d['mpi']['routines']['names'].index(k)]) for r in (0, 1) for k in ('MPI_Send', 'MPI_Recv'))")" "Score-P: MPI_Send and MPI_Recv per rank"
expect_eq "Score-P 7.1" "$(json_eval "$T/pp.json" "d['meta']['created_by']")" "Score-P: creator in the Summary"
html_render "$T/pp.html" pp
html_expect_ok pp

# bad input: one line naming the file, exit 2, no report
printf 'not an archive\n' >"$T/junk.otf2"
run junk "$PERFSCOPE" html "$T/junk.otf2" -o "$T/junk.html"
expect_eq 2 "$RC" "html on a file that is no archive"
expect_one_line junk "no archive" "junk.otf2"
expect_no_file "$T/junk.html"
cp -r "$T/ring.otf2" "$T/cut"
truncate -s 20 "$T/cut/traces.otf2"
run cut "$PERFSCOPE" html "$T/cut/traces.otf2" -o "$T/cut.html"
expect_eq 2 "$RC" "html on an archive with a truncated anchor"
expect_one_line cut "truncated anchor" "cut/traces.otf2"
expect_no_file "$T/cut.html"
cp -r "$T/ring.otf2" "$T/cutev"
evt=$(find "$T/cutev/traces" -name '*.evt' | sort | tail -n 1)
truncate -s $(($(stat -c %s "$evt") / 2)) "$evt"
run cutev "$PERFSCOPE" html "$T/cutev/traces.otf2" -o "$T/cutev.html"
expect_eq 2 "$RC" "html on an archive with a truncated event file"
expect_one_line cutev "truncated events" "cutev/traces.otf2"
expect_no_file "$T/cutev.html"
finish
