/* SPDX-License-Identifier: MIT */
/* action = ask (ask.c). */
#ifndef SYSGATE_SUPERVISOR_ASK_H
#define SYSGATE_SUPERVISOR_ASK_H

#include <linux/seccomp.h>

#include "common/seccomp-compat.h"

struct sup;
struct call;

/* action = ask (ask.c).  ask_resolve: the verdict is RULES_ASK; answer it
 * from memory or from the answer at hand (0: c->v is now allow or deny),
 * or put the question on a thread (1: the notification stays pending and
 * the handler returns without replying).  The loop polls ask_fd() and
 * calls ask_dispatch, which decides answered calls again with redo (the
 * loop's entry point: ask.c, below it, does not call up). */
int ask_init(void);
int ask_fd(void);
int ask_resolve(struct sup *s, struct call *c);
typedef int (*ask_redo_fn)(struct sup *s, struct seccomp_notif *req);
void ask_dispatch(struct sup *s, struct seccomp_notif *req, ask_redo_fn redo);

#endif
