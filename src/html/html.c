/* html.c - assembling the report: the template with its styles, scripts and the data that the
 * views' builders (html-int.h) write, plus the Summary's facts and caveats. */
#include "html/html-int.h"

#include "analysis/mpi/mpi-model.h"
#include "format/stream.h"
#include "format/format.h"
#include "model/session.h"
#include "lib/array.h"
#include "lib/qthread.h"
#include "view/caveats.h"
#include "view/func-print.h"
#include "view/region-print.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Generated at build time (cmake/embed.cmake): the template, the styles, Chart.js, and the
 * report's scripts (core, every view, then the start-up) concatenated in that order. */
extern const char psc_asset_report_html[], psc_asset_report_css[], psc_asset_chart_js[],
    psc_asset_report_js[];

void html_caveat_line(void *ctx, const char *line)
{
	struct html_input *in = ctx;
	char *s;

	for (size_t i = 0; i < in->ncaveats; i++)
		if (!strcmp(in->caveats[i], line))
			return; /* the experiment's caveats come again with a report's */
	if (ARRAY_GROW(in->caveats, in->ncaveats + 1, in->caveats_cap)) {
		in->failed = 1;
		return;
	}
	s = strdup(line);
	if (!s) {
		in->failed = 1;
		return;
	}
	in->caveats[in->ncaveats++] = s;
}

void html_caveat(struct html_input *in, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	html_caveat_line(in, line);
}

/* The rank in the header of the stream at PATH, -1 when it has none or cannot be read. */
static int stream_header_rank(const char *path)
{
	struct psc_stream_header h;
	char err[64];

	return stream_read_header(path, &h, err, sizeof(err)) ? -1 : h.rank;
}

/* Ranks at or above this are a damaged file's, not a job's (and keep rank arithmetic small). */
#define HTML_RANK_LIMIT (1 << 24)

int html_ranks_named(const struct experiment *e)
{
	int top = -1;

	for (size_t i = 0; i < e->nprocs; i++)
		if (e->procs[i].rank > top && e->procs[i].rank < HTML_RANK_LIMIT)
			top = e->procs[i].rank;
	for (size_t i = 0; i < e->nstreams; i++) {
		int r;

		if (e->streams[i].proc && e->streams[i].proc->rank >= 0)
			continue; /* its process's rank counts already */
		r = stream_header_rank(e->streams[i].path);
		if (r > top && r < HTML_RANK_LIMIT)
			top = r;
	}
	return top + 1;
}

const struct mpi_model *html_mpi(struct html_input *in)
{
	char err[1024] = "";
	void *m;
	int ret;

	if (in->mpi_state)
		return in->mpi_state > 0 ? in->mpi : NULL;
	in->mpi_state = -1;
	/* MPI records come only from ranks: without one, skip reading every stream for them */
	if (!in->otf2 && !html_ranks_named(in->e))
		return NULL;
	ret = session_get(in->s, SESSION_MPI, &m, err, sizeof(err));
	if (ret == -ENODATA)
		return NULL;
	if (ret == -ENOMEM) { /* not the data's fault: the report fails (html_write) */
		in->failed = 1;
		return NULL;
	}
	if (ret < 0) {
		html_caveat(in, "MPI views left out: %s", err[0] ? err : strerror(-ret));
		return NULL;
	}
	in->mpi = m;
	for (size_t i = 0; i < in->mpi->nwarnings; i++)
		html_caveat_line(in, in->mpi->warnings[i]);
	in->mpi_state = 1;
	return in->mpi;
}

int html_input_ranks(struct html_input *in)
{
	const struct mpi_model *m;

	if (!in->otf2)
		return html_ranks_named(in->e);
	m = html_mpi(in);
	return m ? m->world_size : 0;
}

const struct mpi_waits *html_waits(struct html_input *in)
{
	char err[256];
	void *w;

	if (!html_mpi(in))
		return NULL;
	if (session_get(in->s, SESSION_WAITS, &w, err, sizeof(err)) < 0) {
		in->failed = 1; /* out of memory: the report fails (html_write) */
		return NULL;
	}
	return w;
}

