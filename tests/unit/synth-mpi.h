/*
 * synth-mpi.h - writing synthetic MPI experiments for unit tests: one process per rank, each
 * with one stream (or more threads), holding the MPI records of format.h ("MPI records" in
 * docs/format.md). Every process uses "clock":"monotonic", so ticks are the rank's own ns.
 * Records must be added in time order per stream. Include after synth-exp.h.
 */
#ifndef PSC_TEST_SYNTH_MPI_H
#define PSC_TEST_SYNTH_MPI_H

#include "format/mpi-routines.h"
#include "synth-exp.h"

/* Records of one stream, growing. */
struct mstream {
	uint64_t *w;
	size_t n, cap;
	size_t cut; /* > 0: the file ends after a last chunk cut short holding words [cut, n) */
};

static inline void ms_put(struct mstream *s, uint64_t v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->w = realloc(s->w, s->cap * sizeof(*s->w));
		assert_non_null(s->w);
	}
	s->w[s->n++] = v;
}

static inline void ms_ext(struct mstream *s, uint64_t t, enum psc_rec_type type, uint32_t arg,
			  const uint64_t *payload, size_t npayload)
{
	ms_put(s, psc_word0(t, PSC_KIND_EXT));
	ms_put(s, psc_ext_word1(type, (uint32_t)(2 + npayload), arg));
	for (size_t i = 0; i < npayload; i++)
		ms_put(s, payload[i]);
}

/* An item: the 4 words of PSC_MPI_ITEM_*. */
struct mitem {
	uint64_t w[4];
};

static inline struct mitem it_send(int32_t peer, int32_t tag, uint64_t bytes, uint32_t comm)
{
	return (struct mitem){
	    {psc_mpi_item_word0(PSC_MPI_ITEM_SEND, 0, comm), psc_mpi_pack2(peer, tag), bytes, 0}};
}

static inline struct mitem it_ssend(int32_t peer, int32_t tag, uint64_t bytes, uint32_t comm)
{
	return (struct mitem){{psc_mpi_item_word0(PSC_MPI_ITEM_SEND, PSC_MPI_F_SYNC, comm),
			       psc_mpi_pack2(peer, tag), bytes, 0}};
}

static inline struct mitem it_recv(int32_t src, int32_t tag, uint64_t bytes, uint64_t req,
				   uint32_t comm)
{
	return (struct mitem){
	    {psc_mpi_item_word0(PSC_MPI_ITEM_RECV, 0, comm), psc_mpi_pack2(src, tag), bytes, req}};
}

static inline struct mitem it_isend(int32_t peer, int32_t tag, uint64_t bytes, uint64_t req,
				    uint32_t comm)
{
	return (struct mitem){{psc_mpi_item_word0(PSC_MPI_ITEM_ISEND, 0, comm),
			       psc_mpi_pack2(peer, tag), bytes, req}};
}

static inline struct mitem it_irecv(int32_t src, int32_t tag, uint64_t bytes, uint64_t req,
				    uint32_t comm)
{
	return (struct mitem){
	    {psc_mpi_item_word0(PSC_MPI_ITEM_IRECV, 0, comm), psc_mpi_pack2(src, tag), bytes, req}};
}

static inline struct mitem it_done(uint64_t req)
{
	return (struct mitem){{psc_mpi_item_word0(PSC_MPI_ITEM_ISEND_DONE, 0, 0), 0, 0, req}};
}

/* A CANCEL item of request REQ: confirmed cancelled, or freed (FLAGS PSC_MPI_F_FREED). */
static inline struct mitem it_cancel(uint64_t req, unsigned flags)
{
	return (struct mitem){{psc_mpi_item_word0(PSC_MPI_ITEM_CANCEL, flags, 0), 0, 0, req}};
}

static inline struct mitem it_coll(int32_t root, uint64_t sent, uint64_t received, uint32_t comm)
{
	return (struct mitem){{psc_mpi_item_word0(PSC_MPI_ITEM_COLL, 0, comm),
			       psc_mpi_pack2(root, 0), sent, received}};
}

/* The leave record of ROUTINE at T, call site SITE, with N items. */
static inline void ms_leave(struct mstream *s, uint64_t t, unsigned routine, uint64_t site,
			    const struct mitem *items, size_t n)
{
	ms_put(s, psc_word0(t, PSC_KIND_EXT));
	ms_put(s, psc_ext_word1(PSC_REC_MPI_LEAVE, (uint32_t)(3 + 4 * n), routine));
	ms_put(s, site);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 4; k++)
			ms_put(s, items[i].w[k]);
}

/* An MPI call from ENTER to LEAVE (the rank's own ns) at call site SITE with N items. */
static inline void ms_call(struct mstream *s, uint64_t enter, uint64_t leave, unsigned routine,
			   uint64_t site, const struct mitem *items, size_t n)
{
	ms_ext(s, enter, PSC_REC_MPI_ENTER, routine, NULL, 0);
	ms_leave(s, leave, routine, site, items, n);
}

