/* SPDX-License-Identifier: MIT */
/*
 * rocelab switch IF IF [IF...]: a learning Ethernet switch in user space
 * with a congestion point on every egress port, for real links on a kernel
 * without sch_red or fq_codel (issue 23's third kind of congestion point).
 *
 * Frames come in on AF_PACKET sockets, one per port (never our own sends:
 * PACKET_IGNORE_OUTGOING, and the packet type checked as well). The switch
 * learns each source MAC's port and forwards to it, or floods broadcast,
 * multicast and unknown destinations, as an 802.1D bridge does. Each copy
 * is offered to its egress port's queue: core's rl_bottleneck_queue, the
 * very queue the simulated wire uses (line rate, tail drop, RED/ECN on the
 * instantaneous depth), fed with CLOCK_MONOTONIC. The queue says when the
 * frame's last bit departs, and it is sent then: ppoll() sleeps until the
 * next departure, the next frame in, or the next report.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "gen.h"
#include "json.h"
#include "rocelab/rocelab.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23       /* Linux 4.20, include/uapi/linux/if_packet.h */
#endif

#define SW_MAX_PORTS 8
#define SW_MACS 1024                    /* learned addresses; the oldest goes when full */
#define SW_BURST 64                     /* frames read from one port per wake, so no port starves the others */
#define SW_MAX_GBPS 1000.0
#define SW_MIN_GBPS 0.001               /* 1 Mb/s: a user-space switch on veths forwards well below 10 Gb/s */
#define SW_MAX_DURATION 86400
#define SW_RCVBUF (4 << 20)             /* a burst into a slow port waits here, not in the kernel's drops */
#define SW_WHY_MAX 320                  /* a refusal of the thresholds, as gen_bottleneck_check() words it */

/* What a port did, over a report's second or since the start. */
struct sw_tally {
	uint64_t in, out, out_bytes, marked, drop_full, drop_red, send_err;
	uint64_t drop_nomem;             /* no memory for a copy or a queue slot */
	uint64_t depth_max, depth_area;  /* bytes; bytes x ns */
};

struct sw_port {
	const char *name;
	int ifindex, fd;
	struct rl_bottleneck_queue *q;  /* holds the admitted frames (malloc'd copies) until they depart */
	uint64_t depth, depth_t;        /* the queue's depth since depth_t, from its samples */
	bool down;                      /* link down (ENETDOWN): not polled until it is up again */
	struct sw_tally sec, all;
};

struct sw_mac {
	uint8_t mac[ETH_ALEN];
	int port;
	uint64_t seen;
};

struct sw_opts {
	char **ifaces;
	int nports;
	struct rl_bottleneck bn;
	uint64_t seed, duration_s;
	bool json;
};

struct sw {
	struct sw_opts o;
	struct sw_port port[SW_MAX_PORTS];
	struct sw_mac mac[SW_MACS];
	size_t nmacs;
	uint64_t start, next_report, end;
	uint64_t last_arrival;          /* of the frame offered last */
	uint64_t too_big;               /* frames longer than the wire carries: not forwarded */
	bool gone;                      /* a port's interface went away (deleted): stop, exit non-zero */
	sigset_t wait_mask;             /* SIGINT and SIGTERM unblocked: only inside ppoll() */
	struct json j;
};

static volatile sig_atomic_t sw_stop;

static void sw_on_signal(int sig)
{
	(void)sig;
	sw_stop = 1;
}

