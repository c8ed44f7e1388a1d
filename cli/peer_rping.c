/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer --compat rping: librdmacm's example rping (rdma-core,
 * librdmacm/examples/rping.c), its flags, its protocol and its output, on
 * the reference transport.
 *
 * One ping, as rping runs it:
 *   the client SENDs the address, rkey and length of its start buffer;
 *   the server RDMA READs the start buffer, then SENDs "go ahead";
 *   the client SENDs the address, rkey and length of its rdma buffer;
 *   the server RDMA WRITEs what it read there, then SENDs "go ahead".
 * An advertisement is rping's struct rping_rdma_info: buf (8 bytes), rkey
 * (4), size (4), all big-endian. The go-ahead is the server's 16-byte send
 * buffer, which it never fills: zeros.
 *
 * rping has a CM thread and a CQ thread that set cb->state and post a
 * semaphore the main flow waits on. Here one thread does all three:
 * rping_wait() runs the wire, the completion handler and the rdma_cm event
 * handler until something was posted. States, their numbers and every
 * message are rping's. The connection is rdma_cm's, through the CM agent
 * on QP1 (peer_cm.c), so the other end may be the real rping.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "json.h"
#include "peer.h"
#include "rocelab/hdr.h"

#define RPING_PORT 7174
#define RPING_SQ_DEPTH 16          /* rping's max_send_wr; its CQ holds twice that */
#define RPING_RQ_DEPTH 2           /* rping's max_recv_wr */
#define RPING_BUFSIZE (64 * 1024)  /* -S stays below it */
#define RPING_DEFAULT_SIZE 64
#define RPING_MSG_FMT "rdma-ping-%d: "
/*
 * rping's sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT). Nothing
 * rping.c includes defines INT_MAX, so the text is "INT_MAX": 8 + 15.
 */
#define RPING_MIN_BUFSIZE 23
#define RPING_INFO_LEN 16          /* struct rping_rdma_info */
#define RPING_FIRST_CHAR 'A'       /* the start buffer's letters run 'A'..'z' (65..122), round again */
#define RPING_LAST_CHAR 'z'
#define RPING_HANGUP_NS 2000000000ull
#define RPING_REJ_INVALID_SERVICE_ID 8  /* IBA 12.6.7.2, Table 112: nobody listens on the port */

/* rping's enum test_state, with its numbers: they appear in its messages. */
enum rping_state {
	RPING_IDLE = 1,
	RPING_CONNECT_REQUEST,
	RPING_ADDR_RESOLVED,
	RPING_ROUTE_RESOLVED,
	RPING_CONNECTED,
	RPING_RDMA_READ_ADV,
	RPING_RDMA_READ_COMPLETE,
	RPING_RDMA_WRITE_ADV,
	RPING_RDMA_WRITE_COMPLETE,
	RPING_DISCONNECTED,
	RPING_ERROR,
};

