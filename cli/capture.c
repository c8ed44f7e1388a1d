/* SPDX-License-Identifier: MIT */
/*
 * Reading (and copying) captures: see capture.h. pcap files go through
 * libpcap. pcapng files are read here, block by block (the pcapng draft,
 * draft-ietf-opsawg-pcapng): libpcap takes a pcapng only if all its interfaces
 * have one link type, and mergecap makes ones that do not, Ethernet next to
 * Linux cooked. Either way a libpcap handle of the capture's link type stays
 * behind this file, for capture filters and for writing copies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"

/* Reads of this size: fewer system calls on big captures. */
#define CAPTURE_READ_BUFFER (1 << 20)

#define NS_PER_S 1000000000
/* The farthest a frame's time may be from 1970: see ng_ns(). */
#define CAPTURE_MAX_NS ((int64_t)1 << 62)

/* pcapng (draft-ietf-opsawg-pcapng section 4): block types, options and limits. */
#define NG_SHB 0x0A0D0D0Au    /* Section Header Block, also the file's magic */
#define NG_IDB 0x00000001u    /* Interface Description Block */
#define NG_PB 0x00000002u     /* Packet Block (obsolete) */
#define NG_SPB 0x00000003u    /* Simple Packet Block */
#define NG_EPB 0x00000006u    /* Enhanced Packet Block */
#define NG_BOM 0x1A2B3C4Du    /* the SHB's byte-order magic */
#define NG_OPT_END 0
#define NG_OPT_COMMENT 1      /* opt_comment: UTF-8 text, not NUL-terminated */
#define NG_OPT_TSRESOL 9      /* if_tsresol: units of a timestamp */
#define NG_OPT_TSOFFSET 14    /* if_tsoffset: seconds added to every timestamp */
#define NG_MAX_BLOCK (16u << 20) /* no frame is larger; a length above is damage */
#define NG_MAX_IFACES 256
#define CAPTURE_MAX_LINKS 8   /* distinct link types kept apart (filters, the skipped note) */
#define CAPTURE_SNAPLEN 262144 /* tcpdump's default, and the most libpcap's dead handle is given */

/* A pcapng interface: its link type and how its timestamps count. */
struct ng_iface {
	enum rl_link link;
	uint32_t snaplen;
	uint64_t units;    /* timestamp units per second */
	int64_t offset_s;  /* if_tsoffset */
};

/* The pcapng reader's state. */
struct ng_reader {
	bool swap;          /* the section is of the other byte order */
	enum rl_link link0; /* the file's first interface's */
	struct ng_iface *ifs;
	size_t nifs;
	uint8_t *block;
	size_t cap;
	char err[160];
};

struct cli_capture {
	pcap_t *pc;    /* the reader (pcap), or a dead handle of the capture's link type (pcapng) */
	FILE *f;       /* the file itself: its descriptor, its position */
	FILE *in;      /* the bytes read: f itself (a regular file), or f's with its first four read ahead */
	char *buf;     /* in's buffer, if f is read directly: it outlives the stream */
	struct ng_reader *ng; /* a pcapng, read here */
	const char *file;
	enum cli_capture_links links;
	uint64_t frames;
	int64_t t0_ns; /* the first frame's time */
	char *filter;  /* the capture filter, compiled per link type when a frame of it comes */
	struct {
		enum rl_link link;
		bool ok;
		struct bpf_program prog;
	} progs[CAPTURE_MAX_LINKS];
	size_t nprogs;
	struct {
		enum rl_link link;
		uint64_t n;
	} skipped[CAPTURE_MAX_LINKS];
	bool live;
};

struct cli_capture_out {
	pcap_dumper_t *dump;
	const char *cmd, *file;
	int err; /* errno of the first write that failed: the stream keeps only that one did */
};

/* ---- the stream of a pipe: its first bytes, read ahead to tell pcap from pcapng, then the rest ---- */

struct capture_head {
	int fd;
	FILE *f;
	uint8_t magic[4];
	size_t n, off;
};

static ssize_t capture_head_read(void *cookie, char *buf, size_t size)
{
	struct capture_head *h = cookie;
	size_t k = 0;

	while (h->off < h->n && k < size)
		buf[k++] = (char)h->magic[h->off++];
	if (k)
		return (ssize_t)k;
	/* What has arrived, not all of @size: a pipe is read as it fills (tcpdump -U -w - | rocelab explain -). */
	return read(h->fd, buf, size);
}

