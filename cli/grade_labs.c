/* SPDX-License-Identifier: MIT */
/*
 * The question exercises of every lab, and how their true answers are read
 * off a learner's capture: one facts function per lab, over the frames that
 * the core's decoder and analyzer have already been through (grade.c).
 * The questions are the ones in labs/NN-name/answers.txt; each lab's
 * solution/answers.sh reads the same answers with Wireshark's own dissector,
 * and the tests check that both agree.
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
	return f->p.bth.opcode == 0x11 && rl_syndrome_type(f->p.aeth.syndrome) == t;
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

/* @key: the packets of the client's message @k of @kind; its first Middle packet to *@middle. */
static void gl_set_packets(const struct grade_cap *c, struct grade_q *q, int n, const char *key, uint32_t kind, int k,
			   const struct grade_frame **middle)
{
	const struct grade_frame *first = gl_message(c, kind, k), *mid = NULL;
	int pk = first ? gl_message_packets(c, first, &mid) : 0;

	if (pk)
		grade_set(q, n, key, (uint64_t)pk);
	if (middle)
		*middle = pk ? mid : NULL;
}

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
	return f->p.bth.opcode == 0x11;
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
	return gl_client_new_request(c, f) && gl_flag(f, RL_OPF_ATOMIC | RL_OPF_REQ) && !gl_flag(f, RL_OPF_CMPSWAP);
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

/* ---- the labs ------------------------------------------------------------- */

/* Lab 01: frames, the two starting PSNs, the PSN step, the ACK of the client's first SEND and its MSN. */
static void gl_facts_01(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *first = c->client, *second = NULL, *server = NULL;

	grade_set(q, n, "1", c->n);
	if (!first)
		return;
	for (const struct grade_frame *f = first + 1; f < c->f + c->n; f++) {
		if (f->a.role != RL_ROLE_REQUEST)
			continue;
		if (gl_from_client(c, f) && !second)
			second = f;
		else if (!gl_from_client(c, f) && !server)
			server = f;
	}
	grade_set(q, n, "2a", first->p.bth.psn);
	if (server)
		grade_set(q, n, "2b", server->p.bth.psn);
	if (second)
		grade_set(q, n, "3", (second->p.bth.psn - first->p.bth.psn) & PSN_MASK);
	for (const struct grade_frame *f = first; f < c->f + c->n; f++)
		if (f->a.role == RL_ROLE_RESPONSE && f->a.acks && !gl_from_client(c, f) &&
		    rl_psn_diff(first->p.bth.psn, f->a.acked_first) >= 0 && rl_psn_diff(f->a.acked_last, first->p.bth.psn) >= 0) {
			grade_set(q, n, "4a", f->no);
			grade_set(q, n, "4b", f->p.aeth.msn);
			break;
		}
}

/* Lab 02: packets per message at each MTU, the SEND Middle opcode, the pad, a full packet's UDP length. */
static void gl_facts_02(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *m4 = gl_message(c, RL_OPF_SEND, 4), *mid;

	gl_set_packets(c, q, n, "1", RL_OPF_SEND, 1, NULL);
	gl_set_packets(c, q, n, "2", RL_OPF_SEND, 2, &mid);
	if (mid)
		grade_set(q, n, "6", mid->p.udp.len);
	gl_set_packets(c, q, n, "3", RL_OPF_SEND, 3, NULL);
	for (size_t i = 0; i < c->n; i++)
		if (gl_is_client_request(c, &c->f[i]) && gl_flag(&c->f[i], RL_OPF_SEND | RL_OPF_MIDDLE)) {
			grade_set(q, n, "4", c->f[i].p.bth.opcode);
			break;
		}
	if (m4)
		grade_set(q, n, "5", m4->p.bth.padcnt);
}

