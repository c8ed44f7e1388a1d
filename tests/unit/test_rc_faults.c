/* SPDX-License-Identifier: MIT */
/*
 * RC under faults, each crafted on purpose: a lost request, a lost ACK, a
 * lost READ response, a duplicate, a corrupted packet, RNR, NAKs of every
 * kind, retries running out, PSN wrap-around. The story each one tells on
 * the wire is asserted packet by packet.
 */
#include <string.h>

#include "tp.h"

static struct tp_pair T;
static uint64_t drop_n[8];        /* frame numbers to drop */
static int drop_from = -1;        /* drop everything from this end */
static uint64_t dup_n, corrupt_n;

static bool fault_filter(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	if (from == drop_from)
		return false;
	for (int i = 0; i < 8; i++)
		if (drop_n[i] == n)
			return false;
	if (n == dup_n)
		tp_inject(t, !from, frame, len);
	if (n == corrupt_n)
		frame[len - 6] ^= 0x10;   /* in the payload: only the ICRC can tell */
	return true;
}

static void setup(const struct tp_opts *o)
{
	struct tp_opts d;

	if (!o) {
		tp_default_opts(&d, RL_QPT_RC);
		o = &d;
	}
	memset(drop_n, 0, sizeof(drop_n));
	drop_from = -1;
	dup_n = corrupt_n = 0;
	tp_setup(&T, o);
	T.filter = fault_filter;
}

static struct rl_wc wc_of(int e)
{
	struct rl_wc wc;

	memset(&wc, 0xee, sizeof(wc));
	CU_ASSERT_TRUE(tp_poll(&T, e, &wc));
	return wc;
}

static uint8_t op(const char *name)
{
	return (uint8_t)rl_opcode_by_name(name);
}

/* Frame 2 (SEND Middle) is lost: one PSN sequence NAK, go back N, data intact. */
static void test_request_loss_psn_nak(void)
{
	struct rl_qp_stats st;

	setup(NULL);
	drop_n[0] = 2;
	tp_fill(&T, 0, 0, 3000, 9);
	tp_post_recv(&T, 1, 0, 4096, 7);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 3000, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc_of(1).status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem, T.end[0].mem, 3000), 0);
	/* Wire: First(0x1000) Middle(0x1001, lost) Last(0x1002) NAK(0x1001) Middle Last ACK */
	CU_ASSERT_EQUAL(tp_count_syndrome_type(&T, 1, RL_AETH_NAK), 1);
	CU_ASSERT_EQUAL(T.opcodes[3], op("RC Acknowledge"));
	CU_ASSERT_EQUAL(rl_syndrome_type(T.syndromes[3]), RL_AETH_NAK);
	CU_ASSERT_EQUAL(rl_syndrome_value(T.syndromes[3]), RL_NAK_PSN_SEQ_ERR);
	CU_ASSERT_EQUAL(T.psns[3], 0x1001);          /* the PSN the responder expects */
	CU_ASSERT_EQUAL(T.psns[4], 0x1001);          /* resent from there */
	CU_ASSERT_EQUAL(T.opcodes[4], op("RC SEND Middle"));
	CU_ASSERT_EQUAL(T.psns[5], 0x1002);
	rl_qp_stats(T.end[0].qp, &st);
	CU_ASSERT_EQUAL(st.seq_naks_recv, 1);
	CU_ASSERT_EQUAL(st.timeouts, 0);
	tp_teardown(&T);
}

/* The ACK is lost: the requester times out and resends; the responder sees a duplicate and ACKs again. */
static void test_lost_ack_timeout(void)
{
	struct rl_qp_stats a, b;

	setup(NULL);
	drop_n[0] = 2;
	tp_fill(&T, 0, 0, 100, 1);
	tp_post_send(&T, 0, RL_WR_RDMA_WRITE, 0, 100, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);
	rl_qp_stats(T.end[0].qp, &a);
	rl_qp_stats(T.end[1].qp, &b);
	CU_ASSERT_EQUAL(a.timeouts, 1);
	CU_ASSERT_EQUAL(b.dup_requests, 1);
	CU_ASSERT_EQUAL(T.frames, 4);
	CU_ASSERT_EQUAL(T.psns[2], T.psns[0]);      /* the same PSN again */
	CU_ASSERT_EQUAL(T.ev_count[RL_EV_TIMER_FIRED], 1);
	tp_teardown(&T);
}

