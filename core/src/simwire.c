/* SPDX-License-Identifier: MIT */
/*
 * A simulated Ethernet link in simulated time. Frames in flight are
 * ordered by (arrival time, sequence), so delivery order is a pure
 * function of what was sent and when. Every fault is decided in
 * rl_simwire_send() from a counter-based PRNG (see sw_draw), never later.
 */
#include <stdlib.h>
#include <string.h>

#include "rocelab/packet.h"
#include "rocelab/simwire.h"

#include "bottleneck.h"

/* Frames in flight: one entry per copy that will arrive. */
struct sw_entry {
	uint64_t time;          /* arrival */
	uint64_t seq;           /* insertion order: breaks ties in send order */
	uint64_t number;        /* frame number, for the delivery */
	uint8_t *frame;         /* owned */
	size_t len;
	int to_port;
};

/*
 * Serialization start times of the frames still waiting in a transmit
 * queue, oldest first. Starts never decrease, so the frames that have
 * started by now are always at the head.
 */
struct sw_fifo {
	uint64_t *v;
	size_t head, tail, cap;
};

struct sw_dir {
	uint64_t busy_until;    /* when the serializer finishes its last frame */
	struct sw_fifo waiting;
	struct rl_simwire_stats st;
	struct rl_bn *bn;       /* the direction's congestion point, or NULL (rl_simwire_set_bottleneck) */
};

/* A ring of frames in flight, in arrival order; its length a power of two. */
struct sw_lane {
	struct sw_entry *v;
	size_t head, n, cap;
};

#define SW_CLASSES 6   /* frame buffer sizes: sw_class_len */

struct rl_simwire {
	struct rl_simwire_config cfg;   /* defaults filled in; drop_frames points at our copy */
	uint64_t *drop;                 /* sorted copy of cfg.drop_frames */
	bool faults;                    /* any fault configured: a choose callback, drop list or rate */
	struct sw_dir dir[2];           /* indexed by the sending port */
	struct sw_lane lane;            /* frames in flight that arrive in the order they were sent */
	struct sw_entry *heap;          /* the others (sw_in_flight_push) */
	size_t n, cap;
	uint64_t frames;                /* frames numbered so far */
	uint64_t seq;
	uint64_t last_send;             /* now of the latest send */
	uint8_t *out;                   /* the frame of the last delivery */
	size_t out_len;
	/* Frame buffers kept for reuse, one pool per size class: no malloc per frame in steady state. */
	struct {
		uint8_t **v;
		size_t n;
	} pool[SW_CLASSES];
};

#define SW_POOL_MAX 4096

/*
 * A frame's buffer is the smallest class that holds it: an ACK, then a full
 * packet at each path MTU with up to 128 bytes of headers (Ethernet, VLAN,
 * IPv6, UDP, BTH, the longest extended headers, ICRC), then the longest
 * frame. A READ of 1 GiB has a million frames in flight: 1152 bytes each at
 * MTU 1024, not 10,000 (issue 22 D8).
 */
static const size_t sw_class_len[SW_CLASSES] = { 256, 512 + 128, 1024 + 128, 2048 + 128, 4096 + 128,
						 RL_SIMWIRE_MAX_FRAME };

static int sw_class(size_t len)
{
	int k = 0;

	while (k < SW_CLASSES - 1 && len > sw_class_len[k])
		k++;
	return k;
}

static uint8_t *sw_buf_get(struct rl_simwire *w, size_t len)
{
	int k = sw_class(len);

	if (w->pool[k].n)
		return w->pool[k].v[--w->pool[k].n];
	return malloc(sw_class_len[k]);
}

static void sw_buf_put(struct rl_simwire *w, uint8_t *buf, size_t len)
{
	int k = sw_class(len);

	if (!buf)
		return;
	if (!w->pool[k].v)
		w->pool[k].v = malloc(SW_POOL_MAX * sizeof(*w->pool[k].v));
	if (w->pool[k].v && w->pool[k].n < SW_POOL_MAX)
		w->pool[k].v[w->pool[k].n++] = buf;
	else
		free(buf);
}

/* ---- randomness --------------------------------------------------------- */

/*
 * Draws of one frame, in a fixed order. Frame n owns draws n*SW_DRAWS ..
 * n*SW_DRAWS + SW_DRAWS-1 of the splitmix64 stream seeded by cfg.seed,
 * whatever happens to it or to other frames: so turning on corruption
 * never changes which frames are dropped, and a tail-dropped frame does
 * not shift the faults of the frames after it.
 */
enum sw_draw { SW_DRAW_DROP, SW_DRAW_DUP, SW_DRAW_REORDER, SW_DRAW_CORRUPT, SW_DRAW_ECN,
	       SW_DRAW_BIT, SW_DRAWS };

#define SW_GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64 (Steele, Lea, Flood 2014): output k is mix(seed + k * gamma). */
static uint64_t sw_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t sw_draw(const struct rl_simwire *w, uint64_t number, enum sw_draw d)
{
	return sw_mix(w->cfg.seed + (number * SW_DRAWS + d) * SW_GAMMA);
}

