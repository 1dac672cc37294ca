/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test-resolve.c: the resolver (supervisor/resolve.c) against
 * the kernel.  Each case is a path and a set of walk flags on a temporary
 * tree (symlink loops and chains, ".." past the root, absolute links,
 * /proc/self, trailing slashes, missing names, links out of the tree); the
 * same path is opened by the kernel with openat2(2) and the matching
 * RESOLVE_* flags, and both must name the same object (device and inode)
 * or fail with the same errno.  Where the resolver answers "the last name
 * is missing" (fd -1, a parent fd and a name), the kernel creates the file
 * and the resolver's parent and name must hold what it created.  The
 * "tracee" is this process: its cwd, root and fd table are read through
 * /proc and pidfd_getfd like a traced task's.  Each case runs with and
 * without RES_OPEN (which lets the walk try the whole path in one openat2
 * first), so the fast paths and the step-by-step walk are both compared.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rules/rules.h"
#include "supervisor/procs.h"
#include "supervisor/record.h"
#include "supervisor/resolve.h"
#include "tests/unit/unit.h"

/* What procs.c and tracee.c call in the rest of the supervisor. */
uint64_t sup_now_us(void)
{
	return 0;
}

/* What resolve.c asks the rules: no call here moves a root. */
bool rules_moves_root(int nr)
{
	(void)nr;
	return false;
}

static char top[1024];		/* the temporary tree */
static int top_fd = -1;		/* an fd of it in this "tracee" */
static unsigned n_cases;

static void mk(const char *kind, const char *name, const char *target)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", top, name);
	if (!strcmp(kind, "dir")) {
		CU_ASSERT_EQUAL_FATAL(mkdir(p, 0755), 0);
	} else if (!strcmp(kind, "file")) {
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		CU_ASSERT_FATAL(fd >= 0);
		close(fd);
	} else {
		CU_ASSERT_EQUAL_FATAL(symlink(target, p), 0);
	}
}

