/* html.c - assembling the report from the embedded template, styles, script and data. */
#include "html.h"

#include "../core/jsonw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Generated at build time from src/output/assets (cmake/embed.cmake). */
extern const char psc_asset_report_html[], psc_asset_report_css[], psc_asset_report_js[];

/* JSON text inside <script>: every '<' becomes \u003c, so no "</script>" or "<!--" can end
 * or change the element (a '<' can only occur inside JSON strings). */
static void put_json(FILE *f, const char *json)
{
	for (const char *p = json; *p; p++) {
		if (*p == '<')
			fputs("\\u003c", f);
		else
			fputc(*p, f);
	}
}

/* The report's data: the experiment's facts and the region profile. */
static char *data_json(const struct region_report *r)
{
	const struct experiment *e = r->e;
	struct jsonw w;
	char *out;

	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	jsonw_key(&w, "meta");
	jsonw_object_begin(&w);
	jsonw_key(&w, "command");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < e->ncommand; i++)
		jsonw_string(&w, e->command[i]);
	jsonw_array_end(&w);
	jsonw_kv_string(&w, "host", e->host ? e->host : "");
	jsonw_kv_string(&w, "clock", e->clock ? e->clock : "");
	jsonw_key(&w, "cpu");
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "brand", e->cpu_brand ? e->cpu_brand : "");
	jsonw_object_end(&w);
	if (e->exit_status >= 0)
		jsonw_kv_i64(&w, "exit_status", e->exit_status);
	jsonw_object_end(&w);
	jsonw_key(&w, "profile");
	region_json(&w, r);
	jsonw_object_end(&w);
	out = jsonw_text(&w) ? strdup(w.buf) : NULL;
	jsonw_release(&w);
	return out;
}

/* Write TEMPLATE with every marker "/\*@NAME@*\/" replaced by its part. */
int html_write(FILE *f, const struct region_report *r)
{
	char *data = data_json(r);
	const char *p = psc_asset_report_html;

	if (!data)
		return -ENOMEM;
	while (*p) {
		const char *m = strstr(p, "/*@PSC_");

		if (!m) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(m - p), f);
		if (!strncmp(m, "/*@PSC_CSS@*/", 13))
			fputs(psc_asset_report_css, f);
		else if (!strncmp(m, "/*@PSC_JS@*/", 12))
			fputs(psc_asset_report_js, f);
		else if (!strncmp(m, "/*@PSC_DATA@*/", 14))
			put_json(f, data);
		p = strstr(m, "@*/");
		p = p ? p + 3 : m + strlen(m);
	}
	free(data);
	return ferror(f) ? -EIO : 0;
}
