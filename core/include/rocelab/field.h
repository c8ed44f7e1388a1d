/* SPDX-License-Identifier: MIT */
/*
 * The field table: every field of the IB transport headers (BTH, IBA 9.2;
 * the extended headers of IBA 9.3, XRCETH of A14, FETH of IBA 1.5) declared
 * once, in the manner of Wireshark's hf_register_info: its name, JSON key,
 * header, byte offset, bit width, display format and what it means.
 * The decoder and encoder are generated from the same rows; `rocelab
 * explain` (-v, --json), the one-line description and the Wireshark plugin's
 * fields are printers over this table.
 */
#ifndef ROCELAB_FIELD_H
#define ROCELAB_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The header of a field: an enum rl_hdr bit, or this for the BTH. */
#define RL_FIELD_BTH 0u

/* How a value is shown. */
enum rl_field_fmt {
	RL_FMT_DEC,       /* 42 */
	RL_FMT_HEX,       /* 0x00002a, to rl_field.digits digits */
	RL_FMT_BOOL,      /* a one-bit flag, shown 0 or 1 */
	RL_FMT_OPCODE,    /* the opcode and its spec name (opcode.h) */
	RL_FMT_SYNDROME,  /* the AETH syndrome and what it says (IBA 9.7.5.1) */
};

enum rl_field_flag {
	RL_FF_BREAK = 1u << 0,      /* explain -v: starts a new line */
	RL_FF_TERSE = 1u << 1,      /* explain -v: value only, without its meaning */
	RL_FF_WORDS_LINE = 1u << 2, /* explain -v: the words go on a line of their own */
	RL_FF_RESERVED = 1u << 3,   /* a reserved field: in the plugin, not in -v or JSON */
};

struct rl_field {
	uint32_t hdr;           /* enum rl_hdr bit, RL_FIELD_BTH for the BTH */
	const char *name;       /* "Destination QP": the plugin's field name */
	const char *key;        /* "dqpn": the JSON key */
	const char *filter;     /* "dest_qp": display filter rocelab.<header>.<filter> */
	const char *label;      /* "DestQP": explain -v ("" shows the value alone) */
	const char *brief;      /* "QP": the one-line key; NULL: not on the line */
	uint8_t off;            /* first byte, from the start of its header */
	uint8_t bytes;          /* bytes it spans: 1, 2, 3, 4 or 8 */
	uint8_t shift;          /* bits to its right within those bytes */
	uint8_t bits;           /* width */
	uint8_t fmt;            /* enum rl_field_fmt */
	uint8_t digits;         /* hex digits in -v */
	uint8_t brief_digits;   /* hex digits on the one line (1: as many as needed) */
	uint8_t flags;          /* enum rl_field_flag */
	/* Words for a value (NULL: none), shown in -v instead of the meaning. */
	const char *(*words)(uint64_t v);
	const char *meaning;    /* one line: what the field is for */
	uint16_t member;        /* where struct rl_pkt keeps it */
	uint8_t member_size;
};

/* A header, as the printers group fields. */
struct rl_field_hdr {
	uint32_t hdr;           /* enum rl_hdr bit, RL_FIELD_BTH */
	const char *name;       /* "RETH" */
	const char *key;        /* JSON object ("reth"); NULL: its fields stand alone */
	const char *filter;     /* display filter group, rocelab.<filter>.* */
	const char *title;      /* "RDMA Extended Transport Header" */
	const char *section;    /* "IBA 9.3.3": where the specification draws its layout */
	const char *text;       /* explain -v, for a header without fields */
	uint8_t len;
};

/* The whole table, in wire order: BTH fields, then each extended header's. */
const struct rl_field *rl_field_table(size_t *count);
/* The headers, BTH first, then in enum rl_hdr order; NULL if @hdr is none of them. */
const struct rl_field_hdr *rl_field_hdr(uint32_t hdr);

/* A field's value in a decoded (or to be encoded) packet. */
uint64_t rl_field_value(const struct rl_field *f, const struct rl_pkt *pkt);

/*
 * The fields a packet carries, in wire order: the BTH's, then those of each
 * extended header its opcode lists (pkt->hdrs).
 *     struct rl_field_iter it;
 *     rl_field_iter_init(&it, pkt);
 *     while ((f = rl_field_next(&it)))  ... it.value, it.off ...
 * Or header by header (a header may have no fields, as the CNP's):
 *     while ((h = rl_field_next_hdr(&it)))
 *             while ((f = rl_field_next(&it)))  ... the fields of h ...
 */
struct rl_field_iter {
	const struct rl_pkt *pkt;
	size_t i;               /* next row of the field table */
	size_t h;               /* next row of the header table */
	const struct rl_field_hdr *hdr; /* header by header: the current one */
	uint64_t value;         /* the field's value */
	size_t off;             /* its first byte, from the start of the BTH */
	uint32_t at_hdr;        /* the header of the last field returned, and ... */
	size_t at_hdr_off;      /* ... its offset from the start of the BTH */
};
void rl_field_iter_init(struct rl_field_iter *it, const struct rl_pkt *pkt);
const struct rl_field *rl_field_next(struct rl_field_iter *it);
const struct rl_field_hdr *rl_field_next_hdr(struct rl_field_iter *it);

/* Offset of header @hdr from the start of the BTH in @pkt, or -1 if it has none. */
int rl_field_hdr_offset(const struct rl_pkt *pkt, uint32_t hdr);

/* An extra line explain -v prints after a header (what a NAK means), or NULL. */
const char *rl_field_hdr_note(uint32_t hdr, const struct rl_pkt *pkt, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
