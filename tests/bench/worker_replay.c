/* tests/bench/worker_replay.c — plays a recorded worker conversation
 * (worker_tap, tests/bench/ipcrec.h) back to the worker's job code, in this
 * process and without the sandbox, K times: the job (worker_job_run) runs
 * as in bulkhead-worker, its requests go through the worker's broker
 * transport over a socketpair, and a forked child answers each with the
 * recorded answer (after checking its method and path are the recorded
 * ones). Prints the CPU time of the jobs (this process only; the child is
 * not counted), and the outcome, which must be the recorded one.
 *
 * usage: worker_replay [-n K] [-v] RECORDING
 * For instruction counts: valgrind --tool=callgrind
 *   --toggle-collect=worker_job_run worker_replay -n 1 RECORDING
 * counts one job (the first in a process, as in a worker). */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "kube/kube.h"
#include "proto/proto.h"
#include "tests/bench/ipcrec.h"
#include "worker/broker.h"
#include "worker/job.h"
#include "worker/prepare.h"

static int verbose;

/* Do the recorded and the replayed request name the same method and path? */
static int same_request(const ipc_msg *m, const ipcrec_frame *f, char *why, size_t n)
{
	proto_kube_request a = {0}, b = {0};
	bh_error e = {0};
	int same = 0;
	if (proto_kube_request_decode(m->payload, m->hdr.len, &a, &e) < 0)
		snprintf(why, n, "an undecodable request: %.200s", e.msg);
	else if (proto_kube_request_decode(f->payload, f->hdr.len, &b, &e) < 0)
		snprintf(why, n, "an undecodable recorded request: %.200s", e.msg);
	else if (strcmp(a.method, b.method) || strcmp(a.path, b.path))
		snprintf(why, n, "%s %.250s where the recording has %s %.250s", a.method, a.path, b.method, b.path);
	else
		same = 1;
	proto_kube_request_free(&a);
	proto_kube_request_free(&b);
	return same;
}

/* The child: the supervisor's side, k times over. Exits 0 when every
 * request came as recorded. */
static void serve(int sock, const ipcrec *r, int k)
{
	for (int round = 0; round < k; round++)
		for (size_t i = 0; i < r->n; i++) {
			const ipcrec_frame *f = &r->f[i];
			bh_error e = {0};
			char why[600];
			ipc_msg m = {0};
			uint32_t t = f->hdr.type;
			if (f->dir == IPCREC_TO_WORKER && (t == PROTO_KUBE_RESPONSE || t == PROTO_KUBE_STREAM)) {
				if (ipc_send(sock, t, f->hdr.id, f->payload, f->hdr.len, -1, &e) < 0) {
					fprintf(stderr, "worker_replay: sending frame %zu: %s\n", i, e.msg);
					_exit(1);
				}
				continue;
			}
			if (f->dir != IPCREC_FROM_WORKER || (t != PROTO_KUBE_REQUEST && t != PROTO_KUBE_CANCEL))
				continue; /* the job, logs, the result: not over this socket */
			if (ipc_recv(sock, IPC_MAX_PAYLOAD, 0, &m, &e) < 0) {
				fprintf(stderr, "worker_replay: round %d, frame %zu: %s\n", round + 1, i, e.msg);
				_exit(1);
			}
			snprintf(why, sizeof why, "a %s frame where the recording has %s", proto_type_name(m.hdr.type),
				 proto_type_name(t));
			if (m.hdr.type != t || m.hdr.id != f->hdr.id ||
			    (t == PROTO_KUBE_REQUEST && !same_request(&m, f, why, sizeof why))) {
				fprintf(stderr, "worker_replay: round %d, frame %zu: the job diverged: %s\n", round + 1, i, why);
				_exit(1);
			}
			ipc_msg_free(&m);
		}
	_exit(0);
}

static void no_sleep(void *ud, long ms)
{
	(void)ud;
	(void)ms;
}

static void log_line(void *ud, const char *msg)
{
	(void)ud;
	if (verbose)
		fprintf(stderr, "worker: %s\n", msg);
}

