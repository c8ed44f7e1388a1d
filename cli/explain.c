/* SPDX-License-Identifier: MIT */
/*
 * rocelab explain FILE: read a capture with libpcap and print each RoCE
 * packet in RDMA terms, one line (default), field by field (-v) or as JSON.
 * It takes tcpdump's and tshark's habits: -r, -n, -V, -T json|ek, -x, -l,
 * -t, a capture filter after the file, and keeps going on a live pipe.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "capture.h"
#include "cli.h"
#include "explain_cm.h"
#include "explain_reader.h"
#include "gen.h"
#include "json.h"
#include "ladder.h"
#include "report.h"
#include "svg.h"
#include "rocelab/rocelab.h"

enum ex_mode { EX_LINE, EX_VERBOSE, EX_JSON, EX_LADDER, EX_REPORT };

/* -t: how a frame's time is shown, with tshark's letters (ex_time_names). */
enum ex_time {
	EX_T_REL,        /* r: since the first frame (the default) */
	EX_T_DELTA,      /* d: since the frame before */
	EX_T_DELTA_SHOWN, /* dd: since the frame shown before */
	EX_T_ABS,        /* a: local time of day */
	EX_T_ABS_DATE,   /* ad: local date and time (tcpdump -tttt) */
	EX_T_EPOCH,      /* e: seconds since 1970 */
	EX_T_UTC,        /* u: UTC time of day */
	EX_T_UTC_DATE,   /* ud: UTC date and time */
};
static const char *const ex_time_names[] = { "r", "d", "dd", "a", "ad", "e", "u", "ud" };

/* How many of each --qp and --host; the --qp peers learned from the frames. */
#define EX_SEL_MAX 16
#define EX_PEERS_MAX 256

/* What is shown: a capture filter, and the RoCE-level selectors. The analyzer sees every frame. */
struct ex_select {
	bool any;                 /* frames may be hidden: the summary counts what is shown */
	const char *filter;       /* the capture filter, tcpdump's words joined */
	bool by_op;
	bool op[256];             /* --op: the opcodes asked for */
	uint32_t qp[EX_SEL_MAX];  /* --qp: destination QPs asked for */
	unsigned nqp;
	uint8_t host[EX_SEL_MAX][16]; /* --host, as ex_ip16() lays addresses out */
	unsigned nhost;
	/* The other end of a selected QP's connection: (its host, its QP), learned from the responses. */
	struct { uint8_t ip[16]; uint32_t qp; } peer[EX_PEERS_MAX];
	unsigned npeer;
	/* One bit per frame: a request to a selected QP, so that its responses are shown too. */
	uint8_t *req;
	size_t req_len;
};

struct ex_state {
	enum ex_mode mode;
	enum rl_link link;
	uint64_t max_packets;
	uint64_t line_gbps;       /* --line-rate: the link's rate, for the CNPs' DCQCN rates in Gb/s; 0 unknown */
	bool summary;
	bool compare;
	bool svg;                 /* --layout, --ladder: as SVG */
	const char *layout;       /* --layout HDR: draw that header, read no capture */
	const char *layout_out;   /* --layout, --ladder --svg: -o FILE */
	bool ek;          /* -T ek: an Elasticsearch bulk index line before each JSON object */
	bool hex;         /* -x: each frame's bytes, and what the ICRC does with them */
	bool hex_legend;  /* the legend of -x's marks was printed */
	bool each_frame;  /* -l or a live pipe: the output follows each frame */
	enum ex_time tfmt;
	struct ex_select sel;
	const char *cmd;          /* "explain" or "report", for messages */
	/* This frame, the one before it, the one shown before it (-t d, dd). */
	const struct cli_frame *cur;
	int64_t prev_ns, prev_shown_ns;
	uint64_t shown;
	/* Counters for the summary. */
	uint64_t frames, roce, other, malformed, icrc_bad, unknown, snapped;
	uint64_t cut;              /* cut by the snap length, headers decoded */
	/* This frame: how much the capture kept of it (tcpdump -s), when less than it was. */
	uint32_t caplen, wirelen;
	uint64_t per_opcode[256];
	struct json json;
	struct rl_analyzer *an;
	struct rl_annotation ann;
	/* This frame's CM MAD, when it carries one (a UD SEND Only to QP1). */
	struct rl_cm cm;
	enum rl_cm_status cm_st;
	/* Ladder: the host pairs seen so far, requester first; with --svg, the arrows kept for the drawing. */
	struct { uint8_t req[16], resp[16]; } pairs[CLI_LADDER_PAIRS];
	unsigned npairs;
	struct cli_ladder *lad;
	/* rocelab report: the page being written (the host pairs are lad's). */
	struct cli_report *rpt;
	bool rpt_shared;          /* explain --compare -o: the page is the caller's, this capture one column of it */
	uint64_t rpt_pairs_more;  /* frames between two hosts past the CLI_LADDER_PAIRS-th pair: no row */
	int64_t first_ns, last_rel_ns;
	/* Progress on a terminal while a big capture is read to a pipe or file. */
	FILE *in;
	struct exr *reader;       /* the reader thread, which alone may touch in while it runs */
	off_t in_size;
	/* Line mode builds its text here and writes it in large blocks. */
	size_t out_len;
	char out[1 << 16];
};

/* Longest line ex_line() writes; the buffer is flushed before less is left. */
#define EX_LINE_MAX 2048

static void ex_flush(struct ex_state *s)
{
	if (s->out_len)
		fwrite(s->out, 1, s->out_len, stdout);
	s->out_len = 0;
}

static void ex_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab explain [options] FILE [FILTER...]\n"
		"       rocelab explain [options] -r FILE [FILTER...]\n"
		"       rocelab explain --compare FILE_A FILE_B [-o PAGE.html]\n"
		"       rocelab explain --layout HDR|OPCODE [--svg | --json] [-o FILE]\n"
		"       rocelab explain --ladder --svg [-o FILE] FILE [FILTER...]\n\n"
		"Print every RoCE packet of a capture (pcap or pcapng; '-' reads standard input)\n"
		"in RDMA terms: opcode, queue pair, PSN, the extended headers, and whether the\n"
		"ICRC is right. Other packets are counted and skipped.\n\n"
		"options:\n"
		"  -r FILE         the capture to read, as tcpdump -r and tshark -r\n"
		"  -v, -V, --verbose  every header, field by field, with what each field means\n"
		"      --json, -T json  one JSON object per packet per line (for scripts and graders;\n"
		"                  docs/explain-json.md); the summary goes to standard error\n"
		"  -T ek           the same objects, each after an Elasticsearch bulk index line\n"
		"                  and with tshark's \"timestamp\" (tshark -T ek)\n"
		"  -x              each frame's bytes in hex, and under them what the ICRC does with\n"
		"                  each byte: ^^ replaced by ones, ~~ partly, -- not covered, == the ICRC\n"
		"  -t r|d|dd|a|ad|e|u|ud  time as tshark -t: since the first frame (r, the default),\n"
		"                  since the frame before (d) or the one shown before (dd), local\n"
		"                  time (a), with the date (ad, as tcpdump -tttt), epoch (e), UTC (u, ud)\n"
		"  -l              write each frame out as soon as it is read (always so when FILE is\n"
		"                  a pipe or FIFO: tcpdump -U -w - | rocelab explain -)\n"
		"  -n              accepted for tcpdump's sake: addresses are never resolved\n"
		"  FILTER          a capture filter in tcpdump's syntax (pcap-filter(7)), e.g.\n"
		"                  'host 192.168.100.2'; words after FILE are joined, as tcpdump does\n"
		"      --qp N      only packets to QP N, and the responses of its connection\n"
		"      --host ADDR only packets from or to ADDR (IPv4 or IPv6)\n"
		"      --op NAME   only these opcodes: a full spec name ('RC SEND First') is that one,\n"
		"                  other words pick every name that has them ('send', 'RDMA READ',\n"
		"                  'Acknowledge'), a number (0x11) one opcode; repeat for more\n"
		"                  The filter and selectors hide frames but keep their numbers, the\n"
		"                  analysis still sees every frame (as tshark -Y), and the summary\n"
		"                  counts the frames shown\n"
		"      --ladder    a sequence diagram per host pair: requester left, responder right,\n"
		"                  one arrow per packet, gaps, NAKs and retransmissions marked\n"
		"      --ladder --svg  the same as a standalone SVG image, one ladder for each two\n"
		"                  hosts (both ways, the first to send on the left; frames lost\n"
		"                  on gen's wire dashed); the summary goes to standard error\n"
		"      --compare   two captures of the same operation by two stacks, side by side:\n"
		"                  UDP checksum, IP Identification, source ports, AckReq, ACK\n"
		"                  coalescing, credits, ACK delay, resends, RNR waits; and what\n"
		"                  each difference means; with -o PAGE.html, also both captures\n"
		"                  drawn side by side in one page (as rocelab report draws one)\n"
		"      --layout HDR  no capture: the bit layout of header HDR (BTH, RETH,\n"
		"                  AETH, DETH, AtomicETH, AtomicAckETH, ImmDt, IETH, ...;\n"
		"                  --layout list names them), drawn from the field table the\n"
		"                  decoder uses: 32 bits a row, byte offsets at the left,\n"
		"                  each field in its box, reserved bits too, and a label too\n"
		"                  long for its box as a key explained under the diagram\n"
		"      --layout OPCODE  the layers of a frame of that opcode, a spec name ('RC RDMA\n"
		"                  WRITE First', RC_SEND_ONLY) or number (0x11): Ethernet, IPv4,\n"
		"                  UDP, BTH, the extended headers the opcode table lists, payload,\n"
		"                  pad and ICRC, with their bytes\n"
		"      --svg       with --layout: the same diagram as a standalone SVG image\n"
		"                  (docs/figures/ holds those of the headers the labs use)\n"
		"      --json      with --layout: one object per field and per reserved run\n"
		"                  (name, json_key, filter, first_bit, bits, byte, reserved)\n"
		"  -o FILE         with --layout or --ladder --svg: write to FILE (replaced whole);\n"
		"                  with --compare: also write both captures' page to FILE (the\n"
		"                  table stays on standard output)\n"
		"                  instead of standard output\n"
		"      --line-rate GBPS  the link's rate, which a capture does not show: a CNP's\n"
		"                  DCQCN rates in Gb/s too, not only as a share of the line rate\n"
		"  -c, --count N   stop after N frames, shown or not (as tshark -c)\n"
		"  -q, --quiet     no summary at the end\n"
		"  -h, --help      this text\n\n"
		"Reads Ethernet, Linux cooked (tcpdump -i any: SLL and SLL2) and raw IP captures;\n"
		"RoCEv2 (UDP port 4791, IPv4 or IPv6) and RoCEv1 (ethertype 0x8915).\n"
		"Ctrl-C (SIGINT) or SIGTERM stops the reading: what was read is printed, then the\n"
		"summary, and the exit status is 0, as tcpdump's after a live capture.\n"
		"Exit status: 0 the file was read to its end (or stopped so), 1 it is damaged or cut\n"
		"short (what was read before is shown), 2 it could not be read or the options were wrong.\n\n"
		"example:\n"
		"  rocelab gen demo -o demo.pcap && rocelab explain demo.pcap\n"
		"  rocelab gen send-bw --size 4096 --count 16 -o send.pcap\n"
		"  rocelab realrxe capture ib_send_bw     (the kernel's Soft-RoCE, in VMs)\n"
		"  rocelab explain --compare send.pcap rxe-captures/ib_send_bw.pcap\n"
		"  rocelab explain -r demo.pcap --op 'RDMA WRITE' -t ad\n"
		"  rocelab explain --layout BTH\n"
		"  rocelab explain --layout RETH --svg -o reth.svg\n"
		"  rocelab explain --ladder --svg -o demo.svg demo.pcap\n"
		"  rocelab explain --layout 'RC RDMA WRITE First'\n"
		"  tcpdump -i eth0 -U -w - udp port 4791 | rocelab explain - --qp 0x12\n");
}

