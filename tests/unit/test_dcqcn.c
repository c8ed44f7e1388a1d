/* SPDX-License-Identifier: MIT */
/*
 * DCQCN's reaction point (dcqcn.c) against the equations of Zhu et al.,
 * SIGCOMM 2015, section 3.1, evaluated here in double precision (the code
 * works in integers), and a QP that uses it on the simulated wire.
 */
#include <stdio.h>
#include <string.h>

#include "rocelab/dcqcn.h"
#include "tp.h"

#define GBPS 1000000000ull
#define MBPS 1000000ull
#define LINE (40 * GBPS)
#define ONE ((double)RL_DCQCN_ALPHA_ONE)

/* Rates agree within 1 b/s per step taken (Rc rounds up each halving), alpha within 2^-16. */
#define RATE_CLOSE(got, want, steps) CU_ASSERT(dabs((double)(got) - (want)) <= (steps) + 1.0)
#define ALPHA_CLOSE(got, want) CU_ASSERT(dabs((got) / ONE - (want)) <= 1.0 / 65536)

/* The unit tests link no libm: |x| and x^n by hand. */
static double dabs(double x)
{
	return x < 0 ? -x : x;
}

static double dpow(double x, int n)
{
	double r = 1;

	while (n-- > 0)
		r *= x;
	return r;
}

static struct rl_dcqcn_params params(void)
{
	struct rl_dcqcn_params p;

	rl_dcqcn_params_default(&p);
	return p;
}

static double g_of(const struct rl_dcqcn_params *p)
{
	return p->g / ONE;
}

static void test_dcqcn_defaults_are_the_papers(void)
{
	struct rl_dcqcn_params p = params();

	CU_ASSERT_DOUBLE_EQUAL(g_of(&p), 1.0 / 256, 1e-12);
	CU_ASSERT_EQUAL(p.k_ns, 55000);
	CU_ASSERT_EQUAL(p.t_ns, 55000);
	CU_ASSERT_EQUAL(p.b_bytes, 10000000);
	CU_ASSERT_EQUAL(p.f, 5);
	CU_ASSERT_EQUAL(p.r_ai_bps, 40 * MBPS);
	CU_ASSERT_EQUAL(p.r_hai_bps, 100 * MBPS);
	CU_ASSERT_EQUAL(p.alpha_init, RL_DCQCN_ALPHA_ONE);
	CU_ASSERT_EQUAL(p.reduce_period_ns, 0);
	CU_ASSERT_EQUAL(p.clamp, RL_DCQCN_CLAMP_ALWAYS);
}

static void test_dcqcn_one_cnp_halves_from_line_rate(void)
{
	struct rl_dcqcn st;
	double g = 1.0 / 256;

	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, NULL, LINE, 0), 0);
	CU_ASSERT_EQUAL(st.rc_bps, LINE);
	CU_ASSERT_FALSE(rl_dcqcn_pacing(&st));
	CU_ASSERT_EQUAL(rl_dcqcn_next_timer(&st), UINT64_MAX);
	CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, 1000));
	/* Rt = Rc; Rc = Rc (1 - alpha/2) with alpha = 1; alpha = (1 - g) alpha + g. */
	CU_ASSERT_EQUAL(st.rt_bps, LINE);
	RATE_CLOSE(st.rc_bps, LINE * (1 - 1.0 / 2), 0);
	ALPHA_CLOSE(st.alpha, (1 - g) * 1 + g);
	CU_ASSERT_EQUAL(st.stage, RL_DCQCN_FAST_RECOVERY);
	CU_ASSERT_TRUE(rl_dcqcn_pacing(&st));
	CU_ASSERT_EQUAL(rl_dcqcn_next_timer(&st), 1000 + 55000);
}

