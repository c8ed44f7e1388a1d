/* SPDX-License-Identifier: MIT */
/*
 * The QP's pacer and notification point (cc.c, host.c) on the simulated
 * wire, against arithmetic stated here: N frames of L bytes at a rate R
 * take N * L * 8 / R seconds to leave, whatever the algo; a responder
 * whose requests all arrive CE-marked sends one CNP per interval it was
 * given (IBA A17.9; mlx5's min_time_between_cnps), no more.
 */
#include <stdio.h>
#include <string.h>

#include "rocelab/dcqcn.h"
#include "tp.h"

#define GBPS 1000000000ull
#define MBPS 1000000ull
#define NS_PER_S 1000000000ull
#define PACER_LEN (100 * 1024)   /* 100 packets at MTU 1024 */
#define LINE (40 * GBPS)

/* Every request A sends arrives marked Congestion Experienced (ECN 11; IPv4 checksum redone). */
static bool mark_all_requests(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	(void)t;
	(void)n;
	if (from == 0)
		tl_mark_ce_ipv4(frame, len);
	return true;
}

struct pacer_run {
	uint64_t first, last;      /* A's first and last request left */
	uint64_t bytes, last_len;  /* the requests' frame lengths, all, and the last one's */
	unsigned requests, cnps;
	uint64_t cnp_times[TP_QUEUE];
	struct rl_qp_stats a, b;
};

/* A WRITE of @len bytes from A with these settings on each side; what crossed. */
static void pacer_write(const struct rl_qp_cc *cc_a, const struct rl_qp_cc *cc_b, bool marked, uint32_t len,
			struct pacer_run *r)
{
	static struct tp_pair t;
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_RC);
	o.timeout = 14;   /* 67 ms: a paced sender is not a lost one */
	o.cc[0] = *cc_a;
	o.cc[1] = *cc_b;
	tp_setup(&t, &o);
	if (marked)
		t.filter = mark_all_requests;
	CU_ASSERT_EQUAL(tp_post_send(&t, 0, RL_WR_RDMA_WRITE, 0, len, 0, 1), 0);
	tp_run(&t, 10 * NS_PER_S);
	tp_expect_wc(&t, 0, RL_WC_SUCCESS, RL_WC_RDMA_WRITE, 1);
	memset(r, 0, sizeof(*r));
	for (uint64_t i = 0; i < t.frames && i < TP_QUEUE; i++) {
		if (t.from[i] == 1 && t.opcodes[i] == RL_OP_CNP)
			r->cnp_times[r->cnps++] = t.times[i];
		if (t.from[i] != 0 || t.opcodes[i] == RL_OP_CNP)
			continue;
		if (!r->requests++)
			r->first = t.times[i];
		r->last = t.times[i];
		r->bytes += t.lens[i];
		r->last_len = t.lens[i];
	}
	rl_qp_stats(t.end[0].qp, &r->a);
	rl_qp_stats(t.end[1].qp, &r->b);
	tp_teardown(&t);
}

/*
 * From the first request out to the last, every frame but the last went
 * through the link at @rate_bps: the sum of their lengths * 8 / R, within
 * 2% (an ACK on this wire can hold a request back by a frame's 1 us).
 */
static void assert_paced(const struct pacer_run *r, uint64_t rate_bps, unsigned len)
{
	uint64_t npkts = (len + 1023) / 1024;
	uint64_t want = (r->bytes - r->last_len) * 8 * NS_PER_S / rate_bps;
	uint64_t got = r->last - r->first;

	CU_ASSERT_EQUAL(r->requests, npkts);
	CU_ASSERT(got + got / 50 >= want && got <= want + want / 50);
	if (!(got + got / 50 >= want && got <= want + want / 50))
		printf("\npaced at %llu b/s: %llu ns for %llu frames, want %llu\n", (unsigned long long)rate_bps,
		       (unsigned long long)got, (unsigned long long)npkts, (unsigned long long)want);
}