static uint64_t sw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * CLI_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void sw_usage(FILE *f)
{
	struct rl_bottleneck d;

	rl_bottleneck_defaults(&d);
	fprintf(f,
		"usage: rocelab switch IFACE IFACE [IFACE...] [options]\n\n"
		"A learning Ethernet switch between interfaces (e.g. veths in a router namespace),\n"
		"in user space over AF_PACKET, with one egress queue per port: a line rate, tail\n"
		"drop and RED/ECN marking on the instantaneous queue depth, the same queue as\n"
		"'rocelab gen dcqcn' simulates (Kmin, Kmax, Pmax as the DCQCN paper's switch).\n"
		"An ECN-capable frame RED picks is marked CE (the IPv4 checksum updated, the ICRC\n"
		"untouched: it masks the ECN bits); a Not-ECT one is dropped. Each second, a line\n"
		"per port with traffic: its rate out, queue depth, marks and drops; a summary at\n"
		"the end (Ctrl-C, SIGTERM or --duration). Needs root or CAP_NET_RAW.\n\n"
		"options:\n"
		"      --rate GBPS      each port's line rate in Gbit/s, e.g. 0.5 (default %g)\n"
		"      --kmin KB, --kmax KB, --pmax P  RED/ECN marking (default %u, %u, %g: DCQCN's)\n"
		"      --queue KB       each port's buffer, tail drop past it (default %u; KB = 1024 bytes)\n"
		"      --seed N         seed of the RED draws (default 1)\n"
		"      --duration S     stop after S seconds (default: at Ctrl-C or SIGTERM)\n"
		"      --json           one JSON object per line instead of text\n"
		"  -h, --help           this text\n\n"
		"example (three namespaces joined to a router namespace by veths):\n"
		"  ip netns exec router rocelab switch rl-r1 rl-r2 rl-r3 --rate 0.5 --kmin 20 --kmax 100\n",
		(double)d.rate_bps / 1e9, d.kmin / RL_BOTTLENECK_KB, d.kmax / RL_BOTTLENECK_KB, d.pmax,
		d.queue_bytes / RL_BOTTLENECK_KB);
}

static int sw_opt(int c, const char *arg, struct sw_opts *o)
{
	enum { O_RATE = 256, O_KMIN, O_KMAX, O_PMAX, O_QUEUE, O_SEED, O_DURATION, O_JSON };

	switch (c) {
	case O_RATE:
		return cli_arg_gbps("switch", "--rate", arg, SW_MIN_GBPS, SW_MAX_GBPS, &o->bn.rate_bps) ? 0 : CLI_ERR;
	case O_KMIN: return cli_arg_kb("switch", "--kmin", arg, 0, &o->bn.kmin) ? 0 : CLI_ERR;
	case O_KMAX: return cli_arg_kb("switch", "--kmax", arg, 0, &o->bn.kmax) ? 0 : CLI_ERR;
	case O_QUEUE: return cli_arg_kb("switch", "--queue", arg, 1, &o->bn.queue_bytes) ? 0 : CLI_ERR;
	case O_PMAX: return cli_arg_pmax("switch", arg, &o->bn.pmax) ? 0 : CLI_ERR;
	case O_SEED: return cli_arg_u64("switch", "--seed", arg, 0, UINT64_MAX, "a number", &o->seed) ? 0 : CLI_ERR;
	case O_DURATION:
		return cli_arg_u64("switch", "--duration", arg, 1, SW_MAX_DURATION, "seconds from 1 to 86400",
				   &o->duration_s) ? 0 : CLI_ERR;
	case O_JSON: o->json = true; return 0;
	}
	return CLI_ERR;
}

/* The interfaces, and the thresholds checked as 'gen dcqcn' checks its own (gen_bottleneck_check). */
static int sw_check(const struct sw_opts *o)
{
	char why[SW_WHY_MAX];

	if (o->nports < 2) {
		cli_error("switch", o->nports ? "one interface is not a switch: give two or more (see rocelab switch --help)"
					      : "which interfaces? give two or more (see rocelab switch --help)");
		return CLI_ERR;
	}
	if (o->nports > SW_MAX_PORTS) {
		cli_error("switch", "at most %d interfaces", SW_MAX_PORTS);
		return CLI_ERR;
	}
	for (int i = 0; i < o->nports; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(o->ifaces[i], o->ifaces[k])) {
				cli_error("switch", "interface '%s' is named twice", o->ifaces[i]);
				return CLI_ERR;
			}
	if (gen_bottleneck_check(o->bn.kmin, o->bn.kmax, o->bn.queue_bytes, ETH_FRAME_LEN, why, sizeof(why))) {
		cli_error("switch", "%s", why);
		return CLI_ERR;
	}
	return CLI_OK;
}

