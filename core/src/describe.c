/* SPDX-License-Identifier: MIT */
/* Plain-language text for packets and header fields. */

#include "rocelab/describe.h"
#include "rocelab/field.h"

void rl_sb_describe_syndrome(struct rl_sb *sb, uint8_t s)
{
	uint8_t v = rl_syndrome_value(s);
	uint32_t us;

	switch (rl_syndrome_type(s)) {
	case RL_AETH_ACK:
		rl_sb_puts(sb, "ACK credits=");
		if (v == RL_AETH_CREDITS_INVALID)
			rl_sb_puts(sb, "none");
		else
			rl_sb_u64(sb, (uint64_t)rl_credit_count(v));
		break;
	case RL_AETH_RNR_NAK:
		us = rl_rnr_timer_us(v);
		rl_sb_puts(sb, "RNR NAK timer=");
		rl_sb_u64(sb, v);
		rl_sb_puts(sb, " (");
		rl_sb_u64(sb, us / 1000);
		rl_sb_putc(sb, '.');
		rl_sb_u64w(sb, us % 1000 / 10, 2);
		rl_sb_puts(sb, " ms)");
		break;
	case RL_AETH_NAK:
		rl_sb_puts(sb, "NAK ");
		rl_sb_puts(sb, rl_nak_code_name(v));
		break;
	default:
		rl_sb_puts(sb, "reserved syndrome ");
		rl_sb_hex(sb, s, 2);
		break;
	}
}

int rl_describe_syndrome(uint8_t s, char *buf, size_t n)
{
	struct rl_sb sb;

	rl_sb_init(&sb, buf, n);
	rl_sb_describe_syndrome(&sb, s);
	return (int)sb.len;
}

/* " name=0x..."; inline, so that a literal name's length is known at compile time. */
static inline void rl_sb_field_hex(struct rl_sb *sb, const char *name, uint64_t v, unsigned width)
{
	rl_sb_putc(sb, ' ');
	rl_sb_puts(sb, name);
	rl_sb_putc(sb, '=');
	rl_sb_hex(sb, v, width);
}

static inline void rl_sb_field_u64(struct rl_sb *sb, const char *name, uint64_t v)
{
	rl_sb_putc(sb, ' ');
	rl_sb_puts(sb, name);
	rl_sb_putc(sb, '=');
	rl_sb_u64(sb, v);
}

/*
 * The extended headers' fields that have a one-line key, from the field
 * table. Its rows are in wire order, header after header, so one pass over
 * them, skipping the headers the packet lacks, meets them in the order
 * rl_field_next_hdr() and rl_field_next() would: at a fraction of the cost,
 * which counts on a line printed for every frame.
 */
static void rl_describe_ext(struct rl_sb *sb, const struct rl_pkt *p)
{
	size_t n;
	const struct rl_field *f = rl_field_table(&n), *end = f + n;

	if (!p->op || !p->hdrs)
		return;
	for (; f < end; f++) {
		uint64_t v;

		/* The BTH (RL_FIELD_BTH, no bit of hdrs) is said above, in its own order. */
		if (!(p->hdrs & f->hdr) || !f->brief)
			continue;
		v = rl_field_value(f, p);
		if (f->fmt == RL_FMT_SYNDROME) {
			rl_sb_putc(sb, ' ');
			rl_sb_describe_syndrome(sb, (uint8_t)v);
		} else if (f->fmt == RL_FMT_HEX) {
			rl_sb_field_hex(sb, f->brief, v, f->brief_digits);
		} else {
			rl_sb_field_u64(sb, f->brief, v);
		}
	}
}

