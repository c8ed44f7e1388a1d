/* SPDX-License-Identifier: MIT */
/*
 * rocelab lab predict NN and rocelab lab quiz NN: questions a learner
 * answers by reasoning, not by reading a value off a capture.
 *
 * predict: before the capture exists, the learner picks the lab's parameters
 * (`param` lines of its lab.def: a size, a path MTU, ...) and says what the
 * wire will show. Both go, with the time, into labs/out/NN-name.predict;
 * `lab run` then runs with those parameters, and `lab grade` scores each
 * prediction against the capture that followed (grade.c). A prediction
 * written after the capture is not counted.
 *
 * quiz: the lab's `hidden` parameters are drawn from a seed (random, or a
 * teacher's --seed, so that a class can share one), a capture is made with
 * `rocelab gen` and the learner infers the parameters from its frames. The
 * command line is not shown: it would give the answers. Only the seed is
 * kept (labs/out/NN-name.quiz), and grading draws the parameters again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "grade.h"
#include "lab_def.h"
#include "lab_predict.h"
#include "lab_proc.h"
#include "lab_topo.h"
#include "output.h"

#define LAB_PREDICT_LINE 256

static void lab_out_path(char *buf, size_t n, const struct lab_def *l, const char *ext)
{
	snprintf(buf, n, LAB_OUT "/%s-%s.%s", l->num, l->name, ext);
}

/* ---- the learner's parameters ---------------------------------------------------------------------- */

/* "NAME=VALUE" of a --set, into @l's parameter. false, said, if it is not one of its parameters' values. */
static bool lab_set_param(struct lab_def *l, const char *set)
{
	const char *eq = strchr(set, '=');
	struct lab_param *p = eq ? lab_def_param(l, set, (size_t)(eq - set), false) : NULL;
	uint64_t v;

	if (!eq) {
		cli_error("lab", "--set wants NAME=VALUE, not '%s'", set);
		return false;
	}
	if (!p) {
		char names[256] = "";

		for (size_t i = 0; i < l->nparam; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s (%s)", i ? ", " : "",
				 l->param[i].name, l->param[i].range);
		cli_error("lab", "lab %s has no parameter '%.*s'; %s%s", l->num, (int)(eq - set), set,
			  l->nparam ? "its parameters: " : "it has none", names);
		return false;
	}
	if (!cli_parse_u64(eq + 1, UINT64_MAX, &v) || !lab_param_allows(p, v)) {
		cli_error("lab", "--set %s: %s (%s) takes %s", set, p->name, p->text, p->range);
		return false;
	}
	p->value = v;
	return true;
}

bool lab_set_params(struct lab_def *l, char **sets, size_t nsets)
{
	for (size_t i = 0; i < nsets; i++)
		if (!lab_set_param(l, sets[i]))
			return false;
	return true;
}

int lab_predicted(struct lab_def *l, time_t *made)
{
	char path[256], raw[64];
	uint64_t v = 0;
	char *text;
	int rc = 1;

	lab_out_path(path, sizeof(path), l, "predict");
	if (access(path, F_OK))
		return 0;
	if (!(text = grade_read_answers(path)))
		return -1;
	if (grade_answer(text, "made", &v, raw, sizeof(raw)) != 1) {
		cli_error("lab", "%s does not say when it was made: run 'rocelab lab predict %s' again", path, l->num);
		rc = -1;
	}
	*made = (time_t)v;
	for (size_t i = 0; i < l->nparam && rc > 0; i++) {
		struct lab_param *p = &l->param[i];
		int a = grade_answer(text, p->name, &v, raw, sizeof(raw));

		if (a == 1 && lab_param_allows(p, v)) {
			p->value = v;
		} else if (a) {
			cli_error("lab", "%s: %s '%s' is not one of %s: run 'rocelab lab predict %s' again", path, p->name,
				  raw, p->range, l->num);
			rc = -1;
		}
	}
	free(text);
	return rc;
}

/* ---- lab predict ----------------------------------------------------------------------------------- */

