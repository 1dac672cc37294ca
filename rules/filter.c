/* SPDX-License-Identifier: MIT */
/*
 * rules/filter.c: which mechanism decides each syscall under a policy, and
 * the seccomp BPF programs (the policy filter and the fixed guard filter),
 * built with libseccomp and exported as raw sock_filter arrays.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "rules/internal.h"

/* The decision plan for one syscall. */
struct plan {
	enum rules_mech mech;
	/* KERNEL: the action when no rule condition selects another. */
	enum rules_action action;
	int err;
	/* KERNEL with a conditional rule: the rule (its action applies when
	 * its conditions hold, plan.action otherwise). */
	const struct rules_rule *cond_rule;
};

static bool is_unconditional(const struct rules_rule *r)
{
	return rules_rule_is_scalar(r) && r->n_conds == 0;
}

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

/* Translate one condition for syscall nr into a libseccomp comparison;
 * false when one comparison cannot express it exactly. */
static bool cond_to_scmp(const struct rules_argcond *c, int nr,
			 struct scmp_arg_cmp *out)
{
	uint64_t v = c->value, m = c->mask;

	*out = (struct scmp_arg_cmp){ .arg = c->arg };
	switch (rules_arg_width(nr, c->arg)) {
	case RULES_WIDTH_UNKNOWN:
		return false;
	case RULES_WIDTH_32:
		/* libseccomp 2.5 has no 32-bit compare (SCMP_A0_32 only
		 * truncates the datum): mask the low half instead. */
		v &= UINT32_MAX;
		m &= UINT32_MAX;
		switch (c->op) {
		case RULES_OP_EQ:
			out->op = SCMP_CMP_MASKED_EQ;
			out->datum_a = UINT32_MAX;
			out->datum_b = v;
			return true;
		case RULES_OP_MASKED_EQ:
			out->op = SCMP_CMP_MASKED_EQ;
			out->datum_a = m;
			out->datum_b = v;
			return true;
		case RULES_OP_ANY:
			if (popcount64(m) != 1)
				return false;
			out->op = SCMP_CMP_MASKED_EQ;
			out->datum_a = m;
			out->datum_b = m;
			return true;
		case RULES_OP_NE:
		case RULES_OP_LT:
		case RULES_OP_LE:
		case RULES_OP_GT:
		case RULES_OP_GE:
			return false;
		}
		return false;
	case RULES_WIDTH_64:
		out->datum_a = v;
		switch (c->op) {
		case RULES_OP_EQ:
			out->op = SCMP_CMP_EQ;
			return true;
		case RULES_OP_NE:
			out->op = SCMP_CMP_NE;
			return true;
		case RULES_OP_LT:
			out->op = SCMP_CMP_LT;
			return true;
		case RULES_OP_LE:
			out->op = SCMP_CMP_LE;
			return true;
		case RULES_OP_GT:
			out->op = SCMP_CMP_GT;
			return true;
		case RULES_OP_GE:
			out->op = SCMP_CMP_GE;
			return true;
		case RULES_OP_MASKED_EQ:
			out->op = SCMP_CMP_MASKED_EQ;
			out->datum_a = m;
			out->datum_b = v;
			return true;
		case RULES_OP_ANY:
			if (popcount64(m) != 1)
				return false;
			out->op = SCMP_CMP_MASKED_EQ;
			out->datum_a = m;
			out->datum_b = m;
			return true;
		}
		return false;
	}
	return false;
}

static bool rule_expressible(const struct rules_rule *r, int nr)
{
	struct scmp_arg_cmp cmp;
	size_t i;

	if (!rules_rule_is_scalar(r))
		return false;
	for (i = 0; i < r->n_conds; i++)
		if (!cond_to_scmp(&r->conds[i], nr, &cmp))
			return false;
	return true;
}

static bool default_records(const struct rules_set *rs)
{
	return rules_level_records(rs->audit, rs->def, true);
}

/*
 * Security: calls the supervisor always sees, whatever the policy: those
 * that send signals or move a process between process groups, so that
 * their targets can be kept inside the traced tree, and those that change
 * the working directory or the umask, so that the supervisor may keep each
 * task's (supervisor/resolve.c), and sched_setaffinity and
 * sched_getaffinity, so that the supervisor's own binding of a task to a
 * CPU (supervisor/cpubind.c) is put back before a mask is read or set:
 * it neither shows nor undoes a change.  process_madvise and
 * process_mrelease name their target by pidfd, as pidfd_send_signal does:
 * no filter can tell the caller's; so does pidfd_getfd, which takes a
 * file of the process a pidfd names (of the same user outside the tree:
 * the user's shell, an agent holding keys).
 */
static const int always_notified[] = {
	__NR_kill, __NR_tkill, __NR_tgkill, __NR_rt_sigqueueinfo,
	__NR_rt_tgsigqueueinfo, __NR_pidfd_send_signal, __NR_setpgid,
	__NR_chdir, __NR_fchdir, __NR_umask, __NR_sched_setaffinity,
	__NR_sched_getaffinity, __NR_process_madvise, __NR_process_mrelease,
	__NR_pidfd_getfd,
};

/*
 * Security: SysV IPC, always seen: the supervisor makes the tree's
 * objects (the get calls) and keeps their ids, and refuses the calls that
 * act on an object the tree did not make (supervisor/sysv.c).
 */
static const int sysv_calls[] = {
	__NR_shmget, __NR_shmat, __NR_shmctl, __NR_msgget, __NR_msgsnd,
	__NR_msgrcv, __NR_msgctl, __NR_semget, __NR_semop, __NR_semtimedop,
	__NR_semctl,
};

/*
 * Security: calls that act on another process named by pid (0: the caller
 * itself), or by "which" and "who" (setpriority, ioprio_set: a process, a
 * process group or every process of a user).  prlimit64 can kill one
 * (RLIMIT_CPU of 0), the others change how it is scheduled, or where its
 * memory lies (migrate_pages, move_pages: NUMA nodes), or compare its
 * files and memory with another's (kcmp: both pids are checked).  Aimed at
 * anything but the caller, they reach the supervisor, which keeps them
 * inside the traced tree as it does signals; aimed at the caller they
 * stay in the kernel (where no rule names them).
 */
static const int pid_calls[] = {
	__NR_prlimit64, __NR_sched_setscheduler, __NR_sched_setparam,
	__NR_sched_setattr, __NR_migrate_pages, __NR_move_pages, __NR_kcmp,
	/* Security: the memory of another process of the same user, read
	 * or written (its secrets, or code injected into it). */
	__NR_process_vm_readv, __NR_process_vm_writev,
};

