/* cmd-list.c - `perfscope list`: this machine, its events (and whether they work), groups. */
#include "cli/cli.h"

#include "lib/compiler.h"
#include "pmu/counters.h"
#include "pmu/cpuinfo.h"
#include "lib/jsonw.h"
#include "pmu/metrics.h"
#include "lib/strbuf.h"
#include "view/table.h"
#include "lib/textesc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct list_ctx {
	const struct perf_state *ps;
	struct table *t;
	struct jsonw *w;
	size_t total, working;
};

static const char *category_name(enum event_category c)
{
	switch (c) {
	case EVENT_CAT_HARDWARE:
		return "hardware";
	case EVENT_CAT_CACHE:
		return "cache";
	case EVENT_CAT_SOFTWARE:
		return "software";
	case EVENT_CAT_NATIVE:
		return "native";
	}
	return "?";
}

/* Try to open the event on this process: 0 when it counts here, else why not in REASON. */
static int probe(const char *name, const struct perf_state *ps, char *reason, size_t len)
{
	struct event_desc ev;
	struct counter_set set;
	int ret = event_resolve(name, &ev);

	if (ret) {
		snprintf(reason, len, "unknown to libpfm4 here");
		return ret;
	}
	if (counter_set_init(&set, &ev, 1, COUNTER_DISABLED, NULL))
		return -ENOMEM;
	counter_set_open(&set, 0);
	ret = set.ev[0].status;
	if (ret)
		counter_status_reason(ret, &ev, ps->paranoid, ps->have_core_pmu, reason, len);
	else if (set.ev[0].user_only)
		snprintf(reason, len, "user space only (kernel counting not permitted)");
	else
		reason[0] = 0;
	counter_set_release(&set);
	return ret;
}

static int list_event(void *arg, const struct event_info *info)
{
	struct list_ctx *c = arg;
	char reason[256];
	int ret = probe(info->name, c->ps, reason, sizeof(reason));

	c->total++;
	c->working += ret == 0;
	if (c->w) {
		jsonw_object_begin(c->w);
		jsonw_kv_string(c->w, "name", info->name);
		jsonw_kv_string(c->w, "category", category_name(info->category));
		jsonw_kv_string(c->w, "pmu", info->pmu);
		jsonw_kv_string(c->w, "description", info->desc);
		jsonw_key(c->w, "works");
		jsonw_bool(c->w, ret == 0);
		jsonw_kv_string(c->w, "reason", reason);
		jsonw_object_end(c->w);
		return 0;
	}
	table_add_row(c->t);
	table_set(c->t, 0, "%s", info->name);
	table_set(c->t, 1, "%s", category_name(info->category));
	table_set(c->t, 2, "%s%s%s", ret == 0 ? "yes" : "no", reason[0] ? ": " : "", reason);
	table_set(c->t, 3, "%s", info->desc);
	return 0;
}

struct group_ctx {
	struct jsonw *w;
	struct table *t;
	const char *dflt;
};

static int list_group(void *arg, const char *name, const char *path)
{
	struct group_ctx *c = arg;
	struct metric_group g;
	char err[512];
	struct strbuf events = STRBUF_INIT, metrics = STRBUF_INIT;
	int ret = 0;

	if (metric_group_load(&g, path, err, sizeof(err))) {
		if (c->w) {
			jsonw_object_begin(c->w);
			jsonw_kv_string(c->w, "name", name);
			jsonw_kv_string(c->w, "path", path);
			jsonw_kv_string(c->w, "error", err);
			jsonw_object_end(c->w);
		} else {
			table_add_row(c->t);
			table_set(c->t, 0, "%s", name);
			table_set(c->t, 1, "error: %s", err);
		}
		return 0;
	}
	if (c->w) {
		jsonw_object_begin(c->w);
		jsonw_kv_string(c->w, "name", g.name);
		jsonw_kv_string(c->w, "path", path);
		jsonw_kv_string(c->w, "description", g.description);
		jsonw_key(c->w, "default");
		jsonw_bool(c->w, !strcmp(name, c->dflt));
		jsonw_key(c->w, "events");
		jsonw_array_begin(c->w);
		for (size_t i = 0; i < g.nevents; i++)
			jsonw_string(c->w, g.events[i]);
		jsonw_array_end(c->w);
		jsonw_key(c->w, "metrics");
		jsonw_array_begin(c->w);
		for (size_t i = 0; i < g.nmetrics; i++) {
			jsonw_object_begin(c->w);
			jsonw_kv_string(c->w, "name", g.metrics[i].name);
			jsonw_kv_string(c->w, "unit", g.metrics[i].unit);
			jsonw_kv_string(c->w, "formula", g.metrics[i].formula);
			jsonw_object_end(c->w);
		}
		jsonw_array_end(c->w);
		jsonw_object_end(c->w);
	} else {
		for (size_t i = 0; i < g.nevents; i++)
			strbuf_addf(&events, "%s%s", i ? ", " : "", g.events[i]);
		for (size_t i = 0; i < g.nmetrics; i++)
			strbuf_addf(&metrics, "%s%s", i ? ", " : "", g.metrics[i].name);
		ret = events.err ? events.err : metrics.err;
		table_add_row(c->t);
		table_set(c->t, 0, "%s%s", g.name, !strcmp(name, c->dflt) ? " (default here)" : "");
		table_set(c->t, 1, "%s", g.description);
		table_add_row(c->t);
		table_set(c->t, 1, "events: %s", strbuf_str(&events));
		table_add_row(c->t);
		table_set(c->t, 1, "metrics: %s", strbuf_str(&metrics));
	}
	strbuf_release(&events);
	strbuf_release(&metrics);
	metric_group_release(&g);
	return ret;
}

