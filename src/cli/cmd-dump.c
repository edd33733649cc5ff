/*
 * cmd-dump.c - `perfscope dump`: the raw records of an experiment's streams, one per line,
 * as the validating reader returns them: byte offset, ticks, ns since the process started
 * (through the process's clock fit), record kind and its fields. Chunk headers get a line of
 * their own. A consumer of the pass (model/pass.h) printing the record behind every event
 * (ev->raw). A defect stops the dump with one line naming the file and byte offset (exit 2)
 * after the records before it were printed; a stream cut short says where it was cut.
 */
#include "cli/cli.h"

#include "model/experiment-open.h"
#include "model/pass.h"
#include "format/stream.h"
#include "format/mpi-routines.h"
#include "view/caveats.h"
#include "lib/textesc.h"
#include "lib/array.h"
#include "lib/compiler.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct names;

struct dump {
	FILE *out;
	uint64_t limit;			/* records shown per stream, 0 = all */
	const char *sel;		/* --stream, NULL all */
	size_t matched;			/* streams selected so far */
	const struct exp_process *proc; /* NULL for a lone stream file: no clock fit */
	/* the counters record's layout: group of each event */
	uint32_t *group_of;
	size_t nev, group_cap;
	/* the stream being dumped */
	struct names *nm;
	uint64_t shown, hidden, seq;
	int64_t base; /* its start pair's ns */
};

static void print_feature_bits(FILE *out, uint64_t f)
{
	static const char *const names[] = {"regions", "functions", "counters"};
	int any = 0;

	for (unsigned b = 0; b < 64; b++) {
		if (!(f & (1ull << b)))
			continue;
		if (b < 3)
			fprintf(out, "%s%s", any ? "," : "", names[b]);
		else
			fprintf(out, "%sbit%u", any ? "," : "", b);
		any = 1;
	}
	if (!any)
		fprintf(out, "none");
}

/* A name from a record payload (up to its NUL, or all NWORDS words), quoted: escaped as
 * textesc.h says, and '"' as \". */
static int print_text(FILE *out, const uint64_t *payload, size_t nwords)
{
	const char *s = (const char *)payload;
	size_t len = strnlen(s, nwords * 8);
	char *buf = malloc(TEXT_ESCAPE_MAX * len + 1);

	if (!buf)
		return -ENOMEM;
	len = text_escape(buf, s, len);
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '"')
			fputc('\\', out);
		fputc(buf[i], out);
	}
	fputc('"', out);
	free(buf);
	return 0;
}

static const char *event_name(const struct dump *d, size_t i, char *buf, size_t len)
{
	if (d->proc && d->proc->nevents == d->nev && i < d->proc->nevents)
		return d->proc->events[i];
	snprintf(buf, len, "event%zu", i);
	return buf;
}

/* A counter snapshot: per group "[enabled=E running=R name=V ...]" (names from the layout). */
static void print_snapshot(const struct dump *d, const struct stream_record *rec)
{
	size_t pos = 0;
	char buf[32];

	if (rec->npayload == 0) {
		fprintf(d->out, " counters=none");
		return;
	}
	for (uint32_t g = 0; pos + 3 <= rec->npayload; g++) {
		uint64_t nr = rec->payload[pos];
		size_t k = 0;

		fprintf(d->out, " [group=%u enabled=%" PRIu64 " running=%" PRIu64, g,
			rec->payload[pos + 1], rec->payload[pos + 2]);
		for (size_t i = 0; i < d->nev && k < nr; i++)
			if (d->group_of[i] == g)
				fprintf(d->out, " %s=%" PRIu64,
					text_safe(event_name(d, i, buf, sizeof(buf))),
					rec->payload[pos + 3 + k++]);
		for (; k < nr; k++) /* no layout: the raw values */
			fprintf(d->out, " value%zu=%" PRIu64, k, rec->payload[pos + 3 + k]);
		fputc(']', d->out);
		pos += 3 + nr;
	}
}

