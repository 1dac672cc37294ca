/* SPDX-License-Identifier: MIT */
/*
 * sysgate report AUDIT [--json] [--html OUT.html] [--run N|ID]: what a run
 * did, for a person debugging it: the process tree, programs executed,
 * files by access, network attempts, every denial with its rule and stack,
 * limits reached.  Reads the trail through audit/'s reader (jansson); a
 * trail that does not verify is still reported, after a warning.
 *
 * Everything shown comes from the traced program and is hostile: each
 * string is escaped for the terminal (no control bytes, no invalid UTF-8,
 * no bidi overrides); the HTML page puts it in as text, never as markup.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit/audit.h"
#include "common/util.h"
#include "tools/report-html.h"
#include "tools/tools.h"

#define EXIT_TOOL_FAILURE 125
#define NONE SIZE_MAX
/* Denials and limit records kept in full; more are only counted. */
#define MAX_KEPT_EVENTS 100000
/* Widest argv or path shown on one line (bytes of display text). */
#define MAX_SHOW 400
/* Rows of one HTML table (and denial marks), so that a page of a huge run
 * still opens; the text report and --json hold them all. */
#define MAX_HTML_ROWS 5000

/* ---- small helpers ---------------------------------------------------- */

/* Out of memory is the one error that ends the report in the middle. */
static void *xrealloc_array(void *p, size_t n, size_t size)
{
	void *np = reallocarray(p, n ? n : 1, size);

	if (!np) {
		fprintf(stderr, "sysgate report: out of memory\n");
		exit(EXIT_TOOL_FAILURE);
	}
	return np;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc_array(NULL, n + 1, 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* Make room for one more item in a vector of n items. */
static void *vec_grow(void *items, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return items;
	*cap = *cap ? *cap * 2 : 16;
	return xrealloc_array(items, *cap, size);
}

/* A growing string. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_addn(struct sbuf *b, const char *s, size_t n)
{
	if (b->cap - b->len <= n) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap - b->len <= n)
			cap *= 2;
		b->s = xrealloc_array(b->s, cap, 1);
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_add(struct sbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3)))
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		sb_addn(b, tmp, (size_t)n);
		return;
	}
	{
		char *big = xrealloc_array(NULL, (size_t)n + 1, 1);

		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sb_addn(b, big, (size_t)n);
		free(big);
	}
}

static void sb_clear(struct sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

static const char *sb_str(const struct sbuf *b)
{
	return b->s ? b->s : "";
}

static void sb_release(struct sbuf *b)
{
	free(b->s);
	*b = (struct sbuf){ 0 };
}

/*
 * Security: bytes from the tracee go to a terminal or a browser: shown by
 * audit_escape_tty()'s rule (no controls, no bidi controls, no invalid
 * UTF-8).
 */
static void sb_show(struct sbuf *b, const char *s, size_t n)
{
	size_t need = audit_escape_tty(NULL, 0, s, n);
	char *t = xrealloc_array(NULL, need + 1, 1);

	audit_escape_tty(t, need + 1, s, n);
	sb_addn(b, t, need);
	free(t);
}

/* Cut what was added to b since start to about max bytes, with "...". */
static void sb_cut(struct sbuf *b, size_t start, size_t max)
{
	size_t cut = start + max;

	if (b->len - start <= max)
		return;
	/* Back to a character boundary. */
	while (cut > start && ((unsigned char)b->s[cut] & 0xc0) == 0x80)
		cut--;
	b->len = cut;
	b->s[cut] = '\0';
	sb_add(b, "...");
}

/*
 * A string from the trail made safe to print (as sb_show does), for the
 * members that the supervisor writes itself (syscall, rule, errno...): a
 * trail that was tampered with may hold anything there too.  NULL gives
 * "?".  The result is valid until four more calls.
 */
static const char *clean(const char *s)
{
	static struct sbuf ring[4];
	static unsigned next;
	struct sbuf *b = &ring[next++ % 4];

	sb_clear(b);
	if (!s)
		s = "?";
	sb_show(b, s, strlen(s));
	return sb_str(b);
}

/* As sb_show, cut to about max bytes of display text. */
static void sb_show_max(struct sbuf *b, const char *s, size_t n, size_t max)
{
	size_t start = b->len;

	sb_show(b, s, n);
	sb_cut(b, start, max);
}

/* A string member shown (exact bytes, key_hex preferred); "" if absent. */
static void sb_show_member(struct sbuf *b, const json_t *obj, const char *key,
			   size_t max)
{
	char *v = NULL;
	size_t n = 0;

	if (audit_json_bytes(obj, key, &v, &n) == 0)
		sb_show_max(b, v, n, max);
	free(v);
}

static bool shell_plain(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("_./=:,+@%^-", c)))
			return false;
	}
	return true;
}

/* argv (a JSON array of audit_bytes values) as a shell-like line. */
static void sb_show_argv(struct sbuf *b, const json_t *argv, size_t max)
{
	struct sbuf raw = { 0 };
	size_t i;
	json_t *v;

	if (!json_is_array(argv))
		return;
	json_array_foreach(argv, i, v) {
		char *a = NULL;
		size_t n = 0;

		if (audit_json_bytes(v, NULL, &a, &n) < 0)
			continue;
		if (i)
			sb_add(&raw, " ");
		if (shell_plain(a, n)) {
			sb_addn(&raw, a, n);
		} else {
			sb_add(&raw, "'");
			for (size_t k = 0; k < n; k++) {
				if (a[k] == '\'')
					sb_add(&raw, "'\\''");
				else
					sb_addn(&raw, a + k, 1);
			}
			sb_add(&raw, "'");
		}
		free(a);
		if (raw.len > 4 * max)
			break;
	}
	sb_show_max(b, sb_str(&raw), raw.len, max);
	sb_release(&raw);
}

/* "2026-11-29T14:03:07.123456Z" -> microseconds since the epoch, or -1. */
static int64_t parse_ts(const json_t *v)
{
	const char *s = json_string_value(v);
	struct tm tm = { 0 };
	unsigned us = 0;
	int n = 0;
	char frac[8] = "";
	time_t t;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
			 &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec,
			 &n) != 6)
		return -1;
	if (s[n] == '.') {
		size_t k = 0;

		for (n++; s[n] >= '0' && s[n] <= '9'; n++)
			if (k < 6)
				frac[k++] = s[n];
		while (k < 6)
			frac[k++] = '0';
		us = (unsigned)strtoul(frac, NULL, 10);
	}
	if (s[n] != 'Z')
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	return (int64_t)t * 1000000 + us;
}

static const char *jstr(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static bool jint(const json_t *obj, const char *key, int64_t *out)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

/* ---- a map from byte strings to indexes -------------------------------- */

struct map_slot {
	char *key;
	size_t key_len;
	uint64_t hash;
	size_t val;
};

struct map {
	struct map_slot *slots;
	size_t cap, n;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

static struct map_slot *map_find(const struct map *m, const void *key,
				 size_t len, uint64_t h)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct map_slot *s = &m->slots[i];

		if (!s->key)
			return s;
		if (s->hash == h && s->key_len == len &&
		    !memcmp(s->key, key, len))
			return s;
	}
}

static bool map_get(const struct map *m, const void *key, size_t len,
		    size_t *val)
{
	struct map_slot *s = map_find(m, key, len, hash_bytes(key, len));

	if (!s || !s->key)
		return false;
	*val = s->val;
	return true;
}

/* Insert or overwrite. */
static void map_put(struct map *m, const void *key, size_t len, size_t val)
{
	uint64_t h = hash_bytes(key, len);
	struct map_slot *s;

	if (2 * (m->n + 1) > m->cap) {
		struct map old = *m;

		m->cap = old.cap ? old.cap * 2 : 64;
		m->slots = xrealloc_array(NULL, m->cap, sizeof(*m->slots));
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
		for (size_t i = 0; i < old.cap; i++) {
			if (!old.slots[i].key)
				continue;
			s = map_find(m, old.slots[i].key, old.slots[i].key_len,
				     old.slots[i].hash);
			*s = old.slots[i];
		}
		free(old.slots);
	}
	s = map_find(m, key, len, h);
	if (!s->key) {
		s->key = xstrndup(key, len);
		s->key_len = len;
		s->hash = h;
		m->n++;
	}
	s->val = val;
}

static void map_release(struct map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	*m = (struct map){ 0 };
}

/* ---- the model of one run ---------------------------------------------- */

struct proc {
	int64_t pid, ppid;
	size_t parent, first_child, last_child, next_sibling;
	char *kind;
	int64_t start_us, end_us;
	int64_t duration_ms;	/* from proc.exit; -1 unknown */
	bool ended, signaled, core, execed;
	int64_t code;
	char *signal;
	unsigned threads, signals, denials, execs;
	char *path;		/* program: last exec, else the parent's */
	size_t path_len;
	json_t *argv;		/* its argv (a reference) */
	size_t lane;		/* row in the tree and the timeline */
	unsigned depth;
	uint64_t exit_seq;	/* its proc.exit; 0 none */
	size_t exit_rec;	/* index of that record in report.recs */
	uint64_t denial_seq;	/* its first denial; 0 none */
	int64_t denial_us;
};

struct exec_ev {
	size_t proc;
	uint64_t seq;
	int64_t ts_us;
	char *path;
	size_t path_len;
	json_t *argv;
};

/* One line of the files table: a path, an access and an outcome. */
struct file_ent {
	char *path;
	size_t path_len;
	char *access;
	char *outcome;
	char *rule;
	uint64_t count;
	bool bad;		/* denied, killed or failed */
	int64_t pid;		/* of the first call */
	uint64_t first_seq;
	int64_t first_us;
	size_t node;		/* its process instance; NONE unknown */
	/* The path as the first call passed it, and the directory a
	 * relative one was relative to (NULL: none recorded). */
	char *path_arg, *relative_to;
	size_t path_arg_len, relative_to_len;
	const json_t *final;	/* its file.final (borrowed), or NULL */
};

struct net_ent {
	char *syscall;
	char *addr;		/* shown form, already escaped */
	char *outcome;
	char *rule;
	char *exe;
	int64_t pid;
	uint64_t count;
	bool bad;
	json_t *addr_json;
	uint64_t first_seq;
	int64_t first_us;
	size_t node;		/* its process instance; NONE unknown */
	/* The distinct DNS questions sent ({name, type}), addresses bound
	 * (a bind to port 0: the port the kernel chose) and, for accept,
	 * the peers; arrays, never NULL. */
	json_t *dns, *bound, *peers;
};

/* A failed open of a path under the working directory or HOME: the kind
 * of ENOENT that matters, among the loader's probes. */
struct miss {
	uint64_t seq;
	int64_t ts_us;
	int64_t pid;
	size_t proc;	/* its process (NONE: unknown) */
	char *syscall, *err, *path;
	size_t path_len;
};

struct denial {
	uint64_t seq;
	int64_t ts_us;
	size_t proc;
	json_t *rec;
};

struct report {
	const char *trail;
	bool verified;
	char why[512];
	unsigned runs;		/* runs seen in the trail */
	unsigned run_index;	/* 1-based index of the run reported */

	char *run_id;
	json_t *start, *end;	/* run.start, run.end (references) */
	int64_t t0_us, t1_us;
	uint64_t records, bad_lines, syscalls, allowed, denied, killed,
		redirected, failed, first_seq, last_seq;
	bool partial_tail;

	struct proc *procs;
	size_t n_procs, cap_procs;
	struct map tid_map;	/* tid (int64) -> proc index */
	unsigned threads;
	size_t *lanes;		/* proc indexes in tree order */
	size_t n_lanes;

	struct exec_ev *execs;
	size_t n_execs, cap_execs;

	struct file_ent *files;
	size_t n_files, cap_files;
	struct map file_map;

	struct net_ent *nets;
	size_t n_nets, cap_nets;
	struct map net_map;

	struct denial *denials;
	size_t n_denials, cap_denials;
	uint64_t denials_total;
	/* Permissive runs: calls let through that the policy would deny. */
	struct denial *woulds;
	size_t n_woulds, cap_woulds;
	uint64_t woulds_total;

	json_t **limits;
	size_t n_limits, cap_limits;
	uint64_t limits_total;
	json_t **finals;        /* file.final records */
	size_t n_finals, cap_finals;
	uint64_t finals_total, empties_total;

	/* Calls recorded before the supervisor carried them out ("pending"),
	 * waiting for their syscall.result; NULL once it came. */
	json_t **pending;
	size_t n_pending, cap_pending;
	struct map pending_map;	/* seq (int64) -> index */

	/* Every record of the run, in trail order (references), for the
	 * findings and the views; results by the seq of their call. */
	json_t **recs;
	size_t n_recs, cap_recs;
	struct map result_map;	/* ref (int64) -> index in recs */
	struct map seq_map;	/* seq (int64) -> index in recs */
	/* The process instance of each record (index in procs; NONE for
	 * a record of no process): a pid the kernel reused within the run
	 * is two instances, told apart by their proc.fork. */
	size_t *rec_proc;
	size_t cap_rec_proc;
	struct map final_map;	/* file.final's path -> index in finals */

	struct miss *misses;
	size_t n_misses, cap_misses;
	uint64_t misses_total;
	struct map found_map;	/* pid + file name -> seq of a good open */
	char *cwd, *home;	/* of run.start; NULL unknown */
	size_t cwd_len, home_len;
	bool all;		/* --all: no folding */

	/* The command's output, in lines (build_output_lines). */
	struct out_line *out_lines;
	size_t n_out_lines, cap_out_lines;
};

/* A line of the command's output: the record that ended it (seq; 0 for a
 * "deferred" record, written at the end of the run) and when it was read. */
struct out_line {
	uint64_t seq;
	int64_t time_us;
	const char *stream;	/* borrowed from its record */
	char *text;
	size_t len;
};

static void report_release(struct report *rp)
{
	for (size_t i = 0; i < rp->n_procs; i++) {
		free(rp->procs[i].kind);
		free(rp->procs[i].signal);
		free(rp->procs[i].path);
		json_decref(rp->procs[i].argv);
	}
	free(rp->procs);
	map_release(&rp->tid_map);
	free(rp->lanes);
	for (size_t i = 0; i < rp->n_execs; i++) {
		free(rp->execs[i].path);
		json_decref(rp->execs[i].argv);
	}
	free(rp->execs);
	for (size_t i = 0; i < rp->n_files; i++) {
		free(rp->files[i].path);
		free(rp->files[i].access);
		free(rp->files[i].outcome);
		free(rp->files[i].rule);
		free(rp->files[i].path_arg);
		free(rp->files[i].relative_to);
	}
	free(rp->files);
	map_release(&rp->file_map);
	for (size_t i = 0; i < rp->n_nets; i++) {
		free(rp->nets[i].syscall);
		free(rp->nets[i].addr);
		free(rp->nets[i].outcome);
		free(rp->nets[i].rule);
		free(rp->nets[i].exe);
		json_decref(rp->nets[i].addr_json);
		json_decref(rp->nets[i].dns);
		json_decref(rp->nets[i].bound);
		json_decref(rp->nets[i].peers);
	}
	free(rp->nets);
	map_release(&rp->net_map);
	for (size_t i = 0; i < rp->n_denials; i++)
		json_decref(rp->denials[i].rec);
	free(rp->denials);
	for (size_t i = 0; i < rp->n_woulds; i++)
		json_decref(rp->woulds[i].rec);
	free(rp->woulds);
	for (size_t i = 0; i < rp->n_limits; i++)
		json_decref(rp->limits[i]);
	free(rp->limits);
	for (size_t i = 0; i < rp->n_finals; i++)
		json_decref(rp->finals[i]);
	free(rp->finals);
	for (size_t i = 0; i < rp->n_pending; i++)
		json_decref(rp->pending[i]);
	free(rp->pending);
	map_release(&rp->pending_map);
	for (size_t i = 0; i < rp->n_recs; i++)
		json_decref(rp->recs[i]);
	free(rp->recs);
	map_release(&rp->result_map);
	map_release(&rp->seq_map);
	free(rp->rec_proc);
	map_release(&rp->final_map);
	for (size_t i = 0; i < rp->n_out_lines; i++)
		free(rp->out_lines[i].text);
	free(rp->out_lines);
	for (size_t i = 0; i < rp->n_misses; i++) {
		free(rp->misses[i].syscall);
		free(rp->misses[i].err);
		free(rp->misses[i].path);
	}
	free(rp->misses);
	map_release(&rp->found_map);
	free(rp->cwd);
	free(rp->home);
	json_decref(rp->start);
	json_decref(rp->end);
	free(rp->run_id);
}

/* Forget the run read so far (a new run starts), keep the trail facts. */
static void report_reset(struct report *rp)
{
	struct report keep = {
		.trail = rp->trail, .verified = rp->verified,
		.bad_lines = rp->bad_lines, .all = rp->all,
	};

	memcpy(keep.why, rp->why, sizeof(keep.why));
	report_release(rp);
	*rp = keep;
}

static size_t proc_find(const struct report *rp, int64_t tid)
{
	size_t idx;

	if (map_get(&rp->tid_map, &tid, sizeof(tid), &idx))
		return idx;
	return NONE;
}

static size_t proc_new(struct report *rp, int64_t pid, int64_t ppid,
		       int64_t ts_us, const char *kind)
{
	size_t parent = proc_find(rp, ppid);
	size_t idx = rp->n_procs;
	struct proc *p;

	rp->procs = vec_grow(rp->procs, rp->n_procs, &rp->cap_procs,
			     sizeof(*rp->procs));
	p = &rp->procs[rp->n_procs++];
	*p = (struct proc){
		.pid = pid, .ppid = ppid, .parent = parent,
		.first_child = NONE, .last_child = NONE, .next_sibling = NONE,
		.kind = xstrdup(kind), .start_us = ts_us, .end_us = -1,
		.duration_ms = -1, .lane = NONE,
	};
	/* A parent always comes before its child: the tree has no cycle. */
	if (parent != NONE) {
		struct proc *pp = &rp->procs[parent];

		if (pp->last_child == NONE)
			pp->first_child = idx;
		else
			rp->procs[pp->last_child].next_sibling = idx;
		pp->last_child = idx;
		/* Until it execs, a child runs its parent's program. */
		if (pp->path)
			p->path = xstrndup(pp->path, pp->path_len);
		p->path_len = pp->path_len;
		p->argv = json_incref(pp->argv);
	}
	map_put(&rp->tid_map, &pid, sizeof(pid), idx);
	return idx;
}

/* The process of a record's pid, made up if the trail never forked it. */
static size_t proc_of(struct report *rp, const json_t *rec, int64_t ts_us)
{
	int64_t pid = -1;
	size_t idx;

	if (!jint(rec, "pid", &pid))
		return NONE;
	idx = proc_find(rp, pid);
	if (idx == NONE)
		idx = proc_new(rp, pid, -1, ts_us, "unknown");
	return idx;
}

