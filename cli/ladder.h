/* SPDX-License-Identifier: MIT */
/*
 * explain --ladder --svg: the sequence diagram of a capture as an SVG image.
 * explain.c decides what each arrow says (the same words as its text ladder);
 * this file only keeps the arrows and draws them: one section for each two
 * hosts that talk, the one that sent first on the left, an arrow per packet in
 * capture order (requests and responses, both ways: a ping-pong or a CM
 * exchange reads as one ladder), what the analyzer marked beside it in red.
 */
#ifndef ROCELAB_CLI_LADDER_H
#define ROCELAB_CLI_LADDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_LADDER_PAIRS 64        /* sections: two hosts each */
#define CLI_LADDER_MAX_ROWS 2000   /* arrows drawn; the rest are counted in a note */

struct cli_ladder_row {
	uint64_t frame;
	char time[64];
	unsigned pair;      /* its section, 1 .. npairs */
	bool rightward;     /* from the section's left host; else from its right one */
	bool lost;          /* rocelab gen's wire lost it: the arrow stops halfway */
	bool bad;           /* a bad ICRC or cut by the snap length: the receiver drops it */
	bool trouble;       /* the mark says something went wrong (a resend, a gap, a loss), not only what it answers */
	char label[96];     /* "SEND Only PSN 0", "CM REQ" */
	char mark[112];     /* "RETRANSMISSION of 3", "GAP: 2 missing before it", "" */
};

struct cli_ladder {
	char title[256];
	char hosts[CLI_LADDER_PAIRS][2][64];   /* each section's left host (the first to send), right host */
	unsigned npairs;
	struct cli_ladder_row *rows;
	size_t nrows, cap;
	uint64_t more;      /* arrows past CLI_LADDER_MAX_ROWS */
	uint64_t more_pairs;   /* arrows between two hosts past the CLI_LADDER_PAIRS-th pair */
	bool oom;           /* an arrow could not be kept: the drawing would be incomplete */
	uint64_t other;     /* frames in no conversation (not RoCE, undecodable, unknown opcode) */
};

/* Keep @r; false when out of memory. The caller counts what it does not keep (more, more_pairs). */
bool cli_ladder_add(struct cli_ladder *l, const struct cli_ladder_row *r);

/* Draw @l as a standalone SVG document. */
void cli_ladder_svg(FILE *o, const struct cli_ladder *l);

void cli_ladder_free(struct cli_ladder *l);

#endif
