#!/usr/bin/env python3
"""long_vs_csv.py [OPTIONS] CSV LONG - every line of a `--format long` output is a cell of the
`--csv` output of the same command, block by block (blocks are separated by an empty line),
and every cell is one: the long CSV's entity columns (all but its last two, metric and value)
name the row, every other column of the wide CSV is a metric. Exits 1 with the difference.

  --blocks N            the outputs have exactly N blocks
  --leading-entities    the entity columns are the wide CSV's first columns, in order
  --skip COL,...        wide columns that are neither entities nor metrics
  --allow-empty         a block may have no rows (only its header)
"""
import argparse, collections, csv, io, sys

ap = argparse.ArgumentParser()
ap.add_argument("--blocks", type=int)
ap.add_argument("--leading-entities", action="store_true")
ap.add_argument("--skip", default="")
ap.add_argument("--allow-empty", action="store_true")
ap.add_argument("wide")
ap.add_argument("long")
a = ap.parse_args()
skip = set(c for c in a.skip.split(",") if c)


def blocks(path):
    return [list(csv.reader(io.StringIO(b))) for b in open(path).read().split("\n\n")]


wide, long_ = blocks(a.wide), blocks(a.long)
if len(wide) != len(long_) or (a.blocks is not None and len(wide) != a.blocks):
    sys.exit(f"blocks: {len(wide)} in the CSV, {len(long_)} in the long CSV")
for w, l in zip(wide, long_):
    head, lhead = w[0], l[0]
    if lhead[-2:] != ["metric", "value"]:
        sys.exit(f"the long CSV's header ends with {lhead[-2:]}, not metric,value")
    ents = lhead[:-2]
    if not ents or not all(e in head for e in ents):
        sys.exit(f"entity columns {ents} not all in the CSV's {head}")
    if a.leading_entities and ents != head[: len(ents)]:
        sys.exit(f"entity columns {ents} are not the CSV's first columns {head}")
    metrics = [c for c in head if c not in ents and c not in skip]
    want = collections.Counter()
    for r in w[1:]:
        key = tuple(r[head.index(e)] for e in ents)
        for m in metrics:
            want[key + (m, r[head.index(m)])] += 1
    got = collections.Counter(tuple(r) for r in l[1:])
    if want != got:
        sys.exit(f"only in the CSV: {want - got}; only in the long CSV: {got - want}")
    if len(w) < 2 and not a.allow_empty:
        sys.exit(f"a block without rows: {head}")
