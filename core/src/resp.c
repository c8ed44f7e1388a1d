/* SPDX-License-Identifier: MIT */
/*
 * The responder (IBA 9.7.4, 9.7.5): what a QP does with each request packet.
 * As in the Linux rxe driver's rxe_resp.c, one packet walks through a chain
 * of states, each a short function that returns the next one:
 *
 *   CHECK_PSN -> CHECK_OP_SEQ -> CHECK_OP_VALID -> CHECK_RESOURCE
 *     -> CHECK_LENGTH -> CHECK_RKEY -> EXECUTE -> ACKNOWLEDGE -> DONE
 *
 * with side exits to DUPLICATE (a PSN seen before), to a NAK, or to DROP.
 */
#include <stdlib.h>
#include <string.h>

#include "transport.h"

enum rl_resp_state {
	RESP_CHECK_PSN,
	RESP_CHECK_OP_SEQ,
	RESP_CHECK_OP_VALID,
	RESP_CHECK_RESOURCE,
	RESP_CHECK_LENGTH,
	RESP_CHECK_RKEY,
	RESP_EXECUTE,
	RESP_ACKNOWLEDGE,
	RESP_DUPLICATE,
	RESP_NAK_INVALID,         /* NAK invalid request (IBA 9.7.5.2.4) */
	RESP_NAK_ACCESS,          /* NAK remote access error */
	RESP_NAK_OP_ERROR,        /* NAK remote operational error */
	RESP_RNR,                 /* RNR NAK: no receive buffer posted */
	RESP_DROP,
	RESP_DONE,
};

/* What the states learn about the packet on the way. */
struct rl_resp_ctx {
	const struct rl_pkt *pkt;
	uint32_t flags;            /* pkt->op->flags */
	struct rl_mr *mr;          /* RDMA/atomic target */
	const char *why;           /* reason for a NAK or a drop */
	bool msg_counted;          /* UC: this packet's message is counted as discarded already */
};

/* ---- sending ACKs and NAKs ------------------------------------------------------------ */

/*
 * Credits: the receive WQEs posted, in the AETH's logarithmic code (IBA
 * 9.7.7.2.4). A QP with an SRQ has no receive queue of its own to count
 * (IBA 10.2.9: WQEs of the SRQ may go to any of its QPs): it advertises
 * none, the code 11111b "invalid", as rxe does for every QP.
 */
static uint8_t rl_resp_credits(const struct rl_qp *qp)
{
	if (qp->srq)
		return RL_AETH_CREDITS_INVALID;
	return rl_credit_code(qp->rq_tail - qp->rq_head);
}

static void rl_resp_send_aeth(struct rl_qp *qp, uint32_t psn, uint8_t syndrome)
{
	struct rl_pkt p;

	rl_qp_pkt_init(qp, &p, RL_OP_RC_ACKNOWLEDGE);
	p.bth.psn = psn;
	p.aeth.syndrome = syndrome;
	p.aeth.msn = qp->resp.msn;
	rl_qp_emit(qp, &p);
}

static void rl_resp_ack(struct rl_qp *qp, uint32_t psn)
{
	rl_resp_send_aeth(qp, psn, rl_syndrome_make(RL_AETH_ACK, rl_resp_credits(qp)));
	rl_event(qp, RL_EV_ACK_SENT, psn, qp->resp.msn, "ACK");
}

static void rl_resp_nak(struct rl_qp *qp, uint32_t psn, enum rl_aeth_type type, uint8_t value, const char *why)
{
	uint8_t syn = rl_syndrome_make(type, value);

	rl_resp_send_aeth(qp, psn, syn);
	qp->stats.naks_sent++;
	qp->stats.rnr_naks_sent += type == RL_AETH_RNR_NAK;
	rl_event(qp, RL_EV_NAK_SENT, psn, syn, why);
}

/* ---- receive WQEs ------------------------------------------------------------------------ */

/* The WQE a message lands in: the QP's own oldest, or its SRQ's (IBA 10.2.9, 11.2.3). */
static bool rl_resp_take_recv(struct rl_qp *qp)
{
	if (qp->resp.have_recv)
		return true;
	if (qp->srq) {
		if (!rl_srq_take(qp, &qp->resp.recv))
			return false;
	} else {
		if (qp->rq_head == qp->rq_tail)
			return false;
		qp->resp.recv = *rl_rq_wqe(qp, qp->rq_head);
		qp->rq_head++;
	}
	qp->resp.have_recv = true;
	qp->resp.recv_off = 0;
	return true;
}