static int remember_layout(struct dump *d, const struct stream_record *rec)
{
	if (ARRAY_GROW(d->group_of, rec->npayload + 1, d->group_cap))
		return -ENOMEM;
	d->nev = rec->npayload;
	for (size_t i = 0; i < rec->npayload; i++)
		d->group_of[i] = (uint32_t)rec->payload[i];
	return 0;
}

static void print_counters(const struct dump *d, const struct stream_record *rec)
{
	char buf[32];

	fprintf(d->out, " events=%u", rec->arg);
	for (size_t i = 0; i < rec->npayload; i++) {
		uint32_t group = (uint32_t)rec->payload[i];
		int32_t status = (int32_t)(uint32_t)(rec->payload[i] >> 32);

		fprintf(d->out, " [%s", text_safe(event_name(d, i, buf, sizeof(buf))));
		if (group == PSC_NO_GROUP)
			fprintf(d->out, " not-opened");
		else
			fprintf(d->out, " group=%u", group);
		if (status)
			fprintf(d->out, " status=%d (%s)", status, strerror(-status));
		fputc(']', d->out);
	}
}

/* The region names defined so far in the stream, sorted by id, to show them at enter and
 * leave. */
struct names {
	uint32_t *ids;
	char **names;
	size_t n, cap;
};

/* Index of ID, or where it would be inserted. */
static size_t names_slot(const struct names *nm, uint32_t id)
{
	size_t lo = 0, hi = nm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nm->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const char *names_get(const struct names *nm, uint32_t id)
{
	size_t k = names_slot(nm, id);

	return k < nm->n && nm->ids[k] == id ? nm->names[k] : NULL;
}

/* Define (or redefine) ID as TEXT. 0 or -ENOMEM. */
static int names_add(struct names *nm, uint32_t id, const char *text)
{
	size_t k = names_slot(nm, id);
	char *copy = strdup(text);

	if (!copy)
		return -ENOMEM;
	if (k < nm->n && nm->ids[k] == id) {
		free(nm->names[k]);
		nm->names[k] = copy;
		return 0;
	}
	if (nm->n == nm->cap) {
		/* ids and names both have room for cap: from it, they grow alike */
		size_t cap = nm->cap, namecap = nm->cap;

		if (ARRAY_GROW(nm->ids, nm->n + 1, cap) ||
		    ARRAY_GROW(nm->names, nm->n + 1, namecap)) {
			free(copy);
			return -ENOMEM;
		}
		nm->cap = cap;
	}
	memmove(nm->ids + k + 1, nm->ids + k, (nm->n - k) * sizeof(*nm->ids));
	memmove(nm->names + k + 1, nm->names + k, (nm->n - k) * sizeof(*nm->names));
	nm->ids[k] = id;
	nm->names[k] = copy;
	nm->n++;
	return 0;
}

static void names_release(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->names[i]);
	free(nm->ids);
	free(nm->names);
	memset(nm, 0, sizeof(*nm));
}

