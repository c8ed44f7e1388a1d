/* SPDX-License-Identifier: MIT */
/*
 * rocelab lab grade NN: the question exercises of a lab, graded against the
 * learner's own capture. The true answers are worked out here, from that
 * capture, with the core's decoder and analyzer: never written down in
 * advance, since every run has its own PSNs (and QPNs, and timing).
 *
 * The answers file holds "KEY: VALUE" lines (numbers in decimal or 0x hex);
 * '#' starts a comment. The last line printed is "score NN questions GOT/MAX",
 * which `make grade` collects into its table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grade.h"
#include "rocelab/rocelab.h"

#define GRADE_MAX_Q 16

struct grade_q {
	const char *key;
	const char *what;
	unsigned points;
	bool known;     /* the capture holds the answer */
	uint64_t truth;
	const char *how; /* where to look, said when the answer is wrong */
};

/* One lab's questions, their true answers filled in from a capture. */
struct grade_lab {
	const char *num;
	int (*facts)(pcap_t *pc, struct grade_q *q, int n);
	struct grade_q q[GRADE_MAX_Q];
};

static bool grade_same_src(const struct rl_pkt *a, const struct rl_pkt *b)
{
	if (a->l3 != b->l3)
		return false;
	return a->l3 == RL_L3_IPV4 ? !memcmp(a->ip4.src, b->ip4.src, 4) : !memcmp(a->ip6.src, b->ip6.src, 16);
}

static struct grade_q *grade_q(struct grade_q *q, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(q[i].key, key))
			return &q[i];
	return NULL;
}

static void grade_set(struct grade_q *q, int n, const char *key, uint64_t v)
{
	struct grade_q *x = grade_q(q, n, key);

	if (x && !x->known) {
		x->known = true;
		x->truth = v;
	}
}

/*
 * Lab 01: the RoCE frames; the two starting PSNs (the client is whoever sent
 * the first request); the client's PSN step; the frame that acknowledges the
 * client's first SEND, and its MSN.
 */
static int grade_facts_01(pcap_t *pc, struct grade_q *q, int n)
{
	struct rl_analyzer *an = rl_analyzer_new();
	struct pcap_pkthdr *h;
	const u_char *d;
	struct rl_pkt pkt, client;
	struct rl_annotation a;
	enum rl_link link = (enum rl_link)pcap_datalink(pc);
	uint64_t frame = 0, roce = 0, requests_a = 0;
	uint32_t psn_a = 0;
	bool have_client = false;
	int r;

	if (!an)
		return -1;
	memset(&client, 0, sizeof(client));
	while ((r = pcap_next_ex(pc, &h, &d)) == 1) {
		enum rl_status st = rl_decode(link, d, h->caplen, &pkt);

		frame++;
		rl_analyze(an, frame, (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec * 1000u, &pkt, st, &a);
		if (st == RL_NOT_ROCE || rl_status_fatal(st))
			continue;
		roce++;
		if (a.role == RL_ROLE_REQUEST && !have_client) {
			client = pkt;
			have_client = true;
		}
		if (a.role == RL_ROLE_REQUEST && grade_same_src(&pkt, &client)) {
			if (++requests_a == 1)
				psn_a = pkt.bth.psn;
			else if (requests_a == 2)
				grade_set(q, n, "3", (pkt.bth.psn - psn_a) & 0xffffff);
			grade_set(q, n, "2a", pkt.bth.psn);
		} else if (a.role == RL_ROLE_REQUEST) {
			grade_set(q, n, "2b", pkt.bth.psn);
		} else if (a.role == RL_ROLE_RESPONSE && a.acks && have_client && !grade_same_src(&pkt, &client) &&
			   ((psn_a - a.acked_first) & 0xffffff) <= ((a.acked_last - a.acked_first) & 0xffffff)) {
			grade_set(q, n, "4a", frame);
			grade_set(q, n, "4b", pkt.aeth.msn);
		}
	}
	rl_analyzer_free(an);
	grade_set(q, n, "1", roce);
	return r == -1 ? -1 : 0;
}

static struct grade_lab grade_labs[] = {
	{ "01", grade_facts_01,
	  { { "1", "how many RoCE frames the capture holds", 1, false, 0,
	      "the last line of 'rocelab explain', or Statistics -> Protocol Hierarchy" },
	    { "2a", "the client's starting PSN", 1, false, 0, "the PSN of the client's first SEND" },
	    { "2b", "the server's starting PSN", 1, false, 0, "the PSN of the server's first SEND" },
	    { "3", "the PSN step from one client SEND to the next", 1, false, 0,
	      "one PSN per packet, and each SEND here is one packet (IBA 9.7.2)" },
	    { "4a", "the frame that acknowledges the client's first SEND", 1, false, 0,
	      "an RC Acknowledge from the server whose PSN is that SEND's" },
	    { "4b", "the MSN in that acknowledgement", 1, false, 0, "the AETH of that frame (IBA 9.7.5.1)" } } },
};

#define GRADE_NLABS (sizeof(grade_labs) / sizeof(grade_labs[0]))

static int grade_nq(const struct grade_lab *g)
{
	int n = 0;

	while (n < GRADE_MAX_Q && g->q[n].key)
		n++;
	return n;
}

/* The learner's answer to @key: 1 found, 0 not answered, -1 not a number (@raw says what it was). */
static int grade_answer(FILE *f, const char *key, uint64_t *v, char *raw, size_t rn)
{
	char line[512];

	rewind(f);
	raw[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, '#'), *colon, *val, *end;
		size_t kl;

		if (c)
			*c = '\0';
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		for (kl = strlen(line); kl && (line[kl - 1] == ' ' || line[kl - 1] == '\t'); kl--)
			line[kl - 1] = '\0';
		val = line + strspn(line, " \t");
		if (strcmp(val, key))
			continue;
		val = colon + 1 + strspn(colon + 1, " \t");
		val[strcspn(val, " \t\r\n")] = '\0';
		if (!*val)
			return 0;
		snprintf(raw, rn, "%s", val);
		errno = 0;
		*v = strtoull(val, &end, 0);
		return errno || *end ? -1 : 1;
	}
	return 0;
}

