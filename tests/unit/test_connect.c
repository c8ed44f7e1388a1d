/* SPDX-License-Identifier: MIT */
/*
 * rl_qp_connect(): the RESET -> INIT -> RTR -> RTS ladder with IBA Table 91's
 * attributes per transport; and rl_pair, the two connected endpoints built
 * on it.
 */
#include <errno.h>
#include <string.h>

#include "testlib.h"
#include "rocelab/pair.h"

static unsigned state_events;

static void emit_nothing(void *ctx, const uint8_t *frame, size_t len)
{
	(void)ctx; (void)frame; (void)len;
	CU_FAIL("connecting sends nothing");
}

static void count_states(void *ctx, const struct rl_event *ev)
{
	(void)ctx;
	state_events += ev->type == RL_EV_QP_STATE;
}

struct cn_fixture {
	struct rl_host *h;
	struct rl_pd *pd;
	struct rl_cq *cq;
	struct rl_qp *qp;
};

static void cn_setup(struct cn_fixture *f, enum rl_qp_type type)
{
	struct rl_host_config cfg = { .mac = { 2, 0, 0, 0, 0, 1 }, .emit = emit_nothing, .event = count_states,
				      .active_mtu = RL_MTU_4096 };
	uint8_t ip[4] = { 10, 0, 0, 1 };
	struct rl_qp_init_attr ia = { .qp_type = type };

	rl_gid_from_ipv4(cfg.gid, ip);
	state_events = 0;
	f->h = rl_host_new(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->h);
	f->pd = rl_alloc_pd(f->h);
	f->cq = rl_create_cq(f->h, 16);
	ia.send_cq = ia.recv_cq = f->cq;
	f->qp = f->pd && f->cq ? rl_create_qp(f->pd, &ia) : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->qp);
}

/* What the peer (10.0.0.2, QPN 0x2a, first PSN 0x2000) told us, and our own choices. */
static void cn_conn(struct rl_conn *c)
{
	*c = (struct rl_conn){
		.qpn = 0x2a, .psn = 0x2000, .mac = { 2, 0, 0, 0, 0, 2 }, .sq_psn = 0x1000, .path_mtu = RL_MTU_2048,
		.access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_READ, .qkey = 0x1234, .port_num = 1,
		.traffic_class = 26 << 2, .timeout = 9, .retry_cnt = 5, .rnr_retry = 6, .min_rnr_timer = 3,
		.max_rd_atomic = 2, .max_dest_rd_atomic = 3,
	};
	rl_gid_from_ipv4(c->gid, (const uint8_t[4]){ 10, 0, 0, 2 });
}

static bool error_says(const struct rl_host *h, const char *what)
{
	return strstr(rl_host_error(h), what) != NULL;
}

/* RC: every Table 91 attribute of the three steps lands in the QP. */
static void test_connect_rc(void)
{
	struct cn_fixture f;
	struct rl_qp_attr a;
	struct rl_conn c;

	cn_setup(&f, RL_QPT_RC);
	cn_conn(&c);
	CU_ASSERT_EQUAL(rl_qp_connect(f.qp, &c), 0);
	CU_ASSERT_EQUAL(rl_qp_state(f.qp), RL_QPS_RTS);
	CU_ASSERT_EQUAL(state_events, 3);                /* INIT, RTR, RTS: one modify_qp each */
	rl_query_qp(f.qp, &a);
	CU_ASSERT_EQUAL(a.qp_access_flags, c.access);
	CU_ASSERT_EQUAL(a.port_num, 1);
	CU_ASSERT_EQUAL(memcmp(a.ah_attr.dgid, c.gid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(a.ah_attr.dmac, c.mac, 6), 0);
	CU_ASSERT_EQUAL(a.ah_attr.traffic_class, 26 << 2);
	CU_ASSERT_EQUAL(a.path_mtu, RL_MTU_2048);
	CU_ASSERT_EQUAL(a.dest_qp_num, 0x2a);
	CU_ASSERT_EQUAL(a.rq_psn, 0x2000);               /* the peer's first PSN */
	CU_ASSERT_EQUAL(a.sq_psn, 0x1000);               /* ours */
	CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 3);
	CU_ASSERT_EQUAL(a.min_rnr_timer, 3);
	CU_ASSERT_EQUAL(a.timeout, 9);
	CU_ASSERT_EQUAL(a.retry_cnt, 5);
	CU_ASSERT_EQUAL(a.rnr_retry, 6);
	CU_ASSERT_EQUAL(a.max_rd_atomic, 2);
	CU_ASSERT_EQUAL(a.qkey, 0);                      /* not an RC attribute */
	rl_host_free(f.h);
}

