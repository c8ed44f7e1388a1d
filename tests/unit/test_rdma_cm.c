/* SPDX-License-Identifier: MIT */
/*
 * The CM agent and the rdma_cm API (cm_agent.c, cm_conn.c, cm_sidr.c,
 * rdma_cm.c) on a pair: rping's connect, data and disconnect, each CM
 * message checked on the wire, and the ways a connection fails or recovers
 * (IBA 12.9).
 */
#include <errno.h>
#include <string.h>

#include "cmh.h"

static struct cmh H;

/* IBA 12.6.5: 4.096 us * 2^20 (the CM response timeout) + 2 * 4.096 us * 2^18 (the packet lifetime, each way). */
#define WAIT_REQ_NS (4294967296ull + 2 * 1073741824ull)

static void expect_events(int s, const enum rl_rdma_cm_event_type *want, int n)
{
	CU_ASSERT_EQUAL(H.nev[s], n);
	for (int i = 0; i < n && i < H.nev[s]; i++)
		if (H.ev[s][i].type != want[i]) {
			CU_FAIL("events out of order");
			cmh_dump(&H);
			return;
		}
}

static void test_event_names(void)
{
	/* librdmacm's enum rdma_cm_event_type and rdma_event_str() */
	CU_ASSERT_STRING_EQUAL(rl_rdma_event_str(RL_RDMA_CM_EVENT_ADDR_RESOLVED), "RDMA_CM_EVENT_ADDR_RESOLVED");
	CU_ASSERT_EQUAL(RL_RDMA_CM_EVENT_CONNECT_REQUEST, 4);
	CU_ASSERT_EQUAL(RL_RDMA_CM_EVENT_ESTABLISHED, 9);
	CU_ASSERT_EQUAL(RL_RDMA_CM_EVENT_DISCONNECTED, 10);
	CU_ASSERT_EQUAL(RL_RDMA_CM_EVENT_TIMEWAIT_EXIT, 15);
	CU_ASSERT_STRING_EQUAL(rl_rdma_event_str(RL_RDMA_CM_EVENT_TIMEWAIT_EXIT), "RDMA_CM_EVENT_TIMEWAIT_EXIT");
	CU_ASSERT_STRING_EQUAL(rl_rdma_event_str(16), "UNKNOWN EVENT");
	CU_ASSERT_STRING_EQUAL(rl_cm_state_name(RL_CM_STATE_REQ_SENT), "REQ Sent");
	CU_ASSERT_STRING_EQUAL(rl_cm_state_name(RL_CM_STATE_TIMEWAIT), "TimeWait");
	/* 2 * 2^18 + 2^15 rounds to 2^19: rxe's REQ says 19 (tests/fixtures/rxe/rping.pcap) */
	CU_ASSERT_EQUAL(rl_cm_ack_timeout(15, 18), 19);
	CU_ASSERT_EQUAL(rl_cm_ack_timeout(18, 17), 19);
	CU_ASSERT_EQUAL(rl_cm_ack_timeout(20, 10), 20);
}

static void no_emit(void *ctx, const uint8_t *frame, size_t len)
{
	(void)ctx;
	(void)frame;
	(void)len;
}

static void test_gsi_qp(void)
{
	struct rl_host_config hc = { .mac = { 2, 0, 0, 0, 0, 1 }, .gid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 } };
	struct rl_host *h;
	struct rl_pd *pd;
	struct rl_cq *cq;
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_GSI };
	struct rl_qp_attr a = { .qp_state = RL_QPS_INIT, .port_num = 1, .qkey = 0x11111111 };
	struct rl_qp *qp;

	hc.emit = no_emit;
	h = rl_host_new(&hc);
	pd = rl_alloc_pd(h);
	cq = rl_create_cq(h, 16);
	ia.send_cq = ia.recv_cq = cq;
	qp = rl_create_qp(pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_EQUAL(rl_qp_num(qp), 1);             /* IBA 13.5.1: QP1 */
	CU_ASSERT_PTR_NULL(rl_create_qp(pd, &ia));     /* one per port */
	/* Only the GSI's Q_Key (IBA 13.5.1), and a UD QP's transitions. */
	CU_ASSERT_EQUAL(rl_modify_qp(qp, &a, rl_qp_attr_required(RL_QPT_GSI, RL_QPS_RESET, RL_QPS_INIT)), -EINVAL);
	a.qkey = RL_GSI_QKEY;
	CU_ASSERT_EQUAL(rl_modify_qp(qp, &a, rl_qp_attr_required(RL_QPT_GSI, RL_QPS_RESET, RL_QPS_INIT)), 0);
	CU_ASSERT_EQUAL(rl_qp_attr_required(RL_QPT_GSI, RL_QPS_INIT, RL_QPS_RTR),
			rl_qp_attr_required(RL_QPT_UD, RL_QPS_INIT, RL_QPS_RTR));
	rl_host_free(h);
}

