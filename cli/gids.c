/* SPDX-License-Identifier: MIT */
/*
 * The RoCE GID table of an interface as Soft-RoCE (rxe) builds it, and
 * `rocelab gids`, which prints it the way OFED's show_gids prints a device's.
 *
 * What the kernel does (Debian 12's 6.1, checked in the realrxe VM against
 * /sys/class/infiniband/rxe0/ports/1/gids/N and gid_attrs/types/N): rxe's
 * port has only RoCEv2 entries (it is a UDP-encapsulating port: no RoCE v1
 * GIDs). Index 0 is the default GID, fe80:: and the EUI-64 of the MAC. When
 * `rdma link add` makes the device, ib_core's roce_gid_mgmt adds one entry
 * per address the interface holds: its IPv4 addresses first, then its IPv6
 * ones, each list in the order `ip addr` shows it, and an address equal to
 * an entry already there (the link-local address made from the MAC is the
 * default GID) not again. An address added later takes the first free
 * index, so a table can differ from this one after addresses come and go;
 * tests/realrxe compares the two on a fresh device.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "gids.h"
#include "rocelab/rocelab.h"

#define GIDS_DEFAULT_MTU 1500

bool cli_gid_is_link_local(const uint8_t gid[16])
{
	return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

void cli_gid_str(const uint8_t gid[16], char *s, size_t n)
{
	if (!inet_ntop(AF_INET6, gid, s, (socklen_t)n))
		snprintf(s, n, "?");
}

void cli_gid_sysfs(const uint8_t gid[16], char s[40])
{
	for (int i = 0; i < 8; i++)
		snprintf(s + 5 * i, 6, "%02x%02x%s", gid[2 * i], gid[2 * i + 1], i < 7 ? ":" : "");
}

static const void *gids_ifa_addr(const struct ifaddrs *i, int family)
{
	if (family == AF_INET)
		return &((const struct sockaddr_in *)i->ifa_addr)->sin_addr;
	return &((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
}

bool cli_gid_ifname_of(const void *addr, int family, char name[IF_NAMESIZE])
{
	struct ifaddrs *ifs, *i;
	bool found = false;

	if (getifaddrs(&ifs))
		return false;
	for (i = ifs; i && !found; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == family &&
		    !memcmp(gids_ifa_addr(i, family), addr, family == AF_INET ? 4 : 16)) {
			snprintf(name, IF_NAMESIZE, "%s", i->ifa_name);
			found = true;
		}
	freeifaddrs(ifs);
	return found;
}

static void gids_add(struct cli_gids *t, const uint8_t gid[16])
{
	for (int i = 0; i < t->n; i++)
		if (!memcmp(t->gid[i], gid, 16))
			return;
	if (t->n < CLI_MAX_GIDS)
		memcpy(t->gid[t->n++], gid, 16);
}

void cli_gid_of_mac(const uint8_t mac[6], uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = mac[0] ^ 2;
	memcpy(gid + 9, mac + 1, 2);
	gid[11] = 0xff;
	gid[12] = 0xfe;
	memcpy(gid + 13, mac + 3, 3);
}

/* The default GID (cli_gid_of_mac()); without a MAC fe80:: and false. */
static bool gids_default(const struct ifaddrs *ifs, const char *ifname, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	for (const struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		const struct sockaddr_ll *ll = (const void *)i->ifa_addr;

		if (!ll || ll->sll_family != AF_PACKET || ll->sll_halen != 6 || strcmp(i->ifa_name, ifname))
			continue;
		cli_gid_of_mac(ll->sll_addr, gid);
		return true;
	}
	return false;
}

static int gids_mtu(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), mtu = GIDS_DEFAULT_MTU;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (fd >= 0 && !ioctl(fd, SIOCGIFMTU, &ifr))
		mtu = ifr.ifr_mtu;
	if (fd >= 0)
		close(fd);
	return mtu;
}

