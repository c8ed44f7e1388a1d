/* SPDX-License-Identifier: MIT */
/*
 * rocelab explain --compare A B: two captures of the same operation made by
 * two stacks (rocelab's and the kernel's Soft-RoCE, say), profiled with
 * core/profile.c and printed side by side, with what each difference means.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "cli.h"
#include "rocelab/rocelab.h"

#define CMP_TEXT 96

/* One row's view of one profile: the text shown, a kind compared as is, a measure compared by ratio. */
struct cmp_cell {
	char text[CMP_TEXT];
	char kind[32];          /* "" when the capture shows nothing of it */
	double measure;         /* > 0: the rows differ when one is more than 4 times the other */
};

typedef void (*cmp_fill_fn)(const struct rl_profile *p, struct cmp_cell *c);

struct cmp_row {
	const char *label;
	cmp_fill_fn fill;
	const char *note;       /* what a difference means, for a learner */
};

static void cmp_kind(struct cmp_cell *c, const char *kind, const char *text)
{
	snprintf(c->kind, sizeof(c->kind), "%s", kind);
	snprintf(c->text, sizeof(c->text), "%s", text);
}

/* "N of M" for @n of @of. */
static const char *cmp_share(uint64_t n, uint64_t of, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 " of %" PRIu64, n, of);
	return buf;
}

