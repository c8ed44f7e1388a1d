/* SPDX-License-Identifier: MIT */
/*
 * Scenarios run by the reference transport between host A (requester) and
 * host B (responder) on the simulated wire: single operations, perftest- and
 * rping-like workloads, and the faults a learner should see once.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sess.h"

/* ---- the session (sess.h) ---------------------------------------------------------------- */

static bool gen_is_atomic(enum rl_wr_opcode op)
{
	return op == RL_WR_ATOMIC_CMP_AND_SWP || op == RL_WR_ATOMIC_FETCH_AND_ADD;
}

static uint64_t gen_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void gen_record(void *ctx, const struct rl_simwire_record *r)
{
	struct gen_sess *s = ctx;

	bool lost = r->fate == RL_SIMWIRE_DROPPED_BY_NUMBER || r->fate == RL_SIMWIRE_DROPPED ||
		    r->fate == RL_SIMWIRE_BOTTLENECK_FULL || r->fate == RL_SIMWIRE_RED_DROPPED;
	uint64_t depth = r->number == s->bn_number ? s->bn_depth : GEN_NO_DEPTH;

	gen_out_frame_depth(s->out, r->time_ns, r->sent_ns, r->frame, r->len, lost, depth);
}

static enum rl_simwire_fate gen_choose(void *ctx, uint64_t n, int from, const uint8_t *frame, size_t len)
{
	struct gen_sess *s = ctx;

	(void)frame;
	(void)len;
	s->sent_by[from]++;
	if (s->o->drop_request && nth_from(s, from, 0, s->o->drop_request))
		return RL_SIMWIRE_DROPPED;
	return s->fault ? s->fault(s, n, from) : RL_SIMWIRE_DELIVERED;
}

void gen_qp_cfg_default(struct gen_qp_cfg *c, enum rl_qp_type type, size_t mem)
{
	memset(c, 0, sizeof(*c));
	c->type = type;
	c->mem = mem;
}

/* The wire and the two hosts, from the options; @link_mtu: each host's active MTU. */
static void gen_sim_config(struct gen_sess *s, enum rl_mtu link_mtu, struct rl_sim_config *sc)
{
	const struct gen_opts *o = s->o;

	sc->start_ns = GEN_EPOCH_NS;
	sc->wire.latency_ns = o->latency_ns;
	sc->wire.rate_bps = o->rate_bps;
	sc->wire.seed = o->seed;
	sc->wire.drop_rate = o->loss;
	sc->wire.drop_frames = o->ndrops ? o->drops : NULL;
	sc->wire.n_drop_frames = o->ndrops;
	sc->wire.queue_frames = 1 << 20;
	sc->wire.choose = gen_choose;
	sc->wire.record = gen_record;
	sc->wire.ctx = s;
	for (int i = 0; i < 2; i++) {
		memcpy(sc->host[i].mac, o->mac[i], 6);
		if (o->ipv6)
			memcpy(sc->host[i].gid, o->ip6[i], 16);
		else
			rl_gid_from_ipv4(sc->host[i].gid, o->ip4[i]);
		sc->host[i].active_mtu = link_mtu;
		sc->host[i].first_qpn = o->qpn[i];
	}
}

/*
 * What each side chooses for its QP: perftest's defaults (timeout 14 = 67 ms, retry 7, rnr_retry
 * 7, min_rnr_timer 12 = 0.64 ms, 16 READs/atomics), its starting PSN random from the seed.
 */
static void gen_conn_config(const struct gen_opts *o, const struct gen_qp_cfg *c, int i, struct rl_conn *conn)
{
	uint32_t psn = o->psn_set[i] ? o->psn[i] : (uint32_t)gen_mix(o->seed * 2 + (uint64_t)i) & 0xffffff;

	rl_conn_defaults(conn);
	conn->sq_psn = i == 0 && c->psn_a_set ? c->psn_a : psn;
	conn->path_mtu = o->mtu;
	if (c->access)
		conn->access = c->access;
	if (o->rnr_timer_set)
		conn->min_rnr_timer = o->min_rnr_timer;
	if (o->rnr_retry_set)
		conn->rnr_retry = o->rnr_retry;
	if (c->timeout)
		conn->timeout = c->timeout;
	conn->traffic_class = 26 << 2 | 2;      /* DSCP 26 and ECT(0), a usual RoCE marking */
}

int gen_sess_init(struct gen_sess *s, const struct gen_opts *o, struct gen_out *out, const struct gen_qp_cfg *c)
{
	struct rl_pair_config pc;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->out = out;
	s->type = c->type;
	s->e = s->pair.end;
	memset(&pc, 0, sizeof(pc));
	/* The transport scenarios set the path MTU on their own, the CM takes the link's. */
	gen_sim_config(s, c->cm ? o->mtu : RL_MTU_4096, &pc.sim);
	pc.type = c->type;
	pc.cm = c->cm;
	pc.cm_seed = o->seed;
	for (int i = 0; i < 2; i++) {
		pc.mem[i] = c->mem;
		pc.iova[i] = 0x00007f0000000000ull + ((uint64_t)i << 32);   /* like a heap address, but reproducible */
		gen_conn_config(o, c, i, &pc.conn[i]);
	}
	pc.max_send_wr = pc.max_recv_wr = 4096;
	pc.cc[0] = c->cc;
	/* The notification points: the receiver's, and the sender's (for a CE-marked response's requester). */
	pc.cc[0].cnp_interval_ns = pc.cc[1].cnp_interval_ns = o->cnp_interval_ns;
	pc.cqe = 8192;
	if (rl_pair_init(&s->pair, &pc)) {
		s->e = s->pair.end;
		return gen_fail(out, "%s", s->pair.err);
	}
	s->e = s->pair.end;
	return 0;
}

void gen_sess_free(struct gen_sess *s)
{
	rl_pair_free(&s->pair);
}

/*
 * RNR NAKs a run may meet before gen stops it. rnr_retry 7 (perftest's, and
 * ours) retries forever (IBA 9.7.5.2.8): a receive never posted would write
 * frames for the whole simulated hour (11.2M of them). No scenario needs more than a few.
 */
#define GEN_MAX_RNR_NAKS 10000