/* One line of the learner's, without its newline; false at the end of input. */
static bool lab_read_line(char *buf, size_t n)
{
	int c;

	if (!fgets(buf, (int)n, stdin))
		return false;
	if (!strchr(buf, '\n'))
		while ((c = getchar()) != EOF && c != '\n')
			; /* the rest of a line too long to be a number */
	buf[strcspn(buf, "\r\n")] = '\0';
	return true;
}

/*
 * The learner's prediction for question @q, into @raw ("" if none): from the
 * answers file's text @given, else a line of standard input (asked again on
 * a terminal if it is not a number). false, said, if it is not a number or
 * the input ends first.
 */
static bool lab_get_prediction(const struct lab_question *q, const char *given, char *raw, size_t n)
{
	uint64_t v;
	char line[LAB_PREDICT_LINE];

	if (given) {
		if (grade_answer(given, q->key, &v, raw, n) >= 0)
			return true;
		cli_error("lab", "prediction %s: '%s' is not a number (decimal, or hex with 0x): nothing recorded",
			  q->key, raw);
		return false;
	}
	for (;;) {
		printf("  %s: %s? ", q->key, q->text);
		fflush(stdout);
		if (!lab_read_line(line, sizeof(line))) {
			printf("\n");
			cli_error("lab", "the predictions ended before question %s: nothing recorded", q->key);
			return false;
		}
		snprintf(raw, n, "%.*s", (int)strcspn(line + strspn(line, " \t"), " \t#"), line + strspn(line, " \t"));
		if (!isatty(STDIN_FILENO))
			printf("%s\n", raw); /* what a terminal would have echoed */
		if (!*raw || (cli_parse_u64(raw, UINT64_MAX, &v) && strlen(raw) == strcspn(raw, " \t")))
			return true;
		if (!isatty(STDIN_FILENO)) {
			cli_error("lab", "prediction %s: '%s' is not a number (decimal, or hex with 0x): nothing recorded",
				  q->key, raw);
			return false;
		}
		printf("  '%s' is not a number (decimal, or hex with 0x); again, or Enter for none\n", raw);
	}
}

static bool lab_write_predictions(const struct lab_def *l, const char *path, time_t now, char (*raw)[64])
{
	struct cli_output o;
	char when[64];
	FILE *f = cli_output_open(&o, "lab", path, -1, NULL);

	if (!f)
		return false;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	fprintf(f, "# rocelab lab predict %s: your parameters and predictions, made before the capture.\n"
		   "# 'rocelab lab run %s' runs with these parameters; 'rocelab lab grade %s' scores the predictions.\n",
		l->num, l->num, l->num);
	fprintf(f, "made: %lld    # %s\n", (long long)now, when);
	for (size_t i = 0; i < l->nparam; i++)
		fprintf(f, "%s: %llu    # %s\n", l->param[i].name, (unsigned long long)l->param[i].value, l->param[i].text);
	for (size_t i = 0, k = 0; i < l->nq; i++)
		if (l->q[i].kind == LAB_Q_PREDICT)
			fprintf(f, "%s: %s    # %s\n", l->q[i].key, raw[k++], l->q[i].text);
	return cli_output_close(&o, f);
}

