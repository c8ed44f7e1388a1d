/* SPDX-License-Identifier: MIT */
/*
 * Packets in and out of a host. A received packet, a whole frame or a path
 * with BTH..ICRC, is decoded, checked the way rxe_rcv() checks it (ICRC,
 * destination, QP), and handed to the QP's responder (requests) or
 * completer (responses). Outgoing packets are addressed from the QP's
 * address vector, encoded once, and leave through the emit callback as a
 * frame (rl_encode_cached: a QP's packets share their Ethernet, IP and UDP
 * headers) or through emit_pkt as a path and BTH..ICRC
 * (rl_encode_path).
 */
#include <errno.h>
#include <string.h>

#include "rocelab/packet.h"
#include "rocelab/path.h"
#include "transport.h"

/* UDP source port of a QP: stable per connection, in 0xC000-0xFFFF as Linux picks them. */
uint16_t rl_qp_udp_sport(const struct rl_qp *qp)
{
	uint32_t x = (qp->qpn * 0x9e3779b1u) ^ (qp->attr.dest_qp_num * 0x85ebca6bu);

	if (qp->attr.ah_attr.udp_sport)
		return qp->attr.ah_attr.udp_sport;
	x ^= x >> 15;
	return (uint16_t)(0xc000 | (x & 0x3fff));
}

/* What every packet of @qp starts as: rl_pkt_init() and the QP's addressing. */
static void rl_qp_pkt_build(struct rl_qp *qp, struct rl_pkt *p)
{
	struct rl_host *h = qp->host;
	const struct rl_ah_attr *ah = &qp->attr.ah_attr;
	bool v4 = h->v4;

	rl_pkt_init(p, 0);
	memcpy(p->eth.src, h->cfg.mac, 6);
	memcpy(p->eth.dst, ah->dmac, 6);
	p->l3 = v4 ? RL_L3_IPV4 : RL_L3_IPV6;
	if (v4) {
		memcpy(p->ip4.src, h->cfg.gid + 12, 4);
		memcpy(p->ip4.dst, ah->dgid + 12, 4);
		p->ip4.dscp = ah->traffic_class >> 2;
		p->ip4.ecn = ah->traffic_class & 3;
		p->ip4.ttl = ah->hop_limit ? ah->hop_limit : 64;
	} else {
		memcpy(p->ip6.src, h->cfg.gid, 16);
		memcpy(p->ip6.dst, ah->dgid, 16);
		p->ip6.tclass = ah->traffic_class;
		p->ip6.hop_limit = ah->hop_limit ? ah->hop_limit : 64;
	}
	p->udp.sport = rl_qp_udp_sport(qp);
	p->bth.dqpn = qp->attr.dest_qp_num;
}

/* A copy of the QP's packet, built once per change of its attributes (rl_modify_qp clears pkt_ready). */
void rl_qp_pkt_init(struct rl_qp *qp, struct rl_pkt *p, uint8_t opcode)
{
	if (!qp->pkt_ready) {
		rl_qp_pkt_build(qp, &qp->pkt);
		qp->pkt_ready = true;
	}
	memcpy(p, &qp->pkt, sizeof(*p));   /* padding too: rl_encode_cached compares bytes */
	p->bth.opcode = opcode;
	p->op = rl_opcode_row(opcode);
	p->hdrs = p->op->hdrs;
}

/*
 * Two ways out, one transport encoder under both: a whole frame for emit,
 * or, for emit_pkt, the packet's path and only the bytes from the BTH on,
 * with the ICRC over the headers the path stands for (no frame is built).
 */
size_t rl_qp_emit(struct rl_qp *qp, struct rl_pkt *p)
{
	struct rl_host *h = qp->host;
	struct rl_path path;
	size_t n;

	if (h->cfg.emit_pkt) {
		if (!rl_path_from_pkt(p, &path) && rl_encode_path(&path, p, h->frame, sizeof(h->frame), &n) == RL_OK) {
			qp->stats.pkts_sent++;
			h->cfg.emit_pkt(h->cfg.ctx, &path, h->frame, n);
			return RL_ETH_HDR_LEN + rl_path_hdr_len(&path) + n;
		}
	} else if (rl_encode_cached(&qp->enc, p, h->frame, sizeof(h->frame), &n) == RL_OK) {
		qp->stats.pkts_sent++;
		h->cfg.emit(h->cfg.ctx, h->frame, n);
		return n;
	}
	rl_event(qp, RL_EV_DROP, p->bth.psn, 0, "could not encode an outgoing packet");
	return 0;
}

