/* SPDX-License-Identifier: MIT */
/* The analyzer on crafted streams: verdicts, CM links, and memory that does not grow with the capture. */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
/* The analyzer's inside: its flows' keys and their hash, to make keys whose hashes collide. */
#include "../../core/src/analyze_hash.h"

/* IPv4 address @ip4 (0x0a000001: 10.0.0.1) into @a's 4 bytes. */
static void put_ip4(uint8_t a[4], uint32_t ip4)
{
	for (int k = 0; k < 4; k++)
		a[k] = (uint8_t)(ip4 >> (24 - 8 * k));
}

/*
 * Packet @frame from IPv4 @src to @dst: @syndrome for an ACK opcode, @dma_len
 * for a READ request; the decoded packet in @d (its payload points into a
 * static frame).
 */
static void feed_ip4(struct rl_analyzer *a, uint64_t frame, uint8_t opcode, uint8_t syndrome, uint32_t dma_len,
		     uint32_t src, uint32_t dst, uint32_t qpn, uint32_t psn, struct rl_annotation *out, struct rl_pkt *d)
{
	static const uint8_t pl[64];
	static uint8_t f[256];
	struct rl_pkt p;
	size_t n;

	rl_pkt_init(&p, opcode);
	p.aeth.syndrome = syndrome;
	p.reth.dma_len = dma_len;
	put_ip4(p.ip4.src, src);
	put_ip4(p.ip4.dst, dst);
	p.bth.dqpn = qpn;
	p.bth.psn = psn & 0xffffff;
	if (p.op->flags & RL_OPF_PAYLOAD) {
		p.payload = pl;
		p.payload_len = sizeof(pl);
	}
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, f, sizeof(f), &n), RL_OK);
	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, n, d), RL_OK);
	rl_analyze(a, frame, frame * 1000, d, RL_OK, out);
}

/* The same between hosts 0.0.0.1 (A) and 0.0.0.2: from A if @from_a. */
static void feed_read(struct rl_analyzer *a, uint64_t frame, uint8_t opcode, uint8_t syndrome, uint32_t dma_len,
		      uint32_t qpn, uint32_t psn, bool from_a, struct rl_annotation *out, struct rl_pkt *d)
{
	feed_ip4(a, frame, opcode, syndrome, dma_len, from_a ? 1 : 2, from_a ? 2 : 1, qpn, psn, out, d);
}

static void feed_pkt(struct rl_analyzer *a, uint64_t frame, uint8_t opcode, uint8_t syndrome, uint32_t qpn,
		     uint32_t psn, bool from_a, struct rl_annotation *out, struct rl_pkt *d)
{
	feed_read(a, frame, opcode, syndrome, 0, qpn, psn, from_a, out, d);
}

static void feed(struct rl_analyzer *a, uint64_t frame, uint8_t opcode, uint32_t qpn, uint32_t psn, bool from_a,
		 struct rl_annotation *out)
{
	struct rl_pkt d;

	feed_pkt(a, frame, opcode, 0, qpn, psn, from_a, out, &d);
}

static void test_verdicts(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;

	feed(a, 1, RL_OP_RC_SEND_ONLY, 0x12, 100, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_FIRST);
	feed(a, 2, RL_OP_RC_SEND_ONLY, 0x12, 101, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_IN_ORDER);
	feed(a, 3, RL_OP_RC_SEND_ONLY, 0x12, 104, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_GAP);
	CU_ASSERT_EQUAL(o.gap, 2);
	CU_ASSERT_EQUAL(o.expected_psn, 102);
	feed(a, 4, RL_OP_RC_SEND_ONLY, 0x12, 102, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_OUT_OF_ORDER);
	feed(a, 5, RL_OP_RC_SEND_ONLY, 0x12, 101, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_DUPLICATE);
	CU_ASSERT_EQUAL(o.original_frame, 2);
	feed(a, 6, RL_OP_RC_ACKNOWLEDGE, 0x11, 104, false, &o);          /* ACK of 104 */
	CU_ASSERT_EQUAL(o.role, RL_ROLE_RESPONSE);
	CU_ASSERT_EQUAL(o.request_frame, 3);
	CU_ASSERT_TRUE(o.acks);
	CU_ASSERT_EQUAL(o.acked_first, 100);
	CU_ASSERT_EQUAL(o.acked_last, 104);
	CU_ASSERT_EQUAL(o.acked_first_frame, 1);
	rl_analyzer_free(a);
}

/*
 * Go-back-N with a second NAK while the first round is still being sent
 * (the lab 09 case): SENDs 200..205; NAK 201; the round resends 201..203,
 * then NAK 202 arrives; the first round goes on (204, 205) and the second
 * resends 202... Every one of them is a retransmission, none a network
 * copy; a packet sent twice in a row without any NAK in between still is.
 */
static void test_two_naks(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	static const uint32_t round[] = { 201, 202, 203, 0, 204, 205, 202, 203, 204, 205 };
	uint64_t frame = 1;

	struct rl_pkt d;

	for (uint32_t psn = 200; psn <= 205; psn++)
		feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x12, psn, true, &o);
	feed_pkt(a, frame++, RL_OP_RC_ACKNOWLEDGE, 0x60, 0x11, 201, false, &o, &d); /* NAK: PSN sequence error, 201 expected */
	CU_ASSERT_EQUAL(o.resend_from_psn, 201);
	for (size_t i = 0; i < sizeof(round) / sizeof(round[0]); i++) {
		if (!round[i]) {
			feed_pkt(a, frame++, RL_OP_RC_ACKNOWLEDGE, 0x60, 0x11, 202, false, &o, &d);
			CU_ASSERT_TRUE(o.nak);
			continue;
		}
		feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x12, round[i], true, &o);
		CU_ASSERT_EQUAL(o.verdict, RL_V_RETRANSMISSION);
	}
	feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x12, 205, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_DUPLICATE);
	rl_analyzer_free(a);
}

/*
 * The words come from the annotation and the packet alone, after the
 * analyzer is gone: a NAK (PSN sequence error, IBA 9.7.5.2.4) says where the
 * requester resumes, and a frame that is not RoCE gets no words at all.
 */
static void test_words(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation send, nak, other;
	struct rl_annotation_text t;
	struct rl_pkt ps, pn, pj;
	uint8_t junk[60] = { 0 };

	feed_pkt(a, 1, RL_OP_RC_SEND_ONLY, 0, 0x12, 7, true, &send, &ps);
	feed_pkt(a, 2, RL_OP_RC_SEND_ONLY, 0, 0x12, 9, true, &send, &ps);    /* PSN 8 lost */
	feed_pkt(a, 3, RL_OP_RC_ACKNOWLEDGE, 0x60, 0x11, 8, false, &nak, &pn); /* NAK code 0: PSN sequence error */
	rl_analyze(a, 4, 4000, &pj, rl_decode(RL_LINK_ETHERNET, junk, sizeof(junk), &pj), &other);
	rl_analyzer_free(a);

	CU_ASSERT_EQUAL(send.verdict, RL_V_GAP);
	CU_ASSERT_TRUE(nak.nak);
	CU_ASSERT_FALSE(nak.wr_fails);
	CU_ASSERT_EQUAL(nak.resend_from_psn, 8);
	rl_annotation_describe(&nak, &pn, &t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.summary, "PSN sequence error for PSN 8"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.nak_meaning, "resends from PSN 8"));
	CU_ASSERT_STRING_EQUAL(t.explanation, t.nak_meaning);

	rl_annotation_describe(&send, &ps, &t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.summary, "SEND"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.summary, "64 bytes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.explanation, "1 packet(s) before it are missing: PSN 8 was expected"));
	CU_ASSERT_STRING_EQUAL(t.nak_meaning, "");

	CU_ASSERT_EQUAL(other.role, RL_ROLE_OTHER);
	memset(&t, 'x', sizeof(t));
	rl_annotation_describe(&other, &pj, &t);
	CU_ASSERT_STRING_EQUAL(t.summary, "");
	CU_ASSERT_STRING_EQUAL(t.explanation, "");
}

