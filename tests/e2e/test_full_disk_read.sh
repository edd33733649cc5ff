#!/usr/bin/env bash
# A full disk (issue "Trust"): what fits is read, and every command names the cause. On a
# 2 MiB tmpfs: (1) a traced and sampled fib(27) writes ten times what fits: info, report (all
# views and formats), timeline, dump, html and export exit 0, show the function calls that
# fit, and say "No space left on device" (or the disk was full); (2) a sampled run on a disk
# with 64 KiB left: the samples file, the runtime's files and the pmaps file run out of room
# in whichever order, and every command still reads the experiment and names the cause;
# (3) a disk with no room at all: record refuses with one line naming ENOSPC (it named the
# ENOENT of its fallback). Needs root (mount); skipped otherwise.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
mkdir -p "$T/small"
mount -t tmpfs -o size=2m tmpfs "$T/small" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount "$T/small" 2>/dev/null || true; _psc_on_exit' EXIT

enospc='No space left on device|the disk was full'

# every_command NAME DIR: each command reading DIR exits 0 and names the full disk
every_command() {
	local name=$1 d=$2 c
	for c in info "info --json" report "report --csv" "report --json" "report --by region" \
		dump timeline "timeline --csv" html export; do
		local tag=$name.${c// /}
		case $c in
		html) run "$tag" "$PERFSCOPE" html -o "$T/$name.html" "$d" ;;
		export) run "$tag" "$PERFSCOPE" export --format chrome -o "$T/$name.json" "$d" ;;
		timeline*)
			# a run without samples has no timeline: that refusal is not about the disk
			[ -n "$(cd "$d" && ls samples.* 2>/dev/null)" ] || continue
			run "$tag" "$PERFSCOPE" $c "$d"
			;;
		*) run "$tag" "$PERFSCOPE" $c "$d" ;;
		esac
		expect_eq 0 "$RC" "$name: $c exit status ($(head -c 300 "$T/$tag.err"))"
		PSC_CHECKS=$((PSC_CHECKS + 1))
		if [ "$c" = html ]; then
			grep -qE "$enospc" "$T/$name.html" || fail "$name: the HTML report does not name the full disk"
		else
			cat "$T/$tag.out" "$T/$tag.err" | grep -qE "$enospc" ||
				fail "$name: $c does not name the full disk: $(head -c 1500 "$T/$tag.out") $(head -c 500 "$T/$tag.err")"
		fi
	done
}

# --- (1) fib(27): 635,621 calls, about 20 MB of records and samples for a 2 MiB disk
d=$T/small/fib
run rec-fib "$PERFSCOPE" record --functions --sample -o "$d" -- "$EX/fib" 27
expect_eq 0 "$RC" "record on a full disk: exit status of fib"
expect_grep "fib(27) = 196418" "$T/rec-fib.out" "fib's own output"
every_command fib "$d"
n=$(csv_get "$T/fib.report--csv.out" calls name=fib)
note "fib: $n calls of fib read"
expect_cmp "${n:-0}" ">" 0 "fib: the calls that fit are read"

# --- (2) a sampled run with 64 KiB left
rm -rf "${T:?}/small/"*
free=$(($(df -k --output=avail "$T/small" | tail -1) - 64))
dd if=/dev/zero of="$T/small/fill" bs=1k count="$free" 2>/dev/null || true
d=$T/small/spin
run rec-spin "$PERFSCOPE" record --sample=20000 -o "$d" -- "$EX/spin" 0.5
expect_eq 0 "$RC" "record --sample with 64 KiB left: exit status ($(head -c 300 "$T/rec-spin.err"))"
expect_grep "No space left on device" "$T/rec-spin.err" "record says the samples could not all be written"
note "spin: files $(cd "$d" && ls -l | awk 'NR > 1 {printf "%s=%s ", $9, $5}')"
every_command spin "$d"

# --- (3) no room at all: record names ENOSPC, not ENOENT
rm -rf "${T:?}/small/"*
dd if=/dev/zero of="$T/small/fill" bs=1k count=4096 2>/dev/null || true
run rec-none "$PERFSCOPE" record -o "$T/small/none" -- "$EX/spin" 0.1
expect_eq 2 "$RC" "record onto a full disk: exit status"
expect_grep "meta.json: No space left on device" "$T/rec-none.err" "record names the full disk"
expect_no_grep "No such file" "$T/rec-none.err" "record does not blame a missing file"
finish
