/* SPDX-License-Identifier: MIT */
/*
 * CM MADs (rocelab/cm.h): the field table expanded from cm_rows.h, the
 * decoder, encoder and iterator that read and write fields through it, the
 * words values have, and rdma_cm's CMA header and service IDs.
 */
#include <string.h>

#include "rocelab/cm.h"
#include "rocelab/describe.h"
#include "rocelab/hdr.h"
#include "rocelab/strbuf.h"

/* ---- words ------------------------------------------------------------------------------- */

const char *rl_mad_method_name(uint64_t method)
{
	switch (method) {
#define RL_MAD_METHOD_CASE(v, name) case v: return name;
	RL_MAD_METHOD_ROWS(RL_MAD_METHOD_CASE)
#undef RL_MAD_METHOD_CASE
	default: return NULL;
	}
}

/* REJ reasons, IBA 12.6.7.2 (Table 112 in Volume 1 Release 1.2.1). */
const char *rl_cm_rej_reason(uint64_t reason)
{
	switch (reason) {
	case 1: return "no QP available";
	case 2: return "no EE context available";
	case 3: return "no resources available";
	case 4: return "timeout";
	case 5: return "unsupported request";
	case 6: return "invalid communication ID";
	case 7: return "invalid communication instance";
	case 8: return "invalid service ID";
	case 9: return "invalid transport service type";
	case 10: return "stale connection";
	case 11: return "RD channel does not exist";
	case 12: return "primary remote port GID rejected";
	case 13: return "primary remote port LID rejected";
	case 14: return "invalid primary SL";
	case 15: return "invalid primary traffic class";
	case 16: return "invalid primary hop limit";
	case 17: return "invalid primary packet rate";
	case 18: return "alternate remote port GID rejected";
	case 19: return "alternate remote port LID rejected";
	case 20: return "invalid alternate SL";
	case 21: return "invalid alternate traffic class";
	case 22: return "invalid alternate hop limit";
	case 23: return "invalid alternate packet rate";
	case 24: return "port redirection";
	case 26: return "invalid path MTU";
	case 27: return "insufficient responder resources";
	case 28: return "consumer reject";
	case 29: return "invalid RNR retry count";
	case 30: return "duplicate local communication ID";
	case 31: return "unsupported class version";
	case 32: return "invalid primary flow label";
	case 33: return "invalid alternate flow label";
	case 35: return "vendor option not supported";
	default: return NULL;
	}
}

static const char *rl_cm_w_class(uint64_t v) { return v == RL_MGMT_CLASS_CM ? "Communication Management" : NULL; }

static const char *rl_cm_w_attr(uint64_t v)
{
	const struct rl_cm_msg *m = rl_cm_msg((uint16_t)v);

	return v == RL_CM_ATTR_CLASS_PORT_INFO ? "ClassPortInfo" : m ? m->name : NULL;
}

/* Transport service type, IBA 12.6.5. */
static const char *rl_cm_w_tst(uint64_t v)
{
	static const char *const t[] = { "RC", "UC", "RD", "reserved" };

	return t[v & 3];
}

/* Message MRAed / rejected, IBA 12.6.6 and 12.6.7. */
static const char *rl_cm_w_msg_ref(uint64_t v)
{
	static const char *const t[] = { "REQ", "REP", "other (LAP)", "reserved" };

	return t[v & 3];
}

/* A REJ's Message Rejected (IBA 12.6.7.1): "other" is no message at all (a timeout, a stray message). */
static const char *rl_cm_w_rej_ref(uint64_t v)
{
	static const char *const t[] = { "REQ", "REP", "other", "reserved" };

	return t[v & 3];
}

uint16_t rl_cm_answered_msg(const struct rl_cm *cm)
{
	uint64_t v;

	if (cm->attr == RL_CM_MRA)
		v = rl_cm_get(cm, RL_CMF_MRA_MESSAGE_MRAED);
	else if (cm->attr == RL_CM_REJ)
		v = rl_cm_get(cm, RL_CMF_REJ_MESSAGE_REJECTED);
	else
		return 0;
	switch (v) {
	case RL_CM_REF_REQ: return RL_CM_REQ;
	case RL_CM_REF_REP: return RL_CM_REP;
	case RL_CM_REF_OTHER: return cm->attr == RL_CM_MRA ? RL_CM_LAP : 0;
	default: return 0;
	}
}

