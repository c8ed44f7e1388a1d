/* SPDX-License-Identifier: MIT */
/*
 * rdma_example: the small client/server the RDMA tutorials have their readers
 * write, written again for rocelab's tests (`rocelab realrxe --add` compiles
 * it on the host and runs it in the VM against the kernel's Soft-RoCE).
 *
 *   rdma_example -s [-p PORT]              the server
 *   rdma_example [-p PORT] SERVER [TEXT]   the client
 *
 * The two connect through librdmacm (REQ, REP, RTU on the wire). The server
 * registers a buffer for remote WRITE and READ and tells the client where it
 * is in rdma_accept()'s private data, which travels in the CM's REP. The
 * client WRITEs TEXT into that buffer, READs it back into a buffer of its
 * own, compares the two and disconnects (DREQ, DREP). The server, whose CPU
 * took no part in either transfer, then prints what its buffer holds.
 *
 * The private data is 20 bytes, big-endian: "rlab", version 1, three zero
 * bytes, the buffer's address (8), its rkey (4). It is the layout of
 * `rocelab peer --server --cm`'s REP, so that rocelab can be the server.
 */
#define _DEFAULT_SOURCE
#include <endian.h>
#include <getopt.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define EX_PORT 20886
#define EX_BUF_SIZE 64         /* the server's buffer; the text and its NUL must fit */
#define EX_INFO_LEN 20         /* the private data in the REP */
#define EX_INFO_MAGIC "rlab"
#define EX_INFO_VERSION 1
#define EX_RESOLVE_MS 2000     /* rdma_resolve_addr() and rdma_resolve_route() */
#define EX_POLL_S 10           /* how long a work request may take */

struct ex {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen_id; /* server */
	struct rdma_cm_id *id;        /* the connection */
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char buf[2 * EX_BUF_SIZE];    /* client: what it writes, then what it reads back */
};

/* Wait for the next CM event, which must be @want; it is acknowledged unless @out takes it. */
static int ex_expect(struct ex *ex, enum rdma_cm_event_type want, struct rdma_cm_event **out)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ex->ec, &ev)) {
		perror("rdma_example: rdma_get_cm_event");
		return -1;
	}
	if (ev->event != want) {
		fprintf(stderr, "rdma_example: waited for %s, got %s (status %d)\n", rdma_event_str(want),
			rdma_event_str(ev->event), ev->status);
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (out)
		*out = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

/* The protection domain, the completion queue, the RC QP on @id, and @buf registered with @access. */
static int ex_setup(struct ex *ex, struct rdma_cm_id *id, void *buf, size_t len, int access)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};

	ex->pd = ibv_alloc_pd(id->verbs);
	ex->cq = ex->pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	if (!ex->cq) {
		perror("rdma_example: ibv_alloc_pd / ibv_create_cq");
		return -1;
	}
	qa.send_cq = qa.recv_cq = ex->cq;
	if (rdma_create_qp(id, ex->pd, &qa)) {
		perror("rdma_example: rdma_create_qp");
		return -1;
	}
	ex->mr = ibv_reg_mr(ex->pd, buf, len, access);
	if (!ex->mr) {
		perror("rdma_example: ibv_reg_mr");
		return -1;
	}
	return 0;
}

/* The connection parameters: one READ outstanding each way is all this needs. */
static void ex_conn_param(struct rdma_conn_param *cp, const void *pd, uint8_t len)
{
	memset(cp, 0, sizeof(*cp));
	cp->private_data = pd;
	cp->private_data_len = len;
	cp->responder_resources = 1;
	cp->initiator_depth = 1;
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
}

static void ex_close(struct ex *ex)
{
	if (ex->id && ex->id->qp)
		rdma_destroy_qp(ex->id);
	if (ex->mr)
		ibv_dereg_mr(ex->mr);
	if (ex->cq)
		ibv_destroy_cq(ex->cq);
	if (ex->pd)
		ibv_dealloc_pd(ex->pd);
	if (ex->id)
		rdma_destroy_id(ex->id);
	if (ex->listen_id)
		rdma_destroy_id(ex->listen_id);
	if (ex->ec)
		rdma_destroy_event_channel(ex->ec);
}

/* ---- the server ---------------------------------------------------------------------------- */

