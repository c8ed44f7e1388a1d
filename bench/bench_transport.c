/* SPDX-License-Identifier: MIT */
/*
 * Transport benchmark: two in-process hosts (10.0.0.1 -> 10.0.0.2), one RC
 * QP each, path MTU 4096, no faults, driven through the verbs API exactly as
 * a program would: post, let the hosts run, poll the CQs, post again.
 *
 *   1. 64-byte SENDs: B keeps receives posted, A keeps a window of SENDs
 *      outstanding; every SEND Only is answered by an ACK.
 *   2. 64 KiB RDMA WRITEs: 16 packets each at MTU 4096, one ACK per WRITE.
 *
 * The two hosts are core's rl_pair (rl_qp_connect, RC, PSNs 0x1000/0x2000).
 * Each workload runs over rl_simwire (rate 0: infinitely fast, default
 * 1000 ns latency) and over rl_sim's direct FIFO between the hosts' emit
 * callbacks (no wire model at all), driven by rl_sim_run(). Every packet that crosses counts, requests and
 * ACKs alike. The floor is the encode+ICRC work of the same packets alone:
 * an untimed run records every frame (opcode, PSN, headers, payload length),
 * checks that re-encoding the record gives the same bytes, and a tight loop
 * then does rl_pkt_init() + fields + rl_encode() (which computes the ICRC)
 * for the whole sequence. Received data is checked on every run, so a broken
 * transport cannot post a good number. Prints rates and ratios measured in
 * this run; never asserts a timing.
 *
 *   bench_transport [--sends N] [--writes M] [--reps R] [--only simwire|fifo|floor]
 *
 * --only runs that contender alone (after the untimed recording run), for a
 * profiler: perf record -g bench_transport --only simwire.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocelab/rocelab.h"

#define BN_PROG "bench_transport"
#include "bench.h"

#define BN_SENDS 500000                 /* 64-byte SENDs: 2 packets each */
#define BN_WRITES 30000                 /* 64 KiB WRITEs: 17 packets each */
#define BN_REPS 5
#define BN_MTU RL_MTU_4096
#define BN_SEND_LEN 64
#define BN_WRITE_LEN 65536
#define BN_SEND_WINDOW 128              /* SENDs outstanding (= the PSN window) */
#define BN_WRITE_WINDOW 16              /* WRITEs outstanding: 256 PSNs queued, 128 in flight */
#define BN_SEND_SLOTS 256               /* 64-byte buffers on each side; also B's receives */
#define BN_WRITE_SLOTS BN_WRITE_WINDOW  /* 64 KiB buffers on each side */
#define BN_QUEUE_WR 256                 /* max_send_wr, max_recv_wr */
#define BN_CQE 1024
#define BN_CHECK_EVERY 64               /* full payload compare of every 64th message */
#define BN_FIFO 512                     /* direct FIFO slots (power of two) */
#define BN_FIFO_STEP_NS 100             /* simulated time a FIFO delivery takes */
#define BN_FRAME_SLOT RL_SIM_FIFO_SLOT  /* >= Ethernet+VLAN+IPv6+UDP+BTH+headers+4096+ICRC */
#define BN_SIM_LATENCY_NS 1000

enum bn_wire { BN_WIRE_SIMWIRE, BN_WIRE_FIFO, BN_WIRES };
enum bn_work { BN_WORK_SEND, BN_WORK_WRITE };

static const char *const bn_wire_name[BN_WIRES] = { "rl_simwire", "direct FIFO" };

/* One packet as it crossed: enough to encode it again. */
struct bn_desc {
	uint8_t opcode, from, ackreq, syndrome;
	uint16_t plen;
	uint32_t psn, msn, rkey, dma_len;
	uint64_t va;
};

/* What rl_qp_pkt_init() puts in every packet from one side. */
struct bn_hdr {
	bool valid;
	uint8_t src_mac[6], dst_mac[6], src_ip[4], dst_ip[4];
	uint8_t dscp, ecn, ttl;
	uint16_t sport;
	uint32_t dqpn;
};

struct bn_capture {
	struct bn_desc *d;
	size_t n, cap;
	struct bn_hdr hdr[2];
	uint64_t bytes;                 /* frame bytes, all packets */
	size_t n_by_opcode[256];
};

struct bn_run {
	struct rl_pair pair;            /* A (0) and B (1), one RC QP each */
	struct rl_pair_end *end;        /* pair.end */
	enum bn_work work;
	struct bn_capture *capture;     /* set for the recording run only */
	/* The workload. */
	size_t total, posted, done, recvd;
};

