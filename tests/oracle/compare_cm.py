#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare rocelab explain --json's CM fields with Wireshark's own CM dissector.

    compare_cm.py --print-fields                 the tshark -e arguments
    compare_cm.py --label L ROCELAB.jsonl TSHARK.tsv

TSHARK.tsv is `tshark -T fields -E separator=/t -E occurrence=f` with the
fields --print-fields names, one row per frame. Every CM frame: tshark's
message name must be ours, and every field tshark decodes must hold our
value. tshark 4.0 decodes the MAD header and REQ, REP, RTU, REJ, DREQ and
DREP; MRA, LAP, APR, SIDR_REQ and SIDR_REP it names only, and shows their
body as bytes (MAD Data Payload): those fields are read here from tshark's
bytes with RAW below, and rdma_cm's CMA header in a SIDR_REQ likewise.

The mapping below pairs our JSON keys with Wireshark's field names: it is
the oracle's own table, typed from `tshark -G fields`. RAW is typed from
the IBA's message tables.
"""
import argparse
import ipaddress
import json
import sys

MAD = {
    "base_version": "infiniband.mad.baseversion", "mgmt_class": "infiniband.mad.mgmtclass",
    "class_version": "infiniband.mad.classversion", "method": "infiniband.mad.method",
    "status": "infiniband.mad.status", "class_specific": "infiniband.mad.classspecific",
    "tid": "infiniband.mad.transactionid", "attr_id": "infiniband.mad.attributeid",
    "attr_mod": "infiniband.mad.attributemodifier",
}

def _path(ws, ours):
    return {
        ours + "_local_lid": ws + "_locallid", ours + "_remote_lid": ws + "_remotelid",
        ours + "_local_gid": ws + "_localgid", ours + "_remote_gid": ws + "_remotegid",
        ours + "_flow_label": ws + "_flowlabel", ours + "_packet_rate": ws + "_pktrate",
        ours + "_traffic_class": ws + "_tfcclass", ours + "_hop_limit": ws + "_hoplim",
        ours + "_sl": ws + "_sl", ours + "_subnet_local": ws + "_subnetlocal",
        ours + "_local_ack_timeout": ws + "_localacktout",
    }

REQ = {
    "local_comm_id": "req", "service_id": "req.serviceid", "local_ca_guid": "req.localcaguid",
    "local_qkey": "req.localqkey", "local_qpn": "req.localqpn",
    "responder_resources": "req.responderres", "local_eecn": "req.localeecn",
    "initiator_depth": "req.initdepth", "remote_eecn": "req.remoteeecn",
    "remote_cm_response_timeout": "req.remoteresptout", "transport_service_type": "req.transpsvctype",
    "end_to_end_flow_control": "req.e2eflowctrl", "starting_psn": "req.startpsn",
    "local_cm_response_timeout": "req.localresptout", "retry_count": "req.retrcount",
    "pkey": "req.pkey", "path_mtu": "req.pppmtu", "rdc_exists": "req.rdcexist",
    "rnr_retry_count": "req.rnrretrcount", "max_cm_retries": "req.maxcmretr", "srq": "req.srq",
    "extended_transport_type": "req.ext_transport", "private_data": "req.private",
}
REQ.update({k: v for k, v in _path("req.prim", "primary").items()})
REQ.update({k: v for k, v in _path("req.alt", "alternate").items()})
REP = {
    "local_comm_id": "rep", "remote_comm_id": "rep.remotecommid", "local_qkey": "rep.localqkey",
    "local_qpn": "rep.localqpn", "local_eecn": "rep.localeecn", "starting_psn": "rep.startpsn",
    "responder_resources": "rep.respres", "initiator_depth": "rep.initdepth",
    "target_ack_delay": "rep.tgtackdelay", "failover_accepted": "rep.failoveracc",
    "end_to_end_flow_control": "rep.e2eflowctrl", "rnr_retry_count": "rep.rnrretrcount",
    "srq": "rep.srq", "local_ca_guid": "rep.localcaguid", "private_data": "rep.private",
}
RTU = {"local_comm_id": "rtu.localcommid", "remote_comm_id": "rtu.remotecommid", "private_data": "rtu.private"}
REJ = {
    "local_comm_id": "rej.localcommid", "remote_comm_id": "rej.remotecommid",
    "message_rejected": "rej.msgrej", "rejected_info_length": "rej.rejinfolen", "reason": "rej.reason",
    "ari": "rej.ari", "private_data": "rej.private",
}
DREQ = {"local_comm_id": "dreq.localcommid", "remote_comm_id": "dreq.remotecommid",
        "remote_qpn": "req.remoteqpneecn", "private_data": "dreq.private"}
DREP = {"local_comm_id": "drsp.localcommid", "remote_comm_id": "drsp.remotecommid", "private_data": "drsp.private"}
MSGS = {"req": REQ, "rep": REP, "rtu": RTU, "rej": REJ, "dreq": DREQ, "drep": DREP}
DECODED = {"REQ", "REP", "RTU", "REJ", "DREQ", "DREP"}

# The messages tshark 4.0 only names: (our key, byte, first bit counted from the byte's most
# significant, width in bits), the byte counted from the end of the MAD header, as IBA Volume 1
# Release 1.2.1 lays them out: MRA 12.6.6 (Table 107), LAP 12.8.1 (Table 115), APR 12.8.2
# (Table 116), SIDR_REQ 12.11.1 (Table 119), SIDR_REP 12.11.2 (Table 120). A width of 128 is a
# GID; other widths above 64 are bytes.
_IDS = [("local_comm_id", 0, 0, 32), ("remote_comm_id", 4, 0, 32)]
RAW = {
    "MRA": _IDS + [("message_mraed", 8, 0, 2), ("service_timeout", 9, 0, 5), ("private_data", 10, 0, 222 * 8)],
    "LAP": _IDS + [
        ("remote_qpn", 12, 0, 24), ("remote_cm_response_timeout", 15, 0, 5),
        ("alternate_local_lid", 20, 0, 16), ("alternate_remote_lid", 22, 0, 16),
        ("alternate_local_gid", 24, 0, 128), ("alternate_remote_gid", 40, 0, 128),
        ("alternate_flow_label", 56, 0, 20), ("alternate_traffic_class", 59, 0, 8),
        ("alternate_hop_limit", 60, 0, 8), ("alternate_packet_rate", 61, 2, 6), ("alternate_sl", 62, 0, 4),
        ("alternate_subnet_local", 62, 4, 1), ("alternate_local_ack_timeout", 63, 0, 5),
        ("private_data", 64, 0, 168 * 8)],
    "APR": _IDS + [("additional_info_length", 8, 0, 8), ("ap_status", 9, 0, 8),
                   ("additional_info", 12, 0, 72 * 8), ("private_data", 84, 0, 148 * 8)],
    "SIDR_REQ": [("request_id", 0, 0, 32), ("pkey", 4, 0, 16), ("service_id", 8, 0, 64),
                 ("private_data", 16, 0, 216 * 8)],
    "SIDR_REP": [("request_id", 0, 0, 32), ("status", 4, 0, 8), ("additional_info_length", 5, 0, 8),
                 ("qpn", 8, 0, 24), ("service_id", 12, 0, 64), ("qkey", 20, 0, 32),
                 ("additional_info", 24, 0, 72 * 8), ("private_data", 96, 0, 136 * 8)],
}
MAD_DATA = "infiniband.mad.data"      # the 232 bytes after the MAD header, as tshark shows them
RDMA_PS = {0x0106: "RDMA_PS_TCP", 0x0111: "RDMA_PS_UDP", 0x013f: "RDMA_PS_IB"}   # librdmacm's rdma_port_space
# The rdma_cm IP header, which tshark decodes inside a REQ's private data.
IPCM = {"ip_version": "req.ip_cm.ipv", "src_port": "req.ip_cm.sport",
        "src": ("req.ip_cm.sip4", "req.ip_cm.sip6"), "dst": ("req.ip_cm.dip4", "req.ip_cm.dip6")}
EXTRA = ["req.serviceid.protocol", "req.serviceid.dport", "req.prim_localgid_ipv4", "req.prim_remotegid_ipv4",
         "req.ip_cm.majv", "req.ip_cm.minv"]


def ws(name):
    return "infiniband.cm." + name


def raw_field(data, byte, bit, width):
    """A field of RAW from the MAD data: an int, or hex for bytes and GIDs."""
    if width > 64:
        return data[byte:byte + width // 8].hex()
    n = (bit + width + 7) // 8
    v = int.from_bytes(data[byte:byte + n], "big")
    return v >> (n * 8 - bit - width) & ((1 << width) - 1)


def cma_header(pd):
    """rdma_cm's CMA header at the start of private data: version 0, the IP version in the
    high nibble, the source port, then source and destination, 16 bytes each (IPv4 in the
    last four): librdmacm's struct cma_hdr."""
    if len(pd) < 36 or pd[0] != 0 or pd[1] >> 4 not in (4, 6):
        return None
    ipv = pd[1] >> 4
    ip = (lambda a: ipaddress.IPv4Address(a[12:])) if ipv == 4 else ipaddress.IPv6Address
    return {"ip_version": ipv, "src_port": int.from_bytes(pd[2:4], "big"),
            "src": ip(pd[4:20]), "dst": ip(pd[20:36])}