/*
 * Security: ptrace names its target in arg1.  Every task of the tree is
 * traced by the supervisor already, so the tree can trace nothing of its
 * own; what it could attach to is a process outside, of the same user (the
 * user's shell, an agent holding keys): notified wherever the policy may
 * allow it, and kept inside the tree.
 */
static const int tree_only_calls[] = { __NR_ptrace };
static const struct {
	int nr;
	unsigned user;		/* the "which" that means every process of a
				 * user */
	unsigned self[2];	/* the "which" values that, with who 0, mean
				 * the caller or its own process group */
} who_calls[] = {
	{ __NR_setpriority, 2 /* PRIO_USER */, { 0, 1 } },
	{ __NR_ioprio_set, 3 /* IOPRIO_WHO_USER */, { 1, 2 } },
};

static bool is_who_call(int nr, size_t *k)
{
	for (size_t i = 0; i < ARRAY_SIZE(who_calls); i++)
		if (who_calls[i].nr == nr) {
			*k = i;
			return true;
		}
	return false;
}

/* Always notified too: they change the caller's credentials. */
static const int creds_calls[] = {
	__NR_setuid, __NR_setgid, __NR_setreuid, __NR_setregid,
	__NR_setresuid, __NR_setresgid, __NR_setfsuid, __NR_setfsgid,
	__NR_setgroups, __NR_capset,
};

/* Notified when the policy may allow them: they move roots. */
static const int root_calls[] = {
	__NR_chroot, __NR_pivot_root, __NR_setns, __NR_unshare,
};

static bool nr_in(const int *list, size_t n, int nr)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == nr)
			return true;
	return false;
}

static void nr_add_all(uint64_t *set, const int *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rules_nr_add(set, list[i]);
}

bool rules_changes_creds(int nr)
{
	return nr_in(creds_calls, ARRAY_SIZE(creds_calls), nr);
}

bool rules_moves_root(int nr)
{
	return nr_in(root_calls, ARRAY_SIZE(root_calls), nr);
}

bool rules_always_notified(int nr)
{
	return rules_changes_creds(nr) ||
	       nr_in(always_notified, ARRAY_SIZE(always_notified), nr) ||
	       nr_in(sysv_calls, ARRAY_SIZE(sysv_calls), nr);
}

bool rules_never_allows(const struct rules_set *rs, int nr)
{
	/* Permissive: every refusal of the policy is let through. */
	if (rs->permissive)
		return false;
	for (size_t i = 0; i < rs->n_rules; i++) {
		const struct rules_rule *r = &rs->rules[i];

		if (!rules_nr_has(r->nrs, nr))
			continue;
		if (r->action != RULES_DENY && r->action != RULES_KILL)
			return false;
		if (is_unconditional(r))
			return true;
	}
	return rs->def == RULES_DENY || rs->def == RULES_KILL;
}

static bool is_target_call(int nr)
{
	size_t k;

	return nr_in(pid_calls, ARRAY_SIZE(pid_calls), nr) ||
	       is_who_call(nr, &k);
}

/*
 * Security: calls refused under every policy by the supervisor, which
 * records each attempt.  file_getattr and file_setattr (6.17) change a
 * file's attributes by path (immutable, append-only, project id) as the
 * attribute ioctls do through an fd; sysgate does not carry them out, and
 * C libraries and chattr use the ioctls, which are mediated.
 */
static const int refused_calls[] = { 468 /* file_getattr */,
				     469 /* file_setattr */ };

/*
 * Security: the calls of rules_unmediated_refused(), by family.  Each
 * does the work of calls the supervisor mediates without making them:
 * no path or address rule sees what they do.
 */
static const int um_io_uring[] = { __NR_io_uring_setup, __NR_io_uring_enter,
				   __NR_io_uring_register, -1 };
static const int um_mount[] = {
	__NR_mount, __NR_umount2, __NR_move_mount, __NR_open_tree,
	467 /* open_tree_attr */, __NR_fsopen, __NR_fsmount, __NR_fsconfig,
	__NR_fspick, __NR_mount_setattr, -1
};
static const int um_handles[] = { __NR_open_by_handle_at,
				  __NR_name_to_handle_at, -1 };
static const struct {
	const char *name;
	unsigned bit;
	const int *nrs;
} unmediated[] = {
	{ "io_uring", 1u << 0, um_io_uring },
	{ "mount", 1u << 1, um_mount },
	{ "handles", 1u << 2, um_handles },
};
const char *const rules_unmediated_names[] = { "io_uring", "mount",
					       "handles", NULL };

unsigned rules_unmediated_by_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(unmediated); i++)
		if (!strcmp(unmediated[i].name, name))
			return unmediated[i].bit;
	return 0;
}

static int unmediated_index(int nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(unmediated); i++)
		for (const int *p = unmediated[i].nrs; *p >= 0; p++)
			if (*p == nr)
				return (int)i;
	return -1;
}

const char *rules_unmediated_family(int nr)
{
	int i = unmediated_index(nr);

	return i < 0 ? NULL : unmediated[i].name;
}

/* Does rule r name a call the supervisor mediates by its objects (a
 * path, an exec, an address)? */
static bool names_mediated_call(const struct rules_rule *r)
{
	for (int nr = 0; nr < RULES_NR_MAX; nr++) {
		const struct rules_syscall_info *si;

		if (!rules_nr_has(r->nrs, nr))
			continue;
		si = rules_syscall_by_nr(nr);
		if (si && si->kind != RULES_KIND_SCALAR)
			return true;
	}
	return false;
}

bool rules_has_object_rules(const struct rules_set *rs)
{
	for (size_t i = 0; rs && i < rs->n_rules; i++)
		if (!rules_rule_is_scalar(&rs->rules[i]) ||
		    names_mediated_call(&rs->rules[i]))
			return true;
	return false;
}

bool rules_unmediated_refused(const struct rules_set *rs, int nr)
{
	int i = unmediated_index(nr);

	if (i < 0 || !rs || (rs->unmediated & unmediated[i].bit))
		return false;
	return rules_has_object_rules(rs);
}

size_t rules_unmediated_text(const struct rules_set *rs, char *buf,
			     size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; rs && i < ARRAY_SIZE(unmediated); i++) {
		int w;

		if (!(rs->unmediated & unmediated[i].bit))
			continue;
		w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
			     "%s%s", n ? ", " : "", unmediated[i].name);
		if (w > 0)
			n += (size_t)w;
	}
	return n;
}

static bool nr_in(const int *list, size_t n, int nr);
static bool is_xattrat(int nr);
static bool is_target_call(int nr);

