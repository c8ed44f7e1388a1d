/* SPDX-License-Identifier: MIT */
/*
 * The rows of the field table (rocelab/field.h), written once and expanded
 * three times: into the table (field.c), into the decoder (decode.c) and
 * into the encoder (encode.c). Layouts, with the edition each section
 * number belongs to: BTH IBA 9.2 and the extended headers IBA 9.3.1-9.3.8
 * (RDETH .. IETH, ImmDt 9.3.7) as numbered in Volume 1 Release 1.2.1, the
 * base of the RoCEv2 annex (A17) cited elsewhere; XRCETH that release's
 * Annex A14.6.3.1; FETH Volume 1 Release 1.5, which adds it with FLUSH and
 * ATOMIC WRITE (Annex A19) and numbers it 9.3.7 in that release.
 *
 * One row per field, in wire order:
 *   F(header, struct rl_pkt member, byte offset, bytes spanned, shift, bits,
 *     format, -v hex digits, one-line hex digits, flags,
 *     JSON key, filter name, -v label, one-line key, name, words, meaning)
 * The header rows give each header's name, JSON object, display-filter
 * group, title, length and the section that defines its layout, in wire
 * order (BTH, then enum rl_hdr's order):
 *   H(id, header, length, name, JSON key, filter group, title, section, -v text)
 */
#ifndef ROCELAB_FIELD_ROWS_H
#define ROCELAB_FIELD_ROWS_H

#include "rocelab/field.h"
#include "rocelab/hdr.h"

#define RL_FIELD_HDRS_X(H, x)                                                                      \
	H(x, BTH, RL_FIELD_BTH, RL_BTH_LEN, "BTH", "bth", "bth",                                   \
	  "Base Transport Header", "IBA 9.2", NULL)                                                \
	H(x, RDETH, RL_HDR_RDETH, RL_RDETH_LEN, "RDETH", "rdeth", "rdeth",                         \
	  "Reliable Datagram Extended Transport Header", "IBA 9.3.1", NULL)                        \
	H(x, DETH, RL_HDR_DETH, RL_DETH_LEN, "DETH", "deth", "deth",                               \
	  "Datagram Extended Transport Header", "IBA 9.3.2", NULL)                                 \
	H(x, XRCETH, RL_HDR_XRCETH, RL_XRCETH_LEN, "XRCETH", "xrceth", "xrceth",                   \
	  "XRC Extended Transport Header", "IBA A14.6.3.1", NULL)                                  \
	H(x, FETH, RL_HDR_FETH, RL_FETH_LEN, "FETH", "feth", "feth",                               \
	  "FLUSH Extended Transport Header", "IBA 9.3.7, Release 1.5", NULL)                      \
	H(x, RETH, RL_HDR_RETH, RL_RETH_LEN, "RETH", "reth", "reth",                               \
	  "RDMA Extended Transport Header", "IBA 9.3.3", NULL)                                     \
	H(x, ATOMICETH, RL_HDR_ATOMICETH, RL_ATOMICETH_LEN, "AtomicETH", "atomiceth", "atomiceth", \
	  "Atomic Extended Transport Header", "IBA 9.3.4", NULL)                                   \
	H(x, AETH, RL_HDR_AETH, RL_AETH_LEN, "AETH", "aeth", "aeth",                               \
	  "ACK Extended Transport Header", "IBA 9.3.5", NULL)                                      \
	H(x, ATOMICACKETH, RL_HDR_ATOMICACKETH, RL_ATOMICACKETH_LEN, "AtomicAckETH", "atomicacketh", \
	  "atomicacketh", "Atomic ACK Extended Transport Header", "IBA 9.3.6", NULL)               \
	H(x, IMMDT, RL_HDR_IMMDT, RL_IMMDT_LEN, "ImmDt", NULL, "immdt",                            \
	  "Immediate Data", "IBA 9.3.7", NULL)                                                     \
	H(x, IETH, RL_HDR_IETH, RL_IETH_LEN, "IETH", "ieth", "ieth",                               \
	  "Invalidate Extended Transport Header", "IBA 9.3.8", NULL)                               \
	H(x, CNP, RL_HDR_CNP, RL_CNP_LEN, "CNP", NULL, "cnp",                                      \
	  "CNP reserved bytes", "IBA A17.9.3", "16 reserved bytes")

