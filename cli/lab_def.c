/* SPDX-License-Identifier: MIT */
/*
 * rocelab lab: reading a lab's definition (lab_def.h). A lab.def is lines of
 * "KEYWORD VALUE"; `step` and `question` open a block that the lines after
 * them fill in. labs/README.md describes the format for people who write labs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "cli.h"
#include "lab_def.h"
#include "lab_topo.h"
#include "peer.h"

#define LAB_DEF_FILE "lab.def"
#define LAB_DEF_MAX_BYTES (64 * 1024)

/* Beside the binary's folder in the source tree (build/rocelab), or under PREFIX/share once installed. */
static const char *const lab_def_places[] = { "../labs", "../share/rocelab/labs" };

static bool lab_def_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool lab_def_root(char *dir, size_t n)
{
	char self[PATH_MAX], path[PATH_MAX + 32], real[PATH_MAX];
	const char *env = getenv("ROCELAB_LABS"), *bin;

	if (env && *env) {
		if (!lab_def_is_dir(env)) {
			cli_error("lab", "ROCELAB_LABS=%s is not a folder", env);
			return false;
		}
		snprintf(dir, n, "%s", env);
		return true;
	}
	snprintf(self, sizeof(self), "%s", cli_self());
	bin = dirname(self);
	for (size_t i = 0; i < sizeof(lab_def_places) / sizeof(lab_def_places[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", bin, lab_def_places[i]);
		/* Not into self: bin points into it, and realpath may write there even when it fails. */
		if (lab_def_is_dir(path) && realpath(path, real)) {
			snprintf(dir, n, "%s", real);
			return true;
		}
	}
	cli_error("lab", "cannot find the labs folder beside %s (set ROCELAB_LABS to it)", cli_self());
	return false;
}

/* "NN-name": two digits, a dash, then lower-case letters, digits and dashes. */
static bool lab_def_folder_name(const char *s)
{
	if (strlen(s) < 4 || strlen(s) >= 64 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' || s[2] != '-')
		return false;
	return strspn(s + 3, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(s + 3);
}

static int lab_def_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

int lab_def_folders(const char *root, char (*names)[64], int max)
{
	char path[PATH_MAX + 80];
	DIR *d = opendir(root);
	struct dirent *e;
	int n = 0;

	if (!d) {
		cli_error("lab", "cannot read the labs folder %s: %s", root, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", root, e->d_name);
		if (!lab_def_folder_name(e->d_name) || !lab_def_is_dir(path))
			continue;
		if (n == max) {
			closedir(d);
			cli_error("lab", "%s: more than %d lab folders", root, max);
			return -1;
		}
		memcpy(names[n++], e->d_name, strlen(e->d_name) + 1); /* shorter than 64: a lab's name */
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), lab_def_cmp);
	for (int i = 1; i < n; i++)
		if (!strncmp(names[i - 1], names[i], 2)) {
			cli_error("lab", "%s: two labs numbered %.2s (%s and %s)", root, names[i], names[i - 1], names[i]);
			return -1;
		}
	return n;
}

/* ---- one file ----------------------------------------------------------------------------------- */

struct lab_def_reader {
	struct lab_def *l;
	char file[PATH_MAX + 96];
	unsigned line;
	struct lab_step *step;   /* the block being filled in, if a step */
	struct lab_question *q;  /* the block being filled in, if a question */
	bool mtu_set;            /* an 'mtu' line was read (l->mtu has a default) */
};

static int lab_def_fail(const struct lab_def_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int lab_def_fail(const struct lab_def_reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->line)
		cli_error("lab", "%s:%u: %s", r->file, r->line, msg);
	else
		cli_error("lab", "%s: %s", r->file, msg);
	return -1;
}

/* Set a field once, to a value that may be empty only if @empty_ok. */
static int lab_def_set(const struct lab_def_reader *r, const char **field, const char *kw, const char *v,
		       bool empty_ok)
{
	if (*field)
		return lab_def_fail(r, "'%s' twice", kw);
	if (!*v && !empty_ok)
		return lab_def_fail(r, "'%s' without a value", kw);
	*field = v;
	return 0;
}

/* Is @name a perftest tool `rocelab peer --compat` speaks (peer_perftest.c's list)? */
static bool lab_def_perftest(const char *name)
{
	char *argv[] = { "peer", "--compat", (char *)name, NULL };
	unsigned tool;

	return peer_perftest_asked(3, argv, &tool);
}

static int lab_def_step_line(struct lab_def_reader *r, const char *kw, const char *v)
{
	struct lab_step *s = r->step;

	if (!s)
		return lab_def_fail(r, "'%s' belongs to a step: put it after a 'step' line", kw);
	if (!strcmp(kw, "server"))
		return lab_def_set(r, &s->server, kw, v, true);
	if (!strcmp(kw, "client"))
		return lab_def_set(r, &s->client, kw, v, false);
	if (!strcmp(kw, "replay"))
		return lab_def_set(r, &s->replay, kw, v, false);
	if (!strcmp(kw, "compat")) {
		/*
		 * The tools whose own flags take the place of rocelab peer's --server/--client:
		 * rping's (-s, -c -a ADDR) and perftest's (no address: the server; the address last).
		 */
		if (s->rping || s->perftest)
			return lab_def_fail(r, "'compat' twice");
		if (!strcmp(v, "rping"))
			s->rping = true;
		else if (lab_def_perftest(v))
			s->perftest = v;
		else
			return lab_def_fail(r, "'compat' takes 'rping' or a perftest tool (ib_send_bw, ib_read_lat, ...), "
					       "not '%s'", v);
		return 0;
	}
	if (*v)
		return lab_def_fail(r, "'fails' takes no value");
	if (s->fails)
		return lab_def_fail(r, "'fails' twice");
	s->fails = true;
	return 0;
}

static int lab_def_question_line(struct lab_def_reader *r, const char *kw, const char *v)
{
	if (!r->q)
		return lab_def_fail(r, "'%s' belongs to a question: put it after a 'question' line", kw);
	return lab_def_set(r, !strcmp(kw, "text") ? &r->q->text : &r->q->hint, kw, v, false);
}

static int lab_def_open_step(struct lab_def_reader *r, const char *v)
{
	struct lab_def *l = r->l;

	if (l->nsteps == LAB_MAX_STEPS)
		return lab_def_fail(r, "more than %d steps", LAB_MAX_STEPS);
	r->q = NULL;
	r->step = &l->steps[l->nsteps++];
	return lab_def_set(r, &r->step->what, "step", v, false);
}

static int lab_def_open_question(struct lab_def_reader *r, const char *v)
{
	struct lab_def *l = r->l;

	if (l->nq == LAB_MAX_QUESTIONS)
		return lab_def_fail(r, "more than %d questions", LAB_MAX_QUESTIONS);
	if (!*v || v[strcspn(v, " \t:#")])
		return lab_def_fail(r, "a question's key is one word, without ':' or '#', not '%s'", v);
	for (size_t i = 0; i < l->nq; i++)
		if (!strcmp(l->q[i].key, v))
			return lab_def_fail(r, "question %s twice", v);
	r->step = NULL;
	r->q = &l->q[l->nq++];
	r->q->key = v;
	return 0;
}

/* Words of @v as lab_words() splits a command line: runs of anything but spaces. */
static size_t lab_def_words(const char *v)
{
	size_t n = 0;

	for (v += strspn(v, " "); *v; v += strspn(v, " ")) {
		n++;
		v += strcspn(v, " ");
	}
	return n;
}

/* Is @v short enough to run as it is written? A longer one would be cut on its way to a command line. */
static int lab_def_size(const struct lab_def_reader *r, const char *kw, const char *v)
{
	static const char *const commands[] = { "gen", "server", "client", "replay" };
	size_t n = strlen(v);

	if (n > LAB_DEF_MAX_VALUE)
		return lab_def_fail(r, "'%s' with a value of %zu bytes: at most %d", kw, n, LAB_DEF_MAX_VALUE);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(kw, commands[i]) && (n = lab_def_words(v)) > LAB_DEF_MAX_WORDS)
			return lab_def_fail(r, "'%s' with %zu words: at most %d", kw, n, LAB_DEF_MAX_WORDS);
	return 0;
}

static int lab_def_line(struct lab_def_reader *r, const char *kw, const char *v)
{
	struct lab_def *l = r->l;
	uint64_t mtu;

	if (lab_def_size(r, kw, v))
		return -1;
	if (!strcmp(kw, "title"))
		return lab_def_set(r, &l->title, kw, v, false);
	if (!strcmp(kw, "gen"))
		return lab_def_set(r, &l->gen, kw, v, false);
	if (!strcmp(kw, "next"))
		return lab_def_set(r, &l->next, kw, v, false);
	if (!strcmp(kw, "mtu")) {
		if (r->mtu_set)
			return lab_def_fail(r, "'%s' twice", kw);
		r->mtu_set = true;
		if (!cli_parse_u64(v, LAB_MTU_MAX, &mtu) || mtu < LAB_MTU_MIN)
			return lab_def_fail(r, "mtu wants %d..%d, not '%s'", LAB_MTU_MIN, LAB_MTU_MAX, v);
		l->mtu = (unsigned)mtu;
		return 0;
	}
	if (!strcmp(kw, "step"))
		return lab_def_open_step(r, v);
	if (!strcmp(kw, "server") || !strcmp(kw, "client") || !strcmp(kw, "replay") || !strcmp(kw, "fails") ||
	    !strcmp(kw, "compat"))
		return lab_def_step_line(r, kw, v);
	if (!strcmp(kw, "question"))
		return lab_def_open_question(r, v);
	if (!strcmp(kw, "text") || !strcmp(kw, "hint"))
		return lab_def_question_line(r, kw, v);
	return lab_def_fail(r, "'%s' is not a keyword of a lab definition (labs/README.md lists them)", kw);
}

/* After the last line: is everything there that a run and a grade need? */
static int lab_def_complete(struct lab_def_reader *r)
{
	const struct lab_def *l = r->l;

	r->line = 0;
	if (!l->title || !l->gen || !l->next)
		return lab_def_fail(r, "a lab needs a 'title', a 'gen' and a 'next' line");
	if (!l->nsteps)
		return lab_def_fail(r, "a lab needs at least one 'step'");
	for (size_t i = 0; i < l->nsteps; i++) {
		const struct lab_step *s = &l->steps[i];

		if (s->replay ? s->server || s->client || s->fails || s->rping || s->perftest : !s->server || !s->client)
			return lab_def_fail(r, "step %zu ('%s') wants 'server' and 'client' (and maybe 'compat', "
					       "'fails'), or 'replay' alone", i + 1, s->what);
	}
	for (size_t i = 0; i < l->nq; i++)
		if (!l->q[i].text || !l->q[i].hint)
			return lab_def_fail(r, "question %s wants a 'text' and a 'hint'", l->q[i].key);
	return 0;
}

static int lab_def_read(struct lab_def_reader *r)
{
	char *line = r->l->text_, *end;

	for (r->line = 1; *line; r->line++, line = end) {
		char *kw, *v;
		size_t n;

		end = line + strcspn(line, "\n");
		if (*end)
			*end++ = '\0';
		kw = line + strspn(line, " \t");
		for (n = strlen(kw); n && strchr(" \t\r", kw[n - 1]); n--)
			kw[n - 1] = '\0';
		if (!*kw || *kw == '#')
			continue;
		v = kw + strcspn(kw, " \t");
		if (*v)
			*v++ = '\0';
		v += strspn(v, " \t");
		if (lab_def_line(r, kw, v))
			return -1;
	}
	return lab_def_complete(r);
}

int lab_def_load(struct lab_def *l, const char *root, const char *folder)
{
	struct lab_def_reader r = { .l = l };
	size_t n;
	FILE *f;

	memset(l, 0, sizeof(*l));
	snprintf(r.file, sizeof(r.file), "%s/%s/" LAB_DEF_FILE, root, folder);
	if (!lab_def_folder_name(folder))
		return lab_def_fail(&r, "a lab's folder is NN-name (two digits, a dash, a-z 0-9 -), not '%s'", folder);
	memcpy(l->num, folder, 2);
	snprintf(l->name, sizeof(l->name), "%s", folder + 3);
	snprintf(l->dir, sizeof(l->dir), "%s/%s", root, folder);
	l->mtu = LAB_MTU;
	f = fopen(r.file, "r");
	if (!f) {
		cli_error("lab", "cannot read %s: %s", r.file, strerror(errno));
		return -1;
	}
	l->text_ = malloc(LAB_DEF_MAX_BYTES + 1);
	if (!l->text_) {
		fclose(f);
		return lab_def_fail(&r, "out of memory");
	}
	n = fread(l->text_, 1, LAB_DEF_MAX_BYTES + 1, f);
	if (ferror(f)) {
		/* errno is fread's (a folder named lab.def: EISDIR); fclose would not keep it. */
		cli_error("lab", "cannot read %s: %s", r.file, strerror(errno));
		fclose(f);
		lab_def_free(l);
		return -1;
	}
	fclose(f);
	if (n > LAB_DEF_MAX_BYTES || memchr(l->text_, '\0', n)) {
		lab_def_free(l);
		return n > LAB_DEF_MAX_BYTES ? lab_def_fail(&r, "longer than %d bytes", LAB_DEF_MAX_BYTES)
					     : lab_def_fail(&r, "a NUL byte: not a text file");
	}
	l->text_[n] = '\0';
	if (lab_def_read(&r)) {
		lab_def_free(l);
		return -1;
	}
	return 0;
}

void lab_def_free(struct lab_def *l)
{
	free(l->text_);
	l->text_ = NULL;
}
