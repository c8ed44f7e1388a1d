/* SPDX-License-Identifier: MIT */
/*
 * A command's output file, written so that no failure loses data (gen -o,
 * rewrite's OUT). A regular file (or a name not yet taken) is written to a
 * temporary file beside it and renamed over it only once all of it is on
 * disk: a full disk, a damaged input or Ctrl-C leaves the old file as it was
 * and no temporary file behind. An output that is not a regular file ('-'
 * for standard output, a FIFO, a device such as /dev/full) cannot be
 * replaced, so it is written directly. A replaced file keeps its mode (and
 * owner where we may set it); through a symlink, the file it points to is
 * replaced; another hard link to it keeps the old content, as with mv. An output that is the input (the same
 * file by any name: another path, a hard link, a symlink) is refused.
 *
 * The caller writes through the FILE it gets and closes it (fclose, or
 * pcap_dump_close for a pcap_dump_fopen over it) after checking its last
 * flush and ferror(); then cli_output_commit() puts the file in place, or
 * cli_output_abort() drops it.
 */
#ifndef ROCELAB_CLI_OUTPUT_H
#define ROCELAB_CLI_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct cli_output {
	const char *cmd;
	const char *path;      /* as the user named it */
	char target[PATH_MAX]; /* what is replaced: @path, through a symlink if it is one */
	char tmp[PATH_MAX];    /* the temporary file beside it; "" when written directly */
	int fd;                /* kept open until commit (the FILE has a copy); -1: none */
	bool own_fd;           /* false for standard output, which stays open */
};

/*
 * Open @path ('-': standard output) for @cmd's output. @in_fd is the input's
 * descriptor (-1: none), named @in_name in the message if the two are one
 * file. The FILE is the caller's to close. NULL after "rocelab CMD: ..." saying why.
 */
FILE *cli_output_open(struct cli_output *o, const char *cmd, const char *path, int in_fd, const char *in_name);

/*
 * After the FILE was flushed without error and closed: make the data durable
 * (fsync) and rename the temporary file over the target. false after
 * "rocelab CMD: writing PATH failed: why"; the target is then untouched.
 */
bool cli_output_commit(struct cli_output *o);

/*
 * For a plain stdio FILE (not a pcap dumper): the last flush checked, @f
 * closed, then cli_output_commit(), or cli_output_abort() after "rocelab CMD:
 * writing PATH failed: why" if any write, the flush or the close failed.
 */
bool cli_output_close(struct cli_output *o, FILE *f);

/* Give up: remove the temporary file (the target is untouched); for direct outputs, close. */
void cli_output_abort(struct cli_output *o);

#endif
