/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer --compat ucmatose and --compat udaddy: librdmacm's examples
 * cmatose and udaddy (rdma-core, librdmacm/examples/cmatose.c, udaddy.c),
 * their flags, their protocol and their output, on the reference transport.
 *
 * ucmatose (RDMA_PS_TCP, RC, default port 7471): the client opens -c
 * connections at once (REQ, REP, RTU on QP1 for each), every QP's receives
 * posted before its REQ or REP. Once all are up, the server SENDs -C
 * messages of -S bytes on each and waits for their completions; the client
 * waits for them, then SENDs as many back from the buffer they landed in
 * (an echo). The server, all in, sends a DREQ on each connection and waits
 * for the DREPs.
 *
 * udaddy (RDMA_PS_UDP, UD, port 7174 always: its -p is the port space): the
 * client resolves each connection with SIDR_REQ; the SIDR_REP names the
 * server's QPN and its Q_Key (RDMA_UDP_QKEY). The client SENDs -C datagrams
 * with immediate (its own QPN), the server answers the same number to the
 * address in the first one's GRH, the QPN in its immediate, with its own
 * QP's Q_Key. Nothing ends the connection (SIDR has no DREQ).
 *
 * The tools check no data; neither waits forever here (--timeout), and a
 * work request that fails fails the run. As the ucmatose server, rocelab
 * also checks that the replies are the data it sent (the client echoes it).
 * Names are the tools': struct cmatest and cmatest_node, connect_events(),
 * cma_handler() and its handlers, poll_cqs(), run_server(), run_client().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "json.h"
#include "peer.h"

#define CMATOSE_PORT 7471          /* cmatose.c's port */
#define UDADDY_PORT 7174           /* udaddy.c's; its -p sets the port space, not the port */
#define CT_DEFAULT_SIZE 100        /* both tools' message_size */
#define CT_DEFAULT_COUNT 10        /* ... and message_count */
#define CT_RESOLVE_MS 2000         /* the timeout both pass to rdma_resolve_addr() and _route() */
#define CT_POLL_BATCH 8            /* poll_cqs() takes 8 completions at a time */
#define CT_RETRY_COUNT 5           /* cmatose's conn_param.retry_count (its rnr_retry_count is 0) */

enum ct_cq_index { SEND_CQ_INDEX, RECV_CQ_INDEX };

/* One connection: the tools' struct cmatest_node. udaddy has one CQ, here cq[SEND_CQ_INDEX] for both. */
struct cmatest_node {
	int id;
	struct rl_rdma_cm_id *cma_id;
	bool connected;
	struct rl_pd *pd;
	struct rl_cq *cq[2];
	struct rl_mr *mr;
	uint8_t *mem;
	size_t mem_len;
	/* udaddy: where the datagrams go (its struct ibv_ah, remote_qpn, remote_qkey) */
	bool ah;
	uint8_t ah_dgid[16];
	uint32_t remote_qpn, remote_qkey;
};

/* The tools' struct cmatest, and what rocelab counts for --json. */
struct peer_cmatose {
	const char *name;                /* "cmatose" or "udaddy": what their messages start with */
	struct cmatest_node *nodes;
	int conn_index, connects_left, disconnects_left;
	struct rl_rdma_cm_id *listen_id;
	uint64_t sent, received;         /* SENDs posted, receives completed */
	int replies_match;               /* ucmatose server: 1 the echo is what it sent, 0 not, -1 not checked */
};

/* ---- the options -------------------------------------------------------------------------------- */

bool peer_cmatose_asked(int argc, char **argv, bool *ud)
{
	for (int i = 1; i < argc; i++) {
		const char *tool = !strcmp(argv[i], "--compat") && i + 1 < argc ? argv[i + 1]
				   : !strncmp(argv[i], "--compat=", 9) ? argv[i] + 9 : "";

		if (!strcmp(tool, "ucmatose") || !strcmp(tool, "udaddy")) {
			*ud = !strcmp(tool, "udaddy");
			return true;
		}
	}
	return false;
}

/* -p: ucmatose's port; udaddy's port space (RDMA_PS_UDP only: its RDMA_PS_IPOIB is InfiniBand's). */
static bool ct_port_flag(struct peer_opts *o, const char *arg)
{
	uint64_t v;

	if (!o->ud) {
		if (!cli_arg_u64("peer", "-p", arg, 1, 65535, NULL, &v))
			return false;
		o->port = (uint16_t)v;
		return true;
	}
	if (cli_parse_u64(arg, UINT32_MAX, &v) && v == RL_RDMA_PS_UDP)
		return true;
	cli_error("peer", "udaddy's -p is the port space: only %#x (RDMA_PS_UDP) runs here; the port is %d", RL_RDMA_PS_UDP,
		  UDADDY_PORT);
	return false;
}

