/* SPDX-License-Identifier: MIT */
/*
 * The rdma_cm-shaped API (rocelab/rdma_cm.h): ids, addresses, the QP an id
 * connects, and the event queue. The CM messages themselves are cm_conn.c's
 * (RC) and cm_sidr.c's (UD).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm_internal.h"
#include "transport.h"   /* rl_host_set_error() */

const char *rl_rdma_event_str(enum rl_rdma_cm_event_type e)
{
	static const char *const n[] = {
#define RL_RDMA_CM_EVENT_NAME(tok) "RDMA_CM_EVENT_" #tok,
		RL_RDMA_CM_EVENT_ROWS(RL_RDMA_CM_EVENT_NAME)
#undef RL_RDMA_CM_EVENT_NAME
	};

	return (unsigned)e < sizeof(n) / sizeof(n[0]) ? n[e] : "UNKNOWN EVENT";
}

static const uint8_t rl_zero_gid[16];

/* ---- ids ---------------------------------------------------------------------------------- */

struct rl_rdma_cm_id *rl_cm_id_new(struct rl_cm_agent *a, void *context, uint16_t ps)
{
	struct rl_rdma_cm_id *id = calloc(1, sizeof(*id));

	if (!id) {
		a->stats.dropped++;
		return NULL;
	}
	id->agent = a;
	id->context = context;
	id->ps = ps;
	id->state = RL_CM_STATE_IDLE;
	id->timer = RL_CM_NEVER;
	id->next = a->ids;
	a->ids = id;
	return id;
}

struct rl_rdma_cm_id *rl_rdma_create_id(struct rl_cm_agent *a, void *context, uint16_t ps)
{
	if (ps != RL_RDMA_PS_TCP && ps != RL_RDMA_PS_UDP) {
		rl_host_set_error(a->host, "rdma_create_id: rocelab has the port spaces RDMA_PS_TCP (RC) and RDMA_PS_UDP (UD)");
		return NULL;
	}
	return rl_cm_id_new(a, context, ps);
}

/* Events not yet taken that name @id go with it. */
static void rl_cm_drop_events(struct rl_cm_agent *a, const struct rl_rdma_cm_id *id)
{
	struct rl_rdma_cm_event **pp = &a->ev_head;

	while (*pp) {
		struct rl_rdma_cm_event *ev = *pp;

		if (ev->id == id) {
			*pp = ev->next;
			free(ev);
			continue;
		}
		if (ev->listen_id == id)
			ev->listen_id = NULL;
		pp = &ev->next;
	}
	a->ev_tail = pp;
}

/* The first CONNECT_REQUEST for @lid still waiting in the queue, or NULL. */
static struct rl_rdma_cm_event *rl_cm_waiting_request(const struct rl_rdma_cm_id *lid)
{
	for (struct rl_rdma_cm_event *ev = lid->agent->ev_head; ev; ev = ev->next)
		if (ev->event == RL_RDMA_CM_EVENT_CONNECT_REQUEST && ev->listen_id == lid)
			return ev;
	return NULL;
}

bool rl_cm_backlog_full(const struct rl_rdma_cm_id *lid)
{
	int n = 0;

	for (const struct rl_rdma_cm_event *ev = lid->agent->ev_head; ev; ev = ev->next)
		n += ev->event == RL_RDMA_CM_EVENT_CONNECT_REQUEST && ev->listen_id == lid;
	return n >= lid->backlog;
}

int rl_rdma_destroy_id(struct rl_rdma_cm_id *id)
{
	struct rl_cm_agent *a = id->agent;
	struct rl_rdma_cm_id **pp;
	struct rl_rdma_cm_event *ev;

	/* A listener takes along the requests nobody took yet, as the kernel's ucma_cleanup_ctx_events(). */
	while (id->state == RL_CM_STATE_LISTEN && (ev = rl_cm_waiting_request(id)))
		rl_rdma_destroy_id(ev->id);
	for (pp = &a->ids; *pp != id; pp = &(*pp)->next)
		;
	*pp = id->next;
	for (struct rl_rdma_cm_id *o = a->ids; o; o = o->next)
		if (o->listener == id)
			o->listener = NULL;
	rl_cm_drop_events(a, id);
	if (id->own_qp)
		rl_destroy_qp(id->qp);
	free(id);
	return 0;
}

void *rl_rdma_id_context(const struct rl_rdma_cm_id *id) { return id->context; }
struct rl_qp *rl_rdma_id_qp(const struct rl_rdma_cm_id *id) { return id->qp; }
enum rl_cm_state rl_rdma_id_state(const struct rl_rdma_cm_id *id) { return id->state; }
const struct rl_rdma_addr *rl_rdma_id_src(const struct rl_rdma_cm_id *id) { return &id->src; }
const struct rl_rdma_addr *rl_rdma_id_dst(const struct rl_rdma_cm_id *id) { return &id->dst; }

