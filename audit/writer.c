/* SPDX-License-Identifier: MIT */
/*
 * audit/writer.c: builds audit records into one reused buffer per writer,
 * chains them with BLAKE2b-256 and appends each finished line to the trail
 * with a single write(2).  Never prints, never exits, never touches signal
 * dispositions (the supervisor ignores SIGXFSZ and SIGPIPE itself).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/escape.h"
#include "common/util.h"

/* First size of the record buffer; it grows by doubling up to AUDIT_MAX_LINE
 * and is kept for the next record. */
#define REC_INITIAL_CAP 4096
/* ,"hash":"<64 hex>"}\n */
#define HASH_KEY ",\"hash\":\""
#define HASH_KEY_LEN (sizeof(HASH_KEY) - 1)
#define HASH_SUFFIX_LEN (HASH_KEY_LEN + 2 * AUDIT_HASH_BYTES + 3)
/* First size of the duplicate-key stack (grows, kept between records). */
#define KEYS_INITIAL_CAP 32
/* Longest run id kept (bytes before escaping). */
#define RUN_ID_MAX 256

struct key_ref {
	size_t off, len;
};

struct audit_rec {
	struct audit_writer *w;
	char *buf;
	size_t len, cap;
	int err;	/* first builder error: -ENOMEM, -EMSGSIZE, -EINVAL */
	bool open;
	unsigned int depth;
	/* Per nesting level (0 = the record object): is it an array, does
	 * the next member need a comma before it, and where its keys start
	 * in keys[]. */
	bool is_arr[AUDIT_MAX_DEPTH + 1];
	bool comma[AUDIT_MAX_DEPTH + 1];
	size_t level_keys[AUDIT_MAX_DEPTH + 1];
	/* The keys of the open objects, as places in buf, to refuse
	 * duplicates.  A stack: closing an object drops its keys. */
	struct key_ref *keys;
	size_t nkeys, keys_cap;
};

struct audit_writer {
	/*
	 * Held from audit_begin() to audit_commit()/audit_abort(), so the
	 * records of several threads never interleave and seq/hash follow
	 * file order.  Recursive so that the thread holding an open record
	 * may still call audit_last_hash()/audit_last_seq().
	 */
	pthread_mutex_t lock;
	int fd;
	enum audit_sync sync;
	char *run_json;		/* the run id, escaped, without quotes */
	uint64_t seq;		/* seq of the last record in the trail */
	unsigned char last_hash[AUDIT_HASH_BYTES];
	int err;		/* sticky write/sync error, 0 or -errno */
	bool dirty;		/* records written since the last sync */
	struct timespec last_sync; /* CLOCK_MONOTONIC */
	struct audit_rec rec;
};

/* ---- buffer ---------------------------------------------------------- */

static void rec_fail(struct audit_rec *r, int err)
{
	if (r->err == 0)
		r->err = err;
}

/* Make room for n more bytes.  Lines are capped at AUDIT_MAX_LINE
 * including the hash suffix, so the verifier accepts whatever we write. */
static int rec_grow(struct audit_rec *r, size_t want)
{
	size_t cap;
	char *nb;

	if (want <= r->cap)
		return 0;
	cap = r->cap ? r->cap : REC_INITIAL_CAP;
	while (cap < want)
		cap *= 2;
	nb = realloc(r->buf, cap);
	if (!nb)
		return -ENOMEM;
	r->buf = nb;
	r->cap = cap;
	return 0;
}

static bool rec_reserve(struct audit_rec *r, size_t n)
{
	int rc;

	if (r->err)
		return false;
	if (n > AUDIT_MAX_LINE - HASH_SUFFIX_LEN - r->len) {
		rec_fail(r, -EMSGSIZE);
		return false;
	}
	rc = rec_grow(r, r->len + n);
	if (rc < 0) {
		rec_fail(r, rc);
		return false;
	}
	return true;
}

static void put_mem(struct audit_rec *r, const void *p, size_t n)
{
	if (!rec_reserve(r, n))
		return;
	memcpy(r->buf + r->len, p, n);
	r->len += n;
}

static void put_str(struct audit_rec *r, const char *s)
{
	put_mem(r, s, strlen(s));
}

static void put_char(struct audit_rec *r, char c)
{
	put_mem(r, &c, 1);
}