/*
 * A READ of @len bytes at PSN 100 before the path MTU is known: at an MTU of
 * @mtu it takes one PSN per response packet (IBA 9.7.2), so the next request
 * comes at 100 + len/mtu, and is in order, not a copy of the READ.
 */
static void read_then_send(uint32_t len, uint32_t mtu)
{
	struct rl_analyzer *a = rl_analyzer_new();
	uint32_t npkts = (uint32_t)(((uint64_t)len + mtu - 1) / mtu);
	struct rl_annotation o;
	struct rl_pkt d;

	feed_read(a, 1, RL_OP_RC_RDMA_READ_REQUEST, 0, len, 0x12, 100, true, &o, &d);          /* RC RDMA READ Request */
	CU_ASSERT_EQUAL(o.verdict, RL_V_FIRST);
	feed_read(a, 2, RL_OP_RC_RDMA_READ_REQUEST, 0, 32, 0x12, 100 + npkts, true, &o, &d);   /* the next request */
	CU_ASSERT_EQUAL(o.verdict, RL_V_IN_ORDER);
	CU_ASSERT_EQUAL(o.original_frame, 0);
	feed(a, 3, RL_OP_RC_SEND_ONLY, 0x12, 101 + npkts, true, &o);                  /* and a SEND after it */
	CU_ASSERT_EQUAL(o.verdict, RL_V_IN_ORDER);
	CU_ASSERT_EQUAL(o.original_frame, 0);
	rl_analyzer_free(a);
}

static void test_after_read(void)
{
	read_then_send(1024, 4096);     /* one response packet */
	read_then_send(65536, 4096);    /* sixteen */
	read_then_send(65536, 1024);    /* sixty-four */
}

/*
 * issue 22 D14: a DMA length above 0xFFFFFC00 plus the MTU does not fit in
 * 32 bits; the request after such a READ is still in order, not a GAP.
 */
static void test_after_huge_read(void)
{
	read_then_send(0xFFFFFF01u, 4096);  /* 2^20 response packets */
	read_then_send(0xFFFFFFFFu, 1024); /* 2^22 */
}

/* A long capture keeps memory per flow; many QPs are bounded too. */
static void test_memory_bounded(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	uint64_t frame = 1;

	for (uint32_t i = 0; i < 100000; i++) {
		feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x12, i, true, &o);
		if (i % 16 == 15)
			feed(a, frame++, RL_OP_RC_ACKNOWLEDGE, 0x11, i, false, &o);
	}
	CU_ASSERT_EQUAL(rl_analyzer_flows(a), 1);
	CU_ASSERT_TRUE(rl_analyzer_outstanding(a) <= 512);
	CU_ASSERT_EQUAL(o.verdict, RL_V_NONE);
	for (uint32_t q = 0; q < rl_analyzer_max_flows() + 2000; q++)
		feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x100 + q, 5, true, &o);
	CU_ASSERT_EQUAL(rl_analyzer_flows(a), rl_analyzer_max_flows());
	rl_analyzer_free(a);
}

/*
 * Issue 21: flows are found by hash. Past 4096 the flow idle longest is
 * forgotten, counted, and starts again as a first packet; the flows still
 * followed keep their history through the evictions and table rebuilds.
 */
static void test_flow_limit(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	const uint32_t max = (uint32_t)rl_analyzer_max_flows(), n = max + 904;
	struct rl_annotation o;
	uint64_t frame = 1;

	CU_ASSERT_EQUAL(max, 16384);
	for (uint32_t q = 0; q < n; q++)
		feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x100 + q, 7, true, &o);
	CU_ASSERT_EQUAL(rl_analyzer_flows(a), max);
	CU_ASSERT_EQUAL(rl_analyzer_flows_forgotten(a), n - max);
	/* QP 0x100 was forgotten: its next request is a first one again; the newest QP goes on in order. */
	feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x100, 8, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_FIRST);
	CU_ASSERT_EQUAL(rl_analyzer_flows_forgotten(a), n - max + 1);
	feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x100 + n - 1, 8, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_IN_ORDER);
	/* Many more evictions (tombstones, rebuilds): the live flow keeps its place and its PSNs. */
	for (uint32_t q = 0; q < 3 * max; q++) {
		feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x100000 + q, 1, true, &o);
		if (q % 1000 == 0) {
			feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x100 + n - 1, 9 + q / 1000, true, &o);
			CU_ASSERT_EQUAL(o.verdict, RL_V_IN_ORDER);
		}
	}
	CU_ASSERT_EQUAL(rl_analyzer_flows(a), max);
	rl_analyzer_free(a);
}

/*
 * A flow's ring of requests grows as it sends, up to 512: a resend of the
 * 500th request before is still known, one of the 600th is not.
 */
static void test_flow_ring_grows(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	uint64_t frame = 1;

	for (uint32_t psn = 0; psn < 1000; psn++)
		feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x12, psn, true, &o);
	CU_ASSERT_EQUAL(rl_analyzer_outstanding(a), 512);
	feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x12, 1000 - 500, true, &o);
	CU_ASSERT(o.verdict == RL_V_RETRANSMISSION || o.verdict == RL_V_DUPLICATE);
	CU_ASSERT_EQUAL(o.original_frame, 1000 - 500 + 1);
	feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x12, 1000 - 600, true, &o);
	CU_ASSERT_EQUAL(o.original_frame, 0);
	rl_analyzer_free(a);
}

/*
 * Many QPs between the same two hosts, none of whose requester QPNs is known
 * yet: each ACK finds the request it answers (the flow whose PSN it names),
 * and the flow learns its requester from it.
 */
static void test_many_unlearned_flows(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	uint64_t frame = 1;

	for (uint32_t q = 0; q < 300; q++)
		feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x100 + q, 1000 * q, true, &o);
	for (uint32_t q = 0; q < 300; q++) {
		struct rl_pkt d;

		feed_pkt(a, frame++, RL_OP_RC_ACKNOWLEDGE, 0, 0x9000 + q, 1000 * q, false, &o, &d);
		CU_ASSERT_EQUAL(o.acked_last_frame, q + 1);
	}
	/* Learned: the next ACK of QP 0x9000 + 5 finds its flow by its QPN alone. */
	feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x100 + 5, 5001, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_IN_ORDER);
	feed(a, frame, RL_OP_RC_ACKNOWLEDGE, 0x9000 + 5, 5001, false, &o);
	CU_ASSERT_EQUAL(o.acked_last_frame, frame - 1);
	rl_analyzer_free(a);
}

