/* SPDX-License-Identifier: MIT */
/*
 * The verbs objects of the reference transport: host, PD, MR, CQ, QP and
 * modify_qp's state machine (IBA 10.3, 11.2.4). Packet handling lives in
 * req.c, resp.c and comp.c; host.c moves frames in and out.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocelab/cm.h"
#include "transport.h"

/* ---- names for logs and learners ------------------------------------------ */

const char *rl_qp_state_name(enum rl_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

const char *rl_wr_opcode_name(enum rl_wr_opcode op)
{
	switch (op) {
	case RL_WR_RDMA_WRITE: return "RDMA WRITE";
	case RL_WR_RDMA_WRITE_WITH_IMM: return "RDMA WRITE with immediate";
	case RL_WR_SEND: return "SEND";
	case RL_WR_SEND_WITH_IMM: return "SEND with immediate";
	case RL_WR_RDMA_READ: return "RDMA READ";
	case RL_WR_ATOMIC_CMP_AND_SWP: return "Compare&Swap";
	case RL_WR_ATOMIC_FETCH_AND_ADD: return "Fetch&Add";
	case RL_WR_SEND_WITH_INV: return "SEND with invalidate";
	case RL_WR_FLUSH: return "FLUSH";
	case RL_WR_ATOMIC_WRITE: return "ATOMIC WRITE";
	}
	return "?";
}

/* Each status's libibverbs name and its ibv_wc_status_str() words, indexed by the status. */
static const struct {
	const char *name, *str;
} rl_wc_statuses[] = {
	[RL_WC_SUCCESS] = { "IBV_WC_SUCCESS", "success" },
	[RL_WC_LOC_LEN_ERR] = { "IBV_WC_LOC_LEN_ERR", "local length error" },
	[RL_WC_LOC_QP_OP_ERR] = { "IBV_WC_LOC_QP_OP_ERR", "local QP operation error" },
	[RL_WC_LOC_PROT_ERR] = { "IBV_WC_LOC_PROT_ERR", "local protection error" },
	[RL_WC_WR_FLUSH_ERR] = { "IBV_WC_WR_FLUSH_ERR", "Work Request Flushed Error" },
	[RL_WC_BAD_RESP_ERR] = { "IBV_WC_BAD_RESP_ERR", "bad response error" },
	[RL_WC_LOC_ACCESS_ERR] = { "IBV_WC_LOC_ACCESS_ERR", "local access error" },
	[RL_WC_REM_INV_REQ_ERR] = { "IBV_WC_REM_INV_REQ_ERR", "remote invalid request error" },
	[RL_WC_REM_ACCESS_ERR] = { "IBV_WC_REM_ACCESS_ERR", "remote access error" },
	[RL_WC_REM_OP_ERR] = { "IBV_WC_REM_OP_ERR", "remote operation error" },
	[RL_WC_RETRY_EXC_ERR] = { "IBV_WC_RETRY_EXC_ERR", "transport retry counter exceeded" },
	[RL_WC_RNR_RETRY_EXC_ERR] = { "IBV_WC_RNR_RETRY_EXC_ERR", "RNR retry counter exceeded" },
};

static bool rl_wc_status_known(enum rl_wc_status s)
{
	return (unsigned)s < sizeof(rl_wc_statuses) / sizeof(rl_wc_statuses[0]) && rl_wc_statuses[s].name;
}

const char *rl_wc_status_str(enum rl_wc_status s)
{
	return rl_wc_status_known(s) ? rl_wc_statuses[s].str : "unknown";
}

const char *rl_wc_status_name(enum rl_wc_status s)
{
	return rl_wc_status_known(s) ? rl_wc_statuses[s].name : "IBV_WC_UNKNOWN";
}

const char *rl_wc_opcode_name(enum rl_wc_opcode op)
{
	switch (op) {
	case RL_WC_SEND: return "IBV_WC_SEND";
	case RL_WC_RDMA_WRITE: return "IBV_WC_RDMA_WRITE";
	case RL_WC_RDMA_READ: return "IBV_WC_RDMA_READ";
	case RL_WC_COMP_SWAP: return "IBV_WC_COMP_SWAP";
	case RL_WC_FETCH_ADD: return "IBV_WC_FETCH_ADD";
	case RL_WC_FLUSH: return "IBV_WC_FLUSH";
	case RL_WC_ATOMIC_WRITE: return "IBV_WC_ATOMIC_WRITE";
	case RL_WC_RECV: return "IBV_WC_RECV";
	case RL_WC_RECV_RDMA_WITH_IMM: return "IBV_WC_RECV_RDMA_WITH_IMM";
	}
	return "IBV_WC_UNKNOWN";
}

const char *rl_event_name(enum rl_event_type t)
{
	static const char *const n[] = {
		[RL_EV_QP_STATE] = "qp-state", [RL_EV_PSN_CHECK] = "psn-check",
		[RL_EV_NAK_SENT] = "nak-sent", [RL_EV_ACK_SENT] = "ack-sent",
		[RL_EV_TIMER_ARMED] = "timer-armed", [RL_EV_TIMER_FIRED] = "timer-fired",
		[RL_EV_RNR_WAIT] = "rnr-wait", [RL_EV_RETRY] = "retry",
		[RL_EV_COMPLETION] = "completion", [RL_EV_DROP] = "drop",
		[RL_EV_CNP_SENT] = "cnp-sent", [RL_EV_CNP_RECV] = "cnp-recv",
		[RL_EV_SRQ_LIMIT] = "srq-limit", [RL_EV_RATE_CHANGE] = "rate-change",
	};

	return (unsigned)t < sizeof(n) / sizeof(n[0]) && n[t] ? n[t] : "?";
}

const char *rl_psn_verdict_name(enum rl_psn_verdict v)
{
	static const char *const n[] = { "in order", "duplicate", "out of order" };

	return (unsigned)v < 3 ? n[v] : "?";
}

void rl_host_set_error(struct rl_host *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->err, sizeof(h->err), fmt, ap);
	va_end(ap);
}

