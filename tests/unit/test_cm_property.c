/* SPDX-License-Identifier: MIT */
/*
 * Property tests of the CM on the simulated wire: CM messages lost,
 * duplicated, corrupted and reordered (by up to seconds, past the retries)
 * at seeded random rates, a passive side that answers at once or late or
 * says no. Whatever happens, each side gets at most one CONNECT_REQUEST and
 * one ESTABLISHED (never two connections), and the two sides agree: either
 * both are ESTABLISHED with their QPs in RTS aimed at each other with the
 * PSNs the REQ and REP announced, or both end in a failure event with no QP
 * in RTS.
 *
 * One outcome escapes agreement, and IBA has no cure for it: every REP or
 * RTU lost, the passive side gives up and sends REJ(timeout), and that REJ is
 * lost too. The active side, established, learns of it only when its data
 * goes unanswered. The test accepts that outcome only when the wire did
 * lose every REJ the passive side sent.
 *
 * The second property puts two attempts in flight on the same pair: two
 * active ids connecting to one listener at once, or an active consumer that
 * gives up on an attempt (destroys its id, or takes its failure) and
 * connects again with a new id and a new QP while the old REQ may still be
 * on the wire, late or twice. The passive consumer gives each
 * CONNECT_REQUEST a QP of its own. Whatever happens: each id's events are
 * well-formed; no QP in RTS is the peer of two; no two passive ids answer
 * one active QP; a passive QP in RTS has an active QP in RTS aimed back at
 * it, of an attempt that neither failed nor was destroyed; an active QP in
 * RTS whose passive peer is not has lost every REJ that peer sent it (the
 * same half-open case as above); and data an established active side sends
 * arrives only at its own peer's QP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmh.h"

static struct cmh H;

#define RUNS 400
#define LIMIT_NS 4000000000000ull   /* 4000 s: 16 REQs after MRAs of 68.7 s each fit */

static bool is_failure(enum rl_rdma_cm_event_type t)
{
	return t == RL_RDMA_CM_EVENT_UNREACHABLE || t == RL_RDMA_CM_EVENT_REJECTED ||
	       t == RL_RDMA_CM_EVENT_CONNECT_ERROR || t == RL_RDMA_CM_EVENT_DISCONNECTED;
}

/* The side's last event, TIMEWAIT_EXIT aside; ESTABLISHED counts as success. */
static int outcome(int s)
{
	for (int i = H.nev[s]; i-- > 0;) {
		enum rl_rdma_cm_event_type t = H.ev[s][i].type;

		if (t == RL_RDMA_CM_EVENT_ESTABLISHED)
			return 1;
		if (is_failure(t))
			return -1;
		if (t != RL_RDMA_CM_EVENT_TIMEWAIT_EXIT)
			return 0;
	}
	return 0;
}

static bool connected_pair(void)
{
	struct rl_qp_attr a0, a1;

	rl_query_qp(H.p.end[0].qp, &a0);
	rl_query_qp(H.p.end[1].qp, &a1);
	return a0.qp_state == RL_QPS_RTS && a1.qp_state == RL_QPS_RTS && a0.dest_qp_num == rl_qp_num(H.p.end[1].qp) &&
	       a1.dest_qp_num == rl_qp_num(H.p.end[0].qp) && a0.sq_psn == a1.rq_psn && a1.sq_psn == a0.rq_psn;
}

struct tally { int ok, failed, half_open, broken; };

