/* SPDX-License-Identifier: MIT */
/*
 * The command's private TMPDIR: created under a lock that says its run is
 * alive, removed at the end of the run, and removed by a later run when
 * its supervisor was killed (tmpdir.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/tmpdir.h"

/*
 * Removing the private TMPDIR and what the command left in it.  Security:
 * the tree is the command's, and a process outside sysgate that runs as
 * the same user may still be changing it while we remove it (swapping a
 * directory for a symlink to anywhere).  So no step goes through a path:
 * each directory is opened with O_NOFOLLOW relative to the fd of its
 * parent, and its entries are removed with unlinkat() relative to its own
 * fd.  A directory swapped for a symlink is then removed as a symlink, or
 * not at all, and nothing outside the tree is ever reached.  Other file
 * systems mounted inside are not entered.
 */
/* Deeper than this, the rest is left (a descriptor per level is open);
 * tmpdir_strerror() names the figure. */
#define RM_MAX_DEPTH 128
#define STR_(x) #x
#define STR(x) STR_(x)
/* Passes over a directory whose entries keep coming back. */
#define RM_MAX_PASSES 8

static int rm_at(int parent, const char *name, dev_t dev, unsigned int depth);

/* Open the directory name in parent, never through a symlink, and stat
 * it: its fd, or -errno. */
static int open_dir_at(int parent, const char *name, struct stat *st)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/* Remove everything in the directory open at fd (which this closes);
 * returns 0 or the first -errno met. */
static int rm_children(int fd, dev_t dev, unsigned int depth)
{
	DIR *d = fdopendir(fd);
	int first = 0;

	if (!d) {
		first = -errno;
		close(fd);
		return first;
	}
	for (int pass = 0; pass < RM_MAX_PASSES; pass++) {
		struct dirent *e;
		bool any = false;

		rewinddir(d);
		first = 0;
		while ((errno = 0, e = readdir(d))) {
			int r;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			any = true;
			r = rm_at(dirfd(d), e->d_name, dev, depth);
			if (r < 0 && first == 0)
				first = r;
		}
		if (errno != 0 && first == 0)
			first = -errno;
		/* Again only when all went and more may have come meanwhile:
		 * a failure below is not retried (each level would retry its
		 * children's retries). */
		if (!any || first < 0)
			break;
	}
	closedir(d);
	return first;
}

/* Remove name in the directory open at parent, and all below it. */
static int rm_at(int parent, const char *name, dev_t dev, unsigned int depth)
{
	struct stat st;
	int fd, r, why;

	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return 0;
	why = errno;	/* EISDIR, or EPERM on some systems, for a directory */
	if (why != EISDIR && why != EPERM)
		return -why;
	if (depth >= RM_MAX_DEPTH)
		return -ELOOP;
	fd = open_dir_at(parent, name, &st);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd == -ENOTDIR ? -why : fd;
	if (st.st_dev != dev) {
		close(fd);
		return -EXDEV;	/* another file system mounted here */
	}
	r = rm_children(fd, dev, depth + 1);
	if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

/* Remove the directory dir, not empty, and everything in it; 0 or -errno. */
static int walk_remove(const char *dir)
{
	struct stat st;
	int fd = open_dir_at(AT_FDCWD, dir, &st), r;

	if (fd < 0)
		return fd;
	r = rm_children(fd, st.st_dev, 0);
	if (rmdir(dir) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

/*
 * Remove the private TMPDIR.  With --user (pw) the walk runs in a child
 * with the user's credentials: a tree the command's user could fill with
 * directories moved in from elsewhere is removed with that user's rights,
 * never root's.  0 or -errno.
 */
static int remove_dir(const char *dir, const struct passwd *pw)
{
	gid_t groups[256];
	int ng = (int)(sizeof(groups) / sizeof(groups[0]));
	pid_t pid;
	int st;

	/* Mostly the command left it empty: one rmdir, no walk.  (rmdir
	 * never follows a symlink put in its place.) */
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	if (errno != ENOTEMPTY && errno != EEXIST)
		return -errno;
	if (!pw)
		return walk_remove(dir);
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &ng) < 0)
		return -E2BIG;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int r = -EPERM;

		/* Groups first: setgroups needs the privilege setresuid drops. */
		if (setgroups((size_t)ng, groups) == 0 &&
		    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) == 0 &&
		    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) == 0)
			r = walk_remove(dir);
		_exit(r < 0 && -r < 256 ? -r : r < 0 ? EIO : 0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st))
		return -EIO;
	return -WEXITSTATUS(st);
}

const char *tmpdir_strerror(int r)
{
	if (r == -ELOOP)
		return "directories nested deeper than " STR(RM_MAX_DEPTH) " levels, or a symlink in the way";
	return strerror(-r);
}

int tmpdir_name(struct tmpdir *t, const char *tmpdir_env, const char *run_id)
{
	const char *parent = tmpdir_env && tmpdir_env[0] == '/' ? tmpdir_env : "/tmp";
	int n = snprintf(t->path, sizeof(t->path), "%s/sysgate-%s", parent, run_id);
	int m = snprintf(t->lock, sizeof(t->lock), "%s.lock", t->path);

	t->lock_fd = -1;
	if (n < 0 || (size_t)n >= sizeof(t->path) || m < 0 || (size_t)m >= sizeof(t->lock))
		return -ENAMETOOLONG;
	return 0;
}

/* Lets go of the lock, and removes its file first: a run that locks it
 * after we close it then finds nothing to sweep. */
static void drop_lock(struct tmpdir *t)
{
	if (t->lock_fd < 0)
		return;
	unlink(t->lock);
	close(t->lock_fd);
	t->lock_fd = -1;
}

