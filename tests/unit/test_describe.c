/* SPDX-License-Identifier: MIT */
/* The string builder and the describers, against libc's snprintf and inet_ntop. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"

static void test_numbers_match_snprintf(void)
{
	struct tl_rng r = { 42 };
	char got[64], want[64];

	for (int i = 0; i < 20000; i++) {
		uint64_t v = tl_rand(&r) >> tl_rand_below(&r, 64);
		unsigned w = tl_rand_below(&r, 12);
		struct rl_sb sb;

		rl_sb_init(&sb, got, sizeof(got));
		rl_sb_u64(&sb, v);
		snprintf(want, sizeof(want), "%" PRIu64, v);
		CU_ASSERT_STRING_EQUAL(got, want);

		rl_sb_init(&sb, got, sizeof(got));
		rl_sb_u64w(&sb, v, w);
		snprintf(want, sizeof(want), "%0*" PRIu64, (int)w, v);
		CU_ASSERT_STRING_EQUAL(got, want);

		rl_sb_init(&sb, got, sizeof(got));
		rl_sb_hex(&sb, v, w);
		snprintf(want, sizeof(want), "0x%0*" PRIx64, (int)(w ? w : 1), v);
		CU_ASSERT_STRING_EQUAL(got, want);
	}
}

static void test_truncates_safely(void)
{
	char buf[8];
	struct rl_sb sb;

	for (size_t cap = 1; cap <= sizeof(buf); cap++) {
		memset(buf, 'x', sizeof(buf));
		rl_sb_init(&sb, buf, cap);
		rl_sb_puts(&sb, "Hello");
		rl_sb_u64(&sb, 1234567890123ull);
		rl_sb_hex(&sb, 0xdeadbeef, 8);
		rl_sb_putc(&sb, '!');
		CU_ASSERT_EQUAL(sb.len, cap - 1);
		CU_ASSERT_EQUAL(strlen(buf), cap - 1);
		CU_ASSERT_EQUAL(strncmp(buf, "Hello1234567890123", cap - 1), 0);
	}
}

static void test_ipv6_matches_inet_ntop(void)
{
	static const char *const addrs[] = {
		"::", "::1", "fd00::1", "2022::1023", "fe80::268a:7ff:fea8:fa22", "1:0:0:1:0:0:0:1",
		"1:0:0:1:0:0:1:1", "2001:db8:0:0:1:0:0:1", "::ffff:192.168.0.7", "1:2:3:4:5:6:7:8",
		"0:1:0:0:0:0:0:0", "ff02::1:ff00:1",
	};
	struct tl_rng r = { 7 };
	struct rl_pkt p;
	char got[64], want[64];

	memset(&p, 0, sizeof(p));
	p.l3 = RL_L3_IPV6;
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]) + 2000; i++) {
		if (i < sizeof(addrs) / sizeof(addrs[0])) {
			CU_ASSERT_EQUAL_FATAL(inet_pton(AF_INET6, addrs[i], p.ip6.src), 1);
		} else {   /* random, with runs of zero groups */
			for (int g = 0; g < 8; g++) {
				uint16_t v = tl_rand_below(&r, 3) ? 0 : (uint16_t)tl_rand(&r);

				p.ip6.src[2 * g] = (uint8_t)(v >> 8);
				p.ip6.src[2 * g + 1] = (uint8_t)v;
			}
		}
		inet_ntop(AF_INET6, p.ip6.src, want, sizeof(want));
		CU_ASSERT_STRING_EQUAL(rl_addr_str(&p, true, got, sizeof(got)), want);
	}
}

static void test_ipv4_matches_inet_ntop(void)
{
	struct tl_rng r = { 11 };
	struct rl_pkt p;
	char got[32], want[32];

	memset(&p, 0, sizeof(p));
	p.l3 = RL_L3_IPV4;
	for (int i = 0; i < 5000; i++) {
		for (int k = 0; k < 4; k++)
			p.ip4.dst[k] = (uint8_t)(tl_rand_below(&r, 4) ? tl_rand(&r) : tl_rand_below(&r, 10));
		inet_ntop(AF_INET, p.ip4.dst, want, sizeof(want));
		CU_ASSERT_STRING_EQUAL(rl_addr_str(&p, false, got, sizeof(got)), want);
	}
}

static void test_describe_packets(void)
{
	struct rl_pkt p;
	char line[256];

	rl_pkt_init(&p, (uint8_t)rl_opcode_by_name("RC RDMA WRITE First"));
	p.bth.dqpn = 0x12;
	p.bth.psn = 77;
	p.reth = (struct rl_reth){ 0x7f3a2c001000ull, 0x1234, 1500 };
	p.payload_len = 1024;
	rl_describe_pkt(&p, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "RC RDMA WRITE First QP=0x000012 PSN=77 va=0x7f3a2c001000 rkey=0x1234 len=1500 payload=1024");

	rl_describe_syndrome(rl_syndrome_make(RL_AETH_RNR_NAK, 14), line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "RNR NAK timer=14 (1.28 ms)");
	rl_describe_syndrome(rl_syndrome_make(RL_AETH_NAK, RL_NAK_REM_ACCESS_ERR), line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "NAK remote access error");
	rl_describe_syndrome(rl_syndrome_make(RL_AETH_ACK, 5), line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "ACK credits=6");
	rl_describe_syndrome(0x40, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "reserved syndrome 0x40");

	/* Every opcode the spec defines has a sentence for learners. */
	for (int op = 0; op < 256; op++)
		if (rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID)
			CU_ASSERT_TRUE(strlen(rl_describe_opcode((uint8_t)op)) > 20);
}

int tl_suite_describe(void)
{
	CU_pSuite s = CU_add_suite("describe", NULL, NULL);

	return !s || !CU_add_test(s, "numbers format as snprintf does", test_numbers_match_snprintf) ||
	       !CU_add_test(s, "string builder truncates safely", test_truncates_safely) ||
	       !CU_add_test(s, "IPv6 text form matches inet_ntop", test_ipv6_matches_inet_ntop) ||
	       !CU_add_test(s, "IPv4 text form matches inet_ntop", test_ipv4_matches_inet_ntop) ||
	       !CU_add_test(s, "packet and AETH descriptions", test_describe_packets);
}
