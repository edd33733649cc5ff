/* record-power.c - `perfscope record --power SRC`: see record-power.h. */
#include "record/record-power.h"
#include "cli/cli.h"

#include "analysis/energy/powerfile.h"
#include "pmu/cpuinfo.h"
#include "format/env.h"
#include "lib/fcopy.h"
#include "format/layout.h"
#include "format/meta.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD		    "record"
#define POWER_PERIOD_MAX_NS 10000000000ull /* 10 s: no RAPL counter wraps twice in it */

/* The first --power-* option that only a meter's file uses, or NULL. */
static const char *meter_option(const struct record_power *rp)
{
	return rp->format   ? "--power-format"
	       : rp->scale  ? "--power-scale"
	       : rp->rate   ? "--power-rate"
	       : rp->offset ? "--power-offset"
			    : NULL;
}

int meter_spec_parse(const char *cmd, const char *format, const char *scale, const char *rate,
		     const char *offset, struct power_file_spec *spec)
{
	char err[256], *end;
	uint64_t v;

	power_file_spec_init(spec);
	if (rate) {
		double hz = strtod(rate, &end);

		if (end == rate || *end || !(hz >= 1e-3 && hz <= 1e9)) {
			cli_error(cmd,
				  "--power-rate %s: expected samples per second from 0.001 to 1e9, "
				  "e.g. 20000",
				  rate);
			return -EINVAL;
		}
		spec->rate_hz = hz;
	}
	if (offset) {
		int neg = offset[0] == '-';

		if (parse_duration_ns(offset + neg, &v)) {
			cli_error(cmd,
				  "--power-offset %s: expected a duration such as 1.5ms or -20us",
				  offset);
			return -EINVAL;
		}
		spec->offset_ns = neg ? -(double)v : (double)v;
	}
	if (power_file_spec_parse(spec, format && *format ? format : "watts",
				  scale && *scale ? scale : NULL, err, sizeof(err))) {
		cli_error(cmd, "--power-format/--power-scale: %s", err);
		return -EINVAL;
	}
	return 0;
}

/* --power-rate, --power-offset, --power-format and --power-scale, checked as energy reads
 * them. */
static int check_meter_options(struct record_power *rp)
{
	struct power_file_spec spec;

	if (rp->period) {
		cli_error(CMD,
			  "--power-period is for --power rapl or perf (a meter's file has its own "
			  "rate: --power-rate HZ)");
		return -EINVAL;
	}
	if (meter_spec_parse(CMD, rp->format, rp->scale, rp->rate, rp->offset, &spec))
		return -EINVAL;
	rp->rate_hz = rp->rate ? spec.rate_hz : 0;
	rp->offset_ns = spec.offset_ns;
	return 0;
}

/* --power-period, or the default. */
static int check_period(struct record_power *rp)
{
	rp->period_ns = POWER_PERIOD_DEFAULT_NS;
	if (!rp->period)
		return 0;
	if (parse_duration_ns(rp->period, &rp->period_ns)) {
		cli_error(CMD, "--power-period %s: expected a duration, e.g. 10ms", rp->period);
		return -EINVAL;
	}
	if (rp->period_ns < POWER_PERIOD_MIN_NS) {
		cli_error(CMD,
			  "--power-period %s: below the 1ms minimum (energy counters update about "
			  "every millisecond): give e.g. 10ms",
			  rp->period);
		return -EINVAL;
	}
	if (rp->period_ns > POWER_PERIOD_MAX_NS) {
		cli_error(CMD,
			  "--power-period %s: above 10s, a counter could wrap more than once "
			  "between readings: give e.g. 10ms",
			  rp->period);
		return -EINVAL;
	}
	return 0;
}

