/* SPDX-License-Identifier: MIT */
/*
 * The packet analyzer: follows every RC/UC/UD flow of a capture, packet by
 * packet, and says what each one means in its conversation -- whether its
 * PSN was the one expected, which request a response answers, what a NAK
 * makes the requester do. The same analyzer serves `rocelab explain` and
 * the Wireshark plugin, so both tell the same story.
 *
 * It follows connection management too (IBA 12): the CM MADs on QP1 are
 * linked to the message each answers (a REP to its REQ, an RTU to the REP,
 * a DREP to its DREQ...), resent ones to their first copy, and the first data
 * packet of a QP that a REQ or REP announced to the starting PSN announced.
 *
 * Streaming: feed packets in capture order. Memory grows with the number of
 * live QPs, outstanding requests and CM conversations (each bounded), not
 * with the length of the capture.
 */
#ifndef ROCELAB_ANALYZE_H
#define ROCELAB_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_analyzer;

/* The PSN verdict of a request packet (IBA 9.7.5.1.1, seen from the wire). */
enum rl_verdict {
	RL_V_NONE,            /* not sequenced here: a response, UD, CNP, or a malformed packet */
	RL_V_FIRST,           /* the first packet seen of this flow: it sets the expectation */
	RL_V_IN_ORDER,        /* the PSN expected */
	RL_V_GAP,             /* later than expected: @gap packets before it are missing */
	RL_V_OUT_OF_ORDER,    /* earlier than expected and never seen: overtaken on the way */
	RL_V_RETRANSMISSION,  /* seen before, sent again after a NAK or a timeout */
	RL_V_DUPLICATE,       /* seen before, with no reason to resend: the network copied it */
};
const char *rl_verdict_name(enum rl_verdict v);

/*
 * A CM conversation's state as the wire shows it: the last message seen
 * decides (after IBA 12.9's state diagrams, which each side keeps apart).
 */
enum rl_cm_wire_state {
	RL_CMS_NONE,
	RL_CMS_REQ_SENT,        /* REQ: the active side waits for REP (or REJ, MRA) */
	RL_CMS_MRA_SENT,        /* MRA: the answer is on its way, later than the timeout */
	RL_CMS_REP_SENT,        /* REP: the passive side waits for RTU */
	RL_CMS_ESTABLISHED,     /* RTU (or APR): the QPs may carry data */
	RL_CMS_REJECTED,        /* REJ: no connection */
	RL_CMS_LAP_SENT,        /* LAP: an alternate path is being loaded */
	RL_CMS_DREQ_SENT,       /* DREQ: one side disconnects, waiting for DREP */
	RL_CMS_TIMEWAIT,        /* DREP: disconnected; the IDs rest in TimeWait */
	RL_CMS_SIDR_REQ_SENT,   /* SIDR_REQ: a UD QP asked for */
	RL_CMS_SIDR_ANSWERED,   /* SIDR_REP: the service's UD QP is known (or refused) */
};
const char *rl_cm_wire_state_name(enum rl_cm_wire_state s);

/* What the analyzer says about a CM message, or about the first data packet of a QP CM announced. */
struct rl_cm_annotation {
	/* CM messages (rl_cm_is_gsi() packets whose MAD is a CM message). */
	bool is_cm;
	uint16_t attr;                  /* its attribute ID: RL_CM_REQ .. */
	enum rl_cm_wire_state state;         /* the conversation's state after it */
	uint64_t answers_frame;         /* the message this one answers (a REP: its REQ), 0 if none or not seen */
	uint16_t answers_attr;
	uint64_t answer_time_ns;        /* since that message */
	uint64_t original_frame;        /* a resent message (same sender, IDs and TID): its previous copy */

	/* Data: the first request to a QP whose starting PSN a REQ or REP announced. */
	uint64_t psn_frame;             /* the REQ or REP that announced it, 0 if none */
	uint16_t psn_attr;              /* RL_CM_REQ or RL_CM_REP */
	uint32_t announced_psn;
	bool psn_mismatch;              /* the packet's PSN is not the one announced */
};

/*
 * What a CNP should do to the QP it is for (IBA A17.9.3 names the packet;
 * DCQCN, Zhu et al., SIGCOMM 2015, section 3.1, the reaction): the
 * analyzer keeps, per requester QP, a shadow DCQCN reaction point with the
 * paper's parameters (rocelab/dcqcn.h), fed with the QP's requests and
 * CNPs at their capture times. Rates are in millionths of the line rate,
 * which a capture does not show: rl_analyzer_set_line_rate() says it, else
 * RL_ANALYZER_NOMINAL_LINE_BPS is assumed (only the increases, whose steps
 * are absolute, depend on it). Beside the "should", the "did": the rate of
 * the QP's request payload measured from the capture.
 */
