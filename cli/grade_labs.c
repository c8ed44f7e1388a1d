/* SPDX-License-Identifier: MIT */
/*
 * How the true answer to each lab question is read off a learner's capture:
 * one fact function per question, over the frames that the core's decoder
 * and analyzer have already been through (grade.c), in a table keyed by lab
 * and question key. The questions themselves (text, hint) are written in
 * labs/NN-name/lab.def; `rocelab lab` refuses a definition whose keys and
 * this table's differ. Each lab's solution/answers.sh reads the same answers
 * with Wireshark's own dissector, and the tests check that both agree.
 */
#include <string.h>

#include "grade.h"

#define PSN_MASK 0xffffffu

/* ---- what a frame is ------------------------------------------------------ */

static bool gl_same_src(const struct rl_pkt *a, const struct rl_pkt *b)
{
	if (a->l3 != b->l3)
		return false;
	return a->l3 == RL_L3_IPV4 ? !memcmp(a->ip4.src, b->ip4.src, 4) : !memcmp(a->ip6.src, b->ip6.src, 16);
}

static bool gl_from_client(const struct grade_cap *c, const struct grade_frame *f)
{
	return c->client && gl_same_src(&f->p, &c->client->p);
}

static bool gl_flag(const struct grade_frame *f, uint32_t flags)
{
	return (f->p.op->flags & flags) == flags;
}

static bool gl_is_client_request(const struct grade_cap *c, const struct grade_frame *f)
{
	return f->a.role == RL_ROLE_REQUEST && gl_from_client(c, f);
}

/* A request of the client's whose PSN it sent before. */
static bool gl_is_resend(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_client_request(c, f) && (f->a.verdict == RL_V_RETRANSMISSION || f->a.verdict == RL_V_DUPLICATE);
}

/* A request of the client's, sent for the first time. */
static bool gl_client_new_request(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_client_request(c, f) && !gl_is_resend(c, f);
}

/* An RC Acknowledge (not an ATOMIC Acknowledge, not a READ response) of AETH type @t. */
static bool gl_aeth(const struct grade_frame *f, enum rl_aeth_type t)
{
	return f->p.bth.opcode == RL_OP_RC_ACKNOWLEDGE && rl_syndrome_type(f->p.aeth.syndrome) == t;
}

/* ---- messages --------------------------------------------------------------- */

/* The first packet of the client's message number @k (1-based) of kind @kind (RL_OPF_SEND / RL_OPF_WRITE). */
static const struct grade_frame *gl_message(const struct grade_cap *c, uint32_t kind, int k)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct grade_frame *f = &c->f[i];

		if (gl_client_new_request(c, f) && gl_flag(f, kind | RL_OPF_FIRST) && --k == 0)
			return f;
	}
	return NULL;
}

/*
 * The packets of the message starting at @first: the client's new requests
 * to the same QP up to the one that ends it. Returns how many; the first
 * Middle packet goes to *@middle (NULL if none).
 */
static int gl_message_packets(const struct grade_cap *c, const struct grade_frame *first,
			      const struct grade_frame **middle)
{
	int n = 0;

	*middle = NULL;
	for (const struct grade_frame *f = first; f < c->f + c->n; f++) {
		if (!gl_client_new_request(c, f) || f->p.bth.dqpn != first->p.bth.dqpn)
			continue;
		n++;
		if (gl_flag(f, RL_OPF_MIDDLE) && !*middle)
			*middle = f;
		if (gl_flag(f, RL_OPF_LAST))
			return n;
	}
	return 0; /* the capture ends inside the message */
}

/* The packets of the client's message @k of @kind (0 if the capture does not hold it all); its first Middle packet to *@middle. */
static int gl_packets(const struct grade_cap *c, uint32_t kind, int k, const struct grade_frame **middle)
{
	const struct grade_frame *first = gl_message(c, kind, k), *mid = NULL;
	int pk = first ? gl_message_packets(c, first, &mid) : 0;

	if (middle)
		*middle = pk ? mid : NULL;
	return pk;
}

/* *@v = @x, if @f (the frame it comes from) is there. */
#define GL_FROM(f, x) ((f) ? (*v = (x), true) : false)

/* The first frame from @from on of which @pred holds, or NULL. */
static const struct grade_frame *gl_find(const struct grade_cap *c, const struct grade_frame *from,
					 bool (*pred)(const struct grade_cap *, const struct grade_frame *))
{
	for (const struct grade_frame *f = from ? from : c->f; f < c->f + c->n; f++)
		if (pred(c, f))
			return f;
	return NULL;
}

static size_t gl_count(const struct grade_cap *c, bool (*pred)(const struct grade_cap *, const struct grade_frame *))
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++)
		k += pred(c, &c->f[i]);
	return k;
}

/* The last frame of which @pred holds, or NULL. */
static const struct grade_frame *gl_last(const struct grade_cap *c,
					 bool (*pred)(const struct grade_cap *, const struct grade_frame *))
{
	for (size_t i = c->n; i-- > 0;)
		if (pred(c, &c->f[i]))
			return &c->f[i];
	return NULL;
}

/* The response the analyzer linked to request @req, first or last of them. */
static const struct grade_frame *gl_answer(const struct grade_cap *c, const struct grade_frame *req, bool last)
{
	const struct grade_frame *r = NULL;

	for (size_t i = 0; req && i < c->n; i++)
		if (c->f[i].a.role == RL_ROLE_RESPONSE && c->f[i].a.request_frame == req->no) {
			r = &c->f[i];
			if (!last)
				break;
		}
	return r;
}

/* ---- predicates ----------------------------------------------------------- */

static bool gl_is_ackreq(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_client_request(c, f) && f->p.bth.ackreq;
}
static bool gl_is_ack(const struct grade_cap *c, const struct grade_frame *f)
{
	return !gl_from_client(c, f) && gl_aeth(f, RL_AETH_ACK);
}
static bool gl_is_any_ack_opcode(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return f->p.bth.opcode == RL_OP_RC_ACKNOWLEDGE;
}
static bool gl_is_rnr_nak(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return gl_aeth(f, RL_AETH_RNR_NAK);
}
static bool gl_is_nak(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return gl_aeth(f, RL_AETH_NAK);
}
static bool gl_is_seq_nak(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_nak(c, f) && rl_syndrome_value(f->p.aeth.syndrome) == RL_NAK_PSN_SEQ_ERR;
}
static bool gl_is_access_nak(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_nak(c, f) && rl_syndrome_value(f->p.aeth.syndrome) == RL_NAK_REM_ACCESS_ERR;
}
static bool gl_is_plain_ack(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return gl_aeth(f, RL_AETH_ACK);
}
static bool gl_is_write_reth(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_client_request(c, f) && gl_flag(f, RL_OPF_WRITE) && (f->p.hdrs & RL_HDR_RETH);
}
static bool gl_is_imm(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return f->p.hdrs & RL_HDR_IMMDT;
}
static bool gl_is_read_req(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_client_request(c, f) && gl_flag(f, RL_OPF_READ | RL_OPF_REQ);
}
static bool gl_is_read_resp(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return gl_flag(f, RL_OPF_READ | RL_OPF_RESP);
}
static bool gl_is_fetch_add(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_client_new_request(c, f) && gl_flag(f, RL_OPF_ATOMIC | RL_OPF_REQ) && !gl_flag(f, RL_OPF_CMPSWAP) &&
	       !gl_flag(f, RL_OPF_ATOMIC_WRITE);
}
static bool gl_is_cmp_swap(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_client_new_request(c, f) && gl_flag(f, RL_OPF_CMPSWAP | RL_OPF_REQ);
}
static bool gl_is_deth(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return f->p.hdrs & RL_HDR_DETH;
}
static bool gl_is_client_deth(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_deth(c, f) && gl_from_client(c, f);
}

/* ---- the labs: one function per question ------------------------------------------------- */

/* Lab 01: frames, the two starting PSNs, the PSN step, the ACK of the client's first SEND and its MSN. */
static bool gl_01_frames(const struct grade_cap *c, uint64_t *v)
{
	*v = c->n;
	return true;
}

/* The server's first request: a request not from the client, after the client's first. */
static const struct grade_frame *gl_01_server_first(const struct grade_cap *c)
{
	for (const struct grade_frame *f = c->client ? c->client + 1 : c->f + c->n; f < c->f + c->n; f++)
		if (f->a.role == RL_ROLE_REQUEST && !gl_from_client(c, f))
			return f;
	return NULL;
}

