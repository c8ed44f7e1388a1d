/* SPDX-License-Identifier: MIT */
/*
 * QP state machine and attribute checks (IBA 10.3, 11.2.4.2), UD and UC
 * transports, and the event stream.
 */
#include <string.h>

#include "tp.h"

static struct tp_pair T;

static void emit_nothing(void *ctx, const uint8_t *frame, size_t len)
{
	(void)ctx; (void)frame; (void)len;
	CU_FAIL("these tests send nothing");
}

static struct rl_host *new_host(void)
{
	struct rl_host_config cfg = { .mac = { 2, 0, 0, 0, 0, 1 }, .emit = emit_nothing };
	uint8_t ip[4] = { 10, 0, 0, 1 };

	rl_gid_from_ipv4(cfg.gid, ip);
	return rl_host_new(&cfg);
}

/* Transitions and attributes a learner gets wrong, each with a reason. */
static void test_modify_qp_errors(void)
{
	struct rl_host *h = new_host();
	struct rl_pd *pd = rl_alloc_pd(h);
	struct rl_cq *cq = rl_create_cq(h, 16);
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .send_cq = cq, .recv_cq = cq };
	struct rl_qp *qp = rl_create_qp(pd, &ia);
	struct rl_qp_attr a;
	int rtr = RL_QP_STATE | RL_QP_AV | RL_QP_PATH_MTU | RL_QP_DEST_QPN | RL_QP_RQ_PSN |
		  RL_QP_MAX_DEST_RD_ATOMIC | RL_QP_MIN_RNR_TIMER;

	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_EQUAL(rl_qp_num(qp), 0x11);
	memset(&a, 0, sizeof(a));

	a.qp_state = RL_QPS_RTS;
	CU_ASSERT_NOT_EQUAL(rl_modify_qp(qp, &a, RL_QP_STATE), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(h), "RESET -> RTS is not a QP state transition"));

	a.qp_state = RL_QPS_INIT;
	CU_ASSERT_NOT_EQUAL(rl_modify_qp(qp, &a, RL_QP_STATE | RL_QP_PORT | RL_QP_ACCESS_FLAGS), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(h), "pkey index is required"));
	CU_ASSERT_EQUAL(rl_modify_qp(qp, &a, RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_ACCESS_FLAGS), 0);
	CU_ASSERT_EQUAL(rl_qp_state(qp), RL_QPS_INIT);

	a.qp_state = RL_QPS_RTR;
	a.path_mtu = RL_MTU_1024;
	a.max_dest_rd_atomic = 1;
	CU_ASSERT_NOT_EQUAL(rl_modify_qp(qp, &a, rtr), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(h), "RTR needs a destination GID: RoCE has no LIDs"));

	a.ah_attr.dgid[10] = a.ah_attr.dgid[11] = 0xff;
	a.ah_attr.dgid[15] = 2;
	a.path_mtu = RL_MTU_2048;   /* the port is 1024 (rxe on a 1500-byte netdev) */
	CU_ASSERT_NOT_EQUAL(rl_modify_qp(qp, &a, rtr), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(h), "larger than the port's active MTU 1024"));

	a.path_mtu = RL_MTU_1024;
	a.rq_psn = 0x1000000;
	CU_ASSERT_NOT_EQUAL(rl_modify_qp(qp, &a, rtr), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(h), "a PSN has 24 bits"));
	a.rq_psn = 5;
	CU_ASSERT_NOT_EQUAL(rl_modify_qp(qp, &a, rtr | RL_QP_SQ_PSN), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(h), "SQ PSN is not allowed in this transition"));
	CU_ASSERT_EQUAL(rl_modify_qp(qp, &a, rtr), 0);

	a.qp_state = RL_QPS_RTS;
	a.retry_cnt = 8;
	CU_ASSERT_NOT_EQUAL(rl_modify_qp(qp, &a, RL_QP_STATE | RL_QP_SQ_PSN | RL_QP_TIMEOUT | RL_QP_RETRY_CNT |
					     RL_QP_RNR_RETRY | RL_QP_MAX_QP_RD_ATOMIC), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(h), "3-bit fields"));
	a.retry_cnt = 7;
	CU_ASSERT_EQUAL(rl_modify_qp(qp, &a, RL_QP_STATE | RL_QP_SQ_PSN | RL_QP_TIMEOUT | RL_QP_RETRY_CNT |
					 RL_QP_RNR_RETRY | RL_QP_MAX_QP_RD_ATOMIC), 0);
	CU_ASSERT_EQUAL(rl_qp_state(qp), RL_QPS_RTS);

	/* max_rd_atomic 0: READ refused at post time, with the reason. */
	{
		struct rl_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		wr.opcode = RL_WR_RDMA_READ;
		CU_ASSERT_NOT_EQUAL(rl_post_send(qp, &wr), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(h), "max_rd_atomic is 0"));
	}
	/* Any state may go to ERR, and from there to RESET. */
	a.qp_state = RL_QPS_ERR;
	CU_ASSERT_EQUAL(rl_modify_qp(qp, &a, RL_QP_STATE), 0);
	a.qp_state = RL_QPS_RESET;
	CU_ASSERT_EQUAL(rl_modify_qp(qp, &a, RL_QP_STATE), 0);
	CU_ASSERT_EQUAL(rl_qp_state(qp), RL_QPS_RESET);
	CU_ASSERT_NOT_EQUAL(rl_dealloc_pd(pd), 0);     /* still in use */
	rl_host_free(h);
}

