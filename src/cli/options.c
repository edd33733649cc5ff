/* options.c - one parser and help printer for every subcommand's option table. */
#include "cli/options.h"

#include "lib/array.h"
#include "lib/compiler.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Left column of the help wider than this gets its help text on the next line. */
#define USAGE_MAX_LEFT 30
/* Room for "--" + a long option name as shown in messages. */
#define OPT_SHOWN_MAX 64

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Unsigned decimal digits at *P; advances *P. Returns the digit count, sets *over on overflow. */
static size_t digits_u64(const char **p, uint64_t *v, bool *over)
{
	size_t n = 0;

	*v = 0;
	*over = false;
	while (isdigit((unsigned char)**p)) {
		unsigned d = (unsigned)(**p - '0');

		if (*v > (UINT64_MAX - d) / 10)
			*over = true;
		else
			*v = *v * 10 + d;
		(*p)++;
		n++;
	}
	return n;
}

/* parse_size() that tells overflow (-ERANGE) from bad syntax (-EINVAL). */
static int size_parse(const char *s, uint64_t *out)
{
	uint64_t v, mult = 1;
	bool over;

	if (!s || digits_u64(&s, &v, &over) == 0)
		return -EINVAL;
	switch (*s) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		s++;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		s++;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		s++;
		break;
	default:
		return -EINVAL;
	}
	if (*s != '\0')
		return -EINVAL;
	if (over || v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

int parse_size(const char *text, uint64_t *bytes)
{
	return size_parse(text, bytes) ? -EINVAL : 0;
}

/* parse_duration_ns() that tells overflow (-ERANGE) from bad syntax (-EINVAL). */
static int duration_parse(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
	    {"", 1000000000ULL}, {"s", 1000000000ULL},	 {"ms", 1000000ULL},
	    {"us", 1000ULL},	 {"\xc2\xb5s", 1000ULL}, {"ns", 1ULL},
	};
	uint64_t whole, frac9 = 0, unit = 0, total;
	size_t nwhole, nfrac = 0, i;
	bool over;

	if (!s)
		return -EINVAL;
	nwhole = digits_u64(&s, &whole, &over);
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			if (nfrac < 9)
				frac9 = frac9 * 10 + (uint64_t)(*s - '0');
			nfrac++;
			s++;
		}
		for (i = nfrac; i < 9; i++)
			frac9 *= 10;
	}
	if (nwhole + nfrac == 0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(s, units[i].suffix) == 0) {
			unit = units[i].ns;
			break;
		}
	}
	if (!unit)
		return -EINVAL;
	if (over || whole > UINT64_MAX / unit)
		return -ERANGE;
	total = whole * unit;
	/* frac9 < 1e9 and unit <= 1e9: the product fits. */
	if (total > UINT64_MAX - frac9 * unit / 1000000000ULL)
		return -ERANGE;
	*out = total + frac9 * unit / 1000000000ULL;
	return 0;
}

int parse_duration_ns(const char *text, uint64_t *ns)
{
	return duration_parse(text, ns) ? -EINVAL : 0;
}

