/* path.h - the parts of a file path perfscope shows. */
#ifndef PSC_LIB_PATH_H
#define PSC_LIB_PATH_H

#include <string.h>

/* PATH's last component (PATH itself without a slash). */
static inline const char *path_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

#endif /* PSC_LIB_PATH_H */
