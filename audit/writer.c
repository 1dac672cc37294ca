/* SPDX-License-Identifier: MIT */
/*
 * audit/writer.c: builds audit records, each in its thread's own buffer,
 * chains them with BLAKE2b-256 in commit order and appends whole lines to
 * the trail, a batch at a time (group commit, below): copied into a shared
 * mapping of a regular file (the map sink), or with write(2) to anything
 * else.  A record is in the file (page cache) before audit_commit()
 * returns.  Never prints, never exits, never touches signal dispositions
 * (the supervisor ignores SIGXFSZ and SIGPIPE itself).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/chain.h"
#include "audit/escape.h"
#include "audit/syslog.h"
#include "common/util.h"

/* First size of each of the two batch buffers; they grow by doubling and
 * are kept for the next records. */
#define REC_INITIAL_CAP 4096
/* ,"hash":"<64 hex>"}\n */
#define HASH_KEY ",\"hash\":\""
#define HASH_KEY_LEN (sizeof(HASH_KEY) - 1)
#define HASH_SUFFIX_LEN (HASH_KEY_LEN + 2 * AUDIT_HASH_BYTES + 3)
/* First size of the duplicate-key stack (grows, kept between records). */
#define KEYS_INITIAL_CAP 32
/* Keys up to this long are written with a single reservation. */
#define KEY_FAST_MAX 64
/* Longest run id kept (bytes before escaping). */
#define RUN_ID_MAX 256
/* The map sink (see "map sink" below): space is reserved in steps of
 * MAP_CHUNK, and MAP_WINDOW bytes of the file are mapped at a time (more
 * than the longest line and a page, so that one line always fits).  The
 * pages of the window count in the supervisor's RSS: the window is kept
 * small (16 MiB made a 1,000-process run's peak RSS 15 MiB larger). */
#define MAP_CHUNK ((off_t)256 * 1024)
/* The first chunks are smaller (16 KiB, then as much again as the run has
 * written): a short run reserves and faults in little. */
#define MAP_CHUNK_MIN ((off_t)16 * 1024)
#define MAP_WINDOW ((size_t)2 * 1024 * 1024)
_Static_assert(MAP_WINDOW >= AUDIT_MAX_LINE + 65536,
	       "a line and a page must fit in the window");
/* How far back from the end audit_open_fd looks for the zero bytes a
 * map writer that died left (at most MAP_CHUNK of them). */
#define MAP_TAIL_SCAN ((off_t)4 * MAP_CHUNK)

static const char hex_digits[] = "0123456789abcdef";

struct key_ref {
	size_t off, len;
};

/*
 * A record being built: its body, everything after the head that
 * audit_commit() gives it (seq, ts, run), starting with  ,"type":  in
 * buf[0..len).  Key offsets are into buf.  Builders are the writer's,
 * kept in a pool and reused: each thread builds its record in one of its
 * own, without the writer's lock (see "Group commit" below).
 */
struct audit_rec {
	struct audit_writer *w;
	struct audit_rec *next;	/* in the writer's pool of free builders */
	struct audit_rec *all;	/* every builder of the writer */
	char *buf;
	size_t len, cap;
	int err;	/* first builder error: -ENOMEM, -EMSGSIZE, -EINVAL */
	bool open;
	/* The writer's lock is held for this record (audit_rec_seq(),
	 * audit_rec_prev_hash() or audit_put_final() named its place in the
	 * chain) until its commit or abort. */
	bool pinned;
	unsigned int depth;
	/* Per nesting level (0 = the record object): is it an array, does
	 * the next member need a comma before it, and where its keys start
	 * in keys[]. */
	bool is_arr[AUDIT_MAX_DEPTH + 1];
	bool comma[AUDIT_MAX_DEPTH + 1];
	size_t level_keys[AUDIT_MAX_DEPTH + 1];
	/* Per level, a bit for each key it has (key_bit): a key whose bit
	 * is clear is new there without looking through keys[]. */
	uint64_t level_bits[AUDIT_MAX_DEPTH + 1];
	/* The keys of the open objects, as places in buf, to refuse
	 * duplicates.  A stack: closing an object drops its keys. */
	struct key_ref *keys;
	size_t nkeys, keys_cap;
};

/*
 * Group commit.  Each thread builds its record's body in a builder of its
 * own, without the lock (formatting and escaping, most of a record's
 * cost, run in parallel).  The commit takes the lock and appends the
 * record to the fill buffer: the head (seq, ts, run: the record's place
 * in the chain is decided there, so seq follows file order), the body,
 * then the hash over both (the chain is sequential).  A committing
 * thread whose record is not yet written becomes the flusher if nobody is
 * writing: it takes the whole fill buffer, leaves the spare one to gather
 * the next batch, and writes the batch with one write(2) (plus one
 * fdatasync with AUDIT_SYNC_EVERY) WITHOUT the lock, so that other threads
 * build and commit the next batch meanwhile.  Everyone else waits on
 * `done` until the records up to its own are written (done_seq) or an
 * error became sticky.  Only one batch is in flight, so file order is seq
 * order.
 *
 *   seq/last_hash           the chain: the last record committed (built and
 *                           hashed), which the next record chains to
 *   written_seq/_hash       the last record wholly in the file
 *   done_seq                the last record written and, with
 *                           AUDIT_SYNC_EVERY, synced, without error: its
 *                           commit (and those before it) may return 0
 *
 * done_seq <= written_seq <= seq.  When an error becomes sticky the chain
 * is set back to written_seq, so that once every commit has returned,
 * seq/last_hash are again the last record written whole, as the API says.
 */
struct audit_writer {
	/*
	 * Held while a record is appended to the chain (in audit_commit()),
	 * from audit_batch_begin() to audit_batch_end(), and for a pinned
	 * record from its pinning to its commit, so that records never
	 * interleave and seq/hash follow file order.  Recursive so that the
	 * thread holding a pinned record may still call
	 * audit_last_hash()/audit_last_seq()/audit_tick(), and a batch may
	 * commit records.  Released while a batch is written and while
	 * waiting on `done` (only ever held once there).
	 */
	pthread_mutex_t lock;
	pthread_cond_t done;
	uint64_t id;		/* unique for the process's life (tl_open) */
	int fd;
	enum audit_sync sync;
	char *run_json;		/* the run id, escaped, without quotes */
	size_t run_json_len;
	uint64_t seq;		/* seq of the last record committed */
	unsigned char last_hash[AUDIT_HASH_BYTES];
	/* BLAKE2b-256 with no key, before any input: copied at each commit
	 * rather than set up again (crypto_generichash_init). */
	crypto_generichash_state hash0;
	uint64_t written_seq;	/* seq of the last record wholly written */
	unsigned char written_hash[AUDIT_HASH_BYTES];
	uint64_t done_seq;	/* see above */
	int err;		/* sticky write/sync error, 0 or -errno */
	bool dirty;		/* records written since the last sync */
	bool flushing;		/* a batch is being written (lock released) */
	bool syncing;		/* an interval's fdatasync is running */
	bool in_batch;		/* between audit_batch_begin and _end */
	bool spin;		/* more than one CPU: waiters spin first */
	/* +1 (atomic store, under the lock) whenever a flush ends or an
	 * error becomes sticky: what a spinning waiter watches, unlocked. */
	unsigned int flush_gen;
	int batch_err;		/* sticky error a commit of the batch met */
	struct timespec last_sync; /* CLOCK_MONOTONIC */
	/* The fill buffer: whole records, hashed, waiting to be written. */
	char *fill;
	size_t fill_len, fill_cap;
	/* The buffer not being filled: free, or being written. */
	char *spare;
	size_t spare_cap;
	/* Builders: the free ones (pool, under pool_lock, held for a few
	 * instructions), and all of them (freed by audit_close). */
	pthread_spinlock_t pool_lock;
	struct audit_rec *pool, *builders;
	struct audit_rec *pinned;	/* the pinned record, under lock */
	struct audit_rec *batch_rec;	/* begun by the batch's thread */
	/* Longest head audit_commit() puts before a body:
	 * {"seq":<20>,"ts":<timestamp>,"run":"<run_json>" */
	size_t head_max;
	/* AUDIT_SYNC_INTERVAL: CLOCK_MONOTONIC ns from which audit_tick()
	 * takes the lock to look whether a sync is due (atomic: read
	 * without the lock); only without the syncer. */
	uint64_t sync_due_ns;
	/* AUDIT_SYNC_INTERVAL: the writer's own thread that syncs the trail
	 * once an interval has passed since the last sync and records were
	 * written, so that no committing thread (the supervisor's event
	 * loop) waits for the disk.  sync_cv (CLOCK_MONOTONIC) wakes it when
	 * the trail gets dirty and at close (stopping). */
	pthread_t syncer;
	bool have_syncer, syncer_tried, stopping;
	pthread_cond_t sync_cv;
	/* The map sink: map != NULL when records are copied into a shared
	 * mapping of the trail instead of written with write(2).  map holds
	 * the file's bytes [map_off, map_off + MAP_WINDOW); data_end is the
	 * offset after the last byte written, reserved_end the file's size
	 * (fallocate'd up to there).  Used by the flusher only. */
	char *map;
	off_t map_off, data_end, reserved_end;
	off_t populated_end;	/* window pages faulted in up to here */
	bool map_proven;	/* a fallocate(2) has worked on this file */
	off_t run_start;	/* data_end at open */
	off_t fsize_limit;	/* RLIMIT_FSIZE at open (chunks stop there) */
	/* --audit-syslog (audit/syslog.h): records are sent, whole and in
	 * order, by the flusher once they are in the file; ship_seq is the
	 * last one handed over, ship_err the send's sticky error. */
	struct audit_syslog *ship;
	uint64_t ship_seq;
	int ship_err;
	/* The last record of the file before this writer's first (raw hash),
	 * which its run.start names: has_prev_run false for a file that
	 * was empty, or a sink that is not a file (a pipe). */
	bool has_prev_run;
	unsigned char prev_run[AUDIT_HASH_BYTES];
	/* Timestamp cache: "\"YYYY-MM-DDTHH:MM:SS." of ts_sec. */
	time_t ts_sec;
	char ts_head[64];
	size_t ts_head_len;
};

