/* SPDX-License-Identifier: MIT */
/*
 * rocelab gen SCENARIO -o FILE: the subcommand over pcapgen/. It parses
 * the options, runs the scenario and writes every frame that crossed the
 * simulated wire, with its simulated time, through pcapgen's writer into
 * -o's file, replaced whole or not at all (output.h). The same arguments
 * always produce the same bytes.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "gen.h"
#include "output.h"

/* ---- options --------------------------------------------------------------------------- */

static void gen_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab gen SCENARIO -o FILE [options]\n"
		"       rocelab gen --list\n\n"
		"Run the reference RoCEv2 transport between two simulated hosts, A (requester) and\n"
		"B (responder), and write every frame that crossed the wire to a pcap. Frames the wire\n"
		"loses are in the capture too: it is taken where they enter the link. The cm-* scenarios,\n"
		"ud-sidr and rping connect A (the client) to B (the server) through the CM on QP1 first,\n"
		"as rdma_cm does; their PSNs and IDs come from --seed, and --mtu is the link's MTU.\n"
		"The same arguments always write the same bytes.\n\n"
		"options:\n"
		"  -o, --output FILE    where to write ('-' for standard output)\n"
		"  -l, --list           the scenarios and what each teaches\n"
		"      --mtu N          path MTU: 256, 512, 1024 (default, as Soft-RoCE), 2048, 4096 (dcqcn,\n"
		"                       incast, fairness: default 4096)\n"
		"      --size BYTES     message size (each scenario has its own default)\n"
		"      --count N        messages or rounds; the single operations (send .. uc-send in --list)\n"
		"                       and ecn: 1 to 64 of them one after another (default 1; send's default\n"
		"                       is its two SENDs). A scenario that would not read --count or --size\n"
		"                       (one event, set sizes, crafted packets) refuses it, saying why\n"
		"      --window N       outstanding work requests: the -bw and congestion scenarios (default 128)\n"
		"      --qps N          connections in the fabric scenario (default 1000)\n"
		"      --seed N         seed for PSNs and random faults (default 1)\n"
		"      --loss RATE      lose this share of frames at random (0 .. 0.5)\n"
		"      --drop N,M,...   lose exactly these frames (1-based, as Wireshark numbers them)\n"
		"      --drop-request N lose A's Nth packet (1-based, in the order A sends; ACKs from B\n"
		"                       not counted), as 'rocelab peer --server --drop-request N' does\n"
		"      --min-rnr-timer N  rnr, srq: B's min_rnr_timer, 0..31, the code its RNR NAKs carry\n"
		"                       (IBA Table 46; default 12 = 0.64 ms)\n"
		"      --rnr-retry N    rnr, srq: A's rnr_retry, 0..7, tries after an RNR NAK before it gives\n"
		"                       up with IBV_WC_RNR_RETRY_EXC_ERR; 7 (the default) tries for ever\n"
		"      --bad-write K    access-error, range-error: of --count WRITEs (1, at most 256), the\n"
		"                       Kth aims wrong (default the first); those before it complete\n"
		"      --ipv6           RoCEv2 over IPv6\n"
		"      --vlan ID        802.1Q tag on every frame (1-4094)\n"
		"      --ip-a, --ip-b ADDR     addresses (default 192.168.100.1 and .2, fd00::1 and ::2)\n"
		"      --mac-a, --mac-b MAC    MAC addresses (default 02:00:00:00:00:01 and :02)\n"
		"      --qpn-a, --qpn-b N      QP numbers (default 0x11 and 0x12, as rxe hands them out)\n"
		"      --psn-a, --psn-b N      starting PSNs (default: random from the seed, as perftest;\n"
		"                              the CM's scenarios refuse them: the CM picks its own)\n"
		"      --rate GBPS      link rate in Gbit/s (default 25)\n"
		"      --latency NS     one-way latency in nanoseconds (default 1000)\n"
		"      --cc ALGO        dcqcn, incast, fairness: dcqcn (the default) or none\n"
		"      --bottleneck GBPS  their switch port's rate in Gbit/s (default 10)\n"
		"      --kmin KB, --kmax KB, --pmax P  its RED/ECN marking (default 5, 200, 0.01: DCQCN's)\n"
		"      --queue KB       its buffer, tail drop past it (default 400; KB = 1024 bytes, as tc)\n"
		"      --senders N      incast: flows into the receiver, 2..4 (default 3)\n"
		"      --cnp-interval USEC  ecn and the congestion scenarios: at most one CNP per QP in USEC us\n"
		"                       (mlx5's roce_np min_time_between_cnps; default 50)\n"
		"      --dcqcn NAME=VALUE[,NAME=VALUE...]  dcqcn, incast, fairness: the senders' DCQCN by mlx5's\n"
		"                       roce_rp names and units, e.g. rpg_time_reset=300 (T, us), dce_tcp_g=960\n"
		"                       (g = 1/16); repeatable; default the paper's. '--dcqcn list' shows every\n"
		"                       name, unit, range, the paper's and a ConnectX's value. explain's CNP\n"
		"                       notes still assume the paper's: the capture does not carry them\n"
		"      --pcapng         write pcapng, each frame the wire lost commented\n"
		"                       \"" GEN_LOST_COMMENT "\" (Wireshark: frame.comment)\n"
		"  -h, --help           this text\n\n"
		"examples:\n"
		"  rocelab gen write -o write.pcap && rocelab explain write.pcap\n"
		"  rocelab gen request-loss --mtu 256 --size 1024 -o loss.pcap\n"
		"  rocelab gen rping --count 4 -o rping.pcap   # as tests/fixtures/rxe/rping.pcap\n"
		"  rocelab gen send-bw --count 10000000 --size 64 -o big.pcap\n");
}

