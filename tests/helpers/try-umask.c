/* SPDX-License-Identifier: MIT */
/*
 * try-umask DIR: files and directories created in DIR after umask(2)
 * calls made by the process itself, by another of its threads, by a
 * process sharing its umask (clone with CLONE_FS) and around a fork must
 * get the modes the kernel gives them.  The supervisor applies the umask
 * to the creates it carries out, and keeps it between calls (resolve.c):
 * a value kept too long shows here.  Exits 0, or 1 after naming the first
 * wrong mode.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *dir;
static int bad;

static void expect(const char *name, bool is_dir, mode_t want)
{
	char p[4096];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (is_dir) {
		if (mkdir(p, 0777) < 0)
			victim_setup_fail("mkdir %s", p);
	} else {
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0)
			victim_setup_fail("open %s", p);
		close(fd);
	}
	if (stat(p, &st) < 0)
		victim_setup_fail("stat %s", p);
	if ((st.st_mode & 07777) != want && !bad) {
		fprintf(stderr, "try-umask: %s: mode %04o, the umask gives %04o\n",
			name, (unsigned)(st.st_mode & 07777), (unsigned)want);
		bad = 1;
	}
}

static void *set_027(void *arg)
{
	(void)arg;
	umask(027);
	return NULL;
}

static char stack[64 * 1024] __attribute__((aligned(16)));

static int set_002(void *arg)
{
	(void)arg;
	umask(002);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t pid;
	int st;

	victim_name = "try-umask";
	if (argc != 2)
		victim_usage("DIR");
	dir = argv[1];

	umask(022);
	expect("a", false, 0644);
	expect("a.d", true, 0755);
	umask(077);		/* this task's own change */
	expect("b", false, 0600);
	expect("b.d", true, 0700);

	/* Another thread changes it: threads share it. */
	errno = pthread_create(&t, NULL, set_027, NULL);
	if (errno)
		victim_setup_fail("pthread_create");
	pthread_join(t, NULL);
	expect("c", false, 0640);

	/* Another process sharing it (CLONE_FS) changes it. */
	pid = clone(set_002, stack + sizeof(stack), CLONE_FS | SIGCHLD, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		victim_setup_fail("clone");
	expect("d", false, 0664);
	expect("d.d", true, 0775);

	/* A fork starts with its parent's and changes only its own. */
	pid = fork();
	if (pid < 0)
		victim_setup_fail("fork");
	if (pid == 0) {
		expect("e", false, 0664);
		umask(0);
		expect("f", false, 0666);
		_exit(bad);
	}
	if (waitpid(pid, &st, 0) != pid)
		victim_setup_fail("waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bad = 1;
	expect("g", false, 0664);
	return bad;
}
