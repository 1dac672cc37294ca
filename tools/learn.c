/* SPDX-License-Identifier: MIT */
/*
 * sysgate learn AUDIT... [-o POLICY] [--base POLICY] [--diff POLICY]: the
 * least-privilege policy that allows what the runs recorded in the trails
 * did, and nothing else that sysgate mediates: execs by exact path, file
 * access by class and by file (a directory with many files accessed the
 * same way as "dir/" "**"), network endpoints by exact address.  Run-specific
 * names are generalised (${TMPDIR}, ${CWD}, ${HOME}, /proc/<pid>), and so
 * are names another run would not repeat: a directory the run created
 * stands for everything below it, git's object store and made-up names
 * (mkstemp, tempfile, .pyc temp names) become globs.  Without --base the
 * default policy's guards ([env], secrets, other runs' trails) come first,
 * and what they refuse is not learned.
 *
 * The learned policy keeps "default = allow" for the syscalls no rule
 * names (read, mmap, ...): a default deny would refuse the whole program.
 * What it mediates (@file, @exec, @network) ends in explicit deny rules,
 * so only the learned calls get through.  Everything in a trail came from
 * the traced program: it is written into the policy only as a path or
 * address item that the policy grammar reads back as exactly that, and
 * the result is loaded with rules_load_string() before it is written.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"
#include "rules/rules.h"
#include "tools/tools.h"

#define EXIT_TOOL_FAILURE 125
/* A directory with this many distinct files accessed the same way is
 * allowed as dir/ **. */
#define LEARN_DIR_FILES 8
/* Longest item written on one policy line (lines stop at 198 bytes). */
#define LEARN_ITEM_MAX 140
/* Denied calls listed at the top, at most. */
#define LEARN_MAX_DENIED 200

/* What a learned item allows: a file access class, an exec, an address. */
enum kind {
	K_EXEC = 0,
	K_READ,
	K_WRITE,
	K_CREATE,	/* allowed as create, write and read: the run's own file */
	K_DELETE,
	K_STAT,
	K_NET,
	K_COUNT
};

static const struct {
	const char *rule;	/* learned-NAME */
	const char *syscalls;
	const char *access;	/* NULL: no access key */
	const char *noun;	/* in the counting comment */
} kinds[K_COUNT] = {
	[K_EXEC] = { "exec", "@exec", NULL, "execs" },
	[K_READ] = { "read", "@file", "read", "reads" },
	[K_WRITE] = { "write", "@file", "write", "writes" },
	[K_CREATE] = { "create", "@file", "create, write, read", "creates" },
	[K_DELETE] = { "delete", "@file", "delete", "deletes" },
	[K_STAT] = { "stat", "@file", "stat", "path-only opens" },
	[K_NET] = { "network", "@network", NULL, "connections" },
};

/* One allowed call as learned: its kind, the item (generalised path or
 * address text), the run it came from; and for --base/--diff, enough of
 * the call to decide it again. */
struct obs {
	enum kind kind;
	char *item;
	unsigned run;
	int nr;
	unsigned access;
	char *path;	/* the concrete path (for rules_match), or NULL */
	struct sockaddr_storage ss;
	socklen_t ss_len;
};

struct learn {
	struct obs *obs;
	size_t n_obs, cap_obs;
	char **denied;
	size_t n_denied, cap_denied;
	unsigned runs;
	/* The current run's names to generalise. */
	char *cwd, *tmpdir, *home;
	/* Every run's cwd and tmpdir (index run - 1), to decide its calls
	 * again under another policy. */
	char **run_cwd, **run_tmpdir;
	/* Directories a run created (their items), and the mkdirs recorded
	 * before they were made, waiting for their syscall.result. */
	char **made;
	size_t n_made, cap_made;
	struct made_wait *waits;
	size_t n_waits, cap_waits;
	/* Calls a permissive run let through that its policy refuses. */
	char **woulds;
	size_t n_woulds, cap_woulds;
	/* Files made as mkstemp makes them (O_CREAT|O_EXCL, mode 0600):
	 * their paths and the item every access to them is learned as. */
	struct excl_made *excl;
	size_t n_excl, cap_excl;
};

struct excl_made {
	unsigned run;
	char *path;
	char *item;
};

struct made_wait {
	unsigned run;
	uint64_t seq;
	char *item;
};

static void *xrealloc_array(void *p, size_t n, size_t size)
{
	void *np = reallocarray(p, n ? n : 1, size);

	if (!np) {
		fprintf(stderr, "sysgate learn: out of memory\n");
		exit(EXIT_TOOL_FAILURE);
	}
	return np;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "sysgate learn: out of memory\n");
		exit(EXIT_TOOL_FAILURE);
	}
	return d;
}

__attribute__((format(printf, 1, 2)))
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "sysgate learn: out of memory\n");
		exit(EXIT_TOOL_FAILURE);
	}
	return s;
}

/* ---- generalising names ----------------------------------------------- */

static size_t under(const char *path, const char *dir)
{
	size_t n;

	if (!dir || !dir[0] || !strcmp(dir, "/"))
		return 0;
	n = strlen(dir);
	if (strncmp(path, dir, n) || (path[n] != '/' && path[n] != '\0'))
		return 0;
	return n;
}

/* "/proc/123/x" -> "/proc/ * /x" (and task ids below it). */
static void generalise_pids(char *p)
{
	static const char *const prefixes[] = { "/proc/", "/task/" };
	char *s = p;

	while (*s) {
		size_t k, plen = 0, d;

		for (k = 0; k < 2 && !plen; k++)
			if (!strncmp(s, prefixes[k], strlen(prefixes[k])) &&
			    (k == 0 ? s == p : true))
				plen = strlen(prefixes[k]);
		if (!plen) {
			s++;
			continue;
		}
		s += plen;
		d = strspn(s, "0123456789");
		if (d && (s[d] == '/' || s[d] == '\0')) {
			*s = '*';
			memmove(s + 1, s + d, strlen(s + d) + 1);
		}
	}
}

/* Is s safe as one item of a path list, read back as exactly itself? */
static bool item_ok(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);

	if (n == 0 || n > LEARN_ITEM_MAX || s[n - 1] == ' ' || s[0] == ' ')
		return false;
	for (; *u; u++)
		if (*u < 0x20 || *u == 0x7f || *u == ',' || *u == ';' ||
		    *u == '*' || *u == '?' || *u == '$' || *u == '"')
			return false;
	return true;
}

/* A character of the names mkstemp, mkdtemp and Python's tempfile
 * make. */
static bool name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9');
}

/*
 * Does the run s[0..n) of name characters look made up by a program: a
 * number of six digits or more (a pid, a time: Python's .pyc temp names),
 * or six characters or more mixing digits and letters, or both cases
 * (mkstemp's XXXXXX, a hash).  A word ("status", "README") does not.
 */
