/* supervisor/evset.h — the main loop's wait: poll(2)'s interface over an
 * epoll instance whose registrations are kept from turn to turn. Each turn
 * the loop hands the pollfd array it wants waited on (rebuilt as before);
 * evset_poll registers only what changed since the last call (epoll_ctl
 * ADD, MOD, DEL), waits in epoll_wait, and sets revents as poll would. A
 * poll(2) over the whole set registered on, and took a wait-queue entry off,
 * every socket at every wait; epoll_wait touches only what is ready.
 *
 * An fd is registered with its open file: one closed and its number reused
 * would keep the old registration's silence. So the owner of an fd in the
 * set calls evset_forget before it closes it (or stops waiting on it), on
 * the loop's thread. Not thread-safe: the loop's only. */
#ifndef BH_SUPERVISOR_EVSET_H
#define BH_SUPERVISOR_EVSET_H

#include <poll.h>
#include <stddef.h>

#include "lib/error.h"

typedef struct evset evset;

evset *evset_new(bh_error *err);
/* Frees s (its epoll fd closed). NULL is fine. */
void evset_free(evset *s);
/* Waits on pf[0..n) as poll(pf, n, timeout_ms) would (a negative fd is
 * skipped, its revents 0; one fd in several entries is waited on for all
 * their events): the number of entries with revents set, 0 when the wait
 * ended with none, -1 with errno (EINTR: a signal). An fd epoll refuses is
 * waited on by poll(2) for that call. */
int evset_poll(evset *s, struct pollfd *pf, size_t n, int timeout_ms);
/* fd is about to be closed, or stops being the file it was: its
 * registration is dropped now (the next evset_poll that has it registers it
 * afresh). An fd s does not know is ignored. */
void evset_forget(evset *s, int fd);

#endif