/* ts_head's longest:  "YYYY-MM-DDTHH:MM:SS.  (a year of any width) plus
 * the microseconds,  NNNNNNZ"  */
#define TS_MAX (sizeof(((struct audit_writer *)0)->ts_head) + 8)

/* Writer ids (audit_writer.id): never 0, never reused. */
static uint64_t next_writer_id = 1;

/* This thread's open record: the id of its writer (0: none).  A second
 * audit_begin() on the same writer is refused (audit/audit.h). */
static __thread uint64_t tl_open;
/* The writer whose batch this thread holds (its id; 0: none). */
static __thread uint64_t tl_batch;

/*
 * Take the writer's mutex.  It is held for a few microseconds at a time
 * (building and hashing one record), so with more than one CPU try for a
 * while before sleeping: a futex sleep and wake-up cost more than that.
 */
#define LOCK_SPIN_TRIES 200

static void lock_writer(struct audit_writer *w)
{
	if (w->spin) {
		for (int i = 0; i < LOCK_SPIN_TRIES; i++) {
			if (pthread_mutex_trylock(&w->lock) == 0)
				return;
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
	}
	pthread_mutex_lock(&w->lock);
}

/* ---- buffer ---------------------------------------------------------- */

static void rec_fail(struct audit_rec *r, int err)
{
	if (r->err == 0)
		r->err = err;
}

/* Make room for want bytes in *buf (a builder's, or the fill buffer). */
static int buf_grow(char **buf, size_t *cap, size_t want)
{
	size_t c;
	char *nb;

	if (want <= *cap)
		return 0;
	c = *cap ? *cap : REC_INITIAL_CAP;
	while (c < want)
		c *= 2;
	nb = realloc(*buf, c);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = c;
	return 0;
}

/* How many more bytes the open record may take.  Lines are capped at
 * AUDIT_MAX_LINE including the hash suffix, so the verifier accepts
 * whatever we write. */
static inline size_t rec_left(const struct audit_rec *r)
{
	return AUDIT_MAX_LINE - HASH_SUFFIX_LEN - r->w->head_max - r->len;
}

/* Room for n more bytes: where to write them, or NULL (error remembered).
 * The caller adds what it wrote to r->len. */
static inline char *rec_room(struct audit_rec *r, size_t n)
{
	int rc;

	if (r->err)
		return NULL;
	if (n > rec_left(r)) {
		rec_fail(r, -EMSGSIZE);
		return NULL;
	}
	if (n > r->cap - r->len) {
		rc = buf_grow(&r->buf, &r->cap, r->len + n);
		if (rc < 0) {
			rec_fail(r, rc);
			return NULL;
		}
	}
	return r->buf + r->len;
}

static inline void put_mem(struct audit_rec *r, const void *p, size_t n)
{
	char *d = rec_room(r, n);

	if (d) {
		memcpy(d, p, n);
		r->len += n;
	}
}

#define put_lit(r, lit) put_mem((r), (lit), sizeof(lit) - 1)

static inline void put_char(struct audit_rec *r, char c)
{
	char *d = rec_room(r, 1);

	if (d) {
		*d = c;
		r->len++;
	}
}

/*
 * Append src escaped by the audit_escape() rule (no quotes).  Returns
 * whether the escaping lost information (!audit_utf8_clean).  When the
 * worst case (6 bytes per byte) fits in the line, escape straight into the
 * buffer; otherwise go unit by unit, so that a value that does fit exactly
 * is not refused.
 */
static bool put_escaped(struct audit_rec *r, const void *src, size_t len)
{
	const unsigned char *s = src;
	size_t i = 0;
	bool lossy = false;
	char *d;

	if (r->err)
		return false;
	if (len <= rec_left(r) / AUDIT_ESC_UNIT_MAX) {
		d = rec_room(r, len * AUDIT_ESC_UNIT_MAX);
		if (d)
			r->len += audit_esc_fast(d, s, len, &lossy);
		return lossy;
	}
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
	return !audit_utf8_clean(s, len);
}

/* "<escaped src>"; returns whether the escaping was lossy. */
static bool put_quoted(struct audit_rec *r, const void *src, size_t len)
{
	bool lossy = false;
	char *d;

	if (r->err)
		return false;
	if (rec_left(r) >= 2 &&
	    len <= (rec_left(r) - 2) / AUDIT_ESC_UNIT_MAX) {
		d = rec_room(r, 2 + len * AUDIT_ESC_UNIT_MAX);
		if (!d)
			return false;
		d[0] = '"';
		d += 1 + audit_esc_fast(d + 1, src, len, &lossy);
		*d++ = '"';
		r->len = (size_t)(d - r->buf);
		return lossy;
	}
	put_char(r, '"');
	lossy = put_escaped(r, src, len);
	put_char(r, '"');
	return lossy;
}

static void put_hex_bytes(struct audit_rec *r, const void *src, size_t len)
{
	const unsigned char *s = src;
	char *d;

	if (len > SIZE_MAX / 2) {
		rec_fail(r, -EMSGSIZE);
		return;
	}
	d = rec_room(r, 2 * len);
	if (!d)
		return;
	for (size_t i = 0; i < len; i++) {
		*d++ = hex_digits[s[i] >> 4];
		*d++ = hex_digits[s[i] & 0xf];
	}
	r->len += 2 * len;
}

/* "00" "01" ... "99" */
static const char two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

/* Decimal digits of v at the END of buf[0..20); returns where they start. */
static char *u64_digits(char buf[20], uint64_t v)
{
	char *p = buf + 20;

	while (v >= 100) {
		unsigned int k = (unsigned int)(v % 100) * 2;

		v /= 100;
		p -= 2;
		p[0] = two_digits[k];
		p[1] = two_digits[k + 1];
	}
	if (v >= 10) {
		p -= 2;
		p[0] = two_digits[v * 2];
		p[1] = two_digits[v * 2 + 1];
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

/* Append v in decimal, with a '-' when neg, and quotes when quoted. */
static void put_u64(struct audit_rec *r, uint64_t v, bool neg, bool quoted)
{
	char buf[20], *p = u64_digits(buf, v);
	size_t n = (size_t)(buf + 20 - p);
	char *d = rec_room(r, n + 2);

	if (!d)
		return;
	if (quoted)
		*d++ = '"';
	else if (neg)
		*d++ = '-';
	memcpy(d, p, n);
	d += n;
	if (quoted)
		*d++ = '"';
	r->len += n + (quoted ? 2 : neg ? 1 : 0);
}

/* One of 64 bits for the key k[0..len), from its length and its first and
 * last bytes (a filter only: equal keys have equal bits). */
static inline uint64_t key_bit(const char *k, size_t len)
{
	if (len == 0)
		return 1;
	return (uint64_t)1 << ((len * 7 + (unsigned char)k[0] +
				(unsigned char)k[len - 1] * 3) & 63);
}

/* Is the key just written at buf[off..off+len), of key_bit() bit, already
 * in this object? */
static bool key_seen(const struct audit_rec *r, size_t off, size_t len,
		     uint64_t bit)
{
	const char *k = r->buf + off;

	/* The head (seq, ts, run) starts every record and "hash" ends it;
	 * nobody else may use them up there. */
	if (r->depth == 0 &&
	    ((len == 4 && memcmp(k, "hash", 4) == 0) ||
	     (len == 3 && (memcmp(k, "seq", 3) == 0 ||
			   memcmp(k, "run", 3) == 0)) ||
	     (len == 2 && memcmp(k, "ts", 2) == 0)))
		return true;
	if (!(r->level_bits[r->depth] & bit))
		return false;
	for (size_t i = r->level_keys[r->depth]; i < r->nkeys; i++)
		if (r->keys[i].len == len &&
		    (len == 0 || (r->buf[r->keys[i].off] == k[0] &&
				  memcmp(r->buf + r->keys[i].off, k, len) == 0)))
			return true;
	return false;
}

static void note_key(struct audit_rec *r, size_t off, size_t len,
		     uint64_t bit)
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
	r->level_bits[r->depth] |= bit;
}

/*
 * Start a member: the comma if one is due, then "key<suffix>": inside an
 * object.  A key inside an array, a missing key inside an object and a key
 * the object already has are caller bugs, remembered as -EINVAL so that no
 * record is written half-formed or ambiguous (the verifier rejects
 * duplicate keys).
 */
static bool put_key_suffix(struct audit_rec *r, const char *key,
			   const char *suffix, size_t suffix_len)
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
	if (key) {
		size_t klen = strlen(key), worst;
		uint64_t bit;
		bool lossy;
		char *p;

		/* Keys are short literals: one reservation for the worst
		 * case  ,"<escaped key><suffix>":  when it fits. */
		if (klen <= KEY_FAST_MAX &&
		    (worst = 4 + AUDIT_ESC_UNIT_MAX * klen + suffix_len) <=
			    rec_left(r)) {
			p = rec_room(r, worst);
			if (!p)
				return false;
			if (r->comma[d])
				*p++ = ',';
			*p++ = '"';
			off = (size_t)(p - r->buf);
			p += audit_esc_fast(p, (const unsigned char *)key, klen,
					    &lossy);
			memcpy(p, suffix, suffix_len);
			p += suffix_len;
			r->len = (size_t)(p - r->buf);
		} else {
			if (r->comma[d])
				put_char(r, ',');
			put_char(r, '"');
			off = r->len;
			put_escaped(r, key, klen);
			put_mem(r, suffix, suffix_len);
			if (r->err)
				return false;
		}
		r->comma[d] = true;
		klen = r->len - off;	/* the key as written */
		bit = key_bit(r->buf + off, klen);
		if (key_seen(r, off, klen, bit)) {
			rec_fail(r, -EINVAL);
			return false;
		}
		note_key(r, off, klen, bit);
		/* The reservation above left room for these two. */
		put_lit(r, "\":");
	} else {
		if (r->comma[d])
			put_char(r, ',');
		r->comma[d] = true;
	}
	return r->err == 0;
}

static bool put_key(struct audit_rec *r, const char *key)
{
	return put_key_suffix(r, key, "", 0);
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
	put_quoted(r, val, strlen(val));
}

void audit_bytes(struct audit_rec *r, const char *key, const void *buf,
		 size_t len)
{
	size_t mark;
	bool lossy;

	if (!buf && len > 0) {
		if (r)
			rec_fail(r, -EINVAL);
		return;
	}
	if (!put_key(r, key))
		return;
	mark = r->len;
	lossy = put_quoted(r, buf, len);
	if (!lossy || r->err)
		return;
	/* Lossy: add every raw byte in hex beside the readable text. */
	if (key) {
		if (!put_key_suffix(r, key, "_hex", 4))
			return;
		put_char(r, '"');
	} else {
		/* In an array the element becomes {"text":"...","hex":"..."}:
		 * put {"text": in front of the string just written. */
		static const char text_key[] = "{\"text\":";
		const size_t tl = sizeof(text_key) - 1;

		if (!rec_room(r, tl))
			return;
		memmove(r->buf + mark + tl, r->buf + mark, r->len - mark);
		memcpy(r->buf + mark, text_key, tl);
		r->len += tl;
		put_lit(r, ",\"hex\":\"");
	}
	put_hex_bytes(r, buf, len);
	put_char(r, '"');
	if (!key)
		put_char(r, '}');
}

void audit_int(struct audit_rec *r, const char *key, int64_t v)
{
	if (!put_key(r, key))
		return;
	/* -(uint64_t)v is exact for INT64_MIN too. */
	put_u64(r, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, false);
}

void audit_uint(struct audit_rec *r, const char *key, uint64_t v)
{
	if (!put_key(r, key))
		return;
	/* Above INT64_MAX many JSON readers (jansson among them) fail or lose
	 * precision: write such values as a decimal string. */
	put_u64(r, v, false, v > INT64_MAX);
}

void audit_hex(struct audit_rec *r, const char *key, uint64_t v)
{
	char buf[16], *p = buf + sizeof(buf), *d;
	size_t n;

	if (!put_key(r, key))
		return;
	do {
		*--p = hex_digits[v & 0xf];
		v >>= 4;
	} while (v);
	n = (size_t)(buf + sizeof(buf) - p);
	d = rec_room(r, n + 4);
	if (!d)
		return;
	memcpy(d, "\"0x", 3);
	memcpy(d + 3, p, n);
	d[3 + n] = '"';
	r->len += n + 4;
}

void audit_bool(struct audit_rec *r, const char *key, bool v)
{
	if (!put_key(r, key))
		return;
	if (v)
		put_lit(r, "true");
	else
		put_lit(r, "false");
}

void audit_null(struct audit_rec *r, const char *key)
{
	if (put_key(r, key))
		put_lit(r, "null");
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
	r->level_bits[r->depth] = 0;
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

/* Write all of buf, retrying EINTR and short writes; *done gets the bytes
 * written. */
static int write_all(int fd, const char *buf, size_t len, size_t *done)
{
	*done = 0;
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
		*done += (size_t)n;
	}
	return 0;
}

/* ---- map sink -------------------------------------------------------- */

/*
 * When the trail is a regular file open for reading and writing, records
 * are copied into a shared mapping of it instead of written with write(2),
 * which costs about a microsecond a record here, more than building and
 * hashing it.
 *
 * Security (the crash guarantee): a store into a MAP_SHARED mapping of a
 * file is in the file's page cache when the store is done, exactly where
 * write(2) would have put it, so a SIGKILL of the supervisor loses no
 * record that audit_commit() returned for, and fdatasync(2) syncs those
 * pages as it syncs written ones (audit_tick, AUDIT_SYNC_EVERY).
 *
 * Space is reserved ahead with fallocate(2), up to MAP_CHUNK at a time
 * (a run's first chunks are smaller), so that a full disk or RLIMIT_FSIZE
 * is an error (ENOSPC, EFBIG) before a record is copied, never a SIGBUS
 * on a page that cannot be had; when a whole chunk cannot be had, each
 * record takes just its own bytes, so records go on up to the last free
 * byte as with write(2).  The file thus ends
 * with zero bytes during a run; audit_close() cuts it back to its last
 * record.  A writer that dies leaves them: readers and the verifier take a
 * last line of zero bytes as the end of the trail (no record starts with
 * NUL), and the next audit_open_fd() writes over them.
 *
 * The mapping can still fault if another process truncates the file under
 * the writer (the trail is tamper-evident, not tamper-proof) or on an I/O
 * error: the copy runs with a SIGBUS handler armed for this thread, which
 * turns such a fault into the sticky error -EIO.  That handler is the one
 * signal disposition audit/ sets; a SIGBUS it does not expect goes to the
 * disposition that was there before.
 *
 * An flock(LOCK_EX) on the trail keeps a second writer out (-EBUSY): two
 * writers would write over each other's records.
 */

static struct sigaction old_sigbus;
static pthread_once_t sigbus_once = PTHREAD_ONCE_INIT;
static int sigbus_install_err;
/* Armed around one copy into the map: where to jump, and the bytes the
 * copy writes. */
static __thread sigjmp_buf *volatile map_jump;
static __thread const char *volatile map_copy_lo;
static __thread const char *volatile map_copy_hi;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	sigjmp_buf *j = map_jump;
	const char *a = si ? (const char *)si->si_addr : NULL;

	if (j && si && si->si_code > 0 && a >= map_copy_lo && a < map_copy_hi) {
		map_jump = NULL;
		siglongjmp(*j, 1);
	}
	/* Not a fault of ours: back to the disposition from before.  For a
	 * fault the instruction runs again and meets it; a SIGBUS sent with
	 * kill(2) is sent again. */
	if (old_sigbus.sa_flags & SA_SIGINFO) {
		old_sigbus.sa_sigaction(sig, si, ctx);
		return;
	}
	sigaction(SIGBUS, &old_sigbus, NULL);
	if (!si || si->si_code <= 0)
		raise(SIGBUS);
}

