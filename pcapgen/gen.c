/* SPDX-License-Identifier: MIT */
/*
 * rocelab gen SCENARIO -o FILE: write a capture of RoCEv2 packets.
 *
 * The scenarios here are crafted packet by packet with the core codec (no
 * transport yet): a short RC conversation for the demo, every opcode for the
 * oracle tests, and a gallery of malformed packets. Output goes through
 * libpcap; the same arguments always produce the same bytes.
 */
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rocelab/rocelab.h"

/* A simulated start time (2023-11-14 22:13:20 UTC), so files are reproducible. */
#define GEN_EPOCH_NS 1700000000000000000ull

struct gen_opts {
	uint64_t seed;
	bool ipv6;
	bool vlan;
	uint16_t vlan_id;
	const char *out;
};

struct gen_out {
	pcap_t *dead;
	pcap_dumper_t *dump;
	uint64_t t_ns;        /* simulated time of the next frame */
	uint64_t frames;
	int err;
};

/* Two endpoints, perftest-like: QPNs and PSNs in the ranges rxe hands out. */
struct gen_host {
	uint8_t mac[6];
	uint8_t ip4[4];
	uint8_t ip6[16];
	uint32_t qpn;
	uint16_t sport;
};

static const struct gen_host gen_a = {
	{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 }, { 192, 168, 100, 1 },
	{ 0xfd, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01 }, 0x000011, 0xc0a1,
};
static const struct gen_host gen_b = {
	{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 }, { 192, 168, 100, 2 },
	{ 0xfd, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02 }, 0x000012, 0xd5c2,
};

/* ---- output ----------------------------------------------------------------- */

static int gen_open(struct gen_out *o, const char *path, int linktype)
{
	memset(o, 0, sizeof(*o));
	o->t_ns = GEN_EPOCH_NS;
	o->dead = pcap_open_dead_with_tstamp_precision(linktype, 65535, PCAP_TSTAMP_PRECISION_MICRO);
	if (!o->dead)
		return -1;
	o->dump = pcap_dump_open(o->dead, path);
	if (!o->dump) {
		cli_error("gen", "cannot write %s: %s", path, pcap_geterr(o->dead));
		pcap_close(o->dead);
		return -1;
	}
	return 0;
}

static void gen_write(struct gen_out *o, const uint8_t *frame, size_t len)
{
	struct pcap_pkthdr h;

	h.ts.tv_sec = (time_t)(o->t_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(o->t_ns % 1000000000u / 1000u);
	h.caplen = h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)o->dump, &h, frame);
	o->frames++;
	/* Next frame 1 us later, plus the time a 25 Gb/s link takes to send this one. */
	o->t_ns += 1000 + len * 8 / 25;
}

static void gen_emit(struct gen_out *o, const struct rl_pkt *p)
{
	uint8_t frame[9100];
	size_t n;

	if (rl_encode(p, frame, sizeof(frame), &n) != RL_OK) {
		o->err = 1;
		return;
	}
	gen_write(o, frame, n);
}

static int gen_close(struct gen_out *o, const char *path)
{
	int rc = 0;

	if (pcap_dump_flush(o->dump) != 0 || o->err) {
		cli_error("gen", "writing %s failed", path);
		rc = -1;
	}
	pcap_dump_close(o->dump);
	pcap_close(o->dead);
	return rc;
}

/* ---- packet helpers --------------------------------------------------------- */