static uint32_t rl_recv_capacity(const struct rl_recv_wr *wr)
{
	uint64_t t = 0;

	for (int i = 0; i < wr->num_sge; i++)
		t += wr->sg_list[i].length;
	return t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

static void rl_resp_complete_recv(struct rl_qp *qp, enum rl_wc_status st, enum rl_wc_opcode op,
				  const struct rl_pkt *pkt)
{
	struct rl_wc wc = { .wr_id = qp->resp.recv.wr_id, .status = st, .opcode = op,
			    .byte_len = qp->resp.recv_off, .qp_num = qp->qpn };

	if (pkt && (pkt->hdrs & RL_HDR_IMMDT)) {
		wc.imm_data = pkt->immdt;
		wc.wc_flags |= RL_WC_WITH_IMM;
	}
	if (pkt && (pkt->hdrs & RL_HDR_IETH)) {
		wc.invalidated_rkey = pkt->ieth_rkey;
		wc.wc_flags |= RL_WC_WITH_INV;
	}
	if (pkt && (pkt->hdrs & RL_HDR_DETH)) {
		wc.src_qp = pkt->deth.src_qp;
		wc.wc_flags |= RL_WC_GRH;
	}
	qp->resp.have_recv = false;
	rl_cq_push(qp->rcq, &wc);
	rl_event(qp, RL_EV_COMPLETION, pkt ? pkt->bth.psn : 0, st, "receive completion");
}

/*
 * A QP in error completes its receive WQEs as flushed. Those of an SRQ stay
 * there for the other QPs: only the one this QP had taken is flushed.
 */
void rl_resp_flush(struct rl_qp *qp)
{
	rl_resp_drop_pending(qp);
	if (qp->resp.have_recv)
		rl_resp_complete_recv(qp, RL_WC_WR_FLUSH_ERR, RL_WC_RECV, NULL);
	while (!qp->srq && rl_resp_take_recv(qp))
		rl_resp_complete_recv(qp, RL_WC_WR_FLUSH_ERR, RL_WC_RECV, NULL);
}

/* ---- the states ------------------------------------------------------------------------------ */

/* IBA 9.7.5.1.1 (C9-101..C9-106): the PSN decides everything. */
enum rl_psn_verdict rl_psn_check(uint32_t epsn, uint32_t psn)
{
	int32_t diff = rl_psn_diff(psn, epsn);

	return diff == 0 ? RL_PSN_IN_ORDER : diff < 0 ? RL_PSN_DUPLICATE : RL_PSN_OUT_OF_ORDER;
}

/*
 * Expected: go on. Earlier: a duplicate, answered again but not executed
 * again. Later: packets were lost; NAK once per gap with the PSN expected,
 * drop the rest. UC has no NAKs and UD no sequence at all.
 */
static enum rl_resp_state rl_resp_check_psn(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	enum rl_psn_verdict v;

	if (rl_qp_is_ud(qp))
		return RESP_CHECK_OP_SEQ;
	v = rl_psn_check(qp->resp.psn, c->pkt->bth.psn);
	if (qp->type == RL_QPT_UC) {
		/*
		 * IBA 9.8.3: UC never NAKs; a gap loses the message in progress. A
		 * Middle or Last after it belongs to that message (or to one whose
		 * First was lost): counted once, when the discarding begins.
		 */
		c->msg_counted = qp->resp.in_msg || qp->resp.drop_msg;
		if (v != RL_PSN_IN_ORDER) {
			qp->stats.out_of_order_drops++;
			rl_event(qp, RL_EV_PSN_CHECK, c->pkt->bth.psn, RL_PSN_OUT_OF_ORDER,
				 "UC: a packet was lost; the message in progress is discarded");
			qp->stats.msgs_discarded += qp->resp.in_msg;
			qp->resp.in_msg = false;
			qp->resp.recv_off = 0;
			qp->resp.drop_msg = true;
		}
		qp->resp.psn = rl_psn_add(c->pkt->bth.psn, 1);
		if (qp->resp.drop_msg && !(c->flags & RL_OPF_FIRST)) {
			c->why = "UC: rest of a message whose beginning was lost";
			return RESP_DROP;
		}
		c->msg_counted = false;
		qp->resp.drop_msg = false;
		return RESP_CHECK_OP_SEQ;
	}
	if (v == RL_PSN_OUT_OF_ORDER) {
		qp->stats.out_of_order_drops++;
		rl_event(qp, RL_EV_PSN_CHECK, c->pkt->bth.psn, RL_PSN_OUT_OF_ORDER, "PSN later than expected");
		if (!qp->resp.nak_sent) {
			qp->resp.nak_sent = true;
			rl_resp_nak(qp, qp->resp.psn, RL_AETH_NAK, RL_NAK_PSN_SEQ_ERR,
				    "PSN sequence error: a packet before this one is missing");
		}
		return RESP_DONE;
	}
	if (v == RL_PSN_DUPLICATE) {
		qp->stats.dup_requests++;
		rl_event(qp, RL_EV_PSN_CHECK, c->pkt->bth.psn, RL_PSN_DUPLICATE, "PSN already seen");
		return RESP_DUPLICATE;
	}
	qp->resp.nak_sent = false;
	rl_event(qp, RL_EV_PSN_CHECK, c->pkt->bth.psn, RL_PSN_IN_ORDER, "expected PSN");
	return RESP_CHECK_OP_SEQ;
}

/* IBA 9.7.5.1.3 (C9-112): a multi-packet message is First, Middle..., Last of one kind. */
static enum rl_resp_state rl_resp_check_op_seq(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	uint32_t f = c->flags, prev = rl_opcode_row(qp->resp.last_opcode)->flags;
	bool first = f & RL_OPF_FIRST, kind_ok;

	if (rl_qp_is_ud(qp))
		return RESP_CHECK_OP_VALID;
	if (!qp->resp.in_msg) {
		if (first)
			return RESP_CHECK_OP_VALID;
		c->why = "Middle or Last packet without a First: opcode out of sequence";
	} else {
		kind_ok = (f & (RL_OPF_SEND | RL_OPF_WRITE)) == (prev & (RL_OPF_SEND | RL_OPF_WRITE));
		if (!first && kind_ok)
			return RESP_CHECK_OP_VALID;
		c->why = "a new message began before the last one ended: opcode out of sequence";
	}
	return qp->type == RL_QPT_UC ? RESP_DROP : RESP_NAK_INVALID;
}

/* The access a FLUSH needs: one flag per placement type bit of its FETH (IBA 1.5 A19; rxe). */
static unsigned rl_flush_access(uint8_t plt)
{
	return ((plt & RL_FLUSH_GLOBAL) ? RL_ACCESS_FLUSH_GLOBAL : 0u) |
	       ((plt & RL_FLUSH_PERSISTENT) ? RL_ACCESS_FLUSH_PERSISTENT : 0u);
}

/*
 * The access flags a request needs, of the QP and of the memory region.
 * ATOMIC WRITE is a write (IBA 1.5 A19; rxe checks remote write for it,
 * not remote atomic).
 */
static unsigned rl_resp_access_needed(const struct rl_pkt *p, uint32_t f)
{
	if (f & RL_OPF_ATOMIC_WRITE)
		return RL_ACCESS_REMOTE_WRITE;
	if (f & RL_OPF_FLUSH)
		return rl_flush_access(p->feth.plt);
	return ((f & RL_OPF_WRITE) ? RL_ACCESS_REMOTE_WRITE : 0u) | ((f & RL_OPF_READ) ? RL_ACCESS_REMOTE_READ : 0u) |
	       ((f & RL_OPF_ATOMIC) ? RL_ACCESS_REMOTE_ATOMIC : 0u);
}

/* IBA 10.2.4 / C10-4: the QP's access flags say which remote operations it accepts. */
static enum rl_resp_state rl_resp_check_op_valid(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	unsigned need = rl_resp_access_needed(c->pkt, c->flags);
	uint32_t f = c->flags;

	if ((qp->attr.qp_access_flags & need) != need) {
		c->why = "the QP's access flags do not allow this remote operation";
		return qp->type == RL_QPT_UC ? RESP_DROP : RESP_NAK_INVALID;
	}
	if (f & RL_OPF_RESYNC) {
		c->why = "rocelab's responder does not implement this opcode";
		return qp->type == RL_QPT_RC ? RESP_NAK_INVALID : RESP_DROP;
	}
	return RESP_CHECK_RESOURCE;
}

/* A SEND (and a WRITE with immediate, at its end) needs a receive WQE (IBA 9.7.5.2.8). */
static enum rl_resp_state rl_resp_check_resource(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	uint32_t f = c->flags;
	bool needs_recv = (f & RL_OPF_SEND) || ((f & RL_OPF_WRITE) && (f & RL_OPF_IMM));

	if (!needs_recv || rl_resp_take_recv(qp))
		return RESP_CHECK_LENGTH;
	if (qp->type == RL_QPT_RC)
		return RESP_RNR;
	c->why = "no receive buffer posted";
	return RESP_DROP;
}

static enum rl_resp_state rl_resp_check_length(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	const struct rl_pkt *p = c->pkt;
	uint32_t f = c->flags;

	/* IBA 9.7.5.1.4 (C9-114): First and Middle packets carry exactly one path MTU. */
	if ((f & RL_OPF_PAYLOAD) && !(f & RL_OPF_LAST) && p->payload_len != qp->mtu) {
		c->why = "a First/Middle packet whose payload is not the path MTU";
		return qp->type == RL_QPT_RC ? RESP_NAK_INVALID : RESP_DROP;
	}
	if (f & RL_OPF_SEND) {
		uint32_t room = rl_recv_capacity(&qp->resp.recv);
		uint32_t need = qp->resp.recv_off + (uint32_t)p->payload_len +
				(rl_qp_is_ud(qp) ? RL_UD_GRH_LEN : 0);

		if (need > room) {
			c->why = "the message is longer than the receive buffer";
			qp->resp.recv_off = need;
			rl_resp_complete_recv(qp, RL_WC_LOC_LEN_ERR, RL_WC_RECV, p);
			return qp->type == RL_QPT_RC ? RESP_NAK_INVALID : RESP_DROP;
		}
	}
	if ((f & RL_OPF_WRITE) && !(f & RL_OPF_FIRST) && p->payload_len > qp->resp.wleft) {
		c->why = "more WRITE data than the RETH's DMA length";
		return qp->type == RL_QPT_RC ? RESP_NAK_INVALID : RESP_DROP;
	}
	/* The 8 bytes of an ATOMIC WRITE must be what its RETH announces (rxe: ERR_LENGTH). */
	if ((f & RL_OPF_ATOMIC_WRITE) && p->reth.dma_len != p->payload_len) {
		c->why = "an ATOMIC WRITE whose RETH DMA length is not its 8 bytes of payload";
		return RESP_NAK_INVALID;
	}
	return RESP_CHECK_RKEY;
}

/*
 * IBA 9.7.5.2.4 / 10.6: the R_Key must name a region of this QP's PD that
 * grants the access, and va..va+len must lie inside it; atomics need an
 * 8-byte aligned address (IBA 9.4.5). A FLUSH of the whole region has no
 * range to check (rxe: IB_FLUSH_MR skips it).
 */
static enum rl_resp_state rl_resp_check_rkey(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	const struct rl_pkt *p = c->pkt;
	uint32_t f = c->flags, rkey, len, need;
	uint64_t va;

	if ((f & RL_OPF_ATOMIC) && !(f & RL_OPF_ATOMIC_WRITE)) {   /* CmpSwap, FetchAdd: the AtomicETH */
		va = p->atomiceth.va;
		rkey = p->atomiceth.rkey;
		len = 8;
		need = RL_ACCESS_REMOTE_ATOMIC;
		if (va & 7) {
			c->why = "atomic on an address that is not 8-byte aligned";
			return RESP_NAK_INVALID;
		}
	} else if ((f & (RL_OPF_READ | RL_OPF_WRITE)) && !(f & RL_OPF_ATOMIC) && (p->hdrs & RL_HDR_RETH) &&
		   !p->reth.dma_len) {
		/* C9-88: a zero-length READ or WRITE touches no memory; its R_Key and VA are not checked (rxe too). */
		c->mr = NULL;
		return RESP_EXECUTE;
	} else if (p->hdrs & RL_HDR_RETH) {
		va = p->reth.va;
		rkey = p->reth.rkey;
		len = (f & RL_OPF_FLUSH) && p->feth.sel == RL_FLUSH_MR ? 0 : p->reth.dma_len;
		need = rl_resp_access_needed(p, f);
	} else {
		return RESP_EXECUTE;
	}
	c->mr = rl_mr_find_rkey(qp->host, rkey);
	if (!c->mr || c->mr->pd != qp->pd)
		c->why = "R_Key not valid: no such memory region in this protection domain";
	else if ((c->mr->access & need) != need)
		c->why = "the memory region does not grant this access";
	else if (len && !rl_mr_ptr(c->mr, va, len))
		c->why = "address range outside the memory region";
	else
		return RESP_EXECUTE;
	return qp->type == RL_QPT_RC ? RESP_NAK_ACCESS : RESP_DROP;
}

/* ---- execute: SEND, WRITE, READ, atomic ------------------------------------------------------ */

/* UD: the first 40 bytes of the buffer get the GRH (RoCEv2 over IPv4: the IPv4 header at offset 20). */
static void rl_resp_ud_grh(const struct rl_pkt *p, uint8_t grh[RL_UD_GRH_LEN])
{
	memset(grh, 0, RL_UD_GRH_LEN);
	if (p->l3 == RL_L3_IPV4) {
		grh[20] = 0x45;
		grh[21] = (uint8_t)(p->ip4.dscp << 2 | p->ip4.ecn);
		rl_put16(grh + 22, p->ip4.total_len);
		grh[28] = p->ip4.ttl;
		grh[29] = RL_IPPROTO_UDP;
		memcpy(grh + 32, p->ip4.src, 4);
		memcpy(grh + 36, p->ip4.dst, 4);
	} else {
		rl_put32(grh, 6u << 28 | (uint32_t)p->ip6.tclass << 20 | p->ip6.flow_label);
		rl_put16(grh + 4, p->ip6.payload_len);
		grh[6] = p->ip6.next_header;
		grh[7] = p->ip6.hop_limit;
		memcpy(grh + 8, p->ip6.src, 16);
		memcpy(grh + 24, p->ip6.dst, 16);
	}
}

static enum rl_resp_state rl_resp_exec_send(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	const struct rl_pkt *p = c->pkt;
	const struct rl_recv_wr *r = &qp->resp.recv;
	enum rl_wc_status st;

	if (rl_qp_is_ud(qp)) {
		uint8_t grh[RL_UD_GRH_LEN];

		rl_resp_ud_grh(p, grh);
		st = rl_sge_copy(qp->host, r->sg_list, r->num_sge, 0, grh, RL_UD_GRH_LEN, true);
		qp->resp.recv_off = RL_UD_GRH_LEN;
	} else {
		st = RL_WC_SUCCESS;
	}
	if (st == RL_WC_SUCCESS)
		st = rl_sge_copy(qp->host, r->sg_list, r->num_sge, qp->resp.recv_off, (void *)p->payload,
				 (uint32_t)p->payload_len, true);
	if (st != RL_WC_SUCCESS) {
		/* IBA 9.9.3: a local error at the responder is a remote operational error for the requester. */
		rl_resp_complete_recv(qp, RL_WC_LOC_PROT_ERR, RL_WC_RECV, p);
		c->why = "the receive buffer's SGE is not valid (local protection error at the responder)";
		return qp->type == RL_QPT_RC ? RESP_NAK_OP_ERROR : RESP_DROP;
	}
	qp->resp.recv_off += (uint32_t)p->payload_len;
	if (c->flags & RL_OPF_LAST) {
		if (p->hdrs & RL_HDR_IETH) {
			struct rl_mr *mr = rl_mr_find_rkey(qp->host, p->ieth_rkey);

			/* IBA 10.6.7.2: SEND with Invalidate retires the R_Key of a region in the QP's PD. */
			if (mr && mr->pd == qp->pd)
				mr->rkey = 0;
		}
		rl_resp_complete_recv(qp, RL_WC_SUCCESS, RL_WC_RECV, p);
	}
	return RESP_ACKNOWLEDGE;
}

static enum rl_resp_state rl_resp_exec_write(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	const struct rl_pkt *p = c->pkt;

	if (c->flags & RL_OPF_FIRST) {
		qp->resp.wmr = c->mr;
		qp->resp.wva = p->reth.va;
		qp->resp.wleft = qp->resp.wlen = p->reth.dma_len;
		if (p->payload_len > qp->resp.wleft) {
			c->why = "more WRITE data than the RETH's DMA length";
			return qp->type == RL_QPT_RC ? RESP_NAK_INVALID : RESP_DROP;
		}
	}
	if (p->payload_len)
		memcpy(rl_mr_ptr(qp->resp.wmr, qp->resp.wva, p->payload_len), p->payload, p->payload_len);
	qp->resp.wva += p->payload_len;
	qp->resp.wleft -= (uint32_t)p->payload_len;
	if ((c->flags & RL_OPF_LAST) && qp->resp.wleft) {
		c->why = "the WRITE ended before the RETH's DMA length";
		return qp->type == RL_QPT_RC ? RESP_NAK_INVALID : RESP_DROP;
	}
	if ((c->flags & RL_OPF_LAST) && (c->flags & RL_OPF_IMM)) {
		qp->resp.recv_off = qp->resp.wlen;   /* byte_len: the length of the whole WRITE */
		rl_resp_complete_recv(qp, RL_WC_SUCCESS, RL_WC_RECV_RDMA_WITH_IMM, p);
	}
	return RESP_ACKNOWLEDGE;
}

static struct rl_resp_res *rl_resp_new_res(struct rl_qp *qp)
{
	struct rl_resp_res *r = &qp->resp.res[qp->resp.res_next];

	/* A ring of max_dest_rd_atomic slots: the oldest answer is forgotten first. */
	qp->resp.res_next = (qp->resp.res_next + 1) % qp->resp.nres;
	memset(r, 0, sizeof(*r));
	r->valid = true;
	return r;
}

/*
 * Send what the port takes of the READ response in progress: First and Last
 * (and Only) carry an AETH (IBA 9.7.5.1.4); PSNs count up. A replay from the
 * middle starts with a Middle packet (or Last, if one is left).
 */
static void rl_resp_reply_send(struct rl_qp *qp)
{
	struct rl_resp_reply *rp = &qp->resp.reply;
	struct rl_mr *mr = rp->len ? rl_mr_find_rkey(qp->host, rp->rkey) : NULL; /* zero bytes: no region (C9-88) */
	size_t room = rl_host_tx_room(qp->host);

	if (rp->len && (!mr || !rl_mr_ptr(mr, rp->va, rp->len))) {
		rl_event(qp, RL_EV_DROP, rp->psn, 0, "the region of a READ response was deregistered");
		rp->active = false;
		return;
	}
	for (; rp->active && room; room--) {
		uint32_t chunk = rp->len - rp->off < qp->mtu ? rp->len - rp->off : qp->mtu;
		bool first = rp->off == 0 && rp->whole, last = rp->off + chunk == rp->len;
		uint32_t pos = (first ? RL_OPF_FIRST : 0) | (last ? RL_OPF_LAST : 0);
		struct rl_pkt p;

		rl_qp_pkt_init(qp, &p, (uint8_t)rl_opcode_find(RL_TR_RC, RL_OPF_RESP | RL_OPF_READ | RL_OPF_PAYLOAD |
								  (pos ? pos : RL_OPF_MIDDLE)));
		p.bth.psn = rp->psn;
		p.aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, rl_resp_credits(qp));
		p.aeth.msn = qp->resp.msn;
		p.payload = chunk ? rl_mr_ptr(mr, rp->va + rp->off, chunk) : NULL;
		p.payload_len = chunk;
		rl_qp_emit(qp, &p);
		rp->off += chunk;
		rp->psn = rl_psn_add(rp->psn, 1);
		rp->active = !last;
	}
}

