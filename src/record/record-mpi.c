/* record-mpi.c - the MPI side of perfscope record (record-mpi.h): the rank and job from the
 * launcher's environment, the run's nonce, and a rank waiting for rank 0's meta.json. */
#include "record/record-mpi.h"

#include "cli/cli.h"

#include "lib/compiler.h"
#include "format/env.h"
#include "format/layout.h"
#include "format/meta.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int record_mpi_env_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};

	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long r;

		if (!v || !*v)
			continue;
		errno = 0;
		r = strtol(v, &end, 10);
		if (!errno && !*end && r >= 0 && r <= INT32_MAX)
			return (int)r;
	}
	return -1;
}

const char *record_mpi_env_job(void)
{
	static char slurm[128];
	const char *v = getenv("PMIX_NAMESPACE");

	if (v && *v)
		return v;
	v = getenv("OMPI_MCA_ess_base_jobid");
	if (v && *v)
		return v;
	if (getenv("SLURM_JOB_ID") && getenv("SLURM_STEP_ID")) {
		snprintf(slurm, sizeof(slurm), "slurm-%s.%s", getenv("SLURM_JOB_ID"),
			 getenv("SLURM_STEP_ID"));
		return slurm;
	}
	return NULL;
}

/* The launch time (CLOCK_REALTIME s) in a nonce of the launcher's form: 16 lowercase hex
 * digits, '-', the time in decimal (at least 10 digits, so a user's "run-5" is no time); else 0. */
static time_t mpi_run_start(const char *run)
{
	const char *t = run + 17;
	char *end;
	long long v;

	if (strlen(run) < 17 + 10 || strspn(run, "0123456789abcdef") != 16 || run[16] != '-' ||
	    strspn(t, "0123456789") != strlen(t))
		return 0;
	errno = 0;
	v = strtoll(t, &end, 10);
	return errno || *end || v <= 0 ? 0 : (time_t)v;
}

int record_mpi_run_id(struct record_mpi *mpi)
{
	const char *v = getenv(PSC_ENV_MPI_RUN);
	uint64_t r = 0;

	if (mpi->rank < 0) {
		time_t now = time(NULL);

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)now << 24 ^ (uint64_t)getpid() ^ (uint64_t)clock();
		snprintf(mpi->run_buf, sizeof(mpi->run_buf), "%016llx-%lld", (unsigned long long)r,
			 (long long)now);
		mpi->run = mpi->run_buf;
		mpi->run_start = now;
		return 0;
	}
	if (!v || !*v)
		return 0;
	if (strlen(v) > 64 || v[strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "0123456789._-")]) {
		cli_error("record",
			  "%s=%s: give letters, digits, '.', '_' and '-' only (at most 64)",
			  PSC_ENV_MPI_RUN, v);
		return -EINVAL;
	}
	mpi->run = v;
	mpi->run_start = mpi_run_start(v);
	return 0;
}

/*
 * True when DIR/meta.json was written by rank 0 of this run: its "mpi_run" is the run's nonce
 * and the file was written at most MPI_META_SLACK_S before the launch the nonce names, or,
 * for a nonce without a time (a user's, which may be reused), after NOT_BEFORE
 * (CLOCK_REALTIME s); without a nonce, its "mpi_job" is JOB, or, without a job id, "" and the
 * file was written after NOT_BEFORE.
 */
