/* SPDX-License-Identifier: MIT */
/*
 * try-fscreds FILE: run as root under `sysgate run --user root`, where the
 * supervisor opens files with the caller's file-system credentials and
 * keeps them per task between calls (supervisor/notify.c).  FILE must be
 * readable by root only.  The opens must answer as the kernel would with
 * the credentials of each call:
 *   - fsuid 0: opened;
 *   - after setfsuid(65534) in this thread: EACCES;
 *   - in another thread, whose fsuid is still 0: opened;
 *   - after an exec (which sets the fsuid back to the euid, 0): opened;
 *   - after setfsuid(0) again: opened.
 * A value kept too long shows as the wrong answer.  Exits 0, or 1 after
 * naming the first wrong one.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>

static const char *file;
static int bad;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int step;

static void expect(const char *when, int want)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	int got = fd < 0 ? errno : 0;

	if (fd >= 0)
		close(fd);
	if (got != want && !bad) {
		fprintf(stderr, "try-fscreds: %s: open gave %s, the kernel gives %s\n",
			when, got ? victim_errname(got) : "success",
			want ? victim_errname(want) : "success");
		bad = 1;
	}
}

static void set_fsuid(uid_t u)
{
	syscall(SYS_setfsuid, u);
	if ((uid_t)syscall(SYS_setfsuid, -1) != u)
		victim_setup_fail("setfsuid %u", (unsigned)u);
}

/* Waits until the main thread has dropped its fsuid, then opens. */
static void *other(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (step < 1)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	expect("another thread, fsuid 0", 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	victim_name = "try-fscreds";
	if (argc < 2)
		victim_setup_fail("usage: try-fscreds FILE");
	file = argv[1];
	if (argc > 2) {
		/* After the exec: the fsuid is the euid again. */
		expect("after an exec", 0);
		return bad;
	}
	if (geteuid() != 0)
		victim_setup_fail("needs euid 0");
	expect("fsuid 0", 0);
	if (pthread_create(&t, NULL, other, NULL) != 0)
		victim_setup_fail("pthread_create");
	set_fsuid(65534);
	expect("fsuid 65534", EACCES);
	pthread_mutex_lock(&mu);
	step = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(t, NULL);
	expect("fsuid 65534, after the other thread's open", EACCES);
	set_fsuid(0);
	expect("fsuid 0 again", 0);
	if (bad)
		return 1;
	set_fsuid(65534);
	expect("fsuid 65534 before the exec", EACCES);
	if (bad)
		return 1;
	execl("/proc/self/exe", argv[0], file, "exec", (char *)NULL);
	victim_setup_fail("exec");
	return 1;
}
