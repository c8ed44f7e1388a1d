/* SPDX-License-Identifier: MIT */
/*
 * explain's reader thread (explain_reader.h). Frames go over in blocks of
 * EXR_BLOCK_FRAMES, so the two threads meet once a block, not once a frame;
 * EXR_BLOCKS blocks let the reader run ahead while the printer catches up.
 * The thread touches the capture and nothing else: the analyzer, the printer
 * and standard output stay with the caller.
 *
 * Decoding is shared. A block goes over as soon as its frames are read. If
 * the caller has another block still to print, the reader then decodes this
 * one from its last frame back, while the caller, reaching it, decodes from
 * its first frame on those the reader has not taken, until they meet; if not,
 * the reader goes on reading and the caller decodes the block. So whichever
 * side is ahead takes on the decoding.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "explain_reader.h"

#define EXR_BLOCK_FRAMES 256
#define EXR_BLOCKS 4
/* Looks at the other side's count before sleeping: waking a thread costs tens of microseconds in a VM. */
#define EXR_SPIN (1u << 20)

/* An item's state: read only, being decoded, decoded. */
enum { EXR_RAW, EXR_BUSY, EXR_DONE };

struct exr_block {
	struct exr_item item[EXR_BLOCK_FRAMES];
	unsigned n;                  /* frames in it */
	bool last;                   /* the reading ended after them */
};

struct exr {
	struct cli_capture *c;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_uint full;            /* blocks filled and not yet given back */
	atomic_bool stop;            /* the caller wants no more */
	atomic_bool sleeping[2];     /* the reader [0], the caller [1] waits on cv for full to change */
	atomic_llong pos;            /* the input's position after the last block read (exr_pos) */
	bool report_pos;             /* keep pos (an lseek a block): only a progress line wants it */
	int end;                     /* cli_capture_next()'s result at the end */
	unsigned in, out;            /* the block being filled; the one being taken */
	unsigned taken;              /* frames of block out handed over */
	bool holding;                /* block out is the caller's */
	struct exr_block block[EXR_BLOCKS];
};

/* Copy @f's bytes into @it, which keeps its buffer from frame to frame. */
static bool exr_copy(struct exr_item *it, const struct cli_frame *f)
{
	if (f->caplen > it->cap) {
		uint8_t *b = realloc(it->buf, f->caplen);

		if (!b)
			return false;
		it->buf = b;
		it->cap = f->caplen;
	}
	memcpy(it->buf, f->data, f->caplen);
	it->f = *f;
	it->f.data = it->buf;
	return true;
}

/* Fill @b with frames, not yet decoded; false once the reading has ended (b->last). */
static bool exr_fill(struct exr *r, struct exr_block *b)
{
	struct cli_frame f;

	b->n = 0;
	b->last = false;
	while (b->n < EXR_BLOCK_FRAMES) {
		struct exr_item *it = &b->item[b->n];
		int got = cli_capture_next(r->c, &f);

		if (got == 1 && !exr_copy(it, &f))
			got = -1;   /* out of memory: reported as where the reading stopped */
		if (got != 1) {
			r->end = got;
			b->last = true;
			return false;
		}
		it->match = cli_capture_match(r->c, &it->f);
		atomic_store_explicit(&it->state, EXR_RAW, memory_order_relaxed);
		b->n++;
	}
	return true;
}

/* Decode @it if nobody has taken it yet; false if somebody had. */
static bool exr_take(struct exr_item *it)
{
	unsigned raw = EXR_RAW;

	if (!atomic_compare_exchange_strong(&it->state, &raw, EXR_BUSY))
		return false;
	it->st = cli_frame_decode(&it->f, &it->p);
	atomic_store(&it->state, EXR_DONE);
	return true;
}

/* The reader's share of a block it has handed over: from the last frame back, until the caller's. */
static void exr_help(struct exr_block *b)
{
	for (unsigned i = b->n; i-- > 0;)
		if (!exr_take(&b->item[i]))
			return;
}

/*
 * Wait while full is @busy (EXR_BLOCKS: the reader, for a free block; 0: the
 * caller, for a filled one), or until stop: spinning first, then on cv.
 * full and sleeping are sequentially consistent, so a side that changes full
 * and then finds nobody sleeping knows the sleeper will see the change.
 */
