/*
 * test_maps_history.c - the maps' history (maps.h): copies with times, `# object` lines, the
 * mapping that held an address at a time (maps_at) and place tags; and the build-id cache
 * (objcache.h): entries, their checks, how they are written.
 *
 * Expected values are written by hand from the rule in maps.h, or come from a brute-force
 * oracle that applies the rule to the copies as written (test_random_rule).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "model/maps.h"
#include "model/objcache.h"
#include "record/sample-out.h"
#include "tmpdir.h"

static void parse(struct maps *m, const char *text)
{
	memset(m, 0, sizeof(*m));
	assert_int_equal(maps_parse(m, text, strlen(text)), 0);
	maps_set_times(m, NULL, NULL);
}

/* The path of the instance that held addr at t, "" for none. */
static const char *at(const struct maps *m, uint64_t addr, int64_t t)
{
	long i = maps_at(m, addr, t);

	return i < 0 ? "" : m->insts[i].e.path;
}

/* dlopen A, dlclose it, dlopen B at the same address: each time its own library. */
static void test_dlclose_reuse(void **state)
{
	static const char text[] = "00400000-00401000 r-xp 00000000 08:01 1 /bin/prog\n"
				   "# object 1111 100 5 /bin/prog\n"
				   "# dlopen 100\n"
				   "00400000-00401000 r-xp 00000000 08:01 1 /bin/prog\n"
				   "7f0000000000-7f0000002000 r-xp 00001000 08:01 2 /lib/liba.so\n"
				   "# object 1111 100 5 /bin/prog\n"
				   "# object aaaa 200 6 ./liba.so\n"
				   "# dlclose 200\n"
				   "00400000-00401000 r-xp 00000000 08:01 1 /bin/prog\n"
				   "# object 1111 100 5 /bin/prog\n"
				   "# dlopen 300\n"
				   "00400000-00401000 r-xp 00000000 08:01 1 /bin/prog\n"
				   "7f0000000000-7f0000002000 r-xp 00001000 08:01 3 /lib/libb.so\n"
				   "# object 1111 100 5 /bin/prog\n"
				   "# object bbbb 200 6 /lib/libb.so\n";
	const uint64_t x = 0x7f0000000100;
	struct maps m;
	long a, b;

	(void)state;
	parse(&m, text);
	assert_int_equal(m.ncopies, 4);
	assert_int_equal(m.snapshots, 4);
	assert_int_equal(m.copies[1].when, 100);
	assert_int_equal(m.copies[2].when, 200);
	assert_int_equal(m.ninsts, 3); /* the program is one mapping all along */
	assert_int_equal(m.insts[0].first, 0);
	assert_int_equal(m.insts[0].last, 3);
	/* before A's copy (the address ran, so it was mapped): the first later copy's, A */
	assert_string_equal(at(&m, x, 50), "/lib/liba.so");
	assert_string_equal(at(&m, x, 100), "/lib/liba.so");
	assert_string_equal(at(&m, x, 199), "/lib/liba.so");
	/* after the dlclose copy, before B's: A is gone, B is the next one there */
	assert_string_equal(at(&m, x, 200), "/lib/libb.so");
	assert_string_equal(at(&m, x, 250), "/lib/libb.so");
	assert_string_equal(at(&m, x, 300), "/lib/libb.so");
	assert_string_equal(at(&m, x, INT64_MAX), "/lib/libb.so");
	assert_string_equal(at(&m, 0x400010, 250), "/bin/prog");
	assert_string_equal(at(&m, 0x500000, 250), "");
	/* the union is the view at the end */
	assert_string_equal(m.v[maps_find(&m, x)].path, "/lib/libb.so");
	/* objects: A's by its base name (dlopen was given a relative path), B's by its path */
	a = maps_at(&m, x, 150);
	b = maps_at(&m, x, 350);
	assert_non_null(m.insts[a].obj);
	assert_string_equal(m.insts[a].obj->build_id, "aaaa");
	assert_string_equal(m.insts[a].obj->path, "./liba.so");
	assert_int_equal(m.insts[a].obj->size, 200);
	assert_int_equal(m.insts[a].obj->mtime_ns, 6);
	assert_string_equal(m.insts[b].obj->build_id, "bbbb");
	assert_int_equal(m.nobjects, 3); /* the program's line is kept once */
	/* places: two classes at x, one at the program */
	assert_int_equal(m.ambiguous, 1);
	assert_int_equal(maps_tag(&m, x, a), 1);
	assert_int_equal(maps_tag(&m, x, b), 2);
	assert_int_equal(maps_untag(&m, x, 1), a);
	assert_int_equal(maps_untag(&m, x, 2), b);
	assert_int_equal(maps_untag(&m, x, 3), -1);
	assert_int_equal(maps_untag(&m, x, 0), -1);
	assert_int_equal(maps_tag(&m, 0x400010, maps_at(&m, 0x400010, 0)), 0);
	maps_release(&m);
}

