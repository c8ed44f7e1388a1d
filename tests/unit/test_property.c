/* SPDX-License-Identifier: MIT */
/*
 * Property tests of the RC transport: thousands of seeded random workloads
 * between two hosts over a simulated wire that loses (up to 30%),
 * duplicates, reorders and corrupts frames. Each run mixes SEND, SEND with
 * immediate, RDMA WRITE (with immediate), RDMA READ, Fetch&Add and
 * Compare&Swap, 0 bytes to 16 KiB, scattered over 1-4 SGEs, with a random
 * path MTU and starting PSNs that often wrap past 0xffffff. A shadow model
 * says what both memories must hold at the end; the properties:
 *
 *   - every work request completes, successfully, the QPs stay in RTS, and
 *     the run ends (no hang) within its bounds. The one exception: loss
 *     may honestly use up retry_cnt (7) -- retry_cnt timeouts in a row
 *     with nothing new acknowledged, by an account of progress kept here
 *     from the frames that reach A, not from the transport's counters.
 *     Then RETRY_EXC_ERR and flushes are accepted, what completed before
 *     is still checked, and such runs must stay rare;
 *   - send completions come exactly once each, in posting order;
 *   - receive completions come in order with the right length, opcode, imm;
 *   - every byte sent, written and read arrives intact and nothing else in
 *     either memory changes;
 *   - atomics are applied exactly once: the counters end where in-order
 *     execution puts them and every atomic returns the value before it;
 *   - the PSN wraps in many runs;
 *   - a seed reproduces its run frame for frame; another seed does not.
 *
 * Seeds with which this test found transport bugs are kept at the end, one
 * test per bug, with what happens on the wire.
 *
 * Each run is a function of its seed and class (small or big). On a failure
 * the seed and parameters are printed; to replay one run with every frame
 * and completion printed:
 *
 *   RL_PROP_SEED=0x... [RL_PROP_BIG=1] build/unit
 *
 * (the property tests then run that one seed only). RL_PROP_RUNS=n changes
 * the number of small runs, to search further.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/* ---- sizes and bounds -------------------------------------------------------------------- */

#define PR_SMALL_RUNS 2000
#define PR_BIG_RUNS 6
#define PR_SMALL_SEED0 0x5eed000000000000ull
#define PR_BIG_SEED0 0xb16b16b100000000ull
#define PR_MAX_SGE 4
#define PR_COUNTERS 4
#define PR_SIM_LIMIT_NS 20000000000ull   /* 20 s of simulated time per run */
#define PR_MAX_ITER 5000000u             /* driver loop iterations per run */
#define PR_RETRY_CNT 7
#define PR_MAX_FAIL_MSGS 8               /* failure messages kept per property */

enum pr_class { PR_SMALL, PR_BIG };

/* The properties; a run can break several. */
enum pr_prop { PP_FINISH, PP_ORDER, PP_RECV, PP_DATA, PP_ATOMIC, PP_COUNT };
static const char *const pr_prop_names[PP_COUNT] = {
	"finish", "send-completion-order", "receive-completions", "data", "atomics",
};

/* ---- PRNG: splitmix64, any seed (0 too) is fine ------------------------------------------- */

struct pr_rng { uint64_t s; };

static uint64_t pr_next(struct pr_rng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t pr_below(struct pr_rng *g, uint32_t n)
{
	return n ? (uint32_t)(pr_next(g) % n) : 0;
}

static double pr_unit(struct pr_rng *g)
{
	return (double)(pr_next(g) >> 11) / 9007199254740992.0;   /* [0, 1) */
}

/* ---- the parameters of one run, all from its seed ---------------------------------------- */

struct pr_params {
	uint64_t seed;
	enum pr_class cls;
	unsigned nops;
	enum rl_mtu mtu;
	uint32_t psn_a, psn_b;          /* A's sq_psn (= B's rq_psn), B's sq_psn */
	double drop, dup, reorder, corrupt;
	uint64_t rate_bps, latency_ns;
	uint8_t timeout, max_rd_atomic, max_dest_rd_atomic, min_rnr_timer;
	unsigned window;                /* at most this many sends outstanding; 0: all posted at once */
	uint64_t recv_gap_ns;           /* 0: receives posted up front; else one every gap (late) */
	uint64_t iova[2];
};

static void pr_params_make(uint64_t seed, enum pr_class cls, struct pr_params *p)
{
	struct pr_rng g = { seed ^ 0x70a2a3e7e5ull };
	static const enum rl_mtu mtus[3] = { RL_MTU_256, RL_MTU_1024, RL_MTU_4096 };
	static const uint64_t rates[4] = { 0, 0, 25000000000ull, 100000000000ull };

	memset(p, 0, sizeof(*p));
	p->seed = seed;
	p->cls = cls;
	p->nops = cls == PR_BIG ? 200 + pr_below(&g, 201) : 5 + pr_below(&g, 36);
	p->mtu = mtus[pr_below(&g, 3)];
	switch (pr_below(&g, 4)) {
	case 0: p->drop = 0; break;
	case 1: p->drop = 0.10 * pr_unit(&g); break;
	case 2: p->drop = 0.30 * pr_unit(&g); break;
	default: p->drop = 0.30; break;
	}
	p->dup = pr_below(&g, 3) ? 0.05 * pr_unit(&g) : 0;
	p->reorder = pr_below(&g, 3) ? 0.05 * pr_unit(&g) : 0;
	p->corrupt = pr_below(&g, 2) ? 0.01 : 0;
	p->rate_bps = rates[pr_below(&g, 4)];
	p->latency_ns = pr_below(&g, 2) ? 1000 : 200 + pr_below(&g, 4800);
	p->timeout = (uint8_t)(7 + pr_below(&g, 3));         /* 0.5 .. 2.1 ms */
	p->max_rd_atomic = (uint8_t)(1 + pr_below(&g, 8));
	p->max_dest_rd_atomic = (uint8_t)(p->max_rd_atomic + pr_below(&g, 17u - p->max_rd_atomic));
	p->min_rnr_timer = (uint8_t)(1 + pr_below(&g, 4));    /* 10 .. 40 us */
	p->window = pr_below(&g, 4) ? 0 : 1 + pr_below(&g, 8);
	p->recv_gap_ns = pr_below(&g, 8) ? 0 : 1000 + pr_below(&g, 30000);
	p->psn_b = pr_below(&g, 0x1000000);
	/* psn_a is picked with the workload, which knows how many PSNs it takes. */
	p->iova[0] = (pr_next(&g) & 0x0000fffffffff000ull) | 0x1000;
	p->iova[1] = (pr_next(&g) & 0x0000fffffffff000ull) | 0x2000;
}

/* ---- the workload and its shadow model ---------------------------------------------------- */

struct pr_sges {
	int n;
	uint32_t off[PR_MAX_SGE], len[PR_MAX_SGE];
};

struct pr_op {
	enum rl_wr_opcode opcode;
	uint32_t len;
	struct pr_sges local;           /* in A's memory */
	uint32_t remote_off;            /* in B's memory: target, READ source or counter */
	int recv;                       /* the receive it consumes, or -1 */
	int counter;                    /* atomics */
	uint32_t imm;
	uint64_t compare_add, swap, expect_orig;
	uint32_t first_psn, npkts;      /* relative to psn_a: PSNs go out in posting order */
};

struct pr_recv {
	int op;
	struct pr_sges sges;            /* in B's memory */
};

struct pr_run {
	struct pr_params p;
	struct pr_op *ops;
	struct pr_recv *recvs;
	unsigned nrecv;
	uint32_t counter_off[PR_COUNTERS];
	uint64_t counter_final[PR_COUNTERS];
	uint32_t total_psns;

	size_t memlen[2];
	uint8_t *mem[2], *shadow[2];

	struct rl_pair pair;            /* A (0) and B (1) on the simulated wire */
	struct rl_host *h[2];           /* pair.end[i]'s */
	struct rl_cq *cq[2];
	struct rl_qp *qp[2];
	struct rl_mr *mr[2];
	uint64_t t0;

	unsigned posted, completed, recv_posted, recv_done;
	bool verbose;

	/* What crossed the wire. */
	uint64_t hash, frames, dropped, duplicated, reordered, corrupted;
	bool psn_high, psn_low;         /* A sent PSNs near 0xffffff and near 0 */
	bool send_err;
	uint8_t *corrupt;               /* by frame number: the wire corrupted it */
	size_t corrupt_cap;

	/*
	 * An independent account of A's forward progress, to tell a retry budget
	 * honestly used up (retry_cnt timeouts in a row with nothing new
	 * acknowledged, after the NAK or response that showed the loss) from one
	 * wasted: the first PSN not yet acknowledged by any response that
	 * reached A intact (relative to psn_a), and the timeouts since it last
	 * moved.
	 */
	uint32_t frontier;
	unsigned rd_next;               /* the first READ/atomic op not wholly behind the frontier */
	unsigned stalled_timeouts, stalled_at_fail;
	bool gave_up;                   /* RETRY_EXC_ERR after a legitimate run of timeouts */
	unsigned done_ops;              /* ops that must have taken effect: all, or those before giving up */

	/* Verdict. */
	unsigned broken;                /* bit per enum pr_prop */
	char why[PP_COUNT][240];
};

static bool pr_is_atomic(enum rl_wr_opcode op)
{
	return op == RL_WR_ATOMIC_FETCH_AND_ADD || op == RL_WR_ATOMIC_CMP_AND_SWP;
}

static int pr_op_needs_recv(enum rl_wr_opcode op)
{
	return op == RL_WR_SEND || op == RL_WR_SEND_WITH_IMM || op == RL_WR_RDMA_WRITE_WITH_IMM;
}

static uint32_t pr_alloc(struct pr_rng *g, size_t *top, uint32_t len, uint32_t align)
{
	size_t off = *top + pr_below(g, 4) * pr_below(g, 40);   /* a gap, often none */

	off = (off + align - 1) / align * align;
	*top = off + len;
	return (uint32_t)off;
}

/* @len bytes in 1..4 separate pieces (0 or 1 empty SGE for 0 bytes). */
static void pr_split(struct pr_rng *g, size_t *top, uint32_t len, struct pr_sges *s)
{
	uint32_t left = len;

	memset(s, 0, sizeof(*s));
	if (!len) {
		s->n = (int)pr_below(g, 2);
		if (s->n)
			s->off[0] = pr_alloc(g, top, 0, 1);
		return;
	}
	s->n = 1 + (int)pr_below(g, len < PR_MAX_SGE ? len : PR_MAX_SGE);
	if (pr_below(g, 2))
		s->n = 1;                   /* one SGE half of the time */
	for (int i = 0; i < s->n; i++) {
		uint32_t piece = i == s->n - 1 ? left : 1 + pr_below(g, left - (uint32_t)(s->n - 1 - i));

		s->len[i] = piece;
		s->off[i] = pr_alloc(g, top, piece, 1);
		left -= piece;
	}
}

static uint32_t pr_rand_len(struct pr_rng *g, uint32_t mtu)
{
	switch (pr_below(g, 10)) {
	case 0: return 0;
	case 1: case 2: return 1 + pr_below(g, 64);
	case 3: return 1 + pr_below(g, 1024);
	case 4: return (1 + pr_below(g, 4)) * mtu - 1 + pr_below(g, 3);   /* around MTU multiples */
	case 5: case 6: return 1 + pr_below(g, 4096);
	default: return 1 + pr_below(g, 16384);
	}
}

static void pr_copy_sges(uint8_t *mem, const struct pr_sges *s, uint8_t *buf, uint32_t len, bool to_mem)
{
	uint32_t done = 0;

	for (int i = 0; i < s->n && done < len; i++) {
		uint32_t n = s->len[i] < len - done ? s->len[i] : len - done;

		if (to_mem)
			memcpy(mem + s->off[i], buf + done, n);
		else
			memcpy(buf + done, mem + s->off[i], n);
		done += n;
	}
}

static void pr_fill(struct pr_rng *g, uint8_t *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v = pr_next(g);

		memcpy(b + i, &v, 8);
	}
	for (; i < n; i++)
		b[i] = (uint8_t)pr_next(g);
}

