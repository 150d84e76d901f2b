/* sandbox/sandbox.c — see sandbox.h. */
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/close_range.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "proto/proto.h"

static int close_span(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return 0;
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	for (unsigned fd = lo; fd <= hi && fd < 65536; fd++)
		close((int)fd);
	return 0;
}

int sandbox_close_fds(int keep1, int keep2, bh_error *err)
{
	int keep[2] = {keep1 < keep2 ? keep1 : keep2, keep1 < keep2 ? keep2 : keep1};
	unsigned lo = 0;
	for (int i = 0; i < 2; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < lo)
			continue;
		if ((unsigned)keep[i] > lo && close_span(lo, (unsigned)keep[i] - 1) < 0)
			goto fail;
		lo = (unsigned)keep[i] + 1;
	}
	if (close_span(lo, ~0U) < 0)
		goto fail;
	return 0;
fail:
	return bh_error_set(err, BH_EIO, "closing inherited file descriptors: %s", strerror(errno));
}

int sandbox_drop_caps(bh_error *err)
{
	cap_t none;
	int rc;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return bh_error_set(err, BH_EIO, "clearing ambient capabilities: %s", strerror(errno));
	for (int c = 0; c <= 63; c++) {
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) <= 0)
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EPERM)
			return bh_error_set(err, BH_EIO, "dropping capability %d from the bounding set: %s", c,
					    strerror(errno));
	}
	none = cap_init();
	if (!none)
		return bh_error_set(err, BH_ENOMEM, "cap_init failed");
	rc = cap_set_proc(none);
	cap_free(none);
	if (rc < 0)
		return bh_error_set(err, BH_EIO, "dropping all capabilities: %s", strerror(errno));
	return 0;
}

static int set_limit(int res, const char *name, rlim_t soft, rlim_t hard, bh_error *err)
{
	struct rlimit rl = {soft, hard};
	if (setrlimit(res, &rl) < 0)
		return bh_error_set(err, BH_EIO, "setting %s: %s", name, strerror(errno));
	return 0;
}

static int set_limits(const sandbox_opts *o, bh_error *err)
{
	int hi = o->report_fd > o->keep_fd ? o->report_fd : o->keep_fd;
	int rc;
	if ((rc = set_limit(RLIMIT_CORE, "RLIMIT_CORE", 0, 0, err)) < 0 ||
	    (rc = set_limit(RLIMIT_FSIZE, "RLIMIT_FSIZE", 0, 0, err)) < 0 ||
	    (rc = set_limit(RLIMIT_NOFILE, "RLIMIT_NOFILE", (rlim_t)hi + 4, (rlim_t)hi + 4, err)) < 0 ||
	    (rc = set_limit(RLIMIT_NPROC, "RLIMIT_NPROC", 0, 0, err)) < 0 ||
	    (rc = set_limit(RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", 0, 0, err)) < 0 ||
	    (rc = set_limit(RLIMIT_MSGQUEUE, "RLIMIT_MSGQUEUE", 0, 0, err)) < 0)
		return rc;
	if (o->as_bytes && (rc = set_limit(RLIMIT_AS, "RLIMIT_AS", o->as_bytes, o->as_bytes, err)) < 0)
		return rc;
	if (o->cpu_seconds &&
	    (rc = set_limit(RLIMIT_CPU, "RLIMIT_CPU", o->cpu_seconds, o->cpu_seconds + 5, err)) < 0)
		return rc;
	return 0;
}

/* ---- SIGSYS report ---------------------------------------------------------- */
static volatile int report_fd = -1;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	unsigned char frame[IPC_HDR_SIZE + 8];
	ipc_hdr h = {PROTO_SECCOMP, 8, 0, 0};
	(void)sig;
	(void)uc;
	ipc_hdr_encode(&h, frame);
	proto_seccomp_encode(frame + IPC_HDR_SIZE, (uint32_t)si->si_syscall, si->si_arch);
	if (report_fd >= 0) {
		ssize_t n = write(report_fd, frame, sizeof frame);
		(void)n;
	}
	_exit(SANDBOX_EXIT_SECCOMP);
}

int sandbox_sigsys_report(int fd, bh_error *err)
{
	struct sigaction sa;
	sigset_t s;
	report_fd = fd;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0)
		return bh_error_set(err, BH_EIO, "installing the SIGSYS handler: %s", strerror(errno));
	sigemptyset(&s);
	sigaddset(&s, SIGSYS);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	return 0;
}

