/* SPDX-License-Identifier: MIT */
/*
 * A congestion point's egress queue: a FIFO of byte lengths with departure
 * times, tail drop past a byte limit, and RED with ECN marking on the
 * instantaneous depth (the formula and its sources are in simwire.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bottleneck.h"
#include "units.h"

#define RL_BN_FIRST_CAP 64       /* slots; doubled when full, so always a power of 2 */

uint64_t rl_bn_serialize_ns(uint64_t rate_bps, size_t len)
{
	uint64_t bits_ns = (uint64_t)len * RL_BITS_PER_BYTE * RL_NS_PER_S;

	if (!rate_bps)
		return 0;
	return bits_ns / rate_bps + (bits_ns % rate_bps != 0);
}

bool rl_bn_config_ok(const struct rl_bottleneck *b)
{
	/* A NaN pmax compares false both ways, so it is refused too. */
	return b->rate_bps && b->kmin <= b->kmax && b->pmax >= 0 && b->pmax <= 1;
}

void rl_bottleneck_defaults(struct rl_bottleneck *b)
{
	*b = (struct rl_bottleneck){
		.rate_bps = 10000000000ull, .queue_bytes = 400 * RL_BOTTLENECK_KB,
		.kmin = 5 * RL_BOTTLENECK_KB, .kmax = 200 * RL_BOTTLENECK_KB, .pmax = 0.01,
	};
}

/*
 * DCQCN's CP marking curve (Zhu et al. 2015, the CP algorithm and its
 * figure of p against queue length): 0 up to Kmin, linear to Pmax at Kmax,
 * 1 beyond. tc-red's min/max/probability draw the same line, but over the
 * EWMA of the queue and with Floyd's count correction (red.h red_action):
 * here the depth is instantaneous and each frame is an independent draw.
 */
double rl_bottleneck_mark_prob(const struct rl_bottleneck *b, uint64_t depth_bytes)
{
	if (!b || depth_bytes <= b->kmin)
		return 0;
	if (depth_bytes > b->kmax)
		return 1;
	return b->pmax * (double)(depth_bytes - b->kmin) / (double)(b->kmax - b->kmin);
}

static void rl_bn_sample(const struct rl_bn *q, enum rl_bottleneck_event ev, uint64_t t, uint64_t number,
		      size_t len, bool marked)
{
	struct rl_bottleneck_sample s;

	if (!q->cfg.sample)
		return;
	s = (struct rl_bottleneck_sample){
		.from_port = q->port, .event = ev, .time_ns = t, .number = number, .len = (uint32_t)len,
		.depth_bytes = q->depth, .marked = marked,
	};
	q->cfg.sample(q->cfg.ctx, &s);
}

bool rl_bn_pop(struct rl_bn *q, uint64_t now, struct rl_bn_slot *out)
{
	if (!q->n || q->v[q->head].depart > now)
		return false;
	*out = q->v[q->head];
	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	q->depth -= out->len;
	q->st.dequeued++;
	rl_bn_sample(q, RL_BOTTLENECK_DEQUEUE, out->depart, out->number, out->len, false);
	return true;
}

void rl_bn_drain(struct rl_bn *q, uint64_t now)
{
	struct rl_bn_slot s;

	while (rl_bn_pop(q, now, &s))
		;
}

uint64_t rl_bn_depth_over(const struct rl_bn *q, uint64_t from, uint64_t to, uint64_t *area)
{
	uint64_t depth = q->depth, t = from;
	size_t i = 0;

	*area = 0;
	for (; i < q->n && q->v[(q->head + i) & (q->cap - 1)].depart <= from; i++)
		depth -= q->v[(q->head + i) & (q->cap - 1)].len;
	for (; i < q->n && q->v[(q->head + i) & (q->cap - 1)].depart <= to; i++) {
		const struct rl_bn_slot *s = &q->v[(q->head + i) & (q->cap - 1)];

		*area += depth * (s->depart - t);
		t = s->depart;
		depth -= s->len;
	}
	if (to > t)
		*area += depth * (to - t);
	return depth;
}

enum rl_bn_verdict rl_bn_decide(const struct rl_bn *q, size_t len, bool ect, double u)
{
	uint64_t limit = q->cfg.queue_bytes ? q->cfg.queue_bytes : UINT64_MAX;

	/* The limit first: a frame that cannot be queued is not a marking decision. */
	if (len > limit || q->depth > limit - len)
		return RL_BN_DROP_FULL;
	if (u >= rl_bottleneck_mark_prob(&q->cfg, q->depth))
		return RL_BN_PASS;
	/* sch_red.c red_enqueue(): INET_ECN_set_ce() fails on Not-ECT, and the frame is dropped. */
	return ect ? RL_BN_MARK : RL_BN_DROP_RED;
}

/*
 * A full ring doubles; the slots that wrapped round to the front move up
 * behind the old end, so the ring stays in departure order from head.
 */
int rl_bn_reserve(struct rl_bn *q)
{
	struct rl_bn_slot *v;
	size_t cap, wrapped;

	if (q->n < q->cap)
		return 0;
	cap = q->cap ? q->cap * 2 : RL_BN_FIRST_CAP;
	wrapped = q->head + q->n - q->cap;    /* the ring is full: slots [0, head) come after [head, cap) */
	v = realloc(q->v, cap * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v + q->cap, v, wrapped * sizeof(*v));
	q->v = v;
	q->cap = cap;
	return 0;
}

static void rl_bn_count_drop(struct rl_bn *q, enum rl_bn_verdict v)
{
	if (v == RL_BN_DROP_FULL)
		q->st.dropped_full++;
	else
		q->st.dropped_red++;
}

uint64_t rl_bn_commit(struct rl_bn *q, uint64_t arrival, size_t len, uint64_t number, void *tag,
		      enum rl_bn_verdict v)
{
	uint64_t start = q->busy_until > arrival ? q->busy_until : arrival;

	if (v == RL_BN_DROP_FULL || v == RL_BN_DROP_RED) {
		rl_bn_count_drop(q, v);
		rl_bn_sample(q, RL_BOTTLENECK_DROP, arrival, number, len, false);
		return arrival;
	}
	q->busy_until = rl_bn_time_add(start, rl_bn_serialize_ns(q->cfg.rate_bps, len));
	q->v[(q->head + q->n++) & (q->cap - 1)] =
		(struct rl_bn_slot){ .depart = q->busy_until, .number = number, .tag = tag, .len = (uint32_t)len };
	q->depth += len;
	q->st.enqueued++;
	q->st.marked += v == RL_BN_MARK;
	if (q->depth > q->st.max_depth_bytes)
		q->st.max_depth_bytes = q->depth;
	rl_bn_sample(q, RL_BOTTLENECK_ENQUEUE, arrival, number, len, v == RL_BN_MARK);
	return q->busy_until;
}

void rl_bn_free(struct rl_bn *q)
{
	if (q)
		free(q->v);
	free(q);
}
