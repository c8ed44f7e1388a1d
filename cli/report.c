/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_assets.h"   /* cli/report/report.{css,js} as strings, made by mk/embed.sh */
#include "rocelab/rocelab.h"
#include "svg.h"

static const char *const rpt_kind_names[] = { "request", "response", "ACK", "NAK", "CNP", "CM" };

bool cli_report_begin(struct cli_report *r, FILE *f, const char *file, bool compare)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	json_begin_html(&r->j, f);
	r->qps = calloc(CLI_REPORT_QP_SLOTS, sizeof(*r->qps));
	r->used = calloc(CLI_REPORT_QPS, sizeof(*r->used));
	r->recent = calloc(CLI_REPORT_RECENT, sizeof(*r->recent));
	r->findings = calloc(CLI_REPORT_FINDINGS, sizeof(*r->findings));
	if (!r->qps || !r->used || !r->recent || !r->findings)
		return false;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", f);
	fprintf(f, "<meta name=\"generator\" content=\"rocelab %s\">\n<title>rocelab report: ", ROCELAB_VERSION);
	cli_svg_text(f, file);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", cli_report_css);
	fputs("<header id=\"rl-head\"><h1>rocelab report: <span class=\"rl-file\">", f);
	cli_svg_text(f, file);
	fputs("</span></h1></header>\n<noscript><p>This page draws its diagrams with JavaScript, which is off "
	      "here. <code>rocelab explain</code> prints the same analysis of the capture as text.</p></noscript>\n"
	      "<main id=\"rl-app\"", f);
	fputs(compare ? " class=\"rl-compare\"></main>\n" : "></main>\n", f);
	return true;
}

void cli_report_rows_begin(struct cli_report *r, const char *suffix)
{
	memset(r->qps, 0, CLI_REPORT_QP_SLOTS * sizeof(*r->qps));
	memset(r->flows, 0, sizeof(r->flows));
	r->nqps = 0;
	r->nrecent = r->recent_head = 0;
	r->qps_more = 0;
	r->nfindings = 0;
	r->findings_more = 0;
	r->rows = r->rows_detail = 0;
	snprintf(r->suffix, sizeof(r->suffix), "%s", suffix);
	fprintf(r->f, "<script type=\"application/json\" id=\"rl-rows%s\">[\n", suffix);
}

/* The request flow of @row in the QP table (NULL when it is full), by (section, direction, QP). */
static struct cli_report_qp *rpt_qp(struct cli_report *r, const struct cli_report_row *row)
{
	uint32_t h = (row->qp * 2654435761u) ^ (row->sec * 40503u) ^ row->rightward;

	for (unsigned i = 0; i < CLI_REPORT_QP_SLOTS; i++) {
		struct cli_report_qp *q = &r->qps[(h + i) % CLI_REPORT_QP_SLOTS];

		if (!q->used) {
			if (r->nqps == CLI_REPORT_QPS)
				return NULL;
			r->used[r->nqps++] = (uint16_t)((h + i) % CLI_REPORT_QP_SLOTS);
			if (row->sec <= CLI_REPORT_SECTIONS && !r->flows[row->sec][row->rightward].n++)
				r->flows[row->sec][row->rightward].slot = r->used[r->nqps - 1];
			q->used = true;
			q->sec = row->sec;
			q->rightward = row->rightward;
			q->qp = row->qp;
			q->first = row->frame;
			snprintf(q->service, sizeof(q->service), "%s", row->service);
			snprintf(q->src, sizeof(q->src), "%s", row->src);
			snprintf(q->dst, sizeof(q->dst), "%s", row->dst);
			return q;
		}
		if (q->sec == row->sec && q->rightward == row->rightward && q->qp == row->qp)
			return q;
	}
	return NULL;
}

/* Remember that request @frame belongs to the flow in @slot (the oldest is forgotten first). */
static void rpt_recent_add(struct cli_report *r, uint64_t frame, uint16_t slot)
{
	unsigned i = (r->recent_head + r->nrecent) % CLI_REPORT_RECENT;

	if (r->nrecent == CLI_REPORT_RECENT)
		r->recent_head = (r->recent_head + 1) % CLI_REPORT_RECENT;
	else
		r->nrecent++;
	r->recent[i].frame = frame;
	r->recent[i].slot = slot;
}

/* The flow of request @frame, if it is among the last ones: a binary search, as frames only grow. */
static struct cli_report_qp *rpt_recent_find(struct cli_report *r, uint64_t frame)
{
	unsigned lo = 0, hi = r->nrecent;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (r->recent[(r->recent_head + mid) % CLI_REPORT_RECENT].frame < frame)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->nrecent || r->recent[(r->recent_head + lo) % CLI_REPORT_RECENT].frame != frame)
		return NULL;
	return &r->qps[r->recent[(r->recent_head + lo) % CLI_REPORT_RECENT].slot];
}

