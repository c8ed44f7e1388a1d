#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare rocelab explain --json's CM fields with Wireshark's own CM dissector.

    compare_cm.py --print-fields                 the tshark -e arguments
    compare_cm.py --label L ROCELAB.jsonl TSHARK.tsv

TSHARK.tsv is `tshark -T fields -E separator=/t -E occurrence=f` with the
fields --print-fields names, one row per frame. Every CM frame: tshark's
message name must be ours, and every field tshark decodes must hold our
value. tshark 4.0 decodes the MAD header and REQ, REP, RTU, REJ, DREQ and
DREP; MRA, LAP, APR and SIDR it names only.

The mapping below pairs our JSON keys with Wireshark's field names: it is
the oracle's own table, typed from `tshark -G fields`.
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
# The rdma_cm IP header, which tshark decodes inside a REQ's private data.
IPCM = {"ip_version": "req.ip_cm.ipv", "src_port": "req.ip_cm.sport",
        "src": ("req.ip_cm.sip4", "req.ip_cm.sip6"), "dst": ("req.ip_cm.dip4", "req.ip_cm.dip6")}
EXTRA = ["req.serviceid.protocol", "req.serviceid.dport", "req.prim_localgid_ipv4", "req.prim_remotegid_ipv4",
         "req.ip_cm.majv", "req.ip_cm.minv"]


def ws(name):
    return "infiniband.cm." + name


def all_fields():
    names = ["frame.number", "_ws.col.Info"] + list(MAD.values())
    for m in MSGS.values():
        names += [ws(v) for v in m.values()]
    for v in IPCM.values():
        names += [ws(x) for x in (v if isinstance(v, tuple) else (v,))]
    names += [ws(x) for x in EXTRA]
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
