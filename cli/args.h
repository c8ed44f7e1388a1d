/* SPDX-License-Identifier: MIT */
/*
 * Option arguments, parsed one way with the standard messages:
 *   "rocelab CMD: --opt needs a positive number, not 'x'"   (a number, said in words)
 *   "rocelab CMD: --opt wants 1..65535, not 'x'"            (a number, its range)
 *   "rocelab CMD: --opt wants rc or ud, not 'x'"            (one of some names)
 *   "rocelab CMD: option -c needs a value", "unknown option '--x' (see rocelab CMD --help)"
 */
#ifndef ROCELAB_CLI_ARGS_H
#define ROCELAB_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parse an unsigned number (decimal or 0x hex) bounded by @max; false if not one. No message. */
bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/*
 * @arg of option @opt as a number in @min..@max. Else false after "OPT needs NEED,
 * not 'ARG'", or "OPT wants MIN..MAX, not 'ARG'" when @need is NULL.
 */
bool cli_arg_u64(const char *cmd, const char *opt, const char *arg, uint64_t min, uint64_t max, const char *need,
		 uint64_t *out);

/*
 * A congestion point's byte sizes (--kmin, --kmax, --queue) in KB, 1024 bytes
 * as tc's, from @min_kb to 65536 (64 MB: far more than a switch port's share
 * of its buffer), into bytes; and its --pmax, a probability. The same words
 * for 'gen dcqcn' and 'switch'. False after the message.
 */
bool cli_arg_kb(const char *cmd, const char *opt, const char *arg, uint32_t min_kb, uint32_t *bytes);
bool cli_arg_pmax(const char *cmd, const char *arg, double *pmax);
/*
 * A line rate in Gbit/s as a decimal (0.5 is 500 Mb/s), from @min_gbps to
 * @max_gbps, into bit/s: the same words for 'peer' and 'switch'. False after
 * "OPT needs Gbit/s from MIN to MAX (0.5 is 500 Mb/s), not 'ARG'".
 */
bool cli_arg_gbps(const char *cmd, const char *opt, const char *arg, double min_gbps, double max_gbps,
		  uint64_t *bps);
/*
 * A notification point's --cnp-interval, in microseconds from 1 to a second
 * (mlx5's roce_np min_time_between_cnps), into nanoseconds: the same words
 * for 'gen' and 'peer'. False after the message.
 */
#define CLI_CNP_INTERVAL_MAX_US 1000000u
bool cli_arg_cnp_interval(const char *cmd, const char *arg, uint64_t *ns);

/*
 * --dcqcn NAME=VALUE[,NAME=VALUE...]: DCQCN's reaction-point parameters by
 * mlx5's roce_rp names, in the units of core's table (rocelab/dcqcn.h),
 * set into @p over what earlier ones set: the same words for 'gen' and
 * 'peer'. 'list' or 'help' prints the table instead (CLI_DCQCN_LISTED).
 * CLI_DCQCN_BAD after the message, naming the assignment and why.
 */
struct rl_dcqcn_params;
enum cli_dcqcn_arg { CLI_DCQCN_SET, CLI_DCQCN_LISTED, CLI_DCQCN_BAD };
enum cli_dcqcn_arg cli_arg_dcqcn(const char *cmd, const char *arg, struct rl_dcqcn_params *p);

/* @arg of option @opt as an index into @names; else -1 after "OPT wants A, B or C, not 'ARG'". */
int cli_arg_choice(const char *cmd, const char *opt, const char *arg, const char *const *names, size_t n);

/*
 * getopt_long() returned ':' (a value missing) or '?' (an unknown option) for
 * argv[optind - 1]: say so, and return CLI_ERR. Needs opterr = 0 and a ':' first in the optstring.
 */
int cli_opt_error(const char *cmd, int c, char **argv);

#endif
