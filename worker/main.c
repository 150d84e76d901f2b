/* worker/main.c — bulkhead-worker: started by bulkheadd (fork + exec) with
 * its end of a socketpair as fd 3. It locks itself down (sandbox/) before
 * reading anything, receives one job and the chart artifact fd, runs the job
 * with every Kubernetes request brokered by the supervisor, sends its result
 * and exits.
 *
 * usage: bulkhead-worker [--fd N] [--cpu-seconds N] [--memory-mb N] [--ns-fd N] [--job NS/NAME]
 *        bulkhead-worker --hold-namespaces
 *        bulkhead-worker --cpu-caps
 * (--job only labels the process for operators; the job comes over the socket;
 * --ns-fd: the pidfd of a namespace holder to join, sandbox_hold_namespaces;
 * --hold-namespaces: be that holder, on fd 3; --cpu-caps: see cpu_caps) */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "ipc/ipc.h"
#include "kube/kube.h"
#include "lib/vec.h"
#include "proto/jload.h"
#include "proto/proto.h"
#include "sandbox/sandbox.h"
#include "worker/broker.h"
#include "worker/job.h"
#include "worker/prepare.h"

#define WORKER_MAX_CHART ((size_t)10 << 20) /* Flux's chart artifact limit */

/* A worker's end: once its result is sent (ipc_send returns when the whole
 * frame is queued on the socket, where the supervisor reads it after the
 * exit) it _exits, leaving what it holds to the kernel: the job document,
 * the result, the chart, the client and the release history the job kept
 * (WORKER_JOB_LAST). Freeing them took about 500 k instructions of a podinfo
 * install (callgrind: the job document with the discovery 186 k, the
 * history 288 k, the result and the client 23 k), and exit() has nothing
 * to run: no stdio stream is open after the lock-down and no atexit handler
 * is registered (OpenSSL is initialised without one). The sanitizer build
 * frees everything and returns, so its leak check still covers a whole job. */
#if defined(__SANITIZE_ADDRESS__)
#define WORKER_FREE_AT_END 1
#define WORKER_END_FLAGS 0u
#else
#define WORKER_FREE_AT_END 0
#define WORKER_END_FLAGS WORKER_JOB_LAST
#endif