/* The server's response that acknowledges the client's first request. */
static const struct grade_frame *gl_01_first_ack(const struct grade_cap *c)
{
	const struct grade_frame *first = c->client;

	for (const struct grade_frame *f = first; f && f < c->f + c->n; f++)
		if (f->a.role == RL_ROLE_RESPONSE && f->a.acks && !gl_from_client(c, f) &&
		    rl_psn_diff(first->p.bth.psn, f->a.acked_first) >= 0 && rl_psn_diff(f->a.acked_last, first->p.bth.psn) >= 0)
			return f;
	return NULL;
}

static bool gl_01_client_psn(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, c->client->p.bth.psn);
}

static bool gl_01_server_psn(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *server = gl_01_server_first(c);

	return GL_FROM(server, server->p.bth.psn);
}

/* From the client's first SEND to its second: one PSN per packet of the first (IBA 9.7.2). */
static bool gl_01_psn_step(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *m1 = gl_message(c, RL_OPF_SEND, 1), *m2 = gl_message(c, RL_OPF_SEND, 2);

	return GL_FROM(m1 && m2, (m2->p.bth.psn - m1->p.bth.psn) & PSN_MASK);
}

static bool gl_01_ack_frame(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *ack = gl_01_first_ack(c);

	return GL_FROM(ack, ack->no);
}

static bool gl_01_ack_msn(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *ack = gl_01_first_ack(c);

	return GL_FROM(ack, ack->p.aeth.msn);
}

/*
 * Lab 03: connection management (IBA 12). The client is the active side (its
 * REQ is the first request of the capture), the server the passive side.
 */

/* Does @f carry CM message @attr (RL_CM_REQ ..)? */
static bool gl_cm_is(const struct grade_frame *f, uint16_t attr)
{
	return f->cm && f->cm->attr == attr;
}

/* The first CM message @attr from the client (@from_client) or from the server; NULL if none. */
static const struct grade_frame *gl_cm_first(const struct grade_cap *c, uint16_t attr, bool from_client)
{
	for (size_t i = 0; i < c->n; i++)
		if (gl_cm_is(&c->f[i], attr) && gl_from_client(c, &c->f[i]) == from_client)
			return &c->f[i];
	return NULL;
}

/* A data packet: a request on a connected QP, not a MAD to QP1. */
static bool gl_is_data_request(const struct grade_frame *f)
{
	return f->a.role == RL_ROLE_REQUEST && f->p.bth.dqpn != RL_GSI_QPN;
}

/* The server's first data request: rping's first RDMA READ. */
static const struct grade_frame *gl_03_server_first(const struct grade_cap *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (gl_is_data_request(&c->f[i]) && !gl_from_client(c, &c->f[i]))
			return &c->f[i];
	return NULL;
}

/* The active side's ESTABLISHED: the REP (IBA 12.9.5.2; it answers with the RTU). */
static bool gl_03_client_established(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *rep = gl_cm_first(c, RL_CM_REP, false);

	return GL_FROM(rep, rep->no);
}

/*
 * The passive side's ESTABLISHED: the RTU, or the client's first data packet
 * if it comes first (the RTU lost: the CM takes that packet for it, IBA 12.9.6.3).
 */
static bool gl_03_server_established(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *rep = gl_cm_first(c, RL_CM_REP, false);

	for (const struct grade_frame *f = rep ? rep + 1 : c->f + c->n; f < c->f + c->n; f++)
		if (gl_from_client(c, f) && (gl_cm_is(f, RL_CM_RTU) || gl_is_data_request(f)))
			return GL_FROM(f, f->no);
	return false;
}

/* The frames the CM exchange took before the first data packet (with any resent ones). */
static bool gl_03_cm_frames(const struct grade_cap *c, uint64_t *v)
{
	uint64_t k = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (gl_is_data_request(&c->f[i]))
			return GL_FROM(k ? &c->f[i] : NULL, k);
		k += c->f[i].cm != NULL;
	}
	return false;
}

static bool gl_03_server_psn(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *f = gl_03_server_first(c);

	return GL_FROM(f, f->p.bth.psn);
}

/* The CM message the analyzer found that PSN in: the REQ's Starting PSN is where the passive side's sends start. */
static bool gl_03_server_psn_frame(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *f = gl_03_server_first(c);

	return GL_FROM(f && f->a.cm.psn_frame, f->a.cm.psn_frame);
}

/* The port of the REQ's service ID: rdma_cm's 0x0000000001 | port space | port. */
static bool gl_03_port(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *req = gl_cm_first(c, RL_CM_REQ, true);
	uint16_t ps, port;

	return GL_FROM(req && rl_cm_service_ps(rl_cm_get(req->cm, RL_CMF_REQ_SERVICE_ID), &ps, &port), port);
}

/*
 * The ibv_rc_pingpong step: its client's first request after the last CM
 * message, and the CM message that announced its PSN (0: none did; the PSN
 * came over TCP).
 */
static bool gl_03_pingpong_psn_frame(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *last_cm = NULL;

	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].cm)
			last_cm = &c->f[i];
	for (const struct grade_frame *f = last_cm ? last_cm + 1 : c->f + c->n; f < c->f + c->n; f++)
		if (gl_is_data_request(f) && gl_from_client(c, f))
			return GL_FROM(f, f->a.cm.psn_frame);
	return false;
}

/* The frames of the rdma_cm connection, from the REQ to the last CM message (the DREP). */
static bool gl_03_rping_frames(const struct grade_cap *c, uint64_t *v)
{
	for (size_t i = c->n; i-- > 0;)
		if (c->f[i].cm)
			return GL_FROM(&c->f[i], (uint64_t)i + 1);
	return false;
}

/* Is @f an RDMA READ request of the server's (rping's server READs the client's buffer)? */
static bool gl_is_server_read(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_data_request(f) && !gl_from_client(c, f) && gl_flag(f, RL_OPF_READ | RL_OPF_REQ);
}

/*
 * How far the server's second RDMA READ's PSN lies past its first's: a READ
 * request takes one PSN for each packet of its response (IBA 9.7.1), and every
 * request the server sent between them takes its own.
 */
static bool gl_03_read_psn_step(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *first = gl_find(c, NULL, gl_is_server_read), *next = first;

	while (next && (next = gl_find(c, next + 1, gl_is_server_read)) && next->p.bth.psn == first->p.bth.psn)
		;
	return GL_FROM(next, (next->p.bth.psn - first->p.bth.psn) & PSN_MASK);
}

/* The server's handle for the connection: its REP's Local Communication ID. */
static bool gl_03_server_comm_id(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *rep = gl_cm_first(c, RL_CM_REP, false);

	return GL_FROM(rep, rl_cm_get(rep->cm, RL_CMF_REP_LOCAL_COMM_ID));
}

/* Lab 04: packets per message at each MTU, the SEND Middle opcode, the pad, a full packet's UDP length. */
static bool gl_04_packets(const struct grade_cap *c, int k, uint64_t *v)
{
	int pk = gl_packets(c, RL_OPF_SEND, k, NULL);

	return GL_FROM(pk, (uint64_t)pk);
}

static bool gl_04_packets_1(const struct grade_cap *c, uint64_t *v)
{
	return gl_04_packets(c, 1, v);
}

static bool gl_04_packets_2(const struct grade_cap *c, uint64_t *v)
{
	return gl_04_packets(c, 2, v);
}

static bool gl_04_packets_3(const struct grade_cap *c, uint64_t *v)
{
	return gl_04_packets(c, 3, v);
}

static bool gl_04_middle_opcode(const struct grade_cap *c, uint64_t *v)
{
	for (size_t i = 0; i < c->n; i++)
		if (gl_is_client_request(c, &c->f[i]) && gl_flag(&c->f[i], RL_OPF_SEND | RL_OPF_MIDDLE))
			return GL_FROM(&c->f[i], c->f[i].p.bth.opcode);
	return false;
}

static bool gl_04_pad(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *m4 = gl_message(c, RL_OPF_SEND, 4);

	return GL_FROM(m4, m4->p.bth.padcnt);
}

static bool gl_04_middle_udp_len(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *mid;

	gl_packets(c, RL_OPF_SEND, 2, &mid);
	return GL_FROM(mid, mid->p.udp.len);
}

