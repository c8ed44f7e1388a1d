/* SPDX-License-Identifier: MIT */
/*
 * rl_encode_path(): a packet written as its path and BTH..ICRC is, byte for
 * byte, what rl_encode() writes after the UDP header of the same packet's
 * frame; rl_decode_path() reads it back to the same fields; and scapy's
 * UC SEND vector gets scapy's ICRC. Output buffers are allocated to the
 * exact length, so that AddressSanitizer reports a write past the end.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/* Bytes of Ethernet, IP and UDP header in front of the BTH in an untagged frame. */
static size_t ep_bth_off(bool v6)
{
	return 14 + (v6 ? 40 : 20) + 8;
}

/* @p as a frame; *bth is where its BTH starts. */
static size_t ep_frame(const struct rl_pkt *p, bool v6, uint8_t *frame, size_t cap, size_t *bth)
{
	size_t n;

	CU_ASSERT_EQUAL_FATAL(rl_encode(p, frame, cap, &n), RL_OK);
	*bth = ep_bth_off(v6);
	CU_ASSERT_FATAL(n > *bth);
	return n;
}

/* rl_encode_path() of @p on @path into a buffer of exactly @want bytes, compared with @want_bytes. */
static void ep_expect(const struct rl_path *path, const struct rl_pkt *p, const uint8_t *want_bytes, size_t want)
{
	uint8_t *buf = malloc(want);
	size_t n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL_FATAL(rl_encode_path(path, p, buf, want, &n), RL_OK);
	CU_ASSERT_EQUAL_FATAL(n, want);
	CU_ASSERT_EQUAL(memcmp(buf, want_bytes, want), 0);
	/* One byte less does not fit. */
	CU_ASSERT_EQUAL(rl_encode_path(path, p, buf, want - 1, &n), RL_E_NOSPACE);
	free(buf);
}

/* Every valid opcode over IPv4 and IPv6: the bytes after the frame's UDP header, whatever the pkt's network layer says. */
static void test_encode_path_every_opcode(void)
{
	struct tl_rng r = { 0xe1c0de };
	unsigned checked = 0;

	for (int op = 0; op < 256; op++) {
		for (int v6 = 0; v6 < 2; v6++) {
			uint8_t payload[512], frame[1024];
			struct rl_pkt p, bare;
			struct rl_path path;
			size_t n, bth;

			if (!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID))
				continue;
			tl_random_pkt(&r, (uint8_t)op, v6 ? TL_ETH_V6 : TL_ETH_V4, &p, payload);
			n = ep_frame(&p, v6, frame, sizeof(frame), &bth);
			CU_ASSERT_EQUAL_FATAL(rl_path_from_pkt(&p, &path), 0);
			ep_expect(&path, &p, frame + bth, n - bth);
			/* The path is the network layer: what the packet says of it is not read. */
			bare = p;
			memset(&bare.eth, 0xa5, sizeof(bare.eth));
			memset(&bare.ip4, 0xa5, sizeof(bare.ip4));
			memset(&bare.ip6, 0xa5, sizeof(bare.ip6));
			memset(&bare.udp, 0xa5, sizeof(bare.udp));
			bare.link = RL_LINK_RAW;
			bare.roce = RL_ROCE_NONE;
			bare.l3 = RL_L3_NONE;
			ep_expect(&path, &bare, frame + bth, n - bth);
			checked++;
		}
	}
	CU_ASSERT(checked > 100);
}

/* Written by path, read by path: the path, every field of the field table, the payload, a good ICRC. */
static void test_encode_path_round_trip(void)
{
	struct tl_rng r = { 0x70a57 };
	unsigned checked = 0;

	for (int op = 0; op < 256; op++) {
		for (int v6 = 0; v6 < 2; v6++) {
			uint8_t payload[512], bytes[1024];
			struct rl_pkt p, d;
			struct rl_path path, back;
			struct rl_field_iter ip, id;
			const struct rl_field *fp, *fd;
			size_t n;

			if (!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID))
				continue;
			tl_random_pkt(&r, (uint8_t)op, v6 ? TL_ETH_V6 : TL_ETH_V4, &p, payload);
			CU_ASSERT_EQUAL_FATAL(rl_path_from_pkt(&p, &path), 0);
			CU_ASSERT_EQUAL_FATAL(rl_encode_path(&path, &p, bytes, sizeof(bytes), &n), RL_OK);
			CU_ASSERT_EQUAL_FATAL(rl_decode_path(&path, bytes, n, &d), RL_OK);
			CU_ASSERT_TRUE(d.icrc_ok);
			CU_ASSERT_EQUAL(d.end_off, n);
			CU_ASSERT_EQUAL(rl_path_from_pkt(&d, &back), 0);
			CU_ASSERT_EQUAL(memcmp(&back, &path, sizeof(path)), 0);
			CU_ASSERT_EQUAL_FATAL(d.payload_len, p.payload_len);
			if (p.payload_len)
				CU_ASSERT_EQUAL(memcmp(d.payload, p.payload, p.payload_len), 0);
			/* The pad count is the encoder's to derive (IBA 9.2): what the payload needs. */
			CU_ASSERT_EQUAL(d.bth.padcnt, (4 - (p.payload_len & 3)) & 3);
			p.bth.padcnt = d.bth.padcnt;
			CU_ASSERT_PTR_EQUAL_FATAL(d.op, p.op);
			rl_field_iter_init(&ip, &p);
			rl_field_iter_init(&id, &d);
			do {
				fp = rl_field_next(&ip);
				fd = rl_field_next(&id);
				CU_ASSERT_PTR_EQUAL_FATAL(fp, fd);
				if (fp) {
					CU_ASSERT_EQUAL(ip.value, id.value);
					CU_ASSERT_EQUAL(ip.off, id.off);
				}
			} while (fp);
			checked++;
		}
	}
	CU_ASSERT(checked > 100);
}

