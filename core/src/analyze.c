/* SPDX-License-Identifier: MIT */
/*
 * The packet analyzer: per-connection PSN analysis and request/response
 * links, seen from a capture. A connection is followed as a "flow" of
 * requests from one QP to another; its responses travel the other way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocelab/analyze.h"
#include "rocelab/describe.h"

#define AN_MAX_FLOWS 4096
#define AN_SEEN 512           /* recent request transmissions remembered per flow */
#define AN_TIMEOUT_NS 1000000 /* a resend at least this much later is a retransmission after a timeout */

struct an_tx {
	uint32_t first, last;     /* PSNs this request occupies (a READ: one per response packet) */
	uint64_t frame, t_ns;
	uint8_t opcode;
	uint32_t len;             /* READ: bytes asked for */
};

struct an_flow {
	uint8_t req_ip[16], resp_ip[16];
	uint32_t resp_qpn, req_qpn;
	bool req_qpn_known;
	enum rl_transport tr;
	uint64_t last_t;

	bool started;
	uint32_t expected;        /* next PSN expected from the requester */
	uint32_t pmtu;            /* learned from First/Middle payloads; 0 until known */
	bool after_read;          /* the last request was a READ of unknown span */
	uint32_t read_min, read_max, read_psn, read_len;

	struct an_tx seen[AN_SEEN];
	unsigned nseen, head;     /* a ring of the latest transmissions */
	uint32_t hi;              /* the highest PSN any of them covers */

	/* A reason to resend: a NAK or RNR NAK asked for PSNs from retx_next on. */
	bool retx_pending;
	uint32_t retx_next;
	uint64_t nak_frame;       /* the latest such NAK, and the PSN it named */
	uint32_t nak_psn;

	uint32_t acked_next;      /* first PSN not acknowledged yet */
	bool acked_known;

	/* Message bookkeeping: requests, and READ responses. */
	uint64_t msgs, msg_bytes, msg_total, msg_first;
	uint64_t rmsg_bytes, rmsg_first;
};

struct rl_analyzer {
	struct an_flow *flows;
	size_t n, cap;
};

const char *rl_verdict_name(enum rl_verdict v)
{
	static const char *const n[] = { "none", "first", "in order", "gap", "out of order", "retransmission",
					 "duplicate" };

	return (unsigned)v < sizeof(n) / sizeof(n[0]) ? n[v] : "?";
}

struct rl_analyzer *rl_analyzer_new(void)
{
	return calloc(1, sizeof(struct rl_analyzer));
}

void rl_analyzer_free(struct rl_analyzer *a)
{
	if (!a)
		return;
	free(a->flows);
	free(a);
}

size_t rl_analyzer_flows(const struct rl_analyzer *a)
{
	return a->n;
}

size_t rl_analyzer_outstanding(const struct rl_analyzer *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += a->flows[i].nseen;
	return n;
}

static void an_addrs(const struct rl_pkt *p, uint8_t src[16], uint8_t dst[16])
{
	memset(src, 0, 16);
	memset(dst, 0, 16);
	if (p->l3 == RL_L3_IPV4) {
		memcpy(src + 12, p->ip4.src, 4);
		memcpy(dst + 12, p->ip4.dst, 4);
	} else {
		memcpy(src, p->ip6.src, 16);
		memcpy(dst, p->ip6.dst, 16);
	}
}

/* ---- flows -------------------------------------------------------------------------------- */

static struct an_flow *an_new_flow(struct rl_analyzer *a, uint64_t t_ns)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		struct an_flow *f;

		if (cap > AN_MAX_FLOWS) {
			/* Forget the flow idle longest: memory follows the live QPs, not the capture. */
			size_t old = 0;

			for (size_t i = 1; i < a->n; i++)
				if (a->flows[i].last_t < a->flows[old].last_t)
					old = i;
			memset(&a->flows[old], 0, sizeof(a->flows[old]));
			a->flows[old].last_t = t_ns;
			return &a->flows[old];
		}
		f = realloc(a->flows, cap * sizeof(*f));
		if (!f)
			return NULL;
		a->flows = f;
		a->cap = cap;
	}
	memset(&a->flows[a->n], 0, sizeof(a->flows[0]));
	a->flows[a->n].last_t = t_ns;
	return &a->flows[a->n++];
}