static void gen_list(void)
{
	printf("scenarios driven by the reference transport (A requests, B responds):\n");
	for (size_t i = 0; i < gen_ntransport; i++)
		printf("  %-18s %s\n", gen_transport[i].name, gen_transport[i].teaches);
	printf("\nconnections made by the CM agents on QP1, as rdma_cm programs make them (A connects, B listens):\n");
	for (size_t i = 0; i < gen_nrdma_cm; i++)
		printf("  %-18s %s\n", gen_rdma_cm[i].name, gen_rdma_cm[i].teaches);
	printf("\ncongestion: flows of A into B through a slower switch port with RED/ECN, DCQCN on (--cc none: off):\n");
	for (size_t i = 0; i < gen_ncongestion; i++)
		printf("  %-18s %s\n", gen_congestion[i].name, gen_congestion[i].teaches);
	printf("\npackets crafted one by one with the codec:\n");
	for (size_t i = 0; i < gen_ncrafted; i++)
		printf("  %-18s %s\n", gen_crafted[i].name, gen_crafted[i].teaches);
}

static bool gen_parse_drops(const char *s, struct gen_opts *o)
{
	char buf[1024], *save = NULL, *tok;

	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t n;

		if (o->ndrops == GEN_MAX_DROPS || !cli_parse_u64(tok, UINT64_MAX, &n) || !n)
			return false;
		o->drops[o->ndrops++] = n;
	}
	return o->ndrops > 0;
}

/* --ip-a / --ip-b (@i: 0 or 1) into @o; the family it was in @family[i]. False if not an address. */
static bool gen_parse_ip(const char *s, struct gen_opts *o, int i, int family[2])
{
	if (inet_pton(AF_INET, s, o->ip4[i]) == 1) {
		family[i] = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, o->ip6[i]) != 1)
		return false;
	family[i] = AF_INET6;
	o->ipv6 = true;
	return true;
}

/*
 * One wire, one IP version: an IPv4 address beside an IPv6 one (or beside --ipv6)
 * would be dropped in silence for the other's default. @family: what --ip-a and
 * --ip-b gave (0: not given); @ipv6_flag: --ipv6 given.
 */
static int gen_check_families(const int family[2], bool ipv6_flag, const char *const ip[2])
{
	static const char *const side[2] = { "--ip-a", "--ip-b" };

	if (family[0] && family[1] && family[0] != family[1]) {
		cli_error("gen", "--ip-a %s and --ip-b %s are not both IPv4 or both IPv6: RoCEv2 runs over one IP version",
			  ip[0], ip[1]);
		return CLI_ERR;
	}
	for (int i = 0; i < 2; i++)
		if (ipv6_flag && family[i] == AF_INET) {
			cli_error("gen", "%s %s is an IPv4 address, but --ipv6 asks for IPv6", side[i], ip[i]);
			return CLI_ERR;
		}
	return CLI_OK;
}

