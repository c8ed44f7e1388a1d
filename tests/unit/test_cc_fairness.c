/* SPDX-License-Identifier: MIT */
/*
 * A property of DCQCN on the simulated wire (issue 23): N flows (QPs of A
 * towards QPs of B) of back-to-back RDMA WRITEs through one RED/ECN-marked
 * bottleneck, each starting at a seeded random time, each reach within 10%
 * of the bottleneck's rate over N, and once converged the queue drops
 * nothing; without congestion control the same flows overflow it. A flow's
 * rate is counted in the bottleneck's own bytes (the frame from the Ethernet
 * header to the ICRC, as simwire.h serializes it: no FCS, preamble or gap),
 * reckoned here from the headers' sizes in the standards, not read back from
 * the code.
 *
 * The senders' reaction points are the paper's except for one rule, the
 * ConnectX's default: a cut moves the target rate only after a timer
 * increase (RL_DCQCN_CLAMP_AFTER_TIMER, dcqcn.h). With the paper's "Rt = Rc
 * at every cut" the queue, marked at enqueue, stays past Kmax for the
 * marks' own queueing delay (up to 200 us at 10 Gb/s); every CNP of that
 * burst (one per 50 us per QP) cuts again, Rt following Rc down, and the
 * flows come out at 6 Gb/s together, then climb back by R_AI per T: over
 * [60, 180) ms and seeds 1-10 the queue was empty 8-10% of the time, the
 * flows carried 91-92% of the bottleneck and the worst sat 10.6% (2 flows)
 * and 15.6% (3 flows) under bottleneck / N. With the NIC's rule Rt keeps
 * the rate the burst began from, fast recovery returns there, and the
 * flows carry 94-97%: the worst were 7.8% and 7.8% under (seeds 1-40: 7.8%
 * and 8.3%). Measured with a throwaway trace of the queue and each QP's
 * Rc, Rt and alpha, not kept.
 */
#include <stdio.h>
#include <string.h>

#include "rocelab/dcqcn.h"
#include "rocelab/pair.h"
#include "rocelab/simwire.h"
#include "testlib.h"

int tl_suite_cc_fairness(void);

#define FF_MAX_FLOWS 3
#define FF_SEEDS 10
#define FF_GBPS 1000000000ull
#define FF_LINE (25 * FF_GBPS)               /* each sender's link, as gen's default */
#define FF_BOTTLENECK (10 * FF_GBPS)
#define FF_KB 1024u
/* The DCQCN paper's marking (Zhu et al., SIGCOMM 2015): Kmin 5 KB, Kmax 200 KB, Pmax 1%; a queue of 2 x Kmax. */
#define FF_KMIN (5 * FF_KB)
#define FF_KMAX (200 * FF_KB)
#define FF_PMAX 0.01
#define FF_QUEUE (400 * FF_KB)
#define FF_MTU_BYTES 4096                    /* every WRITE packet is full */
#define FF_WRITE_PKTS 16
#define FF_WRITE_LEN (FF_WRITE_PKTS * FF_MTU_BYTES)
/*
 * A WRITE packet on the bottleneck: Ethernet II header 14 (IEEE 802.3
 * clause 3.1.1, without the FCS), IPv4 20 (RFC 791, no options), UDP 8
 * (RFC 768), BTH 12 (IBA 9.2), the payload, ICRC 4 (IBA A17.4); the First
 * of each WRITE also a RETH of 16 (IBA 9.3.3): one packet in FF_WRITE_PKTS.
 */
#define FF_PKT_LINK_BYTES (14 + 20 + 8 + 12 + FF_MTU_BYTES + 4 + 16.0 / FF_WRITE_PKTS)
#define FF_WINDOW 16                         /* WRITEs outstanding per flow */
#define FF_MS 1000000ull
#define FF_START_SPREAD_NS (2 * FF_MS)       /* each flow starts at a random time in [0, 2 ms) */
#define FF_CONVERGED_NS (60 * FF_MS)         /* measured from here ... */
#define FF_END_NS (180 * FF_MS)              /* ... to here, when the flows stop posting */
#define FF_FAIR_TOLERANCE 0.10               /* the issue's: each within 10% of bottleneck / N */
#define FF_ACK_TIMEOUT 10                    /* 4.2 ms, as gen's congestion scenarios */

