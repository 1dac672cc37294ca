/* SPDX-License-Identifier: MIT */
/*
 * race-path: the TOCTOU attacker on the path of every kind of path call
 * (create, delete, rename, link, metadata changes, xattrs, the stat
 * family).  For each OP in turn, a flipper keeps rewriting a path buffer,
 * alternating between ALLOWED_DIR/OP and DENIED_DIR/OP, while the main
 * thread makes the call OP on whatever the buffer holds, in a loop.  The
 * SECONDS are shared among the OPs.
 *
 *   race-path [--flipper thread|vm|shm] [--out FILE] [--until-refused]
 *             SECONDS
 *             ALLOWED_DIR DENIED_DIR OP...
 *
 * --flipper thread  a thread of this process (default);
 *           vm      a separate process sharing all the memory
 *                   (clone(CLONE_VM) without CLONE_THREAD);
 *           shm     a forked child that shares only the page holding the
 *                   buffer (MAP_SHARED|MAP_ANONYMOUS).
 * --out FILE        the information calls (stat...) write every distinct
 *                   answer they got (inode numbers, link targets, xattr
 *                   values, successful access checks) to FILE, for the
 *                   test to compare with what it knows from outside.
 * --until-refused   (under a policy that refuses DENIED_DIR with EACCES)
 *                   an OP whose calls were never refused in its share of
 *                   the SECONDS, or never worked (but access, faccessat2),
 *                   goes on until both happened, for at most ten shares:
 *                   on a loaded machine (a sanitizer build, two CPUs) the
 *                   flipper may not run in a short share, or one call
 *                   outlast it, and the test wants the supervisor to have
 *                   seen the denied path and the allowed one of every OP.
 *
 * The attacker does not judge its own success: the test looks at
 * DENIED_DIR (and at FILE) from outside.  Exit 0 when every OP ran (the
 * buffer flipped and the allowed call worked at least once; for access
 * and faccessat2 the allowed path is absent, so only that it ran),
 * VICTIM_EXIT_SETUP otherwise.  A summary line per OP goes to stderr.
 *
 * The names: A = ALLOWED_DIR/OP, D = DENIED_DIR/OP, X = ALLOWED_DIR/OP.x.
 * The shorter of A and D is padded with '/' before its last component so
 * that both have the same length.  When the two differ only inside one
 * aligned 8-byte word (ALLOWED_DIR and DENIED_DIR one byte apart, say), the
 * flipper swaps that word with one store, so every read of the buffer sees
 * one of the two whole; otherwise it copies byte by byte, and reads may
 * see a mix (a path that mostly does not exist).  Every preparatory call
 * uses A or X by a fixed string, never the buffer.
 *
 *   mkdir mkdirat            mkdir(buf); rmdir(A) after a success
 *   rmdir unlinkat-dir       mkdir(A) first; rmdir(buf)
 *   unlink unlinkat          create A first; unlink(buf)
 *   rename-from              create A first; rename(buf, X)
 *   link-from                create A first; link(buf, X); unlink(X) after
 *   rename-to renameat2-to   create X first; rename(X, buf); unlink(A) after
 *   link-to                  create X first; link(X, buf); unlink(A) after
 *   symlink-to               symlink("target", buf); unlink(A) after
 *   chmod fchmodat chown lchown fchownat truncate utime utimes utimensat
 *   setxattr lsetxattr removexattr   on buf (A created first; removexattr
 *                            sets user.keep on A first)
 *   stat lstat newfstatat statx      --out: "ino N size N"
 *   access faccessat2                --out: "access ok"
 *   readlink readlinkat              --out: "link TARGET"
 *   getxattr lgetxattr               --out: "xattr user.x=VALUE"
 *
 * Each OP is made with syscall(2), so that the system call under test is
 * exactly the one named, whatever the C library prefers.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <utime.h>

#define PLEN 4096

/* What the flipper and the caller share: one MAP_SHARED page set. */
struct shared {
	_Alignas(64) char buf[PLEN];
	char img[2][PLEN];
	size_t len;
	long word;		/* offset of the one word that differs, or -1 */
	uint64_t w[2];		/* that word in each image */
	atomic_int stop;
	atomic_ulong flips;
};

static struct shared *sh;
static int flipper_mode; /* 0 thread, 1 vm, 2 shm */

static void flip_loop(void)
{
	volatile char *buf = sh->buf;
	unsigned long i = 0;

	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		const char *src = sh->img[i & 1];
		size_t k;

		if (sh->word >= 0) {
			/* One store: every read sees one image whole, even
			 * when the flipper is preempted. */
			*(volatile uint64_t *)(sh->buf + sh->word) = sh->w[i & 1];
		} else {
			for (k = 0; k < sh->len + 1; k++)
				buf[k] = src[k];
		}
		i++;
		if (i == 2 || !(i & 1023))
			atomic_store_explicit(&sh->flips, i,
					      memory_order_relaxed);
	}
	atomic_store(&sh->flips, i);
}

