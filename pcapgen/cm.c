/* SPDX-License-Identifier: MIT */
/*
 * Scenarios that connect through the connection manager, as rdma_cm
 * programs do: a CM agent on each host's QP1 (rocelab/cm_agent.h) sends
 * REQ/REP/RTU, MRA, REJ, DREQ/DREP or SIDR_REQ/SIDR_REP on the simulated
 * wire, driven through the rdma_cm-shaped API (rocelab/rdma_cm.h) by an
 * event loop like rping's, and the data follows on the QPs they connected.
 * A (side 0) is the active side, the client (rping -c, ucmatose -s ADDR,
 * udaddy -s ADDR); B (side 1) is the passive side, the server that listens.
 * Nothing here builds a frame: every one is what the agents and the
 * transport sent.
 */
#include <string.h>

#include "rocelab/rdma_cm.h"
#include "sess.h"

/* The ports the tools listen on by default: rping's and udaddy's, and ucmatose's. */
#define GEN_CM_RPING_PORT 7174
#define GEN_CM_UCMATOSE_PORT 7471
/* The most messages a scenario posts at once: what a QP's queue holds (gen_sess_init()). */
#define GEN_CM_MAX_COUNT 4096
/* cm-mra: how long B's consumer takes to accept: past a second REQ timeout (2 x 6.4 s), which the MRA covers */
#define GEN_CM_SLOW_ACCEPT_NS 20000000000ull

/*
 * What a scenario does around the CM: which side begins the data phase
 * (on its ESTABLISHED), which side disconnects when it is done, how the
 * passive consumer answers.
 */
struct gen_cm_plan {
	uint16_t port;                    /* the port A connects to (the service ID's low 16 bits) */
	bool no_listener;                 /* B listens on nothing: REJ 8, invalid service ID */
	uint64_t accept_delay_ns;         /* B accepts this long after CONNECT_REQUEST */
	struct rl_rdma_conn_param param;  /* the tool's rdma_conn_param, both sides */
	int starter;                      /* whose ESTABLISHED begins the data phase */
	int closer;                       /* who calls rdma_disconnect after it; -1: nobody (UD) */
	/* Side @e's receives, posted once its QP is in INIT: before connect or accept. 0 or -1. */
	int (*prepare)(struct gen_sess *s, int e);
	/* The first sends of the data phase. 0 or -1. */
	int (*start)(struct gen_sess *s);
	/* Then after every step: true while data still moves. */
	rl_sim_app_fn data;
};

/* The connection of a session (gen_sess.cm) and what the event loop has seen. */
struct gen_cm {
	const struct gen_cm_plan *plan;
	struct rl_rdma_cm_id *act, *pas;
	uint64_t accept_at;
	bool started, data_done;
	bool closing[2];                     /* the side called rdma_disconnect() */
	bool disconnected[2];                /* the side got DISCONNECTED: its DREP came, or it sent one */
	int last_event[2], last_status[2];   /* for the message when a run goes wrong; -1: none */
	int rejected;                        /* REJECTED's reason; 0: none */
	struct {                             /* UD: where A sends, from its ESTABLISHED (the SIDR_REP) */
		uint32_t qpn, qkey;
		struct rl_ah_attr ah;
	} ud;
	uint64_t recvd[2], sent[2];          /* data-phase completions per side */
	int err;                             /* a post failed: out->msg says why */
};

/* ---- the event loop ------------------------------------------------------------------------ */

static void gen_cm_post_err(struct gen_sess *s, int r)
{
	if (r)
		s->cm->err = -1;
}

/* B's consumer: accept once its delay has passed (rping_cma_event_handler, then rdma_accept()). */
static void gen_cm_answer(struct gen_sess *s, struct rl_sim *sim, uint64_t now)
{
	struct gen_cm *c = s->cm;
	enum rl_cm_state st;
	int r;

	if (!c->pas)
		return;
	st = rl_rdma_id_state(c->pas);
	if (st != RL_CM_STATE_REQ_RCVD && st != RL_CM_STATE_MRA_REQ_SENT && st != RL_CM_STATE_SIDR_REQ_RCVD)
		return;
	if (now < c->accept_at) {
		rl_sim_wake(sim, c->accept_at);
		return;
	}
	if ((r = rl_rdma_accept(c->pas, &c->plan->param)))
		gen_cm_post_err(s, gen_fail(s->out, "rdma_accept failed (%d)", r));
}