static void install_sigbus(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_NODEFER };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &old_sigbus) < 0)
		sigbus_install_err = -errno;
}

/* The offset after the last byte that is not zero, looking back at most
 * MAP_TAIL_SCAN bytes from size (beyond that, everything counts). */
static int data_end_of(int fd, off_t size, off_t *end)
{
	char buf[16384];
	off_t stop = size > MAP_TAIL_SCAN ? size - MAP_TAIL_SCAN : 0;
	off_t pos = size;

	while (pos > stop) {
		size_t want = (size_t)(pos - stop < (off_t)sizeof(buf) ?
				       pos - stop : (off_t)sizeof(buf));
		ssize_t n = pread(fd, buf, want, pos - (off_t)want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if ((size_t)n != want)
			return -EIO;	/* the file shrank meanwhile */
		for (size_t i = want; i > 0; i--)
			if (buf[i - 1] != '\0') {
				*end = pos - (off_t)want + (off_t)i;
				return 0;
			}
		pos -= (off_t)want;
	}
	*end = pos;
	return 0;
}

/* First and largest read of the end of a trail for its last line. */
#define TAIL_READ_MIN ((size_t)4096)

/*
 * Read the record that ends the file at end (its newline the byte before
 * end) into hash.  Returns 0, -EBADMSG when the bytes there are not a
 * whole record, or -errno.
 */
static int last_record_hash(int fd, off_t end,
			    unsigned char hash[AUDIT_HASH_BYTES])
{
	AUTO_FREE char *buf = NULL;
	size_t want = TAIL_READ_MIN;

	for (;;) {
		size_t n = end < (off_t)want ? (size_t)end : want, got = 0;
		const char *nl;
		char *nb = realloc(buf, n);

		if (!nb)
			return -ENOMEM;
		buf = nb;
		while (got < n) {
			ssize_t r = pread(fd, buf + got, n - got,
					  end - (off_t)n + (off_t)got);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return -errno;
			if (r == 0)
				return -EIO;	/* the file shrank */
			got += (size_t)r;
		}
		if (buf[n - 1] != '\n')
			return -EBADMSG;
		nl = memrchr(buf, '\n', n - 1);
		if (nl)
			return audit_line_hash(nl + 1,
					       (size_t)(buf + n - 1 - nl - 1),
					       hash);
		if ((off_t)n == end)	/* the file's only line */
			return audit_line_hash(buf, n - 1, hash);
		if (n >= AUDIT_MAX_LINE)
			return -EBADMSG;
		want = n * 2 > AUDIT_MAX_LINE ? AUDIT_MAX_LINE : n * 2;
	}
}

/*
 * The next run.start names the record the file ends with at end (the
 * previous run's last), so that a whole run dropped, added or moved is
 * seen.  An fd open for writing only is read through a second open of
 * the same file (/proc/self/fd).  Security: a file that does not end in
 * a whole record is refused (-EBADMSG): the run could not say what it
 * follows, and records appended to garbage would not verify.
 */
static int chain_to_end(struct audit_writer *w, off_t end)
{
	char proc[64];
	AUTO_CLOSE int rfd = -1;
	int rc;

	if (end == 0)
		return 0;
	rc = last_record_hash(w->fd, end, w->prev_run);
	if (rc == -EBADF) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w->fd);
		rfd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (rfd < 0)
			return -errno;
		rc = last_record_hash(rfd, end, w->prev_run);
	}
	if (rc < 0)
		return rc;
	w->has_prev_run = true;
	return 0;
}

