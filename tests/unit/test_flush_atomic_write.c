/* SPDX-License-Identifier: MIT */
/*
 * IBA 1.5's FLUSH and ATOMIC WRITE between two hosts, by the rules the Linux
 * rxe driver (6.2+) applies: what goes on the wire, what the responder
 * checks, what it answers (a zero-length RDMA READ response Only), and the
 * completions. Expected wire bytes are typed from the IBA layouts (BTH 9.2,
 * RETH 9.3.3, AETH 9.3.5, FETH of IBA 1.5), not taken from the encoder.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tp.h"

static struct tp_pair T;

/* Every frame that crossed, as it was on the wire; the filter may drop one. */
#define FA_FRAMES 64
static struct {
	int from[FA_FRAMES];
	size_t len[FA_FRAMES];
	uint8_t data[FA_FRAMES][256];
	unsigned n;
	uint64_t drop;                 /* drop the frame with this number (1-based); 0: none */
	uint64_t overwrite_at;         /* when frame @overwrite_at passes, store @overwrite at B's 64 */
	uint64_t overwrite;
} W;

static bool fa_filter(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	if (W.n < FA_FRAMES) {
		W.from[W.n] = from;
		W.len[W.n] = len;
		memcpy(W.data[W.n], frame, len < sizeof(W.data[0]) ? len : sizeof(W.data[0]));
		W.n++;
	}
	if (W.overwrite_at && n == W.overwrite_at)
		memcpy(t->end[1].mem + 64, &W.overwrite, 8);
	return n != W.drop;
}

static void fa_setup(unsigned access, uint8_t max_rd_atomic)
{
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_RC);
	o.access |= access;
	if (max_rd_atomic)
		o.max_rd_atomic = max_rd_atomic;
	memset(&W, 0, sizeof(W));
	tp_setup(&T, &o);
	T.filter = fa_filter;
}

/* The @i-th frame (0-based) decoded; fails the test if it does not decode. */
static struct rl_pkt fa_decode(unsigned i)
{
	struct rl_pkt p;

	memset(&p, 0, sizeof(p));
	CU_ASSERT_FATAL(i < W.n);
	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, W.data[i], W.len[i], &p), RL_OK);
	return p;
}

static unsigned fa_count(int from, uint8_t opcode)
{
	unsigned n = 0;

	for (unsigned i = 0; i < W.n; i++)
		n += W.from[i] == from && W.data[i][42] == opcode;
	return n;
}

static void fa_put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* ATOMIC WRITE of the 8 bytes at A's @local_off to B's iova + @remote_off. */
static int fa_post_atomic_write(uint32_t local_off, uint64_t remote_off, uint32_t rkey, uint64_t wr_id)
{
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = RL_WR_ATOMIC_WRITE;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(T.end[0].mr) + local_off, 8, rl_mr_lkey(T.end[0].mr) };
	wr.rdma.remote_addr = rl_mr_iova(T.end[1].mr) + remote_off;
	wr.rdma.rkey = rkey;
	return rl_post_send(T.end[0].qp, &wr);
}

static int fa_post_flush(uint64_t remote_addr, uint32_t len, uint32_t rkey, uint8_t type, uint8_t level,
			 uint64_t wr_id)
{
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = RL_WR_FLUSH;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.flush.remote_addr = remote_addr;
	wr.flush.rkey = rkey;
	wr.flush.len = len;
	wr.flush.type = type;
	wr.flush.level = level;
	return rl_post_send(T.end[0].qp, &wr);
}

static const uint8_t value[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };

