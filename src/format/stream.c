/* stream.c - validating stream reader. */
#include "format/stream-int.h"

#include "pmu/clock.h"
#include "format/mpi-routines.h"
#include "lib/array.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Linux's PID_MAX_LIMIT: no pid or tid is larger. */
#define PID_LIMIT (1u << 22)

/* The header's fields of a file of FILE_SIZE bytes, checked in file order: 0 or a message at
 * the field's offset. */
static int check_header(const struct psc_stream_header *h, uint64_t file_size, const char *path,
			char *err, size_t errlen)
{

	if (memcmp(h->magic, PSC_STREAM_MAGIC, 8))
		return stream_fail(err, errlen, -EINVAL, path, 0,
				   "not a perfscope stream (bad magic)");
	if (h->version < PSC_STREAM_VERSION_MIN || h->version > PSC_STREAM_VERSION)
		return stream_fail(err, errlen, -EINVAL, path, 8,
				   "format version %u, this perfscope reads %d to %d", h->version,
				   PSC_STREAM_VERSION_MIN, PSC_STREAM_VERSION);
	if (h->version == PSC_STREAM_VERSION_SAMPLES && !(h->features & PSC_FEAT_SAMPLES))
		return stream_fail(
		    err, errlen, -EINVAL, path, 8,
		    "format version %u is a samples file's, the header says it is none",
		    h->version);
	if (h->header_size < sizeof(*h) || h->header_size % 8 || h->header_size > file_size)
		return stream_fail(err, errlen, -EINVAL, path, 12, "bad header size %u",
				   h->header_size);
	if (h->pid == 0 || h->pid > PID_LIMIT)
		return stream_fail(err, errlen, -EINVAL, path, 24, "bad pid %u", h->pid);
	if ((h->tid == 0 && !(h->features & PSC_FEAT_SAMPLES)) || h->tid > PID_LIMIT)
		return stream_fail(err, errlen, -EINVAL, path, 28, "bad tid %u", h->tid);
	if (h->rank < -1)
		return stream_fail(err, errlen, -EINVAL, path, 32, "bad rank %d", h->rank);
	if (h->clock_source < CLOCK_SOURCE_MONOTONIC || h->clock_source > CLOCK_SOURCE_CNTVCT)
		return stream_fail(err, errlen, -EINVAL, path, 36, "unknown clock source %u",
				   h->clock_source);
	/* the process's start pair: ticks fit a record's 62 bits, ns a signed time */
	if (h->start_ticks >> 62)
		return stream_fail(err, errlen, -EINVAL, path, 40,
				   "start ticks %" PRIu64 " past a record's 2^62", h->start_ticks);
	if (h->start_ns >> 63)
		return stream_fail(err, errlen, -EINVAL, path, 48,
				   "start time %" PRIu64 " ns past 2^63", h->start_ns);
	if (h->nevents > PSC_REC_MAX_WORDS - 2)
		return stream_fail(err, errlen, -EINVAL, path, 56, "bad number of events %u",
				   h->nevents);
	return 0;
}