/* A READ response Middle is lost: the requester asks again for the missing part only. */
static void test_lost_read_response(void)
{
	setup(NULL);
	drop_n[0] = 3;   /* 1 READ req, 2 response First, 3 response Middle (lost) */
	tp_fill(&T, 1, 0, 4000, 5);
	tp_post_send(&T, 0, RL_WR_RDMA_READ, 8192, 4000, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(T.end[0].mem + 8192, T.end[1].mem, 4000), 0);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 0, op("RC RDMA READ Request")), 2);
	/* The second request starts at the PSN of the lost packet. */
	for (uint64_t i = 5; i < T.frames; i++)
		if (T.opcodes[i] == op("RC RDMA READ Request")) {
			CU_ASSERT_EQUAL(T.psns[i], 0x1001);
		}
	tp_teardown(&T);
}

/* A duplicated SEND packet is acknowledged again but delivered once. */
static void test_duplicate_request(void)
{
	struct rl_qp_stats b;
	struct rl_wc wc;

	setup(NULL);
	dup_n = 1;
	tp_post_recv(&T, 1, 0, 1000, 7);
	tp_post_recv(&T, 1, 1000, 1000, 8);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 64, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc_of(1).wr_id, 7);
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));      /* receive 8 untouched */
	rl_qp_stats(T.end[1].qp, &b);
	CU_ASSERT_EQUAL(b.dup_requests, 1);
	tp_teardown(&T);
}

/* A duplicated atomic (its ACK lost) is answered from the replay cache: added once. */
static void test_duplicate_atomic_executes_once(void)
{
	struct rl_send_wr wr;
	uint64_t v = 100, got;

	setup(NULL);
	drop_n[0] = 2;                              /* the ATOMIC Acknowledge */
	memcpy(T.end[1].mem + 64, &v, 8);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = RL_WR_ATOMIC_FETCH_AND_ADD;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(T.end[0].mr), 8, rl_mr_lkey(T.end[0].mr) };
	wr.atomic.remote_addr = rl_mr_iova(T.end[1].mr) + 64;
	wr.atomic.rkey = rl_mr_rkey(T.end[1].mr);
	wr.atomic.compare_add = 5;
	CU_ASSERT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);
	memcpy(&got, T.end[1].mem + 64, 8);
	CU_ASSERT_EQUAL(got, 105);
	memcpy(&got, T.end[0].mem, 8);
	CU_ASSERT_EQUAL(got, 100);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 0, op("RC FetchAdd")), 2);
	tp_teardown(&T);
}

/* A bit flip in the payload: the receiver's ICRC check drops it, and go-back-N repairs it. */
static void test_corrupted_packet_dropped_by_icrc(void)
{
	struct rl_qp_stats b;

	setup(NULL);
	corrupt_n = 1;
	tp_fill(&T, 0, 0, 2048, 3);
	tp_post_recv(&T, 1, 0, 4096, 7);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 2048, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc_of(1).status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem, T.end[0].mem, 2048), 0);
	rl_qp_stats(T.end[1].qp, &b);
	CU_ASSERT_EQUAL(b.icrc_drops, 1);
	CU_ASSERT_EQUAL(tp_count_syndrome_type(&T, 1, RL_AETH_NAK), 1);   /* the Last arrived out of order */
	tp_teardown(&T);
}

