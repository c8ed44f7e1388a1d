/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer: the reference transport on a real interface, one endpoint
 * per process, like perftest and ibv_rc_pingpong. This file holds the
 * options and the command; peer.h says where the rest lives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "peer.h"

#define PEER_PAGE 4096

const char *const peer_op_names[PEER_NOPS] = { "send", "write", "read", "pingpong", "fetch-add", "cmp-swap", "write-imm" };

void peer_opts_init(struct peer_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_s = 30;
	o->gid_index = -1;
	o->max_size = PEER_SERVE_MAX;
	o->seed = peer_now() ^ ((uint64_t)getpid() << 32);
}

bool peer_atomic(enum peer_op op)
{
	return op == PEER_FETCH_ADD || op == PEER_CMP_SWAP;
}

bool peer_sends(enum peer_op op)
{
	return op == PEER_SEND || op == PEER_PINGPONG;
}

bool peer_writes(enum peer_op op)
{
	return op == PEER_WRITE || op == PEER_WRITE_IMM;
}

bool peer_receives(enum peer_op op)
{
	return peer_sends(op) || op == PEER_WRITE_IMM;
}

/*
 * The data both ends know. Ours: a pattern of the offset. The pingpong
 * tools': 0x7b (their memset), and with their -c the client zeroes the
 * first byte of every page; either is accepted from the other side.
 */
uint8_t peer_pattern(const struct peer *p, size_t i)
{
	if (p->o.compat)
		return i % PEER_PAGE ? 0x7b : 0;
	return (uint8_t)(i * 7 + 3);
}

uint32_t peer_msg_len(const struct peer *p)
{
	return p->stat.len ? p->stat.len : p->o.size;
}

bool peer_check(const struct peer *p, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != peer_pattern(p, i) && !(p->o.compat && b[i] == 0x7b))
			return false;
	return true;
}

