/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the CM agent (core/src/cm_*.c, rdma_cm.c): what a
 * host running `rocelab peer --cm` may be sent by anybody on the network.
 *
 * Two hosts with a CM agent each, joined by a wire the fuzzer drives (fz_cm.h):
 * side 1 listens (RC and UD, rdma_listen's backlog from the config byte),
 * side 0 connects an RC id and/or resolves a UD service, both with an
 * rping-shaped consumer. The fuzzer delivers, loses and delays the frames
 * they send, lets time pass so that timers fire, makes consumer calls, and
 * injects MADs of its own (from the peer, a stranger, a host with no MAC,
 * or the host itself; truncated, too long, with odd Q_Keys; optionally
 * carrying the communication and transaction IDs of an id in play, so that
 * it reaches deep into the state machine of IBA 12.9).
 *
 * Invariants, checked after every record (a broken one traps):
 *   - events are well-formed: at most one ESTABLISHED and one DISCONNECTED
 *     per id; CONNECT_REQUEST only as the first event of a new id, naming one
 *     of our listeners; DISCONNECTED only after ESTABLISHED or an accept (the
 *     kernel's cma reports a DREQ in REP Sent as DISCONNECTED too); no
 *     REJECTED, UNREACHABLE or CONNECT_ERROR after ESTABLISHED; TIMEWAIT_EXIT
 *     only after DISCONNECTED;
 *   - memory is bounded: ids the consumer was not told of are at most the
 *     listeners' backlog; queued events at most FZ_MAX_EVENTS; a MAD from
 *     the fuzzer makes its host send at most FZ_MAX_ANSWERS frames;
 *   - QP1 stays in RTS on both hosts: no MAD can take the GSI down;
 *   - time is bounded: a wait fires at most FZ_MAX_TICKS distinct deadlines.
 * ASan and UBSan report the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocelab/rocelab.h"
#include "rocelab/cm.h"
#include "rocelab/rdma_cm.h"
#include "cm_internal.h"   /* the agent's ids and event queue, for the bounds */
#include "fz_cm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond) ((cond) ? (void)0 : fz_fail(#cond, __LINE__))

#define FZ_PORT 7174             /* rping's */
#define FZ_QUEUE 64              /* frames each side's wire holds; more are lost */
#define FZ_FRAME_MAX 1024
#define FZ_IDS 32                /* ids the consumers keep track of */
#define FZ_KEEP 6                /* children the passive consumer keeps; it destroys the rest */
#define FZ_MAX_EVENTS 64
#define FZ_MAX_ANSWERS 4         /* frames one injected MAD may make its host send */
#define FZ_MAX_TICKS 4096
#define FZ_STEP_NS 1000          /* one frame's trip */
#define FZ_MAX_RECORDS 512

/* FZ_CM_TRACE=1 in the environment: say what happens, to read a crash input. */
static bool fz_tracing(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("FZ_CM_TRACE") != NULL;
	return on;
}

static void fz_trace_frame(const char *what, int s, uint64_t now, const uint8_t *frame, size_t len)
{
	struct rl_pkt p;
	struct rl_cm cm;
	char line[256] = "not a CM MAD";

	if (!fz_tracing())
		return;
	if (rl_decode(RL_LINK_ETHERNET, frame, len, &p) == RL_OK && p.payload_len)
		rl_cm_decode(p.payload, p.payload_len, &cm) != RL_CM_NOT_CM ? (void)rl_cm_describe(&cm, line, sizeof(line))
									  : (void)0;
	fprintf(stderr, "%12.6f s %s side %d: %s\n", now / 1e9, what, s, line);
}

static _Noreturn void fz_fail(const char *what, int line)
{
	fprintf(stderr, "fuzz_cm.c:%d: invariant broken: %s\n", line, what);
	__builtin_trap();
}

struct fz_frame {
	uint8_t b[FZ_FRAME_MAX];
	size_t len;
};

/* What the consumers know of an id, and what it was told. */
struct fz_id {
	struct rl_rdma_cm_id *id;
	int side;
	bool child, accepted, late;
	unsigned established, disconnected, connect_requests, failed, timewait_exit;
};

struct fz_net {
	struct rl_host *h[2];
	struct rl_cm_agent *cm[2];
	struct rl_pd *pd[2];
	struct fz_frame q[2][FZ_QUEUE];
	unsigned qhead[2], qlen[2];
	uint64_t sent[2];                 /* frames each host emitted */
	uint64_t now;
	uint8_t cfg;
	int backlog;
	struct rl_rdma_cm_id *listen_rc, *listen_ud, *act_rc, *act_ud;
	struct fz_id ids[FZ_IDS];
	int nids;
};

static const uint8_t fz_ip[4][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 }, { 10, 0, 0, 3 }, { 10, 0, 0, 4 } };
static const uint32_t fz_qkeys[8] = { RL_GSI_QKEY, 0, RL_RDMA_UDP_QKEY, 0xffffffffu,
				      RL_GSI_QKEY + 1, 0x80000000u, 0x00010000u, RL_GSI_QKEY };

static void fz_mac(int i, uint8_t mac[6])
{
	const uint8_t m[6] = { 0x02, 0, 0, 0, 0, (uint8_t)(i + 1) };

	memcpy(mac, m, 6);
}

static void fz_gid(int i, uint8_t gid[16]) { rl_gid_from_ipv4(gid, fz_ip[i]); }

/* ARP: the two hosts and the stranger (10.0.0.3) have MACs; 10.0.0.4 has none. */
static bool fz_resolve(void *ctx, const uint8_t gid[16], uint8_t mac[6])
{
	uint8_t g[16];

	(void)ctx;
	for (int i = 0; i < 3; i++) {
		fz_gid(i, g);
		if (!memcmp(g, gid, 16)) {
			fz_mac(i, mac);
			return true;
		}
	}
	return false;
}

struct fz_port {
	struct fz_net *net;
	int side;
};
static struct fz_port fz_ports[2];

/* A frame a host sent: onto its wire if it goes to the other host, else gone (to a stranger). */
static void fz_emit(void *ctx, const uint8_t *frame, size_t len)
{
	struct fz_port *p = ctx;
	struct fz_net *n = p->net;
	int s = p->side;
	uint8_t peer[6];

	n->sent[s]++;
	fz_mac(!s, peer);
	if (len > FZ_FRAME_MAX || len < 6 || memcmp(frame, peer, 6) || n->qlen[s] == FZ_QUEUE)
		return;
	struct fz_frame *f = &n->q[s][(n->qhead[s] + n->qlen[s]++) % FZ_QUEUE];

	memcpy(f->b, frame, len);
	f->len = len;
}

/* ---- the consumers ---------------------------------------------------------------------- */

static struct fz_id *fz_find(struct fz_net *n, const struct rl_rdma_cm_id *id)
{
	for (int i = 0; i < n->nids; i++)
		if (n->ids[i].id == id)
			return &n->ids[i];
	return NULL;
}

static struct fz_id *fz_track(struct fz_net *n, struct rl_rdma_cm_id *id, int side, bool child)
{
	struct fz_id *t;

	if (n->nids == FZ_IDS)
		return NULL;
	t = &n->ids[n->nids++];
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->side = side;
	t->child = child;
	return t;
}

static void fz_destroy(struct fz_net *n, struct fz_id *t)
{
	struct rl_rdma_cm_id *id = t->id;

	if (id == n->listen_rc)
		n->listen_rc = NULL;
	if (id == n->listen_ud)
		n->listen_ud = NULL;
	if (id == n->act_rc)
		n->act_rc = NULL;
	if (id == n->act_ud)
		n->act_ud = NULL;
	rl_rdma_destroy_id(id);
	*t = n->ids[--n->nids];
}

static int fz_children(const struct fz_net *n)
{
	int k = 0;

	for (int i = 0; i < n->nids; i++)
		k += n->ids[i].child;
	return k;
}

static void fz_accept(struct fz_net *n, struct fz_id *t)
{
	struct rl_qp_init_attr ia = { .max_send_wr = 4, .max_recv_wr = 4 };
	struct rl_rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
					.rnr_retry_count = 7 };
	struct rl_cq *cq = NULL;

	if (!rl_rdma_id_qp(t->id)) {
		cq = rl_create_cq(n->h[t->side], 8);
		ia.send_cq = ia.recv_cq = cq;
		if (!cq || rl_rdma_create_qp(t->id, n->pd[t->side], &ia))
			return;
	}
	if (rl_rdma_accept(t->id, &p) == 0)
		t->accepted = true;
}

