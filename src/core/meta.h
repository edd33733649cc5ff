/* meta.h - members shared by every meta.json, whoever writes it (CLI or runtime). */
#ifndef PSC_META_H
#define PSC_META_H

#include <stdint.h>

#include "clock.h"
#include "cpuinfo.h"
#include "jsonw.h"

/* Write format, version, host, start time, cpu and clock as members of the open object W. */
void meta_json_common(struct jsonw *w, const struct cpu_info *ci, enum clock_source clock,
		      uint64_t start_unix_ns);

#endif /* PSC_META_H */