def compare_raw(msg, body, rc, data):
    """The fields of a message tshark only names, from its bytes; (fields compared, problems)."""
    n, bad = 0, []
    for k, byte, bit, width in RAW[msg]:
        if k not in body:
            bad.append(f"{msg.lower()}.{k}: rocelab has no such field")
            continue
        tv = raw_field(data, byte, bit, width)
        n += 1
        ov = body[k]
        ok = gid_eq(ov, tv) if width == 128 else (ov.lower() == tv if isinstance(ov, str) else ov == tv)
        if not ok:
            bad.append(f"{msg.lower()}.{k}: rocelab {ov}, the bytes say {tv}")
    if msg == "SIDR_REQ":
        sid = raw_field(data, 8, 0, 64)
        h = cma_header(data[16:])
        if h and sid >> 32 == 0 and (sid >> 16 & 0xffff) in RDMA_PS:
            if not rc:
                bad.append("rdma_cm: rocelab does not decode the CMA header")
                return n, bad
            want = dict(h, ps=RDMA_PS[sid >> 16 & 0xffff], port=sid & 0xffff)
            for k, tv in want.items():
                n += 1
                ov = rc.get(k)
                ok = ov is not None and (ipaddress.ip_address(ov) == tv if k in ("src", "dst") else ov == tv)
                if not ok:
                    bad.append(f"rdma_cm.{k}: rocelab {ov}, the bytes say {tv}")
        elif rc:
            bad.append(f"rdma_cm: rocelab decodes {rc}, the bytes hold no CMA header")
    return n, bad


