/* SPDX-License-Identifier: MIT */
/*
 * rocelab lab grade NN: the question exercises of a lab, graded against the
 * learner's own capture. The true answers are worked out here, from that
 * capture, with the core's decoder and analyzer: never written down in
 * advance, since every run has its own PSNs (and QPNs, and timing).
 *
 * The questions come from the lab's definition (labs/NN-name/lab.def), the
 * way each answer is read off a capture from grade_labs.c; the truths of a
 * run live in that run's own memory.
 *
 * The answers file holds "KEY: VALUE" lines (numbers in decimal or 0x hex);
 * '#' starts a comment; a multiple-choice question's answer is a letter
 * ("w1: b"). The score lines, "score NN questions GOT/MAX" and, after the
 * multiple-choice questions, "score NN why GOT/MAX", are what `make grade`
 * collects into its table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "capture.h"
#include "cli.h"
#include "grade.h"
#include "lab_def.h"
#include "peer.h"
#include "rocelab/rocelab.h"

#define GRADE_MAX_FRAMES 200000
#define GRADE_IPPROTO_TCP 6
#define GRADE_IPV6_HDR_LEN 40      /* no extension headers: the peers send none */
#define GRADE_TCP_HDR_MIN 20       /* RFC 9293 3.1: Data Offset is at least 5 words */
#define GRADE_TCP_DATA_OFFSET 12   /* the byte whose top 4 bits are the Data Offset */
#define GRADE_ANSWERS_MAX (1u << 20) /* an answers file is a few lines: more is not one */

/* One question's true answer, for one grading run. */
struct grade_truth {
	bool known; /* the capture holds the answer */
	uint64_t v;
};

static grade_fact_fn *grade_fact(const char *num, const char *key)
{
	for (size_t i = 0; i < grade_nfacts; i++)
		if (!strcmp(grade_facts[i].lab, num) && !strcmp(grade_facts[i].key, key))
			return grade_facts[i].fact;
	return NULL;
}

static const struct grade_choice *grade_choice(const char *num, const char *key)
{
	for (size_t i = 0; i < grade_nchoices; i++)
		if (!strcmp(grade_choices[i].lab, num) && !strcmp(grade_choices[i].key, key))
			return &grade_choices[i];
	return NULL;
}

/* The last option letter of choice @q: 'a' + its options - 1. */
static char grade_last_letter(const struct lab_question *q)
{
	return (char)('a' + q->noption - 1);
}

/* The `needs` word @name (@len bytes), or NULL. */
static const struct grade_need *grade_need(const char *name, size_t len)
{
	for (size_t i = 0; i < grade_nneeds; i++)
		if (strlen(grade_needs[i].name) == len && !strncmp(grade_needs[i].name, name, len))
			return &grade_needs[i];
	return NULL;
}

/* Each word of @l's `needs` line, in turn: its row, or NULL (said) for one the grader does not know. */
static bool grade_check_needs(const struct lab_def *l)
{
	bool ok = true;

	for (const char *w = l->needs; w && *(w += strspn(w, " \t"));) {
		size_t n = strcspn(w, " \t");

		if (!grade_need(w, n)) {
			cli_error("lab", "%s/lab.def needs '%.*s', which the grader (cli/grade_labs.c grade_needs) does not "
					 "know", l->dir, (int)n, w);
			ok = false;
		}
		w += n;
	}
	return ok;
}

/*
 * Is @c a capture of lab @l: does it hold each kind of frame the lab is
 * about? Without one, questions about counts would read 0 and blank answers
 * score; it is refused instead, naming what is missing.
 */
static bool grade_is_labs(const struct lab_def *l, const struct grade_cap *c, const char *capture)
{
	for (const char *w = l->needs; w && *(w += strspn(w, " \t"));) {
		size_t n = strcspn(w, " \t"), i = 0;
		const struct grade_need *need = grade_need(w, n);

		while (i < c->n && !need->has(c, &c->f[i]))
			i++;
		if (i == c->n) {
			cli_error("lab", "%s is not a capture of lab %s: it holds no %s, and the lab is about that; run "
					 "'rocelab lab run %s', or name the lab's capture with --capture", capture, l->num,
				  need->what, l->num);
			return false;
		}
		w += n;
	}
	return true;
}

