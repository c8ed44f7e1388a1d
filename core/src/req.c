/* SPDX-License-Identifier: MIT */
/*
 * The requester (IBA 9.7.1-9.7.3): turns send work requests into request
 * packets. It segments a message by the path MTU into First/Middle/Last or
 * Only (IBA 9.7.2.1), numbers packets with 24-bit PSNs, asks for an ACK on a
 * message's last packet and after a run of more than RL_MAX_PKT_PER_ACK without, and
 * stops when too much is unacknowledged. Retransmission rewinds its position
 * (comp.c decides when); like rxe_req.c, it then simply runs again.
 */
#include <string.h>

#include "transport.h"

enum rl_req_state {
	REQ_NEXT_WQE,      /* pick the work request to send from */
	REQ_WAIT,          /* a window or the RNR timer says wait */
	REQ_SEND,          /* send one packet of it */
	REQ_DONE,
};

/* FLUSH and ATOMIC WRITE, like the atomics, are one packet whatever the SGEs say (IBA 1.5 A19). */
static bool rl_wr_is_single_packet(enum rl_wr_opcode op)
{
	return rl_wr_is_atomic(op) || op == RL_WR_FLUSH || op == RL_WR_ATOMIC_WRITE;
}

static uint32_t rl_wqe_npkts(const struct rl_qp *qp, const struct rl_send_wqe *w)
{
	return rl_wr_is_single_packet(w->wr.opcode) ? 1 : rl_qp_npkts(qp, w->length);
}

/* READ and atomic requests already outstanding, between the completer and us. */
static unsigned rl_req_rd_atomic_outstanding(const struct rl_qp *qp)
{
	unsigned n = 0;

	for (uint32_t i = qp->sq_head; i != qp->req.wqe; i++)
		n += rl_wr_is_rd_atomic(rl_sq_wqe(qp, i)->wr.opcode);
	return n;
}

/* The opcode for this packet of @w: what it is and where it sits in the message (IBA 9.2). */
static uint8_t rl_req_opcode(struct rl_qp *qp, const struct rl_send_wqe *w, bool first, bool last)
{
	enum rl_transport tr = qp->type == RL_QPT_RC ? RL_TR_RC : qp->type == RL_QPT_UC ? RL_TR_UC : RL_TR_UD;
	uint32_t pos = (first ? RL_OPF_FIRST : 0) | (last ? RL_OPF_LAST : 0);
	uint32_t f = RL_OPF_REQ;

	switch (w->wr.opcode) {
	case RL_WR_RDMA_READ:
		f |= RL_OPF_READ | RL_OPF_FIRST | RL_OPF_LAST;
		break;
	case RL_WR_ATOMIC_CMP_AND_SWP:
		f |= RL_OPF_ATOMIC | RL_OPF_CMPSWAP | RL_OPF_FIRST | RL_OPF_LAST;
		break;
	case RL_WR_ATOMIC_FETCH_AND_ADD:
		f |= RL_OPF_ATOMIC | RL_OPF_FIRST | RL_OPF_LAST;
		break;
	case RL_WR_FLUSH:
		f |= RL_OPF_FLUSH | RL_OPF_FIRST | RL_OPF_LAST;
		break;
	case RL_WR_ATOMIC_WRITE:
		/* The atomic whose operand travels as 8 bytes of payload behind a RETH. */
		f |= RL_OPF_ATOMIC | RL_OPF_ATOMIC_WRITE | RL_OPF_PAYLOAD | RL_OPF_FIRST | RL_OPF_LAST;
		break;
	case RL_WR_RDMA_WRITE:
	case RL_WR_RDMA_WRITE_WITH_IMM:
		f |= RL_OPF_WRITE | RL_OPF_PAYLOAD | (pos ? pos : RL_OPF_MIDDLE);
		if (last && w->wr.opcode == RL_WR_RDMA_WRITE_WITH_IMM)
			f |= RL_OPF_IMM;
		break;
	default:
		f |= RL_OPF_SEND | RL_OPF_PAYLOAD | (pos ? pos : RL_OPF_MIDDLE);
		if (last && w->wr.opcode == RL_WR_SEND_WITH_IMM)
			f |= RL_OPF_IMM;
		if (last && w->wr.opcode == RL_WR_SEND_WITH_INV)
			f |= RL_OPF_INV;
		break;
	}
	/* The table is searched once per kind of packet in a row, not for every packet. */
	if (f != qp->req.op_flags) {
		qp->req.op_flags = f;
		qp->req.opcode = (uint8_t)rl_opcode_find(tr, f);
	}
	return qp->req.opcode;
}

static enum rl_req_state rl_req_next_wqe(struct rl_qp *qp)
{
	struct rl_send_wqe *w;

