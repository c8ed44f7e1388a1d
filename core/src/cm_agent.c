/* SPDX-License-Identifier: MIT */
/*
 * The CM agent: a verbs consumer that owns QP1 (the GSI, IBA 13.5.1), as
 * the kernel's ib_mad does for ib_cm. It keeps RL_CM_RECV_BUFS receive
 * buffers posted on QP1, sends each MAD as a UD SEND to the peer's QP1 with
 * Q_Key 0x80010000, and on every run takes what QP1 received (each buffer
 * starts with the 40-byte GRH that names the sender, IBA 11.4.1.2), hands
 * it to the connection (cm_conn.c) or SIDR (cm_sidr.c) code, and fires the
 * timers of the messages that wait for an answer (IBA 12.4).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm_internal.h"

const char *rl_cm_state_name(enum rl_cm_state s)
{
	static const char *const n[] = {
#define RL_CM_STATE_NAME(tok, name) name,
		RL_CM_STATE_ROWS(RL_CM_STATE_NAME)
#undef RL_CM_STATE_NAME
	};

	return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

uint8_t rl_cm_ack_timeout(uint8_t ca_ack_delay, uint8_t packet_lifetime)
{
	unsigned t = packet_lifetime + 1u;   /* 2 * lifetime */

	/* 2^a + 2^b is 2^max, or 2^(max + 1) when the two are within one of each other. */
	if (t >= ca_ack_delay)
		t += ca_ack_delay + 1u >= t;
	else
		t = ca_ack_delay + (t + 1u >= ca_ack_delay);
	return (uint8_t)(t < 31 ? t : 31);
}

/* xorshift64*: every ID and PSN the agent makes up comes from its seed. */
uint32_t rl_cm_random(struct rl_cm_agent *a)
{
	a->rng ^= a->rng >> 12;
	a->rng ^= a->rng << 25;
	a->rng ^= a->rng >> 27;
	return (uint32_t)((a->rng * 0x2545f4914f6cdd1dull) >> 32);
}

uint32_t rl_cm_new_id(struct rl_cm_agent *a) { return rl_cm_random(a) | RL_CM_ID_NOT_ZERO; }

uint64_t rl_cm_wait_ns(const struct rl_cm_agent *a, uint8_t timeout)
{
	/* The kernel's ib_send_cm_req(): the peer's time to answer, and a packet lifetime each way. */
	return rl_cm_time_ns(timeout) + 2 * rl_cm_time_ns(a->cfg.packet_lifetime);
}

/* ---- QP1 ------------------------------------------------------------------------------ */

static uint8_t *rl_cm_recv_slot(struct rl_cm_agent *a, uint32_t i) { return a->mem + (size_t)i * RL_CM_RECV_SLOT; }

static uint8_t *rl_cm_send_slot(struct rl_cm_agent *a, uint32_t i)
{
	return a->mem + (size_t)RL_CM_RECV_BUFS * RL_CM_RECV_SLOT + (size_t)(i % RL_CM_SEND_BUFS) * RL_MAD_LEN;
}

static int rl_cm_post_recv(struct rl_cm_agent *a, uint32_t i)
{
	struct rl_recv_wr wr = { .wr_id = i, .num_sge = 1 };

	wr.sg_list[0] = (struct rl_sge){ (uint64_t)(i * RL_CM_RECV_SLOT), RL_CM_RECV_SLOT, rl_mr_lkey(a->mr) };
	return rl_post_recv(a->qp1, &wr);
}

int rl_cm_send(struct rl_cm_agent *a, const uint8_t gid[16], const uint8_t mac[6], const struct rl_cm *cm)
{
	uint32_t i = a->send_next % RL_CM_SEND_BUFS;
	uint8_t *slot = rl_cm_send_slot(a, i);
	struct rl_send_wr wr = { .wr_id = RL_CM_SEND_WR_ID | i, .num_sge = 1, .opcode = RL_WR_SEND,
				 .send_flags = RL_SEND_SIGNALED };
	size_t n;
	int r;

	/* Every slot holds a MAD the QP has not sent yet: writing one now would change a queued frame. */
	if (a->sends_out >= RL_CM_SEND_BUFS) {
		a->stats.dropped++;
		return -ENOMEM;
	}
	rl_cm_encode(cm, slot, RL_MAD_LEN, &n);
	wr.sg_list[0] = (struct rl_sge){ (uint64_t)(slot - a->mem), RL_MAD_LEN, rl_mr_lkey(a->mr) };
	memcpy(wr.ud.dgid, gid, 16);
	memcpy(wr.ud.dmac, mac, 6);
	wr.ud.remote_qpn = RL_GSI_QPN;
	wr.ud.remote_qkey = RL_GSI_QKEY;
	r = rl_post_send(a->qp1, &wr);
	if (r) {
		a->stats.dropped++;
		return r;
	}
	a->send_next++;
	a->sends_out++;
	a->stats.mads_sent++;
	return 0;
}