int lab_predict(struct lab_def *l, const char *answers)
{
	char path[256], raw[LAB_MAX_QUESTIONS][64];
	size_t np = 0, given = 0;
	char *text = NULL;
	time_t now;

	for (size_t i = 0; i < l->nq; i++)
		np += l->q[i].kind == LAB_Q_PREDICT;
	if (!np) {
		cli_error("lab", "lab %s asks no predictions", l->num);
		return CLI_BAD_INPUT;
	}
	if (lab_def_bind(l) || (answers && !(text = grade_read_answers(answers))))
		return CLI_ERR;
	printf("lab %s: %s\n", l->num, l->title);
	printf("predict before you run it, with these parameters (change them with --set NAME=VALUE):\n");
	for (size_t i = 0; i < l->nparam; i++)
		printf("  %s = %llu    %s (%s)\n", l->param[i].name, (unsigned long long)l->param[i].value,
		       l->param[i].text, l->param[i].range);
	printf("your predictions%s:\n", text ? "" : " (a number each; Enter for none)");
	for (size_t i = 0, k = 0; i < l->nq; i++) {
		if (l->q[i].kind != LAB_Q_PREDICT)
			continue;
		if (!lab_get_prediction(&l->q[i], text, raw[k], sizeof(raw[k]))) {
			free(text);
			return CLI_BAD_INPUT;
		}
		if (text)
			printf("  %s: %s? %s\n", l->q[i].key, l->q[i].text, raw[k]);
		given += raw[k++][0] != '\0';
	}
	free(text);
	mkdir("labs", 0755);
	if (mkdir(LAB_OUT, 0755) && errno != EEXIST) {
		cli_error("lab", "cannot create %s: %s", LAB_OUT, strerror(errno));
		return CLI_ERR;
	}
	lab_out_path(path, sizeof(path), l, "predict");
	now = time(NULL);
	if (!lab_write_predictions(l, path, now, raw))
		return CLI_ERR;
	printf("lab %s: %zu of %zu predictions recorded in %s\n", l->num, given, np, path);
	printf("next: rocelab lab run %s (it uses your parameters), then rocelab lab grade %s\n", l->num, l->num);
	return CLI_OK;
}

/* ---- lab quiz -------------------------------------------------------------------------------------- */

/* The hidden parameters that @seed draws, by libc's 48-bit generator (reproducible everywhere). */
static void lab_quiz_draw(struct lab_def *l, uint64_t seed)
{
	unsigned short x[3] = { (unsigned short)seed, (unsigned short)(seed >> 16), (unsigned short)(seed >> 32) };

	for (size_t i = 0; i < l->nhidden; i++) {
		uint64_t r = (uint64_t)nrand48(x) << 31 | (uint64_t)nrand48(x);

		l->hidden[i].value = lab_param_pick(&l->hidden[i], r);
	}
}

static bool lab_quiz_save(const struct lab_def *l, const char *path, uint64_t seed)
{
	struct cli_output o;
	FILE *f = cli_output_open(&o, "lab", path, -1, NULL);

	if (!f)
		return false;
	fprintf(f, "# rocelab lab quiz %s: the quiz's seed, which 'rocelab lab quiz %s --grade' draws its answers from\n"
		   "seed: %llu\n", l->num, l->num, (unsigned long long)seed);
	return cli_output_close(&o, f);
}

/* A blank answers file for the quiz: a line per question. */
static bool lab_quiz_blank(const struct lab_def *l, const char *path)
{
	struct cli_output o;
	FILE *f = cli_output_open(&o, "lab", path, -1, NULL);

	if (!f)
		return false;
	fprintf(f, "# Lab %s quiz: your answers. Write each after its key; numbers in decimal or hex (0x...).\n"
		   "# 'rocelab lab quiz %s --grade' checks them.\n", l->num, l->num);
	for (size_t i = 0; i < l->nq; i++)
		if (l->q[i].kind == LAB_Q_QUIZ)
			fprintf(f, "%s:        # %s\n", l->q[i].key, l->q[i].text);
	return cli_output_close(&o, f);
}

/* Make the quiz's capture: `rocelab gen` with the drawn parameters, its command line and its words not shown. */
static int lab_quiz_make(struct lab_def *l, uint64_t seed, const char *pcap)
{
	char line[LAB_LINE_MAX];
	int null, rc;
	pid_t pid;

	lab_quiz_draw(l, seed);
	if (lab_def_bind(l) ||
	    !lab_line(line, sizeof(line), "%s gen %s " LAB_GEN_ADDR " -o %s", cli_self(), l->quiz, pcap))
		return -1;
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid = lab_spawn(line, null, null);
	if (null >= 0)
		close(null);
	rc = pid < 0 ? -1 : lab_wait(pid);
	if (rc)
		cli_error("lab", "making the quiz's capture failed: rocelab gen exited %d (the lab's 'quiz' line, in %s/lab.def)",
			  rc, l->dir);
	return rc ? -1 : 0;
}

/* The seed kept in the quiz's state file @state into *@seed; false if it holds none. */
static bool lab_quiz_seed(const char *state, uint64_t *seed)
{
	char raw[64], *text = grade_read_answers(state);
	bool ok = text && grade_answer(text, "seed", seed, raw, sizeof(raw)) == 1;

	free(text);
	return ok;
}

