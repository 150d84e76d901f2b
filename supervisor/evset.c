/* supervisor/evset.c — see evset.h. */
#include "supervisor/evset.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

/* the events poll and epoll share, bit for bit on Linux */
#define EV_MASK (POLLIN | POLLPRI | POLLOUT | POLLRDNORM | POLLRDBAND | POLLWRNORM | POLLWRBAND)
#define REG 0x80000000u /* reg: registered (with the events in the other bits) */

typedef struct {
	uint32_t reg;  /* REG | the events registered, or 0 */
	uint32_t want; /* this call's events (the union over its entries) */
	uint32_t rev;  /* what epoll_wait reported this call */
	unsigned turn; /* the call that last had it */
} fdst;

struct evset {
	int ep;
	fdst *f; /* indexed by fd */
	size_t nf;
	int *cur, *prev; /* the fds of this call and of the last one */
	size_t ncur, nprev, cap;
	struct epoll_event *evs;
	unsigned turn;
};

evset *evset_new(bh_error *err)
{
	evset *s = calloc(1, sizeof *s);
	if (!s) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	if ((s->ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		int e = errno;
		free(s);
		bh_error_set(err, BH_EIO, "epoll_create1: %s", strerror(e));
		return NULL;
	}
	return s;
}

void evset_free(evset *s)
{
	if (!s)
		return;
	close(s->ep);
	free(s->f);
	free(s->cur);
	free(s->prev);
	free(s->evs);
	free(s);
}

void evset_forget(evset *s, int fd)
{
	if (!s || fd < 0 || (size_t)fd >= s->nf || !s->f[fd].reg)
		return;
	epoll_ctl(s->ep, EPOLL_CTL_DEL, fd, NULL); /* ENOENT, EBADF: nothing was left */
	s->f[fd].reg = 0;
}

/* Room for fd in f and for n fds in the lists; 0 or -1. */
static int grow(evset *s, int fd, size_t n)
{
	if ((size_t)fd >= s->nf) {
		size_t nf = s->nf ? s->nf : 64;
		while (nf <= (size_t)fd)
			nf *= 2;
		fdst *f = realloc(s->f, nf * sizeof *f);
		if (!f)
			return -1;
		memset(f + s->nf, 0, (nf - s->nf) * sizeof *f);
		s->f = f;
		s->nf = nf;
	}
	if (n > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		while (cap < n)
			cap *= 2;
		int *c = realloc(s->cur, cap * sizeof *c), *p = c ? realloc(s->prev, cap * sizeof *p) : NULL;
		struct epoll_event *e = p ? realloc(s->evs, cap * sizeof *e) : NULL;
		if (c)
			s->cur = c;
		if (p)
			s->prev = p;
		if (!e)
			return -1;
		s->evs = e;
		s->cap = cap;
	}
	return 0;
}

/* Registers fd for want (its registration, if any, as it is); 0 or -1. */
static int enroll(evset *s, int fd, uint32_t want)
{
	fdst *st = &s->f[fd];
	struct epoll_event ev;
	if (st->reg == (REG | want))
		return 0;
	memset(&ev, 0, sizeof ev);
	ev.events = want;
	ev.data.fd = fd;
	if (st->reg) {
		if (epoll_ctl(s->ep, EPOLL_CTL_MOD, fd, &ev) < 0 &&
		    (errno != ENOENT || epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0))
			return -1;
	} else if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0 &&
		   (errno != EEXIST || epoll_ctl(s->ep, EPOLL_CTL_MOD, fd, &ev) < 0)) {
		return -1;
	}
	st->reg = REG | want;
	return 0;
}

int evset_poll(evset *s, struct pollfd *pf, size_t n, int timeout_ms)
{
	int k, ready = 0, refused = 0;
	if (++s->turn == 0) /* 0 is "no call" in a fresh fdst */
		s->turn = 1;
	s->ncur = 0;
	for (size_t i = 0; i < n; i++) {
		int fd = pf[i].fd;
		pf[i].revents = 0;
		if (fd < 0)
			continue;
		if (grow(s, fd, s->ncur + 1) < 0)
			return poll(pf, n, timeout_ms);
		fdst *st = &s->f[fd];
		if (st->turn != s->turn) {
			st->turn = s->turn;
			st->want = 0;
			st->rev = 0;
			s->cur[s->ncur++] = fd;
		}
		st->want |= (uint32_t)pf[i].events & EV_MASK;
	}
	for (size_t i = 0; i < s->nprev; i++) /* no longer waited on */
		if (s->f[s->prev[i]].turn != s->turn)
			evset_forget(s, s->prev[i]);
	for (size_t i = 0; i < s->ncur; i++)
		if (enroll(s, s->cur[i], s->f[s->cur[i]].want) < 0)
			refused = 1;
	int *t = s->prev;
	s->prev = s->cur;
	s->cur = t;
	s->nprev = s->ncur;
	if (refused) /* what epoll takes is registered all the same: next time */
		return poll(pf, n, timeout_ms);
	k = epoll_wait(s->ep, s->evs, s->nprev ? (int)s->nprev : 1, timeout_ms);
	if (k < 0)
		return -1;
	for (int i = 0; i < k; i++) {
		int fd = s->evs[i].data.fd;
		if (fd >= 0 && (size_t)fd < s->nf && s->f[fd].turn == s->turn)
			s->f[fd].rev |= s->evs[i].events;
	}
	for (size_t i = 0; k > 0 && i < n; i++) {
		if (pf[i].fd < 0)
			continue;
		pf[i].revents = (short)(s->f[pf[i].fd].rev & ((uint32_t)pf[i].events | POLLERR | POLLHUP));
		if (pf[i].revents)
			ready++;
	}
	return ready;
}
