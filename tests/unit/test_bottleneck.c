/* SPDX-License-Identifier: MIT */
/*
 * The congestion point on the simulated wire (struct rl_bottleneck): the RED
 * curve at chosen depths, departure spacing, tail drop, Not-ECT drops, the
 * frame after marking, determinism, and a transport run whose receiver
 * answers the marks with CNPs.
 */
#include <math.h>   /* NAN */
#include <string.h>

#include "rocelab/pair.h"
#include "rocelab/simwire.h"
#include "testlib.h"

int tl_suite_bottleneck(void);

#define FRAME_LEN 1002                            /* Ethernet's 14 bytes leave RoCE frames at 2 mod 4 */
#define RATE_8G (FRAME_LEN * 8ull * 1000000ull)  /* about 8 Gb/s: a frame takes exactly 1000 ns */
#define SER_NS 1000
#define LATENCY_NS 5000
#define ECT0 2
#define NOT_ECT 0

/* An IPv4 RDMA WRITE Only of FRAME_LEN bytes with ECN bits @ecn, numbered by @psn. */
static void mk_write(uint8_t *buf, uint8_t ecn, uint32_t psn)
{
	static uint8_t pl[FRAME_LEN];
	struct rl_pkt p;
	size_t n, hdr;

	rl_pkt_init(&p, RL_OP_RC_RDMA_WRITE_ONLY);
	p.ip4.dscp = 26;
	p.ip4.ecn = ecn;
	p.bth.dqpn = 0x11;
	p.bth.psn = psn;
	p.payload = pl;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, FRAME_LEN, &hdr), RL_OK);
	p.payload_len = FRAME_LEN - hdr;       /* headers of an empty one: the rest is payload */
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, FRAME_LEN, &n), RL_OK);
	CU_ASSERT_EQUAL_FATAL(n, FRAME_LEN);
}

static struct rl_simwire *wire_with(const struct rl_bottleneck *b, uint64_t seed)
{
	struct rl_simwire_config c = { .latency_ns = LATENCY_NS, .seed = seed, .queue_frames = 1 << 20 };
	struct rl_simwire *w = rl_simwire_new(&c);

	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_EQUAL_FATAL(rl_simwire_set_bottleneck(w, 0, b), RL_SIMWIRE_OK);
	return w;
}

/* What the sample callback saw. */
struct seen {
	uint64_t marked_after;       /* count marks of frames numbered above this */
	uint64_t marks, enq, deq, drops;
	uint64_t hash;
};

static void seen_sample(void *ctx, const struct rl_bottleneck_sample *s)
{
	struct seen *v = ctx;

	v->enq += s->event == RL_BOTTLENECK_ENQUEUE;
	v->deq += s->event == RL_BOTTLENECK_DEQUEUE;
	v->drops += s->event == RL_BOTTLENECK_DROP;
	v->marks += s->marked && s->number > v->marked_after;
	v->hash = (v->hash ^ (s->time_ns * 31 + s->depth_bytes * 7 + s->marked)) * 0x100000001b3ull;
}

static void drain(struct rl_simwire *w, uint64_t now)
{
	struct rl_simwire_delivery d;

	while (rl_simwire_deliver(w, now, &d))
		;
}

/*
 * Hold the queue at @depth_frames - 1 frames as each new frame arrives: fill
 * it with @depth_frames at t = 0, then send one frame every serialization
 * time, just as one leaves. Returns the marks among the @n steady frames.
 */
static uint64_t steady_marks(struct rl_bottleneck b, unsigned depth_frames, unsigned n, uint64_t seed)
{
	struct seen v = { .marked_after = depth_frames };
	uint8_t f[FRAME_LEN];
	struct rl_simwire *w;
	uint64_t t = 0;

	b.sample = seen_sample;
	b.ctx = &v;
	w = wire_with(&b, seed);
	mk_write(f, ECT0, 0);
	for (unsigned i = 0; i < depth_frames; i++)
		CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 0), RL_SIMWIRE_OK);
	for (unsigned i = 0; i < n; i++) {
		t += SER_NS;
		CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), t), RL_SIMWIRE_OK);
		CU_ASSERT_EQUAL(rl_simwire_bottleneck_depth(w, 0, t), (uint64_t)depth_frames * FRAME_LEN);
		drain(w, t);
	}
	rl_simwire_free(w);
	return v.marks;
}

