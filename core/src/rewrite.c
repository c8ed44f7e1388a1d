/* SPDX-License-Identifier: MIT */
/* Rewrite addresses, QP numbers and PSNs of captured RoCE frames, keeping them valid. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocelab/icrc.h"
#include "rocelab/rewrite.h"

bool rl_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
		return false;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return false;
		mac[i] = (uint8_t)v[i];
	}
	return true;
}

static bool rl_parse_ip(const char *s, uint8_t out[16], bool *v6)
{
	memset(out, 0, 16);
	if (inet_pton(AF_INET, s, out) == 1) {
		*v6 = false;
		return true;
	}
	*v6 = true;
	return inet_pton(AF_INET6, s, out) == 1;
}

/*
 * A number of a rule: decimal, or hex after 0x, as everywhere in rocelab; a
 * leading 0 is not octal ("qpn:010=..." is QP 10). No sign, no spaces. False
 * unless all of @s is one number up to @max.
 */
static bool rl_rw_number(const char *s, unsigned long max, unsigned long *out)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	unsigned long v;
	char *end;

	if (!(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)))
		return false;
	v = strtoul(s, &end, hex ? 16 : 10); /* ULONG_MAX when too big: above any @max */
	if (*end || v > max)
		return false;
	*out = v;
	return true;
}

/* QP0 and QP1 are special (IBA 3.5.12); the first a connection can have. */
#define RL_RW_FIRST_QPN 2

static bool rl_parse_qpn(const char *s, uint32_t *q)
{
	unsigned long v;

	if (!rl_rw_number(s, 0xffffff, &v))
		return false;
	*q = (uint32_t)v;
	return true;
}

/* Split "kind:OLD=NEW" into OLD and NEW (copied into @a, @b). */
static bool rl_split_pair(const char *s, char *a, char *b, size_t n)
{
	const char *eq = strchr(s, '=');

	if (!eq || (size_t)(eq - s) >= n || strlen(eq + 1) >= n)
		return false;
	memcpy(a, s, (size_t)(eq - s));
	a[eq - s] = 0;
	strcpy(b, eq + 1);
	return true;
}

static int rl_rw_fail(char *why, size_t n, const char *rule, const char *what)
{
	snprintf(why, n, "'%s': %s", rule, what);
	return -1;
}

int rl_rewrite_parse(struct rl_rewrite *rw, const char *rule, char *why, size_t n)
{
	char a[64], b[64];

	if (!strncmp(rule, "psn:", 4)) {
		unsigned long v;

		/* A shift has its sign: "psn:5" could as well mean "set every PSN to 5". */
		if ((rule[4] != '+' && rule[4] != '-') || !rl_rw_number(rule + 5, 0xffffff, &v))
			return rl_rw_fail(why, n, rule, "psn: needs a shift like +1000 or -5 (less than 2^24)");
		rw->psn_shift = rule[4] == '-' ? -(int32_t)v : (int32_t)v;
		return 0;
	}
	if (strncmp(rule, "mac:", 4) && strncmp(rule, "ip:", 3) && strncmp(rule, "qpn:", 4))
		return rl_rw_fail(why, n, rule, "a rule is mac:OLD=NEW, ip:OLD=NEW, qpn:OLD=NEW or psn:+N");
	if (!rl_split_pair(strchr(rule, ':') + 1, a, b, sizeof(a)))
		return rl_rw_fail(why, n, rule, "expected OLD=NEW after the colon");
	if (rule[0] == 'm') {
		if (rw->nmac == RL_REWRITE_MAX)
			return rl_rw_fail(why, n, rule, "too many mac rules");
		if (!rl_parse_mac(a, rw->mac[rw->nmac].from) || !rl_parse_mac(b, rw->mac[rw->nmac].to))
			return rl_rw_fail(why, n, rule, "MAC addresses look like 02:00:00:00:00:01");
		rw->nmac++;
	} else if (rule[0] == 'i') {
		bool v6a, v6b;

		if (rw->nip == RL_REWRITE_MAX)
			return rl_rw_fail(why, n, rule, "too many ip rules");
		if (!rl_parse_ip(a, rw->ip[rw->nip].from, &v6a) || !rl_parse_ip(b, rw->ip[rw->nip].to, &v6b))
			return rl_rw_fail(why, n, rule, "not an IPv4 or IPv6 address");
		if (v6a != v6b)
			return rl_rw_fail(why, n, rule, "both addresses must be IPv4, or both IPv6");
		rw->ip[rw->nip++].v6 = v6a;
	} else {
		if (rw->nqpn == RL_REWRITE_MAX)
			return rl_rw_fail(why, n, rule, "too many qpn rules");
		if (!rl_parse_qpn(a, &rw->qpn[rw->nqpn].from) || !rl_parse_qpn(b, &rw->qpn[rw->nqpn].to))
			return rl_rw_fail(why, n, rule, "a QPN is a number up to 0xffffff");
		/* QP0 and QP1 are the SMI and GSI (IBA 3.5.12): no connection's QP becomes one (gen refuses them too). */
		if (rw->qpn[rw->nqpn].to < RL_RW_FIRST_QPN)
			return rl_rw_fail(why, n, rule, "the new QPN cannot be 0 or 1 (QP0 and QP1 are the SMI and GSI)");
		rw->nqpn++;
	}
	return 0;
}