static void on_fork(struct report *rp, const json_t *rec, int64_t ts)
{
	int64_t pid, tid, ppid = -1;
	const char *kind = jstr(rec, "kind");
	size_t idx;

	if (!jint(rec, "pid", &pid))
		return;
	if (!jint(rec, "tid", &tid))
		tid = pid;
	jint(rec, "ppid", &ppid);
	if (tid != pid) {
		/* A thread: part of its process. */
		idx = proc_find(rp, pid);
		if (idx == NONE)
			idx = proc_new(rp, pid, ppid, ts, "unknown");
		rp->procs[idx].threads++;
		rp->threads++;
		map_put(&rp->tid_map, &tid, sizeof(tid), idx);
		return;
	}
	proc_new(rp, pid, ppid, ts, kind ? kind : "fork");
}

static void on_exec(struct report *rp, const json_t *rec, int64_t ts,
		    uint64_t seq)
{
	size_t idx = proc_of(rp, rec, ts);
	struct proc *p;
	struct exec_ev *e;
	char *path = NULL;
	size_t len = 0;

	if (idx == NONE)
		return;
	p = &rp->procs[idx];
	if (audit_json_bytes(rec, "path", &path, &len) < 0) {
		path = xstrdup("?");
		len = 1;
	}
	free(p->path);
	p->path = xstrndup(path, len);
	p->path_len = len;
	json_decref(p->argv);
	p->argv = json_incref(json_object_get(rec, "argv"));
	p->execed = true;
	p->execs++;

	rp->execs = vec_grow(rp->execs, rp->n_execs, &rp->cap_execs,
			     sizeof(*rp->execs));
	e = &rp->execs[rp->n_execs++];
	*e = (struct exec_ev){
		.proc = idx, .seq = seq, .ts_us = ts, .path = path,
		.path_len = len, .argv = json_incref(p->argv),
	};
}

static void on_exit_rec(struct report *rp, const json_t *rec, int64_t ts,
			uint64_t seq)
{
	int64_t pid, tid;
	size_t idx;
	struct proc *p;
	const char *sig;

	if (!jint(rec, "pid", &pid))
		return;
	if (!jint(rec, "tid", &tid))
		tid = pid;
	if (tid != pid || json_is_true(json_object_get(rec, "thread")))
		return;
	idx = proc_of(rp, rec, ts);
	p = &rp->procs[idx];
	p->ended = true;
	p->end_us = ts;
	p->exit_seq = seq;
	p->exit_rec = rp->n_recs - 1;
	jint(rec, "duration_ms", &p->duration_ms);
	sig = jstr(rec, "signal");
	if (sig) {
		p->signaled = true;
		free(p->signal);
		p->signal = xstrdup(sig);
		p->core = json_is_true(json_object_get(rec, "core"));
	} else {
		jint(rec, "code", &p->code);
	}
}

/* What became of a call, in a few words. */
static void call_outcome(const json_t *rec, const char *action,
			 struct sbuf *out, bool *bad)
{
	const char *err = jstr(rec, "errno");

	*bad = true;
	if (!strcmp(action, "deny")) {
		sb_printf(out, "denied %s", err ? err : "");
	} else if (!strcmp(action, "kill")) {
		sb_add(out, "killed");
	} else if (!strcmp(action, "rewrite")) {
		sb_add(out, "redirected");
		if (err)
			sb_printf(out, " %s", err);
		else
			*bad = false;
	} else if (err) {
		sb_add(out, err);
	} else if (json_object_get(rec, "result")) {
		*bad = false;
		sb_add(out, "ok");
	} else if (json_is_true(json_object_get(rec, "pending"))) {
		/* Recorded before it was carried out; no result followed
		 * (the supervisor died or the trail was cut). */
		sb_add(out, "no result recorded");
	} else {
		*bad = false;
		sb_add(out, action);
	}
	/* Trim the space a deny without errno leaves. */
	if (out->len && out->s[out->len - 1] == ' ')
		out->s[--out->len] = '\0';
}

/* Where a file or network entry was first seen. */
struct first {
	int64_t pid;
	uint64_t seq;
	int64_t ts_us;
	size_t node;		/* its process instance; NONE unknown */
};

/* The path as passed and what it was relative to, of the paths[] entry
 * pe of a file's first call. */
static void file_arg(struct file_ent *f, const json_t *pe)
{
	if (audit_json_bytes(pe, "path_arg", &f->path_arg,
			     &f->path_arg_len) < 0)
		f->path_arg = NULL;
	if (audit_json_bytes(pe, "relative_to", &f->relative_to,
			     &f->relative_to_len) < 0)
		f->relative_to = NULL;
}

/* Count a call on a path; pe is its paths[] entry (NULL: none). */
static void add_file(struct report *rp, const char *path, size_t path_len,
		     const char *access, const char *outcome, const char *rule,
		     bool bad, const struct first *at, const json_t *pe)
{
	struct sbuf key = { 0 };
	struct file_ent *f;
	size_t idx;

	sb_addn(&key, path, path_len);
	sb_addn(&key, "", 1);
	sb_add(&key, access);
	sb_addn(&key, "", 1);
	sb_add(&key, outcome);
	if (map_get(&rp->file_map, key.s, key.len, &idx)) {
		rp->files[idx].count++;
		sb_release(&key);
		return;
	}
	rp->files = vec_grow(rp->files, rp->n_files, &rp->cap_files,
			     sizeof(*rp->files));
	f = &rp->files[rp->n_files];
	*f = (struct file_ent){
		.path = xstrndup(path, path_len), .path_len = path_len,
		.access = xstrdup(access), .outcome = xstrdup(outcome),
		.rule = rule ? xstrdup(rule) : NULL, .count = 1, .bad = bad,
		.pid = at->pid, .first_seq = at->seq, .first_us = at->ts_us,
		.node = at->node,
	};
	file_arg(f, pe);
	map_put(&rp->file_map, key.s, key.len, rp->n_files++);
	sb_release(&key);
}

/* An address object of a syscall record, shown. */
static void sb_show_addr(struct sbuf *b, const json_t *addr)
{
	const char *fam = jstr(addr, "family");
	const char *ip = jstr(addr, "ip");
	int64_t port = 0;

	/* A call's address argument the supervisor did not read is its
	 * pointer, a string: no address. */
	if (!json_is_object(addr)) {
		sb_add(b, "(address not read)");
		return;
	}
	jint(addr, "port", &port);
	if (ip && fam && !strcmp(fam, "AF_INET6")) {
		sb_add(b, "[");
		sb_show(b, ip, strlen(ip));
		sb_printf(b, "]:%" PRId64, port);
	} else if (ip) {
		sb_show(b, ip, strlen(ip));
		sb_printf(b, ":%" PRId64, port);
	} else if (json_object_get(addr, "abstract")) {
		sb_add(b, "unix-abstract:");
		sb_show_member(b, addr, "abstract", MAX_SHOW);
	} else if (json_object_get(addr, "path")) {
		sb_add(b, "unix:");
		if (json_string_length(json_object_get(addr, "path")) == 0)
			sb_add(b, "(unnamed)");
		else
			sb_show_member(b, addr, "path", MAX_SHOW);
	} else if (fam) {
		sb_show(b, fam, strlen(fam));
	} else {
		int64_t f = -1;

		jint(addr, "family", &f);
		sb_printf(b, "family %" PRId64, f);
	}
}

/* Append v to the array arr unless an equal value is in it already. */
static void json_add_once(json_t *arr, const json_t *v)
{
	size_t i;
	json_t *e;

	if (!v || json_is_null(v))
		return;
	json_array_foreach(arr, i, e)
		if (json_equal(e, v))
			return;
	json_array_append(arr, (json_t *)v);
}

/* What a network entry adds up over its calls: the DNS question a send
 * asked, the address a bind got, the peer an accept took. */
static void net_details(struct net_ent *n, const json_t *rec)
{
	const json_t *dns = json_object_get(rec, "dns");
	const json_t *peer = json_object_get(json_object_get(rec, "args"),
					     "peer");

	if (json_is_object(dns)) {
		json_t *q = json_pack("{s:O?,s:O?}", "name",
				      json_object_get(dns, "name"), "type",
				      json_object_get(dns, "type"));

		json_add_once(n->dns, q);
		json_decref(q);
	}
	if (json_is_object(json_object_get(rec, "bound")))
		json_add_once(n->bound, json_object_get(rec, "bound"));
	if (json_is_object(peer))
		json_add_once(n->peers, peer);
}

/* A call that reaches the network: its address (for accept, the peer)
 * and outcome make an entry; a DNS query sent on a connected socket
 * names no address. */
static void add_net(struct report *rp, const json_t *rec, const char *name,
		    const char *outcome, bool bad, const char *rule,
		    const struct first *at)
{
	const json_t *args = json_object_get(rec, "args");
	const json_t *addr = json_object_get(args, "addr");
	struct sbuf shown = { 0 }, key = { 0 }, exe = { 0 };
	struct net_ent *n;
	size_t idx;

	if (!json_is_object(addr) &&
	    json_is_object(json_object_get(args, "peer")))
		addr = json_object_get(args, "peer");
	if (!addr && json_object_get(rec, "dns"))
		sb_add(&shown, "(connected socket)");
	else
		sb_show_addr(&shown, addr);
	sb_add(&key, name);
	sb_addn(&key, "", 1);
	sb_add(&key, sb_str(&shown));
	sb_addn(&key, "", 1);
	sb_add(&key, outcome);
	if (map_get(&rp->net_map, key.s, key.len, &idx)) {
		rp->nets[idx].count++;
		net_details(&rp->nets[idx], rec);
		goto out;
	}
	rp->nets = vec_grow(rp->nets, rp->n_nets, &rp->cap_nets,
			    sizeof(*rp->nets));
	n = &rp->nets[rp->n_nets];
	sb_show_member(&exe, rec, "exe", MAX_SHOW);
	*n = (struct net_ent){
		.syscall = xstrdup(name), .addr = xstrdup(sb_str(&shown)),
		.outcome = xstrdup(outcome),
		.rule = rule ? xstrdup(rule) : NULL,
		.pid = at->pid, .count = 1, .bad = bad,
		.addr_json = json_incref((json_t *)addr),
		.first_seq = at->seq, .first_us = at->ts_us, .node = at->node,
		.exe = xstrdup(sb_str(&exe)), .dns = json_array(),
		.bound = json_array(), .peers = json_array(),
	};
	if (!n->dns || !n->bound || !n->peers) {
		fprintf(stderr, "sysgate report: out of memory\n");
		exit(EXIT_TOOL_FAILURE);
	}
	net_details(n, rec);
	map_put(&rp->net_map, key.s, key.len, rp->n_nets++);
out:
	sb_release(&shown);
	sb_release(&key);
	sb_release(&exe);
}

/*
 * The access a call makes of one of its path arguments, for a path the
 * supervisor could not resolve (a missing directory...): its record has
 * the path as passed in args but nothing in paths[].
 */
static const char *guess_access(const char *name, const char *arg,
				const char *flags)
{
	if (!strncmp(name, "open", 4) || !strcmp(name, "creat")) {
		if (!strcmp(name, "creat") || (flags && strstr(flags, "O_CREAT")))
			return "create";
		if (flags && (strstr(flags, "O_WRONLY") ||
			      strstr(flags, "O_RDWR") || strstr(flags, "O_TRUNC")))
			return "write";
		return "read";
	}
	if (!strncmp(name, "exec", 4))
		return "exec";
	if (!strncmp(name, "unlink", 6) || !strcmp(name, "rmdir"))
		return "delete";
	if (!strncmp(name, "rename", 6))
		return !strcmp(arg, "oldpath") ? "delete" : "create";
	if (!strncmp(name, "link", 4))
		return !strcmp(arg, "oldpath") ? "read" : "create";
	if (!strncmp(name, "mkdir", 5) || !strncmp(name, "mknod", 5) ||
	    !strncmp(name, "symlink", 7))
		return "create";
	if (strstr(name, "chmod") || strstr(name, "chown") ||
	    !strcmp(name, "truncate"))
		return "write";
	return "other";
}

/* Whether path is dir or lies under it. */
static bool path_under(const char *path, size_t len, const char *dir,
		       size_t dir_len)
{
	if (!dir || !dir_len || len < dir_len || memcmp(path, dir, dir_len))
		return false;
	return len == dir_len || path[dir_len] == '/' ||
	       dir[dir_len - 1] == '/';
}

/* Whether a path lies under the run's working directory or HOME: what the
 * program was given to work on, shown first. */
static bool path_ours(const struct report *rp, const char *path, size_t len)
{
	return path_under(path, len, rp->cwd, rp->cwd_len) ||
	       path_under(path, len, rp->home, rp->home_len);
}

/* A path under a hidden directory of HOME (~/.pyenv, ~/.cargo, ~/.cache):
 * a tool's installation or cache, not the work (unless the working
 * directory is there). */
static bool path_home_tool(const struct report *rp, const char *path,
			   size_t len)
{
	return rp->home && !path_under(path, len, rp->cwd, rp->cwd_len) &&
	       path_under(path, len, rp->home, rp->home_len) &&
	       len > rp->home_len + 2 && path[rp->home_len] == '/' &&
	       path[rp->home_len + 1] == '.';
}

/* A call that opens or runs a file by its path. */
static bool call_opens(const char *name)
{
	return !strcmp(name, "open") || !strcmp(name, "openat") ||
	       !strcmp(name, "openat2") || !strcmp(name, "creat") ||
	       !strcmp(name, "execve") || !strcmp(name, "execveat");
}

/* An interpreter's compiled-module cache: never the program's own work,
 * wherever it lies. */
static bool path_runtime_cache(const char *p, size_t len)
{
	return (len >= 4 && !memcmp(p + len - 4, ".pyc", 4)) ||
	       memmem(p, len, "/__pycache__/", 13);
}

/* What a loader, a locale library or an interpreter's runtime reads, and
 * the probes of its search paths: folded into a count unless --all. */
static bool path_noise(const char *p, size_t len)
{
	static const char *const prefixes[] = {
		"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/",
		"/usr/local/lib/", "/etc/ld.so.", "/usr/share/locale/",
		"/usr/share/i18n/", "/usr/share/zoneinfo/", "/etc/localtime",
		"/etc/locale.", "/usr/include/", "/usr/local/include/",
		"/usr/share/gcc", "/usr/libexec/",
	};

	if (path_runtime_cache(p, len))
		return true;
	if (memchr(p, '\0', len))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(p, prefixes[i], strlen(prefixes[i])))
			return true;
	return (len >= 3 && !memcmp(p + len - 3, ".so", 3)) ||
	       strstr(p, ".so.");
}

/* The key of found_map: a pid and a file name (the last component). */
static void found_key(struct sbuf *key, int64_t pid, const char *path,
		      size_t len)
{
	const char *slash = memrchr(path, '/', len);
	size_t off = slash ? (size_t)(slash - path) + 1 : 0;

	sb_clear(key);
	sb_addn(key, (const char *)&pid, sizeof(pid));
	sb_addn(key, path + off, len - off);
}

/*
 * An open the kernel carried out or failed (not a rule).  A success is
 * remembered by pid and file name: a failure of the same name before it
 * was a search-path probe (gcc's -I, a loader's, an interpreter's), not a
 * finding.  A failure (ENOENT, EACCES) of a path under the working
 * directory or HOME is kept as a possible finding.
 */
static void note_open(struct report *rp, const json_t *rec, const char *name,
		      const struct first *at)
{
	const char *err = jstr(rec, "errno");
	const json_t *paths = json_object_get(rec, "paths");
	const json_t *from = json_array_size(paths) ?
		json_array_get(paths, 0) : json_object_get(rec, "args");
	char *path = NULL;
	size_t len = 0;
	struct miss *m;

	if (!call_opens(name) ||
	    audit_json_bytes(from, "path", &path, &len) < 0)
		return;
	/* An exec that is let through has no result (it does not return):
	 * the ENOENTs of the same name before it were its PATH search. */
	if (!err && (json_object_get(rec, "result") ||
		     !strncmp(name, "execve", 6))) {
		struct sbuf key = { 0 };

		found_key(&key, at->pid, path, len);
		map_put(&rp->found_map, key.s, key.len, (size_t)at->seq);
		sb_release(&key);
	}
	if (!err || (strcmp(err, "ENOENT") && strcmp(err, "EACCES")) ||
	    !path_ours(rp, path, len) || path_runtime_cache(path, len)) {
		free(path);
		return;
	}
	rp->misses_total++;
	if (rp->n_misses >= MAX_KEPT_EVENTS) {
		free(path);
		return;
	}
	rp->misses = vec_grow(rp->misses, rp->n_misses, &rp->cap_misses,
			      sizeof(*rp->misses));
	m = &rp->misses[rp->n_misses++];
	*m = (struct miss){
		.seq = at->seq, .ts_us = at->ts_us, .pid = at->pid,
		.proc = proc_find(rp, at->pid),
		.syscall = xstrdup(name), .err = xstrdup(err), .path = path,
		.path_len = len,
	};
}

/* A call of a permissive run that the policy would deny (would_deny). */
static void note_would(struct report *rp, json_t *rec, int64_t ts,
		       uint64_t seq, size_t idx)
{
	if (!json_is_true(json_object_get(rec, "would_deny")))
		return;
	rp->woulds_total++;
	if (rp->n_woulds >= MAX_KEPT_EVENTS)
		return;
	rp->woulds = vec_grow(rp->woulds, rp->n_woulds, &rp->cap_woulds,
			      sizeof(*rp->woulds));
	rp->woulds[rp->n_woulds++] = (struct denial){
		.seq = seq, .ts_us = ts, .proc = idx, .rec = json_incref(rec),
	};
}