/* Lab 04's predictions: the first SEND, of the learner's size at the learner's path MTU. */
static const struct grade_frame *gl_04_first_last(const struct grade_cap *c)
{
	const struct grade_frame *first = gl_message(c, RL_OPF_SEND, 1);

	for (const struct grade_frame *f = first; f && f < c->f + c->n; f++)
		if (gl_client_new_request(c, f) && f->p.bth.dqpn == first->p.bth.dqpn && gl_flag(f, RL_OPF_LAST))
			return f;
	return NULL; /* the capture ends inside it */
}

static bool gl_04_last_payload(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *last = gl_04_first_last(c);

	return GL_FROM(last, last->p.payload_len);
}

static bool gl_04_last_pad(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *last = gl_04_first_last(c);

	return GL_FROM(last, last->p.bth.padcnt);
}

static bool gl_04_first_udp_len(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *first = gl_message(c, RL_OPF_SEND, 1);

	return GL_FROM(first, first->p.udp.len);
}

/* Lab 06: the first RETH, the first WRITE's packets, the immediate data. */
static bool gl_06_rkey(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *w = gl_find(c, NULL, gl_is_write_reth);

	return GL_FROM(w, w->p.reth.rkey);
}

static bool gl_06_dma_len(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *w = gl_find(c, NULL, gl_is_write_reth);

	return GL_FROM(w, w->p.reth.dma_len);
}

static bool gl_06_va(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *w = gl_find(c, NULL, gl_is_write_reth);

	return GL_FROM(w, w->p.reth.va);
}

static bool gl_06_packets(const struct grade_cap *c, uint64_t *v)
{
	int pk = gl_packets(c, RL_OPF_WRITE, 1, NULL);

	return GL_FROM(pk, (uint64_t)pk);
}

static bool gl_06_imm(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *imm = gl_find(c, NULL, gl_is_imm);

	return GL_FROM(imm, imm->p.immdt);
}

static bool gl_06_imm_opcode(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *imm = gl_find(c, NULL, gl_is_imm);

	return GL_FROM(imm, imm->p.bth.opcode);
}

/* Lab 06's prediction: how many packets of the first WRITE carry a RETH. */
static bool gl_06_reths(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *first = gl_message(c, RL_OPF_WRITE, 1);
	uint64_t n = 0;

	for (const struct grade_frame *f = first; f && f < c->f + c->n; f++) {
		if (!gl_client_new_request(c, f) || f->p.bth.dqpn != first->p.bth.dqpn)
			continue;
		n += !!(f->p.hdrs & RL_HDR_RETH);
		if (gl_flag(f, RL_OPF_LAST))
			return GL_FROM(f, n);
	}
	return false; /* the capture ends inside it */
}

/* Lab 07: the responses of the first READ, the PSNs a READ takes, outstanding READs. */

/*
 * The last response (Last or Only) to the client's first READ request, with
 * how many response packets (*@packets) and AETHs (*@aeth) it took; NULL if
 * the capture does not hold it.
 */
static const struct grade_frame *gl_07_last_response(const struct grade_cap *c, uint64_t *packets, uint64_t *aeth)
{
	const struct grade_frame *r1 = gl_find(c, NULL, gl_is_read_req);

	*packets = *aeth = 0;
	for (const struct grade_frame *f = r1 ? r1 + 1 : c->f + c->n; f < c->f + c->n; f++) {
		if (!gl_is_read_resp(c, f) || gl_from_client(c, f) || rl_psn_diff(f->p.bth.psn, r1->p.bth.psn) < 0)
			continue;
		++*packets;
		*aeth += !!(f->p.hdrs & RL_HDR_AETH);
		if (gl_flag(f, RL_OPF_LAST))
			return f;
	}
	return NULL;
}

static bool gl_07_responses(const struct grade_cap *c, uint64_t *v)
{
	uint64_t packets, aeth;
	const struct grade_frame *last = gl_07_last_response(c, &packets, &aeth);

	return GL_FROM(last, packets);
}

static bool gl_07_psn_step(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *r1 = gl_find(c, NULL, gl_is_read_req);
	const struct grade_frame *r2 = r1 ? gl_find(c, r1 + 1, gl_is_read_req) : NULL;

	return GL_FROM(r2, (r2->p.bth.psn - r1->p.bth.psn) & PSN_MASK);
}

static bool gl_07_aeths(const struct grade_cap *c, uint64_t *v)
{
	uint64_t packets, aeth;
	const struct grade_frame *last = gl_07_last_response(c, &packets, &aeth);

	return GL_FROM(last, aeth);
}

static bool gl_07_last_frame(const struct grade_cap *c, uint64_t *v)
{
	uint64_t packets, aeth;
	const struct grade_frame *last = gl_07_last_response(c, &packets, &aeth);

	return GL_FROM(last, last->no);
}

static bool gl_07_outstanding(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *resp = gl_find(c, NULL, gl_is_read_resp);
	uint64_t before = 0;

	if (!gl_find(c, NULL, gl_is_read_req) || !resp)
		return false;
	for (const struct grade_frame *f = c->f; f < resp; f++)
		before += gl_is_read_req(c, f);
	*v = before;
	return true;
}

/* Lab 08: the add value, the original values returned, the compare value. */

/* The original value the ATOMIC Acknowledge of request @req returns. */
static bool gl_08_original(const struct grade_cap *c, const struct grade_frame *req, uint64_t *v)
{
	const struct grade_frame *a = gl_answer(c, req, false);

	return GL_FROM(a && (a->p.hdrs & RL_HDR_ATOMICACKETH), a->p.atomicack_orig);
}

static bool gl_08_add(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *fa = gl_find(c, NULL, gl_is_fetch_add);

	return GL_FROM(fa, fa->p.atomiceth.swap_add);
}

static bool gl_08_first_add_original(const struct grade_cap *c, uint64_t *v)
{
	return gl_08_original(c, gl_find(c, NULL, gl_is_fetch_add), v);
}

static bool gl_08_last_add_original(const struct grade_cap *c, uint64_t *v)
{
	return gl_08_original(c, gl_last(c, gl_is_fetch_add), v);
}

static bool gl_08_compare(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *cs = gl_find(c, NULL, gl_is_cmp_swap);

	return GL_FROM(cs, cs->p.atomiceth.compare);
}

static bool gl_08_last_swap_original(const struct grade_cap *c, uint64_t *v)
{
	return gl_08_original(c, gl_last(c, gl_is_cmp_swap), v);
}

/*
 * Lab 08's predictions: the learner's count of Fetch&Adds. Each takes one
 * PSN (IBA 9.7.2), is one message, and has an ATOMIC Acknowledge of its
 * own that returns the word as it was before it (IBA 9.4.5, 9.7.5.1).
 */

/* The frame numbered @no, or NULL. */
static const struct grade_frame *gl_frame_no(const struct grade_cap *c, uint64_t no)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].no == no)
			return &c->f[i];
	return NULL;
}

/* An ATOMIC Acknowledge that the analyzer linked to a Fetch&Add of the client's, sent first or again. */
static bool gl_is_fetch_add_answer(const struct grade_cap *c, const struct grade_frame *f)
{
	const struct grade_frame *req;

	if (f->p.bth.opcode != RL_OP_RC_ATOMIC_ACKNOWLEDGE || f->a.role != RL_ROLE_RESPONSE)
		return false;
	req = gl_frame_no(c, f->a.request_frame);
	return req && gl_is_client_request(c, req) && req->p.bth.opcode == RL_OP_RC_FETCH_ADD;
}

static bool gl_08_psn_span(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *first = gl_find(c, NULL, gl_is_fetch_add), *last = gl_last(c, gl_is_fetch_add);

	return GL_FROM(first, (last->p.bth.psn - first->p.bth.psn) & PSN_MASK);
}

static bool gl_08_answers(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(gl_find(c, NULL, gl_is_fetch_add), gl_count(c, gl_is_fetch_add_answer));
}

static bool gl_08_last_msn(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *a = gl_answer(c, gl_last(c, gl_is_fetch_add), false);

	return GL_FROM(a && (a->p.hdrs & RL_HDR_AETH), a->p.aeth.msn);
}

/* How much the word grew between the first Fetch&Add and the last: modulo 2^64, as the adapter adds. */
static bool gl_08_original_span(const struct grade_cap *c, uint64_t *v)
{
	uint64_t first, last;

	if (!gl_08_first_add_original(c, &first) || !gl_08_last_add_original(c, &last))
		return false;
	*v = last - first;
	return true;
}

