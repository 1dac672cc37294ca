/* SPDX-License-Identifier: MIT */
/*
 * Turning events into audit records (audit/ does the format and the chain),
 * the live -v lines and the end-of-run summary of denials.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"
#include "supervisor/call.h"
#include "supervisor/procs.h"
#include "supervisor/record.h"
#include "supervisor/tracee.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/supervisor.h"
#include "supervisor/output.h"

static const char *sig_name(int sig)
{
	static char buf[16];
	const char *n = sigabbrev_np(sig);

	if (!n) {
		snprintf(buf, sizeof(buf), "%d", sig);
		return buf;
	}
	snprintf(buf, sizeof(buf), "SIG%s", n);
	return buf;
}

const char *record_tty(char *buf, size_t len, const char *s)
{
	audit_escape_tty(buf, len, s, strlen(s));
	return buf;
}

static const char *errno_str(int err)
{
	const char *n = rules_errno_name(err);

	return n ? n : "E?";
}

void record_open_flags(char *buf, size_t len, uint64_t flags)
{
	static const struct { uint64_t bit; const char *name; } bits[] = {
		{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" },
		{ O_NOCTTY, "O_NOCTTY" }, { O_TRUNC, "O_TRUNC" },
		{ O_APPEND, "O_APPEND" }, { O_NONBLOCK, "O_NONBLOCK" },
		{ O_SYNC, "O_SYNC" }, { O_DSYNC, "O_DSYNC" }, { O_DIRECT, "O_DIRECT" },
		{ 0100000, "O_LARGEFILE" }, { O_NOFOLLOW, "O_NOFOLLOW" },
		{ O_NOATIME, "O_NOATIME" }, { O_CLOEXEC, "O_CLOEXEC" },
		{ O_PATH, "O_PATH" },
		{ O_TMPFILE, "O_TMPFILE" }, { O_DIRECTORY, "O_DIRECTORY" },
	};
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
	size_t off;
	uint64_t rest = flags & ~(uint64_t)O_ACCMODE;

	off = (size_t)snprintf(buf, len, "%s", acc[flags & O_ACCMODE]);
	for (size_t i = 0; i < ARRAY_SIZE(bits) && off < len; i++) {
		if ((rest & bits[i].bit) == bits[i].bit) {
			off += (size_t)snprintf(buf + off, len - off, "|%s", bits[i].name);
			rest &= ~bits[i].bit;
		}
	}
	if (rest && off < len)
		snprintf(buf + off, len - off, "|0x%llx", (unsigned long long)rest);
}

static void add_addr(struct audit_rec *r, const char *key,
		     const struct sockaddr_storage *ss, socklen_t len,
		     char *human, size_t hlen)
{
	char ip[INET6_ADDRSTRLEN];

	audit_obj_begin(r, key);
	switch (ss->ss_family) {
	case AF_INET: {
		const struct sockaddr_in *in = (const void *)ss;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		audit_str(r, "family", "AF_INET");
		audit_str(r, "ip", ip);
		audit_uint(r, "port", ntohs(in->sin_port));
		snprintf(human, hlen, "%s:%u", ip, ntohs(in->sin_port));
		break;
	}
	case AF_INET6: {
		const struct sockaddr_in6 *in6 = (const void *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		audit_str(r, "family", "AF_INET6");
		audit_str(r, "ip", ip);
		audit_uint(r, "port", ntohs(in6->sin6_port));
		snprintf(human, hlen, "[%s]:%u", ip, ntohs(in6->sin6_port));
		break;
	}
	case AF_UNIX: {
		const struct sockaddr_un *un = (const void *)ss;
		size_t off = offsetof(struct sockaddr_un, sun_path);
		size_t pl = len > off ? len - off : 0;

		audit_str(r, "family", "AF_UNIX");
		if (pl == 0) {
			audit_str(r, "path", "");
			snprintf(human, hlen, "unix:(unnamed)");
		} else if (un->sun_path[0] == '\0') {
			audit_bytes(r, "abstract", un->sun_path + 1, pl - 1);
			snprintf(human, hlen, "unix-abstract:%.*s", (int)(pl - 1),
				 un->sun_path + 1);
		} else {
			size_t n = strnlen(un->sun_path, pl);

			audit_bytes(r, "path", un->sun_path, n);
			snprintf(human, hlen, "unix:%.*s", (int)n, un->sun_path);
		}
		break;
	}
	case AF_NETLINK:
		audit_str(r, "family", "AF_NETLINK");
		snprintf(human, hlen, "netlink");
		break;
	default:
		audit_int(r, "family", ss->ss_family);
		snprintf(human, hlen, "family %d", ss->ss_family);
		break;
	}
	audit_obj_end(r);
}

/* An address family by name (AF_PACKET), or its number. */
static void add_family(struct audit_rec *r, const char *key, int family)
{
	decode_add_family(r, key, family);
}

/*
 * socket, setsockopt and listen as the network rules saw them: the
 * family and type of a socket, the option set, the wildcard address an
 * unbound socket's listen is decided as; the socket's own family where
 * the supervisor looked at it.
 */
static void add_net_scalar(struct audit_rec *r, const struct call *c,
			   const __u64 *a, char *human, size_t hlen)
{
	uint32_t t = (uint32_t)a[1] & 0xf;

	switch (c->req->data.nr) {
	case SYS_socket:
		add_family(r, "domain", (int32_t)a[0]);
		/* type: the kind alone, as rules match it; its flags beside. */
		decode_add_sock_type(r, "type", t);
		if ((uint32_t)a[1] & ~0xfu)
			decode_add_sock_type(r, "type_flags",
					     (uint32_t)a[1] & ~0xfu);
		audit_int(r, "protocol", (int32_t)a[2]);
		break;
	case SYS_setsockopt:
		audit_int(r, "fd", (int32_t)a[0]);
		audit_int(r, "level", (int32_t)a[1]);
		if (rules_route_sockopt(a[1], a[2]))
			audit_str(r, "option", rules_route_sockopt(a[1], a[2]));
		else
			audit_int(r, "option", (int32_t)a[2]);
		break;
	case SYS_accept:
	case SYS_accept4:
		audit_int(r, "fd", (int32_t)a[0]);
		if (c->domain)
			add_family(r, "domain", c->domain);
		if (c->have_addr)
			add_addr(r, "peer", &c->addr, c->addr_len, human, hlen);
		break;
	case SYS_listen:
		audit_int(r, "fd", (int32_t)a[0]);
		audit_int(r, "backlog", (int32_t)a[1]);
		if (c->domain)
			add_family(r, "domain", c->domain);
		if (c->have_addr)
			add_addr(r, "addr", &c->addr, c->addr_len, human, hlen);
		break;
	default:
		break;
	}
}

