/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "tp.h"

#define TP_STEP_NS 1000
#define TP_QKEY 0x11111111

/* Every frame a host emits, decoded before the wire decides its fate. */
static void tp_tap(void *ctx, int from, const uint8_t *frame, size_t len)
{
	struct tp_pair *t = ctx;
	uint64_t n = ++t->frames;
	struct rl_pkt p;

	if (rl_decode(RL_LINK_ETHERNET, frame, len, &p) == RL_OK && n <= TP_QUEUE) {
		t->opcodes[n - 1] = p.bth.opcode;
		t->psns[n - 1] = p.bth.psn;
		t->times[n - 1] = t->pair.sim ? rl_sim_now(t->pair.sim) : 0;
		t->lens[n - 1] = (uint32_t)len;
		t->syndromes[n - 1] = (p.hdrs & RL_HDR_AETH) ? p.aeth.syndrome : 0xff;
		t->from[n - 1] = from;
	} else {
		CU_FAIL("a host emitted a frame that does not decode cleanly");
	}
}

static bool tp_filter(void *ctx, int from, uint8_t *frame, size_t len, uint64_t n)
{
	struct tp_pair *t = ctx;

	return !t->filter || t->filter(t, from, frame, len, n);
}

void tp_inject(struct tp_pair *t, int to, const uint8_t *frame, size_t len)
{
	CU_ASSERT_EQUAL_FATAL(rl_sim_inject(t->pair.sim, to, frame, len), 0);
}

static void tp_event(void *ctx, const struct rl_event *ev)
{
	struct tp_pair *t = ctx;

	if ((unsigned)ev->type < 16) {
		t->ev_count[ev->type]++;
		t->last_ev[ev->type] = *ev;
	}
}

void tp_default_opts(struct tp_opts *o, enum rl_qp_type type)
{
	memset(o, 0, sizeof(*o));
	o->type = type;
	o->mtu = RL_MTU_1024;
	o->psn_a = 0x1000;
	o->psn_b = 0x2000;
	o->retry_cnt = 7;
	o->rnr_retry = 7;
	o->timeout = 10;          /* 4.2 ms */
	o->min_rnr_timer = 1;     /* 10 us */
	o->max_rd_atomic = 4;
	o->access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ |
		    RL_ACCESS_REMOTE_ATOMIC;
}

static void tp_gid(const struct tp_opts *o, int idx, uint8_t gid[16])
{
	if (o->ipv6) {
		memset(gid, 0, 16);
		gid[0] = 0xfd;
		gid[15] = (uint8_t)(idx + 1);
	} else {
		uint8_t ip[4] = { 10, 0, 0, (uint8_t)(idx + 1) };

		rl_gid_from_ipv4(gid, ip);
	}
}

void tp_setup(struct tp_pair *t, const struct tp_opts *o)
{
	struct rl_pair_config pc;
	int r;

	memset(t, 0, sizeof(*t));
	memset(&pc, 0, sizeof(pc));
	pc.sim.kind = RL_SIM_FIFO;
	pc.sim.fifo = (struct rl_sim_fifo_config){ .frames = TP_QUEUE, .step_ns = TP_STEP_NS,
						   .filter = tp_filter, .ctx = t };
	pc.sim.tap = tp_tap;
	pc.sim.tap_ctx = t;
	pc.sim.start_ns = 1000000;
	pc.type = o->type;
	pc.mem[0] = pc.mem[1] = TP_MEM;
	pc.mr_access = o->access;
	pc.max_send_wr = pc.max_recv_wr = 256;
	pc.cqe = 1024;
	pc.cc[0] = o->cc[0];
	pc.cc[1] = o->cc[1];
	for (int i = 0; i < 2; i++) {
		struct rl_host_config *h = &pc.sim.host[i];
		struct rl_conn *c = &pc.conn[i];

		*h = (struct rl_host_config){ .mac = { 2, 0, 0, 0, 0, (uint8_t)(i + 1) }, .event = tp_event,
					      .event_ctx = t, .active_mtu = RL_MTU_4096 };
		tp_gid(o, i, h->gid);
		pc.iova[i] = 0x100000ull * (uint64_t)(i + 1);
		rl_conn_defaults(c);
		c->sq_psn = i ? o->psn_b : o->psn_a;
		c->path_mtu = o->mtu ? o->mtu : RL_MTU_1024;
		c->access = o->access;
		c->qkey = TP_QKEY;
		c->timeout = o->timeout;
		c->retry_cnt = o->retry_cnt;
		c->rnr_retry = o->rnr_retry;
		c->min_rnr_timer = o->min_rnr_timer;
		c->max_rd_atomic = o->max_rd_atomic;
		c->max_dest_rd_atomic = 4;
	}
	r = rl_pair_init(&t->pair, &pc);
	if (r)
		fprintf(stderr, "tp_setup: %s\n", t->pair.err);
	CU_ASSERT_EQUAL_FATAL(r, 0);
	t->end = t->pair.end;
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->end[1].qp);
	CU_ASSERT_EQUAL_FATAL(rl_qp_state(t->end[1].qp), RL_QPS_RTS);
}

