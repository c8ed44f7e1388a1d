/* SPDX-License-Identifier: MIT */
/*
 * The packet analyzer: per-connection PSN analysis and request/response
 * links, seen from a capture. A connection is followed as a "flow" of
 * requests from one QP to another; its responses travel the other way.
 * CM conversations on QP1 are followed apart (an_cm_*), and hand the PSNs
 * they announce to the flows that will carry them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocelab/analyze.h"
#include "rocelab/cm.h"
#include "rocelab/dcqcn.h"
#include "rocelab/describe.h"

#include "analyze_hash.h"   /* enum an_index, an_hash(): the flows' keys */

/*
 * Flows followed at once, and the request transmissions each remembers: a
 * ring that starts small and grows to AN_SEEN only for a flow that sends that
 * many, so a flow costs ~200 bytes plus 40 per remembered request (20 KB at
 * most; 16384 flows: 330 MB at worst, a few MB for short flows). A flow
 * that receives a CNP adds its shadow reaction point (~200 bytes).
 */
#define AN_MAX_FLOWS 16384
#define AN_SEEN 512
#define AN_SEEN_MIN 8
#define AN_TIMEOUT_NS 1000000 /* a resend at least this much later is a retransmission after a timeout */
#define AN_MAX_CM 1024        /* CM conversations remembered; the one idle longest makes room */
#define AN_MAX_CNP_ORPHANS 64 /* QPs with CNPs before their flow is known; the oldest makes room */
#define AN_CM_MSGS (RL_CM_APR - RL_CM_REQ + 1) /* the CM messages by attribute ID, REQ .. APR */
#define AN_CM_I(attr) ((attr) - RL_CM_REQ)      /* a CM message's index among them */

struct an_tx {
	uint32_t first, last;     /* PSNs this request occupies (a READ: one per response packet) */
	uint64_t frame, t_ns;
	uint8_t opcode;
	uint32_t len;             /* READ: bytes asked for */
};

/* The CNPs to one requester QP, and its shadow reaction point (allocated at the first). */
struct an_cc {
	uint64_t cnps;
	struct rl_dcqcn *rp;
};

/*
 * CNPs to a QP that no flow is known for yet: between two hosts with several
 * QPs, a flow learns its requester's QPN from the first response, which may
 * come after a CNP. The flow adopts them when it learns it.
 */
struct an_cnp_orphan {
	uint8_t req_ip[16], resp_ip[16];
	uint32_t qpn;
	struct an_cc cc;          /* cc.cnps 0: a free slot */
};

struct an_flow {
	uint8_t req_ip[16], resp_ip[16];
	uint32_t resp_qpn, req_qpn;
	bool req_qpn_known;
	enum rl_transport tr;

	bool started;
	uint32_t expected;        /* next PSN expected from the requester */
	uint32_t pmtu;            /* learned from First/Middle payloads; 0 until known */
	bool after_read;          /* the last request was a READ of unknown span */
	uint32_t read_min, read_max, read_psn, read_len;
	bool read_hi_known;       /* hi before that READ, if any request came before it */
	uint32_t read_hi;

	struct an_tx *seen;       /* a ring of the latest transmissions: cap slots, nseen used, head the next */
	unsigned cap, nseen, head;
	uint32_t hi;              /* the highest PSN the flow's requests have covered */

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

	/* The REQ or REP (cm_attr, frame cm_frame) that announced the first PSN, cm_psn, of this flow. */
	uint64_t cm_frame;
	uint32_t cm_psn;
	uint16_t cm_attr;

	/*
	 * Congestion: CE-marked requests and CNPs seen, the shadow DCQCN
	 * reaction point (allocated at the first CNP), and the request payload
	 * since cc_since (the previous CNP, or the first request).
	 */
	uint64_t ce_seen;
	struct an_cc cc;
	uint64_t cc_bytes, cc_since;  /* since the previous CNP, or the first request (after adopting orphans) */
	bool cc_started;
	uint64_t cc_prev_rate;    /* measured before the previous CNP, if it cut; else 0 */

	/* Flows by the time of their latest request, oldest first (the one forgotten first): indexes + 1. */
	uint32_t lru_prev, lru_next;
};

/* A slot of one of the three indexes (their keys: analyze_hash.h). */
struct an_slot {
	uint32_t flow;            /* index + 1; 0: empty; AN_TOMB: deleted */
	uint32_t hash;            /* the key's hash, low 32 bits: most mismatches end here */
};

#define AN_TOMB UINT32_MAX

struct an_table {
	struct an_slot *slot;
	size_t cap, used;         /* used: flows and tombstones; the table grows or is rebuilt at 1/2 */
};

/* The latest copy of one CM message of a conversation. */
struct an_cm_sent {
	uint64_t frame, t_ns, tid;
	uint8_t side;             /* who sent it: 0 the active side, 1 the passive side */
};

/*
 * A CM conversation: the REQ .. DREP of one connection, keyed by the two
 * sides' addresses and communication IDs (IBA 12.6.3), or a SIDR_REQ and its
 * SIDR_REP, keyed by the request ID.
 */
struct an_cm_conv {
	uint8_t ip[2][16];        /* [0] the active side (it sent the REQ), [1] the passive side */
	uint32_t comm[2];         /* their local communication IDs; SIDR: the request ID in comm[0] */
	bool comm_known[2];
	bool sidr;
	enum rl_cm_wire_state state;
	uint64_t last_t;
	struct an_cm_sent sent[AN_CM_MSGS]; /* frame 0: not seen */
	uint32_t qpn[2];          /* the QPs the REQ (side 0) and the REP (side 1) announced */
	bool qpn_known[2];
	enum rl_transport tr;     /* RC or UC, from the REQ */
};

struct rl_analyzer {
	struct an_flow *flows;
	size_t n, cap;
	struct an_table index[AN_INDEXES];
	uint32_t lru_head, lru_tail;    /* indexes + 1 */
	uint64_t forgotten;             /* flows whose history was dropped to make room */
	struct an_cm_conv *cms;
	size_t ncm, cmcap;
	uint64_t line_bps;              /* the shadow reaction points' line rate; 0: the nominal one */
	struct an_cnp_orphan orphans[AN_MAX_CNP_ORPHANS];
	size_t orphan_next;             /* the slot to fill next when all are taken */
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
	for (size_t i = 0; i < a->n; i++) {
		free(a->flows[i].seen);
		free(a->flows[i].cc.rp);
	}
	for (size_t i = 0; i < AN_MAX_CNP_ORPHANS; i++)
		free(a->orphans[i].cc.rp);
	free(a->flows);
	for (int k = 0; k < AN_INDEXES; k++)
		free(a->index[k].slot);
	free(a->cms);
	free(a);
}

uint64_t rl_analyzer_flows_forgotten(const struct rl_analyzer *a)
{
	return a->forgotten;
}

size_t rl_analyzer_max_flows(void)
{
	return AN_MAX_FLOWS;
}

size_t rl_analyzer_cm_conversations(const struct rl_analyzer *a)
{
	return a->ncm;
}

