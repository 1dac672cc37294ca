/* SPDX-License-Identifier: MIT */
/*
 * try-sysstate: one change of system-wide state (SECURITY.md,
 * *State the whole system shares*), or
 * the tree's own use of such state that must keep working.  Exits with
 * the errno of the call under test (0: it worked).
 *
 *   try-sysstate sethostname NAME | setdomainname NAME
 *   try-sysstate shm-rmid ID | shm-set ID | shm-attach ID
 *   try-sysstate msg-rmid ID | msg-send ID | msg-recv ID
 *   try-sysstate sem-rmid ID | sem-op ID
 *   try-sysstate own-ipc             IPC_PRIVATE shm, msg and sem of its own
 *   try-sysstate own-key KEY         a keyed queue of its own, then removed
 *   try-sysstate own-leave KEY       a keyed queue of its own, left behind
 *   try-sysstate mq-open NAME        creates a POSIX message queue
 *   try-sysstate mq-exists NAME      0 when the queue exists
 *   try-sysstate mq-unlink NAME      removes it
 *   try-sysstate quota               quotactl(Q_GETFMT) on /
 *   try-sysstate lease FILE [SECS]   a read lease on FILE (opened read-only),
 *                                    held SECS seconds; prints "lease ERRNO"
 *   try-sysstate crash DIR           chdir(DIR), raise RLIMIT_CORE, SIGSEGV
 *   try-sysstate core-limit          raise RLIMIT_CORE's hard limit
 *   try-sysstate core-limit-zero     set RLIMIT_CORE to 0 (soft and hard)
 */
#include "victim.h"

#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/quota.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>

struct msg {
	long type;
	char text[8];
};

static int err_of(long r)
{
	return r < 0 ? errno : 0;
}

static int own_ipc(void)
{
	struct msg m = { .type = 1, .text = "hi" };
	struct sembuf op = { .sem_num = 0, .sem_op = 1 };
	int shm, q, sem;
	char *p;

	shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	if (shm < 0)
		return victim_result("shmget", errno);
	p = shmat(shm, NULL, 0);
	if (p == (void *)-1)
		return victim_result("shmat", errno);
	strcpy(p, "own");
	if (shmdt(p) < 0 || shmctl(shm, IPC_RMID, NULL) < 0)
		return victim_result("shmdt/shmctl", errno);
	q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (q < 0)
		return victim_result("msgget", errno);
	if (msgsnd(q, &m, sizeof(m.text), 0) < 0 ||
	    msgrcv(q, &m, sizeof(m.text), 0, IPC_NOWAIT) < 0 ||
	    msgctl(q, IPC_RMID, NULL) < 0)
		return victim_result("msgsnd/msgrcv/msgctl", errno);
	sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	if (sem < 0)
		return victim_result("semget", errno);
	if (semop(sem, &op, 1) < 0 || semctl(sem, 0, IPC_RMID) < 0)
		return victim_result("semop/semctl", errno);
	return 0;
}

static int own_key(key_t key)
{
	int q = msgget(key, IPC_CREAT | IPC_EXCL | 0600), again;

	if (q < 0)
		return victim_result("msgget", errno);
	/* The same key again: the queue just made, not a new one. */
	again = msgget(key, 0600);
	if (again != q)
		return victim_result("msgget again", again < 0 ? errno : EBADE);
	return victim_result("msgctl", err_of(msgctl(q, IPC_RMID, NULL)));
}

static int crash(const char *dir)
{
	struct rlimit rl;

	if (chdir(dir) < 0)
		victim_setup_fail("chdir %s", dir);
	/* What any program may do: soft up to hard. */
	if (getrlimit(RLIMIT_CORE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_CORE, &rl);
	}
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
	return VICTIM_EXIT_SETUP;
}