/* Has each choice of @l its right option in grade_choices[] (a letter among its options), and each row a choice? */
static bool grade_check_choices(const struct lab_def *l)
{
	bool ok = true;

	for (size_t i = 0; i < l->nq; i++) {
		const struct lab_question *q = &l->q[i];
		const struct grade_choice *ch;

		if (q->kind != LAB_Q_CHOICE)
			continue;
		ch = grade_choice(l->num, q->key);
		if (!ch || (!ch->fact && (ch->letter < 'a' || ch->letter > grade_last_letter(q)))) {
			cli_error("lab", "%s/lab.def asks choice %s, but the grader (cli/grade_labs.c grade_choices) %s",
				  l->dir, q->key, ch ? "names no option of it as the right one" : "has no right option for it");
			ok = false;
		}
	}
	for (size_t i = 0; i < grade_nchoices; i++) {
		size_t k = 0;

		if (strcmp(grade_choices[i].lab, l->num))
			continue;
		while (k < l->nq && (l->q[k].kind != LAB_Q_CHOICE || strcmp(l->q[k].key, grade_choices[i].key)))
			k++;
		if (k == l->nq) {
			cli_error("lab", "the grader (cli/grade_labs.c) knows the right option of choice %s of lab %s, but "
					 "%s/lab.def does not ask it", grade_choices[i].key, l->num, l->dir);
			ok = false;
		}
	}
	return ok;
}

/* Is question @q answered by a fact function of grade_facts[] (not a quiz's, not a choice)? */
static bool grade_has_fact(const struct lab_question *q)
{
	return q->kind == LAB_Q_READ || q->kind == LAB_Q_PREDICT;
}

bool grade_check(const struct lab_def *l)
{
	bool ok = grade_check_needs(l);

	if (!grade_check_choices(l))
		ok = false;

	for (size_t i = 0; i < l->nq; i++)
		if (grade_has_fact(&l->q[i]) && !grade_fact(l->num, l->q[i].key)) {
			cli_error("lab", "%s/lab.def asks question %s, but the grader (cli/grade_labs.c) cannot read its "
					 "answer off a capture", l->dir, l->q[i].key);
			ok = false;
		}
	for (size_t i = 0; i < grade_nfacts; i++) {
		size_t k = 0;

		if (strcmp(grade_facts[i].lab, l->num))
			continue;
		while (k < l->nq && (!grade_has_fact(&l->q[k]) || strcmp(l->q[k].key, grade_facts[i].key)))
			k++;
		if (k == l->nq) {
			cli_error("lab", "the grader (cli/grade_labs.c) reads the answer to question %s of lab %s, but "
					 "%s/lab.def does not ask it", grade_facts[i].key, l->num, l->dir);
			ok = false;
		}
	}
	return ok;
}

/* Is lab @num among the @n labs numbered @nums? */
static bool grade_lab_known(const char (*nums)[3], size_t n, const char *num)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(nums[k], num))
			return true;
	return false;
}

bool grade_check_labs(const char (*nums)[3], size_t n)
{
	bool ok = true;

	for (size_t i = 0; i < grade_nchoices; i++)
		if (!grade_lab_known(nums, n, grade_choices[i].lab)) {
			cli_error("lab", "the grader (cli/grade_labs.c) knows the right option of choice %s of lab %s, "
					 "which has no labs/%s-*/lab.def", grade_choices[i].key, grade_choices[i].lab,
				  grade_choices[i].lab);
			ok = false;
		}

	for (size_t i = 0; i < grade_nfacts; i++) {
		size_t j = 0;

		while (j < i && strcmp(grade_facts[j].lab, grade_facts[i].lab))
			j++;
		if (!grade_lab_known(nums, n, grade_facts[i].lab) && j == i) { /* said once per lab */
			cli_error("lab", "the grader (cli/grade_labs.c) reads answers of lab %s, which has no "
					 "labs/%s-*/lab.def", grade_facts[i].lab, grade_facts[i].lab);
			ok = false;
		}
	}
	return ok;
}

/*
 * The CM message @p carries to QP1, kept for the questions about connection
 * management; NULL if it carries none. false if out of memory.
 */
static bool grade_keep_cm(const struct rl_pkt *p, const struct rl_cm **out)
{
	struct rl_cm cm, *kept;
	enum rl_cm_status st;

	*out = NULL;
	if (!rl_cm_is_gsi(p))
		return true;
	st = rl_cm_decode(p->payload, p->payload_len, &cm);
	if ((st != RL_CM_OK && st != RL_CM_TRUNC) || !cm.msg)
		return true;
	kept = malloc(sizeof(*kept));
	if (!kept)
		return false;
	*kept = cm;
	*out = kept;
	return true;
}

