/* SPDX-License-Identifier: MIT */
/*
 * audit: the JSON Lines audit trail.  Formats records into a reused buffer,
 * escapes every byte that came from a tracee, chains each record to the one
 * before with BLAKE2b (libsodium) and appends it to the trail: copied into a
 * shared mapping of the file when it is a regular file open for reading and
 * writing (the map sink, audit/writer.c), else with write(2).
 * Also reads trails back and verifies them.  Pure of supervisor concerns:
 * it never sees a pid except as a number to print.
 *
 * Writing:
 *
 *	struct audit_writer *w;
 *	audit_open_path("run.jsonl", AUDIT_SYNC_INTERVAL, run_id, &w);
 *	struct audit_rec *r = audit_begin(w, "syscall");   // type
 *	audit_int(r, "pid", 1234);
 *	audit_str(r, "syscall", "openat");
 *	audit_obj_begin(r, "args");
 *	audit_bytes(r, "path", tracee_path, len);           // escaped
 *	audit_obj_end(r);
 *	if (audit_commit(r) < 0) ...   // head + fields + hash + '\n' into the file
 *	...
 *	audit_close(w);
 *
 * Ending a run (signed when a key is given):
 *
 *	r = audit_begin(w, "run.end");
 *	audit_int(r, "status", 0);
 *	audit_put_final(r, sk_or_NULL);      // final_hash [signature, pubkey]
 *	audit_commit(r);
 *
 * Line format: {"seq":N,"ts":"...","run":"...","type":"...",...,"hash":"HEX"}
 * hash = hex(BLAKE2b-256(prev_hash_raw[32] || line bytes before ',"hash"'))
 * with prev_hash_raw of the first record all zero.  See audit/FORMAT.txt
 * and docs/sysgate-audit.5.
 */
#ifndef SYSGATE_AUDIT_H
#define SYSGATE_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUDIT_HASH_BYTES 32
/* Longest tracee-supplied string kept in a record (bytes before escaping);
 * longer ones are cut and marked with "truncated": true by the caller. */
#define AUDIT_MAX_STR 4096
/* Longest line of a trail, newline included.  The writer refuses to build a
 * longer record (-EMSGSIZE: it counts the head it will add at the commit
 * at its longest, a 20-digit seq) and the verifier rejects one. */
#define AUDIT_MAX_LINE (1024 * 1024)
/* Deepest nesting of objects/arrays inside a record. */
#define AUDIT_MAX_DEPTH 16
/* Ed25519 (libsodium crypto_sign) sizes. */
#define AUDIT_SECKEY_BYTES 64
#define AUDIT_PUBKEY_BYTES 32
#define AUDIT_SIG_BYTES 64

struct audit_writer;
struct audit_rec;

enum audit_sync {
	AUDIT_SYNC_NONE = 0,     /* into the file (map or write(2)) only */
	AUDIT_SYNC_INTERVAL = 1, /* each record into the file, fdatasync every
				  * AUDIT_SYNC_INTERVAL_MS while records come,
				  * by the writer's own thread */
	AUDIT_SYNC_EVERY = 2,    /* fdatasync after every record */
};
#define AUDIT_SYNC_INTERVAL_MS 200

/*
 * Open (create, O_RDWR | O_APPEND | O_CLOEXEC, mode 0600) the trail at
 * path; records go after what the file holds (after its last non-zero
 * byte: see "reserved space" in audit/FORMAT.txt).  run_id is copied.
 * Under the lock, the writer reads the hash of the record the file ends
 * with, which every run.start it writes names in "prev_run_hash" (null for
 * an empty file): runs in one file are chained.
 * Returns 0 and sets *out, or -errno: -EBUSY when another writer has the
 * file (an flock(2) held until audit_close); -EBADMSG when the file is not
 * empty and does not end with a whole record (junk, a line cut short).
 *
 * The map sink installs a SIGBUS handler, once per process (the only
 * signal disposition audit/ sets): a fault while a record is copied into
 * the mapping (the file truncated by somebody else, an I/O error) becomes
 * the sticky error -EIO; any other SIGBUS goes to the disposition there was
 * before.
 */
int audit_open_path(const char *path, enum audit_sync sync, const char *run_id,
		    struct audit_writer **out);
