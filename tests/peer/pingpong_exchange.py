#!/usr/bin/python3
"""The TCP side of ibv_rc_pingpong's connection exchange, as its source
(rdma-core libibverbs/examples/rc_pingpong.c, pp_client_exch_dest and
pp_server_exch_dest) does it: 52 bytes "LID:QPN:PSN:GID" with the NUL, each
way; then the client writes "done" (5 bytes) and the server wants exactly
those 5 from a single read of up to 52. Checks that rocelab's side keeps to
it byte for byte.

usage: pingpong_exchange.py client|server ADDR GID-HEX-TAIL|zero
"""
import re
import socket
import sys

PORT = 18515
MSG = re.compile(rb"^[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{32}\0$")


def own(gid_tail):
    gid = "0" * 32 if gid_tail == "zero" else gid_tail.rjust(32, "0")
    msg = ("%04x:%06x:%06x:%s" % (0, 0x123, 0xABCDEF, gid)).encode() + b"\0"
    assert len(msg) == 52
    return msg


def read_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            break
        b += c
    return b


def check(msg, peer_addr):
    if not MSG.match(msg):
        sys.exit("not the pingpong format: %r" % msg)
    lid, qpn, psn, gid = msg[:-1].decode().split(":")
    if lid != "0000":
        sys.exit("LID %s: RoCE has no LID, the tools send 0000" % lid)
    want = "00000000000000000000ffff" + "".join("%02x" % int(x) for x in peer_addr.split("."))
    if gid != want:
        sys.exit("GID %s, not the IPv4-mapped %s" % (gid, want))
    return "QPN 0x%s PSN 0x%s GID %s" % (qpn, psn, gid)


def main():
    role, addr, gid_tail = sys.argv[1:4]
    if role == "client":
        s = socket.create_connection((addr, PORT), timeout=5)
        s.sendall(own(gid_tail))
        msg = read_exact(s, 52)
        if gid_tail == "zero":
            return
        said = check(msg, addr)
        s.sendall(b"done\0")
        s.close()
        print(said)
        return
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("", PORT))
    ls.listen(1)
    ls.settimeout(5)
    c, (peer, _) = ls.accept()
    c.settimeout(5)
    msg = read_exact(c, 52)
    said = check(msg, peer)
    c.sendall(own(gid_tail))
    done = c.recv(52)
    if done != b"done\0":
        sys.exit("after the addresses the client sent %r, not b'done\\0' in one piece" % done)
    c.close()
    print(said)


main()
