#!/usr/bin/env bash
# perfscope list: the machine, its events and whether they work, metric groups.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

run list "$PERFSCOPE" list
expect_eq 0 "$RC" "perfscope list exit status"
out=$T/list.out
PSC_CHECKS=$((PSC_CHECKS + 1))
grep -Eq '^ *page-faults +software +yes( |$)' "$out" ||
	fail "perfscope list: no line saying page-faults works (yes): $(grep page-faults "$out" || true)"
PSC_CHECKS=$((PSC_CHECKS + 1))
grep -Eq '^ *task-clock +software +yes( |$)' "$out" ||
	fail "perfscope list: no line saying task-clock works (yes)"
expect_grep "Metric groups" "$out" "perfscope list: metric groups section"
PSC_CHECKS=$((PSC_CHECKS + 1))
grep -Eq '^  sw( |$)' "$out" || fail "perfscope list: metric group sw not listed"
PSC_CHECKS=$((PSC_CHECKS + 1))
grep -Eq '^  default( |$)' "$out" || fail "perfscope list: metric group default not listed"
expect_eq "" "$(cat "$T/list.err")" "perfscope list stderr"

run json "$PERFSCOPE" list --json
expect_eq 0 "$RC" "perfscope list --json exit status"
j=$T/json.out
json_ok "$j" || die "perfscope list --json does not parse: $(head -c 500 "$j")"
expect_eq true "$(json_eval "$j" 'isinstance(d["cpu"]["vendor"], str) and len(d["cpu"]["vendor"]) > 0')" \
	"list --json: cpu.vendor non-empty"
expect_eq true "$(json_eval "$j" 'type(d["perf"]["paranoid"]) is int')" "list --json: perf.paranoid an integer"
expect_eq "$(cat /proc/sys/kernel/perf_event_paranoid)" "$(json_eval "$j" 'd["perf"]["paranoid"]')" \
	"list --json: perf.paranoid is the kernel's setting"
expect_eq true "$(json_eval "$j" '[e["works"] for e in d["events"] if e["name"] == "page-faults"] == [True]')" \
	"list --json: page-faults works"
expect_eq true "$(json_eval "$j" '[e["works"] for e in d["events"] if e["name"] == "task-clock"] == [True]')" \
	"list --json: task-clock works"
expect_eq true "$(json_eval "$j" 'all(e["works"] or len(e.get("reason") or "") > 0 for e in d["events"])')" \
	"list --json: every event that does not work says why"
expect_eq true "$(json_eval "$j" '{"sw", "default"} <= {g["name"] for g in d["metric_groups"]}')" \
	"list --json: metric groups sw and default"
expect_eq true "$(json_eval "$j" '"page-faults" in [g for g in d["metric_groups"] if g["name"] == "sw"][0]["events"]')" \
	"list --json: group sw counts page-faults"

finish