/* Append src escaped by the audit_escape() rule (no quotes). */
static void put_escaped(struct audit_rec *r, const void *src, size_t len)
{
	const unsigned char *s = src;
	size_t i = 0;

	while (i < len && r->err == 0) {
		size_t n = audit_esc_plain_run(s + i, len - i);

		if (n > 0) {
			put_mem(r, s + i, n);
			i += n;
		} else {
			char unit[AUDIT_ESC_UNIT_MAX];
			size_t used;

			n = audit_esc_unit(s + i, len - i, &used, unit);
			put_mem(r, unit, n);
			i += used;
		}
	}
}

static void put_hex_bytes(struct audit_rec *r, const void *src, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *s = src;

	if (len > (SIZE_MAX - r->len) / 2) {
		rec_fail(r, -EMSGSIZE);
		return;
	}
	if (!rec_reserve(r, 2 * len))
		return;
	for (size_t i = 0; i < len; i++) {
		r->buf[r->len++] = digits[s[i] >> 4];
		r->buf[r->len++] = digits[s[i] & 0xf];
	}
}

/* Is the key just written at buf[off..off+len) already in this object? */
static bool key_seen(const struct audit_rec *r, size_t off, size_t len)
{
	for (size_t i = r->level_keys[r->depth]; i < r->nkeys; i++)
		if (r->keys[i].len == len &&
		    memcmp(r->buf + r->keys[i].off, r->buf + off, len) == 0)
			return true;
	/* "hash" ends every record; nobody else may use it up there. */
	return r->depth == 0 && len == 4 &&
	       memcmp(r->buf + off, "hash", 4) == 0;
}

static void note_key(struct audit_rec *r, size_t off, size_t len)
{
	if (r->nkeys == r->keys_cap) {
		size_t cap = r->keys_cap ? 2 * r->keys_cap : KEYS_INITIAL_CAP;
		struct key_ref *nk = reallocarray(r->keys, cap, sizeof(*nk));

		if (!nk) {
			rec_fail(r, -ENOMEM);
			return;
		}
		r->keys = nk;
		r->keys_cap = cap;
	}
	r->keys[r->nkeys++] = (struct key_ref){ .off = off, .len = len };
}

/*
 * Start a member: the comma if one is due, then "key<suffix>": inside an
 * object.  A key inside an array, a missing key inside an object and a key
 * the object already has are caller bugs, remembered as -EINVAL so that no
 * record is written half-formed or ambiguous (the verifier rejects
 * duplicate keys).
 */
static bool put_key_suffix(struct audit_rec *r, const char *key,
			   const char *suffix)
{
	unsigned int d;
	size_t off;

	if (!r || !r->open || r->err)
		return false;
	d = r->depth;
	if (r->is_arr[d] != (key == NULL)) {
		rec_fail(r, -EINVAL);
		return false;
	}
	if (r->comma[d])
		put_char(r, ',');
	r->comma[d] = true;
	if (key) {
		put_char(r, '"');
		off = r->len;
		put_escaped(r, key, strlen(key));
		put_str(r, suffix);
		if (r->err)
			return false;
		if (key_seen(r, off, r->len - off)) {
			rec_fail(r, -EINVAL);
			return false;
		}
		note_key(r, off, r->len - off);
		put_str(r, "\":");
	}
	return r->err == 0;
}

static bool put_key(struct audit_rec *r, const char *key)
{
	return put_key_suffix(r, key, "");
}

/* ---- fields ---------------------------------------------------------- */

void audit_str(struct audit_rec *r, const char *key, const char *val)
{
	if (!val) {
		audit_null(r, key);
		return;
	}
	if (!put_key(r, key))
		return;
	put_char(r, '"');
	put_escaped(r, val, strlen(val));
	put_char(r, '"');
}

void audit_bytes(struct audit_rec *r, const char *key, const void *buf,
		 size_t len)
{
	bool clean;

	if (!buf && len > 0) {
		if (r)
			rec_fail(r, -EINVAL);
		return;
	}
	clean = audit_utf8_clean(buf, len);
	if (!put_key(r, key))
		return;
	if (!clean && !key)
		put_str(r, "{\"text\":");
	put_char(r, '"');
	put_escaped(r, buf, len);
	put_char(r, '"');
	if (clean)
		return;
	/* Lossy: add every raw byte in hex beside the readable text. */
	if (key) {
		if (!put_key_suffix(r, key, "_hex"))
			return;
		put_char(r, '"');
	} else {
		put_str(r, ",\"hex\":\"");
	}
	put_hex_bytes(r, buf, len);
	put_char(r, '"');
	if (!key)
		put_char(r, '}');
}