void peer_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab peer [options]                server (no address)\n"
		"       rocelab peer [options] ADDR           client of the server at ADDR\n"
		"       rocelab peer --server | --client ADDR [options]\n\n"
		"Run the reference RoCEv2 transport over a real interface: one endpoint per process, like\n"
		"perftest (ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw, ib_send_lat) and\n"
		"ibv_rc_pingpong / ibv_ud_pingpong, with their flags for what they share. The frames are\n"
		"genuine RoCEv2 (UDP port 4791, ICRC) that tcpdump and Wireshark show. The client runs the\n"
		"test; the server learns the operation, size, count, -a and -D from it (and accepts them too,\n"
		"as perftest wants them at both ends).\n\n"
		"options (the short ones are perftest's and ibv_rc_pingpong's):\n"
		"  ADDR                 the server's address (IPv4, or IPv6 with --ipv6); none: be the server\n"
		"      --server         wait for a client (the same as no address)\n"
		"      --client ADDR    connect to the server at ADDR (the same as ADDR last)\n"
		"  -o, --op OP          send, write, write-imm, read, fetch-add, cmp-swap (bandwidth) or\n"
		"                       pingpong (SEND latency); default write (UD: send). write-imm: RDMA\n"
		"                       WRITE with immediate, which takes a receive at the server and completes\n"
		"                       there with its immediate (IBV_WC_RECV_RDMA_WITH_IMM)\n"
		"  -t, --transport T    rc (reliable connected, default), uc (unreliable connected: SEND and\n"
		"                       WRITE, never acknowledged; a message that lost a packet is dropped whole,\n"
		"                       IBA 9.8.3) or ud (unreliable datagram: SEND only, one packet per message);\n"
		"                       uc and ud resend nothing, and nothing paces them: a sender faster than\n"
		"                       the receiver loses messages too; the server must say the same\n"
		"  -c, --connection T   perftest's spelling of it: RC, UC or UD\n"
		"  -s, --size BYTES     message size; default 65536 (pingpong: 2, UD: 1024). Server: the\n"
		"                       largest a client may ask for; default 8 MiB (-a's largest)\n"
		"  -n, --iters N        messages; default 1000\n"
		"  -D, --duration SEC   send for this long instead of -n messages (the table counts them)\n"
		"  -a, --all            every size from 2 to 2^23 bytes (UD: to the path MTU), doubling, -n\n"
		"                       messages each, a row of the table per size, as perftest's -a\n"
		"  -m, --mtu BYTES      path MTU 256..4096; default: what the interface carries, as rxe picks it\n"
		"  -w, --window N       work requests outstanding; default 16\n"
		"  -6, --ipv6           RoCEv2 over IPv6 (the server listens on IPv6; GIDs are IPv6 addresses)\n"
		"  -I, --interface IF   use this interface (its addresses, GID table and MTU)\n"
		"  -d, --ib-dev IF      perftest's RDMA device: rocelab peer is an RDMA device of its own, on an\n"
		"                       interface, so -d names the interface (-d rl-a0, as --interface); a\n"
		"                       kernel device (-d rxe0) is refused: rxe and rocelab cannot share one\n"
		"  -i, --ib-port 1      the device's port: 1, its only one\n"
		"  -x, -g, --gid-index N  the local GID, by index in the interface's GID table (perftest -x,\n"
		"                       ibv_rc_pingpong -g); default: the address facing the peer\n"
		"  -q, --qps N          QPs: 1 only here; N QPs: --compat ib_send_bw (ib_write_bw, ib_read_bw,\n"
		"                       ib_atomic_bw) -q N against perftest, --compat pingpong --srq N, --compat\n"
		"                       ucmatose -c N\n"
		"      --compat rping   rping's protocol and flags: see below\n"
		"      --compat ucmatose, --compat udaddy  cmatose's and udaddy's: see below\n"
		"      --compat ib_send_bw (ib_write_bw, ib_read_bw, ib_atomic_bw, ib_send_lat, ib_write_lat,\n"
		"                       ib_read_lat)  talk to the real perftest tool: its flags, see below\n"
		"      --compat pingpong  talk to the real ibv_rc_pingpong (ibv_uc_pingpong with -t uc,\n"
		"                       ibv_ud_pingpong with -t ud): its exchange only, its data and\n"
		"                       iterations; defaults follow the tool (size 4096, UD 2048; path MTU 1024)\n"
		"      --srq N          with --compat pingpong: talk to the real ibv_srq_pingpong -q N: N RC QPs\n"
		"                       that take their receives from one shared receive queue of 500, its\n"
		"                       exchange (a line per QP) and its loop (--iters SENDs in all); 1..256\n"
		"  -R, --cm             connect through the CM on QP1 (rdma_cm: REQ, REP, RTU; DREQ, DREP at the\n"
		"                       end; SIDR_REQ, SIDR_REP with -t ud), as perftest's -R, instead of the\n"
		"                       TCP exchange; both ends say it. The client's REQ carries the test in\n"
		"                       rocelab's private data after rdma_cm's header (op, transport, MTU, size,\n"
		"                       iterations; the REP the server's buffer): the server needs no --op or\n"
		"                       --size. A REQ without it (perftest -R's) is served with the server's own\n"
		"                       flags, as perftest's two ends must be given the same. The server checks\n"
		"                       the data and says so itself: nothing comes back to the client after the\n"
		"                       test. The server learns its address from the client's first frame.\n"
		"  -p, --port PORT      TCP port of the connection exchange (--cm: the rdma_cm port); default\n"
		"                       18515\n"
		"      --loss RATE      drop this fraction of received frames on purpose, to watch recovery\n"
		"      --tx-loss RATE   drop this fraction of the frames this side sends, as if lost on the way\n"
		"                       (loss at the other side's ingress, when that side is not rocelab)\n"
		"      --drop-request N server: drop the Nth RoCE packet it receives (1-based; the client's\n"
		"                       requests, resends counted), once: a loss at a known place, as\n"
		"                       'rocelab gen --drop-request N' makes it\n"
		"      --seed N         for --loss and the first PSN; default from the clock\n"
		"      --qpn N          this end's QP number; default 0x11, the first one rxe hands out\n"
		"                       (rxe numbers each new QP one higher: a second run is 0x12)\n"
		"      --timeout SEC    give up after this long (and on each line of the TCP exchange, and on\n"
		"                       connect); default 30\n"
		"      --allow-other-gid  send RoCE to a GID in the exchange that is not the address the\n"
		"                       exchange came from (refused without it: see the last lines)\n"
		"      --busy-poll      spin instead of sleeping in poll()\n"
		"  -Q, --cq-mod N       client: IBV_SEND_SIGNALED on one work request in N (and a round's last)\n"
		"                       only, as perftest's -Q: the rest complete without a completion (an\n"
		"                       unsignaled one that fails still makes one); N <= --window; not with\n"
		"                       pingpong, atomics or -D\n"
		"      --show-wc        print every completion as a libibverbs program would: ibv_wc_status's\n"
		"                       name and number (IBV_WC_SUCCESS (0)), wr_id, opcode, QP. A failed one\n"
		"                       is always printed; after it the flushed ones (IBV_WC_WR_FLUSH_ERR) are\n"
		"                       counted on one line unless --show-wc\n"
		"      --json           one JSON object with the results, for scripts (a failed run: the\n"
		"                       first failed completion's status, the flushes, the QP's state)\n"
		"\nCongestion control (IBA A17.9, DCQCN: Zhu et al., SIGCOMM 2015; labs on congestion):\n"
		"      --cc ALGO        the QP's reaction point: none (the default, as rxe: CNPs are counted,\n"
		"                       nothing slows down) or dcqcn (a CNP cuts the QP's rate Rc, timers and a\n"
		"                       byte counter raise it again; the requests carry ECT(0) in the IP header,\n"
		"                       as a NIC with DCQCN on marks its RoCE traffic). RC and UC only\n"
		"      --rate GBPS      cap the QP's sending rate at GBPS Gb/s, decimal (0.5 is 500 Mb/s), as\n"
		"                       ibv_modify_qp_rate_limit()'s rate_limit: frames as the link carries them\n"
		"                       (Ethernet, IP, UDP, BTH..ICRC); with --cc dcqcn also DCQCN's ceiling\n"
		"                       (rpg_max_rate). Default: no cap\n"
		"      --cnp-interval USEC  the notification point: at most one CNP per QP in USEC us when\n"
		"                       CE-marked packets arrive (mlx5's roce_np min_time_between_cnps);\n"
		"                       default 50, 1..1000000\n"
		"      --dcqcn NAME=VALUE[,NAME=VALUE...]  with --cc dcqcn: its parameters by mlx5's roce_rp\n"
		"                       names and units, e.g. rpg_time_reset=300 (T, us), dce_tcp_g=960 (g = 1/16);\n"
		"                       repeatable; default the paper's. '--dcqcn list' shows every name, unit,\n"
		"                       range, the paper's and a ConnectX's value. explain's CNP notes on a\n"
		"                       capture still assume the paper's: it does not carry them\n"
		"                       A run that lasts over a second prints a line each second while data\n"
		"                       flows (the rate, Rc and DCQCN's stage with --cc dcqcn, CNPs this QP\n"
		"                       received and sent, CE-marked packets that arrived for it) and a line for\n"
		"                       the whole run (not with --json or --compat)\n"
		"  -h, --help           this text\n\n"
		"The classic mistakes, made on purpose (labs/12-pitfalls):\n"
		"      --no-grh         move the QP to RTR without a GRH (ibv_ah_attr.is_global = 0): RoCE\n"
		"                       has no LIDs, so the kernel refuses it (EINVAL), and so does this\n"
		"      --bad-rkey       client: RDMA work requests with the server's R_Key, low byte inverted:\n"
		"                       NAK remote access error, IBV_WC_REM_ACCESS_ERR, the QP in error\n"
		"      --bad-va         client: RDMA work requests 1 MiB past the server's address (the same)\n"
		"      --va-offset BYTES  client: RDMA work requests BYTES past the server's address; past the end\n"
		"                       of its region, the same NAK (--bad-va is --va-offset 1048576)\n"
		"      --bad-at K       client: only the Kth RDMA work request (1-based) aims wrong, as\n"
		"                       'rocelab gen access-error --bad-write K': those before it complete\n"
		"      --retry-cnt N    the RC QP's retry count at RTS, 0..7 (default 7, as perftest and\n"
		"                       ibv_rc_pingpong): unanswered requests are sent again N times, then\n"
		"                       the work request fails, 'transport retry counter exceeded' (the\n"
		"                       kernel's rxe takes 7 as 'for ever' and never gives up)\n"
		"  -u, --qp-timeout N   ibv_qp_attr.timeout, 0..31: the local ACK timeout, 4.096 us * 2^N, after\n"
		"                       which an unanswered request is sent again (IBA 9.7.6.1.3); 0 waits for\n"
		"                       ever; default 14 (67 ms), as perftest's -u\n\n"
		"Receiver not ready (labs/10-rnr): faults made for real between two peers:\n"
		"      --no-recv        server: post no receive WQE at all: every SEND is answered with an RNR\n"
		"                       NAK, until the client's rnr_retry runs out (IBV_WC_RNR_RETRY_EXC_ERR)\n"
		"      --recv-delay MS  server: post the receives only MS ms (1..60000) after the QP is in RTS:\n"
		"                       the first SENDs meet RNR NAKs, are retried, and get through\n"
		"      --min-rnr-timer N  ibv_qp_attr.min_rnr_timer, 0..31: the timer code this side's RNR NAKs\n"
		"                       carry in the AETH, how long the requester waits (IBA 9.7.5.2.8 Table 46:\n"
		"                       12 = 0.64 ms, 14 = 1.28 ms, 0 = 655.36 ms); default 12\n"
		"      --rnr-retry N    ibv_qp_attr.rnr_retry, 0..7: how often an RNR NAKed request is sent\n"
		"                       again before IBV_WC_RNR_RETRY_EXC_ERR; 7 (the default) retries for ever\n\n"
		"--compat rping: rping's protocol (librdmacm's example: the client advertises a buffer, the\n"
		"server READs it, says go ahead, WRITEs it back into a second one), rping's flags and output:\n"
		"  rocelab peer --compat rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n"
		"  rocelab peer --compat rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n"
		"  -s / -c              server / client\n"
		"  -a ADDR              client: the server's address; server: listen on it (default: any)\n"
		"  -I ADDR              client: the source address (rping's -I; the interface is --interface)\n"
		"  -p PORT              port; default 7174, rping's\n"
		"  -C COUNT             client: pings; 0 or none: until interrupted, as rping (the server\n"
		"                       answers until the client disconnects, as rping's does)\n"
		"  -S SIZE              ping data size, 23..65535 (rping's limits); default 64\n"
		"  -v                   print the data: \"ping data: ...\" (client), \"server ping data: ...\"\n"
		"  -V                   client: compare the data written back with the data sent\n"
		"  -d                   rping's debug lines, the rdma_cm events among them\n"
		"  and rocelab's own: --interface IF, --timeout SEC (for each wait), --loss RATE, --tx-loss RATE,\n"
		"  --seed N, --qpn N, --json (a summary after rping's output), and --corrupt (server: change\n"
		"  one byte of each ping before writing it back, so that the client's -V has something to find).\n"
		"  rping's -P (persistent server) and -q (self-created QP) are not supported.\n"
		"  The two ends connect as rping's do, through rdma_cm on QP1 (REQ, REP, RTU; DREQ, DREP), so\n"
		"  the other end may be the real rping; -d prints the rdma_cm events as they come.\n\n"
		"--compat ucmatose, --compat udaddy: librdmacm's examples cmatose (RC, REQ/REP/RTU, DREQ/DREP)\n"
		"and udaddy (UD, SIDR_REQ/SIDR_REP), their flags, protocol, output and exit status:\n"
		"  rocelab peer --compat ucmatose [-b addr] [-c conns] [-C count] [-S size] [-p port] [-m]\n"
		"  rocelab peer --compat ucmatose -s addr [-b addr] [-c conns] [-C count] [-S size] [-p port]\n"
		"  rocelab peer --compat udaddy [-s addr] [-b addr] [-c conns] [-C count] [-S size]\n"
		"  -s ADDR              client: the server's address (without -s: the server)\n"
		"  -b ADDR              server: listen on it (default: any); client: the source address\n"
		"  -c CONNS             connections, each its own QP, opened at once; default 1, at most 16\n"
		"                       (the server waits for that many)\n"
		"  -C COUNT, -S SIZE    messages each way on each connection, and their size; default 10 of\n"
		"                       100 bytes (udaddy: at most the path MTU)\n"
		"  -p PORT              ucmatose's port, default 7471; udaddy's port is 7174 (its -p is the\n"
		"                       port space: 0x111, RDMA_PS_UDP, only); -P tcp / udp and -f ip are taken\n"
		"  ucmatose: the server SENDs, the client receives then SENDs back the buffer it received\n"
		"  into, the server sends a DREQ on each connection. udaddy: the client SENDs with immediate\n"
		"  (its QPN), the server answers to the sender its GRH names; SIDR has no disconnect.\n"
		"  The tools check no data; rocelab's ucmatose server checks the echo. A failed completion\n"
		"  fails the run, and each wait ends after --timeout (a UD datagram lost is never resent:\n"
		"  udaddy waits for every one). Also --interface, --loss, --tx-loss, --seed, --qpn, --json.\n"
		"  -t (type of service) and -a (ACK timeout) are not supported; -m only says it migrated.\n\n"
		"--compat ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw, ib_send_lat, ib_write_lat, ib_read_lat:\n"
		"perftest (Debian 12's, 4.5) at the other end: its flags, its exchange (TCP, or rdma_cm with -R), its\n"
		"test and output:\n"
		"  rocelab peer --compat ib_send_bw [-d IF] [-x GID] [-s size] [-n iters] [-c RC|UC|UD] [-F]\n"
		"  rocelab peer --compat ib_send_bw [-d IF] [-x GID] [-s size] [-n iters] [-c RC|UC|UD] [-F] SERVER\n"
		"  SERVER               the client: the server's address (without it: the server)\n"
		"  -d NAME              perftest's RDMA device; rocelab has none: an interface's name is taken as\n"
		"                       --interface, any other (rxe0) is shown in the header only\n"
		"  -x N                 the GID index (Soft-RoCE over IPv4: usually 1); default: the address facing\n"
		"                       the other side\n"
		"  -s SIZE, -n ITERS    message size and iterations; perftest's defaults (BW 65536, latency 2,\n"
		"                       atomic 8; 1000 iterations, 5000 for ib_write_bw). perftest exchanges no\n"
		"                       test parameters: give both ends the same -s and -n\n"
		"  -c RC|UC|UD          the transport; UC for the SEND and WRITE tools, UD for ib_send_bw and\n"
		"                       ib_send_lat (a message is one packet); over UC and UD nothing is resent\n"
		"  -t, -r, -Q N         TX depth, RX depth, CQ moderation, as perftest (shown in its header)\n"
		"  -m MTU, -p PORT      path MTU (the smaller of both ends'), TCP port (default 18515)\n"
		"  -F, -i 1             taken (CPU frequency, IB port) and nothing else\n"
		"  -q N                 the BW tools: N data QPs, 1..16384, each with its key message in the\n"
		"                       exchange (-R: an rdma_cm connection each); -n runs on each, the table\n"
		"                       counts N times -n; the latency tools run one, as perftest's; not\n"
		"                       with -R -c UD\n"
		"  -R                   perftest's rdma_cm exchange (give both ends -R; RC or UD): see below\n"
		"  -a                   every size from 2 to 2^23 bytes (UD: to the MTU), -n each, a row each, as\n"
		"                       perftest's -a (which ignores -s); not ib_atomic_bw\n"
		"  -D SEC               run SEC seconds; what completes between SEC/4 s (whole seconds) after\n"
		"                       the start and as long before the end counts (the latency tools: t_avg\n"
		"                       and tps, as perftest's duration table); not with -a\n"
		"  and rocelab's own: --interface IF, --timeout SEC, --loss RATE, --tx-loss RATE, --seed N, --qpn N,\n"
		"  --json (a summary instead of perftest's output).\n"
		"  The exchange is perftest's Ethernet one on TCP port 18515: the versions (6.06 here; 5.70 or later\n"
		"  wanted), page and cache line sizes, the MTU, then the 108-byte key message (LID, outstanding\n"
		"  reads, QPN, PSN, rkey, VA, GID) at each of the tool's synchronisation points, the client's BW\n"
		"  report to the server (ib_write_bw, ib_read_bw, ib_atomic_bw) and \"done\". The tests are\n"
		"  perftest's: BW keeps -t work requests outstanding until -n complete; ib_send_lat answers each\n"
		"  SEND; ib_write_lat polls the last byte of its buffer for the other side's count; ib_read_lat's\n"
		"  client READs, one at a time. Both ends print perftest's header and result table.\n"
		"  With -R the same messages go as SENDs on a QP of their own, connected by rdma_cm to port 18515\n"
		"  (the key message in binary, 56 bytes); the test's QP is connected by rdma_cm too, between two\n"
		"  hand shakes; no \"done\": the client's DREQ ends the test's connection, the server's the other.\n"
		"  A client the server refuses with REJ 8 (not listening yet) tries 10 times, 100 ms apart.\n"
		"  With -R -c UD the test's QP is found by SIDR instead (SIDR_REQ, and a SIDR_REP with the server's\n"
		"  QPN and Q_Key, in RDMA_PS_UDP on the same port; status 1, not listening yet, is tried again the\n"
		"  same way); ib_send_lat's client then SENDs its QPN as an immediate, for the server to answer.\n"
		"  Only the exchange's connection ends with DREQ and DREP, the client's.\n"
		"  -b (bidirectional) is not supported yet.\n\n"
		"example (two network namespaces joined by a veth pair), as ib_write_bw -x 1 at both ends:\n"
		"  ip netns exec B rocelab peer -x 1\n"
		"  ip netns exec A rocelab peer -x 1 --op write -s 65536 10.0.0.2\n"
		"  ip netns exec B rocelab peer -c UD\n"
		"  ip netns exec A rocelab peer -c UD --op pingpong -a 10.0.0.2\n"
		"  ip netns exec B rocelab peer --server --cm\n"
		"  ip netns exec A rocelab peer --client 10.0.0.2 --cm --op read\n\n"
		"rocelab peer is a teaching endpoint for a lab network, not a hardened service: it takes RoCE\n"
		"only from the address it is connected to and sends only to the one that made the exchange\n"
		"(--allow-other-gid aside), caps what a client may ask for (--size) and waits --timeout at\n"
		"most; but the exchange has no authentication and the wire no encryption. Anyone on the path\n"
		"can read, forge or disturb it. docs/peer-trust.md says what it trusts and what it does not.\n");
}

