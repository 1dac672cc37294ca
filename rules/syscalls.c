/* SPDX-License-Identifier: MIT */
/*
 * rules/syscalls.c: what sysgate knows about each x86_64 syscall.  Numbers
 * and names come from libseccomp (plus the few numbers newer than 2.5.4),
 * read at build time by rules/gen-syscalls into rules/syscall-names.c;
 * which arguments are paths, sockets and int-sized values is hand-written
 * here, and tests/unit/test-rules.c checks it against libseccomp.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "common/util.h"
#include "rules/internal.h"

/* linux-libc-dev 6.1 predates fchmodat2 (Linux 6.6). */
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

#define ACC_OPEN (RULES_ACC_READ | RULES_ACC_WRITE | RULES_ACC_CREATE | \
		  RULES_ACC_STAT)
#define ACC_RENAME (RULES_ACC_DELETE | RULES_ACC_CREATE | RULES_ACC_WRITE)
#define ACC_LINK (RULES_ACC_CREATE | RULES_ACC_WRITE)

/* A PATH syscall with one path argument P and its dirfd D (-1: none). */
/* A PATH syscall of handler family FAM (OPEN, CHANGE, META) with one path
 * argument P and its dirfd D (-1: none). */
#define PATH1(nm, p, d, acc, fam)                                            \
	{ .name = #nm, .nr = __NR_##nm, .kind = RULES_KIND_PATH,            \
	  .family = RULES_FAM_##fam,                                         \
	  .access = (acc), .path_arg = { (p), -1 }, .dirfd_arg = { (d), -1 }, \
	  .addr_arg = -1, .addrlen_arg = -1 }
/* Two path arguments P0, P1 with dirfds D0, D1. */
#define PATH2(nm, p0, d0, p1, d1, acc, fam)                                  \
	{ .name = #nm, .nr = __NR_##nm, .kind = RULES_KIND_PATH,            \
	  .family = RULES_FAM_##fam,                                         \
	  .access = (acc), .path_arg = { (p0), (p1) },                       \
	  .dirfd_arg = { (d0), (d1) }, .addr_arg = -1, .addrlen_arg = -1 }