/* A call's address as people write it ("127.0.0.1:80"), or NULL. */
static const char *addr_text(const struct call *c, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (!c->have_addr)
		return NULL;
	switch (c->addr.ss_family) {
	case AF_INET: {
		const struct sockaddr_in *in = (const void *)&c->addr;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(in->sin_port));
		return buf;
	}
	case AF_INET6: {
		const struct sockaddr_in6 *in6 = (const void *)&c->addr;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ntohs(in6->sin6_port));
		return buf;
	}
	case AF_UNIX:
		if (c->n_paths)
			snprintf(buf, len, "unix:%s", c->paths[0].raw);
		else
			snprintf(buf, len, "unix");
		return buf;
	default:
		snprintf(buf, len, "family %d", c->addr.ss_family);
		return buf;
	}
}

/* The live line of -v: strace-like. */
static void verbose_line(const struct call *c, const char *addr_human)
{
	char args[PATH_MAX * 4 + 512];
	size_t off = 0;

	args[0] = '\0';
	for (unsigned i = 0; i < c->n_paths && off < sizeof(args); i++) {
		const struct call_path *cp = &c->paths[i];
		char esc[PATH_MAX * 4];

		if (!cp->have_raw)
			continue;
		if (cp->fd_form) {
			off += (size_t)snprintf(args + off, sizeof(args) - off, "%s%d",
						off ? ", " : "",
						(int)(int32_t)c->req->data.args[c->info->dirfd_arg[0]]);
			continue;
		}
		audit_escape_tty(esc, sizeof(esc), cp->raw, cp->raw_len);
		off += (size_t)snprintf(args + off, sizeof(args) - off, "%s\"%s\"",
					off ? ", " : "", esc);
	}
	if (c->info && c->info->kind == RULES_KIND_PATH && off < sizeof(args)) {
		int nr = c->req->data.nr;
		uint64_t fl = nr == SYS_open ? c->req->data.args[1] :
			      nr == SYS_openat ? c->req->data.args[2] : 0;

		if (nr == SYS_open || nr == SYS_openat) {
			char fs[256];

			record_open_flags(fs, sizeof(fs), fl);
			snprintf(args + off, sizeof(args) - off, ", %s", fs);
		}
	}
	if (c->have_addr && addr_human && off < sizeof(args)) {
		char esc[PATH_MAX * 4];

		snprintf(args + off, sizeof(args) - off, "%s%s", off ? ", " : "",
			 record_tty(esc, sizeof(esc), addr_human));
	}
	char why[128], note[128];

	if (c->v.action == RULES_ALLOW && c->v.would != RULES_ALLOW)
		snprintf(why, sizeof(why), "permissive: %s %s",
			 call_rule(c) ? call_rule(c) : "the default",
			 c->v.would == RULES_KILL ? "would kill" :
			 c->v.would == RULES_ASK ? "would ask" : "would deny");
	else if (call_rule(c))
		snprintf(why, sizeof(why), "rule %s%s", call_rule(c),
			 c->rewritten ? " (rewritten)" : "");
	else if (!c->n_paths || !c->paths[0].checked)
		snprintf(why, sizeof(why), "%s", c->note ?
			 record_tty(note, sizeof(note), c->note) :
			 "not decided: failed before");
	else
		snprintf(why, sizeof(why), "policy default");
	if (c->err)
		fprintf(stderr, "[pid %d] %s(%s) = -1 %s (%s)\n", c->tid, c->name,
			args, errno_str(c->err), why);
	else if (c->have_result)
		fprintf(stderr, "[pid %d] %s(%s) = %lld (%s)\n", c->tid, c->name,
			args, (long long)c->result, why);
	else
		fprintf(stderr, "[pid %d] %s(%s) = ? %s (%s)\n", c->tid, c->name,
			args, rules_action_name(c->v.action), why);
}

/*
 * stack = yes: the caller's frames, innermost first.  Module paths and
 * symbol names come from the tracee's files: escaped like any tracee
 * bytes.  A stack that could not be (wholly) taken says why.
 */
static void add_stack(struct audit_rec *r, const struct stack_trace *st)
{
	if (st->n_frames) {
		audit_arr_begin(r, "stack");
		for (unsigned i = 0; i < st->n_frames; i++) {
			const struct stack_frame *f = &st->frames[i];

			audit_obj_begin(r, NULL);
			audit_hex(r, "ip", f->ip);
			if (f->have_module) {
				audit_bytes(r, "module", f->module, strlen(f->module));
				audit_hex(r, "module_offset", f->module_offset);
			}
			if (f->have_symbol) {
				audit_bytes(r, "symbol", f->symbol, strlen(f->symbol));
				audit_uint(r, "offset", f->symbol_offset);
			}
			audit_obj_end(r);
		}
		audit_arr_end(r);
	}
	if (st->truncated)
		audit_bool(r, "stack_truncated", true);
	if (st->error[0])
		audit_str(r, "stack_error", st->error);
}


/* A signal number as the trail names it: "SIGTERM", or the number (0,
 * the existence probe, and numbers that name no signal). */
static void add_signal(struct audit_rec *r, uint64_t sig)
{
	const char *n = (int32_t)sig > 0 ? sigabbrev_np((int)(int32_t)sig) :
					   NULL;

	if (n)
		audit_str(r, "signal", sig_name((int)(int32_t)sig));
	else
		audit_int(r, "signal", (int32_t)sig);
}

