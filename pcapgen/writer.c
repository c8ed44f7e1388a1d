/* SPDX-License-Identifier: MIT */
/*
 * The pcap writer of `rocelab gen`: frames through libpcap with nanosecond
 * times, in timestamp order, optionally 802.1Q-tagged; or, with --pcapng, a
 * pcapng written here (libpcap writes pcap only), where a frame the wire lost
 * carries a comment saying so, and one that passed a switch queue the depth it met. Errors come back in the writer's message
 * buffer (gen_out.msg); nothing here prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int gen_fail(struct gen_out *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->msg, sizeof(out->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* pcapng (draft-ietf-opsawg-pcapng section 4): the three blocks and the options written. */
#define GEN_NG_SHB 0x0A0D0D0Au
#define GEN_NG_IDB 0x00000001u
#define GEN_NG_EPB 0x00000006u
#define GEN_NG_BYTE_ORDER 0x1A2B3C4Du   /* in the writer's own byte order, which the reader learns from it */
#define GEN_NG_VERSION 1u               /* major 1, minor 0 */
#define GEN_NG_OPT_END 0u
#define GEN_NG_OPT_COMMENT 1u
#define GEN_NG_IF_TSRESOL 9u
#define GEN_NG_NANOSECONDS 9u           /* if_tsresol: units of 10^-9 s */
#define GEN_NG_LINKTYPE_ETHERNET 1u
#define GEN_SNAPLEN 65535u

static size_t gen_ng_pad(size_t n)
{
	return (4 - n % 4) % 4;
}