/* -P: the port space by name: tcp (ucmatose) or udp (udaddy); ib and ipoib are InfiniBand's. */
static bool ct_port_space_flag(const struct peer_opts *o, const char *arg)
{
	const char *want = o->ud ? "udp" : "tcp";

	if (!strncasecmp(want, arg, 3))
		return true;
	cli_error("peer", "-P %s: only %s is supported here", arg, want);
	return false;
}

/* -f: the address format; names and GIDs are not taken here. */
static bool ct_format_flag(const char *arg)
{
	if (!strncasecmp("ip", arg, 2))
		return true;
	cli_error("peer", "-f %s: give -s and -b as IPv4 or IPv6 addresses (-f ip); names and GIDs are not resolved here",
		  arg);
	return false;
}

/* A count flag of the tools (atoi() there: here a number, checked). */
static bool ct_count_flag(const char *opt, const char *arg, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (!cli_arg_u64("peer", opt, arg, min, max, NULL, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* One of the tool's own flags; false (with a message) if it is refused. */
static bool ct_flag(struct peer_opts *o, int c, const char *arg, const char **bind)
{
	bool v6 = false;

	switch (c) {
	case 's':
		if (!peer_addr_arg("-s", arg, &v6))
			return false;
		o->addr = arg;
		o->ipv6 = v6;
		return true;
	case 'b':
		if (!peer_addr_arg("-b", arg, &v6))
			return false;
		*bind = arg;
		return true;
	case 'c': return ct_count_flag("-c", arg, 1, PEER_CMATOSE_MAX_CONN, &o->ct.connections);
	case 'C': return ct_count_flag("-C", arg, 0, 1u << 20, &o->ct.count);
	case 'S': return ct_count_flag("-S", arg, 0, 1u << 30, &o->size);
	case 'p': return ct_port_flag(o, arg);
	case 'P': return ct_port_space_flag(o, arg);
	case 'f': return ct_format_flag(arg);
	case 'm': o->ct.migrate = true; return true;
	case 't':
		cli_error("peer", "-t (type of service) is not supported: the frames carry traffic class 0");
		return false;
	case 'a':
		cli_error("peer", "-a (ACK timeout) is not supported: the QP keeps the CM's");
		return false;
	}
	return false;
}

/* What the flags mean together; false (with a message) for what cannot run. */
static bool ct_check_opts(struct peer_opts *o, const char *bind)
{
	bool bind_v6 = false;

	if (bind)
		peer_addr_arg("-b", bind, &bind_v6);
	o->server = !o->addr;
	if (o->server) {
		o->addr = bind; /* the server listens on -b ADDR, or on any address */
		o->ipv6 = bind_v6;
	} else if (bind && bind_v6 != o->ipv6) {
		cli_error("peer", "-b %s and -s %s are of different address families", bind, o->addr);
		return false;
	} else {
		o->rp.source = bind;
	}
	/* create_message(): no message size, no messages. */
	if (!o->size)
		o->ct.count = 0;
	if (o->ud && o->size > 4096) {
		cli_error("peer", "-S %u: a UD message is one packet, and no path MTU is above 4096", o->size);
		return false;
	}
	return true;
}

bool peer_cmatose_parse(int argc, char **argv, bool ud, struct peer_opts *o, int *rc)
{
	static const struct option lo[] = { PEER_COMPAT_LONGOPTS, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	const char *bind = NULL;
	int c;

	peer_opts_init(o);
	o->cmatose = true;
	o->ud = ud;
	o->port = ud ? UDADDY_PORT : CMATOSE_PORT;
	o->size = CT_DEFAULT_SIZE;
	o->ct.count = CT_DEFAULT_COUNT;
	o->ct.connections = 1;
	*rc = CLI_ERR;
	optind = 1;
	while ((c = getopt_long(argc, argv, ud ? "s:b:c:C:S:t:p:P:f:h" : "s:b:f:P:c:C:S:t:p:a:mh", lo, NULL)) != -1) {
		if (c == 'h') {
			peer_usage(stdout);
			*rc = CLI_OK;
			return false;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "Try 'rocelab peer --help'.\n");
			return false;
		}
		if (!(c >= PEER_O_LOSS ? peer_compat_flag(o, c, optarg) : ct_flag(o, c, optarg, &bind)))
			return false;
	}
	if (optind < argc) {
		cli_error("peer", "unexpected argument '%s'", argv[optind]);
		return false;
	}
	if (!o->seed)
		o->seed = 1;
	return ct_check_opts(o, bind);
}

/* ---- the wire and the event channel ------------------------------------------------------------ */

static bool ct_expired(const struct peer *p, uint64_t start)
{
	return peer_now() - start > (uint64_t)p->o.timeout_s * 1000000000u;
}

/* One round: the host, its CM agent and the wire. */
static void ct_pump(struct peer *p)
{
	peer_pump(p, -1);
	peer_flush(p);
}

/* rdma_get_cm_event(), blocking up to --timeout: 0, or -ETIMEDOUT with a message. */
static int ct_get_cm_event(struct peer *p, const char *what, struct rl_rdma_cm_event **ev)
{
	uint64_t start = peer_now();

	while (!(*ev = peer_cm_event(p))) {
		if (p->net.failed)
			return -EINVAL;
		if (ct_expired(p, start)) {
			cli_error("peer", "no rdma_cm event for %u s while waiting for %s (--timeout)", p->o.timeout_s, what);
			return -ETIMEDOUT;
		}
		ct_pump(p);
	}
	return 0;
}

static struct cmatest_node *ct_node_of(const struct peer *p, const struct rl_rdma_cm_id *id)
{
	for (uint32_t i = 0; i < p->o.ct.connections; i++)
		if (p->cmatose->nodes[i].cma_id == id)
			return &p->cmatose->nodes[i];
	return NULL;
}

/* The tools' perror() after an rdma_* call: "cmatose: WHAT: reason" on stderr. */
static void ct_perror(const struct peer *p, const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", p->cmatose->name, what, strerror(err < 0 ? -err : err ? err : EINVAL));
}

/* ---- a connection's verbs objects ---------------------------------------------------------------- */

/* create_message(): the one buffer every SEND leaves from and every receive lands in (udaddy: a GRH first). */
static int ct_create_message(struct peer *p, struct cmatest_node *n)
{
	if (!p->o.ct.count)
		return 0;
	n->mem_len = p->o.size + (p->o.ud ? PEER_UD_GRH : 0);
	n->mem = calloc(1, n->mem_len);
	if (!n->mem) {
		printf("failed message allocation\n");
		return -1;
	}
	/* rocelab's ucmatose server sends a pattern, to find it again in the client's echo. */
	if (!p->o.ud && p->o.server)
		for (size_t i = 0; i < p->o.size; i++)
			n->mem[i] = peer_pattern(p, i);
	n->mr = rl_reg_mr_iova(n->pd, n->mem, n->mem_len, (uintptr_t)n->mem, RL_ACCESS_LOCAL_WRITE);
	if (!n->mr) {
		printf("failed to reg MR\n");
		return -1;
	}
	return 0;
}

/* init_node(): PD, CQs (ucmatose: send and receive; udaddy: one of twice the size), the QP, the buffer. */
static int ct_init_node(struct peer *p, struct cmatest_node *n)
{
	uint32_t count = p->o.ct.count, depth = count ? count : 1;
	int cqe = p->o.ud ? (int)(2 * depth) : (int)depth;
	struct rl_qp_init_attr ia = { .max_send_wr = depth, .max_recv_wr = depth, .sq_sig_all = !p->o.ud };
	int r;

	n->pd = rl_alloc_pd(p->verbs.host);
	if (!n->pd) {
		printf("%s: unable to allocate PD\n", p->cmatose->name);
		return -ENOMEM;
	}
	n->cq[SEND_CQ_INDEX] = rl_create_cq(p->verbs.host, cqe);
	n->cq[RECV_CQ_INDEX] = p->o.ud ? n->cq[SEND_CQ_INDEX] : rl_create_cq(p->verbs.host, cqe);
	if (!n->cq[SEND_CQ_INDEX] || !n->cq[RECV_CQ_INDEX]) {
		printf("%s: unable to create CQ\n", p->cmatose->name);
		return -ENOMEM;
	}
	ia.send_cq = n->cq[SEND_CQ_INDEX];
	ia.recv_cq = n->cq[RECV_CQ_INDEX];
	if ((r = rl_rdma_create_qp(n->cma_id, n->pd, &ia))) {
		ct_perror(p, "unable to create QP", r);
		return r;
	}
	if ((r = ct_create_message(p, n))) {
		printf("%s: failed to create messages: %d\n", p->cmatose->name, r);
		return r;
	}
	return 0;
}

static int ct_post_recvs(struct peer *p, struct cmatest_node *n)
{
	struct rl_recv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)n->id;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ (uintptr_t)n->mem, (uint32_t)n->mem_len, n->mr ? rl_mr_lkey(n->mr) : 0 };
	for (uint32_t i = 0; i < p->o.ct.count; i++) {
		if (rl_post_recv(rl_rdma_id_qp(n->cma_id), &wr)) {
			printf("failed to post receives: %d\n", -1);
			cli_error("peer", "post_recv: %s", rl_host_error(p->verbs.host));
			return -1;
		}
	}
	return 0;
}

/* post_sends(): -C SENDs of -S bytes from the buffer (udaddy: with immediate, its QPN, to the AH's QP). */
static int ct_post_sends(struct peer *p, struct cmatest_node *n, bool signaled)
{
	struct rl_qp *qp = rl_rdma_id_qp(n->cma_id);
	struct rl_send_wr wr;

	if (!n->connected || !p->o.ct.count)
		return 0;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)n->id;
	wr.opcode = p->o.ud ? RL_WR_SEND_WITH_IMM : RL_WR_SEND;
	wr.send_flags = signaled ? RL_SEND_SIGNALED : 0;
	wr.num_sge = 1;
	wr.sg_list[0] = (struct rl_sge){ (uintptr_t)n->mem, p->o.size, rl_mr_lkey(n->mr) };
	if (p->o.ud) {
		wr.imm_data = rl_qp_num(qp);
		memcpy(wr.ud.dgid, n->ah_dgid, 16);
		wr.ud.remote_qpn = n->remote_qpn;
		wr.ud.remote_qkey = n->remote_qkey;
	}
	for (uint32_t i = 0; i < p->o.ct.count; i++) {
		if (rl_post_send(qp, &wr)) {
			printf("failed to post sends: %d\n", -1);
			cli_error("peer", "post_send: %s", rl_host_error(p->verbs.host));
			return -1;
		}
		p->cmatose->sent++;
	}
	return 0;
}