bool rl_rewrite_empty(const struct rl_rewrite *rw)
{
	return !rw->nmac && !rw->nip && !rw->nqpn && !rw->psn_shift;
}

static void rl_rw_mac(const struct rl_rewrite *rw, uint8_t *mac)
{
	for (size_t i = 0; i < rw->nmac; i++)
		if (!memcmp(mac, rw->mac[i].from, 6)) {
			memcpy(mac, rw->mac[i].to, 6);
			return;
		}
}

static void rl_rw_ip(const struct rl_rewrite *rw, uint8_t *addr, bool v6)
{
	size_t n = v6 ? 16 : 4;

	for (size_t i = 0; i < rw->nip; i++)
		if (rw->ip[i].v6 == v6 && !memcmp(addr, rw->ip[i].from, n)) {
			memcpy(addr, rw->ip[i].to, n);
			return;
		}
}

static uint32_t rl_rw_qpn(const struct rl_rewrite *rw, uint32_t q)
{
	for (size_t i = 0; i < rw->nqpn; i++)
		if (rw->qpn[i].from == q)
			return rw->qpn[i].to;
	return q;
}

/* IP addresses, QPNs and PSN of a decoded RoCE packet, in place. */
static void rl_rw_transport(const struct rl_rewrite *rw, const struct rl_pkt *p, uint8_t *frame)
{
	uint8_t *l3 = frame + p->l3_off, *bth = frame + p->bth_off;
	int deth = rl_opcode_hdr_offset(p->bth.opcode, RL_HDR_DETH);

	if (p->l3 == RL_L3_IPV4) {
		rl_rw_ip(rw, l3 + 12, false);
		rl_rw_ip(rw, l3 + 16, false);
		rl_put16(l3 + 10, 0);
		rl_put16(l3 + 10, rl_ipv4_checksum(l3, (size_t)p->ip4.ihl * 4));
	} else {
		rl_rw_ip(rw, l3 + 8, true);
		rl_rw_ip(rw, l3 + 24, true);
	}
	rl_bth_set_dqpn(bth, rl_rw_qpn(rw, p->bth.dqpn));
	rl_bth_set_psn(bth, (uint32_t)((int64_t)p->bth.psn + rw->psn_shift) & 0xffffff);
	if (deth >= 0) {
		uint8_t *d = bth + RL_BTH_LEN + deth;

		rl_deth_set_srcqp(d, rl_rw_qpn(rw, rl_deth_srcqp(d)));
	}
}

enum rl_status rl_rewrite_frame(const struct rl_rewrite *rw, enum rl_link link, uint8_t *frame, size_t len)
{
	struct rl_pkt p;
	enum rl_status st = rl_decode(link, frame, len, &p);
	uint32_t damage, icrc;

	if (st != RL_NOT_ROCE && rl_status_fatal(st))
		return st;
	if (link == RL_LINK_ETHERNET && len >= 12) {
		rl_rw_mac(rw, frame);
		rl_rw_mac(rw, frame + 6);
	}
	if (st == RL_NOT_ROCE)
		return st;
	/* A wrong ICRC stays wrong by the same bits: corruption is part of what a capture shows. */
	damage = p.icrc ^ p.icrc_expected;
	rl_rw_transport(rw, &p, frame);
	icrc = rl_icrc_compute(&p, frame) ^ damage;
	for (int i = 0; i < 4; i++)
		frame[p.icrc_off + (size_t)i] = (uint8_t)(icrc >> (8 * i));
	return RL_OK;
}