static int capture_head_close(void *cookie)
{
	struct capture_head *h = cookie;
	int r = fclose(h->f);

	free(h);
	return r;
}

/* @f's bytes as a stream, its first (up to) four read into @magic now; NULL if out of memory. */
static FILE *capture_head_open(FILE *f, uint8_t magic[4], size_t *n)
{
	static const cookie_io_functions_t io = { .read = capture_head_read, .close = capture_head_close };
	struct capture_head *h = calloc(1, sizeof(*h));
	FILE *in;
	ssize_t r;

	if (!h)
		return NULL;
	h->fd = fileno(f);
	h->f = f;
	while (h->n < sizeof(h->magic) && ((r = read(h->fd, h->magic + h->n, sizeof(h->magic) - h->n)) > 0 ||
					   (r < 0 && errno == EINTR)))
		h->n += r > 0 ? (size_t)r : 0;
	memcpy(magic, h->magic, sizeof(h->magic));
	*n = h->n;
	in = fopencookie(h, "rb", io);
	if (!in) {
		free(h);
		return NULL;
	}
	setvbuf(in, NULL, _IOFBF, CAPTURE_READ_BUFFER);
	return in;
}

/*
 * A regular file's first (up to) four bytes into @magic, read with pread() where
 * the file stands so that the stream still starts at them: no stream of our own
 * in between, as a regular file never has to be read as it fills. False if the
 * file's position cannot be had (then the stream above reads it).
 */
static bool capture_file_peek(FILE *f, uint8_t magic[4], size_t *n)
{
	int fd = fileno(f);
	off_t at = lseek(fd, 0, SEEK_CUR);
	ssize_t r;

	if (at < 0)
		return false;
	*n = 0;
	while (*n < 4 && ((r = pread(fd, magic + *n, 4 - *n, at + (off_t)*n)) > 0 || (r < 0 && errno == EINTR)))
		*n += r > 0 ? (size_t)r : 0;
	return true;
}

/* ---- pcapng, read here ---------------------------------------------------------------------- */

static uint32_t ng_u32(const struct ng_reader *ng, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return ng->swap ? __builtin_bswap32(v) : v;
}

static uint16_t ng_u16(const struct ng_reader *ng, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return ng->swap ? __builtin_bswap16(v) : v;
}

/* pcapng's link type numbers are LINKTYPE_*; libpcap's handles take DLT_* (they differ for raw IP). */
static int ng_dlt(enum rl_link link)
{
	return link == RL_LINK_RAW ? DLT_RAW : (int)link;
}

/*
 * The next block into ng->block (its type in *@type, its length in *@len, both
 * byte-order fixed): 1, 0 at the end of the file, -1 (ng->err says why) if damaged.
 * A Section Header Block sets the byte order of the blocks after it.
 */
static int ng_block(struct cli_capture *c, uint32_t *type, uint32_t *len)
{
	struct ng_reader *ng = c->ng;
	uint8_t hdr[12];
	size_t got = fread(hdr, 1, 8, c->in);

	if (got == 0 && !ferror(c->in))
		return 0;
	if (got < 8) {
		snprintf(ng->err, sizeof(ng->err), "a block header is cut short (%zu of 8 bytes)", got);
		return -1;
	}
	memcpy(type, hdr, 4);
	if (*type == NG_SHB) {
		/* A new section: its own byte order, from its byte-order magic. */
		uint32_t bom;

		if (fread(hdr + 8, 1, 4, c->in) != 4) {
			snprintf(ng->err, sizeof(ng->err), "a section header is cut short");
			return -1;
		}
		memcpy(&bom, hdr + 8, 4);
		if (bom != NG_BOM && __builtin_bswap32(bom) != NG_BOM) {
			snprintf(ng->err, sizeof(ng->err), "a section header has no byte-order magic");
			return -1;
		}
		ng->swap = bom != NG_BOM;
		got = 12;
	}
	*type = ng_u32(ng, hdr);
	*len = ng_u32(ng, hdr + 4);
	if (*len < 12 || *len % 4 || *len > NG_MAX_BLOCK) {
		snprintf(ng->err, sizeof(ng->err), "a block of type 0x%x claims %" PRIu32 " bytes", *type, *len);
		return -1;
	}
	if (*len > ng->cap) {
		uint8_t *b = realloc(ng->block, *len);

		if (!b) {
			snprintf(ng->err, sizeof(ng->err), "out of memory");
			return -1;
		}
		ng->block = b;
		ng->cap = *len;
	}
	memcpy(ng->block, hdr, got);
	if (fread(ng->block + got, 1, *len - got, c->in) != *len - got) {
		snprintf(ng->err, sizeof(ng->err), "a block of type 0x%x is cut short", *type);
		return -1;
	}
	if (ng_u32(ng, ng->block + *len - 4) != *len) {
		snprintf(ng->err, sizeof(ng->err), "a block's two lengths differ");
		return -1;
	}
	return 1;
}

