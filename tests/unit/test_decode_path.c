/* SPDX-License-Identifier: MIT */
/*
 * rl_decode_path(): a packet given as its path and BTH..ICRC is the packet
 * rl_decode() finds behind the IP and UDP headers the path stands for. Every
 * check runs both decoders over the same bytes (the path's headers from
 * rl_path_hdr() in front for rl_decode) and wants the same status, the same
 * error location and the same fields. Buffers are allocated to the exact
 * length so that AddressSanitizer reports a read past the end.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

struct dp_result {
	enum rl_status st;
	struct rl_pkt pkt;
	size_t bth;               /* where the BTH sits in the bytes that were decoded */
};

/* @len bytes of BTH..ICRC on @path, decoded both ways into @frame and @path_out. */
static void dp_decode_both(const struct rl_path *path, const uint8_t *bytes, size_t len,
			   struct dp_result *frame, struct dp_result *by_path)
{
	uint8_t *raw = malloc(RL_PATH_HDR_MAX + len), *copy = malloc(len ? len : 1);
	size_t h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(raw);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	h = rl_path_hdr(path, len, raw);
	CU_ASSERT_FATAL(h != 0);
	memcpy(raw + h, bytes, len);
	frame->st = rl_decode(RL_LINK_RAW, raw, h + len, &frame->pkt);
	frame->bth = h;
	memcpy(copy, bytes, len);
	by_path->st = rl_decode_path(path, copy, len, &by_path->pkt);
	by_path->bth = 0;
	/* The payload was read in place, from the caller's bytes. */
	if (!rl_status_fatal(by_path->st) && by_path->pkt.payload_len)
		CU_ASSERT_PTR_EQUAL(by_path->pkt.payload, copy + by_path->pkt.payload_off);
	/* Compared before the buffers go: the payloads point into them. */
	CU_ASSERT_EQUAL(frame->pkt.payload_len, by_path->pkt.payload_len);
	if (!rl_status_fatal(frame->st) && frame->pkt.payload_len == by_path->pkt.payload_len &&
	    frame->pkt.payload_len)
		CU_ASSERT_EQUAL(memcmp(frame->pkt.payload, by_path->pkt.payload, frame->pkt.payload_len), 0);
	frame->pkt.payload = by_path->pkt.payload = NULL;
	free(raw);
	free(copy);
}

/* The network layer both saw; the checksums only if both came from rl_path_hdr() (0). */
static void dp_same_network(const struct rl_pkt *a, const struct rl_pkt *b, bool checksums)
{
	CU_ASSERT_EQUAL(a->roce, b->roce);
	CU_ASSERT_EQUAL_FATAL(a->l3, b->l3);
	if (a->l3 == RL_L3_IPV4) {
		CU_ASSERT_EQUAL(a->ip4.ihl, b->ip4.ihl);
		CU_ASSERT_EQUAL(a->ip4.dscp, b->ip4.dscp);
		CU_ASSERT_EQUAL(a->ip4.ecn, b->ip4.ecn);
		CU_ASSERT_EQUAL(a->ip4.total_len, b->ip4.total_len);
		CU_ASSERT_EQUAL(a->ip4.id, b->ip4.id);
		CU_ASSERT_EQUAL(a->ip4.df, b->ip4.df);
		CU_ASSERT_EQUAL(a->ip4.mf, b->ip4.mf);
		CU_ASSERT_EQUAL(a->ip4.frag_off, b->ip4.frag_off);
		CU_ASSERT_EQUAL(a->ip4.ttl, b->ip4.ttl);
		CU_ASSERT_EQUAL(a->ip4.proto, b->ip4.proto);
		if (checksums)
			CU_ASSERT_EQUAL(a->ip4.checksum, b->ip4.checksum);
		CU_ASSERT_EQUAL(memcmp(a->ip4.src, b->ip4.src, 4), 0);
		CU_ASSERT_EQUAL(memcmp(a->ip4.dst, b->ip4.dst, 4), 0);
	} else {
		CU_ASSERT_EQUAL(a->ip6.tclass, b->ip6.tclass);
		CU_ASSERT_EQUAL(a->ip6.flow_label, b->ip6.flow_label);
		CU_ASSERT_EQUAL(a->ip6.payload_len, b->ip6.payload_len);
		CU_ASSERT_EQUAL(a->ip6.next_header, b->ip6.next_header);
		CU_ASSERT_EQUAL(a->ip6.hop_limit, b->ip6.hop_limit);
		CU_ASSERT_EQUAL(memcmp(a->ip6.src, b->ip6.src, 16), 0);
		CU_ASSERT_EQUAL(memcmp(a->ip6.dst, b->ip6.dst, 16), 0);
	}
	CU_ASSERT_EQUAL(a->udp.sport, b->udp.sport);
	CU_ASSERT_EQUAL(a->udp.dport, b->udp.dport);
	CU_ASSERT_EQUAL(a->udp.len, b->udp.len);
	if (checksums)
		CU_ASSERT_EQUAL(a->udp.checksum, b->udp.checksum);
}