static bool looks_random(const char *s, size_t n)
{
	size_t digits = 0, upper = 0, lower = 0;

	if (n < 6)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else if (s[i] >= 'A' && s[i] <= 'Z')
			upper++;
		else
			lower++;
	}
	return digits == n || (digits && (upper || lower)) ||
	       (upper >= 2 && lower >= 2);
}

/*
 * One component of an item with its made-up parts as "*": a name that
 * starts with "tmp" and goes on with six or more name characters (or '_':
 * Python's tempfile, git's tmp_obj_) up to its extension, and any run of
 * name characters after '.', '-' or '_' that looks_random().  Writes the
 * result to out (at least len + 1 bytes); true when it changed.
 */
static bool glob_component(const char *c, size_t len, char *out)
{
	size_t i = 0, o = 0;
	bool changed = false;

	if (len > 3 && !strncmp(c, "tmp", 3)) {
		size_t k = 3;

		while (k < len && (name_char(c[k]) || c[k] == '_' ||
				   ((c[k] == '.' || c[k] == '-') && k == 3)))
			k++;
		if (k - 3 >= 6) {
			memcpy(out, "tmp*", 4);
			o = 4;
			i = k;
			changed = true;
		}
	}
	while (i < len) {
		size_t k = i;

		if (i > 0 && strchr(".-_", c[i - 1]) && name_char(c[i])) {
			while (k < len && name_char(c[k]))
				k++;
			if (looks_random(c + i, k - i)) {
				out[o++] = '*';
				i = k;
				changed = true;
				continue;
			}
		}
		out[o++] = c[i++];
	}
	out[o] = '\0';
	return changed;
}

/*
 * Names another run of the same task does not repeat, as globs: git's
 * object store (".git/objects/" then "**": object and pack names are
 * hashes), then made-up names (glob_component()) in each component after
 * the run's variable.  item is a new string; returns the same or a new
 * one (the old freed).
 */
static char *glob_made_up(char *item)
{
	static const char store[] = "/.git/objects/";
	char *git = strstr(item, store);
	size_t len, start = 0;
	char *out, *o;

	if (git) {
		char *t = xasprintf("%.*s%s**", (int)(git - item), item, store);

		free(item);
		return t;
	}
	len = strlen(item);
	out = xrealloc_array(NULL, len + 1, 1);
	if (item[0] == '$')
		start = strcspn(item, "}") + 1;
	memcpy(out, item, start);
	o = out + start;
	for (size_t i = start; i < len;) {
		size_t n;

		if (item[i] == '/') {
			*o++ = item[i++];
			continue;
		}
		n = strcspn(item + i, "/");
		/* A '*' of ours (a pid) is left as it is. */
		if (memchr(item + i, '*', n) ||
		    !glob_component(item + i, n, o)) {
			memcpy(o, item + i, n);
			o[n] = '\0';
		}
		o += strlen(o);
		i += n;
	}
	*o = '\0';
	free(item);
	return out;
}

/*
 * A file made as mkstemp makes it: the last run of six or more name
 * characters after '.', '-' or '_' in its last component is made up,
 * whatever it looks like (mkstemp's XXXXXX may come out as a word).  A
 * new string, or NULL when the item has no such run or is a glob.
 */
static char *glob_excl(const char *item)
{
	const char *last = strrchr(item, '/');
	const char *run = NULL;
	size_t run_len = 0;

	if (!last || strchr(last, '*'))
		return NULL;
	for (const char *c = last + 1; *c; c++) {
		size_t n = 0;

		if (!strchr(".-_", c[-1]) || c == last + 1)
			continue;
		while (name_char(c[n]))
			n++;
		if (n >= 6) {
			run = c;
			run_len = n;
		}
	}
	if (!run)
		return NULL;
	return xasprintf("%.*s*%s", (int)(run - item), item, run + run_len);
}

/*
 * The item for a canonical path of the current run: variables for the
 * run's directories, "*" for pids; a path the policy syntax cannot hold
 * as it is (too long, a comma, a glob character from the program) widens
 * to the longest clean directory above it, "/dir/ **".
 */
static char *path_item(const struct learn *L, const char *path)
{
	const struct {
		const char *dir;
		const char *var;
	} vars[] = {
		{ L->tmpdir, "${TMPDIR}" },
		{ L->cwd, "${CWD}" },
		{ L->home, "${HOME}" },
	};
	size_t best = 0, bi = 0, i;
	char *out, *raw, *cut;
	bool widened = false;

	for (i = 0; i < 3; i++) {
		size_t n = under(path, vars[i].dir);

		if (n > best) {
			best = n;
			bi = i;
		}
	}
	/* The private temp dir is new in every run: all of it. */
	if (best && bi == 0)
		return xstrdup("${TMPDIR}/**");
	/* Checked before the variables and '*' of ours go in: a '$', '*'
	 * or ',' from the program must not become policy syntax. */
	raw = xstrdup(path);
	while (!item_ok(raw) && (cut = strrchr(raw, '/')) && cut != raw) {
		*cut = '\0';
		widened = true;
	}
	if (!item_ok(raw) || (widened && strlen(raw) < best)) {
		free(raw);
		return NULL;
	}
	out = best ? xasprintf("%s%s%s", vars[bi].var, raw + best,
			       widened ? "/**" : "") :
		     xasprintf("%s%s", raw, widened ? "/**" : "");
	free(raw);
	generalise_pids(out);
	return glob_made_up(out);
}

/*
 * The item for a file without a name, as the supervisor calls it: a memfd
 * (memfd:NAME), a deleted file (deleted:/PATH), or what fchmod, futimens
 * and the like name by fd: pipe:[INODE], socket:[INODE], anon_inode:KIND.
 * None of them is found again by its name in another run: each kind is
 * learned as a whole, but for an exec (exact): running code without a
 * name is allowed only as it was seen (memfd:payload), never as a kind.
 * NULL for anything else.
 */
static char *nameless_item(const char *path, bool exact)
{
	size_t n = rules_nameless_prefix(path);

	if (!n)
		return NULL;
	if (exact)
		return item_ok(path) ? xstrdup(path) : NULL;
	/* deleted:/PATH: "**" spans its slashes. */
	return xasprintf("%.*s%s", (int)n, path, path[n] == '/' ? "/**" : "*");
}

/* ---- reading trails --------------------------------------------------- */

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void add_obs(struct learn *L, struct obs *o)
{
	if (L->n_obs == L->cap_obs) {
		L->cap_obs = L->cap_obs ? L->cap_obs * 2 : 256;
		L->obs = xrealloc_array(L->obs, L->cap_obs, sizeof(*L->obs));
	}
	L->obs[L->n_obs++] = *o;
}

