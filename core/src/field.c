/* SPDX-License-Identifier: MIT */
/*
 * The field table (rocelab/field.h), expanded from the rows in field_rows.h,
 * and the words some values have.
 */
#include <stddef.h>
#include <string.h>

#include "field_rows.h"
#include "rocelab/describe.h"
#include "rocelab/strbuf.h"

static const char *rl_fw_opcode(uint64_t v) { return rl_describe_opcode((uint8_t)v); }
static const char *rl_fw_se(uint64_t v)
{
	return v ? "wake the receiver's completion handler" : "no solicited event";
}
static const char *rl_fw_pkey(uint64_t v) { return v == 0xffff ? "partition, the default one" : "partition"; }
static const char *rl_fw_becn(uint64_t v) { return v ? "CNP: congestion seen on the path back" : NULL; }
static const char *rl_fw_ackreq(uint64_t v) { return v ? "the responder must acknowledge" : NULL; }

/* FETH selectivity level (IBA 1.5; rxe's IB_FLUSH_RANGE and IB_FLUSH_MR). */
static const char *rl_fw_feth_sel(uint64_t v)
{
	switch (v) {
	case 0: return "the range va..va+len of the memory region";
	case 1: return "the whole memory region of rkey";
	default: return "reserved";
	}
}

/* FETH placement type: bit 0 global visibility, bit 1 persistence (IBA 1.5). */
static const char *rl_fw_feth_plt(uint64_t v)
{
	switch (v) {
	case 1: return "global visibility: earlier writes become visible to every reader";
	case 2: return "persistence: earlier writes reach persistent memory";
	case 3: return "global visibility and persistence";
	default: return "reserved";
	}
}

#define RL_FIELD_ROW(hdr_, member_, off_, bytes_, shift_, bits_, fmt_, digits_, bdigits_, flags_,  \
		     key_, filter_, label_, brief_, name_, words_, meaning_)                       \
	{ .hdr = (hdr_), .name = name_, .key = key_, .filter = filter_, .label = label_,           \
	  .brief = brief_, .off = off_, .bytes = bytes_, .shift = shift_, .bits = bits_,           \
	  .fmt = fmt_, .digits = digits_, .brief_digits = bdigits_, .flags = flags_,               \
	  .words = words_, .meaning = meaning_, .member = offsetof(struct rl_pkt, member_),        \
	  .member_size = sizeof(((struct rl_pkt *)0)->member_) },

static const struct rl_field rl_fields[] = { RL_FIELD_ROWS(RL_FIELD_ROW) };

#define RL_FIELD_HDR_ROW(id, hdr_, len_, name_, key_, filter_, title_, section_, text_)        \
	{ .hdr = (hdr_), .name = name_, .key = key_, .filter = filter_, .title = title_,          \
	  .section = section_, .text = text_, .len = len_ },

static const struct rl_field_hdr rl_field_hdrs[] = { RL_FIELD_HDRS(RL_FIELD_HDR_ROW) };

const struct rl_field *rl_field_table(size_t *count)
{
	*count = sizeof(rl_fields) / sizeof(rl_fields[0]);
	return rl_fields;
}

const struct rl_field_hdr *rl_field_hdr(uint32_t hdr)
{
	for (size_t i = 0; i < sizeof(rl_field_hdrs) / sizeof(rl_field_hdrs[0]); i++)
		if (rl_field_hdrs[i].hdr == hdr)
			return &rl_field_hdrs[i];
	return NULL;
}

uint64_t rl_field_value(const struct rl_field *f, const struct rl_pkt *pkt)
{
	const unsigned char *m = (const unsigned char *)pkt + f->member;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (f->member_size) {
	case 1:
		u8 = *m; /* uint8_t or bool: 0 or 1 */
		return u8;
	case 2: memcpy(&u16, m, 2); return u16;
	case 4: memcpy(&u32, m, 4); return u32;
	default: memcpy(&u64, m, 8); return u64;
	}
}