/* The records of a samples file (format.h, PSC_REC_SAMPLE_GROUP and after). */
static int print_sample_record(FILE *out, const struct stream_record *rec)
{
	static const char *const tasks[] = {"?", "fork", "exit", "comm", "exec"};
	const uint64_t *p = rec->payload;

	switch (rec->type) {
	case PSC_REC_SAMPLE_GROUP:
		fprintf(out, " group=%u events=", rec->arg);
		for (size_t i = 0; i < rec->npayload; i++)
			fprintf(out, "%s%" PRIu64, i ? "," : "", p[i]);
		break;
	case PSC_REC_SAMPLE:
		fprintf(out,
			" group=%u pid=%u tid=%u ip=0x%" PRIx64 " cpu=%u%s enabled=%" PRIu64
			" running=%" PRIu64 " values=",
			rec->arg, (uint32_t)p[0], (uint32_t)(p[0] >> 32), p[1],
			(unsigned)(p[2] & 0xffff),
			(p[2] >> 16) & PSC_SAMPLE_KERNEL ? " kernel" : "", p[4], p[5]);
		for (uint64_t k = 0; k < p[3]; k++)
			fprintf(out, "%s%" PRIu64, k ? "," : "", p[6 + k]);
		for (uint64_t k = 0; k < p[2] >> 32; k++)
			fprintf(out, "%s0x%" PRIx64, k ? "," : " chain=", p[6 + p[3] + k]);
		break;
	case PSC_REC_TASK:
		fprintf(out, " %s pid=%u tid=%u", tasks[rec->arg < 5 ? rec->arg : 0],
			(uint32_t)p[0], (uint32_t)(p[0] >> 32));
		if (rec->arg == PSC_TASK_FORK || rec->arg == PSC_TASK_EXIT) {
			fprintf(out, " ppid=%u ptid=%u", (uint32_t)p[1], (uint32_t)(p[1] >> 32));
		} else {
			fprintf(out, " name=");
			if (print_text(out, p + 1, rec->npayload - 1))
				return -ENOMEM;
		}
		break;
	case PSC_REC_THROTTLE:
		fprintf(out, " %s pid=%u tid=%u", rec->arg ? "on" : "off", (uint32_t)p[0],
			(uint32_t)(p[0] >> 32));
		break;
	case PSC_REC_SAMPLE_TOTALS:
		for (uint32_t i = 0; i < rec->arg; i++) {
			fprintf(out, " [%u]=", i);
			if (p[3 * i] == UINT64_MAX)
				fprintf(out, "not-counted");
			else
				fprintf(out, "%" PRIu64 "/%" PRIu64 "/%" PRIu64, p[3 * i],
					p[3 * i + 1], p[3 * i + 2]);
		}
		break;
	case PSC_REC_SWITCH:
		fprintf(out, " %s%s pid=%u tid=%u cpu=%u",
			(rec->arg >> 16) & PSC_SWITCH_OUT ? "out" : "in",
			(rec->arg >> 16) & PSC_SWITCH_PREEMPT ? " preempted" : "", (uint32_t)p[0],
			(uint32_t)(p[0] >> 32), rec->arg & 0xffffu);
		break;
	default:
		break;
	}
	return 0;
}

/* A routine id as its name, or "routine#ID". */
static void print_routine(FILE *out, uint32_t id)
{
	const char *name = mpi_routine_name(id);

	if (name)
		fprintf(out, " %s", name);
	else
		fprintf(out, " routine#%u", id);
}

/* A world rank, "any" for PSC_MPI_ANY (any source, any tag, no root). */
static void print_rank(FILE *out, const char *key, int32_t v)
{
	if (v == PSC_MPI_ANY)
		fprintf(out, " %s=any", key);
	else
		fprintf(out, " %s=%d", key, v);
}

/* The 4-word items of an MPI leave record (format.h PSC_MPI_ITEM_*), one [...] each. */
static void print_mpi_items(FILE *out, const uint64_t *it, size_t n)
{
	static const char *const kinds[] = {"?",	  "send", "recv",   "isend",   "irecv",
					    "isend-done", "coll", "cancel", "coll-req"};

	for (size_t i = 0; i < n; i++, it += PSC_MPI_ITEM_WORDS) {
		unsigned kind = (unsigned)(it[0] & 0xffu), flags = (unsigned)((it[0] >> 8) & 0xffu);
		int32_t lo = (int32_t)(uint32_t)it[1], hi = (int32_t)(uint32_t)(it[1] >> 32);

		fprintf(out, " [%s comm=%u",
			kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[kind] : "?",
			(uint32_t)(it[0] >> 32));
		switch (kind) {
		case PSC_MPI_ITEM_SEND:
		case PSC_MPI_ITEM_RECV:
		case PSC_MPI_ITEM_ISEND:
		case PSC_MPI_ITEM_IRECV:
			print_rank(out, "peer", lo);
			print_rank(out, "tag", hi);
			fprintf(out, " bytes=%" PRIu64, it[2]);
			if (kind != PSC_MPI_ITEM_SEND)
				fprintf(out, " req=%" PRIu64, it[3]);
			break;
		case PSC_MPI_ITEM_COLL:
			print_rank(out, "root", lo);
			fprintf(out, " sent=%" PRIu64 " received=%" PRIu64, it[2], it[3]);
			break;
		default: /* ISEND_DONE, CANCEL, COLL_REQ */
			fprintf(out, " req=%" PRIu64, it[3]);
			break;
		}
		if (flags & PSC_MPI_F_SYNC)
			fprintf(out, " sync");
		if (kind == PSC_MPI_ITEM_CANCEL && (flags & PSC_MPI_F_FREED))
			fprintf(out, " freed");
		fputc(']', out);
	}
}

