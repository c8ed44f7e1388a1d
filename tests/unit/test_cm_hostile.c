/* SPDX-License-Identifier: MIT */
/*
 * The CM agent against what anybody on the network may send QP1: floods,
 * duplicates, messages for connections it does not have, MADs of another
 * version or method, cut short or too long, REQs it cannot honour. Each test
 * reproduces a finding of tests/fuzz/fuzz_cm.c or a bound the kernel keeps
 * (drivers/infiniband/core/cm.c, ucma.c, mad.c).
 *
 * The fixture: the passive host 10.0.0.2 (side 1) with an RC and a UD
 * listener on rping's port, the active host 10.0.0.1 (side 0), and a wire
 * that is two queues the test empties; MADs the test makes come from the
 * active host's address (or 10.0.0.3, a stranger with a MAC).
 */
#include <errno.h>
#include <string.h>

#include "testlib.h"
#include "rocelab/rocelab.h"
#include "rocelab/cm.h"
#include "rocelab/rdma_cm.h"

#define HX_PORT 7174
#define HX_QUEUE 64
#define HX_FRAME 1024
#define HX_EVENTS 64
#define HX_STRANGER 2

struct hx_frame {
	uint8_t b[HX_FRAME];
	size_t len;
};

struct hx_side {
	struct rl_host *h;
	struct rl_cm_agent *cm;
	struct rl_pd *pd;
	struct hx_frame q[HX_QUEUE];   /* what it sent, oldest first */
	int nq;
};

struct hx {
	struct hx_side s[2];
	struct rl_rdma_cm_id *listen_rc, *listen_ud;
	uint64_t now;
};

static struct hx X;
static const uint8_t hx_ip[3][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 }, { 10, 0, 0, 3 } };

static void hx_mac(int i, uint8_t mac[6])
{
	const uint8_t m[6] = { 0x02, 0, 0, 0, 0, (uint8_t)(i + 1) };

	memcpy(mac, m, 6);
}

static bool hx_resolve(void *ctx, const uint8_t gid[16], uint8_t mac[6])
{
	uint8_t g[16];

	(void)ctx;
	for (int i = 0; i < 3; i++) {
		rl_gid_from_ipv4(g, hx_ip[i]);
		if (!memcmp(g, gid, 16)) {
			hx_mac(i, mac);
			return true;
		}
	}
	return false;
}

static void hx_emit(void *ctx, const uint8_t *frame, size_t len)
{
	struct hx_side *s = ctx;

	if (s->nq < HX_QUEUE && len <= HX_FRAME) {
		memcpy(s->q[s->nq].b, frame, len);
		s->q[s->nq++].len = len;
	}
}

static void hx_run(void)
{
	for (int i = 0; i < 2; i++) {
		rl_host_run(X.s[i].h, X.now);
		rl_cm_agent_run(X.s[i].cm, X.now);
		rl_host_run(X.s[i].h, X.now);
	}
}

static void hx_setup(int backlog)
{
	struct rl_rdma_addr any = { { 0 }, HX_PORT };

	memset(&X, 0, sizeof(X));
	for (int i = 0; i < 2; i++) {
		struct rl_host_config hc = { .emit = hx_emit, .ctx = &X.s[i] };
		struct rl_cm_agent_config ac = { .seed = 10 + (uint64_t)i, .resolve = hx_resolve };

		hx_mac(i, hc.mac);
		rl_gid_from_ipv4(hc.gid, hx_ip[i]);
		X.s[i].h = rl_host_new(&hc);
		CU_ASSERT_PTR_NOT_NULL_FATAL(X.s[i].h);
		X.s[i].pd = rl_alloc_pd(X.s[i].h);
		ac.host = X.s[i].h;
		X.s[i].cm = rl_cm_agent_new(&ac);
		CU_ASSERT_PTR_NOT_NULL_FATAL(X.s[i].cm);
	}
	X.listen_rc = rl_rdma_create_id(X.s[1].cm, NULL, RL_RDMA_PS_TCP);
	X.listen_ud = rl_rdma_create_id(X.s[1].cm, NULL, RL_RDMA_PS_UDP);
	CU_ASSERT_FATAL(X.listen_rc && X.listen_ud);
	CU_ASSERT_EQUAL(rl_rdma_bind_addr(X.listen_rc, &any), 0);
	CU_ASSERT_EQUAL(rl_rdma_bind_addr(X.listen_ud, &any), 0);
	CU_ASSERT_EQUAL(rl_rdma_listen(X.listen_rc, backlog), 0);
	CU_ASSERT_EQUAL(rl_rdma_listen(X.listen_ud, backlog), 0);
}

static void hx_teardown(void)
{
	for (int i = 0; i < 2; i++) {
		rl_cm_agent_free(X.s[i].cm);
		rl_host_free(X.s[i].h);
	}
}

/* The CM message side @i sent @k-th (0-based, since the queue was last emptied); attr 0 if none. */
static bool hx_sent(int i, int k, struct rl_cm *cm)
{
	struct rl_pkt p;

	memset(cm, 0, sizeof(*cm));
	return k < X.s[i].nq && rl_decode(RL_LINK_ETHERNET, X.s[i].q[k].b, X.s[i].q[k].len, &p) == RL_OK &&
	       rl_cm_is_gsi(&p) && rl_cm_decode(p.payload, p.payload_len, cm) == RL_CM_OK;
}

/* @len bytes to side @to's QP1 with Q_Key @qkey, from host @from (0: the active host). */
static void hx_send_to(int to, int from, uint32_t qkey, const uint8_t *pl, size_t len)
{
	uint8_t frame[HX_FRAME];
	struct rl_pkt pkt;
	size_t out;

	rl_pkt_init(&pkt, RL_OP_UD_SEND_ONLY);
	pkt.link = RL_LINK_ETHERNET;
	pkt.l3 = RL_L3_IPV4;
	pkt.roce = RL_ROCE_V2;
	hx_mac(to, pkt.eth.dst);
	hx_mac(from, pkt.eth.src);
	memcpy(pkt.ip4.src, hx_ip[from], 4);
	memcpy(pkt.ip4.dst, hx_ip[to], 4);
	pkt.ip4.ttl = 64;
	pkt.bth.pkey = 0xffff;
	pkt.bth.dqpn = RL_GSI_QPN;
	pkt.deth.qkey = qkey;
	pkt.deth.src_qp = RL_GSI_QPN;
	pkt.payload = pl;
	pkt.payload_len = len;
	CU_ASSERT_FATAL(rl_encode(&pkt, frame, sizeof(frame), &out) == RL_OK);
	X.now += 1000;
	rl_host_recv(X.s[to].h, frame, out, X.now);
	hx_run();
}

