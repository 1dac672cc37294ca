/* SPDX-License-Identifier: MIT */
/*
 * sysgate runs: the runs whose trails are in the state directory (where
 * `sysgate run` puts a trail without -a), oldest first, and the names
 * "latest" and "~N" that the other subcommands take for a trail.  Reads
 * trails only; one pass per file, JSON parsed for the few lines it needs.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"
#include "tools/tools.h"

/* Longest command shown (bytes of the escaped text). */
#define RUNS_MAX_COMMAND 200

int tools_state_dir(char dir[PATH_MAX])
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	struct stat st;
	int n = -1;

	if (xdg && xdg[0] == '/')
		n = snprintf(dir, PATH_MAX, "%s/sysgate/runs", xdg);
	else if (home && home[0] == '/')
		n = snprintf(dir, PATH_MAX, "%s/.local/state/sysgate/runs",
			     home);
	/* As sysgate run chooses: the one under the home when it is there
	 * for us to write, else the one under /tmp. */
	if (n > 0 && n < PATH_MAX && stat(dir, &st) == 0 &&
	    S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0)
		return 0;
	snprintf(dir, PATH_MAX, "/tmp/sysgate-%u", (unsigned)getuid());
	return 0;
}

/* "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" as microseconds since the epoch, or -1. */
static int64_t ts_us(const char *s, size_t n)
{
	char buf[40];
	struct tm tm = { 0 };
	int us = 0, used = 0;

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (sscanf(buf, "%4d-%2d-%2dT%2d:%2d:%2d.%6dZ%n", &tm.tm_year,
		   &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec, &us, &used) != 7 || (size_t)used != n)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000000 + us;
}

/* The string value of "key":" in the head of a line (the writer's fixed
 * order: seq, ts, run, type), borrowed, or NULL. */
static const char *head_str(const char *line, size_t len, const char *key,
			    size_t *out_len)
{
	size_t head = len < 400 ? len : 400, kl = strlen(key);
	const char *p = memmem(line, head, key, kl), *q;

	if (!p)
		return NULL;
	p += kl;
	q = memchr(p, '"', (size_t)(line + len - p));
	if (!q)
		return NULL;
	*out_len = (size_t)(q - p);
	return p;
}

static void run_free_fields(struct tools_run *r)
{
	free(r->path);
	free(r->id);
	free(r->status);
	free(r->signal);
	free(r->command);
	json_decref(r->command_json);
}

/* Whether a word is shown as it is (else in single quotes). */
static bool word_plain(const char *w, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_./=:,+@%-", w[i]) || !w[i])
			return false;
	return true;
}

/* The command of run.start, each word escaped for the terminal, quoted
 * when it holds a blank or a shell character. */
static char *show_command(const json_t *argv)
{
	char *out = calloc(1, RUNS_MAX_COMMAND + 8);
	size_t len = 0, i;
	json_t *a;

	if (!out)
		return NULL;
	json_array_foreach(argv, i, a) {
		char *w = NULL, buf[RUNS_MAX_COMMAND + 1];
		size_t wl = 0, bl;

		if (audit_json_bytes(a, NULL, &w, &wl) < 0)
			continue;
		bool q = !word_plain(w, wl);

		bl = audit_escape_tty(buf, sizeof(buf), w, wl);
		free(w);
		if (bl >= sizeof(buf))
			bl = strlen(buf);
		if (len + bl + 4 > RUNS_MAX_COMMAND) {
			strcpy(out + len, len ? " ..." : "...");
			return out;
		}
		if (len)
			out[len++] = ' ';
		if (q)
			out[len++] = '\'';
		memcpy(out + len, buf, bl);
		len += bl;
		if (q)
			out[len++] = '\'';
		out[len] = '\0';
	}
	return out;
}

struct scan_file {
	struct tools_runs *rs;
	const char *path;
	size_t first;		/* index in rs of the file's first run */
	unsigned runs;
};

/* A new run of the file, from its first record. */
static int scan_new_run(struct scan_file *sf, const char *id, size_t id_len,
			int64_t ts)
{
	struct tools_runs *rs = sf->rs;
	struct tools_run *r;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 32;
		void *v = reallocarray(rs->v, cap, sizeof(*rs->v));

		if (!v)
			return -ENOMEM;
		rs->v = v;
		rs->cap = cap;
	}
	r = &rs->v[rs->n];
	*r = (struct tools_run){ .index = ++sf->runs, .start_us = ts,
				 .last_us = ts, .duration_ms = -1 };
	r->path = strdup(sf->path);
	r->id = id ? strndup(id, id_len) : strdup("?");
	if (!r->path || !r->id) {
		run_free_fields(r);
		return -ENOMEM;
	}
	rs->n++;
	return 0;
}