/*
 * The bottleneck's RED draw for frame @number: a splitmix64 stream of its
 * own (the seed offset by a constant), so SW_DRAWS and every fault draw stay
 * as they were: a wire given a bottleneck drops and corrupts the same frames.
 */
#define SW_RED_STREAM 0x5245442d45434e00ull   /* "RED-ECN" */

static double sw_red_draw(uint64_t seed, uint64_t number)
{
	return (double)(sw_mix((seed ^ SW_RED_STREAM) + number * SW_GAMMA) >> 11) * 0x1.0p-53;
}

static double sw_red_uniform(const struct rl_simwire *w, uint64_t number)
{
	return sw_red_draw(w->cfg.seed, number);
}

/* True with probability @rate: the top 53 bits as a double in [0, 1). A rate of 0 needs no draw. */
static bool sw_chance(const struct rl_simwire *w, uint64_t number, enum sw_draw d, double rate)
{
	return rate > 0 && (double)(sw_draw(w, number, d) >> 11) * 0x1.0p-53 < rate;
}

/* ---- time arithmetic ---------------------------------------------------- */

/* Times saturate just below UINT64_MAX, which next_time keeps for "empty". */
static uint64_t sw_add(uint64_t a, uint64_t b)
{
	if (b >= UINT64_MAX - 1 || a >= UINT64_MAX - 1 - b)
		return UINT64_MAX - 1;
	return a + b;
}

/* ceil(len * 8e9 / rate) on the sender's link. */
static uint64_t sw_serialize_ns(const struct rl_simwire *w, size_t len)
{
	return rl_bn_serialize_ns(w->cfg.rate_bps, len);
}

/* ---- the transmit queue ------------------------------------------------- */

static void sw_fifo_expire(struct sw_fifo *f, uint64_t now)
{
	while (f->head < f->tail && f->v[f->head] <= now)
		f->head++;
}

static size_t sw_fifo_len(const struct sw_fifo *f)
{
	return f->tail - f->head;
}

/* Make room for one more start time: slide to the front, or grow. */
static int sw_fifo_reserve(struct sw_fifo *f)
{
	uint64_t *v;
	size_t cap;

	if (f->tail < f->cap)
		return 0;
	if (f->head) {
		memmove(f->v, f->v + f->head, sw_fifo_len(f) * sizeof(*f->v));
		f->tail -= f->head;
		f->head = 0;
		return 0;
	}
	cap = f->cap ? f->cap * 2 : 16;
	v = realloc(f->v, cap * sizeof(*v));
	if (!v)
		return -1;
	f->v = v;
	f->cap = cap;
	return 0;
}

/*
 * ---- frames in flight ---------------------------------------------------
 *
 * A fixed latency delivers frames in the order they were sent, so most
 * frames join the tail of a lane, already sorted; only a frame due before
 * the lane's last (a reordered or duplicated one's successors, or the
 * other port's frames behind a slower serializer) goes into a binary
 * min-heap. The next frame out is the earlier of the lane's head and the
 * heap's top, on (time, seq).
 */

static bool sw_before(const struct sw_entry *a, const struct sw_entry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static int sw_heap_reserve(struct rl_simwire *w, size_t more)
{
	struct sw_entry *h;
	size_t cap;

	if (w->n + more <= w->cap)
		return 0;
	cap = w->cap ? w->cap * 2 : 64;
	h = realloc(w->heap, cap * sizeof(*h));
	if (!h)
		return -1;
	w->heap = h;
	w->cap = cap;
	return 0;
}

static int sw_lane_reserve(struct sw_lane *q, size_t more)
{
	struct sw_entry *v;
	size_t cap = q->cap ? q->cap : 64;

	while (q->n + more > cap)
		cap *= 2;
	if (cap == q->cap)
		return 0;
	v = malloc(cap * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < q->n; i++)
		v[i] = q->v[(q->head + i) & (q->cap - 1)];
	free(q->v);
	q->v = v;
	q->head = 0;
	q->cap = cap;
	return 0;
}

static struct sw_entry *sw_lane_at(const struct sw_lane *q, size_t i)
{
	return &q->v[(q->head + i) & (q->cap - 1)];
}

/*
 * Both directions move a hole rather than swapping: entries shift into it
 * until @e's place is found, and @e is written once, there.
 */

/* The caller has reserved the slot. */
static void sw_heap_push(struct rl_simwire *w, struct sw_entry e)
{
	size_t i = w->n++;

	while (i && sw_before(&e, &w->heap[(i - 1) / 2])) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = e;
}

static struct sw_entry sw_heap_pop(struct rl_simwire *w)
{
	struct sw_entry top = w->heap[0], e = w->heap[--w->n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= w->n)
			break;
		if (l + 1 < w->n && sw_before(&w->heap[l + 1], &w->heap[l]))
			m = l + 1;
		if (!sw_before(&w->heap[m], &e))
			break;
		w->heap[i] = w->heap[m];
		i = m;
	}
	w->heap[i] = e;
	return top;
}

