/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test-audit.c: CUnit tests of audit/: record formatting and
 * nesting, JSON escaping, the hash chain, sticky write errors, the verifier
 * against a tamper suite, and signing.  Pure logic on temporary files.
 */
#include "config.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <jansson.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/chain.h"
#include "audit/escape.h"
#include "audit/syslog.h"
#include "common/util.h"
#include "tests/unit/unit.h"

/* Records in the tamper-suite trail: run.start, syscalls, then run.end. */
#define TRAIL_RECORDS 20
#define RANDOM_ROUNDS 3000
#define RANDOM_MAX_LEN 48
#define THREADS 4
#define RECORDS_PER_THREAD 200
#define WHY_LEN 256

static char tmpdir[64];
static unsigned int path_counter;

/*
 * Allocation counting: the test is linked with -Wl,--wrap=malloc (and
 * calloc, realloc, reallocarray), so every call from libaudit.a and from
 * this file goes through these.  Shared libraries are not affected.
 */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_reallocarray(void *p, size_t n, size_t size);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_reallocarray(void *p, size_t n, size_t size);

/* volatile: the compiler assumes malloc() leaves user globals alone. */
static volatile unsigned long alloc_calls;

void *__wrap_malloc(size_t n)
{
	alloc_calls++;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	alloc_calls++;
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	alloc_calls++;
	return __real_realloc(p, n);
}

void *__wrap_reallocarray(void *p, size_t n, size_t size)
{
	alloc_calls++;
	return __real_reallocarray(p, n, size);
}

/* fdatasync from libaudit.a (-Wl,--wrap=fdatasync): counted, with the
 * thread that called it last, and failed with fail_sync as errno while
 * that is not 0. */
int __real_fdatasync(int fd);
int __wrap_fdatasync(int fd);
static unsigned long sync_calls;	/* __atomic */
static pid_t sync_tid;			/* __atomic */
static int fail_sync;			/* __atomic */

int __wrap_fdatasync(int fd)
{
	int e = __atomic_load_n(&fail_sync, __ATOMIC_SEQ_CST);

	__atomic_store_n(&sync_tid, gettid(), __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&sync_calls, 1, __ATOMIC_SEQ_CST);
	if (e) {
		errno = e;
		return -1;
	}
	return __real_fdatasync(fd);
}

/* ---- helpers --------------------------------------------------------- */

/* A fresh file name in the test directory. */
static void tmp_path(char *buf, size_t len, const char *stem)
{
	snprintf(buf, len, "%s/%s-%u", tmpdir, stem, path_counter++);
}

/* Whole file as a NUL-terminated string (may contain NULs); length in *len. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (cap - n < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		if (got == 0)
			break;
		n += got;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static int spit(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (!f)
		return -1;
	if (fwrite(text, 1, len, f) != len)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

typedef void (*fill_fn)(struct audit_rec *r);

/* Write one record of type "t" filled by fill into a new file; return the
 * line (malloc'd) and the commit status in *rc. */
static char *one_record(fill_fn fill, int *rc)
{
	char path[128];
	struct audit_writer *w = NULL;
	struct audit_rec *r;
	char *text;

	tmp_path(path, sizeof(path), "one");
	if (audit_open_path(path, AUDIT_SYNC_NONE, "run-1", &w) != 0)
		return NULL;
	r = audit_begin(w, "t");
	fill(r);
	*rc = audit_commit(r);
	if (audit_close(w) != 0)
		*rc = -9999;
	text = slurp(path, NULL);
	unlink(path);
	return text;
}

/* The part of a line between the fixed prefix (after "type":"t") and the
 * ,"hash" suffix: what the caller's fields produced. */
static char *fields_of(const char *line)
{
	const char *p = strstr(line, "\"type\":\"t\"");
	const char *q = strstr(line, ",\"hash\":\"");

	if (!p || !q || q < p)
		return NULL;
	p += strlen("\"type\":\"t\"");
	return strndup(p, (size_t)(q - p));
}

static json_t *parse_line(const char *line)
{
	return json_loads(line, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);
}

/* ---- record formatting ----------------------------------------------- */

static void fill_all_kinds(struct audit_rec *r)
{
	audit_int(r, "i", -42);
	audit_uint(r, "u", UINT64_MAX);
	audit_uint(r, "u2", INT64_MAX);
	audit_hex(r, "h", 0x1f);
	audit_bool(r, "t", true);
	audit_bool(r, "f", false);
	audit_null(r, "n");
	audit_str(r, "s", "x");
	audit_str(r, "sn", NULL);
	audit_obj_begin(r, "o");
	audit_int(r, "a", 1);
	audit_arr_begin(r, "arr");
	audit_int(r, NULL, 1);
	audit_str(r, NULL, "two");
	audit_obj_begin(r, NULL);
	audit_bool(r, "k", true);
	audit_obj_end(r);
	audit_arr_begin(r, NULL);
	audit_arr_end(r);
	audit_arr_end(r);
	audit_obj_begin(r, "empty");
	audit_obj_end(r);
	audit_obj_end(r);
	audit_int(r, "last", INT64_MIN);
}

static void test_fields(void)
{
	int rc = -1;
	AUTO_FREE char *line = one_record(fill_all_kinds, &rc);
	AUTO_FREE char *fields = NULL;
	json_t *root;

	CU_ASSERT_FATAL(line != NULL);
	CU_ASSERT_EQUAL(rc, 0);
	fields = fields_of(line);
	CU_ASSERT_FATAL(fields != NULL);
	CU_ASSERT_STRING_EQUAL(fields,
		",\"i\":-42,\"u\":\"18446744073709551615\","
		"\"u2\":9223372036854775807,\"h\":\"0x1f\","
		"\"t\":true,\"f\":false,\"n\":null,\"s\":\"x\",\"sn\":null,"
		"\"o\":{\"a\":1,\"arr\":[1,\"two\",{\"k\":true},[]],"
		"\"empty\":{}},\"last\":-9223372036854775808");
	root = parse_line(line);
	CU_ASSERT_FATAL(root != NULL);
	CU_ASSERT(json_is_object(root));
	json_decref(root);
}

static void test_prefix_and_seq(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	AUTO_FREE char *text = NULL;
	regex_t re;
	regmatch_t m[2];
	struct tm tm = { 0 };
	char *second;
	time_t t;

	tmp_path(path, sizeof(path), "prefix");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_EVERY, "r\"1", &w) == 0);
	CU_ASSERT_EQUAL(audit_last_seq(w), 0);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "run.start")), 0);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "syscall")), 0);
	CU_ASSERT_EQUAL(audit_last_seq(w), 2);
	CU_ASSERT_EQUAL(audit_close(w), 0);

	text = slurp(path, NULL);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT_FATAL(regcomp(&re,
		"^\\{\"seq\":1,\"ts\":\"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:"
		"[0-9]{2}:[0-9]{2})\\.[0-9]{6}Z\",\"run\":\"r\\\\\"1\","
		"\"type\":\"run.start\",\"prev_run_hash\":null,"
		"\"hash\":\"[0-9a-f]{64}\"\\}\n"
		"\\{\"seq\":2,\"ts\":\"[^\"]{27}\",\"run\":\"r\\\\\"1\","
		"\"type\":\"syscall\",\"hash\":\"[0-9a-f]{64}\"\\}\n$",
		REG_EXTENDED) == 0);
	CU_ASSERT_FATAL(regexec(&re, text, 2, m, 0) == 0);
	regfree(&re);
	/* The timestamp is UTC and now. */
	CU_ASSERT_PTR_NOT_NULL(strptime(text + m[1].rm_so, "%Y-%m-%dT%H:%M:%S",
					&tm));
	t = timegm(&tm);
	CU_ASSERT(labs((long)(time(NULL) - t)) < 5);
	second = strchr(text, '\n');
	CU_ASSERT(second && strncmp(second + 1, "{\"seq\":2,", 9) == 0);

	struct stat st;
	CU_ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	unlink(path);
}

static void test_misuse(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	struct audit_rec *r;
	size_t len = 1;
	AUTO_FREE char *text = NULL;

	tmp_path(path, sizeof(path), "misuse");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "run", &w) == 0);

	r = audit_begin(w, "t");
	audit_arr_begin(r, "a");
	audit_int(r, "key-in-array", 1);
	audit_arr_end(r);
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);

	r = audit_begin(w, "t");
	audit_int(r, NULL, 1); /* no key in an object */
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);

	r = audit_begin(w, "t");
	audit_obj_begin(r, "o");
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL); /* left open */

	r = audit_begin(w, "t");
	audit_arr_begin(r, "a");
	audit_obj_end(r); /* wrong closer */
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);

	r = audit_begin(w, "t");
	audit_obj_end(r); /* nothing to close */
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);

	r = audit_begin(w, "t");
	for (int i = 0; i <= AUDIT_MAX_DEPTH; i++)
		audit_obj_begin(r, "d");
	for (int i = 0; i <= AUDIT_MAX_DEPTH; i++)
		audit_obj_end(r);
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);

	r = audit_begin(w, "t");
	for (int i = 0; i < AUDIT_MAX_DEPTH; i++)
		audit_arr_begin(r, i == 0 ? "d" : NULL);
	for (int i = 0; i < AUDIT_MAX_DEPTH; i++)
		audit_arr_end(r);
	CU_ASSERT_EQUAL(audit_commit(r), 0); /* exactly the limit is fine */

	/* Duplicate keys would make the record ambiguous: refused. */
	r = audit_begin(w, "t");
	audit_int(r, "k", 1);
	audit_int(r, "k", 2);
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
	r = audit_begin(w, "t");
	audit_int(r, "seq", 5); /* the fixed members are keys too */
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
	/* ...though the head (seq, ts, run) is only written at the commit */
	r = audit_begin(w, "t");
	audit_str(r, "ts", "x");
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
	r = audit_begin(w, "t");
	audit_str(r, "run", "x");
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
	r = audit_begin(w, "t");
	audit_str(r, "type", "x");
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
	r = audit_begin(w, "t");
	audit_str(r, "hash", "x"); /* reserved for the chain */
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
	r = audit_begin(w, "t");
	audit_str(r, "path_hex", "x");
	audit_bytes(r, "path", "\xff", 1); /* would add path_hex */
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
	r = audit_begin(w, "t");
	audit_obj_begin(r, "o");
	audit_int(r, "k", 1);
	audit_obj_end(r);
	audit_obj_begin(r, "p");
	audit_int(r, "k", 1); /* same key, another object: fine */
	audit_str(r, "hash", "x"); /* and "hash" is only reserved on top */
	audit_int(r, "seq", 1); /* like the head's keys */
	audit_str(r, "ts", "x");
	audit_str(r, "run", "x");
	audit_obj_end(r);
	audit_int(r, "k", 1);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	/* Keys that share their length and first and last bytes are not
	 * the same key; a key met again after many others, or after a
	 * nested object, still is. */
	r = audit_begin(w, "t");
	audit_int(r, "axb", 1);
	audit_int(r, "ayb", 2);
	audit_int(r, "", 3);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	r = audit_begin(w, "t");
	audit_int(r, "", 1);
	audit_int(r, "", 2);
	CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
	for (int dup = 0; dup < 100; dup += 7) {
		char key[16];

		r = audit_begin(w, "t");
		for (int i = 0; i < 100; i++) {
			snprintf(key, sizeof(key), "key%d", i);
			audit_int(r, key, i);
		}
		audit_obj_begin(r, "nested");
		snprintf(key, sizeof(key), "key%d", dup);
		audit_int(r, key, 0); /* another object: fine */
		audit_obj_end(r);
		audit_int(r, key, dup);
		CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
	}

	/* A second begin on the thread that holds the record is refused. */
	r = audit_begin(w, "t");
	CU_ASSERT_PTR_NULL(audit_begin(w, "t"));
	audit_abort(r);
	CU_ASSERT_EQUAL(audit_commit(NULL), -EINVAL);
	audit_int(NULL, "x", 1); /* no-op, no crash */

	/* A record longer than a line may be is refused, not cut. */
	{
		size_t big = AUDIT_MAX_LINE;
		AUTO_FREE char *blob = malloc(big);

		CU_ASSERT_FATAL(blob != NULL);
		memset(blob, 'a', big);
		r = audit_begin(w, "t");
		audit_bytes(r, "blob", blob, big);
		CU_ASSERT_EQUAL(audit_commit(r), -EMSGSIZE);
	}

	/* None of that was written; the writer still works and seq is 4. */
	r = audit_begin(w, "t");
	audit_int(r, "ok", 1);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	CU_ASSERT_EQUAL(audit_last_seq(w), 4);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	text = slurp(path, &len);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT(strncmp(text, "{\"seq\":1,", 9) == 0);
	CU_ASSERT(strstr(text, "{\"seq\":2,") != NULL);
	CU_ASSERT(strstr(text, "\"p\":{\"k\":1,\"hash\":\"x\",\"seq\":1,"
			 "\"ts\":\"x\",\"run\":\"x\"},\"k\":1,") != NULL);
	CU_ASSERT(strstr(text, "{\"seq\":3,") != NULL);
	CU_ASSERT(strstr(text, "\"axb\":1,\"ayb\":2,\"\":3,") != NULL);
	CU_ASSERT(strstr(text, "{\"seq\":4,") != NULL);
	CU_ASSERT(strstr(text, "\"ok\":1,") != NULL);
	CU_ASSERT(strstr(text, "{\"seq\":5,") == NULL);
	CU_ASSERT(strstr(text, "\"d\":[[[") != NULL);
	CU_ASSERT(strstr(text, "\"a\":") == NULL);
	CU_ASSERT(strstr(text, "blob") == NULL);
	unlink(path);
}

static void test_open_errors(void)
{
	struct audit_writer *w = NULL;
	char path[128];

	CU_ASSERT_EQUAL(audit_open_path("/nonexistent-dir/x", AUDIT_SYNC_NONE,
					"r", &w), -ENOENT);
	CU_ASSERT_PTR_NULL(w);
	tmp_path(path, sizeof(path), "open");
	CU_ASSERT_EQUAL(audit_open_path(path, AUDIT_SYNC_NONE, "", &w), -EINVAL);
	CU_ASSERT_EQUAL(audit_open_path(path, (enum audit_sync)7, "r", &w),
			-EINVAL);
	CU_ASSERT_EQUAL(audit_open_fd(-1, AUDIT_SYNC_NONE, "r", &w), -EINVAL);
	CU_ASSERT_PTR_NULL(w);
	CU_ASSERT_EQUAL(audit_close(NULL), 0);
	unlink(path);
}

/* ---- escaping -------------------------------------------------------- */

struct esc_case {
	const char *in;
	size_t in_len;
	const char *out;
	bool clean; /* valid UTF-8 without NUL */
};

#define S(lit) lit, sizeof(lit) - 1
#define FFFD "\xef\xbf\xbd"