/* The values a libibverbs program uses (rdma-core's verbs.h), typed from there. */
static void test_libibverbs_values(void)
{
	CU_ASSERT_EQUAL(RL_WR_FLUSH, 14);
	CU_ASSERT_EQUAL(RL_WR_ATOMIC_WRITE, 15);
	CU_ASSERT_EQUAL(RL_WC_FLUSH, 8);
	CU_ASSERT_EQUAL(RL_WC_ATOMIC_WRITE, 9);
	CU_ASSERT_EQUAL(RL_ACCESS_FLUSH_GLOBAL, 256);
	CU_ASSERT_EQUAL(RL_ACCESS_FLUSH_PERSISTENT, 512);
	CU_ASSERT_EQUAL(RL_FLUSH_GLOBAL, 1);
	CU_ASSERT_EQUAL(RL_FLUSH_PERSISTENT, 2);
	CU_ASSERT_EQUAL(RL_FLUSH_RANGE, 0);
	CU_ASSERT_EQUAL(RL_FLUSH_MR, 1);
}

/*
 * The request is BTH + RETH (DMA length 8) + the 8 bytes; the answer an RDMA
 * READ response Only with an AETH and nothing else. The bytes land at the
 * address, their neighbours do not move.
 */
static void test_atomic_write_stores_8_bytes(void)
{
	uint8_t want[12 + 16 + 8], resp[12 + 4];
	uint32_t rkey, bqpn, aqpn;
	struct rl_wc wc;
	struct rl_pkt p;

	fa_setup(0, 0);
	rkey = rl_mr_rkey(T.end[1].mr);
	aqpn = rl_qp_num(T.end[0].qp);
	bqpn = rl_qp_num(T.end[1].qp);
	memcpy(T.end[0].mem + 8, value, 8);
	memset(T.end[1].mem + 48, 0xee, 48);
	CU_ASSERT_EQUAL(fa_post_atomic_write(8, 64, rkey, 1), 0);
	tp_run(&T, 1000000000);
	wc = tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_ATOMIC_WRITE, 1);
	CU_ASSERT_EQUAL(wc.byte_len, 8);
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));   /* nothing for the responder's application */
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 64, value, 8), 0);
	for (int i = 48; i < 96; i++)
		if (i < 64 || i >= 72)
			CU_ASSERT_EQUAL(T.end[1].mem[i], 0xee);

	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	/* Ethernet 14 + IPv4 20 + UDP 8: the BTH at 42, the UDP port 4791 at 36. */
	CU_ASSERT_EQUAL(W.from[0], 0);
	CU_ASSERT_EQUAL(W.data[0][36], 0x12);
	CU_ASSERT_EQUAL(W.data[0][37], 0xb7);
	CU_ASSERT_EQUAL(W.len[0], 42 + sizeof(want) + 4);
	memset(want, 0, sizeof(want));
	want[0] = 0x1d;                        /* RC ATOMIC WRITE */
	want[1] = 0x00;                        /* SE 0, M 0, pad 0 (8 bytes), TVer 0 */
	want[2] = 0xff, want[3] = 0xff;        /* default P_Key */
	fa_put_be(want + 5, bqpn, 3);
	want[8] = 0x80;                        /* AckReq */
	fa_put_be(want + 9, 0x1000, 3);
	fa_put_be(want + 12, 0x200000 + 64, 8);  /* RETH VA: B's iova + 64 */
	fa_put_be(want + 20, rkey, 4);
	fa_put_be(want + 24, 8, 4);            /* DMA length */
	memcpy(want + 28, value, 8);
	CU_ASSERT_EQUAL(memcmp(W.data[0] + 42, want, sizeof(want)), 0);
	p = fa_decode(0);
	CU_ASSERT_EQUAL(p.bth.opcode, RL_OP_RC_ATOMIC_WRITE);
	CU_ASSERT_EQUAL(p.reth.dma_len, 8);
	CU_ASSERT_EQUAL(p.payload_len, 8);
	CU_ASSERT_TRUE(p.icrc_ok);

	CU_ASSERT_EQUAL(W.from[1], 1);
	CU_ASSERT_EQUAL(W.len[1], 42 + sizeof(resp) + 4);
	memset(resp, 0, sizeof(resp));
	resp[0] = 0x10;                        /* RC RDMA READ response Only */
	resp[2] = 0xff, resp[3] = 0xff;
	fa_put_be(resp + 5, aqpn, 3);
	fa_put_be(resp + 9, 0x1000, 3);        /* the request's PSN */
	resp[12] = 0x00;                       /* AETH: ACK, no receive WQEs posted */
	fa_put_be(resp + 13, 1, 3);            /* MSN: the first message */
	CU_ASSERT_EQUAL(memcmp(W.data[1] + 42, resp, sizeof(resp)), 0);
	tp_teardown(&T);
}