static const struct rl_bottleneck red = { .rate_bps = RATE_8G, .kmin = 10 * FRAME_LEN, .kmax = 30 * FRAME_LEN,
					  .pmax = 0.2 };

static void test_red_curve(void)
{
	CU_ASSERT_EQUAL(rl_bottleneck_mark_prob(&red, 0), 0);
	CU_ASSERT_EQUAL(rl_bottleneck_mark_prob(&red, red.kmin), 0);
	CU_ASSERT_DOUBLE_EQUAL(rl_bottleneck_mark_prob(&red, 20 * FRAME_LEN), 0.1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(rl_bottleneck_mark_prob(&red, red.kmax), 0.2, 1e-12);
	CU_ASSERT_EQUAL(rl_bottleneck_mark_prob(&red, red.kmax + 1), 1);
}

#define STEADY_N 20000

static void test_below_kmin_nothing_is_marked(void)
{
	CU_ASSERT_EQUAL(steady_marks(red, 10, STEADY_N, 1), 0);   /* depth 9 frames < kmin */
}

static void test_above_kmax_everything_is_marked(void)
{
	CU_ASSERT_EQUAL(steady_marks(red, 32, STEADY_N, 1), STEADY_N);   /* depth 31 frames > kmax */
}

/* Between: the share marked is the formula's p, within 5 binomial standard deviations. */
static void test_between_the_share_follows_the_line(void)
{
	static const unsigned depths[] = { 15, 21, 26 };

	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		uint64_t d = (uint64_t)(depths[i] - 1) * FRAME_LEN;
		double p = red.pmax * (double)(d - red.kmin) / (double)(red.kmax - red.kmin);
		double var = STEADY_N * p * (1 - p);
		double off = (double)steady_marks(red, depths[i], STEADY_N, 7 + i) - STEADY_N * p;

		CU_ASSERT(off * off <= 25 * var);   /* |off| <= 5 sd, without libm */
	}
}

/* A burst at t = 0 leaves one serialization apart and arrives latency later. */
static void test_departures_are_one_serialization_apart(void)
{
	struct rl_bottleneck b = { .rate_bps = RATE_8G, .kmin = UINT32_MAX, .kmax = UINT32_MAX };
	struct rl_simwire *w = wire_with(&b, 1);
	struct rl_simwire_delivery d;
	uint8_t f[FRAME_LEN];
	unsigned k = 0;

	mk_write(f, ECT0, 0);
	for (int i = 0; i < 8; i++)
		rl_simwire_send(w, 0, f, sizeof(f), 0);
	CU_ASSERT_EQUAL(rl_simwire_bottleneck_depth(w, 0, 0), 8 * FRAME_LEN);
	CU_ASSERT_EQUAL(rl_simwire_bottleneck_depth(w, 0, 3 * SER_NS), 5 * FRAME_LEN);
	while (rl_simwire_deliver(w, UINT64_MAX - 1, &d)) {
		k++;
		CU_ASSERT_EQUAL(d.time_ns, k * SER_NS + LATENCY_NS);
	}
	CU_ASSERT_EQUAL(k, 8);
	CU_ASSERT_EQUAL(rl_simwire_bottleneck_depth(w, 0, UINT64_MAX - 1), 0);
	rl_simwire_free(w);
}

/* The dequeues, in the order the queue reported them. */
struct order {
	uint64_t n, last_number, last_time;
	bool in_order;
};

