/* SPDX-License-Identifier: MIT */
/*
 * Communication management on the wire: the MAD common header (IBA 13.4.2)
 * and the CM messages of IBA 12.6 (REQ .. APR, SIDR_REQ/SIDR_REP), and the
 * header rdma_cm puts in the private data of a REQ.
 *
 * A CM MAD is the 256-byte payload of a UD SEND Only to QP1 (the GSI) with
 * Q_Key 0x80010000. rl_decode() does not look into payloads, so ordinary
 * packets pay nothing for CM: a printer that wants the MAD calls
 * rl_cm_decode() on pkt->payload when rl_cm_is_gsi(pkt) says it is one.
 *
 * The fields are declared once, as rows (rocelab/cm_rows.h), in the manner
 * of the transport field table (rocelab/field.h): name, JSON key, filter
 * name rocelab.cm.<message>.<key>, message, byte offset, bit width, format
 * and meaning. A decoded message is its bytes; rl_cm_get() and rl_cm_set()
 * read and write a field through its row, and rl_cm_next() walks the fields
 * a message carries. No field is written down anywhere else.
 */
#ifndef ROCELAB_CM_H
#define ROCELAB_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/cm_rows.h"
#include "rocelab/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RL_GSI_QPN 1u               /* QP1, the General Service Interface (IBA 13.5.1) */
#define RL_GSI_QKEY 0x80010000u     /* the well-known Q_Key of QP1 (IBA 13.5.1) */
#define RL_MAD_LEN 256u             /* every MAD is 256 bytes (IBA 13.4.2) */
#define RL_MAD_HDR_LEN 24u          /* the common MAD header */
#define RL_MAD_BASE_VERSION 1u
#define RL_MGMT_CLASS_CM 0x07u      /* Communication Management (IBA 13.4.4) */
#define RL_CM_CLASS_VERSION 2u      /* IBA 1.2 and later */
#define RL_MAD_METHOD_SEND 0x03u    /* how every CM message travels (IBA 12.6) */

/* MAD methods (IBA 13.4.5, Table 104); bit 7 is set in a response. */
#define RL_MAD_METHOD_ROWS(X)                                                                      \
	X(0x01, "Get") X(0x02, "Set") X(0x03, "Send") X(0x05, "Trap") X(0x06, "Report")           \
	X(0x07, "TrapRepress") X(0x12, "GetTable") X(0x13, "GetTraceTable") X(0x14, "GetMulti")   \
	X(0x15, "Delete") X(0x81, "GetResp") X(0x86, "ReportResp") X(0x92, "GetTableResp")        \
	X(0x94, "GetMultiResp") X(0x95, "DeleteResp")

/*
 * The CM messages by attribute ID (IBA 12.6, Table 104's CM attributes):
 *   M(token, attribute ID, abbreviation, IBA name)
 */
#define RL_CM_MSG_ROWS(M)                                                                          \
	M(REQ, 0x0010, "REQ", "ConnectRequest")                                             \
	M(MRA, 0x0011, "MRA", "MsgRcptAck")                                                 \
	M(REJ, 0x0012, "REJ", "ConnectReject")                                              \
	M(REP, 0x0013, "REP", "ConnectReply")                                               \
	M(RTU, 0x0014, "RTU", "ReadyToUse")                                                 \
	M(DREQ, 0x0015, "DREQ", "DisconnectRequest")                                       \
	M(DREP, 0x0016, "DREP", "DisconnectReply")                                         \
	M(SIDR_REQ, 0x0017, "SIDR_REQ", "ServiceIDResReq")                             \
	M(SIDR_REP, 0x0018, "SIDR_REP", "ServiceIDResReqResp")                         \
	M(LAP, 0x0019, "LAP", "LoadAlternatePath")                                          \
	M(APR, 0x001a, "APR", "AlternatePathResponse")

enum rl_cm_attr {
	RL_CM_ATTR_CLASS_PORT_INFO = 0x0001,
#define RL_CM_ATTR_ENUM(tok, id, abbr, name) RL_CM_##tok = id,
	RL_CM_MSG_ROWS(RL_CM_ATTR_ENUM)
#undef RL_CM_ATTR_ENUM
};

