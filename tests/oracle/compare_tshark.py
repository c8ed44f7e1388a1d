#!/usr/bin/env python3
"""Wireshark oracle: compare `rocelab explain --json` with stock tshark.

usage: compare_tshark.py [--label TEXT] [--require-iba15] ROCELAB.jsonl TSHARK.json

--require-iba15: the capture must hold FLUSH (0x1c) and ATOMIC WRITE (0x1d)
packets (all-opcodes does), and each must be compared.

ROCELAB.jsonl is the output of `rocelab explain --json F.pcap` (one object per
RoCE packet per line).  TSHARK.json is the output of
    tshark -r F.pcap -T json -J "frame eth vlan ip ipv6 udp infiniband data"
i.e. Wireshark's built-in InfiniBand dissector (RRoCE on UDP 4791 and RoCEv1 on
ethertype 0x8915).  Every field tshark decodes is compared with rocelab's value
for the same frame number.

Prints one line per check, starting with PASS or FAIL (run.sh counts them),
plus indented detail / NOTE lines.  Exit status 0 if every check passed.

Only the standard library is used, so any python3 will do.

Known limitations of tshark 4.0's built-in dissector, handled explicitly below
(see TSHARK_UNKNOWN_OPCODES and TSHARK_DCT_OPCODES):

  * Opcodes it does not know at all: 0x1c RC FLUSH, 0x1d RC ATOMIC WRITE,
    0x81 CNP and the whole XRC range 0xa0-0xb7.  It prints them as
    "Unknown OpCode" and dumps everything after the BTH as "vendor" data
    (no extended headers, no Invariant CRC).  For these we compare the BTH
    fields; for FLUSH and ATOMIC WRITE also FETH, RETH, the payload length
    and the ICRC, cut from that blob by the IBA 1.5 layout (compare_iba15).
  * The RD range 0x40-0x5f: since Wireshark 3.x the dissector assumes that
    transport type 0b010 is Mellanox DC transport (DCT), not IBA Reliable
    Datagram.  It then treats the BTH as 20 bytes long (12 + an 8-byte DC
    header) and decodes RDETH/DETH/RETH/AETH/... 8 bytes too late (and for
    0x55 RESYNC it shows no headers at all).  So for RD opcodes 0x40-0x55 we
    compare only the (standard, first 12 bytes of the) BTH fields, plus the
    Invariant CRC when tshark shows it (it is always the last 4 bytes).
    Consequence: RDETH is never checked against tshark.
  * FECN/BECN are not separate fields: tshark shows the BTH byte that holds
    FECN (bit 7), BECN (bit 6) and 6 reserved bits as "infiniband.reserved"
    (a hex byte string).  We decode the two bits from it.
  * AtomicETH's VA and R_Key reuse the RETH field names
    (infiniband.reth.va / infiniband.reth.r_key) but sit in
    infiniband.atomiceth_tree, so we read them from that tree.
  * Formats: integers are decimal or 0x-hex strings, booleans "1"/"0",
    byte fields (immdt, ieth, the reserved byte) are "aa:bb:cc:dd".
  * Heuristic sub-dissectors (RPC-over-RDMA, iSER, SMB Direct, ...) may claim
    a random payload and throw before the Invariant CRC is shown.  run.sh
    disables them (--disable-heuristic); should one still take the payload
    (no "data" layer), the payload length and the presence of the ICRC are
    not checked for that packet.
"""

import ipaddress
import json
import sys

# Opcodes tshark 4.0's built-in dissector shows as "Unknown OpCode".
TSHARK_UNKNOWN_OPCODES = frozenset([0x1C, 0x1D, 0x81] + list(range(0xA0, 0xB8)))
# RD opcodes, which tshark >= 3.x decodes as Mellanox DCT (BTH + 8 bytes).
TSHARK_DCT_OPCODES = frozenset(range(0x40, 0x56))

# Extended headers: rocelab's key is also tshark's name (infiniband.<name>).
HEADERS = ["rdeth", "deth", "reth", "atomiceth", "aeth", "atomicacketh",
           "immdt", "ieth"]

