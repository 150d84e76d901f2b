/* supervisor/requeue.c — see requeue.h. */
#include "supervisor/requeue.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "api/helmrelease.h"

static long jitter_pct = REQUEUE_JITTER_DEFAULT;

int requeue_set_jitter(long percent)
{
	if (percent < 0 || percent >= 100)
		return -1;
	jitter_pct = percent;
	return 0;
}

double requeue_jitter(double secs)
{
	static unsigned seed;
	double r;
	if (!seed)
		seed = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
	r = (double)rand_r(&seed) / RAND_MAX; /* [0, 1] */
	return secs * (1.0 + (double)jitter_pct / 100.0 * (2.0 * r - 1.0));
}

double requeue_retry_secs(const json_t *hr, const json_t *wstatus)
{
	hr_model *m;
	bh_error err;
	double secs = 0;
	if (hr_decode(hr, &m, &err) < 0)
		return 0;
	secs = (double)hr_retry_interval_ns(m, json_string_value(json_object_get(wstatus, "lastAttemptedReleaseAction"))) / 1e9;
	hr_model_free(m);
	return secs > 0 ? requeue_jitter(secs) : 0;
}