/* No receive posted: RNR NAK with the responder's timer; after the wait the SEND goes through. */
static void test_rnr_then_success(void)
{
	struct rl_wc wc;

	setup(NULL);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 64, 0, 1);
	tp_run(&T, 5000);                            /* just long enough for one RNR NAK */
	CU_ASSERT_EQUAL(tp_count_syndrome_type(&T, 1, RL_AETH_RNR_NAK), 1);
	CU_ASSERT_EQUAL(rl_syndrome_value(T.syndromes[1]), 1);   /* min_rnr_timer 1: 10 us */
	CU_ASSERT_EQUAL(T.ev_count[RL_EV_RNR_WAIT], 1);
	CU_ASSERT_FALSE(tp_poll(&T, 0, &wc));
	tp_post_recv(&T, 1, 0, 1000, 7);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc_of(1).status, RL_WC_SUCCESS);
	tp_teardown(&T);
}

static void test_rnr_retry_exceeded(void)
{
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_RC);
	o.rnr_retry = 2;
	setup(&o);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 64, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_RNR_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(tp_count_syndrome_type(&T, 1, RL_AETH_RNR_NAK), 3);   /* first try + 2 retries */
	CU_ASSERT_EQUAL(rl_qp_state(T.end[0].qp), RL_QPS_ERR);
	tp_teardown(&T);
}

/* The classic mistake: a wrong rkey. NAK remote access error, both QPs to ERR, the rest flushed. */
static void test_remote_access_error_bad_rkey(void)
{
	struct rl_send_wr wr;

	setup(NULL);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = RL_WR_RDMA_WRITE;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(T.end[0].mr), 64, rl_mr_lkey(T.end[0].mr) };
	wr.rdma.remote_addr = rl_mr_iova(T.end[1].mr);
	wr.rdma.rkey = rl_mr_rkey(T.end[1].mr) + 1;
	CU_ASSERT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 64, 0, 2);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(tp_count_syndrome_type(&T, 1, RL_AETH_NAK), 1);
	for (uint64_t i = 0; i < T.frames; i++)
		if (T.syndromes[i] != 0xff)
			CU_ASSERT_EQUAL(rl_syndrome_value(T.syndromes[i]), RL_NAK_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(rl_qp_state(T.end[0].qp), RL_QPS_ERR);
	CU_ASSERT_EQUAL(rl_qp_state(T.end[1].qp), RL_QPS_ERR);
	tp_teardown(&T);
}

/*
 * issue 22 D11: a zero-length READ or WRITE touches no memory, so its R_Key and
 * VA are not checked (IBA C9-88; rxe executes them): it succeeds, with an ACK
 * or an empty READ response, not a NAK that puts a real requester's QP in error.
 */
static void test_zero_length_ignores_rkey(void)
{
	static const enum rl_wr_opcode ops[] = { RL_WR_RDMA_WRITE, RL_WR_RDMA_READ, RL_WR_RDMA_WRITE_WITH_IMM };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct rl_send_wr wr;
		struct rl_wc wc;

		setup(NULL);
		tp_post_recv(&T, 1, 0, 64, 8);                      /* for the immediate, and the SEND */
		tp_post_recv(&T, 1, 64, 64, 9);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1;
		wr.opcode = ops[i];
		wr.send_flags = RL_SEND_SIGNALED;
		wr.num_sge = 0;                                     /* zero bytes */
		wr.rdma.remote_addr = 0xdead0000;                   /* in no region */
		wr.rdma.rkey = rl_mr_rkey(T.end[1].mr) + 1;         /* no such key */
		CU_ASSERT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
		tp_post_send(&T, 0, RL_WR_SEND, 0, 64, 0, 2);
		tp_run(&T, 1000000000);
		wc = wc_of(0);
		CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.wr_id, 1);
		CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);
		CU_ASSERT_EQUAL(tp_count_syndrome_type(&T, 1, RL_AETH_NAK), 0);
		CU_ASSERT_EQUAL(rl_qp_state(T.end[0].qp), RL_QPS_RTS);
		CU_ASSERT_EQUAL(rl_qp_state(T.end[1].qp), RL_QPS_RTS);
		tp_teardown(&T);
	}
}