AETH_TYPES = {0: "ACK", 1: "RNR NAK", 2: "reserved", 3: "NAK"}

MAX_DETAIL = 40


class Pairs(list):
    """A JSON object as a list of (key, value) pairs: tshark's JSON may repeat
    a key within one object, which a dict would silently collapse."""

    def get(self, key, default=None):
        for k, v in self:
            if k == key:
                return v
        return default

    def __contains__(self, key):
        return any(k == key for k, _ in self)


def load_tshark(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=Pairs)


def leaves(obj, out=None):
    """All (field, value) leaves below obj, in order, duplicates kept."""
    if out is None:
        out = []
    if isinstance(obj, Pairs):
        for k, v in obj:
            if isinstance(v, (Pairs, list)):
                leaves(v, out)
            else:
                out.append((k, v))
    elif isinstance(obj, list):
        for v in obj:
            leaves(v, out)
    return out


def one(fields, name):
    vals = [v for k, v in fields if k == name]
    if not vals:
        return None
    if len(vals) > 1:
        raise ValueError("field %s occurs %d times" % (name, len(vals)))
    return vals[0]


def num(s):
    s = str(s).strip()
    if s.lower().startswith("0x"):
        return int(s, 16)
    return int(s, 10)


def hexbytes(s):
    return int(str(s).replace(":", ""), 16)


def boolean(s):
    s = str(s).strip()
    if s in ("1", "True", "true"):
        return True
    if s in ("0", "False", "false"):
        return False
    raise ValueError("not a boolean: %r" % s)


def ipaddr(s):
    return ipaddress.ip_address(str(s))


def framing(r):
    link = "VLAN/" if "vlan" in r.get("eth", {}) else ""
    if r.get("roce") == 1:
        return link + "RoCEv1"
    return link + "IPv%s" % r.get("ip", {}).get("version", "?")


class Comparer:
    def __init__(self):
        self.values = 0
        self.mismatches = []  # messages
        self.what = []        # the field each mismatch is about
        self.iba15 = {}       # opcode: packets compared by compare_iba15

    def bad(self, what, msg):
        self.what.append(what)
        self.mismatches.append(msg)

    def cmp(self, r, what, ours, theirs_raw, conv):
        """Compare rocelab's value `ours` with tshark's raw string."""
        self.values += 1
        try:
            theirs = conv(theirs_raw)
        except (TypeError, ValueError) as e:
            self.bad(what, "frame %d (%s, %s): %s: rocelab=%r, tshark=%r (unparsable: %s)"
                     % (r["frame"], r["bth"]["opcode_name"], framing(r), what, ours,
                        theirs_raw, e))
            return
        if conv is ipaddr:
            ours = ipaddr(ours)
        if ours != theirs:
            def show(v):
                if conv is ipaddr:
                    return str(v)
                if what.startswith("icrc") and isinstance(v, int):
                    return "0x%08x" % v
                return repr(v)
            self.bad(what, "frame %d (%s, %s): %s: rocelab=%s, tshark=%s"
                     % (r["frame"], r["bth"]["opcode_name"], framing(r), what,
                        show(ours), show(theirs)))

    def field(self, r, what, ours, fields, tname, conv):
        """Compare against tshark field tname (must be present once)."""
        raw = one(fields, tname)
        if raw is None:
            self.values += 1
            self.bad(what, "frame %d (%s, %s): %s: rocelab=%r, tshark has no %s"
                     % (r["frame"], r["bth"]["opcode_name"], framing(r), what, ours,
                        tname))
            return
        self.cmp(r, what, ours, raw, conv)


def ib_parts(ib):
    """Split the infiniband layer: {header: leaves}, top-level leaves."""
    trees = {}
    top = []
    for k, v in ib:
        if k.endswith("_tree") and isinstance(v, Pairs):
            trees[k[len("infiniband."):-len("_tree")]] = leaves(v)
        elif not isinstance(v, (Pairs, list)):
            top.append((k, v))
    headers = set(k[len("infiniband."):] for k, _ in top)
    return trees, top, headers

