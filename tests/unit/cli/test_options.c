/* test_options.c - option tables: every option form, operands, values, errors, help. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

struct opts {
	int verbose, force, all, per_thread, functions, hidden;
	const char *output, *sample;
	long repeat, load;
	uint64_t bufsize, interval;
	struct opt_list events;
	struct option_spec specs[16];
	char err[256];
	int optind;
};

static void opts_init(struct opts *o)
{
	const struct option_spec specs[] = {
	    {'v', "verbose", OPT_FLAG, &o->verbose, NULL, "more output", 0, NULL},
	    {'f', "force", OPT_FLAG, &o->force, NULL, "overwrite DIR", 0, NULL},
	    {'a', NULL, OPT_FLAG, &o->all, NULL, "all CPUs", 0, NULL},
	    {'o', "output", OPT_STRING, &o->output, "DIR", "experiment directory", 0, NULL},
	    {'r', "repeat", OPT_INT, &o->repeat, "N", "repeat N times", 0, NULL},
	    {0, "buffer-size", OPT_UINT64, &o->bufsize, "SIZE", "chunk size", 0, NULL},
	    {'e', "event", OPT_LIST, &o->events, "EV,..", "events to count", 0, NULL},
	    {0, "interval", OPT_DURATION, &o->interval, "T", "interval length", 0, NULL},
	    {0, "sample", OPT_STRING, &o->sample, "HZ", "sample", OPT_ARG_OPTIONAL, "1000"},
	    {'l', "load", OPT_INT, &o->load, "MS", "load period", OPT_ARG_OPTIONAL, "100"},
	    {0, "per-thread", OPT_FLAG, &o->per_thread, NULL, "per thread", 0, NULL},
	    {0, "functions", OPT_FLAG, &o->functions, NULL, "trace functions", 0, NULL},
	    {0, "debug-dump", OPT_FLAG, &o->hidden, NULL, "internal", OPT_HIDDEN, NULL},
	    {0, NULL, OPT_END, NULL, NULL, NULL, 0, NULL},
	};

	memset(o, 0, sizeof(*o));
	memcpy(o->specs, specs, sizeof(specs));
	o->optind = -1;
}

#define ARGV(...) ((char *[]){__VA_ARGS__, NULL})

static int nargs(char **av)
{
	int n = 0;

	while (av[n])
		n++;
	return n;
}

/* Parse the given arguments into O (initialised here); returns options_parse's result. */
#define PARSE(o, flags, av)                                                                        \
	(opts_init(o), options_parse((o)->specs, (flags), nargs(av), (av), &(o)->optind, (o)->err, \
				     sizeof((o)->err)))

static void test_long_forms(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, 0,
			       ARGV("--output", "dir1", "--repeat=3", "--verbose",
				    "--buffer-size=64k", "--interval", "1.5ms")),
			 0);
	assert_string_equal(o.output, "dir1");
	assert_int_equal(o.repeat, 3);
	assert_int_equal(o.verbose, 1);
	assert_int_equal(o.bufsize, 65536);
	assert_int_equal(o.interval, 1500000);
	assert_int_equal(o.optind, 7);
	assert_string_equal(o.err, "");

	/* --long=VAL with an empty value and a value containing '='. */
	assert_int_equal(PARSE(&o, 0, ARGV("--output=", "--sample=a=b")), 0);
	assert_string_equal(o.output, "");
	assert_string_equal(o.sample, "a=b");
}

static void test_short_forms(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, 0, ARGV("-o", "d", "-r7", "-r", "-3")), 0);
	assert_string_equal(o.output, "d");
	assert_int_equal(o.repeat, -3);
	assert_int_equal(o.optind, 5);

	assert_int_equal(PARSE(&o, 0, ARGV("-odir2", "-r+12")), 0);
	assert_string_equal(o.output, "dir2");
	assert_int_equal(o.repeat, 12);

	/* The value of a short option may itself start with '-'. */
	assert_int_equal(PARSE(&o, 0, ARGV("-o", "-v")), 0);
	assert_string_equal(o.output, "-v");
	assert_int_equal(o.verbose, 0);
}