static void one_run(uint64_t seed, struct tally *t)
{
	struct tl_rng r = { seed * 0x9e3779b97f4a7c15ull + 1 };
	static const double drops[] = { 0, 0.05, 0.2, 0.4, 0.7, 0.95 };
	struct rl_simwire_config w = { .latency_ns = 2000 + tl_rand_below(&r, 50000), .seed = seed };
	int a, p;
	bool ok;

	w.drop_rate = drops[tl_rand_below(&r, 6)];
	w.dup_rate = tl_rand_below(&r, 4) * 0.1;
	w.reorder_rate = tl_rand_below(&r, 4) * 0.1;
	w.corrupt_rate = tl_rand_below(&r, 3) * 0.02;
	w.reorder_delay_ns = 1000000ull * (1 + tl_rand_below(&r, 20000));   /* up to 20 s late */
	cmh_setup(&H, RL_QPT_RC, &w, seed);
	H.answer = tl_rand_below(&r, 8) ? CMH_ACCEPT : CMH_REJECT;
	H.accept_delay_ns = tl_rand_below(&r, 3) ? 0 : 1000000000ull * (1 + tl_rand_below(&r, 30));
	cmh_start(&H);
	cmh_run(&H, LIMIT_NS);

	a = outcome(0);
	p = outcome(1);
	ok = cmh_count(&H, 0, RL_RDMA_CM_EVENT_ESTABLISHED) <= 1 && cmh_count(&H, 1, RL_RDMA_CM_EVENT_ESTABLISHED) <= 1 &&
	     cmh_count(&H, 1, RL_RDMA_CM_EVENT_CONNECT_REQUEST) <= 1;
	if (a == 1 && p == 1 && ok && connected_pair()) {
		t->ok++;
	} else if (a == -1 && p <= 0 && ok && !connected_pair() && (p == -1 || !H.pas || rl_rdma_id_state(H.pas) == RL_CM_STATE_IDLE)) {
		/* p == 0: the REQ never arrived, or it was rejected (the passive consumer's own choice, no event) */
		t->failed++;
	} else if (a == 1 && p == -1 && ok && H.rej_sent[1] && H.rej_lost[1] == H.rej_sent[1]) {
		t->half_open++;
	} else {
		t->broken++;
		fprintf(stderr, "\ncm property: seed %llu broken (active %d, passive %d)\n", (unsigned long long)seed, a, p);
		cmh_dump(&H);
	}
	cmh_teardown(&H);
}

static void test_cm_faults(void)
{
	struct tally t = { 0 };

	for (uint64_t seed = 1; seed <= RUNS; seed++)
		one_run(seed, &t);
	printf("\ncm property: %d runs: %d connected, %d failed on both sides, %d half-open (the last REJ lost); "
	       "broken %d\n", RUNS, t.ok, t.failed, t.half_open, t.broken);
	CU_ASSERT_EQUAL(t.broken, 0);
	/* The rates are such that every kind of ending happens. */
	CU_ASSERT(t.ok > RUNS / 4);
	CU_ASSERT(t.failed > 0);
}

/* ---- two attempts in flight -------------------------------------------------------------------- */

#define RUNS2 300
#define ATTEMPTS 3      /* active ids, at most */
#define KIDS 8          /* passive ids, at most */
#define EVS 16
#define TAG 0x524c4d31u /* "RLM1": the first word of each data message, its sender's QPN the second */

enum two_mode { TWO_AT_ONCE, TWO_RETRY };

struct two_id {
	struct rl_rdma_cm_id *id;
	struct rl_qp *qp;              /* NULL once the id (and its QP) is destroyed */
	uint32_t qpn, peer_qpn;        /* passive: the active QP its CONNECT_REQUEST named */
	enum rl_rdma_cm_event_type ev[EVS];
	int nev;
	bool destroyed, answered, reject, sent;
	bool retry_exceeded;           /* active: its SEND gave up (the transport's retries, IBA 9.7.5.1): QP in ERR */
	uint64_t deadline;             /* active: give up then; passive: answer then */
};

struct two {
	enum two_mode mode;
	bool lossless;                 /* the wire loses and corrupts nothing (it may still duplicate and reorder) */
	uint64_t give_up_ns;           /* TWO_RETRY: how long an attempt may take; 0: until it fails */
	struct tl_rng r;
	struct two_id a[ATTEMPTS], k[KIDS];
	int na, nk;
	int delivered, misdelivered, destroyed, retry_exceeded;
	char why[160];
};

static struct two T;

static struct two_id *two_find(struct two_id *v, int n, const struct rl_rdma_cm_id *id)
{
	for (int i = 0; i < n; i++)
		if (v[i].id == id && !v[i].destroyed)
			return &v[i];
	return NULL;
}