void audit_int(struct audit_rec *r, const char *key, int64_t v)
{
	char num[24];

	if (!put_key(r, key))
		return;
	snprintf(num, sizeof(num), "%" PRId64, v);
	put_str(r, num);
}

void audit_uint(struct audit_rec *r, const char *key, uint64_t v)
{
	char num[24];

	if (!put_key(r, key))
		return;
	/* Above INT64_MAX many JSON readers (jansson among them) fail or lose
	 * precision: write such values as a decimal string. */
	snprintf(num, sizeof(num),
		 v > INT64_MAX ? "\"%" PRIu64 "\"" : "%" PRIu64, v);
	put_str(r, num);
}

void audit_hex(struct audit_rec *r, const char *key, uint64_t v)
{
	char num[24];

	if (!put_key(r, key))
		return;
	snprintf(num, sizeof(num), "\"0x%" PRIx64 "\"", v);
	put_str(r, num);
}

void audit_bool(struct audit_rec *r, const char *key, bool v)
{
	if (put_key(r, key))
		put_str(r, v ? "true" : "false");
}

void audit_null(struct audit_rec *r, const char *key)
{
	if (put_key(r, key))
		put_str(r, "null");
}

static void open_nested(struct audit_rec *r, const char *key, bool arr)
{
	if (!put_key(r, key))
		return;
	if (r->depth >= AUDIT_MAX_DEPTH) {
		rec_fail(r, -EINVAL);
		return;
	}
	put_char(r, arr ? '[' : '{');
	r->depth++;
	r->is_arr[r->depth] = arr;
	r->comma[r->depth] = false;
	r->level_keys[r->depth] = r->nkeys;
}

static void close_nested(struct audit_rec *r, bool arr)
{
	if (!r || !r->open || r->err)
		return;
	if (r->depth == 0 || r->is_arr[r->depth] != arr) {
		rec_fail(r, -EINVAL);
		return;
	}
	put_char(r, arr ? ']' : '}');
	r->nkeys = r->level_keys[r->depth];
	r->depth--;
}

void audit_obj_begin(struct audit_rec *r, const char *key)
{
	open_nested(r, key, false);
}

void audit_obj_end(struct audit_rec *r)
{
	close_nested(r, false);
}

void audit_arr_begin(struct audit_rec *r, const char *key)
{
	open_nested(r, key, true);
}

void audit_arr_end(struct audit_rec *r)
{
	close_nested(r, true);
}

/* ---- writer ---------------------------------------------------------- */

int audit_open_fd(int fd, enum audit_sync sync, const char *run_id,
		  struct audit_writer **out)
{
	struct audit_writer *w = NULL;
	pthread_mutexattr_t attr;
	size_t id_len, esc_len;
	int rc;

	if (fd < 0 || !run_id || !out)
		return -EINVAL;
	switch (sync) {
	case AUDIT_SYNC_NONE:
	case AUDIT_SYNC_INTERVAL:
	case AUDIT_SYNC_EVERY:
		break;
	default:
		return -EINVAL;
	}
	id_len = strnlen(run_id, RUN_ID_MAX + 1);
	if (id_len == 0 || id_len > RUN_ID_MAX)
		return -EINVAL;
	if (sodium_init() < 0)
		return -EIO;

	rc = -ENOMEM;
	w = calloc(1, sizeof(*w));
	if (!w)
		goto fail;
	esc_len = audit_escape(NULL, 0, run_id, id_len);
	w->run_json = malloc(esc_len + 1);
	if (!w->run_json)
		goto fail;
	audit_escape(w->run_json, esc_len + 1, run_id, id_len);