/* Every transport field the field table knows, at the same offset from the BTH. */
static void dp_same_transport(const struct rl_pkt *a, const struct rl_pkt *b)
{
	struct rl_field_iter ia, ib;
	const struct rl_field *fa, *fb;

	CU_ASSERT_PTR_EQUAL_FATAL(a->op, b->op);
	CU_ASSERT_EQUAL(a->hdrs, b->hdrs);
	rl_field_iter_init(&ia, a);
	rl_field_iter_init(&ib, b);
	do {
		fa = rl_field_next(&ia);
		fb = rl_field_next(&ib);
		CU_ASSERT_PTR_EQUAL_FATAL(fa, fb);
		if (fa) {
			CU_ASSERT_EQUAL(ia.value, ib.value);
			CU_ASSERT_EQUAL(ia.off, ib.off);
		}
	} while (fa);
}

/* The same status, the same place for an error, and (when every header was read) the same packet. */
static void dp_agree(const struct dp_result *f, const struct dp_result *p)
{
	const struct rl_pkt *a = &f->pkt, *b = &p->pkt;

	CU_ASSERT_EQUAL_FATAL(f->st, p->st);
	CU_ASSERT_EQUAL(a->link, b->link);
	if (rl_status_fatal(f->st)) {
		CU_ASSERT_EQUAL(a->err_off - f->bth, b->err_off - p->bth);
		CU_ASSERT_EQUAL(a->err_need, b->err_need);
		CU_ASSERT_EQUAL(a->err_have, b->err_have);
		return;
	}
	dp_same_network(a, b, true);
	dp_same_transport(a, b);
	CU_ASSERT_EQUAL(a->bth_off - f->bth, b->bth_off - p->bth);
	CU_ASSERT_EQUAL(a->payload_off - f->bth, b->payload_off - p->bth);
	CU_ASSERT_EQUAL(a->icrc_off - f->bth, b->icrc_off - p->bth);
	CU_ASSERT_EQUAL(a->end_off - f->bth, b->end_off - p->bth);
	CU_ASSERT_EQUAL(a->frame_len - f->bth, b->frame_len - p->bth);
	CU_ASSERT_EQUAL(a->icrc, b->icrc);
	CU_ASSERT_EQUAL(a->icrc_expected, b->icrc_expected);
	CU_ASSERT_EQUAL(a->icrc_ok, b->icrc_ok);
}

/* Decode both ways, check they agree, and hand back the path decoder's status. */
static enum rl_status dp_check(const struct rl_path *path, const uint8_t *bytes, size_t len,
			       struct rl_pkt *out)
{
	struct dp_result f, p;

	dp_decode_both(path, bytes, len, &f, &p);
	dp_agree(&f, &p);
	if (out)
		*out = p.pkt;
	return p.st;
}

/* A random packet of @op (reserved ones too) as a path and BTH..ICRC; 0 if it could not be encoded. */
static size_t dp_random(struct tl_rng *r, uint8_t op, bool v6, struct rl_path *path, uint8_t *bytes,
			size_t cap, struct rl_pkt *orig)
{
	uint8_t payload[512], frame[1024];
	struct rl_pkt p;
	size_t n, len;

	tl_random_pkt(r, op, v6 ? TL_ETH_V6 : TL_ETH_V4, &p, payload);
	if (rl_encode(&p, frame, sizeof(frame), &n) != RL_OK)
		return 0;
	CU_ASSERT_FATAL(!rl_status_fatal(rl_decode(RL_LINK_ETHERNET, frame, n, orig)));
	CU_ASSERT_EQUAL_FATAL(rl_path_from_pkt(orig, path), 0);
	len = orig->end_off - orig->bth_off;
	CU_ASSERT_FATAL(len <= cap);
	memcpy(bytes, frame + orig->bth_off, len);
	orig->payload = NULL;
	return len;
}

