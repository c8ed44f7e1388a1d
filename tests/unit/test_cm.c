/* SPDX-License-Identifier: MIT */
/*
 * CM MADs (rocelab/cm.h): the rows against the layouts of IBA 13.4.2 and
 * 12.6, decode of byte strings typed from the spec's tables (offsets counted
 * by hand here, not taken from cm_rows.h), round trips of every message,
 * truncated input, REJ reasons in words, rdma_cm's CMA header and service
 * IDs, and the one-line description.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/* A MAD header as IBA 13.4.2 lays it out: CM class, version 2, Send. */
static void mad_hdr(uint8_t *m, uint16_t attr, uint64_t tid)
{
	memset(m, 0, RL_MAD_LEN);
	m[0] = 1;                 /* BaseVersion */
	m[1] = 0x07;              /* MgmtClass: CM */
	m[2] = 2;                 /* ClassVersion */
	m[3] = 0x03;              /* R = 0, Method = Send */
	for (int i = 0; i < 8; i++)
		m[8 + i] = (uint8_t)(tid >> (56 - 8 * i));
	m[16] = (uint8_t)(attr >> 8);
	m[17] = (uint8_t)attr;
}

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Every row lies inside the MAD, numeric widths fit, no two fields of a message share a bit. */
static void test_rows(void)
{
	size_t n;
	const struct rl_cm_field *t = rl_cm_field_table(&n);

	CU_ASSERT_EQUAL(n, RL_CMF_COUNT);
	for (size_t i = 0; i < n; i++) {
		const struct rl_cm_field *f = &t[i];

		CU_ASSERT_TRUE(f->off + f->bytes <= RL_MAD_LEN);
		CU_ASSERT_TRUE(f->msg == 0 || rl_cm_msg(f->msg) != NULL);
		CU_ASSERT_TRUE(f->msg == 0 ? f->off + f->bytes <= RL_MAD_HDR_LEN : f->off >= RL_MAD_HDR_LEN);
		CU_ASSERT_TRUE(f->name && *f->name && f->key && *f->key && f->meaning && *f->meaning);
		CU_ASSERT_TRUE(strncmp(f->filter, "rocelab.cm.", 11) == 0);
		if (f->fmt == RL_CM_GID)
			CU_ASSERT_EQUAL(f->bytes, 16);
		if (f->fmt != RL_CM_GID && f->fmt != RL_CM_DATA)
			CU_ASSERT_TRUE(f->bits >= 1 && f->shift + f->bits <= 8u * f->bytes && f->bytes <= 8);
		for (size_t j = 0; j < i; j++) {
			const struct rl_cm_field *g = &t[j];
			unsigned fa, fb, ga, gb;

			if (g->msg != f->msg)
				continue;
			CU_ASSERT_STRING_NOT_EQUAL(g->key, f->key);
			CU_ASSERT_STRING_NOT_EQUAL(g->filter, f->filter);
			fb = 8u * (f->off + f->bytes) - f->shift;
			fa = fb - (f->bits ? f->bits : 8u * f->bytes);
			gb = 8u * (g->off + g->bytes) - g->shift;
			ga = gb - (g->bits ? g->bits : 8u * g->bytes);
			CU_ASSERT_TRUE(fb <= ga || gb <= fa);
		}
	}
	/* Every message has its private data, and it runs to the end of the MAD (IBA 12.6). */
	static const struct { uint16_t attr; unsigned off, len; } pd[] = {
		{ RL_CM_REQ, 164, 92 }, { RL_CM_MRA, 34, 222 }, { RL_CM_REJ, 108, 148 },
		{ RL_CM_REP, 60, 196 }, { RL_CM_RTU, 32, 224 }, { RL_CM_DREQ, 36, 220 },
		{ RL_CM_DREP, 32, 224 }, { RL_CM_SIDR_REQ, 40, 216 }, { RL_CM_SIDR_REP, 120, 136 },
		{ RL_CM_LAP, 88, 168 }, { RL_CM_APR, 108, 148 },
	};
	for (size_t k = 0; k < sizeof(pd) / sizeof(pd[0]); k++) {
		bool found = false;

		for (size_t i = 0; i < n; i++)
			if (t[i].msg == pd[k].attr && strcmp(t[i].key, "private_data") == 0) {
				CU_ASSERT_EQUAL(t[i].off, pd[k].off);
				CU_ASSERT_EQUAL(t[i].bytes, pd[k].len);
				found = true;
			}
		CU_ASSERT_TRUE(found);
	}
}