/* Generate the workload of a run, lay out both memories, and compute the shadow model. */
static void pr_workload(struct pr_run *r)
{
	struct pr_rng g = { r->p.seed ^ 0x3c6ef372fe94f82bull };
	uint32_t mtu = rl_mtu_bytes(r->p.mtu);
	uint64_t ctr[PR_COUNTERS];
	size_t top[2] = { 0, 0 };
	static const enum rl_wr_opcode kinds[7] = {
		RL_WR_SEND, RL_WR_SEND_WITH_IMM, RL_WR_RDMA_WRITE, RL_WR_RDMA_WRITE_WITH_IMM,
		RL_WR_RDMA_READ, RL_WR_ATOMIC_FETCH_AND_ADD, RL_WR_ATOMIC_CMP_AND_SWP,
	};
	uint8_t *tmp = malloc(4 * 4096 + 8);   /* the longest pr_rand_len() */

	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	r->ops = calloc(r->p.nops, sizeof(*r->ops));
	r->recvs = calloc(r->p.nops, sizeof(*r->recvs));
	CU_ASSERT_FATAL(r->ops && r->recvs);

	for (int k = 0; k < PR_COUNTERS; k++)
		r->counter_off[k] = pr_alloc(&g, &top[1], 8, 8);
	r->total_psns = 0;
	for (unsigned i = 0; i < r->p.nops; i++) {
		struct pr_op *o = &r->ops[i];

		o->opcode = kinds[pr_below(&g, 7)];
		o->recv = -1;
		o->imm = (uint32_t)pr_next(&g);
		if (pr_is_atomic(o->opcode)) {
			o->len = 8;
			o->local.n = 1;
			o->local.len[0] = 8;
			o->local.off[0] = pr_alloc(&g, &top[0], 8, 8);
			o->counter = (int)pr_below(&g, PR_COUNTERS);
			o->remote_off = r->counter_off[o->counter];
			o->npkts = 1;
		} else {
			o->len = pr_rand_len(&g, mtu);
			pr_split(&g, &top[0], o->len, &o->local);
			if (o->opcode != RL_WR_SEND && o->opcode != RL_WR_SEND_WITH_IMM)
				o->remote_off = pr_alloc(&g, &top[1], o->len, 1);
			o->npkts = o->len ? (o->len + mtu - 1) / mtu : 1;
		}
		o->first_psn = r->total_psns;
		r->total_psns += o->npkts;
		if (pr_op_needs_recv(o->opcode)) {
			struct pr_recv *rv = &r->recvs[r->nrecv];
			uint32_t cap = o->opcode == RL_WR_RDMA_WRITE_WITH_IMM ? pr_below(&g, 65)
				       : o->len + (pr_below(&g, 2) ? 0 : pr_below(&g, 200));

			rv->op = (int)i;
			pr_split(&g, &top[1], cap, &rv->sges);
			o->recv = (int)r->nrecv++;
		}
	}
	/* psn_a: a third of the runs cross 0xffffff -> 0, a third start anywhere, a third near 0. */
	switch (pr_below(&g, 3)) {
	case 0: r->p.psn_a = 0xffffffu - pr_below(&g, r->total_psns); break;
	case 1: r->p.psn_a = pr_below(&g, 0x1000000); break;
	default: r->p.psn_a = pr_below(&g, 64); break;
	}

	for (int e = 0; e < 2; e++) {
		r->memlen[e] = top[e] + 64;
		r->mem[e] = malloc(r->memlen[e]);
		r->shadow[e] = malloc(r->memlen[e]);
		CU_ASSERT_FATAL(r->mem[e] && r->shadow[e]);
		pr_fill(&g, r->mem[e], r->memlen[e]);
		memcpy(r->shadow[e], r->mem[e], r->memlen[e]);
	}
	for (int k = 0; k < PR_COUNTERS; k++)
		memcpy(&ctr[k], r->mem[1] + r->counter_off[k], 8);

	/* The model: every operation exactly once, in posting order. */
	for (unsigned i = 0; i < r->p.nops; i++) {
		struct pr_op *o = &r->ops[i];
		uint64_t *c = &ctr[o->counter];

		switch (o->opcode) {
		case RL_WR_SEND:
		case RL_WR_SEND_WITH_IMM:
			pr_copy_sges(r->mem[0], &o->local, tmp, o->len, false);
			pr_copy_sges(r->shadow[1], &r->recvs[o->recv].sges, tmp, o->len, true);
			break;
		case RL_WR_RDMA_WRITE:
		case RL_WR_RDMA_WRITE_WITH_IMM:
			pr_copy_sges(r->mem[0], &o->local, tmp, o->len, false);
			memcpy(r->shadow[1] + o->remote_off, tmp, o->len);
			break;
		case RL_WR_RDMA_READ:
			pr_copy_sges(r->shadow[0], &o->local, r->mem[1] + o->remote_off, o->len, true);
			break;
		case RL_WR_ATOMIC_FETCH_AND_ADD:
			o->compare_add = pr_below(&g, 4) ? pr_below(&g, 1000) : pr_next(&g);
			o->expect_orig = *c;
			*c += o->compare_add;
			memcpy(r->shadow[0] + o->local.off[0], &o->expect_orig, 8);
			break;
		case RL_WR_ATOMIC_CMP_AND_SWP:
			o->compare_add = pr_below(&g, 2) ? *c : *c + 1 + pr_below(&g, 3);   /* hit or miss */
			o->swap = pr_next(&g);
			o->expect_orig = *c;
			if (*c == o->compare_add)
				*c = o->swap;
			memcpy(r->shadow[0] + o->local.off[0], &o->expect_orig, 8);
			break;
		default:
			break;
		}
	}
	for (int k = 0; k < PR_COUNTERS; k++) {
		r->counter_final[k] = ctr[k];
		memcpy(r->shadow[1] + r->counter_off[k], &ctr[k], 8);
	}
	free(tmp);
}