static const char *const rping_state_names[] = {
	[RPING_IDLE] = "IDLE",
	[RPING_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[RPING_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RPING_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RPING_CONNECTED] = "CONNECTED",
	[RPING_RDMA_READ_ADV] = "RDMA_READ_ADV",
	[RPING_RDMA_READ_COMPLETE] = "RDMA_READ_COMPLETE",
	[RPING_RDMA_WRITE_ADV] = "RDMA_WRITE_ADV",
	[RPING_RDMA_WRITE_COMPLETE] = "RDMA_WRITE_COMPLETE",
	[RPING_DISCONNECTED] = "DISCONNECTED",
	[RPING_ERROR] = "ERROR",
};

/* What tells a send-queue completion from a receive's, whatever its status. */
enum { RPING_WR_SEND = 1, RPING_WR_RECV = 2 };

/* rping's struct rping_cb: what one endpoint keeps. */
struct peer_rping {
	enum rping_state state;
	unsigned sem;                   /* rping's cb->sem: events posted, not yet waited for */
	bool hung_up;                   /* the other side has gone (DISCONNECTED delivered) */
	bool buffers;                   /* rping_setup_buffers() ran */
	struct rl_rdma_cm_id *cm_id;    /* the client's, or the server's listening one */
	struct rl_rdma_cm_id *child_cm_id; /* the server's connection, from CONNECT_REQUEST */
	uint8_t req_rd_atomic[2];       /* the CONNECT_REQUEST's responder resources and initiator depth */
	uint8_t recv_buf[RPING_INFO_LEN], send_buf[RPING_INFO_LEN];
	struct rl_mr *recv_mr, *send_mr, *rdma_mr, *start_mr;
	char *rdma_buf, *start_buf;     /* the sink (both), the READ source (client) */
	uint64_t remote_addr;
	uint32_t remote_rkey, remote_len;
	uint32_t sends_out;             /* send-queue work requests not completed yet */
	uint32_t pings;
};

/* rping's DEBUG_LOG: printf when -d was given (before the option that prints, for the option lines). */
__attribute__((format(printf, 2, 3))) static void rping_debug(const struct peer_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->rp.debug)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* ---- the options -------------------------------------------------------------------------------- */

bool peer_rping_asked(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if ((!strcmp(argv[i], "--compat") && i + 1 < argc && !strcmp(argv[i + 1], "rping")) ||
		    !strcmp(argv[i], "--compat=rping"))
			return true;
	return false;
}

bool peer_addr_arg(const char *opt, const char *arg, bool *v6)
{
	struct in6_addr a;

	if (inet_pton(AF_INET, arg, &a) == 1) {
		*v6 = false;
		return true;
	}
	if (inet_pton(AF_INET6, arg, &a) == 1) {
		*v6 = true;
		return true;
	}
	cli_error("peer", "%s wants an IPv4 or IPv6 address, not '%s'", opt, arg);
	return false;
}

/* What the flags mean together, as rping sees them; false (with a message) for what cannot run. */
static bool rping_check_opts(struct peer_opts *o, int role)
{
	if (role < 0) {
		cli_error("peer", "--compat rping: say -s (server) or -c (client), as rping");
		return false;
	}
	o->server = role == 1;
	if (!o->server && !o->addr) {
		cli_error("peer", "--compat rping -c needs -a ADDR: the server's address, as rping");
		return false;
	}
	if (o->server && o->rp.source) {
		cli_error("peer", "-I is the client's source address; a server listens on -a ADDR");
		return false;
	}
	if (!o->server && o->rp.corrupt) {
		cli_error("peer", "--corrupt is the server's: it changes the data it writes back");
		return false;
	}
	return true;
}

/* One of rping's own flags; false (with a message) if it is refused. */
static bool rping_flag(struct peer_opts *o, int c, const char *arg, int *role)
{
	uint64_t v;
	bool v6 = false;

	switch (c) {
	case 'a':
		if (!peer_addr_arg("-a", arg, &v6))
			return false;
		o->addr = arg;
		o->ipv6 = v6;
		return true;
	case 'I':
		if (!peer_addr_arg("-I", arg, &v6))
			return false;
		o->rp.source = arg;
		return true;
	case 'p':
		if (!cli_arg_u64("peer", "-p", arg, 1, 65535, NULL, &v))
			return false;
		o->port = (uint16_t)v;
		rping_debug(o, "port %d\n", (int)v);
		return true;
	case 's':
	case 'c':
		if (*role >= 0 && *role != (c == 's')) {
			cli_error("peer", "--compat rping: -s and -c together; say one of them");
			return false;
		}
		*role = c == 's';
		rping_debug(o, "%s\n", c == 's' ? "server" : "client");
		return true;
	case 'S':
		if (!cli_parse_u64(arg, UINT32_MAX, &v) || v < RPING_MIN_BUFSIZE || v >= RPING_BUFSIZE) {
			cli_error("peer", "-S wants a ping data size of %d to %d bytes (rping's limits), not '%s'",
				  RPING_MIN_BUFSIZE, RPING_BUFSIZE - 1, arg);
			return false;
		}
		o->size = (uint32_t)v;
		rping_debug(o, "size %d\n", (int)v);
		return true;
	case 'C':
		if (!cli_arg_u64("peer", "-C", arg, 0, INT32_MAX, NULL, &v))
			return false;
		o->rp.count = (uint32_t)v;
		rping_debug(o, "count %d\n", (int)v);
		return true;
	case 'v':
		o->rp.verbose++;
		rping_debug(o, "verbose\n");
		return true;
	case 'V':
		o->rp.validate++;
		rping_debug(o, "validate data\n");
		return true;
	case 'd':
		o->rp.debug++;
		return true;
	case 'P':
		cli_error("peer", "-P (rping's persistent server) is not supported: start the server once per client");
		return false;
	case 'q':
		cli_error("peer", "-q (rping's self-created QP) is not supported");
		return false;
	}
	return false;
}

bool peer_rping_parse(int argc, char **argv, struct peer_opts *o, int *rc)
{
	static const struct option lo[] = {
		PEER_COMPAT_LONGOPTS,
		{ "corrupt", no_argument, NULL, PEER_O_CORRUPT },
		{ "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 },
	};
	int c, role = -1;

	peer_opts_init(o);
	o->rping = true;
	o->port = RPING_PORT;
	o->size = RPING_DEFAULT_SIZE;
	o->window = RPING_SQ_DEPTH;
	*rc = CLI_ERR;
	optind = 1;
	while ((c = getopt_long(argc, argv, "a:I:Pp:C:S:scvVdqh", lo, NULL)) != -1) {
		if (c == 'h') {
			peer_usage(stdout);
			*rc = CLI_OK;
			return false;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "Try 'rocelab peer --help'.\n");
			return false;
		}
		if (!(c >= 256 ? peer_compat_flag(o, c, optarg) : rping_flag(o, c, optarg, &role)))
			return false;
	}
	if (optind < argc) {
		cli_error("peer", "unexpected argument '%s'", argv[optind]);
		return false;
	}
	if (!o->seed)
		o->seed = 1;
	return rping_check_opts(o, role);
}

/* ---- rocelab's own options next to a tool's (--compat rping, ucmatose, udaddy) ------------------ */

bool peer_compat_flag(struct peer_opts *o, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case PEER_O_LOSS: return peer_rate("--loss", arg, &o->loss);
	case PEER_O_TX_LOSS: return peer_rate("--tx-loss", arg, &o->tx_loss);
	case PEER_O_SEED:
		return cli_arg_u64("peer", "--seed", arg, 0, UINT64_MAX, NULL, &o->seed);
	case PEER_O_QPN:
		/* QPs 0 and 1 are the management QPs (IBA 3.5.1). */
		if (!cli_arg_u64("peer", "--qpn", arg, 2, 0xffffff, NULL, &v))
			return false;
		o->qpn = (uint32_t)v;
		return true;
	case PEER_O_TIMEOUT:
		if (!cli_arg_u64("peer", "--timeout", arg, 1, 3600, NULL, &v))
			return false;
		o->timeout_s = (uint32_t)v;
		return true;
	case PEER_O_JSON: o->json = true; return true;
	case PEER_O_COMPAT: return true; /* the tool: peer_rping_asked() or peer_cmatose_asked() saw it */
	case PEER_O_IFACE:
		if (!*arg || strlen(arg) >= IF_NAMESIZE) {
			cli_error("peer", "--interface wants an interface name, not '%s'", arg);
			return false;
		}
		o->ifname = arg;
		return true;
	case PEER_O_CORRUPT: o->rp.corrupt = true; return true;
	case PEER_O_ALLOW_GID: o->allow_other_gid = true; return true;
	}
	return false;
}

