/* SPDX-License-Identifier: MIT */
/*
 * A capture's profile: the choices a RoCE stack makes on the wire, counted.
 * See profile.h.
 */
#include <string.h>

#include "rocelab/hdr.h"
#include "rocelab/opcode.h"
#include "rocelab/profile.h"
#include "rocelab/verbs.h"

void rl_profile_init(struct rl_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->ttl_min = 255;
	p->sport_min = 0xffff;
}

static void profile_range(struct rl_profile_range *r, uint64_t v)
{
	if (!r->n || v < r->min)
		r->min = v;
	if (v > r->max)
		r->max = v;
	r->n++;
	r->sum += v;
}

/* The sender's address as 16 bytes (IPv4 mapped as in a RoCEv2 GID). */
static void profile_src(const struct rl_pkt *pkt, uint8_t out[16])
{
	if (pkt->l3 == RL_L3_IPV4)
		rl_gid_from_ipv4(out, pkt->ip4.src);
	else
		memcpy(out, pkt->ip6.src, 16);
}

/* IPv4 Identification: a counter per sender (as Linux keeps), always 0, or neither. */
static void profile_ipid(struct rl_profile *p, const uint8_t src[16], uint16_t id)
{
	unsigned i;
	bool known;

	for (i = 0; i < p->nsenders; i++)
		if (!memcmp(p->senders[i].addr, src, 16))
			break;
	known = i < p->nsenders;
	if (!known && i == RL_PROFILE_SENDERS) {
		p->untracked++;
		return;
	}
	if (!id)
		p->ipid_zero++;
	else if (!known)
		p->ipid_first++;
	else if (id == (uint16_t)(p->senders[i].id + 1))
		p->ipid_next++;
	else
		p->ipid_other++;
	if (!known) {
		memcpy(p->senders[i].addr, src, 16);
		p->nsenders++;
	}
	p->senders[i].id = id;
}

/* The UDP source port a QP's packets come from (RoCEv2 uses it for ECMP entropy). */
static void profile_sport(struct rl_profile *p, const uint8_t src[16], uint32_t dqpn, uint16_t sport)
{
	unsigned i;

	if (sport < p->sport_min)
		p->sport_min = sport;
	if (sport > p->sport_max)
		p->sport_max = sport;
	for (i = 0; i < p->nqps; i++) {
		if (p->qps[i].dqpn == dqpn && !memcmp(p->qps[i].addr, src, 16)) {
			if (p->qps[i].sport != sport)
				p->sport_changes++;
			p->qps[i].sport = sport;
			return;
		}
	}
	if (i == RL_PROFILE_QPS)
		return;
	memcpy(p->qps[i].addr, src, 16);
	p->qps[i].dqpn = dqpn;
	p->qps[i].sport = sport;
	p->nqps++;
}

static void profile_headers(struct rl_profile *p, const struct rl_pkt *pkt)
{
	uint8_t src[16];

	profile_src(pkt, src);
	if (pkt->roce == RL_ROCE_V1) {
		p->v1++;
		return;
	}
	profile_sport(p, src, pkt->bth.dqpn, pkt->udp.sport);
	if (pkt->l3 != RL_L3_IPV4) {
		p->ipv6++;
		p->dscp_seen |= 1ull << (pkt->ip6.tclass >> 2);
		p->ecn_seen |= (uint8_t)(1u << (pkt->ip6.tclass & 3));
		return;
	}
	p->ipv4++;
	if (!pkt->udp.checksum)
		p->udp_csum_zero++;
	profile_ipid(p, src, pkt->ip4.id);
	if (pkt->ip4.df)
		p->df++;
	if (pkt->ip4.ttl < p->ttl_min)
		p->ttl_min = pkt->ip4.ttl;
	if (pkt->ip4.ttl > p->ttl_max)
		p->ttl_max = pkt->ip4.ttl;
	p->dscp_seen |= 1ull << (pkt->ip4.dscp & 63);
	p->ecn_seen |= (uint8_t)(1u << (pkt->ip4.ecn & 3));
}

