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

/* `option TEXT`: the next lettered claim of a `choice` question. */
static int lab_def_option_line(struct lab_def_reader *r, const char *v)
{
	struct lab_question *q = r->q;

	if (!q || q->kind != LAB_Q_CHOICE)
		return lab_def_fail(r, "'option' belongs to a multiple-choice question: put it after a 'choice' line");
	if (!*v)
		return lab_def_fail(r, "'option' without a value");
	if (q->noption == LAB_MAX_OPTIONS)
		return lab_def_fail(r, "choice %s: more than %d options (a to %c)", q->key, LAB_MAX_OPTIONS,
				    'a' + LAB_MAX_OPTIONS - 1);
	q->option[q->noption++] = v;
	return 0;
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

static int lab_def_open_question(struct lab_def_reader *r, const char *v, enum lab_qkind kind)
{
	struct lab_def *l = r->l;

	if (l->nq == LAB_MAX_QUESTIONS)
		return lab_def_fail(r, "more than %d questions", LAB_MAX_QUESTIONS);
	if (!*v || v[strcspn(v, " \t:#")])
		return lab_def_fail(r, "a question's key is one word, without ':' or '#', not '%s'", v);
	for (size_t i = 0; i < l->nq; i++)
		if (!strcmp(l->q[i].key, v))
			return lab_def_fail(r, "question %s twice", v);
	if (lab_def_param(l, v, strlen(v), false))
		return lab_def_fail(r, "question %s has the name of a parameter", v);
	if (kind == LAB_Q_QUIZ && !lab_def_param(l, v, strlen(v), true))
		return lab_def_fail(r, "'ask %s': a quiz asks for one of its 'hidden' parameters, by name", v);
	r->step = NULL;
	r->q = &l->q[l->nq++];
	r->q->key = v;
	r->q->kind = kind;
	return 0;
}

/* ---- parameters ----------------------------------------------------------------------------------- */

/* A range's bounds, "MIN..MAX"; false if @range is a list. */
static bool lab_param_bounds(const char *range, uint64_t *min, uint64_t *max)
{
	const char *dots = strstr(range, "..");
	char a[32];

	if (!dots || (size_t)(dots - range) >= sizeof(a))
		return false;
	snprintf(a, sizeof(a), "%.*s", (int)(dots - range), range);
	return cli_parse_u64(a, UINT64_MAX, min) && cli_parse_u64(dots + 2, UINT64_MAX, max);
}

/* The @i-th number of the list @range into *@v; false past its end. */
static bool lab_param_item(const char *range, size_t i, uint64_t *v)
{
	char item[32];
	size_t n;

	for (; i; i--) {
		range = strchr(range, ',');
		if (!range)
			return false;
		range++;
	}
	n = strcspn(range, ",");
	if (!n || n >= sizeof(item))
		return false;
	snprintf(item, sizeof(item), "%.*s", (int)n, range);
	return cli_parse_u64(item, UINT64_MAX, v);
}

bool lab_param_allows(const struct lab_param *p, uint64_t v)
{
	uint64_t min, max, x;

	if (lab_param_bounds(p->range, &min, &max))
		return v >= min && v <= max;
	for (size_t i = 0; lab_param_item(p->range, i, &x); i++)
		if (x == v)
			return true;
	return false;
}

uint64_t lab_param_pick(const struct lab_param *p, uint64_t r)
{
	uint64_t min, max, x;
	size_t n = 0;

	if (lab_param_bounds(p->range, &min, &max))
		return max - min == UINT64_MAX ? r : min + r % (max - min + 1);
	while (lab_param_item(p->range, n, &x))
		n++;
	lab_param_item(p->range, r % n, &x);
	return x;
}

struct lab_param *lab_def_param(struct lab_def *l, const char *name, size_t len, bool hidden)
{
	for (size_t i = 0; i < l->nparam; i++)
		if (strlen(l->param[i].name) == len && !strncmp(l->param[i].name, name, len))
			return &l->param[i];
	for (size_t i = 0; hidden && i < l->nhidden; i++)
		if (strlen(l->hidden[i].name) == len && !strncmp(l->hidden[i].name, name, len))
			return &l->hidden[i];
	return NULL;
}

/* Is @range one lab_param_allows() reads: "MIN..MAX" with MIN <= MAX, or a list of numbers? */
static bool lab_param_range_ok(const char *range)
{
	uint64_t min, max, x;
	size_t n = 0;

	if (strstr(range, ".."))
		return lab_param_bounds(range, &min, &max) && min <= max;
	while (lab_param_item(range, n, &x))
		n++;
	return n && !range[strspn(range, "0123456789abcdefxABCDEFX,")] && strspn(range, "0123456789") &&
	       range[strlen(range) - 1] != ',' && !strstr(range, ",,");
}

/* The next word of *@v, cut off in place, and *@v past the blanks after it; NULL when there is none. */
static char *lab_def_word(char **v)
{
	char *w = *v;

	if (!w || !*w)
		return NULL;
	*v = w + strcspn(w, " \t");
	if (**v)
		*(*v)++ = '\0';
	*v += strspn(*v, " \t");
	return w;
}

/* `param NAME DEFAULT RANGE TEXT` or `hidden NAME RANGE TEXT`. */
static int lab_def_open_param(struct lab_def_reader *r, const char *kw, char *v)
{
	struct lab_def *l = r->l;
	bool hidden = !strcmp(kw, "hidden");
	struct lab_param *p = hidden ? &l->hidden[l->nhidden] : &l->param[l->nparam];
	char *def = NULL;

	if ((hidden ? l->nhidden : l->nparam) == LAB_MAX_PARAMS)
		return lab_def_fail(r, "more than %d '%s' lines", LAB_MAX_PARAMS, kw);
	p->name = lab_def_word(&v);
	if (!hidden)
		def = lab_def_word(&v);
	p->range = lab_def_word(&v);
	p->text = v;
	if (!p->text || !*p->text)
		return lab_def_fail(r, hidden ? "'hidden NAME RANGE TEXT', e.g. 'hidden mtu 256,1024,4096 the path MTU'"
					      : "'param NAME DEFAULT RANGE TEXT', e.g. 'param size 4096 1..65536 the size'");
	if (!*p->name || p->name[strspn(p->name, "abcdefghijklmnopqrstuvwxyz_")])
		return lab_def_fail(r, "a parameter's name is a-z and _, not '%s'", p->name);
	if (lab_def_param(l, p->name, strlen(p->name), true))
		return lab_def_fail(r, "parameter %s twice", p->name);
	if (!lab_param_range_ok(p->range))
		return lab_def_fail(r, "a parameter's range is MIN..MAX or a list A,B,C of numbers, not '%s'", p->range);
	if (!hidden && (!cli_parse_u64(def, UINT64_MAX, &p->def) || !lab_param_allows(p, p->def)))
		return lab_def_fail(r, "parameter %s: its default '%s' is not in %s", p->name, def, p->range);
	p->value = p->def;
	hidden ? l->nhidden++ : l->nparam++;
	r->step = NULL;
	r->q = NULL;
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
	static const char *const commands[] = { "gen", "server", "client", "replay", "quiz" };
	size_t n = strlen(v);

	if (n > LAB_DEF_MAX_VALUE)
		return lab_def_fail(r, "'%s' with a value of %zu bytes: at most %d", kw, n, LAB_DEF_MAX_VALUE);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(kw, commands[i]) && (n = lab_def_words(v)) > LAB_DEF_MAX_WORDS)
			return lab_def_fail(r, "'%s' with %zu words: at most %d", kw, n, LAB_DEF_MAX_WORDS);
	return 0;
}

