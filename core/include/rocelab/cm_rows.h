/* SPDX-License-Identifier: MIT */
/*
 * The rows of the CM field table (rocelab/cm.h), written once and expanded
 * into the field IDs (cm.h) and the table that the decoder, the encoder and
 * the iterator use (cm.c). Layouts: the MAD common header, IBA 13.4.2
 * (Figure 145); the CM messages, IBA 12.6.5 .. 12.6.13 (Tables 106 .. 120 of
 * Volume 1 Release 1.2.1), offsets there counted from the end of the MAD
 * header. Bit positions within a byte count from its most significant bit
 * in the spec; here shift is the bits to a field's right.
 *
 *   F(message, ID, byte offset (from the MAD header's end; the header's own
 *     fields from its start), bytes spanned, shift, bits, format, hex digits,
 *     JSON key, name, words, meaning)
 * Reserved bits have no row.
 */
#ifndef ROCELAB_CM_ROWS_H
#define ROCELAB_CM_ROWS_H

#define RL_CM_COMM_IDS(F, m)                                                                       \
	F(m, LOCAL_COMM_ID, 0, 4, 0, 32, RL_CM_HEX, 8, "local_comm_id", "Local Communication ID",  \
	  NULL, "the sender's handle for this connection")                                         \
	F(m, REMOTE_COMM_ID, 4, 4, 0, 32, RL_CM_HEX, 8, "remote_comm_id", "Remote Communication ID", \
	  NULL, "the receiver's handle for this connection")

/* A path (REQ primary and alternate, LAP alternate): LIDs, GIDs, then flow label .. ACK timeout. */
#define RL_CM_PATH_ADDR(F, m, P, p, N, at)                                                         \
	F(m, P##_LOCAL_LID, (at), 2, 0, 16, RL_CM_HEX, 4, p "_local_lid", N " local port LID", NULL, \
	  "the active side's LID: 0xffff (permissive) on RoCE, which has no LIDs")                 \
	F(m, P##_REMOTE_LID, (at) + 2, 2, 0, 16, RL_CM_HEX, 4, p "_remote_lid",                    \
	  N " remote port LID", NULL, "the passive side's LID: 0xffff (permissive) on RoCE")       \
	F(m, P##_LOCAL_GID, (at) + 4, 16, 0, 0, RL_CM_GID, 0, p "_local_gid", N " local port GID", \
	  NULL, "the active side's GID: on RoCEv2 its IP address")                                 \
	F(m, P##_REMOTE_GID, (at) + 20, 16, 0, 0, RL_CM_GID, 0, p "_remote_gid",                   \
	  N " remote port GID", NULL, "the passive side's GID: on RoCEv2 its IP address")          \
	F(m, P##_FLOW_LABEL, (at) + 36, 3, 4, 20, RL_CM_HEX, 5, p "_flow_label", N " flow label",  \
	  NULL, "the flow label of the connection's packets (IPv6 / GRH)")

#define RL_CM_PATH_TAIL(F, m, P, p, N, rate_at, tc_at, hop_at, sl_at)                              \
	F(m, P##_PACKET_RATE, (rate_at), 1, 0, 6, RL_CM_DEC, 0, p "_packet_rate", N " packet rate",  \
	  rl_cm_w_rate, "the static rate of the path (IBA 9.11.1 encoding)")                       \
	F(m, P##_TRAFFIC_CLASS, (tc_at), 1, 0, 8, RL_CM_DEC, 0, p "_traffic_class",                \
	  N " traffic class", NULL, "the traffic class of the connection's packets: DSCP and ECN on RoCEv2") \
	F(m, P##_HOP_LIMIT, (hop_at), 1, 0, 8, RL_CM_DEC, 0, p "_hop_limit", N " hop limit", NULL,  \
	  "the hop limit (TTL) of the connection's packets")                                       \
	F(m, P##_SL, (sl_at), 1, 4, 4, RL_CM_DEC, 0, p "_sl", N " SL", NULL,                       \
	  "the service level: on RoCE, the priority of the connection's packets")                  \
	F(m, P##_SUBNET_LOCAL, (sl_at), 1, 3, 1, RL_CM_BOOL, 0, p "_subnet_local",                 \
	  N " subnet local", NULL, "1: the path stays in one subnet, no router (the GRH is optional)") \
	F(m, P##_LOCAL_ACK_TIMEOUT, (sl_at) + 1, 1, 3, 5, RL_CM_DEC, 0, p "_local_ack_timeout",    \
	  N " local ACK timeout", rl_cm_w_timeout,                                                 \
	  "the transport's ACK timeout on this path: 4.096 us * 2^value")