int stream_open(struct stream_reader *r, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	r->path = strdup(path);
	if (!r->path || fstat(r->fd, &st) < 0) {
		stream_close(r);
		snprintf(err, errlen, "%s: cannot read", path);
		return -EIO;
	}
	if (!S_ISREG(st.st_mode)) {
		stream_close(r);
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	r->file_size = (uint64_t)st.st_size;
	ret = stream_read_at(r->fd, &r->hdr, sizeof(r->hdr), 0);
	if (ret < 0) {
		stream_close(r);
		return stream_fail(err, errlen, ret, path, 0, "read error: %s", strerror(-ret));
	}
	if (ret == 0) {
		uint64_t size = r->file_size;

		stream_close(r);
		return stream_fail(err, errlen, -EINVAL, path, 0,
				   "file shorter than the %zu-byte header (%" PRIu64 " bytes)",
				   sizeof(r->hdr), size);
	}
	ret = check_header(&r->hdr, r->file_size, path, err, errlen);
	if (ret) {
		stream_close(r);
		return ret;
	}
	r->offset = r->hdr.header_size;
	r->last_ticks = 0;
	return 0;
}

int stream_read_header(const char *path, struct psc_stream_header *h, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ret;
	struct stat st;

	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	ret = stream_read_at(fd, h, sizeof(*h), 0);
	close(fd);
	if (ret < 0)
		return stream_fail(err, errlen, ret, path, 0, "read error: %s", strerror(-ret));
	if (ret == 0)
		return stream_fail(err, errlen, -EINVAL, path, 0,
				   "file shorter than the %zu-byte header (%" PRIu64 " bytes)",
				   sizeof(*h), (uint64_t)st.st_size);
	return check_header(h, (uint64_t)st.st_size, path, err, errlen);
}

static int known_type(enum psc_rec_type t)
{
	return t >= PSC_REC_REGION_DEF && t <= PSC_REC_OMP_TASK_END;
}

static const char *type_name(enum psc_rec_type t)
{
	static const char *const names[] = {
	    [PSC_REC_REGION_DEF] = "region definition",
	    [PSC_REC_REGION_ENTER] = "region enter",
	    [PSC_REC_REGION_LEAVE] = "region leave",
	    [PSC_REC_CLOCK_SYNC] = "clock-sync",
	    [PSC_REC_COUNTERS] = "counters",
	    [PSC_REC_LOST] = "lost",
	    [PSC_REC_STREAM_END] = "stream end",
	    [PSC_REC_THREAD_NAME] = "thread name",
	    [PSC_REC_SAMPLE_GROUP] = "sample group",
	    [PSC_REC_SAMPLE] = "sample",
	    [PSC_REC_TASK] = "task",
	    [PSC_REC_THROTTLE] = "throttle",
	    [PSC_REC_SAMPLE_TOTALS] = "sample totals",
	    [PSC_REC_MPI_INIT] = "MPI init",
	    [PSC_REC_MPI_ENTER] = "MPI enter",
	    [PSC_REC_MPI_LEAVE] = "MPI leave",
	    [PSC_REC_MPI_COMM] = "MPI communicator",
	    [PSC_REC_MPI_CLOCK] = "MPI clock",
	    [PSC_REC_SWITCH] = "switch",
	    [PSC_REC_UNWIND] = "unwind",
	    [PSC_REC_OMP_PARALLEL_BEGIN] = "OpenMP parallel begin",
	    [PSC_REC_OMP_PARALLEL_END] = "OpenMP parallel end",
	    [PSC_REC_OMP_ITASK_BEGIN] = "OpenMP implicit task begin",
	    [PSC_REC_OMP_ITASK_END] = "OpenMP implicit task end",
	    [PSC_REC_OMP_SYNC_ENTER] = "OpenMP wait begin",
	    [PSC_REC_OMP_SYNC_LEAVE] = "OpenMP wait end",
	    [PSC_REC_OMP_WORK] = "OpenMP worksharing",
	    [PSC_REC_OMP_TASK_CREATE] = "OpenMP task create",
	    [PSC_REC_OMP_TASK_BEGIN] = "OpenMP task begin",
	    [PSC_REC_OMP_TASK_END] = "OpenMP task end",
	};

	return known_type(t) ? names[t] : "unknown";
}

/* Index where ID is, or where it would be inserted, in the sorted defined ids. */
static size_t region_slot(const struct stream_reader *r, uint32_t id)
{
	size_t lo = 0, hi = r->nregion_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->region_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int region_defined(const struct stream_reader *r, uint32_t id)
{
	size_t k = region_slot(r, id);

	return k < r->nregion_ids && r->region_ids[k] == id;
}

static int region_define(struct stream_reader *r, uint32_t id)
{
	size_t k = region_slot(r, id);

	if (k < r->nregion_ids && r->region_ids[k] == id)
		return 0;
	if (ARRAY_GROW(r->region_ids, r->nregion_ids + 1, r->region_ids_cap))
		return -ENOMEM;
	memmove(r->region_ids + k + 1, r->region_ids + k,
		(r->nregion_ids - k) * sizeof(*r->region_ids));
	r->region_ids[k] = id;
	r->nregion_ids++;
	return 0;
}

/* Remember the snapshot layout of a counters record: members per group. */
static int counters_layout(struct stream_reader *r, const struct stream_record *rec, uint64_t at,
			   char *err, size_t errlen)
{
	size_t ngroups = 0;
	uint32_t *nr;

	for (size_t i = 0; i < rec->npayload; i++) {
		uint32_t g = (uint32_t)rec->payload[i];

		if (g == PSC_NO_GROUP)
			continue;
		if (g >= rec->npayload)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 16 + 8 * i,
					   "event %zu: group %u of %zu events", i, g,
					   rec->npayload);
		if (g + 1 > ngroups)
			ngroups = g + 1;
	}
	nr = calloc(ngroups + 1, sizeof(*nr));
	if (!nr)
		return stream_fail(err, errlen, -ENOMEM, r->path, at, "out of memory");
	for (size_t i = 0; i < rec->npayload; i++)
		if ((uint32_t)rec->payload[i] != PSC_NO_GROUP)
			nr[(uint32_t)rec->payload[i]]++;
	free(r->group_nr);
	r->group_nr = nr;
	r->ngroups = ngroups;
	r->have_layout = 1;
	return 0;
}

/*
 * A counter snapshot: groups of nr, enabled, running, nr values that fill the payload exactly,
 * with the members of the counters record's layout once it is known. Empty is allowed.
 */
static int check_snapshot(const struct stream_reader *r, const struct stream_record *rec,
			  uint64_t at, char *err, size_t errlen)
{
	size_t pos = 0, g = 0;

	if (rec->npayload == 0)
		return 0;
	while (pos < rec->npayload) {
		uint64_t nr = rec->payload[pos];

		if (r->have_layout && g >= r->ngroups)
			return stream_fail(
			    err, errlen, -EINVAL, r->path, at + 16 + 8 * pos,
			    "counter snapshot has more than the %zu groups of the counters "
			    "record",
			    r->ngroups);
		if (r->have_layout && nr != r->group_nr[g])
			return stream_fail(err, errlen, -EINVAL, r->path, at + 16 + 8 * pos,
					   "counter group %zu has %" PRIu64
					   " members, the counters record "
					   "%u",
					   g, nr, r->group_nr[g]);
		if (!r->have_layout && nr == 0)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 16 + 8 * pos,
					   "counter group %zu has no members", g);
		if (nr > rec->npayload - pos || rec->npayload - pos - nr < 3)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 16 + 8 * pos,
					   "counter group %zu overruns its record", g);
		pos += 3 + nr;
		g++;
	}
	if (r->have_layout && g != r->ngroups)
		return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
				   "counter snapshot of %zu groups, the counters record has %zu", g,
				   r->ngroups);
	return 0;
}