static struct rl_qp *rl_find_qp(struct rl_host *h, uint32_t qpn)
{
	for (struct rl_qp *qp = h->qps; qp; qp = qp->next)
		if (qp->qpn == qpn)
			return qp;
	return NULL;
}

/* Is the packet addressed to this host (IP or GID)? */
static bool rl_for_us(const struct rl_host *h, const struct rl_pkt *p)
{
	if (p->l3 == RL_L3_IPV4)
		return h->v4 && !memcmp(p->ip4.dst, h->cfg.gid + 12, 4);
	return !memcmp(p->ip6.dst, h->cfg.gid, 16);
}

/*
 * IBA 10.9.3: two P_Keys match when their low 15 bits are equal (and not
 * 0, the invalid key) and at least one is a full member (bit 15).
 */
static bool rl_pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7fff) && (a & 0x7fff) == (b & 0x7fff) && ((a | b) & 0x8000);
}

/*
 * A connected QP (RC, UC) takes packets only from the address its AV names
 * (rxe's check_addr): anyone else's, forged or astray, are dropped before
 * they can make the responder write, read or answer.
 */
static bool rl_addr_ok(const struct rl_qp *qp, const struct rl_pkt *p)
{
	const uint8_t *peer = qp->attr.ah_attr.dgid;

	if ((qp->type != RL_QPT_RC && qp->type != RL_QPT_UC) || qp->state < RL_QPS_RTR)
		return true;
	/*
	 * An IPv4 packet got here only on an IPv4 host (rl_for_us), and from RTR
	 * on the QP's AV is of its host's family (rl_modify_qp refuses another):
	 * the peer's GID is IPv4-mapped, its last 4 bytes the address.
	 */
	if (p->l3 == RL_L3_IPV4)
		return !memcmp(p->ip4.src, peer + 12, 4);
	return !memcmp(p->ip6.src, peer, 16);
}

/* rxe_rcv(): which checks a packet passes before a QP sees it. */
static int rl_host_check(struct rl_host *h, const struct rl_pkt *p, enum rl_status st, struct rl_qp **out)
{
	struct rl_qp *qp;

	if (st == RL_NOT_ROCE || rl_status_fatal(st) || st == RL_E_UNKNOWN_OPCODE)
		return -EBADMSG;
	if (!rl_for_us(h, p))
		return -EADDRNOTAVAIL;
	qp = rl_find_qp(h, p->bth.dqpn);
	if (!qp)
		return -ENOENT;
	*out = qp;
	qp->stats.pkts_recv++;
	/* IBA A17.3.3 / rxe_icrc_check(): a bad ICRC means drop, silently. */
	if (!p->icrc_ok) {
		qp->stats.icrc_drops++;
		rl_event(qp, RL_EV_DROP, p->bth.psn, 0, "ICRC mismatch: the packet was damaged on the way");
		return -EBADMSG;
	}
	if (!(p->op->flags & RL_OPF_CNP) &&
	    rl_opcode_transport(p->bth.opcode) != (qp->type == RL_QPT_RC   ? RL_TR_RC
						    : qp->type == RL_QPT_UC ? RL_TR_UC
									    : RL_TR_UD)) {
		rl_event(qp, RL_EV_DROP, p->bth.psn, 0, "the opcode's transport does not match the QP type");
		return -EPROTO;
	}
	if (!rl_addr_ok(qp, p)) {
		qp->stats.addr_drops++;
		rl_event(qp, RL_EV_DROP, p->bth.psn, 0, "the source address is not the one the QP is connected to");
		return -EACCES;
	}
	/* The port has one partition, the default (rxe's check_keys): a packet of another is counted, dropped. */
	if (!rl_pkey_match(p->bth.pkey, RL_PKEY_DEFAULT)) {
		qp->stats.pkey_violations++;
		if (h->bad_pkey_cntr < RL_PORT_CNTR_MAX)
			h->bad_pkey_cntr++;
		rl_event(qp, RL_EV_DROP, p->bth.psn, p->bth.pkey, "P_Key violation: not this QP's partition");
		return -EACCES;
	}
	return 0;
}

/*
 * ECN (IBA Annex A17.9): a packet marked Congestion Experienced makes the
 * receiving QP send a CNP to the QP it came from, at most one per interval.
 */
static void rl_ecn_congested(struct rl_qp *qp, const struct rl_pkt *p)
{
	struct rl_pkt cnp;

	qp->stats.ecn_ce_recv++;
	if (qp->stats.cnps_sent && qp->host->now - qp->last_cnp < qp->cnp_interval_ns)
		return;
	qp->last_cnp = qp->host->now;
	rl_qp_pkt_init(qp, &cnp, RL_OP_CNP);
	cnp.bth.becn = true;
	cnp.bth.psn = 0;
	qp->stats.cnps_sent++;
	rl_qp_emit(qp, &cnp);
	rl_event(qp, RL_EV_CNP_SENT, p->bth.psn, 0, "ECN congestion experienced: CNP to the sender");
}

