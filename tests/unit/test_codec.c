/* SPDX-License-Identifier: MIT */
/* Encode -> decode round trips over every opcode, frame shape and random field values. */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define ROUNDS 40

/* Compare what the encoder was given with what the decoder found. */
static void check_same(const struct rl_pkt *in, const struct rl_pkt *out)
{
	uint32_t m = in->op->hdrs;

	CU_ASSERT_EQUAL(out->l3, in->l3);
	CU_ASSERT_EQUAL(out->roce, in->roce);
	if (in->link == RL_LINK_ETHERNET) {
		CU_ASSERT_EQUAL(memcmp(out->eth.dst, in->eth.dst, 6), 0);
		CU_ASSERT_EQUAL(memcmp(out->eth.src, in->eth.src, 6), 0);
		CU_ASSERT_EQUAL(out->eth.has_vlan, in->eth.has_vlan);
		if (in->eth.has_vlan) {
			CU_ASSERT_EQUAL(out->eth.vlan_id, in->eth.vlan_id);
			CU_ASSERT_EQUAL(out->eth.vlan_pcp, in->eth.vlan_pcp);
			CU_ASSERT_EQUAL(out->eth.vlan_dei, in->eth.vlan_dei);
		}
	}
	if (in->link == RL_LINK_LINUX_SLL || in->link == RL_LINK_LINUX_SLL2) {
		CU_ASSERT_EQUAL(out->sll.pkttype, in->sll.pkttype);
		CU_ASSERT_EQUAL(memcmp(out->sll.addr, in->sll.addr, 6), 0);
		if (in->link == RL_LINK_LINUX_SLL2)
			CU_ASSERT_EQUAL(out->sll.ifindex, in->sll.ifindex);
	}
	if (in->l3 == RL_L3_IPV4) {
		CU_ASSERT_EQUAL(out->ip4.dscp, in->ip4.dscp);
		CU_ASSERT_EQUAL(out->ip4.ecn, in->ip4.ecn);
		CU_ASSERT_EQUAL(out->ip4.id, in->ip4.id);
		CU_ASSERT_EQUAL(out->ip4.df, in->ip4.df);
		CU_ASSERT_EQUAL(out->ip4.ttl, in->ip4.ttl);
		CU_ASSERT_EQUAL(memcmp(out->ip4.src, in->ip4.src, 4), 0);
		CU_ASSERT_EQUAL(memcmp(out->ip4.dst, in->ip4.dst, 4), 0);
	} else {
		CU_ASSERT_EQUAL(out->ip6.tclass, in->ip6.tclass);
		CU_ASSERT_EQUAL(out->ip6.flow_label, in->ip6.flow_label);
		CU_ASSERT_EQUAL(out->ip6.hop_limit, in->ip6.hop_limit);
		CU_ASSERT_EQUAL(memcmp(out->ip6.src, in->ip6.src, 16), 0);
		CU_ASSERT_EQUAL(memcmp(out->ip6.dst, in->ip6.dst, 16), 0);
	}
	if (in->l3 != RL_L3_GRH) {
		CU_ASSERT_EQUAL(out->udp.sport, in->udp.sport);
		CU_ASSERT_EQUAL(out->udp.dport, RL_ROCEV2_UDP_PORT);
		CU_ASSERT_EQUAL(out->udp.checksum, in->udp.checksum);
	}
	CU_ASSERT_EQUAL(out->bth.opcode, in->bth.opcode);
	CU_ASSERT_EQUAL(out->bth.se, in->bth.se);
	CU_ASSERT_EQUAL(out->bth.migreq, in->bth.migreq);
	CU_ASSERT_EQUAL(out->bth.padcnt, (4 - in->payload_len % 4) % 4);
	CU_ASSERT_EQUAL(out->bth.tver, 0);
	CU_ASSERT_EQUAL(out->bth.pkey, in->bth.pkey);
	CU_ASSERT_EQUAL(out->bth.fecn, in->bth.fecn);
	CU_ASSERT_EQUAL(out->bth.becn, in->bth.becn);
	CU_ASSERT_EQUAL(out->bth.dqpn, in->bth.dqpn);
	CU_ASSERT_EQUAL(out->bth.ackreq, in->bth.ackreq);
	CU_ASSERT_EQUAL(out->bth.psn, in->bth.psn);
	CU_ASSERT_EQUAL(out->hdrs, m);
	if (m & RL_HDR_RDETH)
		CU_ASSERT_EQUAL(out->rdeth_eecnxt, in->rdeth_eecnxt);
	if (m & RL_HDR_DETH) {
		CU_ASSERT_EQUAL(out->deth.qkey, in->deth.qkey);
		CU_ASSERT_EQUAL(out->deth.src_qp, in->deth.src_qp);
	}
	if (m & RL_HDR_XRCETH)
		CU_ASSERT_EQUAL(out->xrc_srq, in->xrc_srq);
	if (m & RL_HDR_FETH) {
		CU_ASSERT_EQUAL(out->feth.sel, in->feth.sel);
		CU_ASSERT_EQUAL(out->feth.plt, in->feth.plt);
	}
	if (m & RL_HDR_RETH) {
		CU_ASSERT_EQUAL(out->reth.va, in->reth.va);
		CU_ASSERT_EQUAL(out->reth.rkey, in->reth.rkey);
		CU_ASSERT_EQUAL(out->reth.dma_len, in->reth.dma_len);
	}
	if (m & RL_HDR_ATOMICETH) {
		CU_ASSERT_EQUAL(out->atomiceth.va, in->atomiceth.va);
		CU_ASSERT_EQUAL(out->atomiceth.rkey, in->atomiceth.rkey);
		CU_ASSERT_EQUAL(out->atomiceth.swap_add, in->atomiceth.swap_add);
		CU_ASSERT_EQUAL(out->atomiceth.compare, in->atomiceth.compare);
	}
	if (m & RL_HDR_AETH) {
		CU_ASSERT_EQUAL(out->aeth.syndrome, in->aeth.syndrome);
		CU_ASSERT_EQUAL(out->aeth.msn, in->aeth.msn);
	}
	if (m & RL_HDR_ATOMICACKETH)
		CU_ASSERT_EQUAL(out->atomicack_orig, in->atomicack_orig);
	if (m & RL_HDR_IMMDT)
		CU_ASSERT_EQUAL(out->immdt, in->immdt);
	if (m & RL_HDR_IETH)
		CU_ASSERT_EQUAL(out->ieth_rkey, in->ieth_rkey);
	CU_ASSERT_EQUAL_FATAL(out->payload_len, in->payload_len);
	CU_ASSERT_EQUAL(memcmp(out->payload, in->payload, in->payload_len), 0);
	CU_ASSERT_TRUE(out->icrc_ok);
}

