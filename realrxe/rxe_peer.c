/* SPDX-License-Identifier: MIT */
/*
 * rxe_peer: the test of `rocelab peer`, run through libibverbs, so that the
 * kernel's Soft-RoCE (rdma_rxe) is the other end. It is the guest half of
 * the interop tests (realrxe/): built on the host against Debian's
 * libibverbs-dev, run in the VM against Debian's libibverbs1 and rdma_rxe.
 *
 * It speaks cli/peer_exchange.c's exchange: ibv_rc_pingpong's "LID:QPN:PSN:GID"
 * lines and "done", then rocelab's 160-byte test line each way (what to do;
 * where the server's buffer is), and at the end the client's "fin" and the
 * server's verdict ("ok N" / "bad N"). And its data: byte i of a message is
 * i * 7 + 3; a WRITE lands in the server's buffer, a READ fetches it, atomic
 * work request i finds i in the server's counter. RC only: UD interop is
 * what ibv_ud_pingpong is for.
 *
 * It also makes the classic mistakes on purpose, for the pitfalls lab
 * (labs/12-pitfalls): --no-grh moves the QP to RTR without a GRH
 * (is_global = 0), --bad-rkey and --bad-va aim the client's RDMA work
 * requests at an R_Key or an address the server never gave. Then it prints
 * what libibverbs said, word for word: the errno of ibv_modify_qp(), each
 * completion's status (its enum name and ibv_wc_status_str()), and the
 * state the QP is left in.
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define RP_MSG_LEN 52 /* "0000:000000:000000:" + 32 hex digits + NUL, as ibv_rc_pingpong */
#define RP_OP_LEN 160
#define RP_RES_LEN 32
#define RP_RECVS 64
#define RP_BAD_RKEY_BITS 0xffu          /* --bad-rkey: the R_Key's low byte (rxe's key, beside the MR's index) inverted */
#define RP_BAD_VA_OFFSET (1u << 20)     /* --bad-va: 1 MiB past the address the server gave, out of its region */

enum rp_op { RP_SEND, RP_WRITE, RP_READ, RP_PINGPONG, RP_FETCH_ADD, RP_CMP_SWAP, RP_WRITE_IMM, RP_NOPS };

static const char *const rp_op_names[RP_NOPS] = { "send", "write", "read", "pingpong", "fetch-add", "cmp-swap", "write-imm" };

struct rp_dest {
	unsigned lid, qpn, psn;
	union ibv_gid gid;
};

struct rp {
	/* options */
	const char *dev_name;
	const char *server_addr; /* client: where the server is; NULL: we are the server */
	int gid_index, port, timeout_s;
	enum rp_op op;
	unsigned size, iters, window;
	unsigned mtu_bytes; /* -m: at most this path MTU; 0: the port's */
	bool no_grh;        /* --no-grh: the address vector without a GRH (is_global = 0) */
	bool bad_rkey;      /* --bad-rkey: the client's RDMA work requests carry another R_Key */
	bool bad_va;        /* --bad-va: ... and an address past the end of the server's buffer */
	unsigned bad_at;    /* --bad-at K: only work request K (1-based) aims wrong; 0: all */
	int retry_cnt;      /* --retry-cnt: the RC requester's retry count at RTS (IBA 9.7.6.1.3) */
	int rnr_retry;      /* --rnr-retry: how often it sends again after an RNR NAK; 7: for ever (IBA 9.7.5.2.8) */
	/* verbs */
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	enum ibv_mtu mtu;
	struct rp_dest me, them;
	uint64_t remote_va;
	uint32_t remote_rkey;
	/* the test */
	int tcp;
	time_t deadline;
	uint64_t posted, completed, received;
	bool data_ok;
};

static void rp_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void rp_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("rxe_peer: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The errno's name, as the kernel's source and the man pages spell it. */
static const char *rp_errno_name(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ENETUNREACH: return "ENETUNREACH";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENODEV: return "ENODEV";
	case ENOENT: return "ENOENT";
	case EAGAIN: return "EAGAIN";
	default: return "?";
	}
}

static uint8_t rp_pattern(size_t i)
{
	return (uint8_t)(i * 7 + 3);
}

static bool rp_check(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != rp_pattern(i))
			return false;
	return true;
}

/* ---- the TCP exchange ------------------------------------------------------------------------ */