/* The REQ as the kernel fills it for rping (tests/fixtures/rxe/rping.pcap, frame 3), field by field. */
static void check_req(const struct rl_cm *req)
{
	uint16_t ps, port;
	struct rl_cma_hdr ch;
	size_t n, pdn;
	const uint8_t *pd = rl_cm_bytes(req, RL_CMF_REQ_PRIVATE_DATA, &pdn);

	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_MAD_BASE_VERSION), 1);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_MAD_MGMT_CLASS), 7);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_MAD_CLASS_VERSION), 2);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_MAD_METHOD), 3);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_SERVICE_ID), 0x0000000001061c06ull);   /* RDMA_PS_TCP, 7174 */
	CU_ASSERT(rl_cm_service_ps(rl_cm_get(req, RL_CMF_REQ_SERVICE_ID), &ps, &port) && port == 7174);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_LOCAL_CA_GUID), 0x020000fffe000001ull);   /* EUI-64 of the MAC */
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_LOCAL_QKEY), 0);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_RESPONDER_RESOURCES), 1);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_INITIATOR_DEPTH), 1);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_REMOTE_CM_RESPONSE_TIMEOUT), 20);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_TRANSPORT_SERVICE_TYPE), 0);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_END_TO_END_FLOW_CONTROL), 0);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_LOCAL_CM_RESPONSE_TIMEOUT), 20);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_RETRY_COUNT), 7);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PKEY), 0xffff);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PATH_MTU), 3);   /* 1024 */
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_RNR_RETRY_COUNT), 7);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_MAX_CM_RETRIES), 15);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_SRQ), 0);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PRIMARY_LOCAL_LID), 0xffff);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PRIMARY_REMOTE_LID), 0xffff);
	CU_ASSERT_EQUAL(memcmp(rl_cm_bytes(req, RL_CMF_REQ_PRIMARY_LOCAL_GID, &n), H.p.end[0].gid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(rl_cm_bytes(req, RL_CMF_REQ_PRIMARY_REMOTE_GID, &n), H.p.end[1].gid, 16), 0);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PRIMARY_PACKET_RATE), 0);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PRIMARY_TRAFFIC_CLASS), 0);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PRIMARY_HOP_LIMIT), 64);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PRIMARY_SL), 0);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PRIMARY_SUBNET_LOCAL), 0);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PRIMARY_LOCAL_ACK_TIMEOUT), 19);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_ALTERNATE_LOCAL_LID), 0);
	/* rdma_cm's header: 10.0.0.1, its port, to 10.0.0.2; the flow label hashes the two ports (cma.c) */
	CU_ASSERT_FATAL(pd && rl_cma_hdr_decode(pd, pdn, &ch));
	CU_ASSERT_EQUAL(ch.ip_version, 4);
	CU_ASSERT_EQUAL(ch.src[15], 1);
	CU_ASSERT_EQUAL(ch.src[10], 0);   /* the IPv4 address alone, not IPv4-mapped */
	CU_ASSERT_EQUAL(ch.dst[15], 2);
	CU_ASSERT_EQUAL(rl_cm_get(req, RL_CMF_REQ_PRIMARY_FLOW_LABEL), (ch.src_port * 31u + 7174u) & 0xfffff);
}

static void check_rep(const struct rl_cm *rep)
{
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_LOCAL_QKEY), 0);
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_LOCAL_EECN), 0);
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_RESPONDER_RESOURCES), 1);
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_INITIATOR_DEPTH), 1);
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_TARGET_ACK_DELAY), 15);
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_FAILOVER_ACCEPTED), 0);
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_END_TO_END_FLOW_CONTROL), 0);
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_RNR_RETRY_COUNT), 7);
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_SRQ), 0);
	CU_ASSERT_EQUAL(rl_cm_get(rep, RL_CMF_REP_LOCAL_CA_GUID), 0x020000fffe000002ull);
}

static const enum rl_rdma_cm_event_type active_ok[] = {
	RL_RDMA_CM_EVENT_ADDR_RESOLVED, RL_RDMA_CM_EVENT_ROUTE_RESOLVED, RL_RDMA_CM_EVENT_ESTABLISHED,
};
static const enum rl_rdma_cm_event_type passive_ok[] = {
	RL_RDMA_CM_EVENT_CONNECT_REQUEST, RL_RDMA_CM_EVENT_ESTABLISHED,
};

