/* SPDX-License-Identifier: MIT */
/*
 * rocelab lab: the guided labs. What a lab does is written in its
 * definition, labs/NN-name/lab.def (lab_def.c reads it). A run brings up the
 * topology (lab_topo.c: two namespaces and a veth, standing in for the two
 * machines of a Soft-RoCE tutorial), starts `rocelab peer` at both ends for
 * each step, captures on the veth into labs/out/NN-name.pcap (under the
 * current folder, or $XDG_DATA_HOME/rocelab where that cannot be written) and
 * says what to look at.
 *
 * Every command the lab runs is printed first, so a learner can run it by
 * hand. The topology a run made is removed at its end, also after a failure
 * or Ctrl-C. Where namespaces cannot be made (no root, some containers) a
 * lab runs on a capture from `rocelab gen` and says so. With --real-rxe the
 * client end is the kernel's Soft-RoCE in a VM (rocelab realrxe) instead of
 * namespace rl-a.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "grade.h"
#include "lab_def.h"
#include "lab_predict.h"
#include "lab_proc.h"
#include "lab_topo.h"
#include "peer.h"

#define LAB_MAX_LABS 100 /* NN: two digits */

/* ---- running a lab ------------------------------------------------------------------------------ */

/* Does @arg name the lab in @folder (NN-name): its number, its name, or its number without the leading 0? */
static bool lab_named(const char *folder, const char *arg)
{
	size_t n = strlen(arg);

	return (n == 2 && !strncmp(arg, folder, 2)) || !strcmp(arg, folder + 3) ||
	       (n == 1 && folder[0] == '0' && arg[0] == folder[1]);
}

/*
 * Load the lab @arg names into @l, its questions checked against the grader's.
 * 0; 1 (said) if there is no such lab; -1 (said) if its definition is broken.
 */
static int lab_find(const char *arg, struct lab_def *l)
{
	char folders[LAB_MAX_LABS][64], root[4096];
	int n;

	if (!lab_def_root(root, sizeof(root)) || (n = lab_def_folders(root, folders, LAB_MAX_LABS)) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (lab_named(folders[i], arg)) {
			if (lab_def_load(l, root, folders[i]))
				return -1;
			if (!grade_check(l)) {
				lab_def_free(l);
				return -1;
			}
			return 0;
		}
	cli_error("lab", "no lab '%s' ('rocelab lab list' shows them)", arg);
	return 1;
}

/*
 * The labs folder @root as the guides name it: "labs" when it is the current folder's (the source
 * tree), else where it lies (an installed PREFIX/share/rocelab/labs); @buf is scratch.
 */
static const char *lab_root_shown(const char *root, char *buf, size_t n)
{
	char here[4096];

	if (realpath("labs", here) && !strcmp(here, root))
		return "labs";
	snprintf(buf, n, "%s", root);
	return buf;
}

/*
 * Where a learner's files go: labs/out and labs/NN-name/answers.txt under the current folder, as the
 * guides say; where that folder cannot be written (an installed rocelab started in /, say), under
 * $XDG_DATA_HOME/rocelab (~/.local/share/rocelab), made if need be. The command moves there, so that
 * every relative path it uses is in it. 0, or -1 (said).
 */
static int lab_workdir(void)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	char dir[4096];

	if (!access(".", W_OK))
		return 0;
	if (xdg && *xdg == '/')
		snprintf(dir, sizeof(dir), "%s/rocelab", xdg);
	else if (home && *home)
		snprintf(dir, sizeof(dir), "%s/.local/share/rocelab", home);
	else {
		cli_error("lab", "cannot write in the current folder, and neither XDG_DATA_HOME nor HOME is set");
		return -1;
	}
	/* each level of the XDG base directory, as ~/.local/share may not exist yet */
	for (char *sl = strchr(dir + 1, '/'); sl; sl = strchr(sl + 1, '/')) {
		*sl = '\0';
		mkdir(dir, 0700);
		*sl = '/';
	}
	if ((mkdir(dir, 0700) && errno != EEXIST) || chdir(dir)) {
		cli_error("lab", "cannot write in the current folder, nor use %s: %s", dir, strerror(errno));
		return -1;
	}
	printf("lab: the current folder cannot be written; your files go under %s\n", dir);
	return 0;
}

/* A path the learner gave (@path, or none), into @buf as it names the file after lab_workdir(). */
static bool lab_given(const char *path, char *buf, size_t n)
{
	char cwd[2048];

	if (!path || *path == '/' || !access(".", W_OK)) {
		snprintf(cwd, sizeof(cwd), ".");
	} else if (!getcwd(cwd, sizeof(cwd))) {
		cli_error("lab", "cannot tell the current folder: %s", strerror(errno));
		return false;
	}
	if (snprintf(buf, n, "%s%s%s", !strcmp(cwd, ".") ? "" : cwd, !strcmp(cwd, ".") ? "" : "/",
		     path ? path : "") >= (int)n) {
		cli_error("lab", "path too long: %s", path);
		return false;
	}
	return true;
}

/*
 * A blank answers file at labs/NN-name/answers.txt, where the guide tells the learner to write, when
 * there is none (an installed rocelab, run from the learner's own folder); never over one.
 */
