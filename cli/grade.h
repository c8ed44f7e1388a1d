/* SPDX-License-Identifier: MIT */
/* rocelab lab grade: the question exercises, graded against the learner's own capture. */
#ifndef ROCELAB_CLI_GRADE_H
#define ROCELAB_CLI_GRADE_H

#include <stdbool.h>

/* Grade @answers against @capture; prints a line per question and "score NN questions GOT/MAX". */
int grade_lab(const char *num, const char *answers, const char *capture);

#endif