/* The passive consumer's answer to a CONNECT_REQUEST. */
static void fz_on_connect_request(struct fz_net *n, struct fz_id *t)
{
	static const char no[] = "no";

	if (fz_children(n) > FZ_KEEP) {
		fz_destroy(n, t);
		return;
	}
	switch (n->cfg & FZ_CM_CFG_POLICY) {
	case FZ_CM_ACCEPT: fz_accept(n, t); break;
	case FZ_CM_REJECT: rl_rdma_reject(t->id, no, sizeof(no)); break;
	case FZ_CM_IGNORE: break;
	case FZ_CM_ACCEPT_LATE: t->late = true; break;
	}
}

/* The events of one id, in the order they may come (see the top of the file). */
static void fz_check_event(struct fz_net *n, const struct rl_rdma_cm_event *ev, struct fz_id *t)
{
	switch (ev->event) {
	case RL_RDMA_CM_EVENT_CONNECT_REQUEST:
		FZ_CHECK(t->child && t->connect_requests++ == 0);
		FZ_CHECK(ev->listen_id && (ev->listen_id == n->listen_rc || ev->listen_id == n->listen_ud));
		break;
	case RL_RDMA_CM_EVENT_ESTABLISHED:
		FZ_CHECK(t->established++ == 0);
		FZ_CHECK(!t->child || t->accepted);
		break;
	case RL_RDMA_CM_EVENT_DISCONNECTED:
		FZ_CHECK(t->disconnected++ == 0);
		FZ_CHECK(t->established || t->accepted);
		break;
	case RL_RDMA_CM_EVENT_REJECTED:
	case RL_RDMA_CM_EVENT_UNREACHABLE:
	case RL_RDMA_CM_EVENT_CONNECT_ERROR:
		FZ_CHECK(!t->established);
		t->failed++;
		break;
	case RL_RDMA_CM_EVENT_TIMEWAIT_EXIT:
		FZ_CHECK(t->disconnected && t->timewait_exit++ == 0);
		break;
	default:
		break;
	}
	FZ_CHECK(ev->private_data_len <= RL_RDMA_MAX_PRIVATE_DATA);
}

