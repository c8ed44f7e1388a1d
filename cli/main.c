/* SPDX-License-Identifier: MIT */
/* rocelab: one command, several subcommands, like git or ip. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rocelab/rocelab.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	bool own_stdout;        /* it sets standard output's buffering itself (C11 7.21.5.6: once, before output) */
} cli_commands[] = {
	{ "explain", cli_explain, "print a RoCE capture packet by packet, in RDMA terms", false },
	{ "gen", cli_gen, "write a capture of RoCEv2 packets (see rocelab gen --list)", false },
	{ "gids", cli_gids, "an interface's RoCE GID table as Soft-RoCE builds it, like OFED's show_gids", false },
	{ "lab", cli_lab, "guided labs: two namespaces, real RoCEv2, a capture to study (lab list)", true },
	{ "peer", cli_peer, "run RDMA SEND/WRITE/READ between two machines or namespaces, like perftest", false },
	{ "realrxe", cli_realrxe, "a real kernel Soft-RoCE (rdma_rxe) endpoint in a small VM, for interop", false },
	{ "report", cli_report, "draw a capture as one HTML page: ladders, PSN-time and throughput graphs", false },
	{ "replay", cli_replay, "send a capture's frames out of an interface, at its pace or faster", false },
	{ "rewrite", cli_rewrite, "change addresses, QPNs and PSNs in a capture, keeping ICRCs valid", false },
	{ "switch", cli_switch, "a user-space switch between interfaces: line rate, queue, RED/ECN marking", false },
};

#define CLI_NCOMMANDS (sizeof(cli_commands) / sizeof(cli_commands[0]))

static void cli_usage(FILE *f)
{
	fprintf(f, "usage: rocelab COMMAND [options]\n\n"
		   "rocelab shows RoCEv2 (RDMA over Converged Ethernet) on the wire, without RDMA hardware.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < CLI_NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", cli_commands[i].name, cli_commands[i].summary);
	fprintf(f, "\n'rocelab help COMMAND' (or 'rocelab COMMAND --help') describes a command.\n"
		   "'rocelab --version' prints the version.\n"
		   "Try:  rocelab gen demo -o demo.pcap && rocelab explain demo.pcap\n");
}

static void cli_version(void)
{
	printf("rocelab %s (CRC-32: %s)\n", ROCELAB_VERSION, rl_crc32_backend());
}

static int cli_find(const char *name)
{
	for (size_t i = 0; i < CLI_NCOMMANDS; i++)
		if (!strcmp(name, cli_commands[i].name))
			return (int)i;
	fprintf(stderr, "rocelab: unknown command '%s'\n\n", name);
	cli_usage(stderr);
	return -1;
}

/* Run what argv asks for; the exit status. */
static int cli_dispatch(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		cli_usage(stderr);
		return CLI_ERR;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || (!strcmp(argv[1], "help") && argc == 2)) {
		cli_usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		cli_version();
		return CLI_OK;
	}
	/* rocelab help CMD: CMD's own --help, as git help CMD. */
	if (!strcmp(argv[1], "help")) {
		char *help[] = { argv[2], "--help", NULL };

		if (argc > 3) {
			fprintf(stderr, "rocelab help: one command at a time ('rocelab help %s')\n", argv[2]);
			return CLI_ERR;
		}
		i = cli_find(argv[2]);
		return i < 0 ? CLI_ERR : cli_commands[i].run(2, help);
	}
	i = cli_find(argv[1]);
	if (i < 0)
		return CLI_ERR;
	/* Every command's --version is the one version: the commands are one program. */
	if (argc == 3 && !strcmp(argv[2], "--version")) {
		cli_version();
		return CLI_OK;
	}
	return cli_commands[i].run(argc - 1, argv + 1);
}

/*
 * What was printed must have reached standard output: a full disk or a closed
 * descriptor under `rocelab gen --help >/dev/full` is an error, as for
 * coreutils. A command that failed has said why already.
 */
static int cli_check_stdout(int argc, char **argv, int rc)
{
	int err = fflush(stdout) ? errno : 0;
	bool cmd = argc > 1 && argv[1][0] != '-';

	if ((err || ferror(stdout)) && rc != CLI_ERR) {
		fprintf(stderr, "rocelab%s%s: write error%s%s\n", cmd ? " " : "", cmd ? argv[1] : "", err ? ": " : "",
			err ? strerror(err) : "");
		return CLI_ERR;
	}
	return rc;
}

/*
 * Off a terminal, standard output gets a buffer that holds any command's
 * --help whole: a write that fails inside printf leaves only the stream's
 * error flag, not its errno, so a full disk could be named only as "write
 * error". Held to the end, the text fails in cli_check_stdout()'s fflush,
 * which says why. A terminal keeps its line buffering. glibc ignores the
 * size unless given the buffer (output.c says the same).
 */
#define CLI_STDOUT_BUFFER (64 * 1024)

static bool cli_owns_stdout(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < CLI_NCOMMANDS; i++)
		if (!strcmp(argv[1], cli_commands[i].name))
			return cli_commands[i].own_stdout;
	return false;
}

int main(int argc, char **argv)
{
	static char out[CLI_STDOUT_BUFFER];

	if (!isatty(STDOUT_FILENO) && !cli_owns_stdout(argc, argv))
		setvbuf(stdout, out, _IOFBF, sizeof(out));
	return cli_check_stdout(argc, argv, cli_dispatch(argc, argv));
}
