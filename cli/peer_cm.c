/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer, the connection through the CM (--cm, and --compat rping):
 * the host's CM agent (rocelab/cm_agent.h) owns QP1, its MADs travel as UD
 * SENDs on UDP port 4791 like the data, and the rdma_cm-shaped API
 * (rocelab/rdma_cm.h) connects the test's QP: REQ, REP, RTU; DREQ, DREP
 * at the end; SIDR_REQ, SIDR_REP for UD. This is what perftest's -R does
 * with librdmacm instead of its TCP exchange.
 *
 * What the server learns from the client travels in the private data after
 * rdma_cm's own header, in rocelab's format (perftest -R sends none: its
 * two ends must be given the same flags). All big-endian:
 *   REQ / SIDR_REQ, 20 bytes: "rlab" (4), version 1 (1), op (1, the order
 *     of --op's list), transport (1: 0 RC, 1 UD), path MTU (1, IBA's
 *     1..5), size (4), iterations (4), the client's QPN (4, for UD replies).
 *   REP / SIDR_REP, 20 bytes: "rlab" (4), version 1 (1), 3 bytes 0, the
 *     server's buffer: address (8), rkey (4).
 *   REJ: a sentence saying why, for the client to print.
 * A REQ without it (another tool's) is served with the server's own flags.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "peer.h"
#include "rocelab/hdr.h"
#include "rocelab/rdma_cm.h"

#define PEER_CM_MAGIC "rlab"
#define PEER_CM_VERSION 1
#define PEER_CM_REQ_LEN 20
#define PEER_CM_REP_LEN 20
#define PEER_CM_RD_ATOMIC 16     /* READs / atomics outstanding each way: perftest's default depth */
#define PEER_CM_RESOLVE_MS 2000  /* rdma_resolve_addr() / _route() timeouts, as the tools pass them */

/* ---- the agent and its events ----------------------------------------------------------------- */

/*
 * The agent's GID -> MAC. The frames leave through a UDP socket, and the
 * kernel finds the MAC (ARP, neighbour discovery) on the way: any address
 * of our family will do, and the MAC the core is given is not used.
 */
static bool peer_cm_resolve(void *ctx, const uint8_t gid[16], uint8_t mac[6])
{
	const struct peer *p = ctx;

	memset(mac, 0, 6);
	return peer_gid_family_ok(p, gid);
}

int peer_cm_agent(struct peer *p)
{
	struct rl_cm_agent_config c = { .host = p->verbs.host, .seed = p->o.seed, .resolve = peer_cm_resolve,
					.resolve_ctx = p };

	p->cm.agent = rl_cm_agent_new(&c);
	if (!p->cm.agent) {
		cli_error("peer", "cannot start the CM agent on QP1: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	return 0;
}

void peer_cm_run(struct peer *p, uint64_t now)
{
	struct rl_rdma_cm_event *ev;

	rl_cm_agent_run(p->cm.agent, now);
	while (p->cm.nev < PEER_CM_EVENTS && !rl_rdma_get_cm_event(p->cm.agent, &ev))
		p->cm.ev[p->cm.nev++] = ev;
}

struct rl_rdma_cm_event *peer_cm_event(struct peer *p)
{
	struct rl_rdma_cm_event *ev;

	if (!p->cm.nev)
		return NULL;
	ev = p->cm.ev[0];
	memmove(p->cm.ev, p->cm.ev + 1, --p->cm.nev * sizeof(p->cm.ev[0]));
	return ev;
}

struct rl_rdma_cm_event *peer_cm_wait(struct peer *p, const char *what)
{
	uint64_t start = peer_now();
	struct rl_rdma_cm_event *ev;

	while (!(ev = peer_cm_event(p))) {
		if (p->net.failed)
			return NULL;
		if (peer_now() - start > (uint64_t)p->o.timeout_s * 1000000000u) {
			cli_error("peer", "no %s within %u s (--timeout)", what, p->o.timeout_s);
			return NULL;
		}
		peer_pump(p, -1);
	}
	return ev;
}

int peer_cm_first_frame(struct peer *p, const struct rl_path *path)
{
	peer_gid_to_addr(path->dgid, p->net.family, &p->net.local);
	p->net.local_known = true;
	if (!p->cm.up || p->cm.up(p)) {
		p->net.failed = true;
		return -1;
	}
	return 0;
}

void peer_cm_close(struct peer *p)
{
	while (p->cm.nev)
		rl_rdma_ack_cm_event(peer_cm_event(p));
	/* The agent frees its ids; the QPs they were given are peer's. */
	rl_cm_agent_free(p->cm.agent);
	p->cm.agent = NULL;
	p->cm.id = p->cm.listen = NULL;
}

/* ---- rocelab's private data ------------------------------------------------------------------- */

static void peer_cm_req_fmt(const struct peer *p, uint8_t b[PEER_CM_REQ_LEN])
{
	memcpy(b, PEER_CM_MAGIC, 4);
	b[4] = PEER_CM_VERSION;
	b[5] = (uint8_t)p->o.op;
	b[6] = p->o.ud;
	b[7] = (uint8_t)p->o.mtu;
	rl_put32(b + 8, p->o.size);
	rl_put32(b + 12, p->o.iters);
	rl_put32(b + 16, rl_qp_num(p->verbs.qp));
}

static bool peer_cm_ours(const uint8_t *b, size_t n, size_t want)
{
	return n >= want && !memcmp(b, PEER_CM_MAGIC, 4) && b[4] == PEER_CM_VERSION;
}

/* Refuse the client's REQ, saying why on both sides. */
static int peer_cm_refuse(struct rl_rdma_cm_id *id, const char *why)
{
	char msg[RL_RDMA_MAX_PRIVATE_DATA];
	int n = snprintf(msg, sizeof(msg), "rocelab: %s", why);

	cli_error("peer", "%s", why);
	/* A REJ carries at most 148 bytes of private data (IBA 12.6.7). */
	rl_rdma_reject(id, msg, (uint8_t)(n < 148 ? n : 148));
	return -1;
}

/* The test the client's REQ describes, taken by the server; -1 (refused) if this side cannot run it. */
static int peer_cm_take_test(struct peer *p, const struct rl_rdma_cm_event *ev)
{
	const uint8_t *b = ev->private_data;
	char why[160];
	enum rl_mtu mtu;

	if (!peer_cm_ours(b, ev->private_data_len, PEER_CM_REQ_LEN)) {
		if (!p->o.json)
			fprintf(stderr, "rocelab peer: note: the client's REQ says nothing of the test (not rocelab's "
				"--cm): running this side's own --op %s --size %u --iters %u\n", peer_op_names[p->o.op],
				p->o.size, p->o.iters);
		return 0;
	}
	if (b[5] >= PEER_NOPS || rl_get32(b + 8) == 0 || rl_get32(b + 8) > (1u << 30) || rl_get32(b + 12) == 0 ||
	    !rl_mtu_bytes((enum rl_mtu)b[7]))
		return peer_cm_refuse(ev->id, "the client's test description is not one this version knows");
	if (b[6] != p->o.ud) {
		snprintf(why, sizeof(why), "the client runs %s, the server was started for %s: give both the same "
			 "--transport", b[6] ? "ud" : "rc", p->o.ud ? "ud" : "rc");
		return peer_cm_refuse(ev->id, why);
	}
	if (!peer_size_allowed(p, rl_get32(b + 8), why, sizeof(why)))
		return peer_cm_refuse(ev->id, why);
	mtu = (enum rl_mtu)b[7];
	if (mtu > p->o.mtu) {
		snprintf(why, sizeof(why), "path MTU %u is more than the server's %s carries (%u)", rl_mtu_bytes(mtu),
			 p->net.gids.ifname, rl_mtu_bytes(p->o.mtu));
		return peer_cm_refuse(ev->id, why);
	}
	p->o.op = (enum peer_op)b[5];
	p->o.size = rl_get32(b + 8);
	p->o.iters = rl_get32(b + 12);
	p->o.mtu = mtu;
	p->conn.them.qpn = rl_get32(b + 16) & 0xffffff;
	return 0;
}

/* ---- connecting --------------------------------------------------------------------------------- */

static void peer_cm_conn_param(struct rl_rdma_conn_param *c, const void *pd, uint8_t len)
{
	memset(c, 0, sizeof(*c));
	c->private_data = pd;
	c->private_data_len = len;
	c->responder_resources = PEER_CM_RD_ATOMIC;
	c->initiator_depth = PEER_CM_RD_ATOMIC;
	c->retry_count = 7;
	c->rnr_retry_count = 7;
}

/* What the QP was given by the CM, for the header: the QPNs and the first PSN of each direction. */
static void peer_cm_conn_info(struct peer *p)
{
	struct rl_qp_attr a;

	rl_query_qp(p->verbs.qp, &a);
	p->conn.me.psn = a.sq_psn;
	p->conn.them.psn = a.rq_psn;
	if (!p->o.ud)
		p->conn.them.qpn = a.dest_qp_num;
	p->net.sport = rl_qp_udp_sport(p->verbs.qp);
}

/* An event other than @want: the reason, said as the tools say it. */
static int peer_cm_unexpected(struct peer *p, const struct rl_rdma_cm_event *ev, const char *what)
{
	char text[RL_RDMA_MAX_PRIVATE_DATA + 1];

	if (ev->event == RL_RDMA_CM_EVENT_REJECTED && ev->private_data_len > 9 &&
	    !memcmp(ev->private_data, "rocelab: ", 9)) {
		memcpy(text, ev->private_data + 9, ev->private_data_len - 9u);
		text[ev->private_data_len - 9] = '\0';
		cli_error("peer", "the server says: %s", text);
	} else if (ev->event == RL_RDMA_CM_EVENT_REJECTED && ev->status == 8) {
		cli_error("peer", "rejected: nobody listens at %s port %u (REJ reason 8, invalid service ID): start "
			  "'rocelab peer --server --cm' there first", p->o.addr, p->o.port);
	} else if (ev->event == RL_RDMA_CM_EVENT_UNREACHABLE && ev->status > 0) {
		cli_error("peer", "SIDR_REP status %d: nothing serves UD at %s port %u (start 'rocelab peer --server --cm "
			  "-t ud' there)", ev->status, p->o.addr, p->o.port);
	} else if (ev->event == RL_RDMA_CM_EVENT_UNREACHABLE) {
		cli_error("peer", "%s: no answer from %s (%s, status %d): is a server running there?", what, p->o.addr,
			  rl_rdma_event_str(ev->event), ev->status);
	} else {
		cli_error("peer", "%s: %s, status %d", what, rl_rdma_event_str(ev->event), ev->status);
	}
	return -1;
}

/* Wait for the event @want (acked here); -1 with a message for any other, or none. */
static int peer_cm_expect(struct peer *p, enum rl_rdma_cm_event_type want, struct rl_rdma_cm_event **out)
{
	struct rl_rdma_cm_event *ev = peer_cm_wait(p, rl_rdma_event_str(want));
	int r;

	if (!ev)
		return -1;
	r = ev->event == want ? 0 : peer_cm_unexpected(p, ev, rl_rdma_event_str(want));
	if (out && !r)
		*out = ev;
	else
		rl_rdma_ack_cm_event(ev);
	return r;
}

/* Client: the address and the route, the REQ (SIDR_REQ) with the test, and the REP's buffer. */
static int peer_cm_client(struct peer *p)
{
	struct rl_rdma_addr src = { { 0 }, 0 }, dst = { { 0 }, p->o.port };
	uint8_t req[PEER_CM_REQ_LEN];
	struct rl_rdma_conn_param cp;
	struct rl_rdma_cm_event *ev;
	int r;

	p->cm.id = rl_rdma_create_id(p->cm.agent, p, p->o.ud ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP);
	if (!p->cm.id)
		return -1;
	memcpy(src.gid, p->conn.me.gid, 16);
	peer_addr_to_gid(&p->net.remote, dst.gid);
	memcpy(p->conn.them.gid, dst.gid, 16);
	if (rl_rdma_resolve_addr(p->cm.id, &src, &dst, PEER_CM_RESOLVE_MS) ||
	    peer_cm_expect(p, RL_RDMA_CM_EVENT_ADDR_RESOLVED, NULL) || rl_rdma_resolve_route(p->cm.id, PEER_CM_RESOLVE_MS) ||
	    peer_cm_expect(p, RL_RDMA_CM_EVENT_ROUTE_RESOLVED, NULL))
		return -1;
	if ((r = rl_rdma_attach_qp(p->cm.id, p->verbs.qp))) {
		cli_error("peer", "rdma_create_qp: %s", strerror(-r));
		return -1;
	}
	peer_cm_req_fmt(p, req);
	peer_cm_conn_param(&cp, req, sizeof(req));
	if ((r = rl_rdma_connect(p->cm.id, &cp))) {
		cli_error("peer", "rdma_connect: %s", strerror(-r));
		return -1;
	}
	if (peer_cm_expect(p, RL_RDMA_CM_EVENT_ESTABLISHED, &ev))
		return -1;
	if (p->o.ud) {
		p->conn.them.qpn = ev->ud.qp_num;
		p->conn.qkey = ev->ud.qkey;
	} else if (peer_cm_ours(ev->private_data, ev->private_data_len, PEER_CM_REP_LEN)) {
		p->conn.remote_va = rl_get64(ev->private_data + 8);
		p->conn.remote_rkey = rl_get32(ev->private_data + 16);
	} else if (!peer_sends(p->o.op)) {
		rl_rdma_ack_cm_event(ev);
		cli_error("peer", "the server's REP does not say where its buffer is (not rocelab's --cm server?): "
			  "--op %s cannot run", peer_op_names[p->o.op]);
		return -1;
	}
	rl_rdma_ack_cm_event(ev);
	peer_cm_conn_info(p);
	return 0;
}

/* Server, once its address is known: the host, its QP, the agent, and the listening id. */
static int peer_cm_server_up(struct peer *p)
{
	struct rl_rdma_addr any = { { 0 }, p->o.port };
	int r;

	if (peer_pick_gid(p) || peer_pick_mtu(p))
		return -1;
	if (peer_setup(p)) {
		cli_error("peer", "out of memory");
		return -1;
	}
	if (peer_cm_agent(p))
		return -1;
	p->cm.listen = rl_rdma_create_id(p->cm.agent, p, p->o.ud ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP);
	if (!p->cm.listen || (r = rl_rdma_bind_addr(p->cm.listen, &any)) || (r = rl_rdma_listen(p->cm.listen, 1))) {
		cli_error("peer", "cannot listen on rdma_cm port %u", p->o.port);
		return -1;
	}
	return 0;
}

/* Server: the client's CONNECT_REQUEST, the buffer it asks for, the QP, and the REP (SIDR_REP). */
static int peer_cm_server(struct peer *p)
{
	uint8_t rep[PEER_CM_REP_LEN] = PEER_CM_MAGIC;
	struct rl_rdma_conn_param cp;
	struct rl_rdma_cm_event *ev;
	int r;

	p->net.family = p->o.ipv6 ? AF_INET6 : AF_INET;
	memset(&p->net.local, 0, sizeof(p->net.local));
	p->net.local.sa.sa_family = (sa_family_t)p->net.family;
	p->cm.up = peer_cm_server_up;
	if (peer_rx_sockets(p))
		return -1;
	if (!p->o.json)
		fprintf(stderr, "rocelab peer: waiting for a client's REQ on rdma_cm port %u (service ID %#018" PRIx64 ")%s\n",
			p->o.port, rl_cm_service_id(p->o.ud ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP, p->o.port),
			p->o.ipv6 ? " (IPv6)" : "");
	ev = peer_cm_wait(p, "client");
	if (!ev)
		return -1;
	if (ev->event != RL_RDMA_CM_EVENT_CONNECT_REQUEST) {
		rl_rdma_ack_cm_event(ev);
		cli_error("peer", "rdma_cm: %s before any CONNECT_REQUEST", rl_rdma_event_str(ev->event));
		return -1;
	}
	p->cm.id = ev->id;
	memcpy(p->conn.them.gid, rl_rdma_id_dst(ev->id)->gid, 16);
	r = peer_cm_take_test(p, ev);
	rl_rdma_ack_cm_event(ev);
	if (r)
		return -1;
	if (peer_buffer(p)) {
		cli_error("peer", "cannot allocate %u bytes", p->o.size);
		return -1;
	}
	if ((r = rl_rdma_attach_qp(p->cm.id, p->verbs.qp))) {
		cli_error("peer", "rdma_create_qp: %s", strerror(-r));
		return -1;
	}
	if (peer_post_recvs(p, 0))
		return -1;
	rep[4] = PEER_CM_VERSION;
	rl_put64(rep + 8, rl_mr_iova(p->verbs.mr));
	rl_put32(rep + 16, rl_mr_rkey(p->verbs.mr));
	peer_cm_conn_param(&cp, rep, sizeof(rep));
	if ((r = rl_rdma_accept(p->cm.id, &cp))) {
		cli_error("peer", "rdma_accept: %s", r == -EINVAL ? "the QP would not move to RTS" : strerror(-r));
		return -1;
	}
	p->conn.qkey = RL_RDMA_UDP_QKEY;
	peer_cm_conn_info(p);
	return 0;
}

int peer_cm_connect(struct peer *p)
{
	if (p->o.server)
		return peer_cm_server(p);
	if (peer_parse_addr(p, p->o.addr, &p->net.remote) || peer_route_local(p) || peer_pick_gid(p) ||
	    peer_pick_mtu(p))
		return -1;
	if (p->o.ud && p->o.size > rl_mtu_bytes(p->o.mtu)) {
		cli_error("peer", "a UD message is one packet: --size %u is more than the path MTU %u of %s; use "
			  "--size %u or less, or a larger interface MTU", p->o.size, rl_mtu_bytes(p->o.mtu), p->net.gids.ifname,
			  rl_mtu_bytes(p->o.mtu));
		return -1;
	}
	if (peer_setup(p) || peer_buffer(p)) {
		cli_error("peer", "out of memory");
		return -1;
	}
	if (peer_rx_sockets(p) || peer_cm_agent(p))
		return -1;
	return peer_cm_client(p);
}

/* ---- the end -------------------------------------------------------------------------------------- */

/*
 * The server, after the DREP: stay on the wire for as long as the client
 * would take to send its DREQ again (its CM response timeout and a packet
 * lifetime each way), in case the DREP was lost; the agent answers a
 * resent DREQ in TimeWait. A closed port would answer with ICMP instead.
 */
void peer_cm_linger(struct peer *p)
{
	uint64_t start = peer_now(), wait = rl_cm_time_ns(RL_CM_RESPONSE_TIMEOUT) + 2 * rl_cm_time_ns(RL_CM_PACKET_LIFETIME);
	uint64_t last = start, seen = p->stat.recv_frames;

	while (peer_now() - last < wait && peer_now() - start < 3 * wait) {
		peer_pump(p, -1);
		if (p->stat.recv_frames != seen) {
			seen = p->stat.recv_frames;
			last = peer_now();
		}
		while (p->cm.nev)
			rl_rdma_ack_cm_event(peer_cm_event(p));
	}
	peer_flush(p);
}

void peer_cm_disconnect(struct peer *p)
{
	struct rl_rdma_cm_event *ev;

	if (!p->cm.id || p->o.ud)
		return;
	if (rl_rdma_disconnect(p->cm.id))
		return;
	if (p->o.server) {
		peer_cm_linger(p);
		return;
	}
	/* The DREP (or the DREQ's retries spent): DISCONNECTED. */
	while ((ev = peer_cm_wait(p, "DREP"))) {
		bool done = ev->event == RL_RDMA_CM_EVENT_DISCONNECTED;

		rl_rdma_ack_cm_event(ev);
		if (done)
			break;
	}
	peer_drain(p, PEER_QUIET_MS);
}
