/* session.c - start, fork and exit of recording inside the measured process. */
#include "runtime/session.h"

#include "pmu/cpuinfo.h"
#include "format/filter.h"
#include "format/env.h"
#include "format/format.h"
#include "lib/jsonw.h"
#include "format/layout.h"
#include "format/meta.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct psc_session psc_session = {.lock = PTHREAD_MUTEX_INITIALIZER, .rank = -1};

/* Write TEXT as F (meta.json or a proc file) in the experiment: aside and renamed, so a reader
 * never sees half a file; EXCLUSIVE: only when F does not exist yet (-EEXIST otherwise). */
static int write_file(const struct layout_file *f, const char *text, size_t len, int exclusive)
{
	struct layout_file t = layout_tmp(f, (int)getpid());
	char name[NAME_MAX + 1], tmp[NAME_MAX + 1];
	int fd, ret;

	ret = layout_name(f, name, sizeof(name));
	if (ret >= 0)
		ret = layout_name(&t, tmp, sizeof(tmp));
	if (ret < 0)
		return ret;
	fd = rt_open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd == -EEXIST && rt_unlink(tmp) == 0) /* left by a killed process of this pid */
		fd = rt_open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return fd;
	ret = rt_write_all(fd, text, len);
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0)
		ret = rt_rename(tmp, name, exclusive);
	rt_unlink(tmp);
	return ret;
}

/* /proc/self/cmdline as a JSON array. */
static void json_cmdline(struct jsonw *w)
{
	char buf[8192];
	ssize_t n = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	jsonw_array_begin(w);
	if (n > 0) {
		buf[n] = 0;
		for (char *p = buf; p < buf + n; p += strlen(p) + 1)
			jsonw_string(w, p);
	}
	jsonw_array_end(w);
}

static void json_events(struct jsonw *w)
{
	jsonw_array_begin(w);
	for (size_t i = 0; i < psc_session.nevents; i++) {
		const struct event_desc *ev = &psc_session.events[i];

		jsonw_object_begin(w);
		jsonw_kv_string(w, "name", ev->name);
		jsonw_kv_string(w, "canonical", ev->canonical);
		jsonw_kv_u64(w, "type", ev->type);
		jsonw_kv_u64(w, "config", ev->config);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

/* A clock pair as two decimal strings: JSON readers would round numbers above 2^53. */
static void json_pair(struct jsonw *w, const struct clock_pair *p)
{
	char buf[24];

	jsonw_array_begin(w);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)p->ticks);
	jsonw_string(w, buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)p->ns);
	jsonw_string(w, buf);
	jsonw_array_end(w);
}

/* meta.json for an experiment started by the program itself (no `perfscope record`). */
static int meta_write(const struct cpu_info *ci)
{
	struct layout_file meta = {.kind = LAYOUT_META};
	struct jsonw w;
	int ret;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	meta_json_common(&w, ci, psc_session.clock, psc_session.start_unix_ns, "runtime");
	jsonw_key(&w, META_COMMAND);
	json_cmdline(&w);
	meta_json_events(&w, psc_session.events, psc_session.nevents);
	jsonw_object_end(&w);
	ret = jsonw_text(&w) ? write_file(&meta, w.buf, w.len, 1) : -ENOMEM;
	jsonw_release(&w);
	return ret == -EEXIST ? 0 : ret;
}

/* This process image's file of KIND (proc or maps). */
static struct layout_file image_file(enum layout_kind kind)
{
	return (struct layout_file){
	    .kind = kind, .pid = (int)psc_session.pid, .image = psc_session.image};
}

/*
 * Choose this image's number: the first N whose proc file does not exist yet, created empty
 * so that no other image takes it. A pid seen before in this directory is an exec'd image
 * (or a recycled pid): either way its files get names of their own. 0 or negative errno.
 */