static void gen_ng_u32(FILE *f, uint32_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static void gen_ng_u16(FILE *f, uint16_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

/* @n bytes of @b and the zeros that pad them to 32 bits. */
static void gen_ng_bytes(FILE *f, const void *b, size_t n)
{
	static const uint8_t zero[4];

	fwrite(b, 1, n, f);
	fwrite(zero, 1, gen_ng_pad(n), f);
}

/* The section header (no options, length unknown) and the one Ethernet interface, in nanoseconds. */
static void gen_ng_start(FILE *f)
{
	gen_ng_u32(f, GEN_NG_SHB);
	gen_ng_u32(f, 28);
	gen_ng_u32(f, GEN_NG_BYTE_ORDER);
	gen_ng_u32(f, GEN_NG_VERSION);
	gen_ng_u32(f, UINT32_MAX);      /* section length: -1, not given */
	gen_ng_u32(f, UINT32_MAX);
	gen_ng_u32(f, 28);

	gen_ng_u32(f, GEN_NG_IDB);
	gen_ng_u32(f, 32);
	gen_ng_u16(f, GEN_NG_LINKTYPE_ETHERNET);
	gen_ng_u16(f, 0);
	gen_ng_u32(f, GEN_SNAPLEN);
	gen_ng_u16(f, GEN_NG_IF_TSRESOL);
	gen_ng_u16(f, 1);
	gen_ng_bytes(f, &(uint8_t){ GEN_NG_NANOSECONDS }, 1);
	gen_ng_u32(f, GEN_NG_OPT_END);
	gen_ng_u32(f, 32);
}

/* An enhanced packet block of interface 0, with @comment (NULL: none). */
static void gen_ng_packet(FILE *f, uint64_t t_ns, const uint8_t *frame, size_t len, const char *comment)
{
	size_t clen = comment ? strlen(comment) : 0;
	size_t opts = comment ? 4 + clen + gen_ng_pad(clen) + 4 : 0;
	uint32_t total = (uint32_t)(32 + len + gen_ng_pad(len) + opts);

	gen_ng_u32(f, GEN_NG_EPB);
	gen_ng_u32(f, total);
	gen_ng_u32(f, 0);
	gen_ng_u32(f, (uint32_t)(t_ns >> 32));
	gen_ng_u32(f, (uint32_t)t_ns);
	gen_ng_u32(f, (uint32_t)len);
	gen_ng_u32(f, (uint32_t)len);
	gen_ng_bytes(f, frame, len);
	if (comment) {
		gen_ng_u16(f, GEN_NG_OPT_COMMENT);
		gen_ng_u16(f, (uint16_t)clen);
		gen_ng_bytes(f, comment, clen);
		gen_ng_u32(f, GEN_NG_OPT_END);
	}
	gen_ng_u32(f, total);
}

void gen_depth_comment(char *buf, size_t n, uint64_t depth)
{
	snprintf(buf, n, GEN_DEPTH_COMMENT_PREFIX "%" PRIu64 GEN_DEPTH_COMMENT_UNIT, depth);
}

bool gen_depth_parse(const char *comment, uint64_t *depth)
{
	size_t np = strlen(GEN_DEPTH_COMMENT_PREFIX);
	const char *c = comment;
	uint64_t v = 0;

	if (strncmp(c, GEN_DEPTH_COMMENT_PREFIX, np))
		return false;
	c += np;
	if (*c < '0' || *c > '9')
		return false;
	for (; *c >= '0' && *c <= '9'; c++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*c - '0');
	}
	if (strcmp(c, GEN_DEPTH_COMMENT_UNIT))
		return false;
	*depth = v;
	return true;
}

int gen_out_open(struct gen_out *out, const struct gen_opts *o, FILE *f, gen_progress_fn progress)
{
	memset(out, 0, sizeof(*out));
	out->o = o;
	out->progress = progress;
	out->next_progress = GEN_PROGRESS_EVERY;
	if (o->pcapng) {
		out->ng = f;
		gen_ng_start(f);
		return 0;
	}
	out->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	if (!out->dead) {
		fclose(f);
		return gen_fail(out, "out of memory");
	}
	out->dump = pcap_dump_fopen(out->dead, f);
	if (!out->dump) {
		gen_fail(out, "cannot write %s: %s", o->out, pcap_geterr(out->dead));
		fclose(f);
		pcap_close(out->dead);
		return -1;
	}
	return 0;
}

/* A frame as a capture on the link shows it; with --vlan, as on a trunk port. */
static void gen_out_write(struct gen_out *out, uint64_t t_ns, const uint8_t *frame, size_t len, bool lost,
			  uint64_t depth)
{
	uint8_t tagged[RL_SIMWIRE_MAX_FRAME + 4];
	char note[GEN_DEPTH_COMMENT_MAX];
	struct pcap_pkthdr h;

	/* A frame built tagged (gen all-opcodes has such shapes) keeps its one tag. */
	if (out->o->vlan && len >= 14 && len + 4 <= sizeof(tagged) && rl_get16(frame + 12) != RL_ETHERTYPE_VLAN) {
		memcpy(tagged, frame, 12);
		rl_put16(tagged + 12, RL_ETHERTYPE_VLAN);
		rl_put16(tagged + 14, (uint16_t)(3u << 13 | out->o->vlan_id));   /* priority 3, as RoCE usually gets */
		memcpy(tagged + 16, frame + 12, len - 12);
		frame = tagged;
		len += 4;
	}
	if (out->ng) {
		if (!lost && depth != GEN_NO_DEPTH)
			gen_depth_comment(note, sizeof(note), depth);
		gen_ng_packet(out->ng, t_ns, frame, len,
			      lost ? GEN_LOST_COMMENT : depth != GEN_NO_DEPTH ? note : NULL);
	} else {
		h.ts.tv_sec = (time_t)(t_ns / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(t_ns % 1000000000u);   /* nanoseconds: a nanosecond pcap */
		h.caplen = h.len = (bpf_u_int32)len;
		pcap_dump((u_char *)out->dump, &h, frame);
	}
	if (!out->write_errno && ferror(out->ng ? out->ng : pcap_dump_file(out->dump)))
		out->write_errno = errno ? errno : EIO;
	out->frames++;
	if (out->progress && out->frames >= out->next_progress) {
		out->progress(out->frames);
		out->next_progress += GEN_PROGRESS_EVERY;
	}
}

static bool gen_held_before(const struct gen_held *a, const struct gen_held *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->seq < b->seq);
}

static void gen_held_swap(struct gen_out *out, size_t i, size_t j)
{
	struct gen_held t = out->held[i];

	out->held[i] = out->held[j];
	out->held[j] = t;
}

static void gen_held_push(struct gen_out *out, struct gen_held h)
{
	size_t i = out->nheld++;

	out->held[i] = h;
	while (i && gen_held_before(&out->held[i], &out->held[(i - 1) / 2])) {
		gen_held_swap(out, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static struct gen_held gen_held_pop(struct gen_out *out)
{
	struct gen_held top = out->held[0];
	size_t i = 0;

	out->held[0] = out->held[--out->nheld];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < out->nheld && gen_held_before(&out->held[l], &out->held[m]))
			m = l;
		if (r < out->nheld && gen_held_before(&out->held[r], &out->held[m]))
			m = r;
		if (m == i)
			return top;
		gen_held_swap(out, i, m);
		i = m;
	}
}

/* Write out every held frame stamped at or before @horizon_ns; its buffer waits for the next. */
static void gen_out_release(struct gen_out *out, uint64_t horizon_ns)
{
	while (out->nheld && out->held[0].t_ns <= horizon_ns) {
		struct gen_held h = gen_held_pop(out);

		gen_out_write(out, h.t_ns, h.frame, h.len, h.lost, h.depth);
		out->spare[out->nspare++] = (struct gen_spare){ h.frame, h.cap };
	}
}

/*
 * Room for one more held frame, and for a spare buffer per held frame (no
 * more buffers exist than were ever held at once). 0, or -1: out of memory.
 */
static int gen_out_grow(struct gen_out *out)
{
	size_t cap = out->capheld ? out->capheld * 2 : 256;
	struct gen_held *held = realloc(out->held, cap * sizeof(*held));
	struct gen_spare *sp;

	if (!held)
		return -1;
	out->held = held;
	sp = realloc(out->spare, cap * sizeof(*sp));
	if (!sp)
		return -1;
	out->spare = sp;
	out->capheld = cap;
	return 0;
}

/* A buffer of at least @len bytes for a held frame: a spare one if there is one. */
static uint8_t *gen_out_buffer(struct gen_out *out, size_t len, size_t *cap)
{
	struct gen_spare sp = out->nspare ? out->spare[--out->nspare] : (struct gen_spare){ NULL, 0 };
	uint8_t *b;

	if (sp.frame && sp.cap >= len) {
		*cap = sp.cap;
		return sp.frame;
	}
	b = realloc(sp.frame, len ? len : 1);
	if (!b) {
		free(sp.frame);
		return NULL;
	}
	*cap = len ? len : 1;
	return b;
}

void gen_out_frame(struct gen_out *out, uint64_t t_ns, uint64_t horizon_ns, const uint8_t *frame, size_t len,
		   bool lost)
{
	gen_out_frame_depth(out, t_ns, horizon_ns, frame, len, lost, GEN_NO_DEPTH);
}

void gen_out_frame_depth(struct gen_out *out, uint64_t t_ns, uint64_t horizon_ns, const uint8_t *frame,
			 size_t len, bool lost, uint64_t depth)
{
	struct gen_held h = { t_ns, 0, len, 0, NULL, lost, depth };

	/* Nothing held and nothing can come before it: straight out, no copy. */
	if (!out->nheld && t_ns <= horizon_ns) {
		gen_out_write(out, t_ns, frame, len, lost, depth);
		return;
	}
	if (out->nheld == out->capheld && gen_out_grow(out)) {
		out->err = 1;
		return;
	}
	h.frame = gen_out_buffer(out, len, &h.cap);
	if (!h.frame) {
		out->err = 1;
		return;
	}
	h.seq = out->seq++;
	memcpy(h.frame, frame, len);
	gen_held_push(out, h);
	gen_out_release(out, horizon_ns);
}

int gen_out_close(struct gen_out *out)
{
	int rc = 0, err;

	gen_out_release(out, UINT64_MAX);
	free(out->held);
	while (out->nspare)
		free(out->spare[--out->nspare].frame);
	free(out->spare);
	/* A write that failed while the buffer drained sets the stream's error flag even if the last flush works. */
	err = (out->ng ? fflush(out->ng) : pcap_dump_flush(out->dump)) ? errno : 0;
	if (out->write_errno || err || ferror(out->ng ? out->ng : pcap_dump_file(out->dump)))
		rc = gen_fail(out, "writing %s failed: %s", out->o->out,
			      strerror(out->write_errno ? out->write_errno : err ? err : EIO));
	else if (out->err)
		rc = gen_fail(out, "writing %s failed: out of memory", out->o->out);
	if (out->ng) {
		if (fclose(out->ng) && !rc)
			rc = gen_fail(out, "writing %s failed: %s", out->o->out, strerror(errno));
		return rc;
	}
	pcap_dump_close(out->dump);
	pcap_close(out->dead);
	return rc;
}