void tp_teardown(struct tp_pair *t)
{
	rl_pair_free(&t->pair);
}

void tp_run(struct tp_pair *t, uint64_t limit_ns)
{
	long r = rl_pair_run(&t->pair, rl_sim_now(t->pair.sim) + limit_ns, 1L << 40, NULL, NULL);

	CU_ASSERT(r >= 0);
	CU_ASSERT_EQUAL(rl_sim_refused(t->pair.sim), 0);   /* the FIFO held every frame */
}

int tp_post_send(struct tp_pair *t, int e, enum rl_wr_opcode op, uint32_t off, uint32_t len,
		 uint64_t remote_off, uint64_t wr_id)
{
	struct rl_send_wr wr;

	rl_pair_send_wr(&t->pair, e, op, off, len, remote_off, wr_id, &wr);
	wr.imm_data = 0xabcd0000u | (uint32_t)wr_id;
	return rl_pair_post_send(&t->pair, e, &wr);
}

int tp_post_recv(struct tp_pair *t, int e, uint32_t off, uint32_t len, uint64_t wr_id)
{
	return rl_pair_post_recv(&t->pair, e, off, len, wr_id);
}

bool tp_poll(struct tp_pair *t, int e, struct rl_wc *wc)
{
	return rl_pair_poll(&t->pair, e, wc, 1) == 1;
}

void tp_fill(struct tp_pair *t, int e, uint32_t off, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		t->end[e].mem[off + i] = (uint8_t)((i * 131 + seed * 7 + (i >> 8)) ^ seed);
}

unsigned tp_count_opcode(const struct tp_pair *t, int from, uint8_t opcode)
{
	unsigned n = 0;

	for (uint64_t i = 0; i < t->frames && i < TP_QUEUE; i++)
		n += t->opcodes[i] == opcode && (from < 0 || t->from[i] == from);
	return n;
}

unsigned tp_count_syndrome_type(const struct tp_pair *t, int from, int type)
{
	unsigned n = 0;

	for (uint64_t i = 0; i < t->frames && i < TP_QUEUE; i++)
		n += t->syndromes[i] != 0xff && (int)rl_syndrome_type(t->syndromes[i]) == type &&
		     (from < 0 || t->from[i] == from);
	return n;
}

void tp_dump(const struct tp_pair *t)
{
	for (uint64_t i = 0; i < t->frames && i < TP_QUEUE; i++) {
		char syn[48] = "";

		if (t->syndromes[i] != 0xff)
			rl_describe_syndrome(t->syndromes[i], syn, sizeof(syn));
		fprintf(stderr, "  %3llu %c>%c %-32s PSN %u %s\n", (unsigned long long)i + 1, 'A' + t->from[i],
			'A' + !t->from[i], rl_opcode_info(t->opcodes[i])->name, t->psns[i], syn);
	}
}

struct rl_wc tp_expect_wc(struct tp_pair *t, int e, enum rl_wc_status st, enum rl_wc_opcode op, uint64_t wr_id)
{
	struct rl_wc wc;

	memset(&wc, 0, sizeof(wc));
	CU_ASSERT_TRUE_FATAL(tp_poll(t, e, &wc));
	CU_ASSERT_EQUAL(wc.status, st);
	CU_ASSERT_EQUAL(wc.opcode, op);
	CU_ASSERT_EQUAL(wc.wr_id, wr_id);
	return wc;
}