/*
 * The TCP payload of frame @fr, which the decoder found not RoCE (@p: its IP
 * header); its length to *@n, NULL if it is no TCP segment with one.
 */
static const uint8_t *grade_tcp_payload(const struct cli_frame *fr, const struct rl_pkt *p, size_t *n)
{
	size_t l4, end, thl;

	if (p->l3 == RL_L3_IPV4 && p->ip4.proto == GRADE_IPPROTO_TCP && !p->ip4.frag_off && !p->ip4.mf) {
		l4 = p->l3_off + (size_t)p->ip4.ihl * 4;
		end = p->l3_off + p->ip4.total_len;
	} else if (p->l3 == RL_L3_IPV6 && p->ip6.next_header == GRADE_IPPROTO_TCP) {
		l4 = p->l3_off + GRADE_IPV6_HDR_LEN;
		end = l4 + p->ip6.payload_len;
	} else {
		return NULL;
	}
	if (end > fr->caplen || l4 + GRADE_TCP_HDR_MIN > end)
		return NULL;
	thl = (size_t)(fr->data[l4 + GRADE_TCP_DATA_OFFSET] >> 4) * 4; /* in 32-bit words */
	if (thl < GRADE_TCP_HDR_MIN || l4 + thl >= end)
		return NULL;
	*n = end - l4 - thl;
	return fr->data + l4 + thl;
}

/* Keep frame @fr if it carries an exchange line (peer_dest_parse()'s format, with its NUL); false if out of memory. */
static bool grade_keep_line(struct grade_cap *c, const struct cli_frame *fr, const struct rl_pkt *p)
{
	char msg[PEER_MSG_LEN];
	struct peer_dest d;
	struct grade_line *m, *l;
	size_t n;
	const uint8_t *pl = grade_tcp_payload(fr, p, &n);

	if (!pl || n < PEER_MSG_LEN || pl[PEER_MSG_LEN - 1])
		return true;
	memcpy(msg, pl, PEER_MSG_LEN);
	if (!peer_dest_parse(msg, &d))
		return true;
	m = realloc(c->x, (c->nx + 1) * sizeof(*m));
	if (!m)
		return false;
	c->x = m;
	l = &c->x[c->nx++];
	l->no = fr->no;
	l->p = *p;
	l->p.payload = NULL;
	l->qpn = d.qpn;
	l->psn = d.psn;
	memcpy(l->gid, d.gid, 16);
	return true;
}

static void grade_cap_free(struct grade_cap *c)
{
	for (size_t i = 0; i < c->n; i++)
		free((void *)c->f[i].cm);
	free(c->f);
	free(c->x);
	c->f = NULL;
	c->x = NULL;
	c->n = c->nx = 0;
}

/*
 * Every RoCE frame of @pc, decoded and analyzed once, as `rocelab explain`
 * does; the CM messages decoded too. Returns 0, 1 if the capture is cut
 * short or longer than we keep (graded on what was read), -1 if out of memory.
 */
static int grade_load(struct cli_capture *in, struct grade_cap *c)
{
	struct rl_analyzer *an = rl_analyzer_new();
	struct cli_frame fr;
	size_t cap = 0;
	int r;

	memset(c, 0, sizeof(*c));
	if (!an)
		return -1;
	while ((r = cli_capture_next(in, &fr)) == 1 && c->n < GRADE_MAX_FRAMES) {
		struct grade_frame *f;
		enum rl_status st;

		if (c->n == cap) {
			struct grade_frame *m = realloc(c->f, (cap = cap ? 2 * cap : 256) * sizeof(*m));

			if (!m) {
				rl_analyzer_free(an);
				return -1;
			}
			c->f = m;
		}
		if (!rl_link_supported((int)fr.link))
			continue; /* a pcapng's interface of another link type */
		f = &c->f[c->n];
		f->no = fr.no;
		f->ns = (uint64_t)fr.ns;
		st = cli_frame_decode(&fr, &f->p);
		rl_analyze(an, fr.no, (uint64_t)fr.ns, &f->p, st, &f->a);
		if (st == RL_NOT_ROCE && !grade_keep_line(c, &fr, &f->p)) {
			rl_analyzer_free(an);
			return -1;
		}
		if (st == RL_NOT_ROCE || rl_status_fatal(st))
			continue;
		if (!grade_keep_cm(&f->p, &f->cm)) {
			rl_analyzer_free(an);
			return -1;
		}
		f->p.payload = NULL;
		c->n++;
	}
	rl_analyzer_free(an);
	for (size_t i = 0; i < c->n && !c->client; i++)
		if (c->f[i].a.role == RL_ROLE_REQUEST)
			c->client = &c->f[i];
	return r == 1 || r == -1 ? 1 : 0;
}