enum rules_decide rules_filter_class(int nr, enum rules_kind kind)
{
	if (nr_in(refused_calls, ARRAY_SIZE(refused_calls), nr) ||
	    nr == __NR_clone3 || is_xattrat(nr))
		return RULES_DECIDE_REFUSED;
	if (kind != RULES_KIND_SCALAR || rules_always_notified(nr) ||
	    rules_moves_root(nr) ||
	    nr_in(tree_only_calls, ARRAY_SIZE(tree_only_calls), nr))
		return RULES_DECIDE_SUPERVISOR;
	if (nr == __NR_clone || nr == __NR_fcntl || nr == __NR_ioctl ||
	    is_target_call(nr) || nr == __NR_socket ||
	    nr == __NR_setsockopt || nr == __NR_listen ||
	    nr == __NR_accept || nr == __NR_accept4 ||
	    nr == __NR_setrlimit || nr == __NR_prlimit64)
		return RULES_DECIDE_FLAGS;
	return RULES_DECIDE_KERNEL;
}

static void plan_policy(const struct rules_set *rs, int nr, struct plan *p)
{
	const struct rules_rule *first = NULL;
	bool notify = false, record = false, stopped = false;
	size_t i, reached = 0;

	*p = (struct plan){ .mech = RULES_MECH_KERNEL, .action = rs->def,
			    .err = rs->def_err };
	/* Security: the closed world.  A number without a row (newer than
	 * the table, or a hole) and a call refused whatever the policy
	 * reach the supervisor, which refuses them with ENOSYS and records
	 * the attempt, under every policy, default = allow included. */
	if (!rules_syscall_by_nr(nr) ||
	    nr_in(refused_calls, ARRAY_SIZE(refused_calls), nr) ||
	    rules_unmediated_refused(rs, nr)) {
		p->mech = RULES_MECH_NOTIFY;
		return;
	}
	if (rules_always_notified(nr)) {
		p->mech = RULES_MECH_NOTIFY;
		return;
	}
	/* Security: a root move the policy may allow is seen, so that no
	 * root or cwd the supervisor keeps outlives it (resolve.c); one it
	 * never allows is decided as the policy says. */
	if ((rules_moves_root(nr) ||
	     nr_in(tree_only_calls, ARRAY_SIZE(tree_only_calls), nr)) &&
	    !rules_never_allows(rs, nr)) {
		p->mech = RULES_MECH_NOTIFY;
		return;
	}
	/* A policy that names fcntl or ioctl (or a call of pid_calls and
	 * who_calls) has all of them decided by the supervisor, which also
	 * checks the owner commands (the target). */
	if (nr == __NR_fcntl || nr == __NR_ioctl || is_target_call(nr)) {
		for (size_t k = 0; k < rs->n_rules; k++)
			if (rules_nr_has(rs->rules[k].nrs, nr)) {
				p->mech = RULES_MECH_NOTIFY;
				return;
			}
	}
	/* [limits] processes: the supervisor counts and refuses forks. */
	if (rs->limit_set[RULES_LIMIT_PROCESSES] &&
	    (nr == __NR_fork || nr == __NR_vfork || nr == __NR_clone)) {
		p->mech = RULES_MECH_NOTIFY;
		return;
	}
	for (i = 0; i < rs->n_rules; i++) {
		const struct rules_rule *r = &rs->rules[i];

		if (!rules_nr_has(r->nrs, nr))
			continue;
		reached++;
		if (!first)
			first = r;
		if (!rules_rule_is_scalar(r) || r->action == RULES_ASK)
			notify = true;
		if (rules_level_records(rs->audit, r->action, r->audit))
			record = true;
		if (is_unconditional(r)) {
			stopped = true;
			break;
		}
	}
	if (reached == 0) {
		if (rs->def != RULES_ALLOW && default_records(rs))
			p->mech = RULES_MECH_NOTIFY;
		return;
	}
	if (!stopped && default_records(rs))
		record = true;
	if (notify || record || reached != 1) {
		p->mech = RULES_MECH_NOTIFY;
		return;
	}
	if (stopped) {
		p->action = first->action;
		p->err = first->err;
		return;
	}
	if (!rule_expressible(first, nr)) {
		p->mech = RULES_MECH_NOTIFY;
		return;
	}
	p->cond_rule = first;
}

/* Does the filter refuse (errno or kill) some call under plan p? */
static bool plan_refuses(const struct plan *p)
{
	const struct rules_rule *r = p->cond_rule;

	return p->mech == RULES_MECH_KERNEL &&
	       (p->action == RULES_DENY || p->action == RULES_KILL ||
		(r && (r->action == RULES_DENY || r->action == RULES_KILL)));
}

/*
 * Permissive mode: a call the kernel would refuse under the policy reaches
 * the supervisor instead, which lets it through and records what the
 * policy would have done.  The whole syscall is notified (no conditional
 * rule is left in the filter for it), so no libseccomp rule of another
 * action can drop a condition.  The fixed guards (rules_build_guard_filter()
 * and their copies in this filter) are added apart from the plan and stay.
 */
static void plan_permissive(const struct rules_set *rs, struct plan *p)
{
	if (!rs->permissive || !plan_refuses(p))
		return;
	p->mech = RULES_MECH_NOTIFY;
	p->cond_rule = NULL;
	p->action = RULES_ALLOW;
}

static void plan_for(const struct rules_set *rs, int nr, struct plan *p)
{
	plan_policy(rs, nr, p);
	plan_permissive(rs, p);
}

static bool bind_allowed_in_kernel(const struct rules_set *rs);

/* listen, accept, accept4 that the filter sends to the supervisor though
 * their plan is the kernel's (add_net_scalar). */
static bool listen_notified(const struct rules_set *rs, int nr,
			    const struct plan *p)
{
	if (nr != __NR_listen && nr != __NR_accept && nr != __NR_accept4)
		return false;
	if (p->mech != RULES_MECH_KERNEL)
		return false;
	if (!p->cond_rule &&
	    (p->action == RULES_DENY || p->action == RULES_KILL))
		return false;
	return !bind_allowed_in_kernel(rs);
}

enum rules_mech rules_mechanism(const struct rules_set *rs, int nr,
				enum rules_action *kernel_action)
{
	struct plan p;

	if (!rs)
		return RULES_MECH_NOTIFY;
	plan_for(rs, nr, &p);
	if (listen_notified(rs, nr, &p))
		p.mech = RULES_MECH_NOTIFY;
	if (p.mech == RULES_MECH_KERNEL && kernel_action)
		*kernel_action = p.action;
	return p.mech;
}

static uint32_t scmp_action(enum rules_action a, int err)
{
	switch (a) {
	case RULES_ALLOW:
		return SCMP_ACT_ALLOW;
	case RULES_DENY:
		return SCMP_ACT_ERRNO((uint32_t)err);
	case RULES_KILL:
		return SCMP_ACT_KILL_PROCESS;
	case RULES_REWRITE:
	case RULES_ASK:
		break;
	}
	/* ask (and the reserved rewrite): the supervisor decides. */
	return SCMP_ACT_NOTIFY;
}

