/* SPDX-License-Identifier: MIT */
/*
 * try-chroot [--thread] DIR FIRST FILE: open FIRST (so that the supervisor
 * has resolved a path from this task's root), chroot(DIR) in this thread or,
 * with --thread, in a second thread (threads share their root), then open
 * FILE, a path in the new root, and copy it to stdout.  A supervisor that
 * kept the root it saw at the first open would resolve FILE in the old root
 * and decide on another object.  Not root: the chroot is made in a new user
 * namespace (unshare(CLONE_NEWUSER) first), where the process holds
 * CAP_SYS_CHROOT.  Exits with the errno of the open of FILE (0 on success);
 * a failed chroot or first open is a set-up failure.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

static const char *dir;
static int chroot_err;

static void *do_chroot(void *arg)
{
	(void)arg;
	if (chroot(dir) < 0)
		chroot_err = errno;
	return NULL;
}

int main(int argc, char **argv)
{
	bool thread = false;
	char buf[4096];
	ssize_t n;
	int fd;

	victim_name = "try-chroot";
	if (argc > 1 && !strcmp(argv[1], "--thread")) {
		thread = true;
		argv++;
		argc--;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: try-chroot [--thread] DIR FIRST FILE\n");
		return VICTIM_EXIT_SETUP;
	}
	dir = argv[1];
	/* Before any thread: a user namespace needs a single-threaded caller. */
	if (geteuid() != 0 && unshare(CLONE_NEWUSER) < 0)
		victim_setup_fail("unshare(CLONE_NEWUSER)");
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		victim_setup_fail("open %s", argv[2]);
	close(fd);
	if (thread) {
		pthread_t t;

		if (pthread_create(&t, NULL, do_chroot, NULL) != 0 ||
		    pthread_join(t, NULL) != 0)
			victim_setup_fail("thread");
	} else {
		do_chroot(NULL);
	}
	if (chroot_err) {
		errno = chroot_err;
		victim_setup_fail("chroot %s", dir);
	}
	fd = open(argv[3], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return victim_result(argv[3], errno);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(STDOUT_FILENO, buf, (size_t)n) != n)
			victim_setup_fail("write");
	close(fd);
	return 0;
}
