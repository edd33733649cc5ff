#!/usr/bin/env python3
"""mutate.py - the mutation test's driver (tests/e2e/test_mutate.sh): damaged copies of real
experiment directories, every analysis command run on each, the outcome judged.

  mutate.py run PERFSCOPE WORKDIR SEED MODE KIND=DIR...
      MODE is "ci" (a fixed, seeded sample: per file kind of each experiment, one mutant and
      6 commands, in turn) or a number of seconds (the long mode: every command on every intact
      experiment first, then random mutants until the time is up). Prints one
      line per failure and, at the end, the failures by class with one reproducer each and the
      counts; exit status 0 when nothing failed, 1 otherwise.
  mutate.py apply SRC DST FILE MUTATION
      Make DST a copy of the experiment SRC with FILE (relative to SRC) mutated: the
      reproducer of a failure. MUTATION is trunc:N (the first N bytes kept) or
      flip:OFF=XOR[,OFF=XOR...] (bytes XORed, XOR in hex).

A mutant is the experiment with one file damaged: truncated (to 0 bytes, inside its header,
inside a record, its last byte off) or with bytes flipped at seeded random offsets. Every
command of the experiment's kind runs on it with a timeout. A run passes when it exits 0 (the
mutant is still valid, or the damage is reported as a caveat), or exits 2 with exactly one
line on stderr that names a file of the mutant (and a byte offset, "byte N", when it names the
damaged file and that file is binary, except OTF2's: their reader, OTF2's library, reports no
offsets). It fails on a signal, a sanitizer report, a timeout, any
other exit status, or a message of more lines or naming no file.

Known failures (KNOWN below) are classes of failure already reported, with the fix pending in
another branch: they are counted and listed apart and do not fail the test; each is a command
and a file kind, and a pattern the failure's message must match.
"""
import os
import random
import re
import shutil
import subprocess
import sys
import time

TIMEOUT = float(os.environ.get("PSC_MUTATE_TIMEOUT", "30"))
PER_MUTANT = 6  # commands run on each mutant

# Commands by experiment kind; {D} is the mutant (directory, or the OTF2 anchor), {O} an output
# path outside it. Every kind also runs COMMON, except otf2. Each command succeeds on the intact
# experiment (the long mode checks it first): timeline needs samples, select function calls.
COMMON = [
    ["info", "{D}"],
    ["info", "{D}", "--json"],
    ["dump", "{D}"],
    ["report", "{D}"],
    ["report", "{D}", "--tree"],
    ["report", "{D}", "--by", "thread"],
    ["report", "{D}", "--json"],
    ["html", "{D}", "-o", "{O}", "--force"],
    ["export", "{D}", "--format", "chrome", "-o", "{O}", "--force"],
    ["export", "{D}", "--format", "otf2", "-o", "{O}.otf2", "--force"],
]
COMMANDS = {
    "regions": [["report", "{D}", "--by", "region"], ["report", "{D}", "--by", "region", "--csv"]],
    "functions": [
        ["report", "{D}", "--by", "function"],
        ["report", "{D}", "--min-time", "1us"],
        ["select", "{D}", "--top", "3", "-o", "{O}", "--force"],
    ],
    "sampling": [
        ["report", "{D}", "--by", "sample"],
        ["report", "{D}", "--by", "sample", "--tree"],
        ["report", "{D}", "--lines"],
        ["report", "{D}", "--accuracy"],
        ["timeline", "{D}"],
        ["timeline", "{D}", "--json"],
    ],
    "mpi": [
        ["mpi", "{D}"],
        ["mpi", "{D}", "--waits"],
        ["mpi", "{D}", "--traffic"],
        ["mpi", "{D}", "--routines"],
        ["mpi", "{D}", "--patterns"],
        ["mpi", "{D}", "--load"],
        ["mpi", "{D}", "--json"],
        ["report", "{D}", "--by", "rank"],
        ["report", "{D}", "--by", "scope", "--categories"],
        ["select", "{D}", "--min-time", "1us", "-o", "{O}", "--force"],
    ],
    "power": [
        ["energy", "{D}"],
        ["energy", "{D}", "--json", "--intervals", "4"],
        ["energy", "{D}", "--method", "simpson"],
    ],
    "otf2": [
        ["report", "{D}"],
        ["report", "{D}", "--tree"],
        ["report", "{D}", "--by", "scope", "--categories"],
        ["mpi", "{D}"],
        ["mpi", "{D}", "--waits"],
        ["mpi", "{D}", "--routines"],
        ["html", "{D}", "-o", "{O}", "--force"],
    ],
}