static const struct esc_case esc_cases[] = {
	{ S("/tmp/ok"), "/tmp/ok", true },
	{ S(""), "", true },
	{ S("a\"b"), "a\\\"b", true },
	{ S("a\\b"), "a\\\\b", true },
	{ S("/"), "/", true },
	{ S("\n\t\r\b\f"), "\\n\\t\\r\\b\\f", true },
	{ S("\x01\x1b\x1f\x7f"), "\\u0001\\u001b\\u001f\\u007f", true },
	{ S("a\0b"), "a\\u0000b", false },
	{ S("\xc3\xa9"), "\xc3\xa9", true },		     /* U+00E9 */
	{ S("\xc2\x80"), "\xc2\x80", true },		     /* U+0080 */
	{ S("\xe2\x82\xac"), "\xe2\x82\xac", true },	     /* U+20AC */
	{ S("\xef\xbf\xbd"), "\xef\xbf\xbd", true },	     /* real U+FFFD */
	{ S("\xee\x80\x80"), "\xee\x80\x80", true },	     /* U+E000 */
	{ S("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80", true }, /* U+1F600 */
	{ S("\xf4\x8f\xbf\xbf"), "\xf4\x8f\xbf\xbf", true }, /* U+10FFFF */
	{ S("\xf4\x90\x80\x80"), FFFD FFFD FFFD FFFD, false }, /* > U+10FFFF */
	{ S("\xc0\xaf"), FFFD FFFD, false },		     /* overlong '/' */
	{ S("\xc1\xbf"), FFFD FFFD, false },
	{ S("\xe0\x80\xaf"), FFFD FFFD FFFD, false },	     /* overlong 3 */
	{ S("\xe0\x9f\xbf"), FFFD FFFD FFFD, false },
	{ S("\xf0\x80\x80\xaf"), FFFD FFFD FFFD FFFD, false }, /* overlong 4 */
	{ S("\xf0\x8f\xbf\xbf"), FFFD FFFD FFFD FFFD, false },
	{ S("\xed\xa0\x80"), FFFD FFFD FFFD, false },	     /* U+D800 */
	{ S("\xed\xbf\xbf"), FFFD FFFD FFFD, false },	     /* U+DFFF */
	{ S("\xed\x9f\xbf"), "\xed\x9f\xbf", true },	     /* U+D7FF */
	{ S("\x80"), FFFD, false },			     /* stray cont. */
	{ S("\xbf\x80"), FFFD FFFD, false },
	{ S("\xff\xfe"), FFFD FFFD, false },
	{ S("\xf5\x80\x80\x80"), FFFD FFFD FFFD FFFD, false },
	{ S("\xc3"), FFFD, false },			     /* cut short */
	{ S("\xe2\x82"), FFFD FFFD, false },
	{ S("\xf0\x9f\x98"), FFFD FFFD FFFD, false },
	{ S("\xc3("), FFFD "(", false },
	{ S("a\xe2\x82\xac\xff\"z"), "a\xe2\x82\xac" FFFD "\\\"z", false },
};

static void test_escape_table(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(esc_cases); i++) {
		const struct esc_case *c = &esc_cases[i];
		char buf[128];
		size_t n = audit_escape(buf, sizeof(buf), c->in, c->in_len);

		CU_ASSERT_EQUAL(n, strlen(c->out));
		CU_ASSERT_STRING_EQUAL(buf, c->out);
		CU_ASSERT_EQUAL(audit_utf8_clean((const unsigned char *)c->in,
						 c->in_len), c->clean);
		if (strcmp(buf, c->out) != 0 ||
		    audit_utf8_clean((const unsigned char *)c->in,
				     c->in_len) != c->clean)
			fprintf(stderr, "escape case %zu failed: got '%s'\n", i,
				buf);
	}
}

static void test_escape_cut(void)
{
	char buf[16];

	/* Returns the full length, like snprintf; cuts at whole units. */
	CU_ASSERT_EQUAL(audit_escape(NULL, 0, "a\nb", 3), 4);
	CU_ASSERT_EQUAL(audit_escape(buf, 5, "abc\ndef", 7), 8);
	CU_ASSERT_STRING_EQUAL(buf, "abc");
	CU_ASSERT_EQUAL(audit_escape(buf, 6, "abc\ndef", 7), 8);
	CU_ASSERT_STRING_EQUAL(buf, "abc\\n");
	CU_ASSERT_EQUAL(audit_escape(buf, 4, "abcdef", 6), 6);
	CU_ASSERT_STRING_EQUAL(buf, "abc");
	CU_ASSERT_EQUAL(audit_escape(buf, 3, "a\xe2\x82\xac", 4), 4);
	CU_ASSERT_STRING_EQUAL(buf, "a");
	CU_ASSERT_EQUAL(audit_escape(buf, 1, "xyz", 3), 3);
	CU_ASSERT_STRING_EQUAL(buf, "");
	CU_ASSERT_EQUAL(audit_escape(buf, sizeof(buf), "xyz", 3), 3);
	CU_ASSERT_STRING_EQUAL(buf, "xyz");
}

/* audit_rec_body(): the fields as the trail gets them; an aborted copy
 * leaves the chain as it was. */
static void test_rec_body(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	struct audit_rec *r;
	const char *body;
	size_t len = 0;
	AUTO_FREE char *text = NULL;

	tmp_path(path, sizeof(path), "body");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "run", &w) == 0);
	CU_ASSERT_PTR_NULL(audit_rec_body(NULL, &len));
	r = audit_begin(w, "copy");
	audit_int(r, "pid", 7);
	audit_bytes(r, "path", "a\x1b\xff", 3);
	body = audit_rec_body(r, &len);
	CU_ASSERT_FATAL(body != NULL);
	CU_ASSERT_EQUAL(len, strlen(",\"type\":\"copy\",\"pid\":7,\"path\":\"a\\u001b\xef\xbf\xbd\",\"path_hex\":\"611bff\""));
	CU_ASSERT_NSTRING_EQUAL(body, ",\"type\":\"copy\",\"pid\":7,\"path\":\"a\\u001b\xef\xbf\xbd\",\"path_hex\":\"611bff\"", len);
	audit_abort(r);
	CU_ASSERT_EQUAL(audit_last_seq(w), 0);
	r = audit_begin(w, "t");
	audit_int(r, NULL, 1);	/* a builder error: no body */
	CU_ASSERT_PTR_NULL(audit_rec_body(r, &len));
	audit_abort(r);
	r = audit_begin(w, "t");
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	CU_ASSERT_EQUAL(audit_last_seq(w), 1);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	text = slurp(path, NULL);
	CU_ASSERT_PTR_NULL(strstr(text ? text : "", "copy"));
	unlink(path);
}

/* audit_escape_tty(): what a terminal must never get raw. */
static const struct esc_case tty_cases[] = {
	{ S("plain /tmp/a b.txt"), "plain /tmp/a b.txt", true },
	{ S("a\\b"), "a\\\\b", true },
	{ S("\\x1b"), "\\\\x1b", true },	     /* not taken for an escape */
	{ S("\n\r\t"), "\\n\\r\\t", true },
	{ S("\x1b]0;x\x07"), "\\x1b]0;x\\x07", true }, /* window title */
	{ S("\x1b[2J"), "\\x1b[2J", true },
	{ S("\x7f\x01"), "\\x7f\\x01", true },
	{ S("a\0b"), "a\\x00b", true },
	{ S("\xc2\x9b" "2J"), "\\u009b2J", true },    /* C1 CSI */
	{ S("\xc2\x85"), "\\u0085", true },	     /* NEL */
	{ S("\xe2\x80\xae" "txt.exe"), "\\u202etxt.exe", true }, /* RLO */
	{ S("\xe2\x81\xa6\xe2\x81\xa9"), "\\u2066\\u2069", true },
	{ S("\xe2\x80\x8f\xd8\x9c"), "\\u200f\\u061c", true },
	{ S("\xe2\x80\xa8"), "\\u2028", true },
	{ S("\xff\xfe"), "\\xff\\xfe", true },	     /* invalid UTF-8 */
	{ S("\xc3"), "\\xc3", true },		     /* cut short */
	{ S("\xed\xa0\x80"), "\\xed\\xa0\\x80", true }, /* surrogate */
	{ S("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", true },
};

static void test_escape_tty(void)
{
	char buf[128];

	for (size_t i = 0; i < ARRAY_SIZE(tty_cases); i++) {
		const struct esc_case *c = &tty_cases[i];
		size_t n = audit_escape_tty(buf, sizeof(buf), c->in, c->in_len);

		CU_ASSERT_EQUAL(n, strlen(c->out));
		CU_ASSERT_STRING_EQUAL(buf, c->out);
		if (strcmp(buf, c->out) != 0)
			fprintf(stderr, "tty escape case %zu failed: got '%s'\n",
				i, buf);
	}
	/* Cut at whole units, the full length returned. */
	CU_ASSERT_EQUAL(audit_escape_tty(NULL, 0, "a\x1b", 2), 5);
	CU_ASSERT_EQUAL(audit_escape_tty(buf, 4, "ab\x1b", 3), 6);
	CU_ASSERT_STRING_EQUAL(buf, "ab");
	CU_ASSERT_EQUAL(audit_escape_tty(buf, 3, "a\xe2\x82\xac", 4), 4);
	CU_ASSERT_STRING_EQUAL(buf, "a");
}

/* Check that the hex member named key decodes to exactly want[0..len). */
static bool hex_is(json_t *obj, const char *key, const void *want, size_t len)
{
	json_t *v = json_object_get(obj, key);
	unsigned char bin[AUDIT_MAX_STR];
	size_t bin_len = 0;

	if (!json_is_string(v) || json_string_length(v) != 2 * len)
		return false;
	if (sodium_hex2bin(bin, sizeof(bin), json_string_value(v),
			   json_string_length(v), NULL, &bin_len, NULL) != 0)
		return false;
	return bin_len == len && memcmp(bin, want, len) == 0;
}

static void fill_bytes(struct audit_rec *r)
{
	audit_bytes(r, "ok", "caf\xc3\xa9", 5);
	audit_bytes(r, "bad", "a\xff", 2);
	audit_bytes(r, "nul", "a\0b", 3);
	audit_bytes(r, "empty", "", 0);
	audit_arr_begin(r, "argv");
	audit_bytes(r, NULL, "ls", 2);
	audit_bytes(r, NULL, "\xc0\xaf", 2);
	audit_arr_end(r);
}

static void test_bytes_fields(void)
{
	int rc = -1;
	AUTO_FREE char *line = one_record(fill_bytes, &rc);
	AUTO_FREE char *fields = NULL;
	json_t *root, *argv, *el;

	CU_ASSERT_FATAL(line != NULL);
	CU_ASSERT_EQUAL(rc, 0);
	fields = fields_of(line);
	CU_ASSERT_FATAL(fields != NULL);
	CU_ASSERT_STRING_EQUAL(fields,
		",\"ok\":\"caf\xc3\xa9\","
		"\"bad\":\"a" FFFD "\",\"bad_hex\":\"61ff\","
		"\"nul\":\"a\\u0000b\",\"nul_hex\":\"610062\","
		"\"empty\":\"\","
		"\"argv\":[\"ls\",{\"text\":\"" FFFD FFFD "\",\"hex\":\"c0af\"}]");
	root = parse_line(line);
	CU_ASSERT_FATAL(root != NULL);
	CU_ASSERT(hex_is(root, "bad_hex", "a\xff", 2));
	CU_ASSERT(hex_is(root, "nul_hex", "a\0b", 3));
	CU_ASSERT_PTR_NULL(json_object_get(root, "ok_hex"));
	argv = json_object_get(root, "argv");
	el = json_array_get(argv, 1);
	CU_ASSERT(json_is_object(el) && hex_is(el, "hex", "\xc0\xaf", 2));
	json_decref(root);
}

/* Random bytes, biased toward the interesting ones. */
static size_t random_bytes(unsigned char *buf, size_t max)
{
	static const unsigned char pool[] = {
		0x00, 0x01, 0x1f, 0x20, '"', '\\', '/', 'a', 0x7f, 0x80, 0xbf,
		0xc0, 0xc1, 0xc2, 0xc3, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0,
		0xf4, 0xf5, 0xff, 0x9f, 0xa0, 0x8f, 0x90,
	};
	size_t len = (size_t)rand() % (max + 1);

	for (size_t i = 0; i < len; i++)
		buf[i] = rand() % 2 ? (unsigned char)rand()
				    : pool[(size_t)rand() % sizeof(pool)];
	return len;
}

static void test_random_roundtrip(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	static unsigned char inputs[RANDOM_ROUNDS][RANDOM_MAX_LEN];
	static size_t lens[RANDOM_ROUNDS];
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	int i = 0, bad_json = 0, bad_value = 0, clean_seen = 0;

	srand(12345);
	tmp_path(path, sizeof(path), "random");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "rnd", &w) == 0);
	for (i = 0; i < RANDOM_ROUNDS; i++) {
		struct audit_rec *r = audit_begin(w, "t");

		lens[i] = random_bytes(inputs[i], RANDOM_MAX_LEN);
		audit_bytes(r, "v", inputs[i], lens[i]);
		audit_arr_begin(r, "a");
		audit_bytes(r, NULL, inputs[i], lens[i]);
		audit_arr_end(r);
		CU_ASSERT_EQUAL_FATAL(audit_commit(r), 0);
	}
	CU_ASSERT_EQUAL(audit_close(w), 0);

	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	for (i = 0; i < RANDOM_ROUNDS && getline(&line, &cap, f) > 0; i++) {
		json_t *root = parse_line(line);
		json_t *v, *el;
		bool clean = audit_utf8_clean(inputs[i], lens[i]);
		char esc[RANDOM_MAX_LEN * 6 + 3];
		json_t *alone;

		if (!root) {
			bad_json++;
			continue;
		}
		v = json_object_get(root, "v");
		el = json_array_get(json_object_get(root, "a"), 0);
		if (clean) {
			/* Valid UTF-8 decodes to exactly the input. */
			clean_seen++;
			if (!json_is_string(v) || json_string_length(v) != lens[i] ||
			    memcmp(json_string_value(v), inputs[i], lens[i]) != 0 ||
			    json_object_get(root, "v_hex") ||
			    !json_equal(v, el))
				bad_value++;
		} else if (!json_is_string(v) ||
			   !hex_is(root, "v_hex", inputs[i], lens[i]) ||
			   !hex_is(el, "hex", inputs[i], lens[i])) {
			bad_value++;
		}
		json_decref(root);

		/* audit_escape alone gives a valid JSON string too. */
		esc[0] = '"';
		audit_escape(esc + 1, sizeof(esc) - 2, inputs[i], lens[i]);
		strcat(esc, "\"");
		alone = json_loads(esc, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
		if (!json_is_string(alone))
			bad_json++;
		json_decref(alone);
	}
	free(line);
	fclose(f);
	CU_ASSERT_EQUAL(i, RANDOM_ROUNDS);
	CU_ASSERT_EQUAL(bad_json, 0);
	CU_ASSERT_EQUAL(bad_value, 0);
	CU_ASSERT(clean_seen > 100 && clean_seen < RANDOM_ROUNDS - 100);
	unlink(path);
}

