/* select.c - function selection and gcc exclude lists for two-pass instrumentation. */
#include "analysis/profile/select.h"
#include "lib/path.h"
#include "lib/array.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- selection ------------------------------------------------------------------------------- */

size_t select_min_time(struct sel_func *f, size_t n, uint64_t min_ns)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		/* mean >= min  <=>  sum >= min * calls, without rounding or overflow */
		unsigned __int128 need = (unsigned __int128)min_ns * f[i].calls;

		f[i].selected =
		    f[i].calls > 0 && f[i].sum_ns >= 0 && (unsigned __int128)f[i].sum_ns >= need;
		k += (size_t)f[i].selected;
	}
	return k;
}

static int by_excl(const void *a, const void *b, void *arg)
{
	const struct sel_func *f = arg;
	const struct sel_func *x = &f[*(const size_t *)a], *y = &f[*(const size_t *)b];
	int c;

	if (x->excl_ns != y->excl_ns)
		return x->excl_ns < y->excl_ns ? 1 : -1;
	c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
	if (c)
		return c;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

size_t select_top(struct sel_func *f, size_t n, size_t top)
{
	size_t *idx = malloc((n + 1) * sizeof(*idx)), m = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		f[i].selected = 0;
		if (idx && f[i].calls > 0)
			idx[m++] = i;
	}
	if (!idx)
		return 0;
	qsort_r(idx, m, sizeof(*idx), by_excl, f);
	for (; k < m && k < top; k++)
		f[idx[k]].selected = 1;
	free(idx);
	return k;
}

/* ---- gcc names ------------------------------------------------------------------------------- */

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* Replace every FROM in S (in place; TO is not longer than FROM). */
static void replace_all(char *s, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to);
	char *p;

	while ((p = strstr(s, from)) != NULL) {
		memcpy(p, to, nt);
		memmove(p + nt, p + nf, strlen(p + nf) + 1);
	}
}

/* Remove every "[abi:..]" tag. */
static void drop_abi_tags(char *s)
{
	char *p, *e;

	while ((p = strstr(s, "[abi:")) != NULL && (e = strchr(p, ']')) != NULL)
		memmove(p, e + 1, strlen(e + 1) + 1);
}

/* "{lambda(int)#1}" (demangler) -> "<lambda(int)>" (gcc). */
static void lambdas(char *s)
{
	char *p = s;

	while ((p = strstr(p, "{lambda(")) != NULL) {
		char *q = p + 7;
		int depth = 0;

		for (; *q; q++) {
			if (*q == '(')
				depth++;
			else if (*q == ')' && --depth == 0)
				break;
		}
		if (!*q || q[1] != '#')
			return;
		char *close = strchr(q, '}');

		if (!close)
			return;
		*p = '<';
		q[1] = '>';
		memmove(q + 2, close + 1, strlen(close + 1) + 1);
		p = q + 2;
	}
}

/* Strip trailing qualifiers and the parameter list of a demangled C++ name. */
static void drop_params(char *s)
{
	static const char *const quals[] = {" const", " volatile", " &&", " &", " noexcept"};
	size_t len = strlen(s);
	int again = 1;

	while (again) {
		again = 0;
		while (len && s[len - 1] == ' ')
			len--;
		for (size_t i = 0; i < sizeof(quals) / sizeof(quals[0]); i++) {
			if (ends_with(s, len, quals[i])) {
				len -= strlen(quals[i]);
				again = 1;
			}
		}
	}
	s[len] = 0;
	if (len && s[len - 1] == ')') {
		int depth = 0;

		for (size_t i = len; i-- > 0;) {
			if (s[i] == ')')
				depth++;
			else if (s[i] == '(' && --depth == 0) {
				if (i > 0)
					s[i] = 0;
				break;
			}
		}
	}
}

/* "operator" starting at S[I] as a keyword (not part of "my_operator" or "operators"). */
static int operator_at(const char *s, size_t i)
{
	return starts_with(s + i, "operator") && (i == 0 || !is_ident(s[i - 1])) &&
	       !is_ident(s[i + 8]);
}

/*
 * Walk S at template/parenthesis depth 0 up to an operator keyword: *LAST_SPACE is the last
 * space there (or -1), *LAST_SEP the index of the last "::" (or -1), *OP the index of the
 * operator keyword (or -1).
 */