/* A call of one item, or none (IT NULL). */
static inline void ms_call1(struct mstream *s, uint64_t enter, uint64_t leave, unsigned routine,
			    const struct mitem *it)
{
	ms_call(s, enter, leave, routine, 0x401000 + routine * 16, it, it ? 1 : 0);
}

/* ---- function and region records, to interleave with the MPI ones ---------------------- */

/* A clock-sync record at T (every stream starts with one). */
static inline void ms_sync(struct mstream *s, uint64_t t)
{
	ms_ext(s, t, PSC_REC_CLOCK_SYNC, 0, &t, 1);
}

/* Function enter (ENTER 1) or exit (0) of ADDR at T, as -finstrument-functions records it. */
static inline void ms_func(struct mstream *s, uint64_t t, int enter, uint64_t addr)
{
	ms_put(s, psc_word0(t, enter ? PSC_KIND_FUNC_ENTER : PSC_KIND_FUNC_EXIT));
	ms_put(s, addr);
}

/* REGION_DEF of region ID named NAME (at most 63 characters) at T. */
static inline void ms_region_def(struct mstream *s, uint64_t t, uint32_t id, const char *name)
{
	uint64_t payload[8];
	size_t len = strlen(name);

	assert_true(len < sizeof(payload));
	memset(payload, 0, sizeof(payload));
	memcpy(payload, name, len);
	ms_ext(s, t, PSC_REC_REGION_DEF, id, payload, len / 8 + 1);
}

/* Region ID begins (ENTER 1) or ends (0) at T, without counters. */
static inline void ms_region(struct mstream *s, uint64_t t, int enter, uint32_t id)
{
	ms_ext(s, t, enter ? PSC_REC_REGION_ENTER : PSC_REC_REGION_LEAVE, id, NULL, 0);
}

/* PSC_REC_MPI_COMM: the process's communicator INDEX. */
static inline void ms_comm(struct mstream *s, uint64_t t, uint32_t index, uint64_t key,
			   const int32_t *members, uint32_t size)
{
	uint64_t p[2 + 64] = {key, size};

	assert_true(size <= 128);
	for (uint32_t k = 0; k < size; k++)
		p[2 + k / 2] |= (uint64_t)(uint32_t)members[k] << (32 * (k % 2));
	ms_ext(s, t, PSC_REC_MPI_COMM, index, p, 2 + (size + 1) / 2);
}

static inline void ms_clock(struct mstream *s, uint64_t t, unsigned phase, int64_t local_ns,
			    int64_t offset_ns, uint64_t rtt)
{
	const uint64_t p[3] = {(uint64_t)local_ns, (uint64_t)offset_ns, rtt};

	ms_ext(s, t, PSC_REC_MPI_CLOCK, phase, p, 3);
}

/* The start of a rank's main stream at T: a clock record, MPI_Init from T to T + 1000 with
 * the init record and the communicators MPI_COMM_WORLD (index 0, key 0) and MPI_COMM_SELF
 * (index 1, key 1 << 63 | rank). */
static inline void ms_begin(struct mstream *s, uint64_t t, int rank, int world)
{
	const uint64_t init[2] = {(uint64_t)world, 0};
	int32_t members[128];

	assert_true(world <= 128);
	for (int k = 0; k < world; k++)
		members[k] = k;
	ms_ext(s, t, PSC_REC_CLOCK_SYNC, 0, &t, 1);
	ms_ext(s, t, PSC_REC_MPI_ENTER, MPI_ROUTINE_Init, NULL, 0);
	ms_ext(s, t + 1000, PSC_REC_MPI_INIT, (uint32_t)rank, init, 2);
	ms_comm(s, t + 1000, 0, 0, members, (uint32_t)world);
	members[0] = rank;
	ms_comm(s, t + 1000, 1, 1ull << 63 | (uint64_t)rank, members, 1);
	ms_leave(s, t + 1000, MPI_ROUTINE_Init, 0, NULL, 0);
}

static inline void ms_end(struct mstream *s, uint64_t t)
{
	ms_ext(s, t, PSC_REC_STREAM_END, PSC_END_EXIT, NULL, 0);
}

/* proc.<pid>.json of RANK (-1 none) with LOST records lost. */
static inline void write_mpi_proc(const char *dir, int pid, int rank, uint64_t lost)
{
	char name[64], text[1024];

	snprintf(name, sizeof(name), "proc.%d.json", pid);
	snprintf(text, sizeof(text),
		 "{\"version\":1,\"pid\":%d,\"ppid\":1,\"rank\":%d,\"exe\":\"/bin/mpitest\","
		 "\"state\":\"exited\",\"clock\":\"monotonic\","
		 "\"calibration\":[[\"1000\",\"1000\"]],\"events\":[],\"paranoid\":2,"
		 "\"lost_records\":%llu,\"error\":\"\"}",
		 pid, rank, (unsigned long long)lost);
	write_text(dir, name, text);
}

/* stream.<pid>.<tid>: chunks of at most CHUNK words (each starting where the writer left
 * off), then, when s->cut, a last chunk whose header promises more than the file holds. */
