/* SPDX-License-Identifier: MIT */
/*
 * rocelab's Wireshark plugin (run with 4.0, compiled against 4.2 and 4.4):
 * a postdissector that puts a "RoCE Lab" tree under every RoCE packet with
 * what rocelab's analyzer says about it -- the ICRC checked, the PSN verdict
 * (retransmission, duplicate, gap, out of order), which request a response
 * answers and how long it took, what a NAK
 * means, ECN marks and CNPs -- plus expert infos and a plain-words summary
 * in the Info column. CM MADs on QP1 get every field of core/'s CM table
 * (rocelab.cm.<message>.<field>), the message they answer, their resends,
 * and the first PSN they announced for the data that follows.
 *
 * It decodes nothing itself: the frame's raw bytes go to core/'s rl_decode()
 * and the packet to rl_analyze(). Being a postdissector, it sees every frame,
 * even when another protocol took the UDP payload (a RoCE packet from source
 * port 69 goes to TFTP, because UDP tries the lower port first).
 *
 * Cross-packet results are computed once, on the first pass, with one
 * analyzer per capture file, and stored per frame (p_add_proto_data), as the
 * TCP dissector's sequence analysis does; later passes read them back.
 */
#define WS_BUILD_DLL
#include <wireshark.h>
#include <ws_version.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/proto.h>
#include <epan/proto_data.h>
#include <wiretap/wtap.h>

/*
 * Wireshark 4.4 asks a plugin what it provides (plugin_describe(), listed
 * by tshark -G plugins); 4.0 and 4.2 have no such call.
 */
#define RLP_WS_AT_LEAST(maj, min) \
	(WIRESHARK_VERSION_MAJOR > (maj) || (WIRESHARK_VERSION_MAJOR == (maj) && WIRESHARK_VERSION_MINOR >= (min)))
#if RLP_WS_AT_LEAST(4, 4)
#include <wsutil/plugins.h>
#define RLP_HAVE_PLUGIN_DESCRIBE 1
#endif

#include "rocelab/analyze.h"
#include "rocelab/cm.h"
#include "rocelab/describe.h"
#include "rocelab/field.h"
#include "rocelab/hdr.h"
#include "rocelab/icrc.h"
#include "rocelab/opcode.h"
#include "rocelab/packet.h"
#include "rocelab/status.h"

#define ROCELAB_PLUGIN_VERSION "0.1.0"

WS_DLL_PUBLIC_DEF const char plugin_version[] = ROCELAB_PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);
#ifdef RLP_HAVE_PLUGIN_DESCRIBE
WS_DLL_PUBLIC uint32_t plugin_describe(void);
#endif

/* ---- registration handles ------------------------------------------------ */

static int proto_rocelab = -1;
static dissector_handle_t rocelab_handle;

static int hf_summary = -1;
static int hf_explanation = -1;
static int hf_packet = -1;
static int hf_role = -1;
static int hf_decode_error = -1;
/* The transport headers' fields, registered from core/'s field table (rocelab/field.h). */
#define RLP_MAX_HDRS (RL_HDR_COUNT + 1)
static int *hf_fields;                   /* one per row of the field table */
static gint ett_hdrs[RLP_MAX_HDRS];
static int hf_icrc = -1;
static int hf_icrc_expected = -1;
static int hf_icrc_status = -1;
static int hf_verdict = -1;
static int hf_retransmission = -1;
static int hf_duplicate = -1;
static int hf_out_of_order = -1;
static int hf_gap = -1;
static int hf_missing = -1;
static int hf_expected_psn = -1;
static int hf_original_frame = -1;
static int hf_retransmitted_in = -1;
static int hf_response_to = -1;
static int hf_response_in = -1;
static int hf_time = -1;
/* Their first names, still filled (hidden) for the filters and lab guides that use them. */
static int hf_request_frame = -1;
static int hf_response_frame = -1;
static int hf_response_time = -1;
static int hf_ack_first_psn = -1;
static int hf_ack_last_psn = -1;
static int hf_ack_first_frame = -1;
static int hf_ack_last_frame = -1;
static int hf_msg_number = -1;
static int hf_msg_bytes = -1;
static int hf_msg_total = -1;
static int hf_msg_first_frame = -1;
static int hf_msg_complete = -1;
static int hf_nak = -1;
static int hf_nak_meaning = -1;
static int hf_nak_resend_psn = -1;
static int hf_nak_wr_fails = -1;
static int hf_nak_trigger = -1;
static int hf_nak_missing_first = -1;
static int hf_nak_missing_last = -1;
static int hf_rnr_wait_us = -1;
static int hf_ecn_ce = -1;
static int hf_cnp = -1;
static int hf_cnp_qp = -1;
static int *hf_cnp_fields;                /* one per row of the analyzer's CNP field table */
/* CM MADs: every field of core/'s CM table (rocelab/cm.h), and what the analyzer says of them. */
static int *hf_cm_fields;                /* one per row of the CM field table */
static int hf_cm_state = -1;
static int hf_cm_answers_frame = -1;
static int hf_cm_answered_in = -1;
static int hf_cm_answer_time = -1;
static int hf_cm_retransmission = -1;
static int hf_cm_original_frame = -1;
static int hf_cm_resent_in = -1;
static int hf_cm_psn_frame = -1;
static int hf_cm_announced_psn = -1;
static int hf_cm_psn_mismatch = -1;

static gint ett_rocelab = -1;
static gint ett_icrc = -1;
static gint ett_analysis = -1;
static gint ett_link = -1;
static gint ett_ack = -1;
static gint ett_msg = -1;
static gint ett_nak = -1;
static gint ett_congestion = -1;
static gint ett_cm = -1;
static gint ett_cm_mad = -1;
static gint ett_cm_msg = -1;
static gint ett_cm_analysis = -1;

static expert_field ei_malformed = EI_INIT;
static expert_field ei_unknown_opcode = EI_INIT;
static expert_field ei_icrc_bad = EI_INIT;
static expert_field ei_retransmission = EI_INIT;
static expert_field ei_duplicate = EI_INIT;
static expert_field ei_out_of_order = EI_INIT;
static expert_field ei_gap = EI_INIT;
static expert_field ei_nak_psn = EI_INIT;
static expert_field ei_nak_access = EI_INIT;
static expert_field ei_nak_other = EI_INIT;
static expert_field ei_rnr_nak = EI_INIT;
static expert_field ei_ecn_ce = EI_INIT;
static expert_field ei_cnp = EI_INIT;
static expert_field ei_cm_retransmission = EI_INIT;
static expert_field ei_cm_reject = EI_INIT;
static expert_field ei_cm_psn_mismatch = EI_INIT;

/* Names that come from core/, copied into value_strings at registration. */
static value_string opcode_vals[257];
static value_string verdict_vals[RL_V_DUPLICATE + 2];
static value_string cm_state_vals[RL_CMS_SIDR_ANSWERED + 2];

static const value_string role_vals[] = {
	{ RL_ROLE_OTHER, "other" },
	{ RL_ROLE_REQUEST, "request" },
	{ RL_ROLE_RESPONSE, "response" },
	{ RL_ROLE_CNP, "congestion notification" },
	{ 0, NULL },
};

/* The numbering of Wireshark's checksum status, so "good"/"bad" read the same as tcp.checksum.status. */
#define ICRC_BAD 0
#define ICRC_GOOD 1
#define ICRC_NOT_CAPTURED 2  /* the snap length cut the frame before its ICRC */
static const value_string icrc_status_vals[] = {
	{ ICRC_BAD, "Bad" },
	{ ICRC_GOOD, "Good" },
	{ ICRC_NOT_CAPTURED, "Unknown (not captured)" },
	{ 0, NULL },
};

/* ---- per-capture state ------------------------------------------------------ */

/* What the analyzer said about one frame, kept for the capture's lifetime. */
struct rlp_frame {
	struct rl_annotation ann;  /* numbers only: the words are made when shown */
	/* Back-links, filled when a later frame points here. */
	guint32 response_frame;    /* the first response that answered this request */
	guint32 retransmitted_in;  /* the first time this request was sent again */
	guint32 cm_answered_in;    /* CM: the first message that answered this one */
	guint32 cm_resent_in;      /* CM: the first copy of this message sent again */
};

static struct rl_analyzer *rlp_an;       /* one per capture file */
static wmem_map_t *rlp_frames;           /* frame number -> struct rlp_frame *, file scope */

static void rlp_init(void)
{
	rl_analyzer_free(rlp_an);
	rlp_an = rl_analyzer_new();
	rlp_frames = wmem_map_new(wmem_file_scope(), g_direct_hash, g_direct_equal);
}

static void rlp_cleanup(void)
{
	rl_analyzer_free(rlp_an);
	rlp_an = NULL;
	rlp_frames = NULL; /* freed with the file scope */
}