static void test_bundling(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, 0, ARGV("-vfa")), 0);
	assert_int_equal(o.verbose, 1);
	assert_int_equal(o.force, 1);
	assert_int_equal(o.all, 1);
	assert_int_equal(o.optind, 1);

	assert_int_equal(PARSE(&o, 0, ARGV("-vfo", "out", "x")), 0);
	assert_int_equal(o.verbose + o.force, 2);
	assert_string_equal(o.output, "out");
	assert_int_equal(o.optind, 2);

	assert_int_equal(PARSE(&o, 0, ARGV("-vr42", "-ao", "d")), 0);
	assert_int_equal(o.verbose, 1);
	assert_int_equal(o.repeat, 42);
	assert_int_equal(o.all, 1);
	assert_string_equal(o.output, "d");

	/* A value-taking option inside a bundle takes the rest of it. */
	assert_int_equal(PARSE(&o, 0, ARGV("-ovf")), 0);
	assert_string_equal(o.output, "vf");
	assert_int_equal(o.verbose, 0);
}

static void test_double_dash(void **state)
{
	struct opts o;
	char **av = ARGV("a", "-v", "--", "-f", "b");

	(void)state;
	opts_init(&o);
	assert_int_equal(options_parse(o.specs, 0, 5, av, &o.optind, o.err, sizeof(o.err)), 0);
	assert_int_equal(o.verbose, 1);
	assert_int_equal(o.force, 0);
	assert_int_equal(o.optind, 2);
	assert_string_equal(av[0], "-v");
	assert_string_equal(av[1], "--");
	assert_string_equal(av[2], "a");
	assert_string_equal(av[3], "-f");
	assert_string_equal(av[4], "b");

	/* Stop mode: optind is the argument after "--". */
	av = ARGV("-v", "--", "./prog", "-f");
	assert_int_equal(PARSE(&o, OPT_STOP_AT_OPERAND, av), 0);
	assert_int_equal(o.optind, 2);
	assert_int_equal(o.force, 0);

	/* "--" as the last argument. */
	av = ARGV("-v", "--");
	assert_int_equal(PARSE(&o, OPT_STOP_AT_OPERAND, av), 0);
	assert_int_equal(o.optind, 2);
	av = ARGV("-v", "--");
	assert_int_equal(PARSE(&o, 0, av), 0);
	assert_int_equal(o.optind, 2);
}

static void test_stop_at_operand(void **state)
{
	struct opts o;
	char **av = ARGV("-e", "x", "./prog", "-v", "--force");

	(void)state;
	assert_int_equal(PARSE(&o, OPT_STOP_AT_OPERAND, av), 0);
	assert_int_equal(o.optind, 2);
	assert_int_equal(o.verbose, 0);
	assert_int_equal(o.force, 0);
	assert_string_equal(av[2], "./prog");
	assert_string_equal(av[3], "-v");
	assert_string_equal(av[4], "--force");
	assert_int_equal(o.events.n, 1);
	assert_string_equal(o.events.items[0], "x");
	opt_list_release(&o.events);

	/* "-" is an operand; a bare optional option does not eat the command. */
	av = ARGV("--sample", "-", "-v");
	assert_int_equal(PARSE(&o, OPT_STOP_AT_OPERAND, av), 0);
	assert_int_equal(o.optind, 1);
	assert_string_equal(o.sample, "1000");
	assert_int_equal(o.verbose, 0);

	/* No arguments at all. */
	opts_init(&o);
	assert_int_equal(options_parse(o.specs, 0, 0, ARGV(NULL), &o.optind, o.err, 256), 0);
	assert_int_equal(o.optind, 0);
	opts_init(&o);
	assert_int_equal(
	    options_parse(o.specs, OPT_STOP_AT_OPERAND, 0, ARGV(NULL), &o.optind, o.err, 256), 0);
	assert_int_equal(o.optind, 0);
}

static void test_collect_operands(void **state)
{
	struct opts o;
	char **av = ARGV("d1", "-r", "5", "d2", "-v", "-", "--output=x");

	(void)state;
	assert_int_equal(PARSE(&o, 0, av), 0);
	assert_int_equal(o.repeat, 5);
	assert_int_equal(o.verbose, 1);
	assert_string_equal(o.output, "x");
	assert_int_equal(o.optind, 4);
	assert_string_equal(av[0], "-r");
	assert_string_equal(av[1], "5");
	assert_string_equal(av[2], "-v");
	assert_string_equal(av[3], "--output=x");
	assert_string_equal(av[4], "d1");
	assert_string_equal(av[5], "d2");
	assert_string_equal(av[6], "-");
}