/* The copies' times on another base: maps_set_times converts them. */
static int64_t times_ten(void *ctx, int64_t when)
{
	(void)ctx;
	return when * 10;
}

static void test_set_times(void **state)
{
	static const char text[] = "# dlopen 100\n"
				   "00001000-00002000 r-xp 00000000 08:01 2 /a.so\n"
				   "# dlclose 200\n"
				   "# dlopen 300\n"
				   "00001000-00002000 r-xp 00000000 08:01 3 /b.so\n";
	struct maps m = {0};

	(void)state;
	assert_int_equal(maps_parse(&m, text, strlen(text)), 0);
	/* without times on the events' base: the view at the end, whatever the time */
	assert_string_equal(at(&m, 0x1000, 1500), "/b.so");
	assert_string_equal(at(&m, 0x1000, 0), "/b.so");
	maps_set_times(&m, times_ten, NULL);
	assert_int_equal(m.copies[0].ns, INT64_MIN); /* the start */
	assert_int_equal(m.copies[1].ns, 1000);
	assert_string_equal(at(&m, 0x1000, 1500), "/a.so");
	assert_string_equal(at(&m, 0x1000, 2500), "/b.so");
	maps_release(&m);
}

/* pmaps: each "# mmap" adds a mapping; a later one over an earlier one wins from its time. */
static void test_mmap_copies(void **state)
{
	static const char text[] = "# mmap 10\n"
				   "00400000-00401000 r-xp 00000000 00:00 0 /bin/prog\n"
				   "# object 1111 - - /bin/prog\n"
				   "# mmap 20\n"
				   "7f0000000000-7f0000002000 r-xp 00001000 00:00 0 /lib/liba.so\n"
				   "# object aaaa - - /lib/liba.so\n"
				   "# mmap 40\n"
				   "7f0000000000-7f0000002000 r-xp 00001000 00:00 0 /lib/libb.so\n"
				   "# object - 300 7 /lib/libb.so\n";
	const uint64_t x = 0x7f0000001000;
	struct maps m;

	(void)state;
	parse(&m, text);
	assert_int_equal(m.copies[1].kind, MAPS_COPY_MORE);
	assert_string_equal(at(&m, x, 5), "/lib/liba.so");
	assert_string_equal(at(&m, x, 25), "/lib/liba.so");
	assert_string_equal(at(&m, x, 39), "/lib/liba.so");
	assert_string_equal(at(&m, x, 40), "/lib/libb.so");
	assert_string_equal(at(&m, x, INT64_MAX), "/lib/libb.so");
	/* the program stays mapped through the added copies */
	assert_string_equal(at(&m, 0x400000, 45), "/bin/prog");
	assert_string_equal(m.insts[maps_at(&m, x, 50)].obj->build_id, "");
	assert_int_equal(m.insts[maps_at(&m, x, 50)].obj->size, 300);
	assert_int_equal(m.insts[maps_at(&m, x, 30)].obj->size, -1);
	maps_release(&m);
}

/* The same library opened again at the same place, unchanged: one class, no tag; rebuilt in
 * between (same path and place, another build-id): two. */