/* The program of the task a signal is aimed at, when it is one of the
 * tree's (a pid <= 0 names a group or every process: no target). */
static void add_target(struct audit_rec *r, pid_t pid)
{
	const struct proc *p = pid > 0 ? procs_find(pid) : NULL;

	if (p && p->exe)
		audit_bytes(r, "target", p->exe, strlen(p->exe));
}

/*
 * The calls that send a signal, by their target and signal: kill's pid
 * (negative: a process group), tgkill's thread group and thread, and
 * the target's program when it is the tree's.  The siginfo that
 * rt_*sigqueueinfo and pidfd_send_signal point to is not read (its
 * address is recorded).  Returns whether nr is one of them (all its
 * arguments are then recorded).
 */
static bool add_kill_args(struct audit_rec *r, int nr, const __u64 *a)
{
	switch (nr) {
	case SYS_kill:
		audit_int(r, "pid", (int32_t)a[0]);
		add_signal(r, a[1]);
		add_target(r, (int32_t)a[0]);
		return true;
	case SYS_tkill:
		audit_int(r, "tid", (int32_t)a[0]);
		add_signal(r, a[1]);
		add_target(r, (int32_t)a[0]);
		return true;
	case SYS_tgkill:
		audit_int(r, "tgid", (int32_t)a[0]);
		audit_int(r, "tid", (int32_t)a[1]);
		add_signal(r, a[2]);
		add_target(r, (int32_t)a[1]);
		return true;
	case SYS_rt_sigqueueinfo:
		audit_int(r, "tgid", (int32_t)a[0]);
		add_signal(r, a[1]);
		audit_hex(r, "info", a[2]);
		add_target(r, (int32_t)a[0]);
		return true;
	case SYS_rt_tgsigqueueinfo:
		audit_int(r, "tgid", (int32_t)a[0]);
		audit_int(r, "tid", (int32_t)a[1]);
		add_signal(r, a[2]);
		audit_hex(r, "info", a[3]);
		add_target(r, (int32_t)a[1]);
		return true;
	case SYS_pidfd_send_signal:
		audit_int(r, "pidfd", (int32_t)a[0]);
		add_signal(r, a[1]);
		audit_hex(r, "info", a[2]);
		audit_uint(r, "flags", (uint32_t)a[3]);
		return true;
	default:
		return false;
	}
}

/* The arguments of a call as a JSON object: a = the caller's (orig) or
 * the rewritten ones. */
static void add_args(struct audit_rec *r, const struct call *c,
		     const __u64 *a, bool rewritten, char *human, size_t hlen)
{
	int nr = c->req->data.nr;

	if (c->info && (c->info->kind == RULES_KIND_PATH ||
			c->info->kind == RULES_KIND_EXEC)) {
		for (int i = 0; i < 2 && !rewritten; i++) {
			int d = c->info->dirfd_arg[i];

			if (d < 0)
				continue;
			if ((unsigned)i < c->n_paths && c->paths[i].fd_form)
				/* fchmod, futimens, ...: the file of this fd. */
				audit_int(r, "fd", (int32_t)a[d]);
			else if ((int32_t)a[d] == AT_FDCWD)
				audit_str(r, i ? "newdirfd" : "dirfd", "AT_FDCWD");
			else
				audit_int(r, i ? "newdirfd" : "dirfd", (int32_t)a[d]);
		}
		if (nr == SYS_ioctl && rules_fileattr_cmd(a[1]))
			/* An ioctl decided as fchmod of its fd's file. */
			audit_str(r, "cmd", rules_fileattr_cmd(a[1]));
		for (unsigned i = 0; i < c->n_paths; i++) {
			const struct call_path *cp = &c->paths[i];

			if (cp->fd_form && !cp->redirected)
				continue;	/* no path: its fd, above */
			if (rewritten && cp->redirected)
				audit_bytes(r, cp->fd_form ? "path" : cp->arg_name,
					    cp->redirect,
					    strlen(cp->redirect));
			else if (!rewritten && cp->have_raw)
				audit_bytes(r, cp->arg_name, cp->raw, cp->raw_len);
		}
		if (nr == SYS_open || nr == SYS_openat || nr == SYS_creat) {
			char fs[256];
			uint64_t fl = nr == SYS_open ? a[1] : nr == SYS_openat ? a[2] :
				      (uint64_t)(O_CREAT | O_WRONLY | O_TRUNC);
			uint64_t mode = nr == SYS_open ? a[2] : nr == SYS_openat ? a[3] : a[1];

			record_open_flags(fs, sizeof(fs), (uint32_t)fl);
			audit_str(r, "flags", fs);
			if (fl & (O_CREAT | __O_TMPFILE)) {
				char m[16];

				snprintf(m, sizeof(m), "0%o", (unsigned)(mode & 07777));
				audit_str(r, "mode", m);
			}
		}
		(void)decode_extra_args(r, nr, a);
		if (rewritten && memcmp(a, c->orig_args, sizeof(c->orig_args))) {
			audit_arr_begin(r, "raw");
			for (int i = 0; i < 6; i++)
				audit_hex(r, NULL, a[i]);
			audit_arr_end(r);
		}
	} else if (c->info && c->info->kind == RULES_KIND_NET) {
		if (rewritten) {
			if (c->have_rw_addr)
				add_addr(r, "addr", &c->rw_addr, c->rw_addr_len,
					    NULL, 0);
			return;
		}
		audit_int(r, "fd", (int32_t)a[0]);
		if (c->have_addr)
			add_addr(r, "addr", &c->addr, c->addr_len, human, hlen);
		if (c->domain && c->have_addr &&
		    c->domain != c->addr.ss_family)
			add_family(r, "domain", c->domain);
		(void)decode_extra_args(r, nr, a);
	} else if (!rewritten && add_kill_args(r, nr, a)) {
		/* Every argument decoded: no raw words. */
	} else {
		add_net_scalar(r, c, a, human, hlen);
		/* Registers by name; "raw" only for a call with no
		 * signature (decode-args.c). */
		if (decode_args(r, nr, a) < 0) {
			audit_arr_begin(r, "raw");
			for (int i = 0; i < 6; i++)
				audit_hex(r, NULL, a[i]);
			audit_arr_end(r);
		}
	}
}