struct ff_run {
	struct rl_pair p;
	struct rl_qp *a[FF_MAX_FLOWS], *b[FF_MAX_FLOWS];
	uint64_t start[FF_MAX_FLOWS], posted[FF_MAX_FLOWS], done[FF_MAX_FLOWS];
	int n;
	bool snapped, failed;
	uint64_t pkts_at_conv[FF_MAX_FLOWS], drops_at_conv;
	bool ended;
	uint64_t pkts_at_end[FF_MAX_FLOWS];
	/* Results: packets B took in over [converged, end), and tail drops from converged on. */
	uint64_t pkts[FF_MAX_FLOWS], drops_after, drops_total;
};

static uint64_t ff_rand(uint64_t *s)
{
	/* xorshift64* (Vigna 2016), as gen_rand(). */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* The paper's reaction point, with @clamp's rule for Rt (see the top); copied when a QP is made. */
static const struct rl_dcqcn_params *ff_dcqcn(enum rl_dcqcn_clamp clamp)
{
	static struct rl_dcqcn_params p;

	rl_dcqcn_params_default(&p);
	p.clamp = clamp;
	return &p;
}

static void ff_config(struct rl_pair_config *pc, uint64_t seed, enum rl_cc_algo algo, enum rl_dcqcn_clamp clamp)
{
	memset(pc, 0, sizeof(*pc));
	pc->sim.kind = RL_SIM_SIMWIRE;
	/* A's link carries every flow: room for FF_MAX_FLOWS senders' links, each at FF_LINE. */
	pc->sim.wire.rate_bps = FF_LINE * FF_MAX_FLOWS;
	pc->sim.wire.seed = seed;
	pc->sim.wire.queue_frames = 1 << 20;
	for (int i = 0; i < 2; i++) {
		const uint8_t ip[4] = { 10, 0, 0, (uint8_t)(i + 1) };

		pc->sim.host[i].mac[5] = (uint8_t)(i + 1);
		rl_gid_from_ipv4(pc->sim.host[i].gid, ip);
		pc->sim.host[i].active_mtu = RL_MTU_4096;
		pc->mem[i] = FF_WRITE_LEN * FF_MAX_FLOWS;
		rl_conn_defaults(&pc->conn[i]);
		pc->conn[i].path_mtu = RL_MTU_4096;
		pc->conn[i].timeout = FF_ACK_TIMEOUT;
		pc->conn[i].traffic_class = 26 << 2 | 2;   /* ECT(0): RED marks instead of dropping */
	}
	pc->type = RL_QPT_RC;
	pc->max_send_wr = 256;
	pc->cqe = 4096;
	pc->cc[0] = (struct rl_qp_cc){ .algo = algo, .line_rate_bps = FF_LINE, .dcqcn = ff_dcqcn(clamp) };
}

/* Flow @i > 0: one more QP on each side, connected like the pair's. */
static void ff_extra_flow(struct ff_run *r, int i, enum rl_cc_algo algo, enum rl_dcqcn_clamp clamp)
{
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .max_send_wr = 256, .max_recv_wr = 16 };
	struct rl_conn ca = r->p.end[0].conn, cb = r->p.end[1].conn;

	ia.send_cq = ia.recv_cq = r->p.end[0].cq;
	ia.cc = (struct rl_qp_cc){ .algo = algo, .line_rate_bps = FF_LINE, .dcqcn = ff_dcqcn(clamp) };
	r->a[i] = rl_create_qp(r->p.end[0].pd, &ia);
	ia.send_cq = ia.recv_cq = r->p.end[1].cq;
	ia.cc = (struct rl_qp_cc){ 0 };
	r->b[i] = rl_create_qp(r->p.end[1].pd, &ia);
	CU_ASSERT_FATAL(r->a[i] && r->b[i]);
	ca.qpn = rl_qp_num(r->b[i]);
	cb.qpn = rl_qp_num(r->a[i]);
	CU_ASSERT_EQUAL_FATAL(rl_qp_connect(r->a[i], &ca), 0);
	CU_ASSERT_EQUAL_FATAL(rl_qp_connect(r->b[i], &cb), 0);
}

static uint64_t ff_recv_pkts(const struct ff_run *r, int i)
{
	struct rl_qp_stats st;

	rl_qp_stats(r->b[i], &st);
	return st.pkts_recv;
}

static uint64_t ff_drops(struct ff_run *r)
{
	struct rl_bottleneck_stats bs;

	rl_simwire_bottleneck_stats(rl_sim_wire(r->p.sim), 0, &bs);
	return bs.dropped_full + bs.dropped_red;
}

static void ff_snapshot(struct ff_run *r)
{
	for (int i = 0; i < r->n; i++)
		r->pkts_at_conv[i] = ff_recv_pkts(r, i);
	r->drops_at_conv = ff_drops(r);
	r->snapped = true;
}

