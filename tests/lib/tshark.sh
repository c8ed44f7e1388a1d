# Shared by the test scripts that ask stock tshark for a second opinion.
# shellcheck shell=sh

# tshark refuses to be comfortable as root (and CI runs as root): run it as
# nobody, reading the capture on stdin so that nobody needs no access to it.
run_tshark() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u nobody -- tshark "$@"
    else
        tshark "$@"
    fi
}

# tshark_heuristic_opts PROBE.pcap: the --disable-heuristic options for the
# sub-dissectors that may claim an InfiniBand payload (RPC-over-RDMA, iSER,
# SMB Direct, ...) and throw before the Invariant CRC is shown. Names this
# tshark does not know are left out (they differ between versions).
tshark_heuristic_opts() {
    opts=""
    for h in smcr_infiniband smb_direct_infiniband rpcrdma_infiniband nvme_rdma \
             lnet_ib iser_infiniband eth_over_ib mellanox_eoib sdp_infiniband \
             fc_infiniband drbd_rdma; do
        if [ -s "$1" ] && run_tshark --disable-heuristic "$h" -r - -c 1 <"$1" >/dev/null 2>"$1.err" &&
           ! grep -q "disable" "$1.err"; then
            opts="$opts --disable-heuristic $h"
        fi
    done
    rm -f "$1.err"
    echo "$opts"
}

# tshark_profile_fields PROFILE_TSHARK_PY PCAP OUT.tsv: the fields that
# tests/oracle/profile_tshark.py works the --compare rows out from, one RoCE
# packet per line.
tshark_profile_fields() {
    # shellcheck disable=SC2046  # one -e per field
    run_tshark -r - -Y infiniband -T fields -E separator=/t $(python3 "$1" --print-fields) <"$2" >"$3"
}

# profile_checks PROFILE_TSHARK_PY ROCELAB WORKDIR LABEL CAPTURE_A [CAPTURE_B]: rocelab
# explain --compare's rows for A and B (B is A if not given), checked against tshark's
# fields by profile_tshark.py, and the rows marked as differing. The table is left in
# WORKDIR/cmp.txt. The caller defines fail, and sources checks.sh (run_checks).
profile_checks() {
    _py=$1 _r=$2 _w=$3 _l=$4 _a=$5 _b=${6:-$5}
    tshark_profile_fields "$_py" "$_a" "$_w/pa.tsv" && tshark_profile_fields "$_py" "$_b" "$_w/pb.tsv" ||
        { fail "$_l: tshark failed"; return; }
    "$_r" explain --compare "$_a" "$_b" >"$_w/cmp.txt" 2>&1 || { fail "$_l: explain --compare failed"; return; }
    run_checks "$_l" python3 "$_py" --label "$_l" --pair "$_w/pb.tsv" "$_w/pa.tsv" "$_w/cmp.txt"
}
