/* SPDX-License-Identifier: MIT */
/* The analyzer on crafted streams: verdicts, and memory that does not grow with the capture. */
#include <string.h>

#include "testlib.h"

static void feed(struct rl_analyzer *a, uint64_t frame, uint8_t opcode, uint32_t qpn, uint32_t psn, bool from_a,
		 struct rl_annotation *out)
{
	static const uint8_t pl[64];
	struct rl_pkt p, d;
	uint8_t f[256];
	size_t n;

	rl_pkt_init(&p, opcode);
	p.ip4.src[3] = from_a ? 1 : 2;
	p.ip4.dst[3] = from_a ? 2 : 1;
	p.bth.dqpn = qpn;
	p.bth.psn = psn & 0xffffff;
	if (p.op->flags & RL_OPF_PAYLOAD) {
		p.payload = pl;
		p.payload_len = sizeof(pl);
	}
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, f, sizeof(f), &n), RL_OK);
	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, n, &d), RL_OK);
	rl_analyze(a, frame, frame * 1000, &d, RL_OK, out);
}

static void test_verdicts(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;

	feed(a, 1, 0x04, 0x12, 100, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_FIRST);
	feed(a, 2, 0x04, 0x12, 101, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_IN_ORDER);
	feed(a, 3, 0x04, 0x12, 104, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_GAP);
	CU_ASSERT_EQUAL(o.gap, 2);
	CU_ASSERT_EQUAL(o.expected_psn, 102);
	feed(a, 4, 0x04, 0x12, 102, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_OUT_OF_ORDER);
	feed(a, 5, 0x04, 0x12, 101, true, &o);
	CU_ASSERT_EQUAL(o.verdict, RL_V_DUPLICATE);
	CU_ASSERT_EQUAL(o.original_frame, 2);
	feed(a, 6, 0x11, 0x11, 104, false, &o);          /* ACK of 104 */
	CU_ASSERT_EQUAL(o.role, RL_ROLE_RESPONSE);
	CU_ASSERT_EQUAL(o.request_frame, 3);
	CU_ASSERT_TRUE(o.acks);
	CU_ASSERT_EQUAL(o.acked_first, 100);
	CU_ASSERT_EQUAL(o.acked_last, 104);
	CU_ASSERT_EQUAL(o.acked_first_frame, 1);
	rl_analyzer_free(a);
}

/* A long capture keeps memory per flow; many QPs are bounded too. */
static void test_memory_bounded(void)
{
	struct rl_analyzer *a = rl_analyzer_new();
	struct rl_annotation o;
	uint64_t frame = 1;

	for (uint32_t i = 0; i < 100000; i++) {
		feed(a, frame++, 0x04, 0x12, i, true, &o);
		if (i % 16 == 15)
			feed(a, frame++, 0x11, 0x11, i, false, &o);
	}
	CU_ASSERT_EQUAL(rl_analyzer_flows(a), 1);
	CU_ASSERT_TRUE(rl_analyzer_outstanding(a) <= 512);
	CU_ASSERT_EQUAL(o.verdict, RL_V_NONE);
	for (uint32_t q = 0; q < 6000; q++)
		feed(a, frame++, 0x04, 0x100 + q, 5, true, &o);
	CU_ASSERT_TRUE(rl_analyzer_flows(a) <= 4096);
	rl_analyzer_free(a);
}

int tl_suite_analyze(void)
{
	CU_pSuite s = CU_add_suite("analyze", NULL, NULL);

	return !s || !CU_add_test(s, "verdicts and ACK links on a crafted stream", test_verdicts) ||
	       !CU_add_test(s, "memory follows live QPs, not the capture", test_memory_bounded);
}
