/* SPDX-License-Identifier: MIT */
/*
 * The RC connection, IBA 12.9 (Figures 155-160), as rdma_cm drives it
 * (the kernel's cm.c and cma.c):
 *
 *   active                                  passive
 *   connect:  REQ Sent   --- REQ --->       rl_cm_req_handler(): REQ Rcvd,
 *                                           CONNECT_REQUEST to the consumer
 *             (a resent REQ before accept:  <--- MRA ---  MRA(REQ) Sent)
 *                                           accept: QP to RTS, REP Sent
 *   rl_cm_rep_handler(): QP to RTS,  <--- REP ---
 *   Established, ESTABLISHED  --- RTU --->  Established, ESTABLISHED
 *
 * Each message waiting for an answer is resent after the peer's CM
 * response timeout and a packet lifetime each way, at most max CM retries
 * times (IBA 12.4); a duplicate is answered with what was sent for it
 * before. A REJ ends the attempt (IBA 12.6.7). DREQ/DREP end the
 * connection, then TimeWait (IBA 12.9.9).
 *
 * Starting PSNs: the PSN a REQ or REP carries is where its sender's
 * receive queue starts, so where the recipient's send queue starts (the
 * kernel's cm_req_handler() and cm_rep_handler() set sq_psn from it; in
 * tests/fixtures/rxe/rping.pcap the passive side's data starts at the
 * REQ's PSN).
 */
#include <errno.h>
#include <string.h>

#include "cm_internal.h"

/* ---- the messages --------------------------------------------------------------------------- */

/*
 * A message of this connection: its transaction ID and communication IDs.
 * Every CM message starts with the sender's communication ID, and all but
 * the REQ with the receiver's next (IBA 12.6.5-12.6.12): the MRA's rows
 * serve for all.
 */
static void rl_cm_msg_init(struct rl_rdma_cm_id *id, struct rl_cm *cm, uint16_t attr)
{
	rl_cm_init(cm, attr, id->tid);
	rl_cm_set(cm, RL_CMF_MRA_LOCAL_COMM_ID, id->local_id);
	if (attr != RL_CM_REQ)
		rl_cm_set(cm, RL_CMF_MRA_REMOTE_COMM_ID, id->remote_id);
}

/*
 * rdma_cm's flow label for RoCE: the kernel's cma_get_roce_udp_flow_label(),
 * a hash of the two ports (source * 31 + destination) cut to the GRH's 20
 * bits (IB_GRH_FLOWLABEL_MASK).
 */
#define RL_CM_FLOW_LABEL_PORT_MUL 31u
/*
 * The READ/atomic depth the reference QP takes (verbs.c: 16 at most each
 * way). What the other side offers may be more: the kernel's perftest
 * passes rxe's max_qp_rd_atom (128), and the QP gets the smaller, as the
 * kernel's rdma_cm caps the user's values to what the device can do.
 */
#define RL_CM_MAX_RD_ATOMIC 16

static uint32_t rl_cm_flow_label(const struct rl_rdma_cm_id *id)
{
	return ((uint32_t)id->src.port * RL_CM_FLOW_LABEL_PORT_MUL + id->dst.port) & RL_GRH_FLOW_LABEL_MASK;
}

/* The REQ, as the kernel's cma_connect_ib() and cm_format_req() fill it (IBA 12.6.5). */
static void rl_cm_fmt_req(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *p, struct rl_cm *cm)
{
	struct rl_cm_agent *a = id->agent;
	uint8_t pd[RL_CM_REQ_PRIVATE_DATA_LEN] = { 0 };

	rl_cm_msg_init(id, cm, RL_CM_REQ);
	rl_cm_set(cm, RL_CMF_REQ_SERVICE_ID, rl_cm_service_id(id->ps, id->dst.port));
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_CA_GUID, a->cfg.ca_guid);
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_QPN, rl_qp_num(id->qp));
	rl_cm_set(cm, RL_CMF_REQ_RESPONDER_RESOURCES, p->responder_resources);
	rl_cm_set(cm, RL_CMF_REQ_INITIATOR_DEPTH, p->initiator_depth);
	rl_cm_set(cm, RL_CMF_REQ_REMOTE_CM_RESPONSE_TIMEOUT, a->cfg.response_timeout);
	rl_cm_set(cm, RL_CMF_REQ_TRANSPORT_SERVICE_TYPE, 0);   /* RC */
	rl_cm_set(cm, RL_CMF_REQ_END_TO_END_FLOW_CONTROL, p->flow_control);
	rl_cm_set(cm, RL_CMF_REQ_STARTING_PSN, id->rq_psn);
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_CM_RESPONSE_TIMEOUT, a->cfg.response_timeout);
	rl_cm_set(cm, RL_CMF_REQ_RETRY_COUNT, p->retry_count);
	rl_cm_set(cm, RL_CMF_REQ_PKEY, RL_CM_PKEY_DEFAULT);
	rl_cm_set(cm, RL_CMF_REQ_PATH_MTU, id->path_mtu);
	rl_cm_set(cm, RL_CMF_REQ_RNR_RETRY_COUNT, p->rnr_retry_count);
	rl_cm_set(cm, RL_CMF_REQ_MAX_CM_RETRIES, a->cfg.max_cm_retries);
	rl_cm_set(cm, RL_CMF_REQ_SRQ, p->srq);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_LOCAL_LID, RL_CM_PERMISSIVE_LID);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_REMOTE_LID, RL_CM_PERMISSIVE_LID);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIMARY_LOCAL_GID, id->src.gid, 16);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIMARY_REMOTE_GID, id->dst.gid, 16);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_FLOW_LABEL, rl_cm_flow_label(id));
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_HOP_LIMIT, RL_CM_HOP_LIMIT);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_LOCAL_ACK_TIMEOUT, id->ack_timeout);
	/* The private data: rdma_cm's header (addresses and ports), then the consumer's. */
	rl_cm_put_cma_hdr(id, pd);
	if (p->private_data)
		memcpy(pd + RL_CMA_HDR_LEN, p->private_data,
		       p->private_data_len < RL_CM_REQ_CONSUMER_PD_LEN ? p->private_data_len : RL_CM_REQ_CONSUMER_PD_LEN);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIVATE_DATA, pd, sizeof(pd));
}

