/* SPDX-License-Identifier: MIT */
/*
 * The completer (IBA 9.7.5.1.x, 9.7.6): reads what the responder sends back
 * -- ACKs, NAKs, READ responses, atomic ACKs -- retires work requests in
 * order with completions, and decides when to go back and resend: after a
 * PSN sequence NAK, an RNR NAK (after waiting), a timeout, or a response
 * that shows another response was lost. As in rxe_comp.c.
 */
#include <string.h>

#include "transport.h"

enum rl_ack_result { ACK_OK, ACK_LOST_RESPONSE };

static uint32_t rl_wqe_last_psn(const struct rl_send_wqe *w)
{
	return rl_psn_add(w->first_psn, w->npkts - 1);
}

static bool rl_comp_outstanding(const struct rl_qp *qp)
{
	return rl_psn_diff(qp->req.psn, qp->comp.psn) > 0;
}

static enum rl_wc_opcode rl_wc_opcode_of(enum rl_wr_opcode op)
{
	switch (op) {
	case RL_WR_RDMA_WRITE: case RL_WR_RDMA_WRITE_WITH_IMM: return RL_WC_RDMA_WRITE;
	case RL_WR_RDMA_READ: return RL_WC_RDMA_READ;
	case RL_WR_ATOMIC_CMP_AND_SWP: return RL_WC_COMP_SWAP;
	case RL_WR_ATOMIC_FETCH_AND_ADD: return RL_WC_FETCH_ADD;
	case RL_WR_FLUSH: return RL_WC_FLUSH;
	case RL_WR_ATOMIC_WRITE: return RL_WC_ATOMIC_WRITE;
	default: return RL_WC_SEND;
	}
}

/*
 * Does the response carry something the work request waits for (READ data,
 * the original value of an atomic)? Then an ACK beyond it means that
 * response was lost. FLUSH and ATOMIC WRITE are answered with a zero-length
 * READ response: a later ACK says the responder executed them, and
 * completes them, as in rxe (not in its WR_ATOMIC_OR_READ_MASK).
 */
static bool rl_wr_resp_has_data(enum rl_wr_opcode op)
{
	return op == RL_WR_RDMA_READ || rl_wr_is_atomic(op);
}

/* The completion event: its words are looked up only when someone listens. */
static void rl_comp_event(struct rl_qp *qp, uint32_t psn, enum rl_wc_status st)
{
	if (qp->host->cfg.event)
		rl_event_emit(qp, RL_EV_COMPLETION, psn, st, rl_wc_status_str(st));
}

/* Errors are always reported (IBA 10.8.3.1). */
void rl_comp_complete(struct rl_qp *qp, enum rl_wc_status st)
{
	struct rl_send_wqe *w = rl_sq_wqe(qp, qp->sq_head);
	struct rl_wc wc = { .wr_id = w->wr.wr_id, .status = st, .opcode = rl_wc_opcode_of(w->wr.opcode),
			    .byte_len = w->length, .qp_num = qp->qpn };

	if (st != RL_WC_SUCCESS || qp->sq_sig_all || (w->wr.send_flags & RL_SEND_SIGNALED))
		rl_cq_push(qp->scq, &wc);
	rl_comp_event(qp, w->first_psn, st);
	qp->sq_head++;
	if (st != RL_WC_SUCCESS)
		rl_qp_to_error(qp, rl_wc_status_str(st));
}

void rl_comp_flush(struct rl_qp *qp)
{
	while (qp->sq_head != qp->sq_tail) {
		struct rl_send_wqe *w = rl_sq_wqe(qp, qp->sq_head);
		struct rl_wc wc = { .wr_id = w->wr.wr_id, .opcode = rl_wc_opcode_of(w->wr.opcode),
				    .status = w->error ? w->error : RL_WC_WR_FLUSH_ERR, .qp_num = qp->qpn };

		rl_cq_push(qp->scq, &wc);
		rl_comp_event(qp, w->first_psn, wc.status);
		qp->sq_head++;
	}
	qp->req.wqe = qp->sq_tail;
	qp->req.offset = 0;
	qp->comp.timer = qp->comp.rnr_until = RL_NEVER;
}

/*
 * The responder acknowledged something new: the retry budgets start over
 * (IBA 9.7.6.1.3; rxe resets them whenever a work request completes), and
 * responses of an abandoned round may start a new retry again.
 */