static const char *ex_mac(const uint8_t *m, char *buf, size_t n)
{
	snprintf(buf, n, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

static void ex_hex32(char *buf, size_t n, uint32_t v)
{
	snprintf(buf, n, "0x%08x", v);
}

/* Did decoding get past the IP header (or GRH), so that its addresses are valid? */
static bool ex_l3_decoded(enum rl_status st)
{
	switch (st) {
	case RL_E_TRUNC_UDP: case RL_E_UDP_LEN: case RL_E_TRUNC_BTH: case RL_E_TVER:
	case RL_E_MISSING_HDR: case RL_E_TRUNC_ICRC: case RL_E_PAD: case RL_E_PAYLOAD_LEN:
		return true;
	default:
		return false;
	}
}

/* ---- times (-t) ----------------------------------------------------------- */

/* A span as seconds with microseconds, rounded to the microsecond. */
static void ex_sb_span(struct rl_sb *sb, int64_t ns)
{
	uint64_t us = ((ns < 0 ? -(uint64_t)ns : (uint64_t)ns) + 500) / 1000;

	if (ns < 0)
		rl_sb_putc(sb, '-');
	rl_sb_u64(sb, us / 1000000);
	rl_sb_putc(sb, '.');
	rl_sb_u64w(sb, us % 1000000, 6);
}

/* A moment as a clock shows it, local or UTC, with or without the date. */
static void ex_sb_clock(struct rl_sb *sb, int64_t ns, bool date, bool utc)
{
	int64_t us = ns >= -500 ? (ns + 500) / 1000 : -((-ns - 500 + 999) / 1000);
	time_t sec = (time_t)(us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000));
	struct tm tm;
	char buf[48];

	if (!(utc ? gmtime_r(&sec, &tm) : localtime_r(&sec, &tm)) ||
	    !strftime(buf, sizeof(buf), date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm)) {
		ex_sb_span(sb, ns);
		return;
	}
	rl_sb_puts(sb, buf);
	rl_sb_putc(sb, '.');
	rl_sb_u64w(sb, (uint64_t)(us - (int64_t)sec * 1000000), 6);
}

/* This frame's time as -t asks. */
static void ex_sb_time(const struct ex_state *s, struct rl_sb *sb)
{
	const struct cli_frame *f = s->cur;

	switch (s->tfmt) {
	case EX_T_REL: ex_sb_span(sb, f->rel_ns); break;
	case EX_T_DELTA: ex_sb_span(sb, f->ns - s->prev_ns); break;
	case EX_T_DELTA_SHOWN: ex_sb_span(sb, f->ns - s->prev_shown_ns); break;
	case EX_T_EPOCH: ex_sb_span(sb, f->ns); break;
	case EX_T_ABS: ex_sb_clock(sb, f->ns, false, false); break;
	case EX_T_ABS_DATE: ex_sb_clock(sb, f->ns, true, false); break;
	case EX_T_UTC: ex_sb_clock(sb, f->ns, false, true); break;
	case EX_T_UTC_DATE: ex_sb_clock(sb, f->ns, true, true); break;
	}
}

/* The same into @buf, for the printf-based views (-v and --ladder round the default as they always have). */
static const char *ex_time_str(const struct ex_state *s, char *buf, size_t n)
{
	struct rl_sb sb;

	if (s->tfmt == EX_T_REL) {
		snprintf(buf, n, "%.6f", (double)s->cur->rel_ns / 1e9);
		return buf;
	}
	rl_sb_init(&sb, buf, n);
	ex_sb_time(s, &sb);
	buf[sb.len < n ? sb.len : n - 1] = '\0';
	return buf;
}

/* ---- one line per packet ------------------------------------------------ */

/* The analyzer's verdict in a few words, for the one-line view. */
/* The frame's pcapng comment says `rocelab gen --pcapng`'s wire lost it. */
static bool ex_lost(const struct cli_frame *f)
{
	return !strcmp(f->comment, GEN_LOST_COMMENT);
}

/* "PSN 7 missing", "PSNs 7..9 missing": what a PSN sequence error NAK says never arrived. */
static void ex_missing_psns(struct rl_sb *sb, const struct rl_annotation *a)
{
	rl_sb_puts(sb, a->missing_first == a->missing_last ? "PSN " : "PSNs ");
	rl_sb_u64(sb, a->missing_first);
	if (a->missing_first != a->missing_last) {
		rl_sb_puts(sb, "..");
		rl_sb_u64(sb, a->missing_last);
	}
	rl_sb_puts(sb, " missing");
}

/* A PSN sequence error NAK: "[NAK on 3: PSNs 7..9 missing]", "[PSN 7 missing]" without its trigger. */
static void ex_missing(struct rl_sb *sb, const struct rl_annotation *a)
{
	rl_sb_puts(sb, " [");
	if (a->trigger_frame) {
		rl_sb_puts(sb, "NAK on ");
		rl_sb_u64(sb, a->trigger_frame);
		rl_sb_puts(sb, ": ");
	}
	ex_missing_psns(sb, a);
	rl_sb_putc(sb, ']');
}

static void ex_line_analysis(struct rl_sb *sb, const struct rl_annotation *a)
{
	switch (a->verdict) {
	case RL_V_GAP:
		rl_sb_puts(sb, " [GAP: ");
		rl_sb_u64(sb, a->gap);
		rl_sb_puts(sb, " missing, PSN ");
		rl_sb_u64(sb, a->expected_psn);
		rl_sb_puts(sb, " expected]");
		break;
	case RL_V_RETRANSMISSION:
	case RL_V_DUPLICATE:
		rl_sb_puts(sb, a->verdict == RL_V_DUPLICATE ? " [DUPLICATE of " : " [RETRANSMISSION of ");
		rl_sb_u64(sb, a->original_frame);
		rl_sb_putc(sb, ']');
		break;
	case RL_V_OUT_OF_ORDER:
		rl_sb_puts(sb, " [OUT OF ORDER]");
		break;
	default:
		break;
	}
	if (a->seq_err)
		ex_missing(sb, a);
	else if (a->request_frame) {
		rl_sb_puts(sb, " [answers ");
		rl_sb_u64(sb, a->request_frame);
		rl_sb_puts(sb, " after ");
		rl_sb_u64(sb, a->response_time_ns / 1000);
		rl_sb_putc(sb, '.');
		rl_sb_u64w(sb, a->response_time_ns % 1000 / 100, 1);
		rl_sb_puts(sb, " us]");
	}
	if (a->nak && a->wr_fails)
		rl_sb_puts(sb, " [the work request fails]");
	else if (a->nak)
		rl_sb_puts(sb, a->rnr_wait_us ? " [wait, then resend]" : " [go back N]");
	if (a->ecn_ce)
		rl_sb_puts(sb, " [ECN CE]");
}

/* A time span to a tenth, as the analyzer's words give it: us below a millisecond, ms above. */
static void ex_span(struct rl_sb *sb, uint64_t ns)
{
	uint64_t tenths = ns < 1000000 ? (ns + 50) / 100 : (ns + 50000) / 100000;

	rl_sb_u64(sb, tenths / 10);
	rl_sb_putc(sb, '.');
	rl_sb_u64(sb, tenths % 10);
	rl_sb_puts(sb, ns < 1000000 ? " us" : " ms");
}

static const char *ex_cm_abbr(uint16_t attr)
{
	const struct rl_cm_msg *m = rl_cm_msg(attr);

	return m ? m->abbr : "?";
}

/* "REP of frame 3": a CM message the line points to. */
static void ex_cm_of_frame(struct rl_sb *sb, uint16_t attr, uint64_t frame)
{
	rl_sb_puts(sb, ex_cm_abbr(attr));
	rl_sb_puts(sb, " of frame ");
	rl_sb_u64(sb, frame);
}

/* What the analyzer says of a CM message (its link, a resend) or of the first PSN a CM exchange announced. */
static void ex_line_cm(struct rl_sb *sb, const struct rl_annotation *a, const struct rl_pkt *p)
{
	const struct rl_cm_annotation *c = &a->cm;

	if (c->original_frame) {
		rl_sb_puts(sb, " [RETRANSMISSION of frame ");
		rl_sb_u64(sb, c->original_frame);
		rl_sb_putc(sb, ']');
	}
	if (c->answers_frame) {
		rl_sb_puts(sb, " [answers ");
		ex_cm_of_frame(sb, c->answers_attr, c->answers_frame);
		rl_sb_puts(sb, " after ");
		ex_span(sb, c->answer_time_ns);
		rl_sb_putc(sb, ']');
	}
	if (!c->psn_frame)
		return;
	if (c->psn_mismatch) {
		rl_sb_puts(sb, " [PSN MISMATCH: the ");
		ex_cm_of_frame(sb, c->psn_attr, c->psn_frame);
		rl_sb_puts(sb, " set QP ");
		rl_sb_hex(sb, p->bth.dqpn, 1);
		rl_sb_puts(sb, "'s first PSN to ");
		rl_sb_u64(sb, c->announced_psn);
	} else {
		rl_sb_puts(sb, " [QP ");
		rl_sb_hex(sb, p->bth.dqpn, 1);
		rl_sb_puts(sb, "'s first PSN ");
		rl_sb_u64(sb, c->announced_psn);
		rl_sb_puts(sb, " was set in the ");
		ex_cm_of_frame(sb, c->psn_attr, c->psn_frame);
	}
	rl_sb_putc(sb, ']');
}

static void ex_line(struct ex_state *s, const struct rl_pkt *p, enum rl_status st)
{
	struct rl_sb sb;
	char msg[256];

	if (sizeof(s->out) - s->out_len < EX_LINE_MAX)
		ex_flush(s);
	rl_sb_init(&sb, s->out + s->out_len, EX_LINE_MAX);
	rl_sb_u64(&sb, s->frames);
	rl_sb_putc(&sb, ' ');
	if (s->tfmt == EX_T_REL && s->cur->rel_ns >= 0) {
		uint64_t us = ((uint64_t)s->cur->rel_ns + 500) / 1000;   /* the default, kept short: it is most lines */

		rl_sb_u64(&sb, us / 1000000);
		rl_sb_putc(&sb, '.');
		rl_sb_u64w(&sb, us % 1000000, 6);
	} else {
		ex_sb_time(s, &sb);
	}
	rl_sb_putc(&sb, ' ');
	if (!rl_status_fatal(st) || ex_l3_decoded(st)) {
		rl_sb_addr(&sb, p, true);
		rl_sb_puts(&sb, " > ");
		rl_sb_addr(&sb, p, false);
		rl_sb_putc(&sb, ' ');
	}
	if (rl_status_fatal(st) && s->caplen < s->wirelen) {
		rl_sb_puts(&sb, "CUT BY THE CAPTURE: it kept ");
		rl_sb_u64(&sb, s->caplen);
		rl_sb_puts(&sb, " of ");
		rl_sb_u64(&sb, s->wirelen);
		rl_sb_puts(&sb, " bytes (its snap length, tcpdump -s); capture with a larger -s to decode it");
	} else if (rl_status_fatal(st)) {
		rl_decode_error_str(st, p, msg, sizeof(msg));
		rl_sb_puts(&sb, "MALFORMED ");
		rl_sb_puts(&sb, rl_status_name(st));
		rl_sb_puts(&sb, ": ");
		rl_sb_puts(&sb, msg);
	} else {
		if (p->roce == RL_ROCE_V1)
			rl_sb_puts(&sb, "RoCEv1 ");
		rl_sb_describe_pkt(&sb, p);
		if (ex_cm_decode(p, &s->cm, &s->cm_st))
			ex_cm_line(&sb, &s->cm, s->cm_st);
		ex_line_analysis(&sb, &s->ann);
		ex_line_cm(&sb, &s->ann, p);
		if (ex_lost(s->cur))
			rl_sb_puts(&sb, " [lost on the way]");
		if (p->cut) {
			rl_sb_puts(&sb, " [cut by the snap length: ");
			rl_sb_u64(&sb, s->caplen);
			rl_sb_puts(&sb, " of ");
			rl_sb_u64(&sb, s->wirelen);
			rl_sb_puts(&sb, " bytes kept, ICRC unknown]");
		} else if (p->icrc_ok) {
			rl_sb_puts(&sb, " ICRC ok");
		} else {
			rl_sb_puts(&sb, " ICRC BAD (expected ");
			rl_sb_hex(&sb, rl_icrc_display(p->icrc_expected), 8);
			rl_sb_puts(&sb, ", got ");
			rl_sb_hex(&sb, rl_icrc_display(p->icrc), 8);
			rl_sb_putc(&sb, ')');
		}
	}
	rl_sb_putc(&sb, '\n');
	s->out_len += sb.len;
}

/* ---- field by field ----------------------------------------------------- */

static const char *ex_ecn_meaning(uint8_t ecn)
{
	static const char *const m[] = { "not ECN-capable", "ECN-capable (ECT1)", "ECN-capable (ECT0)",
					 "congestion experienced: the receiver will send a CNP" };
	return m[ecn & 3];
}

static void ex_verbose_l2(const struct rl_pkt *p)
{
	char a[32], b[32];

	if (p->link == RL_LINK_ETHERNET) {
		printf("  Ethernet  %s > %s", ex_mac(p->eth.src, a, sizeof(a)), ex_mac(p->eth.dst, b, sizeof(b)));
		if (p->eth.has_vlan)
			printf("  802.1Q VLAN %u priority %u%s", p->eth.vlan_id, p->eth.vlan_pcp,
			       p->eth.vlan_dei ? " DEI" : "");
		printf("\n");
	} else if (p->link == RL_LINK_LINUX_SLL || p->link == RL_LINK_LINUX_SLL2) {
		printf("  Linux cooked capture (tcpdump -i any): packet type %u%s, address %s\n",
		       p->sll.pkttype, p->sll.pkttype == 4 ? " (sent by this host)" : "",
		       ex_mac(p->sll.addr, a, sizeof(a)));
	}
}

static void ex_verbose_l3(const struct rl_pkt *p)
{
	char a[64], b[64];

	rl_addr_str(p, true, a, sizeof(a));
	rl_addr_str(p, false, b, sizeof(b));
	if (p->l3 == RL_L3_IPV4) {
		printf("  IPv4      %s > %s  TTL %u  ID %u%s  length %u\n", a, b, p->ip4.ttl, p->ip4.id,
		       p->ip4.df ? " DF" : "", p->ip4.total_len);
		printf("              DSCP %u (traffic class for PFC/ETS)  ECN %u (%s)\n", p->ip4.dscp,
		       p->ip4.ecn, ex_ecn_meaning(p->ip4.ecn));
	} else {
		printf("  %s %s > %s  hop limit %u  flow label 0x%05x  payload %u\n",
		       p->l3 == RL_L3_GRH ? "GRH       " : "IPv6      ", a, b, p->ip6.hop_limit,
		       p->ip6.flow_label, p->ip6.payload_len);
		printf("              traffic class %u: DSCP %u, ECN %u (%s)\n", p->ip6.tclass,
		       p->ip6.tclass >> 2, p->ip6.tclass & 3, ex_ecn_meaning(p->ip6.tclass & 3));
		if (p->l3 == RL_L3_GRH)
			printf("              RoCEv1: the IB Global Route Header sits directly on Ethernet (ethertype 0x8915); not routable over IP\n");
	}
	if (p->roce == RL_ROCE_V2)
		printf("  UDP       %u > %u (RoCEv2)  length %u  checksum 0x%04x%s\n", p->udp.sport, p->udp.dport,
		       p->udp.len, p->udp.checksum,
		       p->udp.checksum ? "" : " (0: not used, the ICRC protects the packet)");
	if (p->roce == RL_ROCE_V2)
		printf("              the source port spreads QPs over ECMP paths; 4791 marks RoCEv2\n");
}

/* One field's value as explain -v shows it. */
static void ex_verbose_value(const struct rl_field *f, uint64_t v)
{
	char syn[80];

	switch (f->fmt) {
	case RL_FMT_HEX:
		printf("0x%0*" PRIx64, f->digits, v);
		break;
	case RL_FMT_OPCODE:
		printf("0x%02x %s", (unsigned)v, rl_opcode_info((uint8_t)v)->name);
		break;
	case RL_FMT_SYNDROME:
		rl_describe_syndrome((uint8_t)v, syn, sizeof(syn));
		printf("0x%02x: %s", (unsigned)v, syn);
		break;
	default:
		printf("%" PRIu64, v);
		break;
	}
}

/* The transport headers, field by field, with what each field means: a printer over the field table. */
static void ex_verbose_fields(const struct rl_pkt *p)
{
	const struct rl_field_hdr *h;
	const struct rl_field *f;
	struct rl_field_iter it;
	char note[160];

	rl_field_iter_init(&it, p);
	while ((h = rl_field_next_hdr(&it))) {
		bool first = true;

		printf("  %-9s %s", h->name, h->text ? h->text : "");
		while ((f = rl_field_next(&it))) {
			const char *words = f->words ? f->words(it.value)
					  : (f->flags & RL_FF_TERSE) ? NULL : f->meaning;

			if (f->flags & RL_FF_RESERVED)
				continue;
			if (!first)
				printf((f->flags & RL_FF_BREAK) ? "\n              " : "  ");
			first = false;
			if (*f->label)
				printf("%s ", f->label);
			ex_verbose_value(f, it.value);
			if (words && (f->flags & RL_FF_WORDS_LINE))
				printf("\n              %s", words);
			else if (words)
				printf(" (%s)", words);
		}
		printf("\n");
		if (rl_field_hdr_note(h->hdr, p, note, sizeof(note)))
			printf("              %s\n", rl_field_hdr_note(h->hdr, p, note, sizeof(note)));
	}
}

/* The CM links and state, and the first PSN a CM exchange announced, field by field. */
static void ex_verbose_cm(const struct rl_annotation *a, const struct rl_pkt *p)
{
	const struct rl_cm_annotation *c = &a->cm;
	char span[32];
	struct rl_sb sb;

	if (c->is_cm) {
		rl_sb_init(&sb, span, sizeof(span));
		ex_span(&sb, c->answer_time_ns);
		span[sb.len < sizeof(span) ? sb.len : sizeof(span) - 1] = '\0';
		if (c->answers_frame)
			printf("              CM: answers the %s of frame %llu, %s later\n", ex_cm_abbr(c->answers_attr),
			       (unsigned long long)c->answers_frame, span);
		if (c->original_frame)
			printf("              CM: sent again, before in frame %llu\n", (unsigned long long)c->original_frame);
		printf("              CM state: %s\n", rl_cm_wire_state_name(c->state));
	}
	if (c->psn_frame)
		printf("              CM: the %s of frame %llu set QP 0x%x's first PSN to %u: %s\n", ex_cm_abbr(c->psn_attr),
		       (unsigned long long)c->psn_frame, p->bth.dqpn, c->announced_psn,
		       c->psn_mismatch ? "MISMATCH" : "it matches");
}

/* A PSN sequence error NAK: the request it answers, the first past the gap, and the PSNs missing. */
static void ex_verbose_missing(const struct rl_annotation *a)
{
	char buf[64];
	struct rl_sb sb;

	rl_sb_init(&sb, buf, sizeof(buf));
	ex_missing_psns(&sb, a);
	buf[sb.len < sizeof(buf) ? sb.len : sizeof(buf) - 1] = '\0';
	if (a->trigger_frame)
		printf("              answers frame %llu, %.1f us later, the first request past the gap: %s\n",
		       (unsigned long long)a->trigger_frame, (double)a->response_time_ns / 1000, buf);
	else
		printf("              %s (the request it answers, the first past the gap, is not in the capture)\n",
		       buf);
}

/* A CNP's DCQCN fields, from the analyzer's table: key = value, a line. */
static void ex_verbose_cnp(const struct rl_annotation *a)
{
	const struct rl_cnp_field *tab;
	size_t n, col = 0;

	if (!a->cc.known)
		return;
	tab = rl_cnp_field_table(&n);
	for (size_t i = 0; i < n; i++) {
		char item[64];
		int len = snprintf(item, sizeof(item), "%s %" PRIu64, tab[i].key, rl_cnp_field_value(&tab[i], &a->cc));

		if (col && col + 2 + (size_t)len > 96) {
			putchar('\n');
			col = 0;
		}
		printf(col ? "  %s" : "              DCQCN: %s", item);
		col += (size_t)len + (col ? 2 : 21);
	}
	putchar('\n');
}

static void ex_verbose_analysis(const struct rl_annotation *a, const struct rl_pkt *p)
{
	struct rl_annotation_text t;

	if (a->role == RL_ROLE_OTHER)
		return;
	rl_annotation_describe(a, p, &t);
	printf("  Analysis  %s\n", t.summary);
	if (a->verdict != RL_V_NONE)
		printf("              PSN: %s (expected %u)\n", rl_verdict_name(a->verdict), a->expected_psn);
	if (a->seq_err)
		ex_verbose_missing(a);
	else if (a->request_frame)
		printf("              answers frame %llu, %.1f us later\n", (unsigned long long)a->request_frame,
		       (double)a->response_time_ns / 1000);
	if (a->acks)
		printf("              acknowledges PSN %u..%u (frames %llu..%llu)\n", a->acked_first, a->acked_last,
		       (unsigned long long)a->acked_first_frame, (unsigned long long)a->acked_last_frame);
	ex_verbose_cm(a, p);
	ex_verbose_cnp(a);
	printf("              %s\n", t.explanation);
}

static void ex_verbose(struct ex_state *s, const struct rl_pkt *p, enum rl_status st, uint32_t wire_len)
{
	bool clock = s->tfmt == EX_T_ABS || s->tfmt == EX_T_ABS_DATE || s->tfmt == EX_T_UTC || s->tfmt == EX_T_UTC_DATE;
	char msg[256], t[64];

	if (s->tfmt == EX_T_REL)
		printf("Frame %" PRIu64 ": %u bytes at %.6f s\n", s->frames, wire_len, (double)s->cur->rel_ns / 1e9);
	else
		printf("Frame %" PRIu64 ": %u bytes at %s%s\n", s->frames, wire_len, ex_time_str(s, t, sizeof(t)),
		       clock ? "" : " s");
	if (ex_lost(s->cur))
		printf("  Comment   %s: the simulated wire dropped this frame; the receiver never saw it\n",
		       s->cur->comment);
	if (rl_status_fatal(st)) {
		rl_decode_error_str(st, p, msg, sizeof(msg));
		printf("  MALFORMED %s: %s\n\n", rl_status_name(st), msg);
		return;
	}
	ex_verbose_l2(p);
	ex_verbose_l3(p);
	ex_verbose_fields(p);
	if (p->payload_len || (p->op->flags & RL_OPF_PAYLOAD))
		printf("  Payload   %zu bytes%s\n", p->payload_len, p->bth.padcnt ? " (+ pad)" : "");
	if (ex_cm_decode(p, &s->cm, &s->cm_st))
		ex_cm_verbose(&s->cm, s->cm_st);
	ex_verbose_analysis(&s->ann, p);
	if (p->cut)
		printf("  ICRC      not captured: the snap length cut the frame (%zu of %zu bytes kept)\n\n",
		       p->cap_len, p->frame_len);
	else if (p->icrc_ok)
		printf("  ICRC      0x%08x ok (CRC-32 over the fields no router changes)\n\n", rl_icrc_display(p->icrc));
	else
		printf("  ICRC      0x%08x BAD, expected 0x%08x: a RoCE receiver silently drops this packet\n\n",
		       rl_icrc_display(p->icrc), rl_icrc_display(p->icrc_expected));
}

/* ---- ladder ------------------------------------------------------------------ */

static void ex_ip16(const struct rl_pkt *p, bool src, uint8_t out[16])
{
	memset(out, 0, 16);
	if (p->l3 == RL_L3_IPV4)
		memcpy(out + 12, src ? p->ip4.src : p->ip4.dst, 4);
	else
		memcpy(out, src ? p->ip6.src : p->ip6.dst, 16);
}

/* Which host pair (numbered from 1), announcing it the first time a request is seen. */
static unsigned ex_ladder_pair(struct ex_state *s, const struct rl_pkt *p, bool request)
{
	uint8_t a[16], b[16];
	char sa[64], sb[64];

	ex_ip16(p, request, a);          /* the requester */
	ex_ip16(p, !request, b);
	for (unsigned i = 0; i < s->npairs; i++)
		if (!memcmp(s->pairs[i].req, a, 16) && !memcmp(s->pairs[i].resp, b, 16))
			return i + 1;
	if (!request || s->npairs == sizeof(s->pairs) / sizeof(s->pairs[0]))
		return 0;
	memcpy(s->pairs[s->npairs].req, a, 16);
	memcpy(s->pairs[s->npairs].resp, b, 16);
	printf("\n[%u] requester %s (left)  <->  responder %s (right)\n", s->npairs + 1,
	       rl_addr_str(p, true, sa, sizeof(sa)), rl_addr_str(p, false, sb, sizeof(sb)));
	printf("%7s %10s      %-47s%s\n", "frame", "time", "requester", "responder");
	return ++s->npairs;
}

/*
 * An arrow's words: the packet over it, and what the analyzer said of it
 * beside it; true when that mark says something went wrong, not only what the
 * packet answers.
 */
static bool ex_ladder_words(const struct ex_state *s, const struct rl_pkt *p, char *label, size_t nl, char *mark,
			    size_t nm)
{
	const struct rl_annotation *a = &s->ann;
	const char *name = p->op->name + (p->op->name[2] == ' ' ? 3 : 0);   /* drop "RC " */
	bool answers_only = false;
	char syn[48];

	*mark = '\0';
	if (a->cm.is_cm) {
		snprintf(label, nl, "CM %s", ex_cm_abbr(a->cm.attr));
	} else if (p->hdrs & RL_HDR_AETH) {
		rl_describe_syndrome(p->aeth.syndrome, syn, sizeof(syn));
		snprintf(label, nl, "%s PSN %u %s", name, p->bth.psn, syn);
	} else {
		snprintf(label, nl, "%s PSN %u", name, p->bth.psn);
	}
	if (a->verdict == RL_V_RETRANSMISSION || a->verdict == RL_V_DUPLICATE)
		snprintf(mark, nm, "%s of %" PRIu64, a->verdict == RL_V_DUPLICATE ? "DUPLICATE" : "RETRANSMISSION",
			 a->original_frame);
	else if (a->verdict == RL_V_GAP)
		snprintf(mark, nm, "GAP: %u missing before it", a->gap);
	else if (a->verdict == RL_V_OUT_OF_ORDER)
		snprintf(mark, nm, "OUT OF ORDER");
	else if (a->cm.original_frame)
		snprintf(mark, nm, "RETRANSMISSION of %" PRIu64, a->cm.original_frame);
	else if ((answers_only = a->cm.answers_frame))
		snprintf(mark, nm, "answers %s of %" PRIu64, ex_cm_abbr(a->cm.answers_attr), a->cm.answers_frame);
	else if (a->cm.psn_mismatch)
		snprintf(mark, nm, "PSN MISMATCH: the %s of %" PRIu64 " set %u", ex_cm_abbr(a->cm.psn_attr),
			 a->cm.psn_frame, a->cm.announced_psn);
	if (ex_lost(s->cur))
		snprintf(mark + strlen(mark), nm - strlen(mark), "%slost on the way", *mark ? ", " : "");
	if (p->cut)
		snprintf(mark + strlen(mark), nm - strlen(mark), "%scut by the snap length", *mark ? ", " : "");
	else if (!p->icrc_ok)
		snprintf(mark + strlen(mark), nm - strlen(mark), "%sICRC BAD: dropped", *mark ? ", " : "");
	return *mark && (!answers_only || ex_lost(s->cur) || p->cut || !p->icrc_ok);
}

/*
 * --ladder --svg: the section of the two hosts of @p (numbered from 1; 0 when
 * there are too many), the first of them to send on the left; @rightward: @p
 * goes from left to right.
 */
static unsigned ex_ladder_section(struct ex_state *s, const struct rl_pkt *p, bool *rightward)
{
	uint8_t src[16], dst[16];
	unsigned n = s->npairs;

	ex_ip16(p, true, src);
	ex_ip16(p, false, dst);
	for (unsigned i = 0; i < n; i++) {
		*rightward = !memcmp(s->pairs[i].req, src, 16) && !memcmp(s->pairs[i].resp, dst, 16);
		if (*rightward || (!memcmp(s->pairs[i].req, dst, 16) && !memcmp(s->pairs[i].resp, src, 16)))
			return i + 1;
	}
	if (n == CLI_LADDER_PAIRS)
		return 0;
	memcpy(s->pairs[n].req, src, 16);
	memcpy(s->pairs[n].resp, dst, 16);
	rl_addr_str(p, true, s->lad->hosts[n][0], sizeof(s->lad->hosts[n][0]));
	rl_addr_str(p, false, s->lad->hosts[n][1], sizeof(s->lad->hosts[n][1]));
	s->lad->npairs = ++s->npairs;
	*rightward = true;
	return n + 1;
}

/* --ladder --svg: the arrow kept for the drawing (past the most it draws, or a 65th host pair's, counted). */
static void ex_ladder_keep(struct ex_state *s, const struct rl_pkt *p, const char *t)
{
	struct cli_ladder_row r;

	if (s->lad->nrows == CLI_LADDER_MAX_ROWS) {
		s->lad->more++;
		return;
	}
	memset(&r, 0, sizeof(r));
	r.frame = s->frames;
	snprintf(r.time, sizeof(r.time), "%s", t);
	r.pair = ex_ladder_section(s, p, &r.rightward);
	if (!r.pair) {
		s->lad->more_pairs++;
		return;
	}
	r.lost = ex_lost(s->cur);
	r.bad = p->cut || !p->icrc_ok;
	r.trouble = ex_ladder_words(s, p, r.label, sizeof(r.label), r.mark, sizeof(r.mark));
	if (!cli_ladder_add(s->lad, &r))
		s->lad->oom = true;
}

static void ex_ladder(struct ex_state *s, const struct rl_pkt *p, enum rl_status st)
{
	const struct rl_annotation *a = &s->ann;
	char label[96], mark[112], t[64];
	unsigned pair;

	ex_time_str(s, t, sizeof(t));
	if (rl_status_fatal(st) || a->role == RL_ROLE_OTHER) {
		if (s->lad)
			s->lad->other++;
		else
			printf("%7" PRIu64 " %10s  (not part of a conversation: %s)\n", s->frames, t,
			       rl_status_fatal(st) ? rl_status_name(st) : "unknown opcode");
		return;
	}
	if (s->lad) {
		ex_ladder_keep(s, p, t);
		return;
	}
	pair = ex_ladder_pair(s, p, a->role == RL_ROLE_REQUEST);
	ex_ladder_words(s, p, label, sizeof(label), mark, sizeof(mark));
	if (a->role == RL_ROLE_REQUEST)
		printf("%7" PRIu64 " %10s  [%u] %-40s ---->|  %s\n", s->frames, t, pair, label, mark);
	else
		printf("%7" PRIu64 " %10s  [%u] %40s |<---- %s %s\n", s->frames, t, pair, "", label, mark);
}

/* ---- JSON ----------------------------------------------------------------- */

static void ex_json_l2l3(struct json *j, const struct rl_pkt *p)
{
	char a[64];

	json_str(j, "link", rl_link_name(p->link));
	if (p->link == RL_LINK_ETHERNET) {
		json_obj(j, "eth");
		json_str(j, "src", ex_mac(p->eth.src, a, sizeof(a)));
		json_str(j, "dst", ex_mac(p->eth.dst, a, sizeof(a)));
		if (p->eth.has_vlan) {
			json_obj(j, "vlan");
			json_u64(j, "id", p->eth.vlan_id);
			json_u64(j, "pcp", p->eth.vlan_pcp);
			json_bool(j, "dei", p->eth.vlan_dei);
			json_end(j);
		}
		json_end(j);
	} else if (p->link == RL_LINK_LINUX_SLL || p->link == RL_LINK_LINUX_SLL2) {
		json_obj(j, "sll");
		json_u64(j, "pkttype", p->sll.pkttype);
		json_u64(j, "ifindex", p->sll.ifindex);
		json_str(j, "addr", ex_mac(p->sll.addr, a, sizeof(a)));
		json_end(j);
	}
	json_u64(j, "roce", p->roce);
	if (p->l3 == RL_L3_IPV4) {
		json_obj(j, "ip");
		json_u64(j, "version", 4);
		json_str(j, "src", rl_addr_str(p, true, a, sizeof(a)));
		json_str(j, "dst", rl_addr_str(p, false, a, sizeof(a)));
		json_u64(j, "dscp", p->ip4.dscp);
		json_u64(j, "ecn", p->ip4.ecn);
		json_u64(j, "id", p->ip4.id);
		json_bool(j, "df", p->ip4.df);
		json_u64(j, "ttl", p->ip4.ttl);
		json_u64(j, "len", p->ip4.total_len);
		json_u64(j, "checksum", p->ip4.checksum);
		json_end(j);
	} else {
		json_obj(j, p->l3 == RL_L3_GRH ? "grh" : "ip");
		json_u64(j, "version", 6);
		json_str(j, "src", rl_addr_str(p, true, a, sizeof(a)));
		json_str(j, "dst", rl_addr_str(p, false, a, sizeof(a)));
		json_u64(j, "tclass", p->ip6.tclass);
		json_u64(j, "flow_label", p->ip6.flow_label);
		json_u64(j, "payload_len", p->ip6.payload_len);
		json_u64(j, "hop_limit", p->ip6.hop_limit);
		json_u64(j, "next_header", p->ip6.next_header);
		json_end(j);
	}
	if (p->roce == RL_ROCE_V2) {
		json_obj(j, "udp");
		json_u64(j, "sport", p->udp.sport);
		json_u64(j, "dport", p->udp.dport);
		json_u64(j, "len", p->udp.len);
		json_u64(j, "checksum", p->udp.checksum);
		json_end(j);
	}
}

/* What a syndrome says, spelled out beside it (IBA 9.7.5.1). */
static void ex_json_syndrome(struct json *j, uint8_t s)
{
	uint8_t v = rl_syndrome_value(s);

	json_str(j, "type", rl_aeth_type_name(rl_syndrome_type(s)));
	switch (rl_syndrome_type(s)) {
	case RL_AETH_ACK:
		json_u64(j, "credit_code", v);
		break;
	case RL_AETH_RNR_NAK:
		json_u64(j, "rnr_timer", v);
		json_u64(j, "rnr_delay_us", rl_rnr_timer_us(v));
		break;
	case RL_AETH_NAK:
		json_u64(j, "nak_code", v);
		json_str(j, "nak", rl_nak_code_name(v));
		break;
	default:
		break;
	}
}

/* The transport headers, one object each: a printer over the field table. */
static void ex_json_fields(struct json *j, const struct rl_pkt *p)
{
	const struct rl_field_hdr *h;
	const struct rl_field *f;
	struct rl_field_iter it;

	rl_field_iter_init(&it, p);
	while ((h = rl_field_next_hdr(&it))) {
		if (h->key)
			json_obj(j, h->key);
		while ((f = rl_field_next(&it))) {
			if (f->flags & RL_FF_RESERVED)
				continue;
			if (f->fmt == RL_FMT_BOOL)
				json_bool(j, f->key, it.value);
			else
				json_u64(j, f->key, it.value);
			if (f->fmt == RL_FMT_OPCODE) {
				json_str(j, "opcode_name", rl_opcode_info((uint8_t)it.value)->name);
				json_str(j, "transport", rl_transport_name(rl_opcode_transport((uint8_t)it.value)));
			} else if (f->fmt == RL_FMT_SYNDROME) {
				ex_json_syndrome(j, (uint8_t)it.value);
			}
		}
		if (h->key)
			json_end(j);
	}
}

/* The analyzer's CM links and state ("cm" inside "analysis"), when it has any. */
static void ex_json_cm(struct json *j, const struct rl_cm_annotation *c)
{
	if (!c->is_cm && !c->psn_frame)
		return;
	json_obj(j, "cm");
	if (c->is_cm) {
		json_str(j, "msg", ex_cm_abbr(c->attr));
		json_str(j, "state", rl_cm_wire_state_name(c->state));
		if (c->answers_frame) {
			json_u64(j, "answers_frame", c->answers_frame);
			json_str(j, "answers_msg", ex_cm_abbr(c->answers_attr));
			json_u64(j, "answer_time_ns", c->answer_time_ns);
		}
		if (c->original_frame)
			json_u64(j, "original_frame", c->original_frame);
	}
	if (c->psn_frame) {
		json_u64(j, "psn_frame", c->psn_frame);
		json_str(j, "psn_msg", ex_cm_abbr(c->psn_attr));
		json_u64(j, "announced_psn", c->announced_psn);
		json_bool(j, "psn_mismatch", c->psn_mismatch);
	}
	json_end(j);
}

/* A CNP's DCQCN fields (docs/explain-json.md), named as the analyzer's table names them. */
static void ex_json_cnp(struct json *j, const struct rl_cnp_annotation *c)
{
	const struct rl_cnp_field *tab;
	size_t n;

	if (!c->known)
		return;
	tab = rl_cnp_field_table(&n);
	json_obj(j, "cnp");
	json_u64(j, "qp", c->qpn);
	for (size_t i = 0; i < n; i++) {
		if (tab[i].member_size == 1)
			json_bool(j, tab[i].key, rl_cnp_field_value(&tab[i], c) != 0);
		else
			json_u64(j, tab[i].key, rl_cnp_field_value(&tab[i], c));
	}
	json_end(j);
}

static void ex_json_analysis(struct json *j, const struct rl_annotation *a, const struct rl_pkt *p)
{
	static const char *const roles[] = { "other", "request", "response", "cnp" };
	struct rl_annotation_text t;

	rl_annotation_describe(a, p, &t);
	json_obj(j, "analysis");
	json_str(j, "role", roles[a->role]);
	json_str(j, "summary", t.summary);
	json_str(j, "verdict", rl_verdict_name(a->verdict));
	if (a->verdict != RL_V_NONE)
		json_u64(j, "expected_psn", a->expected_psn);
	if (a->verdict == RL_V_GAP)
		json_u64(j, "gap", a->gap);
	if (a->original_frame)
		json_u64(j, "original_frame", a->original_frame);
	if (a->request_frame) {
		json_u64(j, "request_frame", a->request_frame);
		json_u64(j, "response_time_ns", a->response_time_ns);
	}
	if (a->acks) {
		json_u64(j, "acked_first_psn", a->acked_first);
		json_u64(j, "acked_last_psn", a->acked_last);
		json_u64(j, "acked_first_frame", a->acked_first_frame);
		json_u64(j, "acked_last_frame", a->acked_last_frame);
	}
	if (a->msg_number)
		json_u64(j, "msg_number", a->msg_number);
	if (a->msg_bytes) {
		json_u64(j, "msg_bytes", a->msg_bytes);
		json_u64(j, "msg_total", a->msg_total);
		json_u64(j, "msg_first_frame", a->msg_first_frame);
		json_bool(j, "msg_complete", a->msg_complete);
	}
	if (a->nak) {
		json_str(j, "nak_meaning", t.nak_meaning);
		json_bool(j, "wr_fails", a->wr_fails);
		if (!a->wr_fails)
			json_u64(j, "resend_from_psn", a->resend_from_psn);
		if (a->seq_err) {
			if (a->trigger_frame)
				json_u64(j, "trigger_frame", a->trigger_frame);
			json_u64(j, "missing_first_psn", a->missing_first);
			json_u64(j, "missing_last_psn", a->missing_last);
		}
		if (a->rnr_wait_us)
			json_u64(j, "rnr_wait_us", a->rnr_wait_us);
	}
	json_bool(j, "ecn_ce", a->ecn_ce);
	ex_json_cnp(j, &a->cc);
	ex_json_cm(j, &a->cm);
	json_str(j, "explanation", t.explanation);
	json_end(j);
}

/* -T ek: the bulk API's action line, named as tshark names its index (packets-DATE, local time). */
static void ex_json_ek_index(const struct cli_frame *f)
{
	time_t sec = (time_t)(f->ns / 1000000000);
	char day[16] = "0000-00-00";
	struct tm tm;

	if (localtime_r(&sec, &tm))
		strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	printf("{\"index\":{\"_index\":\"packets-%s\",\"_type\":\"doc\"}}\n", day);
}

/* -x with JSON: the frame's bytes as one hex string, as tshark -T ek -x names it. */
static void ex_json_raw(struct json *j, const struct cli_frame *f)
{
	static const char digits[] = "0123456789abcdef";
	char *hex = malloc((size_t)f->caplen * 2 + 1);

	if (!hex)
		return;
	for (uint32_t i = 0; i < f->caplen; i++) {
		hex[2 * i] = digits[f->data[i] >> 4];
		hex[2 * i + 1] = digits[f->data[i] & 15];
	}
	hex[(size_t)f->caplen * 2] = '\0';
	json_str(j, "frame_raw", hex);
	free(hex);
}

/* The frame's object, on s->json (explain --json's line, and a report row's detail). */
static void ex_json_obj(struct ex_state *s, const struct rl_pkt *p, enum rl_status st, const struct cli_frame *h)
{
	double t = (double)h->rel_ns / 1e9;
	struct json *j = &s->json;
	char msg[256], hex[16], ms[32];

	if (s->ek)
		ex_json_ek_index(h);
	json_obj(j, NULL);
	if (s->ek) {
		snprintf(ms, sizeof(ms), "%" PRId64, h->ns / 1000000);
		json_str(j, "timestamp", ms);
	}
	json_u64(j, "frame", s->frames);
	json_double(j, "time", t, 9);
	json_ns(j, "time_epoch", h->ns);
	json_u64(j, "caplen", h->caplen);
	json_u64(j, "len", h->len);
	json_str(j, "status", rl_status_name(st));
	if (st != RL_OK) {
		rl_decode_error_str(st, p, msg, sizeof(msg));
		json_str(j, "error", msg);
	}
	if (!rl_status_fatal(st)) {
		ex_json_l2l3(j, p);
		ex_json_fields(j, p);
		json_u64(j, "payload_len", p->payload_len);
		if (ex_cm_decode(p, &s->cm, &s->cm_st))
			ex_cm_json(j, &s->cm, s->cm_st);
		if (!p->cut) {    /* cut by the snap length: no ICRC to show ("status":"cut") */
			json_obj(j, "icrc");
			ex_hex32(hex, sizeof(hex), rl_icrc_display(p->icrc));
			json_str(j, "value", hex);
			ex_hex32(hex, sizeof(hex), rl_icrc_display(p->icrc_expected));
			json_str(j, "expected", hex);
			json_bool(j, "ok", p->icrc_ok);
			json_end(j);
		}
		ex_json_analysis(j, &s->ann, p);
	}
	if (s->hex)
		ex_json_raw(j, h);
	json_end(j);
}

static void ex_json(struct ex_state *s, const struct rl_pkt *p, enum rl_status st, const struct cli_frame *h)
{
	ex_json_obj(s, p, st, h);
	json_newline(&s->json);
}

/* ---- rocelab report: a row of the page per frame of a conversation ----------- */

_Static_assert(CLI_REPORT_SECTIONS == CLI_LADDER_PAIRS, "a report's sections are the ladder's host pairs");

static enum cli_report_kind ex_report_kind(const struct rl_pkt *p, const struct rl_annotation *a)
{
	if (a->cm.is_cm)
		return CLI_RK_CM;
	if (a->role == RL_ROLE_CNP)
		return CLI_RK_CNP;
	if (a->role == RL_ROLE_REQUEST)
		return CLI_RK_REQUEST;
	if (a->nak)
		return CLI_RK_NAK;
	/* an atomic ACK carries the original value: data, as a READ response does */
	return (p->op->flags & RL_OPF_ACK) && !(p->op->flags & RL_OPF_ATOMIC) ? CLI_RK_ACK : CLI_RK_RESPONSE;
}

static uint32_t ex_report_flags(const struct ex_state *s, const struct rl_pkt *p, bool trouble)
{
	const struct rl_annotation *a = &s->ann;
	uint32_t f = 0;

	f |= ex_lost(s->cur) ? CLI_RF_LOST : 0;
	f |= p->cut || !p->icrc_ok ? CLI_RF_BAD : 0;
	f |= trouble ? CLI_RF_TROUBLE : 0;
	f |= a->verdict == RL_V_RETRANSMISSION || a->cm.original_frame ? CLI_RF_RESENT : 0;
	f |= a->verdict == RL_V_DUPLICATE ? CLI_RF_DUP : 0;
	f |= a->verdict == RL_V_GAP ? CLI_RF_GAP : 0;
	f |= a->verdict == RL_V_OUT_OF_ORDER ? CLI_RF_OOO : 0;
	f |= a->ecn_ce ? CLI_RF_CE : 0;
	f |= a->nak && (p->hdrs & RL_HDR_AETH) && rl_syndrome_type(p->aeth.syndrome) == RL_AETH_RNR_NAK ? CLI_RF_RNR : 0;
	f |= a->seq_err ? CLI_RF_SEQERR : 0;
	f |= a->nak && a->wr_fails ? CLI_RF_FATAL : 0;
	f |= a->acks ? CLI_RF_ACKS : 0;
	f |= a->msg_complete ? CLI_RF_LAST : 0;
	return f;
}

static void ex_report(struct ex_state *s, const struct rl_pkt *p, enum rl_status st, const struct cli_frame *h)
{
	const struct rl_annotation *a = &s->ann;
	struct cli_report_row r;
	char label[96], mark[112], service[4] = "", src[48], dst[48];
	bool trouble, detail;

	if (rl_status_fatal(st) || a->role == RL_ROLE_OTHER)
		return;   /* no conversation: the summary counts it */
	memset(&r, 0, sizeof(r));
	r.sec = ex_ladder_section(s, p, &r.rightward);
	if (!r.sec) {
		s->rpt_pairs_more++;
		return;
	}
	trouble = ex_ladder_words(s, p, label, sizeof(label), mark, sizeof(mark));
	if (p->op->name[2] == ' ')
		snprintf(service, sizeof(service), "%.2s", p->op->name);
	r.frame = s->frames;
	r.t_ns = h->rel_ns > 0 ? (uint64_t)h->rel_ns : 0;
	r.kind = ex_report_kind(p, a);
	r.op = p->bth.opcode;
	r.psn = p->bth.psn;
	r.qp = p->bth.dqpn;
	r.len = (uint32_t)p->payload_len;
	r.flags = ex_report_flags(s, p, trouble);
	r.msg = a->msg_number;
	r.ans = a->request_frame;
	r.label = label;
	r.mark = mark;
	r.service = service;
	r.cm_frame = a->cm.psn_frame;
	r.cm_msg = ex_cm_abbr(a->cm.psn_attr);
	r.src = rl_addr_str(p, true, src, sizeof(src));
	r.dst = rl_addr_str(p, false, dst, sizeof(dst));
	r.queued = gen_depth_parse(h->comment, &r.depth);
	detail = cli_report_wants_detail(s->rpt, &r);
	cli_report_row(s->rpt, &r, detail);
	if (detail) {
		json_begin_html(&s->json, s->rpt->f);   /* a value of the row's array, not the next line's object */
		ex_json_obj(s, p, st, h);
	}
	cli_report_row_end(s->rpt);
}

/* ---- -x: the bytes, and what the ICRC does with each ------------------------- */

/* What the ICRC does with a byte (IBA 9.9.3.1; RoCEv2: A17.3.3), and its mark under the hex. */
enum ex_cover { EX_COV_AS_IS, EX_COV_ONES, EX_COV_SOME_ONES, EX_COV_NONE, EX_COV_ICRC };
static const char ex_cover_mark[][3] = { "  ", "^^", "~~", "--", "==" };

static enum ex_cover ex_cover(const struct rl_pkt *p, enum rl_status st, size_t i)
{
	size_t l3_len = p->l3 == RL_L3_IPV4 ? (size_t)p->ip4.ihl * 4 : 40;
	uint8_t m;

	if (i < p->l3_off)
		return EX_COV_NONE;              /* the link layer: Ethernet, VLAN tag, cooked header */
	if (!rl_status_fatal(st) && i >= p->icrc_off)
		return i < p->icrc_off + RL_ICRC_LEN ? EX_COV_ICRC : EX_COV_NONE;
	m = rl_icrc_mask_at(p->l3, l3_len, i - p->l3_off);
	return m == 0xff ? EX_COV_ONES : m ? EX_COV_SOME_ONES : EX_COV_AS_IS;
}

static void ex_hex_legend(struct ex_state *s)
{
	if (s->hex_legend)
		return;
	s->hex_legend = true;
	printf("-x: under each byte, what the Invariant CRC does with it (IBA 9.9.3.1, A17.3.3):\n"
	       "    ^^ replaced by ones (a field routers may change)   ~~ some of its bits replaced by ones\n"
	       "    -- not covered (link-layer header, trailer)         == the ICRC itself\n"
	       "    blank: covered as it is\n\n");
}

/* The frame as tshark -x shows it (offset, 16 bytes, ASCII), with the ICRC's marks under each line. */
static void ex_hex(struct ex_state *s, const struct cli_frame *f, const struct rl_pkt *p, enum rl_status st)
{
	bool marks = !rl_status_fatal(st) || ex_l3_decoded(st);

	ex_flush(s);
	if (marks)
		ex_hex_legend(s);
	for (size_t off = 0; off < f->caplen; off += 16) {
		size_t n = f->caplen - off < 16 ? f->caplen - off : 16;
		char under[16 * 3 + 8];
		size_t used = 0, last = 0;

		printf("%04zx ", off);
		for (size_t i = 0; i < n; i++)
			printf(" %02x", f->data[off + i]);
		printf("%*s   ", (int)(16 - n) * 3, "");
		for (size_t i = 0; i < n; i++)
			putchar(isprint(f->data[off + i]) ? f->data[off + i] : '.');
		putchar('\n');
		if (!marks)
			continue;
		for (size_t i = 0; i < n; i++) {
			const char *m = ex_cover_mark[ex_cover(p, st, off + i)];

			under[used++] = ' ';
			under[used++] = m[0];
			under[used++] = m[1];
			if (m[0] != ' ')
				last = used;
		}
		if (last)
			printf("     %.*s\n", (int)last, under);
	}
	putchar('\n');
}

/* ---- what is shown: --qp, --host, --op ---------------------------------------------- */

static bool ex_req_bit(const struct ex_select *x, uint64_t frame)
{
	return frame / 8 < x->req_len && (x->req[frame / 8] >> (frame % 8) & 1);
}

static void ex_req_set(struct ex_select *x, uint64_t frame)
{
	if (frame / 8 >= x->req_len) {
		size_t n = x->req_len ? x->req_len : 4096;
		uint8_t *r;

		while (n <= frame / 8)
			n *= 2;
		r = realloc(x->req, n);
		if (!r)
			return;                 /* its responses go unshown; nothing else is lost */
		memset(r + x->req_len, 0, n - x->req_len);
		x->req = r;
		x->req_len = n;
	}
	x->req[frame / 8] |= (uint8_t)(1u << (frame % 8));
}

/*
 * --qp: a packet to a selected QP, or to the other end of its connection. That
 * end's QP number travels only in the responses (an RC ACK's destination QP is
 * the requester's), so it is learned from the first response the analyzer links
 * to a request for a selected QP; from then on both directions are shown.
 */
static bool ex_qp_match(struct ex_select *x, const struct rl_pkt *p, const struct rl_annotation *a, uint64_t frame)
{
	bool hit = false;
	uint8_t dst[16];

	ex_ip16(p, false, dst);
	for (unsigned i = 0; i < x->nqp && !hit; i++)
		hit = p->bth.dqpn == x->qp[i];
	for (unsigned i = 0; i < x->npeer && !hit; i++)
		hit = p->bth.dqpn == x->peer[i].qp && !memcmp(x->peer[i].ip, dst, 16);
	if (!hit && a->role == RL_ROLE_RESPONSE && a->request_frame && ex_req_bit(x, a->request_frame)) {
		hit = true;
		if (x->npeer < EX_PEERS_MAX) {
			memcpy(x->peer[x->npeer].ip, dst, 16);
			x->peer[x->npeer++].qp = p->bth.dqpn;
		}
	}
	if (hit && a->role == RL_ROLE_REQUEST)
		ex_req_set(x, frame);
	return hit;
}

static bool ex_host_match(const struct ex_select *x, const struct rl_pkt *p)
{
	uint8_t src[16], dst[16];

	ex_ip16(p, true, src);
	ex_ip16(p, false, dst);
	for (unsigned i = 0; i < x->nhost; i++)
		if (!memcmp(x->host[i], src, 16) || !memcmp(x->host[i], dst, 16))
			return true;
	return false;
}

static bool ex_roce_selectors(const struct ex_select *x)
{
	return x->nqp || x->nhost || x->by_op;
}

/* Whether a RoCE packet passes --qp, --host and --op (each kind is an OR, the kinds an AND). */
static bool ex_selected(struct ex_state *s, const struct rl_pkt *p, enum rl_status st)
{
	struct ex_select *x = &s->sel;
	bool bth = !rl_status_fatal(st), l3 = bth || ex_l3_decoded(st);
	bool qp_ok = !x->nqp || (bth && ex_qp_match(x, p, &s->ann, s->frames));

	if (x->nhost && (!l3 || !ex_host_match(x, p)))
		return false;
	if (x->by_op && (!bth || !x->op[p->bth.opcode]))
		return false;
	return qp_ok;
}

/* Whether the words of @want run, whole and in order, in @name (case-insensitive). */
static bool ex_words_in(const char *name, const char *want)
{
	size_t n = strlen(want);

	for (const char *c = name; *c; c++)
		if ((c == name || c[-1] == ' ') && !strncasecmp(c, want, n) && (c[n] == ' ' || !c[n]))
			return true;
	return false;
}

/* --op NAME: a full spec name is that opcode, other words every opcode named with them, a number one. */
static bool ex_select_op(struct ex_select *x, const char *arg, const char *cmd)
{
	char want[64];
	uint64_t v;
	size_t n = 0;
	int exact, hits = 0;

	x->by_op = true;
	if (cli_parse_u64(arg, 255, &v)) {
		x->op[v] = true;
		return true;
	}
	/* rxe writes RC_SEND_ONLY, some write send-only: all are spaces here. */
	for (const char *c = arg; *c && n < sizeof(want) - 1; c++)
		if (!(n == 0 && (*c == ' ' || *c == '_' || *c == '-')))
			want[n++] = (*c == '_' || *c == '-') ? ' ' : *c;
	while (n && want[n - 1] == ' ')
		n--;
	want[n] = '\0';
	exact = n ? rl_opcode_by_name(want) : -1;
	if (exact >= 0) {
		x->op[exact] = true;
		return true;
	}
	for (int op = 0; op < 256 && n; op++) {
		const struct rl_opcode_info *info = rl_opcode_info((uint8_t)op);

		if ((info->flags & RL_OPF_VALID) && ex_words_in(info->name, want)) {
			x->op[op] = true;
			hits++;
		}
	}
	if (hits)
		return true;
	cli_error(cmd, "--op '%s' names no opcode: give words of the IB spec's names ('send', 'RDMA READ', "
			     "'Acknowledge', 'RC SEND First') or a number (0x04)", arg);
	return false;
}

static bool ex_select_host(struct ex_select *x, const char *arg, const char *cmd)
{
	uint8_t *h = x->host[x->nhost];

	memset(h, 0, 16);
	if (x->nhost == EX_SEL_MAX) {
		cli_error(cmd, "at most %d --host", EX_SEL_MAX);
		return false;
	}
	if (inet_pton(AF_INET, arg, h + 12) != 1 && inet_pton(AF_INET6, arg, h) != 1) {
		cli_error(cmd, "--host wants an IPv4 or IPv6 address, not '%s'", arg);
		return false;
	}
	x->nhost++;
	return true;
}

/* ---- driver --------------------------------------------------------------- */

/* Show progress only if stderr is a terminal that the output does not go to. */
#define EX_PROGRESS_MIN_BYTES (32 << 20)
#define EX_PROGRESS_EVERY 65536

static void ex_progress_init(struct ex_state *s, const struct cli_capture *c)
{
	struct stat st;

	s->in = cli_capture_stream(c);
	s->in_size = 0;
	if (!s->in || !isatty(STDERR_FILENO) || isatty(STDOUT_FILENO))
		return;
	if (fstat(fileno(s->in), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= EX_PROGRESS_MIN_BYTES)
		s->in_size = st.st_size;
}

static void ex_progress(const struct ex_state *s, bool done)
{
	off_t pos;

	if (!s->in_size)
		return;
	if (done) {
		fprintf(stderr, "\r%60s\r", "");
		return;
	}
	pos = s->reader ? (off_t)exr_pos(s->reader) : ftello(s->in);
	fprintf(stderr, "\rrocelab explain: %3d%%  %" PRIu64 " frames",
		(int)(pos > 0 ? pos * 100 / s->in_size : 0), s->frames);
}


static void ex_count(struct ex_state *s, const struct rl_pkt *p, enum rl_status st)
{
	s->roce++;
	if (rl_status_fatal(st)) {
		s->malformed++;
		return;
	}
	s->per_opcode[p->bth.opcode]++;
	if (!p->icrc_ok && !p->cut)
		s->icrc_bad++;
	if (st == RL_E_UNKNOWN_OPCODE)
		s->unknown++;
}

/*
 * One frame, decoded (@st, @p), and @show if the capture filter takes it; times
 * are since the first frame, as Wireshark shows them by default. The analyzer
 * sees every RoCE frame; the filter and selectors only decide what is shown
 * (and counted in the summary), as tshark -Y does.
 */
static void ex_decoded(struct ex_state *s, const struct cli_frame *f, const struct rl_pkt *p, enum rl_status st,
		       bool show)
{
	int64_t t = f->rel_ns;

	s->frames = f->no;
	s->cur = f;
	if (f->no == 1)
		s->prev_ns = s->first_ns = f->ns;
	s->last_rel_ns = f->rel_ns;
	if (st == RL_NOT_ROCE) {
		show = show && !ex_roce_selectors(&s->sel);   /* --qp, --host, --op pick RoCE packets */
		s->other += show;
		s->shown += show;
		s->prev_ns = f->ns;
		return;
	}
	s->caplen = f->caplen;
	s->wirelen = f->len;
	rl_analyze(s->an, s->frames, (uint64_t)t, p, st, &s->ann);
	if (s->sel.any)
		show = ex_selected(s, p, st) && show;
	if (show) {
		if (!s->shown++)
			s->prev_shown_ns = f->ns;
		if (f->caplen < f->len && rl_status_fatal(st))
			s->snapped++;
		if (p->cut)
			s->cut++;
		ex_count(s, p, st);
		switch (s->mode) {
		case EX_LINE: ex_line(s, p, st); break;
		case EX_VERBOSE: ex_verbose(s, p, st, f->len); break;
		case EX_JSON: ex_json(s, p, st, f); break;
		case EX_LADDER: ex_ladder(s, p, st); break;
		case EX_REPORT: ex_report(s, p, st, f); break;
		}
		if (s->hex && s->mode != EX_JSON)
			ex_hex(s, f, p, st);
		s->prev_shown_ns = f->ns;
	}
	s->prev_ns = f->ns;
}

/* One frame as read: filtered, decoded, then as above. */
static void ex_packet(struct ex_state *s, struct cli_capture *c, const struct cli_frame *f)
{
	struct rl_pkt p;
	bool show = !s->sel.filter || cli_capture_match(c, f);
	enum rl_status st = cli_frame_decode(f, &p);

	ex_decoded(s, f, &p, st, show);
}

/* The counts are of the frames shown: all of them unless a filter or selector hid some. */

/* An analyzer's host address (rl_qp_congestion.req_ip): IPv4 after 12 zero bytes, else IPv6. */
static const char *ex_host(const uint8_t ip[16], char *buf, size_t n)
{
	static const uint8_t v4_prefix[12];
	struct rl_sb sb;

	rl_sb_init(&sb, buf, n);
	if (!memcmp(ip, v4_prefix, sizeof(v4_prefix)))
		rl_sb_ipv4(&sb, ip + sizeof(v4_prefix));
	else
		rl_sb_ipv6(&sb, ip);
	return buf;
}

/* Per requester QP that saw congestion: CE marks, CNPs, and the rate DCQCN would leave it at (section 3.1). */
static void ex_summary_congestion(const struct ex_state *s, FILE *f)
{
	struct rl_qp_congestion q;
	size_t pos = 0;
	uint64_t line = rl_analyzer_line_rate(s->an);

	while (rl_analyzer_next_qp_congestion(s->an, &pos, &q)) {
		char a[RL_ADDR_STRLEN], b[RL_ADDR_STRLEN];

		ex_host(q.req_ip, a, sizeof(a));
		ex_host(q.resp_ip, b, sizeof(b));
		if (q.resp_qpn_known)
			fprintf(f, "    %s QP 0x%06x -> %s QP 0x%06x: %" PRIu64 " CE-marked requests, %" PRIu64
				" CNPs received", a, q.qpn, b, q.resp_qpn, q.ce_seen, q.cnps);
		else
			fprintf(f, "    %s QP 0x%06x (its requests to %s not told apart): %" PRIu64 " CNPs received", a,
				q.qpn, b, q.cnps);
		if (q.rate_known) {
			fprintf(f, "; DCQCN would leave it at %.1f%% of the line rate", q.rc_ppm / 1e4);
			if (s->line_gbps)
				fprintf(f, " (%.2f Gb/s)", (double)q.rc_ppm * (double)line / 1e15);
		}
		fputc('\n', f);
	}
}

static void ex_summary(const struct ex_state *s, FILE *f)
{
	fprintf(f, "--- %" PRIu64 " frames", s->frames);
	if (s->sel.any)
		fprintf(f, ", %" PRIu64 " shown", s->shown);
	fprintf(f, ": %" PRIu64 " RoCE, %" PRIu64 " other (skipped); "
		   "%" PRIu64 " malformed, %" PRIu64 " ICRC failures, %" PRIu64 " unknown opcodes\n",
		s->roce, s->other, s->malformed, s->icrc_bad, s->unknown);
	if (s->snapped)
		fprintf(f, "    %" PRIu64 " packets were cut by the capture's snap length: "
			   "capture with a larger -s to decode them\n", s->snapped);
	if (s->cut)
		fprintf(f, "    %" PRIu64 " packets were cut by the capture's snap length after their headers: "
			   "decoded, their ICRC unknown (capture with a larger -s to check it)\n", s->cut);
	if (rl_analyzer_flows_forgotten(s->an))
		fprintf(f, "    flow history dropped %" PRIu64 " times: more than %zu QP-to-QP flows were live at once, "
			   "so the one idle longest was forgotten to make room; its next packet starts it over, "
			   "as a first one\n", rl_analyzer_flows_forgotten(s->an), rl_analyzer_max_flows());
	ex_summary_congestion(s, f);
	for (int op = 0; op < 256; op++) {
		const struct rl_opcode_info *info = rl_opcode_info((uint8_t)op);
		char name[40];

		if (!s->per_opcode[op])
			continue;
		if (info->flags & RL_OPF_VALID)
			snprintf(name, sizeof(name), "%s", info->name);
		else
			snprintf(name, sizeof(name), "Unknown opcode 0x%02x", op);
		fprintf(f, "    %-36s %" PRIu64 "\n", name, s->per_opcode[op]);
	}
}

/* The words after the file, joined by spaces as tcpdump joins them: a capture filter. */
static char *ex_join(int n, char **words)
{
	size_t len = 1;
	char *out;

	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	out = malloc(len);
	if (!out)
		return NULL;
	*out = '\0';
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(out, " ");
		strcat(out, words[i]);
	}
	return out;
}

/* The trailing words: FILE (unless -r named it), then the capture filter. */
static int ex_parse_rest(int argc, char **argv, struct ex_state *s, const char **file)
{
	struct stat st;

	if (!*file) {
		if (optind >= argc) {
			cli_error(s->cmd, "which capture file? (see rocelab %s --help)", s->cmd);
			return CLI_ERR;
		}
		*file = argv[optind++];
	}
	if (optind == argc)
		return CLI_OK;
	/* "explain a.pcap b.pcap" meant two files, not a filter naming host b.pcap. */
	if (optind == argc - 1 && stat(argv[optind], &st) == 0) {
		cli_error(s->cmd, "one capture file at a time ('%s' is a file, not a capture filter; "
				     "--compare A B puts two side by side)", argv[optind]);
		return CLI_ERR;
	}
	s->sel.filter = ex_join(argc - optind, argv + optind);
	if (!s->sel.filter) {
		cli_error(s->cmd, "out of memory");
		return CLI_ERR;
	}
	s->sel.any = true;
	return CLI_OK;
}

/* --layout HDR [--svg] [--json] [-o FILE]: a drawing of a header, no capture. */
static int ex_parse_layout(int argc, const struct ex_state *s, bool tcpdump_habits)
{
	if (!s->layout) {
		cli_error("explain", "%s draws a header's layout or a capture's ladder: add --layout HDR (--layout list "
				     "names them), or --ladder (not -v, -V, --json or -T: the view given last counts) and a "
				     "capture", s->svg ? "--svg" : "-o");
		return CLI_ERR;
	}
	if (optind != argc || tcpdump_habits || s->compare || s->max_packets || s->hex ||
	    (s->mode != EX_LINE && s->mode != EX_JSON) || (s->svg && s->mode == EX_JSON) || s->ek) {
		cli_error("explain", "--layout draws a header and reads no capture: only --svg or --json, and -o FILE, with it");
		return CLI_ERR;
	}
	return CLI_OK;
}

/* --qp N, --host ADDR, --op NAME (option @c): one selector more, for explain and report alike. */
static bool ex_select_opt(struct ex_state *s, int c, const char *arg)
{
	uint64_t qp;

	if (c == 'H' && !ex_select_host(&s->sel, arg, s->cmd))
		return false;
	if (c == 'O' && !ex_select_op(&s->sel, arg, s->cmd))
		return false;
	if (c == 'Q') {
		if (s->sel.nqp == EX_SEL_MAX) {
			cli_error(s->cmd, "at most %d --qp", EX_SEL_MAX);
			return false;
		}
		if (!cli_arg_u64(s->cmd, "--qp", arg, 0, 0xffffff, NULL, &qp))
			return false;
		s->sel.qp[s->sel.nqp++] = (uint32_t)qp;
	}
	s->sel.any = true;
	return true;
}

static int ex_parse(int argc, char **argv, struct ex_state *s, const char **file)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' }, { "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'c' }, { "quiet", no_argument, NULL, 'q' },
		{ "ladder", no_argument, NULL, 'L' }, { "compare", no_argument, NULL, 'C' },
		{ "qp", required_argument, NULL, 'Q' }, { "host", required_argument, NULL, 'H' },
		{ "op", required_argument, NULL, 'O' }, { "layout", required_argument, NULL, 'Y' },
		{ "svg", no_argument, NULL, 'S' }, { "line-rate", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static const char *const formats[] = { "json", "ek" };
	bool tcpdump_habits = false;
	int c, k;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":vVc:qhr:nT:xlt:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'v': case 'V': s->mode = EX_VERBOSE; break;
		case 'j': s->mode = EX_JSON; break;
		case 'T':
			if ((k = cli_arg_choice("explain", "-T", optarg, formats, 2)) < 0)
				return CLI_ERR;
			s->mode = EX_JSON;
			s->ek = k == 1;
			break;
		case 'r': *file = optarg; tcpdump_habits = true; break;
		case 'n': break;
		case 'x': s->hex = true; tcpdump_habits = true; break;
		case 'l': s->each_frame = true; break;
		case 't':
			if ((k = cli_arg_choice("explain", "-t", optarg, ex_time_names, 8)) < 0)
				return CLI_ERR;
			s->tfmt = (enum ex_time)k;
			tcpdump_habits = true;
			break;
		case 'Q': case 'H': case 'O':
			if (!ex_select_opt(s, c, optarg))
				return CLI_ERR;
			tcpdump_habits = true;
			break;
		case 'L': s->mode = EX_LADDER; break;
		case 'C': s->compare = true; break;
		case 'Y': s->layout = optarg; break;
		case 'S': s->svg = true; break;
		case 'o': s->layout_out = optarg; break;
		case 'q': s->summary = false; break;
		case 'c':
			if (!cli_arg_u64("explain", "--count", optarg, 1, UINT64_MAX, "a positive number", &s->max_packets))
				return CLI_ERR;
			break;
		case 'R':
			if (!cli_arg_u64("explain", "--line-rate", optarg, 1, 1000, "Gbit/s from 1 to 1000", &s->line_gbps))
				return CLI_ERR;
			break;
		case 'h': ex_usage(stdout); return -1;
		default: return cli_opt_error("explain", c, argv);
		}
	}
	if (s->layout || ((s->svg || (s->layout_out && !s->compare)) && s->mode != EX_LADDER))
		return ex_parse_layout(argc, s, tcpdump_habits);
	if (s->layout_out && !s->svg && !s->compare) {
		cli_error("explain", "-o writes --ladder's drawing: add --svg (the text ladder goes to standard output)");
		return CLI_ERR;
	}
	if (s->svg && (s->hex || s->ek)) {
		cli_error("explain", "--ladder --svg draws one picture: no -x or -T with it");
		return CLI_ERR;
	}
	if (s->compare) {
		if (optind != argc - 2) {
			cli_error("explain", "--compare needs two capture files, not %d", argc - optind);
			return CLI_ERR;
		}
		if (s->mode != EX_LINE || s->max_packets) {
			cli_error("explain", "--compare prints its own table: no -v, --json, --ladder or --count with it");
			return CLI_ERR;
		}
		if (tcpdump_habits) {
			cli_error("explain", "--compare reads two whole captures: no -r, -x, -t, --qp, --host or --op with it");
			return CLI_ERR;
		}
		*file = argv[optind];
		return CLI_OK;
	}
	return ex_parse_rest(argc, argv, s, file);
}

