/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer, the test: the verbs objects, the QP's connection, and the
 * loops that post work, let the host run and poll completions. Packets
 * reach the host through peer_wire.c as a path and BTH..ICRC.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "peer.h"

/* UC: after the client's "fin", the server takes frames until the wire is this long quiet. */
#define PEER_FIN_QUIET_NS 50000000u

const char *peer_transport(const struct peer_opts *o, bool upper)
{
	return o->ud ? (upper ? "UD" : "ud") : o->uc ? (upper ? "UC" : "uc") : (upper ? "RC" : "rc");
}

bool peer_unreliable(const struct peer_opts *o)
{
	return o->ud || o->uc;
}

bool peer_transport_op_ok(const struct peer_opts *o, enum peer_op op)
{
	if (!o->uc || op == PEER_SEND || peer_writes(op) || op == PEER_PINGPONG)
		return true;
	cli_error("peer", "--transport uc carries SEND and RDMA WRITE only: a UC QP gets no responses (IBA 9.8.3), "
		  "so it has no RDMA READ and no atomics (--op %s); use --op send, write or pingpong, or -t rc",
		  peer_op_names[op]);
	return false;
}

/*
 * 64 bits from the kernel's random source, never 0: what makes R_Keys and
 * addresses unguessable to whoever did not take part in the exchange
 * (--seed, which a user may give, is for the loss pattern only).
 */
static uint64_t peer_random(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = peer_now() ^ ((uint64_t)getpid() << 32);
	return v ? v : 1;
}

/*
 * Where the buffer is, remotely: a page-aligned address drawn at each
 * registration, anywhere a user-space buffer could be (below 2^47), as the
 * kernel's registrations take the buffer's own, randomised, address.
 */
static uint64_t peer_random_va(void)
{
	return (peer_random() & PEER_VA_MASK) | PEER_VA_MIN;
}

/*
 * The transport's events for the test's QP: why it went to the error state,
 * and the last NAK it sent, for peer_qp_report(). The text is copied: the
 * event's own lives only as long as the call.
 */
static void peer_event(void *ctx, const struct rl_event *ev)
{
	struct peer *p = ctx;

	if (!p->verbs.qp || ev->qpn != rl_qp_num(p->verbs.qp))
		return;
	if (ev->type == RL_EV_QP_STATE && ev->value == RL_QPS_ERR && !p->stat.err_why[0])
		snprintf(p->stat.err_why, sizeof(p->stat.err_why), "%s", ev->text ? ev->text : "");
	else if (ev->type == RL_EV_NAK_SENT)
		p->stat.last_nak = (uint8_t)ev->value;
}

/* The host; it sends through peer_wire.c as path + BTH..ICRC. */
int peer_host_new(struct peer *p)
{
	struct rl_host_config hc = { .emit_pkt = peer_emit, .ctx = p, .key_seed = peer_random() };

	peer_addr_to_gid(&p->net.local, hc.gid);
	/* The port's MTU: a UD message must fit it (IBA: one packet per UD message). */
	hc.active_mtu = p->o.mtu;
	hc.first_qpn = p->o.qpn;
	hc.event = peer_event;
	p->verbs.host = rl_host_new(&hc);
	memcpy(p->conn.me.gid, hc.gid, 16);
	return p->verbs.host ? 0 : -1;
}

/* The pacer's burst (PEER_PACER_BURST_NS): the host's clock is the real one, and this process may wake late. */
static uint32_t peer_burst(const struct peer_opts *o)
{
	uint64_t b = o->rate_bps / 8 * PEER_PACER_BURST_NS / 1000000000u;

	return b > PEER_PACER_BURST_MIN ? (uint32_t)(b < UINT32_MAX ? b : UINT32_MAX) : PEER_PACER_BURST_MIN;
}

/* The host, PD, CQ and QP. */
int peer_setup(struct peer *p)
{
	struct rl_qp_init_attr ia = { .qp_type = p->o.ud ? RL_QPT_UD : p->o.uc ? RL_QPT_UC : RL_QPT_RC };
	uint32_t depth = p->o.window + 8;

	if (peer_unreliable(&p->o) || p->o.compat)
		depth += 512; /* datagrams are not flow controlled: keep receives posted ahead (the tools: 500) */
	if (peer_host_new(p))
		return -1;
	p->verbs.pd = rl_alloc_pd(p->verbs.host);
	p->verbs.cq = p->verbs.host ? rl_create_cq(p->verbs.host, (int)(2 * depth + 64)) : NULL;
	if (!p->verbs.pd || !p->verbs.cq)
		return -1;
	ia.send_cq = ia.recv_cq = p->verbs.cq;
	ia.max_send_wr = p->o.window + 8;
	ia.max_recv_wr = depth;
	ia.sq_sig_all = p->o.cq_mod <= 1; /* -Q N: each work request says (IBV_SEND_SIGNALED) */
	ia.cc = (struct rl_qp_cc){ .algo = p->o.cc, .rate_limit_bps = p->o.rate_bps, .max_burst_bytes = peer_burst(&p->o),
				   .cnp_interval_ns = p->o.cnp_interval_ns, .dcqcn = p->o.dcqcn_set ? &p->o.dcqcn : NULL };
	p->verbs.qp = rl_create_qp(p->verbs.pd, &ia);
	if (!p->verbs.qp)
		return -1;
	p->conn.me.qpn = rl_qp_num(p->verbs.qp);
	p->conn.me.psn = (uint32_t)(p->o.seed * 0x9e3779b97f4a7c15u >> 40);
	return 0;
}

/*
 * The buffer. Ours: what is sent at 0, what arrives at size (UD: after the
 * 40-byte GRH area). The pingpong tools': one message-sized buffer that is
 * sent from and received into (UD: the GRH area first, then the message).
 */
