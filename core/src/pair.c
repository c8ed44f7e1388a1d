/* SPDX-License-Identifier: MIT */
/* Two endpoints on a wire: an rl_sim's two hosts, one connected QP each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocelab/pair.h"

#define RL_PAIR_ALL_ACCESS (RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ | \
			    RL_ACCESS_REMOTE_ATOMIC)

static int rl_pair_fail(struct rl_pair *p, const char *what, const struct rl_host *h)
{
	snprintf(p->err, sizeof(p->err), "%s%s%s", what, h ? ": " : "", h ? rl_host_error(h) : "");
	return -1;
}

/* PD, CQ, memory, MR and QP of side @i, in the order a verbs program creates them. */
static int rl_pair_make_end(struct rl_pair *p, int i, const struct rl_pair_config *cfg)
{
	struct rl_pair_end *e = &p->end[i];
	struct rl_qp_init_attr ia = { .qp_type = cfg->type, .max_send_wr = cfg->max_send_wr,
				      .max_recv_wr = cfg->max_recv_wr, .cc = cfg->cc[i] };
	size_t alloc = (cfg->mem[i] + 4095) & ~(size_t)4095;

	if (!cfg->mem[i]) {
		snprintf(p->err, sizeof(p->err), "cannot set up the two hosts: side %d has no memory to register "
			 "(mem[%d] is 0)", i, i);
		return -1;
	}
	if (alloc < cfg->mem[i]) {   /* rounding up to a page wrapped */
		snprintf(p->err, sizeof(p->err), "cannot set up the two hosts: side %d's memory, %zu bytes, is more "
			 "than can be allocated", i, cfg->mem[i]);
		return -1;
	}
	e->host = rl_sim_host(p->sim, i);
	memcpy(e->gid, cfg->sim.host[i].gid, 16);
	memcpy(e->mac, cfg->sim.host[i].mac, 6);
	e->len = cfg->mem[i];
	e->iova = cfg->iova[i];
	e->mem = alloc ? aligned_alloc(4096, alloc) : NULL;
	if (!e->mem)
		return rl_pair_fail(p, "cannot set up the two hosts: out of memory", NULL);
	memset(e->mem, 0, alloc);
	e->pd = rl_alloc_pd(e->host);
	e->cq = e->pd ? rl_create_cq(e->host, cfg->cqe ? cfg->cqe : 1024) : NULL;
	e->mr = e->cq ? rl_reg_mr_iova(e->pd, e->mem, e->len, e->iova,
				       cfg->mr_access ? cfg->mr_access : RL_PAIR_ALL_ACCESS) : NULL;
	ia.send_cq = ia.recv_cq = e->cq;
	e->qp = e->mr ? rl_create_qp(e->pd, &ia) : NULL;
	return e->qp ? 0 : rl_pair_fail(p, "cannot set up the two hosts", e->host);
}

/* What the two sides exchange out of band (QPN, PSN, GID, MAC), then rl_qp_connect(). */
static int rl_pair_connect(struct rl_pair *p, int i, const struct rl_pair_config *cfg)
{
	struct rl_pair_end *e = &p->end[i], *peer = &p->end[!i];

	e->conn = cfg->conn[i];
	e->conn.qpn = rl_qp_num(peer->qp);
	e->conn.psn = cfg->conn[!i].sq_psn;
	memcpy(e->conn.gid, peer->gid, 16);
	memcpy(e->conn.mac, peer->mac, 6);
	return rl_qp_connect(e->qp, &e->conn) ? rl_pair_fail(p, "cannot set up the two hosts", e->host) : 0;
}

/* The pair's ARP: the other side's MAC by its GID. */
static bool rl_pair_resolve(void *ctx, const uint8_t gid[16], uint8_t mac[6])
{
	struct rl_pair *p = ctx;

	for (int i = 0; i < 2; i++)
		if (!memcmp(p->end[i].gid, gid, 16)) {
			memcpy(mac, p->end[i].mac, 6);
			return true;
		}
	return false;
}

static int rl_pair_cm_agent(struct rl_pair *p, int i, const struct rl_pair_config *cfg)
{
	struct rl_cm_agent_config c = { .host = p->end[i].host, .seed = cfg->cm_seed + (uint64_t)i,
					.resolve = rl_pair_resolve, .resolve_ctx = p };

	p->end[i].conn = cfg->conn[i];
	p->end[i].cm = rl_cm_agent_new(&c);
	return p->end[i].cm ? 0 : rl_pair_fail(p, "cannot set up the CM agent", p->end[i].host);
}

void rl_pair_cm_run(struct rl_pair *p, uint64_t now)
{
	for (int i = 0; i < 2; i++) {
		rl_cm_agent_run(p->end[i].cm, now);
		rl_sim_kick(p->sim, i);
		rl_sim_wake(p->sim, rl_cm_agent_next_timer(p->end[i].cm));
	}
}