static int scmp_rc(int rc)
{
	if (rc == 0)
		return 0;
	return rc == -ENOMEM ? -ENOMEM : -EINVAL;
}

/* Add a rule unless it would repeat the filter's default action (which
 * libseccomp refuses with -EACCES). */
static int add_rule(scmp_filter_ctx ctx, uint32_t def_act, uint32_t act,
		    int nr, unsigned n, const struct scmp_arg_cmp *cmps)
{
	if (act == def_act)
		return 0;
	return scmp_rc(seccomp_rule_add_exact_array(ctx, act, nr, n, cmps));
}

static scmp_filter_ctx new_ctx(uint32_t def_act)
{
	scmp_filter_ctx ctx = seccomp_init(def_act);

	if (!ctx)
		return NULL;
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			     SCMP_ACT_KILL_PROCESS) < 0) {
		seccomp_release(ctx);
		return NULL;
	}
	/* A binary tree of syscall numbers; optional, the filter is the same
	 * without it, only slower. */
	(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	return ctx;
}

/*
 * Export the program.  libseccomp puts the x86_64 arch check first and,
 * on SCMP_ARCH_X86_64, sends every number >= 0x40000000 (x32) except -1 to
 * the bad-arch action, KILL_PROCESS here (checked by the unit test).
 */
static int export_ctx(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
	AUTO_CLOSE int fd = -1;
	AUTO_FREE struct sock_filter *insns = NULL;
	off_t size;
	size_t done = 0;
	int rc;

	fd = memfd_create("sysgate-bpf", MFD_CLOEXEC);
	if (fd < 0)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0)
		return scmp_rc(rc);
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		return -EINVAL;
	insns = malloc((size_t)size);
	if (!insns)
		return -ENOMEM;
	while (done < (size_t)size) {
		ssize_t n = TEMP_FAILURE_RETRY_INT(
			pread(fd, (char *)insns + done, (size_t)size - done,
			      (off_t)done));

		if (n <= 0)
			return -EINVAL;
		done += (size_t)n;
	}
	prog->len = (unsigned short)((size_t)size / sizeof(struct sock_filter));
	prog->filter = steal_ptr(&insns);
	return 0;
}

/*
 * Security: the *xattrat calls (Linux 6.13) name a path the way setxattr
 * does, but libseccomp 2.5.4 does not know them and the supervisor does not
 * carry them out: ENOSYS, and C libraries use the classic calls, which are
 * mediated.
 */
static const int xattrat[] = { 463, 464, 465, 466 };

/*
 * Security: TIOCSTI pushes characters into the terminal's input and
 * TIOCLINUX can paste a selection into it: the user's shell would run them
 * once sysgate exits.  FIFREEZE (CAP_SYS_ADMIN, which a root tree without
 * --user keeps) stops every write to a whole file system until FITHAW:
 * the audit trail's, and with them the supervisor; FITHAW would thaw one
 * the host froze (for a snapshot).
 */
static const unsigned guard_ioctls[] = { 0x5412 /* TIOCSTI */,
					 0x541C /* TIOCLINUX */,
					 FIFREEZE, FITHAW };

static struct scmp_arg_cmp ioctl_cmd(unsigned cmd)
{
	return (struct scmp_arg_cmp){
		.arg = 1, .op = SCMP_CMP_MASKED_EQ,
		.datum_a = 0xffffffffu, .datum_b = cmd,
	};
}

/* The fixed guards, on a context whose default is def_act. */
static int add_guards(scmp_filter_ctx ctx, uint32_t def_act)
{
	struct scmp_arg_cmp untraced = {
		.arg = 0, .op = SCMP_CMP_MASKED_EQ,
		.datum_a = CLONE_UNTRACED, .datum_b = CLONE_UNTRACED,
	};
	int rc;

	rc = add_rule(ctx, def_act, SCMP_ACT_ERRNO(ENOSYS), __NR_clone3, 0,
		      NULL);
	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(xattrat); i++)
		rc = add_rule(ctx, def_act, SCMP_ACT_ERRNO(ENOSYS), xattrat[i],
			      0, NULL);
	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(guard_ioctls); i++) {
		struct scmp_arg_cmp cmd = ioctl_cmd(guard_ioctls[i]);

		rc = add_rule(ctx, def_act, SCMP_ACT_ERRNO(EPERM), __NR_ioctl, 1,
			      &cmd);
	}
	if (rc < 0)
		return rc;
	return add_rule(ctx, def_act, SCMP_ACT_ERRNO(EPERM), __NR_clone, 1,
			&untraced);
}

int rules_build_guard_filter(struct sock_fprog *prog)
{
	scmp_filter_ctx ctx;
	int rc;

	if (!prog)
		return -EINVAL;
	ctx = new_ctx(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	rc = add_guards(ctx, SCMP_ACT_ALLOW);
	if (rc == 0)
		rc = export_ctx(ctx, prog);
	seccomp_release(ctx);
	return rc;
}

/* The filter action of a plan when no rule condition applies. */
static uint32_t plan_action(const struct plan *p)
{
	if (p->mech != RULES_MECH_KERNEL)
		return SCMP_ACT_NOTIFY;
	return scmp_action(p->action, p->err);
}

static int add_cond_rule(scmp_filter_ctx ctx, uint32_t def_act, int nr,
			 const struct rules_rule *r, bool guard_clone)
{
	struct scmp_arg_cmp cmps[RULES_NARGS + 1];
	unsigned n = 0;
	size_t i;

	for (i = 0; i < r->n_conds; i++) {
		if (!cond_to_scmp(&r->conds[i], nr, &cmps[n]))
			return -EINVAL;
		n++;
	}
	if (guard_clone) {
		cmps[n++] = (struct scmp_arg_cmp){
			.arg = 0, .op = SCMP_CMP_MASKED_EQ,
			.datum_a = CLONE_UNTRACED, .datum_b = 0,
		};
	}
	return add_rule(ctx, def_act, scmp_action(r->action, r->err), nr, n,
			cmps);
}

static bool cond_uses_arg0(const struct rules_rule *r)
{
	size_t i;

	for (i = 0; i < r->n_conds; i++)
		if (r->conds[i].arg == 0)
			return true;
	return false;
}

/* A conditional clone plan into which the CLONE_UNTRACED guard can be
 * folded: no kill, and no condition of its own on arg0. */
static bool clone_guard_fits(const struct plan *p)
{
	return !cond_uses_arg0(p->cond_rule) &&
	       p->cond_rule->action != RULES_KILL && p->action != RULES_KILL;
}

/*
 * The kernel's order between stacked filters (seccomp_run_filters()): the
 * newest filter's action stands unless an older one returns a strictly
 * stronger action (kill, then trap, errno, user-notif, trace, log, allow).
 * True when the guard filter's a would replace the policy filter's b.
 */
static bool outranks(uint32_t a, uint32_t b)
{
	return (int32_t)(a & SECCOMP_RET_ACTION_FULL) <
	       (int32_t)(b & SECCOMP_RET_ACTION_FULL);
}

static bool is_xattrat(int nr)
{
	return nr_in(xattrat, ARRAY_SIZE(xattrat), nr);
}

bool rules_filter_has_guards(const struct rules_set *rs)
{
	struct plan p;

	if (!rs)
		return false;
	plan_for(rs, __NR_clone, &p);
	if (p.mech == RULES_MECH_KERNEL && p.cond_rule && !clone_guard_fits(&p))
		return false;
	plan_for(rs, __NR_ioctl, &p);
	if (p.mech != RULES_MECH_KERNEL || p.cond_rule)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(xattrat); i++) {
		plan_for(rs, xattrat[i], &p);
		if (p.mech == RULES_MECH_KERNEL && p.cond_rule)
			return false;
	}
	return true;
}