static void fz_active_react(struct fz_net *n, struct fz_id *t, const struct rl_rdma_cm_event *ev)
{
	struct rl_qp_init_attr ia = { .max_send_wr = 4, .max_recv_wr = 4 };
	struct rl_rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
					.rnr_retry_count = 7 };
	struct rl_cq *cq;

	switch (ev->event) {
	case RL_RDMA_CM_EVENT_ADDR_RESOLVED:
		rl_rdma_resolve_route(t->id, 2000);
		break;
	case RL_RDMA_CM_EVENT_ROUTE_RESOLVED:
		cq = rl_create_cq(n->h[0], 8);
		ia.send_cq = ia.recv_cq = cq;
		if (cq && rl_rdma_create_qp(t->id, n->pd[0], &ia) == 0)
			rl_rdma_connect(t->id, &p);
		break;
	case RL_RDMA_CM_EVENT_ESTABLISHED:
		if (n->cfg & FZ_CM_CFG_HANGUP)
			rl_rdma_disconnect(t->id);
		break;
	case RL_RDMA_CM_EVENT_DISCONNECTED:
		rl_rdma_disconnect(t->id);
		break;
	default:
		break;
	}
}

/* Returns false if the id went away. */
static bool fz_passive_react(struct fz_net *n, struct fz_id *t, const struct rl_rdma_cm_event *ev)
{
	switch (ev->event) {
	case RL_RDMA_CM_EVENT_CONNECT_REQUEST:
		fz_on_connect_request(n, t);
		return fz_find(n, ev->id) != NULL;
	case RL_RDMA_CM_EVENT_DISCONNECTED:
		rl_rdma_disconnect(t->id);
		return true;
	case RL_RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RL_RDMA_CM_EVENT_REJECTED:
	case RL_RDMA_CM_EVENT_UNREACHABLE:
	case RL_RDMA_CM_EVENT_CONNECT_ERROR:
		if (t->child) {
			fz_destroy(n, t);
			return false;
		}
		return true;
	default:
		return true;
	}
}

