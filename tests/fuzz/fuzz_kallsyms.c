/*
 * fuzz_kallsyms.c - libFuzzer target for the reader of an experiment's copy of the kernel's
 * symbols (src/model/kallsyms.c): the input is the file `kallsyms` of a directory in
 * /dev/shm (or /tmp), read by kallsyms_load.
 *
 * Besides the sanitizers, the target checks the reader's contract and aborts when it is broken:
 *   - 0, -EINVAL (malformed) or -ENOMEM; on an error nothing is kept (the struct is zeroed)
 *     and the message is one line naming the file, "PATH: line N: ..." (N in the file) for
 *     -EINVAL;
 *   - on 0: the symbols sorted by address, each with a non-empty name of one line; no more
 *     symbols than lines; kallsyms_find of a symbol's address gives a symbol at that address,
 *     of the address one below the first gives none.
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_kallsyms tests/fuzz/corpus-kallsyms.
 */
#include "model/kallsyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], file[128];

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_kallsyms: contract broken: %s\n", what);
		abort();
	}
}

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct kallsyms k;
	char err[512] = "";
	size_t lines = 1;
	FILE *f;
	int ret;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/psc-fuzz-kallsyms-XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(dir))
			abort();
		snprintf(file, sizeof(file), "%s/kallsyms", dir);
		atexit(cleanup);
	}
	f = fopen(file, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	memset(&k, 0x5a, sizeof(k));
	ret = kallsyms_load(&k, dir, err, sizeof(err));
	check(ret == 0 || ret == -EINVAL || ret == -ENOMEM, "0, -EINVAL or -ENOMEM");
	if (ret) {
		const char *at = err + strlen(file);

		check(!k.v && !k.text && k.n == 0, "nothing kept after an error");
		check(!strncmp(err, file, strlen(file)) && !strchr(err, '\n'),
		      "one line naming the file");
		check(ret != -EINVAL ||
			  (!strncmp(at, ": line ", 7) && strtoul(at + 7, NULL, 10) >= 1 &&
			   strtoul(at + 7, NULL, 10) <= lines),
		      "the line is in the file");
		return 0;
	}
	check(!k.missing, "the file is there");
	check(k.n <= lines, "no more symbols than lines");
	for (size_t i = 0; i < k.n; i++) {
		const struct kallsym *s = &k.v[i], *found;

		check(s->name && s->name[0] && !strchr(s->name, '\n'), "a name of one line");
		check(i == 0 || k.v[i - 1].addr <= s->addr, "sorted by address");
		found = kallsyms_find(&k, s->addr);
		check(found && found->addr == s->addr, "a symbol's address finds a symbol there");
	}
	if (k.n && k.v[0].addr > 0)
		check(!kallsyms_find(&k, k.v[0].addr - 1), "nothing below the first symbol");
	kallsyms_release(&k);
	return 0;
}