static void order_sample(void *ctx, const struct rl_bottleneck_sample *s)
{
	struct order *o = ctx;

	if (s->event != RL_BOTTLENECK_DEQUEUE)
		return;
	if (o->n && (s->number != o->last_number + 1 || s->time_ns != o->last_time + SER_NS))
		o->in_order = false;
	o->n++;
	o->last_number = s->number;
	o->last_time = s->time_ns;
}

/*
 * A FIFO whose storage wraps round and then must grow still serves first
 * in, first out, one serialization apart: 60 frames, 40 leave, then 90 more
 * arrive at once, past any small power-of-two store whose head has moved.
 */
static void test_wrapped_queue_grows_in_order(void)
{
	struct order o = { .in_order = true };
	struct rl_bottleneck b = { .rate_bps = RATE_8G, .kmin = UINT32_MAX, .kmax = UINT32_MAX,
				   .sample = order_sample, .ctx = &o };
	struct rl_simwire *w = wire_with(&b, 1);
	uint8_t f[FRAME_LEN];

	mk_write(f, ECT0, 0);
	for (int i = 0; i < 60; i++)
		CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 0), RL_SIMWIRE_OK);
	drain(w, 40 * SER_NS);
	CU_ASSERT_EQUAL(rl_simwire_bottleneck_depth(w, 0, 40 * SER_NS), 20 * FRAME_LEN);
	for (int i = 0; i < 90; i++)
		CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 40 * SER_NS), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(rl_simwire_bottleneck_depth(w, 0, 40 * SER_NS), 110 * FRAME_LEN);
	drain(w, UINT64_MAX - 1);
	CU_ASSERT_EQUAL(rl_simwire_bottleneck_depth(w, 0, UINT64_MAX - 1), 0);
	CU_ASSERT_EQUAL(o.n, 150);
	CU_ASSERT_EQUAL(o.last_time, 150 * SER_NS);
	CU_ASSERT(o.in_order);
	rl_simwire_free(w);
}

static void test_tail_drop_past_the_limit(void)
{
	struct rl_bottleneck b = { .rate_bps = RATE_8G, .queue_bytes = 3 * FRAME_LEN, .kmin = UINT32_MAX,
				   .kmax = UINT32_MAX };
	struct rl_simwire *w = wire_with(&b, 1);
	struct rl_bottleneck_stats bs;
	struct rl_simwire_stats st;
	uint8_t f[FRAME_LEN];

	mk_write(f, ECT0, 0);
	for (int i = 0; i < 5; i++)
		rl_simwire_send(w, 0, f, sizeof(f), 0);
	rl_simwire_bottleneck_stats(w, 0, &bs);
	rl_simwire_stats(w, 0, &st);
	CU_ASSERT_EQUAL(bs.enqueued, 3);
	CU_ASSERT_EQUAL(bs.dropped_full, 2);
	CU_ASSERT_EQUAL(bs.max_depth_bytes, 3 * FRAME_LEN);
	CU_ASSERT_EQUAL(st.bottleneck_dropped, 2);
	CU_ASSERT_EQUAL(st.sent, 5);
	/* One frame gone, room for one more. */
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), SER_NS), RL_SIMWIRE_OK);
	rl_simwire_bottleneck_stats(w, 0, &bs);
	CU_ASSERT_EQUAL(bs.enqueued, 4);
	CU_ASSERT_EQUAL(bs.dequeued, 1);
	rl_simwire_free(w);
}

/* Mark everything above an empty queue: ECT frames get CE, Not-ECT frames are dropped. */
static const struct rl_bottleneck mark_all = { .rate_bps = RATE_8G, .kmin = 0, .kmax = 0, .pmax = 1 };