static int sw_parse(int argc, char **argv, struct sw_opts *o)
{
	static const struct option opts[] = {
		{ "rate", required_argument, NULL, 256 }, { "kmin", required_argument, NULL, 257 },
		{ "kmax", required_argument, NULL, 258 }, { "pmax", required_argument, NULL, 259 },
		{ "queue", required_argument, NULL, 260 }, { "seed", required_argument, NULL, 261 },
		{ "duration", required_argument, NULL, 262 }, { "json", no_argument, NULL, 263 },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			sw_usage(stdout);
			return -1;
		}
		if (c == ':' || c == '?')
			return cli_opt_error("switch", c, argv);
		if (sw_opt(c, optarg, o))
			return CLI_ERR;
	}
	o->ifaces = argv + optind;
	o->nports = argc - optind;
	return sw_check(o);
}

/* ---- ports ---------------------------------------------------------------------------------- */

/* The queue's samples: its depth over time, for the average and the maximum. */
static void sw_sample(void *ctx, const struct rl_bottleneck_sample *s)
{
	struct sw_port *p = ctx;
	/* A frame's kernel timestamp may predate the last report: the area from then is already counted. */
	uint64_t area = s->time_ns > p->depth_t ? p->depth * (s->time_ns - p->depth_t) : 0;

	p->sec.depth_area += area;
	p->all.depth_area += area;
	p->depth = s->depth_bytes;
	if (s->time_ns > p->depth_t)
		p->depth_t = s->time_ns;
	if (p->depth > p->sec.depth_max)
		p->sec.depth_max = p->depth;
	if (p->depth > p->all.depth_max)
		p->all.depth_max = p->depth;
}

static int sw_socket(struct sw_port *p)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = p->ifindex };
	struct packet_mreq promisc = { .mr_ifindex = p->ifindex, .mr_type = PACKET_MR_PROMISC };
	int one = 1, rcvbuf = SW_RCVBUF;

	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (p->fd < 0) {
		if (errno == EPERM || errno == EACCES)
			cli_error("switch", "needs CAP_NET_RAW: run as root or in a user namespace that owns the interfaces");
		else
			cli_error("switch", "AF_PACKET socket: %s", strerror(errno));
		return CLI_ERR;
	}
	(void)setsockopt(p->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	(void)setsockopt(p->fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one));
	/* Before Linux 4.20 the option is unknown: sw_read() skips PACKET_OUTGOING frames anyway. */
	(void)setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	/* Past net.core.rmem_max if we may (CAP_NET_ADMIN), else as far as it lets us. */
	if (setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		(void)setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(p->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &promisc, sizeof(promisc))) {
		cli_error("switch", "%s: %s", p->name, strerror(errno));
		return CLI_ERR;
	}
	return CLI_OK;
}

static int sw_open(struct sw *s)
{
	for (int i = 0; i < s->o.nports; i++) {
		struct sw_port *p = &s->port[i];

		p->name = s->o.ifaces[i];
		p->fd = -1;
		if (strlen(p->name) >= IF_NAMESIZE || !(p->ifindex = (int)if_nametoindex(p->name))) {
			cli_error("switch", "no interface '%s' here (ip link shows those there are)", p->name);
			return CLI_ERR;
		}
	}
	for (int i = 0; i < s->o.nports; i++) {
		struct sw_port *p = &s->port[i];
		struct rl_bottleneck b = s->o.bn;

		if (sw_socket(p))
			return CLI_ERR;
		b.sample = sw_sample;
		b.ctx = p;
		/* Each port its own RED stream, so ports do not share draws. */
		if (!(p->q = rl_bottleneck_queue_new(&b, s->o.seed + (uint64_t)i))) {
			cli_error("switch", "out of memory");
			return CLI_ERR;
		}
	}
	return CLI_OK;
}