static void hx_send_raw(int from, uint32_t qkey, const uint8_t *pl, size_t len)
{
	hx_send_to(1, from, qkey, pl, len);
}

static void hx_send(int from, const struct rl_cm *cm)
{
	hx_send_raw(from, RL_GSI_QKEY, cm->mad, RL_MAD_LEN);
}

/* rdma_cm's header: from 10.0.0.1 (or the stranger) to 10.0.0.2. */
static void hx_cma_hdr(uint8_t *p, int from)
{
	struct rl_cma_hdr h = { .version = RL_CMA_VERSION, .ip_version = 4, .src_port = 40000 };

	memcpy(h.src + 12, hx_ip[from], 4);
	memcpy(h.dst + 12, hx_ip[1], 4);
	rl_cma_hdr_encode(&h, p);
}

/* A REQ as rping's, from communication ID @comm. */
static void hx_req(struct rl_cm *cm, uint32_t comm)
{
	uint8_t pd[RL_CMA_HDR_LEN], gid[16];

	rl_cm_init(cm, RL_CM_REQ, 1ull << 32 | comm);
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_COMM_ID, comm);
	rl_cm_set(cm, RL_CMF_REQ_SERVICE_ID, rl_cm_service_id(RL_RDMA_PS_TCP, HX_PORT));
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_QPN, 0x11);
	rl_cm_set(cm, RL_CMF_REQ_RESPONDER_RESOURCES, 1);
	rl_cm_set(cm, RL_CMF_REQ_INITIATOR_DEPTH, 1);
	rl_cm_set(cm, RL_CMF_REQ_REMOTE_CM_RESPONSE_TIMEOUT, 20);
	rl_cm_set(cm, RL_CMF_REQ_STARTING_PSN, 0x123456);
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_CM_RESPONSE_TIMEOUT, 20);
	rl_cm_set(cm, RL_CMF_REQ_RETRY_COUNT, 7);
	rl_cm_set(cm, RL_CMF_REQ_PKEY, 0xffff);
	rl_cm_set(cm, RL_CMF_REQ_PATH_MTU, RL_MTU_1024);
	rl_cm_set(cm, RL_CMF_REQ_RNR_RETRY_COUNT, 7);
	rl_cm_set(cm, RL_CMF_REQ_MAX_CM_RETRIES, 15);
	rl_gid_from_ipv4(gid, hx_ip[1]);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIMARY_REMOTE_GID, gid, 16);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_LOCAL_ACK_TIMEOUT, 19);
	hx_cma_hdr(pd, 0);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIVATE_DATA, pd, sizeof(pd));
}

static void hx_sidr_req(struct rl_cm *cm, uint32_t rid)
{
	uint8_t pd[RL_CMA_HDR_LEN];

	rl_cm_init(cm, RL_CM_SIDR_REQ, 1ull << 32 | rid);
	rl_cm_set(cm, RL_CMF_SIDR_REQ_REQUEST_ID, rid);
	rl_cm_set(cm, RL_CMF_SIDR_REQ_PKEY, 0xffff);
	rl_cm_set(cm, RL_CMF_SIDR_REQ_SERVICE_ID, rl_cm_service_id(RL_RDMA_PS_UDP, HX_PORT));
	hx_cma_hdr(pd, 0);
	rl_cm_set_bytes(cm, RL_CMF_SIDR_REQ_PRIVATE_DATA, pd, sizeof(pd));
}

/* Take side @i's events: how many of @type (the ids of those in @ids, if given). */
static int hx_take(int i, enum rl_rdma_cm_event_type type, struct rl_rdma_cm_id **ids, int max)
{
	struct rl_rdma_cm_event *ev;
	int n = 0;

	while (rl_rdma_get_cm_event(X.s[i].cm, &ev) == 0) {
		if (ev->event == type) {
			if (ids && n < max)
				ids[n] = ev->id;
			n++;
		}
		rl_rdma_ack_cm_event(ev);
	}
	return n;
}

static uint64_t hx_dropped(int i)
{
	struct rl_cm_agent_stats st;

	rl_cm_agent_stats(X.s[i].cm, &st);
	return st.dropped;
}

/* ---- floods ------------------------------------------------------------------------------ */

static void test_backlog_bounds_a_flood(void)
{
	struct rl_cm req;
	struct rl_rdma_cm_id *ids[4];
	uint64_t dropped;

	hx_setup(2);
	/* Five REQs from five communication IDs, nobody taking the events: two get in (rdma_listen's backlog). */
	for (uint32_t i = 0; i < 5; i++) {
		hx_req(&req, 0x100 + i);
		hx_send(i & 1 ? HX_STRANGER : 0, &req);
	}
	/* The three others are dropped without a REJ, as ucma's -ENOMEM (cm_destroy_id: "allow future retries"). */
	CU_ASSERT_EQUAL(X.s[1].nq, 0);
	dropped = hx_dropped(1);
	CU_ASSERT(dropped >= 3);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, ids, 4), 2);
	/* The consumer took them: the third REQ, resent, now gets in. */
	hx_req(&req, 0x102);
	hx_send(0, &req);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 1);
	hx_teardown();
}

static void test_backlog_default(void)
{
	struct rl_cm req;

	/* 0 and negative backlogs mean ucma's max_backlog, 1024: a hundred REQs all wait. */
	hx_setup(0);
	for (uint32_t i = 0; i < 100; i++) {
		hx_req(&req, 0x1000 + i);
		hx_send(0, &req);
	}
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 100);
	hx_teardown();
}