static void test_dcqcn_alpha_after_n_cnps(void)
{
	struct rl_dcqcn_params p = params();
	struct rl_dcqcn st;
	double g = g_of(&p), alpha = 0, rc = LINE;

	p.alpha_init = 0;
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, LINE, 0), 0);
	for (int n = 1; n <= 12; n++) {
		CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, 0));
		rc *= 1 - alpha / 2;          /* the cut uses alpha before its update */
		alpha = (1 - g) * alpha + g;
		CU_ASSERT(dabs(st.alpha / ONE - (1 - dpow(1 - g, n))) <= n / 65536.0);
		CU_ASSERT(dabs(st.alpha / ONE - alpha) <= n / 65536.0);
		CU_ASSERT(dabs((double)st.rc_bps - rc) / rc <= 1e-4);
	}
	CU_ASSERT_EQUAL(st.cuts, 12);
}

static void test_dcqcn_alpha_decays_each_quiet_period(void)
{
	struct rl_dcqcn st;
	double g = 1.0 / 256;

	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, NULL, LINE, 0), 0);
	rl_dcqcn_on_cnp(&st, 0);
	for (int m = 1; m <= 20; m++) {
		rl_dcqcn_advance(&st, (uint64_t)m * 55000 - 1);
		CU_ASSERT(dabs(st.alpha / ONE - dpow(1 - g, m - 1)) <= m / 65536.0);
		rl_dcqcn_advance(&st, (uint64_t)m * 55000);
		CU_ASSERT(dabs(st.alpha / ONE - dpow(1 - g, m)) <= m / 65536.0);
	}
}

/* Two CNPs at once from line rate with alpha = 1: Rt = L/2, Rc = L/4, so Rt has room to grow. */
static void two_cuts(struct rl_dcqcn *st, const struct rl_dcqcn_params *p, double *rt, double *rc)
{
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(st, p, LINE, 0), 0);
	rl_dcqcn_on_cnp(st, 0);
	rl_dcqcn_on_cnp(st, 0);
	*rt = LINE / 2.0;
	*rc = LINE / 4.0;
	CU_ASSERT_EQUAL(st->rt_bps, LINE / 2);
	RATE_CLOSE(st->rc_bps, *rc, 0);
}

static void test_dcqcn_fast_recovery_halfway_each_timer(void)
{
	struct rl_dcqcn_params p = params();
	struct rl_dcqcn st;
	double rt, rc;

	two_cuts(&st, &p, &rt, &rc);
	for (uint32_t k = 1; k <= p.f; k++) {
		CU_ASSERT_EQUAL(rl_dcqcn_advance(&st, k * p.t_ns), 1);
		rc = (rt + rc) / 2;
		CU_ASSERT_EQUAL(st.stage, RL_DCQCN_FAST_RECOVERY);
		CU_ASSERT_EQUAL(st.rt_bps, LINE / 2);
		RATE_CLOSE(st.rc_bps, rc, k);
	}
	/* F steps close all but 2^-F of the gap. */
	RATE_CLOSE(st.rc_bps, rt - (rt - LINE / 4.0) / (1 << p.f), p.f);
}

static void test_dcqcn_additive_then_hyper(void)
{
	struct rl_dcqcn_params p = params();
	struct rl_dcqcn st;
	double rt, rc;
	uint32_t k;

	p.b_bytes = 1000000;   /* a small B, so that the byte counter passes F too */
	two_cuts(&st, &p, &rt, &rc);
	for (k = 1; k <= p.f + 2; k++) {
		rl_dcqcn_advance(&st, k * p.t_ns);
		if (k > p.f)
			rt += p.r_ai_bps;       /* timer past F, bytes not: additive */
		rc = (rt + rc) / 2;
		CU_ASSERT_EQUAL(st.stage, k > p.f ? RL_DCQCN_ADDITIVE : RL_DCQCN_FAST_RECOVERY);
		RATE_CLOSE(st.rt_bps, rt, 0);
		RATE_CLOSE(st.rc_bps, rc, k);
	}
	/* Byte events at the same instant: at F + 1 both counters have passed F: hyper, i = 1, then 2. */
	for (uint32_t b = 1; b <= p.f + 3; b++) {
		CU_ASSERT_EQUAL(rl_dcqcn_on_sent(&st, p.b_bytes, (p.f + 2) * p.t_ns), 1);
		uint32_t lo = b < p.f + 2 ? b : p.f + 2;
		if (b <= p.f)
			rt += p.r_ai_bps;
		else
			rt += (double)(lo - p.f) * p.r_hai_bps;
		rc = (rt + rc) / 2;
		CU_ASSERT_EQUAL(st.stage, b > p.f ? RL_DCQCN_HYPER : RL_DCQCN_ADDITIVE);
		RATE_CLOSE(st.rt_bps, rt, 0);
		RATE_CLOSE(st.rc_bps, rc, p.f + 2 + b);
	}
}