static void ct_destroy_node(struct cmatest_node *n)
{
	if (!n->cma_id)
		return;
	rl_rdma_destroy_id(n->cma_id); /* and the QP rl_rdma_create_qp() made */
	if (n->cq[RECV_CQ_INDEX] && n->cq[RECV_CQ_INDEX] != n->cq[SEND_CQ_INDEX])
		rl_destroy_cq(n->cq[RECV_CQ_INDEX]);
	if (n->cq[SEND_CQ_INDEX])
		rl_destroy_cq(n->cq[SEND_CQ_INDEX]);
	if (n->mr)
		rl_dereg_mr(n->mr);
	free(n->mem);
	if (n->pd)
		rl_dealloc_pd(n->pd);
	n->cma_id = NULL;
}

/* ---- the completions ------------------------------------------------------------------------------ */

/* create_reply_ah(): the sender's GID from the GRH the receive wrote (RoCEv2 over IPv4: an IPv4 header at byte 20). */
static void ct_create_reply_ah(struct cmatest_node *n, const struct rl_wc *wc)
{
	const uint8_t *grh = n->mem;
	struct rl_qp_attr a;

	if ((grh[20] >> 4) == 4)
		rl_gid_from_ipv4(n->ah_dgid, grh + 32);
	else
		memcpy(n->ah_dgid, grh + 8, 16);
	n->remote_qpn = wc->imm_data;
	rl_query_qp(rl_rdma_id_qp(n->cma_id), &a);
	n->remote_qkey = a.qkey;
	n->ah = true;
}