/* An Interface Description Block: its link type, snap length, if_tsresol and if_tsoffset. */
static int ng_idb(struct ng_reader *ng, uint32_t len)
{
	struct ng_iface *ifs, *i;
	const uint8_t *o = ng->block + 16, *end = ng->block + len - 4;

	if (len < 20 || ng->nifs >= NG_MAX_IFACES) {
		snprintf(ng->err, sizeof(ng->err), len < 20 ? "an interface block is too short" : "more than %d interfaces",
			 NG_MAX_IFACES);
		return -1;
	}
	ifs = realloc(ng->ifs, (ng->nifs + 1) * sizeof(*ifs));
	if (!ifs) {
		snprintf(ng->err, sizeof(ng->err), "out of memory");
		return -1;
	}
	ng->ifs = ifs;
	i = &ifs[ng->nifs++];
	i->link = (enum rl_link)ng_u16(ng, ng->block + 8);
	i->snaplen = ng_u32(ng, ng->block + 12);
	i->units = 1000000; /* microseconds, unless if_tsresol says otherwise */
	i->offset_s = 0;
	while (o + 4 <= end) {
		uint16_t code = ng_u16(ng, o), olen = ng_u16(ng, o + 2);

		if (code == NG_OPT_END || o + 4 + olen > end)
			break;
		if (code == NG_OPT_TSRESOL && olen >= 1) {
			/* The high bit: a negative power of 2; else of 10. */
			unsigned e = o[4] & 0x7f;

			if ((o[4] & 0x80) ? e > 62 : e > 18) {
				snprintf(ng->err, sizeof(ng->err), "an interface's timestamp resolution (0x%02x) is out of range",
					 o[4]);
				return -1;
			}
			i->units = 1;
			for (unsigned k = 0; k < e; k++)
				i->units *= (o[4] & 0x80) ? 2 : 10;
		} else if (code == NG_OPT_TSOFFSET && olen >= 8) {
			uint64_t v; /* one 64-bit integer, in the section's byte order */

			memcpy(&v, o + 4, sizeof(v));
			i->offset_s = (int64_t)(ng->swap ? __builtin_bswap64(v) : v);
		}
		o += 4 + ((olen + 3u) & ~3u);
	}
	return 0;
}

/*
 * A timestamp of @units per second, plus @offset_s, in nanoseconds since the
 * epoch, held to +-2^62 ns (146 years either side of 1970) so that it, and the
 * difference of any two, fits an int64_t: a pcapng's 64-bit stamps and
 * if_tsoffset can name any second up to 2^64, and such a frame gets the bound.
 */
static int64_t ng_ns(uint64_t ts, uint64_t units, int64_t offset_s)
{
	uint64_t s = ts / units, frac = ts % units;
	int64_t sec, ns;

	/* frac < units: frac * 10^9 / units, through 128 bits when units is above 2^64 / 10^9. */
	frac = units <= UINT64_MAX / NS_PER_S ? frac * NS_PER_S / units
					      : (uint64_t)((unsigned __int128)frac * NS_PER_S / units);
	if (s > (uint64_t)INT64_MAX)
		return CAPTURE_MAX_NS;
	if (__builtin_add_overflow((int64_t)s, offset_s, &sec))
		return offset_s < 0 ? -CAPTURE_MAX_NS : CAPTURE_MAX_NS;
	if (sec > CAPTURE_MAX_NS / NS_PER_S - 1)
		return CAPTURE_MAX_NS;
	if (sec < -(CAPTURE_MAX_NS / NS_PER_S) + 1)
		return -CAPTURE_MAX_NS;
	ns = sec * NS_PER_S + (int64_t)frac;
	return ns;
}

/* An enhanced packet block's first opt_comment into @f, from its options at @o up to @end. */
static void ng_epb_comment(const struct ng_reader *ng, const uint8_t *o, const uint8_t *end, struct cli_frame *f)
{
	while (end - o >= 4) {
		uint16_t code = ng_u16(ng, o), olen = ng_u16(ng, o + 2);
		size_t n = olen < CLI_FRAME_COMMENT - 1 ? olen : CLI_FRAME_COMMENT - 1, step = 4 + ((olen + 3u) & ~3u);

		if (code == NG_OPT_END || olen > (size_t)(end - o) - 4)
			return;
		if (code == NG_OPT_COMMENT) {
			memcpy(f->comment, o + 4, n);
			f->comment[n] = '\0';
			return;
		}
		if (step >= (size_t)(end - o))
			return;
		o += step;
	}
}