static volatile uint32_t bn_sink;
static int bn_only = -1;                /* BN_WIRE_*, BN_WIRES for the floor; -1: all */

/* Does contender @w (a BN_WIRE_*, or BN_WIRES for the floor) run? */
static bool bn_runs(int w)
{
	return bn_only < 0 || bn_only == w;
}

static void bn_die_pair(const struct bn_run *r, const char *what)
{
	fprintf(stderr, "bench_transport: %s: %s\n", what, r->pair.err);
	abort();
}

/* Byte @i of buffer slot @slot: differs between slots and positions. */
static uint8_t bn_pattern(size_t slot, size_t i)
{
	return (uint8_t)(i * 131 + slot * 29 + (i >> 8) + 7);
}

static void bn_put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t bn_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ---- capture: what crossed, for the floor ---------------------------------- */

static void bn_hdr_take(struct bn_hdr *h, const struct rl_pkt *p)
{
	h->valid = true;
	memcpy(h->src_mac, p->eth.src, 6);
	memcpy(h->dst_mac, p->eth.dst, 6);
	memcpy(h->src_ip, p->ip4.src, 4);
	memcpy(h->dst_ip, p->ip4.dst, 4);
	h->dscp = p->ip4.dscp;
	h->ecn = p->ip4.ecn;
	h->ttl = p->ip4.ttl;
	h->sport = p->udp.sport;
	h->dqpn = p->bth.dqpn;
}

/* Build the packet of @d the way the transport does: rl_pkt_init, addressing, fields. */
static void bn_desc_pkt(const struct bn_desc *d, const struct bn_hdr *h, const uint8_t *payload,
			struct rl_pkt *p)
{
	rl_pkt_init(p, d->opcode);
	memcpy(p->eth.src, h->src_mac, 6);
	memcpy(p->eth.dst, h->dst_mac, 6);
	memcpy(p->ip4.src, h->src_ip, 4);
	memcpy(p->ip4.dst, h->dst_ip, 4);
	p->ip4.dscp = h->dscp;
	p->ip4.ecn = h->ecn;
	p->ip4.ttl = h->ttl;
	p->udp.sport = h->sport;
	p->bth.dqpn = h->dqpn;
	p->bth.psn = d->psn;
	p->bth.ackreq = d->ackreq;
	p->reth.va = d->va;
	p->reth.rkey = d->rkey;
	p->reth.dma_len = d->dma_len;
	p->aeth.syndrome = d->syndrome;
	p->aeth.msn = d->msn;
	p->payload = payload;
	p->payload_len = d->plen;
}

/* Record one emitted frame; check that the record encodes to the very same bytes. */
static void bn_capture_frame(struct bn_capture *c, int from, const uint8_t *frame, size_t len)
{
	static uint8_t again[BN_FRAME_SLOT];
	struct rl_pkt p, q;
	struct bn_desc *d;
	size_t n;

	if (rl_decode(RL_LINK_ETHERNET, frame, len, &p) != RL_OK || p.l3 != RL_L3_IPV4 || p.eth.has_vlan)
		bn_die("a host emitted a frame that does not decode cleanly as IPv4 RoCEv2");
	if (c->n == c->cap)
		bn_die("more packets crossed than the workload should send");
	if (!c->hdr[from].valid)
		bn_hdr_take(&c->hdr[from], &p);
	d = &c->d[c->n++];
	*d = (struct bn_desc){
		.opcode = p.bth.opcode, .from = (uint8_t)from, .ackreq = p.bth.ackreq,
		.syndrome = p.aeth.syndrome, .plen = (uint16_t)p.payload_len, .psn = p.bth.psn,
		.msn = p.aeth.msn, .rkey = p.reth.rkey, .dma_len = p.reth.dma_len, .va = p.reth.va,
	};
	if (!(p.hdrs & RL_HDR_RETH))
		d->va = d->rkey = d->dma_len = 0;
	if (!(p.hdrs & RL_HDR_AETH))
		d->syndrome = 0, d->msn = 0;
	bn_desc_pkt(d, &c->hdr[from], p.payload, &q);
	if (rl_encode(&q, again, sizeof(again), &n) != RL_OK || n != len || memcmp(again, frame, len))
		bn_die("re-encoding a recorded packet does not give the frame the transport sent");
	c->bytes += len;
	c->n_by_opcode[p.bth.opcode]++;
}

/* ---- the two hosts ---------------------------------------------------------- */