int main(int argc, char **argv)
{
	const char *op;
	long id = 0;

	victim_name = "try-sysstate";
	if (argc < 2)
		victim_usage("OP [ARG]");
	op = argv[1];
	if (argc > 2 && strstr(op, "-") && strncmp(op, "mq-", 3))
		id = victim_long(argv[2], "id");
	if (!strcmp(op, "sethostname") && argc > 2)
		return victim_result(op, err_of(sethostname(argv[2],
							   strlen(argv[2]))));
	if (!strcmp(op, "setdomainname") && argc > 2)
		return victim_result(op, err_of(setdomainname(argv[2],
							     strlen(argv[2]))));
	if (!strcmp(op, "shm-rmid"))
		return victim_result(op, err_of(shmctl((int)id, IPC_RMID, NULL)));
	if (!strcmp(op, "shm-set")) {
		struct shmid_ds ds;

		if (shmctl((int)id, IPC_STAT, &ds) < 0)
			victim_setup_fail("IPC_STAT");
		ds.shm_perm.mode = 0666;
		return victim_result(op, err_of(shmctl((int)id, IPC_SET, &ds)));
	}
	if (!strcmp(op, "shm-attach"))
		return victim_result(op, shmat((int)id, NULL, SHM_RDONLY) ==
					 (void *)-1 ? errno : 0);
	if (!strcmp(op, "msg-rmid"))
		return victim_result(op, err_of(msgctl((int)id, IPC_RMID, NULL)));
	if (!strcmp(op, "msg-send")) {
		struct msg m = { .type = 1, .text = "evil" };

		return victim_result(op, err_of(msgsnd((int)id, &m,
						       sizeof(m.text),
						       IPC_NOWAIT)));
	}
	if (!strcmp(op, "msg-recv")) {
		struct msg m;

		return victim_result(op, err_of(msgrcv((int)id, &m,
						       sizeof(m.text), 0,
						       IPC_NOWAIT)));
	}
	if (!strcmp(op, "sem-rmid"))
		return victim_result(op, err_of(semctl((int)id, 0, IPC_RMID)));
	if (!strcmp(op, "sem-op")) {
		struct sembuf sop = { .sem_num = 0, .sem_op = 1 };

		return victim_result(op, err_of(semop((int)id, &sop, 1)));
	}
	if (!strcmp(op, "own-ipc"))
		return own_ipc();
	if (!strcmp(op, "own-key") && argc > 2)
		return own_key((key_t)id);
	if (!strcmp(op, "own-leave") && argc > 2)
		return victim_result(op, msgget((key_t)id, IPC_CREAT | 0600) < 0 ?
					 errno : 0);
	if (!strcmp(op, "mq-open") && argc > 2) {
		mqd_t q = mq_open(argv[2], O_CREAT | O_RDWR, 0600, NULL);

		return victim_result(op, q == (mqd_t)-1 ? errno : 0);
	}
	if (!strcmp(op, "mq-exists") && argc > 2) {
		mqd_t q = mq_open(argv[2], O_RDONLY);

		return q == (mqd_t)-1 ? errno : 0;
	}
	if (!strcmp(op, "mq-unlink") && argc > 2)
		return victim_result(op, err_of(mq_unlink(argv[2])));
	if (!strcmp(op, "lease") && argc > 2) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC), err;

		if (fd < 0)
			victim_setup_fail("open %s", argv[2]);
		err = err_of(fcntl(fd, F_SETLEASE, F_RDLCK));
		printf("lease %d\n", err);
		fflush(stdout);
		if (!err && argc > 3)
			sleep((unsigned)atoi(argv[3]));
		return victim_result(op, err);
	}
	if (!strcmp(op, "quota")) {
		unsigned fmt;

		return victim_result(op, err_of(quotactl(QCMD(Q_GETFMT, USRQUOTA),
							 "/dev/root", 0,
							 (caddr_t)&fmt)));
	}
	if (!strcmp(op, "crash") && argc > 2)
		return crash(argv[2]);
	if (!strcmp(op, "core-limit-zero")) {
		struct rlimit rl = { 0, 0 };

		return victim_result(op, err_of(setrlimit(RLIMIT_CORE, &rl)));
	}
	if (!strcmp(op, "core-limit")) {
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

		return victim_result(op, err_of(setrlimit(RLIMIT_CORE, &rl)));
	}
	victim_usage("OP [ARG] (see the source)");
}
