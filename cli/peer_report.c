/* SPDX-License-Identifier: MIT */
/* rocelab peer, the results: as perftest and ibv_rc_pingpong print them, or one JSON object (--json). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "peer.h"

static const char *const peer_test_names[PEER_NOPS] = { "Send BW", "RDMA_Write BW", "RDMA_Read BW", "Send Latency",
							"Atomic FETCH_AND_ADD BW", "Atomic CMP_AND_SWAP BW",
							"RDMA_Write_imm BW" };

/* This round's message count: --iters, but -a's and -D's as they ran. */
static uint64_t peer_rep_iters(const struct peer *p)
{
	return p->o.all_sizes || p->o.duration_s ? p->stat.round_done : p->o.iters;
}

/* The whole test's messages: --iters, or -a's and -D's count of all rounds. */
static uint64_t peer_rep_total(const struct peer *p)
{
	return p->o.all_sizes || p->o.duration_s ? p->stat.completed : p->o.iters;
}

/* --json: one object on one line; the client's starts with what the test was. */
static void peer_json_test(struct json *j, const char *op, const struct peer *p)
{
	json_begin(j, stdout);
	json_obj(j, NULL);
	json_str(j, "op", op);
	json_str(j, "transport", peer_transport(&p->o, false));
	json_u64(j, "bytes", peer_msg_len(p));
	json_u64(j, "iterations", peer_rep_iters(p));
}

static void peer_json_frames(struct json *j, const struct peer *p)
{
	json_u64(j, "frames_sent", p->stat.sent);
	json_u64(j, "frames_received", p->stat.recv_frames);
	json_u64(j, "dropped_by_loss", p->stat.dropped_loss);
}

static void peer_json_done(struct json *j)
{
	json_end(j);
	json_newline(j);
}

/* The QP's RNR NAKs, sent and received, when there were some. */
static void peer_json_rnr(struct json *j, const struct peer *p)
{
	struct rl_qp_stats st;

	if (!p->verbs.qp)
		return;
	rl_qp_stats(p->verbs.qp, &st);
	if (st.rnr_naks_sent)
		json_u64(j, "rnr_naks_sent", st.rnr_naks_sent);
	if (st.rnr_naks_recv)
		json_u64(j, "rnr_naks_received", st.rnr_naks_recv);
}

/* -Q: how many completions the work requests made (one per N, not one each). */
static void peer_json_cq_mod(struct json *j, const struct peer *p)
{
	if (p->o.cq_mod > 1) {
		json_u64(j, "cq_mod", p->o.cq_mod);
		json_u64(j, "completions", p->stat.wcs);
	}
}

void peer_fail_json(const struct peer *p)
{
	const struct rl_wc *e = &p->stat.first_err;
	char state[32], nak[96];
	struct json j;

	if (!p->o.json)
		return;
	json_begin(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, p->o.server ? "served" : "op", peer_op_names[p->o.op]);
	json_str(&j, "transport", peer_transport(&p->o, false));
	json_bool(&j, "failed", true);
	if (e->status) {
		json_obj(&j, "wc_error");
		json_str(&j, "status", rl_wc_status_name(e->status));
		json_u64(&j, "status_code", (uint64_t)e->status);
		json_u64(&j, "wr_id", e->wr_id);
		json_str(&j, "opcode", rl_wc_opcode_name(e->opcode));
		json_u64(&j, "qp", e->qp_num);
		json_end(&j);
	}
	json_u64(&j, "wc_flushed", p->stat.flushed);
	if (p->verbs.qp) {
		snprintf(state, sizeof(state), "IBV_QPS_%s", rl_qp_state_name(rl_qp_state(p->verbs.qp)));
		json_str(&j, "qp_state", state);
	}
	if (p->stat.last_nak && rl_syndrome_type(p->stat.last_nak) == RL_AETH_NAK &&
	    rl_describe_syndrome(p->stat.last_nak, nak, sizeof(nak)) > 0)
		json_str(&j, "nak_sent", nak);
	peer_json_rnr(&j, p);
	peer_json_cq_mod(&j, p);
	peer_json_done(&j);
}