static void lab_blank_answers(const struct lab_def *l)
{
	char path[256], from[4200], buf[4096];
	FILE *in, *out;
	bool ok = true;
	size_t n;

	snprintf(path, sizeof(path), "labs/%s-%s", l->num, l->name);
	mkdir("labs", 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "labs/%s-%s/answers.txt", l->num, l->name);
	snprintf(from, sizeof(from), "%s/answers.txt", l->dir);
	if (!access(path, F_OK) || !(in = fopen(from, "r")))
		return;
	out = fopen(path, "wx");
	while (out && ok && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	ok &= out && !ferror(in);
	if (out && fclose(out))
		ok = false;
	if (ok) {
		printf("lab %s: a blank answers file for you: %s\n", l->num, path);
	} else {
		cli_error("lab", "cannot write %s: %s (the lab runs; write your answers elsewhere and give --answers)",
			  path, strerror(errno));
		if (out)
			unlink(path);
	}
	fclose(in);
}

/* Every lab, each definition read and checked against the grader before any is listed. */
static int lab_list(void)
{
	char folders[LAB_MAX_LABS][64], nums[LAB_MAX_LABS][3];
	struct lab_def *defs;
	char root[4096], path[4200], shown[4096];
	int n, loaded = 0;
	bool ok = true;

	if (!lab_def_root(root, sizeof(root)) || (n = lab_def_folders(root, folders, LAB_MAX_LABS)) < 0)
		return CLI_ERR;
	defs = calloc((size_t)n + 1, sizeof(*defs));
	if (!defs) {
		cli_error("lab", "out of memory");
		return CLI_ERR;
	}
	for (; loaded < n; loaded++) {
		if (lab_def_load(&defs[loaded], root, folders[loaded])) {
			ok = false;
			break;
		}
		ok &= grade_check(&defs[loaded]);
		memcpy(nums[loaded], defs[loaded].num, sizeof(nums[0]));
	}
	if (ok && grade_check_labs(nums, (size_t)n)) {
		printf("labs (rocelab lab run NN; guides in %s/NN-name/README.md and README.zh-CN.md):\n",
		       lab_root_shown(root, shown, sizeof(shown)));
		for (int i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "%s/README.md", defs[i].dir);
			printf("  %s  %-18s %s%s\n", defs[i].num, defs[i].name, defs[i].title,
			       access(path, R_OK) ? "  (guide not written yet)" : "");
		}
	} else {
		ok = false;
	}
	for (int i = 0; i < loaded; i++)
		lab_def_free(&defs[i]);
	free(defs);
	return ok ? CLI_OK : CLI_ERR;
}

/*
 * What the server said, after a step whose server output is half the lesson:
 * rping's -d lines (its rdma_cm events: CONNECT_REQUEST, ESTABLISHED, DISCONNECTED),
 * or rocelab peer's --show-wc completions.
 */
/* A line of rocelab peer's --show-wc (a completion, failed ones too) or its "served" summary. */
static bool lab_is_wc_line(const char *line)
{
	static const char *const starts[] = { "completion", "rocelab peer: completion", " served " };

	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (!strncmp(line, starts[i], strlen(starts[i])))
			return true;
	return false;
}

static void lab_show_server(const char *log, bool wcs_only)
{
	char line[1024];
	FILE *f = fopen(log, "r");

	if (!f)
		return;
	printf(wcs_only ? "  (the server's completions:)\n" : "  (the server's output:)\n");
	while (fgets(line, sizeof(line), f))
		if (!wcs_only || lab_is_wc_line(line))
			printf("    %s%s", line, line[strlen(line) - 1] == '\n' ? "" : "\n");
	fclose(f);
}