struct rl_cnp_annotation {
	uint32_t qpn;                   /* the requester QP it is for (BTH DestQP) */
	bool known;                     /* that QP's requests were seen: the fields below are set */
	uint64_t count;                 /* the Nth CNP to this QP */
	bool cut;                       /* DCQCN cuts on it; false: within reduce_period_ns of the last cut */
	uint32_t alpha_ppm;             /* alpha the cut used (before its update), millionths */
	uint32_t alpha_after_ppm;       /* alpha after it: (1 - g)alpha + g */
	uint32_t rc_before_ppm;         /* Rc before the CNP (after the recovery since the last), of the line rate */
	uint32_t rc_ppm;                /* Rc after: Rc(1 - alpha/2) on a cut */
	uint32_t rt_ppm;                /* Rt after: the rate before the cut */
	uint64_t ce_seen;               /* CE-marked requests of this QP so far */
	/*
	 * Measured: request payload over time, since the previous CNP (or the
	 * QP's first request). 0 when the CNP came before any response named
	 * the QP's flow (several QPs between two hosts): counted, not measured.
	 */
	uint64_t rate_bps;              /* 0 with no time to measure over */
	uint64_t window_ns;
	uint64_t prev_rate_bps;         /* the same before the previous CNP, if that one cut: did it slow? */
	uint64_t line_bps;              /* the line rate the fractions are of */
	bool line_given;                /* rl_analyzer_set_line_rate() said it (else the nominal one) */
};

/* The line rate assumed when none is given: the paper's 40 Gb/s testbed. */
#define RL_ANALYZER_NOMINAL_LINE_BPS 40000000000ull
/* A QP "did not slow down" after a CNP if its rate stayed above this share (per mille) of the rate before. */
#define RL_CNP_SLOWED_PERMILLE 950

/* Which way a packet goes in its connection. */
enum rl_role { RL_ROLE_OTHER, RL_ROLE_REQUEST, RL_ROLE_RESPONSE, RL_ROLE_CNP };

struct rl_annotation {
	enum rl_role role;

	/* PSN analysis (requests of RC and UC). */
	enum rl_verdict verdict;
	uint32_t expected_psn;
	uint32_t gap;                   /* RL_V_GAP: packets missing */
	uint64_t original_frame;        /* RETRANSMISSION/DUPLICATE: the previous transmission of this PSN */

	/* Links (responses): the request this answers and what it acknowledges. */
	uint64_t request_frame;         /* 0 if not known */
	uint64_t response_time_ns;      /* since that request */
	bool acks;                      /* this packet acknowledges PSNs acked_first .. acked_last */
	uint32_t acked_first, acked_last;
	uint64_t acked_first_frame, acked_last_frame;

	/* Message bookkeeping (SEND, WRITE, READ response). */
	uint64_t msg_number;            /* 1 = the first message of this flow */
	uint64_t msg_bytes;             /* bytes of the message up to and including this packet */
	uint64_t msg_total;             /* known total (RETH DMA length), 0 if not (yet) known */
	uint64_t msg_first_frame;
	bool msg_complete;

	/*
	 * NAKs (RNR NAKs too): what the syndrome means (nak_meaning, below) and
	 * what the requester does next: resend from resend_from_psn (valid when
	 * !wr_fails), after rnr_wait_us for an RNR NAK; or fail the work request.
	 */
	bool nak;
	uint32_t resend_from_psn;
	uint32_t rnr_wait_us;
	bool wr_fails;                  /* the work request fails, the QPs go to ERR */

	/*
	 * PSN sequence error NAKs: the responder NAKs on the first request past
	 * the gap, the trigger (request_frame then names it), and PSNs
	 * missing_first .. missing_last never reached it. trigger_frame 0: the
	 * trigger is not in the capture, and missing_last is missing_first, the
	 * one PSN the NAK names.
	 */
	bool seq_err;
	uint64_t trigger_frame;
	uint32_t missing_first, missing_last;

	/* Congestion. */
	bool ecn_ce;                    /* the IP header says Congestion Experienced */
	bool cnp;
	struct rl_cnp_annotation cc;    /* a CNP: what it should do to its QP */

	/* Connection management. */
	struct rl_cm_annotation cm;
};