/* A bad R_Key is a remote access error, NAKed as for WRITE (IBA 9.7.5.2.4; rxe: RKEY_VIOLATION). */
static void test_atomic_write_bad_rkey(void)
{
	struct rl_pkt p;

	fa_setup(0, 0);
	memcpy(T.end[0].mem, value, 8);
	memset(T.end[1].mem + 64, 0xee, 8);
	CU_ASSERT_EQUAL(fa_post_atomic_write(0, 64, rl_mr_rkey(T.end[1].mr) ^ 0x5500, 3), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_REM_ACCESS_ERR, RL_WC_ATOMIC_WRITE, 3);
	CU_ASSERT_EQUAL(T.end[1].mem[64], 0xee);
	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	CU_ASSERT_EQUAL(W.data[1][42], 0x11);      /* RC Acknowledge */
	CU_ASSERT_EQUAL(W.data[1][42 + 12], 0x62); /* AETH: NAK (11b), remote access error (2) */
	p = fa_decode(1);
	CU_ASSERT_EQUAL(p.bth.psn, 0x1000);
	CU_ASSERT_EQUAL(rl_qp_state(T.end[1].qp), RL_QPS_ERR);
	tp_teardown(&T);
}

/* Outside the region: also a remote access error (rxe: mr_check_range, oA19-28). */
static void test_atomic_write_out_of_range(void)
{
	fa_setup(0, 0);
	memcpy(T.end[0].mem, value, 8);
	CU_ASSERT_EQUAL(fa_post_atomic_write(0, TP_MEM - 4, rl_mr_rkey(T.end[1].mr), 4), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_REM_ACCESS_ERR, RL_WC_ATOMIC_WRITE, 4);
	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	CU_ASSERT_EQUAL(W.data[1][42 + 12], 0x62);
	tp_teardown(&T);
}

/* Not 8-byte aligned: an invalid request (IBA A19.4.2; rxe: RESPST_ERR_MISALIGNED_ATOMIC, class C). */
static void test_atomic_write_unaligned(void)
{
	fa_setup(0, 0);
	memcpy(T.end[0].mem, value, 8);
	memset(T.end[1].mem + 64, 0xee, 16);
	CU_ASSERT_EQUAL(fa_post_atomic_write(0, 68, rl_mr_rkey(T.end[1].mr), 5), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_REM_INV_REQ_ERR, RL_WC_ATOMIC_WRITE, 5);
	for (int i = 64; i < 80; i++)
		CU_ASSERT_EQUAL(T.end[1].mem[i], 0xee);
	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	CU_ASSERT_EQUAL(W.data[1][42], 0x11);
	CU_ASSERT_EQUAL(W.data[1][42 + 12], 0x61); /* AETH: NAK, invalid request (1) */
	tp_teardown(&T);
}

/* ATOMIC WRITE is a write: remote atomic access alone does not allow it (rxe's check_qp_attr_access). */
static void test_atomic_write_needs_remote_write(void)
{
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_RC);
	o.access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_READ | RL_ACCESS_REMOTE_ATOMIC;
	memset(&W, 0, sizeof(W));
	tp_setup(&T, &o);
	T.filter = fa_filter;
	memcpy(T.end[0].mem, value, 8);
	CU_ASSERT_EQUAL(fa_post_atomic_write(0, 64, rl_mr_rkey(T.end[1].mr), 6), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_REM_INV_REQ_ERR, RL_WC_ATOMIC_WRITE, 6);
	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	CU_ASSERT_EQUAL(W.data[1][42 + 12], 0x61);
	tp_teardown(&T);
}