/* ---- seccomp ------------------------------------------------------------------- */
static int rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n,
		const struct scmp_arg_cmp *args, bh_error *err)
{
	int nr = seccomp_syscall_resolve_name(name), rc;
	if (nr == __NR_SCMP_ERROR)
		return 0; /* unknown to this libseccomp/arch: the default action applies */
	rc = seccomp_rule_add_array(ctx, action, nr, n, args);
	if (rc < 0)
		return bh_error_set(err, BH_EIO, "seccomp rule for %s: %s", name, strerror(-rc));
	return 0;
}

/* ---- the worker's policy: the whole of it on one screen ------------------------
 * Which calls a worker makes after its lock-down was measured, not guessed:
 * sandbox/SYSCALLS.md lists them and how (every corpus chart through bulkheadd
 * and every fuzz corpus through the locked-down render path, under strace).
 * Anything else traps: the worker is reported and ends. */
static const char *const worker_allow[] = {
	"read", "write", "readv", "writev", "close", "lseek", "pread64", "recvmsg", "sendmsg",
	"poll", "ppoll", "brk", "munmap", "mremap", "madvise", "futex", "set_robust_list",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday", "getrandom",
	"getpid", "gettid", "getuid", "geteuid", "getgid", "getegid", "fstat",
	"rt_sigprocmask", "rt_sigreturn", "restart_syscall", "sigaltstack", "sched_yield", "exit", "exit_group",
};
/* Probes that libc and libraries survive: answered with an errno, not a kill.
 * sysinfo: glibc's qsort asks sysconf(_SC_PHYS_PAGES) when it first sorts
 * 1 KiB or more; worker_prepare() sorts once before the lock-down, so this
 * only guards a second caller (which then gets "unknown" and goes on). */
static const struct { const char *name; int err; } worker_errno[] = {
	{"clone3", ENOSYS}, {"openat2", ENOSYS}, {"faccessat2", ENOSYS}, {"statx", ENOSYS},
	{"close_range", ENOSYS}, {"rseq", ENOSYS}, {"fchmodat2", ENOSYS}, {"io_uring_setup", ENOSYS},
	{"io_uring_enter", ENOSYS}, {"io_uring_register", ENOSYS}, {"sysinfo", ENOSYS}, {"ioctl", ENOTTY},
};
const char sandbox_empty_path[] = "";

static int worker_filter(scmp_filter_ctx ctx, bh_error *err)
{
	const struct scmp_arg_cmp noexec = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
	const struct scmp_arg_cmp fcmd[] = {
		SCMP_A1(SCMP_CMP_EQ, F_GETFL), SCMP_A1(SCMP_CMP_EQ, F_SETFL),
		SCMP_A1(SCMP_CMP_EQ, F_GETFD), SCMP_A1(SCMP_CMP_EQ, F_SETFD),
	};
	/* fstat(fd) only: newfstatat(fd, sandbox_empty_path, st, AT_EMPTY_PATH)
	 * (see sandbox_fstat); any other path pointer or flag traps */
	const struct scmp_arg_cmp fstat_only[] = {
		SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)(uintptr_t)sandbox_empty_path), SCMP_A3(SCMP_CMP_EQ, AT_EMPTY_PATH),
	};
	/* getrlimit of this process only: pid 0 or its own pid, no new limit */
	const struct scmp_arg_cmp lim_self[] = {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)};
	const struct scmp_arg_cmp lim_pid[] = {SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()), SCMP_A2(SCMP_CMP_EQ, 0)};
	/* send/recv on the connected socket: no address */
	const struct scmp_arg_cmp noaddr = SCMP_A4(SCMP_CMP_EQ, 0);
	int rc = 0;
	size_t i;
	for (i = 0; i < sizeof worker_allow / sizeof *worker_allow && rc == 0; i++)
		rc = rule(ctx, SCMP_ACT_ALLOW, worker_allow[i], 0, NULL, err);
	for (i = 0; i < sizeof worker_errno / sizeof *worker_errno && rc == 0; i++)
		rc = rule(ctx, SCMP_ACT_ERRNO((uint32_t)worker_errno[i].err), worker_errno[i].name, 0, NULL, err);
	for (i = 0; i < sizeof fcmd / sizeof *fcmd && rc == 0; i++)
		rc = rule(ctx, SCMP_ACT_ALLOW, "fcntl", 1, &fcmd[i], err);
	if (rc == 0)
		rc = rule(ctx, SCMP_ACT_ALLOW, "mmap", 1, &noexec, err);
	if (rc == 0)
		rc = rule(ctx, SCMP_ACT_ALLOW, "mprotect", 1, &noexec, err);
	if (rc == 0)
		rc = rule(ctx, SCMP_ACT_ALLOW, "newfstatat", 2, fstat_only, err);
	if (rc == 0)
		rc = rule(ctx, SCMP_ACT_ALLOW, "prlimit64", 2, lim_self, err);
	if (rc == 0)
		rc = rule(ctx, SCMP_ACT_ALLOW, "prlimit64", 2, lim_pid, err);
	if (rc == 0)
		rc = rule(ctx, SCMP_ACT_ALLOW, "sendto", 1, &noaddr, err);
	if (rc == 0)
		rc = rule(ctx, SCMP_ACT_ALLOW, "recvfrom", 1, &noaddr, err);
	return rc;
}