/* ---- rping's event handlers --------------------------------------------------------------------- */

/* rping_cma_event_handler(), event by event; an error event puts the endpoint in ERROR (rping exits). */
static void rping_cm_event(struct peer *p, struct peer_rping *rp, const struct rl_rdma_cm_event *ev)
{
	rping_debug(&p->o, "cma_event type %s cma_id %p (%s)\n", rl_rdma_event_str(ev->event), (const void *)ev->id,
		    ev->id == rp->cm_id ? "parent" : "child");
	switch (ev->event) {
	case RL_RDMA_CM_EVENT_ADDR_RESOLVED:
		rp->state = RPING_ADDR_RESOLVED;
		if (rl_rdma_resolve_route(ev->id, 2000)) {
			rp->state = RPING_ERROR;
			fprintf(stderr, "rdma_resolve_route: %s\n", strerror(EINVAL));
			rp->sem++;
		}
		break;
	case RL_RDMA_CM_EVENT_ROUTE_RESOLVED:
		rp->state = RPING_ROUTE_RESOLVED;
		rp->sem++;
		break;
	case RL_RDMA_CM_EVENT_CONNECT_REQUEST:
		rp->state = RPING_CONNECT_REQUEST;
		rp->child_cm_id = ev->id;
		rp->req_rd_atomic[0] = ev->conn.responder_resources;
		rp->req_rd_atomic[1] = ev->conn.initiator_depth;
		rping_debug(&p->o, "child cma %p\n", (const void *)ev->id);
		rp->sem++;
		break;
	case RL_RDMA_CM_EVENT_CONNECT_RESPONSE:
		rping_debug(&p->o, "CONNECT_RESPONSE\n");
		rp->state = RPING_CONNECTED;
		rp->sem++;
		break;
	case RL_RDMA_CM_EVENT_ESTABLISHED:
		rping_debug(&p->o, "ESTABLISHED\n");
		/* The server wakes up when the first RECV completes. */
		if (!p->o.server)
			rp->state = RPING_CONNECTED;
		rp->sem++;
		break;
	case RL_RDMA_CM_EVENT_ADDR_ERROR:
	case RL_RDMA_CM_EVENT_ROUTE_ERROR:
	case RL_RDMA_CM_EVENT_CONNECT_ERROR:
	case RL_RDMA_CM_EVENT_UNREACHABLE:
	case RL_RDMA_CM_EVENT_REJECTED:
		fprintf(stderr, "cma event %s, error %d\n", rl_rdma_event_str(ev->event), ev->status);
		if (ev->event == RL_RDMA_CM_EVENT_REJECTED && ev->status == RPING_REJ_INVALID_SERVICE_ID)
			cli_error("peer", "nobody listens at %s port %u (REJ reason 8, invalid service ID): start 'rocelab "
				  "peer --compat rping -s' there first", p->o.addr, p->o.port);
		rp->state = RPING_ERROR;
		rp->sem++;
		break;
	case RL_RDMA_CM_EVENT_DISCONNECTED:
		fprintf(stderr, "%s DISCONNECT EVENT...\n", p->o.server ? "server" : "client");
		rp->state = RPING_DISCONNECTED;
		rp->hung_up = true;
		rp->sem++;
		break;
	default:
		fprintf(stderr, "unhandled event: %s, ignoring\n", rl_rdma_event_str(ev->event));
		break;
	}
}

