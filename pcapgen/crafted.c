/* SPDX-License-Identifier: MIT */
/*
 * Scenarios crafted packet by packet with the codec, no transport: every
 * opcode of the IB spec (the input of the oracle tests) and a gallery of
 * malformed packets, each a different decode error.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Crafted frames are 1 us apart, plus the time a 25 Gb/s link takes to send each. */
struct gen_clock {
	struct gen_out *out;
	uint64_t t_ns;
};

static void gen_write(struct gen_clock *c, const uint8_t *frame, size_t len)
{
	gen_out_frame(c->out, c->t_ns, c->t_ns, frame, len, false);
	c->t_ns += 1000 + len * 8 / 25;
}

static void gen_emit(struct gen_clock *c, const struct rl_pkt *p)
{
	uint8_t frame[9100];
	size_t n;

	if (rl_encode(p, frame, sizeof(frame), &n) != RL_OK) {
		c->out->err = 1;
		return;
	}
	gen_write(c, frame, n);
}

/* A packet from side @from to the other side's QP (any VLAN tag is added on output). */
static void gen_pkt(struct rl_pkt *p, const struct gen_opts *o, bool ipv6, uint8_t opcode, int from)
{
	int to = !from;

	rl_pkt_init(p, opcode);
	memcpy(p->eth.src, o->mac[from], 6);
	memcpy(p->eth.dst, o->mac[to], 6);
	if (ipv6) {
		p->l3 = RL_L3_IPV6;
		memcpy(p->ip6.src, o->ip6[from], 16);
		memcpy(p->ip6.dst, o->ip6[to], 16);
		p->ip6.tclass = 26 << 2 | 2;  /* DSCP 26, ECT(0), as RoCE deployments mark */
	} else {
		memcpy(p->ip4.src, o->ip4[from], 4);
		memcpy(p->ip4.dst, o->ip4[to], 4);
		p->ip4.dscp = 26;
		p->ip4.ecn = 2;
	}
	p->udp.sport = (uint16_t)(0xc000 | ((o->qpn[from] * 0x9e37u) & 0x3fff));
	p->bth.dqpn = o->qpn[to];
}

uint64_t gen_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Random field values for @p's opcode, from a seeded generator. */
static void gen_randomize(struct rl_pkt *p, uint64_t *s, uint8_t *payload)
{
	const struct rl_opcode_info *op = p->op;

	p->bth.se = gen_rand(s) & 1;
	p->bth.migreq = gen_rand(s) & 1;
	p->bth.pkey = (uint16_t)gen_rand(s);
	p->bth.becn = p->bth.opcode == RL_OP_CNP || (gen_rand(s) & 1);
	p->bth.dqpn = (uint32_t)gen_rand(s) & 0xffffff;
	p->bth.ackreq = gen_rand(s) & 1;
	p->bth.psn = (uint32_t)gen_rand(s) & 0xffffff;
	p->rdeth_eecnxt = (uint32_t)gen_rand(s) & 0xffffff;
	p->deth.qkey = (uint32_t)gen_rand(s);
	p->deth.src_qp = (uint32_t)gen_rand(s) & 0xffffff;
	p->xrc_srq = (uint32_t)gen_rand(s) & 0xffffff;
	p->feth.sel = (uint8_t)(gen_rand(s) & 3);
	p->feth.plt = (uint8_t)(gen_rand(s) & 15);
	p->reth = (struct rl_reth){ gen_rand(s), (uint32_t)gen_rand(s), (uint32_t)gen_rand(s) };
	p->atomiceth = (struct rl_atomiceth){ gen_rand(s), (uint32_t)gen_rand(s), gen_rand(s), gen_rand(s) };
	p->aeth.syndrome = (uint8_t)(gen_rand(s) & 0x7f);
	p->aeth.msn = (uint32_t)gen_rand(s) & 0xffffff;
	p->atomicack_orig = gen_rand(s);
	p->immdt = (uint32_t)gen_rand(s);
	p->ieth_rkey = (uint32_t)gen_rand(s);
	p->udp.sport = (uint16_t)(0xc000 | (gen_rand(s) & 0x3fff));
	p->payload = payload;
	if (op->fixed_payload)
		p->payload_len = op->fixed_payload;
	else if (!(op->flags & RL_OPF_PAYLOAD))
		p->payload_len = 0;
	else if (op->flags & RL_OPF_LAST)
		p->payload_len = gen_rand(s) % 257;
	else
		p->payload_len = 4 * (gen_rand(s) % 65);
	for (size_t i = 0; i < p->payload_len; i++)
		payload[i] = (uint8_t)gen_rand(s);
}