static void test_list(void **state)
{
	static const char *const want[] = {"a", "b", "c", "d", "e", "f", "cycles:u"};
	struct opts o;
	size_t i;

	(void)state;
	assert_int_equal(
	    PARSE(&o, 0, ARGV("-e", "a,b", "--event", "c", "-ed,e", "--event=f", "-e", "cycles:u")),
	    0);
	assert_int_equal(o.events.n, 7);
	for (i = 0; i < 7; i++)
		assert_string_equal(o.events.items[i], want[i]);
	opt_list_release(&o.events);
	assert_int_equal(o.events.n, 0);
	assert_null(o.events.items);
	opt_list_release(&o.events); /* twice is fine */

	assert_int_equal(PARSE(&o, 0, ARGV("-e", "a,,b")), -EINVAL);
	assert_string_equal(o.err, "option '-e': empty item in 'a,,b'");
	opt_list_release(&o.events);
	assert_int_equal(PARSE(&o, 0, ARGV("--event=x,")), -EINVAL);
	assert_string_equal(o.err, "option '--event': empty item in 'x,'");
	opt_list_release(&o.events);
	assert_int_equal(PARSE(&o, 0, ARGV("--event=")), -EINVAL);
	assert_string_equal(o.err, "option '--event': empty item in ''");
	opt_list_release(&o.events);
}

static void test_duration(void **state)
{
	static const struct {
		const char *text;
		uint64_t ns;
	} ok[] = {
	    {"100ns", 100},
	    {"10us", 10000},
	    {"10\xc2\xb5s", 10000},
	    {"5ms", 5000000},
	    {"2s", 2000000000},
	    {"1.5s", 1500000000},
	    {"1.5", 1500000000},
	    {"0", 0},
	    {"0s", 0},
	    {".5s", 500000000},
	    {"5.", 5000000000},
	    {"2.5us", 2500},
	    {"0.25ms", 250000},
	    {"1.5ns", 1},
	    {"0.000000001", 1},
	    {"0.0000000019", 1},
	    {"007ms", 7000000},
	    {"18446744073s", 18446744073000000000ULL},
	    {"18446744073.709551615", UINT64_MAX},
	    {"18446744073709551615ns", UINT64_MAX},
	};
	static const char *const bad[] = {
	    "",
	    "s",
	    "ms",
	    ".",
	    ".s",
	    "5x",
	    "5 ms",
	    " 5ms",
	    "-1s",
	    "+1s",
	    "5MS",
	    "5m",
	    "1.2.3s",
	    "1e3",
	    "0x10",
	    "18446744074s",
	    "18446744073.709551616",
	    "18446744073709551616ns",
	    "99999999999999999999999s",
	    "18446744073709551616000.5ns",
	};
	uint64_t ns;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ns = 12345;
		assert_int_equal(parse_duration_ns(ok[i].text, &ns), 0);
		assert_int_equal(ns, ok[i].ns);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ns = 12345;
		assert_int_equal(parse_duration_ns(bad[i], &ns), -EINVAL);
		assert_int_equal(ns, 12345);
	}
	assert_int_equal(parse_duration_ns(NULL, &ns), -EINVAL);
}

static void test_size(void **state)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} ok[] = {
	    {"0", 0},
	    {"4096", 4096},
	    {"64k", 65536},
	    {"64K", 65536},
	    {"16m", 16777216},
	    {"16M", 16777216},
	    {"1G", 1073741824},
	    {"1g", 1073741824},
	    {"0k", 0},
	    {"18446744073709551615", UINT64_MAX},
	    {"17179869183G", 18446744072635809792ULL},
	    {"17592186044415M", 18446744073708503040ULL},
	};
	static const char *const bad[] = {
	    "",
	    "k",
	    "1.5M",
	    "12Q",
	    "-1",
	    "+1",
	    " 1",
	    "1 ",
	    "1 k",
	    "1kb",
	    "1KiB",
	    "0x10",
	    "1T",
	    "17179869184G",
	    "18446744073709551616",
	    "99999999999999999999999k",
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 7;
		assert_int_equal(parse_size(ok[i].text, &v), 0);
		assert_int_equal(v, ok[i].bytes);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		assert_int_equal(parse_size(bad[i], &v), -EINVAL);
		assert_int_equal(v, 7);
	}
	assert_int_equal(parse_size(NULL, &v), -EINVAL);
}

