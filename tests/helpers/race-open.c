/* SPDX-License-Identifier: MIT */
/*
 * race-open: the TOCTOU attacker on a path buffer.  One thread keeps
 * rewriting a path buffer, alternating between ALLOWED and DENIED, while
 * the main thread opens whatever the buffer holds, in a loop, for SECONDS.
 * Every file opened is read: the denied file is recognised by the word
 * SECRET in its content.  Exit 1 (and say so) if the denied file was EVER
 * opened, 0 otherwise.  A summary line goes to stderr.
 *
 *   race-open ALLOWED DENIED SECONDS
 *
 * Give ALLOWED and DENIED the same length and let them differ in few
 * bytes, so that most reads of the buffer see one of the two whole.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static char path[4096];
static const char *paths[2];
static size_t lens[2];
static atomic_int stop;
static unsigned long flips;

static void *flipper(void *arg)
{
	volatile char *buf = path;
	unsigned long i = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		const char *src = paths[i & 1];
		size_t k;

		/* Byte by byte through a volatile pointer: the compiler may not
		 * fold the two copies into nothing. */
		for (k = 0; k < lens[i & 1] + 1; k++)
			buf[k] = src[k];
		i++;
	}
	flips = i;
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long opened = 0, failed = 0, secret = 0, other = 0, tries = 0;
	double end;
	pthread_t t;
	char buf[256];

	victim_name = "race-open";
	if (argc != 4)
		victim_usage("ALLOWED DENIED SECONDS");
	paths[0] = argv[1];
	paths[1] = argv[2];
	lens[0] = strlen(argv[1]);
	lens[1] = strlen(argv[2]);
	if (lens[0] >= sizeof path || lens[1] >= sizeof path)
		victim_usage("ALLOWED DENIED SECONDS (paths too long)");
	memcpy(path, paths[0], lens[0] + 1);
	end = now() + victim_long(argv[3], "seconds");
	errno = pthread_create(&t, NULL, flipper, NULL);
	if (errno)
		victim_setup_fail("pthread_create");
	while (now() < end) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		tries++;
		if (fd < 0) {
			failed++;
			continue;
		}
		opened++;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n < 0)
			n = 0;
		buf[n] = '\0';
		if (strstr(buf, "SECRET"))
			secret++;
		else if (!strstr(buf, "PUBLIC"))
			other++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	fprintf(stderr,
		"race-open: %lu opens tried, %lu opened, %lu failed, "
		"%lu secret, %lu unknown content, %lu flips\n",
		tries, opened, failed, secret, other, flips);
	if (secret) {
		printf("race-open: THE DENIED FILE WAS OPENED %lu times\n", secret);
		return 1;
	}
	if (!opened) {
		errno = 0;
		victim_setup_fail("the allowed file was never opened");
	}
	return 0;
}