static void test_sidr_backlog_full_rejects(void)
{
	struct rl_cm req, rep;

	hx_setup(1);
	hx_sidr_req(&req, 0x51);
	hx_send(0, &req);
	hx_sidr_req(&req, 0x52);
	hx_send(0, &req);
	/* The kernel's cm_destroy_id() in SIDR REQ Rcvd: a SIDR_REP saying "rejected" (IBA 12.11.2, status 2). */
	CU_ASSERT_FATAL(hx_sent(1, 0, &rep));
	CU_ASSERT_EQUAL(rep.attr, RL_CM_SIDR_REP);
	CU_ASSERT_EQUAL(rl_cm_get(&rep, RL_CMF_SIDR_REP_REQUEST_ID), 0x52);
	CU_ASSERT_EQUAL(rl_cm_get(&rep, RL_CMF_SIDR_REP_STATUS), 2);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 1);
	hx_teardown();
}

static void test_listener_takes_waiting_requests(void)
{
	struct rl_cm req;
	struct rl_rdma_cm_event *ev;
	struct rl_rdma_cm_id *taken;

	hx_setup(4);
	for (uint32_t i = 0; i < 3; i++) {
		hx_req(&req, 0x200 + i);
		hx_send(0, &req);
	}
	CU_ASSERT_EQUAL_FATAL(rl_rdma_get_cm_event(X.s[1].cm, &ev), 0);
	CU_ASSERT_EQUAL(ev->event, RL_RDMA_CM_EVENT_CONNECT_REQUEST);
	taken = ev->id;
	rl_rdma_ack_cm_event(ev);
	/* The listener goes: the two requests nobody took go with it (ucma_cleanup_ctx_events()), the taken one stays. */
	rl_rdma_destroy_id(X.listen_rc);
	CU_ASSERT_EQUAL(rl_rdma_get_cm_event(X.s[1].cm, &ev), -EAGAIN);
	CU_ASSERT_EQUAL(rl_rdma_id_state(taken), RL_CM_STATE_REQ_RCVD);
	CU_ASSERT_EQUAL(rl_rdma_reject(taken, NULL, 0), 0);
	hx_teardown();
}

/* ---- MADs the CM does not take ------------------------------------------------------------------ */

static void test_foreign_mads_dropped(void)
{
	struct rl_cm req;
	uint8_t longer[RL_MAD_LEN + 64] = { 0 };
	uint64_t before;

	hx_setup(8);
	before = hx_dropped(1);
	/* Another base version, class version 1, a response method (IBA 13.4.2; the kernel's validate_mad()). */
	hx_req(&req, 0x300);
	rl_cm_set(&req, RL_CMF_MAD_BASE_VERSION, 2);
	hx_send(0, &req);
	hx_req(&req, 0x301);
	rl_cm_set(&req, RL_CMF_MAD_CLASS_VERSION, 1);
	hx_send(0, &req);
	hx_req(&req, 0x302);
	rl_cm_set(&req, RL_CMF_MAD_METHOD, 0x81);   /* GetResp */
	hx_send(0, &req);
	/* Cut short, too long for QP1's 256-byte buffers, another Q_Key. */
	hx_req(&req, 0x303);
	hx_send_raw(0, RL_GSI_QKEY, req.mad, 200);
	memcpy(longer, req.mad, RL_MAD_LEN);
	hx_send_raw(0, RL_GSI_QKEY, longer, sizeof(longer));
	hx_send_raw(0, RL_RDMA_UDP_QKEY, req.mad, RL_MAD_LEN);
	CU_ASSERT_EQUAL(X.s[1].nq, 0);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 0);
	CU_ASSERT_EQUAL(hx_dropped(1) - before, 4);   /* the three versions and the short one reached the agent */
	/* QP1 still listens: a good REQ gets in. */
	hx_send(0, &req);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 1);
	hx_teardown();
}

static void test_req_bad_mtu_rejected(void)
{
	struct rl_cm req, rej;

	hx_setup(8);
	hx_req(&req, 0x400);
	rl_cm_set(&req, RL_CMF_REQ_PATH_MTU, 0);
	hx_send(0, &req);
	hx_req(&req, 0x401);
	rl_cm_set(&req, RL_CMF_REQ_PATH_MTU, 6);
	hx_send(0, &req);
	/* REJ 26, invalid path MTU (IBA 12.6.7.2, Table 112): no CONNECT_REQUEST the consumer could not accept. */
	for (int k = 0; k < 2; k++) {
		CU_ASSERT_FATAL(hx_sent(1, k, &rej));
		CU_ASSERT_EQUAL(rej.attr, RL_CM_REJ);
		CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_REASON), 26);
		CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_REMOTE_COMM_ID), 0x400u + (unsigned)k);
	}
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 0);
	/* An MTU above the port's is taken down to it. */
	X.s[1].nq = 0;
	hx_req(&req, 0x402);
	rl_cm_set(&req, RL_CMF_REQ_PATH_MTU, RL_MTU_4096);
	hx_send(0, &req);
	CU_ASSERT_EQUAL(X.s[1].nq, 0);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 1);
	hx_teardown();
}

static void test_req_not_rc_rejected(void)
{
	struct rl_cm req, rej;

	hx_setup(8);
	hx_req(&req, 0x500);
	rl_cm_set(&req, RL_CMF_REQ_TRANSPORT_SERVICE_TYPE, 1);   /* UC */
	hx_send(0, &req);
	CU_ASSERT_FATAL(hx_sent(1, 0, &rej));
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_REASON), 9);   /* invalid transport service type */
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 0);
	hx_teardown();
}

/* ---- messages for connections that are not there ------------------------------------------------ */