static void on_syscall(struct report *rp, json_t *rec, int64_t ts,
		       uint64_t seq)
{
	const char *action = jstr(rec, "action");
	const char *name = jstr(rec, "syscall");
	const char *rule = jstr(rec, "rule");
	const json_t *paths = json_object_get(rec, "paths");
	struct sbuf outcome = { 0 };
	size_t idx = proc_of(rp, rec, ts);
	struct first at;
	bool bad, denied;
	int64_t pid = -1;
	size_t i;
	json_t *pe;

	if (!action)
		action = "?";
	if (!name)
		name = "?";
	jint(rec, "pid", &pid);
	at = (struct first){ .pid = pid, .seq = seq, .ts_us = ts,
			     .node = idx };
	rp->syscalls++;
	denied = !strcmp(action, "deny") || !strcmp(action, "kill");
	if (!strcmp(action, "allow"))
		rp->allowed++;
	else if (!strcmp(action, "deny"))
		rp->denied++;
	else if (!strcmp(action, "kill"))
		rp->killed++;
	else if (!strcmp(action, "rewrite"))
		rp->redirected++;
	if (!denied && json_object_get(rec, "errno"))
		rp->failed++;
	call_outcome(rec, action, &outcome, &bad);
	note_would(rp, rec, ts, seq, idx);

	json_array_foreach(paths, i, pe) {
		const char *pa = jstr(pe, "action");
		const char *acc = jstr(pe, "access");
		char *path = NULL;
		size_t len = 0;

		if (audit_json_bytes(pe, "path", &path, &len) < 0)
			continue;
		if (!acc)
			acc = "?";
		if (pa && (!strcmp(pa, "deny") || !strcmp(pa, "kill")))
			add_file(rp, path, len, acc, sb_str(&outcome),
				 jstr(pe, "rule"), true, &at, pe);
		else if (denied)
			/* Another path of the call was denied. */
			add_file(rp, path, len, acc, "not done", rule, true,
				 &at, pe);
		else
			add_file(rp, path, len, acc, sb_str(&outcome),
				 jstr(pe, "rule"), bad, &at, pe);
		free(path);
	}
	if (!json_array_size(paths)) {
		static const char *const raw_args[] = { "path", "oldpath",
							"newpath" };
		const json_t *args = json_object_get(rec, "args");

		for (size_t k = 0; k < ARRAY_SIZE(raw_args); k++) {
			char *path = NULL;
			size_t len = 0;

			if (audit_json_bytes(args, raw_args[k], &path, &len) < 0)
				continue;
			add_file(rp, path, len,
				 guess_access(name, raw_args[k],
					      jstr(args, "flags")),
				 sb_str(&outcome), rule, bad, &at, NULL);
			free(path);
		}
	}
	if (json_object_get(json_object_get(rec, "args"), "addr") ||
	    json_object_get(json_object_get(rec, "args"), "peer") ||
	    json_object_get(rec, "dns") ||
	    !strcmp(name, "connect") || !strcmp(name, "bind") ||
	    !strcmp(name, "sendto") || !strcmp(name, "sendmsg"))
		add_net(rp, rec, name, sb_str(&outcome), bad, rule, &at);
	sb_release(&outcome);
	if (!denied) {
		note_open(rp, rec, name, &at);
		return;
	}
	rp->denials_total++;
	if (idx != NONE && !rp->procs[idx].denials++) {
		rp->procs[idx].denial_seq = seq;
		rp->procs[idx].denial_us = ts;
	}
	if (rp->n_denials >= MAX_KEPT_EVENTS)
		return;
	rp->denials = vec_grow(rp->denials, rp->n_denials, &rp->cap_denials,
			       sizeof(*rp->denials));
	rp->denials[rp->n_denials++] = (struct denial){
		.seq = seq, .ts_us = ts, .proc = idx, .rec = json_incref(rec),
	};
}

/* A call recorded before it was carried out: wait for its result. */
static void on_pending(struct report *rp, json_t *rec, int64_t seq)
{
	proc_of(rp, rec, parse_ts(json_object_get(rec, "ts")));
	rp->pending = vec_grow(rp->pending, rp->n_pending, &rp->cap_pending,
			       sizeof(*rp->pending));
	rp->pending[rp->n_pending] = json_incref(rec);
	map_put(&rp->pending_map, &seq, sizeof(seq), rp->n_pending++);
}

/* syscall.result: the outcome of the pending call record "ref". */
static void on_result(struct report *rp, const json_t *res)
{
	json_t *call, *merged;
	int64_t ref = 0, seq = 0;
	size_t idx;
	const char *keys[] = { "result", "errno", "bound" };

	if (!jint(res, "ref", &ref) ||
	    !map_get(&rp->pending_map, &ref, sizeof(ref), &idx) ||
	    !rp->pending[idx])
		return;
	call = rp->pending[idx];
	rp->pending[idx] = NULL;
	merged = json_copy(call);
	if (!merged) {
		fprintf(stderr, "sysgate report: out of memory\n");
		exit(EXIT_TOOL_FAILURE);
	}
	json_object_del(merged, "pending");
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		json_t *v = json_object_get(res, keys[i]);

		if (v)
			json_object_set(merged, keys[i], v);
	}
	jint(call, "seq", &seq);
	on_syscall(rp, merged, parse_ts(json_object_get(call, "ts")),
		   (uint64_t)seq);
	json_decref(merged);
	json_decref(call);
}

/* The calls whose result never came, at the end of the run. */
static void flush_pending(struct report *rp)
{
	for (size_t i = 0; i < rp->n_pending; i++) {
		json_t *call = rp->pending[i];
		int64_t seq = 0;

		if (!call)
			continue;
		jint(call, "seq", &seq);
		on_syscall(rp, call, parse_ts(json_object_get(call, "ts")),
			   (uint64_t)seq);
	}
}

/* The directories a run works in: run.start's cwd, and HOME where the
 * trail records it (the policy's variables). */
static void on_start(struct report *rp, const json_t *rec)
{
	const json_t *vars = json_object_get(rec, "vars");
	char *v = NULL;
	size_t n = 0;

	free(rp->cwd);
	free(rp->home);
	rp->cwd = rp->home = NULL;
	rp->cwd_len = rp->home_len = 0;
	if (audit_json_bytes(rec, "cwd", &v, &n) == 0 && n && v[0] == '/') {
		rp->cwd = v;
		rp->cwd_len = n;
	} else {
		free(v);
	}
	v = NULL;
	if ((audit_json_bytes(vars, "HOME", &v, &n) == 0 ||
	     audit_json_bytes(rec, "home", &v, &n) == 0) && n && v[0] == '/') {
		rp->home = v;
		rp->home_len = n;
	} else {
		free(v);
	}
}

/* The process instance of the record just taken (the current one of its
 * pid: a proc.fork of a reused pid made a new one), and its seq. */
static void rec_identity(struct report *rp, const json_t *rec, int64_t seq)
{
	size_t n = rp->n_recs - 1;
	int64_t pid;

	rp->rec_proc = vec_grow(rp->rec_proc, n, &rp->cap_rec_proc,
				sizeof(*rp->rec_proc));
	rp->rec_proc[n] = jint(rec, "pid", &pid) ? proc_find(rp, pid) : NONE;
	map_put(&rp->seq_map, &seq, sizeof(seq), n);
}

/* The index in recs of the record of the run with this seq, or NONE. */
static size_t rec_index(const struct report *rp, int64_t seq)
{
	size_t i;

	return map_get(&rp->seq_map, &seq, sizeof(seq), &i) ? i : NONE;
}

/* The record of the run with this seq, or NULL. */
static const json_t *rec_of_seq(const struct report *rp, int64_t seq)
{
	size_t i = rec_index(rp, seq);

	return i == NONE ? NULL : rp->recs[i];
}

/* Where the scan of the trail is: runs seen so far. */
struct scan {
	unsigned runs;
	uint64_t records;
	unsigned want_run;	/* 0: the last run */
	const char *want_id;	/* or the run with this id */
};

/* The final size of a file the run wrote: kept for the files written
 * and, when it ended empty, the findings. */
static void on_file_final(struct report *rp, json_t *rec)
{
	int64_t size = -1;

	rp->finals_total++;
	if (jint(rec, "size", &size) && size == 0)
		rp->empties_total++;
	if (rp->n_finals >= MAX_KEPT_EVENTS)
		return;
	rp->finals = vec_grow(rp->finals, rp->n_finals, &rp->cap_finals,
			      sizeof(*rp->finals));
	rp->finals[rp->n_finals++] = json_incref(rec);
}

/*
 * Take one record.  A run starts at the first record, at run.start and at
 * seq 1 (audit_open_path appends runs one after another).  Only the
 * records of the wanted run go into the model: the last run of the trail
 * (a new run resets the model), the Nth, or the one with the given id.
 */
static void ingest(struct report *rp, struct scan *sc, json_t *rec)
{
	const char *type = jstr(rec, "type");
	const char *run = jstr(rec, "run");
	int64_t ts, seq = 0;
	bool starts;

	if (!type)
		type = "?";
	jint(rec, "seq", &seq);
	starts = !sc->records || !strcmp(type, "run.start") || seq == 1;
	sc->records++;
	if (starts)
		sc->runs++;
	if (sc->want_run && sc->runs != sc->want_run)
		return;
	if (sc->want_id && (!run || strcmp(run, sc->want_id)))
		return;
	if (starts || !rp->records) {
		if (rp->records)
			report_reset(rp);
		rp->run_index = sc->runs;
		rp->run_id = xstrdup(run ? run : "?");
	}
	ts = parse_ts(json_object_get(rec, "ts"));
	rp->records++;
	if (rp->records == 1)
		rp->first_seq = (uint64_t)seq;
	rp->last_seq = (uint64_t)seq;
	if (ts >= 0) {
		if (rp->t0_us <= 0 || ts < rp->t0_us)
			rp->t0_us = ts;
		if (ts > rp->t1_us)
			rp->t1_us = ts;
	}

	rp->recs = vec_grow(rp->recs, rp->n_recs, &rp->cap_recs,
			    sizeof(*rp->recs));
	rp->recs[rp->n_recs++] = json_incref(rec);
	if (!strcmp(type, "run.start")) {
		json_decref(rp->start);
		rp->start = json_incref(rec);
		on_start(rp, rec);
	} else if (!strcmp(type, "run.end")) {
		json_decref(rp->end);
		rp->end = json_incref(rec);
	} else if (!strcmp(type, "proc.fork")) {
		on_fork(rp, rec, ts);
	} else if (!strcmp(type, "proc.exec")) {
		on_exec(rp, rec, ts, (uint64_t)seq);
	} else if (!strcmp(type, "proc.exit")) {
		on_exit_rec(rp, rec, ts, (uint64_t)seq);
	} else if (!strcmp(type, "proc.signal")) {
		size_t idx = proc_of(rp, rec, ts);

		if (idx != NONE)
			rp->procs[idx].signals++;
	} else if (!strcmp(type, "syscall")) {
		if (json_is_true(json_object_get(rec, "pending")))
			on_pending(rp, rec, seq);
		else
			on_syscall(rp, rec, ts, (uint64_t)seq);
	} else if (!strcmp(type, "syscall.result")) {
		int64_t ref = 0;

		if (jint(rec, "ref", &ref))
			map_put(&rp->result_map, &ref, sizeof(ref),
				rp->n_recs - 1);
		on_result(rp, rec);
	} else if (!strcmp(type, "file.final")) {
		on_file_final(rp, rec);
	} else if (!strcmp(type, "limit")) {
		rp->limits_total++;
		if (rp->n_limits < MAX_KEPT_EVENTS) {
			rp->limits = vec_grow(rp->limits, rp->n_limits,
					      &rp->cap_limits,
					      sizeof(*rp->limits));
			rp->limits[rp->n_limits++] = json_incref(rec);
		}
	}
	rec_identity(rp, rec, seq);
}

/* A stream's line so far (build_output_lines). */
struct out_partial {
	const char *stream;
	struct sbuf text;
};

static void out_line_add(struct report *rp, const char *stream,
			 const char *text, size_t len, uint64_t seq,
			 int64_t time_us)
{
	struct out_line *l;

	rp->out_lines = vec_grow(rp->out_lines, rp->n_out_lines,
				 &rp->cap_out_lines, sizeof(*rp->out_lines));
	l = &rp->out_lines[rp->n_out_lines++];
	l->seq = seq;
	l->time_us = time_us;
	l->stream = stream;
	l->len = len;
	l->text = xrealloc_array(NULL, len + 1, 1);
	memcpy(l->text, text, len);
	l->text[len] = '\0';
}

/* One output record cut into lines; what follows its last newline waits
 * in p for the stream's next record. */
static void out_record(struct report *rp, struct out_partial *p,
		       const json_t *rec)
{
	int64_t seq = 0, t = parse_ts(json_object_get(rec, "time"));
	char *v = NULL;
	size_t n = 0, from = 0;

	if (audit_json_bytes(rec, "data", &v, &n) < 0)
		return;
	if (json_is_true(json_object_get(rec, "deferred")))
		seq = 0;
	else
		jint(rec, "seq", &seq);
	for (size_t i = 0; i < n; i++) {
		if (v[i] != '\n')
			continue;
		sb_addn(&p->text, v + from, i - from);
		out_line_add(rp, p->stream, p->text.s ? p->text.s : "",
			     p->text.len, (uint64_t)seq, t);
		sb_clear(&p->text);
		from = i + 1;
	}
	sb_addn(&p->text, v + from, n - from);
	free(v);
}

/*
 * The command's output records (type "output") as lines per stream, in
 * trail order, for the findings.  A line ends at a newline, or at the
 * end of the run.
 */
static void build_output_lines(struct report *rp)
{
	struct out_partial part[3] = { { "stdout" }, { "stderr" },
				       { "stdout+stderr" } };
	uint64_t last_seq[3] = { 0, 0, 0 };
	int64_t last_t[3] = { -1, -1, -1 };

	for (size_t i = 0; i < rp->n_recs; i++) {
		const json_t *rec = rp->recs[i];
		const char *type = jstr(rec, "type");
		const char *stream = jstr(rec, "stream");
		int64_t seq = 0;
		unsigned k;

		if (!type || strcmp(type, "output") || !stream)
			continue;
		for (k = 0; k < 3 && strcmp(stream, part[k].stream); k++)
			;
		if (k == 3)
			continue;
		out_record(rp, &part[k], rec);
		if (!json_is_true(json_object_get(rec, "deferred")))
			jint(rec, "seq", &seq);
		last_seq[k] = (uint64_t)seq;
		last_t[k] = parse_ts(json_object_get(rec, "time"));
	}
	for (unsigned k = 0; k < 3; k++) {
		if (part[k].text.len)
			out_line_add(rp, part[k].stream, part[k].text.s,
				     part[k].text.len, last_seq[k], last_t[k]);
		sb_release(&part[k].text);
	}
}

/* Each file written or created gets its final size (file.final, by the
 * canonical path both carry). */
static void link_finals(struct report *rp)
{
	for (size_t i = 0; i < rp->n_finals; i++) {
		char *path = NULL;
		size_t len = 0;

		if (audit_json_bytes(rp->finals[i], "path", &path, &len) < 0)
			continue;
		map_put(&rp->final_map, path, len, i);
		free(path);
	}
	for (size_t i = 0; i < rp->n_files; i++) {
		struct file_ent *fe = &rp->files[i];
		size_t k;

		if ((!strcmp(fe->access, "write") ||
		     !strcmp(fe->access, "create")) &&
		    map_get(&rp->final_map, fe->path, fe->path_len, &k))
			fe->final = rp->finals[k];
	}
}

/* Order the processes as the tree shows them: depth first, children in
 * the order they were made.  Iterative: a fork chain can be deep. */
static void build_lanes(struct report *rp)
{
	rp->lanes = xrealloc_array(NULL, rp->n_procs, sizeof(*rp->lanes));
	rp->n_lanes = 0;
	for (size_t root = 0; root < rp->n_procs; root++) {
		size_t i = root;
		unsigned depth = 0;

		if (rp->procs[root].parent != NONE)
			continue;
		for (;;) {
			rp->procs[i].lane = rp->n_lanes;
			rp->procs[i].depth = depth;
			rp->lanes[rp->n_lanes++] = i;
			if (rp->procs[i].first_child != NONE) {
				i = rp->procs[i].first_child;
				depth++;
				continue;
			}
			while (i != root && rp->procs[i].next_sibling == NONE) {
				i = rp->procs[i].parent;
				depth--;
			}
			if (i == root)
				break;
			i = rp->procs[i].next_sibling;
		}
	}
}

/* ---- shared pieces of the outputs -------------------------------------- */

static const char *const access_order[] = {
	"read", "write", "create", "delete", "exec", "stat",
};

static const char *access_title(const char *a)
{
	if (!strcmp(a, "read"))
		return "Read";
	if (!strcmp(a, "write"))
		return "Written";
	if (!strcmp(a, "create"))
		return "Created";
	if (!strcmp(a, "delete"))
		return "Deleted";
	if (!strcmp(a, "exec"))
		return "Executed";
	if (!strcmp(a, "stat"))
		return "Looked up";
	return "Other access";
}

static bool access_known(const char *a)
{
	for (size_t k = 0; k < ARRAY_SIZE(access_order); k++)
		if (!strcmp(a, access_order[k]))
			return true;
	return false;
}

/* Whether a rule stopped the call (rather than the kernel failing it). */
static bool outcome_by_rule(const char *outcome)
{
	return !strncmp(outcome, "denied", 6) || !strcmp(outcome, "killed") ||
	       !strcmp(outcome, "not done");
}

/* Microseconds as a short duration. */
static void sb_duration(struct sbuf *b, int64_t us)
{
	if (us < 0)
		sb_add(b, "?");
	else if (us < 1000)
		sb_printf(b, "%" PRId64 " us", us);
	else if (us < 10000000)
		sb_printf(b, "%.1f ms", (double)us / 1000.0);
	else
		sb_printf(b, "%.2f s", (double)us / 1000000.0);
}

static int64_t proc_dur_us(const struct report *rp, const struct proc *p)
{
	/* The trail's number, maybe edited: no overflow. */
	if (p->duration_ms >= 0 && p->duration_ms <= INT64_MAX / 1000)
		return p->duration_ms * 1000;
	if (p->start_us >= 0 && p->ended && p->end_us >= p->start_us)
		return p->end_us - p->start_us;
	if (p->start_us >= 0 && !p->ended)
		return rp->t1_us - p->start_us;
	return -1;
}

static void sb_proc_status(struct sbuf *b, const struct proc *p)
{
	if (!p->ended)
		sb_add(b, "no exit recorded");
	else if (p->signaled)
		sb_printf(b, "killed by %s%s", clean(p->signal),
			  p->core ? " (core dumped)" : "");
	else
		sb_printf(b, "exit %" PRId64, p->code);
}

/* "pid 123 cat /etc/hostname" style label of a process. */
static void sb_proc_cmd(struct sbuf *b, const struct proc *p, size_t max)
{
	if (json_array_size(p->argv))
		sb_show_argv(b, p->argv, max);
	else if (p->path)
		sb_show_max(b, p->path, p->path_len, max);
	else
		sb_add(b, "?");
}

/* The "what" of a denial: its paths with access, or its address. */
static void sb_denial_what(struct sbuf *b, const json_t *rec)
{
	const json_t *args = json_object_get(rec, "args");
	const json_t *paths = json_object_get(rec, "paths");
	size_t i;
	json_t *pe;

	if (json_array_size(paths)) {
		json_array_foreach(paths, i, pe) {
			const char *acc = jstr(pe, "access");

			if (i)
				sb_add(b, ", ");
			sb_show_member(b, pe, "path", MAX_SHOW);
			if (acc)
				sb_printf(b, " (%s)", acc);
		}
	} else if (json_object_get(args, "addr")) {
		sb_show_addr(b, json_object_get(args, "addr"));
	} else if (json_object_get(args, "path")) {
		sb_show_member(b, args, "path", MAX_SHOW);
	}
}

static void sb_frame(struct sbuf *b, const json_t *fr)
{
	const json_t *ip = json_object_get(fr, "ip");
	const json_t *off = json_object_get(fr, "offset");

	if (json_is_integer(ip))
		sb_printf(b, "0x%" PRIx64, (uint64_t)json_integer_value(ip));
	else if (json_is_string(ip))
		sb_show(b, json_string_value(ip), json_string_length(ip));
	else
		sb_add(b, "?");
	if (json_object_get(fr, "symbol")) {
		sb_add(b, " ");
		sb_show_member(b, fr, "symbol", MAX_SHOW);
		if (json_is_integer(off))
			sb_printf(b, "+0x%" PRIx64,
				  (uint64_t)json_integer_value(off));
		else if (json_is_string(off))
			sb_printf(b, "+%s", clean(json_string_value(off)));
	}
	if (json_object_get(fr, "module")) {
		const char *moff = jstr(fr, "module_offset");

		sb_add(b, " (");
		sb_show_member(b, fr, "module", MAX_SHOW);
		/* No symbol (a stripped program): where in the module, for
		 * addr2line. */
		if (!json_object_get(fr, "symbol") && moff)
			sb_printf(b, "+%s", clean(moff));
		sb_add(b, ")");
	}
}