/* What rping's cma_event_handler() does with each event, on side @e. */
static void gen_cm_react(struct gen_sess *s, int e, const struct rl_rdma_cm_event *ev, uint64_t now)
{
	struct gen_cm *c = s->cm;

	c->last_event[e] = (int)ev->event;
	c->last_status[e] = ev->status;
	switch (ev->event) {
	case RL_RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rl_rdma_resolve_route(ev->id, 2000))
			gen_cm_post_err(s, gen_fail(s->out, "rdma_resolve_route failed"));
		break;
	case RL_RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rl_rdma_connect(ev->id, &c->plan->param))
			gen_cm_post_err(s, gen_fail(s->out, "rdma_connect failed"));
		break;
	case RL_RDMA_CM_EVENT_CONNECT_REQUEST:
		if (c->pas)   /* one QP on B: a second connection is refused by doing nothing */
			break;
		c->pas = ev->id;
		if (rl_rdma_attach_qp(ev->id, s->e[1].qp))
			gen_cm_post_err(s, gen_fail(s->out, "B could not take its QP for the connection"));
		else if (c->plan->prepare)
			gen_cm_post_err(s, c->plan->prepare(s, 1));
		c->accept_at = now + c->plan->accept_delay_ns;
		break;
	case RL_RDMA_CM_EVENT_ESTABLISHED:
		if (s->type == RL_QPT_UD && e == 0) {
			c->ud.qpn = ev->ud.qp_num;
			c->ud.qkey = ev->ud.qkey;
			c->ud.ah = ev->ud.ah_attr;
		}
		if (e == c->plan->starter && !c->started) {
			c->started = true;
			if (c->plan->start)
				gen_cm_post_err(s, c->plan->start(s));
		}
		break;
	case RL_RDMA_CM_EVENT_REJECTED:
		c->rejected = ev->status;
		break;
	case RL_RDMA_CM_EVENT_DISCONNECTED:
		if (!c->closing[e]) {
			c->closing[e] = true;
			rl_rdma_disconnect(ev->id);   /* the DREP to the peer's DREQ */
		}
		c->disconnected[e] = true;
		break;
	default:
		break;
	}
}

/*
 * The application on both hosts: run the agents, take every event, let B
 * accept, move the data, and disconnect once it is through. It never asks
 * to be called while the wire and the timers are quiet (it returns false):
 * the agents' timers and B's accept ask for their own wake-ups.
 */
static bool gen_cm_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct gen_sess *s = ctx;
	struct gen_cm *c = s->cm;
	struct rl_rdma_cm_event *ev;

	rl_pair_cm_run(&s->pair, now);
	for (int e = 0; e < 2; e++)
		while (rl_rdma_get_cm_event(s->e[e].cm, &ev) == 0) {
			gen_cm_react(s, e, ev, now);
			rl_rdma_ack_cm_event(ev);
		}
	gen_cm_answer(s, sim, now);
	if (c->started && !c->data_done && !c->plan->data(sim, now, s)) {
		c->data_done = true;
		if (c->plan->closer >= 0) {
			int k = c->plan->closer;

			c->closing[k] = true;
			rl_rdma_disconnect(k ? c->pas : c->act);
		}
	}
	rl_pair_cm_run(&s->pair, now);   /* what the consumers did goes out now */
	return false;
}

/*
 * The data phase of cmatose and udaddy: take both sides' completions, count
 * each send in sent[], hand each receive to @recv. True while side @last has
 * not yet received and sent all --count of its messages.
 */
