/* SPDX-License-Identifier: MIT */
/* RC operations end to end between two hosts, and the faults the transport must survive. */
#include <stdlib.h>
#include <string.h>

#include "tp.h"

static struct tp_pair T;

static void rc_setup(const struct tp_opts *o)
{
	struct tp_opts d;

	if (!o) {
		tp_default_opts(&d, RL_QPT_RC);
		o = &d;
	}
	tp_setup(&T, o);
}

static void expect_no_wc(int e)
{
	struct rl_wc wc;

	CU_ASSERT_FALSE(tp_poll(&T, e, &wc));
}

static void test_send_one_packet(void)
{
	struct rl_wc wc;

	rc_setup(NULL);
	tp_fill(&T, 0, 0, 100, 1);
	CU_ASSERT_EQUAL(tp_post_recv(&T, 1, 4096, 1000, 7), 0);
	CU_ASSERT_EQUAL(tp_post_send(&T, 0, RL_WR_SEND, 0, 100, 0, 1), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_SEND, 1);
	wc = tp_expect_wc(&T, 1, RL_WC_SUCCESS, RL_WC_RECV, 7);
	CU_ASSERT_EQUAL(wc.byte_len, 100);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 4096, T.end[0].mem, 100), 0);
	/* One request with AckReq, one ACK for it (IBA 9.7.6.1.1). */
	CU_ASSERT_EQUAL(T.frames, 2);
	CU_ASSERT_EQUAL(T.opcodes[0], rl_opcode_by_name("RC SEND Only"));
	CU_ASSERT_EQUAL(T.psns[0], 0x1000);
	CU_ASSERT_EQUAL(T.opcodes[1], rl_opcode_by_name("RC Acknowledge"));
	CU_ASSERT_EQUAL(T.psns[1], 0x1000);
	tp_teardown(&T);
}

static void test_send_segmented_by_mtu(void)
{
	struct rl_wc wc;

	rc_setup(NULL);
	tp_fill(&T, 0, 0, 3000, 2);
	tp_post_recv(&T, 1, 0, 4096, 7);
	tp_post_send(&T, 0, RL_WR_SEND_WITH_IMM, 0, 3000, 0, 1);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_SEND, 1);
	wc = tp_expect_wc(&T, 1, RL_WC_SUCCESS, RL_WC_RECV, 7);
	CU_ASSERT_EQUAL(wc.byte_len, 3000);
	CU_ASSERT_TRUE(wc.wc_flags & RL_WC_WITH_IMM);
	CU_ASSERT_EQUAL(wc.imm_data, 0xabcd0001);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem, T.end[0].mem, 3000), 0);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 0, rl_opcode_by_name("RC SEND First")), 1);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 0, rl_opcode_by_name("RC SEND Middle")), 1);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 0, rl_opcode_by_name("RC SEND Last with Immediate")), 1);
	/* Coalesced: one ACK for three packets, the one that asked. */
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 1, rl_opcode_by_name("RC Acknowledge")), 1);
	tp_teardown(&T);
}

static void test_write_and_write_imm(void)
{
	struct rl_wc wc;

	rc_setup(NULL);
	tp_fill(&T, 0, 0, 5000, 3);
	tp_post_send(&T, 0, RL_WR_RDMA_WRITE, 0, 5000, 8192, 1);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_RDMA_WRITE, 1);
	expect_no_wc(1);   /* a plain WRITE is invisible to the responder's application */
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 8192, T.end[0].mem, 5000), 0);

	tp_post_recv(&T, 1, 0, 16, 9);
	tp_post_send(&T, 0, RL_WR_RDMA_WRITE_WITH_IMM, 0, 2048, 65536, 2);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_RDMA_WRITE, 2);
	wc = tp_expect_wc(&T, 1, RL_WC_SUCCESS, RL_WC_RECV_RDMA_WITH_IMM, 9);
	CU_ASSERT_EQUAL(wc.imm_data, 0xabcd0002);
	CU_ASSERT_EQUAL(wc.byte_len, 2048);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 65536, T.end[0].mem, 2048), 0);
	tp_teardown(&T);
}

static void test_read(void)
{
	rc_setup(NULL);
	tp_fill(&T, 1, 1000, 5000, 4);
	tp_post_send(&T, 0, RL_WR_RDMA_READ, 20000, 5000, 1000, 1);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_RDMA_READ, 1);
	CU_ASSERT_EQUAL(memcmp(T.end[0].mem + 20000, T.end[1].mem + 1000, 5000), 0);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 1, rl_opcode_by_name("RC RDMA READ response First")), 1);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 1, rl_opcode_by_name("RC RDMA READ response Middle")), 3);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 1, rl_opcode_by_name("RC RDMA READ response Last")), 1);
	tp_teardown(&T);
}