/* Relative time of a record: "+1.234567s". */
static void sb_rel(struct sbuf *b, const struct report *rp, int64_t ts)
{
	if (ts < 0 || rp->t0_us <= 0)
		sb_add(b, "?");
	else
		sb_printf(b, "+%" PRId64 ".%06" PRId64 "s",
			  (ts - rp->t0_us) / 1000000,
			  (ts - rp->t0_us) % 1000000);
}

/* "  (pid 5, record 12, +0.001s)": where an entry was first seen. */
static void sb_first(struct sbuf *b, const struct report *rp, int64_t pid,
		     uint64_t seq, int64_t ts)
{
	sb_printf(b, "  (pid %" PRId64 ", record %" PRIu64 ", ", pid, seq);
	sb_rel(b, rp, ts);
	sb_add(b, ")");
}

static void sb_run_result(struct sbuf *b, const struct report *rp)
{
	const char *status = jstr(rp->end, "status");
	const char *error = jstr(rp->end, "error");
	int64_t ex = 0;

	if (!rp->end) {
		sb_add(b, "unknown: the trail has no run.end (cut short?)");
		return;
	}
	jint(rp->end, "exit", &ex);
	sb_printf(b, "exit status %" PRId64, ex);
	if (status && !strcmp(status, "signaled") && jstr(rp->end, "signal"))
		sb_printf(b, " (killed by %s)", clean(jstr(rp->end, "signal")));
	else if (status && strcmp(status, "exited"))
		sb_printf(b, " (%s)", clean(status));
	if (error) {
		sb_add(b, ": ");
		sb_show(b, error, strlen(error));
	}
}

/* ---- text ---------------------------------------------------------------- */

static void text_tree(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };
	/* last[d]: is the ancestor at depth d its parent's last child? */
	bool *last = xrealloc_array(NULL, rp->n_procs + 1, sizeof(*last));

	fprintf(f, "\nProcess tree (%zu process%s, %u thread%s)\n",
		rp->n_procs, rp->n_procs == 1 ? "" : "es", rp->threads,
		rp->threads == 1 ? "" : "s");
	for (size_t l = 0; l < rp->n_lanes; l++) {
		const struct proc *p = &rp->procs[rp->lanes[l]];

		sb_clear(&b);
		last[p->depth] = p->next_sibling == NONE;
		sb_add(&b, "  ");
		for (unsigned d = 1; d < p->depth; d++)
			sb_add(&b, last[d] ? "   " : "|  ");
		if (p->depth)
			sb_add(&b, last[p->depth] ? "`- " : "|- ");
		sb_printf(&b, "%" PRId64 " ", p->pid);
		if (!p->execed && p->parent != NONE)
			sb_add(&b, "(fork) ");
		sb_proc_cmd(&b, p, MAX_SHOW);
		sb_add(&b, "  [");
		sb_duration(&b, proc_dur_us(rp, p));
		sb_add(&b, ", ");
		sb_proc_status(&b, p);
		if (p->threads)
			sb_printf(&b, ", +%u thread%s", p->threads,
				  p->threads == 1 ? "" : "s");
		if (p->denials)
			sb_printf(&b, ", %u denied", p->denials);
		sb_add(&b, "]");
		fprintf(f, "%s\n", sb_str(&b));
	}
	free(last);
	sb_release(&b);
}

static void text_execs(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };

	fprintf(f, "\nPrograms executed (%zu)\n", rp->n_execs);
	for (size_t i = 0; i < rp->n_execs; i++) {
		const struct exec_ev *e = &rp->execs[i];

		sb_clear(&b);
		sb_rel(&b, rp, e->ts_us);
		sb_printf(&b, "  pid %" PRId64 "  ", rp->procs[e->proc].pid);
		sb_show_max(&b, e->path, e->path_len, MAX_SHOW);
		sb_add(&b, "  ");
		sb_show_argv(&b, e->argv, MAX_SHOW);
		fprintf(f, "  %s\n", sb_str(&b));
	}
	sb_release(&b);
}

/* An entry folded by default: a noise path read, looked up or probed
 * (missing), outside the run's own directories, that no rule stopped. */
static bool file_folded(const struct report *rp, const struct file_ent *fe)
{
	if (rp->all)
		return false;
	if (strcmp(fe->access, "read") && strcmp(fe->access, "stat"))
		return false;
	if (strcmp(fe->outcome, "ok") && strcmp(fe->outcome, "allow") &&
	    strcmp(fe->outcome, "ENOENT") && strcmp(fe->outcome, "ENOTDIR"))
		return false;
	if (path_runtime_cache(fe->path, fe->path_len))
		return true;
	return !path_ours(rp, fe->path, fe->path_len) &&
	       path_noise(fe->path, fe->path_len);
}

static void text_file(FILE *f, const struct report *rp,
		      const struct file_ent *fe, struct sbuf *b)
{
	sb_clear(b);
	sb_show_max(b, fe->path, fe->path_len, MAX_SHOW);
	if (strcmp(fe->outcome, "ok") && strcmp(fe->outcome, "allow")) {
		sb_printf(b, "  [%s", clean(fe->outcome));
		if (fe->rule && outcome_by_rule(fe->outcome))
			sb_printf(b, ", rule %s", clean(fe->rule));
		sb_add(b, "]");
	}
	if (fe->count > 1)
		sb_printf(b, "  x%" PRIu64, fe->count);
	sb_first(b, rp, fe->pid, fe->first_seq, fe->first_us);
	fprintf(f, "    %s\n", sb_str(b));
}

static bool access_match(const struct file_ent *fe, size_t k)
{
	return k < ARRAY_SIZE(access_order) ?
		!strcmp(fe->access, access_order[k]) :
		!access_known(fe->access);
}

/* Files by access; in each, the paths under the working directory and
 * HOME first, then the others, each in the order first seen. */
static void text_files(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };
	uint64_t folded = 0, folded_calls = 0;

	fprintf(f, "\nFiles (%zu path/access/outcome combinations; in the order first seen, the working directory's and HOME's first)\n",
		rp->n_files);
	for (size_t k = 0; k <= ARRAY_SIZE(access_order); k++) {
		bool header = false;

		for (int ours = 1; ours >= 0; ours--) {
			for (size_t i = 0; i < rp->n_files; i++) {
				const struct file_ent *fe = &rp->files[i];

				bool mine = path_ours(rp, fe->path,
						      fe->path_len);

				if (!access_match(fe, k) || mine != ours)
					continue;
				if (file_folded(rp, fe)) {
					folded++;
					folded_calls += fe->count;
					continue;
				}
				if (!header) {
					fprintf(f, "  %s:\n",
						access_title(fe->access));
					header = true;
				}
				text_file(f, rp, fe, &b);
			}
		}
	}
	if (folded)
		fprintf(f, "  (%" PRIu64 " loader, locale and runtime paths read or probed, %" PRIu64 " calls, folded: --all shows them)\n",
			folded, folded_calls);
	sb_release(&b);
}

/* The files the run wrote with their sizes at its end (file.final). */
static void text_finals(FILE *f, const struct report *rp)
{
	if (!rp->finals_total)
		return;
	fprintf(f, "\nFiles written, size at the end (%" PRIu64
		"; in the order first written)\n", rp->finals_total);
	for (size_t i = 0; i < rp->n_finals; i++) {
		const json_t *e = rp->finals[i];
		int64_t seq = 0, first = 0, size = -1;

		jint(e, "seq", &seq);
		jint(e, "first_seq", &first);
		fprintf(f, "  %s  ", clean(jstr(e, "path")));
		if (jint(e, "size", &size))
			fprintf(f, "%" PRId64 " bytes", size);
		else
			fprintf(f, "[%s]", clean(jstr(e, "error")));
		fprintf(f, "  (first written at record %" PRId64
			", record %" PRId64 ")\n", first, seq);
	}
}

/* "  dns a.example A, b.example AAAA  bound 127.0.0.1:4321  peers
 * 127.0.0.1:5555": a network entry's details. */
static void sb_net_details(struct sbuf *b, const struct net_ent *n)
{
	const json_t *const lists[] = { n->dns, n->bound, n->peers };
	static const char *const titles[] = { "dns", "bound", "peers" };
	size_t i;
	json_t *v;

	for (size_t k = 0; k < ARRAY_SIZE(lists); k++) {
		json_array_foreach(lists[k], i, v) {
			sb_printf(b, i ? ", " : "  %s ", titles[k]);
			if (k) {
				sb_show_addr(b, v);
				continue;
			}
			sb_show_member(b, v, "name", MAX_SHOW);
			if (jstr(v, "type"))
				sb_printf(b, " %s", clean(jstr(v, "type")));
		}
	}
}

static void text_net(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };

	fprintf(f, "\nNetwork (%zu; in the order first seen)\n", rp->n_nets);
	for (size_t i = 0; i < rp->n_nets; i++) {
		const struct net_ent *n = &rp->nets[i];

		bool by_rule = n->rule && outcome_by_rule(n->outcome);

		fprintf(f, "  %s %s  [%s%s%s]  by %s (pid %" PRId64 ")",
			clean(n->syscall), n->addr, clean(n->outcome),
			by_rule ? ", rule " : "", by_rule ? clean(n->rule) : "",
			n->exe, n->pid);
		if (n->count > 1)
			fprintf(f, "  x%" PRIu64, n->count);
		fprintf(f, "  (record %" PRIu64 ", ", n->first_seq);
		sb_clear(&b);
		sb_rel(&b, rp, n->first_us);
		sb_add(&b, ")");
		sb_net_details(&b, n);
		fprintf(f, "%s\n", sb_str(&b));
	}
	sb_release(&b);
}

static void text_denials(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };

	fprintf(f, "\nDenials (%" PRIu64 ")\n", rp->denials_total);
	for (size_t i = 0; i < rp->n_denials; i++) {
		const struct denial *d = &rp->denials[i];
		const json_t *rec = d->rec;
		const json_t *stack = json_object_get(rec, "stack");
		const char *note = jstr(rec, "note");
		const char *rule = jstr(rec, "rule");
		const char *err = jstr(rec, "errno");
		int64_t tid = -1;
		size_t k;
		json_t *fr;

		jint(rec, "tid", &tid);
		sb_clear(&b);
		sb_printf(&b, "record %" PRIu64 "  ", d->seq);
		sb_rel(&b, rp, d->ts_us);
		sb_printf(&b, "  pid %" PRId64,
			  d->proc != NONE ? rp->procs[d->proc].pid : -1);
		if (d->proc != NONE && tid != rp->procs[d->proc].pid)
			sb_printf(&b, " tid %" PRId64, tid);
		sb_add(&b, " ");
		sb_show_member(&b, rec, "exe", MAX_SHOW);
		sb_printf(&b, ": %s ", clean(jstr(rec, "syscall")));
		sb_denial_what(&b, rec);
		sb_printf(&b, " -> %s", clean(jstr(rec, "action")));
		if (err)
			sb_printf(&b, " %s", clean(err));
		sb_add(&b, " by rule ");
		sb_show(&b, rule ? rule : "(default)",
			strlen(rule ? rule : "(default)"));
		if (note) {
			sb_add(&b, " (");
			sb_show(&b, note, strlen(note));
			sb_add(&b, ")");
		}
		fprintf(f, "  %s\n", sb_str(&b));
		json_array_foreach(stack, k, fr) {
			sb_clear(&b);
			sb_frame(&b, fr);
			fprintf(f, "      #%zu %s\n", k, sb_str(&b));
		}
	}
	if (rp->denials_total > rp->n_denials)
		fprintf(f, "  ... and %" PRIu64 " more (see the trail)\n",
			rp->denials_total - rp->n_denials);
	sb_release(&b);
}

/* The members of a record other than the common ones, key=value. */
static void sb_members(struct sbuf *b, const json_t *rec)
{
	const char *key;
	json_t *v;
	bool first = true;

	json_object_foreach((json_t *)rec, key, v) {
		char *dump;

		if (!strcmp(key, "seq") || !strcmp(key, "ts") ||
		    !strcmp(key, "run") || !strcmp(key, "type") ||
		    !strcmp(key, "hash"))
			continue;
		dump = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		sb_printf(b, "%s%s=", first ? "" : " ", key);
		if (dump)
			sb_show_max(b, dump, strlen(dump), MAX_SHOW);
		free(dump);
		first = false;
	}
}

static void text_limits(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };

	fprintf(f, "\nLimits reached (%" PRIu64 ")\n", rp->limits_total);
	for (size_t i = 0; i < rp->n_limits; i++) {
		int64_t seq = 0;

		jint(rp->limits[i], "seq", &seq);
		sb_clear(&b);
		sb_printf(&b, "record %" PRId64 "  ", seq);
		sb_rel(&b, rp, parse_ts(json_object_get(rp->limits[i], "ts")));
		sb_add(&b, "  ");
		sb_members(&b, rp->limits[i]);
		fprintf(f, "  %s\n", sb_str(&b));
	}
	sb_release(&b);
}

static void text_header(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };
	const json_t *s = rp->start;

	fprintf(f, "sysgate report: %s\n", clean(rp->trail));
	if (rp->runs > 1)
		fprintf(f, "The trail holds %u runs; this is run %u (--run N chooses).\n",
			rp->runs, rp->run_index);
	sb_show(&b, rp->run_id, strlen(rp->run_id));
	fprintf(f, "run:      %s", sb_str(&b));
	if (jstr(s, "host"))
		fprintf(f, " on %s", clean(jstr(s, "host")));
	if (jstr(s, "ts"))
		fprintf(f, ", started %s", clean(jstr(s, "ts")));
	fputc('\n', f);
	sb_clear(&b);
	sb_show_argv(&b, json_object_get(s, "command"), 4 * MAX_SHOW);
	fprintf(f, "command:  %s\n", sb_str(&b));
	sb_clear(&b);
	sb_show_member(&b, s, "cwd", MAX_SHOW);
	fprintf(f, "cwd:      %s\n", sb_str(&b));
	sb_clear(&b);
	sb_show_member(&b, s, "policy", MAX_SHOW);
	fprintf(f, "policy:   %s (audit = %s)\n", sb_str(&b),
		clean(jstr(s, "audit_level")));
	sb_clear(&b);
	sb_run_result(&b, rp);
	fprintf(f, "result:   %s, after ", sb_str(&b));
	sb_clear(&b);
	sb_duration(&b, rp->t1_us - rp->t0_us);
	fprintf(f, "%s\n", sb_str(&b));
	fprintf(f, "records:  %" PRIu64 " (seq %" PRIu64 "-%" PRIu64 ")%s",
		rp->records, rp->first_seq, rp->last_seq,
		rp->verified ? ", hash chain verified" : "");
	if (rp->end && jstr(rp->end, "signature"))
		fprintf(f, ", signed");
	if (rp->bad_lines)
		fprintf(f, ", %" PRIu64 " unreadable line%s skipped",
			rp->bad_lines, rp->bad_lines == 1 ? "" : "s");
	fputc('\n', f);
	fprintf(f, "calls:    %" PRIu64 " recorded: %" PRIu64 " allowed, %"
		PRIu64 " denied, %" PRIu64 " killed, %" PRIu64
		" redirected; %" PRIu64 " allowed but failed\n",
		rp->syscalls, rp->allowed, rp->denied, rp->killed,
		rp->redirected, rp->failed);
	sb_release(&b);
}

/* ---- findings and views -------------------------------------------------- */

/* Findings of one kind shown in full; more are counted. */
#define MAX_FINDINGS 10
/* Calls shown before a death by signal. */
#define LAST_CALLS 5
/* Records shown on each side of --around SEQ. */
#define AROUND 10

/* One member of a record's args, shown: strings escaped, addresses as
 * addresses, anything else as compact JSON. */
static void sb_arg(struct sbuf *b, const json_t *args, const char *key,
		   const json_t *v)
{
	char *dump;

	if (json_is_string(v)) {
		sb_show_member(b, args, key, MAX_SHOW);
		return;
	}
	if (json_is_object(v) && (json_object_get(v, "family") ||
				  json_object_get(v, "ip"))) {
		sb_show_addr(b, v);
		return;
	}
	dump = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	if (dump)
		sb_show_max(b, dump, strlen(dump), MAX_SHOW);
	free(dump);
}

/* A call's decoded arguments: key=value, the paths as resolved. */
static void sb_call_args(struct sbuf *b, const json_t *rec)
{
	const json_t *args = json_object_get(rec, "args");
	const json_t *paths = json_object_get(rec, "paths");
	const char *key;
	json_t *v, *pe;
	size_t i;

	json_object_foreach((json_t *)args, key, v) {
		size_t kl = strlen(key);

		/* KEY_hex holds the exact bytes of KEY: shown once, as KEY. */
		if (kl > 4 && !strcmp(key + kl - 4, "_hex")) {
			char base[64];

			if (kl - 4 >= sizeof(base))
				continue;
			memcpy(base, key, kl - 4);
			base[kl - 4] = '\0';
			if (json_object_get(args, base))
				continue;
			sb_printf(b, " %s=", clean(base));
			sb_show_member(b, args, base, MAX_SHOW);
			continue;
		}
		sb_printf(b, " %s=", clean(key));
		sb_arg(b, args, key, v);
	}
	json_array_foreach(paths, i, pe) {
		sb_add(b, i ? ", " : "  [");
		sb_show_member(b, pe, "path", MAX_SHOW);
		if (jstr(pe, "access"))
			sb_printf(b, " %s", clean(jstr(pe, "access")));
		if (i + 1 == json_array_size(paths))
			sb_add(b, "]");
	}
}

/* What became of a call: "= 3", "= -1 ENOENT", "denied EACCES by rule r". */
static void sb_call_result(struct sbuf *b, const json_t *rec,
			   const json_t *res)
{
	const char *action = jstr(rec, "action");
	const char *err = jstr(res ? res : rec, "errno");
	const char *rule = jstr(rec, "rule");
	const json_t *result = json_object_get(res ? res : rec, "result");

	if (action && (!strcmp(action, "deny") || !strcmp(action, "kill"))) {
		sb_printf(b, " -> %s", !strcmp(action, "deny") ? "denied" :
			  "killed");
		if (err)
			sb_printf(b, " %s", clean(err));
		sb_printf(b, " by rule %s", rule ? clean(rule) : "(default)");
		return;
	}
	if (err)
		sb_printf(b, " = -1 %s", clean(err));
	else if (json_is_integer(result))
		sb_printf(b, " = %" PRId64,
			  (int64_t)json_integer_value(result));
	else if (result)
		sb_printf(b, " = %s", clean(json_string_value(result)));
	else if (json_is_true(json_object_get(rec, "pending")))
		sb_add(b, " = ? (no result recorded)");
	if (action && strcmp(action, "allow"))
		sb_printf(b, " (%s)", clean(action));
}