static void sw_close(struct sw *s)
{
	for (int i = 0; i < s->o.nports; i++) {
		struct sw_port *p = &s->port[i];

		uint8_t *f;
		size_t len;

		if (p->fd >= 0)
			close(p->fd);
		while (p->q && rl_bottleneck_queue_pop(p->q, UINT64_MAX, &f, &len))
			free(f);
		rl_bottleneck_queue_free(p->q);
	}
}

/* ---- forwarding ----------------------------------------------------------------------------- */

/* 802.1D learning: the port a source address was last seen on. */
static void sw_learn(struct sw *s, const uint8_t *mac, int port, uint64_t now)
{
	size_t oldest = 0;

	if (mac[0] & 1)
		return;         /* a group address is never a source */
	for (size_t i = 0; i < s->nmacs; i++) {
		if (!memcmp(s->mac[i].mac, mac, ETH_ALEN)) {
			s->mac[i].port = port;
			s->mac[i].seen = now;
			return;
		}
		if (s->mac[i].seen < s->mac[oldest].seen)
			oldest = i;
	}
	if (s->nmacs < SW_MACS)
		oldest = s->nmacs++;
	memcpy(s->mac[oldest].mac, mac, ETH_ALEN);
	s->mac[oldest].port = port;
	s->mac[oldest].seen = now;
}

/* The port a destination was learned on; -1 to flood (group address or unknown). */
static int sw_lookup(const struct sw *s, const uint8_t *mac)
{
	if (mac[0] & 1)
		return -1;
	for (size_t i = 0; i < s->nmacs; i++)
		if (!memcmp(s->mac[i].mac, mac, ETH_ALEN))
			return s->mac[i].port;
	return -1;
}

/* Send what has departed by @now. */
static void sw_transmit(struct sw_port *p, uint64_t now)
{
	uint8_t *f;
	size_t len;

	while (rl_bottleneck_queue_pop(p->q, now, &f, &len)) {
		if (send(p->fd, f, len, MSG_DONTWAIT) == (ssize_t)len) {
			p->sec.out++;
			p->all.out++;
			p->sec.out_bytes += len;
			p->all.out_bytes += len;
		} else {
			p->sec.send_err++;
			p->all.send_err++;
		}
		free(f);
	}
}

/* The verdict @v on a frame offered to port @p (negative: no memory), in both tallies. */
static void sw_count(struct sw_port *p, int v)
{
	struct sw_tally *t[] = { &p->sec, &p->all };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		t[i]->in++;
		t[i]->marked += v == RL_BOTTLENECK_MARKED;
		t[i]->drop_full += v == RL_BOTTLENECK_DROP_FULL;
		t[i]->drop_red += v == RL_BOTTLENECK_DROP_RED;
		t[i]->drop_nomem += v < 0;
	}
}

/*
 * A copy of the frame into port @p's queue at @t: marked, dropped, or kept
 * there until it departs. What departed by @t is sent first, since the
 * offer would take it out of the queue (it is due: @t is not in the future).
 */
static void sw_enqueue(struct sw_port *p, const uint8_t *frame, size_t len, uint64_t t)
{
	uint8_t *copy = malloc(len);
	uint64_t depart;
	int v = -1;

	if (copy) {
		memcpy(copy, frame, len);
		sw_transmit(p, t);
		v = rl_bottleneck_queue_offer(p->q, copy, len, t, &depart);
	}
	sw_count(p, v);
	if (v != RL_BOTTLENECK_PASS && v != RL_BOTTLENECK_MARKED)
		free(copy);
}

static void sw_forward(struct sw *s, int in, const uint8_t *frame, size_t len, uint64_t now)
{
	int out;

	sw_learn(s, frame + ETH_ALEN, in, now);
	out = sw_lookup(s, frame);
	if (out == in)
		return;         /* both ends behind one port: nothing to forward */
	for (int i = 0; i < s->o.nports; i++)
		if (i != in && (out < 0 || i == out))
			sw_enqueue(&s->port[i], frame, len, now);
}

/* ---- checksums the sender's kernel left to a NIC -------------------------------------------- */