static bool profile_time_of(const struct rl_profile *p, uint64_t frame, uint64_t *t_ns)
{
	const struct rl_profile_time *r = &p->ring[frame % RL_PROFILE_RING];

	if (!frame || r->frame != frame)
		return false;
	*t_ns = r->t_ns;
	return true;
}

/* RC requests: AckReq (IBA 9.7.6.1.1), resends after the retry timer or a NAK (IBA 9.7.6). */
static void profile_request(struct rl_profile *p, uint64_t t_ns, const struct rl_pkt *pkt,
			    const struct rl_annotation *a)
{
	uint32_t f = pkt->op->flags;
	uint64_t t0;

	p->requests++;
	if (f & RL_OPF_LAST) {
		p->request_ends++;
		p->ackreq_ends += pkt->bth.ackreq;
	} else {
		p->ackreq_other += pkt->bth.ackreq;
	}
	if (a->verdict == RL_V_RETRANSMISSION) {
		p->resends++;
		if (profile_time_of(p, a->original_frame, &t0) && t_ns >= t0)
			profile_range(&p->resend_ns, t_ns - t0);
	}
}

/* Acknowledge packets (IBA 9.7.5.1): ACKs, RNR NAKs and NAKs. */
static void profile_ack(struct rl_profile *p, const struct rl_pkt *pkt, const struct rl_annotation *a)
{
	enum rl_aeth_type type = rl_syndrome_type(pkt->aeth.syndrome);
	uint32_t n;

	if (type == RL_AETH_RNR_NAK) {
		p->rnr_naks++;
		profile_range(&p->rnr_wait_us, a->rnr_wait_us);
		return;
	}
	if (type != RL_AETH_ACK) {
		p->naks++;
		return;
	}
	p->acks++;
	if (rl_syndrome_value(pkt->aeth.syndrome) == RL_AETH_CREDITS_INVALID)
		p->credits_none++;
	if (a->acks) {
		n = (uint32_t)rl_psn_diff(a->acked_last, a->acked_first) + 1;
		p->acked_psns += n;
		if (n > p->acked_max)
			p->acked_max = n;
	}
}

void rl_profile_add(struct rl_profile *p, uint64_t frame, uint64_t t_ns, const struct rl_pkt *pkt,
		    enum rl_status st, const struct rl_annotation *a)
{
	uint32_t f;

	if (rl_status_fatal(st) || !pkt->op)
		return;
	p->ring[frame % RL_PROFILE_RING].frame = frame;
	p->ring[frame % RL_PROFILE_RING].t_ns = t_ns;
	p->packets++;
	if (pkt->cut)
		p->icrc_unknown++;
	else if (!pkt->icrc_ok)
		p->icrc_bad++;
	profile_headers(p, pkt);
	if (rl_opcode_transport(pkt->bth.opcode) != RL_TR_RC || !(pkt->op->flags & RL_OPF_VALID))
		return;
	f = pkt->op->flags;
	/* First and Middle packets carry exactly one path MTU (IBA 9.7.5.1.4, C9-114). */
	if ((f & RL_OPF_PAYLOAD) && (f & (RL_OPF_FIRST | RL_OPF_MIDDLE)) && !(f & RL_OPF_LAST) &&
	    pkt->payload_len > p->pmtu)
		p->pmtu = (uint32_t)pkt->payload_len;
	if (f & RL_OPF_REQ)
		profile_request(p, t_ns, pkt, a);
	else if ((f & RL_OPF_ACK) && !(f & RL_OPF_ATOMIC))
		profile_ack(p, pkt, a);
	/* The first answer to a request: its ACK, first READ response or atomic ACK. */
	if ((f & RL_OPF_RESP) && (f & (RL_OPF_ACK | RL_OPF_FIRST)) && a->request_frame &&
	    (!(f & RL_OPF_ACK) || rl_syndrome_type(pkt->aeth.syndrome) == RL_AETH_ACK))
		profile_range(&p->response_ns, a->response_time_ns);
}
