/*
 * fuzz_otf2.c - libFuzzer target for the OTF2 import (src/model/otf2-import*.c,
 * source-otf2.c, otf2-calls.c): `perfscope report`, `mpi` and `html` read an OTF2 archive through
 * OTF2's reader into the MPI model and the function and scope profiles.
 *
 * An archive is a directory of files. The target copies a small archive that perfscope's own
 * export wrote (tests/fuzz/otf2-archive/, made by make-corpus.sh; its path is compiled in by
 * build.sh) to /dev/shm (or /tmp); an input replaces one of its files: the first byte picks the
 * file (its index, modulo their number, in the sorted list of the archive's paths: traces.def,
 * traces.otf2, traces/0.def, traces/0.evt, ...), the rest is the file's new contents. After the
 * run the file is restored. The seeds (tests/fuzz/corpus-otf2/) are every file as it is.
 *
 * Read: mpi_model_load_otf2, the waits and routine statistics of `perfscope mpi` on the model,
 * otf2_func_profile (report --by function) and otf2_scope_profile (report --by scope).
 * Checked besides the sanitizers (abort when broken): each returns 0 or a negative errno with
 * one line in ERR starting with the anchor's path.
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_otf2 tests/fuzz/corpus-otf2.
 */
#include "analysis/profile/func-profile.h"
#include "model/maps.h"
#include "analysis/mpi/mpi-model.h"
#include "analysis/mpi/mpi-scope.h"
#include "analysis/mpi/mpi-stats.h"
#include "analysis/mpi/mpi-waits.h"
#include "model/otf2-calls.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FUZZ_OTF2_ARCHIVE
#error "FUZZ_OTF2_ARCHIVE: the directory of the seed archive (build.sh defines it)"
#endif

#define MAX_FILES 64

struct file {
	char rel[256];
	unsigned char *data;
	size_t size;
};

static char dir[64], anchor[128];
static struct file files[MAX_FILES];
static size_t nfiles;

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n;

	*size = 0;
	if (!f)
		abort();
	do {
		if (*size + 4096 > cap && !(buf = realloc(buf, cap = cap * 2 + 8192)))
			abort();
		n = fread(buf + *size, 1, 4096, f);
		*size += n;
	} while (n == 4096);
	fclose(f);
	return buf;
}

static void put(const char *rel, const unsigned char *data, size_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
}

/* Add the regular files under FROM/REL (a directory) to FILES, and their directories in DIR. */
static void scan(const char *from, const char *rel)
{
	char path[512], sub[256];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s%s", from, rel[0] ? "/" : "", rel);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "fuzz_otf2: cannot open %s\n", path);
		abort();
	}
	while ((de = readdir(d))) {
		struct stat st;
		char full[768];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		snprintf(full, sizeof(full), "%s/%s", from, sub);
		if (stat(full, &st))
			abort();
		if (S_ISDIR(st.st_mode)) {
			snprintf(full, sizeof(full), "%s/%s", dir, sub);
			if (mkdir(full, 0700))
				abort();
			scan(from, sub);
		} else if (nfiles < MAX_FILES) {
			struct file *f = &files[nfiles++];

			snprintf(f->rel, sizeof(f->rel), "%s", sub);
			f->data = slurp(full, &f->size);
			put(f->rel, f->data, f->size);
		}
	}
	closedir(d);
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct file *)a)->rel, ((const struct file *)b)->rel);
}

static void cleanup(void)
{
	char path[512];

	for (size_t i = nfiles; i-- > 0;) {
		char *slash;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i].rel);
		unlink(path);
		while ((slash = strrchr(path, '/')) && slash > path + strlen(dir)) {
			*slash = 0;
			rmdir(path); /* fails until the directory is empty */
		}
	}
	rmdir(dir);
}

static void check(int ret, const char *what, const char *err)
{
	if (ret == 0)
		return;
	if (ret > 0 || strncmp(err, anchor, strlen(anchor)) || strchr(err, '\n')) {
		fprintf(stderr,
			"fuzz_otf2: %s returned %d: not one line naming the archive: '%s'\n", what,
			ret, err);
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/psc-fuzz-otf2-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	scan(FUZZ_OTF2_ARCHIVE, "");
	qsort(files, nfiles, sizeof(files[0]), cmp_file);
	snprintf(anchor, sizeof(anchor), "%s/traces.otf2", dir);
	if (nfiles == 0 || access(anchor, R_OK)) {
		fprintf(stderr, "fuzz_otf2: no archive in %s\n", FUZZ_OTF2_ARCHIVE);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct file *f;
	struct mpi_model m;
	struct func_profile fp;
	struct str_arena names = {0};
	char err[1024] = "";
	int ret;

	if (size == 0)
		return 0;
	f = &files[data[0] % nfiles];
	put(f->rel, data + 1, size - 1);

	mpi_model_init(&m);
	ret = mpi_model_load_otf2(&m, anchor, 0, err, sizeof(err));
	check(ret, "mpi_model_load_otf2", err);
	if (ret == 0) {
		struct mpi_waits w;
		struct mpi_routines r;
		struct mpi_scope_profile sp;

		if (mpi_waits_compute(&w, &m) == 0) {
			err[0] = 0;
			ret = otf2_scope_profile(&sp, anchor, &m, &w, err, sizeof(err));
			check(ret, "otf2_scope_profile", err);
			if (ret == 0)
				mpi_scope_release(&sp);
			mpi_waits_release(&w);
		}
		if (mpi_routines_compute(&r, &m) == 0)
			mpi_routines_release(&r);
	}
	mpi_model_release(&m);

	memset(&fp, 0, sizeof(fp));
	err[0] = 0;
	ret = otf2_func_profile(&fp, &names, anchor, err, sizeof(err));
	check(ret, "otf2_func_profile", err);
	func_profile_release(&fp);
	arena_release(&names);

	put(f->rel, f->data, f->size);
	return 0;
}
