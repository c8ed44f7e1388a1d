/* SPDX-License-Identifier: MIT */
/*
 * rocelab replay FILE --iface IF: put a capture's frames back on a wire with
 * libpcap's pcap_inject(), at the captured pace, at a fixed rate or as fast
 * as possible. rocelab rewrite IN OUT: the same address/QPN/PSN rewrites,
 * file to file, OUT replaced whole or not at all (output.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "capture.h"
#include "cli.h"
#include "output.h"
#include "rocelab/rocelab.h"
#include "rocelab/rewrite.h"

#define RP_MAX_PPS 100000000
/* --speed: from a millionth of the captured pace (a second lasts 11.6 days) to a million times it. */
#define RP_MIN_SPEED 1e-6
#define RP_MAX_SPEED 1e6

struct rp_opts {
	const char *file, *iface, *out;
	enum { RP_PACE, RP_PPS, RP_TOP } mode;
	double speed;              /* --speed: multiplier of the captured pace */
	uint64_t pps;
	uint64_t count;            /* 0: all */
	struct rl_rewrite rw;
};

static void rp_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab replay FILE --iface IF [options]\n\n"
		"Send the frames of a capture out of a network interface (libpcap's pcap_inject),\n"
		"as they were captured: same bytes, same gaps between them. Needs root or\n"
		"CAP_NET_RAW. A test network of two namespaces joined by a veth pair is the\n"
		"safe place for it (see labs/).\n\n"
		"options:\n"
		"  -i, --iface IF       the interface to send on (required)\n"
		"      --pps N          N frames per second instead of the captured pace\n"
		"      --topspeed       as fast as possible\n"
		"      --speed X        the captured pace times X (e.g. 0.1 for ten times slower)\n"
		"  -c, --count N        send only the first N frames\n"
		"      --rewrite RULE   change frames on the way (repeatable): mac:OLD=NEW, ip:OLD=NEW,\n"
		"                       qpn:OLD=NEW, psn:+N; IPv4 checksum and ICRC are recomputed\n"
		"  -h, --help           this text\n\n"
		"example:\n"
		"  rocelab gen write -o w.pcap\n"
		"  rocelab replay w.pcap --iface veth0 --rewrite ip:192.168.100.1=10.0.0.1\n");
}

static void rw_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab rewrite IN OUT --rewrite RULE [--rewrite RULE ...]\n\n"
		"Copy a capture, changing addresses, QP numbers and PSNs so that it fits another\n"
		"setup; the IPv4 header checksum and the ICRC are recomputed (a frame whose ICRC\n"
		"was wrong stays wrong). Rules: mac:OLD=NEW, ip:OLD=NEW (IPv4 or IPv6),\n"
		"qpn:OLD=NEW, psn:+N or psn:-N.\n\n"
		"example:\n"
		"  rocelab rewrite demo.pcap mine.pcap --rewrite ip:192.168.100.1=10.0.0.1 \\\n"
		"      --rewrite qpn:0x12=0x1a4 --rewrite psn:+1000\n");
}

static int rp_rule(const char *cmd, struct rl_rewrite *rw, const char *rule)
{
	char why[160];

	if (rl_rewrite_parse(rw, rule, why, sizeof(why))) {
		cli_error(cmd, "--rewrite %s", why);
		return CLI_ERR;
	}
	return CLI_OK;
}

static int rp_parse(int argc, char **argv, struct rp_opts *o)
{
	enum { O_PPS = 256, O_TOP, O_SPEED, O_REWRITE };
	static const struct option opts[] = {
		{ "iface", required_argument, NULL, 'i' }, { "count", required_argument, NULL, 'c' },
		{ "pps", required_argument, NULL, O_PPS }, { "topspeed", no_argument, NULL, O_TOP },
		{ "speed", required_argument, NULL, O_SPEED }, { "rewrite", required_argument, NULL, O_REWRITE },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c, npace = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:c:h", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'i': o->iface = optarg; break;
		case 'c':
			if (!cli_arg_u64("replay", "--count", optarg, 1, UINT64_MAX, "a positive number", &o->count))
				return CLI_ERR;
			break;
		case O_PPS:
			if (!cli_arg_u64("replay", "--pps", optarg, 1, RP_MAX_PPS, "1 .. 100000000", &o->pps))
				return CLI_ERR;
			o->mode = RP_PPS;
			npace++;
			break;
		case O_TOP: o->mode = RP_TOP; npace++; break;
		case O_SPEED:
			o->speed = strtod(optarg, &end);
			if (!*optarg || *end || !(o->speed >= RP_MIN_SPEED && o->speed <= RP_MAX_SPEED)) {
				cli_error("replay", "--speed needs a positive factor like 0.5 or 10 (%g .. %g), not '%s'",
					  RP_MIN_SPEED, RP_MAX_SPEED, optarg);
				return CLI_ERR;
			}
			npace++;
			break;
		case O_REWRITE:
			if (rp_rule("replay", &o->rw, optarg))
				return CLI_ERR;
			break;
		case 'h': rp_usage(stdout); return -1;
		default: return cli_opt_error("replay", c, argv);
		}
	}
	if (npace > 1) {
		cli_error("replay", "--pps, --topspeed and --speed each set the pace: give one of them");
		return CLI_ERR;
	}
	if (optind != argc - 1) {
		cli_error("replay", optind >= argc ? "which capture? (see rocelab replay --help)" : "one capture at a time");
		return CLI_ERR;
	}
	o->file = argv[optind];
	if (!o->iface) {
		cli_error("replay", "which interface? add --iface IF (e.g. a veth in a test namespace)");
		return CLI_ERR;
	}
	return CLI_OK;
}