/* The next packet block into @f (its number, time and link type left to the caller): 1, 0 at the end, -1 damaged. */
static int ng_next(struct cli_capture *c, struct cli_frame *f)
{
	struct ng_reader *ng = c->ng;
	uint32_t type, len, iface, caplen, wire;
	const uint8_t *b;
	int r;

	while ((r = ng_block(c, &type, &len)) == 1) {
		b = ng->block;
		f->comment[0] = '\0';
		if (type == NG_SHB) {
			ng->nifs = 0; /* a section's interfaces are its own */
			continue;
		}
		if (type == NG_IDB) {
			if (ng_idb(ng, len))
				return -1;
			continue;
		}
		if (type == NG_EPB || type == NG_PB) {
			if (len < 32) {
				snprintf(ng->err, sizeof(ng->err), "a packet block is too short");
				return -1;
			}
			iface = type == NG_EPB ? ng_u32(ng, b + 8) : ng_u16(ng, b + 8);
			caplen = ng_u32(ng, b + 20);
			wire = ng_u32(ng, b + 24);
			if (caplen > len - 32) {
				snprintf(ng->err, sizeof(ng->err), "a packet block holds %" PRIu32 " bytes, not the %" PRIu32 " it says",
					 len - 32, caplen);
				return -1;
			}
			f->data = b + 28;
			if (type == NG_EPB)
				ng_epb_comment(ng, b + 28 + ((caplen + 3u) & ~3u), b + len - 4, f);
		} else if (type == NG_SPB) {
			if (len < 16) {
				snprintf(ng->err, sizeof(ng->err), "a simple packet block is too short");
				return -1;
			}
			iface = 0;
			wire = ng_u32(ng, b + 8);
			caplen = wire < len - 16 ? wire : len - 16;
			if (ng->nifs && ng->ifs[0].snaplen && caplen > ng->ifs[0].snaplen)
				caplen = ng->ifs[0].snaplen;
			f->data = b + 12;
		} else {
			continue; /* statistics, name resolution, journal, custom blocks: nothing to show */
		}
		if (iface >= ng->nifs) {
			snprintf(ng->err, sizeof(ng->err), "a packet of interface %" PRIu32 ", which the file never described", iface);
			return -1;
		}
		f->caplen = caplen;
		f->len = wire;
		f->link = ng->ifs[iface].link;
		f->ns = type == NG_SPB ? 0
				       : ng_ns(((uint64_t)ng_u32(ng, b + 12) << 32) | ng_u32(ng, b + 16), ng->ifs[iface].units,
					       ng->ifs[iface].offset_s);
		return 1;
	}
	return r;
}

/* Read up to the first interface (the capture's link type); false with @why if the start is damaged. */
static bool ng_start(struct cli_capture *c, char *why, size_t whylen)
{
	uint32_t type, len;
	int r;

	c->ng = calloc(1, sizeof(*c->ng));
	if (!c->ng) {
		snprintf(why, whylen, "out of memory");
		return false;
	}
	/* The magic, read ahead, starts the first block again: ng_block() reads it from the stream. */
	while ((r = ng_block(c, &type, &len)) == 1 && type != NG_IDB)
		if (type != NG_SHB) {
			snprintf(why, whylen, "a pcapng block of type 0x%x before any interface is described", type);
			return false;
		}
	if (r == 1 && ng_idb(c->ng, len) == 0) {
		uint32_t snap = c->ng->ifs[0].snaplen;

		c->ng->link0 = c->ng->ifs[0].link;
		c->pc = pcap_open_dead_with_tstamp_precision(ng_dlt(c->ng->ifs[0].link),
							     snap && snap < CAPTURE_SNAPLEN ? (int)snap : CAPTURE_SNAPLEN,
							     PCAP_TSTAMP_PRECISION_NANO);
		if (!c->pc)
			snprintf(why, whylen, "out of memory");
		return c->pc != NULL;
	}
	snprintf(why, whylen, "%s", r == 0 ? "a pcapng file with no interface in it" : c->ng->err);
	return false;
}

static void ng_free(struct ng_reader *ng)
{
	if (!ng)
		return;
	free(ng->ifs);
	free(ng->block);
	free(ng);
}

