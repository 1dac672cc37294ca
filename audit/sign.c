/* SPDX-License-Identifier: MIT */
/*
 * audit/sign.c: Ed25519 key files and the signature over a trail's final
 * hash (libsodium crypto_sign).  Keys are stored as hex text.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"

/* Largest key file read: the 128-digit secret key plus generous space. */
#define KEY_FILE_MAX 512

static int write_key_file(const char *path, mode_t mode,
			  const unsigned char *key, size_t len)
{
	char hex[2 * AUDIT_SECKEY_BYTES + 2];
	size_t n = 2 * len + 1;
	size_t off = 0;
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
		  mode);
	if (fd < 0)
		return -errno;
	sodium_bin2hex(hex, sizeof(hex), key, len);
	hex[n - 1] = '\n';
	while (off < n) {
		ssize_t w = write(fd, hex + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)w;
	}
	if (rc == 0 && fsync(fd) < 0 && errno != EINVAL)
		rc = -errno;
	if (close(fd) < 0 && rc == 0 && errno != EINTR)
		rc = -errno;
	sodium_memzero(hex, sizeof(hex));
	if (rc < 0)
		unlink(path);
	return rc;
}

int audit_keygen(const char *secret_path, const char *public_path)
{
	unsigned char pk[AUDIT_PUBKEY_BYTES], sk[AUDIT_SECKEY_BYTES];
	int rc;

	if (!secret_path || !public_path)
		return -EINVAL;
	if (sodium_init() < 0)
		return -EIO;
	crypto_sign_keypair(pk, sk);
	rc = write_key_file(secret_path, 0600, sk, sizeof(sk));
	sodium_memzero(sk, sizeof(sk));
	if (rc < 0)
		return rc;
	rc = write_key_file(public_path, 0644, pk, sizeof(pk));
	if (rc < 0)
		unlink(secret_path);
	return rc;
}

/* Read a hex key of exactly len bytes from path. */
static int load_key(const char *path, unsigned char *key, size_t len)
{
	AUTO_CLOSE int fd = -1;
	char text[KEY_FILE_MAX + 1];
	unsigned char bin[AUDIT_SECKEY_BYTES];
	size_t n = 0, bin_len = 0;
	const char *end = NULL;
	int rc = 0;

	if (!path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, text + n, sizeof(text) - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == sizeof(text))
			return -EINVAL; /* longer than any key file */
	}
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' ||
			 text[n - 1] == ' ' || text[n - 1] == '\t'))
		n--;
	if (n != 2 * len ||
	    sodium_hex2bin(bin, sizeof(bin), text, n, NULL, &bin_len,
			   &end) != 0 ||
	    bin_len != len || end != text + n)
		rc = -EINVAL;
	else
		memcpy(key, bin, len);
	sodium_memzero(text, sizeof(text));
	sodium_memzero(bin, sizeof(bin));
	return rc;
}

int audit_load_secret_key(const char *path,
			  unsigned char sk[AUDIT_SECKEY_BYTES])
{
	unsigned char tmp[AUDIT_SECKEY_BYTES], seed[crypto_sign_SEEDBYTES];
	unsigned char pk[AUDIT_PUBKEY_BYTES], check[AUDIT_SECKEY_BYTES];
	int rc;

	if (sodium_init() < 0)
		return -EIO;
	rc = load_key(path, tmp, sizeof(tmp));
	if (rc < 0)
		return rc;
	/* The public half must be the one the seed derives. */
	crypto_sign_ed25519_sk_to_seed(seed, tmp);
	crypto_sign_seed_keypair(pk, check, seed);
	if (sodium_memcmp(check, tmp, sizeof(tmp)) != 0)
		rc = -EINVAL;
	else
		memcpy(sk, tmp, sizeof(tmp));
	sodium_memzero(tmp, sizeof(tmp));
	sodium_memzero(seed, sizeof(seed));
	sodium_memzero(check, sizeof(check));
	return rc;
}

int audit_load_public_key(const char *path,
			  unsigned char pk[AUDIT_PUBKEY_BYTES])
{
	if (sodium_init() < 0)
		return -EIO;
	return load_key(path, pk, AUDIT_PUBKEY_BYTES);
}

void audit_sign_hash(const unsigned char sk[AUDIT_SECKEY_BYTES],
		     const unsigned char hash[AUDIT_HASH_BYTES],
		     char sig_hex[2 * AUDIT_SIG_BYTES + 1])
{
	unsigned char sig[AUDIT_SIG_BYTES];

	crypto_sign_detached(sig, NULL, hash, AUDIT_HASH_BYTES, sk);
	sodium_bin2hex(sig_hex, 2 * AUDIT_SIG_BYTES + 1, sig, sizeof(sig));
}