/*
 * The response is lost; the requester times out and sends the same request
 * again. The responder answers from its resource and does not store again:
 * a value written in between stays (rxe: replay, no second store).
 */
static void test_atomic_write_duplicate_not_stored_again(void)
{
	uint64_t later = 0x0102030405060708ull, got;
	struct rl_qp_stats st;

	fa_setup(0, 0);
	memcpy(T.end[0].mem, value, 8);
	W.drop = 2;                 /* the READ response Only */
	W.overwrite_at = 2;         /* ... and meanwhile someone else writes there */
	W.overwrite = later;
	CU_ASSERT_EQUAL(fa_post_atomic_write(0, 64, rl_mr_rkey(T.end[1].mr), 7), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_ATOMIC_WRITE, 7);
	memcpy(&got, T.end[1].mem + 64, 8);
	CU_ASSERT_EQUAL(got, later);
	CU_ASSERT_EQUAL(fa_count(0, 0x1d), 2);
	CU_ASSERT_EQUAL(fa_count(1, 0x10), 2);
	CU_ASSERT_EQUAL(W.n, 4);
	rl_qp_stats(T.end[1].qp, &st);
	CU_ASSERT_EQUAL(st.dup_requests, 1);
	rl_qp_stats(T.end[0].qp, &st);
	CU_ASSERT_EQUAL(st.timeouts, 1);
	tp_teardown(&T);
}

/*
 * Its response carries no data, so an ACK for a later request completes an
 * ATOMIC WRITE whose response was lost, without a retry (rxe's completer).
 */
static void test_atomic_write_completed_by_later_ack(void)
{
	fa_setup(0, 0);
	memcpy(T.end[0].mem, value, 8);
	W.drop = 3;                 /* AW, SEND, then the AW's response: dropped */
	CU_ASSERT_EQUAL(tp_post_recv(&T, 1, 4096, 64, 20), 0);
	CU_ASSERT_EQUAL(fa_post_atomic_write(0, 64, rl_mr_rkey(T.end[1].mr), 8), 0);
	CU_ASSERT_EQUAL(tp_post_send(&T, 0, RL_WR_SEND, 16, 32, 0, 9), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_ATOMIC_WRITE, 8);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_SEND, 9);
	tp_expect_wc(&T, 1, RL_WC_SUCCESS, RL_WC_RECV, 20);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem + 64, value, 8), 0);
	CU_ASSERT_EQUAL(fa_count(0, 0x1d), 1);
	CU_ASSERT_EQUAL(W.n, 4);
	tp_teardown(&T);
}

/*
 * FLUSH: FETH (selectivity level, placement type) then RETH, no payload;
 * with the access flag on QP and region it is answered like ATOMIC WRITE.
 */