static void test_dcqcn_clamps(void)
{
	struct rl_dcqcn_params p = params();
	struct rl_dcqcn st;
	uint64_t t;

	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, LINE, 0), 0);
	for (int n = 0; n < 40; n++)
		rl_dcqcn_on_cnp(&st, 0);
	CU_ASSERT_EQUAL(st.rc_bps, p.min_rate_bps);   /* 40G / 2^40 is far below 10 Mb/s */
	/* Recovery stops at the line rate: Rt never passes it, Rc reaches it and the limiter lets go. */
	p.max_rate_bps = 0;
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, LINE, 0), 0);
	rl_dcqcn_on_cnp(&st, 0);
	for (t = p.t_ns; rl_dcqcn_pacing(&st) && t < 1000 * p.t_ns; t += p.t_ns) {
		rl_dcqcn_advance(&st, t);
		CU_ASSERT(st.rt_bps <= LINE && st.rc_bps <= LINE);
	}
	CU_ASSERT_EQUAL(st.rc_bps, LINE);
	CU_ASSERT_EQUAL(st.stage, RL_DCQCN_LINE_RATE);
	CU_ASSERT_EQUAL(rl_dcqcn_next_timer(&st), UINT64_MAX);
	/* A ceiling below the line rate (rpg_max_rate) holds Rt. */
	p.max_rate_bps = 10 * GBPS;
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, LINE, 0), 0);
	CU_ASSERT_EQUAL(st.rc_bps, 10 * GBPS);
	p.min_rate_bps = 20 * GBPS;
	CU_ASSERT_EQUAL(rl_dcqcn_init(&st, &p, LINE, 0), -1);
}

static void test_dcqcn_reduce_monitor_period(void)
{
	struct rl_dcqcn_params p = params();
	struct rl_dcqcn st;

	p.reduce_period_ns = 4000;
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, LINE, 0), 0);
	CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, 0));
	CU_ASSERT_FALSE(rl_dcqcn_on_cnp(&st, 3999));
	CU_ASSERT_EQUAL(st.rc_bps, LINE / 2);
	CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, 4000));
	CU_ASSERT_EQUAL(st.cnps, 3);
	CU_ASSERT_EQUAL(st.cuts, 2);
}

/*
 * The ConnectX's rule (mlxconfig CLAMP_TGT_RATE False,
 * CLAMP_TGT_RATE_AFTER_TIME_INC True): a cut sets Rt = Rc only if a T
 * expiry raised the rate since the last cut; byte-counter increases do not
 * count. Rates by the paper's equations, in double precision.
 */