/* The MPI records (format.h PSC_REC_MPI_*; the reader checked their lengths). */
static void print_mpi_record(FILE *out, const struct stream_record *rec)
{
	const uint64_t *p = rec->payload;

	switch (rec->type) {
	case PSC_REC_MPI_INIT:
		/* the thread level in the low 32 bits, the MPI record version above (0: 1) */
		fprintf(out, " rank=%u size=%" PRIu64 " thread-level=%" PRId32 " version=%" PRIu32,
			rec->arg, p[0], (int32_t)(uint32_t)p[1],
			(uint32_t)(p[1] >> 32) ? (uint32_t)(p[1] >> 32) : 1);
		break;
	case PSC_REC_MPI_ENTER:
		print_routine(out, rec->arg);
		break;
	case PSC_REC_MPI_LEAVE:
		print_routine(out, rec->arg);
		fprintf(out, " site=0x%" PRIx64, p[0]);
		print_mpi_items(out, p + 1, (rec->npayload - 1) / PSC_MPI_ITEM_WORDS);
		break;
	case PSC_REC_MPI_COMM:
		fprintf(out,
			" index=%u key=0x%016" PRIx64 " (seq %" PRIu64 ", lowest %u) size=%" PRIu64
			" members=",
			rec->arg, p[0], p[0] >> 32, (uint32_t)p[0], p[1]);
		for (uint64_t i = 0; i < p[1]; i++)
			fprintf(out, "%s%d", i ? "," : "",
				(int32_t)(uint32_t)(p[2 + i / 2] >> (32 * (i % 2))));
		break;
	case PSC_REC_MPI_CLOCK:
		fprintf(out, " phase=%s local_ns=%" PRId64 " offset_ns=%" PRId64 " rtt_ns=%" PRIu64,
			rec->arg == PSC_MPI_CLOCK_INIT ? "init" : "finalize", (int64_t)p[0],
			(int64_t)p[1], p[2]);
		break;
	default:
		break;
	}
}

