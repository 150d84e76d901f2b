/* supervisor/artcache.c — see artcache.h. */
#include "supervisor/artcache.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct art {
	char digest[80];
	int fd;
	size_t size;
	unsigned long used;
} art;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static art *arts;
static size_t narts, total, limit = (size_t)512 << 20;
static unsigned long clock_;

void artcache_set_limit(size_t bytes)
{
	limit = bytes;
}

static art *find(const char *digest)
{
	for (size_t i = 0; i < narts; i++)
		if (strcmp(arts[i].digest, digest) == 0)
			return &arts[i];
	return NULL;
}

/* Evicts least recently used artifacts (never keep) until under the cap. */
static void gc(const art *keep)
{
	while (total > limit && narts > 1) {
		size_t lru = SIZE_MAX;
		for (size_t i = 0; i < narts; i++)
			if (&arts[i] != keep && (lru == SIZE_MAX || arts[i].used < arts[lru].used))
				lru = i;
		if (lru == SIZE_MAX)
			break;
		close(arts[lru].fd);
		total -= arts[lru].size;
		if (keep == &arts[narts - 1])
			keep = &arts[lru];
		arts[lru] = arts[--narts];
	}
}

void artcache_put(const char *digest, int fd, size_t size)
{
	art *a, *na;
	pthread_mutex_lock(&mu);
	if ((a = find(digest))) {
		close(fd);
		a->used = ++clock_;
	} else if ((na = realloc(arts, (narts + 1) * sizeof *arts))) {
		arts = na;
		a = &arts[narts++];
		snprintf(a->digest, sizeof a->digest, "%s", digest);
		a->fd = fd;
		a->size = size;
		a->used = ++clock_;
		total += size;
		gc(a);
	} else {
		close(fd);
	}
	pthread_mutex_unlock(&mu);
}

int artcache_open(const char *digest)
{
	int fd = -1;
	art *a;
	pthread_mutex_lock(&mu);
	if ((a = find(digest))) {
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", a->fd);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		a->used = ++clock_;
	}
	pthread_mutex_unlock(&mu);
	return fd;
}

int artcache_has(const char *digest)
{
	int r;
	pthread_mutex_lock(&mu);
	r = find(digest) != NULL;
	pthread_mutex_unlock(&mu);
	return r;
}

size_t artcache_bytes(void)
{
	size_t t;
	pthread_mutex_lock(&mu);
	t = total;
	pthread_mutex_unlock(&mu);
	return t;
}