static void ff_poll(struct ff_run *r)
{
	struct rl_wc wc[64];
	int k;

	while ((k = rl_poll_cq(r->p.end[0].cq, 64, wc)) > 0)
		for (int j = 0; j < k; j++) {
			r->done[wc[j].wr_id]++;
			r->failed |= wc[j].status != RL_WC_SUCCESS;
		}
	while (rl_poll_cq(r->p.end[1].cq, 64, wc) > 0)
		;
}

/* Every started flow keeps FF_WINDOW WRITEs outstanding until FF_END_NS. */
static bool ff_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct ff_run *r = ctx;
	uint64_t t = now;   /* the sim starts at 0 */
	bool busy = false;

	ff_poll(r);
	if (!r->snapped && t >= FF_CONVERGED_NS)
		ff_snapshot(r);
	/* The window ends here: what is still in flight drains after it and is not counted. */
	if (r->snapped && !r->ended && t >= FF_END_NS) {
		for (int i = 0; i < r->n; i++)
			r->pkts_at_end[i] = ff_recv_pkts(r, i);
		r->ended = true;
	}
	for (int i = 0; i < r->n && !r->failed; i++) {
		struct rl_send_wr wr;

		while (t >= r->start[i] && t < FF_END_NS && r->posted[i] - r->done[i] < FF_WINDOW) {
			rl_pair_send_wr(&r->p, 0, RL_WR_RDMA_WRITE, 0, FF_WRITE_LEN, (uint64_t)i * FF_WRITE_LEN,
					(uint64_t)i, &wr);
			CU_ASSERT_EQUAL_FATAL(rl_post_send(r->a[i], &wr), 0);
			r->posted[i]++;
		}
		if (t < r->start[i])
			rl_sim_wake(sim, r->start[i]);
		busy |= t < FF_END_NS || r->done[i] < r->posted[i];
	}
	if (!r->snapped && t < FF_CONVERGED_NS)
		rl_sim_wake(sim, FF_CONVERGED_NS);
	else if (!r->ended && t < FF_END_NS)
		rl_sim_wake(sim, FF_END_NS);
	return busy && !r->failed;
}

static void ff_run(struct ff_run *r, int n, uint64_t seed, enum rl_cc_algo algo, enum rl_dcqcn_clamp clamp)
{
	struct rl_bottleneck b = { .rate_bps = FF_BOTTLENECK, .queue_bytes = FF_QUEUE,
				   .kmin = FF_KMIN, .kmax = FF_KMAX, .pmax = FF_PMAX };
	struct rl_pair_config pc;
	uint64_t s = seed * 0x9e3779b97f4a7c15ull | 1;

	memset(r, 0, sizeof(*r));
	r->n = n;
	ff_config(&pc, seed, algo, clamp);
	CU_ASSERT_EQUAL_FATAL(rl_pair_init(&r->p, &pc), 0);
	CU_ASSERT_EQUAL_FATAL(rl_simwire_set_bottleneck(rl_sim_wire(r->p.sim), 0, &b), RL_SIMWIRE_OK);
	r->a[0] = r->p.end[0].qp;
	r->b[0] = r->p.end[1].qp;
	for (int i = 1; i < n; i++)
		ff_extra_flow(r, i, algo, clamp);
	for (int i = 0; i < n; i++)
		r->start[i] = ff_rand(&s) % FF_START_SPREAD_NS;
	CU_ASSERT(rl_pair_run(&r->p, FF_END_NS + 1000 * FF_MS, 1L << 30, ff_app, r) >= 0);
	CU_ASSERT_FALSE(r->failed);
	CU_ASSERT_FATAL(r->snapped && r->ended);
	for (int i = 0; i < n; i++)
		r->pkts[i] = r->pkts_at_end[i] - r->pkts_at_conv[i];
	r->drops_total = ff_drops(r);
	r->drops_after = r->drops_total - r->drops_at_conv;
	rl_pair_free(&r->p);
}

/* Each flow's rate over [FF_CONVERGED_NS, FF_END_NS), in b/s of the bottleneck's bytes. */
static double ff_rate(const struct ff_run *r, int i)
{
	return (double)r->pkts[i] * FF_PKT_LINK_BYTES * 8 * 1e9 / (double)(FF_END_NS - FF_CONVERGED_NS);
}

/* |a / b - 1| */
static double ff_off(double a, double b)
{
	double d = a / b - 1;

	return d < 0 ? -d : d;
}