/* Does the server print its completions (--show-wc)? Then they are shown after the step. */
static bool lab_shows_wc(const char *server)
{
	char words[LAB_LINE_MAX], *w[LAB_LINE_WORDS + 1];
	int n;

	if (!lab_line(words, sizeof(words), "%s", server) || (n = lab_words(words, w, LAB_LINE_WORDS + 1)) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (!strcmp(w[i], "--show-wc"))
			return true;
	return false;
}

/* A server and a client, each a command line; the server's output in @log. */
static int lab_pair(const struct lab_step *s, const char *log, const char *server, const char *client)
{
	int fd, rc, src;
	pid_t srv, cli;

	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	printf("  + %s &\n", server);
	srv = lab_spawn(server, fd, fd);
	if (fd >= 0)
		close(fd);
	if (srv < 0)
		return -1;
	if (!lab_wait_text(log, "waiting for a client", 5000)) {
		kill(srv, SIGTERM);
		lab_wait(srv);
		cli_error("lab", "the server did not start; its output is in %s", log);
		return -1;
	}
	printf("  + %s\n", client);
	fflush(stdout);
	cli = lab_spawn(client, -1, -1);
	rc = cli < 0 ? -1 : lab_wait(cli);
	if (s->fails || rc)
		kill(srv, SIGTERM);
	src = lab_wait(srv);
	if (s->fails) {
		if (rc == 0) {
			cli_error("lab", "this step should have failed, and did not");
			return -1;
		}
		/* The end that moved to RTR first may be the one that refused: its words are half the lesson. */
		lab_show_server(log, false);
		printf("  (that error was the point of this step)\n");
		return 0;
	}
	if (rc || src) {
		cli_error("lab", "the step failed (client exit %d, server exit %d; server output in %s)", rc, src, log);
		return -1;
	}
	/* rping's -d events; perftest's header, key lines and (ib_write_bw, ib_read_bw) the client's results */
	if (s->rping || s->perftest)
		lab_show_server(log, false);
	else if (lab_shows_wc(s->server))
		lab_show_server(log, true);
	return 0;
}

static int lab_peer_step(const struct lab_step *s, const char *log)
{
	char server[LAB_LINE_MAX], client[LAB_LINE_MAX];
	bool ok;

	if (s->perftest) /* perftest's own flags: no address for the server, the server's address last for the client */
		ok = lab_line(server, sizeof(server), "ip netns exec " LAB_NS_B " %s peer --compat %s%s%s", cli_self(),
			      s->perftest, *s->server ? " " : "", s->server) &&
		     lab_line(client, sizeof(client), "ip netns exec " LAB_NS_A " %s peer --compat %s %s", cli_self(),
			      s->perftest, s->client);
	else if (s->rping) /* rping's own flags say which end is which, and where the server is */
		ok = lab_line(server, sizeof(server), "ip netns exec " LAB_NS_B " %s peer --compat rping %s", cli_self(),
			      s->server) &&
		     lab_line(client, sizeof(client), "ip netns exec " LAB_NS_A " %s peer --compat rping %s", cli_self(),
			      s->client);
	else
		ok = lab_line(server, sizeof(server), "ip netns exec " LAB_NS_B " %s peer --server%s%s", cli_self(),
			      *s->server ? " " : "", s->server) &&
		     lab_line(client, sizeof(client), "ip netns exec " LAB_NS_A " %s peer --client " LAB_IP_B " %s",
			      cli_self(), s->client);
	return ok ? lab_pair(s, log, server, client) : -1;
}

/* ---- --real-rxe: the kernel's Soft-RoCE, in a VM, at one end -------------------------------------- */

#define LAB_RXE_NS "rl-rxe"
#define LAB_RXE_IF "rxtap0"
#define LAB_RXE_HOST "10.77.0.1"
#define LAB_RXE_DIR LAB_OUT "/realrxe"

/* Append " OPT V" to the command line in @buf if @v; false (said) if it does not fit. */
static bool lab_opt(char *buf, size_t n, const char *opt, const char *v)
{
	return !v || lab_append(buf, n, " %s %s", opt, v);
}

/*
 * A peer step with the kernel as the requester: the step's client options
 * become the guest's command, the standard ibv_rc_pingpong / ibv_ud_pingpong
 * for a ping-pong, rxe_peer (rocelab peer's test over libibverbs) for the
 * other operations, and for the pitfalls' --no-grh, --bad-rkey and --bad-va,
 * which rxe_peer takes as they are. rocelab peer serves, with the step's own server options
 * (--loss then shows the kernel's go-back-N).
 */
/* rocelab peer's pitfalls flags (no value), which rxe_peer takes under the same names. */
static bool lab_rxe_mistake(const char *w)
{
	return !strcmp(w, "--no-grh") || !strcmp(w, "--bad-rkey") || !strcmp(w, "--bad-va");
}

static int lab_rxe_step(const struct lab_step *s, const char *log)
{
	char opts[LAB_LINE_MAX], *w[LAB_LINE_WORDS + 1], server[LAB_LINE_MAX], client[LAB_LINE_MAX];
	char compat[LAB_LINE_MAX] = "";
	const char *op = "send", *size = NULL, *iters = NULL, *window = NULL, *mtu = NULL, *gid = "1", *mistakes = NULL;
	const char *retry = NULL, *rnr_retry = NULL, *bad_at = NULL;
	bool ud = false, ok;
	int n;

	if (!lab_line(opts, sizeof(opts), "%s", s->client))
		return -1;
	n = lab_words(opts, w, LAB_LINE_WORDS + 1);
	if (n < 0) {
		cli_error("lab", "the client options have more than %d words: %.60s...", LAB_LINE_WORDS, s->client);
		return -1;
	}
	/* Each option with its value, but the pitfalls' flags, which rxe_peer takes as they are. */
	for (int i = 0; i < n; i++) {
		if (lab_rxe_mistake(w[i])) {
			mistakes = w[i];
			continue;
		}
		if (i + 1 == n)
			break;
		if (!strcmp(w[i], "-t") || !strcmp(w[i], "--transport"))
			ud = !strcmp(w[i + 1], "ud");
		else if (!strcmp(w[i], "--op"))
			op = w[i + 1];
		else if (!strcmp(w[i], "--size"))
			size = w[i + 1];
		else if (!strcmp(w[i], "--iters"))
			iters = w[i + 1];
		else if (!strcmp(w[i], "--window"))
			window = w[i + 1];
		else if (!strcmp(w[i], "--mtu"))
			mtu = w[i + 1];
		else if (!strcmp(w[i], "-g") || !strcmp(w[i], "--gid-index"))
			gid = w[i + 1];
		else if (!strcmp(w[i], "--retry-cnt"))
			retry = w[i + 1];
		else if (!strcmp(w[i], "--rnr-retry"))
			rnr_retry = w[i + 1];
		else if (!strcmp(w[i], "--bad-at"))
			bad_at = w[i + 1];
		i++;
	}
	if (!strcmp(op, "pingpong")) {
		ok = lab_line(compat, sizeof(compat), " --compat pingpong") &&
		     lab_opt(compat, sizeof(compat), "--size", size) && lab_opt(compat, sizeof(compat), "--iters", iters) &&
		     lab_line(client, sizeof(client),
			      "%s realrxe exec --dir " LAB_RXE_DIR " --timeout 120 -- ibv_%s_pingpong -d rxe0 -g %s",
			      cli_self(), ud ? "ud" : "rc", gid) &&
		     lab_opt(client, sizeof(client), "-s", size) && lab_opt(client, sizeof(client), "-n", iters) &&
		     lab_opt(client, sizeof(client), "-m", mtu);
	} else {
		ok = lab_line(client, sizeof(client),
			      "%s realrxe exec --dir " LAB_RXE_DIR " --timeout 120 -- rxe_peer -t 60 -g %s -o %s",
			      cli_self(), gid, op) &&
		     lab_opt(client, sizeof(client), "-s", size) && lab_opt(client, sizeof(client), "-n", iters) &&
		     lab_opt(client, sizeof(client), "-w", window) && lab_opt(client, sizeof(client), "-m", mtu) &&
		     lab_opt(client, sizeof(client), "--retry-cnt", retry) &&
		     lab_opt(client, sizeof(client), "--rnr-retry", rnr_retry) &&
		     lab_opt(client, sizeof(client), "--bad-at", bad_at) &&
		     (!mistakes || lab_append(client, sizeof(client), " %s", mistakes));
	}
	if (!ok || !lab_append(client, sizeof(client), " " LAB_RXE_HOST) ||
	    !lab_line(server, sizeof(server), "ip netns exec " LAB_RXE_NS " %s peer --server%s%s%s", cli_self(),
		      *s->server ? " " : "", s->server, compat))
		return -1;
	return lab_pair(s, log, server, client);
}

/*
 * Append a tool's flags @opts to the command line in @buf, the lab's server
 * address turned into rocelab's end of the tap: rping's after -a (-a
 * 10.90.0.2), perftest's anywhere (its last word) when @anywhere. false
 * (said) if they do not fit.
 */
static bool lab_rxe_tool_opts(char *buf, size_t n, const char *opts, bool anywhere)
{
	char words[LAB_LINE_MAX], *w[LAB_LINE_WORDS + 1];
	int k;

	if (!lab_line(words, sizeof(words), "%s", opts))
		return false;
	k = lab_words(words, w, LAB_LINE_WORDS + 1);
	if (k < 0) {
		cli_error("lab", "the tool's options have more than %d words: %.60s...", LAB_LINE_WORDS, opts);
		return false;
	}
	for (int i = 0; i < k; i++) {
		bool server_addr = (anywhere || (i > 0 && !strcmp(w[i - 1], "-a"))) && !strcmp(w[i], LAB_IP_B);

		if (!lab_append(buf, n, " %s", server_addr ? LAB_RXE_HOST : w[i]))
			return false;
	}
	return true;
}

static bool lab_rxe_rping_opts(char *buf, size_t n, const char *opts)
{
	return lab_rxe_tool_opts(buf, n, opts, false);
}

static bool lab_rxe_perftest_opts(char *buf, size_t n, const char *opts)
{
	return lab_rxe_tool_opts(buf, n, opts, true);
}

/*
 * A `compat rping` step with the kernel at the client end: the real rping
 * (librdmacm's, over the kernel's rdma_cm) in the VM, with the step's client
 * flags, against rocelab peer --compat rping: the CM exchange of both stacks
 * in one capture.
 */
static int lab_rxe_rping_step(const struct lab_step *s, const char *log)
{
	char server[LAB_LINE_MAX], client[LAB_LINE_MAX];

	if (!lab_line(client, sizeof(client), "%s realrxe exec --dir " LAB_RXE_DIR " --timeout 120 -- rping",
		      cli_self()) ||
	    !lab_rxe_rping_opts(client, sizeof(client), s->client) ||
	    !lab_line(server, sizeof(server), "ip netns exec " LAB_RXE_NS " %s peer --compat rping", cli_self()) ||
	    !lab_rxe_rping_opts(server, sizeof(server), s->server))
		return -1;
	return lab_pair(s, log, server, client);
}

/*
 * A `compat ib_send_bw` (or other perftest tool) step with the kernel at the
 * client end: the guest's own perftest, on rxe0, with the step's client flags
 * (the server's address, 10.90.0.2, turned into rocelab's end of the tap),
 * against rocelab peer --compat TOOL with the step's server flags: perftest's
 * TCP exchange and both stacks' packets in one capture.
 */
static int lab_rxe_perftest_step(const struct lab_step *s, const char *log)
{
	char server[LAB_LINE_MAX], client[LAB_LINE_MAX];

	if (!lab_line(client, sizeof(client), "%s realrxe exec --dir " LAB_RXE_DIR " --timeout 120 -- %s -d rxe0",
		      cli_self(), s->perftest) ||
	    !lab_rxe_perftest_opts(client, sizeof(client), s->client) ||
	    !lab_line(server, sizeof(server), "ip netns exec " LAB_RXE_NS " %s peer --compat %s", cli_self(),
		      s->perftest) ||
	    !lab_rxe_perftest_opts(server, sizeof(server), s->server))
		return -1;
	return lab_pair(s, log, server, client);
}

/*
 * Namespace rl-rxe with the lab's VM alive in it is kept (--keep); one in use
 * by anything else is refused (another lab run); an empty one, left by a run
 * that was killed, is removed. -1 (said) when refused or not removed.
 */
static int lab_rxe_stale(void)
{
	char pid_file[300], comm[64] = "?";
	pid_t user = lab_netns_user(LAB_RXE_NS), vm = 0;
	FILE *f;

	if (user < 0)
		return 0;
	snprintf(pid_file, sizeof(pid_file), LAB_RXE_DIR "/qemu.pid");
	f = fopen(pid_file, "r");
	if (f && fscanf(f, "%d", &vm) != 1)
		vm = 0;
	if (f)
		fclose(f);
	if (user > 0 && vm > 0 && kill(vm, 0) == 0)
		return 0;
	if (user > 0) {
		snprintf(pid_file, sizeof(pid_file), "/proc/%d/comm", (int)user);
		f = fopen(pid_file, "r");
		if (f && fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		if (f)
			fclose(f);
		cli_error("lab", "namespace " LAB_RXE_NS " is in use by process %d (%s), not this lab's VM: another "
				 "'lab run --real-rxe'? Stop it, or 'ip netns del " LAB_RXE_NS "' if it is yours",
			  (int)user, comm);
		return -1;
	}
	printf("lab: namespace " LAB_RXE_NS " is left from a run that did not finish (nothing runs in it); removing it\n");
	lab_cmd(false, "%s realrxe stop --dir " LAB_RXE_DIR, cli_self());
	if (lab_netns_user(LAB_RXE_NS) >= 0 && lab_cmd(true, "ip netns del " LAB_RXE_NS)) {
		cli_error("lab", "cannot remove namespace " LAB_RXE_NS);
		return -1;
	}
	return 0;
}

/* The VM, its tap in namespace rl-rxe, and the MTU on both ends of the tap; *@made once the VM runs. */
static int lab_rxe_up(unsigned mtu, bool *made)
{
	*made = false;
	printf("lab: the other end is the kernel's Soft-RoCE (rdma_rxe, Debian's kernel) in a VM at 10.77.0.2; "
	       "rocelab is at " LAB_RXE_HOST " in namespace " LAB_RXE_NS "\n");
	if (lab_rxe_stale()) {
		return -1;
	} else if (lab_netns_user(LAB_RXE_NS) > 0) {
		printf("lab: the VM is up already (kept by an earlier run's --keep)\n");
	} else if (lab_cmd(true, "%s realrxe start --dir " LAB_RXE_DIR " --netns " LAB_RXE_NS, cli_self())) {
		cli_error("lab", "the VM did not start (above: why)");
		return -1;
	} else {
		*made = true;
	}
	if (mtu != 1500 && (lab_cmd(false, "ip -n " LAB_RXE_NS " link set " LAB_RXE_IF " mtu %u", mtu) ||
			    lab_cmd(false, "%s realrxe exec --dir " LAB_RXE_DIR " -- ip link set eth0 mtu %u", cli_self(), mtu)))
		return -1;
	return 0;
}

static int lab_replay_step(const struct lab_def *l, const struct lab_step *s)
{
	char file[256];

	snprintf(file, sizeof(file), LAB_OUT "/%s-%s.gen.pcap", l->num, l->name);
	if (lab_cmd(false, "%s gen %s " LAB_GEN_ADDR " -o %s", cli_self(), s->replay, file) ||
	    lab_cmd(false, "ip netns exec " LAB_NS_B " %s replay %s --iface " LAB_IF_B, cli_self(), file)) {
		cli_error("lab", "the replay step failed");
		return -1;
	}
	unlink(file);
	return 0;
}

/* A short `rocelab explain`: the first frames and the summary. */
static void lab_summary(const char *pcap)
{
	char line[1024], cmd[LAB_LINE_MAX];
	int p[2], shown = 0;
	bool summary = false;
	FILE *f;
	pid_t pid;

	printf("\n$ rocelab explain %s\n", pcap);
	if (!lab_line(cmd, sizeof(cmd), "%s explain %s", cli_self(), pcap) || pipe(p))
		return;
	fflush(stdout);
	pid = lab_spawn(cmd, p[1], -1);
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "---", 3))
			summary = true;   /* the summary and its opcode rows, all of them */
		if (summary || shown < 12)
			fputs(line, stdout);
		else if (shown == 12)
			printf("... (rocelab explain %s shows all of it)\n", pcap);
		shown++;
	}
	if (f)
		fclose(f);
	else
		close(p[0]);
	if (pid > 0)
		lab_wait(pid);
}