static void test_dcqcn_clamp_after_timer_increase(void)
{
	struct rl_dcqcn_params p = params();
	struct rl_dcqcn st;
	double g = g_of(&p), alpha = 1, rt = LINE, rc = LINE;

	p.clamp = RL_DCQCN_CLAMP_AFTER_TIMER;
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, LINE, 0), 0);
	/* Two CNPs, nothing between: the second cuts Rc again, Rt stays the line rate (the paper's: L/2). */
	for (int n = 0; n < 2; n++) {
		CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, 0));
		rc *= 1 - alpha / 2;
		alpha = (1 - g) * alpha + g;
		CU_ASSERT_EQUAL(st.rt_bps, LINE);
		RATE_CLOSE(st.rc_bps, rc, 0);
	}
	/* A byte-counter increase (fast recovery) between two CNPs: Rt still kept. */
	CU_ASSERT_EQUAL(rl_dcqcn_on_sent(&st, p.b_bytes, 0), 1);
	rc = (rt + rc) / 2;
	RATE_CLOSE(st.rc_bps, rc, 1);
	CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, 0));
	rc *= 1 - alpha / 2;
	alpha = (1 - g) * alpha + g;
	CU_ASSERT_EQUAL(st.rt_bps, LINE);
	RATE_CLOSE(st.rc_bps, rc, 1);
	/* T passes (alpha decays first, as K = T): a timer increase, so the next cut sets Rt = Rc. */
	CU_ASSERT_EQUAL(rl_dcqcn_advance(&st, p.t_ns), 1);
	alpha *= 1 - g;
	rc = (rt + rc) / 2;
	RATE_CLOSE(st.rc_bps, rc, 2);
	CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, p.t_ns));
	rt = rc;
	rc *= 1 - alpha / 2;
	RATE_CLOSE(st.rt_bps, rt, 2);
	RATE_CLOSE(st.rc_bps, rc, 2);
	/* The same CNPs with the paper's rule: Rt follows Rc at the second. */
	p.clamp = RL_DCQCN_CLAMP_ALWAYS;
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, LINE, 0), 0);
	rl_dcqcn_on_cnp(&st, 0);
	rl_dcqcn_on_cnp(&st, 0);
	CU_ASSERT_EQUAL(st.rt_bps, LINE / 2);
	p.clamp = (enum rl_dcqcn_clamp)7;
	CU_ASSERT_EQUAL(rl_dcqcn_init(&st, &p, LINE, 0), -1);
}

static void test_dcqcn_pacer_spacing(void)
{
	CU_ASSERT_EQUAL(rl_dcqcn_tx_ns(1000, GBPS), 8000);          /* 8000 bits at 1 Gb/s */
	CU_ASSERT_EQUAL(rl_dcqcn_tx_ns(1, 3 * GBPS), 3);             /* 8/3 ns, rounded up */
	/* 4e9 bytes (near max_burst_bytes' largest) at 1 Mb/s: 32000 s, where bytes * 8e9 would wrap. */
	CU_ASSERT_EQUAL(rl_dcqcn_tx_ns(4000000000ull, 1000000), 32000000000000ull);
	/* 3e9 + 1 bytes at 3 Gb/s: 8 s and 8/3 ns, rounded up by less than 1000 bytes' time (2667 ns) and 1 us. */
	CU_ASSERT(rl_dcqcn_tx_ns(3000000001ull, 3 * GBPS) >= 8000000003ull);
	CU_ASSERT(rl_dcqcn_tx_ns(3000000001ull, 3 * GBPS) < 8000000003ull + 2667 + 1000);
}

/*
 * A capture's timestamps are anyone's: a CNP at the end of 64-bit time, or
 * a jump of 127 years, must neither wrap the timers nor recurse for ever
 * (mutate's damaged captures found the second). After the jump Rc is back
 * at the line rate and the timers are off.
 */
/*
 * An alpha that cannot decay (a gain of 0) asks for no wake-up of its own:
 * with K = 1 us and T = 1 ms the next timer is T's, and stepping there
 * gives the one increase, not a thousand empty alpha periods first.
 */
