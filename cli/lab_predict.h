/* SPDX-License-Identifier: MIT */
/* rocelab lab predict and rocelab lab quiz: questions answered by reasoning (lab_predict.c). */
#ifndef ROCELAB_CLI_LAB_PREDICT_H
#define ROCELAB_CLI_LAB_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct lab_def;

/* Set @l's parameters from @sets ("NAME=VALUE", --set's); false (said) if one is not one of its values. */
bool lab_set_params(struct lab_def *l, char **sets, size_t nsets);

/*
 * Record the learner's parameters (as lab_set_params() left them) and
 * predictions (from the answers file @answers, or asked one by one on
 * standard input) in labs/out/NN-name.predict. A CLI exit status.
 */
int lab_predict(struct lab_def *l, const char *answers);

/*
 * Set @l's parameters to those of its recorded predictions, and *@made to
 * when they were made: 1, or 0 if there are none (the defaults stay), -1 (said) if the record is broken.
 */
int lab_predicted(struct lab_def *l, time_t *made);

/*
 * A new quiz (its capture, its seed kept, a blank answers file), from @seed
 * if @have_seed; or, if @grade, the answers (@answers, or the blank file)
 * graded against the parameters the kept seed (or @seed) draws.
 */
int lab_quiz(struct lab_def *l, bool have_seed, uint64_t seed, bool grade, const char *answers);

#endif