/* Wireshark counts frames in 32 bits; anything larger is "not known". */
static guint32 rlp_frame_num(uint64_t f)
{
	return f <= G_MAXUINT32 ? (guint32)f : 0;
}

static struct rlp_frame *rlp_lookup(guint32 num)
{
	if (!rlp_frames || !num)
		return NULL;
	return (struct rlp_frame *)wmem_map_lookup(rlp_frames, GUINT_TO_POINTER(num));
}

/* The frame @frame that frame @num points back to, if it was kept (0: none). */
static struct rlp_frame *rlp_earlier(uint64_t frame, guint32 num)
{
	return frame && frame < num ? rlp_lookup(rlp_frame_num(frame)) : NULL;
}

/* First pass: run the analyzer on this frame and remember what it said. */
static struct rlp_frame *rlp_analyze(packet_info *pinfo, const struct rl_pkt *pkt, enum rl_status st)
{
	struct rlp_frame *fr, *q;
	uint64_t t_ns;

	if (!rlp_an)
		rlp_init();
	if (!rlp_an)
		return NULL;
	fr = wmem_new0(wmem_file_scope(), struct rlp_frame);
	t_ns = (uint64_t)pinfo->abs_ts.secs * 1000000000u + (uint64_t)pinfo->abs_ts.nsecs;
	rl_analyze(rlp_an, pinfo->num, t_ns, pkt, st, &fr->ann);

	/* A frame can only point back; fill the forward links of the frames it names (the first one counts). */
	if ((q = rlp_earlier(fr->ann.request_frame, pinfo->num)) && !q->response_frame)
		q->response_frame = pinfo->num;
	if ((q = rlp_earlier(fr->ann.original_frame, pinfo->num)) && !q->retransmitted_in)
		q->retransmitted_in = pinfo->num;
	if ((q = rlp_earlier(fr->ann.cm.answers_frame, pinfo->num)) && !q->cm_answered_in)
		q->cm_answered_in = pinfo->num;
	if ((q = rlp_earlier(fr->ann.cm.original_frame, pinfo->num)) && !q->cm_resent_in)
		q->cm_resent_in = pinfo->num;

	p_add_proto_data(wmem_file_scope(), pinfo, proto_rocelab, 0, fr);
	/* Only requests (CM MADs among them) are ever pointed back to (answered by, retransmitted in). */
	if (rlp_frames && fr->ann.role == RL_ROLE_REQUEST)
		wmem_map_insert(rlp_frames, GUINT_TO_POINTER(pinfo->num), fr);
	return fr;
}

/* ---- decoding ---------------------------------------------------------------- */

/* The capture's link type as rl_decode() numbers it; false if it does not read it. */
static bool rlp_link(const packet_info *pinfo, enum rl_link *link)
{
	if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
		return false;
	switch (pinfo->rec->rec_header.packet_header.pkt_encap) {
	case WTAP_ENCAP_ETHERNET: *link = RL_LINK_ETHERNET; return true;
	case WTAP_ENCAP_SLL: *link = RL_LINK_LINUX_SLL; return true;
	case WTAP_ENCAP_SLL2: *link = RL_LINK_LINUX_SLL2; return true;
	case WTAP_ENCAP_RAW_IP: *link = RL_LINK_RAW; return true;
	case WTAP_ENCAP_RAW_IP4: *link = RL_LINK_IPV4; return true;
	case WTAP_ENCAP_RAW_IP6: *link = RL_LINK_IPV6; return true;
	default: return false;
	}
}

/*
 * A fatal decode error on a frame that was headed for RoCE (UDP port 4791
 * or a GRH) is worth a word; on anything else it is somebody else's traffic.
 */
static bool rlp_meant_for_roce(const struct rl_pkt *pkt, const guint8 *data, size_t len)
{
	if (pkt->l3 == RL_L3_GRH)
		return true;
	if (pkt->l4_off == 0 || pkt->l4_off > len || len - pkt->l4_off < 4)
		return false;
	return ((guint)data[pkt->l4_off + 2] << 8 | data[pkt->l4_off + 3]) == RL_ROCEV2_UDP_PORT;
}

/* Clamp a frame offset and length to what the tvb holds, for highlighting. */
static gint rlp_len(size_t off, size_t n, size_t cap)
{
	if (off >= cap)
		return 0;
	return (gint)MIN(n, cap - off);
}

/* Append to the Info column after what the built-in dissector wrote there. */
static void rlp_col_append(packet_info *pinfo, const char *text)
{
	const char *cur = col_get_text(pinfo->cinfo, COL_INFO);
	size_t n = cur ? strlen(cur) : 0;

	col_append_sep_str(pinfo->cinfo, COL_INFO, n && cur[n - 1] == ' ' ? "| " : " | ", text);
}

static void rlp_show_malformed(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, enum rl_status st,
			       const struct rl_pkt *pkt, size_t len)
{
	char msg[256];
	proto_item *ti, *pi;
	proto_tree *t;
	size_t off = pkt->err_off < len ? pkt->err_off : 0;

	rl_decode_error_str(st, pkt, msg, sizeof(msg));
	msg[sizeof(msg) - 1] = '\0';
	ti = proto_tree_add_item(tree, proto_rocelab, tvb, 0, -1, ENC_NA);
	proto_item_append_text(ti, ": malformed RoCE packet (%s)", rl_status_name(st));
	t = proto_item_add_subtree(ti, ett_rocelab);
	pi = proto_tree_add_string(t, hf_decode_error, tvb, (gint)off, rlp_len(off, 1, len), msg);
	proto_item_set_generated(pi);
	expert_add_info_format(pinfo, pi, &ei_malformed, "Malformed RoCE packet: %s", msg);
	snprintf(msg, sizeof(msg), "malformed RoCE packet: %s", rl_status_reason(st));
	rlp_col_append(pinfo, msg);
}

static const char *rlp_cm_abbr(uint16_t attr)
{
	const struct rl_cm_msg *m = rl_cm_msg(attr);

	return m ? m->abbr : "?";
}

static void rlp_mark(wmem_strbuf_t *sb, const char *mark)
{
	if (wmem_strbuf_get_len(sb))
		wmem_strbuf_append_c(sb, ' ');
	wmem_strbuf_append(sb, mark);
}

/* The Info column: the summary in plain words, then marks like TCP's "[Retransmission]". */
static void rlp_info(packet_info *pinfo, const struct rl_pkt *pkt, enum rl_status st, const struct rlp_frame *fr,
		     const char *summary)
{
	wmem_strbuf_t *sb = wmem_strbuf_new(pinfo->pool, summary);
	char mark[80];

	if (fr && fr->ann.verdict == RL_V_RETRANSMISSION)
		rlp_mark(sb, "[Retransmission]");
	else if (fr && fr->ann.verdict == RL_V_DUPLICATE)
		rlp_mark(sb, "[Duplicate]");
	else if (fr && fr->ann.verdict == RL_V_OUT_OF_ORDER)
		rlp_mark(sb, "[Out of order]");
	else if (fr && fr->ann.verdict == RL_V_GAP) {
		snprintf(mark, sizeof(mark), "[Gap: %u missing]", fr->ann.gap);
		rlp_mark(sb, mark);
	}
	if (fr && fr->ann.cm.original_frame)
		rlp_mark(sb, "[Retransmission]");
	if (fr && fr->ann.cm.answers_frame) {
		snprintf(mark, sizeof(mark), "[answers %s of frame %u]", rlp_cm_abbr(fr->ann.cm.answers_attr),
			 rlp_frame_num(fr->ann.cm.answers_frame));
		rlp_mark(sb, mark);
	}
	if (fr && fr->ann.cm.psn_mismatch) {
		snprintf(mark, sizeof(mark), "[PSN mismatch: the %s of frame %u set %u]", rlp_cm_abbr(fr->ann.cm.psn_attr),
			 rlp_frame_num(fr->ann.cm.psn_frame), fr->ann.cm.announced_psn);
		rlp_mark(sb, mark);
	} else if (fr && fr->ann.cm.psn_frame) {
		snprintf(mark, sizeof(mark), "[first PSN set in the %s of frame %u]", rlp_cm_abbr(fr->ann.cm.psn_attr),
			 rlp_frame_num(fr->ann.cm.psn_frame));
		rlp_mark(sb, mark);
	}
	if (fr && fr->ann.ecn_ce)
		rlp_mark(sb, "[ECN CE]");
	if (st == RL_E_UNKNOWN_OPCODE) {
		snprintf(mark, sizeof(mark), "[Unknown opcode 0x%02x]", pkt->bth.opcode);
		rlp_mark(sb, mark);
	}
	if (pkt->cut)
		rlp_mark(sb, "[cut by the snap length]");
	else if (!pkt->icrc_ok)
		rlp_mark(sb, "[ICRC bad]");
	if (wmem_strbuf_get_len(sb))
		rlp_col_append(pinfo, wmem_strbuf_get_str(sb));
}

