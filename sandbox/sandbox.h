/* sandbox/sandbox.h — the worker's lock-down: close every fd but the ones it
 * keeps, user, network and mount namespaces where the host allows them
 * (its tenant's, from a holder, or its own), no_new_privs, all capabilities dropped (effective, permitted,
 * inheritable, ambient and bounding sets), rlimits, not dumpable, and a
 * seccomp allow-list. Called by bulkhead-worker before it reads any input.
 * All of it is plain system calls: the filter is a BPF program built from the
 * policy tables in sandbox.c (as OpenSSH builds its own), so a worker loads
 * neither libseccomp nor libcap and compiles no filter at start-up.
 *
 * Seccomp design: the default action is SECCOMP_RET_TRAP, not KILL_PROCESS, so
 * the supervisor can learn *which* syscall was refused: the kernel never runs
 * the refused syscall either way, and a tiny async-signal-safe SIGSYS
 * handler (installed before the filter) writes one PROTO_SECCOMP frame
 * {si_syscall, si_arch} to the worker's socket and _exit()s with
 * SANDBOX_EXIT_SECCOMP. rt_sigaction and kill are themselves outside the
 * allow-list, so code running in the worker cannot replace the handler (the
 * attempt traps too), and SIGSYS cannot be
 * ignored: the kernel resets a blocked or ignored SIGSYS to its default
 * (death) when seccomp raises it. The supervisor also treats death by
 * SIGSYS without a report as a seccomp kill. Non-native ABIs (x32, i386)
 * kill the process outright (SECCOMP_RET_KILL_PROCESS).
 *
 * A few syscalls that glibc probes answer with an errno instead (ENOSYS for
 * clone3/statx/rseq/close_range/faccessat2/openat2/sysinfo, ENOTTY for ioctl)
 * so libc degrades gracefully; every path-opening syscall, exec, fork/clone,
 * socket/connect, ptrace and kill trap, and so do newfstatat with a path
 * and prlimit64 on another process. The allow-list is in sandbox.c, on one
 * screen; sandbox/SYSCALLS.md says how it was measured (sandbox/survey.sh). */
#ifndef BH_SANDBOX_H
#define BH_SANDBOX_H

#include <stdint.h>

#include "lib/error.h"

#define SANDBOX_EXIT_SECCOMP 159 /* 128 + SIGSYS */

typedef struct sandbox_opts {
	int report_fd;                  /* socket for the SIGSYS report; kept open */
	int keep_fd;                    /* another fd to keep open, or -1 */
	unsigned long long as_bytes;    /* RLIMIT_AS; 0 = leave as is */
	unsigned long cpu_seconds;      /* RLIMIT_CPU soft (hard = +5); 0 = leave */
	int survey;                     /* tests only: log what would trap, let it run */
	int ns_fd;                      /* pidfd of a namespace holder to join
					 * (sandbox_hold_namespaces), closed by
					 * the lock-down; 0 or -1: none (never
					 * stdin, out or err) */
} sandbox_opts;

/* What sandbox_lockdown() could add where the host allows it (unprivileged
 * user namespaces): a user namespace of its own, and with it no network (a
 * new, empty network namespace) and an empty read-only tmpfs as its root
 * (new mount namespace, chroot). Best effort: sandbox_isolation() says what
 * was applied, and the worker reports it. */
#define SANDBOX_ISO_USERNS 1u
#define SANDBOX_ISO_NONET 2u
#define SANDBOX_ISO_NOFS 4u
unsigned sandbox_isolation(void);

/* Namespaces made once per tenant and joined by that tenant's workers
 * (setns of all five is about 16 us of CPU, a new set about 640 us, most
 * of it the network namespace). A holder (bulkhead-worker
 * --hold-namespaces, started by the supervisor like a worker, never given
 * any tenant input) makes them: a user, network, mount, IPC and UTS
 * namespace, the empty read-only tmpfs as the mount namespace's root (the
 * host's root detached, so a joiner's root is that tmpfs), then closes its
 * other fds, drops its capabilities, loads the worker's seccomp filter,
 * writes "y" to fd ("n" when it could not: the error says why) and waits
 * until fd reads end of file. A worker given the holder's pidfd
 * (sandbox_opts.ns_fd) joins them in sandbox_lockdown() instead of making
 * its own; when it cannot, it makes its own as before. */
int sandbox_hold_namespaces(int fd, bh_error *err);

/* Closes every fd except o->report_fd and o->keep_fd (stdin/out/err too). */
int sandbox_close_fds(int keep1, int keep2, bh_error *err);
/* Everything above, in order. On failure the caller must exit: a half
 * locked-down worker must not go on. */
int sandbox_lockdown(const sandbox_opts *o, bh_error *err);
/* Only the seccomp part (used by the lockdown, and by tests). */
int sandbox_seccomp_load(int report_fd, bh_error *err);
/* survey != 0: the same filter, but a call outside it is allowed and logged
 * (SECCOMP_RET_LOG) instead of trapped; for the syscall survey
 * (sandbox/SYSCALLS.md) only: never in a worker that runs jobs. */
int sandbox_seccomp_load_mode(int report_fd, int survey, bh_error *err);

/* The worker's policy as rules (for the filter and its tests): the first
 * rule whose number is the call's and whose tests all hold, each
 * (args[arg] & mask) == val over 64 bits, gives its action (a
 * SECCOMP_RET_* value); no rule matching gives the default. Writes up to
 * cap rules and returns how many there are. */
typedef struct sandbox_arg_test {
	unsigned arg;
	uint64_t mask, val;
} sandbox_arg_test;
typedef struct sandbox_rule {
	int nr;
	uint32_t action;
	unsigned n;              /* tests in t */
	sandbox_arg_test t[2];
} sandbox_rule;
unsigned sandbox_worker_rules(sandbox_rule *r, unsigned cap);
/* Those rules compiled to the classic BPF program the lock-down loads
 * (default SECCOMP_RET_TRAP, or SECCOMP_RET_LOG when survey): written to
 * out, its length returned; BH_ELIMIT when it does not fit in cap or needs
 * a jump classic BPF cannot make. */
struct sock_filter;
int sandbox_worker_filter(struct sock_filter *out, unsigned cap, int survey, bh_error *err);

/* fstat(fd) in the form the filter lets through (glibc's own fstat passes
 * a path pointer the filter cannot tell from any other path). */
struct stat;
int sandbox_fstat(int fd, struct stat *st);

/* Pieces the fetcher's own lock-down (fetcher/lockdown.c) shares: all
 * capabilities dropped; the SIGSYS handler that reports a trapped syscall
 * as a PROTO_SECCOMP frame on fd and exits with SANDBOX_EXIT_SECCOMP. */
int sandbox_drop_caps(bh_error *err);
int sandbox_sigsys_report(int fd, bh_error *err);

/* The name of syscall nr for audit arch (e.g. "socket"), written to buf;
 * "syscall N" when unknown. For the supervisor's reports. */
const char *sandbox_syscall_name(uint32_t nr, uint32_t arch, char *buf, unsigned long n);

/* Built with -DBH_SANDBOX_PHASES only (tests/bench/phase_worker): the
 * thread's CPU time in us when sandbox_lockdown() began, and after its
 * namespaces, its capabilities, and its limits and seccomp filter. */
#define SANDBOX_PHASES 4
#ifdef BH_SANDBOX_PHASES
extern unsigned long sandbox_phase_us[SANDBOX_PHASES];
#endif

#endif