/* The path MTU @arg names in bytes, or 0 if it names none of the five (enum rl_mtu). */
static enum rl_mtu peer_mtu(const char *arg)
{
	uint64_t v;

	return cli_parse_u64(arg, UINT32_MAX, &v) ? rl_mtu_from_bytes(v) : 0;
}

/* What the options mean together; false (with a message) for combinations that cannot work. */
static bool peer_defaults(struct peer_opts *o, bool size_set, bool op_set)
{
	if (o->srq && (!o->compat || o->ud || o->uc)) {
		cli_error("peer", "--srq N is ibv_srq_pingpong's (RC QPs on one shared receive queue): use it with "
			  "--compat pingpong, without -t ud or -t uc");
		return false;
	}
	if (o->compat && o->cm) {
		cli_error("peer", "--compat pingpong is the pingpong tools' TCP exchange; --cm connects through the CM "
			  "instead: say one of them");
		return false;
	}
	if (o->compat) {
		if (op_set && o->op != PEER_PINGPONG) {
			cli_error("peer", "--compat pingpong runs the pingpong tools' exchange: no --op %s",
				  peer_op_names[o->op]);
			return false;
		}
		o->op = PEER_PINGPONG;
		if (!size_set)
			o->size = o->ud ? 2048 : 4096;
		if (!o->mtu && !o->ud)
			o->mtu = RL_MTU_1024;
	} else if (o->ud && !op_set) {
		o->op = PEER_SEND;
	}
	if (o->ud && !peer_sends(o->op)) {
		cli_error("peer", "--transport ud carries SEND only (no RDMA READ, WRITE or atomics on a datagram "
			  "service): use --op send or --op pingpong");
		return false;
	}
	/* The server's --size: the most a client's exchange may make it allocate (peer_size_allowed()). */
	if (size_set && o->server)
		o->max_size = o->size;
	if (!size_set && !o->compat)
		o->size = o->op == PEER_PINGPONG ? 2 : o->ud ? 1024 : 65536;
	if (o->all_sizes) {
		if (size_set) {
			cli_error("peer", "-a runs every size from 2 up: no --size with it");
			return false;
		}
		/* perftest's -a: 2 to 2^23 bytes (UD: up to the path MTU, set once it is known). */
		o->size = o->ud ? 4096 : PEER_ALL_MAX;
	}
	if (peer_atomic(o->op)) {
		if (size_set && o->size != 8) {
			cli_error("peer", "atomics work on 8 bytes: --size 8 or no --size");
			return false;
		}
		o->size = 8;
	}
	if (o->ud && o->size > 4096) {
		cli_error("peer", "a UD message is one packet: --size %u is more than the largest path MTU, 4096",
			  o->size);
		return false;
	}
	if (!o->seed)
		o->seed = 1;
	return true;
}

