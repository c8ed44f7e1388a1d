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

#define LAB_MAX_STEPS 6
#define LAB_MAX_QUESTIONS 8
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

/* One question of the answers file: "KEY: VALUE". */
struct lab_question {
	const char *key;
	const char *text; /* what it asks, as the grader says it */
	const char *hint; /* where to look, said when the answer is wrong */
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
	char *text_; /* the file, which the strings above point into */
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

#endif