/* The capture drawn as a page beside it (rocelab report), named for the learner to open. */
static void lab_report(const char *pcap)
{
	char html[512];
	size_t n = strlen(pcap);

	if (n < 5 || n - 5 >= sizeof(html) - 5 || strcmp(pcap + n - 5, ".pcap"))
		return;
	snprintf(html, sizeof(html), "%.*s.html", (int)(n - 5), pcap);
	if (lab_cmd(true, "%s report -q -o %s %s", cli_self(), html, pcap))
		return;   /* its message said why; the capture is there to study all the same */
	printf("\nsee it: open %s in a web browser: the ladder of every frame, the PSNs over time, "
	       "click an arrow for its fields (rocelab report drew it)\n", html);
}

/* What the learner sees after the capture: a short explain, its page, and the next step. */
static void lab_after(const struct lab_def *l, const char *pcap)
{
	lab_summary(pcap);
	lab_report(pcap);
	printf("\nnext: %s (%s)\n", l->next, pcap);
}

static int lab_run_gen(const struct lab_def *l, const char *pcap, const char *why)
{
	printf("lab %s: %s\n", l->num, why);
	printf("lab %s: so this lab runs on a capture from rocelab gen: the same transport, between two simulated "
	       "hosts\n", l->num);
	if (lab_cmd(true, "%s gen %s " LAB_GEN_ADDR " -o %s", cli_self(), l->gen, pcap))
		return CLI_ERR;
	lab_after(l, pcap);
	return CLI_OK;
}