static void add_denied(struct learn *L, char *text)
{
	for (size_t i = 0; i < L->n_denied; i++) {
		if (!strcmp(L->denied[i], text)) {
			free(text);
			return;
		}
	}
	if (L->n_denied >= LEARN_MAX_DENIED) {
		free(text);
		return;
	}
	if (L->n_denied == L->cap_denied) {
		L->cap_denied = L->cap_denied ? L->cap_denied * 2 : 16;
		L->denied = xrealloc_array(L->denied, L->cap_denied,
					   sizeof(*L->denied));
	}
	L->denied[L->n_denied++] = text;
}

static void add_string(char ***v, size_t *n, size_t *cap, char *text)
{
	for (size_t i = 0; i < *n; i++) {
		if (!strcmp((*v)[i], text)) {
			free(text);
			return;
		}
	}
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = xrealloc_array(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = text;
}

/* A create with O_EXCL and mode 0600 (mkstemp, Python's tempfile): every
 * access of the run to that path is learned as its glob_excl() item. */
static void note_excl(struct learn *L, const json_t *args, const char *path,
		      const char *item)
{
	const char *flags = jstr(args, "flags"), *mode = jstr(args, "mode");
	char *g;

	if (!flags || !strstr(flags, "O_EXCL") || !mode ||
	    strcmp(mode, "0600") || !(g = glob_excl(item)))
		return;
	if (L->n_excl == L->cap_excl) {
		L->cap_excl = L->cap_excl ? L->cap_excl * 2 : 16;
		L->excl = xrealloc_array(L->excl, L->cap_excl,
					 sizeof(*L->excl));
	}
	L->excl[L->n_excl++] = (struct excl_made){
		.run = L->runs, .path = xstrdup(path), .item = g,
	};
}

static void widen_excl(struct learn *L)
{
	for (size_t i = 0; i < L->n_obs; i++) {
		struct obs *o = &L->obs[i];

		for (size_t k = 0; o->path && k < L->n_excl; k++) {
			if (L->excl[k].run != o->run ||
			    strcmp(L->excl[k].path, o->path))
				continue;
			free(o->item);
			o->item = xstrdup(L->excl[k].item);
			break;
		}
	}
}

/* A directory the run created: everything below it is the run's own. */
static void add_made(struct learn *L, const char *item)
{
	/* Only a name of its own, not a glob of the run's TMPDIR. */
	if (strstr(item, "**"))
		return;
	add_string(&L->made, &L->n_made, &L->cap_made, xstrdup(item));
}

/*
 * A mkdir the trail records: made when it has no errno.  One recorded
 * before it was made ("pending") is made when its syscall.result says so
 * (learn_result()).
 */
static void note_mkdir(struct learn *L, const json_t *rec, const char *item)
{
	json_int_t seq = json_integer_value(json_object_get(rec, "seq"));

	if (json_object_get(rec, "errno"))
		return;
	if (!json_is_true(json_object_get(rec, "pending"))) {
		add_made(L, item);
		return;
	}
	if (L->n_waits == L->cap_waits) {
		L->cap_waits = L->cap_waits ? L->cap_waits * 2 : 16;
		L->waits = xrealloc_array(L->waits, L->cap_waits,
					  sizeof(*L->waits));
	}
	L->waits[L->n_waits++] = (struct made_wait){
		.run = L->runs, .seq = (uint64_t)seq, .item = xstrdup(item),
	};
}

static void learn_result(struct learn *L, const json_t *rec)
{
	json_int_t ref = json_integer_value(json_object_get(rec, "ref"));

	for (size_t i = 0; i < L->n_waits; i++) {
		struct made_wait *w = &L->waits[i];

		if (w->run != L->runs || w->seq != (uint64_t)ref)
			continue;
		if (!json_object_get(rec, "errno"))
			add_made(L, w->item);
		free(w->item);
		L->waits[i] = L->waits[--L->n_waits];
		return;
	}
}

/*
 * Items under a directory a run created become that directory's "/ **"
 * (the shortest such directory): another run of the task makes other
 * files in it.  Addresses are left alone.
 */
static void widen_made(struct learn *L)
{
	for (size_t i = 0; i < L->n_obs; i++) {
		struct obs *o = &L->obs[i];
		const char *best = NULL;
		size_t best_len = 0;

		if (o->kind == K_NET)
			continue;
		for (size_t k = 0; k < L->n_made; k++) {
			size_t n = strlen(L->made[k]);

			if (!strncmp(o->item, L->made[k], n) &&
			    o->item[n] == '/' && (!best || n < best_len)) {
				best = L->made[k];
				best_len = n;
			}
		}
		if (best) {
			free(o->item);
			o->item = xasprintf("%s/**", best);
		}
	}
}

/*
 * A call (or path p of it) a permissive run let through that its policy
 * refuses (would_deny): learned as allowed like any other, and listed at
 * the top of the policy.  what: the path or address, or NULL.
 */
static void note_would(struct learn *L, const json_t *r, const char *name,
		       const char *what)
{
	const char *rule = jstr(r, "rule"), *would = jstr(r, "would");

	if (!json_is_true(json_object_get(r, "would_deny")))
		return;
	add_string(&L->woulds, &L->n_woulds, &L->cap_woulds,
		   xasprintf("%s%s%s (%s would %s)", name, what ? " " : "",
			     what ? what : "", rule ? rule : "default",
			     would ? would : "deny"));
}

static enum kind kind_of_access(const char *a)
{
	static const struct {
		const char *name;
		enum kind kind;
	} t[] = {
		{ "read", K_READ }, { "write", K_WRITE },
		{ "create", K_CREATE }, { "delete", K_DELETE },
		{ "stat", K_STAT }, { "exec", K_EXEC },
	};

	for (size_t i = 0; a && i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(a, t[i].name))
			return t[i].kind;
	return K_COUNT;
}

static unsigned access_bit(const char *a)
{
	for (unsigned bit = 1; a && bit <= RULES_ACC_STAT; bit <<= 1)
		if (!strcmp(rules_access_name(bit), a))
			return bit;
	return 0;
}

/* An address object of the trail -> sockaddr and item text. */
static int addr_of(const json_t *a, int nr, struct sockaddr_storage *ss,
		   socklen_t *len, char **item)
{
	const char *fam = jstr(a, "family"), *ip = jstr(a, "ip");
	json_int_t port = json_integer_value(json_object_get(a, "port"));
	bool conn = nr != rules_syscall_by_name("bind")->nr;

	memset(ss, 0, sizeof(*ss));
	if (!fam)
		return -EINVAL;
	if (!strcmp(fam, "AF_INET") && ip) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		/* A connect to 0.0.0.0 reaches the local host and is matched
		 * as 127.0.0.1. */
		if (conn && !strcmp(ip, "0.0.0.0"))
			ip = "127.0.0.1";
		if (inet_pton(AF_INET, ip, &in->sin_addr) != 1 || port < 0 ||
		    port > 65535)
			return -EINVAL;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		*len = sizeof(*in);
		*item = xasprintf("%s:%d", ip, (int)port);
		return 0;
	}
	if (!strcmp(fam, "AF_INET6") && ip) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		if (conn && !strcmp(ip, "::"))
			ip = "::1";
		if (inet_pton(AF_INET6, ip, &in6->sin6_addr) != 1 ||
		    port < 0 || port > 65535)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		*item = xasprintf("[%s]:%d", ip, (int)port);
		return 0;
	}
	return -EINVAL;
}