/* The fields of an OpenMP record (format.h PSC_REC_OMP_*), payloads as the reader checked. */
static void print_omp_record(FILE *out, const struct stream_record *rec)
{
	static const char *const sync[] = {
	    [PSC_OMP_SYNC_BARRIER_IMPLICIT] = "barrier-implicit",
	    [PSC_OMP_SYNC_BARRIER_EXPLICIT] = "barrier-explicit",
	    [PSC_OMP_SYNC_BARRIER_WORK] = "barrier-work",
	    [PSC_OMP_SYNC_CRITICAL] = "critical",
	    [PSC_OMP_SYNC_LOCK] = "lock",
	    [PSC_OMP_SYNC_ORDERED] = "ordered",
	    [PSC_OMP_SYNC_ATOMIC] = "atomic",
	    [PSC_OMP_SYNC_TASKWAIT] = "taskwait",
	    [PSC_OMP_SYNC_TASKGROUP] = "taskgroup",
	    [PSC_OMP_SYNC_REDUCTION] = "reduction",
	};
	static const char *const work[] = {
	    [PSC_OMP_WORK_LOOP_STATIC] = "loop-static",
	    [PSC_OMP_WORK_LOOP_DYNAMIC] = "loop-dynamic",
	    [PSC_OMP_WORK_LOOP_GUIDED] = "loop-guided",
	    [PSC_OMP_WORK_LOOP_RUNTIME] = "loop-runtime",
	    [PSC_OMP_WORK_SECTIONS] = "sections",
	    [PSC_OMP_WORK_SINGLE] = "single",
	    [PSC_OMP_WORK_OTHER] = "other",
	};
	const uint64_t *p = rec->payload;
	const char *kind;

	switch (rec->type) {
	case PSC_REC_OMP_PARALLEL_BEGIN:
		fprintf(out,
			" parallel=%" PRIu64 " site=0x%" PRIx64 " fn=0x%" PRIx64
			" team=%u level=%" PRIu64,
			p[0], p[1], p[2], rec->arg, p[3]);
		break;
	case PSC_REC_OMP_PARALLEL_END:
		fprintf(out, " parallel=%" PRIu64 " team=%u", p[0], rec->arg);
		break;
	case PSC_REC_OMP_ITASK_BEGIN:
		fprintf(out, " parallel=%" PRIu64 " thread=%u team=%" PRIu64, p[0], rec->arg, p[1]);
		break;
	case PSC_REC_OMP_ITASK_END:
		fprintf(out, " parallel=%" PRIu64 " thread=%u", p[0], rec->arg);
		break;
	case PSC_REC_OMP_SYNC_ENTER:
	case PSC_REC_OMP_SYNC_LEAVE:
		kind = rec->arg < ARRAY_SIZE(sync) ? sync[rec->arg] : NULL;
		if (kind)
			fprintf(out, " kind=%s", kind);
		else
			fprintf(out, " kind=%u", rec->arg);
		if (rec->type == PSC_REC_OMP_SYNC_ENTER)
			fprintf(out, " site=0x%" PRIx64 " object=0x%" PRIx64, p[0], p[1]);
		break;
	case PSC_REC_OMP_WORK:
		kind = rec->arg < ARRAY_SIZE(work) ? work[rec->arg] : NULL;
		if (kind)
			fprintf(out, " kind=%s", kind);
		else
			fprintf(out, " kind=%u", rec->arg);
		fprintf(out, " site=0x%" PRIx64 " begin_ticks=%" PRIu64, p[0], p[1]);
		for (int i = 2; i < 4; i++) {
			const char *what = i == 2 ? "chunks" : "iterations";

			if (p[i] == PSC_OMP_NOT_COUNTED)
				fprintf(out, " %s=not-counted", what);
			else
				fprintf(out, " %s=%" PRIu64, what, p[i]);
		}
		break;
	case PSC_REC_OMP_TASK_CREATE:
		fprintf(out, " task=%" PRIu64 " site=0x%" PRIx64, p[0], p[1]);
		break;
	default: /* TASK_BEGIN, TASK_END */
		fprintf(out, " task=%" PRIu64 "%s", p[0], rec->arg ? " suspended" : "");
		break;
	}
}

