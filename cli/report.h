/* SPDX-License-Identifier: MIT */
/*
 * rocelab report: a capture as one self-contained HTML page (the format is
 * docs/report-format.md). explain.c decodes and analyses each frame and says
 * what its arrow is; this file writes the page around those rows, keeps the
 * bounded summary (QPs, findings) and writes it at the end. The page's
 * script and styles (cli/report/) are compiled in: the page needs no network.
 */
#ifndef ROCELAB_CLI_REPORT_H
#define ROCELAB_CLI_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

#define CLI_REPORT_DETAIL 5000     /* rows that carry their explain --json object */
#define CLI_REPORT_QPS 4096        /* request flows in the summary; the rest counted */
#define CLI_REPORT_FINDINGS 2000   /* findings listed; the rest counted */
#define CLI_REPORT_QP_SLOTS 8192   /* the QP table's hash slots: twice its rows */
#define CLI_REPORT_RECENT 4096     /* the last requests' flows, for the responses that name them */
#define CLI_REPORT_SECTIONS 64     /* host pairs: explain's ladder sections (CLI_LADDER_PAIRS) */

/* A row's kind, as the page colours it (docs/report-format.md). */
enum cli_report_kind {
	CLI_RK_REQUEST, CLI_RK_RESPONSE, CLI_RK_ACK, CLI_RK_NAK, CLI_RK_CNP, CLI_RK_CM,
};

/* A row's flags. */
enum {
	CLI_RF_LOST = 1u << 0,
	CLI_RF_BAD = 1u << 1,
	CLI_RF_TROUBLE = 1u << 2,
	CLI_RF_RESENT = 1u << 3,
	CLI_RF_DUP = 1u << 4,
	CLI_RF_GAP = 1u << 5,
	CLI_RF_OOO = 1u << 6,
	CLI_RF_CE = 1u << 7,
	CLI_RF_RNR = 1u << 8,
	CLI_RF_SEQERR = 1u << 9,
	CLI_RF_FATAL = 1u << 10,
	CLI_RF_ACKS = 1u << 11,
	CLI_RF_LAST = 1u << 12,
};

struct cli_report_row {
	uint64_t frame, t_ns;
	unsigned sec;
	bool rightward;
	enum cli_report_kind kind;
	uint8_t op;
	uint32_t psn, qp, len, flags;
	uint64_t msg, ans;
	const char *label, *mark;
	const char *service;   /* "RC", "UC", "UD", ...: the request's transport */
	const char *src, *dst; /* the request's hosts, as text */
	uint64_t cm_frame;     /* the CM REQ or REP that announced this request's QP and PSN, 0 if none */
	const char *cm_msg;    /* "REQ" or "REP" */
	bool queued;           /* it passed rocelab gen's switch queue (its pcapng comment says so) */
	uint64_t depth;        /* ... and met this many bytes queued ahead of it */
};

struct cli_report_qp {
	bool used;
	unsigned sec;
	bool rightward;
	uint32_t qp;
	char service[8], src[48], dst[48];
	uint64_t requests, bytes, resent, naks, rnr, cnps, ce, first, last;
	uint64_t cm;         /* the CM message that set the connection up, 0 if none was seen */
	char cm_msg[4];
	bool req_qp_known;   /* the requester's own QP, learned from a response to it (a CNP goes there) */
	uint32_t req_qp;
};

struct cli_report {
	FILE *f;
	struct json j;           /* the rows' detail objects, escaped for HTML */
	uint64_t rows, rows_detail;
	bool row_queued;             /* the row being written ends with its queue depth */
	uint64_t row_depth;
	struct cli_report_qp *qps;   /* CLI_REPORT_QP_SLOTS slots */
	unsigned nqps;
	uint16_t *used;              /* the slots in use, in the order they were taken (nqps of them) */
	/* The flows of the last CLI_REPORT_RECENT requests, by frame (which only grows): a ring. */
	struct { uint64_t frame; uint16_t slot; } *recent;
	unsigned nrecent, recent_head;
	/* Each section's flows each way: how many, and the slot of the first (the only one, if one). */
	struct { unsigned n; uint16_t slot; } flows[CLI_REPORT_SECTIONS + 1][2];
	uint64_t qps_more;
	struct { uint64_t frame; char text[112]; } *findings;
	unsigned nfindings;
	uint64_t findings_more;
	char suffix[4];          /* "" for the page's capture, "-b" for the second of two */
};

/* The counts explain keeps, for the summary. */
struct cli_report_counts {
	const char *file;
	uint64_t frames, roce, other, malformed, icrc_bad, unknown, cut, snapped, flows_forgotten;
	int64_t start_ns, duration_ns;
	const uint64_t *per_opcode;   /* 256 */
	const char (*pairs)[2][64];
	unsigned npairs;
	uint64_t pairs_more;   /* frames past the last pair kept: no row */
	bool interrupted;      /* Ctrl-C stopped the reading: the page holds what was read before */
};

/*
 * A page is cli_report_begin(), then for each capture (one, or two side by
 * side with @compare) cli_report_rows_begin(), its rows and
 * cli_report_end(), then cli_report_finish().
 */

/* Start the page on @f, titled by @file; false when out of memory. */
bool cli_report_begin(struct cli_report *r, FILE *f, const char *file, bool compare);

/* A capture's rows start: the first's @suffix is "", the second's "-b". */
void cli_report_rows_begin(struct cli_report *r, const char *suffix);

/*
 * Should this row carry its explain --json object? When true, the caller
 * writes it with r->j between cli_report_row() and cli_report_row_end().
 */
bool cli_report_wants_detail(const struct cli_report *r, const struct cli_report_row *row);

/* Write @row up to its detail; then the caller's detail (or nothing), then cli_report_row_end(). */
void cli_report_row(struct cli_report *r, const struct cli_report_row *row, bool detail);
void cli_report_row_end(struct cli_report *r);

/* Close the capture's rows and write its summary. */
void cli_report_end(struct cli_report *r, const struct cli_report_counts *c);

/* The page's script and its end. */
void cli_report_finish(struct cli_report *r);

void cli_report_free(struct cli_report *r);

#endif