/* UC: the AV, MTU, QPN and PSNs, but none of RC's ACK, retry and READ/atomic attributes. */
static void test_connect_uc(void)
{
	struct cn_fixture f;
	struct rl_qp_attr a;
	struct rl_conn c;

	cn_setup(&f, RL_QPT_UC);
	cn_conn(&c);
	CU_ASSERT_EQUAL(rl_qp_connect(f.qp, &c), 0);
	CU_ASSERT_EQUAL(rl_qp_state(f.qp), RL_QPS_RTS);
	rl_query_qp(f.qp, &a);
	CU_ASSERT_EQUAL(a.dest_qp_num, 0x2a);
	CU_ASSERT_EQUAL(a.rq_psn, 0x2000);
	CU_ASSERT_EQUAL(a.sq_psn, 0x1000);
	CU_ASSERT_EQUAL(a.path_mtu, RL_MTU_2048);
	CU_ASSERT_EQUAL(a.qp_access_flags, c.access);
	CU_ASSERT_EQUAL(a.timeout, 0);
	CU_ASSERT_EQUAL(a.retry_cnt, 0);
	CU_ASSERT_EQUAL(a.max_rd_atomic, 0);
	CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 0);
	rl_host_free(f.h);
}

/* UD: a Q_Key at INIT, nothing at RTR (no peer in the QP), its PSN at RTS. */
static void test_connect_ud(void)
{
	struct cn_fixture f;
	struct rl_qp_attr a;
	struct rl_conn c;

	cn_setup(&f, RL_QPT_UD);
	cn_conn(&c);
	memset(c.gid, 0, 16);                            /* a datagram QP needs no peer address */
	CU_ASSERT_EQUAL(rl_qp_connect(f.qp, &c), 0);
	CU_ASSERT_EQUAL(rl_qp_state(f.qp), RL_QPS_RTS);
	rl_query_qp(f.qp, &a);
	CU_ASSERT_EQUAL(a.qkey, 0x1234);
	CU_ASSERT_EQUAL(a.sq_psn, 0x1000);
	CU_ASSERT_EQUAL(a.dest_qp_num, 0);
	CU_ASSERT_EQUAL(a.rq_psn, 0);
	CU_ASSERT_EQUAL(a.qp_access_flags, 0);
	rl_host_free(f.h);
}

/* From INIT, as ibv_rc_pingpong connects after posting its receives. */
static void test_connect_from_init(void)
{
	struct rl_qp_attr init = { .qp_state = RL_QPS_INIT, .port_num = 1, .qp_access_flags = RL_ACCESS_REMOTE_WRITE };
	struct rl_recv_wr rwr = { .wr_id = 1 };
	struct cn_fixture f;
	struct rl_qp_attr a;
	struct rl_conn c;

	cn_setup(&f, RL_QPT_RC);
	cn_conn(&c);
	CU_ASSERT_EQUAL(rl_modify_qp(f.qp, &init, RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_ACCESS_FLAGS), 0);
	CU_ASSERT_EQUAL(rl_post_recv(f.qp, &rwr), 0);
	CU_ASSERT_EQUAL(rl_qp_connect(f.qp, &c), 0);
	CU_ASSERT_EQUAL(rl_qp_state(f.qp), RL_QPS_RTS);
	rl_query_qp(f.qp, &a);
	CU_ASSERT_EQUAL(a.qp_access_flags, RL_ACCESS_REMOTE_WRITE);   /* INIT's own choice stands */
	rl_host_free(f.h);
}

/* Only RESET and INIT start the ladder; the QP keeps its state. */
static void test_connect_wrong_state(void)
{
	struct rl_qp_attr a = { .qp_state = RL_QPS_ERR };
	struct cn_fixture f;
	struct rl_conn c;

	cn_setup(&f, RL_QPT_RC);
	cn_conn(&c);
	CU_ASSERT_EQUAL(rl_qp_connect(f.qp, &c), 0);
	CU_ASSERT_EQUAL(rl_qp_connect(f.qp, &c), -EINVAL);
	CU_ASSERT_TRUE(error_says(f.h, "connect starts from RESET or INIT, and this QP is in RTS"));
	CU_ASSERT_EQUAL(rl_qp_state(f.qp), RL_QPS_RTS);
	CU_ASSERT_EQUAL(rl_modify_qp(f.qp, &a, RL_QP_STATE), 0);
	CU_ASSERT_EQUAL(rl_qp_connect(f.qp, &c), -EINVAL);
	CU_ASSERT_TRUE(error_says(f.h, "this QP is in ERR"));
	CU_ASSERT_EQUAL(rl_qp_state(f.qp), RL_QPS_ERR);
	/* Back to RESET, and the ladder works again. */
	a.qp_state = RL_QPS_RESET;
	CU_ASSERT_EQUAL(rl_modify_qp(f.qp, &a, RL_QP_STATE), 0);
	CU_ASSERT_EQUAL(rl_qp_connect(f.qp, &c), 0);
	CU_ASSERT_EQUAL(rl_qp_state(f.qp), RL_QPS_RTS);
	rl_host_free(f.h);
}

