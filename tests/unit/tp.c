/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "tp.h"

static void tp_emit(void *ctx, const uint8_t *frame, size_t len)
{
	struct tp_end *e = ctx;
	struct tp_pair *t = e->pair;
	uint8_t copy[sizeof(t->q[0].data)];
	struct rl_pkt p;
	uint64_t n = ++t->frames;

	CU_ASSERT_FATAL(len <= sizeof(copy));
	memcpy(copy, frame, len);
	if (rl_decode(RL_LINK_ETHERNET, copy, len, &p) == RL_OK && n <= TP_QUEUE) {
		t->opcodes[n - 1] = p.bth.opcode;
		t->psns[n - 1] = p.bth.psn;
		t->syndromes[n - 1] = (p.hdrs & RL_HDR_AETH) ? p.aeth.syndrome : 0xff;
		t->from[n - 1] = e->idx;
	} else {
		CU_FAIL("a host emitted a frame that does not decode cleanly");
	}
	if (t->filter && !t->filter(t, e->idx, copy, len, n))
		return;
	tp_inject(t, !e->idx, copy, len);
}

void tp_inject(struct tp_pair *t, int to, const uint8_t *frame, size_t len)
{
	struct tp_frame *f;

	CU_ASSERT_FATAL(t->q_len < TP_QUEUE);
	f = &t->q[(t->q_head + t->q_len) % TP_QUEUE];
	f->to = to;
	f->len = len;
	memcpy(f->data, frame, len);
	t->q_len++;
}

static void tp_event(void *ctx, const struct rl_event *ev)
{
	struct tp_end *e = ctx;

	if ((unsigned)ev->type < 16) {
		e->pair->ev_count[ev->type]++;
		e->pair->last_ev[ev->type] = *ev;
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

static void tp_make_end(struct tp_pair *t, int i, const struct tp_opts *o)
{
	struct tp_end *e = &t->end[i];
	struct rl_host_config cfg = { .mac = { 2, 0, 0, 0, 0, (uint8_t)(i + 1) }, .emit = tp_emit,
				      .event = tp_event, .ctx = e, .active_mtu = RL_MTU_4096 };
	struct rl_qp_init_attr ia = { .qp_type = o->type, .max_send_wr = 256, .max_recv_wr = 256 };

	e->pair = t;
	e->idx = i;
	tp_gid(o, i, cfg.gid);
	memcpy(e->gid, cfg.gid, 16);
	e->host = rl_host_new(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->host);
	e->pd = rl_alloc_pd(e->host);
	e->cq = rl_create_cq(e->host, 1024);
	e->mem = calloc(1, TP_MEM);
	CU_ASSERT_FATAL(e->pd && e->cq && e->mem);
	e->mr = rl_reg_mr_iova(e->pd, e->mem, TP_MEM, 0x100000ull * (uint64_t)(i + 1), o->access);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->mr);
	ia.send_cq = ia.recv_cq = e->cq;
	e->qp = rl_create_qp(e->pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->qp);
}

static void tp_connect(struct tp_pair *t, int i, const struct tp_opts *o)
{
	struct tp_end *e = &t->end[i], *peer = &t->end[!i];
	struct rl_qp_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	a.qp_state = RL_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = o->access;
	a.qkey = 0x11111111;
	r = rl_modify_qp(e->qp, &a, RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT |
				    (o->type == RL_QPT_UD ? RL_QP_QKEY : RL_QP_ACCESS_FLAGS));
	CU_ASSERT_EQUAL_FATAL(r, 0);

	a.qp_state = RL_QPS_RTR;
	tp_gid(o, !i, a.ah_attr.dgid);
	memcpy(a.ah_attr.dmac, (uint8_t[6]){ 2, 0, 0, 0, 0, (uint8_t)(!i + 1) }, 6);
	a.path_mtu = o->mtu ? o->mtu : RL_MTU_1024;
	a.dest_qp_num = rl_qp_num(peer->qp);
	a.rq_psn = i ? o->psn_a : o->psn_b;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = o->min_rnr_timer;
	r = rl_modify_qp(e->qp, &a, o->type == RL_QPT_UD ? RL_QP_STATE
			: o->type == RL_QPT_UC ? (RL_QP_STATE | RL_QP_AV | RL_QP_PATH_MTU | RL_QP_DEST_QPN | RL_QP_RQ_PSN)
			: (RL_QP_STATE | RL_QP_AV | RL_QP_PATH_MTU | RL_QP_DEST_QPN | RL_QP_RQ_PSN |
			   RL_QP_MAX_DEST_RD_ATOMIC | RL_QP_MIN_RNR_TIMER));
	CU_ASSERT_EQUAL_FATAL(r, 0);

	a.qp_state = RL_QPS_RTS;
	a.sq_psn = i ? o->psn_b : o->psn_a;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = o->max_rd_atomic;
	r = rl_modify_qp(e->qp, &a, o->type == RL_QPT_RC ? (RL_QP_STATE | RL_QP_SQ_PSN | RL_QP_TIMEOUT |
					RL_QP_RETRY_CNT | RL_QP_RNR_RETRY | RL_QP_MAX_QP_RD_ATOMIC)
					: (RL_QP_STATE | RL_QP_SQ_PSN));
	if (r)
		fprintf(stderr, "tp_connect: %s\n", rl_host_error(e->host));
	CU_ASSERT_EQUAL_FATAL(r, 0);
}

void tp_setup(struct tp_pair *t, const struct tp_opts *o)
{
	memset(t, 0, sizeof(*t));
	t->q = calloc(TP_QUEUE, sizeof(*t->q));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->q);
	t->now = 1000000;
	tp_make_end(t, 0, o);
	tp_make_end(t, 1, o);
	tp_connect(t, 0, o);
	tp_connect(t, 1, o);
}