static void two_new_attempt(uint64_t now)
{
	struct rl_qp_init_attr ia = { .send_cq = H.p.end[0].cq, .recv_cq = H.p.end[0].cq, .max_send_wr = 4, .max_recv_wr = 4 };
	struct rl_rdma_addr dst = { { 0 }, CMH_PORT };
	struct two_id *t;

	if (T.na >= ATTEMPTS)
		return;
	t = &T.a[T.na++];
	t->id = rl_rdma_create_id(H.p.end[0].cm, NULL, RL_RDMA_PS_TCP);
	CU_ASSERT_FATAL(t->id != NULL);
	CU_ASSERT_FATAL(rl_rdma_create_qp(t->id, H.p.end[0].pd, &ia) == 0);
	t->qp = rl_rdma_id_qp(t->id);
	t->qpn = rl_qp_num(t->qp);
	t->deadline = T.mode == TWO_RETRY && T.give_up_ns ? now + T.give_up_ns : UINT64_MAX;
	memcpy(dst.gid, H.p.end[1].gid, 16);
	CU_ASSERT_EQUAL(rl_rdma_resolve_addr(t->id, NULL, &dst, 2000), 0);
}

static void two_destroy(struct two_id *t)
{
	rl_rdma_destroy_id(t->id);
	t->destroyed = true;
	t->qp = NULL;
	T.destroyed++;
}

/* The active side established: one SEND, naming its QP, from a slot of its own. */
static void two_send(struct two_id *t)
{
	uint64_t off = 64 * (uint64_t)(t - T.a);
	struct rl_send_wr wr = { .wr_id = t->qpn, .num_sge = 1, .opcode = RL_WR_SEND, .send_flags = RL_SEND_SIGNALED };

	rl_put32(H.p.end[0].mem + off, TAG);
	rl_put32(H.p.end[0].mem + off + 4, t->qpn);
	wr.sg_list[0] = (struct rl_sge){ H.p.end[0].iova + off, 8, rl_mr_lkey(H.p.end[0].mr) };
	t->sent = rl_post_send(t->qp, &wr) == 0;
}

/* A new passive id: a QP of its own, receives posted, an answer planned. */
static void two_kid(struct rl_rdma_cm_event *ev, uint64_t now)
{
	struct rl_qp_init_attr ia = { .send_cq = H.p.end[1].cq, .recv_cq = H.p.end[1].cq, .max_send_wr = 4, .max_recv_wr = 4 };
	struct two_id *k;

	if (T.nk >= KIDS) {
		CU_FAIL("more CONNECT_REQUESTs than the attempts could make");
		return;
	}
	k = &T.k[T.nk++];
	k->id = ev->id;
	k->peer_qpn = ev->conn.qp_num;
	CU_ASSERT_FATAL(rl_rdma_create_qp(k->id, H.p.end[1].pd, &ia) == 0);
	k->qp = rl_rdma_id_qp(k->id);
	k->qpn = rl_qp_num(k->qp);
	for (int i = 0; i < 2; i++) {
		uint64_t off = 1024 + 64 * (uint64_t)(2 * (k - T.k) + i);
		struct rl_recv_wr wr = { .wr_id = off, .num_sge = 1 };

		wr.sg_list[0] = (struct rl_sge){ H.p.end[1].iova + off, 64, rl_mr_lkey(H.p.end[1].mr) };
		CU_ASSERT_EQUAL(rl_post_recv(k->qp, &wr), 0);
	}
	k->reject = tl_rand_below(&T.r, 8) == 0;
	k->deadline = now + (tl_rand_below(&T.r, 3) ? 0 : 1000000000ull * (1 + tl_rand_below(&T.r, 30)));
}

static void two_log(struct two_id *t, const struct rl_rdma_cm_event *ev)
{
	if (t->nev < EVS)
		t->ev[t->nev++] = ev->event;
}

static bool two_failure(enum rl_rdma_cm_event_type e)
{
	return e == RL_RDMA_CM_EVENT_REJECTED || e == RL_RDMA_CM_EVENT_UNREACHABLE || e == RL_RDMA_CM_EVENT_CONNECT_ERROR;
}

