/* SPDX-License-Identifier: MIT */
/* A command's output file, replaced whole or not at all: see output.h. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"

/*
 * Big writes: a capture of millions of frames takes far fewer system calls.
 * A buffer of our own, as glibc's setvbuf() ignores the size without one; one
 * output at a time per process (as for the signals below).
 */
static char output_buffer[1 << 20];

/*
 * The temporary file a signal must not leave behind: Ctrl-C, kill or a
 * closed terminal in the middle of a big gen removes it, then the signal
 * takes its usual course. One output at a time per process.
 */
static const int output_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction output_old[sizeof(output_signals) / sizeof(output_signals[0])];
static char output_pending[PATH_MAX];
static volatile sig_atomic_t output_armed;

static void output_on_signal(int sig)
{
	if (output_armed)
		unlink(output_pending);
	raise(sig); /* SA_RESETHAND: delivered with the default action once this returns */
}

static void output_arm(const char *tmp)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = output_on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	snprintf(output_pending, sizeof(output_pending), "%s", tmp);
	output_armed = 1;
	for (size_t i = 0; i < sizeof(output_signals) / sizeof(output_signals[0]); i++) {
		sigaction(output_signals[i], NULL, &output_old[i]);
		/* A signal ignored on purpose (nohup) stays ignored. */
		if (output_old[i].sa_handler != SIG_IGN)
			sigaction(output_signals[i], &sa, NULL);
	}
}

static void output_disarm(void)
{
	for (size_t i = 0; i < sizeof(output_signals) / sizeof(output_signals[0]); i++)
		if (output_old[i].sa_handler != SIG_IGN)
			sigaction(output_signals[i], &output_old[i], NULL);
	output_armed = 0;
}

/* Whether the output (@out, if it @out_exists) is the file open as @in_fd: same device, same inode. */
static bool output_is_input(const struct stat *out, bool out_exists, int in_fd)
{
	struct stat in;

	if (in_fd < 0 || !out_exists || fstat(in_fd, &in))
		return false;
	return in.st_dev == out->st_dev && in.st_ino == out->st_ino;
}

/* The temporary file beside @o->target, with the target's permissions (or a new file's). */
static int output_make_tmp(struct cli_output *o, const struct stat *st, bool exists)
{
	char dir[PATH_MAX], base[PATH_MAX];
	const char *folder;
	mode_t mask;
	int n;

	snprintf(dir, sizeof(dir), "%s", o->target);
	snprintf(base, sizeof(base), "%s", o->target);
	folder = dirname(dir);
	n = snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.XXXXXX", folder, basename(base));
	if (n < 0 || (size_t)n >= sizeof(o->tmp)) {
		cli_error(o->cmd, "cannot write %s: %s", o->path, strerror(ENAMETOOLONG));
		return -1;
	}
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0 && exists)
		/* The file may be writable and its folder not: say which, and why the folder matters. */
		cli_error(o->cmd, "cannot write %s: %s in its folder %s (it is replaced by a new file made there)", o->path,
			  strerror(errno), folder);
	else if (o->fd < 0)
		cli_error(o->cmd, "cannot write %s: %s", o->path, strerror(errno));
	if (o->fd < 0) {
		o->tmp[0] = '\0';
		return -1;
	}
	output_arm(o->tmp);
	o->own_fd = true;
	/*
	 * mkstemp makes 0600 and ours: the target's owner (when we may: root, or our
	 * own group) and mode, or what fopen() would have given a new file. chown first:
	 * it may clear set-id bits that fchmod then sets.
	 */
	if (exists) {
		int r = fchown(o->fd, st->st_uid, st->st_gid);

		if (r)
			r = fchown(o->fd, (uid_t)-1, st->st_gid);
		(void)r; /* else it stays ours, as any file we create: not an error */
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(o->fd, exists ? st->st_mode & 07777 : 0666 & ~mask)) {
		cli_error(o->cmd, "cannot write %s: %s", o->path, strerror(errno));
		cli_output_abort(o);
		return -1;
	}
	return 0;
}