# FLUSH and ATOMIC WRITE (IBA 1.5): tshark 4.0 does not know them, but its
# "vendor" blob is every byte after the BTH.  We cut it by the spec's layout:
#   FLUSH:        FETH (reserved bits 31-6, SEL 5-4, PLT 3-0), RETH, ICRC
#   ATOMIC WRITE: RETH, 8 bytes of payload, ICRC
# where RETH is VA (8 bytes), R_Key (4), DMA length (4), all big-endian.
IBA15_OPCODES = {0x1C: "FLUSH", 0x1D: "ATOMIC WRITE"}


def compare_iba15(c, r, blob):
    raw = bytes.fromhex(str(blob).replace(":", ""))
    op = r["bth"]["opcode"]
    want = 4 + 16 + 4 if op == 0x1C else 16 + 8 + 4
    c.cmp(r, "bytes after the BTH", want, str(len(raw)), num)
    if len(raw) != want:
        return
    reth = raw[4:20] if op == 0x1C else raw[0:16]
    if op == 0x1C:
        feth = int.from_bytes(raw[0:4], "big")
        c.cmp(r, "feth.sel", r["feth"]["sel"], str((feth >> 4) & 3), num)
        c.cmp(r, "feth.plt", r["feth"]["plt"], str(feth & 0xF), num)
        c.cmp(r, "feth reserved bits", 0, str(feth >> 6), num)
    else:
        c.cmp(r, "payload_len", r["payload_len"], "8", num)
    c.cmp(r, "reth.va", r["reth"]["va"], str(int.from_bytes(reth[0:8], "big")), num)
    c.cmp(r, "reth.rkey", r["reth"]["rkey"], str(int.from_bytes(reth[8:12], "big")), num)
    c.cmp(r, "reth.dma_len", r["reth"]["dma_len"], str(int.from_bytes(reth[12:16], "big")), num)
    c.cmp(r, "icrc.value", num(r["icrc"]["value"]), str(int.from_bytes(raw[-4:], "big")), num)