/* ---- failure bookkeeping ------------------------------------------------------------------ */

static void pr_params_str(const struct pr_params *p, char *buf, size_t n)
{
	snprintf(buf, n,
		 "seed=0x%016" PRIx64 "%s ops=%u mtu=%u psn_a=0x%06x drop=%.3f dup=%.3f reorder=%.3f corrupt=%.2f "
		 "rate=%" PRIu64 " latency=%" PRIu64 " timeout=%u rd_atomic=%u/%u rnr_timer=%u window=%u recv_gap=%" PRIu64,
		 p->seed, p->cls == PR_BIG ? " (big)" : "", p->nops, rl_mtu_bytes(p->mtu), p->psn_a, p->drop, p->dup,
		 p->reorder, p->corrupt, p->rate_bps, p->latency_ns, p->timeout, p->max_rd_atomic,
		 p->max_dest_rd_atomic, p->min_rnr_timer, p->window, p->recv_gap_ns);
}

static void pr_fail(struct pr_run *r, enum pr_prop k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pr_fail(struct pr_run *r, enum pr_prop k, const char *fmt, ...)
{
	va_list ap;

	if (r->broken & (1u << k))
		return;                     /* the first symptom is the interesting one */
	r->broken |= 1u << k;
	va_start(ap, fmt);
	vsnprintf(r->why[k], sizeof(r->why[k]), fmt, ap);
	va_end(ap);
	if (r->verbose)
		fprintf(stderr, "property %s broken: %s\n", pr_prop_names[k], r->why[k]);
}

/* ---- the wire, the hosts, the driver loop ------------------------------------------------- */

/* One frame as it enters the wire at @now, decoded. */
static void pr_print_frame(const struct rl_simwire_record *rec, uint64_t now)
{
	struct rl_pkt p;
	enum rl_status st = rl_decode(RL_LINK_ETHERNET, rec->frame, rec->len, &p);
	char extra[96] = "";

	if (st == RL_NOT_ROCE || rl_status_fatal(st)) {
		fprintf(stderr, "  #%-5" PRIu64 " %12.3f us %c>%c (not a RoCE frame, %zu bytes) %s\n", rec->number,
			now / 1000.0, 'A' + rec->from_port, 'A' + !rec->from_port, rec->len,
			rl_simwire_fate_name(rec->fate));
		return;
	}
	if (p.hdrs & RL_HDR_AETH) {
		char syn[48];

		rl_describe_syndrome(p.aeth.syndrome, syn, sizeof(syn));
		snprintf(extra, sizeof(extra), "%s MSN %u", syn, p.aeth.msn);
	} else if (p.hdrs & RL_HDR_RETH) {
		snprintf(extra, sizeof(extra), "va 0x%" PRIx64 " len %u", p.reth.va, p.reth.dma_len);
	} else if (p.hdrs & RL_HDR_ATOMICETH) {
		snprintf(extra, sizeof(extra), "va 0x%" PRIx64, p.atomiceth.va);
	}
	fprintf(stderr, "  #%-5" PRIu64 " %12.3f us %c>%c %-34s PSN 0x%06x%s pay %4zu %s %s%s\n", rec->number,
		now / 1000.0, 'A' + rec->from_port, 'A' + !rec->from_port, rl_opcode_info(p.bth.opcode)->name,
		p.bth.psn, p.bth.ackreq ? " A" : "  ", p.payload_len, extra,
		rec->fate != RL_SIMWIRE_DELIVERED ? rl_simwire_fate_name(rec->fate) : "", p.icrc_ok ? "" : " (bad ICRC)");
}

/* BTH PSN of a frame from our hosts: Ethernet, IPv4 (any IHL), UDP, BTH. */
static bool pr_frame_psn(const uint8_t *f, size_t len, uint32_t *psn)
{
	size_t bth;

	if (len < 14 + 20 || f[12] != 0x08 || f[13] != 0x00)
		return false;
	bth = 14 + (size_t)(f[14] & 15) * 4 + 8;
	if (len < bth + 12)
		return false;
	*psn = (uint32_t)f[bth + 9] << 16 | (uint32_t)f[bth + 10] << 8 | f[bth + 11];
	return true;
}

/* A word at a time: every frame of every run goes through here. */
static void pr_hash(uint64_t *h, const void *data, size_t n)
{
	const uint8_t *b = data;
	uint64_t x = *h, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		x = (x ^ w) * 0x9e3779b97f4a7c15ull;
		x ^= x >> 29;
	}
	for (; i < n; i++)
		x = (x ^ b[i]) * 0x100000001b3ull;
	*h = x;
}


/* The simulated time: the pair's clock. */
static uint64_t pr_now(const struct pr_run *r)
{
	return rl_sim_now(r->pair.sim);
}

static void pr_record(void *ctx, const struct rl_simwire_record *rec)
{
	struct pr_run *r = ctx;
	uint64_t fields[5] = { rec->number, (uint64_t)rec->from_port, pr_now(r), rec->time_ns, (uint64_t)rec->fate };
	uint32_t psn;

	pr_hash(&r->hash, fields, sizeof(fields));
	pr_hash(&r->hash, rec->frame, rec->len);
	r->frames++;
	r->dropped += rec->fate == RL_SIMWIRE_DROPPED || rec->fate == RL_SIMWIRE_QUEUE_FULL;
	r->duplicated += rec->fate == RL_SIMWIRE_DUPLICATED;
	r->reordered += rec->fate == RL_SIMWIRE_REORDERED;
	r->corrupted += rec->fate == RL_SIMWIRE_CORRUPTED;
	if (rec->fate == RL_SIMWIRE_CORRUPTED) {
		if (rec->number >= r->corrupt_cap) {
			size_t cap = (size_t)rec->number * 2 + 1024;
			uint8_t *m = realloc(r->corrupt, cap);

			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			memset(m + r->corrupt_cap, 0, cap - r->corrupt_cap);
			r->corrupt = m;
			r->corrupt_cap = cap;
		}
		r->corrupt[rec->number] = 1;
	}
	if (rec->from_port == 0 && pr_frame_psn(rec->frame, rec->len, &psn)) {
		r->psn_high |= psn >= 0xff0000;
		r->psn_low |= psn < 0x010000;
	}
	if (r->verbose)
		pr_print_frame(rec, pr_now(r));
}