static void rp_io(struct rp *r, void *buf, size_t n, bool wr, const char *what)
{
	uint8_t *b = buf;

	while (n) {
		ssize_t k = wr ? write(r->tcp, b, n) : read(r->tcp, b, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rp_fail("the other side went away while %s", what);
		b += k;
		n -= (size_t)k;
	}
}

static void rp_dest_fmt(const struct rp_dest *d, char msg[RP_MSG_LEN])
{
	char gid[33];

	for (int i = 0; i < 16; i++)
		snprintf(gid + 2 * i, 3, "%02x", d->gid.raw[i]);
	memset(msg, 0, RP_MSG_LEN);
	snprintf(msg, RP_MSG_LEN, "%04x:%06x:%06x:%s", d->lid, d->qpn, d->psn, gid);
}

static void rp_dest_parse(char msg[RP_MSG_LEN], struct rp_dest *d)
{
	char gid[33];
	unsigned b;

	msg[RP_MSG_LEN - 1] = '\0';
	if (sscanf(msg, "%x:%x:%x:%32s", &d->lid, &d->qpn, &d->psn, gid) != 4 || strlen(gid) != 32)
		rp_fail("the other side's connection message is not LID:QPN:PSN:GID: '%s'", msg);
	for (int i = 0; i < 16; i++) {
		if (sscanf(gid + 2 * i, "%2x", &b) != 1)
			rp_fail("bad GID in '%s'", msg);
		d->gid.raw[i] = (uint8_t)b;
	}
}

static void rp_op_fmt(const struct rp *r, char msg[RP_OP_LEN])
{
	memset(msg, 0, RP_OP_LEN);
	snprintf(msg, RP_OP_LEN, "rocelab op %s size %u iters %u mtu %u va %016" PRIx64 " rkey %08x transport rc",
		 rp_op_names[r->op], r->size, r->iters, (unsigned)r->mtu, (uint64_t)(uintptr_t)r->buf, r->mr->rkey);
}

static void rp_op_parse(struct rp *r, char msg[RP_OP_LEN])
{
	char op[16], tr[8];
	unsigned size, iters, mtu, rkey;
	uint64_t va;
	int i;

	msg[RP_OP_LEN - 1] = '\0';
	if (!strncmp(msg, "rocelab error: ", 15))
		rp_fail("%s", msg + 15);
	if (sscanf(msg, "rocelab op %15s size %u iters %u mtu %u va %" SCNx64 " rkey %x transport %7s", op, &size,
		   &iters, &mtu, &va, &rkey, tr) != 7)
		rp_fail("the other side's test line is not one rxe_peer knows: '%s'", msg);
	for (i = 0; i < RP_NOPS && strcmp(op, rp_op_names[i]); i++)
		;
	if (i == RP_NOPS || strcmp(tr, "rc") || !size || size > (1u << 30) || !iters || mtu < IBV_MTU_256 ||
	    mtu > IBV_MTU_4096)
		rp_fail("rxe_peer runs RC tests with a known op, size and MTU, not '%s'", msg);
	if (!r->server_addr) {
		r->op = (enum rp_op)i;
		r->size = size;
		r->iters = iters;
		if ((enum ibv_mtu)mtu < r->mtu)
			r->mtu = (enum ibv_mtu)mtu;
	}
	r->remote_va = va;
	r->remote_rkey = rkey;
}

static void rp_tcp_server(struct rp *r)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)r->port) };
	struct pollfd pf;
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1))
		rp_fail("cannot listen on TCP port %d: %s", r->port, strerror(errno));
	fprintf(stderr, "rxe_peer: waiting for a client on TCP port %d\n", r->port);
	pf.fd = ls;
	pf.events = POLLIN;
	if (poll(&pf, 1, r->timeout_s * 1000) != 1)
		rp_fail("no client came within %d s", r->timeout_s);
	r->tcp = accept(ls, NULL, NULL);
	close(ls);
	if (r->tcp < 0)
		rp_fail("accept: %s", strerror(errno));
}

