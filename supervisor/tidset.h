/* SPDX-License-Identifier: MIT */
/* A small set of task ids (resolve.c, cpubind.c). */
#ifndef SYSGATE_SUPERVISOR_TIDSET_H
#define SYSGATE_SUPERVISOR_TIDSET_H

#include <stdbool.h>
#include <sys/types.h>

#define TID_SET_MAX 16
struct tid_set {
	pid_t tids[TID_SET_MAX];
	unsigned n;
};
/* Add tid: false when the set is full (nothing added). */
static inline bool tid_set_add(struct tid_set *ts, pid_t tid)
{
	if (ts->n == TID_SET_MAX)
		return false;
	ts->tids[ts->n++] = tid;
	return true;
}
static inline void tid_set_del(struct tid_set *ts, pid_t tid)
{
	for (unsigned i = 0; i < ts->n; i++)
		if (ts->tids[i] == tid) {
			ts->tids[i] = ts->tids[--ts->n];
			return;
		}
}

#endif