/* A missing or bad value is refused by modify_qp, with its reason; the QP stays where it got to. */
static void test_connect_missing_attributes(void)
{
	static const struct {
		const char *why;
		enum rl_qp_state stays;
	} cases[] = {
		{ "RTR needs a destination GID: RoCE has no LIDs", RL_QPS_INIT },
		{ "path MTU 0 is not one of 1 (256) .. 5 (4096)", RL_QPS_INIT },
		{ "max_dest_rd_atomic must be 1 .. 16", RL_QPS_INIT },
		{ "a PSN has 24 bits", RL_QPS_INIT },
		{ "retry_cnt and rnr_retry are 3-bit fields", RL_QPS_RTR },
		{ "a QPN has 24 bits", RL_QPS_INIT },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct cn_fixture f;
		struct rl_conn c;

		cn_setup(&f, RL_QPT_RC);
		cn_conn(&c);
		switch (k) {
		case 0: memset(c.gid, 0, 16); break;
		case 1: c.path_mtu = 0; break;
		case 2: c.max_dest_rd_atomic = 0; break;
		case 3: c.psn = 0x1000000; break;
		case 4: c.retry_cnt = 8; break;
		case 5: c.qpn = 0x1000000; break;
		}
		CU_ASSERT_EQUAL(rl_qp_connect(f.qp, &c), -EINVAL);
		CU_ASSERT_TRUE(error_says(f.h, cases[k].why));
		CU_ASSERT_EQUAL(rl_qp_state(f.qp), cases[k].stays);
		rl_host_free(f.h);
	}
}

/*
 * The masks connect uses come from modify_qp's own table: each typed here
 * from IBA 11.2.4.2 Table 91 (and man ibv_modify_qp), per transport.
 */
static void test_attr_required_table_91(void)
{
	static const struct {
		enum rl_qp_state from, to;
		int rc, uc, ud;
	} t91[] = {
		{ RL_QPS_RESET, RL_QPS_INIT,
		  RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_ACCESS_FLAGS,
		  RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_ACCESS_FLAGS,
		  RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_QKEY },
		{ RL_QPS_INIT, RL_QPS_RTR,
		  RL_QP_STATE | RL_QP_AV | RL_QP_PATH_MTU | RL_QP_DEST_QPN | RL_QP_RQ_PSN | RL_QP_MAX_DEST_RD_ATOMIC |
			  RL_QP_MIN_RNR_TIMER,
		  RL_QP_STATE | RL_QP_AV | RL_QP_PATH_MTU | RL_QP_DEST_QPN | RL_QP_RQ_PSN,
		  RL_QP_STATE },
		{ RL_QPS_RTR, RL_QPS_RTS,
		  RL_QP_STATE | RL_QP_SQ_PSN | RL_QP_TIMEOUT | RL_QP_RETRY_CNT | RL_QP_RNR_RETRY | RL_QP_MAX_QP_RD_ATOMIC,
		  RL_QP_STATE | RL_QP_SQ_PSN,
		  RL_QP_STATE | RL_QP_SQ_PSN },
	};

	for (size_t k = 0; k < sizeof(t91) / sizeof(t91[0]); k++) {
		CU_ASSERT_EQUAL(rl_qp_attr_required(RL_QPT_RC, t91[k].from, t91[k].to), t91[k].rc);
		CU_ASSERT_EQUAL(rl_qp_attr_required(RL_QPT_UC, t91[k].from, t91[k].to), t91[k].uc);
		CU_ASSERT_EQUAL(rl_qp_attr_required(RL_QPT_UD, t91[k].from, t91[k].to), t91[k].ud);
	}
	/* Not a transition: nothing is required because nothing is allowed. */
	CU_ASSERT_EQUAL(rl_qp_attr_required(RL_QPT_RC, RL_QPS_RESET, RL_QPS_RTS), 0);
	CU_ASSERT_EQUAL(rl_qp_attr_required(RL_QPT_UD, RL_QPS_RTS, RL_QPS_RTR), 0);
}

/* ---- rl_pair ----------------------------------------------------------------------------- */