static void exr_wait(struct exr *r, unsigned busy)
{
	atomic_bool *me = &r->sleeping[busy == 0];

	for (unsigned k = 0; k < EXR_SPIN; k++)
		if (atomic_load(&r->full) != busy || atomic_load(&r->stop))
			return;
	pthread_mutex_lock(&r->mu);
	atomic_store(me, true);
	while (atomic_load(&r->full) == busy && !atomic_load(&r->stop))
		pthread_cond_wait(&r->cv, &r->mu);
	atomic_store(me, false);
	pthread_mutex_unlock(&r->mu);
}

/* After changing full: wake @side (0 the reader, 1 the caller) if it sleeps. */
static void exr_wake(struct exr *r, int side)
{
	if (!atomic_load(&r->sleeping[side]))
		return;
	pthread_mutex_lock(&r->mu);
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

static void *exr_main(void *arg)
{
	struct exr *r = arg;
	struct exr_block *b;
	bool more = true;

	while (more) {
		exr_wait(r, EXR_BLOCKS);
		if (atomic_load(&r->stop))
			break;
		b = &r->block[r->in];
		more = exr_fill(r, b);
		/* The input is the reader's alone (no stdio locks): it says where it stands. */
		if (r->report_pos)
			atomic_store_explicit(&r->pos, (long long)ftello(cli_capture_stream(r->c)),
					      memory_order_relaxed);
		r->in = (r->in + 1) % EXR_BLOCKS;
		atomic_fetch_add(&r->full, 1);
		exr_wake(r, 1);
		/* Reading comes first while the caller has only this block; decode when it has more. */
		if (atomic_load(&r->full) > 1)
			exr_help(b);
	}
	return NULL;
}

struct exr *exr_start(struct cli_capture *c, bool report_pos)
{
	struct exr *r = calloc(1, sizeof(*r));
	sigset_t block, old;
	bool started;

	if (!r)
		return NULL;
	r->c = c;
	r->report_pos = report_pos;
	/*
	 * Only the reader touches the input from now on: its stdio calls need not
	 * lock it (with a second thread running, glibc locks every fread, two a frame).
	 */
	if (cli_capture_stream(c))
		__fsetlocking(cli_capture_stream(c), FSETLOCKING_BYCALLER);
	if (pthread_mutex_init(&r->mu, NULL)) {
		free(r);
		return NULL;
	}
	if (pthread_cond_init(&r->cv, NULL)) {
		pthread_mutex_destroy(&r->mu);
		free(r);
		return NULL;
	}
	atomic_init(&r->pos, -1);
	/* SIGINT and SIGTERM stay with the caller, whose loop they stop: the thread starts with them blocked. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	started = pthread_create(&r->thread, NULL, exr_main, r) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!started) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		free(r);
		return NULL;
	}
	return r;
}

long long exr_pos(struct exr *r)
{
	return atomic_load_explicit(&r->pos, memory_order_relaxed);
}

/* Give block out back to the reader. */
static void exr_release(struct exr *r)
{
	r->out = (r->out + 1) % EXR_BLOCKS;
	r->holding = false;
	atomic_fetch_sub(&r->full, 1);
	exr_wake(r, 0);
}

const struct exr_item *exr_next(struct exr *r, int *end)
{
	for (;;) {
		struct exr_block *b = &r->block[r->out];

		if (r->holding) {
			if (r->taken < b->n) {
				struct exr_item *it = &b->item[r->taken++];

				/* Ours to decode, or the reader's: then wait until it is done. */
				if (!exr_take(it))
					while (atomic_load(&it->state) != EXR_DONE)
						;
				return it;
			}
			if (b->last) {
				*end = r->end;
				return NULL;
			}
			exr_release(r);
			continue;
		}
		exr_wait(r, 0);
		r->holding = true;
		r->taken = 0;
	}
}

void exr_stop(struct exr *r)
{
	if (!r)
		return;
	atomic_store(&r->stop, true);
	pthread_mutex_lock(&r->mu);
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	for (unsigned k = 0; k < EXR_BLOCKS; k++)
		for (unsigned i = 0; i < EXR_BLOCK_FRAMES; i++)
			free(r->block[k].item[i].buf);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