static void test_flush_with_access(void)
{
	uint8_t want[12 + 4 + 16];
	uint32_t rkey;
	struct rl_wc wc;
	struct rl_pkt p;

	fa_setup(RL_ACCESS_FLUSH_GLOBAL, 0);
	rkey = rl_mr_rkey(T.end[1].mr);
	CU_ASSERT_EQUAL(fa_post_flush(rl_mr_iova(T.end[1].mr) + 4096, 8192, rkey, RL_FLUSH_GLOBAL, RL_FLUSH_RANGE,
				      11), 0);
	tp_run(&T, 1000000000);
	wc = tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_FLUSH, 11);
	CU_ASSERT_EQUAL(wc.byte_len, 0);
	CU_ASSERT_FALSE(tp_poll(&T, 1, &wc));

	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	CU_ASSERT_EQUAL(W.len[0], 42 + sizeof(want) + 4);
	memset(want, 0, sizeof(want));
	want[0] = 0x1c;                        /* RC FLUSH */
	want[2] = 0xff, want[3] = 0xff;
	fa_put_be(want + 5, rl_qp_num(T.end[1].qp), 3);
	want[8] = 0x80;
	fa_put_be(want + 9, 0x1000, 3);
	want[15] = 0x01;                       /* FETH: level 0 (range) in bits 5-4, type 1 (global) in 3-0 */
	fa_put_be(want + 16, 0x200000 + 4096, 8);
	fa_put_be(want + 24, rkey, 4);
	fa_put_be(want + 28, 8192, 4);
	CU_ASSERT_EQUAL(memcmp(W.data[0] + 42, want, sizeof(want)), 0);
	p = fa_decode(0);
	CU_ASSERT_EQUAL(p.bth.opcode, RL_OP_RC_FLUSH);
	CU_ASSERT_EQUAL(p.feth.sel, RL_FLUSH_RANGE);
	CU_ASSERT_EQUAL(p.feth.plt, RL_FLUSH_GLOBAL);
	CU_ASSERT_EQUAL(p.reth.va, 0x200000 + 4096);
	CU_ASSERT_EQUAL(p.reth.dma_len, 8192);
	CU_ASSERT_EQUAL(p.payload_len, 0);

	p = fa_decode(1);
	CU_ASSERT_EQUAL(p.bth.opcode, RL_OP_RC_RDMA_READ_RESPONSE_ONLY);
	CU_ASSERT_EQUAL(p.bth.psn, 0x1000);
	CU_ASSERT_EQUAL(p.aeth.syndrome, 0x00);
	CU_ASSERT_EQUAL(p.aeth.msn, 1);
	CU_ASSERT_EQUAL(p.payload_len, 0);
	CU_ASSERT_EQUAL(W.len[1], 42 + 12 + 4 + 4);
	tp_teardown(&T);
}

/* Both placement bits and the whole region: FETH byte 3 is 0x13, and no range is checked (rxe: IB_FLUSH_MR). */
static void test_flush_whole_region_persistent(void)
{
	struct rl_pkt p;

	fa_setup(RL_ACCESS_FLUSH_GLOBAL | RL_ACCESS_FLUSH_PERSISTENT, 0);
	/* A VA and length outside the region: ignored for a FLUSH of the whole MR. */
	CU_ASSERT_EQUAL(fa_post_flush(0x7000000, 64, rl_mr_rkey(T.end[1].mr),
				      RL_FLUSH_GLOBAL | RL_FLUSH_PERSISTENT, RL_FLUSH_MR, 12), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_FLUSH, 12);
	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	CU_ASSERT_EQUAL(W.data[0][42 + 15], 0x13);
	p = fa_decode(0);
	CU_ASSERT_EQUAL(p.feth.sel, RL_FLUSH_MR);
	CU_ASSERT_EQUAL(p.feth.plt, RL_FLUSH_GLOBAL | RL_FLUSH_PERSISTENT);
	CU_ASSERT_EQUAL(W.data[1][42], 0x10);
	tp_teardown(&T);
}

/* Without the QP's access flag: an invalid request NAK (rxe: check_qp_attr_access -> UNSUPPORTED_OPCODE). */
static void flush_nak_by_qp(unsigned access, uint8_t type)
{
	fa_setup(access, 0);
	CU_ASSERT_EQUAL(fa_post_flush(rl_mr_iova(T.end[1].mr), 64, rl_mr_rkey(T.end[1].mr), type, RL_FLUSH_RANGE,
				      13), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_REM_INV_REQ_ERR, RL_WC_FLUSH, 13);
	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	CU_ASSERT_EQUAL(W.data[1][42], 0x11);
	CU_ASSERT_EQUAL(W.data[1][42 + 12], 0x61);
	CU_ASSERT_EQUAL(rl_qp_state(T.end[0].qp), RL_QPS_ERR);
	tp_teardown(&T);
}

static void test_flush_without_access(void)
{
	flush_nak_by_qp(0, RL_FLUSH_GLOBAL);
}

static void test_flush_persistent_needs_persistent(void)
{
	flush_nak_by_qp(RL_ACCESS_FLUSH_GLOBAL, RL_FLUSH_PERSISTENT);
}

