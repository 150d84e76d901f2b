/* supervisor/leader.c — see leader.h. */
#include "supervisor/leader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/curl.h"
#include "kube/kube.h"
#include "supervisor/log.h"
#include "supervisor/metrics.h"

static const kube_resource lease_resource = {"coordination.k8s.io", "v1", "leases", "Lease", 1};

static struct {
	leader_opts o;
	kube_client *kc;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, started;
	char observed[512]; /* holder|renewTime|rv of the record last seen */
	double observed_at;
} L = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static atomic_int is_leader, lost;

int leader_is_leader(void)
{
	return atomic_load(&is_leader);
}

int leader_lost(void)
{
	return atomic_load(&lost);
}

const char *leader_runtime_namespace(void)
{
	static char ns[254];
	const char *env = getenv("RUNTIME_NAMESPACE");
	FILE *f;
	if (ns[0])
		return ns;
	if (env && *env) {
		snprintf(ns, sizeof ns, "%s", env);
		return ns;
	}
	if ((f = fopen("/var/run/secrets/kubernetes.io/serviceaccount/namespace", "re"))) {
		if (fgets(ns, sizeof ns, f))
			ns[strcspn(ns, "\r\n")] = '\0';
		fclose(f);
	}
	if (!ns[0])
		snprintf(ns, sizeof ns, "default");
	return ns;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* metav1.MicroTime: RFC 3339 with microseconds, UTC. */
static void micro_time(char out[40])
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(out, 40, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", (tm.tm_year + 1900) % 10000, (tm.tm_mon + 1) % 100,
		 tm.tm_mday % 100, tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100, (ts.tv_nsec / 1000) % 1000000);
}

int leader_may_take(const json_t *spec, const char *me, double observed_at, double now, double lease_duration)
{
	const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
	json_int_t secs = json_integer_value(json_object_get(spec, "leaseDurationSeconds"));
	double d = secs > 0 ? (double)secs : lease_duration;
	if (!spec || !holder || !*holder || !strcmp(holder, me))
		return 1;
	return observed_at + d <= now;
}

json_t *leader_spec_new(const json_t *old, const char *me, const char *now_text, double lease_duration)
{
	const char *holder = json_string_value(json_object_get(old, "holderIdentity"));
	json_t *s = json_is_object(old) ? json_deep_copy(old) : json_object();
	json_int_t transitions = json_integer_value(json_object_get(old, "leaseTransitions"));
	if (!s)
		return NULL;
	if (!holder || strcmp(holder, me) != 0) {
		json_object_set_new(s, "acquireTime", json_string(now_text));
		if (holder && *holder)
			transitions++;
		json_object_set_new(s, "leaseTransitions", json_integer(transitions));
	}
	json_object_set_new(s, "holderIdentity", json_string(me));
	json_object_set_new(s, "leaseDurationSeconds", json_integer((json_int_t)(lease_duration + 0.5)));
	json_object_set_new(s, "renewTime", json_string(now_text));
	return s;
}

/* One attempt: 0 when we hold the Lease now, else <0 (err says why, or
 * BH_ECONFLICT with no message needed when another holder is valid). */
static int try_acquire_or_renew(bh_error *err)
{
	json_t *cur = NULL, *spec, *obj, *out = NULL;
	char now[40], seen[512];
	const json_t *md;
	int rc;
	double t = mono();
	micro_time(now);
	rc = kube_get(L.kc, &lease_resource, L.o.ns, L.o.name, NULL, &cur, err);
	if (rc == BH_ENOTFOUND) {
		spec = leader_spec_new(NULL, L.o.identity, now, L.o.lease_duration);
		obj = json_pack("{s:s,s:s,s:{s:s,s:s},s:o}", "apiVersion", "coordination.k8s.io/v1", "kind", "Lease",
				"metadata", "name", L.o.name, "namespace", L.o.ns, "spec", spec);
		rc = obj ? kube_create(L.kc, &lease_resource, L.o.ns, obj, NULL, &out, err)
			 : bh_error_set(err, BH_ENOMEM, "out of memory");
		json_decref(obj);
		json_decref(out);
		return rc;
	}
	if (rc < 0)
		return rc;
	md = json_object_get(cur, "metadata");
	spec = json_object_get(cur, "spec");
	snprintf(seen, sizeof seen, "%s|%s|%s", json_string_value(json_object_get(spec, "holderIdentity")) ?: "",
		 json_string_value(json_object_get(spec, "renewTime")) ?: "",
		 json_string_value(json_object_get(md, "resourceVersion")) ?: "");
	if (strcmp(seen, L.observed) != 0) {
		snprintf(L.observed, sizeof L.observed, "%s", seen);
		L.observed_at = t;
	}
	if (!leader_may_take(spec, L.o.identity, L.observed_at, t, L.o.lease_duration)) {
		json_decref(cur);
		return bh_error_set(err, BH_ECONFLICT, "the Lease %s/%s is held by %s", L.o.ns, L.o.name,
				    json_string_value(json_object_get(spec, "holderIdentity")));
	}
	json_object_set_new(cur, "spec", leader_spec_new(spec, L.o.identity, now, L.o.lease_duration));
	rc = kube_update(L.kc, &lease_resource, L.o.ns, cur, NULL, &out, err);
	json_decref(cur);
	json_decref(out);
	return rc;
}