/* The members of a process record other than the common ones. */
static void sb_proc_members(struct sbuf *b, const json_t *rec,
			    const char *skip)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)rec, key, v) {
		char *dump;

		if (!strcmp(key, "seq") || !strcmp(key, "ts") ||
		    !strcmp(key, "run") || !strcmp(key, "type") ||
		    !strcmp(key, "hash") || !strcmp(key, "pid") ||
		    !strcmp(key, "tid") || (skip && !strcmp(key, skip)))
			continue;
		if (json_is_string(v)) {
			sb_printf(b, " %s=", clean(key));
			sb_show_member(b, rec, key, MAX_SHOW);
			continue;
		}
		dump = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		sb_printf(b, " %s=", clean(key));
		if (dump)
			sb_show_max(b, dump, strlen(dump), MAX_SHOW);
		free(dump);
	}
}

/* "record 12  +0.001234s  pid 5 tid 6  openat path=... = 3": one record,
 * a call with its result. */
/* What the trail adds to a call beyond its arguments: the question of a
 * DNS query it sent, the address a bind got (from its result res, or
 * the record itself). */
static void sb_call_extras(struct sbuf *b, const json_t *rec,
			   const json_t *res)
{
	const json_t *dns = json_object_get(rec, "dns");
	const json_t *bound = json_object_get(res ? res : rec, "bound");

	if (json_is_object(dns)) {
		const json_t *t = json_object_get(dns, "type");

		sb_printf(b, "  dns %s", clean(jstr(dns, "name")));
		if (json_is_string(t))
			sb_printf(b, " %s", clean(json_string_value(t)));
		else if (json_is_integer(t))
			sb_printf(b, " type %" PRId64,
				  (int64_t)json_integer_value(t));
	}
	if (json_is_object(bound)) {
		sb_add(b, "  bound ");
		sb_show_addr(b, bound);
	}
}

static void sb_record(struct sbuf *b, const struct report *rp,
		      const json_t *rec)
{
	const char *type = jstr(rec, "type");
	int64_t seq = 0, pid = -1, tid = -1;
	size_t ri;

	jint(rec, "seq", &seq);
	sb_printf(b, "record %" PRId64 "  ", seq);
	sb_rel(b, rp, parse_ts(json_object_get(rec, "ts")));
	if (jint(rec, "pid", &pid))
		sb_printf(b, "  pid %" PRId64, pid);
	if (jint(rec, "tid", &tid) && tid != pid)
		sb_printf(b, " tid %" PRId64, tid);
	if (!type || strcmp(type, "syscall")) {
		sb_printf(b, "  %s", clean(type));
		sb_proc_members(b, rec, NULL);
		return;
	}
	sb_printf(b, "  %s", clean(jstr(rec, "syscall")));
	sb_call_args(b, rec);
	if (json_is_true(json_object_get(rec, "pending")) &&
	    map_get(&rp->result_map, &seq, sizeof(seq), &ri)) {
		sb_call_result(b, rec, rp->recs[ri]);
		sb_call_extras(b, rec, rp->recs[ri]);
	} else {
		sb_call_result(b, rec, NULL);
		sb_call_extras(b, rec, NULL);
	}
}

static bool proc_failed(const struct proc *p)
{
	return p->ended && (p->signaled || p->code != 0);
}

static bool run_failed(const struct report *rp)
{
	const char *status = jstr(rp->end, "status");
	int64_t ex = 0;

	if (!rp->end)
		return true;
	jint(rp->end, "exit", &ex);
	return ex != 0 || (status && strcmp(status, "exited"));
}

/* The process the failure came from: from the command down, at each step
 * the child that failed last (the one whose failure its parent saw). */
static size_t failed_leaf(const struct report *rp, size_t root)
{
	size_t cur = root;

	for (;;) {
		size_t best = NONE;

		for (size_t c = rp->procs[cur].first_child; c != NONE;
		     c = rp->procs[c].next_sibling)
			if (proc_failed(&rp->procs[c]) &&
			    (best == NONE || rp->procs[c].exit_seq >
					     rp->procs[best].exit_seq))
				best = c;
		if (best == NONE)
			return cur;
		cur = best;
	}
}

/* "pid 5 sh -c '...' [exit 1]". */
static void sb_proc_short(struct sbuf *b, const struct proc *p)
{
	sb_printf(b, "%" PRId64 " ", p->pid);
	sb_proc_cmd(b, p, 60);
	sb_add(b, " [");
	sb_proc_status(b, p);
	sb_add(b, "]");
}

static void text_chain(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };
	size_t root, leaf, *chain, n = 0;

	if (!rp->n_lanes)
		return;
	root = rp->lanes[0];
	leaf = failed_leaf(rp, root);
	chain = xrealloc_array(NULL, rp->n_procs, sizeof(*chain));
	for (size_t i = leaf; i != NONE && n < rp->n_procs;
	     i = rp->procs[i].parent)
		chain[n++] = i;
	sb_add(&b, "  failed in: ");
	while (n--) {
		sb_proc_short(&b, &rp->procs[chain[n]]);
		if (n)
			sb_add(&b, " > ");
	}
	fprintf(f, "%s\n", sb_str(&b));
	if (rp->procs[leaf].exit_seq) {
		sb_clear(&b);
		sb_printf(&b, "  (its exit: record %" PRIu64 ", ",
			  rp->procs[leaf].exit_seq);
		sb_rel(&b, rp, rp->procs[leaf].end_us);
		fprintf(f, "%s)\n", sb_str(&b));
	}
	free(chain);
	sb_release(&b);
}

/* Where findings go: the text report (f), or --json's array (arr). */
struct fsink {
	FILE *f;
	json_t *arr;
	unsigned n;
};

static json_t *json_ms(const struct report *rp, int64_t ts);

/* How many lines of output a finding shows. */
#define OUTPUT_BEFORE 5

/* Whether line l was written before a record (seq, ts): by seq, or by
 * time for a line of a deferred record. */
static bool line_before(const struct out_line *l, uint64_t seq, int64_t ts)
{
	if (l->seq)
		return l->seq < seq;
	return ts >= 0 && l->time_us >= 0 && l->time_us <= ts;
}

/* The last OUTPUT_BEFORE lines of output (either stream) before a
 * finding: under it in the text, "output" in its --json object. */
static void output_before(struct fsink *k, const struct report *rp,
			  uint64_t seq, int64_t ts)
{
	size_t idx[OUTPUT_BEFORE], n = 0;
	struct sbuf b = { 0 };
	json_t *arr;

	for (size_t i = rp->n_out_lines; i-- > 0 && n < OUTPUT_BEFORE;)
		if (line_before(&rp->out_lines[i], seq, ts))
			idx[n++] = i;
	if (!n)
		return;
	if (k->f)
		fprintf(k->f, "     output before it:\n");
	arr = k->f ? NULL : json_array();
	while (n--) {
		const struct out_line *l = &rp->out_lines[idx[n]];

		sb_clear(&b);
		sb_show_max(&b, l->text, l->len, 200);
		if (arr) {
			/* The exact bytes where they are UTF-8. */
			json_t *text = json_stringn(l->text, l->len);

			json_array_append_new(arr, json_pack(
				"{s:s,s:o,s:o,s:o}", "stream", l->stream,
				"seq", l->seq ? json_integer((json_int_t)l->seq) :
				json_null(), "ms", json_ms(rp, l->time_us),
				"text", text ? text : json_string(sb_str(&b))));
			continue;
		}
		fprintf(k->f, "       %s| %s\n",
			!strcmp(l->stream, "stderr") ? "err" : "out", sb_str(&b));
	}
	if (arr)
		json_object_set_new(json_array_get(k->arr,
						   json_array_size(k->arr) - 1),
				    "output", arr);
	sb_release(&b);
}

/* The process instance (index in procs) of record seq, else the last
 * one of pid: "node" in --json, where a pid can be reused. */
static json_t *json_node(const struct report *rp, uint64_t seq, int64_t pid)
{
	size_t i = rec_index(rp, (int64_t)seq);
	size_t p = i != NONE ? rp->rec_proc[i] : NONE;

	if (p == NONE && pid >= 0)
		p = proc_find(rp, pid);
	return p == NONE ? json_null() : json_integer((json_int_t)p);
}

/* One finding: "  N. KIND: what" in the text, numbered as they come; an
 * object with its first record (seq), time and pid in --json. */
static void finding(struct fsink *k, const struct report *rp,
		    const char *kind, const struct sbuf *what, uint64_t seq,
		    int64_t ts, int64_t pid)
{
	k->n++;
	if (k->f) {
		fprintf(k->f, "  %u. %s: %s\n", k->n, kind, sb_str(what));
		output_before(k, rp, seq, ts);
		return;
	}
	json_array_append_new(k->arr, json_pack(
		"{s:s,s:I,s:o,s:o,s:s,s:o}", "kind", kind,
		"seq", (json_int_t)seq, "ms", json_ms(rp, ts),
		"pid", pid >= 0 ? json_integer(pid) : json_null(),
		"text", sb_str(what), "node", json_node(rp, seq, pid)));
	output_before(k, rp, seq, ts);
}

static void more_findings(struct fsink *k, uint64_t shown, uint64_t total)
{
	if (total > shown && k->f)
		fprintf(k->f, "     ... and %" PRIu64 " more\n", total - shown);
}

/* "record N, +T, pid P EXE: SYSCALL WHAT" of a denial or a would-be one,
 * into b (cleared first); returns the pid (-1 unknown). */
static int64_t sb_denial_head(struct sbuf *b, const struct report *rp,
			      const struct denial *d)
{
	int64_t pid = d->proc != NONE ? rp->procs[d->proc].pid : -1;

	sb_clear(b);
	sb_printf(b, "record %" PRIu64 ", ", d->seq);
	sb_rel(b, rp, d->ts_us);
	sb_printf(b, ", pid %" PRId64 " ", pid);
	sb_show_member(b, d->rec, "exe", MAX_SHOW);
	sb_printf(b, ": %s ", clean(jstr(d->rec, "syscall")));
	sb_denial_what(b, d->rec);
	return pid;
}

static void find_denials(struct fsink *k, const struct report *rp)
{
	struct sbuf b = { 0 };
	size_t i;

	for (i = 0; i < rp->n_denials && i < MAX_FINDINGS; i++) {
		const struct denial *d = &rp->denials[i];
		int64_t pid = sb_denial_head(&b, rp, d);

		sb_call_result(&b, d->rec, NULL);
		finding(k, rp, "denied", &b, d->seq, d->ts_us, pid);
	}
	more_findings(k, i, rp->denials_total);
	sb_release(&b);
}

/* Permissive runs: each call the policy would deny, as a finding. */
static void find_woulds(struct fsink *k, const struct report *rp)
{
	struct sbuf b = { 0 };
	size_t i;

	for (i = 0; i < rp->n_woulds && i < MAX_FINDINGS; i++) {
		const struct denial *d = &rp->woulds[i];
		int64_t pid = sb_denial_head(&b, rp, d);
		const char *rule = jstr(d->rec, "rule");

		sb_printf(&b, " (rule %s would %s; let through)",
			  clean(rule ? rule : "default"),
			  clean(jstr(d->rec, "would")));
		finding(k, rp, "would deny", &b, d->seq, d->ts_us, pid);
	}
	more_findings(k, i, rp->woulds_total);
	sb_release(&b);
}

static void find_limits(struct fsink *k, const struct report *rp)
{
	struct sbuf b = { 0 };
	size_t i;

	for (i = 0; i < rp->n_limits && i < MAX_FINDINGS; i++) {
		int64_t seq = 0, pid = -1;
		int64_t ts = parse_ts(json_object_get(rp->limits[i], "ts"));

		jint(rp->limits[i], "seq", &seq);
		jint(rp->limits[i], "pid", &pid);
		sb_clear(&b);
		sb_printf(&b, "%s, record %" PRId64 ", ",
			  clean(jstr(rp->limits[i], "limit")), seq);
		sb_rel(&b, rp, ts);
		sb_add(&b, ":");
		sb_proc_members(&b, rp->limits[i], "limit");
		finding(k, rp, "limit reached", &b, (uint64_t)seq, ts, pid);
	}
	more_findings(k, i, rp->limits_total);
	sb_release(&b);
}

/* What a record says of a signal: how it came, from whom, where it
 * faulted. */
static const char *const sig_keys[] = {
	"si_code", "fault_addr", "sender_pid", "sender_uid", "sender",
	"si_syscall", "addr",
};

/* The index in recs of the last proc.signal of process p with the
 * signal it died of, or NONE. */
static size_t signal_rec(const struct report *rp, const struct proc *p)
{
	size_t me = (size_t)(p - rp->procs);

	if (!p->ended || !p->signal)
		return NONE;
	for (size_t i = p->exit_rec + 1; i-- > 0;) {
		const json_t *rec = rp->recs[i];
		const char *type = jstr(rec, "type");

		if (type && !strcmp(type, "proc.signal") &&
		    rp->rec_proc[i] == me && jstr(rec, "signal") &&
		    !strcmp(jstr(rec, "signal"), p->signal))
			return i;
	}
	return NONE;
}

/* The proc.signal of the signal process p died of: who sent it, how,
 * where it faulted, as far as the trail says.  Returns the thread it was
 * delivered to, or -1 (no such record). */
static int64_t sb_signal_detail(struct sbuf *b, const struct report *rp,
				const struct proc *p)
{
	size_t i = signal_rec(rp, p);
	const json_t *rec;
	int64_t seq = 0, tid = -1;

	if (i == NONE)
		return -1;
	rec = rp->recs[i];
	jint(rec, "seq", &seq);
	sb_printf(b, ", delivered at record %" PRId64, seq);
	if (!jint(rec, "tid", &tid))
		tid = -1;
	for (size_t k = 0; k < ARRAY_SIZE(sig_keys); k++) {
		const json_t *v = json_object_get(rec, sig_keys[k]);

		if (json_is_integer(v))
			sb_printf(b, ", %s %" PRId64, sig_keys[k],
				  (int64_t)json_integer_value(v));
		else if (json_is_string(v))
			sb_printf(b, ", %s %s", sig_keys[k],
				  clean(json_string_value(v)));
	}
	return tid;
}

/* --json: the details of the signal process p died of, on o: from its
 * proc.signal ("delivered_seq"), else from its proc.exit. */
static void json_signal_detail(json_t *o, const struct report *rp,
			       const struct proc *p)
{
	size_t i = signal_rec(rp, p);
	const json_t *ex = p->ended ? rp->recs[p->exit_rec] : NULL;
	int64_t seq = 0;

	if (i != NONE && jint(rp->recs[i], "seq", &seq))
		json_object_set_new(o, "delivered_seq", json_integer(seq));
	for (size_t k = 0; k < ARRAY_SIZE(sig_keys); k++) {
		const json_t *v = i != NONE ?
			json_object_get(rp->recs[i], sig_keys[k]) : NULL;

		if (!v)
			v = json_object_get(ex, sig_keys[k]);
		if (v)
			json_object_set(o, sig_keys[k], (json_t *)v);
	}
}

/* The last calls of a process before it died (of thread tid when it is
 * not -1: the one the signal was delivered to): lines in the text, their
 * seqs ("last_calls") in the finding's object in --json. */
static void last_calls(struct fsink *k, const struct report *rp,
		       const struct proc *p, int64_t tid)
{
	json_t *seqs = k->f ? NULL : json_array();
	struct sbuf b = { 0 };
	size_t idx[LAST_CALLS], n = 0;

	size_t me = (size_t)(p - rp->procs);

	for (size_t i = p->exit_rec; i-- > 0 && n < LAST_CALLS;) {
		const char *type = jstr(rp->recs[i], "type");
		int64_t t = -1;

		if (type && !strcmp(type, "syscall") && rp->rec_proc[i] == me &&
		    (tid < 0 || (jint(rp->recs[i], "tid", &t) && t == tid)))
			idx[n++] = i;
	}
	if (n && k->f)
		fprintf(k->f, "     its last calls:\n");
	while (n--) {
		int64_t seq = 0;

		if (seqs) {
			jint(rp->recs[idx[n]], "seq", &seq);
			json_array_append_new(seqs, json_integer(seq));
			continue;
		}
		sb_clear(&b);
		sb_record(&b, rp, rp->recs[idx[n]]);
		fprintf(k->f, "       %s\n", sb_str(&b));
	}
	if (seqs)
		json_object_set_new(json_array_get(k->arr,
						   json_array_size(k->arr) - 1),
				    "last_calls", seqs);
	sb_release(&b);
}

static int by_exit_seq(const void *a, const void *b)
{
	const struct proc *pa = *(const struct proc *const *)a;
	const struct proc *pb = *(const struct proc *const *)b;

	return (pa->exit_seq > pb->exit_seq) - (pa->exit_seq < pb->exit_seq);
}

/* The processes that ended, in the order they did. */
static const struct proc **procs_by_exit(const struct report *rp)
{
	const struct proc **v = xrealloc_array(NULL, rp->n_procs, sizeof(*v));

	for (size_t i = 0; i < rp->n_procs; i++)
		v[i] = &rp->procs[i];
	qsort(v, rp->n_procs, sizeof(*v), by_exit_seq);
	return v;
}

/* p exited 0: whatever failed in it was handled there. */
static bool proc_went_on(const struct proc *p)
{
	return p->ended && !p->signaled && p->code == 0;
}

/* Is p on the chain from the command to the process that failed? */
static bool on_failed_chain(const struct report *rp, const struct proc *p)
{
	size_t i;

	if (!rp->n_lanes)
		return false;
	for (i = failed_leaf(rp, rp->lanes[0]); i != NONE; i = rp->procs[i].parent)
		if (&rp->procs[i] == p)
			return true;
	return false;
}

/*
 * A failure its parent handled: a process off the failed chain that
 * exited non-zero while its parent went on to exit 0 (a shell's test, a
 * shim's readlink probe).  Counted, not listed, unless --all.
 */
static bool exit_handled(const struct report *rp, const struct proc *p)
{
	return !rp->all && !p->signaled && p->parent != NONE &&
	       proc_went_on(&rp->procs[p->parent]) && !on_failed_chain(rp, p);
}

static void folded_findings(struct fsink *k, uint64_t n, const char *what)
{
	if (n && k->f)
		fprintf(k->f, "     (%" PRIu64 " %s, not listed: --all lists them)\n",
			n, what);
}

static void find_exits(struct fsink *k, const struct report *rp,
		       bool signaled)
{
	const struct proc **order = procs_by_exit(rp);
	struct sbuf b = { 0 };
	uint64_t shown = 0, total = 0, handled = 0;

	for (size_t i = 0; i < rp->n_procs; i++) {
		const struct proc *p = order[i];

		if (!proc_failed(p) || p->signaled != signaled)
			continue;
		if (exit_handled(rp, p)) {
			handled++;
			continue;
		}
		if (++total > MAX_FINDINGS)
			continue;
		shown++;
		sb_clear(&b);
		sb_printf(&b, "record %" PRIu64 ", ", p->exit_seq);
		sb_rel(&b, rp, p->end_us);
		sb_add(&b, ", pid ");
		sb_proc_short(&b, p);
		if (signaled) {
			int64_t tid = sb_signal_detail(&b, rp, p);

			finding(k, rp, "died by signal", &b, p->exit_seq,
				p->end_us, p->pid);
			if (k->arr) {
				json_t *o = json_array_get(k->arr,
					json_array_size(k->arr) - 1);

				json_object_set_new(o, "signal",
						    json_string(p->signal));
				json_signal_detail(o, rp, p);
			}
			last_calls(k, rp, p, tid);
		} else {
			finding(k, rp, "non-zero exit", &b, p->exit_seq,
				p->end_us, p->pid);
		}
	}
	more_findings(k, shown, total);
	folded_findings(k, handled, "non-zero exits whose parent went on to exit 0");
	sb_release(&b);
	free(order);
}

