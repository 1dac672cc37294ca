/* SPDX-License-Identifier: MIT */
/*
 * supervisor/sysv.c: SysV IPC.  The supervisor makes the tree's shared
 * memory segments, message queues and semaphore sets itself (the get
 * calls), keeps the ids it made, and refuses every call that removes,
 * changes, attaches to, sends to, takes from or operates on an object
 * whose id is not one of them: an object the tree did not make belongs to
 * someone outside it.
 *
 * Security: why the gets are carried out here.  The kernel hands out ids
 * and nothing tells the supervisor which a continued get returned; an id
 * is a small number anyone can guess (/proc/sysvipc lists them all), so
 * a check on the later calls needs the set of ids the tree made.  A get is
 * made with the supervisor's credentials, which are the caller's only
 * when both are the same user with the same groups and IPC capabilities:
 * otherwise it is refused (--user among them, where the supervisor is
 * root).  The tree's and the supervisor's IPC namespaces must be the
 * same, or an id would name another object: otherwise refused.
 *
 * Ids are checked on the event loop's thread only (every SysV call is a
 * scalar call decided there): the set needs no lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/sup.h"
#include "supervisor/sysv.h"
#include "supervisor/tracee.h"

/* ctl commands as the kernel reads them (glibc adds IPC_64). */
#ifndef IPC_64
#define IPC_64 0x0100
#endif
#ifndef SHM_STAT_ANY
#define SHM_STAT_ANY 15
#endif
#ifndef SEM_STAT_ANY
#define SEM_STAT_ANY 20
#endif
#ifndef MSG_STAT_ANY
#define MSG_STAT_ANY 13
#endif

/* At most this many live objects of the tree's; a get past it: ENOSPC. */
#define SYSV_MAX_IDS 4096

enum sysv_kind { SYSV_SHM, SYSV_MSG, SYSV_SEM };

struct sysv_id {
	enum sysv_kind kind;
	int id;
};

static struct sysv_id *ids;
static size_t n_ids;

static ssize_t id_find(enum sysv_kind kind, int id)
{
	for (size_t i = 0; i < n_ids; i++)
		if (ids[i].kind == kind && ids[i].id == id)
			return (ssize_t)i;
	return -1;
}

static int id_add(enum sysv_kind kind, int id)
{
	if (id_find(kind, id) >= 0)
		return 0;
	if (n_ids >= SYSV_MAX_IDS)
		return -ENOSPC;
	if (!ids) {
		ids = calloc(SYSV_MAX_IDS, sizeof(*ids));
		if (!ids)
			return -ENOMEM;
	}
	ids[n_ids++] = (struct sysv_id){ .kind = kind, .id = id };
	return 0;
}

static void id_del(enum sysv_kind kind, int id)
{
	ssize_t i = id_find(kind, id);

	if (i >= 0)
		ids[i] = ids[--n_ids];
}

static void rmid(enum sysv_kind kind, int id)
{
	switch (kind) {
	case SYSV_SHM:
		(void)shmctl(id, IPC_RMID, NULL);
		break;
	case SYSV_MSG:
		(void)msgctl(id, IPC_RMID, NULL);
		break;
	case SYSV_SEM:
		(void)semctl(id, 0, IPC_RMID);
		break;
	}
}

/* What a SysV call is: a get, a call on the id in its first argument
 * (a ctl: with its cmd in ctl_cmd_arg), or neither (shmdt: an address of
 * the caller's own, not listed). */
struct sysv_call {
	int nr;
	enum sysv_kind kind;
	bool get;
	int ctl_cmd_arg;	/* the ctl's cmd argument, -1: not a ctl */
};

static const struct sysv_call sysv_calls[] = {
	{ SYS_shmget, SYSV_SHM, true, -1 },
	{ SYS_msgget, SYSV_MSG, true, -1 },
	{ SYS_semget, SYSV_SEM, true, -1 },
	{ SYS_shmat, SYSV_SHM, false, -1 },
	{ SYS_msgsnd, SYSV_MSG, false, -1 },
	{ SYS_msgrcv, SYSV_MSG, false, -1 },
	{ SYS_semop, SYSV_SEM, false, -1 },
	{ SYS_semtimedop, SYSV_SEM, false, -1 },
	{ SYS_shmctl, SYSV_SHM, false, 1 },
	{ SYS_msgctl, SYSV_MSG, false, 1 },
	{ SYS_semctl, SYSV_SEM, false, 2 },
};

