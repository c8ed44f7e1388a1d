/* SPDX-License-Identifier: MIT */
/* The CM test fixture (cmh.h): a pair, two CM agents, and rping's event loop. */
#include <stdio.h>
#include <string.h>

#include "cmh.h"

static void cmh_tap(void *ctx, int from, const uint8_t *frame, size_t len)
{
	struct cmh *h = ctx;
	struct cmh_frame *f;
	struct rl_pkt p;

	if (h->nf >= CMH_FRAMES || rl_decode(RL_LINK_ETHERNET, frame, len, &p) != RL_OK)
		return;
	f = &h->f[h->nf++];
	memset(f, 0, sizeof(*f));
	f->from = from;
	f->t = rl_sim_now(h->p.sim);
	f->opcode = p.bth.opcode;
	f->psn = p.bth.psn;
	f->dqpn = p.bth.dqpn;
	f->is_cm = rl_cm_is_gsi(&p) && rl_cm_decode(p.payload, p.payload_len, &f->cm) == RL_CM_OK;
}

static void cmh_record(void *ctx, const struct rl_simwire_record *r)
{
	struct cmh *h = ctx;
	struct rl_pkt p;
	struct rl_cm cm;

	bool lost;

	if (rl_decode(RL_LINK_ETHERNET, r->frame, r->len, &p) != RL_OK || !rl_cm_is_gsi(&p) ||
	    rl_cm_decode(p.payload, p.payload_len, &cm) != RL_CM_OK)
		return;
	if (cm.attr == RL_CM_REQ && h->nreq < CMH_WIRE_LOG && !cmh_req_comm(h, (uint32_t)rl_cm_get(&cm, RL_CMF_REQ_LOCAL_QPN))) {
		h->req[h->nreq].comm = (uint32_t)rl_cm_get(&cm, RL_CMF_REQ_LOCAL_COMM_ID);
		h->req[h->nreq++].qpn = (uint32_t)rl_cm_get(&cm, RL_CMF_REQ_LOCAL_QPN);
	}
	if (cm.attr != RL_CM_REJ)
		return;
	lost = r->fate == RL_SIMWIRE_DROPPED || r->fate == RL_SIMWIRE_QUEUE_FULL || r->fate == RL_SIMWIRE_CORRUPTED;
	h->rej_sent[r->from_port & 1]++;
	h->rej_lost[r->from_port & 1] += lost;
	if (h->nrej < CMH_WIRE_LOG) {
		h->rej[h->nrej].from = r->from_port & 1;
		h->rej[h->nrej].to_comm = (uint32_t)rl_cm_get(&cm, RL_CMF_REJ_REMOTE_COMM_ID);
		h->rej[h->nrej++].lost = lost;
	}
}

uint32_t cmh_req_comm(const struct cmh *h, uint32_t qpn)
{
	for (int i = 0; i < h->nreq; i++)
		if (h->req[i].qpn == qpn)
			return h->req[i].comm;
	return 0;
}

void cmh_rej_fate(const struct cmh *h, int from, uint32_t comm, int *sent, int *lost)
{
	*sent = *lost = 0;
	for (int i = 0; i < h->nrej; i++)
		if (h->rej[i].from == from && h->rej[i].to_comm == comm) {
			(*sent)++;
			*lost += h->rej[i].lost;
		}
}

static bool cmh_filter(void *ctx, int from, uint8_t *frame, size_t len, uint64_t n)
{
	struct cmh *h = ctx;

	(void)frame;
	(void)len;
	if (from == h->drop_from)
		return false;
	for (int i = 0; i < h->ndrop; i++)
		if (h->drop[i] == n)
			return false;
	return true;
}