static void test_atomics(void)
{
	struct rl_send_wr wr;
	uint64_t v = 41, got;

	rc_setup(NULL);
	memcpy(T.end[1].mem + 64, &v, 8);
	/* tp_post_send leaves compare_add at 0: a Fetch&Add of 0 reads the counter. */
	tp_post_send(&T, 0, RL_WR_ATOMIC_FETCH_AND_ADD, 0, 8, 64, 1);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_FETCH_ADD, 1);
	memcpy(&got, T.end[0].mem, 8);
	CU_ASSERT_EQUAL(got, 41);                 /* the value before */
	memcpy(&got, T.end[1].mem + 64, 8);
	CU_ASSERT_EQUAL(got, 41);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = RL_WR_ATOMIC_CMP_AND_SWP;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(T.end[0].mr) + 8, 8, rl_mr_lkey(T.end[0].mr) };
	wr.atomic.remote_addr = rl_mr_iova(T.end[1].mr) + 64;
	wr.atomic.rkey = rl_mr_rkey(T.end[1].mr);
	wr.atomic.compare_add = 41;
	wr.atomic.swap = 1234;
	CU_ASSERT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
	wr.wr_id = 3;
	wr.opcode = RL_WR_ATOMIC_FETCH_AND_ADD;
	wr.sg_list[0].addr += 8;
	wr.atomic.compare_add = 10;
	CU_ASSERT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_COMP_SWAP, 2);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_FETCH_ADD, 3);
	memcpy(&got, T.end[0].mem + 8, 8);
	CU_ASSERT_EQUAL(got, 41);
	memcpy(&got, T.end[0].mem + 16, 8);
	CU_ASSERT_EQUAL(got, 1234);
	memcpy(&got, T.end[1].mem + 64, 8);
	CU_ASSERT_EQUAL(got, 1244);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 1, rl_opcode_by_name("RC ATOMIC Acknowledge")), 3);
	tp_teardown(&T);
}

/*
 * SEND with Invalidate: the responder retires the named R_Key; a WRITE with
 * that key afterwards fails, and so does one with R_Key 0 (the value a retired
 * region must not answer to).
 */
static void send_with_invalidate_then_write(bool key_zero)
{
	struct rl_send_wr wr;
	struct rl_wc wc;
	uint32_t rkey;

	rc_setup(NULL);
	rkey = rl_mr_rkey(T.end[1].mr);
	tp_post_recv(&T, 1, 0, 100, 7);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = RL_WR_SEND_WITH_INV;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(T.end[0].mr), 32, rl_mr_lkey(T.end[0].mr) };
	CU_ASSERT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_SEND, 1);
	wc = tp_expect_wc(&T, 1, RL_WC_SUCCESS, RL_WC_RECV, 7);
	CU_ASSERT_TRUE(wc.wc_flags & RL_WC_WITH_INV);
	CU_ASSERT_EQUAL(wc.invalidated_rkey, rkey);
	CU_ASSERT_EQUAL(tp_count_opcode(&T, 0, rl_opcode_by_name("RC SEND Only with Invalidate")), 1);

	wr.wr_id = 2;
	wr.opcode = RL_WR_RDMA_WRITE;
	wr.rdma.remote_addr = rl_mr_iova(T.end[1].mr);
	wr.rdma.rkey = key_zero ? 0 : rkey;
	memset(T.end[1].mem, 0xee, 32);
	CU_ASSERT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_REM_ACCESS_ERR, RL_WC_RDMA_WRITE, 2);
	CU_ASSERT_EQUAL(T.end[1].mem[0], 0xee);
	tp_teardown(&T);
}

static void test_send_with_invalidate(void)
{
	send_with_invalidate_then_write(false);
}

static void test_invalidated_key_zero(void)
{
	send_with_invalidate_then_write(true);
}

/* Post a SEND of @len bytes from end 0, IBV_SEND_SIGNALED only if @signaled. */
static void post_send_flags(uint32_t len, uint64_t wr_id, bool signaled)
{
	struct rl_send_wr wr;

	rl_pair_send_wr(&T.pair, 0, RL_WR_SEND, 0, len, 0, wr_id, &wr);
	wr.send_flags = signaled ? RL_SEND_SIGNALED : 0;
	CU_ASSERT_EQUAL(rl_pair_post_send(&T.pair, 0, &wr), 0);
}