static void test_dcqcn_no_wakeups_for_a_still_alpha(void)
{
	struct rl_dcqcn_params p = params();
	struct rl_dcqcn st;
	const uint64_t cnp = 1000, k = 1000, t = 1000000;

	p.k_ns = k;
	p.t_ns = t;
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, LINE, 0), 0);
	CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, cnp));
	CU_ASSERT_EQUAL(rl_dcqcn_next_timer(&st), cnp + k);   /* alpha decays: its period first */
	p.g = 0;
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, LINE, 0), 0);
	CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, cnp));
	CU_ASSERT_EQUAL(rl_dcqcn_next_timer(&st), cnp + t);
	CU_ASSERT_EQUAL(rl_dcqcn_step(&st, cnp + t), RL_DCQCN_EV_INCREASE);
	CU_ASSERT_EQUAL(rl_dcqcn_step(&st, cnp + t), RL_DCQCN_EV_NONE);
	CU_ASSERT_EQUAL(rl_dcqcn_next_timer(&st), cnp + 2 * t);
}

static void test_dcqcn_hostile_times(void)
{
	struct rl_dcqcn st;

	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, NULL, LINE, 0), 0);
	CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, UINT64_MAX - 10));
	rl_dcqcn_advance(&st, UINT64_MAX);
	CU_ASSERT_EQUAL(rl_dcqcn_next_timer(&st), UINT64_MAX);
	CU_ASSERT_EQUAL(st.rc_bps, LINE / 2);          /* no period of K or T fits before the end */

	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, NULL, LINE, 0), 0);
	CU_ASSERT_TRUE(rl_dcqcn_on_cnp(&st, 1000));
	rl_dcqcn_advance(&st, 4000000000000000000ull);
	CU_ASSERT_EQUAL(st.stage, RL_DCQCN_LINE_RATE);
	CU_ASSERT_EQUAL(st.rc_bps, LINE);
	CU_ASSERT_EQUAL(st.alpha, 0);
	CU_ASSERT_EQUAL(rl_dcqcn_next_timer(&st), UINT64_MAX);
}

static void test_dcqcn_names(void)
{
	CU_ASSERT_STRING_EQUAL(rl_dcqcn_stage_name(RL_DCQCN_FAST_RECOVERY), "fast-recovery");
	CU_ASSERT_STRING_EQUAL(rl_dcqcn_stage_name(RL_DCQCN_HYPER), "hyper-increase");
	CU_ASSERT_STRING_EQUAL(rl_dcqcn_stage_name((enum rl_dcqcn_stage)99), "?");
	CU_ASSERT_STRING_EQUAL(rl_dcqcn_clamp_name(RL_DCQCN_CLAMP_AFTER_TIMER), "after-timer-increase");
	CU_ASSERT_STRING_EQUAL(rl_dcqcn_clamp_name((enum rl_dcqcn_clamp)99), "?");
	CU_ASSERT_STRING_EQUAL(rl_cc_algo_name(RL_CC_DCQCN), "dcqcn");
	CU_ASSERT_STRING_EQUAL(rl_event_name(RL_EV_RATE_CHANGE), "rate-change");
}

/* ---- on the wire ---------------------------------------------------------- */

#define CC_LEN (200 * 1024)   /* 200 packets at MTU 1024: more than the 128-PSN window */
#define CC_LINE GBPS

/* Frames on the wire (both ways) during which the switch is congested. */
#define CC_CONGESTED_FRAMES 60

/*
 * The congested switch, as the gen ecn scenario's wire marks: A's requests
 * among the first CC_CONGESTED_FRAMES arrive marked Congestion Experienced
 * (ECN 11, IPv4 checksum redone; the ICRC does not cover the ECN bits).
 */
static bool cc_mark_requests(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	(void)t;
	if (from == 0 && n <= CC_CONGESTED_FRAMES)
		tl_mark_ce_ipv4(frame, len);
	return true;
}

struct cc_run {
	uint64_t times[TP_QUEUE];
	uint32_t lens[TP_QUEUE];
	unsigned n;
	struct rl_qp_stats st;
	unsigned rate_events;
};