/* ---- the tree ------------------------------------------------------------------ */

static proto_item *rlp_gen(proto_item *pi)
{
	proto_item_set_generated(pi);
	return pi;
}

/* An item under its old name: filters and -T fields find it; the tree does not show it twice. */
static void rlp_old_name(proto_item *pi)
{
	proto_item_set_generated(pi);
	proto_item_set_hidden(pi);
}

/* Index of a field's row in the field table, which hf_fields[] follows. */
static size_t rlp_field_index(const struct rl_field *f)
{
	size_t n;

	return (size_t)(f - rl_field_table(&n));
}

/* One field into the tree, at its bytes. */
static proto_item *rlp_add_field(proto_tree *t, tvbuff_t *tvb, const struct rl_field *f, size_t off, uint64_t v,
				 size_t len)
{
	int hf = hf_fields[rlp_field_index(f)];
	gint o = (gint)off, n = rlp_len(off, f->bytes, len);

	if (f->fmt == RL_FMT_BOOL)
		return proto_tree_add_boolean(t, hf, tvb, o, n, (guint32)v);
	if (f->bits > 32)
		return proto_tree_add_uint64(t, hf, tvb, o, n, v);
	return proto_tree_add_uint(t, hf, tvb, o, n, (guint32)v);
}

/* The transport headers, a subtree each, every field from the field table. */
static void rlp_show_fields(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const struct rl_pkt *pkt,
			    enum rl_status st, size_t len)
{
	const struct rl_field_hdr *h;
	const struct rl_field *f;
	struct rl_field_iter it;

	rl_field_iter_init(&it, pkt);
	while ((h = rl_field_next_hdr(&it))) {
		size_t hoff = pkt->bth_off + (size_t)rl_field_hdr_offset(pkt, h->hdr);
		proto_tree *ht = proto_tree_add_subtree(t, tvb, (gint)hoff, rlp_len(hoff, h->len, len),
							ett_hdrs[(size_t)(h - rl_field_hdr(RL_FIELD_BTH)) % RLP_MAX_HDRS],
							NULL, h->title);

		while ((f = rl_field_next(&it))) {
			proto_item *pi = rlp_add_field(ht, tvb, f, pkt->bth_off + it.off, it.value, len);

			const char *words = pi && f->words && f->fmt != RL_FMT_OPCODE ? f->words(it.value) : NULL;

			if (words)
				proto_item_append_text(pi, " (%s)", words);
			if (f->fmt == RL_FMT_OPCODE && st == RL_E_UNKNOWN_OPCODE)
				expert_add_info(pinfo, pi, &ei_unknown_opcode);
		}
	}
}

static void rlp_show_icrc(proto_tree *t, proto_item *top, tvbuff_t *tvb, packet_info *pinfo,
			  const struct rl_pkt *pkt, size_t len)
{
	proto_tree *it;
	proto_item *pi;
	gint o = (gint)pkt->icrc_off;
	gint n = rlp_len(pkt->icrc_off, RL_ICRC_LEN, len);
	uint32_t got = rl_icrc_display(pkt->icrc), want = rl_icrc_display(pkt->icrc_expected);

	if (pkt->cut) {
		it = proto_tree_add_subtree_format(t, tvb, 0, 0, ett_icrc, NULL,
						   "Invariant CRC: not captured [cut by the snap length: %zu of %zu bytes kept]",
						   pkt->cap_len, pkt->frame_len);
		rlp_gen(proto_tree_add_uint(it, hf_icrc_status, tvb, 0, 0, ICRC_NOT_CAPTURED));
		proto_item_append_text(top, " [cut by the snap length]");
		(void)pinfo;
		(void)o;
		(void)n;
		return;
	}
	it = proto_tree_add_subtree_format(t, tvb, o, n, ett_icrc, NULL, "Invariant CRC: 0x%08x [%s]", got,
					   pkt->icrc_ok ? "correct" : "INCORRECT");
	proto_tree_add_uint(it, hf_icrc, tvb, o, n, got);
	rlp_gen(proto_tree_add_uint(it, hf_icrc_expected, tvb, o, n, want));
	pi = rlp_gen(proto_tree_add_uint(it, hf_icrc_status, tvb, o, n, pkt->icrc_ok ? ICRC_GOOD : ICRC_BAD));
	if (!pkt->icrc_ok) {
		expert_add_info_format(pinfo, pi, &ei_icrc_bad,
				       "ICRC mismatch: the packet says 0x%08x, its bytes give 0x%08x; a receiver drops it",
				       got, want);
		proto_item_append_text(top, " [ICRC BAD]");
	}
}

static void rlp_show_analysis(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const struct rl_pkt *pkt,
			      const struct rlp_frame *fr)
{
	proto_tree *at;
	proto_item *ai, *pi;

	if (fr->ann.verdict == RL_V_NONE)
		return;
	at = proto_tree_add_subtree_format(t, tvb, 0, 0, ett_analysis, &ai, "PSN analysis: %s",
					   rl_verdict_name(fr->ann.verdict));
	proto_item_set_generated(ai);
	rlp_gen(proto_tree_add_uint(at, hf_verdict, tvb, 0, 0, fr->ann.verdict));
	if (fr->ann.verdict != RL_V_FIRST)
		rlp_gen(proto_tree_add_uint(at, hf_expected_psn, tvb, 0, 0, fr->ann.expected_psn));
	switch (fr->ann.verdict) {
	case RL_V_RETRANSMISSION:
		pi = rlp_gen(proto_tree_add_none_format(at, hf_retransmission, tvb, 0, 0,
							"This packet is a retransmission of PSN %u", pkt->bth.psn));
		expert_add_info_format(pinfo, pi, &ei_retransmission, "Retransmission of PSN %u", pkt->bth.psn);
		break;
	case RL_V_DUPLICATE:
		pi = rlp_gen(proto_tree_add_none_format(at, hf_duplicate, tvb, 0, 0,
							"This packet is a duplicate of PSN %u", pkt->bth.psn));
		expert_add_info_format(pinfo, pi, &ei_duplicate, "Duplicate of PSN %u: the network copied it",
				       pkt->bth.psn);
		break;
	case RL_V_OUT_OF_ORDER:
		pi = rlp_gen(proto_tree_add_none_format(at, hf_out_of_order, tvb, 0, 0,
							"This packet arrives out of order (PSN %u, expected %u)",
							pkt->bth.psn, fr->ann.expected_psn));
		expert_add_info_format(pinfo, pi, &ei_out_of_order, "Out of order: PSN %u after later PSNs",
				       pkt->bth.psn);
		break;
	case RL_V_GAP:
		pi = rlp_gen(proto_tree_add_none_format(at, hf_gap, tvb, 0, 0,
							"Gap: %u packet(s) before this one are missing", fr->ann.gap));
		rlp_gen(proto_tree_add_uint(at, hf_missing, tvb, 0, 0, fr->ann.gap));
		expert_add_info_format(pinfo, pi, &ei_gap, "Gap: PSN %u expected, %u packet(s) missing",
				       fr->ann.expected_psn, fr->ann.gap);
		break;
	default:
		break;
	}
	if (fr->ann.original_frame)
		rlp_gen(proto_tree_add_uint(at, hf_original_frame, tvb, 0, 0, rlp_frame_num(fr->ann.original_frame)));
	if (fr->retransmitted_in)
		rlp_gen(proto_tree_add_uint(at, hf_retransmitted_in, tvb, 0, 0, fr->retransmitted_in));
}

static void rlp_show_links(proto_tree *t, tvbuff_t *tvb, const struct rlp_frame *fr)
{
	proto_tree *lt;
	proto_item *li;
	nstime_t rt;

	if (!fr->ann.request_frame && !fr->response_frame)
		return;
	lt = proto_tree_add_subtree(t, tvb, 0, 0, ett_link, &li, "Request/response");
	proto_item_set_generated(li);
	if (fr->ann.request_frame) {
		guint32 req = rlp_frame_num(fr->ann.request_frame);

		rlp_gen(proto_tree_add_uint(lt, hf_response_to, tvb, 0, 0, req));
		rlp_old_name(proto_tree_add_uint(lt, hf_request_frame, tvb, 0, 0, req));
		rt.secs = (time_t)(fr->ann.response_time_ns / 1000000000u);
		rt.nsecs = (int)(fr->ann.response_time_ns % 1000000000u);
		rlp_gen(proto_tree_add_time(lt, hf_time, tvb, 0, 0, &rt));
		rlp_old_name(proto_tree_add_time(lt, hf_response_time, tvb, 0, 0, &rt));
	}
	if (fr->response_frame) {
		rlp_gen(proto_tree_add_uint(lt, hf_response_in, tvb, 0, 0, fr->response_frame));
		rlp_old_name(proto_tree_add_uint(lt, hf_response_frame, tvb, 0, 0, fr->response_frame));
	}
}

