/* SPDX-License-Identifier: MIT */
/*
 * The raw UDP peers that bench part 7 measures rocelab peer against, on the
 * same veth pair in the same run: what a socket-based design can do at best.
 *
 *   udp_peer sink PORT [--gro]                 count what arrives; print "datagrams bytes seconds"
 *   udp_peer blast ADDR PORT SIZE SECONDS [--gso]
 *   udp_peer pong PORT [--busy]                echo every datagram
 *   udp_peer ping ADDR PORT SIZE ITERS [--busy] print the typical half round trip in us
 *
 * The sink stops 500 ms after the last datagram; its seconds run from the
 * first datagram to the last. --gso sends 15 datagrams per sendmsg with
 * UDP_SEGMENT; --gro lets the kernel coalesce them again (UDP_GRO).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int udp_socket(const char *addr, int port, struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), sz = 4 << 20, pmtu = IP_PMTUDISC_DO;

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (addr && inet_pton(AF_INET, addr, &sa->sin_addr) != 1) {
		fprintf(stderr, "udp_peer: '%s' is not an IPv4 address\n", addr);
		exit(2);
	}
	if (fd < 0) {
		perror("udp_peer: socket");
		exit(2);
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	return fd;
}

static int sink(int port, int gro)
{
	struct sockaddr_in sa;
	int fd = udp_socket(NULL, port, &sa), one = 1;
	static uint8_t buf[64][65536];
	struct mmsghdr mm[64];
	struct iovec iov[64];
	uint8_t cmsg[64][64];
	uint64_t dgrams = 0, bytes = 0, first = 0, last = 0;

	if (gro && setsockopt(fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one))) {
		perror("udp_peer: UDP_GRO");
		return 2;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("udp_peer: bind");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int n;

		if (poll(&pf, 1, dgrams ? 500 : 30000) != 1)
			break;
		for (int i = 0; i < 64; i++) {
			iov[i].iov_base = buf[i];
			iov[i].iov_len = sizeof(buf[i]);
			memset(&mm[i].msg_hdr, 0, sizeof(mm[i].msg_hdr));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_control = cmsg[i];
			mm[i].msg_hdr.msg_controllen = sizeof(cmsg[i]);
		}
		n = recvmmsg(fd, mm, 64, MSG_DONTWAIT, NULL);
		for (int i = 0; i < n; i++) {
			uint64_t seg = mm[i].msg_len;

			for (struct cmsghdr *c = CMSG_FIRSTHDR(&mm[i].msg_hdr); c; c = CMSG_NXTHDR(&mm[i].msg_hdr, c))
				if (c->cmsg_level == IPPROTO_UDP && c->cmsg_type == UDP_GRO) {
					int s;

					memcpy(&s, CMSG_DATA(c), sizeof(s));
					seg = (uint64_t)s;
				}
			dgrams += seg ? (mm[i].msg_len + seg - 1) / seg : 1;
			bytes += mm[i].msg_len;
		}
		if (n > 0) {
			last = now_ns();
			if (!first)
				first = last;
		}
	}
	printf("%llu %llu %.6f\n", (unsigned long long)dgrams, (unsigned long long)bytes,
	       (double)(last - first) / 1e9);
	return dgrams ? 0 : 1;
}

static int blast(const char *addr, int port, int size, double secs, int gso)
{
	struct sockaddr_in sa;
	int fd = udp_socket(addr, port, &sa), per = gso ? 15 : 1;
	static uint8_t buf[65536];
	uint64_t end, sent = 0;
	int seg = size;

	if (size < 1 || size * per > 65000) {
		fprintf(stderr, "udp_peer: size %d does not fit\n", size);
		return 2;
	}
	if (gso && setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &seg, sizeof(seg))) {
		perror("udp_peer: UDP_SEGMENT");
		return 2;
	}
	memset(buf, 0x5a, sizeof(buf));
	end = now_ns() + (uint64_t)(secs * 1e9);
	while (now_ns() < end)
		for (int i = 0; i < 64; i++)
			if (sendto(fd, buf, (size_t)(size * per), 0, (struct sockaddr *)&sa, sizeof(sa)) > 0)
				sent += (uint64_t)per;
			else if (errno != ENOBUFS && errno != EAGAIN && errno != ECONNREFUSED) {
				perror("udp_peer: sendto");
				return 2;
			}
	printf("%llu\n", (unsigned long long)sent);
	return 0;
}

/* One datagram, within 2 s: SO_RCVTIMEO bounds a blocking wait, the clock a busy one. */
static ssize_t recv_wait(int fd, void *b, size_t n, int busy, struct sockaddr_in *from, socklen_t *fl)
{
	uint64_t t0 = now_ns();
	ssize_t r;

	do
		r = recvfrom(fd, b, n, busy ? MSG_DONTWAIT : 0, (struct sockaddr *)from, fl);
	while (r < 0 && (errno == EINTR || (busy && errno == EAGAIN && now_ns() - t0 < 2000000000u)));
	return r;
}

