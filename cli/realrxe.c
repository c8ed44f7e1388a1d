/* SPDX-License-Identifier: MIT */
/*
 * rocelab realrxe: a real kernel Soft-RoCE endpoint in a small VM. The work
 * (Debian packages, an initramfs, qemu, a tap in a namespace) is a shell
 * script's, realrxe/realrxe.sh; this finds it and hands over.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Beside the binary in the source tree (build/rocelab), or under PREFIX/share once installed. */
static const char *const realrxe_places[] = { "../realrxe/realrxe.sh", "../share/rocelab/realrxe/realrxe.sh" };

static bool realrxe_find(char *path, size_t n)
{
	char self[PATH_MAX];
	const char *env = getenv("ROCELAB_REALRXE"), *dir;

	if (env && *env) {
		snprintf(path, n, "%s", env);
		return !access(path, R_OK);
	}
	snprintf(self, sizeof(self), "%s", cli_self());
	dir = dirname(self);
	for (size_t i = 0; i < sizeof(realrxe_places) / sizeof(realrxe_places[0]); i++) {
		snprintf(path, n, "%s/%s", dir, realrxe_places[i]);
		if (!access(path, R_OK))
			return true;
	}
	return false;
}

int cli_realrxe(int argc, char **argv)
{
	char path[PATH_MAX + 64];
	char **args = calloc((size_t)argc + 2, sizeof(char *));

	if (!args)
		return CLI_ERR;
	if (!realrxe_find(path, sizeof(path))) {
		cli_error("realrxe", "cannot find realrxe.sh beside %s (set ROCELAB_REALRXE to its path)", cli_self());
		free(args);
		return CLI_ERR;
	}
	args[0] = "bash";
	args[1] = path;
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	execvp("bash", args);
	cli_error("realrxe", "cannot run bash: %s", strerror(errno));
	free(args);
	return CLI_ERR;
}
