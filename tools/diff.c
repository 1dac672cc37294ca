/* SPDX-License-Identifier: MIT */
/*
 * sysgate diff A B: what run B did that run A did not, and the other way
 * round, for "it worked yesterday": programs executed, files by access
 * and outcome, network, denials with their rules, exit statuses per
 * program.  Each run's own names are put back to what they stand for
 * (its private TMPDIR, working directory and HOME, pids under /proc,
 * random temp names) so that two runs of the same thing compare equal.
 * Both trails must verify first (--unverified warns instead).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"
#include "tools/tools.h"

#define EXIT_TOOL_FAILURE TOOLS_EXIT_USAGE
/* Longest entry kept (escaped bytes); longer ones are cut. */
#define DIFF_MAX_ENTRY 2048
/* A temp name part this long or longer that looks random is replaced. */
#define DIFF_RANDOM_MIN 6

enum cat { C_EXEC, C_FILE, C_NET, C_DENY, C_EXIT, C_COUNT };

static const struct {
	const char *key;	/* in --json */
	const char *title;	/* in the text */
} cats[C_COUNT] = {
	[C_EXEC] = { "execs", "programs executed" },
	[C_FILE] = { "files", "files (access path, outcome)" },
	[C_NET] = { "network", "network" },
	[C_DENY] = { "denials", "denials" },
	[C_EXIT] = { "exits", "exit statuses" },
};

/* A call recorded before it was carried out, waiting for its result. */
struct pending {
	int64_t seq;
	enum cat cat;
	char *entry;	/* "access path", the outcome still to add */
};

/* One side of the comparison: the run selected from one trail. */
struct side {
	const char *path;	/* the trail */
	char path_buf[PATH_MAX];	/* for latest, ~N */
	char id_buf[TOOLS_RUN_ID_MAX];
	const char *want_id;	/* --run ID, or from latest/~N */
	unsigned want_run;	/* --run N; 0: the last run */
	unsigned runs;		/* runs seen in the file */
	bool in_run;		/* the records read belong to the run */
	char *run_id, *start, *cwd, *tmpdir, *home;
	bool finished;
	int64_t exit;
	char *status;
	json_t *set[C_COUNT];	/* entry -> count */
	json_t *prog;		/* pid -> program */
	struct pending *pend;
	size_t n_pend, cap_pend;
};

static void *xcheck(void *p)
{
	if (!p) {
		fprintf(stderr, "sysgate diff: out of memory\n");
		exit(EXIT_TOOL_FAILURE);
	}
	return p;
}

/* A member of a record: a string (NULL if absent or not one), a number
 * (0 if absent). */