/*
 * Permissive mode: what the policy would have done with a call it let
 * through ("would_deny": true, "would": "deny", "kill" or "ask", and the
 * errno of a deny).
 */
static void add_would(struct audit_rec *r, const struct rules_verdict *v)
{
	if (v->action != RULES_ALLOW || v->would == RULES_ALLOW)
		return;
	audit_bool(r, "would_deny", true);
	audit_str(r, "would", rules_action_name(v->would));
	if (v->would != RULES_KILL && v->err)
		audit_str(r, "would_errno", errno_str(v->err));
}

/*
 * The path as the program passed it, and for a relative one the
 * directory it was relative to: the caller's cwd (AT_FDCWD) or its
 * dirfd's directory, by the kernel's name for it (/proc, not the task's
 * memory).  Read when the record is written: a thread sharing the cwd or
 * the fd table may have changed them since the path was resolved, so
 * "path" (what was decided on) is the authority and this the context.
 */
static void add_path_arg(struct audit_rec *r, const struct call *c,
			 unsigned i)
{
	const struct call_path *cp = &c->paths[i];
	int d = i < 2 && c->info ? c->info->dirfd_arg[i] : -1;
	int dirfd = d < 0 ? AT_FDCWD : (int)(int32_t)c->req->data.args[d];
	char link[64], dir[PATH_MAX];
	ssize_t n;

	if (!cp->have_raw || cp->fd_form)
		return;
	audit_bytes(r, "path_arg", cp->raw, cp->raw_len);
	if (cp->raw[0] == '/' || cp->raw_len == 0)
		return;
	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", c->tid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", c->tid, dirfd);
	n = readlink(link, dir, sizeof(dir));
	if (n > 0 && (size_t)n < sizeof(dir))
		audit_bytes(r, "relative_to", dir, (size_t)n);
	else
		audit_null(r, "relative_to");
}

/* The fields of a syscall record: the call and how it was decided. */
static void add_call(struct audit_rec *r, const struct call *c, char *human,
		     size_t hlen)
{
	const __u64 *a = c->req->data.args;

	audit_int(r, "pid", c->tgid);
	audit_int(r, "tid", c->tid);
	audit_bytes(r, "exe", c->exe ? c->exe : "?", c->exe ? strlen(c->exe) : 1);
	audit_str(r, "syscall", c->name);
	audit_obj_begin(r, "args");
	add_args(r, c, c->rewritten ? (const __u64 *)c->orig_args : a, false,
		 human, hlen);
	audit_obj_end(r);
	if (c->rewritten) {
		audit_obj_begin(r, "rewritten");
		add_args(r, c, a, true, NULL, 0);
		audit_obj_end(r);
	}
	if (c->have_dns)
		dns_add_query(r, "dns", &c->dns);
	if (c->n_paths) {
		audit_arr_begin(r, "paths");
		for (unsigned i = 0; i < c->n_paths; i++) {
			const struct call_path *cp = &c->paths[i];

			if (!cp->checked)
				continue;
			audit_obj_begin(r, NULL);
			audit_str(r, "arg", cp->arg_name);
			audit_bytes(r, "path", cp->resolved, strlen(cp->resolved));
			add_path_arg(r, c, i);
			if (cp->redirected)
				audit_bytes(r, "redirected_from", cp->from,
					    strlen(cp->from));
			audit_str(r, "access", rules_access_name(cp->access));
			audit_str(r, "rule", cp->v.rule);
			audit_str(r, "action", rules_action_name(cp->v.action));
			add_would(r, &cp->v);
			audit_obj_end(r);
		}
		audit_arr_end(r);
	}
	audit_str(r, "rule", call_rule(c));
	audit_str(r, "action", rules_action_name(call_action(c)));
	add_would(r, &c->v);
	if (c->pending)
		audit_bool(r, "pending", true);
	else if (c->err)
		audit_str(r, "errno", errno_str(c->err));
	else if (c->have_result)
		audit_int(r, "result", c->result);
	if (c->emulated)
		audit_bool(r, "emulated", true);
	if (c->decided_by)
		audit_str(r, "decided_by", c->decided_by);
	if (c->note)
		audit_str(r, "note", c->note);
	if (c->stack)
		add_stack(r, c->stack);
}

int record_call(struct sup *s, const struct call *c, uint64_t *seq)
{
	struct audit_rec *r;
	char human[PATH_MAX + 32] = "";
	uint64_t at = 0;
	int rc;

	if (s->run.opts->verbosity >= SUPERVISOR_VERBOSE && !c->pending)
		verbose_line(c, addr_text(c, human, sizeof(human)));
	if (!c->v.audit)
		return 0;
	r = audit_begin(s->out.audit, "syscall");
	add_call(r, c, human, sizeof(human));
	rc = audit_commit_seq(r, &at);
	if (rc < 0)
		return rc;
	written_note_call(c, at);
	if (seq)
		*seq = at;
	/* Permissive: a would-be denial is listed at the end of the run. */
	if (c->v.action == RULES_ALLOW && c->v.would != RULES_ALLOW) {
		s->tally.would_denied++;
		record_note_denial(s, c, at);
	}
	return 0;
}

/*
 * The open record r as a line of its own, for a reader beside the trail:
 * {"seq":SEQ,"ts":NOW,"run":RUN,<r's fields>}, SEQ null when 0.  r is
 * aborted (never committed).  Returns a new line (the caller frees it) or
 * NULL (no memory, a builder error).
 */