static void rl_comp_advanced(struct rl_qp *qp)
{
	qp->comp.retrying = false;
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
}

/* After progress: fresh budgets and a fresh timer. */
static void rl_comp_progress(struct rl_qp *qp)
{
	rl_comp_advanced(qp);
	qp->comp.timer = rl_comp_outstanding(qp) && qp->attr.timeout ? qp->host->now + rl_qp_timeout_ns(qp)
								     : RL_NEVER;
}

/*
 * Everything up to and including @psn is acknowledged: retire the work
 * requests it covers. A READ or atomic covered by an ACK but still without
 * its response means that response was lost (IBA 9.7.5.1.5).
 */
static enum rl_ack_result rl_comp_ack_upto(struct rl_qp *qp, uint32_t psn)
{
	while (qp->sq_head != qp->req.wqe || (qp->sq_head != qp->sq_tail && qp->req.offset)) {
		struct rl_send_wqe *w = rl_sq_wqe(qp, qp->sq_head);

		if (!w->started || rl_psn_diff(psn, w->first_psn) < 0)
			break;
		if (rl_psn_diff(psn, rl_wqe_last_psn(w)) < 0) {
			/* Part of a multi-packet SEND/WRITE is acknowledged. */
			if (!rl_wr_is_rd_atomic(w->wr.opcode) && rl_psn_diff(rl_psn_add(psn, 1), qp->comp.psn) > 0) {
				qp->comp.psn = rl_psn_add(psn, 1);
				rl_comp_advanced(qp);
			}
			break;
		}
		if (rl_wr_resp_has_data(w->wr.opcode))
			return ACK_LOST_RESPONSE;
		qp->comp.psn = rl_psn_add(rl_wqe_last_psn(w), 1);
		rl_comp_advanced(qp);
		rl_comp_complete(qp, RL_WC_SUCCESS);
		if (qp->state == RL_QPS_ERR)
			break;
	}
	return ACK_OK;
}

/*
 * Go back to comp.psn and send again from there (go-back-N, IBA 9.7.6.2):
 * the requester resumes at the work request and byte that PSN stands for.
 */
enum rl_retry_cause { RETRY_TIMEOUT, RETRY_RNR, RETRY_NAK, RETRY_LOST_RESPONSE };

static void rl_comp_retry(struct rl_qp *qp, enum rl_retry_cause cause, uint8_t rnr_timer, const char *why)
{
	struct rl_send_wqe *w = rl_sq_wqe(qp, qp->sq_head);
	bool rnr = cause == RETRY_RNR;
	int *left = rnr ? &qp->comp.rnr_left : &qp->comp.retry_left;

	if (qp->sq_head == qp->sq_tail)
		return;
	/*
	 * Once gone back, late responses and NAKs of the old round say nothing
	 * new: only progress, a timeout or an RNR NAK may start another round
	 * (rxe: comp.started_retry). Otherwise one lost packet burns the budget.
	 */
	if ((cause == RETRY_NAK || cause == RETRY_LOST_RESPONSE) && qp->comp.retrying)
		return;
	if (*left == 0) {
		rl_comp_complete(qp, rnr ? RL_WC_RNR_RETRY_EXC_ERR : RL_WC_RETRY_EXC_ERR);
		return;
	}
	if (!rnr || *left != 7)   /* rnr_retry 7 means retry forever (IBA 9.7.5.2.8) */
		(*left)--;
	qp->req.wqe = qp->sq_head;
	qp->req.psn = qp->comp.psn;
	qp->req.noack_pkts = 0;
	if (w->wr.opcode == RL_WR_RDMA_READ)
		qp->req.offset = w->resp_bytes;
	else if (rl_wr_is_atomic(w->wr.opcode) || !w->started)
		qp->req.offset = 0;
	else
		qp->req.offset = (uint32_t)rl_psn_diff(qp->comp.psn, w->first_psn) * qp->mtu;
	qp->comp.timer = RL_NEVER;
	qp->comp.retrying = true;
	qp->stats.retransmits++;
	if (rnr) {
		qp->comp.rnr_until = qp->host->now + (uint64_t)rl_rnr_timer_us(rnr_timer) * 1000;
		rl_event(qp, RL_EV_RNR_WAIT, qp->comp.psn, qp->comp.rnr_until, why);
	}
	rl_event(qp, RL_EV_RETRY, qp->comp.psn, (uint64_t)*left, why);
}