/* The tools count a failed completion as done; here it fails the run, and says why. */
static int ct_wc_check(struct peer *p, const struct cmatest_node *n, const struct rl_wc *wc)
{
	if (wc->status == RL_WC_SUCCESS)
		return 0;
	cli_error("peer", "connection %d: a work request failed: %s (%s would count it as done)", n->id,
		  rl_wc_status_str(wc->status), p->cmatose->name);
	return -1;
}

/* -C completions of connection @n's CQ @index (udaddy: its only CQ), as poll_cqs() waits for them. */
static int ct_poll_node(struct peer *p, struct cmatest_node *n, enum ct_cq_index index)
{
	struct rl_wc wc[CT_POLL_BATCH];
	uint64_t start = peer_now();
	uint32_t done;
	int got;

	for (done = 0; done < p->o.ct.count; done += (uint32_t)got) {
		got = rl_poll_cq(n->cq[index], CT_POLL_BATCH, wc);
		if (got && p->o.ud && !n->ah)
			ct_create_reply_ah(n, &wc[0]);
		for (int i = 0; i < got; i++) {
			if (ct_wc_check(p, n, &wc[i]))
				return -1;
			p->cmatose->received += wc[i].opcode == RL_WC_RECV;
		}
		if (got)
			start = peer_now();
		else if (ct_expired(p, start)) {
			cli_error("peer", "connection %d: %u of %u completions, then nothing for %u s (--timeout)%s", n->id,
				  done, p->o.ct.count, p->o.timeout_s,
				  p->o.ud ? ": a datagram lost is not resent, and udaddy waits for every one" : "");
			return -ETIMEDOUT;
		} else {
			ct_pump(p);
		}
	}
	return 0;
}

static int ct_poll_cqs(struct peer *p, enum ct_cq_index index)
{
	for (uint32_t i = 0; i < p->o.ct.connections; i++) {
		struct cmatest_node *n = &p->cmatose->nodes[i];
		int r;

		if (n->connected && (r = ct_poll_node(p, n, index)))
			return r;
	}
	return 0;
}

/* ---- the rdma_cm events: cma_handler() and its handlers ----------------------------------------- */

static void ct_connect_error(struct peer_cmatose *t)
{
	t->connects_left--;
}

/* addr_handler(): on to the route. */
static int ct_addr_handler(struct peer *p, struct cmatest_node *n)
{
	int r = rl_rdma_resolve_route(n->cma_id, CT_RESOLVE_MS);

	if (r) {
		ct_perror(p, "resolve route failed", r);
		ct_connect_error(p->cmatose);
	}
	return r;
}

/* udaddy's verify_test_params(): a datagram is one packet of at most the port's MTU. */
static int ct_verify_test_params(const struct peer *p)
{
	uint32_t mtu = rl_mtu_bytes(p->o.mtu);

	if (p->o.ud && p->o.ct.count && p->o.size > mtu) {
		printf("udaddy: message_size %u is larger than active mtu %u\n", p->o.size, mtu);
		return -EINVAL;
	}
	return 0;
}