/*
 * SIGINT or SIGTERM: stop reading, print what was read and the summary (as
 * tcpdump does). A read blocked on a quiet pipe returns EINTR (no SA_RESTART);
 * one about to start would block, so the handler also puts /dev/null where the
 * input was: that read sees the end of the file. Both are async-signal-safe.
 */
static volatile sig_atomic_t ex_stop;
static int ex_in_fd = -1, ex_null_fd = -1;

static void ex_on_signal(int sig)
{
	int e = errno;

	ex_stop = sig;
	if (ex_in_fd >= 0 && ex_null_fd >= 0)
		dup2(ex_null_fd, ex_in_fd);
	errno = e;
}

static void ex_catch_signals(struct cli_capture *c)
{
	FILE *in = cli_capture_stream(c);
	struct sigaction sa;

	ex_null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ex_in_fd = in ? fileno(in) : -1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ex_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;   /* no SA_RESTART: a read blocked on a quiet pipe returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void ex_release_signals(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	ex_in_fd = -1;
	if (ex_null_fd >= 0)
		close(ex_null_fd);
	ex_null_fd = -1;
}

/* Open the capture and compile the filter for its link type; NULL after a message. */
static struct cli_capture *ex_open(struct ex_state *s, const char *file)
{
	struct cli_capture *c = cli_capture_open(s->cmd, file, CLI_LINKS_DECODED);
	char why[512];

	if (c && s->sel.filter && !cli_capture_filter(c, s->sel.filter, why, sizeof(why))) {
		cli_error(s->cmd, "capture filter '%s': %s", s->sel.filter, why);
		cli_capture_close(c);
		return NULL;
	}
	return c;
}

static void ex_free(struct ex_state *s)
{
	free((void *)s->sel.filter);
	free(s->sel.req);
	rl_analyzer_free(s->an);
	if (s->lad)
		cli_ladder_free(s->lad);
	free(s->lad);
	s->lad = NULL;
	if (s->rpt)
		cli_report_free(s->rpt);
	free(s->rpt);
	s->rpt = NULL;
}

/*
 * --ladder --svg, report: the drawing's arrows are kept until the capture's
 * end (a report's rows are written as they come); its title names @file. Its
 * output is opened now, so that one that is the capture, or cannot be
 * written, is refused before the reading.
 */
static FILE *ex_drawing_begin(struct ex_state *s, struct cli_capture *c, const char *file, struct cli_output *out)
{
	const char *base = strrchr(file, '/'), *name = strcmp(file, "-") ? (base ? base + 1 : file) : "standard input";
	FILE *in = cli_capture_stream(c), *f;

	s->lad = calloc(1, sizeof(*s->lad));
	if (!s->lad || (s->mode == EX_REPORT && !(s->rpt = calloc(1, sizeof(*s->rpt))))) {
		cli_error(s->cmd, "out of memory");
		return NULL;
	}
	snprintf(s->lad->title, sizeof(s->lad->title), "%s: the RoCE packets between each two hosts, in capture order",
		 name);
	f = cli_output_open(out, s->cmd, s->layout_out ? s->layout_out : "-", in ? fileno(in) : -1, file);
	if (f && s->rpt && !cli_report_begin(s->rpt, f, name, false)) {
		cli_error(s->cmd, "out of memory");
		fclose(f);
		cli_output_abort(out);
		return NULL;
	}
	if (f && s->rpt)
		cli_report_rows_begin(s->rpt, "");
	return f;
}

/* After the page is in place: what it holds, or that Ctrl-C cut the reading short (exit 1, as a damaged capture). */
static int ex_report_said(const struct ex_state *s, const char *path, int rc)
{
	if (ex_stop) {
		cli_error(s->cmd, "interrupted: %s holds the %" PRIu64 " frames read before, and says so", path, s->frames);
		return CLI_BAD_INPUT;
	}
	if (s->summary)   /* not into a page written to standard output */
		fprintf(strcmp(path, "-") ? stdout : stderr, "wrote %s: %" PRIu64 " frames, %" PRIu64
			" drawn; open it in a web browser\n", path, s->frames, s->rpt->rows);
	return rc;
}

/* The page's end: its summary, from the counts the other views print. */
static void ex_report_end(struct ex_state *s, const char *file)
{
	const char *base = strrchr(file, '/');
	struct cli_report_counts c = {
		.file = strcmp(file, "-") ? (base ? base + 1 : file) : "standard input",
		.frames = s->frames, .roce = s->roce, .other = s->other, .malformed = s->malformed,
		.icrc_bad = s->icrc_bad, .unknown = s->unknown, .cut = s->cut, .snapped = s->snapped,
		.flows_forgotten = rl_analyzer_flows_forgotten(s->an), .start_ns = s->first_ns,
		.duration_ns = s->last_rel_ns, .per_opcode = s->per_opcode,
		.pairs = (const char (*)[2][64])s->lad->hosts, .npairs = s->lad->npairs,
		.pairs_more = s->rpt_pairs_more, .interrupted = ex_stop != 0,
	};

	cli_report_end(s->rpt, &c);
}

/* Frame after frame, as they come; cli_capture_next()'s last result. */
static int ex_loop(struct ex_state *s, struct cli_capture *c)
{
	struct cli_frame f;
	int r = 1;

	while ((!s->max_packets || s->frames < s->max_packets) && !ex_stop && (r = cli_capture_next(c, &f)) == 1) {
		ex_packet(s, c, &f);
		if (s->each_frame) {
			ex_flush(s);
			fflush(stdout);
		}
		if (s->frames % EX_PROGRESS_EVERY == 0)
			ex_progress(s, false);
	}
	return r;
}

#define EX_NO_THREAD 2

/*
 * A whole file, read on a second core while this one analyses and prints,
 * the decoding shared (explain_reader.h). Returns cli_capture_next()'s last result,
 * or EX_NO_THREAD if the plain loop is to run: live input and -l must see
 * each frame as it comes, and -c N must read no further than it shows.
 */
static int ex_loop_threaded(struct ex_state *s, struct cli_capture *c)
{
	const struct exr_item *it;
	struct exr *r;
	int end = 1;

	if (s->each_frame || s->max_packets || cli_capture_live(c))
		return EX_NO_THREAD;
	r = exr_start(c, s->in_size != 0);
	if (!r)
		return EX_NO_THREAD;
	s->reader = r;
	while (!ex_stop && (it = exr_next(r, &end))) {
		ex_decoded(s, &it->f, &it->p, it->st, !s->sel.filter || it->match);
		if (s->frames % EX_PROGRESS_EVERY == 0)
			ex_progress(s, false);
	}
	s->reader = NULL;
	exr_stop(r);
	return end;
}

/* Did standard output reach its file (the help, longer than stdio's buffer, on a full disk)? Else say so. */
static int ex_output_written(const char *cmd, int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(cmd, "cannot write the output");
		return CLI_ERR;
	}
	return rc;
}