static void pair_config(struct rl_pair_config *pc, enum rl_sim_wire kind)
{
	memset(pc, 0, sizeof(*pc));
	pc->sim.kind = kind;
	pc->type = RL_QPT_RC;
	pc->mem[0] = pc->mem[1] = 8192;
	for (int i = 0; i < 2; i++) {
		uint8_t ip[4] = { 10, 0, 0, (uint8_t)(i + 1) };

		pc->sim.host[i].mac[5] = (uint8_t)(i + 1);
		rl_gid_from_ipv4(pc->sim.host[i].gid, ip);
		pc->iova[i] = 0x10000ull * (uint64_t)(i + 1);
		rl_conn_defaults(&pc->conn[i]);
		pc->conn[i].sq_psn = 0x100 * (uint32_t)(i + 1);
	}
}

/* The pair exchanges each side's QPN, PSN, GID and MAC; a WRITE crosses either wire. */
static void test_pair_write(void)
{
	for (int kind = RL_SIM_SIMWIRE; kind <= RL_SIM_FIFO; kind++) {
		struct rl_pair_config pc;
		struct rl_send_wr wr;
		struct rl_pair p;
		struct rl_qp_attr a;
		struct rl_wc wc;

		pair_config(&pc, (enum rl_sim_wire)kind);
		CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
		rl_query_qp(p.end[0].qp, &a);
		CU_ASSERT_EQUAL(a.dest_qp_num, rl_qp_num(p.end[1].qp));
		CU_ASSERT_EQUAL(a.rq_psn, 0x200);
		CU_ASSERT_EQUAL(a.sq_psn, 0x100);
		CU_ASSERT_EQUAL(memcmp(a.ah_attr.dgid, pc.sim.host[1].gid, 16), 0);
		memcpy(p.end[0].mem + 100, "two ends, one wire", 18);
		rl_pair_send_wr(&p, 0, RL_WR_RDMA_WRITE, 100, 18, 4000, 7, &wr);
		CU_ASSERT_EQUAL(rl_pair_post_send(&p, 0, &wr), 0);
		CU_ASSERT(rl_pair_run(&p, UINT64_MAX, 1000, NULL, NULL) >= 0);
		CU_ASSERT_EQUAL(memcmp(p.end[1].mem + 4000, "two ends, one wire", 18), 0);
		CU_ASSERT_EQUAL(rl_pair_poll(&p, 0, &wc, 1), 1);
		CU_ASSERT_EQUAL(wc.wr_id, 7);
		CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
		CU_ASSERT_EQUAL(rl_sim_frames(p.sim), 2);          /* the WRITE and its ACK */
		CU_ASSERT_TRUE(rl_sim_idle(p.sim));
		CU_ASSERT_EQUAL(rl_sim_refused(p.sim), 0);
		rl_pair_free(&p);
	}
}

/* Setup errors and post errors come back with a reason. */
static void test_pair_errors(void)
{
	struct rl_pair_config pc;
	struct rl_send_wr wr;
	struct rl_pair p;

	pair_config(&pc, RL_SIM_FIFO);
	pc.conn[1].path_mtu = RL_MTU_4096;                     /* the port's MTU is 1024 */
	CU_ASSERT_EQUAL(rl_pair_init(&p, &pc), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "larger than the port's active MTU"));
	rl_pair_free(&p);

	pair_config(&pc, RL_SIM_FIFO);
	CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
	rl_pair_send_wr(&p, 0, RL_WR_SEND, 0, 16, 0, 1, &wr);
	wr.num_sge = RL_MAX_SGE + 1;
	CU_ASSERT_NOT_EQUAL(rl_pair_post_send(&p, 0, &wr), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "post_send: num_sge"));
	rl_pair_free(&p);
}

/* A config the pair or the sim cannot take: said as what it is, not as "out of memory". */
static void test_pair_config_errors(void)
{
	struct rl_pair_config pc;
	struct rl_pair p;

	pair_config(&pc, RL_SIM_FIFO);
	pc.mem[1] = 0;
	CU_ASSERT_EQUAL(rl_pair_init(&p, &pc), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "side 1 has no memory to register (mem[1] is 0)"));
	rl_pair_free(&p);

	pair_config(&pc, RL_SIM_FIFO);
	pc.mem[0] = SIZE_MAX;                                  /* rounding up to a page would wrap */
	CU_ASSERT_EQUAL(rl_pair_init(&p, &pc), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "side 0's memory"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "bytes, is more than can be allocated"));
	rl_pair_free(&p);

	pair_config(&pc, RL_SIM_FIFO);
	pc.sim.fifo.frames = SIZE_MAX;                         /* once a loop without end */
	CU_ASSERT_EQUAL(rl_pair_init(&p, &pc), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "the FIFO holds at most 1048576 frames"));
	rl_pair_free(&p);
	pc.sim.fifo.frames = RL_SIM_FIFO_MAX_FRAMES + 1;
	CU_ASSERT_PTR_NULL(rl_sim_new(&pc.sim));

	pair_config(&pc, RL_SIM_SIMWIRE);
	pc.sim.wire.drop_rate = 2;
	CU_ASSERT_EQUAL(rl_pair_init(&p, &pc), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "the simulated wire refused its config"));
	rl_pair_free(&p);

	pair_config(&pc, RL_SIM_FIFO);
	pc.sim.host[0].active_mtu = (enum rl_mtu)9;
	CU_ASSERT_EQUAL(rl_pair_init(&p, &pc), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "active MTU is not one of"));
	rl_pair_free(&p);
}