struct rl_analyzer *rl_analyzer_new(void);
void rl_analyzer_free(struct rl_analyzer *a);

/*
 * Analyze packet number @frame (1-based, as Wireshark counts) captured at
 * @t_ns, decoded into @pkt with status @st. Fills @out. Malformed packets
 * and non-RoCE frames get role RL_ROLE_OTHER.
 */
void rl_analyze(struct rl_analyzer *a, uint64_t frame, uint64_t t_ns, const struct rl_pkt *pkt,
		enum rl_status st, struct rl_annotation *out);

/*
 * Words for people, made afterwards from an annotation and the same packet:
 * the analysis keeps numbers only, so a caller that shows no text pays
 * nothing for it, and one that stores annotations (the Wireshark plugin)
 * stores numbers.
 */
struct rl_annotation_text {
	char summary[160];      /* a short line, e.g. "READ 4096 bytes from 0x7f01... (rkey 0x1234)" */
	char nak_meaning[320];  /* NAKs: what the syndrome means and what the requester does next */
	char explanation[480];  /* a sentence or two for a learner (explain -v, the plugin's tree) */
};

void rl_annotation_describe(const struct rl_annotation *a, const struct rl_pkt *pkt, struct rl_annotation_text *t);
/* The summary alone, into @buf of @n bytes (empty for RL_ROLE_OTHER). */
void rl_annotation_summary(const struct rl_annotation *a, const struct rl_pkt *pkt, char *buf, size_t n);

/*
 * Live flows, remembered requests and CM conversations, to check that memory
 * stays bounded. At most rl_analyzer_max_flows() (16384) flows are followed,
 * each ~200 bytes and 40 per request it remembers (its latest 512 at most:
 * 20 KB), and ~200 more for a shadow reaction point once a CNP comes (CNPs
 * that no flow is known for yet wait in a table of 64 QPs, the oldest
 * making room): past that the flow idle longest is forgotten, and a packet of it
 * later starts it again, as a first one. Flows are found by hash: the time
 * per packet does not grow with their number.
 */
size_t rl_analyzer_flows(const struct rl_analyzer *a);
/* How many times a flow's history was forgotten to make room: its later verdicts start over. */
uint64_t rl_analyzer_flows_forgotten(const struct rl_analyzer *a);
/* The most flows followed at once. */
size_t rl_analyzer_max_flows(void);
size_t rl_analyzer_outstanding(const struct rl_analyzer *a);

/* The line rate (bits/s, > 0) the shadow reaction points start at; before the first packet. */
void rl_analyzer_set_line_rate(struct rl_analyzer *a, uint64_t bps);
uint64_t rl_analyzer_line_rate(const struct rl_analyzer *a);

/* Congestion per requester QP, for a summary: the flows that saw CE marks or CNPs. */
struct rl_qp_congestion {
	uint8_t req_ip[16], resp_ip[16]; /* the hosts: IPv6, or IPv4 in the last 4 bytes after 12 zeros */
	uint32_t qpn;                   /* the requester's QP (0 if never learned) */
	uint32_t resp_qpn;              /* the responder's, if known: CNPs may come before any response names the flow */
	bool resp_qpn_known;
	uint64_t cnps, ce_seen;
	bool rate_known;                /* a CNP came: rc_ppm is the rate DCQCN leaves it at */
	uint32_t rc_ppm;                /* after the last CNP, of the line rate */
};
/* The next such flow after *@pos (start at 0), in the analyzer's order; false past the last. */
bool rl_analyzer_next_qp_congestion(const struct rl_analyzer *a, size_t *pos, struct rl_qp_congestion *out);

/*
 * The fields of a CNP's struct rl_cnp_annotation, declared once for every
 * printer: explain -v and --json, and the Wireshark plugin (rocelab.cnp.*).
 */
struct rl_cnp_field {
	const char *name;               /* "CNPs to this QP": the plugin's field name */
	const char *key;                /* "count": the JSON key, and the filter rocelab.cnp.<key> */
	const char *meaning;
	uint16_t member;                /* where struct rl_cnp_annotation keeps it */
	uint8_t member_size;            /* 1 (bool), 4 or 8 */
};
const struct rl_cnp_field *rl_cnp_field_table(size_t *count);
uint64_t rl_cnp_field_value(const struct rl_cnp_field *f, const struct rl_cnp_annotation *c);
size_t rl_analyzer_cm_conversations(const struct rl_analyzer *a);

#ifdef __cplusplus
}
#endif
#endif