/* route_handler(): the QP, its receives, and the REQ (SIDR_REQ); cmatose asks for 1 READ each way, 5 retries. */
static int ct_route_handler(struct peer *p, struct cmatest_node *n)
{
	struct rl_rdma_conn_param cp;
	int r;

	if ((r = ct_verify_test_params(p)) || (r = ct_init_node(p, n)) || (r = ct_post_recvs(p, n)))
		goto err;
	memset(&cp, 0, sizeof(cp));
	if (!p->o.ud) {
		cp.responder_resources = 1;
		cp.initiator_depth = 1;
		cp.retry_count = CT_RETRY_COUNT;
	}
	if ((r = rl_rdma_connect(n->cma_id, &cp))) {
		ct_perror(p, "failure connecting", r);
		goto err;
	}
	return 0;
err:
	ct_connect_error(p->cmatose);
	return r;
}

/*
 * rdma_accept(): cmatose passes no conn_param, so librdmacm answers with
 * the REQ's offer (its READ depths turned round) and 7 retries; udaddy
 * names its QP, for the SIDR_REP.
 */
static int ct_accept(struct peer *p, struct cmatest_node *n, const struct rl_rdma_cm_event *ev)
{
	struct rl_rdma_conn_param cp;

	memset(&cp, 0, sizeof(cp));
	if (p->o.ud) {
		cp.qp_num = rl_qp_num(rl_rdma_id_qp(n->cma_id));
	} else {
		cp.responder_resources = ev->conn.responder_resources;
		cp.initiator_depth = ev->conn.initiator_depth;
		cp.retry_count = 7;
		cp.rnr_retry_count = 7;
	}
	return rl_rdma_accept(n->cma_id, &cp);
}

/* connect_handler(): a node for the request, its QP and receives, and the REP; beyond -c, a REJ. */
static int ct_connect_handler(struct peer *p, const struct rl_rdma_cm_event *ev)
{
	struct peer_cmatose *t = p->cmatose;
	struct cmatest_node *n;
	int r;

	if (t->conn_index == (int)p->o.ct.connections) {
		r = -ENOMEM;
		goto err1;
	}
	n = &t->nodes[t->conn_index++];
	n->cma_id = ev->id;
	if ((r = ct_verify_test_params(p)) || (r = ct_init_node(p, n)) || (r = ct_post_recvs(p, n)))
		goto err2;
	if ((r = ct_accept(p, n, ev))) {
		ct_perror(p, "failure accepting", r);
		goto err2;
	}
	/* udaddy: the SIDR_REP sent, the connection is up. */
	if (p->o.ud) {
		n->connected = true;
		t->connects_left--;
	}
	return 0;
err2:
	/* The node keeps the id (destroyed at the end), as cmatose leaves it. */
	ct_connect_error(t);
err1:
	printf("%s: failing connection request\n", t->name);
	rl_rdma_reject(ev->id, NULL, 0);
	return r;
}

/* udaddy's resolved_handler(): the SIDR_REP's QPN and Q_Key, and the address they are at. */
static void ct_resolved_handler(struct peer_cmatose *t, struct cmatest_node *n, const struct rl_rdma_cm_event *ev)
{
	n->remote_qpn = ev->ud.qp_num;
	n->remote_qkey = ev->ud.qkey;
	memcpy(n->ah_dgid, ev->ud.ah_attr.dgid, 16);
	n->ah = true;
	n->connected = true;
	t->connects_left--;
}

static void ct_established(struct peer *p, struct cmatest_node *n, const struct rl_rdma_cm_event *ev)
{
	struct peer_cmatose *t = p->cmatose;

	if (p->o.ud) {
		ct_resolved_handler(t, n, ev);
		return;
	}
	n->connected = true;
	t->connects_left--;
	t->disconnects_left++;
}

static int ct_cma_handler(struct peer *p, const struct rl_rdma_cm_event *ev)
{
	struct cmatest_node *n = ct_node_of(p, ev->id);

	if (!n && ev->event != RL_RDMA_CM_EVENT_CONNECT_REQUEST)
		return 0;
	switch (ev->event) {
	case RL_RDMA_CM_EVENT_ADDR_RESOLVED: return ct_addr_handler(p, n);
	case RL_RDMA_CM_EVENT_ROUTE_RESOLVED: return ct_route_handler(p, n);
	case RL_RDMA_CM_EVENT_CONNECT_REQUEST: return ct_connect_handler(p, ev);
	case RL_RDMA_CM_EVENT_ESTABLISHED: ct_established(p, n, ev); return 0;
	case RL_RDMA_CM_EVENT_ADDR_ERROR:
	case RL_RDMA_CM_EVENT_ROUTE_ERROR:
	case RL_RDMA_CM_EVENT_CONNECT_ERROR:
	case RL_RDMA_CM_EVENT_UNREACHABLE:
	case RL_RDMA_CM_EVENT_REJECTED:
		printf("%s: event: %s, error: %d\n", p->cmatose->name, rl_rdma_event_str(ev->event), ev->status);
		ct_connect_error(p->cmatose);
		return ev->status;
	case RL_RDMA_CM_EVENT_DISCONNECTED:
		if (p->o.ud)
			return 0;
		/* The client's DREP to the server's DREQ; the server sent its DREQ already (and is not connected). */
		if (n->connected)
			rl_rdma_disconnect(ev->id);
		n->connected = false;
		p->cmatose->disconnects_left--;
		return 0;
	default:
		return 0;
	}
}