static void *flip_thread(void *arg)
{
	(void)arg;
	flip_loop();
	return NULL;
}

static int flip_vm(void *arg)
{
	(void)arg;
	flip_loop();
	return 0;
}

static pthread_t flip_tid;
static pid_t flip_pid;

static void flipper_start(void)
{
	atomic_store(&sh->stop, 0);
	atomic_store(&sh->flips, 0);
	switch (flipper_mode) {
	case 0:
		errno = pthread_create(&flip_tid, NULL, flip_thread, NULL);
		if (errno)
			victim_setup_fail("pthread_create");
		break;
	case 1: {
		size_t sz = 256 * 1024;
		char *stack = mmap(NULL, sz, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
				   -1, 0);

		if (stack == MAP_FAILED)
			victim_setup_fail("mmap stack");
		flip_pid = clone(flip_vm, stack + sz, CLONE_VM | SIGCHLD, NULL);
		if (flip_pid < 0)
			victim_setup_fail("clone(CLONE_VM)");
		break;
	}
	default:
		flip_pid = fork();
		if (flip_pid < 0)
			victim_setup_fail("fork");
		if (flip_pid == 0) {
			flip_loop();
			_exit(0);
		}
		break;
	}
	/* Race only once the flipper really runs. */
	while (!atomic_load(&sh->flips))
		sched_yield();
}

static unsigned long flipper_stop(void)
{
	int st;

	atomic_store(&sh->stop, 1);
	if (flipper_mode == 0) {
		pthread_join(flip_tid, NULL);
	} else {
		if (waitpid(flip_pid, &st, 0) != flip_pid)
			victim_setup_fail("waitpid flipper");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			errno = 0;
			victim_setup_fail("flipper process died (status 0x%x)",
					  st);
		}
	}
	return atomic_load(&sh->flips);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * If the two images differ only inside one aligned 8-byte word, flip that
 * word with a single store (sh->word); else byte by byte (sh->word = -1),
 * and a preempted flipper may leave a torn path for a while.
 */
static void set_word(void)
{
	size_t lo = 0, hi, k;

	while (lo <= sh->len && sh->img[0][lo] == sh->img[1][lo])
		lo++;
	sh->word = -1;
	if (lo > sh->len)
		return;
	hi = sh->len;
	while (sh->img[0][hi] == sh->img[1][hi])
		hi--;
	if ((hi & ~(size_t)7) != (lo & ~(size_t)7))
		return;
	sh->word = lo & ~(size_t)7;
	for (k = 0; k < 2; k++)
		memcpy(&sh->w[k], sh->img[k] + sh->word, 8);
}

/* dst = src with extra '/' before its last component up to len bytes. */
static void pad_path(char *dst, const char *src, size_t len)
{
	const char *last = strrchr(src, '/');
	size_t n = strlen(src), pre, k;

	if (!last || n > len) {
		errno = 0;
		victim_setup_fail("cannot pad '%s'", src);
	}
	pre = last - src;
	memcpy(dst, src, pre);
	for (k = 0; k < len - n; k++)
		dst[pre + k] = '/';
	memcpy(dst + pre + (len - n), last, n - pre + 1);
}

/* Distinct answers of the information calls, with counts. */
#define MAX_SEEN 256
static struct {
	char what[160];
	unsigned long n;
} seen[MAX_SEEN];
static int nseen;
static unsigned long seen_dropped;

static void saw(const char *fmt, ...)
{
	char s[160];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	for (i = 0; i < nseen; i++)
		if (!strcmp(seen[i].what, s)) {
			seen[i].n++;
			return;
		}
	if (nseen == MAX_SEEN) {
		seen_dropped++;
		return;
	}
	strcpy(seen[nseen].what, s);
	seen[nseen++].n = 1;
}

