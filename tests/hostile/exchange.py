#!/usr/bin/python3
# Broken or hostile TCP exchanges against `rocelab peer --server`, one per run:
#   silent     connect, send nothing
#   half       half an exchange line, then nothing
#   nodone     a whole line, read the server's, never "done"
#   oversize   a good exchange asking for 1 GiB messages
#   othergid   a good line naming a GID that is not this side's address (.99 on its subnet), a
#              READ test; if the server takes it, RDMA READs forged from .99 with the R_Key, address
#              and PSNs the exchange gave: without a check, the server's READ responses go to .99
# Usage: exchange.py HOST PORT CASE MYIP HOLD_SECONDS
import socket
import sys
import time

host, port, case, myip, hold = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5])


def gid_of(ip):
    return "00000000000000000000ffff" + "".join("%02x" % int(b) for b in ip.split("."))


def line(ip):
    # ibv_rc_pingpong's "LID:QPN:PSN:GID" and its NUL: 52 bytes.
    return ("0000:000011:000001:" + gid_of(ip)).encode() + b"\0"


s = socket.create_connection((host, port), timeout=10)
if case == "half":
    s.sendall(line(myip)[:20])
elif case == "nodone":
    s.sendall(line(myip))
    s.recv(52)
elif case == "oversize":
    s.sendall(line(myip))
    s.recv(52)
    s.sendall(b"done\0")
    op = b"rocelab op send size 1073741824 iters 1 mtu 3 va 0000000010000000 rkey 0001005a transport rc"
    s.sendall(op.ljust(160, b"\0"))
    s.settimeout(hold)
    try:
        print(s.recv(160).rstrip(b"\0").decode(errors="replace"))
    except OSError:
        pass
elif case == "othergid":
    third = myip.rsplit(".", 1)[0] + ".99"
    s.sendall(line(third))
    theirs = s.recv(52).decode(errors="replace")
    s.sendall(b"done\0")
    op = b"rocelab op read size 65536 iters 1000 mtu 3 va 0000000010000000 rkey 0001005a transport rc"
    s.sendall(op.ljust(160, b"\0"))
    s.settimeout(hold)
    try:
        ans = s.recv(160).rstrip(b"\0").decode(errors="replace")
    except OSError:
        ans = ""
    print(ans)
    words = ans.split()
    if theirs.count(":") == 3 and "va" in words and "rkey" in words:
        import struct
        from scapy.all import IP, UDP, Raw, conf, send
        from scapy.contrib.roce import BTH
        conf.verb = 0
        qpn = int(theirs.split(":")[1], 16)
        va, rkey = int(words[words.index("va") + 1], 16), int(words[words.index("rkey") + 1], 16)
        # RC RDMA READ Request (opcode 0x0c), 64 KiB each: 64 PSNs of response apiece.
        send([IP(src=third, dst=host, flags="DF") / UDP(sport=0xc123, dport=4791) /
              BTH(opcode=0x0c, dqpn=qpn, psn=1 + 64 * i, ackreq=1) / Raw(struct.pack("!QII", va, rkey, 65536))
              for i in range(20)])
time.sleep(hold)
s.close()
