/*
 * chrome-model.c - what the Chrome export shows of the model besides calls and regions: MPI
 * calls as slices on their threads, their messages as flow arrows from the send to the
 * receive, and samples as instant events (chrome.h).
 *
 * A message's arrow joins the k-th send from rank A to rank B with tag T on a communicator to
 * the k-th receive of B from A with T on that communicator: MPI does not let messages of the
 * same sender, communicator and tag overtake one another, so both ends count to the same k and
 * derive the same flow id, whichever of them is written first.
 */
#include "export/chrome-model.h"

#include "lib/hashmap.h"
#include "format/format.h"
#include "format/mpi-routines.h"

#include <stdlib.h>

struct chrome_model {
	struct u64map comms;  /* (pid, communicator index) -> its key */
	struct u64map sends;  /* (from, to, communicator, tag) -> messages sent so far */
	struct u64map recvs;  /* the same, received */
	struct u64map images; /* sampled pid -> its image + 1 */
	int64_t enter_ns;     /* the open MPI call of the location */
	int open;
};

int chrome_model_new(struct chrome_model **m)
{
	*m = calloc(1, sizeof(**m));
	return *m ? 0 : -ENOMEM;
}

void chrome_model_free(struct chrome_model *m)
{
	if (!m)
		return;
	u64map_release(&m->comms);
	u64map_release(&m->sends);
	u64map_release(&m->recvs);
	u64map_release(&m->images);
	free(m);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

/* Head of an event of phase PH on PID/TID at REL_NS: {"ph":"X","pid":P,"tid":T,"ts":US */
static void head(struct out *o, const char *ph, pid_t pid, pid_t tid, int64_t rel_ns)
{
	char *p = event_start(o, out_room(o, ROOM_MAX));

	o->len = (size_t)(p - o->buf);
	out_lit(o, "{\"ph\":\"");
	out_put(o, ph, strlen(ph));
	out_lit(o, "\",\"pid\":");
	out_u64(o, (uint64_t)(uint32_t)pid);
	out_lit(o, ",\"tid\":");
	out_u64(o, (uint64_t)(uint32_t)tid);
	out_lit(o, ",\"ts\":");
	o->len = (size_t)(put_ts(o, out_room(o, 40), rel_ns) - o->buf);
}

static void out_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		out_lit(o, "-");
		out_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		out_u64(o, (uint64_t)v);
	}
}

/* The key of communicator INDEX of process PID, the same in every member. */
static uint64_t comm_key(const struct chrome_model *m, pid_t pid, uint32_t index)
{
	uint64_t key = index;

	if (index > 1)
		u64map_get(&m->comms, (uint64_t)(uint32_t)pid << 32 | index, &key);
	return key;
}

/* The flow id of the next message FROM -> TO with TAG on communicator COMM as counted in
 * COUNTS: at most 2^53 - 1, exact in JavaScript. 0 or -ENOMEM. */
static int flow_id(struct u64map *counts, int32_t from, int32_t to, uint64_t comm, int32_t tag,
		   uint64_t *id)
{
	uint64_t key = mix(mix(mix((uint32_t)from, (uint32_t)to), comm), (uint32_t)tag), k = 0;

	u64map_get(counts, key, &k);
	if (u64map_put(counts, key, k + 1))
		return -ENOMEM;
	*id = (mix(key, k) & ((UINT64_C(1) << 53) - 1)) | 1;
	return 0;
}

/* The flow event ("s" at a send, "f" at a receive) of ITEM of the call open at LOC. */
static int flow_event(struct chrome_model *m, struct out *o, const struct event *ev,
		      const struct ev_mpi_item *it, int64_t origin, struct chrome_stats *stats)
{
	const struct ev_location *loc = ev->loc;
	int send = it->kind == PSC_MPI_ITEM_SEND || it->kind == PSC_MPI_ITEM_ISEND;
	uint64_t comm = comm_key(m, loc->pid, it->comm), id;
	int ret;

	if (send)
		ret = flow_id(&m->sends, loc->rank, it->peer, comm, it->tag, &id);
	else
		ret = flow_id(&m->recvs, it->peer, loc->rank, comm, it->tag, &id);
	if (ret < 0)
		return ret;
	head(o, send ? "s" : "f", loc->pid, loc->tid, m->enter_ns - origin);
	out_lit(o, ",\"cat\":\"mpi\",\"name\":\"message\",\"id\":");
	out_u64(o, id);
	if (send) {
		out_lit(o, "}");
		stats->messages++;
	} else {
		out_lit(o, ",\"bp\":\"e\"}");
		stats->messages_received++;
	}
	return 0;
}

/* The E event of the MPI call EV leaves, with what it moved: bytes, and the peer and tag of
 * its first message. */