int cli_gid_table(const char *cmd, const char *ifname, struct cli_gids *t)
{
	struct ifaddrs *ifs, *i;
	uint8_t gid[16];

	memset(t, 0, sizeof(*t));
	if (!ifname || strlen(ifname) >= IF_NAMESIZE || !if_nametoindex(ifname)) {
		cli_error(cmd, "no interface '%s' here ('ip -br link' lists them)", ifname ? ifname : "");
		return -1;
	}
	if (getifaddrs(&ifs)) {
		cli_error(cmd, "cannot list the interfaces: %s", strerror(errno));
		return -1;
	}
	snprintf(t->ifname, sizeof(t->ifname), "%s", ifname);
	t->ifindex = if_nametoindex(ifname);
	t->ethernet = gids_default(ifs, ifname, gid);
	gids_add(t, gid);
	for (int v6 = 0; v6 < 2; v6++)
		for (i = ifs; i; i = i->ifa_next) {
			if (!i->ifa_addr || strcmp(i->ifa_name, ifname) || i->ifa_addr->sa_family != (v6 ? AF_INET6 : AF_INET))
				continue;
			if (v6)
				memcpy(gid, gids_ifa_addr(i, AF_INET6), 16);
			else
				rl_gid_from_ipv4(gid, gids_ifa_addr(i, AF_INET));
			gids_add(t, gid);
		}
	freeifaddrs(ifs);
	t->mtu = gids_mtu(ifname);
	return 0;
}

/* ---- rocelab gids ---------------------------------------------------------------------------------- */

static void gids_usage(FILE *f)
{
	fprintf(f, "usage: rocelab gids [IF]\n\n"
		   "The RoCE GID table that Soft-RoCE (rdma_rxe) builds for interface IF when\n"
		   "'rdma link add NAME type rxe netdev IF' makes its device; without IF, that of every\n"
		   "interface that is up (but lo). The columns are OFED's show_gids': DEV (the RDMA\n"
		   "device: none exists here, so '-'), PORT, INDEX (what ibv_rc_pingpong -g and\n"
		   "perftest -x take), GID, IPv4 (for an IPv4-mapped GID), VER (rxe makes RoCE v2\n"
		   "entries only) and DEV (the interface). Index 0 is the link-local default GID (fe80::\n"
		   "and the MAC), then the IPv4 addresses, then the IPv6 ones. rocelab peer picks its\n"
		   "GID from this table.\n\n"
		   "  -h, --help   this text\n");
}

static void gids_print(const struct cli_gids *t, int *found)
{
	char g[40], a[INET_ADDRSTRLEN];

	for (int i = 0; i < t->n; i++, (*found)++) {
		cli_gid_sysfs(t->gid[i], g);
		if (rl_gid_is_ipv4(t->gid[i]))
			inet_ntop(AF_INET, t->gid[i] + 12, a, sizeof(a));
		/* show_gids' own spacing, so that its output and this one line up alike */
		if (rl_gid_is_ipv4(t->gid[i]))
			printf("-\t1\t%d\t%s\t%s \tv2\t%s\n", i, g, a, t->ifname);
		else
			printf("-\t1\t%d\t%s\t\t\tv2\t%s\n", i, g, t->ifname);
	}
}

int cli_gids(int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct if_nameindex *ifs;
	struct cli_gids t;
	int c, found = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'h') {
			gids_usage(stdout);
			return CLI_OK;
		}
		fprintf(stderr, "Try 'rocelab gids --help'.\n");
		return CLI_ERR;
	}
	if (argc - optind > 1) {
		cli_error("gids", "one interface at most, not %d ('rocelab gids --help')", argc - optind);
		return CLI_ERR;
	}
	if (cli_dry_parse())
		return CLI_OK;
	if (optind < argc && cli_gid_table("gids", argv[optind], &t))
		return CLI_BAD_INPUT;
	if (optind < argc && !t.ethernet) {
		cli_error("gids", "interface '%s' has no Ethernet (MAC) address: Soft-RoCE runs over Ethernet, so "
			  "rxe makes no GID table for it", t.ifname);
		return CLI_BAD_INPUT;
	}
	printf("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4 \t\tVER\tDEV\n");
	printf("---\t----\t-----\t---\t\t\t\t\t------------ \t---\t---\n");
	if (optind < argc) {
		gids_print(&t, &found);
	} else if ((ifs = if_nameindex())) {
		for (struct if_nameindex *i = ifs; i->if_index; i++) {
			struct ifreq ifr;
			int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			bool up;

			memset(&ifr, 0, sizeof(ifr));
			snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", i->if_name);
			up = fd >= 0 && !ioctl(fd, SIOCGIFFLAGS, &ifr) && (ifr.ifr_flags & IFF_UP) &&
			     !(ifr.ifr_flags & IFF_LOOPBACK);
			if (fd >= 0)
				close(fd);
			/* An interface without a MAC (a tunnel) has no table: left out. */
			if (up && !cli_gid_table("gids", i->if_name, &t) && t.ethernet)
				gids_print(&t, &found);
		}
		if_freenameindex(ifs);
	}
	printf("n_gids_found=%d\n", found);
	return CLI_OK;
}