static void learn_syscall(struct learn *L, const json_t *rec)
{
	const char *name = jstr(rec, "syscall");
	const char *action = jstr(rec, "action");
	const char *rule = jstr(rec, "rule");
	const struct rules_syscall_info *info =
		name ? rules_syscall_by_name(name) : NULL;
	const json_t *paths = json_object_get(rec, "paths");
	const json_t *args = json_object_get(rec, "args");
	const char *flags = jstr(args, "flags");
	size_t i;

	if (!info || !action)
		return;
	/* An ioctl that changed a file's attributes (it has a paths entry:
	 * FS_IOC_SETFLAGS, ...) is decided as fchmod of that file: learned
	 * as one. */
	if (!strcmp(info->name, "ioctl") && json_array_size(paths))
		info = rules_syscall_by_name("fchmod");
	if (!info)
		return;
	/* A rewritten call (action = rewrite) is learned as the program made
	 * it: its own path (redirected_from) and address (args.addr). */
	if (!strcmp(action, "rewrite"))
		action = "allow";
	/* sysgate's own checks (the trail file, /proc of other processes,
	 * netlink) decide whatever the policy says: nothing to learn. */
	if (rule && !strncmp(rule, "sysgate:", 8) && !strcmp(action, "allow"))
		return;
	if (info->kind == RULES_KIND_PATH || info->kind == RULES_KIND_EXEC) {
		for (i = 0; i < json_array_size(paths); i++) {
			const json_t *p = json_array_get(paths, i);
			const char *pa = jstr(p, "action");
			const char *acc = jstr(p, "access");
			char *path = NULL;
			char *nameless = NULL;
			size_t plen;
			struct obs o = { .run = L->runs, .nr = info->nr };

			if (audit_json_bytes(p, json_object_get(p, "redirected_from") ?
					     "redirected_from" : "path", &path, &plen) < 0)
				continue;
			if (strlen(path) != plen ||
			    (path[0] != '/' &&
			     !(nameless = nameless_item(path, info->kind ==
							RULES_KIND_EXEC)))) {
				free(path);
				continue;
			}
			if (!pa || strcmp(pa, "allow")) {
				free(nameless);
				add_denied(L, xasprintf("%s %s %s (%s %s)", name,
					path, acc ? acc : "?",
					jstr(p, "rule") ? jstr(p, "rule") :
					"default", pa ? pa : "?"));
				free(path);
				continue;
			}
			o.kind = info->kind == RULES_KIND_EXEC ? K_EXEC :
				 kind_of_access(acc);
			o.access = access_bit(acc);
			if (o.kind == K_COUNT || !o.access) {
				free(nameless);
				free(path);
				continue;
			}
			o.item = nameless ? nameless : path_item(L, path);
			if (!o.item) {
				free(path);
				continue;
			}
			o.path = path;
			add_obs(L, &o);
			note_would(L, p, name, path);
			if (o.kind == K_CREATE && (!strcmp(name, "mkdir") ||
						   !strcmp(name, "mkdirat")))
				note_mkdir(L, rec, o.item);
			if (o.kind == K_CREATE && !nameless)
				note_excl(L, args, path, o.item);
			/* An O_RDWR open of an existing file is checked as a
			 * read and a write; the trail names the first. */
			if (o.kind == K_READ && flags &&
			    strstr(flags, "O_RDWR")) {
				o.kind = K_WRITE;
				o.access = RULES_ACC_WRITE;
				o.item = xstrdup(o.item);
				o.path = xstrdup(path);
				add_obs(L, &o);
			}
		}
		return;
	}
	if (info->kind == RULES_KIND_NET) {
		const json_t *a = json_object_get(args, "addr");
		struct obs o = { .run = L->runs, .nr = info->nr, .kind = K_NET };
		char *p = NULL;
		size_t plen;

		if (!a)
			return;
		if (!strcmp(action, "allow") &&
		    audit_json_bytes(a, "path", &p, &plen) == 0) {
			/* A unix path socket: matched on the resolved path
			 * (the paths entry) when there is one. */
			const json_t *pe = json_array_get(paths, 0);
			char *rp = NULL;
			size_t rl;
			char *it;

			if (pe && audit_json_bytes(pe, "path", &rp, &rl) == 0) {
				free(p);
				p = rp;
				plen = rl;
			}
			if (strlen(p) != plen || p[0] != '/' ||
			    !(it = path_item(L, p))) {
				free(p);
				return;
			}
			o.item = xasprintf("unix:%s", it);
			free(it);
			free(p);
			add_obs(L, &o);
			return;
		}
		free(p);
		if (!strcmp(action, "allow") &&
		    audit_json_bytes(a, "abstract", &p, &plen) == 0) {
			if (strlen(p) == plen && item_ok(p))
				o.item = xasprintf("unix-abstract:%s", p);
			free(p);
			if (o.item)
				add_obs(L, &o);
			return;
		}
		if (addr_of(a, info->nr, &o.ss, &o.ss_len, &o.item) < 0)
			return;
		if (strcmp(action, "allow")) {
			add_denied(L, xasprintf("%s %s (%s %s)", name, o.item,
						rule ? rule : "default", action));
			free(o.item);
			return;
		}
		note_would(L, rec, name, o.item);
		add_obs(L, &o);
		return;
	}
	if (strcmp(action, "allow"))
		add_denied(L, xasprintf("%s (%s %s)", name,
					rule ? rule : "default", action));
	else
		note_would(L, rec, name, NULL);
}

/*
 * What an exec really loaded (proc.exec): for a script, the interpreter,
 * which the supervisor checks at the exec stop as an exec of its own.
 */
static void learn_exec(struct learn *L, const json_t *rec)
{
	struct obs o = { .run = L->runs, .kind = K_EXEC,
			 .access = RULES_ACC_EXEC };
	const struct rules_syscall_info *info = rules_syscall_by_name("execve");
	char *path = NULL;
	size_t len;

	if (!info || audit_json_bytes(rec, "path", &path, &len) < 0)
		return;
	o.nr = info->nr;
	if (strlen(path) != len || path[0] != '/' ||
	    !(o.item = path_item(L, path))) {
		free(path);
		return;
	}
	o.path = path;
	add_obs(L, &o);
}

