/* SPDX-License-Identifier: MIT */
/*
 * Bad input: every truncation of every packet kind, and each named
 * malformation. Buffers are allocated to the exact length so that AddressSanitizer
 * reports any read past the end.
 */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static enum rl_status decode_exact(enum rl_link link, const uint8_t *frame, size_t len,
				   struct rl_pkt *out)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum rl_status st;

	memcpy(copy, frame, len);
	st = rl_decode(link, copy, len, out);
	free(copy);
	return st;
}

static void test_every_truncation(void)
{
	struct tl_rng r = { 0x7777 };
	uint8_t payload[512], frame[1024];
	size_t cases = 0;

	for (int op = 0; op < 256; op++) {
		for (int shape = 0; shape < TL_SHAPE_COUNT; shape++) {
			struct rl_pkt p, d;
			size_t n;

			tl_random_pkt(&r, (uint8_t)op, (enum tl_shape)shape, &p, payload);
			if (p.payload_len > 64)
				p.payload_len = 64 - p.payload_len % 4;   /* keep the test quick */
			CU_ASSERT_EQUAL_FATAL(rl_encode(&p, frame, sizeof(frame), &n), RL_OK);
			for (size_t cut = 0; cut < n; cut++) {
				enum rl_status st = decode_exact(p.link, frame, cut, &d);

				if (!rl_status_fatal(st))
					CU_FAIL("a truncated frame decoded without a fatal error");
				cases++;
			}
		}
	}
	CU_ASSERT_TRUE(cases > 256 * TL_SHAPE_COUNT * 60);
}

/*
 * issue 22 D6: every cut of every packet kind through rl_decode_cut() (the
 * bytes kept allocated exactly, for ASan): either fatal, as rl_decode() of the
 * cut says, or RL_CUT with the headers the whole frame has, the length on the
 * wire, no ICRC, and a payload pointer only when all of it was kept.
 */
static void test_every_cut_decoded_or_fatal(void)
{
	struct tl_rng r = { 0x5a5a };
	uint8_t payload[512], frame[1024];
	size_t cut_ok = 0;

	for (int op = 0; op < 256; op++) {
		for (int shape = 0; shape < TL_SHAPE_COUNT; shape++) {
			struct rl_pkt p, whole, d;
			enum rl_status wst;
			size_t n;

			tl_random_pkt(&r, (uint8_t)op, (enum tl_shape)shape, &p, payload);
			if (p.payload_len > 64)
				p.payload_len = 64 - p.payload_len % 4;
			CU_ASSERT_EQUAL_FATAL(rl_encode(&p, frame, sizeof(frame), &n), RL_OK);
			wst = rl_decode(p.link, frame, n, &whole);
			for (size_t cut = 0; cut < n; cut++) {
				uint8_t *copy = malloc(cut ? cut : 1);
				enum rl_status st;

				memcpy(copy, frame, cut);
				st = rl_decode_cut(p.link, copy, cut, n, &d);
				free(copy);
				if (rl_status_fatal(st)) {
					CU_ASSERT_FALSE(d.cut);
					continue;
				}
				CU_ASSERT_TRUE(st == RL_CUT || st == RL_E_UNKNOWN_OPCODE);
				CU_ASSERT_FALSE(rl_status_fatal(wst));
				CU_ASSERT_TRUE(d.cut);
				CU_ASSERT_FALSE(d.icrc_ok);
				CU_ASSERT_EQUAL(d.cap_len, cut);
				CU_ASSERT_TRUE(cut >= d.payload_off);
				CU_ASSERT_EQUAL(d.bth.opcode, whole.bth.opcode);
				CU_ASSERT_EQUAL(d.bth.psn, whole.bth.psn);
				CU_ASSERT_EQUAL(d.bth.dqpn, whole.bth.dqpn);
				CU_ASSERT_EQUAL(d.hdrs, whole.hdrs);
				if (d.hdrs & RL_HDR_RETH)
					CU_ASSERT_EQUAL(d.reth.dma_len, whole.reth.dma_len);
				CU_ASSERT_EQUAL(d.payload_len, whole.payload_len);
				CU_ASSERT_EQUAL(d.payload != NULL, d.payload_off + d.payload_len <= cut);
				cut_ok++;
			}
			/* The whole frame: what rl_decode() says. */
			CU_ASSERT_EQUAL(rl_decode_cut(p.link, frame, n, n, &d), wst);
			CU_ASSERT_FALSE(d.cut);
		}
	}
	CU_ASSERT_TRUE(cut_ok > 1000);
}