static uint32_t sw_sum(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

/*
 * A frame from a veth whose sender offloads checksums (TP_STATUS_CSUMNOTREADY)
 * carries only the pseudo-header's part of its UDP or TCP checksum: a NIC
 * would finish it on the way out, but this frame leaves through another
 * AF_PACKET socket, as is. Finish it here (RFC 768, RFC 9293 3.1; IPv6's
 * pseudo-header RFC 8200 8.1), for IPv4 and IPv6 without extension headers.
 */
static void sw_finish_csum(uint8_t *f, size_t len)
{
	size_t ip = ETH_HLEN, l4, l4len, at;
	uint32_t sum;
	uint8_t proto;

	if ((f[12] << 8 | f[13]) == ETH_P_IP && len >= ip + 20 && f[ip] >> 4 == 4) {
		l4 = ip + (size_t)(f[ip] & 0x0f) * 4;
		l4len = (size_t)(f[ip + 2] << 8 | f[ip + 3]) - (l4 - ip);
		proto = f[ip + 9];
		sum = sw_sum(f + ip + 12, 8, 0);
	} else if ((f[12] << 8 | f[13]) == ETH_P_IPV6 && len >= ip + 40 && f[ip] >> 4 == 6) {
		l4 = ip + 40;
		l4len = (size_t)(f[ip + 4] << 8 | f[ip + 5]);
		proto = f[ip + 6];
		sum = sw_sum(f + ip + 8, 32, 0);
	} else {
		return;
	}
	at = proto == IPPROTO_UDP ? 6 : proto == IPPROTO_TCP ? 16 : 0;
	if (!at || l4 > len || l4len > len - l4 || l4len < at + 2)
		return;
	f[l4 + at] = f[l4 + at + 1] = 0;
	sum = sw_sum(f + l4, l4len, sum + proto + (uint32_t)l4len);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	if (!sum && proto == IPPROTO_UDP)
		sum = 0xffff;   /* RFC 768: a computed 0 is sent as all ones */
	f[l4 + at] = (uint8_t)(sum >> 8);
	f[l4 + at + 1] = (uint8_t)sum;
}

/*
 * When the frame reached the interface: the kernel's receive timestamp
 * (SO_TIMESTAMPNS, CLOCK_REALTIME) moved onto CLOCK_MONOTONIC, so a switch
 * that was not scheduled for a while sees a burst the way it arrived, not
 * as frames all arriving at once when it reads them. Never before the
 * previous frame offered (the queue's time does not go back), never after @now.
 */
static uint64_t sw_arrival(struct sw *s, struct msghdr *m, uint64_t now)
{
	uint64_t t = now;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		struct timespec ts, real;
		uint64_t at, real_ns;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		clock_gettime(CLOCK_REALTIME, &real);
		real_ns = (uint64_t)real.tv_sec * CLI_NS_PER_S + (uint64_t)real.tv_nsec;
		at = (uint64_t)ts.tv_sec * CLI_NS_PER_S + (uint64_t)ts.tv_nsec;
		if (at <= real_ns && real_ns - at < now)
			t = now - (real_ns - at);
	}
	if (t < s->last_arrival)
		t = s->last_arrival;
	s->last_arrival = t;
	return t;
}

static bool sw_csum_not_ready(struct msghdr *m)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		struct tpacket_auxdata aux;

		if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA)
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		return aux.tp_status & TP_STATUS_CSUMNOTREADY;
	}
	return false;
}

/* Up to SW_BURST frames from port @in. */
static void sw_read(struct sw *s, int in)
{
	static uint8_t buf[RL_SIMWIRE_MAX_FRAME];
	union {
		char b[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(struct tpacket_auxdata))];
		struct cmsghdr align;
	} ctl;

	for (int n = 0; n < SW_BURST; n++) {
		struct sockaddr_ll from;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b) };
		ssize_t len = recvmsg(s->port[in].fd, &m, MSG_TRUNC);

		if (len < 0)
			return;
		if (from.sll_pkttype == PACKET_OUTGOING || len < ETH_HLEN)
			continue;
		if ((size_t)len > sizeof(buf)) {
			s->too_big++;
			continue;
		}
		if (sw_csum_not_ready(&m))
			sw_finish_csum(buf, (size_t)len);
		sw_forward(s, in, buf, (size_t)len, sw_arrival(s, &m, sw_now()));
	}
}