def compare_packet(c, r, layers, notes):
    """Compare one rocelab record r with one tshark packet's layers."""
    ib = layers.get("infiniband")
    trees, top, present = ib_parts(ib)
    bth_f = trees.get("bth", [])
    b = r["bth"]
    op = b["opcode"]

    # rocelab thinks the generator's packets are well formed.
    c.values += 1
    # A bad ICRC is reported, not fatal: every header is still decoded (tshark never checks it).
    if r.get("status") not in ("ok", "icrc-mismatch"):
        c.bad("status", "frame %d (%s, %s): rocelab status=%r (tshark decodes it)"
              % (r["frame"], b["opcode_name"], framing(r), r.get("status")))

    # ---- BTH: decoded by tshark for every opcode ----
    c.field(r, "bth.opcode", op, bth_f, "infiniband.bth.opcode", num)
    c.field(r, "bth.se", b["se"], bth_f, "infiniband.bth.se", boolean)
    c.field(r, "bth.migreq", b["migreq"], bth_f, "infiniband.bth.m", boolean)
    c.field(r, "bth.padcnt", b["padcnt"], bth_f, "infiniband.bth.padcnt", num)
    c.field(r, "bth.tver", b["tver"], bth_f, "infiniband.bth.tver", num)
    c.field(r, "bth.pkey", b["pkey"], bth_f, "infiniband.bth.p_key", num)
    # quirk: FECN/BECN only visible as the "reserved" byte of the BTH
    c.field(r, "bth.fecn", b["fecn"], bth_f, "infiniband.reserved",
            lambda s: bool(hexbytes(s) & 0x80))
    c.field(r, "bth.becn", b["becn"], bth_f, "infiniband.reserved",
            lambda s: bool(hexbytes(s) & 0x40))
    c.field(r, "bth.dqpn", b["dqpn"], bth_f, "infiniband.bth.destqp", num)
    c.field(r, "bth.ackreq", b["ackreq"], bth_f, "infiniband.bth.a", boolean)
    c.field(r, "bth.psn", b["psn"], bth_f, "infiniband.bth.psn", num)

    # ---- Invariant CRC: whenever tshark shows it ----
    crc = one(top, "infiniband.invariant.crc")
    full = op not in TSHARK_UNKNOWN_OPCODES and op not in TSHARK_DCT_OPCODES
    icrc_compared = False
    if crc is not None:
        c.cmp(r, "icrc.value", num(r["icrc"]["value"]), crc, num)
        icrc_compared = True
    elif full and str(layers.get("frame").get("frame.protocols", "")).endswith(
            (":infiniband", ":infiniband:data")):
        # A fully known opcode whose payload tshark showed as plain data must
        # have its ICRC shown.  (If a heuristic sub-dissector took the payload
        # and threw, tshark never gets to the ICRC: not our problem.)
        c.values += 1
        c.bad("icrc.value", "frame %d (%s, %s): tshark shows no Invariant CRC"
              % (r["frame"], b["opcode_name"], framing(r)))

    if op in IBA15_OPCODES:
        if "vendor" in trees:
            compare_iba15(c, r, one(trees["vendor"], "infiniband.vendor"))
            c.iba15[op] = c.iba15.get(op, 0) + 1
        else:
            # A tshark that knows these opcodes: compare its own fields here instead.
            c.values += 1
            c.bad("iba15", "frame %d (%s, %s): IBA 1.5 opcode without a vendor blob: "
                  "tshark decodes %s now, and this checker does not compare it"
                  % (r["frame"], b["opcode_name"], framing(r), IBA15_OPCODES[op]))
    if not full:
        if op in TSHARK_UNKNOWN_OPCODES and "vendor" not in present:
            notes.add("tshark now decodes opcode 0x%02x (no 'vendor' blob): "
                      "consider removing it from TSHARK_UNKNOWN_OPCODES" % op)
        return icrc_compared

    # ---- Extended headers: same set on both sides ----
    ours = set(h for h in HEADERS if h in r)
    theirs = set(h for h in HEADERS if h in present)
    c.values += 1
    if ours != theirs:
        c.bad("headers", "frame %d (%s, %s): extended headers: rocelab=%s, tshark=%s"
              % (r["frame"], b["opcode_name"], framing(r), sorted(ours), sorted(theirs)))

    if "reth" in r and "reth" in trees:
        t = trees["reth"]
        c.field(r, "reth.va", r["reth"]["va"], t, "infiniband.reth.va", num)
        c.field(r, "reth.rkey", r["reth"]["rkey"], t, "infiniband.reth.r_key", num)
        c.field(r, "reth.dma_len", r["reth"]["dma_len"], t, "infiniband.reth.dmalen", num)
    if "atomiceth" in r and "atomiceth" in trees:
        t = trees["atomiceth"]
        a = r["atomiceth"]
        # quirk: AtomicETH VA / R_Key use the RETH field names
        c.field(r, "atomiceth.va", a["va"], t, "infiniband.reth.va", num)
        c.field(r, "atomiceth.rkey", a["rkey"], t, "infiniband.reth.r_key", num)
        c.field(r, "atomiceth.swap_add", a["swap_add"], t, "infiniband.atomiceth.swapdt", num)
        c.field(r, "atomiceth.compare", a["compare"], t, "infiniband.atomiceth.cmpdt", num)
    if "aeth" in r and "aeth" in trees:
        t = trees["aeth"]
        a = r["aeth"]
        c.field(r, "aeth.syndrome", a["syndrome"], t, "infiniband.aeth.syndrome", num)
        c.field(r, "aeth.msn", a["msn"], t, "infiniband.aeth.msn", num)
        c.field(r, "aeth.type", a.get("type"), t, "infiniband.aeth.syndrome.opcode",
                lambda s: AETH_TYPES[num(s)])
        if "credit_code" in a or one(t, "infiniband.aeth.syndrome.credit_count") is not None:
            c.field(r, "aeth.credit_code", a.get("credit_code"), t,
                    "infiniband.aeth.syndrome.credit_count", num)
        if "rnr_timer" in a or one(t, "infiniband.aeth.syndrome.timer") is not None:
            c.field(r, "aeth.rnr_timer", a.get("rnr_timer"), t,
                    "infiniband.aeth.syndrome.timer", num)
        if "nak_code" in a or one(t, "infiniband.aeth.syndrome.error_code") is not None:
            c.field(r, "aeth.nak_code", a.get("nak_code"), t,
                    "infiniband.aeth.syndrome.error_code", num)
    if "deth" in r and "deth" in trees:
        t = trees["deth"]
        c.field(r, "deth.qkey", r["deth"]["qkey"], t, "infiniband.deth.q_key", num)
        c.field(r, "deth.src_qp", r["deth"]["src_qp"], t, "infiniband.deth.srcqp", num)
    if "rdeth" in r and "rdeth" in trees:
        c.field(r, "rdeth.eecnxt", r["rdeth"]["eecnxt"], trees["rdeth"],
                "infiniband.rdeth.eecnxt", num)
    if "atomicacketh" in r and "atomicacketh" in trees:
        c.field(r, "atomicacketh.orig", r["atomicacketh"]["orig"], trees["atomicacketh"],
                "infiniband.atomicacketh.origremdt", num)
    if "immdt" in r and "immdt" in present:
        # bytes field "aa:bb:cc:dd"; rocelab prints the big-endian integer
        c.field(r, "immdt", r["immdt"], top, "infiniband.immdt", hexbytes)
    if "ieth" in r and "ieth" in present:
        c.field(r, "ieth.rkey", r["ieth"]["rkey"], top, "infiniband.ieth", hexbytes)

    # ---- payload length (tshark's "data" includes the pad bytes) ----
    protos = str(layers.get("frame").get("frame.protocols", ""))
    plen = r["payload_len"] + b["padcnt"]
    data = layers.get("data")
    if protos.endswith(":infiniband:data") and data is not None:
        c.field(r, "payload_len+padcnt", plen, leaves(data), "data.len", num)
    elif layers.get("infiniband").get("infiniband.mad") is not None:
        # tshark took the payload as a MAD (a UD SEND to QP0/QP1): a MAD is 256 bytes (IBA 13.4.2)
        c.cmp(r, "payload_len+padcnt", plen, "256", num)
    elif protos.endswith(":infiniband"):
        c.cmp(r, "payload_len+padcnt", plen, "0", num)
    return icrc_compared


