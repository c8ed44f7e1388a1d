/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues (IBA 10.2.9, 11.2.3) and the host's asynchronous
 * events (IBA 11.6.3), in the manner of the rxe driver's rxe_srq.c: the
 * verbs that create, post to, modify, query and destroy an SRQ. A QP created
 * with one (rl_qp_init_attr.srq) has no receive queue of its own: its
 * responder takes the oldest WQE of the SRQ when a message needs one
 * (rl_srq_take(), from resp.c), and when there is none an RC responder
 * answers RNR NAK as with an empty receive queue (IBA 9.7.5.2.8).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

const char *rl_async_event_name(enum rl_async_event_type t)
{
	switch (t) {
	case RL_EVENT_SRQ_LIMIT_REACHED: return "SRQ limit reached";
	}
	return "?";
}

/* Queue an asynchronous event; a full queue keeps the older ones (nothing here floods it: each is one-shot). */
static void rl_async_push(struct rl_host *h, const struct rl_async_event *ev)
{
	if (h->async_count == RL_ASYNC_EVENTS)
		return;
	h->async[(h->async_head + h->async_count) % RL_ASYNC_EVENTS] = *ev;
	h->async_count++;
}

int rl_get_async_event(struct rl_host *h, struct rl_async_event *ev)
{
	if (!h->async_count)
		return -EAGAIN;
	*ev = h->async[h->async_head];
	h->async_head = (h->async_head + 1) % RL_ASYNC_EVENTS;
	h->async_count--;
	return 0;
}

static uint32_t rl_srq_count(const struct rl_srq *srq)
{
	return srq->tail - srq->head;
}

/* The attributes create (@srq NULL) or modify may set: rxe_srq_chk_attr()'s checks, in words. */
static int rl_srq_check(struct rl_host *h, const struct rl_srq *srq, const struct rl_srq_attr *a, int mask)
{
	if (mask & RL_SRQ_MAX_WR) {
		if (a->max_wr < 1 || a->max_wr > RL_MAX_SRQ_WR) {
			rl_host_set_error(h, "an SRQ holds 1 to %d receive WQEs, not %u", RL_MAX_SRQ_WR, a->max_wr);
			return -EINVAL;
		}
		if (srq && a->max_wr < rl_srq_count(srq)) {
			rl_host_set_error(h, "max_wr %u is less than the %u WQEs posted to the SRQ", a->max_wr,
					  rl_srq_count(srq));
			return -EINVAL;
		}
		if (srq && srq->limit && a->max_wr < srq->limit) {
			rl_host_set_error(h, "max_wr %u is less than the armed srq_limit %u", a->max_wr, srq->limit);
			return -EINVAL;
		}
	}
	if (mask & RL_SRQ_LIMIT) {
		uint32_t max = (mask & RL_SRQ_MAX_WR) ? a->max_wr : srq->max_wr;

		if (a->srq_limit > max) {
			rl_host_set_error(h, "srq_limit %u is more than the SRQ holds (max_wr %u)", a->srq_limit, max);
			return -EINVAL;
		}
	}
	if (!srq && a->max_sge > RL_MAX_SGE) {
		rl_host_set_error(h, "max_sge %u: an SRQ WQE has at most %d SGEs here", a->max_sge, RL_MAX_SGE);
		return -EINVAL;
	}
	return 0;
}

struct rl_srq *rl_create_srq(struct rl_pd *pd, const struct rl_srq_init_attr *ia)
{
	struct rl_host *h = pd->host;
	struct rl_srq *srq;

	h->err[0] = 0;
	if (!ia) {
		rl_host_set_error(h, "create_srq needs its attributes (max_wr, max_sge)");
		return NULL;
	}
	if (rl_srq_check(h, NULL, &ia->attr, RL_SRQ_MAX_WR))
		return NULL;
	srq = calloc(1, sizeof(*srq));
	if (srq)
		srq->ring = calloc(ia->attr.max_wr, sizeof(*srq->ring));
	if (!srq || !srq->ring) {
		free(srq);
		rl_host_set_error(h, "out of memory");
		return NULL;
	}
	srq->host = h;
	srq->pd = pd;
	srq->context = ia->srq_context;
	srq->max_wr = ia->attr.max_wr;
	srq->max_sge = ia->attr.max_sge ? ia->attr.max_sge : 1;
	/* As ibv_create_srq(3): srq_limit is not armed at creation; rl_modify_srq() arms it. */
	srq->next = h->srqs;
	h->srqs = srq;
	pd->users++;
	return srq;
}

