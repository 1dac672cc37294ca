/* SPDX-License-Identifier: MIT */
/*
 * race-symlink: the TOCTOU attacker on a symlink.  Two symlinks are
 * prepared in DIR: DIR/link -> ALLOWED and DIR/spare -> DENIED.  One
 * thread keeps swapping them while the main thread opens DIR/link in a
 * loop for SECONDS and reads each file it gets; the denied file is the
 * one whose content holds SECRET.  Exit 1 if it was EVER opened.
 *
 *   race-symlink [--mode exchange|rename] [--prepared] DIR ALLOWED DENIED SECONDS
 *
 * exchange (default): renameat2(link, spare, RENAME_EXCHANGE), atomic.
 * rename: rename(link, DIR/ok) + rename(DIR/bad, link), then back: the
 *         two prepared symlinks take turns at DIR/link.
 * --prepared: the symlinks already exist (made before the run, so the
 *         victim itself never creates a symlink to DENIED); without it the
 *         victim creates them with symlink(2) first.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static char link_path[4096], spare_path[4096], ok_path[4096], bad_path[4096];
static int exchange_mode = 1;
static atomic_int stop;
static unsigned long flips, flip_ok, flip_errors;
static int flip_errno;

static void note(int r)
{
	if (r < 0) {
		flip_errors++;
		flip_errno = errno;
	} else {
		flip_ok++;
	}
}

static void *swapper(void *arg)
{
	unsigned long i = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (exchange_mode) {
			note(renameat2(AT_FDCWD, link_path, AT_FDCWD, spare_path,
				       RENAME_EXCHANGE));
		} else if (i & 1) {
			/* link is the bad one: put the good one back. */
			note(rename(link_path, bad_path));
			note(rename(ok_path, link_path));
		} else {
			note(rename(link_path, ok_path));
			note(rename(bad_path, link_path));
		}
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
	unsigned long opened = 0, failed = 0, secret = 0, tries = 0;
	int i = 1, prepared = 0;
	double end;
	pthread_t t;
	char buf[256];

	victim_name = "race-symlink";
	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "exchange"))
				exchange_mode = 1;
			else if (!strcmp(argv[i], "rename"))
				exchange_mode = 0;
			else
				victim_usage("[--mode exchange|rename] ...");
		} else if (!strcmp(argv[i], "--prepared")) {
			prepared = 1;
		} else {
			victim_usage("[--mode exchange|rename] [--prepared] "
				     "DIR ALLOWED DENIED SECONDS");
		}
	}
	if (argc - i != 4)
		victim_usage("[--mode exchange|rename] [--prepared] "
			     "DIR ALLOWED DENIED SECONDS");
	snprintf(link_path, sizeof link_path, "%s/link", argv[i]);
	snprintf(spare_path, sizeof spare_path, "%s/spare", argv[i]);
	snprintf(ok_path, sizeof ok_path, "%s/ok", argv[i]);
	snprintf(bad_path, sizeof bad_path, "%s/bad", argv[i]);
	if (!prepared) {
		if (symlink(argv[i + 1], link_path) < 0)
			victim_setup_fail("symlink %s", link_path);
		if (symlink(argv[i + 2],
			    exchange_mode ? spare_path : bad_path) < 0)
			victim_setup_fail("symlink to %s", argv[i + 2]);
	}
	end = now() + victim_long(argv[i + 3], "seconds");
	errno = pthread_create(&t, NULL, swapper, NULL);
	if (errno)
		victim_setup_fail("pthread_create");
	while (now() < end) {
		int fd = open(link_path, O_RDONLY | O_CLOEXEC);
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
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	fprintf(stderr,
		"race-symlink: %lu opens tried, %lu opened, %lu failed, "
		"%lu secret, %lu swaps, %lu renames ok, %lu failed (last %s)\n",
		tries, opened, failed, secret, flips, flip_ok, flip_errors,
		flip_errors ? victim_errname(flip_errno) : "-");
	if (secret) {
		printf("race-symlink: THE DENIED FILE WAS OPENED %lu times\n",
		       secret);
		return 1;
	}
	/* Nothing swapped or nothing opened: the run proved nothing. */
	if (!flip_ok) {
		errno = flip_errno;
		victim_setup_fail("no swap succeeded");
	}
	if (!opened) {
		errno = 0;
		victim_setup_fail("the allowed file was never opened");
	}
	return 0;
}