static int lab_def_line(struct lab_def_reader *r, const char *kw, char *v)
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
		return lab_def_open_question(r, v, LAB_Q_READ);
	if (!strcmp(kw, "predict"))
		return lab_def_open_question(r, v, LAB_Q_PREDICT);
	if (!strcmp(kw, "ask"))
		return lab_def_open_question(r, v, LAB_Q_QUIZ);
	if (!strcmp(kw, "choice"))
		return lab_def_open_question(r, v, LAB_Q_CHOICE);
	if (!strcmp(kw, "option"))
		return lab_def_option_line(r, v);
	if (!strcmp(kw, "param") || !strcmp(kw, "hidden"))
		return lab_def_open_param(r, kw, v);
	if (!strcmp(kw, "quiz"))
		return lab_def_set(r, &l->quiz, kw, v, false);
	if (!strcmp(kw, "needs"))
		return lab_def_set(r, &l->needs, kw, v, false);
	if (!strcmp(kw, "capture")) {
		if (strcmp(v, "exchange"))
			return lab_def_fail(r, "capture wants 'exchange' (RoCEv2 and the steps' TCP exchange), not '%s'", v);
		l->exchange = true;
		return 0;
	}
	if (!strcmp(kw, "text") || !strcmp(kw, "hint"))
		return lab_def_question_line(r, kw, v);
	return lab_def_fail(r, "'%s' is not a keyword of a lab definition (labs/README.md lists them)", kw);
}