/* A packet from @src to @dst's QP, framed as the options say. */
static void gen_pkt(struct rl_pkt *p, const struct gen_opts *opt, uint8_t opcode,
		    const struct gen_host *src, const struct gen_host *dst)
{
	rl_pkt_init(p, opcode);
	memcpy(p->eth.src, src->mac, 6);
	memcpy(p->eth.dst, dst->mac, 6);
	p->eth.has_vlan = opt->vlan;
	p->eth.vlan_id = opt->vlan_id;
	p->eth.vlan_pcp = 3;              /* the priority RoCE traffic usually gets (PFC) */
	if (opt->ipv6) {
		p->l3 = RL_L3_IPV6;
		memcpy(p->ip6.src, src->ip6, 16);
		memcpy(p->ip6.dst, dst->ip6, 16);
		p->ip6.tclass = 26 << 2 | 2;  /* DSCP 26, ECT(0), as RoCE deployments mark */
	} else {
		memcpy(p->ip4.src, src->ip4, 4);
		memcpy(p->ip4.dst, dst->ip4, 4);
		p->ip4.dscp = 26;
		p->ip4.ecn = 2;
	}
	p->udp.sport = src->sport;
	p->bth.dqpn = dst->qpn;
}

static void gen_ack(struct gen_out *o, const struct gen_opts *opt, uint32_t psn, uint32_t msn)
{
	struct rl_pkt p;

	gen_pkt(&p, opt, rl_opcode_by_name("RC Acknowledge"), &gen_b, &gen_a);
	p.bth.psn = psn;
	p.aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, RL_AETH_CREDITS_INVALID);
	p.aeth.msn = msn;
	gen_emit(o, &p);
}

/* Segment a message by the path MTU into First/Middle/Last or Only (IBA 9.7.2). */
static uint32_t gen_message(struct gen_out *o, const struct gen_opts *opt, const char *kind,
			    const uint8_t *data, size_t len, uint32_t psn, const struct rl_reth *reth)
{
	const size_t mtu = 1024;
	size_t off = 0;
	char name[64];

	do {
		size_t chunk = len - off > mtu ? mtu : len - off;
		bool first = off == 0, last = off + chunk == len;
		struct rl_pkt p;

		snprintf(name, sizeof(name), "RC %s %s", kind,
			 first && last ? "Only" : first ? "First" : last ? "Last" : "Middle");
		gen_pkt(&p, opt, (uint8_t)rl_opcode_by_name(name), &gen_a, &gen_b);
		p.bth.psn = psn++ & 0xffffff;
		p.bth.ackreq = last;
		if (reth)
			p.reth = *reth;
		p.payload = data + off;
		p.payload_len = chunk;
		gen_emit(o, &p);
		off += chunk;
	} while (off < len);
	return psn & 0xffffff;
}

/* ---- scenarios -------------------------------------------------------------- */

/*
 * A short RC conversation from A (QP 0x11) to B (QP 0x12): the SEND, WRITE,
 * READ and atomic a learner meets first, each answered as a responder would.
 */