const char *rl_cm_wire_state_name(enum rl_cm_wire_state st)
{
	static const char *const n[] = {
		"none", "REQ sent, waiting for REP", "MRA sent: the answer comes later",
		"REP sent, waiting for RTU", "established", "rejected", "LAP sent, loading an alternate path",
		"DREQ sent, disconnecting", "disconnected (TimeWait)", "SIDR_REQ sent, waiting for SIDR_REP",
		"SIDR answered",
	};

	return (unsigned)st < sizeof(n) / sizeof(n[0]) ? n[st] : "?";
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

/* ---- flows: the hash tables ---------------------------------------------------------------- */

/* The key of flow @f in index @k. */
static uint32_t an_key_hash(const struct an_flow *f, enum an_index k)
{
	switch (k) {
	case AN_BY_REQUEST: return an_hash(f->req_ip, f->resp_ip, k, an_request_key(f->resp_qpn, f->tr));
	case AN_BY_REQUESTER: return an_hash(f->req_ip, f->resp_ip, k, f->req_qpn);
	default: return an_hash(f->req_ip, f->resp_ip, k, 0);
	}
}

/* Which indexes flow @f belongs to. */
static bool an_in_index(const struct an_flow *f, enum an_index k)
{
	switch (k) {
	case AN_BY_REQUEST: return true;
	case AN_BY_REQUESTER: return f->tr == RL_TR_RC && f->req_qpn_known;
	default: return f->tr == RL_TR_RC && !f->req_qpn_known;
	}
}

static void an_table_put(struct an_table *t, uint32_t hash, uint32_t flow)
{
	size_t i = hash & (t->cap - 1);

	while (t->slot[i].flow && t->slot[i].flow != AN_TOMB)
		i = (i + 1) & (t->cap - 1);
	t->used += !t->slot[i].flow;
	t->slot[i] = (struct an_slot){ flow, hash };
}

/*
 * Room for one more: grow (or just sweep the tombstones) before the table is
 * half full. A rebuild puts every flow back but @skip (index + 1), the one
 * about to go in.
 */
static int an_table_reserve(struct rl_analyzer *a, enum an_index k, uint32_t skip)
{
	struct an_table *t = &a->index[k];
	size_t cap = t->cap ? t->cap : 64;
	struct an_slot *slot;

	if (t->cap && (t->used + 1) * 2 <= t->cap)
		return 0;
	while (cap < (a->n + 1) * 4)
		cap *= 2;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -1;
	free(t->slot);
	*t = (struct an_table){ slot, cap, 0 };
	for (size_t i = 0; i < a->n; i++)
		if (i + 1 != skip && an_in_index(&a->flows[i], k))
			an_table_put(t, an_key_hash(&a->flows[i], k), (uint32_t)i + 1);
	return 0;
}

static void an_table_del(struct an_table *t, uint32_t hash, uint32_t flow)
{
	size_t i = hash & (t->cap - 1);

	for (; t->slot[i].flow; i = (i + 1) & (t->cap - 1))
		if (t->slot[i].flow == flow) {
			t->slot[i].flow = AN_TOMB;
			return;
		}
}

/* Put flow @f into the indexes its fields say; false if memory ran out (then it is in none). */
static bool an_index_flow(struct rl_analyzer *a, struct an_flow *f)
{
	uint32_t flow = (uint32_t)(f - a->flows) + 1;

	for (int k = 0; k < AN_INDEXES; k++) {
		if (!an_in_index(f, (enum an_index)k))
			continue;
		if (an_table_reserve(a, (enum an_index)k, flow)) {
			for (int j = 0; j < k; j++)
				if (an_in_index(f, (enum an_index)j))
					an_table_del(&a->index[j], an_key_hash(f, (enum an_index)j), flow);
			return false;
		}
		an_table_put(&a->index[k], an_key_hash(f, (enum an_index)k), flow);
	}
	return true;
}

/* Take flow @f out of its indexes, before its key fields change. */
static void an_unindex_flow(struct rl_analyzer *a, struct an_flow *f)
{
	uint32_t flow = (uint32_t)(f - a->flows) + 1;

	for (int k = 0; k < AN_INDEXES; k++)
		if (a->index[k].cap && an_in_index(f, (enum an_index)k))
			an_table_del(&a->index[k], an_key_hash(f, (enum an_index)k), flow);
}

/* The flows of index @k whose key hashes to @hash, one per call: set it->slot to ~0 first; NULL at the end. */
struct an_iter {
	size_t slot;
	uint32_t hash;
};

#ifndef RL_ANALYZER_SCAN_LOOKUP
static struct an_flow *an_next(const struct rl_analyzer *a, enum an_index k, struct an_iter *it)
{
	const struct an_table *t = &a->index[k];

	if (!t->cap)
		return NULL;
	it->slot = it->slot == (size_t)-1 ? it->hash & (t->cap - 1) : (it->slot + 1) & (t->cap - 1);
	for (; t->slot[it->slot].flow; it->slot = (it->slot + 1) & (t->cap - 1))
		if (t->slot[it->slot].flow != AN_TOMB && t->slot[it->slot].hash == it->hash)
			return &a->flows[t->slot[it->slot].flow - 1];
	return NULL;
}
#else
/*
 * The reference lookup, built with -DRL_ANALYZER_SCAN_LOOKUP (`make
 * scan-lookup`): every flow of index @k in turn, whatever its hash. The
 * callers compare the whole key and choose among the flows that have it by
 * index, never by the order found, so this gives what the hash tables give
 * as long as they hold every flow they should (the one difference: a flow
 * left out of them when memory ran out is found here). Bench part 8 and
 * tests/scenarios compare explain's output of the two builds.
 */
static struct an_flow *an_next(const struct rl_analyzer *a, enum an_index k, struct an_iter *it)
{
	while (++it->slot < a->n)
		if (an_in_index(&a->flows[it->slot], k))
			return &a->flows[it->slot];
	return NULL;
}
#endif

/* ---- flows: the least recently used, forgotten first ---------------------------------------- */

static void an_lru_unlink(struct rl_analyzer *a, struct an_flow *f)
{
	if (f->lru_prev)
		a->flows[f->lru_prev - 1].lru_next = f->lru_next;
	else
		a->lru_head = f->lru_next;
	if (f->lru_next)
		a->flows[f->lru_next - 1].lru_prev = f->lru_prev;
	else
		a->lru_tail = f->lru_prev;
	f->lru_prev = f->lru_next = 0;
}

/* @f had a request: it goes to the end of the line. */
static void an_touch(struct rl_analyzer *a, struct an_flow *f)
{
	uint32_t flow = (uint32_t)(f - a->flows) + 1;

	if (a->lru_tail == flow)
		return;
	if (f->lru_prev || f->lru_next || a->lru_head == flow)
		an_lru_unlink(a, f);
	f->lru_prev = a->lru_tail;
	if (a->lru_tail)
		a->flows[a->lru_tail - 1].lru_next = flow;
	else
		a->lru_head = flow;
	a->lru_tail = flow;
}

/* Forget everything @f knew but its place in the LRU list and its ring's memory, which it keeps for reuse. */
static void an_flow_reset(struct an_flow *f)
{
	struct an_flow keep = *f;

	free(f->cc.rp);
	memset(f, 0, sizeof(*f));
	f->lru_prev = keep.lru_prev;
	f->lru_next = keep.lru_next;
	f->seen = keep.seen;
	f->cap = keep.cap;
}

/*
 * A new flow, zeroed, the most recently used; its caller sets its key and calls
 * an_index_flow(). Past AN_MAX_FLOWS the flow idle longest is forgotten and
 * counted: memory follows the live QPs, not the capture.
 */
static struct an_flow *an_new_flow(struct rl_analyzer *a)
{
	struct an_flow *f;

	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;

		if (cap > AN_MAX_FLOWS && a->lru_head) {
			f = &a->flows[a->lru_head - 1];
			an_unindex_flow(a, f);
			an_lru_unlink(a, f);
			an_flow_reset(f);
			a->forgotten++;
			an_touch(a, f);
			return f;
		}
		if (cap > AN_MAX_FLOWS)
			return NULL;
		f = realloc(a->flows, cap * sizeof(*f));
		if (!f)
			return NULL;
		a->flows = f;
		a->cap = cap;
	}
	f = &a->flows[a->n++];
	memset(f, 0, sizeof(*f));
	an_touch(a, f);
	return f;
}

/* The flow with request key (@req_ip, @resp_ip, @resp_qpn, @tr), if there is one (the lowest index). */
static struct an_flow *an_find_request_flow(const struct rl_analyzer *a, const uint8_t req_ip[16],
					    const uint8_t resp_ip[16], uint32_t resp_qpn, enum rl_transport tr)
{
	struct an_iter it = { (size_t)-1, 0 };
	struct an_flow *f, *best = NULL;

	it.hash = an_hash(req_ip, resp_ip, AN_BY_REQUEST, an_request_key(resp_qpn, tr));
	while ((f = an_next(a, AN_BY_REQUEST, &it)))
		if (f->resp_qpn == resp_qpn && f->tr == tr && !memcmp(f->req_ip, req_ip, 16) &&
		    !memcmp(f->resp_ip, resp_ip, 16) && (!best || f < best))
			best = f;
	return best;
}

