/* SPDX-License-Identifier: MIT */
/*
 * The path-level host API (rocelab/path.h): the ICRC over a path against
 * scapy's vectors and a ConnectX capture, the IPv4 Identification a raw
 * socket reports, and two ways in and out of a host that must agree byte
 * for byte (a whole frame, or a path and BTH..ICRC).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/* scapy's UC SEND Only, as an encoded frame; @v6 picks its IPv6 twin. */
static size_t scapy_frame(bool v6, uint8_t *buf, size_t cap)
{
	struct rl_pkt p;
	size_t n;

	tl_scapy_uc_send(&p, v6);
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, cap, &n), RL_OK);
	return n;
}

/* scapy's ICRCs (roce.uts and its IPv6 twin), from a path and BTH..ICRC alone. */
static void test_icrc_path_scapy(void)
{
	static const uint32_t want[2] = { 0x78f353f3, 0x3e5b743b };

	for (int v6 = 0; v6 < 2; v6++) {
		uint8_t buf[160];
		size_t n = scapy_frame(v6, buf, sizeof(buf)), bth = 14 + (v6 ? 40 : 20) + 8;
		struct rl_path path;

		tl_scapy_path(v6, &path);
		CU_ASSERT_EQUAL(rl_icrc_display(rl_icrc_path(&path, buf + bth, n - bth)), want[v6]);
		/* The variant fields do not count (IBA A17.3.3) ... */
		path.traffic_class ^= 0xfc;
		path.hop_limit = 1;
		path.flow_label ^= 0x5;
		CU_ASSERT_EQUAL(rl_icrc_display(rl_icrc_path(&path, buf + bth, n - bth)), want[v6]);
		/* ... the source port does, and so does the IPv4 Identification. */
		path.udp_sport++;
		CU_ASSERT_NOT_EQUAL(rl_icrc_display(rl_icrc_path(&path, buf + bth, n - bth)), want[v6]);
		path.udp_sport--;
		path.ip_id ^= 1;
		if (!v6)
			CU_ASSERT_NOT_EQUAL(rl_icrc_display(rl_icrc_path(&path, buf + bth, n - bth)), want[v6]);
	}
}

/* Over random packets of every opcode: the path's ICRC is the one in the frame. */
static void test_icrc_path_equals_frame(void)
{
	struct tl_rng r = { 0x9a7b };
	unsigned checked = 0;

	for (int op = 0; op < 256; op++) {
		for (int shape = 0; shape < 2; shape++) {
			uint8_t payload[512], buf[1024];
			struct rl_pkt p, d;
			struct rl_path path;
			size_t n;

			if (!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID))
				continue;
			tl_random_pkt(&r, (uint8_t)op, shape ? TL_ETH_V6 : TL_ETH_V4, &p, payload);
			if (rl_encode(&p, buf, sizeof(buf), &n) != RL_OK)
				continue;
			CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, buf, n, &d), RL_OK);
			CU_ASSERT_EQUAL_FATAL(rl_path_from_pkt(&d, &path), 0);
			CU_ASSERT_EQUAL(rl_icrc_path(&path, buf + d.bth_off, d.end_off - d.bth_off), d.icrc);
			checked++;
		}
	}
	CU_ASSERT(checked > 100);
}

