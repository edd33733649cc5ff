#!/usr/bin/env bash
# The HTML report's Timeline on damaged streams: the report is written, each damaged stream is
# a caveat, and what could be read is drawn. The experiment is the corpus's `regions` (two
# threads: the main thread's regions main-work, outer and inner, 12 slices; the second thread's
# region thread-work, 1 slice).
#  - the main thread's stream damaged at byte 900: the caveat names the record at byte 888 and
#    says the rest of the thread is left out; its row keeps the slices before the defect (some,
#    fewer than 12); the second thread is drawn whole.
#  - the second thread's stream without its magic: the caveat names byte 0; its row is empty;
#    the main thread is drawn whole.
. "$(dirname "$0")/lib.sh"
psc_init

exp=$PSC_SOURCE/tests/data/corpus/exp/regions
# the main thread's stream (pid = tid) and the second thread's
main=$(cd "$exp" && ls stream.* | awk -F. '$2 == $3')
second=$(cd "$exp" && ls stream.* | awk -F. '$2 != $3')

# damage NAME FILE AT LEN: a copy of the experiment as $T/NAME, LEN bytes of FILE from AT
# overwritten (0xff, or 0 when AT is 0)
damage() {
	cp -r "$exp" "$T/$1"
	chmod -R u+w "$T/$1"
	python3 - "$T/$1/$2" "$3" "$4" <<'PY'
import sys
p, at, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b = bytearray(open(p, "rb").read())
b[at:at + n] = (b"\0" if at == 0 else b"\xff") * n
open(p, "wb").write(bytes(b))
PY
}

# facts NAME: "caveat lines|slices of row 0|slices of row 1" of $T/NAME.html's timeline
facts() {
	python3 - "$T/$1.html" <<'PY'
import json, re, sys
s = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" id="psc-data">(.*?)</script>', s, re.S)
d = json.loads(m.group(1).replace("\\u003c", "<"))
rows = [0, 0]
for lane in d["timeline"]["lanes"]:
    rows[lane["row"]] += len(lane["start"])
print("\n".join(c for c in d["caveats"] if c.startswith("timeline: ")))
print(f"{rows[0]}|{rows[1]}")
PY
}

damage cut "$main" 900 40
run cut "$PERFSCOPE" html "$T/cut" -o "$T/cut.html"
expect_eq 0 "$RC" "html on a stream damaged mid-way" || show cut
facts cut >"$T/cut.facts"
expect_grep "timeline: $T/cut/$main: byte 888: " "$T/cut.facts" "the damaged stream's caveat"
expect_grep "(the rest of the thread is left out)" "$T/cut.facts" "the damaged stream's caveat"
IFS='|' read -r r0 r1 < <(tail -n 1 "$T/cut.facts")
expect_cmp "$r0" ">" 0 "the damaged thread: the slices before the defect"
expect_cmp "$r0" "<" 12 "the damaged thread: not the slices after it"
expect_eq 1 "$r1" "the second thread drawn whole"

damage magic "$second" 0 16
run magic "$PERFSCOPE" html "$T/magic" -o "$T/magic.html"
expect_eq 0 "$RC" "html with an unreadable stream" || show magic
facts magic >"$T/magic.facts"
expect_grep "timeline: $T/magic/$second: byte 0: not a perfscope stream (bad magic)" \
	"$T/magic.facts" "the unreadable stream's caveat"
IFS='|' read -r r0 r1 < <(tail -n 1 "$T/magic.facts")
expect_eq 12 "$r0" "the main thread drawn whole"
expect_eq 0 "$r1" "the unreadable thread: no slices"
finish
