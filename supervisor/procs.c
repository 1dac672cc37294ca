/* SPDX-License-Identifier: MIT */
/*
 * The process table: every traced task (thread) by tid, in a hash table
 * with chaining.  Grows with the tree; memory is linear in live tasks.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/procs.h"
#include "supervisor/record.h"

#define PROCS_MIN_BUCKETS 256
#define PROCS_MAX_FORGET 8

/* The forget functions of the modules that keep state in an entry. */
static procs_forget_fn forget_fns[PROCS_MAX_FORGET];
static unsigned n_forget_fns;

static struct proc **buckets;
static size_t n_buckets;
static unsigned n_procs;

static size_t slot(pid_t tid)
{
	return ((size_t)tid * 2654435761u) & (n_buckets - 1);
}

static int grow(void)
{
	size_t nb = n_buckets ? n_buckets * 2 : PROCS_MIN_BUCKETS;
	struct proc **nt = calloc(nb, sizeof(*nt));
	size_t old = n_buckets;
	struct proc **ot = buckets;

	if (!nt)
		return -1;
	buckets = nt;
	n_buckets = nb;
	for (size_t i = 0; i < old; i++) {
		struct proc *p = ot[i];

		while (p) {
			struct proc *next = p->next;
			size_t k = slot(p->tid);

			p->next = buckets[k];
			buckets[k] = p;
			p = next;
		}
	}
	free(ot);
	return 0;
}

int procs_on_forget(procs_forget_fn fn)
{
	for (unsigned i = 0; i < n_forget_fns; i++)
		if (forget_fns[i] == fn)
			return 0;
	if (n_forget_fns == PROCS_MAX_FORGET)
		return -ENOSPC;
	forget_fns[n_forget_fns++] = fn;
	return 0;
}

struct proc *procs_find(pid_t tid)
{
	if (!n_buckets)
		return NULL;
	for (struct proc *p = buckets[slot(tid)]; p; p = p->next)
		if (p->tid == tid)
			return p;
	return NULL;
}

struct proc *procs_add(pid_t tid, pid_t tgid, pid_t ppid)
{
	struct proc *p = procs_find(tid);

	if (p)
		return p;
	if (n_procs + 1 > n_buckets / 2 && grow() < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tid = tid;
	p->tgid = tgid;
	p->pidfd = -1;
	p->root_fd = -1;
	p->cwd_fd = -1;
	p->ppid = ppid;
	p->start_us = sup_now_us();
	size_t k = slot(tid);
	p->next = buckets[k];
	buckets[k] = p;
	n_procs++;
	return p;
}

void procs_del(pid_t tid)
{
	if (!n_buckets)
		return;
	for (struct proc **pp = &buckets[slot(tid)]; *pp; pp = &(*pp)->next) {
		struct proc *p = *pp;

		if (p->tid == tid) {
			*pp = p->next;
			for (unsigned i = 0; i < n_forget_fns; i++)
				forget_fns[i](p);
			free(p->exe);
			free(p->argv);
			free(p);
			n_procs--;
			return;
		}
	}
}

bool procs_is_tree_tgid(pid_t pid)
{
	struct proc *p = procs_find(pid);

	return p && p->tgid == pid && !p->exited;
}

unsigned procs_count(void)
{
	return n_procs;
}

void procs_each(void (*fn)(struct proc *p, void *arg), void *arg)
{
	for (size_t i = 0; i < n_buckets; i++) {
		struct proc *p = buckets[i];

		while (p) {
			struct proc *next = p->next;

			fn(p, arg);
			p = next;
		}
	}
}

void procs_set_exe(struct proc *p, const char *exe)
{
	char *copy = strdup(exe);

	if (!copy)
		return;	/* keep the old name: it only labels records */
	free(p->exe);
	p->exe = copy;
}

void procs_set_argv(struct proc *p, const char *argv, size_t len)
{
	char *copy = malloc(len + 1);

	if (!copy)
		return;	/* keep the old one: it only informs questions */
	memcpy(copy, argv, len);
	copy[len] = '\0';
	free(p->argv);
	p->argv = copy;
	p->argv_len = len;
}