static void scan_start(struct tools_run *r, const json_t *rec)
{
	const json_t *cmd = json_object_get(rec, "command");

	if (!json_is_array(cmd))
		cmd = json_object_get(rec, "argv");
	if (!json_is_array(cmd) || r->command_json)
		return;
	r->command_json = json_incref((json_t *)cmd);
	r->command = show_command(cmd);
}

static void scan_end(struct tools_run *r, const json_t *rec)
{
	const char *st = json_string_value(json_object_get(rec, "status"));
	const char *sig = json_string_value(json_object_get(rec, "signal"));
	const json_t *d = json_object_get(rec, "duration_ms");

	r->finished = true;
	r->exit = json_integer_value(json_object_get(rec, "exit"));
	free(r->status);
	r->status = st ? strdup(st) : NULL;
	free(r->signal);
	r->signal = sig ? strdup(sig) : NULL;
	if (json_is_integer(d))
		r->duration_ms = json_integer_value(d);
}

/* One line of the file: 0, or -EBADMSG for a line without a record head. */
static int scan_line(struct scan_file *sf, const char *line, size_t len)
{
	const char *type, *id, *ts;
	size_t tl = 0, il = 0, sl = 0;
	struct tools_run *r;
	json_t *rec = NULL;
	bool starts;
	int64_t t;

	if (len < 8 || memcmp(line, "{\"seq\":", 7))
		return -EBADMSG;
	type = head_str(line, len, "\"type\":\"", &tl);
	id = head_str(line, len, "\"run\":\"", &il);
	ts = head_str(line, len, "\"ts\":\"", &sl);
	if (!type)
		return -EBADMSG;
	t = ts ? ts_us(ts, sl) : -1;
	starts = !sf->runs || (tl == 9 && !memcmp(type, "run.start", 9)) ||
		 !strncmp(line, "{\"seq\":1,", 9);
	if (starts && scan_new_run(sf, id, il, t) < 0)
		return -ENOMEM;
	r = &sf->rs->v[sf->rs->n - 1];
	if (t >= 0) {
		if (r->start_us < 0)
			r->start_us = t;
		r->last_us = t;
	}
	if (tl == 9 && !memcmp(type, "run.start", 9)) {
		rec = json_loadb(line, len, 0, NULL);
		scan_start(r, rec);
	} else if (tl == 7 && !memcmp(type, "run.end", 7)) {
		rec = json_loadb(line, len, 0, NULL);
		scan_end(r, rec);
	} else if (tl == 7 && !memcmp(type, "syscall", 7) &&
		   (memmem(line, len, "\"action\":\"deny\"", 15) ||
		    memmem(line, len, "\"action\":\"kill\"", 15))) {
		const char *a;

		rec = json_loadb(line, len, 0, NULL);
		a = json_string_value(json_object_get(rec, "action"));
		if (a && (!strcmp(a, "deny") || !strcmp(a, "kill")))
			r->denials++;
	}
	json_decref(rec);
	return 0;
}

/* Read one trail; a file that is not one (or cannot be read) is skipped
 * with a warning naming it. */
static int scan_file(struct tools_runs *rs, int dfd, const char *dir,
		     const char *name, const char *cmd)
{
	struct scan_file sf = { .rs = rs, .first = rs->n };
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int fd, r = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path)) {
		fprintf(stderr, "sysgate %s: %s/%s: %s; skipped\n", cmd, dir,
			name, strerror(ENAMETOOLONG));
		return 0;
	}
	sf.path = path;
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
		    O_NONBLOCK);
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		fprintf(stderr, "sysgate %s: %s: %s; skipped\n", cmd, path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	errno = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			len--;
		if ((size_t)len >= AUDIT_MAX_LINE)
			continue;
		r = scan_line(&sf, line, (size_t)len);
		if (r == -ENOMEM)
			break;
		r = 0;
	}
	if (!r && ferror(f)) {
		fprintf(stderr, "sysgate %s: %s: %s; skipped\n", cmd, path,
			strerror(errno ? errno : EIO));
		r = -EIO;
	} else if (!r && !sf.runs) {
		fprintf(stderr, "sysgate %s: %s: no audit records; skipped\n",
			cmd, path);
	}
	free(line);
	fclose(f);
	if (r < 0) {
		/* Drop what was taken of an unreadable file. */
		while (rs->n > sf.first)
			run_free_fields(&rs->v[--rs->n]);
		return r == -ENOMEM ? r : 0;
	}
	for (size_t i = sf.first; i < rs->n; i++)
		rs->v[i].in_file = sf.runs;
	return 0;
}

