/* SPDX-License-Identifier: MIT */
/*
 * A QP's congestion control, between the transport and the algorithm: the
 * CNPs host.c receives go to DCQCN's reaction point (dcqcn.c), the
 * requester's packets are counted and paced by it, and every change of the
 * rate is an RL_EV_RATE_CHANGE event and a counter in rl_qp_stats. Only
 * the requester is paced, as a NIC's rate limiter holds a QP's send queue;
 * the responder's ACKs and READ responses go out as before.
 *
 * The pacer holds the requester to one rate: DCQCN's Rc while it recovers
 * from a cut, else the QP's cap (rl_qp_cc.rate_limit_bps, or a DCQCN
 * ceiling below the line rate), else none. It is a token bucket in bytes,
 * as a NIC's rate limiter (mlx5 packet pacing: "bursts of packets ...
 * smaller than or equal to max_burst_sz"): credit up to max_burst_bytes,
 * or one frame if that is less, refilled at the rate; a request leaves
 * when the credit holds the frame before it (the typical frame,
 * ibv_qp_rate_limit_attr.typical_pkt_sz) and takes its own bytes on the
 * link as rl_qp_emit() counts them (Ethernet header, IP, UDP, BTH..ICRC;
 * no preamble, FCS or gap). The bucket is kept as what it lacks of full
 * at its last frame, and that time is paid back at the rate current when
 * the pacer looks: a rate change takes effect at once, on the frame just
 * sent too, and a cut leaves no credit to spend beyond what was left.
 * Without a burst each frame waits its own time at the rate after the
 * frame before.
 */
#include "transport.h"
#include "units.h"

/* The deepest bucket counted exactly (its units fit 64 bits with a frame owed): 2 GiB, past any NIC's. */
#define RL_PACE_MAX_BURST (1ull << 31)

const char *rl_cc_algo_name(enum rl_cc_algo a)
{
	static const char *const names[] = { [RL_CC_NONE] = "none", [RL_CC_DCQCN] = "dcqcn" };

	return (unsigned)a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}

static uint64_t rl_min_set(uint64_t a, uint64_t b)
{
	return !a ? b : !b || a < b ? a : b;
}

int rl_qp_cc_init(struct rl_qp *qp, const struct rl_qp_cc *cc)
{
	uint64_t line = cc->line_rate_bps ? cc->line_rate_bps : RL_CC_DEFAULT_LINE_RATE;
	uint64_t ceiling;
	char why[160];

	qp->cc = cc->algo;
	qp->cnp_interval_ns = cc->cnp_interval_ns ? cc->cnp_interval_ns : RL_CNP_INTERVAL_NS;
	qp->pace.cap_bps = cc->rate_limit_bps;
	qp->pace.burst_bytes = cc->max_burst_bytes;
	if (cc->algo == RL_CC_NONE)
		return 0;
	if (cc->algo != RL_CC_DCQCN) {
		rl_host_set_error(qp->host, "unknown congestion control %d: RL_CC_NONE or RL_CC_DCQCN", (int)cc->algo);
		return -1;
	}
	if (qp->type != RL_QPT_RC && qp->type != RL_QPT_UC) {
		rl_host_set_error(qp->host, "congestion control needs an RC or UC QP: CNPs answer one connected peer");
		return -1;
	}
	/* The cap is DCQCN's line rate: Rt never climbs past it (the NIC's rpg_max_rate is another such). */
	if (rl_dcqcn_init(&qp->dcqcn, cc->dcqcn, rl_min_set(line, cc->rate_limit_bps), qp->host->now)) {
		(void)rl_dcqcn_params_check(&qp->dcqcn.p, qp->dcqcn.line_rate_bps, why, sizeof(why));
		rl_host_set_error(qp->host, "DCQCN parameters cannot work: %s", why);
		return -1;
	}
	/* At its ceiling DCQCN lets go of the pacer; a ceiling below the line rate must still hold. */
	ceiling = rl_min_set(qp->dcqcn.p.max_rate_bps, qp->dcqcn.line_rate_bps);
	qp->pace.cap_bps = ceiling < line ? ceiling : 0;
	return 0;
}

static void rl_qp_cc_report(struct rl_qp *qp, const char *why)
{
	rl_event(qp, RL_EV_RATE_CHANGE, 0, qp->dcqcn.rc_bps, why);
}