static void send_log(int sock, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void send_log(int sock, const char *fmt, ...)
{
	char line[PROTO_MAX_LOG];
	bh_buf b = BH_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
			*p = '?';
	proto_str_encode(&b, line, strlen(line));
	ipc_send(sock, PROTO_LOG, 0, b.data, b.len, -1, NULL);
	bh_buf_free(&b);
}

static void log_line(void *ud, const char *msg)
{
	send_log(*(int *)ud, "%s", msg);
}

static void send_result(int sock, json_t *res)
{
	char *s = json_dumps(res, JSON_COMPACT);
	bh_buf b = BH_BUF_INIT;
	if (s) {
		proto_str_encode(&b, s, strlen(s));
		ipc_send(sock, PROTO_RESULT, 0, b.data, b.len, -1, NULL);
	}
	free(s);
	bh_buf_free(&b);
}

/* --cpu-caps: the CPU capabilities OpenSSL found (its start-up asks cpuid
 * six times, each a trap to the hypervisor, about 7 us here), written to fd
 * 3 as the value of OPENSSL_ia32cap that makes a later start take them as
 * they are, without cpuid: "0xWORDS01:0xWORDS23" (OpenSSL 3's
 * OPENSSL_cpuid_setup; bit 10 of word 0 is its "set" mark, set again
 * either way). bulkheadd runs this once and passes the value to its
 * workers (supervisor/spawn.c); tests/unit/test_spawn checks that a worker
 * given it ends with the same capabilities. Exit 1 where there is none to
 * give (not x86-64, or OpenSSL linked as a shared library: its table is
 * not exported). */
#if defined(__x86_64__)
extern unsigned int OPENSSL_ia32cap_P[] __attribute__((weak));
#endif
static int cpu_caps(void)
{
#if defined(__x86_64__)
	char s[64];
	int n;
	if (!OPENSSL_ia32cap_P)
		return 1;
	n = snprintf(s, sizeof s, "0x%llx:0x%llx",
		     (unsigned long long)OPENSSL_ia32cap_P[0] | (unsigned long long)OPENSSL_ia32cap_P[1] << 32,
		     (unsigned long long)OPENSSL_ia32cap_P[2] | (unsigned long long)OPENSSL_ia32cap_P[3] << 32);
	return write(3, s, (size_t)n) == n ? 0 : 1;
#else
	return 1;
#endif
}

/* Misbehaviour on request, for the supervisor's failure-handling tests. The
 * supervisor only forwards a test hook when it runs with --test-hooks. */
static void test_hook(const char *h, int sock)
{
	if (!h)
		return;
	if (strcmp(h, "chatter") == 0) {
		/* a burst of log frames ahead of the job's first request: more
		 * than the supervisor handles per worker per turn of its loop */
		for (int i = 1; i <= 400; i++)
			send_log(sock, "test hook chatter: line %d of 400, before the job's first request", i);
	} else if (strcmp(h, "segv") == 0) {
		volatile int *p = NULL;
		*p = 1;
	} else if (strcmp(h, "spin") == 0) {
		for (volatile unsigned long i = 0;; i++)
			;
	} else if (strcmp(h, "hang") == 0) {
		for (;;) {
			struct timespec ts = {3600, 0};
			nanosleep(&ts, NULL);
		}
	} else if (strcmp(h, "socket") == 0) {
		socket(AF_INET, SOCK_STREAM, 0);
	} else if (strcmp(h, "execve") == 0) {
		char *argv[] = {"/bin/sh", NULL};
		execve("/bin/sh", argv, NULL);
	} else if (strcmp(h, "open") == 0) {
		open("/etc/passwd", O_RDONLY);
	}
}

static unsigned char *read_all(int fd, size_t max, size_t *len)
{
	size_t cap = 0, n = 0;
	unsigned char *p = NULL;
	for (;;) {
		ssize_t r;
		if (n == cap && (cap > max || VEC_RESERVE(p, cap, n + 1, 65536) < 0)) {
			free(p);
			return NULL;
		}
		r = read(fd, p + n, cap - n);
		if (r < 0) {
			free(p);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(p);
		return NULL;
	}
	*len = n;
	return p;
}

int main(int argc, char **argv)
{
	int sock = 3, ns_fd = -1;
	unsigned long cpu = 60, mem_mb = 1024;
	sandbox_opts so;
	uid_t uid;
	bh_error e;
	ipc_msg m = {0};
	const unsigned char *js;
	size_t jlen, clen = 0;
	json_t *job, *res = NULL;
	json_error_t je;
	unsigned char *chart;
	kube_transport *t;
	kube_client *kc;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--version"))) {
		if (argv[1][2] == 'v')
			printf("bulkhead-worker %s\n", PACKAGE_VERSION);
		else
			printf("usage: bulkhead-worker [--fd N] [--cpu-seconds N] [--memory-mb N] [--ns-fd N] [--job NS/NAME]\n"
			       "       bulkhead-worker --hold-namespaces\n"
			       "       bulkhead-worker --cpu-caps\n"
			       "Not for direct use: bulkheadd starts one worker per reconcile, with its end of a\n"
			       "socketpair as fd N (default 3); the worker locks itself down, reads one job from\n"
			       "that socket, and exits. --job only labels the process for operators. --ns-fd N:\n"
			       "join the namespaces of the holder whose pidfd is N; --hold-namespaces: make one\n"
			       "tenant's namespaces and hold them until fd 3 is closed; --cpu-caps: write\n"
			       "OpenSSL's CPU capabilities to fd 3 as OPENSSL_ia32cap for later workers.\n");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--cpu-caps") == 0)
		return cpu_caps();
	if (argc == 2 && strcmp(argv[1], "--hold-namespaces") == 0) {
		if (sandbox_hold_namespaces(3, &e) < 0) {
			fprintf(stderr, "bulkhead-worker: holding namespaces: %s\n", e.msg);
			return 3;
		}
		_exit(0); /* nothing to free, and no exit-time code under its filter */
	}
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--fd") == 0)
			sock = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--cpu-seconds") == 0)
			cpu = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--memory-mb") == 0)
			mem_mb = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--ns-fd") == 0)
			ns_fd = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--job") != 0) {
			fprintf(stderr, "bulkhead-worker: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
#ifdef BH_SANDBOX_PHASES
	struct timespec phase_main;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &phase_main); /* exec to here */
#endif
	if (worker_prepare() < 0) {
		send_log(sock, "lock-down failed: a library did not initialise");
		return 3;
	}
	so.report_fd = sock;
	so.keep_fd = -1;
	so.ns_fd = ns_fd;
	so.as_bytes = (unsigned long long)mem_mb << 20;
	so.cpu_seconds = cpu;
#ifdef BH_SANDBOX_SURVEY
	so.survey = 1; /* the survey build only (tests/e2e/survey_worker) */
#else
	so.survey = 0;
#endif
	uid = geteuid(); /* as the host sees it: a user namespace maps it away */
	if (sandbox_lockdown(&so, &e) < 0) {
		send_log(sock, "lock-down failed: %s", e.msg);
		return 3;
	}
#ifdef BH_SANDBOX_PHASES
	{ /* the phase worker's timings, for tests/bench/bench_spawn (us of CPU) */
		const unsigned long *t = sandbox_phase_us;
		unsigned long m = (unsigned long)phase_main.tv_sec * 1000000ul + (unsigned long)phase_main.tv_nsec / 1000;
		send_log(sock, "phases: exec-to-main %lu prepare %lu namespaces %lu capabilities %lu limits-seccomp %lu", m,
			 t[0] - m, t[1] - t[0], t[2] - t[1], t[3] - t[2]);
	}
#endif
	{
		unsigned iso = sandbox_isolation();
		send_log(sock, "sandbox: uid %u, user namespace %s, network %s, file system %s", (unsigned)uid,
			 iso & SANDBOX_ISO_USERNS ? "own" : "shared (host refuses)",
			 iso & SANDBOX_ISO_NONET ? "none" : "shared (seccomp only)",
			 iso & SANDBOX_ISO_NOFS ? "empty" : "shared (seccomp only)");
	}
	if (ipc_recv(sock, IPC_MAX_PAYLOAD, 1, &m, &e) < 0 || m.hdr.type != PROTO_JOB ||
	    proto_str_decode(m.payload, m.hdr.len, IPC_MAX_PAYLOAD, 0, &js, &jlen, &e) < 0) {
		send_log(sock, "no job received: %s", m.payload ? "not a JOB message" : e.msg);
		return 4;
	}
	/* proto/jload's reader: the job (mostly the supervisor's discovery)
	 * took jansson's reader 2.10 M instructions, this one 0.56 M */
	job = jload_new((const char *)js, jlen, 0, &je);
	if (!job || m.fd < 0) {
		send_log(sock, "invalid job: %s", job ? "no chart artifact fd" : je.text);
		return 4;
	}
	chart = read_all(m.fd, WORKER_MAX_CHART, &clen);
	ipc_msg_free(&m);
	if (!chart) {
		res = json_pack("{s:b,s:s,s:s}", "ready", 0, "reason", "ArtifactFailed", "message",
				"could not read the chart artifact (larger than 10 MiB or unreadable)");
		send_result(sock, res);
		return 0;
	}
	test_hook(json_string_value(json_object_get(job, "testHook")), sock);
	if (!(t = worker_broker_transport_new(sock, &e)) || !(kc = kube_client_new(t, &e))) {
		send_log(sock, "kube client: %s", e.msg);
		return 5;
	}
	if (worker_job_run(kc, job, chart, clen, WORKER_END_FLAGS, log_line, &sock, &res, &e) < 0) {
		send_log(sock, "job failed: %s", e.msg);
		return 6;
	}
	send_result(sock, res);
#if !WORKER_FREE_AT_END
	_exit(0);
#else
	json_decref(res);
	json_decref(job);
	free(chart);
	kube_client_free(kc);
	return 0;
#endif
}
