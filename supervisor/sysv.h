/* SPDX-License-Identifier: MIT */
/* SysV IPC (sysv.c). */
#ifndef SYSGATE_SUPERVISOR_SYSV_H
#define SYSGATE_SUPERVISOR_SYSV_H

#include <stdbool.h>

struct sup;
struct call;

/* shmget, shmat, shmctl, msg*, sem* (not shmdt: an address of its own). */
bool sysv_is_call(int nr);
/* Before the rules: 1 when c acts on an object the tree did not make
 * (c->v is then a built-in refusal), 0 when the rules decide it. */
int sysv_check(struct call *c);
/* After the rules allowed c: 1 when the supervisor carried it out (a
 * get: c holds its result or error, or a built-in refusal), 0 when it
 * may continue.  The event loop's thread only. */
int sysv_allowed(struct sup *s, struct call *c);
/* Remove every object the tree made and still has; how many. */
unsigned sysv_end_of_run(void);

#endif