static void test_not_ect_is_dropped_not_marked(void)
{
	struct rl_simwire *w = wire_with(&mark_all, 1);
	struct rl_bottleneck_stats bs;
	struct rl_simwire_delivery d;
	uint8_t f[FRAME_LEN];
	int n = 0;

	mk_write(f, NOT_ECT, 0);
	for (int i = 0; i < 4; i++)
		rl_simwire_send(w, 0, f, sizeof(f), 0);
	rl_simwire_bottleneck_stats(w, 0, &bs);
	CU_ASSERT_EQUAL(bs.enqueued, 1);         /* the first saw an empty queue */
	CU_ASSERT_EQUAL(bs.dropped_red, 3);
	CU_ASSERT_EQUAL(bs.marked, 0);
	while (rl_simwire_deliver(w, UINT64_MAX - 1, &d)) {
		n++;
		CU_ASSERT_EQUAL(d.frame[15] & 3, NOT_ECT);
	}
	CU_ASSERT_EQUAL(n, 1);
	rl_simwire_free(w);
}

/* RFC 1071: the one's complement sum over a valid IPv4 header is 0xffff. */
static bool ip4_checksum_ok(const uint8_t *ip, size_t hlen)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < hlen; i += 2)
		sum += rl_get16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static void test_marked_frame_has_valid_checksum_and_icrc(void)
{
	struct rl_simwire *w = wire_with(&mark_all, 1);
	struct rl_simwire_delivery d;
	uint8_t f[FRAME_LEN];
	struct rl_pkt p;
	int n = 0;

	mk_write(f, ECT0, 0);
	rl_simwire_send(w, 0, f, sizeof(f), 0);
	rl_simwire_send(w, 0, f, sizeof(f), 0);
	while (rl_simwire_deliver(w, UINT64_MAX - 1, &d)) {
		n++;
		CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, d.frame, d.len, &p), RL_OK);
		CU_ASSERT_EQUAL(p.ip4.ecn, n == 1 ? ECT0 : 3);
		CU_ASSERT_EQUAL(p.ip4.dscp, 26);
		CU_ASSERT_TRUE(p.icrc_ok);
		CU_ASSERT_TRUE(ip4_checksum_ok(d.frame + 14, 20));
	}
	CU_ASSERT_EQUAL(n, 2);
	rl_simwire_free(w);
}

static uint64_t run_hash(uint64_t seed)
{
	struct seen v = { 0 };
	struct rl_bottleneck b = red;
	struct rl_simwire *w;
	uint8_t f[FRAME_LEN];

	b.sample = seen_sample;
	b.ctx = &v;
	w = wire_with(&b, seed);
	mk_write(f, ECT0, 0);
	for (unsigned i = 0; i < 2000; i++) {
		rl_simwire_send(w, 0, f, sizeof(f), (uint64_t)i * SER_NS / 2);   /* twice the line rate */
		drain(w, (uint64_t)i * SER_NS / 2);
	}
	rl_simwire_free(w);
	return v.hash;
}

static void test_same_seed_same_marks(void)
{
	CU_ASSERT_EQUAL(run_hash(42), run_hash(42));
	CU_ASSERT_NOT_EQUAL(run_hash(42), run_hash(43));
}

