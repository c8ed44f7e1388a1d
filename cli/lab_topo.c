/* SPDX-License-Identifier: MIT */
/*
 * rocelab lab: the topology and its capture (lab_topo.h). Every command is
 * printed first, so a learner can run it by hand. Without root,
 * `unshare --user --map-root-user --net --mount` gives a shell where
 * namespaces can be made: there /run is not ours to write, so a tmpfs goes
 * over it in that shell's own mount namespace, and tcpdump (which cannot
 * keep its root there) gives way to libpcap in this process's own child.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "lab_proc.h"
#include "lab_topo.h"

/*
 * Beside /run/netns, where the namespaces' names live: the lock, and which
 * namespaces rocelab made (their inodes, so a namespace of the same name made
 * by someone else later is not taken for ours).
 */
#define LAB_LOCK_FILE "/run/rocelab-lab.lock"
#define LAB_MADE_FILE "/run/rocelab-lab.made"

bool lab_is_up(void)
{
	struct stat st;

	return !stat("/run/netns/" LAB_NS_A, &st) && !stat("/run/netns/" LAB_NS_B, &st);
}

int lab_lock(void)
{
	char pid[32] = "";
	int fd = open(LAB_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0) {
		cli_error("lab", "cannot open the lab's lock %s: %s", LAB_LOCK_FILE, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno; /* pread() may change errno */

		n = err == EWOULDBLOCK ? pread(fd, pid, sizeof(pid) - 1, 0) : -1;
		pid[n > 0 ? strcspn(pid, "\n") : 0] = '\0';
		if (err == EWOULDBLOCK)
			cli_error("lab", "another rocelab lab (process %s) is using namespaces " LAB_NS_A " and " LAB_NS_B
					 ": one lab at a time; wait for it to finish",
				  *pid ? pid : "?");
		else
			cli_error("lab", "cannot lock %s: %s", LAB_LOCK_FILE, strerror(err));
		close(fd);
		return -1;
	}
	/* Our pid, for the message of a run refused; the lock holds without it. */
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) != n)
		cli_error("lab", "note: cannot write %s", LAB_LOCK_FILE);
	return fd;
}

/* "dev ino" of namespace @ns's name in @buf; false if there is none. */
static bool lab_ns_id(const char *ns, char *buf, size_t n)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	if (stat(path, &st))
		return false;
	snprintf(buf, n, "%ju %ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
	return true;
}

/* What LAB_MADE_FILE holds for the namespaces there now: "A-id B-id\n" (a missing one: "-"). */
static void lab_made_line(char *buf, size_t n)
{
	char a[64] = "-", b[64] = "-";

	lab_ns_id(LAB_NS_A, a, sizeof(a));
	lab_ns_id(LAB_NS_B, b, sizeof(b));
	snprintf(buf, n, "%s %s\n", a, b);
}

/* Did rocelab make the namespaces there now? */
static bool lab_ours(void)
{
	char want[160], got[160] = "";
	FILE *f = fopen(LAB_MADE_FILE, "r");

	if (!f)
		return false;
	if (!fgets(got, sizeof(got), f))
		got[0] = '\0';
	fclose(f);
	lab_made_line(want, sizeof(want));
	return !strcmp(want, got);
}

/* Remember the namespaces there now as rocelab's. */
static void lab_remember(void)
{
	char line[160];
	FILE *f = fopen(LAB_MADE_FILE, "w");

	lab_made_line(line, sizeof(line));
	if (f) {
		fputs(line, f);
		fclose(f);
	}
}

bool lab_in_userns(void)
{
	unsigned a, b, n;
	FILE *f = fopen("/proc/self/uid_map", "r");
	bool outer = f && fscanf(f, "%u %u %u", &a, &b, &n) == 3 && a == 0 && b == 0 && n == 4294967295u;

	if (f)
		fclose(f);
	return !outer;
}

bool lab_netns_possible(char *why, size_t n)
{
	struct stat st;

	if (geteuid() != 0) {
		snprintf(why, n, "network namespaces need root (or a shell from "
				 "'unshare --user --map-root-user --net --mount')");
		return false;
	}
	if (!stat("/run/netns", &st) && !access("/run/netns", W_OK))
		return true;
	if (!mkdir("/run/netns", 0755))
		return true;
	if (!lab_in_userns()) {
		snprintf(why, n, "cannot create /run/netns: %s", strerror(errno));
		return false;
	}
	/* A user namespace: /run belongs to the real root. Our own mount namespace may cover it. */
	if (mount("tmpfs", "/run", "tmpfs", 0, "mode=755") || mkdir("/run/netns", 0755)) {
		snprintf(why, n, "cannot create /run/netns (%s); in a user namespace, unshare --mount as well",
			 strerror(errno));
		return false;
	}
	return true;
}