/* The server may not listen yet: try again for a while, as a person would. */
static void rp_tcp_client(struct rp *r)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)r->port) };

	if (inet_pton(AF_INET, r->server_addr, &sa.sin_addr) != 1)
		rp_fail("'%s' is not an IPv4 address", r->server_addr);
	for (;;) {
		r->tcp = socket(AF_INET, SOCK_STREAM, 0);
		if (r->tcp < 0)
			rp_fail("socket: %s", strerror(errno));
		if (!connect(r->tcp, (struct sockaddr *)&sa, sizeof(sa)))
			return;
		if (errno != ECONNREFUSED || time(NULL) >= r->deadline)
			rp_fail("cannot connect to %s port %d: %s", r->server_addr, r->port, strerror(errno));
		close(r->tcp);
		usleep(200000);
	}
}

/* ---- verbs ----------------------------------------------------------------------------------- */

static void rp_open(struct rp *r)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;
	struct ibv_qp_init_attr ia;
	int i;

	if (!list)
		rp_fail("no RDMA devices: %s", strerror(errno));
	for (i = 0; list[i] && r->dev_name && strcmp(ibv_get_device_name(list[i]), r->dev_name); i++)
		;
	if (!list[i])
		rp_fail("no RDMA device %s (ibv_devices lists them)", r->dev_name ? r->dev_name : "at all");
	r->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!r->ctx || ibv_query_port(r->ctx, 1, &pa) || ibv_query_gid(r->ctx, 1, r->gid_index, &r->me.gid))
		rp_fail("cannot open the device, or query its port 1 and GID %d", r->gid_index);
	r->mtu = pa.active_mtu;
	for (enum ibv_mtu m = IBV_MTU_256; r->mtu_bytes && m <= IBV_MTU_4096; m++)
		if (128u << m == r->mtu_bytes && m < r->mtu)
			r->mtu = m;
	r->ch = ibv_create_comp_channel(r->ctx);
	r->pd = ibv_alloc_pd(r->ctx);
	r->cq = r->ch ? ibv_create_cq(r->ctx, 2 * (int)(r->window + RP_RECVS) + 16, NULL, r->ch, 0) : NULL;
	if (!r->pd || !r->cq)
		rp_fail("cannot allocate a PD, completion channel and CQ");
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = r->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 1;
	ia.cap.max_send_wr = r->window + 8;
	ia.cap.max_recv_wr = RP_RECVS + 8;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	r->qp = ibv_create_qp(r->pd, &ia);
	if (!r->qp)
		rp_fail("cannot create an RC QP: %s", strerror(errno));
	r->me.lid = pa.lid;
	r->me.qpn = r->qp->qp_num;
	r->me.psn = (unsigned)lrand48() & 0xffffff;
}

/*
 * The buffer, at the size the test needs: a message to send at 0 and room
 * for one received at size; the READ source and WRITE target are the first
 * size bytes; the atomic counter (server) or fetched values (client, a slot
 * per outstanding work request) the first 8 each.
 */
static bool rp_writes(const struct rp *r)
{
	return r->op == RP_WRITE || r->op == RP_WRITE_IMM;
}