/* A CM message type. */
struct rl_cm_msg {
	uint16_t attr;          /* attribute ID */
	const char *abbr;       /* "REQ" */
	const char *name;       /* "ConnectRequest" */
	const char *filter;     /* "req": rocelab.cm.req.* */
};
/* The message with attribute ID @attr, or NULL. */
const struct rl_cm_msg *rl_cm_msg(uint16_t attr);

/* How a CM field is shown. */
enum rl_cm_fmt {
	RL_CM_DEC,              /* 42 */
	RL_CM_HEX,              /* 0x2a, to rl_cm_field.digits digits */
	RL_CM_BOOL,             /* a one-bit flag */
	RL_CM_GID,              /* 16 bytes, an IPv6 address (a RoCE GID) */
	RL_CM_DATA,             /* bytes: private data, ARI, additional information */
};

struct rl_cm_field {
	uint16_t msg;           /* attribute ID, 0 for the MAD header */
	const char *name;       /* "Local QPN" */
	const char *key;        /* "local_qpn": the JSON key */
	const char *filter;     /* "rocelab.cm.req.local_qpn" */
	uint8_t off;            /* first byte, from the start of the MAD */
	uint8_t bytes;          /* bytes spanned: 1, 2, 3, 4, 8; or the length of a GID or DATA field */
	uint8_t shift;          /* bits to its right within those bytes */
	uint8_t bits;           /* width (0 for GID and DATA) */
	uint8_t fmt;            /* enum rl_cm_fmt */
	uint8_t digits;         /* hex digits */
	const char *(*words)(uint64_t v); /* words for a value, or NULL */
	const char *meaning;    /* one line: what the field is for */
};

/* One name per row of cm_rows.h: RL_CMF_REQ_LOCAL_QPN, RL_CMF_MAD_TID, ... */
enum rl_cm_field_id {
#define RL_CM_FIELD_ENUM(msg, id, ...) RL_CMF_##msg##_##id,
	RL_CM_FIELD_ROWS(RL_CM_FIELD_ENUM)
#undef RL_CM_FIELD_ENUM
	RL_CMF_COUNT
};

const struct rl_cm_field *rl_cm_field_table(size_t *count);

/* A CM MAD: its bytes (decoded, or being built for encoding). */
struct rl_cm {
	uint8_t mad[RL_MAD_LEN];
	size_t len;             /* bytes present: RL_MAD_LEN, or fewer in a truncated MAD */
	uint16_t attr;          /* attribute ID */
	const struct rl_cm_msg *msg; /* NULL for an attribute that is no CM message */
};

/* What rl_cm_decode() found. */
enum rl_cm_status {
	RL_CM_OK,
	RL_CM_TRUNC,            /* shorter than 256 bytes: the fields that fit are valid */
	RL_CM_NOT_CM,           /* shorter than the MAD header, or not class 0x07 */
	RL_CM_UNKNOWN_ATTR,     /* a CM MAD whose attribute is no CM message: header only */
};
const char *rl_cm_status_reason(enum rl_cm_status st);

/* Does @pkt carry a MAD for the GSI: a UD SEND Only to QP1 with the GSI's Q_Key? */
bool rl_cm_is_gsi(const struct rl_pkt *pkt);

/* Decode @len bytes of a MAD. Never reads outside data[0..len); bytes past 256 are ignored. */
enum rl_cm_status rl_cm_decode(const uint8_t *data, size_t len, struct rl_cm *cm);

/* Start a message for encoding: zero bytes, base version 1, class CM, version 2, Send, @attr, @tid. */
void rl_cm_init(struct rl_cm *cm, uint16_t attr, uint64_t tid);
/* Write the 256-byte MAD into @buf; RL_E_NOSPACE if @cap is short. */
enum rl_status rl_cm_encode(const struct rl_cm *cm, uint8_t *buf, size_t cap, size_t *out_len);

/* A numeric field's value (0 if absent from @cm's bytes or not numeric). */
uint64_t rl_cm_get(const struct rl_cm *cm, enum rl_cm_field_id id);
/* Set a numeric field (its bits only; the value is cut to its width). */
void rl_cm_set(struct rl_cm *cm, enum rl_cm_field_id id, uint64_t v);
/* A GID or DATA field's bytes, *n its length (0 and NULL if absent). */
const uint8_t *rl_cm_bytes(const struct rl_cm *cm, enum rl_cm_field_id id, size_t *n);
/* Copy @n bytes (at most the field's length; the rest zero) into a GID or DATA field. */
void rl_cm_set_bytes(struct rl_cm *cm, enum rl_cm_field_id id, const uint8_t *p, size_t n);