static void never_emit_pkt(void *ctx, const struct rl_path *path, const uint8_t *pkt, size_t len)
{
	(void)ctx; (void)path; (void)pkt; (void)len;
	CU_FAIL("the sim's hosts emit whole frames onto its wire");
}

/* A host config meant for a socket (emit_pkt) still makes a sim host: the wire takes the frames. */
static void test_pair_host_config_with_emit_pkt(void)
{
	for (int kind = RL_SIM_SIMWIRE; kind <= RL_SIM_FIFO; kind++) {
		struct rl_pair_config pc;
		struct rl_send_wr wr;
		struct rl_pair p;
		struct rl_wc wc;

		pair_config(&pc, (enum rl_sim_wire)kind);
		pc.sim.host[0].emit_pkt = pc.sim.host[1].emit_pkt = never_emit_pkt;
		CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
		rl_pair_send_wr(&p, 0, RL_WR_RDMA_WRITE, 0, 32, 0, 1, &wr);
		CU_ASSERT_EQUAL(rl_pair_post_send(&p, 0, &wr), 0);
		CU_ASSERT(rl_pair_run(&p, UINT64_MAX, 1000, NULL, NULL) >= 0);
		CU_ASSERT_EQUAL(rl_pair_poll(&p, 0, &wc, 1), 1);
		CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
		rl_pair_free(&p);
	}
}

/* The FIFO's filter puts a forged copy of frame 1 on the wire: it arrives after frame 1. */
struct inject_probe {
	struct rl_sim *sim;
	uint8_t last[4];            /* the last byte of each frame delivered, in order */
	int n;
	uint8_t sent_last;          /* frame 1's last byte, as its host sent it */
	int sent;
};

static bool inject_after_1(void *ctx, int from, uint8_t *frame, size_t len, uint64_t number)
{
	struct inject_probe *ip = ctx;
	uint8_t copy[RL_SIM_FIFO_SLOT];

	if (number == 1) {
		memcpy(copy, frame, len);
		copy[len - 1] ^= 0xff;                         /* a broken ICRC: the host drops it */
		CU_ASSERT_EQUAL(rl_sim_inject(ip->sim, !from, copy, len), 0);
	}
	return true;
}

static void record_delivery(void *ctx, const struct rl_simwire_delivery *d)
{
	struct inject_probe *ip = ctx;

	if (ip->n < 4)
		ip->last[ip->n] = d->frame[d->len - 1];
	ip->n++;
}

static void record_send(void *ctx, int from, const uint8_t *frame, size_t len)
{
	struct inject_probe *ip = ctx;

	(void)from;
	if (ip->sent++ == 0)
		ip->sent_last = frame[len - 1];
}

static void test_sim_fifo_inject_follows_frame(void)
{
	struct inject_probe ip = { 0 };
	struct rl_pair_config pc;
	struct rl_send_wr wr;
	struct rl_pair p;
	struct rl_qp_stats st;

	pair_config(&pc, RL_SIM_FIFO);
	pc.sim.fifo.filter = inject_after_1;
	pc.sim.fifo.ctx = &ip;
	pc.sim.deliver = record_delivery;
	pc.sim.tap = record_send;
	pc.sim.tap_ctx = &ip;
	CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
	ip.sim = p.sim;
	rl_pair_send_wr(&p, 0, RL_WR_RDMA_WRITE, 0, 32, 0, 1, &wr);
	CU_ASSERT_EQUAL(rl_pair_post_send(&p, 0, &wr), 0);
	CU_ASSERT(rl_pair_run(&p, UINT64_MAX, 1000, NULL, NULL) >= 0);
	CU_ASSERT_EQUAL(ip.n, 3);                              /* the WRITE, the forged copy, the ACK */
	CU_ASSERT_EQUAL(ip.last[0], ip.sent_last);
	CU_ASSERT_EQUAL(ip.last[1], (uint8_t)(ip.sent_last ^ 0xff));
	rl_qp_stats(p.end[1].qp, &st);
	CU_ASSERT_EQUAL(st.icrc_drops, 1);                     /* the copy, not the WRITE, was dropped */
	CU_ASSERT_EQUAL(memcmp(p.end[1].mem, p.end[0].mem, 32), 0);
	rl_pair_free(&p);
}