/* Both QPs in RTS, each aimed at the other, with the PSNs the REQ and REP announced. */
static void check_connected(void)
{
	const struct cmh_frame *req = cmh_cm_frame(&H, RL_CM_REQ, 0), *rep = cmh_cm_frame(&H, RL_CM_REP, 0);
	struct rl_qp_attr a0, a1;

	CU_ASSERT_FATAL(req && rep);
	rl_query_qp(H.p.end[0].qp, &a0);
	rl_query_qp(H.p.end[1].qp, &a1);
	CU_ASSERT_EQUAL(a0.qp_state, RL_QPS_RTS);
	CU_ASSERT_EQUAL(a1.qp_state, RL_QPS_RTS);
	CU_ASSERT_EQUAL(a0.dest_qp_num, rl_qp_num(H.p.end[1].qp));
	CU_ASSERT_EQUAL(a1.dest_qp_num, rl_qp_num(H.p.end[0].qp));
	CU_ASSERT_EQUAL(rl_cm_get(&req->cm, RL_CMF_REQ_LOCAL_QPN), rl_qp_num(H.p.end[0].qp));
	CU_ASSERT_EQUAL(rl_cm_get(&rep->cm, RL_CMF_REP_LOCAL_QPN), rl_qp_num(H.p.end[1].qp));
	/* A Starting PSN is where its sender receives, so where the other side sends (kernel cm.c; rxe's rping). */
	CU_ASSERT_EQUAL(a0.rq_psn, rl_cm_get(&req->cm, RL_CMF_REQ_STARTING_PSN));
	CU_ASSERT_EQUAL(a1.sq_psn, rl_cm_get(&req->cm, RL_CMF_REQ_STARTING_PSN));
	CU_ASSERT_EQUAL(a1.rq_psn, rl_cm_get(&rep->cm, RL_CMF_REP_STARTING_PSN));
	CU_ASSERT_EQUAL(a0.sq_psn, rl_cm_get(&rep->cm, RL_CMF_REP_STARTING_PSN));
	/* What the REQ asked of the passive QP, what the REP told the active one. */
	CU_ASSERT_EQUAL(a1.retry_cnt, 7);
	CU_ASSERT_EQUAL(a1.rnr_retry, 7);
	CU_ASSERT_EQUAL(a1.timeout, 19);
	CU_ASSERT_EQUAL(a0.timeout, 19);
	CU_ASSERT_EQUAL(a0.max_rd_atomic, 1);
	CU_ASSERT_EQUAL(a1.max_dest_rd_atomic, 1);
	CU_ASSERT_EQUAL(a0.path_mtu, RL_MTU_1024);
}

/* A SEND each way: the data starts at the PSNs the CM exchange announced. */
static void send_both_ways(void)
{
	const struct cmh_frame *req = cmh_cm_frame(&H, RL_CM_REQ, 0), *rep = cmh_cm_frame(&H, RL_CM_REP, 0);
	const struct cmh_frame *d0, *d1;
	struct rl_send_wr wr;
	struct rl_wc wc[4];

	for (int s = 0; s < 2; s++) {
		CU_ASSERT_EQUAL(rl_pair_post_recv(&H.p, !s, 4096, 64, 10 + s), 0);
		rl_pair_send_wr(&H.p, s, RL_WR_SEND, 0, 16, 0, s, &wr);
		CU_ASSERT_EQUAL(rl_pair_post_send(&H.p, s, &wr), 0);
	}
	cmh_run(&H, rl_sim_now(H.p.sim) + 1000000000ull);
	d0 = cmh_data_frame(&H, 0);
	d1 = cmh_data_frame(&H, 1);
	CU_ASSERT_FATAL(d0 && d1 && req && rep);
	CU_ASSERT_EQUAL(d0->psn, rl_cm_get(&rep->cm, RL_CMF_REP_STARTING_PSN));
	CU_ASSERT_EQUAL(d1->psn, rl_cm_get(&req->cm, RL_CMF_REQ_STARTING_PSN));
	CU_ASSERT_EQUAL(rl_pair_poll(&H.p, 0, wc, 4), 2);   /* the SEND and the receive */
	CU_ASSERT_EQUAL(rl_pair_poll(&H.p, 1, wc, 4), 2);
}