def compare_network(c, r, layers):
    """Ethernet / VLAN / IPv4 / IPv6 / UDP / GRH fields."""
    eth = leaves(layers.get("eth", Pairs()))
    c.field(r, "eth.src", r["eth"]["src"], eth, "eth.src", str)
    c.field(r, "eth.dst", r["eth"]["dst"], eth, "eth.dst", str)
    vlan_r = r["eth"].get("vlan")
    vlan_t = layers.get("vlan")
    c.values += 1
    if (vlan_r is None) != (vlan_t is None):
        c.bad("vlan", "frame %d: VLAN tag: rocelab=%r, tshark=%s"
              % (r["frame"], vlan_r, "present" if vlan_t else "absent"))
    elif vlan_r is not None:
        v = leaves(vlan_t)
        c.field(r, "vlan.id", vlan_r["id"], v, "vlan.id", num)
        c.field(r, "vlan.pcp", vlan_r["pcp"], v, "vlan.priority", num)
        c.field(r, "vlan.dei", vlan_r["dei"], v, "vlan.dei", boolean)

    protos = str(layers.get("frame").get("frame.protocols", ""))
    if r.get("roce") == 1:
        c.values += 1
        if ":udp:" in protos or "ethertype:infiniband" not in protos:
            c.bad("roce", "frame %d: rocelab says RoCEv1, tshark protocols %s"
                  % (r["frame"], protos))
        g = r["grh"]
        t = leaves(layers.get("infiniband").get("infiniband.grh_tree", Pairs()))
        c.field(r, "grh.version", g["version"], t, "infiniband.grh.ipver", num)
        c.field(r, "grh.tclass", g["tclass"], t, "infiniband.grh.tclass", num)
        c.field(r, "grh.flow_label", g["flow_label"], t, "infiniband.grh.flowlabel", num)
        c.field(r, "grh.payload_len", g["payload_len"], t, "infiniband.grh.paylen", num)
        c.field(r, "grh.next_header", g["next_header"], t, "infiniband.grh.nxthdr", num)
        c.field(r, "grh.hop_limit", g["hop_limit"], t, "infiniband.grh.hoplmt", num)
        c.field(r, "grh.src", g["src"], t, "infiniband.grh.sgid", ipaddr)
        c.field(r, "grh.dst", g["dst"], t, "infiniband.grh.dgid", ipaddr)
        return

    c.values += 1
    if ":udp:infiniband" not in protos:
        c.bad("roce", "frame %d: rocelab says RoCEv2, tshark protocols %s"
              % (r["frame"], protos))
    ip = r["ip"]
    if ip["version"] == 4:
        t = leaves(layers.get("ip", Pairs()))
        c.field(r, "ip.version", 4, t, "ip.version", num)
        c.field(r, "ip.src", ip["src"], t, "ip.src", ipaddr)
        c.field(r, "ip.dst", ip["dst"], t, "ip.dst", ipaddr)
        c.field(r, "ip.dscp", ip["dscp"], t, "ip.dsfield.dscp", num)
        c.field(r, "ip.ecn", ip["ecn"], t, "ip.dsfield.ecn", num)
        c.field(r, "ip.id", ip["id"], t, "ip.id", num)
        c.field(r, "ip.df", ip["df"], t, "ip.flags.df", boolean)
        c.field(r, "ip.ttl", ip["ttl"], t, "ip.ttl", num)
        c.field(r, "ip.len", ip["len"], t, "ip.len", num)
        c.field(r, "ip.checksum", ip["checksum"], t, "ip.checksum", num)
    else:
        t = leaves(layers.get("ipv6", Pairs()))
        c.field(r, "ip.version", 6, t, "ipv6.version", num)
        c.field(r, "ip.src", ip["src"], t, "ipv6.src", ipaddr)
        c.field(r, "ip.dst", ip["dst"], t, "ipv6.dst", ipaddr)
        c.field(r, "ip.tclass", ip["tclass"], t, "ipv6.tclass", num)
        c.field(r, "ip.flow_label", ip["flow_label"], t, "ipv6.flow", num)
        c.field(r, "ip.payload_len", ip["payload_len"], t, "ipv6.plen", num)
        c.field(r, "ip.hop_limit", ip["hop_limit"], t, "ipv6.hlim", num)
        c.field(r, "ip.next_header", ip["next_header"], t, "ipv6.nxt", num)
    u = r["udp"]
    t = leaves(layers.get("udp", Pairs()))
    c.field(r, "udp.sport", u["sport"], t, "udp.srcport", num)
    c.field(r, "udp.dport", u["dport"], t, "udp.dstport", num)
    c.field(r, "udp.len", u["len"], t, "udp.length", num)
    c.field(r, "udp.checksum", u["checksum"], t, "udp.checksum", num)