static uint64_t rp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wait until @t (monotonic ns): sleep for long waits, spin for the last microseconds. */
static void rp_wait_until(uint64_t t)
{
	for (;;) {
		uint64_t now = rp_now_ns();

		if (now >= t)
			return;
		if (t - now > 200000) {
			uint64_t d = t - now - 100000;
			struct timespec ts = { (time_t)(d / 1000000000u), (long)(d % 1000000000u) };

			nanosleep(&ts, NULL);
		}
	}
}

static pcap_t *rp_open_iface(const char *iface)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *out = pcap_create(iface, err);

	if (!out) {
		cli_error("replay", "cannot use interface %s: %s", iface, err);
		return NULL;
	}
	if (pcap_activate(out) < 0) {
		cli_error("replay", "cannot open interface %s: %s%s", iface, pcap_geterr(out),
			  geteuid() ? " (sending raw frames needs root or CAP_NET_RAW)" : "");
		pcap_close(out);
		return NULL;
	}
	return out;
}

/* @a + @b, or UINT64_MAX (a wait that never ends) when that overflows. */
static uint64_t rp_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * A frame's offset at the captured pace times @speed; UINT64_MAX when that is
 * past what a u64 holds (converting such a double to u64 is undefined, C11 6.3.1.4).
 */
static uint64_t rp_paced_ns(int64_t rel_ns, double speed)
{
	double t = (double)(rel_ns > 0 ? rel_ns : 0) / speed;

	return t >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)t;
}

struct rp_stats {
	uint64_t sent, failed, bytes, skipped;
};

static void rp_report(const struct rp_stats *st, uint64_t ns, const char *iface)
{
	double s = (double)ns / 1e9;

	printf("rocelab replay: sent %" PRIu64 " frames (%" PRIu64 " bytes) on %s in %.3f s: %.0f frames/s, %.1f Mbit/s",
	       st->sent, st->bytes, iface, s, s > 0 ? (double)st->sent / s : 0, s > 0 ? (double)st->bytes * 8 / s / 1e6 : 0);
	if (st->failed)
		printf("; %" PRIu64 " could not be sent", st->failed);
	if (st->skipped)
		printf("; %" PRIu64 " left out (could not be rewritten)", st->skipped);
	printf("\n");
}

static int rp_loop(struct rp_opts *o, struct cli_capture *in, pcap_t *out)
{
	uint8_t buf[65536];
	struct cli_frame f;
	struct rp_stats st = { 0, 0, 0, 0 };
	uint64_t start = rp_now_ns();
	double speed = o->speed > 0 ? o->speed : 1;
	int r;

	while ((!o->count || cli_capture_frames(in) < o->count) && (r = cli_capture_next(in, &f)) == 1) {
		size_t len = f.caplen < sizeof(buf) ? f.caplen : sizeof(buf);

		if (o->mode == RP_PACE)
			/* A frame stamped before the first (tcpdump -i any does that) goes at once. */
			rp_wait_until(rp_add_sat(start, rp_paced_ns(f.rel_ns, speed)));
		else if (o->mode == RP_PPS)
			rp_wait_until(start + (f.no - 1) * 1000000000u / o->pps);
		memcpy(buf, f.data, len);
		if (!rl_rewrite_empty(&o->rw)) {
			enum rl_status rs = rl_rewrite_frame(&o->rw, f.link, buf, len);

			if (rs != RL_OK && rs != RL_NOT_ROCE) {
				st.skipped++;
				continue;
			}
		}
		if (pcap_inject(out, buf, len) == (int)len) {
			st.sent++;
			st.bytes += len;
		} else {
			st.failed++;
		}
	}
	rp_report(&st, rp_now_ns() - start, o->iface);
	cli_capture_note_skipped(in, "replay");
	if (r < 0) {
		/* Not cli_capture_damaged(), whose words are explain's ("FILE: the file is damaged"): ours stay as they were. */
		cli_error("replay", "%s is damaged after frame %" PRIu64 ": %s", o->file, cli_capture_frames(in),
			  cli_capture_error(in));
		return CLI_BAD_INPUT;
	}
	if (st.failed)
		cli_error("replay", "pcap_inject failed on %s: %s", o->iface, pcap_geterr(out));
	return st.failed ? CLI_ERR : CLI_OK; /* the interface refused: an I/O error */
}

