/* SPDX-License-Identifier: MIT */
/*
 * Inside pcapgen: the two-host session the scenarios run in (scenarios.c),
 * shared with the scenarios that connect through the CM (cm.c). Not
 * installed, not for cli/.
 */
#ifndef ROCELAB_GEN_SESS_H
#define ROCELAB_GEN_SESS_H

#include "gen.h"
#include "rocelab/pair.h"

struct gen_sess;
struct gen_cm;
/* Choose the fate of the @n-th frame on the wire (sent by @from); NULL-safe default: deliver. */
typedef enum rl_simwire_fate (*gen_fault_fn)(struct gen_sess *s, uint64_t n, int from);

/* Two hosts on the simulated wire, an rl_pair, and what a scenario keeps between its callbacks. */
struct gen_sess {
	const struct gen_opts *o;
	struct gen_out *out;
	struct rl_pair pair;         /* A (0) requests, B (1) responds */
	struct rl_pair_end *e;       /* pair.end */
	enum rl_qp_type type;
	gen_fault_fn fault;
	uint64_t sent_by[2];         /* frames each side has put on the wire */
	/* Scenario state, used by the application callbacks. */
	uint64_t posted, done, target;
	int step;
	uint64_t mark;
	struct gen_cm *cm;           /* cm.c's connection, in a session built with gen_qp_cfg.cm */
	rl_sim_app_fn app;           /* the scenario's, called by gen_sess_run()'s own */
	bool rnr_capped;             /* gen_sess_run() stopped it: RNR NAKs without end */
	/* The switch queue's depth as frame bn_number met it (congestion.c's hook), for its pcapng comment. */
	uint64_t bn_number, bn_depth;
};

/* What a scenario may change before the QPs are connected. */
struct gen_qp_cfg {
	enum rl_qp_type type;
	size_t mem;                  /* bytes of registered memory per side */
	unsigned access;             /* QP access flags; 0: all remote operations */
	uint32_t psn_a;              /* overrides the PSNs (e.g. for wrap-around) when set */
	bool psn_a_set;
	/*
	 * true: leave the QPs in RESET and put a CM agent on each host (seeded
	 * with --seed) for cm.c to connect them; the link's MTU is --mtu, so
	 * that the REQ offers it as the path MTU.
	 */
	bool cm;
	struct rl_qp_cc cc;          /* A's congestion control (congestion.c); zeroed: none */
	uint8_t timeout;             /* both QPs' ACK timeout code; 0: rl_conn_defaults()'s */
};

void gen_qp_cfg_default(struct gen_qp_cfg *c, enum rl_qp_type type, size_t mem);
/* The pair on the wire --options describe. 0, or -1 with out->msg; gen_sess_free() either way. */
int gen_sess_init(struct gen_sess *s, const struct gen_opts *o, struct gen_out *out, const struct gen_qp_cfg *c);
void gen_sess_free(struct gen_sess *s);
/* Run until the wire is quiet and @app (may be NULL) says it is done. 0, or -1 on a livelock. */
int gen_sess_run(struct gen_sess *s, rl_sim_app_fn app);
/* A signaled work request of side @from (rl_pair_send_wr()), posted. 0, or -1 with out->msg. */
int gen_post_send(struct gen_sess *s, int from, enum rl_wr_opcode op, uint64_t local_off, uint32_t len,
		  uint64_t remote_off, uint64_t wr_id);
int gen_post_recv(struct gen_sess *s, int e, uint64_t off, uint32_t len, uint64_t wr_id);
/* Readable text into side @e's memory. */
void gen_fill(struct gen_sess *s, int e, uint64_t off, size_t len);
/* --size and --count, or the scenario's default. */
uint32_t gen_size(const struct gen_opts *o, uint32_t def);
uint64_t gen_count(const struct gen_opts *o, uint64_t def);
/* For fault hooks: this is the @k-th frame (1-based) side @side sends. */
bool nth_from(struct gen_sess *s, int from, int side, uint64_t k);

#endif