static int gen_demo(struct gen_out *o, const struct gen_opts *opt)
{
	static uint8_t buf[4096];
	struct rl_reth reth = { 0x00007f3a2c001000ull, 0x00001234, 1500 };
	uint32_t psn = 0x4b2c10, msn = 0;
	struct rl_pkt p;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)('a' + i % 26);
	memcpy(buf, "Hello, RDMA!", 12);

	/* 1. A single-packet SEND, acknowledged. */
	psn = gen_message(o, opt, "SEND", buf, 12, psn, NULL);
	gen_ack(o, opt, (psn - 1) & 0xffffff, ++msn);

	/* 2. A 2500-byte SEND over MTU 1024: First, Middle, Last; one ACK covers all three. */
	psn = gen_message(o, opt, "SEND", buf, 2500, psn, NULL);
	gen_ack(o, opt, (psn - 1) & 0xffffff, ++msn);

	/* 3. An RDMA WRITE of 1500 bytes: RETH only on the first packet. */
	psn = gen_message(o, opt, "RDMA WRITE", buf, 1500, psn, &reth);
	gen_ack(o, opt, (psn - 1) & 0xffffff, ++msn);

	/* 4. An RDMA READ of 2048 bytes: one request, two response packets, two PSNs. */
	gen_pkt(&p, opt, (uint8_t)rl_opcode_by_name("RC RDMA READ Request"), &gen_a, &gen_b);
	p.bth.psn = psn;
	p.bth.ackreq = true;
	p.reth = (struct rl_reth){ 0x00007f3a2c008000ull, 0x00005678, 2048 };
	gen_emit(o, &p);
	msn++;
	for (int i = 0; i < 2; i++) {
		gen_pkt(&p, opt, (uint8_t)rl_opcode_by_name(i ? "RC RDMA READ response Last"
							   : "RC RDMA READ response First"),
			&gen_b, &gen_a);
		p.bth.psn = (psn + (uint32_t)i) & 0xffffff;
		p.aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, RL_AETH_CREDITS_INVALID);
		p.aeth.msn = msn;
		p.payload = buf + 1024 * i;
		p.payload_len = 1024;
		gen_emit(o, &p);
	}
	psn = (psn + 2) & 0xffffff;

	/* 5. A Fetch&Add of 1 on a counter that held 41. */
	gen_pkt(&p, opt, (uint8_t)rl_opcode_by_name("RC FetchAdd"), &gen_a, &gen_b);
	p.bth.psn = psn;
	p.bth.ackreq = true;
	p.atomiceth = (struct rl_atomiceth){ 0x00007f3a2c00a000ull, 0x00009abc, 1, 0 };
	gen_emit(o, &p);
	gen_pkt(&p, opt, (uint8_t)rl_opcode_by_name("RC ATOMIC Acknowledge"), &gen_b, &gen_a);
	p.bth.psn = psn;
	p.aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, RL_AETH_CREDITS_INVALID);
	p.aeth.msn = ++msn;
	p.atomicack_orig = 41;
	gen_emit(o, &p);
	psn = (psn + 1) & 0xffffff;

	/* 6. A SEND with immediate data, then a UD datagram (DETH carries Q_Key and source QP). */
	gen_pkt(&p, opt, (uint8_t)rl_opcode_by_name("RC SEND Only with Immediate"), &gen_a, &gen_b);
	p.bth.psn = psn;
	p.bth.ackreq = true;
	p.bth.se = true;
	p.immdt = 0xcafe0001;
	p.payload = buf;
	p.payload_len = 32;
	gen_emit(o, &p);
	gen_ack(o, opt, psn, ++msn);

	gen_pkt(&p, opt, (uint8_t)rl_opcode_by_name("UD SEND Only"), &gen_a, &gen_b);
	p.bth.dqpn = 0x000014;
	p.bth.psn = 0x000100;
	p.deth.qkey = 0x11111111;      /* ibv_ud_pingpong's Q_Key */
	p.deth.src_qp = 0x000013;
	p.payload = buf;
	p.payload_len = 64;
	gen_emit(o, &p);
	return 0;
}