/* The same on an fd the caller hands over (taken: closed by audit_close;
 * on failure it stays the caller's).  A regular file is locked as above;
 * the map sink needs it open O_RDWR, else records are written with
 * write(2).  A regular file is chained to as above, from where records
 * will go (its end with O_APPEND or the map sink, else the fd's offset);
 * an fd open for writing only is read through /proc/self/fd.  A sink that
 * is no regular file (pipe, terminal) has no run before: null.
 * Errors: -EINVAL (bad fd, sync, or a run_id that is empty or longer than
 * 256 bytes), -ENOMEM, -EBUSY, -EBADMSG (as above), or the errno of fstat
 * or of reading the file's end. */
int audit_open_fd(int fd, enum audit_sync sync, const char *run_id,
		  struct audit_writer **out);

/*
 * Close the trail (fdatasync unless AUDIT_SYNC_NONE).  The map sink first
 * cuts the file back to its last record (unless another process changed
 * its size meanwhile).  Returns 0 or the first write error seen since
 * open, as -errno.  Accepts NULL.  No record may be open, and no other
 * thread may still use w.
 */
int audit_close(struct audit_writer *w);

/* The last record's hash (raw bytes) and seq, for run.end. */
void audit_last_hash(const struct audit_writer *w,
		     unsigned char hash[AUDIT_HASH_BYTES]);
uint64_t audit_last_seq(const struct audit_writer *w);

/*
 * The sticky error (0 or -errno), without the writer's mutex: cheap after
 * every record.  With AUDIT_SYNC_INTERVAL the writer's own thread (the
 * syncer, started by audit_open_*, every signal blocked, joined by
 * audit_close) calls fdatasync once AUDIT_SYNC_INTERVAL_MS have passed
 * since the last sync and records were written, without the mutex, so
 * records go on meanwhile and no committing thread waits for the disk; its
 * failure is sticky like a write's.  Should no thread be had, audit_tick()
 * syncs instead when the interval has passed.
 */
int audit_tick(struct audit_writer *w);

/*
 * Start a record of the given type.  A "run.start" record gets its first
 * member here: "prev_run_hash" (see audit_open_path).
 * Its head (seq, ts, run) is written
 * when it is committed: seq is its place in the chain, given in the order
 * records are committed, and ts the time of that commit.  The fields are
 * formatted into a builder of the writer's, reused (once warm, nothing is
 * allocated per record).  Never fails in a writer used by one thread at a
 * time: an error (out of memory) is remembered and returned by
 * audit_commit().  NULL for a NULL writer, a second audit_begin() on the
 * thread that has a record of this writer open (a bug; that record stays
 * open), or no memory for another thread's builder; every field function
 * ignores a NULL record and audit_commit(NULL) returns -EINVAL, so
 * callers fail closed.
 *
 * Threads: each thread builds its record without the writer's mutex, so
 * several threads format records at once; audit_commit() takes the mutex
 * to give the record its place in the chain and append it, so records
 * never interleave and seq follows file order.  Every audit_begin() must
 * be paired with exactly one commit or abort on the same thread.
 *
 * Pinning: audit_rec_prev_hash(), audit_rec_seq() and audit_put_final()
 * name the open record's place in the chain, so they take the writer's
 * (recursive) mutex and keep it until the record's commit or abort: other
 * threads' commits wait meanwhile, and this thread may still call
 * audit_last_hash()/audit_last_seq()/audit_tick() but must not commit
 * another record first (-EINVAL, that record dropped).
 */
struct audit_rec *audit_begin(struct audit_writer *w, const char *type);

/* The hash the open record chains to (the previous record's, raw). */
void audit_rec_prev_hash(const struct audit_rec *r,
			 unsigned char hash[AUDIT_HASH_BYTES]);

/* The seq of the open record (0 for NULL or a record not open): unlike
 * audit_last_seq() after the commit, it cannot race with other threads.
 * Pins the record (above); audit_commit_seq() does not. */
uint64_t audit_rec_seq(const struct audit_rec *r);

/*
 * For run.end: add "final_hash" (hex of the previous record's hash, the one
 * this record chains to) and, when sk (AUDIT_SECKEY_BYTES) is not NULL,
 * "signature" (hex Ed25519 detached signature over the raw 32-byte final
 * hash) and "pubkey" (hex).  Equivalent to audit_last_hash() +
 * audit_sign_hash() + audit_str(), but cannot race with another thread.
 */