/* Lab 03: the first RETH, the first WRITE's packets, the immediate data. */
static void gl_facts_03(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *w = gl_find(c, NULL, gl_is_write_reth), *imm = gl_find(c, NULL, gl_is_imm);

	if (w) {
		grade_set(q, n, "1", w->p.reth.rkey);
		grade_set(q, n, "2", w->p.reth.dma_len);
		grade_set(q, n, "3", w->p.reth.va);
	}
	gl_set_packets(c, q, n, "4", RL_OPF_WRITE, 1, NULL);
	if (imm) {
		grade_set(q, n, "5", imm->p.immdt);
		grade_set(q, n, "6", imm->p.bth.opcode);
	}
}

/* Lab 04: the responses of the first READ, the PSNs a READ takes, outstanding READs. */
static void gl_facts_04(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *r1 = gl_find(c, NULL, gl_is_read_req);
	const struct grade_frame *r2 = r1 ? gl_find(c, r1 + 1, gl_is_read_req) : NULL;
	const struct grade_frame *resp = gl_find(c, NULL, gl_is_read_resp);
	uint64_t packets = 0, aeth = 0;

	if (!r1)
		return;
	if (r2)
		grade_set(q, n, "2", (r2->p.bth.psn - r1->p.bth.psn) & PSN_MASK);
	for (const struct grade_frame *f = r1 + 1; f < c->f + c->n; f++) {
		if (!gl_is_read_resp(c, f) || gl_from_client(c, f) || rl_psn_diff(f->p.bth.psn, r1->p.bth.psn) < 0)
			continue;
		packets++;
		aeth += !!(f->p.hdrs & RL_HDR_AETH);
		if (gl_flag(f, RL_OPF_LAST)) {
			grade_set(q, n, "1", packets);
			grade_set(q, n, "3", aeth);
			grade_set(q, n, "4", f->no);
			break;
		}
	}
	if (resp) {
		uint64_t before = 0;

		for (const struct grade_frame *f = c->f; f < resp; f++)
			before += gl_is_read_req(c, f);
		grade_set(q, n, "5", before);
	}
}

/* Lab 05: the add value, the original values returned, the compare value. */
static void gl_facts_05(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *fa = gl_find(c, NULL, gl_is_fetch_add), *cs = gl_find(c, NULL, gl_is_cmp_swap);
	const struct grade_frame *a;

	if (fa)
		grade_set(q, n, "1", fa->p.atomiceth.swap_add);
	if ((a = gl_answer(c, fa, false)) && (a->p.hdrs & RL_HDR_ATOMICACKETH))
		grade_set(q, n, "2", a->p.atomicack_orig);
	if ((a = gl_answer(c, gl_last(c, gl_is_fetch_add), false)) && (a->p.hdrs & RL_HDR_ATOMICACKETH))
		grade_set(q, n, "3", a->p.atomicack_orig);
	if (cs)
		grade_set(q, n, "4", cs->p.atomiceth.compare);
	if ((a = gl_answer(c, gl_last(c, gl_is_cmp_swap), false)) && (a->p.hdrs & RL_HDR_ATOMICACKETH))
		grade_set(q, n, "5", a->p.atomicack_orig);
}

/* Lab 06: requests, ACKs, AckReq, the MSN, coalescing, credits. */
static void gl_facts_06(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *first = gl_find(c, NULL, gl_is_ack), *last = gl_last(c, gl_is_ack);
	uint32_t prev;
	uint64_t most = 0;

	if (!c->client)
		return;
	grade_set(q, n, "1", gl_count(c, gl_is_client_request));
	grade_set(q, n, "2", gl_count(c, gl_is_ack));
	grade_set(q, n, "3", gl_count(c, gl_is_ackreq));
	if (!first)
		return;
	grade_set(q, n, "4", last->p.aeth.msn);
	grade_set(q, n, "6", rl_syndrome_value(first->p.aeth.syndrome));
	prev = (c->client->p.bth.psn - 1) & PSN_MASK;
	for (const struct grade_frame *f = first; f <= last; f++) {
		uint32_t k;

		if (!gl_is_ack(c, f))
			continue;
		k = (f->p.bth.psn - prev) & PSN_MASK;
		most = k > most ? k : most;
		prev = f->p.bth.psn;
	}
	grade_set(q, n, "5", most);
}