/* Lab 05: requests, ACKs, AckReq, the MSN, coalescing, credits. */
static bool gl_05_requests(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, gl_count(c, gl_is_client_request));
}

static bool gl_05_acks(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, gl_count(c, gl_is_ack));
}

static bool gl_05_ackreqs(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, gl_count(c, gl_is_ackreq));
}

static bool gl_05_last_msn(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *last = c->client ? gl_last(c, gl_is_ack) : NULL;

	return GL_FROM(last, last->p.aeth.msn);
}

/* The most request packets one ACK covers: every PSN after the previous ACK's, up to its own (IBA 9.7.5.1.2). */
static bool gl_05_most_acked(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *first = c->client ? gl_find(c, NULL, gl_is_ack) : NULL, *last = gl_last(c, gl_is_ack);
	uint32_t prev;
	uint64_t most = 0;

	if (!first)
		return false;
	prev = (c->client->p.bth.psn - 1) & PSN_MASK;
	for (const struct grade_frame *f = first; f <= last; f++) {
		uint32_t k;

		if (!gl_is_ack(c, f))
			continue;
		k = (f->p.bth.psn - prev) & PSN_MASK;
		most = k > most ? k : most;
		prev = f->p.bth.psn;
	}
	*v = most;
	return true;
}

static bool gl_05_first_credits(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *first = c->client ? gl_find(c, NULL, gl_is_ack) : NULL;

	return GL_FROM(first, rl_syndrome_value(first->p.aeth.syndrome));
}

/* Lab 05's prediction: how far the client's PSN went, its last new request's PSN less its first's. */
static bool gl_05_psn_span(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *last = c->client ? gl_last(c, gl_client_new_request) : NULL;

	return GL_FROM(last, (last->p.bth.psn - c->client->p.bth.psn) & PSN_MASK);
}

/* Lab 09: PSN sequence error NAKs and the resends they cause. */
static bool gl_09_naks(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, gl_count(c, gl_is_seq_nak));
}

static bool gl_09_nak_psn(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *nak = c->client ? gl_find(c, NULL, gl_is_seq_nak) : NULL;

	return GL_FROM(nak, nak->p.bth.psn);
}

static bool gl_09_resend_frame(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *re = gl_find(c, NULL, gl_is_resend);

	return GL_FROM(re, re->no);
}

static bool gl_09_resends(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, gl_count(c, gl_is_resend));
}

static bool gl_09_resend_psn(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *re = gl_find(c, NULL, gl_is_resend);

	return GL_FROM(re, re->p.bth.psn);
}

/* Lab 10: the RNR NAK, its timer, and the ACK that ends the waiting. */
static bool gl_10_rnr_frame(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *rnr = gl_find(c, NULL, gl_is_rnr_nak);

	return GL_FROM(rnr, rnr->no);
}

static bool gl_10_timer(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *rnr = gl_find(c, NULL, gl_is_rnr_nak);

	return GL_FROM(rnr, rl_syndrome_value(rnr->p.aeth.syndrome));
}

static bool gl_10_timer_us(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *rnr = gl_find(c, NULL, gl_is_rnr_nak);

	return GL_FROM(rnr, rl_rnr_timer_us(rl_syndrome_value(rnr->p.aeth.syndrome)));
}

static bool gl_10_rnr_naks(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(gl_find(c, NULL, gl_is_rnr_nak), gl_count(c, gl_is_rnr_nak));
}

static bool gl_10_ack_frame(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *rnr = gl_find(c, NULL, gl_is_rnr_nak);
	const struct grade_frame *ack = rnr ? gl_find(c, rnr + 1, gl_is_plain_ack) : NULL;

	return GL_FROM(ack, ack->no);
}

/* Lab 11: the NAK of a bad rkey or address, the request it fails, the completion status. */
static bool gl_11_syndrome(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *nak = gl_find(c, NULL, gl_is_nak);

	return GL_FROM(nak, nak->p.aeth.syndrome);
}

static bool gl_11_nak_psn(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *nak = gl_find(c, NULL, gl_is_nak);

	return GL_FROM(nak, nak->p.bth.psn);
}

/* The R_Key of the client's request the first NAK answers (the last one before it with the NAK's PSN). */
static bool gl_11_rkey(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *nak = gl_find(c, NULL, gl_is_nak);

	/* The frames before the NAK, last first. */
	for (size_t i = nak ? (size_t)(nak - c->f) : 0; i-- > 0;) {
		const struct grade_frame *f = &c->f[i];

		if (gl_is_client_request(c, f) && f->p.bth.psn == nak->p.bth.psn)
			return GL_FROM(f->p.hdrs & RL_HDR_RETH, f->p.reth.rkey);
	}
	return false;
}

static bool gl_11_wc_status(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *nak = gl_find(c, NULL, gl_is_nak);

	return GL_FROM(nak, rl_nak_wc_status(rl_syndrome_value(nak->p.aeth.syndrome)));
}

static bool gl_11_naks(const struct grade_cap *c, uint64_t *v)
{
	*v = gl_count(c, gl_is_nak);
	return true;
}

/*
 * Labs 09, 10 and 11's predictions. PSNs are counted from a step's first
 * request's, which the learner cannot know before the run.
 *
 * Lab 09's and 11's are about the last step (the learner's loss position,
 * the WRITE aimed wrong): the client's requests to the QP of its last
 * request, the first of them the base.
 */
static const struct grade_frame *gl_last_step_base(const struct grade_cap *c)
{
	const struct grade_frame *last = gl_last(c, gl_is_client_request);

	for (const struct grade_frame *f = c->f; last && f <= last; f++)
		if (gl_is_client_request(c, f) && f->p.bth.dqpn == last->p.bth.dqpn)
			return f;
	return NULL;
}

/* Is @f a new request of the client's (not a resend) to the QP of the step that @base begins? */
static bool gl_step_request(const struct grade_cap *c, const struct grade_frame *f, const struct grade_frame *base)
{
	return gl_client_new_request(c, f) && f->p.bth.dqpn == base->p.bth.dqpn;
}

/* The PSN the step's first sequence error NAK expects, past its first request's (IBA 9.7.5.2.1). */
static bool gl_09_nak_offset(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *base = gl_last_step_base(c);
	const struct grade_frame *nak = base ? gl_find(c, base, gl_is_seq_nak) : NULL;

	return GL_FROM(nak, (nak->p.bth.psn - base->p.bth.psn) & PSN_MASK);
}

/* Which of the step's WRITEs (1-based) its first resent packet is part of: those begun up to its first sending. */
static bool gl_09_resent_write(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *base = gl_last_step_base(c);
	const struct grade_frame *re = base ? gl_find(c, base, gl_is_resend) : NULL;
	uint64_t writes = 0;

	for (const struct grade_frame *f = base; re && f < re; f++) {
		if (!gl_step_request(c, f, base))
			continue;
		writes += gl_flag(f, RL_OPF_WRITE | RL_OPF_FIRST);
		if (f->p.bth.psn == re->p.bth.psn)
			return GL_FROM(f, writes);
	}
	return false;
}

/* Go-back-N: the step's request packets sent again. */
static bool gl_09_step_resends(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *base = gl_last_step_base(c);

	*v = 0;
	for (const struct grade_frame *f = base; f && f < c->f + c->n; f++)
		*v += gl_is_resend(c, f) && f->p.bth.dqpn == base->p.bth.dqpn;
	return base != NULL;
}

/* Lab 11: the last step's first NAK, and the WRITEs before the PSN it names. */
static const struct grade_frame *gl_11_step_nak(const struct grade_cap *c, const struct grade_frame **base)
{
	*base = gl_last_step_base(c);
	return *base ? gl_find(c, *base, gl_is_nak) : NULL;
}

static bool gl_11_nak_offset(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *base, *nak = gl_11_step_nak(c, &base);

	return GL_FROM(nak, (nak->p.bth.psn - base->p.bth.psn) & PSN_MASK);
}

static bool gl_11_step_syndrome(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *base, *nak = gl_11_step_nak(c, &base);

	return GL_FROM(nak, nak->p.aeth.syndrome);
}

static bool gl_11_completed(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *base, *nak = gl_11_step_nak(c, &base);

	*v = 0;
	for (const struct grade_frame *f = base; nak && f < c->f + c->n; f++)
		*v += gl_step_request(c, f, base) && gl_flag(f, RL_OPF_WRITE | RL_OPF_FIRST) &&
		      rl_psn_diff(f->p.bth.psn, nak->p.bth.psn) < 0;
	return nak != NULL;
}