enum {
	O_MTU = 256, O_SIZE, O_COUNT, O_WINDOW, O_SEED, O_LOSS, O_DROP, O_IPV6, O_VLAN, O_IPA, O_IPB,
	O_MACA, O_MACB, O_QPNA, O_QPNB, O_PSNA, O_PSNB, O_RATE, O_LATENCY, O_QPS, O_PCAPNG,
	O_DROP_REQUEST, O_MIN_RNR_TIMER, O_RNR_RETRY, O_BAD_WRITE,
	O_CC, O_BOTTLENECK, O_KMIN, O_KMAX, O_PMAX, O_QUEUE, O_SENDERS, O_CNP_INTERVAL, O_DCQCN,
};

/* --kmin, --kmax, --queue: KB into bytes. */
static int gen_opt_kb(const char *name, const char *arg, uint32_t min, uint32_t *bytes)
{
	return cli_arg_kb("gen", name, arg, min, bytes) ? 0 : CLI_ERR;
}

/* The congestion scenarios' options. */
static int gen_opt_cc(int c, const char *arg, struct gen_opts *o)
{
	uint64_t v;

	switch (c) {
	case O_CC:
		if (!strcmp(arg, "dcqcn") || !strcmp(arg, "none")) {
			o->cc_none = !strcmp(arg, "none");
			return 0;
		}
		cli_error("gen", "--cc is dcqcn or none, not '%s'", arg);
		return CLI_ERR;
	case O_BOTTLENECK:
		if (!cli_arg_u64("gen", "--bottleneck", arg, 1, 1000, "Gbit/s from 1 to 1000", &v))
			return CLI_ERR;
		o->bn_rate_bps = v * 1000000000ull;
		return 0;
	case O_KMIN: return gen_opt_kb("--kmin", arg, 0, &o->bn_kmin);
	case O_KMAX: return gen_opt_kb("--kmax", arg, 0, &o->bn_kmax);
	case O_QUEUE: return gen_opt_kb("--queue", arg, 1, &o->bn_queue_bytes);
	case O_PMAX: return cli_arg_pmax("gen", arg, &o->bn_pmax) ? 0 : CLI_ERR;
	case O_SENDERS:
		if (!cli_arg_u64("gen", "--senders", arg, GEN_SENDERS_MIN, GEN_SENDERS_MAX, "2 .. 4", &v))
			return CLI_ERR;
		o->senders = (uint32_t)v;
		return 0;
	case O_CNP_INTERVAL:
		return cli_arg_cnp_interval("gen", arg, &o->cnp_interval_ns) ? 0 : CLI_ERR;
	case O_DCQCN:
		switch (cli_arg_dcqcn("gen", arg, &o->dcqcn)) {
		case CLI_DCQCN_SET: o->dcqcn_set = true; return 0;
		case CLI_DCQCN_LISTED: return -1;
		default: return CLI_ERR;
		}
	}
	return CLI_ERR;
}