static void build_tree(void)
{
	char t[PATH_MAX];

	snprintf(top, sizeof(top), "%s/sysgate-resolve.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(top));
	mk("dir", "dir", NULL);
	mk("dir", "dir/sub", NULL);
	mk("file", "dir/sub/file", NULL);
	mk("file", "dir/file", NULL);
	mk("file", "file", NULL);
	mk("link", "link_rel", "dir/sub");
	snprintf(t, sizeof(t), "%s/dir/file", top);
	mk("link", "link_abs", t);
	snprintf(t, sizeof(t), "%s/dir", top);
	mk("link", "link_absdir", t);
	mk("link", "link_up", "../");
	mk("link", "link_root", "/");
	mk("link", "loop1", "loop2");
	mk("link", "loop2", "loop1");
	mk("link", "self_loop", "self_loop/x");
	mk("link", "dangling", "nothere");
	mk("link", "dangling_dir", "nodir/x");
	mk("link", "proc_self", "/proc/self");
	mk("link", "dir/sub/back", "../../file");
	mk("link", "dir/dotdot", "..");
	/* A chain of 40 links ends at "file" (the kernel's limit: allowed);
	 * one of 41 fails with ELOOP. */
	for (int i = 0; i < 41; i++) {
		char name[32], target[32];

		snprintf(name, sizeof(name), "c%d", i);
		if (i == 40)
			snprintf(target, sizeof(target), "file");
		else
			snprintf(target, sizeof(target), "c%d", i + 1);
		mk("link", name, target);
	}
	top_fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CU_ASSERT_FATAL(top_fd >= 0);
}

static void rm_tree(void)
{
	char cmd[PATH_MAX + 32];

	if (top_fd >= 0)
		close(top_fd);
	top_fd = -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static unsigned long long kernel_resolve(unsigned flags)
{
	unsigned long long r = 0;

	if (flags & RES_NO_SYMLINKS)
		r |= RESOLVE_NO_SYMLINKS;
	if (flags & RES_NO_MAGICLINKS)
		r |= RESOLVE_NO_MAGICLINKS;
	if (flags & RES_BENEATH)
		r |= RESOLVE_BENEATH;
	if (flags & RES_IN_ROOT)
		r |= RESOLVE_IN_ROOT;
	if (flags & RES_NO_XDEV)
		r |= RESOLVE_NO_XDEV;
	return r;
}

static int kernel_open(int dirfd, const char *path, unsigned flags, int oflags)
{
	struct open_how how = {
		.flags = (unsigned long long)oflags | O_CLOEXEC |
			 ((flags & RES_FOLLOW) ? 0 : O_NOFOLLOW),
		.resolve = kernel_resolve(flags),
		.mode = oflags & O_CREAT ? 0600 : 0,
	};
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

static bool same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * The resolver said the last name is missing: the kernel creates the file
 * the path names (following a last dangling link only under RES_FOLLOW),
 * and the resolver's parent fd and name must be where it landed.
 */
static bool missing_matches(int dirfd, const char *path, unsigned flags,
			    const struct resolved *out)
{
	struct stat made, ours;
	int fd;
	bool ok;

	if (path[0] == '/') {
		/* Outside the tree ("/nonexistent"): nothing is made there;
		 * the parent as written must be the resolver's parent. */
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s", path);
		strrchr(dir, '/')[1] = '\0';
		fd = kernel_open(dirfd, dir, flags | RES_FOLLOW, O_PATH);
		ok = fd >= 0 && fstat(fd, &made) == 0 &&
		     fstat(out->parent_fd, &ours) == 0 && same(&made, &ours);
		if (fd >= 0)
			close(fd);
		return ok;
	}
	fd = kernel_open(dirfd, path, flags, O_WRONLY | O_CREAT);

	if (fd < 0)
		return false;
	ok = fstat(fd, &made) == 0 &&
	     fstatat(out->parent_fd, out->name, &ours, AT_SYMLINK_NOFOLLOW) == 0 &&
	     same(&made, &ours);
	close(fd);
	if (unlinkat(out->parent_fd, out->name, 0) < 0)
		ok = false;
	return ok;
}

/*
 * One case: what the kernel does from kdirfd, and whether the resolver,
 * walking from the tracee's rdirfd (the same directory: an fd of it, or
 * AT_FDCWD with the tracee's cwd there), agrees.
 */
static void check_one(int kdirfd, int rdirfd, const char *path, unsigned flags)
{
	struct resolved out;
	struct stat kst;
	int kfd = kernel_open(kdirfd, path, flags, O_PATH);
	int r;
	bool ok;

	/* thread-self names the tracee's main thread, not this one. */
	if (gettid() != getpid() && strstr(path, "thread-self")) {
		if (kfd >= 0)
			close(kfd);
		return;
	}
	n_cases++;
	r = resolve_path_open(getpid(), getpid(), rdirfd, path, flags, 0, &out);
	if (kfd >= 0) {
		/* /proc/self not followed: the resolver reports the link's
		 * text for the caller and goes on to what it names. */
		ok = fstat(kfd, &kst) == 0 && r == 0 && out.fd >= 0 &&
		     (same(&kst, &out.st) ||
		      (out.self_link[0] && S_ISLNK(kst.st_mode)));
		close(kfd);
	} else if (kfd == -ENOENT && r == 0 && out.fd < 0 &&
		   out.parent_fd >= 0) {
		ok = out.trailing_slash || missing_matches(kdirfd, path, flags, &out);
	} else {
		ok = r == kfd;
	}
	if (!ok)
		fprintf(stderr, "\n  mismatch: %s flags 0x%x dirfd %d: kernel %s, "
			"resolver %d (fd %d parent %d name \"%s\" path \"%s\")\n",
			path, flags, rdirfd, kfd >= 0 ? "ok" : strerror(-kfd), r,
			out.fd, out.parent_fd, out.name, out.path);
	CU_ASSERT(ok);
	resolved_release(&out);
}

static const char *const paths[] = {
	"file", "file/", "file/.", "dir", "dir/", "dir/.", "dir/sub/file",
	"dir/sub/file/", "dir//sub///file", "./dir/./sub/", "dir/../file",
	"dir/sub/../../file", "dir/sub/../../../", "..", "../", "../..",
	"../../../../../../..", ".", "./",
	"link_rel", "link_rel/", "link_rel/file", "link_rel/../file",
	"link_rel/back", "link_rel/back/", "link_abs", "link_abs/",
	"link_absdir/sub/file", "link_absdir/../file", "link_up",
	"link_up/", "link_up/file", "link_root", "link_root/",
	"link_root/proc", "dir/dotdot/file", "dir/dotdot/dir/dotdot/..",
	"loop1", "loop1/", "loop1/x", "self_loop", "self_loop/x",
	"dangling", "dangling/", "dangling_dir", "dangling_dir/y", "missing",
	"missing/", "missing/x", "dir/missing", "dir/sub/missing",
	"link_rel/missing", "c0", "c1", "c0/", "proc_self", "proc_self/",
	"proc_self/status", "/proc/self", "/proc/self/", "/proc/self/status",
	"/proc/thread-self", "/proc/thread-self/comm", "/", "//", "/..", "/../proc/self", "/nonexistent",
	"/nonexistent/x",
};

/* Flags the resolver's callers pass, each with and without RES_FOLLOW and
 * RES_OPEN. */
static const unsigned flag_sets[] = {
	0, RES_BENEATH, RES_IN_ROOT, RES_NO_SYMLINKS, RES_NO_MAGICLINKS,
	RES_NO_XDEV, RES_BENEATH | RES_NO_MAGICLINKS,
};

static void check_all(int kdirfd, int rdirfd)
{
	for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++)
		for (size_t f = 0; f < sizeof(flag_sets) / sizeof(flag_sets[0]); f++)
			for (unsigned v = 0; v < 4; v++) {
				unsigned flags = flag_sets[f];

				if (v & 1)
					flags |= RES_FOLLOW;
				if (v & 2)
					flags |= RES_OPEN;
				check_one(kdirfd, rdirfd, paths[p], flags);
			}
}

static void setup(void)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(procs_add(getpid(), getpid(), getppid()));
	build_tree();
}

static void test_from_dirfd(void)
{
	setup();
	n_cases = 0;
	check_all(top_fd, top_fd);
	CU_ASSERT(n_cases > 1000);
	rm_tree();
}

static void *check_from_cwd(void *arg)
{
	(void)arg;
	check_all(top_fd, AT_FDCWD);
	return NULL;
}

/*
 * The same paths from the cwd (AT_FDCWD) of the tracee, this process's
 * main thread.  The resolver runs on another thread, as it does in the
 * supervisor: it makes its thread's cwd its own (dir_fd_path()), which
 * here would move the tracee's.  The kernel's answers are taken from an
 * fd of that cwd.
 */
static void test_from_cwd(void)
{
	int old = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	pthread_t t;

	CU_ASSERT_FATAL(old >= 0);
	build_tree();
	CU_ASSERT_EQUAL_FATAL(chdir(top), 0);
	resolve_note_call(getpid(), SYS_chdir);
	resolve_task_seen(getpid());
	n_cases = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, check_from_cwd, NULL), 0);
	CU_ASSERT_EQUAL(pthread_join(t, NULL), 0);
	CU_ASSERT(n_cases > 1000);
	{
		char cwd[PATH_MAX];

		/* The tracee's cwd stayed where it was put. */
		CU_ASSERT(getcwd(cwd, sizeof(cwd)) && !strcmp(cwd, top));
	}
	CU_ASSERT_EQUAL(fchdir(old), 0);
	close(old);
	rm_tree();
}