static uint64_t gen_rnr_naks(const struct gen_sess *s)
{
	uint64_t n = 0;

	for (int i = 0; i < 2; i++)
		if (s->e[i].qp) {
			struct rl_qp_stats st;

			rl_qp_stats(s->e[i].qp, &st);
			n += st.rnr_naks_recv;
		}
	return n;
}

/* The scenario's application, after a look at the RNR NAKs so far. */
static bool gen_sess_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct gen_sess *s = ctx;

	if (gen_rnr_naks(s) > GEN_MAX_RNR_NAKS) {
		s->rnr_capped = true;
		rl_sim_stop(sim);
		return false;
	}
	return s->app ? s->app(sim, now, ctx) : false;
}

/* Run until the wire is quiet and @app (may be NULL) says it is done. 0, or -1 on a livelock. */
int gen_sess_run(struct gen_sess *s, rl_sim_app_fn app)
{
	long r;

	/* Bounded: at most a simulated hour, GEN_MAX_RNR_NAKS, and a step budget that no scenario should reach. */
	s->app = app;
	r = rl_pair_run(&s->pair, GEN_EPOCH_NS + 3600000000000ull, 1L << 40, gen_sess_app, s);
	if (r < 0)
		return gen_fail(s->out, "the simulation did not settle (a livelock in the transport?)");
	if (s->rnr_capped)
		return gen_fail(s->out, "stopped after %d RNR NAKs (%" PRIu64 " frames): the responder has no receive "
					"posted, and rnr_retry 7 retries forever (IBA 9.7.5.2.8)",
				GEN_MAX_RNR_NAKS, rl_sim_frames(s->pair.sim));
	return 0;
}

int gen_post_send(struct gen_sess *s, int from, enum rl_wr_opcode op, uint64_t local_off, uint32_t len,
			 uint64_t remote_off, uint64_t wr_id)
{
	struct rl_send_wr wr;

	rl_pair_send_wr(&s->pair, from, op, local_off, len, remote_off, wr_id, &wr);
	wr.imm_data = 0x1234 + (uint32_t)wr_id;
	wr.invalidate_rkey = rl_mr_rkey(s->e[!from].mr);
	wr.atomic.compare_add = 1;
	wr.atomic.swap = 0x5a5a;
	return rl_pair_post_send(&s->pair, from, &wr) ? gen_fail(s->out, "%s", s->pair.err) : 0;
}

int gen_post_recv(struct gen_sess *s, int e, uint64_t off, uint32_t len, uint64_t wr_id)
{
	return rl_pair_post_recv(&s->pair, e, off, len, wr_id) ? gen_fail(s->out, "%s", s->pair.err) : 0;
}

void gen_fill(struct gen_sess *s, int e, uint64_t off, size_t len)
{
	static const char text[] = "RoCE teaches itself: ";

	for (size_t i = 0; i < len && off + i < s->e[e].len; i++)
		s->e[e].mem[off + i] = (uint8_t)text[(off + i) % (sizeof(text) - 1)];
}

uint32_t gen_size(const struct gen_opts *o, uint32_t def)
{
	return o->size ? o->size : def;
}

uint64_t gen_count(const struct gen_opts *o, uint64_t def)
{
	return o->count ? o->count : def;
}

/* Operations that A posts one after another, each once the previous one completed. */
struct gen_seq {
	const enum rl_wr_opcode *ops;
	const uint32_t *sizes;
	size_t n;
};

static bool gen_seq_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct gen_sess *s = ctx;
	const struct gen_seq *q = (const struct gen_seq *)(uintptr_t)s->mark;
	struct rl_wc wc;

	(void)sim; (void)now;
	while (rl_poll_cq(s->e[0].cq, 1, &wc) == 1)
		s->done += wc.opcode < RL_WC_RECV;
	while (rl_poll_cq(s->e[1].cq, 1, &wc) == 1)
		;
	/* One at a time, so that each exchange reads as its own little story. */
	if (s->posted == s->done && s->posted < q->n) {
		uint64_t i = s->posted++;
		uint32_t len = gen_is_atomic(q->ops[i]) ? 8 : q->sizes[i];

		/* Each operation gets its own region at B: 8-byte aligned for atomics. */
		if (gen_post_send(s, 0, q->ops[i], 0, len, 65536 * (i + 1), i + 1))
			return false;
	}
	return s->done < q->n && rl_qp_state(s->e[0].qp) != RL_QPS_ERR;
}

static int gen_seq_run(const struct gen_opts *o, struct gen_out *out, enum rl_qp_type type, const struct gen_seq *q,
		       gen_fault_fn fault, const struct gen_qp_cfg *cfg)
{
	struct gen_qp_cfg def;
	struct gen_sess s;
	uint32_t max = 8;
	int r;

	for (size_t i = 0; i < q->n; i++)
		if (q->sizes[i] > max)
			max = q->sizes[i];
	if (!cfg) {
		gen_qp_cfg_default(&def, type, 65536 * (q->n + 1) + max);
		cfg = &def;
	}
	r = gen_sess_init(&s, o, out, cfg);
	if (!r) {
		s.fault = fault;
		s.mark = (uint64_t)(uintptr_t)q;
		memcpy(s.e[0].mem, "Hello, RDMA!", 12);
		gen_fill(&s, 0, 12, max);
		gen_fill(&s, 1, 0, s.e[1].len);
		/* Receive buffers for every SEND and WRITE with immediate, 40 bytes more for a UD GRH. */
		for (size_t i = 0; i < q->n && !r; i++)
			if (q->ops[i] == RL_WR_SEND || q->ops[i] == RL_WR_SEND_WITH_IMM ||
			    q->ops[i] == RL_WR_SEND_WITH_INV || q->ops[i] == RL_WR_RDMA_WRITE_WITH_IMM)
				r = gen_post_recv(&s, 1, 65536 * (i + 1), q->sizes[i] + 40, 100 + i);
		if (!r)
			r = gen_sess_run(&s, gen_seq_app);
	}
	gen_sess_free(&s);
	return r;
}

