/* SPDX-License-Identifier: MIT */
/* rocelab lab: child processes (lab_proc.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "lab_proc.h"

extern char **environ;

volatile sig_atomic_t lab_interrupted;

void lab_on_signal(int sig)
{
	lab_interrupted = sig;
}

int lab_words(char *line, char **argv, int max)
{
	int n = 0;

	for (char *w = strtok(line, " "); w; w = strtok(NULL, " ")) {
		if (n == max - 1)
			return -1;
		argv[n++] = w;
	}
	argv[n] = NULL;
	return n;
}

/* Cut short, a command line would run something other than what was printed: refuse it instead. */
static bool lab_fits(const char *line, int len, size_t n)
{
	if (len >= 0 && (size_t)len < n)
		return true;
	cli_error("lab", "a command line longer than %zu bytes, not run: %.60s...", n - 1, line);
	return false;
}

bool lab_line(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return lab_fits(buf, len, n);
}

bool lab_append(char *buf, size_t n, const char *fmt, ...)
{
	size_t used = strnlen(buf, n);
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = used < n ? vsnprintf(buf + used, n - used, fmt, ap) : -1;
	va_end(ap);
	return lab_fits(buf, len < 0 ? -1 : (int)(used + (size_t)len), n);
}

pid_t lab_spawn(const char *line, int out, int err)
{
	char buf[LAB_LINE_MAX], *argv[LAB_LINE_WORDS + 1];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc, n;

	if (!lab_fits(line, (int)strnlen(line, sizeof(buf)), sizeof(buf)))
		return -1;
	memcpy(buf, line, strlen(line) + 1);
	n = lab_words(buf, argv, LAB_LINE_WORDS + 1);
	if (n < 0)
		cli_error("lab", "a command line of more than %d words, not run: %.60s...", LAB_LINE_WORDS, line);
	if (n <= 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	if (out >= 0)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	if (err >= 0)
		posix_spawn_file_actions_adddup2(&fa, err, 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		cli_error("lab", "cannot run %s: %s", argv[0], strerror(rc));
		return -1;
	}
	return pid;
}

int lab_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1;
		if (lab_interrupted) {
			kill(pid, SIGTERM);
			waitpid(pid, &st, 0);
			return -1;
		}
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int lab_cmd(bool loud, const char *fmt, ...)
{
	char line[LAB_LINE_MAX];
	va_list ap;
	int null = -1, rc, len;
	pid_t pid;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!lab_fits(line, len, sizeof(line)))
		return -1;
	printf("  + %s\n", line);
	fflush(stdout);
	if (!loud)
		null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid = lab_spawn(line, null, null);
	if (null >= 0)
		close(null);
	rc = pid < 0 ? -1 : lab_wait(pid);
	return rc;
}

bool lab_wait_text(const char *path, const char *text, unsigned ms)
{
	char buf[4096];

	for (unsigned t = 0; t < ms && !lab_interrupted; t += 50) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = '\0';
		if (strstr(buf, text))
			return true;
		usleep(50000);
	}
	return false;
}