/* The syscalls sysgate mediates by pointer argument. */
static const struct rules_syscall_info known[] = {
	PATH1(open, 0, -1, ACC_OPEN, OPEN),
	PATH1(openat, 1, 0, ACC_OPEN, OPEN),
	PATH1(openat2, 1, 0, ACC_OPEN, OPEN),
	PATH1(creat, 0, -1, ACC_OPEN, OPEN),
	PATH1(mkdir, 0, -1, RULES_ACC_CREATE, CHANGE),
	PATH1(mkdirat, 1, 0, RULES_ACC_CREATE, CHANGE),
	PATH1(mknod, 0, -1, RULES_ACC_CREATE, CHANGE),
	PATH1(mknodat, 1, 0, RULES_ACC_CREATE, CHANGE),
	PATH1(rmdir, 0, -1, RULES_ACC_DELETE, CHANGE),
	PATH1(unlink, 0, -1, RULES_ACC_DELETE, CHANGE),
	PATH1(unlinkat, 1, 0, RULES_ACC_DELETE, CHANGE),
	PATH2(rename, 0, -1, 1, -1, ACC_RENAME, CHANGE),
	PATH2(renameat, 1, 0, 3, 2, ACC_RENAME, CHANGE),
	PATH2(renameat2, 1, 0, 3, 2, ACC_RENAME, CHANGE),
	PATH2(link, 0, -1, 1, -1, ACC_LINK, CHANGE),
	PATH2(linkat, 1, 0, 3, 2, ACC_LINK, CHANGE),
	/* The target of a symlink is not a path to check: only linkpath. */
	PATH1(symlink, 1, -1, RULES_ACC_CREATE, CHANGE),
	PATH1(symlinkat, 2, 1, RULES_ACC_CREATE, CHANGE),
	PATH1(chmod, 0, -1, RULES_ACC_WRITE, CHANGE),
	PATH1(fchmodat, 1, 0, RULES_ACC_WRITE, CHANGE),
	/* Security: fchmodat2 (6.6) is chmod too; unmediated it would be a
	 * way around every chmod rule. */
	PATH1(fchmodat2, 1, 0, RULES_ACC_WRITE, CHANGE),
	PATH1(chown, 0, -1, RULES_ACC_WRITE, CHANGE),
	PATH1(lchown, 0, -1, RULES_ACC_WRITE, CHANGE),
	PATH1(fchownat, 1, 0, RULES_ACC_WRITE, CHANGE),
	PATH1(truncate, 0, -1, RULES_ACC_WRITE, CHANGE),
	/* Changes of metadata by path. */
	PATH1(setxattr, 0, -1, RULES_ACC_WRITE, META),
	PATH1(lsetxattr, 0, -1, RULES_ACC_WRITE, META),
	PATH1(removexattr, 0, -1, RULES_ACC_WRITE, META),
	PATH1(lremovexattr, 0, -1, RULES_ACC_WRITE, META),
	PATH1(utime, 0, -1, RULES_ACC_WRITE, META),
	PATH1(utimes, 0, -1, RULES_ACC_WRITE, META),
	PATH1(futimesat, 1, 0, RULES_ACC_WRITE, META),
	PATH1(utimensat, 1, 0, RULES_ACC_WRITE, META),
	/*
	 * Security: changes of metadata through an open file (path -1, the
	 * fd in the dirfd's place: the file itself, as AT_EMPTY_PATH).  A
	 * file opened for reading only can still have its mode, owner and
	 * extended attributes changed by its owner (or root); unmediated,
	 * these would be a way around every write rule.  futimens is
	 * utimensat(fd, NULL, ...), above.
	 */
	PATH1(fchmod, -1, 0, RULES_ACC_WRITE, CHANGE),
	PATH1(fchown, -1, 0, RULES_ACC_WRITE, CHANGE),
	PATH1(fsetxattr, -1, 0, RULES_ACC_WRITE, META),
	PATH1(fremovexattr, -1, 0, RULES_ACC_WRITE, META),
	/* Calls that look at what a path names (@stat). */
	PATH1(stat, 0, -1, RULES_ACC_STAT, META),
	PATH1(lstat, 0, -1, RULES_ACC_STAT, META),
	PATH1(newfstatat, 1, 0, RULES_ACC_STAT, META),
	PATH1(statx, 1, 0, RULES_ACC_STAT, META),
	PATH1(access, 0, -1, RULES_ACC_STAT, META),
	PATH1(faccessat, 1, 0, RULES_ACC_STAT, META),
	PATH1(faccessat2, 1, 0, RULES_ACC_STAT, META),
	PATH1(readlink, 0, -1, RULES_ACC_STAT, META),
	PATH1(readlinkat, 1, 0, RULES_ACC_STAT, META),
	PATH1(chdir, 0, -1, RULES_ACC_STAT, META),
	PATH1(statfs, 0, -1, RULES_ACC_STAT, META),
	PATH1(getxattr, 0, -1, RULES_ACC_STAT, META),
	PATH1(lgetxattr, 0, -1, RULES_ACC_STAT, META),
	PATH1(listxattr, 0, -1, RULES_ACC_STAT, META),
	PATH1(llistxattr, 0, -1, RULES_ACC_STAT, META),
	PATH1(inotify_add_watch, 1, -1, RULES_ACC_STAT, META),
	PATH1(fanotify_mark, 4, 3, RULES_ACC_STAT, META),
	{ .name = "execve", .nr = __NR_execve, .kind = RULES_KIND_EXEC,
	  .family = RULES_FAM_EXEC, .access = RULES_ACC_EXEC, .path_arg = { 0, -1 },
	  .dirfd_arg = { -1, -1 }, .addr_arg = -1, .addrlen_arg = -1 },
	{ .name = "execveat", .nr = __NR_execveat, .kind = RULES_KIND_EXEC,
	  .family = RULES_FAM_EXEC, .access = RULES_ACC_EXEC, .path_arg = { 1, -1 },
	  .dirfd_arg = { 0, -1 }, .addr_arg = -1, .addrlen_arg = -1 },
	{ .name = "connect", .nr = __NR_connect, .kind = RULES_KIND_NET,
	  .family = RULES_FAM_NET, .access = 0, .path_arg = { -1, -1 }, .dirfd_arg = { -1, -1 },
	  .addr_arg = 1, .addrlen_arg = 2 },
	{ .name = "bind", .nr = __NR_bind, .kind = RULES_KIND_NET,
	  .family = RULES_FAM_NET, .access = 0, .path_arg = { -1, -1 }, .dirfd_arg = { -1, -1 },
	  .addr_arg = 1, .addrlen_arg = 2 },
	/* The filter notifies sendto only with a destination address. */
	{ .name = "sendto", .nr = __NR_sendto, .kind = RULES_KIND_NET,
	  .family = RULES_FAM_NET, .access = 0, .path_arg = { -1, -1 }, .dirfd_arg = { -1, -1 },
	  .addr_arg = 4, .addrlen_arg = 5 },
	/* The address is msg_name inside struct msghdr. */
	{ .name = "sendmsg", .nr = __NR_sendmsg, .kind = RULES_KIND_NET,
	  .family = RULES_FAM_NET, .access = 0, .path_arg = { -1, -1 }, .dirfd_arg = { -1, -1 },
	  .addr_arg = -1, .addrlen_arg = -1 },
	{ .name = "sendmmsg", .nr = __NR_sendmmsg, .kind = RULES_KIND_NET,
	  .family = RULES_FAM_NET, .access = 0, .path_arg = { -1, -1 }, .dirfd_arg = { -1, -1 },
	  .addr_arg = -1, .addrlen_arg = -1 },
};

