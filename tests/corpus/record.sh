#!/usr/bin/env bash
# record.sh BUILD - records the corpus of experiments (tests/data/corpus/exp/*) that
# tests/e2e/test_corpus.sh runs every command on. Not run by CI: run it by hand when the corpus
# must change (a new kind of record, a new example), then make-expected.sh. See README.md.
#
# Everything the recorded processes map is a copy under one fixed staging directory, STAGE
# below (refused if it exists, removed at the end), so that the experiments name the same paths
# whoever records them, and none of them exists on the machine that runs the test:
#   STAGE/ld.so the dynamic loader: the programs are linked with --dynamic-linker=STAGE/ld.so
#               (27 characters, so that it also fits in place of /lib64/ld-linux-x86-64.so.2 in
#               the copies of MPICH's mpiexec and hydra_pmi_proxy, patched by elf_interp)
#   STAGE/lib   every shared library they load (LD_LIBRARY_PATH while recording): libc and the
#               others never name the recording machine's files, whose build-ids differ
#   STAGE/bin   perfscope, libperfscope.so.0 and libperfscope-mpich.so.0 of BUILD (record
#               preloads the runtime found next to itself), MPICH's mpiexec and proxy
#   STAGE/src   the example sources; the programs are compiled there with
#               -fdebug-prefix-map=STAGE/src=src, so their DWARF names src/FILE.c: found in the
#               test's working directory, which holds tests/data/corpus/src (a frozen copy,
#               matching the line tables), never in the repository's examples/
#   STAGE/ex    the example programs
#   STAGE/out   the experiments as recorded, then copied to tests/data/corpus/exp
# The build-id cache (PERFSCOPE_CACHE_DIR while recording) keeps a copy of every object; only
# the entries of the programs and of perfscope's libraries are committed
# (tests/data/corpus/cache): the system libraries' addresses stay unnamed everywhere
# (LIB+0xOFFSET, with one caveat line each), the same on every machine; with the libraries' own
# copies their names, and the source lines of a debug package installed on one machine and not
# on another, would vary. Sampling is user space only (record runs as nobody when run as root:
# kernel.perf_event_paranoid), so no kernel symbols are needed.
set -euo pipefail