/* Every valid opcode, IPv4 and IPv6: RL_OK, and the packet the Ethernet frame held. */
static void test_decode_path_every_opcode(void)
{
	struct tl_rng r = { 0xd1ce };
	unsigned checked = 0;

	for (int op = 0; op < 256; op++) {
		for (int v6 = 0; v6 < 2; v6++) {
			uint8_t bytes[1024];
			struct rl_pkt orig, d;
			struct rl_path path, back;
			size_t len;

			if (!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID))
				continue;
			len = dp_random(&r, (uint8_t)op, v6, &path, bytes, sizeof(bytes), &orig);
			if (!len)
				continue;
			CU_ASSERT_EQUAL(dp_check(&path, bytes, len, &d), RL_OK);
			CU_ASSERT_TRUE(d.icrc_ok);
			/* The frame's own network layer, but for its checksums (variant: the path has none). */
			dp_same_network(&orig, &d, false);
			dp_same_transport(&orig, &d);
			CU_ASSERT_EQUAL(d.icrc, orig.icrc);
			CU_ASSERT_EQUAL(d.bth_off, 0);
			CU_ASSERT_EQUAL(d.end_off, len);
			/* And the path it was given is the path it describes. */
			CU_ASSERT_EQUAL(rl_path_from_pkt(&d, &back), 0);
			CU_ASSERT_EQUAL(memcmp(&back, &path, sizeof(path)), 0);
			checked++;
		}
	}
	CU_ASSERT(checked > 100);
}

/* The ConnectX-4 CNP (testlib): its BTH..ICRC and its path. */
static size_t dp_cx4(struct rl_path *path, uint8_t *bth, size_t cap)
{
	uint8_t frame[128];
	size_t n = tl_hex(tl_cnp_cx4, frame, sizeof(frame));

	CU_ASSERT_EQUAL_FATAL(n, 14 + 60);
	CU_ASSERT_FATAL(n - TL_CNP_CX4_BTH <= cap);
	memcpy(bth, frame + TL_CNP_CX4_BTH, n - TL_CNP_CX4_BTH);
	tl_cnp_cx4_path(path);
	return n - TL_CNP_CX4_BTH;
}

/* The capture's fields, read by Wireshark: a CNP to QP 0x118 with BECN, DSCP 48, ECN 2. */
static void test_decode_path_cnp_capture(void)
{
	uint8_t bth[64];
	struct rl_path path;
	struct rl_pkt d;
	size_t len = dp_cx4(&path, bth, sizeof(bth));

	CU_ASSERT_EQUAL_FATAL(dp_check(&path, bth, len, &d), RL_OK);
	CU_ASSERT_EQUAL(d.bth.opcode, RL_OP_CNP);
	CU_ASSERT_EQUAL(d.bth.dqpn, 0x118);
	CU_ASSERT_TRUE(d.bth.becn);
	CU_ASSERT_EQUAL(d.bth.pkey, 0xffff);
	CU_ASSERT_EQUAL(d.l3, RL_L3_IPV4);
	CU_ASSERT_EQUAL(d.ip4.dscp, 48);
	CU_ASSERT_EQUAL(d.ip4.ecn, 2);
	CU_ASSERT_EQUAL(d.ip4.id, 0x718c);
	CU_ASSERT_EQUAL(d.ip4.total_len, 0x3c);
	CU_ASSERT_EQUAL(d.udp.len, 0x28);
	CU_ASSERT_EQUAL(d.udp.dport, 4791);
	CU_ASSERT_EQUAL(rl_icrc_display(d.icrc), 0x82fd002a);
	/* The 16 reserved bytes of a CNP (IBA A17.9.3) follow the BTH; nothing else does. */
	CU_ASSERT_EQUAL(d.payload_off, RL_BTH_LEN + 16);
	CU_ASSERT_EQUAL(d.payload_len, 0);
	/* A UDP socket's view (Identification 0) is not the packet the NIC protected. */
	path.ip_id = 0;
	CU_ASSERT_EQUAL(dp_check(&path, bth, len, &d), RL_E_ICRC);
	CU_ASSERT_FALSE(d.icrc_ok);
}