/*
 * Argument widths as the kernel reads them (SYSCALL_DEFINE types): 'i' an
 * int-sized value (low 32 bits count), 'l' a pointer, size or long (64
 * bits), '?' not known.  Arguments past the string, and syscalls not
 * listed, are unknown; see consts.c for what that means for a condition.
 */
static const struct {
	const char *name;
	const char *types;
} widths[] = {
	{ "read", "ill" },	     { "write", "ill" },
	{ "open", "lii" },	     { "close", "i" },
	{ "lseek", "ili" },	     { "mmap", "lliiil" },
	{ "mprotect", "lll" },	     { "munmap", "ll" },
	{ "brk", "l" },		     { "ioctl", "iil" },
	{ "pread64", "illl" },	     { "pwrite64", "illl" },
	{ "madvise", "lli" },	     { "mremap", "lllll" },
	{ "dup", "i" },		     { "dup2", "ii" },
	{ "dup3", "iii" },	     { "pipe2", "li" },
	{ "socket", "iii" },	     { "socketpair", "iiil" },
	{ "connect", "ili" },	     { "bind", "ili" },
	{ "listen", "ii" },	     { "accept", "ill" },
	{ "accept4", "illi" },	     { "sendto", "illili" },
	{ "recvfrom", "illill" },    { "sendmsg", "ili" },
	{ "recvmsg", "ili" },	     { "shutdown", "ii" },
	{ "setsockopt", "iiili" },   { "getsockopt", "iiill" },
	/* clone: the kernel keeps the low 32 bits of the flags only. */
	{ "clone", "illll" },	     { "unshare", "l" },
	{ "setns", "ii" },	     { "execve", "lll" },
	{ "execveat", "illli" },     { "exit", "i" },
	{ "exit_group", "i" },	     { "wait4", "ilil" },
	{ "waitid", "iilil" },	     { "kill", "ii" },
	{ "tkill", "ii" },	     { "tgkill", "iii" },
	{ "fcntl", "iil" },	     { "ftruncate", "il" },
	{ "fchmod", "ii" },	     { "fchown", "iii" },
	{ "umask", "i" },	     { "setuid", "i" },
	{ "setgid", "i" },	     { "setreuid", "ii" },
	{ "setregid", "ii" },	     { "setresuid", "iii" },
	{ "setresgid", "iii" },      { "setfsuid", "i" },
	{ "setfsgid", "i" },	     { "setpgid", "ii" },
	{ "personality", "i" },      { "prctl", "illll" },
	{ "arch_prctl", "il" },      { "ptrace", "l?ll" },
	{ "openat", "ilii" },	     { "openat2", "illl" },
	{ "creat", "li" },	     { "mkdir", "li" },
	{ "mkdirat", "ili" },	     { "mknod", "lii" },
	{ "mknodat", "ilii" },	     { "rmdir", "l" },
	{ "unlink", "l" },	     { "unlinkat", "ili" },
	{ "rename", "ll" },	     { "renameat", "ilil" },
	{ "renameat2", "ilili" },    { "link", "ll" },
	{ "linkat", "ilili" },	     { "symlink", "ll" },
	{ "symlinkat", "lil" },      { "chmod", "li" },
	{ "fchmodat", "ili" },	     { "fchmodat2", "ilii" },
	{ "chown", "lii" },	     { "lchown", "lii" },
	{ "fchownat", "iliii" },     { "truncate", "ll" },
	{ "access", "li" },	     { "faccessat", "ili" },
	{ "faccessat2", "ilii" },    { "newfstatat", "illi" },
	{ "statx", "iliil" },	     { "readlinkat", "illi" },
	{ "mount", "lllll" },	     { "umount2", "li" },
	{ "bpf", "ili" },	     { "seccomp", "iil" },
	{ "memfd_create", "li" },    { "pidfd_open", "ii" },
	{ "pidfd_send_signal", "iili" }, { "pidfd_getfd", "iii" },
	{ "perf_event_open", "liiil" }, { "getrandom", "lli" },
	{ "pkey_mprotect", "llli" }, { "eventfd2", "ii" },
};