static bool sysv_classify(int nr, struct sysv_call *sc)
{
	for (size_t i = 0; i < ARRAY_SIZE(sysv_calls); i++)
		if (sysv_calls[i].nr == nr) {
			*sc = sysv_calls[i];
			return true;
		}
	return false;
}

bool sysv_is_call(int nr)
{
	struct sysv_call sc;

	return sysv_classify(nr, &sc);
}

/*
 * A ctl command that only reads (what /proc/sysvipc shows anyone) or
 * names no object: allowed on any id.  Any other (IPC_RMID, IPC_SET,
 * SHM_LOCK, SETVAL, SETALL, and whatever this list does not know) acts on
 * the object.  The numbers overlap between kinds (SHM_LOCK is MSG_STAT).
 */
static bool ctl_reads(enum sysv_kind kind, unsigned cmd)
{
	cmd &= ~(unsigned)IPC_64;
	if (cmd == IPC_STAT || cmd == IPC_INFO)
		return true;
	switch (kind) {
	case SYSV_SHM:
		return cmd == SHM_INFO || cmd == SHM_STAT ||
		       cmd == SHM_STAT_ANY;
	case SYSV_MSG:
		return cmd == MSG_INFO || cmd == MSG_STAT ||
		       cmd == MSG_STAT_ANY;
	case SYSV_SEM:
		return cmd == SEM_INFO || cmd == SEM_STAT ||
		       cmd == SEM_STAT_ANY || cmd == GETVAL || cmd == GETALL ||
		       cmd == GETPID || cmd == GETNCNT || cmd == GETZCNT;
	}
	return false;
}

int sysv_check(struct call *c)
{
	const __u64 *a = c->req->data.args;
	struct sysv_call sc;

	if (!sysv_classify(c->req->data.nr, &sc) || sc.get)
		return 0;
	if (sc.ctl_cmd_arg >= 0 && ctl_reads(sc.kind, (unsigned)a[sc.ctl_cmd_arg]))
		return 0;
	if (id_find(sc.kind, (int)a[0]) >= 0)
		return 0;
	notify_verdict_builtin(&c->v, "sysgate:ipc-outside-tree", EPERM);
	c->note = "a SysV IPC object the tree did not make";
	return 1;
}

/* ---------------------------------------------------------------- gets */