static void test_off_by_default_and_bad_configs(void)
{
	struct rl_simwire *w = rl_simwire_new(NULL);
	struct rl_bottleneck b = red;
	struct rl_bottleneck_stats bs;

	CU_ASSERT_EQUAL(rl_simwire_bottleneck_depth(w, 0, 0), 0);
	rl_simwire_bottleneck_stats(w, 1, &bs);
	CU_ASSERT_EQUAL(bs.enqueued + bs.max_depth_bytes, 0);
	b.rate_bps = 0;
	CU_ASSERT_EQUAL(rl_simwire_set_bottleneck(w, 0, &b), RL_SIMWIRE_E_CONFIG);
	b = red;
	b.kmin = b.kmax + 1;
	CU_ASSERT_EQUAL(rl_simwire_set_bottleneck(w, 0, &b), RL_SIMWIRE_E_CONFIG);
	b = red;
	b.pmax = NAN;
	CU_ASSERT_EQUAL(rl_simwire_set_bottleneck(w, 0, &b), RL_SIMWIRE_E_CONFIG);
	CU_ASSERT_EQUAL(rl_simwire_set_bottleneck(w, 2, &red), RL_SIMWIRE_E_PORT);
	CU_ASSERT_EQUAL(rl_simwire_set_bottleneck(NULL, 0, &red), RL_SIMWIRE_E_ARG);
	CU_ASSERT_EQUAL(rl_simwire_set_bottleneck(w, 0, &red), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(rl_simwire_set_bottleneck(w, 0, NULL), RL_SIMWIRE_OK);
	CU_ASSERT_STRING_EQUAL(rl_simwire_fate_name(RL_SIMWIRE_RED_DROPPED), "red-dropped");
	rl_simwire_free(w);
}

/* ---- a transport run over the bottleneck -------------------------------- */

#define BURST 32
#define WRITE_LEN 4096

struct burst_result {
	struct rl_bottleneck_stats bs;
	struct rl_qp_stats a, b;
};

/* A burst of RDMA WRITEs from A through a 1 Gb/s bottleneck on A's direction; ECT(0) on both QPs. */
static void write_burst(uint32_t kmin, uint32_t kmax, struct burst_result *r)
{
	struct rl_bottleneck b = { .rate_bps = 1000000000ull, .kmin = kmin, .kmax = kmax, .pmax = 0.5 };
	struct rl_pair_config pc;
	struct rl_pair p;
	struct rl_send_wr wr;

	memset(&pc, 0, sizeof(pc));
	pc.sim.kind = RL_SIM_SIMWIRE;
	pc.sim.wire.rate_bps = 25000000000ull;
	pc.sim.wire.seed = 5;
	for (int i = 0; i < 2; i++) {
		const uint8_t ip[4] = { 10, 0, 0, (uint8_t)(i + 1) };

		pc.sim.host[i].mac[5] = (uint8_t)(i + 1);
		rl_gid_from_ipv4(pc.sim.host[i].gid, ip);
		pc.sim.host[i].active_mtu = RL_MTU_4096;
		pc.mem[i] = BURST * WRITE_LEN;
		rl_conn_defaults(&pc.conn[i]);
		pc.conn[i].path_mtu = RL_MTU_1024;
		pc.conn[i].traffic_class = 26 << 2 | ECT0;
	}
	pc.type = RL_QPT_RC;
	CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
	CU_ASSERT_EQUAL_FATAL(rl_simwire_set_bottleneck(rl_sim_wire(p.sim), 0, &b), RL_SIMWIRE_OK);
	for (int i = 0; i < BURST; i++) {
		rl_pair_send_wr(&p, 0, RL_WR_RDMA_WRITE, (uint64_t)i * WRITE_LEN, WRITE_LEN,
				(uint64_t)i * WRITE_LEN, (uint64_t)i, &wr);
		CU_ASSERT_EQUAL(rl_pair_post_send(&p, 0, &wr), 0);
	}
	CU_ASSERT(rl_pair_run(&p, 1000000000ull, 1000000, NULL, NULL) >= 0);
	rl_simwire_bottleneck_stats(rl_sim_wire(p.sim), 0, &r->bs);
	rl_qp_stats(p.end[0].qp, &r->a);
	rl_qp_stats(p.end[1].qp, &r->b);
	CU_ASSERT_EQUAL(memcmp(p.end[0].mem, p.end[1].mem, BURST * WRITE_LEN), 0);
	rl_pair_free(&p);
}

static void test_transport_marks_bring_cnps(void)
{
	struct burst_result r;

	write_burst(8 * 1024, 32 * 1024, &r);
	CU_ASSERT(r.bs.max_depth_bytes > 32 * 1024);
	CU_ASSERT(r.bs.marked > 0);
	CU_ASSERT(r.b.ecn_ce_recv > 0);
	CU_ASSERT(r.b.cnps_sent > 0);
	CU_ASSERT_EQUAL(r.a.cnps_recv, r.b.cnps_sent);
}

static void test_transport_without_marking_no_cnp(void)
{
	struct burst_result r;

	write_burst(UINT32_MAX, UINT32_MAX, &r);
	CU_ASSERT(r.bs.max_depth_bytes > 32 * 1024);
	CU_ASSERT_EQUAL(r.bs.marked, 0);
	CU_ASSERT_EQUAL(r.b.ecn_ce_recv, 0);
	CU_ASSERT_EQUAL(r.b.cnps_sent, 0);
}

/*
 * The queue on its own (rocelab switch's): frames offered at t = 0 leave one
 * serialization apart (simwire.h's depart formula), the fourth past a
 * 3-frame limit is tail-dropped, and with everything above an empty queue
 * marked, an ECT(0) frame is set to CE with a valid IPv4 checksum and ICRC
 * while a Not-ECT one is dropped.
 */
static void test_realtime_queue(void)
{
	struct rl_bottleneck b = mark_all, bad = mark_all;
	struct rl_bottleneck_queue *q;
	struct rl_bottleneck_stats bs;
	uint8_t f[FRAME_LEN], g[FRAME_LEN];
	uint64_t dep = 0;
	struct rl_pkt p;

	bad.kmin = 2;
	bad.kmax = 1;
	CU_ASSERT_PTR_NULL(rl_bottleneck_queue_new(&bad, 1));
	b.queue_bytes = 3 * FRAME_LEN;
	q = rl_bottleneck_queue_new(&b, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_next_departure(q), UINT64_MAX);
	mk_write(f, ECT0, 0);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_offer(q, f, sizeof(f), 0, &dep), RL_BOTTLENECK_PASS);
	CU_ASSERT_EQUAL(dep, SER_NS);
	CU_ASSERT_EQUAL(f[15] & 3, ECT0);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_offer(q, f, sizeof(f), 0, &dep), RL_BOTTLENECK_MARKED);
	CU_ASSERT_EQUAL(dep, 2 * SER_NS);
	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, sizeof(f), &p), RL_OK);
	CU_ASSERT_EQUAL(p.ip4.ecn, 3);
	CU_ASSERT_TRUE(p.icrc_ok);
	CU_ASSERT_TRUE(ip4_checksum_ok(f + 14, 20));
	mk_write(g, NOT_ECT, 1);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_offer(q, g, sizeof(g), 0, &dep), RL_BOTTLENECK_DROP_RED);
	CU_ASSERT_EQUAL(g[15] & 3, NOT_ECT);
	mk_write(f, ECT0, 2);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_offer(q, f, sizeof(f), 0, &dep), RL_BOTTLENECK_MARKED);
	CU_ASSERT_EQUAL(dep, 3 * SER_NS);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_offer(q, f, sizeof(f), 0, &dep), RL_BOTTLENECK_DROP_FULL);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_depth(q, 0), 3 * FRAME_LEN);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_next_departure(q), SER_NS);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_depth(q, 2 * SER_NS), FRAME_LEN);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_next_departure(q), 3 * SER_NS);
	rl_bottleneck_queue_stats(q, &bs);
	CU_ASSERT_EQUAL(bs.enqueued, 3);
	CU_ASSERT_EQUAL(bs.dequeued, 2);
	CU_ASSERT_EQUAL(bs.marked, 2);
	CU_ASSERT_EQUAL(bs.dropped_red, 1);
	CU_ASSERT_EQUAL(bs.dropped_full, 1);
	rl_bottleneck_queue_free(q);
}