/* scapy's UC SEND Only: BTH, 18 bytes of payload, 2 of pad, and scapy's ICRC, from the path alone. */
static void test_encode_path_scapy(void)
{
	static const uint32_t want[2] = { 0x78f353f3, 0x3e5b743b };

	for (int v6 = 0; v6 < 2; v6++) {
		uint8_t bytes[64], frame[160];
		struct rl_path path;
		struct rl_pkt p, d;
		size_t n, fn, bth;
		uint32_t icrc;

		tl_scapy_uc_send(&p, v6);
		tl_scapy_path(v6, &path);
		CU_ASSERT_EQUAL_FATAL(rl_encode_path(&path, &p, bytes, sizeof(bytes), &n), RL_OK);
		CU_ASSERT_EQUAL(n, RL_BTH_LEN + 18 + 2 + RL_ICRC_LEN);
		icrc = (uint32_t)bytes[n - 4] | (uint32_t)bytes[n - 3] << 8 | (uint32_t)bytes[n - 2] << 16 |
		       (uint32_t)bytes[n - 1] << 24;
		CU_ASSERT_EQUAL(rl_icrc_display(icrc), want[v6]);
		CU_ASSERT_EQUAL(rl_bth_padcnt(bytes), 2);
		CU_ASSERT_EQUAL(bytes[0], RL_OP_UC_SEND_ONLY);
		/* The frame's transport bytes, and a packet the path decoder accepts. */
		fn = ep_frame(&p, v6, frame, sizeof(frame), &bth);
		CU_ASSERT_EQUAL_FATAL(fn - bth, n);
		CU_ASSERT_EQUAL(memcmp(frame + bth, bytes, n), 0);
		CU_ASSERT_EQUAL(rl_decode_path(&path, bytes, n, &d), RL_OK);
		CU_ASSERT_EQUAL(d.bth.dqpn, 211);
		CU_ASSERT_EQUAL(d.bth.psn, 13571856);
		CU_ASSERT_TRUE(d.bth.migreq);
		/* The variant fields do not change it (IBA A17.3.3); the source port does. */
		path.traffic_class ^= 0xfc;
		path.hop_limit = 7;
		CU_ASSERT_EQUAL_FATAL(rl_encode_path(&path, &p, bytes, sizeof(bytes), &n), RL_OK);
		CU_ASSERT_EQUAL(memcmp(frame + bth, bytes, n), 0);
		path.udp_sport++;
		CU_ASSERT_EQUAL_FATAL(rl_encode_path(&path, &p, bytes, sizeof(bytes), &n), RL_OK);
		CU_ASSERT_NOT_EQUAL(memcmp(frame + fn - 4, bytes + n - 4, 4), 0);
		CU_ASSERT_EQUAL(memcmp(frame + bth, bytes, n - 4), 0);
	}
}

