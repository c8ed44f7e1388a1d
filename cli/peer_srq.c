/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer --compat pingpong --srq N: the other end is the real
 * ibv_srq_pingpong (rdma-core libibverbs/examples/srq_pingpong.c) with -q N.
 *
 * Its setup: one CQ, one shared receive queue of rx_depth (500) WQEs, all
 * on one buffer of -s bytes, and N RC QPs that take their receives from it
 * (IBA 10.2.9). Its exchange is ibv_rc_pingpong's line ("LID:QPN:PSN:GID",
 * 52 bytes with the NUL) once per QP, and always MAX_QP (256) of them: the
 * lines past N are zeros. The client writes its 256 lines, reads the
 * server's 256 and writes "done"; the server connects its QPs before it
 * answers. Every QP is connected to the GID of the first line.
 *
 * Its loop, which this side follows so that the two ends count alike: the
 * client SENDs once on every QP; a QP SENDs again once both its SEND and a
 * receive on it have completed, until -n SENDs have completed in all; the
 * SRQ is refilled to rx_depth once no more than N WQEs are left. Both ends
 * stop when -n SENDs and -n receives have completed, and print
 * "BYTES bytes in ..." and "ITERS iters in ...".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "peer.h"

#define SRQ_MAX_QP PEER_SRQ_MAX_QP  /* srq_pingpong's MAX_QP: the exchange has this many lines */
#define SRQ_RX_DEPTH 500            /* its -r default: receives posted to the SRQ */

/* srq_pingpong's wr_ids, also the bits of a QP's pending work. */
enum { SRQ_RECV_WRID = 1, SRQ_SEND_WRID = 2 };

/* srq_pingpong's struct pingpong_context, what this side keeps of it. */
struct srq_ctx {
	struct rl_srq *srq;
	struct rl_qp *qp[SRQ_MAX_QP];
	struct peer_dest me[SRQ_MAX_QP], them[SRQ_MAX_QP];
	unsigned pending[SRQ_MAX_QP];
	uint32_t num_qp, routs;
	uint64_t rcnt, scnt, bad;
	uint64_t naks;               /* NAKs sent: PSN sequence errors, and RNR when the SRQ was empty */
};

/* The verbs objects: host, PD, the buffer's MR, the CQ, the SRQ and num_qp QPs on it (pp_init_ctx). */
static int srq_init_ctx(struct peer *p, struct srq_ctx *c)
{
	struct rl_srq_init_attr sa = { .attr = { .max_wr = SRQ_RX_DEPTH, .max_sge = 1 } };
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .max_send_wr = 1 };
	struct peer_verbs *v = &p->verbs;

	if (peer_host_new(p) || !(v->pd = rl_alloc_pd(v->host)))
		return -1;
	/* srq_pingpong sends from and receives into one zeroed buffer of -s bytes. */
	v->buf_len = p->o.size;
	v->buf = calloc(1, v->buf_len);
	if (!v->buf)
		return -1;
	v->mr = rl_reg_mr_iova(v->pd, v->buf, v->buf_len, 0x10000000, RL_ACCESS_LOCAL_WRITE);
	v->cq = v->mr ? rl_create_cq(v->host, (int)(SRQ_RX_DEPTH + c->num_qp)) : NULL;
	c->srq = v->cq ? rl_create_srq(v->pd, &sa) : NULL;
	if (!c->srq)
		return -1;
	ia.send_cq = ia.recv_cq = v->cq;
	ia.srq = c->srq;
	for (uint32_t i = 0; i < c->num_qp; i++) {
		if (!(c->qp[i] = rl_create_qp(v->pd, &ia)))
			return -1;
		c->me[i].qpn = rl_qp_num(c->qp[i]);
		c->me[i].psn = (uint32_t)((p->o.seed + i) * 0x9e3779b97f4a7c15u >> 40);
		memcpy(c->me[i].gid, p->conn.me.gid, 16);
	}
	p->conn.me = c->me[0];
	return 0;
}

/* Post up to @n receives to the SRQ, all on the one buffer (pp_post_recv); how many went. */
static uint32_t srq_post_recv(struct peer *p, struct srq_ctx *c, uint32_t n)
{
	struct rl_recv_wr wr = { .wr_id = SRQ_RECV_WRID, .num_sge = 1 };
	uint32_t i;

	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(p->verbs.mr), p->o.size, rl_mr_lkey(p->verbs.mr) };
	for (i = 0; i < n; i++)
		if (rl_post_srq_recv(c->srq, &wr))
			break;
	return i;
}