/* The flow of requests this packet belongs to (requests: sender -> dqpn). */
static struct an_flow *an_request_flow(struct rl_analyzer *a, const struct rl_pkt *p, uint64_t t_ns)
{
	enum rl_transport tr = rl_opcode_transport(p->bth.opcode);
	uint8_t src[16], dst[16];
	struct an_flow *f;

	an_addrs(p, src, dst);
	for (size_t i = 0; i < a->n; i++) {
		f = &a->flows[i];
		if (f->resp_qpn == p->bth.dqpn && f->tr == tr && !memcmp(f->req_ip, src, 16) &&
		    !memcmp(f->resp_ip, dst, 16))
			return f;
	}
	f = an_new_flow(a, t_ns);
	if (f) {
		memcpy(f->req_ip, src, 16);
		memcpy(f->resp_ip, dst, 16);
		f->resp_qpn = p->bth.dqpn;
		f->tr = tr;
		if (p->hdrs & RL_HDR_DETH) {
			f->req_qpn = p->deth.src_qp;
			f->req_qpn_known = true;
		}
	}
	return f;
}

/* The request transmission that carried @psn (the latest one), if remembered. */
static struct an_tx *an_find_tx(struct an_flow *f, uint32_t psn)
{
	/* The common case, a new PSN beyond all remembered ones, needs no search. */
	if (!f->nseen || rl_psn_diff(psn, f->hi) > 0)
		return NULL;
	for (unsigned k = 0; k < f->nseen; k++) {
		struct an_tx *t = &f->seen[(f->head + AN_SEEN - 1 - k) % AN_SEEN];

		if (rl_psn_diff(psn, t->first) >= 0 && rl_psn_diff(t->last, psn) >= 0)
			return t;
	}
	return NULL;
}

/* The flow a response answers: it travels back, to the requester's QP. */
static struct an_flow *an_response_flow(struct rl_analyzer *a, const struct rl_pkt *p)
{
	uint8_t src[16], dst[16];
	struct an_flow *guess = NULL, *only = NULL;
	int candidates = 0, unlearned = 0;

	an_addrs(p, src, dst);
	for (size_t i = 0; i < a->n; i++) {
		struct an_flow *f = &a->flows[i];

		if (f->tr != RL_TR_RC || memcmp(f->req_ip, dst, 16) || memcmp(f->resp_ip, src, 16))
			continue;
		if (f->req_qpn_known && f->req_qpn == p->bth.dqpn)
			return f;
		if (f->req_qpn_known)
			continue;
		/* Not learned yet: the flow whose requests this PSN belongs to, or the only one. */
		only = f;
		unlearned++;
		if (an_find_tx(f, p->bth.psn) || rl_psn_diff(p->bth.psn, f->expected) == 0) {
			guess = f;
			candidates++;
		}
	}
	if (!candidates && unlearned == 1) {
		guess = only;
		candidates = 1;
	}
	if (guess && candidates == 1) {
		guess->req_qpn = p->bth.dqpn;
		guess->req_qpn_known = true;
	}
	return guess;
}

/* ---- requests ----------------------------------------------------------------------------- */

/* PSNs a request occupies: one, or one per READ response packet when the MTU is known. */
static uint32_t an_span(const struct an_flow *f, const struct rl_pkt *p)
{
	if ((p->op->flags & RL_OPF_READ) && (p->hdrs & RL_HDR_RETH) && f->pmtu)
		return p->reth.dma_len ? (p->reth.dma_len + f->pmtu - 1) / f->pmtu : 1;
	return 1;
}

/*
 * A READ sent before the path MTU was known was remembered with its widest
 * span (256-byte packets). Now its end is known, the PSN before @next: shrink
 * the record, so that the requests after it are not taken for copies of it.
 */
static void an_read_ends(struct an_flow *f, uint32_t next)
{
	f->after_read = false;
	f->expected = next;
	for (unsigned k = 0; k < f->nseen; k++) {
		struct an_tx *t = &f->seen[(f->head + AN_SEEN - 1 - k) % AN_SEEN];

		if (t->first == f->read_psn && (rl_opcode_info(t->opcode)->flags & RL_OPF_READ)) {
			t->last = rl_psn_add(next, 0xffffff);
			break;
		}
	}
	f->hi = f->seen[(f->head + AN_SEEN - 1) % AN_SEEN].last;
	for (unsigned k = 0; k < f->nseen; k++)
		if (rl_psn_diff(f->seen[k].last, f->hi) > 0)
			f->hi = f->seen[k].last;
}

