/* SPDX-License-Identifier: MIT */
/*
 * ICRC against public vectors that we did not produce: scapy's RoCE tests
 * (test/contrib/roce.uts, including two ConnectX captures) and zlib.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "testlib.h"

static uint32_t wire_icrc(const uint8_t *frame, size_t len)
{
	const uint8_t *c = frame + len - 4;

	return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
}

static void test_scapy_uc_send_ipv4(void)
{
	struct rl_pkt p, d;
	uint8_t buf[128];
	size_t n;

	tl_scapy_uc_send(&p, false);
	p.udp.checksum = 0xaca2;        /* what scapy computed; masked by the ICRC anyway */
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, sizeof(buf), &n), RL_OK);
	CU_ASSERT_EQUAL(n, 14 + 64);                          /* scapy: IP len=64 */
	CU_ASSERT_EQUAL(rl_get16(buf + 14 + 10), 0xb4d5);     /* scapy's IP checksum */
	CU_ASSERT_EQUAL(rl_icrc_display(wire_icrc(buf, n)), 0x78f353f3);
	CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, buf, n, &d), RL_OK);
	CU_ASSERT_TRUE(d.icrc_ok);
	CU_ASSERT_EQUAL(d.bth.padcnt, 2);
}

/* The same packet over IPv6, from the "RoCE over IPv6" test of scapy's IPv6 ICRC work. */
static void test_scapy_uc_send_ipv6(void)
{
	struct rl_pkt p, d;
	uint8_t buf[128];
	size_t n;

	tl_scapy_uc_send(&p, true);
	p.udp.checksum = 0xe7c5;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, sizeof(buf), &n), RL_OK);
	CU_ASSERT_EQUAL(rl_icrc_display(wire_icrc(buf, n)), 0x3e5b743b);
	CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, buf, n, &d), RL_OK);
	CU_ASSERT_TRUE(d.icrc_ok);
}

static void test_cnp_connectx4(void)
{
	uint8_t ref[128], buf[128];
	size_t rn = tl_hex(tl_cnp_cx4, ref, sizeof(ref)), n;
	struct rl_pkt p, d;

	/* Decode the captured frame and check it field by field. */
	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, ref, rn, &d), RL_OK);
	CU_ASSERT_TRUE(d.icrc_ok);
	CU_ASSERT_EQUAL(rl_icrc_display(d.icrc), 0x82fd002a);
	CU_ASSERT_EQUAL(d.bth.opcode, RL_OP_CNP);
	CU_ASSERT_STRING_EQUAL(d.op->name, "CNP");
	CU_ASSERT_TRUE(d.bth.becn);
	CU_ASSERT_FALSE(d.bth.fecn);
	CU_ASSERT_EQUAL(d.bth.dqpn, 0x118);
	CU_ASSERT_EQUAL(d.ip4.ecn, 2);
	CU_ASSERT_EQUAL(d.udp.checksum, 0);
	CU_ASSERT_EQUAL(d.udp.sport, 0);

	/* Rebuild it from fields with the encoder: byte for byte the NIC's frame. */
	rl_pkt_init(&p, RL_OP_CNP);
	memcpy(p.eth.dst, ref, 6);
	memcpy(p.eth.src, ref + 6, 6);
	p.ip4.dscp = 0xc2 >> 2;
	p.ip4.ecn = 2;
	p.ip4.id = 0x718c;
	inet_pton(AF_INET, "10.0.17.1", p.ip4.src);
	inet_pton(AF_INET, "10.0.18.1", p.ip4.dst);
	p.udp.sport = 0;
	p.bth.becn = true;
	p.bth.dqpn = 0x118;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, sizeof(buf), &n), RL_OK);
	CU_ASSERT_EQUAL_FATAL(n, rn);
	CU_ASSERT_EQUAL(memcmp(buf, ref, n), 0);
}

/* RoCEv1 frames captured on ConnectX (scapy roce.uts): GRH instead of IP/UDP. */
static const char v1_write_only[] =
	"7c fe 90 75 3c d8 7c fe 90 75 3c d8 89 15 60 20 00 00 00 28 1b 40 00 00 00 00 00 00"
	"00 00 00 00 ff ff 0f 00 00 02 00 00 00 00 00 00 00 00 00 00 ff ff 0f 00 00 02 0a 70"
	"ff ff 00 00 01 0a 80 a7 88 bc 00 00 55 d4 c0 72 60 00 00 00 47 b3 00 00 00 05 00 00"
	"00 00 01 00 00 00 e3 d8 56 bb";
static const char v1_ack[] =
	"7c fe 90 75 3c d8 7c fe 90 75 3c d8 89 15 60 20 00 00 00 14 1b 40 00 00 00 00 00 00"
	"00 00 00 00 ff ff 0f 00 00 02 00 00 00 00 00 00 00 00 00 00 ff ff 0f 00 00 02 11 40"
	"ff ff 00 00 01 09 00 a7 88 c0 00 00 00 05 25 f0 c0 38";