/* Number @e in send order; onto the lane if it is due no earlier than the lane's last, else the heap. */
static void sw_in_flight_push(struct rl_simwire *w, struct sw_entry e)
{
	struct sw_lane *q = &w->lane;

	e.seq = w->seq++;
	if (q->n && sw_before(&e, sw_lane_at(q, q->n - 1))) {
		sw_heap_push(w, e);
		return;
	}
	*sw_lane_at(q, q->n++) = e;
}

/* The frame due first, or NULL when none is in flight. */
static const struct sw_entry *sw_in_flight_next(const struct rl_simwire *w)
{
	const struct sw_entry *l = w->lane.n ? sw_lane_at(&w->lane, 0) : NULL;

	if (w->n && (!l || sw_before(&w->heap[0], l)))
		return &w->heap[0];
	return l;
}

/* Take @next, the frame due first (what sw_in_flight_next returned). */
static struct sw_entry sw_in_flight_pop(struct rl_simwire *w, const struct sw_entry *next)
{
	struct sw_lane *q = &w->lane;
	struct sw_entry e;

	if (w->n && next == w->heap)
		return sw_heap_pop(w);
	e = q->v[q->head];
	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	return e;
}

/* ---- faults that change bytes ------------------------------------------- */

/*
 * The bits a corruption may flip: everything after the BTH up to the end
 * of the ICRC (extended headers, payload, pad, ICRC). The decoder checks
 * none of them except through the ICRC, so the receiver sees exactly one
 * symptom, an ICRC mismatch; a flip in BTH, IP or UDP could instead make
 * the frame malformed or not RoCE at all. Returns false for non-RoCE frames.
 */
static bool sw_corrupt_range(const uint8_t *frame, size_t len, size_t *lo, size_t *hi)
{
	struct rl_pkt pkt;
	enum rl_status st = rl_decode(RL_LINK_ETHERNET, frame, len, &pkt);

	if (st == RL_NOT_ROCE || rl_status_fatal(st))
		return false;
	*lo = pkt.bth_off + RL_BTH_LEN;
	*hi = pkt.icrc_off + RL_ICRC_LEN;
	return true;
}

/* Offset of the IP header and its version (4 or 6), behind Ethernet and one VLAN tag. */
static int sw_ip_header(const uint8_t *frame, size_t len, size_t *off)
{
	size_t o = 14;
	uint16_t type;

	if (len < 14)
		return 0;
	type = rl_get16(frame + 12);
	if (type == RL_ETHERTYPE_VLAN) {
		if (len < 18)
			return 0;
		type = rl_get16(frame + 16);
		o = 18;
	}
	*off = o;
	if (type == RL_ETHERTYPE_IPV4 && len >= o + 20 && frame[o] >> 4 == 4 &&
	    (frame[o] & 0x0f) >= 5 && len >= o + (size_t)(frame[o] & 0x0f) * 4)
		return 4;
	if (type == RL_ETHERTYPE_IPV6 && len >= o + 40 && frame[o] >> 4 == 6)
		return 6;
	return 0;
}

/* The byte holding the ECN bits and their shift; false if the frame is not IP. */
static bool sw_ecn_field(const uint8_t *frame, size_t len, size_t *byte, unsigned *shift)
{
	size_t off;

	switch (sw_ip_header(frame, len, &off)) {
	case 4:
		*byte = off + 1;        /* TOS: DSCP(6) ECN(2) */
		*shift = 0;
		break;
	case 6:
		*byte = off + 1;        /* version(4) tclass(8): ECN is bits 5-4 of byte 1 */
		*shift = 4;
		break;
	default:
		return false;
	}
	return true;
}

/* The byte holding the ECN bits and their shift, if the frame is ECN-capable (ECT(0)/ECT(1)). */
static bool sw_ect(const uint8_t *frame, size_t len, size_t *byte, unsigned *shift)
{
	if (!sw_ecn_field(frame, len, byte, shift))
		return false;
	switch ((frame[*byte] >> *shift) & 3) {
	case 1: case 2: return true;
	default: return false;  /* Not-ECT must not be marked (RFC 3168 5); CE already is */
	}
}

/*
 * Set ECN to CE. IPv4's header checksum is updated incrementally (RFC 1624
 * eqn. 3), as a router does: a checksum that was wrong stays wrong. The
 * ICRC masks TOS and traffic class, so it stays valid.
 */
static void sw_mark_ce(uint8_t *frame, size_t len, size_t byte, unsigned shift)
{
	size_t ip;
	uint16_t before, after;
	uint32_t sum;

	if (sw_ip_header(frame, len, &ip) != 4) {
		frame[byte] |= (uint8_t)(3u << shift);
		return;
	}
	before = rl_get16(frame + ip);
	frame[byte] |= 3;
	after = rl_get16(frame + ip);
	/* HC' = ~(~HC + ~m + m'), m being the 16-bit word holding the TOS byte. */
	sum = (uint32_t)(uint16_t)~rl_get16(frame + ip + 10) + (uint16_t)~before + after;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	rl_put16(frame + ip + 10, (uint16_t)~sum);
}

