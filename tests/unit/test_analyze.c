/* SPDX-License-Identifier: MIT */
/* The analyzer on crafted streams: verdicts, and memory that does not grow with the capture. */
#include <string.h>

#include "testlib.h"

/*
 * @syndrome for an ACK opcode, @dma_len for a READ request; the decoded packet
 * in @d (its payload points into a static frame).
 */
static void feed_read(struct rl_analyzer *a, uint64_t frame, uint8_t opcode, uint8_t syndrome, uint32_t dma_len,
		      uint32_t qpn, uint32_t psn, bool from_a, struct rl_annotation *out, struct rl_pkt *d)
{
	static const uint8_t pl[64];
	static uint8_t f[256];
	struct rl_pkt p;
	size_t n;

	rl_pkt_init(&p, opcode);
	p.aeth.syndrome = syndrome;
	p.reth.dma_len = dma_len;
	p.ip4.src[3] = from_a ? 1 : 2;
	p.ip4.dst[3] = from_a ? 2 : 1;
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
 * (the lab 07 case): SENDs 200..205; NAK 201; the round resends 201..203,
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
	uint32_t npkts = (len + mtu - 1) / mtu;
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
	for (uint32_t q = 0; q < 6000; q++)
		feed(a, frame++, RL_OP_RC_SEND_ONLY, 0x100 + q, 5, true, &o);
	CU_ASSERT_TRUE(rl_analyzer_flows(a) <= 4096);
	rl_analyzer_free(a);
}

int tl_suite_analyze(void)
{
	CU_pSuite s = CU_add_suite("analyze", NULL, NULL);

	return !s || !CU_add_test(s, "verdicts and ACK links on a crafted stream", test_verdicts) ||
	       !CU_add_test(s, "go-back-N: a second NAK during a round, all retransmissions", test_two_naks) ||
	       !CU_add_test(s, "memory follows live QPs, not the capture", test_memory_bounded) ||
	       !CU_add_test(s, "words made from an annotation, after the analyzer is gone", test_words) ||
	       !CU_add_test(s, "the requests after a READ of unknown span are in order", test_after_read);
}
