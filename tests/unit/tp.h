/* SPDX-License-Identifier: MIT */
/*
 * A two-host fixture for transport tests: core's rl_pair with host A
 * (10.0.0.1) and host B (10.0.0.2), one QP each, connected back to back
 * through rl_sim's direct FIFO, which a test can filter (drop, duplicate,
 * corrupt chosen frames). Simulated time moves 1 us per delivered frame and
 * jumps to the next timer when the wire is idle. What crossed is decoded
 * here, for assertions.
 */
#ifndef ROCELAB_TP_H
#define ROCELAB_TP_H

#include "testlib.h"
#include "rocelab/pair.h"

#define TP_QUEUE 8192
#define TP_MEM (256 * 1024)
#define TP_EVENTS 4096

struct tp_pair;

/* Decide the fate of the @n-th frame (1-based, both directions): return false to drop it. */
typedef bool (*tp_filter_fn)(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n);

struct tp_pair {
	struct rl_pair pair;      /* the two ends on a direct FIFO (core's rl_pair) */
	struct rl_pair_end *end;  /* pair.end: host, qp, cq, mr, mem, gid of each side */
	uint64_t frames;          /* frames emitted so far */
	tp_filter_fn filter;
	void *filter_ctx;
	/* Everything that crossed, decoded, for assertions. */
	uint8_t opcodes[TP_QUEUE];
	uint32_t psns[TP_QUEUE];
	uint64_t times[TP_QUEUE];   /* simulated time each left its host */
	uint32_t lens[TP_QUEUE];
	uint8_t syndromes[TP_QUEUE];
	int from[TP_QUEUE];
	/* Events by type. */
	unsigned ev_count[16];
	struct rl_event last_ev[16];
};

struct tp_opts {
	enum rl_qp_type type;
	enum rl_mtu mtu;          /* 0: 1024 */
	uint32_t psn_a, psn_b;    /* starting PSNs (A's sq = B's rq) */
	uint8_t retry_cnt, rnr_retry, timeout, min_rnr_timer;
	uint8_t max_rd_atomic;
	unsigned access;          /* QP access flags on both sides; 0: all remote ops */
	bool ipv6;
	struct rl_qp_cc cc[2];    /* each side's congestion control; zeroed: none */
};

void tp_default_opts(struct tp_opts *o, enum rl_qp_type type);
/* Build both hosts, connect their QPs (RESET -> INIT -> RTR -> RTS). */
void tp_setup(struct tp_pair *t, const struct tp_opts *o);
void tp_teardown(struct tp_pair *t);
/* Deliver and run until nothing moves, or @limit_ns of simulated time passes. */
void tp_run(struct tp_pair *t, uint64_t limit_ns);

/* Put a frame on the wire towards end @to (a filter may duplicate or forge with it). */
void tp_inject(struct tp_pair *t, int to, const uint8_t *frame, size_t len);

/* Post helpers on end @e, with buffers inside the end's registered memory at @off. */
int tp_post_send(struct tp_pair *t, int e, enum rl_wr_opcode op, uint32_t off, uint32_t len,
		 uint64_t remote_off, uint64_t wr_id);
int tp_post_recv(struct tp_pair *t, int e, uint32_t off, uint32_t len, uint64_t wr_id);
/* Expect exactly one completion on end @e with this status, opcode and wr_id; return it. */
struct rl_wc tp_expect_wc(struct tp_pair *t, int e, enum rl_wc_status st, enum rl_wc_opcode op, uint64_t wr_id);
/* Poll one completion from end @e's CQ; false if none. */
bool tp_poll(struct tp_pair *t, int e, struct rl_wc *wc);
/* Fill end @e's memory with a pattern that depends on @seed. */
void tp_fill(struct tp_pair *t, int e, uint32_t off, uint32_t len, uint32_t seed);
/* Print the frames that crossed, for debugging a failing test. */
void tp_dump(const struct tp_pair *t);
/* How many frames with this opcode crossed, and from whom (-1: either). */
unsigned tp_count_opcode(const struct tp_pair *t, int from, uint8_t opcode);
/* Frames with an AETH of this type (NAK/RNR/ACK) sent by @from. */
unsigned tp_count_syndrome_type(const struct tp_pair *t, int from, int type);

#endif