void html_input_release(struct html_input *in)
{
	html_energy_release(in);
	in->mpi = NULL;
	for (size_t i = 0; i < in->ncaveats; i++)
		free(in->caveats[i]);
	free(in->caveats);
	in->caveats = NULL;
	in->ncaveats = in->caveats_cap = 0;
	in->mpi_state = 0;
	free(in->json);
	in->json = NULL;
	in->failed = 0;
}

/* "meta": the run's facts. */
static void data_meta(struct jsonw *w, const struct html_input *in)
{
	const struct experiment *e = in->e;
	const struct exp_process *p = e->nprocs ? &e->procs[0] : NULL;

	jsonw_key(w, "meta");
	jsonw_object_begin(w);
	jsonw_key(w, "command");
	jsonw_array_begin(w);
	for (size_t i = 0; i < e->ncommand; i++)
		jsonw_string(w, e->command[i]);
	jsonw_array_end(w);
	jsonw_kv_string(w, "dir", e->dir ? e->dir : "");
	jsonw_kv_string(w, "created_by", e->created_by ? e->created_by : "");
	jsonw_kv_string(w, "host", e->host ? e->host : "");
	jsonw_kv_string(w, "cpu", e->cpu_brand ? e->cpu_brand : "");
	jsonw_kv_string(w, "clock", e->clock ? e->clock : "");
	jsonw_kv_u64(w, "start_unix_ns", e->start_unix_ns);
	/* launch to exit (record's view); the records' own span is shorter: no start-up, exit */
	if (e->end_ns > e->start_ns && e->start_ns)
		jsonw_kv_i64(w, "duration_ns", e->end_ns - e->start_ns);
	if (in->rr && in->rr->p->span_known)
		jsonw_kv_double(w, "records_span_ns", in->rr->p->duration_ns);
	if (e->exit_status >= 0)
		jsonw_kv_i64(w, "exit_status", e->exit_status);
	jsonw_kv_u64(w, "processes", e->nprocs);
	jsonw_kv_u64(w, "threads", e->nstreams);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (size_t i = 0; p && i < p->nevents; i++)
		jsonw_string(w, p->events[i]);
	jsonw_array_end(w);
	if (p)
		jsonw_kv_i64(w, "perf_event_paranoid", p->paranoid);
	if (e->has_sampling) {
		jsonw_key(w, "sampling");
		jsonw_object_begin(w);
		jsonw_key(w, "events");
		jsonw_array_begin(w);
		for (size_t i = 0; i < e->sampling.nevents; i++)
			jsonw_string(w, e->sampling.events[i]);
		jsonw_array_end(w);
		jsonw_kv_u64(w, "frequency", e->sampling.frequency);
		jsonw_kv_u64(w, "period", e->sampling.period);
		jsonw_kv_u64(w, "samples", e->sampling.samples);
		jsonw_kv_u64(w, "lost", e->sampling.lost);
		jsonw_object_end(w);
	}
	if (e->has_power)
		jsonw_kv_string(w, "power", e->power.source ? e->power.source : "");
	jsonw_object_end(w);
}

/* "caveats": the experiment's, then every view's, in the order they were found. */
static void data_caveats(struct jsonw *w, struct html_input *in)
{
	jsonw_key(w, "caveats");
	jsonw_array_begin(w);
	for (size_t i = 0; i < in->ncaveats; i++)
		jsonw_string(w, in->caveats[i]);
	jsonw_array_end(w);
}

/*
 * On an MPI run, the wait states and the MPI view are built in a second thread while this one
 * builds the timeline; the animation's states (html_data_states, which needs the wait states
 * too) are built by whichever of the two is done first (their share of the time changes with
 * the ranks and calls). A view built apart works on a copy of the input whose caveats are its
 * own and writes into a JSON part, spliced in at its place with its caveats after the views
 * before it: views, caveats and their order are the same whoever built them, and as when built
 * one after the other.
 */
struct views_job {
	struct html_input waits_in;  /* the wait states' failure */
	struct html_input mpi_in;    /* the MPI view's caveats */
	struct html_input states_in; /* the states view's caveats */
	struct jsonw part;	     /* the MPI view */
	struct jsonw states_part;    /* the states view, when STATES */
	int states;		     /* the states view follows the MPI view: built by the job */
	int states_taken;	     /* a thread builds the states view (states_claim) */
	int states_ret;		     /* html_data_states's */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int waits_done; /* the session has the wait states (or failed them) */
	int taken;	/* IN waited for them */
	int ret;	/* html_data_mpi's */
};