static void bn_tap(void *ctx, int from, const uint8_t *frame, size_t len)
{
	struct bn_run *r = ctx;

	bn_capture_frame(r->capture, from, frame, len);
}

static void bn_ip(int idx, uint8_t ip[4])
{
	ip[0] = 10;
	ip[1] = 0;
	ip[2] = 0;
	ip[3] = (uint8_t)(idx + 1);
}

static void bn_setup(struct bn_run *r, enum bn_wire wire, enum bn_work work, size_t total,
		     struct bn_capture *capture)
{
	size_t mem = work == BN_WORK_SEND ? (size_t)BN_SEND_SLOTS * BN_SEND_LEN
					  : (size_t)BN_WRITE_SLOTS * BN_WRITE_LEN;
	struct rl_pair_config pc;

	memset(r, 0, sizeof(*r));
	r->work = work;
	r->total = total;
	r->capture = capture;
	memset(&pc, 0, sizeof(pc));
	if (wire == BN_WIRE_SIMWIRE) {
		pc.sim.kind = RL_SIM_SIMWIRE;
		pc.sim.wire.latency_ns = BN_SIM_LATENCY_NS;
	} else {
		pc.sim.kind = RL_SIM_FIFO;
		pc.sim.fifo.frames = BN_FIFO;
		pc.sim.fifo.step_ns = BN_FIFO_STEP_NS;
	}
	if (capture) {
		pc.sim.tap = bn_tap;
		pc.sim.tap_ctx = r;
	}
	pc.sim.start_ns = 1000000;
	pc.type = RL_QPT_RC;
	pc.mem[0] = pc.mem[1] = mem;
	pc.mr_access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE;
	pc.max_send_wr = pc.max_recv_wr = BN_QUEUE_WR;
	pc.cqe = BN_CQE;
	for (int i = 0; i < 2; i++) {
		uint8_t ip[4];
		struct rl_conn *c = &pc.conn[i];

		pc.sim.host[i] = (struct rl_host_config){ .mac = { 2, 0, 0, 0, 0, (uint8_t)(i + 1) },
							  .active_mtu = RL_MTU_4096 };
		bn_ip(i, ip);
		rl_gid_from_ipv4(pc.sim.host[i].gid, ip);
		pc.iova[i] = 0x10000000ull * (uint64_t)(i + 1);
		rl_conn_defaults(c);
		c->sq_psn = i ? 0x2000 : 0x1000;
		c->path_mtu = BN_MTU;
		c->access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE;
		c->min_rnr_timer = 1;
		c->max_rd_atomic = c->max_dest_rd_atomic = 4;
	}
	if (rl_pair_init(&r->pair, &pc))
		bn_die_pair(r, "setting up the two hosts");
	r->end = r->pair.end;
	/* A sends from patterned buffers; B's start out zero, so missing data shows. */
	for (size_t k = 0; k < mem; k++)
		r->end[0].mem[k] = bn_pattern(k / (work == BN_WORK_SEND ? BN_SEND_LEN : BN_WRITE_LEN), k);
}

static void bn_teardown(struct bn_run *r)
{
	rl_pair_free(&r->pair);
}

/* ---- the workloads ------------------------------------------------------------ */

static void bn_post_recv(struct bn_run *r, size_t k)
{
	if (rl_pair_post_recv(&r->pair, 1, (k % BN_SEND_SLOTS) * BN_SEND_LEN, BN_SEND_LEN, k))
		bn_die_pair(r, "post_recv");
}

/* Post the next message of the workload on A, stamped with its number. */
static void bn_post_next(struct bn_run *r)
{
	struct rl_pair_end *a = &r->end[0], *b = &r->end[1];
	size_t i = r->posted++;
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = i;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.num_sge = 1;
	if (r->work == BN_WORK_SEND) {
		size_t slot = i % BN_SEND_SLOTS;

		bn_put64(a->mem + slot * BN_SEND_LEN, i);
		wr.opcode = RL_WR_SEND;
		wr.sg_list[0] = (struct rl_sge){ a->iova + slot * BN_SEND_LEN, BN_SEND_LEN, rl_mr_lkey(a->mr) };
	} else {
		size_t slot = i % BN_WRITE_SLOTS;
		uint8_t *src = a->mem + slot * BN_WRITE_LEN;

		bn_put64(src, i);
		bn_put64(src + BN_WRITE_LEN - 8, ~(uint64_t)i);
		wr.opcode = RL_WR_RDMA_WRITE;
		wr.sg_list[0] = (struct rl_sge){ a->iova + slot * BN_WRITE_LEN, BN_WRITE_LEN, rl_mr_lkey(a->mr) };
		wr.rdma.remote_addr = b->iova + slot * BN_WRITE_LEN;
		wr.rdma.rkey = rl_mr_rkey(b->mr);
	}
	if (rl_pair_post_send(&r->pair, 0, &wr))   /* A runs before the next delivery */
		bn_die_pair(r, "post_send");
}