/* ---- deciding a frame's fate -------------------------------------------- */

static int sw_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static bool sw_drop_listed(const struct rl_simwire *w, uint64_t number)
{
	if (!w->cfg.n_drop_frames)
		return false;
	return bsearch(&number, w->drop, w->cfg.n_drop_frames, sizeof(*w->drop), sw_cmp_u64);
}

/* What a fault plan needs beyond the fate: where to flip or mark. */
struct sw_plan {
	enum rl_simwire_fate fate;
	size_t byte;
	unsigned bit;
	/* The bottleneck's part: its verdict, where the ECN bits are, when the frame reaches and leaves it. */
	enum rl_bn_verdict bn;
	size_t ce_byte;
	unsigned ce_shift;
	uint64_t bn_arrival, bn_depart;
};

/* The order here is the precedence documented with enum rl_simwire_fate. */
static void sw_decide(const struct rl_simwire *w, int port, const uint8_t *frame, size_t len,
		      uint64_t number, struct sw_plan *p)
{
	const struct rl_simwire_config *c = &w->cfg;
	size_t lo, hi;

	enum rl_simwire_fate chosen = RL_SIMWIRE_DELIVERED;

	*p = (struct sw_plan){ .fate = RL_SIMWIRE_DELIVERED };
	if (sw_fifo_len(&w->dir[port].waiting) >= c->queue_frames) {
		p->fate = RL_SIMWIRE_QUEUE_FULL;
		return;
	}
	if (!w->faults)
		return;
	if (c->choose)
		chosen = c->choose(c->ctx, number, port, frame, len);
	if (chosen == RL_SIMWIRE_DROPPED || chosen == RL_SIMWIRE_DUPLICATED || chosen == RL_SIMWIRE_REORDERED)
		p->fate = chosen;
	else if (chosen == RL_SIMWIRE_CORRUPTED && sw_corrupt_range(frame, len, &lo, &hi)) {
		p->fate = RL_SIMWIRE_CORRUPTED;
		p->byte = lo + (size_t)(sw_draw(w, number, SW_DRAW_BIT) % (hi - lo));
		p->bit = (unsigned)(sw_draw(w, number, SW_DRAW_BIT) >> 32) % 8;
	} else if (chosen == RL_SIMWIRE_ECN_MARKED && sw_ect(frame, len, &p->byte, &p->bit))
		p->fate = RL_SIMWIRE_ECN_MARKED;
	else if (sw_drop_listed(w, number))
		p->fate = RL_SIMWIRE_DROPPED_BY_NUMBER;
	else if (sw_chance(w, number, SW_DRAW_DROP, c->drop_rate))
		p->fate = RL_SIMWIRE_DROPPED;
	else if (sw_chance(w, number, SW_DRAW_DUP, c->dup_rate))
		p->fate = RL_SIMWIRE_DUPLICATED;
	else if (sw_chance(w, number, SW_DRAW_REORDER, c->reorder_rate))
		p->fate = RL_SIMWIRE_REORDERED;
	else if (sw_chance(w, number, SW_DRAW_CORRUPT, c->corrupt_rate) &&
		 sw_corrupt_range(frame, len, &lo, &hi)) {
		uint64_t bit = lo * 8 + sw_draw(w, number, SW_DRAW_BIT) % ((hi - lo) * 8);

		p->fate = RL_SIMWIRE_CORRUPTED;
		p->byte = (size_t)(bit / 8);
		p->bit = (unsigned)(bit % 8);
	} else if (sw_chance(w, number, SW_DRAW_ECN, c->ecn_rate) &&
		   sw_ect(frame, len, &p->byte, &p->bit)) {
		p->fate = RL_SIMWIRE_ECN_MARKED;
	}
}

/*
 * The congestion point's verdict on a frame the transmit queue took. It
 * reaches the bottleneck when the sender's link has serialized it; what left
 * the queue by then is drained first, so the depth RED sees is the
 * instantaneous one. ECN-capable here means ECT(0), ECT(1) or already CE.
 */
static void sw_bottleneck_decide(struct rl_simwire *w, int port, const uint8_t *frame, size_t len,
				 uint64_t now, uint64_t number, struct sw_plan *p)
{
	const struct sw_dir *d = &w->dir[port];
	struct rl_bn *q = d->bn;
	uint64_t start = d->busy_until > now ? d->busy_until : now;
	bool ecn_capable = sw_ecn_field(frame, len, &p->ce_byte, &p->ce_shift) &&
			   ((frame[p->ce_byte] >> p->ce_shift) & 3) != 0;

	p->bn_arrival = sw_add(start, sw_serialize_ns(w, len));
	rl_bn_drain(q, p->bn_arrival);
	p->bn = rl_bn_decide(q, len, ecn_capable, sw_red_uniform(w, number));
	if (p->bn == RL_BN_DROP_FULL)
		p->fate = RL_SIMWIRE_BOTTLENECK_FULL;
	else if (p->bn == RL_BN_DROP_RED)
		p->fate = RL_SIMWIRE_RED_DROPPED;
	else if (p->bn == RL_BN_MARK && p->fate == RL_SIMWIRE_DELIVERED)
		p->fate = RL_SIMWIRE_ECN_MARKED;
}