/* A copy of IN with no caveats of its own yet. */
static void input_copy(struct html_input *to, const struct html_input *in)
{
	*to = *in;
	to->caveats = NULL;
	to->ncaveats = to->caveats_cap = 0;
	to->failed = 0;
	to->json = NULL;
}

/* FROM's caveats appended to IN's (where they had come in turn), and its failure. */
static void caveats_take(struct html_input *in, struct html_input *from)
{
	for (size_t i = 0; i < from->ncaveats; i++) {
		html_caveat_line(in, from->caveats[i]);
		free(from->caveats[i]);
	}
	free(from->caveats);
	from->caveats = NULL;
	from->ncaveats = from->caveats_cap = 0;
	in->failed |= from->failed;
}

/* Should the calling thread build J's states view? Once: 1 for the first to ask. */
static int states_claim(struct views_job *j)
{
	int mine;

	pthread_mutex_lock(&j->lock);
	mine = j->states && !j->states_taken;
	j->states_taken = 1;
	pthread_mutex_unlock(&j->lock);
	return mine;
}

/* The thread: the wait states, then the MPI view and, unless the other thread took it, the
 * states view, each on a copy of the input that has the wait states (both copies made before
 * this thread hands the wait states' caveats over). */
static void *views_job_main(void *arg)
{
	struct views_job *j = arg;

	pthread_setname_np(pthread_self(), "psc-views"); /* in top -H, and for the tests */
	html_waits(&j->waits_in);
	input_copy(&j->mpi_in, &j->waits_in);
	input_copy(&j->states_in, &j->waits_in);
	pthread_mutex_lock(&j->lock);
	j->waits_done = 1;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	j->ret = html_data_mpi(&j->part, &j->mpi_in);
	if (states_claim(j))
		j->states_ret = html_data_states(&j->states_part, &j->states_in);
	return NULL;
}

/* Start J beside the writing of W, at the timeline's turn (whose first step is html_mpi(),
 * taken here), when there is an MPI model, the session has not built its wait states yet and a
 * second CPU is there; with STATES, the states view too. 1 started, 0 not (the views are then
 * built in their turn). The thread is the only one to ask the session for an analysis not
 * built until IN waited for the wait states (views_job_take_waits). */
static int views_job_start(struct views_job *j, struct html_input *in, const struct jsonw *w,
			   int states)
{
	if (!html_mpi(in) || session_state(in->s, SESSION_WAITS) || qthread_cpus() < 2)
		return 0;
	memset(j, 0, sizeof(*j));
	j->states = states;
	input_copy(&j->waits_in, in);
	jsonw_init_part(&j->part, w);
	jsonw_init_part(&j->states_part, w);
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	if (qthread_start(&j->thread, views_job_main, j) < 0) {
		jsonw_release(&j->part);
		jsonw_release(&j->states_part);
		pthread_cond_destroy(&j->cond);
		pthread_mutex_destroy(&j->lock);
		return 0;
	}
	return 1;
}

/* Wait until J's thread had the session build the wait states: their failure into IN. */
static void views_job_take_waits(struct views_job *j, struct html_input *in)
{
	if (j->taken)
		return;
	pthread_mutex_lock(&j->lock);
	while (!j->waits_done)
		pthread_cond_wait(&j->cond, &j->lock);
	pthread_mutex_unlock(&j->lock);
	j->taken = 1;
	caveats_take(in, &j->waits_in);
}

/* Wait for J's end: the MPI view's JSON into W and its caveats into IN, then the states
 * view's (built here when J's thread has not begun it), as if they had been built here. The
 * first negative of their results, else 0. */
static int views_job_join(struct views_job *j, struct html_input *in, struct jsonw *w)
{
	views_job_take_waits(j, in);
	if (states_claim(j))
		j->states_ret = html_data_states(&j->states_part, &j->states_in);
	pthread_join(j->thread, NULL);
	pthread_cond_destroy(&j->cond);
	pthread_mutex_destroy(&j->lock);
	caveats_take(in, &j->mpi_in);
	jsonw_splice(w, &j->part);
	caveats_take(in, &j->states_in);
	if (j->states)
		jsonw_splice(w, &j->states_part);
	else
		jsonw_release(&j->states_part);
	return j->ret < 0 ? j->ret : j->states_ret;
}