static void rlp_show_ack(proto_tree *t, tvbuff_t *tvb, const struct rlp_frame *fr)
{
	proto_tree *kt;
	proto_item *ki;

	if (!fr->ann.acks)
		return;
	kt = proto_tree_add_subtree_format(t, tvb, 0, 0, ett_ack, &ki, "Acknowledges PSN %u..%u", fr->ann.acked_first,
					   fr->ann.acked_last);
	proto_item_set_generated(ki);
	rlp_gen(proto_tree_add_uint(kt, hf_ack_first_psn, tvb, 0, 0, fr->ann.acked_first));
	rlp_gen(proto_tree_add_uint(kt, hf_ack_last_psn, tvb, 0, 0, fr->ann.acked_last));
	if (fr->ann.acked_first_frame)
		rlp_gen(proto_tree_add_uint(kt, hf_ack_first_frame, tvb, 0, 0, rlp_frame_num(fr->ann.acked_first_frame)));
	if (fr->ann.acked_last_frame)
		rlp_gen(proto_tree_add_uint(kt, hf_ack_last_frame, tvb, 0, 0, rlp_frame_num(fr->ann.acked_last_frame)));
}

static void rlp_show_msg(proto_tree *t, tvbuff_t *tvb, const struct rlp_frame *fr)
{
	proto_tree *mt;
	proto_item *mi;

	if (!fr->ann.msg_number)
		return;
	mt = proto_tree_add_subtree_format(t, tvb, 0, 0, ett_msg, &mi, "Message %" PRIu64 ": %" PRIu64 " bytes so far",
					   fr->ann.msg_number, fr->ann.msg_bytes);
	proto_item_set_generated(mi);
	rlp_gen(proto_tree_add_uint64(mt, hf_msg_number, tvb, 0, 0, fr->ann.msg_number));
	rlp_gen(proto_tree_add_uint64(mt, hf_msg_bytes, tvb, 0, 0, fr->ann.msg_bytes));
	if (fr->ann.msg_total)
		rlp_gen(proto_tree_add_uint64(mt, hf_msg_total, tvb, 0, 0, fr->ann.msg_total));
	if (fr->ann.msg_first_frame)
		rlp_gen(proto_tree_add_uint(mt, hf_msg_first_frame, tvb, 0, 0, rlp_frame_num(fr->ann.msg_first_frame)));
	rlp_gen(proto_tree_add_boolean(mt, hf_msg_complete, tvb, 0, 0, fr->ann.msg_complete));
}

/* A PSN sequence error NAK: the request it came on, and the PSNs that never reached the responder. */
static void rlp_show_missing(proto_tree *nt, tvbuff_t *tvb, const struct rlp_frame *fr)
{
	if (fr->ann.trigger_frame)
		rlp_gen(proto_tree_add_uint(nt, hf_nak_trigger, tvb, 0, 0, rlp_frame_num(fr->ann.trigger_frame)));
	rlp_gen(proto_tree_add_uint(nt, hf_nak_missing_first, tvb, 0, 0, fr->ann.missing_first));
	if (fr->ann.trigger_frame)
		rlp_gen(proto_tree_add_uint(nt, hf_nak_missing_last, tvb, 0, 0, fr->ann.missing_last));
}

/* NAKs and RNR NAKs: the wire's AETH says which kind, the analyzer what it means. */
static void rlp_show_nak(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const struct rl_pkt *pkt,
			 const struct rlp_frame *fr, const char *nak_meaning, size_t len)
{
	proto_tree *nt;
	proto_item *pi;
	enum rl_aeth_type type;
	uint8_t code;
	int aoff;
	size_t off = 0;
	char what[80];

	if (!pkt->op || !(pkt->hdrs & RL_HDR_AETH))
		return;
	type = rl_syndrome_type(pkt->aeth.syndrome);
	code = rl_syndrome_value(pkt->aeth.syndrome);
	if (type != RL_AETH_NAK && type != RL_AETH_RNR_NAK)
		return;
	aoff = rl_opcode_hdr_offset(pkt->bth.opcode, RL_HDR_AETH);
	if (aoff >= 0)
		off = pkt->bth_off + RL_BTH_LEN + (size_t)aoff;
	rl_describe_syndrome(pkt->aeth.syndrome, what, sizeof(what));
	what[sizeof(what) - 1] = '\0';

	pi = rlp_gen(proto_tree_add_none_format(t, hf_nak, tvb, (gint)off, rlp_len(off, 1, len), "%s", what));
	nt = proto_item_add_subtree(pi, ett_nak);
	if (nak_meaning && nak_meaning[0])
		rlp_gen(proto_tree_add_string(nt, hf_nak_meaning, tvb, 0, 0, nak_meaning));
	if (fr && (type == RL_AETH_RNR_NAK || code == RL_NAK_PSN_SEQ_ERR))
		rlp_gen(proto_tree_add_uint(nt, hf_nak_resend_psn, tvb, 0, 0, fr->ann.resend_from_psn));
	if (fr && type == RL_AETH_RNR_NAK)
		rlp_gen(proto_tree_add_uint(nt, hf_rnr_wait_us, tvb, 0, 0, fr->ann.rnr_wait_us));
	if (fr && type == RL_AETH_NAK)
		rlp_gen(proto_tree_add_boolean(nt, hf_nak_wr_fails, tvb, 0, 0, fr->ann.wr_fails));
	if (fr && fr->ann.seq_err)
		rlp_show_missing(nt, tvb, fr);

	if (type == RL_AETH_RNR_NAK)
		expert_add_info_format(pinfo, pi, &ei_rnr_nak, "%s: the responder had no receive buffer for PSN %u",
				       what, pkt->bth.psn);
	else if (code == RL_NAK_PSN_SEQ_ERR && fr && fr->ann.trigger_frame)
		expert_add_info_format(pinfo, pi, &ei_nak_psn, "%s on frame %u: PSN %u..%u missing, resend from PSN %u",
				       what, rlp_frame_num(fr->ann.trigger_frame), fr->ann.missing_first,
				       fr->ann.missing_last, pkt->bth.psn);
	else if (code == RL_NAK_PSN_SEQ_ERR)
		expert_add_info_format(pinfo, pi, &ei_nak_psn, "%s: resend from PSN %u", what, pkt->bth.psn);
	else if (code == RL_NAK_REM_ACCESS_ERR)
		expert_add_info_format(pinfo, pi, &ei_nak_access,
				       "%s for PSN %u: wrong R_Key, address or rights; the work request fails", what,
				       pkt->bth.psn);
	else
		expert_add_info_format(pinfo, pi, &ei_nak_other, "%s for PSN %u", what, pkt->bth.psn);
}

/* What DCQCN should do on this CNP: the analyzer's CNP fields, rocelab.cnp.<key>. */
static void rlp_show_cnp_fields(proto_tree *ct, tvbuff_t *tvb, const struct rl_pkt *pkt,
				const struct rl_cnp_annotation *c)
{
	size_t n;
	const struct rl_cnp_field *tab = rl_cnp_field_table(&n);

	for (size_t i = 0; i < n; i++) {
		uint64_t v = rl_cnp_field_value(&tab[i], c);

		if (tab[i].member_size == 1)
			rlp_gen(proto_tree_add_boolean(ct, hf_cnp_fields[i], tvb, (gint)pkt->bth_off, 0, v != 0));
		else if (tab[i].member_size == 4)
			rlp_gen(proto_tree_add_uint(ct, hf_cnp_fields[i], tvb, (gint)pkt->bth_off, 0, (guint32)v));
		else
			rlp_gen(proto_tree_add_uint64(ct, hf_cnp_fields[i], tvb, (gint)pkt->bth_off, 0, v));
	}
}

static void rlp_show_congestion(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const struct rl_pkt *pkt,
				const struct rlp_frame *fr)
{
	bool ce = fr ? fr->ann.ecn_ce : false;
	bool cnp = pkt->op && (pkt->op->flags & RL_OPF_CNP);
	proto_tree *ct;
	proto_item *ci, *pi;

	if (fr && fr->ann.cnp)
		cnp = true;
	if (!ce && !cnp)
		return;
	ct = proto_tree_add_subtree(t, tvb, 0, 0, ett_congestion, &ci, "Congestion");
	proto_item_set_generated(ci);
	if (ce) {
		pi = rlp_gen(proto_tree_add_boolean(ct, hf_ecn_ce, tvb, (gint)pkt->l3_off, 0, TRUE));
		expert_add_info(pinfo, pi, &ei_ecn_ce);
	}
	if (cnp) {
		pi = rlp_gen(proto_tree_add_boolean(ct, hf_cnp, tvb, (gint)pkt->bth_off, 0, TRUE));
		rlp_gen(proto_tree_add_uint(ct, hf_cnp_qp, tvb, (gint)pkt->bth_off, 0, pkt->bth.dqpn));
		if (fr && fr->ann.cc.known)
			rlp_show_cnp_fields(ct, tvb, pkt, &fr->ann.cc);
		expert_add_info_format(pinfo, pi, &ei_cnp,
				       "CNP: the receiver saw congestion marks; the sender of QP 0x%06x should slow down",
				       pkt->bth.dqpn);
	}
}