static int mpi_meta_ready(const char *dir, const struct record_mpi *mpi, time_t not_before)
{
	const char *job = mpi->job;
	char path[PATH_MAX + 16], buf[4096], want[256];
	struct stat st;
	ssize_t n;
	int fd, ok;

	layout_path(dir, &(struct layout_file){.kind = LAYOUT_META}, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	ok = n > 0 && fstat(fd, &st) == 0;
	close(fd);
	if (!ok)
		return 0;
	buf[n] = 0;
	if (mpi->run) {
		snprintf(want, sizeof(want), "\"" META_MPI_RUN "\": \"%s\"", mpi->run);
		if (!strstr(buf, want))
			return 0;
		if (mpi->run_start)
			return st.st_mtime >= mpi->run_start - MPI_META_SLACK_S;
		return st.st_mtime >= not_before;
	}
	snprintf(want, sizeof(want), "\"" META_MPI_JOB "\": \"%s\"", job ? job : "");
	if (!strstr(buf, want))
		return 0;
	return job || st.st_mtime >= not_before;
}

int record_mpi_wait_dir(const char *dir, const struct record_mpi *mpi)
{
	struct timespec pause = {0, 20 * 1000000};
	time_t not_before = time(NULL) - MPI_META_SLACK_S;

	for (int waited = 0; waited < MPI_DIR_WAIT_MS; waited += 20) {
		if (mpi_meta_ready(dir, mpi, not_before))
			return 0;
		nanosleep(&pause, NULL);
	}
	cli_error("record",
		  "rank %d: %s/meta.json of this MPI job did not appear within %d s: the record "
		  "of rank 0 failed (see its message)",
		  mpi->rank, dir, MPI_DIR_WAIT_MS / 1000);
	return -ETIMEDOUT;
}

/* The MPI a NEEDED entry names: Open MPI's libmpi.so.40 and its Fortran and C++ bindings
 * (libmpi_mpifh, libmpi_usempif08, libmpi_cxx ...), MPICH's libmpich.so.12 and its
 * libmpichfort and libmpichcxx. */
static enum record_mpi_impl mpi_needed_impl(const char *needed)
{
	if (!strncmp(needed, "libmpich", 8))
		return RECORD_MPI_MPICH;
	if (!strncmp(needed, "libmpi.so", 9) || !strncmp(needed, "libmpi_", 7))
		return RECORD_MPI_OPENMPI;
	return RECORD_MPI_UNKNOWN;
}

int record_elf_needed(const char *path, int (*match)(const char *needed))
{
	Elf_Scn *scn = NULL;
	int found = 0, fd;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && elf_kind(elf) == ELF_K_ELF && !found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; !found && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *name;

			if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (name)
				found = match(name);
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

static int mpi_needed_match(const char *needed)
{
	return (int)mpi_needed_impl(needed);
}

enum record_mpi_impl record_mpi_elf_impl(const char *path)
{
	return (enum record_mpi_impl)record_elf_needed(path, mpi_needed_match);
}

int record_cmd_path(const char *arg, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	struct stat st;

	if (strchr(arg, '/')) {
		snprintf(buf, len, "%s", arg);
		return stat(buf, &st) || !S_ISREG(st.st_mode) || access(buf, X_OK) ? -1 : 0;
	}
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");

		if (n && (size_t)snprintf(buf, len, "%.*s/%s", (int)n, p, arg) < len &&
		    !stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
			return 0;
		p += n + (p[n] == ':');
	}
	return -1;
}

/* The MPI of the launcher at PATH by its real name: Open MPI's orterun/prterun (mpirun.openmpi),
 * MPICH's Hydra (mpiexec.hydra, mpirun.mpich). */
static enum record_mpi_impl mpi_launcher_impl(const char *path)
{
	char real[PATH_MAX];
	const char *base;

	if (!realpath(path, real))
		return RECORD_MPI_UNKNOWN;
	base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	if (strstr(base, "hydra") || strstr(base, "mpich"))
		return RECORD_MPI_MPICH;
	if (strstr(base, "orterun") || strstr(base, "prterun") || strstr(base, "openmpi"))
		return RECORD_MPI_OPENMPI;
	return RECORD_MPI_UNKNOWN;
}

enum record_mpi_impl record_mpi_cmd_impl(char *const *cmd, const char **prog)
{
	enum record_mpi_impl launcher = RECORD_MPI_UNKNOWN;
	char path[PATH_MAX];

	*prog = NULL;
	for (size_t i = 0; cmd[i]; i++) {
		enum record_mpi_impl impl;

		if ((i && cmd[i][0] == '-') || record_cmd_path(cmd[i], path, sizeof(path)))
			continue;
		impl = record_mpi_elf_impl(path);
		if (impl) {
			*prog = cmd[i];
			return impl;
		}
		if (i == 0)
			launcher = mpi_launcher_impl(path);
	}
	if (launcher)
		*prog = cmd[0];
	return launcher;
}

static const char *const mpi_impl_names[] = {"an unknown MPI", "Open MPI", "MPICH"};
static const char *const mpi_impl_libs[] = {"", "libperfscope-mpi.so.0", "libperfscope-mpich.so.0"};
static const char *const mpi_impl_devs[] = {"", "libopenmpi-dev", "libmpich-dev"};

int record_mpi_library(const char *lib, char *const *cmd, char *mpilib, size_t len)
{
	const char *slash = strrchr(lib, '/'), *prog, *choice = getenv(PSC_ENV_MPI_IMPL);
	int dirlen = slash ? (int)(slash - lib) : 1;
	enum record_mpi_impl impl;

	if (choice && *choice) {
		if (!strcmp(choice, "openmpi")) {
			impl = RECORD_MPI_OPENMPI;
		} else if (!strcmp(choice, "mpich")) {
			impl = RECORD_MPI_MPICH;
		} else {
			cli_error("record", "%s=%s: give openmpi or mpich", PSC_ENV_MPI_IMPL,
				  choice);
			return -EINVAL;
		}
		prog = NULL;
	} else {
		impl = record_mpi_cmd_impl(cmd, &prog);
	}
	if (!impl) {
		/* Debian's default MPI; a wrong guess fails in the program's loader, so say it */
		impl = RECORD_MPI_OPENMPI;
		fprintf(
		    stderr,
		    "perfscope record: warning: --mpi: cannot tell which MPI %s uses (neither it "
		    "nor a program among its arguments is linked with Open MPI's libmpi.so.40 or "
		    "MPICH's libmpich.so.12): tracing with Open MPI's wrappers; set %s=mpich "
		    "for MPICH\n",
		    cmd[0], PSC_ENV_MPI_IMPL);
	}
	snprintf(mpilib, len, ":%.*s/%s", dirlen, slash ? lib : ".", mpi_impl_libs[impl]);
	if (access(mpilib + 1, R_OK) == 0)
		return 0;
	if (prog)
		cli_error("record",
			  "--mpi: %s uses %s, but %s is not next to %s (perfscope was built "
			  "without %s: install %s and rebuild)",
			  prog, mpi_impl_names[impl], mpi_impl_libs[impl], lib,
			  mpi_impl_names[impl], mpi_impl_devs[impl]);
	else
		cli_error("record",
			  "--mpi: %s is not next to %s (perfscope was built without %s: install %s "
			  "and rebuild)",
			  mpi_impl_libs[impl], lib, mpi_impl_names[impl], mpi_impl_devs[impl]);
	return -ENOENT;
}

/* Open MPI's list of environment variables mpirun gives every rank, on every host (the
 * variable form of mpirun -x). */
#define OMPI_ENV_LIST "OMPI_MCA_mca_base_env_list"

/* A variable of NAME (up to '=') that ranks on other hosts need: perfscope's own, the
 * preload and the sanitizers' options. */
static int mpi_forwarded(const char *entry)
{
	static const char *const names[] = {
	    "LD_PRELOAD=", "ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS="};

	if (!strncmp(entry, "PERFSCOPE_", 10))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strncmp(entry, names[i], strlen(names[i])))
			return 1;
	return 0;
}

/* The names of the variables to forward into NAMES (at most MAX), copied into BUF (LEN bytes);
 * their count, or -E2BIG when they do not all fit (a rank without one would record nothing). */
static int mpi_forward_names(const char **names, size_t max, char *buf, size_t len)
{
	extern char **environ;
	size_t n = 0, off = 0;

	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t l = eq ? (size_t)(eq - *e) : 0;

		if (!eq || !mpi_forwarded(*e))
			continue;
		if (n == max || off + l + 1 > len)
			return -E2BIG;
		memcpy(buf + off, *e, l);
		buf[off + l] = 0;
		names[n++] = buf + off;
		off += l + 1;
	}
	return (int)n;
}

