/* meta.c - the common part of meta.json. */
#include "meta.h"
#include "format.h"

#include <unistd.h>

void meta_json_common(struct jsonw *w, const struct cpu_info *ci, enum clock_source clock,
		      uint64_t start_unix_ns)
{
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	jsonw_kv_string(w, "format", "perfscope-experiment");
	jsonw_kv_u64(w, "version", PSC_FORMAT_VERSION);
	jsonw_kv_string(w, "host", host);
	jsonw_kv_u64(w, "start_unix_ns", start_unix_ns);
	jsonw_key(w, "cpu");
	jsonw_object_begin(w);
	jsonw_kv_string(w, "vendor", ci->vendor);
	jsonw_kv_string(w, "brand", ci->brand);
	jsonw_kv_u64(w, "family", ci->family);
	jsonw_kv_u64(w, "model", ci->model);
	jsonw_kv_u64(w, "stepping", ci->stepping);
	jsonw_key(w, "hypervisor");
	jsonw_bool(w, ci->hypervisor);
	jsonw_kv_i64(w, "cpus", ci->ncpus);
	jsonw_object_end(w);
	jsonw_kv_string(w, "clock", clock_source_name(clock));
}
