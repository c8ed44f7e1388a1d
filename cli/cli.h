/* SPDX-License-Identifier: MIT */
/*
 * The rocelab command: its subcommands' entry points, exit statuses and the
 * two things every subcommand uses. What only some use has its own header:
 * capture.h (reading captures), json.h (the JSON writer), args.h (option arguments).
 */
#ifndef ROCELAB_CLI_H
#define ROCELAB_CLI_H

#include <stdbool.h>

/* Each subcommand: argv[0] is its own name; returns the process exit status. */
int cli_explain(int argc, char **argv);
int cli_gen(int argc, char **argv);
int cli_gids(int argc, char **argv);
int cli_lab(int argc, char **argv);
int cli_peer(int argc, char **argv);
int cli_realrxe(int argc, char **argv);
int cli_replay(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_rewrite(int argc, char **argv);
int cli_switch(int argc, char **argv);

/* explain --compare A B: the two captures' profiles side by side (compare.c). */
int cli_compare(const char *a, const char *b);

/*
 * explain --layout HDR: the header's bit layout from the field table, as text,
 * SVG or one JSON line per field, to standard output or to @path if not NULL
 * (layout.c); an opcode instead of HDR: the layers of its frames. HDR "list"
 * lists the headers.
 */
enum cli_layout_form { CLI_LAYOUT_TEXT, CLI_LAYOUT_SVG, CLI_LAYOUT_JSON };
int cli_layout(const char *name, enum cli_layout_form form, const char *path);

/*
 * Exit statuses, one scheme for every subcommand: 0 success, 1 the input had
 * problems, 2 usage or I/O error (a file that cannot be read or written, a
 * full disk; standard output's write errors are checked once, in main.c).
 */
enum { CLI_OK = 0, CLI_BAD_INPUT = 1, CLI_ERR = 2 };

/* Units the CLI's commands share (core's own are private to it). */
#define CLI_NS_PER_S 1000000000ull
#define CLI_ETH_HDR_LEN 14u       /* Ethernet II without a VLAN tag: destination, source, EtherType */

/* Print "rocelab CMD: message" to stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Whether ROCELAB_DRY_PARSE is set in the environment (tests/docs/commands.sh):
 * then each command parses and checks its command line as always, and exits
 * 0 just before it would read, write, send or start anything, so that every
 * command line the documentation shows can be checked anywhere, in a moment.
 */
bool cli_dry_parse(void);

/* The rocelab binary, by absolute path (children run it in namespaces; its data lies beside it). */
const char *cli_self(void);

#endif