const char *rl_host_error(const struct rl_host *h)
{
	return h->err[0] ? h->err : "no error";
}

void rl_event_emit(struct rl_qp *qp, enum rl_event_type type, uint32_t psn, uint64_t value, const char *text)
{
	struct rl_host *h = qp->host;
	struct rl_event ev = { type, h->now, qp->qpn, psn, value, text };

	h->cfg.event(h->cfg.event_ctx ? h->cfg.event_ctx : h->cfg.ctx, &ev);
}

void rl_gid_from_ipv4(uint8_t gid[16], const uint8_t ip4[4])
{
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, ip4, 4);
}

bool rl_gid_is_ipv4(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(gid, prefix, 12);
}

/* ---- host, PD, MR, CQ ------------------------------------------------------------ */

/* The next number of a seeded host's key generator (splitmix64). */
static uint64_t rl_key_draw(struct rl_host *h)
{
	uint64_t z = (h->key_rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct rl_host *rl_host_new(const struct rl_host_config *cfg)
{
	struct rl_host *h;

	if (!cfg || !cfg->emit == !cfg->emit_pkt)
		return NULL;
	if (cfg->active_mtu && !rl_mtu_bytes(cfg->active_mtu))
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->cfg = *cfg;
	h->v4 = rl_gid_is_ipv4(cfg->gid);
	h->port_mtu = rl_mtu_bytes(cfg->active_mtu ? cfg->active_mtu : RL_MTU_1024);
	/* QP0 and QP1 are special (IBA 3.5.2); rxe starts at 0x11. */
	h->next_qpn = cfg->first_qpn >= 2 && cfg->first_qpn <= 0xffffff ? cfg->first_qpn : 0x11;
	h->next_key = 0x100;
	if (cfg->key_seed) {
		h->key_rng = cfg->key_seed;
		h->next_key = 0x100 + (uint32_t)(rl_key_draw(h) % 0xfe00);
	}
	return h;
}

void rl_host_free(struct rl_host *h)
{
	if (!h)
		return;
	while (h->qps)
		rl_destroy_qp(h->qps);
	rl_srq_free_all(h);
	while (h->mrs)
		rl_dereg_mr(h->mrs);
	while (h->cqs) {
		struct rl_cq *cq = h->cqs;

		h->cqs = cq->next;
		free(cq->ring);
		free(cq);
	}
	while (h->pds) {
		struct rl_pd *pd = h->pds;

		h->pds = pd->next;
		free(pd);
	}
	free(h);
}

void rl_query_port(const struct rl_host *h, struct rl_port_attr *attr)
{
	attr->active_mtu = rl_mtu_from_bytes(h->port_mtu);
	memcpy(attr->gid, h->cfg.gid, 16);
	memcpy(attr->mac, h->cfg.mac, 6);
	attr->bad_pkey_cntr = h->bad_pkey_cntr;
	attr->qkey_viol_cntr = h->qkey_viol_cntr;
}

struct rl_pd *rl_alloc_pd(struct rl_host *h)
{
	struct rl_pd *pd = calloc(1, sizeof(*pd));

	if (!pd) {
		rl_host_set_error(h, "out of memory");
		return NULL;
	}
	pd->host = h;
	pd->next = h->pds;
	h->pds = pd;
	return pd;
}

int rl_dealloc_pd(struct rl_pd *pd)
{
	struct rl_host *h = pd->host;
	struct rl_pd **pp;

	if (pd->users) {
		rl_host_set_error(h, "the PD still has %u MRs or QPs: destroy them first", pd->users);
		return -EBUSY;
	}
	for (pp = &h->pds; *pp != pd; pp = &(*pp)->next)
		;
	*pp = pd->next;
	free(pd);
	return 0;
}

struct rl_mr *rl_reg_mr_iova(struct rl_pd *pd, void *addr, size_t length, uint64_t iova, unsigned access)
{
	struct rl_host *h = pd->host;
	struct rl_mr *mr;

	if (!addr || !length) {
		rl_host_set_error(h, "reg_mr needs a buffer and a length");
		return NULL;
	}
	/* IBA 10.6.3.1: remote write or atomic access requires local write. */
	if ((access & (RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_ATOMIC)) && !(access & RL_ACCESS_LOCAL_WRITE)) {
		rl_host_set_error(h, "remote write/atomic access needs local write access too (IBA 10.6.3.1)");
		return NULL;
	}
	if (iova + length < iova) {
		rl_host_set_error(h, "iova + length wraps around");
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		rl_host_set_error(h, "out of memory");
		return NULL;
	}
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->iova = iova;
	mr->access = access;
	/* Index in the upper 24 bits, a key byte in the low 8, as rxe does. */
	mr->lkey = mr->rkey = (h->next_key++ << 8) | (h->cfg.key_seed ? (uint8_t)rl_key_draw(h) : 0x5a);
	mr->next = h->mrs;
	h->mrs = mr;
	pd->users++;
	return mr;
}

int rl_dereg_mr(struct rl_mr *mr)
{
	struct rl_host *h = mr->pd->host;
	struct rl_mr **pp;

	for (pp = &h->mrs; *pp != mr; pp = &(*pp)->next)
		;
	*pp = mr->next;
	mr->pd->users--;
	free(mr);
	return 0;
}

uint32_t rl_mr_lkey(const struct rl_mr *mr) { return mr->lkey; }
uint32_t rl_mr_rkey(const struct rl_mr *mr) { return mr->rkey; }
uint64_t rl_mr_iova(const struct rl_mr *mr) { return mr->iova; }

struct rl_mr *rl_mr_find_lkey(struct rl_host *h, uint32_t lkey)
{
	for (struct rl_mr *mr = h->mrs; mr; mr = mr->next)
		if (mr->lkey == lkey)
			return mr;
	return NULL;
}

/* R_Key 0 is never handed out: it is what a region retired by SEND with Invalidate holds. */
struct rl_mr *rl_mr_find_rkey(struct rl_host *h, uint32_t rkey)
{
	if (!rkey)
		return NULL;
	for (struct rl_mr *mr = h->mrs; mr; mr = mr->next)
		if (mr->rkey == rkey)
			return mr;
	return NULL;
}

uint8_t *rl_mr_ptr(struct rl_mr *mr, uint64_t va, uint64_t len)
{
	if (va < mr->iova || len > mr->length || va - mr->iova > mr->length - len)
		return NULL;
	return mr->addr + (va - mr->iova);
}

const uint8_t *rl_sge_ptr(struct rl_host *h, const struct rl_sge *sg, int n, uint32_t off, uint32_t len)
{
	for (int i = 0; i < n; i++) {
		struct rl_mr *mr;

		if (off >= sg[i].length) {
			off -= sg[i].length;
			continue;
		}
		if (sg[i].length - off < len)
			return NULL;
		mr = rl_mr_find_lkey(h, sg[i].lkey);
		return mr ? rl_mr_ptr(mr, sg[i].addr + off, len) : NULL;
	}
	return NULL;
}

enum rl_wc_status rl_sge_copy(struct rl_host *h, const struct rl_sge *sg, int n, uint32_t off,
			      void *buf, uint32_t len, bool to_sge)
{
	uint8_t *b = buf;

	for (int i = 0; i < n && len; i++) {
		struct rl_mr *mr;
		uint8_t *p;
		uint32_t chunk;

		if (off >= sg[i].length) {
			off -= sg[i].length;
			continue;
		}
		chunk = sg[i].length - off < len ? sg[i].length - off : len;
		mr = rl_mr_find_lkey(h, sg[i].lkey);
		if (!mr || !(p = rl_mr_ptr(mr, sg[i].addr + off, chunk)))
			return RL_WC_LOC_PROT_ERR;
		if (to_sge && !(mr->access & RL_ACCESS_LOCAL_WRITE))
			return RL_WC_LOC_PROT_ERR;
		if (to_sge)
			memcpy(p, b, chunk);
		else
			memcpy(b, p, chunk);
		b += chunk;
		len -= chunk;
		off = 0;
	}
	return len ? RL_WC_LOC_LEN_ERR : RL_WC_SUCCESS;
}

struct rl_cq *rl_create_cq(struct rl_host *h, int cqe)
{
	struct rl_cq *cq;

	if (cqe < 1 || cqe > 1 << 20) {
		rl_host_set_error(h, "a CQ holds 1 to 1048576 completions, not %d", cqe);
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (cq)
		cq->ring = calloc((size_t)cqe, sizeof(*cq->ring));
	if (!cq || !cq->ring) {
		free(cq);
		rl_host_set_error(h, "out of memory");
		return NULL;
	}
	cq->host = h;
	cq->cap = cqe;
	cq->next = h->cqs;
	h->cqs = cq;
	return cq;
}

int rl_destroy_cq(struct rl_cq *cq)
{
	struct rl_host *h = cq->host;
	struct rl_cq **pp;

	if (cq->users) {
		rl_host_set_error(h, "the CQ is still used by %u QPs", cq->users);
		return -EBUSY;
	}
	for (pp = &h->cqs; *pp != cq; pp = &(*pp)->next)
		;
	*pp = cq->next;
	free(cq->ring);
	free(cq);
	return 0;
}

/* The ring slot @k places after the oldest (k <= cap): a wrap by subtraction, no division. */
static int rl_cq_index(const struct rl_cq *cq, int k)
{
	int i = cq->head + k;

	return i >= cq->cap ? i - cq->cap : i;
}

void rl_cq_push(struct rl_cq *cq, const struct rl_wc *wc)
{
	if (cq->count == cq->cap) {
		cq->overflow = true;     /* IBA 11.4.2.1: a CQ overrun is an error */
		return;
	}
	cq->ring[rl_cq_index(cq, cq->count)] = *wc;
	cq->count++;
}

int rl_poll_cq(struct rl_cq *cq, int n, struct rl_wc *wc)
{
	int k = n < cq->count ? n : cq->count;

	if (k <= 0)
		return 0;
	for (int i = 0; i < k; i++) {
		wc[i] = cq->ring[cq->head];
		cq->head = rl_cq_index(cq, 1);
	}
	cq->count -= k;
	return k;
}

int rl_cq_pending(const struct rl_cq *cq)
{
	return cq->count;
}

/* ---- QP ---------------------------------------------------------------------------- */

/* A ring for @n entries: the next power of two, its index mask in @mask; -1 past 2^31. */
static int rl_ring_mask(uint32_t n, uint32_t *mask)
{
	uint32_t len = 1;

	while (len < n) {
		if (len > UINT32_MAX / 2)
			return -1;
		len <<= 1;
	}
	*mask = len - 1;
	return 0;
}

static bool rl_host_has_qp(const struct rl_host *h, uint32_t qpn)
{
	for (const struct rl_qp *qp = h->qps; qp; qp = qp->next)
		if (qp->qpn == qpn)
			return true;
	return false;
}

struct rl_qp *rl_create_qp(struct rl_pd *pd, const struct rl_qp_init_attr *ia)
{
	struct rl_host *h = pd->host;
	struct rl_qp *qp;

	if (!ia || !ia->send_cq || !ia->recv_cq) {
		rl_host_set_error(h, "create_qp needs a send CQ and a receive CQ");
		return NULL;
	}
	if (ia->qp_type != RL_QPT_RC && ia->qp_type != RL_QPT_UC && ia->qp_type != RL_QPT_UD &&
	    ia->qp_type != RL_QPT_GSI) {
		rl_host_set_error(h, "QP type %d: rocelab has RC, UC, UD and GSI (QP1)", ia->qp_type);
		return NULL;
	}
	if (ia->srq && ia->qp_type == RL_QPT_GSI) {
		rl_host_set_error(h, "QP1 has its own receive queue: no SRQ for the GSI QP");
		return NULL;
	}
	if (ia->srq && ia->srq->host != h) {
		rl_host_set_error(h, "the SRQ belongs to another host (device): a QP takes receives from its own");
		return NULL;
	}
	if (ia->qp_type == RL_QPT_GSI && rl_host_has_qp(h, RL_GSI_QPN)) {
		rl_host_set_error(h, "this host already has its GSI QP: there is one QP1 per port (IBA 13.5.1)");
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		goto nomem;
	qp->sq_size = ia->max_send_wr ? ia->max_send_wr : 128;
	/* IBA 10.2.9: a QP with an SRQ has no receive queue of its own. */
	qp->rq_size = ia->srq ? 0 : ia->max_recv_wr ? ia->max_recv_wr : 128;
	if (rl_ring_mask(qp->sq_size, &qp->sq_mask) || rl_ring_mask(qp->rq_size, &qp->rq_mask))
		goto nomem;
	qp->sq = calloc((size_t)qp->sq_mask + 1, sizeof(*qp->sq));
	qp->rq = ia->srq ? NULL : calloc((size_t)qp->rq_mask + 1, sizeof(*qp->rq));
	if (!qp->sq || (!ia->srq && !qp->rq))
		goto nomem;
	qp->host = h;
	qp->pd = pd;
	qp->scq = ia->send_cq;
	qp->rcq = ia->recv_cq;
	qp->srq = ia->srq;
	qp->type = ia->qp_type;
	qp->sq_sig_all = ia->sq_sig_all;
	if (rl_qp_cc_init(qp, &ia->cc)) {
		free(qp->sq);
		free(qp->rq);
		free(qp);
		return NULL;
	}
	qp->qpn = ia->qp_type == RL_QPT_GSI ? RL_GSI_QPN : h->next_qpn++;
	qp->state = RL_QPS_RESET;
	qp->comp.timer = qp->comp.rnr_until = RL_NEVER;
	qp->next = h->qps;
	h->qps = qp;
	pd->users++;
	qp->scq->users++;
	qp->rcq->users++;
	if (qp->srq)
		qp->srq->users++;
	return qp;
nomem:
	if (qp) {
		free(qp->sq);
		free(qp->rq);
		free(qp);
	}
	rl_host_set_error(h, "out of memory");
	return NULL;
}

int rl_destroy_qp(struct rl_qp *qp)
{
	struct rl_host *h = qp->host;
	struct rl_qp **pp;

	for (pp = &h->qps; *pp != qp; pp = &(*pp)->next)
		;
	*pp = qp->next;
	qp->pd->users--;
	qp->scq->users--;
	qp->rcq->users--;
	if (qp->srq)
		qp->srq->users--;
	rl_resp_drop_pending(qp);
	free(qp->resp.res);
	free(qp->sq);
	free(qp->rq);
	free(qp);
	return 0;
}

uint32_t rl_qp_num(const struct rl_qp *qp) { return qp->qpn; }
enum rl_qp_state rl_qp_state(const struct rl_qp *qp) { return qp->state; }

int rl_query_qp(const struct rl_qp *qp, struct rl_qp_attr *attr)
{
	*attr = qp->attr;
	attr->qp_state = qp->state;
	return 0;
}

void rl_qp_stats(const struct rl_qp *qp, struct rl_qp_stats *st)
{
	*st = qp->stats;
	st->cc_rate_bps = qp->cc == RL_CC_DCQCN ? qp->dcqcn.rc_bps : 0;
	st->cc_stage = qp->cc == RL_CC_DCQCN ? qp->dcqcn.stage : 0;
}

void rl_qp_set_state(struct rl_qp *qp, enum rl_qp_state s, const char *why)
{
	if (qp->state == s)
		return;
	qp->state = s;
	rl_event(qp, RL_EV_QP_STATE, 0, s, why);
}

/* IBA 10.3.1, Figure 124: a fatal error moves the QP to ERR and flushes its work. */
void rl_qp_to_error(struct rl_qp *qp, const char *why)
{
	rl_qp_set_state(qp, RL_QPS_ERR, why);
	rl_comp_flush(qp);
	rl_resp_flush(qp);
}

/*
 * Attributes each transition requires and allows (IBA 11.2.4.2, Table 91;
 * the ibv_modify_qp manual has the same table). QP1, the GSI, is a UD QP
 * and takes the UD columns.
 */
struct rl_transition {
	enum rl_qp_state from, to;
	int rc_req, uc_req, ud_req;   /* required */
	int rc_opt, uc_opt, ud_opt;   /* optional */
};

#define RESET_INIT_RC (RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_ACCESS_FLAGS)
#define RESET_INIT_UD (RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_QKEY)
#define INIT_RTR_RC (RL_QP_STATE | RL_QP_AV | RL_QP_PATH_MTU | RL_QP_DEST_QPN | RL_QP_RQ_PSN | \
		     RL_QP_MAX_DEST_RD_ATOMIC | RL_QP_MIN_RNR_TIMER)
#define INIT_RTR_UC (RL_QP_STATE | RL_QP_AV | RL_QP_PATH_MTU | RL_QP_DEST_QPN | RL_QP_RQ_PSN)
#define RTR_RTS_RC (RL_QP_STATE | RL_QP_SQ_PSN | RL_QP_TIMEOUT | RL_QP_RETRY_CNT | RL_QP_RNR_RETRY | \
		    RL_QP_MAX_QP_RD_ATOMIC)

static const struct rl_transition rl_transitions[] = {
	{ RL_QPS_RESET, RL_QPS_INIT, RESET_INIT_RC, RESET_INIT_RC, RESET_INIT_UD, 0, 0, 0 },
	{ RL_QPS_INIT, RL_QPS_INIT, RL_QP_STATE, RL_QP_STATE, RL_QP_STATE,
	  RL_QP_ACCESS_FLAGS | RL_QP_PKEY_INDEX | RL_QP_PORT, RL_QP_ACCESS_FLAGS | RL_QP_PKEY_INDEX | RL_QP_PORT,
	  RL_QP_QKEY | RL_QP_PKEY_INDEX | RL_QP_PORT },
	{ RL_QPS_INIT, RL_QPS_RTR, INIT_RTR_RC, INIT_RTR_UC, RL_QP_STATE,
	  RL_QP_ACCESS_FLAGS | RL_QP_PKEY_INDEX, RL_QP_ACCESS_FLAGS | RL_QP_PKEY_INDEX, RL_QP_QKEY | RL_QP_PKEY_INDEX },
	{ RL_QPS_RTR, RL_QPS_RTS, RTR_RTS_RC, RL_QP_STATE | RL_QP_SQ_PSN, RL_QP_STATE | RL_QP_SQ_PSN,
	  RL_QP_ACCESS_FLAGS | RL_QP_MIN_RNR_TIMER, RL_QP_ACCESS_FLAGS, RL_QP_QKEY },
	{ RL_QPS_RTS, RL_QPS_RTS, RL_QP_STATE, RL_QP_STATE, RL_QP_STATE,
	  RL_QP_ACCESS_FLAGS | RL_QP_MIN_RNR_TIMER, RL_QP_ACCESS_FLAGS, RL_QP_QKEY },
	{ RL_QPS_SQE, RL_QPS_RTS, RL_QP_STATE, RL_QP_STATE, RL_QP_STATE, 0, RL_QP_ACCESS_FLAGS, RL_QP_QKEY },
};

static const struct rl_transition *rl_find_transition(enum rl_qp_state from, enum rl_qp_state to)
{
	for (size_t i = 0; i < sizeof(rl_transitions) / sizeof(rl_transitions[0]); i++)
		if (rl_transitions[i].from == from && rl_transitions[i].to == to)
			return &rl_transitions[i];
	return NULL;
}

static int rl_transition_required(const struct rl_transition *t, enum rl_qp_type type)
{
	return type == RL_QPT_RC ? t->rc_req : type == RL_QPT_UC ? t->uc_req : t->ud_req;
}

int rl_qp_attr_required(enum rl_qp_type type, enum rl_qp_state from, enum rl_qp_state to)
{
	const struct rl_transition *t = rl_find_transition(from, to);

	return t ? rl_transition_required(t, type) : 0;
}

static const char *const rl_attr_names[] = {
	"state", "", "", "access flags", "pkey index", "port", "Q_Key", "address vector (destination GID)",
	"path MTU", "timeout", "retry count", "RNR retry", "RQ PSN", "max RD atomic", "", "min RNR timer",
	"SQ PSN", "max dest RD atomic", "", "", "dest QPN",
};

static int rl_mask_problem(struct rl_qp *qp, const char *what, int bits, enum rl_qp_state to)
{
	for (int b = 0; b < 21; b++)
		if (bits & (1 << b)) {
			rl_host_set_error(qp->host, "%s -> %s: %s %s", rl_qp_state_name(qp->state),
					  rl_qp_state_name(to), rl_attr_names[b], what);
			return -EINVAL;
		}
	return 0;
}

static int rl_check_values(struct rl_qp *qp, const struct rl_qp_attr *a, int mask)
{
	struct rl_host *h = qp->host;

	if (mask & RL_QP_PATH_MTU) {
		if (!rl_mtu_bytes(a->path_mtu)) {
			rl_host_set_error(h, "path MTU %d is not one of 1 (256) .. 5 (4096)", a->path_mtu);
			return -EINVAL;
		}
		if (rl_mtu_bytes(a->path_mtu) > h->port_mtu) {
			rl_host_set_error(h, "path MTU %u is larger than the port's active MTU %u", rl_mtu_bytes(a->path_mtu),
					  h->port_mtu);
			return -EINVAL;
		}
	}
	if (mask & RL_QP_AV) {
		static const uint8_t zero[16];

		/* RoCE has no LIDs: the GID (an IP address) is the only way to say where to go. */
		if (!memcmp(a->ah_attr.dgid, zero, 16)) {
			rl_host_set_error(h, "RTR needs a destination GID: RoCE has no LIDs, the GID carries the peer's IP address");
			return -EINVAL;
		}
		if (rl_gid_is_ipv4(a->ah_attr.dgid) != rl_gid_is_ipv4(h->cfg.gid)) {
			rl_host_set_error(h, "the destination GID is %s but this host's GID is %s",
					  rl_gid_is_ipv4(a->ah_attr.dgid) ? "IPv4" : "IPv6",
					  rl_gid_is_ipv4(h->cfg.gid) ? "IPv4" : "IPv6");
			return -EINVAL;
		}
	}
	if ((mask & RL_QP_QKEY) && qp->type == RL_QPT_GSI && a->qkey != RL_GSI_QKEY) {
		rl_host_set_error(h, "QP1's Q_Key is always 0x80010000, not 0x%08x (IBA 13.5.1)", a->qkey);
		return -EINVAL;
	}
	if ((mask & RL_QP_DEST_QPN) && a->dest_qp_num > 0xffffff) {
		rl_host_set_error(h, "a QPN has 24 bits; 0x%x does not fit", a->dest_qp_num);
		return -EINVAL;
	}
	if (((mask & RL_QP_RQ_PSN) && a->rq_psn > 0xffffff) || ((mask & RL_QP_SQ_PSN) && a->sq_psn > 0xffffff)) {
		rl_host_set_error(h, "a PSN has 24 bits (0 .. 16777215)");
		return -EINVAL;
	}
	if (((mask & RL_QP_RETRY_CNT) && a->retry_cnt > 7) || ((mask & RL_QP_RNR_RETRY) && a->rnr_retry > 7)) {
		rl_host_set_error(h, "retry_cnt and rnr_retry are 3-bit fields: 0 .. 7");
		return -EINVAL;
	}
	if (((mask & RL_QP_TIMEOUT) && a->timeout > 31) || ((mask & RL_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)) {
		rl_host_set_error(h, "timeout and min_rnr_timer are 5-bit fields: 0 .. 31");
		return -EINVAL;
	}
	if ((mask & RL_QP_MAX_DEST_RD_ATOMIC) && (a->max_dest_rd_atomic < 1 || a->max_dest_rd_atomic > 16)) {
		rl_host_set_error(h, "max_dest_rd_atomic must be 1 .. 16 (the responder keeps one slot per READ/atomic)");
		return -EINVAL;
	}
	if ((mask & RL_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > 16) {
		rl_host_set_error(h, "max_rd_atomic must be 0 .. 16");
		return -EINVAL;
	}
	return 0;
}

static void rl_apply_attrs(struct rl_qp *qp, const struct rl_qp_attr *a, int mask)
{
	struct rl_qp_attr *q = &qp->attr;

	qp->pkt_ready = false;   /* the addressing may change: rl_qp_pkt_init builds its packet again */
	if (mask & RL_QP_ACCESS_FLAGS) q->qp_access_flags = a->qp_access_flags;
	if (mask & RL_QP_PKEY_INDEX) q->pkey_index = a->pkey_index;
	if (mask & RL_QP_PORT) q->port_num = a->port_num;
	if (mask & RL_QP_QKEY) q->qkey = a->qkey;
	if (mask & RL_QP_AV) q->ah_attr = a->ah_attr;
	if (mask & RL_QP_PATH_MTU) {
		q->path_mtu = a->path_mtu;
		qp->mtu = rl_mtu_bytes(a->path_mtu);
	}
	if (mask & RL_QP_DEST_QPN) q->dest_qp_num = a->dest_qp_num;
	if (mask & RL_QP_RQ_PSN) q->rq_psn = qp->resp.psn = a->rq_psn;
	if (mask & RL_QP_SQ_PSN) q->sq_psn = qp->req.psn = qp->comp.psn = a->sq_psn;
	if (mask & RL_QP_MAX_DEST_RD_ATOMIC) q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & RL_QP_MAX_QP_RD_ATOMIC) q->max_rd_atomic = a->max_rd_atomic;
	if (mask & RL_QP_MIN_RNR_TIMER) q->min_rnr_timer = a->min_rnr_timer;
	if (mask & RL_QP_TIMEOUT) q->timeout = a->timeout;
	if (mask & RL_QP_RETRY_CNT) q->retry_cnt = a->retry_cnt;
	if (mask & RL_QP_RNR_RETRY) q->rnr_retry = a->rnr_retry;
}

static void rl_qp_reset(struct rl_qp *qp)
{
	rl_resp_drop_pending(qp);
	free(qp->resp.res);
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->comp, 0, sizeof(qp->comp));
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->comp.timer = qp->comp.rnr_until = RL_NEVER;
	qp->sq_head = qp->sq_tail = qp->rq_head = qp->rq_tail = 0;
	memset(&qp->attr, 0, sizeof(qp->attr));
	qp->mtu = 0;
	/* A reset QP starts again at its line rate: alpha, the cut rate and the timers go too. */
	if (qp->cc == RL_CC_DCQCN)
		(void)rl_dcqcn_init(&qp->dcqcn, &qp->dcqcn.p, qp->dcqcn.line_rate_bps, qp->host->now);
}

/* Entering RTR/RTS sets up what the new state needs. */
static int rl_enter_state(struct rl_qp *qp, enum rl_qp_state to)
{
	if (to == RL_QPS_RTR && qp->type == RL_QPT_RC) {
		qp->resp.nres = qp->attr.max_dest_rd_atomic;
		qp->resp.res = calloc(qp->resp.nres, sizeof(*qp->resp.res));
		if (!qp->resp.res) {
			rl_host_set_error(qp->host, "out of memory");
			return -ENOMEM;
		}
	}
	if (to == RL_QPS_RTR && rl_qp_is_ud(qp))
		qp->mtu = qp->host->port_mtu;
	if (to == RL_QPS_RTS) {
		qp->comp.retry_left = qp->attr.retry_cnt;
		qp->comp.rnr_left = qp->attr.rnr_retry;
	}
	return 0;
}

int rl_modify_qp(struct rl_qp *qp, const struct rl_qp_attr *attr, int mask)
{
	enum rl_qp_state to = (mask & RL_QP_STATE) ? attr->qp_state : qp->state;
	const struct rl_transition *t;
	int req, opt, r;

	qp->host->err[0] = 0;
	if (to == RL_QPS_RESET || to == RL_QPS_ERR) {
		/* Any state may go to RESET or ERR (IBA 10.3.1). */
		if (to == RL_QPS_RESET)
			rl_qp_reset(qp);
		if (to == RL_QPS_ERR)
			rl_qp_to_error(qp, "modify_qp to ERR");
		else
			rl_qp_set_state(qp, to, "modify_qp");
		return 0;
	}
	t = rl_find_transition(qp->state, to);
	if (!t) {
		rl_host_set_error(qp->host, "%s -> %s is not a QP state transition (IBA 10.3.1: RESET -> INIT -> RTR -> RTS)",
				  rl_qp_state_name(qp->state), rl_qp_state_name(to));
		return -EINVAL;
	}
	req = rl_transition_required(t, qp->type);
	opt = qp->type == RL_QPT_RC ? t->rc_opt : qp->type == RL_QPT_UC ? t->uc_opt : t->ud_opt;
	if ((r = rl_mask_problem(qp, "is required", req & ~mask, to)) ||
	    (r = rl_mask_problem(qp, "is not allowed in this transition", mask & ~(req | opt), to)) ||
	    (r = rl_check_values(qp, attr, mask)))
		return r;
	rl_apply_attrs(qp, attr, mask);
	if (to != qp->state && (r = rl_enter_state(qp, to)))
		return r;
	rl_qp_set_state(qp, to, "modify_qp");
	return 0;
}

/* ---- posting work ------------------------------------------------------------------- */

static uint32_t rl_sge_total(const struct rl_sge *sg, int n)
{
	uint64_t t = 0;

	for (int i = 0; i < n; i++)
		t += sg[i].length;
	return t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

static int rl_check_send_wr(struct rl_qp *qp, const struct rl_send_wr *wr)
{
	struct rl_host *h = qp->host;
	bool rc = qp->type == RL_QPT_RC;

	if (wr->num_sge < 0 || wr->num_sge > RL_MAX_SGE) {
		rl_host_set_error(h, "num_sge %d: 0 .. %d", wr->num_sge, RL_MAX_SGE);
		return -EINVAL;
	}
	if (rl_qp_is_ud(qp) && wr->opcode != RL_WR_SEND && wr->opcode != RL_WR_SEND_WITH_IMM) {
		rl_host_set_error(h, "a UD QP only SENDs (%s is for connected QPs)", rl_wr_opcode_name(wr->opcode));
		return -EINVAL;
	}
	if (qp->type == RL_QPT_UC && (rl_wr_is_rd_atomic(wr->opcode) || wr->opcode == RL_WR_SEND_WITH_INV)) {
		rl_host_set_error(h, "a UC QP has no %s: it never gets responses (IBA 9.8.3)", rl_wr_opcode_name(wr->opcode));
		return -EINVAL;
	}
	if (rc && rl_wr_is_atomic(wr->opcode) && (rl_sge_total(wr->sg_list, wr->num_sge) != 8 || wr->atomic.remote_addr % 8)) {
		rl_host_set_error(h, "an atomic works on 8 bytes: one 8-byte SGE and an 8-byte aligned remote address");
		return -EINVAL;
	}
	if (rc && wr->opcode == RL_WR_ATOMIC_WRITE && rl_sge_total(wr->sg_list, wr->num_sge) != 8) {
		rl_host_set_error(h, "an ATOMIC WRITE stores 8 bytes: its SGEs hold exactly the 8-byte value");
		return -EINVAL;
	}
	if (rc && wr->opcode == RL_WR_FLUSH &&
	    (!wr->flush.type || (wr->flush.type & ~(RL_FLUSH_GLOBAL | RL_FLUSH_PERSISTENT)) ||
	     (wr->flush.level != RL_FLUSH_RANGE && wr->flush.level != RL_FLUSH_MR))) {
		rl_host_set_error(h, "a FLUSH needs a type (RL_FLUSH_GLOBAL and/or RL_FLUSH_PERSISTENT) "
				     "and a level (RL_FLUSH_RANGE or RL_FLUSH_MR)");
		return -EINVAL;
	}
	if (rc && rl_wr_is_rd_atomic(wr->opcode) && !qp->attr.max_rd_atomic) {
		rl_host_set_error(h, "this QP's max_rd_atomic is 0: it may not issue RDMA READ, atomics, "
				     "FLUSH or ATOMIC WRITE (set max_rd_atomic in the RTR -> RTS modify_qp)");
		return -EINVAL;
	}
	if (rl_qp_is_ud(qp) && rl_sge_total(wr->sg_list, wr->num_sge) > qp->host->port_mtu) {
		rl_host_set_error(h, "a UD message is one packet: %u bytes is more than the path MTU %u",
				  rl_sge_total(wr->sg_list, wr->num_sge), qp->host->port_mtu);
		return -EINVAL;
	}
	return 0;
}

int rl_post_send(struct rl_qp *qp, const struct rl_send_wr *wr)
{
	struct rl_send_wqe *wqe;
	int r;

	qp->host->err[0] = 0;
	if (qp->state < RL_QPS_RTS && qp->state != RL_QPS_ERR) {
		rl_host_set_error(qp->host, "post_send in state %s: the QP must be in RTS", rl_qp_state_name(qp->state));
		return -EINVAL;
	}
	if ((r = rl_check_send_wr(qp, wr)))
		return r;
	if (qp->sq_tail - qp->sq_head >= qp->sq_size) {
		rl_host_set_error(qp->host, "the send queue is full (%u work requests)", qp->sq_size);
		return -ENOMEM;
	}
	wqe = rl_sq_wqe(qp, qp->sq_tail);
	/* The WR in, everything the requester and completer keep about it zero: one write per byte. */
	_Static_assert(offsetof(struct rl_send_wqe, wr) == 0 && offsetof(struct rl_send_wqe, length) ==
			       sizeof(struct rl_send_wr),
		       "a send WQE is its WR, then what is zeroed from length on");
	wqe->wr = *wr;
	memset(&wqe->length, 0, sizeof(*wqe) - offsetof(struct rl_send_wqe, length));
	wqe->length = rl_sge_total(wr->sg_list, wr->num_sge);
	qp->sq_tail++;
	return 0;
}

int rl_post_recv(struct rl_qp *qp, const struct rl_recv_wr *wr)
{
	qp->host->err[0] = 0;
	if (qp->srq) {
		rl_host_set_error(qp->host, "this QP takes its receives from an SRQ: post them with post_srq_recv");
		return -EINVAL;
	}
	if (qp->state == RL_QPS_RESET) {
		rl_host_set_error(qp->host, "post_recv in RESET: move the QP to INIT first");
		return -EINVAL;
	}
	if (wr->num_sge < 0 || wr->num_sge > RL_MAX_SGE) {
		rl_host_set_error(qp->host, "num_sge %d: 0 .. %d", wr->num_sge, RL_MAX_SGE);
		return -EINVAL;
	}
	if (qp->rq_tail - qp->rq_head >= qp->rq_size) {
		rl_host_set_error(qp->host, "the receive queue is full (%u work requests)", qp->rq_size);
		return -ENOMEM;
	}
	*rl_rq_wqe(qp, qp->rq_tail) = *wr;
	qp->rq_tail++;
	if (qp->state == RL_QPS_ERR)
		rl_resp_flush(qp);
	return 0;
}
