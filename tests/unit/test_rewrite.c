/* SPDX-License-Identifier: MIT */
/* Rewriting frames: what changes, what is recomputed, and what must stay wrong. */
#include <string.h>

#include "testlib.h"

static size_t make(uint8_t opcode, uint8_t *f, struct rl_pkt *p)
{
	static const uint8_t pl[40];
	size_t n;

	rl_pkt_init(p, opcode);
	p->eth.src[5] = 1;
	p->eth.dst[5] = 2;
	p->ip4.src[0] = 192; p->ip4.src[3] = 1;
	p->ip4.dst[0] = 192; p->ip4.dst[3] = 2;
	p->bth.dqpn = 0x12;
	p->bth.psn = 0xfffffe;
	p->deth.src_qp = 0x11;
	p->payload = pl;
	p->payload_len = sizeof(pl);
	CU_ASSERT_EQUAL_FATAL(rl_encode(p, f, 256, &n), RL_OK);
	return n;
}

static void test_rewrite_fields(void)
{
	struct rl_rewrite rw;
	struct rl_pkt p, d;
	uint8_t f[256];
	char why[128];
	size_t n = make((uint8_t)rl_opcode_by_name("UD SEND Only"), f, &p);

	memset(&rw, 0, sizeof(rw));
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "ip:192.0.0.1=10.1.2.3", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "mac:00:00:00:00:00:02=02:aa:bb:cc:dd:ee", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "qpn:0x12=0x345", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "qpn:0x11=0x346", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "psn:+3", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_rewrite_frame(&rw, RL_LINK_ETHERNET, f, n), RL_OK);
	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, n, &d), RL_OK);   /* checksum and ICRC good */
	CU_ASSERT_EQUAL(d.ip4.src[0], 10);
	CU_ASSERT_EQUAL(d.ip4.src[3], 3);
	CU_ASSERT_EQUAL(d.ip4.dst[3], 2);                  /* no rule for it */
	CU_ASSERT_EQUAL(d.eth.dst[0], 0x02);
	CU_ASSERT_EQUAL(d.eth.dst[5], 0xee);
	CU_ASSERT_EQUAL(d.bth.dqpn, 0x345);
	CU_ASSERT_EQUAL(d.deth.src_qp, 0x346);
	CU_ASSERT_EQUAL(d.bth.psn, 1);                     /* 0xfffffe + 3 wraps */
	CU_ASSERT_EQUAL(rl_ipv4_checksum(f + 14, 20), 0);
}

/* A frame whose ICRC was wrong stays wrong by the same bits. */
static void test_rewrite_keeps_damage(void)
{
	struct rl_rewrite rw;
	struct rl_pkt p, d;
	uint8_t f[256];
	char why[128];
	size_t n = make((uint8_t)rl_opcode_by_name("RC SEND Only"), f, &p);
	uint32_t before;

	f[n - 10] ^= 4;
	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, n, &d), RL_E_ICRC);
	before = d.icrc ^ d.icrc_expected;
	memset(&rw, 0, sizeof(rw));
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "psn:-100", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_rewrite_frame(&rw, RL_LINK_ETHERNET, f, n), RL_OK);
	CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, f, n, &d), RL_E_ICRC);
	CU_ASSERT_EQUAL(d.icrc ^ d.icrc_expected, before);
	CU_ASSERT_EQUAL(d.bth.psn, 0xfffffe - 100);
}

static void test_rewrite_rules_refused(void)
{
	struct rl_rewrite rw;
	char why[128];

	memset(&rw, 0, sizeof(rw));
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "ip:1.2.3.4=::1", why, sizeof(why)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "must be IPv4, or both IPv6"));
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "qpn:0x1000000=1", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "mac:zz=1", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "psn:+x", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "port:1=2", why, sizeof(why)), 0);
	CU_ASSERT_TRUE(rl_rewrite_empty(&rw));
}

/* Numbers in rules are decimal or 0x hex, as everywhere in rocelab: a leading 0 is not octal. */
static void test_rewrite_numbers_not_octal(void)
{
	struct rl_rewrite rw;
	char why[128];

	memset(&rw, 0, sizeof(rw));
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "qpn:010=0x10", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rw.qpn[0].from, 10);
	CU_ASSERT_EQUAL(rw.qpn[0].to, 16);
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "qpn:09=0X1a", why, sizeof(why)), 0); /* no octal digit to refuse */
	CU_ASSERT_EQUAL(rw.qpn[1].from, 9);
	CU_ASSERT_EQUAL(rw.qpn[1].to, 26);
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "psn:+010", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rw.psn_shift, 10);
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "psn:-010", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rw.psn_shift, -10);
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "psn:+0x10", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rw.psn_shift, 16);
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "psn:-0xffffff", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rw.psn_shift, -0xffffff);
	/* What strtol() would have taken: spaces, signs inside a QPN, a bare 0x, 2^24. */
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "qpn: 5=1", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "qpn:+5=1", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "qpn:0x=1", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "psn:+ 5", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "psn:+-5", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "psn:+16777216", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "psn:", why, sizeof(why)), 0);
}

/* issue 22 D17: a shift without its sign, and a new QPN of 0 or 1 (which gen refuses), are refused. */
static void test_rewrite_sign_and_special_qpns(void)
{
	struct rl_rewrite rw;
	char why[128];

	memset(&rw, 0, sizeof(rw));
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "psn:5", why, sizeof(why)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "shift like +1000"));
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "psn:0x10", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "qpn:0x12=0", why, sizeof(why)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "cannot be 0 or 1"));
	CU_ASSERT_NOT_EQUAL(rl_rewrite_parse(&rw, "qpn:0x12=1", why, sizeof(why)), 0);
	CU_ASSERT_TRUE(rl_rewrite_empty(&rw));
	CU_ASSERT_EQUAL(rl_rewrite_parse(&rw, "qpn:0x12=2", why, sizeof(why)), 0);
}

int tl_suite_rewrite(void)
{
	CU_pSuite s = CU_add_suite("rewrite", NULL, NULL);

	return !s || !CU_add_test(s, "addresses, QPNs, PSN shift; checksums recomputed", test_rewrite_fields) ||
	       !CU_add_test(s, "a bad ICRC stays bad by the same bits", test_rewrite_keeps_damage) ||
	       !CU_add_test(s, "psn: needs a sign; a new QPN is not 0 or 1", test_rewrite_sign_and_special_qpns) ||
	       !CU_add_test(s, "bad rules refused with a reason", test_rewrite_rules_refused) ||
	       !CU_add_test(s, "numbers are decimal or 0x hex, never octal", test_rewrite_numbers_not_octal);
}