int sandbox_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_newfstatat, fd, sandbox_empty_path, st, AT_EMPTY_PATH);
}

int sandbox_seccomp_load(int fd, bh_error *err)
{
	return sandbox_seccomp_load_mode(fd, 0, err);
}

int sandbox_seccomp_load_mode(int fd, int survey, bh_error *err)
{
	scmp_filter_ctx ctx;
	int rc;

	if ((rc = sandbox_sigsys_report(fd, err)) < 0)
		return rc;
	ctx = seccomp_init(survey ? SCMP_ACT_LOG : SCMP_ACT_TRAP);
	if (!ctx)
		return bh_error_set(err, BH_ENOMEM, "seccomp_init failed");
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1) < 0) {
		rc = bh_error_set(err, BH_EIO, "setting seccomp filter attributes");
		goto done;
	}
	if ((rc = worker_filter(ctx, err)) < 0)
		goto done;
	if ((rc = seccomp_load(ctx)) < 0) {
		rc = bh_error_set(err, BH_EIO, "loading the seccomp filter: %s", strerror(-rc));
		goto done;
	}
	rc = 0;
done:
	seccomp_release(ctx);
	return rc;
}

/* ---- namespaces: best effort, measured, reported ------------------------------ */
static unsigned isolation;

static unsigned isolate(void)
{
	unsigned got = 0;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) < 0)
		return 0;
	got |= SANDBOX_ISO_USERNS | SANDBOX_ISO_NONET;
	/* an empty read-only tmpfs as the root: no path leads anywhere */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("bulkhead-empty", "/tmp", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555") == 0 &&
	    chdir("/tmp") == 0 && chroot(".") == 0 && chdir("/") == 0)
		got |= SANDBOX_ISO_NOFS;
	return got;
}

unsigned sandbox_isolation(void)
{
	return isolation;
}

int sandbox_lockdown(const sandbox_opts *o, bh_error *err)
{
	int rc;
	if ((rc = sandbox_close_fds(o->report_fd, o->keep_fd, err)) < 0)
		return rc;
	isolation = isolate();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return bh_error_set(err, BH_EIO, "setting no_new_privs: %s", strerror(errno));
	if ((rc = sandbox_drop_caps(err)) < 0)
		return rc;
	if ((rc = set_limits(o, err)) < 0)
		return rc;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return bh_error_set(err, BH_EIO, "clearing dumpable: %s", strerror(errno));
	return sandbox_seccomp_load_mode(o->report_fd, o->survey, err);
}

const char *sandbox_syscall_name(uint32_t nr, uint32_t arch, char *buf, unsigned long n)
{
	char *name = seccomp_syscall_resolve_num_arch(arch ? arch : SCMP_ARCH_NATIVE, (int)nr);
	if (name) {
		snprintf(buf, n, "%s", name);
		free(name);
	} else {
		snprintf(buf, n, "syscall %u", nr);
	}
	return buf;
}
