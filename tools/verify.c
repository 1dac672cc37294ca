/* SPDX-License-Identifier: MIT */
/*
 * sysgate verify AUDIT [--key PUB] and sysgate keygen SECRET PUBLIC: check a
 * trail's hash chain and signature with audit/'s own reader; make keys.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit/audit.h"
#include "tools/tools.h"

int tool_verify(int argc, char **argv)
{
	const char *path = NULL;
	const char *key = NULL;
	unsigned char pk[32];
	char why[512] = "";
	int r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--key") && i + 1 < argc)
			key = argv[++i];
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else {
			path = NULL;
			break;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: sysgate verify AUDIT [--key PUBLIC]\n");
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
	r = audit_verify_path(path, key ? pk : NULL, why, sizeof(why));
	if (r == 0) {
		printf("%s: OK: the hash chain is whole%s\n", path,
		       key ? " and the signature verifies" : "");
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