/* The flow of requests this packet belongs to (requests: sender -> dqpn). */
static struct an_flow *an_request_flow(struct rl_analyzer *a, const struct rl_pkt *p)
{
	enum rl_transport tr = rl_opcode_transport(p->bth.opcode);
	uint8_t src[16], dst[16];
	struct an_flow *f;

	an_addrs(p, src, dst);
	f = an_find_request_flow(a, src, dst, p->bth.dqpn, tr);
	if (f)
		return f;
	f = an_new_flow(a);
	if (f) {
		memcpy(f->req_ip, src, 16);
		memcpy(f->resp_ip, dst, 16);
		f->resp_qpn = p->bth.dqpn;
		f->tr = tr;
		if (p->hdrs & RL_HDR_DETH) {
			f->req_qpn = p->deth.src_qp;
			f->req_qpn_known = true;
		}
		if (!an_index_flow(a, f))
			return NULL;
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
		struct an_tx *t = &f->seen[(f->head + f->cap - 1 - k) & (f->cap - 1)];

		if (rl_psn_diff(psn, t->first) >= 0 && rl_psn_diff(t->last, psn) >= 0)
			return t;
	}
	return NULL;
}

/* The flow that learned requester QP @dqpn between these addresses (the lowest index), if any. */
static struct an_flow *an_find_requester_flow(const struct rl_analyzer *a, const uint8_t req_ip[16],
					      const uint8_t resp_ip[16], uint32_t dqpn)
{
	struct an_iter it = { (size_t)-1, an_hash(req_ip, resp_ip, AN_BY_REQUESTER, dqpn) };
	struct an_flow *f, *best = NULL;

	while ((f = an_next(a, AN_BY_REQUESTER, &it)))
		if (f->req_qpn == dqpn && !memcmp(f->req_ip, req_ip, 16) && !memcmp(f->resp_ip, resp_ip, 16) &&
		    (!best || f < best))
			best = f;
	return best;
}

/*
 * The flow a response answers: it travels back, to the requester's QP. A
 * flow that has not learned its requester's QPN yet learns it from the
 * response that fits its requests (or from any, if it is the only one).
 */
static void an_adopt_orphan(struct rl_analyzer *a, struct an_flow *f);

static struct an_flow *an_response_flow(struct rl_analyzer *a, const struct rl_pkt *p)
{
	uint8_t src[16], dst[16];
	struct an_iter it = { (size_t)-1, 0 };
	struct an_flow *f, *guess = NULL, *only = NULL;
	int candidates = 0, unlearned = 0;

	an_addrs(p, src, dst);
	f = an_find_requester_flow(a, dst, src, p->bth.dqpn);
	if (f)
		return f;
	it.hash = an_hash(dst, src, AN_BY_ADDRS, 0);
	while ((f = an_next(a, AN_BY_ADDRS, &it))) {
		if (memcmp(f->req_ip, dst, 16) || memcmp(f->resp_ip, src, 16))
			continue;
		only = f;
		unlearned++;
		/* Several fit: the guess is the one with the highest index, but nothing is learned from it. */
		if (an_find_tx(f, p->bth.psn) || rl_psn_diff(p->bth.psn, f->expected) == 0) {
			candidates++;
			if (!guess || f > guess)
				guess = f;
		}
	}
	if (!candidates && unlearned == 1) {
		guess = only;
		candidates = 1;
	}
	if (guess && candidates == 1) {
		an_unindex_flow(a, guess);
		guess->req_qpn = p->bth.dqpn;
		guess->req_qpn_known = true;
		an_index_flow(a, guess);
		an_adopt_orphan(a, guess);
	}
	return guess;
}

/* ---- congestion: CE marks, CNPs and a shadow DCQCN reaction point ------------------------- */

void rl_analyzer_set_line_rate(struct rl_analyzer *a, uint64_t bps)
{
	a->line_bps = bps;
}

uint64_t rl_analyzer_line_rate(const struct rl_analyzer *a)
{
	return a->line_bps ? a->line_bps : RL_ANALYZER_NOMINAL_LINE_BPS;
}

/* @bytes over @ns, in bits per second; 0 over no time. */
static uint64_t an_rate_bps(uint64_t bytes, uint64_t ns)
{
	const uint64_t sec = 1000000000u;
	uint64_t bits = bytes * 8, rest;

	if (!ns)
		return 0;
	rest = bits % ns;
	/* rest < ns: rest * sec overflows only for windows past 18 s, where whole ns are precision enough. */
	if (ns > UINT64_MAX / sec)
		return bits / ns * sec + rest / (ns / sec);
	return bits / ns * sec + rest * sec / ns;
}

/* @x of @whole, in millionths. */
static uint32_t an_ppm(uint64_t x, uint64_t whole)
{
	const uint64_t m = 1000000u;

	if (!whole)
		return 0;
	return (uint32_t)(x <= UINT64_MAX / m ? x * m / whole : x / (whole / m ? whole / m : 1));
}

/*
 * What the link carries for @p, as a sender's byte counter counts it (cc.c):
 * Ethernet without a VLAN tag, IP, UDP, BTH..ICRC. The payload where the
 * capture has no IP header to say.
 */
static uint64_t an_link_bytes(const struct rl_pkt *p)
{
	if (p->l3 == RL_L3_IPV4)
		return RL_ETH_HDR_LEN + (uint64_t)p->ip4.total_len;
	if (p->l3 == RL_L3_IPV6)
		return RL_ETH_HDR_LEN + RL_IPV6_HDR_LEN + (uint64_t)p->ip6.payload_len;
	return p->payload_len;
}

/* A request: the RP's byte counter and timers, and the payload measured towards the next CNP. */
static void an_cc_request(struct an_flow *f, const struct rl_pkt *p, uint64_t t_ns, const struct rl_annotation *o)
{
	f->ce_seen += o->ecn_ce;
	if (!f->cc_started) {
		f->cc_started = true;
		f->cc_since = t_ns;
	}
	f->cc_bytes += p->payload_len;
	if (f->cc.rp) {
		rl_dcqcn_advance(f->cc.rp, t_ns);
		rl_dcqcn_on_sent(f->cc.rp, an_link_bytes(p), t_ns);
	}
}

/*
 * The flow a CNP is for: it travels from the responder back to the
 * requester's QP, as a response does (IBA A17.9.3), but teaches nothing:
 * a flow that has not learned its requester's QPN is taken only if it is
 * the one flow between those addresses.
 */
static struct an_flow *an_cnp_flow(const struct rl_analyzer *a, const struct rl_pkt *p)
{
	uint8_t src[16], dst[16];
	struct an_iter it = { (size_t)-1, 0 };
	struct an_flow *f, *only = NULL;

	an_addrs(p, src, dst);
	f = an_find_requester_flow(a, dst, src, p->bth.dqpn);
	if (f)
		return f;
	it.hash = an_hash(dst, src, AN_BY_ADDRS, 0);
	while ((f = an_next(a, AN_BY_ADDRS, &it))) {
		if (memcmp(f->req_ip, dst, 16) || memcmp(f->resp_ip, src, 16) || f == only)
			continue;
		if (only)
			return NULL;
		only = f;
	}
	return only;
}