static void test_rocev1_write_only(void)
{
	uint8_t ref[128], buf[128];
	size_t rn = tl_hex(v1_write_only, ref, sizeof(ref)), n;
	struct rl_pkt d, p;

	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, ref, rn, &d), RL_OK);
	CU_ASSERT_EQUAL(d.roce, RL_ROCE_V1);
	CU_ASSERT_EQUAL(d.ip6.tclass, 2);
	CU_ASSERT_EQUAL(d.ip6.payload_len, 40);
	CU_ASSERT_EQUAL(d.bth.opcode, RL_OP_RC_RDMA_WRITE_ONLY);
	CU_ASSERT_EQUAL(d.bth.padcnt, 3);
	CU_ASSERT_EQUAL(d.bth.dqpn, 0x10a);
	CU_ASSERT_TRUE(d.bth.ackreq);
	CU_ASSERT_EQUAL(d.reth.dma_len, 5);
	CU_ASSERT_EQUAL(d.payload_len, 5);
	CU_ASSERT_EQUAL(rl_icrc_display(d.icrc), 0xe3d856bb);
	CU_ASSERT_TRUE(d.icrc_ok);

	/* Re-encode from the decoded fields: the same bytes. */
	p = d;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, sizeof(buf), &n), RL_OK);
	CU_ASSERT_EQUAL_FATAL(n, rn);
	CU_ASSERT_EQUAL(memcmp(buf, ref, n), 0);
}

static void test_rocev1_ack(void)
{
	uint8_t ref[128];
	size_t rn = tl_hex(v1_ack, ref, sizeof(ref));
	struct rl_pkt d;

	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, ref, rn, &d), RL_OK);
	CU_ASSERT_STRING_EQUAL(d.op->name, "RC Acknowledge");
	CU_ASSERT_EQUAL(d.bth.dqpn, 0x109);
	CU_ASSERT_FALSE(d.bth.ackreq);
	CU_ASSERT_EQUAL(d.aeth.syndrome, 0);
	CU_ASSERT_EQUAL(d.aeth.msn, 5);
	CU_ASSERT_EQUAL(rl_icrc_display(d.icrc), 0x25f0c038);
	CU_ASSERT_TRUE(d.icrc_ok);
}

/* The 8-byte LRH seed constant in icrc.c, re-derived with zlib. */
static void test_lrh_seed_matches_zlib(void)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t frame[256];
	struct rl_pkt p;
	size_t n;

	/* An ICRC computed by hand with zlib over ones + masked headers must equal ours. */
	rl_pkt_init(&p, RL_OP_RC_SEND_ONLY);
	p.ip4.ttl = 7;
	p.ip4.ecn = 3;
	p.udp.checksum = 0x1234;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, frame, sizeof(frame), &n), RL_OK);
	{
		uint8_t m[256];
		size_t body = n - 14 - 4;
		uLong c;

		memcpy(m, frame + 14, body);
		m[1] = 0xff;                   /* TOS */
		m[8] = 0xff;                   /* TTL */
		m[10] = m[11] = 0xff;          /* IP checksum */
		m[26] = m[27] = 0xff;          /* UDP checksum */
		m[32] = 0xff;                  /* BTH byte 4 */
		c = crc32(0, ones, 8);
		c = crc32(c, m, (uInt)body);
		CU_ASSERT_EQUAL(wire_icrc(frame, n), (uint32_t)c);
	}
}

/* rl_crc32, and rl_crc32_2 over the same bytes cut anywhere in two: zlib's crc32 of them all. */
static void test_crc32_backend_matches_zlib(void)
{
	struct tl_rng r = { 0x1234567 };
	uint8_t buf[5000];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)tl_rand(&r);
	for (size_t len = 0; len < sizeof(buf); len += 1 + len / 4) {
		uint32_t seed = (uint32_t)tl_rand(&r), want = (uint32_t)crc32(seed, buf, (uInt)len);
		size_t cut = (size_t)tl_rand(&r) % (len + 1);

		CU_ASSERT_EQUAL(rl_crc32(seed, buf, len), want);
		CU_ASSERT_EQUAL(rl_crc32_2(seed, buf, cut, buf + cut, len - cut), want);
	}
}

/*
 * zlib's CRC over 8 bytes of ones and the masked bytes, against
 * rl_icrc_calc() for every payload length 0..300: short packets take the
 * one-call copy, long ones the two calls, and the lengths between them and
 * around each 16-byte boundary must agree. The buffer ends right after the
 * ICRC, so the address sanitizer catches any read past it.
 */
static void icrc_lengths_agree(enum rl_l3 l3, size_t l3_len)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	size_t hdrs = l3_len + (l3 == RL_L3_GRH ? 0 : 8) + RL_BTH_LEN;
	struct tl_rng r = { 0x5eed + (uint32_t)l3_len };

	for (size_t plen = 0; plen <= 300; plen++) {
		size_t len = hdrs + plen;
		uint8_t *b = malloc(len + RL_ICRC_LEN), *m = malloc(len);
		uLong want;

		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		for (size_t i = 0; i < len + RL_ICRC_LEN; i++)
			b[i] = (uint8_t)tl_rand(&r);
		for (size_t i = 0; i < len; i++)
			m[i] = b[i] | rl_icrc_mask_at(l3, l3_len, i);
		want = crc32(crc32(0, ones, 8), m, (uInt)len);
		CU_ASSERT_EQUAL(rl_icrc_calc(l3, b, l3_len, len), (uint32_t)want);
		free(b);
		free(m);
	}
}