static int rping_post_recv(struct peer *p, struct peer_rping *rp)
{
	struct rl_recv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = RPING_WR_RECV;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ (uintptr_t)rp->recv_buf, RPING_INFO_LEN, rl_mr_lkey(rp->recv_mr) };
	if (rl_post_recv(p->verbs.qp, &wr)) {
		cli_error("peer", "post_recv: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	return 0;
}

/* A SEND of the 16-byte send buffer, or an RDMA READ / WRITE of @len bytes at @buf with the advertised buffer. */
static int rping_post_send(struct peer *p, struct peer_rping *rp, enum rl_wr_opcode op, const struct rl_mr *mr,
			   const void *buf, uint32_t len)
{
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = RPING_WR_SEND;
	wr.opcode = op;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ (uintptr_t)buf, len, rl_mr_lkey(mr) };
	wr.rdma.remote_addr = rp->remote_addr;
	wr.rdma.rkey = rp->remote_rkey;
	if (rl_post_send(p->verbs.qp, &wr)) {
		cli_error("peer", "post send error: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	rp->sends_out++;
	return 0;
}

/* The server's RECV: an advertisement; the first of a ping (or after a WRITE) is the start buffer. */
static int rping_server_recv(struct peer *p, struct peer_rping *rp, const struct rl_wc *wc)
{
	if (wc->byte_len != RPING_INFO_LEN) {
		fprintf(stderr, "Received bogus data, size %u\n", wc->byte_len);
		return -1;
	}
	rp->remote_addr = rl_get64(rp->recv_buf);
	rp->remote_rkey = rl_get32(rp->recv_buf + 8);
	rp->remote_len = rl_get32(rp->recv_buf + 12);
	rping_debug(&p->o, "Received rkey %x addr %" PRIx64 " len %d from peer\n", rp->remote_rkey, rp->remote_addr,
		    (int)rp->remote_len);
	if (rp->state <= RPING_CONNECTED || rp->state == RPING_RDMA_WRITE_COMPLETE)
		rp->state = RPING_RDMA_READ_ADV;
	else
		rp->state = RPING_RDMA_WRITE_ADV;
	return 0;
}

/* The client's RECV: a go-ahead, after the READ or after the WRITE. */
static int rping_client_recv(struct peer_rping *rp, const struct rl_wc *wc)
{
	if (wc->byte_len != RPING_INFO_LEN) {
		fprintf(stderr, "Received bogus data, size %u\n", wc->byte_len);
		return -1;
	}
	rp->state = rp->state == RPING_RDMA_READ_ADV ? RPING_RDMA_WRITE_ADV : RPING_RDMA_WRITE_COMPLETE;
	return 0;
}

/* One completion, as rping_cq_event_handler() takes it; -1 puts the endpoint in ERROR. */
static int rping_wc(struct peer *p, struct peer_rping *rp, const struct rl_wc *wc)
{
	if (wc->wr_id == RPING_WR_SEND)
		rp->sends_out--;
	if (wc->status == RL_WC_WR_FLUSH_ERR)
		return 0;
	if (wc->status != RL_WC_SUCCESS) {
		fprintf(stderr, "cq completion failed status %d\n", (int)wc->status);
		cli_error("peer", "a work request failed: %s", rl_wc_status_str(wc->status));
		return -1;
	}
	switch (wc->opcode) {
	case RL_WC_SEND:
		rping_debug(&p->o, "send completion\n");
		return 0;
	case RL_WC_RDMA_WRITE:
		rping_debug(&p->o, "rdma write completion\n");
		rp->state = RPING_RDMA_WRITE_COMPLETE;
		break;
	case RL_WC_RDMA_READ:
		rping_debug(&p->o, "rdma read completion\n");
		rp->state = RPING_RDMA_READ_COMPLETE;
		break;
	case RL_WC_RECV:
		rping_debug(&p->o, "recv completion\n");
		if (p->o.server ? rping_server_recv(p, rp, wc) : rping_client_recv(rp, wc)) {
			fprintf(stderr, "recv wc error: %d\n", -1);
			return -1;
		}
		if (rping_post_recv(p, rp))
			return -1;
		break;
	default:
		rping_debug(&p->o, "unknown!!!!! completion\n");
		return -1;
	}
	rp->sem++;
	return 0;
}

static void rping_cq_handler(struct peer *p, struct peer_rping *rp)
{
	struct rl_wc wc;

	while (rp->state != RPING_ERROR && rl_poll_cq(p->verbs.cq, 1, &wc) == 1) {
		if (rping_wc(p, rp, &wc)) {
			rp->state = RPING_ERROR;
			rp->sem++;
		}
	}
}

/* ---- the connection: rdma_cm ------------------------------------------------------------------ */
/*
 * rping connects through rdma_cm: the client resolves the address and the
 * route, its CM sends a REQ on QP1, the server's accept answers with a
 * REP, the client's CM sends the RTU (IBA 12.6); at the end DREQ and DREP.
 * Here the CM agent of core does it (peer_cm.c carries its frames), and
 * its events come to rping_cm_event() as rping's CM thread gets them.
 */

static bool rping_expired(const struct peer *p, uint64_t start)
{
	return peer_now() - start > (uint64_t)p->o.timeout_s * 1000000000u;
}

/* One round: the wire, then the completions (after what arrived is acknowledged: the ACK leaves first, as the kernel's does), then the CM's events. */
static void rping_step(struct peer *p, struct peer_rping *rp)
{
	struct rl_rdma_cm_event *ev;

	peer_pump(p, -1);
	peer_flush(p);
	if (p->verbs.cq)
		rping_cq_handler(p, rp);
	while ((ev = peer_cm_event(p))) {
		rping_cm_event(p, rp, ev);
		rl_rdma_ack_cm_event(ev);
	}
}

static void rping_wait(struct peer *p, struct peer_rping *rp);

/* The host for p->net.local, its sockets and its CM agent on QP1. */
static int rping_host(struct peer *p)
{
	if (peer_host_new(p)) {
		cli_error("peer", "out of memory");
		return -1;
	}
	return peer_cm_agent(p);
}

/* rping_init_conn_param(): responder_resources 1, initiator_depth 1, retry_count 7, rnr_retry_count 7. */
static void rping_conn_param(struct rl_rdma_conn_param *c)
{
	memset(c, 0, sizeof(*c));
	c->responder_resources = 1;
	c->initiator_depth = 1;
	c->retry_count = 7;
	c->rnr_retry_count = 7;
}

/* rping_bind_client(): the address and the route to the server. */
static int rping_resolve(struct peer *p, struct peer_rping *rp)
{
	struct rl_rdma_addr src = { { 0 }, 0 }, dst = { { 0 }, p->o.port };

	if (peer_parse_addr(p, p->o.addr, &p->net.remote) || peer_route_local(p) || peer_pick_gid(p) ||
	    peer_pick_mtu(p) || peer_rx_sockets(p) || rping_host(p))
		return -1;
	rp->cm_id = p->cm.id = rl_rdma_create_id(p->cm.agent, rp, RL_RDMA_PS_TCP);
	if (!rp->cm_id)
		return -1;
	rping_debug(&p->o, "created cm_id %p\n", (void *)rp->cm_id);
	memcpy(src.gid, p->conn.me.gid, 16);
	peer_addr_to_gid(&p->net.remote, dst.gid);
	if (rl_rdma_resolve_addr(rp->cm_id, &src, &dst, 2000)) {
		fprintf(stderr, "rdma_resolve_addr: %s\n", strerror(EINVAL));
		return -1;
	}
	rping_wait(p, rp);
	if (rp->state != RPING_ROUTE_RESOLVED) {
		fprintf(stderr, "waiting for addr/route resolution state %d\n", (int)rp->state);
		return -1;
	}
	rping_debug(&p->o, "rdma_resolve_addr - rdma_resolve_route successful\n");
	return 0;
}

/* rping_connect_client(): the REQ, and the REP's ESTABLISHED. */
static int rping_connect(struct peer *p, struct peer_rping *rp)
{
	struct rl_rdma_conn_param c;
	int r;

	rping_conn_param(&c);
	if ((r = rl_rdma_connect(rp->cm_id, &c))) {
		fprintf(stderr, "rdma_connect: %s\n", strerror(-r));
		return -1;
	}
	rping_wait(p, rp);
	if (rp->state != RPING_CONNECTED) {
		fprintf(stderr, "wait for CONNECTED state %d\n", (int)rp->state);
		return -1;
	}
	rping_debug(&p->o, "rdma_connect successful\n");
	return 0;
}

static int rping_setup_qp(struct peer *p, struct rl_rdma_cm_id *id);
static int rping_setup_buffers(struct peer *p, struct peer_rping *rp);

/*
 * The server's host, once its address is known (-a, or the destination of
 * the client's first frame): rping_bind_server()'s rdma_bind_addr() and
 * rdma_listen().
 */
static int rping_server_up(struct peer *p)
{
	struct peer_rping *rp = p->rping;
	struct rl_rdma_addr any = { { 0 }, p->o.port };

	if (peer_pick_gid(p) || peer_pick_mtu(p) || rping_host(p))
		return -1;
	rp->cm_id = p->cm.listen = rl_rdma_create_id(p->cm.agent, rp, RL_RDMA_PS_TCP);
	if (!rp->cm_id)
		return -1;
	rping_debug(&p->o, "created cm_id %p\n", (void *)rp->cm_id);
	if (p->o.addr)
		memcpy(any.gid, p->conn.me.gid, 16);
	if (rl_rdma_bind_addr(rp->cm_id, &any)) {
		fprintf(stderr, "rdma_bind_addr: %s\n", rl_host_error(p->verbs.host));
		return -1;
	}
	rping_debug(&p->o, "rdma_bind_addr successful\n");
	rping_debug(&p->o, "rdma_listen\n");
	return rl_rdma_listen(rp->cm_id, 3);
}

/* rping_bind_server(): listen on -a ADDR, or on any address (the first frame then tells which is ours). */
static int rping_bind_server(struct peer *p)
{
	p->net.family = p->o.ipv6 ? AF_INET6 : AF_INET;
	memset(&p->net.local, 0, sizeof(p->net.local));
	p->net.local.sa.sa_family = (sa_family_t)p->net.family;
	if (p->o.addr && peer_parse_addr(p, p->o.addr, &p->net.local))
		return -1;
	peer_addr_set_port(&p->net.local, 0);
	p->cm.up = rping_server_up;
	if (peer_rx_sockets(p))
		return -1;
	if (p->o.addr && rping_server_up(p))
		return -1;
	/* rping itself says nothing here; `rocelab lab` and scripts wait for this line, as with --cm. */
	if (!p->o.json)
		fprintf(stderr, "rocelab peer: waiting for a client's REQ on rdma_cm port %u (service ID %#018" PRIx64 ")\n",
			p->o.port, rl_cm_service_id(RL_RDMA_PS_TCP, p->o.port));
	return 0;
}

/* rping_accept(): the REP, with what the CONNECT_REQUEST offered (rping passes no conn_param). */
static int rping_accept(struct peer *p, struct peer_rping *rp)
{
	struct rl_rdma_conn_param c;
	int r;

	rping_debug(&p->o, "accepting client connection request\n");
	rping_conn_param(&c);
	c.responder_resources = rp->req_rd_atomic[0];
	c.initiator_depth = rp->req_rd_atomic[1];
	if ((r = rl_rdma_accept(rp->child_cm_id, &c))) {
		fprintf(stderr, "rdma_accept: %s\n", strerror(-r));
		return -1;
	}
	rping_wait(p, rp);
	if (rp->state == RPING_ERROR) {
		fprintf(stderr, "wait for CONNECTED state %d\n", (int)rp->state);
		return -1;
	}
	return 0;
}

/* Until every send-queue work request of ours has completed (at most 2 s): nothing of ours may be resent later. */
static void rping_settle(struct peer *p, struct peer_rping *rp)
{
	uint64_t start = peer_now();

	while (rp->sends_out && rp->state != RPING_ERROR && peer_now() - start < RPING_HANGUP_NS)
		rping_step(p, rp);
}

/*
 * rping_disconnect(): our sends done, rdma_disconnect(): the client's DREQ
 * and, awaited, the server's DREP (DISCONNECTED); the server's DREP, then
 * the wire answered for as long as a lost DREP would take to be asked again.
 */
static void rping_disconnect(struct peer *p, struct peer_rping *rp, struct rl_rdma_cm_id *id)
{
	uint64_t start = peer_now();

	if (!id)
		return;
	rping_settle(p, rp);
	p->cm.id = id;
	if (rl_rdma_disconnect(id))
		return;
	if (p->o.server) {
		peer_cm_linger(p);
		return;
	}
	while (!rp->hung_up && !rping_expired(p, start))
		rping_step(p, rp);
	peer_drain(p, PEER_QUIET_MS);
}

/* ---- the verbs objects and the buffers ---------------------------------------------------------- */

/* rping_setup_qp(): PD, CQ and RC QP with rping's depths, made for the id by rdma_create_qp() (in INIT). */
static int rping_setup_qp(struct peer *p, struct rl_rdma_cm_id *id)
{
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .max_send_wr = RPING_SQ_DEPTH, .max_recv_wr = RPING_RQ_DEPTH };
	int r;

	p->verbs.pd = rl_alloc_pd(p->verbs.host);
	if (!p->verbs.pd)
		return -1;
	rping_debug(&p->o, "created pd %p\n", (void *)p->verbs.pd);
	p->verbs.cq = rl_create_cq(p->verbs.host, RPING_SQ_DEPTH * 2);
	if (!p->verbs.cq)
		return -1;
	rping_debug(&p->o, "created cq %p\n", (void *)p->verbs.cq);
	ia.send_cq = ia.recv_cq = p->verbs.cq;
	p->verbs.qp = rl_create_qp(p->verbs.pd, &ia);
	if (!p->verbs.qp)
		return -1;
	/* rdma_create_qp() leaves it in INIT, where rping posts its first receive. */
	if ((r = rl_rdma_attach_qp(id, p->verbs.qp))) {
		cli_error("peer", "rdma_create_qp: %s", strerror(-r));
		return -1;
	}
	rping_debug(&p->o, "created qp %p\n", (void *)p->verbs.qp);
	p->conn.me.qpn = rl_qp_num(p->verbs.qp);
	return 0;
}

/* Registered at its own address, as libibverbs does: the advertisement carries the pointer. */
static struct rl_mr *rping_reg(struct peer *p, void *buf, size_t len, unsigned access)
{
	return buf ? rl_reg_mr_iova(p->verbs.pd, buf, len, (uintptr_t)buf, access) : NULL;
}

static int rping_setup_buffers(struct peer *p, struct peer_rping *rp)
{
	unsigned remote = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_READ | RL_ACCESS_REMOTE_WRITE;

	rping_debug(&p->o, "rping_setup_buffers called on cb %p\n", (void *)rp);
	rp->buffers = true;
	rp->recv_mr = rping_reg(p, rp->recv_buf, sizeof(rp->recv_buf), RL_ACCESS_LOCAL_WRITE);
	rp->send_mr = rping_reg(p, rp->send_buf, sizeof(rp->send_buf), 0);
	rp->rdma_buf = calloc(1, p->o.size);
	rp->rdma_mr = rping_reg(p, rp->rdma_buf, p->o.size, remote);
	if (!rp->recv_mr || !rp->send_mr || !rp->rdma_mr) {
		cli_error("peer", "cannot register rping's buffers: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	if (!p->o.server) {
		rp->start_buf = calloc(1, p->o.size);
		rp->start_mr = rping_reg(p, rp->start_buf, p->o.size, remote);
		if (!rp->start_mr) {
			cli_error("peer", "cannot register rping's start buffer: %s", rl_host_error(p->verbs.host));
			return -1;
		}
	}
	rping_debug(&p->o, "allocated & registered buffers...\n");
	return 0;
}

static void rping_free_buffers(struct peer *p, struct peer_rping *rp)
{
	struct rl_mr *mrs[] = { rp->recv_mr, rp->send_mr, rp->rdma_mr, rp->start_mr };

	if (!rp->buffers)
		return;
	rping_debug(&p->o, "rping_free_buffers called on cb %p\n", (void *)rp);
	for (size_t i = 0; i < sizeof(mrs) / sizeof(mrs[0]); i++)
		if (mrs[i])
			rl_dereg_mr(mrs[i]);
	free(rp->rdma_buf);
	free(rp->start_buf);
	rp->buffers = false;
}

/* ---- the test ----------------------------------------------------------------------------------- */

/* rping's sem_wait(&cb->sem): run everything until an event is posted, or --timeout (then ERROR). */
static void rping_wait(struct peer *p, struct peer_rping *rp)
{
	uint64_t start = peer_now();

	while (!rp->sem) {
		rping_step(p, rp);
		if (!rp->sem && rping_expired(p, start)) {
			cli_error("peer", "nothing happened for %u s in state %s (--timeout)", p->o.timeout_s,
				  rping_state_names[rp->state]);
			rp->state = RPING_ERROR;
			return;
		}
	}
	rp->sem--;
}

/* Is the endpoint in the state the flow waited for? Else rping's message. */
static bool rping_in_state(const struct peer_rping *rp, enum rping_state want)
{
	if (rp->state == want)
		return true;
	fprintf(stderr, "wait for %s state %d\n", rping_state_names[want], (int)rp->state);
	return false;
}

/* rping_format_send(): advertise @buf (struct rping_rdma_info, big-endian) in the send buffer. */
static void rping_format_send(struct peer *p, struct peer_rping *rp, const char *buf, const struct rl_mr *mr)
{
	rl_put64(rp->send_buf, (uintptr_t)buf);
	rl_put32(rp->send_buf + 8, rl_mr_rkey(mr));
	rl_put32(rp->send_buf + 12, p->o.size);
	rping_debug(&p->o, "RDMA addr %" PRIx64 " rkey %x len %d\n", rl_get64(rp->send_buf), rl_get32(rp->send_buf + 8),
		    (int)p->o.size);
}

/* The start buffer of ping @ping: "rdma-ping-N: ", letters from @first on ('A'..'z', round again), a NUL last. */
static void rping_start_text(char *buf, uint32_t size, uint32_t ping, int first)
{
	int cc = snprintf(buf, size, RPING_MSG_FMT, (int)ping);
	int c = first;

	for (uint32_t i = (uint32_t)cc; i < size; i++) {
		buf[i] = (char)c;
		c = c == RPING_LAST_CHAR ? RPING_FIRST_CHAR : c + 1;
	}
	buf[size - 1] = '\0';
}

/* The client's half of one ping (rping_test_client()'s loop body); false when the loop ends. */
static bool rping_client_ping(struct peer *p, struct peer_rping *rp, uint32_t ping)
{
	uint32_t size = p->o.size;

	rp->state = RPING_RDMA_READ_ADV;
	rping_start_text(rp->start_buf, size, ping, RPING_FIRST_CHAR + (int)(ping % (RPING_LAST_CHAR - RPING_FIRST_CHAR + 1)));
	rping_format_send(p, rp, rp->start_buf, rp->start_mr);
	if (rping_post_send(p, rp, RL_WR_SEND, rp->send_mr, rp->send_buf, RPING_INFO_LEN))
		return false;
	/* The server's go-ahead: it has READ the start buffer. */
	rping_wait(p, rp);
	if (!rping_in_state(rp, RPING_RDMA_WRITE_ADV))
		return false;
	rping_format_send(p, rp, rp->rdma_buf, rp->rdma_mr);
	if (rping_post_send(p, rp, RL_WR_SEND, rp->send_mr, rp->send_buf, RPING_INFO_LEN))
		return false;
	/* The server's second go-ahead: its RDMA WRITE is complete. */
	rping_wait(p, rp);
	if (!rping_in_state(rp, RPING_RDMA_WRITE_COMPLETE))
		return false;
	if (p->o.rp.validate && memcmp(rp->start_buf, rp->rdma_buf, size)) {
		fprintf(stderr, "data mismatch!\n");
		return false;
	}
	if (p->o.rp.verbose)
		printf("ping data: %.*s\n", (int)strnlen(rp->rdma_buf, size), rp->rdma_buf);
	rp->pings++;
	return true;
}

/*
 * rping_test_client(). rping also ends well when the server disconnects
 * first; here a client whose -C pings were not all done fails, and says so.
 */
static int rping_test_client(struct peer *p, struct peer_rping *rp)
{
	uint32_t ping;

	for (ping = 0; !p->o.rp.count || ping < p->o.rp.count; ping++)
		if (!rping_client_ping(p, rp, ping))
			break;
	if (p->o.rp.count && rp->pings == p->o.rp.count)
		return 0;
	if (rp->state == RPING_DISCONNECTED)
		cli_error("peer", "the server disconnected after %u of %u pings", rp->pings, p->o.rp.count);
	return -1;
}

/* --corrupt: one letter of the ping changed before it goes back, for the client's -V to find. */
static void rping_corrupt(char *buf, uint32_t size)
{
	size_t i = strnlen(buf, size) / 2;

	buf[i] = buf[i] == '#' ? '$' : '#';
}

/* The server's half of one ping (rping_test_server()'s loop body); false when the loop ends. */
static bool rping_server_ping(struct peer *p, struct peer_rping *rp)
{
	uint32_t len;

	/* The client's start buffer. */
	rping_wait(p, rp);
	if (!rping_in_state(rp, RPING_RDMA_READ_ADV))
		return false;
	rping_debug(&p->o, "server received sink adv\n");
	if (rp->remote_len > p->o.size) {
		cli_error("peer", "the client's buffer is %u bytes, more than this server's -S %u: rping's server READs "
			  "it into one of its own size; give both the same -S", rp->remote_len, p->o.size);
		return false;
	}
	if (rping_post_send(p, rp, RL_WR_RDMA_READ, rp->rdma_mr, rp->rdma_buf, rp->remote_len))
		return false;
	rping_debug(&p->o, "server posted rdma read req \n");
	rping_wait(p, rp);
	if (!rping_in_state(rp, RPING_RDMA_READ_COMPLETE))
		return false;
	rping_debug(&p->o, "server received read complete\n");
	if (p->o.rp.verbose)
		printf("server ping data: %.*s\n", (int)strnlen(rp->rdma_buf, p->o.size), rp->rdma_buf);
	if (p->o.rp.corrupt)
		rping_corrupt(rp->rdma_buf, p->o.size);
	if (rping_post_send(p, rp, RL_WR_SEND, rp->send_mr, rp->send_buf, RPING_INFO_LEN))
		return false;
	rping_debug(&p->o, "server posted go ahead\n");
	/* The client's rdma buffer. */
	rping_wait(p, rp);
	if (!rping_in_state(rp, RPING_RDMA_WRITE_ADV))
		return false;
	rping_debug(&p->o, "server received sink adv\n");
	/* rping writes strlen() + 1 bytes: the text and its NUL. */
	len = (uint32_t)strnlen(rp->rdma_buf, p->o.size - 1) + 1;
	rping_debug(&p->o, "rdma write from lkey %x laddr %" PRIx64 " len %d\n", rl_mr_lkey(rp->rdma_mr),
		    (uint64_t)(uintptr_t)rp->rdma_buf, (int)len);
	if (rping_post_send(p, rp, RL_WR_RDMA_WRITE, rp->rdma_mr, rp->rdma_buf, len))
		return false;
	rping_wait(p, rp);
	if (!rping_in_state(rp, RPING_RDMA_WRITE_COMPLETE))
		return false;
	rping_debug(&p->o, "server rdma write complete \n");
	if (rping_post_send(p, rp, RL_WR_SEND, rp->send_mr, rp->send_buf, RPING_INFO_LEN))
		return false;
	rping_debug(&p->o, "server posted go ahead\n");
	rp->pings++;
	return true;
}

/* rping_test_server(): until the client disconnects, which ends it well. */
static int rping_test_server(struct peer *p, struct peer_rping *rp)
{
	while (rping_server_ping(p, rp))
		;
	return rp->state == RPING_DISCONNECTED ? 0 : -1;
}

/* ---- the command -------------------------------------------------------------------------------- */

static int rping_run_client(struct peer *p, struct peer_rping *rp)
{
	int ret;

	if (rping_resolve(p, rp))
		return -1;
	if (rping_setup_qp(p, rp->cm_id)) {
		fprintf(stderr, "setup_qp failed: %d\n", -1);
		return -1;
	}
	if (rping_setup_buffers(p, rp) || rping_post_recv(p, rp))
		return -1;
	if (rping_connect(p, rp)) {
		fprintf(stderr, "connect error %d\n", -1);
		return -1;
	}
	ret = rping_test_client(p, rp);
	if (ret)
		fprintf(stderr, "rping client failed: %d\n", ret);
	rping_disconnect(p, rp, rp->cm_id);
	return ret;
}

static int rping_run_server(struct peer *p, struct peer_rping *rp)
{
	int ret;

	if (rping_bind_server(p))
		return -1;
	rping_wait(p, rp);
	if (rp->state != RPING_CONNECT_REQUEST) {
		fprintf(stderr, "wait for CONNECT_REQUEST state %d\n", (int)rp->state);
		return -1;
	}
	if (rping_setup_qp(p, rp->child_cm_id)) {
		fprintf(stderr, "setup_qp failed: %d\n", -1);
		return -1;
	}
	if (rping_setup_buffers(p, rp) || rping_post_recv(p, rp))
		return -1;
	if (rping_accept(p, rp)) {
		fprintf(stderr, "connect error %d\n", -1);
		return -1;
	}
	ret = rping_test_server(p, rp);
	if (ret)
		fprintf(stderr, "rping server failed: %d\n", ret);
	rping_disconnect(p, rp, rp->child_cm_id);
	return ret;
}

/* --json: what happened, after rping's own output. */
static void rping_json(const struct peer *p, const struct peer_rping *rp, int ret)
{
	struct rl_qp_stats st;
	struct rl_cm_agent_stats cm;
	struct json j;

	memset(&st, 0, sizeof(st));
	memset(&cm, 0, sizeof(cm));
	if (p->cm.agent)
		rl_cm_agent_stats(p->cm.agent, &cm);
	if (p->verbs.qp)
		rl_qp_stats(p->verbs.qp, &st);
	json_begin(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, "compat", "rping");
	json_str(&j, "role", p->o.server ? "server" : "client");
	json_u64(&j, "size", p->o.size);
	json_u64(&j, "pings", rp->pings);
	json_u64(&j, "frames_sent", p->stat.sent);
	json_u64(&j, "frames_received", p->stat.recv_frames);
	json_u64(&j, "dropped_by_loss", p->stat.dropped_loss);
	json_u64(&j, "dropped_by_tx_loss", p->stat.dropped_tx);
	json_u64(&j, "retransmits", st.retransmits);
	json_u64(&j, "cm_mads_sent", cm.mads_sent);
	json_u64(&j, "cm_mads_received", cm.mads_recv);
	json_u64(&j, "cm_resends", cm.resends);
	json_bool(&j, "ok", ret == 0);
	json_end(&j);
	json_newline(&j);
}

int peer_rping_run(struct peer *p)
{
	struct peer_rping rp;
	int ret;

	memset(&rp, 0, sizeof(rp));
	rp.state = RPING_IDLE;
	p->rping = &rp;
	ret = p->o.server ? rping_run_server(p, &rp) : rping_run_client(p, &rp);
	rping_free_buffers(p, &rp);
	if (rp.cm_id)
		rping_debug(&p->o, "destroy cm_id %p\n", (void *)rp.cm_id);
	if (p->o.json)
		rping_json(p, &rp, ret);
	p->rping = NULL;
	return ret ? CLI_ERR : CLI_OK;
}