/* The REP, as cma_accept_ib() and cm_format_rep() fill it (IBA 12.6.8). */
static void rl_cm_fmt_rep(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *p, struct rl_cm *cm)
{
	rl_cm_msg_init(id, cm, RL_CM_REP);
	rl_cm_set(cm, RL_CMF_REP_LOCAL_QPN, rl_qp_num(id->qp));
	rl_cm_set(cm, RL_CMF_REP_STARTING_PSN, id->rq_psn);
	rl_cm_set(cm, RL_CMF_REP_RESPONDER_RESOURCES, p->responder_resources);
	rl_cm_set(cm, RL_CMF_REP_INITIATOR_DEPTH, p->initiator_depth);
	rl_cm_set(cm, RL_CMF_REP_TARGET_ACK_DELAY, RL_CM_CA_ACK_DELAY);
	rl_cm_set(cm, RL_CMF_REP_END_TO_END_FLOW_CONTROL, p->flow_control);
	rl_cm_set(cm, RL_CMF_REP_RNR_RETRY_COUNT, p->rnr_retry_count);
	rl_cm_set(cm, RL_CMF_REP_SRQ, p->srq);
	rl_cm_set(cm, RL_CMF_REP_LOCAL_CA_GUID, id->agent->cfg.ca_guid);
	if (p->private_data)
		rl_cm_set_bytes(cm, RL_CMF_REP_PRIVATE_DATA, p->private_data, p->private_data_len);
}

/*
 * What a REJ sent in this state refuses (IBA 12.6.7.1): the REQ we hold, the
 * REP we hold, or no message (our own REQ or REP timed out), as the kernel's
 * cm_format_rej() says it.
 */
static enum rl_cm_msg_ref rl_cm_rej_ref(enum rl_cm_state s)
{
	switch (s) {
	case RL_CM_STATE_REQ_RCVD:
	case RL_CM_STATE_MRA_REQ_SENT: return RL_CM_REF_REQ;
	case RL_CM_STATE_REP_RCVD:
	case RL_CM_STATE_MRA_REP_SENT: return RL_CM_REF_REP;
	default: return RL_CM_REF_OTHER;
	}
}

static void rl_cm_fmt_rej(struct rl_rdma_cm_id *id, uint16_t reason, const void *pd, uint8_t len, struct rl_cm *cm)
{
	uint8_t guid[8];
	uint64_t g = id->agent->cfg.ca_guid;

	rl_cm_msg_init(id, cm, RL_CM_REJ);
	/*
	 * From REQ Rcvd the active side does not know our communication ID yet:
	 * the kernel's cm_format_rej() sends 0 there (and ours once an MRA told
	 * it), and the receiver finds a REJ for a REQ by its Remote
	 * Communication ID alone (cm_acquire_rejected_id(); IBA 12.6.7).
	 */
	if (id->state == RL_CM_STATE_REQ_RCVD)
		rl_cm_set(cm, RL_CMF_REJ_LOCAL_COMM_ID, 0);
	rl_cm_set(cm, RL_CMF_REJ_MESSAGE_REJECTED, rl_cm_rej_ref(id->state));
	rl_cm_set(cm, RL_CMF_REJ_REASON, reason);
	if (reason == RL_CM_REJ_TIMEOUT) {   /* ARI: the GUID of the CA that timed out (IBA 12.6.7.2) */
		for (int i = 0; i < 8; i++)
			guid[i] = (uint8_t)(g >> (56 - 8 * i));
		rl_cm_set(cm, RL_CMF_REJ_REJECTED_INFO_LENGTH, 8);
		rl_cm_set_bytes(cm, RL_CMF_REJ_ARI, guid, 8);
	}
	if (pd)
		rl_cm_set_bytes(cm, RL_CMF_REJ_PRIVATE_DATA, pd, len);
}