/* Where records of the write(2) sink go in a regular file: its end with
 * O_APPEND, else the fd's offset. */
static int write_pos(struct audit_writer *w, const struct stat *st,
		     off_t *pos)
{
	int fl = fcntl(w->fd, F_GETFL);

	if (fl < 0)
		return -errno;
	*pos = (fl & O_APPEND) ? st->st_size : lseek(w->fd, 0, SEEK_CUR);
	return *pos < 0 ? -errno : 0;
}

/* Reserve the file's bytes up to want: a chunk, or just want when a whole
 * chunk cannot be had (a nearly full disk, RLIMIT_FSIZE). */
static int map_reserve(struct audit_writer *w, off_t want)
{
	off_t written = w->data_end - w->run_start;
	off_t chunk = written < MAP_CHUNK_MIN ? MAP_CHUNK_MIN :
		      written > MAP_CHUNK ? MAP_CHUNK : written;
	off_t chunk_end = (want + chunk - 1) / chunk * chunk;

	if (want <= w->reserved_end)
		return 0;
	/* A chunk past RLIMIT_FSIZE would fail with SIGXFSZ as well as
	 * EFBIG: reserve up to the limit, as write(2) would write. */
	if (chunk_end > w->fsize_limit)
		chunk_end = want > w->fsize_limit ? want : w->fsize_limit;
	if (fallocate(w->fd, 0, w->reserved_end,
		      chunk_end - w->reserved_end) == 0) {
		w->reserved_end = chunk_end;
		return 0;
	}
	if (errno != ENOSPC && errno != EFBIG && errno != EDQUOT)
		return -errno;
	if (fallocate(w->fd, 0, w->reserved_end, want - w->reserved_end) < 0)
		return -errno;
	w->reserved_end = want;
	return 0;
}

/* Map the window that holds [data_end, data_end + len), len at most
 * AUDIT_MAX_LINE. */
