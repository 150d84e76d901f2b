/* supervisor/loopwatch.h — the supervisor's own watches (the HelmReleases,
 * the external sources) on the main loop: each stream is a transfer the
 * loop polls with its other sockets (kube/watch_multi.h), or a stream of
 * the forwarding's HTTP/2 connection when that serves the watch's cluster
 * (forward.h's fwd_h2: the events come with its other bytes), so an event is
 * decoded and handed to its callback on the loop's thread, with no thread
 * and no wake-up in between. A list (at the start, after 410 Gone, after
 * an error: a second later, logged) blocks, so one thread makes the lists
 * of every watch, the one due first first (a list that fails, logged, is
 * due again a second later: it never holds up another watch's); the list,
 * too, goes to the callback on the loop's thread (as RELIST), before the
 * stream resumes from its resourceVersion. */
#ifndef BH_SUPERVISOR_LOOPWATCH_H
#define BH_SUPERVISOR_LOOPWATCH_H

#include <poll.h>
#include <stddef.h>

#include "kube/config.h"
#include "kube/kube.h"
#include "lib/error.h"

/* Adds a watch of r in ns (NULL: all) with opts (copied; its strings, r
 * and ud stay the caller's) through a client of its own for cfg; fn(ud,
 * ...) as kube_watch's, on the loop's thread; what names it in the log
 * ("HelmReleases"). The events are read by proto/jload.h's jload_new
 * unless opts->tree_load says otherwise. Before the loop starts, from its thread. ud NULL: fn
 * gets the watch's client (kube_watch_object_text). */
int loopwatch_add(const kube_config *cfg, const kube_resource *r, const char *ns, const kube_watch_opts *opts,
		  kube_watch_fn fn, void *ud, const char *what, bh_error *err);
/* Before the loop's poll: the sockets of every watch (*n; valid until
 * loopwatch_run) and the longest the loop may wait (*timeout_ms, -1: no
 * limit). Lists that came in go to their callbacks first. */
const struct pollfd *loopwatch_fds(size_t *n, int *timeout_ms);
/* After the poll: pfd[0..n) the entries of loopwatch_fds with revents. */
void loopwatch_run(const struct pollfd *pfd, size_t n);

#endif
