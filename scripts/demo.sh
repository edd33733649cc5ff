#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run perfscope's main job
# on the bundled examples: counts for a whole run, regions recorded and reported, and every
# function call of a program built with -finstrument-functions traced, reported and exported,
# and an unmodified program sampled, with its counters over time.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "built: build/perfscope, build/libperfscope.so"

run() {
	echo
	echo "\$ $*"
	"$@"
}

run build/perfscope stat -r 3 -- build/examples/pagewalk -n 10000
run build/perfscope record --force -o build/demo.out -g sw -- build/examples/loop_order 2048
run build/perfscope report build/demo.out
run build/perfscope record --force -o build/demo-threads.out -e page-faults,task-clock -- \
	build/examples/threads
run build/perfscope report build/demo-threads.out --by thread
run build/perfscope record --force -o build/demo-trace.out --functions -- build/examples/calls
run build/perfscope report build/demo-trace.out
run build/perfscope report build/demo-trace.out --tree --min-time 1us
run build/perfscope export --force build/demo-trace.out --format chrome -o build/demo-trace.json
run build/perfscope record --force -o build/demo-sample.out --sample -e page-faults -- \
	build/examples/pagewalk -n 20000 -s 150
run build/perfscope report build/demo-sample.out --lines --top 5
run build/perfscope timeline build/demo-sample.out --interval 50ms
run build/perfscope html --force build/demo-trace.out -o build/demo-report.html
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
run build/perfscope record --force --mpi --load=20 -o build/demo-mpi.out -- \
	mpirun -np 4 build/examples/mpi/ring
run build/perfscope mpi build/demo-mpi.out --waits
run build/perfscope html --force build/demo-mpi.out -o build/demo-mpi.html
echo "open build/demo-report.html and build/demo-mpi.html in a browser: they need no network;"
echo "open build/demo-trace.json in https://ui.perfetto.dev or chrome://tracing"