static void touch(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

/* One call of OP on the buffer; returns the syscall's result. */
static long one(const char *op, const char *a, const char *x)
{
	const char *p = sh->buf;
	long r;

	if (!strcmp(op, "mkdir") || !strcmp(op, "mkdirat")) {
		r = op[5] ? syscall(SYS_mkdirat, AT_FDCWD, p, 0755)
			  : syscall(SYS_mkdir, p, 0755);
		if (r == 0)
			rmdir(a);
		return r;
	}
	if (!strcmp(op, "rmdir") || !strcmp(op, "unlinkat-dir")) {
		mkdir(a, 0755);
		return op[0] == 'r' ? syscall(SYS_rmdir, p)
				    : syscall(SYS_unlinkat, AT_FDCWD, p,
					      AT_REMOVEDIR);
	}
	if (!strcmp(op, "unlink") || !strcmp(op, "unlinkat")) {
		touch(a);
		return op[6] ? syscall(SYS_unlinkat, AT_FDCWD, p, 0)
			     : syscall(SYS_unlink, p);
	}
	if (!strcmp(op, "rename-from")) {
		touch(a);
		return syscall(SYS_rename, p, x);
	}
	if (!strcmp(op, "link-from")) {
		touch(a);
		r = syscall(SYS_link, p, x);
		if (r == 0)
			unlink(x);
		return r;
	}
	if (!strcmp(op, "rename-to") || !strcmp(op, "renameat2-to") ||
	    !strcmp(op, "link-to")) {
		touch(x);
		if (op[0] == 'l')
			r = syscall(SYS_link, x, p);
		else if (!strcmp(op, "renameat2-to"))
			r = syscall(SYS_renameat2, AT_FDCWD, x, AT_FDCWD, p, 0);
		else
			r = syscall(SYS_rename, x, p);
		if (r == 0)
			unlink(a);
		return r;
	}
	if (!strcmp(op, "symlink-to")) {
		r = syscall(SYS_symlink, "target", p);
		if (r == 0)
			unlink(a);
		return r;
	}
	if (!strcmp(op, "chmod"))
		return syscall(SYS_chmod, p, 0600);
	if (!strcmp(op, "fchmodat"))
		return syscall(SYS_fchmodat, AT_FDCWD, p, 0600);
	if (!strcmp(op, "chown"))
		return syscall(SYS_chown, p, -1, -1);
	if (!strcmp(op, "lchown"))
		return syscall(SYS_lchown, p, -1, -1);
	if (!strcmp(op, "fchownat"))
		return syscall(SYS_fchownat, AT_FDCWD, p, -1, -1, 0);
	if (!strcmp(op, "truncate"))
		return syscall(SYS_truncate, p, 0L);
	if (!strcmp(op, "utime")) {
		struct utimbuf u = { 1000000, 1000000 };

		return syscall(SYS_utime, p, &u);
	}
	if (!strcmp(op, "utimes")) {
		struct timeval tv[2] = { { 1000000, 0 }, { 1000000, 0 } };

		return syscall(SYS_utimes, p, tv);
	}
	if (!strcmp(op, "utimensat")) {
		struct timespec ts[2] = { { 1000000, 0 }, { 1000000, 0 } };

		return syscall(SYS_utimensat, AT_FDCWD, p, ts, 0);
	}
	if (!strcmp(op, "setxattr"))
		return syscall(SYS_setxattr, p, "user.x", "PWNED", 5, 0);
	if (!strcmp(op, "lsetxattr"))
		return syscall(SYS_lsetxattr, p, "user.x", "PWNED", 5, 0);
	if (!strcmp(op, "removexattr")) {
		setxattr(a, "user.keep", "1", 1, 0);
		return syscall(SYS_removexattr, p, "user.keep");
	}
	if (!strcmp(op, "stat") || !strcmp(op, "lstat") ||
	    !strcmp(op, "newfstatat")) {
		struct stat st;

		if (op[0] == 's')
			r = syscall(SYS_stat, p, &st);
		else if (op[0] == 'l')
			r = syscall(SYS_lstat, p, &st);
		else
			r = syscall(SYS_newfstatat, AT_FDCWD, p, &st, 0);
		if (r == 0)
			saw("ino %lu size %ld", (unsigned long)st.st_ino,
			    (long)st.st_size);
		return r;
	}
	if (!strcmp(op, "statx")) {
		struct statx stx;

		r = syscall(SYS_statx, AT_FDCWD, p, 0, STATX_BASIC_STATS, &stx);
		if (r == 0)
			saw("ino %llu size %llu",
			    (unsigned long long)stx.stx_ino,
			    (unsigned long long)stx.stx_size);
		return r;
	}
	if (!strcmp(op, "access") || !strcmp(op, "faccessat2")) {
		r = op[0] == 'a' ? syscall(SYS_access, p, F_OK)
				 : syscall(SYS_faccessat2, AT_FDCWD, p, F_OK, 0);
		if (r == 0)
			saw("access ok");
		return r;
	}
	if (!strcmp(op, "readlink") || !strcmp(op, "readlinkat")) {
		char t[128];

		r = op[8] ? syscall(SYS_readlinkat, AT_FDCWD, p, t, sizeof t - 1)
			  : syscall(SYS_readlink, p, t, sizeof t - 1);
		if (r >= 0) {
			t[r] = '\0';
			saw("link %s", t);
		}
		return r;
	}
	if (!strcmp(op, "getxattr") || !strcmp(op, "lgetxattr")) {
		char v[128];

		r = op[0] == 'g'
			? syscall(SYS_getxattr, p, "user.x", v, sizeof v - 1)
			: syscall(SYS_lgetxattr, p, "user.x", v, sizeof v - 1);
		if (r >= 0) {
			v[r] = '\0';
			saw("xattr user.x=%s", v);
		}
		return r;
	}
	errno = 0;
	victim_setup_fail("unknown OP '%s'", op);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	double secs, slice;
	bool until_refused = false;
	int i = 1, nops, k, bad = 0;
	char *end;

	victim_name = "race-path";
	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--flipper") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "thread"))
				flipper_mode = 0;
			else if (!strcmp(argv[i], "vm"))
				flipper_mode = 1;
			else if (!strcmp(argv[i], "shm"))
				flipper_mode = 2;
			else
				victim_usage("--flipper thread|vm|shm ...");
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--until-refused")) {
			until_refused = true;
		} else {
			break;
		}
	}
	if (argc - i < 4)
		victim_usage("[--flipper thread|vm|shm] [--out FILE] "
			     "[--until-refused] SECONDS ALLOWED_DIR DENIED_DIR "
			     "OP...");
	secs = strtod(argv[i], &end);
	if (end == argv[i] || *end || secs <= 0)
		victim_usage("SECONDS: a positive number");
	nops = argc - i - 3;
	slice = secs / nops;

	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		victim_setup_fail("mmap shared");

	for (k = 0; k < nops; k++) {
		const char *op = argv[i + 3 + k];
		char a[PLEN], d[PLEN], x[PLEN + 2];
		unsigned long tries = 0, ok = 0, flips, nerr[4] = { 0 };
		unsigned long refused = 0;
		int errs[4] = { 0 }, e;
		size_t la, ld;
		double start, stop_at;

		if (snprintf(a, sizeof a, "%s/%s", argv[i + 1], op) >= PLEN ||
		    snprintf(d, sizeof d, "%s/%s", argv[i + 2], op) >= PLEN)
			victim_usage("paths too long");
		snprintf(x, sizeof x, "%s.x", a);
		la = strlen(a);
		ld = strlen(d);
		sh->len = la > ld ? la : ld;
		pad_path(sh->img[0], a, sh->len);
		pad_path(sh->img[1], d, sh->len);
		memcpy(sh->buf, sh->img[0], sh->len + 1);
		set_word();
		/* The metadata calls want an allowed file to act on. */
		if (strstr("chmod fchmodat chown lchown fchownat truncate "
			   "utime utimes utimensat setxattr lsetxattr "
			   "removexattr", op))
			touch(a);

		/* access and faccessat2 may fail on the allowed path too. */
		bool need_ok = strcmp(op, "access") && strcmp(op, "faccessat2");

		flipper_start();
		start = now();
		stop_at = start + slice;
		for (;;) {
			double t = now();
			long r;
			int j;

			/* --until-refused: past the slice until the call has
			 * both been refused and (but access) worked, as one
			 * call that outlasts the slice on a loaded machine
			 * would prove nothing (10 slices at most). */
			if (t >= stop_at &&
			    (!until_refused || (refused && (ok || !need_ok)) ||
			     t >= start + 10 * slice))
				break;
			r = one(op, a, x);
			tries++;
			if (r >= 0) {
				ok++;
				continue;
			}
			e = errno;
			if (e == EACCES)
				refused++;
			for (j = 0; j < 4 && errs[j] && errs[j] != e; j++)
				;
			if (j < 4) {
				errs[j] = e;
				nerr[j]++;
			}
		}
		flips = flipper_stop();
		fprintf(stderr, "race-path: %s (%s flipper, %s): %lu calls, "
			"%lu ok", op, flipper_mode == 0 ? "thread" :
			    flipper_mode == 1 ? "vm" : "shm",
			sh->word >= 0 ? "one word" : "byte by byte", tries, ok);
		for (e = 0; e < 4 && errs[e]; e++)
			fprintf(stderr, ", %lu %s", nerr[e],
				victim_errname(errs[e]));
		fprintf(stderr, ", %lu flips\n", flips);
		if (!flips || !tries || (!ok && need_ok)) {
			fprintf(stderr, "race-path: %s: proved nothing "
				"(no flip or the allowed call never worked)\n",
				op);
			bad = 1;
		}
	}

	if (out) {
		FILE *f = fopen(out, "w");

		if (!f)
			victim_setup_fail("fopen %s", out);
		for (k = 0; k < nseen; k++)
			fprintf(f, "%s\t%lu\n", seen[k].what, seen[k].n);
		if (seen_dropped)
			fprintf(f, "DROPPED\t%lu\n", seen_dropped);
		if (fclose(f))
			victim_setup_fail("write %s", out);
	}
	if (bad) {
		errno = 0;
		victim_setup_fail("some OP proved nothing");
	}
	return 0;
}