/* The header rows for a callback H(id, header, length, ...); the _X form passes @x first. */
#define RL_FIELD_HDRS(H) RL_FIELD_HDRS_X(RL_FIELD_HDR_CALL, H)
#define RL_FIELD_HDR_CALL(H, ...) H(__VA_ARGS__)

/* The length of the headers in mask @m (enum rl_hdr), as a constant expression. */
#define RL_FIELD_HDRS_LEN(m) (0 RL_FIELD_HDRS_X(RL_FIELD_HDR_LEN_TERM, m))
#define RL_FIELD_HDR_LEN_TERM(m, id, hdr, len, ...) +(((m) & (hdr)) ? (len) : 0)

#define RL_FIELD_ROWS(F)                                                                           \
	/* BTH, IBA 9.2 */                                                                         \
	F(RL_FIELD_BTH, bth.opcode, 0, 1, 0, 8, RL_FMT_OPCODE, 2, 2, RL_FF_WORDS_LINE,             \
	  "opcode", "opcode", "opcode", NULL, "Opcode", rl_fw_opcode,                              \
	  "BTH opcode: transport service (top 3 bits) and operation (IBA 9.2, Table 38)")          \
	F(RL_FIELD_BTH, bth.se, 1, 1, 7, 1, RL_FMT_BOOL, 0, 0, RL_FF_BREAK,                        \
	  "se", "se", "SE", NULL, "Solicited event", rl_fw_se,                                     \
	  "the receiver's completion handler is woken when this message completes")                \
	F(RL_FIELD_BTH, bth.migreq, 1, 1, 6, 1, RL_FMT_BOOL, 0, 0, RL_FF_TERSE,                    \
	  "migreq", "migreq", "MigReq", NULL, "MigReq", NULL,                                      \
	  "migration request: the path migration state of automatic path migration (IBA 17.2.8)")  \
	F(RL_FIELD_BTH, bth.padcnt, 1, 1, 4, 2, RL_FMT_DEC, 0, 0, 0,                               \
	  "padcnt", "padcnt", "PadCnt", NULL, "Pad count", NULL,                                   \
	  "pad bytes to a 4-byte multiple")                                                        \
	F(RL_FIELD_BTH, bth.tver, 1, 1, 0, 4, RL_FMT_DEC, 0, 0, RL_FF_TERSE,                       \
	  "tver", "tver", "TVer", NULL, "Transport header version", NULL,                          \
	  "transport header version: 0; another value is a layout this decoder cannot know")       \
	F(RL_FIELD_BTH, bth.pkey, 2, 2, 0, 16, RL_FMT_HEX, 4, 4, RL_FF_BREAK,                      \
	  "pkey", "pkey", "P_Key", NULL, "P_Key", rl_fw_pkey,                                      \
	  "partition key: both ends of a QP must be members of the partition")                     \
	F(RL_FIELD_BTH, bth.fecn, 4, 1, 7, 1, RL_FMT_BOOL, 0, 0, RL_FF_TERSE,                      \
	  "fecn", "fecn", "FECN", NULL, "FECN", NULL,                                              \
	  "Forward Explicit Congestion Notification: congestion seen on the way to the receiver "  \
	  "(IBA 9.2)")                                                                             \
	F(RL_FIELD_BTH, bth.becn, 4, 1, 6, 1, RL_FMT_BOOL, 0, 0, 0,                                \
	  "becn", "becn", "BECN", NULL, "BECN", rl_fw_becn,                                        \
	  "Backward Explicit Congestion Notification: the receiver tells the sender to slow down; " \
	  "set in every RoCEv2 CNP")                                                               \
	F(RL_FIELD_BTH, bth.resv6, 4, 1, 0, 6, RL_FMT_HEX, 2, 2, RL_FF_RESERVED,                   \
	  "resv6", "resv6", "Resv6", NULL, "Reserved (6 bits)", NULL,                              \
	  "reserved: sent as 0, ignored by a receiver, left out of the ICRC")                      \
	F(RL_FIELD_BTH, bth.dqpn, 5, 3, 0, 24, RL_FMT_HEX, 6, 6, RL_FF_BREAK,                      \
	  "dqpn", "dest_qp", "DestQP", NULL, "Destination QP", NULL,                               \
	  "the queue pair this packet is for")                                                     \
	F(RL_FIELD_BTH, bth.ackreq, 8, 1, 7, 1, RL_FMT_BOOL, 0, 0, 0,                              \
	  "ackreq", "ackreq", "AckReq", NULL, "AckReq", rl_fw_ackreq,                              \
	  "acknowledge request: the responder must acknowledge this packet")                       \
	F(RL_FIELD_BTH, bth.resv7, 8, 1, 0, 7, RL_FMT_HEX, 2, 2, RL_FF_RESERVED,                   \
	  "resv7", "resv7", "Resv7", NULL, "Reserved (7 bits)", NULL,                              \
	  "reserved: sent as 0, ignored by a receiver")                                            \
	F(RL_FIELD_BTH, bth.psn, 9, 3, 0, 24, RL_FMT_DEC, 0, 0, RL_FF_BREAK,                       \
	  "psn", "psn", "PSN", NULL, "PSN", NULL,                                                  \
	  "packet sequence number, 24 bits, counts packets not bytes")                             \
	/* RDETH, IBA 9.3.1: a reserved byte, then the EE context */                               \
	F(RL_HDR_RDETH, rdeth_eecnxt, 1, 3, 0, 24, RL_FMT_HEX, 6, 6, 0,                            \
	  "eecnxt", "ee_context", "EE context", "EEC", "EE context", NULL,                         \
	  "the reliable datagram end-to-end context")                                              \
	/* DETH, IBA 9.3.2: Q_Key, a reserved byte, source QP */                                   \
	F(RL_HDR_DETH, deth.qkey, 0, 4, 0, 32, RL_FMT_HEX, 8, 8, 0,                                \
	  "qkey", "qkey", "Q_Key", "Q_Key", "Q_Key", NULL,                                         \
	  "must match the receiving QP's Q_Key")                                                   \
	F(RL_HDR_DETH, deth.src_qp, 5, 3, 0, 24, RL_FMT_HEX, 6, 6, 0,                              \
	  "src_qp", "src_qp", "SrcQP", "SrcQP", "Source QP", NULL,                                 \
	  "the sender's QP")                                                                       \
	/* XRCETH, IBA A14.6.3.1: a reserved byte, the XRC SRQ number */                           \
	F(RL_HDR_XRCETH, xrc_srq, 1, 3, 0, 24, RL_FMT_HEX, 6, 6, 0,                                \
	  "srq", "srq", "XRC SRQ", "XRCSRQ", "XRC SRQ", NULL,                                      \
	  "the shared receive queue to use")                                                       \
	/* FETH, IBA 1.5: reserved bits 31-6, selectivity level 5-4, placement type 3-0 */         \
	F(RL_HDR_FETH, feth.sel, 3, 1, 4, 2, RL_FMT_DEC, 0, 0, 0,                                  \
	  "sel", "sel", "selectivity", "sel", "Selectivity level", rl_fw_feth_sel,                 \
	  "what the FLUSH covers: the range va..va+len of the memory region, or all of it")        \
	F(RL_HDR_FETH, feth.plt, 3, 1, 0, 4, RL_FMT_DEC, 0, 0, 0,                                  \
	  "plt", "plt", "placement type", "plt", "Placement type", rl_fw_feth_plt,                 \
	  "what the FLUSH makes of earlier writes: bit 0 globally visible, bit 1 persistent")      \
	/* RETH, IBA 9.3.3 */                                                                      \
	F(RL_HDR_RETH, reth.va, 0, 8, 0, 64, RL_FMT_HEX, 16, 1, 0,                                 \
	  "va", "va", "va", "va", "Virtual address", NULL,                                         \
	  "remote virtual address")                                                                \
	F(RL_HDR_RETH, reth.rkey, 8, 4, 0, 32, RL_FMT_HEX, 8, 1, 0,                                \
	  "rkey", "rkey", "rkey", "rkey", "R_Key", NULL,                                           \
	  "remote key granting access")                                                            \
	F(RL_HDR_RETH, reth.dma_len, 12, 4, 0, 32, RL_FMT_DEC, 0, 0, RL_FF_BREAK,                  \
	  "dma_len", "dma_len", "DMA length", "len", "DMA length", NULL,                           \
	  "bytes of the whole RDMA operation")                                                     \
	/* AtomicETH, IBA 9.3.4 */                                                                 \
	F(RL_HDR_ATOMICETH, atomiceth.va, 0, 8, 0, 64, RL_FMT_HEX, 16, 1, RL_FF_TERSE,             \
	  "va", "va", "va", "va", "Virtual address", NULL,                                         \
	  "remote virtual address of the 8 bytes the atomic works on")                             \
	F(RL_HDR_ATOMICETH, atomiceth.rkey, 8, 4, 0, 32, RL_FMT_HEX, 8, 1, RL_FF_TERSE,            \
	  "rkey", "rkey", "rkey", "rkey", "R_Key", NULL,                                           \
	  "remote key granting access")                                                            \
	F(RL_HDR_ATOMICETH, atomiceth.swap_add, 12, 8, 0, 64, RL_FMT_HEX, 16, 1,                   \
	  RL_FF_BREAK | RL_FF_TERSE, "swap_add", "swap_add", "swap/add", "swap/add",               \
	  "Swap (or add) data", NULL,                                                              \
	  "CmpSwap: the value written if memory matches; FetchAdd: what is added")                 \
	F(RL_HDR_ATOMICETH, atomiceth.compare, 20, 8, 0, 64, RL_FMT_HEX, 16, 1, RL_FF_TERSE,       \
	  "compare", "compare", "compare", "compare", "Compare data", NULL,                        \
	  "CmpSwap: the value memory must hold for the swap to happen")                            \
	/* AETH, IBA 9.3.5 */                                                                      \
	F(RL_HDR_AETH, aeth.syndrome, 0, 1, 0, 8, RL_FMT_SYNDROME, 2, 2, RL_FF_TERSE,              \
	  "syndrome", "syndrome", "syndrome", "", "Syndrome", NULL,                                \
	  "ACK (with credits), RNR NAK (with a timer) or NAK (with a code), IBA 9.7.5.1")          \
	F(RL_HDR_AETH, aeth.msn, 1, 3, 0, 24, RL_FMT_DEC, 0, 0, 0,                                 \
	  "msn", "msn", "MSN", "MSN", "MSN", NULL,                                                 \
	  "messages completed so far")                                                             \
	/* AtomicAckETH, IBA 9.3.6 */                                                              \
	F(RL_HDR_ATOMICACKETH, atomicack_orig, 0, 8, 0, 64, RL_FMT_HEX, 16, 1, 0,                  \
	  "orig", "orig", "original remote data", "orig", "Original remote data", NULL,            \
	  "memory before the atomic")                                                              \
	/* ImmDt, IBA 9.3.7 */                                                                     \
	F(RL_HDR_IMMDT, immdt, 0, 4, 0, 32, RL_FMT_HEX, 8, 8, 0,                                   \
	  "immdt", "data", "", "imm", "Immediate data", NULL,                                      \
	  "delivered to the receiver's completion")                                                \
	/* IETH, IBA 9.3.8 */                                                                      \
	F(RL_HDR_IETH, ieth_rkey, 0, 4, 0, 32, RL_FMT_HEX, 8, 1, 0,                                \
	  "rkey", "rkey", "rkey", "inv_rkey", "R_Key to invalidate", NULL,                         \
	  "invalidated at the receiver")