/* Whether a failed open was a probe: the same process opened a file of
 * that name later.  key is scratch space. */
static bool miss_probe(const struct report *rp, const struct miss *m,
		       struct sbuf *key)
{
	size_t seq;

	found_key(key, m->pid, m->path, m->path_len);
	return map_get(&rp->found_map, key->s, key->len, &seq) &&
	       (uint64_t)seq > m->seq;
}

/*
 * The failed opens (ENOENT, EACCES) of paths under the working directory
 * first, then under HOME.  Folded unless --all: the misses of a process
 * that went on to exit 0 (a probe it handled), and those in a tool's
 * hidden directory of HOME.
 */
static void find_misses(struct fsink *k, const struct report *rp)
{
	struct sbuf b = { 0 };
	uint64_t shown = 0, total = 0, handled = 0, tools = 0;
	size_t n = rp->n_misses;

	for (size_t j = 0; j < 2 * n; j++) {
		const struct miss *m = &rp->misses[j % n];
		bool in_cwd = path_under(m->path, m->path_len, rp->cwd,
					 rp->cwd_len);

		if ((j < n) != in_cwd)
			continue;	/* the working directory's pass first */
		if (miss_probe(rp, m, &b))
			continue;
		/* Its process exited 0, or its failure was handled by its
		 * parent: the miss was a probe, handled. */
		if (!rp->all && m->proc != NONE &&
		    (proc_went_on(&rp->procs[m->proc]) ||
		     (proc_failed(&rp->procs[m->proc]) &&
		      exit_handled(rp, &rp->procs[m->proc])))) {
			handled++;
			continue;
		}
		if (!rp->all && path_home_tool(rp, m->path, m->path_len)) {
			tools++;
			continue;
		}
		if (++total > MAX_FINDINGS)
			continue;
		shown++;
		sb_clear(&b);
		sb_printf(&b, "record %" PRIu64 ", ", m->seq);
		sb_rel(&b, rp, m->ts_us);
		sb_printf(&b, ", pid %" PRId64 ": %s ", m->pid,
			  clean(m->syscall));
		sb_show_max(&b, m->path, m->path_len, MAX_SHOW);
		sb_printf(&b, " = -1 %s", clean(m->err));
		finding(k, rp, !strcmp(m->err, "ENOENT") ? "missing file" :
			"permission denied", &b, m->seq, m->ts_us, m->pid);
	}
	more_findings(k, shown, total + rp->misses_total - rp->n_misses);
	folded_findings(k, handled, "failed opens handled by their process or its parent");
	folded_findings(k, tools, "failed opens in tools' hidden directories of HOME");
	sb_release(&b);
}

/* A process that exited 0 after one of its calls was denied: the failure
 * was swallowed and surfaces later, elsewhere. */
static void find_swallowed(struct fsink *k, const struct report *rp)
{
	struct sbuf b = { 0 };

	for (size_t i = 0; i < rp->n_procs; i++) {
		const struct proc *p = &rp->procs[i];

		if (!p->ended || p->signaled || p->code || !p->denials)
			continue;
		sb_clear(&b);
		sb_add(&b, "pid ");
		sb_proc_short(&b, p);
		sb_printf(&b, ": denied at record %" PRIu64 " (",
			  p->denial_seq);
		sb_rel(&b, rp, p->denial_us);
		sb_printf(&b, "), exited 0 at record %" PRIu64 " (",
			  p->exit_seq);
		sb_rel(&b, rp, p->end_us);
		sb_add(&b, ")");
		finding(k, rp, "exited 0 after a denial", &b, p->denial_seq,
			p->denial_us, p->pid);
	}
	sb_release(&b);
}

/* A file the run wrote that ended empty: its final record, and the call
 * that first wrote it (its process). */
static void find_empties(struct fsink *k, const struct report *rp)
{
	struct sbuf b = { 0 };
	size_t i;

	uint64_t shown = 0;

	for (i = 0; i < rp->n_finals && shown < MAX_FINDINGS; i++) {
		const json_t *e = rp->finals[i], *w;
		int64_t seq = 0, first = 0, pid = -1, size = -1;
		int64_t ts = parse_ts(json_object_get(e, "ts"));

		if (!jint(e, "size", &size) || size != 0)
			continue;
		shown++;
		jint(e, "seq", &seq);
		jint(e, "first_seq", &first);
		w = rec_of_seq(rp, first);
		if (w)
			jint(w, "pid", &pid);
		sb_clear(&b);
		sb_printf(&b, "record %" PRId64 ", ", seq);
		sb_rel(&b, rp, ts);
		sb_printf(&b, ": %s (0 bytes), first written at record %" PRId64,
			  clean(jstr(e, "path")), first);
		if (w) {
			sb_printf(&b, ", pid %" PRId64 " ", pid);
			sb_show_member(&b, w, "exe", MAX_SHOW);
		}
		finding(k, rp, "file written that ended empty", &b,
			(uint64_t)seq, ts, pid);
	}
	more_findings(k, shown, rp->empties_total);
	sb_release(&b);
}

/* The anomalies, ranked. */
static void find_all(struct fsink *k, const struct report *rp)
{
	find_denials(k, rp);
	find_woulds(k, rp);
	find_limits(k, rp);
	find_exits(k, rp, true);
	find_exits(k, rp, false);
	find_misses(k, rp);
	find_swallowed(k, rp);
	find_empties(k, rp);
}

/* --json's "findings": whether the run failed, the chain of pids from the
 * command to the process that failed, and the anomalies as objects
 * (at most MAX_FINDINGS of each kind). */
static json_t *json_findings(const struct report *rp)
{
	struct fsink k = { .arr = json_array() };
	bool failed = run_failed(rp);
	json_t *chain = json_array(), *nodes = json_array();

	if (failed && rp->n_lanes)
		for (size_t i = failed_leaf(rp, rp->lanes[0]); i != NONE;
		     i = rp->procs[i].parent) {
			json_array_insert_new(chain, 0,
					      json_integer(rp->procs[i].pid));
			json_array_insert_new(nodes, 0,
					      json_integer((json_int_t)i));
		}
	find_all(&k, rp);
	return json_pack("{s:b,s:o,s:o,s:o}", "failed", failed, "chain", chain,
			 "anomalies", k.arr, "chain_nodes", nodes);
}

/* What went wrong, first: the failing chain and the anomalies, ranked. */
static void text_findings(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };
	bool failed = run_failed(rp);
	struct fsink k = { .f = f };

	sb_run_result(&b, rp);
	if (!failed && !rp->denials_total && !rp->woulds_total &&
	    !rp->empties_total) {
		fprintf(f, "Findings: the run succeeded (%s) with no denials.\n\n",
			sb_str(&b));
		sb_release(&b);
		return;
	}
	fprintf(f, "Findings: the run %s (%s)\n", failed ? "failed" :
		"succeeded", sb_str(&b));
	if (failed)
		text_chain(f, rp);
	find_all(&k, rp);
	if (!k.n)
		fprintf(f, "  (no denial, limit, signal, failed exit or missing file recorded)\n");
	fputc('\n', f);
	sb_release(&b);
}

static void output_text(FILE *f, const struct report *rp)
{
	if (!rp->verified)
		fprintf(f, "WARNING: %s does not verify: %s\n",
			clean(rp->trail), clean(rp->why));
	text_findings(f, rp);
	text_header(f, rp);
	text_tree(f, rp);
	text_execs(f, rp);
	text_files(f, rp);
	text_finals(f, rp);
	text_net(f, rp);
	text_denials(f, rp);
	text_limits(f, rp);
}

/* What --pid, --around and --denied ask for. */
struct views {
	bool pid_set, around_set, denied;
	int64_t pid;
	uint64_t around;
};

static void text_view_line(FILE *f, const struct report *rp,
			   const json_t *rec, const char *mark,
			   struct sbuf *b)
{
	sb_clear(b);
	sb_record(b, rp, rec);
	fprintf(f, "%s%s\n", mark, sb_str(b));
}

/* A call's result is shown on its call's line. */
static bool rec_shown(const json_t *rec)
{
	const char *type = jstr(rec, "type");

	return !type || strcmp(type, "syscall.result");
}

/* The records of process instance idx (of pid want), or with the thread
 * view of tid want, in trail order; returns how many. */
static uint64_t view_records(FILE *f, const struct report *rp, size_t idx,
			     bool thread, int64_t want, struct sbuf *b)
{
	uint64_t n = 0;

	for (size_t i = 0; i < rp->n_recs; i++) {
		int64_t v = -1;

		if (!rec_shown(rp->recs[i]) ||
		    !jint(rp->recs[i], thread ? "tid" : "pid", &v) ||
		    v != want || (!thread && rp->rec_proc[i] != idx))
			continue;
		text_view_line(f, rp, rp->recs[i], "  ", b);
		n++;
	}
	return n;
}

/* --pid N: a process (all its threads) or one thread, in trail order.  A
 * pid the kernel reused within the run is shown as its processes, one
 * after the other, each with its own records. */
static void text_view_pid(FILE *f, const struct report *rp, int64_t want)
{
	struct sbuf b = { 0 };
	size_t idx = proc_find(rp, want);
	bool thread = idx == NONE || rp->procs[idx].pid != want;
	unsigned reused = 0, k = 0;
	uint64_t n = 0;

	for (size_t i = 0; !thread && i < rp->n_procs; i++)
		reused += rp->procs[i].pid == want;
	if (idx == NONE) {
		fprintf(f, "No process or thread %" PRId64 " in this run\n",
			want);
	} else if (thread) {
		sb_printf(&b, "Thread %" PRId64 " of process ", want);
		sb_proc_short(&b, &rp->procs[idx]);
		fprintf(f, "%s\n", sb_str(&b));
		n = view_records(f, rp, idx, true, want, &b);
	}
	for (size_t i = 0; !thread && i < rp->n_procs; i++) {
		if (rp->procs[i].pid != want)
			continue;
		sb_clear(&b);
		sb_add(&b, "Process ");
		sb_proc_short(&b, &rp->procs[i]);
		if (reused > 1)
			sb_printf(&b, " (pid reused: process %u of %u "
				  "with this pid)", ++k, reused);
		fprintf(f, "%s\n", sb_str(&b));
		n += view_records(f, rp, i, false, want, &b);
	}
	fprintf(f, "(%" PRIu64 " record%s, in trail order)\n", n,
		n == 1 ? "" : "s");
	sb_release(&b);
}

/* --around SEQ: AROUND records either side of SEQ, which is marked. */
static void text_view_around(FILE *f, const struct report *rp, uint64_t seq)
{
	struct sbuf b = { 0 };
	uint64_t lo = seq > AROUND ? seq - AROUND : 0, hi = seq + AROUND;
	bool found = false;

	fprintf(f, "Records %" PRIu64 "-%" PRIu64 " around record %" PRIu64
		" (in trail order)\n", lo ? lo : 1, hi, seq);
	for (size_t i = 0; i < rp->n_recs; i++) {
		int64_t s = 0;

		if (!rec_shown(rp->recs[i]) || !jint(rp->recs[i], "seq", &s) ||
		    (uint64_t)s < lo || (uint64_t)s > hi)
			continue;
		found |= (uint64_t)s == seq;
		text_view_line(f, rp, rp->recs[i],
			       (uint64_t)s == seq ? "> " : "  ", &b);
	}
	if (!found)
		fprintf(f, "(record %" PRIu64 " is not in this run)\n", seq);
	sb_release(&b);
}

/* --denied: the denials alone, each with its stack. */
static void text_view_denied(FILE *f, const struct report *rp)
{
	struct sbuf b = { 0 };

	fprintf(f, "Denials (%" PRIu64 ", in trail order)\n",
		rp->denials_total);
	for (size_t i = 0; i < rp->n_denials; i++) {
		const json_t *fr;
		size_t k;

		text_view_line(f, rp, rp->denials[i].rec, "  ", &b);
		json_array_foreach(json_object_get(rp->denials[i].rec, "stack"),
				   k, fr) {
			sb_clear(&b);
			sb_frame(&b, fr);
			fprintf(f, "      #%zu %s\n", k, sb_str(&b));
		}
	}
	if (rp->denials_total > rp->n_denials)
		fprintf(f, "  ... and %" PRIu64 " more (see the trail)\n",
			rp->denials_total - rp->n_denials);
	sb_release(&b);
}

static bool views_wanted(const struct views *vw)
{
	return vw->pid_set || vw->around_set || vw->denied;
}

static void output_views(FILE *f, const struct report *rp,
			 const struct views *vw)
{
	if (!rp->verified)
		fprintf(f, "WARNING: %s does not verify: %s\n",
			clean(rp->trail), clean(rp->why));
	if (vw->pid_set)
		text_view_pid(f, rp, vw->pid);
	if (vw->around_set)
		text_view_around(f, rp, vw->around);
	if (vw->denied)
		text_view_denied(f, rp);
}

/* ---- JSON ------------------------------------------------------------- */

/* Exact bytes as a JSON string, with "KEY_hex" when they are not UTF-8. */
static void json_put_bytes(json_t *obj, const char *key, const char *b,
			   size_t n)
{
	json_t *s = memchr(b, '\0', n) ? NULL : json_stringn(b, n);

	if (s) {
		json_object_set_new(obj, key, s);
	} else {
		struct sbuf shown = { 0 }, hkey = { 0 }, hex = { 0 };

		sb_show(&shown, b, n);
		json_object_set_new(obj, key, json_string(sb_str(&shown)));
		for (size_t i = 0; i < n; i++)
			sb_printf(&hex, "%02x", (unsigned char)b[i]);
		sb_printf(&hkey, "%s_hex", key);
		json_object_set_new(obj, sb_str(&hkey),
				    json_string(sb_str(&hex)));
		sb_release(&shown);
		sb_release(&hkey);
		sb_release(&hex);
	}
}

/* An index (a process instance) as JSON: null for NONE. */
static json_t *json_size(size_t i)
{
	return i == NONE ? json_null() : json_integer((json_int_t)i);
}

static json_t *json_ms(const struct report *rp, int64_t ts)
{
	if (ts < 0 || rp->t0_us <= 0)
		return json_null();
	return json_real((double)(ts - rp->t0_us) / 1000.0);
}

static json_t *json_run(const struct report *rp)
{
	json_t *o = json_object();
	const char *keys[] = { "host", "cwd", "policy", "policy_hash",
			       "audit_level", "version", "kernel" };

	json_object_set_new(o, "id", json_string(rp->run_id));
	json_object_set_new(o, "index", json_integer(rp->run_index));
	if (rp->start) {
		json_object_set(o, "start", json_object_get(rp->start, "ts"));
		json_object_set(o, "command",
				json_object_get(rp->start, "command"));
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
			json_t *v = json_object_get(rp->start, keys[i]);

			if (v)
				json_object_set(o, keys[i], v);
		}
	}
	json_object_set_new(o, "duration_ms",
			    json_integer((rp->t1_us - rp->t0_us) / 1000));
	if (rp->end) {
		const char *keys_end[] = { "exit", "status", "signal", "error",
					   "counts" };

		json_object_set(o, "end", json_object_get(rp->end, "ts"));
		for (size_t i = 0; i < ARRAY_SIZE(keys_end); i++) {
			json_t *v = json_object_get(rp->end, keys_end[i]);

			if (v)
				json_object_set(o, keys_end[i], v);
		}
		json_object_set_new(o, "signed", json_boolean(
				    json_object_get(rp->end, "signature")));
	}
	json_object_set_new(o, "complete", json_boolean(rp->end != NULL));
	return o;
}

static json_t *json_procs(const struct report *rp)
{
	json_t *arr = json_array();

	for (size_t l = 0; l < rp->n_lanes; l++) {
		const struct proc *p = &rp->procs[rp->lanes[l]];
		json_t *o = json_object();
		json_t *kids = json_array(), *kid_nodes = json_array();

		json_object_set_new(o, "pid", json_integer(p->pid));
		json_object_set_new(o, "node",
				    json_integer((json_int_t)rp->lanes[l]));
		json_object_set_new(o, "parent_node", p->parent != NONE ?
				    json_integer((json_int_t)p->parent) :
				    json_null());
		json_object_set_new(o, "ppid", p->ppid >= 0 ?
				    json_integer(p->ppid) : json_null());
		json_object_set_new(o, "parent", p->parent != NONE ?
				    json_integer(rp->procs[p->parent].pid) :
				    json_null());
		json_object_set_new(o, "kind", json_string(p->kind));
		json_object_set_new(o, "execed", json_boolean(p->execed));
		if (p->path)
			json_put_bytes(o, "path", p->path, p->path_len);
		json_object_set(o, "argv", p->argv ? p->argv : json_null());
		json_object_set_new(o, "start_ms", json_ms(rp, p->start_us));
		json_object_set_new(o, "end_ms", p->ended ?
				    json_ms(rp, p->end_us) : json_null());
		json_object_set_new(o, "duration_ms", p->duration_ms >= 0 ?
				    json_integer(p->duration_ms) : json_null());
		if (!p->ended)
			json_object_set_new(o, "exit", json_null());
		else if (p->signaled) {
			json_t *ex = json_pack("{s:s,s:b}", "signal", p->signal,
					       "core", p->core);

			json_signal_detail(ex, rp, p);
			json_object_set_new(o, "exit", ex);
		}
		else
			json_object_set_new(o, "exit", json_pack("{s:I}",
					    "code", (json_int_t)p->code));
		json_object_set_new(o, "threads", json_integer(p->threads));
		json_object_set_new(o, "signals", json_integer(p->signals));
		json_object_set_new(o, "execs", json_integer(p->execs));
		json_object_set_new(o, "denials", json_integer(p->denials));
		for (size_t c = p->first_child; c != NONE;
		     c = rp->procs[c].next_sibling) {
			json_array_append_new(kids,
					      json_integer(rp->procs[c].pid));
			json_array_append_new(kid_nodes,
					      json_integer((json_int_t)c));
		}
		json_object_set_new(o, "children", kids);
		json_object_set_new(o, "children_nodes", kid_nodes);
		json_array_append_new(arr, o);
	}
	return arr;
}

/* What a file entry adds: the path as passed, what a relative one was
 * relative to, and for a file written its size at the end. */
