/* SPDX-License-Identifier: MIT */
/*
 * Inside the simulated wire: a congestion point's queue (struct
 * rl_bottleneck, simwire.h) as arithmetic on lengths and times. It knows
 * nothing of frames' bytes: simwire.c reads and sets their ECN bits, draws
 * the random numbers and asks this queue what to do. Apart from simwire.c
 * so that the queue model (departures, depth, the RED curve, counters,
 * samples) reads on one page.
 */
#ifndef ROCELAB_BOTTLENECK_H
#define ROCELAB_BOTTLENECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/simwire.h"

/* A frame waiting or in service: when its last bit leaves; @tag the caller's, given back by rl_bn_pop(). */
struct rl_bn_slot {
	uint64_t depart, number;
	void *tag;
	uint32_t len;
};

struct rl_bn {
	struct rl_bottleneck cfg;
	int port;                       /* the direction, for samples */
	struct rl_bn_slot *v;           /* a ring in departure order: n slots from v[head], cap a power of 2 */
	size_t head, n, cap;
	uint64_t depth;                 /* bytes of the slots in the FIFO */
	uint64_t busy_until;            /* departure of the last frame admitted */
	struct rl_bottleneck_stats st;
};

enum rl_bn_verdict { RL_BN_PASS, RL_BN_MARK, RL_BN_DROP_FULL, RL_BN_DROP_RED };

/* Times saturate just below UINT64_MAX, which the wire keeps for "never". */
static inline uint64_t rl_bn_time_add(uint64_t a, uint64_t b)
{
	if (b >= UINT64_MAX - 1 || a >= UINT64_MAX - 1 - b)
		return UINT64_MAX - 1;
	return a + b;
}

/* ceil(len * 8e9 / rate) without overflow (len is at most 10,000 bytes); 0 for rate 0. */
uint64_t rl_bn_serialize_ns(uint64_t rate_bps, size_t len);
/* Whether @b is a bottleneck rl_simwire_set_bottleneck() accepts. */
bool rl_bn_config_ok(const struct rl_bottleneck *b);
/* Frames whose last bit has left by @now leave the queue (a DEQUEUE sample each). */
void rl_bn_drain(struct rl_bn *q, uint64_t now);
/* The oldest frame, if its last bit has left by @now, out of the queue as rl_bn_drain() takes it: its slot. */
bool rl_bn_pop(struct rl_bn *q, uint64_t now, struct rl_bn_slot *out);
/*
 * Read-only: the bytes queued at @to, and in *@area the depth's integral over
 * [@from, @to] in bytes x ns, if nothing arrives meanwhile. @from is no
 * earlier than the last drain; frames that left by then are not counted.
 */
uint64_t rl_bn_depth_over(const struct rl_bn *q, uint64_t from, uint64_t to, uint64_t *area);
/* What to do with a frame of @len arriving now (drained first); @u uniform in [0, 1), @ect ECN-capable. */
enum rl_bn_verdict rl_bn_decide(const struct rl_bn *q, size_t len, bool ect, double u);
/* Room for one more slot: 0, or -1 out of memory. */
int rl_bn_reserve(struct rl_bn *q);
/* Apply @v to frame @number (@tag kept in its slot) arriving at @arrival: its departure, or @arrival if dropped. */
uint64_t rl_bn_commit(struct rl_bn *q, uint64_t arrival, size_t len, uint64_t number, void *tag,
		      enum rl_bn_verdict v);
void rl_bn_free(struct rl_bn *q);

#endif