FILE *cli_output_open(struct cli_output *o, const char *cmd, const char *path, int in_fd, const char *in_name)
{
	struct stat st, lst;
	bool exists;
	FILE *f;
	int dup_fd;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->path = path;
	o->fd = -1;
	if (!strcmp(path, "-"))
		exists = !fstat(STDOUT_FILENO, &st);
	else
		exists = !stat(path, &st); /* through symlinks: the file written is what counts */
	if (output_is_input(&st, exists, in_fd)) {
		cli_error(cmd, "%s is the input %s: writing it would destroy what is being read; write to another file",
			  path, in_name);
		return NULL;
	}
	if (!strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
	} else if (exists && !S_ISREG(st.st_mode)) {
		/* A FIFO, a device or a socket cannot be replaced by a rename: written directly. */
		o->fd = open(path, O_WRONLY | O_NOCTTY);
		if (o->fd < 0) {
			cli_error(cmd, "cannot write %s: %s", path, strerror(errno));
			return NULL;
		}
		o->own_fd = true;
	} else {
		/* A file we may not write stays as it is, as fopen() would leave it: no rename around its mode. */
		if (exists && access(path, W_OK)) {
			cli_error(cmd, "cannot write %s: %s", path, strerror(errno));
			return NULL;
		}
		snprintf(o->target, sizeof(o->target), "%s", path);
		/* A symlink to a file: that file is replaced, the link stays. */
		if (exists && !lstat(path, &lst) && S_ISLNK(lst.st_mode) && !realpath(path, o->target))
			snprintf(o->target, sizeof(o->target), "%s", path);
		if (output_make_tmp(o, &st, exists))
			return NULL;
	}
	/* The caller's stream closes its own copy: ours stays open for fsync, and standard output stays open. */
	dup_fd = dup(o->fd);
	f = dup_fd < 0 ? NULL : fdopen(dup_fd, "wb");
	if (!f) {
		cli_error(cmd, "cannot write %s: %s", path, strerror(errno));
		if (dup_fd >= 0)
			close(dup_fd);
		cli_output_abort(o);
		return NULL;
	}
	if (o->fd != STDOUT_FILENO)
		setvbuf(f, output_buffer, _IOFBF, sizeof(output_buffer));
	return f;
}

bool cli_output_commit(struct cli_output *o)
{
	const char *step = NULL;
	int err = 0;

	if (!o->tmp[0]) {
		/* Direct: nothing to rename; a device or FIFO has no data of its own to sync. */
		if (o->own_fd && close(o->fd)) {
			err = errno;
			step = "close";
		}
		o->fd = -1;
	} else {
		/*
		 * fsync before the rename: without it a crash soon after can leave the
		 * new name on a file whose data never reached the disk (ext4 without
		 * auto_da_alloc, XFS), which is the loss this whole dance prevents.
		 * It also reports the write errors a network file system keeps for close.
		 */
		if (fsync(o->fd)) {
			err = errno;
			step = "fsync";
		}
		if (close(o->fd) && !step) {
			err = errno;
			step = "close";
		}
		o->fd = -1;
		if (!step && rename(o->tmp, o->target)) {
			err = errno;
			step = "rename";
		}
		if (step)
			unlink(o->tmp);
		output_disarm();
		o->tmp[0] = '\0';
	}
	if (step)
		cli_error(o->cmd, "writing %s failed (%s): %s", o->path, step, strerror(err));
	return !step;
}

bool cli_output_close(struct cli_output *o, FILE *f)
{
	bool ok = fflush(f) == 0 && !ferror(f);
	int err = errno;

	if (fclose(f) && ok) {
		ok = false;
		err = errno;
	}
	if (!ok) {
		cli_error(o->cmd, "writing %s failed: %s", o->path, strerror(err));
		cli_output_abort(o);
		return false;
	}
	return cli_output_commit(o);
}

void cli_output_abort(struct cli_output *o)
{
	if (o->fd >= 0 && o->own_fd)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0]) {
		unlink(o->tmp);
		output_disarm();
		o->tmp[0] = '\0';
	}
}