static void sw_apply(uint8_t *frame, size_t len, const struct sw_plan *p)
{
	if (p->bn == RL_BN_MARK)
		sw_mark_ce(frame, len, p->ce_byte, p->ce_shift);
	if (p->fate == RL_SIMWIRE_CORRUPTED)
		frame[p->byte] ^= (uint8_t)(1u << p->bit);
	else if (p->fate == RL_SIMWIRE_ECN_MARKED && p->bn != RL_BN_MARK)
		sw_mark_ce(frame, len, p->byte, p->bit);
}

static void sw_count(struct rl_simwire_stats *st, enum rl_simwire_fate fate)
{
	st->sent++;
	switch (fate) {
	case RL_SIMWIRE_QUEUE_FULL: st->queue_full++; break;
	case RL_SIMWIRE_DROPPED_BY_NUMBER: case RL_SIMWIRE_DROPPED: st->dropped++; break;
	case RL_SIMWIRE_DUPLICATED: st->duplicated++; break;
	case RL_SIMWIRE_REORDERED: st->reordered++; break;
	case RL_SIMWIRE_CORRUPTED: st->corrupted++; break;
	case RL_SIMWIRE_ECN_MARKED: st->ecn_marked++; break;
	case RL_SIMWIRE_BOTTLENECK_FULL: case RL_SIMWIRE_RED_DROPPED: st->bottleneck_dropped++; break;
	default: break;
	}
}

/* Copies that will arrive: none for a lost frame, two for a duplicated one. */
static int sw_copies(enum rl_simwire_fate fate)
{
	switch (fate) {
	case RL_SIMWIRE_QUEUE_FULL: case RL_SIMWIRE_DROPPED_BY_NUMBER: case RL_SIMWIRE_DROPPED:
	case RL_SIMWIRE_BOTTLENECK_FULL: case RL_SIMWIRE_RED_DROPPED:
		return 0;
	case RL_SIMWIRE_DUPLICATED:
		return 2;
	default:
		return 1;
	}
}

/*
 * Serialize on the sender's link (a frame lost on the wire was still
 * transmitted) and schedule the copies. A duplicate arrives one
 * serialization time behind the original, as if a switch sent the frame
 * twice back to back; it does not hold up the sender's link.
 */
static void sw_transmit(struct rl_simwire *w, int port, uint64_t now, struct sw_entry e,
			const struct sw_plan *p, uint8_t *copy2)
{
	struct sw_dir *d = &w->dir[port];
	uint64_t ser = sw_serialize_ns(w, e.len);
	uint64_t start = d->busy_until > now ? d->busy_until : now;

	d->busy_until = sw_add(start, ser);
	if (start > now)
		d->waiting.v[d->waiting.tail++] = start;
	if (!e.frame)
		return;
	e.time = sw_add(d->bn ? p->bn_depart : d->busy_until, w->cfg.latency_ns);
	if (p->fate == RL_SIMWIRE_REORDERED)
		e.time = sw_add(e.time, w->cfg.reorder_delay_ns);
	sw_in_flight_push(w, e);
	if (copy2) {
		e.frame = copy2;
		e.time = sw_add(e.time, ser);
		sw_in_flight_push(w, e);
	}
}

/* ---- public API --------------------------------------------------------- */

const char *rl_simwire_strerror(int status)
{
	switch (status) {
	case RL_SIMWIRE_OK: return "ok";
	case RL_SIMWIRE_E_ARG: return "no wire was given";
	case RL_SIMWIRE_E_PORT: return "a wire has two ports: 0 and 1";
	case RL_SIMWIRE_E_FRAME: return "the frame is missing, empty or longer than 10000 bytes";
	case RL_SIMWIRE_E_TIME: return "time went backwards: now is earlier than the previous send";
	case RL_SIMWIRE_E_NOMEM: return "out of memory: the frame was not sent";
	case RL_SIMWIRE_E_CONFIG:
		return "a bottleneck needs a rate above 0, kmin <= kmax and pmax between 0 and 1";
	default: return "unknown simwire status";
	}
}