/* Remove the namespaces named: those this process (or rocelab before it) made. */
static int lab_remove(bool a, bool b)
{
	int rc = 0;

	if (a && access("/run/netns/" LAB_NS_A, F_OK) == 0)
		rc |= lab_cmd(false, "ip netns del " LAB_NS_A);
	if (b && access("/run/netns/" LAB_NS_B, F_OK) == 0)
		rc |= lab_cmd(false, "ip netns del " LAB_NS_B);
	if (access("/run/netns/" LAB_NS_A, F_OK) && access("/run/netns/" LAB_NS_B, F_OK))
		unlink(LAB_MADE_FILE);
	return rc ? -1 : 0;
}

/* Say that the namespaces named as the lab's, there now, are someone else's, and what is @done with them. */
static void lab_not_ours(const char *done)
{
	bool a = !access("/run/netns/" LAB_NS_A, F_OK), b = !access("/run/netns/" LAB_NS_B, F_OK);
	const char *which = a && b ? LAB_NS_A " and " LAB_NS_B : a ? LAB_NS_A : LAB_NS_B;
	const char *del = a && b ? "ip netns del " LAB_NS_A "; ip netns del " LAB_NS_B
				 : a ? "ip netns del " LAB_NS_A : "ip netns del " LAB_NS_B;

	cli_error("lab", "namespace %s: not made by rocelab lab, so %s (if yours and unused: %s)", which, done, del);
}

int lab_down(void)
{
	if (access("/run/netns/" LAB_NS_A, F_OK) && access("/run/netns/" LAB_NS_B, F_OK))
		return 0;
	if (!lab_ours()) {
		lab_not_ours("left as it is");
		return -1;
	}
	return lab_remove(true, true);
}

pid_t lab_netns_user(const char *ns)
{
	char path[300];
	struct stat want, st;
	struct dirent *e;
	pid_t found = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	if (stat(path, &want))
		return -1;
	d = opendir("/proc");
	while (d && !found && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		snprintf(path, sizeof(path), "/proc/%s/ns/net", e->d_name);
		if (*end || pid <= 0 || stat(path, &st))
			continue;
		if (st.st_dev == want.st_dev && st.st_ino == want.st_ino)
			found = (pid_t)pid;
	}
	if (d)
		closedir(d);
	return found;
}

static int lab_set_mtu(unsigned mtu)
{
	return lab_cmd(false, "ip -n " LAB_NS_A " link set " LAB_IF_A " mtu %u", mtu) ||
			       lab_cmd(false, "ip -n " LAB_NS_B " link set " LAB_IF_B " mtu %u", mtu)
		       ? -1
		       : 0;
}

/* The two hosts: rl-a (10.90.0.1, fd90::1) and rl-b (10.90.0.2, fd90::2), veth rl-a0 -- rl-b0. */
int lab_up(unsigned mtu, bool *made)
{
	static const char *const cmds[] = {
		"ip netns add " LAB_NS_A,
		"ip netns add " LAB_NS_B,
		"ip -n " LAB_NS_A " link add " LAB_IF_A " type veth peer name " LAB_IF_B " netns " LAB_NS_B,
		"ip -n " LAB_NS_A " addr add " LAB_IP_A "/24 dev " LAB_IF_A,
		"ip -n " LAB_NS_B " addr add " LAB_IP_B "/24 dev " LAB_IF_B,
		"ip -n " LAB_NS_A " addr add fd90::1/64 dev " LAB_IF_A " nodad",
		"ip -n " LAB_NS_B " addr add fd90::2/64 dev " LAB_IF_B " nodad",
		"ip -n " LAB_NS_A " link set lo up",
		"ip -n " LAB_NS_B " link set lo up",
		"ip -n " LAB_NS_A " link set " LAB_IF_A " up",
		"ip -n " LAB_NS_B " link set " LAB_IF_B " up",
	};
	char why[256];
	bool made_a = false;

	*made = false;
	if (lab_is_up() && lab_ours()) {
		printf("lab: the topology is up already\n");
		return lab_set_mtu(mtu);
	}
	if (!access("/run/netns/" LAB_NS_A, F_OK) || !access("/run/netns/" LAB_NS_B, F_OK)) {
		lab_not_ours("neither used nor removed");
		return -1;
	}
	if (!lab_netns_possible(why, sizeof(why))) {
		cli_error("lab", "%s", why);
		return -1;
	}
	printf("lab: two hosts, %s (%s) and %s (%s), joined by a veth pair %s -- %s, MTU %u\n", LAB_NS_A, LAB_IP_A,
	       LAB_NS_B, LAB_IP_B, LAB_IF_A, LAB_IF_B, mtu);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (lab_cmd(false, "%s", cmds[i])) {
			/* Only what this call made: a namespace it could not add is someone else's. */
			cli_error("lab", "'%s' failed; taking down what this run made", cmds[i]);
			lab_remove(made_a, i > 1);
			return -1;
		}
		made_a = true; /* cmds[0] added it */
	}
	*made = true;
	lab_remember();
	return lab_set_mtu(mtu);
}