void cmh_setup(struct cmh *h, enum rl_qp_type type, const struct rl_simwire_config *wire, uint64_t seed)
{
	struct rl_pair_config c;
	static const uint8_t ip[2][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 } };
	struct rl_rdma_addr any = { { 0 }, CMH_PORT };

	memset(h, 0, sizeof(*h));
	memset(&c, 0, sizeof(c));
	h->drop_from = -1;
	c.sim.kind = wire ? RL_SIM_SIMWIRE : RL_SIM_FIFO;
	if (wire) {
		c.sim.wire = *wire;
		c.sim.wire.record = cmh_record;
		c.sim.wire.ctx = h;
	}
	c.sim.fifo.filter = cmh_filter;
	c.sim.fifo.ctx = h;
	c.sim.tap = cmh_tap;
	c.sim.tap_ctx = h;
	for (int i = 0; i < 2; i++) {
		uint8_t mac[6] = { 0x02, 0, 0, 0, 0, (uint8_t)(i + 1) };

		memcpy(c.sim.host[i].mac, mac, 6);
		rl_gid_from_ipv4(c.sim.host[i].gid, ip[i]);
		c.mem[i] = CMH_MEM;
		rl_conn_defaults(&c.conn[i]);
	}
	c.type = type;
	c.cm = true;
	c.cm_seed = seed;
	CU_ASSERT_FATAL(rl_pair_init(&h->p, &c) == 0);
	h->param = (struct rl_rdma_conn_param){ .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
						.rnr_retry_count = 7 };   /* rping's */
	h->listen = rl_rdma_create_id(h->p.end[1].cm, h, type == RL_QPT_UD ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP);
	h->act = rl_rdma_create_id(h->p.end[0].cm, h, type == RL_QPT_UD ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP);
	CU_ASSERT_FATAL(h->listen && h->act);
	CU_ASSERT_EQUAL(rl_rdma_bind_addr(h->listen, &any), 0);
	CU_ASSERT_EQUAL(rl_rdma_listen(h->listen, 1), 0);
	CU_ASSERT_EQUAL(rl_rdma_attach_qp(h->act, h->p.end[0].qp), 0);
}

void cmh_teardown(struct cmh *h)
{
	rl_pair_free(&h->p);
}

void cmh_start(struct cmh *h)
{
	struct rl_rdma_addr dst = { { 0 }, CMH_PORT };

	memcpy(dst.gid, h->p.end[1].gid, 16);
	if (h->no_listener)
		dst.port = CMH_PORT + 1;
	CU_ASSERT_EQUAL(rl_rdma_resolve_addr(h->act, NULL, &dst, 2000), 0);
}

static void cmh_log(struct cmh *h, int s, const struct rl_rdma_cm_event *ev, uint64_t now)
{
	struct cmh_event *e;

	if (h->nev[s] >= CMH_EVENTS)
		return;
	e = &h->ev[s][h->nev[s]++];
	e->type = ev->event;
	e->status = ev->status;
	e->t = now;
	e->id = ev->id;
	e->pd_len = ev->private_data_len;
	memcpy(e->pd, ev->private_data, ev->private_data_len);
	e->ud_qpn = ev->ud.qp_num;
	e->ud_qkey = ev->ud.qkey;
}

/* What rping's cma_event_handler() does, on each side. */
static void cmh_react(struct cmh *h, int s, const struct rl_rdma_cm_event *ev, uint64_t now)
{
	switch (ev->event) {
	case RL_RDMA_CM_EVENT_ADDR_RESOLVED:
		CU_ASSERT_EQUAL(rl_rdma_resolve_route(ev->id, 2000), 0);
		break;
	case RL_RDMA_CM_EVENT_ROUTE_RESOLVED:
		CU_ASSERT_EQUAL(rl_rdma_connect(ev->id, &h->param), 0);
		break;
	case RL_RDMA_CM_EVENT_CONNECT_REQUEST:
		if (h->pas) {   /* one QP on this side: a second connection must never be asked for */
			CU_FAIL("a second CONNECT_REQUEST");
			break;
		}
		h->pas = ev->id;
		CU_ASSERT_EQUAL(rl_rdma_attach_qp(ev->id, h->p.end[1].qp), 0);
		h->accept_at = now + h->accept_delay_ns;
		break;
	case RL_RDMA_CM_EVENT_DISCONNECTED:
		if (!h->disconnected[s]) {
			h->disconnected[s] = true;
			CU_ASSERT_EQUAL(rl_rdma_disconnect(ev->id), 0);
		}
		break;
	default:
		break;
	}
}

