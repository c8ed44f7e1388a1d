/* SPDX-License-Identifier: MIT */
/*
 * Congestion on one PC: RC flows of RDMA WRITEs from host A to host B through
 * a switch's egress queue on the A->B direction (core's rl_bottleneck: RED
 * with ECN marking, tail drop), each flow's requester running DCQCN's
 * reaction point (rocelab/dcqcn.h), or nothing with --cc none. B answers CE
 * marks with CNPs (IBA A17.9). The simulated wire has two ports, so the
 * flows are QPs of A towards QPs of B: "N senders" are N flows into one
 * receiver's port, and incast gives A's link N times --rate to stand in for
 * N senders' links.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sess.h"

#define CG_MAX_FLOWS 4
#define CG_NS_PER_US 1000ull
#define CG_FLOW_WR_SHIFT 32          /* a WRITE's wr_id: its flow above, its number below */
#define CG_PSN_STRIDE 0x1000         /* each extra flow's PSNs, apart from the pair's */

/* Each flow's WRITEs outstanding, when --window does not say: enough to keep the bottleneck busy. */
#define CG_DEFAULT_WINDOW 16
/*
 * The ACK timeout, 4.096 us x 2^10 = 4.2 ms (IBA 9.7.6.1.3): a tail drop the
 * NAK cannot report (the last packets of a burst) costs 4 ms, not
 * the 67 ms of perftest's 14, which would leave the link idle for most of the capture.
 */
#define CG_ACK_TIMEOUT 10
#define CG_ACK_TIMEOUT_MAX 31        /* the attribute's 5 bits (IBA 9.7.6.1.3) */
#define CG_TIMEOUT_UNIT_NS 4096ull   /* 4.096 us: the timeout is this times 2^timeout */
/* A frame's bytes beyond the path MTU's payload: Ethernet, IPv4, UDP, BTH, RETH, ICRC, with room. */
#define CG_FRAME_OVERHEAD 128u
/*
 * 64 KiB WRITEs, as ib_write_bw's default size: 16 packets each at the path
 * MTU these scenarios take when --mtu does not say, 4096, as RoCE fabrics
 * with jumbo frames run. It matters: a QP keeps at most 128 PSNs unacked
 * (RL_MAX_UNACKED_PSNS), 512 KB at 4096, more than the queue holds, so
 * without congestion control the queue overflows; at 1024 it would not.
 */
#define CG_DEFAULT_SIZE 65536
/* Each flow writes its own region of B: at most 16 MiB each keeps the registered memory small. */
#define CG_MAX_SIZE (16u << 20)

struct cg_flow {
	struct rl_qp *a, *b;
	uint64_t start_ns;           /* after the run's start */
	uint64_t posted, done;
};

struct cg_sess {
	struct gen_sess s;           /* first: the app callback gets it */
	struct cg_flow f[CG_MAX_FLOWS];
	int n;
	uint32_t size, window;
	uint64_t count;              /* WRITEs per flow */
	bool failed;                 /* a WRITE completed in error */
};

/* What a scenario asks of the run: flows, their starts, their WRITEs. */
struct cg_plan {
	int flows;
	uint64_t stagger_ns;         /* flow i starts i * stagger_ns after the first */
	uint64_t def_count;          /* WRITEs per flow when --count does not say */
	uint64_t link_mult;          /* A's link runs at --rate times this */
};

/*
 * The bytes queued ahead of each frame the queue admits, which gen_record()
 * writes in its pcapng comment: the enqueue's sample comes just before the
 * wire records the frame, in the same send.
 */
static void cg_depth(void *ctx, const struct rl_bottleneck_sample *smp)
{
	struct gen_sess *s = ctx;

	if (smp->event != RL_BOTTLENECK_ENQUEUE)
		return;
	s->bn_number = smp->number;
	s->bn_depth = smp->depth_bytes - smp->len;
}