int lab_status(void)
{
	if (!lab_is_up()) {
		printf("lab: down (start it with 'rocelab lab up', or run a lab)\n");
		return 1;
	}
	printf("lab: up\n");
	fflush(stdout);
	lab_cmd(true, "ip -n " LAB_NS_A " -br addr show dev " LAB_IF_A);
	lab_cmd(true, "ip -n " LAB_NS_B " -br addr show dev " LAB_IF_B);
	lab_cmd(true, "ip -n " LAB_NS_A " -o link show dev " LAB_IF_A);
	return 0;
}

/* The capture child's handle, for its signal handler to end the loop. */
static pcap_t *lab_pcap;

static void lab_pcap_stop(int sig)
{
	(void)sig;
	if (lab_pcap)
		pcap_breakloop(lab_pcap);
}

/*
 * The capture without tcpdump, for a user namespace: tcpdump gives up its
 * root there (initgroups is not allowed) and fails. Same libpcap, same filter.
 */
static void lab_capture_child(const char *pcap, const char *err, const char *ns_name, const char *ifname,
			      unsigned mtu, const char *filter)
{
	char eb[PCAP_ERRBUF_SIZE];
	struct bpf_program bpf;
	struct sigaction sa = { .sa_handler = lab_pcap_stop };
	pcap_dumper_t *d;
	FILE *e = fopen(err, "w");
	char path[128];
	int ns;

	snprintf(path, sizeof(path), "/run/netns/%s", ns_name);
	ns = open(path, O_RDONLY | O_CLOEXEC);

	if (!e)
		_exit(2);
	setvbuf(e, NULL, _IONBF, 0);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (ns < 0 || setns(ns, CLONE_NEWNET)) {
		fprintf(e, "cannot enter %s: %s\n", ns_name, strerror(errno));
		_exit(2);
	}
	lab_pcap = pcap_create(ifname, eb);
	if (!lab_pcap || pcap_set_snaplen(lab_pcap, (int)LAB_SNAPLEN(mtu)) ||
	    pcap_set_immediate_mode(lab_pcap, 1) || pcap_set_buffer_size(lab_pcap, LAB_CAPTURE_KIB << 10) || pcap_activate(lab_pcap) < 0 ||
	    pcap_compile(lab_pcap, &bpf, filter, 1, PCAP_NETMASK_UNKNOWN) ||
	    pcap_setfilter(lab_pcap, &bpf) || !(d = pcap_dump_open(lab_pcap, pcap))) {
		fprintf(e, "libpcap: %s\n", lab_pcap ? pcap_geterr(lab_pcap) : eb);
		_exit(2);
	}
	fprintf(e, "listening on %s (libpcap, in a user namespace)\n", ifname);
	while (pcap_dispatch(lab_pcap, -1, pcap_dump, (u_char *)d) >= 0)
		pcap_dump_flush(d);
	pcap_dump_close(d);
	_exit(0);
}

pid_t lab_capture_start(const char *pcap, const char *err, const char *ns, const char *ifname, unsigned mtu,
			const char *filter)
{
	char line[1024];
	int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	pid_t pid;

	if (lab_in_userns()) {
		printf("  (a user namespace: tcpdump cannot keep its root here, so libpcap captures in its place)\n");
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			lab_capture_child(pcap, err, ns, ifname, mtu, filter);
	} else {
		/* -Z root: tcpdump would give the file to its own user, which a user namespace does not have. */
		snprintf(line, sizeof(line),
			 "ip netns exec %s tcpdump -i %s -n -U --immediate-mode -s %u -B %u -Z root -w %s %s",
			 ns, ifname, LAB_SNAPLEN(mtu), LAB_CAPTURE_KIB, pcap, filter);
		printf("  + %s &\n", line);
		pid = lab_spawn(line, fd, fd);
	}
	if (fd >= 0)
		close(fd);
	if (pid > 0 && !lab_wait_text(err, "listening on", 5000)) {
		kill(pid, SIGTERM);
		lab_wait(pid);
		cli_error("lab", "the capture did not start; see %s", err);
		return -1;
	}
	return pid;
}

void lab_capture_stop(pid_t pid, const char *err)
{
	char buf[4096], num[32];
	FILE *f;
	size_t n;
	const char *d;

	usleep(200000); /* the last frames of the last step */
	kill(pid, SIGINT);
	lab_wait(pid);
	f = fopen(err, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	d = strstr(buf, " packets dropped by kernel");
	if (d && d > buf) {
		const char *b = d;
		uint64_t dropped;

		while (b > buf && b[-1] != '\n')
			b--;
		snprintf(num, sizeof(num), "%.*s", (int)(d - b), b);
		if (cli_parse_u64(num, UINT32_MAX, &dropped) && dropped > 0)
			printf("  note: tcpdump says %" PRIu64 " packets were dropped by the kernel: the capture misses them\n",
			       dropped);
	}
	unlink(err);
}