/* The command with "-x NAME" for each of the N NAMES after the launcher and after every ':'
 * of an MPMD command line (mpirun's -x applies to one application context), in one block
 * that also holds the names (one free); NULL when out of memory. */
static char **mpi_forward_argv(char *const *cmd, const char **names, size_t n)
{
	size_t argc = 0, groups = 1, k = 0, slots, bytes = 0;
	char **argv, *copy;

	while (cmd[argc])
		groups += !strcmp(cmd[argc++], ":");
	slots = argc + groups * 2 * n + 1;
	for (size_t j = 0; j < n; j++)
		bytes += strlen(names[j]) + 1;
	argv = calloc(1, slots * sizeof(*argv) + bytes);
	if (!argv)
		return NULL;
	copy = (char *)(argv + slots);
	for (size_t j = 0; j < n; j++) {
		size_t l = strlen(names[j]) + 1;

		memcpy(copy, names[j], l);
		names[j] = copy;
		copy += l;
	}
	for (size_t i = 0; i < argc; i++) {
		argv[k++] = cmd[i];
		if (i && strcmp(cmd[i], ":"))
			continue;
		for (size_t j = 0; j < n; j++) {
			argv[k++] = "-x";
			argv[k++] = (char *)names[j];
		}
	}
	return argv;
}

int record_mpi_forward_env(char *const *cmd, char ***argv)
{
	char buf[4096], path[PATH_MAX], list[sizeof(buf) + 1024];
	const char *names[64], *old = getenv(OMPI_ENV_LIST);
	int n = mpi_forward_names(names, ARRAY_SIZE(names), buf, sizeof(buf)), has_x = 0, w;
	size_t off = 0;

	*argv = NULL;
	if (n <= 0)
		return n;
	for (size_t i = 1; cmd[i]; i++)
		has_x |= !strcmp(cmd[i], "-x");
	/* Open MPI's mpirun: -x, which mixes with the user's -x (the variable does not) */
	if (!(old && *old) && !record_cmd_path(cmd[0], path, sizeof(path)) &&
	    mpi_launcher_impl(path) == RECORD_MPI_OPENMPI) {
		*argv = mpi_forward_argv(cmd, names, (size_t)n);
		return *argv ? 0 : -ENOMEM;
	}
	/* another launcher, maybe a script running mpirun: the variable, unless the command
	 * uses -x, which Open MPI refuses to mix with it */
	if (has_x)
		return 0;
	if (old && *old) {
		w = snprintf(list, sizeof(list), "%s", old);
		if (w < 0 || (size_t)w >= sizeof(list))
			return -E2BIG;
		off = (size_t)w;
	}
	for (int i = 0; i < n; i++) {
		w = snprintf(list + off, sizeof(list) - off, "%s%s", off ? ";" : "", names[i]);
		if (w < 0 || (size_t)w >= sizeof(list) - off)
			return -E2BIG;
		off += (size_t)w;
	}
	return setenv(OMPI_ENV_LIST, list, 1) ? -errno : 0;
}