/* Answer a READ for @len bytes at @va of the region @rkey names, from PSN @psn on. */
static void rl_resp_read_reply(struct rl_qp *qp, uint32_t rkey, uint64_t va, uint32_t len, uint32_t psn, bool whole)
{
	qp->resp.reply = (struct rl_resp_reply){ true, whole, rkey, va, len, 0, psn };
	rl_resp_reply_send(qp);
}

static enum rl_resp_state rl_resp_exec_read(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	const struct rl_pkt *p = c->pkt;
	uint32_t len = p->reth.dma_len, npkts = rl_qp_npkts(qp, len);
	struct rl_resp_res *r = rl_resp_new_res(qp);

	r->opcode = p->bth.opcode;
	r->first_psn = p->bth.psn;
	r->last_psn = rl_psn_add(p->bth.psn, npkts - 1);
	r->va = p->reth.va;
	r->rkey = p->reth.rkey;
	r->length = len;
	qp->resp.msn++;
	r->msn = qp->resp.msn;
	rl_resp_read_reply(qp, r->rkey, r->va, len, p->bth.psn, true);
	qp->resp.psn = rl_psn_add(r->last_psn, 1);
	return RESP_DONE;
}

/* IBA 9.4.5: Compare&Swap and Fetch&Add on 8 bytes, executed exactly once. */
static enum rl_resp_state rl_resp_exec_atomic(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	const struct rl_pkt *p = c->pkt;
	uint8_t *mem = rl_mr_ptr(c->mr, p->atomiceth.va, 8);
	struct rl_resp_res *r = rl_resp_new_res(qp);
	uint64_t orig, val;
	struct rl_pkt a;

	memcpy(&orig, mem, 8);    /* host order in memory, as a NIC sees it on this host */
	if (c->flags & RL_OPF_CMPSWAP)
		val = orig == p->atomiceth.compare ? p->atomiceth.swap_add : orig;
	else
		val = orig + p->atomiceth.swap_add;
	memcpy(mem, &val, 8);
	r->atomic = true;
	r->opcode = p->bth.opcode;
	r->first_psn = r->last_psn = p->bth.psn;
	r->orig = orig;
	qp->resp.msn++;
	r->msn = qp->resp.msn;

	rl_qp_pkt_init(qp, &a, RL_OP_RC_ATOMIC_ACKNOWLEDGE);
	a.bth.psn = p->bth.psn;
	a.aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, rl_resp_credits(qp));
	a.aeth.msn = qp->resp.msn;
	a.atomicack_orig = orig;
	rl_qp_emit(qp, &a);
	qp->resp.psn = rl_psn_add(p->bth.psn, 1);
	return RESP_DONE;
}