struct cli_capture *cli_capture_open_quiet(const char *file, char *why, size_t whylen)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct cli_capture *c = calloc(1, sizeof(*c));
	uint8_t magic[4] = { 0 };
	size_t n = 0;
	uint32_t m;
	struct stat st;
	bool known;
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
	 * A pipe or FIFO is read as it fills, through the stream above: a read returns
	 * what has arrived, and output has to follow each frame. A regular file is
	 * read by stdio itself, in large reads.
	 */
	known = fstat(fileno(f), &st) == 0;
	c->live = known && !S_ISREG(st.st_mode);
	c->f = f;
	c->file = file;
	if (known && S_ISREG(st.st_mode) && capture_file_peek(f, magic, &n)) {
		/* glibc takes a size only with a buffer: without one it keeps its 4 KiB. */
		c->buf = malloc(CAPTURE_READ_BUFFER);
		if (c->buf)
			setvbuf(f, c->buf, _IOFBF, CAPTURE_READ_BUFFER);
		c->in = f;
	} else {
		c->in = capture_head_open(f, magic, &n);
	}
	if (!c->in) {
		snprintf(why, whylen, "out of memory");
		fclose(f);
		free(c);
		return NULL;
	}
	memcpy(&m, magic, sizeof(m));
	if (n == 4 && m == NG_SHB) {
		if (!ng_start(c, why, whylen)) {
			cli_capture_close(c);
			return NULL;
		}
		return c;
	}
	/* Nanosecond precision: libpcap scales microsecond files up, so every time below is in ns. */
	c->pc = pcap_fopen_offline_with_tstamp_precision(c->in, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!c->pc) {
		snprintf(why, whylen, "%s", errbuf);
		cli_capture_close(c);
		return NULL;
	}
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
		/* A pcapng's later interfaces may be of a type decoded: each frame is judged as it comes. */
		if (rl_link_supported(dlt) || c->ng)
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
	c->links = links;
	return c;
}

/*
 * Whether a frame of link type @link goes to the caller. One of a link type the
 * capture was not opened for is counted: skipped when only Ethernet will do
 * (replay), passed on when decoding (the decoder calls it not RoCE).
 */
static bool capture_wanted(struct cli_capture *c, enum rl_link link)
{
	size_t i;

	if (c->links == CLI_LINKS_ANY || (c->links == CLI_LINKS_DECODED && rl_link_supported((int)link)) ||
	    (c->links == CLI_LINKS_ETHERNET && link == RL_LINK_ETHERNET))
		return true;
	for (i = 0; i < CAPTURE_MAX_LINKS && c->skipped[i].n && c->skipped[i].link != link; i++)
		;
	if (i < CAPTURE_MAX_LINKS) {
		c->skipped[i].link = link;
		c->skipped[i].n++;
	}
	return c->links == CLI_LINKS_DECODED;
}

/* The next frame of the file, whatever its link type: 1, 0 at the end, -1 damaged. */
static int capture_read(struct cli_capture *c, struct cli_frame *f)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int r;

	if (c->ng)
		return ng_next(c, f);
	r = pcap_next_ex(c->pc, &h, &data);
	if (r != 1)
		return r == PCAP_ERROR ? -1 : 0; /* a file ends with PCAP_ERROR_BREAK */
	f->data = data;
	f->caplen = h->caplen;
	f->len = h->len;
	f->link = (enum rl_link)pcap_datalink(c->pc);
	/* With nanosecond precision, tv_usec holds nanoseconds. */
	f->ns = (int64_t)h->ts.tv_sec * NS_PER_S + (int64_t)h->ts.tv_usec;
	return 1;
}

int cli_capture_next(struct cli_capture *c, struct cli_frame *f)
{
	int r;

	f->comment[0] = '\0';
	while ((r = capture_read(c, f)) == 1) {
		f->no = ++c->frames; /* Wireshark's numbers: skipped frames count */
		if (f->no == 1)
			c->t0_ns = f->ns;
		if (capture_wanted(c, f->link))
			break;
	}
	if (r != 1)
		return r;
	/* Saturating: a pcapng's times can lie far apart (if_tsoffset, 64-bit stamps). */
	if (__builtin_sub_overflow(f->ns, c->t0_ns, &f->rel_ns))
		f->rel_ns = f->ns < c->t0_ns ? INT64_MIN : INT64_MAX;
	return 1;
}