/* Lab 10's are about its first step (the learner's RNR timer). */

/* The PSN of the client's first request after the first RNR NAK, past the first request's. */
static bool gl_10_retry_offset(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *rnr = c->client ? gl_find(c, NULL, gl_is_rnr_nak) : NULL;
	const struct grade_frame *re = rnr ? gl_find(c, rnr + 1, gl_is_client_request) : NULL;

	return GL_FROM(re, (re->p.bth.psn - c->client->p.bth.psn) & PSN_MASK);
}

/* The first RNR NAK's whole AETH syndrome byte: 001 and the timer code (IBA 9.7.5.1, Table 43). */
static bool gl_10_syndrome(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *rnr = gl_find(c, NULL, gl_is_rnr_nak);

	return GL_FROM(rnr, rnr->p.aeth.syndrome);
}

/* Lab 14: what goes into frame 1's ICRC. */
static const struct grade_frame *gl_14_frame_1(const struct grade_cap *c)
{
	return c->n && c->f[0].no == 1 ? &c->f[0] : NULL;
}

static bool gl_14_icrc(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *f = gl_14_frame_1(c);

	return GL_FROM(f, rl_icrc_display(f->p.icrc));
}

static bool gl_14_ttl(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *f = gl_14_frame_1(c);

	return GL_FROM(f && f->p.l3 == RL_L3_IPV4, f->p.ip4.ttl);
}

/* 8 bytes of ones, then from the IP header up to the ICRC (IBA A17.3.3). */
static bool gl_14_crc_bytes(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *f = gl_14_frame_1(c);

	return GL_FROM(f, 8 + f->p.icrc_off - f->p.l3_off);
}

static bool gl_14_udp_checksum(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *f = gl_14_frame_1(c);

	return GL_FROM(f && f->p.roce == RL_ROCE_V2, f->p.udp.checksum);
}

/* Lab 14's predictions: frame 1 is the learner's SEND; its CRC's length is read as above. */
static bool gl_14_pad(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *f = gl_14_frame_1(c);

	return GL_FROM(f, f->p.bth.padcnt);
}

static bool gl_14_udp_len(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *f = gl_14_frame_1(c);

	return GL_FROM(f && f->p.roce == RL_ROCE_V2, f->p.udp.len);
}

/* Lab 13: the DETH, the UD opcode, no ACKs, a datagram's length. */
static bool gl_13_qkey(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *d = gl_find(c, NULL, gl_is_deth);

	return GL_FROM(d, d->p.deth.qkey);
}

static bool gl_13_src_qp(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *cd = gl_find(c, NULL, gl_is_client_deth);

	return GL_FROM(cd, cd->p.deth.src_qp);
}

static bool gl_13_opcode(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, c->client->p.bth.opcode);
}

static bool gl_13_acks(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, gl_count(c, gl_is_any_ack_opcode));
}

static bool gl_13_udp_len(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, c->client->p.udp.len);
}

/* Lab 13's prediction: the pad of the client's first datagram (IBA 9.2); its UDP length and the ACKs are read as above. */
static bool gl_13_pad(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, c->client->p.bth.padcnt);
}

/* Lab 02: the QPNs and the PSN the exchange agreed on, as they appear on the wire. */
static bool gl_02_request_qp(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, c->client->p.bth.dqpn);
}

static bool gl_02_request_psn(const struct grade_cap *c, uint64_t *v)
{
	return GL_FROM(c->client, c->client->p.bth.psn);
}

static bool gl_02_ack_qp(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *ack = gl_find(c, NULL, gl_is_any_ack_opcode);

	return GL_FROM(ack, ack->p.bth.dqpn);
}

static bool gl_02_frames(const struct grade_cap *c, uint64_t *v)
{
	*v = c->n;
	return true;
}

/*
 * The exchange lines: each step's client writes its QPN, PSN and GID over
 * TCP, and the server answers with its own once its QP is in RTR. The
 * client is the requester's host; without a request, whoever wrote first.
 */
static bool gl_line_from_client(const struct grade_cap *c, const struct grade_line *l)
{
	const struct rl_pkt *client = c->client ? &c->client->p : c->nx ? &c->x[0].p : NULL;

	return client && gl_same_src(&l->p, client);
}

/* The PSN the server announced in the last exchange, that of the step that worked: its QP's first PSN (IBA 9.7.1). */
static bool gl_02_server_psn(const struct grade_cap *c, uint64_t *v)
{
	for (size_t i = c->nx; i-- > 0;)
		if (!gl_line_from_client(c, &c->x[i]))
			return GL_FROM(&c->x[i], c->x[i].psn);
	return false;
}

/* The first 16 bits of the GID the client announced in the first exchange: fe80 is a link-local IPv6 GID. */
static bool gl_02_client_gid(const struct grade_cap *c, uint64_t *v)
{
	for (size_t i = 0; i < c->nx; i++)
		if (gl_line_from_client(c, &c->x[i]))
			return GL_FROM(&c->x[i], (uint64_t)c->x[i].gid[0] << 8 | c->x[i].gid[1]);
	return false;
}

/* Lab 12: the pitfalls. The wrong R_Key's NAK is read as lab 11 reads it; then the link-local GIDs' frames. */
static bool gl_is_link_local(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return f->p.l3 == RL_L3_IPV6 && f->p.ip6.src[0] == 0xfe && (f->p.ip6.src[1] & 0xc0) == 0x80;
}

static bool gl_12_link_local(const struct grade_cap *c, uint64_t *v)
{
	*v = gl_count(c, gl_is_link_local);
	return true;
}

/* The client's first request, counted each time it was sent: once, and once more for each retry. */
static bool gl_12_first_sends(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *first = c->client;

	*v = 0;
	for (const struct grade_frame *f = c->f; first && f < c->f + c->n; f++)
		*v += gl_is_client_request(c, f) && f->p.bth.psn == first->p.bth.psn && f->p.bth.dqpn == first->p.bth.dqpn;
	return first != NULL;
}

/*
 * Lab 12's prediction: the first NAK's PSN past that of the client's first
 * WRITE, the one aimed with the wrong R_Key. The responder checks the R_Key
 * on the packet that carries the RETH and names that packet (IBA 9.7.5.2.4),
 * however many packets the WRITE has.
 */
static bool gl_12_nak_offset(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *w = gl_message(c, RL_OPF_WRITE, 1);
	const struct grade_frame *nak = w ? gl_find(c, w, gl_is_nak) : NULL;

	return GL_FROM(nak, (nak->p.bth.psn - w->p.bth.psn) & PSN_MASK);
}

/*
 * Lab 15: perftest. The SEND, WRITE and READ questions are read as labs 02,
 * 04, 06 and 07 read them; the rest in the ib_send_bw step: the frames before
 * the client's first RDMA WRITE (ib_write_bw, the next step), all of them if
 * there is none (a --gen capture).
 */
static bool gl_is_client_write(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_client_request(c, f) && gl_flag(f, RL_OPF_WRITE);
}

/* The end of the ib_send_bw step: the client's first RDMA WRITE, or the capture's end. */
static const struct grade_frame *gl_15_send_step_end(const struct grade_cap *c)
{
	const struct grade_frame *w = gl_find(c, NULL, gl_is_client_write);

	return w ? w : c->f + c->n;
}

static bool gl_15_send_acks(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *end = gl_15_send_step_end(c);

	*v = 0;
	for (const struct grade_frame *f = c->f; c->client && f < end; f++)
		*v += gl_is_ack(c, f);
	return c->client != NULL;
}

/* The client's SEND packets in the ib_send_bw step, each counted once (not its resends). */
static bool gl_15_send_packets(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *end = gl_15_send_step_end(c);

	*v = 0;
	for (const struct grade_frame *f = c->f; c->client && f < end; f++)
		*v += gl_client_new_request(c, f) && gl_flag(f, RL_OPF_SEND);
	return c->client != NULL;
}

/* The MSN of the server's last ACK in the ib_send_bw step: the SENDs it completed (IBA 9.7.5.1). */
static bool gl_15_send_last_msn(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *end = gl_15_send_step_end(c), *last = NULL;

	for (const struct grade_frame *f = c->f; c->client && f < end; f++)
		if (gl_is_ack(c, f))
			last = f;
	return GL_FROM(last, last->p.aeth.msn);
}