static size_t peer_send_off(const struct peer *p)
{
	return p->o.compat && p->o.ud ? PEER_UD_GRH : 0;
}

static size_t peer_recv_off(const struct peer *p)
{
	return p->o.compat ? 0 : p->o.size;
}

static size_t peer_data_off(const struct peer *p)
{
	return peer_recv_off(p) + (p->o.ud ? PEER_UD_GRH : 0);
}

int peer_buffer(struct peer *p)
{
	int access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ | RL_ACCESS_REMOTE_ATOMIC;
	/* A WRITE or atomic target, and where a READ lands, start at 0: what arrives there is then checked. */
	bool target = p->o.server ? peer_writes(p->o.op) || peer_atomic(p->o.op) : p->o.op == PEER_READ;

	free(p->verbs.buf);
	if (p->o.compat)
		p->verbs.buf_len = p->o.size + (p->o.ud ? PEER_UD_GRH : 0);
	else if (peer_sends(p->o.op))
		p->verbs.buf_len = (size_t)p->o.size * 2 + (p->o.ud ? PEER_UD_GRH : 0);
	else if (peer_atomic(p->o.op) && !p->o.server)
		p->verbs.buf_len = 8 * (size_t)p->o.window; /* a slot per outstanding atomic for the value fetched */
	else
		p->verbs.buf_len = p->o.size;
	p->verbs.buf = malloc(p->verbs.buf_len);
	if (!p->verbs.buf)
		return -1;
	memset(p->verbs.buf, p->o.compat ? 0x7b : 0, p->verbs.buf_len);
	for (size_t i = 0; !target && i < p->o.size && peer_send_off(p) + i < p->verbs.buf_len; i++)
		if (!p->o.compat || !p->o.server)
			p->verbs.buf[peer_send_off(p) + i] = peer_pattern(p, i);
	if (p->verbs.mr)
		rl_dereg_mr(p->verbs.mr);
	p->verbs.mr = rl_reg_mr_iova(p->verbs.pd, p->verbs.buf, p->verbs.buf_len, peer_random_va(), (unsigned)access);
	return p->verbs.mr ? 0 : -1;
}

/* perftest's choices (rl_conn_defaults()), then --retry-cnt, --rnr-retry, --min-rnr-timer and -u. */
static void peer_conn_attrs(const struct peer *p, struct rl_conn *c)
{
	rl_conn_defaults(c);
	if (p->o.retry_set)
		c->retry_cnt = p->o.retry_cnt;
	if (p->o.rnr_retry_set)
		c->rnr_retry = p->o.rnr_retry;
	if (p->o.rnr_timer_set)
		c->min_rnr_timer = p->o.min_rnr_timer;
	if (p->o.qp_timeout_set)
		c->timeout = p->o.qp_timeout;
}

unsigned peer_quiet_ms(const struct peer *p)
{
	struct rl_conn c;
	uint64_t two = 0;

	peer_conn_attrs(p, &c);
	/* Two local ACK timeouts of 4.096 us * 2^timeout (IBA 9.7.6.1.3); 0 is none at all. */
	if (c.timeout)
		two = (8192ull << c.timeout) / 1000000u;
	return two > PEER_QUIET_MS ? (unsigned)(two < 2000 ? two : 2000) : PEER_QUIET_MS;
}

/*
 * The one place peer moves its QP through RESET -> INIT -> RTR -> RTS: the
 * core's rl_qp_connect() with perftest's choices (rl_conn_defaults()) and
 * what the exchange told each side. UD names its peer in every work request,
 * so only RC takes the other side's QPN, PSN and GID here.
 */