/* The QP allows FLUSH but the region does not: a remote access error (rxe: lookup_mr fails). */
static void test_flush_region_without_access(void)
{
	struct rl_mr *plain;

	fa_setup(RL_ACCESS_FLUSH_GLOBAL, 0);
	plain = rl_reg_mr_iova(T.end[1].pd, T.end[1].mem + 65536, 4096, 0x900000,
			       RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
	CU_ASSERT_EQUAL(fa_post_flush(0x900000, 64, rl_mr_rkey(plain), RL_FLUSH_GLOBAL, RL_FLUSH_RANGE, 14), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_REM_ACCESS_ERR, RL_WC_FLUSH, 14);
	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	CU_ASSERT_EQUAL(W.data[1][42 + 12], 0x62);
	tp_teardown(&T);
}

/* A range FLUSH beyond the region: a remote access error. */
static void test_flush_range_outside(void)
{
	fa_setup(RL_ACCESS_FLUSH_GLOBAL, 0);
	CU_ASSERT_EQUAL(fa_post_flush(rl_mr_iova(T.end[1].mr) + TP_MEM - 16, 64, rl_mr_rkey(T.end[1].mr),
				      RL_FLUSH_GLOBAL, RL_FLUSH_RANGE, 15), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_REM_ACCESS_ERR, RL_WC_FLUSH, 15);
	CU_ASSERT_EQUAL_FATAL(W.n, 2);
	CU_ASSERT_EQUAL(W.data[1][42 + 12], 0x62);
	tp_teardown(&T);
}

/* A FLUSH whose response is lost is answered again from the responder's resource. */
static void test_flush_duplicate(void)
{
	struct rl_pkt p;

	fa_setup(RL_ACCESS_FLUSH_GLOBAL, 0);
	W.drop = 2;
	CU_ASSERT_EQUAL(fa_post_flush(rl_mr_iova(T.end[1].mr), 64, rl_mr_rkey(T.end[1].mr), RL_FLUSH_GLOBAL,
				      RL_FLUSH_RANGE, 16), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_FLUSH, 16);
	CU_ASSERT_EQUAL_FATAL(W.n, 4);
	CU_ASSERT_EQUAL(fa_count(0, 0x1c), 2);
	p = fa_decode(3);
	CU_ASSERT_EQUAL(p.bth.opcode, RL_OP_RC_RDMA_READ_RESPONSE_ONLY);
	CU_ASSERT_EQUAL(p.bth.psn, 0x1000);
	CU_ASSERT_EQUAL(p.aeth.msn, 1);        /* the MSN it had, not a new message */
	tp_teardown(&T);
}

/*
 * Both hold a responder resource, so with max_rd_atomic 1 the second waits
 * for the first's answer: request, answer, request, answer on the wire.
 */
static void test_max_rd_atomic_counts_them(void)
{
	fa_setup(RL_ACCESS_FLUSH_GLOBAL, 1);
	memcpy(T.end[0].mem, value, 8);
	CU_ASSERT_EQUAL(fa_post_atomic_write(0, 64, rl_mr_rkey(T.end[1].mr), 17), 0);
	CU_ASSERT_EQUAL(fa_post_flush(rl_mr_iova(T.end[1].mr), 64, rl_mr_rkey(T.end[1].mr), RL_FLUSH_GLOBAL,
				      RL_FLUSH_RANGE, 18), 0);
	tp_run(&T, 1000000000);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_ATOMIC_WRITE, 17);
	tp_expect_wc(&T, 0, RL_WC_SUCCESS, RL_WC_FLUSH, 18);
	CU_ASSERT_EQUAL_FATAL(W.n, 4);
	CU_ASSERT_EQUAL(W.from[0], 0);
	CU_ASSERT_EQUAL(W.data[0][42], 0x1d);
	CU_ASSERT_EQUAL(W.from[1], 1);
	CU_ASSERT_EQUAL(W.data[1][42], 0x10);
	CU_ASSERT_EQUAL(W.from[2], 0);
	CU_ASSERT_EQUAL(W.data[2][42], 0x1c);
	CU_ASSERT_EQUAL(W.from[3], 1);
	tp_teardown(&T);
}

