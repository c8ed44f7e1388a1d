/* SPDX-License-Identifier: MIT */
/*
 * Service ID Resolution, IBA 12.11: how a UD consumer (rdma_cm's
 * RDMA_PS_UDP, udaddy) learns the QPN and Q_Key of the service it wants.
 *
 *   active: connect     --- SIDR_REQ --->  CONNECT_REQUEST; the consumer
 *                                          accepts (status 0, its QPN and
 *           ESTABLISHED <--- SIDR_REP ---  Q_Key) or rejects (status 2)
 *
 * The SIDR_REQ is resent after the CM response timeout, max CM retries
 * times (the kernel's cma_resolve_ib_udp()); the passive side answers a
 * resent SIDR_REQ with its SIDR_REP again, and ignores one it is still
 * deciding on.
 */
#include <errno.h>
#include <string.h>

#include "cm_internal.h"

int rl_cm_sidr_connect(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *p)
{
	struct rl_cm_agent *a = id->agent;
	uint8_t pd[RL_CM_SIDR_REQ_PRIVATE_DATA_LEN] = { 0 };
	size_t n = p && p->private_data ? p->private_data_len : 0;
	struct rl_cm req;

	id->local_id = id->remote_id = rl_cm_new_id(a);   /* the request ID */
	id->tid = RL_CM_TID_HI << 32 | id->local_id;
	id->remote_cm_timeout = a->cfg.response_timeout;
	id->max_retries = a->cfg.max_cm_retries;
	rl_cm_init(&req, RL_CM_SIDR_REQ, id->tid);
	rl_cm_set(&req, RL_CMF_SIDR_REQ_REQUEST_ID, id->local_id);
	rl_cm_set(&req, RL_CMF_SIDR_REQ_PKEY, RL_CM_PKEY_DEFAULT);
	rl_cm_set(&req, RL_CMF_SIDR_REQ_SERVICE_ID, rl_cm_service_id(id->ps, id->dst.port));
	rl_cm_put_cma_hdr(id, pd);
	if (n > RL_CM_SIDR_REQ_CONSUMER_PD_LEN)
		n = RL_CM_SIDR_REQ_CONSUMER_PD_LEN;
	if (n)
		memcpy(pd + RL_CMA_HDR_LEN, p->private_data, n);
	rl_cm_set_bytes(&req, RL_CMF_SIDR_REQ_PRIVATE_DATA, pd, sizeof(pd));
	id->state = RL_CM_STATE_SIDR_REQ_SENT;
	/* cma_resolve_ib_udp(): the CM response timeout alone, no packet lifetimes */
	rl_cm_id_send(id, &req, rl_cm_time_ns(id->remote_cm_timeout));
	return 0;
}