static void connect_disconnect(const struct rl_simwire_config *wire)
{
	const struct cmh_frame *req, *rep, *rtu, *dreq, *drep;

	cmh_setup(&H, RL_QPT_RC, wire, 1);
	cmh_start(&H);
	cmh_run(&H, 60000000000ull);
	expect_events(0, active_ok, 3);
	expect_events(1, passive_ok, 2);
	CU_ASSERT_EQUAL(H.nf, 3);   /* REQ, REP, RTU: nothing resent */
	req = cmh_cm_frame(&H, RL_CM_REQ, 0);
	rep = cmh_cm_frame(&H, RL_CM_REP, 0);
	rtu = cmh_cm_frame(&H, RL_CM_RTU, 0);
	CU_ASSERT_FATAL(req && rep && rtu);
	CU_ASSERT(req->from == 0 && rep->from == 1 && rtu->from == 0);
	/* QP1 to QP1; rxe numbers QP1's sends 0, 1, 2 ... */
	CU_ASSERT(req->dqpn == 1 && rep->dqpn == 1 && req->psn == 0 && rep->psn == 0 && rtu->psn == 1);
	check_req(&req->cm);
	check_rep(&rep->cm);
	/* The answers pair up by communication and transaction IDs. */
	CU_ASSERT_EQUAL(rl_cm_get(&rep->cm, RL_CMF_REP_REMOTE_COMM_ID), rl_cm_get(&req->cm, RL_CMF_REQ_LOCAL_COMM_ID));
	CU_ASSERT_EQUAL(rl_cm_get(&rtu->cm, RL_CMF_RTU_LOCAL_COMM_ID), rl_cm_get(&req->cm, RL_CMF_REQ_LOCAL_COMM_ID));
	CU_ASSERT_EQUAL(rl_cm_get(&rtu->cm, RL_CMF_RTU_REMOTE_COMM_ID), rl_cm_get(&rep->cm, RL_CMF_REP_LOCAL_COMM_ID));
	CU_ASSERT_EQUAL(rl_cm_get(&rep->cm, RL_CMF_MAD_TID), rl_cm_get(&req->cm, RL_CMF_MAD_TID));
	check_connected();
	send_both_ways();

	/* rping's end: the client disconnects; the server, told DISCONNECTED, does too (the DREP). */
	H.disconnected[0] = true;
	CU_ASSERT_EQUAL(rl_rdma_disconnect(H.act), 0);
	cmh_run(&H, rl_sim_now(H.p.sim) + 60000000000ull);
	dreq = cmh_cm_frame(&H, RL_CM_DREQ, 0);
	drep = cmh_cm_frame(&H, RL_CM_DREP, 0);
	CU_ASSERT_FATAL(dreq && drep);
	CU_ASSERT(dreq->from == 0 && drep->from == 1);
	CU_ASSERT_EQUAL(rl_cm_get(&dreq->cm, RL_CMF_DREQ_REMOTE_QPN), rl_qp_num(H.p.end[1].qp));
	CU_ASSERT_EQUAL(rl_cm_get(&drep->cm, RL_CMF_DREP_REMOTE_COMM_ID), rl_cm_get(&dreq->cm, RL_CMF_DREQ_LOCAL_COMM_ID));
	CU_ASSERT_EQUAL(rl_cm_get(&drep->cm, RL_CMF_MAD_TID), rl_cm_get(&dreq->cm, RL_CMF_MAD_TID));
	CU_ASSERT_EQUAL(cmh_count(&H, 0, RL_RDMA_CM_EVENT_DISCONNECTED), 1);
	CU_ASSERT_EQUAL(cmh_count(&H, 1, RL_RDMA_CM_EVENT_DISCONNECTED), 1);
	CU_ASSERT_EQUAL(cmh_count(&H, 0, RL_RDMA_CM_EVENT_TIMEWAIT_EXIT), 1);
	CU_ASSERT_EQUAL(cmh_count(&H, 1, RL_RDMA_CM_EVENT_TIMEWAIT_EXIT), 1);
	CU_ASSERT_EQUAL(rl_qp_state(H.p.end[0].qp), RL_QPS_ERR);
	CU_ASSERT_EQUAL(rl_qp_state(H.p.end[1].qp), RL_QPS_ERR);
	cmh_teardown(&H);
}

static void test_connect_fifo(void) { connect_disconnect(NULL); }

/*
 * perftest -R's READ tools offer rxe's max_qp_rd_atom (128) each way, in
 * the REQ and in the kernel's REP: the QPs still connect, with the 16 the
 * reference QP takes (fixed 128 on one side, the kernel's REP 0x80 in a
 * capture of ib_read_bw -R against rocelab).
 */
static void test_rd_atomic_capped(void)
{
	const struct cmh_frame *req, *rep;
	struct rl_qp_attr a0, a1;

	cmh_setup(&H, RL_QPT_RC, NULL, 1);
	H.param.responder_resources = H.param.initiator_depth = 128;
	cmh_start(&H);
	cmh_run(&H, 60000000000ull);
	expect_events(0, active_ok, 3);
	expect_events(1, passive_ok, 2);
	req = cmh_cm_frame(&H, RL_CM_REQ, 0);
	rep = cmh_cm_frame(&H, RL_CM_REP, 0);
	CU_ASSERT_FATAL(req && rep);
	CU_ASSERT_EQUAL(rl_cm_get(&req->cm, RL_CMF_REQ_RESPONDER_RESOURCES), 128);
	CU_ASSERT_EQUAL(rl_cm_get(&rep->cm, RL_CMF_REP_INITIATOR_DEPTH), 128);
	rl_query_qp(H.p.end[0].qp, &a0);
	rl_query_qp(H.p.end[1].qp, &a1);
	CU_ASSERT_EQUAL(a0.qp_state, RL_QPS_RTS);
	CU_ASSERT_EQUAL(a1.qp_state, RL_QPS_RTS);
	CU_ASSERT_EQUAL(a0.max_rd_atomic, 16);
	CU_ASSERT_EQUAL(a0.max_dest_rd_atomic, 16);
	CU_ASSERT_EQUAL(a1.max_rd_atomic, 16);
	CU_ASSERT_EQUAL(a1.max_dest_rd_atomic, 16);
	cmh_teardown(&H);
}