static void test_post_errors(void)
{
	struct rl_recv_wr rwr = { .num_sge = 5 };
	struct rl_send_wr wr;
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_UD);
	tp_setup(&T, &o);
	CU_ASSERT_NOT_EQUAL(rl_post_recv(T.end[1].qp, &rwr), 0);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RL_WR_RDMA_WRITE;
	CU_ASSERT_NOT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(T.end[0].host), "a UD QP only SENDs"));
	/* A UD message is one packet: larger than the MTU is refused at post time. */
	CU_ASSERT_NOT_EQUAL(tp_post_send(&T, 0, RL_WR_SEND, 0, 5000, 0, 1), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(T.end[0].host), "more than the path MTU"));
	tp_teardown(&T);
}

/* UD: DETH carries Q_Key and source QP; the receive buffer starts with 40 bytes of GRH. */
static void test_ud_send(void)
{
	struct tp_opts o;
	struct rl_wc wc;

	tp_default_opts(&o, RL_QPT_UD);
	tp_setup(&T, &o);
	tp_fill(&T, 0, 0, 512, 5);
	tp_post_recv(&T, 1, 0, 40 + 512, 7);
	CU_ASSERT_EQUAL(tp_post_send(&T, 0, RL_WR_SEND_WITH_IMM, 0, 512, 0, 1), 0);
	tp_run(&T, 1000000000);
	CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.byte_len, 40 + 512);
	CU_ASSERT_EQUAL(wc.src_qp, rl_qp_num(T.end[0].qp));
	CU_ASSERT_TRUE(wc.wc_flags & RL_WC_GRH);
	CU_ASSERT_TRUE(wc.wc_flags & RL_WC_WITH_IMM);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 40, T.end[0].mem, 512), 0);
	/* RoCEv2 over IPv4: the IPv4 header sits in the last 20 bytes of the GRH area. */
	CU_ASSERT_EQUAL(T.end[1].mem[20], 0x45);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 32, (uint8_t[4]){ 10, 0, 0, 1 }, 4), 0);
	CU_ASSERT_EQUAL(T.frames, 1);   /* no ACK in UD */
	CU_ASSERT_EQUAL(T.opcodes[0], rl_opcode_by_name("UD SEND Only with Immediate"));
	tp_teardown(&T);
}

static void test_ud_qkey_violation(void)
{
	struct tp_opts o;
	struct rl_send_wr wr;
	struct rl_qp_stats st;
	struct rl_wc wc;

	tp_default_opts(&o, RL_QPT_UD);
	tp_setup(&T, &o);
	tp_post_recv(&T, 1, 0, 1000, 7);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RL_WR_SEND;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.ud.remote_qpn = rl_qp_num(T.end[1].qp);
	wr.ud.remote_qkey = 0x22222222;                  /* B's is 0x11111111 */
	memcpy(wr.ud.dgid, T.end[1].gid, 16);
	CU_ASSERT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
	tp_run(&T, 1000000000);
	CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));             /* the sender cannot tell */
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));
	rl_qp_stats(T.end[1].qp, &st);
	CU_ASSERT_EQUAL(st.qkey_violations, 1);
	tp_teardown(&T);
}

static uint16_t seen_sport;

