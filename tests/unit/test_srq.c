/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues (IBA 10.2.9, 11.2.3): several RC QPs of host B take
 * their receives from one SRQ; host A has a QP connected to each. What is
 * checked: which QP and which WQE each message completes with, the wire's
 * RNR NAK when the SRQ runs dry (IBA 9.7.5.2.8) and the AETH credit field of
 * a QP with an SRQ, the limit event (IBA 11.6.3) once per arming, and the
 * errors libibverbs gives (ENOMEM when full, EINVAL, EBUSY).
 */
#include <errno.h>
#include <string.h>

#include "tp.h"

#define NQP 3
#define SRQ_WR 8
#define MSG 64
#define RBUF 128                  /* receive buffers: RBUF bytes each at RBUF * i of B's memory */
#define SBUF_OFF 0x10000          /* A's messages: MSG bytes each at SBUF_OFF + MSG * i */

struct sq_fix {
	struct tp_pair t;
	struct rl_srq *srq;
	struct rl_qp *a[NQP], *b[NQP];
};

static struct sq_fix F;

/* A new QP on side @e, RC, on that side's CQ; with @srq on B. */
static struct rl_qp *sq_qp(int e, struct rl_srq *srq)
{
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .max_send_wr = 16, .max_recv_wr = 16, .srq = srq };

	ia.send_cq = ia.recv_cq = F.t.end[e].cq;
	return rl_create_qp(F.t.end[e].pd, &ia);
}

/* Connect a (on A) and b (on B) to each other, with the choices the fixture gave its own pair. */
static void sq_connect(struct rl_qp *a, struct rl_qp *b, uint32_t psn)
{
	struct rl_conn ca = F.t.end[0].conn, cb = F.t.end[1].conn;

	ca.sq_psn = cb.psn = psn;
	cb.sq_psn = ca.psn = psn + 0x100;
	ca.qpn = rl_qp_num(b);
	cb.qpn = rl_qp_num(a);
	CU_ASSERT_EQUAL_FATAL(rl_qp_connect(a, &ca), 0);
	CU_ASSERT_EQUAL_FATAL(rl_qp_connect(b, &cb), 0);
}