/* The congestion point from the options: gen_opts_default() holds the DCQCN paper's values. */
static int cg_bottleneck(struct cg_sess *q, const struct gen_opts *o)
{
	struct rl_bottleneck b = {
		.rate_bps = o->bn_rate_bps, .queue_bytes = o->bn_queue_bytes,
		.kmin = o->bn_kmin, .kmax = o->bn_kmax, .pmax = o->bn_pmax,
		.sample = cg_depth, .ctx = &q->s,
	};

	if (rl_simwire_set_bottleneck(rl_sim_wire(q->s.pair.sim), 0, &b))
		return gen_fail(q->s.out, "bottleneck: %s", rl_simwire_strerror(RL_SIMWIRE_E_CONFIG));
	return 0;
}

/* Flow @i > 0: a QP on each side, connected like the pair's, PSNs moved apart. */
static int cg_extra_flow(struct cg_sess *q, int i, const struct rl_qp_cc *cc)
{
	struct gen_sess *s = &q->s;
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .max_send_wr = 4096, .max_recv_wr = 16 };
	struct rl_conn ca = s->e[0].conn, cb = s->e[1].conn;
	struct cg_flow *f = &q->f[i];

	ia.send_cq = ia.recv_cq = s->e[0].cq;
	ia.cc = *cc;
	f->a = rl_create_qp(s->e[0].pd, &ia);
	ia.send_cq = ia.recv_cq = s->e[1].cq;
	ia.cc = (struct rl_qp_cc){ .cnp_interval_ns = s->o->cnp_interval_ns };
	f->b = rl_create_qp(s->e[1].pd, &ia);
	if (!f->a || !f->b)
		return gen_fail(s->out, "create_qp: %s", rl_host_error(f->a ? s->e[1].host : s->e[0].host));
	ca.sq_psn = cb.psn = (ca.sq_psn + CG_PSN_STRIDE * (uint32_t)i) & 0xffffff;
	cb.sq_psn = ca.psn = (cb.sq_psn + CG_PSN_STRIDE * (uint32_t)i) & 0xffffff;
	ca.qpn = rl_qp_num(f->b);
	cb.qpn = rl_qp_num(f->a);
	if (rl_qp_connect(f->a, &ca) || rl_qp_connect(f->b, &cb))
		return gen_fail(s->out, "connect: %s / %s", rl_host_error(s->e[0].host), rl_host_error(s->e[1].host));
	return 0;
}

static int cg_post(struct cg_sess *q, int i)
{
	struct cg_flow *f = &q->f[i];
	struct rl_send_wr wr;

	/* Each flow writes its own region of B, so the payloads tell the flows apart too. */
	rl_pair_send_wr(&q->s.pair, 0, RL_WR_RDMA_WRITE, 0, q->size, (uint64_t)q->size * (uint64_t)i,
			(uint64_t)i << CG_FLOW_WR_SHIFT | f->posted, &wr);
	if (rl_post_send(f->a, &wr))
		return gen_fail(q->s.out, "post_send: %s", rl_host_error(q->s.e[0].host));
	f->posted++;
	return 0;
}

static void cg_poll(struct cg_sess *q)
{
	struct rl_wc wc[64];
	int n;

	while ((n = rl_poll_cq(q->s.e[0].cq, 64, wc)) > 0)
		for (int k = 0; k < n; k++) {
			q->f[wc[k].wr_id >> CG_FLOW_WR_SHIFT].done++;
			q->failed |= wc[k].status != RL_WC_SUCCESS;
		}
	while (rl_poll_cq(q->s.e[1].cq, 64, wc) > 0)
		;
}

/* Keep each started flow's window full until its --count WRITEs are posted; done when all complete. */
static bool cg_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct cg_sess *q = ctx;
	bool busy = false;

	cg_poll(q);
	if (q->failed)
		return false;
	for (int i = 0; i < q->n; i++) {
		struct cg_flow *f = &q->f[i];

		if (now < GEN_EPOCH_NS + f->start_ns) {
			rl_sim_wake(sim, GEN_EPOCH_NS + f->start_ns);
			busy = true;
			continue;
		}
		while (f->posted < q->count && f->posted - f->done < q->window)
			if (cg_post(q, i))
				return false;
		busy |= f->done < q->count;
	}
	return busy;
}

/* A full frame's bytes at the path MTU these scenarios use. */
static uint64_t cg_frame_bytes(const struct gen_opts *o)
{
	return rl_mtu_bytes(o->mtu_set ? o->mtu : RL_MTU_4096) + CG_FRAME_OVERHEAD;
}