/* Increases made by timers and byte counts, one event each. */
static void rl_qp_cc_increases(struct rl_qp *qp, unsigned n)
{
	qp->stats.rate_increases += n;
	while (n--)
		rl_qp_cc_report(qp, "DCQCN rate increase: Rc halfway back to the target rate");
}

void rl_qp_cc_run(struct rl_qp *qp)
{
	enum rl_dcqcn_event ev;

	if (qp->cc != RL_CC_DCQCN)
		return;
	while ((ev = rl_dcqcn_step(&qp->dcqcn, qp->host->now)) != RL_DCQCN_EV_NONE)
		if (ev == RL_DCQCN_EV_INCREASE)
			rl_qp_cc_increases(qp, 1);
}

void rl_qp_cc_cnp(struct rl_qp *qp)
{
	if (qp->cc != RL_CC_DCQCN)
		return;
	rl_qp_cc_run(qp);
	if (!rl_dcqcn_on_cnp(&qp->dcqcn, qp->host->now))
		return;
	qp->stats.rate_decreases++;
	rl_qp_cc_report(qp, "DCQCN rate decrease: the CNP cut the rate by alpha/2");
}

/* The rate the pacer holds the requester to; 0: none. */
static uint64_t rl_qp_cc_pace_rate(const struct rl_qp *qp)
{
	if (qp->cc == RL_CC_DCQCN && rl_dcqcn_pacing(&qp->dcqcn))
		return qp->dcqcn.rc_bps;
	return qp->pace.cap_bps;
}

/* @bytes in the bucket's unit: a rate in b/s pays back that many of them each ns. */
static uint64_t rl_pace_units(uint64_t bytes)
{
	return bytes * RL_BITS_PER_BYTE * RL_NS_PER_S;
}

/* What the bucket lacks of full at @now, paid back at @rate since its last frame. */
static uint64_t rl_qp_cc_owed(const struct rl_qp *qp, uint64_t rate, uint64_t now)
{
	uint64_t dt = now - qp->pace.at;

	if (!rate || dt >= (qp->pace.owed + rate - 1) / rate)
		return 0;
	return qp->pace.owed - dt * rate;
}

/* How much it may lack and still let a frame go: the depth less the frame before, one frame at least. */
static uint64_t rl_qp_cc_slack(const struct rl_qp *qp)
{
	uint64_t burst = qp->pace.burst_bytes < RL_PACE_MAX_BURST ? qp->pace.burst_bytes : RL_PACE_MAX_BURST;

	return burst > qp->pace.last_bytes ? rl_pace_units(burst - qp->pace.last_bytes) : 0;
}

void rl_qp_cc_sent(struct rl_qp *qp, size_t bytes)
{
	uint64_t now = qp->host->now;

	if (!bytes)
		return;
	qp->pace.owed = rl_qp_cc_owed(qp, rl_qp_cc_pace_rate(qp), now) + rl_pace_units(bytes);
	qp->pace.at = now;
	qp->pace.last_bytes = bytes;
	if (qp->cc == RL_CC_DCQCN)
		rl_qp_cc_increases(qp, rl_dcqcn_on_sent(&qp->dcqcn, bytes, now));
}

/* The earliest a request may leave: when the bucket lacks no more than the slack. */
static uint64_t rl_qp_cc_may_send_at(const struct rl_qp *qp)
{
	uint64_t rate = rl_qp_cc_pace_rate(qp), slack = rl_qp_cc_slack(qp);

	if (!rate || qp->pace.owed <= slack)
		return 0;
	return qp->pace.at + (qp->pace.owed - slack + rate - 1) / rate;
}

bool rl_qp_cc_may_send(const struct rl_qp *qp)
{
	return rl_qp_cc_may_send_at(qp) <= qp->host->now;
}

/* The reaction point's timers, and, when the requester waits for the pacer, when it may go on. */
uint64_t rl_qp_cc_next_timer(const struct rl_qp *qp)
{
	uint64_t t = qp->cc == RL_CC_DCQCN ? rl_dcqcn_next_timer(&qp->dcqcn) : RL_NEVER;
	uint64_t send = rl_qp_cc_may_send_at(qp);

	if (rl_req_pending(qp) && qp->state == RL_QPS_RTS && send > qp->host->now && send < t)
		t = send;
	return t;
}