static int lab_quiz_new(struct lab_def *l, bool have_seed, uint64_t seed)
{
	char pcap[256], state[256], blank[256];
	uint64_t kept;
	bool same;

	if (!have_seed && getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed)) {
		cli_error("lab", "no random seed: %s (give --seed N)", strerror(errno));
		return CLI_ERR;
	}
	mkdir("labs", 0755);
	if (mkdir(LAB_OUT, 0755) && errno != EEXIST) {
		cli_error("lab", "cannot create %s: %s", LAB_OUT, strerror(errno));
		return CLI_ERR;
	}
	lab_out_path(pcap, sizeof(pcap), l, "quiz.pcap");
	lab_out_path(state, sizeof(state), l, "quiz");
	lab_out_path(blank, sizeof(blank), l, "quiz.txt");
	printf("lab %s quiz: %s\n", l->num, l->title);
	printf("a capture made from parameters this keeps to itself: %s\n", pcap);
	/* The same quiz again (a teacher's seed, run twice) keeps the answers written for it. */
	same = !access(state, F_OK) && !access(blank, F_OK) && lab_quiz_seed(state, &kept) && kept == seed;
	if (lab_quiz_make(l, seed, pcap) || !lab_quiz_save(l, state, seed) || (!same && !lab_quiz_blank(l, blank)))
		return CLI_ERR;
	if (same)
		printf("the same quiz as before (seed %llu): your answers in %s are kept\n", (unsigned long long)seed, blank);
	printf("infer them from its frames:\n");
	for (size_t i = 0; i < l->nq; i++)
		if (l->q[i].kind == LAB_Q_QUIZ)
			printf("  %s: %s\n", l->q[i].key, l->q[i].text);
	printf("write your answers in %s, then: rocelab lab quiz %s --grade\n", blank, l->num);
	return CLI_OK;
}

static int lab_quiz_grade(struct lab_def *l, bool have_seed, uint64_t seed, const char *answers)
{
	char state[256], blank[256], raw[64];
	unsigned got = 0, max = 0;
	char *text;
	int w;

	lab_out_path(state, sizeof(state), l, "quiz");
	lab_out_path(blank, sizeof(blank), l, "quiz.txt");
	if (!have_seed) {
		if (access(state, F_OK)) {
			cli_error("lab", "no quiz to grade (%s): run 'rocelab lab quiz %s' first", state, l->num);
			return CLI_ERR;
		}
		if (!lab_quiz_seed(state, &seed)) {
			cli_error("lab", "%s holds no seed: run 'rocelab lab quiz %s' again", state, l->num);
			return CLI_ERR;
		}
	}
	lab_quiz_draw(l, seed);
	if (lab_def_bind(l) || !(text = grade_read_answers(answers ? answers : blank)))
		return CLI_ERR;
	w = grade_key_width(l, LAB_Q_QUIZ);
	printf("lab %s quiz: your answers (%s)\n", l->num, answers ? answers : blank);
	for (size_t i = 0; i < l->nq; i++) {
		const struct lab_question *q = &l->q[i];
		const struct lab_param *p = lab_def_param(l, q->key, strlen(q->key), true);
		uint64_t v = 0;
		int a;

		if (q->kind != LAB_Q_QUIZ)
			continue;
		max += GRADE_POINTS;
		a = grade_answer(text, q->key, &v, raw, sizeof(raw));
		got += grade_print(q, w, a, a > 0 && v == p->value, raw);
	}
	free(text);
	printf("score %s quiz %u/%u\n", l->num, got, max);
	return CLI_OK;
}

int lab_quiz(struct lab_def *l, bool have_seed, uint64_t seed, bool grade, const char *answers)
{
	if (!l->quiz) {
		cli_error("lab", "lab %s has no quiz", l->num);
		return CLI_BAD_INPUT;
	}
	return grade ? lab_quiz_grade(l, have_seed, seed, answers) : lab_quiz_new(l, have_seed, seed);
}