/* ---- hash chain ------------------------------------------------------ */

static void test_hash_chain(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	unsigned char prev[AUDIT_HASH_BYTES] = { 0 }, last[AUDIT_HASH_BYTES];
	unsigned char open_prev[AUDIT_HASH_BYTES];
	AUTO_FREE char *text = NULL;
	char *p, *nl;
	int lines = 0, good = 0;

	tmp_path(path, sizeof(path), "chain");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_INTERVAL, "c", &w) == 0);
	audit_last_hash(w, last);
	CU_ASSERT(sodium_is_zero(last, sizeof(last)));
	for (int i = 0; i < 3; i++) {
		struct audit_rec *r = audit_begin(w, "t");

		audit_int(r, "i", i);
		audit_bytes(r, "p", "x\ny", 3);
		/* The owner of the open record may read the last hash. */
		audit_last_hash(w, last);
		audit_rec_prev_hash(r, open_prev);
		CU_ASSERT(memcmp(last, open_prev, sizeof(last)) == 0);
		CU_ASSERT_EQUAL(audit_commit(r), 0);
	}
	CU_ASSERT_EQUAL(audit_tick(w), 0);
	audit_last_hash(w, last);
	CU_ASSERT_EQUAL(audit_close(w), 0);

	text = slurp(path, NULL);
	CU_ASSERT_FATAL(text != NULL);
	for (p = text; (nl = strchr(p, '\n')); p = nl + 1) {
		char *h = strstr(p, ",\"hash\":\"");
		unsigned char want[AUDIT_HASH_BYTES];
		char hex[2 * AUDIT_HASH_BYTES + 1];

		lines++;
		if (!h)
			continue;
		/* BLAKE2b-256(prev || bytes from '{' up to ,"hash") */
		crypto_generichash_state st;
		crypto_generichash_init(&st, NULL, 0, AUDIT_HASH_BYTES);
		crypto_generichash_update(&st, prev, sizeof(prev));
		crypto_generichash_update(&st, (unsigned char *)p,
					  (size_t)(h - p));
		crypto_generichash_final(&st, want, sizeof(want));
		sodium_bin2hex(hex, sizeof(hex), want, sizeof(want));
		if (strncmp(h + 9, hex, 64) == 0 && strncmp(h + 9 + 64, "\"}\n", 3) == 0)
			good++;
		memcpy(prev, want, sizeof(prev));
	}
	CU_ASSERT_EQUAL(lines, 3);
	CU_ASSERT_EQUAL(good, 3);
	CU_ASSERT(memcmp(prev, last, sizeof(last)) == 0);
	unlink(path);
}

/* ---- write errors ---------------------------------------------------- */

static void test_sticky_enospc(void)
{
	struct audit_writer *w = NULL;
	struct audit_rec *r;
	unsigned char h[AUDIT_HASH_BYTES];

	if (access("/dev/full", W_OK) != 0) {
		CU_FAIL("/dev/full not writable");
		return;
	}
	CU_ASSERT_FATAL(audit_open_path("/dev/full", AUDIT_SYNC_EVERY, "f", &w) == 0);
	r = audit_begin(w, "t");
	audit_int(r, "x", 1);
	CU_ASSERT_EQUAL(audit_commit(r), -ENOSPC);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), -ENOSPC);
	CU_ASSERT_EQUAL(audit_tick(w), -ENOSPC);
	/* The failed records are not in the trail. */
	CU_ASSERT_EQUAL(audit_last_seq(w), 0);
	audit_last_hash(w, h);
	CU_ASSERT(sodium_is_zero(h, sizeof(h)));
	CU_ASSERT_EQUAL(audit_close(w), -ENOSPC);
}

static void test_sticky_epipe(void)
{
	struct audit_writer *w = NULL;
	int p[2];
	char buf[4096];

	/* SIGPIPE is ignored in main(), as the supervisor does. */
	CU_ASSERT_FATAL(pipe2(p, O_CLOEXEC) == 0);
	CU_ASSERT_FATAL(audit_open_fd(p[1], AUDIT_SYNC_EVERY, "p", &w) == 0);
	/* fdatasync on a pipe gives EINVAL, which is no error. */
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), 0);
	CU_ASSERT_EQUAL(audit_last_seq(w), 1);
	CU_ASSERT(read(p[0], buf, sizeof(buf)) > 0);
	close(p[0]);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), -EPIPE);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), -EPIPE);
	CU_ASSERT_EQUAL(audit_last_seq(w), 1);
	CU_ASSERT_EQUAL(audit_close(w), -EPIPE);
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Lines (whole records) in the file. */
static uint64_t file_lines(const char *path)
{
	size_t len = 0;
	AUTO_FREE char *text = slurp(path, &len);
	uint64_t n = 0;

	for (size_t i = 0; text && i < len; i++)
		n += text[i] == '\n';
	return n;
}

/*
 * Open a writer on a new file at path: with map, by path (a regular file
 * open O_RDWR: the map sink); without, on an O_WRONLY | O_APPEND fd, which
 * the writer can only write(2) to.
 */
static int open_sink(const char *path, bool map, const char *run,
		     struct audit_writer **w)
{
	int fd, rc;

	if (map)
		return audit_open_path(path, AUDIT_SYNC_NONE, run, w);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = audit_open_fd(fd, AUDIT_SYNC_NONE, run, w);
	if (rc < 0)
		close(fd);
	return rc;
}

/*
 * RLIMIT_FSIZE met while records are written.  write(2) writes what fits,
 * so part of a line remains after the last whole record; the map sink
 * reserves each line whole before it copies it, so the trail just ends
 * after the last whole record (and close cuts the reserved space off).
 * Either way the error is sticky and the trail reads as truncated after
 * the last record the writer counted.  The map sink reserves space at
 * open, so its limit is set before (as prlimit does for sysgate).
 */
static void efbig_round(bool map)
{
	char path[128], why[WHY_LEN], want[WHY_LEN];
	struct audit_writer *w = NULL;
	struct rlimit saved, small;
	int rc = 0, n = 0;
	size_t len = 0;
	AUTO_FREE char *text = NULL;
	uint64_t seq;

	/* SIGXFSZ is ignored in main(), as the supervisor does. */
	tmp_path(path, sizeof(path), map ? "efbig-map" : "efbig");
	CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &saved) == 0);
	small = saved;
	small.rlim_cur = 1000;
	if (map)
		CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &small) == 0);
	CU_ASSERT_FATAL(open_sink(path, map, "big", &w) == 0);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &small) == 0);
	while (rc == 0 && n++ < 100) {
		struct audit_rec *r = audit_begin(w, "t");

		audit_str(r, "pad", "0123456789012345678901234567890123456789");
		rc = audit_commit(r);
	}
	CU_ASSERT_EQUAL(rc, -EFBIG);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), -EFBIG);
	seq = audit_last_seq(w);
	CU_ASSERT(seq >= 3 && seq < 10);
	CU_ASSERT_EQUAL(audit_close(w), -EFBIG);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &saved) == 0);

	text = slurp(path, &len);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT(len <= 1000);
	if (map) {
		/* Whole lines only, and no reserved zero bytes left. */
		CU_ASSERT(len > 0 && text[len - 1] == '\n');
		CU_ASSERT_EQUAL(file_lines(path), seq);
		snprintf(want, sizeof(want),
			 "truncated after record %llu (no run.end)",
			 (unsigned long long)seq);
	} else {
		/* The short write left part of the next line. */
		CU_ASSERT_EQUAL(len, 1000);
		snprintf(want, sizeof(want), "truncated after record %llu: "
			 "line %llu is incomplete (no newline)",
			 (unsigned long long)seq, (unsigned long long)seq + 1);
	}
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)),
			-EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, want);
	unlink(path);
}

static void test_sticky_efbig(void)
{
	efbig_round(false);
	efbig_round(true);
}

/* Once warm, building and writing a record allocates nothing. */
static void test_no_alloc_when_warm(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	unsigned long before;
	int failures = 0;

	tmp_path(path, sizeof(path), "warm");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_INTERVAL, "w", &w) == 0);
	for (int i = 0; i < 200; i++) {
		struct audit_rec *r;

		if (i == 100)
			before = alloc_calls;
		r = audit_begin(w, "syscall");
		audit_int(r, "pid", i);
		audit_obj_begin(r, "args");
		audit_bytes(r, "path", "/etc/\xffpasswd", 12);
		audit_hex(r, "flags", 0x80000);
		audit_arr_begin(r, "argv");
		for (int j = 0; j < 40; j++)
			audit_str(r, NULL, "argument");
		audit_arr_end(r);
		audit_obj_end(r);
		if (audit_commit(r) != 0)
			failures++;
		audit_tick(w);
	}
	CU_ASSERT_EQUAL(alloc_calls - before, 0);
	CU_ASSERT_EQUAL(failures, 0);
	/* The counter does count (else the check above proves nothing). */
	before = alloc_calls;
	{
		void *volatile p = malloc(1);

		free(p);
	}
	CU_ASSERT_EQUAL(alloc_calls - before, 1);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	unlink(path);
}

/* ---- threads --------------------------------------------------------- */

/* What the verifier says of a good trail whose one run does not begin with
 * run.start (so names no run before it), as these tests write them. */
#define NOTE_NO_RUN_START \
	"note: 1 of 1 runs written before runs were chained (no " \
	"prev_run_hash), each verified on its own: a whole run of these " \
	"dropped or reordered would not be seen"

/* End the run (run.end), close the writer: the trail at path verifies,
 * and ends with the writer's last hash (what sysgate run prints). */
static void end_close_verify(struct audit_writer *w, const char *path)
{
	struct audit_rec *r = audit_begin(w, "run.end");
	unsigned char want[AUDIT_HASH_BYTES], got[AUDIT_HASH_BYTES];
	char why[WHY_LEN];

	audit_put_final(r, NULL);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	audit_last_hash(w, want);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(why, NOTE_NO_RUN_START);
	memset(got, 0, sizeof(got));
	CU_ASSERT_EQUAL(audit_verify_path_last(path, NULL, got, why,
					       sizeof(why)), 0);
	CU_ASSERT_EQUAL(memcmp(got, want, sizeof(got)), 0);
	CU_ASSERT(!sodium_is_zero(got, sizeof(got)));
}

static void *thread_writer(void *arg)
{
	struct audit_writer *w = arg;
	long failures = 0;

	for (int i = 0; i < RECORDS_PER_THREAD; i++) {
		struct audit_rec *r = audit_begin(w, "syscall");

		audit_int(r, "i", i);
		audit_obj_begin(r, "args");
		audit_bytes(r, "path", "/tmp/x", 6);
		audit_arr_begin(r, "list");
		for (int j = 0; j < i % 5; j++)
			audit_int(r, NULL, j);
		audit_arr_end(r);
		audit_obj_end(r);
		if (audit_commit(r) != 0)
			failures++;
	}
	return (void *)failures;
}

static void test_threads(void)
{
	char path[128], why[WHY_LEN];
	struct audit_writer *w = NULL;
	pthread_t t[THREADS];
	struct audit_rec *r;
	long failures = 0;

	tmp_path(path, sizeof(path), "threads");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "thr", &w) == 0);
	for (int i = 0; i < THREADS; i++)
		CU_ASSERT_FATAL(pthread_create(&t[i], NULL, thread_writer, w) == 0);
	for (int i = 0; i < THREADS; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		failures += (long)ret;
	}
	CU_ASSERT_EQUAL(failures, 0);
	r = audit_begin(w, "run.end");
	audit_put_final(r, NULL);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	CU_ASSERT_EQUAL(audit_last_seq(w), THREADS * RECORDS_PER_THREAD + 1);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(why, NOTE_NO_RUN_START);
	unlink(path);
}

/*
 * Records are built without the writer's lock.  One thread keeps a record
 * open while another begins, builds and commits one; the second takes the
 * first place in the chain, the one committed first.  And a record whose
 * place was named (audit_rec_seq) keeps it: the other thread's commit
 * waits for it.
 */
struct side {
	struct audit_writer *w;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stage;		/* 1: about to commit, 2: committed */
	int rc;
	uint64_t seq;
};

static void *side_writer(void *arg)
{
	struct side *sd = arg;
	struct audit_rec *r = audit_begin(sd->w, "side");
	uint64_t seq = 0;
	int rc;

	audit_int(r, "n", 1);
	pthread_mutex_lock(&sd->mu);
	sd->stage = 1;
	pthread_cond_broadcast(&sd->cv);
	pthread_mutex_unlock(&sd->mu);
	rc = audit_commit_seq(r, &seq);
	pthread_mutex_lock(&sd->mu);
	sd->stage = 2;
	sd->rc = rc;
	sd->seq = seq;
	pthread_cond_broadcast(&sd->cv);
	pthread_mutex_unlock(&sd->mu);
	return NULL;
}

/* Wait (at most 20 s: only a hang reaches it) for sd->stage >= stage. */
static bool side_reached(struct side *sd, int stage)
{
	struct timespec until;
	bool ok = true;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 20;
	pthread_mutex_lock(&sd->mu);
	while (sd->stage < stage && ok)
		ok = pthread_cond_timedwait(&sd->cv, &sd->mu, &until) == 0 ||
		     sd->stage >= stage;
	ok = sd->stage >= stage;
	pthread_mutex_unlock(&sd->mu);
	return ok;
}

/* Is line number seq (from 1) of text the record seq, of that type? */
static bool seq_line_has(const char *text, int seq, const char *type)
{
	char head[32], want[64];
	const char *nl;

	for (int i = 1; i < seq && text; i++)
		text = (nl = strchr(text, '\n')) ? nl + 1 : NULL;
	if (!text || !(nl = strchr(text, '\n')))
		return false;
	snprintf(head, sizeof(head), "{\"seq\":%d,", seq);
	snprintf(want, sizeof(want), ",\"type\":\"%s\",", type);
	return strncmp(text, head, strlen(head)) == 0 &&
	       memmem(text, (size_t)(nl - text), want, strlen(want)) != NULL;
}