static char *side_line(struct sup *s, struct audit_rec *r, uint64_t seq)
{
	char head[192], ts[64], run[256 * 6];
	struct timespec now;
	struct tm tm;
	const char *body;
	size_t body_len, head_len;
	char *line = NULL;
	int n;

	body = audit_rec_body(r, &body_len);
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (long)(now.tv_nsec / 1000) % 1000000);
	audit_escape(run, sizeof(run), s->run.opts->run_id,
		     strlen(s->run.opts->run_id));
	if (seq)
		n = snprintf(head, sizeof(head), "{\"seq\":%llu,\"ts\":\"%s\",\"run\":\"",
			     (unsigned long long)seq, ts);
	else
		n = snprintf(head, sizeof(head), "{\"seq\":null,\"ts\":\"%s\",\"run\":\"",
			     ts);
	head_len = (size_t)n;
	if (body && n > 0 && (size_t)n < sizeof(head))
		line = malloc(head_len + strlen(run) + 1 + body_len + 3);
	if (line) {
		char *d = line;

		d = mempcpy(d, head, head_len);
		d = mempcpy(d, run, strlen(run));
		*d++ = '"';
		d = mempcpy(d, body, body_len);
		memcpy(d, "}\n", 3);
	}
	audit_abort(r);
	return line;
}

/* Write the whole line to fd, which is the reader's: a reader that went
 * away loses lines, the trail has them all. */
static void side_write(int fd, const char *line)
{
	size_t len = strlen(line), off = 0;

	while (off < len) {
		ssize_t n = write(fd, line + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += (size_t)n;
	}
}

static void add_str_array_from(struct audit_rec *r, const char *key,
			       const char *buf, size_t len);

/* The argv of the process of tgid: of its last exec, else its nearest
 * ancestor's (a fork runs its parent's program).  NULL: not known. */
static const struct proc *argv_owner(pid_t tgid)
{
	const struct proc *p = procs_find(tgid);

	for (int depth = 0; p && !p->argv && depth < 64; depth++)
		p = procs_find(p->ppid);
	return p && p->argv ? p : NULL;
}

char *record_question(struct sup *s, const struct call *c, const char *what)
{
	struct audit_rec *r = audit_begin(s->out.audit, "ask");
	const struct proc *p = argv_owner(c->tgid);
	char human[PATH_MAX + 32], link[64], cwd[PATH_MAX];
	ssize_t n;

	add_call(r, c, human, sizeof(human));
	audit_bytes(r, "call", what, strlen(what));
	if (p)
		add_str_array_from(r, "argv", p->argv, p->argv_len);
	else
		audit_null(r, "argv");
	/* The caller's working directory, by the kernel's name for it:
	 * read from /proc, not from the task's memory. */
	snprintf(link, sizeof(link), "/proc/%d/cwd", c->tid);
	n = readlink(link, cwd, sizeof(cwd));
	if (n > 0 && (size_t)n < sizeof(cwd))
		audit_bytes(r, "cwd", cwd, (size_t)n);
	else
		audit_null(r, "cwd");
	return side_line(s, r, audit_last_seq(s->out.audit));
}

int record_result(struct sup *s, const struct call *c)
{
	struct audit_rec *r;

	char human[PATH_MAX + 32];

	if (s->run.opts->verbosity >= SUPERVISOR_VERBOSE)
		verbose_line(c, addr_text(c, human, sizeof(human)));
	if (!c->v.audit)
		return 0;
	r = audit_begin(s->out.audit, "syscall.result");
	audit_int(r, "pid", c->tgid);
	audit_int(r, "tid", c->tid);
	audit_str(r, "syscall", c->name);
	audit_uint(r, "ref", c->pre_seq);
	if (c->err)
		audit_str(r, "errno", errno_str(c->err));
	else
		audit_int(r, "result", c->result);
	if (c->have_bound)
		add_addr(r, "bound", &c->bound, c->bound_len, human,
			 sizeof(human));
	if (c->note)
		audit_str(r, "note", c->note);
	return audit_commit(r);
}

/*
 * The summary's verb for a path of c: the access class ("read of", "create
 * of"), but the call itself for the two-path calls, whose classes say
 * nothing of what was tried (a denied hard link of a file outside the tree
 * is "link of SRC", not "write of SRC"; linkat is link, renameat2 rename).
 */
static void path_verb(const struct call *c, const struct call_path *cp,
		      char *verb, size_t len)
{
	static const char *const two_path[] = { "link", "rename" };

	for (size_t i = 0; i < ARRAY_SIZE(two_path); i++)
		if (!strncmp(c->name, two_path[i], strlen(two_path[i]))) {
			snprintf(verb, len, "%s of", two_path[i]);
			return;
		}
	snprintf(verb, len, "%s of", rules_access_name(cp->access));
}

void record_note_denial(struct sup *s, const struct call *c, uint64_t seq)
{
	char what[PATH_MAX + 32] = "";
	char verb[32];
	const char *exe = c->exe ? strrchr(c->exe, '/') : NULL;
	const char *rule = c->v.rule ? c->v.rule : "default";
	bool would = c->v.action == RULES_ALLOW && c->v.would != RULES_ALLOW;

	exe = exe ? exe + 1 : (c->exe ? c->exe : "?");
	if (c->have_addr) {
		if (c->addr.ss_family == AF_INET || c->addr.ss_family == AF_INET6) {
			char ip[INET6_ADDRSTRLEN];
			unsigned port;

			if (c->addr.ss_family == AF_INET) {
				const struct sockaddr_in *in = (const void *)&c->addr;

				inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
				port = ntohs(in->sin_port);
				snprintf(what, sizeof(what), "%s:%u", ip, port);
			} else {
				const struct sockaddr_in6 *in6 = (const void *)&c->addr;

				inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
				port = ntohs(in6->sin6_port);
				snprintf(what, sizeof(what), "[%s]:%u", ip, port);
			}
		} else if (c->n_paths) {
			snprintf(what, sizeof(what), "%s", c->paths[0].resolved);
		}
		snprintf(verb, sizeof(verb), "%s to", c->name);
	} else {
		const struct call_path *cp = NULL;

		for (unsigned i = 0; i < c->n_paths; i++)
			if (c->paths[i].checked &&
			    c->paths[i].v.action == c->v.action &&
			    c->paths[i].v.would == c->v.would) {
				cp = &c->paths[i];
				break;
			}
		if (cp) {
			path_verb(c, cp, verb, sizeof(verb));
			snprintf(what, sizeof(what), "%s", cp->resolved);
		} else {
			snprintf(verb, sizeof(verb), "%s", c->name);
		}
	}
	if (s->out.denials_fd >= 0) {
		/* For an agent harness reading while the run goes on: the
		 * trail record's fields, with its seq, and the summary's
		 * words. */
		struct audit_rec *r = audit_begin(s->out.audit, "denial");
		char human[PATH_MAX + 32];
		char *line;

		add_call(r, c, human, sizeof(human));
		audit_str(r, "denied", verb);
		if (would)
			audit_bool(r, "would_deny", true);
		audit_bytes(r, "what", what, strlen(what));
		line = side_line(s, r, seq);
		if (line)
			side_write(s->out.denials_fd, line);
		free(line);
	}
	for (unsigned i = 0; i < s->tally.n_denials; i++) {
		struct denial *d = &s->tally.denials[i];

		if (!strcmp(d->verb, verb) && !strncmp(d->what, what, sizeof(d->what) - 1) &&
		    !strcmp(d->exe, exe) && !strcmp(d->rule, rule) &&
		    d->would == would) {
			d->count++;
			return;
		}
	}
	if (s->tally.n_denials >= SUP_MAX_DENIALS) {
		s->tally.denials_dropped++;
		return;
	}
	struct denial *d = &s->tally.denials[s->tally.n_denials++];

	snprintf(d->verb, sizeof(d->verb), "%s", verb);
	snprintf(d->what, sizeof(d->what), "%s", what);
	snprintf(d->exe, sizeof(d->exe), "%s", exe);
	snprintf(d->rule, sizeof(d->rule), "%s", rule);
	d->would = would;
	d->count = 1;
}

static void add_str_array_from(struct audit_rec *r, const char *key,
			       const char *buf, size_t len)
{
	audit_arr_begin(r, key);
	for (size_t off = 0; off < len;) {
		size_t n = strnlen(buf + off, len - off);

		audit_bytes(r, NULL, buf + off, n);
		off += n + 1;
	}
	audit_arr_end(r);
}

/*
 * run.start's "limits": each limit the policy sets, its value (policy
 * units) and what enforces it: "supervisor" (it counts or times the tree
 * itself), "cgroup-v1" or "cgroup-v2" (the tree's cgroup), or "rlimit"
 * (each process); "scope" says whether it holds for the tree or for each
 * process.  processes has the kernel's pids.max as a "backstop" where the
 * cgroup could be made.
 */
static void add_limits(struct audit_rec *r, struct sup *s)
{
	audit_obj_begin(r, "limits");
	for (int l = 0; l < RULES_LIMIT_COUNT; l++) {
		enum cgroup_ctrl c = CGROUP_NCTRL;
		const char *via = "rlimit";
		const char *backstop = NULL;
		uint64_t v;

		if (rules_limit(s->run.rules, (enum rules_limit)l, &v) < 0)
			continue;
		switch ((enum rules_limit)l) {
		case RULES_LIMIT_PROCESSES:
			via = "supervisor";
			c = CGROUP_PIDS;
			if (cgroup_via(&s->lim.cg, c) != CGROUP_NONE)
				backstop = cgroup_via_name(
					cgroup_via(&s->lim.cg, c));
			break;
		case RULES_LIMIT_WALL:
			via = "supervisor";
			break;
		case RULES_LIMIT_MEMORY:
			c = CGROUP_MEMORY;
			via = cgroup_via_name(cgroup_via(&s->lim.cg, c));
			break;
		case RULES_LIMIT_CPU:
			c = CGROUP_CPU;
			via = cgroup_via_name(cgroup_via(&s->lim.cg, c));
			break;
		case RULES_LIMIT_FILE_SIZE:
		case RULES_LIMIT_OPEN_FILES:
		case RULES_LIMIT_COUNT:
			break;
		}
		audit_obj_begin(r, rules_limit_name((enum rules_limit)l));
		audit_uint(r, "value", v);
		audit_str(r, "via", via);
		audit_str(r, "scope", strcmp(via, "rlimit") == 0 ? "process" : "tree");
		if (backstop)
			audit_str(r, "backstop", backstop);
		if (c != CGROUP_NCTRL && cgroup_path(&s->lim.cg, c)) {
			const char *cp = cgroup_path(&s->lim.cg, c);

			audit_bytes(r, "cgroup", cp, strlen(cp));
		}
		audit_obj_end(r);
	}
	audit_obj_end(r);
}

/* The name of uid from the user database, or NULL. */
static const char *user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;

	if (getpwuid_r(uid, &pw, buf, len, &res) != 0 || !res)
		return NULL;
	return res->pw_name;
}

