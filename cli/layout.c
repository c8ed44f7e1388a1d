/* SPDX-License-Identifier: MIT */
/*
 * explain --layout HDR: a header's bit layout, drawn from the field table
 * (rocelab/field.h) so that the picture cannot drift from the decoder.
 * lay_build() works out every box once: where each field sits (its byte
 * offset, bytes, shift and width; bits go MSB first on the wire, so bit 0
 * of the diagram is the top bit of the header's first byte), the bits no
 * field claims, a field split across 32-bit rows, and which labels fit.
 * Three printers draw the result: an RFC 791-style text diagram, the same
 * as SVG, and one JSON line per field for scripts and tests.
 * explain --layout OPCODE: the layers of a frame of that opcode, from the
 * opcode table's headers (lay_frame_build()), drawn by the same three kinds
 * of printer.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "cli.h"
#include "json.h"
#include "svg.h"
#include "rocelab/rocelab.h"

#define LAY_ROW_BITS 32   /* bits per row, as the IBA and RFC 791 draw headers */
#define LAY_MAX_SPANS 32
#define LAY_MAX_BOXES 64
#define LAY_LABEL_MAX 48
#define LAY_LEGEND_WIDTH 78
#define LAY_LEGEND_MAX 48
#define LAY_LINE_MAX 128

/* A field, or a run of bits no field claims, across the whole header. */
struct lay_span {
	const struct rl_field *f; /* NULL: reserved bits */
	unsigned first;           /* first bit from the header's start */
	unsigned bits;
	char key;                 /* its legend key, when some box of it shows the key; or 0 */
};

/* A span's part within one row. */
struct lay_box {
	const struct lay_span *span;
	unsigned row, col, bits;  /* row, first bit within it, width */
	char label[LAY_LABEL_MAX];
};

struct lay {
	const struct rl_field_hdr *h;
	unsigned rows;
	size_t nspan, nbox, nlegend;
	struct lay_span span[LAY_MAX_SPANS];
	struct lay_box box[LAY_MAX_BOXES];
	char legend[LAY_LEGEND_MAX][LAY_LINE_MAX];
};

/* ---- the headers by name ---------------------------------------------------------------- */

/* The n-th header of the table (BTH first, then enum rl_hdr's order), or NULL after the last. */
static const struct rl_field_hdr *lay_hdr_at(unsigned n)
{
	if (n == 0)
		return rl_field_hdr(RL_FIELD_BTH);
	return n <= RL_HDR_COUNT ? rl_field_hdr(1u << (n - 1)) : NULL;
}

static const struct rl_field_hdr *lay_find(const char *name)
{
	const struct rl_field_hdr *h;

	for (unsigned n = 0; (h = lay_hdr_at(n)); n++)
		if (!strcasecmp(h->name, name))
			return h;
	return NULL;
}

static void lay_list(FILE *f)
{
	const struct rl_field_hdr *h;

	for (unsigned n = 0; (h = lay_hdr_at(n)); n++)
		fprintf(f, "%-12s %2u bytes  %s (%s)\n", h->name, h->len, h->title, h->section);
}

/* ---- the boxes ---------------------------------------------------------------------------- */

static const char *lay_short(const struct rl_field *f)
{
	return f->label[0] ? f->label : f->name;
}

/* Characters inside a box of @bits in the text diagram (two columns a bit, one for the edge). */
static unsigned lay_room(unsigned bits)
{
	return 2 * bits - 1;
}

static bool lay_add_span(struct lay *l, const struct rl_field *f, unsigned first, unsigned bits)
{
	if (l->nspan == LAY_MAX_SPANS)
		return false;
	l->span[l->nspan++] = (struct lay_span){ .f = f, .first = first, .bits = bits };
	return true;
}

/*
 * The header's spans in bit order: each field of the table where its row puts
 * it, and reserved spans for the bits between. The table lists fields in wire
 * order; one that overlaps the one before it is a table error, said here.
 */