#define RL_CM_FIELD_ROWS(F)                                                                        \
	/* The MAD common header, IBA 13.4.2 */                                                    \
	F(MAD, BASE_VERSION, 0, 1, 0, 8, RL_CM_DEC, 0, "base_version", "Base version", NULL,       \
	  "the MAD format: 1")                                                                     \
	F(MAD, MGMT_CLASS, 1, 1, 0, 8, RL_CM_HEX, 2, "mgmt_class", "Management class",             \
	  rl_cm_w_class, "which management class the MAD belongs to: 0x07 is CM (IBA 13.4.4)")     \
	F(MAD, CLASS_VERSION, 2, 1, 0, 8, RL_CM_DEC, 0, "class_version", "Class version", NULL,    \
	  "the version of the class's format: CM is 2 since IBA 1.2")                              \
	F(MAD, METHOD, 3, 1, 0, 8, RL_CM_HEX, 2, "method", "Method", rl_mad_method_name,           \
	  "what the MAD asks: CM messages are all Send (bit 7 marks a response)")                  \
	F(MAD, STATUS, 4, 2, 0, 16, RL_CM_HEX, 4, "status", "Status", NULL,                        \
	  "the outcome of a request; 0 in CM messages")                                            \
	F(MAD, CLASS_SPECIFIC, 6, 2, 0, 16, RL_CM_HEX, 4, "class_specific", "Class specific", NULL, \
	  "left to the class; 0 in CM")                                                            \
	F(MAD, TID, 8, 8, 0, 64, RL_CM_HEX, 16, "tid", "Transaction ID", NULL,                     \
	  "pairs a message with its answer, and a resent message with the first")                  \
	F(MAD, ATTR_ID, 16, 2, 0, 16, RL_CM_HEX, 4, "attr_id", "Attribute ID", rl_cm_w_attr,       \
	  "which CM message this is")                                                              \
	F(MAD, RESERVED, 18, 2, 0, 16, RL_CM_HEX, 4, "reserved", "Reserved", NULL,                 \
	  "reserved: sent as 0")                                                                   \
	F(MAD, ATTR_MOD, 20, 4, 0, 32, RL_CM_HEX, 8, "attr_mod", "Attribute modifier", NULL,       \
	  "qualifies the attribute; 0 in CM")                                                      \
	/* REQ, IBA 12.6.5 (Table 106) */                                                          \
	F(REQ, LOCAL_COMM_ID, 0, 4, 0, 32, RL_CM_HEX, 8, "local_comm_id", "Local Communication ID", \
	  NULL, "the active side's handle for this connection")                                    \
	F(REQ, SERVICE_ID, 8, 8, 0, 64, RL_CM_HEX, 16, "service_id", "Service ID", rl_cm_w_sid,    \
	  "the service asked for: to rdma_cm, its port space and port")                            \
	F(REQ, LOCAL_CA_GUID, 16, 8, 0, 64, RL_CM_HEX, 16, "local_ca_guid", "Local CA GUID", NULL, \
	  "the active side's channel adapter")                                                     \
	F(REQ, LOCAL_QKEY, 28, 4, 0, 32, RL_CM_HEX, 8, "local_qkey", "Local Q_Key", NULL,          \
	  "the active side's Q_Key (used by RD only)")                                             \
	F(REQ, LOCAL_QPN, 32, 3, 0, 24, RL_CM_HEX, 6, "local_qpn", "Local QPN", NULL,              \
	  "the active side's QP: the passive side's QP sends to it")                               \
	F(REQ, RESPONDER_RESOURCES, 35, 1, 0, 8, RL_CM_DEC, 0, "responder_resources",              \
	  "Responder resources", NULL, "RDMA READs and atomics the active side takes in at once")  \
	F(REQ, LOCAL_EECN, 36, 3, 0, 24, RL_CM_HEX, 6, "local_eecn", "Local EECN", NULL,           \
	  "the active side's EE context (RD only)")                                                \
	F(REQ, INITIATOR_DEPTH, 39, 1, 0, 8, RL_CM_DEC, 0, "initiator_depth", "Initiator depth",   \
	  NULL, "RDMA READs and atomics the active side keeps outstanding")                        \
	F(REQ, REMOTE_EECN, 40, 3, 0, 24, RL_CM_HEX, 6, "remote_eecn", "Remote EECN", NULL,        \
	  "the passive side's EE context (RD only)")                                               \
	F(REQ, REMOTE_CM_RESPONSE_TIMEOUT, 43, 1, 3, 5, RL_CM_DEC, 0, "remote_cm_response_timeout", \
	  "Remote CM response timeout", rl_cm_w_timeout,                                           \
	  "how long the passive side may take to answer: 4.096 us * 2^value")                     \
	F(REQ, TRANSPORT_SERVICE_TYPE, 43, 1, 1, 2, RL_CM_DEC, 0, "transport_service_type",        \
	  "Transport service type", rl_cm_w_tst, "RC, UC or RD")                                   \
	F(REQ, END_TO_END_FLOW_CONTROL, 43, 1, 0, 1, RL_CM_BOOL, 0, "end_to_end_flow_control",     \
	  "End-to-end flow control", NULL, "1: the active side's receive queue sends credits")     \
	F(REQ, STARTING_PSN, 44, 3, 0, 24, RL_CM_DEC, 0, "starting_psn", "Starting PSN", NULL,     \
	  "the PSN the active side's QP expects first: the passive side's QP starts with it") \
	F(REQ, LOCAL_CM_RESPONSE_TIMEOUT, 47, 1, 3, 5, RL_CM_DEC, 0, "local_cm_response_timeout",  \
	  "Local CM response timeout", rl_cm_w_timeout,                                            \
	  "how long the active side may take to answer: 4.096 us * 2^value")                       \
	F(REQ, RETRY_COUNT, 47, 1, 0, 3, RL_CM_DEC, 0, "retry_count", "Retry count", NULL,         \
	  "times the passive side's QP resends after an ACK timeout")                              \
	F(REQ, PKEY, 48, 2, 0, 16, RL_CM_HEX, 4, "pkey", "Partition key", NULL,                    \
	  "the partition the connection lives in")                                                 \
	F(REQ, PATH_MTU, 50, 1, 4, 4, RL_CM_DEC, 0, "path_mtu", "Path packet payload MTU",         \
	  rl_cm_w_mtu, "the largest payload of one packet")                                        \
	F(REQ, RDC_EXISTS, 50, 1, 3, 1, RL_CM_BOOL, 0, "rdc_exists", "RDC exists", NULL,           \
	  "RD only: the active side has an RD channel")                                            \
	F(REQ, RNR_RETRY_COUNT, 50, 1, 0, 3, RL_CM_DEC, 0, "rnr_retry_count", "RNR retry count",   \
	  NULL, "times the passive side's QP resends after an RNR NAK (7: forever)")               \
	F(REQ, MAX_CM_RETRIES, 51, 1, 4, 4, RL_CM_DEC, 0, "max_cm_retries", "Max CM retries",      \
	  NULL, "times the passive side resends a CM message that gets no answer")                 \
	F(REQ, SRQ, 51, 1, 3, 1, RL_CM_BOOL, 0, "srq", "SRQ", NULL,                                \
	  "1: the active side's QP receives from a shared receive queue")                          \
	F(REQ, EXTENDED_TRANSPORT_TYPE, 51, 1, 0, 3, RL_CM_DEC, 0, "extended_transport_type",      \
	  "Extended transport type", NULL, "XRC when the service type says so (IBA A14)")          \
	RL_CM_PATH_ADDR(F, REQ, PRIMARY, "primary", "Primary", 52)                                 \
	RL_CM_PATH_TAIL(F, REQ, PRIMARY, "primary", "Primary", 91, 92, 93, 94)                     \
	RL_CM_PATH_ADDR(F, REQ, ALTERNATE, "alternate", "Alternate", 96)                           \
	RL_CM_PATH_TAIL(F, REQ, ALTERNATE, "alternate", "Alternate", 135, 136, 137, 138)           \
	F(REQ, SAP_SUPPORTED, 139, 1, 2, 1, RL_CM_BOOL, 0, "sap_supported", "SAP supported", NULL, \
	  "1: the active side supports service access points")                                     \
	F(REQ, PRIVATE_DATA, 140, 92, 0, 0, RL_CM_DATA, 0, "private_data", "Private data", NULL,   \
	  "the application's bytes: rdma_cm puts its IP header here")                              \
	/* MRA, IBA 12.6.6 (Table 107) */                                                          \
	RL_CM_COMM_IDS(F, MRA)                                                                     \
	F(MRA, MESSAGE_MRAED, 8, 1, 6, 2, RL_CM_DEC, 0, "message_mraed", "Message MRAed",          \
	  rl_cm_w_msg_ref, "the message this one acknowledges: REQ, REP or LAP")                   \
	F(MRA, SERVICE_TIMEOUT, 9, 1, 3, 5, RL_CM_DEC, 0, "service_timeout", "Service timeout",    \
	  rl_cm_w_timeout, "how much longer the sender needs: 4.096 us * 2^value")                 \
	F(MRA, PRIVATE_DATA, 10, 222, 0, 0, RL_CM_DATA, 0, "private_data", "Private data", NULL,   \
	  "the application's bytes")                                                               \
	/* REJ, IBA 12.6.7 (Table 108) */                                                          \
	RL_CM_COMM_IDS(F, REJ)                                                                     \
	F(REJ, MESSAGE_REJECTED, 8, 1, 6, 2, RL_CM_DEC, 0, "message_rejected", "Message rejected", \
	  rl_cm_w_rej_ref, "the message refused: REQ, REP or other (none)")                        \
	F(REJ, REJECTED_INFO_LENGTH, 9, 1, 1, 7, RL_CM_DEC, 0, "rejected_info_length",             \
	  "Rejected info length", NULL, "bytes of ARI that mean something")                        \
	F(REJ, REASON, 10, 2, 0, 16, RL_CM_DEC, 0, "reason", "Reason", rl_cm_rej_reason,           \
	  "why (IBA 12.6.7.2)")                                                                    \
	F(REJ, ARI, 12, 72, 0, 0, RL_CM_DATA, 0, "ari", "Additional rejection information", NULL,  \
	  "details of the reason, e.g. the GID or the service that was refused")                   \
	F(REJ, PRIVATE_DATA, 84, 148, 0, 0, RL_CM_DATA, 0, "private_data", "Private data", NULL,   \
	  "the application's bytes")                                                               \
	/* REP, IBA 12.6.8 (Table 110) */                                                          \
	RL_CM_COMM_IDS(F, REP)                                                                     \
	F(REP, LOCAL_QKEY, 8, 4, 0, 32, RL_CM_HEX, 8, "local_qkey", "Local Q_Key", NULL,           \
	  "the passive side's Q_Key (RD only)")                                                    \
	F(REP, LOCAL_QPN, 12, 3, 0, 24, RL_CM_HEX, 6, "local_qpn", "Local QPN", NULL,              \
	  "the passive side's QP: the active side's QP sends to it")                               \
	F(REP, LOCAL_EECN, 16, 3, 0, 24, RL_CM_HEX, 6, "local_eecn", "Local EECN", NULL,           \
	  "the passive side's EE context (RD only)")                                               \
	F(REP, STARTING_PSN, 20, 3, 0, 24, RL_CM_DEC, 0, "starting_psn", "Starting PSN", NULL,     \
	  "the PSN the passive side's QP expects first: the active side's QP starts with it") \
	F(REP, RESPONDER_RESOURCES, 24, 1, 0, 8, RL_CM_DEC, 0, "responder_resources",              \
	  "Responder resources", NULL, "RDMA READs and atomics the passive side takes in at once") \
	F(REP, INITIATOR_DEPTH, 25, 1, 0, 8, RL_CM_DEC, 0, "initiator_depth", "Initiator depth",   \
	  NULL, "RDMA READs and atomics the passive side keeps outstanding")                       \
	F(REP, TARGET_ACK_DELAY, 26, 1, 3, 5, RL_CM_DEC, 0, "target_ack_delay", "Target ACK delay", \
	  rl_cm_w_timeout, "how long the passive side may wait before it acknowledges")            \
	F(REP, FAILOVER_ACCEPTED, 26, 1, 1, 2, RL_CM_DEC, 0, "failover_accepted",                  \
	  "Failover accepted", NULL, "0: the alternate path is accepted; 1 and 2: it is not")      \
	F(REP, END_TO_END_FLOW_CONTROL, 26, 1, 0, 1, RL_CM_BOOL, 0, "end_to_end_flow_control",     \
	  "End-to-end flow control", NULL, "1: the passive side's receive queue sends credits")    \
	F(REP, RNR_RETRY_COUNT, 27, 1, 5, 3, RL_CM_DEC, 0, "rnr_retry_count", "RNR retry count",   \
	  NULL, "times the active side's QP resends after an RNR NAK (7: forever)")                \
	F(REP, SRQ, 27, 1, 4, 1, RL_CM_BOOL, 0, "srq", "SRQ", NULL,                                \
	  "1: the passive side's QP receives from a shared receive queue")                         \
	F(REP, LOCAL_CA_GUID, 28, 8, 0, 64, RL_CM_HEX, 16, "local_ca_guid", "Local CA GUID", NULL, \
	  "the passive side's channel adapter")                                                    \
	F(REP, PRIVATE_DATA, 36, 196, 0, 0, RL_CM_DATA, 0, "private_data", "Private data", NULL,   \
	  "the application's bytes")                                                               \
	/* RTU, IBA 12.6.9 (Table 111) */                                                          \
	RL_CM_COMM_IDS(F, RTU)                                                                     \
	F(RTU, PRIVATE_DATA, 8, 224, 0, 0, RL_CM_DATA, 0, "private_data", "Private data", NULL,    \
	  "the application's bytes")                                                               \
	/* DREQ, IBA 12.6.10 (Table 112) */                                                        \
	RL_CM_COMM_IDS(F, DREQ)                                                                    \
	F(DREQ, REMOTE_QPN, 8, 3, 0, 24, RL_CM_HEX, 6, "remote_qpn", "Remote QPN/EECN", NULL,      \
	  "the receiver's QP (or EE context) to disconnect")                                       \
	F(DREQ, PRIVATE_DATA, 12, 220, 0, 0, RL_CM_DATA, 0, "private_data", "Private data", NULL,  \
	  "the application's bytes")                                                               \
	/* DREP, IBA 12.6.11 (Table 113) */                                                        \
	RL_CM_COMM_IDS(F, DREP)                                                                    \
	F(DREP, PRIVATE_DATA, 8, 224, 0, 0, RL_CM_DATA, 0, "private_data", "Private data", NULL,   \
	  "the application's bytes")                                                               \
	/* SIDR_REQ, IBA 12.11.1 (Table 119) */                                                    \
	F(SIDR_REQ, REQUEST_ID, 0, 4, 0, 32, RL_CM_HEX, 8, "request_id", "Request ID", NULL,       \
	  "pairs the request with its reply")                                                      \
	F(SIDR_REQ, PKEY, 4, 2, 0, 16, RL_CM_HEX, 4, "pkey", "Partition key", NULL,                \
	  "the partition the requester will send in")                                              \
	F(SIDR_REQ, SERVICE_ID, 8, 8, 0, 64, RL_CM_HEX, 16, "service_id", "Service ID",            \
	  rl_cm_w_sid, "the service whose UD QP is asked for")                                     \
	F(SIDR_REQ, PRIVATE_DATA, 16, 216, 0, 0, RL_CM_DATA, 0, "private_data", "Private data",    \
	  NULL, "the application's bytes: rdma_cm puts its IP header here")                        \
	/* SIDR_REP, IBA 12.11.2 (Table 120) */                                                    \
	F(SIDR_REP, REQUEST_ID, 0, 4, 0, 32, RL_CM_HEX, 8, "request_id", "Request ID", NULL,       \
	  "the request this answers")                                                              \
	F(SIDR_REP, STATUS, 4, 1, 0, 8, RL_CM_DEC, 0, "status", "Status", rl_cm_w_sidr_status,     \
	  "whether the service was found (IBA 12.11.2)")                                           \
	F(SIDR_REP, ADDITIONAL_INFO_LENGTH, 5, 1, 0, 8, RL_CM_DEC, 0, "additional_info_length",    \
	  "Additional information length", NULL, "bytes of additional information that mean something") \
	F(SIDR_REP, QPN, 8, 3, 0, 24, RL_CM_HEX, 6, "qpn", "QPN", NULL,                            \
	  "the UD QP that serves the service")                                                     \
	F(SIDR_REP, SERVICE_ID, 12, 8, 0, 64, RL_CM_HEX, 16, "service_id", "Service ID",           \
	  rl_cm_w_sid, "the service asked for")                                                    \
	F(SIDR_REP, QKEY, 20, 4, 0, 32, RL_CM_HEX, 8, "qkey", "Q_Key", NULL,                       \
	  "the Q_Key to send to that QP with")                                                     \
	F(SIDR_REP, ADDITIONAL_INFO, 24, 72, 0, 0, RL_CM_DATA, 0, "additional_info",               \
	  "Additional information", NULL, "details of the status")                                 \
	F(SIDR_REP, PRIVATE_DATA, 96, 136, 0, 0, RL_CM_DATA, 0, "private_data", "Private data",    \
	  NULL, "the application's bytes")                                                         \
	/* LAP, IBA 12.8.1 (Table 115) */                                                          \
	RL_CM_COMM_IDS(F, LAP)                                                                     \
	F(LAP, REMOTE_QPN, 12, 3, 0, 24, RL_CM_HEX, 6, "remote_qpn", "Remote QPN/EECN", NULL,      \
	  "the receiver's QP (or EE context) whose alternate path this loads")                     \
	F(LAP, REMOTE_CM_RESPONSE_TIMEOUT, 15, 1, 3, 5, RL_CM_DEC, 0, "remote_cm_response_timeout", \
	  "Remote CM response timeout", rl_cm_w_timeout,                                           \
	  "how long the receiver may take to answer: 4.096 us * 2^value")                          \
	RL_CM_PATH_ADDR(F, LAP, ALTERNATE, "alternate", "Alternate", 20)                           \
	RL_CM_PATH_TAIL(F, LAP, ALTERNATE, "alternate", "Alternate", 61, 59, 60, 62)               \
	F(LAP, PRIVATE_DATA, 64, 168, 0, 0, RL_CM_DATA, 0, "private_data", "Private data", NULL,   \
	  "the application's bytes")                                                               \
	/* APR, IBA 12.8.2 (Table 116) */                                                          \
	RL_CM_COMM_IDS(F, APR)                                                                     \
	F(APR, ADDITIONAL_INFO_LENGTH, 8, 1, 0, 8, RL_CM_DEC, 0, "additional_info_length",         \
	  "Additional information length", NULL, "bytes of additional information that mean something") \
	F(APR, AP_STATUS, 9, 1, 0, 8, RL_CM_DEC, 0, "ap_status", "AP status", NULL,                \
	  "whether the alternate path was loaded (0: yes)")                                        \
	F(APR, ADDITIONAL_INFO, 12, 72, 0, 0, RL_CM_DATA, 0, "additional_info",                    \
	  "Additional information", NULL, "details of the status")                                 \
	F(APR, PRIVATE_DATA, 84, 148, 0, 0, RL_CM_DATA, 0, "private_data", "Private data", NULL,   \
	  "the application's bytes")

#endif