bool peer_rate(const char *opt, const char *arg, double *rate)
{
	char *end;

	errno = 0;
	*rate = strtod(arg, &end);
	if (errno || *end || !(*rate >= 0 && *rate < 1)) {
		cli_error("peer", "%s wants a fraction 0 <= RATE < 1, not '%s'", opt, arg);
		return false;
	}
	return true;
}

/*
 * -d DEV, perftest's and the pingpong tools' RDMA device. rocelab peer is an
 * RDMA device of its own, on an interface: DEV is taken as that interface.
 * A device of the kernel's (rxe0 on eth0) is named as such and refused.
 */
static bool peer_ib_dev(struct peer_opts *o, const char *dev)
{
	char path[128], ndev[IF_NAMESIZE + 1] = "";
	FILE *f;

	if (!*dev || strlen(dev) >= IF_NAMESIZE || strchr(dev, '/')) {
		cli_error("peer", "-d wants a device name, not '%s'", dev);
		return false;
	}
	if (if_nametoindex(dev)) {
		o->ibdev = dev;
		return true;
	}
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0", dev);
	if ((f = fopen(path, "r"))) {
		if (!fgets(ndev, sizeof(ndev), f))
			ndev[0] = '\0';
		fclose(f);
		ndev[strcspn(ndev, "\n")] = '\0';
	}
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev);
	if (ndev[0] || access(path, F_OK) == 0)
		cli_error("peer", "-d %s is an RDMA device of the kernel's%s%s: rocelab peer is an RDMA device of its "
			  "own, on an interface, and cannot share one with rxe (both take UDP port 4791): give an "
			  "interface no rxe device runs on, as -d IF or --interface IF", dev, ndev[0] ? ", on " : "", ndev);
	else
		cli_error("peer", "-d %s: no interface of that name here; rocelab has no RDMA device called %s, it is "
			  "one of its own, on an interface: give the interface as -d IF ('ip -br link' lists them), or "
			  "leave -d out for the one that faces the other side", dev, dev);
	return false;
}