void audit_put_final(struct audit_rec *r, const unsigned char *sk);

/*
 * Fields, in the order they are added.  key is a literal identifier (it is
 * escaped all the same, so any key yields valid JSON); it must be NULL
 * inside arrays and non-NULL elsewhere.  Misuse (key in an array, no key in
 * an object, unbalanced or deeper than AUDIT_MAX_DEPTH nesting), running out
 * of memory and a line longer than AUDIT_MAX_LINE are remembered and
 * returned by audit_commit(), which then writes nothing.  r may be NULL
 * (the fields are then no-ops).
 *
 * audit_str: our own text; NULL gives null.  Escaped by the audit_escape()
 * rule, so invalid UTF-8 is LOST (replaced by U+FFFD): use audit_bytes for
 * anything not known to be UTF-8 (tracee data, paths, argv, environment).
 *
 * audit_bytes: len raw bytes from anywhere.  When they are well-formed
 * UTF-8 without NUL it writes  "key":"<escaped>"  and the JSON string
 * decodes to exactly those bytes.  Otherwise it writes
 *     "key":"<escaped, U+FFFD per invalid byte>","key_hex":"<all bytes, hex>"
 * and inside an array the element becomes  {"text":"...","hex":"..."}.
 * So nothing is lost, and readers take key_hex (or hex) when present.
 * It does not cut: the caller cuts at AUDIT_MAX_STR and adds "truncated".
 */
void audit_str(struct audit_rec *r, const char *key, const char *val); /* NULL -> null */
void audit_bytes(struct audit_rec *r, const char *key, const void *buf, size_t len);
void audit_int(struct audit_rec *r, const char *key, int64_t v);
void audit_uint(struct audit_rec *r, const char *key, uint64_t v);
void audit_hex(struct audit_rec *r, const char *key, uint64_t v); /* "0x1f" */
void audit_bool(struct audit_rec *r, const char *key, bool v);
void audit_null(struct audit_rec *r, const char *key);
void audit_obj_begin(struct audit_rec *r, const char *key);
void audit_obj_end(struct audit_rec *r);
void audit_arr_begin(struct audit_rec *r, const char *key);
void audit_arr_end(struct audit_rec *r);

/*
 * Finish the record (head, hash, newline) and hand it to the trail: copy it
 * into the map (reserving space first) or write(2) it, retrying short
 * writes.
 * Returns 0 once the record is in the file (handed to the kernel; with
 * AUDIT_SYNC_EVERY also fdatasynced), or -errno (ENOSPC, EFBIG, EIO,
 * ENOMEM...): the caller must then fail closed.
 *
 * Group commit: the record gets its head, is hashed and is appended to the
 * writer's buffer under the mutex, which is then released.  If no other
 * thread is writing, this thread writes everything that waits in the
 * buffer with one write(2) (and one fdatasync with AUDIT_SYNC_EVERY),
 * without the mutex, so that other threads build and commit records
 * meanwhile; otherwise it waits for that write to finish and then writes
 * what has gathered.  Either way
 * audit_commit() returns only once ITS record is in the file (and synced
 * when asked).  A record is never split between batches: each line goes to
 * the kernel in one write(2) (a short write is continued, as before).  The
 * map sink copies under the mutex instead (a copy costs less than giving
 * the mutex up and taking it back), but for AUDIT_SYNC_EVERY, whose
 * fdatasync runs without it as above; it reserves each line whole before
 * copying it, so an error leaves no part of a line in the file.
 *
 * Errors: -EINVAL, -ENOMEM, -EMSGSIZE from building the record: nothing was
 * written and the writer stays usable.  Any write(2) or fdatasync(2) error
 * (-ENOSPC, -EFBIG, -EIO, -EPIPE, ...) is sticky: this and every later
 * commit, audit_tick() and audit_close() return it and write nothing more;
 * so does every commit waiting for the failed write, or for a later one.
 * A record whose write failed is not counted: seq and the chain are set
 * back to the last record written whole (a partial line may remain in the
 * file; the verifier then reports the trail as truncated after the last
 * whole record).  If only the fdatasync after a whole write fails, the
 * records count, but their commits return the error.
 * audit_last_seq()/audit_last_hash() give the last record committed; once
 * every commit has returned, that is the last record written whole.
 * EFBIG: the process also gets SIGXFSZ unless it ignores it (the supervisor
 * does; audit/ never changes signal dispositions).  Likewise SIGPIPE/EPIPE.
 * Blocks in write(2) (and fdatasync(2) with AUDIT_SYNC_EVERY), or waiting
 * for another thread's.
 */