/*
 * The guard filter's ioctl commands folded into the policy filter, for an
 * ioctl the kernel allows (beside the owner commands; all of them rules on
 * the command, the filter's default allowing the rest).  Where the policy
 * denies or kills ioctl, that outranks or equals the guard's EPERM by
 * itself.  Not for an ioctl that reaches the supervisor: libseccomp drops
 * a syscall's argument rules once it has one without arguments (which the
 * notification would need), so the guard filter does it then
 * (rules_filter_has_guards()).
 */
static int add_ioctl_guard(scmp_filter_ctx ctx, uint32_t def_act)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(guard_ioctls); i++) {
		struct scmp_arg_cmp cmd = ioctl_cmd(guard_ioctls[i]);

		rc = add_rule(ctx, def_act, SCMP_ACT_ERRNO(EPERM), __NR_ioctl, 1,
			      &cmd);
	}
	return rc;
}

/* clone: the policy's decision for calls without CLONE_UNTRACED, EPERM for
 * calls with it, where that can be said in one filter; where not (a kill,
 * or the policy's own conditions on arg0), only the guard filter guards. */
static int add_clone(scmp_filter_ctx ctx, uint32_t def_act,
		     const struct plan *p)
{
	struct scmp_arg_cmp traced = {
		.arg = 0, .op = SCMP_CMP_MASKED_EQ,
		.datum_a = CLONE_UNTRACED, .datum_b = 0,
	};
	struct scmp_arg_cmp untraced = traced;
	uint32_t act = plan_action(p);
	int rc;

	untraced.datum_b = CLONE_UNTRACED;
	if (p->mech == RULES_MECH_KERNEL && p->cond_rule) {
		bool guard = clone_guard_fits(p);

		rc = add_cond_rule(ctx, def_act, __NR_clone, p->cond_rule,
				   guard);
		if (rc < 0 || !guard)
			return rc;
		rc = add_rule(ctx, def_act, act, __NR_clone, 1, &traced);
		if (rc < 0)
			return rc;
		return add_rule(ctx, def_act, SCMP_ACT_ERRNO(EPERM),
				__NR_clone, 1, &untraced);
	}
	if (act == SCMP_ACT_KILL_PROCESS)
		return add_rule(ctx, def_act, act, __NR_clone, 0, NULL);
	rc = add_rule(ctx, def_act, act, __NR_clone, 1, &traced);
	if (rc < 0)
		return rc;
	return add_rule(ctx, def_act, SCMP_ACT_ERRNO(EPERM), __NR_clone, 1,
			&untraced);
}

/*
 * Security: fcntl(F_SETOWN, F_SETOWN_EX) and ioctl(FIOSETOWN, SIOCSPGRP)
 * choose who gets SIGIO (or any signal, with F_SETSIG) when a file is
 * ready: a way to signal the supervisor or a process outside the tree.
 * Those commands always reach the supervisor; the rest of fcntl and
 * ioctl stays in the kernel.
 */
static const struct {
	int nr;
	unsigned cmd;
} owner_cmds[] = {
	{ __NR_fcntl, 8 /* F_SETOWN */ },
	{ __NR_fcntl, 15 /* F_SETOWN_EX */ },
	{ __NR_ioctl, 0x8901 /* FIOSETOWN */ },
	{ __NR_ioctl, 0x8902 /* SIOCSPGRP */ },
};

/*
 * Security: ioctl commands that change the attributes of the file an fd
 * names (chattr's flags: immutable, append-only, ...; the XFS-style
 * attributes; the inode generation).  The kernel takes them on a file
 * opened for reading only, from its owner (or root), as it takes fchmod:
 * under a policy that mediates fchmod they reach the supervisor, which
 * decides each as an fchmod of that file (supervisor/h-fileattr.c).  The
 * 32-bit forms are listed too: a file system may take them natively.
 * Enabling fs-verity makes a file the caller may write read-only for
 * good; an encryption policy is set on an empty directory it owns.
 */
static const struct {
	unsigned cmd;
	const char *name;
} fileattr_cmds[] = {
	{ FS_IOC_SETFLAGS, "FS_IOC_SETFLAGS" },
	{ FS_IOC32_SETFLAGS, "FS_IOC32_SETFLAGS" },
	{ FS_IOC_FSSETXATTR, "FS_IOC_FSSETXATTR" },
	{ FS_IOC_SETVERSION, "FS_IOC_SETVERSION" },
	{ FS_IOC32_SETVERSION, "FS_IOC32_SETVERSION" },
	{ FS_IOC_ENABLE_VERITY, "FS_IOC_ENABLE_VERITY" },
	{ FS_IOC_SET_ENCRYPTION_POLICY, "FS_IOC_SET_ENCRYPTION_POLICY" },
};

const char *rules_fileattr_cmd(uint64_t cmd)
{
	for (size_t i = 0; i < ARRAY_SIZE(fileattr_cmds); i++)
		if ((uint32_t)cmd == fileattr_cmds[i].cmd)
			return fileattr_cmds[i].name;
	return NULL;
}