static bool gen_cm_poll(struct gen_sess *s, void (*recv)(struct gen_sess *s, int e, const struct rl_wc *wc), int last)
{
	struct gen_cm *c = s->cm;
	struct rl_wc wc;

	for (int e = 0; e < 2; e++)
		while (rl_poll_cq(s->e[e].cq, 1, &wc) == 1) {
			if (wc.status != RL_WC_SUCCESS)
				continue;
			if (wc.opcode != RL_WC_RECV)
				c->sent[e]++;
			else
				recv(s, e, &wc);
		}
	return !(c->recvd[last] == s->target && c->sent[last] == s->target);
}

static const char *gen_cm_event_name(int ev)
{
	return ev < 0 ? "none" : rl_rdma_event_str((enum rl_rdma_cm_event_type)ev);
}

/*
 * Did the run tell the story the plan set out: a REJ, the disconnect after
 * the data (RC), or the SIDR_REP (UD: a datagram the wire loses stays lost,
 * and the capture shows it)? 0, or -1 with out->msg saying where it stopped.
 */
static int gen_cm_outcome(struct gen_sess *s, const char *name, bool want_reject)
{
	struct gen_cm *c = s->cm;
	const char *why;

	if (c->err)
		return -1;
	if (want_reject) {
		if (c->rejected)
			return 0;
		why = "the connection was never rejected";
	} else if (s->type == RL_QPT_UD) {
		if (c->started)
			return 0;
		why = "the SIDR_REQ was never answered";
	} else {
		if (c->data_done && c->disconnected[0] && c->disconnected[1])
			return 0;
		why = "the connection never carried the data through to the disconnect";
	}
	return gen_fail(s->out, "%s: %s (the last CM events: A %s, status %d; B %s, status %d; the QPs: A %s, B %s)",
			name, why, gen_cm_event_name(c->last_event[0]), c->last_status[0],
			gen_cm_event_name(c->last_event[1]), c->last_status[1],
			rl_qp_state_name(rl_qp_state(s->e[0].qp)), rl_qp_state_name(rl_qp_state(s->e[1].qp)));
}

/*
 * A session whose QPs the CM connects: B listens on the plan's port (unless
 * it has no listener), A resolves B's address and connects; run until the
 * wire is quiet. @setup (may be NULL) readies memory and counters first.
 */
static int gen_cm_run(const struct gen_opts *o, struct gen_out *out, const char *name, enum rl_qp_type type,
		      size_t mem, const struct gen_cm_plan *plan, gen_fault_fn fault, bool want_reject,
		      void (*setup)(struct gen_sess *s))
{
	uint16_t ps = type == RL_QPT_UD ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP;
	struct rl_rdma_addr any = { { 0 }, plan->port }, dst = { { 0 }, plan->port };
	struct gen_qp_cfg qc;
	struct gen_sess s;
	struct gen_cm c;
	struct rl_rdma_cm_id *listen = NULL;
	int r;

	gen_qp_cfg_default(&qc, type, mem);
	qc.cm = true;
	r = gen_sess_init(&s, o, out, &qc);
	memset(&c, 0, sizeof(c));
	c.plan = plan;
	c.last_event[0] = c.last_event[1] = -1;
	s.cm = &c;
	s.fault = fault;
	if (!r && !plan->no_listener) {
		listen = rl_rdma_create_id(s.e[1].cm, &s, ps);
		r = !listen || rl_rdma_bind_addr(listen, &any) || rl_rdma_listen(listen, 1)
			    ? gen_fail(out, "B cannot listen on port %u", plan->port) : 0;
	}
	if (!r) {
		c.act = rl_rdma_create_id(s.e[0].cm, &s, ps);
		r = !c.act || rl_rdma_attach_qp(c.act, s.e[0].qp) ? gen_fail(out, "A cannot set up its cm_id") : 0;
	}
	if (!r && setup)
		setup(&s);
	if (!r && plan->prepare)
		r = plan->prepare(&s, 0);
	if (!r) {
		memcpy(dst.gid, s.e[1].gid, 16);
		r = rl_rdma_resolve_addr(c.act, NULL, &dst, 2000) ? gen_fail(out, "A cannot resolve B's address") : 0;
	}
	if (!r)
		r = gen_sess_run(&s, gen_cm_app);
	if (!r)
		r = gen_cm_outcome(&s, name, want_reject);
	gen_sess_free(&s);   /* the agents destroy their ids */
	return r;
}