static void test_number_errors(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, 0, ARGV("--repeat", "abc")), -EINVAL);
	assert_string_equal(o.err, "option '--repeat': invalid number 'abc'");
	assert_int_equal(PARSE(&o, 0, ARGV("-r", "12x")), -EINVAL);
	assert_string_equal(o.err, "option '-r': invalid number '12x'");
	assert_int_equal(PARSE(&o, 0, ARGV("--repeat=")), -EINVAL);
	assert_string_equal(o.err, "option '--repeat': invalid number ''");
	assert_int_equal(PARSE(&o, 0, ARGV("-r", " 5")), -EINVAL);
	assert_string_equal(o.err, "option '-r': invalid number ' 5'");
	assert_int_equal(PARSE(&o, 0, ARGV("-r", "0x10")), -EINVAL);
	assert_string_equal(o.err, "option '-r': invalid number '0x10'");
	assert_int_equal(PARSE(&o, 0, ARGV("--repeat", "99999999999999999999")), -EINVAL);
	assert_string_equal(o.err, "option '--repeat': value '99999999999999999999' out of range");
	assert_int_equal(PARSE(&o, 0, ARGV("-r-99999999999999999999")), -EINVAL);
	assert_string_equal(o.err, "option '-r': value '-99999999999999999999' out of range");
	assert_int_equal(PARSE(&o, 0, ARGV("-r", "9223372036854775807")), 0);
	assert_int_equal(o.repeat, 9223372036854775807L);

	assert_int_equal(PARSE(&o, 0, ARGV("--buffer-size", "16M")), 0);
	assert_int_equal(o.bufsize, 16777216);
	assert_int_equal(PARSE(&o, 0, ARGV("--buffer-size=12Q")), -EINVAL);
	assert_string_equal(
	    o.err, "option '--buffer-size': invalid size '12Q' (expected e.g. 4096, 64k, 16M, 1G)");
	assert_int_equal(PARSE(&o, 0, ARGV("--buffer-size=17179869184G")), -EINVAL);
	assert_string_equal(o.err, "option '--buffer-size': value '17179869184G' out of range");

	assert_int_equal(PARSE(&o, 0, ARGV("--interval", "5x")), -EINVAL);
	assert_string_equal(
	    o.err,
	    "option '--interval': invalid duration '5x' (expected e.g. 100ns, 10us, 5ms, 1.5s)");
	assert_int_equal(PARSE(&o, 0, ARGV("--interval=18446744074s")), -EINVAL);
	assert_string_equal(o.err, "option '--interval': value '18446744074s' out of range");
}

static void test_unknown_option(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, 0, ARGV("--evnt", "x")), -EINVAL);
	assert_string_equal(o.err, "unknown option '--evnt'; did you mean --event?");
	assert_int_equal(PARSE(&o, 0, ARGV("--evnt=x")), -EINVAL);
	assert_string_equal(o.err, "unknown option '--evnt'; did you mean --event?");
	assert_int_equal(PARSE(&o, 0, ARGV("--Verbose")), -EINVAL);
	assert_string_equal(o.err, "unknown option '--Verbose'; did you mean --verbose?");
	assert_int_equal(PARSE(&o, 0, ARGV("--per-thred")), -EINVAL);
	assert_string_equal(o.err, "unknown option '--per-thred'; did you mean --per-thread?");
	assert_int_equal(PARSE(&o, 0, ARGV("--outptu", "d")), -EINVAL);
	assert_string_equal(o.err, "unknown option '--outptu'; did you mean --output?");
	/* Unique prefix, too far for the edit distance. */
	assert_int_equal(PARSE(&o, 0, ARGV("--func")), -EINVAL);
	assert_string_equal(o.err, "unknown option '--func'; did you mean --functions?");
	assert_int_equal(PARSE(&o, 0, ARGV("--xyz")), -EINVAL);
	assert_string_equal(o.err, "unknown option '--xyz'");
	assert_int_equal(PARSE(&o, 0, ARGV("--")), 0);
	assert_int_equal(PARSE(&o, 0, ARGV("--=x")), -EINVAL);
	assert_string_equal(o.err, "unknown option '--'");
	/* Hidden options are parsed but never suggested. */
	assert_int_equal(PARSE(&o, 0, ARGV("--debug-dump")), 0);
	assert_int_equal(o.hidden, 1);
	assert_int_equal(PARSE(&o, 0, ARGV("--debug-dmp")), -EINVAL);
	assert_string_equal(o.err, "unknown option '--debug-dmp'");

	assert_int_equal(PARSE(&o, 0, ARGV("-x")), -EINVAL);
	assert_string_equal(o.err, "unknown option '-x'");
	assert_int_equal(PARSE(&o, 0, ARGV("-vx")), -EINVAL);
	assert_string_equal(o.err, "unknown option '-x'");
	/* One dash for a long option. */
	assert_int_equal(PARSE(&o, 0, ARGV("-per-thread")), -EINVAL);
	assert_string_equal(o.err, "unknown option '-p'; did you mean --per-thread?");
	/* In stop mode nothing after the first operand is looked at. */
	assert_int_equal(PARSE(&o, OPT_STOP_AT_OPERAND, ARGV("./prog", "--evnt")), 0);
	assert_int_equal(o.optind, 0);
}