/* What cannot be written: missing arguments, a payload the opcode forbids, a path no IP packet takes. */
static void test_encode_path_refuses(void)
{
	uint8_t bytes[128], *big;
	struct rl_path path;
	struct rl_pkt p;
	size_t n = 7;

	tl_scapy_uc_send(&p, false);
	tl_scapy_path(false, &path);
	CU_ASSERT_EQUAL(rl_encode_path(NULL, &p, bytes, sizeof(bytes), &n), RL_E_ARG);
	CU_ASSERT_EQUAL(rl_encode_path(&path, NULL, bytes, sizeof(bytes), &n), RL_E_ARG);
	CU_ASSERT_EQUAL(rl_encode_path(&path, &p, NULL, sizeof(bytes), &n), RL_E_ARG);
	CU_ASSERT_EQUAL(rl_encode_path(&path, &p, bytes, sizeof(bytes), NULL), RL_E_ARG);
	p.payload = NULL;
	CU_ASSERT_EQUAL(rl_encode_path(&path, &p, bytes, sizeof(bytes), &n), RL_E_ARG);
	/* An ACK carries no payload (IBA 9.2), as rl_encode() says too. */
	tl_scapy_uc_send(&p, false);
	p.bth.opcode = RL_OP_RC_ACKNOWLEDGE;
	p.op = rl_opcode_info(p.bth.opcode);
	p.hdrs = p.op->hdrs;
	CU_ASSERT_EQUAL(rl_encode_path(&path, &p, bytes, sizeof(bytes), &n), RL_E_PAYLOAD_LEN);
	{
		uint8_t frame[160];
		size_t fn;

		CU_ASSERT_EQUAL(rl_encode(&p, frame, sizeof(frame), &fn), RL_E_PAYLOAD_LEN);
	}
	/* Two address families in one path. */
	tl_scapy_uc_send(&p, false);
	inet_pton(AF_INET6, "2023::1024", path.dgid);
	CU_ASSERT_EQUAL(rl_encode_path(&path, &p, bytes, sizeof(bytes), &n), RL_E_ARG);
	/* An IPv4 packet holds 65535 - 28 bytes after its IP and UDP headers: the most that fit, then 4 more. */
	tl_scapy_path(false, &path);
	big = calloc(2, 0x10000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	p.payload = big;
	p.payload_len = (0xffff - 28 - RL_BTH_LEN - RL_ICRC_LEN) & ~(size_t)3;
	CU_ASSERT_EQUAL(rl_encode_path(&path, &p, big + 0x10000, 0x10000, &n), RL_OK);
	CU_ASSERT_EQUAL(n, RL_BTH_LEN + p.payload_len + RL_ICRC_LEN);
	CU_ASSERT(n + 4 > 0xffff - 28);
	p.payload_len += 4;
	CU_ASSERT_EQUAL(rl_encode_path(&path, &p, big + 0x10000, 0x10000, &n), RL_E_ARG);
	free(big);
}

/* rl_encode_cached() into a buffer of exactly rl_encode()'s length: the same bytes, and one byte less does not fit. */
static void ep_cached_expect(struct rl_encode_cache *c, const struct rl_pkt *p)
{
	uint8_t want[1100], *buf;
	size_t n = 0, m = 0;

	CU_ASSERT_EQUAL_FATAL(rl_encode(p, want, sizeof(want), &n), RL_OK);
	CU_ASSERT_EQUAL(rl_encode_cached(c, p, want, n - 1, &m), RL_E_NOSPACE);
	buf = malloc(n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL_FATAL(rl_encode_cached(c, p, buf, n, &m), RL_OK);
	CU_ASSERT_EQUAL_FATAL(m, n);
	CU_ASSERT_EQUAL(memcmp(buf, want, n), 0);
	free(buf);
}

/*
 * One cache for every shape and opcode: each packet is encoded as it comes
 * (a new addressing: rl_encode), then again with other transport fields and
 * payload behind the same headers (kept ones), then with one IP field changed.
 */
static void test_encode_cached_same_bytes(void)
{
	struct tl_rng r = { 0xcac4e };
	struct rl_encode_cache c;
	unsigned checked = 0;

	memset(&c, 0, sizeof(c));
	for (int shape = 0; shape < TL_SHAPE_COUNT; shape++) {
		for (int op = 0; op < 256; op++) {
			uint8_t payload[512], payload2[512];
			struct rl_pkt p, q;

			if (!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID))
				continue;
			tl_random_pkt(&r, (uint8_t)op, (enum tl_shape)shape, &p, payload);
			ep_cached_expect(&c, &p);
			do
				tl_random_pkt(&r, (uint8_t)tl_rand_below(&r, 256), (enum tl_shape)shape, &q, payload2);
			while (!(q.op->flags & RL_OPF_VALID));
			q.link = p.link, q.eth = p.eth, q.sll = p.sll, q.l3 = p.l3, q.roce = p.roce;
			q.ip4 = p.ip4, q.ip6 = p.ip6, q.udp = p.udp;
			ep_cached_expect(&c, &q);
			/* Ethernet with IPv4 or IPv6, tagged or not, is what the cache keeps. */
			CU_ASSERT_EQUAL(c.valid, shape <= TL_VLAN_V6);
			q.ip4.ttl ^= 1;
			q.ip6.hop_limit ^= 1;
			ep_cached_expect(&c, &q);
			checked++;
		}
	}
	CU_ASSERT(checked > 500);
}

int tl_suite_encode_path(void)
{
	CU_pSuite s = CU_add_suite("encode_path", NULL, NULL);

	return !s ||
	       !CU_add_test(s, "every opcode by path = the frame's bytes after UDP", test_encode_path_every_opcode) ||
	       !CU_add_test(s, "by path and back: the same path and fields", test_encode_path_round_trip) ||
	       !CU_add_test(s, "scapy's UC SEND by path: scapy's ICRC", test_encode_path_scapy) ||
	       !CU_add_test(s, "refused: arguments, payload, path", test_encode_path_refuses) ||
	       !CU_add_test(s, "rl_encode_cached: rl_encode's bytes, kept headers or not", test_encode_cached_same_bytes);
}