static int gen_opt_value(int c, const char *arg, struct gen_opts *o, int family[2])
{
	uint64_t v;

	switch (c) {
	case O_MTU:
		if (cli_parse_u64(arg, 4096, &v) && (o->mtu = rl_mtu_from_bytes(v))) {
			o->mtu_set = true;
			return 0;
		}
		cli_error("gen", "--mtu is one of 256, 512, 1024, 2048, 4096 (IB path MTUs), not '%s'", arg);
		return CLI_ERR;
	case O_SIZE:
		/* 0 is not "the default": refused, as the scenarios build every message from --size bytes. */
		if (!cli_arg_u64("gen", "--size", arg, 1, 1u << 30, "a byte count from 1 to 1 GiB", &v))
			return CLI_ERR;
		o->size = (uint32_t)v;
		return 0;
	case O_COUNT:
		return cli_arg_u64("gen", "--count", arg, 1, 1000000000000ull, "a positive number", &o->count) ? 0 : CLI_ERR;
	case O_WINDOW:
		if (!cli_arg_u64("gen", "--window", arg, 1, 4096, "1 .. 4096", &v))
			return CLI_ERR;
		o->window = (uint32_t)v;
		return 0;
	case O_QPS:
		if (!cli_arg_u64("gen", "--qps", arg, 1, 1000000, "1 .. 1000000", &v))
			return CLI_ERR;
		o->qps = (uint32_t)v;
		return 0;
	case O_SEED:
		return cli_arg_u64("gen", "--seed", arg, 0, UINT64_MAX, "a number", &o->seed) ? 0 : CLI_ERR;
	case O_LOSS: {
		char *end;

		o->loss = strtod(arg, &end);
		if (*arg && !*end && o->loss >= 0 && o->loss <= 0.5) return 0;
		cli_error("gen", "--loss needs a rate from 0 to 0.5 (e.g. 0.01), not '%s'", arg);
		return CLI_ERR;
	}
	case O_DROP:
		if (gen_parse_drops(arg, o)) return 0;
		cli_error("gen", "--drop needs frame numbers like 3 or 3,7,12 (at most %d), not '%s'", GEN_MAX_DROPS, arg);
		return CLI_ERR;
	case O_VLAN:
		if (!cli_arg_u64("gen", "--vlan", arg, 1, 4094, "a VLAN ID from 1 to 4094", &v))
			return CLI_ERR;
		o->vlan = true;
		o->vlan_id = (uint16_t)v;
		return 0;
	case O_IPA: case O_IPB:
		if (gen_parse_ip(arg, o, c == O_IPB, family)) return 0;
		cli_error("gen", "'%s' is not an IPv4 or IPv6 address", arg);
		return CLI_ERR;
	case O_MACA: case O_MACB:
		if (rl_parse_mac(arg, o->mac[c == O_MACB])) return 0;
		cli_error("gen", "'%s' is not a MAC address like 02:00:00:00:00:01", arg);
		return CLI_ERR;
	case O_QPNA: case O_QPNB:
		if (cli_parse_u64(arg, 0xffffff, &v) && v >= 2) { o->qpn[c == O_QPNB] = (uint32_t)v; return 0; }
		cli_error("gen", "a QPN is 2 .. 0xffffff (0 and 1 are special QPs), not '%s'", arg);
		return CLI_ERR;
	case O_PSNA: case O_PSNB:
		if (cli_parse_u64(arg, 0xffffff, &v)) {
			o->psn[c == O_PSNB] = (uint32_t)v;
			o->psn_set[c == O_PSNB] = true;
			return 0;
		}
		cli_error("gen", "a PSN has 24 bits: 0 .. 0xffffff, not '%s'", arg);
		return CLI_ERR;
	case O_RATE:
		if (!cli_arg_u64("gen", "--rate", arg, 1, 1000, "Gbit/s from 1 to 1000", &v))
			return CLI_ERR;
		o->rate_bps = v * 1000000000ull;
		return 0;
	case O_LATENCY:
		return cli_arg_u64("gen", "--latency", arg, 0, 1000000000ull, "nanoseconds up to 1 s", &o->latency_ns)
		       ? 0 : CLI_ERR;
	case O_DROP_REQUEST:
		return cli_arg_u64("gen", "--drop-request", arg, 1, UINT64_MAX, "a packet number from 1",
				   &o->drop_request) ? 0 : CLI_ERR;
	case O_MIN_RNR_TIMER:
		/* A 5-bit code in the RNR NAK's AETH (IBA 9.7.5.2.8, Table 46). */
		if (!cli_arg_u64("gen", "--min-rnr-timer", arg, 0, 31, "a timer code from 0 to 31", &v))
			return CLI_ERR;
		o->min_rnr_timer = (uint8_t)v;
		o->rnr_timer_set = true;
		return 0;
	case O_BAD_WRITE:
		return cli_arg_u64("gen", "--bad-write", arg, 1, UINT64_MAX, "a WRITE's number from 1",
				   &o->bad_write) ? 0 : CLI_ERR;
	case O_RNR_RETRY:
		/* A 3-bit count; 7 means for ever (IBA 9.7.5.2.8). */
		if (!cli_arg_u64("gen", "--rnr-retry", arg, 0, 7, "a count from 0 to 7", &v))
			return CLI_ERR;
		o->rnr_retry = (uint8_t)v;
		o->rnr_retry_set = true;
		return 0;
	}
	return gen_opt_cc(c, arg, o);
}

/* The kind of option @c is, if only some scenarios read it (pcapgen's gen_scenario.takes); else GEN_OPT_KINDS. */
static enum gen_opt_kind gen_only(int c)
{
	switch (c) {
	case O_LOSS: case O_DROP: case O_RATE: case O_LATENCY: case O_DROP_REQUEST: return GEN_OPT_WIRE;
	case O_WINDOW: return GEN_OPT_WINDOW;
	case O_MIN_RNR_TIMER: case O_RNR_RETRY: return GEN_OPT_RNR;
	case O_PSNA: return GEN_OPT_PSN_A;
	case O_PSNB: return GEN_OPT_PSN_B;
	case O_QPNA: return GEN_OPT_QPN_A;
	case O_QPNB: return GEN_OPT_QPN_B;
	case O_MTU: return GEN_OPT_MTU;
	case O_SEED: return GEN_OPT_SEED;
	case O_IPV6: return GEN_OPT_IPV6;
	case O_COUNT: return GEN_OPT_COUNT;
	case O_SIZE: return GEN_OPT_SIZE;
	case O_QPS: return GEN_OPT_QPS;
	case O_BAD_WRITE: return GEN_OPT_BAD;
	case O_CC: case O_BOTTLENECK: case O_KMIN: case O_KMAX: case O_PMAX: case O_QUEUE: case O_DCQCN:
		return GEN_OPT_CC;
	case O_SENDERS: return GEN_OPT_SENDERS;
	case O_CNP_INTERVAL: return GEN_OPT_NP;
	default: return GEN_OPT_KINDS;
	}
}