static int gen_cm_count(const struct gen_opts *o, struct gen_out *out, const char *name, uint64_t def, uint64_t *n)
{
	*n = gen_count(o, def);
	if (*n > GEN_CM_MAX_COUNT)
		return gen_fail(out, "%s posts all its messages at once: --count is at most %d here", name, GEN_CM_MAX_COUNT);
	return 0;
}

/* ---- ucmatose: REQ/REP/RTU, SENDs each way, DREQ/DREP ---------------------------------------- */

/*
 * ucmatose (librdmacm's cmatose.c) with one connection: both sides post
 * their receives before connecting; once B is ESTABLISHED it sends --count
 * messages; A, once it has them all, sends as many back; B then
 * disconnects (tests/fixtures/rxe/ucmatose.pcap).
 */
#define UCMA_SEND_OFF 0
#define UCMA_RECV_OFF(size) ((uint64_t)(size))

static int ucma_prepare(struct gen_sess *s, int e)
{
	uint32_t size = gen_size(s->o, 64);
	int r = 0;

	gen_fill(s, e, UCMA_SEND_OFF, size);
	for (uint64_t i = 0; i < s->target && !r; i++)
		r = gen_post_recv(s, e, UCMA_RECV_OFF(size), size, 100 + i);
	return r;
}

static int ucma_send_all(struct gen_sess *s, int e)
{
	int r = 0;

	for (uint64_t i = 0; i < s->target && !r; i++)
		r = gen_post_send(s, e, RL_WR_SEND, UCMA_SEND_OFF, gen_size(s->o, 64), 0, i);
	return r;
}

static int ucma_start(struct gen_sess *s)
{
	return ucma_send_all(s, 1);
}

/* cmatose: when A has all of B's messages, it sends its replies ("sending replies"); B only counts. */
static void ucma_recv(struct gen_sess *s, int e, const struct rl_wc *wc)
{
	(void)wc;
	if (++s->cm->recvd[e] == s->target && e == 0)
		gen_cm_post_err(s, ucma_send_all(s, 0));
}

static bool ucma_data(struct rl_sim *sim, uint64_t now, void *ctx)
{
	(void)sim;
	(void)now;
	return gen_cm_poll(ctx, ucma_recv, 1);
}

static const struct gen_cm_plan ucma_plan = {
	.port = GEN_CM_UCMATOSE_PORT,
	/* cmatose.c: one READ/atomic each way, retry_count 5, rnr_retry_count 0 */
	.param = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 5 },
	.starter = 1, .closer = 1,
	.prepare = ucma_prepare, .start = ucma_start, .data = ucma_data,
};

static void ucma_setup(struct gen_sess *s)
{
	s->target = gen_count(s->o, 2);
}

static int gen_ucma(const struct gen_opts *o, struct gen_out *out, const char *name, const struct gen_cm_plan *plan,
		    gen_fault_fn fault)
{
	uint64_t n;

	if (gen_cm_count(o, out, name, 2, &n))
		return -1;
	return gen_cm_run(o, out, name, RL_QPT_RC, (size_t)gen_size(o, 64) * 2 + 64, plan, fault, false, ucma_setup);
}

static int sc_cm_connect(const struct gen_opts *o, struct gen_out *out)
{
	return gen_ucma(o, out, "cm-connect", &ucma_plan, NULL);
}

/* The first frame A sends, its REQ, is lost. */
static enum rl_simwire_fate fault_lose_req(struct gen_sess *s, uint64_t n, int from)
{
	(void)n;
	return nth_from(s, from, 0, 1) ? RL_SIMWIRE_DROPPED : RL_SIMWIRE_DELIVERED;
}

static int sc_cm_req_lost(const struct gen_opts *o, struct gen_out *out)
{
	return gen_ucma(o, out, "cm-req-lost", &ucma_plan, fault_lose_req);
}

static int sc_cm_mra(const struct gen_opts *o, struct gen_out *out)
{
	struct gen_cm_plan slow = ucma_plan;

	slow.accept_delay_ns = GEN_CM_SLOW_ACCEPT_NS;
	return gen_ucma(o, out, "cm-mra", &slow, NULL);
}