static void two_react(int s, struct rl_rdma_cm_event *ev, uint64_t now)
{
	struct two_id *t = s ? two_find(T.k, T.nk, ev->id) : two_find(T.a, T.na, ev->id);

	if (s && ev->event == RL_RDMA_CM_EVENT_CONNECT_REQUEST && !t) {
		two_kid(ev, now);
		t = &T.k[T.nk - 1];
	}
	if (!t) {
		CU_FAIL("an event for an id nobody made");
		return;
	}
	two_log(t, ev);
	switch (ev->event) {
	case RL_RDMA_CM_EVENT_ADDR_RESOLVED: CU_ASSERT_EQUAL(rl_rdma_resolve_route(ev->id, 2000), 0); break;
	case RL_RDMA_CM_EVENT_ROUTE_RESOLVED: {
		struct rl_rdma_conn_param p = H.param;

		CU_ASSERT_EQUAL(rl_rdma_connect(ev->id, &p), 0);
		break;
	}
	case RL_RDMA_CM_EVENT_ESTABLISHED:
		if (!s)
			two_send(t);
		break;
	case RL_RDMA_CM_EVENT_DISCONNECTED: CU_ASSERT_EQUAL(rl_rdma_disconnect(ev->id), 0); break;
	default:
		/* The retrying consumer takes a failure as its cue: maybe destroys the id, connects anew. */
		if (!s && two_failure(ev->event) && T.mode == TWO_RETRY && t == &T.a[T.na - 1]) {
			if (tl_rand_below(&T.r, 2))
				two_destroy(t);
			two_new_attempt(now);
		}
		break;
	}
}

static void two_timers(struct rl_sim *sim, uint64_t now)
{
	for (int i = 0; i < T.nk; i++) {
		struct two_id *k = &T.k[i];
		enum rl_cm_state st = rl_rdma_id_state(k->id);

		if (k->answered || (st != RL_CM_STATE_REQ_RCVD && st != RL_CM_STATE_MRA_REQ_SENT))
			continue;
		if (k->deadline > now) {
			rl_sim_wake(sim, k->deadline);
			continue;
		}
		k->answered = true;
		if (k->reject) {
			CU_ASSERT_EQUAL(rl_rdma_reject(k->id, NULL, 0), 0);
		} else {
			CU_ASSERT_EQUAL(rl_rdma_accept(k->id, &H.param), 0);
		}
	}
	if (T.mode == TWO_RETRY && T.na) {
		struct two_id *t = &T.a[T.na - 1];

		/* The latest attempt took too long: destroy it (no word on the wire) and try again. */
		if (!t->destroyed && t->deadline != UINT64_MAX && rl_rdma_id_state(t->id) != RL_CM_STATE_ESTABLISHED &&
		    T.na < ATTEMPTS) {
			if (t->deadline <= now) {
				two_destroy(t);
				two_new_attempt(now);
			} else {
				rl_sim_wake(sim, t->deadline);
			}
		}
	}
}

/* Data that reached a passive QP must come from the active QP its CONNECT_REQUEST named. */
static void two_poll(void)
{
	struct rl_wc wc[8];
	int n;

	while ((n = rl_poll_cq(H.p.end[1].cq, 8, wc)) > 0)
		for (int i = 0; i < n; i++) {
			const uint8_t *b = H.p.end[1].mem + wc[i].wr_id;
			bool ok = false;

			if (wc[i].status != RL_WC_SUCCESS || wc[i].opcode != RL_WC_RECV)
				continue;
			for (int j = 0; j < T.nk; j++)
				if (T.k[j].qpn == wc[i].qp_num)
					ok = rl_get32(b) == TAG && rl_get32(b + 4) == T.k[j].peer_qpn;
			T.delivered += ok;
			T.misdelivered += !ok;
		}
	while ((n = rl_poll_cq(H.p.end[0].cq, 8, wc)) > 0)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < T.na; j++)
				if (T.a[j].qpn == wc[i].qp_num && !T.a[j].destroyed && wc[i].status == RL_WC_RETRY_EXC_ERR) {
					T.a[j].retry_exceeded = true;
					T.retry_exceeded++;
				}
}