enum rl_wc_status rl_nak_wc_status(uint8_t nak_code)
{
	switch (nak_code) {
	case RL_NAK_INVALID_REQ: return RL_WC_REM_INV_REQ_ERR;
	case RL_NAK_REM_ACCESS_ERR: return RL_WC_REM_ACCESS_ERR;
	case RL_NAK_PSN_SEQ_ERR: return RL_WC_SUCCESS; /* not an error: the requester resends */
	default: return RL_WC_REM_OP_ERR;
	}
}

static void rl_comp_nak(struct rl_qp *qp, const struct rl_pkt *p)
{
	uint8_t syn = p->aeth.syndrome, code = rl_syndrome_value(syn);
	uint32_t psn = p->bth.psn;

	/* A NAK for a PSN already acknowledged arrived late: it must not move us back. */
	if (rl_psn_diff(psn, qp->comp.psn) < 0)
		return;
	/* A NAK acknowledges everything before its PSN (IBA 9.7.5.1.5, C9-120). */
	if (rl_comp_ack_upto(qp, rl_psn_add(psn, 0xffffff)) == ACK_LOST_RESPONSE) {
		rl_comp_retry(qp, RETRY_LOST_RESPONSE, 0, "a READ/atomic response before the NAK was lost");
		return;
	}
	if (qp->state == RL_QPS_ERR || qp->sq_head == qp->req.wqe)
		return;
	if (rl_psn_diff(psn, qp->comp.psn) > 0)
		rl_comp_advanced(qp);
	qp->comp.psn = psn;
	if (rl_syndrome_type(syn) == RL_AETH_RNR_NAK) {
		qp->stats.rnr_naks_recv++;
		rl_comp_retry(qp, RETRY_RNR, code, "RNR NAK: the responder had no receive buffer");
	} else if (code == RL_NAK_PSN_SEQ_ERR) {
		qp->stats.seq_naks_recv++;
		rl_comp_retry(qp, RETRY_NAK, 0, "PSN sequence error NAK: resend from the PSN it names");
	} else {
		rl_comp_complete(qp, rl_nak_wc_status(code));
	}
}

/*
 * FLUSH and ATOMIC WRITE are acknowledged with an RDMA READ response Only
 * of length zero (IBA 1.5 A19; rxe's send_read_response_ack): the work
 * request @w at the head is done once it is placed.
 */
static void rl_comp_placement_ack(struct rl_qp *qp, struct rl_send_wqe *w, const struct rl_pkt *p)
{
	if (w->first_psn != p->bth.psn)
		return;   /* a duplicate or stray response */
	qp->comp.psn = rl_psn_add(p->bth.psn, 1);
	if (!(p->op->flags & RL_OPF_FIRST) || !(p->op->flags & RL_OPF_LAST) || p->payload_len) {
		rl_comp_complete(qp, RL_WC_BAD_RESP_ERR);
		return;
	}
	rl_comp_complete(qp, RL_WC_SUCCESS);
	rl_comp_progress(qp);
}

/* READ response: data for the READ at the head, in PSN order (IBA 9.7.5.1.4). */
static void rl_comp_read_resp(struct rl_qp *qp, const struct rl_pkt *p)
{
	struct rl_send_wqe *w;
	uint32_t off;

	if (p->op->flags & RL_OPF_FIRST || rl_psn_diff(p->bth.psn, qp->comp.psn) > 0) {
		/* Responses acknowledge the requests before this READ (IBA 9.7.5.1.1). */
		if (rl_comp_ack_upto(qp, rl_psn_add(p->bth.psn, 0xffffff)) == ACK_LOST_RESPONSE) {
			rl_comp_retry(qp, RETRY_LOST_RESPONSE, 0, "a response before this READ response was lost");
			return;
		}
	}
	if (qp->sq_head == qp->req.wqe && !qp->req.offset)
		return;
	w = rl_sq_wqe(qp, qp->sq_head);
	if (w->wr.opcode == RL_WR_FLUSH || w->wr.opcode == RL_WR_ATOMIC_WRITE) {
		rl_comp_placement_ack(qp, w, p);
		return;
	}
	if (w->wr.opcode != RL_WR_RDMA_READ || rl_psn_diff(p->bth.psn, qp->comp.psn) < 0)
		return;   /* a duplicate or stray response */
	if (rl_psn_diff(p->bth.psn, qp->comp.psn) > 0) {
		rl_comp_retry(qp, RETRY_LOST_RESPONSE, 0, "a READ response packet was lost: ask again for the rest");
		return;
	}
	off = (uint32_t)rl_psn_diff(p->bth.psn, w->first_psn) * qp->mtu;
	if (off + p->payload_len > w->length ||
	    rl_sge_copy(qp->host, w->wr.sg_list, w->wr.num_sge, off, (void *)p->payload,
			(uint32_t)p->payload_len, true) != RL_WC_SUCCESS) {
		rl_comp_complete(qp, off + p->payload_len > w->length ? RL_WC_BAD_RESP_ERR : RL_WC_LOC_PROT_ERR);
		return;
	}
	w->resp_bytes = off + (uint32_t)p->payload_len;
	qp->comp.psn = rl_psn_add(p->bth.psn, 1);
	if (p->op->flags & RL_OPF_LAST) {
		if (w->resp_bytes != w->length) {
			rl_comp_complete(qp, RL_WC_BAD_RESP_ERR);
			return;
		}
		rl_comp_complete(qp, RL_WC_SUCCESS);
	}
	rl_comp_progress(qp);
}