static int mpi_leave(struct chrome_model *m, struct out *o, const struct event *ev, int64_t origin,
		     struct chrome_stats *stats)
{
	struct ev_mpi_item first = {0};
	uint64_t bytes = 0;
	int ret;

	for (size_t i = 0; i < ev->mpi.nitems; i++) {
		struct ev_mpi_item it = ev_mpi_item(&ev->mpi, i);

		switch (it.kind) {
		case PSC_MPI_ITEM_SEND:
		case PSC_MPI_ITEM_ISEND:
		case PSC_MPI_ITEM_RECV:
			if (ev->loc->rank >= 0 &&
			    (ret = flow_event(m, o, ev, &it, origin, stats)) < 0)
				return ret;
			/* fall through */
		case PSC_MPI_ITEM_COLL:
			bytes += it.bytes;
			if (!first.kind)
				first = it;
			break;
		default:
			break;
		}
	}
	head(o, "E", ev->loc->pid, ev->loc->tid, ev->ns - origin);
	out_lit(o, ",\"args\":{\"bytes\":");
	out_u64(o, bytes);
	if (first.kind && first.kind != PSC_MPI_ITEM_COLL) {
		out_lit(o, ",\"peer\":");
		out_i64(o, first.peer);
		out_lit(o, ",\"tag\":");
		out_i64(o, first.tag);
	} else if (first.kind && first.peer >= 0) {
		out_lit(o, ",\"root\":");
		out_i64(o, first.peer);
	}
	out_lit(o, "}}");
	m->open = 0;
	return 0;
}

void chrome_model_location(struct chrome_model *m)
{
	m->open = 0;
}

void chrome_model_close(struct chrome_model *m, struct out *o, const struct ev_location *loc,
			int64_t rel_ns)
{
	if (!m->open)
		return;
	head(o, "E", loc->pid, loc->tid, rel_ns);
	out_lit(o, ",\"args\":{\"exit_recorded\":false}}");
	m->open = 0;
}

int chrome_model_mpi(struct chrome_model *m, struct out *o, const struct event *ev, int64_t origin,
		     struct chrome_stats *stats)
{
	const char *name;

	switch (ev->kind) {
	case EV_MPI_COMM:
		if (u64map_put(&m->comms,
			       (uint64_t)(uint32_t)ev->loc->pid << 32 | ev->mpi_comm.index,
			       ev->mpi_comm.key))
			return -ENOMEM;
		return m->open;
	case EV_MPI_ENTER:
		name = mpi_routine_name((unsigned)ev->mpi.routine);
		head(o, "B", ev->loc->pid, ev->loc->tid, ev->ns - origin);
		out_lit(o, ",\"cat\":\"mpi\",\"name\":");
		out_string(o, name ? name : "MPI");
		out_lit(o, "}");
		m->enter_ns = ev->ns;
		m->open = 1;
		stats->mpi_calls++;
		return 1;
	case EV_MPI_LEAVE:
		return m->open ? mpi_leave(m, o, ev, origin, stats) : 0;
	default:
		return 0;
	}
}

/* A task event of a samples file: an exec starts the next image of its process, but the
 * root's first one is the launch itself, where image 0 begins (as samples.c counts them). */
static int sample_task(struct chrome_model *m, const struct event *ev)
{
	uint64_t key = (uint64_t)(uint32_t)ev->task.pid, v = ev->task.pid == ev->loc->pid ? 0 : 1;

	if (ev->task.what != PSC_TASK_EXEC)
		return 0;
	u64map_get(&m->images, key, &v);
	return u64map_put(&m->images, key, v + 1);
}

int chrome_model_sample(struct chrome_model *m, struct out *o, struct symtab *st,
			const struct event *ev, int64_t origin, struct chrome_stats *stats)
{
	const struct ev_sample *s = &ev->sample;
	struct sym_info info;
	uint64_t v = 1;
	unsigned image;

	if (ev->kind == EV_TASK)
		return sample_task(m, ev);
	u64map_get(&m->images, (uint64_t)(uint32_t)s->pid, &v);
	image = v ? (unsigned)(v - 1) : 0;
	if (symtab_lookup_at(st, s->pid, image, s->ip, ev->ns, &info) == -ENOMEM)
		return -ENOMEM;
	head(o, "i", s->pid, s->tid, ev->ns - origin);
	out_lit(o, ",\"s\":\"t\",\"cat\":\"sample\",\"name\":");
	out_string(o, info.name);
	out_lit(o, ",\"args\":{\"cpu\":");
	out_u64(o, s->cpu);
	out_lit(o, "}}");
	stats->samples++;
	return 0;
}