/*
 * FLUSH and ATOMIC WRITE are answered with an RDMA READ response Only that
 * carries no data, first and last at once, so it has the AETH (IBA 1.5 A19;
 * rxe's send_read_response_ack).
 */
static void rl_resp_placement_ack(struct rl_qp *qp, uint32_t psn, uint32_t msn)
{
	struct rl_pkt a;

	rl_qp_pkt_init(qp, &a, RL_OP_RC_RDMA_READ_RESPONSE_ONLY);
	a.bth.psn = psn;
	a.aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, rl_resp_credits(qp));
	a.aeth.msn = msn;
	rl_qp_emit(qp, &a);
	rl_event(qp, RL_EV_ACK_SENT, psn, msn, "zero-length READ response: placed");
}

/*
 * FLUSH and ATOMIC WRITE done: each takes a responder resource, so that a
 * duplicate is answered again without being executed again (rxe, citing
 * oA19-14 and oA19-15 for FLUSH).
 */
static void rl_resp_placed(struct rl_qp *qp, const struct rl_pkt *p)
{
	struct rl_resp_res *r = rl_resp_new_res(qp);

	r->opcode = p->bth.opcode;
	r->first_psn = r->last_psn = p->bth.psn;
	qp->resp.msn++;
	r->msn = qp->resp.msn;
	rl_resp_placement_ack(qp, p->bth.psn, r->msn);
	qp->resp.psn = rl_psn_add(p->bth.psn, 1);
}

