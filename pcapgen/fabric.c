/* SPDX-License-Identifier: MIT */
/*
 * A fabric as a port mirror sees it: many RC connections between many hosts,
 * their packets interleaved as a switch interleaves flows. Each QP sends
 * RDMA WRITE Only requests, every fourth asking for an ACK (IBA 9.7.6.1.2:
 * an ACK may answer several requests), and the responder's ACK follows its
 * request later; which QP's packet comes next is drawn at random from the
 * seed, each QP's own packets staying in order. Crafted with the codec: no
 * transport runs, so a million QPs cost a few bytes each. The input of
 * explain at scale (bench part 8).
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define FAB_HOSTS 32              /* hosts on each side; QP q joins requester q % 32 to responder (q / 32) % 32 */
#define FAB_REQ_QPN 0x000100u     /* QP q's requester QPN is this + q, its responder's FAB_RESP_QPN + q */
#define FAB_RESP_QPN 0x800000u
#define FAB_ACK_EVERY 4
#define FAB_DEFAULT_QPS 1000
#define FAB_DEFAULT_COUNT 800     /* WRITEs per QP: with their ACKs, 1000 frames */
#define FAB_DEFAULT_SIZE 64

/* Where a QP is: its next PSN and how many WRITEs (and ACKs) it has sent; an ACK owed after a WRITE. */
struct fab_qp {
	uint32_t psn;
	uint32_t sent;
	bool ack_due;
};

/* The addresses of QP @q's side @side (0: requester), from --ip-a/--ip-b with the last byte counting hosts. */
static void fab_addr(const struct gen_opts *o, uint32_t q, int side, struct rl_pkt *p, bool src)
{
	uint32_t host = side ? (q / FAB_HOSTS) % FAB_HOSTS : q % FAB_HOSTS;
	uint8_t *ip = src ? (o->ipv6 ? p->ip6.src : p->ip4.src) : (o->ipv6 ? p->ip6.dst : p->ip4.dst);
	uint8_t *mac = src ? p->eth.src : p->eth.dst;

	if (o->ipv6) {
		memcpy(ip, o->ip6[side], 16);
		ip[15] = (uint8_t)(ip[15] + host);
	} else {
		memcpy(ip, o->ip4[side], 4);
		ip[3] = (uint8_t)(ip[3] + host);
	}
	memcpy(mac, o->mac[side], 6);
	mac[5] = (uint8_t)(mac[5] + host);
}

/* QP @q's next packet: a WRITE Only, or the ACK owed for the last one. */
static void fab_pkt(const struct gen_opts *o, uint32_t q, struct fab_qp *s, uint32_t size, const uint8_t *payload,
		    struct rl_pkt *p)
{
	bool ack = s->ack_due;
	int from = ack ? 1 : 0;

	rl_pkt_init(p, ack ? RL_OP_RC_ACKNOWLEDGE : RL_OP_RC_RDMA_WRITE_ONLY);
	if (o->ipv6) {
		p->l3 = RL_L3_IPV6;
		p->ip6.tclass = 26 << 2 | 2;
	} else {
		p->ip4.dscp = 26;
		p->ip4.ecn = 2;
	}
	fab_addr(o, q, from, p, true);
	fab_addr(o, q, !from, p, false);
	p->udp.sport = (uint16_t)(0xc000 | (((FAB_REQ_QPN + q) * 0x9e37u) & 0x3fff));
	if (ack) {
		p->bth.dqpn = FAB_REQ_QPN + q;
		p->bth.psn = (s->psn - 1) & 0xffffff;
		p->aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, 31);
		p->aeth.msn = s->sent & 0xffffff;
		s->ack_due = false;
		return;
	}
	p->bth.dqpn = FAB_RESP_QPN + q;
	p->bth.psn = s->psn;
	p->reth.va = 0x00007f0000000000ull + (uint64_t)q * 0x100000;
	p->reth.rkey = 0x1005a;
	p->reth.dma_len = size;
	p->payload = payload;
	p->payload_len = size;
	s->sent++;
	s->psn = (s->psn + 1) & 0xffffff;
	p->bth.ackreq = s->sent % FAB_ACK_EVERY == 0 || s->sent == (uint32_t)o->count;
	s->ack_due = p->bth.ackreq;
}

int gen_fabric(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_opts d = *o;
	uint32_t nqps = o->qps ? o->qps : FAB_DEFAULT_QPS, size = o->size ? o->size : FAB_DEFAULT_SIZE;
	uint64_t rng = o->seed * 0x9e3779b97f4a7c15ull + 1, t_ns = GEN_EPOCH_NS;
	uint32_t nlive = nqps, *live;
	struct fab_qp *qp;
	uint8_t *payload, frame[4200];

	d.count = o->count ? o->count : FAB_DEFAULT_COUNT;
	if (size > rl_mtu_bytes(o->mtu))
		return gen_fail(out, "fabric: --size %u does not fit one packet at path MTU %u: each WRITE is one",
				size, rl_mtu_bytes(o->mtu));
	if (d.count > UINT32_MAX)
		return gen_fail(out, "fabric: --count is at most %u WRITEs per QP", UINT32_MAX);
	live = malloc((size_t)nqps * sizeof(*live));
	qp = calloc(nqps, sizeof(*qp));
	payload = malloc(size);
	if (!live || !qp || !payload) {
		free(live);
		free(qp);
		free(payload);
		return gen_fail(out, "fabric: out of memory for %u QPs", nqps);
	}
	for (uint32_t q = 0; q < nqps; q++) {
		live[q] = q;
		qp[q].psn = (uint32_t)gen_rand(&rng) & 0xffffff;
	}
	for (size_t i = 0; i < size; i++)
		payload[i] = (uint8_t)i;
	while (nlive && !out->err && !out->write_errno) {
		uint32_t k = (uint32_t)(gen_rand(&rng) % nlive), q = live[k];
		struct rl_pkt p;
		size_t n;

		fab_pkt(&d, q, &qp[q], size, payload, &p);
		if (rl_encode(&p, frame, sizeof(frame), &n) != RL_OK) {
			out->err = 1;
			break;
		}
		gen_out_frame(out, t_ns, t_ns, frame, n, false);
		t_ns += 100 + n * 8 / 25;   /* back to back on a 25 Gb/s port, with a little gap */
		if (qp[q].sent == d.count && !qp[q].ack_due)
			live[k] = live[--nlive];
	}
	free(live);
	free(qp);
	free(payload);
	return out->err ? gen_fail(out, "fabric: a packet could not be encoded") : 0;
}