static int add_owner_rules(scmp_filter_ctx ctx, uint32_t def_act, int nr,
			   bool fileattr)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(owner_cmds); i++) {
		struct scmp_arg_cmp cmd = {
			.arg = 1, .op = SCMP_CMP_MASKED_EQ,
			.datum_a = 0xffffffffu, .datum_b = owner_cmds[i].cmd,
		};

		if (owner_cmds[i].nr == nr)
			rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 1, &cmd);
	}
	/* F_SETLEASE: a lease is decided as a change of the file, as the
	 * attribute ioctls are (supervisor/h-fileattr.c). */
	if (rc == 0 && fileattr && nr == __NR_fcntl) {
		struct scmp_arg_cmp cmd = {
			.arg = 1, .op = SCMP_CMP_MASKED_EQ,
			.datum_a = 0xffffffffu, .datum_b = 1024 /* F_SETLEASE */,
		};

		rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 1, &cmd);
	}
	for (size_t i = 0; rc == 0 && fileattr && nr == __NR_ioctl &&
			   i < ARRAY_SIZE(fileattr_cmds); i++) {
		struct scmp_arg_cmp cmd = ioctl_cmd(fileattr_cmds[i].cmd);

		rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 1, &cmd);
	}
	return rc;
}

/*
 * pid_calls and who_calls decided in the kernel by the plan: as the plan
 * says for the caller itself, notified for any other target.  Each
 * comparison of "which" is on its low 32 bits, the int the kernel reads;
 * a pid or who of 0 in the low bits but not in the high ones is notified
 * (and found to be the caller).
 */
static int add_target_rules(scmp_filter_ctx ctx, uint32_t def_act, int nr,
			    const struct plan *p)
{
	struct scmp_arg_cmp c[2];
	size_t k;
	int rc;

	if (!is_who_call(nr, &k)) {
		c[0] = (struct scmp_arg_cmp){ .arg = 0, .op = SCMP_CMP_NE,
					      .datum_a = 0 };
		rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 1, c);
		c[0].op = SCMP_CMP_EQ;
		return rc < 0 ? rc : add_rule(ctx, def_act, plan_action(p), nr,
					      1, c);
	}
	c[0] = (struct scmp_arg_cmp){ .arg = 1, .op = SCMP_CMP_NE,
				      .datum_a = 0 };
	rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 1, c);
	c[0].op = SCMP_CMP_EQ;
	c[1] = (struct scmp_arg_cmp){ .arg = 0, .op = SCMP_CMP_MASKED_EQ,
				      .datum_a = 0xffffffffu,
				      .datum_b = who_calls[k].user };
	if (rc == 0)
		rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 2, c);
	for (size_t i = 0; rc == 0 && i < 2; i++) {
		c[1].datum_b = who_calls[k].self[i];
		rc = add_rule(ctx, def_act, plan_action(p), nr, 2, c);
	}
	/* Any other "which" with who 0: the kernel's EINVAL, or the
	 * filter's default. */
	return rc;
}

/*
 * Security: the tree's core size limit is 0, soft and hard (launch.c),
 * and it lacks CAP_SYS_RESOURCE, so the kernel refuses any raise; a call
 * that sets RLIMIT_CORE reaches the supervisor all the same, which
 * refuses and records a raise (the kernel's EPERM would leave no trace).
 */
static int add_core_limit_rule(scmp_filter_ctx ctx, uint32_t def_act, int nr)
{
	unsigned res_arg = nr == __NR_setrlimit ? 0 : 1;
	struct scmp_arg_cmp c[2] = {
		{ .arg = res_arg, .op = SCMP_CMP_MASKED_EQ,
		  .datum_a = 0xffffffffu, .datum_b = 4 /* RLIMIT_CORE */ },
		{ .arg = res_arg + 1, .op = SCMP_CMP_NE, .datum_a = 0 },
	};

	return add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 2, c);
}

static int add_net_scalar(const struct rules_set *rs, scmp_filter_ctx ctx,
			  uint32_t def_act, int nr, const struct plan *p);

static int add_syscall(const struct rules_set *rs, scmp_filter_ctx ctx,
		       uint32_t def_act, int nr, const struct plan *p)
{
	if (nr == __NR_setrlimit || nr == __NR_prlimit64) {
		int rc = add_core_limit_rule(ctx, def_act, nr);

		if (rc < 0)
			return rc;
	}
	if (nr == __NR_socket || nr == __NR_setsockopt || nr == __NR_listen ||
	    nr == __NR_accept || nr == __NR_accept4)
		return add_net_scalar(rs, ctx, def_act, nr, p);
	if (nr == __NR_clone)
		return add_clone(ctx, def_act, p);
	if ((nr == __NR_fcntl || nr == __NR_ioctl) &&
	    p->mech == RULES_MECH_KERNEL && !p->cond_rule &&
	    p->action == RULES_ALLOW) {
		struct plan fp;
		int rc;

		plan_for(rs, __NR_fchmod, &fp);
		rc = add_owner_rules(ctx, def_act, nr,
				     fp.mech == RULES_MECH_NOTIFY);

		return rc < 0 || nr != __NR_ioctl ? rc :
		       add_ioctl_guard(ctx, def_act);
	}
	if (is_xattrat(nr) && !(p->mech == RULES_MECH_KERNEL && p->cond_rule)) {
		/* The guard's ENOSYS, where it outranks the plan's action. */
		uint32_t act = plan_action(p);

		if (outranks(SCMP_ACT_ERRNO(ENOSYS), act))
			act = SCMP_ACT_ERRNO(ENOSYS);
		return add_rule(ctx, def_act, act, nr, 0, NULL);
	}
	if (nr == __NR_sendto && p->mech == RULES_MECH_NOTIFY) {
		/* A send without a destination goes where the socket is
		 * connected, which connect() decided: only sends with an
		 * address reach the supervisor. */
		struct scmp_arg_cmp none = {
			.arg = 4, .op = SCMP_CMP_EQ, .datum_a = 0,
		};
		struct scmp_arg_cmp some = {
			.arg = 4, .op = SCMP_CMP_NE, .datum_a = 0,
		};
		int rc = add_rule(ctx, def_act, SCMP_ACT_ALLOW, nr, 1, &none);

		if (rc < 0)
			return rc;
		return add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 1, &some);
	}
	if (p->mech == RULES_MECH_KERNEL && is_target_call(nr))
		return add_target_rules(ctx, def_act, nr, p);
	if (nr == __NR_clone3) {
		/* Guard: ENOSYS makes libc fall back to clone, whose flags
		 * the filter can see; only a kill is stronger. */
		if (p->mech == RULES_MECH_KERNEL && !p->cond_rule &&
		    p->action == RULES_KILL)
			return add_rule(ctx, def_act, SCMP_ACT_KILL_PROCESS, nr,
					0, NULL);
		return add_rule(ctx, def_act, SCMP_ACT_ERRNO(ENOSYS), nr, 0,
				NULL);
	}
	if (p->mech == RULES_MECH_KERNEL && p->cond_rule) {
		int rc = add_cond_rule(ctx, def_act, nr, p->cond_rule, false);

		if (rc < 0)
			return rc;
	}
	return add_rule(ctx, def_act, plan_action(p), nr, 0, NULL);
}