static void sq_setup(uint32_t max_wr)
{
	struct rl_srq_init_attr ia = { .attr = { .max_wr = max_wr, .max_sge = 1 } };
	struct tp_opts o;

	memset(&F, 0, sizeof(F));
	tp_default_opts(&o, RL_QPT_RC);
	tp_setup(&F.t, &o);
	F.srq = rl_create_srq(F.t.end[1].pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(F.srq);
	for (int i = 0; i < NQP; i++) {
		F.a[i] = sq_qp(0, NULL);
		F.b[i] = sq_qp(1, F.srq);
		CU_ASSERT_PTR_NOT_NULL_FATAL(F.a[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(F.b[i]);
		sq_connect(F.a[i], F.b[i], 0x3000 + 0x1000 * (uint32_t)i);
	}
}

static int sq_post_srq(uint32_t slot, uint64_t wr_id)
{
	struct rl_recv_wr wr = { .wr_id = wr_id, .num_sge = 1 };

	wr.sg_list[0] = (struct rl_sge){ F.t.end[1].iova + RBUF * slot, RBUF, rl_mr_lkey(F.t.end[1].mr) };
	return rl_post_srq_recv(F.srq, &wr);
}

/* A SEND of MSG bytes (message @m's data) on A's QP @q. */
static void sq_send(int q, uint32_t m)
{
	struct rl_send_wr wr;

	rl_pair_send_wr(&F.t.pair, 0, RL_WR_SEND, SBUF_OFF + MSG * m, MSG, 0, 1000 + m, &wr);
	tp_fill(&F.t, 0, SBUF_OFF + MSG * m, MSG, m + 1);
	CU_ASSERT_EQUAL_FATAL(rl_post_send(F.a[q], &wr), 0);
}

static int sq_index_of_b(uint32_t qpn)
{
	for (int i = 0; i < NQP; i++)
		if (rl_qp_num(F.b[i]) == qpn)
			return i;
	return -1;
}

/* Drain A's CQ: every SEND must have succeeded. */
static void sq_sends_ok(unsigned want)
{
	struct rl_wc wc;
	unsigned n = 0;

	while (tp_poll(&F.t, 0, &wc)) {
		CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
		n++;
	}
	CU_ASSERT_EQUAL(n, want);
}

/* Messages on QPs 2, 0, 1, 0 land in the SRQ's WQEs in posting order, each on its own QP's completion. */
static void test_srq_shared_in_order(void)
{
	static const int order[] = { 2, 0, 1, 0 };
	struct rl_wc wc;

	sq_setup(SRQ_WR);
	for (uint32_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(sq_post_srq(i, 500 + i), 0);
	CU_ASSERT_EQUAL(rl_srq_pending(F.srq), 4);
	for (uint32_t m = 0; m < 4; m++) {
		sq_send(order[m], m);
		tp_run(&F.t, 1000000);
		CU_ASSERT_TRUE_FATAL(tp_poll(&F.t, 1, &wc));
		CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.opcode, RL_WC_RECV);
		CU_ASSERT_EQUAL(wc.wr_id, 500 + m);                     /* the oldest WQE of the SRQ */
		CU_ASSERT_EQUAL(wc.byte_len, MSG);
		CU_ASSERT_EQUAL(sq_index_of_b(wc.qp_num), order[m]);    /* the QP the message came in on */
		CU_ASSERT_EQUAL(memcmp(F.t.end[1].mem + RBUF * m, F.t.end[0].mem + SBUF_OFF + MSG * m, MSG), 0);
	}
	CU_ASSERT_FALSE(tp_poll(&F.t, 1, &wc));
	sq_sends_ok(4);
	CU_ASSERT_EQUAL(rl_srq_pending(F.srq), 0);
	tp_teardown(&F.t);
}

/* IBA 9.7.7.2.4: the ACKs of a QP with an SRQ carry the credit code 11111b, no credits counted. */
static void test_srq_acks_advertise_no_credits(void)
{
	unsigned acks = 0;

	sq_setup(SRQ_WR);
	CU_ASSERT_EQUAL(sq_post_srq(0, 1), 0);
	CU_ASSERT_EQUAL(sq_post_srq(1, 2), 0);
	sq_send(1, 0);
	tp_run(&F.t, 1000000);
	for (uint64_t i = 0; i < F.t.frames; i++)
		if (F.t.from[i] == 1 && F.t.syndromes[i] != 0xff && rl_syndrome_type(F.t.syndromes[i]) == RL_AETH_ACK) {
			acks++;
			CU_ASSERT_EQUAL(rl_syndrome_value(F.t.syndromes[i]), RL_AETH_CREDITS_INVALID);
		}
	CU_ASSERT_EQUAL(acks, 1);
	tp_teardown(&F.t);
}

/* IBA 9.7.5.2.8: an empty SRQ is an RNR NAK on whichever QP the SEND came in; a posted WQE lets the retry in. */
static void test_srq_empty_rnr_then_recovery(void)
{
	struct rl_wc wc;

	sq_setup(SRQ_WR);
	CU_ASSERT_EQUAL(sq_post_srq(0, 7), 0);
	sq_send(0, 0);                 /* takes the one WQE */
	tp_run(&F.t, 1000000);
	sq_send(2, 1);                 /* finds the SRQ dry */
	tp_run(&F.t, 5000);
	CU_ASSERT_EQUAL(tp_count_syndrome_type(&F.t, 1, RL_AETH_RNR_NAK), 1);
	CU_ASSERT_EQUAL(F.t.ev_count[RL_EV_RNR_WAIT], 1);
	CU_ASSERT_EQUAL(F.t.last_ev[RL_EV_RNR_WAIT].qpn, rl_qp_num(F.a[2]));
	CU_ASSERT_TRUE_FATAL(tp_poll(&F.t, 1, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 7);
	CU_ASSERT_EQUAL(sq_index_of_b(wc.qp_num), 0);
	CU_ASSERT_FALSE(tp_poll(&F.t, 1, &wc));
	CU_ASSERT_EQUAL(sq_post_srq(1, 8), 0);
	tp_run(&F.t, 1000000000);
	CU_ASSERT_TRUE_FATAL(tp_poll(&F.t, 1, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 8);
	CU_ASSERT_EQUAL(sq_index_of_b(wc.qp_num), 2);
	CU_ASSERT_EQUAL(memcmp(F.t.end[1].mem + RBUF, F.t.end[0].mem + SBUF_OFF + MSG, MSG), 0);
	sq_sends_ok(2);
	CU_ASSERT_EQUAL(rl_qp_state(F.a[2]), RL_QPS_RTS);
	tp_teardown(&F.t);
}

/* IBA 11.6.3: the limit event fires once when fewer WQEs than the limit are left, then again only when re-armed. */
static void test_srq_limit_once_and_rearm(void)
{
	struct rl_srq_attr a = { .srq_limit = 3 };
	struct rl_async_event ev;

	sq_setup(SRQ_WR);
	for (uint32_t i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(sq_post_srq(i, i), 0);
	CU_ASSERT_EQUAL(rl_modify_srq(F.srq, &a, RL_SRQ_LIMIT), 0);
	CU_ASSERT_EQUAL(rl_query_srq(F.srq, &a), 0);
	CU_ASSERT_EQUAL(a.srq_limit, 3);
	CU_ASSERT_EQUAL(a.max_wr, SRQ_WR);
	sq_send(0, 0);
	sq_send(1, 1);                        /* 3 left: not fewer than 3 */
	tp_run(&F.t, 1000000);
	CU_ASSERT_EQUAL(rl_get_async_event(F.t.end[1].host, &ev), -EAGAIN);
	sq_send(2, 2);                        /* 2 left: the event */
	tp_run(&F.t, 1000000);
	CU_ASSERT_EQUAL_FATAL(rl_get_async_event(F.t.end[1].host, &ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, RL_EVENT_SRQ_LIMIT_REACHED);
	CU_ASSERT_PTR_EQUAL(ev.element.srq, F.srq);
	CU_ASSERT_STRING_EQUAL(rl_async_event_name(ev.event_type), "SRQ limit reached");
	CU_ASSERT_EQUAL(F.t.ev_count[RL_EV_SRQ_LIMIT], 1);
	CU_ASSERT_EQUAL(F.t.last_ev[RL_EV_SRQ_LIMIT].value, 2);
	CU_ASSERT_EQUAL(F.t.last_ev[RL_EV_SRQ_LIMIT].qpn, rl_qp_num(F.b[2]));
	CU_ASSERT_EQUAL(rl_query_srq(F.srq, &a), 0);
	CU_ASSERT_EQUAL(a.srq_limit, 0);      /* disarmed by the event */
	sq_send(0, 3);                        /* 1 left: no second event */
	tp_run(&F.t, 1000000);
	CU_ASSERT_EQUAL(rl_get_async_event(F.t.end[1].host, &ev), -EAGAIN);
	CU_ASSERT_EQUAL(F.t.ev_count[RL_EV_SRQ_LIMIT], 1);
	/* Re-armed at 2 with 1 + 3 posted: the event again once 1 is left. */
	for (uint32_t i = 5; i < 8; i++)
		CU_ASSERT_EQUAL(sq_post_srq(i, i), 0);
	a.srq_limit = 2;
	CU_ASSERT_EQUAL(rl_modify_srq(F.srq, &a, RL_SRQ_LIMIT), 0);
	sq_send(1, 4);
	sq_send(2, 5);                        /* 3, then 2 left */
	tp_run(&F.t, 1000000);
	CU_ASSERT_EQUAL(rl_get_async_event(F.t.end[1].host, &ev), -EAGAIN);
	sq_send(0, 6);                        /* 1 left */
	tp_run(&F.t, 1000000);
	CU_ASSERT_EQUAL(rl_get_async_event(F.t.end[1].host, &ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, RL_EVENT_SRQ_LIMIT_REACHED);
	CU_ASSERT_EQUAL(rl_get_async_event(F.t.end[1].host, &ev), -EAGAIN);
	CU_ASSERT_EQUAL(F.t.ev_count[RL_EV_SRQ_LIMIT], 2);
	sq_sends_ok(7);
	tp_teardown(&F.t);
}

/* One QP in error flushes the WQE it had, not the SRQ's: the others go on receiving. */
static void test_srq_qp_error_keeps_srq(void)
{
	struct rl_qp_attr a = { .qp_state = RL_QPS_ERR };
	struct rl_wc wc;

	sq_setup(SRQ_WR);
	for (uint32_t i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(sq_post_srq(i, 40 + i), 0);
	CU_ASSERT_EQUAL(rl_modify_qp(F.b[0], &a, RL_QP_STATE), 0);
	CU_ASSERT_FALSE(tp_poll(&F.t, 1, &wc));       /* nothing of the SRQ flushed */
	CU_ASSERT_EQUAL(rl_srq_pending(F.srq), 3);
	sq_send(1, 0);
	tp_run(&F.t, 1000000);
	CU_ASSERT_TRUE_FATAL(tp_poll(&F.t, 1, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 40);
	CU_ASSERT_EQUAL(sq_index_of_b(wc.qp_num), 1);
	tp_teardown(&F.t);
}

/* What libibverbs refuses: a full SRQ, too many SGEs, post_recv on an SRQ's QP, bad attributes, destroy in use. */
static void test_srq_errors(void)
{
	struct rl_srq_init_attr bad = { .attr = { .max_wr = 0 } };
	struct rl_srq_attr a;
	struct rl_recv_wr wr = { .wr_id = 1, .num_sge = 2 };

	sq_setup(4);
	CU_ASSERT_PTR_NULL(rl_create_srq(F.t.end[1].pd, &bad));
	bad.attr.max_wr = 4;
	bad.attr.max_sge = RL_MAX_SGE + 1;
	CU_ASSERT_PTR_NULL(rl_create_srq(F.t.end[1].pd, &bad));
	for (uint32_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(sq_post_srq(i, i), 0);
	CU_ASSERT_EQUAL(sq_post_srq(4, 4), -ENOMEM);            /* max_wr posted already */
	CU_ASSERT_EQUAL(rl_post_srq_recv(F.srq, &wr), -EINVAL); /* max_sge is 1 */
	wr.num_sge = 1;
	CU_ASSERT_EQUAL(rl_post_recv(F.b[0], &wr), -EINVAL);    /* its receives come from the SRQ */
	a.srq_limit = 5;
	CU_ASSERT_EQUAL(rl_modify_srq(F.srq, &a, RL_SRQ_LIMIT), -EINVAL);
	a.max_wr = 3;
	CU_ASSERT_EQUAL(rl_modify_srq(F.srq, &a, RL_SRQ_MAX_WR), -EINVAL);   /* 4 are posted */
	{
		struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .srq = F.srq };

		ia.send_cq = ia.recv_cq = F.t.end[0].cq;   /* A's QP with B's SRQ */
		CU_ASSERT_PTR_NULL(rl_create_qp(F.t.end[0].pd, &ia));
		ia.qp_type = RL_QPT_GSI;
		ia.send_cq = ia.recv_cq = F.t.end[1].cq;
		CU_ASSERT_PTR_NULL(rl_create_qp(F.t.end[1].pd, &ia));
	}
	CU_ASSERT_EQUAL(rl_destroy_srq(F.srq), -EBUSY);
	for (int i = 0; i < NQP; i++)
		CU_ASSERT_EQUAL(rl_destroy_qp(F.b[i]), 0);
	CU_ASSERT_EQUAL(rl_destroy_srq(F.srq), 0);
	tp_teardown(&F.t);
}

/* RL_SRQ_MAX_WR grows the queue and keeps the WQEs posted, in their order. */
static void test_srq_resize_keeps_order(void)
{
	struct rl_srq_attr a = { .max_wr = 6 };
	struct rl_wc wc;

	sq_setup(3);
	CU_ASSERT_EQUAL(sq_post_srq(0, 10), 0);
	CU_ASSERT_EQUAL(sq_post_srq(1, 11), 0);
	sq_send(0, 0);                          /* the ring's head moves: 11 is at index 1 */
	tp_run(&F.t, 1000000);
	CU_ASSERT_EQUAL(sq_post_srq(2, 12), 0);
	CU_ASSERT_EQUAL(sq_post_srq(3, 13), 0);
	CU_ASSERT_EQUAL(sq_post_srq(4, 14), -ENOMEM);
	CU_ASSERT_EQUAL(rl_modify_srq(F.srq, &a, RL_SRQ_MAX_WR), 0);
	CU_ASSERT_EQUAL(sq_post_srq(4, 14), 0);
	CU_ASSERT_EQUAL(rl_srq_pending(F.srq), 4);
	for (uint32_t m = 1; m < 5; m++)
		sq_send((int)m % NQP, m);
	tp_run(&F.t, 1000000);
	for (uint64_t want = 10; want <= 14; want++) {
		CU_ASSERT_TRUE_FATAL(tp_poll(&F.t, 1, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, want);
	}
	sq_sends_ok(5);
	tp_teardown(&F.t);
}

/* An event still queued when its SRQ is destroyed names no SRQ: nothing points at freed memory. */
static void test_srq_event_outlives_srq(void)
{
	struct rl_srq_attr a = { .srq_limit = 1 };
	struct rl_async_event ev;

	sq_setup(SRQ_WR);
	CU_ASSERT_STRING_EQUAL(rl_event_name(RL_EV_SRQ_LIMIT), "srq-limit");
	CU_ASSERT_EQUAL(sq_post_srq(0, 1), 0);
	CU_ASSERT_EQUAL(rl_modify_srq(F.srq, &a, RL_SRQ_LIMIT), 0);
	sq_send(0, 0);
	tp_run(&F.t, 1000000);
	for (int i = 0; i < NQP; i++)
		CU_ASSERT_EQUAL(rl_destroy_qp(F.b[i]), 0);
	CU_ASSERT_EQUAL(rl_destroy_srq(F.srq), 0);
	CU_ASSERT_EQUAL_FATAL(rl_get_async_event(F.t.end[1].host, &ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, RL_EVENT_SRQ_LIMIT_REACHED);
	CU_ASSERT_PTR_NULL(ev.element.srq);
	tp_teardown(&F.t);
}

int tl_suite_srq(void)
{
	CU_pSuite s = CU_add_suite("srq", NULL, NULL);

	return !s || !CU_add_test(s, "several QPs share one SRQ, WQEs taken in order", test_srq_shared_in_order) ||
	       !CU_add_test(s, "ACKs of an SRQ's QP advertise no credits", test_srq_acks_advertise_no_credits) ||
	       !CU_add_test(s, "empty SRQ: RNR NAK, then recovery after posting", test_srq_empty_rnr_then_recovery) ||
	       !CU_add_test(s, "limit event once, re-armed by modify_srq", test_srq_limit_once_and_rearm) ||
	       !CU_add_test(s, "a QP in error leaves the SRQ to the others", test_srq_qp_error_keeps_srq) ||
	       !CU_add_test(s, "errors: full, max_sge, post_recv, attributes, EBUSY", test_srq_errors) ||
	       !CU_add_test(s, "resize keeps the WQEs in order", test_srq_resize_keeps_order) ||
	       !CU_add_test(s, "a queued event outlives its SRQ", test_srq_event_outlives_srq);
}