/* A NUL-terminated text filling the payload (names). */
static int check_text(const struct stream_reader *r, const struct stream_record *rec, uint64_t at,
		      char *err, size_t errlen)
{
	if (rec->npayload == 0 || !memchr(rec->payload, 0, rec->npayload * 8))
		return stream_fail(err, errlen, -EINVAL, r->path, rec->npayload ? at + 16 : at + 8,
				   "%s record without a NUL-terminated name", type_name(rec->type));
	return 0;
}

/* A sample group definition: its members are events of the file, its index is new. */
static int sample_group_define(struct stream_reader *r, const struct stream_record *rec,
			       uint64_t at, char *err, size_t errlen)
{
	uint32_t *n;

	if (rec->arg >= r->hdr.nevents || rec->npayload == 0 || rec->npayload > r->hdr.nevents)
		return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
				   "sample group %u of %zu members in a file of %u events",
				   rec->arg, rec->npayload, r->hdr.nevents);
	for (size_t i = 0; i < rec->npayload; i++)
		if (rec->payload[i] >= r->hdr.nevents)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 16 + 8 * i,
					   "sample group member %" PRIu64 " of %u events",
					   rec->payload[i], r->hdr.nevents);
	if (!r->sample_group_n) {
		r->sample_group_n = calloc(r->hdr.nevents, sizeof(*n));
		if (!r->sample_group_n)
			return stream_fail(err, errlen, -ENOMEM, r->path, at, "out of memory");
	}
	if (r->sample_group_n[rec->arg])
		return stream_fail(err, errlen, -EINVAL, r->path, at + 12,
				   "sample group %u defined twice", rec->arg);
	r->sample_group_n[rec->arg] = (uint32_t)rec->npayload;
	return 0;
}