/*
 * The switch's use: frames popped with their pointers once departed, and a
 * read-only depth for reports that leaves every frame in place, so an
 * offer stamped before the report still finds them.
 */
static void test_realtime_pop(void)
{
	struct rl_bottleneck b = mark_all;
	struct rl_bottleneck_queue *q;
	uint8_t f[FRAME_LEN], g[FRAME_LEN], *out;
	uint64_t dep = 0, area = 1;
	size_t len = 0;

	b.kmin = b.kmax = 100 * FRAME_LEN;  /* nothing marked */
	q = rl_bottleneck_queue_new(&b, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	mk_write(f, ECT0, 0);
	mk_write(g, ECT0, 1);
	CU_ASSERT_FALSE(rl_bottleneck_queue_pop(q, UINT64_MAX, &out, &len));
	CU_ASSERT_EQUAL(rl_bottleneck_queue_offer(q, f, sizeof(f), 0, &dep), RL_BOTTLENECK_PASS);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_offer(q, g, sizeof(g), 0, &dep), RL_BOTTLENECK_PASS);
	/* Over [0, 3 SER]: two frames until SER, one until 2 SER, then none. */
	CU_ASSERT_EQUAL(rl_bottleneck_queue_depth_over(q, 0, 3 * SER_NS, &area), 0);
	CU_ASSERT_EQUAL(area, 3 * FRAME_LEN * SER_NS);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_depth_over(q, SER_NS, SER_NS, &area), FRAME_LEN);
	CU_ASSERT_EQUAL(area, 0);
	CU_ASSERT_EQUAL(rl_bottleneck_queue_next_departure(q), SER_NS);
	CU_ASSERT_FALSE(rl_bottleneck_queue_pop(q, SER_NS - 1, &out, &len));
	CU_ASSERT_TRUE(rl_bottleneck_queue_pop(q, 3 * SER_NS, &out, &len));
	CU_ASSERT_PTR_EQUAL(out, f);
	CU_ASSERT_EQUAL(len, FRAME_LEN);
	CU_ASSERT_TRUE(rl_bottleneck_queue_pop(q, 3 * SER_NS, &out, &len));
	CU_ASSERT_PTR_EQUAL(out, g);
	CU_ASSERT_FALSE(rl_bottleneck_queue_pop(q, UINT64_MAX, &out, &len));
	CU_ASSERT_EQUAL(rl_bottleneck_queue_next_departure(q), UINT64_MAX);
	rl_bottleneck_queue_free(q);
}