int record_power_prepare(struct record_power *rp)
{
	const char *procfs, *sysfs, *root;
	char err[1024];
	int ret;

	if (!rp->arg) {
		if (rp->period || meter_option(rp)) {
			cli_error(CMD, "%s needs --power (rapl, perf or file:PATH)",
				  rp->period ? "--power-period" : meter_option(rp));
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(rp->arg, "rapl")) {
		rp->kind = RECORD_POWER_RAPL;
	} else if (!strcmp(rp->arg, "perf")) {
		rp->kind = RECORD_POWER_PERF;
	} else if (!strncmp(rp->arg, "file:", 5)) {
		rp->kind = RECORD_POWER_FILE;
		rp->path = rp->arg + 5;
		if (!*rp->path) {
			cli_error(CMD, "--power file: needs the meter's file, e.g. --power "
				       "file:meter.csv");
			return -EINVAL;
		}
		return check_meter_options(rp);
	} else {
		cli_error(CMD,
			  "--power %s: give rapl (powercap), perf (the power PMU) or file:PATH (an "
			  "external meter's file)",
			  rp->arg);
		return -EINVAL;
	}
	if (meter_option(rp)) {
		cli_error(CMD, "%s is for --power file:PATH (a meter's file)", meter_option(rp));
		return -EINVAL;
	}
	ret = check_period(rp);
	if (ret)
		return ret;
	if (rp->kind == RECORD_POWER_RAPL) {
		root = secure_getenv(PSC_ENV_POWERCAP_ROOT);
		ret = powercap_open(&rp->src, root && *root ? root : POWERCAP_DEFAULT_ROOT, err,
				    sizeof(err));
	} else {
		psc_machine_roots(&procfs, &sysfs);
		ret = power_pmu_open(&rp->src, sysfs, procfs, NULL, err, sizeof(err));
	}
	if (ret) {
		cli_error(CMD, "--power %s: %s", rp->arg, err);
		return ret;
	}
	if (*rp->src.skipped)
		fprintf(stderr, "perfscope record: power: left out (cannot be read): %s\n",
			rp->src.skipped);
	return 0;
}

int record_power_start(struct record_power *rp, const char *dir)
{
	int ret;

	if (rp->kind != RECORD_POWER_RAPL && rp->kind != RECORD_POWER_PERF)
		return 0;
	ret = power_sampler_start(&rp->smp, &rp->src, rp->period_ns, dir);
	if (ret) {
		cli_error(CMD, "cannot start the power readings in %s: %s", dir, strerror(-ret));
		return ret;
	}
	rp->started = 1;
	return 0;
}

void record_power_stop(struct record_power *rp)
{
	if (rp->started) {
		rp->sampler_error = power_sampler_finish(&rp->smp);
		rp->started = 0;
	}
}

/* "10 ms", "1 s", "2500 us". */
static void format_period(char *buf, size_t len, uint64_t ns)
{
	if (ns % 1000000000u == 0)
		snprintf(buf, len, "%llu s", (unsigned long long)(ns / 1000000000u));
	else if (ns % 1000000u == 0)
		snprintf(buf, len, "%llu ms", (unsigned long long)(ns / 1000000u));
	else if (ns % 1000u == 0)
		snprintf(buf, len, "%llu us", (unsigned long long)(ns / 1000u));
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

void record_power_report(struct record_power *rp, const char *dir)
{
	struct layout_file meter = {.kind = LAYOUT_POWER, .power = LAYOUT_POWER_METER};
	int rapl = rp->kind == RECORD_POWER_RAPL;
	char to[PATH_MAX], every[32];

	if (rp->kind == RECORD_POWER_FILE) {
		long long n;

		layout_path(dir, &meter, to, sizeof(to));
		n = file_copy(rp->path, to, 0644);
		if (n < 0) {
			fprintf(stderr,
				"perfscope record: warning: power meter file %s: %s after the run: "
				"the experiment has no power samples (copy the file to %s later)\n",
				rp->path, strerror((int)-n), to);
		} else {
			fprintf(stderr, "perfscope record: power: %s copied to %s (%lld bytes)\n",
				rp->path, to, n);
		}
		return;
	}
	if (rp->kind == RECORD_POWER_NONE || !rp->smp.src)
		return;
	if (rp->sampler_error)
		fprintf(stderr,
			"perfscope record: warning: power readings stopped early: %s (the log "
			"holds the readings before)\n",
			strerror(-rp->sampler_error));
	format_period(every, sizeof(every), rp->period_ns);
	fprintf(stderr, "perfscope record: power: %llu readings of %zu %s%s every %s\n",
		(unsigned long long)rp->smp.readings, rp->src.n,
		rapl ? "RAPL zone" : "perf energy event", rp->src.n == 1 ? "" : "s", every);
	for (size_t i = 0; i < rp->src.n; i++)
		if (!power_sampler_advanced(&rp->smp, i))
			fprintf(
			    stderr,
			    "perfscope record: power: %s %s never advanced: it does not work on "
			    "this machine; its energy is not reported\n",
			    rapl ? "zone" : "event", rp->src.c[i].name);
}

void record_power_meta(const struct record_power *rp, struct jsonw *w)
{
	static const char *const names[] = {[RECORD_POWER_RAPL] = "rapl",
					    [RECORD_POWER_PERF] = "perf",
					    [RECORD_POWER_FILE] = "file"};
	struct layout_file logf = {.kind = LAYOUT_POWER,
				   .power = rp->kind == RECORD_POWER_FILE   ? LAYOUT_POWER_METER
					    : rp->kind == RECORD_POWER_PERF ? LAYOUT_POWER_PERF
									    : LAYOUT_POWER_RAPL};
	char file[32];

	if (rp->kind == RECORD_POWER_NONE)
		return;
	layout_name(&logf, file, sizeof(file));
	jsonw_key(w, META_POWER);
	jsonw_object_begin(w);
	jsonw_kv_string(w, "source", names[rp->kind]);
	if (rp->kind == RECORD_POWER_FILE) {
		jsonw_kv_string(w, "file", file);
		jsonw_kv_string(w, "path", rp->path);
		if (rp->format)
			jsonw_kv_string(w, "format", rp->format);
		if (rp->scale)
			jsonw_kv_string(w, "scale", rp->scale);
		if (rp->rate)
			jsonw_kv_double(w, "rate_hz", rp->rate_hz);
		if (rp->offset)
			jsonw_kv_double(w, "offset_ns", rp->offset_ns);
	} else {
		jsonw_kv_string(w, "file", file);
		jsonw_kv_u64(w, "period_ns", rp->period_ns);
		jsonw_key(w, "zones");
		jsonw_array_begin(w);
		for (size_t i = 0; i < rp->src.n; i++)
			jsonw_string(w, rp->src.c[i].name);
		jsonw_array_end(w);
	}
	jsonw_object_end(w);
}

void record_power_release(struct record_power *rp)
{
	record_power_stop(rp);
	power_sampler_release(&rp->smp);
	power_source_close(&rp->src);
}