/* An empty path names dirfd itself only with RES_EMPTY_PATH. */
static void test_empty_path(void)
{
	struct resolved out;
	struct stat st;

	build_tree();
	CU_ASSERT_EQUAL(resolve_path(getpid(), getpid(), top_fd, "", 0, &out), -ENOENT);
	resolved_release(&out);
	CU_ASSERT_EQUAL(resolve_path(getpid(), getpid(), top_fd, "", RES_EMPTY_PATH, &out), 0);
	CU_ASSERT_EQUAL(fstat(top_fd, &st), 0);
	CU_ASSERT(out.fd >= 0 && same(&st, &out.st));
	CU_ASSERT_STRING_EQUAL(out.path, top);
	resolved_release(&out);
	rm_tree();
}

/* Canonical paths: what the record shows is the kernel's name of the
 * object, links and ".." taken. */
static void test_canonical(void)
{
	static const struct {
		const char *path;
		unsigned flags;
		const char *want;	/* under top */
	} cases[] = {
		{ "link_rel/back", RES_FOLLOW, "/file" },
		{ "dir/sub/../../dir/file", 0, "/dir/file" },
		{ "link_absdir/sub/missing", 0, "/dir/sub/missing" },
		{ "dangling", RES_FOLLOW, "/nothere" },
		{ "dangling", 0, "/dangling" },
		{ "c1", RES_FOLLOW, "/file" },
		{ "dir/dotdot/dir/sub/", 0, "/dir/sub" },
	};

	build_tree();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct resolved out;
		char want[PATH_MAX];

		snprintf(want, sizeof(want), "%s%s", top, cases[i].want);
		for (unsigned open = 0; open < 2; open++) {
			int r = resolve_path_open(getpid(), getpid(), top_fd,
						  cases[i].path,
						  cases[i].flags | (open ? RES_OPEN : 0),
						  0, &out);

			CU_ASSERT_EQUAL(r, 0);
			if (strcmp(out.path, want))
				fprintf(stderr, "\n  %s: path \"%s\", want \"%s\"\n",
					cases[i].path, out.path, want);
			CU_ASSERT_STRING_EQUAL(out.path, want);
			resolved_release(&out);
		}
	}
	rm_tree();
}

