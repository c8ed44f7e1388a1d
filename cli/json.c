/* SPDX-License-Identifier: MIT */
/* A minimal streaming JSON writer: enough for one flat-ish object per line. */
#include <inttypes.h>

#include "json.h"

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
	j->html = false;
}

void json_begin_html(struct json *j, FILE *f)
{
	json_begin(j, f);
	j->html = true;
}

static void json_key(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (key) {
		fputc('"', j->f);
		fputs(key, j->f);
		fputs("\":", j->f);
	}
}

void json_obj(struct json *j, const char *key)
{
	json_key(j, key);
	fputc('{', j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

void json_end(struct json *j)
{
	fputc('}', j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_double(struct json *j, const char *key, double v, int decimals)
{
	json_key(j, key);
	fprintf(j->f, "%.*f", decimals, v);
}

void json_ns(struct json *j, const char *key, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns, sec = a / 1000000000;
	char buf[32], *p = buf + sizeof(buf);

	/* Digits by hand, right to left: this is on every line, and fprintf costs more than the rest. */
	for (uint64_t frac = a % 1000000000, i = 0; i < 9; i++, frac /= 10)
		*--p = (char)('0' + frac % 10);
	*--p = '.';
	do
		*--p = (char)('0' + sec % 10);
	while ((sec /= 10));
	if (ns < 0)
		*--p = '-';
	json_key(j, key);
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), j->f);
}

void json_str(struct json *j, const char *key, const char *v)
{
	json_key(j, key);
	fputc('"', j->f);
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;

		if (c == '"' || c == '\\')
			fprintf(j->f, "\\%c", c);
		else if (c < 0x20 || (j->html && (c == '<' || c == '>' || c == '&')))
			fprintf(j->f, "\\u%04x", c);
		else
			fputc(c, j->f);
	}
	fputc('"', j->f);
}

void json_newline(struct json *j)
{
	fputc('\n', j->f);
	j->depth = 0;
	j->need_comma[0] = false;
}
