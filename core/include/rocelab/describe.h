/* SPDX-License-Identifier: MIT */
/*
 * Words for packets: the plain-language text that `rocelab explain` prints
 * and that the Wireshark plugin shows, written once here.
 */
#ifndef ROCELAB_DESCRIBE_H
#define ROCELAB_DESCRIBE_H

#include <stddef.h>

#include "rocelab/packet.h"
#include "rocelab/strbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "ACK credits=6", "RNR NAK timer=14 (1.28 ms)", "NAK PSN sequence error"; returns snprintf's count. */
int rl_describe_syndrome(uint8_t syndrome, char *buf, size_t n);

/*
 * The key fields of a decoded packet on one line, tcpdump style:
 * "RC RDMA WRITE First QP=0x000011 PSN=42 AckReq va=0x... rkey=0x... len=4096 payload=1024".
 */
int rl_describe_pkt(const struct rl_pkt *pkt, char *buf, size_t n);

/* One sentence saying what an opcode does, for a learner. */
const char *rl_describe_opcode(uint8_t opcode);

/* Room for the longest address text, as INET6_ADDRSTRLEN. */
#define RL_ADDR_STRLEN 46

/* Format an IPv4/IPv6 address (or GID) into @buf (at least RL_ADDR_STRLEN bytes). */
const char *rl_addr_str(const struct rl_pkt *pkt, bool src, char *buf, size_t n);

/* The same, appending to a string builder. */
void rl_sb_describe_syndrome(struct rl_sb *sb, uint8_t syndrome);
void rl_sb_describe_pkt(struct rl_sb *sb, const struct rl_pkt *pkt);
void rl_sb_addr(struct rl_sb *sb, const struct rl_pkt *pkt, bool src);
void rl_sb_ipv4(struct rl_sb *sb, const uint8_t *addr);
/* RFC 5952 text of 16 bytes (a GID; IPv4-mapped ones end in dotted form). */
void rl_sb_ipv6(struct rl_sb *sb, const uint8_t *addr);

#ifdef __cplusplus
}
#endif
#endif