static bool sport_filter(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	(void)t; (void)from; (void)n;
	if (len > 14 + 20 + 2)
		seen_sport = rl_get16(frame + 14 + 20);
	return true;
}

/* What a socket-based driver (rocelab peer) relies on: the port to bind, and completions to wait for. */
static void test_ud_sport_and_pending(void)
{
	struct tp_opts o;
	struct rl_wc wc;
	uint16_t sport;

	tp_default_opts(&o, RL_QPT_UD);
	tp_setup(&T, &o);
	T.filter = sport_filter;
	seen_sport = 0;
	sport = rl_qp_udp_sport(T.end[0].qp);
	CU_ASSERT_TRUE(sport >= 0xc000);
	tp_post_recv(&T, 1, 0, 1000, 7);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 100, 0, 1);
	CU_ASSERT_EQUAL(rl_cq_pending(T.end[0].cq), 0);   /* posting only queues */
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(seen_sport, sport);
	CU_ASSERT_EQUAL(rl_cq_pending(T.end[0].cq), 1);
	CU_ASSERT_EQUAL(rl_cq_pending(T.end[1].cq), 1);
	CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));
	CU_ASSERT_EQUAL(rl_cq_pending(T.end[0].cq), 0);
	tp_teardown(&T);
}

static uint64_t uc_drop;

static bool uc_filter(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	(void)t; (void)from; (void)frame; (void)len;
	return n != uc_drop;
}

/* UC: no ACKs; a lost packet loses its message, the next message arrives whole. */
static void test_uc_loss_loses_message(void)
{
	struct tp_opts o;
	struct rl_wc wc;

	tp_default_opts(&o, RL_QPT_UC);
	tp_setup(&T, &o);
	uc_drop = 2;
	T.filter = uc_filter;
	tp_fill(&T, 0, 0, 8192, 6);
	tp_post_recv(&T, 1, 0, 4096, 7);
	tp_post_recv(&T, 1, 4096, 4096, 8);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 3000, 0, 1);      /* 3 packets, the 2nd lost */
	tp_post_send(&T, 0, RL_WR_SEND, 4096, 3000, 0, 2);
	tp_run(&T, 1000000000);
	CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);            /* UC completes when sent */
	CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 7);                         /* the buffer is reused */
	CU_ASSERT_EQUAL(wc.byte_len, 3000);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem, T.end[0].mem + 4096, 3000), 0);   /* message 2 */
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 1, rl_opcode_by_name("RC Acknowledge")), 0);
	tp_teardown(&T);
}

/*
 * UC: a message too long for its receive buffer fails that buffer (local
 * length error), and the rest of it is dropped: its tail must not land in the
 * next buffer as a message of its own. The next message arrives whole.
 */
static void test_uc_rest_of_failed_message(void)
{
	struct tp_opts o;
	struct rl_wc wc;

	tp_default_opts(&o, RL_QPT_UC);
	tp_setup(&T, &o);
	tp_fill(&T, 0, 0, 8192, 9);
	tp_post_recv(&T, 1, 0, 1500, 7);
	tp_post_recv(&T, 1, 4096, 4096, 8);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 3000, 0, 1);      /* 3 packets at MTU 1024 */
	tp_post_send(&T, 0, RL_WR_SEND, 4096, 1000, 0, 2);
	tp_run(&T, 1000000000);
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 7);
	CU_ASSERT_EQUAL(wc.status, RL_WC_LOC_LEN_ERR);
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 8);
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.byte_len, 1000);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 4096, T.end[0].mem + 4096, 1000), 0);
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));
	tp_teardown(&T);
}

static void test_uc_write(void)
{
	struct tp_opts o;
	struct rl_wc wc;

	tp_default_opts(&o, RL_QPT_UC);
	tp_setup(&T, &o);
	tp_fill(&T, 0, 0, 5000, 8);
	tp_post_recv(&T, 1, 0, 16, 7);
	tp_post_send(&T, 0, RL_WR_RDMA_WRITE_WITH_IMM, 0, 5000, 10000, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.opcode, RL_WC_RECV_RDMA_WITH_IMM);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 10000, T.end[0].mem, 5000), 0);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 0, rl_opcode_by_name("UC RDMA WRITE Last with Immediate")), 1);
	tp_teardown(&T);
}

/* Drop frames by number (1-based, both directions); up to four. */
static uint64_t uc_drops[4];

