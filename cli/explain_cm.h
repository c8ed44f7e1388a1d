/* SPDX-License-Identifier: MIT */
/* explain's printers for CM MADs (QP1 frames): one line, -v and --json, over core's CM field table. */
#ifndef ROCELAB_EXPLAIN_CM_H
#define ROCELAB_EXPLAIN_CM_H

#include <stdbool.h>

#include "json.h"
#include "rocelab/rocelab.h"

/* Decode the MAD of @p if it is one for the GSI (UD SEND Only to QP1, Q_Key 0x80010000). */
bool ex_cm_decode(const struct rl_pkt *p, struct rl_cm *cm, enum rl_cm_status *st);
/* ": CM REQ (ConnectRequest) comm ID ..." appended to a one-line description. */
void ex_cm_line(struct rl_sb *sb, const struct rl_cm *cm, enum rl_cm_status st);
/* explain -v: every field of the MAD header and the message, with its meaning or words. */
void ex_cm_verbose(const struct rl_cm *cm, enum rl_cm_status st);
/* explain --json: a "cm" object keyed by the field table's JSON keys. */
void ex_cm_json(struct json *j, const struct rl_cm *cm, enum rl_cm_status st);

#endif
