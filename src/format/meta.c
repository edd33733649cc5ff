/* meta.c - the part of meta.json every writer writes (meta.h). */
#include "format/meta.h"

#include "format/format.h"

#include <unistd.h>

void meta_json_common(struct jsonw *w, const struct cpu_info *ci, enum clock_source clock,
		      uint64_t start_unix_ns, const char *created_by)
{
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	jsonw_kv_string(w, META_FORMAT, META_FORMAT_NAME);
	jsonw_kv_u64(w, META_VERSION, PSC_FORMAT_VERSION);
	jsonw_kv_string(w, META_HOST, host);
	jsonw_kv_u64(w, META_START_UNIX_NS, start_unix_ns);
	jsonw_key(w, META_CPU);
	jsonw_object_begin(w);
	jsonw_kv_string(w, "vendor", ci->vendor);
	jsonw_kv_string(w, META_CPU_BRAND, ci->brand);
	jsonw_kv_u64(w, "family", ci->family);
	jsonw_kv_u64(w, "model", ci->model);
	jsonw_kv_u64(w, "stepping", ci->stepping);
	jsonw_key(w, "hypervisor");
	jsonw_bool(w, ci->hypervisor);
	jsonw_kv_i64(w, "cpus", ci->ncpus);
	jsonw_object_end(w);
	jsonw_kv_string(w, META_CLOCK, clock_source_name(clock));
	jsonw_kv_string(w, META_CREATED_BY, created_by);
}

void meta_json_events(struct jsonw *w, const struct event_desc *evs, size_t n)
{
	jsonw_key(w, META_EVENTS);
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_string(w, evs[i].name);
	jsonw_array_end(w);
}