static void test_threads_build_apart(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	struct side sd = { .mu = PTHREAD_MUTEX_INITIALIZER,
			   .cv = PTHREAD_COND_INITIALIZER };
	struct audit_rec *r;
	uint64_t seq = 0;
	pthread_t t;
	char *text;

	tmp_path(path, sizeof(path), "apart");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_INTERVAL, "apart",
					&w) == 0);
	sd.w = w;

	/* An open record does not hold the other thread up. */
	r = audit_begin(w, "first-begun");
	audit_int(r, "n", 0);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, side_writer, &sd) == 0);
	CU_ASSERT(side_reached(&sd, 2));
	audit_int(r, "m", 0);
	CU_ASSERT_EQUAL(audit_commit_seq(r, &seq), 0);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(sd.rc, 0);
	CU_ASSERT_EQUAL(sd.seq, 1);
	CU_ASSERT_EQUAL(seq, 2);

	/* A pinned record keeps its place: seq 3 is this one. */
	sd.stage = 0;
	r = audit_begin(w, "pinned");
	CU_ASSERT_EQUAL(audit_rec_seq(r), 3);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, side_writer, &sd) == 0);
	CU_ASSERT(side_reached(&sd, 1));
	/* Give the other commit time to go wrong, were it not held. */
	usleep(20000);
	pthread_mutex_lock(&sd.mu);
	CU_ASSERT_EQUAL(sd.stage, 1);
	pthread_mutex_unlock(&sd.mu);
	audit_int(r, "n", 3);
	CU_ASSERT_EQUAL(audit_commit_seq(r, &seq), 0);
	CU_ASSERT_EQUAL(seq, 3);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(sd.rc, 0);
	CU_ASSERT_EQUAL(sd.seq, 4);

	end_close_verify(w, path);
	text = slurp(path, NULL);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT(seq_line_has(text, 1, "side"));
	CU_ASSERT(seq_line_has(text, 2, "first-begun"));
	CU_ASSERT(seq_line_has(text, 3, "pinned"));
	CU_ASSERT(seq_line_has(text, 4, "side"));
	free(text);
	unlink(path);
}

/*
 * --audit-sync interval: once the interval has passed, audit_tick() (the
 * supervisor's loop) starts the writer's own thread, which syncs the trail
 * from then on: the ticking thread never waits for the disk.  Its failure
 * is sticky like any other.
 */
static bool tick_until_synced(struct audit_writer *w, unsigned long above)
{
	/* 10 s: only a writer that never syncs reaches it. */
	for (int i = 0; i < 1000; i++) {
		audit_tick(w);
		if (__atomic_load_n(&sync_calls, __ATOMIC_SEQ_CST) > above)
			return true;
		usleep(10000);
	}
	return false;
}

static void test_interval_syncer(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	struct audit_rec *r;
	unsigned long before;
	int rc = 0;

	tmp_path(path, sizeof(path), "syncer");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_INTERVAL, "sy",
					&w) == 0);
	before = __atomic_load_n(&sync_calls, __ATOMIC_SEQ_CST);
	r = audit_begin(w, "t");
	audit_int(r, "i", 1);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	CU_ASSERT(tick_until_synced(w, before));
	CU_ASSERT_NOT_EQUAL(__atomic_load_n(&sync_tid, __ATOMIC_SEQ_CST),
			    gettid());
	/* Then without audit_tick(). */
	before = __atomic_load_n(&sync_calls, __ATOMIC_SEQ_CST);
	r = audit_begin(w, "t");
	audit_int(r, "i", 2);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	for (int i = 0; i < 1000 &&
	     __atomic_load_n(&sync_calls, __ATOMIC_SEQ_CST) == before; i++)
		usleep(10000);
	CU_ASSERT(__atomic_load_n(&sync_calls, __ATOMIC_SEQ_CST) > before);
	CU_ASSERT_NOT_EQUAL(__atomic_load_n(&sync_tid, __ATOMIC_SEQ_CST),
			    gettid());

	/* A failing sync: the next commits and ticks return its error. */
	__atomic_store_n(&fail_sync, EIO, __ATOMIC_SEQ_CST);
	before = __atomic_load_n(&sync_calls, __ATOMIC_SEQ_CST);
	r = audit_begin(w, "t");
	audit_int(r, "i", 3);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	CU_ASSERT(tick_until_synced(w, before));
	for (int i = 0; i < 1000 && (rc = audit_tick(w)) == 0; i++)
		usleep(10000);
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), -EIO);
	__atomic_store_n(&fail_sync, 0, __ATOMIC_SEQ_CST);
	CU_ASSERT_EQUAL(audit_close(w), -EIO);
	/* The records were written whole before the failed sync. */
	CU_ASSERT_EQUAL(file_lines(path), 3);
	unlink(path);
}

/* ---- fast paths: escaping and numbers ---------------------------------- */

/* audit_esc_fast gives exactly audit_escape's bytes, and lossy is exactly
 * !audit_utf8_clean, for the table and for specials at every place of the
 * 8- and 4-byte words; it writes nothing past its room (6 bytes a byte). */
static bool esc_fast_agrees(const unsigned char *in, size_t len)
{
	static char want[6 * 256 + 1], got[6 * 256 + 64];
	size_t wn, gn;
	bool lossy = !audit_utf8_clean(in, len);

	if (len > 256)
		return false;
	wn = audit_escape(want, sizeof(want), in, len);
	memset(got, 0x55, sizeof(got));
	gn = audit_esc_fast(got, in, len, &lossy);
	for (size_t i = 6 * len; i < sizeof(got); i++)
		if (got[i] != 0x55)
			return false;
	return wn == gn && memcmp(want, got, gn) == 0 &&
	       lossy == !audit_utf8_clean(in, len);
}

static void test_esc_fast(void)
{
	static const unsigned char specials[] = {
		0x00, 0x01, 0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x1f, 0x20, '"',
		'\\', '/', 0x7e, 0x7f, 0x80, 0xbf, 0xc0, 0xc3, 0xe2, 0xed,
		0xf0, 0xf4, 0xf5, 0xff,
	};
	unsigned char buf[256];
	int bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(esc_cases); i++)
		if (!esc_fast_agrees((const unsigned char *)esc_cases[i].in,
				     esc_cases[i].in_len))
			bad++;
	/* One special byte (or a UTF-8 sequence, whole or cut by the end)
	 * at each place of plain runs of 0..24 bytes. */
	for (size_t len = 0; len <= 24; len++)
		for (size_t at = 0; at < len; at++)
			for (size_t k = 0; k < sizeof(specials); k++) {
				memset(buf, 'a', len);
				buf[at] = specials[k];
				if (!esc_fast_agrees(buf, len))
					bad++;
				if (at + 2 < len) {
					memcpy(buf + at, "\xe2\x82\xac", 3);
					if (!esc_fast_agrees(buf, len) ||
					    !esc_fast_agrees(buf, at + 2))
						bad++;
				}
			}
	/* Two of them at every two places: the scan goes on after an
	 * escape in the middle of a word. */
	for (size_t len = 0; len <= 20; len++)
		for (size_t a = 0; a < len; a++)
			for (size_t b = a + 1; b < len; b++)
				for (size_t k = 0; k < sizeof(specials); k++) {
					memset(buf, 'a', len);
					buf[a] = specials[k];
					buf[b] = specials[(k + 5) % sizeof(specials)];
					if (!esc_fast_agrees(buf, len))
						bad++;
				}
	/* Random bytes, some long. */
	srand(777);
	for (int round = 0; round < 5000; round++) {
		size_t len = random_bytes(buf, round % 10 ? 40 : 255);

		if (!esc_fast_agrees(buf, len))
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static char num_want[4096];

static void fill_numbers(struct audit_rec *r)
{
	static const int64_t ints[] = {
		0, 1, -1, 9, 10, -10, 99, 100, 999, 1000, 12345, -99999,
		INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, 999999999999LL,
		1000000000000000000LL, INT64_MAX - 1, INT64_MAX, INT64_MIN + 1,
		INT64_MIN,
	};
	static const uint64_t uints[] = {
		0, 7, 10, 99, 100, UINT32_MAX, 10000000000000000000ULL - 1,
		(uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1,
		10000000000000000000ULL, UINT64_MAX - 1, UINT64_MAX,
	};
	static const uint64_t hexes[] = {
		0, 1, 0xf, 0x10, 0x1f, 0xdeadbeef, 0x80000000, INT64_MAX,
		(uint64_t)INT64_MAX + 1, UINT64_MAX,
	};
	size_t n = 0;
	char key[16];

	audit_arr_begin(r, "i");
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++)
		audit_int(r, NULL, ints[i]);
	audit_arr_end(r);
	n += (size_t)snprintf(num_want + n, sizeof(num_want) - n, ",\"i\":[");
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++)
		n += (size_t)snprintf(num_want + n, sizeof(num_want) - n,
				      "%s%" PRId64, i ? "," : "", ints[i]);
	n += (size_t)snprintf(num_want + n, sizeof(num_want) - n, "]");
	for (size_t i = 0; i < ARRAY_SIZE(uints); i++) {
		snprintf(key, sizeof(key), "u%zu", i);
		audit_uint(r, key, uints[i]);
		n += (size_t)snprintf(num_want + n, sizeof(num_want) - n,
				      uints[i] > INT64_MAX ? ",\"%s\":\"%" PRIu64 "\""
							   : ",\"%s\":%" PRIu64,
				      key, uints[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(hexes); i++) {
		snprintf(key, sizeof(key), "h%zu", i);
		audit_hex(r, key, hexes[i]);
		n += (size_t)snprintf(num_want + n, sizeof(num_want) - n,
				      ",\"%s\":\"0x%" PRIx64 "\"", key, hexes[i]);
	}
}

static void test_numbers(void)
{
	int rc = -1;
	AUTO_FREE char *line = one_record(fill_numbers, &rc);
	AUTO_FREE char *fields = NULL;
	json_t *root;

	CU_ASSERT_FATAL(line != NULL);
	CU_ASSERT_EQUAL(rc, 0);
	fields = fields_of(line);
	CU_ASSERT_FATAL(fields != NULL);
	CU_ASSERT_STRING_EQUAL(fields, num_want);
	/* Spot checks of the edges, spelled out. */
	CU_ASSERT_PTR_NOT_NULL(strstr(fields, ",-9223372036854775808]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fields, "[0,1,-1,9,10,-10,99,100,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fields, "\"u11\":\"18446744073709551615\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(fields, "\"u7\":9223372036854775807,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fields, "\"u8\":\"9223372036854775808\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(fields, "\"h0\":\"0x0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(fields, "\"h9\":\"0xffffffffffffffff\""));
	root = parse_line(line);
	CU_ASSERT_FATAL(root != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_array_get(
				json_object_get(root, "i"), 20)), INT64_MIN);
	json_decref(root);
}

/* ---- the map sink ------------------------------------------------------- */

/* n records with a counter in them. */
static void write_n(struct audit_writer *w, int n)
{
	for (int i = 0; i < n; i++) {
		struct audit_rec *r = audit_begin(w, "t");

		audit_int(r, "i", i);
		CU_ASSERT_EQUAL(audit_commit(r), 0);
	}
}

static void end_run(struct audit_writer *w)
{
	struct audit_rec *r = audit_begin(w, "run.end");

	audit_put_final(r, NULL);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
}

/*
 * A trail written through the map: while it is written the file ends with
 * the reserved zero bytes, and readers and the verifier stop before them;
 * once closed it holds exactly its lines.
 */
static void test_map_reserved_tail(void)
{
	char path[128], why[WHY_LEN];
	struct audit_writer *w = NULL;
	struct audit_reader *rd = NULL;
	struct json_t *rec;
	AUTO_FREE char *text = NULL;
	size_t len = 0;
	int n = 0, r;

	tmp_path(path, sizeof(path), "map");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "m", &w) == 0);
	write_n(w, 100);
	/* Space reserved ahead: the file is longer than its records. */
	text = slurp(path, &len);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT(len > 100 * 20);
	CU_ASSERT_EQUAL(file_lines(path), 100);
	CU_ASSERT(text[len - 1] == '\0');
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), -EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "truncated after record 100 (no run.end)");
	CU_ASSERT_FATAL(audit_reader_open_path(path, &rd) == 0);
	while ((r = audit_reader_next(rd, &rec)) == 1)
		n++;
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(n, 100);
	audit_reader_free(rd);
	end_run(w);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	free(text);
	text = slurp(path, &len);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT(len > 0 && text[len - 1] == '\n');
	CU_ASSERT_EQUAL(memchr(text, '\0', len), NULL);
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), 0);
	unlink(path);
}

/*
 * A trail much longer than the mapped window (2 MiB) and the reserved
 * chunks (256 KiB): the window moves, chunks are added, and every record
 * is there, whole and in order, once closed; a record of nearly a
 * megabyte (the longest line is 1 MiB) fits wherever it falls.
 */
static void test_map_long_trail(void)
{
	static char pad[300], big[900 * 1024];
	char path[128], why[WHY_LEN];
	struct audit_writer *w = NULL;
	int i;

	memset(pad, 'p', sizeof(pad) - 1);
	memset(big, 'b', sizeof(big) - 1);
	tmp_path(path, sizeof(path), "map-long");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "l", &w) == 0);
	for (i = 0; i < 20000; i++) {
		struct audit_rec *r = audit_begin(w, "t");

		audit_int(r, "i", i);
		audit_str(r, "pad", i % 5000 == 4999 ? big : pad);
		if (audit_commit(r) != 0)
			break;
	}
	CU_ASSERT_EQUAL(i, 20000);
	end_run(w);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	CU_ASSERT(file_size(path) > 8 * 1024 * 1024);
	CU_ASSERT_EQUAL(file_lines(path), 20001);
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), 0);
	unlink(path);
}

/*
 * A writer that dies without audit_close() (the supervisor SIGKILLed)
 * leaves every committed record and the zero bytes after them; the trail
 * reads as truncated after its last record, and the next writer of the
 * file writes its run right after that record, over the zeros.
 */
static void test_map_writer_dies(void)
{
	char path[128], why[WHY_LEN];
	struct audit_writer *w = NULL;
	AUTO_FREE char *text = NULL;
	size_t len = 0, first_len;
	int status = 0;
	pid_t pid;
	char *nul;

	tmp_path(path, sizeof(path), "map-dies");
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		if (audit_open_path(path, AUDIT_SYNC_NONE, "d", &w) != 0)
			_exit(1);
		write_n(w, 50);
		raise(SIGKILL);
		_exit(2);
	}
	CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	text = slurp(path, &len);
	CU_ASSERT_FATAL(text != NULL);
	nul = memchr(text, '\0', len);
	CU_ASSERT_FATAL(nul != NULL);
	first_len = (size_t)(nul - text);
	CU_ASSERT(first_len > 0 && text[first_len - 1] == '\n');
	CU_ASSERT_EQUAL(file_lines(path), 50);
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), -EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "truncated after record 50 (no run.end)");

	/* The next run starts right after record 50, and the file ends with
	 * its run.end. */
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "e", &w) == 0);
	write_n(w, 3);
	end_run(w);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	free(text);
	text = slurp(path, &len);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT_EQUAL(memchr(text, '\0', len), NULL);
	CU_ASSERT(len > first_len &&
		  strncmp(text + first_len, "{\"seq\":1,", 9) == 0);
	CU_ASSERT_EQUAL(file_lines(path), 54);
	unlink(path);
}