static bool uc_filter_many(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	(void)t; (void)from; (void)frame; (void)len;
	for (size_t i = 0; i < sizeof(uc_drops) / sizeof(uc_drops[0]); i++)
		if (uc_drops[i] == n)
			return false;
	return true;
}

static void uc_setup_drops(struct tp_opts *o, uint64_t a, uint64_t b)
{
	tp_default_opts(o, RL_QPT_UC);
	tp_setup(&T, o);
	memset(uc_drops, 0, sizeof(uc_drops));
	uc_drops[0] = a;
	uc_drops[1] = b;
	T.filter = uc_filter_many;
}

/*
 * IBA 9.8.3 (UC responder): the middle packet of a 3-packet SEND is lost.
 * Its Last arrives after the gap and is dropped with it: the message is
 * discarded whole, counted once, and no ACK or NAK is ever sent.
 */
static void test_uc_counts_discarded_message(void)
{
	struct tp_opts o;
	struct rl_qp_stats st;
	struct rl_wc wc;

	uc_setup_drops(&o, 2, 0);
	tp_fill(&T, 0, 0, 8192, 11);
	tp_post_recv(&T, 1, 0, 4096, 7);
	tp_post_recv(&T, 1, 4096, 4096, 8);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 3000, 0, 1);
	tp_post_send(&T, 0, RL_WR_SEND, 4096, 3000, 0, 2);
	tp_run(&T, 1000000000);
	rl_qp_stats(T.end[1].qp, &st);
	CU_ASSERT_EQUAL(st.pkts_recv, 5);
	CU_ASSERT_EQUAL(st.msgs_recv, 1);
	CU_ASSERT_EQUAL(st.msgs_discarded, 1);
	CU_ASSERT_EQUAL(st.pkts_discarded, 1);        /* the Last of message 1 */
	CU_ASSERT_EQUAL(st.naks_sent, 0);
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, 3000);
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 1, rl_opcode_by_name("RC Acknowledge")), 0);
	CU_ASSERT_EQUAL(T.frames, 6);                 /* A's six packets, nothing from B */
	tp_teardown(&T);
}

/*
 * IBA 9.8.3: the Last of message 1 is lost; the gap shows only at the First
 * of message 2, which begins a new message. Message 1 is discarded (its
 * receive WQE is filled again by message 2), message 2 arrives whole.
 */
static void test_uc_lost_last_first_after_gap(void)
{
	struct tp_opts o;
	struct rl_qp_stats st;
	struct rl_wc wc;

	uc_setup_drops(&o, 3, 0);
	tp_fill(&T, 0, 0, 8192, 12);
	tp_post_recv(&T, 1, 0, 4096, 7);
	tp_post_recv(&T, 1, 4096, 4096, 8);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 3000, 0, 1);
	tp_post_send(&T, 0, RL_WR_SEND, 4096, 3000, 0, 2);
	tp_run(&T, 1000000000);
	rl_qp_stats(T.end[1].qp, &st);
	CU_ASSERT_EQUAL(st.msgs_recv, 1);
	CU_ASSERT_EQUAL(st.msgs_discarded, 1);
	CU_ASSERT_EQUAL(st.pkts_discarded, 0);        /* nothing after the gap is of message 1 */
	CU_ASSERT_EQUAL(st.out_of_order_drops, 1);
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 7);
	CU_ASSERT_EQUAL(wc.byte_len, 3000);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem, T.end[0].mem + 4096, 3000), 0);
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));
	tp_teardown(&T);
}

/*
 * IBA 9.8.3: the First of message 1 is lost. Its Middle and Last arrive in
 * PSN order after the gap but begin no message: both are dropped, one
 * message discarded. A whole one-packet message lost leaves nothing to see:
 * the responder counts the next one received, no discarded message.
 */