	rc = pthread_mutexattr_init(&attr);
	if (rc == 0) {
		rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
		if (rc == 0)
			rc = pthread_mutex_init(&w->lock, &attr);
		pthread_mutexattr_destroy(&attr);
	}
	if (rc != 0) {
		rc = -rc;
		goto fail;
	}
	w->fd = fd;
	w->sync = sync;
	w->rec.w = w;
	clock_gettime(CLOCK_MONOTONIC, &w->last_sync);
	*out = w;
	return 0;
fail:
	if (w)
		free(w->run_json);
	free(w);
	return rc;
}

int audit_open_path(const char *path, enum audit_sync sync, const char *run_id,
		    struct audit_writer **out)
{
	AUTO_CLOSE int fd = -1;
	int rc;

	if (!path)
		return -EINVAL;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
		  0600);
	if (fd < 0)
		return -errno;
	rc = audit_open_fd(fd, sync, run_id, out);
	if (rc < 0)
		return rc;
	steal_fd(&fd);
	return 0;
}

/* fdatasync, where EINVAL (pipe, socket, tty: nothing to sync) is no error. */
static int sync_fd(int fd)
{
	if (TEMP_FAILURE_RETRY_INT(fdatasync(fd)) < 0 && errno != EINVAL)
		return -errno;
	return 0;
}

static void note_sync(struct audit_writer *w)
{
	clock_gettime(CLOCK_MONOTONIC, &w->last_sync);
	w->dirty = false;
}

int audit_close(struct audit_writer *w)
{
	int rc, s;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	rc = w->err;
	if (w->sync != AUDIT_SYNC_NONE) {
		s = sync_fd(w->fd);
		if (rc == 0)
			rc = s;
	}
	/* Security: a failing close(2) can report a lost write (NFS, EIO). */
	if (close(w->fd) < 0 && rc == 0 && errno != EINTR)
		rc = -errno;
	pthread_mutex_unlock(&w->lock);
	pthread_mutex_destroy(&w->lock);
	free(w->rec.buf);
	free(w->rec.keys);
	free(w->run_json);
	free(w);
	return rc;
}

void audit_last_hash(const struct audit_writer *w,
		     unsigned char hash[AUDIT_HASH_BYTES])
{
	struct audit_writer *mw = (struct audit_writer *)w;

	pthread_mutex_lock(&mw->lock);
	memcpy(hash, w->last_hash, AUDIT_HASH_BYTES);
	pthread_mutex_unlock(&mw->lock);
}

uint64_t audit_last_seq(const struct audit_writer *w)
{
	struct audit_writer *mw = (struct audit_writer *)w;
	uint64_t seq;

	pthread_mutex_lock(&mw->lock);
	seq = w->seq;
	pthread_mutex_unlock(&mw->lock);
	return seq;
}

static int64_t elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - since->tv_sec) * 1000 +
	       (now.tv_nsec - since->tv_nsec) / 1000000;
}