static bool two_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct rl_rdma_cm_event *ev;

	int n;

	(void)ctx;
	rl_pair_cm_run(&H.p, now);
	do {   /* until no call of the consumers' queued another event */
		n = 0;
		two_timers(sim, now);
		for (int s = 0; s < 2; s++)
			while (rl_rdma_get_cm_event(H.p.end[s].cm, &ev) == 0) {
				two_react(s, ev, now);
				rl_rdma_ack_cm_event(ev);
				n++;
			}
	} while (n);
	two_poll();
	rl_pair_cm_run(&H.p, now);
	return false;
}

/*
 * Is an id's event sequence one librdmacm could give: the active side's
 * ADDR_RESOLVED, ROUTE_RESOLVED, the passive side's CONNECT_REQUEST first;
 * then at most one of ESTABLISHED or a failure, a failure never after
 * ESTABLISHED; DISCONNECTED only after ESTABLISHED or, on the passive
 * side, after its accept (a DREQ in REP Sent); TIMEWAIT_EXIT only after it.
 */
static bool two_well_formed(const struct two_id *t, bool passive)
{
	int est = 0, fail = 0, disc = 0, tw = 0, i = 0;

	if (passive ? t->nev < 1 || t->ev[0] != RL_RDMA_CM_EVENT_CONNECT_REQUEST
		    : t->nev < 2 || t->ev[0] != RL_RDMA_CM_EVENT_ADDR_RESOLVED || t->ev[1] != RL_RDMA_CM_EVENT_ROUTE_RESOLVED)
		return false;
	for (i = passive ? 1 : 2; i < t->nev; i++)
		switch (t->ev[i]) {
		case RL_RDMA_CM_EVENT_ESTABLISHED:
			if (est++ || fail || disc)
				return false;
			break;
		case RL_RDMA_CM_EVENT_REJECTED:
		case RL_RDMA_CM_EVENT_UNREACHABLE:
		case RL_RDMA_CM_EVENT_CONNECT_ERROR:
			if (fail++ || est || disc)
				return false;
			break;
		case RL_RDMA_CM_EVENT_DISCONNECTED:
			if (disc++ || fail || (!est && !(passive && t->answered && !t->reject)))
				return false;
			break;
		case RL_RDMA_CM_EVENT_TIMEWAIT_EXIT:
			if (tw++ || !disc)
				return false;
			break;
		default:
			return false;
		}
	return true;
}

static bool two_rts(struct rl_qp *qp, struct rl_qp_attr *a)
{
	if (!qp)
		return false;
	rl_query_qp(qp, a);
	return a->qp_state == RL_QPS_RTS;
}

static bool two_failed(const struct two_id *t)
{
	for (int i = 0; i < t->nev; i++)
		if (two_failure(t->ev[i]))
			return true;
	return false;
}

struct tally2 { int runs, attempts, kids, destroyed, connections, half_open, retry_exceeded, delivered, misdelivered, broken; };

static bool two_bad(const char *why)
{
	snprintf(T.why, sizeof(T.why), "%s", why);
	return false;
}