static void bn_bad(const char *what, size_t i)
{
	fprintf(stderr, "bench_transport: message %zu: %s\n", i, what);
	abort();
}

/* B got SEND @k: its stamp always, its bytes every BN_CHECK_EVERY messages. */
static void bn_check_recv(struct bn_run *r, const struct rl_wc *wc)
{
	size_t k = r->recvd, slot = k % BN_SEND_SLOTS;
	const uint8_t *got = r->end[1].mem + slot * BN_SEND_LEN;

	if (wc->status != RL_WC_SUCCESS || wc->opcode != RL_WC_RECV || wc->wr_id != k ||
	    wc->byte_len != BN_SEND_LEN)
		bn_bad("bad receive completion", k);
	if (bn_get64(got) != k)
		bn_bad("the receive buffer does not hold this SEND", k);
	if (k % BN_CHECK_EVERY == 0 || k + 1 == r->total)
		for (size_t j = 8; j < BN_SEND_LEN; j++)
			if (got[j] != bn_pattern(slot, slot * BN_SEND_LEN + j))
				bn_bad("SEND payload differs", k);
}

/* A's WRITE @i completed: B's memory must hold it (stamped at both ends). */
static void bn_check_write(struct bn_run *r, size_t i)
{
	size_t slot = i % BN_WRITE_SLOTS;
	const uint8_t *got = r->end[1].mem + slot * BN_WRITE_LEN;
	const uint8_t *sent = r->end[0].mem + slot * BN_WRITE_LEN;

	if (bn_get64(got) != i || bn_get64(got + BN_WRITE_LEN - 8) != ~(uint64_t)i)
		bn_bad("B's memory does not hold this WRITE", i);
	if ((i % BN_CHECK_EVERY == 0 || i + 1 == r->total) && memcmp(got, sent, BN_WRITE_LEN))
		bn_bad("WRITE payload differs", i);
}

/* What an application does between steps: reap completions, post more. */
static bool bn_poll(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct bn_run *r = ctx;
	struct rl_wc wc[32];
	int n;

	(void)sim;
	(void)now;
	while ((n = rl_poll_cq(r->end[1].cq, 32, wc)) > 0) {
		for (int k = 0; k < n; k++) {
			bn_check_recv(r, &wc[k]);
			bn_post_recv(r, r->recvd + BN_SEND_SLOTS);
			r->recvd++;
		}
	}
	while ((n = rl_poll_cq(r->end[0].cq, 32, wc)) > 0) {
		for (int k = 0; k < n; k++) {
			enum rl_wc_opcode op = r->work == BN_WORK_SEND ? RL_WC_SEND : RL_WC_RDMA_WRITE;

			if (wc[k].status != RL_WC_SUCCESS || wc[k].opcode != op || wc[k].wr_id != r->done)
				bn_bad(rl_wc_status_str(wc[k].status), r->done);
			if (r->work == BN_WORK_WRITE)
				bn_check_write(r, r->done);
			r->done++;
			if (r->posted < r->total)
				bn_post_next(r);
		}
	}
	return r->done < r->total;
}

/* Run the workload to the last completion; returns the seconds it took. */
static double bn_drive(struct bn_run *r)
{
	size_t window = r->work == BN_WORK_SEND ? BN_SEND_WINDOW : BN_WRITE_WINDOW;
	double t0 = bn_now();

	if (r->work == BN_WORK_SEND)
		for (size_t k = 0; k < BN_SEND_SLOTS; k++)
			bn_post_recv(r, k);
	while (r->posted < r->total && r->posted < window)
		bn_post_next(r);
	if (rl_pair_run(&r->pair, UINT64_MAX, LONG_MAX, bn_poll, r) < 0)
		bn_die("the run did not settle (a livelock?)");
	if (r->done < r->total)
		bn_die("stalled: nothing on the wire and work outstanding");
	return bn_now() - t0;
}