const char *rl_simwire_fate_name(enum rl_simwire_fate fate)
{
	static const char *const names[RL_SIMWIRE_FATE_COUNT] = {
		[RL_SIMWIRE_DELIVERED] = "delivered",
		[RL_SIMWIRE_QUEUE_FULL] = "queue-full",
		[RL_SIMWIRE_DROPPED_BY_NUMBER] = "dropped-by-number",
		[RL_SIMWIRE_DROPPED] = "dropped",
		[RL_SIMWIRE_DUPLICATED] = "duplicated",
		[RL_SIMWIRE_REORDERED] = "reordered",
		[RL_SIMWIRE_CORRUPTED] = "corrupted",
		[RL_SIMWIRE_ECN_MARKED] = "ecn-marked",
		[RL_SIMWIRE_BOTTLENECK_FULL] = "bottleneck-full",
		[RL_SIMWIRE_RED_DROPPED] = "red-dropped",
	};

	return (unsigned)fate < RL_SIMWIRE_FATE_COUNT ? names[fate] : "unknown-fate";
}

/* A NaN compares false both ways, so it is refused too. */
static bool sw_rate_ok(double r)
{
	return r >= 0 && r <= 1;
}

static bool sw_config_ok(const struct rl_simwire_config *c)
{
	if (!sw_rate_ok(c->drop_rate) || !sw_rate_ok(c->dup_rate) || !sw_rate_ok(c->reorder_rate) ||
	    !sw_rate_ok(c->corrupt_rate) || !sw_rate_ok(c->ecn_rate))
		return false;
	if (c->n_drop_frames && !c->drop_frames)
		return false;
	if (c->n_drop_frames > SIZE_MAX / sizeof(uint64_t))
		return false;
	for (size_t i = 0; i < c->n_drop_frames; i++)
		if (!c->drop_frames[i])
			return false;   /* numbers start at 1 */
	return true;
}

static void sw_defaults(struct rl_simwire_config *c)
{
	if (!c->latency_ns)
		c->latency_ns = RL_SIMWIRE_DEFAULT_LATENCY_NS;
	if (!c->queue_frames)
		c->queue_frames = RL_SIMWIRE_DEFAULT_QUEUE_FRAMES;
	if (!c->reorder_delay_ns)
		c->reorder_delay_ns = c->latency_ns > UINT64_MAX / 3 ? UINT64_MAX : 3 * c->latency_ns;
}

struct rl_simwire *rl_simwire_new(const struct rl_simwire_config *cfg)
{
	static const struct rl_simwire_config none;
	struct rl_simwire *w;
	size_t n;

	if (!cfg)
		cfg = &none;
	if (!sw_config_ok(cfg))
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->cfg = *cfg;
	sw_defaults(&w->cfg);
	n = cfg->n_drop_frames;
	if (n) {
		w->drop = malloc(n * sizeof(*w->drop));
		if (!w->drop) {
			free(w);
			return NULL;
		}
		memcpy(w->drop, cfg->drop_frames, n * sizeof(*w->drop));
		qsort(w->drop, n, sizeof(*w->drop), sw_cmp_u64);
	}
	w->cfg.drop_frames = w->drop;
	w->faults = cfg->choose || n || cfg->drop_rate > 0 || cfg->dup_rate > 0 || cfg->reorder_rate > 0 ||
		    cfg->corrupt_rate > 0 || cfg->ecn_rate > 0;
	return w;
}

void rl_simwire_free(struct rl_simwire *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++)
		free(w->heap[i].frame);
	free(w->heap);
	for (size_t i = 0; i < w->lane.n; i++)
		free(sw_lane_at(&w->lane, i)->frame);
	free(w->lane.v);
	free(w->dir[0].waiting.v);
	free(w->dir[1].waiting.v);
	rl_bn_free(w->dir[0].bn);
	rl_bn_free(w->dir[1].bn);
	free(w->drop);
	free(w->out);
	for (int k = 0; k < SW_CLASSES; k++) {
		for (size_t i = 0; i < w->pool[k].n; i++)
			free(w->pool[k].v[i]);
		free(w->pool[k].v);
	}
	free(w);
}

static int sw_check_send(const struct rl_simwire *w, int port, const uint8_t *frame, size_t len,
			 uint64_t now)
{
	if (!w)
		return RL_SIMWIRE_E_ARG;
	if (port != 0 && port != 1)
		return RL_SIMWIRE_E_PORT;
	if (!frame || !len || len > RL_SIMWIRE_MAX_FRAME)
		return RL_SIMWIRE_E_FRAME;
	if (now < w->last_send)
		return RL_SIMWIRE_E_TIME;
	return RL_SIMWIRE_OK;
}

/* Everything that can fail happens before the frame is numbered. */
static int sw_reserve(struct rl_simwire *w, int port, size_t len, int copies, uint8_t **c1,
		      uint8_t **c2)
{
	*c1 = *c2 = NULL;
	if (sw_fifo_reserve(&w->dir[port].waiting) || sw_heap_reserve(w, 2) || sw_lane_reserve(&w->lane, 2))
		return RL_SIMWIRE_E_NOMEM;
	if (w->dir[port].bn && rl_bn_reserve(w->dir[port].bn))
		return RL_SIMWIRE_E_NOMEM;
	if (copies >= 1 && !(*c1 = sw_buf_get(w, len)))
		return RL_SIMWIRE_E_NOMEM;
	if (copies >= 2 && !(*c2 = sw_buf_get(w, len))) {
		sw_buf_put(w, *c1, len);
		return RL_SIMWIRE_E_NOMEM;
	}
	return RL_SIMWIRE_OK;
}

