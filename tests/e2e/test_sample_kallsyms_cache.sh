#!/usr/bin/env bash
# The cache of the kernel's symbols (record --sample): the first sampled run of a boot stores
# its copy of /proc/kallsyms's text symbols in PERFSCOPE_CACHE_DIR, named after the boot_id,
# and the experiment's kallsyms holds exactly those symbols; the next run takes its copy from
# that entry (a marker symbol put into the entry shows up in the experiment) and does not write
# it again. A run that cannot see the addresses (a procfs whose kallsyms reads as zeros, the
# same boot_id) neither takes the entry nor stores one: it has no kallsyms, as without a cache.
# When the modules change (name, size or address; not a use count), a new entry replaces the
# boot's old one; an entry of another boot goes once 7 days old. A cache directory that cannot
# be created still gives the direct copy, silently; an empty PERFSCOPE_CACHE_DIR turns the
# cache off; without it the cache is $XDG_CACHE_HOME/perfscope, else ~/.cache/perfscope. Needs
# kernel sampling and readable kernel addresses: else skipped.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || true)
[ -n "$boot" ] || skip "no /proc/sys/kernel/random/boot_id here"
unset XDG_CACHE_HOME
C=$T/cache

PERFSCOPE_CACHE_DIR=$C record_or_die r1 "$T/e1" --sample=1000 -- true
if [ "$(json_eval "$T/e1/meta.json" 'd["sampling"]["user_only"]')" = True ] || [ ! -s "$T/e1/kallsyms" ]; then
	skip "kernel code is not sampled or its addresses are hidden here: $(cat "$T/r1.err")"
fi
entries=("$C"/kallsyms-*)
expect_eq 1 "${#entries[@]}" "one cache entry after the first run"
entry=${entries[0]}
expect_eq "kallsyms-$boot-" "$(basename "$entry" | cut -c1-$((10 + ${#boot})))" "the entry is named after the boot_id"
expect_eq "" "$(cmp "$entry" "$T/e1/kallsyms" 2>&1)" "the entry holds the experiment's copy"
expect_eq 0 "$(find "$C" -name '.kallsyms-*' | wc -l)" "no temporary file left in the cache"

# the experiment's symbols are /proc/kallsyms's text symbols, in order
same=$(python3 - "$T/e1/kallsyms" <<'PY'
import sys
def rows(path):
    out = []
    for line in open(path):
        f = line.rstrip("\n").split(None, 2)
        if len(f) == 3 and f[1] in "tTwW":
            out.append((int(f[0], 16), f[1], " ".join(f[2].split())))
    return out
a, b = rows(sys.argv[1]), rows("/proc/kallsyms")
print("same" if a == b else "differ: %d vs %d rows" % (len(a), len(b)))
PY
)
expect_eq same "$same" "the experiment's kallsyms is /proc/kallsyms's text symbols"

# the second run takes the entry: a marker symbol put into it shows up in the experiment
marker="ffffffffffffff00 T psc_cache_marker"
{ cat "$entry"; echo "$marker"; } >"$T/marked"
mv "$T/marked" "$entry"
inode=$(stat -c %i "$entry")
PERFSCOPE_CACHE_DIR=$C record_or_die r2 "$T/e2" --sample=1000 -- true
expect_grep "$marker" "$T/e2/kallsyms" "the second run's kallsyms comes from the cache entry"
expect_no_grep "$marker" "$T/e1/kallsyms" "the first experiment keeps its own copy"
expect_eq "$inode" "$(stat -c %i "$entry")" "the entry is not written again"
expect_no_grep "kernel functions will show" "$T/r2.err" "no warning on a cached copy"

# addresses hidden, same boot_id: the visible entry is not taken, nothing is stored
mkdir -p "$T/proc/sys/kernel/random"
for f in perf_event_max_sample_rate perf_event_paranoid perf_event_mlock_kb; do
	cp "/proc/sys/kernel/$f" "$T/proc/sys/kernel/" 2>/dev/null || true
done
echo "$boot" >"$T/proc/sys/kernel/random/boot_id"
sed 's/^[0-9a-f]* /0000000000000000 /' /proc/kallsyms >"$T/proc/kallsyms"
PERFSCOPE_PROCFS_ROOT=$T/proc PERFSCOPE_CACHE_DIR=$C record_or_die hid "$T/h" --sample=1000 -- true
expect_no_file "$T/h/kallsyms" "no kallsyms with the addresses hidden, cache or not"
expect_grep "kernel functions will show as [kernel]" "$T/hid.err" "record says kernel functions will not be named"
expect_eq "$inode" "$(stat -c %i "$entry")" "the hidden run does not store an entry"
expect_eq 1 "$(find "$C" -maxdepth 1 -type f | wc -l)" "still one file in the cache (the build-id cache is in buildid/)"

