/* exporters.c - the table of export formats (exporters.h). */
#include "export/exporters.h"

#include <stdio.h>
#include <string.h>

static int write_chrome(struct export_job *job, char *err, size_t errlen)
{
	return chrome_write(job->out, job->e, job->st, &job->stats.chrome, err, errlen);
}

static int write_otf2(struct export_job *job, char *err, size_t errlen)
{
	return otf2_export(job->path, job->e, job->st, job->mpi, &job->stats.otf2, err,
			   errlen);
}

static const struct exporter exporters[] = {
    {"chrome", "Chrome Trace Event JSON for Perfetto and chrome://tracing", "perfscope.json",
     EXPORT_FILE, 0, write_chrome},
    {"otf2", "an OTF2 archive for Vampir, Scalasca and Python's otf2", "perfscope-otf2",
     EXPORT_DIRECTORY, EXPORT_NEEDS_MPI, write_otf2},
};

#define NEXPORTERS (sizeof(exporters) / sizeof(exporters[0]))

const struct exporter *exporter_find(const char *name)
{
	for (size_t i = 0; i < NEXPORTERS; i++)
		if (!strcmp(exporters[i].name, name))
			return &exporters[i];
	return NULL;
}

const struct exporter *exporter_at(size_t i)
{
	return i < NEXPORTERS ? &exporters[i] : NULL;
}

void exporter_list(char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < NEXPORTERS && n < len; i++) {
		int k = snprintf(buf + n, len - n, "%s%s (%s)", i ? ", " : "", exporters[i].name,
				 exporters[i].description);

		if (k < 0)
			break;
		n += (size_t)k;
	}
}