/* Random field values for @p's opcode, from a seeded generator. */
static uint64_t gen_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static void gen_randomize(struct rl_pkt *p, uint64_t *s, uint8_t *payload)
{
	const struct rl_opcode_info *op = p->op;

	p->bth.se = gen_rand(s) & 1;
	p->bth.migreq = gen_rand(s) & 1;
	p->bth.pkey = (uint16_t)gen_rand(s);
	p->bth.becn = p->bth.opcode == 0x81 || (gen_rand(s) & 1);
	p->bth.dqpn = (uint32_t)gen_rand(s) & 0xffffff;
	p->bth.ackreq = gen_rand(s) & 1;
	p->bth.psn = (uint32_t)gen_rand(s) & 0xffffff;
	p->rdeth_eecnxt = (uint32_t)gen_rand(s) & 0xffffff;
	p->deth.qkey = (uint32_t)gen_rand(s);
	p->deth.src_qp = (uint32_t)gen_rand(s) & 0xffffff;
	p->xrc_srq = (uint32_t)gen_rand(s) & 0xffffff;
	p->feth.sel = (uint8_t)(gen_rand(s) & 3);
	p->feth.plt = (uint8_t)(gen_rand(s) & 15);
	p->reth = (struct rl_reth){ gen_rand(s), (uint32_t)gen_rand(s), (uint32_t)gen_rand(s) };
	p->atomiceth = (struct rl_atomiceth){ gen_rand(s), (uint32_t)gen_rand(s), gen_rand(s), gen_rand(s) };
	p->aeth.syndrome = (uint8_t)(gen_rand(s) & 0x7f);
	p->aeth.msn = (uint32_t)gen_rand(s) & 0xffffff;
	p->atomicack_orig = gen_rand(s);
	p->immdt = (uint32_t)gen_rand(s);
	p->ieth_rkey = (uint32_t)gen_rand(s);
	p->udp.sport = (uint16_t)(0xc000 | (gen_rand(s) & 0x3fff));
	p->payload = payload;
	if (op->fixed_payload)
		p->payload_len = op->fixed_payload;
	else if (!(op->flags & RL_OPF_PAYLOAD))
		p->payload_len = 0;
	else if (op->flags & RL_OPF_LAST)
		p->payload_len = gen_rand(s) % 257;
	else
		p->payload_len = 4 * (gen_rand(s) % 65);
	for (size_t i = 0; i < p->payload_len; i++)
		payload[i] = (uint8_t)gen_rand(s);
}

/*
 * Every opcode the IB spec defines, each as Ethernet/IPv4, Ethernet/IPv6,
 * VLAN/IPv4, VLAN/IPv6 and RoCEv1, with random field values: the input of
 * the oracle tests that compare our decoder with Wireshark's and scapy's.
 */
static int gen_all_opcodes(struct gen_out *o, const struct gen_opts *opt)
{
	uint64_t s = opt->seed * 0x9e3779b97f4a7c15ull + 1;
	uint8_t payload[512];

	for (int op = 0; op < 256; op++) {
		if (!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID))
			continue;
		for (int shape = 0; shape < 5; shape++) {
			struct gen_opts f = *opt;
			struct rl_pkt p;

			f.ipv6 = shape == 1 || shape == 3;
			f.vlan = shape == 2 || shape == 3;
			f.vlan_id = (uint16_t)(1 + gen_rand(&s) % 4094);
			gen_pkt(&p, &f, (uint8_t)op, &gen_a, &gen_b);
			if (shape == 4) {
				p.l3 = RL_L3_GRH;
				p.roce = RL_ROCE_V1;
				memcpy(p.ip6.src, gen_a.ip6, 16);
				memcpy(p.ip6.dst, gen_b.ip6, 16);
			}
			gen_randomize(&p, &s, payload);
			gen_emit(o, &p);
		}
	}
	return 0;
}

/* Damage a well-formed frame in one way; each gives a distinct decode error. */
static void gen_damaged(struct gen_out *o, const struct gen_opts *opt, const char *opname,
			size_t payload_len, void (*damage)(uint8_t *f, size_t *n))
{
	static const uint8_t zeros[2048];
	uint8_t frame[4096];
	struct rl_pkt p;
	size_t n;

	gen_pkt(&p, opt, (uint8_t)rl_opcode_by_name(opname), &gen_a, &gen_b);
	p.bth.psn = 1000 + (uint32_t)o->frames;
	p.payload = zeros;
	p.payload_len = payload_len;
	if (rl_encode(&p, frame, sizeof(frame), &n) != RL_OK) {
		o->err = 1;
		return;
	}
	if (damage)
		damage(frame, &n);
	gen_write(o, frame, n);
}

/* Offsets in an Ethernet/IPv4 frame. */
#define G_IP 14
#define G_UDP 34
#define G_BTH 42