/* A TCP port as a step writes it (1..65535); 0, no port to capture, for anything else. */
static unsigned lab_port(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || *end || end == s || v < 1 || v > 65535 ? 0 : (unsigned)v;
}

/*
 * The TCP port step @s's peers exchange QPN, PSN and GID on before the first
 * RoCE frame (rocelab peer's, ibv_rc_pingpong's and perftest's way: -p, or
 * 18515); 0 when there is no TCP exchange: a replay, rping, or -R / --cm,
 * which connect through the CM on QP1 and so are RoCE frames already.
 */
static unsigned lab_step_tcp_port(const struct lab_step *s)
{
	char opts[LAB_LINE_MAX], *w[LAB_LINE_WORDS + 1];
	unsigned port = PEER_TCP_PORT;
	int n;

	if (!s->server || s->rping || !lab_line(opts, sizeof(opts), "%s", s->server))
		return 0;
	n = lab_words(opts, w, LAB_LINE_WORDS + 1);
	for (int i = 0; i < n; i++) {
		if (!strcmp(w[i], "-R") || !strcmp(w[i], "--cm") || !strcmp(w[i], "--rdma_cm"))
			return 0;
		if (i + 1 < n && (!strcmp(w[i], "-p") || !strcmp(w[i], "--port")))
			port = lab_port(w[i + 1]);
	}
	return port;
}

