/* SPDX-License-Identifier: MIT */
/*
 * Stack traces for `stack = yes`: the stop-and-restart dance around a
 * notified call (see stack.h), the unwind with libunwind-ptrace, and the
 * caches that make a second stack through the same code cheap: one
 * libunwind address space per process (UNW_CACHE_GLOBAL keeps what it
 * learnt of each IP), the process's executable mappings, and the symbols
 * by (module device, inode, offset in the module), so that
 * unw_get_proc_name (which reads the ELF file each time) runs once per
 * return address in the whole run.  libunwind is loaded with dlopen, at
 * start-up and only when the policy has stack = yes (stack_init), so that
 * other runs do not pay for it.  Not on the trusted path: a stack is
 * informational and never changes a decision.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/sysmacros.h>

#include <libunwind-ptrace.h>

#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/sup.h"
#include "supervisor/stack.h"

/* The kernel's "restart this call, whatever the signal handlers say"
 * (include/linux/errno.h; never seen by user space when a stop follows). */
#define STACK_ERESTARTNOINTR 513

/* A tid that keeps being interrupted without its stack being used (its call
 * changes between the stop and the restart) is decided without one. */
#define STACK_MAX_TRIES 4

/* ------------------------------------------------------------------ */
/* libunwind, loaded with dlopen                                         */

/* The unw_* names are macros for the x86_64 symbols (_Ux86_64_*):
 * STACK_STR expands them before making a string of them. */
#define STACK_STR_(x) #x
#define STACK_STR(x) STACK_STR_(x)

static struct {
	bool tried, ok;
	/* Why it is not loaded (fits a stack_trace's error). */
	char error[sizeof(((struct stack_trace *)0)->error)];
	__typeof__(unw_create_addr_space) *create_addr_space;
	__typeof__(unw_destroy_addr_space) *destroy_addr_space;
	__typeof__(unw_set_caching_policy) *set_caching_policy;
	__typeof__(unw_init_remote) *init_remote;
	__typeof__(unw_get_reg) *get_reg;
	__typeof__(unw_step) *step;
	__typeof__(unw_get_proc_name) *get_proc_name;
	__typeof__(unw_strerror) *str_error;
	__typeof__(_UPT_create) *upt_create;
	__typeof__(_UPT_destroy) *upt_destroy;
	unw_accessors_t *upt_accessors;
} uw;

/* dlsym into *out; false (and uw.error set) when missing. */
static bool uw_sym(void *h, const char *lib, const char *name, void *out)
{
	void *p = dlsym(h, name);

	if (!p) {
		snprintf(uw.error, sizeof(uw.error), "%s has no %s", lib, name);
		return false;
	}
	memcpy(out, &p, sizeof(p));
	return true;
}

static void uw_load(void)
{
	const char *pt = UNWIND_PTRACE_SONAME, *arch = UNWIND_ARCH_SONAME;
	void *ha, *hp;

	/* RTLD_GLOBAL: libunwind-ptrace takes the _Ux86_64_* helpers from
	 * the global scope; it does not list this library as a dependency. */
	ha = dlopen(arch, RTLD_NOW | RTLD_GLOBAL);
	hp = ha ? dlopen(pt, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!hp) {
		const char *why = dlerror();

		snprintf(uw.error, sizeof(uw.error), "cannot load %s: %s",
			 ha ? pt : arch, why ? why : "unknown error");
		return;
	}
	uw.ok = uw_sym(ha, arch, STACK_STR(unw_create_addr_space), &uw.create_addr_space) &&
		uw_sym(ha, arch, STACK_STR(unw_destroy_addr_space), &uw.destroy_addr_space) &&
		uw_sym(ha, arch, STACK_STR(unw_set_caching_policy), &uw.set_caching_policy) &&
		uw_sym(ha, arch, STACK_STR(unw_init_remote), &uw.init_remote) &&
		uw_sym(ha, arch, STACK_STR(unw_get_reg), &uw.get_reg) &&
		uw_sym(ha, arch, STACK_STR(unw_step), &uw.step) &&
		uw_sym(ha, arch, STACK_STR(unw_get_proc_name), &uw.get_proc_name) &&
		uw_sym(ha, arch, STACK_STR(unw_strerror), &uw.str_error) &&
		uw_sym(hp, pt, "_UPT_create", &uw.upt_create) &&
		uw_sym(hp, pt, "_UPT_destroy", &uw.upt_destroy) &&
		uw_sym(hp, pt, "_UPT_accessors", &uw.upt_accessors);
	/* The handles stay open for the rest of the run. */
}