/* A quiz has its capture, its hidden parameters and its questions, or none of them. */
static int lab_def_complete_quiz(struct lab_def_reader *r)
{
	const struct lab_def *l = r->l;
	size_t asks = 0;

	for (size_t i = 0; i < l->nq; i++)
		asks += l->q[i].kind == LAB_Q_QUIZ;
	if ((l->quiz || l->nhidden || asks) && !(l->quiz && l->nhidden && asks))
		return lab_def_fail(r, "a quiz wants a 'quiz' line (its capture), 'hidden' parameters and 'ask' "
				       "questions, all three");
	return 0;
}

/*
 * The {NAME}s of @s, each checked to be a parameter (and, if @hidden, a hidden
 * one allowed) and, if @out, written out with their values: the length
 * written, or -1 (said; @what names the line).
 */
static int lab_def_expand(struct lab_def_reader *r, const char *s, bool hidden, char *out, size_t room,
			  const char *what)
{
	size_t n = 0;

	while (*s) {
		const char *open = strchr(s, '{'), *close = open ? strchr(open, '}') : NULL;
		size_t lit = open ? (size_t)(open - s) : strlen(s);
		struct lab_param *p;
		char num[24];

		if (out && n + lit >= room)
			return lab_def_fail(r, "%s: too long once its parameters are put in", what);
		if (out)
			memcpy(out + n, s, lit);
		n += lit;
		if (!open)
			break;
		if (!close || !(p = lab_def_param(r->l, open + 1, (size_t)(close - open - 1), hidden)))
			return lab_def_fail(r, "%s: '%.*s' is not a parameter %s can use", what,
					    close ? (int)(close - open + 1) : (int)strlen(open), open,
					    hidden ? "the quiz" : "this line");
		snprintf(num, sizeof(num), "%llu", (unsigned long long)p->value);
		if (out && n + strlen(num) >= room)
			return lab_def_fail(r, "%s: too long once its parameters are put in", what);
		if (out)
			memcpy(out + n, num, strlen(num));
		n += strlen(num);
		s = close + 1;
	}
	if (out)
		out[n] = '\0';
	return (int)n;
}

/* Every string of @l that may hold {NAME}s, with whether it may name hidden parameters. */
struct lab_def_field {
	const char **s;
	bool hidden;
	char what[48];
};