/* ---- CM MADs ------------------------------------------------------------------------ */

/* Index of a CM field's row in the CM field table, which hf_cm_fields[] follows. */
static size_t rlp_cm_field_index(const struct rl_cm_field *f)
{
	size_t n;

	return (size_t)(f - rl_cm_field_table(&n));
}

/* One CM field into the tree, at its bytes in the MAD (which starts at @mad_off in the frame). */
static void rlp_add_cm_field(proto_tree *t, tvbuff_t *tvb, const struct rl_cm_field *f, const struct rl_cm_iter *it,
			     size_t mad_off, size_t len)
{
	int hf = hf_cm_fields[rlp_cm_field_index(f)];
	size_t off = mad_off + f->off;
	gint o = (gint)off, n = rlp_len(off, f->bytes, len);
	const char *words = f->words && f->fmt != RL_CM_GID && f->fmt != RL_CM_DATA ? f->words(it->value) : NULL;
	proto_item *pi;
	ws_in6_addr gid;

	switch (f->fmt) {
	case RL_CM_GID:
		memcpy(gid.bytes, it->bytes, sizeof(gid.bytes));
		pi = proto_tree_add_ipv6(t, hf, tvb, o, n, &gid);
		break;
	case RL_CM_DATA:
		pi = proto_tree_add_bytes(t, hf, tvb, o, n, it->bytes);
		break;
	case RL_CM_BOOL:
		pi = proto_tree_add_boolean(t, hf, tvb, o, n, (guint32)it->value);
		break;
	default:
		pi = f->bits > 32 ? proto_tree_add_uint64(t, hf, tvb, o, n, it->value)
				  : proto_tree_add_uint(t, hf, tvb, o, n, (guint32)it->value);
		break;
	}
	if (words)
		proto_item_append_text(pi, " (%s)", words);
}

/* The MAD's header and message, a subtree each, every field from the CM field table. */
static void rlp_show_cm_fields(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const struct rl_pkt *pkt,
			       const struct rl_cm *cm, enum rl_cm_status cst, size_t len)
{
	size_t mad_off = pkt->payload_off, msg_off = mad_off + RL_MAD_HDR_LEN;
	struct rl_cm_iter it;
	const struct rl_cm_field *f;
	proto_tree *ct, *sub;
	proto_item *ci;
	bool in_msg = false;
	char line[256];
	const char *reason;

	rl_cm_describe(cm, line, sizeof(line));
	line[sizeof(line) - 1] = '\0';
	ct = proto_tree_add_subtree_format(t, tvb, (gint)mad_off, rlp_len(mad_off, cm->len, len), ett_cm, &ci, "%s%s",
					   line, cst == RL_CM_OK || cst == RL_CM_UNKNOWN_ATTR ? "" : " [not a whole CM MAD]");
	sub = proto_tree_add_subtree(ct, tvb, (gint)mad_off, rlp_len(mad_off, RL_MAD_HDR_LEN, len), ett_cm_mad, NULL,
				     "MAD header (IBA 13.4.2)");
	rl_cm_iter_init(&it, cm);
	while ((f = rl_cm_next(&it))) {
		if (f->msg && !in_msg) {
			/* The header's rows come first, then the message's (rl_cm_next walks in wire order). */
			sub = proto_tree_add_subtree_format(ct, tvb, (gint)msg_off,
							    rlp_len(msg_off, cm->len - RL_MAD_HDR_LEN, len), ett_cm_msg,
							    NULL, "%s (%s)", cm->msg->abbr, cm->msg->name);
			in_msg = true;
		}
		rlp_add_cm_field(sub, tvb, f, &it, mad_off, len);
	}
	if (cm->msg && cm->attr == RL_CM_REJ && cst == RL_CM_OK) {
		reason = rl_cm_rej_reason(rl_cm_get(cm, RL_CMF_REJ_REASON));
		expert_add_info_format(pinfo, ci, &ei_cm_reject, "Connection rejected: reason %u, %s",
				       (unsigned)rl_cm_get(cm, RL_CMF_REJ_REASON), reason ? reason : "reserved");
	}
}

/* What the analyzer says of a CM message: what it answers, its resends, the conversation's state. */
static void rlp_show_cm_analysis(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const struct rlp_frame *fr)
{
	const struct rl_cm_annotation *c = &fr->ann.cm;
	proto_tree *at;
	proto_item *ai, *pi;
	nstime_t rt;

	if (!c->is_cm)
		return;
	at = proto_tree_add_subtree_format(t, tvb, 0, 0, ett_cm_analysis, &ai, "CM conversation: %s",
					   rl_cm_wire_state_name(c->state));
	proto_item_set_generated(ai);
	rlp_gen(proto_tree_add_uint(at, hf_cm_state, tvb, 0, 0, c->state));
	if (c->answers_frame) {
		pi = rlp_gen(proto_tree_add_uint(at, hf_cm_answers_frame, tvb, 0, 0, rlp_frame_num(c->answers_frame)));
		proto_item_append_text(pi, " (the %s)", rlp_cm_abbr(c->answers_attr));
		rt.secs = (time_t)(c->answer_time_ns / 1000000000u);
		rt.nsecs = (int)(c->answer_time_ns % 1000000000u);
		rlp_gen(proto_tree_add_time(at, hf_cm_answer_time, tvb, 0, 0, &rt));
	}
	if (fr->cm_answered_in)
		rlp_gen(proto_tree_add_uint(at, hf_cm_answered_in, tvb, 0, 0, fr->cm_answered_in));
	if (c->original_frame) {
		pi = rlp_gen(proto_tree_add_none_format(at, hf_cm_retransmission, tvb, 0, 0,
							"This CM %s is sent again (same IDs and transaction ID)",
							rlp_cm_abbr(c->attr)));
		expert_add_info_format(pinfo, pi, &ei_cm_retransmission, "CM %s retransmission: sent before in frame %u",
				       rlp_cm_abbr(c->attr), rlp_frame_num(c->original_frame));
		rlp_gen(proto_tree_add_uint(at, hf_cm_original_frame, tvb, 0, 0, rlp_frame_num(c->original_frame)));
	}
	if (fr->cm_resent_in)
		rlp_gen(proto_tree_add_uint(at, hf_cm_resent_in, tvb, 0, 0, fr->cm_resent_in));
}

/* A data packet: the first PSN of its QP, as a REQ or REP announced it. */
static void rlp_show_cm_psn(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const struct rl_pkt *pkt,
			    const struct rlp_frame *fr)
{
	const struct rl_cm_annotation *c = &fr->ann.cm;
	proto_tree *at;
	proto_item *ai, *pi;

	if (!c->psn_frame)
		return;
	at = proto_tree_add_subtree_format(t, tvb, 0, 0, ett_cm_analysis, &ai, "First PSN, as the %s of frame %u set it%s",
					   rlp_cm_abbr(c->psn_attr), rlp_frame_num(c->psn_frame),
					   c->psn_mismatch ? ": MISMATCH" : "");
	proto_item_set_generated(ai);
	rlp_gen(proto_tree_add_uint(at, hf_cm_psn_frame, tvb, 0, 0, rlp_frame_num(c->psn_frame)));
	rlp_gen(proto_tree_add_uint(at, hf_cm_announced_psn, tvb, 0, 0, c->announced_psn));
	if (c->psn_mismatch) {
		pi = rlp_gen(proto_tree_add_none_format(at, hf_cm_psn_mismatch, tvb, 0, 0,
							"PSN %u, but the %s announced %u", pkt->bth.psn,
							rlp_cm_abbr(c->psn_attr), c->announced_psn));
		expert_add_info_format(pinfo, pi, &ei_cm_psn_mismatch,
				       "First PSN %u to QP 0x%06x, but the %s of frame %u announced %u", pkt->bth.psn,
				       pkt->bth.dqpn, rlp_cm_abbr(c->psn_attr), rlp_frame_num(c->psn_frame),
				       c->announced_psn);
	}
}

