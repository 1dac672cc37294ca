/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test-tmpdir.c: CUnit tests of supervisor/tmpdir.c, the
 * command's private TMPDIR: its lock, its removal through directory fds,
 * and the sweep of the directories that killed runs left.  A killed run is
 * a struct tmpdir whose lock fd is closed without tmpdir_remove(): the
 * kernel drops a flock() the same way when its process dies.  Runs in a
 * fresh directory under /tmp; the cases with another user's files need
 * root and say so when skipped.
 */
#include "config.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/tmpdir.h"
#include "tests/unit/unit.h"

/* Room for a path of PATH_MAX and a name: no truncation. */
#define PBUF (PATH_MAX + 64)

static char parent[64];
static unsigned int run_counter;

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[PBUF];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* A new run's directory in parent, created; its run id is made up in the
 * format of main.c's make_run_id(). */
static void new_run(struct tmpdir *t)
{
	char id[64];

	snprintf(id, sizeof(id), "20261204T120000Z-%012x", ++run_counter);
	CU_ASSERT_EQUAL_FATAL(tmpdir_name(t, parent, id), 0);
	CU_ASSERT_EQUAL_FATAL(tmpdir_create(t, NULL), 0);
}

/* The run dies: its lock goes with its last fd, its files stay. */
static void kill_run(struct tmpdir *t)
{
	close(t->lock_fd);
	t->lock_fd = -1;
}