static void ff_fair_for(int n)
{
	static struct ff_run r;
	double share = (double)FF_BOTTLENECK / n, worst = 0, least_util = 1;

	for (uint64_t seed = 1; seed <= FF_SEEDS; seed++) {
		double sum = 0;

		ff_run(&r, n, seed, RL_CC_DCQCN, RL_DCQCN_CLAMP_AFTER_TIMER);
		for (int i = 0; i < n; i++) {
			double off = ff_off(ff_rate(&r, i), share);

			worst = off > worst ? off : worst;
			sum += ff_rate(&r, i);
			CU_ASSERT(off <= FF_FAIR_TOLERANCE);
		}
		least_util = sum / FF_BOTTLENECK < least_util ? sum / FF_BOTTLENECK : least_util;
		CU_ASSERT_EQUAL(r.drops_after, 0);
	}
	printf("\n%d DCQCN flows, %d seeds, %llu-%llu ms: each within %.1f%% of bottleneck/%d = %.2f Gb/s, "
	       "together at least %.1f%% of it; no drop\n", n, FF_SEEDS, (unsigned long long)(FF_CONVERGED_NS / FF_MS),
	       (unsigned long long)(FF_END_NS / FF_MS), worst * 100, n, share / 1e9, least_util * 100);
}

static void test_cc_two_flows_fair(void) { ff_fair_for(2); }
static void test_cc_three_flows_fair(void) { ff_fair_for(3); }

/*
 * The paper's own rule, what gen and peer run unless --dcqcn clamp_tgt_rate=0
 * says otherwise: the flows stay within 10% of each other and drop nothing
 * once converged, though together they carry less (91-92% measured; at
 * least FF_PAPER_MIN_UTILISATION asserted), so bottleneck / N is missed.
 */
#define FF_PAPER_MIN_UTILISATION 0.85

static void ff_paper_for(int n)
{
	static struct ff_run r;
	double worst = 0, least_util = 1;

	for (uint64_t seed = 1; seed <= FF_SEEDS; seed++) {
		double sum = 0;

		ff_run(&r, n, seed, RL_CC_DCQCN, RL_DCQCN_CLAMP_ALWAYS);
		for (int i = 0; i < n; i++)
			sum += ff_rate(&r, i);
		for (int i = 0; i < n; i++) {
			double off = ff_off(ff_rate(&r, i), sum / n);

			worst = off > worst ? off : worst;
			CU_ASSERT(off <= FF_FAIR_TOLERANCE);
		}
		least_util = sum / FF_BOTTLENECK < least_util ? sum / FF_BOTTLENECK : least_util;
		CU_ASSERT(sum >= FF_PAPER_MIN_UTILISATION * FF_BOTTLENECK);
		CU_ASSERT_EQUAL(r.drops_after, 0);
	}
	printf("\n%d DCQCN flows, the paper's clamp, %d seeds: each within %.1f%% of the flows' mean, together at "
	       "least %.1f%% of the bottleneck; no drop\n", n, FF_SEEDS, worst * 100, least_util * 100);
}

static void test_cc_two_flows_paper(void) { ff_paper_for(2); }
static void test_cc_three_flows_paper(void) { ff_paper_for(3); }

static void test_cc_none_overflows(void)
{
	static struct ff_run r;

	for (int n = 2; n <= FF_MAX_FLOWS; n++) {
		ff_run(&r, n, 1, RL_CC_NONE, RL_DCQCN_CLAMP_ALWAYS);
		CU_ASSERT(r.drops_total > 0);
		CU_ASSERT(r.drops_after > 0);
		printf("\n%d flows without congestion control: %llu tail drops, %llu after %llu ms\n", n,
		       (unsigned long long)r.drops_total, (unsigned long long)r.drops_after,
		       (unsigned long long)(FF_CONVERGED_NS / FF_MS));
	}
}

int tl_suite_cc_fairness(void)
{
	CU_pSuite s = CU_add_suite("cc_fairness", NULL, NULL);

	return !s || !CU_add_test(s, "2 DCQCN flows each reach bottleneck/2 within 10%, then drop nothing", test_cc_two_flows_fair) ||
	       !CU_add_test(s, "3 DCQCN flows each reach bottleneck/3 within 10%, then drop nothing", test_cc_three_flows_fair) ||
	       !CU_add_test(s, "2 flows, the paper's clamp: within 10% of each other, no drop", test_cc_two_flows_paper) ||
	       !CU_add_test(s, "3 flows, the paper's clamp: within 10% of each other, no drop", test_cc_three_flows_paper) ||
	       !CU_add_test(s, "without congestion control the queue overflows", test_cc_none_overflows);
}