static void test_classes(void **state)
{
	static const char same[] = "# dlopen 10\n"
				   "00001000-00002000 r-xp 00000000 08:01 2 /l.so\n"
				   "# object aaaa 1 1 /l.so\n"
				   "# dlclose 20\n"
				   "# dlopen 30\n"
				   "00001000-00002000 r-xp 00000000 08:01 2 /l.so\n"
				   "# object aaaa 1 2 /l.so\n";
	static const char rebuilt[] = "# dlopen 10\n"
				      "00001000-00002000 r-xp 00000000 08:01 2 /l.so\n"
				      "# object aaaa 1 1 /l.so\n"
				      "# dlclose 20\n"
				      "# dlopen 30\n"
				      "00001000-00002000 r-xp 00000000 08:01 3 /l.so\n"
				      "# object bbbb 1 2 /l.so\n";
	static const char nobuildid[] = "# dlopen 10\n"
					"00001000-00002000 r-xp 00000000 08:01 2 /l.so\n"
					"# object - 1 1 /l.so\n"
					"# dlopen 30\n"
					"00001000-00002000 r-xp 00000000 08:01 2 /l.so (deleted)\n"
					"# object - 9 9 /l.so\n";
	struct maps m;

	(void)state;
	parse(&m, same);
	assert_int_equal(m.ninsts, 2);
	assert_int_equal(m.insts[0].cls, m.insts[1].cls); /* by build-id: the mtime differs */
	assert_int_equal(m.ambiguous, 0);
	assert_int_equal(maps_tag(&m, 0x1000, 1), 0);
	maps_release(&m);
	parse(&m, rebuilt);
	assert_int_equal(m.ambiguous, 1);
	assert_string_equal(m.insts[maps_at(&m, 0x1000, 15)].obj->build_id, "aaaa");
	assert_string_equal(m.insts[maps_at(&m, 0x1000, 25)].obj->build_id, "bbbb");
	maps_release(&m);
	/* a file deleted while mapped is the same mapping: its object is the one it was mapped
	 * as, and it is marked deleted */
	parse(&m, nobuildid);
	assert_int_equal(m.ninsts, 1);
	assert_int_equal(m.insts[0].e.deleted, 1);
	assert_int_equal(m.insts[0].obj->size, 1);
	assert_int_equal(m.insts[0].last, 2);
	maps_release(&m);
}

/* Older experiments: no object lines, copies without times, pmaps without headers. */
static void test_old_files(void **state)
{
	static const char maps_old[] = "00001000-00003000 r-xp 00001000 08:01 12 /liba.so\n"
				       "00010000-00011000 r-xp 00000000 08:01 13 /libgone.so\n"
				       "# dlopen\n"
				       "00002000-00002800 r-xp 00004000 08:01 14 /libb.so\n";
	static const char pmaps_old[] = "00001000-00002000 r-xp 00000000 00:00 0 /first.so\n"
					"00005000-00006000 r-xp 00000000 00:00 0 /other.so\n"
					"00001000-00002000 r-xp 00000000 00:00 0 /second.so\n";
	struct maps m;

	(void)state;
	parse(&m, maps_old);
	assert_int_equal(m.nobjects, 0);
	/* no times: the view at the end, at any time */
	static const int64_t times[] = {INT64_MIN, -1, 0, 50, 1 << 30, INT64_MAX};

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		assert_string_equal(at(&m, 0x1800, times[i]), "/liba.so");
		assert_string_equal(at(&m, 0x2100, times[i]), "/libb.so");
		assert_string_equal(at(&m, 0x2900, times[i]), "/liba.so");
		assert_string_equal(at(&m, 0x10010, times[i]), "/libgone.so");
	}
	assert_null(m.insts[maps_at(&m, 0x1800, 0)].obj);
	maps_release(&m);
	parse(&m, pmaps_old);
	assert_int_equal(m.ncopies, 2); /* the line going back in address adds a copy */
	assert_string_equal(at(&m, 0x1000, 0), "/second.so");
	assert_string_equal(at(&m, 0x5000, 0), "/other.so");
	maps_release(&m);
}

