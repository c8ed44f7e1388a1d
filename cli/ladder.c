/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "ladder.h"
#include "svg.h"

#define LAD_TOP 40          /* below the title */
#define LAD_ROW 24          /* px per arrow */
#define LAD_HEAD 64         /* a section's heading and the two hosts' names */
#define LAD_GAP 24          /* px between sections */
#define LAD_X_FRAME 56      /* the frame number's right edge */
#define LAD_X_TIME 136      /* the time's right edge */
#define LAD_X_LEFT 200      /* the left host's line */
#define LAD_X_RIGHT 640     /* the right host's line */
#define LAD_X_MARK 652      /* the analyzer's marks */
#define LAD_WIDTH 1000
#define LAD_NOTES 4         /* lines of notes at the foot, at most */
#define LAD_NOTE_MAX 160
#define LAD_NOTE_LINE 16
#define LAD_RED "#c00000"     /* what went wrong */
#define LAD_GREY "#505050"    /* what is only said */

bool cli_ladder_add(struct cli_ladder *l, const struct cli_ladder_row *r)
{
	if (l->nrows == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct cli_ladder_row *rows = realloc(l->rows, cap * sizeof(*rows));

		if (!rows)
			return false;
		l->rows = rows;
		l->cap = cap;
	}
	l->rows[l->nrows++] = *r;
	return true;
}

void cli_ladder_free(struct cli_ladder *l)
{
	free(l->rows);
	l->rows = NULL;
	l->nrows = l->cap = 0;
}

/* Each section's arrows, counted in one pass: @rows[p - 1] for section p. */
static void lad_count(const struct cli_ladder *l, unsigned rows[CLI_LADDER_PAIRS])
{
	memset(rows, 0, CLI_LADDER_PAIRS * sizeof(rows[0]));
	for (size_t i = 0; i < l->nrows; i++)
		rows[l->rows[i].pair - 1]++;
}

static void lad_text(FILE *o, unsigned x, unsigned y, const char *anchor, const char *attrs, const char *s)
{
	fprintf(o, "<text x=\"%u\" y=\"%u\" text-anchor=\"%s\"%s>", x, y, anchor, attrs);
	cli_svg_text(o, s);
	fputs("</text>\n", o);
}

/* A section's heading, the hosts' names over their lines, and the lines down to @bottom. */
static void lad_section(FILE *o, const struct cli_ladder *l, unsigned pair, unsigned y, unsigned bottom)
{
	char head[64];

	snprintf(head, sizeof(head), "[%u]", pair);
	lad_text(o, CLI_SVG_MARGIN, y + 16, "start", " font-weight=\"bold\"", head);
	lad_text(o, LAD_X_FRAME, y + 44, "end", " font-size=\"10\"", "frame");
	lad_text(o, LAD_X_TIME, y + 44, "end", " font-size=\"10\"", "time (s)");
	lad_text(o, LAD_X_LEFT, y + 44, "middle", " font-weight=\"bold\"", l->hosts[pair - 1][0]);
	lad_text(o, LAD_X_RIGHT, y + 44, "middle", " font-weight=\"bold\"", l->hosts[pair - 1][1]);
	fprintf(o, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#808080\"/>\n", LAD_X_LEFT, y + 52, LAD_X_LEFT,
		bottom);
	fprintf(o, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#808080\"/>\n", LAD_X_RIGHT, y + 52,
		LAD_X_RIGHT, bottom);
}

