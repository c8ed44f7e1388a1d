/* SPDX-License-Identifier: MIT */
/*
 * Seed corpus for fuzz_cm (format: fz_cm.h): whole connections (RC accepted,
 * rejected, ignored, hung up; SIDR), a REQ flood at a deaf consumer, and each
 * CM message written by the core encoder (rl_cm_init/rl_cm_set) injected at
 * the moment it would matter, carrying the IDs of an id in play, plus the odd
 * ones: cut short, too long, another class or base version, method or Q_Key.
 *
 *   mkseeds_cm DIR      writes DIR/cm-<name>
 */
#include <stdio.h>
#include <string.h>

#include "rocelab/rocelab.h"
#include "rocelab/cm.h"
#include "fz_cm.h"

#define SEED_MAX 8192
#define SIDE1 FZ_CM_OP_SIDE
#define PORT 7174

struct seed {
	uint8_t b[SEED_MAX];
	size_t n;
};

static void put(struct seed *s, uint8_t v)
{
	if (s->n < SEED_MAX)
		s->b[s->n++] = v;
}

static void op(struct seed *s, uint8_t o) { put(s, o); }
static void wait_e(struct seed *s, uint8_t e) { put(s, FZ_CM_WAIT); put(s, e); }
static void act(struct seed *s, uint8_t side, enum fz_cm_act a, unsigned id)
{
	put(s, (uint8_t)(FZ_CM_ACT | side));
	put(s, (uint8_t)(a | id << FZ_CM_ACT_ID_SHIFT));
}

/* A MAD record: to @side, with @flags and @aux; @len 0 is the whole MAD. */
static void mad(struct seed *s, uint8_t side, uint8_t flags, uint8_t aux, uint8_t len, const struct rl_cm *cm)
{
	size_t n = len ? len : RL_MAD_LEN;

	put(s, (uint8_t)(FZ_CM_MAD | side));
	put(s, flags);
	put(s, aux);
	put(s, len);
	for (size_t i = 0; i < n; i++)
		put(s, cm->mad[i]);
}

/* rdma_cm's header at the start of the private data: from 10.0.0.1 port @sport to 10.0.0.2. */
static void cma_hdr(uint8_t *p, uint16_t sport)
{
	struct rl_cma_hdr h = { .version = RL_CMA_VERSION, .ip_version = 4, .src_port = sport };

	h.src[12] = 10, h.src[15] = 1;
	h.dst[12] = 10, h.dst[15] = 2;
	rl_cma_hdr_encode(&h, p);
}

/* A REQ as rping's would be, from communication ID @comm. */
static void fmt_req(struct rl_cm *cm, uint32_t comm)
{
	uint8_t pd[RL_CMA_HDR_LEN] = { 0 }, gid[16];
	static const uint8_t ip[2][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 } };

	rl_cm_init(cm, RL_CM_REQ, 1ull << 32 | comm);
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_COMM_ID, comm);
	rl_cm_set(cm, RL_CMF_REQ_SERVICE_ID, rl_cm_service_id(RL_RDMA_PS_TCP, PORT));
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_CA_GUID, 0x020000fffe000001ull);
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_QPN, 0x11);
	rl_cm_set(cm, RL_CMF_REQ_RESPONDER_RESOURCES, 1);
	rl_cm_set(cm, RL_CMF_REQ_INITIATOR_DEPTH, 1);
	rl_cm_set(cm, RL_CMF_REQ_REMOTE_CM_RESPONSE_TIMEOUT, 20);
	rl_cm_set(cm, RL_CMF_REQ_STARTING_PSN, 0x123456);
	rl_cm_set(cm, RL_CMF_REQ_LOCAL_CM_RESPONSE_TIMEOUT, 20);
	rl_cm_set(cm, RL_CMF_REQ_RETRY_COUNT, 7);
	rl_cm_set(cm, RL_CMF_REQ_PKEY, 0xffff);
	rl_cm_set(cm, RL_CMF_REQ_PATH_MTU, 3);
	rl_cm_set(cm, RL_CMF_REQ_RNR_RETRY_COUNT, 7);
	rl_cm_set(cm, RL_CMF_REQ_MAX_CM_RETRIES, 15);
	rl_gid_from_ipv4(gid, ip[0]);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIMARY_LOCAL_GID, gid, 16);
	rl_gid_from_ipv4(gid, ip[1]);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIMARY_REMOTE_GID, gid, 16);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_HOP_LIMIT, 64);
	rl_cm_set(cm, RL_CMF_REQ_PRIMARY_LOCAL_ACK_TIMEOUT, 19);
	cma_hdr(pd, 40000);
	rl_cm_set_bytes(cm, RL_CMF_REQ_PRIVATE_DATA, pd, sizeof(pd));
}