static int map_window(struct audit_writer *w, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t off;
	void *m;

	if (w->map != MAP_FAILED && w->data_end >= w->map_off &&
	    w->data_end + (off_t)len <= w->map_off + (off_t)MAP_WINDOW)
		return 0;
	if (w->map != MAP_FAILED)
		munmap(w->map, MAP_WINDOW);
	w->map = MAP_FAILED;
	off = w->data_end / page * page;
	m = mmap(NULL, MAP_WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd,
		 off);
	if (m == MAP_FAILED)
		return -errno;
	/* A child the supervisor forks (the command, before its exec) has
	 * no business with the trail's pages. */
	madvise(m, MAP_WINDOW, MADV_DONTFORK);
	w->map = m;
	w->map_off = off;
	w->populated_end = off;
	return 0;
}

/*
 * Set up the sink for fd: the map sink when fd is a regular file open
 * O_RDWR on a file system with fallocate(2), else write(2).  Either way a
 * regular file is locked against a second writer (-EBUSY).  Returns 0 or
 * -errno.
 */
static int sink_open(struct audit_writer *w)
{
	struct rlimit lim;
	struct stat st;
	off_t end;
	int fl, rc;

	if (fstat(w->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	if (TEMP_FAILURE_RETRY_INT(flock(w->fd, LOCK_EX | LOCK_NB)) < 0) {
		if (errno == EWOULDBLOCK)
			return -EBUSY;
		/* No locks here (ENOLCK): write(2), unlocked. */
		rc = write_pos(w, &st, &end);
		return rc < 0 ? rc : chain_to_end(w, end);
	}
	fl = fcntl(w->fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) != O_RDWR) {
		rc = write_pos(w, &st, &end);
		return rc < 0 ? rc : chain_to_end(w, end);
	}
	rc = data_end_of(w->fd, st.st_size, &end);
	if (rc == 0)
		rc = chain_to_end(w, end);
	if (rc < 0)
		return rc;
	pthread_once(&sigbus_once, install_sigbus);
	if (sigbus_install_err)
		return 0;
	w->data_end = end;
	w->run_start = end;
	w->reserved_end = st.st_size;
	w->fsize_limit = getrlimit(RLIMIT_FSIZE, &lim) == 0 &&
				 lim.rlim_cur != RLIM_INFINITY &&
				 lim.rlim_cur < (rlim_t)INT64_MAX ?
			 (off_t)lim.rlim_cur : (off_t)INT64_MAX;
	w->map_off = -1;
	w->map = MAP_FAILED;
	/* Can this file be mapped at all (some FUSE file systems cannot)?
	 * Mapping past the end is no error, touching it would be. */
	if (map_window(w, 0) < 0) {
		w->map = NULL;
		return 0;
	}
	return 1;
}

/*
 * Fault in the reserved pages of the window ahead of the copies, with one
 * madvise(2) for what would be a page fault every few records.  Only an
 * optimisation: where it fails (before Linux 5.14), the copies fault.
 */
static void map_populate(struct audit_writer *w)
{
#ifdef MADV_POPULATE_WRITE
	off_t end = w->map_off + (off_t)MAP_WINDOW;
	long page = sysconf(_SC_PAGESIZE);

	if (w->reserved_end < end)
		end = w->reserved_end / page * page;
	if (end <= w->populated_end)
		return;
	if (madvise(w->map + (w->populated_end - w->map_off),
		    (size_t)(end - w->populated_end), MADV_POPULATE_WRITE) == 0)
		w->populated_end = end;
	else
		w->populated_end = w->reserved_end;	/* not again */
#else
	(void)w;
#endif
}

/* Copy one line into the map at data_end (reserved and mapped).  A SIGBUS
 * on the way is -EIO: the file was cut short under us, or cannot be read. */
static int map_copy(struct audit_writer *w, const char *p, size_t len)
{
	sigjmp_buf jb;
	char *dst = w->map + (w->data_end - w->map_off);

	if (sigsetjmp(jb, 0)) {
		map_copy_lo = map_copy_hi = NULL;
		return -EIO;
	}
	map_copy_lo = dst;
	map_copy_hi = dst + len;
	map_jump = &jb;
	/* The handler reads these: no store may move across the copy. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	memcpy(dst, p, len);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	map_jump = NULL;
	map_copy_lo = map_copy_hi = NULL;
	w->data_end += (off_t)len;
	return 0;
}

/*
 * Append buf[0..len) (whole lines) to the trail, as write_all() does;
 * *done gets the bytes in the file.  The map sink takes one line at a
 * time, so that on an error exactly the whole lines before it are in.
 */
static int sink_write(struct audit_writer *w, const char *buf, size_t len,
		      size_t *done)
{
	const char *p = buf, *end = buf + len;
	int rc;

	if (!w->map)
		return write_all(w->fd, buf, len, done);
	*done = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);

		rc = map_reserve(w, w->data_end + (off_t)n);
		if (rc == -EOPNOTSUPP && !w->map_proven) {
			/* No fallocate(2) on this file system (the first
			 * reservation tells, nothing was reserved): write(2)
			 * from here on, after the last record. */
			size_t more = 0;

			if (w->map != MAP_FAILED)
				munmap(w->map, MAP_WINDOW);
			w->map = NULL;
			if (lseek(w->fd, w->data_end, SEEK_SET) < 0)
				return -errno;
			rc = write_all(w->fd, p, (size_t)(end - p), &more);
			*done += more;
			return rc;
		}
		if (rc == 0) {
			w->map_proven = true;
			rc = map_window(w, n);
		}
		if (rc == 0 && w->data_end + (off_t)n > w->populated_end)
			map_populate(w);
		if (rc == 0)
			rc = map_copy(w, p, n);
		if (rc < 0)
			return rc;
		*done += n;
		p += n;
	}
	return 0;
}

/*
 * At close: unmap, and cut the file back to its last record, unless
 * somebody else changed its size meanwhile (their bytes then stay after
 * ours, for the verifier to see).
 */
static int sink_close(struct audit_writer *w)
{
	struct stat st;

	if (!w->map)
		return 0;
	if (w->map != MAP_FAILED)
		munmap(w->map, MAP_WINDOW);
	w->map = NULL;
	if (fstat(w->fd, &st) < 0)
		return -errno;
	if (st.st_size == w->reserved_end && w->data_end < st.st_size &&
	    TEMP_FAILURE_RETRY_INT(ftruncate(w->fd, w->data_end)) < 0)
		return -errno;
	return 0;
}

/* ---- writer ---------------------------------------------------------- */

static void note_sync(struct audit_writer *w);
static void syncer_stop(struct audit_writer *w);

int audit_open_fd(int fd, enum audit_sync sync, const char *run_id,
		  struct audit_writer **out)
{
	struct audit_writer *w = NULL;
	pthread_mutexattr_t attr;
	size_t id_len, esc_len;
	bool have_lock = false, have_cond = false, have_spin = false;
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
	w->run_json_len = esc_len;
	crypto_generichash_init(&w->hash0, NULL, 0, AUDIT_HASH_BYTES);

	rc = pthread_mutexattr_init(&attr);
	if (rc == 0) {
		rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
		if (rc == 0)
			rc = pthread_mutex_init(&w->lock, &attr);
		pthread_mutexattr_destroy(&attr);
	}
	if (rc == 0) {
		have_lock = true;
		rc = pthread_cond_init(&w->done, NULL);
	}
	if (rc == 0) {
		have_cond = true;
		rc = pthread_spin_init(&w->pool_lock, PTHREAD_PROCESS_PRIVATE);
	}
	if (rc != 0) {
		rc = -rc;
		goto fail;
	}
	have_spin = true;
	/* One builder from the start: a writer used by one thread at a
	 * time never needs another, and its audit_begin() cannot fail. */
	rc = -ENOMEM;
	w->pool = w->builders = calloc(1, sizeof(*w->pool));
	if (!w->pool)
		goto fail;
	w->pool->w = w;
	w->id = __atomic_fetch_add(&next_writer_id, 1, __ATOMIC_RELAXED);
	w->head_max = 7 + 20 + 6 + TS_MAX + 8 + w->run_json_len + 1;
	w->fd = fd;
	w->sync = sync;
	w->ts_sec = (time_t)-1;
	/* The CPUs this process may run on (a syscall), not the ones online
	 * (sysconf reads sysfs: 6 to 25 us of every start). */
	{
		cpu_set_t cpus;

		w->spin = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 &&
			  CPU_COUNT(&cpus) > 1;
	}
	note_sync(w);
	rc = sink_open(w);
	if (rc < 0)
		goto fail;
	*out = w;
	return 0;
fail:
	if (have_spin)
		pthread_spin_destroy(&w->pool_lock);
	if (have_cond)
		pthread_cond_destroy(&w->done);
	if (have_lock)
		pthread_mutex_destroy(&w->lock);
	if (w) {
		free(w->pool);
		free(w->run_json);
	}
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
	/* O_RDWR for the map sink; O_APPEND for write(2), should the file
	 * system not allow the map. */
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
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
	__atomic_store_n(&w->sync_due_ns,
			 (uint64_t)w->last_sync.tv_sec * 1000000000u +
				 (uint64_t)w->last_sync.tv_nsec +
				 AUDIT_SYNC_INTERVAL_MS * 1000000u,
			 __ATOMIC_RELAXED);
}