int stack_init(char *err, size_t err_len)
{
	if (!uw.tried) {
		uw.tried = true;
		uw_load();
	}
	if (!uw.ok && err && err_len)
		snprintf(err, err_len, "%s", uw.error);
	return uw.ok ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Per process: the address space and the executable mappings.         */

struct smap {
	uint64_t start, end, pgoff;
	dev_t dev;
	ino_t ino;
	char *path;           /* NULL: anonymous (JIT code) */
};

#define STACK_MAX_MAPS 4096

struct sproc {
	pid_t tgid;
	unw_addr_space_t as;
	struct smap *maps;
	size_t n_maps;
	struct sproc *next;
};

static struct sproc *sprocs;

static void maps_free(struct sproc *sp)
{
	for (size_t i = 0; i < sp->n_maps; i++)
		free(sp->maps[i].path);
	free(sp->maps);
	sp->maps = NULL;
	sp->n_maps = 0;
}

/* Read the executable mappings of task tid.  0 or -errno. */
static int maps_read(struct sproc *sp, pid_t tid)
{
	char name[64];
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	maps_free(sp);
	snprintf(name, sizeof(name), "/proc/%d/maps", (int)tid);
	f = fopen(name, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		int path_at = 0;
		struct smap *m;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
			   perms, &pgoff, &maj, &min, &ino, &path_at) < 7 ||
		    perms[2] != 'x')
			continue;
		if (sp->n_maps == STACK_MAX_MAPS)
			break;
		if (sp->n_maps % 64 == 0) {
			struct smap *nm = reallocarray(sp->maps, sp->n_maps + 64,
						       sizeof(*nm));

			if (!nm)
				break;
			sp->maps = nm;
		}
		line[strcspn(line, "\n")] = '\0';
		m = &sp->maps[sp->n_maps];
		*m = (struct smap){ .start = start, .end = end, .pgoff = pgoff,
				    .dev = makedev(maj, min), .ino = (ino_t)ino };
		if (path_at > 0 && line[path_at] &&
		    !(m->path = strdup(line + path_at)))
			continue;
		sp->n_maps++;
	}
	free(line);
	fclose(f);
	return 0;
}

static const struct smap *maps_find(const struct sproc *sp, uint64_t ip)
{
	for (size_t i = 0; i < sp->n_maps; i++)
		if (ip >= sp->maps[i].start && ip < sp->maps[i].end)
			return &sp->maps[i];
	return NULL;
}

static struct sproc *sproc_get(pid_t tgid)
{
	struct sproc *sp;

	for (sp = sprocs; sp; sp = sp->next)
		if (sp->tgid == tgid)
			return sp;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->as = uw.create_addr_space(uw.upt_accessors, 0);
	if (!sp->as) {
		free(sp);
		return NULL;
	}
	uw.set_caching_policy(sp->as, UNW_CACHE_GLOBAL);
	sp->tgid = tgid;
	sp->next = sprocs;
	sprocs = sp;
	return sp;
}