/* A REQ typed from IBA Table 106 (offsets from the MAD's start = the table's + 24). */
static void test_req_layout(void)
{
	uint8_t m[RL_MAD_LEN];
	struct rl_cm cm;
	size_t n;
	const uint8_t *g;

	mad_hdr(m, 0x0010, 0x1122334455667788ull);
	put(m + 24, 0xa1b2c3d4, 4);               /* Local Communication ID */
	put(m + 32, 0x0000000001061c06ull, 8);    /* Service ID: RDMA_PS_TCP, port 7174 */
	put(m + 40, 0x0002c9fffe010203ull, 8);    /* Local CA GUID */
	put(m + 52, 0x11111111, 4);               /* Local Q_Key */
	put(m + 56, 0x000011, 3);                 /* Local QPN */
	m[59] = 4;                                /* Responder Resources */
	put(m + 60, 0x000022, 3);                 /* Local EECN */
	m[63] = 3;                                /* Initiator Depth */
	put(m + 64, 0x000033, 3);                 /* Remote EECN */
	m[67] = 20 << 3 | 0 << 1 | 1;             /* Remote CM Response Timeout, TST RC, E2E flow control */
	put(m + 68, 1684112, 3);                  /* Starting PSN */
	m[71] = 21 << 3 | 7;                      /* Local CM Response Timeout, Retry Count */
	put(m + 72, 0xffff, 2);                   /* Partition Key */
	m[74] = 3 << 4 | 0 << 3 | 6;              /* Path MTU 1024, RDC exists 0, RNR Retry Count */
	m[75] = 15 << 4 | 1 << 3 | 0;             /* Max CM Retries, SRQ, extended transport type */
	put(m + 76, 0xffff, 2);                   /* Primary Local Port LID */
	put(m + 78, 0xffff, 2);                   /* Primary Remote Port LID */
	m[80 + 10] = m[80 + 11] = 0xff; m[80 + 12] = 10; m[80 + 15] = 1;     /* ::ffff:10.0.0.1 */
	m[96 + 10] = m[96 + 11] = 0xff; m[96 + 12] = 10; m[96 + 15] = 2;     /* ::ffff:10.0.0.2 */
	put(m + 112, 0xabcdeu << 12 | 0u << 6 | 16u, 4); /* Flow Label, reserved, Packet Rate */
	m[116] = 106;                             /* Traffic Class */
	m[117] = 64;                              /* Hop Limit */
	m[118] = 5 << 4 | 1 << 3;                 /* SL, Subnet Local */
	m[119] = 18 << 3;                         /* Local ACK Timeout */
	m[120 + 43] = 1 << 2;                     /* SAP supported: byte 139 of the message, bit 5 */
	m[164] = 0; m[165] = 0x40;                /* private data: CMA header, IPv4 */

	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(cm.attr, RL_CM_REQ);
	CU_ASSERT_STRING_EQUAL(cm.msg->name, "ConnectRequest");
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_MAD_BASE_VERSION), 1);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_MAD_MGMT_CLASS), 7);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_MAD_CLASS_VERSION), 2);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_MAD_METHOD), 3);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_MAD_TID), 0x1122334455667788ull);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_LOCAL_COMM_ID), 0xa1b2c3d4);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_SERVICE_ID), 0x0000000001061c06ull);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_LOCAL_CA_GUID), 0x0002c9fffe010203ull);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_LOCAL_QKEY), 0x11111111);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_LOCAL_QPN), 0x11);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_RESPONDER_RESOURCES), 4);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_LOCAL_EECN), 0x22);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_INITIATOR_DEPTH), 3);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_REMOTE_EECN), 0x33);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_REMOTE_CM_RESPONSE_TIMEOUT), 20);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_TRANSPORT_SERVICE_TYPE), 0);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_END_TO_END_FLOW_CONTROL), 1);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_STARTING_PSN), 1684112);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_LOCAL_CM_RESPONSE_TIMEOUT), 21);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_RETRY_COUNT), 7);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PKEY), 0xffff);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PATH_MTU), 3);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_RDC_EXISTS), 0);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_RNR_RETRY_COUNT), 6);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_MAX_CM_RETRIES), 15);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_SRQ), 1);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_EXTENDED_TRANSPORT_TYPE), 0);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PRIMARY_LOCAL_LID), 0xffff);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PRIMARY_REMOTE_LID), 0xffff);
	g = rl_cm_bytes(&cm, RL_CMF_REQ_PRIMARY_LOCAL_GID, &n);
	CU_ASSERT_EQUAL(n, 16);
	CU_ASSERT_TRUE(g && g[12] == 10 && g[15] == 1);
	g = rl_cm_bytes(&cm, RL_CMF_REQ_PRIMARY_REMOTE_GID, &n);
	CU_ASSERT_TRUE(g && g[12] == 10 && g[15] == 2);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PRIMARY_FLOW_LABEL), 0xabcde);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PRIMARY_PACKET_RATE), 16);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PRIMARY_TRAFFIC_CLASS), 106);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PRIMARY_HOP_LIMIT), 64);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PRIMARY_SL), 5);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PRIMARY_SUBNET_LOCAL), 1);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_PRIMARY_LOCAL_ACK_TIMEOUT), 18);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_ALTERNATE_LOCAL_LID), 0);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_SAP_SUPPORTED), 1);
	g = rl_cm_bytes(&cm, RL_CMF_REQ_PRIVATE_DATA, &n);
	CU_ASSERT_EQUAL(n, 92);
	CU_ASSERT_TRUE(g && g[1] == 0x40);
}