/*
 * Every opcode the IB spec defines, each as Ethernet/IPv4, Ethernet/IPv6,
 * VLAN/IPv4, VLAN/IPv6 and RoCEv1, with random field values: the input of
 * the oracle tests that compare our decoder with Wireshark's and scapy's.
 */
static int gen_all_opcodes(const struct gen_opts *opt, struct gen_out *out)
{
	struct gen_clock c = { out, GEN_EPOCH_NS };
	uint64_t s = opt->seed * 0x9e3779b97f4a7c15ull + 1;
	uint8_t payload[512];

	for (int op = 0; op < 256; op++) {
		if (!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID))
			continue;
		for (int shape = 0; shape < 5; shape++) {
			struct rl_pkt p;

			gen_pkt(&p, opt, shape == 1 || shape == 3, (uint8_t)op, 0);
			p.eth.has_vlan = shape == 2 || shape == 3;
			p.eth.vlan_pcp = 3;
			p.eth.vlan_id = (uint16_t)(1 + gen_rand(&s) % 4094);
			if (shape == 4) {
				p.l3 = RL_L3_GRH;
				p.roce = RL_ROCE_V1;
				memcpy(p.ip6.src, opt->ip6[0], 16);
				memcpy(p.ip6.dst, opt->ip6[1], 16);
			}
			gen_randomize(&p, &s, payload);
			gen_emit(&c, &p);
		}
	}
	return out->err;
}

/* Damage a well-formed frame in one way; each gives a distinct decode error. */
static void gen_damaged(struct gen_clock *c, const struct gen_opts *opt, const char *opname,
			size_t payload_len, void (*damage)(uint8_t *f, size_t *n))
{
	static const uint8_t zeros[2048];
	uint8_t frame[4096];
	struct rl_pkt p;
	size_t n;

	gen_pkt(&p, opt, false, (uint8_t)rl_opcode_by_name(opname), 0);
	p.bth.psn = 1000 + (uint32_t)c->out->frames;
	p.payload = zeros;
	p.payload_len = payload_len;
	if (rl_encode(&p, frame, sizeof(frame), &n) != RL_OK) {
		c->out->err = 1;
		return;
	}
	if (damage)
		damage(frame, &n);
	gen_write(c, frame, n);
}

/* Offsets in an Ethernet/IPv4 frame. */
#define G_IP 14
#define G_UDP 34
#define G_BTH 42

/* Re-seal an IPv4 frame after damage: IP checksum and ICRC match the new bytes. */
static void dmg_reseal(uint8_t *f, size_t n)
{
	uint32_t icrc;

	rl_put16(f + G_IP + 10, 0);
	rl_put16(f + G_IP + 10, rl_ipv4_checksum(f + G_IP, 20));
	icrc = rl_icrc_calc(RL_L3_IPV4, f + G_IP, 20, n - 4 - G_IP);
	for (int i = 0; i < 4; i++)
		f[n - 4 + (size_t)i] = (uint8_t)(icrc >> (8 * i));
}