/* The only request flow of section @sec from the side @rightward says, or NULL. */
static struct cli_report_qp *rpt_only_flow(struct cli_report *r, unsigned sec, bool rightward)
{
	if (sec > CLI_REPORT_SECTIONS || r->flows[sec][rightward].n != 1)
		return NULL;
	return &r->qps[r->flows[sec][rightward].slot];
}

/*
 * The flow a response or a CNP speaks to: a response names its request
 * (the analyzer's link); a CNP goes to the requester's own QP, which the
 * responses to the flow have shown; else the only flow the other way.
 */
static struct cli_report_qp *rpt_answered(struct cli_report *r, const struct cli_report_row *row)
{
	struct cli_report_qp *q = row->ans ? rpt_recent_find(r, row->ans) : NULL;

	if (q && q->sec == row->sec && q->rightward != row->rightward)
		return q;
	if ((q = rpt_only_flow(r, row->sec, !row->rightward)))
		return q;
	for (unsigned i = 0; i < r->nqps && row->kind == CLI_RK_CNP; i++) {
		q = &r->qps[r->used[i]];
		if (q->sec == row->sec && q->rightward != row->rightward && q->req_qp_known && q->req_qp == row->qp)
			return q;
	}
	return NULL;
}

/* A request counts for its flow; a response, a NAK or a CNP for the flow it speaks to. */
static void rpt_count(struct cli_report *r, const struct cli_report_row *row)
{
	struct cli_report_qp *q;

	if (row->kind != CLI_RK_REQUEST) {
		q = row->kind == CLI_RK_CM ? NULL : rpt_answered(r, row);
		if (!q)
			return;
		if (row->kind != CLI_RK_CNP) {
			q->req_qp_known = true;   /* a response goes to the requester's QP */
			q->req_qp = row->qp;
		}
		q->naks += row->kind == CLI_RK_NAK;
		q->rnr += !!(row->flags & CLI_RF_RNR);
		q->cnps += row->kind == CLI_RK_CNP;
		return;
	}
	q = rpt_qp(r, row);
	if (!q) {
		r->qps_more++;
		return;
	}
	rpt_recent_add(r, row->frame, (uint16_t)(q - r->qps));
	q->requests++;
	q->bytes += row->len;
	q->resent += !!(row->flags & CLI_RF_RESENT);
	q->ce += !!(row->flags & CLI_RF_CE);
	q->last = row->frame;
	if (row->cm_frame && !q->cm) {
		q->cm = row->cm_frame;
		snprintf(q->cm_msg, sizeof(q->cm_msg), "%s", row->cm_msg);
	}
}

static bool rpt_finding(const struct cli_report_row *row)
{
	return (row->flags & CLI_RF_TROUBLE) || row->kind == CLI_RK_NAK;
}

bool cli_report_wants_detail(const struct cli_report *r, const struct cli_report_row *row)
{
	return r->rows < CLI_REPORT_DETAIL || (rpt_finding(row) && r->nfindings < CLI_REPORT_FINDINGS);
}

void cli_report_row(struct cli_report *r, const struct cli_report_row *row, bool detail)
{
	FILE *f = r->f;

	if (rpt_finding(row)) {
		if (r->nfindings < CLI_REPORT_FINDINGS) {
			r->findings[r->nfindings].frame = row->frame;
			snprintf(r->findings[r->nfindings++].text, sizeof(r->findings[0].text), "%s%s%s", row->label,
				 *row->mark ? ": " : "", row->mark);
		} else {
			r->findings_more++;
		}
	}
	rpt_count(r, row);
	fprintf(f, "%s[%" PRIu64 ",%" PRIu64 ",%u,%d,%d,%u,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64
		   ",%" PRIu64 ",", r->rows ? ",\n" : "", row->frame, row->t_ns, row->sec, row->rightward, (int)row->kind,
		row->op, row->psn, row->qp, row->len, row->flags, row->msg, row->ans);
	json_begin_html(&r->j, f);
	json_str(&r->j, NULL, row->label);
	json_str(&r->j, NULL, row->mark);
	fputc(',', f);
	if (!detail)
		fputc('0', f);
	json_begin_html(&r->j, f);
	r->rows++;
	r->rows_detail += detail;
	r->row_queued = row->queued;
	r->row_depth = row->depth;
}

void cli_report_row_end(struct cli_report *r)
{
	if (r->row_queued)
		fprintf(r->f, ",%" PRIu64, r->row_depth);
	fputc(']', r->f);
}