static void json_file_extras(json_t *e, const struct file_ent *fe)
{
	if (fe->path_arg)
		json_put_bytes(e, "path_arg", fe->path_arg, fe->path_arg_len);
	if (fe->relative_to)
		json_put_bytes(e, "relative_to", fe->relative_to,
			       fe->relative_to_len);
	if (fe->final) {
		json_t *v = json_object_get(fe->final, "size");

		if (v)
			json_object_set(e, "final_size", v);
		else
			json_object_set(e, "final_error",
					json_object_get(fe->final, "error"));
		json_object_set(e, "final_seq",
				json_object_get(fe->final, "seq"));
	}
}

static json_t *json_files(const struct report *rp)
{
	json_t *o = json_object();

	for (size_t i = 0; i < rp->n_files; i++) {
		const struct file_ent *fe = &rp->files[i];
		json_t *arr = json_object_get(o, fe->access);
		json_t *e = json_object();

		if (!arr) {
			arr = json_array();
			json_object_set_new(o, fe->access, arr);
		}
		json_put_bytes(e, "path", fe->path, fe->path_len);
		json_object_set_new(e, "outcome", json_string(fe->outcome));
		json_object_set_new(e, "count",
				    json_integer((json_int_t)fe->count));
		json_object_set_new(e, "rule",
				    fe->rule ? json_string(fe->rule) : json_null());
		json_object_set_new(e, "pid", json_integer(fe->pid));
		json_object_set_new(e, "first_seq",
				    json_integer((json_int_t)fe->first_seq));
		json_object_set_new(e, "first_ms", json_ms(rp, fe->first_us));
		json_object_set_new(e, "node", json_size(fe->node));
		json_file_extras(e, fe);
		json_array_append_new(arr, e);
	}
	return o;
}

static json_t *json_execs(const struct report *rp)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < rp->n_execs; i++) {
		const struct exec_ev *e = &rp->execs[i];
		json_t *o = json_object();

		json_object_set_new(o, "seq", json_integer((json_int_t)e->seq));
		json_object_set_new(o, "ms", json_ms(rp, e->ts_us));
		json_object_set_new(o, "pid",
				    json_integer(rp->procs[e->proc].pid));
		json_put_bytes(o, "path", e->path, e->path_len);
		json_object_set(o, "argv", e->argv ? e->argv : json_null());
		json_object_set_new(o, "node", json_size(e->proc));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* What a network entry adds: the DNS names asked ("dns": [{name,
 * type}]), the addresses bound ("bound") and accept's peers ("peers"),
 * each when there is one. */
static void json_net_extras(json_t *o, const struct net_ent *n)
{
	if (json_array_size(n->dns))
		json_object_set(o, "dns", n->dns);
	if (json_array_size(n->bound))
		json_object_set(o, "bound", n->bound);
	if (json_array_size(n->peers))
		json_object_set(o, "peers", n->peers);
}

static json_t *json_net(const struct report *rp)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < rp->n_nets; i++) {
		const struct net_ent *n = &rp->nets[i];

		json_array_append_new(arr, json_pack(
			"{s:s,s:O?,s:s,s:s,s:s?,s:I,s:s,s:I,s:I,s:o}",
			"syscall", n->syscall, "addr", n->addr_json,
			"shown", n->addr, "outcome", n->outcome,
			"rule", n->rule, "pid", (json_int_t)n->pid,
			"exe", n->exe, "count", (json_int_t)n->count,
			"first_seq", (json_int_t)n->first_seq,
			"first_ms", json_ms(rp, n->first_us)));
		json_object_set_new(json_array_get(arr, i), "node",
				    json_size(n->node));
		json_net_extras(json_array_get(arr, i), n);
	}
	return arr;
}

/* The files the run wrote, size at the end (file.final), in the order
 * first written: each with the pid, seq and time of its first write. */
static json_t *json_written(const struct report *rp)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < rp->n_finals; i++) {
		const json_t *e = rp->finals[i], *w;
		int64_t first = 0, pid = -1;
		json_t *o = json_object();
		char *path = NULL;
		size_t len = 0;

		if (audit_json_bytes(e, "path", &path, &len) == 0)
			json_put_bytes(o, "path", path, len);
		free(path);
		json_object_set(o, "size", json_object_get(e, "size") ?
				json_object_get(e, "size") : json_null());
		if (json_object_get(e, "error"))
			json_object_set(o, "error",
					json_object_get(e, "error"));
		json_object_set(o, "seq", json_object_get(e, "seq"));
		jint(e, "first_seq", &first);
		w = rec_of_seq(rp, first);
		if (w)
			jint(w, "pid", &pid);
		json_object_set_new(o, "pid", pid >= 0 ? json_integer(pid) :
				    json_null());
		json_object_set_new(o, "first_seq", json_integer(first));
		json_object_set_new(o, "first_ms", w ? json_ms(rp, parse_ts(
				    json_object_get(w, "ts"))) : json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

/* A record without its common members (kept: seq and ts). */
static json_t *json_rec_body(const json_t *rec)
{
	json_t *o = json_object();
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)rec, key, v) {
		if (!strcmp(key, "run") || !strcmp(key, "type") ||
		    !strcmp(key, "hash"))
			continue;
		json_object_set(o, key, v);
	}
	return o;
}

static json_t *json_summary(const struct report *rp)
{
	json_t *o = json_object();
	json_t *counts, *arr;

	json_object_set_new(o, "trail", json_string(rp->trail));
	json_object_set_new(o, "verified", json_boolean(rp->verified));
	json_object_set_new(o, "verify_error", rp->verified ? json_null() :
			    json_string(rp->why));
	json_object_set_new(o, "runs_in_trail", json_integer(rp->runs));
	json_object_set_new(o, "run", json_run(rp));
	counts = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
		"records", (json_int_t)rp->records,
		"bad_lines", (json_int_t)rp->bad_lines,
		"syscalls", (json_int_t)rp->syscalls,
		"allowed", (json_int_t)rp->allowed,
		"denied", (json_int_t)rp->denied,
		"killed", (json_int_t)rp->killed,
		"redirected", (json_int_t)rp->redirected,
		"failed", (json_int_t)rp->failed,
		"processes", (json_int_t)rp->n_procs,
		"threads", (json_int_t)rp->threads,
		"execs", (json_int_t)rp->n_execs,
		"files", (json_int_t)rp->n_files,
		"network", (json_int_t)rp->n_nets,
		"denials", (json_int_t)rp->denials_total,
		"limits", (json_int_t)rp->limits_total);
	json_object_set_new(o, "counts", counts);
	json_object_set_new(o, "findings", json_findings(rp));
	json_object_set_new(o, "processes", json_procs(rp));
	json_object_set_new(o, "files", json_files(rp));
	json_object_set_new(o, "execs", json_execs(rp));
	json_object_set_new(o, "network", json_net(rp));
	json_object_set_new(o, "written", json_written(rp));
	json_object_set_new(o, "written_omitted", json_integer(
			    (json_int_t)(rp->finals_total - rp->n_finals)));
	arr = json_array();
	for (size_t i = 0; i < rp->n_denials; i++)
		json_array_append_new(arr, json_rec_body(rp->denials[i].rec));
	json_object_set_new(o, "denials", arr);
	json_object_set_new(o, "denials_omitted", json_integer(
			    (json_int_t)(rp->denials_total - rp->n_denials)));
	arr = json_array();
	for (size_t i = 0; i < rp->n_limits; i++)
		json_array_append_new(arr, json_rec_body(rp->limits[i]));
	json_object_set_new(o, "limits", arr);
	return o;
}

static int output_json(FILE *f, const struct report *rp)
{
	json_t *o = json_summary(rp);
	int r;

	if (!o)
		return -ENOMEM;
	r = json_dumpf(o, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
		       JSON_REAL_PRECISION(12));
	json_decref(o);
	if (r < 0)
		return -EIO;
	fputc('\n', f);
	return 0;
}

/* ---- HTML ------------------------------------------------------------- */

/*
 * The page (tools/report-html.c) draws what the report computed, from one
 * JSON object embedded in it: the findings as --json has them, the
 * processes, every call as a row, the tables.  Every string in it is
 * already shown (sb_show: no controls, no bidi, valid UTF-8); the page
 * puts them in as text, never as markup.
 */

/* Calls embedded in the page; the others are counted, and the page says
 * how many it left out. */
#define MAX_HTML_CALLS 20000

/* A string for the page; sb_show made it valid UTF-8. */
static json_t *html_str(const char *s)
{
	json_t *v = json_string(s);

	return v ? v : json_string("?");
}

/* The buffer as a string for the page, without its leading blanks. */
static json_t *html_sb(struct sbuf *b)
{
	const char *s = sb_str(b);
	json_t *v;

	while (*s == ' ')
		s++;
	v = html_str(s);
	sb_clear(b);
	return v;
}

static bool html_name_in(const char *name, const char *const *names,
			 size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* What a record is about, for the page's filter by kind. */
static const char *html_kind(const json_t *rec)
{
	static const char *const net[] = {
		"socket", "socketpair", "connect", "bind", "listen", "accept",
		"accept4", "sendto", "sendmsg", "sendmmsg", "recvfrom",
		"recvmsg", "recvmmsg", "getsockopt", "setsockopt", "shutdown",
		"getsockname", "getpeername",
	};
	static const char *const sig[] = {
		"kill", "tkill", "tgkill", "rt_sigqueueinfo",
		"rt_tgsigqueueinfo", "pidfd_send_signal",
	};
	const char *type = jstr(rec, "type");
	const char *name = jstr(rec, "syscall");
	const json_t *args = json_object_get(rec, "args");

	if (!type || strcmp(type, "syscall")) {
		if (type && !strcmp(type, "proc.signal"))
			return "signal";
		if (type && !strcmp(type, "proc.exec"))
			return "exec";
		if (type && !strncmp(type, "proc.", 5))
			return "process";
		return "other";
	}
	if (!name)
		return "other";
	if (!strcmp(name, "execve") || !strcmp(name, "execveat"))
		return "exec";
	if (json_object_get(args, "addr") ||
	    html_name_in(name, net, ARRAY_SIZE(net)))
		return "network";
	if (html_name_in(name, sig, ARRAY_SIZE(sig)))
		return "signal";
	if (json_array_size(json_object_get(rec, "paths")) ||
	    json_object_get(args, "path") || json_object_get(args, "oldpath") ||
	    json_object_get(args, "newpath"))
		return "file";
	return "other";
}

/* A pending call with its result merged in, as on_result sees it; or the
 * record itself.  A new reference. */
static json_t *html_merged(const struct report *rp, json_t *rec)
{
	static const char *const keys[] = { "result", "errno", "bound" };
	int64_t seq = 0;
	size_t ri;
	json_t *m;

	if (!json_is_true(json_object_get(rec, "pending")) ||
	    !jint(rec, "seq", &seq) ||
	    !map_get(&rp->result_map, &seq, sizeof(seq), &ri))
		return json_incref(rec);
	m = json_copy(rec);
	if (!m) {
		fprintf(stderr, "sysgate report: out of memory\n");
		exit(EXIT_TOOL_FAILURE);
	}
	json_object_del(m, "pending");
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		json_t *v = json_object_get(rp->recs[ri], keys[i]);

		if (v)
			json_object_set(m, keys[i], v);
	}
	return m;
}

/* What became of a record, for the page's filter by outcome. */
static const char *html_outcome(const json_t *call)
{
	const char *type = jstr(call, "type");
	const char *action = jstr(call, "action");

	if (!type || strcmp(type, "syscall"))
		return "event";
	if (action && !strcmp(action, "deny"))
		return "denied";
	if (action && !strcmp(action, "kill"))
		return "killed";
	if (action && !strcmp(action, "rewrite"))
		return "redirected";
	if (json_object_get(call, "errno"))
		return "error";
	if (json_is_true(json_object_get(call, "pending")))
		return "unknown";
	if (json_is_true(json_object_get(call, "would_deny")))
		return "would-deny";
	return "allowed";
}

/* Whether one path of a call is folded: file_folded's rule, the one the
 * text report folds its files by. */
static bool html_path_folded(const struct report *rp, const json_t *obj,
			     const char *key, const char *access,
			     const char *outcome, bool *any)
{
	struct file_ent fe = { .access = (char *)access,
			       .outcome = (char *)outcome };
	bool folded;

	if (audit_json_bytes(obj, key, &fe.path, &fe.path_len) < 0)
		return true;
	*any = true;
	folded = file_folded(rp, &fe);
	free(fe.path);
	return folded;
}

/* A call is noise when it has paths and every one of them is folded. */
static bool html_call_folded(const struct report *rp, const json_t *call)
{
	static const char *const raw_args[] = { "path", "oldpath", "newpath" };
	const char *action = jstr(call, "action");
	const char *name = jstr(call, "syscall");
	const json_t *paths = json_object_get(call, "paths");
	const json_t *args = json_object_get(call, "args");
	struct sbuf out = { 0 };
	bool bad, any = false, folded = true;
	size_t i;
	json_t *pe;

	call_outcome(call, action ? action : "?", &out, &bad);
	json_array_foreach(paths, i, pe) {
		const char *acc = jstr(pe, "access");

		folded &= html_path_folded(rp, pe, "path", acc ? acc : "?",
					   sb_str(&out), &any);
	}
	for (i = 0; !json_array_size(paths) && i < ARRAY_SIZE(raw_args); i++)
		folded &= html_path_folded(rp, args, raw_args[i],
					   guess_access(name ? name : "?",
							raw_args[i],
							jstr(args, "flags")),
					   sb_str(&out), &any);
	sb_release(&out);
	return any && folded;
}

/* The process instance of record i, for the page: null for none. */
static json_t *html_node(const struct report *rp, size_t i)
{
	return rp->rec_proc[i] == NONE ? json_null() :
	       json_integer((json_int_t)rp->rec_proc[i]);
}

/* One row of the call list: [seq, ms, pid, tid, call, arguments, result,
 * kind, outcome, folded, node], decoded as --pid shows them (with the
 * DNS name a send asked and the address a bind got); node is the process
 * instance (a reused pid is two). */
static json_t *html_call_row(const struct report *rp, size_t i,
			     bool *folded)
{
	json_t *rec = rp->recs[i];
	const char *type = jstr(rec, "type");
	json_t *call = html_merged(rp, rec);
	struct sbuf b = { 0 };
	int64_t seq = 0, pid = -1, tid = -1;
	size_t ri;
	json_t *row = json_array();

	jint(rec, "seq", &seq);
	jint(rec, "pid", &pid);
	if (!jint(rec, "tid", &tid))
		tid = pid;
	*folded = type && !strcmp(type, "syscall") &&
		  html_call_folded(rp, call);
	json_array_append_new(row, json_integer(seq));
	json_array_append_new(row, json_ms(rp, parse_ts(
				json_object_get(rec, "ts"))));
	json_array_append_new(row, json_integer(pid));
	json_array_append_new(row, json_integer(tid));
	if (type && !strcmp(type, "syscall")) {
		json_array_append_new(row, html_str(clean(jstr(rec,
							       "syscall"))));
		sb_call_args(&b, rec);
		json_array_append_new(row, html_sb(&b));
		if (json_is_true(json_object_get(rec, "pending")) &&
		    map_get(&rp->result_map, &seq, sizeof(seq), &ri)) {
			sb_call_result(&b, rec, rp->recs[ri]);
			sb_call_extras(&b, rec, rp->recs[ri]);
		} else {
			sb_call_result(&b, rec, NULL);
			sb_call_extras(&b, rec, NULL);
		}
		if (json_is_true(json_object_get(rec, "would_deny")))
			sb_printf(&b, " (rule %s would %s)",
				  clean(jstr(rec, "rule") ? jstr(rec, "rule") :
					"default"), clean(jstr(rec, "would")));
	} else {
		json_array_append_new(row, html_str(clean(type)));
		sb_proc_members(&b, rec, NULL);
		json_array_append_new(row, html_sb(&b));
	}
	json_array_append_new(row, html_sb(&b));
	json_array_append_new(row, json_string(html_kind(rec)));
	json_array_append_new(row, json_string(html_outcome(call)));
	json_array_append_new(row, json_boolean(*folded));
	json_array_append_new(row, html_node(rp, i));
	json_decref(call);
	sb_release(&b);
	return row;
}

/*
 * The calls of the run, in trail order (a result on its call's row).  At
 * most MAX_HTML_CALLS: the ones the text report does not fold first, then
 * folded ones while there is room; "calls_total" says how many there were.
 */
static void html_calls(const struct report *rp, json_t *data)
{
	json_t *rows = json_array();
	uint64_t total = 0, folded_total = 0, kept = 0, room_folded;
	bool *noise = xrealloc_array(NULL, rp->n_recs, sizeof(*noise));
	json_t **row = xrealloc_array(NULL, rp->n_recs, sizeof(*row));

	for (size_t i = 0; i < rp->n_recs; i++) {
		const char *type = jstr(rp->recs[i], "type");

		row[i] = NULL;
		if (!rec_shown(rp->recs[i]) || (type &&
		    (!strcmp(type, "run.start") || !strcmp(type, "run.end"))))
			continue;
		total++;
		row[i] = html_call_row(rp, i, &noise[i]);
		folded_total += noise[i];
		if (!noise[i] && kept < MAX_HTML_CALLS)
			kept++;
	}
	room_folded = MAX_HTML_CALLS - kept;
	kept = 0;
	for (size_t i = 0; i < rp->n_recs; i++) {
		if (!row[i])
			continue;
		if (kept < MAX_HTML_CALLS && (!noise[i] || room_folded)) {
			room_folded -= noise[i];
			kept++;
			json_array_append(rows, row[i]);
		}
		json_decref(row[i]);
	}
	free(row);
	free(noise);
	json_object_set_new(data, "calls", rows);
	json_object_set_new(data, "calls_total", json_integer(total));
	json_object_set_new(data, "calls_folded", json_integer(folded_total));
	json_object_set_new(data, "calls_cap", json_integer(MAX_HTML_CALLS));
}

/* The processes as --json has them, with their line shown. */
static json_t *html_procs(const struct report *rp)
{
	json_t *arr = json_procs(rp);
	struct sbuf b = { 0 };

	for (size_t l = 0; l < rp->n_lanes; l++) {
		const struct proc *p = &rp->procs[rp->lanes[l]];
		json_t *o = json_array_get(arr, l);

		sb_proc_cmd(&b, p, MAX_SHOW);
		json_object_set_new(o, "label", html_sb(&b));
		if (!p->execed && p->parent != NONE)
			json_object_set_new(o, "forked", json_true());
		sb_duration(&b, proc_dur_us(rp, p));
		sb_add(&b, ", ");
		sb_proc_status(&b, p);
		if (p->threads)
			sb_printf(&b, ", +%u thread%s", p->threads,
				  p->threads == 1 ? "" : "s");
		json_object_set_new(o, "status", html_sb(&b));
		json_object_set_new(o, "failed", json_boolean(proc_failed(p)));
		json_object_set_new(o, "depth", json_integer(p->depth));
	}
	sb_release(&b);
	return arr;
}

/* ["key", "value"] of the summary table. */
static void html_kv(json_t *arr, const char *key, struct sbuf *b)
{
	json_t *pair = json_array();

	json_array_append_new(pair, json_string(key));
	json_array_append_new(pair, html_sb(b));
	json_array_append_new(arr, pair);
}