static int gen_one(const struct gen_opts *o, struct gen_out *out, enum rl_qp_type type, enum rl_wr_opcode op,
		   uint32_t size, gen_fault_fn fault, const struct gen_qp_cfg *cfg)
{
	struct gen_seq q = { &op, &size, 1 };

	return gen_seq_run(o, out, type, &q, fault, cfg);
}

/*
 * At most this many messages in a sequence. Message i targets B at 64 KiB x
 * (i + 1): regions of their own up to --size 64 KiB; larger messages
 * overlap the next one's, which the transport does not mind (the memory
 * registered covers the last one whole).
 */
#define GEN_SEQ_MAX 64

/* A single operation, --count times over (1 by default), as a perftest user asks for N of them. */
struct gen_rep {
	enum rl_qp_type type;
	enum rl_wr_opcode op;
	uint32_t size;               /* --size, or the scenario's default */
	const char *what;            /* the messages, plural, for the refusal past GEN_SEQ_MAX */
	const char *more;            /* the scenario that sends more of them, or NULL */
	gen_fault_fn fault;          /* what the wire does to them; NULL: nothing */
};

static int gen_repeat(const struct gen_opts *o, struct gen_out *out, const struct gen_rep *r)
{
	enum rl_wr_opcode ops[GEN_SEQ_MAX];
	uint32_t sizes[GEN_SEQ_MAX];
	uint64_t count = gen_count(o, 1);
	struct gen_seq q = { ops, sizes, (size_t)count };

	if (count > GEN_SEQ_MAX)
		return gen_fail(out, "--count is 1 .. %d %s here, not %" PRIu64 "%s%s%s", GEN_SEQ_MAX, r->what, count,
				r->more ? ": " : "", r->more ? r->more : "", r->more ? " sends more" : "");
	for (uint64_t i = 0; i < count; i++) {
		ops[i] = r->op;
		sizes[i] = r->size;
	}
	return gen_seq_run(o, out, r->type, &q, r->fault, NULL);
}

/* ---- single operations ------------------------------------------------------------------- */

static int sc_send(const struct gen_opts *o, struct gen_out *out)
{
	/* One packet, then one that the path MTU cuts into First/Middle/Last; --count N: N of --size. */
	static const enum rl_wr_opcode ops[] = { RL_WR_SEND, RL_WR_SEND };
	uint32_t sizes[] = { 64, gen_size(o, 2500) };
	struct gen_seq q = { ops, sizes, 2 };
	struct gen_rep r = { RL_QPT_RC, RL_WR_SEND, gen_size(o, 2500), "SENDs", "send-bw", NULL };

	return o->count ? gen_repeat(o, out, &r) : gen_seq_run(o, out, RL_QPT_RC, &q, NULL, NULL);
}

static int sc_send_imm(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_RC, RL_WR_SEND_WITH_IMM, gen_size(o, 64), "SENDs with immediate", "send-bw", NULL };

	return gen_repeat(o, out, &r);
}

static int sc_send_inv(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_RC, RL_WR_SEND_WITH_INV, gen_size(o, 64), "SENDs with invalidate", "send-bw", NULL };

	return gen_repeat(o, out, &r);
}

static int sc_write(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_RC, RL_WR_RDMA_WRITE, gen_size(o, 2500), "RDMA WRITEs", "write-bw", NULL };

	return gen_repeat(o, out, &r);
}

static int sc_write_imm(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_RC, RL_WR_RDMA_WRITE_WITH_IMM, gen_size(o, 2500), "RDMA WRITEs with immediate", "write-bw", NULL };

	return gen_repeat(o, out, &r);
}

static int sc_read(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_RC, RL_WR_RDMA_READ, gen_size(o, 4096), "RDMA READs", "read-bw", NULL };

	return gen_repeat(o, out, &r);
}

static int sc_cmp_swap(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_RC, RL_WR_ATOMIC_CMP_AND_SWP, 8, "Compare&Swaps", NULL, NULL };

	return gen_repeat(o, out, &r);
}

static int sc_fetch_add(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_RC, RL_WR_ATOMIC_FETCH_AND_ADD, 8, "Fetch&Adds", "atomic-bw", NULL };

	return gen_repeat(o, out, &r);
}

/* --count UD SENDs (1 by default) of --size bytes, one after another. */
static int sc_ud_send(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_UD, RL_WR_SEND, gen_size(o, 256), "UD SENDs", NULL, NULL };
	uint32_t max = rl_mtu_bytes(o->mtu);

	/* A UD message is one packet, at most the path MTU. */
	if (r.size > max)
		return gen_fail(out, "a UD message is one packet: --size %u is more than the MTU %u", r.size, max);
	return gen_repeat(o, out, &r);
}

static int sc_uc_send(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_UC, RL_WR_SEND, gen_size(o, 2500), "UC SENDs", NULL, NULL };

	return gen_repeat(o, out, &r);
}

/* The demo: the operations a learner meets first, one after another on one connection. */
static int sc_demo(const struct gen_opts *o, struct gen_out *out)
{
	static const enum rl_wr_opcode ops[] = { RL_WR_SEND, RL_WR_SEND, RL_WR_RDMA_WRITE, RL_WR_RDMA_READ,
						 RL_WR_ATOMIC_FETCH_AND_ADD, RL_WR_SEND_WITH_IMM };
	static const uint32_t sizes[] = { 12, 2500, 1500, 2048, 8, 32 };
	struct gen_seq q = { ops, sizes, 6 };

	return gen_seq_run(o, out, RL_QPT_RC, &q, NULL, NULL);
}

/* ---- workloads ---------------------------------------------------------------------------- */

/*
 * ibv_rc_pingpong: both sides keep receives posted; A sends, B answers each
 * message with one of its own, --count times.
 */
static bool pingpong_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct gen_sess *s = ctx;
	uint32_t size = gen_size(s->o, 4096);
	struct rl_wc wc;

	(void)sim; (void)now;
	for (int e = 0; e < 2; e++)
		while (rl_poll_cq(s->e[e].cq, 1, &wc) == 1) {
			/* A flushed receive (the QP in error) is not reposted: it would flush again, for ever. */
			if (wc.opcode != RL_WC_RECV || wc.status != RL_WC_SUCCESS)
				continue;
			gen_post_recv(s, e, (uint64_t)size, size, wc.wr_id);
			if (e == 1 || ++s->done < s->target)
				gen_post_send(s, e, RL_WR_SEND, 0, size, 0, s->done);
		}
	/* A QP in error (retries spent on a lossy wire) completes no more: the capture ends there. */
	return s->done < s->target && rl_qp_state(s->e[0].qp) != RL_QPS_ERR && rl_qp_state(s->e[1].qp) != RL_QPS_ERR;
}

