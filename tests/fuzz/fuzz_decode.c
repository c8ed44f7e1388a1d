/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the rocelab decoder.
 *
 * The first input byte picks the framing (fz_link.h); the rest is a frame,
 * decoded from a heap copy of exactly its size so that ASan reports any read
 * past its end. Then the promises of packet.h and status.h are checked: a
 * known status with a name and a message, ordered offsets inside the frame
 * for every non-fatal RoCE status, and, for a packet that decoded cleanly or
 * with only a bad ICRC, an encode -> decode round trip that keeps the BTH,
 * the extended headers and the payload. Every input also goes to one
 * analyzer that lives across inputs, as one long hostile capture: its links
 * point back, its words fit, and its tables stay bounded. A broken promise
 * calls __builtin_trap(), which libFuzzer reports as a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocelab/rocelab.h"
#include "fz_link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond) ((cond) ? (void)0 : fz_fail(#cond, __LINE__))

/* Encoders refuse packets whose IP length does not fit 16 bits. */
#define FZ_IP_LEN_MAX 0xffff

static _Noreturn void fz_fail(const char *what, int line)
{
	fprintf(stderr, "fuzz_decode.c:%d: invariant broken: %s\n", line, what);
	__builtin_trap();
}

static enum rl_status fz_decode(enum fz_mode mode, const uint8_t *buf, size_t len,
				struct rl_pkt *pkt)
{
	switch (mode) {
	case FZ_MODE_L3_GRH: return rl_decode_l3(buf, len, true, pkt);
	case FZ_MODE_L3_IP: return rl_decode_l3(buf, len, false, pkt);
	default: return rl_decode(fz_mode_link(mode), buf, len, pkt);
	}
}

/* Every status, fatal or not, has a name, a reason and a message. */
static void fz_check_status(enum rl_status st, const struct rl_pkt *pkt, size_t len)
{
	char msg[512], small[8];
	int n;

	FZ_CHECK((unsigned)st < RL_STATUS_COUNT);
	FZ_CHECK(rl_status_name(st) != NULL);
	FZ_CHECK(rl_status_reason(st) != NULL);

	n = rl_decode_error_str(st, pkt, msg, sizeof(msg));
	FZ_CHECK(n > 0 && (size_t)n < sizeof(msg));
	FZ_CHECK(strlen(msg) == (size_t)n);
	/* A short buffer truncates, terminated, and the length is unchanged. */
	FZ_CHECK(rl_decode_error_str(st, pkt, small, sizeof(small)) == n);
	FZ_CHECK(strlen(small) == sizeof(small) - 1);

	FZ_CHECK(pkt->frame_len == len);
	if (rl_status_fatal(st))
		FZ_CHECK(pkt->err_off <= len);
}

