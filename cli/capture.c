/* SPDX-License-Identifier: MIT */
/* Reading (and copying) captures through libpcap: see capture.h. */
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "cli.h"

/* Reads of this size: fewer system calls on big captures. */
#define CAPTURE_READ_BUFFER (1 << 20)

#define NS_PER_S 1000000000
/* The farthest a frame's time may be from 1970: see capture_ns(). */
#define CAPTURE_MAX_NS ((int64_t)1 << 62)

struct cli_capture {
	pcap_t *pc;
	FILE *f;
	const char *file;
	uint64_t frames;
	int64_t t0_ns; /* the first frame's time */
	bool filtered;
	struct bpf_program prog;
	bool live;
};

struct cli_capture_out {
	pcap_dumper_t *dump;
	const char *cmd, *file;
	int err; /* errno of the first write that failed: the stream keeps only that one did */
};

struct cli_capture *cli_capture_open_quiet(const char *file, char *why, size_t whylen)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct cli_capture *c = calloc(1, sizeof(*c));
	struct stat st;
	FILE *f;

	if (!c) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	f = strcmp(file, "-") ? fopen(file, "rb") : stdin;
	if (!f) {
		snprintf(why, whylen, "%s", strerror(errno));
		free(c);
		return NULL;
	}
	/*
	 * A pipe or FIFO is read as it fills: a large buffer costs nothing there, as
	 * a read returns what has arrived; only output has to follow each frame.
	 */
	c->live = fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode);
	setvbuf(f, NULL, _IOFBF, CAPTURE_READ_BUFFER);
	/* Nanosecond precision: libpcap scales microsecond files up, so every time below is in ns. */
	c->pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!c->pc) {
		snprintf(why, whylen, "%s", errbuf);
		if (f != stdin)
			fclose(f);
		free(c);
		return NULL;
	}
	c->f = f;
	c->file = file;
	return c;
}

static const char *capture_link_name(int dlt)
{
	const char *name = pcap_datalink_val_to_name(dlt);

	return name ? name : "?";
}

/* Whether the capture's link type is one of @links; if not, a message that says why. */
static bool capture_links_ok(const struct cli_capture *c, const char *cmd, enum cli_capture_links links)
{
	int dlt = pcap_datalink(c->pc);

	switch (links) {
	case CLI_LINKS_ANY:
		return true;
	case CLI_LINKS_DECODED:
		if (rl_link_supported(dlt))
			return true;
		cli_error(cmd, "%s: link type %s (%d) is not supported; rocelab reads Ethernet, "
			       "Linux cooked (tcpdump -i any) and raw IP captures",
			  c->file, capture_link_name(dlt), dlt);
		return false;
	case CLI_LINKS_ETHERNET:
		if (dlt == DLT_EN10MB)
			return true;
		cli_error(cmd, "%s is not an Ethernet capture (link type %s): only Ethernet frames can be put on a wire",
			  c->file, capture_link_name(dlt));
		return false;
	}
	return false;
}

struct cli_capture *cli_capture_open(const char *cmd, const char *file, enum cli_capture_links links)
{
	char why[PCAP_ERRBUF_SIZE];
	struct cli_capture *c = cli_capture_open_quiet(file, why, sizeof(why));

	if (!c) {
		cli_error(cmd, "cannot read %s: %s", file, why);
		return NULL;
	}
	if (!capture_links_ok(c, cmd, links)) {
		cli_capture_close(c);
		return NULL;
	}
	return c;
}

/*
 * A time stamp in ns, held to +-2^62 ns (146 years either side of 1970) so
 * that it, and the difference of any two, fits an int64_t. A pcapng's 64-bit
 * stamps and if_tsoffset can name any second up to 2^64: such a frame gets
 * the bound, not a product that overflowed (undefined, and a wrong time).
 */
static int64_t capture_ns(time_t sec, long ns)
{
	if (sec > CAPTURE_MAX_NS / NS_PER_S - 1)
		return CAPTURE_MAX_NS;
	if (sec < -(CAPTURE_MAX_NS / NS_PER_S) + 1)
		return -CAPTURE_MAX_NS;
	return (int64_t)sec * NS_PER_S + ns;
}

