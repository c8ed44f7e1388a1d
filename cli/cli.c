/* SPDX-License-Identifier: MIT */
/* What every subcommand uses: its messages' form, and where the binary lies. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rocelab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool cli_dry_parse(void)
{
	const char *v = getenv("ROCELAB_DRY_PARSE");

	return v && *v;
}

const char *cli_self(void)
{
	static char exe[4096];
	ssize_t n;

	if (!exe[0]) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		if (n <= 0)
			snprintf(exe, sizeof(exe), "rocelab");
	}
	return exe;
}