/* -s was --server before it was the size: said when -s has no number after it. */
static void peer_size_hint(void)
{
	fprintf(stderr, "rocelab peer: -s is the message size, as perftest's and ibv_rc_pingpong's -s; the server is "
		"'rocelab peer' without an address (or --server)\n");
}

/* A missing value, or an unknown option; the flags that meant something else before are said so. */
static void peer_opt_error(int c, char **argv)
{
	cli_opt_error("peer", c, argv);
	if (c == ':' && optopt == 's')
		peer_size_hint();
	else if (c == '?' && optopt == 'S')
		fprintf(stderr, "rocelab peer: the message size is -s or --size (perftest's -S is the service level)\n");
}

/* -c T, perftest's connection type (RC, UC, UD), as --transport t; the old -c ADDR is said so. */
static const char *peer_conn_type(const char *arg, char *buf, size_t n)
{
	size_t i;

	if (strchr(arg, '.') || strchr(arg, ':')) {
		cli_error("peer", "-c is the connection type, as perftest's -c (RC, UC or UD), not an address: give the "
			  "server's address last ('rocelab peer [options] %s') or as --client %s", arg, arg);
		return NULL;
	}
	for (i = 0; arg[i] && i + 1 < n; i++)
		buf[i] = (char)(arg[i] >= 'A' && arg[i] <= 'Z' ? arg[i] - 'A' + 'a' : arg[i]);
	buf[i] = '\0';
	return buf;
}

/* The server's address: the argument after the options, or --client ADDR (the same one, if both). */
static bool peer_positional(int argc, char **argv, struct peer_opts *o)
{
	if (optind + 1 < argc) {
		cli_error("peer", "unexpected argument '%s': the one argument is the server's address", argv[optind + 1]);
		return false;
	}
	if (optind == argc)
		return true;
	if (o->addr && strcmp(o->addr, argv[optind])) {
		cli_error("peer", "two server addresses, --client %s and %s: say one", o->addr, argv[optind]);
		return false;
	}
	o->addr = argv[optind];
	if (o->server) {
		cli_error("peer", "--server waits for a client, but %s is a server's address: leave out --server to "
			  "be the client of %s, or the address to be the server", o->addr, o->addr);
		return false;
	}
	return true;
}

/* The flags perftest's and the pingpong tools' users type, as they mean there (-d, -q, -D, -a, -i). */
static bool peer_perftest_flags(struct peer_opts *o, bool iters_set)
{
	if (o->ibdev) {
		if (o->ifname && strcmp(o->ifname, o->ibdev)) {
			cli_error("peer", "-d %s and --interface %s name two interfaces: say one", o->ibdev, o->ifname);
			return false;
		}
		o->ifname = o->ibdev;
		if (!o->json)
			fprintf(stderr, "rocelab peer: note: -d %s is the interface %s: rocelab peer is an RDMA device of "
				"its own on it (no kernel RDMA device is used)\n", o->ibdev, o->ibdev);
	}
	if (o->qps > 1) {
		cli_error("peer", "-q %u: rocelab peer runs one QP per process in its own test; -q N works with "
			  "--compat ib_send_bw, ib_write_bw, ib_read_bw or ib_atomic_bw (perftest's exchange, at both "
			  "ends: rocelab or the real perftest); several connections, each its own QP: --compat "
			  "ucmatose -c N", o->qps);
		return false;
	}
	if (o->duration_s && iters_set) {
		cli_error("peer", "-D runs for a time, -n counts messages: say one of them");
		return false;
	}
	if (o->duration_s && o->all_sizes) {
		cli_error("peer", "-a runs -n messages of each size: no -D with it");
		return false;
	}
	if ((o->duration_s || o->all_sizes) && (o->compat || o->cm)) {
		cli_error("peer", "%s works over rocelab's own test exchange: not with %s", o->all_sizes ? "-a" : "-D",
			  o->compat ? "--compat pingpong (the tools count rounds, -n)" : "--cm (the REQ carries one size "
			  "and count)");
		return false;
	}
	if (o->all_sizes && peer_atomic(o->op)) {
		cli_error("peer", "-a: atomics work on 8 bytes only");
		return false;
	}
	return true;
}