/* One packet: its arrow at @y (a lost one stops halfway at a cross), its words over it, its marks. */
static void lad_arrow(FILE *o, const struct cli_ladder_row *r, unsigned y)
{
	unsigned from = r->rightward ? LAD_X_LEFT : LAD_X_RIGHT, to = r->rightward ? LAD_X_RIGHT : LAD_X_LEFT;
	unsigned mid = (LAD_X_LEFT + LAD_X_RIGHT) / 2;
	const char *colour = r->bad || r->lost ? LAD_RED : "#000000";
	char num[24];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)r->frame);
	lad_text(o, LAD_X_FRAME, y + 4, "end", "", num);
	lad_text(o, LAD_X_TIME, y + 4, "end", "", r->time);
	if (r->lost) {
		fprintf(o, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"%s\" stroke-dasharray=\"6 4\" "
			   "data-frame=\"%s\"/>\n", from, y, mid, y, colour, num);
		fprintf(o, "<path d=\"M%u %u l8 8 M%u %u l-8 8\" stroke=\"%s\" stroke-width=\"2\"/>\n", mid - 4,
			y - 4, mid + 4, y - 4, colour);
	} else {
		fprintf(o, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"%s\" marker-end=\"url(#%s)\" "
			   "data-frame=\"%s\"/>\n", from, y, r->rightward ? to - 2 : to + 2, y, colour,
			r->bad ? "head-red" : "head", num);
	}
	fprintf(o, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\" data-frame=\"%s\" data-dir=\"%s\">", mid, y - 6,
		num, r->rightward ? "right" : "left");
	cli_svg_text(o, r->label);
	fputs("</text>\n", o);
	if (*r->mark)
		lad_text(o, LAD_X_MARK, y + 4, "start",
			 r->trouble ? " fill=\"" LAD_RED "\" data-mark=\"trouble\"" : " fill=\"" LAD_GREY "\" data-mark=\"note\"",
			 r->mark);
}

/* The notes under the last section, what was left out and why: how many, written into @notes. */
static unsigned lad_notes(const struct cli_ladder *l, char notes[LAD_NOTES][LAD_NOTE_MAX])
{
	unsigned n = 0;

	if (l->more)
		snprintf(notes[n++], LAD_NOTE_MAX, "... and %llu more packets: choose with -c N, --qp, --host, --op or a "
			 "filter", (unsigned long long)l->more);
	if (l->more_pairs)
		snprintf(notes[n++], LAD_NOTE_MAX, "%llu packets between hosts past the first %d pairs left out: choose "
			 "with --host or a filter", (unsigned long long)l->more_pairs, CLI_LADDER_PAIRS);
	if (l->other)
		snprintf(notes[n++], LAD_NOTE_MAX, "%llu frames in no RoCE conversation (not RoCE, or not decodable) left "
			 "out", (unsigned long long)l->other);
	if (!l->nrows)
		snprintf(notes[n++], LAD_NOTE_MAX, "no RoCE request or response to draw");
	return n;
}

static unsigned lad_height(const struct cli_ladder *l, const unsigned rows[CLI_LADDER_PAIRS], unsigned nnotes)
{
	unsigned h = LAD_TOP + nnotes * LAD_NOTE_LINE + CLI_SVG_MARGIN;

	for (unsigned p = 1; p <= l->npairs; p++)
		h += LAD_HEAD + rows[p - 1] * LAD_ROW + LAD_GAP;
	return h;
}

/* An arrowhead, filled with @colour, for marker-end="url(#@id)". */
static void lad_marker(FILE *o, const char *id, const char *colour)
{
	fprintf(o, "<marker id=\"%s\" markerWidth=\"10\" markerHeight=\"8\" refX=\"9\" refY=\"4\" orient=\"auto\">"
		   "<path d=\"M0 0 L10 4 L0 8 z\" fill=\"%s\"/></marker>\n", id, colour);
}

void cli_ladder_svg(FILE *o, const struct cli_ladder *l)
{
	char notes[LAD_NOTES][LAD_NOTE_MAX];
	unsigned rows[CLI_LADDER_PAIRS], y = LAD_TOP, nnotes = lad_notes(l, notes);

	lad_count(l, rows);
	cli_svg_head(o, l->title, LAD_WIDTH, lad_height(l, rows, nnotes));
	fputs("<defs>\n", o);
	lad_marker(o, "head", "#000000");
	lad_marker(o, "head-red", LAD_RED);
	fputs("</defs>\n", o);
	for (unsigned p = 1; p <= l->npairs; p++) {
		unsigned n = rows[p - 1], row = 0;

		lad_section(o, l, p, y, y + LAD_HEAD + n * LAD_ROW);
		for (size_t i = 0; i < l->nrows; i++)
			if (l->rows[i].pair == p)
				lad_arrow(o, &l->rows[i], y + LAD_HEAD + row++ * LAD_ROW + LAD_ROW / 2);
		y += LAD_HEAD + n * LAD_ROW + LAD_GAP;
	}
	for (unsigned i = 0; i < nnotes; i++)
		lad_text(o, CLI_SVG_MARGIN, y += LAD_NOTE_LINE, "start", "", notes[i]);
	fputs("</svg>\n", o);
}