/* The records only a samples file holds (format.h, PSC_REC_SAMPLE_GROUP and after). */
static int check_sample_payload(struct stream_reader *r, const struct stream_record *rec,
				uint64_t at, char *err, size_t errlen)
{
	const uint64_t *p = rec->payload;
	uint64_t nr, nchain;

	if (!(r->hdr.features & PSC_FEAT_SAMPLES))
		return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
				   "%s record outside a samples file", type_name(rec->type));
	switch (rec->type) {
	case PSC_REC_SAMPLE_GROUP:
		return sample_group_define(r, rec, at, err, errlen);
	case PSC_REC_SAMPLE:
		if (rec->arg >= r->hdr.nevents || !r->sample_group_n ||
		    !r->sample_group_n[rec->arg])
			return stream_fail(err, errlen, -EINVAL, r->path, at + 12,
					   "sample of group %u, never defined before", rec->arg);
		if (rec->npayload < 6 || p[3] != r->sample_group_n[rec->arg])
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "sample of group %u does not hold its %u values",
					   rec->arg, r->sample_group_n[rec->arg]);
		nr = p[3];
		nchain = p[2] >> 32;
		if (rec->npayload != 6 + nr + nchain)
			return stream_fail(
			    err, errlen, -EINVAL, r->path, at + 8,
			    "sample of %zu words, its values and call chain need %" PRIu64,
			    rec->npayload + 2, 8 + nr + nchain);
		return 0;
	case PSC_REC_TASK:
		if (rec->arg == PSC_TASK_FORK || rec->arg == PSC_TASK_EXIT) {
			if (rec->npayload == 2)
				return 0;
		} else if (rec->arg == PSC_TASK_COMM || rec->arg == PSC_TASK_EXEC) {
			if (rec->npayload >= 2 && memchr(p + 1, 0, (rec->npayload - 1) * 8))
				return 0;
		} else {
			return stream_fail(err, errlen, -EINVAL, r->path, at + 12,
					   "unknown task event %u", rec->arg);
		}
		return stream_fail(err, errlen, -EINVAL, r->path, at + 8, "malformed task record");
	case PSC_REC_THROTTLE:
		if (rec->arg > 1 || rec->npayload != 1)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "malformed throttle record");
		return 0;
	case PSC_REC_SWITCH:
		if (rec->arg >> 16 > (PSC_SWITCH_OUT | PSC_SWITCH_PREEMPT) || rec->npayload != 1)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "malformed switch record");
		return 0;
	default: /* PSC_REC_SAMPLE_TOTALS */
		if (rec->arg != r->hdr.nevents || rec->npayload != 3 * (size_t)rec->arg)
			return stream_fail(
			    err, errlen, -EINVAL, r->path, at + 8,
			    "totals of %u events in %zu words for a file of %u events", rec->arg,
			    rec->npayload, r->hdr.nevents);
		return 0;
	}
}

/* MPI records (docs/format.md "MPI records"): routine ids in range, whole items of known
 * kinds, a communicator's members all present. */