static void fz_consume(struct fz_net *n, int s)
{
	struct rl_rdma_cm_event *ev;

	if (s == 1 && (n->cfg & FZ_CM_CFG_DEAF))
		return;
	while (rl_rdma_get_cm_event(n->cm[s], &ev) == 0) {
		struct fz_id *t = fz_find(n, ev->id);

		if (!t) {
			/* Only a CONNECT_REQUEST brings a new id. */
			FZ_CHECK(s == 1 && ev->event == RL_RDMA_CM_EVENT_CONNECT_REQUEST);
			t = fz_track(n, ev->id, s, true);
			if (!t) {
				rl_rdma_destroy_id(ev->id);
				rl_rdma_ack_cm_event(ev);
				continue;
			}
		}
		if (fz_tracing())
			fprintf(stderr, "%12.6f s side %d event %s status %d id %p\n", n->now / 1e9, s,
				rl_rdma_event_str(ev->event), ev->status, (void *)ev->id);
		fz_check_event(n, ev, t);
		if (s == 0)
			fz_active_react(n, t, ev);
		else
			fz_passive_react(n, t, ev);
		rl_rdma_ack_cm_event(ev);
	}
}

static void fz_late_accepts(struct fz_net *n)
{
	for (int i = 0; i < n->nids; i++)
		if (n->ids[i].late) {
			n->ids[i].late = false;
			fz_accept(n, &n->ids[i]);
		}
}

/* ---- the bounds ------------------------------------------------------------------------------ */

static void fz_check_bounds(struct fz_net *n)
{
	for (int s = 0; s < 2; s++) {
		const struct rl_cm_agent *a = n->cm[s];
		int unknown = 0, events = 0;

		for (const struct rl_rdma_cm_id *id = a->ids; id; id = id->next)
			unknown += !fz_find(n, id);
		for (const struct rl_rdma_cm_event *ev = a->ev_head; ev; ev = ev->next)
			events++;
		/* Ids nobody was told of yet: the CONNECT_REQUESTs waiting in the queue, each listener's backlog at most. */
		FZ_CHECK(unknown <= 2 * n->backlog);
		FZ_CHECK(events <= FZ_MAX_EVENTS);
		FZ_CHECK(rl_qp_state(a->qp1) == RL_QPS_RTS);
	}
}

/* ---- the wire and the clock ------------------------------------------------------------------ */

static void fz_tick(struct fz_net *n)
{
	for (int s = 0; s < 2; s++) {
		rl_host_run(n->h[s], n->now);
		rl_cm_agent_run(n->cm[s], n->now);
		fz_consume(n, s);
		rl_cm_agent_run(n->cm[s], n->now);
		rl_host_run(n->h[s], n->now);
	}
}

static uint64_t fz_next_timer(const struct fz_net *n)
{
	uint64_t t = UINT64_MAX;

	for (int s = 0; s < 2; s++) {
		uint64_t a = rl_cm_agent_next_timer(n->cm[s]), h = rl_host_next_timer(n->h[s]);

		t = a < t ? a : t;
		t = h < t ? h : t;
	}
	return t;
}

static void fz_wait(struct fz_net *n, unsigned e)
{
	uint64_t until = n->now + (1ull << (e % 40));
	unsigned ticks = 0;

	fz_late_accepts(n);
	for (uint64_t t; (t = fz_next_timer(n)) <= until; ticks++) {
		FZ_CHECK(ticks < FZ_MAX_TICKS);   /* a timer that keeps falling due: a spin */
		if (t > n->now)
			n->now = t;
		fz_tick(n);
		fz_check_bounds(n);
	}
	n->now = until;
	fz_tick(n);
}

/* The oldest frame side @s sent: to the other side, or lost. */
static bool fz_deliver(struct fz_net *n, int s, bool lose)
{
	struct fz_frame *f;

	if (!n->qlen[s])
		return false;
	f = &n->q[s][n->qhead[s]];
	n->qhead[s] = (n->qhead[s] + 1) % FZ_QUEUE;
	n->qlen[s]--;
	n->now += FZ_STEP_NS;
	fz_trace_frame(lose ? "lost, from" : "delivered, from", s, n->now, f->b, f->len);
	if (!lose)
		rl_host_recv(n->h[!s], f->b, f->len, n->now);
	fz_tick(n);
	return true;
}

static void fz_pump(struct fz_net *n)
{
	for (int k = 0; k < 4 * FZ_QUEUE; k++) {
		bool moved = fz_deliver(n, 0, false);

		moved = fz_deliver(n, 1, false) || moved;
		if (!moved)
			break;
		fz_check_bounds(n);
	}
}

/* ---- MADs from the fuzzer ------------------------------------------------------------------- */