static void ex_info_fmt(uint8_t info[EX_INFO_LEN], uint64_t addr, uint32_t rkey)
{
	uint64_t a = htobe64(addr);
	uint32_t k = htobe32(rkey);

	memset(info, 0, EX_INFO_LEN);
	memcpy(info, EX_INFO_MAGIC, 4);
	info[4] = EX_INFO_VERSION;
	memcpy(info + 8, &a, 8);
	memcpy(info + 16, &k, 4);
}

/* Print what the client left in the buffer: text up to its NUL, or that there is none. */
static int ex_report(const char *buf)
{
	size_t n = strnlen(buf, EX_BUF_SIZE);

	if (n == 0 || n == EX_BUF_SIZE) {
		fprintf(stderr, "rdma_example: the buffer holds no text: did the client WRITE?\n");
		return -1;
	}
	printf("rdma_example: the client wrote \"%s\" into my buffer\n", buf);
	return 0;
}

static int ex_server(struct ex *ex, int port)
{
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct rdma_cm_event *ev;
	struct rdma_conn_param cp;
	uint8_t info[EX_INFO_LEN];

	if (rdma_create_id(ex->ec, &ex->listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(ex->listen_id, (struct sockaddr *)&any) || rdma_listen(ex->listen_id, 1)) {
		perror("rdma_example: cannot listen");
		return -1;
	}
	printf("rdma_example: listening on port %d\n", port);
	fflush(stdout);
	if (ex_expect(ex, RDMA_CM_EVENT_CONNECT_REQUEST, &ev))
		return -1;
	ex->id = ev->id;
	rdma_ack_cm_event(ev);
	/* Remote access: the client WRITEs into the buffer and READs from it. */
	if (ex_setup(ex, ex->id, ex->buf, EX_BUF_SIZE,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ))
		return -1;
	ex_info_fmt(info, (uintptr_t)ex->buf, ex->mr->rkey);
	ex_conn_param(&cp, info, sizeof(info));
	if (rdma_accept(ex->id, &cp)) {
		perror("rdma_example: rdma_accept");
		return -1;
	}
	if (ex_expect(ex, RDMA_CM_EVENT_ESTABLISHED, NULL))
		return -1;
	printf("rdma_example: connected; buffer at %#lx, rkey %#x\n", (unsigned long)(uintptr_t)ex->buf,
	       ex->mr->rkey);
	fflush(stdout);
	/* The client's DREQ says it is done; the DREP answers it. */
	if (ex_expect(ex, RDMA_CM_EVENT_DISCONNECTED, NULL))
		return -1;
	rdma_disconnect(ex->id);
	return ex_report(ex->buf);
}

/* ---- the client ---------------------------------------------------------------------------- */

/* Wait for the one completion of the work request just posted; it must have succeeded. */
static int ex_wait_wc(struct ex *ex, const char *what)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((n = ibv_poll_cq(ex->cq, 1, &wc)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > EX_POLL_S) {
			fprintf(stderr, "rdma_example: no completion of the %s in %d s\n", what, EX_POLL_S);
			return -1;
		}
	}
	if (n < 0) {
		fprintf(stderr, "rdma_example: ibv_poll_cq failed\n");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rdma_example: the %s failed: %s (%d)\n", what, ibv_wc_status_str(wc.status),
			wc.status);
		return -1;
	}
	return 0;
}

/* One RDMA WRITE or READ of @len bytes between @local and the server's buffer. */
static int ex_rdma(struct ex *ex, enum ibv_wr_opcode op, char *local, size_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)local, .length = (uint32_t)len, .lkey = ex->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op }, *bad;
	const char *what = op == IBV_WR_RDMA_WRITE ? "RDMA WRITE" : "RDMA READ";

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(ex->id->qp, &wr, &bad)) {
		perror("rdma_example: ibv_post_send");
		return -1;
	}
	return ex_wait_wc(ex, what);
}

static int ex_resolve(struct ex *ex, const char *server, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *ai;
	char service[8];
	int r;

	snprintf(service, sizeof(service), "%d", port);
	if ((r = getaddrinfo(server, service, &hints, &ai))) {
		fprintf(stderr, "rdma_example: %s: %s\n", server, gai_strerror(r));
		return -1;
	}
	r = rdma_resolve_addr(ex->id, NULL, ai->ai_addr, EX_RESOLVE_MS);
	freeaddrinfo(ai);
	if (r || ex_expect(ex, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) || rdma_resolve_route(ex->id, EX_RESOLVE_MS) ||
	    ex_expect(ex, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL)) {
		fprintf(stderr, "rdma_example: cannot find a route to %s\n", server);
		return -1;
	}
	return 0;
}