# the modules change (a procfs with the same boot_id, visible addresses and a modules file):
# a new entry, and the boot's entry for the old modules is removed; another boot's entry is
# kept while recent, removed once 7 days old
mkdir -p "$T/mp/sys/kernel/random"
cp -r "$T/proc/sys/kernel/." "$T/mp/sys/kernel/"
awk '$2 ~ /^[tTwW]$/' /proc/kallsyms >"$T/mp/kallsyms"
echo "psc_mod 16384 0 - Live 0xffffffffc0000000" >"$T/mp/modules"
touch "$C/kallsyms-other-recent"
touch -d '8 days ago' "$C/kallsyms-other-old"
PERFSCOPE_PROCFS_ROOT=$T/mp PERFSCOPE_CACHE_DIR=$C record_or_die mod1 "$T/m1" --sample=1000 -- true
expect_file "$T/m1/kallsyms" "kallsyms with the fake procfs"
expect_no_file "$entry" "the entry for the old modules is removed"
mods1=("$C"/kallsyms-"$boot"-*)
expect_eq 1 "${#mods1[@]}" "one entry of this boot"
expect_ne "$entry" "${mods1[0]}" "a new entry for the new modules"
expect_file "$C/kallsyms-other-recent" "another boot's recent entry is kept"
expect_no_file "$C/kallsyms-other-old" "another boot's entry 8 days old is removed"
echo "psc_mod 16384 3 - Live 0xffffffffc0000000" >"$T/mp/modules"
PERFSCOPE_PROCFS_ROOT=$T/mp PERFSCOPE_CACHE_DIR=$C record_or_die mod2 "$T/m2" --sample=1000 -- true
expect_eq "${mods1[0]}" "$(echo "$C"/kallsyms-"$boot"-*)" "a module's use count is not a change"
echo "psc_mod 16384 0 - Live 0xffffffffc0004000" >"$T/mp/modules"
PERFSCOPE_PROCFS_ROOT=$T/mp PERFSCOPE_CACHE_DIR=$C record_or_die mod3 "$T/m3" --sample=1000 -- true
expect_ne "${mods1[0]}" "$(echo "$C"/kallsyms-"$boot"-*)" "a module loaded elsewhere is a change"

# a cache directory that cannot be created: the direct copy, no message
echo file >"$T/afile"
PERFSCOPE_CACHE_DIR=$T/afile/cache record_or_die bad "$T/e3" --sample=1000 -- true
expect_file "$T/e3/kallsyms" "kallsyms without a usable cache"
expect_eq "" "$(cmp "$T/e3/kallsyms" "$T/e1/kallsyms" 2>&1)" "the direct copy is the same as the first"
expect_no_grep "kernel functions will show" "$T/bad.err" "no warning without a usable cache"
expect_no_grep "cache" "$T/bad.err" "nothing said about the cache"

# an empty PERFSCOPE_CACHE_DIR: no cache
PERFSCOPE_CACHE_DIR= record_or_die off "$T/e4" --sample=1000 -- true
expect_file "$T/e4/kallsyms" "kallsyms with the cache off"
expect_no_grep "$marker" "$T/e4/kallsyms" "the cache is off: the entry is not taken"

# the default directories
mkdir "$T/home1" "$T/home2"
(
	unset PERFSCOPE_CACHE_DIR
	XDG_CACHE_HOME=$T/xdg HOME=$T/home1 record_or_die xdg "$T/e5" --sample=1000 -- true
	HOME=$T/home2 record_or_die home "$T/e6" --sample=1000 -- true
)
expect_eq 1 "$(find "$T/xdg/perfscope" -name "kallsyms-$boot-*" | wc -l)" "the cache under \$XDG_CACHE_HOME/perfscope"
expect_no_file "$T/home1/.cache" "not under \$HOME with \$XDG_CACHE_HOME set"
expect_eq 1 "$(find "$T/home2/.cache/perfscope" -name "kallsyms-$boot-*" | wc -l)" "the cache under ~/.cache/perfscope"
finish