/* Make the MAD one of an id in play: its communication IDs (IBA 12.6: the sender's first), maybe its TID. */
static void fz_patch(struct fz_net *n, int s, uint8_t flags, uint8_t *mad, size_t len)
{
	unsigned k = (flags >> FZ_CM_ID_SHIFT) & 7u;
	const struct rl_rdma_cm_id *id = n->cm[s]->ids;
	uint16_t attr;

	for (; id && k; k--)
		id = id->next;
	if (!id || len < 32)
		return;
	attr = (uint16_t)(mad[16] << 8 | mad[17]);
	for (int i = 0; i < 4; i++)
		mad[24 + i] = (uint8_t)(id->remote_id >> (24 - 8 * i));
	if (attr != RL_CM_REQ && attr != RL_CM_SIDR_REQ && attr != RL_CM_SIDR_REP)
		for (int i = 0; i < 4; i++)
			mad[28 + i] = (uint8_t)(id->local_id >> (24 - 8 * i));
	if (flags & FZ_CM_PATCH_TID)
		for (int i = 0; i < 8; i++)
			mad[8 + i] = (uint8_t)(id->tid >> (56 - 8 * i));
}

/* A UD SEND Only to side @s's QP1 carrying @len bytes, over Ethernet and IPv4 (RoCEv2). */
static void fz_send_mad(struct fz_net *n, int s, enum fz_cm_src src, uint32_t qkey, const uint8_t *pl,
			size_t len)
{
	static const int from[4] = { -1, 2, 3, -2 };   /* the peer, the stranger, no MAC, the host itself */
	int f = from[src] == -1 ? !s : from[src] == -2 ? s : from[src];
	uint8_t frame[FZ_FRAME_MAX];
	struct rl_pkt pkt;
	size_t out;
	uint64_t before = n->sent[s];

	rl_pkt_init(&pkt, RL_OP_UD_SEND_ONLY);
	pkt.link = RL_LINK_ETHERNET;
	pkt.l3 = RL_L3_IPV4;
	pkt.roce = RL_ROCE_V2;
	fz_mac(s, pkt.eth.dst);
	fz_mac(f, pkt.eth.src);
	memcpy(pkt.ip4.src, fz_ip[f], 4);
	memcpy(pkt.ip4.dst, fz_ip[s], 4);
	pkt.ip4.ttl = 64;
	pkt.bth.pkey = 0xffff;
	pkt.bth.dqpn = RL_GSI_QPN;
	pkt.bth.psn = (uint32_t)n->now & 0xffffff;
	pkt.deth.qkey = qkey;
	pkt.deth.src_qp = RL_GSI_QPN;
	pkt.payload = pl;
	pkt.payload_len = len;
	if (rl_encode(&pkt, frame, sizeof(frame), &out) != RL_OK)
		return;
	n->now += FZ_STEP_NS;
	fz_trace_frame("injected, to", s, n->now, frame, out);
	rl_host_recv(n->h[s], frame, out, n->now);
	fz_tick(n);
	/* An answer, a duplicate's answer, maybe the consumer's accept: never a flood. */
	FZ_CHECK(n->sent[s] - before <= FZ_MAX_ANSWERS);
}

/* [flags][aux][len][bytes]: returns the bytes used. */
static size_t fz_mad_record(struct fz_net *n, int s, const uint8_t *d, size_t size)
{
	uint8_t pl[RL_MAD_LEN + 64] = { 0 };
	uint8_t flags, aux;
	size_t len, take;

	if (size < 3)
		return size;
	flags = d[0];
	aux = d[1];
	len = d[2] ? d[2] : RL_MAD_LEN;
	take = size - 3 < len ? size - 3 : len;
	memcpy(pl, d + 3, take);
	if (flags & FZ_CM_PATCH_IDS)
		fz_patch(n, s, flags, pl, len);
	if (aux & FZ_CM_AUX_LONG)
		len += 64;
	fz_send_mad(n, s, (enum fz_cm_src)(flags & FZ_CM_SRC_MASK),
		    (flags & FZ_CM_ODD_QKEY) ? fz_qkeys[aux & FZ_CM_AUX_QKEY] : RL_GSI_QKEY, pl, len);
	return 3 + take;
}

static void fz_act(struct fz_net *n, int s, uint8_t what)
{
	unsigned k = what >> FZ_CM_ACT_ID_SHIFT, m = 0;
	struct fz_id *t = NULL;

	for (int i = 0; i < n->nids; i++)
		if (n->ids[i].side == s && m++ == k % 8) {
			t = &n->ids[i];
			break;
		}
	if (!t)
		return;
	switch (what & FZ_CM_ACT_MASK) {
	case FZ_CM_DO_ACCEPT: fz_accept(n, t); break;
	case FZ_CM_DO_REJECT: rl_rdma_reject(t->id, NULL, 0); break;
	case FZ_CM_DO_DISCONNECT: rl_rdma_disconnect(t->id); break;
	case FZ_CM_DO_DESTROY: fz_destroy(n, t); break;
	}
	fz_tick(n);
}