/* The headers a path stands for decode back to the path (and report the length they were given). */
static void test_path_hdr_decodes(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		uint8_t buf[160], raw[160];
		size_t n = scapy_frame(v6, buf, sizeof(buf)), bth = 14 + (v6 ? 40 : 20) + 8, h;
		struct rl_path path, back;
		struct rl_pkt d;

		tl_scapy_path(v6, &path);
		h = rl_path_hdr(&path, n - bth, raw);
		CU_ASSERT_EQUAL_FATAL(h, v6 ? 48u : 28u);
		CU_ASSERT_EQUAL(h, rl_path_hdr_len(&path));
		memcpy(raw + h, buf + bth, n - bth);
		CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_RAW, raw, h + n - bth, &d), RL_OK);
		CU_ASSERT_TRUE(d.icrc_ok);
		CU_ASSERT_EQUAL(d.end_off, h + n - bth);
		CU_ASSERT_EQUAL(rl_path_from_pkt(&d, &back), 0);
		CU_ASSERT_EQUAL(memcmp(&back, &path, sizeof(path)), 0);
		/* The frame's own IP and UDP bytes, but for the checksums (variant, 0 here). */
		if (!v6) {
			CU_ASSERT_EQUAL(memcmp(raw, buf + 14, 10), 0);
			CU_ASSERT_EQUAL(memcmp(raw + 12, buf + 14 + 12, 14), 0);
		} else {
			CU_ASSERT_EQUAL(memcmp(raw, buf + 14, 46), 0);
		}
	}
	/* Two families in one path, or more than an IP packet holds: no headers. */
	{
		struct rl_path mixed;
		uint8_t out[RL_PATH_HDR_MAX];

		tl_scapy_path(false, &mixed);
		inet_pton(AF_INET6, "2023::1024", mixed.dgid);
		CU_ASSERT_EQUAL(rl_path_hdr(&mixed, 100, out), 0);
		tl_scapy_path(true, &mixed);
		CU_ASSERT_EQUAL(rl_path_hdr(&mixed, 70000, out), 0);
	}
}

/* ---- a host, both ways in ----------------------------------------------------------------------- */


static void pt_drop_emit(void *ctx, const uint8_t *frame, size_t len)
{
	(void)ctx;
	(void)frame;
	(void)len;
}

static void pt_drop_emit_pkt(void *ctx, const struct rl_path *path, const uint8_t *pkt, size_t len)
{
	(void)ctx;
	(void)path;
	(void)pkt;
	(void)len;
}

/* 10.0.18.1 with QP 0x118, the CNP's destination. */
static struct rl_host *pt_cnp_host(struct rl_qp **qp)
{
	struct rl_host_config hc = { .emit = pt_drop_emit, .first_qpn = 0x118 };
	uint8_t ip[4] = { 10, 0, 18, 1 };
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .max_send_wr = 4, .max_recv_wr = 4 };
	struct rl_host *h;

	rl_gid_from_ipv4(hc.gid, ip);
	h = rl_host_new(&hc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	ia.send_cq = ia.recv_cq = rl_create_cq(h, 8);
	*qp = rl_create_qp(rl_alloc_pd(h), &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*qp);
	CU_ASSERT_EQUAL_FATAL(rl_qp_num(*qp), 0x118);
	return h;
}

/* The real Identification is accepted, 0 in its place is an ICRC error, as with the whole frame. */
static void test_read_pkt_ip_id(void)
{
	uint8_t ref[128];
	size_t rn = tl_hex(tl_cnp_cx4, ref, sizeof(ref));
	struct rl_qp_stats st;
	struct rl_path path;
	struct rl_qp *qp;
	struct rl_host *h = pt_cnp_host(&qp);

	CU_ASSERT_EQUAL_FATAL(rn, 14 + 60);
	tl_cnp_cx4_path(&path);
	CU_ASSERT_EQUAL(rl_icrc_display(rl_icrc_path(&path, ref + TL_CNP_CX4_BTH, rn - TL_CNP_CX4_BTH)), 0x82fd002a);

	CU_ASSERT_EQUAL(rl_host_recv(h, ref, rn, 1000), 0);
	CU_ASSERT_EQUAL(rl_host_read_pkt(h, &path, ref + TL_CNP_CX4_BTH, rn - TL_CNP_CX4_BTH, 2000), 0);
	rl_qp_stats(qp, &st);
	CU_ASSERT_EQUAL(st.cnps_recv, 2);
	CU_ASSERT_EQUAL(st.icrc_drops, 0);

	/* What a UDP socket would report: DF and Identification 0. */
	path.ip_id = 0;
	CU_ASSERT_EQUAL(rl_host_read_pkt(h, &path, ref + TL_CNP_CX4_BTH, rn - TL_CNP_CX4_BTH, 3000), -EBADMSG);
	/* DF is covered too. */
	path.ip_id = 0x718c;
	path.ip_df = false;
	CU_ASSERT_EQUAL(rl_host_read_pkt(h, &path, ref + TL_CNP_CX4_BTH, rn - TL_CNP_CX4_BTH, 4000), -EBADMSG);
	rl_qp_stats(qp, &st);
	CU_ASSERT_EQUAL(st.cnps_recv, 2);
	CU_ASSERT_EQUAL(st.icrc_drops, 2);

	/* Not for this host; a path of two families; a packet no frame could hold. */
	tl_cnp_cx4_path(&path);
	path.dgid[15] = 2;
	CU_ASSERT_EQUAL(rl_host_read_pkt(h, &path, ref + TL_CNP_CX4_BTH, rn - TL_CNP_CX4_BTH, 5000), -EADDRNOTAVAIL);
	tl_cnp_cx4_path(&path);
	inet_pton(AF_INET6, "fd00::1", path.sgid);
	CU_ASSERT_EQUAL(rl_host_read_pkt(h, &path, ref + TL_CNP_CX4_BTH, rn - TL_CNP_CX4_BTH, 5000), -EBADMSG);
	{
		uint8_t *big = calloc(1, 70000);

		tl_cnp_cx4_path(&path);
		CU_ASSERT_PTR_NOT_NULL_FATAL(big);
		CU_ASSERT_EQUAL(rl_host_read_pkt(h, &path, big, 70000, 5000), -EMSGSIZE);
		free(big);
	}
	rl_host_free(h);
}