/* RL_OK, RL_E_ICRC, RL_E_UNKNOWN_OPCODE: every header was found, in order. */
static void fz_check_layout(enum rl_status st, const struct rl_pkt *pkt, const uint8_t *buf,
			    size_t len)
{
	const uint8_t *w;

	FZ_CHECK(pkt->roce != RL_ROCE_NONE && pkt->l3 != RL_L3_NONE);
	FZ_CHECK(pkt->op != NULL && pkt->op == rl_opcode_info(pkt->bth.opcode));
	FZ_CHECK(pkt->hdrs == pkt->op->hdrs);
	FZ_CHECK(pkt->bth.tver == 0);
	FZ_CHECK((st == RL_E_UNKNOWN_OPCODE) == !(pkt->op->flags & RL_OPF_VALID));

	FZ_CHECK(pkt->l3_off <= pkt->bth_off);
	FZ_CHECK(pkt->bth_off < pkt->payload_off);
	FZ_CHECK(pkt->payload_off <= pkt->icrc_off);
	FZ_CHECK(pkt->bth_off + RL_BTH_LEN + pkt->op->hdr_len == pkt->payload_off);
	FZ_CHECK(pkt->icrc_off + RL_ICRC_LEN == pkt->end_off);
	FZ_CHECK(pkt->end_off <= len);

	FZ_CHECK(pkt->payload == buf + pkt->payload_off);
	FZ_CHECK(pkt->payload_len <= len - pkt->payload_off);
	FZ_CHECK(pkt->payload_len + pkt->bth.padcnt == pkt->icrc_off - pkt->payload_off);

	w = buf + pkt->icrc_off;
	FZ_CHECK(pkt->icrc == ((uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 |
			       (uint32_t)w[3] << 24));
	FZ_CHECK(pkt->icrc_expected == rl_icrc_compute(pkt, buf));
	FZ_CHECK(pkt->icrc_ok == (pkt->icrc == pkt->icrc_expected));
	if (st == RL_OK)
		FZ_CHECK(pkt->icrc_ok);
	if (st == RL_E_ICRC)
		FZ_CHECK(!pkt->icrc_ok);
}

/* The extended headers that the opcode carries, as decoded twice. */
static void fz_check_ext(const struct rl_pkt *a, const struct rl_pkt *b)
{
	uint32_t m = a->hdrs;

	FZ_CHECK(b->hdrs == m);
	if (m & RL_HDR_RDETH)
		FZ_CHECK(a->rdeth_eecnxt == b->rdeth_eecnxt);
	if (m & RL_HDR_DETH)
		FZ_CHECK(a->deth.qkey == b->deth.qkey && a->deth.src_qp == b->deth.src_qp);
	if (m & RL_HDR_XRCETH)
		FZ_CHECK(a->xrc_srq == b->xrc_srq);
	if (m & RL_HDR_FETH)
		FZ_CHECK(a->feth.sel == b->feth.sel && a->feth.plt == b->feth.plt);
	if (m & RL_HDR_RETH)
		FZ_CHECK(a->reth.va == b->reth.va && a->reth.rkey == b->reth.rkey &&
			 a->reth.dma_len == b->reth.dma_len);
	if (m & RL_HDR_ATOMICETH)
		FZ_CHECK(a->atomiceth.va == b->atomiceth.va && a->atomiceth.rkey == b->atomiceth.rkey &&
			 a->atomiceth.swap_add == b->atomiceth.swap_add &&
			 a->atomiceth.compare == b->atomiceth.compare);
	if (m & RL_HDR_AETH)
		FZ_CHECK(a->aeth.syndrome == b->aeth.syndrome && a->aeth.msn == b->aeth.msn);
	if (m & RL_HDR_ATOMICACKETH)
		FZ_CHECK(a->atomicack_orig == b->atomicack_orig);
	if (m & RL_HDR_IMMDT)
		FZ_CHECK(a->immdt == b->immdt);
	if (m & RL_HDR_IETH)
		FZ_CHECK(a->ieth_rkey == b->ieth_rkey);
}

/*
 * Encode what was decoded, decode that again with the same link, and compare.
 * The encoder recomputes lengths, pad and ICRC, so those are not compared.
 */
static void fz_roundtrip(const struct rl_pkt *pkt)
{
	const struct rl_bth *a = &pkt->bth, *b;
	struct rl_pkt re;
	size_t need, ip_len, out_len;
	uint8_t *buf;

	need = rl_encoded_len(pkt);
	/* A GRH without a link header (rl_decode_l3) cannot be framed again. */
	if (pkt->l3 == RL_L3_GRH && pkt->link == RL_LINK_RAW) {
		buf = malloc(need);
		if (!buf)
			return;
		FZ_CHECK(rl_encode(pkt, buf, need, &out_len) == RL_E_ARG);
		free(buf);
		return;
	}
	/* The re-encoded link header is as long as the decoded one. */
	FZ_CHECK(need > pkt->l3_off);
	ip_len = need - pkt->l3_off + (pkt->l3 == RL_L3_GRH ? 8 : 0);
	if (ip_len > FZ_IP_LEN_MAX)
		return;

	buf = malloc(need);
	if (!buf)
		return;
	FZ_CHECK(rl_encode(pkt, buf, need - 1, &out_len) == RL_E_NOSPACE);
	FZ_CHECK(rl_encode(pkt, buf, need, &out_len) == RL_OK);
	FZ_CHECK(out_len == need);

	FZ_CHECK(rl_decode(pkt->link, buf, out_len, &re) == RL_OK);
	b = &re.bth;
	FZ_CHECK(re.l3 == pkt->l3 && re.roce == pkt->roce);
	FZ_CHECK(b->opcode == a->opcode && b->psn == a->psn && b->dqpn == a->dqpn);
	FZ_CHECK(b->pkey == a->pkey && b->ackreq == a->ackreq);
	FZ_CHECK(b->se == a->se && b->migreq == a->migreq);
	FZ_CHECK(b->fecn == a->fecn && b->becn == a->becn);
	FZ_CHECK(b->resv6 == a->resv6 && b->resv7 == a->resv7);
	fz_check_ext(pkt, &re);
	FZ_CHECK(re.payload_len == pkt->payload_len);
	if (pkt->payload_len)
		FZ_CHECK(memcmp(re.payload, pkt->payload, pkt->payload_len) == 0);
	FZ_CHECK(re.end_off == out_len);
	free(buf);
}

/* The bytes as a CM MAD: no read past them, every field it reports fits, and a whole one re-encodes to itself. */
static void fz_check_cm(const uint8_t *buf, size_t len)
{
	struct rl_cm cm, back;
	struct rl_cm_iter it;
	const struct rl_cm_field *f;
	enum rl_cm_status st = rl_cm_decode(buf, len, &cm);
	uint8_t out[RL_MAD_LEN];
	char line[256];
	size_t n;

	FZ_CHECK(cm.len <= len && cm.len <= RL_MAD_LEN);
	rl_cm_iter_init(&it, &cm);
	while ((f = rl_cm_next(&it)))
		FZ_CHECK((size_t)f->off + f->bytes <= cm.len);
	FZ_CHECK(rl_cm_describe(&cm, line, sizeof(line)) < sizeof(line));
	FZ_CHECK(strlen(line) < sizeof(line));
	if (st == RL_CM_OK) {
		FZ_CHECK(rl_cm_encode(&cm, out, sizeof(out), &n) == RL_OK && n == RL_MAD_LEN);
		FZ_CHECK(memcmp(out, buf, RL_MAD_LEN) == 0);
		FZ_CHECK(rl_cm_decode(out, n, &back) == RL_CM_OK && back.attr == cm.attr);
	}
}

/* Bounds the analyzer promises (analyze.c's AN_MAX_FLOWS, AN_MAX_CM). */
#define FZ_MAX_FLOWS 16384
#define FZ_MAX_CM 1024

/* The analyzer on every input, as frames of one endless capture: links only point back, tables stay bounded. */
static void fz_check_analyzer(const struct rl_pkt *pkt, enum rl_status st)
{
	static struct rl_analyzer *an;
	static uint64_t frame;
	struct rl_annotation o;
	struct rl_annotation_text t;

	if (!an && !(an = rl_analyzer_new()))
		return;
	frame++;
	rl_analyze(an, frame, frame * 1000, pkt, st, &o);
	rl_annotation_describe(&o, pkt, &t);
	FZ_CHECK(strlen(t.summary) < sizeof(t.summary) && strlen(t.explanation) < sizeof(t.explanation));
	FZ_CHECK(o.request_frame < frame && o.original_frame < frame);
	FZ_CHECK(o.cm.answers_frame < frame && o.cm.original_frame < frame && o.cm.psn_frame < frame);
	FZ_CHECK(!o.cm.is_cm || rl_cm_is_gsi(pkt));
	FZ_CHECK(rl_analyzer_flows(an) <= FZ_MAX_FLOWS && rl_analyzer_cm_conversations(an) <= FZ_MAX_CM);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum fz_mode mode;
	enum rl_status st;
	struct rl_pkt pkt;
	uint8_t *buf;
	size_t len;

	if (size < 1)
		return 0;
	mode = fz_mode_of(data[0]);
	len = size - 1;
	/* Exactly len bytes (malloc(0) too): any over-read is an ASan report. */
	buf = malloc(len);
	if (!buf)
		return 0;
	if (len)
		memcpy(buf, data + 1, len);

	memset(&pkt, 0xa5, sizeof(pkt));	/* decode must not rely on a clean struct */
	st = fz_decode(mode, buf, len, &pkt);
	fz_check_status(st, &pkt, len);
	if (st != RL_NOT_ROCE && !rl_status_fatal(st)) {
		fz_check_layout(st, &pkt, buf, len);
		if (st != RL_E_UNKNOWN_OPCODE)
			fz_roundtrip(&pkt);
		if (rl_cm_is_gsi(&pkt))
			fz_check_cm(pkt.payload, pkt.payload_len);
	}
	if (st != RL_NOT_ROCE)
		fz_check_analyzer(&pkt, st);
	fz_check_cm(buf, len);
	free(buf);
	return 0;
}
