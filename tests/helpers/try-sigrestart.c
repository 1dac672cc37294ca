/* SPDX-License-Identifier: MIT */
/*
 * try-sigrestart CALL [N]: make CALL N times (default 2000) in the main
 * thread, which has a SIGUSR1 handler installed WITHOUT SA_RESTART, while
 * a second thread (SIGUSR1 blocked) sends SIGUSR1 to the main thread once
 * for each call, as the call starts.  Prints "eintr E calls C handled H"
 * and exits EINTR if any call failed with EINTR, 0 otherwise.
 *
 * CALL is one the kernel never fails with EINTR natively:
 *   kill      kill(getpid(), SIGUSR1) (the handler runs on the way out)
 *   tgkill    tgkill(getpid(), gettid(), SIGUSR1)
 *   getppid   getppid()
 *   mkdir:DIR mkdir(DIR) then rmdir(DIR) (DIR on a local file system)
 *   stat:PATH stat(PATH)
 *
 * A signal that reaches a notified call before the supervisor has
 * received the notification makes the kernel withdraw it; the call must
 * then be restarted, as natively the signal would simply have come
 * before the call.  Bounded: at most 30 s of calls.
 */
#include "victim.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

static atomic_int stop;
static atomic_long handled;
static atomic_long iter;
static pid_t main_tid;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&handled, 1);
}

static void *pest(void *arg)
{
	(void)arg;
	long seen = 0, now;

	/* One signal for each call of the main thread, sent while it makes
	 * the call or just before. */
	while (!atomic_load(&stop)) {
		now = atomic_load(&iter);
		if (now == seen) {
			sched_yield();
			continue;
		}
		seen = now;
		syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
	}
	return NULL;
}

/* One call: 0, or the errno it failed with. */
static int one(const char *call)
{
	struct stat st;
	long r;

	if (!strcmp(call, "kill"))
		r = kill(getpid(), SIGUSR1);
	else if (!strcmp(call, "tgkill"))
		r = syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	else if (!strcmp(call, "getppid"))
		r = syscall(SYS_getppid) < 0 ? -1 : 0;
	else if (!strncmp(call, "mkdir:", 6)) {
		r = mkdir(call + 6, 0700);
		if (r == 0 && rmdir(call + 6) < 0) {
			int err = errno;

			/* Counted, and the directory removed for the next
			 * mkdir. */
			for (int i = 0; i < 100 && err == EINTR; i++)
				if (rmdir(call + 6) == 0)
					break;
			return err;
		}
	} else if (!strncmp(call, "stat:", 5))
		r = stat(call + 5, &st);
	else
		victim_usage("kill|tgkill|getppid|mkdir:DIR|stat:PATH [N]");
	return r < 0 ? errno : 0;
}

int main(int argc, char **argv)
{
	/* No SA_RESTART: a withdrawn call would fail with EINTR. */
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct timespec t0, t;
	long n = 2000, i, eintr = 0, calls = 0;
	sigset_t set;
	pthread_t th;
	int err;

	victim_name = "try-sigrestart";
	if (argc < 2 || argc > 3)
		victim_usage("kill|tgkill|getppid|mkdir:DIR|stat:PATH [N]");
	if (argc == 3)
		n = victim_long(argv[2], "count");
	main_tid = gettid();
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		victim_setup_fail("sigaction");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	/* The pest thread inherits the mask: it never takes SIGUSR1. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if ((err = pthread_create(&th, NULL, pest, NULL)) != 0) {
		errno = err;
		victim_setup_fail("pthread_create");
	}
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		atomic_fetch_add(&iter, 1);
		err = one(argv[1]);
		calls++;
		if (err == EINTR)
			eintr++;
		else if (err) {
			atomic_store(&stop, 1);
			pthread_join(th, NULL);
			return victim_result(argv[1], err);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 30)
			break;
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("eintr %ld calls %ld handled %ld\n", eintr, calls,
	       atomic_load(&handled));
	return eintr ? victim_result(argv[1], EINTR) : 0;
}