/*
 * IBA 11.4.1.1 (and libibverbs without sq_sig_all): a send WR that succeeds
 * unsignaled leaves no completion; the signaled one after it does, and the
 * receiver completes every message.
 */
static void test_unsignaled_success_no_wc(void)
{
	rc_setup(NULL);
	for (uint64_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(tp_post_recv(&T, 1, 4096 + (uint32_t)i * 128, 128, 10 + i), 0);
	for (uint64_t i = 0; i < 4; i++)
		post_send_flags(64, i, i == 3);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_SEND, 3);
	expect_no_wc(0);
	for (uint64_t i = 0; i < 4; i++)
		tp_expect_wc(&T, 1, RL_WC_SUCCESS, RL_WC_RECV, 10 + i);
	tp_teardown(&T);
}

/* An unsignaled WR that fails still completes, and so does every one flushed after it (rxe's do_complete). */
static void test_unsignaled_failure_has_wc(void)
{
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_RC);
	o.rnr_retry = 0;
	rc_setup(&o);
	post_send_flags(64, 1, false);   /* no receive posted: RNR NAK, no retry left */
	post_send_flags(64, 2, false);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_RNR_RETRY_EXC_ERR, RL_WC_SEND, 1);
	tp_expect_wc(&T, 0, RL_WC_WR_FLUSH_ERR, RL_WC_SEND, 2);
	expect_no_wc(0);
	tp_teardown(&T);
}

/* The names libibverbs programs print: the enum's own, at libibverbs' values. */
static void test_wc_status_names(void)
{
	CU_ASSERT_STRING_EQUAL(rl_wc_status_name(RL_WC_SUCCESS), "IBV_WC_SUCCESS");
	CU_ASSERT_STRING_EQUAL(rl_wc_status_name(RL_WC_WR_FLUSH_ERR), "IBV_WC_WR_FLUSH_ERR");
	CU_ASSERT_STRING_EQUAL(rl_wc_status_name(RL_WC_REM_ACCESS_ERR), "IBV_WC_REM_ACCESS_ERR");
	CU_ASSERT_STRING_EQUAL(rl_wc_status_name(RL_WC_RNR_RETRY_EXC_ERR), "IBV_WC_RNR_RETRY_EXC_ERR");
	CU_ASSERT_STRING_EQUAL(rl_wc_status_str(RL_WC_RNR_RETRY_EXC_ERR), "RNR retry counter exceeded");
	CU_ASSERT_STRING_EQUAL(rl_wc_status_name((enum rl_wc_status)3), "IBV_WC_UNKNOWN");
	CU_ASSERT_STRING_EQUAL(rl_wc_status_str((enum rl_wc_status)99), "unknown");
	CU_ASSERT_STRING_EQUAL(rl_wc_opcode_name(RL_WC_RDMA_WRITE), "IBV_WC_RDMA_WRITE");
	CU_ASSERT_STRING_EQUAL(rl_wc_opcode_name(RL_WC_RECV), "IBV_WC_RECV");
}

int tl_suite_rc(void)
{
	CU_pSuite s = CU_add_suite("rc", NULL, NULL);

	return !s || !CU_add_test(s, "SEND in one packet, ACKed", test_send_one_packet) ||
	       !CU_add_test(s, "SEND with immediate segmented by the path MTU", test_send_segmented_by_mtu) ||
	       !CU_add_test(s, "RDMA WRITE and WRITE with immediate", test_write_and_write_imm) ||
	       !CU_add_test(s, "RDMA READ with a segmented response", test_read) ||
	       !CU_add_test(s, "Fetch&Add and Compare&Swap", test_atomics) ||
	       !CU_add_test(s, "SEND with invalidate retires the R_Key", test_send_with_invalidate) ||
	       !CU_add_test(s, "a retired region does not answer to R_Key 0", test_invalidated_key_zero) ||
	       !CU_add_test(s, "unsignaled SENDs that succeed leave no completion", test_unsignaled_success_no_wc) ||
	       !CU_add_test(s, "an unsignaled SEND that fails completes, the rest flushed", test_unsignaled_failure_has_wc) ||
	       !CU_add_test(s, "completion statuses and opcodes by libibverbs' names", test_wc_status_names);
}