static int pong(int port, int busy)
{
	struct sockaddr_in sa, from;
	int fd = udp_socket(NULL, port, &sa);
	uint8_t b[2048];
	struct timeval tv = { .tv_sec = 5 };

	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("udp_peer: bind");
		return 2;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		socklen_t fl = sizeof(from);
		uint64_t t0 = now_ns();
		ssize_t r;

		do
			r = recvfrom(fd, b, sizeof(b), busy ? MSG_DONTWAIT : 0, (struct sockaddr *)&from, &fl);
		while (r < 0 && busy && errno == EAGAIN && now_ns() - t0 < 5000000000u);
		if (r < 0)
			return 0; /* quiet for 5 s: the ping is over */
		sendto(fd, b, (size_t)r, 0, (struct sockaddr *)&from, fl);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int ping(const char *addr, int port, int size, int iters, int busy)
{
	struct sockaddr_in sa, from;
	int fd = udp_socket(addr, port, &sa);
	uint8_t b[2048];
	uint64_t *rtt = calloc((size_t)iters, sizeof(uint64_t));
	struct timeval tv = { .tv_sec = 2 };

	if (!rtt || size < 1 || size > (int)sizeof(b))
		return 2;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(b, 0x5a, sizeof(b));
	for (int i = 0; i < iters; i++) {
		socklen_t fl = sizeof(from);
		uint64_t t0 = now_ns();

		if (sendto(fd, b, (size_t)size, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    recv_wait(fd, b, sizeof(b), busy, &from, &fl) < 0) {
			perror("udp_peer: ping");
			return 2;
		}
		rtt[i] = now_ns() - t0;
	}
	qsort(rtt, (size_t)iters, sizeof(uint64_t), cmp_u64);
	/* As perftest's t_typical: the median, of half the round trip. */
	printf("%.2f\n", (double)rtt[iters / 2] / 2000.0);
	free(rtt);
	return 0;
}

int main(int argc, char **argv)
{
	int flag = argc > 1 && (!strcmp(argv[argc - 1], "--gro") || !strcmp(argv[argc - 1], "--gso") ||
				!strcmp(argv[argc - 1], "--busy"));
	int n = argc - flag;

	if (n == 3 && !strcmp(argv[1], "sink"))
		return sink(atoi(argv[2]), flag);
	if (n == 6 && !strcmp(argv[1], "blast"))
		return blast(argv[2], atoi(argv[3]), atoi(argv[4]), atof(argv[5]), flag);
	if (n == 3 && !strcmp(argv[1], "pong"))
		return pong(atoi(argv[2]), flag);
	if (n == 6 && !strcmp(argv[1], "ping"))
		return ping(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), flag);
	fprintf(stderr, "usage: udp_peer sink PORT [--gro] | blast ADDR PORT SIZE SECONDS [--gso] |\n"
			"       pong PORT [--busy] | ping ADDR PORT SIZE ITERS [--busy]\n");
	return 2;
}