/* Path MTU, the encoding of IBA 9.6.2's PMTU. */
static const char *rl_cm_w_mtu(uint64_t v)
{
	static const char *const t[] = { NULL, "256", "512", "1024", "2048", "4096" };

	return v < sizeof(t) / sizeof(t[0]) ? t[v] : NULL;
}

/* Static rate, IBA 9.11.1 (Table 63 in 1.2.1). */
static const char *rl_cm_w_rate(uint64_t v)
{
	static const char *const t[] = { NULL, NULL, "2.5 Gb/s", "10 Gb/s", "30 Gb/s", "5 Gb/s",
		"20 Gb/s", "40 Gb/s", "60 Gb/s", "80 Gb/s", "120 Gb/s", "14 Gb/s", "56 Gb/s",
		"112 Gb/s", "168 Gb/s", "25 Gb/s", "100 Gb/s", "200 Gb/s", "300 Gb/s" };

	return v < sizeof(t) / sizeof(t[0]) ? t[v] : NULL;
}

static const char *rl_cm_w_timeout(uint64_t v) { return v ? NULL : "0: none (the minimum)"; }

/* SIDR_REP status, IBA 12.11.2. */
static const char *rl_cm_w_sidr_status(uint64_t v)
{
	switch (v) {
	case 0: return "valid: the service has a QP";
	case 1: return "service ID not supported";
	case 2: return "rejected by the service provider";
	case 3: return "no QP available";
	case 4: return "redirect";
	case 5: return "unsupported class version";
	default: return NULL;
	}
}

static const char *rl_cm_w_sid(uint64_t v)
{
	uint16_t ps, port;

	if (!rl_cm_service_ps(v, &ps, &port))
		return NULL;
	switch (ps) {
	case RL_RDMA_PS_TCP: return "rdma_cm, RDMA_PS_TCP (port in the low 16 bits)";
	case RL_RDMA_PS_UDP: return "rdma_cm, RDMA_PS_UDP (port in the low 16 bits)";
	default: return "rdma_cm, RDMA_PS_IB (port in the low 16 bits)";
	}
}

/* ---- the tables ---------------------------------------------------------------------------- */

/* Display-filter groups, rocelab.cm.<group>.<key>, by message token. */
#define RL_CM_GRP_REQ "req"
#define RL_CM_GRP_MRA "mra"
#define RL_CM_GRP_REJ "rej"
#define RL_CM_GRP_REP "rep"
#define RL_CM_GRP_RTU "rtu"
#define RL_CM_GRP_DREQ "dreq"
#define RL_CM_GRP_DREP "drep"
#define RL_CM_GRP_SIDR_REQ "sidr_req"
#define RL_CM_GRP_SIDR_REP "sidr_rep"
#define RL_CM_GRP_LAP "lap"
#define RL_CM_GRP_APR "apr"


static const struct rl_cm_msg rl_cm_msgs[] = {
#define RL_CM_MSG_ROW(tok, id, abbr_, name_) { .attr = id, .abbr = abbr_, .name = name_, .filter = RL_CM_GRP_##tok },
	RL_CM_MSG_ROWS(RL_CM_MSG_ROW)
#undef RL_CM_MSG_ROW
};

/* Filter groups and where a message's offsets start, by the row's message token. */
#define RL_CM_ATTR_MAD 0
#define RL_CM_GRP_MAD "mad"
#define RL_CM_BASE_MAD 0
#define RL_CM_MSG_DEFS(tok, id, abbr, name) enum { RL_CM_ATTR_##tok = id, RL_CM_BASE_##tok = RL_MAD_HDR_LEN };
RL_CM_MSG_ROWS(RL_CM_MSG_DEFS)
#undef RL_CM_MSG_DEFS
#define RL_CM_FIELD_ROW(msg_, id, off_, bytes_, shift_, bits_, fmt_, digits_, key_, name_, words_, meaning_) \
	{ .msg = RL_CM_ATTR_##msg_, .name = name_, .key = key_,                                    \
	  .filter = "rocelab.cm." RL_CM_GRP_##msg_ "." key_, .off = (RL_CM_BASE_##msg_) + (off_),  \
	  .bytes = bytes_, .shift = shift_, .bits = bits_, .fmt = fmt_, .digits = digits_,          \
	  .words = words_, .meaning = meaning_ },

