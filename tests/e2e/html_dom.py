#!/usr/bin/env python3
"""Read what a test needs from a report's DOM as Chromium dumped it (--dump-dom).

html_dom.py FILE --status         data-perfscope-status of <body>
html_dom.py FILE --views          data-perfscope-views of <body>, one per line
html_dom.py FILE --tests          the views' test verdicts (the #psc-test element)
html_dom.py FILE --text ID        the text of the element with id ID
html_dom.py FILE --table ID       the table with id ID as CSV (header row first)
html_dom.py FILE --count TAG      how many TAG elements the document has (e.g. img)
"""
import csv
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.body = {}
        self.stack = []  # [tag, id, text parts]
        self.texts = {}
        self.tags = {}
        self.tables = {}
        self.table = None  # (id, rows)
        self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "body":
            self.body = a
        if tag in VOID:
            return
        self.stack.append([tag, a.get("id"), []])
        if tag == "table" and a.get("id"):
            self.table = (a["id"], [])
            self.tables[a["id"]] = self.table[1]
        elif tag == "tr" and self.table:
            self.table[1].append([])
        elif tag in ("td", "th") and self.table:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if tag in ("td", "th") and self.table and self.cell is not None:
            self.table[1][-1].append("".join(self.cell))
            self.cell = None
        if tag == "table":
            self.table = None
        while self.stack:
            t, i, parts = self.stack.pop()
            if i:
                self.texts[i] = "".join(parts)
            if self.stack:
                self.stack[-1][2].extend(parts)
            if t == tag:
                break

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2].append(data)
        if self.cell is not None:
            self.cell.append(data)


def main():
    d = Dom()
    with open(sys.argv[1], encoding="utf-8") as f:
        d.feed(f.read())
    what = sys.argv[2]
    if what == "--status":
        print(d.body.get("data-perfscope-status", "missing"))
    elif what == "--views":
        print("\n".join(v for v in d.body.get("data-perfscope-views", "").split(",") if v))
    elif what == "--tests":
        print(d.texts.get("psc-test", "missing"))
    elif what == "--text":
        print(d.texts.get(sys.argv[3], ""))
    elif what == "--table":
        csv.writer(sys.stdout).writerows(d.tables.get(sys.argv[3], []))
    elif what == "--count":
        print(d.tags.get(sys.argv[3], 0))
    else:
        sys.exit("unknown option " + what)


main()