/* Whether the states view comes right after the MPI view among the NB builders B (in both
 * lists): then the views job takes it too (built by whichever thread is free first). */
static int states_follow_mpi(const html_data_fn *b, size_t nb)
{
	for (size_t i = 0; i + 1 < nb; i++)
		if (b[i] == html_data_mpi)
			return b[i + 1] == html_data_states;
	return 0;
}

/* The report's data as JSON text (malloc'd), or NULL out of memory. */
static char *data_json(struct html_input *in)
{
	static const html_data_fn builders[] = {
	    html_data_profile, html_data_timeline, html_data_mpi,    html_data_states,
	    html_data_energy,  html_data_counters, html_data_source, html_data_openmp,
	};
	/* an archive has no samples, counters, power or source lines to show */
	static const html_data_fn otf2_builders[] = {
	    html_data_profile,
	    html_data_timeline,
	    html_data_mpi,
	    html_data_states,
	};
	const html_data_fn *b = in->otf2 ? otf2_builders : builders;
	size_t nb = in->otf2 ? sizeof(otf2_builders) / sizeof(*b) : sizeof(builders) / sizeof(*b);
	struct views_job job;
	struct jsonw w;
	char *out = NULL;
	int started = 0;

	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	if (in->otf2) {
		if (html_otf2_meta(&w, in) < 0)
			goto out;
	} else {
		data_meta(&w, in);
		experiment_caveats(in->e, 1, html_caveat_line, in);
		/* the threads' caveats as report gives them: a traced run's by its calls, else its
		 * regions' (both say a cut stream, in their own words) */
		if (in->fr && in->fr->p->function_records)
			func_report_caveats(in->fr, html_caveat_line, in);
		else if (in->rr)
			region_report_caveats(in->rr, html_caveat_line, in);
	}
	for (size_t i = 0; i < nb; i++) {
		if (b[i] == html_data_timeline)
			started = views_job_start(&job, in, &w, states_follow_mpi(b, nb));
		if (b[i] == html_data_mpi && started) {
			started = 0;
			if (views_job_join(&job, in, &w) < 0)
				goto out;
			i += job.states;
			continue;
		}
		if (b[i](&w, in) < 0)
			goto out;
	}
	data_caveats(&w, in);
	jsonw_object_end(&w);
	if (!in->failed && jsonw_text(&w))
		out = strdup(w.buf);
out:
	if (started) /* a view before it failed */
		views_job_join(&job, in, &w);
	jsonw_release(&w);
	return out;
}

/* JSON text inside <script>: every '<' becomes \u003c, so no "</script>" or "<!--" can end
 * or change the element (a '<' can only occur inside JSON strings). */
static void put_json(FILE *f, const char *json)
{
	const char *p = json, *lt;

	while ((lt = strchr(p, '<'))) {
		fwrite(p, 1, (size_t)(lt - p), f);
		fputs("\\u003c", f);
		p = lt + 1;
	}
	fputs(p, f);
}

int html_build(struct html_input *in)
{
	if (!in->json)
		in->json = data_json(in);
	return in->json ? 0 : -ENOMEM;
}

int html_write(FILE *f, struct html_input *in)
{
	const char *p = psc_asset_report_html;
	const char *data;
	static const struct {
		const char *marker;
		const char *text;
	} parts[] = {
	    {"/*@PSC_CSS@*/", psc_asset_report_css},
	    {"/*@PSC_CHARTJS@*/", psc_asset_chart_js},
	    {"/*@PSC_JS@*/", psc_asset_report_js},
	    {"/*@PSC_DATA@*/", NULL},
	};

	if (html_build(in))
		return -ENOMEM;
	data = in->json;
	while (*p) {
		const char *m = strstr(p, "/*@PSC_"), *end;

		if (!m) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(m - p), f);
		end = strstr(m, "@*/");
		end = end ? end + 3 : m + strlen(m);
		for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			if (strncmp(m, parts[i].marker, strlen(parts[i].marker)))
				continue;
			if (parts[i].text)
				fputs(parts[i].text, f);
			else
				put_json(f, data);
		}
		p = end;
	}
	return ferror(f) ? -EIO : 0;
}