static void rl_cm_send_rtu(struct rl_rdma_cm_id *id)
{
	struct rl_cm cm;

	rl_cm_msg_init(id, &cm, RL_CM_RTU);
	rl_cm_send(id->agent, id->dst.gid, id->dmac, &cm);
}

static void rl_cm_send_drep(struct rl_rdma_cm_id *id)
{
	struct rl_cm cm;

	rl_cm_msg_init(id, &cm, RL_CM_DREP);
	rl_cm_send(id->agent, id->dst.gid, id->dmac, &cm);
}

/* ---- moving the QP ---------------------------------------------------------------------------------- */

/*
 * INIT -> RTR -> RTS with what the REQ and REP said (the kernel's
 * cm_init_qp_rtr_attr() and cm_init_qp_rts_attr()), through rl_qp_connect().
 */
static int rl_cm_qp_rts(struct rl_rdma_cm_id *id)
{
	struct rl_conn c;

	rl_conn_defaults(&c);
	c.qpn = id->remote_qpn;
	c.psn = id->rq_psn;                 /* what we announced: the peer's first send PSN */
	c.sq_psn = id->sq_psn;              /* what the peer announced */
	memcpy(c.gid, id->dst.gid, 16);
	memcpy(c.mac, id->dmac, 6);
	c.path_mtu = (enum rl_mtu)id->path_mtu;
	c.timeout = id->ack_timeout;
	c.retry_cnt = id->retry_count;
	c.rnr_retry = id->rnr_retry_count;
	c.min_rnr_timer = 0;                /* cm.c's choice: Table 46's 0, 655 ms */
	c.max_rd_atomic = id->initiator_depth < RL_CM_MAX_RD_ATOMIC ? id->initiator_depth : RL_CM_MAX_RD_ATOMIC;
	/* rocelab's responder keeps at least one slot for READ/atomic */
	c.max_dest_rd_atomic = !id->responder_resources ? 1 :
			       id->responder_resources < RL_CM_MAX_RD_ATOMIC ? id->responder_resources : RL_CM_MAX_RD_ATOMIC;
	return rl_qp_connect(id->qp, &c);
}

static void rl_cm_qp_err(struct rl_rdma_cm_id *id)
{
	struct rl_qp_attr attr = { .qp_state = RL_QPS_ERR };

	if (id->qp && rl_qp_state(id->qp) != RL_QPS_RESET)
		rl_modify_qp(id->qp, &attr, RL_QP_STATE);
}

static void rl_cm_timewait(struct rl_rdma_cm_id *id)
{
	/* As the kernel's cm_enter_timewait(): the ACK timeout, time enough for stray packets to die. */
	id->state = RL_CM_STATE_TIMEWAIT;
	id->have_out = false;
	id->timer = id->agent->now + rl_cm_time_ns(id->ack_timeout);
}

/* ---- active side ---------------------------------------------------------------------------------- */

int rl_cm_connect(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *p)
{
	struct rl_cm_agent *a = id->agent;
	struct rl_cm cm;

	id->local_id = rl_cm_new_id(a);
	id->tid = RL_CM_TID_HI << 32 | id->local_id;
	id->rq_psn = rl_cm_random(a) & RL_PSN_MASK;
	id->path_mtu = a->port.active_mtu;
	id->ack_timeout = rl_cm_ack_timeout(RL_CM_CA_ACK_DELAY, a->cfg.packet_lifetime);
	id->retry_count = p->retry_count;
	id->responder_resources = p->responder_resources;
	id->initiator_depth = p->initiator_depth;
	id->remote_cm_timeout = a->cfg.response_timeout;
	id->max_retries = a->cfg.max_cm_retries;
	rl_cm_fmt_req(id, p, &cm);
	id->state = RL_CM_STATE_REQ_SENT;
	rl_cm_id_send(id, &cm, rl_cm_wait_ns(a, id->remote_cm_timeout));
	return 0;
}

/*
 * The active side's REP (IBA 12.9.5.2; the kernel's cm_rep_handler() and
 * cma_rep_recv()): take the passive side's QPN, Starting PSN and depths,
 * move the QP to RTR and RTS, send the RTU: ESTABLISHED.
 */
