# Lab 16's last step, as the grader finds it (cli/grade_labs.c, gl_16_flows), from tshark's fields
# frame.number, ip.src, frame.time_relative, infiniband.bth.opcode, infiniband.bth.destqp,
# infiniband.bth.psn, ip.dsfield.ecn, frame.len. A request is neither an RC response (opcodes 13
# to 18, IBA Table 38) nor a CNP (129, IBA A17.9.2). Flow 2 is the QP of the client's last request,
# flow 1 the other QP the client sends to after flow 2's first request; the step begins at flow 1's
# first request. The caller's END block reads: n, no[], src[], ns[], op[], qp[], psn[], ecn[], len[],
# client, req(i), q1, q2, first1, first2, last1, last2 (row numbers, 0 if none).
BEGIN { FS = "\t" }
{
    n++; no[n] = $1; src[n] = $2; ns[n] = int($3 * 1e9 + 0.5); op[n] = $4; qp[n] = $5; psn[n] = $6
    ecn[n] = $7; len[n] = $8
    if (client == "" && !(op[n] >= 13 && op[n] <= 18) && op[n] != 129) client = $2
}
function req(i) { return src[i] == client && !(op[i] >= 13 && op[i] <= 18) && op[i] != 129 }
function flows(   i) {
    for (i = 1; i <= n; i++) if (req(i)) lastreq = i
    if (!lastreq) return 0
    q2 = qp[lastreq]
    for (i = 1; i <= lastreq; i++) {
        if (!req(i)) continue
        if (qp[i] == q2 && !first2) first2 = i
        else if (first2 && qp[i] != q2 && q1 == "") q1 = qp[i]
    }
    if (q1 == "") return 0
    for (i = 1; i <= lastreq; i++) {
        if (!req(i)) continue
        if (qp[i] == q1) { if (!first1) first1 = i; last1 = i }
        if (qp[i] == q2) last2 = i
    }
    return 1
}