/* Damaged header and object lines are ignored; unknown '#' lines too. */
static void test_damaged_lines(void **state)
{
	static const char text[] =
	    "00001000-00002000 r-xp 00000000 08:01 2 /l.so\n"
	    "# object zz 1 1 /l.so\n"			   /* not hex */
	    "# object aaa 1 1 /l.so\n"			   /* odd length */
	    "# object aaaa x 1 /l.so\n"			   /* bad size */
	    "# object aaaa 1 1\n"			   /* no path */
	    "# object aaaa 1 99999999999999999999 /l.so\n" /* too big */
	    "# comment of some other writer\n"
	    "# dlopen 12x\n" /* a header with a bad time: a copy of unknown time */
	    "00001000-00002000 r-xp 00000000 08:01 2 /l.so\n"
	    "# object cccc -1 1 /l.so\n";
	struct maps m;

	(void)state;
	parse(&m, text);
	assert_int_equal(m.ncopies, 2);
	assert_int_equal(m.copies[1].timed, 0);
	assert_int_equal(m.ninsts, 1);
	assert_null(m.insts[0].obj); /* its first copy's object lines were all bad */
	assert_int_equal(m.nobjects, 1);
	assert_int_equal(m.objects[0].size, -1);
	maps_release(&m);
}

/* Object lines matched through a symbolic link (a library found as libfoo.so.1). */
static void test_object_symlink(void **state)
{
	char dir[PATH_MAX], real[PATH_MAX + 32], link[PATH_MAX + 32], text[4 * PATH_MAX];
	struct maps m;

	(void)state;
	assert_int_equal(tmpdir_make(dir, sizeof(dir), "mapsobj"), 0);
	snprintf(real, sizeof(real), "%s/libfoo.so.1.2.3", dir);
	snprintf(link, sizeof(link), "%s/libfoo.so.1", dir);
	tmpdir_write(real, "x");
	assert_int_equal(symlink("libfoo.so.1.2.3", link), 0);
	{
		char r[PATH_MAX];

		assert_non_null(realpath(real, r));
		snprintf(real, sizeof(real), "%s", r);
	}
	snprintf(text, sizeof(text),
		 "00001000-00002000 r-xp 00000000 08:01 2 %s\n"
		 "# object abcd 1 1 %s\n"
		 "# object ef01 1 1 %s/other/libfoo.so.1.2.3\n",
		 real, link, dir);
	parse(&m, text);
	assert_non_null(m.insts[0].obj);
	assert_string_equal(m.insts[0].obj->build_id, "abcd");
	maps_release(&m);
	assert_int_equal(tmpdir_remove(dir), 0);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#define RCOPIES 8
#define RLINES	6

/*
 * Random whole copies at increasing times, each of a few random non-overlapping mappings of 8
 * libraries over 16 pages. Oracle: the rule of maps.h applied to the copies as written (the
 * last copy at or before t if it holds the address, else the first later one that does, else
 * the last earlier one), compared by path and file offset.
 */
static void test_random_rule(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int round = 0; round < 400; round++) {
		struct {
			uint64_t start, end, offset;
			unsigned lib;
		} c[RCOPIES][RLINES];
		size_t n[RCOPIES];
		char text[RCOPIES * (RLINES + 1) * 96];
		size_t len = 0;
		struct maps m = {0};

		for (int k = 0; k < RCOPIES; k++) {
			uint64_t page = rnd(&x) % 3;

			if (k)
				len +=
				    (size_t)snprintf(text + len, sizeof(text) - len, "# %s %d\n",
						     rnd(&x) % 2 ? "dlopen" : "dlclose", 100 * k);
			n[k] = 0;
			while (n[k] < RLINES && page < 16) {
				uint64_t pages = 1 + rnd(&x) % 3;

				c[k][n[k]].start = page * 0x1000;
				c[k][n[k]].end = (page + pages) * 0x1000;
				c[k][n[k]].offset = (rnd(&x) % 4) * 0x1000;
				c[k][n[k]].lib = (unsigned)(rnd(&x) % 8);
				len += (size_t)snprintf(text + len, sizeof(text) - len,
							"%08" PRIx64 "-%08" PRIx64
							" r-xp %08" PRIx64 " 08:01 1 /lib%u.so\n",
							c[k][n[k]].start, c[k][n[k]].end,
							c[k][n[k]].offset, c[k][n[k]].lib);
				n[k]++;
				page += pages + rnd(&x) % 3;
			}
		}
		assert_int_equal(maps_parse(&m, text, len), 0);
		maps_set_times(&m, NULL, NULL);
		for (uint64_t a = 0x10; a < 20 * 0x1000; a += 0x800) {
			for (int64_t t = -50; t < 100 * RCOPIES + 50; t += 50) {
				int cp =
				    t < 100 ? 0 : (int)(t / 100 < RCOPIES ? t / 100 : RCOPIES - 1);
				int hit = -1, line = -1;
				char want[32];
				long i;

				int order[RCOPIES], no = 0;

				/* c first, then the later copies, then the earlier ones backwards
				 */
				order[no++] = cp;
				for (int k = cp + 1; k < RCOPIES; k++)
					order[no++] = k;
				for (int k = cp - 1; k >= 0; k--)
					order[no++] = k;
				for (int o = 0; o < no && hit < 0; o++)
					for (size_t l = 0; l < n[order[o]]; l++)
						if (c[order[o]][l].start <= a &&
						    a < c[order[o]][l].end) {
							hit = order[o];
							line = (int)l;
						}
				i = maps_at(&m, a, t);
				if (hit < 0) {
					assert_int_equal(i, -1);
					continue;
				}
				assert_true(i >= 0);
				snprintf(want, sizeof(want), "/lib%u.so", c[hit][line].lib);
				assert_string_equal(m.insts[i].e.path, want);
				assert_int_equal(m.insts[i].e.offset + (a - m.insts[i].e.start),
						 c[hit][line].offset + (a - c[hit][line].start));
				/* its tag names it back */
				if (maps_tag(&m, a, i))
					assert_int_equal(
					    m.insts[maps_untag(&m, a, maps_tag(&m, a, i))].cls,
					    m.insts[i].cls);
			}
		}
		maps_release(&m);
	}
}