static void rp_buffer(struct rp *r)
{
	bool sends = r->op == RP_SEND || r->op == RP_PINGPONG;
	bool atomic = r->op == RP_FETCH_ADD || r->op == RP_CMP_SWAP;

	r->buf_len = sends ? 2 * (size_t)r->size : atomic ? 8 * (size_t)r->window : r->size;
	if (posix_memalign((void **)&r->buf, 4096, r->buf_len))
		rp_fail("cannot allocate %zu bytes", r->buf_len);
	memset(r->buf, 0, r->buf_len);
	/* What a client sends or WRITEs, what a server's READ source holds or it answers with; the rest starts at 0. */
	if (r->server_addr ? r->op == RP_SEND || rp_writes(r) || r->op == RP_PINGPONG
			   : r->op == RP_READ || r->op == RP_PINGPONG)
		for (size_t i = 0; i < r->size && i < r->buf_len; i++)
			r->buf[i] = rp_pattern(i);
	r->mr = ibv_reg_mr(r->pd, r->buf, r->buf_len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	if (!r->mr)
		rp_fail("cannot register %zu bytes: %s", r->buf_len, strerror(errno));
}

/* RESET -> INIT -> RTR -> RTS with the other side's QPN, PSN and GID (IBA 10.3.1), as ibv_rc_pingpong. */
static void rp_connect(struct rp *r)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags =
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		rp_fail("Failed to modify QP to INIT: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = r->mtu;
	a.dest_qp_num = r->them.qpn;
	a.rq_psn = r->them.psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = !r->no_grh;
	a.ah_attr.grh.dgid = r->them.gid;
	a.ah_attr.grh.sgid_index = (uint8_t)r->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		rp_fail("Failed to modify QP to RTR: %s (errno %s; GID index %d, is_global %d)", strerror(errno),
			rp_errno_name(errno), r->gid_index, !r->no_grh);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = r->me.psn;
	a.timeout = 14;
	a.retry_cnt = (uint8_t)r->retry_cnt;
	a.rnr_retry = (uint8_t)r->rnr_retry;
	a.max_rd_atomic = 16;
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		rp_fail("Failed to modify QP to RTS: %s", strerror(errno));
}

static void rp_post_recv(struct rp *r)
{
	struct ibv_sge sge = { .addr = (uintptr_t)r->buf + r->size, .length = r->size, .lkey = r->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(r->qp, &wr, &bad))
		rp_fail("post_recv: %s", strerror(errno));
}

static void rp_post(struct rp *r, uint64_t id)
{
	static const enum ibv_wr_opcode ops[RP_NOPS] = { IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_SEND,
							 IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP,
							 IBV_WR_RDMA_WRITE_WITH_IMM };
	struct ibv_sge sge = { .addr = (uintptr_t)r->buf, .length = r->size, .lkey = r->mr->lkey };
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ops[r->op];
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = r->remote_va;
	wr.wr.rdma.rkey = r->remote_rkey;
	if (!r->bad_at || id + 1 == r->bad_at) {
		wr.wr.rdma.remote_addr += r->bad_va ? RP_BAD_VA_OFFSET : 0;
		wr.wr.rdma.rkey ^= r->bad_rkey ? RP_BAD_RKEY_BITS : 0;
	}
	if (r->op == RP_WRITE_IMM)
		wr.imm_data = htonl((uint32_t)id + 1); /* as rocelab peer: the message's number, from 1 */
	if (r->op == RP_FETCH_ADD || r->op == RP_CMP_SWAP) {
		/* As rocelab peer: work request i finds i; Fetch&Add adds 1, Compare&Swap swaps i for i + 1. */
		sge.addr = (uintptr_t)r->buf + (id % r->window) * 8;
		sge.length = 8;
		wr.wr.atomic.remote_addr = wr.wr.rdma.remote_addr;
		wr.wr.atomic.rkey = wr.wr.rdma.rkey;
		wr.wr.atomic.compare_add = r->op == RP_FETCH_ADD ? 1 : id;
		wr.wr.atomic.swap = id + 1;
	}
	if (ibv_post_send(r->qp, &wr, &bad))
		rp_fail("post_send %s: %s", rp_op_names[r->op], strerror(errno));
	r->posted++;
}

/*
 * Completions, waiting on the completion channel (the guest has one CPU: a
 * spinning poller would take it from rxe) and, if @fd >= 0, on @fd; *@fd_ready
 * says it became readable. 0 completions and not ready: the deadline passed.
 */
static int rp_wait(struct rp *r, struct ibv_wc *wc, int n, int fd, bool *fd_ready)
{
	struct pollfd pf[2] = { { .fd = r->ch->fd, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
	struct ibv_cq *cq;
	void *cq_ctx;
	int k;

	*fd_ready = false;
	while (time(NULL) < r->deadline) {
		if ((k = ibv_poll_cq(r->cq, n, wc)) != 0)
			return k;
		if (ibv_req_notify_cq(r->cq, 0))
			rp_fail("req_notify_cq failed");
		if ((k = ibv_poll_cq(r->cq, n, wc)) != 0)
			return k;
		if (poll(pf, fd >= 0 ? 2 : 1, 1000) <= 0)
			continue;
		if (pf[0].revents & POLLIN) {
			if (ibv_get_cq_event(r->ch, &cq, &cq_ctx))
				rp_fail("get_cq_event failed");
			ibv_ack_cq_events(cq, 1);
		}
		if (fd >= 0 && (pf[1].revents & (POLLIN | POLLHUP))) {
			*fd_ready = true;
			return ibv_poll_cq(r->cq, n, wc);
		}
	}
	return 0;
}

/* libibverbs' names, as a program's source spells them (enum ibv_wc_status, enum ibv_qp_state). */
static const char *const rp_wc_names[] = {
	[IBV_WC_SUCCESS] = "IBV_WC_SUCCESS", [IBV_WC_LOC_LEN_ERR] = "IBV_WC_LOC_LEN_ERR",
	[IBV_WC_LOC_QP_OP_ERR] = "IBV_WC_LOC_QP_OP_ERR", [IBV_WC_LOC_EEC_OP_ERR] = "IBV_WC_LOC_EEC_OP_ERR",
	[IBV_WC_LOC_PROT_ERR] = "IBV_WC_LOC_PROT_ERR", [IBV_WC_WR_FLUSH_ERR] = "IBV_WC_WR_FLUSH_ERR",
	[IBV_WC_MW_BIND_ERR] = "IBV_WC_MW_BIND_ERR", [IBV_WC_BAD_RESP_ERR] = "IBV_WC_BAD_RESP_ERR",
	[IBV_WC_LOC_ACCESS_ERR] = "IBV_WC_LOC_ACCESS_ERR", [IBV_WC_REM_INV_REQ_ERR] = "IBV_WC_REM_INV_REQ_ERR",
	[IBV_WC_REM_ACCESS_ERR] = "IBV_WC_REM_ACCESS_ERR", [IBV_WC_REM_OP_ERR] = "IBV_WC_REM_OP_ERR",
	[IBV_WC_RETRY_EXC_ERR] = "IBV_WC_RETRY_EXC_ERR", [IBV_WC_RNR_RETRY_EXC_ERR] = "IBV_WC_RNR_RETRY_EXC_ERR",
	[IBV_WC_LOC_RDD_VIOL_ERR] = "IBV_WC_LOC_RDD_VIOL_ERR", [IBV_WC_REM_INV_RD_REQ_ERR] = "IBV_WC_REM_INV_RD_REQ_ERR",
	[IBV_WC_REM_ABORT_ERR] = "IBV_WC_REM_ABORT_ERR", [IBV_WC_INV_EECN_ERR] = "IBV_WC_INV_EECN_ERR",
	[IBV_WC_INV_EEC_STATE_ERR] = "IBV_WC_INV_EEC_STATE_ERR", [IBV_WC_FATAL_ERR] = "IBV_WC_FATAL_ERR",
	[IBV_WC_RESP_TIMEOUT_ERR] = "IBV_WC_RESP_TIMEOUT_ERR", [IBV_WC_GENERAL_ERR] = "IBV_WC_GENERAL_ERR",
};
static const char *const rp_qps_names[] = {
	[IBV_QPS_RESET] = "IBV_QPS_RESET", [IBV_QPS_INIT] = "IBV_QPS_INIT", [IBV_QPS_RTR] = "IBV_QPS_RTR",
	[IBV_QPS_RTS] = "IBV_QPS_RTS", [IBV_QPS_SQD] = "IBV_QPS_SQD", [IBV_QPS_SQE] = "IBV_QPS_SQE",
	[IBV_QPS_ERR] = "IBV_QPS_ERR",
};

static const char *rp_wc_name(enum ibv_wc_status s)
{
	return (unsigned)s < sizeof(rp_wc_names) / sizeof(rp_wc_names[0]) && rp_wc_names[s] ? rp_wc_names[s] : "?";
}

static void rp_wc_print(const struct ibv_wc *wc)
{
	fprintf(stderr, "rxe_peer: work request %" PRIu64 " failed: %s (%s, vendor error 0x%x)\n", wc->wr_id,
		ibv_wc_status_str(wc->status), rp_wc_name(wc->status), wc->vendor_err);
}

/*
 * A completion in error: the QP is in the error state now (IBA 10.3.1), and
 * every work request still queued on it completes with a flush error. Say
 * so, one line each, then the QP's state, and stop.
 */
static void rp_wc_failed(struct rp *r, const struct ibv_wc *wc, int n)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct ibv_wc more[16];
	time_t end = time(NULL) + 2;
	unsigned flushed = 0;
	int k;

	for (int i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS) {
			rp_wc_print(&wc[i]);
			flushed += wc[i].status == IBV_WC_WR_FLUSH_ERR;
		}
	while (time(NULL) < end) {
		if ((k = ibv_poll_cq(r->cq, 16, more)) <= 0) {
			usleep(10000);
			continue;
		}
		for (int i = 0; i < k; i++) {
			rp_wc_print(&more[i]);
			flushed += more[i].status == IBV_WC_WR_FLUSH_ERR;
		}
	}
	if (!ibv_query_qp(r->qp, &qa, IBV_QP_STATE, &ia))
		fprintf(stderr, "rxe_peer: %u work request(s) flushed; the QP is in state %s\n", flushed,
			(unsigned)qa.qp_state < sizeof(rp_qps_names) / sizeof(rp_qps_names[0]) ? rp_qps_names[qa.qp_state]
												  : "?");
	exit(1);
}

static void rp_wc_ok(struct rp *r, const struct ibv_wc *wc, int n)
{
	for (int i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			rp_wc_failed(r, wc, n);
}

/* A received message: the size the test said, and the pattern. */
static bool rp_recv_ok(const struct rp *r, const struct ibv_wc *wc)
{
	return wc->byte_len == r->size && rp_check(r->buf + r->size, r->size);
}

/* ---- the two roles --------------------------------------------------------------------------- */

static void rp_serve(struct rp *r)
{
	struct ibv_wc wc[16];
	bool fin = false;
	char msg[RP_RES_LEN];
	uint64_t v;

	r->data_ok = true;
	while (!fin) {
		int n = rp_wait(r, wc, 16, r->tcp, &fin);

		if (!n && !fin)
			rp_fail("timed out with %" PRIu64 " messages received", r->received);
		rp_wc_ok(r, wc, n);
		for (int i = 0; i < n; i++) {
			if (wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
				/* A WRITE with immediate took a receive: its immediate numbers the WRITEs from 1, in order over RC. */
				r->data_ok &= (wc[i].wc_flags & IBV_WC_WITH_IMM) && ntohl(wc[i].imm_data) == r->received + 1;
				r->received++;
				rp_post_recv(r);
				continue;
			}
			if (wc[i].opcode != IBV_WC_RECV)
				continue;
			r->received++;
			r->data_ok &= rp_recv_ok(r, &wc[i]);
			rp_post_recv(r);
			if (r->op == RP_PINGPONG)
				rp_post(r, r->received);
		}
	}
	rp_io(r, msg, 4, false, "waiting for \"fin\"");
	if (memcmp(msg, "fin", 4))
		rp_fail("the client did not end with \"fin\"");
	if (rp_writes(r))
		r->data_ok &= rp_check(r->buf, r->size);
	if (r->op == RP_FETCH_ADD || r->op == RP_CMP_SWAP) {
		memcpy(&v, r->buf, 8);
		r->data_ok = v == r->iters;
	}
	if (r->op == RP_SEND || r->op == RP_PINGPONG || r->op == RP_WRITE_IMM)
		r->data_ok &= r->received == r->iters;
	memset(msg, 0, sizeof(msg));
	snprintf(msg, sizeof(msg), "%s %" PRIu64, r->data_ok ? "ok" : "bad", r->received);
	rp_io(r, msg, sizeof(msg), true, "sending the result");
	/* Stay until the client hangs up: its last ACKs may still be on the way. */
	while (read(r->tcp, msg, sizeof(msg)) > 0)
		;
	printf("rxe_peer: served %s: %" PRIu64 " messages received, data %s\n", rp_op_names[r->op], r->received,
	       r->data_ok ? "verified" : "WRONG");
}

/* Client: --window work requests outstanding until --iters complete (pingpong: one at a time, with its reply). */
static void rp_client(struct rp *r)
{
	struct ibv_wc wc[16];
	bool unused;
	uint64_t fetched, sends_done = 0;

	while (r->completed < r->iters) {
		unsigned window = r->op == RP_PINGPONG ? 1 : r->window;

		while (r->posted < r->iters && r->posted - r->completed < window)
			rp_post(r, r->posted);
		int n = rp_wait(r, wc, 16, -1, &unused);

		if (!n)
			rp_fail("timed out with %" PRIu64 " of %u done", r->completed, r->iters);
		rp_wc_ok(r, wc, n);
		for (int i = 0; i < n; i++) {
			if (r->op == RP_PINGPONG) {
				/* A round is done when the reply came (the SEND's own completion may come later). */
				if (wc[i].opcode != IBV_WC_RECV) {
					sends_done++;
					continue;
				}
				if (!rp_recv_ok(r, &wc[i]))
					rp_fail("message %" PRIu64 " came back changed", r->completed);
				rp_post_recv(r);
			}
			if (r->op == RP_FETCH_ADD || r->op == RP_CMP_SWAP) {
				memcpy(&fetched, r->buf + (wc[i].wr_id % r->window) * 8, 8);
				if (fetched != wc[i].wr_id)
					rp_fail("atomic %" PRIu64 " found %" PRIu64 " at the server", wc[i].wr_id, fetched);
			}
			r->completed++;
		}
	}
	while (r->op == RP_PINGPONG && sends_done < r->posted) {
		int n = rp_wait(r, wc, 16, -1, &unused);

		if (!n)
			rp_fail("timed out waiting for the last SENDs' ACKs");
		rp_wc_ok(r, wc, n);
		sends_done += (unsigned)n;
	}
	if (r->op == RP_READ && !rp_check(r->buf, r->size))
		rp_fail("the data READ back is not what the server holds");
}

static void rp_client_result(struct rp *r)
{
	char res[RP_RES_LEN];
	unsigned long long got;

	rp_io(r, "fin", 4, true, "sending \"fin\"");
	rp_io(r, res, sizeof(res), false, "waiting for the server's result");
	res[sizeof(res) - 1] = '\0';
	if (strncmp(res, "ok ", 3) || sscanf(res + 3, "%llu", &got) != 1)
		rp_fail("the server says the data it got is wrong: '%s'", res);
	printf("rxe_peer: %s done: %u work requests of %u bytes, server says '%s', data verified\n",
	       rp_op_names[r->op], r->iters, r->op == RP_FETCH_ADD || r->op == RP_CMP_SWAP ? 8 : r->size, res);
}

static void rp_run(struct rp *r)
{
	char msg[RP_MSG_LEN], theirs[RP_MSG_LEN], done[5], op[RP_OP_LEN];

	if (r->server_addr)
		rp_tcp_client(r);
	else
		rp_tcp_server(r);
	rp_open(r);
	rp_dest_fmt(&r->me, msg);
	if (r->server_addr) {
		/* We are the client of the TCP exchange: ours first. */
		rp_io(r, msg, sizeof(msg), true, "sending our address");
		rp_io(r, theirs, sizeof(theirs), false, "reading the server's address");
		rp_io(r, "done", 5, true, "sending \"done\"");
		rp_dest_parse(theirs, &r->them);
		rp_buffer(r);
		rp_op_fmt(r, op);
		rp_io(r, op, sizeof(op), true, "sending the test line");
		rp_io(r, op, sizeof(op), false, "reading the server's test line");
		rp_op_parse(r, op);
		rp_connect(r);
		if (r->op == RP_PINGPONG)
			rp_post_recv(r);
		rp_client(r);
		rp_client_result(r);
		return;
	}
	rp_io(r, theirs, sizeof(theirs), false, "reading the client's address");
	rp_dest_parse(theirs, &r->them);
	rp_io(r, msg, sizeof(msg), true, "sending our address");
	rp_io(r, done, sizeof(done), false, "reading \"done\"");
	if (memcmp(done, "done", 5))
		rp_fail("the client did not finish the exchange with \"done\"");
	rp_io(r, op, sizeof(op), false, "reading the test line");
	rp_op_parse(r, op);
	rp_buffer(r);
	rp_connect(r);
	for (int i = 0; i < RP_RECVS && (r->op == RP_SEND || r->op == RP_PINGPONG || r->op == RP_WRITE_IMM); i++)
		rp_post_recv(r);
	rp_op_fmt(r, op);
	rp_io(r, op, sizeof(op), true, "sending our test line");
	rp_serve(r);
}

static void rp_usage(FILE *f)
{
	fprintf(f, "usage: rxe_peer [options]            server: wait for `rocelab peer --client`\n"
		   "       rxe_peer [options] SERVER     client: run the test against `rocelab peer --server`\n"
		   "\n"
		   "rocelab peer's RC test (its exchange and data) through libibverbs, so that the kernel's\n"
		   "Soft-RoCE is one end. The data is checked on both sides.\n"
		   "\n"
		   "  -d DEV      RDMA device (default: the first)\n"
		   "  -g N        GID index (default 1: rxe's IPv4 address)\n"
		   "  -p PORT     TCP port of the exchange (default 18515)\n"
		   "  -o OP       client: send, write, write-imm, read, pingpong, fetch-add, cmp-swap (default send)\n"
		   "  -s BYTES    client: message size (default 4096)\n"
		   "  -n N        client: work requests (default 100)\n"
		   "  -w N        client: work requests outstanding (default 8)\n"
		   "  -m BYTES    client: path MTU 256..4096, at most the port's (default: the port's)\n"
		   "  -t SECONDS  give up after this long (default 60)\n"
		   "  -h          this help\n"
		   "\n"
		   "The classic mistakes, made on purpose (what libibverbs says is printed as it is):\n"
		   "  --no-grh    the RTR address vector without a GRH (is_global = 0): RoCE has no LIDs\n"
		   "  --bad-rkey  client: RDMA work requests with the server's R_Key, low byte inverted\n"
		   "  --bad-va    client: RDMA work requests 1 MiB past the server's address\n"
		   "  --bad-at K  client: only the Kth work request (1-based) aims wrong, as rocelab peer's\n"
		   "  --retry-cnt N  the QP's retry count, 0..7 (default 7, as ibv_rc_pingpong and perftest;\n"
		   "              rxe takes 7 as 'for ever': only a smaller one ends in IBV_WC_RETRY_EXC_ERR)\n"
		   "  --rnr-retry N  sends again after an RNR NAK, 0..7 (default 7: for ever, IBA 9.7.5.2.8);\n"
		   "              when they run out the work request ends in IBV_WC_RNR_RETRY_EXC_ERR\n");
}

int main(int argc, char **argv)
{
	struct rp r = { .gid_index = 1, .port = 18515, .timeout_s = 60, .size = 4096, .iters = 100, .window = 8,
			.retry_cnt = 7, .rnr_retry = 7, .tcp = -1 };
	static const struct option lo[] = {
		{ "no-grh", no_argument, NULL, 'G' }, { "bad-rkey", no_argument, NULL, 'K' },
		{ "bad-va", no_argument, NULL, 'V' }, { "retry-cnt", required_argument, NULL, 'R' },
		{ "rnr-retry", required_argument, NULL, 'N' }, { "bad-at", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c, i;

	while ((c = getopt_long(argc, argv, "d:g:p:o:s:n:w:m:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'G': r.no_grh = true; break;
		case 'K': r.bad_rkey = true; break;
		case 'V': r.bad_va = true; break;
		case 'R': r.retry_cnt = atoi(optarg); break;
		case 'N': r.rnr_retry = atoi(optarg); break;
		case 'A':
			r.bad_at = (unsigned)strtoul(optarg, NULL, 0);
			if (!r.bad_at)
				rp_fail("--bad-at %s: a work request's number, 1 for the first", optarg);
			break;
		case 'd': r.dev_name = optarg; break;
		case 'g': r.gid_index = atoi(optarg); break;
		case 'p': r.port = atoi(optarg); break;
		case 'o':
			for (i = 0; i < RP_NOPS && strcmp(optarg, rp_op_names[i]); i++)
				;
			if (i == RP_NOPS)
				rp_fail("unknown -o %s: send, write, write-imm, read, pingpong, fetch-add or cmp-swap", optarg);
			r.op = (enum rp_op)i;
			break;
		case 's': r.size = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'n': r.iters = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'w': r.window = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'm': r.mtu_bytes = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': r.timeout_s = atoi(optarg); break;
		case 'h': rp_usage(stdout); return 0;
		default: rp_usage(stderr); return 2;
		}
	}
	if (optind < argc)
		r.server_addr = argv[optind++];
	if (optind < argc || !r.size || !r.iters || !r.window || r.window > 256 || r.timeout_s <= 0 || r.gid_index < 0 ||
	    r.retry_cnt < 0 || r.retry_cnt > 7 || r.rnr_retry < 0 || r.rnr_retry > 7 ||
	    (r.mtu_bytes && (r.mtu_bytes < 256 || r.mtu_bytes > 4096 || (r.mtu_bytes & (r.mtu_bytes - 1))))) {
		rp_usage(stderr);
		return 2;
	}
	/* The server's op comes from the client; atomics are 8 bytes. */
	if (r.op == RP_FETCH_ADD || r.op == RP_CMP_SWAP)
		r.size = 8;
	srand48((long)time(NULL) ^ getpid());
	r.deadline = time(NULL) + r.timeout_s;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rp_run(&r);
	return 0;
}