/*
 * Lab 16: congestion. Its questions and predictions are about the last step,
 * two flows into one RED/ECN-marked queue with DCQCN (gen fairness): flow 2
 * is the QP of the client's last request, flow 1 the other QP whose requests
 * go out after flow 2's first (the two share the queue). Earlier steps (one
 * flow each, before the last began) are left out. The capture is taken at the
 * queue's output, so each flow's bytes there are its share of the bottleneck.
 */
struct gl_16_flows {
	const struct grade_frame *first[2], *last[2];   /* each flow's first and last request */
};

static bool gl_16_flows(const struct grade_cap *c, struct gl_16_flows *fl)
{
	const struct grade_frame *last = c->client ? gl_last(c, gl_is_client_request) : NULL;
	uint32_t q[2] = { 0, last ? last->p.bth.dqpn : 0 };
	bool two = false;

	memset(fl, 0, sizeof(*fl));
	for (const struct grade_frame *f = c->f; last && f <= last; f++) {
		if (!gl_is_client_request(c, f))
			continue;
		if (f->p.bth.dqpn == q[1] && !fl->first[1])
			fl->first[1] = f;
		else if (fl->first[1] && f->p.bth.dqpn != q[1] && !two)
			q[0] = f->p.bth.dqpn, two = true;
	}
	for (const struct grade_frame *f = c->f; two && f <= last; f++) {
		for (int i = 0; i < 2; i++) {
			if (!gl_is_client_request(c, f) || f->p.bth.dqpn != q[i])
				continue;
			if (!fl->first[i])
				fl->first[i] = f;
			fl->last[i] = f;
		}
	}
	return two;
}

/* The step's first request: flow 1's (it started first). */
static const struct grade_frame *gl_16_base(const struct grade_cap *c)
{
	struct gl_16_flows fl;

	return gl_16_flows(c, &fl) ? fl.first[0] : NULL;
}

static bool gl_16_is_cnp(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return f->p.bth.opcode == RL_OP_CNP;
}

/* CNPs in the step: the receiver's answers to CE marks (IBA A17.9.3). */
static bool gl_16_cnps(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *base = gl_16_base(c);

	*v = 0;
	for (const struct grade_frame *f = base; f && f < c->f + c->n; f++)
		*v += gl_16_is_cnp(c, f);
	return base != NULL;
}

/* The step's requests that the queue marked Congestion Experienced (RFC 3168: ECN 11). */
static bool gl_16_ce_marked(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *base = gl_16_base(c);

	*v = 0;
	for (const struct grade_frame *f = base; f && f < c->f + c->n; f++)
		*v += gl_is_client_request(c, f) && f->a.ecn_ce;
	return base != NULL;
}

/* The QP flow 2's requests go to (BTH DestQP). */
static bool gl_16_flow2_qp(const struct grade_cap *c, uint64_t *v)
{
	struct gl_16_flows fl;

	return gl_16_flows(c, &fl) && GL_FROM(fl.first[1], fl.first[1]->p.bth.dqpn);
}

static bool gl_16_first_cnp(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *base = gl_16_base(c);
	const struct grade_frame *cnp = base ? gl_find(c, base, gl_16_is_cnp) : NULL;

	return GL_FROM(cnp, cnp->no);
}

/* The step's requests sent again: what the queue dropped, go-back-N's cost (none, if DCQCN keeps it short). */
static bool gl_16_resends(const struct grade_cap *c, uint64_t *v)
{
	struct gl_16_flows fl;
	bool on = gl_16_flows(c, &fl);

	*v = 0;
	for (const struct grade_frame *f = on ? fl.first[0] : c->f + c->n; f < c->f + c->n; f++)
		*v += gl_is_resend(c, f) &&
		      (f->p.bth.dqpn == fl.first[0]->p.bth.dqpn || f->p.bth.dqpn == fl.first[1]->p.bth.dqpn);
	return on;
}

/*
 * Flow @i's share of the bottleneck once both run, in percent rounded to the
 * nearest 10 (the tolerance the predictions state): its request bytes over
 * both flows' in the second half of the time both send, when DCQCN has had
 * time to move them (Zhu et al., SIGCOMM 2015, section 3: both cut on their
 * CNPs and recover towards one target).
 */
static bool gl_16_share(const struct grade_cap *c, int i, uint64_t *v)
{
	struct gl_16_flows fl;
	uint64_t start, end, mid, mine = 0, all = 0;

	if (!gl_16_flows(c, &fl))
		return false;
	start = fl.first[1]->ns;
	end = fl.last[0]->ns < fl.last[1]->ns ? fl.last[0]->ns : fl.last[1]->ns;
	if (end <= start)
		return false;   /* flow 1 ended before flow 2 began: nothing shared */
	mid = start + (end - start) / 2;
	for (const struct grade_frame *f = fl.first[0]; f < c->f + c->n; f++) {
		bool ours = f->p.bth.dqpn == fl.first[i]->p.bth.dqpn;

		if (!gl_is_client_request(c, f) || f->ns < mid || f->ns > end ||
		    (!ours && f->p.bth.dqpn != fl.first[1 - i]->p.bth.dqpn))
			continue;
		all += f->p.frame_len;
		mine += ours ? f->p.frame_len : 0;
	}
	if (!all)
		return false;
	*v = (mine * 20 + all) / (2 * all) * 10;
	return true;
}

static bool gl_16_share_1(const struct grade_cap *c, uint64_t *v)
{
	return gl_16_share(c, 0, v);
}

static bool gl_16_share_2(const struct grade_cap *c, uint64_t *v)
{
	return gl_16_share(c, 1, v);
}

/*
 * ---- multiple choice: where a header rides in a message --------------------------------------
 * Labs 04, 06 and 07 ask which packets of a message of three or more carry
 * something (the AckReq bit, the RETH, the AETH); their lab.def lists the
 * same options in this order, and the capture says which one holds.
 */
enum gl_where {
	GL_WHERE_EVERY = 'a', /* every packet */
	GL_WHERE_ENDS = 'b',  /* the First and the Last, no Middle */
	GL_WHERE_FIRST = 'c', /* the First only */
	GL_WHERE_LAST = 'd',  /* the Last only */
	GL_WHERE_NONE = 'e',  /* none */
};

/* What a message's packets showed: its First's, any and all of its Middles', its Last's. */
struct gl_seen {
	unsigned n;
	bool first, mid_any, mid_all, last;
};

static void gl_seen_add(struct gl_seen *s, const struct grade_frame *f, bool has)
{
	if (!s->n++) {
		s->first = has;
		s->mid_all = true;
	} else if (gl_flag(f, RL_OPF_LAST)) {
		s->last = has;
	} else {
		s->mid_any |= has;
		s->mid_all &= has;
	}
}

/* The option letter @s shows, into *@v; false if it shows none of them (or the message had under 3 packets). */
static bool gl_where(const struct gl_seen *s, uint64_t *v)
{
	if (s->n < 3)
		return false;
	if (s->first && s->mid_all && s->last)
		*v = GL_WHERE_EVERY;
	else if (s->mid_any)
		return false; /* a Middle, not every one: AckReq every so many packets of a long message */
	else
		*v = s->first ? (s->last ? GL_WHERE_ENDS : GL_WHERE_FIRST) : (s->last ? GL_WHERE_LAST : GL_WHERE_NONE);
	return true;
}

/*
 * The packets of the client's message that starts at @first, seen through
 * @has; false if the capture ends inside it.
 */
static bool gl_seen_message(const struct grade_cap *c, const struct grade_frame *first,
			    bool (*has)(const struct grade_frame *), struct gl_seen *s)
{
	for (const struct grade_frame *f = first; f < c->f + c->n; f++) {
		if (!gl_client_new_request(c, f) || f->p.bth.dqpn != first->p.bth.dqpn)
			continue;
		gl_seen_add(s, f, has(f));
		if (gl_flag(f, RL_OPF_LAST))
			return true;
	}
	return false;
}

/* The client's first message of @kind with 3 packets or more, seen through @has: the option letter it shows. */
static bool gl_where_message(const struct grade_cap *c, uint32_t kind, bool (*has)(const struct grade_frame *),
			     uint64_t *v)
{
	for (const struct grade_frame *f = c->f; f < c->f + c->n; f++) {
		struct gl_seen s = { 0 };

		if (!gl_client_new_request(c, f) || !gl_flag(f, kind | RL_OPF_FIRST))
			continue;
		if (!gl_seen_message(c, f, has, &s))
			return false;
		if (s.n >= 3)
			return gl_where(&s, v);
	}
	return false;
}

