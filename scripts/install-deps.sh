#!/usr/bin/env bash
# Install every Debian package perfscope needs to build, test and run its examples.
# Idempotent and non-interactive; the single place that lists packages.
set -euo pipefail

packages=(
	gcc g++ gfortran make cmake pkg-config   # build (Fortran for the Fortran module and tests)
	libpfm4-dev                              # event names and encodings
	libcjson-dev                             # JSON reading in the CLI
	libdw-dev libelf-dev                     # symbols and source lines of traced addresses
	liblz4-dev                               # compressed stream chunks (runtime and reader)
	libcmocka-dev                            # unit tests
	valgrind                                 # callgrind: the independent oracle of call counts
	clang libclang-rt-14-dev                 # libFuzzer for the reader's fuzz target
	libomp-14-dev                            # LLVM's OpenMP (clang -fopenmp) and omp-tools.h: OMPT records
	uftrace                                  # the anchor tool of the tracing benchmarks
	linux-perf                               # perf stat: the reference the tests compare with
	hyperfine                                # benchmarks (bench/)
	time                                     # GNU time: peak RSS and CPU time in bench/run_trace.sh
	strace                                   # tests count the reads a command makes
	python3                                  # tests parse JSON output with it; MPI wrapper generator
	libopenmpi-dev openmpi-bin               # MPI: libperfscope-mpi.so, its examples and tests
	mpich libmpich-dev                       # MPICH (mpiexec.mpich): libperfscope-mpich.so and its tests; Open MPI stays the default mpicc/mpirun
	libopen-trace-format2-dev otf2-tools     # OTF2 export/import; otf2-print checks what we write
	python3-otf2                             # tests read exported OTF2 with Python's otf2 too
	libjs-chart.js                           # Chart.js, inlined into the HTML report at build time
	chromium                                 # the HTML report's browser tests (headless)
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all packages present"
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