/* The demo's SEND First cut at 100 bytes, as editcap -s 100 leaves it; and at 50, inside the BTH. */
static void test_snap_100(void)
{
	static const uint8_t payload[1024];
	uint8_t frame[1200];
	struct rl_pkt p, d;
	size_t n;

	rl_pkt_init(&p, RL_OP_RC_SEND_FIRST);
	p.bth.psn = 9918159;
	p.payload = payload;
	p.payload_len = sizeof(payload);
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, frame, sizeof(frame), &n), RL_OK);
	CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, frame, 100, &d), RL_E_TRUNC_IP);
	CU_ASSERT_EQUAL(rl_decode_cut(RL_LINK_ETHERNET, frame, 100, n, &d), RL_CUT);
	CU_ASSERT_EQUAL(d.bth.psn, 9918159);
	CU_ASSERT_EQUAL(d.payload_len, 1024);
	CU_ASSERT_PTR_NULL(d.payload);
	CU_ASSERT_STRING_EQUAL(rl_status_name(RL_CUT), "cut");
	CU_ASSERT_FALSE(rl_status_fatal(RL_CUT));
	CU_ASSERT_TRUE(rl_status_fatal(rl_decode_cut(RL_LINK_ETHERNET, frame, 50, n, &d)));
}

/* Build a small well-formed frame of @opcode to damage. */
static size_t good_frame(uint8_t opcode, size_t payload_len, uint8_t *frame, struct rl_pkt *p)
{
	static const uint8_t payload[256];
	size_t n;

	rl_pkt_init(p, opcode);
	p->payload = payload;
	p->payload_len = payload_len;
	CU_ASSERT_EQUAL_FATAL(rl_encode(p, frame, 512, &n), RL_OK);
	return n;
}

/* Ethernet + IPv4 offsets of the fields we damage. */
#define IP 14
#define UDP (IP + 20)
#define BTH (UDP + 8)

static void fix_ip_checksum(uint8_t *frame)
{
	frame[IP + 10] = frame[IP + 11] = 0;
	rl_put16(frame + IP + 10, rl_ipv4_checksum(frame + IP, 20));
}

static void test_udp_length(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_SEND_ONLY, 16, f, &p);

	rl_put16(f + UDP + 4, (uint16_t)(rl_get16(f + UDP + 4) - 4));
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_UDP_LEN);
}

static void test_ip_length_too_small(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_SEND_ONLY, 16, f, &p);

	rl_put16(f + IP + 2, 24);
	fix_ip_checksum(f);
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_IP_LEN);
}

static void test_ip_fragment(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_SEND_ONLY, 16, f, &p);

	f[IP + 6] |= 0x20;   /* more fragments */
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_IP_FRAGMENT);
}

static void test_ip_version(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_SEND_ONLY, 16, f, &p);

	f[IP] = 0x65;        /* ethertype says IPv4, header says 6 */
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_IP_VERSION);
	f[IP] = 0x44;        /* IHL 4 */
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_IP_HDR_LEN);
}

static void test_tver(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_SEND_ONLY, 16, f, &p);

	rl_bth_set_tver(f + BTH, 1);
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_TVER);
}

/* An opcode that needs a RETH, in a packet too short to hold one. */
static void test_missing_header(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_SEND_ONLY, 8, f, &p);   /* SEND Only: BTH + 8 payload + ICRC */

	rl_bth_set_opcode(f + BTH, RL_OP_RC_RDMA_WRITE_ONLY);          /* now claims RDMA WRITE Only (RETH 16) */
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_MISSING_HDR);
	CU_ASSERT_EQUAL(d.err_need, RL_RETH_LEN);
	CU_ASSERT_EQUAL(d.err_have, 8 + RL_ICRC_LEN);
}