#define SMAX 64

/*
 * The same with copies that add mappings ("# mmap", as pmaps has) among whole ones. Oracle:
 * the state after each copy as maps.h describes it (a whole copy is what it lists, a line
 * unchanged from the state before keeping its first copy; an added copy adds its lines), then
 * the rule: of the lines of c's state holding the address the one mapped last; else the first
 * copy after c that maps one there; else the last copy before c whose state holds one.
 */
static void test_random_rule_added(void **state)
{
	struct oline {
		uint64_t start, end, offset;
		unsigned lib;
		int origin;
	};
	uint64_t x = 0x2545f4914f6cdd1dull;

	(void)state;
	for (int round = 0; round < 400; round++) {
		static struct oline st[RCOPIES][SMAX];
		size_t ns[RCOPIES];
		char text[RCOPIES * (RLINES + 1) * 96];
		size_t len = 0;
		struct maps m = {0};

		for (int k = 0; k < RCOPIES; k++) {
			int full = k == 0 || rnd(&x) % 3 == 0;
			uint64_t page = rnd(&x) % 4;
			size_t nl = 0;

			if (k)
				len += (size_t)snprintf(text + len, sizeof(text) - len, "# %s %d\n",
							full ? "dlopen" : "mmap", 100 * k);
			ns[k] = 0;
			if (!full) {
				memcpy(st[k], st[k - 1], ns[k - 1] * sizeof(st[k][0]));
				ns[k] = ns[k - 1];
			}
			while (nl < (full ? (size_t)RLINES : 1 + rnd(&x) % 2) && page < 16 &&
			       ns[k] < SMAX) {
				uint64_t pages = 1 + rnd(&x) % 3;
				struct oline l = {page * 0x1000, (page + pages) * 0x1000,
						  (rnd(&x) % 2) * 0x1000, (unsigned)(rnd(&x) % 3),
						  k};

				if (full && k) {
					/* unchanged from the state before: its first copy stays */
					int best = -1;

					for (size_t j = 0; j < ns[k - 1]; j++)
						if (st[k - 1][j].start == l.start &&
						    (best < 0 ||
						     st[k - 1][j].origin >= st[k - 1][best].origin))
							best = (int)j;
					if (best >= 0 && st[k - 1][best].end == l.end &&
					    st[k - 1][best].offset == l.offset &&
					    st[k - 1][best].lib == l.lib)
						l.origin = st[k - 1][best].origin;
				}
				st[k][ns[k]++] = l;
				nl++;
				len += (size_t)snprintf(text + len, sizeof(text) - len,
							"%08" PRIx64 "-%08" PRIx64
							" r-xp %08" PRIx64 " 08:01 1 /lib%u.so\n",
							l.start, l.end, l.offset, l.lib);
				page += pages + rnd(&x) % 3;
			}
		}
		assert_int_equal(maps_parse(&m, text, len), 0);
		maps_set_times(&m, NULL, NULL);
		for (uint64_t a = 0x10; a < 20 * 0x1000; a += 0x800) {
			for (int64_t t = -50; t < 100 * RCOPIES + 50; t += 50) {
				int c =
				    t < 100 ? 0 : (int)(t / 100 < RCOPIES ? t / 100 : RCOPIES - 1);
				const struct oline *hit = NULL;
				char want[32];
				long i;

				for (size_t j = 0; j < ns[c]; j++)
					if (st[c][j].start <= a && a < st[c][j].end &&
					    (!hit || st[c][j].origin >= hit->origin))
						hit = &st[c][j];
				for (int k = c + 1; !hit && k < RCOPIES; k++)
					for (size_t j = 0; j < ns[k]; j++)
						if (st[k][j].origin == k && st[k][j].start <= a &&
						    a < st[k][j].end)
							hit = &st[k][j];
				for (int k = c - 1; !hit && k >= 0; k--)
					for (size_t j = 0; j < ns[k]; j++)
						if (st[k][j].start <= a && a < st[k][j].end &&
						    (!hit || st[k][j].origin >= hit->origin))
							hit = &st[k][j];
				i = maps_at(&m, a, t);
				if (!hit) {
					assert_int_equal(i, -1);
					continue;
				}
				assert_true(i >= 0);
				snprintf(want, sizeof(want), "/lib%u.so", hit->lib);
				assert_string_equal(m.insts[i].e.path, want);
				assert_int_equal(m.insts[i].e.offset + (a - m.insts[i].e.start),
						 hit->offset + (a - hit->start));
				assert_int_equal(m.insts[i].first, hit->origin);
			}
		}
		maps_release(&m);
	}
}