int cli_replay(int argc, char **argv)
{
	struct rp_opts o;
	struct cli_capture *in;
	pcap_t *out;
	int r;

	memset(&o, 0, sizeof(o));
	r = rp_parse(argc, argv, &o);
	if (r || cli_dry_parse())
		return r <= 0 ? CLI_OK : r;
	in = cli_capture_open("replay", o.file, CLI_LINKS_ETHERNET);
	if (!in)
		return CLI_ERR;
	out = rp_open_iface(o.iface);
	if (!out) {
		cli_capture_close(in);
		return CLI_ERR;
	}
	r = rp_loop(&o, in, out);
	pcap_close(out);
	cli_capture_close(in);
	return r;
}

int cli_rewrite(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rewrite", required_argument, NULL, 'r' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct rl_rewrite rw;
	struct cli_capture *in;
	struct cli_capture_out *out;
	struct cli_output dst;
	FILE *stream;
	struct cli_frame f;
	uint8_t buf[65536];
	uint64_t changed = 0, skipped = 0;
	bool written;
	int c, r;

	memset(&rw, 0, sizeof(rw));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":r:h", opts, NULL)) != -1) {
		if (c == 'r' && rp_rule("rewrite", &rw, optarg))
			return CLI_ERR;
		if (c == 'h') {
			rw_usage(stdout);
			return CLI_OK;
		}
		if (c == ':' || c == '?')
			return cli_opt_error("rewrite", c, argv);
	}
	if (optind != argc - 2) {
		cli_error("rewrite", "needs an input and an output capture (see rocelab rewrite --help)");
		return CLI_ERR;
	}
	if (rl_rewrite_empty(&rw)) {
		cli_error("rewrite", "nothing to change: add --rewrite RULE");
		return CLI_ERR;
	}
	if (cli_dry_parse())
		return CLI_OK;
	/* Frames of link types the rewriter does not decode are copied as they are. */
	in = cli_capture_open("rewrite", argv[optind], CLI_LINKS_ANY);
	if (!in)
		return CLI_ERR;
	stream = cli_output_open(&dst, "rewrite", argv[optind + 1], fileno(cli_capture_stream(in)), argv[optind]);
	out = stream ? cli_capture_create("rewrite", in, stream, argv[optind + 1]) : NULL;
	if (!out) {
		if (stream)
			cli_output_abort(&dst);
		cli_capture_close(in);
		return CLI_ERR;
	}
	while ((r = cli_capture_next(in, &f)) == 1) {
		size_t len = f.caplen < sizeof(buf) ? f.caplen : sizeof(buf);
		enum rl_status st;

		if (f.link != cli_capture_link(in)) {
			/* A pcap has one link type: a pcapng's frames of another cannot be copied into it. */
			cli_error("rewrite", "%s: frame %" PRIu64 " is of link type %d, the first interface's of %d: a pcap holds "
					     "one link type; split the file by interface first (tshark -Y frame.interface_id==N)",
				  argv[optind], f.no, (int)f.link, (int)cli_capture_link(in));
			cli_capture_finish(out);
			cli_output_abort(&dst);
			cli_capture_close(in);
			return CLI_BAD_INPUT;
		}
		memcpy(buf, f.data, len);
		st = rl_rewrite_frame(&rw, f.link, buf, len);
		changed += st == RL_OK;
		skipped += st != RL_OK && st != RL_NOT_ROCE;
		cli_capture_write(out, &f, buf, (uint32_t)len);
	}
	written = cli_capture_finish(out);
	if (r < 0) {
		/* Not cli_capture_damaged(), whose words are explain's ("FILE: the file is damaged"): ours stay as they were. */
		cli_error("rewrite", "%s is damaged after frame %" PRIu64 ": %s", argv[optind], cli_capture_frames(in),
			  cli_capture_error(in));
		/* A half copy does not replace the output: it stays as it was (or is not made). */
		cli_output_abort(&dst);
		cli_capture_close(in);
		return CLI_BAD_INPUT;
	}
	if (!written || !cli_output_commit(&dst)) {
		if (!written)
			cli_output_abort(&dst);
		cli_capture_close(in);
		return CLI_ERR;
	}
	fprintf(stderr, "rocelab rewrite: %" PRIu64 " frames, %" PRIu64 " RoCE packets rewritten%s\n",
		cli_capture_frames(in), changed, skipped ? " (malformed ones copied unchanged)" : "");
	cli_capture_close(in);
	return CLI_OK;
}
