#!/usr/bin/env bash
# Fault injection: a traced program is killed with SIGKILL at random moments (a fixed seed,
# so that a failure can be replayed; PSC_KILL_TRIALS and PSC_KILL_SEED change them). Every
# experiment must be readable, and every call the program completed before the kill must be
# in it: the program counts its completed calls in a file it maps shared, so after the kill
# the report must show that many calls, or one more (the call under way when it died).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced kp "$PSC_SOURCE/tests/e2e/killed-prog.c"

trials=${PSC_KILL_TRIALS:-10}
RANDOM=${PSC_KILL_SEED:-4242}

for ((i = 1; i <= trials; i++)); do
	d=$T/exp$i
	rm -f "$T/done" "$T/pid"
	# the program's own pid, for the kill (the launcher is its parent)
	"$PERFSCOPE" record --functions -o "$d" -- sh -c 'echo $$ >"$1"; exec "$2" progress "$3"' \
		sh "$T/pid" "$T/kp" "$T/done" >"$T/rec$i.out" 2>"$T/rec$i.err" &
	rec=$!
	for _ in $(seq 100); do
		[ -s "$T/pid" ] && [ -s "$T/done" ] && break
		sleep 0.05
	done
	delay=$((RANDOM % 500))
	sleep "$(printf '0.%03d' "$delay")"
	kill -KILL "$(cat "$T/pid")"
	wait "$rec" || true
	done_calls=$(od -An -t u8 -N8 "$T/done" | tr -d ' ')
	run rep$i "$PERFSCOPE" report "$d" --csv
	expect_eq 0 "$RC" "trial $i (kill after ${delay} ms): report exit status"
	calls=$(csv_get "$T/rep$i.out" calls name=f)
	expect_cmp "$calls" ">=" "$done_calls" "trial $i: calls of f against the $done_calls completed"
	expect_cmp "$calls" "<=" "$((done_calls + 1))" "trial $i: calls of f against the $done_calls completed"
	run info$i "$PERFSCOPE" info "$d"
	expect_eq 0 "$RC" "trial $i: info exit status"
	if compgen -G "$d/live.*" >/dev/null; then
		fail "trial $i: live files left"
	fi
done

finish