static void test_unknown_comm_ids(void)
{
	static const uint16_t quiet[] = { RL_CM_REP, RL_CM_RTU, RL_CM_REJ, RL_CM_MRA, RL_CM_DREP, RL_CM_SIDR_REP,
					   RL_CM_LAP, RL_CM_APR };
	struct rl_cm m, drep;

	hx_setup(8);
	/* The kernel drops these (cm_rep_handler(), cm_rtu_handler(), cm_rej_handler() ... find no id). */
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		rl_cm_init(&m, quiet[i], 7);
		rl_cm_set(&m, RL_CMF_MRA_LOCAL_COMM_ID, 0x600);
		rl_cm_set(&m, RL_CMF_MRA_REMOTE_COMM_ID, 0x601);
		hx_send(0, &m);
	}
	CU_ASSERT_EQUAL(X.s[1].nq, 0);
	/* ... and answer a DREQ with a DREP anyway (cm_issue_drep()): the connection is gone, say so. */
	rl_cm_init(&m, RL_CM_DREQ, 8);
	rl_cm_set(&m, RL_CMF_DREQ_LOCAL_COMM_ID, 0x600);
	rl_cm_set(&m, RL_CMF_DREQ_REMOTE_COMM_ID, 0x601);
	hx_send(0, &m);
	CU_ASSERT_FATAL(hx_sent(1, 0, &drep));
	CU_ASSERT_EQUAL(drep.attr, RL_CM_DREP);
	CU_ASSERT_EQUAL(rl_cm_get(&drep, RL_CMF_DREP_LOCAL_COMM_ID), 0x601);
	CU_ASSERT_EQUAL(rl_cm_get(&drep, RL_CMF_DREP_REMOTE_COMM_ID), 0x600);
	CU_ASSERT_EQUAL(rl_cm_get(&drep, RL_CMF_MAD_TID), 8);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 0);
	hx_teardown();
}

/* Side 1 accepts a REQ (CM response timeout @timeout, @retries) from the test; returns the child id, its REP in @rep. */
static struct rl_rdma_cm_id *hx_accepted_with(uint32_t comm, uint8_t timeout, uint8_t retries, struct rl_cm *rep)
{
	struct rl_qp_init_attr ia = { .max_send_wr = 4, .max_recv_wr = 4 };
	struct rl_rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1 };
	struct rl_rdma_cm_id *child = NULL;
	struct rl_cm req;

	hx_req(&req, comm);
	rl_cm_set(&req, RL_CMF_REQ_LOCAL_CM_RESPONSE_TIMEOUT, timeout);
	rl_cm_set(&req, RL_CMF_REQ_MAX_CM_RETRIES, retries);
	hx_send(0, &req);
	CU_ASSERT_EQUAL_FATAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, &child, 1), 1);
	ia.send_cq = ia.recv_cq = rl_create_cq(X.s[1].h, 8);
	CU_ASSERT_EQUAL_FATAL(rl_rdma_create_qp(child, X.s[1].pd, &ia), 0);
	CU_ASSERT_EQUAL_FATAL(rl_rdma_accept(child, &p), 0);
	hx_run();
	CU_ASSERT_FATAL(hx_sent(1, 0, rep) && rep->attr == RL_CM_REP);
	X.s[1].nq = 0;
	return child;
}

static struct rl_rdma_cm_id *hx_accepted(uint32_t comm, struct rl_cm *rep)
{
	return hx_accepted_with(comm, 20, 15, rep);
}

static void test_rtu_needs_both_comm_ids(void)
{
	struct rl_cm rep, rtu;
	struct rl_rdma_cm_id *child;
	uint32_t ours;

	hx_setup(8);
	child = hx_accepted(0x700, &rep);
	ours = (uint32_t)rl_cm_get(&rep, RL_CMF_REP_LOCAL_COMM_ID);
	/* An RTU that names our ID but another sender's: not this connection's (the kernel's cm_acquire_id(local, remote)). */
	rl_cm_init(&rtu, RL_CM_RTU, 1ull << 32 | 0x700);
	rl_cm_set(&rtu, RL_CMF_RTU_LOCAL_COMM_ID, 0x799);
	rl_cm_set(&rtu, RL_CMF_RTU_REMOTE_COMM_ID, ours);
	hx_send(HX_STRANGER, &rtu);
	CU_ASSERT_EQUAL(rl_rdma_id_state(child), RL_CM_STATE_REP_SENT);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_ESTABLISHED, NULL, 0), 0);
	/* The right one establishes. */
	rl_cm_set(&rtu, RL_CMF_RTU_LOCAL_COMM_ID, 0x700);
	hx_send(0, &rtu);
	CU_ASSERT_EQUAL(rl_rdma_id_state(child), RL_CM_STATE_ESTABLISHED);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_ESTABLISHED, NULL, 0), 1);
	hx_teardown();
}

static void test_sidr_request_id_cannot_take_a_connection(void)
{
	struct rl_cm rep, rtu, sidr, dreq, drep;
	struct rl_rdma_cm_id *child;
	uint32_t ours;

	hx_setup(8);
	child = hx_accepted(0x800, &rep);
	ours = (uint32_t)rl_cm_get(&rep, RL_CMF_REP_LOCAL_COMM_ID);
	rl_cm_init(&rtu, RL_CM_RTU, 1ull << 32 | 0x800);
	rl_cm_set(&rtu, RL_CMF_RTU_LOCAL_COMM_ID, 0x800);
	rl_cm_set(&rtu, RL_CMF_RTU_REMOTE_COMM_ID, ours);
	hx_send(0, &rtu);
	CU_ASSERT_EQUAL_FATAL(rl_rdma_id_state(child), RL_CM_STATE_ESTABLISHED);
	hx_take(1, RL_RDMA_CM_EVENT_ESTABLISHED, NULL, 0);
	/* A stranger's SIDR_REQ whose request ID is the connection's communication ID ... */
	hx_sidr_req(&sidr, ours);
	hx_send(HX_STRANGER, &sidr);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 1);
	/* ... does not get the connection's messages: the peer's DREQ still ends it. */
	rl_cm_init(&dreq, RL_CM_DREQ, 1ull << 32 | 0x801);
	rl_cm_set(&dreq, RL_CMF_DREQ_LOCAL_COMM_ID, 0x800);
	rl_cm_set(&dreq, RL_CMF_DREQ_REMOTE_COMM_ID, ours);
	rl_cm_set(&dreq, RL_CMF_DREQ_REMOTE_QPN, rl_qp_num(rl_rdma_id_qp(child)));
	X.s[1].nq = 0;
	hx_send(0, &dreq);
	CU_ASSERT_EQUAL(rl_rdma_id_state(child), RL_CM_STATE_DREQ_RCVD);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_DISCONNECTED, NULL, 0), 1);
	CU_ASSERT_EQUAL(rl_rdma_disconnect(child), 0);
	hx_run();
	CU_ASSERT_FATAL(hx_sent(1, 0, &drep));
	CU_ASSERT_EQUAL(drep.attr, RL_CM_DREP);
	CU_ASSERT_EQUAL(rl_cm_get(&drep, RL_CMF_DREP_LOCAL_COMM_ID), ours);
	hx_teardown();
}

