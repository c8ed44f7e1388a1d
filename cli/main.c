/* SPDX-License-Identifier: MIT */
/* rocelab: one command, several subcommands, like git or ip. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rocelab/rocelab.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} cli_commands[] = {
	{ "explain", cli_explain, "print a RoCE capture packet by packet, in RDMA terms" },
	{ "gen", cli_gen, "write a capture of RoCEv2 packets (see rocelab gen --list)" },
	{ "gids", cli_gids, "an interface's RoCE GID table as Soft-RoCE builds it, like OFED's show_gids" },
	{ "lab", cli_lab, "guided labs: two namespaces, real RoCEv2, a capture to study (lab list)" },
	{ "peer", cli_peer, "run RDMA SEND/WRITE/READ between two machines or namespaces, like perftest" },
	{ "realrxe", cli_realrxe, "a real kernel Soft-RoCE (rdma_rxe) endpoint in a small VM, for interop" },
	{ "replay", cli_replay, "send a capture's frames out of an interface, at its pace or faster" },
	{ "rewrite", cli_rewrite, "change addresses, QPNs and PSNs in a capture, keeping ICRCs valid" },
};

#define CLI_NCOMMANDS (sizeof(cli_commands) / sizeof(cli_commands[0]))

static void cli_usage(FILE *f)
{
	fprintf(f, "usage: rocelab COMMAND [options]\n\n"
		   "rocelab shows RoCEv2 (RDMA over Converged Ethernet) on the wire, without RDMA hardware.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < CLI_NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", cli_commands[i].name, cli_commands[i].summary);
	fprintf(f, "\n'rocelab COMMAND --help' describes a command. 'rocelab --version' prints the version.\n"
		   "Try:  rocelab gen demo -o demo.pcap && rocelab explain demo.pcap\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		cli_usage(stderr);
		return CLI_ERR;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		cli_usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rocelab %s (CRC-32: %s)\n", ROCELAB_VERSION, rl_crc32_backend());
		return CLI_OK;
	}
	for (size_t i = 0; i < CLI_NCOMMANDS; i++)
		if (!strcmp(argv[1], cli_commands[i].name))
			return cli_commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "rocelab: unknown command '%s'\n\n", argv[1]);
	cli_usage(stderr);
	return CLI_ERR;
}