int rl_field_hdr_offset(const struct rl_pkt *pkt, uint32_t hdr)
{
	int off;

	if (hdr == RL_FIELD_BTH)
		return 0;
	off = pkt->op && (pkt->hdrs & hdr) ? rl_opcode_hdr_offset(pkt->bth.opcode, (enum rl_hdr)hdr) : -1;
	return off < 0 ? -1 : RL_BTH_LEN + off;
}

void rl_field_iter_init(struct rl_field_iter *it, const struct rl_pkt *pkt)
{
	it->pkt = pkt;
	it->i = it->h = 0;
	it->hdr = NULL;
	it->value = 0;
	it->off = 0;
	it->at_hdr = RL_FIELD_BTH;
	it->at_hdr_off = 0;
}

static bool rl_field_present(const struct rl_pkt *pkt, uint32_t hdr)
{
	return hdr == RL_FIELD_BTH || (pkt->op && (pkt->hdrs & hdr));
}

const struct rl_field *rl_field_next(struct rl_field_iter *it)
{
	const size_t n = sizeof(rl_fields) / sizeof(rl_fields[0]);

	while (it->i < n) {
		const struct rl_field *f = &rl_fields[it->i];

		if (it->hdr && f->hdr != it->hdr->hdr)
			return NULL;
		it->i++;
		if (!rl_field_present(it->pkt, f->hdr))
			continue;
		if (f->hdr != it->at_hdr) {       /* a header's offset is looked up once, at its first field */
			it->at_hdr = f->hdr;
			it->at_hdr_off = (size_t)rl_field_hdr_offset(it->pkt, f->hdr);
		}
		it->value = rl_field_value(f, it->pkt);
		it->off = it->at_hdr_off + f->off;
		return f;
	}
	return NULL;
}

/*
 * The first row of header @hdr (the table's size if it has none). The rows
 * come header after header in the header table's order, so the search starts
 * at @from, where the previous header's fields ended, and looks back only if
 * a caller's own walk left it past them.
 */
static size_t rl_field_first(uint32_t hdr, size_t from)
{
	const size_t n = sizeof(rl_fields) / sizeof(rl_fields[0]);
	size_t i;

	for (i = from; i < n && rl_fields[i].hdr != hdr; i++)
		;
	if (i == n)
		for (i = 0; i < n && rl_fields[i].hdr != hdr; i++)
			;
	while (i > 0 && i < n && rl_fields[i - 1].hdr == hdr)
		i--;
	return i;
}

const struct rl_field_hdr *rl_field_next_hdr(struct rl_field_iter *it)
{
	const size_t nh = sizeof(rl_field_hdrs) / sizeof(rl_field_hdrs[0]);
	const size_t n = sizeof(rl_fields) / sizeof(rl_fields[0]);

	while (it->h < nh) {
		const struct rl_field_hdr *h = &rl_field_hdrs[it->h++];

		if (!rl_field_present(it->pkt, h->hdr))
			continue;
		it->hdr = h;
		it->i = rl_field_first(h->hdr, it->i < n ? it->i : 0);
		return h;
	}
	it->hdr = NULL;
	it->i = n;
	return NULL;
}

/* What an AETH's NAK or RNR NAK asks of the requester, for explain -v. */
const char *rl_field_hdr_note(uint32_t hdr, const struct rl_pkt *pkt, char *buf, size_t n)
{
	struct rl_sb sb;
	uint8_t s = pkt->aeth.syndrome;

	if (hdr != RL_HDR_AETH)
		return NULL;
	switch (rl_syndrome_type(s)) {
	case RL_AETH_NAK:
		return rl_nak_code_meaning(rl_syndrome_value(s));
	case RL_AETH_RNR_NAK:
		rl_sb_init(&sb, buf, n);
		rl_sb_puts(&sb, "no receive buffer was posted: the requester waits, then retries from PSN ");
		rl_sb_u64(&sb, pkt->bth.psn);
		return buf;
	default:
		return NULL;
	}
}