/*
 * The answers file @path, whole, as a string (free() it): a file (or a pipe,
 * as from <(...)) of at most GRADE_ANSWERS_MAX bytes. NULL after a message if
 * it is not one: a directory, or a device like /dev/zero that never ends, is not an answers file.
 */
char *grade_read_answers(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	ssize_t r = 0;

	if (fd < 0 || fstat(fd, &st)) {
		cli_error("lab", "cannot read the answers file %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		cli_error("lab", "the answers file %s is not a file (%s)", path,
			  S_ISDIR(st.st_mode) ? "a directory" : "a device or socket");
		goto out;
	}
	buf = malloc(GRADE_ANSWERS_MAX + 1);
	if (!buf) {
		cli_error("lab", "out of memory reading %s", path);
		goto out;
	}
	while (n <= GRADE_ANSWERS_MAX && (r = read(fd, buf + n, GRADE_ANSWERS_MAX + 1 - n)) > 0)
		n += (size_t)r;
	if (r < 0 || n > GRADE_ANSWERS_MAX) {
		if (r < 0)
			cli_error("lab", "cannot read the answers file %s: %s", path, strerror(errno));
		else
			cli_error("lab", "the answers file %s is longer than %u bytes: not an answers file", path,
				  GRADE_ANSWERS_MAX);
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[n] = '\0';
out:
	if (fd >= 0)
		close(fd);
	return buf;
}

/*
 * The learner's answer to @key in @text, the whole answers file, read line by
 * line however long a line is ('#' to its end is a comment): 1 found, 0 not
 * answered, -1 not a number (@raw says what it was).
 */
int grade_answer(const char *text, const char *key, uint64_t *v, char *raw, size_t rn)
{
	size_t klen = strlen(key);

	raw[0] = '\0';
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n"), code = strcspn(line, "#\n");
		const char *colon = memchr(line, ':', code), *k = line, *ke, *val;
		size_t vlen;

		if (colon) {
			k += strspn(k, " \t");
			for (ke = colon; ke > k && (ke[-1] == ' ' || ke[-1] == '\t'); ke--)
				;
			if ((size_t)(ke - k) == klen && !strncmp(k, key, klen)) {
				val = colon + 1 + strspn(colon + 1, " \t");
				vlen = (size_t)(line + code - val);
				vlen = strcspn(val, " \t\r#\n") < vlen ? strcspn(val, " \t\r#\n") : vlen;
				if (!vlen)
					return 0;
				snprintf(raw, rn, "%.*s", (int)vlen, val);
				return cli_parse_u64(raw, UINT64_MAX, v) && strlen(raw) == vlen ? 1 : -1;
			}
		}
		line += len + (line[len] == '\n');
	}
	return 0;
}

int grade_key_width(const struct lab_def *l, enum lab_qkind kind)
{
	size_t w = 3;

	for (size_t i = 0; i < l->nq; i++)
		if (l->q[i].kind == kind && strlen(l->q[i].key) > w)
			w = strlen(l->q[i].key);
	return (int)w;
}

unsigned grade_print(const struct lab_question *q, int w, int a, bool right, const char *raw)
{
	if (a == 0)
		printf("  %-*s 0/%u  %s: not answered\n", w, q->key, GRADE_POINTS, q->text);
	else if (a < 0)
		printf("  %-*s 0/%u  %s: '%s' is not a number (decimal, or hex with 0x)\n", w, q->key, GRADE_POINTS,
		       q->text, raw);
	else if (right)
		printf("  %-*s %u/%u  %s: right\n", w, q->key, GRADE_POINTS, GRADE_POINTS, q->text);
	else
		printf("  %-*s 0/%u  %s: not %s; %s %s\n", w, q->key, GRADE_POINTS, q->text, raw,
		       q->kind == LAB_Q_READ ? "look at" : "think again:", q->hint);
	return a > 0 && right ? GRADE_POINTS : 0;
}

/*
 * Score the questions of kind @kind in @text against @truth; the points
 * got, and the most there were (*@max) among those the capture answers.
 */