/* A WRITE of CC_LEN bytes from A; the departure times of A's requests. */
static void cc_write(enum rl_cc_algo algo, bool congested, struct cc_run *r)
{
	static struct tp_pair t;
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_RC);
	o.timeout = 14;   /* 67 ms: a slowed sender is not a lost one */
	o.cc[0] = (struct rl_qp_cc){ .algo = algo, .line_rate_bps = CC_LINE };
	tp_setup(&t, &o);
	if (congested)
		t.filter = cc_mark_requests;
	CU_ASSERT_EQUAL(tp_post_send(&t, 0, RL_WR_RDMA_WRITE, 0, CC_LEN, 0, 1), 0);
	tp_run(&t, 1000000000ull);
	tp_expect_wc(&t, 0, RL_WC_SUCCESS, RL_WC_RDMA_WRITE, 1);
	memset(r, 0, sizeof(*r));
	for (uint64_t i = 0; i < t.frames && i < TP_QUEUE; i++)
		if (t.from[i] == 0 && t.opcodes[i] != RL_OP_CNP) {
			r->times[r->n] = t.times[i];
			r->lens[r->n++] = t.lens[i];
		}
	rl_qp_stats(t.end[0].qp, &r->st);
	r->rate_events = t.ev_count[RL_EV_RATE_CHANGE];
	tp_teardown(&t);
}

static void test_dcqcn_cnps_spread_the_senders_packets(void)
{
	static struct cc_run none, none_marked, dc, dc_marked;
	uint64_t min_gap = UINT64_MAX;

	cc_write(RL_CC_NONE, false, &none);
	cc_write(RL_CC_NONE, true, &none_marked);
	cc_write(RL_CC_DCQCN, false, &dc);
	cc_write(RL_CC_DCQCN, true, &dc_marked);
	/*
	 * Without a reaction point, CNPs change nothing in what A sends; when it
	 * sends moves only by the wire time the CNPs themselves take (one FIFO
	 * step each, delaying the ACKs behind them).
	 */
	CU_ASSERT(none_marked.st.cnps_recv > 0);
	CU_ASSERT_EQUAL(none.st.cnps_recv, 0);
	CU_ASSERT_EQUAL(none_marked.n, none.n);
	CU_ASSERT_EQUAL(memcmp(none_marked.lens, none.lens, sizeof(none.lens)), 0);
	CU_ASSERT(none_marked.times[none.n - 1] - none_marked.times[0] <=
		  none.times[none.n - 1] - none.times[0] + none_marked.st.cnps_recv * 1000);
	CU_ASSERT_EQUAL(none_marked.st.rate_decreases, 0);
	CU_ASSERT_EQUAL(none_marked.rate_events, 0);
	CU_ASSERT_EQUAL(none_marked.st.cc_rate_bps, 0);
	/* DCQCN without congestion stays at line rate, unpaced: the same departures. */
	CU_ASSERT_EQUAL(dc.n, none.n);
	CU_ASSERT_EQUAL(memcmp(dc.times, none.times, sizeof(none.times)), 0);
	CU_ASSERT_EQUAL(dc.st.cc_rate_bps, CC_LINE);
	/* With CNPs it cuts its rate, and the packets after the first cut leave spaced out. */
	CU_ASSERT(dc_marked.st.cnps_recv > 0);
	CU_ASSERT(dc_marked.st.rate_decreases > 0);
	CU_ASSERT(dc_marked.rate_events >= dc_marked.st.rate_decreases);
	CU_ASSERT(dc_marked.times[dc_marked.n - 1] - dc_marked.times[0] > none.times[none.n - 1] - none.times[0]);
	for (unsigned i = 1; i < dc_marked.n; i++)
		if (dc_marked.times[i] > dc_marked.times[0] + 200000 && dc_marked.times[i] - dc_marked.times[i - 1] < min_gap)
			min_gap = dc_marked.times[i] - dc_marked.times[i - 1];
	/* Paced below line rate: no two packets closer than one packet's time at the line rate. */
	CU_ASSERT(min_gap != UINT64_MAX && min_gap >= rl_dcqcn_tx_ns(dc_marked.lens[0], CC_LINE));
	printf("\ndcqcn on the wire: %u requests; spread %llu us without cc, %llu us with DCQCN after %llu CNPs, "
	       "%llu cuts, %llu increases, smallest paced gap %llu ns\n", dc_marked.n,
	       (unsigned long long)(none_marked.times[none_marked.n - 1] - none_marked.times[0]) / 1000,
	       (unsigned long long)(dc_marked.times[dc_marked.n - 1] - dc_marked.times[0]) / 1000,
	       (unsigned long long)dc_marked.st.cnps_recv, (unsigned long long)dc_marked.st.rate_decreases,
	       (unsigned long long)dc_marked.st.rate_increases, (unsigned long long)min_gap);
}