void peer_header(const struct peer *p)
{
	char g[INET6_ADDRSTRLEN];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    %s Test (rocelab reference transport)\n",
	       p->o.compat ? "ibv_pingpong" : peer_test_names[p->o.op]);
	printf(" Number of qps   : 1\t\tTransport type : IB\n");
	printf(" Connection type : %s\t\tUDP sport      : 0x%04x\n", peer_transport(&p->o, true), p->net.sport);
	printf(" TX depth        : %u\n", p->o.window);
	printf(" Mtu             : %u[B]\n", rl_mtu_bytes(p->o.mtu));
	printf(" Link type       : Ethernet\n");
	printf(" GID index       : %d\t\tInterface      : %s\n", p->net.gid_index, p->net.gids.ifname);
	if (p->o.cm)
		printf(" Data ex. method : rdma_cm (port %u, service ID %#018" PRIx64 "; %s)\n", p->o.port,
		       rl_cm_service_id(p->o.ud ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP, p->o.port),
		       p->o.ud ? "SIDR_REQ/SIDR_REP" : "REQ/REP/RTU");
	else
		printf(" Data ex. method : Ethernet (TCP port %u, %s)\n", p->o.port,
		       p->o.compat ? "ibv_rc_pingpong's exchange only" : "ibv_rc_pingpong format + rocelab test line");
	printf("---------------------------------------------------------------------------------------\n");
	peer_gid_str(p->conn.me.gid, g, sizeof(g));
	printf(" local address: LID %#06x QPN %#08x PSN %#08x RKey %#010x VAddr %#018" PRIx64 "\n", p->conn.me.lid,
	       p->conn.me.qpn, p->conn.me.psn, rl_mr_rkey(p->verbs.mr), rl_mr_iova(p->verbs.mr));
	printf(" GID: %s\n", g);
	peer_gid_str(p->conn.them.gid, g, sizeof(g));
	printf(" remote address: LID %#06x QPN %#08x PSN %#08x RKey %#010x VAddr %#018" PRIx64 "\n", p->conn.them.lid,
	       p->conn.them.qpn, p->conn.them.psn, p->conn.remote_rkey, p->conn.remote_va);
	printf(" GID: %s\n", g);
	printf("---------------------------------------------------------------------------------------\n");
}