static int ex_client(struct ex *ex, const char *server, int port, const char *text)
{
	size_t len = strlen(text) + 1;
	char *out = ex->buf, *back = ex->buf + EX_BUF_SIZE;
	struct rdma_cm_event *ev;
	struct rdma_conn_param cp;
	uint64_t raddr, a;
	uint32_t rkey, k;
	const uint8_t *info;

	if (len > EX_BUF_SIZE) {
		fprintf(stderr, "rdma_example: the text must be shorter than %d bytes\n", EX_BUF_SIZE);
		return -1;
	}
	if (rdma_create_id(ex->ec, &ex->id, NULL, RDMA_PS_TCP)) {
		perror("rdma_example: rdma_create_id");
		return -1;
	}
	if (ex_resolve(ex, server, port) || ex_setup(ex, ex->id, ex->buf, sizeof(ex->buf), IBV_ACCESS_LOCAL_WRITE))
		return -1;
	ex_conn_param(&cp, NULL, 0);
	if (rdma_connect(ex->id, &cp)) {
		perror("rdma_example: rdma_connect");
		return -1;
	}
	if (ex_expect(ex, RDMA_CM_EVENT_ESTABLISHED, &ev))
		return -1;
	info = ev->param.conn.private_data;
	if (ev->param.conn.private_data_len < EX_INFO_LEN || memcmp(info, EX_INFO_MAGIC, 4) ||
	    info[4] != EX_INFO_VERSION) {
		fprintf(stderr, "rdma_example: the server's REP does not say where its buffer is\n");
		rdma_ack_cm_event(ev);
		return -1;
	}
	memcpy(&a, info + 8, 8);
	memcpy(&k, info + 16, 4);
	raddr = be64toh(a);
	rkey = be32toh(k);
	rdma_ack_cm_event(ev);
	printf("rdma_example: connected; the server's buffer is at %#llx, rkey %#x\n", (unsigned long long)raddr,
	       rkey);

	memcpy(out, text, len);
	if (ex_rdma(ex, IBV_WR_RDMA_WRITE, out, len, raddr, rkey))
		return -1;
	printf("rdma_example: WRITE of %zu bytes done\n", len);
	memset(back, 0, EX_BUF_SIZE);
	if (ex_rdma(ex, IBV_WR_RDMA_READ, back, len, raddr, rkey))
		return -1;
	if (memcmp(out, back, len)) {
		fprintf(stderr, "rdma_example: READ back \"%.*s\", not what was written\n", (int)len, back);
		return -1;
	}
	printf("rdma_example: READ back \"%s\": the same as written\n", back);
	if (rdma_disconnect(ex->id) || ex_expect(ex, RDMA_CM_EVENT_DISCONNECTED, NULL))
		return -1;
	return 0;
}

static void ex_usage(void)
{
	fprintf(stderr, "usage: rdma_example -s [-p PORT]              (server)\n"
			"       rdma_example [-p PORT] SERVER [TEXT]   (client; TEXT shorter than %d bytes)\n",
		EX_BUF_SIZE);
}

int main(int argc, char **argv)
{
	struct ex ex = { 0 };
	int c, port = EX_PORT, server = 0, r;

	while ((c = getopt(argc, argv, "sp:h")) != -1) {
		switch (c) {
		case 's':
			server = 1;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		default:
			ex_usage();
			return 2;
		}
	}
	if (port <= 0 || port > 65535 || (server ? optind != argc : optind >= argc || argc - optind > 2)) {
		ex_usage();
		return 2;
	}
	ex.ec = rdma_create_event_channel();
	if (!ex.ec) {
		perror("rdma_example: rdma_create_event_channel (is an RDMA device there? ibv_devices)");
		return 1;
	}
	if (server)
		r = ex_server(&ex, port);
	else
		r = ex_client(&ex, argv[optind], port, optind + 1 < argc ? argv[optind + 1] : "hello, RDMA");
	ex_close(&ex);
	return r ? 1 : 0;
}