	if (qp->req.wqe == qp->sq_tail)
		return REQ_DONE;
	if (qp->comp.rnr_until != RL_NEVER)
		return REQ_WAIT;
	/* Congestion control's pacer: not before the current rate allows (rl_host_next_timer says when). */
	if (rl_qp_cc_on(qp) && !rl_qp_cc_may_send(qp))
		return REQ_WAIT;
	w = rl_sq_wqe(qp, qp->req.wqe);
	if (qp->type != RL_QPT_RC)
		return REQ_SEND;
	/* IBA 9.7.7.1: never more unacknowledged PSNs than the window. */
	if (rl_psn_diff(qp->req.psn, qp->comp.psn) >= RL_MAX_UNACKED_PSNS)
		return REQ_WAIT;
	/* IBA 9.4.4, C9-37: at most max_rd_atomic READ/atomic requests outstanding. */
	if (rl_wr_is_rd_atomic(w->wr.opcode) && qp->req.offset == 0 &&
	    rl_req_rd_atomic_outstanding(qp) >= qp->attr.max_rd_atomic)
		return REQ_WAIT;
	return REQ_SEND;
}

/* Gather @len bytes of @w from byte @off into @buf; a bad SGE is a local protection error. */
static enum rl_wc_status rl_req_gather(struct rl_qp *qp, struct rl_send_wqe *w, uint32_t off, uint8_t *buf,
				       uint32_t len)
{
	return rl_sge_copy(qp->host, w->wr.sg_list, w->wr.num_sge, off, buf, len, false);
}

static void rl_req_arm_timer(struct rl_qp *qp)
{
	if (qp->type != RL_QPT_RC || qp->comp.timer != RL_NEVER || qp->attr.timeout == 0)
		return;
	qp->comp.timer = qp->host->now + rl_qp_timeout_ns(qp);
	rl_event(qp, RL_EV_TIMER_ARMED, qp->comp.psn, qp->comp.timer, "retransmit timer");
}

static void rl_req_fill_ud(struct rl_qp *qp, struct rl_send_wqe *w, struct rl_pkt *p)
{
	memcpy(p->eth.dst, w->wr.ud.dmac, 6);
	if (p->l3 == RL_L3_IPV4)
		memcpy(p->ip4.dst, w->wr.ud.dgid + 12, 4);
	else
		memcpy(p->ip6.dst, w->wr.ud.dgid, 16);
	p->bth.dqpn = w->wr.ud.remote_qpn;
	/* IBA 10.2.5: a Q_Key with the high bit set means "use the QP's own". */
	p->deth.qkey = (w->wr.ud.remote_qkey & 0x80000000u) ? qp->attr.qkey : w->wr.ud.remote_qkey;
	p->deth.src_qp = qp->qpn;
}

/* One packet: the next up-to-MTU piece of the message, or the whole READ/atomic request. */
static enum rl_req_state rl_req_send(struct rl_qp *qp)
{
	struct rl_send_wqe *w = rl_sq_wqe(qp, qp->req.wqe);
	uint8_t payload[4096];
	uint32_t off = qp->req.offset, chunk = 0;
	bool first = off == 0, last;
	enum rl_wc_status st;
	struct rl_pkt p;
	size_t sent;

	if (first && !w->started) {
		w->started = true;
		w->first_psn = qp->req.psn;
		w->npkts = rl_wqe_npkts(qp, w);
		/* The value is taken once, as rxe copies it into the WQE: a resend carries the same 8 bytes. */
		if (w->wr.opcode == RL_WR_ATOMIC_WRITE &&
		    (st = rl_req_gather(qp, w, 0, w->atomic_wr, sizeof(w->atomic_wr))) != RL_WC_SUCCESS) {
			w->error = st;
			rl_qp_to_error(qp, "the ATOMIC WRITE value's SGE is outside its memory region or has a bad lkey");
			return REQ_DONE;
		}
	}
	rl_qp_pkt_init(qp, &p, 0);
	p.bth.psn = qp->req.psn;