/* The orphan CNPs to QP @qpn of requester @req_ip (from @resp_ip); with @make, a slot for them if none. */
static struct an_cnp_orphan *an_orphan(struct rl_analyzer *a, const uint8_t req_ip[16], const uint8_t resp_ip[16],
				       uint32_t qpn, bool make)
{
	struct an_cnp_orphan *o;

	for (size_t i = 0; i < AN_MAX_CNP_ORPHANS; i++) {
		o = &a->orphans[i];
		if (o->cc.cnps && o->qpn == qpn && !memcmp(o->req_ip, req_ip, 16) && !memcmp(o->resp_ip, resp_ip, 16))
			return o;
	}
	if (!make)
		return NULL;
	o = &a->orphans[a->orphan_next];
	a->orphan_next = (a->orphan_next + 1) % AN_MAX_CNP_ORPHANS;
	free(o->cc.rp);
	memset(o, 0, sizeof(*o));
	memcpy(o->req_ip, req_ip, 16);
	memcpy(o->resp_ip, resp_ip, 16);
	o->qpn = qpn;
	return o;
}

/* Flow @f has just learned its requester's QPN: the CNPs to it seen before are its own. */
static void an_adopt_orphan(struct rl_analyzer *a, struct an_flow *f)
{
	struct an_cnp_orphan *o = an_orphan(a, f->req_ip, f->resp_ip, f->req_qpn, false);

	if (!o)
		return;
	if (!f->cc.rp) {
		f->cc = o->cc;
		o->cc.rp = NULL;
	} else {
		f->cc.cnps += o->cc.cnps;
	}
	free(o->cc.rp);
	memset(o, 0, sizeof(*o));
	/* Its requests before are not split at those CNPs: measure again from the next one. */
	f->cc_started = false;
	f->cc_bytes = 0;
	f->cc_prev_rate = 0;
}

/*
 * A CNP to @cc's QP: count it and feed it to the shadow reaction point
 * (DCQCN section 3.1, through rl_dcqcn_on_cnp()); false if there is no
 * memory for the RP.
 */
static bool an_cc_cnp(struct an_cc *cc, uint64_t line, uint64_t t_ns, struct rl_cnp_annotation *c)
{
	if (!cc->rp) {
		cc->rp = malloc(sizeof(*cc->rp));
		if (!cc->rp || rl_dcqcn_init(cc->rp, NULL, line, t_ns)) {
			free(cc->rp);
			cc->rp = NULL;
			return false;
		}
	}
	rl_dcqcn_advance(cc->rp, t_ns);
	c->known = true;
	c->count = ++cc->cnps;
	c->alpha_ppm = an_ppm(cc->rp->alpha, RL_DCQCN_ALPHA_ONE);
	c->rc_before_ppm = an_ppm(cc->rp->rc_bps, line);
	c->cut = rl_dcqcn_on_cnp(cc->rp, t_ns);
	c->alpha_after_ppm = an_ppm(cc->rp->alpha, RL_DCQCN_ALPHA_ONE);
	c->rc_ppm = an_ppm(cc->rp->rc_bps, line);
	c->rt_ppm = an_ppm(cc->rp->rt_bps, line);
	return true;
}

/* What flow @f sent since the previous CNP (or its first request): the "did" beside the "should". */
static void an_cc_measure(struct an_flow *f, uint64_t t_ns, struct rl_cnp_annotation *c)
{
	c->ce_seen = f->ce_seen;
	if (f->cc_started) {
		c->window_ns = t_ns - f->cc_since;
		c->rate_bps = an_rate_bps(f->cc_bytes, c->window_ns);
	}
	c->prev_rate_bps = f->cc_prev_rate;
	f->cc_prev_rate = c->cut ? c->rate_bps : 0;
	f->cc_bytes = 0;
	f->cc_since = t_ns;
	f->cc_started = true;
}

/*
 * A CNP: to its QP's flow if known, else kept apart (an orphan) until a
 * response names the flow's requester QPN; then the flow adopts it.
 */
static void an_cnp(struct rl_analyzer *a, uint64_t t_ns, const struct rl_pkt *p, struct rl_annotation *o)
{
	struct an_flow *f = an_cnp_flow(a, p);
	struct rl_cnp_annotation *c = &o->cc;
	uint64_t line = rl_analyzer_line_rate(a);
	struct an_cnp_orphan *orphan;
	uint8_t src[16], dst[16];

	c->qpn = p->bth.dqpn;
	c->line_bps = line;
	c->line_given = a->line_bps != 0;
	if (f) {
		if (an_cc_cnp(&f->cc, line, t_ns, c))
			an_cc_measure(f, t_ns, c);
		return;
	}
	an_addrs(p, src, dst);
	orphan = an_orphan(a, dst, src, p->bth.dqpn, true);
	if (!an_cc_cnp(&orphan->cc, line, t_ns, c) && !orphan->cc.cnps)
		memset(orphan, 0, sizeof(*orphan));
}

bool rl_analyzer_next_qp_congestion(const struct rl_analyzer *a, size_t *pos, struct rl_qp_congestion *out)
{
	uint64_t line = rl_analyzer_line_rate(a);

	for (; *pos < a->n + AN_MAX_CNP_ORPHANS; ++*pos) {
		const struct an_flow *f = *pos < a->n ? &a->flows[*pos] : NULL;
		const struct an_cnp_orphan *o = f ? NULL : &a->orphans[*pos - a->n];
		const struct an_cc *cc = f ? &f->cc : &o->cc;

		if (f ? !f->cc.cnps && !f->ce_seen : !o->cc.cnps)
			continue;
		memset(out, 0, sizeof(*out));
		memcpy(out->req_ip, f ? f->req_ip : o->req_ip, 16);
		memcpy(out->resp_ip, f ? f->resp_ip : o->resp_ip, 16);
		out->qpn = f ? (f->req_qpn_known ? f->req_qpn : 0) : o->qpn;
		out->resp_qpn_known = f != NULL;
		out->resp_qpn = f ? f->resp_qpn : 0;
		out->cnps = cc->cnps;
		out->ce_seen = f ? f->ce_seen : 0;
		out->rate_known = cc->rp && cc->cnps;
		if (out->rate_known)
			out->rc_ppm = an_ppm(cc->rp->rc_bps, line);
		++*pos;
		return true;
	}
	return false;
}

#define AN_CNP_FIELD(member_, name_, meaning_)                                                     \
	{ .name = name_, .key = #member_, .meaning = meaning_,                                     \
	  .member = offsetof(struct rl_cnp_annotation, member_),                                   \
	  .member_size = sizeof(((struct rl_cnp_annotation *)0)->member_) }

/* Shown for a CNP whose QP's requests were seen (rl_cnp_annotation.known). */
static const struct rl_cnp_field an_cnp_fields[] = {
	AN_CNP_FIELD(count, "CNPs to this QP", "this is the Nth CNP to the QP"),
	AN_CNP_FIELD(cut, "DCQCN cuts the rate",
		     "DCQCN cuts on this CNP; 0: within reduce_period of the last cut, it only counts"),
	AN_CNP_FIELD(alpha_ppm, "alpha (millionths)", "DCQCN's alpha, the congestion estimate the cut uses"),
	AN_CNP_FIELD(alpha_after_ppm, "alpha after (millionths)", "alpha after the CNP: (1 - g)alpha + g"),
	AN_CNP_FIELD(rc_before_ppm, "Rc before (millionths of the line rate)",
		     "the current rate before the CNP, after the recovery since the last"),
	AN_CNP_FIELD(rc_ppm, "Rc after (millionths of the line rate)",
		     "the current rate DCQCN leaves: Rc(1 - alpha/2) on a cut"),
	AN_CNP_FIELD(rt_ppm, "Rt (millionths of the line rate)", "the target rate: the rate before the cut"),
	AN_CNP_FIELD(ce_seen, "CE-marked requests of this QP", "requests of this QP marked Congestion Experienced so far"),
	AN_CNP_FIELD(rate_bps, "Measured rate (bit/s)",
		     "the QP's request payload since the previous CNP (or its first request), from the capture"),
	AN_CNP_FIELD(window_ns, "Measured over (ns)", "the time that rate is measured over"),
	AN_CNP_FIELD(prev_rate_bps, "Measured rate before the previous CNP (bit/s)",
		     "the same before the previous CNP, if that one cut: compare to see whether the QP slowed"),
};

