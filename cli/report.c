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
	json_begin(&r->j, f);
	r->j.html = true;
	r->qps = calloc(CLI_REPORT_QP_SLOTS, sizeof(*r->qps));
	r->findings = calloc(CLI_REPORT_FINDINGS, sizeof(*r->findings));
	if (!r->qps || !r->findings)
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
	r->nqps = 0;
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
			r->nqps++;
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

/* A request counts for its flow; a NAK or a CNP for the flow it speaks to, found by the QP it is sent to. */
static void rpt_count(struct cli_report *r, const struct cli_report_row *row)
{
	struct cli_report_qp *q;

	if (row->kind != CLI_RK_REQUEST) {
		for (unsigned i = 0; i < CLI_REPORT_QP_SLOTS && (row->kind == CLI_RK_NAK || row->kind == CLI_RK_CNP); i++) {
			q = &r->qps[i];
			if (!q->used || q->sec != row->sec || q->rightward == row->rightward)
				continue;
			q->naks += row->kind == CLI_RK_NAK;
			q->rnr += !!(row->flags & CLI_RF_RNR);
			q->cnps += row->kind == CLI_RK_CNP;
			break;
		}
		return;
	}
	q = rpt_qp(r, row);
	if (!q) {
		r->qps_more++;
		return;
	}
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
	json_begin(&r->j, f);
	r->j.html = true;
	json_str(&r->j, NULL, row->label);
	json_str(&r->j, NULL, row->mark);
	fputc(',', f);
	if (!detail)
		fputc('0', f);
	json_begin(&r->j, f);
	r->j.html = true;
	r->rows++;
	r->rows_detail += detail;
}

void cli_report_row_end(struct cli_report *r, bool detail)
{
	(void)detail;
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
		json_begin(j, f);
		j->html = true;
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
		json_begin(j, f);
		j->html = true;
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
		json_begin(j, f);
		j->html = true;
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
	json_begin(&j, f);
	j.html = true;
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
	free(r->findings);
	r->qps = NULL;
	r->findings = NULL;
}
