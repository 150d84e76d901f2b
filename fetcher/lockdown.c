/* fetcher/lockdown.c — see lockdown.h. The whole policy is on this screen. */
#include "fetcher/lockdown.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/sandbox.h"

/* What the resolver reads; nothing else is readable. */
static const char *const readable[] = {
	"/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf", "/etc/services",
};

static const char *const allow[] = {
	"read", "write", "readv", "writev", "close", "lseek", "pread64", "fstat", "newfstatat", "uname",
	"poll", "ppoll", "select", "pselect6", "brk", "munmap", "mremap", "madvise", "futex", "set_robust_list",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday", "getrandom",
	"getpid", "gettid", "getuid", "geteuid", "getgid", "getegid",
	"rt_sigprocmask", "rt_sigreturn", "restart_syscall", "sigaltstack", "sched_yield", "exit", "exit_group",
	/* network */
	"connect", "getsockopt", "setsockopt", "getsockname", "getpeername", "shutdown",
	"sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "pipe2", "eventfd2",
	"memfd_create", /* the artifact travels to the supervisor as a sealed memfd */
	/* libcurl looks a host name up in a thread of its own: glibc registers
	 * each new thread's rseq area, and a refusal after the main thread's
	 * registration is fatal (its signal handlers are set up before the
	 * lock-down: main.c's threads_prepare) */
	"rseq",
};
static const char *const enosys[] = {"clone3", "openat2", "faccessat2", "statx", "close_range", "io_uring_setup"};

static int rule(scmp_filter_ctx ctx, uint32_t act, const char *name, unsigned n, const struct scmp_arg_cmp *a)
{
	int nr = seccomp_syscall_resolve_name(name);
	return nr == __NR_SCMP_ERROR ? 0 : seccomp_rule_add_array(ctx, act, nr, n, a);
}