/* A's events: count retransmit timeouts; note the stall when the retry budget runs out. */
static void pr_event(void *ctx, const struct rl_event *ev)
{
	struct pr_run *r = ctx;

	if (ev->type == RL_EV_TIMER_FIRED)
		r->stalled_timeouts++;
	if (ev->type == RL_EV_COMPLETION && ev->value == RL_WC_RETRY_EXC_ERR)
		r->stalled_at_fail = r->stalled_timeouts;
	if (r->verbose && (ev->type == RL_EV_TIMER_FIRED || ev->type == RL_EV_RETRY))
		fprintf(stderr, "  %12.3f us  A %s PSN 0x%06x (%" PRIu64 ") %s\n", ev->now / 1000.0,
			rl_event_name(ev->type), ev->psn, ev->value, ev->text ? ev->text : "");
}

/*
 * A response reaches A intact: does it acknowledge anything new? IBA
 * 9.7.5.1.5: an ACK acknowledges the PSNs up to its own, a NAK those before
 * its own; but a READ or an atomic is done only by its own response, in
 * order, never by a later ACK. Relative PSNs: the frontier is the first one
 * not yet acknowledged.
 */
static void pr_advance(struct pr_run *r, uint32_t upto)
{
	while (r->rd_next < r->p.nops) {
		const struct pr_op *o = &r->ops[r->rd_next];

		if ((o->opcode == RL_WR_RDMA_READ || pr_is_atomic(o->opcode)) && o->first_psn + o->npkts > r->frontier)
			break;
		r->rd_next++;
	}
	if (r->rd_next < r->p.nops && upto > r->ops[r->rd_next].first_psn)
		upto = r->ops[r->rd_next].first_psn > r->frontier ? r->ops[r->rd_next].first_psn : r->frontier;
	if (upto > r->frontier) {
		r->frontier = upto;
		r->stalled_timeouts = 0;
	}
}

static void pr_observe_response(struct pr_run *r, const struct rl_simwire_delivery *d)
{
	const struct rl_opcode_info *op;
	uint32_t psn, u;
	size_t bth;

	if (d->number < r->corrupt_cap && r->corrupt[d->number])
		return;
	if (!pr_frame_psn(d->frame, d->len, &psn))
		return;
	bth = 14 + (size_t)(d->frame[14] & 15) * 4 + 8;
	op = rl_opcode_info(d->frame[bth]);
	if (!(op->flags & RL_OPF_RESP))
		return;
	u = (psn - r->p.psn_a) & 0xffffff;
	if (u >= r->total_psns)
		return;
	if ((op->hdrs & RL_HDR_AETH) && d->len > bth + 12 && rl_syndrome_type(d->frame[bth + 12]) != RL_AETH_ACK) {
		pr_advance(r, u);                       /* NAK */
		return;
	}
	if ((op->flags & RL_OPF_READ) || (op->hdrs & RL_HDR_ATOMICACKETH)) {
		/* The response of a READ/atomic: what comes before is acknowledged; itself, if next in order. */
		pr_advance(r, u);
		if (u == r->frontier) {
			r->frontier = u + 1;
			r->stalled_timeouts = 0;
		}
		return;
	}
	pr_advance(r, u + 1);                           /* ACK */
}

/* Each side's choices; rl_pair exchanges QPN, PSN, GID and MAC and calls rl_qp_connect(). */
static void pr_conn(const struct pr_params *p, int i, struct rl_conn *c)
{
	rl_conn_defaults(c);
	c->sq_psn = i ? p->psn_b : p->psn_a;
	c->path_mtu = p->mtu;
	c->max_dest_rd_atomic = i ? p->max_dest_rd_atomic : 1;
	c->min_rnr_timer = p->min_rnr_timer;
	c->timeout = p->timeout;
	c->retry_cnt = PR_RETRY_CNT;
	c->rnr_retry = 7;
	c->max_rd_atomic = i ? 1 : p->max_rd_atomic;
}

static void pr_deliver(void *ctx, const struct rl_simwire_delivery *d);

static void pr_setup(struct pr_run *r)
{
	struct rl_pair_config pc;
	struct rl_simwire_config *wc = &pc.sim.wire;
	int ok;

	memset(&pc, 0, sizeof(pc));
	pc.sim.kind = RL_SIM_SIMWIRE;
	wc->latency_ns = r->p.latency_ns;
	wc->rate_bps = r->p.rate_bps;
	wc->seed = r->p.seed * 0x9e3779b97f4a7c15ull + 1;
	wc->drop_rate = r->p.drop;
	wc->dup_rate = r->p.dup;
	wc->reorder_rate = r->p.reorder;
	wc->corrupt_rate = r->p.corrupt;
	wc->record = pr_record;
	wc->ctx = r;
	pc.sim.deliver = pr_deliver;
	pc.sim.tap_ctx = r;
	pc.sim.start_ns = r->t0 = 1000000;
	pc.type = RL_QPT_RC;
	pc.max_send_wr = r->p.nops + 1;
	pc.max_recv_wr = r->nrecv + 1;
	pc.cqe = (int)(r->p.nops + r->nrecv + 16);
	r->hash = 0xcbf29ce484222325ull;
	for (int i = 0; i < 2; i++) {
		uint8_t ip[4] = { 10, 0, 0, (uint8_t)(i + 1) };

		pc.sim.host[i] = (struct rl_host_config){ .mac = { 2, 0, 0, 0, 0, (uint8_t)(i + 1) },
							  .active_mtu = RL_MTU_4096, .event = i ? NULL : pr_event,
							  .event_ctx = r };
		rl_gid_from_ipv4(pc.sim.host[i].gid, ip);
		pc.mem[i] = r->memlen[i];
		pc.iova[i] = r->p.iova[i];
		pr_conn(&r->p, i, &pc.conn[i]);
	}
	ok = rl_pair_init(&r->pair, &pc);
	if (ok)
		fprintf(stderr, "property: %s\n", r->pair.err);
	CU_ASSERT_EQUAL_FATAL(ok, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->pair.end[1].qp);
	CU_ASSERT_EQUAL_FATAL(rl_qp_state(r->pair.end[1].qp), RL_QPS_RTS);
	for (int i = 0; i < 2; i++) {
		struct rl_pair_end *e = &r->pair.end[i];

		/* The workload was planned on this memory: it becomes the registered region. */
		memcpy(e->mem, r->mem[i], r->memlen[i]);
		free(r->mem[i]);
		r->mem[i] = e->mem;
		r->h[i] = e->host;
		r->cq[i] = e->cq;
		r->qp[i] = e->qp;
		r->mr[i] = e->mr;
	}
}

static void pr_teardown(struct pr_run *r)
{
	for (int i = 0; i < 2; i++)
		free(r->shadow[i]);
	rl_pair_free(&r->pair);       /* and the two memories */
	free(r->corrupt);
	free(r->ops);
	free(r->recvs);
}

static void pr_sges_to_wr(const struct pr_run *r, int e, const struct pr_sges *s, struct rl_sge *sg, int *n)
{
	*n = s->n;
	for (int i = 0; i < s->n; i++)
		sg[i] = (struct rl_sge){ r->p.iova[e] + s->off[i], s->len[i], rl_mr_lkey(r->mr[e]) };
}

