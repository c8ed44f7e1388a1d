/* SPDX-License-Identifier: MIT */
/*
 * What every SVG drawing of the CLI shares (explain --layout, explain
 * --ladder --svg): text made safe for XML, the document's start, and the
 * writing of a drawing to a file through cli_output.
 */
#ifndef ROCELAB_CLI_SVG_H
#define ROCELAB_CLI_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "output.h"

#define CLI_SVG_MARGIN 16   /* px around the drawing, and the title's x */

/* @s with &, <, > and " as XML entities, and a control character or a byte that is not UTF-8 as '?'. */
void cli_svg_text(FILE *o, const char *s);

/* In place: a control character or a byte that is not UTF-8 as '?' (a file name in an HTML page's JSON). */
void cli_svg_clean(char *s);

/* An SVG 1.1 root of @width x @height, monospace 12 px, its <title>, a white ground (for dark pages),
 * and @title shown at the top. */
void cli_svg_head(FILE *o, const char *title, unsigned width, unsigned height);

/* @draw(@o, @arg) into @path ('-': standard output), through a temporary file renamed over it. */
int cli_svg_write(const char *cmd, const char *path, void (*draw)(FILE *o, const void *arg), const void *arg);

#endif