/*
 * A READ response goes out as the responder's transmit queue takes it
 * (RL_SIM_TX_QUEUE), not all at once. What the record callback saw of the
 * responder's queue, and of its response frames' times.
 */
struct paced {
	struct rl_pair *p;
	size_t max_queued, responses;
	uint64_t first_ns, last_ns;
	uint64_t ser_ns;          /* the serialization times of all responses but the first, summed */
};

#define PACED_MEM (1u << 20)
#define PACED_RATE 25000000000ull

static void paced_record(void *ctx, const struct rl_simwire_record *r)
{
	struct paced *pc = ctx;
	size_t q;

	if (r->from_port != 1 || !pc->p->sim)
		return;
	q = rl_simwire_queued(rl_sim_wire(pc->p->sim), 1, r->sent_ns);
	if (q > pc->max_queued)
		pc->max_queued = q;
	if (!pc->responses++)
		pc->first_ns = r->time_ns;
	else   /* simwire.h: ceil(len * 8e9 / rate_bps) */
		pc->ser_ns += (r->len * 8 * 1000000000ull + PACED_RATE - 1) / PACED_RATE;
	pc->last_ns = r->time_ns;
}

static void paced_config(struct rl_pair_config *pc, struct paced *pr, size_t queue_frames)
{
	pair_config(pc, RL_SIM_SIMWIRE);
	pc->mem[0] = pc->mem[1] = PACED_MEM;
	pc->sim.wire.rate_bps = PACED_RATE;
	pc->sim.wire.queue_frames = queue_frames;
	pc->sim.wire.record = paced_record;
	pc->sim.wire.ctx = pr;
}

