/* SPDX-License-Identifier: MIT */
/* rocelab lab grade: the question exercises, graded against the learner's own capture. */
#ifndef ROCELAB_CLI_GRADE_H
#define ROCELAB_CLI_GRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/rocelab.h"

struct lab_def; /* lab_def.h */

/*
 * Grade @answers against @capture, for the questions of lab @l; prints a line per question and
 * "score NN questions GOT/MAX". Returns a CLI exit status.
 */
int grade_lab(const struct lab_def *l, const char *answers, const char *capture);

/*
 * Do the questions of @l and the fact functions for lab @l->num match one to one? Says each key
 * that has no fact function, and each fact function no question asks for.
 */
bool grade_check(const struct lab_def *l);

/* Has every lab with fact functions a definition among the @n labs numbered @nums? Says each that has none. */
bool grade_check_labs(const char (*nums)[3], size_t n);

/* ---- between grade.c (answers, capture) and grade_labs.c (how each question's answer is read) ---- */

/* One RoCE frame of the capture, decoded and analyzed (payload pointers cleared). */
struct grade_frame {
	uint64_t no; /* frame number, as Wireshark counts */
	struct rl_pkt p;
	struct rl_annotation a;
	const struct rl_cm *cm; /* the CM message it carries to QP1, decoded (rl_cm_decode); NULL if none */
};

/* The RoCE frames of a capture; the client is whoever sent the first request. */
struct grade_cap {
	struct grade_frame *f;
	size_t n;
	const struct grade_frame *client; /* NULL if no request at all */
};

/* The true answer to one question, read off @c into *@v; false if the capture does not show it. */
typedef bool grade_fact_fn(const struct grade_cap *c, uint64_t *v);

/* How the answer to question @key of lab @lab is read off a capture. */
struct grade_fact {
	const char *lab;
	const char *key;
	grade_fact_fn *fact;
};

extern const struct grade_fact grade_facts[];
extern const size_t grade_nfacts;

#endif