static void peer_bw_title(void)
{
	printf(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n");
}

/* One row of the bandwidth table (--json: an object; with -a the totals come after the last). */
static void peer_bw_row(const struct peer *p, const uint64_t *stamps)
{
	double secs = (double)(p->stat.t_end - p->stat.t_start) / 1e9, avg, peak = 0, mb = 1048576.0;
	uint64_t iters = peer_rep_iters(p), step = iters / 10;
	uint32_t len = peer_msg_len(p);

	avg = secs > 0 ? (double)len * iters / mb / secs : 0;
	/* Peak: the best of ten stretches of completions (perftest takes the best gap between two). */
	for (uint64_t i = step; step >= 2 && i < iters; i += step) {
		double dt = (double)(stamps[i] - stamps[i - step]) / 1e9;

		if (dt > 0 && (double)len * (double)step / mb / dt > peak)
			peak = (double)len * (double)step / mb / dt;
	}
	if (peak < avg)
		peak = avg;
	if (p->o.json) {
		struct json j;

		peer_json_test(&j, peer_op_names[p->o.op], p);
		json_double(&j, "bw_peak_mbps", peak, 2);
		json_double(&j, "bw_avg_mbps", avg, 2);
		json_double(&j, "msg_rate_mpps", secs > 0 ? iters / secs / 1e6 : 0, 6);
		if (!p->o.all_sizes) {
			json_u64(&j, "delivered", p->stat.delivered);
			peer_json_frames(&j, p);
			json_u64(&j, "rejected", p->stat.rx_bad);
			peer_json_rnr(&j, p);
			peer_json_cq_mod(&j, p);
		}
		peer_json_done(&j);
		return;
	}
	printf(" %-10u %-14" PRIu64 " %-18.2f %-20.2f %.6f\n", len, iters, peak, avg, secs > 0 ? iters / secs / 1e6 : 0);
}

/* -a --json: after the rows, one object with what the whole test delivered and sent. */
static void peer_json_totals(const struct peer *p, bool bw)
{
	struct json j;

	json_begin(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, "op", bw ? peer_op_names[p->o.op] : "pingpong");
	json_str(&j, "transport", peer_transport(&p->o, false));
	json_str(&j, "sizes", "all");
	json_u64(&j, "iterations", p->stat.completed);
	if (bw)
		json_u64(&j, "delivered", p->stat.delivered);
	else
		json_u64(&j, "lost", p->stat.lost);
	peer_json_frames(&j, p);
	if (bw)
		json_u64(&j, "rejected", p->stat.rx_bad);
	peer_json_done(&j);
}

static void peer_bw_footer(const struct peer *p)
{
	if (p->o.json) {
		if (p->o.all_sizes)
			peer_json_totals(p, true);
		return;
	}
	printf("---------------------------------------------------------------------------------------\n");
	if (p->o.ud && peer_sends(p->o.op) && p->o.cm)
		printf(" sent %u messages; the server's output says how many arrived (--cm: no word back after the "
		       "test)\n", p->o.iters);
	else if (p->o.ud && peer_sends(p->o.op))
		printf(" delivered %" PRIu64 " of %" PRIu64 " messages (UD: what is lost stays lost)\n", p->stat.delivered,
		       peer_rep_total(p));
	else if (p->o.uc)
		printf(" delivered %" PRIu64 " of %" PRIu64 " messages (UC: never acknowledged, nothing resent; a message "
		       "that lost a packet is dropped whole)\n", p->stat.delivered, peer_rep_total(p));
	printf(" frames sent %" PRIu64 ", received %" PRIu64 " (%" PRIu64 " dropped on purpose by --loss or --drop-request, %" PRIu64
	       " rejected)\n", p->stat.sent, p->stat.recv_frames, p->stat.dropped_loss, p->stat.rx_bad);
	if (p->o.cq_mod > 1)
		printf(" completions: %" PRIu64 " for %" PRIu64 " work requests (-Q %u: IBV_SEND_SIGNALED on one in %u, "
		       "and on a round's last)\n", p->stat.wcs, peer_rep_total(p), p->o.cq_mod, p->o.cq_mod);
}

void peer_bw_report(const struct peer *p, const uint64_t *stamps)
{
	if (!p->o.json)
		peer_bw_title();
	peer_bw_row(p, stamps);
	peer_bw_footer(p);
}

static int peer_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void peer_lat_title(void)
{
	printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
	       "t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\n");
}

