/* SPDX-License-Identifier: MIT */
/*
 * Grades lab 14's coding exercise: the learner's lab_icrc() against the
 * core's ICRC (rl_icrc_compute, core/src/icrc.c) on random RoCEv2 packets
 * made by the core's encoder: SENDs, WRITEs, ACKs and UD SENDs of random
 * sizes. Six kinds of packet, each letting one variant field vary; a
 * kind scores when every packet of it is right, and the first wrong one is
 * described in words. Prints "score 14 icrc GOT/MAX" last.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "icrc.h"
#include "rocelab/rocelab.h"

#define CASES 2000

static uint64_t rng = 0x853c49e6748fea9bu;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 16) % n);
}

enum vary { V_NONE = 0, V_TOS = 1, V_TTL = 2, V_UDP = 4, V_BTH4 = 8, V_IP6 = 16 };

/*
 * A kind of packet lets one variant field vary and has every other variant
 * field at all ones already, so that a mask left out costs its own kind and
 * no other.
 */
struct kind {
	const char *name, *hint;
	unsigned vary;
	int failed;
};

static struct kind kinds[] = {
	{ "IPv4, every variant field already all ones",
	  "8 bytes of 0xff first, then the packet from the IP header up to the ICRC", V_NONE, 0 },
	{ "IPv4 with a random TOS (DSCP and ECN)", "the TOS byte (byte 1 of the IPv4 header) counts as all ones",
	  V_TOS, 0 },
	{ "IPv4 with a random TTL and header checksum",
	  "TTL (byte 8) and the header checksum (bytes 10-11) count as all ones", V_TTL, 0 },
	{ "IPv4 with a random UDP checksum", "the UDP checksum (bytes 6-7 of the UDP header) counts as all ones",
	  V_UDP, 0 },
	{ "IPv4 with FECN, BECN and the reserved bits of BTH byte 4 random",
	  "BTH byte 4, all of it, counts as all ones", V_BTH4, 0 },
	{ "IPv6 with a random traffic class, flow label and hop limit",
	  "the IPv6 header is 40 bytes (the UDP header and the BTH sit 20 bytes later than with IPv4); traffic class "
	  "and flow label are the 28 bits after the version nibble; the hop limit is byte 7",
	  V_IP6, 0 },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static const uint8_t opcodes[] = {
	RL_OP_RC_SEND_ONLY, RL_OP_RC_RDMA_WRITE_ONLY, RL_OP_RC_ACKNOWLEDGE, RL_OP_UD_SEND_ONLY,
};

/* Set the variant fields that @vary leaves alone to all ones, in the frame's bytes. */
static void ones(uint8_t *frame, const struct rl_pkt *dec, unsigned vary)
{
	uint8_t *ip = frame + dec->l3_off, *udp = frame + dec->l4_off, *bth = frame + dec->bth_off;

	if (dec->l3 == RL_L3_IPV4) {
		if (!(vary & V_TOS))
			ip[1] = 0xff;
		if (!(vary & V_TTL))
			ip[8] = ip[10] = ip[11] = 0xff;
	}   /* IPv6: the one kind over IPv6 varies its variant fields */
	if (!(vary & V_UDP))
		udp[6] = udp[7] = 0xff;
	if (!(vary & V_BTH4))
		bth[4] = 0xff;
}

/* A random packet of @k into @frame; its decoded form into @dec. Returns the frame length, 0 on failure. */
static size_t make(const struct kind *k, uint8_t *frame, size_t cap, struct rl_pkt *dec)
{
	static uint8_t payload[4096];
	struct rl_pkt p;
	size_t n = 0;

	rl_pkt_init(&p, opcodes[rnd(sizeof(opcodes))]);
	if (k->vary & V_IP6) {
		p.l3 = RL_L3_IPV6;
		memcpy(p.ip6.src, "\xfd\x90\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
		memcpy(p.ip6.dst, "\xfd\x90\0\0\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	}
	memcpy(p.ip4.src, "\x0a\x5a\x00\x01", 4);
	memcpy(p.ip4.dst, "\x0a\x5a\x00\x02", 4);
	p.ip4.id = (uint16_t)rnd(65536);
	p.udp.sport = (uint16_t)(0xc000 + rnd(0x4000));
	p.bth.dqpn = rnd(0x1000000);
	p.bth.psn = rnd(0x1000000);
	p.bth.ackreq = rnd(2);
	p.bth.se = rnd(2);
	if (k->vary & V_TOS) {
		p.ip4.dscp = (uint8_t)rnd(64);
		p.ip4.ecn = (uint8_t)rnd(4);
	}
	if (k->vary & V_TTL)
		p.ip4.ttl = (uint8_t)(1 + rnd(255));
	if (k->vary & V_UDP)
		p.udp.checksum = (uint16_t)(1 + rnd(65535));
	if (k->vary & V_BTH4) {
		p.bth.fecn = rnd(2);
		p.bth.becn = rnd(2);
		p.bth.resv6 = (uint8_t)rnd(64);
	}
	if (k->vary & V_IP6) {
		p.ip6.tclass = (uint8_t)rnd(256);
		p.ip6.flow_label = rnd(0x100000);
		p.ip6.hop_limit = (uint8_t)(1 + rnd(255));
	}
	p.reth.va = 0x10000000;
	p.reth.rkey = 0x1005a;
	p.deth.qkey = 0x11111111;
	p.deth.src_qp = 0x11;
	if (p.bth.opcode != RL_OP_RC_ACKNOWLEDGE) {   /* an ACK carries no payload */
		for (size_t i = 0; i < sizeof(payload); i++)
			payload[i] = (uint8_t)rnd(256);
		p.payload = payload;
		p.payload_len = rnd(1200);
		p.reth.dma_len = (uint32_t)p.payload_len;
	}
	if (rl_encode(&p, frame, cap, &n) != RL_OK || rl_decode(RL_LINK_ETHERNET, frame, n, dec) != RL_OK)
		return 0;
	ones(frame, dec, k->vary);
	return n;
}

/* The packet in words: what it is and its variant fields as they are in @frame. */
static void describe(const struct rl_pkt *p, const uint8_t *frame, char *s, size_t n)
{
	const uint8_t *ip = frame + p->l3_off, *udp = frame + p->l4_off, *bth = frame + p->bth_off;
	int w = snprintf(s, n, "%s, %zu payload bytes, ", p->op->name, p->payload_len);

	if (p->l3 == RL_L3_IPV4)
		w += snprintf(s + w, n - (size_t)w, "TOS 0x%02x, TTL %u, IP checksum 0x%02x%02x, ", ip[1], ip[8], ip[10],
			      ip[11]);
	else
		w += snprintf(s + w, n - (size_t)w, "traffic class 0x%x%x, flow label 0x%x%02x%02x, hop limit %u, ",
			      ip[0] & 0xf, ip[1] >> 4, ip[1] & 0xf, ip[2], ip[3], ip[7]);
	snprintf(s + w, n - (size_t)w, "UDP checksum 0x%02x%02x, BTH byte 4 0x%02x", udp[6], udp[7], bth[4]);
}

int main(void)
{
	static uint8_t frame[8192];
	struct rl_pkt dec;
	unsigned got = 0;
	char words[400];

	for (size_t k = 0; k < NKINDS; k++) {
		struct kind *kd = &kinds[k];

		for (int c = 0; c < CASES; c++) {
			size_t n = make(kd, frame, sizeof(frame), &dec);
			uint32_t want, have;

			if (!n) {
				printf("the checker could not make a packet: this is a bug in rocelab, not in your code\n");
				return 1;
			}
			want = rl_icrc_compute(&dec, frame);
			have = lab_icrc(frame + dec.l3_off, dec.icrc_off - dec.l3_off);
			if (want != have && !kd->failed++) {
				describe(&dec, frame, words, sizeof(words));
				printf("FAIL %s: a %s: you computed 0x%08x, the ICRC is 0x%08x (on the wire %02x %02x %02x %02x). "
				       "Look at this: %s\n",
				       kd->name, words, have, want, want & 0xff, want >> 8 & 0xff, want >> 16 & 0xff, want >> 24,
				       kd->hint);
			}
		}
		if (!kd->failed) {
			printf("PASS %s: right on all %d packets\n", kd->name, CASES);
			got++;
		}
	}
	printf("score 14 icrc %u/%zu\n", got, NKINDS);
	return 0;
}