	if (w->wr.opcode == RL_WR_RDMA_READ) {
		/* A retried READ asks only for what is still missing (IBA 9.7.6.2.2). */
		p.bth.opcode = rl_req_opcode(qp, w, true, true);
		p.reth.va = w->wr.rdma.remote_addr + off;
		p.reth.rkey = w->wr.rdma.rkey;
		p.reth.dma_len = w->length - off;
		last = true;
	} else if (rl_wr_is_atomic(w->wr.opcode)) {
		p.bth.opcode = rl_req_opcode(qp, w, true, true);
		p.atomiceth.va = w->wr.atomic.remote_addr;
		p.atomiceth.rkey = w->wr.atomic.rkey;
		p.atomiceth.swap_add = w->wr.opcode == RL_WR_ATOMIC_CMP_AND_SWP ? w->wr.atomic.swap : w->wr.atomic.compare_add;
		p.atomiceth.compare = w->wr.opcode == RL_WR_ATOMIC_CMP_AND_SWP ? w->wr.atomic.compare_add : 0;
		last = true;
	} else if (w->wr.opcode == RL_WR_FLUSH) {
		/* FETH says what to flush and how far; the RETH names the range (IBA 1.5; no payload, oA19-2). */
		p.bth.opcode = rl_req_opcode(qp, w, true, true);
		p.feth.sel = w->wr.flush.level;
		p.feth.plt = w->wr.flush.type;
		p.reth.va = w->wr.flush.remote_addr;
		p.reth.rkey = w->wr.flush.rkey;
		p.reth.dma_len = w->wr.flush.len;
		last = true;
	} else if (w->wr.opcode == RL_WR_ATOMIC_WRITE) {
		/* A RETH for exactly 8 bytes, and the 8 bytes (IBA 1.5 A19.4). */
		p.bth.opcode = rl_req_opcode(qp, w, true, true);
		p.reth.va = w->wr.rdma.remote_addr;
		p.reth.rkey = w->wr.rdma.rkey;
		p.reth.dma_len = sizeof(w->atomic_wr);
		p.payload = w->atomic_wr;
		p.payload_len = sizeof(w->atomic_wr);
		last = true;
	} else {
		chunk = w->length - off < qp->mtu ? w->length - off : qp->mtu;
		last = off + chunk == w->length;
		p.bth.opcode = rl_req_opcode(qp, w, first, last);
		p.reth.va = w->wr.rdma.remote_addr;
		p.reth.rkey = w->wr.rdma.rkey;
		p.reth.dma_len = w->length;
		p.immdt = w->wr.imm_data;
		p.ieth_rkey = w->wr.invalidate_rkey;
		p.bth.se = last && (w->wr.send_flags & RL_SEND_SOLICITED);
		/* The bytes straight from the region when one SGE holds them all, like a NIC's DMA. */
		p.payload = rl_sge_ptr(qp->host, w->wr.sg_list, w->wr.num_sge, off, chunk);
		st = p.payload || !chunk ? RL_WC_SUCCESS : rl_req_gather(qp, w, off, payload, chunk);
		if (st != RL_WC_SUCCESS) {
			/* IBA 10.8.3: a local protection error fails the WR and moves the QP to ERR. */
			w->error = st;
			rl_qp_to_error(qp, "a send SGE is outside its memory region or has a bad lkey");
			return REQ_DONE;
		}
		if (!p.payload)
			p.payload = payload;
		p.payload_len = chunk;
	}
	if (rl_qp_is_ud(qp))
		rl_req_fill_ud(qp, w, &p);
	p.op = rl_opcode_row(p.bth.opcode);
	p.hdrs = p.op->hdrs;

	/*
	 * AckReq on the last packet, and on the next one once more than
	 * RL_MAX_PKT_PER_ACK went without (IBA 9.7.6.1.1 leaves how often to the
	 * requester). rxe 6.1's init_req_packet() tests its count before adding
	 * the packet to it: after 65 packets without, the 66th asks.
	 * rxe sets it on QP1's MADs too, though nothing answers a UD packet: so
	 * do we, so that our CM frames look like the kernel's.
	 */
	if (qp->type == RL_QPT_GSI ||
	    (qp->type == RL_QPT_RC && (last || qp->req.noack_pkts++ > RL_MAX_PKT_PER_ACK))) {
		p.bth.ackreq = true;
		qp->req.noack_pkts = 0;
	}
	sent = rl_qp_emit(qp, &p);
	if (rl_qp_cc_on(qp))
		rl_qp_cc_sent(qp, sent);
	rl_req_arm_timer(qp);

	/* A READ request takes one PSN per response packet it asks for (IBA 9.7.2.2). */
	qp->req.psn = rl_psn_add(qp->req.psn, w->wr.opcode == RL_WR_RDMA_READ ? rl_qp_npkts(qp, w->length - off) : 1);
	qp->req.offset = off + chunk;
	if (last) {
		qp->req.wqe++;
		qp->req.offset = 0;
		/* UC and UD work requests are done once sent (it is the oldest); RC ones when acknowledged. */
		if (qp->type != RL_QPT_RC)
			rl_comp_complete(qp, RL_WC_SUCCESS);
	}
	return REQ_NEXT_WQE;
}

void rl_req_run(struct rl_qp *qp)
{
	enum rl_req_state s = REQ_NEXT_WQE;

	while (s != REQ_DONE && s != REQ_WAIT && qp->state == RL_QPS_RTS) {
		switch (s) {
		case REQ_NEXT_WQE: s = rl_req_next_wqe(qp); break;
		case REQ_SEND: s = rl_req_send(qp); break;
		default: s = REQ_DONE; break;
		}
	}
}