static bool lay_spans(struct lay *l)
{
	size_t count;
	const struct rl_field *t = rl_field_table(&count);
	unsigned at = 0, end = l->h->len * 8u;

	for (size_t i = 0; i < count; i++) {
		const struct rl_field *f = &t[i];
		unsigned first = f->off * 8u + f->bytes * 8u - f->shift - f->bits;

		if (f->hdr != l->h->hdr)
			continue;
		if (first < at || first + f->bits > end) {
			cli_error("explain", "the field table puts %s's %s at bit %u, over its neighbour",
				  l->h->name, f->name, first);
			return false;
		}
		if ((first > at && !lay_add_span(l, NULL, at, first - at)) || !lay_add_span(l, f, first, f->bits))
			return false;
		at = first + f->bits;
	}
	return at == end || lay_add_span(l, NULL, at, end - at);
}

/* A key letter for @s not yet taken: its short name's letters first, then a..z. */
static char lay_pick_key(const struct lay *l, const struct lay_span *s)
{
	const char *name = s->f ? lay_short(s->f) : "reserved";
	char taken[128] = { 0 };

	for (size_t i = 0; i < l->nspan; i++)
		taken[(unsigned char)l->span[i].key & 127] = 1;
	for (const char *p = name; *p; p++) {
		char c = (char)toupper((unsigned char)*p);
		if (isalpha((unsigned char)c) && !taken[(unsigned char)c])
			return c;
	}
	for (char c = 'a'; c <= 'z'; c++)
		if (!taken[(unsigned char)c])
			return c;
	return '?';
}

/*
 * The label of a box: the field's name if it fits, else its short label, else
 * the key. A part of a split field names the bits of the value it holds,
 * "[63:32]", bit 0 being the value's least significant.
 */
static void lay_label(struct lay *l, struct lay_box *b, struct lay_span *s)
{
	const char *names[2] = { s->f ? s->f->name : "reserved", s->f ? lay_short(s->f) : "reserved" };
	char part[24] = "";

	if (b->bits != s->bits && s->f) {
		unsigned hi = s->bits - 1 - (b->row * LAY_ROW_BITS + b->col - s->first);
		snprintf(part, sizeof(part), " [%u:%u]", hi, hi - b->bits + 1);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(b->label, sizeof(b->label), "%s%s", names[i], part);
		if (strlen(b->label) <= lay_room(b->bits))
			return;
	}
	if (!s->key)
		s->key = lay_pick_key(l, s);
	snprintf(b->label, sizeof(b->label), "%c", s->key);
}

/* Cut each span at the row edges into boxes, and label them. */
static bool lay_boxes(struct lay *l)
{
	for (size_t i = 0; i < l->nspan; i++) {
		struct lay_span *s = &l->span[i];

		for (unsigned at = s->first; at < s->first + s->bits;) {
			unsigned col = at % LAY_ROW_BITS, left = s->first + s->bits - at;
			struct lay_box *b;

			if (l->nbox == LAY_MAX_BOXES)
				return false;
			b = &l->box[l->nbox++];
			b->span = s;
			b->row = at / LAY_ROW_BITS;
			b->col = col;
			b->bits = left < LAY_ROW_BITS - col ? left : LAY_ROW_BITS - col;
			lay_label(l, b, s);
			at += b->bits;
		}
	}
	l->rows = (l->h->len * 8u + LAY_ROW_BITS - 1) / LAY_ROW_BITS;
	return true;
}