/* REC, read at NS since the process started (when the process is known: d->proc). */
static int print_record(struct dump *d, struct names *nm, const struct stream_record *rec,
			int64_t ns)
{
	const char *name;

	/* one call for the columns every record has: a dump is mostly the time of fprintf */
	if (d->proc)
		fprintf(d->out, "%10" PRIu64 "  %20" PRIu64 "  %14" PRId64 "  %-12s", rec->offset,
			rec->ticks, ns, stream_record_name(rec));
	else
		fprintf(d->out, "%10" PRIu64 "  %20" PRIu64 "  %14s  %-12s", rec->offset,
			rec->ticks, "-", stream_record_name(rec));
	if (rec->kind != PSC_KIND_EXT) {
		fprintf(d->out, " addr=0x%" PRIx64 "\n", rec->addr);
		return 0;
	}
	switch (rec->type) {
	case PSC_REC_REGION_DEF:
		fprintf(d->out, " id=%u name=", rec->arg);
		if (print_text(d->out, rec->payload, rec->npayload) ||
		    names_add(nm, rec->arg, (const char *)rec->payload))
			return -ENOMEM;
		break;
	case PSC_REC_REGION_ENTER:
	case PSC_REC_REGION_LEAVE:
		name = names_get(nm, rec->arg);
		fprintf(d->out, " id=%u (%s)", rec->arg, name ? text_safe(name) : "?");
		print_snapshot(d, rec);
		break;
	case PSC_REC_CLOCK_SYNC:
		fprintf(d->out, " ns=%" PRIu64, rec->payload[0]);
		break;
	case PSC_REC_COUNTERS:
		if (remember_layout(d, rec))
			return -ENOMEM;
		print_counters(d, rec);
		break;
	case PSC_REC_LOST:
		fprintf(d->out, " records=%" PRIu64 " bytes=%" PRIu64, rec->payload[0],
			rec->payload[1]);
		break;
	case PSC_REC_STREAM_END:
		fprintf(d->out, " reason=%s", stream_end_reason_name(rec->arg));
		if ((rec->arg & 0xffu) == PSC_END_SIGNAL) {
			unsigned sig = rec->arg >> 8;
			const char *abbrev = sig < 65 ? sigabbrev_np((int)sig) : NULL;

			fprintf(d->out, " signal=%u%s%s", sig, abbrev ? " SIG" : "",
				abbrev ? abbrev : "");
		}
		break;
	case PSC_REC_THREAD_NAME:
		fprintf(d->out, " name=");
		if (print_text(d->out, rec->payload, rec->npayload))
			return -ENOMEM;
		break;
	case PSC_REC_MPI_INIT:
	case PSC_REC_MPI_ENTER:
	case PSC_REC_MPI_LEAVE:
	case PSC_REC_MPI_COMM:
	case PSC_REC_MPI_CLOCK:
		print_mpi_record(d->out, rec);
		break;
	default:
		if (rec->type >= PSC_REC_OMP_PARALLEL_BEGIN && rec->type <= PSC_REC_OMP_TASK_END)
			print_omp_record(d->out, rec);
		else if (print_sample_record(d->out, rec))
			return -ENOMEM;
		break;
	}
	fputc('\n', d->out);
	return 0;
}

/* The header line of the file of LOC, and the column headers. */
static void print_header(struct dump *d, const struct ev_location *loc)
{
	const struct psc_stream_header *h = loc->hdr;

	fprintf(d->out,
		"# %s: pid %u tid %u image %u rank %d; format %u, header %u bytes, "
		"features ",
		text_safe(loc->name), h->pid, h->tid, h->image, h->rank, h->version,
		h->header_size);
	print_feature_bits(d->out, h->features);
	fprintf(d->out,
		", clock %s, start pair %" PRIu64 " ticks = %" PRIu64 " ns, %u events, %" PRIu64
		" bytes\n",
		clock_source_name(h->clock_source), h->start_ticks, h->start_ns, h->nevents,
		loc->reader->file_size);
	fprintf(d->out, "%10s  %20s  %14s  %s\n", "offset", "ticks", "ns", "record");
}

/* The header of stream S's file must match its name. 0, or -EINVAL with the message in ERR. */
static int check_header(const struct exp_stream *s, const struct psc_stream_header *h, char *err,
			size_t errlen)
{
	if (h->pid != (uint32_t)s->pid || h->tid != (uint32_t)s->tid) {
		snprintf(err, errlen,
			 "%s: byte %d: the header says pid %u tid %u, the file name %d.%d", s->path,
			 h->pid != (uint32_t)s->pid ? 24 : 28, h->pid, h->tid, (int)s->pid,
			 (int)s->tid);
		return -EINVAL;
	}
	if (h->image != s->image) {
		snprintf(err, errlen, "%s: byte 60: the header says image %u, the file name %u",
			 s->path, h->image, s->image);
		return -EINVAL;
	}
	return 0;
}