static unsigned grade_questions(const struct lab_def *l, enum lab_qkind kind, const char *text,
				const struct grade_truth *truth, unsigned *max)
{
	unsigned got = 0;
	char raw[64];
	int w = grade_key_width(l, kind);

	*max = 0;
	for (size_t i = 0; i < l->nq; i++) {
		const struct lab_question *q = &l->q[i];
		uint64_t v;
		int a;

		if (q->kind != kind)
			continue;
		if (!truth[i].known) {
			printf("  %-*s --    %s: your capture does not show it; not counted\n", w, q->key, q->text);
			continue;
		}
		*max += GRADE_POINTS;
		a = text ? grade_answer(text, q->key, &v, raw, sizeof(raw)) : 0;
		got += grade_print(q, w, a, a > 0 && v == truth[i].v, raw);
	}
	return got;
}

/*
 * The learner's pick for choice @q in @text: its option's index, or -1 not
 * answered, -2 not one of its letters (@raw says what it was).
 */
static int grade_pick(const char *text, const struct lab_question *q, char *raw, size_t rn)
{
	uint64_t v;
	int a = grade_answer(text, q->key, &v, raw, rn);
	char c = raw[0] >= 'A' && raw[0] <= 'Z' ? (char)(raw[0] - 'A' + 'a') : raw[0];

	if (a == 0)
		return -1;
	if (strlen(raw) != 1 || c < 'a' || c > grade_last_letter(q))
		return -2;
	return c - 'a';
}

/* Print choice @q's line for pick @pick (grade_pick()) against the right letter @right; the points it scores. */
static unsigned grade_print_choice(const struct lab_question *q, int w, int pick, char right, const char *raw)
{
	if (pick == -1)
		printf("  %-*s 0/%u  %s: not answered\n", w, q->key, GRADE_POINTS, q->text);
	else if (pick == -2)
		printf("  %-*s 0/%u  %s: '%s' is not one of its options; answer with one letter, a to %c\n", w, q->key,
		       GRADE_POINTS, q->text, raw, grade_last_letter(q));
	else if ('a' + pick == right)
		printf("  %-*s %u/%u  %s: right\n", w, q->key, GRADE_POINTS, GRADE_POINTS, q->text);
	else
		printf("  %-*s 0/%u  %s: not %c; think again: %s\n", w, q->key, GRADE_POINTS, q->text, 'a' + pick,
		       q->hint);
	return pick >= 0 && 'a' + pick == right ? GRADE_POINTS : 0;
}

/*
 * The multiple-choice questions, if the lab asks any, scored after the
 * others: "score NN why GOT/MAX". A choice whose right option is read off
 * the capture and that the capture does not show is not counted.
 */
static void grade_choices_print(const struct lab_def *l, const char *text, const struct grade_truth *truth)
{
	int w = grade_key_width(l, LAB_Q_CHOICE);
	unsigned got = 0, max = 0;
	bool any = false;
	char raw[64];

	for (size_t i = 0; i < l->nq; i++)
		any |= l->q[i].kind == LAB_Q_CHOICE;
	if (!any)
		return;
	printf("lab %s: why the wire looks as it does (multiple choice: answer with a letter)\n", l->num);
	for (size_t i = 0; i < l->nq; i++) {
		const struct lab_question *q = &l->q[i];

		if (q->kind != LAB_Q_CHOICE)
			continue;
		if (!truth[i].known) {
			printf("  %-*s --    %s: your capture does not show it; not counted\n", w, q->key, q->text);
			continue;
		}
		max += GRADE_POINTS;
		got += grade_print_choice(q, w, grade_pick(text, q, raw, sizeof(raw)), (char)truth[i].v, raw);
	}
	printf("score %s why %u/%u\n", l->num, got, max);
}

/* The right letter of choice @q of lab @num, into @t: the table's, or read off @c; unknown if it is no option of @q. */
static void grade_choice_truth(const char *num, const struct lab_question *q, const struct grade_cap *c,
			       struct grade_truth *t)
{
	const struct grade_choice *ch = grade_choice(num, q->key);

	t->v = (uint64_t)ch->letter;
	t->known = ch->fact ? ch->fact(c, &t->v) : true;
	t->known = t->known && t->v >= 'a' && t->v <= (uint64_t)grade_last_letter(q);
}

/*
 * The learner's predictions, if the lab asks any, scored: "score NN
 * predictions GOT/MAX" ("-/-" if none were made, as make grade's table says
 * of a lab not run). Those written after the capture was made score
 * nothing: they could have been read off it.
 */