static void cmh_answer(struct cmh *h, uint64_t now)
{
	static const char no[] = "no thanks";

	if (!h->pas || h->accept_at > now || (rl_rdma_id_state(h->pas) != RL_CM_STATE_REQ_RCVD &&
					      rl_rdma_id_state(h->pas) != RL_CM_STATE_MRA_REQ_SENT &&
					      rl_rdma_id_state(h->pas) != RL_CM_STATE_SIDR_REQ_RCVD))
		return;
	if (h->answer == CMH_ACCEPT)
		CU_ASSERT_EQUAL(rl_rdma_accept(h->pas, &h->param), 0);
	if (h->answer == CMH_REJECT)
		CU_ASSERT_EQUAL(rl_rdma_reject(h->pas, no, sizeof(no)), 0);
}

static bool cmh_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct cmh *h = ctx;
	struct rl_rdma_cm_event *ev;

	rl_pair_cm_run(&h->p, now);
	for (int s = 0; s < 2; s++)
		while (rl_rdma_get_cm_event(h->p.end[s].cm, &ev) == 0) {
			cmh_log(h, s, ev, now);
			cmh_react(h, s, ev, now);
			rl_rdma_ack_cm_event(ev);
		}
	cmh_answer(h, now);
	if (h->pas && h->accept_at > now && h->answer != CMH_IGNORE)
		rl_sim_wake(sim, h->accept_at);
	rl_pair_cm_run(&h->p, now);   /* what the consumers did goes out now */
	return false;
}

void cmh_run(struct cmh *h, uint64_t limit_ns)
{
	CU_ASSERT(rl_pair_run(&h->p, limit_ns, 1000000, cmh_app, h) >= 0);
}

int cmh_count(const struct cmh *h, int s, enum rl_rdma_cm_event_type type)
{
	int n = 0;

	for (int i = 0; i < h->nev[s]; i++)
		n += h->ev[s][i].type == type;
	return n;
}

const struct cmh_frame *cmh_cm_frame(const struct cmh *h, uint16_t attr, int k)
{
	for (int i = 0; i < h->nf; i++)
		if (h->f[i].is_cm && h->f[i].cm.attr == attr && k-- == 0)
			return &h->f[i];
	return NULL;
}

int cmh_cm_count(const struct cmh *h, uint16_t attr)
{
	int n = 0;

	for (int i = 0; i < h->nf; i++)
		n += h->f[i].is_cm && h->f[i].cm.attr == attr;
	return n;
}

const struct cmh_frame *cmh_data_frame(const struct cmh *h, int from)
{
	for (int i = 0; i < h->nf; i++)
		if (h->f[i].from == from && h->f[i].dqpn != RL_GSI_QPN)
			return &h->f[i];
	return NULL;
}

void cmh_dump(const struct cmh *h)
{
	char line[256];

	for (int i = 0; i < h->nf; i++) {
		const struct cmh_frame *f = &h->f[i];

		if (f->is_cm)
			rl_cm_describe(&f->cm, line, sizeof(line));
		else
			snprintf(line, sizeof(line), "opcode 0x%02x QP 0x%06x PSN %u", f->opcode, f->dqpn, f->psn);
		fprintf(stderr, "  %3d %d->%d %12.6f s  %s\n", i + 1, f->from, !f->from, f->t / 1e9, line);
	}
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < h->nev[s]; i++)
			fprintf(stderr, "  side %d %12.6f s %s status %d\n", s, h->ev[s][i].t / 1e9,
				rl_rdma_event_str(h->ev[s][i].type), h->ev[s][i].status);
}