/*
 * The capture named @file read through, each frame shown as s->mode says;
 * with --ladder --svg or a report, the drawing or page written at the end.
 */
static int ex_run(struct ex_state *s, const char *file)
{
	struct cli_capture *c;
	struct cli_output out;
	FILE *out_f = NULL;
	int r, rc = CLI_OK;

	c = ex_open(s, file);
	if (!c)
		return CLI_ERR;
	s->link = cli_capture_link(c);
	s->an = rl_analyzer_new();
	if (!s->an) {
		cli_error(s->cmd, "out of memory");
		cli_capture_close(c);
		return CLI_ERR;
	}
	rl_analyzer_set_line_rate(s->an, s->line_gbps * 1000000000u);
	if (s->rpt_shared ? !(s->lad = calloc(1, sizeof(*s->lad)))
			  : (s->svg || s->mode == EX_REPORT) && !(out_f = ex_drawing_begin(s, c, file, &out))) {
		if (s->rpt_shared)
			cli_error(s->cmd, "out of memory");
		cli_capture_close(c);
		return CLI_ERR;
	}
	if (s->mode == EX_REPORT) {
		json_begin_html(&s->json, s->rpt->f);
	} else {
		json_begin(&s->json, stdout);
	}
	s->each_frame = s->each_frame || cli_capture_live(c);
	ex_stop = 0;
	ex_catch_signals(c);

	ex_progress_init(s, c);
	r = ex_loop_threaded(s, c);
	if (r == EX_NO_THREAD)
		r = ex_loop(s, c);
	ex_progress(s, true);
	ex_flush(s);
	if (r < 0 && !ex_stop) {
		cli_capture_damaged(c, s->cmd);
		rc = CLI_BAD_INPUT;
	}
	cli_capture_note_skipped(c, s->cmd);
	fflush(stdout);
	/* a damaged capture: the drawing of what was read, and the error's status */
	if (s->rpt_shared) {
		ex_report_end(s, file);
	} else if (out_f && s->lad->oom) {
		cli_error("explain", "out of memory for the ladder's arrows: choose fewer with -c N, --qp or a filter");
		fclose(out_f);
		cli_output_abort(&out);
		rc = CLI_ERR;
	} else if (out_f) {
		if (s->rpt) {
			ex_report_end(s, file);
			cli_report_finish(s->rpt);
		} else {
			cli_ladder_svg(out_f, s->lad);
		}
		if (!cli_output_close(&out, out_f))
			rc = CLI_ERR;
		else if (s->rpt)
			rc = ex_report_said(s, out.path, rc);
	}
	if (s->summary && !s->rpt)   /* the page shows the summary */
		ex_summary(s, s->mode == EX_JSON || s->lad ? stderr : stdout);
	ex_release_signals();
	cli_capture_close(c);
	return rc;
}