/* REP (Table 110), REJ (108), RTU (111), DREQ (112), DREP (113), MRA (107), typed from the spec. */
static void test_rep_rej_rtu_dreq_drep_mra_layout(void)
{
	uint8_t m[RL_MAD_LEN];
	struct rl_cm cm;

	mad_hdr(m, 0x0013, 7);
	put(m + 24, 0x01020304, 4);               /* Local Communication ID */
	put(m + 28, 0xa1b2c3d4, 4);               /* Remote Communication ID */
	put(m + 32, 0x0badcafe, 4);               /* Local Q_Key */
	put(m + 36, 0x00002c, 3);                 /* Local QPN */
	put(m + 40, 0x000005, 3);                 /* Local EE Context */
	put(m + 44, 0xabcdef, 3);                 /* Starting PSN */
	m[48] = 1; m[49] = 2;                     /* Responder Resources, Initiator Depth */
	m[50] = 15 << 3 | 2 << 1 | 1;             /* Target ACK Delay, Failover Accepted, E2E */
	m[51] = 7 << 5 | 1 << 4;                  /* RNR Retry Count, SRQ */
	put(m + 52, 0x1122334455667788ull, 8);    /* Local CA GUID */
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_LOCAL_COMM_ID), 0x01020304);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_REMOTE_COMM_ID), 0xa1b2c3d4);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_LOCAL_QKEY), 0x0badcafe);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_LOCAL_QPN), 0x2c);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_LOCAL_EECN), 5);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_STARTING_PSN), 0xabcdef);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_RESPONDER_RESOURCES), 1);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_INITIATOR_DEPTH), 2);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_TARGET_ACK_DELAY), 15);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_FAILOVER_ACCEPTED), 2);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_END_TO_END_FLOW_CONTROL), 1);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_RNR_RETRY_COUNT), 7);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_SRQ), 1);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REP_LOCAL_CA_GUID), 0x1122334455667788ull);

	mad_hdr(m, 0x0012, 8);
	put(m + 24, 5, 4); put(m + 28, 6, 4);
	m[32] = 0 << 6;                           /* Message REJected: REQ */
	m[33] = 16 << 1;                          /* Rejected Info Length */
	put(m + 34, 28, 2);                       /* Reason: consumer reject */
	m[36] = 0xee;                             /* ARI */
	m[108] = 0x77;                            /* private data */
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REJ_MESSAGE_REJECTED), 0);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REJ_REJECTED_INFO_LENGTH), 16);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REJ_REASON), 28);
	size_t n;
	const uint8_t *b = rl_cm_bytes(&cm, RL_CMF_REJ_ARI, &n);
	CU_ASSERT_TRUE(b && n == 72 && b[0] == 0xee);
	b = rl_cm_bytes(&cm, RL_CMF_REJ_PRIVATE_DATA, &n);
	CU_ASSERT_TRUE(b && n == 148 && b[0] == 0x77);

	mad_hdr(m, 0x0014, 9);
	put(m + 24, 0x1111, 4); put(m + 28, 0x2222, 4);
	m[32] = 0x99;
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_RTU_REMOTE_COMM_ID), 0x2222);
	b = rl_cm_bytes(&cm, RL_CMF_RTU_PRIVATE_DATA, &n);
	CU_ASSERT_TRUE(b && n == 224 && b[0] == 0x99);

	mad_hdr(m, 0x0015, 10);
	put(m + 24, 0x3333, 4); put(m + 28, 0x4444, 4);
	put(m + 32, 0x00002c, 3);                 /* Remote QPN/EECN */
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_DREQ_LOCAL_COMM_ID), 0x3333);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_DREQ_REMOTE_QPN), 0x2c);

	mad_hdr(m, 0x0016, 11);
	put(m + 24, 0x4444, 4); put(m + 28, 0x3333, 4);
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_DREP_LOCAL_COMM_ID), 0x4444);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_DREP_REMOTE_COMM_ID), 0x3333);

	mad_hdr(m, 0x0011, 12);
	put(m + 24, 1, 4); put(m + 28, 2, 4);
	m[32] = 1 << 6;                           /* Message MRAed: REP */
	m[33] = 17 << 3;                          /* Service Timeout */
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_MRA_MESSAGE_MRAED), 1);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_MRA_SERVICE_TIMEOUT), 17);
	b = rl_cm_bytes(&cm, RL_CMF_MRA_PRIVATE_DATA, &n);
	CU_ASSERT_EQUAL(n, 222);
}