/* Append @text to a legend, wrapped at LAY_LEGEND_WIDTH, the lines after the first indented. */
static void lay_lines_add(char (*lines)[LAY_LINE_MAX], size_t *n, const char *text)
{
	static const char indent[] = "     ";
	size_t width = LAY_LEGEND_WIDTH;
	const char *lead = "";

	while (*text && *n < LAY_LEGEND_MAX) {
		size_t cut = strlen(text);

		if (cut > width) {
			cut = width;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (!cut)
				cut = width;
		}
		snprintf(lines[(*n)++], LAY_LINE_MAX, "%s%.*s", lead, (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		lead = indent;
		width = LAY_LEGEND_WIDTH - (sizeof(indent) - 1);
	}
}

static void lay_legend(struct lay *l)
{
	char text[512], where[32];

	for (size_t i = 0; i < l->nspan; i++) {
		const struct lay_span *s = &l->span[i];

		if (!s->key)
			continue;
		/* Where the diagram shows it: the row by its byte offset, the bits within the row. */
		unsigned row = s->first / LAY_ROW_BITS * LAY_ROW_BITS / 8, bit = s->first % LAY_ROW_BITS;

		if (s->bits == 1)
			snprintf(where, sizeof(where), "row %u bit %u", row, bit);
		else
			snprintf(where, sizeof(where), "row %u bits %u-%u", row, bit, bit + s->bits - 1);
		if (!s->f)
			snprintf(text, sizeof(text), "  %c  reserved, %s", s->key, where);
		else if (strcmp(lay_short(s->f), s->f->name))
			snprintf(text, sizeof(text), "  %c  %s, %s, %s: %s", s->key, lay_short(s->f), s->f->name,
				 where, s->f->meaning);
		else
			snprintf(text, sizeof(text), "  %c  %s, %s: %s", s->key, s->f->name, where, s->f->meaning);
		lay_lines_add(l->legend, &l->nlegend, text);
	}
}

/* Everything the printers draw, for header @h. */
static bool lay_build(struct lay *l, const struct rl_field_hdr *h)
{
	memset(l, 0, sizeof(*l));
	l->h = h;
	if (!lay_spans(l) || !lay_boxes(l)) {
		cli_error("explain", "%s: too many fields to draw", h->name);
		return false;
	}
	lay_legend(l);
	return true;
}

/* ---- text ---------------------------------------------------------------------------------- */

static unsigned lay_row_bits(const struct lay *l, unsigned row)
{
	unsigned left = l->h->len * 8u - row * LAY_ROW_BITS;

	return left < LAY_ROW_BITS ? left : LAY_ROW_BITS;
}

static void lay_text_rule(FILE *o, unsigned bits)
{
	fputs("      +", o);
	for (unsigned i = 0; i < bits; i++)
		fputs("-+", o);
	fputc('\n', o);
}

static void lay_text_row(FILE *o, const struct lay *l, unsigned row)
{
	fprintf(o, "%5u |", row * LAY_ROW_BITS / 8);
	for (size_t i = 0; i < l->nbox; i++) {
		const struct lay_box *b = &l->box[i];
		unsigned room = lay_room(b->bits), len = (unsigned)strlen(b->label);
		unsigned before = (room - len) / 2;

		if (b->row == row)
			fprintf(o, "%*s%s%*s|", (int)before, "", b->label, (int)(room - len - before), "");
	}
	fputc('\n', o);
}

static void lay_print_text(FILE *o, const struct lay *l)
{
	fprintf(o, "%s: %s, %u bytes (%s)\n\n", l->h->name, l->h->title, l->h->len, l->h->section);
	/* The bit numbers, tens over units, as RFC 791 writes them. */
	fputs("       ", o);
	for (unsigned i = 0; i < LAY_ROW_BITS; i += 10)
		fprintf(o, i + 10 < LAY_ROW_BITS ? "%-20u" : "%u", i / 10);
	fputs("\n       ", o);
	for (unsigned i = 0; i < LAY_ROW_BITS; i++)
		fprintf(o, "%u%s", i % 10, i + 1 < LAY_ROW_BITS ? " " : "\n");
	lay_text_rule(o, lay_row_bits(l, 0));
	for (unsigned r = 0; r < l->rows; r++) {
		lay_text_row(o, l, r);
		lay_text_rule(o, lay_row_bits(l, r));
	}
	if (l->nlegend)
		fputc('\n', o);
	for (size_t i = 0; i < l->nlegend; i++)
		fprintf(o, "%s\n", l->legend[i]);
}

/* ---- SVG ----------------------------------------------------------------------------------- */

#define LAY_SVG_BIT 20      /* px per bit */
#define LAY_SVG_ROW 36      /* px per row */
#define LAY_SVG_LEFT 56     /* the byte offsets' column */
#define LAY_SVG_TOP 64      /* the title and the bit numbers */
#define LAY_SVG_LINE 16     /* px per legend line */
#define LAY_SVG_MARGIN CLI_SVG_MARGIN

/* The legend's @n lines from @y down, and the document's end. */
static void lay_svg_tail(FILE *o, const char (*legend)[LAY_LINE_MAX], size_t n, unsigned y)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(o, "<text x=\"%u\" y=\"%u\" xml:space=\"preserve\">", LAY_SVG_MARGIN, y + (unsigned)i * LAY_SVG_LINE);
		cli_svg_text(o, legend[i]);
		fputs("</text>\n", o);
	}
	fputs("</svg>\n", o);
}