/* Side 0 connects an RC id to side 1 (the REQ waits in side 0's queue); the id. */
static struct rl_rdma_cm_id *hx_connecting(void)
{
	struct rl_rdma_addr dst = { { 0 }, HX_PORT };
	struct rl_qp_init_attr ia = { .max_send_wr = 4, .max_recv_wr = 4 };
	struct rl_rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1 };
	struct rl_rdma_cm_id *id = rl_rdma_create_id(X.s[0].cm, NULL, RL_RDMA_PS_TCP);

	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	rl_gid_from_ipv4(dst.gid, hx_ip[1]);
	CU_ASSERT_EQUAL_FATAL(rl_rdma_resolve_addr(id, NULL, &dst, 2000), 0);
	CU_ASSERT_EQUAL_FATAL(rl_rdma_resolve_route(id, 2000), 0);
	ia.send_cq = ia.recv_cq = rl_create_cq(X.s[0].h, 8);
	CU_ASSERT_EQUAL_FATAL(rl_rdma_create_qp(id, X.s[0].pd, &ia), 0);
	CU_ASSERT_EQUAL_FATAL(rl_rdma_connect(id, &p), 0);
	hx_run();
	return id;
}

static void test_rej_names_what_it_refuses(void)
{
	struct rl_qp_attr err = { .qp_state = RL_QPS_ERR };
	struct rl_rdma_cm_id *id;
	struct rl_cm req, rep, rej;

	hx_setup(8);
	/* A REP the active side cannot take (its QP went to ERR meanwhile): REJ for the REP (IBA 12.6.7.1, 1). */
	id = hx_connecting();
	CU_ASSERT_FATAL(hx_sent(0, 0, &req) && req.attr == RL_CM_REQ);
	X.s[0].nq = 0;
	CU_ASSERT_EQUAL(rl_modify_qp(rl_rdma_id_qp(id), &err, RL_QP_STATE), 0);
	rl_cm_init(&rep, RL_CM_REP, rl_cm_get(&req, RL_CMF_MAD_TID));
	rl_cm_set(&rep, RL_CMF_REP_LOCAL_COMM_ID, 0x900);
	rl_cm_set(&rep, RL_CMF_REP_REMOTE_COMM_ID, rl_cm_get(&req, RL_CMF_REQ_LOCAL_COMM_ID));
	rl_cm_set(&rep, RL_CMF_REP_LOCAL_QPN, 0x12);
	hx_send_to(0, 1, RL_GSI_QKEY, rep.mad, RL_MAD_LEN);
	CU_ASSERT_FATAL(hx_sent(0, 0, &rej) && rej.attr == RL_CM_REJ);
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_MESSAGE_REJECTED), 1);
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_REMOTE_COMM_ID), 0x900);
	CU_ASSERT_EQUAL(hx_take(0, RL_RDMA_CM_EVENT_CONNECT_ERROR, NULL, 0), 1);
	rl_rdma_destroy_id(id);
	/* A REQ nobody answers: after the retries, REJ timeout for no message (2), as the kernel's cm_format_rej(). */
	X.s[0].nq = 0;
	id = hx_connecting();
	while (rl_rdma_id_state(id) == RL_CM_STATE_REQ_SENT) {
		X.now = rl_cm_agent_next_timer(X.s[0].cm);
		hx_run();
	}
	CU_ASSERT_FATAL(hx_sent(0, X.s[0].nq - 1, &rej) && rej.attr == RL_CM_REJ);
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_REASON), 4);
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_MESSAGE_REJECTED), 2);
	hx_teardown();
}

static void test_dup_req_by_source(void)
{
	struct rl_cm req, mra;

	hx_setup(8);
	hx_req(&req, 0xa00);
	hx_send(0, &req);
	/* The same REQ again from the same host: a resend, answered with an MRA (the consumer has not decided). */
	hx_send(0, &req);
	CU_ASSERT_FATAL(hx_sent(1, 0, &mra));
	CU_ASSERT_EQUAL(mra.attr, RL_CM_MRA);
	CU_ASSERT_EQUAL(rl_cm_get(&mra, RL_CMF_MRA_REMOTE_COMM_ID), 0xa00);
	/* The same communication ID from another host is another connection (IDs are per sender). */
	hx_send(HX_STRANGER, &req);
	CU_ASSERT_EQUAL(X.s[1].nq, 1);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 2);
	hx_teardown();
}

/* The REQ's 5-bit CM response timeout and 4-bit max CM retries at their ends: exact times, no overflow. */
static void test_req_timeout_extremes(void)
{
	struct rl_cm rep, rej;
	struct rl_rdma_cm_id *child;
	const uint64_t lifetimes = 2 * (4096ull << 18);   /* the agent's packet lifetime, each way */
	uint64_t t;

	hx_setup(8);
	/* Timeout 31: 4.096 us * 2^31, 2.4 hours, plus the lifetimes. */
	child = hx_accepted_with(0xb00, 31, 15, &rep);
	CU_ASSERT_EQUAL(rl_cm_agent_next_timer(X.s[1].cm), X.now + (4096ull << 31) + lifetimes);
	rl_rdma_destroy_id(child);
	/* Timeout 0 and no retries: one REP, then REJ timeout and UNREACHABLE after 4.096 us and the lifetimes. */
	child = hx_accepted_with(0xb01, 0, 0, &rep);
	t = rl_cm_agent_next_timer(X.s[1].cm);
	CU_ASSERT_EQUAL(t, X.now + 4096 + lifetimes);
	X.now = t;
	hx_run();
	CU_ASSERT_FATAL(hx_sent(1, 0, &rej));
	CU_ASSERT_EQUAL(rej.attr, RL_CM_REJ);
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_REASON), 4);
	CU_ASSERT_EQUAL(X.s[1].nq, 1);   /* no REP again */
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_UNREACHABLE, NULL, 0), 1);
	CU_ASSERT_EQUAL(rl_cm_agent_next_timer(X.s[1].cm), UINT64_MAX);
	hx_teardown();
}