/* 512 KiB at path MTU 1024: 512 responses, never more than the queue's worth waiting, back to back. */
static void test_pair_read_paced(void)
{
	struct rl_pair_config pc;
	struct paced pr = { 0 };
	struct rl_send_wr wr;
	struct rl_pair p = { 0 };
	struct rl_wc wc;

	pr.p = &p;
	paced_config(&pc, &pr, 1u << 20);
	CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
	for (uint32_t i = 0; i < PACED_MEM / 2; i++)
		p.end[1].mem[i] = (uint8_t)(i * 7 + i / 251);
	rl_pair_send_wr(&p, 0, RL_WR_RDMA_READ, 0, PACED_MEM / 2, 0, 1, &wr);
	CU_ASSERT_EQUAL_FATAL(rl_pair_post_send(&p, 0, &wr), 0);
	CU_ASSERT(rl_pair_run(&p, UINT64_MAX, 100000, NULL, NULL) >= 0);
	CU_ASSERT_EQUAL(rl_pair_poll(&p, 0, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(p.end[0].mem, p.end[1].mem, PACED_MEM / 2), 0);
	CU_ASSERT_EQUAL(pr.responses, 512);
	CU_ASSERT(pr.max_queued <= RL_SIM_TX_QUEUE);
	CU_ASSERT(pr.max_queued > RL_SIM_TX_QUEUE / 2);    /* it did queue, and never ran dry... */
	/* ... so the responses pass the tap back to back (the queue never ran dry), as if sent at once. */
	CU_ASSERT_EQUAL(pr.last_ns - pr.first_ns, pr.ser_ns);
	CU_ASSERT_FALSE(rl_host_tx_pending(p.end[1].host));
	rl_pair_free(&p);
}

/*
 * IBA 9.5: the responder takes requests in order. A WRITE to the bytes a READ
 * is still returning arrives while the response is going out (a queue of 8
 * frames, a READ of 64, within the requester's window of 128 PSNs): it waits,
 * and the READ returns the bytes from before it.
 */
static void test_pair_read_then_write(void)
{
	struct rl_pair_config pc;
	struct paced pr = { 0 };
	struct rl_send_wr wr;
	struct rl_pair p = { 0 };
	struct rl_wc wc[2];

	pr.p = &p;
	paced_config(&pc, &pr, 8);
	CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
	memset(p.end[1].mem, 'o', 65536);
	memset(p.end[0].mem + 65536, 'n', 1024);
	rl_pair_send_wr(&p, 0, RL_WR_RDMA_READ, 0, 65536, 0, 1, &wr);
	CU_ASSERT_EQUAL_FATAL(rl_pair_post_send(&p, 0, &wr), 0);
	rl_pair_send_wr(&p, 0, RL_WR_RDMA_WRITE, 65536, 1024, 65536 - 1024, 2, &wr);
	CU_ASSERT_EQUAL_FATAL(rl_pair_post_send(&p, 0, &wr), 0);
	CU_ASSERT(rl_pair_run(&p, UINT64_MAX, 100000, NULL, NULL) >= 0);
	CU_ASSERT_EQUAL(rl_pair_poll(&p, 0, wc, 2), 2);
	CU_ASSERT_EQUAL(wc[0].status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[1].status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(pr.max_queued, 8);
	CU_ASSERT_EQUAL(p.end[0].mem[65535], 'o');        /* the READ: before */
	CU_ASSERT_EQUAL(p.end[1].mem[65535], 'n');        /* the WRITE: after */
	rl_pair_free(&p);
}

/* A FIFO too small for what is in flight refuses frames and says so: no silent loss. */
static void test_pair_fifo_refuses(void)
{
	struct rl_pair_config pc;
	struct rl_send_wr wr;
	struct rl_pair p;

	pair_config(&pc, RL_SIM_FIFO);
	pc.sim.fifo.frames = 2;
	CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
	rl_pair_send_wr(&p, 0, RL_WR_RDMA_WRITE, 0, 4096, 0, 1, &wr);   /* 4 packets at MTU 1024 */
	CU_ASSERT_EQUAL(rl_pair_post_send(&p, 0, &wr), 0);
	rl_pair_run(&p, rl_sim_now(p.sim) + 1000000, 1000, NULL, NULL);
	CU_ASSERT(rl_sim_refused(p.sim) > 0);
	rl_pair_free(&p);
}

struct app_probe {
	unsigned calls;
	uint64_t wake_at, seen;
	bool stop;
};

static bool probe_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct app_probe *a = ctx;

	a->calls++;
	a->seen = now;
	if (a->stop)
		rl_sim_stop(sim);
	if (now < a->wake_at)
		rl_sim_wake(sim, a->wake_at);
	return false;
}

/* The application can end a run, and be called back at a time of its choosing on a quiet wire. */
static void test_sim_stop_and_wake(void)
{
	for (int kind = RL_SIM_SIMWIRE; kind <= RL_SIM_FIFO; kind++) {
		struct rl_pair_config pc;
		struct app_probe a = { 0 };
		struct rl_pair p;
		uint64_t t0;

		pair_config(&pc, (enum rl_sim_wire)kind);
		CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
		t0 = rl_sim_now(p.sim);
		a.stop = true;
		CU_ASSERT_EQUAL(rl_pair_run(&p, UINT64_MAX, 100, probe_app, &a), 0);
		CU_ASSERT_EQUAL(a.calls, 1);
		a = (struct app_probe){ .wake_at = t0 + 5000 };
		CU_ASSERT(rl_pair_run(&p, UINT64_MAX, 100, probe_app, &a) > 0);
		CU_ASSERT_EQUAL(a.seen, t0 + 5000);              /* nothing else was due: it came back for us */
		CU_ASSERT_EQUAL(rl_sim_now(p.sim), t0 + 5000);
		rl_pair_free(&p);
	}
}

/*
 * An application that posts with rl_post_send() alone, from its callback,
 * without rl_sim_kick(): what a verbs program does. Its work goes out at
 * once on either wire, whether it says it is busy or not.
 */
struct plain_app {
	struct rl_pair *p;
	int posts, posted;      /* WRITEs to post, one per call */
	bool busy;              /* say "more to do" while posting */
	uint64_t after_frame;   /* post only once this many frames were emitted */
};

static bool plain_post_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct plain_app *a = ctx;
	struct rl_send_wr wr;

	(void)now;
	if (a->posted < a->posts && rl_sim_frames(sim) >= a->after_frame) {
		rl_pair_send_wr(a->p, 0, RL_WR_RDMA_WRITE, 64u * (unsigned)a->posted, 64, 64u * (unsigned)a->posted,
				(uint64_t)a->posted, &wr);
		CU_ASSERT_EQUAL(rl_post_send(a->p->end[0].qp, &wr), 0);
		a->posted++;
	}
	return a->busy && a->posted < a->posts;
}

static void expect_writes(struct rl_pair *p, int n)
{
	struct rl_wc wc[8];
	int got = rl_pair_poll(p, 0, wc, 8);

	CU_ASSERT_EQUAL(got, n);
	for (int k = 0; k < got; k++) {
		CU_ASSERT_EQUAL(wc[k].status, RL_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[k].wr_id, (uint64_t)k);
	}
}