/* --no-recv, --recv-delay, --drop-request and -Q: whose they are, and what they go with; false with a message. */
static bool peer_fault_flags(const struct peer_opts *o)
{
	if ((o->no_recv || o->recv_delay_ms) && (!o->server || o->ud || o->uc || o->srq)) {
		cli_error("peer", "--no-recv and --recv-delay are the server's (its receive queue stays empty) over "
			  "RC, where a SEND that finds no receive WQE is answered with an RNR NAK (IBA 9.7.5.2.8); UC and "
			  "UD drop it without a word");
		return false;
	}
	if (o->drop_request && !o->server) {
		cli_error("peer", "--drop-request is the server's: it drops the Nth of the client's request packets "
			  "to arrive");
		return false;
	}
	if (o->no_recv && o->recv_delay_ms) {
		cli_error("peer", "--no-recv posts no receive at all, --recv-delay posts them late: say one of them");
		return false;
	}
	if (!o->cq_mod)
		return true;
	if (o->server || o->op == PEER_PINGPONG || peer_atomic(o->op) || o->duration_s) {
		cli_error("peer", "-Q (--cq-mod) leaves the client's bandwidth work requests unsignaled: not on the "
			  "server, and not with pingpong, atomics (each one's value is checked at its completion) or -D "
			  "(no last work request to signal)");
		return false;
	}
	if (o->cq_mod > o->window) {
		cli_error("peer", "-Q %u is more than --window %u: the window would fill with work requests none of "
			  "which completes", o->cq_mod, o->window);
		return false;
	}
	return true;
}

/* --cc, --rate and --cnp-interval together; false with a message. */
static bool peer_cc_flags(const struct peer_opts *o)
{
	char why[256];

	if (o->cc != RL_CC_NONE && o->ud) {
		cli_error("peer", "--cc %s needs a connected QP (RC or UC): a CNP answers the one QP that sent the "
			  "marked packet, and a UD QP has none (IBA A17.9)", rl_cc_algo_name(o->cc));
		return false;
	}
	if (o->dcqcn_set && o->cc != RL_CC_DCQCN) {
		cli_error("peer", "--dcqcn tunes DCQCN's reaction point: give --cc dcqcn with it");
		return false;
	}
	if (o->cc == RL_CC_DCQCN && o->rate_bps && o->rate_bps < o->dcqcn.min_rate_bps) {
		cli_error("peer", "--rate below %g Gb/s is under DCQCN's floor (rpg_min_rate, %" PRIu64 " Mb/s) with --cc dcqcn",
			  (double)o->dcqcn.min_rate_bps / 1e9, o->dcqcn.min_rate_bps / PEER_BPS_PER_MBPS);
		return false;
	}
	/* The line rate DCQCN starts from: the core's default, or --rate below it (cc.c). */
	if (o->cc == RL_CC_DCQCN &&
	    rl_dcqcn_params_check(&o->dcqcn, o->rate_bps && o->rate_bps < RL_CC_DEFAULT_LINE_RATE ? o->rate_bps
											       : RL_CC_DEFAULT_LINE_RATE,
				  why, sizeof(why))) {
		cli_error("peer", "--dcqcn: %s", why);
		return false;
	}
	return true;
}