/* A directory missing on the way: -ENOENT, and the path as named. */
static void test_partial(void)
{
	struct resolved out;
	char want[PATH_MAX];

	build_tree();
	snprintf(want, sizeof(want), "%s/dir/nodir/x", top);
	CU_ASSERT_EQUAL(resolve_path(getpid(), getpid(), top_fd,
				     "dir/sub/../nodir/./x", 0, &out), -ENOENT);
	CU_ASSERT(out.partial);
	CU_ASSERT_STRING_EQUAL(out.path, want);
	resolved_release(&out);
	rm_tree();
}

/*
 * Security: the magic links of the supervisor's own process are never
 * followed (here the "tracee" is the supervisor, so its fd 0 and cwd are
 * the supervisor's); not following the last one is fine.
 */
static void test_own_magic(void)
{
	static const char *const own[] = {
		"/proc/self/fd/0", "/proc/self/cwd", "/proc/self/cwd/",
		"/proc/self/root/tmp",
	};
	struct resolved out;

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		CU_ASSERT_EQUAL(resolve_path(getpid(), getpid(), AT_FDCWD, own[i],
					     RES_FOLLOW, &out), -EACCES);
		resolved_release(&out);
	}
	CU_ASSERT_EQUAL(resolve_path(getpid(), getpid(), AT_FDCWD,
				     "/proc/self/cwd", 0, &out), 0);
	CU_ASSERT(out.fd >= 0 && S_ISLNK(out.st.st_mode));
	resolved_release(&out);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "paths from a dirfd agree with openat2", test_from_dirfd },
		{ "paths from the cwd agree with openat2", test_from_cwd },
		{ "an empty path", test_empty_path },
		{ "canonical paths", test_canonical },
		{ "a missing directory on the way", test_partial },
		{ "the supervisor's own magic links", test_own_magic },
	};

	return unit_run("resolve", tests, sizeof(tests) / sizeof(tests[0]));
}