/* A row per number libseccomp or the list in gen-syscalls names; a hole
 * (no name) has no row and is refused (rules/filter.c). */
static struct rules_syscall_info table[RULES_NR_MAX];
static int table_max;
static const char *width_types[RULES_NR_MAX];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* The lowest number named name, or -1: a binary search of the numbers
 * sorted by (name, number). */
static int find_name(const char *name)
{
	size_t lo = 0, hi = rules_gen_n_names;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(rules_gen_names[rules_gen_by_name[mid]], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < rules_gen_n_names &&
	    strcmp(rules_gen_names[rules_gen_by_name[lo]], name) == 0)
		return rules_gen_by_name[lo];
	return -1;
}

static void table_build(void)
{
	size_t i;
	int nr;

	for (nr = 0; nr < RULES_NR_MAX; nr++) {
		if (!rules_gen_names[nr])
			continue;
		table[nr] = (struct rules_syscall_info){
			.name = rules_gen_names[nr],
			.nr = nr,
			.kind = RULES_KIND_SCALAR,
			.decide = RULES_DECIDE_KERNEL,
			.access = 0,
			.path_arg = { -1, -1 },
			.dirfd_arg = { -1, -1 },
			.addr_arg = -1,
			.addrlen_arg = -1,
		};
	}
	/* The hand-written entries win where libseccomp names the number
	 * (under the same name: the unit test checks it). */
	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (known[i].nr >= 0 && known[i].nr < RULES_NR_MAX &&
		    rules_gen_names[known[i].nr])
			table[known[i].nr] = known[i];
	for (nr = 0; nr < RULES_NR_MAX; nr++)
		if (table[nr].name) {
			table[nr].decide = rules_filter_class(nr, table[nr].kind);
			if (table[nr].decide == RULES_DECIDE_REFUSED)
				table[nr].family = RULES_FAM_REFUSED;
			table_max = nr;
		}
	for (i = 0; i < ARRAY_SIZE(widths); i++) {
		nr = find_name(widths[i].name);
		if (nr >= 0)
			width_types[nr] = widths[i].types;
	}
}

static void table_init(void)
{
	pthread_once(&table_once, table_build);
}

const struct rules_syscall_info *rules_syscall_by_nr(int nr)
{
	table_init();
	if (nr < 0 || nr >= RULES_NR_MAX || !table[nr].name)
		return NULL;
	return &table[nr];
}

int rules_syscall_max_nr(void)
{
	table_init();
	return table_max;
}

const char *rules_decide_name(enum rules_decide d)
{
	switch (d) {
	case RULES_DECIDE_KERNEL:
		return "kernel";
	case RULES_DECIDE_FLAGS:
		return "flags";
	case RULES_DECIDE_SUPERVISOR:
		return "supervisor";
	case RULES_DECIDE_REFUSED:
		return "refused";
	}
	return "refused";
}

const struct rules_syscall_info *rules_syscall_by_name(const char *name)
{
	int nr;

	if (!name)
		return NULL;
	table_init();
	nr = find_name(name);
	return nr < 0 ? NULL : &table[nr];
}

const char *rules_syscall_name(int nr)
{
	const struct rules_syscall_info *si = rules_syscall_by_nr(nr);

	return si ? si->name : NULL;
}