static void test_sim_app_posts_plainly(void)
{
	for (int kind = RL_SIM_SIMWIRE; kind <= RL_SIM_FIFO; kind++)
		for (int busy = 0; busy < 2; busy++) {
			struct rl_pair_config pc;
			struct rl_pair p;
			struct plain_app a = { .p = &p, .posts = 3, .busy = busy };
			uint64_t t0;

			pair_config(&pc, (enum rl_sim_wire)kind);
			CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
			t0 = rl_sim_now(p.sim);
			CU_ASSERT(rl_pair_run(&p, UINT64_MAX, 1000, plain_post_app, &a) >= 0);
			CU_ASSERT_EQUAL(a.posted, 3);
			expect_writes(&p, 3);
			CU_ASSERT_EQUAL(rl_sim_frames(p.sim), 6);          /* three WRITEs, three ACKs */
			CU_ASSERT(rl_sim_now(p.sim) - t0 < 1000000);        /* no timer was waited for */
			rl_pair_free(&p);
		}
}

static bool drop_frame_2(void *ctx, int from, uint8_t *frame, size_t len, uint64_t number)
{
	(void)ctx; (void)from; (void)frame; (void)len;
	return number != 2;
}

/*
 * With a retransmit timer pending (the first WRITE's ACK was lost), a WRITE
 * posted from the callback goes out now, not when the timer fires: its ACK
 * acknowledges both (IBA 9.7.5.1.2), and nothing times out.
 */
static void test_sim_fifo_post_does_not_wait_for_timer(void)
{
	struct rl_pair_config pc;
	struct rl_qp_stats st;
	struct rl_send_wr wr;
	struct rl_pair p;
	struct plain_app a = { .p = &p, .posts = 2, .posted = 1, .after_frame = 2 };
	uint64_t t0;

	pair_config(&pc, RL_SIM_FIFO);
	pc.sim.fifo.filter = drop_frame_2;                      /* #1 the WRITE, #2 its ACK */
	CU_ASSERT_EQUAL_FATAL(rl_pair_init(&p, &pc), 0);
	t0 = rl_sim_now(p.sim);
	rl_pair_send_wr(&p, 0, RL_WR_RDMA_WRITE, 0, 64, 0, 0, &wr);
	CU_ASSERT_EQUAL(rl_pair_post_send(&p, 0, &wr), 0);
	CU_ASSERT(rl_pair_run(&p, UINT64_MAX, 1000, plain_post_app, &a) >= 0);
	CU_ASSERT_EQUAL(a.posted, 2);
	expect_writes(&p, 2);
	rl_qp_stats(p.end[0].qp, &st);
	CU_ASSERT_EQUAL(st.timeouts, 0);
	CU_ASSERT_EQUAL(st.retransmits, 0);
	CU_ASSERT(rl_sim_now(p.sim) - t0 < 1000000);            /* the timer is 67 ms */
	rl_pair_free(&p);
}

int tl_suite_connect(void)
{
	CU_pSuite s = CU_add_suite("connect-pair", NULL, NULL);

	return !s || !CU_add_test(s, "connect RC: every Table 91 attribute lands", test_connect_rc) ||
	       !CU_add_test(s, "connect UC: no ACK, retry or READ/atomic attributes", test_connect_uc) ||
	       !CU_add_test(s, "connect UD: Q_Key, nothing at RTR, SQ PSN", test_connect_ud) ||
	       !CU_add_test(s, "connect from INIT, receives posted first", test_connect_from_init) ||
	       !CU_add_test(s, "connect refuses other starting states", test_connect_wrong_state) ||
	       !CU_add_test(s, "connect: missing attributes refused as modify_qp refuses them",
			    test_connect_missing_attributes) ||
	       !CU_add_test(s, "Table 91's required attributes, per transport", test_attr_required_table_91) ||
	       !CU_add_test(s, "pair: exchange, then a WRITE over either wire", test_pair_write) ||
	       !CU_add_test(s, "pair: errors with a reason", test_pair_errors) ||
	       !CU_add_test(s, "pair: a READ response goes out as the queue takes it", test_pair_read_paced) ||
	       !CU_add_test(s, "pair: a WRITE behind a long READ waits its turn", test_pair_read_then_write) ||
	       !CU_add_test(s, "pair: a full FIFO refuses frames and counts them", test_pair_fifo_refuses) ||
	       !CU_add_test(s, "pair: a config it cannot take, said as what it is", test_pair_config_errors) ||
	       !CU_add_test(s, "pair: a host config with emit_pkt still joins the wire",
			    test_pair_host_config_with_emit_pkt) ||
	       !CU_add_test(s, "sim: FIFO, a frame the filter injects follows the filtered one",
			    test_sim_fifo_inject_follows_frame) ||
	       !CU_add_test(s, "sim: the application stops a run, or wakes at its time", test_sim_stop_and_wake) ||
	       !CU_add_test(s, "sim: work posted from the callback without a kick goes out", test_sim_app_posts_plainly) ||
	       !CU_add_test(s, "sim: FIFO, a post does not wait for a pending timer",
			    test_sim_fifo_post_does_not_wait_for_timer);
}
