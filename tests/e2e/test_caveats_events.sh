#!/usr/bin/env bash
# An event that cannot be opened is a caveat everywhere, with its reason: record says it, keeps
# it in meta.json ("unsupported_events"), and report (text and JSON), info and the html
# Summary state exactly one line "cycles: REASON" each, counting at region boundaries and
# sampling. The Summary and info label their two spans: "duration (launch to exit)" (meta.json)
# and "records span (first to last record)".
#
# cycles fails on every machine here: a preloaded shim makes perf_event_open refuse it with
# ENOENT (the error of a machine without the event), so the test does not depend on the PMU.
# The reason then depends only on whether the machine has a core PMU; stat under the same
# shim gives its wording, which the caveats must repeat.
. "$(dirname "$0")/lib.sh"
psc_init
. "$(dirname "$0")/html-lib.sh"

cat >"$T/prog.c" <<'C'
#include <perfscope.h>
#include <stdlib.h>
int main(void)
{
	for (int i = 0; i < 3; i++) {
		psc_region_begin("touch");
		char *p = malloc(1 << 20);
		for (int j = 0; j < (1 << 20); j += 4096)
			p[j] = 1;
		free(p);
		psc_region_end("touch");
	}
	return 0;
}
C
build_c prog "$T/prog.c"
cat >"$T/shim.c" <<'C'
/* perf_event_open refuses the generic cycles event with ENOENT; everything else goes on. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <sys/syscall.h>
long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open) {
		const struct perf_event_attr *attr = (const void *)a[0];

		if (attr->type == PERF_TYPE_HARDWARE && attr->config == PERF_COUNT_HW_CPU_CYCLES) {
			errno = ENOENT;
			return -1;
		}
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
C
"${CC:-cc}" -shared -fPIC -O1 "$T/shim.c" -o "$T/shim.so" -ldl >"$T/shim.log" 2>&1 ||
	die "cannot build the shim: $(cat "$T/shim.log")"
# a sanitized perfscope wants its runtime first among the libraries: the shim comes before it
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
shim() { LD_PRELOAD="$T/shim.so" "$@"; }

# the reason as stat words it for cycles on this machine, under the shim
run stat shim "$PERFSCOPE" stat -e cycles --json -- true
expect_eq 0 "$RC" "stat under the shim"
reason=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(next(e["reason"] for e in d["events"] if e["name"]=="cycles"))' "$T/stat.out" 2>/dev/null) ||
	die "stat --json has no reason for cycles: $(head -c 600 "$T/stat.out")"
case "$reason" in
"not supported: no hardware PMU on this machine (a VM without PMU passthrough?)" | \
	"not supported by this machine's PMU or kernel") ;;
*) fail "the shim should make cycles 'not supported', stat says: $reason" ;;
esac
line="cycles: $reason"

# caveat lines of a text report ("  ! LINE"), of a JSON report's "caveats", of the Summary
text_caveats() { sed -n 's/^  ! //p' "$1"; }
json_caveats() { python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["caveats"]))' "$1"; }
summary_caveats() {
	python3 - "$T/$1.dom" <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inside, self.li, self.items = False, None, []
    def handle_starttag(self, tag, a):
        if tag == "ul" and dict(a).get("id") == "summary-caveats":
            self.inside = True
        elif self.inside and tag == "li":
            self.li = []
    def handle_endtag(self, tag):
        if self.inside and tag == "li" and self.li is not None:
            self.items.append("".join(self.li).strip())
            self.li = None
        elif tag == "ul":
            self.inside = False
    def handle_data(self, data):
        if self.li is not None:
            self.li.append(data)
p = P()
p.feed(open(sys.argv[1]).read())
print("\n".join(p.items))
PY
}
# the Summary's facts: "label<TAB>value" per <dt>/<dd data-key>
summary_facts() {
	python3 - "$T/$1.dom" <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.key, self.parts, self.facts = None, [], []
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "dd" and "data-key" in a:
            self.key, self.parts = a["data-key"], []
    def handle_endtag(self, tag):
        if tag == "dd" and self.key is not None:
            self.facts.append(self.key + "\t" + "".join(self.parts))
            self.key = None
    def handle_data(self, data):
        if self.key is not None:
            self.parts.append(data)
p = P()
p.feed(open(sys.argv[1]).read())
print("\n".join(p.facts))
PY
}
count_line() { grep -cxF -- "$line" || true; }

# --- counting at region boundaries
run rec shim "$PERFSCOPE" record -e page-faults,cycles -o "$T/d" -- "$T/prog"
expect_eq 0 "$RC" "record -e page-faults,cycles"
expect_grep "perfscope record: cycles: $reason; counting goes on without it" "$T/rec.err" \
	"record says cycles cannot be counted, and why"
expect_eq "[{'name': 'cycles', 'status': -2, 'reason': '$reason'}]" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unsupported_events"])' "$T/d/meta.json")" \
	"meta.json keeps the event, its errno and the reason"
run rep "$PERFSCOPE" report "$T/d"
expect_eq 0 "$RC" "report"
expect_eq 1 "$(text_caveats "$T/rep.out" | count_line)" "report: one caveat '$line'"
run repj "$PERFSCOPE" report "$T/d" --json
expect_eq 1 "$(json_caveats "$T/repj.out" | count_line)" "report --json: one caveat '$line'"
expect_eq "True None" "$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["regions"][0]["counters"]; print(c["page-faults"]["value"] > 0, c["cycles"])' "$T/repj.out")" \
	"report --json: page-faults counted, cycles has no value"
run info "$PERFSCOPE" info "$T/d"
expect_eq 1 "$(grep -cxF "not counted  $line" "$T/info.out" || true)" "info: 'not counted  $line'"
run infoj "$PERFSCOPE" info "$T/d" --json
read -r run_ns span_ns unsup <<<"$(python3 -c '
import json, sys
i = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
assert i["run_ns"] == m["end_ns"] - m["start_ns"]
print(i["run_ns"], round(i["records_span_ns"]), len(i["unsupported_events"]))' "$T/infoj.out" "$T/d/meta.json")" ||
	fail "info --json: run_ns is not meta.json's end_ns - start_ns"
expect_eq 1 "$unsup" "info --json: one unsupported event"
expect_cmp "$span_ns" "<" "$run_ns" "the records span lies inside launch to exit"
expect_eq 1 "$(grep -cE '^duration     [0-9.]+ (ns|µs|ms|s) \(launch to exit\)$' "$T/info.out" || true)" \
	"info: the duration says it is launch to exit"
expect_eq 1 "$(grep -cE '^records span [0-9.]+ (ns|µs|ms|s) \(first to last record\)$' "$T/info.out" || true)" \
	"info: the records span says what it is"

run html "$PERFSCOPE" html "$T/d"
expect_eq 0 "$RC" "html"
html_render "$T/d/report.html" counting summary
html_expect_ok counting
expect_eq 1 "$(summary_caveats counting | count_line)" "the Summary lists '$line' once"
summary_facts counting >"$T/counting.facts"
expect_eq 1 "$(grep -c '^duration (launch to exit)	' "$T/counting.facts" || true)" \
	"the Summary labels the duration 'launch to exit'"
expect_eq 1 "$(grep -c '^records span (first to last record)	' "$T/counting.facts" || true)" \
	"the Summary labels the records span"
expect_eq 0 "$(grep -c '^duration	' "$T/counting.facts" || true)" "no unlabelled duration"
# the values behind the labels: meta.json's launch to exit, info's records span
expect_eq "$run_ns $span_ns" "$(python3 -c 'import re,sys,json; t=open(sys.argv[1]).read(); m=json.loads(re.search(r"id=\"psc-data\">(.*?)</script>", t, re.S).group(1))["meta"]; print(m["duration_ns"], round(m["records_span_ns"]))' "$T/d/report.html")" \
	"the Summary's spans are info's run_ns and records_span_ns"

# --- sampling: the sampler's failed event, same line
run srec shim "$PERFSCOPE" record --sample -e page-faults,cycles -o "$T/s" -- "$T/prog"
if [ "$RC" -ne 0 ]; then
	note "record --sample is not possible here: $(head -n 2 "$T/srec.err")"
else
	expect_grep "perfscope record: cycles: $reason; sampling goes on without it" "$T/srec.err" \
		"record --sample says cycles is not sampled, and why"
	run srep "$PERFSCOPE" report "$T/s"
	expect_eq 1 "$(text_caveats "$T/srep.out" | count_line)" "sampled report: one caveat '$line'"
	run srepj "$PERFSCOPE" report "$T/s" --json
	expect_eq 1 "$(json_caveats "$T/srepj.out" | count_line)" "sampled report --json: one caveat '$line'"
	run shtml "$PERFSCOPE" html "$T/s"
	expect_eq 0 "$RC" "html of the sampled run"
	html_render "$T/s/report.html" sampling summary
	html_expect_ok sampling
	expect_eq 1 "$(summary_caveats sampling | count_line)" "the sampled run's Summary lists '$line' once"
fi

# --- every event opens: no such caveat, an empty list
run ok "$PERFSCOPE" record -e page-faults -o "$T/ok" -- "$T/prog"
expect_eq 0 "$RC" "record -e page-faults"
expect_no_grep "counting goes on without it" "$T/ok.err" "record has nothing to say"
expect_eq "[]" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unsupported_events"])' "$T/ok/meta.json")" \
	"meta.json: no unsupported event"
run okrep "$PERFSCOPE" report "$T/ok"
expect_eq 0 "$(text_caveats "$T/okrep.out" | grep -c 'not supported' || true)" "report: no event caveat"
run okinfo "$PERFSCOPE" info "$T/ok"
expect_no_grep "not counted" "$T/okinfo.out" "info: no 'not counted' line"
finish