static const struct rl_cm_field rl_cm_fields[] = { RL_CM_FIELD_ROWS(RL_CM_FIELD_ROW) };

const struct rl_cm_field *rl_cm_field_table(size_t *count)
{
	*count = sizeof(rl_cm_fields) / sizeof(rl_cm_fields[0]);
	return rl_cm_fields;
}

const struct rl_cm_msg *rl_cm_msg(uint16_t attr)
{
	for (size_t i = 0; i < sizeof(rl_cm_msgs) / sizeof(rl_cm_msgs[0]); i++)
		if (rl_cm_msgs[i].attr == attr)
			return &rl_cm_msgs[i];
	return NULL;
}

/* ---- fields through their rows ----------------------------------------------------------- */

static bool rl_cm_numeric(const struct rl_cm_field *f) { return f->fmt != RL_CM_GID && f->fmt != RL_CM_DATA; }
static bool rl_cm_present(const struct rl_cm *cm, const struct rl_cm_field *f)
{
	return (size_t)f->off + f->bytes <= cm->len;
}

static uint64_t rl_cm_load(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static uint64_t rl_cm_mask(unsigned bits) { return ~0ull >> (64 - bits); }

static uint64_t rl_cm_field_get(const struct rl_cm *cm, const struct rl_cm_field *f)
{
	if (!rl_cm_numeric(f) || !rl_cm_present(cm, f))
		return 0;
	return rl_cm_load(cm->mad + f->off, f->bytes) >> f->shift & rl_cm_mask(f->bits);
}

uint64_t rl_cm_get(const struct rl_cm *cm, enum rl_cm_field_id id)
{
	return (unsigned)id < RL_CMF_COUNT ? rl_cm_field_get(cm, &rl_cm_fields[id]) : 0;
}

void rl_cm_set(struct rl_cm *cm, enum rl_cm_field_id id, uint64_t v)
{
	const struct rl_cm_field *f;
	uint64_t w, m;

	if ((unsigned)id >= RL_CMF_COUNT || !rl_cm_numeric(f = &rl_cm_fields[id]))
		return;
	m = rl_cm_mask(f->bits) << f->shift;
	w = (rl_cm_load(cm->mad + f->off, f->bytes) & ~m) | ((v << f->shift) & m);
	for (unsigned i = f->bytes; i-- > 0; w >>= 8)
		cm->mad[f->off + i] = (uint8_t)w;
}

const uint8_t *rl_cm_bytes(const struct rl_cm *cm, enum rl_cm_field_id id, size_t *n)
{
	const struct rl_cm_field *f;

	*n = 0;
	if ((unsigned)id >= RL_CMF_COUNT || rl_cm_numeric(f = &rl_cm_fields[id]) || !rl_cm_present(cm, f))
		return NULL;
	*n = f->bytes;
	return cm->mad + f->off;
}

void rl_cm_set_bytes(struct rl_cm *cm, enum rl_cm_field_id id, const uint8_t *p, size_t n)
{
	const struct rl_cm_field *f;

	if ((unsigned)id >= RL_CMF_COUNT || rl_cm_numeric(f = &rl_cm_fields[id]))
		return;
	if (n > f->bytes)
		n = f->bytes;
	memset(cm->mad + f->off, 0, f->bytes);
	if (n)
		memcpy(cm->mad + f->off, p, n);
}

/* ---- decode, encode, iterate ----------------------------------------------------------- */

bool rl_cm_is_gsi(const struct rl_pkt *pkt)
{
	return pkt->op && pkt->bth.opcode == RL_OP_UD_SEND_ONLY && pkt->bth.dqpn == RL_GSI_QPN &&
	       pkt->deth.qkey == RL_GSI_QKEY;
}

const char *rl_cm_status_reason(enum rl_cm_status st)
{
	switch (st) {
	case RL_CM_OK: return "a CM MAD";
	case RL_CM_TRUNC: return "a CM MAD cut short: a MAD is 256 bytes";
	case RL_CM_NOT_CM: return "not a CM MAD (too short for the MAD header, or another management class)";
	case RL_CM_UNKNOWN_ATTR: return "a CM MAD whose attribute ID is no CM message";
	}
	return "?";
}

enum rl_cm_status rl_cm_decode(const uint8_t *data, size_t len, struct rl_cm *cm)
{
	memset(cm, 0, sizeof(*cm));
	cm->len = len < RL_MAD_LEN ? len : RL_MAD_LEN;
	if (cm->len)
		memcpy(cm->mad, data, cm->len);
	if (cm->len < RL_MAD_HDR_LEN) {
		cm->len = 0;
		return RL_CM_NOT_CM;
	}
	cm->attr = (uint16_t)rl_cm_get(cm, RL_CMF_MAD_ATTR_ID);
	if (cm->mad[1] != RL_MGMT_CLASS_CM)
		return RL_CM_NOT_CM;   /* another class's MAD: its common header still reads */
	cm->msg = rl_cm_msg(cm->attr);
	if (!cm->msg)
		return RL_CM_UNKNOWN_ATTR;
	return cm->len < RL_MAD_LEN ? RL_CM_TRUNC : RL_CM_OK;
}

void rl_cm_init(struct rl_cm *cm, uint16_t attr, uint64_t tid)
{
	memset(cm, 0, sizeof(*cm));
	cm->len = RL_MAD_LEN;
	cm->attr = attr;
	cm->msg = rl_cm_msg(attr);
	rl_cm_set(cm, RL_CMF_MAD_BASE_VERSION, RL_MAD_BASE_VERSION);
	rl_cm_set(cm, RL_CMF_MAD_MGMT_CLASS, RL_MGMT_CLASS_CM);
	rl_cm_set(cm, RL_CMF_MAD_CLASS_VERSION, RL_CM_CLASS_VERSION);
	rl_cm_set(cm, RL_CMF_MAD_METHOD, RL_MAD_METHOD_SEND);
	rl_cm_set(cm, RL_CMF_MAD_TID, tid);
	rl_cm_set(cm, RL_CMF_MAD_ATTR_ID, attr);
}

enum rl_status rl_cm_encode(const struct rl_cm *cm, uint8_t *buf, size_t cap, size_t *out_len)
{
	*out_len = 0;
	if (cap < RL_MAD_LEN)
		return RL_E_NOSPACE;
	memcpy(buf, cm->mad, RL_MAD_LEN);
	*out_len = RL_MAD_LEN;
	return RL_OK;
}

void rl_cm_iter_init(struct rl_cm_iter *it, const struct rl_cm *cm)
{
	memset(it, 0, sizeof(*it));
	it->cm = cm;
}

const struct rl_cm_field *rl_cm_next(struct rl_cm_iter *it)
{
	const size_t n = sizeof(rl_cm_fields) / sizeof(rl_cm_fields[0]);

	while (it->i < n) {
		const struct rl_cm_field *f = &rl_cm_fields[it->i++];

		if (f->msg != 0 && (!it->cm->msg || f->msg != it->cm->attr))
			continue;
		if (!rl_cm_present(it->cm, f))
			continue;
		it->value = rl_cm_field_get(it->cm, f);
		it->bytes = rl_cm_numeric(f) ? NULL : it->cm->mad + f->off;
		it->n = rl_cm_numeric(f) ? 0 : f->bytes;
		return f;
	}
	return NULL;
}

/* ---- rdma_cm ----------------------------------------------------------------------------- */

/* rdma_cm's IP port spaces sit at 0x0000000001xx0000 (librdmacm's RDMA_IB_IP_PS_*). */
#define RL_CM_IP_PS_MASK 0xffffffffffff0000ull

uint64_t rl_cm_service_id(uint16_t ps, uint16_t port)
{
	return 0x0000000001000000ull | (uint64_t)ps << 16 | port;
}

bool rl_cm_service_ps(uint64_t sid, uint16_t *ps, uint16_t *port)
{
	uint64_t p = (sid & RL_CM_IP_PS_MASK) >> 16;

	if (p != RL_RDMA_PS_TCP && p != RL_RDMA_PS_UDP && p != RL_RDMA_PS_IB)
		return false;
	*ps = (uint16_t)p;
	*port = (uint16_t)sid;
	return true;
}

const char *rl_rdma_ps_name(uint16_t ps)
{
	switch (ps) {
	case RL_RDMA_PS_TCP: return "RDMA_PS_TCP";
	case RL_RDMA_PS_UDP: return "RDMA_PS_UDP";
	case RL_RDMA_PS_IB: return "RDMA_PS_IB";
	default: return NULL;
	}
}

/*
 * The ports the tools learners run listen on unless told otherwise: rping's
 * and udaddy's -p, cmatose's (ucmatose) -p and perftest's -p (with -R) in
 * rdma-core's librdmacm/examples and perftest.
 */
static const struct {
	uint16_t ps, port;
	const char *who;
} rl_rdma_tool_ports[] = {
	{ RL_RDMA_PS_TCP, 7174, "rping's default" },
	{ RL_RDMA_PS_UDP, 7174, "udaddy's default" },
	{ RL_RDMA_PS_TCP, 7471, "ucmatose's default" },
	{ RL_RDMA_PS_TCP, 18515, "perftest's default" },
	{ RL_RDMA_PS_UDP, 18515, "perftest's default" },
};

const char *rl_rdma_port_owner(uint16_t ps, uint16_t port)
{
	for (size_t i = 0; i < sizeof(rl_rdma_tool_ports) / sizeof(rl_rdma_tool_ports[0]); i++)
		if (rl_rdma_tool_ports[i].ps == ps && rl_rdma_tool_ports[i].port == port)
			return rl_rdma_tool_ports[i].who;
	return NULL;
}

/* " port 7174 (rping's default)" */
static void rl_cm_sb_port(struct rl_sb *sb, uint16_t ps, uint16_t port)
{
	const char *who = rl_rdma_port_owner(ps, port);

	rl_sb_puts(sb, "port ");
	rl_sb_u64(sb, port);
	if (who) {
		rl_sb_puts(sb, " (");
		rl_sb_puts(sb, who);
		rl_sb_puts(sb, ")");
	}
}

bool rl_cma_hdr_decode(const uint8_t *p, size_t len, struct rl_cma_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len < RL_CMA_HDR_LEN || p[0] != RL_CMA_VERSION)
		return false;
	h->version = p[0];
	h->ip_version = p[1] >> 4;
	if (h->ip_version != 4 && h->ip_version != 6)
		return false;
	h->src_port = rl_get16(p + 2);
	memcpy(h->src, p + 4, 16);
	memcpy(h->dst, p + 20, 16);
	return true;
}