static int sc_pingpong(const struct gen_opts *o, struct gen_out *out)
{
	uint32_t size = gen_size(o, 4096);
	struct gen_qp_cfg c;
	struct gen_sess s;
	int r;

	gen_qp_cfg_default(&c, RL_QPT_RC, (size_t)size * 2);
	r = gen_sess_init(&s, o, out, &c);
	if (!r) {
		s.target = gen_count(o, 10);
		for (int e = 0; e < 2 && !r; e++) {
			gen_fill(&s, e, 0, size);
			for (int i = 0; i < 4 && !r; i++)
				r = gen_post_recv(&s, e, size, size, (uint64_t)i);
		}
		if (!r)
			r = gen_post_send(&s, 0, RL_WR_SEND, 0, size, 0, 0);
		if (!r)
			r = gen_sess_run(&s, pingpong_app);
	}
	gen_sess_free(&s);
	return r;
}

/* perftest's ib_*_bw: keep --window work requests outstanding until --count are done. */
struct bw_cfg {
	enum rl_wr_opcode op;
	uint32_t size;
};

static bool bw_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct gen_sess *s = ctx;
	const struct bw_cfg *b = (const struct bw_cfg *)(uintptr_t)s->mark;
	uint32_t window = s->o->window ? s->o->window : 128;
	struct rl_wc wc[64];
	int n;

	(void)sim; (void)now;
	while ((n = rl_poll_cq(s->e[0].cq, 64, wc)) > 0)
		s->done += (uint64_t)n;
	while ((n = rl_poll_cq(s->e[1].cq, 64, wc)) > 0)
		for (int i = 0; i < n; i++)
			if (wc[i].status == RL_WC_SUCCESS)   /* a flushed one would flush again at once */
				gen_post_recv(s, 1, 0, b->size, 0);
	while (s->posted < s->target && s->posted - s->done < window) {
		if (gen_post_send(s, 0, b->op, 0, b->size, 0, s->posted))
			return false;
		s->posted++;
	}
	return s->done < s->target;
}

static int gen_bw(const struct gen_opts *o, struct gen_out *out, enum rl_wr_opcode op, uint32_t def_size)
{
	struct bw_cfg b = { op, gen_is_atomic(op) ? 8 : gen_size(o, def_size) };
	uint32_t window = o->window ? o->window : 128;
	struct gen_qp_cfg c;
	struct gen_sess s;
	int r;

	gen_qp_cfg_default(&c, RL_QPT_RC, (size_t)b.size + 64);
	r = gen_sess_init(&s, o, out, &c);
	if (!r) {
		s.target = gen_count(o, 100);
		s.mark = (uint64_t)(uintptr_t)&b;
		gen_fill(&s, 0, 0, b.size);
		gen_fill(&s, 1, 0, b.size);
		for (uint32_t i = 0; op == RL_WR_SEND && i < window && i < 4096 && !r; i++)
			r = gen_post_recv(&s, 1, 0, b.size, 0);
		if (!r)
			r = gen_sess_run(&s, bw_app);
	}
	gen_sess_free(&s);
	return r;
}

static int sc_send_bw(const struct gen_opts *o, struct gen_out *out) { return gen_bw(o, out, RL_WR_SEND, 65536); }
static int sc_write_bw(const struct gen_opts *o, struct gen_out *out) { return gen_bw(o, out, RL_WR_RDMA_WRITE, 65536); }
static int sc_read_bw(const struct gen_opts *o, struct gen_out *out) { return gen_bw(o, out, RL_WR_RDMA_READ, 65536); }
static int sc_atomic_bw(const struct gen_opts *o, struct gen_out *out)
{
	return gen_bw(o, out, RL_WR_ATOMIC_FETCH_AND_ADD, 8);
}

/* ---- faults ----------------------------------------------------------------------------- */

/* The @k-th frame side @from sends (1-based), for fault hooks. */
bool nth_from(struct gen_sess *s, int from, int side, uint64_t k)
{
	return from == side && s->sent_by[side] == k;
}

static enum rl_simwire_fate fault_lose_a2(struct gen_sess *s, uint64_t n, int from)
{
	(void)n;
	return nth_from(s, from, 0, 2) ? RL_SIMWIRE_DROPPED : RL_SIMWIRE_DELIVERED;
}

static enum rl_simwire_fate fault_lose_b1(struct gen_sess *s, uint64_t n, int from)
{
	(void)n;
	return nth_from(s, from, 1, 1) ? RL_SIMWIRE_DROPPED : RL_SIMWIRE_DELIVERED;
}

static enum rl_simwire_fate fault_lose_b2(struct gen_sess *s, uint64_t n, int from)
{
	(void)n;
	return nth_from(s, from, 1, 2) ? RL_SIMWIRE_DROPPED : RL_SIMWIRE_DELIVERED;
}

static enum rl_simwire_fate fault_corrupt_a2(struct gen_sess *s, uint64_t n, int from)
{
	(void)n;
	return nth_from(s, from, 0, 2) ? RL_SIMWIRE_CORRUPTED : RL_SIMWIRE_DELIVERED;
}

static enum rl_simwire_fate fault_dup_a1(struct gen_sess *s, uint64_t n, int from)
{
	(void)n;
	return nth_from(s, from, 0, 1) ? RL_SIMWIRE_DUPLICATED : RL_SIMWIRE_DELIVERED;
}

static enum rl_simwire_fate fault_reorder_a2(struct gen_sess *s, uint64_t n, int from)
{
	(void)n;
	return nth_from(s, from, 0, 2) ? RL_SIMWIRE_REORDERED : RL_SIMWIRE_DELIVERED;
}