/*
 * FLUSH: the writes before it are to be globally visible or persistent.
 * Here memory is the application's buffer and the writes are in it already:
 * nothing is left to do but say so, after the checks.
 */
static enum rl_resp_state rl_resp_exec_flush(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	rl_resp_placed(qp, c->pkt);
	return RESP_DONE;
}

/*
 * ATOMIC WRITE: 8 bytes stored in one piece, never torn (IBA 1.5 A19.4.2:
 * the address must be 8-byte aligned, or it is an invalid request, as rxe's
 * RESPST_ERR_MISALIGNED_ATOMIC is).
 */
static enum rl_resp_state rl_resp_exec_atomic_write(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	const struct rl_pkt *p = c->pkt;

	if (p->reth.va & 7) {
		c->why = "ATOMIC WRITE to an address that is not 8-byte aligned";
		return RESP_NAK_INVALID;
	}
	/* One 8-byte copy: no other packet runs in between, so no one sees half of it. */
	memcpy(rl_mr_ptr(c->mr, p->reth.va, 8), p->payload, 8);
	rl_resp_placed(qp, p);
	return RESP_DONE;
}

static enum rl_resp_state rl_resp_execute(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	uint32_t f = c->flags;

	if (f & RL_OPF_READ)
		return rl_resp_exec_read(qp, c);
	if (f & RL_OPF_FLUSH)
		return rl_resp_exec_flush(qp, c);
	if (f & RL_OPF_ATOMIC_WRITE)
		return rl_resp_exec_atomic_write(qp, c);
	if (f & RL_OPF_ATOMIC)
		return rl_resp_exec_atomic(qp, c);
	if (f & RL_OPF_WRITE)
		return rl_resp_exec_write(qp, c);
	return rl_resp_exec_send(qp, c);
}