/* Packets one message costs: request packets plus one ACK. */
static size_t bn_pkts_per_msg(enum bn_work work)
{
	return work == BN_WORK_SEND ? 2 : BN_WRITE_LEN / rl_mtu_bytes(BN_MTU) + 1;
}

/* One timed run; checks that it was clean. Returns seconds. */
static double bn_transport_run(enum bn_wire wire, enum bn_work work, size_t msgs, struct bn_capture *cap,
			       uint64_t *pkts)
{
	struct bn_run *r = bn_alloc(sizeof(*r));
	struct rl_qp_stats st[2];
	uint64_t frames;
	double t;

	bn_setup(r, wire, work, msgs, cap);
	t = bn_drive(r);
	if (work == BN_WORK_SEND && r->recvd != msgs)
		bn_die("not every SEND was received");
	if (!rl_sim_idle(r->pair.sim))
		bn_die("frames still in flight after the last completion");
	if (rl_sim_refused(r->pair.sim))
		bn_die("the wire refused a frame (FIFO overflow or a simwire error)");
	for (int i = 0; i < 2; i++) {
		rl_qp_stats(r->end[i].qp, &st[i]);
		if (st[i].retransmits || st[i].timeouts || st[i].naks_sent || st[i].dup_requests ||
		    st[i].icrc_drops || rl_qp_state(r->end[i].qp) != RL_QPS_RTS)
			bn_die("the run was not clean (retransmits, NAKs or an error state)");
	}
	frames = rl_sim_frames(r->pair.sim);
	if (frames != msgs * bn_pkts_per_msg(work) || st[0].pkts_sent + st[1].pkts_sent != frames ||
	    st[0].pkts_recv + st[1].pkts_recv != frames)
		bn_die("unexpected packet count");
	*pkts = frames;
	bn_teardown(r);
	free(r);
	return t;
}

/* ---- the floor: encode + ICRC of the same packets ------------------------------- */

static double bn_floor_pass(const struct bn_capture *c, const uint8_t *pool, size_t pool_len)
{
	static _Alignas(64) uint8_t frame[BN_FRAME_SLOT];
	double t0 = bn_now();
	uint32_t acc = 0;
	size_t off = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct bn_desc *d = &c->d[i];
		struct rl_pkt p;
		size_t n;

		/* Payload streams through a pool as big as the sender's buffers. */
		if (off + d->plen > pool_len)
			off = 0;
		bn_desc_pkt(d, &c->hdr[d->from], pool + off, &p);
		off += d->plen;
		if (rl_encode(&p, frame, sizeof(frame), &n) != RL_OK)
			bn_die("rl_encode failed");
		acc ^= bn_get64(frame + n - 8) >> 32;   /* the ICRC: keep it live */
	}
	bn_sink ^= acc;
	return bn_now() - t0;
}

/* ---- report ---------------------------------------------------------------------- */

static void bn_row(const char *name, uint64_t pkts, double t)
{
	printf("  %-34s %7.2f Mpps  %7.1f ns/packet  (%.3f s)\n", name, (double)pkts / t * 1e-6,
	       t * 1e9 / (double)pkts, t);
}

