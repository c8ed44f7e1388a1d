/* SPDX-License-Identifier: MIT */
/* rocelab lab grade: the question exercises, graded against the learner's own capture. */
#ifndef ROCELAB_CLI_GRADE_H
#define ROCELAB_CLI_GRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/rocelab.h"

/* Grade @answers against @capture; prints a line per question and "score NN questions GOT/MAX". */
int grade_lab(const char *num, const char *answers, const char *capture);

/* ---- between grade.c (answers, capture) and grade_labs.c (each lab's questions) ---- */

#define GRADE_MAX_Q 8

struct grade_q {
	const char *key;
	const char *what;
	const char *how; /* where to look, said when the answer is wrong */
	unsigned points;
	bool known;      /* the capture holds the answer */
	uint64_t truth;
};

/* One RoCE frame of the capture, decoded and analyzed (payload pointers cleared). */
struct grade_frame {
	uint64_t no; /* frame number, as Wireshark counts */
	struct rl_pkt p;
	struct rl_annotation a;
};

/* The RoCE frames of a capture; the client is whoever sent the first request. */
struct grade_cap {
	struct grade_frame *f;
	size_t n;
	const struct grade_frame *client; /* NULL if no request at all */
};

struct grade_lab {
	const char *num;
	void (*facts)(const struct grade_cap *c, struct grade_q *q, int n);
	struct grade_q q[GRADE_MAX_Q];
};

extern struct grade_lab grade_labs[];
extern const size_t grade_nlabs;

/* Record the true answer to @key (the first one recorded stands). */
void grade_set(struct grade_q *q, int n, const char *key, uint64_t v);

#endif