static void fmt_sidr_req(struct rl_cm *cm, uint32_t rid)
{
	uint8_t pd[RL_CMA_HDR_LEN];

	rl_cm_init(cm, RL_CM_SIDR_REQ, 1ull << 32 | rid);
	rl_cm_set(cm, RL_CMF_SIDR_REQ_REQUEST_ID, rid);
	rl_cm_set(cm, RL_CMF_SIDR_REQ_PKEY, 0xffff);
	rl_cm_set(cm, RL_CMF_SIDR_REQ_SERVICE_ID, rl_cm_service_id(RL_RDMA_PS_UDP, PORT));
	cma_hdr(pd, 40001);
	rl_cm_set_bytes(cm, RL_CMF_SIDR_REQ_PRIVATE_DATA, pd, sizeof(pd));
}

/* Any other message, its IDs left for the fuzzer to patch in; the fields that matter set sensibly. */
static void fmt_other(struct rl_cm *cm, uint16_t attr)
{
	rl_cm_init(cm, attr, 0);
	switch (attr) {
	case RL_CM_REP:
		rl_cm_set(cm, RL_CMF_REP_LOCAL_QPN, 0x12);
		rl_cm_set(cm, RL_CMF_REP_STARTING_PSN, 0x654321);
		rl_cm_set(cm, RL_CMF_REP_RESPONDER_RESOURCES, 1);
		rl_cm_set(cm, RL_CMF_REP_INITIATOR_DEPTH, 1);
		rl_cm_set(cm, RL_CMF_REP_TARGET_ACK_DELAY, 15);
		rl_cm_set(cm, RL_CMF_REP_RNR_RETRY_COUNT, 7);
		break;
	case RL_CM_REJ:
		rl_cm_set(cm, RL_CMF_REJ_REASON, 28);
		break;
	case RL_CM_MRA:
		rl_cm_set(cm, RL_CMF_MRA_SERVICE_TIMEOUT, 24);
		break;
	case RL_CM_DREQ:
		rl_cm_set(cm, RL_CMF_DREQ_REMOTE_QPN, 0x11);
		break;
	case RL_CM_SIDR_REP:
		rl_cm_set(cm, RL_CMF_SIDR_REP_QPN, 0x12);
		rl_cm_set(cm, RL_CMF_SIDR_REP_QKEY, 0x01234567);
		break;
	default:
		break;
	}
}