/*
 * More MADs than QP1 has send slots, before its host sends any: the first
 * 64 go out as they were written (none overwritten by a later one), the rest
 * are refused and counted, and their ids resend them when their timers fire.
 */
static void test_send_slots_never_overwritten(void)
{
	enum { N = 70 };
	struct rl_rdma_cm_id *id[N];
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC };
	struct rl_rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7 };
	struct rl_rdma_addr dst = { { 0 }, HX_PORT + 1 };   /* nobody listens: each REQ is answered by a REJ */
	struct rl_cm req;
	uint64_t before;

	hx_setup(8);
	rl_gid_from_ipv4(dst.gid, hx_ip[1]);
	ia.send_cq = ia.recv_cq = rl_create_cq(X.s[0].h, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ia.send_cq);
	before = hx_dropped(0);
	for (int i = 0; i < N; i++) {
		id[i] = rl_rdma_create_id(X.s[0].cm, NULL, RL_RDMA_PS_TCP);
		CU_ASSERT_FATAL(id[i] && rl_rdma_resolve_addr(id[i], NULL, &dst, 2000) == 0);
		CU_ASSERT_FATAL(rl_rdma_resolve_route(id[i], 2000) == 0);
		CU_ASSERT_FATAL(rl_rdma_create_qp(id[i], X.s[0].pd, &ia) == 0);
		rl_rdma_connect(id[i], &cp);
	}
	CU_ASSERT_EQUAL(hx_dropped(0) - before, N - 64);
	rl_host_run(X.s[0].h, X.now);
	CU_ASSERT_EQUAL_FATAL(X.s[0].nq, 64);
	for (int k = 0; k < 64; k++) {
		CU_ASSERT_FATAL(hx_sent(0, k, &req));
		CU_ASSERT_EQUAL(req.attr, RL_CM_REQ);
		CU_ASSERT_EQUAL(rl_cm_get(&req, RL_CMF_REQ_LOCAL_QPN), rl_qp_num(rl_rdma_id_qp(id[k])));
	}
	/*
	 * Sent, the slots are free again: at the retry deadline, which all 70
	 * share, 64 REQs go out once more, each one id's own (a refused one is
	 * as good as lost on the wire: its next retry covers it).
	 */
	X.s[0].nq = 0;
	X.now = rl_cm_agent_next_timer(X.s[0].cm);
	rl_cm_agent_run(X.s[0].cm, X.now);
	rl_host_run(X.s[0].h, X.now);
	CU_ASSERT_EQUAL_FATAL(X.s[0].nq, 64);
	for (int k = 0; k < 64; k++) {
		int owners = 0;

		CU_ASSERT_FATAL(hx_sent(0, k, &req));
		for (int i = 0; i < N; i++)
			owners += rl_cm_get(&req, RL_CMF_REQ_LOCAL_QPN) == rl_qp_num(rl_rdma_id_qp(id[i]));
		CU_ASSERT_EQUAL(owners, 1);
		for (int j = 0; j < k; j++) {
			struct rl_cm other;

			CU_ASSERT_FATAL(hx_sent(0, j, &other));
			CU_ASSERT_NOT_EQUAL(rl_cm_get(&other, RL_CMF_REQ_LOCAL_QPN), rl_cm_get(&req, RL_CMF_REQ_LOCAL_QPN));
		}
	}
	hx_teardown();
}

/* ---- review findings ------------------------------------------------------------------------ */

/* The time the agent waits for an answer the peer may take 4.096 us * 2^@t to give: plus a packet lifetime each way. */
static uint64_t hx_wait(unsigned t)
{
	return (4096ull << t) + 2 * (4096ull << 18);
}

/* Side 1 accepted the test's REQ @comm and the test's RTU established it; the child. */
static struct rl_rdma_cm_id *hx_established(uint32_t comm, uint32_t *ours)
{
	struct rl_cm rep, rtu;
	struct rl_rdma_cm_id *child = hx_accepted(comm, &rep);

	*ours = (uint32_t)rl_cm_get(&rep, RL_CMF_REP_LOCAL_COMM_ID);
	rl_cm_init(&rtu, RL_CM_RTU, 1ull << 32 | comm);
	rl_cm_set(&rtu, RL_CMF_RTU_LOCAL_COMM_ID, comm);
	rl_cm_set(&rtu, RL_CMF_RTU_REMOTE_COMM_ID, *ours);
	hx_send(0, &rtu);
	CU_ASSERT_EQUAL_FATAL(rl_rdma_id_state(child), RL_CM_STATE_ESTABLISHED);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_ESTABLISHED, NULL, 0), 1);
	X.s[1].nq = 0;
	return child;
}