/* SEND/WRITE done: count the message, ACK if asked (IBA 9.7.5.1.2: coalescing is allowed). */
static enum rl_resp_state rl_resp_acknowledge(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	const struct rl_pkt *p = c->pkt;

	qp->resp.in_msg = !(c->flags & RL_OPF_LAST);
	qp->resp.last_opcode = p->bth.opcode;
	qp->stats.msgs_recv += !qp->resp.in_msg;
	if (rl_qp_is_ud(qp))
		return RESP_DONE;
	if (c->flags & RL_OPF_LAST)
		qp->resp.msn++;
	qp->resp.psn = rl_psn_add(p->bth.psn, 1);
	if (qp->type == RL_QPT_RC && p->bth.ackreq)
		rl_resp_ack(qp, p->bth.psn);
	return RESP_DONE;
}

/* ---- duplicates (IBA 9.7.5.1.1, C9-105..C9-107) --------------------------------------------- */

static struct rl_resp_res *rl_resp_find_res(struct rl_qp *qp, uint32_t psn)
{
	for (unsigned i = 0; i < qp->resp.nres; i++) {
		struct rl_resp_res *r = &qp->resp.res[i];

		if (r->valid && rl_psn_diff(psn, r->first_psn) >= 0 && rl_psn_diff(r->last_psn, psn) >= 0)
			return r;
	}
	return NULL;
}