static int check_mpi_payload(struct stream_reader *r, const struct stream_record *rec, uint64_t at,
			     char *err, size_t errlen)
{
	const uint64_t *p = rec->payload;
	size_t i;

	switch (rec->type) {
	case PSC_REC_MPI_INIT:
		if (rec->npayload != 2 || rec->arg > INT32_MAX || p[0] <= rec->arg ||
		    p[0] > INT32_MAX)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "MPI init record: rank %u of a world of %" PRIu64,
					   rec->arg, rec->npayload ? p[0] : 0);
		return 0;
	case PSC_REC_MPI_ENTER:
	case PSC_REC_MPI_LEAVE:
		switch (mpi_call_check(rec->type, rec->arg, p, rec->npayload, &i)) {
		case MPI_CALL_BAD_ROUTINE:
			return stream_fail(err, errlen, -EINVAL, r->path, at + 12,
					   "unknown MPI routine id %u", rec->arg);
		case MPI_CALL_BAD_LENGTH:
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "%s record of %zu words", type_name(rec->type),
					   rec->npayload + 2);
		case MPI_CALL_BAD_ITEM:
			return stream_fail(err, errlen, -EINVAL, r->path, at + 16 + i * 8,
					   "unknown MPI item kind %u", (unsigned)(p[i] & 0xffu));
		default:
			return 0;
		}
	case PSC_REC_MPI_COMM:
		if (rec->npayload < 2 || p[1] == 0 || p[1] > INT32_MAX ||
		    rec->npayload != 2 + (p[1] + 1) / 2)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "MPI communicator record of %zu words for %" PRIu64
					   " members",
					   rec->npayload + 2, rec->npayload >= 2 ? p[1] : 0);
		return 0;
	default: /* PSC_REC_MPI_CLOCK */
		if (rec->arg > PSC_MPI_CLOCK_FINALIZE || rec->npayload != 3)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "malformed MPI clock record");
		return 0;
	}
}

/* The payload's length in words of an OpenMP record of type T (format.h). */
static size_t omp_payload_words(enum psc_rec_type t)
{
	switch (t) {
	case PSC_REC_OMP_PARALLEL_BEGIN:
	case PSC_REC_OMP_WORK:
		return 4;
	case PSC_REC_OMP_ITASK_BEGIN:
	case PSC_REC_OMP_SYNC_ENTER:
	case PSC_REC_OMP_TASK_CREATE:
		return 2;
	case PSC_REC_OMP_SYNC_LEAVE:
		return 0;
	default: /* PARALLEL_END, ITASK_END, TASK_BEGIN, TASK_END */
		return 1;
	}
}

/* The payload of an extended record against its type (docs/format.md, "Records"). */
static int check_payload(struct stream_reader *r, const struct stream_record *rec, uint64_t at,
			 char *err, size_t errlen)
{
	size_t want = 0;

	switch (rec->type) {
	case PSC_REC_REGION_DEF:
		if (check_text(r, rec, at, err, errlen))
			return -EINVAL;
		if (rec->arg >= PSC_REGION_ID_MAX)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "region id %u out of range (ids are below %u)", rec->arg,
					   PSC_REGION_ID_MAX);
		return region_define(r, rec->arg)
			   ? stream_fail(err, errlen, -ENOMEM, r->path, at, "out of memory")
			   : 0;
	case PSC_REC_REGION_ENTER:
	case PSC_REC_REGION_LEAVE:
		if (!region_defined(r, rec->arg))
			return stream_fail(err, errlen, -EINVAL, r->path, at,
					   "%s of region id %u, never defined before",
					   type_name(rec->type), rec->arg);
		return check_snapshot(r, rec, at, err, errlen);
	case PSC_REC_COUNTERS:
		if (rec->npayload != rec->arg)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "counters record of %zu words for %u events",
					   rec->npayload + 2, rec->arg);
		return counters_layout(r, rec, at, err, errlen);
	case PSC_REC_THREAD_NAME:
		return check_text(r, rec, at, err, errlen);
	case PSC_REC_CLOCK_SYNC:
		if (rec->npayload == 1 && rec->payload[0] < r->last_sync_ns)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 16,
					   "clock-sync ns %" PRIu64
					   " before the previous one's %" PRIu64,
					   rec->payload[0], r->last_sync_ns);
		if (rec->npayload == 1)
			r->last_sync_ns = rec->payload[0];
		want = 1;
		break;
	case PSC_REC_LOST:
		want = 2;
		break;
	case PSC_REC_SAMPLE_GROUP:
	case PSC_REC_SAMPLE:
	case PSC_REC_TASK:
	case PSC_REC_THROTTLE:
	case PSC_REC_SAMPLE_TOTALS:
	case PSC_REC_SWITCH:
		return check_sample_payload(r, rec, at, err, errlen);
	case PSC_REC_MPI_INIT:
	case PSC_REC_MPI_ENTER:
	case PSC_REC_MPI_LEAVE:
	case PSC_REC_MPI_COMM:
	case PSC_REC_MPI_CLOCK:
		return check_mpi_payload(r, rec, at, err, errlen);
	case PSC_REC_STREAM_END:
		if ((rec->arg & 0xffu) < PSC_END_EXIT || (rec->arg & 0xffu) > PSC_END_UNCLOSED)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 12,
					   "unknown end reason %u", rec->arg & 0xffu);
		break;
	case PSC_REC_UNWIND:
		break;
	default: /* OpenMP */
		want = omp_payload_words(rec->type);
		break;
	}
	if (rec->npayload != want)
		return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
				   "%s record of %zu words, expected %zu", type_name(rec->type),
				   rec->npayload + 2, want + 2);
	return 0;
}