/* ---- reports -------------------------------------------------------------------------------- */

/*
 * The depth integral up to @now, for a report's average, and the depth at
 * @now. Read without draining the queue: a frame read after the report may
 * carry a kernel timestamp before @now, and RED must then still see the
 * frames that were queued at that time. The samples of frames leaving
 * before @now come later, and add no area before @now (sw_sample).
 */
static uint64_t sw_depth_until(struct sw_port *p, uint64_t now)
{
	uint64_t area, to = now > p->depth_t ? now : p->depth_t;
	uint64_t depth = rl_bottleneck_queue_depth_over(p->q, p->depth_t, to, &area);

	p->sec.depth_area += area;
	p->all.depth_area += area;
	p->depth_t = to;
	return depth;
}

static void sw_line(struct sw *s, const struct sw_port *p, const struct sw_tally *t, uint64_t t0, uint64_t t1,
		    bool summary)
{
	double secs = (double)(t1 - t0) / 1e9, at = (double)(t1 - s->start) / 1e9;
	double mbps = secs > 0 ? (double)t->out_bytes * 8 / secs / 1e6 : 0;
	double avg = t1 > t0 ? (double)t->depth_area / (double)(t1 - t0) : 0;

	if (s->o.json) {
		json_obj(&s->j, NULL);
		json_str(&s->j, "type", summary ? "summary" : "second");
		json_double(&s->j, "time_s", at, 3);
		json_str(&s->j, "port", p->name);
		json_u64(&s->j, "frames_in", t->in);
		json_u64(&s->j, "frames_out", t->out);
		json_u64(&s->j, "bytes_out", t->out_bytes);
		json_double(&s->j, "out_mbps", mbps, 3);
		json_u64(&s->j, "queue_max_bytes", t->depth_max);
		json_double(&s->j, "queue_avg_bytes", avg, 1);
		json_u64(&s->j, "marked", t->marked);
		json_u64(&s->j, "dropped_tail", t->drop_full);
		json_u64(&s->j, "dropped_not_ect", t->drop_red);
		json_u64(&s->j, "dropped_no_memory", t->drop_nomem);
		json_u64(&s->j, "send_errors", t->send_err);
		json_end(&s->j);
		json_newline(&s->j);
		return;
	}
	printf("[%5.1f s] %-8s %s %7.1f Mb/s  queue max %.1f KB avg %.1f KB  marked %" PRIu64 "  dropped %" PRIu64
	       " (tail %" PRIu64 ", not-ECT %" PRIu64 ")", at, p->name, summary ? "all" : "out", mbps,
	       (double)t->depth_max / RL_BOTTLENECK_KB, avg / RL_BOTTLENECK_KB, t->marked,
	       t->drop_full + t->drop_red + t->drop_nomem, t->drop_full, t->drop_red);
	if (t->drop_nomem)
		printf("  dropped for want of memory %" PRIu64, t->drop_nomem);
	if (summary)
		printf("  frames in %" PRIu64 " out %" PRIu64, t->in, t->out);
	if (t->send_err)
		printf("  send errors %" PRIu64, t->send_err);
	printf("\n");
}

/* Each second, a line per port that had traffic. */
static void sw_report(struct sw *s, uint64_t now)
{
	for (int i = 0; i < s->o.nports; i++) {
		struct sw_port *p = &s->port[i];

		uint64_t depth = sw_depth_until(p, now);

		if (p->sec.in || p->sec.out)
			sw_line(s, p, &p->sec, now - CLI_NS_PER_S > s->start ? now - CLI_NS_PER_S : s->start, now, false);
		p->sec = (struct sw_tally){ .depth_max = depth };   /* a queue that stays full is still full */
	}
	fflush(stdout);
}

