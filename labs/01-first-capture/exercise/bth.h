/* Lab 01, coding exercise: the Base Transport Header (IBA 9.2). */
#ifndef LAB_BTH_H
#define LAB_BTH_H

#include <stddef.h>
#include <stdint.h>

struct lab_bth {
	uint8_t opcode;  /* OpCode, 8 bits */
	uint8_t se;      /* Solicited Event, 1 bit */
	uint8_t migreq;  /* MigReq, 1 bit */
	uint8_t padcnt;  /* PadCnt, 2 bits */
	uint8_t tver;    /* Transport header version, 4 bits */
	uint16_t pkey;   /* P_Key, 16 bits */
	uint8_t fecn;    /* FECN, 1 bit (RoCEv2: IBA A17.4.2) */
	uint8_t becn;    /* BECN, 1 bit */
	uint32_t dqpn;   /* Destination QP, 24 bits */
	uint8_t ackreq;  /* AckReq, 1 bit */
	uint32_t psn;    /* PSN, 24 bits */
};

/*
 * Read the BTH at @p (@len bytes available) into @b. Return 0, or -1 if
 * @len is too short for a BTH. Reserved bits are not part of any field.
 */
int lab_parse_bth(const uint8_t *p, size_t len, struct lab_bth *b);

#endif
