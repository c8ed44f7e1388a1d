/* SPDX-License-Identifier: MIT */
/* A minimal streaming JSON writer: one object per line (json.c). */
#ifndef ROCELAB_CLI_JSON_H
#define ROCELAB_CLI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool html;      /* inside an HTML page: '<', '>' and '&' as \u escapes, so no text ends its script element */
};

void json_begin(struct json *j, FILE *f);
/* The same, for JSON inside an HTML page's script element (html set). */
void json_begin_html(struct json *j, FILE *f);
void json_obj(struct json *j, const char *key);   /* key NULL at top level */
void json_end(struct json *j);                    /* closes the innermost object */
void json_u64(struct json *j, const char *key, uint64_t v);
void json_bool(struct json *j, const char *key, bool v);
void json_str(struct json *j, const char *key, const char *v);
void json_double(struct json *j, const char *key, double v, int decimals);
void json_ns(struct json *j, const char *key, int64_t ns);  /* seconds with 9 decimals, exactly */
void json_newline(struct json *j);                /* ends the line: the next object starts afresh */

#endif
