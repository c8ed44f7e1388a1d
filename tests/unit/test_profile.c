/* SPDX-License-Identifier: MIT */
/*
 * The capture profile (core/profile.c): counts and times fed by hand, so that
 * every expected number below comes from the packets given, not from a run.
 */
#include <string.h>

#include "testlib.h"

/* RC opcodes, IBA 9.2 Table 35. */
enum { SEND_FIRST = RL_OP_RC_SEND_FIRST, SEND_LAST = RL_OP_RC_SEND_LAST, SEND_ONLY = RL_OP_RC_SEND_ONLY,
       ACKNOWLEDGE = RL_OP_RC_ACKNOWLEDGE };

/* A decoded RoCEv2 packet from 10.0.0.@host with IPv4 Identification @id. */
static void pf_pkt(struct rl_pkt *p, uint8_t host, uint16_t id, uint8_t opcode, uint32_t psn)
{
	memset(p, 0, sizeof(*p));
	p->roce = RL_ROCE_V2;
	p->l3 = RL_L3_IPV4;
	p->ip4.src[0] = 10;
	p->ip4.src[3] = host;
	p->ip4.id = id;
	p->ip4.df = true;
	p->ip4.ttl = 64;
	p->udp.sport = 0xc000 + host;
	p->udp.dport = 4791;
	p->bth.opcode = opcode;
	p->bth.psn = psn;
	p->bth.dqpn = 0x11;
	p->op = rl_opcode_info(opcode);
	p->icrc_ok = true;
}

static void test_ip_identification(void)
{
	static struct rl_profile pr;
	struct rl_annotation a = { 0 };
	struct rl_pkt p;
	/* host 1 counts 100, 101, 102 then jumps to 500; host 2 counts 7, 8; host 3 sends 0 */
	const struct { uint8_t host; uint16_t id; } seq[] = {
		{ 1, 100 }, { 2, 7 }, { 1, 101 }, { 2, 8 }, { 1, 102 }, { 1, 500 }, { 3, 0 }, { 3, 0 },
	};

	rl_profile_init(&pr);
	for (unsigned i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		pf_pkt(&p, seq[i].host, seq[i].id, SEND_ONLY, i);
		rl_profile_add(&pr, i + 1, i * 1000, &p, RL_OK, &a);
	}
	CU_ASSERT_EQUAL(pr.packets, 8);
	CU_ASSERT_EQUAL(pr.ipv4, 8);
	CU_ASSERT_EQUAL(pr.ipid_first, 2);
	CU_ASSERT_EQUAL(pr.ipid_next, 3);
	CU_ASSERT_EQUAL(pr.ipid_other, 1);
	CU_ASSERT_EQUAL(pr.ipid_zero, 2);
	CU_ASSERT_EQUAL(pr.df, 8);
	CU_ASSERT_EQUAL(pr.udp_csum_zero, 8);
	CU_ASSERT_EQUAL(pr.sport_min, 0xc001);
	CU_ASSERT_EQUAL(pr.sport_max, 0xc003);
	CU_ASSERT_EQUAL(pr.sport_changes, 0);
	CU_ASSERT_EQUAL(pr.request_ends, 8);
}

static void test_resend_delay_and_ring(void)
{
	static struct rl_profile pr;
	struct rl_annotation a = { 0 };
	struct rl_pkt p;

	rl_profile_init(&pr);
	pf_pkt(&p, 1, 1, SEND_ONLY, 5);
	rl_profile_add(&pr, 1, 1000, &p, RL_OK, &a);
	a.verdict = RL_V_RETRANSMISSION;
	a.original_frame = 1;
	rl_profile_add(&pr, 2, 9000, &p, RL_OK, &a);
	CU_ASSERT_EQUAL(pr.resends, 1);
	CU_ASSERT_EQUAL(pr.resend_ns.n, 1);
	CU_ASSERT_EQUAL(pr.resend_ns.min, 8000);
	CU_ASSERT_EQUAL(pr.resend_ns.max, 8000);

	/* Frame 1 + RL_PROFILE_RING took frame 1's slot: its time is no longer known. */
	a.verdict = RL_V_IN_ORDER;
	rl_profile_add(&pr, 1 + RL_PROFILE_RING, 20000, &p, RL_OK, &a);
	a.verdict = RL_V_RETRANSMISSION;
	rl_profile_add(&pr, 2 + RL_PROFILE_RING, 30000, &p, RL_OK, &a);
	CU_ASSERT_EQUAL(pr.resends, 2);
	CU_ASSERT_EQUAL(pr.resend_ns.n, 1);
}