/* Lock held.  Records were written: the syncer (if any) starts counting
 * the interval down. */
static void mark_dirty(struct audit_writer *w)
{
	if (!w->dirty && w->have_syncer)
		pthread_cond_signal(&w->sync_cv);
	w->dirty = true;
}

/*
 * Lock held.  Make err sticky (the first one stays) and set the chain back
 * to the last record wholly in the file: records committed but not written
 * never will be (their commits return the error), and no later record may
 * claim to follow them.  Wakes the waiters so that they return it.
 */
static void set_sticky(struct audit_writer *w, int err)
{
	if (w->err == 0)
		__atomic_store_n(&w->err, err, __ATOMIC_RELAXED);
	w->seq = w->written_seq;
	memcpy(w->last_hash, w->written_hash, AUDIT_HASH_BYTES);
	__atomic_store_n(&w->flush_gen, w->flush_gen + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&w->done);
}

int audit_close(struct audit_writer *w)
{
	int rc, s;

	if (!w)
		return 0;
	syncer_stop(w);
	pthread_mutex_lock(&w->lock);
	rc = w->err;
	s = sink_close(w);
	if (rc == 0)
		rc = s;
	if (w->sync != AUDIT_SYNC_NONE) {
		s = sync_fd(w->fd);
		if (rc == 0)
			rc = s;
	}
	/* Security: a failing close(2) can report a lost write (NFS, EIO). */
	if (close(w->fd) < 0 && rc == 0 && errno != EINTR)
		rc = -errno;
	pthread_mutex_unlock(&w->lock);
	pthread_cond_destroy(&w->done);
	pthread_mutex_destroy(&w->lock);
	pthread_spin_destroy(&w->pool_lock);
	for (struct audit_rec *r = w->builders, *next; r; r = next) {
		next = r->all;
		free(r->buf);
		free(r->keys);
		free(r);
	}
	audit_syslog_close(w->ship);
	free(w->fill);
	free(w->spare);
	free(w->run_json);
	free(w);
	return rc;
}

void audit_set_syslog(struct audit_writer *w, struct audit_syslog *s)
{
	pthread_mutex_lock(&w->lock);
	w->ship = s;
	w->ship_seq = w->seq;
	pthread_mutex_unlock(&w->lock);
}

int audit_ship_error(struct audit_writer *w)
{
	return w ? __atomic_load_n(&w->ship_err, __ATOMIC_RELAXED) : 0;
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

static void syncer_start(struct audit_writer *w);

static uint64_t now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static int64_t elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - since->tv_sec) * 1000 +
	       (now.tv_nsec - since->tv_nsec) / 1000000;
}

/*
 * Lock held once.  fdatasync the trail without the lock, so that records
 * go on being written meanwhile; a record written after note_sync() sets
 * dirty again and waits for the next interval.  Returns 0 or -errno (then
 * sticky).
 */
static int sync_now(struct audit_writer *w)
{
	int rc;

	note_sync(w);
	w->syncing = true;
	pthread_mutex_unlock(&w->lock);
	rc = sync_fd(w->fd);
	pthread_mutex_lock(&w->lock);
	w->syncing = false;
	if (rc < 0)
		set_sticky(w, rc);
	return rc < 0 ? rc : w->err;
}

static bool sync_due(struct audit_writer *w)
{
	return w->err == 0 && w->dirty && !w->syncing &&
	       elapsed_ms(&w->last_sync) >= AUDIT_SYNC_INTERVAL_MS;
}

int audit_tick(struct audit_writer *w)
{
	int rc = 0;

	if (!w)
		return -EINVAL;
	/* Called after each record (or turn): without the lock unless the
	 * first sync may be due (AUDIT_SYNC_INTERVAL, no syncer yet).  err,
	 * have_syncer and sync_due_ns are written under the lock with atomic
	 * stores; a stale look only defers to the next tick. */
	if (w->sync != AUDIT_SYNC_INTERVAL ||
	    __atomic_load_n(&w->have_syncer, __ATOMIC_RELAXED) || now_ns() <
	    __atomic_load_n(&w->sync_due_ns, __ATOMIC_RELAXED))
		return __atomic_load_n(&w->err, __ATOMIC_RELAXED);
	pthread_mutex_lock(&w->lock);
	if (sync_due(w)) {
		/* The syncer starts with the first sync that is due, so that
		 * a run shorter than the interval creates no thread (one
		 * costs about 0.1 ms of start-up); it syncs at once. */
		if (!w->have_syncer && !w->syncer_tried)
			syncer_start(w);
		if (!w->have_syncer)
			rc = sync_now(w);
	}
	if (rc == 0)
		rc = w->err;
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* The syncer (AUDIT_SYNC_INTERVAL): sleeps while the trail is clean, and
 * syncs it once an interval has passed since the last sync. */
static void *syncer_main(void *arg)
{
	struct audit_writer *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->stopping) {
		struct timespec at = w->last_sync;

		if (sync_due(w)) {
			sync_now(w);
			continue;
		}
		if (!w->dirty || w->err || w->syncing) {
			pthread_cond_wait(&w->sync_cv, &w->lock);
			continue;
		}
		at.tv_sec += AUDIT_SYNC_INTERVAL_MS / 1000;
		at.tv_nsec += (AUDIT_SYNC_INTERVAL_MS % 1000) * 1000000L;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->sync_cv, &w->lock, &at);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/*
 * Lock held.  Start the syncer, with every signal blocked (a signal meant
 * for the process, e.g. for the supervisor's signalfd, must not land on
 * it).  Without it (no thread to be had), audit_tick() syncs itself.
 */
static void syncer_start(struct audit_writer *w)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	bool ok;

	w->syncer_tried = true;
	if (pthread_condattr_init(&ca) != 0)
		return;
	if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&w->sync_cv, &ca) != 0) {
		pthread_condattr_destroy(&ca);
		return;
	}
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = pthread_create(&w->syncer, NULL, syncer_main, w) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ok)
		__atomic_store_n(&w->have_syncer, true, __ATOMIC_RELAXED);
	else
		pthread_cond_destroy(&w->sync_cv);
}

static void syncer_stop(struct audit_writer *w)
{
	if (!w->have_syncer)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->sync_cv);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->syncer, NULL);
	pthread_cond_destroy(&w->sync_cv);
	w->have_syncer = false;
}

/* "2026-11-29T14:03:07.123456Z" (RFC 3339, UTC), quotes included, at d
 * (room for TS_MAX bytes).  The part up to the seconds is formatted once
 * per second.  Lock held.  Returns its length, or -EIO. */