static void scan_top(const char *s, long *last_space, long *last_sep, long *op)
{
	int depth = 0;

	*last_space = *last_sep = *op = -1;
	for (long i = 0; s[i]; i++) {
		char c = s[i];

		if (depth == 0 && operator_at(s, (size_t)i)) {
			*op = i;
			return;
		}
		if (c == '<' || c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		else if (depth == 0 && c == ' ')
			*last_space = i;
		else if (depth == 0 && c == ':' && s[i + 1] == ':')
			*last_sep = i++;
	}
}

static int plain_identifier(const char *s)
{
	return !strpbrk(s, "(<: ");
}

static int copy_out(const char *s, char *out, size_t len)
{
	size_t n = strlen(s);

	if (n == 0)
		return -ENOENT;
	if (n + 1 > len)
		return -ENAMETOOLONG;
	memcpy(out, s, n + 1);
	return (int)n;
}

/* sel_gcc_name() into a malloc'd string at *OUT. 0, -ENOENT or -ENOMEM. */
static int gcc_name_dup(const char *name, char **out)
{
	char *s, *p;
	long sp, sep, op;

	*out = NULL;
	if (!name || !*name)
		return -ENOENT;
	s = strdup(name);
	if (!s)
		return -ENOMEM;
	p = strstr(s, " [clone ");
	if (p)
		*p = 0;
	if (plain_identifier(s)) {
		size_t len;

		s[strcspn(s, ".")] = 0; /* local clones: f.constprop.0, f.part.0, f.cold */
		len = strlen(s);
		if (!strcmp(s, "MAIN__")) {
			s[0] = 0;
		} else if (starts_with(s, "__") && (p = strstr(s + 2, "_MOD_")) != NULL) {
			memmove(s, p + 5, strlen(p + 5) + 1); /* Fortran module procedure */
		} else if (len >= 2 && s[len - 1] == '_' && s[len - 2] != '_') {
			s[len - 1] = 0; /* Fortran external procedure (or a C name ending in _) */
		}
	} else {
		drop_abi_tags(s);
		replace_all(s, "(anonymous namespace)", "{anonymous}");
		lambdas(s);
		drop_params(s);
		scan_top(s, &sp, &sep, &op);
		if (sp >= 0)
			memmove(s, s + sp + 1, strlen(s + sp + 1) + 1); /* the return type */
	}
	if (!*s) {
		free(s);
		return -ENOENT;
	}
	*out = s;
	return 0;
}

int sel_gcc_name(const char *name, char *out, size_t len)
{
	char *s;
	int ret = gcc_name_dup(name, &s);

	if (ret == 0)
		ret = copy_out(s, out, len);
	free(s);
	return ret;
}

/* Length of the operator name at S ("operator" and its token); for a conversion operator
 * "operator " (gcc spells the type its own way: "operator long int"). */
static size_t operator_len(const char *s)
{
	static const char *const toks[] = {
	    "()", "[]", "->*", "->",	 "<<=",	 ">>=",	      "<=>",	 "<<",	">>",
	    "<=", ">=", "==",  "!=",	 "&&",	 "||",	      "++",	 "--",	"+=",
	    "-=", "*=", "/=",  "%=",	 "^=",	 "&=",	      "|=",	 "+",	"-",
	    "*",  "/",	"%",   "^",	 "&",	 "|",	      "~",	 "!",	"=",
	    "<",  ">",	",",   " new[]", " new", " delete[]", " delete", "\"\""};

	for (size_t i = 0; i < sizeof(toks) / sizeof(toks[0]); i++)
		if (starts_with(s + 8, toks[i]))
			return 8 + strlen(toks[i]);
	return s[8] == ' ' ? 9 : 8;
}

/* sel_exclude_key() into a malloc'd string at *OUT. 0, -ENOENT or -ENOMEM. */
static int exclude_key_dup(const char *name, char **out)
{
	char *s;
	long sp, sep, op, comp, start = 0;
	int ret = gcc_name_dup(name, &s);

	*out = NULL;
	if (ret)
		return ret;
	if (plain_identifier(s)) {
		*out = s;
		return 0;
	}
	scan_top(s, &sp, &sep, &op);
	if (op >= 0) {
		comp = op;
		s[op + (long)operator_len(s + op)] = 0;
	} else {
		comp = sep >= 0 ? sep + 2 : 0;
		s[comp + (long)strcspn(s + comp, "<")] = 0; /* the function's template arguments */
	}
	/* in the scope, what gcc spells its own way: template arguments, parameter types */
	for (long i = 0; i < comp; i++)
		if (s[i] == '>' || s[i] == ')')
			start = i;
	memmove(s, s + start, strlen(s + start) + 1);
	if (!*s) {
		free(s);
		return -ENOENT;
	}
	*out = s;
	return 0;
}

int sel_exclude_key(const char *name, char *out, size_t len)
{
	char *s;
	int ret = exclude_key_dup(name, &s);

	if (ret == 0)
		ret = copy_out(s, out, len);
	free(s);
	return ret;
}

/* ---- exclude lists --------------------------------------------------------------------------- */

/*
 * A substring index: every suffix of a set of texts, sorted, so that the texts containing a
 * pattern are the owners of the suffixes that start with it (a contiguous range). Building is
 * O(L log L) for L characters; one query is O(|pattern| log L) plus the matches.
 */
struct sfx {
	uint32_t owner, off; /* text index, offset of the suffix in it */
};

struct sfx_index {
	const char *const *texts; /* NULL entries have no suffixes */
	struct sfx *v;
	size_t n;
};

static const char *sfx_str(const struct sfx_index *x, const struct sfx *s)
{
	return x->texts[s->owner] + s->off;
}

static int sfx_cmp(const void *a, const void *b, void *arg)
{
	const struct sfx *p = a, *q = b;
	int c = strcmp(sfx_str(arg, p), sfx_str(arg, q));

	if (c)
		return c;
	return p->owner != q->owner ? (p->owner < q->owner ? -1 : 1) : (p->off < q->off ? -1 : 1);
}

static int sfx_build(struct sfx_index *x, const char *const *texts, size_t n)
{
	size_t total = 0;

	x->texts = texts;
	x->n = 0;
	if (n > UINT32_MAX)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		total += texts[i] ? strlen(texts[i]) : 0;
	x->v = malloc((total + 1) * sizeof(*x->v));
	if (!x->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t o = 0; texts[i] && texts[i][o]; o++)
			x->v[x->n++] = (struct sfx){.owner = (uint32_t)i, .off = (uint32_t)o};
	qsort_r(x->v, x->n, sizeof(*x->v), sfx_cmp, x);
	return 0;
}

/* The range [*lo, return) of the suffixes that start with PAT. */
static size_t sfx_range(const struct sfx_index *x, const char *pat, size_t *lo)
{
	size_t a = 0, b = x->n, len = strlen(pat);

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (strcmp(sfx_str(x, &x->v[mid]), pat) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (b < x->n && strncmp(sfx_str(x, &x->v[b]), pat, len) == 0)
		b++;
	return b > a ? b : a;
}

/* MARK[i] = 1 for every text that contains one of PATS (SELF: texts and patterns are the same
 * list, and a pattern does not mark its own text). 0 or -ENOMEM. */
static int mark_containing(const char *const *texts, size_t n, char *const *pats, size_t npats,
			   int self, char *mark)
{
	struct sfx_index x;

	if (npats == 0)
		return 0;
	if (sfx_build(&x, texts, n))
		return -ENOMEM;
	for (size_t j = 0; j < npats; j++) {
		size_t lo, hi = sfx_range(&x, pats[j], &lo);

		for (size_t k = lo; k < hi; k++)
			if (!self || x.v[k].owner != j)
				mark[x.v[k].owner] = 1;
	}
	free(x.v);
	return 0;
}

struct strv {
	char **v;
	size_t n, cap;
};

static int strv_add(struct strv *sv, const char *s)
{
	if (ARRAY_GROW(sv->v, sv->n + 1, sv->cap))
		return -ENOMEM;
	sv->v[sv->n] = strdup(s);
	if (!sv->v[sv->n])
		return -ENOMEM;
	sv->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort, drop duplicates, and drop every entry that contains another one (the shorter already
 * matches whatever the longer does). 0 or -ENOMEM. */
static int strv_minimize(struct strv *sv)
{
	char *drop;
	size_t k = 0;

	if (sv->n == 0)
		return 0;
	qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
	for (size_t i = 0; i < sv->n; i++) {
		if (k && !strcmp(sv->v[k - 1], sv->v[i]))
			free(sv->v[i]);
		else
			sv->v[k++] = sv->v[i];
	}
	sv->n = k;
	drop = calloc(sv->n, 1);
	if (!drop || mark_containing((const char *const *)sv->v, sv->n, sv->v, sv->n, 1, drop)) {
		free(drop);
		return -ENOMEM;
	}
	k = 0;
	for (size_t i = 0; i < sv->n; i++) {
		if (drop[i])
			free(sv->v[i]);
		else
			sv->v[k++] = sv->v[i];
	}
	sv->n = k;
	free(drop);
	return 0;
}

/* An entry gcc cannot be given: empty, or ending in '\' (that would escape the next ','). */
static int expressible(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && s[n - 1] != '\\';
}

/* The base names of files that hold no selected function and that no selected function's file
 * contains, into FILES; marks the functions of those files in COVERED. 0 or -ENOMEM. */
static int exclude_files(const struct sel_func *f, size_t n, struct strv *files, char *covered)
{
	const char **sel = calloc(n + 1, sizeof(*sel)), **uns = calloc(n + 1, sizeof(*uns));
	size_t nsel = 0, nuns = 0;
	int ret = -ENOMEM;

	if (!sel || !uns)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *file = f[i].file ? f[i].file : "";

		if (f[i].selected && !file[0]) {
			ret = 0; /* a file entry might exclude it: no file entries at all */
			goto out;
		}
		if (file[0])
			*(f[i].selected ? &sel[nsel++] : &uns[nuns++]) = file;
	}
	qsort(sel, nsel, sizeof(*sel), cmp_str);
	qsort(uns, nuns, sizeof(*uns), cmp_str);
	for (size_t i = 0; i < nuns; i++) {
		const char *b = path_base(uns[i]);
		int usable = expressible(b);

		if (i > 0 && !strcmp(uns[i - 1], uns[i]))
			continue;
		for (size_t j = 0; j < nsel && usable; j++)
			usable = !strstr(sel[j], b);
		if (usable && strv_add(files, b))
			goto out;
	}
	if (strv_minimize(files))
		goto out;
	/* the functions whose file's base name is an entry (any other a file entry matches is
	 * excluded twice, which is harmless) */
	for (size_t i = 0; i < n; i++) {
		const char *b = f[i].file && f[i].file[0] ? path_base(f[i].file) : NULL;

		covered[i] = !f[i].selected && b && files->n &&
			     bsearch(&b, files->v, files->n, sizeof(*files->v), cmp_str);
	}
	ret = 0;
out:
	free(sel);
	free(uns);
	return ret;
}

static int add_kept(struct sel_plan *p, size_t func, size_t sel, enum sel_keep_reason why)
{
	struct sel_kept *k = realloc(p->kept, (p->nkept + 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	p->kept = k;
	k[p->nkept++] = (struct sel_kept){.func = func, .selected = sel, .reason = why};
	return 0;
}

/* Name entries for the unselected functions not COVERED by a file entry; the ones whose key is
 * inside a selected function's gcc name are kept instead. 0 or -ENOMEM. */
static int exclude_names(struct sel_plan *p, const struct sel_func *f, size_t n,
			 const char *covered, struct strv *funcs)
{
	const char **sel = calloc(n + 1, sizeof(*sel));
	struct sfx_index x = {0};
	int ret = -ENOMEM;

	if (!sel)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		sel[i] = f[i].selected ? p->gcc_names[i] : NULL;
	if (sfx_build(&x, sel, n))
		goto out;
	for (size_t i = 0; i < n; i++) {
		size_t lo, hi;

		if (f[i].selected || covered[i])
			continue;
		if (!p->keys[i] || !expressible(p->keys[i])) {
			if (add_kept(p, i, n, SEL_KEEP_UNNAMED))
				goto out;
			continue;
		}
		hi = sfx_range(&x, p->keys[i], &lo);
		if (hi > lo) {
			if (add_kept(p, i, x.v[lo].owner, SEL_KEEP_CONFLICT))
				goto out;
		} else if (strv_add(funcs, p->keys[i])) {
			goto out;
		}
	}
	ret = strv_minimize(funcs);
out:
	free(x.v);
	free(sel);
	return ret;
}

int sel_plan_build(struct sel_plan *p, const struct sel_func *f, size_t n)
{
	struct strv funcs = {0}, files = {0};
	char *covered = calloc(n + 1, 1);
	int ret = -ENOMEM;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->gcc_names = calloc(n + 1, sizeof(*p->gcc_names));
	p->keys = calloc(n + 1, sizeof(*p->keys));
	if (!covered || !p->gcc_names || !p->keys)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!f[i].named)
			continue;
		if (gcc_name_dup(f[i].name, &p->gcc_names[i]) == -ENOMEM ||
		    exclude_key_dup(f[i].name, &p->keys[i]) == -ENOMEM)
			goto out;
	}
	if (exclude_files(f, n, &files, covered) || exclude_names(p, f, n, covered, &funcs))
		goto out;
	ret = 0;
out:
	p->funcs = funcs.v;
	p->nfuncs = funcs.n;
	p->files = files.v;
	p->nfiles = files.n;
	free(covered);
	return ret;
}

void sel_plan_release(struct sel_plan *p)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		free(p->funcs[i]);
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	for (size_t i = 0; i < p->n; i++) {
		if (p->gcc_names)
			free(p->gcc_names[i]);
		if (p->keys)
			free(p->keys[i]);
	}
	free(p->funcs);
	free(p->files);
	free(p->kept);
	free(p->gcc_names);
	free(p->keys);
	memset(p, 0, sizeof(*p));
}

int sel_plan_check(const struct sel_plan *p, const struct sel_func *f, size_t n, size_t *lost,
		   size_t *uncovered)
{
	const char **names = calloc(n + 1, sizeof(*names)), **files = calloc(n + 1, sizeof(*files));
	char *by_name = calloc(n + 1, 1), *by_file = calloc(n + 1, 1);
	int ret = -ENOMEM;

	*lost = *uncovered = 0;
	if (!names || !files || !by_name || !by_file)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *file = f[i].file ? f[i].file : "";

		names[i] = i < p->n ? p->gcc_names[i] : NULL;
		/* gcc sees a path that ends like the DWARF one: a selected function's whole path
		 * holds everything gcc could match, an unselected one's base name is sure to match
		 */
		files[i] = !file[0] ? NULL : f[i].selected ? file : path_base(file);
	}
	if (mark_containing(names, n, p->funcs, p->nfuncs, 0, by_name) ||
	    mark_containing(files, n, p->files, p->nfiles, 0, by_file))
		goto out;
	for (size_t i = 0; i < n; i++) {
		int excluded =
		    by_name[i] || by_file[i] || (f[i].selected && !files[i] && p->nfiles);

		if (f[i].selected)
			*lost += (size_t)excluded;
		else
			*uncovered += (size_t)!excluded;
	}
	ret = 0;
out:
	free(names);
	free(files);
	free(by_name);
	free(by_file);
	return ret;
}