static inline void write_mpi_stream(const char *dir, int pid, int tid, const struct mstream *s,
				    size_t chunk)
{
	size_t end = s->cut ? s->cut : s->n, seq = 0;
	FILE *f = synth_stream_create(dir, pid, tid);

	for (size_t at = 0; at < end || (at == 0 && end == 0);) {
		size_t n = end - at;
		struct psc_chunk_header ch;

		/* chunks end between records: find the last record start within CHUNK words */
		if (n > chunk) {
			size_t k = at, last = at;

			while (k < end && k - at <= chunk) {
				last = k;
				k += psc_rec_kind(s->w[k]) == PSC_KIND_EXT
					 ? psc_rec_nwords(s->w[k + 1])
					 : 2;
			}
			n = (k - at <= chunk ? k : last) - at;
		}
		ch = (struct psc_chunk_header){PSC_CHUNK_MAGIC, (uint32_t)(n * 8), seq++};
		assert_int_equal(fwrite(&ch, sizeof(ch), 1, f), 1);
		assert_int_equal(fwrite(s->w + at, 8, n, f), n);
		at += n;
		if (n == 0)
			break;
	}
	if (s->cut) {
		struct psc_chunk_header ch = {PSC_CHUNK_MAGIC, (uint32_t)((s->n - s->cut) * 8 + 64),
					      seq};

		assert_int_equal(fwrite(&ch, sizeof(ch), 1, f), 1);
		assert_int_equal(fwrite(s->w + s->cut, 8, s->n - s->cut, f), s->n - s->cut);
	}
	assert_int_equal(fclose(f), 0);
}

/* ---- whole jobs and their models -------------------------------------------------------- */

#include "model/experiment-open.h"
#include "analysis/mpi/mpi-model.h"

#define MS 1000000ull /* ns */
#define US 1000ull

/* A job of up to 8 ranks, one process each (pid 1000 + rank, main thread tid = pid). */
struct job {
	int world;
	struct mstream s[8];
};

static inline void job_begin(struct job *j, int world, uint64_t t)
{
	memset(j, 0, sizeof(*j));
	j->world = world;
	for (int r = 0; r < world; r++) {
		ms_begin(&j->s[r], t, r, world);
		ms_clock(&j->s[r], t + 1000, PSC_MPI_CLOCK_INIT, (int64_t)t + 1000, 0, 500);
	}
}

/* Write the ranks in WRITE (bit r: rank r) and release the streams. */
static inline void job_write(struct job *j, const char *dir, unsigned write)
{
	write_text(dir, "meta.json", "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	for (int r = 0; r < j->world; r++) {
		if (write & (1u << r)) {
			write_mpi_proc(dir, 1000 + r, r, 0);
			write_mpi_stream(dir, 1000 + r, 1000 + r, &j->s[r], 4096);
		}
		free(j->s[r].w);
	}
}

static inline void load(const char *dir, struct experiment *e, struct mpi_model *m, unsigned flags)
{
	char err[512] = "";

	if (experiment_open(e, dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	mpi_model_init(m);
	if (mpi_model_load(m, e, flags, err, sizeof(err)))
		fail_msg("mpi_model_load: %s", err);
}

static inline void done(struct experiment *e, struct mpi_model *m)
{
	mpi_model_release(m);
	experiment_release(e);
}

/* The K-th call (0 = MPI_Init) of RANK's first thread. */
static inline uint32_t call_of(const struct mpi_model *m, int rank, uint32_t k)
{
	const struct mpi_loc *l = &m->locs[m->ranks[rank].first_loc];

	assert_true(k < l->ncalls);
	return l->first_call + k;
}

/* The message sent by call SEND_CALL (its first send item). */
static inline const struct mpi_message *msg_of(const struct mpi_model *m, uint32_t send_call)
{
	for (size_t i = 0; i < m->nmsgs; i++)
		if (m->msgs[i].send_call == send_call)
			return &m->msgs[i];
	fail_msg("no message sent by call %u", send_call);
	return NULL;
}

static inline int has_warning(const struct mpi_model *m, const char *part)
{
	for (size_t i = 0; i < m->nwarnings; i++)
		if (strstr(m->warnings[i], part))
			return 1;
	return 0;
}

static inline void print_warnings(const struct mpi_model *m)
{
	for (size_t i = 0; i < m->nwarnings; i++)
		print_message("warning: %s\n", m->warnings[i]);
}

/* Every location's events in order: enter <= leave <= next enter. */
static inline void assert_ordered(const struct mpi_model *m)
{
	for (size_t l = 0; l < m->nlocs; l++)
		for (uint32_t c = m->locs[l].first_call;
		     c < m->locs[l].first_call + m->locs[l].ncalls; c++) {
			assert_true(m->calls[c].enter_ns <= m->calls[c].leave_ns);
			if (c + 1 < m->locs[l].first_call + m->locs[l].ncalls)
				assert_true(m->calls[c].leave_ns <= m->calls[c + 1].enter_ns);
		}
}

static inline void finalize(struct mstream *s, uint64_t t)
{
	ms_call1(s, t, t + 1000, MPI_ROUTINE_Finalize, NULL);
	ms_end(s, t + 1000);
}
#endif /* PSC_TEST_SYNTH_MPI_H */