/*
 * Who ran it: "user", the name of sysgate's real uid; "home", the HOME
 * the policy's ${HOME} stands for and the command is given (unless the
 * policy's [env] drops it: env_dropped); with --user, "run_as" names the
 * user the command runs as.
 */
static void add_identity(struct audit_rec *r, struct sup *s)
{
	char buf[4096];
	const char *name = user_name(getuid(), buf, sizeof(buf));
	const char *home = getenv("HOME");

	if (name)
		audit_bytes(r, "user", name, strlen(name));
	else
		audit_null(r, "user");
	if (home)
		audit_bytes(r, "home", home, strlen(home));
	else
		audit_null(r, "home");
	if (!s->run.opts->user)
		return;
	audit_obj_begin(r, "run_as");
	if (s->run.opts->user_name)
		audit_bytes(r, "user", s->run.opts->user_name,
			    strlen(s->run.opts->user_name));
	audit_int(r, "uid", s->run.opts->uid);
	audit_int(r, "gid", s->run.opts->gid);
	audit_obj_end(r);
}

int record_run_start(struct sup *s)
{
	struct audit_rec *r = audit_begin(s->out.audit, "run.start");
	struct utsname u;
	char cwd[PATH_MAX];
	char host[256] = "";

	audit_str(r, "version", PACKAGE_VERSION);
	audit_arr_begin(r, "argv");
	for (char *const *a = s->run.opts->sysgate_argv; a && *a; a++)
		audit_bytes(r, NULL, *a, strlen(*a));
	audit_arr_end(r);
	audit_arr_begin(r, "command");
	for (char *const *a = s->run.opts->argv; *a; a++)
		audit_bytes(r, NULL, *a, strlen(*a));
	audit_arr_end(r);
	if (getcwd(cwd, sizeof(cwd)))
		audit_bytes(r, "cwd", cwd, strlen(cwd));
	audit_int(r, "uid", getuid());
	audit_int(r, "gid", getgid());
	add_identity(r, s);
	gethostname(host, sizeof(host) - 1);
	audit_str(r, "host", host);
	if (uname(&u) == 0) {
		char k[sizeof(u.sysname) + sizeof(u.release) + 2];

		snprintf(k, sizeof(k), "%s %s", u.sysname, u.release);
		audit_str(r, "kernel", k);
	}
	audit_int(r, "supervisor_pid", s->run.self);
	audit_str(r, "policy", rules_source(s->run.rules));
	audit_str(r, "policy_hash", s->run.opts->policy_hash_hex);
	audit_str(r, "audit_level",
		  rules_audit_level(s->run.rules) == RULES_AUDIT_ALL ? "all" :
		  rules_audit_level(s->run.rules) == RULES_AUDIT_DENIED ?
		  "denied" : "none");
	if (s->run.opts->tmpdir)
		audit_str(r, "tmpdir", s->run.opts->tmpdir);
	audit_str(r, "mode", rules_is_permissive(s->run.rules) ? "permissive" :
							     "enforce");
	/* Security: the names only; a value never enters the trail. */
	audit_arr_begin(r, "env_dropped");
	for (char *const *n = s->run.env_dropped; n && *n; n++)
		audit_bytes(r, NULL, *n, strlen(*n));
	audit_arr_end(r);
	add_limits(r, s);
	output_describe(s->out.output, r);
	return audit_commit(r);
}

