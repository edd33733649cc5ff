/*
 * select.h - two-pass instrumentation (`perfscope select`): which functions of a fully
 * instrumented first run to keep, and the gcc exclude lists that instrument only those in a
 * rebuild. Pure logic on names and numbers: no files, no symbol tables.
 *
 * gcc (-finstrument-functions-exclude-function-list=SYM,SYM..) leaves a function out when one
 * SYM is a SUBSTRING of its user-visible name: for C the identifier, for C++ the qualified name
 * without return type and parameters ("ns::C::method", "Vec<long int>::get",
 * "{anonymous}::f"), for Fortran the procedure name ("work" for __mm_MOD_work, "ext" for ext_).
 * -finstrument-functions-exclude-file-list=FILE,.. leaves out every function whose defining
 * file (as given to the compiler, or the header's path) has FILE as a substring. In both lists
 * a ',' inside an entry is written '\,'.
 */
#ifndef PSC_SELECT_H
#define PSC_SELECT_H

#include <stddef.h>
#include <stdint.h>

struct sel_func {
	const char *name; /* as symbols.h gives it: demangled C++, raw C and Fortran names */
	const char *file; /* source file that defines it (DWARF), "" unknown */
	int named;	  /* 0 when no symbol named it ("module+0x..."): no gcc name known */
	uint64_t calls;
	int64_t sum_ns;	 /* every call's duration summed: mean = sum_ns / calls */
	int64_t excl_ns; /* exclusive time */
	int selected;	 /* set by select_min_time() and select_top() */
};

/* Select the functions with calls whose mean duration per call is at least MIN_NS (and clear
 * the others). Returns how many are selected. */
size_t select_min_time(struct sel_func *f, size_t n, uint64_t min_ns);

/* Select the TOP functions with the most exclusive time (ties: by name), among those with
 * calls. Returns how many are selected (TOP, or fewer when fewer functions were called). */
size_t select_top(struct sel_func *f, size_t n, size_t top);

/*
 * gcc's user-visible name of a function from NAME (see above) into OUT: clone suffixes
 * (".constprop.0", " [clone .cold]"), C++ return types, parameter lists, qualifiers and ABI tags
 * dropped, "(anonymous namespace)" as "{anonymous}", lambdas as "<lambda(..)>". Template
 * arguments stay as the demangler spells them (gcc writes "long int" for "long"). Returns the
 * length, -ENOENT when the name cannot be known (Fortran's MAIN__ is named after its PROGRAM
 * statement), -ENAMETOOLONG when OUT is too small.
 */
int sel_gcc_name(const char *name, char *out, size_t len);

/* The exclude entry for NAME into OUT: the longest end of sel_gcc_name() that does not depend
 * on how gcc spells template arguments or parameter types (">::get" for "Vec<long>::get()",
 * "ns::tf" for "int ns::tf<int>(int)"). Same returns as sel_gcc_name(). */
int sel_exclude_key(const char *name, char *out, size_t len);

enum sel_keep_reason {
	SEL_KEEP_UNNAMED,  /* no gcc name known: cannot be excluded by name */
	SEL_KEEP_CONFLICT, /* its entry would also exclude a selected function */
};

/* An unselected function that the rebuild still instruments. */
struct sel_kept {
	size_t func;	 /* index in the function array */
	size_t selected; /* SEL_KEEP_CONFLICT: the first selected function its entry matches */
	enum sel_keep_reason reason;
};

struct sel_plan {
	char **funcs; /* -finstrument-functions-exclude-function-list entries, sorted */
	size_t nfuncs;
	char **files; /* -finstrument-functions-exclude-file-list entries, sorted */
	size_t nfiles;
	struct sel_kept *kept; /* in function order */
	size_t nkept;
	char **gcc_names; /* per function: sel_gcc_name(), NULL when unknown */
	char **keys;	  /* per function: sel_exclude_key(), NULL when unknown */
	size_t n;
};

/*
 * The exclude lists that keep exactly the selected functions of F instrumented: a file is
 * excluded (by its base name) when none of its functions is selected, no selected function's
 * file contains that name and every selected function's file is known; every other unselected
 * function by its key, unless the key is a substring of a selected function's gcc name (then it
 * is kept, with the first such function). Entries that contain another entry are dropped.
 * 0 or -ENOMEM.
 */
int sel_plan_build(struct sel_plan *p, const struct sel_func *f, size_t n);

void sel_plan_release(struct sel_plan *p);

/*
 * Check P against F as gcc would match: *LOST counts the selected functions an entry excludes
 * (a function entry inside its gcc name, a file entry inside its file, or any file entry when its
 * file is unknown); *UNCOVERED the unselected functions no entry excludes (a function entry inside
 * its gcc name, a file entry inside its file's base name). A correct plan has *LOST == 0 and
 * *UNCOVERED == P->nkept. 0 or -ENOMEM.
 */
int sel_plan_check(const struct sel_plan *p, const struct sel_func *f, size_t n, size_t *lost,
		   size_t *uncovered);

/* The gcc options of P as one shell-ready line ("-finstrument-functions" and the exclude
 * lists, each word single-quoted when it needs it), malloc'd; NULL when out of memory. */
char *sel_plan_gcc_options(const struct sel_plan *p);

#endif /* PSC_SELECT_H */