/* One row of the latency table (--json: an object; with -a the totals come after the last). */
static void peer_lat_row(const struct peer *p)
{
	size_t n = p->stat.nlat;
	double sum = 0, sq = 0, avg, sd;

	qsort(p->stat.lat_us, n, sizeof(double), peer_cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += p->stat.lat_us[i];
	avg = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (p->stat.lat_us[i] - avg) * (p->stat.lat_us[i] - avg);
	sd = sqrt(sq / (double)n);
#define PCT(q) p->stat.lat_us[(size_t)((double)(n - 1) * (q))]
	if (p->o.json) {
		struct json j;

		peer_json_test(&j, "pingpong", p);
		if (!p->o.all_sizes)
			json_u64(&j, "lost", p->stat.lost);
		json_double(&j, "t_min_us", p->stat.lat_us[0], 2);
		json_double(&j, "t_max_us", p->stat.lat_us[n - 1], 2);
		json_double(&j, "t_typical_us", PCT(0.5), 2);
		json_double(&j, "t_avg_us", avg, 2);
		json_double(&j, "t_stdev_us", sd, 2);
		json_double(&j, "p99_us", PCT(0.99), 2);
		json_double(&j, "p99_9_us", PCT(0.999), 2);
		if (!p->o.all_sizes)
			peer_json_frames(&j, p);
		peer_json_done(&j);
		return;
	}
	printf(" %-6u %-11" PRIu64 "    %-11.2f    %-11.2f  %-15.2f    %-11.2f    %-13.2f   %-20.2f   %.2f\n",
	       peer_msg_len(p), peer_rep_iters(p), p->stat.lat_us[0], p->stat.lat_us[n - 1], PCT(0.5), avg, sd, PCT(0.99),
	       PCT(0.999));
#undef PCT
}

static void peer_lat_footer(const struct peer *p)
{
	if (p->o.json) {
		if (p->o.all_sizes)
			peer_json_totals(p, false);
		return;
	}
	printf("---------------------------------------------------------------------------------------\n");
	if (peer_unreliable(&p->o))
		printf(" %" PRIu64 " of %" PRIu64 " rounds lost (%s: nothing is resent; a reply later than %u ms counts lost)\n",
		       p->stat.lost, peer_rep_total(p), peer_transport(&p->o, true), PEER_UD_WAIT_NS / 1000000);
}

void peer_lat_report(const struct peer *p)
{
	if (!p->o.json)
		peer_lat_title();
	peer_lat_row(p);
	peer_lat_footer(p);
}

/* -a: a row per size as each ends, the title before the first. */
void peer_round_report(const struct peer *p, const uint64_t *stamps, bool first)
{
	if (first && !p->o.json)
		p->o.op == PEER_PINGPONG ? peer_lat_title() : peer_bw_title();
	if (p->o.op == PEER_PINGPONG)
		peer_lat_row(p);
	else
		peer_bw_row(p, stamps);
}

/* -a: after the last row, the totals. */
void peer_rounds_end(const struct peer *p)
{
	if (p->o.op == PEER_PINGPONG)
		peer_lat_footer(p);
	else
		peer_bw_footer(p);
}

/* The two lines ibv_rc_pingpong prints at the end, for --compat pingpong. */
void peer_pingpong_report(const struct peer *p)
{
	double usec = (double)(p->stat.t_end - p->stat.t_start) / 1000.0;
	long long bytes = (long long)p->o.size * p->o.iters * 2;

	if (p->o.json || usec <= 0)
		return;
	printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, usec / 1e6, (double)bytes * 8. / usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", p->o.iters, usec / 1e6, usec / p->o.iters);
}

/* UC: the messages sent that never arrived whole. */
static uint64_t peer_uc_lost(const struct peer *p)
{
	return p->stat.completed < p->o.iters ? p->o.iters - p->stat.completed : 0;
}

void peer_served_report(const struct peer *p, bool data_ok)
{
	struct rl_qp_stats st;

	/*
	 * Frames the QP took from nobody it knows (rxe's check_addr, check_keys): said only when there
	 * were some. --srq's QPs are its own (p->verbs.qp is none of them): nothing said here.
	 */
	memset(&st, 0, sizeof(st));
	if (p->verbs.qp)
		rl_qp_stats(p->verbs.qp, &st);
	if (p->o.json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j, NULL);
		json_str(&j, "served", peer_op_names[p->o.op]);
		json_str(&j, "transport", peer_transport(&p->o, false));
		json_u64(&j, "messages_received", p->stat.completed);
		if (p->o.uc) {
			json_u64(&j, "messages_lost", peer_uc_lost(p));
			json_u64(&j, "messages_discarded", p->stat.msgs_discarded);
			json_u64(&j, "packets_discarded", p->stat.pkts_discarded);
		}
		json_bool(&j, "data_ok", data_ok);
		if (st.addr_drops || st.pkey_violations) {
			json_u64(&j, "dropped_other_address", st.addr_drops);
			json_u64(&j, "dropped_other_partition", st.pkey_violations);
		}
		peer_json_frames(&j, p);
		peer_json_rnr(&j, p);
		peer_json_done(&j);
	} else {
		printf(" served %s: %" PRIu64 " messages received, data %s\n", peer_op_names[p->o.op], p->stat.completed,
		       data_ok ? "verified" : "WRONG");
		if (p->o.uc)
			printf(" UC: %" PRIu64 " of %u messages lost; %" PRIu64 " of them arrived in part and were dropped "
			       "whole (%" PRIu64 " packets discarded, IBA 9.8.3)\n", peer_uc_lost(p),
			       p->o.iters, p->stat.msgs_discarded, p->stat.pkts_discarded);
		if (st.addr_drops || st.pkey_violations)
			printf(" dropped unread: %" PRIu64 " packets from an address other than the client's, %" PRIu64
			       " of another partition (P_Key, IBA 10.9.3)\n", st.addr_drops, st.pkey_violations);
	}
}