int stream_next(struct stream_reader *r, struct stream_record *rec, char *err, size_t errlen)
{
	uint64_t w0, w1, at;
	size_t nwords;
	int ret;

	while (r->pos >= r->chunk_words) {
		if (r->ended && r->offset < r->file_size)
			return stream_fail(err, errlen, -EINVAL, r->path, r->offset,
					   "data after the end record");
		if (r->ended)
			return 0;
		ret = stream_load_chunk(r, err, errlen);
		if (ret <= 0)
			return ret;
	}
	at = stream_record_offset(r);
	if (r->ended)
		return stream_fail(err, errlen, -EINVAL, r->path, at,
				   "records after the end record");
	if (r->pos + 2 > r->chunk_words)
		return stream_fail(err, errlen, -EINVAL, r->path, at, "record overruns its chunk");
	w0 = r->chunk[r->pos];
	w1 = r->chunk[r->pos + 1];
	*rec = (struct stream_record){
	    .kind = psc_rec_kind(w0), .ticks = psc_rec_ticks(w0), .offset = at};
	nwords = 2;
	switch (rec->kind) {
	case PSC_KIND_FUNC_ENTER:
	case PSC_KIND_FUNC_EXIT:
		rec->addr = w1;
		break;
	case PSC_KIND_EXT:
		rec->type = psc_rec_type(w1);
		rec->arg = psc_rec_arg(w1);
		nwords = psc_rec_nwords(w1);
		if (!known_type(rec->type))
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "unknown record type %u", rec->type);
		if (nwords < 2 || r->pos + nwords > r->chunk_words)
			return stream_fail(err, errlen, -EINVAL, r->path, at + 8,
					   "record length %zu words overruns its chunk", nwords);
		rec->payload = r->chunk + r->pos + 2;
		rec->npayload = nwords - 2;
		break;
	default:
		return stream_fail(err, errlen, -EINVAL, r->path, at, "reserved record kind 3");
	}
	if (rec->ticks < r->last_ticks)
		return stream_fail(err, errlen, -EINVAL, r->path, at, "time goes backwards");
	if (rec->kind == PSC_KIND_EXT) {
		ret = check_payload(r, rec, at, err, errlen);
		if (ret)
			return ret;
	}
	if (!r->nrecords++)
		r->first_ticks = rec->ticks;
	r->last_ticks = rec->ticks;
	if (rec->kind == PSC_KIND_EXT && rec->type == PSC_REC_STREAM_END) {
		r->ended = 1;
		r->end_reason = rec->arg;
	}
	r->pos += nwords;
	return 1;
}