/* First and Middle packets carry exactly the path MTU (IBA 9.7.2): learn it from them. */
static void an_learn_mtu(struct an_flow *f, const struct rl_pkt *p)
{
	uint32_t fl = p->op->flags;

	if (!(fl & RL_OPF_PAYLOAD) || (fl & RL_OPF_LAST) || !p->payload_len)
		return;
	f->pmtu = (uint32_t)p->payload_len;
	/* Now the READ's span is known: one PSN per response packet. */
	if (f->after_read)
		an_read_ends(f, rl_psn_add(f->read_psn, f->read_len ? (f->read_len + f->pmtu - 1) / f->pmtu : 1));
}

static void an_remember(struct an_flow *f, const struct rl_pkt *p, uint64_t frame, uint64_t t_ns, uint32_t span)
{
	struct an_tx *t = &f->seen[f->head];

	t->first = p->bth.psn;
	t->last = rl_psn_add(p->bth.psn, span - 1);
	if ((p->op->flags & RL_OPF_READ) && !f->pmtu && (p->hdrs & RL_HDR_RETH))
		t->last = rl_psn_add(p->bth.psn, p->reth.dma_len ? (p->reth.dma_len + 255) / 256 - 1 : 0);
	if (!f->nseen || rl_psn_diff(t->last, f->hi) > 0)
		f->hi = t->last;
	t->frame = frame;
	t->t_ns = t_ns;
	t->opcode = p->bth.opcode;
	t->len = (p->hdrs & RL_HDR_RETH) ? p->reth.dma_len : 0;
	f->head = (f->head + 1) % AN_SEEN;
	if (f->nseen < AN_SEEN)
		f->nseen++;
}

static void an_verdict(struct an_flow *f, const struct rl_pkt *p, uint64_t t_ns, struct rl_annotation *o)
{
	uint32_t psn = p->bth.psn;
	struct an_tx *prev;
	int32_t d;

	/* The request after a READ of unknown span, within what that READ may span: the READ ended before it. */
	if (f->after_read && rl_psn_diff(psn, f->read_min) >= 0 && rl_psn_diff(f->read_max, psn) >= 0)
		an_read_ends(f, psn);
	prev = an_find_tx(f, psn);

	o->expected_psn = f->expected;
	if (!f->started) {
		o->verdict = RL_V_FIRST;
		return;
	}
	if (prev) {
		o->original_frame = prev->frame;
		/*
		 * Seen before. A resend has a reason: a NAK or RNR NAK asked for
		 * it (and go-back-N continues in order from there), a NAK for it
		 * or an earlier PSN came after it was last sent (a round of
		 * go-back-N still under way when the next NAK arrives), a timeout
		 * passed (IBA 9.7.6.2), or a READ asks again for its missing rest.
		 * Without a reason, the network copied the packet.
		 */
		if ((f->retx_pending && psn == f->retx_next) ||
		    (f->nak_frame > prev->frame && rl_psn_diff(psn, f->nak_psn) >= 0) ||
		    t_ns - prev->t_ns >= AN_TIMEOUT_NS || ((p->op->flags & RL_OPF_READ) && psn != prev->first))
			o->verdict = RL_V_RETRANSMISSION;
		else
			o->verdict = RL_V_DUPLICATE;
		return;
	}
	d = rl_psn_diff(psn, f->expected);
	if (d == 0) {
		o->verdict = RL_V_IN_ORDER;
	} else if (d > 0) {
		o->verdict = RL_V_GAP;
		o->gap = (uint32_t)d;
	} else {
		o->verdict = RL_V_OUT_OF_ORDER;
	}
}