BUILD=$(cd "${1:?usage: record.sh BUILD-DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
DATA=$SRC/tests/data/corpus
STAGE=/tmp/perfscope-corpus

[ -x "$BUILD/perfscope" ] || { echo "record.sh: $BUILD/perfscope is not built" >&2; exit 2; }
[ ! -e "$STAGE" ] || { echo "record.sh: $STAGE exists: remove it first" >&2; exit 2; }
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE"/{bin,lib,src,ex,out,home,cache}
cp "$BUILD/perfscope" "$STAGE/bin/"
cp -L "$BUILD/libperfscope.so.0" "$BUILD/libperfscope-mpich.so.0" "$STAGE/bin/"
cp -L /lib64/ld-linux-x86-64.so.2 "$STAGE/ld.so"
cp -L "$(command -v mpiexec.mpich)" "$STAGE/bin/mpiexec.mpich"
cp -L "$(command -v hydra_pmi_proxy)" "$STAGE/bin/hydra_pmi_proxy"
cp "$SRC"/examples/{fib,gauss_jordan,calls,threads,pagewalk,loop_order,transpose,phases,callchain}.c \
	"$STAGE/src/"
cp "$SRC"/examples/mpi/{calls_mpi,ring}.c "$SRC"/examples/mpi/{mpi-ex.h,ring_f.f90} "$STAGE/src/"
cp -r "$SRC/include" "$STAGE/src/include"

export LC_ALL=C TZ=UTC HOME=$STAGE/home PERFSCOPE_CACHE_DIR=$STAGE/cache
unset PERFSCOPE_OUT PERFSCOPE_EVENTS PERFSCOPE_CLOCK PERFSCOPE_TEST_CLOCK_SKEW \
	PERFSCOPE_MPI_LOAD DEBUGINFOD_URLS XDG_CACHE_HOME
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
P=$STAGE/bin/perfscope
# shellcheck disable=SC2054 # -Wl, takes commas
MAP=(-fdebug-prefix-map="$STAGE/src=src" -Wl,--dynamic-linker="$STAGE/ld.so")

# elf_interp FILE: FILE's PT_INTERP set to STAGE/ld.so, in place (it must fit)
elf_interp() {
	python3 - "$1" "$STAGE/ld.so" <<'PY'
import struct, sys
path, interp = sys.argv[1], sys.argv[2].encode()
with open(path, "r+b") as f:
    h = f.read(64)
    assert h[:4] == b"\x7fELF" and h[4] == 2, "not ELF64"
    phoff, = struct.unpack_from("<Q", h, 32)
    phentsize, phnum = struct.unpack_from("<HH", h, 54)
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        p_type, _, p_offset, _, _, p_filesz = struct.unpack("<IIQQQQ", f.read(40))
        if p_type == 3:
            assert len(interp) < p_filesz, "the new interpreter does not fit"
            f.seek(p_offset)
            f.write(interp + b"\0" * (p_filesz - len(interp)))
            break
    else:
        sys.exit(path + ": no PT_INTERP")
PY
}
elf_interp "$STAGE/bin/mpiexec.mpich"
elf_interp "$STAGE/bin/hydra_pmi_proxy"

cd "$STAGE/src"
cc() { gcc "${MAP[@]}" "$@"; }
# traced (function tracing), as CMakeLists.txt builds them
for ex in fib gauss_jordan calls; do
	cc -O2 -g -finstrument-functions "$ex.c" -o "$STAGE/ex/$ex" -pthread -lm
done
cc -O2 -g -finstrument-functions -DPHASES_WALL_TIME phases.c -o "$STAGE/ex/phases_traced"
# sampled
cc -O2 -g -fno-omit-frame-pointer phases.c -o "$STAGE/ex/phases"
cc -O0 -g -fno-omit-frame-pointer -fno-inline callchain.c -o "$STAGE/ex/callchain"
# regions, linked with the staged runtime
for ex in threads pagewalk loop_order transpose; do
	cc -O2 -g -DPERFSCOPE -Iinclude "$ex.c" -o "$STAGE/ex/$ex" -L"$STAGE/bin" -l:libperfscope.so.0 \
		-Wl,-rpath,"$STAGE/bin" -pthread
done
# MPI, traced, with MPICH: Open MPI's plugins are dlopened one by one and each dlopen adds a
# copy of the process's maps (megabytes per rank)
for ex in calls_mpi ring; do
	mpicc.mpich "${MAP[@]}" -O2 -g -finstrument-functions "$ex.c" -o "$STAGE/ex/$ex"
done
mpif90.mpich "${MAP[@]}" -O2 -g ring_f.f90 -o "$STAGE/ex/ring_f"
rm -f ./*.mod

# every shared library any of them loads, copied into STAGE/lib under its soname
ldd "$STAGE"/ex/* "$STAGE"/bin/*.so.0 "$STAGE/bin/mpiexec.mpich" "$STAGE/bin/hydra_pmi_proxy" |
	awk '$2 == "=>" && $1 !~ /^\// && $3 ~ /^\// { print $1, $3 }' | sort -u | while read -r name path; do
	case $name in libperfscope*) continue ;; esac
	[ -e "$STAGE/lib/$name" ] || cp -L "$path" "$STAGE/lib/$name"
done
export LD_LIBRARY_PATH=$STAGE/lib PATH=$STAGE/bin:$PATH
# MPICH's UCX and hwloc load plugins from the system's directories: point them to empty ones
# (shared memory, built in, carries the messages of one host)
mkdir -p "$STAGE/lib/ucx" "$STAGE/lib/hwloc"
export UCX_MODULE_DIR=$STAGE/lib/ucx HWLOC_PLUGINS_PATH=$STAGE/lib/hwloc

cd "$STAGE"
rec() { # NAME ARGS..: perfscope record -o out/NAME ARGS..
	local name=$1
	shift
	echo "record.sh: $name: perfscope record $*" >&2
	"$P" record -o "out/$name" "$@" >"out/$name.log" 2>&1 || {
		cat "out/$name.log" >&2
		echo "record.sh: $name failed" >&2
		exit 1
	}
}
# as an unprivileged user when root (kernel.perf_event_paranoid then keeps sampling in user space)
rec_user() {
	if [ "$(id -u)" = 0 ]; then
		chown -R nobody "$STAGE/out" "$STAGE/cache" "$STAGE/home"
		chmod 755 "$STAGE"
		local name=$1
		shift
		echo "record.sh: $name (as nobody): perfscope record $*" >&2
		runuser -u nobody -- env HOME="$STAGE/home" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" "$P" record -o "out/$name" "$@" \
			>"$STAGE/$name.log" 2>&1 || {
			cat "$STAGE/$name.log" >&2
			exit 1
		}
		chown -R root "$STAGE/out" "$STAGE/cache" "$STAGE/home"
	else
		rec "$@"
	fi
}

EV=task-clock,page-faults,context-switches
rec regions -e "$EV" -- ex/threads 1000
rec pagewalk -e page-faults -- ex/pagewalk -n 2000 -r 3 -t
rec loop_order -e "$EV" -- ex/loop_order 256
rec transpose -e task-clock,page-faults -- ex/transpose 1024
rec fib --functions -- ex/fib 12
rec gauss --functions -e "$EV" -- ex/gauss_jordan 24
rec calls --functions -- ex/calls
rec_user phases --sample=500 -e task-clock,page-faults -- ex/phases -a 150 -b 150
rec_user callchain --sample=500 --callgraph -- ex/callchain -a 100 -b 200
rec mpi --mpi --functions -- mpiexec.mpich -n 4 ex/calls_mpi
rec ring --mpi --functions -- mpiexec.mpich -n 3 ex/ring -n 2 -t 10,5,15
rec ring_f --mpi -- mpiexec.mpich -n 3 ex/ring_f 2
# energy: a fake powercap tree (as tests/e2e/test_power_record.sh) whose package-0 and core
# zones a loop beside the run advances every 5 ms
PC=$STAGE/powercap
put() { printf '%012d\n' "$2" 1<>"$1"; }
zone() {
	mkdir -p "$PC/$1"
	echo "$2" >"$PC/$1/name"
	echo 1000000000 >"$PC/$1/max_energy_range_uj"
	put "$PC/$1/energy_uj" "$3"
}
mkdir -p "$PC/intel-rapl"
echo 1 >"$PC/intel-rapl/enabled"
zone intel-rapl:0 package-0 500000000
zone intel-rapl:0:0 core 700000000
(
	for ((i = 1; i <= 100; i++)); do
		put "$PC/intel-rapl:0/energy_uj" $((500000000 + i * 60000 + (i % 7) * 3000))
		put "$PC/intel-rapl:0:0/energy_uj" $((700000000 + i * 25000))
		sleep 0.005
	done
) &
adv=$!
PERFSCOPE_POWERCAP_ROOT=$PC rec energy --functions --power rapl --power-period 2ms -- \
	ex/phases_traced -a 80 -b 80
wait $adv
"$P" export out/mpi --format otf2 -o out/mpi-otf2 >/dev/null

rm -rf "$DATA/exp" "$DATA/src" "$DATA/cache" "$DATA/power"
mkdir -p "$DATA/exp"
for d in out/*/; do
	d=${d%/}
	cp -r "$d" "$DATA/exp/"
done
cp -r "$STAGE/src" "$DATA/src"
rm -rf "$DATA/src/include"
# an external meter's file for energy --power: 1 kHz, 4 to 6 W in a fixed saw-tooth
mkdir -p "$DATA/power"
awk 'BEGIN { print "# watts at 1 kHz"; for (i = 0; i < 400; i++) printf "%.3f\n", 4 + (i % 20) / 10 }' \
	>"$DATA/power/watts.txt"
cp "$SRC/examples/power/time-watts.csv" "$SRC/examples/power/volts-amps.txt" "$DATA/power/"
# the cache entries of the programs and of perfscope's libraries
mkdir -p "$DATA/cache"
python3 - "$STAGE/cache" "$DATA/cache" "$STAGE" "$DATA/exp" <<'EOF'
import os, re, shutil, sys
cache, dest, stage, exp = sys.argv[1:]
keep = set()
for root, _, files in os.walk(exp):
    for f in files:
        if not (f.startswith("maps.") or f.startswith("pmaps.")):
            continue
        for line in open(os.path.join(root, f), errors="replace"):
            m = re.match(r"# object (\S+) \S+ \S+ (.*)$", line.rstrip("\n"))
            if m and m.group(1) != "-" and (m.group(2).startswith(stage + "/ex/") or
                                            m.group(2).startswith(stage + "/bin/libperfscope")):
                keep.add(m.group(1))
for b in sorted(keep):
    src = os.path.join(cache, "buildid", b[:2], b[2:], "elf")
    if os.path.exists(src):
        os.makedirs(os.path.join(dest, "buildid", b[:2], b[2:]), exist_ok=True)
        shutil.copyfile(src, os.path.join(dest, "buildid", b[:2], b[2:], "elf"))
    else:
        print("record.sh: no cache entry for build-id", b, file=sys.stderr)
EOF
du -sh "$DATA"