int gen_bottleneck_check(uint32_t kmin, uint32_t kmax, uint32_t queue_bytes, uint64_t frame_bytes, char *why,
			 size_t n)
{
	uint64_t need = (uint64_t)kmax + 2 * frame_bytes;

	if (kmin > kmax)
		snprintf(why, n, "--kmin %" PRIu32 " KB is above --kmax %" PRIu32 " KB: RED marks between them",
			 kmin / RL_BOTTLENECK_KB, kmax / RL_BOTTLENECK_KB);
	else if (queue_bytes && queue_bytes < kmax)
		snprintf(why, n, "--queue %" PRIu32 " KB is below --kmax %" PRIu32 " KB: the queue would tail-drop "
				 "before RED marks every frame", queue_bytes / RL_BOTTLENECK_KB, kmax / RL_BOTTLENECK_KB);
	/* A queue that cannot hold two frames past --kmax drops before marking: go-back-N for ever. */
	else if (queue_bytes && queue_bytes < need)
		snprintf(why, n, "--queue %" PRIu32 " KB holds less than --kmax and two full frames (%" PRIu64
				 " KB): it would tail-drop before RED marks every frame",
			 queue_bytes / RL_BOTTLENECK_KB, (need + RL_BOTTLENECK_KB - 1) / RL_BOTTLENECK_KB);
	else
		return 0;
	return -1;
}

/* The options these scenarios share, checked together: each alone was checked by gen. */
static int cg_check(const struct gen_opts *o, struct gen_out *out, const struct cg_plan *p)
{
	uint64_t link = o->rate_bps * p->link_mult;
	char why[sizeof(out->msg)];

	if (gen_size(o, CG_DEFAULT_SIZE) > CG_MAX_SIZE)
		return gen_fail(out, "--size is at most %u bytes (16 MiB) per WRITE here, not %" PRIu32, CG_MAX_SIZE,
				o->size);

	if (gen_bottleneck_check(o->bn_kmin, o->bn_kmax, o->bn_queue_bytes, cg_frame_bytes(o), why, sizeof(why)))
		return gen_fail(out, "%s", why);
	if (o->dcqcn_set && o->cc_none)
		return gen_fail(out, "--dcqcn tunes DCQCN's reaction point, which --cc none leaves out");
	/* Each sender's own link is --rate: what its DCQCN's ceiling is. */
	if (!o->cc_none && rl_dcqcn_params_check(&o->dcqcn, o->rate_bps, why, sizeof(why)))
		return gen_fail(out, "--dcqcn: %s", why);
	if (o->bn_rate_bps >= link)
		return gen_fail(out, "--bottleneck %" PRIu64 " Gb/s is not below what A's link sends (%" PRIu64
				     " Gb/s): nothing would queue; give a slower --bottleneck or a faster --rate",
				(uint64_t)(o->bn_rate_bps / 1000000000ull), (uint64_t)(link / 1000000000ull));
	return 0;
}

/*
 * The ACK timeout: CG_ACK_TIMEOUT, or longer when a full queue and each
 * flow's WRITE take longer than it to drain through the bottleneck (twice
 * that, so that a slow ACK is not taken for a loss).
 */
static uint8_t cg_ack_timeout(const struct gen_opts *o, const struct cg_plan *p)
{
	uint64_t bytes = (uint64_t)o->bn_queue_bytes + (uint64_t)p->flows * gen_size(o, CG_DEFAULT_SIZE);
	uint64_t drain_ns = o->bn_rate_bps ? 2 * bytes * 8 * 1000000000ull / o->bn_rate_bps : 0;
	uint8_t t = CG_ACK_TIMEOUT;

	while (t < CG_ACK_TIMEOUT_MAX && (CG_TIMEOUT_UNIT_NS << t) < drain_ns)
		t++;
	return t;
}

