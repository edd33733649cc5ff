#!/usr/bin/env bash
# run_energy.sh [BUILD] - time `perfscope energy` on the issue's workload: an external meter
# file of 13.6 M samples (an 11-minute run at 20 kHz) against a traced experiment of 80,000
# function events spread over those 11 minutes (both synthetic: gen_power_file.py and
# gen_energy_exp.py). Prints the median wall time of 5 runs and the largest peak RSS per
# configuration (format, method, intervals). Target: < 2 s and < 512 MiB.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
ps=$build/perfscope
[ -x "$ps" ] || { echo "no $ps: build first (cmake --build $build)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/psc-bench-energy.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 "$here/gen_energy_exp.py" "$work/exp"
for f in watts volts,amps time,watts; do
	python3 "$here/gen_power_file.py" --format "$f" "$work/power.${f/,/-}"
done
echo "files: $(du -sh "$work" | cut -f1) in $work; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-11s %-10s %-14s %10s %12s\n' format method options "median s" "peak MiB"

measure() { # FORMAT METHOD EXTRA..
	local fmt=$1 method=$2 times=() rss=0
	shift 2
	for _ in 1 2 3 4 5; do
		/usr/bin/time -f '%e %M' -o "$work/t" "$ps" energy "$work/exp" \
			--power "$work/power.${fmt/,/-}" --power-format "$fmt" --method "$method" \
			"$@" --csv -o "$work/out.csv" --force 2>/dev/null
		read -r t m <"$work/t"
		times+=("$t")
		[ "$m" -gt "$rss" ] && rss=$m
	done
	printf '%-11s %-10s %-14s %10s %12d\n' "$fmt" "$method" "${*:-none}" \
		"$(printf '%s\n' "${times[@]}" | sort -g | sed -n 3p)" $((rss / 1024))
}

measure watts trapezoid
measure watts simpson
measure watts both
measure watts trapezoid --intervals 100
measure volts,amps trapezoid
measure time,watts trapezoid
measure time,watts both --intervals 100