/* ---- addresses ------------------------------------------------------------------------------- */

/* An ephemeral port, as the kernel's cma_alloc_any_port() picks one (from the seed here). */
static uint16_t rl_cm_any_port(struct rl_cm_agent *a)
{
	return (uint16_t)(RL_CM_PORT_EPHEMERAL_LOW + rl_cm_random(a) % (RL_CM_PORT_EPHEMERAL_HIGH - RL_CM_PORT_EPHEMERAL_LOW + 1));
}

static bool rl_cm_port_taken(const struct rl_cm_agent *a, uint16_t ps, uint16_t port)
{
	for (const struct rl_rdma_cm_id *id = a->ids; id; id = id->next)
		if (id->bound && !id->listener && id->ps == ps && id->src.port == port)
			return true;
	return false;
}

int rl_rdma_bind_addr(struct rl_rdma_cm_id *id, const struct rl_rdma_addr *addr)
{
	struct rl_cm_agent *a = id->agent;

	if (id->bound || id->state != RL_CM_STATE_IDLE)
		return -EINVAL;
	if (memcmp(addr->gid, rl_zero_gid, 16) && memcmp(addr->gid, a->port.gid, 16)) {
		rl_host_set_error(a->host, "rdma_bind_addr: that address is not this host's");
		return -EADDRNOTAVAIL;
	}
	if (addr->port && rl_cm_port_taken(a, id->ps, addr->port))
		return -EADDRINUSE;
	id->src = *addr;
	if (!id->src.port)
		id->src.port = rl_cm_any_port(a);
	id->bound = true;
	return 0;
}

int rl_rdma_listen(struct rl_rdma_cm_id *id, int backlog)
{
	if (!id->bound || id->state != RL_CM_STATE_IDLE)
		return -EINVAL;
	/* ucma_listen(): 0, a negative value or more than max_backlog mean max_backlog. */
	id->backlog = backlog > 0 && backlog < RL_RDMA_MAX_BACKLOG ? backlog : RL_RDMA_MAX_BACKLOG;
	id->state = RL_CM_STATE_LISTEN;
	return 0;
}

struct rl_rdma_cm_id *rl_cm_find_listener(struct rl_cm_agent *a, uint16_t ps, uint64_t service_id,
					  const uint8_t gid[16])
{
	for (struct rl_rdma_cm_id *id = a->ids; id; id = id->next)
		if (id->state == RL_CM_STATE_LISTEN && id->ps == ps &&
		    rl_cm_service_id(ps, id->src.port) == service_id &&
		    (!gid || !memcmp(id->src.gid, rl_zero_gid, 16) || !memcmp(id->src.gid, gid, 16)))
			return id;
	return NULL;
}

int rl_rdma_resolve_addr(struct rl_rdma_cm_id *id, const struct rl_rdma_addr *src, const struct rl_rdma_addr *dst,
			 int timeout_ms)
{
	struct rl_cm_agent *a = id->agent;
	bool known;

	(void)timeout_ms;   /* the answer is at hand: no ARP to wait for */
	if (id->state != RL_CM_STATE_IDLE || !dst)
		return -EINVAL;
	if (rl_gid_is_ipv4(dst->gid) != rl_gid_is_ipv4(a->port.gid))
		return -EAFNOSUPPORT;
	if (!id->bound && rl_rdma_bind_addr(id, src ? src : &(struct rl_rdma_addr){ { 0 }, 0 }))
		return -EINVAL;
	memcpy(id->src.gid, a->port.gid, 16);
	id->dst = *dst;
	known = a->cfg.resolve && a->cfg.resolve(a->cfg.resolve_ctx, dst->gid, id->dmac);
	id->addr_resolved = known;
	rl_cm_event(id, known ? RL_RDMA_CM_EVENT_ADDR_RESOLVED : RL_RDMA_CM_EVENT_ADDR_ERROR,
		    known ? 0 : -EHOSTUNREACH);
	return 0;
}