/* Most packets are not marked: this test is all they cost. */
static void rl_ecn_check(struct rl_qp *qp, const struct rl_pkt *p)
{
	uint8_t ecn = p->l3 == RL_L3_IPV4 ? p->ip4.ecn : (p->ip6.tclass & 3);

	if (ecn == 3 && !rl_qp_is_ud(qp))
		rl_ecn_congested(qp, p);
}

/* Both ways in end here: a decoded packet (status @st) to its QP. */
static int rl_host_deliver(struct rl_host *h, const struct rl_pkt *p, enum rl_status st, uint64_t now)
{
	struct rl_qp *qp = NULL;
	int r;

	if (now > h->now)
		h->now = now;
	r = rl_host_check(h, p, st, &qp);
	if (r)
		return r;
	if (p->op->flags & RL_OPF_CNP) {
		/* The notification point saw congestion; the QP's reaction point, if it has one, slows down. */
		qp->stats.cnps_recv++;
		rl_event(qp, RL_EV_CNP_RECV, 0, 0, "CNP: the receiver saw ECN congestion marks");
		rl_qp_cc_cnp(qp);
		return 0;
	}
	rl_ecn_check(qp, p);
	if (p->op->flags & RL_OPF_REQ) {
		if (qp->state >= RL_QPS_RTR && qp->state != RL_QPS_ERR)
			rl_resp_recv(qp, p);
	} else if (p->op->flags & RL_OPF_RESP) {
		if (qp->state == RL_QPS_RTS || qp->state == RL_QPS_SQD || qp->state == RL_QPS_SQE)
			rl_comp_recv(qp, p);
	}
	return 0;
}

int rl_host_recv(struct rl_host *h, const uint8_t *frame, size_t len, uint64_t now)
{
	struct rl_pkt p;
	enum rl_status st = rl_decode(RL_LINK_ETHERNET, frame, len, &p);

	return rl_host_deliver(h, &p, st, now);
}

/*
 * Decoded where it lies: the network layer comes from the path, and the
 * ICRC is checked over the invariant fields the path carries.
 */
int rl_host_read_pkt(struct rl_host *h, const struct rl_path *path, const uint8_t *pkt, size_t len, uint64_t now)
{
	struct rl_pkt p;
	enum rl_status st;

	/* No more than the largest frame a host handles, without its link and network headers. */
	if (len > RL_FRAME_MAX - RL_PATH_HDR_MAX)
		return -EMSGSIZE;
	st = rl_decode_path(path, pkt, len, &p);
	/* A path no IP packet could take (two address families) never reaches the host. */
	if (st == RL_E_ARG)
		return -EBADMSG;
	return rl_host_deliver(h, &p, st, now);
}

void rl_host_run(struct rl_host *h, uint64_t now)
{
	if (now > h->now)
		h->now = now;
	for (struct rl_qp *qp = h->qps; qp; qp = qp->next) {
		if (rl_resp_pending(qp) && qp->state >= RL_QPS_RTR && qp->state != RL_QPS_ERR)
			rl_resp_run(qp);
		if (rl_comp_timer_due(qp, h->now))
			rl_comp_timers(qp);
		if (rl_qp_cc_on(qp))
			rl_qp_cc_run(qp);
		if (qp->state == RL_QPS_RTS && rl_req_pending(qp))
			rl_req_run(qp);
		else if (qp->state == RL_QPS_ERR)
			rl_comp_flush(qp);
	}
}

bool rl_host_tx_pending(const struct rl_host *h)
{
	for (const struct rl_qp *qp = h->qps; qp; qp = qp->next)
		if (qp->resp.reply.active)
			return true;
	return false;
}

size_t rl_host_tx_room(const struct rl_host *h)
{
	return h->cfg.tx_room ? h->cfg.tx_room(h->cfg.ctx) : SIZE_MAX;
}

uint64_t rl_host_next_timer(const struct rl_host *h)
{
	uint64_t t = RL_NEVER;

	for (const struct rl_qp *qp = h->qps; qp; qp = qp->next) {
		if (qp->comp.timer < t)
			t = qp->comp.timer;
		if (qp->comp.rnr_until < t)
			t = qp->comp.rnr_until;
		if (rl_qp_cc_on(qp) && rl_qp_cc_next_timer(qp) < t)
			t = rl_qp_cc_next_timer(qp);
	}
	return t;
}