static const char *cache_type_name(enum cache_type t)
{
	return t == CACHE_DATA ? "d" : t == CACHE_INSTRUCTION ? "i" : "";
}

static void print_machine(const struct cpu_info *ci, const struct perf_state *ps)
{
	char fix[256];
	const char *hint;

	/* the brand string is the hypervisor's to choose */
	printf("CPU      %s family %u model %u stepping %u: %s\n", text_safe(ci->vendor),
	       ci->family, ci->model, ci->stepping,
	       ci->brand[0] ? text_safe(ci->brand) : "(no brand string)");
	printf("         %d CPUs online, %s; TSC %s%s%s; clocksource %s\n", ci->ncpus,
	       ci->hypervisor ? "virtual machine (hypervisor bit set)" : "bare metal",
	       ci->constant_tsc ? "constant" : "not constant",
	       ci->nonstop_tsc ? ", nonstop" : ", may stop in idle",
	       cpu_info_tsc_usable(ci) ? " (perfscope's clock)" : " (not used: CLOCK_MONOTONIC)",
	       ci->clocksource[0] ? ci->clocksource : "unknown");
	printf("Caches   ");
	for (int i = 0; i < ci->ncaches; i++) {
		const struct cache_level *c = &ci->caches[i];

		printf("%sL%d%s %llu KiB, %u-way, %u B lines, shared by %u", i ? "\n         " : "",
		       c->level, cache_type_name(c->type), (unsigned long long)(c->size >> 10),
		       c->ways, c->line_size, c->shared_by);
	}
	printf("%s(from %s)\n", ci->ncaches ? "\n         " : "", ci->cache_source);
	if (ps->paranoid == PERF_PARANOID_UNKNOWN)
		printf("perf     perf_event_open is not available in this kernel\n");
	else
		printf("perf     kernel.perf_event_paranoid=%d, %s, core PMU: %s, rdpmc: %s\n",
		       ps->paranoid,
		       ps->privileged ? "privileged (root, CAP_PERFMON or CAP_SYS_ADMIN)"
				      : "unprivileged",
		       ps->have_core_pmu ? ps->core_pmu : "none (hardware events not supported)",
		       ps->rdpmc < 0	? "n/a"
		       : ps->rdpmc == 0 ? "off"
					: "allowed");
	printf("         PMUs: %s\n", ps->pmus);
	hint = perf_state_fix(ps, PERF_NEED_KERNEL, fix, sizeof(fix));
	if (hint)
		printf("         to count kernel code too: %s\n", hint);
}