/*
 * The fields @cm carries, in wire order: the MAD header's, then its
 * message's, those that fit in cm->len.
 *     struct rl_cm_iter it;
 *     rl_cm_iter_init(&it, cm);
 *     while ((f = rl_cm_next(&it)))  ... it.value, or it.bytes/it.n ...
 */
struct rl_cm_iter {
	const struct rl_cm *cm;
	size_t i;
	uint64_t value;         /* numeric fields */
	const uint8_t *bytes;   /* GID and DATA fields */
	size_t n;
};
void rl_cm_iter_init(struct rl_cm_iter *it, const struct rl_cm *cm);
const struct rl_cm_field *rl_cm_next(struct rl_cm_iter *it);

/*
 * What an MRA's Message MRAed and a REJ's Message Rejected hold (IBA
 * 12.6.6, 12.6.7.1): the message answered. OTHER is a LAP for an MRA, and
 * no message at all for a REJ (a timeout, a stray message).
 */
enum rl_cm_msg_ref { RL_CM_REF_REQ = 0, RL_CM_REF_REP = 1, RL_CM_REF_OTHER = 2 };
/* The attribute of the message an MRA or REJ answers (RL_CM_REQ, RL_CM_REP, RL_CM_LAP), or 0. */
uint16_t rl_cm_answered_msg(const struct rl_cm *cm);

/* Words for a MAD method, a CM REJ reason (IBA 12.6.7.2, Table 112 of 1.2.1) and more; NULL if none. */
const char *rl_mad_method_name(uint64_t method);
const char *rl_cm_rej_reason(uint64_t reason);

/*
 * rdma_cm (librdmacm and the kernel's cma.c): the service ID of an IP port
 * space is 0x0000000001000000 | ps << 16 | port, and the private data of a
 * REQ starts with the CMA header: version 0, the IP version in the high
 * nibble of the next byte, the active side's port, then its source and the
 * destination IP address, 16 bytes each (IPv4 in the last four).
 */
#define RL_RDMA_PS_TCP 0x0106u
#define RL_RDMA_PS_UDP 0x0111u
#define RL_RDMA_PS_IB 0x013fu
#define RL_CMA_HDR_LEN 36u
/* The private data of a REQ and a SIDR_REQ (IBA 12.6.5, 12.11.1; the PRIVATE_DATA rows of cm_rows.h). */
#define RL_CM_REQ_PRIVATE_DATA_LEN 92u
#define RL_CM_SIDR_REQ_PRIVATE_DATA_LEN 216u
#define RL_CMA_VERSION 0u

struct rl_cma_hdr {
	uint8_t version;
	uint8_t ip_version;     /* 4 or 6 */
	uint16_t src_port;
	uint8_t src[16], dst[16]; /* IPv4: the address in bytes 12..15 */
};

uint64_t rl_cm_service_id(uint16_t ps, uint16_t port);
/* Is @sid an rdma_cm IP port-space service ID? Then its port space and port. */
bool rl_cm_service_ps(uint64_t sid, uint16_t *ps, uint16_t *port);
/* "RDMA_PS_TCP", or NULL. */
const char *rl_rdma_ps_name(uint16_t ps);
/* Which tool listens on @port of port space @ps by default: "rping's default", or NULL. */
const char *rl_rdma_port_owner(uint16_t ps, uint16_t port);
/* Read a CMA header: false if @len is short, the version is not 0 or the IP version not 4 or 6. */
bool rl_cma_hdr_decode(const uint8_t *p, size_t len, struct rl_cma_hdr *h);
/* Write RL_CMA_HDR_LEN bytes. */
void rl_cma_hdr_encode(const struct rl_cma_hdr *h, uint8_t *p);

/*
 * One line for people: "CM REQ (ConnectRequest) comm ID 0x1a2b3c4d QPN
 * 0x000011 PSN 1234 rdma_cm connect to 10.0.0.2 port 7174 (rping's
 * default)"; a REJ gives its reason in words. Returns the length written
 * (truncated to @n).
 */
size_t rl_cm_describe(const struct rl_cm *cm, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