const char *rules_syscall_suggest(const char *name)
{
	const char *best = NULL;
	size_t best_dist = SIZE_MAX;
	int nr;

	table_init();
	for (nr = 0; nr < RULES_NR_MAX; nr++)
		if (table[nr].name)
			rules_suggest_consider(name, table[nr].name, &best,
					       &best_dist);
	return rules_suggest_result(name, best, best_dist);
}

enum rules_width rules_arg_width(int nr, unsigned arg)
{
	const char *t;

	table_init();
	if (nr < 0 || nr >= RULES_NR_MAX || arg >= RULES_NARGS)
		return RULES_WIDTH_UNKNOWN;
	t = width_types[nr];
	if (!t || arg >= strlen(t))
		return RULES_WIDTH_UNKNOWN;
	switch (t[arg]) {
	case 'i':
		return RULES_WIDTH_32;
	case 'l':
		return RULES_WIDTH_64;
	default:
		return RULES_WIDTH_UNKNOWN;
	}
}

/* Groups.  Names that rules/syscall-names.c does not have are skipped. */
static const char *const group_file[] = {
	"open", "openat", "openat2", "creat", "mkdir", "mkdirat", "mknod",
	"mknodat", "rmdir", "unlink", "unlinkat", "rename", "renameat",
	"renameat2", "link", "linkat", "symlink", "symlinkat", "chmod",
	"fchmodat", "fchmodat2", "chown", "lchown", "fchownat", "truncate",
	"setxattr", "lsetxattr", "removexattr", "lremovexattr", "utime",
	"utimes", "futimesat", "utimensat", "fchmod", "fchown", "fsetxattr",
	"fremovexattr", NULL
};
static const char *const group_stat[] = {
	"stat", "lstat", "newfstatat", "statx", "access", "faccessat",
	"faccessat2", "readlink", "readlinkat", "chdir", "statfs", "getxattr",
	"lgetxattr", "listxattr", "llistxattr", "inotify_add_watch",
	"fanotify_mark", NULL
};
static const char *const group_exec[] = { "execve", "execveat", NULL };
static const char *const group_network[] = {
	"connect", "bind", "sendto", "sendmsg", "sendmmsg", NULL
};
static const char *const group_process[] = {
	"fork", "vfork", "clone", "clone3", "kill", "tkill", "tgkill",
	"rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open",
	"pidfd_send_signal", "pidfd_getfd", "wait4", "waitid", "exit",
	"exit_group", "setsid", "setpgid", "prctl", NULL
};
static const char *const group_privileged[] = {
	"ptrace", "mount", "umount2", "pivot_root", "chroot", "bpf",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"init_module", "finit_module", "delete_module", "kexec_load",
	"kexec_file_load", "keyctl", "add_key", "request_key", "userfaultfd",
	"unshare", "setns", "swapon", "swapoff", "reboot", "perf_event_open",
	"process_vm_writev", "process_vm_readv", "open_by_handle_at",
	"name_to_handle_at", "iopl", "ioperm", "acct", "settimeofday",
	"clock_settime", "clock_adjtime", "adjtimex", "syslog", "quotactl",
	"fanotify_init", "move_mount", "fsopen", "fsmount", "fsconfig",
	"fspick", "open_tree", "mount_setattr", "open_tree_attr",
	"lookup_dcookie", "vhangup", "pidfd_getfd", "personality", "uselib",
	"nfsservctl", NULL
};

/*
 * Security: state the whole system shares, beyond the tree's files: the
 * host and domain names (of the UTS namespace), POSIX message queues
 * (which outlive the run), disk quotas, SysV IPC.  SysV calls on objects
 * the tree did not make are refused whatever the rules say
 * (supervisor/sysv.c); the group lets a policy refuse SysV IPC whole.
 */
static const char *const group_hostname[] = {
	"sethostname", "setdomainname", NULL
};
static const char *const group_mqueue[] = {
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
	"mq_notify", "mq_getsetattr", NULL
};
static const char *const group_quota[] = { "quotactl", "quotactl_fd", NULL };
static const char *const group_ipc[] = {
	"shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv",
	"msgctl", "semget", "semop", "semtimedop", "semctl", NULL
};

static const struct {
	const char *name;
	const char *const *members;
} groups[] = {
	{ "@file", group_file },
	{ "@stat", group_stat },
	{ "@exec", group_exec },
	{ "@network", group_network },
	{ "@process", group_process },
	{ "@privileged", group_privileged },
	{ "@hostname", group_hostname },
	{ "@mqueue", group_mqueue },
	{ "@quota", group_quota },
	{ "@ipc", group_ipc },
};