/* ---- full 32-bit hash collisions ------------------------------------------------------------- */

/*
 * Keys whose hashes are equal in all 32 bits share a bucket in a table of any
 * size and pass the hash compare: only the whole key tells their flows apart.
 * A birthday search finds such keys through the analyzer's own hash
 * (analyze_hash.h): among 2^19 keys, n^2 / 2^33 = 32 colliding pairs are
 * expected, and none with a chance of e^-32.
 */
#define HC_KEYS (1u << 19)
#define HC_A 0x0a000001u        /* 10.0.0.1: the requester */
#define HC_B 0x0a000002u        /* 10.0.0.2: the responder */
#define HC_NET 0x0b000000u      /* 11.0.0.0/8: requesters found by the search of AN_BY_ADDRS keys */
#define HC_FILL 0x800000u       /* QPNs of the UC flows that fill the analyzer, above every searched one */

/* The hash in index @k of requester @req (IPv4), responder B and @v, the addresses keyed as the analyzer keys them. */
static uint32_t hc_hash(uint32_t req, enum an_index k, uint64_t v)
{
	uint8_t a[16] = { 0 }, b[16] = { 0 };

	put_ip4(a + 12, req);
	put_ip4(b + 12, HC_B);
	return an_hash(a, b, k, v);
}

/* The hash of the key numbered @i in one index: AN_BY_REQUEST (A -> B, QPN @i, RC) .. */
static uint32_t hc_request_hash(uint32_t i)
{
	return hc_hash(HC_A, AN_BY_REQUEST, an_request_key(i, RL_TR_RC));
}

/* .. AN_BY_REQUESTER (A's QPN @i, requests A -> B) .. */
static uint32_t hc_requester_hash(uint32_t i)
{
	return hc_hash(HC_A, AN_BY_REQUESTER, i);
}

/* .. AN_BY_ADDRS (requester HC_NET + @i, responder B). */
static uint32_t hc_addrs_hash(uint32_t i)
{
	return hc_hash(HC_NET + i, AN_BY_ADDRS, 0);
}

static int hc_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* Keys @i < @j below HC_KEYS whose hashes under @h are equal: the pair with the lowest hash. */
static void hc_find(uint32_t (*h)(uint32_t), uint32_t *i, uint32_t *j)
{
	uint64_t *v = malloc(HC_KEYS * sizeof(*v));
	bool found = false;

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	for (uint32_t k = 0; k < HC_KEYS; k++)
		v[k] = (uint64_t)h(k) << 32 | k;
	qsort(v, HC_KEYS, sizeof(*v), hc_cmp);
	for (uint32_t k = 1; k < HC_KEYS && !found; k++)
		if (v[k] >> 32 == v[k - 1] >> 32) {
			*i = (uint32_t)v[k - 1];
			*j = (uint32_t)v[k];
			found = true;
		}
	free(v);
	CU_ASSERT_TRUE_FATAL(found);
	CU_ASSERT_EQUAL_FATAL(h(*i), h(*j));
	CU_ASSERT_NOT_EQUAL_FATAL(*i, *j);
}

/* Packet number (*@frame)++, @opcode from @src to @dst (IPv4), to QP @qpn with @psn. */
static void hc_feed(struct rl_analyzer *a, uint64_t *frame, uint8_t opcode, uint32_t src, uint32_t dst, uint32_t qpn,
		    uint32_t psn, struct rl_annotation *out)
{
	struct rl_pkt d;

	feed_ip4(a, (*frame)++, opcode, 0, 0, src, dst, qpn, psn, out, &d);
}

/* An RC SEND Only from A to B's QP @qpn, PSN @psn: its verdict must be @want. */
static void hc_send(struct rl_analyzer *a, uint64_t *frame, uint32_t qpn, uint32_t psn, enum rl_verdict want)
{
	struct rl_annotation o;

	hc_feed(a, frame, RL_OP_RC_SEND_ONLY, HC_A, HC_B, qpn, psn, &o);
	CU_ASSERT_EQUAL(o.verdict, want);
}

/* An ACK from @resp to @req's QP @qpn, PSN @psn: it must answer frame @want. */
static void hc_ack(struct rl_analyzer *a, uint64_t *frame, uint32_t resp, uint32_t req, uint32_t qpn, uint32_t psn,
		   uint64_t want)
{
	struct rl_annotation o;

	hc_feed(a, frame, RL_OP_RC_ACKNOWLEDGE, resp, req, qpn, psn, &o);
	CU_ASSERT_EQUAL(o.role, RL_ROLE_RESPONSE);
	CU_ASSERT_EQUAL(o.request_frame, want);
}

/* @n new UC flows A -> B (in AN_BY_REQUEST only), QPNs from HC_FILL + @first: each sends one request. */
static void hc_fill(struct rl_analyzer *a, uint64_t *frame, uint32_t first, uint32_t n)
{
	struct rl_annotation o;

	for (uint32_t k = 0; k < n; k++)
		hc_feed(a, frame, RL_OP_UC_SEND_ONLY, HC_A, HC_B, HC_FILL + first + k, 1, &o);
}

/*
 * Two flows whose request keys hash alike: each keeps its own PSNs; the one
 * idle longest is forgotten while the other, behind its deleted slot, goes on;
 * it comes back in another flow's slot, still apart from its twin.
 */
static void test_hash_collision_requests(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	const uint32_t max = (uint32_t)rl_analyzer_max_flows();
	uint64_t frame = 1;
	uint32_t q1, q2;

	hc_find(hc_request_hash, &q1, &q2);
	hc_send(a, &frame, q1, 100, RL_V_FIRST);
	hc_send(a, &frame, q2, 5000, RL_V_FIRST);
	hc_send(a, &frame, q1, 101, RL_V_IN_ORDER);
	hc_send(a, &frame, q2, 5001, RL_V_IN_ORDER);
	CU_ASSERT_EQUAL(rl_analyzer_flows(a), 2);
	/* Full, then one more: q1, idle longest, is forgotten. */
	hc_fill(a, &frame, 0, max - 2);
	CU_ASSERT_EQUAL(rl_analyzer_flows_forgotten(a), 0);
	hc_fill(a, &frame, max, 1);
	CU_ASSERT_EQUAL(rl_analyzer_flows_forgotten(a), 1);
	hc_send(a, &frame, q2, 5002, RL_V_IN_ORDER);
	/* q1 again: a first request, in the slot of the filler idle longest. */
	hc_send(a, &frame, q1, 102, RL_V_FIRST);
	CU_ASSERT_EQUAL(rl_analyzer_flows_forgotten(a), 2);
	hc_send(a, &frame, q2, 5003, RL_V_IN_ORDER);
	hc_send(a, &frame, q1, 103, RL_V_IN_ORDER);
	/* The other way round: the fillers, then q2, are forgotten (max - 1 flows); q1 goes on. */
	hc_fill(a, &frame, max + 1, max - 1);
	CU_ASSERT_EQUAL(rl_analyzer_flows_forgotten(a), 2 + max - 1);
	hc_send(a, &frame, q1, 104, RL_V_IN_ORDER);
	hc_send(a, &frame, q2, 5004, RL_V_FIRST);
	hc_send(a, &frame, q1, 105, RL_V_IN_ORDER);
	hc_send(a, &frame, q2, 5005, RL_V_IN_ORDER);
	CU_ASSERT_EQUAL(rl_analyzer_flows(a), max);
	rl_analyzer_free(a);
}