static void test_connect_simwire(void)
{
	struct rl_simwire_config w = { .latency_ns = 5000, .rate_bps = 10000000000ull, .seed = 7 };

	connect_disconnect(&w);
}

/* Connect as the test set H up, for up to a minute: the REJ that must come of it. */
static const struct cmh_frame *run_to_rej(void)
{
	const struct cmh_frame *rej;

	cmh_start(&H);
	cmh_run(&H, 60000000000ull);
	rej = cmh_cm_frame(&H, RL_CM_REJ, 0);
	CU_ASSERT_FATAL(rej != NULL);
	return rej;
}

static void test_no_listener(void)
{
	const struct cmh_frame *rej;

	cmh_setup(&H, RL_QPT_RC, NULL, 2);
	H.no_listener = true;
	rej = run_to_rej();
	CU_ASSERT_EQUAL(rej->from, 1);
	CU_ASSERT_EQUAL(rl_cm_get(&rej->cm, RL_CMF_REJ_REASON), 8);   /* invalid service ID */
	CU_ASSERT_EQUAL(rl_cm_get(&rej->cm, RL_CMF_REJ_MESSAGE_REJECTED), 0);   /* the REQ */
	CU_ASSERT_EQUAL(rl_cm_get(&rej->cm, RL_CMF_REJ_REMOTE_COMM_ID),
			rl_cm_get(&cmh_cm_frame(&H, RL_CM_REQ, 0)->cm, RL_CMF_REQ_LOCAL_COMM_ID));
	CU_ASSERT_EQUAL(cmh_count(&H, 0, RL_RDMA_CM_EVENT_REJECTED), 1);
	CU_ASSERT_EQUAL(H.ev[0][H.nev[0] - 1].status, 8);
	CU_ASSERT_EQUAL(H.nev[1], 0);
	CU_ASSERT_EQUAL(rl_qp_state(H.p.end[0].qp), RL_QPS_ERR);
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_REQ), 1);   /* no resend after a REJ */
	cmh_teardown(&H);
}

static void test_consumer_reject(void)
{
	const struct cmh_frame *rej;
	const struct cmh_event *e;

	cmh_setup(&H, RL_QPT_RC, NULL, 3);
	H.answer = CMH_REJECT;
	rej = run_to_rej();
	CU_ASSERT_EQUAL(rl_cm_get(&rej->cm, RL_CMF_REJ_REASON), 28);   /* consumer reject */
	CU_ASSERT_EQUAL(cmh_count(&H, 0, RL_RDMA_CM_EVENT_REJECTED), 1);
	e = &H.ev[0][H.nev[0] - 1];
	CU_ASSERT_EQUAL(e->type, RL_RDMA_CM_EVENT_REJECTED);
	CU_ASSERT_EQUAL(e->status, 28);
	CU_ASSERT_STRING_EQUAL((const char *)e->pd, "no thanks");
	CU_ASSERT_EQUAL(cmh_count(&H, 0, RL_RDMA_CM_EVENT_ESTABLISHED), 0);
	CU_ASSERT_EQUAL(rl_qp_state(H.p.end[0].qp), RL_QPS_ERR);
	cmh_teardown(&H);
}

static void test_req_lost(void)
{
	const struct cmh_frame *r0, *r1;

	cmh_setup(&H, RL_QPT_RC, NULL, 4);
	H.drop[H.ndrop++] = 1;   /* the first REQ */
	cmh_start(&H);
	cmh_run(&H, 60000000000ull);
	r0 = cmh_cm_frame(&H, RL_CM_REQ, 0);
	r1 = cmh_cm_frame(&H, RL_CM_REQ, 1);
	CU_ASSERT_FATAL(r0 && r1);
	CU_ASSERT_EQUAL(r1->t - r0->t, WAIT_REQ_NS);
	CU_ASSERT_EQUAL(memcmp(r0->cm.mad, r1->cm.mad, RL_MAD_LEN), 0);   /* the same REQ, the same TID */
	expect_events(0, active_ok, 3);
	expect_events(1, passive_ok, 2);
	check_connected();
	cmh_teardown(&H);
}