static void rpt_summary_qps(struct cli_report *r, struct json *j)
{
	FILE *f = r->f;
	bool first = true;

	fputs(",\"qps\":[", f);
	for (unsigned i = 0; i < CLI_REPORT_QP_SLOTS; i++) {
		const struct cli_report_qp *q = &r->qps[i];

		if (!q->used)
			continue;
		if (!first)
			fputc(',', f);
		first = false;
		json_begin_html(j, f);
		json_obj(j, NULL);
		json_u64(j, "sec", q->sec);
		json_u64(j, "dir", q->rightward);
		json_str(j, "src", q->src);
		json_str(j, "dst", q->dst);
		json_u64(j, "qp", q->qp);
		json_str(j, "service", q->service);
		json_u64(j, "requests", q->requests);
		json_u64(j, "bytes", q->bytes);
		json_u64(j, "resent", q->resent);
		json_u64(j, "naks", q->naks);
		json_u64(j, "rnr", q->rnr);
		json_u64(j, "cnps", q->cnps);
		json_u64(j, "ce", q->ce);
		json_u64(j, "first", q->first);
		json_u64(j, "last", q->last);
		json_u64(j, "cm", q->cm);
		json_str(j, "cm_msg", q->cm_msg);
		json_end(j);
	}
	fprintf(f, "],\"qps_more\":%" PRIu64, r->qps_more);
}

static void rpt_summary_lists(struct cli_report *r, const struct cli_report_counts *c, struct json *j)
{
	FILE *f = r->f;
	bool first = true;

	fputs(",\"kinds\":[", f);
	for (size_t i = 0; i < sizeof(rpt_kind_names) / sizeof(rpt_kind_names[0]); i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", rpt_kind_names[i]);
	fputs("],\"pairs\":[", f);
	for (unsigned i = 0; i < c->npairs; i++) {
		fprintf(f, "%s[", i ? "," : "");
		json_begin_html(j, f);
		json_str(j, NULL, c->pairs[i][0]);
		json_str(j, NULL, c->pairs[i][1]);
		fputc(']', f);
	}
	fputs("],\"ops\":[", f);
	for (int op = 0; op < 256; op++) {
		const struct rl_opcode_info *info = rl_opcode_info((uint8_t)op);

		if (!c->per_opcode[op])
			continue;
		fprintf(f, "%s[%d,\"%s\",%" PRIu64 "]", first ? "" : ",", op,
			info->flags & RL_OPF_VALID ? info->name : "Unknown opcode", c->per_opcode[op]);
		first = false;
	}
	fputc(']', f);
	rpt_summary_qps(r, j);
	fputs(",\"findings\":[", f);
	for (unsigned i = 0; i < r->nfindings; i++) {
		fprintf(f, "%s[%" PRIu64 ",", i ? "," : "", r->findings[i].frame);
		json_begin_html(j, f);
		json_str(j, NULL, r->findings[i].text);
		fputc(']', f);
	}
	fprintf(f, "],\"findings_more\":%" PRIu64, r->findings_more);
}

void cli_report_end(struct cli_report *r, const struct cli_report_counts *c)
{
	FILE *f = r->f;
	struct json j;
	char file[256];

	snprintf(file, sizeof(file), "%s", c->file);
	cli_svg_clean(file);
	fprintf(f, "\n]</script>\n<script type=\"application/json\" id=\"rl-summary%s\">", r->suffix);
	json_begin_html(&j, f);
	json_obj(&j, NULL);
	json_u64(&j, "v", 1);
	json_str(&j, "generator", "rocelab " ROCELAB_VERSION);
	json_str(&j, "file", file);
	json_u64(&j, "frames", c->frames);
	json_u64(&j, "rows", r->rows);
	json_u64(&j, "roce", c->roce);
	json_u64(&j, "other", c->other);
	json_u64(&j, "malformed", c->malformed);
	json_u64(&j, "icrc_bad", c->icrc_bad);
	json_u64(&j, "unknown", c->unknown);
	json_u64(&j, "cut", c->cut);
	json_u64(&j, "snapped", c->snapped);
	json_u64(&j, "flows_forgotten", c->flows_forgotten);
	json_u64(&j, "pairs_more", c->pairs_more);
	json_bool(&j, "interrupted", c->interrupted);
	fprintf(f, ",\"start_ns\":%" PRId64 ",\"duration_ns\":%" PRId64, c->start_ns, c->duration_ns);
	json_u64(&j, "detail_limit", CLI_REPORT_DETAIL);
	json_u64(&j, "rows_detail", r->rows_detail);
	rpt_summary_lists(r, c, &j);
	fputs("}</script>\n", f);
}

void cli_report_finish(struct cli_report *r)
{
	fprintf(r->f, "<script>\n%s</script>\n</body>\n</html>\n", cli_report_js);
}

void cli_report_free(struct cli_report *r)
{
	free(r->qps);
	free(r->used);
	free(r->recent);
	free(r->findings);
	r->qps = NULL;
	r->used = NULL;
	r->recent = NULL;
	r->findings = NULL;
}