/* A host sends one way or the other: a frame (emit) or a path (emit_pkt), never both or neither. */
static void test_host_wants_one_emit(void)
{
	struct rl_host_config hc = { .emit = pt_drop_emit, .emit_pkt = pt_drop_emit_pkt };
	struct rl_host *h;

	CU_ASSERT_PTR_NULL(rl_host_new(&hc));
	hc.emit = NULL;
	hc.emit_pkt = NULL;
	CU_ASSERT_PTR_NULL(rl_host_new(&hc));
	hc.emit_pkt = pt_drop_emit_pkt;
	h = rl_host_new(&hc);
	CU_ASSERT_PTR_NOT_NULL(h);
	rl_host_free(h);
}

/* ---- two hosts, run once with frames and once with paths ---------------------------------------- */

#define PT_MEM 16384
#define PT_MAX_PKTS 256

struct pt_sent {
	int from;
	struct rl_path path;
	size_t len;
	uint8_t bytes[1200];      /* BTH..ICRC */
	size_t frame_len;         /* emit: the whole frame, as it was sent */
	uint8_t frame[1300];
};

struct pt_net {
	bool by_path;
	struct rl_host *host[2];
	struct rl_qp *qp[2];
	struct rl_cq *cq[2];
	struct rl_mr *mr[2];
	uint8_t mem[2][PT_MEM];
	struct pt_sent sent[PT_MAX_PKTS];
	size_t nsent, next;
	uint64_t now;
};

struct pt_port {
	struct pt_net *net;
	int idx;
};

static struct pt_port pt_ports[2];

static struct pt_sent *pt_record(struct pt_net *n, int from)
{
	CU_ASSERT_FATAL(n->nsent < PT_MAX_PKTS);
	n->sent[n->nsent].from = from;
	return &n->sent[n->nsent++];
}

/* A frame out: recorded as the path and BTH..ICRC the decoder finds in it. */
static void pt_emit(void *ctx, const uint8_t *frame, size_t len)
{
	struct pt_port *port = ctx;
	struct pt_sent *s = pt_record(port->net, port->idx);
	struct rl_pkt d;

	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, frame, len, &d), RL_OK);
	CU_ASSERT_EQUAL_FATAL(rl_path_from_pkt(&d, &s->path), 0);
	s->len = d.end_off - d.bth_off;
	CU_ASSERT_FATAL(s->len <= sizeof(s->bytes));
	memcpy(s->bytes, frame + d.bth_off, s->len);
	CU_ASSERT_FATAL(len <= sizeof(s->frame));
	memcpy(s->frame, frame, len);
	s->frame_len = len;
}

static void pt_emit_pkt(void *ctx, const struct rl_path *path, const uint8_t *pkt, size_t len)
{
	struct pt_port *port = ctx;
	struct pt_sent *s = pt_record(port->net, port->idx);

	s->path = *path;
	s->len = len;
	CU_ASSERT_FATAL(len <= sizeof(s->bytes));
	memcpy(s->bytes, pkt, len);
}