/* ---- options --------------------------------------------------------------------------------- */

/* Longest list word: the kernel refuses a single argument over 128 KiB (MAX_ARG_STRLEN). */
#define SEL_WORD_MAX 65536

/* A character the shell takes literally in a word. */
static int shell_plain(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_-=,./:+@%", c);
}

/* Append " OPT=E1,E2.." to F (a ',' inside an entry escaped as '\,'), single-quoted when the
 * shell would otherwise change it. 0 or -ENOMEM. */
static int print_word(FILE *f, const char *opt, char *const *list, size_t n)
{
	char *word = NULL;
	size_t len = 0;
	FILE *w = open_memstream(&word, &len);
	int quote = 0;

	if (!w)
		return -ENOMEM;
	fprintf(w, "%s=", opt);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', w);
		for (const char *c = list[i]; *c; c++) {
			if (*c == ',')
				fputc('\\', w);
			fputc(*c, w);
		}
	}
	if (fclose(w) != 0 || !word) {
		free(word);
		return -ENOMEM;
	}
	for (const char *c = word; *c && !quote; c++)
		quote = !shell_plain(*c);
	fputc(' ', f);
	if (quote)
		fputc('\'', f);
	for (const char *c = word; *c; c++) {
		if (quote && *c == '\'')
			fputs("'\\''", f);
		else
			fputc(*c, f);
	}
	if (quote)
		fputc('\'', f);
	free(word);
	return 0;
}