/* Frames the kernel dropped because the switch read too slowly: not the congestion point's drops. */
static void sw_kernel_drops(struct sw *s)
{
	for (int i = 0; i < s->o.nports; i++) {
		struct tpacket_stats st = { 0 };
		socklen_t l = sizeof(st);

		if (getsockopt(s->port[i].fd, SOL_PACKET, PACKET_STATISTICS, &st, &l) || !st.tp_drops)
			continue;
		if (s->o.json) {
			json_obj(&s->j, NULL);
			json_str(&s->j, "type", "kernel_drops");
			json_str(&s->j, "port", s->port[i].name);
			json_u64(&s->j, "frames", st.tp_drops);
			json_end(&s->j);
			json_newline(&s->j);
		} else {
			printf("%s: %u frames in dropped by the kernel before the switch read them (a slow switch)\n",
			       s->port[i].name, st.tp_drops);
		}
	}
}

static void sw_summary(struct sw *s, uint64_t now)
{
	if (!s->o.json)
		printf("summary after %.1f s (Kmin %u KB, Kmax %u KB, Pmax %g, queue %u KB, %g Gb/s a port):\n",
		       (double)(now - s->start) / 1e9, s->o.bn.kmin / RL_BOTTLENECK_KB, s->o.bn.kmax / RL_BOTTLENECK_KB,
		       s->o.bn.pmax, s->o.bn.queue_bytes / RL_BOTTLENECK_KB, (double)s->o.bn.rate_bps / 1e9);
	for (int i = 0; i < s->o.nports; i++) {
		sw_depth_until(&s->port[i], now);
		sw_line(s, &s->port[i], &s->port[i].all, s->start, now, true);
	}
	sw_kernel_drops(s);
	if (s->too_big && !s->o.json)
		printf("%" PRIu64 " frames longer than %d bytes not forwarded (turn GRO/TSO off?)\n", s->too_big,
		       RL_SIMWIRE_MAX_FRAME);
	fflush(stdout);
}

/* ---- the loop ------------------------------------------------------------------------------- */

/* The next moment something is due: a departure, a report, the end. */
static uint64_t sw_next_due(const struct sw *s)
{
	uint64_t t = s->next_report < s->end ? s->next_report : s->end;

	for (int i = 0; i < s->o.nports; i++) {
		uint64_t d = rl_bottleneck_queue_next_departure(s->port[i].q);

		if (d < t)
			t = d;
	}
	return t;
}

enum sw_link { SW_LINK_UP, SW_LINK_DOWN, SW_LINK_GONE };

/* Port @p's interface: up and running, down (or no carrier), or gone (deleted, its name now another's). */
static enum sw_link sw_link_state(const struct sw_port *p)
{
	struct ifreq ifr = { 0 };
	const short up = IFF_UP | IFF_RUNNING;

	if (if_nametoindex(p->name) != (unsigned)p->ifindex)
		return SW_LINK_GONE;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->name);
	if (ioctl(p->fd, SIOCGIFFLAGS, &ifr))
		return errno == ENODEV ? SW_LINK_GONE : SW_LINK_DOWN;
	return (ifr.ifr_flags & up) == up ? SW_LINK_UP : SW_LINK_DOWN;
}

static void sw_port_gone(struct sw *s, const struct sw_port *p)
{
	cli_error("switch", "interface %s went away", p->name);
	s->gone = true;
}

/*
 * POLLERR, POLLHUP or POLLNVAL on port @i: read its socket's error with
 * SO_ERROR, which clears it (else poll() reports it again at once, for ever).
 * The kernel says ENETDOWN both for a link set down and for an interface
 * deleted (a deleted one goes down first): a port whose link is down is not
 * polled until sw_revive() sees it up; one whose interface is gone stops the switch.
 */
