/* SPDX-License-Identifier: MIT */
/*
 * sysgate verify AUDIT [--key PUB] and sysgate keygen SECRET PUBLIC: check a
 * trail's hash chain and signature with audit/'s own reader; make keys.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sodium.h>

#include "audit/audit.h"
#include "tools/tools.h"

int tool_verify(int argc, char **argv)
{
	const char *path = NULL;
	const char *key = NULL;
	const char *want = NULL;
	unsigned char pk[32];
	unsigned char last[AUDIT_HASH_BYTES];
	char last_hex[2 * AUDIT_HASH_BYTES + 1];
	char why[512] = "";
	int r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--key") && i + 1 < argc)
			key = argv[++i];
		else if (!strcmp(argv[i], "--hash") && i + 1 < argc)
			want = argv[++i];
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else {
			path = NULL;
			break;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: sysgate verify AUDIT [--key PUBLIC] [--hash HASH]\n");
		return 125;
	}
	if (key) {
		r = audit_load_public_key(key, pk);
		if (r < 0) {
			fprintf(stderr, "sysgate: %s: cannot read the public key: %s\n",
				key, strerror(-r));
			return 125;
		}
	}
	r = audit_verify_path_last(path, key ? pk : NULL, last, why, sizeof(why));
	if (r == 0 && want) {
		/* Security: the trail a run wrote ends with the hash it
		 * printed; any other whole trail (a forgery re-chained from
		 * the start, another run's) ends with another. */
		sodium_bin2hex(last_hex, sizeof(last_hex), last, sizeof(last));
		if (strcasecmp(want, last_hex) != 0) {
			printf("%s: BAD: the last record's hash is %s, not %s: not the trail that was given\n",
			       path, last_hex, want);
			return 1;
		}
	}
	if (r == 0) {
		printf("%s: OK: the hash chain is whole%s%s\n", path,
		       key ? " and the signature verifies" : "",
		       want ? " and ends with the given hash" : "");
		return 0;
	}
	if (r == -EBADMSG) {
		printf("%s: BAD: %s\n", path, why);
		return 1;
	}
	fprintf(stderr, "sysgate: %s: %s\n", path, why[0] ? why : strerror(-r));
	return 125;
}

int tool_keygen(int argc, char **argv)
{
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: sysgate keygen SECRET PUBLIC\n");
		return 125;
	}
	r = audit_keygen(argv[1], argv[2]);
	if (r < 0) {
		fprintf(stderr, "sysgate: keygen: %s\n", strerror(-r));
		return 125;
	}
	printf("secret key: %s\npublic key: %s\n", argv[1], argv[2]);
	return 0;
}