/* Does stream S match SEL: a path, a file name, or PID.TID[.IMAGE]? */
static int stream_matches(const struct exp_stream *s, const char *sel)
{
	const char *slash = strrchr(s->path, '/'), *base = slash ? slash + 1 : s->path;
	int pid, tid, used = 0;
	unsigned image = 0;

	if (!strcmp(sel, s->path) || !strcmp(sel, base))
		return 1;
	if (strchr(sel, '/')) {
		const char *sel_slash = strrchr(sel, '/');

		return !strcmp(sel_slash + 1, base) &&
		       !strncmp(sel, s->path, (size_t)(sel_slash - sel)) &&
		       s->path[sel_slash - sel] == '/';
	}
	if (sscanf(sel, "%d.%d%n", &pid, &tid, &used) != 2 || pid != s->pid || tid != s->tid)
		return 0;
	if (sel[used] == 0)
		return 1;
	return sscanf(sel + used, ".%u", &image) == 1 && image == s->image;
}

/* Does the file of LOC match SEL: a stream as stream_matches() says, a samples file by its
 * path or file name? */
static int location_matches(const struct ev_location *loc, const char *sel)
{
	const char *slash = strrchr(loc->name, '/');

	if (loc->stream)
		return stream_matches(loc->stream, sel);
	return !strcmp(sel, loc->name) || !strcmp(sel, slash ? slash + 1 : loc->name);
}

/* A file of the experiment: dumped when --stream selects it, its header first. */
static int dump_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct dump *d = ctx;

	if (d->sel && !location_matches(loc, d->sel))
		return 1;
	if (d->matched++)
		fputc('\n', d->out);
	d->proc = loc->proc;
	d->nev = 0;
	d->shown = d->hidden = d->seq = 0;
	names_release(d->nm);
	if (!loc->hdr) /* not opened: its end says why */
		return 0;
	d->base = (int64_t)loc->hdr->start_ns;
	print_header(d, loc);
	return loc->stream ? check_header(loc->stream, loc->hdr, err, errlen) : 0;
}

/* The record of EV (none for an exit made up), after its chunk's line when it opens one. */
static int dump_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct dump *d = ctx;
	const struct stream_reader *r = ev->loc->reader;
	const struct stream_record *rec = ev->raw;

	if (!rec)
		return 0;
	if (r->next_seq != d->seq) { /* the record opens a new chunk */
		d->seq = r->next_seq;
		if (!d->limit || d->shown < d->limit)
			fprintf(d->out,
				"%10" PRIu64 "  %20s  %14s  %-12s seq=%" PRIu64 " size=%zu\n",
				r->chunk_offset, "-", "-", "chunk", d->seq - 1, r->chunk_words * 8);
	}
	if (d->limit && d->shown >= d->limit) {
		d->hidden++;
		if (rec->kind == PSC_KIND_EXT && rec->type == PSC_REC_COUNTERS &&
		    remember_layout(d, rec))
			goto oom;
		return 0;
	}
	d->shown++;
	/* the event's time is the record's through its process's clock fit */
	if (print_record(d, d->nm, rec, ev->ns - d->base) < 0)
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* How the file ended: records not shown, where it was cut, no end record; or its error. */
static int dump_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		    char *err, size_t errlen)
{
	struct dump *d = ctx;
	const struct stream_reader *r = loc->reader;

	if (d->hidden)
		fprintf(d->out, "# %" PRIu64 " more records not shown (--limit %" PRIu64 ")\n",
			d->hidden, d->limit);
	if (f->error) {
		snprintf(err, errlen, "%s", f->errmsg);
		return f->error;
	}
	if (r->truncated_at)
		fprintf(
		    d->out,
		    "# cut at byte %" PRIu64 ": the last chunk is incomplete (the run was killed "
		    "while writing, or the disk was full); %" PRIu64 " bytes after it ignored\n",
		    r->truncated_at, r->file_size - r->truncated_at);
	else if (!r->ended)
		fprintf(d->out,
			"# no end record: the stream stops after chunk %" PRIu64
			" (the process did not end cleanly)\n",
			r->next_seq);
	return 0;
}