# A file's kind by its name (relative to the experiment); binary kinds get "byte N" messages.
KINDS = [
    (r"^meta\.json$", "meta.json", False),
    (r"^proc\..*\.json$", "proc.json", False),
    (r"^stream\.", "stream", True),
    (r"^samples\.", "samples", True),
    (r"^pmaps\.", "pmaps", False),
    (r"^maps\.", "maps", False),
    (r"^power\.", "power", False),
    (r"^load\.", "load", False),
    (r"^kallsyms$", "kallsyms", False),
    (r"^traces\.otf2$", "otf2-anchor", True),
    (r"^traces\.def$", "otf2-def", True),
    (r"^traces/.*\.def$", "otf2-local-def", True),
    (r"^traces/.*\.evt$", "otf2-events", True),
]

# Failures already reported whose fix is pending elsewhere: (file kind, command word, regex on
# the failure's class and message). Keep each with its reproducer in the test's header.
KNOWN = []

SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:")


def commands_of(ekind):
    return (COMMON if ekind != "otf2" else []) + COMMANDS.get(ekind, [])


def kind_of(rel):
    for pat, kind, binary in KINDS:
        if re.search(pat, rel):
            return kind, binary
    return None, False


def files_of(top):
    out = []
    for root, _, names in os.walk(top):
        for n in names:
            rel = os.path.relpath(os.path.join(root, n), top)
            kind, _ = kind_of(rel)
            if kind:
                out.append(rel)
    return sorted(out)


def apply(src, dst, rel, mutation):
    """DST: SRC's files hard linked, REL rewritten with MUTATION applied."""
    if os.path.exists(dst):
        shutil.rmtree(dst)
    for root, dirs, names in os.walk(src):
        r = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, r), exist_ok=True)
        for n in names:
            f = os.path.normpath(os.path.join(r, n))
            if f != os.path.normpath(rel):
                os.link(os.path.join(root, n), os.path.join(dst, f))
    with open(os.path.join(src, rel), "rb") as f:
        data = bytearray(f.read())
    if mutation.startswith("trunc:"):
        data = data[: int(mutation[6:])]
    elif mutation.startswith("flip:"):
        for item in mutation[5:].split(","):
            off, x = item.split("=")
            data[int(off)] ^= int(x, 16)
    else:
        raise ValueError("mutation %r: expected trunc:N or flip:OFF=XOR,..." % mutation)
    with open(os.path.join(dst, rel), "wb") as f:
        f.write(data)


def mutations(rng, size, binary, count):
    """COUNT mutations of a file of SIZE bytes: truncations first, then flips."""
    header = 64 if binary else 16
    truncs = ["trunc:0", "trunc:%d" % min(size - 1, rng.randrange(1, header + 1)),
              "trunc:%d" % rng.randrange(0, size) if size else "trunc:0",
              "trunc:%d" % max(size - 1, 0)]
    out = []
    for i in range(count):
        if size == 0:
            break
        if i % 2 == 0 and truncs:
            out.append(truncs.pop(rng.randrange(len(truncs))))
            continue
        n = rng.choice([1, 1, 2, 4])
        # flips mostly in the first KiB (headers, definitions), some anywhere
        lim = min(size, 1024) if rng.random() < 0.5 else size
        flips = {rng.randrange(lim): rng.randrange(1, 256) for _ in range(n)}
        out.append("flip:" + ",".join("%d=%x" % (o, x) for o, x in sorted(flips.items())))
    return out


def judge(res, stderr, mutant, rel, binary):
    """The failure class of a run, or None when it passed."""
    if res == "timeout":
        return "timeout"
    if SANITIZER.search(stderr):
        return "sanitizer"
    if res < 0:
        return "signal %d" % -res
    if res == 0:
        return None
    if res != 2:
        return "exit %d" % res
    lines = stderr.rstrip("\n").split("\n") if stderr.strip() else []
    if len(lines) != 1:
        return "exit 2 with %d lines" % len(lines)
    top = mutant if os.path.isdir(mutant) else os.path.dirname(mutant)
    if top + "/" not in lines[0] and mutant not in lines[0]:
        return "message names no file of the experiment"
    if (binary and not rel.startswith("traces") and os.path.join(top, rel) in lines[0] and
            not re.search(r"byte \d+", lines[0])):
        return "message names the damaged file without a byte offset"
    return None


def run_one(perfscope, argv):
    try:
        p = subprocess.run([perfscope] + argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stderr or b"").decode("utf-8", "replace")


def known(kind, cmd, cls, stderr):
    for k, c, pat in KNOWN:
        if k in ("*", kind) and c == cmd and re.search(pat, cls + ": " + stderr):
            return True
    return False