static double cpu_ms(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

/* "ready/reason" of a result */
static void outcome(const json_t *res, char *out, size_t n)
{
	snprintf(out, n, "%s/%s", json_is_true(json_object_get(res, "ready")) ? "ready" : "not-ready",
		 json_string_value(json_object_get(res, "reason")) ? json_string_value(json_object_get(res, "reason")) : "-");
}

/* The recording's job, chart and outcome. */
static int recorded(const ipcrec *r, json_t **job, const ipcrec_frame **chart, char *want, size_t n)
{
	*job = NULL;
	*chart = NULL;
	snprintf(want, n, "(none recorded)");
	for (size_t i = 0; i < r->n; i++) {
		const ipcrec_frame *f = &r->f[i];
		const unsigned char *s;
		size_t len;
		bh_error e;
		if (f->dir == IPCREC_TO_WORKER && f->hdr.type == PROTO_JOB && !*job &&
		    proto_str_decode(f->payload, f->hdr.len, IPC_MAX_PAYLOAD, 0, &s, &len, &e) == 0) {
			*job = json_loadb((const char *)s, len, 0, NULL);
			*chart = f;
		} else if (f->dir == IPCREC_FROM_WORKER && f->hdr.type == PROTO_RESULT &&
			   proto_str_decode(f->payload, f->hdr.len, IPC_MAX_PAYLOAD, 0, &s, &len, &e) == 0) {
			json_t *res = json_loadb((const char *)s, len, 0, NULL);
			outcome(res, want, n);
			json_decref(res);
		}
	}
	return *job && (*chart)->file ? 0 : -1;
}

int main(int argc, char **argv)
{
	int k = 1, opt, sv[2], status, rc = 0;
	ipcrec r;
	bh_error e = {0};
	json_t *job;
	const ipcrec_frame *chart;
	char want[300];
	double first = 0, rest = 0;
	size_t requests = 0;
	pid_t pid;
	while ((opt = getopt(argc, argv, "n:v")) != -1) {
		if (opt == 'n')
			k = atoi(optarg);
		else if (opt == 'v')
			verbose = 1;
		else
			k = 0;
	}
	if (optind + 1 != argc || k < 1) {
		fprintf(stderr, "usage: worker_replay [-n K] [-v] RECORDING\n");
		return 2;
	}
	if (ipcrec_load(argv[optind], &r, &e) < 0) {
		fprintf(stderr, "worker_replay: %s\n", e.msg);
		return 1;
	}
	if (recorded(&r, &job, &chart, want, sizeof want) < 0) {
		fprintf(stderr, "worker_replay: %s holds no job with its chart\n", argv[optind]);
		return 1;
	}
	for (size_t i = 0; i < r.n; i++)
		requests += r.f[i].dir == IPCREC_FROM_WORKER && r.f[i].hdr.type == PROTO_KUBE_REQUEST;
	if (worker_prepare() < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		fprintf(stderr, "worker_replay: could not set up\n");
		return 1;
	}
	if ((pid = fork()) == 0) {
		close(sv[0]);
		serve(sv[1], &r, k);
	}
	close(sv[1]);
	for (int i = 0; i < k && rc == 0; i++) {
		kube_transport *t = worker_broker_transport_new(sv[0], &e);
		kube_client *kc = t ? kube_client_new(t, &e) : NULL;
		json_t *res = NULL;
		char got[300];
		double c0;
		if (!kc) {
			fprintf(stderr, "worker_replay: kube client: %s\n", e.msg);
			rc = 1;
			break;
		}
		kube_client_set_hooks(kc, no_sleep, NULL, NULL);
		c0 = cpu_ms();
		if (worker_job_run(kc, job, chart->file, chart->file_len, 0, log_line, NULL, &res, &e) < 0) {
			fprintf(stderr, "worker_replay: job %d failed: %s\n", i + 1, e.msg);
			rc = 1;
		}
		c0 = cpu_ms() - c0;
		if (i == 0)
			first = c0;
		else
			rest += c0;
		outcome(res, got, sizeof got);
		if (rc == 0 && strcmp(got, want) != 0) {
			fprintf(stderr, "worker_replay: job %d ended %s, the recorded one %s\n", i + 1, got, want);
			rc = 1;
		}
		json_decref(res);
		kube_client_free(kc);
	}
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0)
		;
	if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = 1;
	printf("replayed %d job(s), %zu requests each, outcome %s; CPU per job: first %.2f ms", k, requests, want, first);
	if (k > 1)
		printf(", later %.2f ms", rest / (k - 1));
	printf("%s\n", rc ? " (FAILED)" : "");
	json_decref(job);
	ipcrec_free(&r);
	return rc;
}