/* Dump the files of SRC: one pass of the dump's consumer, going past nothing (a defect stops
 * it after what was read before it was printed). */
static int dump_source(struct dump *d, struct ev_source *src, char *err, size_t errlen)
{
	struct ev_consumer c = {.name = "dump",
				.kinds = EV_ALL,
				.ctx = d,
				.location_begin = dump_begin,
				.event = dump_event,
				.location_end = dump_end},
			   *list[] = {&c};

	return ev_pass_run_flags(src, list, 1, EV_PASS_KEEP_GOING, err, errlen);
}

/* Dump the stream or samples file PATH alone: no clock fit, ns not shown. */
static int dump_file(struct dump *d, const char *path, char *err, size_t errlen)
{
	struct ev_source *src;
	int ret = ev_source_file(&src, path, err, errlen);

	if (ret == 0)
		ret = dump_source(d, src, err, errlen);
	ev_source_close(src);
	return ret;
}

static int dump_experiment(struct dump *d, const char *dir, char *err, size_t errlen)
{
	struct ev_source *src = NULL;
	struct experiment e;
	int ret = experiment_open(&e, dir, err, errlen);

	if (ret == 0)
		ret = ev_source_experiment(&src, &e, err, errlen);
	if (ret == 0)
		ret = dump_source(d, src, err, errlen);
	if (ret == 0 && d->sel && !d->matched) {
		snprintf(err, errlen,
			 "%s: no stream '%s' (give a file name, a path or PID.TID; see: perfscope "
			 "info %s)",
			 dir, d->sel, dir);
		ret = -ENOENT;
	}
	if (ret == 0 && !d->sel) {
		struct caveat_block cb = {d->out, 0};

		experiment_caveats(&e, 1, caveat_block, &cb);
	}
	ev_source_close(src);
	experiment_release(&e);
	return ret;
}

int cmd_dump(int argc, char **argv)
{
	const char *dir = "perfscope.out", *sel = NULL, *output = NULL;
	long limit = 0;
	int force = 0, help = 0, first, ret;
	const struct option_spec specs[] = {
	    {0, "stream", OPT_STRING, &sel, "FILE|PID.TID",
	     "only this stream: its file name or path, or PID.TID (PID.TID.IMAGE after exec)", 0,
	     NULL},
	    {0, "limit", OPT_INT, &limit, "N", "show the first N records of each stream", 0, NULL},
	    {'o', "output", OPT_STRING, &output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct names nm = {0};
	struct dump d;
	struct stat st;
	char err[1024];

	memset(&d, 0, sizeof(d));
	d.nm = &nm;
	ret = cli_parse("dump", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (cli_operand("dump", argc - 1 - first, argv + 1 + first, &dir))
		return EXIT_USAGE;
	if (limit < 0) {
		cli_error("dump", "--limit N: N must be 0 (all records) or more");
		return EXIT_USAGE;
	}
	d.limit = (uint64_t)limit;
	d.sel = sel;
	if (cli_output_open("dump", output, force, &d.out))
		return EXIT_USAGE;
	/* a lone stream file (no experiment around it): no clock fit, ns not shown */
	if (stat(dir, &st) == 0 && S_ISREG(st.st_mode) && sel) {
		snprintf(err, sizeof(err), "--stream selects in a directory; %s is a file", dir);
		ret = -EINVAL;
	} else if (stat(dir, &st) == 0 && S_ISREG(st.st_mode)) {
		ret = dump_file(&d, dir, err, sizeof(err));
	} else {
		ret = dump_experiment(&d, dir, err, sizeof(err));
	}
	fflush(d.out);
	if (ret)
		cli_error("dump", "%s", err);
	names_release(&nm);
	free(d.group_of);
	/* what was read before an error is kept: the error says where the dump stops */
	return cli_output_close("dump", d.out, 1, ret ? EXIT_USAGE : 0);
}