static void sw_record(const struct rl_simwire *w, uint64_t number, int port, uint64_t now,
		      const uint8_t *frame, size_t len, const struct sw_plan *p)
{
	/*
	 * A tap on the link stamps a frame when its last bit passes: after
	 * serialization, plus any delay the wire adds (a reordered frame). A
	 * duplicate passes twice, one serialization time apart.
	 */
	/* Behind a bottleneck the tap is at its output: a frame passes when it departs (or is dropped there). */
	enum rl_simwire_fate fate = p->fate;
	struct rl_simwire_record r;

	if (!w->cfg.record)
		return;
	r = (struct rl_simwire_record){
		.number = number, .from_port = port,
		.time_ns = fate == RL_SIMWIRE_QUEUE_FULL ? now
			 : w->dir[port].bn ? p->bn_depart : w->dir[port].busy_until,
		.sent_ns = now, .frame = frame, .len = len, .fate = fate,
	};
	if (fate == RL_SIMWIRE_REORDERED)
		r.time_ns = sw_add(r.time_ns, w->cfg.reorder_delay_ns);
	w->cfg.record(w->cfg.ctx, &r);
	if (fate == RL_SIMWIRE_DUPLICATED) {
		r.time_ns = sw_add(r.time_ns, sw_serialize_ns(w, len));
		w->cfg.record(w->cfg.ctx, &r);
	}
}

int rl_simwire_send(struct rl_simwire *w, int port, const uint8_t *frame, size_t len, uint64_t now)
{
	int st = sw_check_send(w, port, frame, len, now);
	uint64_t number;
	struct sw_plan plan;
	struct sw_entry e = { .len = len, .to_port = !port };
	uint8_t *copy2;

	if (st)
		return st;
	sw_fifo_expire(&w->dir[port].waiting, now);
	number = w->frames + 1;
	sw_decide(w, port, frame, len, number, &plan);
	if (w->dir[port].bn && plan.fate != RL_SIMWIRE_QUEUE_FULL)
		sw_bottleneck_decide(w, port, frame, len, now, number, &plan);
	st = sw_reserve(w, port, len, sw_copies(plan.fate), &e.frame, &copy2);
	if (st)
		return st;

	w->frames = e.number = number;
	w->last_send = now;
	if (e.frame) {
		memcpy(e.frame, frame, len);
		sw_apply(e.frame, len, &plan);
		if (copy2)
			memcpy(copy2, e.frame, len);
	}
	sw_count(&w->dir[port].st, plan.fate);
	if (w->dir[port].bn && plan.fate != RL_SIMWIRE_QUEUE_FULL)
		plan.bn_depart = rl_bn_commit(w->dir[port].bn, plan.bn_arrival, len, number, NULL, plan.bn);
	if (plan.fate != RL_SIMWIRE_QUEUE_FULL)
		sw_transmit(w, port, now, e, &plan, copy2);
	sw_record(w, number, port, now, e.frame ? e.frame : frame, len, &plan);
	return RL_SIMWIRE_OK;
}

uint64_t rl_simwire_next_time(const struct rl_simwire *w)
{
	const struct sw_entry *e = w ? sw_in_flight_next(w) : NULL;

	return e ? e->time : UINT64_MAX;
}

bool rl_simwire_deliver(struct rl_simwire *w, uint64_t now, struct rl_simwire_delivery *out)
{
	const struct sw_entry *next = w ? sw_in_flight_next(w) : NULL;
	struct sw_entry e;

	if (!out || !next || next->time > now)
		return false;
	e = sw_in_flight_pop(w, next);
	for (int port = 0; port < 2; port++)
		if (w->dir[port].bn)
			rl_bn_drain(w->dir[port].bn, now);
	sw_buf_put(w, w->out, w->out_len);
	w->out = e.frame;
	w->out_len = e.len;
	w->dir[!e.to_port].st.delivered++;
	*out = (struct rl_simwire_delivery){
		.to_port = e.to_port, .time_ns = e.time, .frame = e.frame, .len = e.len,
		.number = e.number,
	};
	return true;
}

size_t rl_simwire_queued(struct rl_simwire *w, int port, uint64_t now)
{
	if (!w || (port != 0 && port != 1))
		return 0;
	sw_fifo_expire(&w->dir[port].waiting, now);
	return sw_fifo_len(&w->dir[port].waiting);
}

uint64_t rl_simwire_queue_below(struct rl_simwire *w, int port, uint64_t now, size_t n)
{
	const struct sw_fifo *f;

	if (rl_simwire_queued(w, port, now) < n)
		return now;
	/* Start times only grow, one serialization apart: after the n-th from the end starts, n - 1 wait. */
	f = &w->dir[port].waiting;
	return f->v[f->tail - n];
}

