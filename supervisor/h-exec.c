/* SPDX-License-Identifier: MIT */
/* execve and execveat: checked at the call, and again at the exec stop. */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "supervisor/ask.h"
#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/record.h"
#include "supervisor/regs.h"
#include "supervisor/resolve.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

enum exec_format { EXEC_UNKNOWN, EXEC_ELF, EXEC_SCRIPT, EXEC_NONE };

/* True when binfmt_misc may run formats other than ELF and scripts. */
static bool binfmt_misc_active(void)
{
	DIR *d = opendir("/proc/sys/fs/binfmt_misc");
	struct dirent *e;
	bool any = false;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "register") &&
		    strcmp(e->d_name, "status"))
			any = true;
	closedir(d);
	return any;
}

/* What the kernel will make of the file: ELF, a #! script, or nothing it
 * can run (ENOEXEC).  UNKNOWN when we cannot read it (execute-only). */
static enum exec_format exec_format(int fd)
{
	union {
		unsigned char b[64];
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} h;
	AUTO_CLOSE int rf = reopen_fd(fd, O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (rf < 0)
		return EXEC_UNKNOWN;
	memset(&h, 0, sizeof(h));
	n = pread(rf, h.b, sizeof(h.b), 0);
	if (n >= 2 && h.b[0] == '#' && h.b[1] == '!')
		return EXEC_SCRIPT;
	if (n >= SELFMAG && !memcmp(h.b, ELFMAG, SELFMAG)) {
		/* The checks the kernel's ELF loader makes before anything
		 * else (load_elf_binary): class, machine, type, headers. */
		if (n >= (ssize_t)sizeof(Elf64_Ehdr) &&
		    h.b[EI_CLASS] == ELFCLASS64 && h.e64.e_machine == EM_X86_64 &&
		    (h.e64.e_type == ET_EXEC || h.e64.e_type == ET_DYN) &&
		    h.e64.e_phentsize == sizeof(Elf64_Phdr) &&
		    h.e64.e_phnum >= 1 && h.e64.e_phnum <= 65536 / sizeof(Elf64_Phdr))
			return EXEC_ELF;
		if (n >= (ssize_t)sizeof(Elf32_Ehdr) &&
		    h.b[EI_CLASS] == ELFCLASS32 && h.e32.e_machine == EM_386 &&
		    (h.e32.e_type == ET_EXEC || h.e32.e_type == ET_DYN) &&
		    h.e32.e_phentsize == sizeof(Elf32_Phdr) &&
		    h.e32.e_phnum >= 1 && h.e32.e_phnum <= 65536 / sizeof(Elf32_Phdr))
			return EXEC_ELF;
	}
	if (n < 0 || binfmt_misc_active())
		return EXEC_UNKNOWN;
	return EXEC_NONE;
}

/* The kernel's answers to an exec of r that the policy allowed: a
 * positive errno, or 0 when it can run. */
static int exec_runnable(const struct resolved *r)
{
	if (S_ISLNK(r->st.st_mode))
		return ELOOP;
	if (S_ISDIR(r->st.st_mode) || !S_ISREG(r->st.st_mode))
		return EACCES;
	/* Not executable for the caller (our credentials are the caller's):
	 * answer as the kernel would, so that the trail has the result. */
	if (faccessat(r->fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) < 0 &&
	    errno == EACCES)
		return EACCES;
	return 0;
}

/*
 * Security: execve cannot be emulated, so the kernel will read the
 * path again after our CONTINUE.  Remember exactly what was checked;
 * the exec stop compares it with what was loaded (AT_EXECFN and the
 * inode) and kills the process on any difference.  A positive errno
 * when the exec must fail now (no memory; ENOEXEC: no loader for it).
 */
static int exec_remember(struct call *c, struct proc *p,
			 const struct resolved *r, int dirfd)
{
	if (!p->exec) {
		p->exec = calloc(1, sizeof(*p->exec));
		if (!p->exec)
			return ENOMEM;
	}
	struct exec_check *ec = p->exec;

	ec->pending = true;
	if (dirfd != AT_FDCWD && c->paths[0].raw[0] != '/') {
		if (c->paths[0].raw[0] == '\0')
			snprintf(ec->raw, sizeof(ec->raw), "/dev/fd/%d", dirfd);
		else
			snprintf(ec->raw, sizeof(ec->raw), "/dev/fd/%d/%s", dirfd,
				 c->paths[0].raw);
	} else {
		snprintf(ec->raw, sizeof(ec->raw), "%s", c->paths[0].raw);
	}
	ec->dev = r->st.st_dev;
	ec->ino = r->st.st_ino;
	enum exec_format fmt = exec_format(r->fd);

	if (fmt == EXEC_NONE) {
		/* The kernel has no loader for it: answer ENOEXEC as it
		 * would, so the trail has the result (execvp then tries sh). */
		ec->pending = false;
		return ENOEXEC;
	}
	ec->script = fmt == EXEC_SCRIPT;
	snprintf(ec->path, sizeof(ec->path), "%s", r->path);
	return 0;
}

/*
 * An exec is run by the kernel: the caller restarts it with the
 * redirected path in its registers, and it is checked again as any
 * exec (here, and at the exec stop on what was loaded).  0 when the
 * call is answered so; else c->err says why not.
 */
static int exec_rewrite(struct sup *s, struct call *c, struct proc *p)
{
	char to[PATH_MAX];

	memcpy(c->orig_args, c->req->data.args, sizeof(c->orig_args));
	c->rewrite_rule = c->v.rule;
	if (rules_rewrite_path(&c->v, c->paths[0].resolved, to, sizeof(to)) == 0 &&
	    regs_rewrite(s, c, p, c->orig_args, c->info->path_arg[0], to,
			 c->paths[0].resolved,
			 strlen(rules_rewrite_redirect(&c->v))) == 0)
		return 0;
	c->err = EACCES;
	c->note = "exec redirect: the path could not be rewritten";
	return -1;
}

int handle_exec(struct sup *s, struct call *c, struct proc *p)
{
	const __u64 *a = c->req->data.args;
	bool at = c->req->data.nr == SYS_execveat;
	int dirfd = at ? (int)(int32_t)a[0] : AT_FDCWD;
	uint64_t flags = at ? a[4] : 0;
	unsigned resf = RES_FOLLOW;
	struct resolved r;
	int rc;

	resolved_init(&r);
	rc = copy_path(c, c->info->path_arg[0], "path");
	if (rc < 0) {
		c->err = -rc;
		goto out;
	}
	if (flags & ~(uint64_t)(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		c->err = EINVAL;
		goto out;
	}
	if (flags & AT_SYMLINK_NOFOLLOW)
		resf = 0;
	if (flags & AT_EMPTY_PATH)
		resf |= RES_EMPTY_PATH;
	/* The exec checks use the object (fd, stat, canonical path) only. */
	resf |= RES_OBJECT;
	rc = resolve_path(c->tid, c->tgid, dirfd, c->paths[0].raw, resf, &r);
	if (!notify_id_valid(s, c->req->id))
		goto gone;
	if (((rc == -ENOENT && r.partial) || (rc == 0 && r.fd < 0)) &&
	    probe_redirect(s, c, &c->paths[0], r.path, RULES_ACC_EXEC)) {
		decide_call(c);
		goto rewrite;
	}
	if (rc < 0) {
		c->err = -rc;
		goto out;
	}
	if (r.fd < 0) {
		/* Nothing to run: ENOENT as the kernel answers, no policy
		 * decision (execvp and env try each PATH entry in turn). */
		c->err = ENOENT;
		c->note = "no such file";
		goto out;
	}
	decide_path(s, c, &c->paths[0], &r, RULES_ACC_EXEC);
	decide_call(c);
	if (c->v.stack && stack_request(s, c) > 0)
		goto gone;
	if (c->v.action == RULES_REWRITE)
		goto rewrite;
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		goto gone;
	if (c->v.action != RULES_ALLOW)
		goto out;
	c->err = exec_runnable(&r);
	if (!c->err)
		c->err = exec_remember(c, p, &r, dirfd);
	if (c->err)
		goto out;
	resolved_release(&r);
	return notify_finish(s, c, true);
rewrite:
	resolved_release(&r);
	if (exec_rewrite(s, c, p) == 0)
		return 0;
out:
	if (c->tgid == s->cmd.child && !s->cmd.child_execd && c->err) {
		s->cmd.first_exec_err = c->err;
		s->cmd.first_exec_rule = c->v.rule;
	}
	resolved_release(&r);
	return notify_finish(s, c, false);
gone:
	resolved_release(&r);
	return 0;
}

void notify_exec_event(struct sup *s, struct proc *p, pid_t former_tid)
{
	struct proc *fp = procs_find(former_tid);
	struct exec_check *ec = fp ? fp->exec : NULL;
	/* The event loop's thread only: one image at a time. */
	static struct exec_image img;
	char exe[PATH_MAX] = "";
	char link[64];
	struct stat st;
	bool ok = true;
	const char *why = NULL;

	assert_loop_thread();
	/* --user: an exec may change the credentials kept for p. */
	caller_creds_stale();
	if (tracee_exe(p->tid, exe, sizeof(exe)) < 0)
		snprintf(exe, sizeof(exe), "?");
	tracee_exec_image(p->tid, &img);
	if (ec && ec->pending) {
		ec->pending = false;
		snprintf(link, sizeof(link), "/proc/%d/exe", p->tid);
		if (!img.have_execfn || strcmp(img.execfn, ec->raw) != 0) {
			ok = false;
			why = "the path changed between check and exec";
		} else if (stat(link, &st) < 0) {
			ok = false;
			why = "cannot read the executable";
		} else if (st.st_dev != ec->dev || st.st_ino != ec->ino) {
			if (!ec->script) {
				ok = false;
				why = "the file changed between check and exec";
			} else {
				/* A script: the interpreter is what runs; it
				 * must be allowed to run as well. */
				struct rules_event ev = {
					.nr = SYS_execve, .exe = p->exe,
					.access = RULES_ACC_EXEC, .path = exe,
				};
				struct rules_verdict v;

				rules_match(s->run.rules, &ev, &v);
				if (v.action != RULES_ALLOW) {
					ok = false;
					why = "the script's interpreter is not allowed to run";
				}
			}
		}
	}
	if (!ok) {
		struct stat gone;

		/* A task with no memory any more (/proc/PID/exe: ENOENT) is
		 * ending, killed during its execve: the program never runs,
		 * and its exit follows.  Nothing to kill or record. */
		if (stat(link, &gone) < 0 && errno == ENOENT)
			return;
		/* Security: the checked and the loaded program differ (a
		 * racing thread swapped the path or the file): kill before
		 * the new program runs a single instruction. */
		kill(p->tgid, SIGKILL);
		if (record_exec_violation(s, p, why, exe) < 0)
			sup_fail(s, "cannot write the audit trail");
		s->tally.counts[RULES_KILL]++;
		return;
	}
	procs_set_exe(p, exe);
	p->leader_exec = true;
	if (p->tgid == s->cmd.child)
		s->cmd.child_execd = true;
	if (record_exec(s, p, exe, &img) < 0)
		sup_fail(s, "cannot write the audit trail");
}

void notify_exec_forget(struct proc *p)
{
	free(p->exec);
	p->exec = NULL;
}