static int seccomp_apply(int landlocked, bh_error *err)
{
	struct scmp_arg_cmp inet = SCMP_A0(SCMP_CMP_EQ, AF_INET), inet6 = SCMP_A0(SCMP_CMP_EQ, AF_INET6);
	struct scmp_arg_cmp unix_ = SCMP_A0(SCMP_CMP_EQ, AF_UNIX);
	struct scmp_arg_cmp thread = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD);
	struct scmp_arg_cmp noexec = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
	struct scmp_arg_cmp rdonly = SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY);
	struct scmp_arg_cmp getlim = SCMP_A2(SCMP_CMP_EQ, 0);
	struct scmp_arg_cmp fcmd[] = {SCMP_A1(SCMP_CMP_EQ, F_GETFL), SCMP_A1(SCMP_CMP_EQ, F_SETFL),
				      SCMP_A1(SCMP_CMP_EQ, F_GETFD), SCMP_A1(SCMP_CMP_EQ, F_SETFD),
				      SCMP_A1(SCMP_CMP_EQ, F_ADD_SEALS)};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
	int rc = 0;
	size_t i;
	if (!ctx)
		return bh_error_set(err, BH_ENOMEM, "seccomp_init failed");
	rc |= seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	for (i = 0; i < sizeof allow / sizeof *allow; i++)
		rc |= rule(ctx, SCMP_ACT_ALLOW, allow[i], 0, NULL);
	for (i = 0; i < sizeof enosys / sizeof *enosys; i++)
		rc |= rule(ctx, SCMP_ACT_ERRNO(ENOSYS), enosys[i], 0, NULL);
	for (i = 0; i < sizeof fcmd / sizeof *fcmd; i++)
		rc |= rule(ctx, SCMP_ACT_ALLOW, "fcntl", 1, &fcmd[i]);
	rc |= rule(ctx, SCMP_ACT_ALLOW, "socket", 1, &inet);
	rc |= rule(ctx, SCMP_ACT_ALLOW, "socket", 1, &inet6);
	rc |= rule(ctx, SCMP_ACT_ALLOW, "socketpair", 1, &unix_);
	/* nscd, netlink and the rest: the resolver copes with "not supported" */
	rc |= rule(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket", 1, &(struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_GT, AF_INET6));
	rc |= rule(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket", 1, &unix_);
	rc |= rule(ctx, SCMP_ACT_ALLOW, "clone", 1, &thread);
	rc |= rule(ctx, SCMP_ACT_ALLOW, "mmap", 1, &noexec);
	rc |= rule(ctx, SCMP_ACT_ALLOW, "mprotect", 1, &noexec);
	rc |= rule(ctx, SCMP_ACT_ALLOW, "prlimit64", 1, &getlim);
	rc |= rule(ctx, SCMP_ACT_ERRNO(ENOTTY), "ioctl", 0, NULL);
	/* paths: read-only opens, and Landlock decides which; none without it */
	rc |= rule(ctx, landlocked ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(EACCES), "openat", 1, &rdonly);
	rc |= rule(ctx, landlocked ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(EACCES), "open", 1,
		   &(struct scmp_arg_cmp)SCMP_A1(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY));
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc ? bh_error_set(err, BH_EIO, "loading the fetcher's seccomp filter: %s", strerror(-rc)) : 0;
}

/* Returns 1 when applied, 0 when the kernel has no Landlock. */
static int landlock_apply(bh_error *err)
{
	struct landlock_ruleset_attr ra = {0};
	int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION), fd;
	if (abi < 1)
		return 0;
	ra.handled_access_fs = ((LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1) | (abi >= 2 ? LANDLOCK_ACCESS_FS_REFER : 0);
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
	if (abi >= 3)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_NET_BIND_TCP
	if (abi >= 4) /* no listening either */
		ra.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP;
#endif
#ifdef LANDLOCK_SCOPE_SIGNAL
	if (abi >= 6) /* no abstract unix sockets, no signals outside */
		ra.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
#endif
	fd = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (fd < 0)
		return bh_error_set(err, BH_EIO, "landlock_create_ruleset: %s", strerror(errno));
	for (size_t i = 0; i < sizeof readable / sizeof *readable; i++) {
		struct landlock_path_beneath_attr pb = {LANDLOCK_ACCESS_FS_READ_FILE, -1};
		if ((pb.parent_fd = open(readable[i], O_PATH | O_CLOEXEC)) < 0)
			continue;
		syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
		close(pb.parent_fd);
	}
	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0) {
		close(fd);
		return bh_error_set(err, BH_EIO, "landlock_restrict_self: %s", strerror(errno));
	}
	close(fd);
	return 1;
}

static int limit(int res, rlim_t v)
{
	struct rlimit rl = {v, v};
	return setrlimit(res, &rl);
}

int lockdown_apply(const lockdown_opts *o, bh_error *err)
{
	int rc, ll;
	if ((rc = sandbox_close_fds(o->sock, -1, err)) < 0)
		return rc;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return bh_error_set(err, BH_EIO, "setting no_new_privs: %s", strerror(errno));
	if ((rc = sandbox_drop_caps(err)) < 0)
		return rc;
	if (limit(RLIMIT_CORE, 0) < 0 || limit(RLIMIT_FSIZE, (rlim_t)1 << 30) < 0 || limit(RLIMIT_NOFILE, 64) < 0 ||
	    limit(RLIMIT_MEMLOCK, 0) < 0 || limit(RLIMIT_MSGQUEUE, 0) < 0 ||
	    (o->as_bytes && limit(RLIMIT_AS, o->as_bytes) < 0) ||
	    (o->cpu_seconds && limit(RLIMIT_CPU, o->cpu_seconds) < 0))
		return bh_error_set(err, BH_EIO, "setting the fetcher's rlimits: %s", strerror(errno));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return bh_error_set(err, BH_EIO, "clearing dumpable: %s", strerror(errno));
	if ((ll = landlock_apply(err)) < 0)
		return ll;
	if ((rc = sandbox_sigsys_report(o->sock, err)) < 0 || (rc = seccomp_apply(ll, err)) < 0)
		return rc;
	return ll;
}