/* Every opcode (reserved ones too), every frame shape, ROUNDS random field sets. */
static void test_round_trip_all(void)
{
	struct tl_rng r = { 0x5eed0001 };
	uint8_t payload[512];
	size_t frames = 0;

	for (int op = 0; op < 256; op++) {
		for (int shape = 0; shape < TL_SHAPE_COUNT; shape++) {
			for (int k = 0; k < ROUNDS; k++) {
				struct rl_pkt in, out;
				uint8_t *buf;
				size_t n;
				enum rl_status st, want;

				tl_random_pkt(&r, (uint8_t)op, (enum tl_shape)shape, &in, payload);
				n = rl_encoded_len(&in);
				buf = malloc(n);   /* exact size: ASan sees any over-read */
				CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
				CU_ASSERT_EQUAL_FATAL(rl_encode(&in, buf, n, &n), RL_OK);
				st = rl_decode(in.link, buf, n, &out);
				want = (in.op->flags & RL_OPF_VALID) ? RL_OK : RL_E_UNKNOWN_OPCODE;
				CU_ASSERT_EQUAL(st, want);
				if (st == want)
					check_same(&in, &out);
				free(buf);
				frames++;
			}
		}
	}
	CU_ASSERT_EQUAL(frames, 256u * TL_SHAPE_COUNT * ROUNDS);
}

static void test_encode_rejects(void)
{
	struct rl_pkt p;
	uint8_t buf[64];
	size_t n;

	rl_pkt_init(&p, RL_OP_RC_SEND_ONLY);
	CU_ASSERT_EQUAL(rl_encode(&p, buf, 10, &n), RL_E_NOSPACE);
	p.payload_len = 4;
	p.payload = NULL;
	CU_ASSERT_EQUAL(rl_encode(&p, buf, sizeof(buf), &n), RL_E_ARG);
	rl_pkt_init(&p, RL_OP_RC_SEND_ONLY);
	p.l3 = RL_L3_GRH;
	p.link = RL_LINK_RAW;   /* RoCEv1 needs a link layer that carries ethertype 0x8915 */
	CU_ASSERT_EQUAL(rl_encode(&p, buf, sizeof(buf), &n), RL_E_ARG);
}

/* Ethernet minimum-size padding after the IP packet is not RoCE payload. */
static void test_ethernet_trailer_ignored(void)
{
	struct rl_pkt p, d;
	uint8_t buf[128];
	size_t n;

	rl_pkt_init(&p, RL_OP_RC_ACKNOWLEDGE);   /* RC Acknowledge: 62 bytes, padded to 64 on a wire */
	p.aeth.msn = 7;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, sizeof(buf), &n), RL_OK);
	memset(buf + n, 0, 6);
	CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, buf, n + 6, &d), RL_OK);
	CU_ASSERT_EQUAL(d.aeth.msn, 7);
	CU_ASSERT_EQUAL(d.end_off, n);
}

static void test_not_roce(void)
{
	struct rl_pkt p, d;
	uint8_t buf[128];
	size_t n;

	rl_pkt_init(&p, RL_OP_RC_SEND_ONLY);
	p.udp.dport = 53;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, sizeof(buf), &n), RL_OK);
	CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, buf, n, &d), RL_NOT_ROCE);
	buf[12] = 0x08;
	buf[13] = 0x06;          /* ARP */
	CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, buf, n, &d), RL_NOT_ROCE);
	CU_ASSERT_EQUAL(rl_decode((enum rl_link)147, buf, n, &d), RL_E_ARG);
	CU_ASSERT_FALSE(rl_link_supported(147));
	CU_ASSERT_TRUE(rl_link_supported(12));
}

int tl_suite_codec(void)
{
	CU_pSuite s = CU_add_suite("codec", NULL, NULL);

	return !s || !CU_add_test(s, "round trip: 256 opcodes x 9 framings x 40 seeds", test_round_trip_all) ||
	       !CU_add_test(s, "encoder rejects bad arguments", test_encode_rejects) ||
	       !CU_add_test(s, "Ethernet trailer is not payload", test_ethernet_trailer_ignored) ||
	       !CU_add_test(s, "non-RoCE traffic is skipped", test_not_roce);
}