static void cmp_duration(char *buf, size_t n, double ns)
{
	if (ns >= 1e6)
		snprintf(buf, n, "%.1f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, n, "%.1f us", ns / 1e3);
	else
		snprintf(buf, n, "%.0f ns", ns);
}

/* "X" or "avg X (min-max)" of a range of nanoseconds; the average is the measure. */
static void cmp_range(const struct rl_profile_range *r, struct cmp_cell *c)
{
	char avg[24], lo[24], hi[24];

	if (!r->n) {
		cmp_kind(c, "", "-");
		return;
	}
	c->measure = (double)r->sum / (double)r->n;
	cmp_duration(avg, sizeof(avg), c->measure);
	cmp_duration(lo, sizeof(lo), (double)r->min);
	cmp_duration(hi, sizeof(hi), (double)r->max);
	snprintf(c->kind, sizeof(c->kind), "seen");
	if (r->min == r->max)
		snprintf(c->text, sizeof(c->text), "%s", avg);
	else
		snprintf(c->text, sizeof(c->text), "avg %s (%s-%s)", avg, lo, hi);
}

static void fill_packets(const struct rl_profile *p, struct cmp_cell *c)
{
	snprintf(c->text, sizeof(c->text), "%" PRIu64 " (IPv4 %" PRIu64 ", IPv6 %" PRIu64 "%s)", p->packets,
		 p->ipv4, p->ipv6, p->v1 ? ", RoCEv1 too" : "");
}

static void fill_icrc(const struct rl_profile *p, struct cmp_cell *c)
{
	char n[48];

	if (!p->packets) {
		cmp_kind(c, "", "-");
	} else if (!p->icrc_bad && !p->icrc_unknown) {
		cmp_kind(c, "good", "good in every packet");
	} else if (!p->icrc_bad) {
		snprintf(c->text, sizeof(c->text), "not captured in %s (snap length), good in the rest",
			 cmp_share(p->icrc_unknown, p->packets, n, sizeof(n)));
		snprintf(c->kind, sizeof(c->kind), "cut");
	} else {
		snprintf(c->text, sizeof(c->text), "bad in %s", cmp_share(p->icrc_bad, p->packets, n, sizeof(n)));
		snprintf(c->kind, sizeof(c->kind), "bad");
	}
}

static void fill_udp_csum(const struct rl_profile *p, struct cmp_cell *c)
{
	char n[48];

	if (!p->ipv4) {
		cmp_kind(c, "", "- (no IPv4)");
	} else if (p->udp_csum_zero == p->ipv4) {
		cmp_kind(c, "zero", "0 in every packet");
	} else if (!p->udp_csum_zero) {
		cmp_kind(c, "set", "computed in every packet");
	} else {
		snprintf(c->text, sizeof(c->text), "0 in %s", cmp_share(p->udp_csum_zero, p->ipv4, n, sizeof(n)));
		snprintf(c->kind, sizeof(c->kind), "mixed");
	}
}

static void fill_ipid(const struct rl_profile *p, struct cmp_cell *c)
{
	uint64_t later = p->ipid_next + p->ipid_other;

	if (!p->ipv4)
		cmp_kind(c, "", "- (no IPv4)");
	else if (p->ipid_zero == p->ipv4)
		cmp_kind(c, "zero", "0 in every packet");
	else if (later && p->ipid_next * 10 >= later * 9 && !p->ipid_zero)
		cmp_kind(c, "counter", "+1 per packet of each sender");
	else if (later && p->ipid_next * 2 >= later)
		cmp_kind(c, "counter", "counts up, with jumps");
	else
		cmp_kind(c, "other", p->ipid_zero ? "0 in some packets, varies" : "varies");
}

static void fill_df(const struct rl_profile *p, struct cmp_cell *c)
{
	char n[48];

	if (!p->ipv4) {
		cmp_kind(c, "", "- (no IPv4)");
	} else if (p->df == p->ipv4) {
		cmp_kind(c, "all", "set in every packet");
	} else if (!p->df) {
		cmp_kind(c, "none", "never set");
	} else {
		snprintf(c->text, sizeof(c->text), "set in %s", cmp_share(p->df, p->ipv4, n, sizeof(n)));
		snprintf(c->kind, sizeof(c->kind), "some");
	}
}

static void fill_ttl(const struct rl_profile *p, struct cmp_cell *c)
{
	if (!p->ipv4) {
		cmp_kind(c, "", "- (no IPv4)");
		return;
	}
	if (p->ttl_min == p->ttl_max)
		snprintf(c->text, sizeof(c->text), "%u", p->ttl_min);
	else
		snprintf(c->text, sizeof(c->text), "%u-%u", p->ttl_min, p->ttl_max);
	snprintf(c->kind, sizeof(c->kind), "%u-%u", p->ttl_min, p->ttl_max);
}

static void fill_tos(const struct rl_profile *p, struct cmp_cell *c)
{
	static const char *const ecn[4] = { "Not-ECT", "ECT(1)", "ECT(0)", "CE" };
	struct rl_sb sb;

	if (!p->ipv4 && !p->ipv6) {
		cmp_kind(c, "", "-");
		return;
	}
	rl_sb_init(&sb, c->text, sizeof(c->text));
	rl_sb_puts(&sb, "DSCP");
	for (unsigned d = 0; d < 64; d++) {
		if (p->dscp_seen >> d & 1) {
			rl_sb_putc(&sb, ' ');
			rl_sb_u64(&sb, d);
		}
	}
	rl_sb_puts(&sb, ", ECN");
	for (unsigned e = 0; e < 4; e++) {
		if (p->ecn_seen >> e & 1) {
			rl_sb_putc(&sb, ' ');
			rl_sb_puts(&sb, ecn[e]);
		}
	}
	snprintf(c->kind, sizeof(c->kind), "%016" PRIx64 "%x", p->dscp_seen, p->ecn_seen);
}

static void fill_sport(const struct rl_profile *p, struct cmp_cell *c)
{
	if (!p->ipv4 && !p->ipv6) {
		cmp_kind(c, "", "-");
		return;
	}
	snprintf(c->kind, sizeof(c->kind), "%s", p->sport_changes ? "changes" : "per-qp");
	if (p->sport_min == p->sport_max)
		snprintf(c->text, sizeof(c->text), "%s: %u", p->sport_changes ? "changes" : "one per QP", p->sport_min);
	else
		snprintf(c->text, sizeof(c->text), "%s: %u-%u", p->sport_changes ? "changes within a QP" : "one per QP",
			 p->sport_min, p->sport_max);
}

static void fill_pmtu(const struct rl_profile *p, struct cmp_cell *c)
{
	if (!p->pmtu) {
		cmp_kind(c, "", "- (no multi-packet message)");
		return;
	}
	snprintf(c->text, sizeof(c->text), "%u bytes", p->pmtu);
	snprintf(c->kind, sizeof(c->kind), "%u", p->pmtu);
}

static void fill_ackreq(const struct rl_profile *p, struct cmp_cell *c)
{
	uint64_t other = p->requests - p->request_ends;

	if (!p->requests) {
		cmp_kind(c, "", "- (no RC request)");
	} else if (p->ackreq_ends == p->request_ends && !p->ackreq_other) {
		cmp_kind(c, "ends", "on each message's last packet");
	} else if (p->ackreq_ends == p->request_ends && p->ackreq_other == other) {
		cmp_kind(c, "all", "on every request packet");
	} else if (!p->ackreq_ends && !p->ackreq_other) {
		cmp_kind(c, "never", "never");
	} else {
		snprintf(c->text, sizeof(c->text), "%" PRIu64 " of %" PRIu64 " ends, %" PRIu64 " of %" PRIu64 " others",
			 p->ackreq_ends, p->request_ends, p->ackreq_other, other);
		snprintf(c->kind, sizeof(c->kind), "some");
	}
}

static void fill_coalescing(const struct rl_profile *p, struct cmp_cell *c)
{
	double per;

	if (!p->acks || !p->acked_psns) {
		cmp_kind(c, "", "- (no ACK)");
		return;
	}
	per = (double)p->acked_psns / (double)p->acks;
	snprintf(c->text, sizeof(c->text), "%.1f PSNs per ACK (at most %u)", per, p->acked_max);
	snprintf(c->kind, sizeof(c->kind), "%s", p->acked_max == 1 ? "each" : "coalesced");
	c->measure = per;
}

static void fill_credits(const struct rl_profile *p, struct cmp_cell *c)
{
	char n[48];

	if (!p->acks) {
		cmp_kind(c, "", "- (no ACK)");
	} else if (p->credits_none == p->acks) {
		cmp_kind(c, "none", "none advertised (31)");
	} else if (!p->credits_none) {
		cmp_kind(c, "count", "a count in every ACK");
	} else {
		snprintf(c->text, sizeof(c->text), "none in %s", cmp_share(p->credits_none, p->acks, n, sizeof(n)));
		snprintf(c->kind, sizeof(c->kind), "mixed");
	}
}

static void fill_response(const struct rl_profile *p, struct cmp_cell *c)
{
	cmp_range(&p->response_ns, c);
}

static void fill_naks(const struct rl_profile *p, struct cmp_cell *c)
{
	if (!p->naks && !p->rnr_naks) {
		cmp_kind(c, "none", "none");
		return;
	}
	snprintf(c->text, sizeof(c->text), "%" PRIu64 " NAK, %" PRIu64 " RNR NAK", p->naks, p->rnr_naks);
	snprintf(c->kind, sizeof(c->kind), "some");
}

static void fill_resend(const struct rl_profile *p, struct cmp_cell *c)
{
	char r[CMP_TEXT];

	if (!p->resends) {
		cmp_kind(c, "none", "none");
		return;
	}
	cmp_range(&p->resend_ns, c);
	/* The first sending may lie too far back to be timed: then the count alone. */
	snprintf(r, sizeof(r), "%" PRIu64 "%s%.60s", p->resends, p->resend_ns.n ? ", after " : "",
		 p->resend_ns.n ? c->text : "");
	snprintf(c->text, sizeof(c->text), "%s", r);
	snprintf(c->kind, sizeof(c->kind), "some");
}

static void fill_rnr_wait(const struct rl_profile *p, struct cmp_cell *c)
{
	struct rl_profile_range ns = p->rnr_wait_us;

	ns.min *= 1000;
	ns.max *= 1000;
	ns.sum *= 1000;
	cmp_range(&ns, c);
}

static const struct cmp_row cmp_rows[] = {
	{ "RoCE packets", fill_packets, NULL },
	{ "ICRC", fill_icrc,
	  "A bad ICRC means the bytes changed after the sender computed it, or the receiver computes it over "
	  "other bytes than the sender did (IBA A17.3.3 says which fields it masks)." },
	{ "UDP checksum (IPv4)", fill_udp_csum,
	  "RoCEv2 over IPv4 may send UDP checksum 0 (RFC 768 allows it; the ICRC protects the packet). Linux's "
	  "rxe leaves it 0, and so does rocelab gen; a stack that sends through a UDP socket, as rocelab peer "
	  "does, gets one the kernel computes. Receivers accept both." },
	{ "IPv4 Identification", fill_ipid,
	  "Linux's IP layer, under rxe, gives each packet the sender's next ID; rocelab gen writes 0 (DF is set, "
	  "nothing is fragmented). The ICRC covers this field (IBA A17.3.3 masks only TOS, TTL and the "
	  "checksums), so a receiver must check the ICRC over the ID as it arrived." },
	{ "Don't Fragment", fill_df,
	  "RoCE packets are never fragmented: the path MTU keeps them small enough, and DF says so." },
	{ "TTL", fill_ttl, "The sender's hop limit; 64 is Linux's default (sysctl net.ipv4.ip_default_ttl)." },
	{ "DSCP / ECN", fill_tos,
	  "The traffic class a RoCE network maps to a lossless priority (PFC), and ECN: a stack that runs "
	  "DCQCN marks its packets ECT so that switches can mark CE instead of dropping; rxe does not." },
	{ "UDP source port", fill_sport,
	  "RoCEv2 leaves the source port to the sender, as entropy for ECMP: rxe takes 0xC000 plus a hash of "
	  "the QP number, so a QP's packets keep one path; rocelab picks one per connection in the same "
	  "range." },
	{ "Path MTU (payload)", fill_pmtu,
	  "The payload of a First or Middle packet is the path MTU the two QPs were given (ibv_modify_qp "
	  "path_mtu); rxe on a 1500-byte Ethernet uses 1024." },
	{ "AckReq (BTH)", fill_ackreq,
	  "AckReq asks the responder to acknowledge now (IBA 9.7.6.1.1). rxe sets it on the last packet of "
	  "each message, and once 64 packets went without it; a responder may ACK more often than asked." },
	{ "ACK coalescing", fill_coalescing,
	  "One ACK acknowledges every PSN up to its own (IBA 9.7.5.1.2), so a responder may answer a burst of "
	  "packets with a single ACK. Fewer ACKs, less traffic; more ACKs, the requester frees its "
	  "send queue sooner." },
	{ "ACK credits (AETH)", fill_credits,
	  "An ACK may advertise end-to-end credits: receive WQEs the responder has posted (IBA 9.7.7.2). The "
	  "value 31 says none are advertised: rxe always sends it, rocelab advertises its receive queue." },
	{ "Response delay", fill_response,
	  "Time from a request to its answer (ACK, first READ response, atomic ACK): the responder's speed "
	  "plus the wire. A simulated wire counts nanoseconds, VMs under TCG milliseconds: compare the "
	  "shape, not the number." },
	{ "NAKs", fill_naks,
	  "NAKs appear when the responder sees a PSN gap, a bad request or no receive WQE (RNR)." },
	{ "Resent packets", fill_resend,
	  "A requester resends after a NAK at once, or when its retry timer (IBA 9.7.6; QP attribute timeout, "
	  "4.096 us x 2^timeout) expires without an ACK; the delay shows which." },
	{ "RNR NAK wait", fill_rnr_wait,
	  "The RNR NAK's timer field tells the requester how long to wait before trying again (the "
	  "responder's min_rnr_timer, IBA 9.7.5.2.8)." },
};

/* "* label: note", wrapped at 78 columns under its first word. */
static void cmp_note(const char *label, const char *note)
{
	char text[1024];
	int col = printf("* %s:", label);
	char *w, *save = NULL;

	snprintf(text, sizeof(text), "%s", note);
	for (w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (col + 1 + (int)strlen(w) > 78)
			col = printf("\n   ") - 1;
		col += printf(" %s", w);
	}
	putchar('\n');
}

static bool cmp_differ(const struct cmp_cell *a, const struct cmp_cell *b)
{
	double hi, lo;

	if (!a->kind[0] || !b->kind[0])
		return false;
	if (strcmp(a->kind, b->kind))
		return true;
	if (a->measure <= 0 || b->measure <= 0)
		return false;
	hi = a->measure > b->measure ? a->measure : b->measure;
	lo = a->measure > b->measure ? b->measure : a->measure;
	return hi > 4 * lo;
}

/*
 * Read a whole capture into a profile: CLI_OK, or (with a message) CLI_ERR if it
 * cannot be read, CLI_BAD_INPUT if it is damaged part way.
 */
static int cmp_profile(const char *file, struct rl_profile *prof, uint64_t *frames)
{
	struct rl_annotation ann;
	struct cli_capture *c;
	struct cli_frame f;
	struct rl_analyzer *an;
	struct rl_pkt pkt;
	enum rl_status st;
	int r;

	c = cli_capture_open("explain", file, CLI_LINKS_DECODED);
	if (!c)
		return CLI_ERR;
	an = rl_analyzer_new();
	if (!an) {
		cli_error("explain", "out of memory");
		cli_capture_close(c);
		return CLI_ERR;
	}
	rl_profile_init(prof);
	while ((r = cli_capture_next(c, &f)) == 1) {
		st = cli_frame_decode(&f, &pkt);
		if (st == RL_NOT_ROCE)
			continue;
		rl_analyze(an, f.no, (uint64_t)f.rel_ns, &pkt, st, &ann);
		rl_profile_add(prof, f.no, (uint64_t)f.rel_ns, &pkt, st, &ann);
	}
	if (r < 0)
		cli_capture_damaged(c, "explain");
	cli_capture_note_skipped(c, "explain");
	*frames = cli_capture_frames(c);
	rl_analyzer_free(an);
	cli_capture_close(c);
	return r >= 0 ? CLI_OK : CLI_BAD_INPUT;
}

static const char *cmp_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int cli_compare(const char *fa, const char *fb)
{
	struct rl_profile *pa = malloc(sizeof(*pa)), *pb = malloc(sizeof(*pb));
	const size_t nrows = sizeof(cmp_rows) / sizeof(cmp_rows[0]);
	bool differ[sizeof(cmp_rows) / sizeof(cmp_rows[0])];
	struct cmp_cell cells[sizeof(cmp_rows) / sizeof(cmp_rows[0])][2];
	uint64_t na, nb;
	unsigned ndiff = 0;
	int width;
	int rc = CLI_OK;

	if (!pa || !pb) {
		cli_error("explain", "out of memory");
		rc = CLI_ERR;
		goto out;
	}
	if ((rc = cmp_profile(fa, pa, &na)) != CLI_OK || (rc = cmp_profile(fb, pb, &nb)) != CLI_OK)
		goto out;
	printf("Comparing what two captures' RoCE packets show ('*': they differ)\n"
	       "  A  %s  (%" PRIu64 " frames)\n  B  %s  (%" PRIu64 " frames)\n\n", fa, na, fb, nb);
	/* Column A is as wide as its widest text, so that column B always starts in one place. */
	width = (int)strlen(cmp_base(fa));
	for (size_t i = 0; i < nrows; i++) {
		memset(&cells[i], 0, sizeof(cells[i]));
		cmp_rows[i].fill(pa, &cells[i][0]);
		cmp_rows[i].fill(pb, &cells[i][1]);
		if ((int)strlen(cells[i][0].text) > width)
			width = (int)strlen(cells[i][0].text);
	}
	printf("  %-22s %-*s   %s\n", "", width, cmp_base(fa), cmp_base(fb));
	for (size_t i = 0; i < nrows; i++) {
		differ[i] = cmp_differ(&cells[i][0], &cells[i][1]);
		ndiff += differ[i];
		printf("%c %-22s %-*s   %s\n", differ[i] ? '*' : ' ', cmp_rows[i].label, width, cells[i][0].text,
		       cells[i][1].text);
	}
	if (!pa->packets || !pb->packets)
		printf("\n%s has no RoCE packet to compare.\n", !pa->packets ? fa : fb);
	else if (!ndiff)
		printf("\nNo difference in what these rows measure.\n");
	else
		printf("\nWhere they differ (%u):\n", ndiff);
	for (size_t i = 0; i < nrows; i++)
		if (differ[i] && cmp_rows[i].note)
			cmp_note(cmp_rows[i].label, cmp_rows[i].note);
out:
	free(pa);
	free(pb);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("explain", "cannot write the output");
		rc = CLI_ERR;
	}
	return rc;
}
