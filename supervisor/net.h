/* SPDX-License-Identifier: MIT */
/* Network calls (net.c). */
#ifndef SYSGATE_SUPERVISOR_NET_H
#define SYSGATE_SUPERVISOR_NET_H

#include <stdbool.h>

struct sup;
struct call;

/* connect, bind, sendto, sendmsg, sendmmsg (net.c). */
int net_handle(struct sup *s, struct call *c);
/* socket, setsockopt, listen, accept, allowed by their own rules: true
 * when the network rules decide them too (an odd socket, a route option,
 * any listen) or the supervisor carries them out (accept, to record the
 * peer), which net_scalar does, then answers. */
bool net_scalar_decides(const struct call *c);
int net_scalar(struct sup *s, struct call *c);

#endif