/* The last part of a path. */
static const char *ex_base(const char *file)
{
	const char *base = strrchr(file, '/');

	return base ? base + 1 : file;
}

/* explain --compare A B -o FILE: the two captures' pages side by side, as one. */
static int ex_compare_page(const char *fa, const char *fb, const char *path)
{
	static struct ex_state s;
	const char *files[2] = { fa, fb };
	struct cli_report r;
	struct cli_output out;
	struct stat so, sb;
	char title[600];
	int fd = open(fa, O_RDONLY), rc = CLI_OK;
	FILE *f;

	if (stat(path, &so) == 0 && stat(fb, &sb) == 0 && so.st_dev == sb.st_dev && so.st_ino == sb.st_ino) {
		cli_error("explain", "%s is the input %s: writing it would destroy what is being read; write to another "
				     "file", path, fb);
		if (fd >= 0)
			close(fd);
		return CLI_ERR;
	}
	f = cli_output_open(&out, "explain", path, fd, fa);
	if (fd >= 0)
		close(fd);
	if (!f)
		return CLI_ERR;
	snprintf(title, sizeof(title), "%s and %s", ex_base(fa), ex_base(fb));
	if (!cli_report_begin(&r, f, title, true)) {
		cli_error("explain", "out of memory");
		rc = CLI_ERR;
	}
	for (int i = 0; i < 2 && rc != CLI_ERR; i++) {
		memset(&s, 0, sizeof(s));
		s.cmd = "explain";
		s.mode = EX_REPORT;
		s.rpt = &r;
		s.rpt_shared = true;
		cli_report_rows_begin(&r, i ? "-b" : "");
		int r = ex_run(&s, files[i]);

		rc = r > rc ? r : rc;
		s.rpt = NULL;   /* the page's, not this capture's */
		ex_free(&s);
	}
	if (rc == CLI_ERR) {
		fclose(f);
		cli_output_abort(&out);
	} else {
		cli_report_finish(&r);
		if (!cli_output_close(&out, f))
			rc = CLI_ERR;
		else
			printf("\nwrote %s: the two captures side by side; open it in a web browser\n", path);
	}
	cli_report_free(&r);
	return rc;
}