int peer_connect_qp(struct peer *p)
{
	struct rl_conn c;

	if (rl_qp_state(p->verbs.qp) == RL_QPS_RTS)
		return 0;
	if (p->o.no_grh && !p->o.ud) {
		/*
		 * RoCE has no LIDs: an RC address vector without a GRH names no
		 * destination. The kernel's ib_modify_qp() refuses it with EINVAL
		 * (checked in the realrxe VM); the core's address vector always has
		 * a GID, so the refusal is made here, with the kernel's words.
		 */
		cli_error("peer", "Failed to modify QP to RTR: Invalid argument (--no-grh: is_global = 0, an address "
			  "vector without a GRH; RoCE routes by GID and has no LIDs, so the kernel answers EINVAL)");
		return -1;
	}
	peer_conn_attrs(p, &c);
	c.qkey = PEER_QKEY;
	c.sq_psn = p->conn.me.psn;
	c.traffic_class = peer_traffic_class(&p->o);
	if (!p->o.ud) {
		c.qpn = p->conn.them.qpn;
		c.psn = p->conn.them.psn;
		memcpy(c.gid, p->conn.them.gid, 16);
		c.udp_sport = p->net.sport;
		c.path_mtu = p->o.mtu;
	}
	if (rl_qp_connect(p->verbs.qp, &c)) {
		cli_error("peer", "cannot connect the QP: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	p->stat.t_up = peer_now();
	p->stat.recvs_held = p->o.server && p->o.recv_delay_ms; /* --recv-delay: none posted until then */
	return 0;
}

/* ---- the test loop ------------------------------------------------------------------------------- */

/*
 * Let the host work and send, then wait for packets (peer_receive() hands
 * each to the host and runs it) or for @fd (if >= 0) until the host's next
 * timer; true if @fd is readable.
 */
/* The host (and its CM agent, whose sends the host then carries) as of @now, and out with what they sent. */
static void peer_run_host(struct peer *p, uint64_t now)
{
	if (!p->verbs.host)
		return;
	rl_host_run(p->verbs.host, now);
	if (p->cm.agent) {
		peer_cm_run(p, now);
		rl_host_run(p->verbs.host, now);
	}
	peer_flush(p);
}

/* The first timer of the host and its CM agent; UINT64_MAX if none. */
static uint64_t peer_next_timer(const struct peer *p)
{
	uint64_t next = p->verbs.host ? rl_host_next_timer(p->verbs.host) : UINT64_MAX, cm;

	if (p->cm.agent && (cm = rl_cm_agent_next_timer(p->cm.agent)) < next)
		next = cm;
	return next;
}

bool peer_pump(struct peer *p, int fd)
{
	struct pollfd pf[2] = { { .fd = p->net.rx, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
	uint64_t now = peer_now(), next, wait;
	struct timespec ts;

	peer_run_host(p, now);
	peer_progress(p, now);
	if (p->o.busy_poll) {
		bool readable = false;

		/* No poll() at all while spinning, but a look at @fd now and then. */
		if (fd >= 0 && !(++p->stat.spins & 255)) {
			struct pollfd t = { .fd = fd, .events = POLLIN };

			readable = poll(&t, 1, 0) > 0 && (t.revents & (POLLIN | POLLHUP));
		}
		peer_receive(p, peer_now());
		if (p->cm.agent)
			peer_run_host(p, peer_now());
		return readable;
	}
	next = peer_next_timer(p);
	if ((p->verbs.cq && rl_cq_pending(p->verbs.cq)) || p->cm.nev)
		wait = 0;
	else if (next == UINT64_MAX || next > now + PEER_IDLE_WAIT_NS)
		wait = PEER_IDLE_WAIT_NS;
	else
		wait = next > now ? next - now : 0;
	if (peer_unreliable(&p->o) && wait > PEER_UNRELIABLE_WAIT_NS)
		wait = PEER_UNRELIABLE_WAIT_NS;
	ts.tv_sec = (time_t)(wait / 1000000000u);
	ts.tv_nsec = (long)(wait % 1000000000u);
	if (ppoll(pf, fd >= 0 ? 2 : 1, &ts, NULL) > 0 && (pf[0].revents & POLLIN)) {
		peer_receive(p, peer_now());
		/* What arrived for QP1 becomes the CM's answers and events now, not at the next round. */
		if (p->cm.agent)
			peer_run_host(p, peer_now());
	}
	return fd >= 0 && (pf[1].revents & (POLLIN | POLLHUP));
}

/* --timeout after the start (with -D: after the test's own time). */
static bool peer_expired(const struct peer *p)
{
	return peer_now() - p->stat.t_start > ((uint64_t)p->o.timeout_s + p->o.duration_s) * 1000000000u;
}

/* Does this round go on after @n messages: --iters of them, or with -D until its time is up? */
static bool peer_round_more(const struct peer *p, uint64_t n)
{
	if (p->o.duration_s)
		return peer_now() - p->stat.t_start < (uint64_t)p->o.duration_s * 1000000000u;
	return n < p->o.iters;
}

/* Room for one more entry in a growing array (-D: the count is not known before); false if none. */
static bool peer_grow(void **a, size_t *cap, size_t n, size_t elem)
{
	size_t want = *cap ? *cap * 2 : 1024;
	void *b;

	if (n < *cap)
		return true;
	if (!(b = realloc(*a, want * elem)))
		return false;
	*a = b;
	*cap = want;
	return true;
}

static bool peer_wc_ok(const struct rl_wc *wc);

/* One pump, counting the SENDs that completed (for when no message is expected). */
static void peer_reap_sends(struct peer *p)
{
	struct rl_wc wc[8];

	peer_pump(p, -1);
	for (int n = peer_poll_cq(p, 8, wc), i = 0; i < n; i++)
		p->stat.sends_done += peer_wc_ok(&wc[i]) && wc[i].opcode != RL_WC_RECV;
}

/*
 * Wait (at most 2 s) until every SEND this side posted is acknowledged: once
 * the other side has gone, nothing of ours may still be resent to its closed
 * port (the kernel would answer with ICMP port unreachable).
 */
static void peer_settle(struct peer *p)
{
	uint64_t start = peer_now();

	while (p->stat.sends_done < p->stat.posted && peer_now() - start < 2000000000ull && !p->stat.errors)
		peer_reap_sends(p);
}

/*
 * Keep answering until the wire is quiet for @quiet_ms (at most 2 s): a late
 * retransmission or ACK must find a socket on 4791, or the kernel would answer
 * it with ICMP port unreachable.
 */
void peer_drain(struct peer *p, unsigned quiet_ms)
{
	uint64_t start = peer_now(), last = start, seen = p->stat.recv_frames;

	while (peer_now() - last < quiet_ms * 1000000ull && peer_now() - start < 2000000000ull) {
		peer_pump(p, -1);
		if (p->stat.recv_frames != seen) {
			seen = p->stat.recv_frames;
			last = peer_now();
		}
	}
	peer_flush(p);
}

/*
 * -Q N: is work request @id of this round one to complete? Every N-th, and
 * the round's last (its completion ends the round), as perftest's cq_mod.
 */
static bool peer_signaled(const struct peer *p, uint64_t id)
{
	uint64_t n = id - p->stat.round_first + 1;

	return p->o.cq_mod <= 1 || n % p->o.cq_mod == 0 || (!p->o.duration_s && n == p->o.iters);
}

static int peer_post(struct peer *p, enum rl_wr_opcode op, uint64_t id)
{
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.num_sge = 1;
	wr.sg_list[0].addr = rl_mr_iova(p->verbs.mr) + peer_send_off(p);
	wr.sg_list[0].length = peer_msg_len(p);
	wr.sg_list[0].lkey = rl_mr_lkey(p->verbs.mr);
	wr.send_flags = peer_signaled(p, id) ? RL_SEND_SIGNALED : 0;
	wr.rdma.remote_addr = p->conn.remote_va;
	wr.rdma.rkey = p->conn.remote_rkey;
	if (!p->o.bad_at || id + 1 == p->o.bad_at) {
		wr.rdma.remote_addr += p->o.va_offset;
		wr.rdma.rkey ^= p->o.bad_rkey ? PEER_BAD_RKEY_BITS : 0;
	}
	if (p->o.ud) {
		memcpy(wr.ud.dgid, p->conn.them.gid, 16);
		wr.ud.remote_qpn = p->conn.them.qpn;
		wr.ud.remote_qkey = p->conn.qkey;
	}
	/* The immediate numbers the message from 1, for the server to check the order they complete in. */
	if (op == RL_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = (uint32_t)id + 1;
	if (op == RL_WR_ATOMIC_FETCH_AND_ADD || op == RL_WR_ATOMIC_CMP_AND_SWP) {
		/*
		 * The server's counter starts at 0 and atomics run in PSN order, so
		 * work request i finds i there: Fetch&Add adds 1, Compare&Swap
		 * replaces i with i + 1. A resent atomic must not run twice
		 * (a duplicate atomic is answered from the result the responder saved).
		 */
		wr.sg_list[0].addr = rl_mr_iova(p->verbs.mr) + (id % p->o.window) * 8;
		wr.sg_list[0].length = 8;
		wr.atomic.remote_addr = wr.rdma.remote_addr;
		wr.atomic.rkey = wr.rdma.rkey;
		wr.atomic.compare_add = op == RL_WR_ATOMIC_FETCH_AND_ADD ? 1 : id;
		wr.atomic.swap = id + 1;
	}
	if (rl_post_send(p->verbs.qp, &wr)) {
		cli_error("peer", "post_send: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	p->stat.posted++;
	return 0;
}

/* How many receives this side keeps posted, if it receives SENDs at all. */
static uint32_t peer_recv_depth(const struct peer *p)
{
	if (!peer_receives(p->o.op) || (!p->o.server && p->o.op != PEER_PINGPONG))
		return 0;
	if (p->o.server && (p->o.no_recv || p->stat.recvs_held))
		return 0; /* --no-recv, --recv-delay: a SEND finds none and is answered with an RNR NAK */
	return p->o.window + 4 + (peer_unreliable(&p->o) || p->o.compat ? 512 : 0);
}

static int peer_post_recv(struct peer *p)
{
	struct rl_recv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = p->stat.recvs_posted;
	/* A WRITE with immediate puts no data in the receive: it needs the WQE only (without one: RNR NAK, IBA 9.7.5.2.8). */
	wr.num_sge = p->o.op == PEER_WRITE_IMM ? 0 : 1;
	wr.sg_list[0].addr = rl_mr_iova(p->verbs.mr) + peer_recv_off(p);
	wr.sg_list[0].length = p->o.size + (p->o.ud ? PEER_UD_GRH : 0);
	wr.sg_list[0].lkey = rl_mr_lkey(p->verbs.mr);
	if (rl_post_recv(p->verbs.qp, &wr)) {
		cli_error("peer", "post_recv: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	p->stat.recvs_posted++;
	return 0;
}

/* @completed receives finished: post new ones up to the depth, as ibv_rc_pingpong's rx_depth. */
int peer_post_recvs(struct peer *p, uint32_t completed)
{
	p->stat.recvs_out -= completed;
	while (p->stat.recvs_out < peer_recv_depth(p)) {
		if (peer_post_recv(p))
			return -1;
		p->stat.recvs_out++;
	}
	return 0;
}

static bool peer_wc_ok(const struct rl_wc *wc)
{
	return wc->status == RL_WC_SUCCESS;
}

/*
 * One completion as a libibverbs program prints it: ibv_wc_status's name
 * and number (the first failure also in ibv_wc_status_str()'s words). The
 * flushes that follow a failure are alike: the first is shown, the rest counted.
 */
static void peer_wc_tell(struct peer *p, const struct rl_wc *wc)
{
	const char *what = "completion";
	FILE *out;

	p->stat.wcs++;
	if (wc->status != RL_WC_SUCCESS) {
		if (!p->stat.errors++)
			cli_error("peer", "work request %" PRIu64 " failed: %s", wc->wr_id, rl_wc_status_str(wc->status));
		if (wc->status != RL_WC_WR_FLUSH_ERR && !p->stat.first_err.status)
			p->stat.first_err = *wc;
		if (wc->status == RL_WC_WR_FLUSH_ERR && p->stat.flushed++ && !p->o.show_wc)
			return;
		what = "completion error";
	} else if (!p->o.show_wc) {
		return;
	}
	out = wc->status ? stderr : stdout;
	fprintf(out, "%s%s: %s (%d), wr_id %" PRIu64 ", opcode %s, qp %#x", wc->status ? "rocelab peer: " : "", what,
		rl_wc_status_name(wc->status), (int)wc->status, wc->wr_id, rl_wc_opcode_name(wc->opcode), wc->qp_num);
	if (wc->status == RL_WC_SUCCESS && (wc->opcode & RL_WC_RECV))
		fprintf(out, ", byte_len %u", wc->byte_len);
	if (wc->wc_flags & RL_WC_WITH_IMM)
		fprintf(out, ", imm_data 0x%08x", wc->imm_data);
	fputc('\n', out);
}

int peer_poll_cq(struct peer *p, int n, struct rl_wc *wc)
{
	int got = rl_poll_cq(p->verbs.cq, n, wc);

	for (int i = 0; i < got; i++)
		peer_wc_tell(p, &wc[i]);
	return got;
}

void peer_wc_finish(struct peer *p)
{
	struct rl_wc wc[32];

	if (!p->verbs.cq)
		return;
	while (peer_poll_cq(p, 32, wc) > 0)
		;
	if (p->stat.flushed > 1 && !p->o.show_wc)
		cli_error("peer", "... and %" PRIu64 " more IBV_WC_WR_FLUSH_ERR", p->stat.flushed - 1);
	peer_qp_report(p);
}

/* What the RNR NAKs said: how many, and the timer they asked the requester to wait (IBA 9.7.5.2.8). */
static void peer_rnr_report(const struct peer *p, const struct rl_qp_stats *st)
{
	struct rl_conn c;

	peer_conn_attrs(p, &c);
	if (st->rnr_naks_sent)
		printf(" RNR NAKs sent: %" PRIu64 " (a SEND found no receive WQE posted; min_rnr_timer %u asked the "
		       "requester to wait %.2f ms; an RNR NAK leaves the QP in IBV_QPS_RTS)\n", st->rnr_naks_sent,
		       c.min_rnr_timer, rl_rnr_timer_us(c.min_rnr_timer) / 1000.0);
	if (st->rnr_naks_recv)
		printf(" RNR NAKs received: %" PRIu64 " (rnr_retry %u: %s)\n", st->rnr_naks_recv, c.rnr_retry,
		       c.rnr_retry == 7 ? "retried for ever" : "that many retries, then IBV_WC_RNR_RETRY_EXC_ERR");
}

void peer_qp_report(const struct peer *p)
{
	struct rl_qp_stats st;
	char nak[96];

	if (!p->verbs.qp || p->o.json)
		return;
	rl_qp_stats(p->verbs.qp, &st);
	peer_rnr_report(p, &st);
	if (rl_qp_state(p->verbs.qp) != RL_QPS_ERR)
		return;
	nak[0] = '\0';
	if (p->stat.last_nak && rl_syndrome_type(p->stat.last_nak) == RL_AETH_NAK)
		rl_describe_syndrome(p->stat.last_nak, nak, sizeof(nak));
	if (nak[0])
		printf(" QP %#x is in IBV_QPS_ERR: %s (this side answered with %s; IBA 9.9.3.1: the responder's QP "
		       "goes to the error state)\n", rl_qp_num(p->verbs.qp), p->stat.err_why, nak);
	else
		printf(" QP %#x is in IBV_QPS_ERR: %s (IBA 9.9.2: a failed work request takes the requester's QP there; "
		       "the ones behind it are flushed)\n", rl_qp_num(p->verbs.qp), p->stat.err_why[0] ? p->stat.err_why : "an error");
}

/* A received message: the size the test said, and the data the other side sends. */
static bool peer_recv_ok(const struct peer *p, const struct rl_wc *wc)
{
	uint32_t want = peer_msg_len(p) + (p->o.ud ? PEER_UD_GRH : 0);

	return wc->byte_len == want && peer_check(p, p->verbs.buf + peer_data_off(p), peer_msg_len(p));
}

/*
 * Client, bandwidth: keep --window work requests outstanding until --iters
 * complete (-D: post until its time is up, then let the last complete). A
 * round's work requests are numbered on from the last round's.
 */
static int peer_client_bw(struct peer *p, uint64_t **stamps, size_t *cap)
{
	static const enum rl_wr_opcode ops[PEER_NOPS] = { RL_WR_SEND, RL_WR_RDMA_WRITE, RL_WR_RDMA_READ, RL_WR_SEND,
							  RL_WR_ATOMIC_FETCH_AND_ADD, RL_WR_ATOMIC_CMP_AND_SWP,
							  RL_WR_RDMA_WRITE_WITH_IMM };
	enum rl_wr_opcode op = ops[p->o.op];
	uint64_t fetched, first = p->stat.posted;
	struct rl_wc wc[32];

	p->stat.round_done = 0;
	p->stat.round_first = first;
	p->stat.t_start = peer_now();
	while (!p->stat.errors) {
		while (peer_round_more(p, p->stat.posted - first) &&
		       p->stat.posted - first - p->stat.round_done < p->o.window)
			if (peer_post(p, op, p->stat.posted))
				return -1;
		if (p->stat.round_done == p->stat.posted - first)
			break; /* nothing outstanding, nothing more to post */
		peer_pump(p, -1);
		for (int n = peer_poll_cq(p, 32, wc), i = 0; i < n; i++) {
			if (!peer_wc_ok(&wc[i]))
				break;
			if (peer_atomic(p->o.op)) {
				memcpy(&fetched, p->verbs.buf + (wc[i].wr_id % p->o.window) * 8, 8);
				if (fetched != wc[i].wr_id) {
					cli_error("peer", "atomic %" PRIu64 " found %" PRIu64 " at the server, not %" PRIu64,
						  wc[i].wr_id, fetched, wc[i].wr_id);
					return -1;
				}
			}
			/* -Q: one completion stands for every work request since the last (a send queue completes in order). */
			for (uint64_t upto = wc[i].wr_id - first + 1; p->stat.round_done < upto;) {
				if (!peer_grow((void **)stamps, cap, p->stat.round_done, sizeof(**stamps))) {
					cli_error("peer", "out of memory");
					return -1;
				}
				(*stamps)[p->stat.round_done++] = peer_now();
				p->stat.completed++;
			}
		}
		if (peer_expired(p)) {
			cli_error("peer", "timed out after %u s with %" PRIu64 " of %u done (--timeout)", p->o.timeout_s,
				  p->stat.round_done, p->o.iters);
			return -1;
		}
	}
	p->stat.t_end = peer_now();
	if (p->stat.errors)
		return -1;
	if (p->o.op == PEER_READ && !peer_check(p, p->verbs.buf, peer_msg_len(p))) {
		cli_error("peer", "the data READ back is not what the server holds");
		return -1;
	}
	return 0;
}

/*
 * Client, latency: SEND, wait for the other side's SEND back. As ib_send_lat,
 * a round ends when the reply arrives: the ACK of our SEND completes it on
 * its own time (at most --window SENDs wait for theirs). With --compat
 * pingpong a round also waits for that completion, as ibv_rc_pingpong does.
 * Over UD and UC nothing is resent: a reply that does not come within
 * PEER_UD_WAIT_NS is counted lost and the next round starts.
 */
static int peer_client_lat(struct peer *p)
{
	struct rl_wc wc[8];

	p->stat.nlat = 0;
	p->stat.round_done = 0;
	p->stat.t_start = peer_now();
	for (uint32_t it = 0; peer_round_more(p, it); it++) {
		bool got = false, sent = false;
		uint64_t t0;

		/* A slot per round so far: each reply answers one SEND, a late one (UD) in a later round. */
		if (!peer_grow((void **)&p->stat.lat_us, &p->stat.lat_cap, it, sizeof(double))) {
			cli_error("peer", "out of memory");
			return -1;
		}
		while (p->stat.posted - p->stat.sends_done >= p->o.window && !p->stat.errors && !peer_expired(p))
			peer_reap_sends(p);
		t0 = peer_now();   /* the round trip, not the wait for a free send slot */
		if (peer_post(p, RL_WR_SEND, it))
			return -1;
		while (!(got && (sent || !p->o.compat)) && !p->stat.errors) {
			peer_pump(p, -1);
			for (int n = peer_poll_cq(p, 8, wc), i = 0; i < n; i++) {
				if (!peer_wc_ok(&wc[i]))
					break;
				if (wc[i].opcode != RL_WC_RECV) {
					sent = true;
					p->stat.sends_done++;
					continue;
				}
				got = true;
				/* Half the round trip, as perftest's send_lat reports it. */
				p->stat.lat_us[p->stat.nlat++] = (double)(peer_now() - t0) / 2000.0;
				if (!peer_recv_ok(p, &wc[i])) {
					cli_error("peer", "message %u came back changed", it);
					return -1;
				}
				if (peer_post_recvs(p, 1))
					return -1;
			}
			if (peer_unreliable(&p->o) && sent && !got && peer_now() - t0 > PEER_UD_WAIT_NS) {
				p->stat.lost++;
				break;
			}
			if (peer_expired(p)) {
				cli_error("peer", "timed out after %u s at message %u of %u (--timeout)", p->o.timeout_s, it,
					  p->o.iters);
				return -1;
			}
		}
		if (p->stat.errors)
			return -1;
		p->stat.completed++;
		p->stat.round_done++;
	}
	p->stat.t_end = peer_now();
	peer_settle(p);
	if (!p->stat.nlat) {
		cli_error("peer", "no reply came back in %" PRIu64 " rounds", p->stat.round_done);
		return -1;
	}
	return 0;
}

/*
 * A WRITE with immediate completed at the server: its data is in the buffer
 * (checked at the end, as a WRITE's), the receive it took is posted again.
 * Over RC the WRITEs complete in order, so the immediate, the client's work
 * request number, counts them; UC may have dropped some (IBA 9.8.3).
 */
static int peer_serve_write_imm(struct peer *p, const struct rl_wc *wc, bool *data_ok)
{
	if (!(wc->wc_flags & RL_WC_WITH_IMM) || wc->byte_len != peer_msg_len(p) ||
	    (!p->o.uc && wc->imm_data != (uint32_t)p->stat.completed + 1))
		*data_ok = false;
	p->stat.completed++;
	return peer_post_recvs(p, 1);
}

/* One completion at the server: a message to check (and, for pingpong, answer) or a reply sent. */
static int peer_serve_wc(struct peer *p, const struct rl_wc *wc, bool *data_ok)
{
	/* A failed work request (a reply's retries used up, say) ends the test now, with its reason said. */
	if (!peer_wc_ok(wc))
		return -1;
	if (wc->opcode == RL_WC_RECV_RDMA_WITH_IMM)
		return peer_serve_write_imm(p, wc, data_ok);
	if (wc->opcode != RL_WC_RECV) {
		p->stat.sends_done++;
		return 0;
	}
	p->stat.completed++;
	/* -a: the client sends each size in turn; a reply (pingpong) is as long as what came. */
	if (p->o.all_sizes && wc->byte_len > (p->o.ud ? PEER_UD_GRH : 0u))
		p->stat.len = wc->byte_len - (p->o.ud ? PEER_UD_GRH : 0u);
	if (!peer_recv_ok(p, wc))
		*data_ok = false;
	if (peer_post_recvs(p, 1) || (p->o.op == PEER_PINGPONG && peer_post(p, RL_WR_SEND, p->stat.completed)))
		return -1;
	return 0;
}

/*
 * UC at the server: the responder's own count of what arrived (a WRITE
 * completes nothing here), and of the messages it dropped whole after one
 * of their packets was lost (IBA 9.8.3).
 */
static void peer_uc_count(struct peer *p)
{
	struct rl_qp_stats st;

	rl_qp_stats(p->verbs.qp, &st);
	if (peer_writes(p->o.op))
		p->stat.completed = st.msgs_recv;
	p->stat.msgs_discarded = st.msgs_discarded;
	p->stat.pkts_discarded = st.pkts_discarded;
}

/* The replies the server sends: one per message in a pingpong. */
static uint64_t peer_replies(const struct peer *p)
{
	return p->o.op == PEER_PINGPONG ? p->o.iters : 0;
}

/* --cm: has the client's DREQ come (DISCONNECTED)? Other events (ESTABLISHED) need nothing. */
static bool peer_cm_hangup(struct peer *p)
{
	struct rl_rdma_cm_event *ev;
	bool gone = false;

	while ((ev = peer_cm_event(p))) {
		gone |= ev->event == RL_RDMA_CM_EVENT_DISCONNECTED;
		rl_rdma_ack_cm_event(ev);
	}
	return gone;
}

/* --recv-delay: is it time to post the receives held back since RTS? */
static bool peer_recvs_due(struct peer *p)
{
	if (!p->stat.recvs_held || peer_now() - p->stat.t_up < p->o.recv_delay_ms * 1000000ull)
		return false;
	p->stat.recvs_held = false;
	return true;
}

/*
 * Server: answer until the client says it is finished (with --compat
 * pingpong, until every round is done, as the tools count them); verify what
 * was written or sent.
 */
static int peer_serve(struct peer *p, bool *data_ok)
{
	struct rl_wc wc[32];
	uint64_t last = peer_now(), seen = 0, fin_at = 0, frames = 0;
	int n;

	*data_ok = true;
	p->stat.t_start = peer_now();
	for (;;) {
		if (peer_recvs_due(p) && peer_post_recvs(p, 0))
			return -1;
		if (peer_pump(p, p->o.compat || p->o.cm || fin_at ? -1 : p->net.tcp)) {
			if (!p->o.uc)
				break;
			/* UC: the client's "fin" may overtake frames still queued here; take them first. */
			fin_at = peer_now();
			frames = p->stat.recv_frames;
		}
		/* Every completion before the next batch of frames, so that receives are posted again in time. */
		while ((n = peer_poll_cq(p, 32, wc)) > 0)
			for (int i = 0; i < n; i++)
				if (peer_serve_wc(p, &wc[i], data_ok))
					return -1;
		if (p->stat.completed != seen) {
			seen = p->stat.completed;
			last = peer_now();
		}
		if (fin_at && p->stat.recv_frames != frames) {
			frames = p->stat.recv_frames;
			fin_at = peer_now();
		}
		if (fin_at && peer_now() - fin_at > PEER_FIN_QUIET_NS)
			break;
		/* --cm over RC: the client's DREQ ends the test (every message before it is in the CQ). */
		if (p->o.cm && !p->o.ud && peer_cm_hangup(p))
			break;
		/* No end of test on the wire: every message counted (UD, UC: or the wire quiet for a second). */
		if ((p->o.compat || (p->o.cm && p->o.ud)) &&
		    ((p->stat.completed == p->o.iters && p->stat.sends_done >= peer_replies(p)) ||
		     (peer_unreliable(&p->o) && seen && peer_now() - last > 1000000000u)))
			break;
		/* -a: a long test of many sizes; the client is gone only when nothing comes for --timeout. */
		if (p->o.all_sizes ? peer_now() - last > (uint64_t)p->o.timeout_s * 1000000000u : peer_expired(p)) {
			cli_error("peer", "timed out after %u s (--timeout) with %" PRIu64 " of %u messages received and %"
				  PRIu64 " replies done: the client never finished", p->o.timeout_s, p->stat.completed, p->o.iters,
				  p->stat.sends_done);
			return -1;
		}
	}
	p->stat.t_end = peer_now();
	if (!p->o.compat && !p->o.cm && !peer_client_finished(p)) {
		cli_error("peer", "the client went away before the end of the test");
		return -1;
	}
	if (p->o.uc)
		peer_uc_count(p);
	if (peer_writes(p->o.op))
		*data_ok = *data_ok && peer_check(p, p->verbs.buf, p->o.size) && (!p->o.uc || p->stat.completed);
	if (peer_atomic(p->o.op)) {
		uint64_t v;

		memcpy(&v, p->verbs.buf, 8);
		/* -D: the client counts; the counter is how many ran, told back as the messages received. */
		if (p->o.duration_s)
			p->stat.completed = v;
		else
			*data_ok = v == p->o.iters;
	}
	/* RC delivers every message (-D: the client checks the count); UD and UC what the wire (and --loss) let through. */
	if (peer_sends(p->o.op) &&
	    (peer_unreliable(&p->o) || p->o.duration_s ? !p->stat.completed : p->stat.completed != p->o.iters))
		*data_ok = false;
	return 0;
}

void peer_close(struct peer *p)
{
	peer_cm_close(p);
	if (p->verbs.qp)
		rl_destroy_qp(p->verbs.qp);
	if (p->verbs.mr)
		rl_dereg_mr(p->verbs.mr);
	if (p->verbs.cq)
		rl_destroy_cq(p->verbs.cq);
	if (p->verbs.pd)
		rl_dealloc_pd(p->verbs.pd);
	rl_host_free(p->verbs.host);
	free(p->verbs.buf);
	free(p->stat.lat_us);
	peer_queues_free(p);
	if (p->net.tcp >= 0)
		close(p->net.tcp);
	if (p->net.rx >= 0)
		close(p->net.rx);
	if (p->net.hold >= 0)
		close(p->net.hold);
	for (int i = 0; i < p->net.ntx; i++)
		close(p->net.tx[i].fd);
}

/* Addresses, GID, MTU, the QP and the sockets: everything before the exchange. */
static int peer_prepare(struct peer *p)
{
	/* The TCP connection first: it tells which local address (and so GID) faces the peer. */
	if (p->o.server ? peer_tcp_accept(p) : peer_tcp_connect(p))
		return -1;
	if (peer_pick_gid(p) || peer_pick_mtu(p))
		return -1;
	/* -a over UD: the sizes go up to the path MTU, as perftest's. */
	if (p->o.ud && p->o.all_sizes && !p->o.server && p->o.size > rl_mtu_bytes(p->o.mtu))
		p->o.size = rl_mtu_bytes(p->o.mtu);
	if (p->o.ud && (!p->o.server || p->o.compat) && p->o.size > rl_mtu_bytes(p->o.mtu)) {
		cli_error("peer", "a UD message is one packet: --size %u is more than the path MTU %u of %s; use "
			  "--size %u or less, or a larger interface MTU", p->o.size, rl_mtu_bytes(p->o.mtu), p->net.gids.ifname,
			  rl_mtu_bytes(p->o.mtu));
		return -1;
	}
	if (peer_setup(p) || ((!p->o.server || p->o.compat) && peer_buffer(p))) {
		cli_error("peer", "out of memory");
		return -1;
	}
	/* Sockets before the exchange ends, so that the first frame finds port 4791 open. */
	return peer_sockets(p, rl_qp_udp_sport(p->verbs.qp), !p->o.ud);
}

static int peer_run_server(struct peer *p)
{
	bool data_ok = true;

	if (peer_serve(p, &data_ok)) {
		peer_progress_end(p);
		peer_wc_finish(p);
		peer_fail_json(p);
		return CLI_ERR;
	}
	peer_progress_end(p);
	peer_settle(p);
	if (p->o.cm)
		peer_cm_disconnect(p);
	else
		peer_drain(p, peer_quiet_ms(p));
	if (!p->o.compat && !p->o.cm) {
		if (peer_exchange_result(p, data_ok))
			return CLI_ERR;
		/* Stay on the wire until the client hangs up (-a, -D: for --timeout from now, the test was long). */
		if (p->o.all_sizes || p->o.duration_s)
			p->stat.t_start = peer_now();
		while (!peer_pump(p, p->net.tcp) && !peer_expired(p))
			;
		peer_flush(p);
	}
	peer_served_report(p, data_ok);
	peer_qp_report(p);
	if (p->o.compat)
		peer_pingpong_report(p);
	return data_ok ? CLI_OK : CLI_ERR;
}

/*
 * The client's test: one round of --size, or with -a one per size from 2 up
 * to --size (doubling, as perftest's -a), each a row of the table as it ends.
 */
static int peer_client_rounds(struct peer *p, uint64_t **stamps, size_t *cap)
{
	for (uint32_t len = p->o.all_sizes ? 2 : p->o.size; len <= p->o.size; len *= 2) {
		p->stat.len = len;
		if (p->o.op == PEER_PINGPONG ? peer_client_lat(p) : peer_client_bw(p, stamps, cap))
			return -1;
		if (p->o.all_sizes)
			peer_round_report(p, *stamps, len == 2);
		if (!p->o.all_sizes || len > p->o.size / 2)
			break;
	}
	return 0;
}

/* -D: the server's count must be this side's (RC loses nothing; WRITE and READ are not counted there). */
static bool peer_count_agrees(const struct peer *p)
{
	if (!p->o.duration_s || peer_unreliable(&p->o) || !(peer_sends(p->o.op) || peer_atomic(p->o.op)) ||
	    p->stat.delivered == p->stat.completed)
		return true;
	cli_error("peer", "the server counted %" PRIu64 " messages, this side completed %" PRIu64, p->stat.delivered,
		  p->stat.completed);
	return false;
}

int peer_run(struct peer *p)
{
	uint64_t *stamps = NULL;
	size_t cap = 0;
	int rc = CLI_ERR;

	if (p->o.uc && p->o.cm) {
		cli_error("peer", "--cm connects RC QPs (rdma_cm's TCP port space) and UD QPs (UDP), not UC: leave out "
			  "--cm (the TCP exchange connects a UC QP, as ibv_uc_pingpong does)");
		return CLI_ERR;
	}
	if (!p->o.server && !peer_transport_op_ok(&p->o, p->o.op))
		return CLI_ERR;
	if (p->o.cm ? peer_cm_connect(p) : peer_prepare(p) || peer_exchange(p))
		return CLI_ERR;
	if (peer_connect_qp(p) || peer_post_recvs(p, 0))
		return CLI_ERR;
	if (!p->o.json)
		peer_header(p);
	/* The per-second lines: rocelab's own output only (a --compat tool's is the tool's, line for line). */
	p->prog.on = !p->o.json && !p->o.compat;
	if (p->o.server)
		return peer_run_server(p);
	if (peer_client_rounds(p, &stamps, &cap)) {
		peer_progress_end(p);
		free(stamps);
		/* The responder's last NAKs may still be on the way: they must find port 4791 open, not an ICMP error. */
		peer_drain(p, peer_quiet_ms(p));
		peer_wc_finish(p);
		peer_fail_json(p);
		return CLI_ERR;
	}
	peer_progress_end(p);
	/* Let the last ACKs and resends settle before the result. */
	peer_drain(p, peer_quiet_ms(p));
	if (p->o.cm)
		peer_cm_disconnect(p);
	if (!peer_client_result(p) && peer_count_agrees(p)) {
		if (p->o.all_sizes)
			peer_rounds_end(p);
		else if (p->o.op == PEER_PINGPONG)
			peer_lat_report(p);
		else
			peer_bw_report(p, stamps);
		peer_qp_report(p);
		if (p->o.compat)
			peer_pingpong_report(p);
		rc = CLI_OK;
	}
	free(stamps);
	return rc;
}
