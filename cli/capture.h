/* SPDX-License-Identifier: MIT */
/*
 * Reading captures, one way for every command that reads one (explain, its
 * --compare, replay, rewrite, lab grade): pcap or pcapng, '-' for
 * standard input, every time in nanoseconds whatever the file's precision,
 * frames numbered from 1 as Wireshark numbers them. libpcap stays behind
 * this header.
 */
#ifndef ROCELAB_CLI_CAPTURE_H
#define ROCELAB_CLI_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rocelab/rocelab.h"

/* The link types a command can use; cli_capture_open() refuses the others with a message. */
enum cli_capture_links {
	CLI_LINKS_ANY,      /* any: frames it cannot decode are copied or skipped */
	CLI_LINKS_DECODED,  /* the ones the decoder reads: Ethernet, Linux cooked, raw IP */
	CLI_LINKS_ETHERNET, /* Ethernet only: frames that can be put back on a wire */
};

/* An open capture, read front to back. */
struct cli_capture;

#define CLI_FRAME_COMMENT 64

/* One frame, valid until the next cli_capture_next() or cli_capture_close(). */
struct cli_frame {
	uint64_t no;         /* 1 for the first frame, as Wireshark counts */
	const uint8_t *data; /* caplen bytes */
	uint32_t caplen;     /* bytes the capture kept (tcpdump -s can keep fewer) */
	uint32_t len;        /* bytes the frame had on the wire */
	int64_t ns;          /* capture time, nanoseconds since the epoch */
	int64_t rel_ns;      /* since the first frame, as Wireshark shows time (negative if stamped before it) */
	enum rl_link link;   /* its link type: a pcapng may hold frames of several (mergecap) */
	char comment[CLI_FRAME_COMMENT];  /* a pcapng frame's first opt_comment, cut to fit; "" if none */
};

/*
 * Open @file ('-': standard input) for reading. NULL if it cannot be read, with
 * the reason in @why: no message is printed and no link type is checked.
 */
struct cli_capture *cli_capture_open_quiet(const char *file, char *why, size_t whylen);

/*
 * Open @file and check its link type against @links. NULL after a message
 * ("rocelab CMD: cannot read FILE: why", or why its link type will not do).
 */
struct cli_capture *cli_capture_open(const char *cmd, const char *file, enum cli_capture_links links);

/*
 * The next frame into @f: 1 read, 0 the end of the file, -1 the file is damaged
 * here. Frames of a link type the capture was not opened for (a pcapng's
 * other interfaces) are counted, and cli_capture_note_skipped() says so: with
 * CLI_LINKS_ETHERNET they are skipped, with CLI_LINKS_DECODED passed on for the
 * caller to skip (rl_link_supported() is false for them).
 */
int cli_capture_next(struct cli_capture *c, struct cli_frame *f);

/* The capture's link type (a pcapng's first interface's), as the decoder takes it. */
enum rl_link cli_capture_link(const struct cli_capture *c);
/*
 * The one way every reader decodes a frame: RL_NOT_ROCE for a link type not
 * decoded (a pcapng's other interface); one cut by the snap length has its
 * headers decoded (RL_CUT) and stays in the analysis.
 */
enum rl_status cli_frame_decode(const struct cli_frame *f, struct rl_pkt *pkt);

/* "rocelab CMD: note: FILE: N frames of link type X skipped: ...", if cli_capture_next() counted any. */
void cli_capture_note_skipped(const struct cli_capture *c, const char *cmd);

/* Frames read so far. */
uint64_t cli_capture_frames(const struct cli_capture *c);

/* Why the last cli_capture_next() returned -1. */
const char *cli_capture_error(const struct cli_capture *c);

/* "rocelab CMD: FILE: the file is damaged after frame N: why", after flushing standard output. */
void cli_capture_damaged(const struct cli_capture *c, const char *cmd);

/*
 * Compile @expr, a capture filter in tcpdump's syntax (pcap-filter(7)), for
 * this capture's link type; cli_capture_match() then applies it. False with
 * libpcap's message in @why.
 */
bool cli_capture_filter(struct cli_capture *c, const char *expr, char *why, size_t whylen);

/* Whether @f, the frame cli_capture_next() returned last, passes the filter (true without one). */
bool cli_capture_match(const struct cli_capture *c, const struct cli_frame *f);

/*
 * Whether frames arrive as they are captured: standard input or a FIFO that is
 * not a regular file (tcpdump -U -w - | rocelab explain -), so output should follow each frame.
 */
bool cli_capture_live(const struct cli_capture *c);

/* The stream read from, to show progress through a big file. */
FILE *cli_capture_stream(const struct cli_capture *c);

/* Close (standard input too, once read); NULL is allowed. */
void cli_capture_close(struct cli_capture *c);

/* ---- writing: a copy of a capture, frame by frame ---- */

struct cli_capture_out;

/*
 * Start a pcap of @like's link type and snap length, with nanosecond times, on
 * @f (from cli_output_open(), see output.h), named @file in messages. @f is
 * closed either way. NULL after "rocelab CMD: cannot write FILE: why".
 */
struct cli_capture_out *cli_capture_create(const char *cmd, const struct cli_capture *like, FILE *f, const char *file);

/* Write @caplen bytes of @data as a frame with @f's time and wire length. */
void cli_capture_write(struct cli_capture_out *o, const struct cli_frame *f, const uint8_t *data, uint32_t caplen);

/* Flush and close; false after "rocelab CMD: writing FILE failed: why" if not all of it was written. */
bool cli_capture_finish(struct cli_capture_out *o);

#endif
