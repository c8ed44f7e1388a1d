/* SPDX-License-Identifier: MIT */
/*
 * An interface's RoCE GID table as Soft-RoCE (rxe) builds it: the one copy
 * that `rocelab gids` prints and `rocelab peer` picks its GID from.
 */
#ifndef ROCELAB_CLI_GIDS_H
#define ROCELAB_CLI_GIDS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_MAX_GIDS 16

/*
 * The table of one port. rxe's port speaks RoCEv2 only, so every entry is a
 * v2 one: 0 is the default GID, fe80:: with the EUI-64 of the MAC; then one
 * per IP address of the interface, as the kernel's ib_core adds them when
 * `rdma link add` finds them: the IPv4 addresses (as ::ffff:a.b.c.d) in the
 * interface's order, then the IPv6 addresses in theirs (`ip addr` lists both
 * orders), each address once.
 */
struct cli_gids {
	char ifname[IF_NAMESIZE];
	unsigned ifindex; /* the scope of a link-local GID's address */
	bool ethernet;    /* has a MAC; without one (a tunnel) rxe has no port here, and index 0 is fe80:: alone */
	int mtu;
	int n;
	uint8_t gid[CLI_MAX_GIDS][16];
};

/* @ifname's table into @t; -1 (said, as command @cmd) if there is no such interface or none can be listed. */
int cli_gid_table(const char *cmd, const char *ifname, struct cli_gids *t);
/* The name of the interface holding IPv4 address @ip4 (4 bytes) or IPv6 @ip6 (16), into @name; false if none. */
bool cli_gid_ifname_of(const void *addr, int family, char name[IF_NAMESIZE]);

bool cli_gid_is_link_local(const uint8_t gid[16]);
/* The default GID of an interface with MAC @mac: fe80::/64 and the modified EUI-64 (RFC 4291 2.5.1), as rxe's. */
void cli_gid_of_mac(const uint8_t mac[6], uint8_t gid[16]);
/* The GID as an IPv6 address (::ffff:10.0.0.1, fe80::1), or as sysfs writes it (8 groups of 4 hex digits). */
void cli_gid_str(const uint8_t gid[16], char *s, size_t n);
void cli_gid_sysfs(const uint8_t gid[16], char s[40]);

#endif