static void test_dcqcn_qp_errors(void)
{
	static struct tp_pair t;
	struct tp_opts o;
	struct rl_qp_init_attr ia;
	struct rl_dcqcn_params p = params();

	tp_default_opts(&o, RL_QPT_RC);
	tp_setup(&t, &o);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = RL_QPT_UD;
	ia.send_cq = ia.recv_cq = t.end[0].cq;
	ia.cc.algo = RL_CC_DCQCN;
	CU_ASSERT_PTR_NULL(rl_create_qp(t.end[0].pd, &ia));
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(t.end[0].host), "RC or UC"));
	ia.qp_type = RL_QPT_RC;
	p.t_ns = 0;
	ia.cc.dcqcn = &p;
	CU_ASSERT_PTR_NULL(rl_create_qp(t.end[0].pd, &ia));
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(t.end[0].host), "DCQCN parameters"));
	tp_teardown(&t);
}

int tl_suite_dcqcn(void)
{
	CU_pSuite s = CU_add_suite("dcqcn", NULL, NULL);

	return !s || !CU_add_test(s, "the defaults are the paper's", test_dcqcn_defaults_are_the_papers) ||
	       !CU_add_test(s, "one CNP at alpha 1 halves Rc, Rt keeps the old Rc", test_dcqcn_one_cnp_halves_from_line_rate) ||
	       !CU_add_test(s, "alpha after n CNPs: 1 - (1-g)^n", test_dcqcn_alpha_after_n_cnps) ||
	       !CU_add_test(s, "alpha decays by (1-g) each quiet K", test_dcqcn_alpha_decays_each_quiet_period) ||
	       !CU_add_test(s, "fast recovery: Rc halfway to Rt for F timer events", test_dcqcn_fast_recovery_halfway_each_timer) ||
	       !CU_add_test(s, "additive, then hyper increase when both counters pass F", test_dcqcn_additive_then_hyper) ||
	       !CU_add_test(s, "clamps at the minimum rate and the line rate", test_dcqcn_clamps) ||
	       !CU_add_test(s, "at most one cut per rate_reduce_monitor_period", test_dcqcn_reduce_monitor_period) ||
	       !CU_add_test(s, "clamp_tgt_rate_after_time_inc: only a timer increase lets a cut move Rt", test_dcqcn_clamp_after_timer_increase) ||
	       !CU_add_test(s, "a transmission time is size / rate, rounded up, without overflow", test_dcqcn_pacer_spacing) ||
	       !CU_add_test(s, "an alpha that cannot decay asks for no wake-ups", test_dcqcn_no_wakeups_for_a_still_alpha) ||
	       !CU_add_test(s, "timestamps at the end of time, or years apart, end", test_dcqcn_hostile_times) ||
	       !CU_add_test(s, "name tables", test_dcqcn_names) ||
	       !CU_add_test(s, "CNPs slow a DCQCN QP's packets; with none nothing changes", test_dcqcn_cnps_spread_the_senders_packets) ||
	       !CU_add_test(s, "create_qp refuses DCQCN on UD and bad parameters", test_dcqcn_qp_errors);
}