static enum rl_simwire_fate fault_ecn_a(struct gen_sess *s, uint64_t n, int from)
{
	(void)s;
	return from == 0 && n % 3 == 0 ? RL_SIMWIRE_ECN_MARKED : RL_SIMWIRE_DELIVERED;
}

/* reorder delays the second packet: a third must be there to overtake it. */
#define GEN_REORDER_PKTS 3

/*
 * The faults below hit a message's second (or third) packet: a --size that
 * fits fewer packets at --mtu would silently lose the fault, so it is refused.
 */
static int gen_need_pkts(const struct gen_opts *o, struct gen_out *out, uint32_t size, uint32_t pkts,
			 const char *what)
{
	uint32_t mtu = rl_mtu_bytes(o->mtu);

	if (size > (uint64_t)mtu * (pkts - 1))
		return 0;
	return gen_fail(out, "%s needs a message of %u packets or more: --size %u at --mtu %u makes fewer; "
			     "give --size %u or more (or a smaller --mtu)",
			what, pkts, size, mtu, mtu * (pkts - 1) + 1);
}

static int sc_request_loss(const struct gen_opts *o, struct gen_out *out)
{
	if (gen_need_pkts(o, out, gen_size(o, 4096), 2, "losing the second packet of a SEND"))
		return -1;
	return gen_one(o, out, RL_QPT_RC, RL_WR_SEND, gen_size(o, 4096), fault_lose_a2, NULL);
}

static int sc_lost_ack(const struct gen_opts *o, struct gen_out *out)
{
	return gen_one(o, out, RL_QPT_RC, RL_WR_RDMA_WRITE, gen_size(o, 1024), fault_lose_b1, NULL);
}

static int sc_lost_read_response(const struct gen_opts *o, struct gen_out *out)
{
	if (gen_need_pkts(o, out, gen_size(o, 4096), 2, "losing the second READ response packet"))
		return -1;
	return gen_one(o, out, RL_QPT_RC, RL_WR_RDMA_READ, gen_size(o, 4096), fault_lose_b2, NULL);
}

static int sc_icrc_corruption(const struct gen_opts *o, struct gen_out *out)
{
	if (gen_need_pkts(o, out, gen_size(o, 3072), 2, "corrupting the second packet of a SEND"))
		return -1;
	return gen_one(o, out, RL_QPT_RC, RL_WR_SEND, gen_size(o, 3072), fault_corrupt_a2, NULL);
}

static int sc_duplicate(const struct gen_opts *o, struct gen_out *out)
{
	return gen_one(o, out, RL_QPT_RC, RL_WR_SEND, gen_size(o, 64), fault_dup_a1, NULL);
}

static int sc_reorder(const struct gen_opts *o, struct gen_out *out)
{
	if (gen_need_pkts(o, out, gen_size(o, 4096), GEN_REORDER_PKTS, "swapping the second packet of a SEND with the third"))
		return -1;
	return gen_one(o, out, RL_QPT_RC, RL_WR_SEND, gen_size(o, 4096), fault_reorder_a2, NULL);
}

static int sc_psn_wrap(const struct gen_opts *o, struct gen_out *out)
{
	uint32_t size = gen_size(o, 8192);
	struct gen_qp_cfg c;

	gen_qp_cfg_default(&c, RL_QPT_RC, (size_t)size * 2 + 65536);
	c.psn_a = 0xfffffd;
	c.psn_a_set = true;
	return gen_one(o, out, RL_QPT_RC, RL_WR_SEND, size, NULL, &c);
}

static int sc_ecn(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_rep r = { RL_QPT_RC, RL_WR_RDMA_WRITE, gen_size(o, 16384), "RDMA WRITEs", "dcqcn", fault_ecn_a };

	return gen_repeat(o, out, &r);
}

/*
 * A SEND with no receive posted: RNR NAKs until B posts one 2 ms later (or
 * until A's --rnr-retry runs out first; the wire is quiet then, so the post
 * waits for a wake-up).
 */
#define GEN_RNR_POST_NS 2000000

static bool rnr_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct gen_sess *s = ctx;

	if (!s->step && now >= GEN_EPOCH_NS + GEN_RNR_POST_NS) {
		s->step = 1;
		gen_post_recv(s, 1, 4096, 4096, 1);
	}
	if (!s->step)
		rl_sim_wake(sim, GEN_EPOCH_NS + GEN_RNR_POST_NS);
	return !s->step;
}

static int sc_rnr(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_qp_cfg c;
	struct gen_sess s;
	int r;

	gen_qp_cfg_default(&c, RL_QPT_RC, 65536);
	r = gen_sess_init(&s, o, out, &c);
	if (!r) {
		gen_fill(&s, 0, 0, 256);
		r = gen_post_send(&s, 0, RL_WR_SEND, 0, gen_size(o, 256) > 4096 ? 4096 : gen_size(o, 256), 0, 1);
		if (!r)
			r = gen_sess_run(&s, rnr_app);
	}
	gen_sess_free(&s);
	return r;
}

/*
 * A shared receive queue (IBA 10.2.9): three QPs of B take their receives
 * from one SRQ that holds two, its limit armed at 1. A SENDs once on each of
 * its three QPs. The first two messages take the two WQEs, in posting order;
 * the second leaves fewer than the limit, and B's application gets the SRQ
 * limit event (IBA 11.6.3), but takes 1 ms to post more. Meanwhile the third
 * SEND finds the SRQ empty: RNR NAK (IBA 9.7.5.2.8), wait, retry, until the
 * new WQEs are there. The ACKs of QPs on an SRQ carry credit code 31: no
 * credits advertised (IBA 9.7.7.2.4).
 */
#define GEN_SRQ_QPS 3
#define GEN_SRQ_REFILL_NS 1000000

struct gen_srq_sess {
	struct gen_sess s;           /* first: the app callback gets it */
	struct rl_srq *srq;
	struct rl_qp *a[GEN_SRQ_QPS], *b[GEN_SRQ_QPS];
};

