/* SPDX-License-Identifier: MIT */
/*
 * rocelab lab: a lab's definition, read from labs/NN-name/lab.def at run
 * time (the format is in labs/README.md). It is the one place a lab is
 * written down: its title, its steps, the capture `rocelab gen` makes in
 * their place, and its questions. What C keeps of a lab is how the answers
 * are read off a capture (grade_labs.c).
 */
#ifndef ROCELAB_CLI_LAB_DEF_H
#define ROCELAB_CLI_LAB_DEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a lab's run writes its capture and the learner's records, under the working folder. */
#define LAB_OUT "labs/out"

#define LAB_MAX_STEPS 6
#define LAB_MAX_QUESTIONS 20
/* A multiple-choice question's options, lettered a, b, c, ...: at least 2, at most this many. */
#define LAB_MAX_OPTIONS 6
#define LAB_MAX_PARAMS 4
/* A value has at most this many bytes; one that becomes a command line (gen, server, client, replay) this many words. */
#define LAB_DEF_MAX_VALUE 400
#define LAB_DEF_MAX_WORDS 32

/* One step: a peer pair (server in rl-b, client in rl-a), or frames of `rocelab gen` replayed. */
struct lab_step {
	const char *what;
	const char *server; /* peer options of the server ("" for none); NULL: a replay step */
	const char *client; /* peer options of the client (its address is added) */
	const char *replay; /* replay step: `rocelab gen` arguments */
	bool fails;         /* the client's error is the lesson */
	bool rping;         /* `compat rping`: server and client are rping's own flags (peer --compat rping) */
	const char *perftest; /* `compat ib_send_bw` (a perftest tool): server and client are its own flags */
};

/*
 * What a question asks of the learner: to read a fact off the capture, to
 * predict it before the capture exists (`rocelab lab predict`), to infer
 * a parameter that `rocelab lab quiz` chose and kept to itself, or to pick
 * which of a few claims is why the wire looks as it does (a `choice`).
 */
enum lab_qkind { LAB_Q_READ, LAB_Q_PREDICT, LAB_Q_QUIZ, LAB_Q_CHOICE };

/* One question of the answers file: "KEY: VALUE". */
struct lab_question {
	const char *key;
	const char *text; /* what it asks, as the grader says it */
	const char *hint; /* where to look (or, for a prediction, how to reason), said when the answer is wrong */
	enum lab_qkind kind;
	const char *option[LAB_MAX_OPTIONS]; /* a choice's claims, lettered a, b, ... in order */
	size_t noption;
};

/*
 * A number a lab's lines use as {NAME}: a `param` the learner may choose when
 * predicting (it has a default), or a `hidden` one a quiz draws.
 */
struct lab_param {
	const char *name;
	const char *range; /* "MIN..MAX" or "A,B,C" */
	const char *text;  /* what it is */
	uint64_t def;      /* `param` only */
	uint64_t value;    /* what {NAME} becomes when the lab is bound */
};

struct lab_def {
	char num[3];    /* "06" */
	char name[64];  /* "acks-msn-credits" */
	char dir[4096]; /* its folder */
	const char *title;
	unsigned mtu; /* of the veth */
	const char *gen;  /* without namespaces: the capture comes from `rocelab gen` with these arguments */
	const char *next; /* what to look at in the capture */
	struct lab_step steps[LAB_MAX_STEPS];
	size_t nsteps;
	struct lab_question q[LAB_MAX_QUESTIONS];
	size_t nq;
	struct lab_param param[LAB_MAX_PARAMS];   /* the learner's to choose, before predicting */
	size_t nparam;
	struct lab_param hidden[LAB_MAX_PARAMS];  /* the quiz's to draw */
	size_t nhidden;
	const char *needs; /* what a capture of this lab holds (grade_needs[]' names); NULL: anything */
	bool exchange;     /* `capture exchange`: the capture holds each step's TCP connection exchange too */
	const char *quiz; /* `rocelab gen` arguments of the quiz's capture, with {hidden} parameters; NULL: no quiz */
	char *text_;  /* the file, which the strings above point into */
	char *bound_; /* the strings with their {NAME}s replaced (lab_def_bind) */
};

/*
 * The labs folder, into @dir: $ROCELAB_LABS, else labs/ beside the binary's
 * folder (the source tree: build/rocelab) or share/rocelab/labs (installed
 * under PREFIX). false, with a message, if there is none.
 */
bool lab_def_root(char *dir, size_t n);

/*
 * The lab folders (NN-name) of @root, sorted, into @names (at most @max);
 * their count, or -1 (said) if @root cannot be read, holds more, or two
 * share a number.
 */
int lab_def_folders(const char *root, char (*names)[64], int max);

/* Read @root/@folder/lab.def into @l. 0, or -1 with a message naming the file and line. */
int lab_def_load(struct lab_def *l, const char *root, const char *folder);

void lab_def_free(struct lab_def *l);

/* Is @v a value @p allows (its range or its list)? */
bool lab_param_allows(const struct lab_param *p, uint64_t v);

/* The value of @p that the random number @r picks: one of its list, or one in its range. */
uint64_t lab_param_pick(const struct lab_param *p, uint64_t r);

/* The parameter called @name (@len bytes) among @l's params and, if @hidden, its hidden ones; NULL if none. */
struct lab_param *lab_def_param(struct lab_def *l, const char *name, size_t len, bool hidden);

/*
 * Replace every {NAME} in the lab's commands and texts by its parameter's
 * value (param[].value, hidden[].value). Call it once, after setting the
 * values. 0, or -1 (said).
 */
int lab_def_bind(struct lab_def *l);

#endif
