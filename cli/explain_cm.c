/* SPDX-License-Identifier: MIT */
/*
 * CM MADs in rocelab explain: printers over core's CM field table
 * (rocelab/cm.h). The frame's transport headers print as for any UD SEND;
 * these add what its 256-byte payload says.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "explain_cm.h"

bool ex_cm_decode(const struct rl_pkt *p, struct rl_cm *cm, enum rl_cm_status *st)
{
	if (!rl_cm_is_gsi(p))
		return false;
	*st = rl_cm_decode(p->payload, p->payload_len, cm);
	return true;
}

static const char *ex_cm_gid(const uint8_t *g, char *buf, size_t n)
{
	if (!inet_ntop(AF_INET6, g, buf, (socklen_t)n))
		snprintf(buf, n, "?");
	return buf;
}

/* Bytes as hex, up to the last non-zero one; how many zero bytes follow. */
static size_t ex_cm_hex(const uint8_t *b, size_t n, char *buf, size_t cap)
{
	size_t last = n, o = 0;

	while (last && !b[last - 1])
		last--;
	for (size_t i = 0; i < last && o + 3 <= cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%02x", b[i]);
	buf[o < cap ? o : cap - 1] = '\0';
	return n - last;
}

/* rdma_cm's port space and port, and the CMA header of a REQ or SIDR_REQ. */
static bool ex_cm_rdma(const struct rl_cm *cm, uint16_t *ps, uint16_t *port, struct rl_cma_hdr *h, bool *has_hdr)
{
	enum rl_cm_field_id sid, pd;
	const uint8_t *b;
	size_t n;

	switch (cm->attr) {
	case RL_CM_REQ: sid = RL_CMF_REQ_SERVICE_ID; pd = RL_CMF_REQ_PRIVATE_DATA; break;
	case RL_CM_SIDR_REQ: sid = RL_CMF_SIDR_REQ_SERVICE_ID; pd = RL_CMF_SIDR_REQ_PRIVATE_DATA; break;
	default: return false;
	}
	if (!rl_cm_service_ps(rl_cm_get(cm, sid), ps, port))
		return false;
	b = rl_cm_bytes(cm, pd, &n);
	*has_hdr = b && rl_cma_hdr_decode(b, n, h);
	return true;
}

static void ex_cm_ip(const struct rl_cma_hdr *h, const uint8_t *a, char *buf, size_t n)
{
	if (!inet_ntop(h->ip_version == 4 ? AF_INET : AF_INET6, h->ip_version == 4 ? a + 12 : a, buf, (socklen_t)n))
		snprintf(buf, n, "?");
}

void ex_cm_line(struct rl_sb *sb, const struct rl_cm *cm, enum rl_cm_status st)
{
	char line[256];

	rl_sb_puts(sb, ": ");
	if (st == RL_CM_NOT_CM && !cm->len) {
		rl_sb_puts(sb, "a MAD too short for its header");
		return;
	}
	rl_cm_describe(cm, line, sizeof(line));
	rl_sb_puts(sb, line);
}

static void ex_cm_verbose_value(const struct rl_cm_field *f, const struct rl_cm_iter *it)
{
	char buf[2 * RL_MAD_LEN + 1];
	size_t zeros;

	switch (f->fmt) {
	case RL_CM_HEX:
		printf("0x%0*" PRIx64, f->digits, it->value);
		break;
	case RL_CM_GID:
		printf("%s", ex_cm_gid(it->bytes, buf, sizeof(buf)));
		break;
	case RL_CM_DATA:
		zeros = ex_cm_hex(it->bytes, it->n, buf, sizeof(buf));
		if (zeros == it->n)
			printf("%zu zero bytes", it->n);
		else if (zeros)
			printf("%s and %zu zero bytes", buf, zeros);
		else
			printf("%s", buf);
		break;
	default:
		printf("%" PRIu64, it->value);
		break;
	}
}

void ex_cm_verbose(const struct rl_cm *cm, enum rl_cm_status st)
{
	struct rl_cm_iter it;
	const struct rl_cm_field *f;
	struct rl_cma_hdr h;
	uint16_t ps, port;
	bool has_hdr;
	char a[64], b[64];
	uint16_t at = 0xffff;

	printf("  MAD       %s\n", st == RL_CM_OK ? "a CM MAD on QP1, the General Service Interface (IBA 13.4, 12.6)"
						: rl_cm_status_reason(st));
	rl_cm_iter_init(&it, cm);
	while ((f = rl_cm_next(&it))) {
		const char *words = f->words ? f->words(f->fmt == RL_CM_GID || f->fmt == RL_CM_DATA ? 0 : it.value) : NULL;

		if (f->msg != at && f->msg) {
			printf("  CM %-6s %s\n", cm->msg->abbr, cm->msg->name);
			at = f->msg;
		}
		printf("              %s ", f->name);
		ex_cm_verbose_value(f, &it);
		printf(" (%s)\n", words ? words : f->meaning);
	}
	if (ex_cm_rdma(cm, &ps, &port, &h, &has_hdr)) {
		printf("  rdma_cm   %s port %u", rl_rdma_ps_name(ps), port);
		if (has_hdr) {
			ex_cm_ip(&h, h.src, a, sizeof(a));
			ex_cm_ip(&h, h.dst, b, sizeof(b));
			printf(": from %s port %u to %s (the CMA header, version %u, IPv%u)", a, h.src_port, b,
			       h.version, h.ip_version);
		}
		printf("\n");
	}
}

void ex_cm_json(struct json *j, const struct rl_cm *cm, enum rl_cm_status st)
{
	struct rl_cm_iter it;
	const struct rl_cm_field *f;
	struct rl_cma_hdr h;
	uint16_t ps, port;
	bool has_hdr, in_msg = false;
	char buf[2 * RL_MAD_LEN + 1], key[64];

	json_obj(j, "cm");
	json_str(j, "status", st == RL_CM_OK ? "ok" : rl_cm_status_reason(st));
	if (cm->msg) {
		json_str(j, "msg", cm->msg->abbr);
		json_str(j, "name", cm->msg->name);
	}
	rl_cm_describe(cm, buf, sizeof(buf));
	json_str(j, "summary", buf);
	json_obj(j, "mad");
	rl_cm_iter_init(&it, cm);
	while ((f = rl_cm_next(&it))) {
		const char *words;

		if (f->msg && !in_msg) {
			json_end(j);
			json_obj(j, cm->msg->filter);
			in_msg = true;
		}
		switch (f->fmt) {
		case RL_CM_GID:
			json_str(j, f->key, ex_cm_gid(it.bytes, buf, sizeof(buf)));
			continue;
		case RL_CM_DATA:
			for (size_t i = 0; i < it.n; i++)
				snprintf(buf + 2 * i, 3, "%02x", it.bytes[i]);
			buf[2 * it.n] = '\0';
			json_str(j, f->key, buf);
			continue;
		case RL_CM_BOOL:
			json_bool(j, f->key, it.value);
			break;
		default:
			json_u64(j, f->key, it.value);
			break;
		}
		if (f->words && (words = f->words(it.value))) {
			snprintf(key, sizeof(key), "%s_text", f->key);
			json_str(j, key, words);
		}
	}
	json_end(j);
	if (ex_cm_rdma(cm, &ps, &port, &h, &has_hdr)) {
		json_obj(j, "rdma_cm");
		json_str(j, "ps", rl_rdma_ps_name(ps));
		json_u64(j, "port", port);
		if (has_hdr) {
			json_u64(j, "ip_version", h.ip_version);
			ex_cm_ip(&h, h.src, buf, sizeof(buf));
			json_str(j, "src", buf);
			json_u64(j, "src_port", h.src_port);
			ex_cm_ip(&h, h.dst, buf, sizeof(buf));
			json_str(j, "dst", buf);
		}
		json_end(j);
	}
	json_end(j);
}
