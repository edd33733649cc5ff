#!/usr/bin/env bash
# make-expected.sh BUILD - writes tests/corpus/expected/ from the perfscope of BUILD: every
# command of commands.txt run on the corpus (tests/data/corpus) the way test_corpus.sh runs it
# (corpus-lib.sh). Run it only for an intended change of an output, and name every change in the
# commit message (README.md).
set -euo pipefail

BUILD=$(cd "${1:?usage: make-expected.sh BUILD-DIR}" && pwd)
PSC_SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
PERFSCOPE=$BUILD/perfscope
[ -x "$PERFSCOPE" ] || { echo "make-expected.sh: $PERFSCOPE is not built" >&2; exit 2; }
command -v otf2-print >/dev/null || { echo "make-expected.sh: otf2-print is needed" >&2; exit 2; }
. "$PSC_SOURCE/tests/corpus/corpus-lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/psc-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
corpus_prepare "$tmp/work"
corpus_run_all "$tmp/expected"
rm -rf "$PSC_SOURCE/tests/corpus/expected"
cp -r "$tmp/expected" "$PSC_SOURCE/tests/corpus/expected"
echo "make-expected.sh: $(corpus_commands | wc -l) commands into tests/corpus/expected"