/* ---- rping to a port nobody listens on --------------------------------------------------------- */

/* rping's rdma_conn_param (rping.c): one READ each way, retry and RNR retry 7. */
#define RPING_PARAM { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7, .rnr_retry_count = 7 }

static bool no_data(struct rl_sim *sim, uint64_t now, void *ctx)
{
	(void)sim;
	(void)now;
	(void)ctx;
	return false;
}

static int sc_cm_reject(const struct gen_opts *o, struct gen_out *out)
{
	static const struct gen_cm_plan plan = {
		.port = GEN_CM_RPING_PORT, .no_listener = true, .param = RPING_PARAM, .starter = 0, .closer = 0,
		.data = no_data,
	};

	return gen_cm_run(o, out, "cm-reject", RL_QPT_RC, 4096, &plan, NULL, true, NULL);
}

/* ---- rping: the CM, the data phase, the disconnect --------------------------------------------- */

/*
 * rping (librdmacm's example): the client (A) advertises a buffer in a SEND
 * (struct rping_rdma_info: address, rkey, length, big-endian); the server
 * (B) RDMA READs it, says "go ahead"; A advertises a sink; B RDMA WRITEs
 * into it and says "go ahead" again. --count rounds, then A disconnects
 * (tests/fixtures/rxe/rping.pcap).
 */
enum { RP_ADVERT_SRC, RP_WAIT_READ, RP_ADVERT_SINK, RP_WAIT_WRITE };

#define RPING_INFO_OFF 8192          /* struct rping_rdma_info, A's and B's receive buffer */
#define RPING_GO_OFF (8192 + 64)     /* B's "go ahead", A's receive buffer for it */
#define RPING_INFO_LEN 16

static void rping_advertise(struct gen_sess *s, uint64_t off, uint32_t len, uint64_t wr_id)
{
	uint8_t *info = s->e[0].mem + RPING_INFO_OFF;

	rl_put64(info, s->e[0].iova + off);
	rl_put32(info + 8, rl_mr_rkey(s->e[0].mr));
	rl_put32(info + 12, len);
	gen_cm_post_err(s, gen_post_send(s, 0, RL_WR_SEND, RPING_INFO_OFF, RPING_INFO_LEN, 0, wr_id));
}

static void rping_server(struct gen_sess *s, uint32_t size)
{
	const uint8_t *info = s->e[1].mem + RPING_INFO_OFF;
	uint64_t addr = rl_get64(info);
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = s->step == RP_ADVERT_SRC ? RL_WR_RDMA_READ : RL_WR_RDMA_WRITE;
	wr.wr_id = 10 + (uint64_t)s->step;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ s->e[1].iova, size, rl_mr_lkey(s->e[1].mr) };
	wr.rdma.remote_addr = addr;
	wr.rdma.rkey = rl_get32(info + 8);
	gen_cm_post_err(s, rl_pair_post_send(&s->pair, 1, &wr) ? gen_fail(s->out, "%s", s->pair.err) : 0);
}

static bool rping_app(struct rl_sim *sim, uint64_t now, void *ctx)
{
	struct gen_sess *s = ctx;
	uint32_t size = gen_size(s->o, 64);
	struct rl_wc wc;

	(void)sim; (void)now;
	while (rl_poll_cq(s->e[1].cq, 1, &wc) == 1) {
		if (wc.status != RL_WC_SUCCESS)
			continue;
		if (wc.opcode == RL_WC_RECV) {            /* an advertisement arrived */
			gen_post_recv(s, 1, RPING_INFO_OFF, RPING_INFO_LEN, 0);
			rping_server(s, size);
		} else if (wc.opcode == RL_WC_RDMA_READ || wc.opcode == RL_WC_RDMA_WRITE) {
			gen_post_send(s, 1, RL_WR_SEND, RPING_GO_OFF, RPING_INFO_LEN, 0, 20);   /* "go ahead" */
		}
	}
	while (rl_poll_cq(s->e[0].cq, 1, &wc) == 1) {
		if (wc.status != RL_WC_SUCCESS || wc.opcode != RL_WC_RECV)
			continue;
		gen_post_recv(s, 0, RPING_GO_OFF, RPING_INFO_LEN, 0);
		if (s->step == RP_ADVERT_SRC) {
			s->step = RP_ADVERT_SINK;
			rping_advertise(s, 4096, size, 2);
		} else if (++s->done < s->target) {
			s->step = RP_ADVERT_SRC;
			rping_advertise(s, 0, size, 1);
		}
	}
	return s->done < s->target;
}