static void test_acks_naks_and_credits(void)
{
	static struct rl_profile pr;
	struct rl_annotation a = { 0 };
	struct rl_pkt p;

	rl_profile_init(&pr);
	/* An ACK with no credits (31) that acknowledges PSNs 0xfffffe .. 1 (4 PSNs, across the wrap). */
	pf_pkt(&p, 2, 0, ACKNOWLEDGE, 1);
	p.aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, RL_AETH_CREDITS_INVALID);
	a.acks = true;
	a.acked_first = 0xfffffe;
	a.acked_last = 1;
	a.request_frame = 1;
	a.response_time_ns = 2500;
	rl_profile_add(&pr, 2, 3500, &p, RL_OK, &a);
	/* An ACK with 4 credits for one PSN. */
	p.aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, 4);
	a.acked_first = a.acked_last = 2;
	a.response_time_ns = 500;
	rl_profile_add(&pr, 3, 4000, &p, RL_OK, &a);
	/* A PSN sequence error NAK, and an RNR NAK (timer 12: 0.64 ms, IBA 9.7.5.2.8 Table 46). */
	memset(&a, 0, sizeof(a));
	p.aeth.syndrome = rl_syndrome_make(RL_AETH_NAK, RL_NAK_PSN_SEQ_ERR);
	rl_profile_add(&pr, 4, 5000, &p, RL_OK, &a);
	p.aeth.syndrome = rl_syndrome_make(RL_AETH_RNR_NAK, 12);
	a.rnr_wait_us = rl_rnr_timer_us(12);
	rl_profile_add(&pr, 5, 6000, &p, RL_OK, &a);

	CU_ASSERT_EQUAL(pr.acks, 2);
	CU_ASSERT_EQUAL(pr.acked_psns, 5);
	CU_ASSERT_EQUAL(pr.acked_max, 4);
	CU_ASSERT_EQUAL(pr.credits_none, 1);
	CU_ASSERT_EQUAL(pr.naks, 1);
	CU_ASSERT_EQUAL(pr.rnr_naks, 1);
	CU_ASSERT_EQUAL(pr.rnr_wait_us.min, 640);
	CU_ASSERT_EQUAL(pr.response_ns.n, 2);
	CU_ASSERT_EQUAL(pr.response_ns.min, 500);
	CU_ASSERT_EQUAL(pr.response_ns.max, 2500);
	CU_ASSERT_EQUAL(pr.response_ns.sum, 3000);
}

static void test_path_mtu_ackreq_and_malformed(void)
{
	static struct rl_profile pr;
	struct rl_annotation a = { 0 };
	struct rl_pkt p;

	rl_profile_init(&pr);
	pf_pkt(&p, 1, 1, SEND_FIRST, 1);
	p.payload_len = 1024;
	rl_profile_add(&pr, 1, 0, &p, RL_OK, &a);
	pf_pkt(&p, 1, 2, SEND_LAST, 2);
	p.payload_len = 1500;   /* a Last packet may be shorter, never a measure of the MTU */
	p.bth.ackreq = true;
	rl_profile_add(&pr, 2, 0, &p, RL_OK, &a);
	pf_pkt(&p, 1, 3, SEND_ONLY, 3);
	p.payload_len = 4000;
	rl_profile_add(&pr, 3, 0, &p, RL_OK, &a);
	/* Malformed: not profiled at all. */
	pf_pkt(&p, 1, 4, SEND_FIRST, 4);
	p.payload_len = 9000;
	rl_profile_add(&pr, 4, 0, &p, RL_E_TRUNC_BTH, &a);

	CU_ASSERT_EQUAL(pr.packets, 3);
	CU_ASSERT_EQUAL(pr.pmtu, 1024);
	CU_ASSERT_EQUAL(pr.requests, 3);
	CU_ASSERT_EQUAL(pr.request_ends, 2);
	CU_ASSERT_EQUAL(pr.ackreq_ends, 1);
	CU_ASSERT_EQUAL(pr.ackreq_other, 0);
}

int tl_suite_profile(void)
{
	CU_pSuite s = CU_add_suite("profile", NULL, NULL);

	return !s || !CU_add_test(s, "IPv4 Identification per sender", test_ip_identification) ||
	       !CU_add_test(s, "resend delay, and frames older than the ring", test_resend_delay_and_ring) ||
	       !CU_add_test(s, "ACKs, NAKs, credits, response delay", test_acks_naks_and_credits) ||
	       !CU_add_test(s, "path MTU, AckReq, malformed packets", test_path_mtu_ackreq_and_malformed);
}