/* Fewer than the BTH's 12 bytes: truncated-bth, needing 12 and having what there is. */
static void test_decode_path_truncated_bth(void)
{
	uint8_t bth[64];
	struct rl_path path;
	struct rl_pkt d;
	size_t len = dp_cx4(&path, bth, sizeof(bth));

	for (size_t cut = 0; cut < RL_BTH_LEN; cut++) {
		CU_ASSERT_EQUAL(dp_check(&path, bth, cut, &d), RL_E_TRUNC_BTH);
		CU_ASSERT_EQUAL(d.err_off, 0);
		CU_ASSERT_EQUAL(d.err_need, RL_BTH_LEN);
		CU_ASSERT_EQUAL(d.err_have, cut);
	}
	/* A BTH, then part of the CNP's 16 reserved bytes, then part of the ICRC. */
	CU_ASSERT_EQUAL(dp_check(&path, bth, RL_BTH_LEN + 3, &d), RL_E_MISSING_HDR);
	CU_ASSERT_EQUAL(d.err_off, RL_BTH_LEN);
	CU_ASSERT_EQUAL(d.err_need, 16);
	CU_ASSERT_EQUAL(d.err_have, 3);
	CU_ASSERT_EQUAL(dp_check(&path, bth, RL_BTH_LEN + 16 + 2, &d), RL_E_TRUNC_ICRC);
	/* Every cut of every opcode's packet agrees with the frame decoder and is fatal, or an ICRC error. */
	{
		struct tl_rng r = { 0x5eed };

		for (int op = 0; op < 256; op++) {
			uint8_t bytes[1024];
			struct rl_pkt orig;

			len = dp_random(&r, (uint8_t)op, op & 1, &path, bytes, sizeof(bytes), &orig);
			for (size_t cut = 0; cut < len && cut < 120; cut++) {
				enum rl_status st = dp_check(&path, bytes, cut, NULL);

				CU_ASSERT(rl_status_fatal(st) || st == RL_E_ICRC || st == RL_E_UNKNOWN_OPCODE);
			}
		}
	}
}

/* scapy's UC SEND Only (roce.uts), its ICRC damaged: icrc-mismatch, with scapy's value expected. */
static void test_decode_path_bad_icrc(void)
{
	uint8_t frame[160], ip[4];
	struct rl_path path;
	struct rl_pkt p, d;
	size_t n, len;
	uint8_t *bth;

	tl_scapy_uc_send(&p, false);
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, frame, sizeof(frame), &n), RL_OK);
	bth = frame + 14 + 20 + 8;
	len = n - (14 + 20 + 8);

	memset(&path, 0, sizeof(path));
	inet_pton(AF_INET, "192.168.0.7", ip);
	rl_gid_from_ipv4(path.sgid, ip);
	rl_gid_from_ipv4(path.dgid, ip);
	path.traffic_class = 1;
	path.hop_limit = 64;
	path.ip_id = 1144;
	path.ip_df = true;
	path.udp_sport = 49152;
	CU_ASSERT_EQUAL_FATAL(dp_check(&path, bth, len, &d), RL_OK);
	CU_ASSERT_EQUAL(rl_icrc_display(d.icrc), 0x78f353f3);

	/* Each ICRC byte, then a payload byte: the same status as the frame's, the same expected value. */
	for (size_t i = len - RL_ICRC_LEN; i <= len; i++) {
		size_t at = i < len ? i : RL_BTH_LEN + 3;

		bth[at] ^= 0x10;
		CU_ASSERT_EQUAL(dp_check(&path, bth, len, &d), RL_E_ICRC);
		CU_ASSERT_FALSE(d.icrc_ok);
		CU_ASSERT_EQUAL(d.err_off, len - RL_ICRC_LEN);
		if (i < len)
			CU_ASSERT_EQUAL(rl_icrc_display(d.icrc_expected), 0x78f353f3);
		bth[at] ^= 0x10;
	}
	/* The variant fields do not count (IBA A17.3.3): TOS, TTL, and FECN/BECN in the BTH ... */
	path.traffic_class = 0xc3;
	path.hop_limit = 3;
	bth[4] ^= 0xc0;
	CU_ASSERT_EQUAL(dp_check(&path, bth, len, &d), RL_OK);
	CU_ASSERT_EQUAL(d.ip4.ecn, 3);
	CU_ASSERT_TRUE(d.bth.fecn);
	/* ... the source port, the Identification and DF do. */
	path.udp_sport++;
	CU_ASSERT_EQUAL(dp_check(&path, bth, len, NULL), RL_E_ICRC);
	path.udp_sport--;
	path.ip_id++;
	CU_ASSERT_EQUAL(dp_check(&path, bth, len, NULL), RL_E_ICRC);
	path.ip_id--;
	path.ip_df = false;
	CU_ASSERT_EQUAL(dp_check(&path, bth, len, NULL), RL_E_ICRC);
}