/*
 * Another process truncates the trail under the writer (a tree the policy
 * lets write it): the copy into the vanished pages is a SIGBUS, which the
 * writer turns into the sticky error -EIO instead of dying of it.
 */
static void test_map_truncated_under(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	struct audit_rec *r;

	tmp_path(path, sizeof(path), "map-trunc");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "t", &w) == 0);
	write_n(w, 10);
	CU_ASSERT_FATAL(truncate(path, 0) == 0);
	r = audit_begin(w, "t");
	audit_int(r, "after", 1);
	CU_ASSERT_EQUAL(audit_commit(r), -EIO);
	CU_ASSERT_EQUAL(audit_last_seq(w), 10);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), -EIO);
	CU_ASSERT_EQUAL(audit_close(w), -EIO);
	unlink(path);
}

/*
 * Two writers of one file would write over each other's records: the
 * second is refused (-EBUSY), through a path or an fd, while the first
 * has it open.  Bytes another process appends past the reserved space
 * stay after the records, where the verifier finds them.
 */
static void test_map_one_writer(void)
{
	static const char junk[] = "JUNK appended by somebody else\n";
	char path[128], why[WHY_LEN];
	struct audit_writer *w = NULL, *w2 = NULL;
	int fd;

	tmp_path(path, sizeof(path), "map-busy");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "a", &w) == 0);
	CU_ASSERT_EQUAL(audit_open_path(path, AUDIT_SYNC_NONE, "b", &w2), -EBUSY);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(audit_open_fd(fd, AUDIT_SYNC_NONE, "c", &w2), -EBUSY);
	write_n(w, 5);
	CU_ASSERT_EQUAL(write(fd, junk, sizeof(junk) - 1),
			(ssize_t)(sizeof(junk) - 1));
	close(fd);
	end_run(w);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), -EBADMSG);
	CU_ASSERT(strstr(why, "line 7") != NULL);
	/* Closed: the lock is free for the next writer, but the file no
	 * longer ends with a record, so a run appended to it could not name
	 * the run before it: refused. */
	CU_ASSERT_EQUAL(audit_open_path(path, AUDIT_SYNC_NONE, "d", &w2),
			-EBADMSG);
	unlink(path);
}

/* ---- group commit and batches ----------------------------------------- */

static void test_batch(void)
{
	char path[128];
	struct audit_writer *w = NULL;
	struct audit_rec *r;
	unsigned long before = 0, own;
	unsigned char h[AUDIT_HASH_BYTES], open_prev[AUDIT_HASH_BYTES];

	tmp_path(path, sizeof(path), "batch");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_EVERY, "b", &w) == 0);
	CU_ASSERT_EQUAL(audit_batch_end(w), -EINVAL);	/* no batch */
	CU_ASSERT_EQUAL(audit_batch_begin(NULL), -EINVAL);
	CU_ASSERT_EQUAL(audit_batch_end(NULL), -EINVAL);

	for (int round = 0; round < 3; round++) {
		if (round == 2)
			before = alloc_calls;
		CU_ASSERT_EQUAL_FATAL(audit_batch_begin(w), 0);
		CU_ASSERT_EQUAL(audit_batch_begin(w), -EINVAL); /* no nesting */
		for (int i = 0; i < 5; i++) {
			r = audit_begin(w, "syscall");
			CU_ASSERT_EQUAL(audit_rec_seq(r),
					(uint64_t)round * 6 + (uint64_t)i + 1);
			/* Each chains to the one committed before it, which
			 * is not in the file yet. */
			audit_last_hash(w, h);
			audit_rec_prev_hash(r, open_prev);
			CU_ASSERT(memcmp(h, open_prev, sizeof(h)) == 0);
			audit_int(r, "i", i);
			audit_bytes(r, "path", "/etc/\xffpasswd", 12);
			CU_ASSERT_EQUAL(audit_commit(r), 0);
		}
		/* A builder error drops that record only. */
		r = audit_begin(w, "syscall");
		audit_int(r, "k", 1);
		audit_int(r, "k", 2);
		CU_ASSERT_EQUAL(audit_commit(r), -EINVAL);
		/* Aborted records leave no trace either. */
		audit_abort(audit_begin(w, "aborted"));
		/* Nothing is in the file before audit_batch_end().  (The
		 * test's own reading allocates: not counted.) */
		own = alloc_calls;
		CU_ASSERT_EQUAL(file_lines(path), (uint64_t)round * 6);
		before += alloc_calls - own;
		r = audit_begin(w, "syscall");
		CU_ASSERT_EQUAL(audit_batch_begin(w), -EINVAL); /* record open */
		CU_ASSERT_EQUAL(audit_commit(r), 0);
		CU_ASSERT_EQUAL(audit_batch_end(w), 0);
		own = alloc_calls;
		CU_ASSERT_EQUAL(file_lines(path), (uint64_t)round * 6 + 6);
		before += alloc_calls - own;
		CU_ASSERT_EQUAL(audit_last_seq(w), (uint64_t)round * 6 + 6);
	}
	/* Warm: a batch allocates nothing. */
	CU_ASSERT_EQUAL(alloc_calls - before, 0);

	/* A record left open at the end is dropped and fails the batch;
	 * the records committed before it are written. */
	CU_ASSERT_EQUAL_FATAL(audit_batch_begin(w), 0);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "kept")), 0);
	r = audit_begin(w, "left-open");
	audit_int(r, "x", 1);
	CU_ASSERT_EQUAL(audit_batch_end(w), -EINVAL);
	CU_ASSERT_EQUAL(audit_last_seq(w), 19);
	CU_ASSERT_EQUAL(file_lines(path), 19);
	/* An empty batch is fine. */
	CU_ASSERT_EQUAL(audit_batch_begin(w), 0);
	CU_ASSERT_EQUAL(audit_batch_end(w), 0);

	end_close_verify(w, path);
	{
		AUTO_FREE char *text = slurp(path, NULL);

		CU_ASSERT_FATAL(text != NULL);
		CU_ASSERT_PTR_NULL(strstr(text, "aborted"));
		CU_ASSERT_PTR_NULL(strstr(text, "left-open"));
		CU_ASSERT_PTR_NULL(strstr(text, "\"k\""));
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"type\":\"kept\""));
	}
	unlink(path);
}

/*
 * A batch cut by the file size limit in its fourth record: the three whole
 * ones count, the chain ends with the third, and the trail reads as
 * truncated after it (write(2): with part of the fourth line after it; the
 * map sink: with nothing after it).
 */
static void batch_efbig_round(bool map)
{
	char path[128], why[WHY_LEN], want[WHY_LEN], hex[2 * AUDIT_HASH_BYTES + 1];
	struct audit_writer *w = NULL;
	struct rlimit saved, small;
	unsigned char h[AUDIT_HASH_BYTES];
	AUTO_FREE char *text = NULL;
	char *line, *nl;
	size_t len = 0;
	uint64_t seq;

	CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &saved) == 0);
	small = saved;
	{
		/* Every line has the same length: measure one (a record
		 * alone in another file) and let 3.5 of them through. */
		char probe[128];
		struct audit_writer *pw = NULL;
		struct audit_rec *r;

		tmp_path(probe, sizeof(probe), "probe");
		CU_ASSERT_FATAL(audit_open_path(probe, AUDIT_SYNC_NONE, "big", &pw) == 0);
		r = audit_begin(pw, "t");
		audit_str(r, "pad", "0123456789012345678901234567890123456789");
		CU_ASSERT_EQUAL(audit_commit(r), 0);
		CU_ASSERT_EQUAL(audit_close(pw), 0);
		small.rlim_cur = (rlim_t)(file_size(probe) * 7 / 2);
		unlink(probe);
	}
	tmp_path(path, sizeof(path), map ? "batch-efbig-map" : "batch-efbig");
	/* The map sink reserves space at open: its limit comes first. */
	if (map)
		CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &small) == 0);
	CU_ASSERT_FATAL(open_sink(path, map, "big", &w) == 0);
	CU_ASSERT_FATAL(audit_batch_begin(w) == 0);
	for (int i = 0; i < 10; i++) {
		struct audit_rec *r = audit_begin(w, "t");

		audit_str(r, "pad", "0123456789012345678901234567890123456789");
		CU_ASSERT_EQUAL(audit_commit(r), 0);
	}
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &small) == 0);
	CU_ASSERT_EQUAL(audit_batch_end(w), -EFBIG);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &saved) == 0);
	seq = audit_last_seq(w);
	CU_ASSERT_EQUAL(seq, 3);
	audit_last_hash(w, h);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), -EFBIG);
	CU_ASSERT_EQUAL(audit_close(w), -EFBIG);
	text = slurp(path, &len);
	CU_ASSERT_FATAL(text != NULL);
	/* The chain's head is the hash written in the third line. */
	line = text;
	for (int i = 0; i < 2 && line; i++)
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
	CU_ASSERT_FATAL(line != NULL);
	nl = strchr(line, '\n');
	CU_ASSERT_FATAL(nl != NULL && nl - line > 66);
	sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
	CU_ASSERT(strncmp(nl - 66, hex, 64) == 0);
	if (map) {
		CU_ASSERT_EQUAL((size_t)(nl + 1 - text), len);
		snprintf(want, sizeof(want),
			 "truncated after record 3 (no run.end)");
	} else {
		CU_ASSERT((size_t)(nl + 1 - text) < len);
		snprintf(want, sizeof(want), "truncated after record 3: "
			 "line 4 is incomplete (no newline)");
	}
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), -EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, want);
	unlink(path);
}

static void test_batch_errors(void)
{
	struct audit_writer *w = NULL;
	unsigned char h[AUDIT_HASH_BYTES];

	if (access("/dev/full", W_OK) != 0) {
		CU_FAIL("/dev/full not writable");
		return;
	}
	/* The write of the batch fails: no record of it counts, and the
	 * error is sticky for the next batch's commits and end too. */
	CU_ASSERT_FATAL(audit_open_path("/dev/full", AUDIT_SYNC_NONE, "f", &w) == 0);
	CU_ASSERT_FATAL(audit_batch_begin(w) == 0);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), 0);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), 0);
	CU_ASSERT_EQUAL(audit_last_seq(w), 2);
	CU_ASSERT_EQUAL(audit_batch_end(w), -ENOSPC);
	CU_ASSERT_EQUAL(audit_last_seq(w), 0);
	audit_last_hash(w, h);
	CU_ASSERT(sodium_is_zero(h, sizeof(h)));
	CU_ASSERT_FATAL(audit_batch_begin(w) == 0);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), -ENOSPC);
	CU_ASSERT_EQUAL(audit_batch_end(w), -ENOSPC);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "t")), -ENOSPC);
	CU_ASSERT_EQUAL(audit_close(w), -ENOSPC);

	batch_efbig_round(false);
	batch_efbig_round(true);
}

/* Group commit: each thread checks, as soon as its commit returns, that
 * its record is in the file: the guarantee the supervisor relies on. */
struct gc_arg {
	struct audit_writer *w;
	const char *path;
	int fd;		/* the trail, read only */
	int batch;	/* 0: single commits; else batches of this many */
	long failures, missing;
};

/* Is the record with this seq (line seq) wholly in the file? */
static bool seq_in_file(int fd, uint64_t seq)
{
	static __thread char buf[1 << 20];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	uint64_t lines = 0;

	for (ssize_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	return lines >= seq;
}

static void *gc_thread(void *arg)
{
	struct gc_arg *a = arg;

	for (int i = 0; i < 60; i++) {
		uint64_t seq = 0;
		int rc = 0;

		if (a->batch && audit_batch_begin(a->w) != 0)
			a->failures++;
		for (int j = 0; j < (a->batch ? a->batch : 1); j++) {
			struct audit_rec *r = audit_begin(a->w, "syscall");

			seq = audit_rec_seq(r);
			audit_int(r, "i", i);
			audit_bytes(r, "path", "/tmp/x", 6);
			if (audit_commit(r) != 0)
				rc = -1;
		}
		if (a->batch && audit_batch_end(a->w) != 0)
			rc = -1;
		if (rc != 0)
			a->failures++;
		else if (!seq_in_file(a->fd, seq))
			a->missing++;
		audit_tick(a->w);
	}
	return NULL;
}

static void test_group_commit(void)
{
	static const enum audit_sync modes[] = {
		AUDIT_SYNC_NONE, AUDIT_SYNC_INTERVAL, AUDIT_SYNC_EVERY,
	};

	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		char path[128], why[WHY_LEN];
		struct audit_writer *w = NULL;
		struct gc_arg args[THREADS];
		pthread_t t[THREADS];
		struct audit_rec *r;
		long failures = 0, missing = 0;
		uint64_t want = 0;
		int fd;

		tmp_path(path, sizeof(path), "group");
		CU_ASSERT_FATAL(audit_open_path(path, modes[m], "g", &w) == 0);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		CU_ASSERT_FATAL(fd >= 0);
		for (int i = 0; i < THREADS; i++) {
			/* Two threads commit one at a time, two in batches. */
			args[i] = (struct gc_arg){ .w = w, .path = path,
						   .fd = fd,
						   .batch = i % 2 ? 3 * i : 0 };
			want += 60 * (uint64_t)(args[i].batch ? args[i].batch : 1);
			CU_ASSERT_FATAL(pthread_create(&t[i], NULL, gc_thread,
						       &args[i]) == 0);
		}
		for (int i = 0; i < THREADS; i++) {
			pthread_join(t[i], NULL);
			failures += args[i].failures;
			missing += args[i].missing;
		}
		CU_ASSERT_EQUAL(failures, 0);
		CU_ASSERT_EQUAL(missing, 0);
		CU_ASSERT_EQUAL(audit_last_seq(w), want);
		r = audit_begin(w, "run.end");
		audit_put_final(r, NULL);
		CU_ASSERT_EQUAL(audit_commit(r), 0);
		CU_ASSERT_EQUAL(audit_close(w), 0);
		CU_ASSERT_EQUAL(file_lines(path), want + 1);
		CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), 0);
		CU_ASSERT_STRING_EQUAL(why, NOTE_NO_RUN_START);
		close(fd);
		unlink(path);
	}
}

/* A write error while other threads wait: every commit that was not
 * written returns the error, none returns 0 for a record not in the file,
 * and the trail verifies as truncated after the records written whole. */
struct fail_arg {
	struct audit_writer *w;
	int fd;
	long ok_missing;	/* commits that returned 0, record absent */
	long failed;
};

static void *fail_thread(void *arg)
{
	struct fail_arg *a = arg;

	for (int i = 0; i < 400; i++) {
		struct audit_rec *r = audit_begin(a->w, "t");
		uint64_t seq = audit_rec_seq(r);

		audit_str(r, "pad", "0123456789012345678901234567890123456789");
		if (audit_commit(r) != 0) {
			a->failed++;
			break;
		}
		if (!seq_in_file(a->fd, seq))
			a->ok_missing++;
	}
	return NULL;
}