static void start_run(struct learn *L, const json_t *rec)
{
	char *cwd = NULL;
	size_t len;
	const char *t = jstr(rec, "tmpdir");

	free(L->cwd);
	free(L->tmpdir);
	L->cwd = NULL;
	L->tmpdir = t && t[0] == '/' ? xstrdup(t) : NULL;
	if (audit_json_bytes(rec, "cwd", &cwd, &len) == 0 &&
	    strlen(cwd) == len && cwd[0] == '/')
		L->cwd = cwd;
	else
		free(cwd);
	L->runs++;
	L->run_cwd = xrealloc_array(L->run_cwd, L->runs, sizeof(char *));
	L->run_tmpdir = xrealloc_array(L->run_tmpdir, L->runs, sizeof(char *));
	L->run_cwd[L->runs - 1] = L->cwd ? xstrdup(L->cwd) : NULL;
	L->run_tmpdir[L->runs - 1] = L->tmpdir ? xstrdup(L->tmpdir) : NULL;
}

/*
 * Security: a policy learned from a trail allows what the trail says was
 * done; a trail someone edited (a forged read of ~/.ssh, a run taken from
 * another file) would widen it unseen.  So the trail must verify first,
 * on the fd it is then read from: refused (-EBADMSG) unless --unverified,
 * which warns.
 */
static int verify_trail(bool unverified, const char *path, int fd)
{
	char why[512] = "";
	int r = audit_verify_fd(fd, NULL, why, sizeof(why));

	if (r == 0) {
		if (why[0])
			fprintf(stderr, "sysgate learn: %s: %s\n", path, why);
		return 0;
	}
	if (r != -EBADMSG) {
		fprintf(stderr, "sysgate learn: %s: %s\n", path,
			why[0] ? why : strerror(-r));
		return r;
	}
	if (!unverified) {
		fprintf(stderr, "sysgate learn: %s does not verify: %s "
			"(--unverified learns from it anyway)\n", path, why);
		return r;
	}
	fprintf(stderr, "sysgate learn: WARNING: %s does not verify: %s; "
		"learning from it anyway (--unverified)\n", path, why);
	return 0;
}

static int read_trail(struct learn *L, bool unverified, const char *path)
{
	AUTO_CLOSE int fd = -1;
	struct audit_reader *rd = NULL;
	json_t *rec;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		fprintf(stderr, "sysgate learn: %s: %s\n", path, strerror(-r));
		return r;
	}
	r = verify_trail(unverified, path, fd);
	if (r < 0)
		return r;
	r = audit_reader_open_fd(fd, &rd);	/* fd borrowed, at offset 0 */
	if (r < 0) {
		fprintf(stderr, "sysgate learn: %s: %s\n", path, strerror(-r));
		return r;
	}
	while ((r = audit_reader_next(rd, &rec)) != 0) {
		const char *type;

		if (r == -EBADMSG)
			continue;
		if (r < 0) {
			fprintf(stderr, "sysgate learn: %s: %s\n", path,
				strerror(-r));
			audit_reader_free(rd);
			return r;
		}
		type = jstr(rec, "type");
		if (!type)
			continue;
		if (!strcmp(type, "run.start"))
			start_run(L, rec);
		else if (!strcmp(type, "syscall") && L->runs)
			learn_syscall(L, rec);
		else if (!strcmp(type, "syscall.result") && L->runs)
			learn_result(L, rec);
		else if (!strcmp(type, "proc.exec") && L->runs)
			learn_exec(L, rec);
	}
	audit_reader_free(rd);
	return 0;
}

/* ---- the policy ------------------------------------------------------- */

struct sbuf {
	char *s;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3)))
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "sysgate learn: out of memory\n");
		exit(EXIT_TOOL_FAILURE);
	}
	if (b->len + (size_t)n + 1 > b->cap) {
		while (b->len + (size_t)n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->s = xrealloc_array(b->s, b->cap, 1);
	}
	memcpy(b->s + b->len, s, (size_t)n + 1);
	b->len += (size_t)n;
	free(s);
}

static int cmp_obs(const void *a, const void *b)
{
	const struct obs *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->item, y->item);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One distinct item of a kind: how many calls and runs it covers. */
struct item {
	char *text;	/* borrowed from an obs, or owned when collapsed */
	bool owned;
	unsigned calls, runs;
	unsigned long long run_mask; /* runs 1..64; beyond, counted as seen */
};

static unsigned popcount64(unsigned long long v)
{
	return (unsigned)__builtin_popcountll(v);
}

/* The directory part of an item ("${CWD}/a/b" -> "${CWD}/a"), or 0 when
 * it must not be collapsed: the root, a variable itself other than CWD
 * (HOME would take the secrets in), anything already a glob. */
static size_t dir_len(const char *t)
{
	const char *slash = strrchr(t, '/');

	if (!slash || slash == t || strpbrk(t, "*"))
		return 0;
	if (!strncmp(t, "${HOME}", (size_t)(slash - t)) &&
	    (size_t)(slash - t) == 7)
		return 0;
	return (size_t)(slash - t);
}

/*
 * Items of one kind from the sorted observations [lo, hi): distinct,
 * then collapsed per directory when LEARN_DIR_FILES or more distinct
 * files of it are there.
 */
static size_t make_items(const struct obs *o, size_t lo, size_t hi,
			 bool collapse, struct item **out)
{
	struct item *it = NULL;
	size_t n = 0, cap = 0, i, j, k;

	for (i = lo; i < hi; i++) {
		if (n && !strcmp(it[n - 1].text, o[i].item)) {
			it[n - 1].calls++;
			it[n - 1].run_mask |= 1ULL << (o[i].run % 64);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			it = xrealloc_array(it, cap, sizeof(*it));
		}
		it[n++] = (struct item){ .text = o[i].item, .calls = 1,
					 .run_mask = 1ULL << (o[i].run % 64) };
	}
	if (collapse) {
		/* Sorted by text: the files of one directory are adjacent
		 * unless a subdirectory's files sort between them; count
		 * over the whole list to be exact. */
		for (i = 0; i < n; i++) {
			size_t dl = dir_len(it[i].text), count = 0;

			if (!dl || it[i].calls == 0)
				continue;
			for (j = i; j < n; j++)
				if (it[j].calls && dir_len(it[j].text) == dl &&
				    !strncmp(it[j].text, it[i].text, dl))
					count++;
			if (count < LEARN_DIR_FILES)
				continue;
			{
				struct item g = {
					.text = xasprintf("%.*s/**", (int)dl,
							  it[i].text),
					.owned = true,
				};

				for (j = 0; j < n; j++) {
					const char *t = it[j].text;

					if (!it[j].calls || it[j].owned ||
					    strncmp(t, it[i].text, dl) ||
					    t[dl] != '/')
						continue;
					g.calls += it[j].calls;
					g.run_mask |= it[j].run_mask;
					it[j].calls = 0;
				}
				if (n == cap) {
					cap *= 2;
					it = xrealloc_array(it, cap, sizeof(*it));
				}
				it[n++] = g;
			}
		}
		for (i = k = 0; i < n; i++)
			if (it[i].calls)
				it[k++] = it[i];
		n = k;
		qsort(it, n, sizeof(*it), cmp_str);
	}
	for (i = 0; i < n; i++)
		it[i].runs = popcount64(it[i].run_mask);
	*out = it;
	return n;
}