/* SIDR_REQ (Table 119) and SIDR_REP (Table 120), as udaddy sends them. */
static void test_sidr_layout(void)
{
	uint8_t m[RL_MAD_LEN];
	struct rl_cm cm;

	mad_hdr(m, 0x0017, 13);
	put(m + 24, 0xdeadbeef, 4);               /* Request ID */
	put(m + 28, 0xffff, 2);                   /* Partition Key */
	put(m + 32, 0x0000000001113c19ull, 8);    /* Service ID: RDMA_PS_UDP, port 15385 */
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_SIDR_REQ_REQUEST_ID), 0xdeadbeef);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_SIDR_REQ_PKEY), 0xffff);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_SIDR_REQ_SERVICE_ID), 0x0000000001113c19ull);

	mad_hdr(m, 0x0018, 13);
	put(m + 24, 0xdeadbeef, 4);
	m[28] = 0;                                /* Status: valid */
	m[29] = 0;
	put(m + 32, 0x000123, 3);                 /* QPN */
	put(m + 36, 0x0000000001113c19ull, 8);    /* Service ID */
	put(m + 44, 0x01234567, 4);               /* Q_Key */
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_SIDR_REP_QPN), 0x123);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_SIDR_REP_SERVICE_ID), 0x0000000001113c19ull);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_SIDR_REP_QKEY), 0x01234567);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_SIDR_REP_STATUS), 0);
}