/*
 * Security: the closed world.  Put before libseccomp's program (whose
 * jumps are relative, so it is unchanged by what comes before): every
 * x86_64 number without a row of the table, from a hole of it up to the
 * x32 bit, goes to the supervisor, which refuses it with ENOSYS and
 * records it.  The runs of such numbers are taken from the table, each
 * a pair of comparisons.  x32 numbers and other architectures fall
 * through to libseccomp's own architecture check, which kills them.
 * Every instruction is one the kernel's action cache evaluates, so
 * allowed calls stay cached.
 */
#define CLOSED_MAX_RUNS 64
#define NR_X32 0x40000000u

static int prepend_unknown_nrs(struct sock_fprog *prog)
{
	struct sock_filter head[3 + 3 * CLOSED_MAX_RUNS + 1];
	size_t n = 0, runs = 0;
	struct sock_filter *f;
	int nr = 0;

	head[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, arch));
	n++;	/* the jump over the runs, once their count is known */
	head[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, nr));
	while (nr < RULES_NR_MAX) {
		unsigned lo, hi;

		if (rules_syscall_by_nr(nr)) {
			nr++;
			continue;
		}
		lo = (unsigned)nr;
		while (nr < RULES_NR_MAX && !rules_syscall_by_nr(nr))
			nr++;
		hi = nr == RULES_NR_MAX ? NR_X32 : (unsigned)nr;
		if (runs++ == CLOSED_MAX_RUNS)
			return -EINVAL;
		head[n++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JGE | BPF_K, lo, 0, 2);
		head[n++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JGE | BPF_K, hi, 1, 0);
		head[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_USER_NOTIF);
	}
	if (nr == RULES_NR_MAX && rules_syscall_by_nr(RULES_NR_MAX - 1)) {
		/* The table's last number has a row: the run above it. */
		head[n++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JGE | BPF_K, RULES_NR_MAX, 0, 2);
		head[n++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JGE | BPF_K, NR_X32, 1, 0);
		head[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_USER_NOTIF);
	}
	head[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		AUDIT_ARCH_X86_64, 0, (unsigned char)(n - 2));
	if (prog->len + n > BPF_MAXINSNS)
		return -EINVAL;
	f = malloc((prog->len + n) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	memcpy(f, head, n * sizeof(*f));
	memcpy(f + n, prog->filter, prog->len * sizeof(*f));
	free(prog->filter);
	prog->filter = f;
	prog->len = (unsigned short)(prog->len + n);
	return 0;
}

int rules_build_filter(const struct rules_set *rs, struct sock_fprog *prog)
{
	uint64_t named[RULES_NR_WORDS] = { 0 };
	scmp_filter_ctx ctx;
	uint32_t def_act;
	size_t i, w;
	int nr, rc = 0;

	if (!rs || !prog)
		return -EINVAL;
	/* Permissive: a default that refuses is the supervisor's, as every
	 * plan that refuses is (plan_permissive()). */
	if (rs->def == RULES_ALLOW ||
	    (!default_records(rs) && !rs->permissive))
		def_act = scmp_action(rs->def, rs->def_err);
	else
		def_act = SCMP_ACT_NOTIFY;
	for (i = 0; i < rs->n_rules; i++)
		for (w = 0; w < RULES_NR_WORDS; w++)
			named[w] |= rs->rules[i].nrs[w];
	rules_nr_add(named, __NR_clone);
	rules_nr_add(named, __NR_clone3);
	rules_nr_add(named, __NR_fcntl);
	rules_nr_add(named, __NR_ioctl);
	rules_nr_add(named, __NR_socket);
	rules_nr_add(named, __NR_setsockopt);
	rules_nr_add(named, __NR_listen);
	rules_nr_add(named, __NR_accept);
	rules_nr_add(named, __NR_accept4);
	nr_add_all(named, xattrat, ARRAY_SIZE(xattrat));
	nr_add_all(named, always_notified, ARRAY_SIZE(always_notified));
	nr_add_all(named, sysv_calls, ARRAY_SIZE(sysv_calls));
	rules_nr_add(named, __NR_setrlimit);
	nr_add_all(named, pid_calls, ARRAY_SIZE(pid_calls));
	for (i = 0; i < ARRAY_SIZE(who_calls); i++)
		rules_nr_add(named, who_calls[i].nr);
	nr_add_all(named, root_calls, ARRAY_SIZE(root_calls));
	nr_add_all(named, tree_only_calls, ARRAY_SIZE(tree_only_calls));
	nr_add_all(named, creds_calls, ARRAY_SIZE(creds_calls));
	if (rs->limit_set[RULES_LIMIT_PROCESSES]) {
		rules_nr_add(named, __NR_fork);
		rules_nr_add(named, __NR_vfork);
	}
	/* Security: the refused calls get a rule of their own (the
	 * supervisor), whatever the filter's default. */
	nr_add_all(named, refused_calls, ARRAY_SIZE(refused_calls));
	for (i = 0; i < ARRAY_SIZE(unmediated); i++)
		for (const int *u = unmediated[i].nrs; *u >= 0; u++)
			rules_nr_add(named, *u);

	ctx = new_ctx(def_act);
	if (!ctx)
		return -ENOMEM;
	for (nr = 0; nr < RULES_NR_MAX && rc == 0; nr++) {
		struct plan p;

		if (!rules_nr_has(named, nr))
			continue;
		plan_for(rs, nr, &p);
		rc = add_syscall(rs, ctx, def_act, nr, &p);
	}
	if (rc == 0)
		rc = export_ctx(ctx, prog);
	seccomp_release(ctx);
	if (rc == 0 && (rc = prepend_unknown_nrs(prog)) < 0) {
		free(prog->filter);
		*prog = (struct sock_fprog){ 0 };
	}
	return rc;
}

/*
 * Security: network uses no address can describe.  A packet socket (or
 * AF_INET's SOCK_PACKET), a raw inet socket and a socket of a family
 * rules have no addresses for (vsock, bluetooth, can, ...) send and
 * receive without any connect, bind or send naming a destination a rule
 * could check; options that choose the route (source routing, routing
 * headers, the outgoing interface, transparent proxying, the firewall
 * mark) make a checked address go elsewhere.  These reach the supervisor,
 * which decides them by the policy's network rules
 * (supervisor/net.c).  Each entry: the argument, a mask on its low 32
 * bits (the int the kernel reads) and the value under the mask.
 */
struct masked_arg {
	unsigned arg;
	uint32_t mask, value;
};

/* socket() domains other than AF_UNIX (1), AF_INET (2), AF_INET6 (10)
 * and AF_NETLINK (16), as blocks of 0..63; bits 6..31 below. */
