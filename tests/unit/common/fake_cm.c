/* SPDX-License-Identifier: BSD-3-Clause */
/* fake_cm.c -- the fake provider's connection manager: ids, events, addresses */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <netinet/in.h>

#include "fake_provider.h"
#include "fake_provider_parts.h"

/* ---- connection manager ---- */

struct fake_cm_event {
	struct rdma_cm_event event;
	struct rdma_event_channel *channel;
	uint8_t pdata[256];
	bool queued;
};

static struct fake_cm_event *cm_events[FAKE_QUEUE_LEN];
static int cm_event_count;

struct rdma_event_channel *rdma_create_event_channel(void)
{
	if (fake_enter("rdma_create_event_channel"))
		return NULL;
	struct rdma_event_channel *ch = fake_object_new(sizeof(*ch));
	ch->fd = eventfd(0, 0);
	return ch;
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	fake_enter("rdma_destroy_event_channel");
	close(channel->fd);
	fake_object_delete(channel);
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		enum rdma_port_space ps)
{
	if (fake_enter("rdma_create_id"))
		return -1;
	struct rdma_cm_id *new_id = fake_object_new(sizeof(*new_id));
	new_id->channel = channel;
	new_id->context = context;
	new_id->ps = ps;
	*id = new_id;
	fake_last_cm_id = new_id;
	return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	if (fake_enter("rdma_destroy_id"))
		return -1;
	fake_object_delete(id);
	return 0;
}

struct rdma_cm_id *fake_cm_new_request_id(struct rdma_cm_id *listen_id)
{
	struct rdma_cm_id *id = fake_object_new(sizeof(*id));
	id->channel = listen_id->channel;
	id->verbs = fake_ibv_context();
	id->ps = listen_id->ps;
	return id;
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	if (fake_enter("rdma_migrate_id"))
		return -1;
	id->channel = channel;
	return 0;
}

#define FAKE_CM_CALL(name, id_expr) \
	do { \
		if (fake_enter(name)) \
			return -1; \
		(id_expr)->verbs = fake_ibv_context(); \
		return 0; \
	} while (0)

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	fake_addr.id = id;
	fake_addr.bind_addr = addr;
	if (fake_enter("rdma_bind_addr"))
		return -1;
	id->verbs = fake_addr.no_device ? NULL : fake_ibv_context();
	return 0;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst, int timeout_ms)
{
	fake_addr.id = id;
	fake_addr.resolve_src = src;
	fake_addr.resolve_dst = dst;
	fake_addr.resolve_timeout_ms = timeout_ms;
	if (fake_enter("rdma_resolve_addr"))
		return -1;
	id->verbs = fake_addr.no_device ? NULL : fake_ibv_context();
	return 0;
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void)timeout_ms;
	FAKE_CM_CALL("rdma_resolve_route", id);
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id;
	(void)backlog;
	return fake_enter("rdma_listen") ? -1 : 0;
}

static void record_conn_param(const struct rdma_conn_param *param)
{
	memset(&fake_last_conn_param, 0, sizeof(fake_last_conn_param));
	if (!param)
		return;
	fake_last_conn_param.pdata_len = param->private_data_len;
	if (param->private_data && param->private_data_len)
		memcpy(fake_last_conn_param.pdata, param->private_data, param->private_data_len);
	fake_last_conn_param.responder_resources = param->responder_resources;
	fake_last_conn_param.initiator_depth = param->initiator_depth;
	fake_last_conn_param.rnr_retry_count = param->rnr_retry_count;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	(void)id;
	if (fake_enter("rdma_connect"))
		return -1;
	record_conn_param(param);
	return 0;
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	(void)id;
	if (fake_enter("rdma_accept"))
		return -1;
	record_conn_param(param);
	return 0;
}

int rdma_reject(struct rdma_cm_id *id, const void *pdata, uint8_t len)
{
	(void)id;
	if (fake_enter("rdma_reject"))
		return -1;
	struct rdma_conn_param param = {.private_data = pdata, .private_data_len = len};
	record_conn_param(&param);
	return 0;
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	(void)id;
	return fake_enter("rdma_disconnect") ? -1 : 0;
}

void fake_cm_push_event(struct rdma_event_channel *channel, enum rdma_cm_event_type type,
		struct rdma_cm_id *id, const void *pdata, uint8_t pdata_len, int status)
{
	if (cm_event_count == FAKE_QUEUE_LEN)
		abort();
	struct fake_cm_event *fe = __real_calloc(1, sizeof(*fe));
	if (!fe)
		abort();
	fe->channel = channel;
	fe->event.event = type;
	fe->event.id = id;
	fe->event.listen_id = NULL;
	fe->event.status = status;
	if (pdata && pdata_len)
		memcpy(fe->pdata, pdata, pdata_len);
	fe->event.param.conn.private_data = pdata_len ? fe->pdata : NULL;
	fe->event.param.conn.private_data_len = pdata_len;
	cm_events[cm_event_count++] = fe;
}

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	if (fake_enter("rdma_get_cm_event"))
		return -1;
	for (int i = 0; i < cm_event_count; i++) {
		if (cm_events[i]->channel != channel)
			continue;
		struct fake_cm_event *fe = cm_events[i];
		memmove(&cm_events[i], &cm_events[i + 1],
			sizeof(cm_events[0]) * (size_t)(cm_event_count - i - 1));
		cm_event_count--;
		fake_object_count_in(fe);
		*event = &fe->event;
		return 0;
	}
	errno = EAGAIN;
	return -1;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (fake_enter("rdma_ack_cm_event"))
		return -1;
	fake_object_count_out(event);
	free(event); /* event is the first member of its fake_cm_event */
	return 0;
}

const char *rdma_event_str(enum rdma_cm_event_type event)
{
	(void)event;
	return "FAKE_EVENT";
}

int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		struct rdma_addrinfo **res)
{
	snprintf(fake_addr.node, sizeof(fake_addr.node), "%s", node ? node : "");
	fake_addr.service_null = service == NULL;
	snprintf(fake_addr.service, sizeof(fake_addr.service), "%s", service ? service : "");
	fake_addr.hints_flags = hints ? hints->ai_flags : -1;
	fake_addr.hints_port_space = hints ? hints->ai_port_space : -1;
	if (fake_addr.getaddrinfo_ret) {
		int ret = fake_addr.getaddrinfo_ret;
		fake_addr.getaddrinfo_ret = 0;
		return ret;
	}
	if (fake_enter("rdma_getaddrinfo"))
		return -1;
	struct rdma_addrinfo *ai = fake_object_new(sizeof(*ai));
	struct sockaddr_in *sin = __real_calloc(1, sizeof(*sin));
	if (!sin)
		abort();
	sin->sin_family = AF_INET;
	ai->ai_family = AF_INET;
	ai->ai_flags = hints ? hints->ai_flags : 0;
	ai->ai_port_space = hints ? hints->ai_port_space : RDMA_PS_TCP;
	if (ai->ai_flags & RAI_PASSIVE) {
		ai->ai_src_addr = (struct sockaddr *)sin;
		ai->ai_src_len = sizeof(*sin);
	} else {
		ai->ai_dst_addr = (struct sockaddr *)sin;
		ai->ai_dst_len = sizeof(*sin);
	}
	fake_addr.ai = ai;
	*res = ai;
	return 0;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	fake_enter("rdma_freeaddrinfo");
	free(res->ai_src_addr);
	free(res->ai_dst_addr);
	fake_object_delete(res);
}

void fake_cm_reset(void)
{
	while (cm_event_count > 0)
		free(cm_events[--cm_event_count]);
}