/*
 * Two RC flows A -> B whose requesters' QPNs hash alike (AN_BY_REQUESTER):
 * each ACK finds its own flow, also after the other was forgotten and came
 * back, when its QPN must be learned again.
 */
static void test_hash_collision_requesters(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	const uint32_t max = (uint32_t)rl_analyzer_max_flows();
	uint64_t frame = 1;
	uint32_t r1, r2;

	hc_find(hc_requester_hash, &r1, &r2);
	hc_send(a, &frame, 0x11, 100, RL_V_FIRST);              /* frame 1 */
	hc_ack(a, &frame, HC_B, HC_A, r1, 100, 1);              /* learns r1 */
	hc_send(a, &frame, 0x22, 100, RL_V_FIRST);              /* frame 3 */
	hc_ack(a, &frame, HC_B, HC_A, r2, 100, 3);              /* learns r2 */
	hc_send(a, &frame, 0x11, 101, RL_V_IN_ORDER);           /* frame 5 */
	hc_send(a, &frame, 0x22, 101, RL_V_IN_ORDER);           /* frame 6 */
	hc_ack(a, &frame, HC_B, HC_A, r2, 101, 6);
	hc_ack(a, &frame, HC_B, HC_A, r1, 101, 5);
	/* The flow of r1, idle longest, is forgotten; r2's ACKs still find theirs. */
	hc_fill(a, &frame, 0, max - 1);
	CU_ASSERT_EQUAL(rl_analyzer_flows_forgotten(a), 1);
	hc_send(a, &frame, 0x22, 102, RL_V_IN_ORDER);
	hc_ack(a, &frame, HC_B, HC_A, r2, 102, frame - 1);
	/* It comes back: r1 is learned again, from the only flow that has not learned its requester. */
	hc_send(a, &frame, 0x11, 200, RL_V_FIRST);
	hc_ack(a, &frame, HC_B, HC_A, r1, 200, frame - 1);
	hc_send(a, &frame, 0x11, 201, RL_V_IN_ORDER);
	hc_send(a, &frame, 0x22, 103, RL_V_IN_ORDER);
	hc_ack(a, &frame, HC_B, HC_A, r1, 201, frame - 2);
	hc_ack(a, &frame, HC_B, HC_A, r2, 103, frame - 2);
	rl_analyzer_free(a);
}

/*
 * Two requesters whose address pairs with B hash alike (AN_BY_ADDRS), each
 * with an RC flow of the same QPN and PSNs that has not learned its
 * requester's QPN: an ACK to each finds its own, the older flow's too (a
 * lookup by hash alone would take the newer), also past a forgotten one.
 */
static void test_hash_collision_addrs(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	const uint32_t max = (uint32_t)rl_analyzer_max_flows();
	struct rl_annotation o;
	uint64_t frame = 1;
	uint32_t i, j, s1, s2;

	hc_find(hc_addrs_hash, &i, &j);
	s1 = HC_NET + i;
	s2 = HC_NET + j;
	hc_feed(a, &frame, RL_OP_RC_SEND_ONLY, s2, HC_B, 0x11, 100, &o);        /* frame 1 */
	hc_feed(a, &frame, RL_OP_RC_SEND_ONLY, s1, HC_B, 0x11, 100, &o);        /* frame 2 */
	hc_ack(a, &frame, HC_B, s2, 0x77, 100, 1);
	hc_ack(a, &frame, HC_B, s1, 0x77, 100, 2);
	/* Two more that do not learn yet; the older of them is forgotten with the first two. */
	hc_feed(a, &frame, RL_OP_RC_SEND_ONLY, s2, HC_B, 0x33, 300, &o);        /* frame 5 */
	hc_feed(a, &frame, RL_OP_RC_SEND_ONLY, s1, HC_B, 0x33, 300, &o);        /* frame 6 */
	hc_fill(a, &frame, 0, max - 4 + 3);                     /* full, then 3 forgotten */
	CU_ASSERT_EQUAL(rl_analyzer_flows_forgotten(a), 3);
	hc_ack(a, &frame, HC_B, s1, 0x88, 300, 6);
	hc_feed(a, &frame, RL_OP_RC_SEND_ONLY, s2, HC_B, 0x33, 400, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_FIRST);
	hc_ack(a, &frame, HC_B, s2, 0x99, 400, frame - 1);
	rl_analyzer_free(a);
}

/* ---- connection management ------------------------------------------------------------------ */

/*
 * A CM conversation typed by hand: host .1 (A) is the active side, host .2
 * (B) the passive one. Communication IDs, QPNs and PSNs are the test's own
 * (IBA 12.6: a message carries its sender's ID as "local", its receiver's as
 * "remote"; a REQ carries only its own).
 */
#define CM_COMM_A 0xa0a0a0a0u
#define CM_COMM_B 0xb0b0b0b0u
#define CM_TID 0x1234u
#define CM_QPN_A 0x11u
#define CM_QPN_B 0x22u
#define CM_PSN_A 1000u         /* the REQ's Starting PSN: what A expects, B sends first */
#define CM_PSN_B 5000u         /* the REP's: what B expects, A sends first */
#define MS 1000000ull

/* Wrap @cm in a UD SEND Only to QP1 with the GSI's Q_Key (IBA 13.5.1) and feed it at @t_ns. */
static void feed_cm(struct rl_analyzer *a, uint64_t frame, uint64_t t_ns, const struct rl_cm *cm, bool from_a,
		    struct rl_annotation *out)
{
	static uint8_t f[512];
	uint8_t mad[RL_MAD_LEN];
	struct rl_pkt p, d;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(rl_cm_encode(cm, mad, sizeof(mad), &n), RL_OK);
	rl_pkt_init(&p, RL_OP_UD_SEND_ONLY);
	p.ip4.src[3] = from_a ? 1 : 2;
	p.ip4.dst[3] = from_a ? 2 : 1;
	p.bth.dqpn = RL_GSI_QPN;
	p.deth.qkey = RL_GSI_QKEY;
	p.deth.src_qp = RL_GSI_QPN;
	p.payload = mad;
	p.payload_len = n;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, f, sizeof(f), &n), RL_OK);
	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, n, &d), RL_OK);
	CU_ASSERT_TRUE_FATAL(rl_cm_is_gsi(&d));
	rl_analyze(a, frame, t_ns, &d, RL_OK, out);
}

static void cm_req(struct rl_cm *cm, uint32_t comm, uint64_t tid)
{
	rl_cm_init(cm, RL_CM_REQ, tid);
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_COMM_ID, comm);
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_QPN, CM_QPN_A);
	rl_cm_set(cm, RL_CMF_REQ_STARTING_PSN, CM_PSN_A);
	rl_cm_set(cm, RL_CMF_REQ_TRANSPORT_SERVICE_TYPE, 0);     /* RC */
}

static void cm_rep(struct rl_cm *cm)
{
	rl_cm_init(cm, RL_CM_REP, CM_TID);
	rl_cm_set(cm, RL_CMF_REP_LOCAL_COMM_ID, CM_COMM_B);
	rl_cm_set(cm, RL_CMF_REP_REMOTE_COMM_ID, CM_COMM_A);
	rl_cm_set(cm, RL_CMF_REP_LOCAL_QPN, CM_QPN_B);
	rl_cm_set(cm, RL_CMF_REP_STARTING_PSN, CM_PSN_B);
}