/* Lab 07: PSN sequence error NAKs and the resends they cause. */
static void gl_facts_07(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *nak = gl_find(c, NULL, gl_is_seq_nak), *re = gl_find(c, NULL, gl_is_resend);

	if (!c->client)
		return;
	grade_set(q, n, "1", gl_count(c, gl_is_seq_nak));
	if (nak)
		grade_set(q, n, "2", nak->p.bth.psn);
	if (re) {
		grade_set(q, n, "3", re->no);
		grade_set(q, n, "5", re->p.bth.psn);
	}
	grade_set(q, n, "4", gl_count(c, gl_is_resend));
}

/* Lab 08: the RNR NAK, its timer, and the ACK that ends the waiting. */
static void gl_facts_08(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *rnr = gl_find(c, NULL, gl_is_rnr_nak), *ack;
	uint8_t t;

	if (!rnr)
		return;
	t = rl_syndrome_value(rnr->p.aeth.syndrome);
	grade_set(q, n, "1", rnr->no);
	grade_set(q, n, "2", t);
	grade_set(q, n, "3", rl_rnr_timer_us(t));
	grade_set(q, n, "4", gl_count(c, gl_is_rnr_nak));
	if ((ack = gl_find(c, rnr + 1, gl_is_plain_ack)))
		grade_set(q, n, "5", ack->no);
}

/* Lab 09: the NAK of a bad rkey or address, the request it fails, the completion status. */
static void gl_facts_09(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *nak = gl_find(c, NULL, gl_is_nak);

	grade_set(q, n, "5", gl_count(c, gl_is_nak));
	if (!nak)
		return;
	grade_set(q, n, "1", nak->p.aeth.syndrome);
	grade_set(q, n, "2", nak->p.bth.psn);
	grade_set(q, n, "4", rl_nak_wc_status(rl_syndrome_value(nak->p.aeth.syndrome)));
	for (const struct grade_frame *f = nak; f-- > c->f;)
		if (gl_is_client_request(c, f) && f->p.bth.psn == nak->p.bth.psn) {
			if (f->p.hdrs & RL_HDR_RETH)
				grade_set(q, n, "3", f->p.reth.rkey);
			break;
		}
}

/* Lab 10: what goes into frame 1's ICRC. */
static void gl_facts_10(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *f = c->n ? &c->f[0] : NULL;

	if (!f || f->no != 1)
		return;
	grade_set(q, n, "1", rl_icrc_display(f->p.icrc));
	if (f->p.l3 == RL_L3_IPV4)
		grade_set(q, n, "2", f->p.ip4.ttl);
	grade_set(q, n, "3", 8 + f->p.icrc_off - f->p.l3_off);
	if (f->p.roce == RL_ROCE_V2)
		grade_set(q, n, "4", f->p.udp.checksum);
}

/* Lab 11: the DETH, the UD opcode, no ACKs, a datagram's length. */
static void gl_facts_11(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *d = gl_find(c, NULL, gl_is_deth), *cd = gl_find(c, NULL, gl_is_client_deth);

	if (d)
		grade_set(q, n, "1", d->p.deth.qkey);
	if (cd)
		grade_set(q, n, "2", cd->p.deth.src_qp);
	if (c->client) {
		grade_set(q, n, "3", c->client->p.bth.opcode);
		grade_set(q, n, "5", c->client->p.udp.len);
		grade_set(q, n, "4", gl_count(c, gl_is_any_ack_opcode));
	}
}

/* Lab 12: the QPNs and the PSN the exchange agreed on, as they appear on the wire. */
static void gl_facts_12(const struct grade_cap *c, struct grade_q *q, int n)
{
	const struct grade_frame *req = c->client, *ack = gl_find(c, NULL, gl_is_any_ack_opcode);

	grade_set(q, n, "4", c->n);
	if (req) {
		grade_set(q, n, "1", req->p.bth.dqpn);
		grade_set(q, n, "2", req->p.bth.psn);
	}
	if (ack)
		grade_set(q, n, "3", ack->p.bth.dqpn);
}

