/* SPDX-License-Identifier: MIT */
/*
 * The input format of fuzz_cm.c, shared with the seed writer mkseeds_cm.c.
 *
 * An input is a config byte, then records. A record starts with an op byte:
 * its low three bits say what happens, bit 3 which side it happens to
 * (0: the active host, 1: the passive host with the listeners).
 *
 *   DELIVER  [op]                   the oldest frame side s sent reaches the other side
 *   DROP     [op]                   ... or is lost
 *   WAIT     [op][e]                2^(e % 40) ns pass; timers fire as they fall due
 *   MAD      [op][flags][aux][len][bytes]
 *                                   a MAD from the fuzzer to side s's QP1: len bytes
 *                                   (0 means 256), sent as a UD SEND Only
 *   ACT      [op][what]             a consumer call on one of side s's ids
 *   PUMP     [op]                   frames flow both ways until the wire is quiet
 */
#ifndef FZ_CM_H
#define FZ_CM_H

/* The config byte. */
#define FZ_CM_CFG_POLICY 0x03u      /* the passive consumer on CONNECT_REQUEST: enum fz_cm_policy */
#define FZ_CM_CFG_DEAF 0x04u        /* the passive consumer never takes its events */
#define FZ_CM_CFG_RC 0x08u          /* the active side connects an RC id (RDMA_PS_TCP) */
#define FZ_CM_CFG_UD 0x10u          /* ... and/or resolves a UD service (RDMA_PS_UDP, SIDR) */
#define FZ_CM_CFG_HANGUP 0x20u      /* the active side disconnects as soon as it is established */
#define FZ_CM_CFG_BACKLOG_SHIFT 6   /* the top two bits: rdma_listen's backlog - 1 */

enum fz_cm_policy { FZ_CM_ACCEPT, FZ_CM_REJECT, FZ_CM_IGNORE, FZ_CM_ACCEPT_LATE };

enum fz_cm_op { FZ_CM_DELIVER, FZ_CM_DROP, FZ_CM_WAIT, FZ_CM_MAD, FZ_CM_ACT, FZ_CM_PUMP };
#define FZ_CM_OP_MASK 0x07u
#define FZ_CM_OP_SIDE 0x08u

/* MAD flags. */
#define FZ_CM_SRC_MASK 0x03u        /* who sends it: enum fz_cm_src */
#define FZ_CM_PATCH_IDS 0x04u       /* write an id's communication IDs into it */
#define FZ_CM_PATCH_TID 0x08u       /* ... and its transaction ID */
#define FZ_CM_ID_SHIFT 4            /* bits 4-6: which of side s's ids */
#define FZ_CM_ODD_QKEY 0x80u        /* the Q_Key from aux instead of the GSI's */
/* MAD aux: bits 0-2 pick a Q_Key, bit 7 makes the payload 64 bytes longer than the MAD. */
#define FZ_CM_AUX_QKEY 0x07u
#define FZ_CM_AUX_LONG 0x80u

enum fz_cm_src { FZ_CM_FROM_PEER, FZ_CM_FROM_STRANGER, FZ_CM_FROM_NOWHERE, FZ_CM_FROM_SELF };

/* ACT what: bits 0-1 the call, bits 2-7 which id. */
enum fz_cm_act { FZ_CM_DO_ACCEPT, FZ_CM_DO_REJECT, FZ_CM_DO_DISCONNECT, FZ_CM_DO_DESTROY };
#define FZ_CM_ACT_MASK 0x03u
#define FZ_CM_ACT_ID_SHIFT 2

#endif