static void dmg_truncate_bth(uint8_t *f, size_t *n)
{
	*n = G_BTH + 6;                   /* lengths agree, but only half a BTH */
	rl_put16(f + G_IP + 2, 20 + 8 + 6);
	rl_put16(f + G_UDP + 4, 8 + 6);
	rl_put16(f + G_IP + 10, 0);
	rl_put16(f + G_IP + 10, rl_ipv4_checksum(f + G_IP, 20));
}
static void dmg_udp_len(uint8_t *f, size_t *n) { (void)n; rl_put16(f + G_UDP + 4, (uint16_t)(rl_get16(f + G_UDP + 4) + 8)); }
static void dmg_tver(uint8_t *f, size_t *n) { (void)n; rl_bth_set_tver(f + G_BTH, 1); }
static void dmg_pad(uint8_t *f, size_t *n) { (void)n; rl_bth_set_padcnt(f + G_BTH, 3); }
static void dmg_icrc(uint8_t *f, size_t *n) { f[*n - 20] ^= 0x40; }
/* RC 0x1e: reserved in IBA Table 38, so it has no name in the opcode rows. */
#define DMG_RESERVED_OPCODE 0x1e
static void dmg_opcode_reserved(uint8_t *f, size_t *n) { rl_bth_set_opcode(f + G_BTH, DMG_RESERVED_OPCODE); dmg_reseal(f, *n); }
static void dmg_missing_reth(uint8_t *f, size_t *n) { (void)n; rl_bth_set_opcode(f + G_BTH, RL_OP_RC_RDMA_WRITE_ONLY); }
static void dmg_not_roce(uint8_t *f, size_t *n)
{
	rl_put16(f + G_UDP + 2, 53);      /* an ordinary UDP packet: counted, skipped */
	(void)n;
}

static int gen_malformed(const struct gen_opts *opt, struct gen_out *out)
{
	struct gen_clock c = { out, GEN_EPOCH_NS };

	/* IPv4 only: the damage offsets assume it (a VLAN tag, if any, is added on output). */
	gen_damaged(&c, opt, "RC SEND Only", 64, NULL);
	gen_damaged(&c, opt, "RC SEND Only", 64, dmg_truncate_bth);
	gen_damaged(&c, opt, "RC SEND Only", 64, dmg_udp_len);
	gen_damaged(&c, opt, "RC SEND Only", 64, dmg_tver);
	gen_damaged(&c, opt, "RC SEND First", 64, dmg_pad);
	gen_damaged(&c, opt, "RC SEND Only", 4, dmg_missing_reth);
	gen_damaged(&c, opt, "RC RDMA WRITE Only", 256, dmg_icrc);
	gen_damaged(&c, opt, "RC SEND Only", 16, dmg_opcode_reserved);
	gen_damaged(&c, opt, "RC SEND Only", 16, dmg_not_roce);
	return out->err;
}

/* ---- cm-messages: one of each CM message, as a UD SEND Only to QP1 --------------------------- */

#define GEN_CM_PORT 7174         /* rping's default port */
#define GEN_CM_COMM_A 0x1a2b3c4du /* the active side's communication ID */
#define GEN_CM_COMM_P 0x5e6f7081u /* the passive side's */

/* Side @side's GID: its IPv6 address, or its IPv4-mapped address, as rxe's RoCEv2 GIDs are. */
static void gen_cm_gid(const struct gen_opts *o, int side, uint8_t gid[16])
{
	if (o->ipv6) {
		memcpy(gid, o->ip6[side], 16);
		return;
	}
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, o->ip4[side], 4);
}

/* Side @side's starting PSN: --psn, or one drawn from the seed. */
static uint32_t gen_cm_psn(const struct gen_opts *o, int side)
{
	uint64_t s = o->seed * 0x9e3779b97f4a7c15ull + 7 + (uint64_t)side;

	return o->psn_set[side] ? o->psn[side] : (uint32_t)gen_rand(&s) & 0xffffff;
}

/* Wrap @cm in a UD SEND Only from side @from's QP1 to the other side's QP1 (IBA 13.5.1). */
static void gen_cm_emit(struct gen_clock *c, const struct gen_opts *o, const struct rl_cm *cm, int from)
{
	uint8_t mad[RL_MAD_LEN];
	size_t n;
	struct rl_pkt p;

	if (rl_cm_encode(cm, mad, sizeof(mad), &n) != RL_OK) {
		c->out->err = 1;
		return;
	}
	gen_pkt(&p, o, o->ipv6, RL_OP_UD_SEND_ONLY, from);
	p.bth.dqpn = RL_GSI_QPN;
	p.bth.psn = (uint32_t)c->out->frames;
	p.deth.qkey = RL_GSI_QKEY;
	p.deth.src_qp = RL_GSI_QPN;
	p.payload = mad;
	p.payload_len = n;
	gen_emit(c, &p);
}