static int srq_post_send(struct peer *p, struct srq_ctx *c, uint32_t i)
{
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = SRQ_SEND_WRID;
	wr.opcode = RL_WR_SEND;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(p->verbs.mr), p->o.size, rl_mr_lkey(p->verbs.mr) };
	if (rl_post_send(c->qp[i], &wr)) {
		cli_error("peer", "post_send on QP[%u]: %s", i, rl_host_error(p->verbs.host));
		return -1;
	}
	p->stat.posted++;
	c->pending[i] = SRQ_RECV_WRID | SRQ_SEND_WRID;
	return 0;
}

/* RTR and RTS for every QP with the line of the same index (pp_connect_ctx); the GID is the first line's. */
static int srq_connect_ctx(struct peer *p, struct srq_ctx *c)
{
	for (uint32_t i = 0; i < c->num_qp; i++) {
		struct rl_conn cn;

		rl_conn_defaults(&cn);
		cn.qpn = c->them[i].qpn;
		cn.psn = c->them[i].psn;
		memcpy(cn.gid, c->them[0].gid, 16);
		cn.sq_psn = c->me[i].psn;
		cn.path_mtu = p->o.mtu;
		cn.udp_sport = p->net.sport;
		cn.access = 0;                 /* srq_pingpong allows no remote access */
		cn.hop_limit = 1;              /* its grh.hop_limit */
		cn.max_rd_atomic = cn.max_dest_rd_atomic = 1;
		if (rl_qp_connect(c->qp[i], &cn)) {
			cli_error("peer", "cannot connect QP[%u]: %s", i, rl_host_error(p->verbs.host));
			return -1;
		}
	}
	return 0;
}

static void srq_print_dest(const struct peer *p, const char *who, const struct peer_dest *d)
{
	char g[INET6_ADDRSTRLEN];

	if (p->o.json)
		return;
	inet_ntop(AF_INET6, d->gid, g, sizeof(g));
	printf("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", who, d->lid, d->qpn, d->psn, g);
}

/* The 256 lines of one side, num_qp of them filled. */
static bool srq_write_dests(struct peer *p, const struct srq_ctx *c)
{
	char msg[PEER_MSG_LEN];
	struct peer_dest zero;

	memset(&zero, 0, sizeof(zero));
	for (uint32_t i = 0; i < SRQ_MAX_QP; i++) {
		peer_dest_fmt(i < c->num_qp ? &c->me[i] : &zero, msg);
		if (!peer_io(p->net.tcp, msg, sizeof(msg), true))
			return false;
	}
	return true;
}

/* The other side's 256 lines: as many QPs as ours, then the GID check of the pingpong exchange. */
static int srq_read_dests(struct peer *p, struct srq_ctx *c)
{
	char msg[PEER_MSG_LEN];
	uint32_t theirs = 0;

	for (uint32_t i = 0; i < SRQ_MAX_QP; i++) {
		if (!peer_io(p->net.tcp, msg, sizeof(msg), false)) {
			cli_error("peer", "the other side hung up during the exchange of its %d QP lines (its own output says "
				  "why)", SRQ_MAX_QP);
			return -1;
		}
		msg[sizeof(msg) - 1] = '\0';
		if (!peer_dest_parse(msg, &c->them[i])) {
			cli_error("peer", "QP line %u of the exchange is not ibv_srq_pingpong's: is the other side "
				  "ibv_srq_pingpong?", i);
			return -1;
		}
		theirs += c->them[i].qpn != 0;
	}
	if (theirs != c->num_qp) {
		cli_error("peer", "the other side has %u QPs, this side %u: give ibv_srq_pingpong -q %u, or "
			  "--srq %u here", theirs, c->num_qp, c->num_qp, theirs);
		return -1;
	}
	for (uint32_t i = 0; i < c->num_qp; i++)
		srq_print_dest(p, "remote address:", &c->them[i]);
	p->conn.them = c->them[0];
	return peer_dest_check(p);
}