int record_run_end(struct sup *s, int exit_status)
{
	struct audit_rec *r = audit_begin(s->out.audit, "run.end");

	audit_int(r, "exit", exit_status);
	if (s->tally.failed) {
		audit_str(r, "status", "failed");
		audit_str(r, "error", s->tally.fail_msg);
	} else if (s->cmd.child_status >= 0 &&
		   WIFSIGNALED(s->cmd.child_status)) {
		audit_str(r, "status", "signaled");
		audit_str(r, "signal", sig_name(WTERMSIG(s->cmd.child_status)));
	} else {
		audit_str(r, "status", "exited");
	}
	audit_uint(r, "duration_ms", (sup_now_us() - s->run.start_us) / 1000);
	if (s->tally.ipc_removed)
		audit_uint(r, "ipc_removed", s->tally.ipc_removed);
	if (written_dropped())
		audit_uint(r, "files_not_followed", written_dropped());
	audit_obj_begin(r, "counts");
	audit_uint(r, "allow", s->tally.counts[RULES_ALLOW]);
	audit_uint(r, "deny", s->tally.counts[RULES_DENY]);
	audit_uint(r, "kill", s->tally.counts[RULES_KILL]);
	audit_uint(r, "rewrite", s->tally.counts[RULES_REWRITE]);
	if (rules_is_permissive(s->run.rules))
		audit_uint(r, "would_deny", s->tally.would_denied);
	audit_uint(r, "notifications", s->tally.notifications);
	audit_obj_end(r);
	output_end_fields(s->out.output, r);
	audit_put_final(r, s->run.opts->sign_key);
	return audit_commit(r);
}

int record_fork(struct sup *s, pid_t pid, pid_t ppid, pid_t tgid, const char *kind)
{
	struct audit_rec *r = audit_begin(s->out.audit, "proc.fork");

	audit_int(r, "pid", tgid);
	audit_int(r, "tid", pid);
	audit_int(r, "ppid", ppid);
	audit_str(r, "kind", kind);
	return audit_commit(r);
}

int record_exec(struct sup *s, struct proc *p, const char *path,
		const struct exec_image *img)
{
	struct audit_rec *r;

	r = audit_begin(s->out.audit, "proc.exec");
	audit_int(r, "pid", p->tgid);
	audit_int(r, "tid", p->tid);
	audit_bytes(r, "path", path, strlen(path));
	add_str_array_from(r, "argv", img->argv, img->argv_len);
	/* What a question about its calls says it runs (ask hooks). */
	procs_set_argv(p, img->argv, img->argv_len);
	if (s->run.opts->verbosity >= SUPERVISOR_VERBOSE) {
		char esc[PATH_MAX * 4];

		fprintf(stderr, "[pid %d] exec %s\n", p->tid,
			record_tty(esc, sizeof(esc), path));
	}
	return audit_commit(r);
}

int record_exec_violation(struct sup *s, struct proc *p, const char *why,
			  const char *path)
{
	struct audit_rec *r = audit_begin(s->out.audit, "syscall");
	char esc[PATH_MAX * 4];

	audit_int(r, "pid", p->tgid);
	audit_int(r, "tid", p->tid);
	audit_bytes(r, "exe", path, strlen(path));
	audit_str(r, "syscall", "execve");
	audit_str(r, "rule", "sysgate:exec-check");
	audit_str(r, "action", "kill");
	audit_str(r, "note", why);
	fprintf(stderr, "sysgate: killed process %d: %s (%s)\n", p->tgid, why,
		record_tty(esc, sizeof(esc), path));
	return audit_commit(r);
}

/*
 * The kernel's core_pattern, read once before the tree starts: where a
 * core dump goes.  A pattern that starts with '|' pipes it to a program
 * (which takes no notice of RLIMIT_CORE); any other is a file, which the
 * tree's RLIMIT_CORE of 0 (launch.c) prevents.
 */
static char core_pattern[256];