static bool two_check(struct tally2 *t2)
{
	struct rl_qp_attr x, y;
	int conns = 0;

	for (int i = 0; i < T.na; i++)
		if (!two_well_formed(&T.a[i], false))
			return two_bad("an active id's events are not well-formed");
	for (int j = 0; j < T.nk; j++)
		if (!two_well_formed(&T.k[j], true))
			return two_bad("a passive id's events are not well-formed");
	if (T.misdelivered)
		return two_bad("data reached a QP that is not its sender's peer");
	/* One passive id per active QP: a REQ resent, late or twice, never makes a second. */
	for (int j = 0; j < T.nk; j++)
		for (int m = 0; m < j; m++)
			if (T.k[j].peer_qpn == T.k[m].peer_qpn)
				return two_bad("two CONNECT_REQUESTs for one active QP");
	/* A passive QP in RTS: its active QP is in RTS, aimed back at it, of an attempt that neither failed nor went. */
	for (int j = 0; j < T.nk; j++) {
		const struct two_id *k = &T.k[j], *a = NULL;

		if (!two_rts(k->qp, &x))
			continue;
		for (int i = 0; i < T.na; i++)
			if (T.a[i].qpn == x.dest_qp_num)
				a = &T.a[i];
		if (!a || x.dest_qp_num != k->peer_qpn)
			return two_bad("a passive QP in RTS aimed at no attempt's QP");
		if (a->destroyed || two_failed(a))
			return two_bad("a passive QP in RTS for an attempt that failed or was destroyed");
		if (a->retry_exceeded) {   /* connected, and then the transport gave up on the data: not the CM's doing */
			rl_query_qp(a->qp, &y);
			if (y.dest_qp_num != k->qpn)
				return two_bad("a passive QP in RTS without its active QP aimed back at it");
			t2->retry_exceeded++;
			continue;
		}
		if (!two_rts(a->qp, &y) || y.dest_qp_num != k->qpn)
			return two_bad("a passive QP in RTS without its active QP aimed back at it");
		/* The PSNs the REQ and REP announced: the passive side sends nothing; the active side one message. */
		if (x.sq_psn != y.rq_psn || rl_psn_diff(y.sq_psn, x.rq_psn) < 0 || rl_psn_diff(y.sq_psn, x.rq_psn) > 1)
			return two_bad("a connection whose two QPs disagree on the PSNs");
		conns++;
	}
	/* An active QP in RTS: its passive QP is in RTS too, or every REJ that one sent it was lost. */
	for (int i = 0; i < T.na; i++) {
		const struct two_id *a = &T.a[i], *k = NULL;
		int sent, lost;

		if (!two_rts(a->qp, &y))
			continue;
		for (int j = 0; j < T.nk; j++)
			if (T.k[j].qpn == y.dest_qp_num)
				k = &T.k[j];
		if (!k || k->peer_qpn != a->qpn)
			return two_bad("an active QP in RTS aimed at no passive id's QP");
		if (two_rts(k->qp, &x))
			continue;   /* counted above */
		cmh_rej_fate(&H, 1, cmh_req_comm(&H, a->qpn), &sent, &lost);
		if (!sent || lost != sent)
			return two_bad("an active QP in RTS whose peer gave up, and a REJ of the peer's got through");
		t2->half_open++;
	}
	if (T.mode == TWO_RETRY && conns > 1)
		return two_bad("two connections from one retrying consumer");
	/* Liveness, where nothing is lost: two attempts at once each get their answer, the REP or the consumer's REJ. */
	for (int i = 0; T.mode == TWO_AT_ONCE && T.lossless && i < T.na; i++) {
		const struct two_id *a = &T.a[i];

		if (a->nev < 3 || (a->ev[2] != RL_RDMA_CM_EVENT_ESTABLISHED && a->ev[2] != RL_RDMA_CM_EVENT_REJECTED))
			return two_bad("an attempt on a lossless wire neither connected nor was rejected");
	}
	t2->connections += conns;
	return true;
}