static void rl_cm_rep_handler(struct rl_rdma_cm_id *id, const struct rl_cm *rep)
{
	struct rl_cm_agent *a = id->agent;
	struct rl_cm rej;
	size_t n;
	const uint8_t *pd = rl_cm_bytes(rep, RL_CMF_REP_PRIVATE_DATA, &n);

	id->state = RL_CM_STATE_REP_RCVD;
	id->timer = RL_CM_NEVER;
	id->remote_id = (uint32_t)rl_cm_get(rep, RL_CMF_REP_LOCAL_COMM_ID);
	id->remote_qpn = (uint32_t)rl_cm_get(rep, RL_CMF_REP_LOCAL_QPN);
	id->sq_psn = (uint32_t)rl_cm_get(rep, RL_CMF_REP_STARTING_PSN);
	id->rnr_retry_count = (uint8_t)rl_cm_get(rep, RL_CMF_REP_RNR_RETRY_COUNT);
	/* What the passive side takes in is what we may send, and the other way round. */
	id->initiator_depth = (uint8_t)rl_cm_get(rep, RL_CMF_REP_RESPONDER_RESOURCES);
	id->responder_resources = (uint8_t)rl_cm_get(rep, RL_CMF_REP_INITIATOR_DEPTH);
	id->ack_timeout = rl_cm_ack_timeout((uint8_t)rl_cm_get(rep, RL_CMF_REP_TARGET_ACK_DELAY), a->cfg.packet_lifetime);
	if (rl_cm_qp_rts(id)) {
		/* cma_rep_recv(): the QP would not move; refuse the REP, tell the consumer. */
		rl_cm_fmt_rej(id, RL_CM_REJ_CONSUMER, NULL, 0, &rej);
		rl_cm_send(a, id->dst.gid, id->dmac, &rej);
		rl_cm_qp_err(id);
		id->state = RL_CM_STATE_IDLE;
		rl_cm_event(id, RL_RDMA_CM_EVENT_CONNECT_ERROR, -EINVAL);
		return;
	}
	rl_cm_send_rtu(id);
	id->state = RL_CM_STATE_ESTABLISHED;
	id->have_out = false;
	rl_cm_event_data(rl_cm_event(id, RL_RDMA_CM_EVENT_ESTABLISHED, 0), pd, n);
}

static void rl_cm_recv_rep(struct rl_cm_agent *a, const struct rl_cm *rep)
{
	struct rl_rdma_cm_id *id = rl_cm_find_local(a, (uint32_t)rl_cm_get(rep, RL_CMF_REP_REMOTE_COMM_ID));

	if (!id) {
		a->stats.dropped++;
		return;
	}
	if (id->state == RL_CM_STATE_REQ_SENT || id->state == RL_CM_STATE_MRA_REQ_RCVD) {
		rl_cm_rep_handler(id, rep);
	} else if (id->state == RL_CM_STATE_ESTABLISHED && id->remote_id == rl_cm_get(rep, RL_CMF_REP_LOCAL_COMM_ID)) {
		a->stats.dup_recv++;   /* our RTU was lost: the passive side resent its REP (IBA 12.9.5.3) */
		rl_cm_send_rtu(id);
	} else {
		a->stats.dup_recv++;
	}
}

/*
 * MRA for our REQ: the passive side needs longer; wait its service timeout
 * (IBA 12.6.6), for this REQ and every resend of it, as the kernel's
 * cm_mra_handler() changes the MAD's timeout with ib_modify_mad(). One MRA
 * per REQ: in MRA(REQ) Rcvd another is a duplicate (the passive side
 * answers each resent REQ with its MRA again) and changes nothing.
 */
static void rl_cm_recv_mra(struct rl_cm_agent *a, const struct rl_cm *mra)
{
	struct rl_rdma_cm_id *id = rl_cm_find_local(a, (uint32_t)rl_cm_get(mra, RL_CMF_MRA_REMOTE_COMM_ID));

	if (!id || rl_cm_get(mra, RL_CMF_MRA_MESSAGE_MRAED) != RL_CM_REF_REQ ||
	    (id->state != RL_CM_STATE_REQ_SENT && id->state != RL_CM_STATE_MRA_REQ_RCVD)) {
		a->stats.dropped++;
		return;
	}
	if (id->state == RL_CM_STATE_MRA_REQ_RCVD) {
		a->stats.dup_recv++;
		return;
	}
	id->state = RL_CM_STATE_MRA_REQ_RCVD;
	id->mra_timeout = (uint8_t)rl_cm_get(mra, RL_CMF_MRA_SERVICE_TIMEOUT);
	id->timer = a->now + rl_cm_wait_ns(a, id->mra_timeout);
}

/* ---- passive side ---------------------------------------------------------------------------------- */

/* The id a resent REQ belongs to: same remote communication ID, from the same GID. */
static struct rl_rdma_cm_id *rl_cm_find_req(struct rl_cm_agent *a, const struct rl_cm_rx *rx)
{
	uint32_t remote = (uint32_t)rl_cm_get(&rx->cm, RL_CMF_REQ_LOCAL_COMM_ID);

	for (struct rl_rdma_cm_id *id = a->ids; id; id = id->next)
		if (id->listener && id->remote_id == remote && !memcmp(id->dst.gid, rx->gid, 16))
			return id;
	return NULL;
}

/* A REQ seen before: the consumer is still deciding (MRA), or it is answered already (the answer again). */
static void rl_cm_dup_req(struct rl_rdma_cm_id *id)
{
	struct rl_cm_agent *a = id->agent;
	struct rl_cm mra;

	a->stats.dup_recv++;
	if (id->state == RL_CM_STATE_REQ_RCVD) {
		/* rdma_cm's delayed MRA (CMA_CM_MRA_SETTING): sent only once the active side resends. */
		rl_cm_msg_init(id, &mra, RL_CM_MRA);
		rl_cm_set(&mra, RL_CMF_MRA_MESSAGE_MRAED, RL_CM_REF_REQ);
		rl_cm_set(&mra, RL_CMF_MRA_SERVICE_TIMEOUT, a->cfg.mra_timeout);
		id->state = RL_CM_STATE_MRA_REQ_SENT;
		rl_cm_id_send(id, &mra, RL_CM_NEVER);
	} else if (id->have_out && (id->state == RL_CM_STATE_MRA_REQ_SENT || id->state == RL_CM_STATE_REP_SENT ||
				    id->state == RL_CM_STATE_IDLE)) {
		rl_cm_send(a, id->dst.gid, id->dmac, &id->out);   /* the MRA, the REP or the REJ again */
	}
}