/*
 * Refuse an option scenario @sc does not take, which it would ignore in silence
 * (@given: the first long option of each kind, or NULL), with the scenario's
 * own reason where its row has one.
 */
static int gen_check_only(const struct gen_scenario *sc, const char *const given[GEN_OPT_KINDS])
{
	static const char *const why[GEN_OPT_KINDS] = {
		[GEN_OPT_WIRE] = "its packets are crafted one by one, with no wire or transport to shape",
		[GEN_OPT_WINDOW] = "it posts its messages one after another: send-bw, write-bw, read-bw, atomic-bw, "
				   "dcqcn, incast and fairness keep --window of them outstanding",
		[GEN_OPT_RNR] = "only rnr and srq send before a receive is posted, so only they meet RNR NAKs "
				"(IBA 9.7.5.2.8)",
		[GEN_OPT_PSN_A] = "its PSNs are its own: the scenarios of two QPs on the simulated wire start A at --psn-a",
		[GEN_OPT_PSN_B] = "B sends no request in it, only ACKs and responses, which carry A's PSNs: "
				  "pingpong's B sends",
		[GEN_OPT_QPN_A] = "its QPs are numbered from --qps",
		[GEN_OPT_QPN_B] = "its QPs are numbered from --qps",
		[GEN_OPT_MTU] = "nothing in it is cut to the path MTU or checked against it",
		[GEN_OPT_SEED] = "nothing in it is random",
		[GEN_OPT_IPV6] = "it picks each frame's IP version itself",
		[GEN_OPT_COUNT] = "it sends a set number of messages",
		[GEN_OPT_SIZE] = "its messages have sizes of their own",
		[GEN_OPT_QPS] = "only fabric has many QPs",
		[GEN_OPT_BAD] = "only access-error and range-error aim a WRITE wrong",
		[GEN_OPT_CC] = "only dcqcn, incast and fairness have a congested switch port",
		[GEN_OPT_SENDERS] = "only incast has several senders",
		[GEN_OPT_NP] = "only ecn, dcqcn, incast and fairness mark packets CE, so only they send CNPs",
	};

	for (int k = 0; k < GEN_OPT_KINDS; k++) {
		const char *own = sc->why ? sc->why[k] : NULL;

		if (!given[k] || sc->takes & 1u << k)
			continue;
		cli_error("gen", "--%s means nothing to '%s': %s", given[k], sc->name, own ? own : why[k]);
		return CLI_ERR;
	}
	return CLI_OK;
}