static const char *jstr(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static int64_t jint(const json_t *obj, const char *key)
{
	return (int64_t)json_integer_value(json_object_get(obj, key));
}

/* ---- normalising names ------------------------------------------------- */

struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_addn(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 256;
		b->s = xcheck(realloc(b->s, b->cap));
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_add(struct sbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

/* Whether path[0..len) is dir or lies under it; its length then. */
static size_t under(const char *path, size_t len, const char *dir)
{
	size_t dl = dir ? strlen(dir) : 0;

	if (dl < 2 || len < dl || memcmp(path, dir, dl))
		return 0;
	return len == dl || path[dl] == '/' ? dl : 0;
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* A run of word characters that looks random: long enough, and mixing
 * digits with letters or upper with lower case. */
static bool looks_random(const char *s, size_t n)
{
	bool digit = false, lower = false, upper = false;

	if (n < DIFF_RANDOM_MIN)
		return false;
	for (size_t i = 0; i < n; i++) {
		digit |= s[i] >= '0' && s[i] <= '9';
		lower |= s[i] >= 'a' && s[i] <= 'z';
		upper |= s[i] >= 'A' && s[i] <= 'Z';
	}
	return (digit && (lower || upper)) || (lower && upper);
}

/* The rest of a temp path, random-looking parts as XXXXXX. */
static void add_tempname(struct sbuf *b, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i;

		while (j < n && is_word(p[j]))
			j++;
		if (j > i) {
			if (looks_random(p + i, j - i))
				sb_add(b, "XXXXXX");
			else
				sb_addn(b, p + i, j - i);
			i = j;
		} else {
			sb_addn(b, p + i, 1);
			i++;
		}
	}
}

/*
 * The path as the run's names stand: ${TMPDIR}, ${CWD}, ${HOME} for the
 * run's own (the most specific first), /proc/<pid> for a pid, and under
 * a temp directory random-looking name parts as XXXXXX.  Then escaped for
 * the terminal (audit_escape_tty: the entry is shown as is).
 */
static void add_path(struct sbuf *out, const struct side *s, const char *p,
		     size_t n)
{
	static const char *const temps[] = { "/tmp", "/var/tmp", "/dev/shm" };
	struct sbuf raw = { 0 };
	size_t k;
	bool temp = false;
	char *esc;
	size_t el;

	if ((k = under(p, n, s->tmpdir))) {
		sb_add(&raw, "${TMPDIR}");
		temp = true;
	} else if ((k = under(p, n, s->cwd))) {
		sb_add(&raw, "${CWD}");
	} else if ((k = under(p, n, s->home))) {
		sb_add(&raw, "${HOME}");
	} else if (n > 6 && !memcmp(p, "/proc/", 6) && p[6] >= '0' &&
		   p[6] <= '9') {
		k = 6;
		while (k < n && p[k] >= '0' && p[k] <= '9')
			k++;
		sb_add(&raw, "/proc/<pid>");
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(temps) && !k; i++)
			if ((k = under(p, n, temps[i])))
				sb_add(&raw, temps[i]);
		temp = k > 0;
	}
	if (temp)
		add_tempname(&raw, p + k, n - k);
	else
		sb_addn(&raw, p + k, n - k);
	el = audit_escape_tty(NULL, 0, raw.s, raw.len);
	esc = xcheck(malloc(el + 1));
	audit_escape_tty(esc, el + 1, raw.s, raw.len);
	sb_addn(out, esc, el);
	free(esc);
	free(raw.s);
}

/* Our own text (names, errnos, rules) from the trail, escaped. */
static void add_text(struct sbuf *out, const char *t)
{
	char buf[256];

	if (!t)
		t = "?";
	audit_escape_tty(buf, sizeof(buf), t, strlen(t));
	sb_add(out, buf);
}

static bool add_member_path(struct sbuf *out, const struct side *s,
			    const json_t *obj, const char *key)
{
	char *v = NULL;
	size_t n = 0;

	if (audit_json_bytes(obj, key, &v, &n) < 0)
		return false;
	add_path(out, s, v, n);
	free(v);
	return true;
}

/* An address object: ip:port, [ip6]:port, unix:PATH, unix-abstract:NAME;
 * port false leaves the port out (an accept's peer: a port the peer's
 * kernel picked). */
static void add_addr(struct sbuf *out, const struct side *s,
		     const json_t *addr, bool port)
{
	const char *fam = jstr(addr, "family");
	const char *ip = jstr(addr, "ip");
	char buf[32];

	if (ip) {
		bool v6 = fam && !strcmp(fam, "AF_INET6");

		sb_add(out, v6 ? "[" : "");
		add_text(out, ip);
		sb_add(out, v6 ? "]" : "");
		if (port) {
			snprintf(buf, sizeof(buf), ":%" PRId64,
				 jint(addr, "port"));
			sb_add(out, buf);
		}
	} else if (json_object_get(addr, "abstract")) {
		sb_add(out, "unix-abstract:");
		add_member_path(out, s, addr, "abstract");
	} else if (json_object_get(addr, "path")) {
		sb_add(out, "unix:");
		add_member_path(out, s, addr, "path");
	} else {
		add_text(out, fam ? fam : "(address not read)");
	}
}

/* ---- the model of a run ------------------------------------------------ */

static void put(struct side *s, enum cat c, const char *entry)
{
	char cut[DIFF_MAX_ENTRY + 8];
	json_t *v;

	if (strlen(entry) > DIFF_MAX_ENTRY) {
		/* Cut at a character boundary of the escaped text. */
		size_t n = DIFF_MAX_ENTRY;

		while (n && ((unsigned char)entry[n] & 0xc0) == 0x80)
			n--;
		snprintf(cut, sizeof(cut), "%.*s...", (int)n, entry);
		entry = cut;
	}
	v = json_object_get(s->set[c], entry);
	json_object_set_new(s->set[c], entry,
			    json_integer(json_integer_value(v) + 1));
}

static char *dup_bytes(const json_t *obj, const char *key)
{
	char *v = NULL;
	size_t n = 0;

	if (audit_json_bytes(obj, key, &v, &n) < 0 || !n || v[0] != '/' ||
	    memchr(v, '\0', n)) {
		free(v);
		return NULL;
	}
	return v;
}

static void side_reset(struct side *s)
{
	for (int c = 0; c < C_COUNT; c++) {
		json_decref(s->set[c]);
		s->set[c] = xcheck(json_object());
	}
	json_decref(s->prog);
	s->prog = xcheck(json_object());
	for (size_t i = 0; i < s->n_pend; i++)
		free(s->pend[i].entry);
	s->n_pend = 0;
	free(s->run_id);
	free(s->start);
	free(s->cwd);
	free(s->tmpdir);
	free(s->home);
	free(s->status);
	s->run_id = s->start = s->cwd = s->tmpdir = s->home = NULL;
	s->status = NULL;
	s->finished = false;
	s->exit = 0;
}

static void side_release(struct side *s)
{
	side_reset(s);
	for (int c = 0; c < C_COUNT; c++)
		json_decref(s->set[c]);
	json_decref(s->prog);
	free(s->pend);
}

static void on_start(struct side *s, const json_t *rec)
{
	const json_t *vars = json_object_get(rec, "vars");

	s->cwd = dup_bytes(rec, "cwd");
	s->tmpdir = dup_bytes(rec, "tmpdir");
	s->home = dup_bytes(vars, "HOME");
	if (!s->home)
		s->home = dup_bytes(rec, "home");
}

static void pid_key(char *buf, size_t len, const json_t *rec, const char *k)
{
	snprintf(buf, len, "%" PRId64,
		 (int64_t)json_integer_value(json_object_get(rec, k)));
}

static void on_fork(struct side *s, const json_t *rec)
{
	char child[32], parent[32];
	json_t *p;

	pid_key(child, sizeof(child), rec, "pid");
	pid_key(parent, sizeof(parent), rec, "ppid");
	p = json_object_get(s->prog, parent);
	if (p)
		json_object_set(s->prog, child, p);
}

static void on_exec(struct side *s, const json_t *rec)
{
	struct sbuf e = { 0 };
	char pid[32];

	if (!add_member_path(&e, s, rec, "path"))
		sb_add(&e, "?");
	put(s, C_EXEC, e.s);
	pid_key(pid, sizeof(pid), rec, "pid");
	json_object_set_new(s->prog, pid, xcheck(json_string(e.s)));
	free(e.s);
}

static void on_exit_rec(struct side *s, const json_t *rec)
{
	const char *prog, *sig;
	struct sbuf e = { 0 };
	char pid[32], buf[48];

	if (json_is_true(json_object_get(rec, "thread")))
		return;
	pid_key(pid, sizeof(pid), rec, "pid");
	prog = json_string_value(json_object_get(s->prog, pid));
	sb_add(&e, prog ? prog : "(no exec seen)");
	sig = jstr(rec, "signal");
	if (sig) {
		sb_add(&e, " killed by ");
		add_text(&e, sig);
	} else {
		snprintf(buf, sizeof(buf), " exit %" PRId64,
			 jint(rec, "code"));
		sb_add(&e, buf);
	}
	put(s, C_EXIT, e.s);
	free(e.s);
}

/* ", outcome" of a call carried out: "" when it worked. */
static void add_outcome(struct sbuf *e, const json_t *rec, const char *action)
{
	const char *err = jstr(rec, "errno");

	if (err) {
		sb_add(e, " (");
		add_text(e, err);
		sb_add(e, ")");
	} else if (action && !strcmp(action, "rewrite")) {
		sb_add(e, " (redirected)");
	}
}

static void add_pending(struct side *s, enum cat c, int64_t seq,
			const char *entry)
{
	if (s->n_pend == s->cap_pend) {
		s->cap_pend = s->cap_pend ? s->cap_pend * 2 : 16;
		s->pend = xcheck(reallocarray(s->pend, s->cap_pend,
					      sizeof(*s->pend)));
	}
	s->pend[s->n_pend++] = (struct pending){
		.seq = seq, .cat = c, .entry = xcheck(strdup(entry)),
	};
}

/* A denied call: what it tried, the rule, the errno (or killed). */
static void on_denial(struct side *s, const json_t *rec, const char *name,
		      const char *action)
{
	const json_t *paths = json_object_get(rec, "paths");
	const json_t *args = json_object_get(rec, "args");
	const json_t *pe;
	struct sbuf e = { 0 };
	size_t i;

	add_text(&e, name);
	json_array_foreach(paths, i, pe) {
		const char *pa = jstr(pe, "action");

		if (!pa || (strcmp(pa, "deny") && strcmp(pa, "kill")))
			continue;
		sb_add(&e, " ");
		add_text(&e, jstr(pe, "access"));
		sb_add(&e, " ");
		add_member_path(&e, s, pe, "path");
	}
	if (json_object_get(args, "addr")) {
		sb_add(&e, " ");
		add_addr(&e, s, json_object_get(args, "addr"), true);
	}
	sb_add(&e, ": rule ");
	add_text(&e, jstr(rec, "rule"));
	if (!strcmp(action, "kill")) {
		sb_add(&e, ", killed");
	} else {
		sb_add(&e, ", ");
		add_text(&e, jstr(rec, "errno"));
	}
	put(s, C_DENY, e.s);
	free(e.s);
}

static void on_net(struct side *s, const json_t *rec, const char *name,
		   const char *action, bool pending, int64_t seq)
{
	const json_t *args = json_object_get(rec, "args");
	const json_t *addr = json_object_get(args, "addr");
	const json_t *peer = json_object_get(args, "peer");
	struct sbuf e = { 0 };

	if (!addr && !peer)
		return;
	add_text(&e, name);
	sb_add(&e, " ");
	add_addr(&e, s, addr ? addr : peer, !!addr);
	if (pending)
		add_pending(s, C_NET, seq, e.s);
	else {
		add_outcome(&e, rec, action);
		put(s, C_NET, e.s);
	}
	free(e.s);
}

static void on_syscall(struct side *s, const json_t *rec)
{
	const char *action = jstr(rec, "action");
	const char *name = jstr(rec, "syscall");
	const json_t *paths = json_object_get(rec, "paths");
	bool pending = json_is_true(json_object_get(rec, "pending"));
	int64_t seq = jint(rec, "seq");
	const json_t *pe;
	size_t i;

	if (!action)
		action = "?";
	if (!name)
		name = "?";
	if (!strcmp(action, "deny") || !strcmp(action, "kill")) {
		on_denial(s, rec, name, action);
		return;
	}
	json_array_foreach(paths, i, pe) {
		const char *acc = jstr(pe, "access");
		struct sbuf e = { 0 };

		if (acc && !strcmp(acc, "exec"))
			continue;	/* the execs say it */
		add_text(&e, acc);
		sb_add(&e, " ");
		if (!add_member_path(&e, s, pe, "path")) {
			free(e.s);
			continue;
		}
		if (pending) {
			add_pending(s, C_FILE, seq, e.s);
		} else {
			add_outcome(&e, rec, action);
			put(s, C_FILE, e.s);
		}
		free(e.s);
	}
	on_net(s, rec, name, action, pending, seq);
}

/* A pending call's result: its entries, with the outcome. */
static void on_result(struct side *s, const json_t *rec)
{
	int64_t ref = jint(rec, "ref");
	size_t i = s->n_pend;

	while (i--) {
		struct pending *p = &s->pend[i];
		struct sbuf e = { 0 };

		if (p->seq != ref)
			continue;
		sb_add(&e, p->entry);
		add_outcome(&e, rec, NULL);
		put(s, p->cat, e.s);
		free(e.s);
		free(p->entry);
		*p = s->pend[--s->n_pend];
	}
}

static void on_end(struct side *s, const json_t *rec)
{
	const char *st = jstr(rec, "status");

	s->finished = true;
	s->exit = jint(rec, "exit");
	free(s->status);
	s->status = st ? xcheck(strdup(st)) : NULL;
}

/*
 * One record.  A run starts at the first record, at run.start and at seq
 * 1; only the wanted run's records are taken (the last one unless --run).
 */
static void ingest(struct side *s, const json_t *rec, bool first)
{
	const char *type = jstr(rec, "type");
	const char *run = jstr(rec, "run");
	int64_t seq = jint(rec, "seq");
	bool starts;

	if (!type)
		type = "?";
	starts = first || !strcmp(type, "run.start") || seq == 1;
	if (starts) {
		s->runs++;
		s->in_run = s->want_run ? s->runs == s->want_run :
			    s->want_id ? run && !strcmp(run, s->want_id) : true;
		if (s->in_run) {
			side_reset(s);
			s->run_id = xcheck(strdup(run ? run : "?"));
			s->start = xcheck(strdup(jstr(rec, "ts") ?: "?"));
		}
	}
	if (!s->in_run)
		return;
	if (!strcmp(type, "run.start"))
		on_start(s, rec);
	else if (!strcmp(type, "run.end"))
		on_end(s, rec);
	else if (!strcmp(type, "proc.fork"))
		on_fork(s, rec);
	else if (!strcmp(type, "proc.exec"))
		on_exec(s, rec);
	else if (!strcmp(type, "proc.exit"))
		on_exit_rec(s, rec);
	else if (!strcmp(type, "syscall"))
		on_syscall(s, rec);
	else if (!strcmp(type, "syscall.result"))
		on_result(s, rec);
}

/*
 * Security: a comparison of trails someone edited would show what they
 * wrote, not what ran; like learn, a trail must verify (on the fd it is
 * then read from), or --unverified warns.
 */
static int verify_side(const char *path, int fd, bool unverified)
{
	char why[512] = "";
	int r = audit_verify_fd(fd, NULL, why, sizeof(why));

	if (r == 0)
		return 0;
	if (r != -EBADMSG) {
		fprintf(stderr, "sysgate diff: %s: %s\n", path,
			why[0] ? why : strerror(-r));
		return r;
	}
	if (!unverified) {
		fprintf(stderr, "sysgate diff: %s does not verify: %s (--unverified compares it anyway)\n",
			path, why);
		return r;
	}
	fprintf(stderr, "sysgate diff: WARNING: %s does not verify: %s; comparing it anyway (--unverified)\n",
		path, why);
	return 0;
}

static int load_side(struct side *s, bool unverified)
{
	AUTO_CLOSE int fd = -1;
	struct audit_reader *rd = NULL;
	json_t *rec;
	bool first = true;
	int r;

	fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, "sysgate diff: %s: %s\n", s->path,
			strerror(errno));
		return -1;
	}
	if (verify_side(s->path, fd, unverified) < 0)
		return -1;
	r = audit_reader_open_fd(fd, &rd);
	if (r < 0) {
		fprintf(stderr, "sysgate diff: %s: %s\n", s->path,
			strerror(-r));
		return -1;
	}
	while ((r = audit_reader_next(rd, &rec)) != 0) {
		if (r == -EBADMSG)
			continue;
		if (r < 0)
			break;
		ingest(s, rec, first);
		first = false;
	}
	audit_reader_free(rd);
	if (r < 0) {
		fprintf(stderr, "sysgate diff: %s: %s\n", s->path,
			strerror(-r));
		return -1;
	}
	if (!s->run_id) {
		if (s->want_id)
			fprintf(stderr, "sysgate diff: %s: no run %s\n", s->path,
				s->want_id);
		else
			fprintf(stderr, "sysgate diff: %s: no run %u (the trail holds %u)\n",
				s->path, s->want_run, s->runs);
		return -1;
	}
	/* Calls whose result never came. */
	for (size_t i = 0; i < s->n_pend; i++) {
		struct sbuf e = { 0 };

		sb_add(&e, s->pend[i].entry);
		sb_add(&e, " (no result recorded)");
		put(s, s->pend[i].cat, e.s);
		free(e.s);
	}
	return 0;
}