/* What the REQ says this side's QP must be, kept for accept. */
static void rl_cm_take_req(struct rl_rdma_cm_id *id, const struct rl_cm_rx *rx, const struct rl_cma_hdr *h)
{
	const struct rl_cm *req = &rx->cm;
	struct rl_cm_agent *a = id->agent;

	id->state = RL_CM_STATE_REQ_RCVD;
	id->local_id = rl_cm_new_id(a);
	id->remote_id = (uint32_t)rl_cm_get(req, RL_CMF_REQ_LOCAL_COMM_ID);
	id->tid = rl_cm_get(req, RL_CMF_MAD_TID);   /* the answers carry the REQ's transaction ID */
	id->remote_qpn = (uint32_t)rl_cm_get(req, RL_CMF_REQ_LOCAL_QPN);
	id->sq_psn = (uint32_t)rl_cm_get(req, RL_CMF_REQ_STARTING_PSN);
	id->rq_psn = rl_cm_random(a) & RL_PSN_MASK;
	id->path_mtu = (uint8_t)rl_cm_get(req, RL_CMF_REQ_PATH_MTU);
	if (id->path_mtu > a->port.active_mtu)
		id->path_mtu = a->port.active_mtu;
	id->retry_count = (uint8_t)rl_cm_get(req, RL_CMF_REQ_RETRY_COUNT);
	id->rnr_retry_count = (uint8_t)rl_cm_get(req, RL_CMF_REQ_RNR_RETRY_COUNT);
	id->ack_timeout = (uint8_t)rl_cm_get(req, RL_CMF_REQ_PRIMARY_LOCAL_ACK_TIMEOUT);
	id->remote_cm_timeout = (uint8_t)rl_cm_get(req, RL_CMF_REQ_LOCAL_CM_RESPONSE_TIMEOUT);
	id->max_retries = (uint8_t)rl_cm_get(req, RL_CMF_REQ_MAX_CM_RETRIES);
	memcpy(id->dst.gid, rx->gid, 16);
	memcpy(id->dmac, rx->mac, 6);
	id->dst.port = h->src_port;
	memcpy(id->src.gid, a->port.gid, 16);
	id->src.port = id->listener->src.port;
	id->addr_resolved = id->route_resolved = true;
}

