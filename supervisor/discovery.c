/* supervisor/discovery.c — see discovery.h. */
#include "supervisor/discovery.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "kube/curl.h"
#include "kube/kube.h"
#include "supervisor/log.h"

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const kube_config *cfg;
	void (*wake)(void);
	double max_age;
	int stale;     /* a refresh was asked for */
	json_t *fresh; /* fetched, not taken yet */
} D = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 600, 0, NULL};

static void *discovery_main(void *arg)
{
	bh_error e;
	kube_client *kc = kube_curl_client_new(D.cfg, &e);
	(void)arg;
	if (!kc) {
		svlog(SVLOG_ERROR, "API discovery: %s (workers discover for themselves)", e.msg);
		return NULL;
	}
	for (;;) {
		json_t *snap = NULL;
		struct timespec until;
		double wait = D.max_age;
		kube_mapping_reset(kc);
		if (kube_discovery_snapshot(kc, &snap, &e) < 0) {
			svlog(SVLOG_ERROR, "%s (retrying; workers discover for themselves meanwhile)", e.msg);
			wait = 5;
		} else {
			pthread_mutex_lock(&D.mu);
			json_decref(D.fresh);
			D.fresh = snap;
			pthread_mutex_unlock(&D.mu);
			D.wake();
			svlog(SVLOG_DEBUG, "API discovery: %zu paths", json_object_size(snap));
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)wait;
		pthread_mutex_lock(&D.mu);
		while (!D.stale && pthread_cond_timedwait(&D.cv, &D.mu, &until) == 0)
			;
		D.stale = 0;
		pthread_mutex_unlock(&D.mu);
		sleep(1); /* a burst of requests makes one refresh */
	}
	return NULL;
}

int discovery_start(const kube_config *cfg, void (*wake)(void), double max_age, bh_error *err)
{
	pthread_t th;
	D.cfg = cfg;
	D.wake = wake;
	D.max_age = max_age > 0 ? max_age : 600;
	if (pthread_create(&th, NULL, discovery_main, NULL) != 0)
		return bh_error_set(err, BH_EIO, "cannot start the API discovery thread");
	pthread_detach(th);
	return 0;
}

json_t *discovery_take(void)
{
	json_t *s;
	pthread_mutex_lock(&D.mu);
	s = D.fresh;
	D.fresh = NULL;
	pthread_mutex_unlock(&D.mu);
	return s;
}

void discovery_refresh(void)
{
	pthread_mutex_lock(&D.mu);
	D.stale = 1;
	pthread_cond_signal(&D.cv);
	pthread_mutex_unlock(&D.mu);
}