static void test_pacer_cap_holds_without_cc(void)
{
	struct rl_qp_cc none = { 0 }, capped = { .rate_limit_bps = GBPS };
	struct pacer_run free_run, capped_run;

	pacer_write(&none, &none, false, PACER_LEN, &free_run);
	pacer_write(&capped, &none, false, PACER_LEN, &capped_run);
	assert_paced(&capped_run, GBPS, PACER_LEN);
	/* Without a cap the same WRITE leaves at the simulated wire's pace, far faster. */
	CU_ASSERT(free_run.last - free_run.first < (capped_run.last - capped_run.first) / 4);
	CU_ASSERT_EQUAL(capped_run.a.rate_decreases, 0);
}

/*
 * ibv_qp_rate_limit_attr.max_burst_sz: requests may leave up to that many
 * bytes' time ahead of the schedule, and the rate over the run holds.
 */
static void test_pacer_burst(void)
{
	struct rl_qp_cc none = { 0 }, burst = { .rate_limit_bps = GBPS, .max_burst_bytes = 4096 };
	uint64_t early = 4096ull * 8 * NS_PER_S / GBPS;
	struct pacer_run r;

	pacer_write(&burst, &none, false, PACER_LEN, &r);
	CU_ASSERT_EQUAL(r.requests, PACER_LEN / 1024);
	/* One frame's time of slack each side: the schedule runs ahead by the burst, less one frame. */
	CU_ASSERT(r.last - r.first + early >= (r.bytes - r.last_len) * 8 * NS_PER_S / GBPS * 98 / 100);
	CU_ASSERT(r.last - r.first + early <= (r.bytes - r.last_len) * 8 * NS_PER_S / GBPS * 102 / 100);
	/* Without a burst, the same requests take the whole schedule (assert_paced, above). */
}

/* Marks one request of A's, the @filter_ctx-th (1-based), CE: one CNP, one cut. */
static bool mark_one_request(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	unsigned *left = t->filter_ctx;

	(void)n;
	if (from == 0 && *left && !--*left)
		tl_mark_ce_ipv4(frame, len);
	return true;
}

/*
 * A token bucket of depth D refilled at R(t) lets no run of frames
 * i..j carry more than D + the integral of R from t_i to t_j, however
 * the rate moves (mlx5's max_burst_sz: "bursts ... smaller than or equal
 * to this value"). The rate here is the cap up to the cut and the cut's
 * after it; everything is in bits * ns / s, where the two meet exactly.
 */