static int dissect_rocelab(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	enum rl_link link;
	enum rl_status st;
	struct rl_pkt pkt;
	struct rlp_frame *fr;
	const guint8 *bytes;
	size_t len;
	char line[256];
	struct rl_annotation_text text;
	proto_item *ti;
	proto_tree *t;

	if (!rlp_link(pinfo, &link))
		return 0;
	len = tvb_captured_length(tvb);
	if (len == 0)
		return 0;
	bytes = tvb_get_ptr(tvb, 0, (gint)len);
	/* A frame the snap length cut after its headers is decoded, and kept in the PSN analysis. */
	st = rl_decode_cut(link, bytes, len, tvb_reported_length(tvb), &pkt);
	if (st == RL_NOT_ROCE)
		return 0;
	if (rl_status_fatal(st)) {
		if (!rlp_meant_for_roce(&pkt, bytes, len))
			return 0;
		rlp_show_malformed(tvb, pinfo, tree, st, &pkt, len);
		return (int)len;
	}

	/* Cross-packet results: computed once, on the first pass, then read back. */
	fr = (struct rlp_frame *)p_get_proto_data(wmem_file_scope(), pinfo, proto_rocelab, 0);
	if (!fr && !PINFO_FD_VISITED(pinfo))
		fr = rlp_analyze(pinfo, &pkt, st);

	/* The words, made now: all of them for a tree, the summary alone for the Info column. */
	text.summary[0] = text.nak_meaning[0] = text.explanation[0] = '\0';
	if (fr && tree)
		rl_annotation_describe(&fr->ann, &pkt, &text);
	else if (fr)
		rl_annotation_summary(&fr->ann, &pkt, text.summary, sizeof(text.summary));
	rlp_info(pinfo, &pkt, st, fr, text.summary);

	/*
	 * The same calls with or without a tree: with none (tshark -q -z expert,
	 * or -r alone) the proto_tree_add_*() return NULL at once, but the expert
	 * infos are still recorded for the expert tap, as in Wireshark's own
	 * dissectors.
	 */
	ti = proto_tree_add_item(tree, proto_rocelab, tvb, (gint)pkt.l3_off,
				 rlp_len(pkt.l3_off, pkt.end_off - pkt.l3_off, len), ENC_NA);
	t = proto_item_add_subtree(ti, ett_rocelab);
	if (text.summary[0]) {
		proto_item_append_text(ti, ": %s", text.summary);
		rlp_gen(proto_tree_add_string(t, hf_summary, tvb, 0, 0, text.summary));
	}
	if (text.explanation[0])
		rlp_gen(proto_tree_add_string(t, hf_explanation, tvb, 0, 0, text.explanation));
	if (tree) {
		rl_describe_pkt(&pkt, line, sizeof(line));
		line[sizeof(line) - 1] = '\0';
		rlp_gen(proto_tree_add_string(t, hf_packet, tvb, (gint)pkt.bth_off,
					      rlp_len(pkt.bth_off, RL_BTH_LEN, len), line));
	}
	if (fr)
		rlp_gen(proto_tree_add_uint(t, hf_role, tvb, 0, 0, fr->ann.role));
	rlp_show_fields(t, tvb, pinfo, &pkt, st, len);
	if (rl_cm_is_gsi(&pkt)) {
		struct rl_cm cm;
		enum rl_cm_status cst = rl_cm_decode(pkt.payload, pkt.payload_len, &cm);

		if (cm.len)
			rlp_show_cm_fields(t, tvb, pinfo, &pkt, &cm, cst, len);
	}
	rlp_show_icrc(t, ti, tvb, pinfo, &pkt, len);
	if (fr) {
		rlp_show_cm_analysis(t, tvb, pinfo, fr);
		rlp_show_cm_psn(t, tvb, pinfo, &pkt, fr);
		rlp_show_analysis(t, tvb, pinfo, &pkt, fr);
		rlp_show_links(t, tvb, fr);
		rlp_show_ack(t, tvb, fr);
		rlp_show_msg(t, tvb, fr);
	}
	rlp_show_nak(t, tvb, pinfo, &pkt, fr, text.nak_meaning, len);
	rlp_show_congestion(t, tvb, pinfo, &pkt, fr);
	return (int)len;
}

/* ---- registration ---------------------------------------------------------------- */

static void rlp_fill_names(void)
{
	size_t n = 0;

	for (unsigned op = 0; op < 256; op++) {
		const struct rl_opcode_info *info = rl_opcode_info((uint8_t)op);

		if (info->flags & RL_OPF_VALID) {
			opcode_vals[n].value = op;
			opcode_vals[n].strptr = info->name;
			n++;
		}
	}
	opcode_vals[n].value = 0;
	opcode_vals[n].strptr = NULL;
	for (unsigned v = 0; v <= RL_V_DUPLICATE; v++) {
		verdict_vals[v].value = v;
		verdict_vals[v].strptr = rl_verdict_name((enum rl_verdict)v);
	}
	verdict_vals[RL_V_DUPLICATE + 1].value = 0;
	verdict_vals[RL_V_DUPLICATE + 1].strptr = NULL;
	for (unsigned v = 0; v <= RL_CMS_SIDR_ANSWERED; v++) {
		cm_state_vals[v].value = v;
		cm_state_vals[v].strptr = rl_cm_wire_state_name((enum rl_cm_wire_state)v);
	}
	cm_state_vals[RL_CMS_SIDR_ANSWERED + 1].value = 0;
	cm_state_vals[RL_CMS_SIDR_ANSWERED + 1].strptr = NULL;
}

/* The hf type of an unsigned field of @bits bits. */
static enum ftenum rlp_uint_ftype(unsigned bits)
{
	if (bits <= 8)
		return FT_UINT8;
	if (bits <= 16)
		return FT_UINT16;
	if (bits <= 24)
		return FT_UINT24;
	return bits <= 32 ? FT_UINT32 : FT_UINT64;
}

/* The hf type of a transport header field. */
static enum ftenum rlp_ftype(const struct rl_field *f)
{
	return f->fmt == RL_FMT_BOOL ? FT_BOOLEAN : rlp_uint_ftype(f->bits);
}

/* One hf entry; Wireshark keeps the pointers, so @name, @abbrev and @blurb must live on. */
static void rlp_hf_entry(hf_register_info *hf, int *id, const char *name, const char *abbrev, enum ftenum type,
			 int display, const void *strings, const char *blurb)
{
	*id = -1;
	hf->p_id = id;
	hf->hfinfo.name = name;
	hf->hfinfo.abbrev = abbrev;
	hf->hfinfo.type = type;
	hf->hfinfo.display = display;
	hf->hfinfo.strings = strings;
	hf->hfinfo.bitmask = 0;
	hf->hfinfo.blurb = blurb;
	HFILL_INIT(*hf);
}

/*
 * hf entries for the transport headers, one per row of the field table:
 * rocelab.<header>.<field>, with the row's name, format and meaning.
 * Wireshark keeps the pointers, so the array and its strings live on.
 */
static void rlp_register_fields(void)
{
	size_t n;
	const struct rl_field *tab = rl_field_table(&n);
	hf_register_info *hf;
	static gint *ett[RLP_MAX_HDRS];

	hf_fields = g_new(int, n);
	hf = g_new0(hf_register_info, n);
	for (size_t i = 0; i < n; i++) {
		const struct rl_field *f = &tab[i];

		rlp_hf_entry(&hf[i], &hf_fields[i], f->name,
			     g_strdup_printf("rocelab.%s.%s", rl_field_hdr(f->hdr)->filter, f->filter), rlp_ftype(f),
			     f->fmt == RL_FMT_BOOL ? BASE_NONE : f->fmt == RL_FMT_DEC ? BASE_DEC : BASE_HEX,
			     f->fmt == RL_FMT_OPCODE ? VALS(opcode_vals) : NULL, f->meaning);
	}
	proto_register_field_array(proto_rocelab, hf, (int)n);
	for (size_t i = 0; i < RLP_MAX_HDRS; i++) {
		ett_hdrs[i] = -1;
		ett[i] = &ett_hdrs[i];
	}
	proto_register_subtree_array(ett, RLP_MAX_HDRS);
}

/* The hf type of a CM field. */
static enum ftenum rlp_cm_ftype(const struct rl_cm_field *f)
{
	switch (f->fmt) {
	case RL_CM_BOOL: return FT_BOOLEAN;
	case RL_CM_GID: return FT_IPv6;
	case RL_CM_DATA: return FT_BYTES;
	default: return rlp_uint_ftype(f->bits);
	}
}

/*
 * hf entries for the CM MADs, one per row of the CM field table: the row's
 * filter name (rocelab.cm.<message>.<key>, rocelab.cm.mad.<key> for the
 * MAD header), name, format and meaning.
 */