int tl_suite_bottleneck(void)
{
	CU_pSuite s = CU_add_suite("bottleneck", NULL, NULL);

	return !s ||
	       !CU_add_test(s, "RED curve: 0 to kmin, linear to pmax, 1 past kmax", test_red_curve) ||
	       !CU_add_test(s, "below kmin nothing is marked", test_below_kmin_nothing_is_marked) ||
	       !CU_add_test(s, "above kmax everything is marked", test_above_kmax_everything_is_marked) ||
	       !CU_add_test(s, "between: the share marked follows the line",
			    test_between_the_share_follows_the_line) ||
	       !CU_add_test(s, "departures are one serialization apart",
			    test_departures_are_one_serialization_apart) ||
	       !CU_add_test(s, "a wrapped queue grows and stays in order", test_wrapped_queue_grows_in_order) ||
	       !CU_add_test(s, "tail drop past the queue limit", test_tail_drop_past_the_limit) ||
	       !CU_add_test(s, "Not-ECT is dropped, not marked", test_not_ect_is_dropped_not_marked) ||
	       !CU_add_test(s, "marked: IPv4 checksum valid, ICRC still ok",
			    test_marked_frame_has_valid_checksum_and_icrc) ||
	       !CU_add_test(s, "same seed, same marks", test_same_seed_same_marks) ||
	       !CU_add_test(s, "off by default; bad configs refused", test_off_by_default_and_bad_configs) ||
	       !CU_add_test(s, "transport: marks bring CNPs", test_transport_marks_bring_cnps) ||
	       !CU_add_test(s, "transport: no marking, no CNP", test_transport_without_marking_no_cnp) ||
	       !CU_add_test(s, "the queue on its own, in real time", test_realtime_queue) ||
	       !CU_add_test(s, "the real-time queue: frames popped, depth read without draining", test_realtime_pop);
}