static void test_group_commit_error(void)
{
	char path[128], why[WHY_LEN], want[WHY_LEN];
	struct audit_writer *w = NULL;
	struct fail_arg args[THREADS];
	pthread_t t[THREADS];
	struct rlimit saved, small;
	long ok_missing = 0, failed = 0;
	uint64_t seq;

	tmp_path(path, sizeof(path), "group-efbig");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "e", &w) == 0);
	CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &saved) == 0);
	small = saved;
	small.rlim_cur = 20000;
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &small) == 0);
	for (int i = 0; i < THREADS; i++) {
		args[i] = (struct fail_arg){ .w = w };
		args[i].fd = open(path, O_RDONLY | O_CLOEXEC);
		CU_ASSERT_FATAL(pthread_create(&t[i], NULL, fail_thread,
					       &args[i]) == 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		ok_missing += args[i].ok_missing;
		failed += args[i].failed;
		close(args[i].fd);
	}
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &saved) == 0);
	CU_ASSERT_EQUAL(ok_missing, 0);
	CU_ASSERT_EQUAL(failed, THREADS);	/* every thread saw it */
	seq = audit_last_seq(w);
	CU_ASSERT(seq > 0 && seq == file_lines(path));
	CU_ASSERT_EQUAL(audit_close(w), -EFBIG);
	snprintf(want, sizeof(want), "truncated after record %llu",
		 (unsigned long long)seq);
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)), -EBADMSG);
	CU_ASSERT(strncmp(why, want, strlen(want)) == 0);
	unlink(path);
}

/* ---- verify: the tamper suite ----------------------------------------- */

/* run.start, syscalls (pid 1000+seq), run.end; TRAIL_RECORDS + 1 lines. */
static int make_trail(const char *path, const char *run,
		      const unsigned char *sk, bool with_end)
{
	struct audit_writer *w = NULL;
	struct audit_rec *r;
	int rc;

	rc = audit_open_path(path, AUDIT_SYNC_NONE, run, &w);
	if (rc < 0)
		return rc;
	r = audit_begin(w, "run.start");
	audit_str(r, "version", "0.1.0");
	audit_arr_begin(r, "argv");
	audit_bytes(r, NULL, "make", 4);
	audit_bytes(r, NULL, "\xff", 1);
	audit_arr_end(r);
	rc = audit_commit(r);
	for (int seq = 2; rc == 0 && seq <= TRAIL_RECORDS; seq++) {
		r = audit_begin(w, "syscall");
		audit_int(r, "pid", 1000 + seq);
		audit_str(r, "syscall", "openat");
		audit_obj_begin(r, "args");
		audit_bytes(r, "path", "/etc/passwd", 11);
		audit_hex(r, "flags", 0x80000);
		audit_obj_end(r);
		audit_str(r, "action", "allow");
		rc = audit_commit(r);
	}
	if (rc == 0 && with_end) {
		r = audit_begin(w, "run.end");
		audit_int(r, "status", 0);
		audit_put_final(r, sk);
		rc = audit_commit(r);
	}
	if (audit_close(w) < 0 && rc == 0)
		rc = -EIO;
	return rc;
}

enum tamper_op {
	T_NONE,
	T_EDIT,		/* in line a, replace from with to */
	T_DELETE,	/* line a */
	T_DELETE2,	/* lines a and a+1 */
	T_SWAP,		/* lines a and b */
	T_MOVE,		/* line a to just after line b */
	T_DUP,		/* line a twice */
	T_FOREIGN,	/* before line a, line a of another trail of this run */
	T_FOREIGN_NEXT,	/* before line a, line a+1 of that other trail */
	T_OTHER_RUN,	/* before line a, line a of a trail of another run */
	T_CUT,		/* keep lines before a and the first b bytes of line a */
	T_APPEND,	/* line a again at the end */
	T_REPLACE,	/* line a becomes the text from */
};

struct tamper_case {
	const char *name;
	enum tamper_op op;
	int a, b;
	const char *from, *to;
	const char *why;
};

static const struct tamper_case tamper_cases[] = {
	{ "untouched", T_NONE, 0, 0, NULL, NULL, "" },
	{ "edit a field", T_EDIT, 7, 0, "\"pid\":1007", "\"pid\":1008",
	  "record 7 (line 7): hash does not match its content: edited" },
	{ "edit the first record", T_EDIT, 1, 0, "0.1.0", "0.1.1",
	  "record 1 (line 1): hash does not match its content: edited" },
	{ "edit a hash", T_EDIT, 9, 0, "\"}", "0\"}",
	  "record 9 (line 9): does not end with a valid \"hash\"" },
	{ "edit breaks JSON", T_EDIT, 7, 0, "\"pid\":1007", "\"pid\":10 07",
	  "record 7 (line 7): not valid JSON" },
	{ "edit run.end", T_EDIT, 21, 0, "\"status\":0", "\"status\":1",
	  "record 21 (line 21): hash does not match its content: edited" },
	{ "delete a line", T_DELETE, 7, 0, NULL, NULL,
	  "record 7 missing: line 7 has seq 8: removed" },
	{ "delete the first line", T_DELETE, 1, 0, NULL, NULL,
	  "record 1 missing: line 1 has seq 2: removed" },
	{ "delete two lines", T_DELETE2, 7, 0, NULL, NULL,
	  "records 7-8 missing: line 7 has seq 9: removed" },
	{ "swap two lines", T_SWAP, 7, 8, NULL, NULL,
	  "line 7: seq 8 comes before seq 7 (line 8): reordered" },
	{ "swap distant lines", T_SWAP, 5, 12, NULL, NULL,
	  "line 5: seq 12 comes before seq 5 (line 12): reordered" },
	{ "move a line down", T_MOVE, 5, 12, NULL, NULL,
	  "line 5: seq 6 comes before seq 5 (line 12): reordered" },
	{ "duplicate a line", T_DUP, 7, 0, NULL, NULL,
	  "line 8: seq 7 after 7: record 7 appears twice: inserted" },
	{ "insert a forged record", T_FOREIGN, 8, 0, NULL, NULL,
	  "line 8: not part of the chain (record 8 at line 9 follows "
	  "record 7): inserted" },
	{ "insert a forged next record", T_FOREIGN_NEXT, 8, 0, NULL, NULL,
	  "line 8: not part of the chain (record 8 at line 9 follows "
	  "record 7): inserted" },
	{ "insert from another run", T_OTHER_RUN, 8, 0, NULL, NULL,
	  "line 8: not part of the chain (record 8 at line 9 follows "
	  "record 7): inserted" },
	{ "cut the last line", T_DELETE, 21, 0, NULL, NULL,
	  "truncated after record 20 (no run.end)" },
	{ "cut mid last line", T_CUT, 21, 40, NULL, NULL,
	  "truncated after record 20: line 21 is incomplete (no newline)" },
	{ "cut mid-file", T_CUT, 10, 30, NULL, NULL,
	  "truncated after record 9: line 10 is incomplete (no newline)" },
	{ "cut at a line end", T_CUT, 10, 0, NULL, NULL,
	  "truncated after record 9 (no run.end)" },
	{ "cut everything", T_CUT, 1, 0, NULL, NULL,
	  "empty trail: no records" },
	{ "append after run.end", T_APPEND, 20, 0, NULL, NULL,
	  "line 22: seq 20 after run.end (record 21): appended" },
	{ "not an object", T_REPLACE, 3, 0, "[1,2,3]", NULL,
	  "record 3 (line 3): not a JSON object" },
	{ "short object", T_REPLACE, 3, 0, "{\"seq\":3}", NULL,
	  "record 3 (line 3): does not end with a valid \"hash\"" },
	{ "empty line", T_REPLACE, 3, 0, "", NULL,
	  "record 3 (line 3): not valid JSON" },
	{ "no seq", T_REPLACE, 3, 0,
	  "{\"ts\":\"x\",\"hash\":\"00000000000000000000000000000000"
	  "00000000000000000000000000000000\"}", NULL,
	  "record 3 (line 3): no valid \"seq\"" },
};

/* The trail as an array of lines (each with its '\n'). */
struct lines {
	char *text;
	char *line[TRAIL_RECORDS + 2];
	size_t len[TRAIL_RECORDS + 2];
	int n;
};

static int split_lines(const char *path, struct lines *l)
{
	char *p;

	l->text = slurp(path, NULL);
	l->n = 0;
	if (!l->text)
		return -1;
	for (p = l->text; *p && l->n < (int)ARRAY_SIZE(l->line);) {
		char *nl = strchr(p, '\n');

		if (!nl)
			return -1;
		l->line[l->n] = p;
		l->len[l->n] = (size_t)(nl + 1 - p);
		l->n++;
		p = nl + 1;
	}
	return 0;
}

static void put_line(FILE *f, const struct lines *l, int no)
{
	fwrite(l->line[no - 1], 1, l->len[no - 1], f);
}

static int write_tampered(const char *path, const struct tamper_case *c,
			  const struct lines *l, const struct lines *other,
			  const struct lines *stranger)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	for (int no = 1; no <= l->n; no++) {
		switch (c->op) {
		case T_NONE:
			break;
		case T_EDIT:
			if (no == c->a) {
				/* replace the LAST occurrence (hash edit) */
				const char *s = l->line[no - 1], *hit = NULL;
				const char *q = s;

				while ((q = strstr(q, c->from)) &&
				       q < s + l->len[no - 1]) {
					hit = q;
					q++;
				}
				if (!hit) {
					fclose(f);
					return -1;
				}
				fwrite(s, 1, (size_t)(hit - s), f);
				fputs(c->to, f);
				fputs(hit + strlen(c->from), f);
				continue;
			}
			break;
		case T_DELETE:
			if (no == c->a)
				continue;
			break;
		case T_DELETE2:
			if (no == c->a || no == c->a + 1)
				continue;
			break;
		case T_SWAP:
			if (no == c->a) {
				put_line(f, l, c->b);
				continue;
			}
			if (no == c->b) {
				put_line(f, l, c->a);
				continue;
			}
			break;
		case T_MOVE:
			if (no == c->a)
				continue;
			if (no == c->b) {
				put_line(f, l, no);
				put_line(f, l, c->a);
				continue;
			}
			break;
		case T_DUP:
			if (no == c->a)
				put_line(f, l, no);
			break;
		case T_FOREIGN:
			if (no == c->a)
				put_line(f, other, no);
			break;
		case T_FOREIGN_NEXT:
			if (no == c->a)
				put_line(f, other, no + 1);
			break;
		case T_OTHER_RUN:
			if (no == c->a)
				put_line(f, stranger, no);
			break;
		case T_CUT:
			if (no == c->a) {
				fwrite(l->line[no - 1], 1, (size_t)c->b, f);
				fclose(f);
				return 0;
			}
			break;
		case T_APPEND:
			break;
		case T_REPLACE:
			if (no == c->a) {
				fprintf(f, "%s\n", c->from);
				continue;
			}
			break;
		}
		put_line(f, l, no);
	}
	if (c->op == T_APPEND)
		put_line(f, l, c->a);
	return fclose(f) == 0 ? 0 : -1;
}

static void test_tamper(void)
{
	char path[128], other_path[128], stranger_path[128], bad_path[128];
	struct lines l = { 0 }, other = { 0 }, stranger = { 0 };

	tmp_path(path, sizeof(path), "trail");
	tmp_path(other_path, sizeof(other_path), "trail");
	tmp_path(stranger_path, sizeof(stranger_path), "trail");
	CU_ASSERT_FATAL(make_trail(path, "run-A", NULL, true) == 0);
	/* Same run id, other timestamps: a plausible forgery. */
	usleep(2000);
	CU_ASSERT_FATAL(make_trail(other_path, "run-A", NULL, true) == 0);
	CU_ASSERT_FATAL(make_trail(stranger_path, "run-B", NULL, true) == 0);
	CU_ASSERT_FATAL(split_lines(path, &l) == 0);
	CU_ASSERT_FATAL(split_lines(other_path, &other) == 0);
	CU_ASSERT_FATAL(split_lines(stranger_path, &stranger) == 0);
	CU_ASSERT_EQUAL_FATAL(l.n, TRAIL_RECORDS + 1);

	for (size_t i = 0; i < ARRAY_SIZE(tamper_cases); i++) {
		const struct tamper_case *c = &tamper_cases[i];
		char why[WHY_LEN] = "unset";
		int rc, want = c->op == T_NONE ? 0 : -EBADMSG;

		tmp_path(bad_path, sizeof(bad_path), "tampered");
		CU_ASSERT_FATAL(write_tampered(bad_path, c, &l, &other,
					       &stranger) == 0);
		rc = audit_verify_path(bad_path, NULL, why, sizeof(why));
		CU_ASSERT_EQUAL(rc, want);
		CU_ASSERT_STRING_EQUAL(why, c->why);
		if (rc != want || strcmp(why, c->why) != 0)
			fprintf(stderr, "\ntamper '%s': rc %d, why '%s'\n",
				c->name, rc, why);
		unlink(bad_path);
	}
	free(l.text);
	free(other.text);
	free(stranger.text);
	unlink(path);
	unlink(other_path);
	unlink(stranger_path);
}

/* A trail of n runs (TRAIL_RECORDS + 1 lines each), each appended by a
 * new writer, ids "run-1".. (prefix id), signed with sk when given. */
static int make_runs(const char *path, const char *id, int n,
		     const unsigned char *sk)
{
	char run[64];

	unlink(path);
	for (int i = 1; i <= n; i++) {
		snprintf(run, sizeof(run), "%s-%d", id, i);
		if (make_trail(path, run, sk, true) < 0)
			return -1;
	}
	return 0;
}

/* Write the runs of src (TRAIL_RECORDS + 1 lines each), numbered from 1,
 * in the order of the list (0 ends it) to dst. */
static int pick_runs(const char *src, const char *dst, const int *order)
{
	AUTO_FREE char *t = NULL;
	size_t off[8] = { 0 }, len = 0;
	int runs = 0;
	FILE *f;

	t = slurp(src, &len);
	if (!t)
		return -1;
	for (size_t p = 0; p < len && runs < 7; runs++) {
		for (int i = 0; i < TRAIL_RECORDS + 1; i++)
			p = (size_t)(strchr(t + p, '\n') - t) + 1;
		off[runs + 1] = p;
	}
	f = fopen(dst, "wb");
	if (!f)
		return -1;
	for (; *order; order++)
		if (*order <= runs)
			fwrite(t + off[*order - 1], 1,
			       off[*order] - off[*order - 1], f);
	return fclose(f) == 0 ? 0 : -1;
}

/*
 * Strip prev_run_hash from every run.start of src and recompute every
 * hash (and run.end's final_hash): the trail as writers from before runs
 * were chained wrote it (unsigned).
 */