static void test_dreq_needs_our_qpn(void)
{
	struct rl_cm dreq, drep;
	struct rl_rdma_cm_id *child;
	uint32_t ours;

	hx_setup(8);
	child = hx_established(0xc00, &ours);
	/*
	 * Both communication IDs right, the Remote QPN another QP's: not this
	 * connection's DREQ (IBA 12.6.10: the DREQ names the QP it ends; the
	 * kernel's cm_dreq_handler() drops one whose QPN is not the local QPN),
	 * and no DREP either.
	 */
	rl_cm_init(&dreq, RL_CM_DREQ, 1ull << 32 | 0xc01);
	rl_cm_set(&dreq, RL_CMF_DREQ_LOCAL_COMM_ID, 0xc00);
	rl_cm_set(&dreq, RL_CMF_DREQ_REMOTE_COMM_ID, ours);
	rl_cm_set(&dreq, RL_CMF_DREQ_REMOTE_QPN, rl_qp_num(rl_rdma_id_qp(child)) + 1);
	hx_send(0, &dreq);
	CU_ASSERT_EQUAL(rl_rdma_id_state(child), RL_CM_STATE_ESTABLISHED);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_DISCONNECTED, NULL, 0), 0);
	CU_ASSERT_EQUAL(X.s[1].nq, 0);
	/* The right QPN ends it. */
	rl_cm_set(&dreq, RL_CMF_DREQ_REMOTE_QPN, rl_qp_num(rl_rdma_id_qp(child)));
	hx_send(0, &dreq);
	CU_ASSERT_EQUAL(rl_rdma_id_state(child), RL_CM_STATE_DREQ_RCVD);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_DISCONNECTED, NULL, 0), 1);
	CU_ASSERT_EQUAL(rl_rdma_disconnect(child), 0);
	hx_run();
	CU_ASSERT_FATAL(hx_sent(1, 0, &drep));
	CU_ASSERT_EQUAL(drep.attr, RL_CM_DREP);
	hx_teardown();
}

/* An MRA from side 1 for side 0's REQ @req, with service timeout @t. */
static void hx_mra_for(const struct rl_cm *req, uint32_t from_comm, unsigned t)
{
	struct rl_cm mra;

	rl_cm_init(&mra, RL_CM_MRA, rl_cm_get(req, RL_CMF_MAD_TID));
	rl_cm_set(&mra, RL_CMF_MRA_LOCAL_COMM_ID, from_comm);
	rl_cm_set(&mra, RL_CMF_MRA_REMOTE_COMM_ID, rl_cm_get(req, RL_CMF_REQ_LOCAL_COMM_ID));
	rl_cm_set(&mra, RL_CMF_MRA_MESSAGE_MRAED, 0);   /* the REQ */
	rl_cm_set(&mra, RL_CMF_MRA_SERVICE_TIMEOUT, t);
	hx_send_to(0, 1, RL_GSI_QKEY, mra.mad, RL_MAD_LEN);
}

static void test_one_mra_per_req(void)
{
	struct rl_rdma_cm_id *id;
	struct rl_cm req, again;
	uint64_t deadline;

	hx_setup(8);
	id = hx_connecting();
	CU_ASSERT_FATAL(hx_sent(0, 0, &req) && req.attr == RL_CM_REQ);
	X.s[0].nq = 0;
	/* The first MRA: wait the service timeout it names, not the CM response timeout (IBA 12.6.6). */
	hx_mra_for(&req, 0xd00, 24);
	CU_ASSERT_EQUAL(rl_rdma_id_state(id), RL_CM_STATE_MRA_REQ_RCVD);
	deadline = rl_cm_agent_next_timer(X.s[0].cm);
	CU_ASSERT_EQUAL(deadline, X.now + hx_wait(24));
	/*
	 * Another MRA, a second later, in MRA(REQ) Rcvd: a duplicate, which puts
	 * the deadline off no further. The kernel's cm_mra_handler() takes an MRA
	 * only in REQ Sent, REP Sent or with a LAP out: one per REQ.
	 */
	X.now += 1000000000ull;
	hx_mra_for(&req, 0xd00, 24);
	CU_ASSERT_EQUAL(rl_rdma_id_state(id), RL_CM_STATE_MRA_REQ_RCVD);
	CU_ASSERT_EQUAL(rl_cm_agent_next_timer(X.s[0].cm), deadline);
	/*
	 * The deadline passes: the REQ again, and its next wait is the MRA's too
	 * (ib_modify_mad() changed the timeout of the MAD, every retry included).
	 */
	X.now = deadline;
	hx_run();
	CU_ASSERT_FATAL(hx_sent(0, 0, &again) && again.attr == RL_CM_REQ);
	CU_ASSERT_EQUAL(rl_cm_agent_next_timer(X.s[0].cm), X.now + hx_wait(24));
	hx_teardown();
}

static void test_rej_from_req_rcvd_has_no_local_id(void)
{
	struct rl_cm req, rej, mra;
	struct rl_rdma_cm_id *child;

	hx_setup(8);
	/*
	 * A REJ straight from REQ Rcvd: the active side has not been told our
	 * communication ID, and the REJ's Local Communication ID is 0, as the
	 * kernel's cm_format_rej() writes it; the REJ is found by its Remote
	 * Communication ID and Message REJected = REQ (IBA 12.6.7;
	 * cm_acquire_rejected_id()).
	 */
	hx_req(&req, 0xe00);
	hx_send(0, &req);
	CU_ASSERT_EQUAL_FATAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, &child, 1), 1);
	CU_ASSERT_EQUAL(rl_rdma_reject(child, NULL, 0), 0);
	hx_run();
	CU_ASSERT_FATAL(hx_sent(1, 0, &rej) && rej.attr == RL_CM_REJ);
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_LOCAL_COMM_ID), 0);
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_REMOTE_COMM_ID), 0xe00);
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_MESSAGE_REJECTED), 0);
	/* From MRA(REQ) Sent the MRA has told it: the REJ names our ID, as the MRA did. */
	X.s[1].nq = 0;
	hx_req(&req, 0xe01);
	hx_send(0, &req);
	hx_send(0, &req);
	CU_ASSERT_FATAL(hx_sent(1, 0, &mra) && mra.attr == RL_CM_MRA);
	CU_ASSERT_EQUAL_FATAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, &child, 1), 1);
	CU_ASSERT_EQUAL(rl_rdma_reject(child, NULL, 0), 0);
	hx_run();
	CU_ASSERT_FATAL(hx_sent(1, 1, &rej) && rej.attr == RL_CM_REJ);
	CU_ASSERT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_LOCAL_COMM_ID), rl_cm_get(&mra, RL_CMF_MRA_LOCAL_COMM_ID));
	CU_ASSERT_NOT_EQUAL(rl_cm_get(&rej, RL_CMF_REJ_LOCAL_COMM_ID), 0);
	hx_teardown();
}