static int gen_srq_post(struct gen_srq_sess *q, uint64_t wr_id)
{
	struct rl_pair_end *b = &q->s.e[1];
	struct rl_recv_wr wr = { .wr_id = wr_id, .num_sge = 1 };

	wr.sg_list[0] = (struct rl_sge){ b->iova + 4096 * wr_id, 4096, rl_mr_lkey(b->mr) };
	return rl_post_srq_recv(q->srq, &wr) ? gen_fail(q->s.out, "post_srq_recv: %s", rl_host_error(b->host)) : 0;
}

/* B's application: on the limit event, two more receives, GEN_SRQ_REFILL_NS later. */
static bool srq_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct gen_srq_sess *q = ctx;
	struct rl_async_event ev;

	if (q->s.step == 0 && !rl_get_async_event(q->s.e[1].host, &ev) &&
	    ev.event_type == RL_EVENT_SRQ_LIMIT_REACHED) {
		q->s.step = 1;
		q->s.mark = now + GEN_SRQ_REFILL_NS;
	}
	if (q->s.step == 1 && now >= q->s.mark) {
		q->s.step = 2;
		if (gen_srq_post(q, 2) || gen_srq_post(q, 3))
			return false;
	}
	if (q->s.step == 1)
		rl_sim_wake(sim, q->s.mark);
	return q->s.step != 2;
}

/* The extra QPs: A's plain, B's on the SRQ, connected as the session's own pair, each with its PSNs. */
static int gen_srq_qps(struct gen_srq_sess *q)
{
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .max_send_wr = 16, .max_recv_wr = 16 };
	struct rl_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct rl_srq_attr limit = { .srq_limit = 1 };
	struct gen_sess *s = &q->s;

	q->srq = rl_create_srq(s->e[1].pd, &sa);
	if (!q->srq || rl_modify_srq(q->srq, &limit, RL_SRQ_LIMIT))
		return gen_fail(s->out, "SRQ: %s", rl_host_error(s->e[1].host));
	for (int i = 0; i < GEN_SRQ_QPS; i++) {
		struct rl_conn ca = s->e[0].conn, cb = s->e[1].conn;

		ia.send_cq = ia.recv_cq = s->e[0].cq;
		ia.srq = NULL;
		q->a[i] = rl_create_qp(s->e[0].pd, &ia);
		ia.send_cq = ia.recv_cq = s->e[1].cq;
		ia.srq = q->srq;
		q->b[i] = rl_create_qp(s->e[1].pd, &ia);
		if (!q->a[i] || !q->b[i])
			return gen_fail(s->out, "create_qp: %s", rl_host_error(q->a[i] ? s->e[1].host : s->e[0].host));
		ca.sq_psn = cb.psn = (ca.sq_psn + 0x1000 * (uint32_t)(i + 1)) & 0xffffff;
		cb.sq_psn = ca.psn = (cb.sq_psn + 0x1000 * (uint32_t)(i + 1)) & 0xffffff;
		ca.qpn = rl_qp_num(q->b[i]);
		cb.qpn = rl_qp_num(q->a[i]);
		if (rl_qp_connect(q->a[i], &ca) || rl_qp_connect(q->b[i], &cb))
			return gen_fail(s->out, "connect: %s / %s", rl_host_error(s->e[0].host), rl_host_error(s->e[1].host));
	}
	return 0;
}

static int sc_srq(const struct gen_opts *o, struct gen_out *out)
{
	uint32_t size = gen_size(o, 256) > 4096 ? 4096 : gen_size(o, 256);
	struct gen_srq_sess q;
	struct gen_qp_cfg c;
	int r;

	memset(&q, 0, sizeof(q));
	gen_qp_cfg_default(&c, RL_QPT_RC, 65536);
	r = gen_sess_init(&q.s, o, out, &c);
	if (!r)
		r = gen_srq_qps(&q) || gen_srq_post(&q, 0) || gen_srq_post(&q, 1);
	for (int i = 0; !r && i < GEN_SRQ_QPS; i++) {
		struct rl_send_wr wr;

		gen_fill(&q.s, 0, 4096 * (uint64_t)i, size);
		rl_pair_send_wr(&q.s.pair, 0, RL_WR_SEND, 4096 * (uint64_t)i, size, 0, (uint64_t)i, &wr);
		if (rl_post_send(q.a[i], &wr))
			r = gen_fail(out, "post_send: %s", rl_host_error(q.s.e[0].host));
	}
	if (!r)
		r = gen_sess_run(&q.s, srq_app);
	gen_sess_free(&q.s);
	return r ? -1 : 0;
}

/*
 * The classic mistake: the rkey of another region (here: off by one), or an
 * address past the end of the region. --count WRITEs (1) are posted at once,
 * the --bad-write-th (the first) of them aimed wrong, then a SEND: the WRITEs
 * before it complete, it gets the NAK (IBA 9.7.5.2.4), and the QP goes to
 * the error state with the rest (IBA 10.8.3.3).
 */
#define GEN_BAD_MAX_WRITES 256

static int gen_bad_write(struct gen_sess *s, uint32_t size, uint64_t wr_id, bool bad, bool bad_rkey)
{
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = RL_WR_RDMA_WRITE;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ s->e[0].iova, size, rl_mr_lkey(s->e[0].mr) };
	wr.rdma.remote_addr = s->e[1].iova;
	wr.rdma.rkey = rl_mr_rkey(s->e[1].mr);
	/* range-error: 16 bytes before the end (or one fewer than --size), so the WRITE always runs past it. */
	if (bad && !bad_rkey)
		wr.rdma.remote_addr += s->e[1].len - (size > 16 ? 16 : size - 1);
	if (bad && bad_rkey)
		wr.rdma.rkey += 1;
	return rl_post_send(s->e[0].qp, &wr) ? gen_fail(s->out, "post_send: %s", rl_host_error(s->e[0].host)) : 0;
}

