/* SPDX-License-Identifier: MIT */

#include "cli.h"
#include "svg.h"

/* The length of the well-formed UTF-8 sequence at @s (RFC 3629), 0 if it is none. */
static size_t svg_utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;   /* overlong, a surrogate, past U+10FFFF */
	return n;
}

void cli_svg_clean(char *s)
{
	unsigned char *u = (unsigned char *)s;

	while (*u) {
		size_t n = *u >= 0x80 ? svg_utf8_len(u) : 1;

		if (!n || *u < 0x20 || *u == 0x7f)
			*u = '?';
		u += n ? n : 1;
	}
}

void cli_svg_text(FILE *o, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		size_t n = *u >= 0x80 ? svg_utf8_len(u) : 1;

		if (*u == '&')
			fputs("&amp;", o);
		else if (*u == '<')
			fputs("&lt;", o);
		else if (*u == '>')
			fputs("&gt;", o);
		else if (*u == '"')
			fputs("&quot;", o);
		else if (!n || (*u < 0x20 && *u != '\t' && *u != '\n') || *u == 0x7f)
			fputc('?', o);   /* XML 1.0 allows no control characters, and a file name may hold any byte */
		else
			fwrite(u, 1, n, o);
		u += n ? n : 1;
	}
}

void cli_svg_head(FILE *o, const char *title, unsigned width, unsigned height)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", o);
	fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%u\" "
		   "viewBox=\"0 0 %u %u\" font-family=\"monospace\" font-size=\"12\">\n", width, height, width, height);
	fputs("<title>", o);
	cli_svg_text(o, title);
	fputs("</title>\n", o);
	fprintf(o, "<rect width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n", width, height);
	fprintf(o, "<text x=\"%u\" y=\"20\" font-size=\"14\">", CLI_SVG_MARGIN);
	cli_svg_text(o, title);
	fputs("</text>\n", o);
}

int cli_svg_write(const char *cmd, const char *path, void (*draw)(FILE *o, const void *arg), const void *arg)
{
	struct cli_output out;
	FILE *f = cli_output_open(&out, cmd, path, -1, NULL);

	if (!f)
		return CLI_ERR;
	draw(f, arg);
	return cli_output_close(&out, f) ? CLI_OK : CLI_ERR;
}