static void test_remote_access_error_out_of_range(void)
{
	setup(NULL);
	tp_post_send(&T, 0, RL_WR_RDMA_READ, 0, 4096, TP_MEM - 100, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_REM_ACCESS_ERR);
	tp_teardown(&T);
}

/* The responder's QP does not allow remote READ: NAK invalid request. */
static void test_invalid_request_access_flags(void)
{
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_RC);
	o.access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE;
	setup(&o);
	tp_post_send(&T, 0, RL_WR_RDMA_READ, 0, 64, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL(rl_syndrome_value(T.syndromes[1]), RL_NAK_INVALID_REQ);
	tp_teardown(&T);
}

/* A SEND longer than the receive buffer: the requester sees invalid request, the responder a length error. */
static void test_send_too_long(void)
{
	setup(NULL);
	tp_post_recv(&T, 1, 0, 100, 7);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 200, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL(wc_of(1).status, RL_WC_LOC_LEN_ERR);
	tp_teardown(&T);
}

/* Every packet from A is lost: retry_cnt retries after the first try, then retry exceeded. */
static void test_retry_exceeded(void)
{
	struct tp_opts o;
	struct rl_qp_stats a;

	tp_default_opts(&o, RL_QPT_RC);
	o.retry_cnt = 3;
	setup(&o);
	drop_from = 0;
	tp_post_send(&T, 0, RL_WR_RDMA_WRITE, 0, 64, 0, 1);
	tp_post_send(&T, 0, RL_WR_RDMA_WRITE, 0, 64, 0, 2);
	tp_run(&T, 10000000000ull);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_WR_FLUSH_ERR);
	rl_qp_stats(T.end[0].qp, &a);
	CU_ASSERT_EQUAL(a.timeouts, 4);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 0, op("RC RDMA WRITE Only")), 8);   /* 2 WRITEs x 4 tries */
	tp_teardown(&T);
}

/* A message that crosses PSN 0xffffff -> 0 (IBA 9.7.2: PSNs are 24-bit and wrap). */
static void test_psn_wraparound(void)
{
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_RC);
	o.psn_a = 0xfffffe;
	setup(&o);
	drop_n[0] = 3;          /* and lose the packet with PSN 0 */
	tp_fill(&T, 0, 0, 5000, 11);
	tp_post_recv(&T, 1, 0, 8192, 7);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 5000, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc_of(1).status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem, T.end[0].mem, 5000), 0);
	CU_ASSERT_EQUAL(T.psns[0], 0xfffffe);
	CU_ASSERT_EQUAL(T.psns[1], 0xffffff);
	CU_ASSERT_EQUAL(T.psns[2], 0);
	CU_ASSERT_EQUAL(T.psns[3], 1);
	tp_teardown(&T);
}

/* A bad lkey in the send SGE: local protection error, the QP goes to ERR. */
static void test_local_protection_error(void)
{
	struct rl_send_wr wr;

	setup(NULL);
	tp_post_recv(&T, 1, 0, 1000, 7);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = RL_WR_SEND;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(T.end[0].mr), 64, 0xdead };
	CU_ASSERT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_LOC_PROT_ERR);
	CU_ASSERT_EQUAL(rl_qp_state(T.end[0].qp), RL_QPS_ERR);
	CU_ASSERT_EQUAL(T.frames, 0);
	tp_teardown(&T);
}

/* The responder cannot write into its own receive buffer: NAK remote operational error. */
static void test_remote_operational_error(void)
{
	struct rl_recv_wr rwr = { .wr_id = 7, .num_sge = 1 };

	setup(NULL);
	rwr.sg_list[0] = (struct rl_sge){ rl_mr_iova(T.end[1].mr), 100, 0xbad };
	CU_ASSERT_EQUAL(rl_post_recv(T.end[1].qp, &rwr), 0);
	tp_post_send(&T, 0, RL_WR_SEND, 0, 64, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_REM_OP_ERR);
	CU_ASSERT_EQUAL(wc_of(1).status, RL_WC_LOC_PROT_ERR);
	CU_ASSERT_EQUAL(rl_syndrome_value(T.syndromes[1]), RL_NAK_REM_OP_ERR);
	tp_teardown(&T);
}