static void test_uc_lost_first_and_lost_only(void)
{
	struct tp_opts o;
	struct rl_qp_stats st;
	struct rl_wc wc;

	uc_setup_drops(&o, 1, 5);
	tp_fill(&T, 0, 0, 8192, 13);
	for (int i = 0; i < 4; i++)
		tp_post_recv(&T, 1, (uint32_t)i * 4096, 4096, 7 + (uint64_t)i);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 3000, 0, 1);     /* frames 1-3 */
	tp_post_send(&T, 0, RL_WR_SEND, 4096, 500, 0, 2);   /* frame 4 */
	tp_post_send(&T, 0, RL_WR_SEND, 4096, 600, 0, 3);   /* frame 5, lost */
	tp_post_send(&T, 0, RL_WR_SEND, 4096, 700, 0, 4);   /* frame 6 */
	tp_run(&T, 1000000000);
	rl_qp_stats(T.end[1].qp, &st);
	CU_ASSERT_EQUAL(st.msgs_recv, 2);
	CU_ASSERT_EQUAL(st.msgs_discarded, 1);
	CU_ASSERT_EQUAL(st.pkts_discarded, 2);
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, 500);
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, 700);
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));
	for (int i = 0; i < 4; i++)                            /* UC: done once sent */
		CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));
	tp_teardown(&T);
}

/*
 * IBA 9.8.3 for RDMA WRITE: a lost Middle ends the WRITE; its Last is not
 * placed (the bytes there keep what they had). The WRITE with immediate
 * that follows lands whole and completes at the receiver.
 */
static void test_uc_write_loss(void)
{
	struct tp_opts o;
	struct rl_qp_stats st;
	struct rl_wc wc;
	uint8_t before[1024];

	uc_setup_drops(&o, 2, 0);
	tp_fill(&T, 0, 0, 8192, 14);
	tp_fill(&T, 1, 0, 16384, 15);
	memcpy(before, T.end[1].mem + 10000 + 2048, sizeof(before));
	tp_post_recv(&T, 1, 0, 16, 7);
	tp_post_send(&T, 0, RL_WR_RDMA_WRITE, 0, 3000, 10000, 1);
	tp_post_send(&T, 0, RL_WR_RDMA_WRITE_WITH_IMM, 4096, 2000, 2000, 2);
	tp_run(&T, 1000000000);
	rl_qp_stats(T.end[1].qp, &st);
	CU_ASSERT_EQUAL(st.msgs_recv, 1);
	CU_ASSERT_EQUAL(st.msgs_discarded, 1);
	CU_ASSERT_EQUAL(st.pkts_discarded, 1);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 10000, T.end[0].mem, 1024), 0);       /* the First was placed */
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 10000 + 2048, before, 952), 0);      /* the Last was not */
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 2000, T.end[0].mem + 4096, 2000), 0);
	CU_ASSERT_TRUE_FATAL(tp_poll(&T, 1, &wc));
	CU_ASSERT_EQUAL(wc.opcode, RL_WC_RECV_RDMA_WITH_IMM);
	CU_ASSERT_EQUAL(wc.byte_len, 2000);
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));
	tp_teardown(&T);
}

/* IBA 9.8.3: UC has no responses, so no RDMA READ and no atomics; post_send refuses them. */
static void test_uc_no_read_or_atomic(void)
{
	static const enum rl_wr_opcode ops[] = { RL_WR_RDMA_READ, RL_WR_ATOMIC_FETCH_AND_ADD, RL_WR_ATOMIC_CMP_AND_SWP };
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_UC);
	tp_setup(&T, &o);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		CU_ASSERT_NOT_EQUAL(tp_post_send(&T, 0, ops[i], 0, 8, 0, 1), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(T.end[0].host), "UC QP has no"));
	}
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(T.frames, 0);
	tp_teardown(&T);
}

/* RoCEv2 over IPv6, and the events a learner can follow. */
static void test_ipv6_and_events(void)
{
	struct tp_opts o;
	struct rl_wc wc;

	tp_default_opts(&o, RL_QPT_RC);
	o.ipv6 = true;
	tp_setup(&T, &o);
	CU_ASSERT_EQUAL(T.ev_count[RL_EV_QP_STATE], 6);     /* INIT, RTR, RTS on each side */
	tp_post_recv(&T, 1, 0, 100, 7);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 100, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(T.ev_count[RL_EV_PSN_CHECK], 1);
	CU_ASSERT_EQUAL(T.last_ev[RL_EV_PSN_CHECK].value, RL_PSN_IN_ORDER);
	CU_ASSERT_EQUAL(T.ev_count[RL_EV_ACK_SENT], 1);
	CU_ASSERT_EQUAL(T.ev_count[RL_EV_COMPLETION], 2);
	CU_ASSERT_EQUAL(T.ev_count[RL_EV_TIMER_ARMED], 1);
	CU_ASSERT_STRING_EQUAL(rl_event_name(RL_EV_NAK_SENT), "nak-sent");
	CU_ASSERT_STRING_EQUAL(rl_wc_status_str(RL_WC_REM_ACCESS_ERR), "remote access error");
	CU_ASSERT_STRING_EQUAL(rl_qp_state_name(RL_QPS_RTS), "RTS");
	tp_teardown(&T);
}