int rl_rdma_resolve_route(struct rl_rdma_cm_id *id, int timeout_ms)
{
	(void)timeout_ms;
	if (!id->addr_resolved)
		return -EINVAL;
	/* RoCE: the route is the GID and MAC just resolved; the path record is made up locally (cma_resolve_iboe_route). */
	id->route_resolved = true;
	rl_cm_event(id, RL_RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	return 0;
}

void rl_cm_put_cma_hdr(const struct rl_rdma_cm_id *id, uint8_t *p)
{
	struct rl_cma_hdr h = { .version = RL_CMA_VERSION, .src_port = id->src.port };
	bool v4 = rl_gid_is_ipv4(id->src.gid);

	h.ip_version = v4 ? 4 : 6;
	/* IPv4: the address alone in the last four bytes, not IPv4-mapped */
	memcpy(h.src + (v4 ? 12 : 0), id->src.gid + (v4 ? 12 : 0), v4 ? 4 : 16);
	memcpy(h.dst + (v4 ? 12 : 0), id->dst.gid + (v4 ? 12 : 0), v4 ? 4 : 16);
	rl_cma_hdr_encode(&h, p);
}

/* ---- the QP ------------------------------------------------------------------------------- */

/* librdmacm's ucma_init_conn_qp() and ucma_init_ud_qp(): RC to INIT, UD on to RTS with RDMA_UDP_QKEY. */
static int rl_cm_qp_init(struct rl_rdma_cm_id *id, struct rl_qp *qp)
{
	struct rl_qp_attr a = { .qp_state = RL_QPS_INIT, .port_num = 1 };
	struct rl_conn c;

	if (id->ps == RL_RDMA_PS_UDP) {
		rl_conn_defaults(&c);
		c.qkey = RL_RDMA_UDP_QKEY;
		c.sq_psn = 0;
		return rl_qp_connect(qp, &c);
	}
	a.qp_access_flags = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ |
			    RL_ACCESS_REMOTE_ATOMIC;
	return rl_modify_qp(qp, &a, rl_qp_attr_required(RL_QPT_RC, RL_QPS_RESET, RL_QPS_INIT));
}

int rl_rdma_attach_qp(struct rl_rdma_cm_id *id, struct rl_qp *qp)
{
	struct rl_qp_attr attr;
	int r;

	rl_query_qp(qp, &attr);
	if (id->qp || attr.qp_state != RL_QPS_RESET)
		return -EINVAL;
	if ((r = rl_cm_qp_init(id, qp)))
		return r;
	id->qp = qp;
	return 0;
}

int rl_rdma_create_qp(struct rl_rdma_cm_id *id, struct rl_pd *pd, const struct rl_qp_init_attr *attr)
{
	struct rl_qp_init_attr ia = *attr;
	struct rl_qp *qp;
	int r;

	ia.qp_type = id->ps == RL_RDMA_PS_UDP ? RL_QPT_UD : RL_QPT_RC;
	if (id->qp || !(qp = rl_create_qp(pd, &ia)))
		return -EINVAL;
	if ((r = rl_rdma_attach_qp(id, qp))) {
		rl_destroy_qp(qp);
		return r;
	}
	id->own_qp = true;
	return 0;
}

/* ---- connecting ---------------------------------------------------------------------------------- */

int rl_rdma_connect(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *param)
{
	static const struct rl_rdma_conn_param none;

	if (!id->route_resolved || !id->qp || id->state != RL_CM_STATE_IDLE || id->listener)
		return -EINVAL;
	if (!param)
		param = &none;
	if (id->ps == RL_RDMA_PS_UDP)
		return rl_cm_sidr_connect(id, param);
	if (param->retry_count > RL_CM_RETRY_COUNT_MAX || param->rnr_retry_count > RL_CM_RETRY_COUNT_MAX)
		return -EINVAL;
	return rl_cm_connect(id, param);
}

int rl_rdma_accept(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *param)
{
	static const struct rl_rdma_conn_param none;

	if (!id->qp)
		return -EINVAL;
	if (!param)
		param = &none;
	if (id->ps == RL_RDMA_PS_UDP)
		return id->state == RL_CM_STATE_SIDR_REQ_RCVD ? rl_cm_sidr_answer(id, RL_SIDR_SUCCESS, param) : -EINVAL;
	if (id->state != RL_CM_STATE_REQ_RCVD && id->state != RL_CM_STATE_MRA_REQ_SENT)
		return -EINVAL;
	return rl_cm_accept(id, param);
}

int rl_rdma_reject(struct rl_rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	struct rl_rdma_conn_param p = { .private_data = private_data, .private_data_len = private_data_len };

	if (id->ps == RL_RDMA_PS_UDP)
		return id->state == RL_CM_STATE_SIDR_REQ_RCVD ? rl_cm_sidr_answer(id, RL_SIDR_REJECT, &p) : -EINVAL;
	if (id->state != RL_CM_STATE_REQ_RCVD && id->state != RL_CM_STATE_MRA_REQ_SENT)
		return -EINVAL;
	return rl_cm_reject(id, private_data, private_data_len);
}

int rl_rdma_disconnect(struct rl_rdma_cm_id *id)
{
	return id->ps == RL_RDMA_PS_UDP ? -EINVAL : rl_cm_disconnect(id);
}

/* ---- events ---------------------------------------------------------------------------------- */

int rl_rdma_get_cm_event(struct rl_cm_agent *a, struct rl_rdma_cm_event **ev)
{
	*ev = a->ev_head;
	if (!*ev)
		return -EAGAIN;
	a->ev_head = (*ev)->next;
	if (!a->ev_head)
		a->ev_tail = &a->ev_head;
	(*ev)->next = NULL;
	return 0;
}

int rl_rdma_ack_cm_event(struct rl_rdma_cm_event *ev)
{
	free(ev);
	return 0;
}
