/* report-otf2.c - `perfscope report` on an OTF2 archive (report-otf2.h). */
#include "report-otf2.h"

#include "../analysis/mpi-waits.h"
#include "../analysis/otf2-calls.h"
#include "../output/scope-print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int report_otf2_is_anchor(const char *path)
{
	size_t n = strlen(path);
	struct stat st;

	return n > 5 && !strcmp(path + n - 5, ".otf2") && stat(path, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

int report_otf2_open(struct report *rep, const char *cmd, const char *anchor)
{
	char err[1024] = "";
	int ret;

	memset(rep, 0, sizeof(*rep));
	rep->e.dir = strdup(anchor);
	rep->e.exit_status = -1;
	/* the rows' strings live in the symtab's arena, released with it */
	rep->syms.dir = strdup(anchor);
	if (!rep->e.dir || !rep->syms.dir) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	ret = otf2_func_profile(&rep->fprof, &rep->syms.strings, anchor, err, sizeof(err));
	if (ret < 0) {
		cli_error(cmd, "%s", err[0] ? err : strerror(-ret));
		return ret;
	}
	rep->fprof.syms = &rep->syms;
	return 0;
}

void report_otf2_refuse(const char *anchor, const char *option)
{
	if (!strcmp(option, "--by region"))
		cli_error("report",
			  "%s: an OTF2 archive has no perfscope regions (its regions are rows of "
			  "the function profile): drop --by region",
			  anchor);
	else
		cli_error("report",
			  "%s: an OTF2 archive has no samples (%s needs perfscope record --sample)",
			  anchor, option);
}

int report_otf2_scopes(const char *anchor, const struct scope_options *so)
{
	struct mpi_model m;
	struct mpi_waits w;
	struct mpi_scope_profile p;
	struct scope_report r;
	int have_w = 0, have_p = 0, ret = EXIT_USAGE, lret;
	char err[1024] = "";

	mpi_model_init(&m);
	if ((lret = mpi_model_load_otf2(&m, anchor, 0, err, sizeof(err)))) {
		cli_error("report", "%s", err);
		ret = lret == -ENOMEM ? 1 : EXIT_USAGE; /* the archive's fault, or ours */
		goto out;
	}
	if (mpi_waits_compute(&w, &m)) {
		cli_error("report", "out of memory");
		ret = 1;
		goto out;
	}
	have_w = 1;
	if ((lret = otf2_scope_profile(&p, anchor, &m, &w, err, sizeof(err)))) {
		cli_error("report", "%s", err);
		ret = lret == -ENOMEM ? 1 : EXIT_USAGE;
		goto out;
	}
	have_p = 1;
	r = (struct scope_report){.p = &p, .m = &m};
	ret = report_scopes_write(&r, so);
out:
	if (have_p)
		mpi_scope_release(&p);
	if (have_w)
		mpi_waits_release(&w);
	mpi_model_release(&m);
	return ret;
}