static void test_disconnect_in_rep_sent(void)
{
	struct rl_cm rep, rtu, dreq;
	struct rl_rdma_cm_id *child;
	struct rl_qp_attr attr;

	hx_setup(8);
	child = hx_accepted(0xf00, &rep);
	/*
	 * rdma_disconnect() before the RTU: cma.c moves the QP to ERR, then
	 * ib_send_cm_dreq() refuses (it needs Established) and so does
	 * ib_send_cm_drep() (it needs DREQ Rcvd). Nothing goes out, and the CM
	 * stays in REP Sent: the consumer hears of the RTU still.
	 */
	CU_ASSERT_EQUAL(rl_rdma_disconnect(child), 0);
	hx_run();
	CU_ASSERT_EQUAL(X.s[1].nq, 0);
	CU_ASSERT_EQUAL(rl_rdma_id_state(child), RL_CM_STATE_REP_SENT);
	rl_query_qp(rl_rdma_id_qp(child), &attr);
	CU_ASSERT_EQUAL(attr.qp_state, RL_QPS_ERR);
	rl_cm_init(&rtu, RL_CM_RTU, 1ull << 32 | 0xf00);
	rl_cm_set(&rtu, RL_CMF_RTU_LOCAL_COMM_ID, 0xf00);
	rl_cm_set(&rtu, RL_CMF_RTU_REMOTE_COMM_ID, rl_cm_get(&rep, RL_CMF_REP_LOCAL_COMM_ID));
	hx_send(0, &rtu);
	CU_ASSERT_EQUAL(rl_rdma_id_state(child), RL_CM_STATE_ESTABLISHED);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_ESTABLISHED, NULL, 0), 1);
	/* Established, disconnect sends the DREQ. */
	CU_ASSERT_EQUAL(rl_rdma_disconnect(child), 0);
	hx_run();
	CU_ASSERT_FATAL(hx_sent(1, 0, &dreq));
	CU_ASSERT_EQUAL(dreq.attr, RL_CM_DREQ);
	hx_teardown();
}

static void test_no_event_no_child(void)
{
	struct rl_cm req, rep;

	hx_setup(8);
	/*
	 * No memory for the CONNECT_REQUEST: the new id goes again, and the REQ
	 * is dropped without a REJ, as ucma's -ENOMEM is (the kernel's
	 * cm_destroy_id() in REQ Rcvd: "Do not reject to allow future retries").
	 * Left behind, the id would take the resent REQ as a duplicate and answer
	 * it with an MRA, and no consumer would ever hear of it.
	 */
	hx_req(&req, 0xf10);
	tl_fail_next_calloc(sizeof(struct rl_rdma_cm_event));
	hx_send(0, &req);
	CU_ASSERT_EQUAL(X.s[1].nq, 0);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 0);
	hx_send(0, &req);
	CU_ASSERT_EQUAL(X.s[1].nq, 0);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 1);
	/*
	 * SIDR: the kernel's cm_destroy_id() in SIDR REQ Rcvd answers "rejected"
	 * (IBA 12.11.2, status 2), as for a full backlog; no id is left either.
	 */
	hx_sidr_req(&req, 0xf11);
	tl_fail_next_calloc(sizeof(struct rl_rdma_cm_event));
	hx_send(0, &req);
	CU_ASSERT_FATAL(hx_sent(1, 0, &rep) && rep.attr == RL_CM_SIDR_REP);
	CU_ASSERT_EQUAL(rl_cm_get(&rep, RL_CMF_SIDR_REP_STATUS), 2);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 0);
	X.s[1].nq = 0;
	hx_send(0, &req);
	CU_ASSERT_EQUAL(X.s[1].nq, 0);
	CU_ASSERT_EQUAL(hx_take(1, RL_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0), 1);
	hx_teardown();
}

int tl_suite_cm_hostile(void)
{
	CU_pSuite s = CU_add_suite("cm_hostile", NULL, NULL);

	return !s || !CU_add_test(s, "a REQ flood stops at rdma_listen's backlog", test_backlog_bounds_a_flood) ||
	       !CU_add_test(s, "backlog 0 is ucma's max_backlog", test_backlog_default) ||
	       !CU_add_test(s, "SIDR with the backlog full: SIDR_REP rejected", test_sidr_backlog_full_rejects) ||
	       !CU_add_test(s, "a destroyed listener takes its waiting requests", test_listener_takes_waiting_requests) ||
	       !CU_add_test(s, "MADs of another version, method, length or Q_Key are dropped", test_foreign_mads_dropped) ||
	       !CU_add_test(s, "a REQ with an invalid path MTU gets REJ 26", test_req_bad_mtu_rejected) ||
	       !CU_add_test(s, "a REQ for UC on RDMA_PS_TCP gets REJ 9", test_req_not_rc_rejected) ||
	       !CU_add_test(s, "messages for unknown comm IDs: dropped, DREQ answered", test_unknown_comm_ids) ||
	       !CU_add_test(s, "an RTU needs both communication IDs", test_rtu_needs_both_comm_ids) ||
	       !CU_add_test(s, "a SIDR request ID cannot take a connection's ID",
			    test_sidr_request_id_cannot_take_a_connection) ||
	       !CU_add_test(s, "a REJ names the message it refuses", test_rej_names_what_it_refuses) ||
	       !CU_add_test(s, "a REQ resent, and the same ID from another host", test_dup_req_by_source) ||
	       !CU_add_test(s, "CM response timeout 0 and 31, no retries", test_req_timeout_extremes) ||
	       !CU_add_test(s, "more MADs than send slots: none overwritten", test_send_slots_never_overwritten) ||
	       !CU_add_test(s, "a DREQ for another QPN is dropped", test_dreq_needs_our_qpn) ||
	       !CU_add_test(s, "one MRA per REQ: a second one is a duplicate", test_one_mra_per_req) ||
	       !CU_add_test(s, "a REJ from REQ Rcvd has Local Communication ID 0", test_rej_from_req_rcvd_has_no_local_id) ||
	       !CU_add_test(s, "disconnect in REP Sent: QP to ERR, no DREQ", test_disconnect_in_rep_sent) ||
	       !CU_add_test(s, "no memory for CONNECT_REQUEST: no child left", test_no_event_no_child);
}
