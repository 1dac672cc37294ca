/* SPDX-License-Identifier: MIT */
/*
 * try-chroot [--thread | --bind SRC] DIR FIRST FILE: open FIRST (so that
 * the supervisor has resolved a path from this task's root and cwd), move
 * the root, then open FILE and copy it to stdout.  The move: chroot(DIR) in
 * this thread or, with --thread, in a second thread (threads share their
 * root); with --bind, unshare(CLONE_NEWNS), every mount made private, and
 * SRC bind-mounted on DIR in the new namespace, whose root and cwd are new
 * mounts.  A supervisor that kept the root or cwd it saw at the first open
 * would resolve FILE in the old ones and decide on another object (or none).
 * Not root: the move is made in a new user namespace (unshare(CLONE_NEWUSER)
 * first), where the process holds CAP_SYS_CHROOT and CAP_SYS_ADMIN.  Exits
 * with the errno of the open of FILE (0 on success); a failed move or first
 * open is a set-up failure.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mount.h>

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
	const char *bind_src = NULL;
	bool thread = false;
	char buf[4096];
	ssize_t n;
	int fd;

	victim_name = "try-chroot";
	if (argc > 1 && !strcmp(argv[1], "--thread")) {
		thread = true;
		argv++;
		argc--;
	} else if (argc > 2 && !strcmp(argv[1], "--bind")) {
		bind_src = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: try-chroot [--thread | --bind SRC] DIR FIRST FILE\n");
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
	if (bind_src) {
		/* Private first: a bind on a shared mount would show in the
		 * namespace left behind too, and prove nothing. */
		if (unshare(CLONE_NEWNS) < 0)
			victim_setup_fail("unshare(CLONE_NEWNS)");
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			victim_setup_fail("mount --make-rprivate /");
		if (mount(bind_src, dir, NULL, MS_BIND, NULL) < 0)
			victim_setup_fail("mount --bind %s %s", bind_src, dir);
	} else if (thread) {
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
