/* record-dir.c - the experiment directory of a recording: made ready, given up, checked. */
#include "record/record-dir.h"

#include "format/format.h"
#include "format/layout.h"
#include "format/stream.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int record_dir_prepare(const char *dir, int force, int *created, struct expdir_stash *old,
		       char *err, size_t errlen)
{
	char why[PATH_MAX + 256];
	int ret;

	*created = 0;
	if (mkdir(dir, 0755) == 0) {
		*created = 1;
		return 0;
	}
	if (errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	if (!force) {
		snprintf(err, errlen, "%s exists; not overwriting it (use --force, or -o NEWDIR)",
			 dir);
		return -EEXIST;
	}
	ret = expdir_stash(old, dir, why, sizeof(why));
	if (ret == -ENOTEMPTY || ret == -EEXIST)
		snprintf(err, errlen,
			 "%s; --force replaces only an experiment, and nothing in %s was removed "
			 "(record into a new or empty directory: -o NEWDIR)",
			 why, dir);
	else if (ret)
		snprintf(err, errlen,
			 "cannot replace the experiment in %s: %s; it is kept as it was (record "
			 "into a new directory: -o NEWDIR)",
			 dir, why);
	return ret;
}

int record_dir_abandon(const char *dir, int created, struct expdir_stash *old, char *err,
		       size_t errlen)
{
	if (created) {
		expdir_clear(dir);
		rmdir(dir);
		return 0;
	}
	return expdir_restore(old, err, errlen);
}

int record_dir_drop_old(struct expdir_stash *old, char *err, size_t errlen)
{
	return expdir_drop(old, err, errlen);
}

int record_dir_has_functions(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char path[PATH_MAX + NAME_MAX + 2], err[64];
		struct psc_stream_header h;

		if (layout_parse(de->d_name, NULL) != LAYOUT_STREAM)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		found = !stream_read_header(path, &h, err, sizeof(err)) &&
			(h.features & PSC_FEAT_FUNCTIONS);
	}
	closedir(d);
	return found;
}