static void json_machine(struct jsonw *w, const struct cpu_info *ci, const struct perf_state *ps)
{
	jsonw_key(w, "cpu");
	jsonw_object_begin(w);
	jsonw_kv_string(w, "arch", ci->arch);
	jsonw_kv_string(w, "vendor", ci->vendor);
	jsonw_kv_string(w, "brand", ci->brand);
	jsonw_kv_u64(w, "family", ci->family);
	jsonw_kv_u64(w, "model", ci->model);
	jsonw_kv_u64(w, "stepping", ci->stepping);
	jsonw_key(w, "hypervisor");
	jsonw_bool(w, ci->hypervisor);
	jsonw_key(w, "constant_tsc");
	jsonw_bool(w, ci->constant_tsc);
	jsonw_key(w, "nonstop_tsc");
	jsonw_bool(w, ci->nonstop_tsc);
	jsonw_key(w, "tsc_clock");
	jsonw_bool(w, cpu_info_tsc_usable(ci));
	jsonw_kv_i64(w, "cpus", ci->ncpus);
	jsonw_kv_string(w, "clocksource", ci->clocksource);
	jsonw_object_end(w);
	jsonw_key(w, "caches");
	jsonw_array_begin(w);
	for (int i = 0; i < ci->ncaches; i++) {
		const struct cache_level *c = &ci->caches[i];

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "level", c->level);
		jsonw_kv_string(w, "type",
				c->type == CACHE_DATA	       ? "data"
				: c->type == CACHE_INSTRUCTION ? "instruction"
							       : "unified");
		jsonw_kv_u64(w, "size", c->size);
		jsonw_kv_u64(w, "line_size", c->line_size);
		jsonw_kv_u64(w, "ways", c->ways);
		jsonw_kv_u64(w, "sets", c->sets);
		jsonw_kv_u64(w, "shared_by", c->shared_by);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_kv_string(w, "cache_source", ci->cache_source);
	jsonw_key(w, "perf");
	jsonw_object_begin(w);
	jsonw_kv_i64(w, "paranoid", ps->paranoid);
	jsonw_key(w, "privileged");
	jsonw_bool(w, ps->privileged);
	jsonw_key(w, "core_pmu");
	if (ps->have_core_pmu)
		jsonw_string(w, ps->core_pmu);
	else
		jsonw_null(w);
	jsonw_kv_i64(w, "rdpmc", ps->rdpmc);
	jsonw_kv_i64(w, "max_sample_rate", ps->max_sample_rate);
	jsonw_kv_string(w, "pmus", ps->pmus);
	jsonw_object_end(w);
}

int cmd_list(int argc, char **argv)
{
	int json = 0, help = 0, first;
	const struct option_spec specs[] = {
	    {0, "json", OPT_FLAG, &json, NULL, "machine-readable output", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	const char *procfs, *sysfs, *dirs[8];
	size_t ndirs = cli_metric_dirs(dirs, ARRAY_SIZE(dirs));
	struct cpu_info ci;
	struct perf_state ps;
	struct list_ctx lc;
	struct group_ctx gc;
	char ver[32];
	int ret = cli_parse("list", specs, 0, argc - 1, argv + 1, &first, &help);

	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (first < argc - 1) {
		cli_error("list", "unexpected argument '%s'", argv[1 + first]);
		return EXIT_USAGE;
	}
	psc_machine_roots(&procfs, &sysfs);
	cpu_info_read(&ci, procfs, sysfs);
	perf_state_read(&ps, procfs, sysfs);
	memset(&lc, 0, sizeof(lc));
	lc.ps = &ps;
	gc.dflt = cli_default_group(&ps);
	if (json) {
		struct jsonw w;

		jsonw_init(&w, 1);
		jsonw_object_begin(&w);
		json_machine(&w, &ci, &ps);
		jsonw_kv_string(&w, "libpfm4_api", event_library_version(ver, sizeof(ver)));
		jsonw_key(&w, "events");
		jsonw_array_begin(&w);
		lc.w = gc.w = &w;
		event_foreach(list_event, &lc);
		jsonw_array_end(&w);
		jsonw_key(&w, "metric_groups");
		jsonw_array_begin(&w);
		gc.t = NULL;
		ret = metric_group_foreach(dirs, ndirs, list_group, &gc);
		jsonw_array_end(&w);
		jsonw_object_end(&w);
		ret = jsonw_text(&w) && !ret ? 0 : -ENOMEM;
		if (ret == 0)
			printf("%s\n", w.buf);
		jsonw_release(&w);
		return ret ? 1 : 0;
	}
	print_machine(&ci, &ps);
	printf("libpfm4  API %s\n\n", event_library_version(ver, sizeof(ver)));
	lc.t = table_new();
	table_add_column(lc.t, "event", TABLE_LEFT);
	table_add_column(lc.t, "kind", TABLE_LEFT);
	table_add_column(lc.t, "works here", TABLE_LEFT);
	table_add_column(lc.t, "description", TABLE_LEFT);
	event_foreach(list_event, &lc);
	printf("Events (%zu known, %zu work here; any libpfm4 name, PMU::EVENT:UMASK or rNNNN "
	       "also works)\n",
	       lc.total, lc.working);
	table_print(lc.t, stdout, "  ");
	table_free(lc.t);
	gc.w = NULL;
	gc.t = table_new();
	table_add_column(gc.t, "group", TABLE_LEFT);
	table_add_column(gc.t, "description", TABLE_LEFT);
	if (metric_group_foreach(dirs, ndirs, list_group, &gc)) {
		table_free(gc.t);
		cli_error("list", "out of memory");
		return 1;
	}
	printf("\nMetric groups (perfscope stat -g GROUP)\n");
	table_print(gc.t, stdout, "  ");
	table_free(gc.t);
	return 0;
}