int cli_capture_next(struct cli_capture *c, struct cli_frame *f)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int r = pcap_next_ex(c->pc, &h, &data);

	if (r != 1)
		return r == PCAP_ERROR ? -1 : 0; /* a file ends with PCAP_ERROR_BREAK */
	f->no = ++c->frames;
	f->data = data;
	f->caplen = h->caplen;
	f->len = h->len;
	/* With nanosecond precision, tv_usec holds nanoseconds. */
	f->ns = capture_ns(h->ts.tv_sec, h->ts.tv_usec);
	if (f->no == 1)
		c->t0_ns = f->ns;
	f->rel_ns = f->ns - c->t0_ns;
	return 1;
}

enum rl_link cli_capture_link(const struct cli_capture *c)
{
	return (enum rl_link)pcap_datalink(c->pc);
}

uint64_t cli_capture_frames(const struct cli_capture *c)
{
	return c->frames;
}

const char *cli_capture_error(const struct cli_capture *c)
{
	return pcap_geterr(c->pc);
}

void cli_capture_damaged(const struct cli_capture *c, const char *cmd)
{
	fflush(stdout);
	cli_error(cmd, "%s: the file is damaged after frame %" PRIu64 ": %s", c->file, c->frames,
		  cli_capture_error(c));
}

bool cli_capture_filter(struct cli_capture *c, const char *expr, char *why, size_t whylen)
{
	if (c->filtered)
		pcap_freecode(&c->prog);
	c->filtered = false;
	if (pcap_compile(c->pc, &c->prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(why, whylen, "%s", pcap_geterr(c->pc));
		return false;
	}
	c->filtered = true;
	return true;
}

bool cli_capture_match(const struct cli_capture *c, const struct cli_frame *f)
{
	struct pcap_pkthdr h;

	if (!c->filtered)
		return true;
	/* The filter reads the lengths and the bytes, never the time. */
	memset(&h, 0, sizeof(h));
	h.caplen = f->caplen;
	h.len = f->len;
	return pcap_offline_filter(&c->prog, &h, f->data) != 0;
}

bool cli_capture_live(const struct cli_capture *c)
{
	return c->live;
}

FILE *cli_capture_stream(const struct cli_capture *c)
{
	return c->f;
}

void cli_capture_close(struct cli_capture *c)
{
	if (!c)
		return;
	if (c->filtered)
		pcap_freecode(&c->prog);
	pcap_close(c->pc); /* closes c->f */
	free(c);
}

struct cli_capture_out *cli_capture_create(const char *cmd, const struct cli_capture *like, FILE *f, const char *file)
{
	struct cli_capture_out *o = calloc(1, sizeof(*o));

	if (!o) {
		cli_error(cmd, "cannot write %s: out of memory", file);
		fclose(f);
		return NULL;
	}
	/* The header takes @like's link type, snap length and (nanosecond) precision. */
	o->dump = pcap_dump_fopen(like->pc, f);
	if (!o->dump) {
		cli_error(cmd, "cannot write %s: %s", file, pcap_geterr(like->pc));
		fclose(f);
		free(o);
		return NULL;
	}
	o->cmd = cmd;
	o->file = file;
	return o;
}

void cli_capture_write(struct cli_capture_out *o, const struct cli_frame *f, const uint8_t *data, uint32_t caplen)
{
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(f->ns / NS_PER_S);
	h.ts.tv_usec = (suseconds_t)(f->ns % NS_PER_S); /* nanoseconds: the file is written so */
	h.caplen = caplen;
	h.len = f->len;
	pcap_dump((u_char *)o->dump, &h, data);
	if (!o->err && ferror(pcap_dump_file(o->dump)))
		o->err = errno ? errno : EIO;
}

bool cli_capture_finish(struct cli_capture_out *o)
{
	/* A write that failed while the buffer drained leaves the error flag set even if the last flush works. */
	int err = pcap_dump_flush(o->dump) ? errno : 0;
	bool ok = !err && !o->err && !ferror(pcap_dump_file(o->dump));

	pcap_dump_close(o->dump);
	if (!ok)
		cli_error(o->cmd, "writing %s failed: %s", o->file, strerror(o->err ? o->err : err ? err : EIO));
	free(o);
	return ok;
}