/* Messages that carry just the two IDs (their offsets 0 and 4 in every such message). */
static void cm_ids(struct rl_cm *cm, uint16_t attr, uint64_t tid, uint32_t local, uint32_t remote)
{
	rl_cm_init(cm, attr, tid);
	rl_cm_set(cm, RL_CMF_RTU_LOCAL_COMM_ID, local);
	rl_cm_set(cm, RL_CMF_RTU_REMOTE_COMM_ID, remote);
}

/* A connection made: A's REQ as frame 1 at time 0, B's REP as frame 2, A's RTU as frame 3, @step_ns apart. */
static void cm_connected(struct rl_analyzer *a, uint64_t step_ns, struct rl_cm *cm, struct rl_annotation *o)
{
	cm_req(cm, CM_COMM_A, CM_TID);
	feed_cm(a, 1, 0, cm, true, o);
	cm_rep(cm);
	feed_cm(a, 2, step_ns, cm, false, o);
	cm_ids(cm, RL_CM_RTU, CM_TID, CM_COMM_A, CM_COMM_B);
	feed_cm(a, 3, 2 * step_ns, cm, true, o);
}

/* @o answers frame @frame, a message @attr sent @after_ns before it, and leaves the conversation in @state. */
static void expect_answer(const struct rl_annotation *o, uint64_t frame, uint16_t attr, uint64_t after_ns,
			  enum rl_cm_wire_state state)
{
	CU_ASSERT_EQUAL(o->cm.answers_frame, frame);
	CU_ASSERT_EQUAL(o->cm.answers_attr, attr);
	CU_ASSERT_EQUAL(o->cm.answer_time_ns, after_ns);
	CU_ASSERT_EQUAL(o->cm.state, state);
}

/* REQ -> MRA -> REP -> RTU: each answers the one before it on the other side; the state follows. */
static void test_cm_connect(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	struct rl_cm cm;

	cm_req(&cm, CM_COMM_A, CM_TID);
	feed_cm(a, 1, 10 * MS, &cm, true, &o);
	CU_ASSERT_TRUE(o.cm.is_cm);
	CU_ASSERT_EQUAL(o.cm.attr, RL_CM_REQ);
	CU_ASSERT_EQUAL(o.cm.answers_frame, 0);
	CU_ASSERT_EQUAL(o.cm.original_frame, 0);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_REQ_SENT);
	CU_ASSERT_EQUAL(o.role, RL_ROLE_REQUEST);               /* still a UD SEND to the analysis */

	cm_ids(&cm, RL_CM_MRA, CM_TID, CM_COMM_B, CM_COMM_A);
	rl_cm_set(&cm, RL_CMF_MRA_MESSAGE_MRAED, 0);             /* the REQ */
	feed_cm(a, 2, 12 * MS, &cm, false, &o);
	expect_answer(&o, 1, RL_CM_REQ, 2 * MS, RL_CMS_MRA_SENT);

	cm_rep(&cm);
	feed_cm(a, 3, 40 * MS, &cm, false, &o);
	expect_answer(&o, 1, RL_CM_REQ, 30 * MS, RL_CMS_REP_SENT);
	CU_ASSERT_EQUAL(o.cm.original_frame, 0);

	cm_ids(&cm, RL_CM_RTU, CM_TID, CM_COMM_A, CM_COMM_B);
	feed_cm(a, 4, 41 * MS, &cm, true, &o);
	expect_answer(&o, 3, RL_CM_REP, 1 * MS, RL_CMS_ESTABLISHED);

	/* An RTU with another passive ID belongs to no conversation seen: no link. */
	cm_ids(&cm, RL_CM_RTU, CM_TID, CM_COMM_A, CM_COMM_B + 1);
	feed_cm(a, 5, 42 * MS, &cm, true, &o);
	CU_ASSERT_TRUE(o.cm.is_cm);
	CU_ASSERT_EQUAL(o.cm.answers_frame, 0);
	CU_ASSERT_EQUAL(rl_analyzer_cm_conversations(a), 2);
	rl_analyzer_free(a);
}

/* A REQ sent again (same IDs, same TID: the MAD layer's retry) is marked; a REQ in a new transaction is not. */
static void test_cm_resent_req(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	struct rl_cm cm;

	cm_req(&cm, CM_COMM_A, CM_TID);
	feed_cm(a, 1, 0, &cm, true, &o);
	feed_cm(a, 2, 500 * MS, &cm, true, &o);
	CU_ASSERT_EQUAL(o.cm.original_frame, 1);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_REQ_SENT);
	feed_cm(a, 3, 1000 * MS, &cm, true, &o);
	CU_ASSERT_EQUAL(o.cm.original_frame, 2);               /* the previous copy, as for data */
	cm_rep(&cm);
	feed_cm(a, 4, 1001 * MS, &cm, false, &o);
	CU_ASSERT_EQUAL(o.cm.answers_frame, 3);                /* the copy that got through */
	CU_ASSERT_EQUAL(o.cm.answer_time_ns, 1 * MS);
	CU_ASSERT_EQUAL(o.cm.original_frame, 0);
	feed_cm(a, 5, 1500 * MS, &cm, false, &o);              /* the REP again */
	CU_ASSERT_EQUAL(o.cm.original_frame, 4);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_REP_SENT);

	cm_req(&cm, CM_COMM_A, CM_TID + 1);                    /* the ID again, a new transaction */
	feed_cm(a, 6, 9000 * MS, &cm, true, &o);
	CU_ASSERT_EQUAL(o.cm.original_frame, 0);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_REQ_SENT);
	rl_analyzer_free(a);
}

/* DREQ starts an exchange, DREP answers it; either may be resent. */
static void test_cm_disconnect(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	struct rl_cm cm;

	cm_connected(a, MS, &cm, &o);

	/* The passive side disconnects: its DREQ carries its own ID as local. */
	cm_ids(&cm, RL_CM_DREQ, CM_TID + 7, CM_COMM_B, CM_COMM_A);
	rl_cm_set(&cm, RL_CMF_DREQ_REMOTE_QPN, CM_QPN_A);
	feed_cm(a, 10, 100 * MS, &cm, false, &o);
	CU_ASSERT_EQUAL(o.cm.answers_frame, 0);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_DREQ_SENT);
	feed_cm(a, 11, 200 * MS, &cm, false, &o);
	CU_ASSERT_EQUAL(o.cm.original_frame, 10);
	cm_ids(&cm, RL_CM_DREP, CM_TID + 7, CM_COMM_A, CM_COMM_B);
	feed_cm(a, 12, 205 * MS, &cm, true, &o);
	expect_answer(&o, 11, RL_CM_DREQ, 5 * MS, RL_CMS_TIMEWAIT);
	CU_ASSERT_EQUAL(rl_analyzer_cm_conversations(a), 1);
	rl_analyzer_free(a);
}