int grade_lab(const char *num, const char *answers, const char *capture)
{
	struct grade_lab *g = NULL;
	char eb[PCAP_ERRBUF_SIZE], raw[64];
	unsigned got = 0, max = 0;
	pcap_t *pc;
	FILE *f;
	int n;

	for (size_t i = 0; i < GRADE_NLABS; i++)
		if (!strcmp(grade_labs[i].num, num))
			g = &grade_labs[i];
	if (!g) {
		cli_error("lab", "lab %s has no question exercises to grade yet", num);
		return CLI_BAD_INPUT;
	}
	n = grade_nq(g);
	pc = pcap_open_offline(capture, eb);
	if (!pc) {
		cli_error("lab", "no capture to grade against (%s): run 'rocelab lab run %s' first", eb, num);
		return CLI_ERR;
	}
	for (int i = 0; i < n; i++)
		g->q[i].known = false;
	if (g->facts(pc, g->q, n))
		fprintf(stderr, "rocelab lab: note: %s is cut short; graded on what it holds\n", capture);
	pcap_close(pc);
	f = fopen(answers, "r");
	if (!f) {
		cli_error("lab", "cannot read the answers file %s: %s", answers, strerror(errno));
		return CLI_ERR;
	}
	printf("lab %s: your answers (%s) against your capture (%s)\n", num, answers, capture);
	for (int i = 0; i < n; i++) {
		struct grade_q *q = &g->q[i];
		uint64_t v;
		int a = grade_answer(f, q->key, &v, raw, sizeof(raw));

		if (!q->known) {
			printf("  %-3s --    %s: your capture does not show it; not counted\n", q->key, q->what);
			continue;
		}
		max += q->points;
		if (a == 0)
			printf("  %-3s 0/%u  %s: not answered\n", q->key, q->points, q->what);
		else if (a < 0)
			printf("  %-3s 0/%u  %s: '%s' is not a number (decimal, or hex with 0x)\n", q->key, q->points,
			       q->what, raw);
		else if (v == q->truth) {
			printf("  %-3s %u/%u  %s: right\n", q->key, q->points, q->points, q->what);
			got += q->points;
		} else {
			printf("  %-3s 0/%u  %s: not %s; look at %s\n", q->key, q->points, q->what, raw, q->how);
		}
	}
	fclose(f);
	printf("score %s questions %u/%u\n", num, got, max);
	return CLI_OK;
}
