/* supervisor/artfetch.c — see artfetch.h. */
#include "supervisor/artfetch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/artcache.h"
#include "supervisor/artifact.h"

enum { QUEUED, RUNNING, FAILED };

typedef struct dl {
	char digest[80];
	char *url;
	int state, rc;
	char msg[1024];
	char **waiters; /* askers told PENDING, owed the outcome */
	size_t nwaiters;
	struct dl *next;
} dl;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static dl *dls;
static void (*on_done)(void);

static dl *dl_find(const char *digest)
{
	for (dl *d = dls; d; d = d->next)
		if (!strcmp(d->digest, digest))
			return d;
	return NULL;
}

static void dl_free(dl *d)
{
	dl **p = &dls;
	while (*p && *p != d)
		p = &(*p)->next;
	if (*p)
		*p = d->next;
	for (size_t i = 0; i < d->nwaiters; i++)
		free(d->waiters[i]);
	free(d->waiters);
	free(d->url);
	free(d);
}

/* Removes asker from d's waiters; 1 if it was one. */
static int waiter_take(dl *d, const char *asker)
{
	for (size_t i = 0; i < d->nwaiters; i++)
		if (!strcmp(d->waiters[i], asker)) {
			free(d->waiters[i]);
			d->waiters[i] = d->waiters[--d->nwaiters];
			return 1;
		}
	return 0;
}

static int waiter_add(dl *d, const char *asker, bh_error *err)
{
	char **nw, *s;
	for (size_t i = 0; i < d->nwaiters; i++)
		if (!strcmp(d->waiters[i], asker))
			return 0;
	if (!(s = strdup(asker)) || !(nw = realloc(d->waiters, (d->nwaiters + 1) * sizeof *nw))) {
		free(s);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	d->waiters = nw;
	d->waiters[d->nwaiters++] = s;
	return 0;
}

static int dl_queue(dl *d, const char *url, bh_error *err)
{
	char *u = strdup(url);
	if (!u)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	free(d->url);
	d->url = u;
	d->state = QUEUED;
	pthread_cond_signal(&cv);
	return 0;
}

int artfetch_get(const char *asker, const char *url, const char *digest, int *fd, bh_error *err)
{
	dl *d;
	int rc = ARTFETCH_PENDING;
	if ((*fd = artcache_open(digest)) >= 0)
		return ARTFETCH_READY;
	pthread_mutex_lock(&mu);
	if (!(d = dl_find(digest))) {
		if (!(d = calloc(1, sizeof *d)) || strlen(digest) >= sizeof d->digest) {
			free(d);
			pthread_mutex_unlock(&mu);
			return d ? bh_error_set(err, BH_EINVAL, "artifact digest %.100s... is too long", digest)
				 : bh_error_set(err, BH_ENOMEM, "out of memory");
		}
		snprintf(d->digest, sizeof d->digest, "%s", digest);
		d->next = dls;
		dls = d;
		d->state = FAILED; /* queued below */
	}
	if (d->state == FAILED && waiter_take(d, asker)) {
		rc = bh_error_set(err, d->rc, "%s", d->msg);
		if (!d->nwaiters)
			dl_free(d);
	} else if ((d->state == FAILED && (rc = dl_queue(d, url, err)) < 0) || (rc = waiter_add(d, asker, err)) < 0) {
		if (!d->nwaiters && d->state == FAILED)
			dl_free(d);
	} else {
		rc = ARTFETCH_PENDING;
	}
	pthread_mutex_unlock(&mu);
	return rc;
}

static void *fetch_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		dl *d;
		char digest[80], *url;
		bh_error e;
		int fd = -1, rc;
		struct stat st;
		for (d = dls; d && d->state != QUEUED; d = d->next)
			;
		if (!d) {
			pthread_cond_wait(&cv, &mu);
			continue;
		}
		d->state = RUNNING;
		snprintf(digest, sizeof digest, "%s", d->digest);
		url = strdup(d->url);
		pthread_mutex_unlock(&mu);
		rc = url ? artifact_fetch(url, digest, 60000, &fd, &e) : bh_error_set(&e, BH_ENOMEM, "out of memory");
		if (rc >= 0 && fstat(fd, &st) < 0)
			rc = bh_error_set(&e, BH_EIO, "failed to read artifact from %s", url);
		if (rc >= 0)
			artcache_put(digest, fd, (size_t)st.st_size); /* fd owned by the cache */
		else if (fd >= 0)
			close(fd);
		free(url);
		pthread_mutex_lock(&mu);
		if ((d = dl_find(digest)) && d->state == RUNNING) {
			if (rc >= 0 || !d->nwaiters) {
				dl_free(d);
			} else {
				d->state = FAILED;
				d->rc = rc;
				snprintf(d->msg, sizeof d->msg, "%.1000s", e.msg);
			}
		}
		pthread_mutex_unlock(&mu);
		if (on_done)
			on_done();
		pthread_mutex_lock(&mu);
	}
	return NULL;
}

int artfetch_start(int nthreads, void (*done)(void), bh_error *err)
{
	on_done = done;
	for (int i = 0; i < nthreads; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, fetch_main, NULL) != 0)
			return bh_error_set(err, BH_EIO, "starting the artifact fetch thread failed");
		pthread_detach(t);
	}
	return 0;
}