static const struct masked_arg odd_domains[] = {
	{ 0, 0xffffffff, 0 },  { 0, 0xffffffff, 3 },  { 0, 0xfffffffc, 4 },
	{ 0, 0xfffffffe, 8 },  { 0, 0xffffffff, 11 }, { 0, 0xfffffffc, 12 },
	{ 0, 0xffffffff, 17 }, { 0, 0xfffffffe, 18 }, { 0, 0xfffffffc, 20 },
	{ 0, 0xfffffff8, 24 }, { 0, 0xffffffe0, 32 },
};

/* inet/inet6 socket types other than SOCK_STREAM (1), SOCK_DGRAM (2)
 * and SOCK_SEQPACKET (5), on the type's low 4 bits (SOCK_TYPE_MASK). */
static const struct masked_arg odd_inet_types[] = {
	{ 1, 0xf, 0 }, { 1, 0xf, 3 }, { 1, 0xf, 4 }, { 1, 0xe, 6 },
	{ 1, 0x8, 8 },
};

static const struct {
	int level, opt;
	const char *name;
} route_sockopts[] = {
	{ 1 /* SOL_SOCKET */, 25, "SO_BINDTODEVICE" },
	{ 1, 36, "SO_MARK" },
	{ 1, 62, "SO_BINDTOIFINDEX" },
	{ 0 /* SOL_IP */, 4, "IP_OPTIONS" },
	{ 0, 19, "IP_TRANSPARENT" },
	{ 0, 50, "IP_UNICAST_IF" },
	{ 41 /* SOL_IPV6 */, 5, "IPV6_2292RTHDR" },
	{ 41, 6, "IPV6_2292PKTOPTIONS" },
	{ 41, 57, "IPV6_RTHDR" },
	{ 41, 75, "IPV6_TRANSPARENT" },
	{ 41, 76, "IPV6_UNICAST_IF" },
};

bool rules_socket_unnamed(uint64_t domain, uint64_t type)
{
	uint32_t d = (uint32_t)domain, t = (uint32_t)type & 0xf;

	if (d == 1 || d == 16)
		return false;
	if (d == 2 || d == 10)
		return t != 1 && t != 2 && t != 5;
	return true;
}

const char *rules_route_sockopt(uint64_t level, uint64_t opt)
{
	for (size_t i = 0; i < ARRAY_SIZE(route_sockopts); i++)
		if ((uint32_t)level == (uint32_t)route_sockopts[i].level &&
		    (uint32_t)opt == (uint32_t)route_sockopts[i].opt)
			return route_sockopts[i].name;
	return NULL;
}

static struct scmp_arg_cmp masked_cmp(unsigned arg, uint32_t mask,
				      uint32_t value)
{
	return (struct scmp_arg_cmp){ .arg = arg, .op = SCMP_CMP_MASKED_EQ,
				      .datum_a = mask, .datum_b = value };
}

/* NOTIFY for the odd socket() calls; the rest falls to def_act. */
static int add_odd_sockets(scmp_filter_ctx ctx, uint32_t def_act)
{
	static const uint32_t inet[] = { 2, 10 };
	struct scmp_arg_cmp c[2];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(odd_domains); i++) {
		c[0] = masked_cmp(0, odd_domains[i].mask, odd_domains[i].value);
		rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, __NR_socket, 1, c);
	}
	for (unsigned bit = 6; rc == 0 && bit < 32; bit++) {
		c[0] = masked_cmp(0, 1u << bit, 1u << bit);
		rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, __NR_socket, 1, c);
	}
	for (size_t d = 0; rc == 0 && d < ARRAY_SIZE(inet); d++)
		for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(odd_inet_types);
		     i++) {
			c[0] = masked_cmp(0, 0xffffffff, inet[d]);
			c[1] = masked_cmp(1, odd_inet_types[i].mask,
					  odd_inet_types[i].value);
			rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, __NR_socket,
				      2, c);
		}
	return rc;
}

static int add_route_sockopts(scmp_filter_ctx ctx, uint32_t def_act)
{
	struct scmp_arg_cmp c[2];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(route_sockopts); i++) {
		c[0] = masked_cmp(1, 0xffffffff,
				  (uint32_t)route_sockopts[i].level);
		c[1] = masked_cmp(2, 0xffffffff,
				  (uint32_t)route_sockopts[i].opt);
		rc = add_rule(ctx, def_act, SCMP_ACT_NOTIFY, __NR_setsockopt,
			      2, c);
	}
	return rc;
}

/* True when the kernel allows every bind by itself. */
static bool bind_allowed_in_kernel(const struct rules_set *rs)
{
	struct plan b;

	plan_for(rs, __NR_bind, &b);
	return b.mech == RULES_MECH_KERNEL && !b.cond_rule &&
	       b.action == RULES_ALLOW;
}

/*
 * socket, setsockopt and listen.  A plan that refuses the call outright
 * stands.  Otherwise the odd sockets and the route options reach the
 * supervisor, beside the plan's own condition where that refuses (in an
 * overlap either answer refuses: the supervisor matches the call's own
 * rules first); where the rest cannot fall to the filter's default, every
 * call does.  listen reaches it unless the kernel allows every bind: on
 * an unbound socket it is a bind to the wildcard address; accept and
 * accept4 with it, so that each inbound connection is recorded with its
 * peer.
 */
static int add_net_scalar(const struct rules_set *rs, scmp_filter_ctx ctx,
			  uint32_t def_act, int nr, const struct plan *p)
{
	uint32_t act = plan_action(p);
	const struct rules_rule *cr = p->cond_rule;
	bool kernel = p->mech == RULES_MECH_KERNEL;
	int rc = 0;

	if (kernel && !cr &&
	    (p->action == RULES_DENY || p->action == RULES_KILL))
		return add_rule(ctx, def_act, act, nr, 0, NULL);
	if (nr == __NR_listen || nr == __NR_accept || nr == __NR_accept4) {
		if (!kernel || !bind_allowed_in_kernel(rs))
			return add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 0,
					NULL);
		if (cr)
			rc = add_cond_rule(ctx, def_act, nr, cr, false);
		return rc < 0 ? rc : add_rule(ctx, def_act, act, nr, 0, NULL);
	}
	if (!kernel || act != def_act ||
	    (cr && cr->action != RULES_DENY && cr->action != RULES_KILL))
		return add_rule(ctx, def_act, SCMP_ACT_NOTIFY, nr, 0, NULL);
	if (cr)
		rc = add_cond_rule(ctx, def_act, nr, cr, false);
	if (rc < 0)
		return rc;
	if (nr == __NR_socket)
		return add_odd_sockets(ctx, def_act);
	return add_route_sockopts(ctx, def_act);
}