/* Was the file @a last written after @b, by the one clock of the file system that holds both? */
static bool grade_newer(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb))
		return false;
	return sa.st_mtim.tv_sec != sb.st_mtim.tv_sec ? sa.st_mtim.tv_sec > sb.st_mtim.tv_sec
						      : sa.st_mtim.tv_nsec > sb.st_mtim.tv_nsec;
}

static void grade_predictions(const struct lab_def *l, const char *capture, const struct grade_truth *truth)
{
	char path[256];
	unsigned got, max;
	char *text = NULL;
	bool any = false;

	for (size_t i = 0; i < l->nq; i++)
		any |= l->q[i].kind == LAB_Q_PREDICT;
	if (!any)
		return;
	snprintf(path, sizeof(path), LAB_OUT "/%s-%s.predict", l->num, l->name);
	if (access(path, F_OK)) {
		printf("score %s predictions -/- not made: rocelab lab predict %s, before rocelab lab run %s\n", l->num,
		       l->num, l->num);
		return;
	}
	if (grade_newer(path, capture)) {
		printf("lab %s: your predictions (%s) were made after the capture: they are not counted; run "
		       "'rocelab lab run %s' again\n", l->num, path, l->num);
	} else if ((text = grade_read_answers(path))) {
		printf("lab %s: your predictions (%s) against the capture\n", l->num, path);
	}
	got = grade_questions(l, LAB_Q_PREDICT, text, truth, &max);
	free(text);
	printf("score %s predictions %u/%u\n", l->num, got, max);
}

int grade_lab(const struct lab_def *l, const char *answers, const char *capture)
{
	struct grade_truth truth[LAB_MAX_QUESTIONS];
	const char *num = l->num;
	char why[256];
	unsigned got, max;
	struct grade_cap cap;
	struct cli_capture *in;
	char *text;
	int r;

	if (!l->nq) {
		cli_error("lab", "lab %s has no question exercises to grade yet", num);
		return CLI_BAD_INPUT;
	}
	if (!grade_check(l))
		return CLI_ERR;
	in = cli_capture_open_quiet(capture, why, sizeof(why));
	if (!in) {
		if (access(capture, F_OK))
			cli_error("lab", "no capture to grade against (%s: %s): run 'rocelab lab run %s' first", capture,
				  why, num);
		else
			cli_error("lab", "%s is not a capture this can read (%s): run 'rocelab lab run %s' again", capture,
				  why, num);
		return CLI_ERR;
	}
	if (!rl_link_supported((int)cli_capture_link(in))) {
		cli_error("lab", "%s: link type %d is not one rocelab decodes: run 'rocelab lab run %s' again", capture,
			  (int)cli_capture_link(in), num);
		cli_capture_close(in);
		return CLI_ERR;
	}
	r = grade_load(in, &cap);
	cli_capture_close(in);
	if (r < 0) {
		cli_error("lab", "out of memory reading %s", capture);
		grade_cap_free(&cap);
		return CLI_ERR;
	}
	if (!cap.n) {
		/* Else questions about counts would be "known" (0) and an empty run would score full marks. */
		cli_error("lab", "%s holds no RoCE frame to grade against: run 'rocelab lab run %s' again", capture, num);
		grade_cap_free(&cap);
		return CLI_ERR;
	}
	if (r)
		fprintf(stderr, "rocelab lab: note: %s is cut short or very long; graded on its first %zu RoCE frames\n",
			capture, cap.n);
	if (!grade_is_labs(l, &cap, capture)) {
		grade_cap_free(&cap);
		return CLI_BAD_INPUT;
	}
	for (size_t i = 0; i < l->nq; i++) {
		truth[i].known = false;
		if (l->q[i].kind == LAB_Q_CHOICE)
			grade_choice_truth(num, &l->q[i], &cap, &truth[i]);
		else if (grade_has_fact(&l->q[i]))
			truth[i].known = grade_fact(num, l->q[i].key)(&cap, &truth[i].v);
	}
	grade_cap_free(&cap);
	text = grade_read_answers(answers);
	if (!text)
		return CLI_ERR;
	printf("lab %s: your answers (%s) against your capture (%s)\n", num, answers, capture);
	got = grade_questions(l, LAB_Q_READ, text, truth, &max);
	printf("score %s questions %u/%u\n", num, got, max);
	grade_choices_print(l, text, truth);
	free(text);
	grade_predictions(l, capture, truth);
	return CLI_OK;
}