int audit_commit(struct audit_rec *r);

/* The same, and *seq (may be NULL) gets the seq the record took, when it
 * took one (the return is 0, or the error of writing it): what the caller
 * refers to later, without pinning the record. */
int audit_commit_seq(struct audit_rec *r, uint64_t *seq);

/* Drop an open record without writing it (error paths). */
void audit_abort(struct audit_rec *r);

/*
 * The fields of the open record r so far, as they will be written after
 * its head: text starting with ',' ("," "\"type\":\"syscall\",\"pid\":1...",
 * no closing brace), *len bytes, borrowed until the next field, commit or
 * abort.  NULL for a NULL record, one not open or one with a builder error.
 * For copies of a record sent elsewhere (--denials-fd, the ask hook): the
 * same fields, the same escaping as the trail's.
 */
const char *audit_rec_body(const struct audit_rec *r, size_t *len);

/*
 * Batches: several records written with one write(2) (and one fdatasync
 * with AUDIT_SYNC_EVERY), for a loop that decides several calls at once
 * and answers them after recording them all:
 *
 *	if (audit_batch_begin(w) < 0) ...        // holds the writer's mutex
 *	for (each call) {
 *		r = audit_begin(w, "syscall");
 *		...fields...
 *		ok[i] = audit_commit(r) == 0;    // appended, NOT yet written
 *	}
 *	rc = audit_batch_end(w);                 // one write(2) [+ fdatasync]
 *	for (each call)
 *		answer it only if rc == 0 && ok[i], else fail closed;
 *
 * audit_batch_begin() takes the writer's mutex and audit_batch_end()
 * releases it, so other threads' records wait (and join the next write)
 * while the batch is built; records of other threads already waiting are
 * written in the same write(2), before the batch.  Inside a batch,
 * audit_commit() hashes and appends the record and returns 0, or the
 * builder error (that record is dropped, the batch goes on), or the sticky
 * write error; the record is in the file only when audit_batch_end()
 * returns 0.  audit_batch_end() returns 0 once every record committed in
 * the batch is in the file (and synced with AUDIT_SYNC_EVERY), else the
 * sticky error (also when a commit of the batch met it) or -EINVAL (a
 * record left open, which is dropped); after an error, records of the
 * batch may be in the file (the chain covers exactly those), but no call
 * may be answered as recorded.  A batch's records stay in memory until
 * audit_batch_end(), so keep batches bounded (a line is at most
 * AUDIT_MAX_LINE).  Both must be called on the same thread; batches do
 * not nest (-EINVAL), and audit_batch_begin() with a record open is
 * -EINVAL.  Accept a NULL writer (-EINVAL).
 */
int audit_batch_begin(struct audit_writer *w);
int audit_batch_end(struct audit_writer *w);

/*
 * JSON string escaping into dst (no quotes added; always NUL-terminated when
 * dst_len > 0, cut to fit at a character boundary).  Returns the length the
 * whole escaped string needs, without the NUL, like snprintf: a return
 * >= dst_len means the output was cut.  dst may be NULL when dst_len is 0.
 *
 * The rule (also used by audit_str and audit_bytes):
 *   '"' and '\\' -> \" and \\; \b \f \n \r \t; other bytes 0x00-0x1f and
 *   0x7f -> \u00XX (these are the characters U+0000-U+001F, U+007F, so the
 *   escape is exact); well-formed UTF-8 (Unicode table 3-7) is copied as is;
 *   every byte that is not part of a well-formed sequence (stray
 *   continuation, overlong form, surrogate, above U+10FFFF, cut-short
 *   sequence, 0xf5-0xff) becomes one U+FFFD, written as its UTF-8 bytes.
 * U+FFFD is ambiguous on its own; audit_bytes() therefore adds the raw bytes
 * in hex whenever a replacement (or a NUL) occurred.
 */
size_t audit_escape(char *dst, size_t dst_len, const void *src, size_t src_len);