/* Re-seal an IPv4 frame after damage: IP checksum and ICRC match the new bytes. */
static void dmg_reseal(uint8_t *f, size_t n)
{
	uint32_t icrc;

	rl_put16(f + G_IP + 10, 0);
	rl_put16(f + G_IP + 10, rl_ipv4_checksum(f + G_IP, 20));
	icrc = rl_icrc_calc(RL_L3_IPV4, f + G_IP, 20, n - 4 - G_IP);
	for (int i = 0; i < 4; i++)
		f[n - 4 + (size_t)i] = (uint8_t)(icrc >> (8 * i));
}

static void dmg_truncate_bth(uint8_t *f, size_t *n)
{
	*n = G_BTH + 6;                   /* lengths agree, but only half a BTH */
	rl_put16(f + G_IP + 2, 20 + 8 + 6);
	rl_put16(f + G_UDP + 4, 8 + 6);
	rl_put16(f + G_IP + 10, 0);
	rl_put16(f + G_IP + 10, rl_ipv4_checksum(f + G_IP, 20));
}
static void dmg_udp_len(uint8_t *f, size_t *n) { (void)n; rl_put16(f + G_UDP + 4, (uint16_t)(rl_get16(f + G_UDP + 4) + 8)); }
static void dmg_tver(uint8_t *f, size_t *n) { (void)n; rl_bth_set_tver(f + G_BTH, 1); }
static void dmg_pad(uint8_t *f, size_t *n) { (void)n; rl_bth_set_padcnt(f + G_BTH, 3); }
static void dmg_icrc(uint8_t *f, size_t *n) { f[*n - 20] ^= 0x40; }
static void dmg_opcode_reserved(uint8_t *f, size_t *n) { rl_bth_set_opcode(f + G_BTH, 0x1e); dmg_reseal(f, *n); }
static void dmg_missing_reth(uint8_t *f, size_t *n) { (void)n; rl_bth_set_opcode(f + G_BTH, 0x0a); }
static void dmg_not_roce(uint8_t *f, size_t *n)
{
	rl_put16(f + G_UDP + 2, 53);      /* an ordinary UDP packet: counted, skipped */
	(void)n;
}

static int gen_malformed(struct gen_out *o, const struct gen_opts *opt)
{
	struct gen_opts v4 = *opt;

	v4.ipv6 = false;                  /* the damage offsets assume IPv4 */
	v4.vlan = false;
	gen_damaged(o, &v4, "RC SEND Only", 64, NULL);
	gen_damaged(o, &v4, "RC SEND Only", 64, dmg_truncate_bth);
	gen_damaged(o, &v4, "RC SEND Only", 64, dmg_udp_len);
	gen_damaged(o, &v4, "RC SEND Only", 64, dmg_tver);
	gen_damaged(o, &v4, "RC SEND First", 64, dmg_pad);
	gen_damaged(o, &v4, "RC SEND Only", 4, dmg_missing_reth);
	gen_damaged(o, &v4, "RC RDMA WRITE Only", 256, dmg_icrc);
	gen_damaged(o, &v4, "RC SEND Only", 16, dmg_opcode_reserved);
	gen_damaged(o, &v4, "RC SEND Only", 16, dmg_not_roce);
	return 0;
}

static const struct {
	const char *name;
	int (*run)(struct gen_out *o, const struct gen_opts *opt);
	const char *teaches;
} gen_scenarios[] = {
	{ "demo", gen_demo, "SEND (one and three packets), RDMA WRITE, RDMA READ, Fetch&Add, SEND with immediate, UD SEND, with ACKs" },
	{ "all-opcodes", gen_all_opcodes, "every opcode of the IB spec over IPv4, IPv6, VLAN and RoCEv1, random field values" },
	{ "malformed", gen_malformed, "a gallery of broken packets: each one a different decode error, and one ICRC failure" },
};

#define GEN_NSCENARIOS (sizeof(gen_scenarios) / sizeof(gen_scenarios[0]))

