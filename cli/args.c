/* SPDX-License-Identifier: MIT */
/* Option arguments, parsed one way with the standard messages: see args.h. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "rocelab/dcqcn.h"
#include "rocelab/simwire.h"

bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	/* Base 10 unless 0x: a leading 0 is not octal ("-s 010" is ten bytes). */
	v = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

bool cli_arg_u64(const char *cmd, const char *opt, const char *arg, uint64_t min, uint64_t max, const char *need,
		 uint64_t *out)
{
	uint64_t v;

	if (cli_parse_u64(arg, max, &v) && v >= min) {
		*out = v;
		return true;
	}
	if (need)
		cli_error(cmd, "%s needs %s, not '%s'", opt, need, arg);
	else
		cli_error(cmd, "%s wants %" PRIu64 "..%" PRIu64 ", not '%s'", opt, min, max, arg);
	return false;
}

int cli_arg_choice(const char *cmd, const char *opt, const char *arg, const char *const *names, size_t n)
{
	char list[256] = "";
	size_t used = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return (int)i;
	for (size_t i = 0; i < n && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ",
					 names[i]);
	cli_error(cmd, "%s wants %s, not '%s'", opt, list, arg);
	return -1;
}

int cli_opt_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		cli_error(cmd, "option %s needs a value", argv[optind - 1]);
	else
		cli_error(cmd, "unknown option '%s' (see rocelab %s --help)", argv[optind - 1], cmd);
	return CLI_ERR;
}

#define CLI_MAX_KB (64 * 1024)
#define CLI_BPS_PER_GBPS 1e9

bool cli_arg_kb(const char *cmd, const char *opt, const char *arg, uint32_t min_kb, uint32_t *bytes)
{
	uint64_t v;

	if (!cli_arg_u64(cmd, opt, arg, min_kb, CLI_MAX_KB, min_kb ? "KB (1024 bytes) from 1 to 65536"
								  : "KB (1024 bytes) from 0 to 65536", &v))
		return false;
	*bytes = (uint32_t)v * RL_BOTTLENECK_KB;
	return true;
}

bool cli_arg_pmax(const char *cmd, const char *arg, double *pmax)
{
	char *end;
	double p = strtod(arg, &end);

	if (*arg && !*end && p >= 0 && p <= 1) {
		*pmax = p;
		return true;
	}
	cli_error(cmd, "--pmax is a probability from 0 to 1 (DCQCN's is 0.01), not '%s'", arg);
	return false;
}

bool cli_arg_gbps(const char *cmd, const char *opt, const char *arg, double min_gbps, double max_gbps,
		  uint64_t *bps)
{
	char *end;
	double g;

	errno = 0;
	g = strtod(arg, &end);
	/* NaN fails both comparisons; strtod's leading blanks are not a number either. */
	if (errno || end == arg || *end || isspace((unsigned char)*arg) || !(g >= min_gbps && g <= max_gbps)) {
		cli_error(cmd, "%s needs Gbit/s from %g to %g (0.5 is 500 Mb/s), not '%s'", opt, min_gbps, max_gbps,
			  arg);
		return false;
	}
	*bps = (uint64_t)(g * CLI_BPS_PER_GBPS + 0.5);
	return true;
}

bool cli_arg_cnp_interval(const char *cmd, const char *arg, uint64_t *ns)
{
	uint64_t us;

	if (!cli_arg_u64(cmd, "--cnp-interval", arg, 1, CLI_CNP_INTERVAL_MAX_US, NULL, &us))
		return false;
	*ns = us * 1000;
	return true;
}

/* The notification point's name among the reaction point's, which --cnp-interval sets. */
#define CLI_NP_NAME "min_time_between_cnps"

/* The table of --dcqcn list: a row per parameter, the paper's value beside a ConnectX's. */
static void cli_dcqcn_list(void)
{
	size_t n;
	const struct rl_dcqcn_param *t = rl_dcqcn_param_table(&n);
	struct rl_dcqcn_params paper;
	char range[48];
	const char *name, *why;

	rl_dcqcn_params_default(&paper);
	printf("DCQCN's reaction point (Zhu et al., SIGCOMM 2015, section 3.1): --dcqcn NAME=VALUE[,NAME=VALUE...],\n"
	       "NAME as mlx5's /sys/class/net/<if>/ecn/roce_rp/NAME. 'here' is what is used unless set: the\n"
	       "paper's (rpg_min_rate 10 Mb/s, where the paper names none); ConnectX: the NIC's firmware default.\n\n");
	printf("%-27s %-6s %-12s %-15s %9s %9s  %s\n", "NAME", "symbol", "unit", "range", "here", "ConnectX", "meaning");
	for (size_t i = 0; i < n; i++) {
		snprintf(range, sizeof(range), "%" PRIu64 "..%" PRIu64, t[i].min, t[i].max);
		printf("%-27s %-6s %-12s %-15s %9" PRIu64 " %9" PRIu64 "  %s\n", t[i].name, t[i].symbol,
		       rl_dcqcn_unit_name(t[i].unit), range, rl_dcqcn_param_get(&t[i], &paper), t[i].nic_default,
		       t[i].meaning);
	}
	printf("\nRefused:\n");
	for (size_t i = 0; (name = rl_dcqcn_param_unmodelled(i, &why)); i++)
		printf("  %-30s %s%s\n", name, why, !strcmp(name, CLI_NP_NAME) ? ": --cnp-interval USEC sets it" : "");
	printf("rocelab explain's notes on CNPs assume the paper's values: a capture does not carry the sender's.\n");
}

enum cli_dcqcn_arg cli_arg_dcqcn(const char *cmd, const char *arg, struct rl_dcqcn_params *p)
{
	char buf[1024], why[256], *save = NULL, *tok;
	struct rl_dcqcn_params next = *p;

	if (!strcmp(arg, "list") || !strcmp(arg, "help")) {
		cli_dcqcn_list();
		return CLI_DCQCN_LISTED;
	}
	if (!*arg || strlen(arg) >= sizeof(buf) || arg[strlen(arg) - 1] == ',' || *arg == ',' || strstr(arg, ",,")) {
		cli_error(cmd, "--dcqcn needs NAME=VALUE[,NAME=VALUE...] ('--dcqcn list' shows the names), not '%s'", arg);
		return CLI_DCQCN_BAD;
	}
	strcpy(buf, arg);
	/* All or nothing: a refused assignment leaves what the earlier --dcqcn set. */
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (rl_dcqcn_param_assign(&next, tok, why, sizeof(why))) {
			cli_error(cmd, "--dcqcn: %s%s", why,
				  !strncmp(tok, CLI_NP_NAME "=", strlen(CLI_NP_NAME) + 1) ? ": --cnp-interval USEC sets it"
											   : "; '--dcqcn list' shows the names and ranges");
			return CLI_DCQCN_BAD;
		}
	*p = next;
	return CLI_DCQCN_SET;
}