static int put_timestamp(struct audit_writer *w, char *d)
{
	struct timespec ts;
	unsigned long us;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return -EIO;
	if (ts.tv_sec != w->ts_sec) {
		struct tm tm;
		int n;

		if (!gmtime_r(&ts.tv_sec, &tm))
			return -EIO;
		n = snprintf(w->ts_head, sizeof(w->ts_head),
			     "\"%04d-%02d-%02dT%02d:%02d:%02d.",
			     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			     tm.tm_hour, tm.tm_min, tm.tm_sec);
		if (n < 0 || (size_t)n >= sizeof(w->ts_head))
			return -EIO;
		w->ts_head_len = (size_t)n;
		w->ts_sec = ts.tv_sec;
	}
	memcpy(d, w->ts_head, w->ts_head_len);
	d += w->ts_head_len;
	us = (unsigned long)ts.tv_nsec / 1000; /* 0..999999: 6 digits */
	for (int i = 5; i >= 0; i--) {
		d[i] = (char)('0' + us % 10);
		us /= 10;
	}
	memcpy(d + 6, "Z\"", 2);
	return (int)(w->ts_head_len + 8);
}

/* A free builder of w, or a new one (NULL: out of memory). */
static struct audit_rec *builder_get(struct audit_writer *w)
{
	struct audit_rec *r;

	pthread_spin_lock(&w->pool_lock);
	r = w->pool;
	if (r)
		w->pool = r->next;
	pthread_spin_unlock(&w->pool_lock);
	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->w = w;
	pthread_spin_lock(&w->pool_lock);
	r->all = w->builders;
	w->builders = r;
	pthread_spin_unlock(&w->pool_lock);
	return r;
}

/* The record is done with (committed or dropped): its builder goes back
 * to the pool and, when it was pinned, the pin's hold on the lock is
 * kept by the caller (unlock says whether to let it go here). */
static void builder_put(struct audit_rec *r, bool unlock)
{
	struct audit_writer *w = r->w;

	r->open = false;
	r->len = 0;
	if (tl_open == w->id)
		tl_open = 0;
	if (r->pinned) {
		r->pinned = false;
		w->pinned = NULL;
		if (unlock)
			pthread_mutex_unlock(&w->lock);
	}
	if (tl_batch == w->id && w->batch_rec == r)
		w->batch_rec = NULL;	/* the batch's lock is held */
	pthread_spin_lock(&w->pool_lock);
	r->next = w->pool;
	w->pool = r;
	pthread_spin_unlock(&w->pool_lock);
}

/* run.start's link to the run before it in the file (audit/FORMAT.txt). */
static void put_prev_run(struct audit_rec *r)
{
	char hex[2 * AUDIT_HASH_BYTES + 1];

	if (!r->w->has_prev_run) {
		audit_null(r, AUDIT_PREV_RUN_KEY);
		return;
	}
	sodium_bin2hex(hex, sizeof(hex), r->w->prev_run, AUDIT_HASH_BYTES);
	audit_str(r, AUDIT_PREV_RUN_KEY, hex);
}

struct audit_rec *audit_begin(struct audit_writer *w, const char *type)
{
	struct audit_rec *r;

	if (!w)
		return NULL;
	if (tl_open == w->id)
		return NULL;	/* the same thread began twice: a caller bug */
	r = builder_get(w);
	if (!r)
		return NULL;
	r->open = true;
	r->len = 0;
	r->err = 0;
	r->depth = 0;
	r->nkeys = 0;
	r->level_keys[0] = 0;
	r->level_bits[0] = 0;
	r->is_arr[0] = false;
	r->comma[0] = true;	/* after the head */
	tl_open = w->id;
	if (tl_batch == w->id)
		w->batch_rec = r;	/* this thread holds the batch's lock */
	if (type)
		audit_str(r, "type", type);
	else
		rec_fail(r, -EINVAL);
	if (type && strcmp(type, "run.start") == 0)
		put_prev_run(r);
	return r;
}

/*
 * Fix the open record's place in the chain: take the lock (which its
 * commit or abort lets go), so that no other record is committed before
 * it and the previous hash and seq it names stay true.
 */
static bool rec_pin(struct audit_rec *r)
{
	if (!r || !r->open)
		return false;
	if (!r->pinned) {
		lock_writer(r->w);
		r->pinned = true;
		r->w->pinned = r;
	}
	return true;
}

void audit_rec_prev_hash(const struct audit_rec *r,
			 unsigned char hash[AUDIT_HASH_BYTES])
{
	struct audit_rec *mr = (struct audit_rec *)r;

	if (rec_pin(mr))
		memcpy(hash, r->w->last_hash, AUDIT_HASH_BYTES);
	else
		memset(hash, 0, AUDIT_HASH_BYTES);
}

uint64_t audit_rec_seq(const struct audit_rec *r)
{
	struct audit_rec *mr = (struct audit_rec *)r;

	return rec_pin(mr) ? r->w->seq + 1 : 0;
}

void audit_put_final(struct audit_rec *r, const unsigned char *sk)
{
	char hex[2 * AUDIT_HASH_BYTES + 1];
	char sig[2 * AUDIT_SIG_BYTES + 1];
	char pk[2 * AUDIT_PUBKEY_BYTES + 1];

	if (!rec_pin(r))
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

void audit_abort(struct audit_rec *r)
{
	if (r && r->open)
		builder_put(r, true);
}

const char *audit_rec_body(const struct audit_rec *r, size_t *len)
{
	if (!r || !r->open || r->err)
		return NULL;
	*len = r->len;
	return r->buf;
}

/*
 * After a failed write of a batch buf[0..len) of which only the first
 * `done` bytes reached the file: count the records that are in it whole
 * (each ends with the only raw '\n' of its line: every string is escaped)
 * and take the last one's hash from its line.
 */
static void count_whole(struct audit_writer *w, const char *buf, size_t done)
{
	const char *end = buf + done, *p = buf, *nl, *last = NULL;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		w->written_seq++;
		last = nl;
		p = nl + 1;
	}
	if (!last)
		return;
	w->dirty = true;
	/* ...,"hash":"<64 hex>"}\n */
	sodium_hex2bin(w->written_hash, AUDIT_HASH_BYTES,
		       last - 2 - 2 * AUDIT_HASH_BYTES, 2 * AUDIT_HASH_BYTES,
		       NULL, NULL, NULL);
}

/*
 * Lock held once, no record open, nobody flushing, and records waiting in
 * the fill buffer: write them all with one write(2) (and one fdatasync
 * with AUDIT_SYNC_EVERY), without the lock.
 */
static void flush_batch(struct audit_writer *w)
{
	char *buf = w->fill;
	size_t len = w->fill_len, cap = w->fill_cap, done = 0;
	uint64_t last = w->seq;
	unsigned char last_hash[AUDIT_HASH_BYTES];
	int rc, src = 0, shiprc = 0;

	memcpy(last_hash, w->last_hash, AUDIT_HASH_BYTES);
	if (w->map && w->sync != AUDIT_SYNC_EVERY && !w->ship) {
		/* The map sink copies a batch in well under a microsecond:
		 * cheaper under the lock than letting it go and taking it
		 * back while other threads want it. */
		rc = sink_write(w, buf, len, &done);
		w->fill_len = 0;
	} else {
		/* The spare buffer gathers the next batch. */
		w->fill = w->spare;
		w->fill_cap = w->spare_cap;
		w->fill_len = 0;
		w->spare = NULL;
		w->spare_cap = 0;
		w->flushing = true;
		pthread_mutex_unlock(&w->lock);

		rc = sink_write(w, buf, len, &done);
		if (rc == 0 && w->sync == AUDIT_SYNC_EVERY)
			src = sync_fd(w->fd);
		/* Security: the file first (the source of truth), then
		 * syslog; only this flusher sends, so in file order. */
		if (rc == 0 && w->ship && !w->ship_err)
			shiprc = audit_syslog_send(w->ship, buf, len);

		lock_writer(w);
		w->spare = buf;
		w->spare_cap = cap;
		w->flushing = false;
	}
	/*
	 * Security: a failed or partial write counts only the records that
	 * are wholly in the file, and the error is sticky (set_sticky sets
	 * the chain back to them), so no later record can claim to follow
	 * one that is not (wholly) in the trail.
	 */
	if (rc < 0) {
		count_whole(w, buf, done);
		set_sticky(w, rc);
		return;
	}
	w->written_seq = last;
	memcpy(w->written_hash, last_hash, AUDIT_HASH_BYTES);
	mark_dirty(w);
	if (shiprc < 0)
		__atomic_store_n(&w->ship_err, shiprc, __ATOMIC_RELAXED);
	else if (w->ship && !w->ship_err)
		w->ship_seq = last;
	if (src < 0) {
		/* Written whole but not synced: the records count, their
		 * commits return the error. */
		set_sticky(w, src);
		return;
	}
	if (w->sync == AUDIT_SYNC_EVERY)
		note_sync(w);
	if (w->err) {
		/* Made sticky meanwhile (audit_tick's fdatasync): these
		 * records are in the file and count (the chain moves up to
		 * them), but their commits fail too. */
		set_sticky(w, w->err);
		return;
	}
	w->done_seq = last;
	__atomic_store_n(&w->flush_gen, w->flush_gen + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&w->done);
}