/* Can another open file description lock t's lock file? */
static bool lock_free(const char *lock)
{
	int fd = open(lock, O_RDONLY | O_CLOEXEC);
	bool got;

	if (fd < 0)
		return false;
	got = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return got;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void test_name(void)
{
	struct tmpdir t;
	char longp[PATH_MAX];

	CU_ASSERT_EQUAL(tmpdir_name(&t, "/var/tmp", "RUN"), 0);
	CU_ASSERT_STRING_EQUAL(t.path, "/var/tmp/sysgate-RUN");
	CU_ASSERT_STRING_EQUAL(t.lock, "/var/tmp/sysgate-RUN.lock");
	CU_ASSERT_EQUAL(t.lock_fd, -1);
	/* Relative or unset: /tmp, as the command's TMPDIR must be absolute. */
	CU_ASSERT_EQUAL(tmpdir_name(&t, "tmp", "RUN"), 0);
	CU_ASSERT_STRING_EQUAL(t.path, "/tmp/sysgate-RUN");
	CU_ASSERT_EQUAL(tmpdir_name(&t, NULL, "RUN"), 0);
	CU_ASSERT_STRING_EQUAL(t.path, "/tmp/sysgate-RUN");
	memset(longp, 'a', sizeof(longp) - 8);
	longp[0] = '/';
	longp[sizeof(longp) - 8] = '\0';
	CU_ASSERT_EQUAL(tmpdir_name(&t, longp, "RUN"), -ENAMETOOLONG);
}

static void test_create_remove(void)
{
	struct tmpdir t;
	char outside[128], sub[PBUF], link[PBUF];
	struct stat st;

	new_run(&t);
	CU_ASSERT(t.lock_fd >= 0);
	CU_ASSERT_EQUAL_FATAL(stat(t.path, &st), 0);
	CU_ASSERT(S_ISDIR(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0077, 0);
	CU_ASSERT_EQUAL_FATAL(lstat(t.lock, &st), 0);
	CU_ASSERT(S_ISREG(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	/* Held while the run lives. */
	CU_ASSERT_FALSE(lock_free(t.lock));

	/* A tree, with a symlink to a file outside it and one to a
	 * directory outside it: the links go, their targets stay. */
	snprintf(outside, sizeof(outside), "%s/outside", parent);
	CU_ASSERT_EQUAL_FATAL(mkdir(outside, 0700), 0);
	put_file(outside, "keep", "x");
	snprintf(sub, sizeof(sub), "%s/a/b/c", t.path);
	snprintf(link, sizeof(link), "%s/a", t.path);
	CU_ASSERT_EQUAL_FATAL(mkdir(link, 0700), 0);
	snprintf(link, sizeof(link), "%s/a/b", t.path);
	CU_ASSERT_EQUAL_FATAL(mkdir(link, 0700), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
	put_file(sub, "f", "y");
	snprintf(link, sizeof(link), "%s/a/to-dir", t.path);
	CU_ASSERT_EQUAL_FATAL(symlink(outside, link), 0);
	snprintf(link, sizeof(link), "%s/a/b/to-file", t.path);
	snprintf(sub, sizeof(sub), "%s/keep", outside);
	CU_ASSERT_EQUAL_FATAL(symlink(sub, link), 0);

	CU_ASSERT_EQUAL(tmpdir_remove(&t, NULL), 0);
	CU_ASSERT_FALSE(exists(t.path));
	CU_ASSERT_FALSE(exists(t.lock));
	CU_ASSERT_EQUAL(t.lock_fd, -1);
	CU_ASSERT(exists(sub));
	snprintf(sub, sizeof(sub), "%s/keep", outside);
	CU_ASSERT_EQUAL(unlink(sub), 0);
	CU_ASSERT_EQUAL(rmdir(outside), 0);
}

static void test_create_errors(void)
{
	struct tmpdir t;

	/* No parent: nothing made, nothing left. */
	CU_ASSERT_EQUAL(tmpdir_name(&t, "/nonexistent-sysgate-parent", "RUN"), 0);
	CU_ASSERT_EQUAL(tmpdir_create(&t, NULL), -ENOENT);
	CU_ASSERT_EQUAL(t.lock_fd, -1);

	/* A name taken: the lock's O_EXCL refuses it and the existing
	 * directory is left alone. */
	new_run(&t);
	{
		struct tmpdir again = t;

		again.lock_fd = -1;
		CU_ASSERT_EQUAL(tmpdir_create(&again, NULL), -EEXIST);
		CU_ASSERT(exists(t.path));
	}
	CU_ASSERT_EQUAL(tmpdir_remove(&t, NULL), 0);
}

/* tmpdir_sweep()'s callback: the runs it found dead, in one string, and
 * the notes it was given for the run arg names (if any). */
static char dead_ids[1024];
static char dead_notes[TMPDIR_NOTES_MAX + 1];

static void note_dead(const char *run_id, const char *notes, void *arg)
{
	strncat(dead_ids, run_id, sizeof(dead_ids) - strlen(dead_ids) - 2);
	strcat(dead_ids, " ");
	if (arg && strstr(arg, run_id))
		snprintf(dead_notes, sizeof(dead_notes), "%s", notes);
}

/* Is t's run among those the callback was given? */
static bool said_dead(const struct tmpdir *t)
{
	const char *id = strrchr(t->path, '/') + 1 + strlen("sysgate-");
	char word[80];

	snprintf(word, sizeof(word), "%s ", id);
	return strstr(dead_ids, word) != NULL;
}

static void test_sweep(void)
{
	struct tmpdir dead, dead_empty, dead_nodir, live, self;
	char foreign[PBUF], badname[128], badlock[PBUF];
	char fifo[PBUF], fifo_dir[128];

	/* A killed run with a tree; one that left its directory empty; one
	 * killed between its lock and its mkdir. */
	new_run(&dead);
	put_file(dead.path, "left", "secret");
	snprintf(foreign, sizeof(foreign), "%s/sub", dead.path);
	CU_ASSERT_EQUAL_FATAL(mkdir(foreign, 0700), 0);
	put_file(foreign, "deeper", "z");
	/* Notes: two whole lines, and one cut by the kill. */
	CU_ASSERT(tmpdir_note_fd(&dead) >= 0);
	CU_ASSERT_EQUAL(write(tmpdir_note_fd(&dead), "cgroup /a\ncgroup /b\ncgr", 23), 23);
	kill_run(&dead);
	new_run(&dead_empty);
	kill_run(&dead_empty);
	new_run(&dead_nodir);
	CU_ASSERT_EQUAL_FATAL(rmdir(dead_nodir.path), 0);
	kill_run(&dead_nodir);
	/* A live run. */
	new_run(&live);
	put_file(live.path, "in-use", "x");
	/* A directory of the name without a lock (an older sysgate's). */
	snprintf(foreign, sizeof(foreign), "%s/sysgate-20260101T000000Z-000000000000", parent);
	CU_ASSERT_EQUAL_FATAL(mkdir(foreign, 0700), 0);
	put_file(foreign, "keep", "x");
	/* A free lock under a name no run has, beside its directory. */
	snprintf(badname, sizeof(badname), "%s/sysgate-20261204T120000Z-XYZ", parent);
	snprintf(badlock, sizeof(badlock), "%s.lock", badname);
	CU_ASSERT_EQUAL_FATAL(mkdir(badname, 0700), 0);
	put_file(parent, "sysgate-20261204T120000Z-XYZ.lock", "");
	/* A lock that is not a regular file (a FIFO: not to hang on). */
	snprintf(fifo_dir, sizeof(fifo_dir), "%s/sysgate-20261204T120000Z-ffffffffffff", parent);
	snprintf(fifo, sizeof(fifo), "%s.lock", fifo_dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(fifo_dir, 0700), 0);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);

	new_run(&self);
	dead_ids[0] = '\0';
	dead_notes[0] = '\0';
	tmpdir_sweep(&self, false, true, note_dead, dead.path);
	CU_ASSERT_STRING_EQUAL(dead_notes, "cgroup /a\ncgroup /b\n");

	/* Each dead run named once, no other. */
	CU_ASSERT(said_dead(&dead));
	CU_ASSERT(said_dead(&dead_empty));
	CU_ASSERT(said_dead(&dead_nodir));
	CU_ASSERT_FALSE(said_dead(&live));
	CU_ASSERT_FALSE(said_dead(&self));
	CU_ASSERT_EQUAL(strlen(dead_ids), 3 * (strlen("20261204T120000Z-000000000000") + 1));
	CU_ASSERT_FALSE(exists(dead.path));
	CU_ASSERT_FALSE(exists(dead.lock));
	CU_ASSERT_FALSE(exists(dead_empty.path));
	CU_ASSERT_FALSE(exists(dead_empty.lock));
	CU_ASSERT_FALSE(exists(dead_nodir.lock));
	CU_ASSERT(exists(live.path));
	CU_ASSERT(exists(live.lock));
	CU_ASSERT_FALSE(lock_free(live.lock));
	CU_ASSERT(exists(self.path));
	CU_ASSERT(exists(self.lock));
	CU_ASSERT_FALSE(lock_free(self.lock));
	CU_ASSERT(exists(foreign));
	CU_ASSERT(exists(badname));
	CU_ASSERT(exists(badlock));
	CU_ASSERT(exists(fifo_dir));
	CU_ASSERT(exists(fifo));

	/* The live run ends as usual; a second sweep finds nothing. */
	CU_ASSERT_EQUAL(tmpdir_remove(&live, NULL), 0);
	tmpdir_sweep(&self, false, true, NULL, NULL);
	CU_ASSERT(exists(foreign));
	CU_ASSERT_EQUAL(tmpdir_remove(&self, NULL), 0);
	nftw(foreign, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	rmdir(badname);
	unlink(badlock);
	rmdir(fifo_dir);
	unlink(fifo);
}

/* As root: a lock file of another user's is not ours to act on; the
 * directory of a killed --user run (the user's, beside root's lock) is
 * removed with that user's rights. */
static void test_sweep_users(void)
{
	struct passwd *nobody = getpwnam("nobody");
	struct tmpdir other, user_run, self;
	char rootsub[PBUF];

	if (geteuid() != 0 || !nobody) {
		fprintf(stderr, "\n  needs root and a user 'nobody': not run\n");
		return;
	}
	/* Chmod so that nobody can reach the runs' directories. */
	CU_ASSERT_EQUAL_FATAL(chmod(parent, 01777), 0);

	new_run(&other);
	kill_run(&other);
	CU_ASSERT_EQUAL_FATAL(chown(other.lock, nobody->pw_uid, nobody->pw_gid), 0);

	new_run(&user_run);
	CU_ASSERT_EQUAL_FATAL(chown(user_run.path, nobody->pw_uid, nobody->pw_gid), 0);
	put_file(user_run.path, "mine", "x");
	{
		char f[PBUF];

		snprintf(f, sizeof(f), "%s/mine", user_run.path);
		CU_ASSERT_EQUAL_FATAL(chown(f, nobody->pw_uid, nobody->pw_gid), 0);
	}
	kill_run(&user_run);

	new_run(&self);
	tmpdir_sweep(&self, false, true, NULL, NULL);
	CU_ASSERT(exists(other.path));
	CU_ASSERT(exists(other.lock));
	CU_ASSERT_FALSE(exists(user_run.path));
	CU_ASSERT_FALSE(exists(user_run.lock));

	/* With root's file inside, under a directory of root's mode 0755,
	 * nobody cannot remove it: left in place, its lock gone (not tried
	 * again by every run). */
	new_run(&user_run);
	snprintf(rootsub, sizeof(rootsub), "%s/rootsub", user_run.path);
	CU_ASSERT_EQUAL_FATAL(mkdir(rootsub, 0755), 0);
	put_file(rootsub, "root-file", "x");
	CU_ASSERT_EQUAL_FATAL(chown(user_run.path, nobody->pw_uid, nobody->pw_gid), 0);
	kill_run(&user_run);
	tmpdir_sweep(&self, false, true, NULL, NULL);
	CU_ASSERT(exists(rootsub));
	CU_ASSERT_FALSE(exists(user_run.lock));

	CU_ASSERT_EQUAL(tmpdir_remove(&self, NULL), 0);
	nftw(user_run.path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	nftw(other.path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	unlink(other.lock);
	CU_ASSERT_EQUAL(chmod(parent, 0700), 0);
}

/* Deeper than the walk goes: left in place, with -ELOOP. */
static void test_remove_too_deep(void)
{
	struct tmpdir t;
	char path[PBUF + 16];
	int fd, i;

	new_run(&t);
	fd = open(t.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	for (i = 0; i < 140; i++) {
		int next;

		CU_ASSERT_EQUAL_FATAL(mkdirat(fd, "d", 0700), 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		CU_ASSERT_FATAL(next >= 0);
		fd = next;
	}
	close(fd);
	CU_ASSERT_EQUAL(tmpdir_remove(&t, NULL), -ELOOP);
	CU_ASSERT_STRING_EQUAL(tmpdir_strerror(-ELOOP),
			       "directories nested deeper than 128 levels, or a symlink in the way");
	CU_ASSERT_STRING_EQUAL(tmpdir_strerror(-EACCES), strerror(EACCES));
	CU_ASSERT(exists(t.path));
	CU_ASSERT_FALSE(exists(t.lock));
	snprintf(path, sizeof(path), "rm -rf '%s'", t.path);
	CU_ASSERT_EQUAL(system(path), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "name", test_name },
		{ "create and remove", test_create_remove },
		{ "create: errors", test_create_errors },
		{ "sweep: killed, live, not ours", test_sweep },
		{ "sweep: other users (root)", test_sweep_users },
		{ "remove: too deep", test_remove_too_deep },
	};
	int r;

	snprintf(parent, sizeof(parent), "/tmp/test-tmpdir.XXXXXX");
	if (!mkdtemp(parent))
		return 99;
	r = unit_run("tmpdir", tests, sizeof(tests) / sizeof(tests[0]));
	/* Empty unless a case failed: then kept, to be looked at. */
	if (rmdir(parent) < 0 && r == 0) {
		fprintf(stderr, "test-tmpdir: %s is not empty: %s\n", parent, strerror(errno));
		return 1;
	}
	return r;
}