void rl_cm_id_send(struct rl_rdma_cm_id *id, const struct rl_cm *cm, uint64_t wait)
{
	struct rl_cm_agent *a = id->agent;

	id->out = *cm;
	id->have_out = true;
	id->retries = 0;
	id->timer = wait == RL_CM_NEVER ? RL_CM_NEVER : a->now + wait;
	rl_cm_send(a, id->dst.gid, id->dmac, cm);
}

static int rl_cm_qp1_up(struct rl_cm_agent *a)
{
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_GSI, .max_send_wr = RL_CM_SEND_BUFS,
				      .max_recv_wr = RL_CM_RECV_BUFS };
	struct rl_conn c;
	size_t len = (size_t)RL_CM_RECV_BUFS * RL_CM_RECV_SLOT + (size_t)RL_CM_SEND_BUFS * RL_MAD_LEN;

	a->mem = calloc(1, len);
	a->pd = a->mem ? rl_alloc_pd(a->host) : NULL;
	a->cq = a->pd ? rl_create_cq(a->host, RL_CM_RECV_BUFS + RL_CM_SEND_BUFS) : NULL;
	a->mr = a->cq ? rl_reg_mr_iova(a->pd, a->mem, len, 0, RL_ACCESS_LOCAL_WRITE) : NULL;
	ia.send_cq = ia.recv_cq = a->cq;
	a->qp1 = a->mr ? rl_create_qp(a->pd, &ia) : NULL;
	if (!a->qp1)
		return -1;
	rl_conn_defaults(&c);
	c.qkey = RL_GSI_QKEY;
	c.sq_psn = 0;   /* rxe numbers QP1's sends 0, 1, 2 ... (tests/fixtures/rxe/rping.pcap) */
	if (rl_qp_connect(a->qp1, &c))
		return -1;
	for (uint32_t i = 0; i < RL_CM_RECV_BUFS; i++)
		if (rl_cm_post_recv(a, i))
			return -1;
	return 0;
}

struct rl_cm_agent *rl_cm_agent_new(const struct rl_cm_agent_config *cfg)
{
	struct rl_cm_agent *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->cfg = *cfg;
	a->host = cfg->host;
	rl_query_port(a->host, &a->port);
	if (!a->cfg.response_timeout)
		a->cfg.response_timeout = RL_CM_RESPONSE_TIMEOUT;
	if (!a->cfg.max_cm_retries)
		a->cfg.max_cm_retries = RL_CM_MAX_RETRIES;
	if (!a->cfg.packet_lifetime)
		a->cfg.packet_lifetime = RL_CM_PACKET_LIFETIME;
	if (!a->cfg.mra_timeout)
		a->cfg.mra_timeout = RL_CM_MRA_TIMEOUT;
	if (!a->cfg.ca_guid) {
		const uint8_t *m = a->port.mac;   /* EUI-64: the MAC with ff:fe in the middle */

		a->cfg.ca_guid = (uint64_t)m[0] << 56 | (uint64_t)m[1] << 48 | (uint64_t)m[2] << 40 | 0xfffeull << 24 |
				 (uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
	}
	a->rng = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ull;
	a->ev_tail = &a->ev_head;
	if (rl_cm_qp1_up(a)) {
		rl_cm_agent_free(a);
		return NULL;
	}
	return a;
}

void rl_cm_agent_free(struct rl_cm_agent *a)
{
	if (!a)
		return;
	while (a->ids)
		rl_rdma_destroy_id(a->ids);
	while (a->ev_head) {
		struct rl_rdma_cm_event *ev = a->ev_head;

		a->ev_head = ev->next;
		free(ev);
	}
	if (a->qp1)
		rl_destroy_qp(a->qp1);
	if (a->mr)
		rl_dereg_mr(a->mr);
	if (a->cq)
		rl_destroy_cq(a->cq);
	if (a->pd)
		rl_dealloc_pd(a->pd);
	free(a->mem);
	free(a);
}

struct rl_host *rl_cm_agent_host(const struct rl_cm_agent *a) { return a->host; }
void rl_cm_agent_stats(const struct rl_cm_agent *a, struct rl_cm_agent_stats *st) { *st = a->stats; }

/* ---- events ------------------------------------------------------------------------------ */

struct rl_rdma_cm_event *rl_cm_event(struct rl_rdma_cm_id *id, enum rl_rdma_cm_event_type type, int status)
{
	struct rl_cm_agent *a = id->agent;
	struct rl_rdma_cm_event *ev = calloc(1, sizeof(*ev));

