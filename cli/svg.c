/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "svg.h"

void cli_svg_text(FILE *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", o); break;
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '"': fputs("&quot;", o); break;
		default: fputc(*s, o);
		}
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

FILE *cli_svg_open(struct cli_output *out, const char *cmd, const char *path, int in_fd, const char *in_name)
{
	return cli_output_open(out, cmd, path, in_fd, in_name);
}

int cli_svg_close(struct cli_output *out, FILE *f, const char *cmd)
{
	bool ok = fflush(f) == 0 && !ferror(f);

	if (fclose(f))
		ok = false;
	if (!ok) {
		cli_error(cmd, "writing %s failed: %s", out->path, strerror(errno));
		cli_output_abort(out);
		return CLI_ERR;
	}
	return cli_output_commit(out) ? CLI_OK : CLI_ERR;
}

int cli_svg_write(const char *cmd, const char *path, void (*draw)(FILE *o, const void *arg), const void *arg)
{
	struct cli_output out;
	FILE *f = cli_svg_open(&out, cmd, path, -1, NULL);

	if (!f)
		return CLI_ERR;
	draw(f, arg);
	return cli_svg_close(&out, f, cmd);
}