static void an_msg_request(struct an_flow *f, const struct rl_pkt *p, uint64_t frame, struct rl_annotation *o)
{
	uint32_t fl = p->op->flags;

	if (!(fl & RL_OPF_PAYLOAD) || o->verdict == RL_V_DUPLICATE || o->verdict == RL_V_RETRANSMISSION)
		return;
	if (fl & RL_OPF_FIRST) {
		f->msgs++;
		f->msg_bytes = 0;
		f->msg_total = (p->hdrs & RL_HDR_RETH) ? p->reth.dma_len : 0;
		f->msg_first = frame;
	}
	f->msg_bytes += p->payload_len;
	o->msg_number = f->msgs;
	o->msg_bytes = f->msg_bytes;
	o->msg_first_frame = f->msg_first;
	o->msg_complete = fl & RL_OPF_LAST;
	o->msg_total = o->msg_complete ? f->msg_bytes : f->msg_total;
}

static void an_request(struct rl_analyzer *a, uint64_t frame, uint64_t t_ns, const struct rl_pkt *p,
		       struct rl_annotation *o)
{
	struct an_flow *f = an_request_flow(a, p, t_ns);
	uint32_t span;

	o->role = RL_ROLE_REQUEST;
	if (!f)
		return;
	f->last_t = t_ns;
	an_learn_mtu(f, p);
	span = an_span(f, p);
	if (!f->started) {
		f->acked_next = p->bth.psn;
		f->acked_known = true;
	}
	if (f->tr != RL_TR_UD) {
		an_verdict(f, p, t_ns, o);
		/* Go-back-N resends in order: the next one expected again is the one after. */
		if (o->verdict == RL_V_RETRANSMISSION && p->bth.psn == f->retx_next)
			f->retx_next = rl_psn_add(p->bth.psn, span);
		if (o->verdict != RL_V_OUT_OF_ORDER && o->verdict != RL_V_DUPLICATE) {
			f->expected = rl_psn_add(p->bth.psn, span);
			f->after_read = (p->op->flags & RL_OPF_READ) && !f->pmtu;
			if (f->after_read) {
				f->read_psn = p->bth.psn;
				f->read_len = p->reth.dma_len;
				f->read_min = rl_psn_add(p->bth.psn, p->reth.dma_len ? (p->reth.dma_len + 4095) / 4096 : 1);
				f->read_max = rl_psn_add(p->bth.psn, p->reth.dma_len ? (p->reth.dma_len + 255) / 256 : 1);
			}
		}
		f->started = true;
	}
	an_msg_request(f, p, frame, o);
	an_remember(f, p, frame, t_ns, span);
}

/* ---- responses --------------------------------------------------------------------------------- */

/* What a NAK makes the requester do (IBA 9.7.5.2.8: RNR NAK, 9.7.5.2.4 and 9.9.2: NAK codes). */
static void an_nak(const struct rl_pkt *p, struct rl_annotation *o)
{
	uint8_t s = p->aeth.syndrome, v = rl_syndrome_value(s);

	o->nak = true;
	if (rl_syndrome_type(s) == RL_AETH_RNR_NAK) {
		o->rnr_wait_us = rl_rnr_timer_us(v);
		o->resend_from_psn = p->bth.psn;
		return;
	}
	if (v == RL_NAK_PSN_SEQ_ERR)
		o->resend_from_psn = p->bth.psn;
	else if (v == RL_NAK_INVALID_REQ || v == RL_NAK_REM_ACCESS_ERR || v == RL_NAK_REM_OP_ERR)
		o->wr_fails = true;
}

static void an_ack_range(struct an_flow *f, const struct rl_pkt *p, struct rl_annotation *o)
{
	uint32_t last = p->bth.psn;
	bool nak = rl_syndrome_type(p->aeth.syndrome) != RL_AETH_ACK;
	struct an_tx *a, *b;

	/* A NAK acknowledges what is before its PSN; an ACK includes its PSN. */
	if (nak)
		last = rl_psn_add(last, 0xffffff);
	if (!f->acked_known) {
		a = an_find_tx(f, last);
		f->acked_next = a ? a->first : last;
		f->acked_known = true;
	}
	if (rl_psn_diff(last, f->acked_next) < 0)
		return;
	o->acks = true;
	o->acked_first = f->acked_next;
	o->acked_last = last;
	a = an_find_tx(f, o->acked_first);
	b = an_find_tx(f, o->acked_last);
	o->acked_first_frame = a ? a->frame : 0;
	o->acked_last_frame = b ? b->frame : 0;
	f->acked_next = rl_psn_add(last, 1);
}