void stack_process_forget(pid_t tgid)
{
	for (struct sproc **pp = &sprocs; *pp; pp = &(*pp)->next) {
		struct sproc *sp = *pp;

		if (sp->tgid == tgid) {
			*pp = sp->next;
			uw.destroy_addr_space(sp->as);
			maps_free(sp);
			free(sp);
			return;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Symbols by (device, inode, offset in the module), for the whole run. */

struct sym {
	dev_t dev;
	ino_t ino;
	uint64_t off;
	uint64_t sym_off;
	char *name;           /* NULL: the module has no symbol for it */
	struct sym *next;
};

#define SYM_BUCKETS 4096u
#define SYM_MAX 65536u        /* then names are looked up every time */

static struct sym *syms[SYM_BUCKETS];
static unsigned n_syms;

static unsigned sym_slot(dev_t dev, ino_t ino, uint64_t off)
{
	uint64_t h = (uint64_t)dev * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)ino * 0xc2b2ae3d27d4eb4full ^ off;

	h ^= h >> 29;
	return (unsigned)(h * 0x94d049bb133111ebull >> 40) % SYM_BUCKETS;
}

static const struct sym *sym_find(dev_t dev, ino_t ino, uint64_t off)
{
	for (const struct sym *e = syms[sym_slot(dev, ino, off)]; e; e = e->next)
		if (e->dev == dev && e->ino == ino && e->off == off)
			return e;
	return NULL;
}

static void sym_add(dev_t dev, ino_t ino, uint64_t off, const char *name,
		    uint64_t sym_off)
{
	struct sym *e;
	unsigned k = sym_slot(dev, ino, off);

	if (n_syms >= SYM_MAX)
		return;
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	*e = (struct sym){ .dev = dev, .ino = ino, .off = off,
			   .sym_off = sym_off, .next = syms[k] };
	if (name && !(e->name = strdup(name))) {
		free(e);
		return;
	}
	syms[k] = e;
	n_syms++;
}

/* The name of the function holding the cursor's IP, from the cache or
 * from libunwind (which reads the module's ELF symbol tables). */
static void symbolise(unw_cursor_t *cur, const struct smap *m,
		      struct stack_frame *f)
{
	char name[STACK_SYMBOL_MAX];
	unw_word_t off = 0;
	int rc;

	if (m && m->ino) {
		const struct sym *e = sym_find(m->dev, m->ino, f->module_offset);

		if (e) {
			if (e->name) {
				snprintf(f->symbol, sizeof(f->symbol), "%s", e->name);
				f->symbol_offset = e->sym_off;
				f->have_symbol = true;
			}
			return;
		}
	}
	rc = uw.get_proc_name(cur, name, sizeof(name), &off);
	/* -UNW_ENOMEM: the name was cut to the buffer; keep what fits. */
	if (rc == 0 || rc == -UNW_ENOMEM) {
		name[sizeof(name) - 1] = '\0';
		snprintf(f->symbol, sizeof(f->symbol), "%s", name);
		f->symbol_offset = off;
		f->have_symbol = true;
	}
	if (m && m->ino)
		sym_add(m->dev, m->ino, f->module_offset,
			f->have_symbol ? f->symbol : NULL, f->symbol_offset);
}

/* ------------------------------------------------------------------ */
/* Unwinding at a stop                                                   */

static void stack_fail(struct stack_trace *st, const char *what, int err)
{
	if (err)
		snprintf(st->error, sizeof(st->error), "%s: %s", what,
			 uw.str_error(err));
	else
		snprintf(st->error, sizeof(st->error), "%s", what);
}

static void unwind(struct sproc *sp, pid_t tid, struct stack_trace *st)
{
	unw_cursor_t cur;
	bool reread = false;
	void *upt;
	int rc;

	upt = uw.upt_create(tid);
	if (!upt) {
		stack_fail(st, "out of memory", 0);
		return;
	}
	if (!sp->maps)
		maps_read(sp, tid);
	rc = uw.init_remote(&cur, sp->as, upt);
	if (rc < 0) {
		stack_fail(st, "cannot start the unwind", rc);
		goto out;
	}
	for (;;) {
		struct stack_frame *f = &st->frames[st->n_frames];
		const struct smap *m;
		unw_word_t ip;

		rc = uw.get_reg(&cur, UNW_REG_IP, &ip);
		if (rc < 0) {
			stack_fail(st, "cannot read a frame's address", rc);
			break;
		}
		if (ip == 0)
			break;
		memset(f, 0, sizeof(*f));
		f->ip = ip;
		m = maps_find(sp, ip);
		if (!m && !reread) {
			/* Mapped since the last look (dlopen, a new thread's
			 * stack of code): read the maps again, once. */
			reread = true;
			maps_read(sp, tid);
			m = maps_find(sp, ip);
		}
		if (!m && st->n_frames > 0) {
			/* A return address outside executable memory: the
			 * walk went astray (no unwind tables, as in a non-PIE
			 * static program); what follows would be noise. */
			snprintf(st->error, sizeof(st->error),
				 "frame %u: 0x%" PRIx64 " is not in executable memory",
				 st->n_frames, (uint64_t)ip);
			break;
		}
		if (m && m->path) {
			snprintf(f->module, sizeof(f->module), "%s", m->path);
			f->module_offset = ip - m->start + m->pgoff;
			f->have_module = true;
		}
		symbolise(&cur, m, f);
		st->n_frames++;
		rc = uw.step(&cur);
		if (rc <= 0) {
			if (rc < 0)
				stack_fail(st, "the unwind stopped early", rc);
			break;
		}
		if (st->n_frames == STACK_MAX_FRAMES) {
			st->truncated = true;
			break;
		}
	}
out:
	uw.upt_destroy(upt);
}

void stack_on_stop(struct proc *p)
{
	struct stack_trace *st = p->stack;
	struct sproc *sp;

	p->stack_wanted = false;
	if (!st || st->taken)
		return;
	st->taken = true;
	if (stack_init(NULL, 0) < 0) {
		/* supervisor_run loads it at start-up when the policy
		 * asks for stacks; if that did not happen, say why. */
		stack_fail(st, uw.error, 0);
		return;
	}
	sp = sproc_get(p->tgid);
	if (!sp) {
		stack_fail(st, "out of memory", 0);
		return;
	}
	unwind(sp, p->tid, st);
	if (st->n_frames == 0 && !st->error[0])
		stack_fail(st, "no frame found", 0);
}

/* ------------------------------------------------------------------ */
/* The request, from the notification handler                           */

static bool same_call(const struct stack_trace *st, const struct seccomp_data *d)
{
	return st->nr == d->nr && !memcmp(st->args, d->args, sizeof(st->args));
}

/* No memory for a stack: the record says so. */
static struct stack_trace stack_oom = {
	.taken = true,
	.error = "out of memory",
};

int stack_request(struct sup *s, struct call *c)
{
	const struct seccomp_data *d = &c->req->data;
	struct proc *p = procs_find(c->tid);
	struct stack_trace *st;
	int r;

	c->stack = NULL;
	/* The stack only goes into the record. */
	if (!c->v.audit)
		return 0;
	if (!p) {
		c->stack = &stack_oom;
		return 0;
	}
	st = p->stack;
	if (st && st->taken && same_call(st, d) &&
	    (st->used_id == 0 || st->used_id == c->req->id)) {
		/* The restarted call (or the same notification decided
		 * again, as action = ask does). */
		st->used_id = c->req->id;
		p->stack_tries = 0;
		c->stack = st;
		return 0;
	}
	/* Whatever is held was taken for an earlier call. */
	free(p->stack);
	p->stack = NULL;
	p->stack_wanted = false;
	st = calloc(1, sizeof(*st));
	if (!st) {
		c->stack = &stack_oom;
		return 0;
	}
	st->nr = d->nr;
	memcpy(st->args, d->args, sizeof(st->args));
	st->used_id = c->req->id;
	p->stack = st;
	c->stack = st;
	if (p->stack_tries >= STACK_MAX_TRIES) {
		p->stack_tries = 0;
		st->taken = true;
		stack_fail(st, "the call changed at each restart", 0);
		return 0;
	}
	if (ptrace(PTRACE_INTERRUPT, c->tid, 0, 0) < 0) {
		st->taken = true;
		snprintf(st->error, sizeof(st->error),
			 "cannot stop the caller: %s", strerror(errno));
		return 0;
	}
	st->used_id = 0;
	p->stack_wanted = true;
	p->stack_tries++;
	/*
	 * The trap that PTRACE_INTERRUPT queued (TIF_SIGPENDING is set) makes
	 * the kernel stop the task on its way back to user mode; then, with
	 * no signal to deliver or with one, -ERESTARTNOINTR restarts the call
	 * (arch_do_signal_or_restart).  Nothing ran: the call is decided when
	 * it comes back.
	 */
	r = notify_send_resp(s, c->req->id, 0, STACK_ERESTARTNOINTR, false);
	if (r < 0) {
		/* The listener failed: decide now (the reply will fail
		 * too, and the loop stops the tree). */
		st->taken = true;
		st->used_id = c->req->id;
		snprintf(st->error, sizeof(st->error),
			 "cannot restart the call: %s", strerror(-r));
		return 0;
	}
	c->stack = NULL;
	return 1;
}

void stack_forget_task(struct proc *p)
{
	free(p->stack);
	p->stack = NULL;
}