const struct rl_cnp_field *rl_cnp_field_table(size_t *count)
{
	*count = sizeof(an_cnp_fields) / sizeof(an_cnp_fields[0]);
	return an_cnp_fields;
}

uint64_t rl_cnp_field_value(const struct rl_cnp_field *f, const struct rl_cnp_annotation *c)
{
	const unsigned char *m = (const unsigned char *)c + f->member;
	uint32_t u32;
	uint64_t u64;

	switch (f->member_size) {
	case 1: return *m;
	case 4: memcpy(&u32, m, 4); return u32;
	default: memcpy(&u64, m, 8); return u64;
	}
}

/* ---- requests ----------------------------------------------------------------------------- */

static void an_cm_first_psn(const struct an_flow *f, const struct rl_pkt *p, struct rl_annotation *o);

/* The most PSNs one request can span and still be told apart by a 24-bit compare (IBA 9.7.1's window). */
#define AN_MAX_SPAN ((1u << 23) - 1)

/*
 * Packets a READ of @len bytes takes at @mtu bytes each (IBA 9.7.2); 1 for
 * zero bytes. In 64 bits: a DMA length up to 2^32 - 1 plus the MTU does not
 * fit 32 (issue 22 D14). A READ wider than AN_MAX_SPAN PSNs is held to it.
 */
static uint32_t an_read_pkts(uint32_t len, uint32_t mtu)
{
	uint64_t n = len ? ((uint64_t)len + mtu - 1) / mtu : 1;

	return n > AN_MAX_SPAN ? AN_MAX_SPAN : (uint32_t)n;
}

/* PSNs a request occupies: one, or one per READ response packet when the MTU is known. */
static uint32_t an_span(const struct an_flow *f, const struct rl_pkt *p)
{
	if ((p->op->flags & RL_OPF_READ) && (p->hdrs & RL_HDR_RETH) && f->pmtu)
		return an_read_pkts(p->reth.dma_len, f->pmtu);
	return 1;
}

/* @hi raised to @last if that is later (or set, if there was none yet). */
static void an_hi_max(uint32_t *hi, bool *known, uint32_t last)
{
	if (!*known || rl_psn_diff(last, *hi) > 0)
		*hi = last;
	*known = true;
}

/*
 * A READ sent before the path MTU was known was remembered with its widest
 * span (256-byte packets). Now its end is known, the PSN before @next: shrink
 * the record, so that the requests after it are not taken for copies of it.
 * hi, which counted the guess, becomes what it was before the READ raised by
 * the READ and the requests after it: the walk goes back only as far as the
 * READ, at most a few requests old (a flow of small READs used to walk its
 * whole ring, twice, for each).
 */
static void an_read_ends(struct an_flow *f, uint32_t next)
{
	uint32_t hi = f->read_hi;
	bool known = f->read_hi_known;

	f->after_read = false;
	f->expected = next;
	for (unsigned k = 0; k < f->nseen; k++) {
		struct an_tx *t = &f->seen[(f->head + f->cap - 1 - k) & (f->cap - 1)];

		if (t->first == f->read_psn && (rl_opcode_info(t->opcode)->flags & RL_OPF_READ)) {
			t->last = rl_psn_add(next, 0xffffff);
			an_hi_max(&hi, &known, t->last);
			f->hi = hi;
			return;
		}
		an_hi_max(&hi, &known, t->last);
	}
	/* The READ left the ring: hi over what is still in it. */
	known = false;
	for (unsigned k = 0; k < f->nseen; k++)
		an_hi_max(&hi, &known, f->seen[(f->head + f->cap - 1 - k) & (f->cap - 1)].last);
	if (known)
		f->hi = hi;
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
		an_read_ends(f, rl_psn_add(f->read_psn, an_read_pkts(f->read_len, f->pmtu)));
}

/*
 * Room for one more transmission: a full ring grows (its entries oldest
 * first, then the next slot) until AN_SEEN, then the oldest is overwritten.
 * False only if the flow has no ring and memory ran out.
 */
static bool an_seen_room(struct an_flow *f)
{
	unsigned cap = f->cap ? f->cap * 2 : AN_SEEN_MIN;
	struct an_tx *v;

	if (f->nseen < f->cap || f->cap == AN_SEEN)
		return true;
	v = malloc(cap * sizeof(*v));
	if (!v)
		return f->cap > 0;   /* keep overwriting the ring it has */
	for (unsigned k = 0; k < f->nseen; k++)
		v[k] = f->seen[(f->head + k) & (f->cap - 1)];   /* full: the oldest is at head */
	free(f->seen);
	f->seen = v;
	f->cap = cap;
	f->head = f->nseen;
	return true;
}

static void an_remember(struct an_flow *f, const struct rl_pkt *p, uint64_t frame, uint64_t t_ns, uint32_t span)
{
	struct an_tx *t;

	if (!an_seen_room(f))
		return;
	t = &f->seen[f->head];

	t->first = p->bth.psn;
	t->last = rl_psn_add(p->bth.psn, span - 1);
	if ((p->op->flags & RL_OPF_READ) && !f->pmtu && (p->hdrs & RL_HDR_RETH))
		t->last = rl_psn_add(p->bth.psn, an_read_pkts(p->reth.dma_len, 256) - 1);
	if (!f->nseen || rl_psn_diff(t->last, f->hi) > 0)
		f->hi = t->last;
	t->frame = frame;
	t->t_ns = t_ns;
	t->opcode = p->bth.opcode;
	t->len = (p->hdrs & RL_HDR_RETH) ? p->reth.dma_len : 0;
	f->head = (f->head + 1) & (f->cap - 1);   /* cap: a power of two */
	if (f->nseen < f->cap)
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
	struct an_flow *f = an_request_flow(a, p);
	uint32_t span;

	o->role = RL_ROLE_REQUEST;
	if (!f)
		return;
	an_touch(a, f);
	an_learn_mtu(f, p);
	span = an_span(f, p);
	if (!f->started) {
		f->acked_next = p->bth.psn;
		f->acked_known = true;
		if (f->cm_frame)
			an_cm_first_psn(f, p, o);
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
				f->read_hi_known = f->nseen > 0;
				f->read_hi = f->hi;
				f->read_psn = p->bth.psn;
				f->read_len = p->reth.dma_len;
				f->read_min = rl_psn_add(p->bth.psn, an_read_pkts(p->reth.dma_len, 4096));
				f->read_max = rl_psn_add(p->bth.psn, an_read_pkts(p->reth.dma_len, 256));
			}
		}
		f->started = true;
	}
	an_msg_request(f, p, frame, o);
	an_remember(f, p, frame, t_ns, span);
	an_cc_request(f, p, t_ns, o);
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

/*
 * A PSN sequence error NAK: the responder sends it, once, on the first
 * request past its expected PSN, the NAK's PSN (IBA 9.7.5.1.1, C9-101..C9-106;
 * rxe_resp.c's check_psn). That trigger opens the latest run of transmissions
 * beyond the NAK's PSN; the run must begin after one that is not beyond it
 * (the lost packet itself in a capture at the sender), or the capture may
 * have started inside the run and the trigger is unknown. PSNs from the NAK's
 * up to the trigger's are the missing ones.
 */