/* Whether the records of the plain chunk of SIZE bytes at AT (header included) end with an
 * end record: 1, 0, or -1 when they cannot be walked (the full pass says why). */
static int chunk_ends(const struct stream_reader *r, uint64_t at, uint32_t size)
{
	uint64_t *w = malloc(size ? size : 8);
	size_t n = size / 8, pos = 0, last = SIZE_MAX;
	int ret = -1;

	if (!w || stream_read_at(r->fd, w, size, at + sizeof(struct psc_chunk_header)) <= 0) {
		free(w);
		return -1;
	}
	while (pos + 2 <= n) {
		size_t len = psc_rec_kind(w[pos]) == PSC_KIND_EXT ? psc_rec_nwords(w[pos + 1]) : 2;

		if (len < 2 || len > n - pos)
			break;
		last = pos;
		pos += len;
	}
	if (pos == n && last != SIZE_MAX)
		ret = psc_rec_kind(w[last]) == PSC_KIND_EXT &&
		      psc_rec_type(w[last + 1]) == PSC_REC_STREAM_END;
	free(w);
	return ret;
}

int stream_scan(const char *path, void (*fn)(void *ctx, uint64_t ticks, uint64_t ns), void *ctx,
		struct stream_extent *x, char *err, size_t errlen)
{
	struct stream_reader r;
	struct stream_extent ext = {0};
	uint64_t last_at = 0, seq = 0;
	uint32_t last_size = 0;
	int last_plain = 0, want_end = x && x->want_end;
	int ret = stream_open(&r, path, err, errlen);

	if (x) {
		memset(x, 0, sizeof(*x));
		x->want_end = want_end;
	}
	if (ret)
		return ret;
	ext.size = r.file_size;
	ext.ended = -1;
	for (uint64_t at = r.offset; at < r.file_size;) {
		struct psc_chunk_header ch;
		uint64_t rec[3];

		/* the cuts and defects as stream_load_chunk sees them */
		if (at + sizeof(ch) > r.file_size) {
			ext.cut_at = at;
			break;
		}
		if (stream_read_at(r.fd, &ch, sizeof(ch), at) <= 0 ||
		    (ch.magic != PSC_CHUNK_MAGIC &&
		     (ch.magic != PSC_CHUNK_MAGIC_LZ4 || r.hdr.version < 2)) ||
		    ch.size % 8 || ch.seq != seq) {
			ext.defect = 1; /* the full pass reports defects precisely */
			break;
		}
		if (at + sizeof(ch) + ch.size > r.file_size) {
			ext.cut_at = at;
			break;
		}
		if (fn && ch.size >= sizeof(rec) &&
		    stream_read_at(r.fd, rec, sizeof(rec), at + sizeof(ch)) > 0 &&
		    psc_rec_kind(rec[0]) == PSC_KIND_EXT &&
		    psc_rec_type(rec[1]) == PSC_REC_CLOCK_SYNC && psc_rec_nwords(rec[1]) == 3)
			fn(ctx, psc_rec_ticks(rec[0]), rec[2]);
		last_at = at;
		last_size = ch.size;
		last_plain = ch.magic == PSC_CHUNK_MAGIC;
		ext.chunks++;
		seq++;
		at += sizeof(ch) + ch.size;
	}
	if (want_end && ext.chunks && last_plain && !ext.defect)
		ext.ended = chunk_ends(&r, last_at, last_size);
	ext.want_end = want_end;
	if (x)
		*x = ext;
	stream_close(&r);
	return 0;
}

int stream_scan_clock(const char *path, void (*fn)(void *ctx, uint64_t ticks, uint64_t ns),
		      void *ctx, char *err, size_t errlen)
{
	return stream_scan(path, fn, ctx, NULL, err, errlen);
}

