/* SPDX-License-Identifier: MIT */
/*
 * Calls finished on worker threads (a blocking FIFO open, connect or
 * send): the job a call becomes, and the pool of threads that run jobs.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/call.h"
#include "supervisor/pool.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

void call_job_init(struct call_job *j, struct sup *s, const struct call *c)
{
	j->s = s;
	j->c = *c;
	/* The process may exec or exit meanwhile: keep our own copies. */
	snprintf(j->exe, sizeof(j->exe), "%s", c->exe ? c->exe : "?");
	j->c.exe = j->exe;
	j->req = *c->req;
	j->c.req = &j->req;
	if (c->creds) {
		j->creds = *c->creds;
		j->have_creds = true;
	}
	j->c.creds = NULL;
	if (c->stack) {
		j->stack = *c->stack;
		j->c.stack = &j->stack;
	}
}

/*
 * The worker threads that run call jobs.  Creating a thread per job and
 * letting it exit costs more than the rest of the supervisor's work on a
 * connect (bench/README.md, "Measurements behind the code"), so a worker that finishes a job
 * waits for the next one instead (up to WORKERS_IDLE_MAX of them wait;
 * more exit), and a job
 * goes to a waiting worker when there is one, a new worker otherwise, so
 * that a job that blocks (a remote connect, a FIFO nobody opens) never
 * holds up another.  The waiting worker is bound to the CPU the event
 * loop runs on when it is handed the job: it then runs as soon as the
 * loop waits, instead of waking an idle CPU (tens of us in a VM, as for
 * ADDFD: cpubind.c).  It is the supervisor's own thread, so the binding
 * touches nothing of the traced tree.
 *
 * Security: a job runs with the caller's credentials from call_job_enter
 * on (all of them, creds_switch(), on the worker thread only).  A worker
 * keeps them after the job, as the event loop keeps a caller's between
 * calls (notify_creds_release()): the next job of the same caller
 * switches nothing (the cost of a switch: bench/README.md), and an
 * idle worker holds no more than that caller's rights.  A worker whose
 * switch failed half-way exits instead of taking another job, and its
 * credentials go with it.
 */
#define WORKERS_IDLE_MAX 4

struct worker {
	/* Posted once per job handed to it.  Posted after workers_lock is
	 * let go: a condition variable signalled under the lock woke the
	 * worker only for it to sleep again on the lock (two wake-ups per
	 * job).  The worker may end and free itself as soon as its
	 * sem_wait returns, which glibc's sem_post allows (since 2.21). */
	sem_t wake;
	struct call_job *job;	/* handed to it, under workers_lock */
	void *(*fn)(void *);
	pid_t tid;
	int cpu;		/* the CPU it is bound to, -1: none */
	struct worker *next;	/* in the idle list */
};

static pthread_mutex_t workers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct worker *workers_idle;
static unsigned n_workers_idle;

/* The caller's credentials a thread running jobs holds (w_holding), kept
 * after its job; w_unsure: a switch failed half-way, the thread holds
 * something in between. */
static __thread struct creds w_held;
static __thread bool w_holding, w_unsure;

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_mutex_lock(&workers_lock);
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_unlock(&workers_lock);
	for (;;) {
		struct call_job *j;
		void *(*fn)(void *);

		while (sem_wait(&w->wake) < 0)
			;	/* EINTR */
		/* Handed over under workers_lock before the post, which
		 * orders it before this (sem_post/sem_wait synchronize
		 * memory); nobody else touches an idle worker's job. */
		j = w->job;
		fn = w->fn;
		w->job = NULL;
		fn(j);		/* frees j */
		pthread_mutex_lock(&workers_lock);
		if (w_unsure || n_workers_idle >= WORKERS_IDLE_MAX)
			break;
		w->next = workers_idle;
		workers_idle = w;
		n_workers_idle++;
		pthread_mutex_unlock(&workers_lock);
	}
	pthread_mutex_unlock(&workers_lock);
	sem_destroy(&w->wake);
	free(w);
	return NULL;
}

/* Bind an idle worker to the CPU this thread runs on (workers_lock held). */
static void worker_bind_here(struct worker *w)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0 || cpu >= CPU_SETSIZE || cpu == w->cpu)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	w->cpu = sched_setaffinity(w->tid, sizeof(one), &one) == 0 ? cpu : -1;
}

int call_job_start(struct call_job *j, void *(*fn)(void *))
{
	pthread_attr_t at;
	pthread_t t;
	struct worker *w;
	int rc;

	pthread_mutex_lock(&workers_lock);
	w = workers_idle;
	if (w) {
		workers_idle = w->next;
		n_workers_idle--;
		w->job = j;
		w->fn = fn;
		worker_bind_here(w);
		pthread_mutex_unlock(&workers_lock);
		sem_post(&w->wake);
		return 0;
	}
	pthread_mutex_unlock(&workers_lock);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	/* Its first job is handed over here: one post already. */
	if (sem_init(&w->wake, 0, 1) != 0) {
		free(w);
		return -ENOMEM;
	}
	w->job = j;
	w->fn = fn;
	w->cpu = -1;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &at, worker_main, w);
	pthread_attr_destroy(&at);
	if (rc != 0) {
		sem_destroy(&w->wake);
		free(w);
	}
	return -rc;
}

int call_job_enter(struct call_job *j)
{
	if (!j->have_creds)
		return 0;
	if (w_holding && creds_same(&w_held, &j->creds))
		return 0;
	/* Security: fail closed; a worker left unsure exits after the
	 * job (worker_main). */
	w_holding = false;
	if (!caller_creds_own() ||
	    creds_switch(&j->creds, caller_creds_own()) < 0) {
		w_unsure = true;
		return -EPERM;
	}
	w_held = j->creds;
	w_holding = true;
	return 0;
}

void call_job_leave(struct call_job *j)
{
	/* The credentials stay: see w_held. */
	(void)j;
}