static void bn_bench_work(enum bn_work work, size_t msgs, int reps)
{
	struct bn_capture cap = { 0 };
	double best[BN_WIRES] = { 1e30, 1e30 }, floor_best = 1e30;
	uint64_t pkts = 0, p;
	size_t pool_len = work == BN_WORK_SEND ? (size_t)BN_SEND_SLOTS * BN_SEND_LEN
					       : (size_t)BN_WRITE_SLOTS * BN_WRITE_LEN;
	uint8_t *pool = bn_alloc(pool_len);

	for (size_t k = 0; k < pool_len; k++)
		pool[k] = bn_pattern(k / 64, k);
	cap.cap = msgs * bn_pkts_per_msg(work);
	cap.d = bn_alloc(cap.cap * sizeof(*cap.d));
	bn_transport_run(BN_WIRE_FIFO, work, msgs, &cap, &pkts);   /* record, untimed */
	if (cap.n != pkts)
		bn_die("recorded packet count differs");

	/* Interleaved, so that drift hits all contenders alike. */
	for (int r = 0; r < reps; r++) {
		for (int w = 0; w < BN_WIRES; w++) {
			double t;

			if (!bn_runs(w))
				continue;
			t = bn_transport_run((enum bn_wire)w, work, msgs, NULL, &p);
			if (p != pkts)
				bn_die("packet count differs between runs");
			best[w] = t < best[w] ? t : best[w];
		}
		if (bn_runs(BN_WIRES)) {
			double t = bn_floor_pass(&cap, pool, pool_len);

			floor_best = t < floor_best ? t : floor_best;
		}
	}

	if (work == BN_WORK_SEND)
		printf("64-byte SENDs: %zu messages, %zu outstanding: %llu packets "
		       "(%zu SEND Only + %zu ACK), %.0f B/frame avg\n",
		       msgs, (size_t)BN_SEND_WINDOW, (unsigned long long)pkts, cap.n_by_opcode[RL_OP_RC_SEND_ONLY],
		       cap.n_by_opcode[RL_OP_RC_ACKNOWLEDGE], (double)cap.bytes / (double)cap.n);
	else
		printf("64 KiB RDMA WRITEs: %zu messages, %zu outstanding: %llu packets "
		       "(%zu First + %zu Middle + %zu Last + %zu ACK), %.0f B/frame avg\n",
		       msgs, (size_t)BN_WRITE_WINDOW, (unsigned long long)pkts, cap.n_by_opcode[RL_OP_RC_RDMA_WRITE_FIRST],
		       cap.n_by_opcode[RL_OP_RC_RDMA_WRITE_MIDDLE], cap.n_by_opcode[RL_OP_RC_RDMA_WRITE_LAST], cap.n_by_opcode[RL_OP_RC_ACKNOWLEDGE],
		       (double)cap.bytes / (double)cap.n);
	if (bn_runs(BN_WIRE_SIMWIRE))
		bn_row("transport over rl_simwire", pkts, best[BN_WIRE_SIMWIRE]);
	if (bn_runs(BN_WIRE_FIFO))
		bn_row("transport over a direct FIFO", pkts, best[BN_WIRE_FIFO]);
	if (bn_runs(BN_WIRES))
		bn_row("encode+ICRC only (the floor)", pkts, floor_best);
	for (int w = 0; w < BN_WIRES; w++) {
		double ratio = best[w] / floor_best, mpps = (double)pkts / best[w] * 1e-6;

		if (!bn_runs(w))
			continue;
		printf("  %-12s ", bn_wire_name[w]);
		if (bn_runs(BN_WIRES))
			printf("transport/floor per packet: %5.2fx (target <= 3x: %s); ", ratio,
			       ratio <= 3.0 ? "met" : "missed");
		printf(">= 1M packets/s per core: %s\n", mpps >= 1.0 ? "met" : "missed");
	}
	printf("\n");
	free(cap.d);
	free(pool);
}

static size_t bn_count(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || !v)
		bn_die("counts must be positive integers");
	return (size_t)v;
}

static int bn_usage(void)
{
	fprintf(stderr, "usage: bench_transport [--sends N] [--writes M] [--reps R] [--only simwire|fifo|floor]\n");
	return 2;
}

int main(int argc, char **argv)
{
	size_t sends = BN_SENDS, writes = BN_WRITES, reps = BN_REPS;

	for (int i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			return bn_usage();
		if (!strcmp(argv[i], "--sends"))
			sends = bn_count(argv[i + 1]);
		else if (!strcmp(argv[i], "--writes"))
			writes = bn_count(argv[i + 1]);
		else if (!strcmp(argv[i], "--reps"))
			reps = bn_count(argv[i + 1]);
		else if (!strcmp(argv[i], "--only") && !strcmp(argv[i + 1], "simwire"))
			bn_only = BN_WIRE_SIMWIRE;
		else if (!strcmp(argv[i], "--only") && !strcmp(argv[i + 1], "fifo"))
			bn_only = BN_WIRE_FIFO;
		else if (!strcmp(argv[i], "--only") && !strcmp(argv[i + 1], "floor"))
			bn_only = BN_WIRES;
		else
			return bn_usage();
	}
	if (reps > 100)
		bn_die("at most 100 reps");
	printf("rocelab transport benchmark: 1 thread, best of %zu runs, rl_crc32 backend: %s\n"
	       "hosts 10.0.0.1 -> 10.0.0.2, one RC QP each, path MTU 4096, no faults; every packet\n"
	       "counts (requests and ACKs); rl_simwire: rate 0 (infinitely fast), latency %d ns\n"
	       "floor: rl_pkt_init + fields + rl_encode (with ICRC) of the same packets, one buffer\n\n",
	       reps, rl_crc32_backend(), BN_SIM_LATENCY_NS);
	bn_bench_work(BN_WORK_SEND, sends, (int)reps);
	bn_bench_work(BN_WORK_WRITE, writes, (int)reps);
	return 0;
}