enum rl_status cli_frame_decode(const struct cli_frame *f, struct rl_pkt *pkt)
{
	if (!rl_link_supported((int)f->link))
		return RL_NOT_ROCE;
	return rl_decode_cut(f->link, f->data, f->caplen, f->len, pkt);
}

/* The link type of the file's first interface (a later section's interfaces do not change it). */
enum rl_link cli_capture_link(const struct cli_capture *c)
{
	return c->ng ? c->ng->link0 : (enum rl_link)pcap_datalink(c->pc);
}

void cli_capture_note_skipped(const struct cli_capture *c, const char *cmd)
{
	for (size_t i = 0; i < CAPTURE_MAX_LINKS && c->skipped[i].n; i++)
		fprintf(stderr, "rocelab %s: note: %s: %" PRIu64 " frame%s of link type %s (%d) %s\n", cmd, c->file,
			c->skipped[i].n, c->skipped[i].n == 1 ? "" : "s", capture_link_name(ng_dlt(c->skipped[i].link)),
			(int)c->skipped[i].link,
			c->links == CLI_LINKS_ETHERNET ? "not sent: only Ethernet frames can be put on a wire"
						       : "skipped: rocelab reads Ethernet, Linux cooked and raw IP frames");
}

uint64_t cli_capture_frames(const struct cli_capture *c)
{
	return c->frames;
}

const char *cli_capture_error(const struct cli_capture *c)
{
	return c->ng ? c->ng->err : pcap_geterr(c->pc);
}

void cli_capture_damaged(const struct cli_capture *c, const char *cmd)
{
	fflush(stdout);
	cli_error(cmd, "%s: the file is damaged after frame %" PRIu64 ": %s", c->file, c->frames,
		  cli_capture_error(c));
}

static void capture_filter_free(struct cli_capture *c)
{
	for (size_t i = 0; i < c->nprogs; i++)
		if (c->progs[i].ok)
			pcap_freecode(&c->progs[i].prog);
	c->nprogs = 0;
	free(c->filter);
	c->filter = NULL;
}

/* The filter compiled for link type @link (a handle of that type does it); NULL if it cannot be. */
static const struct bpf_program *capture_prog(struct cli_capture *c, enum rl_link link)
{
	pcap_t *pc;
	size_t i;

	for (i = 0; i < c->nprogs; i++)
		if (c->progs[i].link == link)
			return c->progs[i].ok ? &c->progs[i].prog : NULL;
	if (c->nprogs == CAPTURE_MAX_LINKS)
		return NULL;
	c->progs[i].link = link;
	pc = pcap_open_dead(ng_dlt(link), CAPTURE_SNAPLEN);
	c->progs[i].ok = pc && pcap_compile(pc, &c->progs[i].prog, c->filter, 1, PCAP_NETMASK_UNKNOWN) == 0;
	if (pc)
		pcap_close(pc);
	c->nprogs++;
	return c->progs[i].ok ? &c->progs[i].prog : NULL;
}

bool cli_capture_filter(struct cli_capture *c, const char *expr, char *why, size_t whylen)
{
	capture_filter_free(c);
	/* Compiled now for the capture's link type, to say at once what is wrong with it. */
	if (pcap_compile(c->pc, &c->progs[0].prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(why, whylen, "%s", pcap_geterr(c->pc));
		return false;
	}
	c->filter = strdup(expr);
	if (!c->filter) {
		pcap_freecode(&c->progs[0].prog);
		snprintf(why, whylen, "out of memory");
		return false;
	}
	c->progs[0].link = cli_capture_link(c);
	c->progs[0].ok = true;
	c->nprogs = 1;
	return true;
}

bool cli_capture_match(const struct cli_capture *c, const struct cli_frame *f)
{
	const struct bpf_program *prog;
	struct pcap_pkthdr h;

	if (!c->filter)
		return true;
	/* Frames of another link type (a pcapng's other interfaces) get the filter compiled for theirs. */
	prog = capture_prog((struct cli_capture *)c, f->link);
	if (!prog)
		return false;
	/* The filter reads the lengths and the bytes, never the time. */
	memset(&h, 0, sizeof(h));
	h.caplen = f->caplen;
	h.len = f->len;
	return pcap_offline_filter(prog, &h, f->data) != 0;
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
	capture_filter_free(c);
	if (c->pc)
		pcap_close(c->pc); /* closes c->in when it read it (pcap) */
	if (c->in && (c->ng || !c->pc))
		fclose(c->in); /* and c->f with it */
	free(c->buf);
	ng_free(c->ng);
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
