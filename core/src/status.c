/* SPDX-License-Identifier: MIT */
/* Name tables for statuses and AETH values, and decode error messages. */
#include <stdio.h>

#include "rocelab/icrc.h"
#include "rocelab/packet.h"

static const struct {
	const char *tag, *reason;
} rl_status_table[RL_STATUS_COUNT] = {
#define RL_STATUS_ROW(name, tag, reason) [name] = { tag, reason },
	RL_STATUS_LIST(RL_STATUS_ROW)
#undef RL_STATUS_ROW
};

const char *rl_status_name(enum rl_status s)
{
	return (unsigned)s < RL_STATUS_COUNT ? rl_status_table[s].tag : "unknown-status";
}

const char *rl_status_reason(enum rl_status s)
{
	return (unsigned)s < RL_STATUS_COUNT ? rl_status_table[s].reason : "unknown status";
}

int rl_decode_error_str(enum rl_status st, const struct rl_pkt *pkt, char *buf, size_t n)
{
	switch (st) {
	case RL_E_TRUNC_L2: case RL_E_TRUNC_IP: case RL_E_TRUNC_UDP: case RL_E_TRUNC_BTH:
	case RL_E_TRUNC_ICRC:
		return snprintf(buf, n, "%s: needs %zu bytes at offset %zu, has %zu",
				rl_status_reason(st), pkt->err_need, pkt->err_off, pkt->err_have);
	case RL_E_MISSING_HDR:
		return snprintf(buf, n, "%s: %s needs %zu header bytes after the BTH, has %zu",
				rl_status_reason(st), pkt->op ? pkt->op->name : "?",
				pkt->err_need, pkt->err_have);
	case RL_E_UDP_LEN:
		return snprintf(buf, n, "%s: UDP says %zu bytes, IP says %zu",
				rl_status_reason(st), pkt->err_have, pkt->err_need);
	case RL_E_IP_LEN: case RL_E_IP_HDR_LEN:
		return snprintf(buf, n, "%s: length %zu, at least %zu needed",
				rl_status_reason(st), pkt->err_have, pkt->err_need);
	case RL_E_IP_VERSION:
		return snprintf(buf, n, "%s: version %zu, expected %zu",
				rl_status_reason(st), pkt->err_have, pkt->err_need);
	case RL_E_TVER:
		return snprintf(buf, n, "%s: TVer is %zu", rl_status_reason(st), pkt->err_have);
	case RL_E_PAD:
		return snprintf(buf, n, "%s: PadCnt %u with %zu payload bytes (%s)",
				rl_status_reason(st), pkt->bth.padcnt,
				pkt->icrc_off > pkt->payload_off ? pkt->icrc_off - pkt->payload_off : 0,
				pkt->op ? pkt->op->name : "?");
	case RL_E_PAYLOAD_LEN:
		return snprintf(buf, n, "%s: %s with %zu payload bytes (allowed: %zu)",
				rl_status_reason(st), pkt->op ? pkt->op->name : "?",
				pkt->err_have, pkt->err_need);
	case RL_E_GRH:
		return snprintf(buf, n, "%s: next header is 0x%02zx", rl_status_reason(st), pkt->err_have);
	case RL_E_ICRC:
		return snprintf(buf, n, "%s: carries 0x%08x, expected 0x%08x (wire order %08x)",
				rl_status_reason(st), pkt->icrc, pkt->icrc_expected, rl_icrc_display(pkt->icrc_expected));
	case RL_E_UNKNOWN_OPCODE:
		return snprintf(buf, n, "%s: opcode 0x%02x", rl_status_reason(st), pkt->bth.opcode);
	default:
		return snprintf(buf, n, "%s", rl_status_reason(st));
	}
}

const char *rl_aeth_type_name(enum rl_aeth_type t)
{
	static const char *const names[] = { "ACK", "RNR NAK", "reserved", "NAK" };

	return names[t & 3];
}

const char *rl_nak_code_name(uint8_t code)
{
	static const char *const names[] = {
		[RL_NAK_PSN_SEQ_ERR] = "PSN sequence error",
		[RL_NAK_INVALID_REQ] = "invalid request",
		[RL_NAK_REM_ACCESS_ERR] = "remote access error",
		[RL_NAK_REM_OP_ERR] = "remote operational error",
		[RL_NAK_INVALID_RD_REQ] = "invalid RD request",
	};

	return code < sizeof(names) / sizeof(names[0]) ? names[code] : "reserved NAK code";
}

const char *rl_nak_code_meaning(uint8_t code)
{
	switch (code) {
	case RL_NAK_PSN_SEQ_ERR:
		return "the responder saw a PSN later than it expected (a packet was lost); "
		       "the MSN and PSN say where to resume: the requester goes back and resends from that PSN";
	case RL_NAK_INVALID_REQ:
		return "the request is not valid for this QP (unsupported opcode, bad length, "
		       "or an operation the QP does not allow); the work request fails";
	case RL_NAK_REM_ACCESS_ERR:
		return "the R_Key, address range or access rights do not permit this RDMA or atomic "
		       "access at the responder; the work request fails with a remote access error";
	case RL_NAK_REM_OP_ERR:
		return "the responder could not complete the request (for example a local error "
		       "while writing memory); the work request fails";
	case RL_NAK_INVALID_RD_REQ:
		return "the RD request is invalid for the EE context";
	default:
		return "a reserved NAK code";
	}
}

/* IBA 9.7.5.2.8, Table 46: RNR NAK timer encoding, in microseconds. */
uint32_t rl_rnr_timer_us(uint8_t timer)
{
	static const uint32_t us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
		163840, 245760, 327680, 491520,
	};

	return us[timer & 0x1f];
}

/* IBA 9.7.7.2.4, Table 45: end-to-end credit encoding, the count of each code (31 is "invalid"). */
static const uint32_t rl_credits[RL_AETH_CREDITS_INVALID] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768,
	1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
};

int rl_credit_count(uint8_t value)
{
	value &= 0x1f;
	return value == RL_AETH_CREDITS_INVALID ? -1 : (int)rl_credits[value];
}

/*
 * The largest code whose count is at most @n. From 4 on, the counts go 2^k,
 * 3 * 2^(k-1), 2^(k+1): code 2k for 2^k, one more once bit k-1 is set too.
 */
uint8_t rl_credit_code(uint32_t n)
{
	unsigned k;

	if (n < 4)
		return (uint8_t)n;
	if (n >= rl_credits[RL_AETH_CREDITS_INVALID - 1])
		return RL_AETH_CREDITS_INVALID - 1;
#if defined(__GNUC__)
	k = 31u - (unsigned)__builtin_clz(n);
#else
	for (k = 2; n >> (k + 1); k++)
		;
#endif
	return (uint8_t)(2 * k + ((n >> (k - 1)) & 1));
}
