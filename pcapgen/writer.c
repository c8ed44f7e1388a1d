/* SPDX-License-Identifier: MIT */
/*
 * The pcap writer of `rocelab gen`: frames through libpcap with nanosecond
 * times, in timestamp order, optionally 802.1Q-tagged. Errors come back in
 * the writer's message buffer (gen_out.msg); nothing here prints.
 */
#include <errno.h>
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

int gen_out_open(struct gen_out *out, const struct gen_opts *o, FILE *f, gen_progress_fn progress)
{
	memset(out, 0, sizeof(*out));
	out->o = o;
	out->progress = progress;
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
	out->next_progress = GEN_PROGRESS_EVERY;
	return 0;
}

/* A frame as a capture on the link shows it; with --vlan, as on a trunk port. */
static void gen_out_write(struct gen_out *out, uint64_t t_ns, const uint8_t *frame, size_t len)
{
	uint8_t tagged[RL_SIMWIRE_MAX_FRAME + 4];
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
	h.ts.tv_sec = (time_t)(t_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(t_ns % 1000000000u);   /* nanoseconds: a nanosecond pcap */
	h.caplen = h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)out->dump, &h, frame);
	if (!out->write_errno && ferror(pcap_dump_file(out->dump)))
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

		gen_out_write(out, h.t_ns, h.frame, h.len);
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

void gen_out_frame(struct gen_out *out, uint64_t t_ns, uint64_t horizon_ns, const uint8_t *frame, size_t len)
{
	struct gen_held h = { t_ns, 0, len, 0, NULL };

	/* Nothing held and nothing can come before it: straight out, no copy. */
	if (!out->nheld && t_ns <= horizon_ns) {
		gen_out_write(out, t_ns, frame, len);
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
	err = pcap_dump_flush(out->dump) ? errno : 0;
	if (out->write_errno || err || ferror(pcap_dump_file(out->dump)))
		rc = gen_fail(out, "writing %s failed: %s", out->o->out,
			      strerror(out->write_errno ? out->write_errno : err ? err : EIO));
	else if (out->err)
		rc = gen_fail(out, "writing %s failed: out of memory", out->o->out);
	pcap_dump_close(out->dump);
	pcap_close(out->dead);
	return rc;
}