def main(argv):
    label = "tshark"
    require_iba15 = False
    args = list(argv[1:])
    while args and args[0].startswith("--"):
        if args[0] == "--label" and len(args) >= 2:
            label = "tshark %s" % args[1]
            args = args[2:]
        elif args[0] == "--require-iba15":
            require_iba15 = True
            args = args[1:]
        else:
            break
    if len(args) != 2:
        print("usage: compare_tshark.py [--label TEXT] [--require-iba15] ROCELAB.jsonl TSHARK.json",
              file=sys.stderr)
        return 2
    rpath, tpath = args

    results = []  # (ok, line, details)

    ours = {}
    with open(rpath, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line:
                o = json.loads(line)
                ours[o["frame"]] = o
    tshark = load_tshark(tpath)
    theirs = {}
    for pkt in tshark:
        layers = pkt.get("_source").get("layers")
        fno = num(layers.get("frame").get("frame.number"))
        if layers.get("infiniband") is not None and \
                layers.get("infiniband").get("infiniband.bth_tree") is not None:
            theirs[fno] = layers

    # 1. the same packets are RoCE packets on both sides
    only_ours = sorted(set(ours) - set(theirs))
    only_theirs = sorted(set(theirs) - set(ours))
    ok = not only_ours and not only_theirs and len(ours) > 0
    det = []
    if only_ours:
        det.append("frames rocelab reports but tshark did not decode as InfiniBand: %s"
                   % only_ours[:20])
    if only_theirs:
        det.append("frames tshark decoded as InfiniBand but rocelab did not report: %s"
                   % only_theirs[:20])
    results.append((ok, "%s: packet count: rocelab %d RoCE packets, tshark %d InfiniBand "
                        "frames (of %d)" % (label, len(ours), len(theirs), len(tshark)), det))

    # 2. every value of every common packet
    common = sorted(set(ours) & set(theirs))
    c = Comparer()
    notes = set()
    n_full = n_unknown = n_dct = n_icrc = 0
    for fno in common:
        r, layers = ours[fno], theirs[fno]
        op = r["bth"]["opcode"]
        if op in TSHARK_UNKNOWN_OPCODES:
            n_unknown += 1
        elif op in TSHARK_DCT_OPCODES:
            n_dct += 1
        else:
            n_full += 1
        try:
            if compare_packet(c, r, layers, notes):
                n_icrc += 1
            compare_network(c, r, layers)
        except (KeyError, ValueError, TypeError, AttributeError) as e:
            c.values += 1
            c.bad("error", "frame %d: comparison error %s: %s"
                  % (fno, type(e).__name__, e))

    def details(msgs):
        d = list(msgs[:MAX_DETAIL])
        if len(msgs) > MAX_DETAIL:
            d.append("... and %d more mismatches" % (len(msgs) - MAX_DETAIL))
        return d
    crc_bad = [m for w, m in zip(c.what, c.mismatches) if w == "icrc.value"]
    other_bad = [m for w, m in zip(c.what, c.mismatches) if w != "icrc.value"]
    results.append((not other_bad and c.values > 0,
                    "%s: field values: %d values compared over %d packets, %d mismatches"
                    % (label, c.values - n_icrc, len(common), len(other_bad)),
                    details(other_bad)))
    results.append((n_icrc > 0 and not crc_bad,
                    "%s: ICRC: rocelab icrc.value vs infiniband.invariant.crc: %d packets "
                    "compared, %d mismatches (tshark shows no ICRC for the other %d)"
                    % (label, n_icrc, len(crc_bad), len(common) - n_icrc),
                    details(crc_bad)))

    # FLUSH and ATOMIC WRITE: every one rocelab reports was cut from tshark's bytes and compared;
    # with --require-iba15 (a capture made to hold them, all-opcodes) there must be some of each.
    held = {op: sum(1 for fno in common if ours[fno]["bth"]["opcode"] == op) for op in IBA15_OPCODES}
    if require_iba15 or any(held.values()):
        results.append((all(c.iba15.get(op, 0) == held[op] for op in IBA15_OPCODES) and
                        (not require_iba15 or all(held.values())),
                        "%s: IBA 1.5 opcodes cut from tshark's raw bytes and compared: %s"
                        % (label, ", ".join("0x%02x %s %d of %d packets" % (op, name, c.iba15.get(op, 0), held[op])
                                            for op, name in sorted(IBA15_OPCODES.items()))), []))

    for ok, line, det in results:
        print("%s %s" % ("PASS" if ok else "FAIL", line))
        for d in det:
            print("    " + d)
    print("    NOTE: %d packets fully compared; %d packets with opcodes tshark 4.0 does "
          "not know (0x1c FLUSH, 0x1d ATOMIC WRITE, 0x81 CNP, 0xa0-0xb7 XRC): BTH only, "
          "plus FETH, RETH and ICRC from the raw bytes for FLUSH and ATOMIC WRITE; "
          "%d RD packets (0x40-0x55, decoded by tshark as Mellanox DCT): BTH + ICRC only"
          % (n_full, n_unknown, n_dct))
    for n in sorted(notes):
        print("    NOTE: " + n)
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