/* rping_setup_buffers(): each side's receive, posted before connect and accept. */
static int rping_prepare(struct gen_sess *s, int e)
{
	return gen_post_recv(s, e, e ? RPING_INFO_OFF : RPING_GO_OFF, RPING_INFO_LEN, 0);
}

/* rping_test_client(): the first advertisement, once A is ESTABLISHED. */
static int rping_start(struct gen_sess *s)
{
	rping_advertise(s, 0, gen_size(s->o, 64), 1);
	return 0;
}

static void rping_setup(struct gen_sess *s)
{
	s->target = gen_count(s->o, 3);
	gen_fill(s, 0, 0, gen_size(s->o, 64));
}

static int sc_rping(const struct gen_opts *o, struct gen_out *out)
{
	static const struct gen_cm_plan plan = {
		.port = GEN_CM_RPING_PORT, .param = RPING_PARAM, .starter = 0, .closer = 0,
		.prepare = rping_prepare, .start = rping_start, .data = rping_app,
	};

	if (gen_size(o, 64) > 4096)
		return gen_fail(out, "rping buffers are at most 4096 bytes here (--size)");
	return gen_cm_run(o, out, "rping", RL_QPT_RC, 16384, &plan, NULL, false, rping_setup);
}

/* ---- udaddy: SIDR, then datagrams to the QPN and Q_Key it announced -------------------------------- */

/*
 * udaddy (librdmacm's example) with one id: A's SIDR_REQ names rdma_cm's
 * UDP port space and the port; B's SIDR_REP answers with its QPN and
 * Q_Key (RDMA_UDP_QKEY). A sends --count SENDs with immediate data (its
 * QPN, as udaddy does) to them; B answers each one it gets to the source
 * QP its completion names (tests/fixtures/rxe/udaddy.pcap).
 */
#define UD_SEND_OFF 0
#define UD_RECV_OFF 8192

static int ud_prepare(struct gen_sess *s, int e)
{
	uint32_t size = gen_size(s->o, 64);
	int r = 0;

	gen_fill(s, e, UD_SEND_OFF, size);
	for (uint64_t i = 0; i < s->target && !r; i++)   /* room for the 40-byte GRH in front */
		r = gen_post_recv(s, e, UD_RECV_OFF, size + 40, 100 + i);
	return r;
}

static int ud_send(struct gen_sess *s, int e, uint32_t qpn, uint32_t qkey, const struct rl_ah_attr *ah, uint64_t wr_id)
{
	struct rl_send_wr wr;

	rl_pair_send_wr(&s->pair, e, RL_WR_SEND_WITH_IMM, UD_SEND_OFF, gen_size(s->o, 64), 0, wr_id, &wr);
	wr.imm_data = rl_qp_num(s->e[e].qp);
	wr.ud.remote_qpn = qpn;
	wr.ud.remote_qkey = qkey;
	if (ah) {
		memcpy(wr.ud.dgid, ah->dgid, 16);
		memcpy(wr.ud.dmac, ah->dmac, 6);
	}
	return rl_pair_post_send(&s->pair, e, &wr) ? gen_fail(s->out, "%s", s->pair.err) : 0;
}

/* A's datagrams go where the SIDR_REP said: its QPN and Q_Key, in the ESTABLISHED event. */
static int ud_start(struct gen_sess *s)
{
	const struct gen_cm *c = s->cm;
	int r = 0;

	for (uint64_t i = 0; i < s->target && !r; i++)
		r = ud_send(s, 0, c->ud.qpn, c->ud.qkey, &c->ud.ah, i);
	return r;
}

