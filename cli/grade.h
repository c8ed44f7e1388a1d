/* SPDX-License-Identifier: MIT */
/* rocelab lab grade: the question exercises, graded against the learner's own capture. */
#ifndef ROCELAB_CLI_GRADE_H
#define ROCELAB_CLI_GRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lab_def.h"
#include "rocelab/rocelab.h"


#define GRADE_POINTS 1u /* per question */

/*
 * Grade @answers against @capture, for the questions of lab @l; prints a line per question,
 * "score NN questions GOT/MAX", then, if the lab asks any, the multiple-choice questions and
 * "score NN why GOT/MAX". Returns a CLI exit status.
 */
int grade_lab(const struct lab_def *l, const char *answers, const char *capture);

/*
 * Do the questions of @l and the fact functions for lab @l->num match one to one? Says each key
 * that has no fact function, and each fact function no question asks for.
 */
bool grade_check(const struct lab_def *l);

/*
 * The answers file @path, whole, as a string (free() it); NULL after a
 * message if it is not a file of at most 1 MiB (or a pipe).
 */
char *grade_read_answers(const char *path);

/*
 * The answer to @key in @text, an answers file's "KEY: VALUE" lines ('#' to
 * the end of a line is a comment): 1 found (*@v), 0 not answered, -1 not a
 * number; @raw gets what was written.
 */
int grade_answer(const char *text, const char *key, uint64_t *v, char *raw, size_t rn);

/*
 * Print question @q's line, its key @w wide, for an answer that
 * grade_answer() returned @a for (@raw), @right or not; the points it scores. A wrong answer gets the
 * question's hint, never the value.
 */
unsigned grade_print(const struct lab_question *q, int w, int a, bool right, const char *raw);

/* The width of the key column for @l's questions of kind @kind: at least 3. */
int grade_key_width(const struct lab_def *l, enum lab_qkind kind);

/* Has every lab with fact functions a definition among the @n labs numbered @nums? Says each that has none. */
bool grade_check_labs(const char (*nums)[3], size_t n);

/* ---- between grade.c (answers, capture) and grade_labs.c (how each question's answer is read) ---- */

/* One RoCE frame of the capture, decoded and analyzed (payload pointers cleared). */
struct grade_frame {
	uint64_t no; /* frame number, as Wireshark counts */
	uint64_t ns; /* its time stamp, in ns */
	struct rl_pkt p;
	struct rl_annotation a;
	const struct rl_cm *cm; /* the CM message it carries to QP1, decoded (rl_cm_decode); NULL if none */
};

/*
 * One line of a TCP connection exchange in the capture, ibv_rc_pingpong's
 * "LID:QPN:PSN:GID" (rocelab peer's too): what one end told the other before
 * the first RoCE frame.
 */
struct grade_line {
	uint64_t no;    /* the frame that carries it */
	struct rl_pkt p; /* its addresses (payload pointers cleared) */
	uint32_t qpn, psn;
	uint8_t gid[16];
};

/* The RoCE frames of a capture; the client is whoever sent the first request. */
struct grade_cap {
	struct grade_frame *f;
	size_t n;
	const struct grade_frame *client; /* NULL if no request at all */
	struct grade_line *x;             /* the exchange lines, in the capture's order */
	size_t nx;
};

/* A frame of the kind a lab is about, for `needs` (e.g. a PSN sequence error NAK). */
typedef bool grade_pred_fn(const struct grade_cap *c, const struct grade_frame *f);

/* What a lab's capture must hold: its `needs` word, the test, and what it is in words. */
struct grade_need {
	const char *name;
	grade_pred_fn *has;
	const char *what;
};

extern const struct grade_need grade_needs[];
extern const size_t grade_nneeds;

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

/*
 * The right option of multiple-choice question @key of lab @lab: @letter
 * ('a', 'b', ...), or, where the capture shows which claim holds, @fact,
 * which reads the letter off it (and @letter is 0). Not in lab.def: that is
 * the learner's copy.
 */
struct grade_choice {
	const char *lab;
	const char *key;
	char letter;
	grade_fact_fn *fact;
};

extern const struct grade_choice grade_choices[];
extern const size_t grade_nchoices;

#endif
