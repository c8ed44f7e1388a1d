/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer, the per-second lines while data flows, as iperf prints
 * them, and a summary of the whole run:
 *
 *   [ 1.0- 2.0 s] QP 0x000011  812.4 Mb/s  Rc 900.0 Mb/s (DCQCN fast-recovery)  CNPs in 12 out 0  CE seen 0
 *
 * The rate is the busier direction's RoCE frames as the link carries them
 * (Ethernet, IP, UDP, BTH..ICRC: what the pacer counts and tshark's
 * frame.len shows). Rc and the stage are DCQCN's (--cc dcqcn; on a server
 * once a CNP has come to it); CNPs in are
 * those this QP's requester received, out those its responder sent
 * (IBA A17.9), CE seen the CE-marked packets that arrived for it: the
 * core's counters (rl_qp_stats), by interval, and for the whole run in
 * the summary. A run shorter than a second prints nothing.
 */
#include <inttypes.h>

#include "cli.h"
#include "peer.h"

#define PEER_PROGRESS_NS CLI_NS_PER_S
#define PEER_MBIT 1e6

static double peer_secs(uint64_t ns)
{
	return (double)ns / CLI_NS_PER_S;
}

/*
 * One line for [@from, @to] (ns since t0): the bytes (@tx, @rx) sent and
 * received in the @took ns since the last sample, and the counters that
 * changed from @was to @st.
 */
static void peer_progress_line(const struct peer *p, uint64_t from, uint64_t to, uint64_t took, uint64_t tx,
			       uint64_t rx, const struct rl_qp_stats *was, const struct rl_qp_stats *st, const char *tail)
{
	uint64_t bytes = tx > rx ? tx : rx;
	double mbps = took ? (double)bytes * 8 / peer_secs(took) / PEER_MBIT : 0;

	printf("[%4.1f-%4.1f s] QP 0x%06x  %.1f Mb/s", peer_secs(from), peer_secs(to), rl_qp_num(p->verbs.qp), mbps);
	/* A server only answers: its requester's Rc would be the idle line rate, until a CNP reaches it. */
	if (p->o.cc == RL_CC_DCQCN && (!p->o.server || st->cnps_recv))
		printf("  Rc %.1f Mb/s (DCQCN %s)", (double)st->cc_rate_bps / PEER_MBIT,
		       rl_dcqcn_stage_name((enum rl_dcqcn_stage)st->cc_stage));
	printf("  CNPs in %" PRIu64 " out %" PRIu64 "  CE seen %" PRIu64 "%s\n", st->cnps_recv - was->cnps_recv,
	       st->cnps_sent - was->cnps_sent, st->ecn_ce_recv - was->ecn_ce_recv, tail);
	fflush(stdout);
}

void peer_progress(struct peer *p, uint64_t now)
{
	struct peer_progress *g = &p->prog;
	struct rl_qp_stats st;

	if (!g->on || !p->verbs.qp)
		return;
	if (!g->t0) {
		g->t0 = g->last = g->sampled = now;
		g->tx_bytes = g->tx0 = p->stat.tx_bytes;
		g->rx_bytes = g->rx0 = p->stat.rx_bytes;
		rl_qp_stats(p->verbs.qp, &g->st);
		return;
	}
	if (now - g->last < PEER_PROGRESS_NS)
		return;
	rl_qp_stats(p->verbs.qp, &st);
	/* Labelled by whole seconds from the start, as iperf's; the rate is over the time that really passed. */
	peer_progress_line(p, g->last - g->t0, g->last + PEER_PROGRESS_NS - g->t0, now - g->sampled,
			   p->stat.tx_bytes - g->tx_bytes, p->stat.rx_bytes - g->rx_bytes, &g->st, &st, "");
	g->last += PEER_PROGRESS_NS;
	g->sampled = now;
	g->tx_bytes = p->stat.tx_bytes;
	g->rx_bytes = p->stat.rx_bytes;
	g->st = st;
	g->lines++;
}

void peer_progress_end(struct peer *p)
{
	struct peer_progress *g = &p->prog;
	struct rl_qp_stats st, zero = { 0 };
	uint64_t now = peer_now();

	if (!g->on)
		return;
	g->on = false;
	if (!g->t0 || now - g->t0 < PEER_PROGRESS_NS || !p->verbs.qp)
		return;
	rl_qp_stats(p->verbs.qp, &st);
	peer_progress_line(p, 0, now - g->t0, now - g->t0, p->stat.tx_bytes - g->tx0, p->stat.rx_bytes - g->rx0, &zero,
			   &st, "  (the whole run)");
}