static int gen_bad_remote(const struct gen_opts *o, struct gen_out *out, bool bad_rkey)
{
	uint32_t size = gen_size(o, 64);
	uint64_t count = gen_count(o, 1), bad = o->bad_write ? o->bad_write : 1;
	struct gen_qp_cfg c;
	struct gen_sess s;
	int r;

	if (count > GEN_BAD_MAX_WRITES || bad > count)
		return gen_fail(out, "--count is 1 .. %d WRITEs here, and --bad-write one of them: not %" PRIu64
				     " of %" PRIu64, GEN_BAD_MAX_WRITES, bad, count);
	gen_qp_cfg_default(&c, RL_QPT_RC, 65536);
	if (size > c.mem)
		return gen_fail(out, "--size is at most %zu bytes here, the remote region's length", c.mem);
	r = gen_sess_init(&s, o, out, &c);
	for (uint64_t i = 1; !r && i <= count; i++)
		r = gen_bad_write(&s, size, i, i == bad, bad_rkey);
	if (!r)
		r = gen_post_send(&s, 0, RL_WR_SEND, 0, 16, 0, count + 1);
	if (!r)
		r = gen_sess_run(&s, NULL);
	gen_sess_free(&s);
	return r;
}

static int sc_access_error(const struct gen_opts *o, struct gen_out *out) { return gen_bad_remote(o, out, true); }
static int sc_range_error(const struct gen_opts *o, struct gen_out *out) { return gen_bad_remote(o, out, false); }

static int sc_invalid_request(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_qp_cfg c;

	gen_qp_cfg_default(&c, RL_QPT_RC, 65536);
	c.access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE;   /* no remote READ */
	return gen_one(o, out, RL_QPT_RC, RL_WR_RDMA_READ, gen_size(o, 64), NULL, &c);
}

/* Why a scenario's --count or --size is fixed (gen_scenario.why): cli/gen.c's refusal says it. */
#define FIXED_DEMO "it runs six operations once each, at sizes of its own: send, write, read and the other single " \
		   "operations take --count and --size"
#define FIXED_ATOMIC "atomics work on 8 bytes (IBA 9.4.5)"
#define FIXED_ONE_FAULT "its fault strikes one message, once: write-bw takes --count, and --loss or --drop for faults " \
			"among many"
#define FIXED_RNR "its story is one SEND that finds no receive posted: send-bw takes --count"
#define FIXED_SRQ "its three QPs send one SEND each, what its SRQ of two receives needs to run dry once"
#define FIXED_INVALID "the NAK puts A's QP in the error state (IBA 10.8.3.3): nothing after its one READ would run; " \
		      "read takes --count"
#define FIXED_PSN_WRAP "its one message crosses the PSN wrap: write-bw takes --count, and its PSNs wrap too from --psn-a 0xfffff0"
/* Why a scenario ignores an option that the other transport scenarios read (gen_scenario.why). */
#define WHY_ATOMIC_MTU "an atomic moves 8 bytes in one packet at any path MTU (IBA 9.4.5)"
#define WHY_INVALID_MTU "B refuses its READ before any response: nothing is cut to the path MTU"
#define WHY_PSN_WRAP "its story is the wrap, so it starts A at PSN 0xfffffd itself: write-bw takes --psn-a 0xfffff0 " \
		     "and wraps too"
#define WHY_FIXED(r) GEN_WHY(GEN_WHY_MSGS(r))
#define WHY_ATOMIC GEN_WHY(GEN_WHY_MSGS(FIXED_ATOMIC), [GEN_OPT_MTU] = WHY_ATOMIC_MTU)
/* The pair's options but --mtu, for the scenarios that never cut a message to it. */
#define TAKES_NO_MTU (GEN_TAKES_PAIR & ~GEN_TAKES_MTU)