static void an_response(struct rl_analyzer *a, uint64_t frame, uint64_t t_ns, const struct rl_pkt *p,
			struct rl_annotation *o)
{
	struct an_flow *f = an_response_flow(a, p);
	struct an_tx *req = f ? an_find_tx(f, p->bth.psn) : NULL;
	uint32_t fl = p->op->flags;

	o->role = RL_ROLE_RESPONSE;
	if (req) {
		o->request_frame = req->frame;
		o->response_time_ns = t_ns - req->t_ns;
	}
	if (f)
		an_learn_mtu(f, p);
	if ((p->hdrs & RL_HDR_AETH) && rl_syndrome_type(p->aeth.syndrome) != RL_AETH_ACK) {
		an_nak(p, o);
		if (f && o->resend_from_psn == p->bth.psn && !o->wr_fails) {
			f->retx_pending = true;
			f->retx_next = p->bth.psn;
			f->nak_frame = frame;
			f->nak_psn = p->bth.psn;
		}
		if (f && rl_syndrome_type(p->aeth.syndrome) == RL_AETH_NAK)
			an_ack_range(f, p, o);
		return;
	}
	if (f && (p->hdrs & RL_HDR_AETH) && !(fl & RL_OPF_READ))
		an_ack_range(f, p, o);
	if (fl & RL_OPF_READ) {
		if (fl & RL_OPF_FIRST && f) {
			f->rmsg_bytes = 0;
			f->rmsg_first = frame;
		}
		if (f) {
			f->rmsg_bytes += p->payload_len;
			o->msg_bytes = f->rmsg_bytes;
			o->msg_first_frame = f->rmsg_first;
			o->msg_total = req ? req->len : 0;
			o->msg_complete = fl & RL_OPF_LAST;
			if ((fl & RL_OPF_LAST) && rl_psn_diff(p->bth.psn, f->acked_next) >= 0)
				an_ack_range(f, p, o);
		}
	}
}

/* ---- the entry point ---------------------------------------------------------------------------- */

void rl_analyze(struct rl_analyzer *a, uint64_t frame, uint64_t t_ns, const struct rl_pkt *p, enum rl_status st,
		struct rl_annotation *o)
{
	memset(o, 0, sizeof(*o));
	if (st == RL_NOT_ROCE || rl_status_fatal(st) || st == RL_E_UNKNOWN_OPCODE || !p->op)
		return;
	o->ecn_ce = (p->l3 == RL_L3_IPV4 ? p->ip4.ecn : (p->ip6.tclass & 3)) == 3;
	if (p->op->flags & RL_OPF_CNP) {
		o->role = RL_ROLE_CNP;
		o->cnp = true;
	} else if (p->op->flags & RL_OPF_REQ) {
		an_request(a, frame, t_ns, p, o);
	} else if (p->op->flags & RL_OPF_RESP) {
		an_response(a, frame, t_ns, p, o);
	}
}

/* ---- words for people ------------------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static void an_text(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
}

/* FLUSH (IBA 1.5): which bytes (FETH selectivity level) and to what end (placement type). */
static void an_flush_summary(const struct rl_pkt *p, char *buf, size_t n)
{
	static const char *const plt[] = { NULL, "visible", "persistent", "visible and persistent" };
	char where[96], what[64];

	if (p->feth.sel == 0)
		an_text(where, sizeof(where), "%u bytes at 0x%llx (rkey 0x%x)", p->reth.dma_len,
			(unsigned long long)p->reth.va, p->reth.rkey);
	else if (p->feth.sel == 1)
		an_text(where, sizeof(where), "the whole region of rkey 0x%x", p->reth.rkey);
	else
		an_text(where, sizeof(where), "(reserved selectivity level %u)", p->feth.sel);
	if (p->feth.plt < 4 && plt[p->feth.plt])
		an_text(what, sizeof(what), "make earlier writes %s", plt[p->feth.plt]);
	else
		an_text(what, sizeof(what), "reserved placement type %u", p->feth.plt);
	an_text(buf, n, "FLUSH %s: %s", where, what);
}