/*
 * The lab's capture filter, as tcpdump takes it: RoCEv2, and with `capture
 * exchange` each TCP port a step's peers exchange on, so that the QPNs and
 * PSNs the ends agreed on are in the capture beside the frames that use
 * them. false (said) if it does not fit @n.
 */
static bool lab_capture_filter(const struct lab_def *l, char *buf, size_t n)
{
	unsigned seen[8];
	size_t k = 0;

	if (!lab_line(buf, n, LAB_FILTER_ROCE))
		return false;
	for (size_t i = 0; l->exchange && i < l->nsteps; i++) {
		unsigned port = lab_step_tcp_port(&l->steps[i]);
		size_t j = 0;

		while (j < k && seen[j] != port)
			j++;
		if (!port || j < k)
			continue;
		if (k == sizeof(seen) / sizeof(seen[0]) || !lab_append(buf, n, " or tcp port %u", port))
			return false;
		seen[k++] = port;
	}
	return true;
}

/* Does a step run two peers (not a replay)? --real-rxe puts the kernel at one end of those. */
static bool lab_runs_a_stack(const struct lab_def *l)
{
	for (size_t i = 0; i < l->nsteps; i++)
		if (l->steps[i].server)
			return true;
	return false;
}

static int lab_run(const struct lab_def *l, bool keep, bool force_gen, bool real_rxe)
{
	char pcap[256], err[256], log[256], why[256] = "", filter[256];
	struct sigaction sa = { .sa_handler = lab_on_signal }, old_int, old_term;
	bool made = false;
	int rc = CLI_OK, lock = -1;
	pid_t td;

	if (lab_workdir())
		return CLI_ERR;
	mkdir("labs", 0755);
	if (mkdir(LAB_OUT, 0755) && errno != EEXIST) {
		cli_error("lab", "cannot create %s: %s", LAB_OUT, strerror(errno));
		return CLI_ERR;
	}
	snprintf(pcap, sizeof(pcap), LAB_OUT "/%s-%s.pcap", l->num, l->name);
	snprintf(err, sizeof(err), LAB_OUT "/%s-%s.tcpdump.txt", l->num, l->name);
	snprintf(log, sizeof(log), LAB_OUT "/%s-%s.server.txt", l->num, l->name);
	printf("lab %s: %s\n", l->num, l->title);
	lab_blank_answers(l);
	if (force_gen)
		return lab_run_gen(l, pcap, "--gen: no namespaces asked for");
	if (!real_rxe && !lab_is_up() && !lab_netns_possible(why, sizeof(why)))
		return lab_run_gen(l, pcap, why);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* One run at a time: the namespaces, the VM's and labs/out's file names are the same for all. */
	if ((lock = lab_lock()) < 0 || (real_rxe ? lab_rxe_up(l->mtu, &made) : lab_up(l->mtu, &made))) {
		rc = CLI_ERR;
		goto out;
	}
	td = lab_capture_filter(l, filter, sizeof(filter))
		     ? lab_capture_start(pcap, err, real_rxe ? LAB_RXE_NS : LAB_NS_A, real_rxe ? LAB_RXE_IF : LAB_IF_A,
					 l->mtu, filter)
		     : -1;
	if (td < 0) {
		rc = CLI_ERR;
		goto out;
	}
	for (size_t i = 0; i < l->nsteps && !lab_interrupted; i++) {
		const struct lab_step *s = &l->steps[i];

		printf("\nstep %zu: %s\n", i + 1, s->what);
		if (real_rxe && !s->server) {
			printf("  (left out with --real-rxe: these frames come from rocelab gen, not from a stack)\n");
			continue;
		}
		if (real_rxe ? (s->rping ? lab_rxe_rping_step(s, log)
				: s->perftest ? lab_rxe_perftest_step(s, log) : lab_rxe_step(s, log))
			     : s->server ? lab_peer_step(s, log) : lab_replay_step(l, s)) {
			rc = CLI_ERR;
			break;
		}
	}
	lab_capture_stop(td, err);
	if (rc == CLI_OK && !lab_interrupted)
		unlink(log);
out:
	if (made && !keep) {
		printf("\nlab: taking the topology down\n");
		if (real_rxe)
			lab_cmd(false, "%s realrxe stop --dir " LAB_RXE_DIR, cli_self());
		else
			lab_down();
	}
	if (lock >= 0)
		close(lock);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (lab_interrupted) {
		fprintf(stderr, "rocelab lab: interrupted; %s\n", made && !keep ? "the topology is gone" : "stopped");
		return 128 + lab_interrupted;
	}
	if (rc == CLI_OK)
		lab_after(l, pcap);
	return rc;
}

