/* SPDX-License-Identifier: MIT */
/* What the benchmark programs share: a monotonic clock, and dying loudly. BN_PROG names the program. */
#ifndef ROCELAB_BENCH_H
#define ROCELAB_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline void bn_die(const char *msg)
{
	fprintf(stderr, "%s: %s\n", BN_PROG, msg);
	abort();
}

/* Zeroed memory, or the program stops: a benchmark has nothing to fall back on. */
static inline void *bn_alloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p)
		bn_die("out of memory");
	return p;
}

/* Seconds on the monotonic clock. */
static inline double bn_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