/* Each group's numbers, looked up once (a policy names the same groups
 * in rule after rule: by name, that was a fifth of its load). */
static uint64_t group_nrs[ARRAY_SIZE(groups)][RULES_NR_WORDS];
static pthread_once_t groups_once = PTHREAD_ONCE_INIT;

static void groups_build(void)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(groups); i++)
		for (j = 0; groups[i].members[j]; j++) {
			const struct rules_syscall_info *si =
				rules_syscall_by_name(groups[i].members[j]);

			if (si)
				rules_nr_add(group_nrs[i], si->nr);
		}
}

int rules_group_lookup(const char *name, uint64_t *set)
{
	size_t i, w;

	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		if (strcmp(groups[i].name, name) != 0)
			continue;
		pthread_once(&groups_once, groups_build);
		for (w = 0; w < RULES_NR_WORDS; w++)
			set[w] |= group_nrs[i][w];
		return 0;
	}
	return -ENOENT;
}

const char *rules_group_suggest(const char *name)
{
	const char *best = NULL;
	size_t best_dist = SIZE_MAX, i;

	for (i = 0; i < ARRAY_SIZE(groups); i++)
		rules_suggest_consider(name, groups[i].name, &best, &best_dist);
	return rules_suggest_result(name, best, best_dist);
}

/* errno names; the first name of a number is its canonical one. */
#define E(x) { #x, x }
static const struct {
	const char *name;
	int err;
} errnos[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK),
	E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG),
	E(ENOLCK), E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM),
	E(ECHRNG), E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG), E(EUNATCH),
	E(ENOCSI), E(EL2HLT), E(EBADE), E(EBADR), E(EXFULL), E(ENOANO),
	E(EBADRQC), E(EBADSLT), E(EBFONT), E(ENOSTR), E(ENODATA), E(ETIME),
	E(ENOSR), E(ENONET), E(ENOPKG), E(EREMOTE), E(ENOLINK), E(EADV),
	E(ESRMNT), E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT),
	E(EBADMSG), E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG),
	E(ELIBACC), E(ELIBBAD), E(ELIBSCN), E(ELIBMAX), E(ELIBEXEC),
	E(EILSEQ), E(ERESTART), E(ESTRPIPE), E(EUSERS), E(ENOTSOCK),
	E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT),
	E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EOPNOTSUPP),
	E(EPFNOSUPPORT), E(EAFNOSUPPORT), E(EADDRINUSE), E(EADDRNOTAVAIL),
	E(ENETDOWN), E(ENETUNREACH), E(ENETRESET), E(ECONNABORTED),
	E(ECONNRESET), E(ENOBUFS), E(EISCONN), E(ENOTCONN), E(ESHUTDOWN),
	E(ETOOMANYREFS), E(ETIMEDOUT), E(ECONNREFUSED), E(EHOSTDOWN),
	E(EHOSTUNREACH), E(EALREADY), E(EINPROGRESS), E(ESTALE), E(EUCLEAN),
	E(ENOTNAM), E(ENAVAIL), E(EISNAM), E(EREMOTEIO), E(EDQUOT),
	E(ENOMEDIUM), E(EMEDIUMTYPE), E(ECANCELED), E(ENOKEY),
	E(EKEYEXPIRED), E(EKEYREVOKED), E(EKEYREJECTED), E(EOWNERDEAD),
	E(ENOTRECOVERABLE), E(ERFKILL), E(EHWPOISON),
	/* Aliases. */
	E(EWOULDBLOCK), E(EDEADLOCK), E(ENOTSUP),
};
#undef E

const char *rules_errno_name(int err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errnos); i++)
		if (errnos[i].err == err)
			return errnos[i].name;
	return NULL;
}

int rules_errno_by_name(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < ARRAY_SIZE(errnos); i++)
		if (strcmp(errnos[i].name, name) == 0)
			return errnos[i].err;
	return -1;
}

const char *rules_errno_suggest(const char *name)
{
	const char *best = NULL;
	size_t best_dist = SIZE_MAX, i;

	for (i = 0; i < ARRAY_SIZE(errnos); i++)
		rules_suggest_consider(name, errnos[i].name, &best, &best_dist);
	return rules_suggest_result(name, best, best_dist);
}