static void test_icrc_every_length(void)
{
	icrc_lengths_agree(RL_L3_IPV4, 20);
	icrc_lengths_agree(RL_L3_IPV4, 28);
	icrc_lengths_agree(RL_L3_IPV6, 40);
	icrc_lengths_agree(RL_L3_GRH, 40);
}

/* Variant fields must not change the ICRC; invariant ones must. */
static void test_invariance(void)
{
	struct rl_pkt p, d;
	uint8_t a[256], b[256], pl[64] = { 1, 2, 3 };
	size_t na, nb;
	uint32_t base;

	rl_pkt_init(&p, RL_OP_RC_RDMA_WRITE_ONLY);
	p.payload = pl;
	p.payload_len = sizeof(pl);
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, a, sizeof(a), &na), RL_OK);
	base = wire_icrc(a, na);

	p.ip4.ttl = 1;
	p.ip4.dscp = 26;
	p.ip4.ecn = 3;
	p.udp.checksum = 0xbeef;
	p.bth.fecn = p.bth.becn = true;
	p.bth.resv6 = 0x2a;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, b, sizeof(b), &nb), RL_OK);
	CU_ASSERT_EQUAL(wire_icrc(b, nb), base);

	/* A router rewriting TTL and ECN: the frame still verifies. */
	a[14 + 8] = 3;
	a[14 + 1] |= 3;
	CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, a, na, &d), RL_OK);

	p.ip4.id = 1;                  /* IPv4 ID is covered (IBA A17.3.3) */
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, b, sizeof(b), &nb), RL_OK);
	CU_ASSERT_NOT_EQUAL(wire_icrc(b, nb), base);
}

/* Flip each bit in turn: the ICRC ignores exactly the bits rl_icrc_mask_at() names. */
static void mask_at_agrees(enum rl_l3 l3, size_t l3_len)
{
	uint8_t b[128];
	size_t len = l3_len + (l3 == RL_L3_GRH ? 0 : 8) + RL_BTH_LEN + 20;
	uint32_t base;

	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 37 + 11);
	base = rl_icrc_calc(l3, b, l3_len, len);
	for (size_t off = 0; off < len; off++)
		for (int bit = 0; bit < 8; bit++) {
			bool masked = rl_icrc_mask_at(l3, l3_len, off) & (1u << bit);

			b[off] ^= (uint8_t)(1u << bit);
			CU_ASSERT_EQUAL(rl_icrc_calc(l3, b, l3_len, len) == base, masked);
			b[off] ^= (uint8_t)(1u << bit);
		}
	CU_ASSERT_EQUAL(rl_icrc_mask_at(l3, l3_len, len + 100), 0);
}

static void test_mask_at(void)
{
	mask_at_agrees(RL_L3_IPV4, 20);
	mask_at_agrees(RL_L3_IPV4, 28);   /* options shift the UDP and BTH masks */
	mask_at_agrees(RL_L3_IPV6, 40);
	mask_at_agrees(RL_L3_GRH, 40);
	CU_ASSERT_EQUAL(rl_icrc_mask_at(RL_L3_IPV4, 20, 1), 0xff);  /* TOS: DSCP and ECN (IBA A17.3.3) */
	CU_ASSERT_EQUAL(rl_icrc_mask_at(RL_L3_IPV6, 40, 0), 0x0f);  /* the traffic class's first nibble */
}

int tl_suite_icrc(void)
{
	CU_pSuite s = CU_add_suite("icrc", NULL, NULL);

	return !s || !CU_add_test(s, "scapy UC SEND over IPv4 = 0x78f353f3", test_scapy_uc_send_ipv4) ||
	       !CU_add_test(s, "scapy UC SEND over IPv6 = 0x3e5b743b", test_scapy_uc_send_ipv6) ||
	       !CU_add_test(s, "ConnectX-4 Lx CNP = 0x82fd002a, byte for byte", test_cnp_connectx4) ||
	       !CU_add_test(s, "RoCEv1 RDMA WRITE Only from ConnectX", test_rocev1_write_only) ||
	       !CU_add_test(s, "RoCEv1 ACK from ConnectX", test_rocev1_ack) ||
	       !CU_add_test(s, "ICRC equals zlib over ones + masked headers", test_lrh_seed_matches_zlib) ||
	       !CU_add_test(s, "CRC-32 backend (and in two parts) equals zlib crc32()", test_crc32_backend_matches_zlib) ||
	       !CU_add_test(s, "ICRC equals zlib's for every payload of 0..300 bytes, IPv4, IPv6, GRH",
			    test_icrc_every_length) ||
	       !CU_add_test(s, "variant fields masked, invariant covered", test_invariance) ||
	       !CU_add_test(s, "rl_icrc_mask_at names exactly the bits the ICRC ignores", test_mask_at);
}