int stream_counters_layout(const char *path, uint32_t nevents, uint32_t *group_of, int32_t *status)
{
	struct stream_reader r;
	struct stream_record rec;
	char err[256];
	int ret;

	if (nevents == 0 || stream_open(&r, path, err, sizeof(err)) < 0)
		return 0;
	stream_set_prefetch(&r, STREAM_PREFETCH_OFF); /* one record, near the start */
	while ((ret = stream_next(&r, &rec, err, sizeof(err))) > 0)
		if (rec.kind == PSC_KIND_EXT && rec.type == PSC_REC_COUNTERS)
			break;
	ret = ret > 0 && rec.arg == nevents && rec.npayload >= nevents;
	for (uint32_t i = 0; ret && i < nevents; i++) {
		group_of[i] = (uint32_t)rec.payload[i];
		if (status)
			status[i] = (int32_t)(uint32_t)(rec.payload[i] >> 32);
	}
	stream_close(&r);
	return ret;
}

void stream_close(struct stream_reader *r)
{
	stream_prefetch_stop(r);
	if (r->fd >= 0)
		close(r->fd);
	free(r->chunk);
	free(r->zbuf);
	free(r->path);
	free(r->region_ids);
	free(r->sample_group_n);
	free(r->group_nr);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

const char *stream_record_name(const struct stream_record *rec)
{
	static const char *const names[] = {
	    [PSC_REC_REGION_DEF] = "region-def",
	    [PSC_REC_REGION_ENTER] = "region-enter",
	    [PSC_REC_REGION_LEAVE] = "region-leave",
	    [PSC_REC_CLOCK_SYNC] = "clock-sync",
	    [PSC_REC_COUNTERS] = "counters",
	    [PSC_REC_LOST] = "lost",
	    [PSC_REC_STREAM_END] = "end",
	    [PSC_REC_THREAD_NAME] = "thread-name",
	    [PSC_REC_SAMPLE_GROUP] = "sample-group",
	    [PSC_REC_SAMPLE] = "sample",
	    [PSC_REC_TASK] = "task",
	    [PSC_REC_THROTTLE] = "throttle",
	    [PSC_REC_SAMPLE_TOTALS] = "totals",
	    [PSC_REC_MPI_INIT] = "mpi-init",
	    [PSC_REC_MPI_ENTER] = "mpi-enter",
	    [PSC_REC_MPI_LEAVE] = "mpi-leave",
	    [PSC_REC_MPI_COMM] = "mpi-comm",
	    [PSC_REC_MPI_CLOCK] = "mpi-clock",
	    [PSC_REC_SWITCH] = "switch",
	    [PSC_REC_UNWIND] = "unwind",
	    [PSC_REC_OMP_PARALLEL_BEGIN] = "omp-parallel-begin",
	    [PSC_REC_OMP_PARALLEL_END] = "omp-parallel-end",
	    [PSC_REC_OMP_ITASK_BEGIN] = "omp-itask-begin",
	    [PSC_REC_OMP_ITASK_END] = "omp-itask-end",
	    [PSC_REC_OMP_SYNC_ENTER] = "omp-sync-enter",
	    [PSC_REC_OMP_SYNC_LEAVE] = "omp-sync-leave",
	    [PSC_REC_OMP_WORK] = "omp-work",
	    [PSC_REC_OMP_TASK_CREATE] = "omp-task-create",
	    [PSC_REC_OMP_TASK_BEGIN] = "omp-task-begin",
	    [PSC_REC_OMP_TASK_END] = "omp-task-end",
	};

	if (rec->kind == PSC_KIND_FUNC_ENTER)
		return "func-enter";
	if (rec->kind == PSC_KIND_FUNC_EXIT)
		return "func-exit";
	return rec->kind == PSC_KIND_EXT && known_type(rec->type) ? names[rec->type] : "unknown";
}

const char *stream_end_reason_name(unsigned arg)
{
	switch (arg & 0xffu) {
	case PSC_END_EXIT:
		return "exit";
	case PSC_END_THREAD_EXIT:
		return "thread exit";
	case PSC_END_EXEC:
		return "exec";
	case PSC_END_SIGNAL:
		return "signal";
	case PSC_END_UNCLOSED:
		return "unclosed";
	default:
		return "unknown";
	}
}