	if (!ev) {
		a->stats.dropped++;
		return NULL;
	}
	ev->id = id;
	ev->event = type;
	ev->status = status;
	*a->ev_tail = ev;
	a->ev_tail = &ev->next;
	return ev;
}

void rl_cm_event_data(struct rl_rdma_cm_event *ev, const uint8_t *p, size_t n)
{
	if (!ev || !p)
		return;
	ev->private_data_len = (uint8_t)(n < RL_RDMA_MAX_PRIVATE_DATA ? n : RL_RDMA_MAX_PRIVATE_DATA);
	memcpy(ev->private_data, p, ev->private_data_len);
}

/* ---- receiving ---------------------------------------------------------------------------- */

/* The id whose communication ID is @local_id; never one without (0: not connecting, a listener, a SIDR request). */
struct rl_rdma_cm_id *rl_cm_find_local(struct rl_cm_agent *a, uint32_t local_id)
{
	for (struct rl_rdma_cm_id *id = a->ids; local_id && id; id = id->next)
		if (id->local_id == local_id && id->state != RL_CM_STATE_LISTEN)
			return id;
	return NULL;
}

/* The sender's GID, from the GRH at the start of the buffer (RoCEv2 over IPv4: an IPv4 header in its place). */
static void rl_cm_grh_sgid(const uint8_t *grh, uint8_t gid[16])
{
	const uint8_t *ip4 = grh + RL_CM_GRH_IPV4_OFF;

	if ((ip4[0] >> 4) == RL_IPV4_VERSION)
		rl_gid_from_ipv4(gid, ip4 + RL_IPV4_SRC_OFF);
	else
		memcpy(gid, grh + RL_CM_GRH_SGID_OFF, 16);
}

static void rl_cm_dispatch(struct rl_cm_agent *a, const struct rl_cm_rx *rx)
{
	a->stats.mads_recv++;
	switch (rx->cm.attr) {
	case RL_CM_SIDR_REQ:
	case RL_CM_SIDR_REP:
		rl_cm_recv_sidr(a, rx);
		break;
	default:
		rl_cm_recv_conn(a, rx);
		break;
	}
}

/*
 * A MAD for the CM: base version 1 (IBA 13.4.2), CM class version 2, method
 * Send (every CM message travels so, IBA 12.6). Anything else goes unanswered,
 * as the kernel's ib_mad does: validate_mad() drops another base version and a
 * CM MAD with another method; no agent takes another class version.
 */
static bool rl_cm_mad_ours(const struct rl_cm *cm)
{
	return rl_cm_get(cm, RL_CMF_MAD_BASE_VERSION) == RL_MAD_BASE_VERSION &&
	       rl_cm_get(cm, RL_CMF_MAD_CLASS_VERSION) == RL_CM_CLASS_VERSION &&
	       rl_cm_get(cm, RL_CMF_MAD_METHOD) == RL_MAD_METHOD_SEND;
}

static void rl_cm_take(struct rl_cm_agent *a, const struct rl_wc *wc)
{
	uint32_t i = (uint32_t)wc->wr_id;
	const uint8_t *buf;
	struct rl_cm_rx rx;

	/* By its wr_id: the opcode of a completion in error means nothing (IBA 11.4.2.1). */
	if (wc->wr_id & RL_CM_SEND_WR_ID) {   /* a MAD of ours went out (or failed): its slot is free */
		if (a->sends_out)
			a->sends_out--;
		return;
	}
	buf = rl_cm_recv_slot(a, i);
	if (wc->status == RL_WC_SUCCESS && wc->byte_len >= RL_CM_GRH_LEN &&
	    rl_cm_decode(buf + RL_CM_GRH_LEN, wc->byte_len - RL_CM_GRH_LEN, &rx.cm) == RL_CM_OK &&
	    rl_cm_mad_ours(&rx.cm)) {
		rl_cm_grh_sgid(buf, rx.gid);
		rx.have_mac = a->cfg.resolve && a->cfg.resolve(a->cfg.resolve_ctx, rx.gid, rx.mac);
		rl_cm_dispatch(a, &rx);
	} else if (wc->status == RL_WC_SUCCESS) {
		a->stats.dropped++;   /* not a whole CM MAD: another class or version, a response, or cut short */
	}
	if (wc->status != RL_WC_WR_FLUSH_ERR)
		rl_cm_post_recv(a, i);
}

/* ---- running -------------------------------------------------------------------------------- */

static void rl_cm_fire(struct rl_rdma_cm_id *id)
{
	id->timer = RL_CM_NEVER;
	if (id->state == RL_CM_STATE_SIDR_REQ_SENT)
		rl_cm_sidr_timeout(id);
	else
		rl_cm_conn_timeout(id);
}

void rl_cm_agent_run(struct rl_cm_agent *a, uint64_t now)
{
	struct rl_wc wc[16];
	int n;

	if (now > a->now)
		a->now = now;
	while ((n = rl_poll_cq(a->cq, 16, wc)) > 0)
		for (int i = 0; i < n; i++)
			rl_cm_take(a, &wc[i]);
	for (struct rl_rdma_cm_id *id = a->ids; id; id = id->next) {
		rl_cm_comm_est_check(id);
		if (id->timer <= a->now)
			rl_cm_fire(id);
	}
}

uint64_t rl_cm_agent_next_timer(const struct rl_cm_agent *a)
{
	uint64_t t = RL_CM_NEVER;

	for (const struct rl_rdma_cm_id *id = a->ids; id; id = id->next)
		if (id->timer < t)
			t = id->timer;
	return t;
}