/* Connect end @i's RC QP to the other end's, through the core's one ladder. */
static void pt_connect(struct pt_net *n, int i)
{
	uint8_t ip[4] = { 10, 0, 0, (uint8_t)(2 - i) };
	struct rl_conn c;

	rl_conn_defaults(&c);
	rl_gid_from_ipv4(c.gid, ip);
	c.qpn = rl_qp_num(n->qp[!i]);
	c.psn = c.sq_psn = 100;
	c.traffic_class = 0x03 * (uint8_t)i;  /* B marks its packets ECN CE: A answers with CNPs */
	c.access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ;
	c.min_rnr_timer = 0;
	c.max_rd_atomic = c.max_dest_rd_atomic = 4;
	CU_ASSERT_EQUAL_FATAL(rl_qp_connect(n->qp[i], &c), 0);
}

static void pt_setup(struct pt_net *n, bool by_path)
{
	memset(n, 0, sizeof(*n));
	n->by_path = by_path;
	n->now = 1000000;
	for (int i = 0; i < 2; i++) {
		struct rl_host_config hc = { .mac = { 2, 0, 0, 0, 0, (uint8_t)(i + 1) }, .ctx = &pt_ports[i] };
		struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .max_send_wr = 16, .max_recv_wr = 16 };
		uint8_t ip[4] = { 10, 0, 0, (uint8_t)(i + 1) };
		struct rl_pd *pd;

		pt_ports[i] = (struct pt_port){ n, i };
		if (by_path)
			hc.emit_pkt = pt_emit_pkt;
		else
			hc.emit = pt_emit;
		rl_gid_from_ipv4(hc.gid, ip);
		n->host[i] = rl_host_new(&hc);
		CU_ASSERT_PTR_NOT_NULL_FATAL(n->host[i]);
		pd = rl_alloc_pd(n->host[i]);
		n->cq[i] = rl_create_cq(n->host[i], 64);
		n->mr[i] = rl_reg_mr_iova(pd, n->mem[i], PT_MEM, 0x10000,
					  RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ);
		CU_ASSERT_PTR_NOT_NULL_FATAL(n->mr[i]);
		ia.send_cq = ia.recv_cq = n->cq[i];
		n->qp[i] = rl_create_qp(pd, &ia);
		CU_ASSERT_PTR_NOT_NULL_FATAL(n->qp[i]);
		for (int k = 0; k < PT_MEM; k++)
			n->mem[i][k] = (uint8_t)(k * 13 + i * 101);
	}
	pt_connect(n, 0);
	pt_connect(n, 1);
}

/* Deliver what was sent, in order, the way the test's mode says; the host runs after each. */
static void pt_run(struct pt_net *n)
{
	for (int i = 0; i < 2; i++)
		rl_host_run(n->host[i], n->now);
	while (n->next < n->nsent) {
		const struct pt_sent *s = &n->sent[n->next++];
		struct rl_host *to = n->host[!s->from];
		int r;

		n->now += 1000;
		if (n->by_path)
			r = rl_host_read_pkt(to, &s->path, s->bytes, s->len, n->now);
		else
			r = rl_host_recv(to, s->frame, s->frame_len, n->now);
		CU_ASSERT_EQUAL(r, 0);
		rl_host_run(to, n->now);
	}
}

static void pt_post(struct pt_net *n, int i, enum rl_wr_opcode op, uint32_t off, uint32_t len, uint64_t id)
{
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.num_sge = 1;
	wr.sg_list[0].addr = 0x10000 + off;
	wr.sg_list[0].length = len;
	wr.sg_list[0].lkey = rl_mr_lkey(n->mr[i]);
	wr.send_flags = RL_SEND_SIGNALED;
	wr.rdma.remote_addr = 0x10000 + off + 8192;
	wr.rdma.rkey = rl_mr_rkey(n->mr[!i]);
	CU_ASSERT_EQUAL_FATAL(rl_post_send(n->qp[i], &wr), 0);
}