/* false if there was no memory for the event */
static bool rl_cm_connect_request_event(struct rl_rdma_cm_id *id, const struct rl_cm *req)
{
	struct rl_rdma_cm_event *ev = rl_cm_event(id, RL_RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	size_t n;
	const uint8_t *pd = rl_cm_bytes(req, RL_CMF_REQ_PRIVATE_DATA, &n);

	if (!ev)
		return false;
	ev->listen_id = id->listener;
	/* rdma_cm hands the consumer the private data after its own header. */
	rl_cm_event_data(ev, pd + RL_CMA_HDR_LEN, n - RL_CMA_HDR_LEN);
	/* The active side's offer, seen from here: what it takes in is what we may send. */
	ev->conn.responder_resources = (uint8_t)rl_cm_get(req, RL_CMF_REQ_INITIATOR_DEPTH);
	ev->conn.initiator_depth = (uint8_t)rl_cm_get(req, RL_CMF_REQ_RESPONDER_RESOURCES);
	ev->conn.flow_control = (uint8_t)rl_cm_get(req, RL_CMF_REQ_END_TO_END_FLOW_CONTROL);
	ev->conn.retry_count = id->retry_count;
	ev->conn.rnr_retry_count = id->rnr_retry_count;
	ev->conn.srq = (uint8_t)rl_cm_get(req, RL_CMF_REQ_SRQ);
	ev->conn.qp_num = id->remote_qpn;
	return true;
}

/*
 * The passive side's REQ (IBA 12.9.6; the kernel's cm_req_handler() and
 * cma_ib_req_handler()): a resent REQ is answered again; a REQ for a
 * service nobody listens on gets REJ 8 (invalid service ID); otherwise a
 * new id in REQ Rcvd, and CONNECT_REQUEST for the consumer to accept or
 * reject.
 */
static void rl_cm_req_handler(struct rl_cm_agent *a, const struct rl_cm_rx *rx)
{
	const struct rl_cm *req = &rx->cm;
	struct rl_rdma_cm_id *lid, *id = rl_cm_find_req(a, rx);
	struct rl_cma_hdr h;
	size_t n;
	const uint8_t *pd = rl_cm_bytes(req, RL_CMF_REQ_PRIVATE_DATA, &n);

	if (id) {
		rl_cm_dup_req(id);
		return;
	}
	lid = rl_cm_find_listener(a, RL_RDMA_PS_TCP, rl_cm_get(req, RL_CMF_REQ_SERVICE_ID),
				  rl_cm_bytes(req, RL_CMF_REQ_PRIMARY_REMOTE_GID, &(size_t){ 0 }));
	if (!lid || !rl_cma_hdr_decode(pd, n, &h)) {
		rl_cm_rej_unknown(a, rx, RL_CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (rl_cm_get(req, RL_CMF_REQ_TRANSPORT_SERVICE_TYPE) != 0) {
		rl_cm_rej_unknown(a, rx, RL_CM_REJ_INVALID_TRANSPORT);   /* rdma_cm's TCP port space is RC */
		return;
	}
	if (!rl_mtu_bytes((enum rl_mtu)rl_cm_get(req, RL_CMF_REQ_PATH_MTU))) {
		rl_cm_rej_unknown(a, rx, RL_CM_REJ_INVALID_MTU);   /* 1..5 for 256..4096 (IBA 12.6.5); no QP takes another */
		return;
	}
	/*
	 * Backlog full: dropped without a word, so that the REQ gets in when the
	 * active side resends it once the consumer took its events (ucma's -ENOMEM,
	 * which the kernel's cm_destroy_id() answers with no REJ "to allow future retries").
	 */
	if (!rx->have_mac || rl_cm_backlog_full(lid) || !(id = rl_cm_id_new(a, lid->context, RL_RDMA_PS_TCP))) {
		a->stats.dropped++;   /* no way to answer, or no room; the active side will resend */
		return;
	}
	id->listener = lid;
	rl_cm_take_req(id, rx, &h);
	if (!rl_cm_connect_request_event(id, req)) {
		/*
		 * No consumer will hear of this id: it goes, and the REQ with it,
		 * unanswered, as the kernel's cm_destroy_id() does for ucma's -ENOMEM
		 * ("Do not reject to allow future retries"); the resent REQ gets in.
		 */
		rl_rdma_destroy_id(id);
		return;
	}
}

int rl_cm_accept(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *p)
{
	struct rl_cm rep;
	struct rl_qp_stats st;
	int r;

	id->responder_resources = p->responder_resources;
	id->initiator_depth = p->initiator_depth;
	if ((r = rl_cm_qp_rts(id)))
		return r;
	rl_cm_fmt_rep(id, p, &rep);
	id->state = RL_CM_STATE_REP_SENT;
	rl_qp_stats(id->qp, &st);
	id->comm_est_pkts = st.pkts_recv;
	rl_cm_id_send(id, &rep, rl_cm_wait_ns(id->agent, id->remote_cm_timeout));
	return 0;
}

static void rl_cm_established(struct rl_rdma_cm_id *id, const struct rl_cm *rtu)
{
	size_t n = 0;

	id->state = RL_CM_STATE_ESTABLISHED;
	id->timer = RL_CM_NEVER;
	id->have_out = false;
	rl_cm_event_data(rl_cm_event(id, RL_RDMA_CM_EVENT_ESTABLISHED, 0),
			 rtu ? rl_cm_bytes(rtu, RL_CMF_RTU_PRIVATE_DATA, &n) : NULL, n);
}

static void rl_cm_recv_rtu(struct rl_cm_agent *a, const struct rl_cm *rtu)
{
	struct rl_rdma_cm_id *id = rl_cm_find_local(a, (uint32_t)rl_cm_get(rtu, RL_CMF_RTU_REMOTE_COMM_ID));

	/* Both communication IDs must be the connection's, as the kernel's cm_rtu_handler() looks it up. */
	if (id && id->state == RL_CM_STATE_REP_SENT && id->remote_id == rl_cm_get(rtu, RL_CMF_RTU_LOCAL_COMM_ID))
		rl_cm_established(id, rtu);
	else
		a->stats.dup_recv++;
}

/*
 * RTU lost, data came: the QP's first received packet while the CM waits
 * for the RTU is IBA 11.6.3.1's Communication Established event, which the
 * CM takes as the RTU (IBA 12.9.6.3; the kernel's ib_cm_notify()).
 */
void rl_cm_comm_est_check(struct rl_rdma_cm_id *id)
{
	struct rl_qp_stats st;

	if (id->state != RL_CM_STATE_REP_SENT || !id->qp)
		return;
	rl_qp_stats(id->qp, &st);
	if (st.pkts_recv > id->comm_est_pkts)
		rl_cm_established(id, NULL);
}

/* ---- refusing ---------------------------------------------------------------------------------- */

int rl_cm_reject(struct rl_rdma_cm_id *id, const void *pd, uint8_t len)
{
	struct rl_cm rej;

	rl_cm_fmt_rej(id, RL_CM_REJ_CONSUMER, pd, len, &rej);
	id->state = RL_CM_STATE_IDLE;
	rl_cm_id_send(id, &rej, RL_CM_NEVER);   /* kept: a resent REQ gets it again */
	return 0;
}

void rl_cm_rej_unknown(struct rl_cm_agent *a, const struct rl_cm_rx *rx, uint16_t reason)
{
	struct rl_cm rej;

	if (!rx->have_mac) {
		a->stats.dropped++;
		return;
	}
	rl_cm_init(&rej, RL_CM_REJ, rl_cm_get(&rx->cm, RL_CMF_MAD_TID));
	rl_cm_set(&rej, RL_CMF_REJ_REMOTE_COMM_ID, rl_cm_get(&rx->cm, RL_CMF_REQ_LOCAL_COMM_ID));
	rl_cm_set(&rej, RL_CMF_REJ_MESSAGE_REJECTED, RL_CM_REF_REQ);
	rl_cm_set(&rej, RL_CMF_REJ_REASON, reason);
	rl_cm_send(a, rx->gid, rx->mac, &rej);
}

/* A REJ ends the attempt (IBA 12.6.7): the consumer learns why, its QP goes to ERR. */
static void rl_cm_recv_rej(struct rl_cm_agent *a, const struct rl_cm *rej)
{
	struct rl_rdma_cm_id *id = rl_cm_find_local(a, (uint32_t)rl_cm_get(rej, RL_CMF_REJ_REMOTE_COMM_ID));
	uint32_t from = (uint32_t)rl_cm_get(rej, RL_CMF_REJ_LOCAL_COMM_ID);
	size_t n;
	const uint8_t *pd = rl_cm_bytes(rej, RL_CMF_REJ_PRIVATE_DATA, &n);
	struct rl_rdma_cm_event *ev;

	if (!id || (from && id->remote_id && from != id->remote_id)) {
		a->stats.dropped++;
		return;
	}
	switch (id->state) {
	case RL_CM_STATE_REQ_SENT:
	case RL_CM_STATE_MRA_REQ_RCVD:
	case RL_CM_STATE_REQ_RCVD:
	case RL_CM_STATE_MRA_REQ_SENT:
	case RL_CM_STATE_REP_SENT:
		rl_cm_qp_err(id);
		id->state = RL_CM_STATE_IDLE;
		id->timer = RL_CM_NEVER;
		id->have_out = false;
		ev = rl_cm_event(id, RL_RDMA_CM_EVENT_REJECTED, (int)rl_cm_get(rej, RL_CMF_REJ_REASON));
		rl_cm_event_data(ev, pd, n);
		break;
	case RL_CM_STATE_ESTABLISHED:
		/* The passive side gave up waiting for an RTU that never came: the connection is gone. */
		rl_cm_qp_err(id);
		rl_cm_timewait(id);
		rl_cm_event(id, RL_RDMA_CM_EVENT_DISCONNECTED, 0);
		break;
	default:
		a->stats.dup_recv++;
		break;
	}
}

/* ---- disconnecting ---------------------------------------------------------------------------------- */

int rl_cm_disconnect(struct rl_rdma_cm_id *id)
{
	struct rl_cm dreq;

	if (id->state == RL_CM_STATE_DREQ_RCVD) {
		rl_cm_qp_err(id);
		rl_cm_send_drep(id);
		rl_cm_timewait(id);
		return 0;
	}
	if (id->state == RL_CM_STATE_TIMEWAIT)
		return 0;   /* already over (the peer's REJ, or our DREQ unanswered): as rdma_disconnect(), nothing to do */
	if (id->state == RL_CM_STATE_REP_SENT) {
		/*
		 * Before the RTU, cma.c's rdma_disconnect() moves the QP to ERR, and
		 * then neither ib_send_cm_dreq() (it needs Established) nor
		 * ib_send_cm_drep() (it needs DREQ Rcvd) sends anything: the REP
		 * waits for its RTU, or times out, as before.
		 */
		rl_cm_qp_err(id);
		return 0;
	}
	if (id->state != RL_CM_STATE_ESTABLISHED)
		return -EINVAL;
	/* rdma_disconnect(): the QP to ERR first, then the DREQ (IBA 12.6.10). */
	rl_cm_qp_err(id);
	rl_cm_msg_init(id, &dreq, RL_CM_DREQ);
	rl_cm_set(&dreq, RL_CMF_MAD_TID, RL_CM_TID_HI << 32 | id->local_id);
	rl_cm_set(&dreq, RL_CMF_DREQ_REMOTE_QPN, id->remote_qpn);
	id->state = RL_CM_STATE_DREQ_SENT;
	rl_cm_id_send(id, &dreq, rl_cm_wait_ns(id->agent, id->remote_cm_timeout));
	return 0;
}

static void rl_cm_recv_dreq(struct rl_cm_agent *a, const struct rl_cm_rx *rx)
{
	const struct rl_cm *dreq = &rx->cm;
	struct rl_rdma_cm_id *id = rl_cm_find_local(a, (uint32_t)rl_cm_get(dreq, RL_CMF_DREQ_REMOTE_COMM_ID));
	struct rl_cm drep;

	if (!id || id->remote_id != rl_cm_get(dreq, RL_CMF_DREQ_LOCAL_COMM_ID) || id->state == RL_CM_STATE_IDLE) {
		/*
		 * No such connection (any more: its TimeWait is over, our DREP was
		 * lost): the kernel's cm_issue_drep() answers anyway.
		 */
		if (!rx->have_mac)
			return;
		rl_cm_init(&drep, RL_CM_DREP, rl_cm_get(dreq, RL_CMF_MAD_TID));
		rl_cm_set(&drep, RL_CMF_DREP_LOCAL_COMM_ID, rl_cm_get(dreq, RL_CMF_DREQ_REMOTE_COMM_ID));
		rl_cm_set(&drep, RL_CMF_DREP_REMOTE_COMM_ID, rl_cm_get(dreq, RL_CMF_DREQ_LOCAL_COMM_ID));
		rl_cm_send(a, rx->gid, rx->mac, &drep);
		return;
	}
	/*
	 * The DREQ names the QP it ends (IBA 12.6.10, Remote QPN): one for another
	 * QP is not this connection's, and goes unanswered, as the kernel's
	 * cm_dreq_handler() drops it.
	 */
	if (!id->qp || rl_cm_get(dreq, RL_CMF_DREQ_REMOTE_QPN) != rl_qp_num(id->qp)) {
		a->stats.dropped++;
		return;
	}
	id->tid = rl_cm_get(dreq, RL_CMF_MAD_TID);   /* the DREP answers with the DREQ's */
	switch (id->state) {
	case RL_CM_STATE_ESTABLISHED:
	case RL_CM_STATE_REP_SENT:
		id->state = RL_CM_STATE_DREQ_RCVD;
		id->timer = RL_CM_NEVER;
		rl_cm_event(id, RL_RDMA_CM_EVENT_DISCONNECTED, 0);   /* the consumer answers with rdma_disconnect() */
		break;
	case RL_CM_STATE_DREQ_SENT:   /* both ended it at once: answer, and wait for our own DREP */
	case RL_CM_STATE_TIMEWAIT:    /* our DREP was lost */
		rl_cm_send_drep(id);
		break;
	default:
		a->stats.dup_recv++;
		break;
	}
}

static void rl_cm_recv_drep(struct rl_cm_agent *a, const struct rl_cm *drep)
{
	struct rl_rdma_cm_id *id = rl_cm_find_local(a, (uint32_t)rl_cm_get(drep, RL_CMF_DREP_REMOTE_COMM_ID));

	if (!id || id->state != RL_CM_STATE_DREQ_SENT || id->remote_id != rl_cm_get(drep, RL_CMF_DREP_LOCAL_COMM_ID)) {
		a->stats.dup_recv++;
		return;
	}
	rl_cm_timewait(id);
	rl_cm_event(id, RL_RDMA_CM_EVENT_DISCONNECTED, 0);
}

/* ---- timers ---------------------------------------------------------------------------------- */

/* Retries spent: REJ with reason timeout (IBA 12.9.5.1), UNREACHABLE for the consumer (cma.c). */
static void rl_cm_give_up(struct rl_rdma_cm_id *id)
{
	struct rl_cm rej;

	rl_cm_fmt_rej(id, RL_CM_REJ_TIMEOUT, NULL, 0, &rej);
	rl_cm_send(id->agent, id->dst.gid, id->dmac, &rej);
	rl_cm_qp_err(id);
	id->state = RL_CM_STATE_IDLE;
	id->have_out = false;
	rl_cm_event(id, RL_RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
}

void rl_cm_conn_timeout(struct rl_rdma_cm_id *id)
{
	struct rl_cm_agent *a = id->agent;

	if (id->state == RL_CM_STATE_TIMEWAIT) {
		id->state = RL_CM_STATE_IDLE;
		rl_cm_event(id, RL_RDMA_CM_EVENT_TIMEWAIT_EXIT, 0);
		return;
	}
	if (!id->have_out)
		return;
	if (id->retries < id->max_retries) {
		id->retries++;
		a->stats.resends++;
		id->timer = a->now + rl_cm_wait_ns(a, id->state == RL_CM_STATE_MRA_REQ_RCVD ? id->mra_timeout
											: id->remote_cm_timeout);
		rl_cm_send(a, id->dst.gid, id->dmac, &id->out);
		return;
	}
	if (id->state == RL_CM_STATE_DREQ_SENT) {   /* no DREP: the connection is over anyway */
		rl_cm_timewait(id);
		rl_cm_event(id, RL_RDMA_CM_EVENT_DISCONNECTED, 0);
	} else {
		rl_cm_give_up(id);
	}
}

void rl_cm_recv_conn(struct rl_cm_agent *a, const struct rl_cm_rx *rx)
{
	switch (rx->cm.attr) {
	case RL_CM_REQ: rl_cm_req_handler(a, rx); break;
	case RL_CM_MRA: rl_cm_recv_mra(a, &rx->cm); break;
	case RL_CM_REJ: rl_cm_recv_rej(a, &rx->cm); break;
	case RL_CM_REP: rl_cm_recv_rep(a, &rx->cm); break;
	case RL_CM_RTU: rl_cm_recv_rtu(a, &rx->cm); break;
	case RL_CM_DREQ: rl_cm_recv_dreq(a, rx); break;
	case RL_CM_DREP: rl_cm_recv_drep(a, &rx->cm); break;
	default: a->stats.dropped++; break;   /* LAP, APR: no alternate paths here */
	}
}