/* connect_events(): until every connection is up (or failed). */
static int ct_connect_events(struct peer *p)
{
	struct rl_rdma_cm_event *ev;
	int ret = 0;

	while (p->cmatose->connects_left && !ret) {
		if ((ret = ct_get_cm_event(p, "the connections", &ev)))
			break;
		ret = ct_cma_handler(p, ev);
		rl_rdma_ack_cm_event(ev);
	}
	return ret;
}

/* cmatose's disconnect_events(): until every connection is down. */
static int ct_disconnect_events(struct peer *p)
{
	struct rl_rdma_cm_event *ev;
	int ret = 0;

	while (p->cmatose->disconnects_left && !ret) {
		if ((ret = ct_get_cm_event(p, "the disconnections", &ev)))
			break;
		ret = ct_cma_handler(p, ev);
		rl_rdma_ack_cm_event(ev);
	}
	return ret;
}

/* ---- the two roles ------------------------------------------------------------------------------ */

/* The host for p->net.local and its CM agent on QP1. */
static int ct_host(struct peer *p)
{
	if (peer_host_new(p)) {
		cli_error("peer", "out of memory");
		return -1;
	}
	return peer_cm_agent(p);
}

/* The server's listening id, once its address is known (-b, or the destination of the first frame). */
static int ct_server_up(struct peer *p)
{
	struct peer_cmatose *t = p->cmatose;
	struct rl_rdma_addr any = { { 0 }, p->o.port };
	int r;

	if (peer_pick_gid(p) || peer_pick_mtu(p) || ct_host(p))
		return -1;
	t->listen_id = rl_rdma_create_id(p->cm.agent, t, p->o.ud ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP);
	if (!t->listen_id) {
		ct_perror(p, "listen request failed", -ENOMEM);
		return -1;
	}
	p->cm.listen = t->listen_id;
	if (p->o.addr)
		memcpy(any.gid, p->conn.me.gid, 16);
	if ((r = rl_rdma_bind_addr(t->listen_id, &any))) {
		ct_perror(p, "bind address failed", r);
		return -1;
	}
	/* cmatose and udaddy listen with backlog 0: librdmacm's default. */
	if ((r = rl_rdma_listen(t->listen_id, 0))) {
		ct_perror(p, "failure trying to listen", r);
		return -1;
	}
	return 0;
}

/* The server's sockets, listening on -b ADDR or on any address (the first frame then tells which is ours). */
static int ct_bind_server(struct peer *p)
{
	uint16_t ps = p->o.ud ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP;

	p->net.family = p->o.ipv6 ? AF_INET6 : AF_INET;
	memset(&p->net.local, 0, sizeof(p->net.local));
	p->net.local.sa.sa_family = (sa_family_t)p->net.family;
	if (p->o.addr && peer_parse_addr(p, p->o.addr, &p->net.local))
		return -1;
	peer_addr_set_port(&p->net.local, 0);
	p->cm.up = ct_server_up;
	if (peer_rx_sockets(p) || (p->o.addr && ct_server_up(p)))
		return -1;
	/* The tools say nothing here; scripts wait for this line, as with --cm and --compat rping. */
	if (!p->o.json)
		fprintf(stderr, "rocelab peer: waiting for a client's %s on rdma_cm port %u (service ID %#018" PRIx64 ")\n",
			p->o.ud ? "SIDR_REQ" : "REQ", p->o.port, rl_cm_service_id(ps, p->o.port));
	fflush(stdout);
	return 0;
}

/* The end of the connections on the client: answer a DREQ sent again (our DREP lost), as the kernel's CM would. */
static void ct_client_linger(struct peer *p)
{
	if (!p->o.ud)
		peer_cm_linger(p);
}

/* ucmatose's server: SEND, wait for the sends, then the replies; check they echo the data. */
static int ct_server_transfers(struct peer *p)
{
	struct peer_cmatose *t = p->cmatose;
	int ret;

	printf("initiating data transfers\n");
	for (uint32_t i = 0; i < p->o.ct.connections; i++)
		if ((ret = ct_post_sends(p, &t->nodes[i], false)))
			return ret;
	printf("completing sends\n");
	if ((ret = ct_poll_cqs(p, SEND_CQ_INDEX)))
		return ret;
	printf("receiving data transfers\n");
	if ((ret = ct_poll_cqs(p, RECV_CQ_INDEX)))
		return ret;
	printf("data transfers complete\n");
	t->replies_match = 1;
	for (uint32_t i = 0; i < p->o.ct.connections; i++)
		if (t->nodes[i].connected && !peer_check(p, t->nodes[i].mem, p->o.size))
			t->replies_match = 0;
	if (!t->replies_match) {
		cli_error("peer", "the replies are not the data sent (cmatose's client echoes the buffer it received into)");
		return -1;
	}
	return 0;
}