/* What post_send refuses, with a reason. */
static void test_post_checks(void)
{
	struct rl_send_wr wr;
	struct tp_opts o;

	fa_setup(RL_ACCESS_FLUSH_GLOBAL, 0);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RL_WR_ATOMIC_WRITE;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ rl_mr_iova(T.end[0].mr), 4, rl_mr_lkey(T.end[0].mr) };
	CU_ASSERT_NOT_EQUAL(rl_post_send(T.end[0].qp, &wr), 0);    /* not 8 bytes */
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(T.end[0].host), "8 bytes"));
	CU_ASSERT_EQUAL(fa_post_flush(rl_mr_iova(T.end[1].mr), 64, 1, 0, RL_FLUSH_RANGE, 1), -EINVAL);
	CU_ASSERT_EQUAL(fa_post_flush(rl_mr_iova(T.end[1].mr), 64, 1, 4, RL_FLUSH_RANGE, 1), -EINVAL);
	CU_ASSERT_EQUAL(fa_post_flush(rl_mr_iova(T.end[1].mr), 64, 1, RL_FLUSH_GLOBAL, 2, 1), -EINVAL);
	tp_teardown(&T);

	/* UC gets no responses, so it has neither (IBA 9.8.3; rxe: RC only). */
	tp_default_opts(&o, RL_QPT_UC);
	tp_setup(&T, &o);
	CU_ASSERT_NOT_EQUAL(fa_post_flush(rl_mr_iova(T.end[1].mr), 64, 1, RL_FLUSH_GLOBAL, RL_FLUSH_RANGE, 1), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rl_host_error(T.end[0].host), "FLUSH"));
	CU_ASSERT_NOT_EQUAL(fa_post_atomic_write(0, 64, rl_mr_rkey(T.end[1].mr), 1), 0);
	tp_teardown(&T);
}

int tl_suite_flush_atomic_write(void)
{
	CU_pSuite s = CU_add_suite("flush-atomic-write", NULL, NULL);

	return !s || !CU_add_test(s, "the libibverbs values", test_libibverbs_values) ||
	       !CU_add_test(s, "ATOMIC WRITE stores 8 bytes, answered by a READ response Only",
			    test_atomic_write_stores_8_bytes) ||
	       !CU_add_test(s, "ATOMIC WRITE with a bad R_Key: remote access error", test_atomic_write_bad_rkey) ||
	       !CU_add_test(s, "ATOMIC WRITE outside the region: remote access error",
			    test_atomic_write_out_of_range) ||
	       !CU_add_test(s, "ATOMIC WRITE unaligned: invalid request", test_atomic_write_unaligned) ||
	       !CU_add_test(s, "ATOMIC WRITE needs remote write access", test_atomic_write_needs_remote_write) ||
	       !CU_add_test(s, "a duplicate ATOMIC WRITE is answered, not stored again",
			    test_atomic_write_duplicate_not_stored_again) ||
	       !CU_add_test(s, "a later ACK completes an ATOMIC WRITE", test_atomic_write_completed_by_later_ack) ||
	       !CU_add_test(s, "FLUSH with the access flag: FETH and RETH on the wire", test_flush_with_access) ||
	       !CU_add_test(s, "FLUSH of the whole region, global and persistent",
			    test_flush_whole_region_persistent) ||
	       !CU_add_test(s, "FLUSH without the QP's access flag: invalid request", test_flush_without_access) ||
	       !CU_add_test(s, "a persistent FLUSH needs the persistent flag", test_flush_persistent_needs_persistent) ||
	       !CU_add_test(s, "FLUSH of a region without the flag: remote access error",
			    test_flush_region_without_access) ||
	       !CU_add_test(s, "FLUSH of a range outside the region: remote access error", test_flush_range_outside) ||
	       !CU_add_test(s, "a duplicate FLUSH is answered again", test_flush_duplicate) ||
	       !CU_add_test(s, "both count against max_rd_atomic", test_max_rd_atomic_counts_them) ||
	       !CU_add_test(s, "post_send checks", test_post_checks);
}