static void gen_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab gen SCENARIO -o FILE [options]\n"
		"       rocelab gen --list\n\n"
		"Write a pcap of RoCEv2 packets between two simulated hosts (A 192.168.100.1 QP 0x11,\n"
		"B 192.168.100.2 QP 0x12). The same arguments always write the same bytes.\n\n"
		"options:\n"
		"  -o, --output FILE  where to write ('-' for standard output)\n"
		"  -l, --list         the scenarios and what each teaches\n"
		"      --seed N       random seed for scenarios that use random values (default 1)\n"
		"      --ipv6         RoCEv2 over IPv6 (fd00::1, fd00::2) instead of IPv4\n"
		"      --vlan ID      put an 802.1Q tag with this VLAN ID (1-4094) on every frame\n"
		"  -h, --help         this text\n\n"
		"example:\n"
		"  rocelab gen demo -o demo.pcap && rocelab explain demo.pcap\n");
}

static void gen_list(void)
{
	for (size_t i = 0; i < GEN_NSCENARIOS; i++)
		printf("  %-12s %s\n", gen_scenarios[i].name, gen_scenarios[i].teaches);
}

static int gen_parse(int argc, char **argv, struct gen_opts *opt, const char **scenario)
{
	enum { O_SEED = 256, O_IPV6, O_VLAN };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "list", no_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, O_SEED }, { "ipv6", no_argument, NULL, O_IPV6 },
		{ "vlan", required_argument, NULL, O_VLAN }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': opt->out = optarg; break;
		case 'l': gen_list(); return -1;
		case 'h': gen_usage(stdout); return -1;
		case O_IPV6: opt->ipv6 = true; break;
		case O_SEED:
			if (!cli_parse_u64(optarg, UINT64_MAX, &opt->seed)) {
				cli_error("gen", "--seed needs a number, not '%s'", optarg);
				return CLI_ERR;
			}
			break;
		case O_VLAN:
			if (!cli_parse_u64(optarg, 4094, &v) || v == 0) {
				cli_error("gen", "--vlan needs a VLAN ID from 1 to 4094, not '%s'", optarg);
				return CLI_ERR;
			}
			opt->vlan = true;
			opt->vlan_id = (uint16_t)v;
			break;
		case ':':
			cli_error("gen", "option %s needs a value", argv[optind - 1]);
			return CLI_ERR;
		default:
			cli_error("gen", "unknown option '%s' (see rocelab gen --help)", argv[optind - 1]);
			return CLI_ERR;
		}
	}
	if (optind != argc - 1) {
		cli_error("gen", optind >= argc ? "which scenario? one of:" : "one scenario at a time; one of:");
		for (size_t i = 0; i < GEN_NSCENARIOS; i++)
			fprintf(stderr, "  %s\n", gen_scenarios[i].name);
		return CLI_ERR;
	}
	*scenario = argv[optind];
	if (!opt->out) {
		cli_error("gen", "where to? add -o FILE.pcap");
		return CLI_ERR;
	}
	return CLI_OK;
}

int cli_gen(int argc, char **argv)
{
	struct gen_opts opt = { .seed = 1 };
	const char *scenario = NULL;
	struct gen_out o;
	int r;

	r = gen_parse(argc, argv, &opt, &scenario);
	if (r)
		return r < 0 ? CLI_OK : r;
	for (size_t i = 0; i < GEN_NSCENARIOS; i++) {
		if (strcmp(scenario, gen_scenarios[i].name))
			continue;
		if (gen_open(&o, opt.out, DLT_EN10MB))
			return CLI_ERR;
		gen_scenarios[i].run(&o, &opt);
		if (gen_close(&o, opt.out))
			return CLI_ERR;
		if (strcmp(opt.out, "-"))
			fprintf(stderr, "rocelab gen: wrote %llu frames of '%s' to %s\n",
				(unsigned long long)o.frames, scenario, opt.out);
		return CLI_OK;
	}
	cli_error("gen", "no scenario '%s'; rocelab gen --list shows them", scenario);
	return CLI_ERR;
}