static void test_missing_value(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, 0, ARGV("-o")), -EINVAL);
	assert_string_equal(o.err, "option '-o' requires a value");
	assert_int_equal(PARSE(&o, 0, ARGV("--output")), -EINVAL);
	assert_string_equal(o.err, "option '--output' requires a value");
	assert_int_equal(PARSE(&o, 0, ARGV("-vo")), -EINVAL);
	assert_string_equal(o.err, "option '-o' requires a value");
	assert_int_equal(PARSE(&o, 0, ARGV("-v", "--event")), -EINVAL);
	assert_string_equal(o.err, "option '--event' requires a value");
	assert_int_equal(PARSE(&o, 0, ARGV("--force=1")), -EINVAL);
	assert_string_equal(o.err, "option '--force' takes no value");
	assert_int_equal(PARSE(&o, 0, ARGV("--force=")), -EINVAL);
	assert_string_equal(o.err, "option '--force' takes no value");
}

static void test_optional_value(void **state)
{
	struct opts o;
	char **av;

	(void)state;
	assert_int_equal(PARSE(&o, 0, ARGV("--sample")), 0);
	assert_string_equal(o.sample, "1000");
	assert_int_equal(PARSE(&o, 0, ARGV("--sample=99")), 0);
	assert_string_equal(o.sample, "99");
	av = ARGV("--sample", "99");
	assert_int_equal(PARSE(&o, 0, av), 0);
	assert_string_equal(o.sample, "1000");
	assert_int_equal(o.optind, 1);
	assert_string_equal(av[1], "99");

	assert_int_equal(PARSE(&o, 0, ARGV("--load")), 0);
	assert_int_equal(o.load, 100);
	assert_int_equal(PARSE(&o, 0, ARGV("--load=25")), 0);
	assert_int_equal(o.load, 25);
	assert_int_equal(PARSE(&o, 0, ARGV("-l50")), 0);
	assert_int_equal(o.load, 50);
	assert_int_equal(PARSE(&o, 0, ARGV("-vl")), 0);
	assert_int_equal(o.load, 100);
	assert_int_equal(o.verbose, 1);
	av = ARGV("-l", "50");
	assert_int_equal(PARSE(&o, 0, av), 0);
	assert_int_equal(o.load, 100);
	assert_int_equal(o.optind, 1);
	assert_int_equal(PARSE(&o, 0, ARGV("--load=x")), -EINVAL);
	assert_string_equal(o.err, "option '--load': invalid number 'x'");
}

static void test_optional_without_default(void **state)
{
	const char *s = "unset";
	long n = 7;
	const struct option_spec specs[] = {
	    {0, "name", OPT_STRING, &s, "S", "name", OPT_ARG_OPTIONAL, NULL},
	    {0, "num", OPT_INT, &n, "N", "num", OPT_ARG_OPTIONAL, NULL},
	    {'q', "quiet", OPT_FLAG, NULL, NULL, "discarded", 0, NULL},
	    {0, NULL, OPT_END, NULL, NULL, NULL, 0, NULL},
	};
	char err[64];
	int optind;

	(void)state;
	assert_int_equal(
	    options_parse(specs, 0, 3, ARGV("--name", "--num", "-q"), &optind, err, sizeof(err)),
	    0);
	assert_string_equal(s, "");
	assert_int_equal(n, 7);
	assert_int_equal(optind, 3);
}