void rl_simwire_stats(const struct rl_simwire *w, int port, struct rl_simwire_stats *st)
{
	if (!st)
		return;
	if (!w || (port != 0 && port != 1)) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = w->dir[port].st;
}

/* ---- the congestion point (rl_bottleneck, bottleneck.c) ----------------- */

int rl_simwire_set_bottleneck(struct rl_simwire *w, int port, const struct rl_bottleneck *b)
{
	struct rl_bn *q;

	if (!w)
		return RL_SIMWIRE_E_ARG;
	if (port != 0 && port != 1)
		return RL_SIMWIRE_E_PORT;
	if (b && !rl_bn_config_ok(b))
		return RL_SIMWIRE_E_CONFIG;
	if (!b) {
		rl_bn_free(w->dir[port].bn);
		w->dir[port].bn = NULL;
		return RL_SIMWIRE_OK;
	}
	q = w->dir[port].bn;
	if (!q && !(q = calloc(1, sizeof(*q))))
		return RL_SIMWIRE_E_NOMEM;
	q->cfg = *b;
	q->port = port;
	w->dir[port].bn = q;
	return RL_SIMWIRE_OK;
}

uint64_t rl_simwire_bottleneck_depth(struct rl_simwire *w, int port, uint64_t now)
{
	if (!w || (port != 0 && port != 1) || !w->dir[port].bn)
		return 0;
	rl_bn_drain(w->dir[port].bn, now);
	return w->dir[port].bn->depth;
}

void rl_simwire_bottleneck_stats(const struct rl_simwire *w, int port, struct rl_bottleneck_stats *st)
{
	if (!st)
		return;
	if (!w || (port != 0 && port != 1) || !w->dir[port].bn) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = w->dir[port].bn->st;
}

/* ---- the congestion point on its own, in real time ---------------------- */

struct rl_bottleneck_queue {
	struct rl_bn bn;
	uint64_t seed, offered;      /* frames offered: each one's number and RED draw */
};

struct rl_bottleneck_queue *rl_bottleneck_queue_new(const struct rl_bottleneck *b, uint64_t seed)
{
	struct rl_bottleneck_queue *q;

	if (!b || !rl_bn_config_ok(b) || !(q = calloc(1, sizeof(*q))))
		return NULL;
	q->bn.cfg = *b;
	q->seed = seed;
	return q;
}

void rl_bottleneck_queue_free(struct rl_bottleneck_queue *q)
{
	if (q)
		free(q->bn.v);
	free(q);
}

/* As sw_bottleneck_decide() and sw_apply() do for a simulated frame, at the frame's real arrival. */
int rl_bottleneck_queue_offer(struct rl_bottleneck_queue *q, uint8_t *frame, size_t len, uint64_t now,
			      uint64_t *depart)
{
	size_t byte = 0;
	unsigned shift = 0;
	bool ecn_capable = sw_ecn_field(frame, len, &byte, &shift) && ((frame[byte] >> shift) & 3) != 0;
	enum rl_bn_verdict v;

	if (rl_bn_reserve(&q->bn))
		return -1;
	rl_bn_drain(&q->bn, now);
	q->offered++;
	v = rl_bn_decide(&q->bn, len, ecn_capable, sw_red_draw(q->seed, q->offered));
	*depart = rl_bn_commit(&q->bn, now, len, q->offered, frame, v);
	switch (v) {
	case RL_BN_MARK:
		sw_mark_ce(frame, len, byte, shift);
		return RL_BOTTLENECK_MARKED;
	case RL_BN_DROP_FULL: return RL_BOTTLENECK_DROP_FULL;
	case RL_BN_DROP_RED: return RL_BOTTLENECK_DROP_RED;
	default: return RL_BOTTLENECK_PASS;
	}
}

uint64_t rl_bottleneck_queue_depth(struct rl_bottleneck_queue *q, uint64_t now)
{
	rl_bn_drain(&q->bn, now);
	return q->bn.depth;
}

bool rl_bottleneck_queue_pop(struct rl_bottleneck_queue *q, uint64_t now, uint8_t **frame, size_t *len)
{
	struct rl_bn_slot s;

	if (!rl_bn_pop(&q->bn, now, &s))
		return false;
	*frame = s.tag;
	*len = s.len;
	return true;
}

uint64_t rl_bottleneck_queue_depth_over(const struct rl_bottleneck_queue *q, uint64_t from, uint64_t to,
					uint64_t *area)
{
	return rl_bn_depth_over(&q->bn, from, to, area);
}

uint64_t rl_bottleneck_queue_next_departure(const struct rl_bottleneck_queue *q)
{
	return q->bn.n ? q->bn.v[q->bn.head].depart : UINT64_MAX;
}

void rl_bottleneck_queue_stats(const struct rl_bottleneck_queue *q, struct rl_bottleneck_stats *st)
{
	*st = q->bn.st;
}