/* udaddy: B answers each datagram to the source QP its completion names, with rdma_cm's Q_Key; A only counts. */
static void ud_recv(struct gen_sess *s, int e, const struct rl_wc *wc)
{
	if (e == 1)
		gen_cm_post_err(s, ud_send(s, 1, wc->src_qp, RL_RDMA_UDP_QKEY, NULL, s->cm->recvd[1]++));
	else
		s->cm->recvd[0]++;
}

static bool ud_data(struct rl_sim *sim, uint64_t now, void *ctx)
{
	(void)sim;
	(void)now;
	return gen_cm_poll(ctx, ud_recv, 0);
}

static void ud_setup(struct gen_sess *s)
{
	s->target = gen_count(s->o, 2);
}

static int sc_ud_sidr(const struct gen_opts *o, struct gen_out *out)
{
	static const struct gen_cm_plan plan = {
		.port = GEN_CM_RPING_PORT, .starter = 0, .closer = -1,
		.prepare = ud_prepare, .start = ud_start, .data = ud_data,
	};
	uint32_t max = rl_mtu_bytes(o->mtu);
	uint64_t n;

	if (gen_size(o, 64) > max) {
		return gen_fail(out, "a UD message is one packet: --size %u is more than the MTU %u", gen_size(o, 64),
				max);
	}
	if (gen_cm_count(o, out, "ud-sidr", 2, &n))
		return -1;
	return gen_cm_run(o, out, "ud-sidr", RL_QPT_UD, UD_RECV_OFF + (size_t)gen_size(o, 64) + 40, &plan, NULL, false,
			  ud_setup);
}

/* What the CM's scenarios take: the pair's options, but the starting PSNs (WHY_CM_PSN). */
#define TAKES_CM (GEN_TAKES_PAIR & ~GEN_TAKES_PSN_A)
#define WHY_CM_PSN "the CM picks the starting PSNs (from --seed) and announces them in the REQ and REP: " \
		   "--psn-a and --psn-b are for the scenarios without it"
#define WHY_CM GEN_WHY([GEN_OPT_PSN_A] = WHY_CM_PSN, [GEN_OPT_PSN_B] = WHY_CM_PSN)

const struct gen_scenario gen_rdma_cm[] = {
	{ "cm-connect", sc_cm_connect, TAKES_CM | GEN_TAKES_MSGS, WHY_CM, "like ucmatose: REQ/REP/RTU, SENDs each way, DREQ/DREP (rdma_cm on QP1)" },
	{ "cm-req-lost", sc_cm_req_lost, TAKES_CM | GEN_TAKES_MSGS, WHY_CM, "the REQ is lost: resent after the CM response timeout, then connected" },
	{ "cm-mra", sc_cm_mra, TAKES_CM | GEN_TAKES_MSGS, WHY_CM, "a slow server: the REQ is resent, answered with MRA, then REP/RTU" },
	{ "cm-reject", sc_cm_reject, TAKES_CM & ~GEN_TAKES_QPN_B,
	  GEN_WHY(GEN_WHY_MSGS("nobody listens, so no data moves after the REJ: cm-connect takes --count and --size"),
		  [GEN_OPT_PSN_A] = WHY_CM_PSN, [GEN_OPT_PSN_B] = WHY_CM_PSN,
		  [GEN_OPT_QPN_B] = "nobody listens on the port, so B makes no QP: its CM answers on QP1 with a REJ"),
	  "nobody listens on the port: REJ with reason 8, invalid service ID" },
	{ "ud-sidr", sc_ud_sidr, TAKES_CM | GEN_TAKES_MSGS, WHY_CM, "like udaddy: SIDR_REQ/SIDR_REP announce a QPN and Q_Key, UD SENDs to them" },
	{ "rping", sc_rping, TAKES_CM | GEN_TAKES_MSGS, WHY_CM, "like rping: connect, advertise a buffer, the peer READs it, WRITEs back, disconnect" },
};
const size_t gen_nrdma_cm = sizeof(gen_rdma_cm) / sizeof(gen_rdma_cm[0]);