/* Every field of every message set to a pattern survives encode and decode, and sets only its bits. */
static void test_round_trip_every_message(void)
{
	static const uint16_t attrs[] = { RL_CM_REQ, RL_CM_MRA, RL_CM_REJ, RL_CM_REP, RL_CM_RTU,
		RL_CM_DREQ, RL_CM_DREP, RL_CM_SIDR_REQ, RL_CM_SIDR_REP, RL_CM_LAP, RL_CM_APR };
	size_t nf;
	const struct rl_cm_field *t = rl_cm_field_table(&nf);
	struct tl_rng r = { 0x5eedcafe };

	for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
		for (int round = 0; round < 20; round++) {
			struct rl_cm in, out;
			uint64_t want[RL_CMF_COUNT];
			uint8_t data[RL_CMF_COUNT][232];
			uint8_t wire[300];
			size_t len, fields = 0;
			struct rl_cm_iter it;
			const struct rl_cm_field *f;

			rl_cm_init(&in, attrs[a], tl_rand(&r));
			for (size_t i = 0; i < nf; i++) {
				if (t[i].msg != attrs[a])
					continue;
				if (t[i].fmt == RL_CM_GID || t[i].fmt == RL_CM_DATA) {
					for (size_t k = 0; k < t[i].bytes; k++)
						data[i][k] = (uint8_t)tl_rand(&r);
					rl_cm_set_bytes(&in, (enum rl_cm_field_id)i, data[i], t[i].bytes);
				} else {
					want[i] = tl_rand(&r) & (~0ull >> (64 - t[i].bits));
					rl_cm_set(&in, (enum rl_cm_field_id)i, want[i]);
				}
			}
			CU_ASSERT_EQUAL_FATAL(rl_cm_encode(&in, wire, sizeof(wire), &len), RL_OK);
			CU_ASSERT_EQUAL(len, RL_MAD_LEN);
			CU_ASSERT_EQUAL(rl_cm_decode(wire, len, &out), RL_CM_OK);
			CU_ASSERT_EQUAL(out.attr, attrs[a]);
			CU_ASSERT_EQUAL(rl_cm_get(&out, RL_CMF_MAD_MGMT_CLASS), RL_MGMT_CLASS_CM);
			CU_ASSERT_EQUAL(rl_cm_get(&out, RL_CMF_MAD_METHOD), RL_MAD_METHOD_SEND);
			CU_ASSERT_EQUAL(rl_cm_get(&out, RL_CMF_MAD_TID), rl_cm_get(&in, RL_CMF_MAD_TID));
			for (size_t i = 0; i < nf; i++) {
				size_t n;
				const uint8_t *b;

				if (t[i].msg != attrs[a])
					continue;
				if (t[i].fmt == RL_CM_GID || t[i].fmt == RL_CM_DATA) {
					b = rl_cm_bytes(&out, (enum rl_cm_field_id)i, &n);
					CU_ASSERT_TRUE(b && n == t[i].bytes && memcmp(b, data[i], n) == 0);
				} else {
					CU_ASSERT_EQUAL(rl_cm_get(&out, (enum rl_cm_field_id)i), want[i]);
				}
			}
			rl_cm_iter_init(&it, &out);
			while ((f = rl_cm_next(&it))) {
				CU_ASSERT_TRUE(f->msg == 0 || f->msg == attrs[a]);
				fields++;
			}
			CU_ASSERT_TRUE(fields > 10);
		}
	}
}