static void test_pad(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_SEND_FIRST, 16, f, &p);  /* SEND First: pad is not allowed */

	rl_bth_set_padcnt(f + BTH, 2);
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_PAD);

	n = good_frame(RL_OP_RC_ACKNOWLEDGE, 0, f, &p);          /* ACK: no payload, so no pad */
	rl_bth_set_padcnt(f + BTH, 1);
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_PAD);

	n = good_frame(RL_OP_RC_SEND_ONLY, 0, f, &p);          /* SEND Only, empty: pad 3 > 0 bytes */
	rl_bth_set_padcnt(f + BTH, 3);
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_PAD);
}

/* First and Middle packets carry a whole path MTU, a multiple of 4 (IBA 9.7.2). */
static void test_first_middle_payload_multiple_of_4(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_SEND_FIRST, 8, f, &p);   /* SEND First, 8 bytes */
	static const uint8_t five[5];

	/* Grow the payload to 10 bytes, pad still 0: not allowed on a First packet. */
	memmove(f + n - 2, f + n - 4, 4);
	n += 2;
	rl_put16(f + IP + 2, (uint16_t)(rl_get16(f + IP + 2) + 2));
	rl_put16(f + UDP + 4, (uint16_t)(rl_get16(f + UDP + 4) + 2));
	fix_ip_checksum(f);
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_PAYLOAD_LEN);

	/* And the encoder refuses to write one. */
	rl_pkt_init(&p, RL_OP_RC_SEND_MIDDLE);
	p.payload = five;
	p.payload_len = sizeof(five);
	CU_ASSERT_EQUAL(rl_encode(&p, f, sizeof(f), &n), RL_E_PAYLOAD_LEN);
	p.payload_len = 4;
	CU_ASSERT_EQUAL(rl_encode(&p, f, sizeof(f), &n), RL_OK);
	CU_ASSERT_FALSE(rl_opcode_payload_ok(RL_OP_RC_ACKNOWLEDGE, 4));    /* ACK: no payload */
	CU_ASSERT_FALSE(rl_opcode_payload_ok(RL_OP_RC_ATOMIC_WRITE, 4));    /* ATOMIC WRITE: exactly 8 */
	CU_ASSERT_TRUE(rl_opcode_payload_ok(RL_OP_RC_ATOMIC_WRITE, 8));
	CU_ASSERT_TRUE(rl_opcode_payload_ok(RL_OP_RC_SEND_LAST, 5));     /* SEND Last: any */
}

static void test_payload_where_none_allowed(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_SEND_ONLY, 8, f, &p);

	rl_bth_set_opcode(f + BTH, RL_OP_RC_ACKNOWLEDGE);          /* ACK with 4 stray bytes */
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_PAYLOAD_LEN);
}

static void test_icrc_mismatch_is_reported_not_fatal(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(RL_OP_RC_RDMA_WRITE_ONLY, 32, f, &p);

	f[n - 10] ^= 0x01;    /* one bit of payload */
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_ICRC);
	CU_ASSERT_FALSE(rl_status_fatal(RL_E_ICRC));
	CU_ASSERT_FALSE(d.icrc_ok);
	CU_ASSERT_NOT_EQUAL(d.icrc, d.icrc_expected);
	CU_ASSERT_EQUAL(d.reth.dma_len, 0);       /* every field still decoded */
	CU_ASSERT_EQUAL(d.payload_len, 32);
}

static void test_unknown_opcode(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n = good_frame(0x15, 20, f, &p);   /* reserved in IBA Table 38: no name */

	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_UNKNOWN_OPCODE);
	CU_ASSERT_STRING_EQUAL(d.op->name, "Unknown");
	CU_ASSERT_EQUAL(d.payload_len, 20);
	CU_ASSERT_TRUE(d.icrc_ok);
}