void rl_sb_describe_pkt(struct rl_sb *sb, const struct rl_pkt *p)
{
	if (p->op && (p->op->flags & RL_OPF_VALID)) {
		rl_sb_puts(sb, p->op->name);
	} else {
		rl_sb_puts(sb, "Unknown opcode ");
		rl_sb_hex(sb, p->bth.opcode, 2);
	}
	rl_sb_field_hex(sb, "QP", p->bth.dqpn, 6);
	rl_sb_field_u64(sb, "PSN", p->bth.psn);
	if (p->bth.ackreq)
		rl_sb_puts(sb, " AckReq");
	if (p->bth.se)
		rl_sb_puts(sb, " SE");
	if (p->bth.fecn)
		rl_sb_puts(sb, " FECN");
	if (p->bth.becn)
		rl_sb_puts(sb, " BECN");
	rl_describe_ext(sb, p);
	if (p->op && (p->op->flags & RL_OPF_PAYLOAD))
		rl_sb_field_u64(sb, "payload", p->payload_len);
}

int rl_describe_pkt(const struct rl_pkt *p, char *buf, size_t n)
{
	struct rl_sb sb;

	rl_sb_init(&sb, buf, n);
	rl_sb_describe_pkt(&sb, p);
	return (int)sb.len;
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
	if (f & RL_OPF_ATOMIC_WRITE)
		return "writes its 8-byte payload into the responder's memory at va (rkey) in one piece: no reader "
		       "sees half of it";
	if (f & RL_OPF_ATOMIC)
		return "an atomic operation on 8 bytes of the responder's memory at va (rkey)";
	if ((f & RL_OPF_WRITE) && (f & RL_OPF_IMM))
		return "writes the payload into the responder's memory at va (rkey); the immediate data takes a receive "
		       "buffer and makes a completion there";
	if (f & RL_OPF_WRITE)
		return "writes the payload into the responder's memory at va (rkey), without a receive buffer";
	if (f & RL_OPF_SEND)
		return "the payload lands in the next receive buffer the responder posted";
	return "";
}

/* RFC 5952 text form of an IPv6 address: the longest run of zero groups becomes "::". */
void rl_sb_ipv6(struct rl_sb *sb, const uint8_t *a)
{
	int best = -1, best_len = 0, i, j;

	for (i = 0; i < 8; i = j + 1) {
		for (j = i; j < 8 && !a[2 * j] && !a[2 * j + 1]; j++)
			;
		if (j - i > best_len && j - i > 1) {
			best = i;
			best_len = j - i;
		}
	}
	/*
	 * IPv4-mapped (::ffff:a.b.c.d, as RoCE GIDs of IPv4 addresses look)
	 * and IPv4-compatible (::a.b.c.d) addresses end in dotted form, as
	 * inet_ntop() writes them for tcpdump and Wireshark.
	 */
	if (best == 0 && (best_len == 6 || (best_len == 5 && a[10] == 0xff && a[11] == 0xff))) {
		rl_sb_puts(sb, best_len == 6 ? "::" : "::ffff:");
		rl_sb_ipv4(sb, a + 12);
		return;
	}
	for (i = 0; i < 8; i++) {
		static const char digits[] = "0123456789abcdef";
		unsigned g = (unsigned)(a[2 * i] << 8 | a[2 * i + 1]);
		int shift = 12;

		if (i == best) {
			rl_sb_puts(sb, "::");
			i += best_len - 1;
			continue;
		}
		if (i && i != best + best_len)
			rl_sb_putc(sb, ':');
		while (shift > 0 && !(g >> shift))
			shift -= 4;
		for (; shift >= 0; shift -= 4)
			rl_sb_putc(sb, digits[(g >> shift) & 15]);
	}
}

void rl_sb_ipv4(struct rl_sb *sb, const uint8_t *a)
{
	rl_sb_dec_bytes(sb, a, 4, '.');
}

void rl_sb_addr(struct rl_sb *sb, const struct rl_pkt *p, bool src)
{
	if (p->l3 == RL_L3_IPV4)
		rl_sb_ipv4(sb, src ? p->ip4.src : p->ip4.dst);
	else if (p->l3 == RL_L3_NONE)
		rl_sb_putc(sb, '?');
	else
		rl_sb_ipv6(sb, src ? p->ip6.src : p->ip6.dst);
}

const char *rl_addr_str(const struct rl_pkt *p, bool src, char *buf, size_t n)
{
	struct rl_sb sb;

	rl_sb_init(&sb, buf, n);
	rl_sb_addr(&sb, p, src);
	return buf;
}