/* ATOMIC Acknowledge: the value memory held before, into the local 8-byte buffer. */
static void rl_comp_atomic_ack(struct rl_qp *qp, const struct rl_pkt *p)
{
	struct rl_send_wqe *w;

	if (rl_comp_ack_upto(qp, rl_psn_add(p->bth.psn, 0xffffff)) == ACK_LOST_RESPONSE) {
		rl_comp_retry(qp, RETRY_LOST_RESPONSE, 0, "a response before this atomic ACK was lost");
		return;
	}
	if (qp->sq_head == qp->req.wqe)
		return;
	w = rl_sq_wqe(qp, qp->sq_head);
	if (!rl_wr_is_atomic(w->wr.opcode) || w->first_psn != p->bth.psn)
		return;
	if (rl_sge_copy(qp->host, w->wr.sg_list, w->wr.num_sge, 0, (void *)&p->atomicack_orig, 8, true) !=
	    RL_WC_SUCCESS) {
		rl_comp_complete(qp, RL_WC_LOC_PROT_ERR);
		return;
	}
	qp->comp.psn = rl_psn_add(p->bth.psn, 1);
	rl_comp_complete(qp, RL_WC_SUCCESS);
	rl_comp_progress(qp);
}

void rl_comp_recv(struct rl_qp *qp, const struct rl_pkt *p)
{
	uint32_t psn = p->bth.psn;
	uint32_t before = qp->comp.psn;

	/* Only PSNs we sent and that are not acknowledged yet mean anything. */
	if (!rl_comp_outstanding(qp) || rl_psn_diff(psn, qp->comp.psn) < -1 || rl_psn_diff(qp->req.psn, psn) <= 0)
		return;
	if ((p->hdrs & RL_HDR_AETH) && rl_syndrome_type(p->aeth.syndrome) != RL_AETH_ACK) {
		rl_comp_nak(qp, p);
		return;
	}
	if (p->op->flags & RL_OPF_READ) {
		rl_comp_read_resp(qp, p);
		return;
	}
	if (p->hdrs & RL_HDR_ATOMICACKETH) {
		rl_comp_atomic_ack(qp, p);
		return;
	}
	if (rl_comp_ack_upto(qp, psn) == ACK_LOST_RESPONSE) {
		rl_comp_retry(qp, RETRY_LOST_RESPONSE, 0, "the ACK covers a READ/atomic whose response was lost");
		return;
	}
	if (qp->comp.psn != before)
		rl_comp_progress(qp);
}

void rl_comp_timers(struct rl_qp *qp)
{
	uint64_t now = qp->host->now;

	if (qp->comp.rnr_until <= now)
		qp->comp.rnr_until = RL_NEVER;
	if (qp->comp.timer > now)
		return;
	qp->comp.timer = RL_NEVER;
	if (qp->state != RL_QPS_RTS || !rl_comp_outstanding(qp))
		return;
	qp->stats.timeouts++;
	rl_event(qp, RL_EV_TIMER_FIRED, qp->comp.psn, 0, "no ACK before the retransmit timer ran out");
	rl_comp_retry(qp, RETRY_TIMEOUT, 0, "retransmit timeout");
}