static int proc_claim(void)
{
	char name[64];

	for (psc_session.image = 0; psc_session.image < 4096; psc_session.image++) {
		struct layout_file f = image_file(LAYOUT_PROC);
		int fd;

		layout_name(&f, name, sizeof(name));
		fd = rt_open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

/* The proc file is padded with blanks to this size (one file system block), so that it can be
 * rewritten in place when the disk is full. */
#define PROC_FILE_ROOM 4096

/*
 * Write TEXT as the proc file: aside and renamed, so a reader never sees half of it; when that
 * fails (a full disk has no block for the new file), over the old file in place, which needs
 * no new block as long as the text fits in the room it was given.
 */
static int proc_file_write(const char *text, size_t len)
{
	struct layout_file f = image_file(LAYOUT_PROC);
	char padded[PROC_FILE_ROOM], name[64];
	int ret, fd;

	if (len < sizeof(padded)) {
		memcpy(padded, text, len);
		memset(padded + len, ' ', sizeof(padded) - len);
		padded[sizeof(padded) - 1] = '\n';
		text = padded;
		len = sizeof(padded);
	}
	ret = write_file(&f, text, len, 0);
	if (ret == 0 || layout_name(&f, name, sizeof(name)) < 0)
		return ret;
	fd = rt_open(name, O_WRONLY, 0);
	if (fd < 0)
		return ret;
	if (pwrite(fd, text, len, 0) == (ssize_t)len)
		ret = 0;
	close(fd);
	return ret;
}

/* proc.<pid>[.<image>].json: this process's facts; rewritten at exit with the end calibration. */
static int proc_write(const char *state, const struct clock_pair *end_pair)
{
	char exe[PATH_MAX] = "", host[256] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct jsonw w;
	int ret;

	if (n > 0)
		exe[n] = 0;
	/* ranks of one run may be on several hosts: each process says where it ran */
	if (gethostname(host, sizeof(host) - 1))
		host[0] = 0;
	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_kv_u64(&w, PROC_VERSION, PSC_FORMAT_VERSION);
	jsonw_kv_i64(&w, PROC_PID, psc_session.pid);
	jsonw_kv_u64(&w, PROC_IMAGE, psc_session.image);
	jsonw_kv_i64(&w, PROC_PPID, getppid());
	jsonw_kv_i64(&w, PROC_RANK, psc_session.rank);
	jsonw_kv_i64(&w, PROC_WORLD_SIZE, psc_session.world_size);
	jsonw_kv_string(&w, PROC_EXE, exe);
	jsonw_kv_string(&w, PROC_HOST, host);
	jsonw_key(&w, PROC_CMDLINE);
	json_cmdline(&w);
	jsonw_kv_string(&w, PROC_STATE, state);
	jsonw_kv_string(&w, PROC_CLOCK, clock_source_name(psc_session.clock));
	jsonw_key(&w, PROC_CALIBRATION);
	jsonw_array_begin(&w);
	json_pair(&w, &psc_session.start_pair);
	if (end_pair)
		json_pair(&w, end_pair);
	jsonw_array_end(&w);
	jsonw_kv_u64(&w, PROC_START_UNIX_NS, psc_session.start_unix_ns);
	jsonw_kv_u64(&w, PROC_CHUNK_BYTES, psc_session.chunk_bytes);
	jsonw_key(&w, PROC_EVENTS);
	json_events(&w);
	jsonw_kv_i64(&w, PROC_PARANOID, psc_session.paranoid);
	jsonw_key(&w, PROC_HAVE_CORE_PMU);
	jsonw_bool(&w, psc_session.have_core_pmu);
	jsonw_kv_u64(&w, PROC_LOST_RECORDS, psc_session.lost_records);
	jsonw_kv_u64(&w, PROC_LOST_THREADS, psc_session.lost_threads);
	jsonw_kv_u64(&w, PROC_REGIONS_FOLDED, psc_session.regions_folded);
	jsonw_kv_u64(&w, PROC_REGION_NAMES_CUT, psc_session.region_names_cut);
	/* threads' buffers made so far (a thread that ended leaves its own to the next one),
	 * and of those the ones that could not be files, whose last chunk a kill would lose */
	jsonw_kv_u64(&w, PROC_BUFFERS, psc_session.nslots);
	jsonw_kv_u64(&w, PROC_BUFFERS_IN_MEMORY, psc_session.memory_slots);
	jsonw_kv_u64(&w, PROC_LOST_BYTES, psc_session.lost_bytes);
	jsonw_key(&w, PROC_FILTER);
	if (psc_session.filter_path[0])
		jsonw_string(&w, psc_session.filter_path);
	else
		jsonw_null(&w);
	jsonw_kv_string(&w, PROC_ERROR, psc_session.error);
	jsonw_object_end(&w);
	ret = jsonw_text(&w) ? proc_file_write(w.buf, w.len) : -ENOMEM;
	jsonw_release(&w);
	return ret;
}

void session_write_proc(const char *state)
{
	struct clock_pair end = clock_pair_take(psc_session.clock);

	proc_write(state, strcmp(state, "running") ? &end : NULL);
}

void session_fail(const char *what, int err)
{
	pthread_mutex_lock(&psc_session.lock);
	if (!psc_session.error[0])
		snprintf(psc_session.error, sizeof(psc_session.error), "%s: %s", what,
			 strerror(err));
	pthread_mutex_unlock(&psc_session.lock);
}

/* PSC_ENV_COMPRESS; auto when unset or not understood (the runtime cannot tell the user). */
static enum psc_compress compress_from_env(void)
{
	const char *s = getenv(PSC_ENV_COMPRESS);

	if (s && !strcmp(s, "always"))
		return PSC_COMPRESS_ALWAYS;
	if (s && !strcmp(s, "never"))
		return PSC_COMPRESS_NEVER;
	return PSC_COMPRESS_AUTO;
}

static size_t chunk_bytes_from_env(void)
{
	const char *s = getenv(PSC_ENV_BUFSIZE);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return 1u << 20;
	v = strtoull(s, &end, 10);
	if (*end == 'k' || *end == 'K')
		v <<= 10;
	else if (*end == 'm' || *end == 'M')
		v <<= 20;
	else if (*end == 'g' || *end == 'G')
		v <<= 30;
	if (v < (64u << 10))
		v = 64u << 10;
	if (v > (1ull << 30))
		v = 1ull << 30;
	return (size_t)v & ~(size_t)7;
}

static void events_from_env(void)
{
	const char *list = getenv(PSC_ENV_EVENTS);
	char bad[EVENT_NAME_MAX];
	int ret;

	if (!list || !*list)
		return;
	ret = event_list_resolve(list, &psc_session.events, &psc_session.nevents, bad, sizeof(bad));
	if (ret) {
		snprintf(psc_session.error, sizeof(psc_session.error),
			 "%s: %s event '%s'; regions recorded without counters", PSC_ENV_EVENTS,
			 ret == -ENOENT ? "unknown" : "invalid", bad);
		psc_session.events = NULL;
		psc_session.nevents = 0;
	}
}

/* PERFSCOPE_FILTER: record only the functions of a filter file. A file that cannot be read
 * records no function at all (the CLI checks the file before it runs anything). */
static void filter_from_env(void)
{
	const char *path = getenv(PSC_ENV_FILTER);
	struct psc_filter *spec = NULL, *table;
	size_t line;
	int ret;

	if (!path || !*path)
		return;
	snprintf(psc_session.filter_path, sizeof(psc_session.filter_path), "%s", path);
	ret = filter_load(path, &spec, &line);
	table = ret == 0 ? filter_resolve(spec) : NULL;
	if (!table) {
		static uintptr_t empty[16];
		static struct psc_filter none = {.slots = empty, .bits = 4};

		snprintf(psc_session.error, sizeof(psc_session.error),
			 "%s: %s at line %zu; no function recorded", path,
			 ret ? strerror(-ret) : "out of memory", line);
		psc_session.filter = &none;
		return;
	}
	psc_session.filter_spec = spec;
	psc_session.filter = table;
}

/* What the child needs of the thread that forks, read here, in that thread: once the fork
 * returns, the parent goes on changing its slot, which the child shares. */
static void fork_self_take(void)
{
	struct psc_thread *t = psc_tls_thread;

	psc_session.fork_self = t;
	psc_session.fork_frames = NULL;
	psc_session.fork_open = 0;
	if (t && !t->guard && !t->fover && t->frames != t->no_frames && t->ftop > t->frames + 1) {
		psc_session.fork_frames = t->frames;
		psc_session.fork_bytes = (size_t)(t->fend - t->frames) * sizeof(*t->frames);
		psc_session.fork_open = (uint32_t)(t->ftop - t->frames - 1);
	}
}

/* fork() in a recording process: the child's maps are the parent's now, so their object lines
 * are rendered here, where the loader's lock can be taken; the session lock is held across
 * the fork so that no other thread is rendering or writing them. A fork from a signal handler
 * that interrupted this thread while it held the lock does not wait for it for ever: after
 * 100 ms the child takes the lines rendered last. */
static void before_fork(void)
{
	const struct timespec pause = {0, 100 * 1000};
	int quiet = psc_tls_quiet;

	if (psc_session.state != SESSION_RECORDING)
		return;
	psc_tls_quiet = RT_QUIET_RUNTIME;
	for (int tries = 0; tries < 1000; tries++) {
		if (pthread_mutex_trylock(&psc_session.lock) == 0) {
			psc_session.fork_locked = 1;
			session_objects_render();
			break;
		}
		nanosleep(&pause, NULL);
	}
	psc_tls_quiet = quiet;
	fork_self_take();
}

static void after_fork_parent(void)
{
	psc_session.fork_self = NULL;
	psc_session.fork_frames = NULL;
	psc_session.fork_open = 0;
	if (!psc_session.fork_locked)
		return;
	psc_session.fork_locked = 0;
	pthread_mutex_unlock(&psc_session.lock);
}

/* The child's session: its own files, slots and writer. */
static void child_session_start(void)
{
	psc_session.pid = getpid();
	psc_session.threads = NULL;
	psc_session.lost_records = 0;
	psc_session.lost_threads = 0;
	psc_session.regions_folded = 0;
	psc_session.region_names_cut = 0;
	psc_session.lost_bytes = 0;
	psc_session.start_pair = clock_pair_take(psc_session.clock);
	thread_after_fork();
	slots_init();
	if (proc_claim() < 0) {
		psc_session.state = SESSION_OFF;
		return;
	}
	proc_write("running", NULL);
	session_maps_write(NULL);
	writer_kick();
}

static void after_fork_child(void)
{
	int quiet = psc_tls_quiet;

	psc_session.fork_locked = 0;
	pthread_mutex_init(&psc_session.lock, NULL);
	if (psc_session.state != SESSION_RECORDING)
		return;
	/* what the runtime calls here (the program's malloc, say) is not the program's call */
	psc_tls_quiet = RT_QUIET_RUNTIME;
	child_session_start();
	psc_tls_quiet = quiet;
	frames_after_fork();
}

/* PERFSCOPE_TEST_CLOCK_SKEW="OFFSET_NS:DRIFT_PPM" (testing only): skew this process's clock
 * before its first clock pair is taken. A malformed value is ignored. */
static void test_skew_from_env(void)
{
	const char *s = getenv(PSC_ENV_TEST_CLOCK_SKEW);
	char *end;
	long long offset;
	double drift;

	if (!s || !*s)
		return;
	errno = 0;
	offset = strtoll(s, &end, 10);
	if (errno || end == s || *end != ':')
		return;
	s = end + 1;
	drift = strtod(s, &end);
	if (errno || end == s || *end)
		return;
	clock_set_test_skew(offset, drift);
}

void session_start(void)
{
	const char *dir = getenv(PSC_ENV_OUT), *procfs, *sysfs;
	char abs[PATH_MAX];
	struct timespec now;
	struct cpu_info ci;
	struct perf_state ps;
	int saved_errno = errno;

	/* a hook entered from what runs here (a program's own malloc, say) records nothing */
	psc_tls_quiet = RT_QUIET_RUNTIME;
	if (!dir || !*dir || strlen(dir) >= sizeof(psc_session.dir))
		goto out;
	snprintf(psc_session.dir, sizeof(psc_session.dir), "%s", dir);
	psc_machine_roots(&procfs, &sysfs);
	cpu_info_read(&ci, procfs, sysfs);
	perf_state_read(&ps, procfs, sysfs);
	psc_session.paranoid = ps.paranoid;
	psc_session.have_core_pmu = ps.have_core_pmu;
	psc_session.clock = clock_source_choose(cpu_info_tsc_usable(&ci), getenv(PSC_ENV_CLOCK));
	psc_session.pid = getpid();
	psc_session.chunk_bytes = chunk_bytes_from_env();
	psc_session.compress = compress_from_env();
	test_skew_from_env();
	clock_gettime(CLOCK_REALTIME, &now);
	psc_session.start_unix_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	psc_session.start_pair = clock_pair_take(psc_session.clock);
	events_from_env();
	filter_from_env();
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		goto out;
	/* absolute, so that a chdir() of the program does not lose the experiment */
	if (!realpath(dir, abs))
		goto out;
	snprintf(psc_session.dir, sizeof(psc_session.dir), "%s", abs);
	/* another user's directory, or one others can write to, could hold links that
	 * make this process write into files that are not the experiment's */
	if (rt_dir_trust(psc_session.dir) < 0)
		goto out;
	slots_init();
	if (!getenv(PSC_ENV_LAUNCHER) && meta_write(&ci) < 0)
		goto out;
	if (proc_claim() < 0 || proc_write("running", NULL) < 0)
		goto out;
	if (psc_session.image)
		slots_remove_image(psc_session.image - 1);
	session_objects_loaded(psc_session.objects_seen);
	session_objects_render();
	session_maps_write(NULL);
	thread_destructor_init();
	exec_env_save();
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	atexit(session_finish);
	process_signals_init();
	psc_session.state = SESSION_RECORDING;
	/* the writer also notices dlopen'ed objects, so it runs from the start */
	writer_kick();
out:
	psc_tls_quiet = 0;
	errno = saved_errno;
}

void session_finish(void)
{
	struct clock_pair end;
	struct psc_thread *t;
	int saved_errno = errno;

	if (psc_session.state != SESSION_RECORDING)
		return;
	session_check_objects();
	psc_session.state = SESSION_STOPPED;
	pthread_mutex_lock(&psc_session.lock);
	for (t = psc_session.threads; t; t = t->next) {
		thread_guard_enter(t);
		thread_close_wait(t, PSC_END_EXIT);
	}
	pthread_mutex_unlock(&psc_session.lock);
	end = clock_pair_take(psc_session.clock);
	proc_write("exited", &end);
	slots_remove();
	errno = saved_errno;
}

__attribute__((constructor)) static void psc_constructor(void)
{
	jumps_init();
	session_start();
}