const struct gen_scenario gen_transport[] = {
	{ "demo", sc_demo, GEN_TAKES_PAIR, WHY_FIXED(FIXED_DEMO), "SEND (one and three packets), RDMA WRITE, RDMA READ, Fetch&Add, SEND with immediate" },
	{ "send", sc_send, GEN_TAKES_PAIR | GEN_TAKES_MSGS, NULL, "SEND in one packet, then one the path MTU cuts into First/Middle/Last; ACKs (--count: N of --size)" },
	{ "send-imm", sc_send_imm, GEN_TAKES_PAIR | GEN_TAKES_MSGS, NULL, "SEND with immediate data: 4 bytes that land in the receiver's completion" },
	{ "send-inv", sc_send_inv, GEN_TAKES_PAIR | GEN_TAKES_MSGS, NULL, "SEND with invalidate: the IETH names an R_Key the receiver retires" },
	{ "write", sc_write, GEN_TAKES_PAIR | GEN_TAKES_MSGS, NULL, "RDMA WRITE: a RETH on the first packet only, no receive buffer used" },
	{ "write-imm", sc_write_imm, GEN_TAKES_PAIR | GEN_TAKES_MSGS, NULL, "RDMA WRITE with immediate: the write, then a completion at the receiver" },
	{ "read", sc_read, GEN_TAKES_PAIR | GEN_TAKES_MSGS, NULL, "RDMA READ: one request, a multi-packet response, PSNs counted per response packet" },
	{ "cmp-swap", sc_cmp_swap, TAKES_NO_MTU | GEN_TAKES_COUNT, WHY_ATOMIC, "Compare&Swap on 8 bytes and its ATOMIC Acknowledge" },
	{ "fetch-add", sc_fetch_add, TAKES_NO_MTU | GEN_TAKES_COUNT, WHY_ATOMIC, "Fetch&Add on 8 bytes: the old value comes back in the AtomicAckETH" },
	{ "ud-send", sc_ud_send, GEN_TAKES_PAIR | GEN_TAKES_MSGS, NULL, "UD SEND: a DETH with Q_Key and source QP, no ACK, 40 bytes of GRH at the receiver (--count: 1 to 64 of them)" },
	{ "uc-send", sc_uc_send, GEN_TAKES_PAIR | GEN_TAKES_MSGS, NULL, "UC SEND: segmented like RC, but never acknowledged" },
	{ "pingpong", sc_pingpong, GEN_TAKES_PAIR | GEN_TAKES_MSGS | GEN_TAKES_PSN_B, NULL, "like ibv_rc_pingpong: SENDs back and forth, --count rounds of --size bytes" },
	{ "send-bw", sc_send_bw, GEN_TAKES_PAIR | GEN_TAKES_MSGS | GEN_TAKES_WINDOW, NULL, "like ib_send_bw: a burst of SENDs with --window outstanding" },
	{ "write-bw", sc_write_bw, GEN_TAKES_PAIR | GEN_TAKES_MSGS | GEN_TAKES_WINDOW, NULL, "like ib_write_bw: a burst of RDMA WRITEs" },
	{ "read-bw", sc_read_bw, GEN_TAKES_PAIR | GEN_TAKES_MSGS | GEN_TAKES_WINDOW, NULL, "like ib_read_bw: RDMA READs, at most max_rd_atomic (16) outstanding" },
	{ "atomic-bw", sc_atomic_bw, TAKES_NO_MTU | GEN_TAKES_COUNT | GEN_TAKES_WINDOW, WHY_ATOMIC, "like ib_atomic_bw: Fetch&Adds, at most 16 outstanding" },
	{ "request-loss", sc_request_loss, GEN_TAKES_PAIR | GEN_TAKES_SIZE, WHY_FIXED(FIXED_ONE_FAULT), "a lost request: one PSN sequence error NAK, then go-back-N" },
	{ "lost-ack", sc_lost_ack, GEN_TAKES_PAIR | GEN_TAKES_SIZE, WHY_FIXED(FIXED_ONE_FAULT), "a lost ACK: timeout, the same PSN again, the responder spots the duplicate" },
	{ "lost-read-response", sc_lost_read_response, GEN_TAKES_PAIR | GEN_TAKES_SIZE, WHY_FIXED(FIXED_ONE_FAULT), "a lost READ response: the requester asks again for the rest only" },
	{ "rnr", sc_rnr, GEN_TAKES_PAIR | GEN_TAKES_SIZE | GEN_TAKES_RNR, WHY_FIXED(FIXED_RNR), "SEND before a receive is posted: RNR NAKs, waits, then success" },
	{ "srq", sc_srq, GEN_TAKES_PAIR | GEN_TAKES_SIZE | GEN_TAKES_RNR, WHY_FIXED(FIXED_SRQ), "three QPs share one SRQ: its limit event, then it runs dry: RNR NAK until refilled" },
	{ "access-error", sc_access_error, GEN_TAKES_PAIR | GEN_TAKES_MSGS | GEN_TAKES_BAD, NULL, "RDMA WRITE with a wrong rkey: NAK remote access error, QPs in error, flush" },
	{ "range-error", sc_range_error, GEN_TAKES_PAIR | GEN_TAKES_MSGS | GEN_TAKES_BAD, NULL, "RDMA WRITE past the end of the region: NAK remote access error" },
	{ "invalid-request", sc_invalid_request, TAKES_NO_MTU | GEN_TAKES_SIZE,
	  GEN_WHY(GEN_WHY_MSGS(FIXED_INVALID), [GEN_OPT_MTU] = WHY_INVALID_MTU), "RDMA READ to a QP that does not allow it: NAK invalid request" },
	{ "icrc-corruption", sc_icrc_corruption, GEN_TAKES_PAIR | GEN_TAKES_SIZE, WHY_FIXED(FIXED_ONE_FAULT), "a bit flip on the wire: the receiver drops it on its ICRC, go-back-N" },
	{ "duplicate", sc_duplicate, GEN_TAKES_PAIR | GEN_TAKES_SIZE, WHY_FIXED(FIXED_ONE_FAULT), "a packet delivered twice: executed once, ACKed again" },
	{ "reorder", sc_reorder, GEN_TAKES_PAIR | GEN_TAKES_SIZE, WHY_FIXED(FIXED_ONE_FAULT), "a packet overtaken by the next: NAK, resend, and a late duplicate" },
	{ "psn-wrap", sc_psn_wrap, (GEN_TAKES_PAIR & ~GEN_TAKES_PSN_A) | GEN_TAKES_SIZE,
	  GEN_WHY(GEN_WHY_MSGS(FIXED_PSN_WRAP), [GEN_OPT_PSN_A] = WHY_PSN_WRAP), "PSNs cross 0xFFFFFF -> 0 in the middle of a message" },
	{ "ecn", sc_ecn, GEN_TAKES_PAIR | GEN_TAKES_MSGS | GEN_TAKES_NP, NULL, "ECN Congestion Experienced marks on the way: the receiver answers with CNPs" },
};
const size_t gen_ntransport = sizeof(gen_transport) / sizeof(gen_transport[0]);

/* ---- options and lookup ------------------------------------------------------------------ */

void gen_opts_default(struct gen_opts *o)
{
	static const uint8_t ip6[16] = { 0xfd, 0 };
	struct rl_bottleneck bn;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->mtu = RL_MTU_1024;
	for (int i = 0; i < 2; i++) {
		uint8_t mac[6] = { 0x02, 0, 0, 0, 0, (uint8_t)(i + 1) }, ip4[4] = { 192, 168, 100, (uint8_t)(i + 1) };

		memcpy(o->mac[i], mac, 6);
		memcpy(o->ip4[i], ip4, 4);
		memcpy(o->ip6[i], ip6, 16);
		o->ip6[i][15] = (uint8_t)(i + 1);
		o->qpn[i] = 0x11 + (uint32_t)i;
	}
	o->rate_bps = 25000000000ull;
	o->latency_ns = 1000;
	rl_bottleneck_defaults(&bn);
	o->bn_rate_bps = bn.rate_bps;
	o->bn_queue_bytes = bn.queue_bytes;
	o->bn_kmin = bn.kmin;
	o->bn_kmax = bn.kmax;
	o->bn_pmax = bn.pmax;
	o->senders = GEN_SENDERS_DEFAULT;
	rl_dcqcn_params_default(&o->dcqcn);
}

const struct gen_scenario *gen_find(const char *name)
{
	for (size_t i = 0; i < gen_ntransport; i++)
		if (!strcmp(name, gen_transport[i].name))
			return &gen_transport[i];
	for (size_t i = 0; i < gen_nrdma_cm; i++)
		if (!strcmp(name, gen_rdma_cm[i].name))
			return &gen_rdma_cm[i];
	for (size_t i = 0; i < gen_ncrafted; i++)
		if (!strcmp(name, gen_crafted[i].name))
			return &gen_crafted[i];
	for (size_t i = 0; i < gen_ncongestion; i++)
		if (!strcmp(name, gen_congestion[i].name))
			return &gen_congestion[i];
	return NULL;
}