static void an_seq_err(struct an_flow *f, const struct rl_pkt *p, uint64_t t_ns, struct rl_annotation *o)
{
	const struct an_tx *trigger = NULL, *run = NULL;

	o->seq_err = true;
	o->missing_first = o->missing_last = p->bth.psn;
	o->request_frame = 0;
	for (unsigned k = 0; f && k < f->nseen && !trigger; k++) {
		const struct an_tx *t = &f->seen[(f->head + f->cap - 1 - k) & (f->cap - 1)];

		if (rl_psn_diff(t->first, p->bth.psn) > 0)
			run = t;
		else
			trigger = run;
		if (!run)
			break;
	}
	if (!trigger)
		return;
	o->trigger_frame = o->request_frame = trigger->frame;
	o->response_time_ns = t_ns - trigger->t_ns;
	o->missing_last = rl_psn_add(trigger->first, 0xffffff);
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
		if (rl_syndrome_type(p->aeth.syndrome) == RL_AETH_NAK &&
		    rl_syndrome_value(p->aeth.syndrome) == RL_NAK_PSN_SEQ_ERR)
			an_seq_err(f, p, t_ns, o);
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

/* ---- connection management (IBA 12) ---------------------------------------------------- */

/*
 * The first request of a flow whose starting PSN a REQ or REP announced.
 * The Starting PSN of a REQ or REP is the PSN its sender's receive queue
 * expects first, so the first PSN the other side's QP sends to it (IBA
 * 12.7, the REQ and REP "Starting PSN"; Linux cm.c keeps the REQ's as the
 * active side's rq_psn and as the passive side's sq_psn, and the REP's the
 * other way round). A real rping shows it: the REQ's PSN starts the passive
 * side's requests, the REP's the active side's.
 */
static void an_cm_first_psn(const struct an_flow *f, const struct rl_pkt *p, struct rl_annotation *o)
{
	o->cm.psn_frame = f->cm_frame;
	o->cm.psn_attr = f->cm_attr;
	o->cm.announced_psn = f->cm_psn;
	o->cm.psn_mismatch = p->bth.psn != f->cm_psn;
}

/* The communication IDs a message carries (IBA 12.6): its sender's, and its receiver's (0 in a REQ). */
static void an_cm_ids(const struct rl_cm *cm, uint32_t *local, uint32_t *remote)
{
	static const enum rl_cm_field_id ids[AN_CM_MSGS][2] = {
		[AN_CM_I(RL_CM_REQ)] = { RL_CMF_REQ_LOCAL_COMM_ID, RL_CMF_COUNT },
		[AN_CM_I(RL_CM_MRA)] = { RL_CMF_MRA_LOCAL_COMM_ID, RL_CMF_MRA_REMOTE_COMM_ID },
		[AN_CM_I(RL_CM_REJ)] = { RL_CMF_REJ_LOCAL_COMM_ID, RL_CMF_REJ_REMOTE_COMM_ID },
		[AN_CM_I(RL_CM_REP)] = { RL_CMF_REP_LOCAL_COMM_ID, RL_CMF_REP_REMOTE_COMM_ID },
		[AN_CM_I(RL_CM_RTU)] = { RL_CMF_RTU_LOCAL_COMM_ID, RL_CMF_RTU_REMOTE_COMM_ID },
		[AN_CM_I(RL_CM_DREQ)] = { RL_CMF_DREQ_LOCAL_COMM_ID, RL_CMF_DREQ_REMOTE_COMM_ID },
		[AN_CM_I(RL_CM_DREP)] = { RL_CMF_DREP_LOCAL_COMM_ID, RL_CMF_DREP_REMOTE_COMM_ID },
		[AN_CM_I(RL_CM_SIDR_REQ)] = { RL_CMF_SIDR_REQ_REQUEST_ID, RL_CMF_COUNT },
		[AN_CM_I(RL_CM_SIDR_REP)] = { RL_CMF_SIDR_REP_REQUEST_ID, RL_CMF_COUNT },
		[AN_CM_I(RL_CM_LAP)] = { RL_CMF_LAP_LOCAL_COMM_ID, RL_CMF_LAP_REMOTE_COMM_ID },
		[AN_CM_I(RL_CM_APR)] = { RL_CMF_APR_LOCAL_COMM_ID, RL_CMF_APR_REMOTE_COMM_ID },
	};
	unsigned i = AN_CM_I(cm->attr);

	*local = (uint32_t)rl_cm_get(cm, ids[i][0]);
	*remote = (uint32_t)rl_cm_get(cm, ids[i][1]);   /* rl_cm_get gives 0 for RL_CMF_COUNT */
}

/* The message @cm answers, 0 if it starts an exchange (REQ, DREQ, LAP, SIDR_REQ). */
static uint16_t an_cm_answers(const struct rl_cm *cm)
{
	switch (cm->attr) {
	case RL_CM_REP: return RL_CM_REQ;
	case RL_CM_RTU: return RL_CM_REP;
	case RL_CM_DREP: return RL_CM_DREQ;
	case RL_CM_APR: return RL_CM_LAP;
	case RL_CM_SIDR_REP: return RL_CM_SIDR_REQ;
	case RL_CM_MRA:
	case RL_CM_REJ: return rl_cm_answered_msg(cm);
	default: return 0;
	}
}

/* The state a (first copy of a) message leaves its conversation in. */
static enum rl_cm_wire_state an_cm_state_after(uint16_t attr)
{
	switch (attr) {
	case RL_CM_REQ: return RL_CMS_REQ_SENT;
	case RL_CM_MRA: return RL_CMS_MRA_SENT;
	case RL_CM_REJ: return RL_CMS_REJECTED;
	case RL_CM_REP: return RL_CMS_REP_SENT;
	case RL_CM_RTU: return RL_CMS_ESTABLISHED;
	case RL_CM_DREQ: return RL_CMS_DREQ_SENT;
	case RL_CM_DREP: return RL_CMS_TIMEWAIT;
	case RL_CM_SIDR_REQ: return RL_CMS_SIDR_REQ_SENT;
	case RL_CM_SIDR_REP: return RL_CMS_SIDR_ANSWERED;
	case RL_CM_LAP: return RL_CMS_LAP_SENT;
	case RL_CM_APR: return RL_CMS_ESTABLISHED;
	default: return RL_CMS_NONE;
	}
}

static bool an_cm_is_sidr(uint16_t attr)
{
	return attr == RL_CM_SIDR_REQ || attr == RL_CM_SIDR_REP;
}

/* Which side sends @attr: REQ, RTU and LAP come from the active side, REP, MRA, APR and SIDR_REP from the passive. */
static int an_cm_sender_guess(uint16_t attr)
{
	switch (attr) {
	case RL_CM_REP: case RL_CM_MRA: case RL_CM_REJ: case RL_CM_APR: case RL_CM_SIDR_REP: return 1;
	default: return 0;   /* DREQ and DREP come from either: a guess, for a conversation begun outside the capture */
	}
}

/* The conversation a message from @src to @dst belongs to, and which side sent it (*side). */
static struct an_cm_conv *an_cm_find(struct rl_analyzer *a, const uint8_t src[16], const uint8_t dst[16],
				     uint16_t attr, uint32_t local, uint32_t remote, int *side)
{
	bool sidr = an_cm_is_sidr(attr);

	for (size_t i = 0; i < a->ncm; i++) {
		struct an_cm_conv *c = &a->cms[i];
		bool fwd = !memcmp(c->ip[0], src, 16) && !memcmp(c->ip[1], dst, 16);
		bool back = !memcmp(c->ip[1], src, 16) && !memcmp(c->ip[0], dst, 16);

		if (c->sidr != sidr)
			continue;
		if (sidr || attr == RL_CM_REQ) {
			/* Keyed by the sender's ID alone: the request ID, the active side's communication ID. */
			*side = attr == RL_CM_SIDR_REP ? 1 : 0;
			if ((*side ? back : fwd) && c->comm[0] == local)
				return c;
			continue;
		}
		if (fwd && c->comm[0] == local && (!c->comm_known[1] || c->comm[1] == remote)) {
			*side = 0;
			return c;
		}
		/* A REJ sent before the passive side had an ID carries 0 as its own. */
		if (back && c->comm[0] == remote && (!c->comm_known[1] || !local || c->comm[1] == local)) {
			*side = 1;
			return c;
		}
	}
	return NULL;
}

/* Room for one more conversation: a new slot, or the one idle longest. */
static struct an_cm_conv *an_cm_new(struct rl_analyzer *a)
{
	struct an_cm_conv *c;

	if (a->ncm == a->cmcap) {
		size_t cap = a->cmcap ? a->cmcap * 2 : 8;

		if (cap > AN_MAX_CM) {
			size_t old = 0;

			for (size_t i = 1; i < a->ncm; i++)
				if (a->cms[i].last_t < a->cms[old].last_t)
					old = i;
			c = &a->cms[old];
			memset(c, 0, sizeof(*c));
			return c;
		}
		c = realloc(a->cms, cap * sizeof(*c));
		if (!c)
			return NULL;
		a->cms = c;
		a->cmcap = cap;
	}
	c = &a->cms[a->ncm++];
	memset(c, 0, sizeof(*c));
	return c;
}

/* Begin conversation @c with a message from @src to @dst, its sender on side @side. */
static void an_cm_init(struct an_cm_conv *c, const uint8_t src[16], const uint8_t dst[16], uint16_t attr,
		       uint32_t local, uint32_t remote, int side)
{
	memset(c, 0, sizeof(*c));
	c->sidr = an_cm_is_sidr(attr);
	memcpy(c->ip[side], src, 16);
	memcpy(c->ip[!side], dst, 16);
	if (c->sidr) {
		c->comm[0] = local;
		c->comm_known[0] = true;
		return;
	}
	c->comm[side] = local;
	c->comm_known[side] = attr != RL_CM_REJ || local;
	if (attr != RL_CM_REQ) {
		c->comm[!side] = remote;
		c->comm_known[!side] = true;
	}
}

/*
 * A REQ or REP announced the QP that @resp_qpn names and the PSN its peer,
 * at @req_ip, sends it first: the flow of those requests remembers it. A flow
 * already under way between those QPs belonged to an older connection: it
 * starts again.
 */
static void an_cm_announce(struct rl_analyzer *a, const struct an_cm_conv *c, int announcer, uint32_t psn,
			   uint64_t frame, uint16_t attr)
{
	const uint8_t *req_ip = c->ip[!announcer], *resp_ip = c->ip[announcer];
	uint32_t resp_qpn = c->qpn[announcer];
	struct an_flow *f = an_find_request_flow(a, req_ip, resp_ip, resp_qpn, c->tr);

	if (f)
		an_unindex_flow(a, f);
	else if (!(f = an_new_flow(a)))
		return;
	an_flow_reset(f);
	memcpy(f->req_ip, req_ip, 16);
	memcpy(f->resp_ip, resp_ip, 16);
	f->resp_qpn = resp_qpn;
	f->tr = c->tr;
	an_touch(a, f);
	f->req_qpn = c->qpn[!announcer];
	f->req_qpn_known = c->qpn_known[!announcer];
	f->cm_frame = frame;
	f->cm_psn = psn;
	f->cm_attr = attr;
	an_index_flow(a, f);
}

/* The REP names the passive side's QP: the flow the REQ announced learns who sends on it. */
static void an_cm_learn_requester(struct rl_analyzer *a, const struct an_cm_conv *c)
{
	struct an_flow *f = an_find_request_flow(a, c->ip[1], c->ip[0], c->qpn[0], c->tr);

	if (f && !f->req_qpn_known) {
		an_unindex_flow(a, f);
		f->req_qpn = c->qpn[1];
		f->req_qpn_known = true;
		an_index_flow(a, f);
	}
}

/* The QP (and, for its peer, the first PSN) that a first REQ or REP announces. */
static void an_cm_qp(struct rl_analyzer *a, struct an_cm_conv *c, const struct rl_cm *cm, int side, uint64_t frame)
{
	if (cm->attr == RL_CM_REQ && side == 0) {
		uint64_t tst = rl_cm_get(cm, RL_CMF_REQ_TRANSPORT_SERVICE_TYPE);

		if (tst != RL_TR_RC && tst != RL_TR_UC)
			return;    /* RD: no QP-to-QP flow to follow */
		c->tr = (enum rl_transport)tst;
		c->qpn[0] = (uint32_t)rl_cm_get(cm, RL_CMF_REQ_LOCAL_QPN);
		c->qpn_known[0] = true;
		an_cm_announce(a, c, 0, (uint32_t)rl_cm_get(cm, RL_CMF_REQ_STARTING_PSN), frame, RL_CM_REQ);
	} else if (cm->attr == RL_CM_REP && side == 1) {
		c->qpn[1] = (uint32_t)rl_cm_get(cm, RL_CMF_REP_LOCAL_QPN);
		c->qpn_known[1] = true;
		an_cm_announce(a, c, 1, (uint32_t)rl_cm_get(cm, RL_CMF_REP_STARTING_PSN), frame, RL_CM_REP);
		if (c->qpn_known[0])
			an_cm_learn_requester(a, c);
	}
}

/*
 * A MAD for the GSI: if it is a whole CM message, link it to the message it
 * answers and to its earlier copy, say the conversation's state, and hand
 * the QPs and PSNs a REQ or REP announces to the flows that will carry them.
 */
static void an_cm(struct rl_analyzer *a, uint64_t frame, uint64_t t_ns, const struct rl_pkt *p,
		  struct rl_annotation *o)
{
	struct rl_cm cm;
	struct an_cm_conv *c;
	struct an_cm_sent *s, *ans;
	uint8_t src[16], dst[16];
	uint32_t local, remote;
	uint64_t tid;
	uint16_t answers;
	int side = 0;

	if (rl_cm_decode(p->payload, p->payload_len, &cm) != RL_CM_OK)
		return;
	o->cm.is_cm = true;
	o->cm.attr = cm.attr;
	tid = rl_cm_get(&cm, RL_CMF_MAD_TID);
	an_cm_ids(&cm, &local, &remote);
	an_addrs(p, src, dst);
	c = an_cm_find(a, src, dst, cm.attr, local, remote, &side);
	if (!c) {
		side = an_cm_sender_guess(cm.attr);
		if (!(c = an_cm_new(a)))
			return;
		an_cm_init(c, src, dst, cm.attr, local, remote, side);
	} else if (cm.attr == RL_CM_REQ && c->sent[AN_CM_I(RL_CM_REQ)].frame && c->sent[AN_CM_I(RL_CM_REQ)].tid != tid) {
		/* The same IDs in a new transaction: the ID was used again, for a new connection. */
		an_cm_init(c, src, dst, cm.attr, local, remote, side);
	}
	c->last_t = t_ns;
	if (side == 1 && local && !c->comm_known[1] && !c->sidr) {
		c->comm[1] = local;
		c->comm_known[1] = true;
	}

	s = &c->sent[AN_CM_I(cm.attr)];
	if (s->frame && s->side == side && s->tid == tid)
		o->cm.original_frame = s->frame;    /* resent: same sender, IDs and transaction (IBA 12.6.3) */
	answers = an_cm_answers(&cm);
	ans = answers ? &c->sent[AN_CM_I(answers)] : NULL;
	if (ans && ans->frame && ans->side != side && t_ns >= ans->t_ns) {
		o->cm.answers_frame = ans->frame;
		o->cm.answers_attr = answers;
		o->cm.answer_time_ns = t_ns - ans->t_ns;
	}
	if (!o->cm.original_frame) {
		c->state = an_cm_state_after(cm.attr);
		an_cm_qp(a, c, &cm, side, frame);
	}
	o->cm.state = c->state;
	s->frame = frame;
	s->t_ns = t_ns;
	s->tid = tid;
	s->side = (uint8_t)side;
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
		an_cnp(a, t_ns, p, o);
	} else if (p->op->flags & RL_OPF_REQ) {
		an_request(a, frame, t_ns, p, o);
		if (rl_cm_is_gsi(p))
			an_cm(a, frame, t_ns, p, o);
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

/* A CM message in one line: the decoder's own (rl_cm_describe). */
static void an_cm_summary(const struct rl_pkt *p, char *buf, size_t n)
{
	struct rl_cm cm;

	rl_cm_decode(p->payload, p->payload_len, &cm);
	rl_cm_describe(&cm, buf, n);
}

/* A time span for people, to a tenth: microseconds below a millisecond, milliseconds above. */
static void an_span_text(uint64_t ns, char *buf, size_t n)
{
	uint64_t tenths = ns < 1000000 ? (ns + 50) / 100 : (ns + 50000) / 100000;

	an_text(buf, n, "%llu.%llu %s", (unsigned long long)(tenths / 10), (unsigned long long)(tenths % 10),
		ns < 1000000 ? "us" : "ms");
}

static const char *an_cm_abbr(uint16_t attr)
{
	const struct rl_cm_msg *m = rl_cm_msg(attr);

	return m ? m->abbr : "?";
}

/* What a CM message does in its conversation (IBA 12.6, 12.9): what it answers, whether it is resent, the state. */
static void an_cm_explanation(const struct rl_annotation *o, char *buf, size_t n)
{
	const struct rl_cm_msg *m = rl_cm_msg(o->cm.attr);
	char ans[96] = "", again[64] = "", span[32];

	if (o->cm.answers_frame) {
		an_span_text(o->cm.answer_time_ns, span, sizeof(span));
		an_text(ans, sizeof(ans), " It answers the %s of frame %llu, %s later.", an_cm_abbr(o->cm.answers_attr),
			(unsigned long long)o->cm.answers_frame, span);
	}
	if (o->cm.original_frame)
		an_text(again, sizeof(again), " It is sent again (before in frame %llu): no answer came in time.",
			(unsigned long long)o->cm.original_frame);
	an_text(buf, n, "CM %s (%s), a MAD on QP1.%s%s The connection, as the wire shows it: %s.", m ? m->abbr : "?",
		m ? m->name : "?", ans, again, rl_cm_wire_state_name(o->cm.state));
}

/* The first request to a QP whose starting PSN a REQ or REP announced (IBA 12.7). */
static void an_cm_psn_text(const struct rl_annotation *o, const struct rl_pkt *p, char *buf, size_t n)
{
	if (!o->cm.psn_frame) {
		if (n)
			buf[0] = '\0';
		return;
	}
	if (!o->cm.psn_mismatch)
		an_text(buf, n, " QP 0x%x's first PSN %u was set in the %s of frame %llu.", p->bth.dqpn,
			o->cm.announced_psn, an_cm_abbr(o->cm.psn_attr), (unsigned long long)o->cm.psn_frame);
	else
		an_text(buf, n, " But the %s of frame %llu set QP 0x%x's first PSN to %u: the responder expects that "
			"PSN and takes this one for a sequence error or a duplicate.", an_cm_abbr(o->cm.psn_attr),
			(unsigned long long)o->cm.psn_frame, p->bth.dqpn, o->cm.announced_psn);
}

/* @ppm of the line rate as a percentage, and in Gb/s when the line rate was given. */
static void an_rate_text(const struct rl_cnp_annotation *c, uint32_t ppm, char *buf, size_t n)
{
	uint64_t mbps = (uint64_t)ppm * (c->line_bps / 1000000u) / 1000000u;

	if (c->line_given)
		an_text(buf, n, "%u.%u%% of the line rate, %llu.%02llu Gb/s", (ppm + 500) / 10000, (ppm + 500) / 1000 % 10,
			(unsigned long long)(mbps + 5) / 1000, (unsigned long long)(mbps + 5) / 10 % 100);
	else
		an_text(buf, n, "%u.%u%% of the line rate", (ppm + 500) / 10000, (ppm + 500) / 1000 % 10);
}

/* A measured rate: Gb/s to two places. */
static void an_bps_text(uint64_t bps, char *buf, size_t n)
{
	uint64_t c = (bps + 5000000) / 10000000;

	an_text(buf, n, "%llu.%02llu Gb/s", (unsigned long long)(c / 100), (unsigned long long)(c % 100));
}

/* Millionths to two places: alpha, alpha/2. */
static void an_ppm2_text(uint32_t ppm, char *buf, size_t n)
{
	uint32_t c = (ppm + 5000) / 10000;

	an_text(buf, n, "%u.%02u", c / 100, c % 100);
}

/* DCQCN section 3.1: on a cut Rt = Rc, Rc = Rc(1 - alpha/2); within reduce_period the CNP only counts. */
static void an_cnp_summary(const struct rl_cnp_annotation *c, char *buf, size_t n)
{
	char rc[64], half[16];

	an_rate_text(c, c->rc_ppm, rc, sizeof(rc));
	an_ppm2_text(c->alpha_ppm / 2, half, sizeof(half));
	if (c->cut)
		an_text(buf, n, "CNP %llu to QP 0x%06x: DCQCN cuts Rc by alpha/2 = %s -> %s",
			(unsigned long long)c->count, c->qpn, half, rc);
	else
		an_text(buf, n, "CNP %llu to QP 0x%06x: within reduce_period of the last cut, DCQCN does not cut "
			"(Rc stays %s)", (unsigned long long)c->count, c->qpn, rc);
}

/* The "should" in full, then the "did": the QP's measured rate since the last CNP against the one before. */
static void an_cnp_explanation(const struct rl_cnp_annotation *c, const struct rl_pkt *p, char *buf, size_t n)
{
	char rt[64], rc[64], al[16], al2[16], rate[32], prev[32], span[32], should[200], did[200] = "";

	an_rate_text(c, c->rt_ppm, rt, sizeof(rt));
	an_rate_text(c, c->rc_ppm, rc, sizeof(rc));
	an_ppm2_text(c->alpha_ppm, al, sizeof(al));
	an_ppm2_text(c->alpha_after_ppm, al2, sizeof(al2));
	if (c->cut)
		an_text(should, sizeof(should), " DCQCN (Zhu et al. 2015, 3.1): Rt = %s, the rate before the cut; "
			"Rc = Rc(1 - alpha/2) = %s; alpha %s -> %s.", rt, rc, al, al2);
	else
		an_text(should, sizeof(should), " DCQCN cuts at most once per reduce_period: Rc stays %s.", rc);
	if (c->window_ns) {
		an_bps_text(c->rate_bps, rate, sizeof(rate));
		an_span_text(c->window_ns, span, sizeof(span));
		if (c->prev_rate_bps) {
			an_bps_text(c->prev_rate_bps, prev, sizeof(prev));
			an_text(did, sizeof(did), " Since CNP %llu its requests' payload ran at %s over %s (%s before it): %s.",
				(unsigned long long)c->count - 1, rate, span, prev,
				c->rate_bps * 1000 >= c->prev_rate_bps * RL_CNP_SLOWED_PERMILLE
				? "it did not slow down" : "it slowed down");
		} else {
			an_text(did, sizeof(did), " Its requests' payload ran at %s over the %s before it.", rate, span);
		}
	}
	an_text(buf, n, "%s.%s%s", rl_describe_opcode(p->bth.opcode), should, did);
}

void rl_annotation_summary(const struct rl_annotation *o, const struct rl_pkt *p, char *buf, size_t n)
{
	if (!n)
		return;
	buf[0] = '\0';
	if (o->role == RL_ROLE_CNP && o->cc.known)
		an_cnp_summary(&o->cc, buf, n);
	else if (o->role == RL_ROLE_CNP)
		an_text(buf, n, "CNP: congestion on the way to QP 0x%x; its sender should slow down", p->bth.dqpn);
	else if (o->cm.is_cm)
		an_cm_summary(p, buf, n);
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
	char v[96] = "", psn[200];

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
	an_cm_psn_text(o, p, psn, sizeof(psn));
	if (o->nak)
		an_text(buf, n, "%s", nak_meaning);
	else if (o->cnp && o->cc.known)
		an_cnp_explanation(&o->cc, p, buf, n);
	else if (o->cnp)
		an_text(buf, n, "%s.", rl_describe_opcode(p->bth.opcode));
	else if (o->cm.is_cm)
		an_cm_explanation(o, buf, n);
	else
		an_text(buf, n, "%s.%s%s%s", rl_describe_opcode(p->bth.opcode), verdict, psn,
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