/* Decimal long with optional sign; -ERANGE when it does not fit. */
static int long_parse(const char *s, long *out)
{
	char *end;
	long v;

	if (!s || !(isdigit((unsigned char)s[0]) ||
		    ((s[0] == '-' || s[0] == '+') && isdigit((unsigned char)s[1]))))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

void opt_list_release(struct opt_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free((char *)l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
	l->cap = 0;
}

static int list_append(struct opt_list *l, const char *s, size_t len)
{
	char *copy;

	if (ARRAY_GROW(l->items, l->n + 1, l->cap))
		return -ENOMEM;
	copy = strndup(s, len);
	if (!copy)
		return -ENOMEM;
	l->items[l->n++] = copy;
	return 0;
}

static const struct option_spec *find_long(const struct option_spec *specs, const char *name,
					   size_t len)
{
	for (; specs->type != OPT_END; specs++) {
		if (specs->long_name && strlen(specs->long_name) == len &&
		    strncmp(specs->long_name, name, len) == 0)
			return specs;
	}
	return NULL;
}

static const struct option_spec *find_short(const struct option_spec *specs, char c)
{
	for (; specs->type != OPT_END; specs++) {
		if (specs->short_name && specs->short_name == c)
			return specs;
	}
	return NULL;
}

/* Closest visible long option to NAME[0..len), or NULL when none is close enough. */
static const char *suggest_long(const struct option_spec *specs, const char *name, size_t len)
{
	const struct option_spec *s;
	const char *best = NULL, *prefix = NULL;
	size_t best_d = SIZE_MAX, nprefix = 0;
	char buf[OPT_SHOWN_MAX];

	if (len == 0 || len >= sizeof(buf))
		return NULL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	for (s = specs; s->type != OPT_END; s++) {
		size_t d, limit;

		if (!s->long_name || (s->flags & OPT_HIDDEN))
			continue;
		d = edit_distance(buf, s->long_name);
		limit = strlen(s->long_name) / 3 + 1;
		if (limit > 3)
			limit = 3;
		if (d <= limit && d < best_d) {
			best = s->long_name;
			best_d = d;
		}
		if (len >= 2 && strncasecmp(s->long_name, buf, len) == 0) {
			prefix = s->long_name;
			nprefix++;
		}
	}
	if (!best && nprefix == 1)
		best = prefix;
	return best;
}

static void unknown_option(const struct option_spec *specs, const char *arg, size_t len,
			   const char *suggest_from, size_t suggest_len, char *err, size_t errlen)
{
	const char *best = suggest_long(specs, suggest_from, suggest_len);

	if (best)
		set_err(err, errlen, "unknown option '%.*s'; did you mean --%s?", (int)len, arg,
			best);
	else
		set_err(err, errlen, "unknown option '%.*s'", (int)len, arg);
}

/* OPT_INT, OPT_UINT64 or OPT_DURATION: VAL parsed into S's value. 0 or -EINVAL (said). */
static int opt_apply_number(const struct option_spec *s, const char *shown, const char *val,
			    char *err, size_t errlen)
{
	uint64_t u64 = 0;
	long l = 0;
	int ret;

	switch (s->type) {
	case OPT_INT:
		ret = long_parse(val, &l);
		if (ret == -EINVAL) {
			set_err(err, errlen, "option '%s': invalid number '%s'", shown, val);
			return -EINVAL;
		}
		if (ret)
			break;
		if (s->value)
			*(long *)s->value = l;
		return 0;
	case OPT_UINT64:
		ret = size_parse(val, &u64);
		if (ret == -EINVAL) {
			set_err(err, errlen,
				"option '%s': invalid size '%s' (expected e.g. 4096, 64k, 16M, 1G)",
				shown, val);
			return -EINVAL;
		}
		if (ret)
			break;
		if (s->value)
			*(uint64_t *)s->value = u64;
		return 0;
	default: /* OPT_DURATION */
		ret = duration_parse(val, &u64);
		if (ret == -EINVAL) {
			set_err(err, errlen,
				"option '%s': invalid duration '%s' (expected e.g. 100ns, 10us, "
				"5ms, 1.5s)",
				shown, val);
			return -EINVAL;
		}
		if (ret)
			break;
		if (s->value)
			*(uint64_t *)s->value = u64;
		return 0;
	}
	set_err(err, errlen, "option '%s': value '%s' out of range", shown, val);
	return -EINVAL;
}

/* OPT_LIST: the comma-separated items of VAL appended to S's list. 0 or a negative errno
 * (said). */
static int opt_apply_list(const struct option_spec *s, const char *shown, const char *val,
			  char *err, size_t errlen)
{
	const char *p, *comma;

	for (p = val;; p = comma + 1) {
		size_t len;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0) {
			set_err(err, errlen, "option '%s': empty item in '%s'", shown, val);
			return -EINVAL;
		}
		if (s->value && list_append(s->value, p, len)) {
			set_err(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (!comma)
			return 0;
	}
}

/* Store VAL (NULL: given bare without a default) into the option S, shown to the user as
 * SHOWN. */
static int opt_apply(const struct option_spec *s, const char *shown, const char *val, char *err,
		     size_t errlen)
{
	if (!val) {
		if (s->type == OPT_STRING && s->value)
			*(const char **)s->value = "";
		return 0;
	}
	switch (s->type) {
	case OPT_STRING:
		if (s->value)
			*(const char **)s->value = val;
		return 0;
	case OPT_INT:
	case OPT_UINT64:
	case OPT_DURATION:
		return opt_apply_number(s, shown, val, err, errlen);
	case OPT_LIST:
		return opt_apply_list(s, shown, val, err, errlen);
	case OPT_FLAG:
		if (s->value)
			*(int *)s->value = 1;
		return 0;
	case OPT_END:
		break;
	}
	set_err(err, errlen, "option '%s': unsupported option type %d", shown, (int)s->type);
	return -EINVAL;
}

/* Parse argv[*i], a "--name[=value]" argument; advances *i past what it used. */
static int parse_long(const struct option_spec *specs, int argc, char **argv, int *i, char *err,
		      size_t errlen)
{
	const char *arg = argv[*i], *name = arg + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option_spec *s = find_long(specs, name, len);
	char shown[OPT_SHOWN_MAX];
	const char *val;

	if (!s) {
		unknown_option(specs, arg, len + 2, name, len, err, errlen);
		return -EINVAL;
	}
	snprintf(shown, sizeof(shown), "--%s", s->long_name);
	if (s->type == OPT_FLAG) {
		if (eq) {
			set_err(err, errlen, "option '%s' takes no value", shown);
			return -EINVAL;
		}
		(*i)++;
		return opt_apply(s, shown, "", err, errlen);
	}
	if (eq) {
		val = eq + 1;
		(*i)++;
	} else if (s->flags & OPT_ARG_OPTIONAL) {
		val = s->optional_default;
		(*i)++;
	} else {
		if (*i + 1 >= argc) {
			set_err(err, errlen, "option '%s' requires a value", shown);
			return -EINVAL;
		}
		val = argv[*i + 1];
		*i += 2;
	}
	return opt_apply(s, shown, val, err, errlen);
}

/* Parse argv[*i], one or more bundled short options "-abc" / "-xVAL"; advances *i. */
static int parse_short(const struct option_spec *specs, int argc, char **argv, int *i, char *err,
		       size_t errlen)
{
	const char *arg = argv[*i];
	size_t j;

	for (j = 1; arg[j]; j++) {
		const struct option_spec *s = find_short(specs, arg[j]);
		char shown[3] = {'-', arg[j], '\0'};
		const char *val;
		int ret;

		if (!s) {
			/* "-per-thread" typed for "--per-thread": suggest from the whole word. */
			const char *word = arg + 1;
			size_t wlen = j == 1 ? strcspn(word, "=") : 0;

			unknown_option(specs, shown, 2, word, wlen > 1 ? wlen : 0, err, errlen);
			return -EINVAL;
		}
		if (s->type == OPT_FLAG) {
			ret = opt_apply(s, shown, "", err, errlen);
			if (ret)
				return ret;
			continue;
		}
		if (arg[j + 1]) {
			val = arg + j + 1;
			(*i)++;
		} else if (s->flags & OPT_ARG_OPTIONAL) {
			val = s->optional_default;
			(*i)++;
		} else {
			if (*i + 1 >= argc) {
				set_err(err, errlen, "option '%s' requires a value", shown);
				return -EINVAL;
			}
			val = argv[*i + 1];
			*i += 2;
		}
		return opt_apply(s, shown, val, err, errlen);
	}
	(*i)++;
	return 0;
}

int options_parse(const struct option_spec *specs, unsigned flags, int argc, char **argv,
		  int *optind_out, char *err, size_t errlen)
{
	bool stop = flags & OPT_STOP_AT_OPERAND;
	char **used = NULL, **operands = NULL;
	int nused = 0, nops = 0, i = 0, k, ret = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!specs || argc < 0 || (argc > 0 && !argv)) {
		set_err(err, errlen, "internal error: bad arguments to options_parse");
		return -EINVAL;
	}
	if (!stop) {
		used = malloc(2 * ((size_t)argc + 1) * sizeof(*used));
		if (!used) {
			set_err(err, errlen, "out of memory");
			return -ENOMEM;
		}
		operands = used + argc + 1;
	}
	while (i < argc) {
		const char *arg = argv[i];
		int start = i;

		if (arg[0] != '-' || arg[1] == '\0') {
			if (stop)
				break;
			operands[nops++] = argv[i++];
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			i++;
			if (stop)
				break;
			used[nused++] = argv[start];
			while (i < argc)
				operands[nops++] = argv[i++];
			break;
		}
		if (arg[1] == '-')
			ret = parse_long(specs, argc, argv, &i, err, errlen);
		else
			ret = parse_short(specs, argc, argv, &i, err, errlen);
		if (ret)
			goto out;
		if (!stop) {
			for (k = start; k < i; k++)
				used[nused++] = argv[k];
		}
	}
	if (!stop) {
		for (k = 0; k < nused; k++)
			argv[k] = used[k];
		for (k = 0; k < nops; k++)
			argv[nused + k] = operands[k];
		i = nused;
	}
	if (optind_out)
		*optind_out = i;
out:
	free(used);
	return ret;
}

static const char *default_argname(enum opt_type type)
{
	switch (type) {
	case OPT_INT:
		return "N";
	case OPT_UINT64:
		return "SIZE";
	case OPT_DURATION:
		return "TIME";
	case OPT_LIST:
		return "LIST";
	default:
		return "VALUE";
	}
}

/* Left column of the help for S ("  -e, --event EV,.."), into BUF; returns its length. */
static int usage_left(const struct option_spec *s, char *buf, size_t len)
{
	const char *argname = s->argname ? s->argname : default_argname(s->type);
	bool optional = s->flags & OPT_ARG_OPTIONAL;
	int n;

	if (s->short_name && s->long_name)
		n = snprintf(buf, len, "  -%c, --%s", s->short_name, s->long_name);
	else if (s->short_name)
		n = snprintf(buf, len, "  -%c", s->short_name);
	else
		n = snprintf(buf, len, "      --%s", s->long_name ? s->long_name : "");
	if (n < 0 || (size_t)n >= len || s->type == OPT_FLAG)
		return n;
	if (optional && s->long_name)
		n += snprintf(buf + n, len - (size_t)n, "[=%s]", argname);
	else if (optional)
		n += snprintf(buf + n, len - (size_t)n, "[%s]", argname);
	else
		n += snprintf(buf + n, len - (size_t)n, " %s", argname);
	return n;
}

void options_usage(FILE *f, const char *usage, const struct option_spec *specs)
{
	const struct option_spec *s;
	char left[160];
	int width = 0, visible = 0;

	for (s = specs; s && s->type != OPT_END; s++) {
		int n;

		if (s->flags & OPT_HIDDEN)
			continue;
		visible++;
		n = usage_left(s, left, sizeof(left));
		if (n > width && n <= USAGE_MAX_LEFT)
			width = n;
	}
	if (usage)
		fprintf(f, "usage: %s\n%s", usage, visible ? "\n" : "");
	for (s = specs; s && s->type != OPT_END; s++) {
		int n;

		if (s->flags & OPT_HIDDEN)
			continue;
		n = usage_left(s, left, sizeof(left));
		if (!s->help || !s->help[0])
			fprintf(f, "%s\n", left);
		else if (n > width)
			fprintf(f, "%s\n%*s  %s\n", left, width, "", s->help);
		else
			fprintf(f, "%-*s  %s\n", width, left, s->help);
	}
}

int options_out_format(int csv, int json, const char *word, enum out_format *out, char *err,
		       size_t errlen)
{
	static const char *const words[] = {"text", "csv", "json", "long"};

	*out = csv ? OUT_CSV : json ? OUT_JSON : OUT_TEXT;
	if (!word)
		return 0;
	if (csv || json) {
		snprintf(err, errlen, "--format and --%s exclude each other", csv ? "csv" : "json");
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(word, words[i])) {
			*out = (enum out_format)i;
			return 0;
		}
	}
	snprintf(err, errlen, "--format %s: expected text, csv, json or long", word);
	return -EINVAL;
}
