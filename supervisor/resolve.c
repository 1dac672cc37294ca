/* SPDX-License-Identifier: MIT */
/*
 * Path resolution as the calling task would see it.  The walk is done by the
 * supervisor one component at a time with O_PATH|O_NOFOLLOW fds, so that
 * what is checked is exactly what the emulated call will act on: the caller
 * cannot swap a buffer (it was copied) nor a symlink (each link is read and
 * followed here, and the final object is held by an fd).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/util.h"
#include "rules/rules.h"
#include "supervisor/procs.h"
#include "supervisor/resolve.h"
#include "supervisor/tidset.h"
#include "supervisor/tracee.h"

#define RESOLVE_MAX_LINKS 40
#define PROC_ROOT_INO 1

void resolved_init(struct resolved *r)
{
	r->parent_fd = -1;
	r->fd = -1;
	r->name[0] = '\0';
	r->path[0] = '\0';
	r->trailing_slash = false;
	r->via_pid = 0;
	r->via_fd = -1;
	r->partial = false;
	r->self_link[0] = '\0';
	r->opened = false;
}

void resolved_release(struct resolved *r)
{
	if (r->parent_fd >= 0)
		close(r->parent_fd);
	if (r->fd >= 0)
		close(r->fd);
	resolved_init(r);
}

static int self_fd_dir = -1;
static pthread_once_t self_fd_once = PTHREAD_ONCE_INIT;

static void open_self_fd_dir(void)
{
	/*
	 * "self" is resolved when the directory is opened, by the supervisor
	 * (its children exec without resolving anything), so the fd keeps
	 * naming the supervisor's fd table.  A lookup of "N" in it is the
	 * lookup "/proc/self/fd/N" ends with: the same magic link and the
	 * same permission checks, without the walk of the first three
	 * components.
	 */
	self_fd_dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int resolve_self_fd_dir(void)
{
	pthread_once(&self_fd_once, open_self_fd_dir);
	return self_fd_dir;
}

static int fd_path(int fd, char *buf, size_t len)
{
	static const char deleted[] = " (deleted)";
	const size_t dl = sizeof(deleted) - 1;
	int dir = resolve_self_fd_dir();
	char link[64];
	struct stat st;
	ssize_t n;

	if (dir >= 0) {
		snprintf(link, sizeof(link), "%d", fd);
		n = readlinkat(dir, link, buf, len - 1);
	} else {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, buf, len - 1);
	}
	if (n < 0)
		return -errno;
	if ((size_t)n >= len - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	/*
	 * A file without a name (a memfd, a deleted file) reads back as
	 * "/memfd:NAME (deleted)" or "/a/b (deleted)", which a real file
	 * could be called too: name them memfd:NAME and deleted:/a/b, which
	 * no path can be.
	 */
	if ((size_t)n > dl && !strcmp(buf + n - dl, deleted) &&
	    fstat(fd, &st) == 0 && st.st_nlink == 0) {
		buf[n - dl] = '\0';
		if (!strncmp(buf, "/memfd:", 7)) {
			memmove(buf, buf + 1, strlen(buf));
		} else {
			size_t pl = strlen(buf);

			if (pl + 8 >= len)
				return -ENAMETOOLONG;
			memmove(buf + 8, buf, pl + 1);
			memcpy(buf, "deleted:", 8);
		}
	}
	return 0;
}

/* 1: this thread's cwd is its own (CLONE_FS unshared); -1: it could not
 * be made so; 0: not tried yet. */
static __thread int own_cwd;
static int root_fd = -1;	/* "/", where such a cwd rests */
static pthread_once_t root_once = PTHREAD_ONCE_INIT;

