/*
 * strv.h - arrays of owned strings grown one formatted line at a time: the warnings of the MPI
 * model, the notes of a process being read, the caveats of a session.
 */
#ifndef PSC_LIB_STRV_H
#define PSC_LIB_STRV_H

#include <stdarg.h>
#include <stddef.h>

/* Append the string FMT and AP format to *V, an array of *N strings with room for *CAP (grown
 * as ARRAY_GROW does). 0, or -ENOMEM with nothing added. */
int strv_vpushf(char ***v, size_t *n, size_t *cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif /* PSC_LIB_STRV_H */