void record_load_core_pattern(void)
{
	int fd = open("/proc/sys/kernel/core_pattern", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, core_pattern, sizeof(core_pattern) - 1);

	if (fd >= 0)
		close(fd);
	core_pattern[n > 0 ? n : 0] = '\0';
	core_pattern[strcspn(core_pattern, "\n")] = '\0';
}

/* The signals whose default action dumps core (signal(7)). */
static bool sig_dumps_core(int sig)
{
	switch (sig) {
	case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS:
	case SIGFPE: case SIGSEGV: case SIGXCPU: case SIGXFSZ: case SIGSYS:
		return true;
	default:
		return false;
	}
}

/* Where a task's core went: "core_dump" is "prevented" (no file was
 * written), "program" (core_pattern pipes it to core_handler) or "file"
 * (where core_pattern says, relative to the task's cwd). */
static void record_core(struct audit_rec *r, int status)
{
	if (!WCOREDUMP(status)) {
		if (sig_dumps_core(WTERMSIG(status)))
			audit_str(r, "core_dump", "prevented");
		return;
	}
	audit_bool(r, "core", true);
	if (core_pattern[0] == '|') {
		audit_str(r, "core_dump", "program");
		audit_str(r, "core_handler", core_pattern + 1);
	} else {
		audit_str(r, "core_dump", "file");
		audit_str(r, "core_pattern", core_pattern);
	}
}

/*
 * Who sent a task's signal and where it faulted, as its signal-delivery
 * stop said; the sender's program when it is a task of the tree.  Only
 * for the signal sig (a note of an earlier one says nothing about it).
 */
static void add_sig_note(struct audit_rec *r, const struct proc *p, int sig)
{
	const struct proc *sender;

	if (!p->sig.have || p->sig.signo != sig)
		return;
	decode_add_sig_note(r, &p->sig);
	sender = p->sig.has_sender ? procs_find(p->sig.pid) : NULL;
	if (sender && sender->exe)
		audit_bytes(r, "sender", sender->exe, strlen(sender->exe));
}

int record_exit(struct sup *s, struct proc *p, int status)
{
	struct audit_rec *r;
	int err;

	/* What the process wrote before it ended comes first; an output
	 * record that could not be written fails the run as this one. */
	err = output_sync(s->out.output);
	if (err < 0)
		return err;
	r = audit_begin(s->out.audit, "proc.exit");

	audit_int(r, "pid", p->tgid);
	audit_int(r, "tid", p->tid);
	if (p->tid != p->tgid)
		audit_bool(r, "thread", true);
	if (WIFSIGNALED(status)) {
		audit_str(r, "signal", sig_name(WTERMSIG(status)));
		add_sig_note(r, p, WTERMSIG(status));
		record_core(r, status);
	} else {
		audit_int(r, "code", WEXITSTATUS(status));
	}
	audit_uint(r, "duration_ms", (sup_now_us() - p->start_us) / 1000);
	return audit_commit(r);
}

int record_signal(struct sup *s, struct proc *p, int sig)
{
	struct audit_rec *r = audit_begin(s->out.audit, "proc.signal");

	audit_int(r, "pid", p->tgid);
	audit_int(r, "tid", p->tid);
	audit_str(r, "signal", sig_name(sig));
	add_sig_note(r, p, sig);
	return audit_commit(r);
}

void record_summary(struct sup *s, int exit_status)
{
	(void)exit_status;
	if (s->run.opts->verbosity == SUPERVISOR_QUIET)
		return;
	if (rules_is_permissive(s->run.rules))
		fprintf(stderr, "sysgate: permissive run: the policy %s denied nothing; it would deny %llu call%s (below); sysgate's own checks still deny\n",
			rules_source(s->run.rules),
			(unsigned long long)s->tally.would_denied,
			s->tally.would_denied == 1 ? "" : "s");
	for (unsigned i = 0; i < s->tally.n_denials; i++) {
		const struct denial *d = &s->tally.denials[i];
		char what[sizeof(d->what) * 4], exe[sizeof(d->exe) * 4];

		/* Security: the path and the program are the tree's. */
		fprintf(stderr, "sysgate: %s %s%s%s by %s (rule %s), %u time%s\n",
			d->would ? "would deny" : "denied",
			d->verb, d->what[0] ? " " : "",
			record_tty(what, sizeof(what), d->what),
			record_tty(exe, sizeof(exe), d->exe), d->rule,
			d->count, d->count == 1 ? "" : "s");
	}
	if (s->tally.denials_dropped)
		fprintf(stderr, "sysgate: ... and %lu more denials (see the trail)\n",
			s->tally.denials_dropped);
	if (s->run.opts->audit_path) {
		unsigned char h[AUDIT_HASH_BYTES];
		char hex[2 * AUDIT_HASH_BYTES + 1];
		static char shown[4 * PATH_MAX + 1];

		/* The hash a harness keeps with the path: sysgate verify
		 * --hash tells that the trail there ends with it. */
		audit_last_hash(s->out.audit, h);
		sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
		fprintf(stderr, "sysgate: audit trail: %s (%llu records, %llu denied, last hash %s)\n",
			record_tty(shown, sizeof(shown), s->guard.trail_real[0] ?
				   s->guard.trail_real : s->run.opts->audit_path),
			(unsigned long long)audit_last_seq(s->out.audit),
			(unsigned long long)(s->tally.counts[RULES_DENY] +
					     s->tally.counts[RULES_KILL]),
			hex);
	}
}

int record_limit(struct sup *s, struct proc *p, enum rules_limit which,
		 uint64_t value, const char *action)
{
	struct audit_rec *r = audit_begin(s->out.audit, "limit");

	if (p) {
		audit_int(r, "pid", p->tgid);
		audit_int(r, "tid", p->tid);
	}
	audit_str(r, "limit", rules_limit_name(which));
	audit_uint(r, "value", value);
	audit_str(r, "action", action);
	if (s->run.opts->verbosity >= SUPERVISOR_NORMAL)
		fprintf(stderr, "sysgate: limit %s reached: %s\n",
			rules_limit_name(which), action);
	return audit_commit(r);
}