static void test_pacer_burst_after_cut(void)
{
	enum { BURST = 8192, MARKED = 40, LEN = 150 * 1024 };
	struct rl_dcqcn_params p;
	struct rl_qp_cc dc = { .algo = RL_CC_DCQCN, .line_rate_bps = LINE, .rate_limit_bps = 2 * GBPS,
			       .max_burst_bytes = BURST, .dcqcn = &p };
	struct rl_qp_cc none = { 0 };
	static struct tp_pair t;
	struct tp_opts o;
	uint64_t times[TP_QUEUE], lens[TP_QUEUE], cut, r_new, worst = 0, after_bytes = 0;
	unsigned marked = MARKED, n = 0, first_after = 0;

	/* No timer or byte count brings the rate back during the run: the cut is its one change. */
	rl_dcqcn_params_default(&p);
	p.k_ns = p.t_ns = 100 * NS_PER_S;
	p.b_bytes = 1ull << 40;
	tp_default_opts(&o, RL_QPT_RC);
	o.timeout = 14;
	o.cc[0] = dc;
	o.cc[1] = none;
	tp_setup(&t, &o);
	t.filter = mark_one_request;
	t.filter_ctx = &marked;
	CU_ASSERT_EQUAL(tp_post_send(&t, 0, RL_WR_RDMA_WRITE, 0, LEN, 0, 1), 0);
	tp_run(&t, 10 * NS_PER_S);
	tp_expect_wc(&t, 0, RL_WC_SUCCESS, RL_WC_RDMA_WRITE, 1);
	for (uint64_t i = 0; i < t.frames && i < TP_QUEUE; i++)
		if (t.from[i] == 0 && t.opcodes[i] != RL_OP_CNP) {
			times[n] = t.times[i];
			lens[n++] = t.lens[i];
		}
	CU_ASSERT_EQUAL_FATAL(t.ev_count[RL_EV_RATE_CHANGE], 1);
	cut = t.last_ev[RL_EV_RATE_CHANGE].now;
	r_new = t.last_ev[RL_EV_RATE_CHANGE].value;
	CU_ASSERT_EQUAL(r_new, GBPS);   /* alpha 1: the cut halves the cap */
	tp_teardown(&t);
	CU_ASSERT_EQUAL_FATAL(n, LEN / 1024);
	for (unsigned i = 0; i < n; i++) {
		uint64_t bits = 0;

		for (unsigned j = i; j < n; j++) {
			uint64_t before = times[j] < cut ? times[j] : cut, after = times[j] > cut ? times[j] : cut;
			uint64_t allowed = (uint64_t)BURST * 8 * NS_PER_S;

			bits += lens[j] * 8 * NS_PER_S;
			if (times[i] < before)
				allowed += (before - times[i]) * 2 * GBPS;
			allowed += (after - (times[i] > cut ? times[i] : cut)) * r_new;
			if (bits > allowed && (bits - allowed) / (8 * NS_PER_S) > worst)
				worst = (bits - allowed) / (8 * NS_PER_S);
		}
		if (times[i] > cut && !first_after)
			first_after = i;
	}
	CU_ASSERT_EQUAL(worst, 0);
	if (worst)
		printf("\na run of frames passed the bucket by %llu bytes\n", (unsigned long long)worst);
	/* And the bound is not met by standing still: after the cut the requests leave at the new rate. */
	CU_ASSERT_FATAL(first_after > 0 && first_after < n - 10);
	for (unsigned j = first_after; j < n - 1; j++)
		after_bytes += lens[j];
	CU_ASSERT(times[n - 1] - times[first_after] <= after_bytes * 8 * NS_PER_S / r_new * 102 / 100);
}

static void test_pacer_dcqcn_ceiling_below_line_rate(void)
{
	struct rl_dcqcn_params p;
	struct rl_qp_cc capped = { .algo = RL_CC_DCQCN, .line_rate_bps = LINE, .rate_limit_bps = 2 * GBPS };
	struct rl_qp_cc max_rate = { .algo = RL_CC_DCQCN, .line_rate_bps = LINE, .dcqcn = &p };
	struct rl_qp_cc none = { 0 };
	struct pacer_run r;

	/* A cap is DCQCN's ceiling: no CNP, still paced at the cap, and Rc starts there. */
	pacer_write(&capped, &none, false, PACER_LEN, &r);
	assert_paced(&r, 2 * GBPS, PACER_LEN);
	CU_ASSERT_EQUAL(r.a.cc_rate_bps, 2 * GBPS);
	CU_ASSERT_EQUAL(r.a.cc_stage, RL_DCQCN_LINE_RATE);
	/* So is rpg_max_rate below the line rate. */
	rl_dcqcn_params_default(&p);
	p.max_rate_bps = 500 * MBPS;
	pacer_write(&max_rate, &none, false, PACER_LEN / 4, &r);
	assert_paced(&r, 500 * MBPS, PACER_LEN / 4);
}

/*
 * B's CNPs: never two closer than @interval, and with marked requests
 * arriving every @gap ns, the next one after the interval gets its CNP.
 */