static bool peer_parse(int argc, char **argv, struct peer_opts *o, int *rc)
{
	enum { O_LOSS = 256, O_SEED, O_QPN, O_TIMEOUT, O_BUSY, O_JSON, O_COMPAT, O_CM, O_TX_LOSS, O_SRQ, O_NO_GRH,
	       O_BAD_RKEY, O_BAD_VA, O_RETRY_CNT, O_ALLOW_GID, O_VA_OFFSET, O_NO_RECV, O_RECV_DELAY, O_MIN_RNR_TIMER,
	       O_RNR_RETRY, O_SHOW_WC, O_DROP_REQUEST, O_BAD_AT, O_CC, O_RATE, O_CNP_INTERVAL, O_DCQCN };
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 'S' },       { "client", required_argument, NULL, 'C' },
		{ "op", required_argument, NULL, 'o' },     { "transport", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },   { "iters", required_argument, NULL, 'n' },
		{ "mtu", required_argument, NULL, 'm' },    { "window", required_argument, NULL, 'w' },
		{ "port", required_argument, NULL, 'p' },   { "ipv6", no_argument, NULL, '6' },
		{ "interface", required_argument, NULL, 'I' }, { "gid-index", required_argument, NULL, 'g' },
		{ "ib-dev", required_argument, NULL, 'd' }, { "ib-port", required_argument, NULL, 'i' },
		{ "qps", required_argument, NULL, 'q' },    { "duration", required_argument, NULL, 'D' },
		{ "all", no_argument, NULL, 'a' },          { "connection", required_argument, NULL, 'c' },
		{ "loss", required_argument, NULL, O_LOSS }, { "seed", required_argument, NULL, O_SEED },
		{ "qpn", required_argument, NULL, O_QPN },  { "drop-request", required_argument, NULL, O_DROP_REQUEST },
		{ "timeout", required_argument, NULL, O_TIMEOUT }, { "busy-poll", no_argument, NULL, O_BUSY },
		{ "json", no_argument, NULL, O_JSON },      { "compat", required_argument, NULL, O_COMPAT },
		{ "cm", no_argument, NULL, O_CM },          { "tx-loss", required_argument, NULL, O_TX_LOSS },
		{ "srq", required_argument, NULL, O_SRQ },
		{ "no-grh", no_argument, NULL, O_NO_GRH },  { "bad-rkey", no_argument, NULL, O_BAD_RKEY },
		{ "bad-va", no_argument, NULL, O_BAD_VA },  { "bad-at", required_argument, NULL, O_BAD_AT },
		{ "retry-cnt", required_argument, NULL, O_RETRY_CNT },
		{ "allow-other-gid", no_argument, NULL, O_ALLOW_GID },
		{ "va-offset", required_argument, NULL, O_VA_OFFSET }, { "no-recv", no_argument, NULL, O_NO_RECV },
		{ "recv-delay", required_argument, NULL, O_RECV_DELAY },
		{ "min-rnr-timer", required_argument, NULL, O_MIN_RNR_TIMER },
		{ "rnr-retry", required_argument, NULL, O_RNR_RETRY }, { "qp-timeout", required_argument, NULL, 'u' },
		{ "cq-mod", required_argument, NULL, 'Q' }, { "show-wc", no_argument, NULL, O_SHOW_WC },
		{ "cc", required_argument, NULL, O_CC },    { "rate", required_argument, NULL, O_RATE },
		{ "cnp-interval", required_argument, NULL, O_CNP_INTERVAL },
		{ "dcqcn", required_argument, NULL, O_DCQCN },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	static const char *const transports[] = { "rc", "ud", "uc" };
	static const char *const cc_algos[] = { [RL_CC_NONE] = "none", [RL_CC_DCQCN] = "dcqcn" };
	bool size_set = false, op_set = false, iters_set = false;
	char ctype[8];
	int c, t, saved_opterr = opterr;
	uint64_t v;

	peer_opts_init(o);
	rl_dcqcn_params_default(&o->dcqcn);
	o->op = PEER_WRITE;
	o->iters = 1000;
	o->window = 16;
	o->port = PEER_TCP_PORT;
	*rc = CLI_ERR;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:n:x:g:m:d:i:p:q:D:ac:t:o:w:6I:Ru:Q:h", lo, NULL)) != -1) {
		switch (c) {
		case 'S': o->server = true; break;
		case 'C': o->addr = optarg; break;
		case 'o':
			for (v = 0; v < PEER_NOPS && strcmp(optarg, peer_op_names[v]); v++)
				;
			if (v == PEER_NOPS) {
				cli_error("peer", "unknown --op '%s': send, write, read, pingpong, fetch-add or cmp-swap",
					  optarg);
				goto out;
			}
			o->op = (enum peer_op)v;
			op_set = true;
			break;
		case 'c':
			if (!(optarg = (char *)peer_conn_type(optarg, ctype, sizeof(ctype))))
				goto out;
			/* fall through */
		case 't':
			t = cli_arg_choice("peer", "--transport", optarg, transports, sizeof(transports) / sizeof(transports[0]));
			if (t < 0)
				goto out;
			o->ud = t == 1;
			o->uc = t == 2;
			break;
		case 's':
			if (!cli_arg_u64("peer", "--size", optarg, 1, 1u << 30, NULL, &v)) {
				if (optarg[0] == '-')
					peer_size_hint();
				goto out;
			}
			o->size = (uint32_t)v;
			size_set = true;
			break;
		case 'n':
			if (!cli_arg_u64("peer", "--iters", optarg, 1, 100000000, NULL, &v))
				goto out;
			o->iters = (uint32_t)v;
			iters_set = true;
			break;
		case 'm':
			o->mtu = peer_mtu(optarg);
			if (!o->mtu) {
				cli_error("peer", "--mtu wants 256, 512, 1024, 2048 or 4096, not '%s'", optarg);
				goto out;
			}
			break;
		case 'w':
			if (!cli_arg_u64("peer", "--window", optarg, 1, 1024, NULL, &v))
				goto out;
			o->window = (uint32_t)v;
			break;
		case 'p':
			if (!cli_arg_u64("peer", "--port", optarg, 1, 65535, NULL, &v))
				goto out;
			o->port = (uint16_t)v;
			break;
		case '6': o->ipv6 = true; break;
		case 'I':
			if (!*optarg || strlen(optarg) >= IF_NAMESIZE) {
				cli_error("peer", "--interface wants an interface name, not '%s'", optarg);
				goto out;
			}
			o->ifname = optarg;
			break;
		case 'd':
			if (!peer_ib_dev(o, optarg))
				goto out;
			break;
		case 'i':
			/* rocelab's device, like an rxe device, has one port: 1. */
			if (strcmp(optarg, "1")) {
				cli_error("peer", "-i %s: rocelab's RDMA device has one port, 1, as an rxe device", optarg);
				goto out;
			}
			break;
		case 'q':
			if (!cli_arg_u64("peer", "--qps", optarg, 1, 16384, NULL, &v))
				goto out;
			o->qps = (uint32_t)v;
			break;
		case 'D':
			if (!cli_arg_u64("peer", "--duration", optarg, 1, 3600, NULL, &v))
				goto out;
			o->duration_s = (uint32_t)v;
			break;
		case 'a': o->all_sizes = true; break;
		case 'g':
		case 'x':
			if (!cli_arg_u64("peer", "--gid-index", optarg, 0, 255, NULL, &v))
				goto out;
			o->gid_index = (int)v;
			break;
		case O_LOSS:
			if (!peer_rate("--loss", optarg, &o->loss))
				goto out;
			break;
		case O_TX_LOSS:
			if (!peer_rate("--tx-loss", optarg, &o->tx_loss))
				goto out;
			break;
		case O_SEED:
			if (!cli_arg_u64("peer", "--seed", optarg, 0, UINT64_MAX, NULL, &o->seed))
				goto out;
			break;
		case O_DROP_REQUEST:
			if (!cli_arg_u64("peer", "--drop-request", optarg, 1, UINT64_MAX, NULL, &o->drop_request))
				goto out;
			break;
		case O_QPN:
			/* QPs 0 and 1 are the management QPs (IBA 3.5.1). */
			if (!cli_arg_u64("peer", "--qpn", optarg, 2, 0xffffff, NULL, &v))
				goto out;
			o->qpn = (uint32_t)v;
			break;
		case O_TIMEOUT:
			if (!cli_arg_u64("peer", "--timeout", optarg, 1, 3600, NULL, &v))
				goto out;
			o->timeout_s = (uint32_t)v;
			break;
		case O_BUSY: o->busy_poll = true; break;
		case O_JSON: o->json = true; break;
		case 'R':
		case O_CM: o->cm = true; break;
		case O_SRQ:
			if (!cli_arg_u64("peer", "--srq", optarg, 1, PEER_SRQ_MAX_QP, NULL, &v))
				goto out;
			o->srq = (uint32_t)v;
			break;
		case O_NO_GRH: o->no_grh = true; break;
		case O_BAD_RKEY: o->bad_rkey = true; break;
		case O_BAD_VA: o->bad_va = true; break;
		case O_BAD_AT:
			if (!cli_arg_u64("peer", "--bad-at", optarg, 1, UINT64_MAX, NULL, &o->bad_at))
				goto out;
			break;
		case O_ALLOW_GID: o->allow_other_gid = true; break;
		case O_RETRY_CNT:
			/* A 3-bit field (IBA 9.7.6.1.3). */
			if (!cli_arg_u64("peer", "--retry-cnt", optarg, 0, 7, NULL, &v))
				goto out;
			o->retry_cnt = (uint8_t)v;
			o->retry_set = true;
			break;
		case O_VA_OFFSET:
			if (!cli_arg_u64("peer", "--va-offset", optarg, 1, PEER_VA_OFFSET_MAX, NULL, &o->va_offset))
				goto out;
			break;
		case O_NO_RECV: o->no_recv = true; break;
		case O_RECV_DELAY:
			if (!cli_arg_u64("peer", "--recv-delay", optarg, 1, 60000, NULL, &v))
				goto out;
			o->recv_delay_ms = (uint32_t)v;
			break;
		case O_MIN_RNR_TIMER:
			/* A 5-bit code in the RNR NAK's AETH (IBA 9.7.5.2.8, Table 46). */
			if (!cli_arg_u64("peer", "--min-rnr-timer", optarg, 0, 31, NULL, &v))
				goto out;
			o->min_rnr_timer = (uint8_t)v;
			o->rnr_timer_set = true;
			break;
		case O_RNR_RETRY:
			/* A 3-bit field; 7 means for ever (IBA 9.7.5.2.8). */
			if (!cli_arg_u64("peer", "--rnr-retry", optarg, 0, 7, NULL, &v))
				goto out;
			o->rnr_retry = (uint8_t)v;
			o->rnr_retry_set = true;
			break;
		case 'u':
			/* A 5-bit exponent: 4.096 us * 2^N (IBA 9.7.6.1.3). */
			if (!cli_arg_u64("peer", "--qp-timeout", optarg, 0, 31, NULL, &v))
				goto out;
			o->qp_timeout = (uint8_t)v;
			o->qp_timeout_set = true;
			break;
		case 'Q':
			if (!cli_arg_u64("peer", "--cq-mod", optarg, 1, 1024, NULL, &v))
				goto out;
			o->cq_mod = (uint32_t)v;
			break;
		case O_SHOW_WC: o->show_wc = true; break;
		case O_CC:
			t = cli_arg_choice("peer", "--cc", optarg, cc_algos, sizeof(cc_algos) / sizeof(cc_algos[0]));
			if (t < 0)
				goto out;
			o->cc = (enum rl_cc_algo)t;
			break;
		case O_RATE:
			if (!cli_arg_gbps("peer", "--rate", optarg, PEER_RATE_MIN_GBPS, PEER_RATE_MAX_GBPS, &o->rate_bps))
				goto out;
			break;
		case O_CNP_INTERVAL:
			if (!cli_arg_cnp_interval("peer", optarg, &o->cnp_interval_ns))
				goto out;
			break;
		case O_DCQCN:
			t = (int)cli_arg_dcqcn("peer", optarg, &o->dcqcn);
			if (t == CLI_DCQCN_LISTED)
				*rc = CLI_OK;
			if (t != CLI_DCQCN_SET)
				goto out;
			o->dcqcn_set = true;
			break;
		case O_COMPAT:
			if (!strcmp(optarg, "rping") || !strcmp(optarg, "ucmatose") || !strcmp(optarg, "udaddy")) {
				cli_error("peer", "--compat %s takes %s's flags: write it as '--compat %s'", optarg, optarg, optarg);
				goto out;
			}
			if (strcmp(optarg, "pingpong")) {
				cli_error("peer", "--compat knows these tools: pingpong (ibv_rc_pingpong, ibv_uc_pingpong, "
					  "ibv_ud_pingpong), rping, ucmatose and udaddy; and perftest's ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw, "
					  "ib_send_lat, ib_write_lat, ib_read_lat");
				goto out;
			}
			o->compat = true;
			break;
		case 'h':
			peer_usage(stdout);
			*rc = CLI_OK;
			goto out;
		default:
			peer_opt_error(c, argv);
			goto out;
		}
	}
	opterr = saved_opterr;
	if (o->server && o->addr) {
		cli_error("peer", "--server and --client together: say one (no address at all is the server)");
		return false;
	}
	if (!peer_positional(argc, argv, o))
		return false;
	o->server = !o->addr;
	if ((o->bad_rkey || o->bad_va || o->va_offset) &&
	    (o->server || o->ud || o->uc || o->compat || o->cm || peer_sends(o->op))) {
		cli_error("peer", "--bad-rkey, --bad-va and --va-offset aim the client's RDMA WRITE, READ or atomics at "
			  "the server's buffer (RC, rocelab's exchange): a SEND carries no R_Key or address");
		return false;
	}
	if (o->bad_at && !o->bad_rkey && !o->bad_va && !o->va_offset) {
		cli_error("peer", "--bad-at says which work request aims wrong: with --bad-rkey, --bad-va or --va-offset");
		return false;
	}
	if (o->bad_va && o->va_offset) {
		cli_error("peer", "--bad-va is --va-offset %u: say one of them", PEER_BAD_VA_OFFSET);
		return false;
	}
	if (o->bad_va)
		o->va_offset = PEER_BAD_VA_OFFSET;
	if (!peer_cc_flags(o))
		return false;
	return peer_perftest_flags(o, iters_set) && peer_defaults(o, size_set, op_set) && peer_fault_flags(o);