/* A REJ names the message it refuses; one sent before the passive side had an ID carries 0 as its own. */
static void test_cm_reject(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	struct rl_cm cm;

	cm_req(&cm, CM_COMM_A, CM_TID);
	feed_cm(a, 1, 0, &cm, true, &o);
	cm_req(&cm, CM_COMM_A + 1, CM_TID + 1);                /* another connection, its own REQ */
	feed_cm(a, 2, 1 * MS, &cm, true, &o);
	cm_ids(&cm, RL_CM_REJ, CM_TID + 1, 0, CM_COMM_A + 1);
	rl_cm_set(&cm, RL_CMF_REJ_MESSAGE_REJECTED, 0);          /* the REQ */
	rl_cm_set(&cm, RL_CMF_REJ_REASON, 8);                    /* invalid service ID */
	feed_cm(a, 3, 3 * MS, &cm, false, &o);
	expect_answer(&o, 2, RL_CM_REQ, 2 * MS, RL_CMS_REJECTED);
	cm_rep(&cm);                                             /* the first connection goes on */
	feed_cm(a, 4, 4 * MS, &cm, false, &o);
	CU_ASSERT_EQUAL(o.cm.answers_frame, 1);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_REP_SENT);
	rl_analyzer_free(a);
}

/* SIDR_REP answers its SIDR_REQ by request ID; APR answers LAP. */
static void test_cm_sidr_lap(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	struct rl_cm cm;

	rl_cm_init(&cm, RL_CM_SIDR_REQ, 77);
	rl_cm_set(&cm, RL_CMF_SIDR_REQ_REQUEST_ID, 0xc0ffee);
	feed_cm(a, 1, 0, &cm, true, &o);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_SIDR_REQ_SENT);
	rl_cm_init(&cm, RL_CM_SIDR_REP, 77);
	rl_cm_set(&cm, RL_CMF_SIDR_REP_REQUEST_ID, 0xc0ffee);
	feed_cm(a, 2, 3 * MS, &cm, false, &o);
	CU_ASSERT_EQUAL(o.cm.answers_frame, 1);
	CU_ASSERT_EQUAL(o.cm.answers_attr, RL_CM_SIDR_REQ);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_SIDR_ANSWERED);

	cm_ids(&cm, RL_CM_LAP, 78, CM_COMM_A, CM_COMM_B);
	feed_cm(a, 3, 4 * MS, &cm, true, &o);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_LAP_SENT);
	cm_ids(&cm, RL_CM_APR, 78, CM_COMM_B, CM_COMM_A);
	feed_cm(a, 4, 6 * MS, &cm, false, &o);
	CU_ASSERT_EQUAL(o.cm.answers_frame, 3);
	CU_ASSERT_EQUAL(o.cm.answers_attr, RL_CM_LAP);
	CU_ASSERT_EQUAL(o.cm.state, RL_CMS_ESTABLISHED);
	rl_analyzer_free(a);
}

/*
 * The first data PSNs: B's requests to A's QP start at the REQ's PSN, A's to
 * B's QP at the REP's (IBA 12.7 Starting PSN, as the real rping shows).
 * One that starts elsewhere is flagged; later packets say nothing.
 */
static void test_cm_first_psn(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	struct rl_cm cm;

	cm_connected(a, 1, &cm, &o);
	CU_ASSERT_EQUAL(o.cm.psn_frame, 0);

	feed(a, 4, RL_OP_RC_SEND_ONLY, CM_QPN_A, CM_PSN_A, false, &o);      /* B -> A's QP */
	CU_ASSERT_EQUAL(o.verdict, RL_V_FIRST);
	CU_ASSERT_FALSE(o.cm.is_cm);
	CU_ASSERT_EQUAL(o.cm.psn_frame, 1);
	CU_ASSERT_EQUAL(o.cm.psn_attr, RL_CM_REQ);
	CU_ASSERT_EQUAL(o.cm.announced_psn, CM_PSN_A);
	CU_ASSERT_FALSE(o.cm.psn_mismatch);
	feed(a, 5, RL_OP_RC_SEND_ONLY, CM_QPN_A, CM_PSN_A + 1, false, &o);
	CU_ASSERT_EQUAL(o.cm.psn_frame, 0);
	CU_ASSERT_EQUAL(o.verdict, RL_V_IN_ORDER);

	feed(a, 6, RL_OP_RC_SEND_ONLY, CM_QPN_B, CM_PSN_B + 3, true, &o);  /* A -> B's QP, not where the REP said */
	CU_ASSERT_EQUAL(o.cm.psn_frame, 2);
	CU_ASSERT_EQUAL(o.cm.psn_attr, RL_CM_REP);
	CU_ASSERT_EQUAL(o.cm.announced_psn, CM_PSN_B);
	CU_ASSERT_TRUE(o.cm.psn_mismatch);

	/* B's ACK to A's QP finds the flow the REQ announced (the REP named B's QP as its requester). */
	feed(a, 7, RL_OP_RC_ACKNOWLEDGE, CM_QPN_B, CM_PSN_A + 1, true, &o);
	CU_ASSERT_EQUAL(o.request_frame, 5);

	/* A data packet to a QP no CM exchange announced: nothing to say. */
	feed(a, 8, RL_OP_RC_SEND_ONLY, 0x99, 7, true, &o);
	CU_ASSERT_EQUAL(o.cm.psn_frame, 0);
	rl_analyzer_free(a);
}

/* Hostile input: a flood of REQs with new IDs keeps a bounded table, and the newest still link. */
static void test_cm_memory_bounded(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	struct rl_cm cm;
	uint64_t frame = 1;

	for (uint32_t i = 0; i < 5000; i++) {
		cm_req(&cm, i + 1, i);
		rl_cm_set(&cm, RL_CMF_REQ_LOCAL_QPN, 0x100 + i);
		feed_cm(a, frame, frame * MS, &cm, true, &o);
		frame++;
	}
	CU_ASSERT_TRUE(rl_analyzer_cm_conversations(a) <= 1024);
	CU_ASSERT_TRUE(rl_analyzer_flows(a) <= rl_analyzer_max_flows());
	rl_cm_init(&cm, RL_CM_REP, 4999);
	rl_cm_set(&cm, RL_CMF_REP_LOCAL_COMM_ID, 1);
	rl_cm_set(&cm, RL_CMF_REP_REMOTE_COMM_ID, 5000);
	feed_cm(a, frame, frame * MS, &cm, false, &o);
	CU_ASSERT_EQUAL(o.cm.answers_frame, 5000);
	CU_ASSERT_TRUE(rl_analyzer_cm_conversations(a) <= 1024);
	rl_analyzer_free(a);
}

/* ---- CNPs and the shadow DCQCN reaction point ------------------------------------------------ */

/*
 * Packet @frame at @t_ns between hosts 0.0.0.1 (A, the requester) and
 * 0.0.0.2: from A if @from_a, CE-marked if @ce (ECN 11, RFC 3168).
 */
static void feed_cc(struct rl_analyzer *a, uint64_t frame, uint64_t t_ns, uint8_t opcode, uint32_t qpn, uint32_t psn,
		    bool from_a, bool ce, struct rl_annotation *out)
{
	static const uint8_t pl[64];
	uint8_t f[256];
	struct rl_pkt p, d;
	size_t n;

	rl_pkt_init(&p, opcode);
	put_ip4(p.ip4.src, from_a ? 1 : 2);
	put_ip4(p.ip4.dst, from_a ? 2 : 1);
	p.ip4.ecn = ce ? 3 : 2;
	p.bth.dqpn = qpn;
	p.bth.psn = psn;
	p.bth.becn = opcode == RL_OP_CNP;
	if (p.op->flags & RL_OPF_PAYLOAD) {
		p.payload = pl;
		p.payload_len = sizeof(pl);
	}
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, f, sizeof(f), &n), RL_OK);
	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, n, &d), RL_OK);
	rl_analyze(a, frame, t_ns, &d, RL_OK, out);
}

