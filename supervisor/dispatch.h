/* SPDX-License-Identifier: MIT */
/* The entry point of the trusted path (dispatch.c), for the loop. */
#ifndef SYSGATE_SUPERVISOR_DISPATCH_H
#define SYSGATE_SUPERVISOR_DISPATCH_H

#include <linux/seccomp.h>

#include "common/seccomp-compat.h"

struct sup;

/* Receive and handle one notification.  Returns 0, or -errno on a fatal
 * listener error. */
int notify_handle_one(struct sup *s, struct seccomp_notif *req,
		      struct seccomp_notif_resp *resp);
/* Handle a notification already received (the loop has ask.c re-run
 * answered ones through it). */
int notify_handle_req(struct sup *s, struct seccomp_notif *req);

#endif