int audit_tick(struct audit_writer *w)
{
	int rc = 0;

	if (!w)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	if (w->err) {
		rc = w->err;
	} else if (w->sync == AUDIT_SYNC_INTERVAL && w->dirty &&
		   elapsed_ms(&w->last_sync) >= AUDIT_SYNC_INTERVAL_MS) {
		rc = sync_fd(w->fd);
		if (rc < 0)
			w->err = rc;
		else
			note_sync(w);
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* "2026-11-29T14:03:07.123456Z" (RFC 3339, UTC), quotes included */
static void put_timestamp(struct audit_rec *r)
{
	struct timespec ts;
	struct tm tm;
	char buf[96]; /* room for any int, keeps -Wformat-truncation quiet */

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 ||
	    !gmtime_r(&ts.tv_sec, &tm)) {
		rec_fail(r, -EIO);
		return;
	}
	snprintf(buf, sizeof(buf), "\"%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ\"",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000);
	put_str(r, buf);
}

struct audit_rec *audit_begin(struct audit_writer *w, const char *type)
{
	struct audit_rec *r;

	if (!w)
		return NULL;
	pthread_mutex_lock(&w->lock);
	r = &w->rec;
	if (r->open) {
		/* The same thread began twice: a caller bug. */
		pthread_mutex_unlock(&w->lock);
		return NULL;
	}
	r->open = true;
	r->len = 0;
	r->err = 0;
	r->depth = 0;
	r->nkeys = 0;
	r->level_keys[0] = 0;
	r->is_arr[0] = false;
	r->comma[0] = false;
	put_char(r, '{');
	audit_uint(r, "seq", w->seq + 1);
	if (put_key(r, "ts"))
		put_timestamp(r);
	if (put_key(r, "run")) {
		put_char(r, '"');
		put_str(r, w->run_json);
		put_char(r, '"');
	}
	if (type)
		audit_str(r, "type", type);
	else
		rec_fail(r, -EINVAL);
	return r;
}

void audit_rec_prev_hash(const struct audit_rec *r,
			 unsigned char hash[AUDIT_HASH_BYTES])
{
	memcpy(hash, r->w->last_hash, AUDIT_HASH_BYTES);
}

void audit_put_final(struct audit_rec *r, const unsigned char *sk)
{
	char hex[2 * AUDIT_HASH_BYTES + 1];
	char sig[2 * AUDIT_SIG_BYTES + 1];
	char pk[2 * AUDIT_PUBKEY_BYTES + 1];

	if (!r || !r->open)
		return;
	sodium_bin2hex(hex, sizeof(hex), r->w->last_hash, AUDIT_HASH_BYTES);
	audit_str(r, "final_hash", hex);
	if (!sk)
		return;
	audit_sign_hash(sk, r->w->last_hash, sig);
	audit_str(r, "signature", sig);
	/* An Ed25519 secret key in libsodium's form is seed || public key. */
	sodium_bin2hex(pk, sizeof(pk), sk + AUDIT_SECKEY_BYTES -
		       AUDIT_PUBKEY_BYTES, AUDIT_PUBKEY_BYTES);
	audit_str(r, "pubkey", pk);
}

static void rec_close(struct audit_rec *r)
{
	r->open = false;
	pthread_mutex_unlock(&r->w->lock);
}

void audit_abort(struct audit_rec *r)
{
	if (r && r->open)
		rec_close(r);
}

/* Write all of buf, retrying EINTR and short writes. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int audit_commit(struct audit_rec *r)
{
	struct audit_writer *w;
	unsigned char hash[AUDIT_HASH_BYTES];
	char hex[2 * AUDIT_HASH_BYTES + 1];
	crypto_generichash_state st;
	int rc;

	if (!r || !r->open)
		return -EINVAL;
	w = r->w;
	rc = r->err;
	if (rc == 0 && r->depth != 0)
		rc = -EINVAL;
	if (rc == 0)
		rc = w->err;
	if (rc < 0)
		goto out;

	/* hash = BLAKE2b-256(previous hash || line up to ,"hash") */
	crypto_generichash_init(&st, NULL, 0, AUDIT_HASH_BYTES);
	crypto_generichash_update(&st, w->last_hash, AUDIT_HASH_BYTES);
	crypto_generichash_update(&st, (const unsigned char *)r->buf, r->len);
	crypto_generichash_final(&st, hash, AUDIT_HASH_BYTES);

	/* rec_reserve() kept the line short enough for the suffix. */
	rc = rec_grow(r, r->len + HASH_SUFFIX_LEN);
	if (rc < 0)
		goto out;
	sodium_bin2hex(hex, sizeof(hex), hash, AUDIT_HASH_BYTES);
	memcpy(r->buf + r->len, HASH_KEY, HASH_KEY_LEN);
	memcpy(r->buf + r->len + HASH_KEY_LEN, hex, 2 * AUDIT_HASH_BYTES);
	memcpy(r->buf + r->len + HASH_KEY_LEN + 2 * AUDIT_HASH_BYTES, "\"}\n",
	       3);
	r->len += HASH_SUFFIX_LEN;

	/*
	 * Security: a failed or partial write leaves seq and the chain where
	 * they were, and the error is sticky, so no later record can claim
	 * to follow one that is not (wholly) in the trail.
	 */
	rc = write_all(w->fd, r->buf, r->len);
	if (rc < 0) {
		w->err = rc;
		goto out;
	}
	w->seq++;
	memcpy(w->last_hash, hash, AUDIT_HASH_BYTES);
	w->dirty = true;
	if (w->sync == AUDIT_SYNC_EVERY) {
		rc = sync_fd(w->fd);
		if (rc < 0)
			w->err = rc;
		else
			note_sync(w);
	}
out:
	rec_close(r);
	return rc;
}