static int save(const char *dir, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/cm-%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(s->b, 1, s->n, fp) != s->n || fclose(fp) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

static void start(struct seed *s, uint8_t cfg)
{
	s->n = 0;
	put(s, cfg);
}

int main(int argc, char **argv)
{
	static const struct { uint16_t attr; const char *name; } msgs[] = {
		{ RL_CM_REP, "rep" }, { RL_CM_RTU, "rtu" }, { RL_CM_DREQ, "dreq" }, { RL_CM_DREP, "drep" },
		{ RL_CM_REJ, "rej" }, { RL_CM_MRA, "mra" }, { RL_CM_SIDR_REP, "sidr-rep" },
		{ RL_CM_LAP, "lap" }, { RL_CM_APR, "apr" },
	};
	static struct seed s;
	struct rl_cm cm;
	const char *dir;
	char name[64];
	int n = 0, bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];

	/* Whole conversations between the two agents. */
	start(&s, FZ_CM_CFG_RC | FZ_CM_CFG_HANGUP | FZ_CM_ACCEPT);
	op(&s, FZ_CM_PUMP), wait_e(&s, 36), op(&s, FZ_CM_PUMP), wait_e(&s, 36);
	bad |= save(dir, "rc-hangup", &s), n++;
	start(&s, FZ_CM_CFG_RC | FZ_CM_CFG_UD | FZ_CM_ACCEPT_LATE);
	op(&s, FZ_CM_PUMP), wait_e(&s, 30), op(&s, FZ_CM_PUMP), act(&s, SIDE1, FZ_CM_DO_DISCONNECT, 0);
	op(&s, FZ_CM_PUMP), wait_e(&s, 36);
	bad |= save(dir, "rc-ud-late", &s), n++;
	start(&s, FZ_CM_CFG_RC | FZ_CM_REJECT);
	op(&s, FZ_CM_PUMP), op(&s, FZ_CM_DELIVER), op(&s, FZ_CM_DELIVER | SIDE1);
	bad |= save(dir, "rc-reject", &s), n++;
	start(&s, FZ_CM_CFG_RC | FZ_CM_IGNORE);
	for (int i = 0; i < 20; i++)
		op(&s, FZ_CM_PUMP), wait_e(&s, 33);
	bad |= save(dir, "rc-ignored", &s), n++;
	start(&s, FZ_CM_CFG_RC | FZ_CM_ACCEPT);
	op(&s, FZ_CM_DELIVER), op(&s, FZ_CM_DROP | SIDE1), wait_e(&s, 33), op(&s, FZ_CM_PUMP);
	op(&s, FZ_CM_DROP), wait_e(&s, 33), op(&s, FZ_CM_PUMP);
	bad |= save(dir, "rc-losses", &s), n++;

	/* A REQ flood from many communication IDs at a consumer that never reads its events. */
	start(&s, FZ_CM_CFG_DEAF | FZ_CM_ACCEPT);
	for (uint32_t i = 0; i < 12; i++) {
		fmt_req(&cm, 0x1000 + i);
		mad(&s, SIDE1, (uint8_t)(i & 1 ? FZ_CM_FROM_STRANGER : FZ_CM_FROM_PEER), 0, 0, &cm);
	}
	bad |= save(dir, "req-flood-deaf", &s), n++;
	start(&s, FZ_CM_IGNORE | 1u << FZ_CM_CFG_BACKLOG_SHIFT);
	for (uint32_t i = 0; i < 12; i++) {
		fmt_sidr_req(&cm, 0x2000 + i);
		mad(&s, SIDE1, FZ_CM_FROM_PEER, 0, 0, &cm);
	}
	bad |= save(dir, "sidr-flood", &s), n++;

	/* The same REQ twice from the peer, then from a stranger. */
	start(&s, FZ_CM_ACCEPT);
	fmt_req(&cm, 0x3000);
	mad(&s, SIDE1, FZ_CM_FROM_PEER, 0, 0, &cm);
	mad(&s, SIDE1, FZ_CM_FROM_PEER, 0, 0, &cm);
	mad(&s, SIDE1, FZ_CM_FROM_STRANGER, 0, 0, &cm);
	mad(&s, SIDE1, FZ_CM_FROM_NOWHERE, 0, 0, &cm);
	bad |= save(dir, "req-dup", &s), n++;

	/* Each message, for each side and id, once the REQ has reached the passive side. */
	for (size_t m = 0; m < sizeof(msgs) / sizeof(msgs[0]); m++)
		for (uint8_t side = 0; side <= SIDE1; side += SIDE1)
			for (unsigned id = 0; id < 2; id++) {
				start(&s, FZ_CM_CFG_RC | FZ_CM_CFG_UD | FZ_CM_ACCEPT);
				op(&s, FZ_CM_DELIVER);
				fmt_other(&cm, msgs[m].attr);
				mad(&s, side, (uint8_t)(FZ_CM_PATCH_IDS | FZ_CM_PATCH_TID | id << FZ_CM_ID_SHIFT), 0, 0, &cm);
				op(&s, FZ_CM_PUMP), wait_e(&s, 33), op(&s, FZ_CM_PUMP);
				snprintf(name, sizeof(name), "%s-to%d-id%u", msgs[m].name, side ? 1 : 0, id);
				bad |= save(dir, name, &s), n++;
			}
	/* ... and once established. */
	for (size_t m = 0; m < sizeof(msgs) / sizeof(msgs[0]); m++) {
		start(&s, FZ_CM_CFG_RC | FZ_CM_ACCEPT);
		op(&s, FZ_CM_PUMP);
		fmt_other(&cm, msgs[m].attr);
		mad(&s, SIDE1, FZ_CM_PATCH_IDS | FZ_CM_PATCH_TID, 0, 0, &cm);
		mad(&s, 0, FZ_CM_PATCH_IDS | FZ_CM_PATCH_TID, 0, 0, &cm);
		op(&s, FZ_CM_PUMP), wait_e(&s, 36), op(&s, FZ_CM_PUMP);
		snprintf(name, sizeof(name), "%s-established", msgs[m].name);
		bad |= save(dir, name, &s), n++;
	}

	/* Odd MADs: cut short, too long, another base or class version, a response method, odd Q_Keys. */
	start(&s, FZ_CM_ACCEPT);
	fmt_req(&cm, 0x4000);
	mad(&s, SIDE1, 0, 0, 100, &cm);
	mad(&s, SIDE1, 0, FZ_CM_AUX_LONG, 0, &cm);
	mad(&s, SIDE1, FZ_CM_ODD_QKEY, 1, 0, &cm);
	mad(&s, SIDE1, FZ_CM_ODD_QKEY, 2, 0, &cm);
	/* Each odd one with its own communication ID, so that none is taken for a resend. */
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_COMM_ID, 0x4010);
	rl_cm_set(&cm, RL_CMF_MAD_BASE_VERSION, 2);
	mad(&s, SIDE1, 0, 0, 0, &cm);
	rl_cm_set(&cm, RL_CMF_MAD_BASE_VERSION, 1);
	rl_cm_set(&cm, RL_CMF_MAD_CLASS_VERSION, 1);
	mad(&s, SIDE1, 0, 0, 0, &cm);
	rl_cm_set(&cm, RL_CMF_MAD_CLASS_VERSION, 2);
	rl_cm_set(&cm, RL_CMF_MAD_METHOD, 0x81);
	mad(&s, SIDE1, 0, 0, 0, &cm);
	rl_cm_set(&cm, RL_CMF_MAD_METHOD, 3);
	rl_cm_set(&cm, RL_CMF_REQ_TRANSPORT_SERVICE_TYPE, 3);
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_COMM_ID, 0x4011);
	mad(&s, SIDE1, 0, 0, 0, &cm);
	rl_cm_set(&cm, RL_CMF_REQ_TRANSPORT_SERVICE_TYPE, 0);
	rl_cm_set(&cm, RL_CMF_REQ_PATH_MTU, 0);
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_COMM_ID, 0x4001);
	mad(&s, SIDE1, 0, 0, 0, &cm);
	rl_cm_set(&cm, RL_CMF_REQ_PATH_MTU, 15);
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_CM_RESPONSE_TIMEOUT, 31);
	rl_cm_set(&cm, RL_CMF_REQ_MAX_CM_RETRIES, 0);
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_COMM_ID, 0x4002);
	mad(&s, SIDE1, 0, 0, 0, &cm);
	wait_e(&s, 39), wait_e(&s, 39), wait_e(&s, 39);
	bad |= save(dir, "odd", &s), n++;

	if (bad)
		return 1;
	printf("mkseeds_cm: %d seeds in %s\n", n, dir);
	return 0;
}
