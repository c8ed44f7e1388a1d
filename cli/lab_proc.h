/* SPDX-License-Identifier: MIT */
/*
 * rocelab lab: the commands a lab runs, as child processes. Each is one
 * command line, split on spaces, run without a shell, so what is printed is
 * what a learner can type.
 */
#ifndef ROCELAB_CLI_LAB_PROC_H
#define ROCELAB_CLI_LAB_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The signal (SIGINT, SIGTERM) that interrupted the lab, 0 if none; set by lab_on_signal. */
extern volatile sig_atomic_t lab_interrupted;

/* A signal handler that records the signal in lab_interrupted. */
void lab_on_signal(int sig);

/* The longest command line a lab runs, in bytes with its NUL, and in words. */
#define LAB_LINE_MAX 1024
#define LAB_LINE_WORDS 63

/*
 * Split @line on spaces into @argv (at most @max - 1 words, NULL after them); @line is modified.
 * Returns the count, or -1 (no message) if @line has more words than that.
 */
int lab_words(char *line, char **argv, int max);

/* Format a command line into @buf of @n bytes; false (said) if it does not fit, rather than cut it. */
bool lab_line(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, appended to the command line already in @buf. */
bool lab_append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Start a command line; stdout and stderr go to @out/@err (-1: inherited). The child's pid,
 * -1 (said) if it cannot run or is longer than LAB_LINE_MAX bytes or LAB_LINE_WORDS words.
 */
pid_t lab_spawn(const char *line, int out, int err);

/* Exit status of @pid (128 + signal if killed); -1 if the wait was interrupted (the child is then stopped). */
int lab_wait(pid_t pid);

/*
 * Run a command, printed first ("  + ..."); its output is kept quiet unless @loud. Its exit status,
 * -1 if none (-1, said and not run, if it is longer than LAB_LINE_MAX bytes or LAB_LINE_WORDS words).
 */
int lab_cmd(bool loud, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Wait until the file @path contains @text, at most @ms milliseconds; false on timeout or interruption. */
bool lab_wait_text(const char *path, const char *text, unsigned ms);

#endif