/* pp_client_exch_dest() and pp_server_exch_dest(). */
static int srq_exchange(struct peer *p, struct srq_ctx *c)
{
	char done[sizeof("done")];

	if (!p->o.server) {
		if (!srq_write_dests(p, c)) {
			cli_error("peer", "the server hung up before the exchange");
			return -1;
		}
		if (srq_read_dests(p, c) || !peer_io(p->net.tcp, "done", sizeof("done"), true))
			return -1;
		return srq_connect_ctx(p, c);
	}
	if (srq_read_dests(p, c) || srq_connect_ctx(p, c))
		return -1;
	if (!srq_write_dests(p, c) || !peer_io(p->net.tcp, done, sizeof(done), false) ||
	    memcmp(done, "done", sizeof(done))) {
		cli_error("peer", "the other side did not finish the exchange with \"done\"");
		return -1;
	}
	return 0;
}

/* The QP a completion names, by number (find_qp). */
static int srq_find_qp(const struct srq_ctx *c, uint32_t qpn)
{
	for (uint32_t i = 0; i < c->num_qp; i++)
		if (rl_qp_num(c->qp[i]) == qpn)
			return (int)i;
	return -1;
}

/* A receive: the size sent, and srq_pingpong's data (its buffer is zeroed and never written). */
static bool srq_recv_ok(const struct peer *p, const struct rl_wc *wc)
{
	if (wc->byte_len != p->o.size)
		return false;
	for (size_t i = 0; i < p->o.size; i++)
		if (p->verbs.buf[i])
			return false;
	return true;
}

/* One completion, as srq_pingpong's loop takes it; -1 with a message. */
static int srq_handle_wc(struct peer *p, struct srq_ctx *c, const struct rl_wc *wc)
{
	int q = srq_find_qp(c, wc->qp_num);

	if (wc->status != RL_WC_SUCCESS) {
		cli_error("peer", "Failed status %s (%d) for wr_id %d", rl_wc_status_str(wc->status), wc->status,
			  (int)wc->wr_id);
		return -1;
	}
	if (q < 0) {
		cli_error("peer", "Couldn't find QPN %06x", wc->qp_num);
		return -1;
	}
	if (wc->wr_id == SRQ_SEND_WRID) {
		c->scnt++;
		p->stat.sends_done++;
	} else {
		/* Refill the SRQ to rx_depth once no more than one WQE per QP is left. */
		if (--c->routs <= c->num_qp) {
			c->routs += srq_post_recv(p, c, SRQ_RX_DEPTH - c->routs);
			if (c->routs < SRQ_RX_DEPTH) {
				cli_error("peer", "Couldn't post receive (%u): %s", c->routs, rl_host_error(p->verbs.host));
				return -1;
			}
		}
		c->rcnt++;
		c->bad += !srq_recv_ok(p, wc);
	}
	c->pending[q] &= ~(unsigned)wc->wr_id;
	if (c->scnt < p->o.iters && !c->pending[q])
		return srq_post_send(p, c, (uint32_t)q);
	return 0;
}

static bool srq_expired(const struct peer *p, uint64_t start)
{
	return peer_now() - start > (uint64_t)p->o.timeout_s * 1000000000u;
}

/* srq_pingpong's main loop: until -n SENDs and -n receives have completed. */
static int srq_loop(struct peer *p, struct srq_ctx *c)
{
	struct rl_wc wc[64];

	for (uint32_t i = 0; i < c->num_qp; i++) {
		if (!p->o.server && srq_post_send(p, c, i))
			return -1;
		c->pending[i] = p->o.server ? SRQ_RECV_WRID : SRQ_RECV_WRID | SRQ_SEND_WRID;
	}
	p->stat.t_start = peer_now();
	while (c->rcnt < p->o.iters || c->scnt < p->o.iters) {
		int n;

		peer_pump(p, -1);
		while ((n = rl_poll_cq(p->verbs.cq, 64, wc)) > 0)
			for (int i = 0; i < n; i++)
				if (srq_handle_wc(p, c, &wc[i]))
					return -1;
		if (srq_expired(p, p->stat.t_start)) {
			cli_error("peer", "timed out after %u s (--timeout) with %" PRIu64 " of %u SENDs and %" PRIu64
				  " of %u receives done", p->o.timeout_s, c->scnt, p->o.iters, c->rcnt, p->o.iters);
			return -1;
		}
	}
	p->stat.t_end = peer_now();
	p->stat.completed = c->rcnt;
	return 0;
}

/*
 * After the loop: a SEND still out (a QP may send once more than the other
 * end will answer) is given its ACK, and the wire is answered until quiet,
 * so that nothing late finds port 4791 closed.
 */