int cli_explain(int argc, char **argv)
{
	static struct ex_state s;
	const char *file = NULL;
	int r, rc;

	memset(&s, 0, sizeof(s));
	s.summary = true;
	s.cmd = "explain";
	r = ex_parse(argc, argv, &s, &file);
	if (r) {
		ex_free(&s);
		return r < 0 ? ex_output_written(s.cmd, CLI_OK) : r;
	}
	if (cli_dry_parse()) {
		ex_free(&s);
		return CLI_OK;
	}
	if (s.compare) {
		if (s.layout_out && !strcmp(s.layout_out, "-")) {
			cli_error("explain", "--compare prints its table on standard output: -o names a file for the page");
			ex_free(&s);
			return CLI_ERR;
		}
		rc = cli_compare(file, argv[argc - 1]);
		if (rc != CLI_ERR && s.layout_out) {   /* a damaged capture: the page of what was read, as report's */
			r = ex_compare_page(file, argv[argc - 1], s.layout_out);
			rc = r > rc ? r : rc;
		}
		ex_free(&s);
		return rc;
	}
	if (s.layout)
		return cli_layout(s.layout, s.svg ? CLI_LAYOUT_SVG : s.mode == EX_JSON ? CLI_LAYOUT_JSON : CLI_LAYOUT_TEXT,
				  s.layout_out);
	rc = ex_run(&s, file);
	ex_free(&s);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("explain", "cannot write the output");
		rc = CLI_ERR;
	}
	return rc;
}