static void two_run(uint64_t seed, enum two_mode mode, struct tally2 *t2)
{
	struct tl_rng r = { seed * 0x9e3779b97f4a7c15ull + 7 };
	static const double drops[] = { 0, 0.05, 0.2, 0.4, 0.7, 0.95 };
	struct rl_simwire_config w = { .latency_ns = 2000 + tl_rand_below(&r, 50000), .seed = seed };

	w.drop_rate = drops[tl_rand_below(&r, 6)];
	w.dup_rate = tl_rand_below(&r, 4) * 0.1;
	w.reorder_rate = tl_rand_below(&r, 4) * 0.1;
	w.corrupt_rate = tl_rand_below(&r, 3) * 0.02;
	w.reorder_delay_ns = 1000000ull * (1 + tl_rand_below(&r, 20000));   /* up to 20 s late */
	cmh_setup(&H, RL_QPT_RC, &w, seed);
	rl_rdma_destroy_id(H.act);   /* the attempts make ids and QPs of their own */
	CU_ASSERT_EQUAL(rl_rdma_listen(H.listen, 0), -EINVAL);   /* already listening, backlog 1 ... */
	memset(&T, 0, sizeof(T));
	T.mode = mode;
	T.lossless = w.drop_rate == 0 && w.corrupt_rate == 0;
	T.r = r;
	/* ... so that a second REQ may find the backlog full while the first waits; from 2 s to 30 s, or until failure */
	T.give_up_ns = tl_rand_below(&T.r, 4) ? 1000000000ull * (2 + tl_rand_below(&T.r, 29)) : 0;
	two_new_attempt(0);
	if (mode == TWO_AT_ONCE)
		two_new_attempt(0);
	CU_ASSERT(rl_pair_run(&H.p, LIMIT_NS, 2000000, two_app, NULL) >= 0);
	two_poll();   /* what the transport did after the consumers' last turn */

	t2->runs++;
	t2->attempts += T.na;
	t2->kids += T.nk;
	t2->destroyed += T.destroyed;
	t2->delivered += T.delivered;
	t2->misdelivered += T.misdelivered;
	if (!two_check(t2)) {
		t2->broken++;
		fprintf(stderr, "\ncm property (two attempts, %s): seed %llu broken: %s\n",
			mode == TWO_RETRY ? "retry" : "at once", (unsigned long long)seed, T.why);
		for (int i = 0; i < T.na; i++)
		{
			struct rl_qp_attr qa = { 0 };

			if (T.a[i].qp)
				rl_query_qp(T.a[i].qp, &qa);
			fprintf(stderr, "  active %d: QP 0x%06x%s (state %d, dest 0x%06x), %s:", i, T.a[i].qpn,
				T.a[i].destroyed ? " (destroyed)" : "", qa.qp_state, qa.dest_qp_num,
				T.a[i].destroyed ? "-" : rl_cm_state_name(rl_rdma_id_state(T.a[i].id)));
			for (int e = 0; e < T.a[i].nev; e++)
				fprintf(stderr, " %s", rl_rdma_event_str(T.a[i].ev[e]) + 14);
			fprintf(stderr, "\n");
		}
		for (int j = 0; j < T.nk; j++)
		{
			fprintf(stderr, "  passive %d: QP 0x%06x for 0x%06x, %s:", j, T.k[j].qpn, T.k[j].peer_qpn,
				rl_cm_state_name(rl_rdma_id_state(T.k[j].id)));
			for (int e = 0; e < T.k[j].nev; e++)
				fprintf(stderr, " %s", rl_rdma_event_str(T.k[j].ev[e]) + 14);
			fprintf(stderr, "\n");
		}
		cmh_dump(&H);
	}
	cmh_teardown(&H);
}

static void test_cm_two_attempts(void)
{
	struct tally2 t[2] = { { 0 } };

	for (uint64_t seed = 1; seed <= RUNS2; seed++) {
		two_run(seed, TWO_AT_ONCE, &t[0]);
		two_run(seed, TWO_RETRY, &t[1]);
	}
	for (int m = 0; m < 2; m++)
		printf("\ncm property, two attempts %s: %d runs, %d attempts (%d destroyed), %d CONNECT_REQUESTs; "
		       "%d connections at the end (%d more whose data ran out of retries), %d half-open (the REJ lost), "
		       "%d messages delivered, %d misdelivered; broken %d\n",
		       m ? "(retry)" : "(at once)", t[m].runs, t[m].attempts, t[m].destroyed, t[m].kids, t[m].connections,
		       t[m].retry_exceeded, t[m].half_open, t[m].delivered, t[m].misdelivered, t[m].broken);
	CU_ASSERT_EQUAL(t[0].broken + t[1].broken, 0);
	/* The rates are such that the interesting endings happen. */
	CU_ASSERT(t[0].connections > RUNS2);       /* both attempts connected, often */
	CU_ASSERT(t[1].destroyed > 0);
	CU_ASSERT(t[1].attempts > t[1].runs);
	CU_ASSERT(t[1].connections > RUNS2 / 4);
}

int tl_suite_cm_property(void)
{
	CU_pSuite s = CU_add_suite("cm_property", NULL, NULL);

	return !s || !CU_add_test(s, "lost, duplicated, reordered CM messages: one connection or none", test_cm_faults) ||
	       !CU_add_test(s, "two attempts in flight: never two connections for one", test_cm_two_attempts);
}