static void release(void)
{
	json_t *cur = NULL, *spec, *out = NULL;
	char now[40];
	bh_error err;
	if (kube_get(L.kc, &lease_resource, L.o.ns, L.o.name, NULL, &cur, &err) < 0)
		return;
	spec = json_object_get(cur, "spec");
	if (!strcmp(json_string_value(json_object_get(spec, "holderIdentity")) ?: "", L.o.identity)) {
		micro_time(now);
		/* as client-go's release: no holder, a 1s lease */
		json_object_set_new(spec, "holderIdentity", json_string(""));
		json_object_set_new(spec, "leaseDurationSeconds", json_integer(1));
		json_object_set_new(spec, "renewTime", json_string(now));
		json_object_set_new(spec, "acquireTime", json_string(now));
		if (kube_update(L.kc, &lease_resource, L.o.ns, cur, NULL, &out, &err) < 0)
			svlog(SVLOG_ERROR, "releasing the Lease %s/%s: %s", L.o.ns, L.o.name, err.msg);
		else
			svlog(SVLOG_INFO, "released the Lease %s/%s", L.o.ns, L.o.name);
	}
	json_decref(cur);
	json_decref(out);
}

static void set_leader(int v)
{
	char l[300];
	atomic_store(&is_leader, v);
	metrics_labels(l, sizeof l, "name", L.o.name, (const char *)NULL);
	metrics_set(M_LEADER, l, v);
}

/* Sleeps up to secs unless stopped; returns 1 when stopped. */
static int pause_for(double secs)
{
	struct timespec ts;
	int stop;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)secs;
	ts.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&L.mu);
	while (!L.stop && pthread_cond_timedwait(&L.cv, &L.mu, &ts) == 0)
		;
	stop = L.stop;
	pthread_mutex_unlock(&L.mu);
	return stop;
}

static void *leader_main(void *arg)
{
	double last_renew = 0;
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)(size_t)&arg;
	(void)arg;
	svlog(SVLOG_INFO, "attempting to acquire leader lease %s/%s as %s", L.o.ns, L.o.name, L.o.identity);
	for (;;) {
		bh_error err;
		int rc = try_acquire_or_renew(&err);
		double now = mono();
		if (leader_is_leader()) {
			if (rc == 0) {
				last_renew = now;
			} else if (now - last_renew >= L.o.renew_deadline) {
				svlog(SVLOG_ERROR, "leader election lost: could not renew the Lease %s/%s for %.0fs: %s",
				      L.o.ns, L.o.name, now - last_renew, err.msg);
				set_leader(0);
				atomic_store(&lost, 1);
				return NULL;
			}
			if (pause_for(L.o.retry_period))
				break;
			continue;
		}
		if (rc == 0) {
			last_renew = now;
			set_leader(1);
			svlog(SVLOG_INFO, "successfully acquired lease %s/%s: this replica is the leader", L.o.ns, L.o.name);
			continue;
		}
		if (rc != BH_ECONFLICT)
			svlog(SVLOG_DEBUG, "leader election: %s", err.msg);
		/* client-go's jitter: retry period times [1, 1.2) */
		if (pause_for(L.o.retry_period * (1 + 0.2 * (double)(rand_r(&seed) % 1000) / 1000.0)))
			break;
	}
	if (leader_is_leader()) {
		release();
		set_leader(0);
	}
	return NULL;
}

int leader_start(const kube_config *cfg, const leader_opts *o, bh_error *err)
{
	kube_retry_policy rp = {1, 200, 1000, 20, 1000};
	if (o->lease_duration <= o->renew_deadline || o->renew_deadline <= o->retry_period || o->retry_period <= 0)
		return bh_error_set(err, BH_EINVAL, "leader election needs lease duration > renew deadline > retry period > 0 "
				    "(got %.0fs, %.0fs, %.0fs)", o->lease_duration, o->renew_deadline, o->retry_period);
	L.o = *o;
	if (!(L.kc = kube_curl_client_new(cfg, err)))
		return err->code;
	kube_client_set_retry(L.kc, &rp);
	kube_client_set_timeout(L.kc, (long)(o->retry_period * 1000) < 2000 ? 2000 : (long)(o->retry_period * 1000));
	set_leader(0);
	if (pthread_create(&L.th, NULL, leader_main, NULL) != 0)
		return bh_error_set(err, BH_EIO, "cannot start the leader election thread");
	L.started = 1;
	return 0;
}

void leader_stop(void)
{
	if (!L.started)
		return;
	pthread_mutex_lock(&L.mu);
	L.stop = 1;
	pthread_cond_signal(&L.cv);
	pthread_mutex_unlock(&L.mu);
	pthread_join(L.th, NULL);
	L.started = 0;
	kube_client_free(L.kc);
	L.kc = NULL;
}