/* ---- rocelab report ----------------------------------------------------------- */

static void rp_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab report [options] CAPTURE [FILTER...]\n\n"
		"Draw a capture as one self-contained HTML page, to open in any web browser\n"
		"(no network needed): a ladder diagram of each two hosts, every frame an\n"
		"arrow coloured by its role, with losses, NAKs and resends marked where they\n"
		"happen; a PSN-time graph of each QP and direction (like Wireshark's tcptrace\n"
		"graph); throughput over time with ECN-CE and CNP marks; and a summary of\n"
		"hosts, QPs, operations and the analyzer's findings. Click an arrow for the\n"
		"frame's fields and what the analyzer says of it: the same decoder, field\n"
		"table and analyzer as rocelab explain.\n\n"
		"  -o FILE      write the page to FILE (replaced whole; '-': standard output);\n"
		"               default: the capture's name with .html for .pcap/.pcapng\n"
		"  -c N         read only the first N frames\n"
		"  --qp N, --host ADDR, --op NAME   draw only those packets, as explain does\n"
		"  -q           print nothing but errors\n"
		"  -h, --help   this help\n\n"
		"FILTER: a capture filter (pcap-filter(7)), as tcpdump takes after its options.\n"
		"The first %d frames drawn carry all their fields; past them, the frames the\n"
		"analyzer found fault with still do (rocelab explain -v shows any frame).\n\n"
		"Exit status: 0 the capture was read to its end and the page written; 1 the\n"
		"capture is damaged or cut short, or Ctrl-C stopped the reading (the page\n"
		"shows what was read, and says so); 2 it could not be read, the page could\n"
		"not be written, or the options were wrong.\n\n"
		"Example:\n"
		"  rocelab gen loss -o loss.pcap && rocelab report loss.pcap\n"
		"  rocelab report -o ladder.html capture.pcap udp port 4791\n",
		CLI_REPORT_DETAIL);
}