static void test_error_truncated(void **state)
{
	struct opts o;
	char small[12];

	(void)state;
	opts_init(&o);
	assert_int_equal(
	    options_parse(o.specs, 0, 1, ARGV("--evnt"), &o.optind, small, sizeof(small)), -EINVAL);
	assert_string_equal(small, "unknown opt");
	opts_init(&o);
	assert_int_equal(options_parse(o.specs, 0, 1, ARGV("--evnt"), &o.optind, NULL, 0), -EINVAL);
}

static void test_usage(void **state)
{
	const struct option_spec specs[] = {
	    {'e', "event", OPT_LIST, NULL, "EV,..", "events to count", 0, NULL},
	    {'r', "repeat", OPT_INT, NULL, "N", "repeat N times", 0, NULL},
	    {0, "per-thread", OPT_FLAG, NULL, NULL, "counts per thread", 0, NULL},
	    {0, "sample", OPT_UINT64, NULL, "HZ", "sample at HZ", OPT_ARG_OPTIONAL, "1000"},
	    {'l', NULL, OPT_DURATION, NULL, NULL, "load period", OPT_ARG_OPTIONAL, "10ms"},
	    {'x', NULL, OPT_STRING, NULL, NULL, NULL, 0, NULL},
	    {0, "secret", OPT_FLAG, NULL, NULL, "hidden", OPT_HIDDEN, NULL},
	    {0, "a-very-long-option-name", OPT_STRING, NULL, "VALUE", "long one", 0, NULL},
	    {'h', "help", OPT_FLAG, NULL, NULL, "show this help", 0, NULL},
	    {0, NULL, OPT_END, NULL, NULL, NULL, 0, NULL},
	};
	const struct option_spec none[] = {{0, NULL, OPT_END, NULL, NULL, NULL, 0, NULL}};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	options_usage(f, "perfscope stat [-e EV,..] -- CMD..", specs);
	fclose(f);
	assert_string_equal(text, "usage: perfscope stat [-e EV,..] -- CMD..\n"
				  "\n"
				  "  -e, --event EV,..  events to count\n"
				  "  -r, --repeat N     repeat N times\n"
				  "      --per-thread   counts per thread\n"
				  "      --sample[=HZ]  sample at HZ\n"
				  "  -l[TIME]           load period\n"
				  "  -x VALUE\n"
				  "      --a-very-long-option-name VALUE\n"
				  "                     long one\n"
				  "  -h, --help         show this help\n");
	free(text);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	options_usage(f, "perfscope info [DIR]", none);
	fclose(f);
	assert_string_equal(text, "usage: perfscope info [DIR]\n");
	free(text);
}

static void test_edit_distance(void **state)
{
	char a[101], b[101];

	(void)state;
	assert_int_equal(edit_distance("kitten", "sitting"), 3);
	assert_int_equal(edit_distance("", "abc"), 3);
	assert_int_equal(edit_distance("abc", ""), 3);
	assert_int_equal(edit_distance("", ""), 0);
	assert_int_equal(edit_distance("ABC", "abc"), 0);
	assert_int_equal(edit_distance("flaw", "lawn"), 2);
	assert_int_equal(edit_distance("evnt", "event"), 1);
	assert_int_equal(edit_distance("tpo", "top"), 2);
	memset(a, 'a', 100);
	memset(b, 'b', 100);
	a[100] = b[100] = '\0';
	assert_int_equal(edit_distance(a, b), 100);
	b[0] = 'a';
	assert_int_equal(edit_distance(a, b), 99);
	assert_int_equal(edit_distance("x", b), 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_long_forms),
	    cmocka_unit_test(test_short_forms),
	    cmocka_unit_test(test_bundling),
	    cmocka_unit_test(test_double_dash),
	    cmocka_unit_test(test_stop_at_operand),
	    cmocka_unit_test(test_collect_operands),
	    cmocka_unit_test(test_list),
	    cmocka_unit_test(test_duration),
	    cmocka_unit_test(test_size),
	    cmocka_unit_test(test_number_errors),
	    cmocka_unit_test(test_unknown_option),
	    cmocka_unit_test(test_missing_value),
	    cmocka_unit_test(test_optional_value),
	    cmocka_unit_test(test_optional_without_default),
	    cmocka_unit_test(test_error_truncated),
	    cmocka_unit_test(test_usage),
	    cmocka_unit_test(test_edit_distance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