void rl_cm_sidr_timeout(struct rl_rdma_cm_id *id)
{
	struct rl_cm_agent *a = id->agent;

	if (id->retries < id->max_retries) {
		id->retries++;
		a->stats.resends++;
		id->timer = a->now + rl_cm_time_ns(id->remote_cm_timeout);
		rl_cm_send(a, id->dst.gid, id->dmac, &id->out);
		return;
	}
	id->state = RL_CM_STATE_IDLE;
	id->have_out = false;
	rl_cm_event(id, RL_RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
}

static void rl_cm_fmt_sidr_rep(struct rl_cm *rep, uint64_t tid, uint32_t request_id, uint64_t sid,
			       enum rl_sidr_status st)
{
	rl_cm_init(rep, RL_CM_SIDR_REP, tid);
	rl_cm_set(rep, RL_CMF_SIDR_REP_REQUEST_ID, request_id);
	rl_cm_set(rep, RL_CMF_SIDR_REP_STATUS, st);
	rl_cm_set(rep, RL_CMF_SIDR_REP_SERVICE_ID, sid);
}

int rl_cm_sidr_answer(struct rl_rdma_cm_id *id, enum rl_sidr_status st, const struct rl_rdma_conn_param *p)
{
	struct rl_qp_attr attr;
	struct rl_cm rep;

	rl_cm_fmt_sidr_rep(&rep, id->tid, id->remote_id, rl_cm_service_id(id->ps, id->src.port), st);
	if (st == RL_SIDR_SUCCESS) {
		rl_query_qp(id->qp, &attr);
		rl_cm_set(&rep, RL_CMF_SIDR_REP_QPN, p && p->qp_num ? p->qp_num : rl_qp_num(id->qp));
		rl_cm_set(&rep, RL_CMF_SIDR_REP_QKEY, attr.qkey);
	}
	if (p && p->private_data)
		rl_cm_set_bytes(&rep, RL_CMF_SIDR_REP_PRIVATE_DATA, p->private_data, p->private_data_len);
	id->state = RL_CM_STATE_IDLE;
	id->sidr_answered = true;
	rl_cm_id_send(id, &rep, RL_CM_NEVER);   /* kept: a resent SIDR_REQ gets it again */
	return 0;
}

static struct rl_rdma_cm_id *rl_cm_find_sidr(struct rl_cm_agent *a, uint32_t request_id, const uint8_t gid[16])
{
	for (struct rl_rdma_cm_id *id = a->ids; id; id = id->next)
		if (id->listener && id->ps == RL_RDMA_PS_UDP && id->remote_id == request_id && !memcmp(id->dst.gid, gid, 16))
			return id;
	return NULL;
}

/* The passive side's SIDR_REQ (IBA 12.11.1; the kernel's cm_sidr_req_handler() and cma_ib_req_handler()). */
static void rl_cm_sidr_req_handler(struct rl_cm_agent *a, const struct rl_cm_rx *rx)
{
	const struct rl_cm *req = &rx->cm;
	uint32_t rid = (uint32_t)rl_cm_get(req, RL_CMF_SIDR_REQ_REQUEST_ID);
	uint64_t sid = rl_cm_get(req, RL_CMF_SIDR_REQ_SERVICE_ID);
	struct rl_rdma_cm_id *lid, *id = rl_cm_find_sidr(a, rid, rx->gid);
	struct rl_rdma_cm_event *ev;
	struct rl_cma_hdr h;
	struct rl_cm rep;
	size_t n;
	const uint8_t *pd = rl_cm_bytes(req, RL_CMF_SIDR_REQ_PRIVATE_DATA, &n);

	if (id) {
		a->stats.dup_recv++;
		if (id->sidr_answered)
			rl_cm_send(a, id->dst.gid, id->dmac, &id->out);
		return;
	}
	if (!rx->have_mac) {
		a->stats.dropped++;
		return;
	}
	lid = rl_cm_find_listener(a, RL_RDMA_PS_UDP, sid, NULL);
	if (!lid || !rl_cma_hdr_decode(pd, n, &h)) {
		rl_cm_fmt_sidr_rep(&rep, rl_cm_get(req, RL_CMF_MAD_TID), rid, sid, RL_SIDR_UNSUPPORTED);
		rl_cm_send(a, rx->gid, rx->mac, &rep);
		return;
	}
	if (rl_cm_backlog_full(lid)) {
		/* The kernel refuses a SIDR_REQ its consumer has no room for: cm_destroy_id() in SIDR REQ Rcvd says "rejected". */
		rl_cm_fmt_sidr_rep(&rep, rl_cm_get(req, RL_CMF_MAD_TID), rid, sid, RL_SIDR_REJECT);
		rl_cm_send(a, rx->gid, rx->mac, &rep);
		return;
	}
	if (!(id = rl_cm_id_new(a, lid->context, RL_RDMA_PS_UDP)))
		return;
	id->listener = lid;
	id->state = RL_CM_STATE_SIDR_REQ_RCVD;
	/*
	 * The request ID is the sender's to choose: kept apart from our
	 * communication IDs (the kernel's remote SIDR table), so that a SIDR_REQ
	 * cannot take the ID of a connection here and get its messages.
	 */
	id->remote_id = rid;
	id->local_id = 0;
	id->tid = rl_cm_get(req, RL_CMF_MAD_TID);
	memcpy(id->dst.gid, rx->gid, 16);
	memcpy(id->dmac, rx->mac, 6);
	id->dst.port = h.src_port;
	memcpy(id->src.gid, a->port.gid, 16);
	id->src.port = lid->src.port;
	id->addr_resolved = id->route_resolved = true;
	ev = rl_cm_event(id, RL_RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (!ev) {
		/* No consumer will hear of it: as for a full backlog, "rejected" (the kernel's cm_destroy_id()), and the id goes. */
		rl_rdma_destroy_id(id);
		rl_cm_fmt_sidr_rep(&rep, rl_cm_get(req, RL_CMF_MAD_TID), rid, sid, RL_SIDR_REJECT);
		rl_cm_send(a, rx->gid, rx->mac, &rep);
		return;
	}
	ev->listen_id = lid;
	rl_cm_event_data(ev, pd + RL_CMA_HDR_LEN, n - RL_CMA_HDR_LEN);
}

/* The active side's SIDR_REP: the QPN and Q_Key to send to, or why not (IBA 12.11.2). */
static void rl_cm_sidr_rep_handler(struct rl_cm_agent *a, const struct rl_cm *rep)
{
	struct rl_rdma_cm_id *id = rl_cm_find_local(a, (uint32_t)rl_cm_get(rep, RL_CMF_SIDR_REP_REQUEST_ID));
	uint64_t st = rl_cm_get(rep, RL_CMF_SIDR_REP_STATUS);
	struct rl_rdma_cm_event *ev;
	size_t n;
	const uint8_t *pd = rl_cm_bytes(rep, RL_CMF_SIDR_REP_PRIVATE_DATA, &n);

	if (!id || id->state != RL_CM_STATE_SIDR_REQ_SENT) {
		a->stats.dup_recv++;
		return;
	}
	id->state = RL_CM_STATE_IDLE;
	id->timer = RL_CM_NEVER;
	id->have_out = false;
	if (st != RL_SIDR_SUCCESS) {
		rl_cm_event_data(rl_cm_event(id, RL_RDMA_CM_EVENT_UNREACHABLE, (int)st), pd, n);
		return;
	}
	ev = rl_cm_event(id, RL_RDMA_CM_EVENT_ESTABLISHED, 0);
	if (!ev)
		return;
	rl_cm_event_data(ev, pd, n);
	ev->ud.qp_num = (uint32_t)rl_cm_get(rep, RL_CMF_SIDR_REP_QPN);
	ev->ud.qkey = (uint32_t)rl_cm_get(rep, RL_CMF_SIDR_REP_QKEY);
	memcpy(ev->ud.ah_attr.dgid, id->dst.gid, 16);
	memcpy(ev->ud.ah_attr.dmac, id->dmac, 6);
	ev->ud.ah_attr.hop_limit = RL_CM_HOP_LIMIT;
}

void rl_cm_recv_sidr(struct rl_cm_agent *a, const struct rl_cm_rx *rx)
{
	if (rx->cm.attr == RL_CM_SIDR_REQ)
		rl_cm_sidr_req_handler(a, rx);
	else
		rl_cm_sidr_rep_handler(a, &rx->cm);
}
