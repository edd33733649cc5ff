/*
 * maps-int.h - the parts of parsing a memory map (maps.h), shared by the files that do them:
 * the text read into copies (maps-text.c), the union of the copies (maps-union.c), the history
 * of each mapping (maps-history.c) and the pieces of the address space (maps-pieces.c).
 * Not for use outside maps*.c.
 */
#ifndef PSC_MAPS_INT_H
#define PSC_MAPS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "model/maps.h"
#include "lib/hashmap.h"

/* A mapping line of copy `copy`. */
struct raw_line {
	struct maps_entry e;
	uint32_t copy;
};

/* An object line of the copies that start at copy `group` (a header's). */
struct raw_object {
	uint32_t group;
	uint32_t obj;
};

struct parse {
	struct maps *m;
	struct raw_line *lines;
	size_t nlines, linecap;
	struct raw_object *objs;
	size_t nobjs, objcap;
	uint32_t *group; /* per copy: the headed copy whose object lines apply */
	size_t copycap, objectcap;
	struct u64map obj_by_hash;
	char **real; /* per object: its path resolved (realpath), "" when it cannot be */
};

/* *V (of *CAP elements of SIZE bytes) made room for NEED, its capacity doubled. 0 or -ENOMEM. */
int maps_grow(void **v, size_t *cap, size_t need, size_t size);

/* Reads TEXT into PS's copies, lines and object lines. 0 or -ENOMEM. */
int maps_read_text(struct parse *ps, const char *text, size_t len);

/* The union of PS's copies into its maps' v, n. 0 or -ENOMEM. */
int maps_build_union(struct parse *ps);

/* Follows every mapping of PS through the copies into its maps' insts. 0 or -ENOMEM. */
int maps_build_history(struct parse *ps);

/* Gives every instance of M its class, and cuts the address space into pieces. 0 or -ENOMEM. */
int maps_build_pieces(struct maps *m);

#endif /* PSC_MAPS_INT_H */