/*
 * Terminal escaping, for text from a tracee (or a trail) that sysgate shows
 * on a terminal: dst gets src[0..len) with nothing a terminal acts on.
 * Same contract as audit_escape() (always NUL-terminated when dst_len > 0,
 * cut at a unit boundary, returns the length the whole result needs).
 *
 * The rule: printable ASCII is copied, but '\\' becomes "\\\\" (so an
 * escape in the output is never the tracee's own text); \n, \r and \t
 * become "\\n", "\\r" and "\\t"; other bytes 0x00-0x1f, 0x7f and every
 * byte that is not part of well-formed UTF-8 become "\\xNN"; well-formed
 * UTF-8 is copied, except C1 controls (U+0080-U+009F), bidi controls
 * (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the line and
 * paragraph separators (U+2028, U+2029), which become "\\uNNNN".
 *
 * Security: a tracee names files, programs and arguments as it likes; shown
 * raw they could clear the screen, retitle the window, rewrite lines
 * already printed or reorder text (bidi), and so make a prompt or summary
 * say something else than what happened.
 */
size_t audit_escape_tty(char *dst, size_t dst_len, const void *src,
			size_t src_len);

/*
 * Verify a trail.  Returns 0 when every line parses, seq runs 1..N, each hash
 * chains to the one before and the last record is run.end (with the final
 * hash it names).  Otherwise returns -EBADMSG (or -errno if it cannot be
 * read) and writes a sentence naming the first bad record into why.
 * pubkey (32 bytes, Ed25519) may be NULL; when given, run.end's signature
 * must verify with it.
 *
 * A file may hold several runs one after the other (audit_open_path
 * appends): after a run.end, a record with seq 1 starts a new chain from the
 * zero hash.  Every run must end with run.end.  The runs are chained too:
 * each run.start's "prev_run_hash" must be the hash of the last record of
 * the run before it, or null for the file's first run, so a whole run
 * dropped, added or moved is found (but for the last run cut off whole:
 * compare the last hash with the one sysgate run printed).  A run.start
 * without the member (a trail from before runs were chained) is verified
 * on its own, and only before the first run that has one.  Without
 * pubkey, a signed run.end is checked against its own "pubkey"
 * (consistency only, it proves nothing about who signed).  why (may be NULL) gets "" on success, or a
 * note starting "note: " when some runs could not be chained (no
 * prev_run_hash), and otherwise one sentence, e.g.
 *   record 17 (line 17): hash does not match its content: edited
 *   record 17 missing: line 17 has seq 18: removed
 *   line 17: seq 18 comes before seq 17 (line 18): reordered
 *   line 17: seq 16 after 16: record 16 appears twice: inserted
 *   line 17: not part of the chain (record 17 at line 18 follows
 *            record 16): inserted
 *   truncated after record 20 (no run.end)
 *   truncated after record 20: line 21 is incomplete (no newline)
 *   record 17 (line 17): not valid JSON
 *   run.end (record 21, line 21): signature does not verify with the given key
 *   run.end (record 21, line 21): not signed
 *   run 2 (id R, line 22): run.start follows the record at line 63,
 *            further down, but the run before it ends at line 21: reordered
 * The classification is a best guess from the first anomaly; the line it
 * names is always the first one that is not a valid continuation.  Reads
 * the file sequentially in constant memory (a line is at most
 * AUDIT_MAX_LINE); on an anomaly it may read the rest of the file once more
 * to tell a removal from a reordering.  Errors: -EBADMSG, -ENOMEM, -EIO or
 * the errno of open/read.
 */
int audit_verify_path(const char *path, const unsigned char *pubkey,
		      char *why, size_t why_len);
/* The same, and on success the last record's hash (raw bytes; the hash
 * sysgate run prints with the trail's path) in last, unless NULL. */
int audit_verify_path_last(const char *path, const unsigned char *pubkey,
			   unsigned char last[AUDIT_HASH_BYTES], char *why,
			   size_t why_len);
int audit_verify_fd_last(int fd, const unsigned char *pubkey,
			 unsigned char last[AUDIT_HASH_BYTES], char *why,
			 size_t why_len);
/* The same on an open, seekable fd (borrowed: read with pread, not closed);
 * for tools and fuzz targets (a memfd). */
int audit_verify_fd(int fd, const unsigned char *pubkey, char *why,
		    size_t why_len);

