/* SPDX-License-Identifier: MIT */
/*
 * Seed corpus for fuzz_decode: one well-formed packet per opcode (all 256
 * values, reserved ones included) and per framing, written by rl_encode(),
 * and one CM MAD per CM message on QP1 (the analyzer's CM side: the REQ and
 * REP name QP 0x11, the QP the other seeds send to).
 * Each file is the selector byte of fz_link.h followed by the frame.
 *
 *   mkseeds DIR      writes DIR/<framing>-<opcode in hex> and DIR/cm-<attribute in hex>
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rocelab/rocelab.h"
#include "fz_link.h"

struct fz_framing {
	const char *name;
	enum fz_mode mode;	/* selector byte */
	enum rl_link link;	/* what the encoder writes */
	enum rl_l3 l3;
	bool vlan;
	size_t strip;		/* bytes of link header to drop after encoding */
};

static const struct fz_framing fz_framings[] = {
	{ "eth-ipv4", FZ_MODE_ETHERNET, RL_LINK_ETHERNET, RL_L3_IPV4, false, 0 },
	{ "eth-vlan-ipv6", FZ_MODE_ETHERNET, RL_LINK_ETHERNET, RL_L3_IPV6, true, 0 },
	{ "sll-ipv4", FZ_MODE_SLL, RL_LINK_LINUX_SLL, RL_L3_IPV4, false, 0 },
	{ "sll2-ipv6", FZ_MODE_SLL2, RL_LINK_LINUX_SLL2, RL_L3_IPV6, false, 0 },
	{ "raw-ipv6", FZ_MODE_RAW, RL_LINK_RAW, RL_L3_IPV6, false, 0 },
	{ "eth-rocev1", FZ_MODE_ETHERNET, RL_LINK_ETHERNET, RL_L3_GRH, false, 0 },
	/* The same RoCEv1 frame without its Ethernet header, for rl_decode_l3(grh). */
	{ "grh", FZ_MODE_L3_GRH, RL_LINK_ETHERNET, RL_L3_GRH, false, 14 },
};

#define FZ_FRAME_MAX 256

static const uint8_t fz_mac_dst[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t fz_mac_src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t fz_ip4_src[4] = { 192, 0, 2, 1 };
static const uint8_t fz_ip4_dst[4] = { 192, 0, 2, 2 };
static const uint8_t fz_ip6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t fz_ip6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* Payload length: what the opcode mandates, else 13 bytes (pad 3) where pad is allowed. */
static size_t fz_payload_len(const struct rl_opcode_info *op)
{
	if (!(op->flags & RL_OPF_PAYLOAD))
		return 0;
	if (op->fixed_payload)
		return op->fixed_payload;
	return (op->flags & RL_OPF_LAST) ? 13 : 16;
}

static void fz_fill(struct rl_pkt *pkt, const struct fz_framing *f, uint8_t opcode,
		    const uint8_t *payload)
{
	rl_pkt_init(pkt, opcode);
	pkt->link = f->link;
	pkt->l3 = f->l3;
	pkt->roce = f->l3 == RL_L3_GRH ? RL_ROCE_V1 : RL_ROCE_V2;

	memcpy(pkt->eth.dst, fz_mac_dst, 6);
	memcpy(pkt->eth.src, fz_mac_src, 6);
	pkt->eth.has_vlan = f->vlan;
	pkt->eth.vlan_pcp = 3;
	pkt->eth.vlan_id = 100;
	memcpy(pkt->sll.addr, fz_mac_src, 6);
	pkt->sll.ifindex = 2;

	pkt->ip4.dscp = 26;
	pkt->ip4.ecn = 1;
	pkt->ip4.id = 0x1234;
	memcpy(pkt->ip4.src, fz_ip4_src, 4);
	memcpy(pkt->ip4.dst, fz_ip4_dst, 4);
	pkt->ip6.tclass = 26 << 2 | 1;
	pkt->ip6.flow_label = 0x12345;
	memcpy(pkt->ip6.src, fz_ip6_src, 16);
	memcpy(pkt->ip6.dst, fz_ip6_dst, 16);

	pkt->bth.ackreq = (pkt->op->flags & RL_OPF_REQ) != 0;
	pkt->bth.se = (pkt->op->flags & RL_OPF_LAST) != 0;
	pkt->bth.dqpn = 0x000011;
	pkt->bth.psn = 0x123456;

	pkt->rdeth_eecnxt = 0x33;
	pkt->deth.qkey = 0x11111111;
	pkt->deth.src_qp = 0x22;
	pkt->xrc_srq = 0x44;
	pkt->feth.sel = 1;
	pkt->feth.plt = 1;
	pkt->reth.va = 0x7f0000001000;
	pkt->reth.rkey = 0x1234;
	pkt->reth.dma_len = 64;
	pkt->atomiceth.va = 0x7f0000002000;
	pkt->atomiceth.rkey = 0x5678;
	pkt->atomiceth.swap_add = 1;
	pkt->atomiceth.compare = 2;
	pkt->aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, RL_AETH_CREDITS_INVALID);
	pkt->aeth.msn = 7;
	pkt->atomicack_orig = 3;
	pkt->immdt = 0xcafe;
	pkt->ieth_rkey = 0x9abc;

	pkt->payload = payload;
	pkt->payload_len = fz_payload_len(pkt->op);
}