static bool gl_has_ackreq(const struct grade_frame *f)
{
	return f->p.bth.ackreq;
}

static bool gl_has_reth(const struct grade_frame *f)
{
	return f->p.hdrs & RL_HDR_RETH;
}

/* Lab 04: which packets of a SEND ask for an acknowledgement (IBA 9.7.6.1.1: at least the last). */
static bool gl_04_ackreq_where(const struct grade_cap *c, uint64_t *v)
{
	return gl_where_message(c, RL_OPF_SEND, gl_has_ackreq, v);
}

/* Lab 06: which packets of a WRITE carry the RETH (IBA 9.3.3, 9.4.3: the first). */
static bool gl_06_reth_where(const struct grade_cap *c, uint64_t *v)
{
	return gl_where_message(c, RL_OPF_WRITE, gl_has_reth, v);
}

/* Lab 07: which responses to the first READ carry an AETH (IBA 9.7.5.1.4: First, Last and Only). */
static bool gl_07_aeth_where(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *r1 = gl_find(c, NULL, gl_is_read_req);
	struct gl_seen s = { 0 };

	for (const struct grade_frame *f = r1 ? r1 + 1 : c->f + c->n; f < c->f + c->n; f++) {
		if (!gl_is_read_resp(c, f) || gl_from_client(c, f) || rl_psn_diff(f->p.bth.psn, r1->p.bth.psn) < 0)
			continue;
		gl_seen_add(&s, f, f->p.hdrs & RL_HDR_AETH);
		if (gl_flag(f, RL_OPF_LAST))
			return gl_where(&s, v);
	}
	return false;
}

/*
 * Lab 09: which request a PSN sequence error NAK answers and which PSN it
 * carries (IBA 9.7.5.1.1, C9-101 to C9-106). Its lab.def's options, in order:
 * a the lost packet, with its PSN; b the last packet in order, with its PSN;
 * c the first packet after the gap, with its own PSN; d that packet, with the
 * lost one's PSN. The lost packet is the first the client sends again after
 * the first NAK; the NAK's PSN is the lost one's (a or d), the one before
 * (b) or the one after (c); and for a or d, whether the packet after the gap
 * had gone out before the NAK came back (the NAK answered it) or not.
 */
static bool gl_09_nak_answers(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *nak = c->client ? gl_find(c, NULL, gl_is_seq_nak) : NULL;
	const struct grade_frame *re = nak ? gl_find(c, nak + 1, gl_is_resend) : NULL;
	int32_t d = re ? rl_psn_diff(nak->p.bth.psn, re->p.bth.psn) : 2;

	if (d == 1 || d == -1) {
		*v = d == 1 ? 'c' : 'b';
		return true;
	}
	if (d)
		return false;
	*v = 'a';
	for (const struct grade_frame *f = c->f; f < nak; f++)
		if (gl_client_new_request(c, f) && f->p.bth.dqpn == re->p.bth.dqpn &&
		    f->p.bth.psn == rl_psn_add(re->p.bth.psn, 1))
			*v = 'd';
	return true;
}

/*
 * Lab 11: what the server does with the client's packets after the request
 * its first NAK refused (IBA 9.9.3.1). Its lab.def's options, in order: a it
 * acknowledges them, b it NAKs them with a remote access error, c with a PSN
 * sequence error, d it answers nothing. Its first Acknowledge to that QP
 * after the NAK decides; none, d. False if no packet followed the refused one,
 * or if that Acknowledge is none of the options (an RNR NAK, another NAK code).
 */
static bool gl_11_after_nak(const struct grade_cap *c, uint64_t *v)
{
	const struct grade_frame *end = c->f + c->n;
	const struct grade_frame *nak = c->client ? gl_find(c, NULL, gl_is_nak) : NULL;
	const struct grade_frame *req = NULL, *later = NULL;

	for (const struct grade_frame *f = c->f; nak && f < nak; f++)
		if (gl_is_client_request(c, f) && f->p.bth.psn == nak->p.bth.psn)
			req = f;
	for (const struct grade_frame *f = req ? req + 1 : end; f < end && !later; f++)
		if (gl_is_client_request(c, f) && f->p.bth.dqpn == req->p.bth.dqpn)
			later = f;
	if (!later)
		return false;
	for (const struct grade_frame *f = nak + 1; f < end; f++) {
		if (gl_from_client(c, f) || f->p.bth.opcode != RL_OP_RC_ACKNOWLEDGE || f->p.bth.dqpn != nak->p.bth.dqpn)
			continue;
		if (gl_is_plain_ack(c, f))
			*v = 'a';
		else if (gl_is_access_nak(c, f))
			*v = 'b';
		else if (gl_is_seq_nak(c, f))
			*v = 'c';
		else
			return false;
		return true;
	}
	*v = 'd';
	return true;
}