static void free_items(struct item *it, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (it[i].owned)
			free(it[i].text);
	free(it);
}

struct opts {
	const char *out;
	const char *base;
	const char *diff;
	bool unverified;	/* --unverified: warn instead of refusing */
	char **trails;
	int n_trails;
};

/* A policy loaded once per run, with that run's ${CWD} and ${TMPDIR},
 * to decide the run's calls again. */
struct per_run {
	const char *arg;
	struct rules_set **sets;
	unsigned n;
};

static const struct rules_set *policy_for_run(struct learn *L,
					      struct per_run *pr, unsigned run)
{
	struct rules_vars v;
	char cwd[PATH_MAX], err[RULES_ERR_MAX];

	if (!pr->sets)
		pr->sets = xrealloc_array(NULL, L->runs, sizeof(*pr->sets));
	if (pr->n == 0) {
		for (unsigned i = 0; i < L->runs; i++)
			pr->sets[i] = NULL;
		pr->n = L->runs;
	}
	if (pr->sets[run - 1])
		return pr->sets[run - 1];
	tools_vars(&v, cwd, sizeof(cwd),
		   L->run_tmpdir[run - 1] ? L->run_tmpdir[run - 1] : "/tmp",
		   "RUN");
	if (L->run_cwd[run - 1])
		v.cwd = L->run_cwd[run - 1];
	if (tools_load_policy(pr->arg, &v, &pr->sets[run - 1], err,
			      sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		exit(EXIT_TOOL_FAILURE);
	}
	/* Its rules as they decide (an include's mode does not count). */
	rules_set_permissive(pr->sets[run - 1], false);
	return pr->sets[run - 1];
}

static void per_run_release(struct per_run *pr)
{
	for (unsigned i = 0; i < pr->n; i++)
		rules_free(pr->sets[i]);
	free(pr->sets);
}

/* Does the policy let this observed call through? */
static bool allows(const struct rules_set *rs, const struct obs *o)
{
	struct rules_event ev = { .nr = o->nr, .access = o->access,
				  .path = o->path };
	struct rules_verdict v;

	if (o->kind == K_NET) {
		/* Unix sockets are decided on the resolved socket path,
		 * which only the supervisor knows: not re-decided here. */
		if (!o->ss_len)
			return true;
		ev.addr = (const struct sockaddr *)&o->ss;
		ev.addr_len = o->ss_len;
	}
	rules_match(rs, &ev, &v);
	return v.action == RULES_ALLOW;
}

/* Sort, drop repeated strings and free them. */
static size_t uniq_strings(char **v, size_t n)
{
	size_t i, k = 0;

	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++) {
		if (k && !strcmp(v[k - 1], v[i]))
			free(v[i]);
		else
			v[k++] = v[i];
	}
	return k;
}

/*
 * Security: a learned allow comes before the base's rules and would
 * override its denials: drop every call the base policy refuses.
 * Returns the dropped items as "KIND ITEM" strings (sorted, unique).
 */
static size_t filter_base(struct learn *L, struct per_run *base,
			  char ***dropped)
{
	char **d = NULL;
	size_t nd = 0, i, k = 0;

	for (i = 0; i < L->n_obs; i++) {
		struct obs *o = &L->obs[i];

		if (allows(policy_for_run(L, base, o->run), o)) {
			L->obs[k++] = *o;
			continue;
		}
		d = xrealloc_array(d, nd + 1, sizeof(*d));
		d[nd++] = xasprintf("%s %s", kinds[o->kind].rule, o->item);
		free(o->item);
		free(o->path);
	}
	L->n_obs = k;
	*dropped = d;
	return nd ? uniq_strings(d, nd) : 0;
}

/* A comment line quoting the tree's bytes: escaped as for a terminal,
 * where the policy may well be printed (audit_escape_tty). */
static void put_escaped(struct sbuf *b, const char *prefix, const char *s)
{
	char esc[1024];

	audit_escape_tty(esc, sizeof(esc), s, strlen(s));
	sb_printf(b, "%s%s\n", prefix, esc);
}

/*
 * The default policy's guards, copied into a learned policy before its
 * own rules: the [env] section (secrets kept out of the environment) and
 * the rules that keep secrets and other runs' trails out of reach (a
 * permissive run may have read them: its trail would allow them).
 */
static const char *const guard_sections[] = {
	"[env]", "[rule npmrc-empty]", "[rule no-secrets]",
	"[rule no-other-runs]", NULL,
};

/* Before no-other-runs, as in the default policy: the run's own private
 * TMPDIR is named as other runs' are. */
static const char own_tmpdir[] =
	"\n[rule own-tmpdir]\nsyscalls = @file\n"
	"path = ${TMPDIR}, ${TMPDIR}/**\naction = allow\n";

static bool is_guard_header(const char *line, size_t n)
{
	for (size_t i = 0; guard_sections[i]; i++)
		if (strlen(guard_sections[i]) == n &&
		    !strncmp(line, guard_sections[i], n))
			return true;
	return false;
}

static void put_guard_text(struct sbuf *b)
{
	const char *t = rules_default_text();
	bool on = false;

	while (*t) {
		size_t n = strcspn(t, "\n");

		if (t[0] == '[') {
			on = is_guard_header(t, n);
			if (on && !strncmp(t, "[rule no-other-runs]", n))
				sb_printf(b, "%s", own_tmpdir);
		}
		if (on && n && t[0] != ';')
			sb_printf(b, "%s%.*s\n", t[0] == '[' ? "\n" : "",
				  (int)n, t);
		t += n + (t[n] == '\n');
	}
}

static void put_guards(struct sbuf *b)
{
	sb_printf(b, "\n; The default policy's guards: they stay whatever the runs did.\n");
	put_guard_text(b);
}

/*
 * Security: a call the guards refuse is not learned (a permissive run
 * may have read a secret): dropped, and listed as "KIND ITEM" strings
 * (sorted, unique).  vars: the learner's (the guards name ${HOME}).
 */
static struct rules_set *guards_for_run(const struct learn *L,
					const char *text,
					const struct rules_vars *vars,
					unsigned run)
{
	struct rules_vars v = *vars;
	struct rules_set *rs = NULL;
	char err[RULES_ERR_MAX];

	v.tmpdir = L->run_tmpdir[run - 1] ? L->run_tmpdir[run - 1] : "/tmp";
	v.tmpdir_spelled = NULL;
	if (rules_load_string(text, "<guards>", &v, &rs, err,
			      sizeof(err)) < 0) {
		fprintf(stderr, "sysgate learn: the default's guards: %s\n", err);
		exit(EXIT_TOOL_FAILURE);
	}
	return rs;
}

