/* SPDX-License-Identifier: MIT */
/*
 * explain's second core: a thread that reads a capture file and runs the
 * capture filter, while the caller analyses and prints; the two share the
 * decoding, whichever has time for it. Frames
 * come back in file order with the decoder's result, so the output is that of
 * the single-threaded loop, byte for byte. Only for a file read to its end:
 * live input (a pipe, -l) and -c N keep the plain loop, which reads no frame
 * it does not show.
 */
#ifndef ROCELAB_CLI_EXPLAIN_READER_H
#define ROCELAB_CLI_EXPLAIN_READER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "capture.h"
#include "rocelab/rocelab.h"

struct exr_item {
	atomic_uint state;      /* decoded yet? (explain_reader.c) */
	struct cli_frame f;     /* f.data points into buf */
	bool match;             /* the capture filter's verdict (true without one) */
	enum rl_status st;      /* cli_frame_decode()'s result */
	struct rl_pkt p;        /* its pointers point into buf too */
	uint8_t *buf;
	size_t cap;
};

struct exr;

/*
 * Start reading @c on a thread; NULL if that cannot be done (the caller reads
 * it itself). With @report_pos the reader keeps exr_pos() up to date.
 */
struct exr *exr_start(struct cli_capture *c, bool report_pos);

/*
 * The next frame, valid until the next call; NULL at the end, with *@end
 * set to cli_capture_next()'s last result (0: the end, -1: damaged).
 */
const struct exr_item *exr_next(struct exr *r, int *end);

/* How far into the input the reader has got, in bytes (-1 if unknown or not asked for): for a progress line. */
long long exr_pos(struct exr *r);

/* Stop the thread (it may have read ahead) and free everything. */
void exr_stop(struct exr *r);

#endif