static void an_request_summary(const struct rl_annotation *o, const struct rl_pkt *p, char *buf, size_t n)
{
	uint32_t fl = p->op->flags;
	const char *what = (fl & RL_OPF_SEND) ? "SEND" : (fl & RL_OPF_WRITE) ? "RDMA WRITE" : "";
	char pos[64] = "";

	if ((fl & RL_OPF_PAYLOAD) && !o->msg_number) {
		/* A packet seen before: its message was counted the first time. */
		an_text(pos, sizeof(pos), "%zu bytes, %s frame %llu", p->payload_len,
			o->verdict == RL_V_DUPLICATE ? "a copy of" : "sent again, before in",
			(unsigned long long)o->original_frame);
	} else if (fl & RL_OPF_PAYLOAD) {
		if ((fl & (RL_OPF_FIRST | RL_OPF_LAST)) == (RL_OPF_FIRST | RL_OPF_LAST))
			an_text(pos, sizeof(pos), "message %llu, %zu bytes", (unsigned long long)o->msg_number,
				p->payload_len);
		else
			an_text(pos, sizeof(pos), "message %llu, bytes %llu..%llu%s", (unsigned long long)o->msg_number,
				(unsigned long long)(o->msg_bytes - p->payload_len), (unsigned long long)o->msg_bytes,
				o->msg_complete ? " (complete)" : "");
	}
	if (fl & RL_OPF_READ)
		an_text(buf, n, "READ %u bytes from 0x%llx (rkey 0x%x)", p->reth.dma_len, (unsigned long long)p->reth.va,
			p->reth.rkey);
	else if (fl & RL_OPF_FLUSH)
		an_flush_summary(p, buf, n);
	else if (fl & RL_OPF_ATOMIC_WRITE)
		an_text(buf, n, "ATOMIC WRITE of %zu bytes to 0x%llx (rkey 0x%x)", p->payload_len,
			(unsigned long long)p->reth.va, p->reth.rkey);
	else if (fl & RL_OPF_CMPSWAP)
		an_text(buf, n, "Compare&Swap at 0x%llx: if 0x%llx, write 0x%llx", (unsigned long long)p->atomiceth.va,
			(unsigned long long)p->atomiceth.compare, (unsigned long long)p->atomiceth.swap_add);
	else if (fl & RL_OPF_ATOMIC)
		an_text(buf, n, "Fetch&Add %llu at 0x%llx", (unsigned long long)p->atomiceth.swap_add,
			(unsigned long long)p->atomiceth.va);
	else if ((fl & RL_OPF_WRITE) && (p->hdrs & RL_HDR_RETH))
		an_text(buf, n, "%s %u bytes to 0x%llx (rkey 0x%x): %s", what, p->reth.dma_len,
			(unsigned long long)p->reth.va, p->reth.rkey, pos);
	else if (p->hdrs & RL_HDR_DETH)
		an_text(buf, n, "UD SEND of %zu bytes to QP 0x%x (Q_Key 0x%x)", p->payload_len, p->bth.dqpn,
			p->deth.qkey);
	else
		an_text(buf, n, "%s %s", what, pos);
}

static void an_response_summary(const struct rl_annotation *o, const struct rl_pkt *p, char *buf, size_t n)
{
	uint32_t fl = p->op->flags;

	if (o->nak)
		an_text(buf, n, "%s for PSN %u", rl_syndrome_type(p->aeth.syndrome) == RL_AETH_RNR_NAK
			? "RNR NAK: receiver not ready" : rl_nak_code_name(rl_syndrome_value(p->aeth.syndrome)),
			p->bth.psn);
	else if (fl & RL_OPF_READ)
		an_text(buf, n, "READ response: %zu bytes%s%s", p->payload_len, o->msg_complete ? ", the last" : "",
			o->request_frame ? "" : " (request not in the capture)");
	else if (p->hdrs & RL_HDR_ATOMICACKETH)
		an_text(buf, n, "ATOMIC ACK: memory held 0x%llx before", (unsigned long long)p->atomicack_orig);
	else if (o->acks)
		an_text(buf, n, "ACK of PSN %u..%u", o->acked_first, o->acked_last);
	else
		an_text(buf, n, "ACK of PSN %u again (a duplicate was seen)", p->bth.psn);
}