/* The page's default name: the capture's, .pcap or .pcapng (or .cap) replaced by .html. */
static char *rp_default_out(const char *file)
{
	static const char *const exts[] = { ".pcapng", ".pcap", ".cap" };
	size_t n = strlen(file);
	char *out = malloc(n + sizeof(".html"));

	if (!out)
		return NULL;
	memcpy(out, file, n + 1);
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t e = strlen(exts[i]);

		if (n > e && !strcmp(out + n - e, exts[i]) && out[n - e - 1] != '/') {
			out[n - e] = '\0';
			break;
		}
	}
	strcat(out, ".html");
	return out;
}

static int rp_parse(int argc, char **argv, struct ex_state *s, const char **file)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'c' }, { "quiet", no_argument, NULL, 'q' },
		{ "qp", required_argument, NULL, 'Q' }, { "host", required_argument, NULL, 'H' },
		{ "op", required_argument, NULL, 'O' }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":c:qho:", opts, NULL)) != -1) {
		switch (c) {
		case 'Q': case 'H': case 'O':
			if (!ex_select_opt(s, c, optarg))
				return CLI_ERR;
			break;
		case 'o': s->layout_out = optarg; break;
		case 'q': s->summary = false; break;
		case 'c':
			if (!cli_arg_u64("report", "--count", optarg, 1, UINT64_MAX, "a positive number", &s->max_packets))
				return CLI_ERR;
			break;
		case 'h': rp_usage(stdout); return -1;
		default: return cli_opt_error("report", c, argv);
		}
	}
	if (optind < argc && !strcmp(argv[optind], "-") && !s->layout_out) {
		cli_error("report", "a capture on standard input needs -o FILE for the page");
		return CLI_ERR;
	}
	return ex_parse_rest(argc, argv, s, file);
}

int cli_report(int argc, char **argv)
{
	static struct ex_state s;
	const char *file = NULL;
	char *out = NULL;
	int r, rc;

	memset(&s, 0, sizeof(s));
	s.summary = true;
	s.cmd = "report";
	s.mode = EX_REPORT;
	r = rp_parse(argc, argv, &s, &file);
	if (r) {
		ex_free(&s);
		return r < 0 ? ex_output_written(s.cmd, CLI_OK) : r;
	}
	if (cli_dry_parse()) {
		ex_free(&s);
		return CLI_OK;
	}
	if (!s.layout_out && !(s.layout_out = out = rp_default_out(file))) {
		cli_error("report", "out of memory");
		ex_free(&s);
		return CLI_ERR;
	}
	rc = ex_run(&s, file);
	ex_free(&s);
	free(out);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("report", "cannot write the output");
		rc = CLI_ERR;
	}
	return rc;
}
