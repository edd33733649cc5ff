/* expdir.c - whether a directory holds an experiment, and replacing it (expdir.h). */
#include "format/expdir.h"

#include "lib/array.h"
#include "lib/outfile.h"
#include "format/layout.h"
#include "format/meta.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* meta.json is a few KiB; a larger file is not one */
#define META_MAX (16u << 20)

int expdir_is_experiment(const char *dir, char *err, size_t errlen)
{
	const cJSON *format, *version, *by;
	char path[PATH_MAX + 16], *text;
	struct stat st;
	ssize_t n;
	cJSON *j;
	int fd, ok;

	layout_path(dir, &(struct layout_file){.kind = LAYOUT_META}, path, sizeof(path));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ELOOP) {
			snprintf(err, errlen,
				 "%s is a symbolic link, not an experiment's meta.json", path);
			return 0;
		}
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > META_MAX) {
		snprintf(err, errlen, "%s is not an experiment's meta.json (%s)", path,
			 !S_ISREG(st.st_mode) ? "not a regular file" : "too large");
		close(fd);
		return 0;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	n = read(fd, text, (size_t)st.st_size);
	close(fd);
	if (n < 0) {
		int e = errno;

		free(text);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	text[n] = 0;
	j = cJSON_ParseWithLength(text, (size_t)n);
	if (!j) {
		const char *at = cJSON_GetErrorPtr();

		snprintf(err, errlen, "%s: byte %ld: invalid JSON", path,
			 at && at >= text && at <= text + n ? (long)(at - text) : 0L);
		free(text);
		return 0;
	}
	free(text);
	format = cJSON_GetObjectItemCaseSensitive(j, META_FORMAT);
	version = cJSON_GetObjectItemCaseSensitive(j, META_VERSION);
	by = cJSON_GetObjectItemCaseSensitive(j, META_CREATED_BY);
	ok = cJSON_IsObject(j) && cJSON_IsString(format) &&
	     !strcmp(format->valuestring, META_FORMAT_NAME) && cJSON_IsNumber(version) &&
	     cJSON_IsString(by);
	cJSON_Delete(j);
	if (!ok)
		snprintf(err, errlen,
			 "%s is not a perfscope experiment's (it needs \"format\": "
			 "\"perfscope-experiment\", a \"version\" and \"created_by\")",
			 path);
	return ok;
}

/* The names of the experiment files in directory DFD into *NAMES, meta.json last (the
 * directory is an experiment until its last file is moved), and in *ENTRIES how many entries
 * it has besides . and .. . 0 or a negative errno. */
static int list_files(int dfd, char ***names, size_t *n, size_t *entries)
{
	int fd = dup(dfd), ret = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*n = *entries = 0;
	if (!d) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	while ((de = readdir(d))) {
		enum layout_kind kind;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		(*entries)++;
		kind = layout_parse(de->d_name, NULL);
		if (kind == LAYOUT_NONE)
			continue;
		if (array_reserve((void **)names, &cap, *n + 1, sizeof(**names)) ||
		    !((*names)[*n] = strdup(de->d_name))) {
			ret = -ENOMEM;
			break;
		}
		if (kind == LAYOUT_META && *n) {
			char *t = (*names)[0];

			(*names)[0] = (*names)[*n];
			(*names)[*n] = t;
		}
		(*n)++;
	}
	closedir(d);
	/* meta.json, kept first so far, goes last */
	if (*n > 1 && layout_parse((*names)[0], NULL) == LAYOUT_META) {
		char *t = (*names)[0];

		(*names)[0] = (*names)[*n - 1];
		(*names)[*n - 1] = t;
	}
	return ret;
}

void expdir_stash_release(struct expdir_stash *s)
{
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	s->files = NULL;
	s->nfiles = 0;
}

/* Move S's first N files from directory FROM to directory TO, never over a file there. The
 * number moved; *ERR_OUT the first failure's negative errno. */
static size_t move_files(struct expdir_stash *s, size_t n, int from, int to, int *err_out)
{
	size_t moved = 0;

	*err_out = 0;
	for (size_t i = 0; i < n; i++) {
		int r = rename_noreplace(from, s->files[i], to, s->files[i]);

		if (r && !*err_out)
			*err_out = r;
		moved += !r;
	}
	return moved;
}

int expdir_stash(struct expdir_stash *s, const char *dir, char *err, size_t errlen)
{
	char stash[PATH_MAX + 32];
	size_t entries, i;
	int dfd, sfd = -1, ret;
	struct stat st;

	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	ret = list_files(dfd, &s->files, &s->nfiles, &entries);
	if (ret) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
		goto out;
	}
	if (entries == 0)
		goto out;
	ret = expdir_is_experiment(dir, err, errlen);
	if (ret == -ENOENT)
		snprintf(err, errlen, "%s is not empty and holds no experiment (no meta.json)",
			 dir);
	if (ret <= 0) {
		ret = ret == 0 || ret == -ENOENT ? -ENOTEMPTY : ret;
		goto out;
	}
	/* perfscope writes plain files only: a directory or a link of such a name is the user's */
	for (i = 0; i < s->nfiles; i++)
		if (fstatat(dfd, s->files[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "%s/%s is not a regular file, so not an experiment's",
				 dir, s->files[i]);
			ret = -EEXIST;
			goto out;
		}
	snprintf(stash, sizeof(stash), "%s/" LAYOUT_STASH_TEMPLATE, dir);
	if (!mkdtemp(stash)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
		goto out;
	}
	sfd = open(stash, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", stash, strerror(-ret));
		rmdir(stash);
		goto out;
	}
	snprintf(s->name, sizeof(s->name), "%s", strrchr(stash, '/') + 1);
	for (i = 0; i < s->nfiles; i++)
		if (renameat(dfd, s->files[i], sfd, s->files[i]) < 0 && errno != ENOENT)
			break;
	if (i < s->nfiles) {
		int back;

		ret = -errno;
		snprintf(err, errlen, "%s/%s: %s", dir, s->files[i], strerror(-ret));
		if (move_files(s, i, sfd, dfd, &back) == i && rmdir(stash) == 0)
			s->name[0] = 0;
		else
			snprintf(err + strlen(err), errlen - strlen(err),
				 " (some of the old files are in %s)", stash);
		goto out;
	}
	ret = 0;
out:
	if (sfd >= 0)
		close(sfd);
	close(dfd);
	if (ret) {
		expdir_stash_release(s);
		s->dir[0] = s->name[0] = 0;
	}
	return ret;
}

int expdir_restore(struct expdir_stash *s, char *err, size_t errlen)
{
	char stash[PATH_MAX + 32];
	int dfd, sfd, ret;

	if (!s->dir[0]) /* never stashed: not our directory to clear */
		return 0;
	expdir_clear(s->dir);
	if (!s->name[0])
		return 0;
	snprintf(stash, sizeof(stash), "%s/%s", s->dir, s->name);
	dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	sfd = open(stash, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || sfd < 0)
		ret = -errno;
	else
		move_files(s, s->nfiles, sfd, dfd, &ret);
	if (dfd >= 0)
		close(dfd);
	if (sfd >= 0)
		close(sfd);
	if (!ret && rmdir(stash) < 0)
		ret = -errno;
	if (ret)
		snprintf(err, errlen,
			 "cannot put the old experiment back into %s: %s (its files are in %s)",
			 s->dir, strerror(-ret), stash);
	else
		s->name[0] = 0;
	return ret;
}

int expdir_drop(struct expdir_stash *s, char *err, size_t errlen)
{
	char stash[PATH_MAX + 32];
	int sfd, ret = 0;

	if (!s->name[0])
		return 0;
	snprintf(stash, sizeof(stash), "%s/%s", s->dir, s->name);
	sfd = open(stash, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0)
		ret = -errno;
	for (size_t i = 0; sfd >= 0 && i < s->nfiles; i++)
		if (unlinkat(sfd, s->files[i], 0) < 0 && errno != ENOENT && !ret)
			ret = -errno;
	if (sfd >= 0)
		close(sfd);
	if (!ret && rmdir(stash) < 0)
		ret = -errno;
	if (ret)
		snprintf(err, errlen, "the old experiment's files are left in %s: %s", stash,
			 strerror(-ret));
	else
		s->name[0] = 0;
	return ret;
}

int expdir_clear(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;

		if (layout_parse(de->d_name, NULL) == LAYOUT_NONE ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) < 0 && errno != ENOENT && !ret)
			ret = -errno;
	}
	closedir(d);
	return ret;
}