/* Each question of labs/NN-name/lab.def, by lab and key, and how its answer is read. */
const struct grade_fact grade_facts[] = {
	{ "01", "1", gl_01_frames },
	{ "01", "2a", gl_01_client_psn },
	{ "01", "2b", gl_01_server_psn },
	{ "01", "3", gl_01_psn_step },
	{ "01", "4a", gl_01_ack_frame },
	{ "01", "4b", gl_01_ack_msn },
	/* Lab 01's predictions: the learner's rounds and size; read as lab 05 reads its own. */
	{ "01", "p1", gl_01_psn_step },
	{ "01", "p2", gl_05_last_msn },
	{ "01", "p3", gl_05_psn_span },
	{ "01", "p4", gl_01_frames },
	{ "02", "1", gl_02_request_qp },
	{ "02", "2", gl_02_request_psn },
	{ "02", "3", gl_02_ack_qp },
	{ "02", "4", gl_02_frames },
	{ "02", "5", gl_02_server_psn },
	{ "02", "6", gl_02_client_gid },
	/* Lab 02's predictions: the server's QPN and the SEND's size, the learner's. */
	{ "02", "p1", gl_02_request_qp },
	{ "02", "p2", gl_02_ack_qp },
	{ "02", "p3", gl_02_frames },
	{ "03", "1a", gl_03_client_established },
	{ "03", "1b", gl_03_server_established },
	{ "03", "2", gl_03_cm_frames },
	{ "03", "3a", gl_03_server_psn },
	{ "03", "3b", gl_03_server_psn_frame },
	{ "03", "4", gl_03_port },
	{ "03", "5", gl_03_pingpong_psn_frame },
	{ "03", "6", gl_03_server_comm_id },
	/* Lab 03's predictions: rping's -C and -S, the learner's. */
	{ "03", "p1", gl_03_cm_frames },
	{ "03", "p2", gl_03_rping_frames },
	{ "03", "p3", gl_03_read_psn_step },
	{ "04", "1", gl_04_packets_1 },
	{ "04", "2", gl_04_packets_2 },
	{ "04", "3", gl_04_packets_3 },
	{ "04", "4", gl_04_middle_opcode },
	{ "04", "5", gl_04_pad },
	{ "04", "6", gl_04_middle_udp_len },
	{ "04", "p1", gl_04_packets_1 },
	{ "04", "p2", gl_04_last_payload },
	{ "04", "p3", gl_04_last_pad },
	{ "04", "p4", gl_04_first_udp_len },
	{ "05", "1", gl_05_requests },
	{ "05", "2", gl_05_acks },
	{ "05", "3", gl_05_ackreqs },
	{ "05", "4", gl_05_last_msn },
	{ "05", "5", gl_05_most_acked },
	{ "05", "6", gl_05_first_credits },
	/* Lab 05's predictions: the learner's count, size and path MTU. */
	{ "05", "p1", gl_05_requests },
	{ "05", "p2", gl_05_acks },
	{ "05", "p3", gl_05_last_msn },
	{ "05", "p4", gl_05_psn_span },
	{ "06", "p1", gl_06_packets },
	{ "06", "p2", gl_06_dma_len },
	{ "06", "p3", gl_06_reths },
	{ "06", "1", gl_06_rkey },
	{ "06", "2", gl_06_dma_len },
	{ "06", "3", gl_06_va },
	{ "06", "4", gl_06_packets },
	{ "06", "5", gl_06_imm },
	{ "06", "6", gl_06_imm_opcode },
	{ "07", "1", gl_07_responses },
	{ "07", "2", gl_07_psn_step },
	{ "07", "3", gl_07_aeths },
	{ "07", "4", gl_07_last_frame },
	{ "07", "5", gl_07_outstanding },
	{ "07", "p1", gl_07_responses },
	{ "07", "p2", gl_07_psn_step },
	{ "07", "p3", gl_07_aeths },
	{ "08", "1", gl_08_add },
	{ "08", "2", gl_08_first_add_original },
	{ "08", "3", gl_08_last_add_original },
	{ "08", "4", gl_08_compare },
	{ "08", "5", gl_08_last_swap_original },
	/* Lab 08's predictions: the learner's count of Fetch&Adds. */
	{ "08", "p1", gl_08_psn_span },
	{ "08", "p2", gl_08_answers },
	{ "08", "p3", gl_08_last_msn },
	{ "08", "p4", gl_08_original_span },
	{ "09", "1", gl_09_naks },
	{ "09", "2", gl_09_nak_psn },
	{ "09", "3", gl_09_resend_frame },
	{ "09", "4", gl_09_resends },
	{ "09", "5", gl_09_resend_psn },
	/* Lab 09's predictions (issue 18). */
	{ "09", "p1", gl_09_nak_offset },
	{ "09", "p2", gl_09_resent_write },
	{ "09", "p3", gl_09_step_resends },
	{ "10", "1", gl_10_rnr_frame },
	{ "10", "2", gl_10_timer },
	{ "10", "3", gl_10_timer_us },
	{ "10", "4", gl_10_rnr_naks },
	{ "10", "5", gl_10_ack_frame },
	/* Lab 10's predictions (issue 18). */
	{ "10", "p1", gl_10_timer_us },
	{ "10", "p2", gl_10_retry_offset },
	{ "10", "p3", gl_10_syndrome },
	{ "11", "1", gl_11_syndrome },
	{ "11", "2", gl_11_nak_psn },
	{ "11", "3", gl_11_rkey },
	{ "11", "4", gl_11_wc_status },
	{ "11", "5", gl_11_naks },
	/* Lab 11's predictions (issue 18). */
	{ "11", "p1", gl_11_nak_offset },
	{ "11", "p2", gl_11_step_syndrome },
	{ "11", "p3", gl_11_completed },
	{ "12", "1", gl_11_syndrome },
	{ "12", "2", gl_11_wc_status },
	{ "12", "3", gl_11_rkey },
	{ "12", "4", gl_12_link_local },
	{ "12", "5", gl_12_first_sends },
	/* Lab 12's predictions: the learner's WRITE size; the WRITE with the wrong R_Key is the client's first. */
	{ "12", "p1", gl_06_packets },
	{ "12", "p2", gl_06_dma_len },
	{ "12", "p3", gl_12_nak_offset },
	{ "13", "1", gl_13_qkey },
	{ "13", "2", gl_13_src_qp },
	{ "13", "3", gl_13_opcode },
	{ "13", "4", gl_13_acks },
	{ "13", "5", gl_13_udp_len },
	/* Lab 13's predictions: the learner's datagram size. */
	{ "13", "p1", gl_13_udp_len },
	{ "13", "p2", gl_13_pad },
	{ "13", "p3", gl_13_acks },
	{ "14", "1", gl_14_icrc },
	{ "14", "2", gl_14_ttl },
	{ "14", "3", gl_14_crc_bytes },
	{ "14", "4", gl_14_udp_checksum },
	/* Lab 14's predictions: the learner's SEND size. */
	{ "14", "p1", gl_14_crc_bytes },
	{ "14", "p2", gl_14_pad },
	{ "14", "p3", gl_14_udp_len },
	{ "15", "1", gl_04_packets_1 },
	{ "15", "2", gl_02_request_qp },
	{ "15", "3", gl_06_rkey },
	{ "15", "4", gl_07_responses },
	{ "15", "5", gl_15_send_acks },
	/* Lab 15's predictions: the learner's message size, in the ib_send_bw step. */
	{ "15", "p1", gl_04_packets_1 },
	{ "15", "p2", gl_15_send_packets },
	{ "15", "p3", gl_15_send_last_msn },
	{ "16", "1", gl_16_cnps },
	{ "16", "2", gl_16_ce_marked },
	{ "16", "3", gl_16_flow2_qp },
	{ "16", "4", gl_16_first_cnp },
	/* Lab 16's predictions: the learner's bottleneck rate; the shares are to the nearest 10%. */
	{ "16", "p1", gl_16_resends },
	{ "16", "p2", gl_16_share_1 },
	{ "16", "p3", gl_16_share_2 },
};

const size_t grade_nfacts = sizeof(grade_facts) / sizeof(grade_facts[0]);

/* ---- what each lab's capture holds (lab.def's `needs`) --------------------------------------- */

static bool gl_is_client_send(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_client_request(c, f) && gl_flag(f, RL_OPF_SEND);
}
static bool gl_is_client_atomic(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_client_request(c, f) && gl_flag(f, RL_OPF_ATOMIC | RL_OPF_REQ);
}
/* A NAK for an error of the request itself: invalid request, remote access or operational error (IBA 9.7.5.2.4-6). */
static bool gl_is_error_nak(const struct grade_cap *c, const struct grade_frame *f)
{
	return gl_is_nak(c, f) && !gl_is_seq_nak(c, f);
}
static bool gl_is_cm(const struct grade_cap *c, const struct grade_frame *f)
{
	(void)c;
	return f->cm != NULL;
}

const struct grade_need grade_needs[] = {
	{ "send", gl_is_client_send, "SEND from the client" },
	{ "write", gl_is_client_write, "RDMA WRITE" },
	{ "read", gl_is_read_resp, "RDMA READ response" },
	{ "atomic", gl_is_client_atomic, "atomic request" },
	{ "imm", gl_is_imm, "immediate data" },
	{ "resend", gl_is_resend, "resent request: nothing was lost" },
	{ "seq-nak", gl_is_seq_nak, "PSN sequence error NAK" },
	{ "rnr-nak", gl_is_rnr_nak, "RNR NAK" },
	{ "error-nak", gl_is_error_nak, "NAK for an invalid request or a remote access error" },
	{ "ud", gl_is_client_deth, "UD datagram" },
	{ "cm", gl_is_cm, "CM message on QP1" },
};
const size_t grade_nneeds = sizeof(grade_needs) / sizeof(grade_needs[0]);

/*
 * ---- the multiple-choice questions' right options ----------------------------------------------
 * By lab and key: a letter, from the IBA (each lab's solution/why.txt cites
 * the clause), or read off the capture where it shows which claim holds.
 */
const struct grade_choice grade_choices[] = {
	{ "01", "w1", 'd', NULL },
	{ "01", "w2", 'c', NULL },
	{ "02", "w1", 'c', NULL },
	{ "02", "w2", 'b', NULL },
	{ "03", "w1", 'b', NULL },
	{ "03", "w2", 'a', NULL },
	{ "04", "w1", 0, gl_04_ackreq_where },
	{ "04", "w2", 'c', NULL },
	{ "05", "w1", 'b', NULL },
	{ "05", "w2", 'd', NULL },
	{ "06", "w1", 'b', NULL },
	{ "06", "w2", 0, gl_06_reth_where },
	{ "07", "w1", 'd', NULL },
	{ "07", "w2", 0, gl_07_aeth_where },
	{ "08", "w1", 'c', NULL },
	{ "08", "w2", 'a', NULL },
	{ "09", "w1", 0, gl_09_nak_answers },
	{ "09", "w2", 'a', NULL },
	{ "09", "w3", 'd', NULL },
	{ "10", "w1", 'c', NULL },
	{ "10", "w2", 'a', NULL },
	{ "11", "w1", 'b', NULL },
	{ "11", "w2", 0, gl_11_after_nak },
	{ "12", "w1", 'c', NULL },
	{ "12", "w2", 'd', NULL },
	{ "13", "w1", 'b', NULL },
	{ "13", "w2", 'd', NULL },
	{ "14", "w1", 'c', NULL },
	{ "14", "w2", 'a', NULL },
	{ "15", "w1", 'c', NULL },
	{ "15", "w2", 'd', NULL },
	{ "16", "w1", 'c', NULL },
	{ "16", "w2", 'b', NULL },
	{ "16", "w3", 'a', NULL },
};
const size_t grade_nchoices = sizeof(grade_choices) / sizeof(grade_choices[0]);