/* An application that says it is busy but posts nothing and asks for no wake-up. */
static bool qp_idle_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	(void)sim;
	(void)now;
	++*(unsigned long *)ctx;
	return true;
}

/* Steps enough to tell a guard from none: 2^24 turns would be taken without one. */
#define QP_IDLE_STEPS (1L << 24)

/*
 * Such an application waits for what nothing will bring: rl_sim_run()
 * gives up with -1 after RL_SIM_IDLE_TURNS turns, on either wire, instead
 * of calling it 2^40 times (gen pingpong once spun so on a QP in error).
 */
static void test_idle_busy_app_is_a_livelock(void)
{
	struct rl_pair_config pc;
	struct rl_pair p;
	struct tp_pair t;
	struct tp_opts o;
	unsigned long turns = 0;

	tp_default_opts(&o, RL_QPT_RC);
	tp_setup(&t, &o);
	CU_ASSERT_EQUAL(rl_pair_run(&t.pair, rl_sim_now(t.pair.sim) + 1000000000ull, QP_IDLE_STEPS, qp_idle_app, &turns),
			-1);
	CU_ASSERT(turns <= RL_SIM_IDLE_TURNS + 1);
	tp_teardown(&t);

	memset(&pc, 0, sizeof(pc));
	pc.sim.kind = RL_SIM_SIMWIRE;
	pc.sim.wire.rate_bps = 25000000000ull;
	for (int i = 0; i < 2; i++) {
		const uint8_t ip[4] = { 10, 0, 0, (uint8_t)(i + 1) };

		pc.sim.host[i].mac[5] = (uint8_t)(i + 1);
		rl_gid_from_ipv4(pc.sim.host[i].gid, ip);
		pc.mem[i] = 4096;
		rl_conn_defaults(&pc.conn[i]);
	}
	pc.type = RL_QPT_RC;
	CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
	turns = 0;
	CU_ASSERT_EQUAL(rl_pair_run(&p, rl_sim_now(p.sim) + 1000000000ull, QP_IDLE_STEPS, qp_idle_app, &turns), -1);
	CU_ASSERT(turns <= RL_SIM_IDLE_TURNS + 1);
	rl_pair_free(&p);
}

int tl_suite_qp(void)
{
	CU_pSuite s = CU_add_suite("qp-ud-uc", NULL, NULL);

	return !s || !CU_add_test(s, "modify_qp refuses with a reason", test_modify_qp_errors) ||
	       !CU_add_test(s, "post_send/post_recv refuse with a reason", test_post_errors) ||
	       !CU_add_test(s, "UD SEND with immediate, GRH area", test_ud_send) ||
	       !CU_add_test(s, "UD Q_Key violation dropped and counted", test_ud_qkey_violation) ||
	       !CU_add_test(s, "UD: the source port in the frames; completions pending", test_ud_sport_and_pending) ||
	       !CU_add_test(s, "UC loss loses the message, the next arrives", test_uc_loss_loses_message) ||
	       !CU_add_test(s, "UC: the rest of a failed message is dropped", test_uc_rest_of_failed_message) ||
	       !CU_add_test(s, "UC RDMA WRITE with immediate", test_uc_write) ||
	       !CU_add_test(s, "UC: a message with a lost Middle is discarded whole, counted", test_uc_counts_discarded_message) ||
	       !CU_add_test(s, "UC: a lost Last shows at the next First, which begins anew", test_uc_lost_last_first_after_gap) ||
	       !CU_add_test(s, "UC: a lost First drops the rest; a lost Only leaves no trace", test_uc_lost_first_and_lost_only) ||
	       !CU_add_test(s, "UC: a WRITE with a lost Middle is not placed further", test_uc_write_loss) ||
	       !CU_add_test(s, "UC: no READ, no atomics", test_uc_no_read_or_atomic) ||
	       !CU_add_test(s, "RoCEv2 over IPv6, events", test_ipv6_and_events) ||
	       !CU_add_test(s, "a busy application with nothing scheduled is a livelock", test_idle_busy_app_is_a_livelock);
}