/* The same work twice: every packet sent, its path and bytes, and the memory at the end agree. */
static void test_frame_and_path_agree(void)
{
	static struct pt_net net[2];
	struct rl_wc wc[2][16];	/* A's completions, then B's */
	int nwc[2];

	for (int mode = 0; mode < 2; mode++) {
		struct pt_net *n = &net[mode];
		struct rl_recv_wr rwr;

		pt_setup(n, mode);
		memset(&rwr, 0, sizeof(rwr));
		rwr.num_sge = 1;
		rwr.sg_list[0].addr = 0x10000 + 12000;
		rwr.sg_list[0].length = 2000;
		rwr.sg_list[0].lkey = rl_mr_lkey(n->mr[1]);
		CU_ASSERT_EQUAL_FATAL(rl_post_recv(n->qp[1], &rwr), 0);
		pt_post(n, 0, RL_WR_RDMA_WRITE, 0, 3000, 1);      /* A writes 3 packets into B */
		pt_post(n, 0, RL_WR_SEND, 100, 1500, 2);          /* A sends 2 packets to B */
		pt_post(n, 1, RL_WR_RDMA_READ, 200, 2500, 3);     /* B reads 3 packets from A, marked CE */
		pt_run(n);
		nwc[mode] = rl_poll_cq(n->cq[0], 8, wc[mode]) + rl_poll_cq(n->cq[1], 8, wc[mode] + 8);
	}
	CU_ASSERT_EQUAL(nwc[0], 4);
	CU_ASSERT_EQUAL(nwc[1], nwc[0]);
	CU_ASSERT_EQUAL_FATAL(net[1].nsent, net[0].nsent);
	CU_ASSERT(net[0].nsent >= 3 + 2 + 3 + 3);          /* requests, ACKs, READ responses, CNPs */
	for (size_t k = 0; k < net[0].nsent; k++) {
		const struct pt_sent *f = &net[0].sent[k], *p = &net[1].sent[k];

		CU_ASSERT_EQUAL(f->from, p->from);
		CU_ASSERT_EQUAL(memcmp(&f->path, &p->path, sizeof(f->path)), 0);
		CU_ASSERT_EQUAL_FATAL(f->len, p->len);
		CU_ASSERT_EQUAL(memcmp(f->bytes, p->bytes, f->len), 0);
		/* What went out by path carries the ICRC of its path. */
		CU_ASSERT_EQUAL(rl_icrc_path(&p->path, p->bytes, p->len),
				(uint32_t)p->bytes[p->len - 4] | (uint32_t)p->bytes[p->len - 3] << 8 |
					(uint32_t)p->bytes[p->len - 2] << 16 | (uint32_t)p->bytes[p->len - 1] << 24);
	}
	for (int i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(memcmp(net[0].mem[i], net[1].mem[i], PT_MEM), 0);
	/* And the work did happen: B holds A's bytes where they were written, sent and read. */
	CU_ASSERT_EQUAL(memcmp(net[1].mem[1] + 8192, net[1].mem[0], 3000), 0);
	CU_ASSERT_EQUAL(memcmp(net[1].mem[1] + 12000, net[1].mem[0] + 100, 1500), 0);
	CU_ASSERT_EQUAL(memcmp(net[1].mem[1] + 200, net[1].mem[0] + 200 + 8192, 2500), 0);
	{
		struct rl_qp_stats st;

		rl_qp_stats(net[1].qp[0], &st);
		CU_ASSERT(st.cnps_sent >= 1);
	}
	for (int mode = 0; mode < 2; mode++)
		for (int i = 0; i < 2; i++)
			rl_host_free(net[mode].host[i]);
}

int tl_suite_path(void)
{
	CU_pSuite s = CU_add_suite("path", NULL, NULL);

	return !s || !CU_add_test(s, "ICRC over a path = scapy's, IPv4 and IPv6", test_icrc_path_scapy) ||
	       !CU_add_test(s, "ICRC over a path = the frame's, every opcode", test_icrc_path_equals_frame) ||
	       !CU_add_test(s, "a path's headers decode back to the path", test_path_hdr_decodes) ||
	       !CU_add_test(s, "read_pkt: ConnectX's IP ID passes, 0 fails the ICRC", test_read_pkt_ip_id) ||
	       !CU_add_test(s, "a host has one emit callback", test_host_wants_one_emit) ||
	       !CU_add_test(s, "frames and paths: same packets, same memory", test_frame_and_path_agree);
}
