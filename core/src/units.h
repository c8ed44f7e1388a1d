/* SPDX-License-Identifier: MIT */
/*
 * Units core's modules share when they turn bytes and rates into times
 * (a frame's serialization at a switch port, a paced QP's gap): one
 * definition each, so that two modules cannot disagree on a second.
 */
#ifndef ROCELAB_UNITS_H
#define ROCELAB_UNITS_H

#define RL_NS_PER_S 1000000000ull
#define RL_BITS_PER_BYTE 8u
#define RL_NS_PER_US 1000ull
#define RL_BPS_PER_MBPS 1000000ull

#endif