/* Cut short anywhere: no read past the end (ASan builds), the fields that fit still read. */
static void test_truncated(void)
{
	uint8_t m[RL_MAD_LEN], *cut;
	struct rl_cm cm;
	struct rl_cm_iter it;
	const struct rl_cm_field *f;
	char line[200];

	mad_hdr(m, 0x0010, 1);
	put(m + 56, 0x000011, 3);
	for (size_t len = 0; len <= RL_MAD_LEN; len++) {
		enum rl_cm_status st;

		cut = len ? malloc(len) : NULL;
		if (len)
			memcpy(cut, m, len);
		st = rl_cm_decode(cut, len, &cm);
		CU_ASSERT_EQUAL(st, len < RL_MAD_HDR_LEN ? RL_CM_NOT_CM : len < RL_MAD_LEN ? RL_CM_TRUNC : RL_CM_OK);
		rl_cm_iter_init(&it, &cm);
		while ((f = rl_cm_next(&it)))
			CU_ASSERT_TRUE(f->off + f->bytes <= len);
		CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_REQ_LOCAL_QPN), len >= 59 ? 0x11u : 0u);
		rl_cm_describe(&cm, line, sizeof(line));
		free(cut);
	}
	/* Another class (the SA's, 0x03): not CM, but its common header reads; an unknown attribute. */
	m[1] = 0x03;
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_NOT_CM);
	CU_ASSERT_PTR_NULL(cm.msg);
	CU_ASSERT_EQUAL(rl_cm_get(&cm, RL_CMF_MAD_MGMT_CLASS), 0x03);
	rl_cm_describe(&cm, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "MAD class 0x03 attribute 0x0010");
	mad_hdr(m, 0x0042, 1);
	CU_ASSERT_EQUAL(rl_cm_decode(m, sizeof(m), &cm), RL_CM_UNKNOWN_ATTR);
	CU_ASSERT_PTR_NULL(cm.msg);
	rl_cm_iter_init(&it, &cm);
	while ((f = rl_cm_next(&it)))
		CU_ASSERT_EQUAL(f->msg, 0);
	/* Longer than a MAD: the rest is not the MAD's. */
	uint8_t big[300] = { 0 };
	mad_hdr(big, 0x0014, 1);
	CU_ASSERT_EQUAL(rl_cm_decode(big, sizeof(big), &cm), RL_CM_OK);
	CU_ASSERT_EQUAL(cm.len, RL_MAD_LEN);
}

/* IBA 12.6.7.2's reasons, and the MAD methods, in words. */
static void test_words(void)
{
	CU_ASSERT_STRING_EQUAL(rl_cm_rej_reason(1), "no QP available");
	CU_ASSERT_STRING_EQUAL(rl_cm_rej_reason(8), "invalid service ID");
	CU_ASSERT_STRING_EQUAL(rl_cm_rej_reason(28), "consumer reject");
	CU_ASSERT_STRING_EQUAL(rl_cm_rej_reason(26), "invalid path MTU");
	CU_ASSERT_PTR_NULL(rl_cm_rej_reason(25));
	CU_ASSERT_PTR_NULL(rl_cm_rej_reason(0));
	CU_ASSERT_STRING_EQUAL(rl_mad_method_name(0x03), "Send");
	CU_ASSERT_STRING_EQUAL(rl_mad_method_name(0x81), "GetResp");
	CU_ASSERT_STRING_EQUAL(rl_cm_msg(0x0013)->name, "ConnectReply");
	CU_ASSERT_STRING_EQUAL(rl_cm_msg(0x001a)->abbr, "APR");
	CU_ASSERT_PTR_NULL(rl_cm_msg(0x001b));
}

/* rdma_cm: service IDs of the IP port spaces, and the CMA header (kernel cma.c's struct cma_hdr). */
static void test_rdma_cm(void)
{
	uint16_t ps, port;
	struct rl_cma_hdr h, back;
	/* version 0, IPv4, port 0x9a3c, src ::10.0.0.1 (in the last 4 bytes), dst 10.0.0.2 */
	const uint8_t wire[36] = { 0x00, 0x40, 0x9a, 0x3c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1,
				   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2 };
	uint8_t out[36];

	CU_ASSERT_EQUAL(rl_cm_service_id(RL_RDMA_PS_TCP, 7174), 0x0000000001061c06ull);
	CU_ASSERT_EQUAL(rl_cm_service_id(RL_RDMA_PS_UDP, 7174), 0x0000000001111c06ull);
	CU_ASSERT_EQUAL(rl_cm_service_id(RL_RDMA_PS_IB, 1), 0x00000000013f0001ull);
	CU_ASSERT_TRUE(rl_cm_service_ps(0x0000000001061c06ull, &ps, &port));
	CU_ASSERT_EQUAL(ps, RL_RDMA_PS_TCP);
	CU_ASSERT_EQUAL(port, 7174);
	CU_ASSERT_STRING_EQUAL(rl_rdma_ps_name(ps), "RDMA_PS_TCP");
	CU_ASSERT_FALSE(rl_cm_service_ps(0x1000000000061c06ull, &ps, &port));
	CU_ASSERT_FALSE(rl_cm_service_ps(0x0000000001071c06ull, &ps, &port));

	CU_ASSERT_TRUE(rl_cma_hdr_decode(wire, sizeof(wire), &h));
	CU_ASSERT_EQUAL(h.version, 0);
	CU_ASSERT_EQUAL(h.ip_version, 4);
	CU_ASSERT_EQUAL(h.src_port, 0x9a3c);
	CU_ASSERT_TRUE(h.src[12] == 10 && h.src[15] == 1 && h.dst[12] == 10 && h.dst[15] == 2);
	rl_cma_hdr_encode(&h, out);
	CU_ASSERT_EQUAL(memcmp(out, wire, 36), 0);
	CU_ASSERT_TRUE(rl_cma_hdr_decode(out, 36, &back));
	CU_ASSERT_FALSE(rl_cma_hdr_decode(wire, 35, &h));
	out[1] = 0x50;
	CU_ASSERT_FALSE(rl_cma_hdr_decode(out, 36, &h));
	out[1] = 0x40;
	out[0] = 1;
	CU_ASSERT_FALSE(rl_cma_hdr_decode(out, 36, &h));
}

