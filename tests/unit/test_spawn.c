/* tests/unit/test_spawn.c — supervisor/spawn.c: a spawned program starts
 * with no signal blocked, ignored or caught, whatever dispositions the
 * supervisor set before its first spawn (the child resets only those); a
 * worker's environment is the helpers' fixed one plus its malloc tunable;
 * workers of one tenant share that tenant's namespaces, and workers of two
 * tenants never do; a worker is given OpenSSL's CPU capabilities as the
 * worker binary found them, and starts with the same ones. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "proto/proto.h"
#include "supervisor/spawn.h"
#include "tests/unit/unit_util.h"

static void on_usr2(int sig)
{
	(void)sig;
}

/* What a spawned child (pid, its socket sock) wrote to its fd 3, into buf;
 * it must exit 0. */
static void child_output(pid_t pid, int sock, char *buf, size_t cap)
{
	size_t n = 0;
	int st;
	for (;;) {
		struct pollfd p = {sock, POLLIN, 0};
		ssize_t r;
		ck_assert_int_eq(poll(&p, 1, 10000), 1);
		r = read(sock, buf + n, cap - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	close(sock);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The child's /proc/self/status, as cat (exec'd by sh) sees it. */
static void child_status(char *buf, size_t cap)
{
	char *argv[] = {"sh", "-c", "exec /bin/cat /proc/self/status >&3", NULL};
	pid_t pid;
	int sock;
	bh_error e;
	ck_assert_msg(spawn_exec("/bin/sh", -1, argv, &pid, &sock, &e) == 0, "%s", e.msg);
	child_output(pid, sock, buf, cap);
}

/* Does the NUL-separated environment env[0..n) hold the entry want? */
static int env_has(const char *env, size_t n, const char *want)
{
	for (size_t i = 0; i < n; i += strlen(env + i) + 1)
		if (strcmp(env + i, want) == 0)
			return 1;
	return 0;
}

/* A worker (here a script in its place, run by execve: no O_PATH fd) gets
 * the fixed environment and glibc's malloc tunable; another helper
 * (spawn_exec) the fixed environment alone. */
START_TEST(test_worker_env)
{
	static char env[8192];
	char dir[] = "/tmp/test_spawn.XXXXXX", path[64], *argv[] = {"sh", "-c", "exec /usr/bin/env -0 >&3", NULL};
	spawn_opts o = {0};
	FILE *f;
	pid_t pid;
	int sock;
	bh_error e;
	const char *fixed[] = {"PATH=/nonexistent", "LANG=C", "TZ=", "MALLOC_ARENA_MAX=1"};
	const char *tunable = "GLIBC_TUNABLES=glibc.malloc.tcache_count=1000";
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/worker", dir);
	ck_assert((f = fopen(path, "w")) != NULL);
	fputs("#!/bin/sh\nexec /usr/bin/env -0 >&3\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, 0755), 0);
	o.worker_path = path;
	o.worker_fd = -1;
	o.job_label = "ns/name";
	o.cpu_seconds = 10;
	o.memory_mb = 64;
	ck_assert_msg(spawn_worker(&o, &pid, &sock, &e) == 0, "%s", e.msg);
	memset(env, 0, sizeof env);
	child_output(pid, sock, env, sizeof env);
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		ck_assert_msg(env_has(env, sizeof env, fixed[i]), "the worker's environment lacks %s", fixed[i]);
	ck_assert_msg(env_has(env, sizeof env, tunable), "the worker's environment lacks %s", tunable);
	ck_assert_msg(spawn_exec("/bin/sh", -1, argv, &pid, &sock, &e) == 0, "%s", e.msg);
	memset(env, 0, sizeof env);
	child_output(pid, sock, env, sizeof env);
	ck_assert(env_has(env, sizeof env, "MALLOC_ARENA_MAX=1"));
	ck_assert_msg(!env_has(env, sizeof env, tunable), "a helper other than the worker got %s", tunable);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static unsigned long long mask_of(const char *status, const char *key)
{
	const char *p = strstr(status, key);
	ck_assert_msg(p != NULL, "no %s in %s", key, status);
	return strtoull(p + strlen(key), NULL, 16);
}

START_TEST(test_signals_reset)
{
	static char status[16384];
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr2;
	ck_assert_int_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	sa.sa_handler = SIG_IGN;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	ck_assert_int_eq(sigaction(SIGPIPE, &sa, NULL), 0);
	for (int round = 0; round < 2; round++) { /* the first spawn reads the dispositions, the second uses them */
		child_status(status, sizeof status);
		ck_assert_uint_eq(mask_of(status, "\nSigBlk:"), 0);
		/* 32 and 33 are glibc's own (sigaction refuses them): what the
		 * test was started with, as before */
		ck_assert_uint_eq(mask_of(status, "\nSigIgn:") & ~(3ULL << 31), 0);
		ck_assert_uint_eq(mask_of(status, "\nSigCgt:"), 0);
	}
}
END_TEST

/* A real worker of tenant, locked down and waiting for its job: its pid,
 * its socket, and its "sandbox: ..." report in report. */
static pid_t tenant_worker(const char *tenant, int *sock, char *report, size_t cap)
{
	spawn_opts o = {0};
	pid_t pid;
	bh_error e;
	o.worker_path = BH_BUILDDIR "/worker/bulkhead-worker";
	o.worker_fd = -1;
	o.job_label = "ns/name";
	o.cpu_seconds = 10;
	o.memory_mb = 0; /* no RLIMIT_AS: the sanitizer build maps terabytes of shadow */
	o.tenant = tenant;
	ck_assert_msg(spawn_worker(&o, &pid, sock, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(fcntl(*sock, F_SETFL, 0), 0);
	for (;;) {
		ipc_msg m = {0};
		const unsigned char *t;
		size_t n;
		ck_assert_msg(ipc_recv(*sock, IPC_MAX_PAYLOAD, 0, &m, &e) == 0, "the worker ended: %s", e.msg);
		ck_assert_int_eq(m.hdr.type, PROTO_LOG);
		ck_assert_int_eq(proto_str_decode(m.payload, m.hdr.len, IPC_MAX_PAYLOAD, 0, &t, &n, &e), 0);
		if (n >= 8 && memcmp(t, "sandbox:", 8) == 0) {
			snprintf(report, cap, "%.*s", (int)n, (const char *)t);
			ipc_msg_free(&m);
			return pid;
		}
		ipc_msg_free(&m);
	}
}

/* Can this test see workers' namespaces (root: another process's
 * /proc/PID/ns needs ptrace rights) and does the host allow unprivileged
 * user namespaces? If not, says test is skipped. */
static int namespaces_here(const char *test)
{
	int st;
	pid_t probe = fork();
	if (probe == 0)
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS) == 0 ? 0 : 1);
	ck_assert_int_eq(waitpid(probe, &st, 0), probe);
	if (getuid() == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 1;
	printf("%s: SKIP (not root, or the host refuses user namespaces)\n", test);
	return 0;
}

/* Two workers of tenant a and one of b: where the host allows user
 * namespaces, each reports its own user namespace, no network and an empty
 * root; a's two are in the same namespaces (their tenant's holder's), b's
 * in others, and none in this process's. The holders end when this
 * process's sockets to them close (at exit). */
START_TEST(test_tenant_namespaces)
{
	static const char *const kinds[] = {"user", "net", "mnt", "ipc", "uts"};
	char rep[3][256], ns[3][64], self[64];
	int sock[3], st;
	pid_t pid[3];
	if (!namespaces_here("test_tenant_namespaces"))
		return;
	pid[0] = tenant_worker("tenant a", &sock[0], rep[0], sizeof rep[0]);
	pid[1] = tenant_worker("tenant a", &sock[1], rep[1], sizeof rep[1]);
	pid[2] = tenant_worker("tenant b", &sock[2], rep[2], sizeof rep[2]);
	for (int w = 0; w < 3; w++)
		ck_assert_msg(strstr(rep[w], "user namespace own, network none, file system empty") != NULL, "worker %d: %s",
			      w, rep[w]);
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		for (int w = 0; w < 3; w++)
			unit_ns_of(pid[w], kinds[k], ns[w], sizeof ns[w]);
		unit_ns_of(getpid(), kinds[k], self, sizeof self);
		ck_assert_msg(strcmp(ns[0], ns[1]) == 0, "tenant a's workers: %s and %s", ns[0], ns[1]);
		ck_assert_msg(strcmp(ns[0], ns[2]) != 0, "tenants a and b share %s", ns[0]);
		ck_assert_msg(strcmp(ns[0], self) != 0 && strcmp(ns[2], self) != 0, "a worker shares %s", self);
	}
	for (int w = 0; w < 3; w++) {
		close(sock[w]); /* no job: it ends */
		ck_assert_int_eq(waitpid(pid[w], &st, 0), pid[w]);
	}
}
END_TEST

/* How many live namespace holders this process has (children whose
 * command line is bulkhead-worker --hold-namespaces). */
static int live_holders(void)
{
	char path[300], line[512];
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;
	ck_assert(d != NULL);
	while ((de = readdir(d))) {
		FILE *f;
		int ppid = -1;
		char state = 0;
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(line, sizeof line, f) && strrchr(line, ')'))
			sscanf(strrchr(line, ')') + 1, " %c %d", &state, &ppid);
		fclose(f);
		if (ppid != getpid() || state == 'Z')
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
		if ((f = fopen(path, "r"))) {
			size_t len = fread(line, 1, sizeof line - 1, f);
			line[len] = 0;
			n += len > strlen(line) + 1 && strcmp(line + strlen(line) + 1, "--hold-namespaces") == 0;
			fclose(f);
		}
	}
	closedir(d);
	return n;
}

/* At most SPAWN_HOLDERS tenants keep a holder: the least recently used
 * one's is told to end when another tenant needs one, and that tenant's
 * next worker is in new namespaces. */
START_TEST(test_tenant_holders_bounded)
{
	char rep[256], first[64], later[64], tenant[32];
	int sock, sock0;
	pid_t pid, pid0;
	if (!namespaces_here("test_tenant_holders_bounded"))
		return;
	pid0 = tenant_worker("tenant 0", &sock0, rep, sizeof rep); /* kept: its namespaces stay */
	unit_ns_of(pid0, "net", first, sizeof first);
	for (int t = 1; t <= SPAWN_HOLDERS; t++) {
		snprintf(tenant, sizeof tenant, "tenant %d", t);
		pid = tenant_worker(tenant, &sock, rep, sizeof rep);
		close(sock);
		ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	}
	ck_assert_int_eq(live_holders(), SPAWN_HOLDERS);
	pid = tenant_worker("tenant 0", &sock, rep, sizeof rep);
	unit_ns_of(pid, "net", later, sizeof later);
	ck_assert_msg(strcmp(first, later) != 0, "tenant 0's holder was not replaced: %s", later);
	ck_assert_int_eq(live_holders(), SPAWN_HOLDERS);
	close(sock);
	close(sock0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	ck_assert_int_eq(waitpid(pid0, NULL, 0), pid0);
}
END_TEST

/* What the worker binary writes for --cpu-caps, run with envp (argv's
 * environment) by fork and execve, into buf ("" when it has none to give:
 * exit 1). */
static void worker_caps(char *const envp[], char *buf, size_t cap)
{
	int sv[2], st;
	size_t n = 0;
	ssize_t r;
	pid_t pid;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	if ((pid = fork()) == 0) {
		char *argv[] = {"bulkhead-worker", "--cpu-caps", NULL};
		if (dup2(sv[1], 3) == 3)
			execve(BH_BUILDDIR "/worker/bulkhead-worker", argv, envp);
		_exit(127);
	}
	close(sv[1]);
	while ((r = read(sv[0], buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = 0;
	close(sv[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == (n ? 0 : 1));
}

/* The capabilities found with no OPENSSL_ia32cap (AES-NI among them where
 * the CPU has it) are what a worker is given, and a worker given them
 * starts with the same ones (no cpuid asked). */
START_TEST(test_cpu_caps)
{
	char found[64], again[64], want[96], rep[256], env[8192], *none[] = {"LANG=C", NULL}, *given[] = {want, NULL};
	char cpuinfo[65536];
	unsigned long long vec;
	int sock, fd;
	ssize_t n;
	pid_t pid;
	worker_caps(none, found, sizeof found);
	if (!*found) {
		printf("test_cpu_caps: SKIP (the worker has no OpenSSL table to give: not a static x86-64 build)\n");
		return;
	}
	ck_assert_msg(strncmp(found, "0x", 2) == 0 && strstr(found, ":0x") != NULL, "--cpu-caps wrote %s", found);
	vec = strtoull(found, NULL, 16);
	fd = open("/proc/cpuinfo", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	n = read(fd, cpuinfo, sizeof cpuinfo - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	cpuinfo[n] = 0;
	if (strstr(cpuinfo, " aes "))
		ck_assert_msg(vec >> 57 & 1, "AES-NI is not in %s", found); /* word 1, bit 25 */
	snprintf(want, sizeof want, "OPENSSL_ia32cap=%s", found);
	worker_caps(given, again, sizeof again);
	ck_assert_str_eq(again, found);
	pid = tenant_worker(NULL, &sock, rep, sizeof rep);
	{
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
		fd = open(path, O_RDONLY);
		ck_assert_int_ge(fd, 0);
		n = read(fd, env, sizeof env);
		close(fd);
	}
	ck_assert_int_gt(n, 0);
	ck_assert_msg(env_has(env, (size_t)n, want), "the worker's environment lacks %s", want);
	close(sock);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spawn");
	TCase *tc = tcase_create("spawn");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_signals_reset);
	tcase_add_test(tc, test_worker_env);
	tcase_add_test(tc, test_tenant_namespaces);
	tcase_add_test(tc, test_cpu_caps);
	tcase_add_test(tc, test_tenant_holders_bounded);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