void rl_cma_hdr_encode(const struct rl_cma_hdr *h, uint8_t *p)
{
	p[0] = h->version;
	p[1] = (uint8_t)(h->ip_version << 4);
	rl_put16(p + 2, h->src_port);
	memcpy(p + 4, h->src, 16);
	memcpy(p + 20, h->dst, 16);
}

/* ---- one line ---------------------------------------------------------------------------- */

/* rdma_cm's addresses: IPv4 in the last four of 16 bytes. */
static void rl_sb_ip(struct rl_sb *sb, const uint8_t *a16, unsigned ipver)
{
	if (ipver == 4)
		rl_sb_ipv4(sb, a16 + 12);
	else
		rl_sb_ipv6(sb, a16);
}

size_t rl_cm_describe(const struct rl_cm *cm, char *buf, size_t n)
{
	struct rl_sb sb;
	struct rl_cma_hdr h;
	const uint8_t *pd;
	size_t pdn;
	uint16_t ps, port;
	const char *w;

	rl_sb_init(&sb, buf, n);
	if (!cm->msg) {
		rl_sb_puts(&sb, "MAD class ");
		rl_sb_hex(&sb, cm->len ? cm->mad[1] : 0, 2);
		if (cm->len) {
			rl_sb_puts(&sb, " attribute ");
			rl_sb_hex(&sb, cm->attr, 4);
		}
		return sb.len;
	}
	rl_sb_puts(&sb, "CM ");
	rl_sb_puts(&sb, cm->msg->abbr);
	rl_sb_puts(&sb, " (");
	rl_sb_puts(&sb, cm->msg->name);
	rl_sb_puts(&sb, ")");
	if (cm->len < RL_MAD_LEN) {
		rl_sb_puts(&sb, " truncated");
		return sb.len;
	}
	switch (cm->attr) {
	case RL_CM_SIDR_REQ:
	case RL_CM_SIDR_REP:
		rl_sb_puts(&sb, " request ID ");
		rl_sb_hex(&sb, rl_cm_get(cm, RL_CMF_SIDR_REQ_REQUEST_ID), 8);
		break;
	default:
		rl_sb_puts(&sb, " comm ID ");
		rl_sb_hex(&sb, rl_cm_get(cm, RL_CMF_REQ_LOCAL_COMM_ID), 8); /* byte 0 of every message */
		if (cm->attr != RL_CM_REQ) {
			rl_sb_puts(&sb, " remote ");
			rl_sb_hex(&sb, rl_cm_get(cm, RL_CMF_REP_REMOTE_COMM_ID), 8);
		}
	}
	switch (cm->attr) {
	case RL_CM_REQ:
		rl_sb_puts(&sb, " QPN ");
		rl_sb_hex(&sb, rl_cm_get(cm, RL_CMF_REQ_LOCAL_QPN), 6);
		rl_sb_puts(&sb, " PSN ");
		rl_sb_u64(&sb, rl_cm_get(cm, RL_CMF_REQ_STARTING_PSN));
		if (rl_cm_service_ps(rl_cm_get(cm, RL_CMF_REQ_SERVICE_ID), &ps, &port)) {
			pd = rl_cm_bytes(cm, RL_CMF_REQ_PRIVATE_DATA, &pdn);
			rl_sb_puts(&sb, " rdma_cm connect to ");
			if (rl_cma_hdr_decode(pd, pdn, &h)) {
				rl_sb_ip(&sb, h.dst, h.ip_version);
				rl_sb_puts(&sb, " ");
			}
			rl_cm_sb_port(&sb, ps, port);
		}
		break;
	case RL_CM_REP:
		rl_sb_puts(&sb, " QPN ");
		rl_sb_hex(&sb, rl_cm_get(cm, RL_CMF_REP_LOCAL_QPN), 6);
		rl_sb_puts(&sb, " PSN ");
		rl_sb_u64(&sb, rl_cm_get(cm, RL_CMF_REP_STARTING_PSN));
		break;
	case RL_CM_REJ:
		rl_sb_puts(&sb, " reason ");
		rl_sb_u64(&sb, rl_cm_get(cm, RL_CMF_REJ_REASON));
		w = rl_cm_rej_reason(rl_cm_get(cm, RL_CMF_REJ_REASON));
		rl_sb_puts(&sb, ": ");
		rl_sb_puts(&sb, w ? w : "reserved");
		break;
	case RL_CM_DREQ:
		rl_sb_puts(&sb, " QPN ");
		rl_sb_hex(&sb, rl_cm_get(cm, RL_CMF_DREQ_REMOTE_QPN), 6);
		break;
	case RL_CM_MRA:
		rl_sb_puts(&sb, " for ");
		rl_sb_puts(&sb, rl_cm_w_msg_ref(rl_cm_get(cm, RL_CMF_MRA_MESSAGE_MRAED)));
		break;
	case RL_CM_SIDR_REQ:
		if (rl_cm_service_ps(rl_cm_get(cm, RL_CMF_SIDR_REQ_SERVICE_ID), &ps, &port)) {
			rl_sb_puts(&sb, " rdma_cm resolve ");
			rl_cm_sb_port(&sb, ps, port);
		}
		break;
	case RL_CM_SIDR_REP:
		rl_sb_puts(&sb, " QPN ");
		rl_sb_hex(&sb, rl_cm_get(cm, RL_CMF_SIDR_REP_QPN), 6);
		rl_sb_puts(&sb, " status ");
		rl_sb_u64(&sb, rl_cm_get(cm, RL_CMF_SIDR_REP_STATUS));
		break;
	default:
		break;
	}
	return sb.len;
}