/* udaddy's server: the datagrams, then as many back to their sender, signaled, and their completions. */
static int ct_udaddy_server_transfers(struct peer *p)
{
	int ret;

	printf("receiving data transfers\n");
	if ((ret = ct_poll_cqs(p, RECV_CQ_INDEX)))
		return ret;
	printf("sending replies\n");
	for (uint32_t i = 0; i < p->o.ct.connections; i++)
		if ((ret = ct_post_sends(p, &p->cmatose->nodes[i], true)))
			return ret;
	if ((ret = ct_poll_cqs(p, SEND_CQ_INDEX)))
		return ret;
	printf("data transfers complete\n");
	return 0;
}

/* cmatose's end of the server: a DREQ on each connection, and the DREPs (DISCONNECTED) awaited. */
static int ct_server_disconnect(struct peer *p)
{
	int ret;

	printf("cmatose: disconnecting\n");
	for (uint32_t i = 0; i < p->o.ct.connections; i++) {
		struct cmatest_node *n = &p->cmatose->nodes[i];

		if (!n->connected)
			continue;
		n->connected = false;
		rl_rdma_disconnect(n->cma_id);
	}
	ret = ct_disconnect_events(p);
	printf("disconnected\n");
	return ret;
}

static int ct_run_server(struct peer *p)
{
	int ret;

	printf("%s: starting server\n", p->cmatose->name);
	fflush(stdout);
	if (ct_bind_server(p))
		return -1;
	if ((ret = ct_connect_events(p)) && !p->o.ud)
		return ret;
	/* udaddy goes on whatever connect_events() said. */
	if (p->o.ct.count && (ret = p->o.ud ? ct_udaddy_server_transfers(p) : ct_server_transfers(p)))
		return ret;
	if (p->o.ct.migrate)
		printf("migrating to new event channel\n");
	if (!p->o.ud)
		ret = ct_server_disconnect(p);
	return ret;
}

/* The client's address, route, sockets, host and agent, and an id per connection (alloc_nodes()). */
static int ct_client_up(struct peer *p)
{
	struct peer_cmatose *t = p->cmatose;

	if (peer_parse_addr(p, p->o.addr, &p->net.remote) || peer_route_local(p) || peer_pick_gid(p) ||
	    peer_pick_mtu(p) || peer_rx_sockets(p) || ct_host(p))
		return -1;
	for (uint32_t i = 0; i < p->o.ct.connections; i++) {
		t->nodes[i].cma_id = rl_rdma_create_id(p->cm.agent, &t->nodes[i], p->o.ud ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP);
		if (!t->nodes[i].cma_id)
			return -1;
	}
	return 0;
}

/* rdma_resolve_addr() for every connection at once, as the tools start them. */
static int ct_client_connect(struct peer *p)
{
	struct rl_rdma_addr src = { { 0 }, 0 }, dst = { { 0 }, p->o.port };
	int r;

	memcpy(src.gid, p->conn.me.gid, 16);
	peer_addr_to_gid(&p->net.remote, dst.gid);
	for (uint32_t i = 0; i < p->o.ct.connections; i++) {
		if ((r = rl_rdma_resolve_addr(p->cmatose->nodes[i].cma_id, &src, &dst, CT_RESOLVE_MS))) {
			ct_perror(p, "failure getting addr", r);
			ct_connect_error(p->cmatose);
			return r;
		}
	}
	return ct_connect_events(p);
}

/* The client's data: ucmatose receives, then replies; udaddy sends, then receives. */
static int ct_client_transfers(struct peer *p)
{
	int ret;

	if (p->o.ud) {
		printf("initiating data transfers\n");
		for (uint32_t i = 0; i < p->o.ct.connections; i++)
			if ((ret = ct_post_sends(p, &p->cmatose->nodes[i], false)))
				return ret;
	}
	printf("receiving data transfers\n");
	if ((ret = ct_poll_cqs(p, RECV_CQ_INDEX)))
		return ret;
	if (!p->o.ud) {
		printf("sending replies\n");
		for (uint32_t i = 0; i < p->o.ct.connections; i++)
			if ((ret = ct_post_sends(p, &p->cmatose->nodes[i], false)))
				return ret;
	}
	printf("data transfers complete\n");
	return 0;
}

