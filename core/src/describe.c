/* SPDX-License-Identifier: MIT */
/* Plain-language text for packets and header fields. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rocelab/describe.h"

int rl_describe_syndrome(uint8_t s, char *buf, size_t n)
{
	uint8_t v = rl_syndrome_value(s);
	uint32_t us;

	switch (rl_syndrome_type(s)) {
	case RL_AETH_ACK:
		if (v == RL_AETH_CREDITS_INVALID)
			return snprintf(buf, n, "ACK credits=none");
		return snprintf(buf, n, "ACK credits=%d", rl_credit_count(v));
	case RL_AETH_RNR_NAK:
		us = rl_rnr_timer_us(v);
		return snprintf(buf, n, "RNR NAK timer=%u (%u.%02u ms)", v, us / 1000, us % 1000 / 10);
	case RL_AETH_NAK:
		return snprintf(buf, n, "NAK %s", rl_nak_code_name(v));
	default:
		return snprintf(buf, n, "reserved syndrome 0x%02x", s);
	}
}

/* Append to buf at *len, never past n. */
__attribute__((format(printf, 4, 5)))
static void rl_append(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*len + 1 >= n)
		return;
	va_start(ap, fmt);
	r = vsnprintf(buf + *len, n - *len, fmt, ap);
	va_end(ap);
	if (r > 0)
		*len += (size_t)r < n - *len ? (size_t)r : n - *len - 1;
}

static void rl_describe_ext(const struct rl_pkt *p, char *buf, size_t n, size_t *len)
{
	uint32_t m = p->hdrs;
	char syn[64];

	if (m & RL_HDR_RDETH)
		rl_append(buf, n, len, " EEC=0x%06x", p->rdeth_eecnxt);
	if (m & RL_HDR_DETH)
		rl_append(buf, n, len, " Q_Key=0x%08x SrcQP=0x%06x", p->deth.qkey, p->deth.src_qp);
	if (m & RL_HDR_XRCETH)
		rl_append(buf, n, len, " XRCSRQ=0x%06x", p->xrc_srq);
	if (m & RL_HDR_FETH)
		rl_append(buf, n, len, " sel=%u plt=%u", p->feth.sel, p->feth.plt);
	if (m & RL_HDR_RETH)
		rl_append(buf, n, len, " va=0x%" PRIx64 " rkey=0x%x len=%u", p->reth.va,
			  p->reth.rkey, p->reth.dma_len);
	if (m & RL_HDR_ATOMICETH)
		rl_append(buf, n, len, " va=0x%" PRIx64 " rkey=0x%x swap/add=0x%" PRIx64
			  " compare=0x%" PRIx64, p->atomiceth.va, p->atomiceth.rkey,
			  p->atomiceth.swap_add, p->atomiceth.compare);
	if (m & RL_HDR_AETH) {
		rl_describe_syndrome(p->aeth.syndrome, syn, sizeof(syn));
		rl_append(buf, n, len, " %s MSN=%u", syn, p->aeth.msn);
	}
	if (m & RL_HDR_ATOMICACKETH)
		rl_append(buf, n, len, " orig=0x%" PRIx64, p->atomicack_orig);
	if (m & RL_HDR_IMMDT)
		rl_append(buf, n, len, " imm=0x%08x", p->immdt);
	if (m & RL_HDR_IETH)
		rl_append(buf, n, len, " inv_rkey=0x%x", p->ieth_rkey);
}

int rl_describe_pkt(const struct rl_pkt *p, char *buf, size_t n)
{
	size_t len = 0;

	if (!n)
		return 0;
	buf[0] = 0;
	if (p->op && (p->op->flags & RL_OPF_VALID))
		rl_append(buf, n, &len, "%s", p->op->name);
	else
		rl_append(buf, n, &len, "Unknown opcode 0x%02x", p->bth.opcode);
	rl_append(buf, n, &len, " QP=0x%06x PSN=%u", p->bth.dqpn, p->bth.psn);
	if (p->bth.ackreq)
		rl_append(buf, n, &len, " AckReq");
	if (p->bth.se)
		rl_append(buf, n, &len, " SE");
	if (p->bth.fecn)
		rl_append(buf, n, &len, " FECN");
	if (p->bth.becn)
		rl_append(buf, n, &len, " BECN");
	rl_describe_ext(p, buf, n, &len);
	if (p->op && (p->op->flags & RL_OPF_PAYLOAD))
		rl_append(buf, n, &len, " payload=%zu", p->payload_len);
	return (int)len;
}

const char *rl_describe_opcode(uint8_t opcode)
{
	uint32_t f = rl_opcode_info(opcode)->flags;

	if (!(f & RL_OPF_VALID))
		return "a reserved opcode: no defined meaning, a receiver drops it";
	if (f & RL_OPF_CNP)
		return "congestion notification: the receiver saw ECN marks and asks the sender of this QP to slow down";
	if (f & RL_OPF_ACK)
		return (f & RL_OPF_ATOMIC) ? "the responder's answer to an atomic: the value memory held before"
					   : "the responder acknowledges (ACK) or rejects (NAK) requests up to this PSN";
	if ((f & RL_OPF_READ) && (f & RL_OPF_RESP))
		return "data the responder returns for an RDMA READ request";
	if (f & RL_OPF_READ)
		return "asks the responder to send back len bytes from its memory at va (rkey)";
	if (f & RL_OPF_FLUSH)
		return "asks the responder to make earlier writes to va..va+len persistent or visible";
	if (f & RL_OPF_RESYNC)
		return "resynchronises the PSN of an RD EE context";
	if (f & RL_OPF_ATOMIC)
		return "an atomic operation on 8 bytes of the responder's memory at va (rkey)";
	if (f & RL_OPF_WRITE)
		return "writes the payload into the responder's memory at va (rkey), without a receive buffer";
	if (f & RL_OPF_SEND)
		return "the payload lands in the next receive buffer the responder posted";
	return "";
}

const char *rl_addr_str(const struct rl_pkt *p, bool src, char *buf, size_t n)
{
	const uint8_t *a;

	if (p->l3 == RL_L3_IPV4) {
		a = src ? p->ip4.src : p->ip4.dst;
		snprintf(buf, n, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
		return buf;
	}
	if (p->l3 == RL_L3_NONE) {
		snprintf(buf, n, "?");
		return buf;
	}
	a = src ? p->ip6.src : p->ip6.dst;
	/* RFC 5952 text form: the longest run of zero groups becomes "::". */
	{
		int best = -1, best_len = 0, i, j;
		size_t len = 0;

		for (i = 0; i < 8; i = j + 1) {
			for (j = i; j < 8 && !a[2 * j] && !a[2 * j + 1]; j++)
				;
			if (j - i > best_len && j - i > 1) {
				best = i;
				best_len = j - i;
			}
		}
		/* IPv4-mapped (::ffff:a.b.c.d), as RoCE GIDs for IPv4 addresses look. */
		if (best == 0 && best_len == 5 && a[10] == 0xff && a[11] == 0xff) {
			snprintf(buf, n, "::ffff:%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
			return buf;
		}
		buf[0] = 0;
		for (i = 0; i < 8; i++) {
			if (i == best) {
				rl_append(buf, n, &len, "::");
				i += best_len - 1;
				continue;
			}
			rl_append(buf, n, &len, "%s%x", (i && i != best + best_len) ? ":" : "",
				  (unsigned)(a[2 * i] << 8 | a[2 * i + 1]));
		}
	}
	return buf;
}