/* The primary (and, for the teaching capture, an alternate) path of a REQ, from side 0 to side 1. */
static void gen_cm_req_path(struct rl_cm *cm, const struct gen_opts *o)
{
	uint8_t gid[16];

	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_LOCAL_LID, 0xffff);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_REMOTE_LID, 0xffff);
	gen_cm_gid(o, 0, gid);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIMARY_LOCAL_GID, gid, 16);
	gen_cm_gid(o, 1, gid);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIMARY_REMOTE_GID, gid, 16);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_FLOW_LABEL, 0);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_PACKET_RATE, 3);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_TRAFFIC_CLASS, 0);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_HOP_LIMIT, 64);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_SL, 0);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_SUBNET_LOCAL, 1);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_LOCAL_ACK_TIMEOUT, 18);
}

/*
 * One of each CM message of IBA 12.6, between the two sides' QP1: an
 * rdma_cm REQ to port 7174 (rping's default) with its CMA header, MRA, REP,
 * RTU, DREQ, DREP; a REJ (consumer reject); LAP and APR; SIDR_REQ/SIDR_REP
 * for an RDMA_PS_UDP port, as udaddy does. Fields, not a conversation.
 */
static int gen_cm_messages(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_clock c = { out, GEN_EPOCH_NS };
	struct rl_cm cm;
	struct rl_cma_hdr h = { .version = RL_CMA_VERSION, .ip_version = o->ipv6 ? 6 : 4, .src_port = 40391 };
	uint8_t pd[RL_CMA_HDR_LEN], gid[16];
	uint64_t tid = 0x000000004d2a0001ull + o->seed;

	if (o->ipv6) {
		memcpy(h.src, o->ip6[0], 16);
		memcpy(h.dst, o->ip6[1], 16);
	} else {
		memcpy(h.src + 12, o->ip4[0], 4);
		memcpy(h.dst + 12, o->ip4[1], 4);
	}
	rl_cma_hdr_encode(&h, pd);

	rl_cm_init(&cm, RL_CM_REQ, tid);
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_COMM_ID, GEN_CM_COMM_A);
	rl_cm_set(&cm, RL_CMF_REQ_SERVICE_ID, rl_cm_service_id(RL_RDMA_PS_TCP, GEN_CM_PORT));
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_CA_GUID, 0x020000fffe000001ull);
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_QPN, o->qpn[0]);
	rl_cm_set(&cm, RL_CMF_REQ_RESPONDER_RESOURCES, 16);
	rl_cm_set(&cm, RL_CMF_REQ_INITIATOR_DEPTH, 16);
	rl_cm_set(&cm, RL_CMF_REQ_REMOTE_CM_RESPONSE_TIMEOUT, 20);
	rl_cm_set(&cm, RL_CMF_REQ_STARTING_PSN, gen_cm_psn(o, 0));
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_CM_RESPONSE_TIMEOUT, 20);
	rl_cm_set(&cm, RL_CMF_REQ_RETRY_COUNT, 7);
	rl_cm_set(&cm, RL_CMF_REQ_PKEY, 0xffff);
	rl_cm_set(&cm, RL_CMF_REQ_PATH_MTU, o->mtu);
	rl_cm_set(&cm, RL_CMF_REQ_RNR_RETRY_COUNT, 7);
	rl_cm_set(&cm, RL_CMF_REQ_MAX_CM_RETRIES, 15);
	gen_cm_req_path(&cm, o);
	rl_cm_set(&cm, RL_CMF_REQ_PRIMARY_FLOW_LABEL, 0x5d1c3);  /* not 0: the oracle sees where it sits */
	rl_cm_set_bytes(&cm, RL_CMF_REQ_PRIVATE_DATA, pd, sizeof(pd));
	gen_cm_emit(&c, o, &cm, 0);

	rl_cm_init(&cm, RL_CM_MRA, tid);
	rl_cm_set(&cm, RL_CMF_MRA_LOCAL_COMM_ID, GEN_CM_COMM_P);
	rl_cm_set(&cm, RL_CMF_MRA_REMOTE_COMM_ID, GEN_CM_COMM_A);
	rl_cm_set(&cm, RL_CMF_MRA_MESSAGE_MRAED, 0);
	rl_cm_set(&cm, RL_CMF_MRA_SERVICE_TIMEOUT, 22);
	gen_cm_emit(&c, o, &cm, 1);

	rl_cm_init(&cm, RL_CM_REP, tid);
	rl_cm_set(&cm, RL_CMF_REP_LOCAL_COMM_ID, GEN_CM_COMM_P);
	rl_cm_set(&cm, RL_CMF_REP_REMOTE_COMM_ID, GEN_CM_COMM_A);
	rl_cm_set(&cm, RL_CMF_REP_LOCAL_QPN, o->qpn[1]);
	rl_cm_set(&cm, RL_CMF_REP_STARTING_PSN, gen_cm_psn(o, 1));
	rl_cm_set(&cm, RL_CMF_REP_RESPONDER_RESOURCES, 16);
	rl_cm_set(&cm, RL_CMF_REP_INITIATOR_DEPTH, 16);
	rl_cm_set(&cm, RL_CMF_REP_TARGET_ACK_DELAY, 15);
	rl_cm_set(&cm, RL_CMF_REP_FAILOVER_ACCEPTED, 1);
	rl_cm_set(&cm, RL_CMF_REP_RNR_RETRY_COUNT, 7);
	rl_cm_set(&cm, RL_CMF_REP_LOCAL_CA_GUID, 0x020000fffe000002ull);
	gen_cm_emit(&c, o, &cm, 1);

	rl_cm_init(&cm, RL_CM_RTU, tid);
	rl_cm_set(&cm, RL_CMF_RTU_LOCAL_COMM_ID, GEN_CM_COMM_A);
	rl_cm_set(&cm, RL_CMF_RTU_REMOTE_COMM_ID, GEN_CM_COMM_P);
	gen_cm_emit(&c, o, &cm, 0);

	rl_cm_init(&cm, RL_CM_LAP, tid + 1);
	rl_cm_set(&cm, RL_CMF_LAP_LOCAL_COMM_ID, GEN_CM_COMM_A);
	rl_cm_set(&cm, RL_CMF_LAP_REMOTE_COMM_ID, GEN_CM_COMM_P);
	rl_cm_set(&cm, RL_CMF_LAP_REMOTE_QPN, o->qpn[1]);
	rl_cm_set(&cm, RL_CMF_LAP_REMOTE_CM_RESPONSE_TIMEOUT, 20);
	rl_cm_set(&cm, RL_CMF_LAP_ALTERNATE_LOCAL_LID, 0xffff);
	rl_cm_set(&cm, RL_CMF_LAP_ALTERNATE_REMOTE_LID, 0xffff);
	gen_cm_gid(o, 0, gid);
	rl_cm_set_bytes(&cm, RL_CMF_LAP_ALTERNATE_LOCAL_GID, gid, 16);
	gen_cm_gid(o, 1, gid);
	rl_cm_set_bytes(&cm, RL_CMF_LAP_ALTERNATE_REMOTE_GID, gid, 16);
	rl_cm_set(&cm, RL_CMF_LAP_ALTERNATE_FLOW_LABEL, 0x12345);
	rl_cm_set(&cm, RL_CMF_LAP_ALTERNATE_TRAFFIC_CLASS, 104);
	rl_cm_set(&cm, RL_CMF_LAP_ALTERNATE_HOP_LIMIT, 64);
	rl_cm_set(&cm, RL_CMF_LAP_ALTERNATE_PACKET_RATE, 3);
	rl_cm_set(&cm, RL_CMF_LAP_ALTERNATE_SL, 3);
	rl_cm_set(&cm, RL_CMF_LAP_ALTERNATE_SUBNET_LOCAL, 1);
	rl_cm_set(&cm, RL_CMF_LAP_ALTERNATE_LOCAL_ACK_TIMEOUT, 18);
	gen_cm_emit(&c, o, &cm, 0);

	rl_cm_init(&cm, RL_CM_APR, tid + 1);
	rl_cm_set(&cm, RL_CMF_APR_LOCAL_COMM_ID, GEN_CM_COMM_P);
	rl_cm_set(&cm, RL_CMF_APR_REMOTE_COMM_ID, GEN_CM_COMM_A);
	rl_cm_set(&cm, RL_CMF_APR_AP_STATUS, 0);
	gen_cm_emit(&c, o, &cm, 1);

	rl_cm_init(&cm, RL_CM_DREQ, tid + 2);
	rl_cm_set(&cm, RL_CMF_DREQ_LOCAL_COMM_ID, GEN_CM_COMM_A);
	rl_cm_set(&cm, RL_CMF_DREQ_REMOTE_COMM_ID, GEN_CM_COMM_P);
	rl_cm_set(&cm, RL_CMF_DREQ_REMOTE_QPN, o->qpn[1]);
	gen_cm_emit(&c, o, &cm, 0);

	rl_cm_init(&cm, RL_CM_DREP, tid + 2);
	rl_cm_set(&cm, RL_CMF_DREP_LOCAL_COMM_ID, GEN_CM_COMM_P);
	rl_cm_set(&cm, RL_CMF_DREP_REMOTE_COMM_ID, GEN_CM_COMM_A);
	gen_cm_emit(&c, o, &cm, 1);

	/* A second connection attempt, refused: no one listens (consumer reject, as rdma_reject()). */
	rl_cm_init(&cm, RL_CM_REQ, tid + 3);
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_COMM_ID, GEN_CM_COMM_A + 1);
	rl_cm_set(&cm, RL_CMF_REQ_SERVICE_ID, rl_cm_service_id(RL_RDMA_PS_TCP, GEN_CM_PORT + 1));
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_QPN, o->qpn[0] + 1);
	rl_cm_set(&cm, RL_CMF_REQ_STARTING_PSN, gen_cm_psn(o, 0));
	rl_cm_set(&cm, RL_CMF_REQ_PKEY, 0xffff);
	rl_cm_set(&cm, RL_CMF_REQ_PATH_MTU, o->mtu);
	gen_cm_req_path(&cm, o);
	h.src_port++;
	rl_cma_hdr_encode(&h, pd);
	rl_cm_set_bytes(&cm, RL_CMF_REQ_PRIVATE_DATA, pd, sizeof(pd));
	gen_cm_emit(&c, o, &cm, 0);

	rl_cm_init(&cm, RL_CM_REJ, tid + 3);
	rl_cm_set(&cm, RL_CMF_REJ_LOCAL_COMM_ID, GEN_CM_COMM_P + 1);
	rl_cm_set(&cm, RL_CMF_REJ_REMOTE_COMM_ID, GEN_CM_COMM_A + 1);
	rl_cm_set(&cm, RL_CMF_REJ_MESSAGE_REJECTED, 0);
	rl_cm_set(&cm, RL_CMF_REJ_REASON, 28);
	gen_cm_emit(&c, o, &cm, 1);

	rl_cm_init(&cm, RL_CM_SIDR_REQ, tid + 4);
	rl_cm_set(&cm, RL_CMF_SIDR_REQ_REQUEST_ID, 0x00c0ffee);
	rl_cm_set(&cm, RL_CMF_SIDR_REQ_PKEY, 0xffff);
	rl_cm_set(&cm, RL_CMF_SIDR_REQ_SERVICE_ID, rl_cm_service_id(RL_RDMA_PS_UDP, GEN_CM_PORT));
	rl_cm_set_bytes(&cm, RL_CMF_SIDR_REQ_PRIVATE_DATA, pd, sizeof(pd));
	gen_cm_emit(&c, o, &cm, 0);

	rl_cm_init(&cm, RL_CM_SIDR_REP, tid + 4);
	rl_cm_set(&cm, RL_CMF_SIDR_REP_REQUEST_ID, 0x00c0ffee);
	rl_cm_set(&cm, RL_CMF_SIDR_REP_STATUS, 0);
	rl_cm_set(&cm, RL_CMF_SIDR_REP_QPN, o->qpn[1]);
	rl_cm_set(&cm, RL_CMF_SIDR_REP_SERVICE_ID, rl_cm_service_id(RL_RDMA_PS_UDP, GEN_CM_PORT));
	rl_cm_set(&cm, RL_CMF_SIDR_REP_QKEY, 0x01234567);
	gen_cm_emit(&c, o, &cm, 1);
	return out->err;
}