static int fz_write(const char *dir, const struct fz_framing *f, unsigned opcode)
{
	uint8_t payload[64], frame[1 + FZ_FRAME_MAX];
	char path[4096];
	struct rl_pkt pkt;
	enum rl_status st;
	size_t len;
	FILE *fp;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(opcode + i);
	fz_fill(&pkt, f, (uint8_t)opcode, payload);
	st = rl_encode(&pkt, frame + 1, sizeof(frame) - 1, &len);
	if (st != RL_OK || len < f->strip) {
		fprintf(stderr, "mkseeds: %s opcode 0x%02x: %s\n", f->name, opcode, rl_status_name(st));
		return -1;
	}
	frame[0] = (uint8_t)f->mode;
	memmove(frame + 1, frame + 1 + f->strip, len - f->strip);
	len = 1 + len - f->strip;

	snprintf(path, sizeof(path), "%s/%s-%02x", dir, f->name, opcode);
	fp = fopen(path, "wb");
	if (!fp || fwrite(frame, 1, len, fp) != len || fclose(fp) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

/* One CM message (IBA 12.6) as a UD SEND Only to QP1 with the GSI's Q_Key, over Ethernet and IPv4. */
static int fz_write_cm(const char *dir, uint16_t attr)
{
	uint8_t mad[RL_MAD_LEN], frame[1 + 2 * RL_MAD_LEN];
	const bool passive = attr == RL_CM_REP || attr == RL_CM_MRA || attr == RL_CM_REJ || attr == RL_CM_APR ||
			     attr == RL_CM_DREP || attr == RL_CM_SIDR_REP;
	char path[4096];
	struct rl_pkt pkt;
	struct rl_cm cm;
	size_t len;
	FILE *fp;

	rl_cm_init(&cm, attr, 0x1234);
	/* Byte 0 of every message: the sender's communication ID, or the SIDR request ID (the same both ways). */
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_COMM_ID, passive && attr != RL_CM_SIDR_REP ? 0xb0b0b0b0 : 0xa0a0a0a0);
	if (attr != RL_CM_REQ && attr != RL_CM_SIDR_REQ && attr != RL_CM_SIDR_REP)
		rl_cm_set(&cm, RL_CMF_REP_REMOTE_COMM_ID, passive ? 0xa0a0a0a0 : 0xb0b0b0b0);
	if (attr == RL_CM_REQ) {
		rl_cm_set(&cm, RL_CMF_REQ_LOCAL_QPN, 0x11);
		rl_cm_set(&cm, RL_CMF_REQ_STARTING_PSN, 0x123456);
	} else if (attr == RL_CM_REP) {
		rl_cm_set(&cm, RL_CMF_REP_LOCAL_QPN, 0x11);
		rl_cm_set(&cm, RL_CMF_REP_STARTING_PSN, 0x123456);
	}
	if (rl_cm_encode(&cm, mad, sizeof(mad), &len) != RL_OK)
		return -1;
	fz_fill(&pkt, &fz_framings[0], RL_OP_UD_SEND_ONLY, mad);
	if (passive) {
		memcpy(pkt.ip4.src, fz_ip4_dst, 4);
		memcpy(pkt.ip4.dst, fz_ip4_src, 4);
	}
	pkt.bth.dqpn = RL_GSI_QPN;
	pkt.deth.qkey = RL_GSI_QKEY;
	pkt.deth.src_qp = RL_GSI_QPN;
	pkt.payload_len = len;
	if (rl_encode(&pkt, frame + 1, sizeof(frame) - 1, &len) != RL_OK)
		return -1;
	frame[0] = (uint8_t)fz_framings[0].mode;
	snprintf(path, sizeof(path), "%s/cm-%04x", dir, attr);
	fp = fopen(path, "wb");
	if (!fp || fwrite(frame, 1, len + 1, fp) != len + 1 || fclose(fp) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t nf = sizeof(fz_framings) / sizeof(fz_framings[0]);
	unsigned n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < nf; i++) {
		for (unsigned op = 0; op < 256; op++) {
			if (fz_write(argv[1], &fz_framings[i], op))
				return 1;
			n++;
		}
	}
	for (uint16_t attr = RL_CM_REQ; attr <= RL_CM_APR; attr++) {
		if (fz_write_cm(argv[1], attr)) {
			fprintf(stderr, "mkseeds: CM attribute 0x%04x: cannot encode\n", attr);
			return 1;
		}
		n++;
	}
	printf("mkseeds: %u seeds (%zu framings x 256 opcodes, %d CM messages) in %s\n", n, nf,
	       RL_CM_APR - RL_CM_REQ + 1, argv[1]);
	return 0;
}