#define Q(k, w, h) { .key = (k), .what = (w), .how = (h), .points = 1 }

struct grade_lab grade_labs[] = {
	{ "01", gl_facts_01,
	  { Q("1", "how many RoCE frames the capture holds",
	      "the last line of 'rocelab explain', or Statistics -> Protocol Hierarchy"),
	    Q("2a", "the client's starting PSN", "the PSN of the client's first SEND"),
	    Q("2b", "the server's starting PSN", "the PSN of the server's first SEND"),
	    Q("3", "the PSN step from one client SEND to the next",
	      "one PSN per packet, and each SEND here is one packet (IBA 9.7.2)"),
	    Q("4a", "the frame that acknowledges the client's first SEND",
	      "an RC Acknowledge from the server whose PSN is that SEND's"),
	    Q("4b", "the MSN in that acknowledgement", "the AETH of that frame (IBA 9.7.5.1)") } },
	{ "02", gl_facts_02,
	  { Q("1", "packets of the first SEND (path MTU 256)", "count First, Middle... and Last of that message"),
	    Q("2", "packets of the second SEND (path MTU 1024)", "4096 bytes in packets of at most the path MTU"),
	    Q("3", "packets of the third SEND (path MTU 4096)", "a message that fits one packet is an Only"),
	    Q("4", "the OpCode of a SEND Middle packet", "infiniband.bth.opcode of any SEND Middle (IBA Table 38)"),
	    Q("5", "the pad count of the 5-byte SEND", "the BTH PadCnt: payload plus pad is a multiple of 4 (IBA 9.2)"),
	    Q("6", "the UDP length of a SEND Middle packet at path MTU 1024",
	      "udp.length: UDP header, BTH, payload and ICRC") } },
	{ "03", gl_facts_03,
	  { Q("1", "the R_Key of the first RETH", "infiniband.reth.r_key in the WRITE First (IBA 9.3.3)"),
	    Q("2", "the DMA Length of the first RETH", "the whole message's length, carried once in the First packet"),
	    Q("3", "the virtual address of the first RETH", "infiniband.reth.va"),
	    Q("4", "packets of the first RDMA WRITE", "count First, Middle... and Last of that message"),
	    Q("5", "the immediate data", "the ImmDt header of the WRITE Last with Immediate (IBA 9.3.4)"),
	    Q("6", "the OpCode of the packet that carries it", "infiniband.bth.opcode of that packet") } },
	{ "04", gl_facts_04,
	  { Q("1", "READ response packets that answer the first READ", "follow rocelab.request_frame to the request"),
	    Q("2", "the PSN step from the first READ request to the second",
	      "a READ takes one PSN per response packet (IBA 9.7.2)"),
	    Q("3", "how many of those responses carry an AETH", "First and Last carry one, Middle not (IBA 9.7.5.1.4)"),
	    Q("4", "the frame of the first READ's last response", "the READ response Last (or Only) for that READ"),
	    Q("5", "READ requests sent before the first response arrived",
	      "count READ requests above the first READ response") } },
	{ "05", gl_facts_05,
	  { Q("1", "the add value of the first Fetch&Add", "the AtomicETH's Swap/Add Data (IBA 9.3.5)"),
	    Q("2", "the original value returned to the first Fetch&Add",
	      "the AtomicAckETH of the ATOMIC Acknowledge with the same PSN"),
	    Q("3", "the original value returned to the last Fetch&Add", "each Fetch&Add returns the value before it"),
	    Q("4", "the compare value of the first Compare&Swap", "the AtomicETH's Compare Data"),
	    Q("5", "the original value returned to the last Compare&Swap",
	      "the ATOMIC Acknowledge with that request's PSN") } },
	{ "06", gl_facts_06,
	  { Q("1", "request packets the client sent", "filter on the client's address and count"),
	    Q("2", "ACKs the server sent", "RC Acknowledge with an AETH syndrome of type ACK"),
	    Q("3", "request packets with the AckReq bit", "infiniband.bth.a == 1 (IBA 9.2)"),
	    Q("4", "the MSN of the last ACK", "the AETH of the last Acknowledge"),
	    Q("5", "the most request packets one ACK acknowledges",
	      "an ACK covers every PSN up to its own (IBA 9.7.5.1.2): subtract the previous ACK's PSN"),
	    Q("6", "the credit field of the first ACK", "the low 5 bits of its AETH syndrome (IBA 9.7.5.1)") } },
	{ "07", gl_facts_07,
	  { Q("1", "PSN sequence error NAKs", "Acknowledges whose syndrome is 0x60 (rocelab.nak)"),
	    Q("2", "the PSN of the first NAK", "the NAK carries the PSN the responder expects (IBA 9.7.5.2.1)"),
	    Q("3", "the frame of the first resend", "rocelab.analysis.retransmission, or a PSN seen before"),
	    Q("4", "resent request packets", "every request packet whose PSN the client had sent already"),
	    Q("5", "the PSN of the first resend", "go-back-N starts again at the PSN the NAK named") } },
	{ "08", gl_facts_08,
	  { Q("1", "the frame of the first RNR NAK", "an Acknowledge whose syndrome is 0x20-0x3f"),
	    Q("2", "its RNR timer field", "the low 5 bits of the syndrome"),
	    Q("3", "that timer in microseconds", "IBA 9.7.5.2.8, Table 46"),
	    Q("4", "RNR NAKs in all", "count Acknowledges with an RNR NAK syndrome"),
	    Q("5", "the frame of the ACK after the first RNR NAK", "the first Acknowledge of type ACK after it") } },
	{ "09", gl_facts_09,
	  { Q("1", "the syndrome of the first NAK", "infiniband.aeth.syndrome: 0x60 + the NAK code (IBA Table 44)"),
	    Q("2", "the PSN of that NAK", "the BTH of the NAK"),
	    Q("3", "the R_Key of the request it answers", "the RETH of the client's request with that PSN"),
	    Q("4", "the completion status (ibv_wc_status) the work request gets",
	      "remote access error is IBV_WC_REM_ACCESS_ERR in libibverbs' enum"),
	    Q("5", "NAKs in all", "Acknowledges with a syndrome of 0x60-0x7f") } },
	{ "10", gl_facts_10,
	  { Q("1", "the ICRC of frame 1, as Wireshark shows it", "the last 4 bytes of the packet"),
	    Q("2", "the TTL of frame 1", "ip.ttl: a variant field, replaced by ones in the CRC"),
	    Q("3", "the bytes the CRC of frame 1 runs over",
	      "8 bytes of ones, then from the IP header up to the ICRC (IBA A17.3.3)"),
	    Q("4", "the UDP checksum of frame 1", "udp.checksum") } },
	{ "11", gl_facts_11,
	  { Q("1", "the Q_Key", "infiniband.deth.q_key (IBA 9.3.2)"),
	    Q("2", "the client's source QP", "infiniband.deth.src_qp of a client packet"),
	    Q("3", "the OpCode of a UD SEND", "UD opcodes start at 0x60 (IBA Table 38)"),
	    Q("4", "RC Acknowledge packets in the capture", "UD is unreliable: nothing is acknowledged"),
	    Q("5", "the UDP length of the client's first packet", "UDP header, BTH, DETH, payload and ICRC") } },
	{ "12", gl_facts_12,
	  { Q("1", "the QP the first request is for", "infiniband.bth.destqp of the first request"),
	    Q("2", "the PSN of the first request", "the PSN the client announced in the exchange"),
	    Q("3", "the QP the first Acknowledge is for", "the client's own QP number"),
	    Q("4", "RoCE frames in the capture", "the step that failed sent nothing at all") } },
};

const size_t grade_nlabs = sizeof(grade_labs) / sizeof(grade_labs[0]);
