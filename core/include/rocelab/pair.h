/* SPDX-License-Identifier: MIT */
/*
 * Two endpoints on a wire, written once: two hosts of an rl_sim, each with
 * registered memory, a CQ and one QP, connected to each other with
 * rl_qp_connect(); helpers that post work with offsets into each side's
 * memory; and the loop that runs them. What `rocelab gen`, the transport
 * tests and the benchmark build their scenarios on.
 *
 * Sans-IO like the rest of core: the wire is simulated, time is simulated.
 */
#ifndef ROCELAB_PAIR_H
#define ROCELAB_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/cm_agent.h"
#include "rocelab/sim.h"
#include "rocelab/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One side: its verbs objects and its memory, registered as [iova, iova + len). */
struct rl_pair_end {
	struct rl_host *host;
	struct rl_pd *pd;
	struct rl_cq *cq;
	struct rl_qp *qp;
	struct rl_mr *mr;
	uint8_t *mem;
	size_t len;
	uint64_t iova;
	uint8_t gid[16], mac[6];     /* this side's address */
	struct rl_conn conn;         /* how its QP was connected: the other side's half filled in */
	struct rl_cm_agent *cm;      /* with rl_pair_config.cm: its host's connection manager */
};

struct rl_pair_config {
	struct rl_sim_config sim;    /* the wire, and each host's mac, gid, active MTU, first QPN, events */
	enum rl_qp_type type;
	size_t mem[2];               /* bytes of registered memory of each side (zeroed) */
	uint64_t iova[2];            /* where each side's memory sits in its iova space */
	unsigned mr_access;          /* the regions' access flags; 0: every access */
	uint32_t max_send_wr, max_recv_wr;   /* 0: 128 */
	struct rl_qp_cc cc[2];       /* each side's congestion control; zeroed: none */
	int cqe;                     /* completions each side's CQ holds; 0: 1024 */
	/*
	 * Each side's own choices (sq_psn, path MTU, access, timeouts, ...).
	 * The pair fills in the half the two sides exchange: the other side's
	 * QPN, first PSN (its sq_psn), GID and MAC.
	 */
	struct rl_conn conn[2];
	/*
	 * true: build both sides but leave the QPs in RESET, for the CM to
	 * connect (rocelab/rdma_cm.h), and put a CM agent on each host, seeded
	 * with cm_seed + side, which knows the other side's MAC by its GID.
	 */
	bool cm;
	uint64_t cm_seed;
};

struct rl_pair {
	struct rl_sim *sim;
	struct rl_pair_end end[2];
	char err[256];               /* why rl_pair_init() or a post failed */
};

/* Build both sides and connect them. 0, or -1 with the reason in @p->err; rl_pair_free() either way. */
int rl_pair_init(struct rl_pair *p, const struct rl_pair_config *cfg);
void rl_pair_free(struct rl_pair *p);

/*
 * A signaled work request of @op from side @from: @len bytes at @local_off
 * of its memory; RDMA and atomics aim at @remote_off of the other side's,
 * with its rkey; UD addresses the other side's QP (Q_Key of @from's
 * connection). Immediate data, invalidate and atomic operands are left 0
 * for the caller to set.
 */
void rl_pair_send_wr(const struct rl_pair *p, int from, enum rl_wr_opcode op, uint64_t local_off, uint32_t len,
		     uint64_t remote_off, uint64_t wr_id, struct rl_send_wr *wr);
/* Post on side @from's QP; it sends when its host next runs. 0, or the rl_post_send() error (@p->err). */
int rl_pair_post_send(struct rl_pair *p, int from, const struct rl_send_wr *wr);
/* A receive of @len bytes at @off of side @e's memory. 0, or the rl_post_recv() error (@p->err). */
int rl_pair_post_recv(struct rl_pair *p, int e, uint64_t off, uint32_t len, uint64_t wr_id);
/* Up to @n completions of side @e; how many. */
int rl_pair_poll(struct rl_pair *p, int e, struct rl_wc *wc, int n);
/*
 * From an rl_sim app callback of a pair built with cm: run both CM agents
 * at @now, send what they posted before the next delivery, and have the
 * sim call back by their next timer.
 */
void rl_pair_cm_run(struct rl_pair *p, uint64_t now);
/* rl_sim_run() on the pair's sim; @app gets @ctx. */
long rl_pair_run(struct rl_pair *p, uint64_t until_ns, long max_steps, rl_sim_app_fn app, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