static size_t filter_guards(struct learn *L, const struct rules_vars *vars,
			    char ***dropped)
{
	struct sbuf t = { 0 };
	struct rules_set **sets;
	char **d = NULL;
	size_t nd = 0, k = 0;

	sb_printf(&t, "[policy]\ndefault = allow\n");
	put_guard_text(&t);
	sets = xrealloc_array(NULL, L->runs, sizeof(*sets));
	for (unsigned r = 0; r < L->runs; r++)
		sets[r] = NULL;
	for (size_t i = 0; i < L->n_obs; i++) {
		struct obs *o = &L->obs[i];
		struct rules_event ev = { .nr = o->nr, .access = o->access,
					  .path = o->path };
		struct rules_verdict v;

		if (!sets[o->run - 1])
			sets[o->run - 1] = guards_for_run(L, t.s, vars, o->run);
		rules_match(sets[o->run - 1], &ev, &v);
		if (!o->path || v.action != RULES_DENY) {
			L->obs[k++] = *o;
			continue;
		}
		d = xrealloc_array(d, nd + 1, sizeof(*d));
		d[nd++] = xasprintf("%s %s (%s)", kinds[o->kind].rule, o->path,
				    v.rule ? v.rule : "default");
		free(o->item);
		free(o->path);
	}
	L->n_obs = k;
	for (unsigned r = 0; r < L->runs; r++)
		rules_free(sets[r]);
	free(sets);
	free(t.s);
	*dropped = d;
	return nd ? uniq_strings(d, nd) : 0;
}

static void write_policy(struct learn *L, const struct opts *op,
			 const char *base_ref, char **dropped,
			 size_t n_dropped, char **guarded, size_t n_guarded,
			 struct sbuf *b)
{
	size_t lo, hi, i;

	sb_printf(b, "; Learned by sysgate learn from %u run%s.\n", L->runs,
		  L->runs == 1 ? "" : "s");
	for (int t = 0; t < op->n_trails; t++)
		put_escaped(b, ";   trail: ", op->trails[t]);
	sb_printf(b, "; Only the calls the runs were allowed to make are allowed here.\n");
	if (L->n_denied) {
		sb_printf(b, "; denied in the runs, not allowed here:\n");
		qsort(L->denied, L->n_denied, sizeof(*L->denied), cmp_str);
		for (i = 0; i < L->n_denied; i++)
			put_escaped(b, ";   ", L->denied[i]);
	}
	if (L->n_woulds) {
		sb_printf(b, "; let through by a permissive run, which its policy refuses\n"
			  "; (allowed here but what the guards keep out):\n");
		qsort(L->woulds, L->n_woulds, sizeof(*L->woulds), cmp_str);
		for (i = 0; i < L->n_woulds; i++)
			put_escaped(b, ";   ", L->woulds[i]);
	}
	if (n_guarded) {
		sb_printf(b, "; done in the runs but kept out by the default policy's guards, not allowed here:\n");
		for (i = 0; i < n_guarded; i++)
			put_escaped(b, ";   ", guarded[i]);
	}
	if (n_dropped) {
		sb_printf(b, "; done in the runs but denied by the base policy, not allowed here:\n");
		for (i = 0; i < n_dropped; i++)
			put_escaped(b, ";   ", dropped[i]);
	}
	sb_printf(b, "\n[policy]\n");
	if (base_ref) {
		sb_printf(b, "; The base policy's rules come after these, its denials stay.\n"
			  "include = %s\n", base_ref);
	} else {
		sb_printf(b, "; Syscalls no rule names stay allowed; what sysgate mediates\n"
			  "; (@file, @exec, @network) is denied at the end unless learned.\n"
			  "default = allow\nerrno = EACCES\naudit = all\n");
		put_guards(b);
	}

	qsort(L->obs, L->n_obs, sizeof(*L->obs), cmp_obs);
	for (lo = 0; lo < L->n_obs; lo = hi) {
		enum kind k = L->obs[lo].kind;
		struct item *it = NULL;
		unsigned calls = 0;
		unsigned long long mask = 0;
		size_t n;

		for (hi = lo; hi < L->n_obs && L->obs[hi].kind == k; hi++)
			;
		n = make_items(L->obs, lo, hi, k != K_NET && k != K_EXEC, &it);
		for (i = 0; i < n; i++) {
			calls += it[i].calls;
			mask |= it[i].run_mask;
		}
		sb_printf(b, "\n; %u %s in %u run%s\n", calls, kinds[k].noun,
			  popcount64(mask), popcount64(mask) == 1 ? "" : "s");
		sb_printf(b, "[rule learned-%s]\nsyscalls = %s\n", kinds[k].rule,
			  kinds[k].syscalls);
		if (kinds[k].access)
			sb_printf(b, "access = %s\n", kinds[k].access);
		for (i = 0; i < n; i++)
			sb_printf(b, "%s = %s ; %u %s in %u run%s\n",
				  k == K_NET ? "addr" : "path", it[i].text,
				  it[i].calls, kinds[k].noun, it[i].runs,
				  it[i].runs == 1 ? "" : "s");
		sb_printf(b, "action = allow\n");
		free_items(it, n);
	}
	if (!base_ref)
		sb_printf(b, "\n; Everything else sysgate mediates.\n"
			  "[rule learned-deny-other-files]\nsyscalls = @file\naction = deny\nerrno = EACCES\n"
			  "\n[rule learned-deny-other-exec]\nsyscalls = @exec\naction = deny\nerrno = EACCES\n"
			  "\n[rule learned-deny-other-network]\nsyscalls = @network\naction = deny\nerrno = ENETUNREACH\n");
}

/* --diff OLD: what the learned calls get that OLD refuses, one line each
 * (sorted, unique).  Returns how many. */
static size_t print_diff(struct learn *L, struct per_run *old, FILE *f)
{
	char **d = NULL;
	size_t nd = 0, i;

	for (i = 0; i < L->n_obs; i++) {
		const struct obs *o = &L->obs[i];

		if (allows(policy_for_run(L, old, o->run), o))
			continue;
		d = xrealloc_array(d, nd + 1, sizeof(*d));
		d[nd++] = o->path ? xasprintf("%s %s (as %s)", kinds[o->kind].rule,
					      o->path, o->item) :
				    xasprintf("%s %s", kinds[o->kind].rule, o->item);
	}
	nd = nd ? uniq_strings(d, nd) : 0;
	fprintf(f, "; allowed by the learned policy, not by %s: %zu\n",
		old->arg, nd);
	for (i = 0; i < nd; i++) {
		char esc[1024];

		audit_escape_tty(esc, sizeof(esc), d[i], strlen(d[i]));
		fprintf(f, "+ %s\n", esc);
		free(d[i]);
	}
	free(d);
	return nd;
}