/*
 * Security: the directory under /tmp is refused unless it is ours and
 * nobody else's to write (as sysgate run refuses to put a trail there),
 * so no one else can make "latest" name a trail of theirs.
 */
static bool dir_ours(int dfd)
{
	struct stat st;

	return fstat(dfd, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_uid == getuid() && !(st.st_mode & 022);
}

static bool is_trail_name(const char *n)
{
	size_t l = strlen(n);

	return n[0] != '.' && l > 6 && !strcmp(n + l - 6, ".jsonl");
}

static int scan_dir(struct tools_runs *rs, const char *dir, const char *cmd)
{
	DIR *d;
	struct dirent *de;
	int dfd, r = 0;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		if (errno != ENOENT)
			fprintf(stderr, "sysgate %s: %s: %s; skipped\n", cmd,
				dir, strerror(errno));
		return 0;
	}
	if (!dir_ours(dfd)) {
		fprintf(stderr, "sysgate %s: %s: not a directory of this user's alone; skipped\n",
			cmd, dir);
		close(dfd);
		return 0;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d)) && r == 0)
		if (is_trail_name(de->d_name))
			r = scan_file(rs, dirfd(d), dir, de->d_name, cmd);
	closedir(d);
	return r;
}

static int cmp_run(const void *a, const void *b)
{
	const struct tools_run *x = a, *y = b;
	int c;

	if (x->start_us != y->start_us)
		return x->start_us < y->start_us ? -1 : 1;
	c = strcmp(x->path, y->path);
	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

int tools_runs_scan(const char *cmd, struct tools_runs *out)
{
	char dir[PATH_MAX];
	struct tools_runs rs = { 0 };
	int r;

	tools_state_dir(dir);
	r = scan_dir(&rs, dir, cmd);
	if (r < 0) {
		tools_runs_release(&rs);
		return r;
	}
	if (rs.n)
		qsort(rs.v, rs.n, sizeof(*rs.v), cmp_run);
	*out = rs;
	return 0;
}

void tools_runs_release(struct tools_runs *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		run_free_fields(&rs->v[i]);
	free(rs->v);
	*rs = (struct tools_runs){ 0 };
}

/* ---- sysgate runs ------------------------------------------------------ */

static void show_ref(char *buf, size_t len, size_t back)
{
	if (back == 0)
		snprintf(buf, len, "latest");
	else
		snprintf(buf, len, "~%zu", back);
}

static void show_start(char *buf, size_t len, int64_t us)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;

	if (us < 0 || !gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
}

static void show_duration(char *buf, size_t len, int64_t ms)
{
	if (ms < 0)
		snprintf(buf, len, "?");
	else if (ms < 1000)
		snprintf(buf, len, "%" PRId64 "ms", ms);
	else if (ms < 60000)
		snprintf(buf, len, "%" PRId64 ".%01" PRId64 "s", ms / 1000,
			 ms % 1000 / 100);
	else
		snprintf(buf, len, "%" PRId64 "m%02" PRId64 "s", ms / 60000,
			 ms % 60000 / 1000);
}

static int64_t run_duration_ms(const struct tools_run *r)
{
	if (r->duration_ms >= 0)
		return r->duration_ms;
	if (r->start_us < 0 || r->last_us < r->start_us)
		return -1;
	return (r->last_us - r->start_us) / 1000;
}

/* The exit column: a status, a signal's name, "failed", "unfinished". */
static void show_exit(char *buf, size_t len, const struct tools_run *r)
{
	if (!r->finished)
		snprintf(buf, len, "unfinished");
	else if (r->status && !strcmp(r->status, "signaled") && r->signal)
		audit_escape_tty(buf, len, r->signal, strlen(r->signal));
	else if (r->status && !strcmp(r->status, "failed"))
		snprintf(buf, len, "failed(%" PRId64 ")", r->exit);
	else
		snprintf(buf, len, "%" PRId64, r->exit);
}

static void runs_text(const struct tools_runs *rs)
{
	printf("%-7s %-20s %8s %-11s %7s  %s  %s\n", "REF", "START (UTC)",
	       "DURATION", "EXIT", "DENIALS", "TRAIL", "COMMAND");
	for (size_t i = 0; i < rs->n; i++) {
		const struct tools_run *r = &rs->v[i];
		char ref[24], start[32], dur[32], ex[64], path[PATH_MAX * 4];

		show_ref(ref, sizeof(ref), rs->n - 1 - i);
		show_start(start, sizeof(start), r->start_us);
		show_duration(dur, sizeof(dur), run_duration_ms(r));
		show_exit(ex, sizeof(ex), r);
		audit_escape_tty(path, sizeof(path), r->path, strlen(r->path));
		printf("%-7s %-20s %8s %-11s %7" PRIu64 "  %s  %s\n", ref,
		       start, dur, ex, r->denials, path,
		       r->command ? r->command : "?");
	}
}

/* A path as a JSON string: itself when it is UTF-8, else escaped as the
 * text shows it. */
static json_t *json_path(const char *p)
{
	char buf[PATH_MAX * 4];
	json_t *v = json_string(p);

	if (v)
		return v;
	audit_escape_tty(buf, sizeof(buf), p, strlen(p));
	return json_string(buf);
}

static json_t *run_json(const struct tools_run *r, size_t back)
{
	char ref[24], start[32];
	json_t *o = json_object();

	show_ref(ref, sizeof(ref), back);
	show_start(start, sizeof(start), r->start_us);
	json_object_set_new(o, "ref", json_string(ref));
	json_object_set_new(o, "trail", json_path(r->path));
	json_object_set_new(o, "run", json_string(r->id));
	json_object_set_new(o, "run_index", json_integer(r->index));
	json_object_set_new(o, "runs_in_file", json_integer(r->in_file));
	json_object_set_new(o, "start", r->start_us < 0 ? json_null() :
			    json_string(start));
	json_object_set_new(o, "duration_ms", json_integer(run_duration_ms(r)));
	json_object_set_new(o, "finished", json_boolean(r->finished));
	json_object_set_new(o, "status", json_string(r->finished && r->status ?
						     r->status : "unfinished"));
	json_object_set_new(o, "exit", r->finished ? json_integer(r->exit) :
			    json_null());
	if (r->signal)
		json_object_set_new(o, "signal", json_string(r->signal));
	json_object_set_new(o, "denials", json_integer((json_int_t)r->denials));
	json_object_set(o, "command", r->command_json ? r->command_json :
			json_null());
	return o;
}

static int runs_json(const struct tools_runs *rs)
{
	json_t *a = json_array();
	int r;

	for (size_t i = 0; i < rs->n; i++)
		json_array_append_new(a, run_json(&rs->v[i], rs->n - 1 - i));
	r = json_dumpf(a, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(a);
	if (r == 0)
		putchar('\n');
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate runs [--json]\n"
		"The runs whose trails are in the state directory (where sysgate run\n"
		"puts a trail without -a), oldest first: the name other commands take\n"
		"for each (latest, ~1 the one before, ...), start, duration, exit\n"
		"status, denials, trail, command.\n"
		"  --json          the same as a JSON array\n"
		"  -h, --help      this text\n");
}

int tool_runs(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tools_runs rs;
	bool want_json = false;
	int c, r;

	optind = 0;
	while ((c = tools_getopt(argc, argv, "runs", ":h", longopts)) != -1) {
		switch (c) {
		case 'j':
			want_json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return tools_usage_error("runs");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sysgate runs: no argument expected\n");
		return tools_usage_error("runs");
	}
	r = tools_runs_scan("runs", &rs);
	if (r < 0) {
		fprintf(stderr, "sysgate runs: %s\n", strerror(-r));
		return TOOLS_EXIT_USAGE;
	}
	if (want_json)
		r = runs_json(&rs);
	else
		runs_text(&rs);
	tools_runs_release(&rs);
	if (r < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sysgate runs: cannot write the list\n");
		return TOOLS_EXIT_USAGE;
	}
	return 0;
}