static void test_rep_lost(void)
{
	cmh_setup(&H, RL_QPT_RC, NULL, 5);
	H.drop[H.ndrop++] = 2;   /* the REP: the active side resends its REQ, the passive side its REP */
	cmh_start(&H);
	cmh_run(&H, 60000000000ull);
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_REQ), 2);
	/* The resent REQ is answered with the REP; the REP's own timer runs out at the same microsecond here. */
	CU_ASSERT(cmh_cm_count(&H, RL_CM_REP) >= 2 && cmh_cm_count(&H, RL_CM_REP) <= 3);
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_MRA), 0);   /* the REQ was answered already: no MRA */
	expect_events(0, active_ok, 3);
	expect_events(1, passive_ok, 2);
	check_connected();
	cmh_teardown(&H);
}

static void test_rtu_lost_data_establishes(void)
{
	struct rl_send_wr wr;

	cmh_setup(&H, RL_QPT_RC, NULL, 6);
	H.drop[H.ndrop++] = 3;   /* the RTU */
	cmh_start(&H);
	cmh_run(&H, 1000000);    /* 1 ms: long before the REP's timer */
	CU_ASSERT_EQUAL(cmh_count(&H, 0, RL_RDMA_CM_EVENT_ESTABLISHED), 1);
	CU_ASSERT_EQUAL(cmh_count(&H, 1, RL_RDMA_CM_EVENT_ESTABLISHED), 0);
	CU_ASSERT_EQUAL(rl_rdma_id_state(H.pas), RL_CM_STATE_REP_SENT);
	/* The active side sends at once, as rping's client does: the data stands in for the RTU. */
	rl_pair_post_recv(&H.p, 1, 0, 64, 1);
	rl_pair_send_wr(&H.p, 0, RL_WR_SEND, 0, 16, 0, 2, &wr);
	CU_ASSERT_EQUAL(rl_pair_post_send(&H.p, 0, &wr), 0);
	cmh_run(&H, 2000000);
	CU_ASSERT_EQUAL(cmh_count(&H, 1, RL_RDMA_CM_EVENT_ESTABLISHED), 1);
	CU_ASSERT_EQUAL(rl_rdma_id_state(H.pas), RL_CM_STATE_ESTABLISHED);
	cmh_run(&H, 60000000000ull);
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_REP), 1);   /* no resend: established */
	CU_ASSERT_EQUAL(cmh_count(&H, 1, RL_RDMA_CM_EVENT_ESTABLISHED), 1);
	cmh_teardown(&H);
}

static void test_rtu_lost_rep_resent(void)
{
	cmh_setup(&H, RL_QPT_RC, NULL, 7);
	H.drop[H.ndrop++] = 3;   /* the RTU, and no data: the REP times out, the RTU is sent again */
	cmh_start(&H);
	cmh_run(&H, 60000000000ull);
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_REP), 2);
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_RTU), 2);
	CU_ASSERT_EQUAL(cmh_cm_frame(&H, RL_CM_REP, 1)->t - cmh_cm_frame(&H, RL_CM_REP, 0)->t, WAIT_REQ_NS);
	expect_events(0, active_ok, 3);
	expect_events(1, passive_ok, 2);
	cmh_teardown(&H);
}

static void test_drep_lost(void)
{
	const struct cmh_frame *d0, *d1;

	cmh_setup(&H, RL_QPT_RC, NULL, 13);
	H.drop[H.ndrop++] = 5;   /* REQ, REP, RTU, DREQ, then the DREP */
	cmh_start(&H);
	cmh_run(&H, 60000000000ull);
	H.disconnected[0] = true;
	CU_ASSERT_EQUAL(rl_rdma_disconnect(H.act), 0);
	cmh_run(&H, rl_sim_now(H.p.sim) + 200000000000ull);
	/* The DREQ is resent after the passive side's TimeWait ended; it is answered all the same. */
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_DREQ), 2);
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_DREP), 2);
	d0 = cmh_cm_frame(&H, RL_CM_DREQ, 0);
	d1 = cmh_cm_frame(&H, RL_CM_DREQ, 1);
	CU_ASSERT_FATAL(d0 && d1 && cmh_cm_frame(&H, RL_CM_DREP, 1));
	CU_ASSERT_EQUAL(d1->t - d0->t, WAIT_REQ_NS);
	CU_ASSERT_EQUAL(rl_cm_get(&cmh_cm_frame(&H, RL_CM_DREP, 1)->cm, RL_CMF_DREP_REMOTE_COMM_ID),
			rl_cm_get(&d1->cm, RL_CMF_DREQ_LOCAL_COMM_ID));
	CU_ASSERT_EQUAL(cmh_count(&H, 0, RL_RDMA_CM_EVENT_DISCONNECTED), 1);
	CU_ASSERT_EQUAL(cmh_count(&H, 1, RL_RDMA_CM_EVENT_DISCONNECTED), 1);
	cmh_teardown(&H);
}

