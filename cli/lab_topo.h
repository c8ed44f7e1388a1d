/* SPDX-License-Identifier: MIT */
/*
 * rocelab lab: the topology. Two network namespaces, rl-a and rl-b, joined by
 * a veth pair, stand in for the two machines of a Soft-RoCE tutorial; a
 * capture (tcpdump, or libpcap in a user namespace) records what crosses.
 */
#ifndef ROCELAB_CLI_LAB_TOPO_H
#define ROCELAB_CLI_LAB_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define LAB_NS_A "rl-a"
#define LAB_NS_B "rl-b"
#define LAB_IF_A "rl-a0"
#define LAB_IF_B "rl-b0"
#define LAB_IP_A "10.90.0.1"
#define LAB_IP_B "10.90.0.2"

/*
 * The veth's link MTU: Ethernet's 1500 unless a lab or --mtu says otherwise;
 * no less than IPv6's minimum link MTU (RFC 8200 section 5), no more than an
 * IP packet's 16-bit length.
 */
/* gen captures use the lab's addresses, so a learner sees one pair of hosts throughout */
#define LAB_GEN_ADDR "--ip-a " LAB_IP_A " --ip-b " LAB_IP_B
#define LAB_MTU 1500
#define LAB_MTU_MIN 1280
#define LAB_MTU_MAX 65535

/*
 * The capture's ring. In immediate mode libpcap gives every frame a slot of
 * the snapshot length, 256 KiB by default on a veth (it has offloads): a 16 MiB
 * ring then held 64 frames of a burst. A slot of the link's largest frame
 * (MTU, Ethernet header and a VLAN tag, FCS room) in a 64 MiB ring holds
 * thousands; nothing here sends segmentation-offloaded frames.
 */
#define LAB_SNAPLEN(mtu) ((mtu) + 18u)
#define LAB_CAPTURE_KIB 65536u

/* Are both namespaces there? */
bool lab_is_up(void);

/*
 * The lab's lock, held until this process exits: one `lab run`, `up` or `down`
 * at a time, since all of them use the one pair of namespaces. The lock's file
 * descriptor, or -1 (said: which process holds it) if another holds it.
 */
int lab_lock(void);

/* In a user namespace made by an unprivileged user (uid 0 is not the real root)? */
bool lab_in_userns(void);

/* Can this process make network namespaces? In a user namespace, /run gets a tmpfs first. If not, @why says why. */
bool lab_netns_possible(char *why, size_t n);

/*
 * The two hosts at link MTU @mtu; *@made if this call made them (else they were
 * up, made by an earlier `lab up` or `run --keep`). 0, or -1 (said, and what
 * this call made undone). Namespaces rl-a or rl-b that rocelab did not make are
 * left alone, and refused.
 */
int lab_up(unsigned mtu, bool *made);

/*
 * Remove both namespaces (and the veth with them), if rocelab made them; ones
 * it did not make are left alone (said). 0, or -1 if a removal failed or was refused.
 */
int lab_down(void);

/*
 * A process living in network namespace @ns (named under /run/netns), 0 if
 * none does (a namespace left by a run that was killed), -1 if there is no
 * such namespace.
 */
pid_t lab_netns_user(const char *ns);

/* Print whether the topology is up, and its addresses and MTU; 0 if up, 1 if down. */
int lab_status(void);

/* RoCEv2's own frames: UDP destination port 4791 (IBA Annex A17.2.3). */
#define LAB_FILTER_ROCE "udp port 4791"

/*
 * Capture what @filter (a tcpdump filter: LAB_FILTER_ROCE, and the TCP
 * exchange of the lab's peers) takes on @ifname, of link MTU @mtu, in
 * namespace @ns into @pcap, its messages in @err. The capturer's pid, -1
 * (said) if it did not start.
 */
pid_t lab_capture_start(const char *pcap, const char *err, const char *ns, const char *ifname, unsigned mtu,
			const char *filter);

/* Stop the capturer @pid after the last frames; say if the kernel dropped any; remove @err. */
void lab_capture_stop(pid_t pid, const char *err);

#endif