int tmpdir_create(struct tmpdir *t, const struct passwd *pw)
{
	int fd, r;

	/* The child was forked before this (supervisor_prepare): only the
	 * supervisor holds the lock, and with it dies. */
	fd = open(t->lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/*
	 * Security: blocking.  A run sweeping right now may have opened the
	 * file before we locked it and taken it for a dead run's: it then
	 * removes a directory that does not exist yet and the lock file, and
	 * lets go; only then do we get the lock and create the directory, so
	 * no sweep ever removes a directory in use.  Where the file system
	 * has no locks, there is no lock file either: such a directory is
	 * never swept.
	 */
	if (flock(fd, LOCK_EX) < 0) {
		unlink(t->lock);
		close(fd);
		fd = -1;
	}
	t->lock_fd = fd;
	if (mkdir(t->path, 0700) < 0) {
		r = -errno;
		drop_lock(t);
		return r;
	}
	if (pw && chown(t->path, pw->pw_uid, pw->pw_gid) < 0) {
		r = -errno;
		rmdir(t->path);
		drop_lock(t);
		return r;
	}
	return 0;
}

int tmpdir_note_fd(const struct tmpdir *t)
{
	return t->lock_fd;
}

int tmpdir_remove(struct tmpdir *t, const struct passwd *pw)
{
	int r = remove_dir(t->path, pw);

	/* Left in place when it cannot be removed (the caller says so), and
	 * not swept again by every later run. */
	drop_lock(t);
	return r;
}

/* Is name a lock file, "sysgate-" RUNID ".lock" (make_run_id() in
 * main.c: YYYYMMDDTHHMMSSZ-, 12 hex digits)? */
static bool is_lock_name(const char *name)
{
	static const char pat[] = "sysgate-########T######Z-%%%%%%%%%%%%.lock";
	size_t i;

	for (i = 0; pat[i]; i++) {
		char c = name[i];

		if (pat[i] == '#' ? !(c >= '0' && c <= '9') :
		    pat[i] == '%' ? !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) :
		    c != pat[i])
			return false;
	}
	return name[i] == '\0';
}

/* Removes the directory dir (named name in the parent open at dfd) that
 * the run of a stale lock left.  0, or -errno. */
static int remove_left(int dfd, const char *name, const char *dir)
{
	struct passwd *owner;
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;	/* killed before its mkdir */
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;	/* not ours to remove */
	if (st.st_uid == geteuid())
		return remove_dir(dir, NULL);
	/* A run with --user: its directory is the user's, and removed with
	 * that user's rights, as at the end of that run. */
	if (geteuid() != 0)
		return -EPERM;
	owner = getpwuid(st.st_uid);
	if (!owner)
		return -ESRCH;
	return remove_dir(dir, owner);
}

/* The notes of the lock file open at fd, whole lines only, in buf. */
static void read_notes(int fd, char *buf, size_t len)
{
	size_t got = 0;
	char *end;

	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	/* A line cut by the limit (or by a kill mid-write) is left out. */
	end = strrchr(buf, '\n');
	*(end ? end + 1 : buf) = '\0';
}

static void sweep_one(int dfd, const char *parent, const char *name,
		      bool verbose, bool quiet,
		      void (*dead)(const char *run_id, const char *notes, void *arg),
		      void *arg)
{
	char dir[PATH_MAX], stem[NAME_MAX + 1], notes[TMPDIR_NOTES_MAX];
	struct stat st, now;
	int fd, r;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	/*
	 * Security: only a lock file of this user's, made by a sysgate of
	 * this user's, names a directory this run may remove.  Another user
	 * cannot make one of ours, nor one in a sticky /tmp under a name
	 * we already have.
	 */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		goto out;
	/* Held: its run is alive. */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		goto out;
	/* Still under that name: a run sweeping at the same time may have
	 * removed it, and the directory, already. */
	if (fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
	    now.st_dev != st.st_dev || now.st_ino != st.st_ino)
		goto out;
	snprintf(stem, sizeof(stem), "%.*s", (int)(strlen(name) - strlen(".lock")), name);
	r = snprintf(dir, sizeof(dir), "%s/%s", parent, stem);
	if (r < 0 || (size_t)r >= sizeof(dir))
		goto out;
	r = remove_left(dfd, stem, dir);
	if (r < 0 && !quiet)
		fprintf(stderr, "sysgate: cannot remove %s, the private temp dir of a run whose sysgate was killed: %s; left in place\n",
			dir, r == -ESRCH ? "its owner has no user name" : tmpdir_strerror(r));
	else if (r == 0 && verbose)
		fprintf(stderr, "sysgate: removed %s, the private temp dir of a run whose sysgate was killed\n",
			dir);
	if (dead) {
		read_notes(fd, notes, sizeof(notes));
		dead(stem + strlen("sysgate-"), notes, arg);
	}
	/* Tried once: not again by every later run. */
	unlinkat(dfd, name, 0);
out:
	close(fd);
}

void tmpdir_sweep(const struct tmpdir *t, bool verbose, bool quiet,
		  void (*dead)(const char *run_id, const char *notes, void *arg),
		  void *arg)
{
	char parent[PATH_MAX];
	const char *own = strrchr(t->lock, '/');
	struct dirent *e;
	DIR *d;
	int dfd;

	if (!own)
		return;
	snprintf(parent, sizeof(parent), "%.*s", own == t->lock ? 1 : (int)(own - t->lock), t->lock);
	own++;
	dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)))
		if (is_lock_name(e->d_name) && strcmp(e->d_name, own) != 0)
			sweep_one(dirfd(d), parent, e->d_name, verbose, quiet, dead, arg);
	closedir(d);
}