static void pr_post_send(struct pr_run *r)
{
	struct pr_op *o = &r->ops[r->posted];
	struct rl_send_wr wr;
	int st;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = r->posted;
	wr.opcode = o->opcode;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.imm_data = o->imm;
	pr_sges_to_wr(r, 0, &o->local, wr.sg_list, &wr.num_sge);
	wr.rdma.remote_addr = wr.atomic.remote_addr = r->p.iova[1] + o->remote_off;
	wr.rdma.rkey = wr.atomic.rkey = rl_mr_rkey(r->mr[1]);
	wr.atomic.compare_add = o->compare_add;
	wr.atomic.swap = o->swap;
	st = rl_post_send(r->qp[0], &wr);
	if (st)
		pr_fail(r, PP_FINISH, "post_send of op %u failed (%d): %s", r->posted, st, rl_host_error(r->h[0]));
	r->posted++;
}

static void pr_post_recv(struct pr_run *r)
{
	struct rl_recv_wr wr;
	int st;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = r->recv_posted;
	pr_sges_to_wr(r, 1, &r->recvs[r->recv_posted].sges, wr.sg_list, &wr.num_sge);
	st = rl_post_recv(r->qp[1], &wr);
	if (st)
		pr_fail(r, PP_FINISH, "post_recv %u failed (%d): %s", r->recv_posted, st, rl_host_error(r->h[1]));
	r->recv_posted++;
}

static uint64_t pr_recv_due(const struct pr_run *r)
{
	if (r->recv_posted >= r->nrecv)
		return UINT64_MAX;
	return r->p.recv_gap_ns ? r->t0 + (r->recv_posted + 1) * r->p.recv_gap_ns : 0;
}

/* Post what the window and the receive schedule allow; true if anything was posted. */
static bool pr_post(struct pr_run *r)
{
	bool any = false;

	while (r->posted < r->p.nops && (!r->p.window || r->posted - r->completed < r->p.window)) {
		pr_post_send(r);
		any = true;
	}
	while (pr_recv_due(r) <= pr_now(r)) {
		pr_post_recv(r);
		any = true;
	}
	return any;
}

static enum rl_wc_opcode pr_wc_opcode(enum rl_wr_opcode op)
{
	switch (op) {
	case RL_WR_RDMA_WRITE: case RL_WR_RDMA_WRITE_WITH_IMM: return RL_WC_RDMA_WRITE;
	case RL_WR_RDMA_READ: return RL_WC_RDMA_READ;
	case RL_WR_ATOMIC_CMP_AND_SWP: return RL_WC_COMP_SWAP;
	case RL_WR_ATOMIC_FETCH_AND_ADD: return RL_WC_FETCH_ADD;
	default: return RL_WC_SEND;
	}
}

static const char *pr_stall_note(const struct pr_run *r)
{
	static char note[120];

	snprintf(note, sizeof(note), ", after only %u retransmit timeouts since a response last acknowledged "
		 "something new", r->stalled_at_fail);
	return note;
}

static void pr_check_send_wc(struct pr_run *r, const struct rl_wc *wc)
{
	unsigned i = r->completed;

	if (r->verbose)
		fprintf(stderr, "  %12.3f us  A completion wr_id %" PRIu64 " %s %s\n", pr_now(r) / 1000.0, wc->wr_id,
			i < r->p.nops ? rl_wr_opcode_name(r->ops[i].opcode) : "?", rl_wc_status_str(wc->status));
	if (wc->status == RL_WC_RETRY_EXC_ERR && r->stalled_at_fail >= PR_RETRY_CNT && !r->broken &&
	    wc->wr_id == i) {
		/*
		 * The loss really was that bad: retry_cnt + 1 retries without
		 * progress, all timeouts but perhaps the first (a NAK or a
		 * response that showed the loss). Flushes follow; what completed
		 * before is still checked.
		 */
		r->gave_up = true;
		r->done_ops = i;
	} else if (r->gave_up && wc->status == RL_WC_WR_FLUSH_ERR) {
		/* the rest of the send queue, flushed */
	} else if (wc->status != RL_WC_SUCCESS) {
		pr_fail(r, PP_FINISH, "op %" PRIu64 " (%s, %u bytes) completed with \"%s\" at %.3f us%s", wc->wr_id,
			wc->wr_id < r->p.nops ? rl_wr_opcode_name(r->ops[wc->wr_id].opcode) : "?",
			wc->wr_id < r->p.nops ? r->ops[wc->wr_id].len : 0, rl_wc_status_str(wc->status),
			(pr_now(r) - r->t0) / 1000.0,
			wc->status == RL_WC_RETRY_EXC_ERR ? pr_stall_note(r) : "");
	}
	if (i >= r->p.nops)
		pr_fail(r, PP_ORDER, "an extra send completion: wr_id %" PRIu64 " after all %u completed", wc->wr_id,
			r->p.nops);
	else if (wc->wr_id != i)
		pr_fail(r, PP_ORDER, "send completion #%u has wr_id %" PRIu64 " (expected %u, posting order)", i,
			wc->wr_id, i);
	else if (wc->status == RL_WC_SUCCESS && wc->opcode != pr_wc_opcode(r->ops[i].opcode))
		pr_fail(r, PP_ORDER, "op %u (%s): completion opcode %d, expected %d", i,
			rl_wr_opcode_name(r->ops[i].opcode), wc->opcode, pr_wc_opcode(r->ops[i].opcode));
	if (wc->qp_num != rl_qp_num(r->qp[0]))
		pr_fail(r, PP_ORDER, "send completion #%u names QP %u", i, wc->qp_num);
	r->completed++;
}

static void pr_check_recv_wc(struct pr_run *r, const struct rl_wc *wc)
{
	unsigned i = r->recv_done;

	if (r->verbose)
		fprintf(stderr, "  %12.3f us  B completion wr_id %" PRIu64 " byte_len %u %s\n", pr_now(r) / 1000.0,
			wc->wr_id, wc->byte_len, rl_wc_status_str(wc->status));
	if (i >= r->nrecv) {
		pr_fail(r, PP_RECV, "an extra receive completion: wr_id %" PRIu64 " after all %u", wc->wr_id, r->nrecv);
	} else if (wc->wr_id != i) {
		pr_fail(r, PP_RECV, "receive completion #%u has wr_id %" PRIu64 " (expected %u)", i, wc->wr_id, i);
	} else if (wc->status != RL_WC_SUCCESS) {
		pr_fail(r, PP_RECV, "receive %u (op %d) completed with \"%s\"", i, r->recvs[i].op,
			rl_wc_status_str(wc->status));
	} else {
		const struct pr_op *o = &r->ops[r->recvs[i].op];
		bool imm = o->opcode != RL_WR_SEND;
		enum rl_wc_opcode op = o->opcode == RL_WR_RDMA_WRITE_WITH_IMM ? RL_WC_RECV_RDMA_WITH_IMM : RL_WC_RECV;

		if (wc->opcode != op || wc->byte_len != o->len || !!(wc->wc_flags & RL_WC_WITH_IMM) != imm ||
		    (imm && wc->imm_data != o->imm) || wc->qp_num != rl_qp_num(r->qp[1]))
			pr_fail(r, PP_RECV,
				"receive %u for op %d (%s, %u bytes, imm 0x%08x): opcode %d byte_len %u flags 0x%x "
				"imm 0x%08x qp %u",
				i, r->recvs[i].op, rl_wr_opcode_name(o->opcode), o->len, o->imm, wc->opcode,
				wc->byte_len, wc->wc_flags, wc->imm_data, wc->qp_num);
	}
	r->recv_done++;
}

static void pr_poll(struct pr_run *r)
{
	struct rl_wc wc[16];
	int n;

	while ((n = rl_poll_cq(r->cq[0], 16, wc)) > 0)
		for (int i = 0; i < n; i++)
			pr_check_send_wc(r, &wc[i]);
	while ((n = rl_poll_cq(r->cq[1], 16, wc)) > 0)
		for (int i = 0; i < n; i++) {
			if (wc[i].opcode & RL_WC_RECV)
				pr_check_recv_wc(r, &wc[i]);
			else
				pr_fail(r, PP_ORDER, "B, which posted no sends, got a send completion (%s)",
					rl_wc_status_str(wc[i].status));
		}
}

static uint64_t pr_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

static bool pr_can_post(const struct pr_run *r)
{
	return r->posted < r->p.nops && (!r->p.window || r->posted - r->completed < r->p.window);
}