/* A new ring of @max_wr entries with the WQEs posted and not yet taken, oldest first. */
static int rl_srq_resize(struct rl_srq *srq, uint32_t max_wr)
{
	struct rl_recv_wr *ring = calloc(max_wr, sizeof(*ring));
	uint32_t n = rl_srq_count(srq);

	if (!ring) {
		rl_host_set_error(srq->host, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		ring[i] = srq->ring[(srq->head + i) % srq->max_wr];
	free(srq->ring);
	srq->ring = ring;
	srq->max_wr = max_wr;
	srq->head = 0;
	srq->tail = n;
	return 0;
}

int rl_modify_srq(struct rl_srq *srq, const struct rl_srq_attr *attr, int mask)
{
	struct rl_host *h = srq->host;
	int r;

	h->err[0] = 0;
	if (mask & ~(RL_SRQ_MAX_WR | RL_SRQ_LIMIT)) {
		rl_host_set_error(h, "modify_srq changes max_wr (RL_SRQ_MAX_WR) and srq_limit (RL_SRQ_LIMIT) only");
		return -EINVAL;
	}
	if ((r = rl_srq_check(h, srq, attr, mask)))
		return r;
	if ((mask & RL_SRQ_MAX_WR) && attr->max_wr != srq->max_wr && (r = rl_srq_resize(srq, attr->max_wr)))
		return r;
	if (mask & RL_SRQ_LIMIT)
		srq->limit = attr->srq_limit;
	return 0;
}

int rl_query_srq(const struct rl_srq *srq, struct rl_srq_attr *attr)
{
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

uint32_t rl_srq_pending(const struct rl_srq *srq)
{
	return rl_srq_count(srq);
}

void *rl_srq_context(const struct rl_srq *srq)
{
	return srq->context;
}

static void rl_srq_free(struct rl_srq *srq)
{
	srq->pd->users--;
	free(srq->ring);
	free(srq);
}

int rl_destroy_srq(struct rl_srq *srq)
{
	struct rl_host *h = srq->host;
	struct rl_srq **pp;

	if (srq->users) {
		rl_host_set_error(h, "the SRQ is still used by %u QPs: destroy them first", srq->users);
		return -EBUSY;
	}
	for (pp = &h->srqs; *pp != srq; pp = &(*pp)->next)
		;
	*pp = srq->next;
	/* An event not yet taken must not name a freed SRQ. */
	for (unsigned i = 0; i < h->async_count; i++) {
		struct rl_async_event *ev = &h->async[(h->async_head + i) % RL_ASYNC_EVENTS];

		if (ev->event_type == RL_EVENT_SRQ_LIMIT_REACHED && ev->element.srq == srq)
			ev->element.srq = NULL;
	}
	rl_srq_free(srq);
	return 0;
}

void rl_srq_free_all(struct rl_host *h)
{
	while (h->srqs) {
		struct rl_srq *srq = h->srqs;

		h->srqs = srq->next;
		rl_srq_free(srq);
	}
}

int rl_post_srq_recv(struct rl_srq *srq, const struct rl_recv_wr *wr)
{
	struct rl_host *h = srq->host;

	h->err[0] = 0;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge) {
		rl_host_set_error(h, "num_sge %d: this SRQ's WQEs take 0 .. %u (its max_sge)", wr->num_sge, srq->max_sge);
		return -EINVAL;
	}
	if (rl_srq_count(srq) >= srq->max_wr) {
		rl_host_set_error(h, "the SRQ is full (%u work requests, its max_wr)", srq->max_wr);
		return -ENOMEM;
	}
	srq->ring[srq->tail % srq->max_wr] = *wr;
	srq->tail++;
	return 0;
}

/*
 * The responder of @qp takes the SRQ's oldest WQE: WQEs go to whichever QP
 * needs one first, in the order they were posted. IBA 11.6.3: with the limit
 * armed, fewer WQEs left than the limit raises SRQ Limit Reached once, and
 * disarms it (rxe does the same in get_srq_wqe()).
 */
bool rl_srq_take(struct rl_qp *qp, struct rl_recv_wr *wr)
{
	struct rl_srq *srq = qp->srq;
	struct rl_async_event ev;
	uint32_t left;

	if (srq->head == srq->tail)
		return false;
	*wr = srq->ring[srq->head % srq->max_wr];
	srq->head++;
	left = rl_srq_count(srq);
	if (srq->limit && left < srq->limit) {
		srq->limit = 0;
		memset(&ev, 0, sizeof(ev));
		ev.event_type = RL_EVENT_SRQ_LIMIT_REACHED;
		ev.element.srq = srq;
		ev.now = qp->host->now;
		rl_async_push(qp->host, &ev);
		rl_event(qp, RL_EV_SRQ_LIMIT, qp->resp.psn, left, "SRQ limit reached: fewer receive WQEs left than its limit");
	}
	return true;
}