def main_run(argv):
    perfscope, work, seed, mode = argv[0], argv[1], int(argv[2]), argv[3]
    exps = [a.split("=", 1) for a in argv[4:]]
    rng = random.Random(seed)
    deadline = time.time() + float(mode) if mode != "ci" else None
    stats = {"mutants": 0, "runs": 0, "failures": 0, "known": 0}
    classes = {}  # (file kind, command, class) -> (count, reproducer)
    os.makedirs(work, exist_ok=True)

    def plan():
        if deadline is None:
            # ci: for every file kind of every experiment, one file of the kind, two mutants
            for ekind, src in exps:
                base = src if os.path.isdir(src) else os.path.dirname(src)
                seen = {}
                for rel in files_of(base):
                    seen.setdefault(kind_of(rel)[0], []).append(rel)
                for fkind in sorted(seen):
                    rel = rng.choice(seen[fkind])
                    size = os.path.getsize(os.path.join(base, rel))
                    ms = mutations(rng, size, kind_of(rel)[1], 2)
                    if ms:
                        yield ekind, src, rel, rng.choice(ms)
        else:
            while time.time() < deadline:
                ekind, src = rng.choice(exps)
                base = src if os.path.isdir(src) else os.path.dirname(src)
                rel = rng.choice(files_of(base))
                size = os.path.getsize(os.path.join(base, rel))
                for m in mutations(rng, size, kind_of(rel)[1], rng.randrange(1, 4)):
                    yield ekind, src, rel, m

    turn = {}
    if deadline is not None:
        # every command on every intact experiment: each must exit 0, or the test means nothing
        for ekind, src in exps:
            for c in commands_of(ekind):
                args = [a.replace("{D}", src).replace("{O}", os.path.join(work, "out"))
                        for a in c]
                res, stderr = run_one(perfscope, args)
                stats["runs"] += 1
                cls = "sanitizer" if SANITIZER.search(stderr) else "exit %s" % res
                if res != 0 and known("-", c[0], cls, stderr):
                    stats["known"] += 1
                elif res != 0:
                    stats["failures"] += 1
                    print("FAIL: the intact experiment: perfscope %s exited %s: %s" %
                          (" ".join(args), res, stderr.strip()[:300]))
    for ekind, src, rel, m in plan():
        base = src if os.path.isdir(src) else os.path.dirname(src)
        mdir = os.path.join(work, "mutant")
        apply(base, mdir, rel, m)
        mutant = mdir if os.path.isdir(src) else os.path.join(mdir, os.path.basename(src))
        out = os.path.join(work, "out")
        stats["mutants"] += 1
        fkind, binary = kind_of(rel)
        cmds = commands_of(ekind)
        if deadline is not None:
            cmds = rng.sample(cmds, min(len(cmds), PER_MUTANT))
        else:
            # in turn: the next PER_MUTANT commands of the kind after the previous mutant's
            k = turn.get(ekind, 0)
            turn[ekind] = k + PER_MUTANT
            cmds = [cmds[(k + i) % len(cmds)] for i in range(min(len(cmds), PER_MUTANT))]
        for c in cmds:
            args = [a.replace("{D}", mutant).replace("{O}", out) for a in c]
            res, stderr = run_one(perfscope, args)
            stats["runs"] += 1
            cls = judge(res, stderr, mutant, rel, binary)
            if cls is None:
                continue
            first = stderr.strip().split("\n")[0][:300] if stderr.strip() else ""
            shown = " ".join(a.replace(mutant, "$M").replace(out, "$OUT") for a in args)
            repro = "mutate.py apply %s $M %s %s; perfscope %s" % (base, rel, m, shown)
            if known(fkind, c[0], cls, stderr):
                stats["known"] += 1
                key = (fkind, c[0], "known: " + cls)
            else:
                stats["failures"] += 1
                print("FAIL: %s: %s on %s (%s): %s" % (cls, c[0], rel, m, first))
                key = (fkind, c[0], cls)
            n, r = classes.get(key, (0, None))
            classes[key] = (n + 1, r or (repro, first))
        if deadline is not None and time.time() >= deadline:
            break
    shutil.rmtree(os.path.join(work, "mutant"), ignore_errors=True)
    print("mutants: %d, command runs: %d, failures: %d, known failures: %d" %
          (stats["mutants"], stats["runs"], stats["failures"], stats["known"]))
    for (fkind, cmd, cls), (n, (repro, first)) in sorted(classes.items()):
        print("class: %s | %s | %s: %d failures; e.g. %s\n    stderr: %s" %
              (fkind, cmd, cls, n, repro, first))
    return 1 if stats["failures"] else 0


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "run":
        return main_run(sys.argv[2:])
    if len(sys.argv) == 6 and sys.argv[1] == "apply":
        apply(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