static int unchain(const char *src, const char *dst)
{
	AUTO_FREE char *t = slurp(src, NULL);
	unsigned char prev[AUDIT_HASH_BYTES] = { 0 };
	FILE *f;

	if (!t)
		return -1;
	f = fopen(dst, "wb");
	if (!f)
		return -1;
	for (char *line = t, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		char body[4096], hex[2 * AUDIT_HASH_BYTES + 1], *p;
		size_t n = (size_t)(strstr(line, ",\"hash\":\"") - line);
		crypto_generichash_state st;

		if (n >= sizeof(body)) {
			fclose(f);
			return -1;
		}
		memcpy(body, line, n);
		body[n] = '\0';
		if (strncmp(body, "{\"seq\":1,", 9) == 0)
			memset(prev, 0, sizeof(prev));
		p = strstr(body, ",\"prev_run_hash\":");
		if (p) {
			char *q = strchr(p + 1, ',');

			if (q)
				memmove(p, q, strlen(q) + 1);
			else
				*p = '\0';
		}
		p = strstr(body, "\"final_hash\":\"");
		if (p) {
			sodium_bin2hex(hex, sizeof(hex), prev, sizeof(prev));
			memcpy(p + 14, hex, 2 * AUDIT_HASH_BYTES);
		}
		crypto_generichash_init(&st, NULL, 0, AUDIT_HASH_BYTES);
		crypto_generichash_update(&st, prev, sizeof(prev));
		crypto_generichash_update(&st, (unsigned char *)body,
					  strlen(body));
		crypto_generichash_final(&st, prev, sizeof(prev));
		sodium_bin2hex(hex, sizeof(hex), prev, sizeof(prev));
		fprintf(f, "%s,\"hash\":\"%s\"}\n", body, hex);
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* The verdict on path with key pk (may be NULL) is rc and why. */
#define VERDICT(path, pk, rc, text)                                        \
	do {                                                               \
		char why_[WHY_LEN] = "unset";                              \
		int rc_ = audit_verify_path((path), (pk), why_,            \
					    sizeof(why_));                 \
		CU_ASSERT_EQUAL(rc_, (rc));                                \
		CU_ASSERT_STRING_EQUAL(why_, (text));                      \
		if (rc_ != (rc) || strcmp(why_, (text)) != 0)              \
			fprintf(stderr, "\n%s:%d: rc %d, why '%s'\n",      \
				__FILE__, __LINE__, rc_, why_);            \
	} while (0)

/* Lines per run of make_trail(). */
#define RL (TRAIL_RECORDS + 1)

static void test_verify_runs(void)
{
	char a[128], b[128], both[128], why[WHY_LEN];
	AUTO_FREE char *ta = NULL;
	AUTO_FREE char *tb = NULL;
	AUTO_FREE char *joined = NULL;
	size_t la = 0, lb = 0;

	tmp_path(a, sizeof(a), "runA");
	tmp_path(b, sizeof(b), "runB");
	tmp_path(both, sizeof(both), "both");
	CU_ASSERT_FATAL(make_trail(a, "run-A", NULL, true) == 0);
	CU_ASSERT_FATAL(make_trail(b, "run-B", NULL, false) == 0);
	ta = slurp(a, &la);
	tb = slurp(b, &lb);
	CU_ASSERT_FATAL(ta && tb);
	joined = malloc(la + lb + la + 1);
	CU_ASSERT_FATAL(joined != NULL);

	/* Two whole runs appended by two writers verify. */
	CU_ASSERT_FATAL(make_runs(both, "run", 2, NULL) == 0);
	CU_ASSERT_EQUAL(audit_verify_path(both, NULL, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(why, "");

	/* A run cut short (crash), then a new run in the same file. */
	unlink(both);
	CU_ASSERT_FATAL(make_trail(both, "run-B", NULL, false) == 0);
	CU_ASSERT_FATAL(make_trail(both, "run-A", NULL, true) == 0);
	CU_ASSERT_EQUAL(audit_verify_path(both, NULL, why, sizeof(why)),
			-EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "truncated after record 20 (no run.end): "
			       "line 21 starts another run");

	/* The same pasted together: the chain is not what tells. */
	memcpy(joined, tb, lb);
	memcpy(joined + lb, ta, la);
	CU_ASSERT_FATAL(spit(both, joined, lb + la) == 0);
	CU_ASSERT_EQUAL(audit_verify_path(both, NULL, why, sizeof(why)),
			-EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "truncated after record 20 (no run.end): "
			       "line 21 starts another run");

	/* A complete run followed by a truncated one. */
	unlink(both);
	CU_ASSERT_FATAL(make_trail(both, "run-A", NULL, true) == 0);
	CU_ASSERT_FATAL(make_trail(both, "run-B", NULL, false) == 0);
	CU_ASSERT_EQUAL(audit_verify_path(both, NULL, why, sizeof(why)),
			-EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "truncated after record 20 (no run.end)");

	unlink(a);
	unlink(b);
	unlink(both);
}

/*
 * Whole runs dropped, swapped or brought in from another file are found,
 * with and without a key: each run.start names the last record of the run
 * before it (prev_run_hash), and the signature covers that through the
 * chain.
 */
static void test_run_chain(void)
{
	char three[128], other[128], bad[128], skp[128], pkp[128];
	unsigned char sk[AUDIT_SECKEY_BYTES], pk[AUDIT_PUBKEY_BYTES];
	AUTO_FREE char *t = NULL;
	unsigned char h[AUDIT_HASH_BYTES];
	char hex[2 * AUDIT_HASH_BYTES + 1], want[128];

	tmp_path(three, sizeof(three), "three");
	tmp_path(other, sizeof(other), "other");
	tmp_path(bad, sizeof(bad), "runs-bad");
	tmp_path(skp, sizeof(skp), "sk");
	tmp_path(pkp, sizeof(pkp), "pk");
	CU_ASSERT_FATAL(audit_keygen(skp, pkp) == 0);
	CU_ASSERT_FATAL(audit_load_secret_key(skp, sk) == 0);
	CU_ASSERT_FATAL(audit_load_public_key(pkp, pk) == 0);

	for (int signed_ = 0; signed_ <= 1; signed_++) {
		const unsigned char *key = signed_ ? pk : NULL;

		CU_ASSERT_FATAL(make_runs(three, "run", 3,
					  signed_ ? sk : NULL) == 0);
		CU_ASSERT_FATAL(make_runs(other, "other", 2,
					  signed_ ? sk : NULL) == 0);
		VERDICT(three, key, 0, "");

		/* Run 2's run.start names run 1's last record. */
		t = slurp(three, NULL);
		CU_ASSERT_FATAL(t != NULL);
		{
			char *l21 = t, *l22;

			for (int i = 1; i < RL; i++)
				l21 = strchr(l21, '\n') + 1;
			l22 = strchr(l21, '\n') + 1;
			CU_ASSERT_FATAL(audit_line_hash(l21, (size_t)(l22 - 1 - l21),
							h) == 0);
			sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
			snprintf(want, sizeof(want), "\"prev_run_hash\":\"%s\"",
				 hex);
			CU_ASSERT_PTR_NOT_NULL(strstr(l22, want));
			CU_ASSERT(strstr(l22, want) < strchr(l22, '\n'));
		}
		free(t);
		t = NULL;

		/* Run 2 dropped. */
		CU_ASSERT_FATAL(pick_runs(three, bad, (int[]){ 1, 3, 0 }) == 0);
		VERDICT(bad, key, -EBADMSG,
			"run 2 (id run-3, line 22): run.start follows a record "
			"that is not in the file, but the run before it ends at "
			"line 21: the run before it removed, or this run taken "
			"from another file: removed");
		/* Run 1 dropped. */
		CU_ASSERT_FATAL(pick_runs(three, bad, (int[]){ 2, 3, 0 }) == 0);
		VERDICT(bad, key, -EBADMSG,
			"run 1 (id run-2, line 1): run.start follows a record "
			"that is not in the file, but it is the first run of the "
			"file: the run before it removed, or this run taken from "
			"another file: removed");
		/* Runs 2 and 3 swapped; runs 1 and 2 swapped. */
		CU_ASSERT_FATAL(pick_runs(three, bad, (int[]){ 1, 3, 2, 0 }) == 0);
		VERDICT(bad, key, -EBADMSG,
			"run 2 (id run-3, line 22): run.start follows the record "
			"at line 63, further down, but the run before it ends at "
			"line 21: reordered");
		CU_ASSERT_FATAL(pick_runs(three, bad, (int[]){ 2, 1, 3, 0 }) == 0);
		VERDICT(bad, key, -EBADMSG,
			"run 1 (id run-2, line 1): run.start follows the record "
			"at line 42, further down, but it is the first run of the "
			"file: reordered");
		/* Run 1 twice. */
		CU_ASSERT_FATAL(pick_runs(three, bad, (int[]){ 1, 2, 3, 1, 0 }) == 0);
		VERDICT(bad, key, -EBADMSG,
			"run 4 (id run-1, line 64): run.start says it is the "
			"first run of its file, but the run before it ends at "
			"line 63: inserted");
		/* Run 2 again after run 3: it names run 1's end, further up. */
		CU_ASSERT_FATAL(pick_runs(three, bad, (int[]){ 1, 2, 3, 2, 0 }) == 0);
		VERDICT(bad, key, -EBADMSG,
			"run 4 (id run-2, line 64): run.start follows the record "
			"at line 21, but the run before it ends at line 63: "
			"inserted");
		/* A run of another file inserted: its first, then its second. */
		{
			AUTO_FREE char *a = slurp(three, NULL);
			AUTO_FREE char *o = slurp(other, NULL);
			size_t half = 0, first = 0;
			FILE *f;

			CU_ASSERT_FATAL(a && o);
			for (int i = 0; i < RL; i++) {
				first = (size_t)(strchr(a + first, '\n') - a) + 1;
				half = (size_t)(strchr(o + half, '\n') - o) + 1;
			}
			f = fopen(bad, "wb");
			fwrite(a, 1, first, f);
			fwrite(o, 1, half, f);
			fwrite(a + first, 1, strlen(a) - first, f);
			fclose(f);
			VERDICT(bad, key, -EBADMSG,
				"run 2 (id other-1, line 22): run.start says it "
				"is the first run of its file, but the run before "
				"it ends at line 21: inserted");
			f = fopen(bad, "wb");
			fwrite(a, 1, first, f);
			fwrite(o + half, 1, strlen(o) - half, f);
			fwrite(a + first, 1, strlen(a) - first, f);
			fclose(f);
			VERDICT(bad, key, -EBADMSG,
				"run 2 (id other-2, line 22): run.start follows a "
				"record that is not in the file, but the run before "
				"it ends at line 21: the run before it removed, or "
				"this run taken from another file: removed");
		}
	}

	/* The last run dropped is not seen by the chain: what sysgate run
	 * printed (the last hash, verify --hash) is what tells. */
	CU_ASSERT_FATAL(pick_runs(three, bad, (int[]){ 1, 2, 0 }) == 0);
	VERDICT(bad, pk, 0, "");

	unlink(three);
	unlink(other);
	unlink(bad);
	unlink(skp);
	unlink(pkp);
}

/*
 * Trails written before runs were chained (no prev_run_hash) still
 * verify, each run on its own, with a note; a writer appending to one
 * chains its run to it; an unchained run after a chained one is refused.
 */
static void test_run_chain_old(void)
{
	char three[128], old[128], bad[128];
	static const char note2[] =
		"note: 2 of 2 runs written before runs were chained (no "
		"prev_run_hash), each verified on its own: a whole run of "
		"these dropped or reordered would not be seen";

	tmp_path(three, sizeof(three), "three");
	tmp_path(old, sizeof(old), "old");
	tmp_path(bad, sizeof(bad), "old-bad");
	CU_ASSERT_FATAL(make_runs(three, "run", 3, NULL) == 0);
	CU_ASSERT_FATAL(pick_runs(three, bad, (int[]){ 1, 2, 0 }) == 0);
	CU_ASSERT_FATAL(unchain(bad, old) == 0);
	VERDICT(old, NULL, 0, note2);
	/* Among old runs, a swap is not seen: that is what the note says. */
	CU_ASSERT_FATAL(pick_runs(old, bad, (int[]){ 2, 1, 0 }) == 0);
	VERDICT(bad, NULL, 0, note2);

	/* A new run appended to the old trail names its last record. */
	CU_ASSERT_EQUAL(make_trail(old, "new", NULL, true), 0);
	VERDICT(old, NULL, 0,
		"note: 2 of 3 runs written before runs were chained (no "
		"prev_run_hash), each verified on its own: a whole run of "
		"these dropped or reordered would not be seen");
	/* Moving an old run after it is seen. */
	CU_ASSERT_FATAL(pick_runs(old, bad, (int[]){ 1, 3, 2, 0 }) == 0);
	VERDICT(bad, NULL, -EBADMSG,
		"run 2 (id new, line 22): run.start follows the record at "
		"line 63, further down, but the run before it ends at line 21: "
		"reordered");
	/* An old run after a new trail's run. */
	unlink(three);
	CU_ASSERT_FATAL(make_trail(three, "new", NULL, true) == 0);
	CU_ASSERT_FATAL(pick_runs(old, bad, (int[]){ 1, 0 }) == 0);
	{
		AUTO_FREE char *n = slurp(three, NULL);
		AUTO_FREE char *o = slurp(bad, NULL);
		FILE *f = fopen(bad, "wb");

		CU_ASSERT_FATAL(n && o && f);
		fputs(n, f);
		fputs(o, f);
		fclose(f);
	}
	VERDICT(bad, NULL, -EBADMSG,
		"run 2 (id run-1, line 22): run.start does not name the run "
		"before it (no prev_run_hash) but an earlier run does: a run "
		"of an older trail inserted");

	unlink(three);
	unlink(old);
	unlink(bad);
}

/*
 * A writer appends only to a file that ends with a whole record: after
 * junk, a cut line or a record without its hash it refuses (-EBADMSG),
 * and the file is left as it was.
 */
static void test_append_needs_record(void)
{
	static const char *const tails[] = {
		"junk\n", "{\"seq\":1}\n", "{\"seq\":1,\"ts\"",
	};
	char path[128];
	struct audit_writer *w = NULL;

	tmp_path(path, sizeof(path), "append");
	for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
		AUTO_FREE char *before = NULL;
		AUTO_FREE char *after = NULL;
		size_t lb = 0, la = 0;
		FILE *f;

		unlink(path);
		CU_ASSERT_FATAL(make_trail(path, "r", NULL, true) == 0);
		f = fopen(path, "ab");
		fputs(tails[i], f);
		fclose(f);
		before = slurp(path, &lb);
		CU_ASSERT_EQUAL(audit_open_path(path, AUDIT_SYNC_NONE, "s", &w),
				-EBADMSG);
		after = slurp(path, &la);
		CU_ASSERT(before && after && la == lb &&
			  memcmp(before, after, la) == 0);
	}
	/* A file of one record with no newline before it is fine. */
	unlink(path);
	CU_ASSERT_EQUAL(audit_open_path(path, AUDIT_SYNC_NONE, "s", &w), 0);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "run.start")), 0);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	CU_ASSERT_EQUAL(audit_open_path(path, AUDIT_SYNC_NONE, "t", &w), 0);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	unlink(path);
}