/*
 * Put the learner's parameters into @l's lines: those of their predictions
 * (`rocelab lab predict`), said, or the lab's defaults. 0, or -1 (said).
 */
static int lab_use_params(struct lab_def *l)
{
	time_t made;
	int r = lab_predicted(l, &made);

	if (r < 0)
		return -1;
	if (r > 0 && l->nparam) {
		printf("lab %s: with the parameters of your predictions (" LAB_OUT "/%s-%s.predict):", l->num, l->num,
		       l->name);
		for (size_t i = 0; i < l->nparam; i++)
			printf(" %s=%llu", l->param[i].name, (unsigned long long)l->param[i].value);
		printf("\n");
	}
	return lab_def_bind(l);
}

/* ---- the command -------------------------------------------------------------------------------- */

static void lab_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab lab list\n"
		"       rocelab lab run NN [--keep] [--gen | --real-rxe]\n"
		"       rocelab lab grade NN [--answers FILE] [--capture FILE]\n"
		"       rocelab lab predict NN [--set NAME=VALUE]... [--answers FILE]\n"
		"       rocelab lab quiz NN [--seed N] | quiz NN --grade [--seed N] [--answers FILE]\n"
		"       rocelab lab up [--mtu N] | down | status\n\n"
		"Guided labs: two network namespaces, %s (%s) and %s (%s), joined by a veth pair\n"
		"(%s -- %s), stand in for two RDMA machines. 'run' brings them up, starts rocelab peer at\n"
		"both ends, captures what crosses with tcpdump into %s/NN-name.pcap, prints a short\n"
		"rocelab explain and what to look at next, and takes the topology down again (also after\n"
		"Ctrl-C). Needs root, or a shell from 'unshare --user --map-root-user --net --mount';\n"
		"without either the lab runs on a capture from rocelab gen and says so. 'grade' checks a\n"
		"lab's answers file against your own capture ('make grade' grades the coding exercises too).\n"
		"'predict', before 'run': choose the lab's parameters and say what the wire will show; 'run'\n"
		"uses them and 'grade' scores each prediction against the capture. 'quiz': a capture made\n"
		"from parameters kept hidden, to infer from its frames; '--grade' scores your answers.\n\n"
		"options:\n"
		"      --keep     leave the topology up after 'run' (then: ip netns exec %s ...)\n"
		"      --gen      run on a capture from rocelab gen, without namespaces\n"
		"      --real-rxe the other end is the real kernel Soft-RoCE in a VM (rocelab realrxe): its\n"
		"                 ibv_rc_pingpong / ibv_ud_pingpong, rping, perftest (ib_send_bw ...) or\n"
		"                 rxe_peer, as the client; rocelab peer serves; both stacks in one\n"
		"                 capture. Steps replayed from rocelab gen are left out (a lab that\n"
		"                 is nothing else refuses it). --keep keeps the VM (rocelab\n"
		"                 realrxe exec --dir %s)\n"
		"      --mtu N    'up': the veth MTU (default 1500; 9000 carries path MTU 4096)\n"
		"      --answers FILE  'grade': your answers (default labs/NN-name/answers.txt);\n"
		"                 'predict': your predictions as KEY: VALUE lines (without it, each is\n"
		"                 read from standard input, a line each); 'quiz --grade': your answers\n"
		"                 (default %s/NN-name.quiz.txt)\n"
		"      --capture FILE  'grade': the capture they are about (default %s/NN-name.pcap)\n"
		"      --set NAME=VALUE  'predict': a parameter of the lab (repeat for each); the\n"
		"                 definition's default otherwise. 'predict' lists them.\n"
		"      --seed N   'quiz': draw the hidden parameters from N, so that everyone given N has\n"
		"                 the same quiz (a teacher's); random without it\n"
		"      --grade    'quiz': grade the quiz's answers\n"
		"  -h, --help     this text\n",
		LAB_NS_A, LAB_IP_A, LAB_NS_B, LAB_IP_B, LAB_IF_A, LAB_IF_B, LAB_OUT, LAB_NS_A, LAB_RXE_DIR, LAB_OUT, LAB_OUT);
}