static int cg_setup(struct cg_sess *q, const struct gen_opts *o, struct gen_out *out, const struct cg_plan *p)
{
	/* Each sender's own link (--rate), not A's, which incast makes N of them wide. */
	struct rl_qp_cc cc = { .algo = o->cc_none ? RL_CC_NONE : RL_CC_DCQCN,
			       .line_rate_bps = o->rate_bps / p->link_mult, .dcqcn = &o->dcqcn };
	struct gen_qp_cfg c;
	int r;

	q->n = p->flows;
	q->size = gen_size(o, CG_DEFAULT_SIZE);
	q->window = o->window ? o->window : CG_DEFAULT_WINDOW;
	q->count = gen_count(o, p->def_count);
	gen_qp_cfg_default(&c, RL_QPT_RC, (size_t)q->size * (size_t)p->flows);
	c.cc = cc;
	c.timeout = cg_ack_timeout(o, p);
	r = gen_sess_init(&q->s, o, out, &c);
	if (!r)
		r = cg_bottleneck(q, o);
	q->f[0].a = q->s.e[0].qp;
	q->f[0].b = q->s.e[1].qp;
	for (int i = 1; !r && i < p->flows; i++)
		r = cg_extra_flow(q, i, &cc);
	for (int i = 0; i < p->flows; i++)
		q->f[i].start_ns = p->stagger_ns * (uint64_t)i;
	if (!r)
		gen_fill(&q->s, 0, 0, q->size);
	return r;
}

static int cg_run(const struct gen_opts *o, struct gen_out *out, const struct cg_plan *p)
{
	struct gen_opts lo = *o;
	struct cg_sess q;
	int r;

	if (cg_check(o, out, p))
		return -1;
	lo.rate_bps = o->rate_bps * p->link_mult;
	if (!o->mtu_set)
		lo.mtu = RL_MTU_4096;
	memset(&q, 0, sizeof(q));
	r = cg_setup(&q, &lo, out, p);
	if (!r)
		r = gen_sess_run(&q.s, cg_app);
	if (!r && q.failed)
		r = gen_fail(out, "a WRITE completed in error: the retries ran out%s",
			     o->cc_none ? " (try a longer --queue or --cc dcqcn)" : " (try a longer --queue)");
	gen_sess_free(&q.s);
	return r;
}

/* One flow; 800 WRITEs of 64 KiB: 52 MB, 42 ms at 10 Gb/s, about five of DCQCN's saw teeth. */
static int sc_dcqcn(const struct gen_opts *o, struct gen_out *out)
{
	struct cg_plan p = { .flows = 1, .def_count = 800, .link_mult = 1 };

	return cg_run(o, out, &p);
}

static int sc_incast(const struct gen_opts *o, struct gen_out *out)
{
	struct cg_plan p = { .flows = (int)o->senders, .def_count = 240, .link_mult = o->senders };

	return cg_run(o, out, &p);
}

/* The second flow joins 4 ms in: the first has the bottleneck to itself, then they share it. */
#define CG_FAIRNESS_STAGGER_NS (4000 * CG_NS_PER_US)

static int sc_fairness(const struct gen_opts *o, struct gen_out *out)
{
	struct cg_plan p = { .flows = 2, .stagger_ns = CG_FAIRNESS_STAGGER_NS, .def_count = 400, .link_mult = 1 };

	return cg_run(o, out, &p);
}

/* What the congestion scenarios take: the pair, its messages, their window, the switch port, CNPs. */
#define GEN_TAKES_CG (GEN_TAKES_PAIR | GEN_TAKES_MSGS | GEN_TAKES_WINDOW | GEN_TAKES_CC | GEN_TAKES_NP)

const struct gen_scenario gen_congestion[] = {
	{ "dcqcn", sc_dcqcn, GEN_TAKES_CG, NULL, "RDMA WRITEs into a slower switch port: RED marks CE, CNPs, DCQCN cuts the rate to the bottleneck's" },
	{ "incast", sc_incast, GEN_TAKES_CG | GEN_TAKES_SENDERS, NULL, "--senders N (2..4) flows into one receiver's port, one shared marked queue: DCQCN shares it out" },
	{ "fairness", sc_fairness, GEN_TAKES_CG, NULL, "a second flow joins 4 ms after the first on one bottleneck: DCQCN moves both to a fair share" },
};
const size_t gen_ncongestion = sizeof(gen_congestion) / sizeof(gen_congestion[0]);