static void test_verify_limits(void)
{
	char path[128], why[WHY_LEN] = "unset";
	size_t big = AUDIT_MAX_LINE + 10;
	AUTO_FREE char *blob = malloc(big);

	CU_ASSERT_EQUAL(audit_verify_path("/nonexistent/trail", NULL, why,
					  sizeof(why)), -ENOENT);
	CU_ASSERT_FATAL(blob != NULL);
	memset(blob, 'a', big);
	blob[big - 1] = '\n';
	tmp_path(path, sizeof(path), "long");
	CU_ASSERT_FATAL(spit(path, blob, big) == 0);
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)),
			-EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "record 1 (line 1): longer than 1048576 bytes");
	/* A short why buffer is cut, not overrun; NULL is fine too. */
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, 8), -EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "record ");
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, NULL, 0), -EBADMSG);
	unlink(path);
}

/* A run.end with a wrong final_hash, written through the real writer. */
static void test_verify_final_hash(void)
{
	char path[128], why[WHY_LEN];
	struct audit_writer *w = NULL;
	struct audit_rec *r;

	tmp_path(path, sizeof(path), "final");
	CU_ASSERT_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "f", &w) == 0);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "run.start")), 0);
	r = audit_begin(w, "run.end");
	audit_str(r, "final_hash", "00000000000000000000000000000000"
				   "00000000000000000000000000000000");
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	CU_ASSERT_EQUAL(audit_verify_path(path, NULL, why, sizeof(why)),
			-EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "run.end (record 2, line 2): final_hash "
			       "does not match record 1");
	unlink(path);
}

/* ---- signing --------------------------------------------------------- */

static void test_keys(void)
{
	char sk_path[128], pk_path[128], bad_path[128];
	unsigned char sk[AUDIT_SECKEY_BYTES], pk[AUDIT_PUBKEY_BYTES];
	unsigned char hash[AUDIT_HASH_BYTES], sig[AUDIT_SIG_BYTES];
	char sig_hex[2 * AUDIT_SIG_BYTES + 1];
	AUTO_FREE char *sk_text = NULL;
	struct stat st;
	size_t n = 0;

	tmp_path(sk_path, sizeof(sk_path), "sk");
	tmp_path(pk_path, sizeof(pk_path), "pk");
	tmp_path(bad_path, sizeof(bad_path), "badkey");
	CU_ASSERT_FATAL(audit_keygen(sk_path, pk_path) == 0);
	CU_ASSERT(stat(sk_path, &st) == 0 && (st.st_mode & 0777) == 0600);
	CU_ASSERT_EQUAL(audit_keygen(sk_path, pk_path), -EEXIST);
	CU_ASSERT_EQUAL(audit_load_secret_key(sk_path, sk), 0);
	CU_ASSERT_EQUAL(audit_load_public_key(pk_path, pk), 0);
	/* The secret key's public half is the public key. */
	CU_ASSERT(memcmp(sk + 32, pk, sizeof(pk)) == 0);
	sk_text = slurp(sk_path, &n);
	CU_ASSERT(sk_text && n == 129 && sk_text[128] == '\n');

	randombytes_buf(hash, sizeof(hash));
	audit_sign_hash(sk, hash, sig_hex);
	CU_ASSERT_EQUAL(strlen(sig_hex), 128);
	CU_ASSERT(sodium_hex2bin(sig, sizeof(sig), sig_hex, 128, NULL, NULL,
				 NULL) == 0);
	CU_ASSERT_EQUAL(crypto_sign_verify_detached(sig, hash, sizeof(hash), pk), 0);
	hash[0] ^= 1;
	CU_ASSERT_NOT_EQUAL(crypto_sign_verify_detached(sig, hash, sizeof(hash),
							pk), 0);

	/* Malformed key files. */
	CU_ASSERT_EQUAL(audit_load_public_key("/nonexistent/pk", pk), -ENOENT);
	CU_ASSERT_FATAL(spit(bad_path, "xyz\n", 4) == 0);
	CU_ASSERT_EQUAL(audit_load_public_key(bad_path, pk), -EINVAL);
	CU_ASSERT_EQUAL(audit_load_secret_key(bad_path, sk), -EINVAL);
	CU_ASSERT_EQUAL(audit_load_secret_key(pk_path, sk), -EINVAL);
	/* A secret key whose public half was changed. */
	sk_text[127] = sk_text[127] == '0' ? '1' : '0';
	unlink(bad_path);
	CU_ASSERT_FATAL(spit(bad_path, sk_text, n) == 0);
	CU_ASSERT_EQUAL(audit_load_secret_key(bad_path, sk), -EINVAL);
	unlink(bad_path);
	unlink(sk_path);
	unlink(pk_path);
}

/* A unix datagram socket bound at path, for the syslog sink to send to. */
static int dgram_receiver(const char *path)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(un.sun_path))
		return -1;
	memcpy(un.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&un, sizeof(un)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * --audit-syslog: each committed record arrives as one RFC 5424 message
 * whose text is the trail's line; with the receiver gone, the next commit
 * fails, the record is in the file all the same, and the error stays.
 */
static void test_syslog_sink(void)
{
	char path[512], sock[512], msg[4096], want[256];
	struct audit_writer *w;
	struct audit_syslog *sl;
	struct audit_rec *r;
	char *text, *line;
	int rfd;
	ssize_t n;

	tmp_path(path, sizeof(path), "syslog");
	tmp_path(sock, sizeof(sock), "sock");
	rfd = dgram_receiver(sock);
	CU_ASSERT_FATAL(rfd >= 0);
	CU_ASSERT_EQUAL(audit_syslog_open("unix:/nonexistent/sock", "r1", &sl), -ENOENT);
	CU_ASSERT_EQUAL(audit_syslog_open("tcp:localhost:514", "r1", &sl), -EINVAL);
	CU_ASSERT_EQUAL(audit_syslog_open("udp:127.0.0.1:0", "r1", &sl), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(audit_open_path(path, AUDIT_SYNC_NONE, "r1", &w), 0);
	CU_ASSERT_EQUAL_FATAL(audit_syslog_open((snprintf(msg, sizeof(msg), "unix:%s", sock), msg),
						"r1", &sl), 0);
	audit_set_syslog(w, sl);
	for (int i = 0; i < 3; i++) {
		r = audit_begin(w, "t");
		audit_int(r, "i", i);
		CU_ASSERT_EQUAL(audit_commit(r), 0);
	}
	text = slurp(path, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	line = text;
	for (int i = 0; i < 3; i++) {
		char *nl = strchr(line, '\n'), *body;

		CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
		n = recv(rfd, msg, sizeof(msg) - 1, MSG_DONTWAIT);
		CU_ASSERT_FATAL(n > 0);
		msg[n] = '\0';
		CU_ASSERT_EQUAL(strncmp(msg, "<86>1 ", 6), 0);
		snprintf(want, sizeof(want), " sysgate %ld r1 - ", (long)getpid());
		body = strstr(msg, want);
		CU_ASSERT_PTR_NOT_NULL_FATAL(body);
		body += strlen(want);
		CU_ASSERT_EQUAL(strlen(body), (size_t)(nl - line));
		CU_ASSERT_EQUAL(memcmp(body, line, (size_t)(nl - line)), 0);
		line = nl + 1;
	}
	free(text);
	CU_ASSERT_EQUAL(audit_ship_error(w), 0);

	close(rfd);
	unlink(sock);
	r = audit_begin(w, "t");
	audit_int(r, "i", 3);
	CU_ASSERT(audit_commit(r) < 0);
	CU_ASSERT(audit_ship_error(w) < 0);
	r = audit_begin(w, "t");
	CU_ASSERT(audit_commit(r) < 0);
	/* The file took both: the trail stays whole. */
	CU_ASSERT_EQUAL(audit_last_seq(w), 5);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	text = slurp(path, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"seq\":5,"));
	free(text);
}

static void test_signed_trail(void)
{
	char sk_path[128], pk_path[128], sk2_path[128], pk2_path[128];
	char trail[128], plain[128], lie[128], why[WHY_LEN];
	unsigned char sk[AUDIT_SECKEY_BYTES], pk[AUDIT_PUBKEY_BYTES];
	unsigned char sk2[AUDIT_SECKEY_BYTES], pk2[AUDIT_PUBKEY_BYTES];
	unsigned char prev[AUDIT_HASH_BYTES];
	char hex[2 * AUDIT_HASH_BYTES + 1], sig_hex[2 * AUDIT_SIG_BYTES + 1];
	char pk_hex[2 * AUDIT_PUBKEY_BYTES + 1];
	struct audit_writer *w = NULL;
	struct audit_rec *r;

	tmp_path(sk_path, sizeof(sk_path), "sk");
	tmp_path(pk_path, sizeof(pk_path), "pk");
	tmp_path(sk2_path, sizeof(sk2_path), "sk");
	tmp_path(pk2_path, sizeof(pk2_path), "pk");
	tmp_path(trail, sizeof(trail), "signed");
	tmp_path(plain, sizeof(plain), "unsigned");
	tmp_path(lie, sizeof(lie), "lie");
	CU_ASSERT_FATAL(audit_keygen(sk_path, pk_path) == 0);
	CU_ASSERT_FATAL(audit_keygen(sk2_path, pk2_path) == 0);
	CU_ASSERT_FATAL(audit_load_secret_key(sk_path, sk) == 0);
	CU_ASSERT_FATAL(audit_load_public_key(pk_path, pk) == 0);
	CU_ASSERT_FATAL(audit_load_secret_key(sk2_path, sk2) == 0);
	CU_ASSERT_FATAL(audit_load_public_key(pk2_path, pk2) == 0);

	CU_ASSERT_FATAL(make_trail(trail, "signed-run", sk, true) == 0);
	CU_ASSERT_EQUAL(audit_verify_path(trail, pk, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(why, "");
	CU_ASSERT_EQUAL(audit_verify_path(trail, NULL, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(audit_verify_path(trail, pk2, why, sizeof(why)),
			-EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "run.end (record 21, line 21): signature "
			       "does not verify with the given key");

	CU_ASSERT_FATAL(make_trail(plain, "plain-run", NULL, true) == 0);
	CU_ASSERT_EQUAL(audit_verify_path(plain, NULL, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(audit_verify_path(plain, pk, why, sizeof(why)), -EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "run.end (record 21, line 21): not signed");

	/* Signed with key 2 but naming key 1: fails on its own terms. */
	CU_ASSERT_FATAL(audit_open_path(lie, AUDIT_SYNC_NONE, "lie", &w) == 0);
	CU_ASSERT_EQUAL(audit_commit(audit_begin(w, "run.start")), 0);
	r = audit_begin(w, "run.end");
	audit_rec_prev_hash(r, prev);
	sodium_bin2hex(hex, sizeof(hex), prev, sizeof(prev));
	audit_sign_hash(sk2, prev, sig_hex);
	sodium_bin2hex(pk_hex, sizeof(pk_hex), pk, sizeof(pk));
	audit_str(r, "final_hash", hex);
	audit_str(r, "signature", sig_hex);
	audit_str(r, "pubkey", pk_hex);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	CU_ASSERT_EQUAL(audit_close(w), 0);
	CU_ASSERT_EQUAL(audit_verify_path(lie, NULL, why, sizeof(why)), -EBADMSG);
	CU_ASSERT_STRING_EQUAL(why, "run.end (record 2, line 2): signature does "
			       "not verify with its own pubkey");
	CU_ASSERT_EQUAL(audit_verify_path(lie, pk2, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(audit_verify_path(lie, pk, why, sizeof(why)), -EBADMSG);

	unlink(sk_path);
	unlink(pk_path);
	unlink(sk2_path);
	unlink(pk2_path);
	unlink(trail);
	unlink(plain);
	unlink(lie);
}

/* ---- main ------------------------------------------------------------ */

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static const struct unit_test tests[] = {
	{ "fields and nesting", test_fields },
	{ "seq, ts, run, type prefix", test_prefix_and_seq },
	{ "builder misuse is refused", test_misuse },
	{ "open errors", test_open_errors },
	{ "escape table", test_escape_table },
	{ "escape cuts at unit boundaries", test_escape_cut },
	{ "terminal escaping", test_escape_tty },
	{ "a record's body, copied and aborted", test_rec_body },
	{ "audit_bytes text and hex", test_bytes_fields },
	{ "random bytes round trip via jansson", test_random_roundtrip },
	{ "hash chain", test_hash_chain },
	{ "ENOSPC is sticky", test_sticky_enospc },
	{ "EPIPE is sticky", test_sticky_epipe },
	{ "EFBIG is sticky, trail reads truncated", test_sticky_efbig },
	{ "map sink: reserved tail, cut at close", test_map_reserved_tail },
	{ "map sink: a writer that dies", test_map_writer_dies },
	{ "map sink: a trail longer than the window", test_map_long_trail },
	{ "map sink: trail truncated under the writer", test_map_truncated_under },
	{ "map sink: one writer at a time", test_map_one_writer },
	{ "no allocation per record once warm", test_no_alloc_when_warm },
	{ "threads do not interleave", test_threads },
	{ "threads build records apart", test_threads_build_apart },
	{ "interval: the writer's thread syncs", test_interval_syncer },
	{ "fast escaper agrees with audit_escape", test_esc_fast },
	{ "numbers at the edges", test_numbers },
	{ "batches: begin, commit, end", test_batch },
	{ "batches: write errors, partial batch", test_batch_errors },
	{ "group commit: in the file when commit returns", test_group_commit },
	{ "group commit: a write error reaches every waiter", test_group_commit_error },
	{ "tamper suite", test_tamper },
	{ "several runs in one file", test_verify_runs },
	{ "whole runs chained", test_run_chain },
	{ "runs from before the chain", test_run_chain_old },
	{ "append only after a whole record", test_append_needs_record },
	{ "verify limits and I/O errors", test_verify_limits },
	{ "run.end final_hash", test_verify_final_hash },
	{ "key files", test_keys },
	{ "signed trail", test_signed_trail },
	{ "syslog sink: every record, then fail closed", test_syslog_sink },
};

int main(void)
{
	const char *base = getenv("TMPDIR");
	int r;

	/* As the supervisor does: a write to a closed pipe returns EPIPE,
	 * one past RLIMIT_FSIZE returns EFBIG. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	if (sodium_init() < 0)
		return 99;
	snprintf(tmpdir, sizeof(tmpdir), "%s/test-audit.XXXXXX",
		 base && strlen(base) < 40 ? base : "/tmp");
	if (!mkdtemp(tmpdir))
		return 99;

	r = unit_run("audit", tests, ARRAY_SIZE(tests));
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return r;
}