/* What --base becomes in "include = ": a shipped name as it is, a file
 * as an absolute path (includes are relative to the including file). */
static char *base_reference(const char *arg)
{
	char abs[PATH_MAX];

	if (!strchr(arg, '/') && access(arg, F_OK) != 0)
		return xstrdup(arg);
	if (!realpath(arg, abs)) {
		fprintf(stderr, "sysgate learn: %s: %s\n", arg, strerror(errno));
		exit(EXIT_TOOL_FAILURE);
	}
	return xstrdup(abs);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate learn [-o POLICY] [--base POLICY] [--diff POLICY] [--] AUDIT...\n"
		"Write the least-privilege policy that allows what the runs in the trails\n"
		"AUDIT... were allowed to do (standard output without -o).  A trail may\n"
		"be named latest or ~N (see sysgate runs).\n"
		"  -o, --output POLICY  write it to the file POLICY\n"
		"  --base POLICY        start from POLICY: its denials stay\n"
		"  --diff POLICY        say what the learned policy allows that POLICY does not\n"
		"  --unverified         learn from a trail that does not verify (warns);\n"
		"                       without it such a trail is refused (exit 125)\n"
		"  -h, --help           this text\n");
}

/* The command line into op: -1, or the exit status. */
static int learn_args(int argc, char **argv, struct opts *op)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "base", required_argument, NULL, 'b' },
		{ "diff", required_argument, NULL, 'd' },
		{ "unverified", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = tools_getopt(argc, argv, "learn", ":o:h", longopts)) != -1) {
		const char **slot = c == 'o' ? &op->out : c == 'b' ? &op->base :
				    c == 'd' ? &op->diff : NULL;

		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 'U') {
			op->unverified = true;
			continue;
		}
		if (!slot)
			return tools_usage_error("learn");
		if (*slot) {
			fprintf(stderr, "sysgate learn: %s given twice\n",
				c == 'o' ? "-o" : c == 'b' ? "--base" : "--diff");
			return tools_usage_error("learn");
		}
		*slot = optarg;
	}
	if (optind >= argc) {
		fprintf(stderr, "sysgate learn: no trail given\n");
		return tools_usage_error("learn");
	}
	op->trails = argv + optind;
	op->n_trails = argc - optind;
	return -1;
}

int tool_learn(int argc, char **argv)
{
	struct opts op = { 0 };
	struct learn L = { 0 };
	struct per_run base = { 0 }, old = { 0 };
	struct sbuf b = { 0 };
	struct rules_vars v;
	struct rules_set *check = NULL;
	char cwd[PATH_MAX], err[RULES_ERR_MAX];
	char *base_ref = NULL, **dropped = NULL, **guarded = NULL;
	char (*paths)[PATH_MAX] = NULL, id[TOOLS_RUN_ID_MAX];
	size_t n_dropped = 0, n_guarded = 0, i;
	int status = 0;

	status = learn_args(argc, argv, &op);
	if (status >= 0)
		return status;
	status = 0;
	/* latest, ~N: their trails, whole (every run of the file). */
	paths = xrealloc_array(NULL, (size_t)op.n_trails, sizeof(*paths));
	for (int t = 0; t < op.n_trails && status == 0; t++) {
		const char *p = tools_trail_arg("learn", op.trails[t], paths[t], id);

		if (!p)
			status = EXIT_TOOL_FAILURE;
		else
			op.trails[t] = (char *)p;
	}
	/* ${HOME} is the home of the person learning (the runs' HOME is
	 * not in the trail). */
	tools_vars(&v, cwd, sizeof(cwd), "/tmp", "RUN");
	L.home = v.home ? xstrdup(v.home) : NULL;
	for (int t = 0; t < op.n_trails && status == 0; t++)
		if (read_trail(&L, op.unverified, op.trails[t]) < 0)
			status = EXIT_TOOL_FAILURE;
	if (status == 0 && L.runs == 0) {
		fprintf(stderr, "sysgate learn: no run in the trails\n");
		status = EXIT_TOOL_FAILURE;
	}
	if (status != 0)
		goto out;
	widen_excl(&L);
	widen_made(&L);
	if (op.base) {
		base.arg = op.base;
		base_ref = base_reference(op.base);
		n_dropped = filter_base(&L, &base, &dropped);
	} else {
		n_guarded = filter_guards(&L, &v, &guarded);
	}
	write_policy(&L, &op, base_ref, dropped, n_dropped, guarded,
		     n_guarded, &b);

	/* The policy must load, with the code sysgate run uses. */
	if (rules_load_string(b.s, op.out ? op.out : "<learned>", &v, &check,
			      err, sizeof(err)) < 0) {
		fprintf(stderr, "sysgate learn: the learned policy does not load: %s\n",
			err);
		status = EXIT_TOOL_FAILURE;
		goto out;
	}
	rules_free(check);
	if (op.diff) {
		old.arg = op.diff;
		print_diff(&L, &old, stdout);
	}
	if (op.out) {
		FILE *f = fopen(op.out, "we");

		if (!f || fputs(b.s, f) == EOF) {
			fprintf(stderr, "sysgate learn: %s: %s\n", op.out,
				strerror(errno));
			status = EXIT_TOOL_FAILURE;
		}
		if (f && fclose(f) != 0 && status == 0) {
			fprintf(stderr, "sysgate learn: %s: %s\n", op.out,
				strerror(errno));
			status = EXIT_TOOL_FAILURE;
		}
	} else if (!op.diff) {
		fputs(b.s, stdout);
	}
out:
	for (i = 0; i < L.n_obs; i++) {
		free(L.obs[i].item);
		free(L.obs[i].path);
	}
	free(L.obs);
	for (i = 0; i < L.n_denied; i++)
		free(L.denied[i]);
	free(L.denied);
	for (i = 0; i < L.n_woulds; i++)
		free(L.woulds[i]);
	free(L.woulds);
	for (i = 0; i < L.n_made; i++)
		free(L.made[i]);
	free(L.made);
	for (i = 0; i < L.n_waits; i++)
		free(L.waits[i].item);
	free(L.waits);
	for (i = 0; i < L.n_excl; i++) {
		free(L.excl[i].path);
		free(L.excl[i].item);
	}
	free(L.excl);
	for (i = 0; i < n_dropped; i++)
		free(dropped[i]);
	free(dropped);
	for (i = 0; i < n_guarded; i++)
		free(guarded[i]);
	free(guarded);
	for (i = 0; i < L.runs; i++) {
		free(L.run_cwd[i]);
		free(L.run_tmpdir[i]);
	}
	free(L.run_cwd);
	free(L.run_tmpdir);
	free(L.cwd);
	free(L.tmpdir);
	free(L.home);
	free(base_ref);
	per_run_release(&base);
	per_run_release(&old);
	free(b.s);
	free(paths);
	return status;
}