/* The one line: an rdma_cm REQ says where it connects; a REJ says why in words. */
static void test_describe(void)
{
	struct rl_cm cm;
	struct rl_cma_hdr h = { .version = 0, .ip_version = 4, .src_port = 40000 };
	uint8_t pd[92] = { 0 };
	char line[256];

	h.src[12] = 10; h.src[15] = 1;
	h.dst[12] = 10; h.dst[15] = 2;
	rl_cma_hdr_encode(&h, pd);
	rl_cm_init(&cm, RL_CM_REQ, 1);
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_COMM_ID, 0x1a2b3c4d);
	rl_cm_set(&cm, RL_CMF_REQ_LOCAL_QPN, 0x11);
	rl_cm_set(&cm, RL_CMF_REQ_STARTING_PSN, 1684112);
	rl_cm_set(&cm, RL_CMF_REQ_SERVICE_ID, rl_cm_service_id(RL_RDMA_PS_TCP, 7174));
	rl_cm_set_bytes(&cm, RL_CMF_REQ_PRIVATE_DATA, pd, sizeof(pd));
	rl_cm_describe(&cm, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "CM REQ (ConnectRequest) comm ID 0x1a2b3c4d QPN 0x000011 PSN 1684112 "
				     "rdma_cm connect to 10.0.0.2 port 7174 (rping's default)");
	/* The tools' default ports (rdma-core's rping.c, udaddy.c, cmatose.c; perftest's -p): by port space too. */
	CU_ASSERT_STRING_EQUAL(rl_rdma_port_owner(RL_RDMA_PS_TCP, 7471), "ucmatose's default");
	CU_ASSERT_STRING_EQUAL(rl_rdma_port_owner(RL_RDMA_PS_UDP, 7174), "udaddy's default");
	CU_ASSERT_STRING_EQUAL(rl_rdma_port_owner(RL_RDMA_PS_TCP, 18515), "perftest's default");
	CU_ASSERT_PTR_NULL(rl_rdma_port_owner(RL_RDMA_PS_TCP, 7175));
	CU_ASSERT_PTR_NULL(rl_rdma_port_owner(RL_RDMA_PS_IB, 7174));

	/* Over IPv6: the address in RFC 5952 form, as explain prints IP addresses. */
	memset(&h, 0, sizeof(h));
	h.ip_version = 6;
	h.dst[0] = 0xfd; h.dst[15] = 2;
	rl_cma_hdr_encode(&h, pd);
	rl_cm_set_bytes(&cm, RL_CMF_REQ_PRIVATE_DATA, pd, sizeof(pd));
	rl_cm_describe(&cm, line, sizeof(line));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "rdma_cm connect to fd00::2 port 7174"));

	rl_cm_init(&cm, RL_CM_REJ, 1);
	rl_cm_set(&cm, RL_CMF_REJ_LOCAL_COMM_ID, 0x55);
	rl_cm_set(&cm, RL_CMF_REJ_REMOTE_COMM_ID, 0x1a2b3c4d);
	rl_cm_set(&cm, RL_CMF_REJ_REASON, 8);
	rl_cm_describe(&cm, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "CM REJ (ConnectReject) comm ID 0x00000055 remote 0x1a2b3c4d reason 8: "
				     "invalid service ID");
	/* A buffer too small: cut, terminated. */
	CU_ASSERT_TRUE(rl_cm_describe(&cm, line, 8) <= 7);
	CU_ASSERT_EQUAL(strlen(line), 7);
}