static json_t *html_head(const struct report *rp)
{
	const json_t *s = rp->start;
	json_t *arr = json_array();
	struct sbuf b = { 0 };

	sb_show(&b, rp->trail, strlen(rp->trail));
	sb_add(&b, rp->verified ? "  (hash chain verified" :
	       "  (DOES NOT VERIFY");
	sb_add(&b, rp->end && jstr(rp->end, "signature") ? ", signed)" : ")");
	html_kv(arr, "trail", &b);
	sb_show(&b, rp->run_id, strlen(rp->run_id));
	if (rp->runs > 1)
		sb_printf(&b, " (run %u of %u in this trail)", rp->run_index,
			  rp->runs);
	html_kv(arr, "run", &b);
	sb_show_argv(&b, json_object_get(s, "command"), 4 * MAX_SHOW);
	html_kv(arr, "command", &b);
	sb_show_member(&b, s, "cwd", MAX_SHOW);
	html_kv(arr, "cwd", &b);
	sb_show_member(&b, s, "host", MAX_SHOW);
	if (jstr(s, "ts"))
		sb_printf(&b, ", started %s", clean(jstr(s, "ts")));
	html_kv(arr, "host", &b);
	sb_show_member(&b, s, "policy", MAX_SHOW);
	sb_printf(&b, " (audit = %s)", clean(jstr(s, "audit_level")));
	html_kv(arr, "policy", &b);
	sb_run_result(&b, rp);
	sb_add(&b, ", after ");
	sb_duration(&b, rp->t1_us - rp->t0_us);
	html_kv(arr, "result", &b);
	sb_printf(&b, "%" PRIu64 " (seq %" PRIu64 "-%" PRIu64 ")",
		  rp->records, rp->first_seq, rp->last_seq);
	html_kv(arr, "records", &b);
	sb_printf(&b, "%" PRIu64 " recorded: %" PRIu64 " allowed, %" PRIu64
		  " denied, %" PRIu64 " killed, %" PRIu64 " redirected; %"
		  PRIu64 " allowed but failed", rp->syscalls, rp->allowed,
		  rp->denied, rp->killed, rp->redirected, rp->failed);
	if (rp->woulds_total)
		sb_printf(&b, "; %" PRIu64 " the policy would deny "
			  "(permissive run)", rp->woulds_total);
	html_kv(arr, "calls", &b);
	sb_release(&b);
	return arr;
}

/* Denials: [seq, ms, pid, program, call, what, decision, rule, [stack],
 * node]. */
static json_t *html_denials(const struct report *rp)
{
	json_t *arr = json_array();
	struct sbuf b = { 0 };

	for (size_t i = 0; i < rp->n_denials && i < MAX_HTML_ROWS; i++) {
		const struct denial *d = &rp->denials[i];
		const char *err = jstr(d->rec, "errno");
		const char *note = jstr(d->rec, "note");
		json_t *row = json_array(), *fr;
		size_t k;

		json_array_append_new(row, json_integer((json_int_t)d->seq));
		json_array_append_new(row, json_ms(rp, d->ts_us));
		json_array_append_new(row, json_integer(d->proc != NONE ?
					rp->procs[d->proc].pid : -1));
		sb_show_member(&b, d->rec, "exe", MAX_SHOW);
		json_array_append_new(row, html_sb(&b));
		json_array_append_new(row, html_str(clean(jstr(d->rec,
							       "syscall"))));
		sb_denial_what(&b, d->rec);
		if (note) {
			sb_add(&b, " (");
			sb_show(&b, note, strlen(note));
			sb_add(&b, ")");
		}
		json_array_append_new(row, html_sb(&b));
		sb_add(&b, clean(jstr(d->rec, "action")));
		if (err)
			sb_printf(&b, " %s", clean(err));
		json_array_append_new(row, html_sb(&b));
		sb_add(&b, jstr(d->rec, "rule") ? clean(jstr(d->rec, "rule")) :
		       "(default)");
		json_array_append_new(row, html_sb(&b));
		json_array_append_new(row, json_array());
		json_array_foreach(json_object_get(d->rec, "stack"), k, fr) {
			sb_printf(&b, "#%zu ", k);
			sb_frame(&b, fr);
			json_array_append_new(json_array_get(row, 8), html_sb(&b));
		}
		json_array_append_new(row, d->proc != NONE ?
				      json_integer((json_int_t)d->proc) :
				      json_null());
		json_array_append_new(arr, row);
	}
	sb_release(&b);
	return arr;
}

/* Files in the text report's order (by access, the working directory's
 * and HOME's first): [access, path, outcome, rule, calls, pid, seq, bad,
 * folded, path as passed ("" when the same or none), size at the end
 * ("" when not written)]. */
static void html_file_extras(json_t *row, const struct file_ent *fe,
			     struct sbuf *b)
{
	int64_t size;

	if (fe->path_arg && (fe->path_arg_len != fe->path_len ||
			     memcmp(fe->path_arg, fe->path, fe->path_len))) {
		sb_show_max(b, fe->path_arg, fe->path_arg_len, MAX_SHOW);
		if (fe->relative_to) {
			sb_add(b, " (in ");
			sb_show_max(b, fe->relative_to, fe->relative_to_len,
				    MAX_SHOW);
			sb_add(b, ")");
		}
	}
	json_array_append_new(row, html_sb(b));
	if (fe->final && jint(fe->final, "size", &size))
		sb_printf(b, "%" PRId64 " bytes", size);
	else if (fe->final)
		sb_printf(b, "[%s]", clean(jstr(fe->final, "error")));
	json_array_append_new(row, html_sb(b));
}

static json_t *html_files(const struct report *rp)
{
	json_t *arr = json_array();
	struct sbuf b = { 0 };

	for (size_t k = 0; k <= ARRAY_SIZE(access_order); k++)
		for (int ours = 1; ours >= 0; ours--)
			for (size_t i = 0; i < rp->n_files; i++) {
				const struct file_ent *fe = &rp->files[i];

				if (!access_match(fe, k) ||
				    path_ours(rp, fe->path, fe->path_len) !=
				    (bool)ours ||
				    json_array_size(arr) >= MAX_HTML_ROWS)
					continue;
				sb_show_max(&b, fe->path, fe->path_len,
					    MAX_SHOW);
				json_array_append_new(arr, json_pack(
					"[s,o,s,s,I,I,I,b,b]",
					clean(fe->access), html_sb(&b),
					clean(fe->outcome),
					fe->rule && outcome_by_rule(fe->outcome)
					? clean(fe->rule) : "",
					(json_int_t)fe->count,
					(json_int_t)fe->pid,
					(json_int_t)fe->first_seq, fe->bad,
					file_folded(rp, fe)));
				html_file_extras(json_array_get(arr,
					json_array_size(arr) - 1), fe, &b);
			}
	sb_release(&b);
	return arr;
}

static json_t *html_written(const struct report *rp)
{
	json_t *arr = json_written(rp), *rows = json_array();
	struct sbuf b = { 0 };
	size_t i;
	json_t *w;

	json_array_foreach(arr, i, w) {
		const json_t *size = json_object_get(w, "size");

		if (i >= MAX_HTML_ROWS)
			break;
		sb_show_member(&b, w, "path", MAX_SHOW);
		json_array_append_new(rows, json_pack("[o,s,O?,O?,O?]",
			html_sb(&b), json_is_integer(size) ? "" :
			clean(jstr(w, "error")), json_object_get(w, "pid"),
			json_object_get(w, "first_seq"),
			json_object_get(w, "seq")));
		if (json_is_integer(size)) {
			sb_printf(&b, "%" PRId64 " bytes",
				  (int64_t)json_integer_value(size));
			json_array_set_new(json_array_get(rows, i), 1,
					   html_sb(&b));
		}
	}
	json_decref(arr);
	sb_release(&b);
	return rows;
}

/* Programs executed: [ms, pid, path, argv, node]; network: [call,
 * address, outcome, rule, program, pid, calls, bad, details (DNS names,
 * addresses bound, peers), first seq]; files written: [path, size at the
 * end, pid, first seq, seq]; limits: lines. */
static void html_tables(const struct report *rp, json_t *data)
{
	json_t *execs = json_array(), *net = json_array(), *lim = json_array();
	struct sbuf b = { 0 }, a = { 0 };

	for (size_t i = 0; i < rp->n_execs && i < MAX_HTML_ROWS; i++) {
		const struct exec_ev *e = &rp->execs[i];

		sb_show_max(&b, e->path, e->path_len, MAX_SHOW);
		sb_show_argv(&a, e->argv, MAX_SHOW);
		json_array_append_new(execs, json_pack("[o,I,o,o,I]",
			json_ms(rp, e->ts_us),
			(json_int_t)rp->procs[e->proc].pid, html_sb(&b),
			html_sb(&a), (json_int_t)e->proc));
	}
	for (size_t i = 0; i < rp->n_nets && i < MAX_HTML_ROWS; i++) {
		const struct net_ent *n = &rp->nets[i];

		sb_net_details(&a, n);
		json_array_append_new(net, json_pack("[s,s,s,s,s,I,I,b,o,I]",
			clean(n->syscall), n->addr, clean(n->outcome),
			n->rule && outcome_by_rule(n->outcome) ?
			clean(n->rule) : "", n->exe, (json_int_t)n->pid,
			(json_int_t)n->count, n->bad, html_sb(&a),
			(json_int_t)n->first_seq));
	}
	for (size_t i = 0; i < rp->n_limits && i < MAX_HTML_ROWS; i++) {
		int64_t seq = 0;

		jint(rp->limits[i], "seq", &seq);
		sb_printf(&b, "record %" PRId64 "  ", seq);
		sb_rel(&b, rp, parse_ts(json_object_get(rp->limits[i], "ts")));
		sb_add(&b, "  ");
		sb_members(&b, rp->limits[i]);
		json_array_append_new(lim, html_sb(&b));
	}
	json_object_set_new(data, "execs", execs);
	json_object_set_new(data, "network", net);
	json_object_set_new(data, "written", html_written(rp));
	json_object_set_new(data, "limits", lim);
	sb_release(&b);
	sb_release(&a);
}

/* Everything the page shows. */
static json_t *html_data(const struct report *rp)
{
	json_t *data = json_object();
	struct sbuf b = { 0 };

	json_object_set_new(data, "version", json_string(PACKAGE_VERSION));
	sb_show(&b, rp->run_id, strlen(rp->run_id));
	json_object_set_new(data, "run", html_sb(&b));
	json_object_set_new(data, "verified", json_boolean(rp->verified));
	sb_show(&b, rp->why, strlen(rp->why));
	json_object_set_new(data, "why", html_sb(&b));
	json_object_set_new(data, "all", json_boolean(rp->all));
	json_object_set_new(data, "head", html_head(rp));
	sb_run_result(&b, rp);
	json_object_set_new(data, "result", html_sb(&b));
	json_object_set_new(data, "duration_ms", json_ms(rp, rp->t1_us));
	json_object_set_new(data, "findings", json_findings(rp));
	json_object_set_new(data, "processes", html_procs(rp));
	json_object_set_new(data, "threads", json_integer(rp->threads));
	html_calls(rp, data);
	json_object_set_new(data, "denials", html_denials(rp));
	json_object_set_new(data, "denials_total",
			    json_integer((json_int_t)rp->denials_total));
	json_object_set_new(data, "files", html_files(rp));
	json_object_set_new(data, "files_total", json_integer(rp->n_files));
	html_tables(rp, data);
	json_object_set_new(data, "execs_total", json_integer(rp->n_execs));
	json_object_set_new(data, "written_total",
			    json_integer((json_int_t)rp->finals_total));
	json_object_set_new(data, "network_total", json_integer(rp->n_nets));
	json_object_set_new(data, "limits_total",
			    json_integer((json_int_t)rp->limits_total));
	json_object_set_new(data, "max_rows", json_integer(MAX_HTML_ROWS));
	sb_release(&b);
	return data;
}

static int output_html(FILE *f, const struct report *rp)
{
	json_t *data = html_data(rp);
	int r = report_html_write(f, rp->run_id, data);

	json_decref(data);
	return r;
}

/* ---- the command ------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate report [--json] [--html OUT.html] [--run N|ID] [--all]\n"
		"                      [--pid N] [--around SEQ] [--denied] [--] AUDIT\n"
		"What the runs in the trail AUDIT (a file, or latest, ~N: see sysgate runs)\n"
		"did: findings first, then processes,\n"
		"programs, files, network, denials with their rules and stacks.\n"
		"  --json          the same as one JSON object\n"
		"  --html OUT      a page for the browser, into the file OUT\n"
		"  --run N|ID      only run N of the file (1, 2, ...) or the run with id ID\n"
		"  --all           do not fold loader, locale and runtime reads and probes\n"
		"  --pid N         only process (or thread) N: its records with decoded\n"
		"                  arguments and results\n"
		"  --around SEQ    only the %d records before and after record SEQ\n"
		"  --denied        only the denials\n"
		"  -h, --help      this text\n", AROUND);
}

/* The command line. */
struct report_opts {
	const char *path, *html, *want_id;
	char path_buf[PATH_MAX], id_buf[TOOLS_RUN_ID_MAX];
	bool want_json, all;
	unsigned want_run;
	struct views views;
};

/* A number for --pid or --around: 0, or -1 (with a message). */
static int view_number(const char *opt, const char *arg, uint64_t *out)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (!*arg || *end || errno || arg[0] == '-' || n == 0 ||
	    n > INT64_MAX) {
		fprintf(stderr, "sysgate report: %s needs a positive number, not '%s'\n",
			opt, clean(arg));
		return -1;
	}
	*out = n;
	return 0;
}

/* The trail: latest, ~N name a run of the state directory (that run,
 * unless --run says another). */
static int report_trail_arg(struct report_opts *o, const char *arg)
{
	o->path = tools_trail_arg("report", arg, o->path_buf, o->id_buf);
	if (!o->path)
		return EXIT_TOOL_FAILURE;
	if (o->id_buf[0] && !o->want_id && !o->want_run)
		o->want_id = o->id_buf;
	return -1;
}

/* The command line: -1, or the exit status. */
static int report_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },
		{ "run", required_argument, NULL, 'R' },
		{ "all", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "around", required_argument, NULL, 'A' },
		{ "denied", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = tools_getopt(argc, argv, "report", ":h", longopts)) != -1) {
		char *end;
		unsigned long n;
		uint64_t v;

		switch (c) {
		case 'j':
			o->want_json = true;
			break;
		case 'H':
			o->html = optarg;
			break;
		case 'R':
			n = strtoul(optarg, &end, 10);
			if (*end || n == 0 || n > UINT32_MAX)
				o->want_id = optarg;
			else
				o->want_run = (unsigned)n;
			break;
		case 'a':
			o->all = true;
			break;
		case 'p':
			if (view_number("--pid", optarg, &v) < 0)
				return tools_usage_error("report");
			o->views.pid = (int64_t)v;
			o->views.pid_set = true;
			break;
		case 'A':
			if (view_number("--around", optarg, &v) < 0)
				return tools_usage_error("report");
			o->views.around = v;
			o->views.around_set = true;
			break;
		case 'd':
			o->views.denied = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return tools_usage_error("report");
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "sysgate report: %s\n", optind >= argc ?
			"no trail given" : "one trail at a time");
		return tools_usage_error("report");
	}
	if (views_wanted(&o->views) && (o->want_json || o->html)) {
		fprintf(stderr, "sysgate report: --pid, --around and --denied are text views: not with --json or --html\n");
		return tools_usage_error("report");
	}
	return report_trail_arg(o, argv[optind]);
}

/* Close a stream we wrote, reporting a write error.  Returns 0 or -1. */
static int finish_stream(FILE *f, const char *what)
{
	int bad = ferror(f);

	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad) {
		fprintf(stderr, "sysgate report: cannot write %s\n", what);
		return -1;
	}
	return 0;
}

int tool_report(int argc, char **argv)
{
	struct report_opts o = { 0 };
	const char *path, *html, *want_id;
	bool want_json;
	unsigned want_run;
	struct report rp = { 0 };
	struct scan sc = { 0 };
	struct audit_reader *rd = NULL;
	json_t *rec;
	int r, status = 0;

	r = report_args(argc, argv, &o);
	if (r >= 0)
		return r;
	path = o.path;
	html = o.html;
	want_id = o.want_id;
	want_json = o.want_json;
	want_run = o.want_run;
	rp.all = o.all;

	rp.trail = path;
	r = audit_verify_path(path, NULL, rp.why, sizeof(rp.why));
	if (r < 0 && r != -EBADMSG) {
		fprintf(stderr, "sysgate report: %s: %s\n", path, strerror(-r));
		return EXIT_TOOL_FAILURE;
	}
	rp.verified = r == 0;
	if (!rp.verified && (want_json || html))
		fprintf(stderr, "sysgate report: WARNING: %s does not verify: %s\n",
			path, rp.why);

	sc.want_run = want_run;
	sc.want_id = want_id;
	r = audit_reader_open_path(path, &rd);
	if (r < 0) {
		fprintf(stderr, "sysgate report: %s: %s\n", path, strerror(-r));
		return EXIT_TOOL_FAILURE;
	}
	while ((r = audit_reader_next(rd, &rec)) != 0) {
		if (r == -EBADMSG) {
			rp.bad_lines++;
			continue;
		}
		if (r < 0)
			break;
		ingest(&rp, &sc, rec);
	}
	audit_reader_free(rd);
	if (r < 0) {
		fprintf(stderr, "sysgate report: %s: %s\n", path, strerror(-r));
		report_release(&rp);
		return EXIT_TOOL_FAILURE;
	}
	rp.runs = sc.runs;
	if (!sc.records) {
		fprintf(stderr, "sysgate report: %s: no audit records\n", path);
		report_release(&rp);
		return EXIT_TOOL_FAILURE;
	}
	if (!rp.records) {
		if (want_id)
			fprintf(stderr, "sysgate report: %s: no run %s\n",
				path, want_id);
		else
			fprintf(stderr, "sysgate report: %s: no run %u (the trail holds %u)\n",
				path, want_run, sc.runs);
		report_release(&rp);
		return EXIT_TOOL_FAILURE;
	}
	flush_pending(&rp);
	build_lanes(&rp);
	build_output_lines(&rp);
	link_finals(&rp);

	if (html) {
		FILE *f = strcmp(html, "-") ? fopen(html, "we") : stdout;

		if (!f) {
			fprintf(stderr, "sysgate report: %s: %s\n", html,
				strerror(errno));
			report_release(&rp);
			return EXIT_TOOL_FAILURE;
		}
		if (output_html(f, &rp) < 0 ||
		    finish_stream(f, html) < 0)
			status = EXIT_TOOL_FAILURE;
	}
	if (want_json) {
		if (output_json(stdout, &rp) < 0)
			status = EXIT_TOOL_FAILURE;
	} else if (views_wanted(&o.views)) {
		output_views(stdout, &rp, &o.views);
	} else if (!html) {
		output_text(stdout, &rp);
	}
	if ((want_json || !html) && finish_stream(stdout, "the report") < 0)
		status = EXIT_TOOL_FAILURE;
	report_release(&rp);
	return status;
}