/* Why rl_sim_new() would refuse @c, for what it can be told from the outside; NULL: nothing seen. */
static const char *rl_pair_sim_problem(const struct rl_sim_config *c)
{
	if (c->kind == RL_SIM_FIFO && c->fifo.frames > RL_SIM_FIFO_MAX_FRAMES)
		return "the FIFO holds at most 1048576 frames (RL_SIM_FIFO_MAX_FRAMES)";
	for (int i = 0; i < 2; i++)
		if (c->host[i].active_mtu && !rl_mtu_bytes(c->host[i].active_mtu))
			return "a host's active MTU is not one of 1 (256) .. 5 (4096)";
	return NULL;
}

int rl_pair_init(struct rl_pair *p, const struct rl_pair_config *cfg)
{
	const char *why;

	memset(p, 0, sizeof(*p));
	if ((why = rl_pair_sim_problem(&cfg->sim))) {
		snprintf(p->err, sizeof(p->err), "cannot set up the two hosts: %s", why);
		return -1;
	}
	p->sim = rl_sim_new(&cfg->sim);
	if (!p->sim)
		return rl_pair_fail(p, cfg->sim.kind == RL_SIM_SIMWIRE
					       ? "cannot set up the two hosts: the simulated wire refused its config (a "
						 "fault rate outside 0..1, frame number 0 among drop_frames), or memory ran out"
					       : "cannot set up the two hosts: out of memory", NULL);
	if (rl_pair_make_end(p, 0, cfg) || rl_pair_make_end(p, 1, cfg))
		return -1;
	if (cfg->cm)
		return rl_pair_cm_agent(p, 0, cfg) || rl_pair_cm_agent(p, 1, cfg) ? -1 : 0;
	return rl_pair_connect(p, 0, cfg) || rl_pair_connect(p, 1, cfg) ? -1 : 0;
}

void rl_pair_free(struct rl_pair *p)
{
	rl_cm_agent_free(p->end[0].cm);   /* before the hosts that hold QP1 */
	rl_cm_agent_free(p->end[1].cm);
	rl_sim_free(p->sim);   /* the hosts and everything they own */
	free(p->end[0].mem);
	free(p->end[1].mem);
	memset(p, 0, sizeof(*p));
}

void rl_pair_send_wr(const struct rl_pair *p, int from, enum rl_wr_opcode op, uint64_t local_off, uint32_t len,
		     uint64_t remote_off, uint64_t wr_id, struct rl_send_wr *wr)
{
	const struct rl_pair_end *me = &p->end[from & 1], *peer = &p->end[!(from & 1)];

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = op;
	wr->send_flags = RL_SEND_SIGNALED;
	wr->num_sge = 1;
	wr->sg_list[0] = (struct rl_sge){ me->iova + local_off, len, rl_mr_lkey(me->mr) };
	wr->rdma.remote_addr = wr->atomic.remote_addr = peer->iova + remote_off;
	wr->rdma.rkey = wr->atomic.rkey = rl_mr_rkey(peer->mr);
	wr->ud.remote_qpn = rl_qp_num(peer->qp);
	wr->ud.remote_qkey = me->conn.qkey;
	memcpy(wr->ud.dmac, peer->mac, 6);
	memcpy(wr->ud.dgid, peer->gid, 16);
}

int rl_pair_post_send(struct rl_pair *p, int from, const struct rl_send_wr *wr)
{
	struct rl_pair_end *me = &p->end[from & 1];
	int r = rl_post_send(me->qp, wr);

	if (r)
		snprintf(p->err, sizeof(p->err), "post_send: %s", rl_host_error(me->host));
	else
		rl_sim_kick(p->sim, from & 1);
	return r;
}

int rl_pair_post_recv(struct rl_pair *p, int e, uint64_t off, uint32_t len, uint64_t wr_id)
{
	struct rl_pair_end *me = &p->end[e & 1];
	struct rl_recv_wr wr = { .wr_id = wr_id, .num_sge = 1 };
	int r;

	wr.sg_list[0] = (struct rl_sge){ me->iova + off, len, rl_mr_lkey(me->mr) };
	r = rl_post_recv(me->qp, &wr);
	if (r)
		snprintf(p->err, sizeof(p->err), "post_recv: %s", rl_host_error(me->host));
	return r;
}

int rl_pair_poll(struct rl_pair *p, int e, struct rl_wc *wc, int n)
{
	return rl_poll_cq(p->end[e & 1].cq, n, wc);
}

long rl_pair_run(struct rl_pair *p, uint64_t until_ns, long max_steps, rl_sim_app_fn app, void *ctx)
{
	return rl_sim_run(p->sim, until_ns, max_steps, app, ctx);
}