/* Big-endian loads and stores by width, for the generated decoder and encoder. */
static inline uint64_t rl_fload1(const uint8_t *p) { return p[0]; }
static inline uint64_t rl_fload2(const uint8_t *p) { return rl_get16(p); }
static inline uint64_t rl_fload3(const uint8_t *p) { return rl_get24(p); }
static inline uint64_t rl_fload4(const uint8_t *p) { return rl_get32(p); }
static inline uint64_t rl_fload8(const uint8_t *p) { return rl_get64(p); }
static inline void rl_fstore1(uint8_t *p, uint64_t v) { p[0] = (uint8_t)v; }
static inline void rl_fstore2(uint8_t *p, uint64_t v) { rl_put16(p, (uint16_t)v); }
static inline void rl_fstore3(uint8_t *p, uint64_t v) { rl_put24(p, (uint32_t)v); }
static inline void rl_fstore4(uint8_t *p, uint64_t v) { rl_put32(p, (uint32_t)v); }
static inline void rl_fstore8(uint8_t *p, uint64_t v) { rl_put64(p, v); }

#define RL_FIELD_MASK(bits) (~0ull >> (64 - (bits)))
/* A field's value, from the first byte of its header. */
#define RL_FIELD_GET(h, off, bytes, shift, bits)                                                   \
	((rl_fload##bytes((h) + (off)) >> (shift)) & RL_FIELD_MASK(bits))
/* Put a field into a header whose bytes start out zero. */
#define RL_FIELD_PUT(h, off, bytes, shift, bits, v)                                                \
	rl_fstore##bytes((h) + (off),                                                              \
			 rl_fload##bytes((h) + (off)) | ((uint64_t)(v) & RL_FIELD_MASK(bits)) << (shift))

#endif