static int ct_run_client(struct peer *p)
{
	int ret, ret2;

	printf("%s: starting client\n", p->cmatose->name);
	if (ct_client_up(p))
		return -1;
	printf("%s: connecting\n", p->cmatose->name);
	fflush(stdout);
	ret = ct_client_connect(p);
	if (!ret && p->o.ct.count)
		ret = ct_client_transfers(p);
	if (p->o.ct.migrate && !ret)
		printf("migrating to new event channel\n");
	/* cmatose waits for the server's DREQs even after a failure (disc:); udaddy has none. */
	if (!p->o.ud && (ret2 = ct_disconnect_events(p)))
		ret = ret ? ret : ret2;
	ct_client_linger(p);
	return ret;
}

/* ---- the command -------------------------------------------------------------------------------- */

/* --json: what happened, after the tool's own output. */
static void ct_json(const struct peer *p, const struct peer_cmatose *t, int ret)
{
	struct rl_cm_agent_stats cm;
	uint64_t retransmits = 0;
	struct json j;
	int up = 0;

	memset(&cm, 0, sizeof(cm));
	if (p->cm.agent)
		rl_cm_agent_stats(p->cm.agent, &cm);
	for (uint32_t i = 0; i < p->o.ct.connections; i++) {
		struct rl_qp_stats st;

		if (!t->nodes[i].cma_id || !rl_rdma_id_qp(t->nodes[i].cma_id))
			continue;
		rl_qp_stats(rl_rdma_id_qp(t->nodes[i].cma_id), &st);
		retransmits += st.retransmits;
		up++;
	}
	json_begin(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, "compat", p->o.ud ? "udaddy" : "ucmatose");
	json_str(&j, "role", p->o.server ? "server" : "client");
	json_u64(&j, "connections", (uint64_t)up);
	json_u64(&j, "message_count", p->o.ct.count);
	json_u64(&j, "message_size", p->o.size);
	json_u64(&j, "messages_sent", t->sent);
	json_u64(&j, "messages_received", t->received);
	if (t->replies_match >= 0)
		json_bool(&j, "replies_match", t->replies_match == 1);
	json_u64(&j, "frames_sent", p->stat.sent);
	json_u64(&j, "frames_received", p->stat.recv_frames);
	json_u64(&j, "dropped_by_loss", p->stat.dropped_loss);
	json_u64(&j, "dropped_by_tx_loss", p->stat.dropped_tx);
	json_u64(&j, "retransmits", retransmits);
	json_u64(&j, "cm_mads_sent", cm.mads_sent);
	json_u64(&j, "cm_mads_received", cm.mads_recv);
	json_u64(&j, "cm_resends", cm.resends);
	json_bool(&j, "ok", ret == 0);
	json_end(&j);
	json_newline(&j);
}

/*
 * A process that exits with connections up: the kernel's CM sends a DREQ
 * on each as it destroys the id (what the other side of a failed cmatose
 * sees); the agent does so here, before the ids go.
 */
static void ct_exit_disconnect(struct peer *p, struct peer_cmatose *t)
{
	bool sent = false;

	for (uint32_t i = 0; i < p->o.ct.connections && !p->o.ud; i++) {
		struct rl_rdma_cm_id *id = t->nodes[i].cma_id;

		if (id && rl_rdma_id_state(id) == RL_CM_STATE_ESTABLISHED && !rl_rdma_disconnect(id))
			sent = true;
	}
	if (sent)
		peer_drain(p, PEER_QUIET_MS);
}

static void ct_destroy_nodes(struct peer *p, struct peer_cmatose *t)
{
	/* Events not taken yet name ids about to go. */
	while (p->cm.nev)
		rl_rdma_ack_cm_event(peer_cm_event(p));
	for (uint32_t i = 0; i < p->o.ct.connections; i++)
		ct_destroy_node(&t->nodes[i]);
	if (t->listen_id)
		rl_rdma_destroy_id(t->listen_id);
	p->cm.listen = p->cm.id = NULL;
	free(t->nodes);
}

int peer_cmatose_run(struct peer *p)
{
	struct peer_cmatose t;
	int ret;

	memset(&t, 0, sizeof(t));
	t.name = p->o.ud ? "udaddy" : "cmatose";
	t.connects_left = (int)p->o.ct.connections;
	t.replies_match = -1;
	t.nodes = calloc(p->o.ct.connections, sizeof(*t.nodes));
	if (!t.nodes) {
		printf("%s: unable to allocate memory for test nodes\n", t.name);
		return CLI_ERR;
	}
	for (uint32_t i = 0; i < p->o.ct.connections; i++)
		t.nodes[i].id = (int)i;
	p->cmatose = &t;
	ret = p->o.server ? ct_run_server(p) : ct_run_client(p);
	/* What is queued leaves (a REJ, the last ACKs), and late frames still find the port open. */
	if (p->verbs.host)
		peer_drain(p, PEER_QUIET_MS);
	ct_exit_disconnect(p, &t);
	printf("test complete\n");
	printf("return status %d\n", ret);
	if (p->o.json)
		ct_json(p, &t, ret);
	ct_destroy_nodes(p, &t);
	p->cmatose = NULL;
	return ret ? CLI_ERR : CLI_OK;
}