/* The supervisor's own IPC namespace, read once. */
static int ns_same(pid_t tid)
{
	static struct stat own;
	static bool have_own;
	char path[64];
	struct stat st;

	if (!have_own) {
		if (stat("/proc/self/ns/ipc", &own) < 0)
			return -errno;
		have_own = true;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", (int)tid);
	if (stat(path, &st) < 0)
		return -errno;
	return st.st_ino == own.st_ino && st.st_dev == own.st_dev ? 0 : -EPERM;
}

/* The capabilities a get checks: the owner's override and locking. */
#define IPC_CAPS ((1ull << CAP_IPC_OWNER) | (1ull << CAP_IPC_LOCK))

/* The caller's credentials, as far as a get looks at them, are ours. */
static int creds_ours(pid_t tid)
{
	struct creds theirs;
	static struct creds own;
	static bool have_own;
	int r;

	if (!have_own) {
		if ((r = tracee_creds((pid_t)syscall(SYS_gettid), &own)) < 0)
			return r;
		have_own = true;
	}
	if ((r = tracee_creds(tid, &theirs)) < 0)
		return r;
	if (theirs.fsuid != own.fsuid || theirs.fsgid != own.fsgid ||
	    theirs.n_groups != own.n_groups ||
	    memcmp(theirs.groups, own.groups,
		   (size_t)own.n_groups * sizeof(own.groups[0])) ||
	    (own.cap_eff & IPC_CAPS & ~theirs.cap_eff))
		return -EPERM;
	if (geteuid() != own.fsuid || getegid() != own.fsgid)
		return -EPERM;
	return 0;
}

static long do_get(int nr, int key, uint64_t arg1, int flags)
{
	long r;

	switch (nr) {
	case SYS_shmget:
		r = syscall(SYS_shmget, key, (size_t)arg1, flags);
		break;
	case SYS_semget:
		r = syscall(SYS_semget, key, (int)arg1, flags);
		break;
	default:
		r = syscall(SYS_msgget, key, flags);
		break;
	}
	return r < 0 ? -errno : r;
}

/*
 * The get as the caller asked it: the id, and whether this call made the
 * object.  A keyed get that may create is first tried with IPC_EXCL, so
 * that an object found (someone else's, or the tree's own) is not taken
 * for a new one; a few tries when the object goes between the two.
 */
static long get_made(int nr, int key, uint64_t arg1, int flags, bool *made)
{
	long r = -ENOENT;

	*made = false;
	if (key == IPC_PRIVATE || (flags & IPC_EXCL) || !(flags & IPC_CREAT)) {
		r = do_get(nr, key, arg1, flags);
		*made = r >= 0 && (key == IPC_PRIVATE || (flags & IPC_EXCL));
		return r;
	}
	for (int i = 0; i < 3 && r == -ENOENT; i++) {
		r = do_get(nr, key, arg1, flags | IPC_EXCL);
		if (r >= 0) {
			*made = true;
			return r;
		}
		if (r != -EEXIST)
			return r;
		r = do_get(nr, key, arg1, flags & ~IPC_CREAT);
	}
	return r;
}

static void sysv_get(struct sup *s, struct call *c, enum sysv_kind kind)
{
	const __u64 *a = c->req->data.args;
	int nr = c->req->data.nr;
	bool made;
	long r;

	if (s->run.as_caller || creds_ours(c->tid) < 0) {
		notify_verdict_builtin(&c->v, "sysgate:credentials", EPERM);
		c->note = "a SysV IPC object made with other credentials "
			  "than the supervisor's";
		return;
	}
	if (ns_same(c->tid) < 0) {
		notify_verdict_builtin(&c->v, "sysgate:ipc-namespace", EPERM);
		c->note = "a SysV IPC object in another IPC namespace";
		return;
	}
	if (n_ids >= SYSV_MAX_IDS) {
		c->err = ENOSPC;
		return;
	}
	c->emulated = true;
	if (notify_record_before_change(s, c) < 0)
		return;
	r = get_made(nr, (int)a[0], a[1], (int)(nr == SYS_msgget ? a[1] : a[2]),
		     &made);
	if (r >= 0 && made && id_add(kind, (int)r) < 0) {
		/* Fail closed: an object the tree could not use again. */
		rmid(kind, (int)r);
		r = -ENOSPC;
	}
	call_result(c, r);
}

int sysv_allowed(struct sup *s, struct call *c)
{
	const __u64 *a = c->req->data.args;
	struct sysv_call sc;

	assert_loop_thread();
	if (!sysv_classify(c->req->data.nr, &sc))
		return 0;
	if (sc.get) {
		sysv_get(s, c, sc.kind);
		return 1;
	}
	/* Security: forgotten before the kernel removes it, so that an
	 * id handed out again later is never taken for the tree's. */
	if (sc.ctl_cmd_arg >= 0 &&
	    ((unsigned)a[sc.ctl_cmd_arg] & ~(unsigned)IPC_64) == IPC_RMID)
		id_del(sc.kind, (int)a[0]);
	return 0;
}

unsigned sysv_end_of_run(void)
{
	unsigned n = (unsigned)n_ids;

	/* Security: no channel the tree made outlives the run. */
	for (size_t i = 0; i < n_ids; i++)
		rmid(ids[i].kind, ids[i].id);
	n_ids = 0;
	free(ids);
	ids = NULL;
	return n;
}