static void test_slow_accept_mra(void)
{
	const struct cmh_frame *mra, *rep;

	cmh_setup(&H, RL_QPT_RC, NULL, 8);
	H.accept_delay_ns = 10000000000ull;   /* the server takes 10 s: longer than the REQ's timeout */
	cmh_start(&H);
	cmh_run(&H, 200000000000ull);
	mra = cmh_cm_frame(&H, RL_CM_MRA, 0);
	rep = cmh_cm_frame(&H, RL_CM_REP, 0);
	CU_ASSERT_FATAL(mra && rep);
	CU_ASSERT_EQUAL(mra->from, 1);
	CU_ASSERT_EQUAL(mra->t, cmh_cm_frame(&H, RL_CM_REQ, 1)->t + 1000);   /* the answer to the resent REQ */
	CU_ASSERT_EQUAL(rl_cm_get(&mra->cm, RL_CMF_MRA_MESSAGE_MRAED), 0);     /* it acknowledges the REQ */
	CU_ASSERT_EQUAL(rl_cm_get(&mra->cm, RL_CMF_MRA_SERVICE_TIMEOUT), 24);  /* rdma_cm's */
	/* After the MRA the active side waits the service timeout: no third REQ before the REP. */
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_REQ), 2);
	CU_ASSERT(rep->t >= 10000000000ull);
	expect_events(0, active_ok, 3);
	expect_events(1, passive_ok, 2);
	check_connected();
	cmh_teardown(&H);
}

static void test_unreachable(void)
{
	const struct cmh_event *e;

	cmh_setup(&H, RL_QPT_RC, NULL, 9);
	H.drop_from = 0;   /* nothing from the active side arrives */
	cmh_start(&H);
	cmh_run(&H, 1000000000000ull);
	CU_ASSERT_EQUAL(cmh_cm_count(&H, RL_CM_REQ), 16);   /* the REQ and 15 retries */
	CU_ASSERT_EQUAL(cmh_cm_frame(&H, RL_CM_REQ, 15)->t - cmh_cm_frame(&H, RL_CM_REQ, 0)->t, 15 * WAIT_REQ_NS);
	CU_ASSERT_EQUAL(rl_cm_get(&cmh_cm_frame(&H, RL_CM_REJ, 0)->cm, RL_CMF_REJ_REASON), 4);   /* timeout */
	CU_ASSERT_EQUAL(H.nev[0], 3);
	e = &H.ev[0][2];
	CU_ASSERT_EQUAL(e->type, RL_RDMA_CM_EVENT_UNREACHABLE);
	CU_ASSERT_EQUAL(e->status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(e->t - cmh_cm_frame(&H, RL_CM_REQ, 0)->t, 16 * WAIT_REQ_NS);
	CU_ASSERT_EQUAL(H.nev[1], 0);
	cmh_teardown(&H);
}

static void test_sidr(void)
{
	const struct cmh_frame *req, *rep;
	const struct cmh_event *e;
	struct rl_send_wr wr;
	struct rl_wc wc[4];
	struct rl_qp_attr a;

	cmh_setup(&H, RL_QPT_UD, NULL, 10);
	cmh_start(&H);
	cmh_run(&H, 60000000000ull);
	req = cmh_cm_frame(&H, RL_CM_SIDR_REQ, 0);
	rep = cmh_cm_frame(&H, RL_CM_SIDR_REP, 0);
	CU_ASSERT_FATAL(req && rep);
	CU_ASSERT_EQUAL(H.nf, 2);
	CU_ASSERT_EQUAL(rl_cm_get(&req->cm, RL_CMF_SIDR_REQ_SERVICE_ID), 0x0000000001111c06ull);   /* RDMA_PS_UDP */
	CU_ASSERT_EQUAL(rl_cm_get(&rep->cm, RL_CMF_SIDR_REP_REQUEST_ID), rl_cm_get(&req->cm, RL_CMF_SIDR_REQ_REQUEST_ID));
	CU_ASSERT_EQUAL(rl_cm_get(&rep->cm, RL_CMF_SIDR_REP_STATUS), 0);
	CU_ASSERT_EQUAL(rl_cm_get(&rep->cm, RL_CMF_SIDR_REP_QPN), rl_qp_num(H.p.end[1].qp));
	CU_ASSERT_EQUAL(rl_cm_get(&rep->cm, RL_CMF_SIDR_REP_QKEY), 0x01234567);   /* RDMA_UDP_QKEY */
	CU_ASSERT_EQUAL(cmh_count(&H, 1, RL_RDMA_CM_EVENT_CONNECT_REQUEST), 1);
	CU_ASSERT_EQUAL(cmh_count(&H, 1, RL_RDMA_CM_EVENT_ESTABLISHED), 0);   /* udaddy's server gets none */
	CU_ASSERT_EQUAL(H.nev[0], 3);
	e = &H.ev[0][2];
	CU_ASSERT_EQUAL(e->type, RL_RDMA_CM_EVENT_ESTABLISHED);
	CU_ASSERT_EQUAL(e->ud_qpn, rl_qp_num(H.p.end[1].qp));
	CU_ASSERT_EQUAL(e->ud_qkey, 0x01234567);
	rl_query_qp(H.p.end[1].qp, &a);
	CU_ASSERT_EQUAL(a.qp_state, RL_QPS_RTS);
	CU_ASSERT_EQUAL(a.qkey, 0x01234567);
	/* A datagram to what the SIDR_REP said arrives. */
	rl_pair_post_recv(&H.p, 1, 0, 1024, 1);
	rl_pair_send_wr(&H.p, 0, RL_WR_SEND, 0, 32, 0, 2, &wr);
	wr.ud.remote_qpn = e->ud_qpn;
	wr.ud.remote_qkey = e->ud_qkey;
	CU_ASSERT_EQUAL(rl_pair_post_send(&H.p, 0, &wr), 0);
	cmh_run(&H, rl_sim_now(H.p.sim) + 1000000000ull);
	CU_ASSERT_EQUAL(rl_pair_poll(&H.p, 1, wc, 4), 1);
	CU_ASSERT_EQUAL(wc[0].status, RL_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].byte_len, 40 + 32);
	cmh_teardown(&H);
}