out:
	opterr = saved_opterr;
	return false;
}

/* Did standard output reach its file (not so on a full disk)? Else say so, and exit CLI_ERR. */
static int peer_output_written(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("peer", "cannot write the output");
		return CLI_ERR;
	}
	return rc;
}

/* Our options, or a tool's own after --compat rping, ucmatose or udaddy. */
static bool peer_parse_any(int argc, char **argv, struct peer_opts *o, int *rc)
{
	bool ud;
	unsigned tool;

	if (peer_perftest_asked(argc, argv, &tool))
		return peer_perftest_parse(argc, argv, tool, o, rc);
	if (peer_rping_asked(argc, argv))
		return peer_rping_parse(argc, argv, o, rc);
	if (peer_cmatose_asked(argc, argv, &ud))
		return peer_cmatose_parse(argc, argv, ud, o, rc);
	return peer_parse(argc, argv, o, rc);
}

int cli_peer(int argc, char **argv)
{
	struct peer p;
	int rc;

	memset(&p, 0, sizeof(p));
	p.net.tcp = p.net.rx = p.net.hold = -1;
	p.conn.qkey = PEER_QKEY;
	if (!peer_parse_any(argc, argv, &p.o, &rc))
		return peer_output_written(rc);
	if (cli_dry_parse())
		return CLI_OK;
	/*
	 * Wake when the pacer and DCQCN's timers ask (T and K: 55 us), not up to
	 * 50 us later, Linux's default timer slack for a ppoll() timeout, as the switch does.
	 */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	p.net.rng = p.o.seed;
	p.net.tx_rng = p.o.seed ^ 0x5bd1e9955bd1e995ull;
	rc = p.o.rping ? peer_rping_run(&p) : p.o.cmatose ? peer_cmatose_run(&p) : p.o.srq ? peer_srq_run(&p)
	     : p.o.perftest ? peer_perftest_run(&p) : peer_run(&p);
	peer_close(&p);
	return peer_output_written(rc);
}