void rl_annotation_summary(const struct rl_annotation *o, const struct rl_pkt *p, char *buf, size_t n)
{
	if (!n)
		return;
	buf[0] = '\0';
	if (o->role == RL_ROLE_CNP)
		an_text(buf, n, "CNP: congestion on the way to QP 0x%x; its sender should slow down", p->bth.dqpn);
	else if (o->role == RL_ROLE_REQUEST)
		an_request_summary(o, p, buf, n);
	else if (o->role == RL_ROLE_RESPONSE)
		an_response_summary(o, p, buf, n);
}

/* What a NAK means and what follows (IBA 9.7.5.2.8 RNR NAK; 9.9.2 the NAK codes and their errors). */
static void an_nak_meaning(const struct rl_pkt *p, char *buf, size_t n)
{
	uint8_t s = p->aeth.syndrome, v = rl_syndrome_value(s);

	if (rl_syndrome_type(s) == RL_AETH_RNR_NAK) {
		uint32_t us = rl_rnr_timer_us(v);

		an_text(buf, n, "RNR NAK: no receive buffer was posted at the responder. The requester waits at least "
			"%u.%02u ms (RNR timer %u) and sends PSN %u again.", us / 1000, us % 1000 / 10, v, p->bth.psn);
		return;
	}
	switch (v) {
	case RL_NAK_PSN_SEQ_ERR:
		an_text(buf, n, "NAK, PSN sequence error: the responder expected PSN %u, so a packet was lost. It "
			"acknowledges everything before; the requester goes back and resends from PSN %u (go-back-N).",
			p->bth.psn, p->bth.psn);
		break;
	case RL_NAK_INVALID_REQ:
	case RL_NAK_REM_ACCESS_ERR:
	case RL_NAK_REM_OP_ERR:
		an_text(buf, n, "NAK, %s: %s. The work request completes with '%s'; both QPs go to the error state "
			"and the rest of the send queue is flushed.", rl_nak_code_name(v), rl_nak_code_meaning(v),
			v == RL_NAK_INVALID_REQ ? "remote invalid request error"
			: v == RL_NAK_REM_ACCESS_ERR ? "remote access error" : "remote operation error");
		break;
	default:
		an_text(buf, n, "NAK with reserved code %u", v);
	}
}

static void an_explanation(const struct rl_annotation *o, const struct rl_pkt *p, const char *nak_meaning,
			   char *buf, size_t n)
{
	const char *verdict = "";
	char v[96] = "";

	switch (o->verdict) {
	case RL_V_GAP:
		an_text(v, sizeof(v), " %u packet(s) before it are missing: PSN %u was expected.", o->gap,
			o->expected_psn);
		verdict = v;
		break;
	case RL_V_RETRANSMISSION:
		an_text(v, sizeof(v), " It is sent again (sent before in frame %llu).",
			(unsigned long long)o->original_frame);
		verdict = v;
		break;
	case RL_V_DUPLICATE:
		an_text(v, sizeof(v), " The network delivered it twice (the other copy is frame %llu).",
			(unsigned long long)o->original_frame);
		verdict = v;
		break;
	case RL_V_OUT_OF_ORDER:
		verdict = " It arrives after packets sent later: overtaken on the way.";
		break;
	default:
		break;
	}
	if (o->nak)
		an_text(buf, n, "%s", nak_meaning);
	else if (o->cnp)
		an_text(buf, n, "%s.", rl_describe_opcode(p->bth.opcode));
	else
		an_text(buf, n, "%s.%s%s", rl_describe_opcode(p->bth.opcode), verdict,
			o->ecn_ce ? " Marked Congestion Experienced: the receiver will send a CNP." : "");
}

void rl_annotation_describe(const struct rl_annotation *o, const struct rl_pkt *p, struct rl_annotation_text *t)
{
	t->summary[0] = t->nak_meaning[0] = t->explanation[0] = '\0';
	if (o->role == RL_ROLE_OTHER)
		return;
	rl_annotation_summary(o, p, t->summary, sizeof(t->summary));
	if (o->nak)
		an_nak_meaning(p, t->nak_meaning, sizeof(t->nak_meaning));
	an_explanation(o, p, t->nak_meaning, t->explanation, sizeof(t->explanation));
}