static void srq_settle(struct peer *p, struct srq_ctx *c)
{
	uint64_t start = peer_now();
	struct rl_wc wc[64];

	while (p->stat.sends_done < p->stat.posted && peer_now() - start < 2000000000ull) {
		peer_pump(p, -1);
		for (int n = rl_poll_cq(p->verbs.cq, 64, wc), i = 0; i < n; i++)
			p->stat.sends_done += wc[i].status == RL_WC_SUCCESS && wc[i].opcode == RL_WC_SEND;
	}
	peer_drain(p, PEER_QUIET_MS);
	for (uint32_t i = 0; i < c->num_qp; i++) {
		struct rl_qp_stats st;

		rl_qp_stats(c->qp[i], &st);
		c->naks += st.naks_sent;
	}
}

static void srq_json(const struct peer *p, const struct srq_ctx *c)
{
	struct json j;

	json_begin(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, "compat", "ibv_srq_pingpong");
	json_str(&j, "role", p->o.server ? "server" : "client");
	json_u64(&j, "qps", c->num_qp);
	json_u64(&j, "bytes", p->o.size);
	json_u64(&j, "iterations", p->o.iters);
	json_u64(&j, "sends_completed", c->scnt);
	json_u64(&j, "receives_completed", c->rcnt);
	json_bool(&j, "data_ok", !c->bad);
	json_u64(&j, "naks_sent", c->naks);
	json_double(&j, "seconds", (double)(p->stat.t_end - p->stat.t_start) / 1e9, 6);
	json_u64(&j, "frames_sent", p->stat.sent);
	json_u64(&j, "frames_received", p->stat.recv_frames);
	json_u64(&j, "dropped_by_loss", p->stat.dropped_loss);
	json_u64(&j, "dropped_by_tx_loss", p->stat.dropped_tx);
	json_end(&j);
	json_newline(&j);
}

/* pp_close_ctx(): the QPs, then the SRQ (which refuses to go while a QP uses it). */
static void srq_close_ctx(struct srq_ctx *c)
{
	for (uint32_t i = 0; i < c->num_qp; i++)
		if (c->qp[i])
			rl_destroy_qp(c->qp[i]);
	if (c->srq)
		rl_destroy_srq(c->srq);
}

static int srq_run(struct peer *p, struct srq_ctx *c)
{
	if (p->o.server ? peer_tcp_accept(p) : peer_tcp_connect(p))
		return -1;
	if (peer_pick_gid(p) || peer_pick_mtu(p))
		return -1;
	if (srq_init_ctx(p, c)) {
		cli_error("peer", "cannot set up the SRQ and its QPs: %s",
			  p->verbs.host ? rl_host_error(p->verbs.host) : "out of memory");
		return -1;
	}
	c->routs = srq_post_recv(p, c, SRQ_RX_DEPTH);
	if (c->routs < SRQ_RX_DEPTH) {
		cli_error("peer", "Couldn't post receive (%u)", c->routs);
		return -1;
	}
	for (uint32_t i = 0; i < c->num_qp; i++)
		srq_print_dest(p, "local address: ", &c->me[i]);
	/* Sockets before the exchange ends, so that the first frame finds port 4791 open. */
	if (peer_sockets(p, rl_qp_udp_sport(c->qp[0]), true) || srq_exchange(p, c) || srq_loop(p, c))
		return -1;
	srq_settle(p, c);
	if (c->bad) {
		cli_error("peer", "%" PRIu64 " of %" PRIu64 " messages were not ibv_srq_pingpong's %u zero bytes", c->bad,
			  c->rcnt, p->o.size);
		return -1;
	}
	return 0;
}

int peer_srq_run(struct peer *p)
{
	struct srq_ctx *c = calloc(1, sizeof(*c));
	int r;

	if (!c) {
		cli_error("peer", "out of memory");
		return CLI_ERR;
	}
	c->num_qp = p->o.srq;
	r = srq_run(p, c);
	if (!r && p->o.json) {
		srq_json(p, c);
	} else if (!r) {
		/* The server also says what it checked, as with ibv_rc_pingpong (--compat pingpong). */
		if (p->o.server)
			peer_served_report(p, true);
		peer_pingpong_report(p);
	}
	srq_close_ctx(c);
	free(c);
	return r ? CLI_ERR : CLI_OK;
}