/*
 * Lock held once.  Another thread is writing a batch, which takes a few
 * microseconds unless it syncs: wait for it to end by spinning, without
 * the lock, for at most SPIN_NS (a futex sleep and wake-up cost about as
 * much as the write itself).  The caller then looks again, and sleeps if
 * the flush is still going on.
 */
#define SPIN_NS 30000
/* Look at the clock (and yield) every SPIN_CHECK turns. */
#define SPIN_CHECK 64

static void spin_for_flush(struct audit_writer *w)
{
	unsigned int gen = w->flush_gen;
	struct timespec t0, now;

	pthread_mutex_unlock(&w->lock);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 1;; i++) {
		if (__atomic_load_n(&w->flush_gen, __ATOMIC_ACQUIRE) != gen)
			break;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		if (i % SPIN_CHECK == 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - t0.tv_sec) * 1000000000L +
			    (now.tv_nsec - t0.tv_nsec) > SPIN_NS)
				break;
			/* Let a thread that has a record to build run. */
			sched_yield();
		}
	}
	lock_writer(w);
}

/*
 * Lock held exactly once, no record open.  Wait until the records up to
 * seq are written (and synced with AUDIT_SYNC_EVERY), writing them and
 * whatever else waits along with them if nobody else is writing.  Returns
 * 0, or the sticky error when they were not (all) written.
 */
static int wait_done(struct audit_writer *w, uint64_t seq)
{
	bool spun = false;

	for (;;) {
		/* Security: with --audit-syslog, a record in the file but
		 * not handed over fails its commit (the file goes on). */
		if (w->done_seq >= seq)
			return w->ship && seq > w->ship_seq ? w->ship_err : 0;
		if (w->err)
			return w->err;
		if (!w->flushing) {
			flush_batch(w);
		} else if (w->spin && !spun) {
			spin_for_flush(w);
			spun = true;
		} else {
			pthread_cond_wait(&w->done, &w->lock);
			spun = false;
		}
	}
}

/*
 * Lock held.  Append the record to the fill buffer: the head that places
 * it in the chain, its body, the hash over both.  Returns 0, or -ENOMEM,
 * -EIO (the clock) with nothing appended.
 */
static int append_rec(struct audit_writer *w, const struct audit_rec *r)
{
	unsigned char hash[AUDIT_HASH_BYTES];
	crypto_generichash_state st;
	char digits[20], *line, *d, *num;
	int rc, n;

	/* rec_left() kept head, body and hash suffix within a line. */
	rc = buf_grow(&w->fill, &w->fill_cap,
		      w->fill_len + w->head_max + r->len + HASH_SUFFIX_LEN);
	if (rc < 0)
		return rc;
	line = d = w->fill + w->fill_len;
	memcpy(d, "{\"seq\":", 7);
	d += 7;
	num = u64_digits(digits, w->seq + 1);
	memcpy(d, num, (size_t)(digits + sizeof(digits) - num));
	d += digits + sizeof(digits) - num;
	memcpy(d, ",\"ts\":", 6);
	d += 6;
	n = put_timestamp(w, d);
	if (n < 0)
		return n;
	d += n;
	memcpy(d, ",\"run\":\"", 8);
	d += 8;
	memcpy(d, w->run_json, w->run_json_len);
	d += w->run_json_len;
	*d++ = '"';
	memcpy(d, r->buf, r->len);
	d += r->len;

	/* hash = BLAKE2b-256(previous hash || line up to ,"hash") */
	st = w->hash0;
	crypto_generichash_update(&st, w->last_hash, AUDIT_HASH_BYTES);
	crypto_generichash_update(&st, (const unsigned char *)line,
				  (size_t)(d - line));
	crypto_generichash_final(&st, hash, AUDIT_HASH_BYTES);
	memcpy(d, HASH_KEY, HASH_KEY_LEN);
	d += HASH_KEY_LEN;
	for (size_t i = 0; i < AUDIT_HASH_BYTES; i++) {
		*d++ = hex_digits[hash[i] >> 4];
		*d++ = hex_digits[hash[i] & 0xf];
	}
	memcpy(d, "\"}\n", 3);
	d += 3;
	w->fill_len = (size_t)(d - w->fill);

	/* The record is committed: it takes the next seq and its hash heads
	 * the chain, but it is not in the file yet. */
	w->seq++;
	memcpy(w->last_hash, hash, AUDIT_HASH_BYTES);
	return 0;
}

int audit_commit(struct audit_rec *r)
{
	return audit_commit_seq(r, NULL);
}

int audit_commit_seq(struct audit_rec *r, uint64_t *seq)
{
	struct audit_writer *w;
	int rc;

	if (!r || !r->open)
		return -EINVAL;
	w = r->w;
	rc = r->err;
	if (rc == 0 && r->depth != 0)
		rc = -EINVAL;
	/* From here on, this commit holds the lock once: the pin's hold, or
	 * its own. */
	if (!r->pinned)
		lock_writer(w);
	/* Another record pinned by this thread (the lock is ours) names the
	 * place this one would take: a caller bug. */
	if (rc == 0 && w->pinned && w->pinned != r)
		rc = -EINVAL;
	if (rc == 0 && w->err) {
		rc = w->err;
		if (w->in_batch && w->batch_err == 0)
			w->batch_err = rc;
	}
	if (rc == 0)
		rc = append_rec(w, r);
	if (rc == 0 && seq)
		*seq = w->seq;
	builder_put(r, false);
	if (rc < 0 || w->in_batch) {
		/* Dropped; or in a batch, which audit_batch_end() writes
		 * (its lock stays held). */
		pthread_mutex_unlock(&w->lock);
		return rc;
	}
	/* Security: return only once this record is in the file (and synced
	 * with AUDIT_SYNC_EVERY): the caller answers the call after this. */
	rc = wait_done(w, w->seq);
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int audit_batch_begin(struct audit_writer *w)
{
	if (!w)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	if (w->in_batch || tl_open == w->id) {
		/* The same thread, inside a batch or a record: a caller bug. */
		pthread_mutex_unlock(&w->lock);
		return -EINVAL;
	}
	w->in_batch = true;
	w->batch_err = 0;
	w->batch_rec = NULL;
	tl_batch = w->id;
	return 0;	/* the lock stays held until audit_batch_end() */
}

int audit_batch_end(struct audit_writer *w)
{
	int rc;

	if (!w)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	if (!w->in_batch) {
		pthread_mutex_unlock(&w->lock);
		return -EINVAL;
	}
	if (w->batch_rec) {
		/* A record left open is dropped, and the batch fails. */
		builder_put(w->batch_rec, true);
		w->batch_err = -EINVAL;
	}
	w->in_batch = false;
	tl_batch = 0;
	/* Drop the hold audit_batch_begin() took: we now hold it once. */
	pthread_mutex_unlock(&w->lock);
	/* The records committed in the batch are written even when it
	 * fails (they are in the chain); the caller fails closed. */
	rc = wait_done(w, w->seq);
	if (w->batch_err)
		rc = w->batch_err;
	pthread_mutex_unlock(&w->lock);
	return rc;
}
