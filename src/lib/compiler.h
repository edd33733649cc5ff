/* compiler.h - branch hints, visibility and small helpers shared by every layer. */
#ifndef PSC_COMPILER_H
#define PSC_COMPILER_H

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Symbols of the public API; everything else in libperfscope.so is hidden. */
#define PSC_EXPORT __attribute__((visibility("default")))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A function inlined even where the compiler would not: for a loop over records or events,
 * where the call is a good part of the cost of one. */
#define PSC_ALWAYS_INLINE inline __attribute__((always_inline))

#endif /* PSC_COMPILER_H */