static void open_own_root(void)
{
	root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/*
 * The path of directory fd, as fd_path() gives it, for about half the
 * cost: fchdir(2) to it, getcwd(3), and fchdir(2) back to "/" (~0.9 us
 * here, where the readlink of /proc/self/fd/N costs ~1.9 us; find makes
 * one such lookup per directory).  Both are d_path() of the same dentry
 * from the supervisor's root.  getcwd() fails for what fd_path() marks
 * specially (a directory removed, one outside the root: "(unreachable)",
 * refused by glibc), which then goes to fd_path().
 *
 * The thread's cwd is made its own first (unshare(CLONE_FS), no privilege
 * needed): threads created by this one share it, and none of them uses a
 * relative path (an --ask hook is spawned in sysgate's own directory,
 * ask.c; bind_thread() in net.c unshares its own).  It rests at "/": one
 * left in the command's directory would keep that mount busy, and the
 * command could not unmount it (EBUSY).  If it cannot be put back, the
 * thread stops doing this.  fchdir(2) checks search permission with the
 * thread's credentials (the caller's under --user), as the lookup of a
 * name in the directory did.
 */
static int dir_fd_path(int fd, char *buf, size_t len)
{
	bool got = false;

	if (own_cwd == 0) {
		pthread_once(&root_once, open_own_root);
		own_cwd = root_fd >= 0 && unshare(CLONE_FS) == 0 &&
			  fchdir(root_fd) == 0 ? 1 : -1;
	}
	if (own_cwd > 0 && fchdir(fd) == 0) {
		got = getcwd(buf, len) && buf[0] == '/';
		if (fchdir(root_fd) < 0 && chdir("/") < 0)
			own_cwd = -1;
	}
	return got ? 0 : fd_path(fd, buf, len);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static bool is_procfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/*
 * Is dir_path + "/" + comp one of procfs's magic links?  Those are
 * /proc/PID[/task/TID]/{cwd,root,exe} and /proc/PID[/task/TID]/{fd,
 * map_files,ns}/X.  On success sets *owner (PID), *task (TID, or PID when
 * no task/TID is named: the task whose fd table /fd/X is read from) and
 * *kind (0 fd, 1 cwd/root/exe, 2 other).
 */
static bool proc_magic(const char *dir_path, const char *comp, pid_t *owner,
		       pid_t *task, int *kind)
{
	const char *p = dir_path;
	const char *d;

	if (strncmp(p, "/proc/", 6) != 0)
		return false;
	p += 6;
	d = p;
	while (*p >= '0' && *p <= '9')
		p++;
	if (!all_digits(d, (size_t)(p - d)))
		return false;
	*owner = (pid_t)strtol(d, NULL, 10);
	*task = *owner;
	if (strncmp(p, "/task/", 6) == 0) {
		const char *t = p + 6;

		p = t;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!all_digits(t, (size_t)(p - t)))
			return false;
		*task = (pid_t)strtol(t, NULL, 10);
	}
	if (*p == '\0') {
		if (!strcmp(comp, "cwd") || !strcmp(comp, "root") ||
		    !strcmp(comp, "exe")) {
			*kind = 1;
			return true;
		}
		return false;
	}
	if (!strcmp(p, "/fd")) {
		*kind = 0;
		return true;
	}
	if (!strcmp(p, "/map_files") || !strcmp(p, "/ns")) {
		*kind = 2;
		return true;
	}
	return false;
}

/* The task's own /proc entry for "self" / "thread-self". */
static void proc_self_name(const char *comp, pid_t tid, pid_t tgid,
			   char *buf, size_t len)
{
	if (!strcmp(comp, "self"))
		snprintf(buf, len, "%d", tgid);
	else
		snprintf(buf, len, "%d/task/%d", tgid, tid);
}

/* Replace the walk's remaining text with head + rest. */
static int push_front(char *rem, size_t rem_size, size_t *pos,
		      const char *head, size_t head_len)
{
	size_t rest_len = strlen(rem + *pos);
	/* rest starts with '/' when anything follows; nothing is added when
	 * it is empty, so no trailing slash appears that was not there. */
	size_t need = head_len + rest_len + 1;

	if (need > rem_size)
		return -ENAMETOOLONG;
	memmove(rem + head_len, rem + *pos, rest_len + 1);
	memcpy(rem, head, head_len);
	*pos = 0;
	return 0;
}

/*
 * May the first len bytes of text (directories only) be walked by the
 * kernel in one openat2()?  A ".." among them is taken only from the
 * caller's root (an absolute path), under RESOLVE_IN_ROOT|RESOLVE_NO_XDEV,
 * which *resolve gets; anywhere else, or in a scoped walk, the component
 * walk must take it.  The security argument is at jump_prefix().
 */
static bool jump_scope(const char *text, size_t len, unsigned flags,
		       bool at_root, __u64 *resolve)
{
	bool dotdot = false;

	for (const char *c = text; c < text + len;) {
		size_t l = strcspn(c, "/");

		if (l == 2 && c[0] == '.' && c[1] == '.')
			dotdot = true;
		c += l;
		while (*c == '/')
			c++;
	}
	if (!dotdot)
		return true;
	if (!at_root || (flags & (RES_BENEATH | RES_IN_ROOT)))
		return false;
	*resolve |= RESOLVE_IN_ROOT | RESOLVE_NO_XDEV;
	return true;
}

/*
 * The fast path of the walk: every directory before the last component
 * in one openat2() instead of an openat()+fstat() per component.
 * text: the rest of the walk (no leading '/').  Returns an O_PATH fd of
 * the directory holding the last component and sets *used to the bytes
 * of text it consumed, or -1 when the full walk must do it (no prefix,
 * or the kernel's answer might differ from the walk's: any error).
 *
 * Security: the fast path gives the walk's own answer or none.
 * RESOLVE_NO_SYMLINKS (and so no magic link, no "self" or "thread-self",
 * which are symlinks in procfs) leaves only names, "." and "..": with no
 * ".." the kernel goes down from cur one name at a time as the walk does
 * (same lookups, same permission checks, a mount point crossed the same
 * way).  ".." is taken only from the caller's root (an absolute path),
 * under RESOLVE_IN_ROOT, which stops it at that root as the walk does, and
 * RESOLVE_NO_XDEV, which keeps the walk in the root's mount, where the
 * root is the only directory with the root's device and inode (the walk's
 * test).  A ".." elsewhere, a scoped walk with "..", and
 * RES_NO_XDEV (the walk compares st_dev, the kernel mounts) go the full
 * way.  The final object is still opened by the walk below, from the fd
 * returned here.
 *
 * When a directory on the way is missing (ENOENT), the jump is tried again
 * up to JUMP_SHORTER times, each time one directory shorter: a shorter
 * prefix is a prefix all the same (the argument above holds for it), and
 * the walk goes on from the deepest directory that is there and meets the
 * missing name itself.  A compiler's include path search is made of such
 * paths (/usr/lib/gcc/.../include/bits/x.h), where the walk took three
 * calls per directory.  *used tells how much of text was taken.
 */
#define JUMP_SHORTER 3

static int jump_prefix(const char *text, int cur, unsigned flags,
		       bool at_root, size_t *used)
{
	char pre[PATH_MAX];
	size_t e = strlen(text), ls;
	long fd;

	if (flags & RES_NO_XDEV)
		return -1;
	while (e > 0 && text[e - 1] == '/')
		e--;
	ls = e;
	while (ls > 0 && text[ls - 1] != '/')
		ls--;
	if (ls == 0 || ls >= sizeof(pre))
		return -1;	/* one component, or too long for us */
	for (int tries = 0;; tries++) {
		struct open_how how = {
			.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};

		memcpy(pre, text, ls);
		pre[ls] = '\0';
		if (!jump_scope(pre, ls, flags, at_root, &how.resolve))
			return -1;
		fd = syscall(SYS_openat2, cur, pre, &how, sizeof(how));
		if (fd >= 0)
			break;
		if (errno != ENOENT || tries == JUMP_SHORTER)
			return -1;
		/* One directory less: back over "name/" (and extra '/'). */
		while (ls > 0 && text[ls - 1] == '/')
			ls--;
		while (ls > 0 && text[ls - 1] != '/')
			ls--;
		if (ls == 0)
			return -1;
	}
	*used = ls;
	return (int)fd;
}

/*
 * May text be taken whole by one openat2 (jump_whole, jump_follow)?  Not
 * when it is empty or ends with '/', nor when its last component is "."
 * or ".." (no entry of a directory) or "self" or "thread-self" (at the
 * root of a procfs, the walk's to map to the caller).  Sets *ls to where
 * the last component starts.
 */
static bool whole_last(const char *text, size_t *ls)
{
	size_t e = strlen(text), l = e;
	const char *last;

	if (e == 0 || text[e - 1] == '/')
		return false;
	while (l > 0 && text[l - 1] != '/')
		l--;
	last = text + l;
	if (!strcmp(last, ".") || !strcmp(last, "..") ||
	    !strcmp(last, "self") || !strcmp(last, "thread-self"))
		return false;
	*ls = l;
	return true;
}

/*
 * The path of what a walk of names reached from the supervisor's own root:
 * text[0..len) ("a//b/./c/../d"; leading '/' or not) taken lexically, ".."
 * stopping at the root, written as "/a/b/d".
 *
 * Security: this is the path the kernel reads back for the fd (fd_path(),
 * d_path() from the supervisor's root), without the readlink of
 * /proc/self/fd/N (~1.9 us here, more than the openat2 itself), under
 * three conditions the callers keep: the walk started at the caller's root
 * and that root is the supervisor's own (root_is_own(): same mount, so the
 * same mount namespace, and same directory); the kernel took it under
 * RESOLVE_NO_SYMLINKS (no symlink, no magic link: each name is a child of
 * the directory before it); and any ".." was taken under
 * RESOLVE_IN_ROOT|RESOLVE_NO_XDEV (jump_scope()), so that it went to the
 * parent directory in the same mount, or stayed at the root.  Every
 * directory on the way was one (the lookup went through it), so the names
 * left after "." and ".." are taken away are the dentries d_path() walks
 * back up, mount points included (a mount is entered at its mount point's
 * name).  A rename racing the lookup can make the two differ, as it can
 * make the readlink differ from the name the caller used: the object is
 * the fd held either way, reached by that name at the time of the lookup.
 * Returns 0, or -ENAMETOOLONG.
 */
static int lexical_path(const char *text, size_t len, char *buf, size_t size)
{
	const char *c = text, *end = text + len;
	size_t o = 0;

	while (c < end) {
		size_t l = 0;

		while (c < end && *c == '/')
			c++;
		while (c + l < end && c[l] != '/')
			l++;
		if (l == 0 || (l == 1 && c[0] == '.')) {
			/* nothing, or "." */
		} else if (l == 2 && c[0] == '.' && c[1] == '.') {
			while (o > 0 && buf[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o + 1 + l >= size)
				return -ENAMETOOLONG;
			buf[o++] = '/';
			memcpy(buf + o, c, l);
			o += l;
		}
		c += l;
	}
	if (o == 0)
		buf[o++] = '/';
	buf[o] = '\0';
	return 0;
}

/*
 * The path of what the kernel reached from directory base by the names of
 * text alone (jump_whole() from the cwd or a dirfd: RESOLVE_NO_SYMLINKS
 * and no "..", which jump_scope() leaves to the walk away from the root):
 * base's path (dir_fd_path()) followed by the names.  The same argument
 * as lexical_path()'s, from base instead of the root: each name is a child
 * of the directory before it.  Returns 0, or -1 when base's path is not a
 * plain one (fd_path()'s deleted: or memfd: forms): the caller then reads
 * the object's own back.
 */
static int base_path(int base, const char *text, char *buf, size_t size)
{
	char rest[PATH_MAX];
	size_t bl, rl;

	if (dir_fd_path(base, buf, size) < 0 || buf[0] != '/' ||
	    lexical_path(text, strlen(text), rest, sizeof(rest)) < 0)
		return -1;
	if (!strcmp(rest, "/"))
		return 0;
	bl = strlen(buf);
	if (bl == 1)
		bl = 0;		/* base is the root: no "//" */
	rl = strlen(rest);
	if (bl + rl >= size)
		return -1;
	memcpy(buf + bl, rest, rl + 1);
	return 0;
}

/*
 * The fast path of an open: the whole rest of the walk, last component
 * included, in one openat2() under the same resolution as jump_prefix()
 * (same security argument: names only, ".." only from the root under
 * RESOLVE_IN_ROOT).  The last component is opened with O_PATH|O_NOFOLLOW,
 * as the walk opens it, or with dir_oflags for a directory open: a
 * symlink there is then refused by the kernel (ELOOP or ENOTDIR) and the
 * full walk follows it.
 *
 * Security: opening a directory read-only before the policy has decided
 * changes nothing (no atime, no device open; only inotify's IN_OPEN is
 * seen by a watcher), and the fd is closed if the call is denied.  A
 * directory open cannot reach anything else: O_DIRECTORY fails on every
 * other kind of file.
 *
 * Returns the fd and fills *st, -ENOENT when the kernel found a name
 * missing, -ELOOP when it met a symlink before the last component (with
 * O_PATH|O_NOFOLLOW a last one is returned, not refused), or -1 when the
 * full walk must do it.
 */
static int jump_whole(const char *text, int cur, unsigned flags, bool at_root,
		      int dir_oflags, struct stat *st)
{
	struct open_how how = {
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	size_t ls;
	long fd;

	if ((flags & RES_NO_XDEV) || !whole_last(text, &ls))
		return -1;
	if (!jump_scope(text, ls, flags, at_root, &how.resolve))
		return -1;
	/* No O_NOFOLLOW added: the file would keep it (F_GETFL); a trailing
	 * symlink is refused (ELOOP) under RESOLVE_NO_SYMLINKS all the same. */
	if (dir_oflags)
		how.flags = (uint64_t)(unsigned)((dir_oflags & ~(O_CREAT | O_EXCL)) |
						 O_NOCTTY | O_CLOEXEC);
	else
		how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
	fd = syscall(SYS_openat2, cur, text, &how, sizeof(how));
	if (fd < 0)
		return errno == ENOENT ? -ENOENT :
		       (errno == ELOOP && !dir_oflags) ? -ELOOP : -1;
	if (fstat((int)fd, st) < 0 ||
	    /* A symlink (O_PATH only) the call follows: the walk's job. */
	    (S_ISLNK(st->st_mode) && (flags & RES_FOLLOW))) {
		close((int)fd);
		return -1;
	}
	return (int)fd;
}

/*
 * The fast path past symlinks, for an open of an absolute path whose
 * directories hold a symlink (jump_whole() met it): the whole path in one
 * openat2() that follows the symlinks itself.  Such paths are everywhere
 * on a merged-/usr system: every dynamically linked program opens
 * /lib/x86_64-linux-gnu/libc.so.6, where /lib is a link to usr/lib, and
 * the walk takes four more system calls per link.
 *
 * Security: the kernel's lookup is the walk's own here, or fails.
 * root is the caller's root, and RESOLVE_IN_ROOT makes it the root of the
 * lookup: an absolute link target starts again there and ".." stops there,
 * as the walk does (push_front of the target from the root; the root test
 * of "..").  RESOLVE_NO_XDEV keeps the whole lookup, link targets
 * included, in the root's mount, so it never enters a procfs, whose
 * "self" and "thread-self" links would name the supervisor (the walk maps
 * them to the caller), and RESOLVE_NO_MAGICLINKS refuses magic links
 * anywhere; the root itself is on a block device (a procfs has an
 * anonymous one).  The last component is opened O_PATH|O_NOFOLLOW, as the
 * walk opens it, and a symlink there that the call follows is left to the
 * walk, but for RES_OBJECT (an exec), which needs only the object: the
 * kernel follows it too, under the same rules.  Any error (a mount
 * crossed, a loop, a name missing, a link refused by
 * fs.protected_symlinks, a search permission) sends the full walk, which
 * gives the answer itself.  The object is named by its fd
 * (fd_path), not by the text given.  files.sh's *-via-abs-* cases fail
 * without RESOLVE_NO_XDEV.
 */
static int jump_follow(const char *text, int root, const struct stat *root_st,
		       unsigned flags, struct stat *st)
{
	bool follow = (flags & RES_OBJECT) && (flags & RES_FOLLOW);
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_XDEV |
			   RESOLVE_NO_MAGICLINKS,
	};
	size_t ls;
	long fd;

	if ((flags & (RES_NO_SYMLINKS | RES_NO_MAGICLINKS | RES_BENEATH |
		      RES_IN_ROOT | RES_NO_XDEV)) ||
	    major(root_st->st_dev) == 0 || !whole_last(text, &ls))
		return -1;
	fd = syscall(SYS_openat2, root, text, &how, sizeof(how));
	if (fd < 0)
		return -1;
	if (fstat((int)fd, st) < 0 ||
	    (S_ISLNK(st->st_mode) && (flags & RES_FOLLOW))) {
		close((int)fd);
		return -1;
	}
	return (int)fd;
}

static int open_start(pid_t tid, pid_t tgid, int dirfd, int *out)
{
	char link[64];
	int fd;

	if (dirfd == AT_FDCWD) {
		snprintf(link, sizeof(link), "/proc/%d/cwd", tid);
		fd = tracee_proc_open(link, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT ? -ESRCH : -errno;
		*out = fd;
		return 0;
	}
	fd = tracee_getfd(tid, tgid, dirfd);
	if (fd < 0)
		return fd;
	*out = fd;
	return 0;
}

static int open_root(pid_t tid, int *root, struct stat *st)
{
	char link[64];
	int fd;

	snprintf(link, sizeof(link), "/proc/%d/root", tid);
	fd = tracee_proc_open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (fstat(fd, st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	*root = fd;
	return 0;
}

/*
 * Roots kept per task.  Security: a task's root is set when it is created
 * (its parent's, or the matching mount of a new mount namespace) and
 * changed afterwards only by chroot, pivot_root, setns or unshare of its
 * own, of a process sharing its fs_struct (a thread, CLONE_FS) or, for
 * pivot_root, of a task in its namespace.  When the policy refuses all
 * four (root_fixed), the root a task had at its first walk is its root
 * for good, and a new task starts with its parent's.  When it may allow
 * one, every filter notifies each of them (rules_moves_root()), and, as
 * for chdir below, each such notification makes every kept root stale
 * (root_gen) and closes every kept cwd (cwd_stale()), and none is used or
 * kept while a task that asked is not yet seen again (root_inflight): the
 * move happens after the supervisor answers, at a time it does not see.
 * Tasks whose root is the same directory of the same mount (mount id,
 * device, inode: the same path, hence the same walk) share one fd.  Only
 * the main thread (which owns the process table) uses the cache; other
 * threads open /proc/TID/root as before.
 */
static bool root_fixed;
static bool root_off;		/* too many moves in flight: not kept */
static uint64_t root_gen = 1;
static struct tid_set root_inflight;
static int shared_root = -1;
static struct stat shared_root_st;
static uint64_t shared_root_mnt;
static uint64_t shared_root_gen;
static bool shared_root_own;	/* it is the supervisor's own root */

void resolve_set_root_fixed(bool fixed)
{
	root_fixed = fixed;
}

/*
 * Working directories kept per task, under the same condition (no root
 * move in flight: pivot_root, setns and unshare move cwds too, and each
 * makes every kept cwd stale).
 * Security: a cwd changes by chdir or fchdir of a task sharing it, and
 * both are always notified (rules_always_notified()).  The change happens
 * after the supervisor answers, at a time it does not see, so at each
 * such notification every kept cwd is closed (cwd_stale()), and none is
 * used or kept while a task that asked is not yet seen making its next
 * call or at a ptrace stop (a task's calls are sequential: by then its
 * change is done, or was never made, or the call was interrupted and will
 * be notified again when it restarts).  A process that shares its cwd
 * with another (CLONE_FS without CLONE_THREAD) turns the cache off for the
 * run.  At most
 * CWD_KEPT_MAX fds are kept, so that the cache never costs the supervisor
 * the fds its work needs.
 *
 * The umask lives beside the cwd (in the kernel's fs_struct, shared the
 * same way), changes only by umask(2), also always notified, and is kept
 * per task under the same rules: the generation, the calls in flight, the
 * run-wide switch.  A create the supervisor carries out applies it, so a
 * stale one would give the file another mode than the kernel would.
 */
#define CWD_KEPT_MAX 128
static bool cwd_off;
static uint64_t cwd_gen = 1;
static struct tid_set cwd_inflight;
static unsigned n_cwd_kept;

static void cwd_drop(struct proc *p)
{
	if (p->cwd_fd >= 0) {
		close(p->cwd_fd);
		n_cwd_kept--;
	}
	p->cwd_fd = -1;
}

static void cwd_drop_each(struct proc *p, void *arg)
{
	(void)arg;
	cwd_drop(p);
}

/*
 * Every kept cwd is stale (and the kept umasks, cwd_gen): close them now
 * rather than at each task's next lookup.  A directory the supervisor
 * holds keeps its mount busy, and a command that left a mount (cd ..)
 * could not unmount it (EBUSY) while the supervisor still held its old
 * cwd there.
 */
static void cwd_stale(void)
{
	cwd_gen++;
	if (n_cwd_kept)
		procs_each(cwd_drop_each, NULL);
}

void resolve_note_call(pid_t tid, int nr)
{
	tid_set_del(&cwd_inflight, tid);
	tid_set_del(&root_inflight, tid);
	if (rules_moves_root(nr)) {
		root_gen++;
		cwd_stale();
		if (!tid_set_add(&root_inflight, tid))
			root_off = true;
		return;
	}
	if (nr != SYS_chdir && nr != SYS_fchdir && nr != SYS_umask)
		return;
	cwd_stale();
	if (!tid_set_add(&cwd_inflight, tid))
		cwd_off = true;
}

void resolve_task_seen(pid_t tid)
{
	tid_set_del(&cwd_inflight, tid);
	tid_set_del(&root_inflight, tid);
}

void resolve_cwd_shared(void)
{
	cwd_off = true;
}

void resolve_forget_root(struct proc *p)
{
	if (p->root_fd >= 0)
		close(p->root_fd);
	p->root_fd = -1;
	cwd_drop(p);
	p->umask_gen = 0;
	tid_set_del(&cwd_inflight, p->tid);
	tid_set_del(&root_inflight, p->tid);
}

/* The caller's cwd kept for it (the fd belongs to the cache), or -1. */
static int task_cwd(pid_t tid)
{
	char link[64];
	struct proc *p;
	int fd;

	if (root_off || root_inflight.n || cwd_off || cwd_inflight.n ||
	    !tracee_on_main_thread() || !(p = procs_find(tid)))
		return -1;
	/* A kept one is current: cwd_stale() closes the stale ones. */
	if (p->cwd_fd >= 0)
		return p->cwd_fd;
	if (n_cwd_kept >= CWD_KEPT_MAX)
		return -1;
	snprintf(link, sizeof(link), "/proc/%d/cwd", tid);
	fd = tracee_proc_open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;	/* open_start() says why */
	n_cwd_kept++;
	p->cwd_fd = fd;
	return fd;
}

int resolve_task_umask(pid_t tid)
{
	struct proc *p;
	int m;

	if (cwd_off || cwd_inflight.n || !tracee_on_main_thread() ||
	    !(p = procs_find(tid)))
		return tracee_umask(tid);
	if (p->umask_gen == cwd_gen)
		return p->umask;
	m = tracee_umask(tid);
	if (m >= 0) {
		p->umask = m;
		p->umask_gen = cwd_gen;
	}
	return m;
}

static uint64_t mnt_id(int fd)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return 0;
	return sx.stx_mnt_id;
}

/* Are the objects behind fds a and b on the same mount?  False when it
 * cannot be told: RES_NO_XDEV fails closed (EXDEV). */
static bool same_mount(int a, int b)
{
	uint64_t ma = mnt_id(a);

	return ma && ma == mnt_id(b);
}

void resolve_inherit_root(struct proc *child, const struct proc *parent)
{
	/* A shared root only: a task's own root fd stays its own. */
	if (root_fixed && child->root_fd == -1 && parent->root_fd == -2 &&
	    parent->root_gen == root_gen) {
		child->root_fd = -2;
		child->root_gen = root_gen;
	}
}

/*
 * Is the directory with this stat and mount id the supervisor's own root?
 * The same mount (a mount id is unique on the machine, so a caller in
 * another mount namespace, whose root is a copy, never matches) and the
 * same directory of it.
 */
static bool is_own_root(const struct stat *st, uint64_t mnt)
{
	static int probed;	/* 1: own_st and own_mnt read, -1: failed */
	static struct stat own_st;
	static uint64_t own_mnt;

	if (!probed) {
		int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		probed = -1;
		if (fd >= 0) {
			if (fstat(fd, &own_st) == 0 && (own_mnt = mnt_id(fd)))
				probed = 1;
			close(fd);
		}
	}
	return probed == 1 && mnt == own_mnt && same_file(st, &own_st);
}

/* fd is the kept root shared by the callers, and it is the supervisor's
 * own: a path the supervisor reads back for an fd opened from it is the
 * path from it (lexical_path()). */
static bool root_is_own(int fd)
{
	return fd >= 0 && fd == shared_root && shared_root_own &&
	       shared_root_gen == root_gen;
}

/* The caller's root in *root, and its stat; *kept when the fd belongs to
 * the cache (not to be closed). */
static int task_root(pid_t tid, int *root, struct stat *st, bool *kept)
{
	struct proc *p;
	uint64_t mnt;
	int r;

	*kept = false;
	if (root_off || root_inflight.n || !tracee_on_main_thread() ||
	    !(p = procs_find(tid)))
		return open_root(tid, root, st);
	/* Kept before a root moved: looked up again. */
	if (p->root_fd != -1 && p->root_gen != root_gen) {
		if (p->root_fd >= 0)
			close(p->root_fd);
		p->root_fd = -1;
	}
	if (shared_root >= 0 && shared_root_gen != root_gen) {
		close(shared_root);
		shared_root = -1;
	}
	if (p->root_fd == -2) {
		*root = shared_root;
		*st = shared_root_st;
		*kept = true;
		return 0;
	}
	if (p->root_fd >= 0) {
		if (fstat(p->root_fd, st) < 0)
			return -errno;
		*root = p->root_fd;
		*kept = true;
		return 0;
	}
	r = open_root(tid, root, st);
	if (r < 0)
		return r;
	mnt = mnt_id(*root);
	p->root_gen = root_gen;
	if (shared_root < 0 && mnt) {
		shared_root = *root;
		shared_root_st = *st;
		shared_root_mnt = mnt;
		shared_root_gen = root_gen;
		shared_root_own = is_own_root(st, mnt);
	} else if (!mnt || mnt != shared_root_mnt || !same_file(st, &shared_root_st)) {
		p->root_fd = *root;
		*kept = true;
		return 0;
	} else {
		close(*root);
		*root = shared_root;
	}
	p->root_fd = -2;
	*kept = true;
	return 0;
}

/*
 * A directory on the way is missing: the path the caller named, as far as
 * it exists (canonical) and then as written (".", ".." and "//" taken
 * lexically), for a redirect that may send it where it does exist.
 */
static void missing_path(int cur, const char *comp, const char *rest,
			 struct resolved *out)
{
	char *p = out->path;
	size_t n;

	if (fd_path(cur, p, sizeof(out->path)) < 0)
		return;
	n = strlen(p);
	if (n == 1)
		n = 0;	/* "/" */
	for (const char *c = comp; c;) {
		size_t l = strcspn(c, "/");

		if (l == 0 || (l == 1 && c[0] == '.')) {
			/* nothing */
		} else if (l == 2 && c[0] == '.' && c[1] == '.') {
			while (n > 0 && p[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else {
			if (n + 1 + l >= sizeof(out->path))
				return;
			p[n++] = '/';
			memcpy(p + n, c, l);
			n += l;
		}
		if (c == comp)
			c = rest;
		else
			c = c[l] ? c + l + 1 : NULL;
	}
	if (n == 0)
		p[n++] = '/';
	p[n] = '\0';
	out->partial = true;
}

int resolve_path(pid_t tid, pid_t tgid, int dirfd, const char *path,
		 unsigned flags, struct resolved *out)
{
	return resolve_path_open(tid, tgid, dirfd, path, flags & ~(unsigned)RES_OPEN,
				 0, out);
}

/*
 * The walk's state.  It starts at a directory (start, borrowed, while cur
 * is -1: the kept cwd, or the root for an absolute path; else cur, an
 * O_PATH fd of its own), reads one component of rem at a time from pos,
 * and ends with out filled: the object's fd, or its parent's fd and name
 * when the last name is missing.  The caller's root is opened only when a
 * step needs it (an absolute path or link, a ".." that may be at the top).
 */
struct walk {
	pid_t tid, tgid;
	unsigned flags;
	int dir_oflags;
	struct resolved *out;
	int root;		/* the caller's root, or -1 until needed */
	bool root_kept;		/* root belongs to the cache: not closed */
	struct stat root_st;
	int cur;		/* where the walk is (-1: at start) */
	int start;		/* borrowed: see above */
	struct stat cur_st;
	bool cur_known;		/* cur_st is cur's */
	bool at_root;		/* cur is the caller's root */
	bool scoped;		/* RES_BENEATH or RES_IN_ROOT */
	bool try_jump;		/* new text to walk: try the fast paths */
	bool parent_lex;	/* out->path is the parent's, by lexical_path(),
				 * for a walk that ends on a missing name */
	char *rem;		/* the rest of the path, links pushed in front */
	size_t rem_size, pos;
	int links;		/* symlinks followed */
	char comp[NAME_MAX + 1]; /* the component of this step */
	bool last;		/* it is the last one */
	bool slash;		/* a '/' follows it */
};

/* What a step tells the loop (or a negative errno: the walk's answer). */
enum {
	WALK_NEXT = 0,		/* go on with the rest of rem */
	WALK_CANONICAL,		/* out holds the object, or parent and name:
				 * its path is still to be read back */
	WALK_DONE,		/* out is complete */
	WALK_FALLBACK,		/* a fast path could not: walk step by step */
};

static int walk_base(const struct walk *w)
{
	return w->cur >= 0 ? w->cur : w->start;
}

static int walk_need_root(struct walk *w)
{
	if (w->root >= 0)
		return 0;
	return task_root(w->tid, &w->root, &w->root_st, &w->root_kept);
}

/* cur's stat, taken when a step needs it ("." and "..", procfs's "self",
 * RES_NO_XDEV): a name looked up in cur fails with ENOTDIR on its own
 * when cur is no directory. */
static int walk_need_cur_st(struct walk *w)
{
	if (!w->cur_known) {
		if (fstat(walk_base(w), &w->cur_st) < 0)
			return -errno;
		w->cur_known = true;
	}
	return S_ISDIR(w->cur_st.st_mode) ? 0 : -ENOTDIR;
}

/* cur is the object (its stat in out->st): out takes it, named by the
 * kernel's path of it. */
static int walk_done_cur(struct walk *w, const char *name)
{
	struct resolved *out = w->out;
	int r;

	out->fd = steal_fd(&w->cur);
	if (name)
		snprintf(out->name, sizeof(out->name), "%s", name);
	r = fd_path(out->fd, out->path, sizeof(out->path));
	return r < 0 ? r : WALK_DONE;
}

/* cur becomes nfd, whose stat is st (NULL: unknown). */
static void walk_enter(struct walk *w, int nfd, const struct stat *st)
{
	if (w->cur >= 0)
		close(w->cur);
	w->cur = nfd;
	w->cur_known = st != NULL;
	if (st)
		w->cur_st = *st;
	w->at_root = false;
}

/*
 * Where the walk starts, and the root ".." cannot climb above.  Returns
 * 0, WALK_DONE for an empty path that names dirfd, or -errno.
 */
static int walk_start(struct walk *w, int dirfd, const char *path)
{
	struct resolved *out = w->out;
	int r;

	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (!w->scoped && dirfd == AT_FDCWD && path[0] != '/' && path[0] != '\0')
		w->start = task_cwd(w->tid);
	if (w->start < 0 && (w->scoped || path[0] != '/' || path[0] == '\0')) {
		r = open_start(w->tid, w->tgid, dirfd, &w->cur);
		if (r < 0)
			return r;
	}
	if (w->scoped) {
		/* The start is the root: ".." and absolute links stop there. */
		w->root = dup(w->cur);
		if (w->root < 0 || fstat(w->root, &w->root_st) < 0)
			return -errno;
		w->cur_st = w->root_st;
		w->cur_known = true;
	}
	if (path[0] == '\0') {
		if (!(w->flags & RES_EMPTY_PATH))
			return -ENOENT;
		/* AT_EMPTY_PATH: the object is dirfd itself. */
		if (fstat(w->cur, &out->st) < 0)
			return -errno;
		return walk_done_cur(w, NULL);
	}
	if (path[0] == '/') {
		if (w->flags & RES_BENEATH)
			return -EXDEV;
		if (w->cur >= 0)
			close(w->cur);
		w->cur = -1;
		r = walk_need_root(w);
		if (r < 0)
			return r;
		/* The walk starts at the root itself, and takes its own fd
		 * of it only if the fast paths do not finish it. */
		w->start = w->root;
		w->cur_st = w->root_st;
		w->cur_known = true;
		w->at_root = true;
	}
	if (w->flags & RES_NO_XDEV) {
		r = walk_need_cur_st(w);
		if (r < 0)
			return r;
	}
	w->rem = malloc(w->rem_size);
	if (!w->rem)
		return -ENOMEM;
	strcpy(w->rem, path);
	return 0;
}

/* jump_whole() opened the whole rest (text, from base) as nfd. */
static int walk_took_whole(struct walk *w, const char *text, int base,
			   int nfd, const struct stat *st)
{
	struct resolved *out = w->out;
	const char *l = strrchr(text, '/');

	out->st = *st;
	out->fd = nfd;
	out->opened = w->dir_oflags != 0;
	snprintf(out->name, sizeof(out->name), "%s", l ? l + 1 : text);
	/* Names from our own root: the path is the text (lexical_path()). */
	if (w->at_root && w->cur < 0 && root_is_own(w->start) &&
	    lexical_path(text, strlen(text), out->path, sizeof(out->path)) == 0)
		return WALK_DONE;
	/* Names from a directory (the cwd, a dirfd): its path, then the
	 * text. */
	if (!w->at_root && !S_ISDIR(st->st_mode) &&
	    base_path(base, text, out->path, sizeof(out->path)) == 0)
		return WALK_DONE;
	return WALK_CANONICAL;
}

/*
 * The fast paths, tried once for each new text to walk (the path, a link
 * target): the whole rest in one openat2 (jump_whole, jump_follow), or
 * every directory before the last name (jump_prefix).  Each gives the
 * walk's own answer or none (their security arguments are at each).
 * Returns WALK_NEXT after a prefix jump, WALK_DONE or WALK_CANONICAL when
 * the walk is over, WALK_FALLBACK when the step-by-step walk must go on
 * from where it is, or -errno.
 */
static int walk_jump(struct walk *w)
{
	struct resolved *out = w->out;
	int base = walk_base(w);
	const char *text = w->rem + w->pos;
	bool missing = false;	/* a name missing (ENOENT) */
	bool loop_seen = false;	/* a symlink on the way */
	bool jumped_own;
	size_t jpos = w->pos;	/* where the jumps start */
	size_t used;
	struct stat st;
	int nfd;

	w->try_jump = false;
	if (w->flags & RES_OPEN) {
		nfd = jump_whole(text, base, w->flags, w->at_root,
				 w->dir_oflags, &st);
		if (nfd >= 0)
			return walk_took_whole(w, text, base, nfd, &st);
		missing = nfd == -ENOENT;
		loop_seen = nfd == -ELOOP;
	}
	/* An absolute path with a symlink on the way of an open, or any for
	 * an exec (only the object wanted): the kernel may take it whole,
	 * links and all. */
	if ((loop_seen || (w->flags & RES_OBJECT)) && w->at_root && w->cur < 0 &&
	    (nfd = jump_follow(text, w->start, &w->root_st, w->flags, &st)) >= 0) {
		const char *l = strrchr(text, '/');

		out->st = st;
		out->fd = nfd;
		snprintf(out->name, sizeof(out->name), "%s", l ? l + 1 : text);
		return WALK_CANONICAL;
	}
	/* A symlink on the way defeats the prefix jump too. */
	nfd = loop_seen ? -1 :
	      jump_prefix(text, base, w->flags, w->at_root, &used);
	/* The prefix jump went by names from our own root. */
	jumped_own = nfd >= 0 && w->at_root && w->cur < 0 && root_is_own(w->start);
	if (nfd >= 0) {
		/* A directory (O_DIRECTORY): its stat when a step needs it. */
		walk_enter(w, nfd, NULL);
		w->pos += used;
	}
	/* (A shorter jump leaves more than the last name.) */
	if (missing && !strchr(w->rem + w->pos, '/')) {
		/*
		 * The directories before the last name are there (cur), so
		 * the last name is what was missing when jump_whole() looked:
		 * the answer the kernel gave.  A create makes it with O_EXCL,
		 * which sees one made since.
		 */
		size_t l = strlen(w->rem + w->pos);

		if (l > NAME_MAX)
			return -ENAMETOOLONG;
		if (w->cur < 0 && (w->cur = dup(w->start)) < 0)
			return -errno;
		out->parent_fd = steal_fd(&w->cur);
		memcpy(out->name, w->rem + w->pos, l + 1);
		/* Its path: the text the jump took (lexical_path()). */
		w->parent_lex = jumped_own &&
				lexical_path(w->rem + jpos, w->pos - jpos, out->path,
					     sizeof(out->path)) == 0;
		return WALK_CANONICAL;
	}
	return nfd >= 0 ? WALK_NEXT : WALK_FALLBACK;
}

/* The next component of rem into comp; last and slash set. */
static int walk_comp(struct walk *w)
{
	size_t clen = strcspn(w->rem + w->pos, "/");
	size_t q;

	if (clen > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(w->comp, w->rem + w->pos, clen);
	w->comp[clen] = '\0';
	w->pos += clen;
	w->slash = w->rem[w->pos] == '/';
	for (q = w->pos; w->rem[q] == '/'; q++)
		;
	w->last = w->rem[q] == '\0';
	if (w->last)
		w->out->trailing_slash = w->slash;
	return 0;
}

/* "/" or a path of only "." and "/": cur is the object, stat'ed now
 * (cur_st may be the kept root's). */
static int walk_end(struct walk *w)
{
	int r = walk_need_cur_st(w);

	if (r < 0)
		return r;
	if (fstat(w->cur, &w->out->st) < 0)
		return -errno;
	w->out->trailing_slash = true;
	return walk_done_cur(w, NULL);
}

static int walk_dot(struct walk *w)
{
	int r = walk_need_cur_st(w);

	if (r < 0 || !w->last)
		return r;
	if (fstat(w->cur, &w->out->st) < 0)
		return -errno;
	return walk_done_cur(w, ".");
}

/* ".." stops at the caller's root (or fails there, RES_BENEATH). */
static int walk_dotdot(struct walk *w)
{
	int r = walk_need_cur_st(w);
	int nfd;

	if (r < 0 || (r = walk_need_root(w)) < 0)
		return r;
	if (same_file(&w->cur_st, &w->root_st)) {
		if (w->flags & RES_BENEATH)
			return -EXDEV;
		nfd = dup(w->cur);
	} else {
		nfd = openat(w->cur, "..", O_PATH | O_CLOEXEC);
		w->at_root = false;
	}
	if (nfd < 0)
		return -errno;
	if ((w->flags & RES_NO_XDEV) && !same_mount(nfd, w->cur)) {
		close(nfd);
		return -EXDEV;
	}
	close(w->cur);
	w->cur = nfd;
	if (fstat(w->cur, &w->cur_st) < 0)
		return -errno;
	w->cur_known = true;
	if (!w->last)
		return WALK_NEXT;
	w->out->st = w->cur_st;
	return walk_done_cur(w, "..");
}

/*
 * Security: "self" and "thread-self" at the root of a procfs name the
 * caller, not the supervisor doing the walk: the link's text for the
 * caller is pushed in front of the rest.  Returns WALK_FALLBACK when comp
 * is no such link.
 */
static int walk_proc_self(struct walk *w)
{
	char sub[64];
	int r;

	if (strcmp(w->comp, "self") && strcmp(w->comp, "thread-self"))
		return WALK_FALLBACK;
	r = walk_need_cur_st(w);
	if (r < 0)
		return r;
	if (w->cur_st.st_ino != PROC_ROOT_INO || !is_procfs(w->cur))
		return WALK_FALLBACK;
	/* They are symlinks to the kernel: followed only where a symlink
	 * may be, and counted. */
	if ((w->flags & RES_NO_SYMLINKS) &&
	    (!w->last || w->slash || (w->flags & RES_FOLLOW)))
		return -ELOOP;
	if (++w->links > RESOLVE_MAX_LINKS)
		return -ELOOP;
	proc_self_name(w->comp, w->tid, w->tgid, sub, sizeof(sub));
	if (w->last && !w->slash && !(w->flags & RES_FOLLOW))
		snprintf(w->out->self_link, sizeof(w->out->self_link), "%s", sub);
	r = push_front(w->rem, w->rem_size, &w->pos, sub, strlen(sub));
	return r < 0 ? r : WALK_NEXT;
}

/*
 * A magic link of procfs (nfd closed): comp in the procfs directory cur
 * names owner's object.
 *
 * Security: a magic link jumps to an object without a path walk.  Only
 * links of processes in the traced tree are followed (the supervisor's
 * rights as their tracer are no wider than theirs over each other), and
 * never under RESOLVE_NO_MAGICLINKS or a scoped walk.
 */
static int walk_magic(struct walk *w, pid_t owner, pid_t task, int kind)
{
	struct resolved *out = w->out;
	struct stat st;
	int obj, r;

	if (w->flags & RES_NO_MAGICLINKS)
		return -ELOOP;
	if (w->scoped)
		return -EXDEV;
	if (!procs_find(owner) || owner == getpid())
		return -EACCES;
	if (kind == 2)
		return -EACCES;
	if (kind == 0) {
		struct proc *op = procs_find(owner);
		struct proc *tp = procs_find(task);
		int nfdn = (int)strtol(w->comp, NULL, 10);

		/* fd N of that task's own table. */
		if (!tp || tp->tgid != op->tgid)
			return -ENOENT;
		obj = tracee_getfd(task, op->tgid, nfdn);
		if (obj < 0)
			return -ENOENT;
		out->via_pid = op->tgid;
		out->via_fd = nfdn;
	} else {
		obj = openat(w->cur, w->comp, O_PATH | O_CLOEXEC);
		if (obj < 0)
			return -errno;
	}
	if (fstat(obj, &st) < 0) {
		r = -errno;
		close(obj);
		return r;
	}
	if ((w->flags & RES_NO_XDEV) && !same_mount(obj, w->cur)) {
		close(obj);
		return -EXDEV;
	}
	walk_enter(w, obj, &st);
	if (w->last) {
		if (w->slash && !S_ISDIR(st.st_mode))
			return -ENOTDIR;
		out->st = st;
		out->fd = steal_fd(&w->cur);
		return WALK_CANONICAL;
	}
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	out->via_pid = 0;
	out->via_fd = -1;
	return WALK_NEXT;
}

/* A symlink (nfd, closed here, whose stat is st) to follow: its target is
 * pushed in front of the rest of the walk. */
static int walk_link(struct walk *w, int nfd, const struct stat *st)
{
	char dir[PATH_MAX];
	char target[PATH_MAX];
	pid_t owner, task;
	int kind, r;
	ssize_t tl;

	if ((w->flags & RES_NO_SYMLINKS) || ++w->links > RESOLVE_MAX_LINKS) {
		close(nfd);
		return -ELOOP;
	}
	/* procfs has an anonymous device (major 0): a link on a block device
	 * is no magic link. */
	if (major(st->st_dev) == 0 && is_procfs(nfd) &&
	    fd_path(w->cur, dir, sizeof(dir)) == 0 &&
	    proc_magic(dir, w->comp, &owner, &task, &kind)) {
		close(nfd);
		return walk_magic(w, owner, task, kind);
	}
	tl = readlinkat(nfd, "", target, sizeof(target));
	r = -errno;
	close(nfd);
	if (tl < 0)
		return r;
	if (tl == 0)
		return -ENOENT;
	if ((size_t)tl >= sizeof(target))
		return -ENAMETOOLONG;
	target[tl] = '\0';
	if (target[0] == '/') {
		if (w->flags & RES_BENEATH)
			return -EXDEV;
		/* As the kernel's nd_jump_root(): under NO_XDEV, an absolute
		 * link is taken only when the lookup already has its root
		 * (an absolute path, a "..") and stays in the root's mount. */
		if ((w->flags & RES_NO_XDEV) &&
		    (w->root < 0 || !same_mount(w->cur, w->root)))
			return -EXDEV;
		r = walk_need_root(w);
		if (r < 0)
			return r;
		nfd = dup(w->root);
		if (nfd < 0)
			return -errno;
		walk_enter(w, nfd, &w->root_st);
		w->at_root = true;
	}
	/* The rest of the walk continues after the target; a trailing slash
	 * is kept. */
	r = push_front(w->rem, w->rem_size, &w->pos, target, (size_t)tl);
	if (r < 0)
		return r;
	w->try_jump = true;
	return WALK_NEXT;
}

/* A name: looked up in cur without following, then entered, followed
 * (a symlink) or taken as the object (the last one). */
static int walk_name(struct walk *w)
{
	struct resolved *out = w->out;
	struct stat st;
	int nfd, r;

	nfd = openat(w->cur, w->comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (w->last && !w->slash && !(w->flags & RES_FOLLOW)) {
		/* The last component itself, not what it points to. */
		if (nfd < 0 && errno != ENOENT)
			return -errno;
		if (nfd >= 0 && fstat(nfd, &out->st) < 0) {
			r = -errno;
			close(nfd);
			return r;
		}
		out->fd = nfd;
		out->parent_fd = steal_fd(&w->cur);
		snprintf(out->name, sizeof(out->name), "%s", w->comp);
		return WALK_CANONICAL;
	}
	if (nfd < 0) {
		if (errno == ENOENT && w->last) {
			out->parent_fd = steal_fd(&w->cur);
			snprintf(out->name, sizeof(out->name), "%s", w->comp);
			return WALK_CANONICAL;
		}
		if (errno == ENOENT) {
			missing_path(w->cur, w->comp, w->rem + w->pos, out);
			return -ENOENT;
		}
		return -errno;
	}
	if (fstat(nfd, &st) < 0) {
		r = -errno;
		close(nfd);
		return r;
	}
	/* The kernel compares mounts (a bind mount of the same file system
	 * is a crossing too). */
	if ((w->flags & RES_NO_XDEV) && !same_mount(nfd, w->cur)) {
		close(nfd);
		return -EXDEV;
	}
	if (S_ISLNK(st.st_mode))
		return walk_link(w, nfd, &st);
	if (w->last) {
		if (w->slash && !S_ISDIR(st.st_mode)) {
			close(nfd);
			return -ENOTDIR;
		}
		out->st = st;
		out->fd = nfd;
		out->parent_fd = steal_fd(&w->cur);
		snprintf(out->name, sizeof(out->name), "%s", w->comp);
		return WALK_CANONICAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(nfd);
		return -ENOTDIR;
	}
	walk_enter(w, nfd, &st);
	return WALK_NEXT;
}

/* One step of the walk by components: the component at pos. */
static int walk_step(struct walk *w)
{
	int r;

	if (w->cur < 0 && (w->cur = dup(w->start)) < 0)
		return -errno;
	if (w->rem[w->pos] == '\0')
		return walk_end(w);
	r = walk_comp(w);
	if (r < 0)
		return r;
	if (!strcmp(w->comp, "."))
		return walk_dot(w);
	if (!strcmp(w->comp, ".."))
		return walk_dotdot(w);
	r = walk_proc_self(w);
	if (r != WALK_FALLBACK)
		return r;
	return walk_name(w);
}

/*
 * The canonical path comes from the kernel's view of the fd we hold, not
 * from string bookkeeping: it names what the call will act on.
 */
static int walk_canonical(struct walk *w)
{
	struct resolved *out = w->out;
	size_t pl;
	int n, r;

	if (out->fd >= 0)
		return S_ISDIR(out->st.st_mode) ?
			dir_fd_path(out->fd, out->path, sizeof(out->path)) :
			fd_path(out->fd, out->path, sizeof(out->path));
	/* The directory's path is in out->path already when the prefix jump
	 * took it by names from our own root (lexical_path()). */
	r = w->parent_lex ? 0 :
	    dir_fd_path(out->parent_fd, out->path, sizeof(out->path));
	if (r < 0)
		return r;
	pl = strlen(out->path);
	n = snprintf(out->path + pl, sizeof(out->path) - pl, "%s%s",
		     pl > 0 && out->path[pl - 1] == '/' ? "" : "/", out->name);
	if (n < 0 || (size_t)n >= sizeof(out->path) - pl)
		return -ENAMETOOLONG;
	return 0;
}

/* The walk: the fast paths for each new text, else a step per
 * component, until a step says it is over. */
static int walk_run(struct walk *w, int dirfd, const char *path)
{
	int r = walk_start(w, dirfd, path);

	while (r == WALK_NEXT) {
		while (w->rem[w->pos] == '/')
			w->pos++;
		if (w->try_jump) {
			r = walk_jump(w);
			if (r != WALK_FALLBACK)
				continue;
		}
		r = walk_step(w);
	}
	if (r == WALK_CANONICAL)
		return walk_canonical(w);
	return r == WALK_DONE ? 0 : r;
}

int resolve_path_open(pid_t tid, pid_t tgid, int dirfd, const char *path,
		      unsigned flags, int dir_oflags, struct resolved *out)
{
	struct walk w = {
		.tid = tid,
		.tgid = tgid,
		.flags = flags,
		.dir_oflags = dir_oflags,
		.out = out,
		.root = -1,
		.cur = -1,
		.start = -1,
		.scoped = flags & (RES_BENEATH | RES_IN_ROOT),
		.try_jump = true,
		.rem_size = 2 * PATH_MAX,
	};
	int r;

	resolved_init(out);
	r = walk_run(&w, dirfd, path);
	if (w.cur >= 0)
		close(w.cur);
	free(w.rem);
	if (w.root >= 0 && !w.root_kept)
		close(w.root);
	return r;
}