static enum rl_resp_state rl_resp_duplicate(struct rl_qp *qp, struct rl_resp_ctx *c)
{
	const struct rl_pkt *p = c->pkt;
	struct rl_resp_res *r;

	if (qp->type != RL_QPT_RC)
		return RESP_DROP;
	if (c->flags & (RL_OPF_SEND | RL_OPF_WRITE)) {
		/* Executed already: say again how far we got. */
		rl_resp_ack(qp, rl_psn_add(qp->resp.psn, 0xffffff));
		return RESP_DONE;
	}
	r = rl_resp_find_res(qp, p->bth.psn);
	if (!r || r->opcode != p->bth.opcode) {
		c->why = "duplicate READ/atomic older than the responder remembers";
		return RESP_DROP;
	}
	if (c->flags & (RL_OPF_FLUSH | RL_OPF_ATOMIC_WRITE)) {
		/* Answer again, but do not store again: a later WRITE may have changed the bytes (rxe: replay). */
		rl_resp_placement_ack(qp, r->first_psn, r->msn);
		return RESP_DONE;
	}
	if (r->atomic) {
		struct rl_pkt a;

		/* Answer from the replay cache: executing twice would add twice. */
		rl_qp_pkt_init(qp, &a, RL_OP_RC_ATOMIC_ACKNOWLEDGE);
		a.bth.psn = r->first_psn;
		a.aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, rl_resp_credits(qp));
		a.aeth.msn = r->msn;
		a.atomicack_orig = r->orig;
		rl_qp_emit(qp, &a);
		return RESP_DONE;
	}
	/* A retried READ may ask for the rest only: it must be a subset of the original. */
	if (!(p->hdrs & RL_HDR_RETH) || p->reth.va < r->va ||
	    p->reth.va + p->reth.dma_len > r->va + r->length ||
	    p->reth.va - r->va != (uint64_t)rl_psn_diff(p->bth.psn, r->first_psn) * qp->mtu) {
		c->why = "a retried READ that is not a part of the original request";
		return RESP_DROP;
	}
	c->mr = r->length ? rl_mr_find_rkey(qp->host, r->rkey) : NULL; /* zero bytes need no region (C9-88) */
	if (r->length && (!c->mr || !rl_mr_ptr(c->mr, p->reth.va, p->reth.dma_len)))
		return RESP_DROP;
	rl_resp_read_reply(qp, r->rkey, p->reth.va, p->reth.dma_len, p->bth.psn, p->bth.psn == r->first_psn);
	return RESP_DONE;
}

/* ---- errors ------------------------------------------------------------------------------------ */

/* IBA 9.9.3.1: after an invalid request, access or operational error NAK the responder QP is in error. */
static enum rl_resp_state rl_resp_nak_fatal(struct rl_qp *qp, struct rl_resp_ctx *c, uint8_t code)
{
	rl_resp_nak(qp, c->pkt->bth.psn, RL_AETH_NAK, code, c->why ? c->why : rl_nak_code_name(code));
	rl_qp_to_error(qp, c->why ? c->why : rl_nak_code_name(code));
	return RESP_DONE;
}