/* A frame reaches a host: one that reaches A tells the independent account of progress. */
static void pr_deliver(void *ctx, const struct rl_simwire_delivery *d)
{
	struct pr_run *r = ctx;

	if (r->verbose)
		fprintf(stderr, "  %12.3f us  %c receives #%" PRIu64 "\n", pr_now(r) / 1000.0, 'A' + d->to_port,
			d->number);
	if (d->to_port == 0)
		pr_observe_response(r, d);
}

/* The application between steps: post what is due, check completions, say when to come back. */
static bool pr_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct pr_run *r = ctx;

	pr_post(r);
	pr_poll(r);
	if (rl_sim_refused(sim) && !r->send_err) {
		r->send_err = true;
		pr_fail(r, PP_FINISH, "the simulated wire refused a frame (rl_simwire_send failed) by %.3f us",
			(now - r->t0) / 1000.0);
	}
	if (r->broken & (1u << PP_FINISH)) {
		rl_sim_stop(sim);
		return false;
	}
	if (pr_can_post(r))
		rl_sim_wake(sim, now);
	rl_sim_wake(sim, pr_recv_due(r));
	return false;
}

/* rl_sim_run() with posting, polling and bounds; then why it ended. */
static void pr_drive(struct pr_run *r)
{
	uint64_t limit = r->t0 + PR_SIM_LIMIT_NS, t;
	long steps = 0, n;

	/* The hosts' last run may complete work (a flush) that lets the application post again. */
	do {
		n = rl_pair_run(&r->pair, limit, PR_MAX_ITER - steps, pr_app, r);
		steps = n < 0 ? -1 : steps + n + 1;
		pr_poll(r);
	} while (steps >= 0 && steps < PR_MAX_ITER && !(r->broken & (1u << PP_FINISH)) && pr_can_post(r) &&
		 pr_now(r) <= limit);
	/* pr_app looks after each of its turns; the hosts' last run comes after the last one. */
	if (rl_sim_refused(r->pair.sim) && !r->send_err) {
		r->send_err = true;
		pr_fail(r, PP_FINISH, "the simulated wire refused a frame (rl_simwire_send failed) by %.3f us",
			(pr_now(r) - r->t0) / 1000.0);
	}
	if (r->broken & (1u << PP_FINISH))
		return;
	if (steps < 0 || steps >= PR_MAX_ITER) {
		pr_fail(r, PP_FINISH, "not done after %u driver iterations (%.3f us simulated)", PR_MAX_ITER,
			(pr_now(r) - r->t0) / 1000.0);
		return;
	}
	t = pr_min(rl_simwire_next_time(rl_sim_wire(r->pair.sim)),
		   pr_min(rl_host_next_timer(r->h[0]), rl_host_next_timer(r->h[1])));
	t = pr_min(pr_can_post(r) ? pr_now(r) : t, pr_recv_due(r));
	if (t != UINT64_MAX)
		pr_fail(r, PP_FINISH, "not done after %.1f ms of simulated time: %u/%u sends, %u/%u receives",
			(limit - r->t0) / 1e6, r->completed, r->p.nops, r->recv_done, r->nrecv);
	else if (r->completed < r->p.nops || (r->recv_done < r->nrecv && !r->gave_up))
		pr_fail(r, PP_FINISH,
			"stuck at %.3f us: %u/%u sends and %u/%u receives complete, nothing in flight, "
			"no timer armed", (pr_now(r) - r->t0) / 1000.0, r->completed, r->p.nops,
			r->recv_done, r->nrecv);
}

/* Which operation owns byte @off of memory @e, for a failure message. */
static void pr_owner(const struct pr_run *r, int e, size_t off, char *buf, size_t n, bool *atomic)
{
	*atomic = false;
	if (e == 1)
		for (int k = 0; k < PR_COUNTERS; k++)
			if (off >= r->counter_off[k] && off < r->counter_off[k] + 8u) {
				*atomic = true;
				snprintf(buf, n, "counter %d", k);
				return;
			}
	for (unsigned i = 0; i < r->p.nops; i++) {
		const struct pr_op *o = &r->ops[i];
		const struct pr_sges *s = e == 0 ? &o->local : o->recv >= 0 ? &r->recvs[o->recv].sges : NULL;

		for (int j = 0; s && j < s->n; j++)
			if (off >= s->off[j] && off < (size_t)s->off[j] + s->len[j]) {
				*atomic = e == 0 && pr_is_atomic(o->opcode);
				snprintf(buf, n, "op %u %s (%u bytes), %s SGE %d byte %zu", i,
					 rl_wr_opcode_name(o->opcode), o->len, e == 0 ? "local" : "receive", j,
					 off - s->off[j]);
				return;
			}
		if (e == 1 && o->opcode != RL_WR_SEND && o->opcode != RL_WR_SEND_WITH_IMM &&
		    !pr_is_atomic(o->opcode) && off >= o->remote_off && off < (size_t)o->remote_off + o->len) {
			snprintf(buf, n, "op %u %s (%u bytes), remote byte %zu", i, rl_wr_opcode_name(o->opcode),
				 o->len, off - o->remote_off);
			return;
		}
	}
	snprintf(buf, n, "no operation's region");
}

/* After giving up, what ops from done_ops on did is undefined: expect whatever memory holds there. */
static void pr_forget(struct pr_run *r)
{
	for (unsigned i = r->done_ops; i < r->p.nops; i++) {
		const struct pr_op *o = &r->ops[i];
		const struct pr_sges *s = &o->local;

		for (int j = 0; j < s->n; j++)
			memcpy(r->shadow[0] + s->off[j], r->mem[0] + s->off[j], s->len[j]);
		if (o->recv >= 0) {
			s = &r->recvs[o->recv].sges;
			for (int j = 0; j < s->n; j++)
				memcpy(r->shadow[1] + s->off[j], r->mem[1] + s->off[j], s->len[j]);
		}
		if (o->opcode == RL_WR_RDMA_WRITE || o->opcode == RL_WR_RDMA_WRITE_WITH_IMM)
			memcpy(r->shadow[1] + o->remote_off, r->mem[1] + o->remote_off, o->len);
	}
	for (int k = 0; k < PR_COUNTERS; k++) {
		memcpy(&r->counter_final[k], r->mem[1] + r->counter_off[k], 8);
		memcpy(r->shadow[1] + r->counter_off[k], r->mem[1] + r->counter_off[k], 8);
	}
}

static void pr_check_memory(struct pr_run *r)
{
	if (r->done_ops < r->p.nops)
		pr_forget(r);
	for (unsigned i = 0; i < r->done_ops; i++) {
		const struct pr_op *o = &r->ops[i];
		uint64_t got;

		if (!pr_is_atomic(o->opcode))
			continue;
		memcpy(&got, r->mem[0] + o->local.off[0], 8);
		if (got != o->expect_orig)
			pr_fail(r, PP_ATOMIC, "op %u %s on counter %d returned 0x%016" PRIx64 ", expected 0x%016" PRIx64, i,
				rl_wr_opcode_name(o->opcode), o->counter, got, o->expect_orig);
	}
	for (int k = 0; k < PR_COUNTERS; k++) {
		uint64_t got;

		memcpy(&got, r->mem[1] + r->counter_off[k], 8);
		if (got != r->counter_final[k])
			pr_fail(r, PP_ATOMIC, "counter %d ends at 0x%016" PRIx64 ", expected 0x%016" PRIx64, k, got,
				r->counter_final[k]);
	}
	for (int e = 0; e < 2; e++) {
		if (!memcmp(r->mem[e], r->shadow[e], r->memlen[e]))
			continue;
		for (size_t off = 0; off < r->memlen[e]; off++) {
			char who[160];
			bool atomic;

			if (r->mem[e][off] == r->shadow[e][off])
				continue;
			pr_owner(r, e, off, who, sizeof(who), &atomic);
			if (!atomic) {
				size_t bad = 0;

				for (size_t j = off; j < r->memlen[e]; j++)
					bad += r->mem[e][j] != r->shadow[e][j];
				pr_fail(r, PP_DATA, "%c's memory +0x%zx (%s): 0x%02x, expected 0x%02x (%zu bytes differ)",
					'A' + e, off, who, r->mem[e][off], r->shadow[e][off], bad);
				break;
			}
		}
	}
}