int cli_lab(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "keep", no_argument, NULL, 'k' }, { "gen", no_argument, NULL, 'g' },
		{ "real-rxe", no_argument, NULL, 'r' },
		{ "mtu", required_argument, NULL, 'm' }, { "help", no_argument, NULL, 'h' },
		{ "answers", required_argument, NULL, 'a' }, { "capture", required_argument, NULL, 'C' },
		{ "set", required_argument, NULL, 's' }, { "seed", required_argument, NULL, 'S' },
		{ "grade", no_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	char *sets[LAB_MAX_PARAMS];
	size_t nsets = 0;
	uint64_t seed = 0;
	bool have_seed = false, quiz_grade = false;
	bool keep = false, gen = false, real_rxe = false, made;
	uint64_t mtu = LAB_MTU;
	struct lab_def l;
	const char *verb, *answers = NULL, *capture = NULL;
	char apath[4096], cpath[4096];
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'k': keep = true; break;
		case 'g': gen = true; break;
		case 'r': real_rxe = true; break;
		case 'm':
			if (!cli_arg_u64("lab", "--mtu", optarg, LAB_MTU_MIN, LAB_MTU_MAX, NULL, &mtu))
				return CLI_ERR;
			break;
		case 'a': answers = optarg; break;
		case 'C': capture = optarg; break;
		case 's':
			if (nsets == LAB_MAX_PARAMS) {
				cli_error("lab", "--set at most %d times: a lab has no more parameters", LAB_MAX_PARAMS);
				return CLI_ERR;
			}
			sets[nsets++] = optarg;
			break;
		case 'S':
			if (!cli_arg_u64("lab", "--seed", optarg, 0, UINT64_MAX, NULL, &seed))
				return CLI_ERR;
			have_seed = true;
			break;
		case 'G': quiz_grade = true; break;
		case 'h': lab_usage(stdout); return CLI_OK;
		default: fprintf(stderr, "Try 'rocelab lab --help'.\n"); return CLI_ERR;
		}
	}
	if (optind >= argc) {
		lab_usage(stderr);
		return CLI_ERR;
	}
	verb = argv[optind];
	if ((nsets && strcmp(verb, "predict")) || ((have_seed || quiz_grade) && strcmp(verb, "quiz"))) {
		cli_error("lab", "%s belongs to 'lab %s', not to 'lab %s'", nsets ? "--set" : have_seed ? "--seed" : "--grade",
			  nsets ? "predict" : "quiz", verb);
		return CLI_ERR;
	}
	if (optind + 1 == argc && cli_dry_parse() &&
	    (!strcmp(verb, "list") || !strcmp(verb, "up") || !strcmp(verb, "down") || !strcmp(verb, "status")))
		return CLI_OK;
	if (!strcmp(verb, "list") && optind + 1 == argc)
		return lab_list();
	if (!strcmp(verb, "up") && optind + 1 == argc)
		return lab_lock() < 0 || lab_up((unsigned)mtu, &made) ? CLI_ERR : CLI_OK;
	if (!strcmp(verb, "down") && optind + 1 == argc)
		return lab_lock() < 0 || lab_down() ? CLI_ERR : (printf("lab: down\n"), CLI_OK);
	if (!strcmp(verb, "status") && optind + 1 == argc)
		return lab_status();
	if (!strcmp(verb, "run") && optind + 2 == argc) {
		if ((rc = lab_find(argv[optind + 1], &l)))
			return CLI_ERR; /* no such lab (usage), or its definition is broken */
		if (gen && real_rxe) {
			cli_error("lab", "--gen or --real-rxe, not both");
			rc = CLI_ERR;
		} else if (real_rxe && !lab_runs_a_stack(&l)) {
			cli_error("lab", "lab %s only replays frames made by rocelab gen: no stack runs in it, so the kernel "
					 "would have nothing to do; run it without --real-rxe", l.num);
			rc = CLI_ERR;
		} else if (cli_dry_parse()) {
			rc = CLI_OK;
		} else {
			setvbuf(stdout, NULL, _IOLBF, 0);
			rc = lab_workdir() || lab_use_params(&l) ? CLI_ERR : lab_run(&l, keep, gen, real_rxe);
		}
		lab_def_free(&l);
		return rc;
	}
	if (!strcmp(verb, "grade") && optind + 2 == argc) {
		if ((rc = lab_find(argv[optind + 1], &l)))
			return CLI_ERR; /* no such lab (usage), or its definition is broken */
		if (cli_dry_parse()) {
			lab_def_free(&l);
			return CLI_OK;
		}
		/* the defaults are where lab run put them; a path given is the current folder's */
		if (!lab_given(answers, apath, sizeof(apath)) || !lab_given(capture, cpath, sizeof(cpath)) ||
		    lab_workdir()) {
			lab_def_free(&l);
			return CLI_ERR;
		}
		if (!answers)
			snprintf(apath, sizeof(apath), "labs/%s-%s/answers.txt", l.num, l.name);
		if (!capture)
			snprintf(cpath, sizeof(cpath), LAB_OUT "/%s-%s.pcap", l.num, l.name);
		rc = lab_use_params(&l) ? CLI_ERR : grade_lab(&l, apath, cpath);
		lab_def_free(&l);
		return rc;
	}
	if ((!strcmp(verb, "predict") || !strcmp(verb, "quiz")) && optind + 2 == argc) {
		if ((rc = lab_find(argv[optind + 1], &l)))
			return CLI_ERR;
		if (!lab_set_params(&l, sets, nsets)) {
			lab_def_free(&l);
			return CLI_ERR;
		}
		if (cli_dry_parse()) {
			lab_def_free(&l);
			return CLI_OK;
		}
		if (!lab_given(answers, apath, sizeof(apath)) || lab_workdir()) {
			lab_def_free(&l);
			return CLI_ERR;
		}
		rc = !strcmp(verb, "predict") ? lab_predict(&l, answers ? apath : NULL)
					      : lab_quiz(&l, have_seed, seed, quiz_grade, answers ? apath : NULL);
		lab_def_free(&l);
		return rc;
	}
	cli_error("lab", "'%s' with %d argument(s): say list, run NN, grade NN, predict NN, quiz NN, up, down or status", verb,
		  argc - optind - 1);
	return CLI_ERR;
}
