/* supervisor/spawn.h — starting one bulkhead-worker per reconcile: a
 * SOCK_STREAM socketpair, vfork (no copy of the supervisor's memory map), and in the child (async-signal-safe calls
 * only, the supervisor has threads) the socket moved to fd 3, every other fd
 * marked close-on-exec, the signals the supervisor set (read once, at the
 * first spawn: set handlers before that) back to SIG_DFL, a new session, death with the parent,
 * umask 077, cwd /, no_new_privs, a fixed environment (a worker's adds a
 * malloc tunable and OpenSSL's CPU capabilities as the worker binary found
 * them at the first spawn, spawn.c), then execveat of
 * the worker binary opened when the supervisor started (execve of the path
 * when that is not possible, e.g. a #! wrapper). The worker then locks itself down (sandbox/). */
#ifndef BH_SUPERVISOR_SPAWN_H
#define BH_SUPERVISOR_SPAWN_H

#include <sys/types.h>

#include "lib/error.h"

typedef struct spawn_opts {
	const char *worker_path;
	int worker_fd;           /* O_PATH fd of the worker binary opened at start
				  * (executed with execveat, so replacing the file
				  * later changes nothing), or -1 */
	const char *job_label;   /* "ns/name", shown in the worker's argv */
	unsigned long cpu_seconds;
	unsigned long memory_mb;
	const char *tenant;      /* who the job runs for (its cluster, namespace
				  * and identity, one string), or NULL */
} spawn_opts;

/* Starts a worker. *sock is the supervisor's end (CLOEXEC; blocking: ipc's
 * reader and writer pass MSG_DONTWAIT, so no fcntl per worker).
 * With o->tenant, the worker joins that tenant's namespaces (user, network,
 * mount with an empty root, IPC, UTS) instead of making its own: made once
 * by a holder (bulkhead-worker --hold-namespaces, sandbox.h) started here
 * at the tenant's first worker, which waits for it (about 2 ms), and kept
 * for the tenant's later workers; one set per tenant, never shared by two,
 * at most SPAWN_HOLDERS of them (the least recently used holder is told to
 * end: its socket closed). A holder that died is replaced. When a holder
 * fails (the host refuses, or it does not answer "y" within a second),
 * that worker and every later one make their own namespaces, as without a
 * tenant: no holder is tried again. Holders end with the supervisor
 * (PR_SET_PDEATHSIG) and are reaped by its wait for any child. */
#define SPAWN_HOLDERS 64
int spawn_worker(const spawn_opts *o, pid_t *pid, int *sock, bh_error *err);

/* The same for any sandboxed helper (bulkhead-fetcher): path (and its O_PATH
 * fd, or -1) executed with argv and the fixed environment, socket on fd 3. */
int spawn_exec(const char *path, int path_fd, char *const argv[], pid_t *pid, int *sock, bh_error *err);

/* Who workers and the other sandboxed helpers (bulkhead-fetcher) run as,
 * set once at start from --worker-uid: "UID[:GID]"
 * (numbers; GID defaults to UID) or "keep" (the supervisor's own). NULL is
 * the default: 65534:65534 when the supervisor runs as root, else keep. A
 * child switches (setgroups, setgid, setuid, checked) before exec, and
 * exits 124 if it cannot. */
int spawn_set_user(const char *spec, bh_error *err);

/* Describes a wait status: "exited with status 3", "killed by signal 11
 * (SIGSEGV)". */
void spawn_describe_status(int status, char *buf, unsigned long n);

#endif