struct pr_result {
	uint64_t hash, frames, dropped, duplicated, reordered, corrupted, sim_ns;
	uint64_t timeouts, retransmits, seq_naks, rnr_naks;
	bool wrapped, gave_up;
	unsigned broken, stalled;
};

/* Failure lines printed as they happen, at most (the count is in the summary). */
#define PR_MAX_PRINTED 20
static unsigned pr_printed;

static void pr_run_one(uint64_t seed, enum pr_class cls, bool verbose, bool quiet, struct pr_result *res,
		       char why[PP_COUNT][600])
{
	struct pr_run *r = calloc(1, sizeof(*r));
	struct rl_qp_stats st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	pr_params_make(seed, cls, &r->p);
	r->verbose = verbose;
	pr_workload(r);
	if (verbose) {
		char ps[400];

		pr_params_str(&r->p, ps, sizeof(ps));
		fprintf(stderr, "property run: %s\n", ps);
		for (unsigned i = 0; i < r->p.nops; i++) {
			const struct pr_op *o = &r->ops[i];

			fprintf(stderr, "  op %3u %-26s %5u bytes in %d SGE(s), remote +0x%x%s\n", i,
				rl_wr_opcode_name(o->opcode), o->len, o->local.n, o->remote_off,
				o->recv >= 0 ? " (takes a receive)" : "");
		}
	}
	r->done_ops = r->p.nops;
	pr_setup(r);
	pr_drive(r);
	pr_poll(r);
	if (!(r->broken & (1u << PP_FINISH))) {
		for (int i = 0; i < 2; i++)
			if (rl_qp_state(r->qp[i]) != (i == 0 && r->gave_up ? RL_QPS_ERR : RL_QPS_RTS))
				pr_fail(r, PP_FINISH, "QP %c ends in %s", 'A' + i, rl_qp_state_name(rl_qp_state(r->qp[i])));
		pr_check_memory(r);
	}
	rl_qp_stats(r->qp[0], &st);
	res->hash = r->hash;
	res->frames = r->frames;
	res->dropped = r->dropped;
	res->duplicated = r->duplicated;
	res->reordered = r->reordered;
	res->corrupted = r->corrupted;
	res->sim_ns = pr_now(r) - r->t0;
	res->timeouts = st.timeouts;
	res->retransmits = st.retransmits;
	res->seq_naks = st.seq_naks_recv;
	res->rnr_naks = st.rnr_naks_recv;
	res->wrapped = r->psn_high && r->psn_low;
	res->broken = r->broken;
	res->gave_up = r->gave_up;
	res->stalled = r->stalled_at_fail;
	if (r->broken) {
		char ps[400];

		pr_params_str(&r->p, ps, sizeof(ps));
		for (int k = 0; k < PP_COUNT; k++)
			if (r->broken & (1u << k)) {
				char line[600];

				snprintf(line, sizeof(line), "%s [%s; A: %" PRIu64 " timeouts, %" PRIu64 " retransmits, %"
					 PRIu64 " PSN NAKs; wire: %" PRIu64 " frames, %" PRIu64 " dropped]", r->why[k], ps,
					 st.timeouts, st.retransmits, st.seq_naks_recv, r->frames, r->dropped);
				if (why)
					memcpy(why[k], line, sizeof(line));
				if (!quiet && (verbose || pr_printed++ < PR_MAX_PRINTED))
					fprintf(stderr, "property %s broken: %s\n", pr_prop_names[k], line);
			}
	}
	pr_teardown(r);
	free(r);
}

/* ---- the batch: run once, each property test reads its verdict ---------------------------- */

static struct {
	bool done;
	unsigned runs, big_runs, wrapped, gave_up;
	uint64_t ops, frames, dropped, duplicated, reordered, corrupted, timeouts, retransmits, rnr_naks, sim_ns;
	unsigned broken[PP_COUNT];
	char msgs[PP_COUNT][PR_MAX_FAIL_MSGS][600];
	bool single;                    /* RL_PROP_SEED: one seed, verbose */
} batch;

static void pr_batch_one(uint64_t seed, enum pr_class cls, bool verbose)
{
	static char why[PP_COUNT][600];
	struct pr_result res;
	struct pr_params p;

	pr_params_make(seed, cls, &p);
	pr_run_one(seed, cls, verbose, false, &res, why);
	batch.runs++;
	batch.big_runs += cls == PR_BIG;
	batch.ops += p.nops;
	batch.frames += res.frames;
	batch.dropped += res.dropped;
	batch.duplicated += res.duplicated;
	batch.reordered += res.reordered;
	batch.corrupted += res.corrupted;
	batch.timeouts += res.timeouts;
	batch.retransmits += res.retransmits;
	batch.rnr_naks += res.rnr_naks;
	batch.sim_ns += res.sim_ns;
	batch.wrapped += res.wrapped && !res.broken && !res.gave_up;
	batch.gave_up += res.gave_up;
	if (res.gave_up && verbose) {
		char ps[400];

		pr_params_str(&p, ps, sizeof(ps));
		fprintf(stderr, "property: retry budget used up by loss (%u timeouts in a row; accepted): %s\n",
			res.stalled, ps);
	}
	for (int k = 0; k < PP_COUNT; k++)
		if (res.broken & (1u << k)) {
			if (batch.broken[k] < PR_MAX_FAIL_MSGS)
				memcpy(batch.msgs[k][batch.broken[k]], why[k], sizeof(why[k]));
			batch.broken[k]++;
		}
}

static void pr_batch(void)
{
	const char *env = getenv("RL_PROP_SEED");

	if (batch.done)
		return;
	batch.done = true;
	if (env && *env) {
		const char *big = getenv("RL_PROP_BIG");

		batch.single = true;
		pr_batch_one(strtoull(env, NULL, 0), big && *big && *big != '0' ? PR_BIG : PR_SMALL, true);
	} else {
		const char *runs = getenv("RL_PROP_RUNS");
		unsigned n = runs && *runs ? (unsigned)strtoul(runs, NULL, 0) : PR_SMALL_RUNS;

		for (unsigned i = 0; i < n; i++)
			pr_batch_one(PR_SMALL_SEED0 + i, PR_SMALL, false);
		for (unsigned i = 0; i < PR_BIG_RUNS; i++)
			pr_batch_one(PR_BIG_SEED0 + i, PR_BIG, false);
	}
	printf("\nproperty: %u runs (%u big), %" PRIu64 " ops, %" PRIu64 " frames, %" PRIu64 " dropped, %" PRIu64
	       " duplicated, %" PRIu64 " reordered, %" PRIu64 " corrupted; %" PRIu64 " timeouts, %" PRIu64
	       " retransmits, %" PRIu64 " RNR NAKs; PSN wrapped in %u runs; %u gave up (retries used up by loss); "
	       "%.1f ms simulated; broken:",
	       batch.runs, batch.big_runs, batch.ops, batch.frames, batch.dropped, batch.duplicated, batch.reordered,
	       batch.corrupted, batch.timeouts, batch.retransmits, batch.rnr_naks, batch.wrapped, batch.gave_up,
	       batch.sim_ns / 1e6);
	for (int k = 0; k < PP_COUNT; k++)
		printf(" %s %u", pr_prop_names[k], batch.broken[k]);
	printf("\n");
}

static void pr_expect_unbroken(enum pr_prop k, unsigned line)
{
	pr_batch();
	for (unsigned i = 0; i < batch.broken[k] && i < PR_MAX_FAIL_MSGS; i++)
		CU_assertImplementation(CU_FALSE, line, batch.msgs[k][i], __FILE__, "", CU_FALSE);
	CU_ASSERT_EQUAL(batch.broken[k], 0);
}

