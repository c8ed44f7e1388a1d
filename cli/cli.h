/* SPDX-License-Identifier: MIT */
/* The rocelab command: shared declarations of its subcommands. */
#ifndef ROCELAB_CLI_H
#define ROCELAB_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

/* Each subcommand: argv[0] is its own name; returns the process exit status. */
int cli_explain(int argc, char **argv);
int cli_gen(int argc, char **argv);
int cli_lab(int argc, char **argv);
int cli_peer(int argc, char **argv);
int cli_realrxe(int argc, char **argv);
int cli_replay(int argc, char **argv);
int cli_rewrite(int argc, char **argv);

/* Exit statuses: 0 success, 1 the input had problems, 2 usage or I/O error. */
enum { CLI_OK = 0, CLI_BAD_INPUT = 1, CLI_ERR = 2 };

/* Print "rocelab CMD: message" to stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The rocelab binary, by absolute path (children run it in namespaces; its data lies beside it). */
const char *cli_self(void);

/*
 * Open a capture (pcap or pcapng, '-' standard input) with nanosecond times, of a link
 * type rocelab decodes (*dlt); NULL, and a message that says why, if it cannot be read.
 */
pcap_t *cli_capture_open(const char *file, int *dlt);

/* A frame's time in nanoseconds, from a capture opened by cli_capture_open. */
static inline int64_t cli_pcap_ns(const struct pcap_pkthdr *h)
{
	return (int64_t)h->ts.tv_sec * 1000000000 + (int64_t)h->ts.tv_usec;
}

/* explain --compare A B: the two captures' profiles side by side (compare.c). */
int cli_compare(const char *a, const char *b);

/* Parse an unsigned number (decimal or 0x hex) bounded by @max; false if not one. */
bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* A minimal JSON writer: one object per line. */
struct json {
	FILE *f;
	int depth;
	bool need_comma[16];
};
void json_begin(struct json *j, FILE *f);
void json_obj(struct json *j, const char *key);   /* key NULL at top level */
void json_end(struct json *j);                    /* closes the innermost object */
void json_u64(struct json *j, const char *key, uint64_t v);
void json_bool(struct json *j, const char *key, bool v);
void json_str(struct json *j, const char *key, const char *v);
void json_double(struct json *j, const char *key, double v, int decimals);
void json_newline(struct json *j);

#endif