/* A reserved opcode: unknown-opcode (not fatal), whatever the ICRC, as the frame decoder says. */
static void test_decode_path_unknown_opcode(void)
{
	uint8_t bth[64];
	struct rl_path path;
	struct rl_pkt d;
	size_t len = dp_cx4(&path, bth, sizeof(bth));
	unsigned reserved = 0;

	for (int op = 0; op < 256; op++) {
		uint32_t icrc;

		if (rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID)
			continue;
		bth[0] = (uint8_t)op;
		CU_ASSERT_EQUAL(dp_check(&path, bth, len, &d), RL_E_UNKNOWN_OPCODE);
		CU_ASSERT_EQUAL(d.bth.opcode, op);
		CU_ASSERT_FALSE(d.icrc_ok);
		CU_ASSERT_EQUAL(d.err_off, 0);
		/* With the ICRC the path gives it, still unknown, but intact. */
		icrc = rl_icrc_path(&path, bth, len);
		for (int i = 0; i < 4; i++)
			bth[len - 4 + (size_t)i] = (uint8_t)(icrc >> (8 * i));
		CU_ASSERT_EQUAL(dp_check(&path, bth, len, &d), RL_E_UNKNOWN_OPCODE);
		CU_ASSERT_TRUE(d.icrc_ok);
		reserved++;
	}
	CU_ASSERT(reserved > 64);
}

/* Random damage to BTH..ICRC (TVer, pad, lengths, opcodes): the two decoders never disagree. */
static void test_decode_path_damage_agrees(void)
{
	struct tl_rng r = { 0xbadd };
	unsigned by_status[RL_STATUS_COUNT] = { 0 };

	for (int k = 0; k < 3000; k++) {
		uint8_t bytes[1024];
		struct rl_path path;
		struct rl_pkt orig;
		size_t len = dp_random(&r, (uint8_t)tl_rand_below(&r, 256), tl_rand_below(&r, 2), &path, bytes,
				       sizeof(bytes), &orig);
		int flips;

		if (!len)
			continue;   /* nothing was encoded (a reserved opcode): no path either */
		flips = (int)tl_rand_below(&r, 3);
		for (int i = 0; i < flips && len; i++)
			bytes[tl_rand_below(&r, (uint32_t)(len < 40 ? len : 40))] ^= (uint8_t)(1u << tl_rand_below(&r, 8));
		if (tl_rand_below(&r, 3) == 0 && len)
			len = tl_rand_below(&r, (uint32_t)len);
		by_status[dp_check(&path, bytes, len, NULL)]++;
	}
	CU_ASSERT(by_status[RL_OK] > 0);
	CU_ASSERT(by_status[RL_E_ICRC] > 0);
	CU_ASSERT(by_status[RL_E_TVER] > 0);
	CU_ASSERT(by_status[RL_E_TRUNC_ICRC] + by_status[RL_E_MISSING_HDR] + by_status[RL_E_PAYLOAD_LEN] > 0);
}

/* A path no IP packet could take, or no arguments: bad-argument, nothing read. */
static void test_decode_path_bad_path(void)
{
	uint8_t bth[64];
	struct rl_path path;
	struct rl_pkt d;
	size_t len = dp_cx4(&path, bth, sizeof(bth));

	inet_pton(AF_INET6, "fd00::1", path.sgid);
	CU_ASSERT_EQUAL(rl_decode_path(&path, bth, len, &d), RL_E_ARG);
	dp_cx4(&path, bth, sizeof(bth));
	CU_ASSERT_EQUAL(rl_decode_path(&path, bth, 0xffff - 28 + 1, &d), RL_E_ARG);
	CU_ASSERT_EQUAL(rl_decode_path(NULL, bth, len, &d), RL_E_ARG);
	CU_ASSERT_EQUAL(rl_decode_path(&path, NULL, len, &d), RL_E_ARG);
	CU_ASSERT_EQUAL(rl_decode_path(&path, bth, len, NULL), RL_E_ARG);
	CU_ASSERT_EQUAL(rl_decode_path(&path, bth, len, &d), RL_OK);
}

int tl_suite_decode_path(void)
{
	CU_pSuite s = CU_add_suite("decode_path", NULL, NULL);

	return !s || !CU_add_test(s, "every opcode by path = the frame's packet", test_decode_path_every_opcode) ||
	       !CU_add_test(s, "ConnectX CNP by path: Wireshark's fields", test_decode_path_cnp_capture) ||
	       !CU_add_test(s, "truncated BTH and every cut: the frame's status", test_decode_path_truncated_bth) ||
	       !CU_add_test(s, "bad ICRC: the frame's status, scapy's value", test_decode_path_bad_icrc) ||
	       !CU_add_test(s, "unknown opcode: the frame's status", test_decode_path_unknown_opcode) ||
	       !CU_add_test(s, "random damage: both decoders agree", test_decode_path_damage_agrees) ||
	       !CU_add_test(s, "a path of two families: bad-argument", test_decode_path_bad_path);
}