static void test_every_wr_completes(void)
{
	pr_expect_unbroken(PP_FINISH, __LINE__);
}

static void test_send_completions_in_order(void)
{
	pr_expect_unbroken(PP_ORDER, __LINE__);
}

static void test_receive_completions(void)
{
	pr_expect_unbroken(PP_RECV, __LINE__);
}

static void test_bytes_intact(void)
{
	pr_expect_unbroken(PP_DATA, __LINE__);
}

static void test_atomics_exactly_once(void)
{
	pr_expect_unbroken(PP_ATOMIC, __LINE__);
}

static void test_psn_wraps(void)
{
	pr_batch();
	if (batch.single)
		return;
	CU_ASSERT(batch.wrapped >= batch.runs / 6);
}

/* Loss may use up retry_cnt honestly now and then, but rarely: most runs must be checked in full. */
static void test_giving_up_is_rare(void)
{
	pr_batch();
	if (batch.single)
		return;
	CU_ASSERT(batch.gave_up <= batch.runs / 20);
}

static void test_faults_happened(void)
{
	pr_batch();
	if (batch.single)
		return;
	/* The wire did what it was asked: losses near the nominal rates, and the transport had to recover. */
	CU_ASSERT(batch.dropped > batch.frames / 20);
	CU_ASSERT(batch.duplicated > 0 && batch.reordered > 0 && batch.corrupted > 0);
	CU_ASSERT(batch.timeouts > 0 && batch.retransmits > batch.timeouts);
	CU_ASSERT(batch.rnr_naks > 0);         /* receives posted late */
}

/* The same seed gives the same frames at the same times; another seed does not. */
static void test_reproducible(void)
{
	static const uint64_t seeds[2] = { PR_SMALL_SEED0 + 7, PR_BIG_SEED0 + 1 };

	for (int i = 0; i < 2; i++) {
		enum pr_class cls = i ? PR_BIG : PR_SMALL;
		struct pr_result a, b, c;

		pr_run_one(seeds[i], cls, false, true, &a, NULL);
		pr_run_one(seeds[i], cls, false, true, &b, NULL);
		pr_run_one(seeds[i] + 1, cls, false, true, &c, NULL);
		CU_ASSERT(a.frames > 0);
		CU_ASSERT_EQUAL(a.hash, b.hash);
		CU_ASSERT_EQUAL(a.frames, b.frames);
		CU_ASSERT_EQUAL(a.dropped, b.dropped);
		CU_ASSERT_EQUAL(a.sim_ns, b.sim_ns);
		CU_ASSERT_EQUAL(a.retransmits, b.retransmits);
		CU_ASSERT_EQUAL(a.broken, b.broken);
		CU_ASSERT_NOT_EQUAL(a.hash, c.hash);
	}
}

/* ---- seeds this test found transport bugs with, kept as regression tests ------------------- */

struct pr_known {
	uint64_t seed;
	const char *story;
};

static void pr_expect_known(const struct pr_known *k, size_t n, unsigned line)
{
	for (size_t i = 0; i < n; i++) {
		static char why[PP_COUNT][600];
		struct pr_result res;

		pr_run_one(k[i].seed, PR_SMALL, false, true, &res, why);
		for (int p = 0; p < PP_COUNT; p++)
			if (res.broken & (1u << p)) {
				char msg[1000];

				snprintf(msg, sizeof(msg), "%.300s: property %s broken: %.600s", k[i].story, pr_prop_names[p], why[p]);
				CU_assertImplementation(CU_FALSE, line, msg, __FILE__, "", CU_FALSE);
			}
	}
}

/*
 * A NAK that arrives late (reordered behind the ACK of the packet it asked
 * for) names comp.psn - 1. rl_comp_recv() lets that PSN through and
 * rl_comp_nak() sets comp.psn to it, backwards; the go-back-N that follows
 * sends the work request at the head with its PSNs shifted by one. The
 * responder takes the shifted packets for others: an atomic is never
 * executed, a WRITE with immediate is executed twice and consumes another
 * message's receive, WRITE data lands one MTU off -- with every work request
 * completing successfully -- or the requester computes a negative byte
 * offset and fails a 0-byte SEND with a local length error.
 */
static void test_known_stale_nak(void)
{
	static const struct pr_known k[] = {
		{ 0x5eed0000000043e5ull, "no loss, 56 frames: reordered NAK(PSN-1) rewinds comp.psn; CmpSwap "
					 "skipped, WRITE with immediate executed twice" },
		{ 0x5eed000000002fd1ull, "stale NAK after the READ response: PSNs shift, WRITE data lands one MTU off, "
					 "all WRs complete successfully" },
		{ 0x5eed000000000004ull, "no loss: stale NAK, negative offset, 0-byte SEND fails with local length "
					 "error" },
	};

	pr_expect_known(k, sizeof(k) / sizeof(k[0]), __LINE__);
}

/*
 * One lost or late READ/atomic response: every later response of the same
 * round (each READ response packet, each ACK past it) starts another
 * go-back-N and spends another retry. rl_comp_retry() is called without
 * checking comp.retrying except for one case in rl_comp_read_resp() (rxe:
 * comp.started_retry). Seven stale responses use up retry_cnt 7 in the same
 * microsecond, without a single frame lost.
 */
static void test_known_retry_storm(void)
{
	static const struct pr_known k[] = {
		{ 0x5eed000000000129ull, "no loss, 60 frames: a reordered atomic ACK; 7 READ response packets of the "
					 "old round start 7 go-back-Ns, RETRY_EXC_ERR at 4 us" },
		{ 0x5eed00000000000bull, "no loss: a reordered atomic ACK; each later ACK starts a go-back-N" },
	};

	pr_expect_known(k, sizeof(k) / sizeof(k[0]), __LINE__);
}

/*
 * A PSN sequence NAK acknowledges everything before its PSN: forward
 * progress. rl_comp_nak() advances comp.psn (and rl_comp_ack_upto()
 * completes work requests) without restoring the retry budget, which only
 * ACKs, READ responses and atomic ACKs do (rl_comp_progress()). A long
 * message under loss makes progress on every NAK and still runs out.
 */
static void test_known_nak_progress_budget(void)
{
	static const struct pr_known k[] = {
		{ 0x5eed0000000015eaull, "57 frames, 12-packet SEND: 5 NAKs each acknowledge more, retries left "
					 "6,5,4,3,2 anyway; RETRY_EXC_ERR" },
	};

	pr_expect_known(k, sizeof(k) / sizeof(k[0]), __LINE__);
}

int tl_suite_property(void)
{
	CU_pSuite s = CU_add_suite("property", NULL, NULL);

	return !s ||
	       !CU_add_test(s, "random workloads: every WR completes successfully, no hang, QPs stay in RTS",
			    test_every_wr_completes) ||
	       !CU_add_test(s, "send completions exactly once, in posting order", test_send_completions_in_order) ||
	       !CU_add_test(s, "receive completions in order, right length, opcode and imm",
			    test_receive_completions) ||
	       !CU_add_test(s, "every byte sent, written and read arrives intact; nothing else changes",
			    test_bytes_intact) ||
	       !CU_add_test(s, "atomics applied exactly once, each returns the value before it",
			    test_atomics_exactly_once) ||
	       !CU_add_test(s, "the PSN wraps past 0xffffff in many runs", test_psn_wraps) ||
	       !CU_add_test(s, "retries used up by loss alone: rare", test_giving_up_is_rare) ||
	       !CU_add_test(s, "the wire lost, duplicated, reordered and corrupted frames", test_faults_happened) ||
	       !CU_add_test(s, "a seed reproduces its run frame for frame; another seed differs", test_reproducible) ||
	       !CU_add_test(s, "found: a stale NAK must not move the completer back", test_known_stale_nak) ||
	       !CU_add_test(s, "found: one go-back-N per loss, not one per stale response", test_known_retry_storm) ||
	       !CU_add_test(s, "found: progress acknowledged by a NAK restores the retry budget",
			    test_known_nak_progress_budget);
}