void tp_teardown(struct tp_pair *t)
{
	for (int i = 0; i < 2; i++) {
		rl_host_free(t->end[i].host);
		free(t->end[i].mem);
	}
	free(t->q);
}

void tp_run(struct tp_pair *t, uint64_t limit_ns)
{
	uint64_t end = t->now + limit_ns;

	for (int i = 0; i < 2; i++)
		rl_host_run(t->end[i].host, t->now);
	while (t->now <= end) {
		if (t->q_len) {
			struct tp_frame *f = &t->q[t->q_head];

			t->q_head = (t->q_head + 1) % TP_QUEUE;
			t->q_len--;
			t->now += 1000;
			rl_host_recv(t->end[f->to].host, f->data, f->len, t->now);
			rl_host_run(t->end[f->to].host, t->now);
			continue;
		}
		uint64_t next = rl_host_next_timer(t->end[0].host);
		uint64_t n1 = rl_host_next_timer(t->end[1].host);

		if (n1 < next)
			next = n1;
		if (next == UINT64_MAX || next > end)
			break;
		if (next > t->now)
			t->now = next;
		for (int i = 0; i < 2; i++)
			rl_host_run(t->end[i].host, t->now);
	}
}

int tp_post_send(struct tp_pair *t, int e, enum rl_wr_opcode op, uint32_t off, uint32_t len,
		 uint64_t remote_off, uint64_t wr_id)
{
	struct tp_end *me = &t->end[e], *peer = &t->end[!e];
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(me->mr) + off, len, rl_mr_lkey(me->mr) };
	wr.rdma.remote_addr = rl_mr_iova(peer->mr) + remote_off;
	wr.rdma.rkey = rl_mr_rkey(peer->mr);
	wr.atomic.remote_addr = wr.rdma.remote_addr;
	wr.atomic.rkey = wr.rdma.rkey;
	wr.imm_data = 0xabcd0000u | (uint32_t)wr_id;
	wr.ud.remote_qpn = rl_qp_num(peer->qp);
	wr.ud.remote_qkey = 0x11111111;
	memcpy(wr.ud.dmac, (uint8_t[6]){ 2, 0, 0, 0, 0, (uint8_t)(!e + 1) }, 6);
	memcpy(wr.ud.dgid, peer->gid, 16);
	return rl_post_send(me->qp, &wr);
}

int tp_post_recv(struct tp_pair *t, int e, uint32_t off, uint32_t len, uint64_t wr_id)
{
	struct tp_end *me = &t->end[e];
	struct rl_recv_wr wr = { .wr_id = wr_id, .num_sge = 1 };

	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(me->mr) + off, len, rl_mr_lkey(me->mr) };
	return rl_post_recv(me->qp, &wr);
}

bool tp_poll(struct tp_pair *t, int e, struct rl_wc *wc)
{
	return rl_poll_cq(t->end[e].cq, 1, wc) == 1;
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
