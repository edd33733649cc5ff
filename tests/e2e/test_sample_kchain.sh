#!/usr/bin/env bash
# Kernel frames in sampled call chains (record --sample --callgraph, kernel code sampled): the
# page-walk example takes 4 x 50000 page faults in walk_once. Its call tree (report --tree) has
# kernel functions, marked "[k]" and named from the experiment's kallsyms, below user
# functions and never above one; the user function the most kernel samples entered the kernel
# from is walk_once; `--callers` of the first kernel function under it names walk_once. With
# the kernel's addresses hidden (a procfs whose kallsyms reads as zeros, as kernel.kptr_restrict
# makes it) record saves no kallsyms: the chains' kernel frames are left out and the report
# says how many, the kernel samples show as [kernel], and the user part above them is the same
# function, walk_once. Needs kernel sampling and readable kernel addresses (root here): else
# skipped.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

d=$T/k.exp
record_or_die rec "$d" --sample=1000 --callgraph -- "$EX/pagewalk" -n 50000 -r 4 -s 1
if [ "$(json_eval "$d/meta.json" 'd["sampling"]["user_only"]')" = True ] || [ ! -s "$d/kallsyms" ]; then
	skip "kernel code is not sampled or its addresses are hidden here: $(cat "$T/rec.err")"
fi

# tree_summary FILE: from a text call tree, "user_under_kernel N", "entry NAME SAMPLES" per user
# function that kernel frames hang under, "unnamed N" ([kernel] nodes) and "kframes N"
tree_summary() {
	python3 - "$1" <<'PY'
import sys
entries, stack = {}, []
under, unnamed, kframes = 0, 0, 0
for raw in open(sys.argv[1], "rb").read().split(b"\n"):
    # "  %9s %7.1f %%  %6.1f %%  %10s  " then two spaces per depth (widths in bytes: "µs")
    if len(raw) < 46 or not raw[2:11].strip().isdigit():
        continue
    rest = raw[45:].decode()
    depth = (len(rest) - len(rest.lstrip(" "))) // 2
    name = rest.strip()
    samples = int(raw[2:11].strip())
    del stack[depth:]
    kernel = name.startswith("[k] ") or name == "[kernel]"
    parent = stack[-1] if stack else None
    if not kernel and any(k for _, k in stack):
        under += 1
    if kernel and parent and not parent[1]:
        entries[parent[0]] = entries.get(parent[0], 0) + samples
    unnamed += name == "[kernel]"
    kframes += name.startswith("[k] ")
    stack.append((name, kernel))
print("user_under_kernel", under)
print("unnamed", unnamed)
print("kframes", kframes)
for n, s in sorted(entries.items(), key=lambda e: -e[1]):
    print("entry", n, s)
PY
}

run tree "$PERFSCOPE" report "$d" --tree
expect_eq 0 "$RC" "report --tree exits 0"
tree_summary "$T/tree.out" >"$T/sum.txt"
expect_eq 0 "$(awk '/^user_under_kernel/ {print $2}' "$T/sum.txt")" "no user function under a kernel frame"
expect_cmp "$(awk '/^kframes/ {print $2}' "$T/sum.txt")" ">" 0 "kernel functions ([k]) in the tree"
expect_eq 0 "$(awk '/^unnamed/ {print $2}' "$T/sum.txt")" "every kernel frame and IP named from kallsyms"
expect_eq walk_once "$(awk '/^entry/ {print $2; exit}' "$T/sum.txt")" \
	"the most kernel samples entered the kernel from walk_once"
expect_no_grep "kernel frames of the call chains are left out" "$T/tree.out" "no kernel frame left out"

# the first kernel function under walk_once, and its callers
kfn=$(awk '/ walk_once$/ {w = 1; next} w && /\[k\] / {sub(/.*\[k\] /, ""); print; exit}' "$T/tree.out")
expect_ne "" "$kfn" "a kernel function directly under walk_once"
run callers "$PERFSCOPE" report "$d" --callers "$kfn" --csv
expect_eq 0 "$RC" "report --callers $kfn exits 0"
expect_eq "0,$kfn,[kernel]" "$(sed -n 2p "$T/callers.out" | cut -d, -f1-3)" "--callers: the kernel function, module [kernel]"
expect_grep '1,walk_once,' "$T/callers.out" "--callers $kfn: walk_once calls it"

# the kernel's addresses hidden: no kallsyms, kernel frames left out and said
mkdir -p "$T/proc/sys/kernel"
for f in perf_event_max_sample_rate perf_event_paranoid perf_event_mlock_kb; do
	cp "/proc/sys/kernel/$f" "$T/proc/sys/kernel/" 2>/dev/null || true
done
sed 's/^[0-9a-f]* /0000000000000000 /' /proc/kallsyms >"$T/proc/kallsyms"
PERFSCOPE_PROCFS_ROOT=$T/proc record_or_die hid "$T/h.exp" --sample=1000 --callgraph -- \
	"$EX/pagewalk" -n 50000 -r 4 -s 1
expect_grep "kernel functions will show as [kernel]" "$T/hid.err" "record says kernel functions will not be named"
expect_no_file "$T/h.exp/kallsyms"
run htree "$PERFSCOPE" report "$T/h.exp" --tree
expect_eq 0 "$RC" "report --tree without kallsyms exits 0"
tree_summary "$T/htree.out" >"$T/hsum.txt"
expect_eq 0 "$(awk '/^kframes/ {print $2}' "$T/hsum.txt")" "no [k] frame without kallsyms"
expect_grep "kernel frames of the call chains are left out of the paths: the experiment has no kallsyms" \
	"$T/htree.out" "the report says the kernel frames are left out"
expect_eq walk_once "$(awk '/^entry/ {print $2; exit}' "$T/hsum.txt")" \
	"without kallsyms too, the most kernel samples are under walk_once"
finish