#define US 1000ull
#define PPM 1e6
/*
 * Millionths agree within 5: the RP truncates alpha to 2^-20 (under 1 ppm) at
 * each of its at most 4 steps here, and the analyzer truncates to a millionth.
 */
#define PPM_CLOSE(got, want) CU_ASSERT(((double)(got) - (want)) * ((double)(got) - (want)) <= 25.0)

/*
 * DCQCN, Zhu et al. 2015, section 3.1, with the paper's parameters (g = 1/256,
 * K = T = 55 us, F = 5): a CNP makes Rt = Rc, Rc = Rc(1 - alpha/2) and
 * alpha = (1 - g)alpha + g; each K without one, alpha = (1 - g)alpha; each T,
 * in fast recovery, Rc = (Rt + Rc)/2. Computed here in doubles, against
 * what the analyzer's shadow RP says of two CNPs to QP 0x11.
 */
static void test_cnp_shadow_dcqcn(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	struct rl_annotation_text t;
	struct rl_qp_congestion q;
	struct rl_pkt d;
	const double g = 1.0 / 256;
	double alpha = 1, rc = 1, rt = 1, alpha_cut;
	size_t pos = 0;

	CU_ASSERT_EQUAL_FATAL(rl_analyzer_line_rate(a), RL_ANALYZER_NOMINAL_LINE_BPS);
	/* Two SENDs of 64 bytes to QP 0x12, the second CE-marked, and an ACK back to QP 0x11. */
	feed_cc(a, 1, 0, RL_OP_RC_SEND_ONLY, 0x12, 100, true, false, &o);
	feed_cc(a, 2, 1 * US, RL_OP_RC_SEND_ONLY, 0x12, 101, true, true, &o);
	CU_ASSERT_TRUE(o.ecn_ce);
	feed_cc(a, 3, 2 * US, RL_OP_RC_ACKNOWLEDGE, 0x11, 101, false, false, &o);

	/* CNP 1 at 10 us: alpha 1 cuts Rc in half; 128 bytes over 10 us measured before it. */
	feed_cc(a, 4, 10 * US, RL_OP_CNP, 0x11, 0, false, false, &o);
	CU_ASSERT_EQUAL(o.role, RL_ROLE_CNP);
	CU_ASSERT_TRUE_FATAL(o.cc.known);
	CU_ASSERT_EQUAL(o.cc.qpn, 0x11);
	CU_ASSERT_EQUAL(o.cc.count, 1);
	CU_ASSERT_TRUE(o.cc.cut);
	CU_ASSERT_EQUAL(o.cc.ce_seen, 1);
	alpha_cut = alpha;
	rt = rc;
	rc = rc * (1 - alpha / 2);
	alpha = (1 - g) * alpha + g;
	PPM_CLOSE(o.cc.alpha_ppm, alpha_cut * PPM);
	PPM_CLOSE(o.cc.rc_before_ppm, 1 * PPM);
	PPM_CLOSE(o.cc.rc_ppm, rc * PPM);
	PPM_CLOSE(o.cc.rt_ppm, rt * PPM);
	PPM_CLOSE(o.cc.alpha_after_ppm, alpha * PPM);
	CU_ASSERT_EQUAL(o.cc.window_ns, 10 * US);
	CU_ASSERT_EQUAL(o.cc.rate_bps, 128 * 8 * 100000ull);   /* 128 bytes in 10 us */
	CU_ASSERT_EQUAL(o.cc.prev_rate_bps, 0);
	rl_annotation_describe(&o, &d, &t);

	/* Three SENDs, then CNP 2 at 176 us: K and T expired three times each (at 65, 120, 175 us). */
	feed_cc(a, 5, 20 * US, RL_OP_RC_SEND_ONLY, 0x12, 102, true, false, &o);
	feed_cc(a, 6, 30 * US, RL_OP_RC_SEND_ONLY, 0x12, 103, true, false, &o);
	feed_cc(a, 7, 40 * US, RL_OP_RC_SEND_ONLY, 0x12, 104, true, false, &o);
	feed_cc(a, 8, 176 * US, RL_OP_CNP, 0x11, 0, false, false, &o);
	for (int k = 0; k < 3; k++) {
		alpha = (1 - g) * alpha;
		rc = (rt + rc) / 2;
	}
	CU_ASSERT_TRUE_FATAL(o.cc.known);
	CU_ASSERT_EQUAL(o.cc.count, 2);
	CU_ASSERT_TRUE(o.cc.cut);
	PPM_CLOSE(o.cc.alpha_ppm, alpha * PPM);
	PPM_CLOSE(o.cc.rc_before_ppm, rc * PPM);
	alpha_cut = alpha;
	rt = rc;
	rc = rc * (1 - alpha / 2);
	alpha = (1 - g) * alpha + g;
	PPM_CLOSE(o.cc.rc_ppm, rc * PPM);
	PPM_CLOSE(o.cc.rt_ppm, rt * PPM);
	PPM_CLOSE(o.cc.alpha_after_ppm, alpha * PPM);
	CU_ASSERT_TRUE(alpha_cut < 1);
	CU_ASSERT_EQUAL(o.cc.window_ns, 166 * US);
	CU_ASSERT_EQUAL(o.cc.rate_bps, 192 * 8 * 1000000000ull / (166 * US));
	CU_ASSERT_EQUAL(o.cc.prev_rate_bps, 128 * 8 * 100000ull);

	/* The words: the Nth CNP, its cut, and the QP slowed (9.3 Mb/s after 102.4 Mb/s). */
	rl_annotation_describe(&o, &d, &t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.summary, "CNP 2 to QP 0x000011: DCQCN cuts Rc by alpha/2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.explanation, "Since CNP 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.explanation, "it slowed down"));
	CU_ASSERT_PTR_NULL(strstr(t.summary, "Gb/s"));

	/* The summary's view of the QP. */
	CU_ASSERT_TRUE_FATAL(rl_analyzer_next_qp_congestion(a, &pos, &q));
	CU_ASSERT_EQUAL(q.qpn, 0x11);
	CU_ASSERT_EQUAL(q.resp_qpn, 0x12);
	/* The requester is host A (0.0.0.1), the responder B (0.0.0.2): IPv4 after 12 zero bytes. */
	CU_ASSERT_EQUAL(q.req_ip[15], 1);
	CU_ASSERT_EQUAL(q.resp_ip[15], 2);
	CU_ASSERT_EQUAL(q.req_ip[0] | q.req_ip[11] | q.resp_ip[0] | q.resp_ip[11], 0);
	CU_ASSERT_EQUAL(q.cnps, 2);
	CU_ASSERT_EQUAL(q.ce_seen, 1);
	CU_ASSERT_TRUE(q.rate_known);
	PPM_CLOSE(q.rc_ppm, rc * PPM);
	CU_ASSERT_FALSE(rl_analyzer_next_qp_congestion(a, &pos, &q));

	/* A CNP to a QP whose requests were not told apart: counted and cut (alpha 1), not measured. */
	feed_cc(a, 9, 200 * US, RL_OP_CNP, 0x99, 0, true, false, &o);
	CU_ASSERT_EQUAL(o.role, RL_ROLE_CNP);
	CU_ASSERT_TRUE(o.cc.known);
	CU_ASSERT_EQUAL(o.cc.count, 1);
	PPM_CLOSE(o.cc.rc_ppm, 0.5 * PPM);
	CU_ASSERT_EQUAL(o.cc.window_ns, 0);
	rl_annotation_describe(&o, &d, &t);
	CU_ASSERT_PTR_NULL(strstr(t.explanation, "Its requests' payload ran"));
	pos = 0;
	CU_ASSERT_TRUE(rl_analyzer_next_qp_congestion(a, &pos, &q));
	CU_ASSERT_TRUE_FATAL(rl_analyzer_next_qp_congestion(a, &pos, &q));
	CU_ASSERT_EQUAL(q.qpn, 0x99);
	/* That CNP went from A to B: B is the requester it names. */
	CU_ASSERT_EQUAL(q.req_ip[15], 2);
	CU_ASSERT_EQUAL(q.resp_ip[15], 1);
	CU_ASSERT_FALSE(q.resp_qpn_known);
	CU_ASSERT_EQUAL(q.cnps, 1);
	rl_analyzer_free(a);
}