static enum rl_resp_state rl_resp_step(struct rl_qp *qp, enum rl_resp_state s, struct rl_resp_ctx *c)
{
	switch (s) {
	case RESP_CHECK_PSN: return rl_resp_check_psn(qp, c);
	case RESP_CHECK_OP_SEQ: return rl_resp_check_op_seq(qp, c);
	case RESP_CHECK_OP_VALID: return rl_resp_check_op_valid(qp, c);
	case RESP_CHECK_RESOURCE: return rl_resp_check_resource(qp, c);
	case RESP_CHECK_LENGTH: return rl_resp_check_length(qp, c);
	case RESP_CHECK_RKEY: return rl_resp_check_rkey(qp, c);
	case RESP_EXECUTE: return rl_resp_execute(qp, c);
	case RESP_ACKNOWLEDGE: return rl_resp_acknowledge(qp, c);
	case RESP_DUPLICATE: return rl_resp_duplicate(qp, c);
	case RESP_NAK_INVALID: return rl_resp_nak_fatal(qp, c, RL_NAK_INVALID_REQ);
	case RESP_NAK_ACCESS: return rl_resp_nak_fatal(qp, c, RL_NAK_REM_ACCESS_ERR);
	case RESP_NAK_OP_ERROR: return rl_resp_nak_fatal(qp, c, RL_NAK_REM_OP_ERR);
	case RESP_RNR:
		rl_resp_nak(qp, c->pkt->bth.psn, RL_AETH_RNR_NAK, qp->attr.min_rnr_timer,
			    qp->srq ? "receiver not ready: the shared receive queue is empty"
				    : "receiver not ready: no receive buffer posted");
		return RESP_DONE;
	case RESP_DROP:
		rl_event(qp, RL_EV_DROP, c->pkt->bth.psn, 0, c->why ? c->why : "dropped");
		qp->stats.pkts_discarded++;
		/* IBA 9.8.3: UC loses the message a dropped packet belongs to; the rest of it is dropped too. */
		if (qp->type == RL_QPT_UC) {
			/* A First dropped inside a message cuts that one short as well. */
			qp->stats.msgs_discarded += (uint64_t)(qp->resp.in_msg && (c->flags & RL_OPF_FIRST)) +
						    !c->msg_counted;
			qp->resp.in_msg = false;
			qp->resp.recv_off = 0;
			qp->resp.drop_msg = !(c->flags & RL_OPF_LAST);
		}
		return RESP_DONE;
	case RESP_DONE:
		break;
	}
	return RESP_DONE;
}

/* UD (IBA 9.8.4): the Q_Key must match, or the packet is dropped and counted (C10-15). */
static bool rl_resp_ud_qkey_ok(struct rl_qp *qp, const struct rl_pkt *p)
{
	if (p->deth.qkey == qp->attr.qkey)
		return true;
	qp->stats.qkey_violations++;
	if (qp->host->qkey_viol_cntr < RL_PORT_CNTR_MAX)
		qp->host->qkey_viol_cntr++;
	rl_event(qp, RL_EV_DROP, p->bth.psn, p->deth.qkey, "Q_Key violation");
	return false;
}

static void rl_resp_process(struct rl_qp *qp, const struct rl_pkt *pkt)
{
	struct rl_resp_ctx c = { pkt, pkt->op->flags, NULL, NULL, false };
	enum rl_resp_state s = RESP_CHECK_PSN;

	if (rl_qp_is_ud(qp) && !rl_resp_ud_qkey_ok(qp, pkt))
		return;
	while (s != RESP_DONE && qp->state != RL_QPS_ERR)
		s = rl_resp_step(qp, s, &c);
}

/* ---- requests held behind a READ response ------------------------------------------------------ */

static void rl_resp_hold(struct rl_qp *qp, const struct rl_pkt *pkt)
{
	struct rl_resp_held *hd;

	if (!qp->resp.held)
		qp->resp.held = calloc(RL_RESP_HELD_MAX, sizeof(*qp->resp.held));
	if (!qp->resp.held || qp->resp.nheld == RL_RESP_HELD_MAX) {
		rl_event(qp, RL_EV_DROP, pkt->bth.psn, 0, "busy sending a READ response: no room to hold the request");
		qp->stats.pkts_discarded++;
		return;
	}
	hd = &qp->resp.held[(qp->resp.held_head + qp->resp.nheld) % RL_RESP_HELD_MAX];
	hd->pkt = *pkt;
	hd->payload = NULL;
	if (pkt->payload && pkt->payload_len) {
		hd->payload = malloc(pkt->payload_len);
		if (!hd->payload) {
			rl_event(qp, RL_EV_DROP, pkt->bth.psn, 0, "out of memory holding a request");
			qp->stats.pkts_discarded++;
			return;
		}
		memcpy(hd->payload, pkt->payload, pkt->payload_len);
		hd->pkt.payload = hd->payload;
	}
	qp->resp.nheld++;
}

void rl_resp_drop_pending(struct rl_qp *qp)
{
	for (; qp->resp.nheld; qp->resp.nheld--) {
		free(qp->resp.held[qp->resp.held_head].payload);
		qp->resp.held_head = (qp->resp.held_head + 1) % RL_RESP_HELD_MAX;
	}
	free(qp->resp.held);
	qp->resp.held = NULL;
	qp->resp.held_head = 0;
	qp->resp.reply.active = false;
}

void rl_resp_run(struct rl_qp *qp)
{
	if (qp->resp.reply.active)
		rl_resp_reply_send(qp);
	while (!qp->resp.reply.active && qp->resp.nheld && qp->state != RL_QPS_ERR) {
		struct rl_resp_held hd = qp->resp.held[qp->resp.held_head];

		qp->resp.held_head = (qp->resp.held_head + 1) % RL_RESP_HELD_MAX;
		qp->resp.nheld--;
		rl_resp_process(qp, &hd.pkt);
		free(hd.payload);
	}
}

void rl_resp_recv(struct rl_qp *qp, const struct rl_pkt *pkt)
{
	if (rl_resp_pending(qp))
		rl_resp_hold(qp, pkt);
	else
		rl_resp_process(qp, pkt);
}