static void rlp_register_cm_fields(void)
{
	size_t n;
	const struct rl_cm_field *tab = rl_cm_field_table(&n);
	hf_register_info *hf;

	hf_cm_fields = g_new(int, n);
	hf = g_new0(hf_register_info, n);
	for (size_t i = 0; i < n; i++) {
		const struct rl_cm_field *f = &tab[i];

		rlp_hf_entry(&hf[i], &hf_cm_fields[i], f->name, f->filter, rlp_cm_ftype(f),
			     f->fmt == RL_CM_DEC ? BASE_DEC : f->fmt == RL_CM_HEX ? BASE_HEX : BASE_NONE, NULL, f->meaning);
	}
	proto_register_field_array(proto_rocelab, hf, (int)n);
}

/* hf entries for the analyzer's CNP fields (rl_cnp_field_table): rocelab.cnp.<key>. */
static void rlp_register_cnp_fields(void)
{
	size_t n;
	const struct rl_cnp_field *tab = rl_cnp_field_table(&n);
	hf_register_info *hf;

	hf_cnp_fields = g_new(int, n);
	hf = g_new0(hf_register_info, n);
	for (size_t i = 0; i < n; i++) {
		const struct rl_cnp_field *f = &tab[i];

		rlp_hf_entry(&hf[i], &hf_cnp_fields[i], f->name, g_strdup_printf("rocelab.cnp.%s", f->key),
			     f->member_size == 1 ? FT_BOOLEAN : f->member_size == 4 ? FT_UINT32 : FT_UINT64,
			     f->member_size == 1 ? BASE_NONE : BASE_DEC, NULL, f->meaning);
	}
	proto_register_field_array(proto_rocelab, hf, (int)n);
}