static void test_grh_next_header(void)
{
	uint8_t f[512];
	struct rl_pkt p, d;
	size_t n;

	rl_pkt_init(&p, RL_OP_RC_ACKNOWLEDGE);
	p.l3 = RL_L3_GRH;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, f, sizeof(f), &n), RL_OK);
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_OK);
	f[14 + 6] = RL_IPPROTO_UDP;   /* a GRH must say 0x1B, IBA 8.3 */
	CU_ASSERT_EQUAL(decode_exact(RL_LINK_ETHERNET, f, n, &d), RL_E_GRH);
}

static void test_every_status_has_a_reason(void)
{
	char msg[256];
	struct rl_pkt d;

	memset(&d, 0, sizeof(d));
	for (int s = 0; s < RL_STATUS_COUNT; s++) {
		CU_ASSERT_TRUE(strlen(rl_status_name((enum rl_status)s)) > 1);
		CU_ASSERT_TRUE(strlen(rl_status_reason((enum rl_status)s)) > 10);
		CU_ASSERT_TRUE(rl_decode_error_str((enum rl_status)s, &d, msg, sizeof(msg)) > 10);
		for (int t = 0; t < s; t++)
			CU_ASSERT_STRING_NOT_EQUAL(rl_status_name((enum rl_status)s),
						   rl_status_name((enum rl_status)t));
	}
	CU_ASSERT_STRING_EQUAL(rl_status_name((enum rl_status)999), "unknown-status");
}

/* Random bytes: decode must return without reading out of bounds. */
static void test_random_garbage(void)
{
	struct tl_rng r = { 99 };
	static const enum rl_link links[] = { RL_LINK_ETHERNET, RL_LINK_RAW, RL_LINK_LINUX_SLL,
					      RL_LINK_LINUX_SLL2, RL_LINK_IPV4, RL_LINK_IPV6 };
	uint8_t f[200];
	struct rl_pkt d;

	for (int i = 0; i < 20000; i++) {
		size_t n = tl_rand_below(&r, sizeof(f));

		for (size_t k = 0; k < n; k++)
			f[k] = (uint8_t)tl_rand(&r);
		(void)decode_exact(links[i % 6], f, n, &d);
	}
	CU_PASS("no crash, no over-read");
}

int tl_suite_malformed(void)
{
	CU_pSuite s = CU_add_suite("malformed", NULL, NULL);

	return !s || !CU_add_test(s, "every truncation of every kind is a fatal error", test_every_truncation) ||
	       !CU_add_test(s, "every cut by a snap length: headers decoded, or fatal", test_every_cut_decoded_or_fatal) ||
	       !CU_add_test(s, "editcap -s 100 on a SEND First: decoded, cut", test_snap_100) ||
	       !CU_add_test(s, "UDP length disagrees with IP", test_udp_length) ||
	       !CU_add_test(s, "IP length below headers", test_ip_length_too_small) ||
	       !CU_add_test(s, "IP fragment", test_ip_fragment) ||
	       !CU_add_test(s, "IP version / IHL", test_ip_version) ||
	       !CU_add_test(s, "TVer not 0", test_tver) ||
	       !CU_add_test(s, "header required by opcode missing", test_missing_header) ||
	       !CU_add_test(s, "pad count inconsistent", test_pad) ||
	       !CU_add_test(s, "payload where the opcode has none", test_payload_where_none_allowed) ||
	       !CU_add_test(s, "First/Middle payload is a multiple of 4", test_first_middle_payload_multiple_of_4) ||
	       !CU_add_test(s, "ICRC mismatch reported, fields decoded", test_icrc_mismatch_is_reported_not_fatal) ||
	       !CU_add_test(s, "unknown opcode decodes as unknown", test_unknown_opcode) ||
	       !CU_add_test(s, "RoCEv1 GRH next header", test_grh_next_header) ||
	       !CU_add_test(s, "every status has a name and reason", test_every_status_has_a_reason) ||
	       !CU_add_test(s, "random bytes never crash", test_random_garbage);
}