/* record --sample's pmaps: each mapping after "# mmap NS", its object line from the kernel's
 * build-id, or from the file when the kernel's inode is the file's. */
static void test_pmaps_writer(void **state)
{
	static const struct sample_mmap_id bid = {{0x12, 0x34, 0xab}, 3, 0, 0, 0, 0};
	char dir[PATH_MAX], file[PATH_MAX + 32], path[PATH_MAX + 32];
	const char *pp = path;
	struct sample_mmap_id ino = {0};
	struct sample_out *o;
	struct maps m = {0};
	struct stat st;

	(void)state;
	assert_int_equal(tmpdir_make(dir, sizeof(dir), "pmapsw"), 0);
	snprintf(file, sizeof(file), "%s/lib\nodd.so", dir);
	tmpdir_write(file, "0123456789");
	assert_int_equal(stat(file, &st), 0);
	ino.has_ino = 1;
	ino.maj = major(st.st_dev);
	ino.min = minor(st.st_dev);
	ino.ino = st.st_ino;
	assert_int_equal(sample_out_open(&o, dir, 77, 1, 0), 0);
	assert_int_equal(sample_out_add_mmap_id(o, 20, 78, 0x400000, 0x2000, 0,
						PROT_READ | PROT_EXEC, MAP_PRIVATE, &bid,
						"/bin/prog"),
			 0);
	assert_int_equal(sample_out_add_mmap_id(o, 30, 78, 0x7f0000000000, 0x2000, 0x1000,
						PROT_READ | PROT_EXEC, MAP_PRIVATE, &ino, file),
			 0);
	ino.ino++; /* another file than the one there now: no identity */
	assert_int_equal(sample_out_add_mmap_id(o, 40, 78, 0x7f0000000000, 0x2000, 0x1000,
						PROT_READ | PROT_EXEC, MAP_PRIVATE, &ino, file),
			 0);
	assert_int_equal(sample_out_close(o), 0);
	/* 78: a process of the command's, in its first image */
	snprintf(path, sizeof(path), "%s/pmaps.78", dir);
	assert_int_equal(maps_load(&m, &pp, 1), 0);
	maps_set_times(&m, NULL, NULL);
	assert_int_equal(m.skipped, 0);
	assert_int_equal(m.ncopies, 4);
	assert_int_equal(m.copies[1].when, 20);
	assert_int_equal(m.copies[3].when, 40);
	assert_string_equal(m.insts[maps_at(&m, 0x400000, 25)].obj->build_id, "1234ab");
	{
		long i = maps_at(&m, 0x7f0000000000, 35);

		/* the newline in the name is written as /proc/PID/maps writes it */
		assert_non_null(strstr(m.insts[i].e.path, "lib\\012odd.so"));
		assert_non_null(m.insts[i].obj);
		assert_string_equal(m.insts[i].obj->build_id, "");
		assert_int_equal(m.insts[i].obj->size, 10);
		assert_int_equal(m.insts[i].obj->mtime_ns,
				 (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
		/* the same mapping again at 40, without an identity: another instance */
		assert_null(m.insts[maps_at(&m, 0x7f0000000000, 45)].obj);
	}
	maps_release(&m);
	assert_int_equal(tmpdir_remove(dir), 0);
}

/* ---- the build-id cache --------------------------------------------------------------------- */

static char cache_dir[PATH_MAX], cache_root[PATH_MAX + 16];

static int cache_setup(void **state)
{
	(void)state;
	if (tmpdir_make(cache_dir, sizeof(cache_dir), "objcache"))
		return -1;
	snprintf(cache_root, sizeof(cache_root), "%s/cache", cache_dir);
	return 0;
}

static int cache_teardown(void **state)
{
	(void)state;
	return tmpdir_remove(cache_dir);
}

/* This test program's own build-id, as the runtime would record it. */
static void self_object(struct maps_object *o, char *hex, char *path)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	struct stat st;

	assert_true(n > 0);
	buf[n] = 0;
	strcpy(path, buf);
	assert_int_equal(stat(path, &st), 0);
	/* obj_check of a file with no build-id recorded, and its size and mtime */
	*o = (struct maps_object){
	    "", st.st_size, (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, path};
	hex[0] = 0;
	{
		char now[256];
		struct maps_object any = {"00", -1, -1, path};

		assert_int_equal(obj_check(&any, path, now, sizeof(now)), OBJ_CHANGED);
		assert_true(!strncmp(now, "build-id ", 9));
		strcpy(hex, now + 9);
	}
}

static void test_cache_store_find(void **state)
{
	char hex[132], path[PATH_MAX], found[PATH_MAX], want[2 * PATH_MAX], now[256];
	struct maps_object o, bystat;
	struct stat st;

	(void)state;
	self_object(&bystat, hex, path);
	o = (struct maps_object){hex, -1, -1, path};
	assert_int_equal(obj_check(&o, path, now, sizeof(now)), OBJ_SAME);
	assert_int_equal(obj_check(&bystat, path, now, sizeof(now)), OBJ_SAME);
	assert_int_equal(objcache_find(cache_root, &o, path, found, sizeof(found)), -ENOENT);
	/* over the size limit: not kept */
	assert_int_equal(objcache_store(cache_root, &o, path, 100), -EFBIG);
	assert_int_equal(objcache_store(cache_root, &o, path, UINT64_MAX), 1);
	assert_int_equal(objcache_store(cache_root, &o, path, UINT64_MAX), 0);
	assert_int_equal(objcache_find(cache_root, &o, path, found, sizeof(found)), 0);
	snprintf(want, sizeof(want), "%s/buildid/%.2s/%s/elf", cache_root, hex, hex + 2);
	assert_string_equal(found, want);
	assert_int_equal(stat(cache_root, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(want, sizeof(want), "%s/buildid/%.2s", cache_root, hex);
	assert_int_equal(stat(want, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* without a build-id: by size and mtime */
	assert_int_equal(objcache_store(cache_root, &bystat, path, UINT64_MAX), 1);
	assert_int_equal(objcache_find(cache_root, &bystat, path, found, sizeof(found)), 0);
	assert_non_null(strstr(found, "/nobuildid/"));
	/* an entry that does not fit its key is not found */
	{
		struct maps_object other = {"0123456789abcdef", -1, -1, path};
		char d[PATH_MAX * 6];

		snprintf(d, sizeof(d),
			 "mkdir -p '%s/buildid/01/23456789abcdef' && cp '%s' "
			 "'%s/buildid/01/23456789abcdef/elf'",
			 cache_root, path, cache_root);
		assert_int_equal(system(d), 0);
		assert_int_equal(objcache_find(cache_root, &other, path, found, sizeof(found)),
				 -ENOENT);
		/* and a file that is not the object is not stored */
		assert_int_equal(objcache_store(cache_root, &other, path, UINT64_MAX), -ESTALE);
	}
	/* the file changed: another build-id */
	{
		struct maps_object old = {"deadbeef", -1, -1, path};

		assert_int_equal(obj_check(&old, path, now, sizeof(now)), OBJ_CHANGED);
		assert_string_equal(now + 9, hex);
		assert_int_equal(obj_check(&old, "/nonexistent/x", now, sizeof(now)), OBJ_MISSING);
		old.build_id = "";
		assert_int_equal(obj_check(&old, path, now, sizeof(now)), OBJ_UNCHECKED);
	}
}

/* Nothing is written through a symbolic link or into a directory others can write to, and a
 * failed write leaves no file behind. */
static void test_cache_safety(void **state)
{
	char hex[132], path[PATH_MAX], root[PATH_MAX + 32], cmd[8 * PATH_MAX];
	struct maps_object o, bystat;
	struct rlimit old, lim;
	FILE *f;

	(void)state;
	self_object(&bystat, hex, path);
	o = (struct maps_object){hex, -1, -1, path};
	/* a root others can write to */
	snprintf(root, sizeof(root), "%s/open", cache_dir);
	assert_int_equal(mkdir(root, 0777), 0);
	assert_int_equal(chmod(root, 0777), 0);
	assert_int_equal(objcache_store(root, &o, path, UINT64_MAX), -EPERM);
	/* buildid/ a symbolic link to elsewhere */
	snprintf(root, sizeof(root), "%s/linked", cache_dir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -m 700 '%s' '%s/elsewhere' && ln -s '%s/elsewhere' '%s/buildid'", root,
		 cache_dir, cache_dir, root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(objcache_store(root, &o, path, UINT64_MAX), -EPERM);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/elsewhere')\"", cache_dir);
	assert_int_equal(system(cmd), 0);
	/* a write that fails (the file size limit stands for a full disk): no file left */
	snprintf(root, sizeof(root), "%s/small", cache_dir);
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(objcache_store(root, &o, path, UINT64_MAX), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	snprintf(cmd, sizeof(cmd), "find '%s' -type f | wc -l", root);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fgetc(f), '0');
	pclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dlclose_reuse),     cmocka_unit_test(test_set_times),
	    cmocka_unit_test(test_mmap_copies),	      cmocka_unit_test(test_classes),
	    cmocka_unit_test(test_old_files),	      cmocka_unit_test(test_damaged_lines),
	    cmocka_unit_test(test_object_symlink),    cmocka_unit_test(test_random_rule),
	    cmocka_unit_test(test_random_rule_added), cmocka_unit_test(test_pmaps_writer),
	    cmocka_unit_test(test_cache_store_find),  cmocka_unit_test(test_cache_safety),
	};

	return cmocka_run_group_tests(tests, cache_setup, cache_teardown);
}