/* ---- setting up ------------------------------------------------------------------------------ */

static int fz_host(struct fz_net *n, int s)
{
	struct rl_host_config hc = { .emit = fz_emit };
	struct rl_cm_agent_config ac = { .seed = 1 + (uint64_t)s, .resolve = fz_resolve };

	fz_ports[s] = (struct fz_port){ n, s };
	hc.ctx = &fz_ports[s];
	fz_mac(s, hc.mac);
	fz_gid(s, hc.gid);
	n->h[s] = rl_host_new(&hc);
	if (!n->h[s])
		return -1;
	n->pd[s] = rl_alloc_pd(n->h[s]);
	ac.host = n->h[s];
	n->cm[s] = rl_cm_agent_new(&ac);
	return n->pd[s] && n->cm[s] ? 0 : -1;
}

static struct rl_rdma_cm_id *fz_listener(struct fz_net *n, uint16_t ps)
{
	struct rl_rdma_addr any = { { 0 }, FZ_PORT };
	struct rl_rdma_cm_id *id = rl_rdma_create_id(n->cm[1], NULL, ps);

	if (!id)
		return NULL;
	fz_track(n, id, 1, false);
	if (rl_rdma_bind_addr(id, &any) || rl_rdma_listen(id, n->backlog))
		return NULL;
	return id;
}

static struct rl_rdma_cm_id *fz_active(struct fz_net *n, uint16_t ps)
{
	struct rl_rdma_addr dst = { { 0 }, FZ_PORT };
	struct rl_rdma_cm_id *id = rl_rdma_create_id(n->cm[0], NULL, ps);

	if (!id)
		return NULL;
	fz_track(n, id, 0, false);
	fz_gid(1, dst.gid);
	rl_rdma_resolve_addr(id, NULL, &dst, 2000);
	return id;
}

static int fz_setup(struct fz_net *n, uint8_t cfg)
{
	memset(n, 0, sizeof(*n));
	n->cfg = cfg;
	n->backlog = (int)(cfg >> FZ_CM_CFG_BACKLOG_SHIFT) + 1;
	if (fz_host(n, 0) || fz_host(n, 1))
		return -1;
	n->listen_rc = fz_listener(n, RL_RDMA_PS_TCP);
	n->listen_ud = fz_listener(n, RL_RDMA_PS_UDP);
	if (!n->listen_rc || !n->listen_ud)
		return -1;
	if (cfg & FZ_CM_CFG_RC)
		n->act_rc = fz_active(n, RL_RDMA_PS_TCP);
	if (cfg & FZ_CM_CFG_UD)
		n->act_ud = fz_active(n, RL_RDMA_PS_UDP);
	fz_tick(n);
	return 0;
}

static void fz_teardown(struct fz_net *n)
{
	for (int s = 0; s < 2; s++) {
		rl_cm_agent_free(n->cm[s]);   /* destroys its ids and their QPs */
		rl_host_free(n->h[s]);        /* and the CQs, PDs */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_net net;
	struct fz_net *n = &net;
	size_t i = 1;

	if (size < 1)
		return 0;
	if (fz_setup(n, data[0])) {
		fz_teardown(n);
		return 0;
	}
	for (unsigned records = 0; i < size && records < FZ_MAX_RECORDS; records++) {
		uint8_t op = data[i++];
		int s = (op & FZ_CM_OP_SIDE) != 0;

		switch (op & FZ_CM_OP_MASK) {
		case FZ_CM_DELIVER: fz_deliver(n, s, false); break;
		case FZ_CM_DROP: fz_deliver(n, s, true); break;
		case FZ_CM_WAIT:
			if (i < size)
				fz_wait(n, data[i++]);
			break;
		case FZ_CM_MAD: i += fz_mad_record(n, s, data + i, size - i); break;
		case FZ_CM_ACT:
			if (i < size)
				fz_act(n, s, data[i++]);
			break;
		default: fz_pump(n); break;
		}
		fz_check_bounds(n);
	}
	fz_teardown(n);
	return 0;
}