/* OPT with LIST, in as many words as it takes to keep each under SEL_WORD_MAX bytes (gcc adds
 * up repeated exclude options). 0 or -ENOMEM. */
static int print_list(FILE *f, const char *opt, char *const *list, size_t n)
{
	size_t start = 0, len = 0;

	for (size_t i = 0; i < n; i++) {
		size_t add = strlen(list[i]) + 1; /* and the ',' after it */

		for (const char *c = list[i]; *c; c++)
			add += *c == ','; /* escaped */

		if (i > start && len + add > SEL_WORD_MAX) {
			if (print_word(f, opt, list + start, i - start))
				return -ENOMEM;
			start = i;
			len = 0;
		}
		len += add;
	}
	return print_word(f, opt, list + start, n - start);
}

char *sel_plan_gcc_options(const struct sel_plan *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret = 0;

	if (!f)
		return NULL;
	fputs("-finstrument-functions", f);
	if (p->nfuncs)
		ret = print_list(f, "-finstrument-functions-exclude-function-list", p->funcs,
				 p->nfuncs);
	if (p->nfiles && ret == 0)
		ret =
		    print_list(f, "-finstrument-functions-exclude-file-list", p->files, p->nfiles);
	if (fclose(f) != 0 || ret) {
		free(text);
		return NULL;
	}
	return text;
}
