/* SPDX-License-Identifier: MIT */
/*
 * race-reopen: the TOCTOU attacker on an fd number.  fd N holds READONLY
 * (opened O_RDONLY); one thread keeps putting WRITABLE (opened O_RDWR)
 * and READONLY back at N with dup2, while the main thread opens
 * /proc/self/fd/N for writing, in a loop, for SECONDS.  A supervisor that
 * lets a reopen through because the caller "already holds the file with
 * that access" must judge the file it reopens, not whatever fd N holds a
 * moment later.  Exit 1 (and say so) if READONLY was EVER opened for
 * writing, 0 otherwise.  A summary line goes to stderr.
 *
 *   race-reopen READONLY WRITABLE SECONDS
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>

static int fd_ro, fd_rw, num;
static atomic_int stop;
static unsigned long flips;

static void *flipper(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		dup2(fd_rw, num);
		dup2(fd_ro, num);
		flips++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long tries = 0, opened = 0, won = 0;
	struct stat ro, st;
	struct timespec now, end;
	char link[64];
	pthread_t t;

	victim_name = "race-reopen";
	if (argc != 4)
		victim_usage("READONLY WRITABLE SECONDS");
	fd_ro = open(argv[1], O_RDONLY | O_CLOEXEC);
	fd_rw = open(argv[2], O_RDWR | O_CLOEXEC);
	if (fd_ro < 0 || fd_rw < 0 || fstat(fd_ro, &ro) < 0)
		victim_setup_fail("open %s, %s", argv[1], argv[2]);
	num = dup(fd_ro);
	if (num < 0)
		victim_setup_fail("dup");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", num);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += victim_long(argv[3], "SECONDS");
	errno = pthread_create(&t, NULL, flipper, NULL);
	if (errno)
		victim_setup_fail("pthread_create");
	do {
		int fd = open(link, O_WRONLY | O_CLOEXEC);

		tries++;
		if (fd >= 0) {
			opened++;
			if (fstat(fd, &st) == 0 && st.st_dev == ro.st_dev &&
			    st.st_ino == ro.st_ino)
				won++;
			close(fd);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	fprintf(stderr, "race-reopen: %lu opens, %lu for writing, %lu of %s, %lu flips\n",
		tries, opened, won, argv[1], flips);
	if (won) {
		fprintf(stderr, "race-reopen: %s was opened for writing\n", argv[1]);
		return 1;
	}
	return 0;
}