static void proto_register_rocelab(void)
{
	static hf_register_info hf[] = {
		{ &hf_summary, { "Summary", "rocelab.summary", FT_STRING, BASE_NONE, NULL, 0x0,
			"What this packet does in its conversation, in plain words", HFILL } },
		{ &hf_explanation, { "Explanation", "rocelab.explanation", FT_STRING, BASE_NONE, NULL, 0x0,
			"A sentence or two for a learner: what this packet means and what happens next", HFILL } },
		{ &hf_packet, { "Packet", "rocelab.packet", FT_STRING, BASE_NONE, NULL, 0x0,
			"The packet's key fields on one line, as `rocelab explain` prints them", HFILL } },
		{ &hf_role, { "Role", "rocelab.role", FT_UINT8, BASE_DEC, VALS(role_vals), 0x0,
			"Which way the packet goes: a request from the requester, a response (ACK, NAK, READ data) "
			"from the responder, or a congestion notification", HFILL } },
		{ &hf_decode_error, { "Decode error", "rocelab.decode_error", FT_STRING, BASE_NONE, NULL, 0x0,
			"Why rocelab's decoder could not read this RoCE packet to its end, and where", HFILL } },

		{ &hf_icrc, { "ICRC", "rocelab.icrc", FT_UINT32, BASE_HEX, NULL, 0x0,
			"Invariant CRC as carried in the packet (the 4 bytes read big-endian, as Wireshark shows "
			"infiniband.invariant.crc)", HFILL } },
		{ &hf_icrc_expected, { "Expected ICRC", "rocelab.icrc.expected", FT_UINT32, BASE_HEX, NULL, 0x0,
			"The Invariant CRC recomputed over the packet, with the fields routers may change masked "
			"(IBA A17.3.3)", HFILL } },
		{ &hf_icrc_status, { "ICRC status", "rocelab.icrc.status", FT_UINT8, BASE_NONE, VALS(icrc_status_vals),
			0x0, "Good if the ICRC matches the packet; Bad means a receiver silently drops it", HFILL } },

		{ &hf_verdict, { "PSN verdict", "rocelab.analysis.verdict", FT_UINT8, BASE_DEC, VALS(verdict_vals), 0x0,
			"How this request's PSN compares with the one its connection expected next", HFILL } },
		{ &hf_retransmission, { "Retransmission", "rocelab.analysis.retransmission", FT_NONE, BASE_NONE, NULL,
			0x0, "This PSN was sent before: the requester sends it again after a NAK or a timeout", HFILL } },
		{ &hf_duplicate, { "Duplicate", "rocelab.analysis.duplicate", FT_NONE, BASE_NONE, NULL, 0x0,
			"This PSN was sent before with no reason to resend it: the network delivered a copy", HFILL } },
		{ &hf_out_of_order, { "Out of order", "rocelab.analysis.out_of_order", FT_NONE, BASE_NONE, NULL, 0x0,
			"This PSN is earlier than expected and was never seen: later packets overtook it", HFILL } },
		{ &hf_gap, { "Gap", "rocelab.analysis.gap", FT_NONE, BASE_NONE, NULL, 0x0,
			"This PSN is later than expected: packets before it are missing (lost, or overtaken)", HFILL } },
		{ &hf_missing, { "Missing packets", "rocelab.analysis.missing", FT_UINT32, BASE_DEC, NULL, 0x0,
			"How many PSNs were skipped before this packet", HFILL } },
		{ &hf_expected_psn, { "Expected PSN", "rocelab.analysis.expected_psn", FT_UINT32, BASE_DEC, NULL, 0x0,
			"The PSN the connection expected next when this packet came", HFILL } },
		{ &hf_original_frame, { "Sent before in", "rocelab.analysis.original_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_RETRANS_PREV), 0x0,
			"An earlier frame that carried this PSN: this packet repeats it", HFILL } },
		{ &hf_retransmitted_in, { "Sent again in", "rocelab.analysis.retransmitted_in", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_RETRANS_NEXT), 0x0,
			"The next frame that carries this PSN again (a retransmission or a duplicate)", HFILL } },

		/* Named as dns, smb and ldap name their links, so a Wireshark user's filters carry over. */
		{ &hf_response_to, { "Response to", "rocelab.response_to", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
			"The request this response answers (an ACK or NAK names its PSN; READ data counts from the "
			"READ request's PSN)", HFILL } },
		{ &hf_response_in, { "Response in", "rocelab.response_in", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0,
			"The first response (ACK, NAK or READ data) that answers this request", HFILL } },
		{ &hf_time, { "Time", "rocelab.time", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
			"Time from the request to this response, as seen at the capture point", HFILL } },
		{ &hf_request_frame, { "Request in (old name)", "rocelab.request_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
			"The first name of rocelab.response_to, still filled (hidden) for filters that use it", HFILL } },
		{ &hf_response_frame, { "Answered in (old name)", "rocelab.response_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0,
			"The first name of rocelab.response_in, still filled (hidden) for filters that use it", HFILL } },
		{ &hf_response_time, { "Response time (old name)", "rocelab.response_time", FT_RELATIVE_TIME, BASE_NONE,
			NULL, 0x0, "The first name of rocelab.time, still filled (hidden) for filters that use it", HFILL } },

		{ &hf_ack_first_psn, { "First PSN acknowledged", "rocelab.ack.first_psn", FT_UINT32, BASE_DEC, NULL, 0x0,
			"ACKs are cumulative: this one covers every PSN from here to the one it names", HFILL } },
		{ &hf_ack_last_psn, { "Last PSN acknowledged", "rocelab.ack.last_psn", FT_UINT32, BASE_DEC, NULL, 0x0,
			"The last PSN this packet acknowledges", HFILL } },
		{ &hf_ack_first_frame, { "First acknowledged frame", "rocelab.ack.first_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_ACK), 0x0, "The frame of the first request this packet acknowledges",
			HFILL } },
		{ &hf_ack_last_frame, { "Last acknowledged frame", "rocelab.ack.last_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_ACK), 0x0, "The frame of the last request this packet acknowledges",
			HFILL } },

		{ &hf_msg_number, { "Message number", "rocelab.msg.number", FT_UINT64, BASE_DEC, NULL, 0x0,
			"Which message of its connection this packet belongs to, counting from 1", HFILL } },
		{ &hf_msg_bytes, { "Message bytes so far", "rocelab.msg.bytes", FT_UINT64, BASE_DEC, NULL, 0x0,
			"Payload bytes of the message up to and including this packet", HFILL } },
		{ &hf_msg_total, { "Message length", "rocelab.msg.total", FT_UINT64, BASE_DEC, NULL, 0x0,
			"The whole message's length, once known (RETH DMA length, or when the last packet arrives)",
			HFILL } },
		{ &hf_msg_first_frame, { "Message starts in", "rocelab.msg.first_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_NONE), 0x0, "The frame that carries the message's first packet",
			HFILL } },
		{ &hf_msg_complete, { "Message complete", "rocelab.msg.complete", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
			"This packet ends its message", HFILL } },

		{ &hf_nak, { "NAK", "rocelab.nak", FT_NONE, BASE_NONE, NULL, 0x0,
			"A negative acknowledgement: a NAK or an RNR NAK (AETH syndrome, IBA 9.7.5.1)", HFILL } },
		{ &hf_nak_meaning, { "What the NAK means", "rocelab.nak.meaning", FT_STRING, BASE_NONE, NULL, 0x0,
			"The NAK's reason in plain words, and what the requester does next", HFILL } },
		{ &hf_nak_resend_psn, { "Resend from PSN", "rocelab.nak.resend_psn", FT_UINT32, BASE_DEC, NULL, 0x0,
			"A PSN sequence error NAK or an RNR NAK asks the requester to go back and send again from this PSN",
			HFILL } },
		{ &hf_nak_wr_fails, { "Work request fails", "rocelab.nak.wr_fails", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
			"The NAK is final: the work request completes in error and the QP moves to the Error state",
			HFILL } },
		{ &hf_nak_trigger, { "NAK on", "rocelab.nak.trigger_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
			"The first request past the gap: the responder sends its one PSN sequence error NAK on it "
			"(IBA 9.7.5.1.1)", HFILL } },
		{ &hf_nak_missing_first, { "First PSN missing", "rocelab.nak.missing_first", FT_UINT32, BASE_DEC, NULL,
			0x0, "The PSN the responder expected and never got: the NAK's own PSN", HFILL } },
		{ &hf_nak_missing_last, { "Last PSN missing", "rocelab.nak.missing_last", FT_UINT32, BASE_DEC, NULL,
			0x0, "The PSN before the one the NAK came on: every PSN from the first missing to this one "
			"never reached the responder", HFILL } },
		{ &hf_rnr_wait_us, { "RNR wait (us)", "rocelab.rnr.wait_us", FT_UINT32, BASE_DEC, NULL, 0x0,
			"Receiver Not Ready: the requester waits at least this many microseconds before resending",
			HFILL } },

		{ &hf_ecn_ce, { "ECN Congestion Experienced", "rocelab.ecn.ce", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
			"A switch marked the IP header CE (ECN 11): the receiver answers with a CNP", HFILL } },
		{ &hf_cnp, { "Congestion Notification Packet", "rocelab.cnp", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
			"A RoCEv2 CNP (opcode 0x81, IBA A17.9.3): the receiver of ECN-marked packets asks their sender "
			"to slow down (DCQCN)", HFILL } },
		{ &hf_cnp_qp, { "QP to slow down", "rocelab.cnp.qp", FT_UINT24, BASE_HEX, NULL, 0x0,
			"The CNP's destination QP: the sending QP whose packets were marked", HFILL } },

		{ &hf_cm_state, { "CM state", "rocelab.cm.state", FT_UINT8, BASE_DEC, VALS(cm_state_vals), 0x0,
			"The connection's state after this CM message, as the wire shows it (IBA 12.9)", HFILL } },
		{ &hf_cm_answers_frame, { "Answers", "rocelab.cm.answers_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
			"The CM message this one answers: a REP its REQ, an RTU the REP, a DREP its DREQ, a REJ or MRA "
			"the message it names", HFILL } },
		{ &hf_cm_answered_in, { "Answered in", "rocelab.cm.answered_in", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0, "The first CM message that answers this one", HFILL } },
		{ &hf_cm_answer_time, { "Answer time", "rocelab.cm.answer_time", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
			"Time from the message answered to this one, as seen at the capture point", HFILL } },
		{ &hf_cm_retransmission, { "CM retransmission", "rocelab.cm.retransmission", FT_NONE, BASE_NONE, NULL, 0x0,
			"The same message (sender, communication IDs, transaction ID) was sent before: no answer came "
			"within the CM response timeout", HFILL } },
		{ &hf_cm_original_frame, { "Sent before in", "rocelab.cm.original_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_RETRANS_PREV), 0x0, "The previous copy of this CM message", HFILL } },
		{ &hf_cm_resent_in, { "Sent again in", "rocelab.cm.resent_in", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_RETRANS_NEXT), 0x0, "The next copy of this CM message", HFILL } },
		{ &hf_cm_psn_frame, { "First PSN set in", "rocelab.cm.psn_frame", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_NONE), 0x0,
			"The REQ or REP whose Starting PSN this QP expects first: the first request to it should carry "
			"that PSN", HFILL } },
		{ &hf_cm_announced_psn, { "Announced first PSN", "rocelab.cm.announced_psn", FT_UINT32, BASE_DEC, NULL,
			0x0, "The Starting PSN the REQ or REP announced for this QP (IBA 12.7)", HFILL } },
		{ &hf_cm_psn_mismatch, { "First PSN mismatch", "rocelab.cm.psn_mismatch", FT_NONE, BASE_NONE, NULL, 0x0,
			"The first request to this QP does not carry the PSN its CM exchange announced", HFILL } },
	};
	static gint *ett[] = {
		&ett_rocelab, &ett_icrc, &ett_analysis, &ett_link, &ett_ack, &ett_msg, &ett_nak, &ett_congestion,
		&ett_cm, &ett_cm_mad, &ett_cm_msg, &ett_cm_analysis,
	};
	static ei_register_info ei[] = {
		{ &ei_malformed, { "rocelab.expert.malformed", PI_MALFORMED, PI_ERROR,
			"Malformed RoCE packet", EXPFILL } },
		{ &ei_unknown_opcode, { "rocelab.expert.unknown_opcode", PI_PROTOCOL, PI_WARN,
			"The BTH opcode is reserved in the IB spec", EXPFILL } },
		{ &ei_icrc_bad, { "rocelab.expert.icrc_bad", PI_CHECKSUM, PI_ERROR,
			"ICRC mismatch: a receiver drops this packet", EXPFILL } },
		{ &ei_retransmission, { "rocelab.expert.retransmission", PI_SEQUENCE, PI_NOTE,
			"Retransmission", EXPFILL } },
		{ &ei_duplicate, { "rocelab.expert.duplicate", PI_SEQUENCE, PI_NOTE,
			"Duplicate packet", EXPFILL } },
		{ &ei_out_of_order, { "rocelab.expert.out_of_order", PI_SEQUENCE, PI_WARN,
			"Out-of-order packet", EXPFILL } },
		{ &ei_gap, { "rocelab.expert.gap", PI_SEQUENCE, PI_WARN,
			"PSN gap: packets missing", EXPFILL } },
		{ &ei_nak_psn, { "rocelab.expert.nak_psn_sequence", PI_SEQUENCE, PI_WARN,
			"NAK: PSN sequence error", EXPFILL } },
		{ &ei_nak_access, { "rocelab.expert.nak_access_error", PI_RESPONSE_CODE, PI_ERROR,
			"NAK: remote access error", EXPFILL } },
		{ &ei_nak_other, { "rocelab.expert.nak", PI_RESPONSE_CODE, PI_ERROR,
			"NAK", EXPFILL } },
		{ &ei_rnr_nak, { "rocelab.expert.rnr_nak", PI_RESPONSE_CODE, PI_WARN,
			"RNR NAK: receiver not ready", EXPFILL } },
		{ &ei_ecn_ce, { "rocelab.expert.ecn_ce", PI_SEQUENCE, PI_NOTE,
			"ECN Congestion Experienced: a switch on the path is congested", EXPFILL } },
		{ &ei_cnp, { "rocelab.expert.cnp", PI_SEQUENCE, PI_NOTE,
			"Congestion Notification Packet", EXPFILL } },
		{ &ei_cm_retransmission, { "rocelab.expert.cm_retransmission", PI_SEQUENCE, PI_NOTE,
			"CM retransmission", EXPFILL } },
		{ &ei_cm_reject, { "rocelab.expert.cm_reject", PI_RESPONSE_CODE, PI_WARN,
			"CM REJ: the connection is refused", EXPFILL } },
		{ &ei_cm_psn_mismatch, { "rocelab.expert.cm_psn_mismatch", PI_SEQUENCE, PI_WARN,
			"First PSN differs from the one the CM exchange announced", EXPFILL } },
	};
	expert_module_t *expert;

	rlp_fill_names();
	proto_rocelab = proto_register_protocol("RoCE Lab", "RoCE Lab", "rocelab");
	proto_register_field_array(proto_rocelab, hf, array_length(hf));
	rlp_register_fields();
	rlp_register_cm_fields();
	rlp_register_cnp_fields();
	proto_register_subtree_array(ett, array_length(ett));
	expert = expert_register_protocol(proto_rocelab);
	expert_register_field_array(expert, ei, array_length(ei));
	register_init_routine(rlp_init);
	register_cleanup_routine(rlp_cleanup);
	rocelab_handle = create_dissector_handle(dissect_rocelab, proto_rocelab);
	register_postdissector(rocelab_handle);
}

void plugin_register(void)
{
	static proto_plugin plug;

	plug.register_protoinfo = proto_register_rocelab;
	plug.register_handoff = NULL;
	proto_register_plugin(&plug);
}

#ifdef RLP_HAVE_PLUGIN_DESCRIBE
uint32_t plugin_describe(void)
{
	return WS_PLUGIN_DESC_DISSECTOR;
}
#endif
