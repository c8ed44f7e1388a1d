/* SPDX-License-Identifier: MIT */
/* rocelab: RoCE encode/decode, ICRC and opcode table. Include this one header. */
#ifndef ROCELAB_ROCELAB_H
#define ROCELAB_ROCELAB_H

#include "rocelab/analyze.h"
#include "rocelab/describe.h"
#include "rocelab/cm.h"
#include "rocelab/dcqcn.h"
#include "rocelab/field.h"
#include "rocelab/hdr.h"
#include "rocelab/icrc.h"
#include "rocelab/opcode.h"
#include "rocelab/pair.h"
#include "rocelab/packet.h"
#include "rocelab/path.h"
#include "rocelab/profile.h"
#include "rocelab/rewrite.h"
#include "rocelab/status.h"
#include "rocelab/strbuf.h"
#include "rocelab/sim.h"
#include "rocelab/simwire.h"
#include "rocelab/verbs.h"

#define ROCELAB_VERSION "0.1.0"

#endif