static bool ecn_filter(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	(void)t; (void)len; (void)n;
	if (from == 0) {            /* a switch on the way to B marks Congestion Experienced */
		frame[14 + 1] |= 3;
		rl_put16(frame + 14 + 10, 0);
		rl_put16(frame + 14 + 10, rl_ipv4_checksum(frame + 14, 20));
	}
	return true;
}

/* ECN CE on the requests: B answers with CNPs (BECN set), at most one per 50 us. */
static void test_ecn_marks_make_cnps(void)
{
	struct rl_qp_stats a, b;

	setup(NULL);
	T.filter = ecn_filter;
	tp_fill(&T, 0, 0, 8192, 2);
	tp_post_send(&T, 0, RL_WR_RDMA_WRITE, 0, 8192, 0, 1);
	tp_run(&T, 1000000000);
	CU_ASSERT_EQUAL(wc_of(0).status, RL_WC_SUCCESS);   /* the ICRC masks the TOS byte */
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem, T.end[0].mem, 8192), 0);
	rl_qp_stats(T.end[0].qp, &a);
	rl_qp_stats(T.end[1].qp, &b);
	CU_ASSERT_EQUAL(b.ecn_ce_recv, 8);
	CU_ASSERT_TRUE(b.cnps_sent >= 1 && b.cnps_sent < 8);
	CU_ASSERT_EQUAL(a.cnps_recv, b.cnps_sent);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 1, RL_OP_CNP), b.cnps_sent);
	tp_teardown(&T);
}

int tl_suite_rc_faults(void);
int tl_suite_rc_faults(void)
{
	CU_pSuite s = CU_add_suite("rc-faults", NULL, NULL);

	return !s || !CU_add_test(s, "lost request: one PSN NAK, go back N", test_request_loss_psn_nak) ||
	       !CU_add_test(s, "lost ACK: timeout, resend, duplicate re-ACKed", test_lost_ack_timeout) ||
	       !CU_add_test(s, "lost READ response: ask for the rest", test_lost_read_response) ||
	       !CU_add_test(s, "duplicate SEND delivered once", test_duplicate_request) ||
	       !CU_add_test(s, "duplicate atomic executed once", test_duplicate_atomic_executes_once) ||
	       !CU_add_test(s, "corrupted packet dropped by the ICRC check", test_corrupted_packet_dropped_by_icrc) ||
	       !CU_add_test(s, "RNR NAK, wait, then success", test_rnr_then_success) ||
	       !CU_add_test(s, "RNR retry exceeded", test_rnr_retry_exceeded) ||
	       !CU_add_test(s, "remote access error: wrong rkey", test_remote_access_error_bad_rkey) ||
	       !CU_add_test(s, "remote access error: out of range", test_remote_access_error_out_of_range) ||
	       !CU_add_test(s, "zero-length READ/WRITE: R_Key and VA not checked (C9-88)", test_zero_length_ignores_rkey) ||
	       !CU_add_test(s, "invalid request: READ not allowed", test_invalid_request_access_flags) ||
	       !CU_add_test(s, "SEND longer than the receive buffer", test_send_too_long) ||
	       !CU_add_test(s, "transport retry counter exceeded", test_retry_exceeded) ||
	       !CU_add_test(s, "PSN wrap-around with a loss", test_psn_wraparound) ||
	       !CU_add_test(s, "local protection error", test_local_protection_error) ||
	       !CU_add_test(s, "remote operational error", test_remote_operational_error) ||
	       !CU_add_test(s, "ECN marks make CNPs", test_ecn_marks_make_cnps);
}