/* What an MRA or REJ answers (IBA 12.6.6, 12.6.7.1): 2 is a LAP for an MRA, no message for a REJ. */
static void test_answered_msg(void)
{
	struct rl_cm cm;

	rl_cm_init(&cm, RL_CM_MRA, 1);
	rl_cm_set(&cm, RL_CMF_MRA_MESSAGE_MRAED, 1);
	CU_ASSERT_EQUAL(rl_cm_answered_msg(&cm), RL_CM_REP);
	rl_cm_set(&cm, RL_CMF_MRA_MESSAGE_MRAED, 2);
	CU_ASSERT_EQUAL(rl_cm_answered_msg(&cm), RL_CM_LAP);
	rl_cm_init(&cm, RL_CM_REJ, 1);
	CU_ASSERT_EQUAL(rl_cm_answered_msg(&cm), RL_CM_REQ);
	rl_cm_set(&cm, RL_CMF_REJ_MESSAGE_REJECTED, 2);
	CU_ASSERT_EQUAL(rl_cm_answered_msg(&cm), 0);
	rl_cm_set(&cm, RL_CMF_REJ_MESSAGE_REJECTED, 3);
	CU_ASSERT_EQUAL(rl_cm_answered_msg(&cm), 0);
	rl_cm_init(&cm, RL_CM_REP, 1);
	CU_ASSERT_EQUAL(rl_cm_answered_msg(&cm), 0);
}

/* What the decoder's caller looks for: a UD SEND Only to QP1 with the GSI's Q_Key. */
static void test_is_gsi(void)
{
	struct rl_pkt p;

	rl_pkt_init(&p, RL_OP_UD_SEND_ONLY);
	p.bth.dqpn = RL_GSI_QPN;
	p.deth.qkey = RL_GSI_QKEY;
	CU_ASSERT_TRUE(rl_cm_is_gsi(&p));
	p.deth.qkey = 0x11111111;
	CU_ASSERT_FALSE(rl_cm_is_gsi(&p));
	rl_pkt_init(&p, RL_OP_RC_SEND_ONLY);
	p.bth.dqpn = RL_GSI_QPN;
	CU_ASSERT_FALSE(rl_cm_is_gsi(&p));
}

int tl_suite_cm(void)
{
	CU_pSuite s = CU_add_suite("cm", NULL, NULL);

	return !s || !CU_add_test(s, "rows lie in the MAD, no bit shared, private data typed from the spec", test_rows) ||
	       !CU_add_test(s, "REQ typed from IBA Table 106", test_req_layout) ||
	       !CU_add_test(s, "REP, REJ, RTU, DREQ, DREP, MRA typed from the spec", test_rep_rej_rtu_dreq_drep_mra_layout) ||
	       !CU_add_test(s, "SIDR_REQ and SIDR_REP typed from the spec", test_sidr_layout) ||
	       !CU_add_test(s, "every message round-trips every field", test_round_trip_every_message) ||
	       !CU_add_test(s, "truncated, other class, unknown attribute", test_truncated) ||
	       !CU_add_test(s, "REJ reasons and methods in words", test_words) ||
	       !CU_add_test(s, "rdma_cm service IDs and CMA header", test_rdma_cm) ||
	       !CU_add_test(s, "one line: rdma_cm REQ, REJ reason", test_describe) ||
	       !CU_add_test(s, "a MAD for the GSI", test_is_gsi) ||
	       !CU_add_test(s, "what an MRA or a REJ answers", test_answered_msg);
}