/*
 * Two QPs between the same two hosts, the CNP before any ACK: which flow it
 * is for is not known then (requests do not carry the requester's QPN), so
 * it waits apart; the ACK that names the flow's requester QPN adopts it, and
 * the next CNP to that QP is its second.
 */
static void test_cnp_before_the_flow_is_known(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;

	feed_cc(a, 1, 0, RL_OP_RC_SEND_ONLY, 0x12, 100, true, true, &o);
	feed_cc(a, 2, 1 * US, RL_OP_RC_SEND_ONLY, 0x22, 500, true, true, &o);
	feed_cc(a, 3, 2 * US, RL_OP_CNP, 0x21, 0, false, false, &o);
	CU_ASSERT_EQUAL(o.cc.count, 1);
	CU_ASSERT_EQUAL(o.cc.window_ns, 0);
	feed_cc(a, 4, 3 * US, RL_OP_RC_ACKNOWLEDGE, 0x21, 500, false, false, &o);
	CU_ASSERT_EQUAL(o.request_frame, 2);
	feed_cc(a, 5, 4 * US, RL_OP_RC_SEND_ONLY, 0x22, 501, true, false, &o);
	feed_cc(a, 6, 6 * US, RL_OP_CNP, 0x21, 0, false, false, &o);
	CU_ASSERT_EQUAL(o.cc.count, 2);
	CU_ASSERT_EQUAL(o.cc.ce_seen, 1);
	CU_ASSERT_EQUAL(o.cc.window_ns, 2 * US);      /* from its first request after the adoption */
	CU_ASSERT_EQUAL(o.cc.rate_bps, 64 * 8 * 500000ull);
	rl_analyzer_free(a);
}

/* A QP whose rate does not fall after a CNP that cut: "did not slow down"; --line-rate gives Gb/s. */
static void test_cnp_did_not_slow(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	struct rl_annotation_text t;
	struct rl_pkt d;
	uint32_t psn = 0;
	uint64_t frame = 1;

	rl_analyzer_set_line_rate(a, 10000000000ull);
	/* One SEND of 64 bytes every microsecond, CNPs at 10 and 20 us: the same rate before and after. */
	for (uint64_t us = 0; us < 20; us++) {
		feed_cc(a, frame++, us * US, RL_OP_RC_SEND_ONLY, 0x12, psn++, true, true, &o);
		if (us == 9)
			feed_cc(a, frame++, 10 * US, RL_OP_CNP, 0x11, 0, false, false, &o);
	}
	feed_cc(a, frame++, 20 * US, RL_OP_CNP, 0x11, 0, false, false, &o);
	CU_ASSERT_TRUE_FATAL(o.cc.known);
	CU_ASSERT_EQUAL(o.cc.count, 2);
	CU_ASSERT_EQUAL(o.cc.rate_bps, o.cc.prev_rate_bps);
	CU_ASSERT_EQUAL(o.cc.line_bps, 10000000000ull);
	rl_annotation_describe(&o, &d, &t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.explanation, "it did not slow down"));
	/* alpha 1 then 1: Rc 1 -> 1/2 -> 1/4 of 10 Gb/s. */
	CU_ASSERT_PTR_NOT_NULL(strstr(t.summary, "25.0% of the line rate, 2.50 Gb/s"));
	rl_analyzer_free(a);
}

int tl_suite_analyze(void)
{
	CU_pSuite s = CU_add_suite("analyze", NULL, NULL);

	return !s || !CU_add_test(s, "verdicts and ACK links on a crafted stream", test_verdicts) ||
	       !CU_add_test(s, "go-back-N: a second NAK during a round, all retransmissions", test_two_naks) ||
	       !CU_add_test(s, "memory follows live QPs, not the capture", test_memory_bounded) ||
	       !CU_add_test(s, "flows past the limit: forgotten, counted, the rest intact", test_flow_limit) ||
	       !CU_add_test(s, "a flow's ring of requests grows to 512", test_flow_ring_grows) ||
	       !CU_add_test(s, "many QPs between two hosts: each ACK finds its request", test_many_unlearned_flows) ||
	       !CU_add_test(s, "request keys with equal 32-bit hashes: apart, forgotten, back", test_hash_collision_requests) ||
	       !CU_add_test(s, "requester QPNs with equal 32-bit hashes: each ACK its flow", test_hash_collision_requesters) ||
	       !CU_add_test(s, "address pairs with equal 32-bit hashes: each ACK its flow", test_hash_collision_addrs) ||
	       !CU_add_test(s, "words made from an annotation, after the analyzer is gone", test_words) ||
	       !CU_add_test(s, "the requests after a READ of unknown span are in order", test_after_read) ||
	       !CU_add_test(s, "a READ of up to 2^32 - 1 bytes: no u32 overflow, no false GAP", test_after_huge_read) ||
	       !CU_add_test(s, "CM: REQ, MRA, REP, RTU link to what they answer", test_cm_connect) ||
	       !CU_add_test(s, "CM: a resent REQ and REP point to their previous copy", test_cm_resent_req) ||
	       !CU_add_test(s, "CM: DREQ and DREP, a resent DREQ", test_cm_disconnect) ||
	       !CU_add_test(s, "CM: a REJ links to the REQ it refuses", test_cm_reject) ||
	       !CU_add_test(s, "CM: SIDR_REP to SIDR_REQ, APR to LAP", test_cm_sidr_lap) ||
	       !CU_add_test(s, "CM: the first data PSN against the one REQ and REP announced", test_cm_first_psn) ||
	       !CU_add_test(s, "CM: a flood of REQs keeps the table bounded", test_cm_memory_bounded) ||
	       !CU_add_test(s, "CNPs: the shadow DCQCN RP against the paper's equations", test_cnp_shadow_dcqcn) ||
	       !CU_add_test(s, "CNPs: a QP that keeps its rate did not slow down", test_cnp_did_not_slow) ||
	       !CU_add_test(s, "CNPs: one before its flow is known waits, then counts", test_cnp_before_the_flow_is_known);
}