/* Why a crafted scenario does not take an option the pair's scenarios take (gen_scenario.why). */
#define CRAFTED_FIXED "it crafts its packets one by one, each of a kind and size of its own: fabric takes --count and --size"
#define CRAFTED_NO_WIRE "its packets are crafted one by one, with no wire or transport to shape"
#define CRAFTED_WHY_WIRE GEN_WHY_MSGS(CRAFTED_FIXED), [GEN_OPT_WINDOW] = CRAFTED_NO_WIRE, \
	[GEN_OPT_RNR] = CRAFTED_NO_WIRE, [GEN_OPT_PSN_A] = CRAFTED_NO_WIRE, [GEN_OPT_PSN_B] = CRAFTED_NO_WIRE
#define ALL_OPCODES_QPN "its QPNs are random field values, from --seed"
/* What cm-messages takes: the CM's fields come from the addresses, QPNs, PSNs, --mtu and --seed. */
#define TAKES_CM_MESSAGES (GEN_TAKES_QPN | GEN_TAKES_PSN_A | GEN_TAKES_PSN_B | GEN_TAKES_MTU | GEN_TAKES_SEED | \
			   GEN_TAKES_IPV6)

const struct gen_scenario gen_crafted[] = {
	{ "all-opcodes", gen_all_opcodes, GEN_TAKES_SEED,
	  GEN_WHY(CRAFTED_WHY_WIRE, [GEN_OPT_QPN_A] = ALL_OPCODES_QPN, [GEN_OPT_QPN_B] = ALL_OPCODES_QPN,
		  [GEN_OPT_MTU] = "its payloads are random lengths of at most 256 bytes, which any path MTU carries",
		  [GEN_OPT_IPV6] = "it writes each opcode over IPv4, IPv6, VLAN and RoCEv1 already"),
	  "every opcode of the IB spec over IPv4, IPv6, VLAN and RoCEv1, random field values" },
	{ "malformed", gen_malformed, GEN_TAKES_QPN,
	  GEN_WHY(CRAFTED_WHY_WIRE, [GEN_OPT_MTU] = "its broken packets have set sizes, none cut to a path MTU",
		  [GEN_OPT_SEED] = "its broken packets are set ones, with nothing random in them",
		  [GEN_OPT_IPV6] = "its damage sits at IPv4 offsets, so its packets are IPv4 only"),
	  "a gallery of broken packets: each one a different decode error, and one ICRC failure" },
	{ "cm-messages", gen_cm_messages, TAKES_CM_MESSAGES, GEN_WHY(CRAFTED_WHY_WIRE), "one of each CM message (REQ with rdma_cm's header .. SIDR_REP) as UD SEND Only to QP1" },
	{ "fabric", gen_fabric, GEN_TAKES_QPS | GEN_TAKES_MSGS | GEN_TAKES_MTU | GEN_TAKES_SEED | GEN_TAKES_IPV6, NULL,
	  "a port mirror's view: --qps RC connections (1000) between 32 x 32 hosts, --count WRITEs each (800) with "
	  "their ACKs, interleaved at random" },
};
const size_t gen_ncrafted = sizeof(gen_crafted) / sizeof(gen_crafted[0]);