static void assert_cnp_spacing(const struct pacer_run *r, uint64_t interval, uint64_t gap)
{
	CU_ASSERT_FATAL(r->cnps >= 2);
	for (unsigned i = 1; i < r->cnps; i++) {
		CU_ASSERT(r->cnp_times[i] - r->cnp_times[i - 1] >= interval);
		CU_ASSERT(r->cnp_times[i] - r->cnp_times[i - 1] <= interval + gap);
		if (r->cnp_times[i] - r->cnp_times[i - 1] < interval || r->cnp_times[i] - r->cnp_times[i - 1] > interval + gap)
			printf("\nCNP %u: %llu ns after the one before\n", i,
			       (unsigned long long)(r->cnp_times[i] - r->cnp_times[i - 1]));
	}
	CU_ASSERT_EQUAL(r->b.cnps_sent, r->cnps);
	CU_ASSERT_EQUAL(r->a.cnps_recv, r->cnps);
	CU_ASSERT(r->b.ecn_ce_recv >= r->cnps);
}

static void test_np_cnp_interval_settable(void)
{
	struct rl_qp_cc none = { 0 }, np_10us = { .cnp_interval_ns = 10000 }, paced = { .rate_limit_bps = GBPS };
	struct pacer_run def, short_iv;

	/* A paced at 1 Gb/s: a 1024-byte request each 8.6 us (+1 us of wire), ~880 us of marked arrivals. */
	pacer_write(&paced, &none, true, PACER_LEN, &def);
	pacer_write(&paced, &np_10us, true, PACER_LEN, &short_iv);
	assert_cnp_spacing(&def, 50000, 10000);   /* zeroed: RL_CNP_INTERVAL_NS, 50 us */
	assert_cnp_spacing(&short_iv, 10000, 10000);
	CU_ASSERT(short_iv.cnps > 2 * def.cnps);
}

/* A CE-marked request gets a CNP, and a DCQCN sender's pacer then holds it below its line rate. */
static void test_np_cnp_slows_dcqcn_sender(void)
{
	struct rl_qp_cc dc = { .algo = RL_CC_DCQCN, .line_rate_bps = LINE, .rate_limit_bps = GBPS }, none = { 0 };
	struct pacer_run clear, marked;

	pacer_write(&dc, &none, false, PACER_LEN, &clear);
	pacer_write(&dc, &none, true, PACER_LEN, &marked);
	CU_ASSERT_EQUAL(clear.cnps, 0);
	CU_ASSERT(marked.cnps > 0);
	CU_ASSERT(marked.a.rate_decreases > 0);
	/*
	 * Unmarked, the cap's 1 Gb/s; the first CNP halves Rc (alpha 1) and
	 * each CNP after it, every 50 us, cuts again, faster than the 55 us
	 * timer brings it back: the same requests take over twice as long.
	 */
	assert_paced(&clear, GBPS, PACER_LEN);
	CU_ASSERT(marked.last - marked.first > 2 * (clear.last - clear.first));
	/* After the transfer the timers bring Rc back to its ceiling, the cap. */
	CU_ASSERT_EQUAL(marked.a.cc_rate_bps, GBPS);
	CU_ASSERT_EQUAL(marked.a.cc_stage, RL_DCQCN_LINE_RATE);
}

int tl_suite_cc_pacer(void)
{
	CU_pSuite s = CU_add_suite("cc pacer and notification point", NULL, NULL);

	return !s || !CU_add_test(s, "a rate limit paces a QP without congestion control", test_pacer_cap_holds_without_cc) ||
	       !CU_add_test(s, "DCQCN's ceiling below the line rate is paced", test_pacer_dcqcn_ceiling_below_line_rate) ||
	       !CU_add_test(s, "max_burst_sz lets requests run ahead by the burst", test_pacer_burst) ||
	       !CU_add_test(s, "after a cut no run of frames passes the bucket", test_pacer_burst_after_cut) ||
	       !CU_add_test(s, "CNPs at most one per set interval", test_np_cnp_interval_settable) ||
	       !CU_add_test(s, "a CE mark gets a CNP and slows a DCQCN sender", test_np_cnp_slows_dcqcn_sender);
}