static int gen_parse(int argc, char **argv, struct gen_opts *o, const char **scenario,
		     const char *given[GEN_OPT_KINDS])
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' }, { "mtu", required_argument, NULL, O_MTU },
		{ "size", required_argument, NULL, O_SIZE }, { "count", required_argument, NULL, O_COUNT },
		{ "window", required_argument, NULL, O_WINDOW }, { "seed", required_argument, NULL, O_SEED },
		{ "loss", required_argument, NULL, O_LOSS }, { "drop", required_argument, NULL, O_DROP },
		{ "ipv6", no_argument, NULL, O_IPV6 }, { "vlan", required_argument, NULL, O_VLAN },
		{ "ip-a", required_argument, NULL, O_IPA }, { "ip-b", required_argument, NULL, O_IPB },
		{ "mac-a", required_argument, NULL, O_MACA }, { "mac-b", required_argument, NULL, O_MACB },
		{ "qpn-a", required_argument, NULL, O_QPNA }, { "qpn-b", required_argument, NULL, O_QPNB },
		{ "psn-a", required_argument, NULL, O_PSNA }, { "psn-b", required_argument, NULL, O_PSNB },
		{ "rate", required_argument, NULL, O_RATE }, { "latency", required_argument, NULL, O_LATENCY },
		{ "qps", required_argument, NULL, O_QPS }, { "pcapng", no_argument, NULL, O_PCAPNG },
		{ "drop-request", required_argument, NULL, O_DROP_REQUEST },
		{ "min-rnr-timer", required_argument, NULL, O_MIN_RNR_TIMER },
		{ "rnr-retry", required_argument, NULL, O_RNR_RETRY },
		{ "bad-write", required_argument, NULL, O_BAD_WRITE },
		{ "cc", required_argument, NULL, O_CC }, { "bottleneck", required_argument, NULL, O_BOTTLENECK },
		{ "kmin", required_argument, NULL, O_KMIN }, { "kmax", required_argument, NULL, O_KMAX },
		{ "pmax", required_argument, NULL, O_PMAX }, { "queue", required_argument, NULL, O_QUEUE },
		{ "senders", required_argument, NULL, O_SENDERS },
		{ "cnp-interval", required_argument, NULL, O_CNP_INTERVAL },
		{ "dcqcn", required_argument, NULL, O_DCQCN },
		{ NULL, 0, NULL, 0 },
	};
	int family[2] = { 0, 0 };
	const char *ip[2] = { NULL, NULL };
	bool ipv6_flag = false;
	int c, r, li;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:lh", opts, &li)) != -1) {
		if (gen_only(c) != GEN_OPT_KINDS && !given[gen_only(c)])
			given[gen_only(c)] = opts[li].name;   /* all of them are long options */
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'l': gen_list(); return -1;
		case 'h': gen_usage(stdout); return -1;
		case O_IPV6: o->ipv6 = ipv6_flag = true; break;
		case O_PCAPNG: o->pcapng = true; break;
		case ':':
		case '?':
			return cli_opt_error("gen", c, argv);
		default:
			if (c == O_IPA || c == O_IPB)
				ip[c == O_IPB] = optarg;
			if ((r = gen_opt_value(c, optarg, o, family)))
				return r;
		}
	}
	if ((r = gen_check_families(family, ipv6_flag, ip)))
		return r;
	if (optind != argc - 1) {
		cli_error("gen", optind >= argc ? "which scenario? 'rocelab gen --list' shows them"
						: "one scenario at a time");
		return CLI_ERR;
	}
	*scenario = argv[optind];
	if (!o->out) {
		cli_error("gen", "where to? add -o FILE.pcap");
		return CLI_ERR;
	}
	return CLI_OK;
}

static void gen_progress(uint64_t frames)
{
	fprintf(stderr, "\rrocelab gen: %llu frames", (unsigned long long)frames);
}

int cli_gen(int argc, char **argv)
{
	const struct gen_scenario *sc;
	const char *scenario = NULL, *given[GEN_OPT_KINDS] = { NULL };
	struct gen_opts o;
	struct gen_out out;
	struct cli_output dst;
	FILE *stream;
	bool progress;
	int r, rc;

	gen_opts_default(&o);
	r = gen_parse(argc, argv, &o, &scenario, given);
	if (r)
		return r < 0 ? CLI_OK : r;
	sc = gen_find(scenario);
	if (!sc) {
		cli_error("gen", "no scenario '%s'; rocelab gen --list shows them", scenario);
		return CLI_ERR;
	}
	if (gen_check_only(sc, given))
		return CLI_ERR;
	if (cli_dry_parse())
		return CLI_OK;
	progress = strcmp(o.out, "-") && isatty(STDERR_FILENO);
	stream = cli_output_open(&dst, "gen", o.out, -1, NULL);
	if (!stream)
		return CLI_ERR;
	if (gen_out_open(&out, &o, stream, progress ? gen_progress : NULL)) {
		cli_error("gen", "%s", out.msg);
		cli_output_abort(&dst);
		return CLI_ERR;
	}
	r = sc->run(&o, &out);
	if (out.msg[0])
		cli_error("gen", "%s", out.msg);
	rc = gen_out_close(&out);
	if (progress && out.frames >= GEN_PROGRESS_EVERY)
		fprintf(stderr, "\r%40s\r", "");
	if (rc)
		cli_error("gen", "%s", out.msg);
	/* A scenario that failed half way, or a write that did, leaves -o's file as it was. */
	if (rc || r) {
		cli_output_abort(&dst);
		return CLI_ERR;
	}
	if (!cli_output_commit(&dst))
		return CLI_ERR;
	if (strcmp(o.out, "-"))
		fprintf(stderr, "rocelab gen: wrote %llu frames of '%s' to %s\n", (unsigned long long)out.frames,
			scenario, o.out);
	return CLI_OK;
}