def all_fields():
    names = ["frame.number", "_ws.col.Info"] + list(MAD.values())
    for m in MSGS.values():
        names += [ws(v) for v in m.values()]
    for v in IPCM.values():
        names += [ws(x) for x in (v if isinstance(v, tuple) else (v,))]
    names += [ws(x) for x in EXTRA]
    names.append(MAD_DATA)
    seen, out = set(), []
    for n in names:
        if n not in seen:
            seen.add(n)
            out.append(n)
    return out


def as_int(s):
    return int(s, 0) if s.lower().startswith("0x") else int(s)


def gid_eq(ours, theirs):
    a = ipaddress.ip_address(ours)
    try:
        b = ipaddress.ip_address(theirs)
    except ValueError:                      # FT_BYTES: hex
        return a.packed.hex() == theirs.replace(":", "").lower()
    if b.version == 4:
        return a.ipv4_mapped == b
    return a == b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--print-fields", action="store_true")
    ap.add_argument("--label", default="cm")
    ap.add_argument("--any", action="store_true",
                    help="a capture of real tools: do not require every message tshark decodes")
    ap.add_argument("ours", nargs="?")
    ap.add_argument("theirs", nargs="?")
    a = ap.parse_args()
    fields = all_fields()
    if a.print_fields:
        print(" ".join("-e " + f for f in fields))
        return 0
    ours = [json.loads(l) for l in open(a.ours) if l.strip()]
    rows = [dict(zip(fields, l.rstrip("\n").split("\t"))) for l in open(a.theirs) if l.strip()]
    by_frame = {int(r["frame.number"]): r for r in rows}
    fails = 0
    per_type = {}
    ours_cm = {o["frame"] for o in ours if o.get("cm")}
    for fr, t in sorted(by_frame.items()):      # a CM frame tshark sees must be one of ours
        if "CM: " in t.get("_ws.col.Info", "") and fr not in ours_cm:
            print(f"FAIL {a.label} frame {fr}: tshark decodes '{t['_ws.col.Info']}', rocelab no CM message")
            fails += 1
    for o in ours:
        cm = o.get("cm")
        fr = o["frame"]
        if not cm:
            continue
        t = by_frame.get(fr)
        if t is None:
            print(f"FAIL {a.label} frame {fr}: tshark has no such frame")
            fails += 1
            continue
        bad = []
        n = 0
        if ("CM: " + cm.get("name", "?")) not in t.get("_ws.col.Info", ""):
            bad.append(f"message: rocelab '{cm.get('name')}', tshark's Info '{t.get('_ws.col.Info')}'")
        for k, f in MAD.items():
            if t.get(f, "") != "":
                n += 1
                if as_int(t[f]) != cm["mad"][k]:
                    bad.append(f"mad.{k}: rocelab {cm['mad'][k]}, tshark {t[f]}")
        grp = cm.get("msg", "").lower()
        body = cm.get(grp, {})
        for k, f in MSGS.get(grp, {}).items():
            tv = t.get(ws(f), "")
            if k.endswith("_gid") and tv == "" and grp == "req":
                tv = t.get(ws(f + "_ipv4"), "")
            if k == "service_id" and tv == "" and t.get(ws("req.serviceid.dport"), ""):
                n += 1                      # tshark splits an rdma_cm service ID: protocol and port
                sid = body[k]
                if as_int(t[ws("req.serviceid.dport")]) != sid & 0xffff or \
                        as_int(t[ws("req.serviceid.protocol")]) != (sid >> 16) & 0xff:
                    bad.append(f"service_id: rocelab {sid:#x}, tshark protocol "
                               f"{t[ws('req.serviceid.protocol')]} port {t[ws('req.serviceid.dport')]}")
                continue
            if tv == "" or k not in body:
                continue
            n += 1
            ov = body[k]
            if k.endswith("_gid"):
                ok = gid_eq(ov, tv)
            elif isinstance(ov, str):       # bytes, as hex
                ok = ov.lower() == tv.replace(":", "").lower()
            else:
                tvi = as_int(tv)
                ok = tvi == int(ov)
                if not ok and k.endswith("_flow_label") and tvi == int(ov) >> 8:
                    ok = True               # tshark 4.0 reads the flow label from the word's top 24 bits
                    print(f"NOTE {a.label} frame {fr}: {k}: tshark shows {tv}, our {ov:#x} >> 8, "
                          "as Wireshark 4.0 misreads it (20 bits at IBA 12.6.5 byte 88)")
                if not ok and k.endswith("_packet_rate"):
                    fl = body[k.replace("_packet_rate", "_flow_label")]
                    if tvi == (fl >> 12) & 0x3f:
                        ok = True           # tshark 4.0 reads the rate from the flow label's first byte
                        print(f"NOTE {a.label} frame {fr}: {k}: tshark shows {tv} from the flow label's "
                              f"first byte, as Wireshark 4.0 does; IBA 12.6.5 puts it in byte 91's low 6 bits")
            if not ok:
                bad.append(f"{grp}.{k}: rocelab {ov}, tshark {tv}")
        rc = cm.get("rdma_cm")
        if cm.get("msg") in RAW:
            data = bytes.fromhex(t.get(MAD_DATA, "").replace(":", ""))
            if len(data) != 232:
                bad.append(f"tshark shows {len(data)} bytes of MAD data, not 232")
            else:
                rn, rbad = compare_raw(cm["msg"], body, rc, data)
                n += rn
                bad += rbad
        if grp == "req" and rc and "src" in rc:
            for k, f in IPCM.items():
                fs = f if isinstance(f, tuple) else (f,)
                tv = next((t.get(ws(x), "") for x in fs if t.get(ws(x), "")), "")
                if tv == "":
                    bad.append(f"rdma_cm.{k}: rocelab {rc[k]}, tshark has no value")
                    continue
                n += 1
                ok = (ipaddress.ip_address(tv) == ipaddress.ip_address(rc[k])) if k in ("src", "dst") \
                    else as_int(tv) == rc[k]
                if not ok:
                    bad.append(f"rdma_cm.{k}: rocelab {rc[k]}, tshark {tv}")
        if cm.get("msg") in DECODED and n < 10 + (0 if grp != "req" else 40):
            bad.append(f"only {n} fields compared: tshark should decode more of a {cm.get('msg')}")
        if cm.get("msg") in RAW and n < len(MAD) + len(RAW[cm["msg"]]):
            bad.append(f"only {n} fields compared: a {cm['msg']} has {len(RAW[cm['msg']])} and the MAD header")
        per_type[cm.get("msg")] = per_type.get(cm.get("msg"), 0) + n
        if bad:
            fails += 1
            for b in bad:
                print(f"FAIL {a.label} frame {fr} {cm.get('msg')}: {b}")
        else:
            print(f"PASS {a.label} frame {fr} {cm.get('msg')}: the name and {n} fields agree with tshark")
    missing = DECODED - set(per_type)
    if not per_type:
        print(f"FAIL {a.label}: no CM message in the capture")
        fails += 1
    elif missing and not a.any:
        print(f"FAIL {a.label}: no {', '.join(sorted(missing))} in the capture")
        fails += 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