static size_t lab_def_fields(struct lab_def *l, struct lab_def_field *f, size_t max)
{
	size_t n = 0;

#define LAB_FIELD(p, h, ...) do { if (n < max && *(p)) { f[n].s = (p); f[n].hidden = (h); \
		snprintf(f[n].what, sizeof(f[n].what), __VA_ARGS__); n++; } } while (0)
	LAB_FIELD(&l->gen, false, "gen");
	LAB_FIELD(&l->next, false, "next");
	LAB_FIELD(&l->quiz, true, "quiz");
	for (size_t i = 0; i < l->nsteps; i++) {
		LAB_FIELD(&l->steps[i].what, false, "step %zu", i + 1);
		LAB_FIELD(&l->steps[i].server, false, "step %zu's server", i + 1);
		LAB_FIELD(&l->steps[i].client, false, "step %zu's client", i + 1);
		LAB_FIELD(&l->steps[i].replay, false, "step %zu's replay", i + 1);
	}
	for (size_t i = 0; i < l->nq; i++) {
		LAB_FIELD(&l->q[i].text, false, "question %s's text", l->q[i].key);
		LAB_FIELD(&l->q[i].hint, false, "question %s's hint", l->q[i].key);
		for (size_t k = 0; k < l->q[i].noption; k++)
			LAB_FIELD(&l->q[i].option[k], false, "choice %s's option %c", l->q[i].key, (int)('a' + k));
	}
#undef LAB_FIELD
	return n;
}

#define LAB_DEF_MAX_FIELDS (3 + 4 * LAB_MAX_STEPS + (2 + LAB_MAX_OPTIONS) * LAB_MAX_QUESTIONS)

/* Does every {NAME} name a parameter its line may use? */
static int lab_def_bind_check(struct lab_def_reader *r)
{
	struct lab_def_field f[LAB_DEF_MAX_FIELDS];
	size_t n = lab_def_fields(r->l, f, LAB_DEF_MAX_FIELDS);

	for (size_t i = 0; i < n; i++)
		if (lab_def_expand(r, *f[i].s, f[i].hidden, NULL, 0, f[i].what) < 0)
			return -1;
	return 0;
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
	for (size_t i = 0; i < l->nq; i++) {
		if (!l->q[i].text || !l->q[i].hint)
			return lab_def_fail(r, "question %s wants a 'text' and a 'hint'", l->q[i].key);
		if (l->q[i].kind == LAB_Q_CHOICE && l->q[i].noption < 2)
			return lab_def_fail(r, "choice %s wants 2 to %d 'option' lines", l->q[i].key, LAB_MAX_OPTIONS);
	}
	return lab_def_complete_quiz(r) || lab_def_bind_check(r) ? -1 : 0;
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
	free(l->bound_);
	l->text_ = NULL;
	l->bound_ = NULL;
}

int lab_def_bind(struct lab_def *l)
{
	struct lab_def_reader r = { .l = l };
	struct lab_def_field f[LAB_DEF_MAX_FIELDS];
	size_t n = lab_def_fields(l, f, LAB_DEF_MAX_FIELDS), used = 0, room = 2 * LAB_DEF_MAX_BYTES;

	snprintf(r.file, sizeof(r.file), "%s/" LAB_DEF_FILE, l->dir);
	if (l->bound_) /* the strings point into it now: their {NAME}s are gone */
		return lab_def_fail(&r, "bound twice (a bug in rocelab)");
	if (!(l->bound_ = malloc(room)))
		return lab_def_fail(&r, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int k;

		if (!strchr(*f[i].s, '{'))
			continue;
		k = lab_def_expand(&r, *f[i].s, f[i].hidden, l->bound_ + used, room - used, f[i].what);
		if (k < 0)
			return -1;
		/* Said without the value: a quiz's line holds the answers. */
		if (k > LAB_DEF_MAX_VALUE)
			return lab_def_fail(&r, "%s: longer than %d bytes once its parameters are put in", f[i].what,
					    LAB_DEF_MAX_VALUE);
		*f[i].s = l->bound_ + used;
		used += (size_t)k + 1;
	}
	return 0;
}
