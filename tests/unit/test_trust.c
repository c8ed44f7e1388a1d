/* SPDX-License-Identifier: MIT */
/*
 * What a host takes from the network (rxe_recv.c's check_addr and
 * check_keys): a connected QP drops packets from any address but its
 * peer's, and every QP drops packets of another partition, counted; and
 * memory keys that cannot be guessed when the caller seeds them.
 */
#include <string.h>

#include "tp.h"

static struct tp_pair T;

/* What the filter changes in A's requests, their ICRC made good again. */
enum forge { FORGE_NONE, FORGE_SRC, FORGE_PKEY_OTHER, FORGE_PKEY_LIMITED };
static enum forge forge;

static bool forge_filter(struct tp_pair *t, int from, uint8_t *frame, size_t len, uint64_t n)
{
	struct rl_pkt p;
	uint8_t out[10000];
	size_t olen;

	(void)t; (void)n;
	if (from != 0 || forge == FORGE_NONE || rl_decode(RL_LINK_ETHERNET, frame, len, &p) != RL_OK)
		return true;
	if (forge == FORGE_SRC)
		p.ip4.src[3] = 9;           /* 10.0.0.9: on the path, but not the QP's peer */
	else if (forge == FORGE_PKEY_OTHER)
		p.bth.pkey = 0x8001;        /* a full member of partition 1 */
	else
		p.bth.pkey = 0x7fff;        /* a limited member of the default partition: it matches ours */
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, out, sizeof(out), &olen), RL_OK);
	CU_ASSERT_EQUAL_FATAL(olen, len);
	memcpy(frame, out, len);
	return true;
}

/* A's WRITE of 256 bytes to B, with A's requests forged as @f; how B counted them. */
static void write_forged(enum forge f, struct rl_qp_stats *st, struct rl_port_attr *port)
{
	struct tp_opts o;

	tp_default_opts(&o, RL_QPT_RC);
	o.retry_cnt = 1;
	tp_setup(&T, &o);
	forge = f;
	T.filter = forge_filter;
	tp_fill(&T, 0, 0, 256, 3);
	memset(T.end[1].mem, 0, 256);
	CU_ASSERT_EQUAL(tp_post_send(&T, 0, RL_WR_RDMA_WRITE, 0, 256, 0, 1), 0);
	tp_run(&T, 2000000000);
	rl_qp_stats(T.end[1].qp, st);
	rl_query_port(T.end[1].host, port);
	forge = FORGE_NONE;
}

static bool b_untouched(void)
{
	for (int i = 0; i < 256; i++)
		if (T.end[1].mem[i])
			return false;
	return true;
}

static void test_spoofed_source_dropped(void)
{
	struct rl_qp_stats st;
	struct rl_port_attr port;
	struct rl_wc wc;

	write_forged(FORGE_SRC, &st, &port);
	CU_ASSERT_TRUE(st.addr_drops >= 1);
	CU_ASSERT_EQUAL(st.pkey_violations, 0);
	CU_ASSERT_TRUE(b_untouched());
	/* B never answered: A's WRITE fails after its retries, as with a silent peer. */
	for (uint64_t i = 0; i < T.frames && i < TP_QUEUE; i++)
		CU_ASSERT_EQUAL(T.from[i], 0);
	CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_RETRY_EXC_ERR);
	tp_teardown(&T);
}

static void test_pkey_mismatch_dropped_and_counted(void)
{
	struct rl_qp_stats st;
	struct rl_port_attr port;

	write_forged(FORGE_PKEY_OTHER, &st, &port);
	CU_ASSERT_TRUE(st.pkey_violations >= 1);
	CU_ASSERT_EQUAL(port.bad_pkey_cntr, st.pkey_violations);
	CU_ASSERT_EQUAL(st.addr_drops, 0);
	CU_ASSERT_TRUE(b_untouched());
	tp_teardown(&T);
}

/* IBA 10.9.3: a limited member matches a full member of its partition. */
static void test_limited_pkey_accepted(void)
{
	struct rl_qp_stats st;
	struct rl_port_attr port;
	struct rl_wc wc;

	write_forged(FORGE_PKEY_LIMITED, &st, &port);
	CU_ASSERT_EQUAL(st.pkey_violations, 0);
	CU_ASSERT_EQUAL(port.bad_pkey_cntr, 0);
	CU_ASSERT_EQUAL(memcmp(T.end[1].mem, T.end[0].mem, 256), 0);
	CU_ASSERT_TRUE(tp_poll(&T, 0, &wc));
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	tp_teardown(&T);
}

static void emit_none(void *ctx, const uint8_t *frame, size_t len)
{
	(void)ctx; (void)frame; (void)len;
}

/* The R_Key of the first registration on a host made with @seed. */
static uint32_t first_rkey(uint64_t seed, uint32_t *second)
{
	struct rl_host_config c = { .emit = emit_none, .key_seed = seed };
	struct rl_host *h = rl_host_new(&c);
	struct rl_pd *pd = rl_alloc_pd(h);
	static uint8_t buf[64];
	struct rl_mr *a = rl_reg_mr_iova(pd, buf, sizeof(buf), 0x1000, RL_ACCESS_LOCAL_WRITE),
		     *b = rl_reg_mr_iova(pd, buf, sizeof(buf), 0x1000, RL_ACCESS_LOCAL_WRITE);
	uint32_t k = rl_mr_rkey(a);

	*second = rl_mr_rkey(b);
	rl_host_free(h);
	return k;
}

static void test_seeded_keys(void)
{
	uint32_t k2, s2, distinct = 0, prev = 0;

	/* No seed: rxe's index << 8 and a fixed key byte, the same every run. */
	CU_ASSERT_EQUAL(first_rkey(0, &k2), 0x0001005a);
	CU_ASSERT_EQUAL(k2, 0x0001015a);
	/* A seed: the same seed, the same keys; different seeds, different keys, index and key byte both. */
	CU_ASSERT_EQUAL(first_rkey(42, &k2), first_rkey(42, &s2));
	CU_ASSERT_EQUAL(k2, s2);
	for (uint64_t seed = 1; seed <= 64; seed++) {
		uint32_t k = first_rkey(seed, &k2);

		CU_ASSERT_NOT_EQUAL(k, 0);
		CU_ASSERT_EQUAL(k2 >> 8, (k >> 8) + 1);  /* the index still counts up */
		distinct += k != prev;
		prev = k;
	}
	CU_ASSERT_TRUE(distinct >= 60);
}

int tl_suite_trust(void)
{
	CU_pSuite s = CU_add_suite("trust", NULL, NULL);

	return !s || !CU_add_test(s, "RC: a request from another address is dropped, counted", test_spoofed_source_dropped) ||
	       !CU_add_test(s, "a P_Key of another partition is dropped, counted in the port", test_pkey_mismatch_dropped_and_counted) ||
	       !CU_add_test(s, "a limited member of the default partition is accepted", test_limited_pkey_accepted) ||
	       !CU_add_test(s, "seeded memory keys differ per seed, fixed without one", test_seeded_keys);
}