static void sw_port_error(struct sw *s, struct pollfd *pfd, int i)
{
	struct sw_port *p = &s->port[i];
	int err = 0;
	socklen_t l = sizeof(err);

	if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &l))
		err = errno;
	if (err && err != ENETDOWN && err != ENODEV && err != ENXIO) {
		cli_error("switch", "%s: %s", p->name, strerror(err));
		return;
	}
	if (err == ENODEV || err == ENXIO || (pfd[i].revents & POLLNVAL) || sw_link_state(p) == SW_LINK_GONE) {
		sw_port_gone(s, p);
		return;
	}
	p->down = true;
	pfd[i].fd = -1;         /* ppoll() skips it */
}

/* Once a second: a port whose link went down is polled again once it is up, or stops the switch if gone. */
static void sw_revive(struct sw *s, struct pollfd *pfd)
{
	for (int i = 0; i < s->o.nports; i++) {
		enum sw_link st;

		if (!s->port[i].down)
			continue;
		st = sw_link_state(&s->port[i]);
		if (st == SW_LINK_GONE)
			sw_port_gone(s, &s->port[i]);
		if (st != SW_LINK_UP)
			continue;
		s->port[i].down = false;
		pfd[i].fd = s->port[i].fd;
	}
}

static void sw_wait(struct sw *s, struct pollfd *pfd, uint64_t now)
{
	uint64_t due = sw_next_due(s), wait = due > now ? due - now : 0;
	struct timespec ts = { .tv_sec = (time_t)(wait / CLI_NS_PER_S), .tv_nsec = (long)(wait % CLI_NS_PER_S) };

	/* SIGINT and SIGTERM are blocked but here, so one cannot land between sw_stop's check and the sleep. */
	if (ppoll(pfd, (nfds_t)s->o.nports, &ts, &s->wait_mask) <= 0)
		return;
	for (int i = 0; i < s->o.nports; i++) {
		if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL))
			sw_port_error(s, pfd, i);
		else if (pfd[i].revents & POLLIN)
			sw_read(s, i);
	}
}

static void sw_run(struct sw *s)
{
	struct pollfd pfd[SW_MAX_PORTS];

	for (int i = 0; i < s->o.nports; i++)
		pfd[i] = (struct pollfd){ .fd = s->port[i].fd, .events = POLLIN };
	s->start = sw_now();
	for (int i = 0; i < s->o.nports; i++)
		s->port[i].depth_t = s->start;
	s->next_report = s->start + CLI_NS_PER_S;
	s->end = s->o.duration_s ? s->start + s->o.duration_s * CLI_NS_PER_S : UINT64_MAX;
	for (;;) {
		uint64_t now = sw_now();

		for (int i = 0; i < s->o.nports; i++)
			sw_transmit(&s->port[i], now);
		if (now >= s->next_report) {
			sw_report(s, now);
			sw_revive(s, pfd);
			s->next_report += CLI_NS_PER_S;
		}
		if (sw_stop || s->gone || now >= s->end)
			break;
		sw_wait(s, pfd, now);
	}
	sw_summary(s, sw_now());
}

int cli_switch(int argc, char **argv)
{
	static struct sw s;
	struct sigaction sa = { .sa_handler = sw_on_signal };
	sigset_t stop, old;
	int r;

	memset(&s, 0, sizeof(s));
	rl_bottleneck_defaults(&s.o.bn);
	s.o.seed = 1;
	r = sw_parse(argc, argv, &s.o);
	if (r)
		return r < 0 ? CLI_OK : r;
	if (cli_dry_parse())
		return CLI_OK;
	r = sw_open(&s);
	if (!r) {
		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		sigprocmask(SIG_BLOCK, &stop, &old);
		s.wait_mask = old;
		sigdelset(&s.wait_mask, SIGINT);
		sigdelset(&s.wait_mask, SIGTERM);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		/* Wake at the departures asked for, not up to 50 us late (the default timer slack). */
		(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
		json_begin(&s.j, stdout);
		sw_run(&s);
		sigprocmask(SIG_SETMASK, &old, NULL);
		r = s.gone ? CLI_ERR : CLI_OK;
	}
	sw_close(&s);
	return r;
}