static void test_sidr_no_listener(void)
{
	cmh_setup(&H, RL_QPT_UD, NULL, 11);
	H.no_listener = true;
	cmh_start(&H);
	cmh_run(&H, 60000000000ull);
	CU_ASSERT_EQUAL(rl_cm_get(&cmh_cm_frame(&H, RL_CM_SIDR_REP, 0)->cm, RL_CMF_SIDR_REP_STATUS), 1);
	CU_ASSERT_EQUAL(H.nev[0], 3);
	CU_ASSERT_EQUAL(H.ev[0][2].type, RL_RDMA_CM_EVENT_UNREACHABLE);
	CU_ASSERT_EQUAL(H.ev[0][2].status, 1);
	cmh_teardown(&H);
}

static void test_api_misuse(void)
{
	struct rl_rdma_addr mine = { { 0 }, 1 };

	cmh_setup(&H, RL_QPT_RC, NULL, 12);
	CU_ASSERT_PTR_NULL(rl_rdma_create_id(H.p.end[0].cm, NULL, RL_RDMA_PS_IB));
	CU_ASSERT_EQUAL(rl_rdma_connect(H.act, &H.param), -EINVAL);       /* no route yet */
	CU_ASSERT_EQUAL(rl_rdma_accept(H.act, &H.param), -EINVAL);        /* no CONNECT_REQUEST */
	CU_ASSERT_EQUAL(rl_rdma_disconnect(H.act), -EINVAL);              /* not connected */
	mine.gid[15] = 9;                                                   /* not this host's address */
	CU_ASSERT_EQUAL(rl_rdma_bind_addr(H.act, &mine), -EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(rl_rdma_attach_qp(H.act, H.p.end[0].qp), -EINVAL); /* it has one */
	cmh_teardown(&H);
}

int tl_suite_rdma_cm(void)
{
	CU_pSuite s = CU_add_suite("rdma_cm", NULL, NULL);

	return !s || !CU_add_test(s, "event names and values are librdmacm's", test_event_names) ||
	       !CU_add_test(s, "QP1 is a UD QP with the GSI's number and Q_Key", test_gsi_qp) ||
	       !CU_add_test(s, "connect, data, disconnect on the FIFO", test_connect_fifo) ||
	       !CU_add_test(s, "READ depth 128 offered (perftest -R): the QPs take 16", test_rd_atomic_capped) ||
	       !CU_add_test(s, "connect, data, disconnect on the simulated wire", test_connect_simwire) ||
	       !CU_add_test(s, "no listener: REJ 8, REJECTED", test_no_listener) ||
	       !CU_add_test(s, "rdma_reject: REJ 28 with private data", test_consumer_reject) ||
	       !CU_add_test(s, "REQ lost: resent after the CM response timeout", test_req_lost) ||
	       !CU_add_test(s, "REP lost: REQ resent, REP resent, one connection", test_rep_lost) ||
	       !CU_add_test(s, "RTU lost: the first data packet establishes", test_rtu_lost_data_establishes) ||
	       !CU_add_test(s, "RTU lost: the REP is resent, the RTU too", test_rtu_lost_rep_resent) ||
	       !CU_add_test(s, "DREP lost: the DREQ resent after TimeWait is answered", test_drep_lost) ||
	       !CU_add_test(s, "slow accept: MRA to the resent REQ", test_slow_accept_mra) ||
	       !CU_add_test(s, "nothing arrives: 16 REQs, REJ timeout, UNREACHABLE", test_unreachable) ||
	       !CU_add_test(s, "SIDR: QPN and Q_Key for a UD send", test_sidr) ||
	       !CU_add_test(s, "SIDR with no listener: status 1, UNREACHABLE", test_sidr_no_listener) ||
	       !CU_add_test(s, "API misuse is refused", test_api_misuse);
}