/* ---- the comparison ---------------------------------------------------- */

/*
 * A file entry that is a loader's, a locale library's or an interpreter
 * runtime's read or probe ("read /usr/lib/...", "stat ...pyc"): folded
 * into a count unless --all, as sysgate report does.  Writes never are.
 */
static bool entry_noise(const char *e)
{
	static const char *const prefixes[] = {
		"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/",
		"/usr/local/lib/", "/etc/ld.so.", "/usr/share/locale/",
		"/usr/share/i18n/", "/usr/share/zoneinfo/", "/etc/localtime",
		"/etc/locale.", "/usr/libexec/",
	};
	const char *p, *end;
	size_t n;

	if (!strncmp(e, "read ", 5))
		p = e + 5;
	else if (!strncmp(e, "stat ", 5))
		p = e + 5;
	else
		return false;
	end = strstr(p, " (");
	n = end ? (size_t)(end - p) : strlen(p);
	if (memmem(p, n, "/__pycache__/", 13) ||
	    (n >= 4 && !memcmp(p + n - 4, ".pyc", 4)) ||
	    (n >= 3 && !memcmp(p + n - 3, ".so", 3)) || memmem(p, n, ".so.", 4))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(p, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of x that y lacks, sorted (borrowed from x); their count.
 * Those that fold (fold not NULL) are only counted, in *fold. */
static size_t only_in(const json_t *x, const json_t *y, const char ***out,
		      size_t *fold)
{
	const char **v = xcheck(calloc(json_object_size(x) + 1, sizeof(*v)));
	const char *k;
	json_t *val;
	size_t n = 0;

	json_object_foreach((json_t *)x, k, val) {
		if (json_object_get(y, k))
			continue;
		if (fold && entry_noise(k))
			(*fold)++;
		else
			v[n++] = k;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return n;
}

static void show_exit(char *buf, size_t len, const struct side *s)
{
	const char *how = "exit";

	if (s->status && !strcmp(s->status, "signaled"))
		how = "killed, exit";
	else if (s->status && !strcmp(s->status, "failed"))
		how = "sysgate failed, exit";
	if (!s->finished)
		snprintf(buf, len, "unfinished");
	else
		snprintf(buf, len, "%s %" PRId64, how, s->exit);
}

static void text_side(const char *tag, const struct side *s)
{
	char path[PATH_MAX * 4], id[300], ex[64];

	audit_escape_tty(path, sizeof(path), s->path, strlen(s->path));
	audit_escape_tty(id, sizeof(id), s->run_id, strlen(s->run_id));
	show_exit(ex, sizeof(ex), s);
	printf("%s %s (run %s, started %s, %s)\n", tag, path, id,
	       s->start, ex);
}

static size_t output_text(const struct side *a, const struct side *b,
			  bool all)
{
	size_t total = 0;
	char ea[64], eb[64];

	text_side("---", a);
	text_side("+++", b);
	show_exit(ea, sizeof(ea), a);
	show_exit(eb, sizeof(eb), b);
	if (strcmp(ea, eb)) {
		printf("run: - %s\n     + %s\n", ea, eb);
		total++;
	}
	for (int c = 0; c < C_COUNT; c++) {
		const char **oa, **ob;
		size_t fa = 0, fb = 0;
		bool fold = c == C_FILE && !all;
		size_t na = only_in(a->set[c], b->set[c], &oa,
				    fold ? &fa : NULL);
		size_t nb = only_in(b->set[c], a->set[c], &ob,
				    fold ? &fb : NULL);

		if (na + nb + fa + fb)
			printf("%s:\n", cats[c].title);
		for (size_t i = 0; i < na; i++)
			printf("- %s\n", oa[i]);
		for (size_t i = 0; i < nb; i++)
			printf("+ %s\n", ob[i]);
		if (fa + fb)
			printf("  (and loader, locale and runtime reads: %zu only in A, %zu only in B; --all shows them)\n",
			       fa, fb);
		total += na + nb + fa + fb;
		free(oa);
		free(ob);
	}
	if (!total)
		printf("no differences\n");
	return total;
}

static json_t *json_side(const struct side *s)
{
	json_t *o = xcheck(json_object());
	char path[PATH_MAX * 4];

	audit_escape_tty(path, sizeof(path), s->path, strlen(s->path));
	json_object_set_new(o, "trail", json_string(path));
	json_object_set_new(o, "run", json_string(s->run_id));
	json_object_set_new(o, "start", json_string(s->start));
	json_object_set_new(o, "finished", json_boolean(s->finished));
	json_object_set_new(o, "status", json_string(s->finished && s->status ?
						     s->status : "unfinished"));
	json_object_set_new(o, "exit", s->finished ? json_integer(s->exit) :
			    json_null());
	return o;
}

static json_t *json_list(const char **v, size_t n)
{
	json_t *a = xcheck(json_array());

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static size_t output_json(const struct side *a, const struct side *b,
			  bool all, int *err)
{
	json_t *o = xcheck(json_object());
	size_t total = 0;

	json_object_set_new(o, "a", json_side(a));
	json_object_set_new(o, "b", json_side(b));
	for (int c = 0; c < C_COUNT; c++) {
		json_t *d = xcheck(json_object());
		const char **oa, **ob;
		size_t fa = 0, fb = 0;
		bool fold = c == C_FILE && !all;
		size_t na = only_in(a->set[c], b->set[c], &oa,
				    fold ? &fa : NULL);
		size_t nb = only_in(b->set[c], a->set[c], &ob,
				    fold ? &fb : NULL);

		json_object_set_new(d, "only_a", json_list(oa, na));
		json_object_set_new(d, "only_b", json_list(ob, nb));
		if (fold) {
			json_object_set_new(d, "folded_a",
					    json_integer((json_int_t)fa));
			json_object_set_new(d, "folded_b",
					    json_integer((json_int_t)fb));
		}
		json_object_set_new(o, cats[c].key, d);
		total += na + nb + fa + fb;
		free(oa);
		free(ob);
	}
	if (a->finished != b->finished || a->exit != b->exit)
		total++;
	json_object_set_new(o, "differences", json_integer((json_int_t)total));
	*err = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!*err)
		putchar('\n');
	json_decref(o);
	return total;
}

/* ---- the command ------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate diff [--json] [--all] [--run N|ID] [--run-a N|ID]\n"
		"                    [--run-b N|ID] [--unverified] [--] A B\n"
		"What run B did that run A did not (+) and what A did that B did not (-):\n"
		"programs executed, files by access and outcome, network, denials with\n"
		"their rules, exit statuses per program.  A and B are trails, or latest,\n"
		"~N (see sysgate runs).  Each run's TMPDIR, working directory, HOME,\n"
		"pids and random temp names are shown as ${TMPDIR}, ${CWD}, ${HOME},\n"
		"<pid> and XXXXXX, so that they do not differ.\n"
		"  --json          the same as one JSON object\n"
		"  --all           list loader, locale and runtime reads too (else counted)\n"
		"  --run N|ID      run N of both files (1, 2, ...) or the run with id ID\n"
		"                  (default: the last run of each)\n"
		"  --run-a N|ID    the same for A only; --run-b for B only\n"
		"  --unverified    compare a trail that does not verify (warns)\n"
		"  -h, --help      this text\n"
		"Exit status: 0 no differences, 1 differences, 125 trouble.\n");
}

static void set_run(struct side *s, const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (*end || n == 0 || n > UINT32_MAX || arg[0] == '-') {
		s->want_id = arg;
		s->want_run = 0;
	} else {
		s->want_run = (unsigned)n;
		s->want_id = NULL;
	}
}

/* The command line: -1, or the exit status. */
static int diff_args(int argc, char **argv, struct side *a, struct side *b,
		     bool *json, bool *all, bool *unverified)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ "run", required_argument, NULL, 'R' },
		{ "run-a", required_argument, NULL, 'A' },
		{ "run-b", required_argument, NULL, 'B' },
		{ "unverified", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool set_a = false, set_b = false;
	int c;

	optind = 0;
	while ((c = tools_getopt(argc, argv, "diff", ":h", longopts)) != -1) {
		switch (c) {
		case 'j':
			*json = true;
			break;
		case 'a':
			*all = true;
			break;
		case 'R':
			set_run(a, optarg);
			set_run(b, optarg);
			set_a = set_b = true;
			break;
		case 'A':
			set_run(a, optarg);
			set_a = true;
			break;
		case 'B':
			set_run(b, optarg);
			set_b = true;
			break;
		case 'U':
			*unverified = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return tools_usage_error("diff");
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "sysgate diff: two runs are compared: A B\n");
		return tools_usage_error("diff");
	}
	a->path = tools_trail_arg("diff", argv[optind], a->path_buf, a->id_buf);
	b->path = tools_trail_arg("diff", argv[optind + 1], b->path_buf,
				  b->id_buf);
	if (!a->path || !b->path)
		return EXIT_TOOL_FAILURE;
	/* latest/~N in a file of several runs: that run, unless --run. */
	if (!set_a && a->id_buf[0])
		a->want_id = a->id_buf;
	if (!set_b && b->id_buf[0])
		b->want_id = b->id_buf;
	return -1;
}

int tool_diff(int argc, char **argv)
{
	struct side a = { 0 }, b = { 0 };
	bool json = false, all = false, unverified = false;
	int r, err = 0;
	size_t total;

	r = diff_args(argc, argv, &a, &b, &json, &all, &unverified);
	if (r < 0 && (load_side(&a, unverified) < 0 ||
		      load_side(&b, unverified) < 0))
		r = EXIT_TOOL_FAILURE;
	if (r < 0) {
		total = json ? output_json(&a, &b, all, &err) :
			       output_text(&a, &b, all);
		if (err || fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "sysgate diff: cannot write the comparison\n");
			r = EXIT_TOOL_FAILURE;
		} else {
			r = total ? 1 : 0;
		}
	}
	side_release(&a);
	side_release(&b);
	return r;
}
