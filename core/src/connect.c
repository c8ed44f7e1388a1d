/* SPDX-License-Identifier: MIT */
/*
 * Connecting a QP: the RESET -> INIT -> RTR -> RTS ladder, written once.
 *
 * This is the place to read how a QP gets ready, the way perftest's
 * ctx_connect() and ibv_rc_pingpong's pp_connect_ctx() do it: one
 * rl_modify_qp() per step, each with the attributes IBA 11.2.4.2 Table 91
 * requires of the QP's transport. Each step below sets every value a
 * transport may need; which of them it passes is the attribute mask of
 * that transport and step, taken from rl_transitions in verbs.c
 * (rl_qp_attr_required()), the table rl_modify_qp() enforces and the only
 * place the masks are written. What they amount to, for reading:
 *
 *   step          RC                          UC              UD
 *   RESET->INIT   pkey, port, access flags    same as RC      pkey, port, Q_Key
 *   INIT->RTR     AV (GID), path MTU, dest    AV, path MTU,   nothing
 *                 QPN, RQ PSN, max dest RD    dest QPN,
 *                 atomic, min RNR timer       RQ PSN
 *   RTR->RTS      SQ PSN, timeout, retry      SQ PSN          SQ PSN
 *                 count, RNR retry, max RD
 *                 atomic
 *
 * UD names its peer in every work request (an address handle), not in the
 * QP, which is why its RTR needs nothing.
 */
#include <errno.h>
#include <string.h>

#include "transport.h"

void rl_conn_defaults(struct rl_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->path_mtu = RL_MTU_1024;
	c->access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ |
		    RL_ACCESS_REMOTE_ATOMIC;
	c->qkey = 0x11111111;
	c->port_num = 1;
	c->timeout = 14;
	c->retry_cnt = 7;
	c->rnr_retry = 7;
	c->min_rnr_timer = 12;
	c->max_rd_atomic = 16;
	c->max_dest_rd_atomic = 16;
}

/* One step: to @a->qp_state with the attributes Table 91 requires of this QP's transport. */
static int rl_connect_step(struct rl_qp *qp, const struct rl_qp_attr *a)
{
	return rl_modify_qp(qp, a, rl_qp_attr_required(qp->type, qp->state, a->qp_state));
}

/* RESET -> INIT: the port and partition; who may do what to this QP (IBA 10.6.3). */
static int rl_connect_init(struct rl_qp *qp, const struct rl_conn *c)
{
	struct rl_qp_attr a = { .qp_state = RL_QPS_INIT };

	a.pkey_index = c->pkey_index;
	a.port_num = c->port_num;
	a.qp_access_flags = c->access;       /* RC, UC: what the remote side may do here */
	a.qkey = c->qkey;                    /* UD: a datagram must carry it to be accepted (IBA 10.2.5) */
	return rl_connect_step(qp, &a);
}

/* INIT -> RTR: who the peer is and the PSN its first request carries (IBA 9.7.1, 10.3.1); UD takes none of it. */
static int rl_connect_rtr(struct rl_qp *qp, const struct rl_conn *c)
{
	struct rl_qp_attr a = { .qp_state = RL_QPS_RTR };

	memcpy(a.ah_attr.dgid, c->gid, 16);       /* RoCE routes by GID: there are no LIDs */
	memcpy(a.ah_attr.dmac, c->mac, 6);
	a.ah_attr.traffic_class = c->traffic_class;
	a.ah_attr.hop_limit = c->hop_limit;
	a.ah_attr.udp_sport = c->udp_sport;
	a.path_mtu = c->path_mtu;
	a.dest_qp_num = c->qpn;
	a.rq_psn = c->psn;
	/* RC: responder resources for READ/atomic, and the RNR NAK timer it advertises (IBA Table 46). */
	a.max_dest_rd_atomic = c->max_dest_rd_atomic;
	a.min_rnr_timer = c->min_rnr_timer;
	return rl_connect_step(qp, &a);
}

/* RTR -> RTS: this side's first PSN; for RC how long to wait and how often to retry (IBA 9.7.6). */
static int rl_connect_rts(struct rl_qp *qp, const struct rl_conn *c)
{
	struct rl_qp_attr a = { .qp_state = RL_QPS_RTS };

	a.sq_psn = c->sq_psn;
	/* RC only: */
	a.timeout = c->timeout;
	a.retry_cnt = c->retry_cnt;
	a.rnr_retry = c->rnr_retry;
	a.max_rd_atomic = c->max_rd_atomic;
	return rl_connect_step(qp, &a);
}

int rl_qp_connect(struct rl_qp *qp, const struct rl_conn *conn)
{
	int r;

	if (qp->state != RL_QPS_RESET && qp->state != RL_QPS_INIT) {
		rl_host_set_error(qp->host, "connect starts from RESET or INIT, and this QP is in %s "
				  "(modify it to RESET first)", rl_qp_state_name(qp->state));
		return -EINVAL;
	}
	if (qp->state == RL_QPS_RESET && (r = rl_connect_init(qp, conn)))
		return r;
	if ((r = rl_connect_rtr(qp, conn)))
		return r;
	return rl_connect_rts(qp, conn);
}