static void lay_svg_box(FILE *o, const struct lay_box *b)
{
	unsigned x = LAY_SVG_LEFT + b->col * LAY_SVG_BIT, y = LAY_SVG_TOP + b->row * LAY_SVG_ROW;
	unsigned w = b->bits * LAY_SVG_BIT;
	bool reserved = !b->span->f || (b->span->f->flags & RL_FF_RESERVED);

	fprintf(o, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" stroke=\"#000000\"/>\n", x, y,
		w, LAY_SVG_ROW, reserved ? "#e6e6e6" : "#ffffff");
	fprintf(o, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">", x + w / 2, y + LAY_SVG_ROW / 2 + 4);
	cli_svg_text(o, b->label);
	fputs("</text>\n", o);
}

static void lay_print_svg(FILE *o, const struct lay *l)
{
	unsigned width = LAY_SVG_LEFT + LAY_ROW_BITS * LAY_SVG_BIT + LAY_SVG_MARGIN;
	unsigned legend_y = LAY_SVG_TOP + l->rows * LAY_SVG_ROW + 2 * LAY_SVG_MARGIN;
	unsigned height = legend_y + (unsigned)l->nlegend * LAY_SVG_LINE + LAY_SVG_MARGIN;
	char title[256];

	snprintf(title, sizeof(title), "%s: %s, %u bytes (%s)", l->h->name, l->h->title, l->h->len, l->h->section);
	cli_svg_head(o, title, width, height);
	fprintf(o, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\" font-size=\"10\">byte</text>\n", LAY_SVG_LEFT - 8,
		LAY_SVG_TOP - 8);
	for (unsigned i = 0; i < LAY_ROW_BITS; i++) {
		unsigned x = LAY_SVG_LEFT + i * LAY_SVG_BIT + LAY_SVG_BIT / 2;

		if (i % 10 == 0)
			fprintf(o, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\" font-size=\"10\">%u</text>\n", x,
				LAY_SVG_TOP - 20, i / 10);
		fprintf(o, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\" font-size=\"10\">%u</text>\n", x,
			LAY_SVG_TOP - 8, i % 10);
	}
	for (unsigned r = 0; r < l->rows; r++)
		fprintf(o, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%u</text>\n", LAY_SVG_LEFT - 8,
			LAY_SVG_TOP + r * LAY_SVG_ROW + LAY_SVG_ROW / 2 + 4, r * LAY_ROW_BITS / 8);
	for (size_t i = 0; i < l->nbox; i++)
		lay_svg_box(o, &l->box[i]);
	lay_svg_tail(o, l->legend, l->nlegend, legend_y);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* One line per field and per reserved run, in bit order. */
static void lay_print_json(FILE *o, const struct lay *l)
{
	struct json j;

	json_begin(&j, o);
	for (size_t i = 0; i < l->nspan; i++) {
		const struct lay_span *s = &l->span[i];
		char key[2] = { s->key, 0 };

		json_obj(&j, NULL);
		json_str(&j, "header", l->h->name);
		json_str(&j, "name", s->f ? s->f->name : "reserved");
		if (s->f) {
			json_str(&j, "json_key", s->f->key);
			json_str(&j, "filter", s->f->filter);
		}
		json_u64(&j, "first_bit", s->first);
		json_u64(&j, "bits", s->bits);
		json_u64(&j, "byte", s->first / 8);
		json_bool(&j, "reserved", !s->f || (s->f->flags & RL_FF_RESERVED));
		if (s->key)
			json_str(&j, "legend_key", key);
		json_end(&j);
		json_newline(&j);
	}
}

/* ---- a frame's layers (--layout OPCODE) -------------------------------------------------------- */

#define LAY_IPV4_LEN 20   /* IPv4 without options (RFC 791) */
#define LAY_UDP_LEN 8     /* RFC 768 */
#define LAY_MAX_LAYERS 16
#define LAY_FRAME_CHAR 9  /* SVG px per text column of the frame's boxes */
#define LAY_FRAME_BOX_H 52 /* SVG px: a box's name and bytes, one line each */
#define LAY_SVG_CHAR 8    /* SVG px a legend column needs, at 12 px monospace */

struct lay_layer {
	const char *name;
	char bytes[16];   /* "14"; or what the opcode allows: "PMTU", "0-3" */
	int off;          /* its first byte in the frame; -1 after a payload of no fixed length */
	unsigned width;   /* text columns inside its box */
};

struct lay_frame {
	uint8_t opcode;
	const struct rl_opcode_info *info;
	size_t n, nlegend;
	int next;         /* the next layer's first byte, -1 once no longer fixed */
	struct lay_layer layer[LAY_MAX_LAYERS];
	char legend[LAY_LEGEND_MAX][LAY_LINE_MAX];
};

/* The next layer, @len bytes long (-1: no fixed length). */
static void lay_frame_add(struct lay_frame *fr, const char *name, const char *bytes, int len)
{
	struct lay_layer *y = &fr->layer[fr->n++];
	size_t w = strlen(name) > strlen(bytes) ? strlen(name) : strlen(bytes);

	y->name = name;
	snprintf(y->bytes, sizeof(y->bytes), "%s", bytes);
	y->off = fr->next;
	y->width = (unsigned)w + 2;
	fr->next = fr->next >= 0 && len >= 0 ? fr->next + len : -1;
}

static void lay_frame_fixed(struct lay_frame *fr, const char *name, unsigned len)
{
	char n[16];

	snprintf(n, sizeof(n), "%u", len);
	lay_frame_add(fr, name, n, (int)len);
}

/*
 * The payload an opcode allows: a fixed length (ATOMIC WRITE's 8), exactly one
 * path MTU in a First or Middle packet (IBA 9.7.5.1.4, C9-114), up to one in
 * an Only or Last packet.
 */
static void lay_frame_payload(struct lay_frame *fr)
{
	const struct rl_opcode_info *in = fr->info;
	bool full = (in->flags & RL_OPF_MIDDLE) || ((in->flags & RL_OPF_FIRST) && !(in->flags & RL_OPF_LAST));

	/* The pad makes the payload a multiple of 4 bytes: BTH PadCnt (IBA 9.2). */
	if (in->fixed_payload) {
		lay_frame_fixed(fr, "payload", in->fixed_payload);
		lay_frame_fixed(fr, "pad", (4u - in->fixed_payload % 4u) % 4u);
	} else {
		lay_frame_add(fr, "payload", full ? "PMTU" : "0-PMTU", -1);
		lay_frame_add(fr, "pad", "0-3", -1);
	}
}

/* RoCEv2's stack for @opcode: Ethernet | IPv4 | UDP | BTH | extended headers | payload | pad | ICRC. */
static void lay_frame_build(struct lay_frame *fr, uint8_t opcode)
{
	const struct rl_field_hdr *h;
	char text[256];

	memset(fr, 0, sizeof(*fr));
	fr->opcode = opcode;
	fr->info = rl_opcode_info(opcode);
	lay_frame_fixed(fr, "Ethernet", CLI_ETH_HDR_LEN);
	lay_frame_fixed(fr, "IPv4", LAY_IPV4_LEN);
	lay_frame_fixed(fr, "UDP", LAY_UDP_LEN);
	lay_frame_fixed(fr, "BTH", RL_BTH_LEN);
	for (unsigned n = 1; (h = lay_hdr_at(n)); n++)
		if (fr->info->hdrs & h->hdr)
			lay_frame_fixed(fr, h->name, h->len);
	if (fr->info->flags & RL_OPF_PAYLOAD)
		lay_frame_payload(fr);
	lay_frame_fixed(fr, "ICRC", RL_ICRC_LEN);

	lay_lines_add(fr->legend, &fr->nlegend, "  Ethernet, IPv4, UDP  RoCEv2's encapsulation (IBA A17): UDP to destination port 4791; "
		      "over IPv6 the IP header is 40 bytes");
	for (unsigned n = 0; (h = lay_hdr_at(n)); n++) {
		if (n && !(fr->info->hdrs & h->hdr))
			continue;
		snprintf(text, sizeof(text), "  %s  %s, %u bytes (%s)", h->name, h->title, h->len, h->section);
		lay_lines_add(fr->legend, &fr->nlegend, text);
	}
	if (fr->info->flags & RL_OPF_PAYLOAD)
		lay_lines_add(fr->legend, &fr->nlegend,
			      "  payload, pad  the message's bytes; First and Middle packets carry exactly one path "
			      "MTU (IBA 9.7.5.1.4), Only and Last up to one; pad to a 4-byte multiple, BTH PadCnt");
	lay_lines_add(fr->legend, &fr->nlegend, "  ICRC  Invariant CRC over the fields no router changes (IBA A17.3.3)");
}

static void lay_frame_rule(FILE *o, const struct lay_frame *fr)
{
	fputc('+', o);
	for (size_t i = 0; i < fr->n; i++) {
		for (unsigned k = 0; k < fr->layer[i].width; k++)
			fputc('-', o);
		fputc('+', o);
	}
	fputc('\n', o);
}

static void lay_frame_cells(FILE *o, const struct lay_frame *fr, bool bytes)
{
	fputc('|', o);
	for (size_t i = 0; i < fr->n; i++) {
		const struct lay_layer *y = &fr->layer[i];
		const char *t = bytes ? y->bytes : y->name;
		unsigned len = (unsigned)strlen(t), before = (y->width - len) / 2;

		fprintf(o, "%*s%s%*s|", (int)before, "", t, (int)(y->width - len - before), "");
	}
	fputc('\n', o);
}

static void lay_frame_title(char *buf, size_t n, const struct lay_frame *fr)
{
	snprintf(buf, n, "%s (opcode 0x%02x): the layers of one RoCEv2 frame, in bytes", fr->info->name, fr->opcode);
}

static void lay_frame_text(FILE *o, const struct lay_frame *fr)
{
	char title[160];

	lay_frame_title(title, sizeof(title), fr);
	fprintf(o, "%s\n\n", title);
	lay_frame_rule(o, fr);
	lay_frame_cells(o, fr, false);
	lay_frame_cells(o, fr, true);
	lay_frame_rule(o, fr);
	/* Each layer's first byte under its left edge, as long as it is fixed; the frame's end if it is. */
	for (size_t i = 0; i < fr->n && fr->layer[i].off >= 0; i++) {
		bool last = i + 1 == fr->n ? fr->next < 0 : fr->layer[i + 1].off < 0;
		int w = fprintf(o, "%d", fr->layer[i].off);

		if (!last || fr->next >= 0)
			fprintf(o, "%*s", (int)(fr->layer[i].width + 1 - (unsigned)w), "");
	}
	if (fr->next >= 0)
		fprintf(o, "%d", fr->next);
	fputs("\n\n", o);
	for (size_t i = 0; i < fr->nlegend; i++)
		fprintf(o, "%s\n", fr->legend[i]);
}

static void lay_frame_svg(FILE *o, const struct lay_frame *fr)
{
	unsigned x = LAY_SVG_MARGIN, y = LAY_SVG_TOP - 24, h = LAY_FRAME_BOX_H, width = 2 * LAY_SVG_MARGIN;
	unsigned legend_y = y + h + 2 * LAY_SVG_MARGIN + LAY_SVG_LINE, height;
	char title[160];

	for (size_t i = 0; i < fr->n; i++)
		width += (fr->layer[i].width + 1) * LAY_FRAME_CHAR;
	if (width < LAY_SVG_MARGIN * 2 + LAY_LEGEND_WIDTH * LAY_SVG_CHAR)
		width = LAY_SVG_MARGIN * 2 + LAY_LEGEND_WIDTH * LAY_SVG_CHAR;
	height = legend_y + (unsigned)fr->nlegend * LAY_SVG_LINE + LAY_SVG_MARGIN;
	lay_frame_title(title, sizeof(title), fr);
	cli_svg_head(o, title, width, height);
	for (size_t i = 0; i < fr->n; i++) {
		const struct lay_layer *l = &fr->layer[i];
		unsigned w = (l->width + 1) * LAY_FRAME_CHAR;
		bool ib = i >= 3 && strcmp(l->name, "payload") && strcmp(l->name, "pad");

		fprintf(o, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" stroke=\"#000000\"/>\n", x, y, w,
			h, ib ? "#ffffff" : "#e6e6e6");
		fprintf(o, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">", x + w / 2, y + h / 2 - 2);
		cli_svg_text(o, l->name);
		fprintf(o, "</text>\n<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">", x + w / 2, y + h / 2 + 14);
		cli_svg_text(o, l->bytes);
		fputs("</text>\n", o);
		if (l->off >= 0)
			fprintf(o, "<text x=\"%u\" y=\"%u\" font-size=\"10\">%d</text>\n", x, y + h + 14, l->off);
		x += w;
	}
	lay_svg_tail(o, fr->legend, fr->nlegend, legend_y);
}

/* One line per layer: its name, first byte (-1: after a payload of any length) and length. */
static void lay_frame_json(FILE *o, const struct lay_frame *fr)
{
	struct json j;

	json_begin(&j, o);
	for (size_t i = 0; i < fr->n; i++) {
		json_obj(&j, NULL);
		json_str(&j, "opcode", fr->info->name);
		json_str(&j, "layer", fr->layer[i].name);
		if (fr->layer[i].off >= 0)
			json_u64(&j, "byte", (uint64_t)fr->layer[i].off);
		json_str(&j, "bytes", fr->layer[i].bytes);
		json_end(&j);
		json_newline(&j);
	}
}

/* ---- the command ----------------------------------------------------------------------------- */

/* A header's diagram (@l) or a frame's layers (@fr), in @form. */
static void lay_print(FILE *o, const struct lay *l, const struct lay_frame *fr, enum cli_layout_form form)
{
	if (fr && form == CLI_LAYOUT_SVG)
		lay_frame_svg(o, fr);
	else if (fr && form == CLI_LAYOUT_JSON)
		lay_frame_json(o, fr);
	else if (fr)
		lay_frame_text(o, fr);
	else if (form == CLI_LAYOUT_SVG)
		lay_print_svg(o, l);
	else if (form == CLI_LAYOUT_JSON)
		lay_print_json(o, l);
	else
		lay_print_text(o, l);
}

/* An opcode by number (0x06) or spec name, '_' and '-' read as spaces (rxe's RC_SEND_ONLY); -1 if none. */
static int lay_opcode(const char *name)
{
	char want[64];
	size_t n = 0;
	uint64_t v;
	int op;

	if (cli_parse_u64(name, 255, &v))
		op = (int)v;
	else {
		for (; name[n] && n < sizeof(want) - 1; n++)
			want[n] = name[n] == '_' || name[n] == '-' ? ' ' : name[n];
		want[n] = '\0';
		op = rl_opcode_by_name(want);
	}
	return op >= 0 && (rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID) ? op : -1;
}

/* What cli_svg_write() draws: the header @l, or else the frame @fr, in @form. */
struct lay_job {
	const struct lay *l;
	const struct lay_frame *fr;
	enum cli_layout_form form;
};

static void lay_draw(FILE *o, const void *arg)
{
	const struct lay_job *j = arg;

	lay_print(o, j->l, j->fr, j->form);
}

int cli_layout(const char *name, enum cli_layout_form form, const char *path)
{
	static struct lay l;
	static struct lay_frame fr;
	const struct rl_field_hdr *h;
	int op;

	if (!strcasecmp(name, "list")) {
		lay_list(stdout);
		return CLI_OK;
	}
	h = lay_find(name);
	if (!h) {
		op = lay_opcode(name);
		if (op < 0) {
			cli_error("explain", "--layout: no header or opcode named '%s'; an opcode is its number or "
					     "its name ('RC SEND Only', 'UD_SEND_ONLY'); the headers are:", name);
			lay_list(stderr);
			return CLI_ERR;
		}
		lay_frame_build(&fr, (uint8_t)op);
	} else if (!lay_build(&l, h)) {
		return CLI_ERR;
	}
	if (path) {
		struct lay_job j = { h ? &l : NULL, h ? NULL : &fr, form };

		return cli_svg_write("explain", path, lay_draw, &j);
	}
	lay_print(stdout, h ? &l : NULL, h ? NULL : &fr, form);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("explain", "cannot write the output");
		return CLI_ERR;
	}
	return CLI_OK;
}