/*
 * Reading a trail back, for tools (report, learn): one record at a time,
 * parsed with jansson.  The reader checks no hash: run audit_verify_*()
 * for that.  A line that is not a JSON object is skipped with -EBADMSG
 * and reading goes on, so a damaged trail can still be shown.
 *
 *	struct audit_reader *rd;
 *	struct json_t *rec;
 *	int r;
 *
 *	if (audit_reader_open_path("run.jsonl", &rd) < 0) ...
 *	while ((r = audit_reader_next(rd, &rec)) != 0) {
 *		if (r == -EBADMSG)
 *			continue;	// line audit_reader_line(rd) is bad
 *		if (r < 0)
 *			break;		// I/O error, out of memory
 *		... json_object_get(rec, "type") ...
 *	}
 *	audit_reader_free(rd);
 */
struct json_t;
struct audit_reader;

/* Open the trail at path (read only).  Returns 0 and sets *out, or -errno
 * (-EINVAL for a NULL argument, -ENOMEM, or the errno of open(2)). */
int audit_reader_open_path(const char *path, struct audit_reader **out);
/* The same on an fd, borrowed (not closed): read with read(2) from its
 * current offset, so a pipe works too.  Errors: -EINVAL, -ENOMEM. */
int audit_reader_open_fd(int fd, struct audit_reader **out);
/* Close (when opened by path) and free.  Accepts NULL. */
void audit_reader_free(struct audit_reader *rd);

/*
 * Read the next line.  Returns 1 and sets *rec to the parsed record (a
 * JSON object, borrowed: valid until the next call or audit_reader_free();
 * json_incref() it to keep it); 0 at the end of the trail; -EBADMSG when
 * the line is not a JSON object (invalid JSON, invalid UTF-8, duplicate
 * keys, longer than AUDIT_MAX_LINE): the line is skipped and the next
 * call reads on; or -ENOMEM, -EINVAL, or the errno of read(2), after which
 * the reader should not be used further.  A last line without a newline is
 * returned like any other (audit_reader_partial() then says so).  Blocks in
 * read(2).  Uses at most about AUDIT_MAX_LINE bytes of buffer.
 */
int audit_reader_next(struct audit_reader *rd, struct json_t **rec);
/* The line number (1-based) of the line last read, good or bad. */
uint64_t audit_reader_line(const struct audit_reader *rd);
/* Whether the line last read was a last line without its newline. */
bool audit_reader_partial(const struct audit_reader *rd);

/*
 * The exact bytes of a value written by audit_bytes(): with key, v is an
 * object and the member key (or key_hex, preferred when present) is read;
 * with key NULL, v is the value itself: a string, or an array element of
 * the form {"text":"...","hex":"..."}.  Returns 0 and sets *out to a new
 * NUL-terminated buffer (the caller frees it; the bytes may hold NULs, so
 * use *len) or -ENOENT (no such member, or null), -EINVAL (not a string,
 * bad hex), -ENOMEM.
 */
int audit_json_bytes(const struct json_t *v, const char *key, char **out,
		     size_t *len);

/*
 * Signing keys (Ed25519, libsodium crypto_sign).  Key files hold the key in
 * lower-case hex and a newline: the secret key is 128 hex digits (libsodium's
 * 64-byte form, seed || public key), the public key 64.
 *
 * audit_keygen: make a new key pair; creates both files exclusively
 * (O_EXCL: -EEXIST if either exists), the secret one with mode 0600 and the
 * public one 0644.  Returns 0 or -errno.
 * audit_load_secret_key / audit_load_public_key: read a key file (at most a
 * few hundred bytes; trailing whitespace allowed).  Returns 0 and fills the
 * key, or -EINVAL for a malformed key (a secret key whose public half does
 * not match its seed is malformed), or -errno.
 * audit_sign_hash: sig_hex gets the hex (128 digits + NUL) of the Ed25519
 * detached signature of the raw 32-byte hash.
 */
int audit_keygen(const char *secret_path, const char *public_path);
int audit_load_secret_key(const char *path,
			  unsigned char sk[AUDIT_SECKEY_BYTES]);
int audit_load_public_key(const char *path,
			  unsigned char pk[AUDIT_PUBKEY_BYTES]);
void audit_sign_hash(const unsigned char sk[AUDIT_SECKEY_BYTES],
		     const unsigned char hash[AUDIT_HASH_BYTES],
		     char sig_hex[2 * AUDIT_SIG_BYTES + 1]);

#endif
