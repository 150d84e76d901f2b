/* kube/watch_priv.h — what kube_watch (kube/watch.c) and the watch driven
 * by a caller's poll loop (kube/watch_multi.c) share: one watch's state,
 * the stream's event and byte handlers, its relist and its request path.
 * Not a public API. */
#ifndef BH_KUBE_WATCH_PRIV_H
#define BH_KUBE_WATCH_PRIV_H

#include "kube/kube.h"
#include "kube/watchdec.h"

struct kube_wstate {
	kube_client *c;
	const kube_watch_opts *o;
	kube_watch_fn fn;
	void *ud;
	kube_watchdec dec;
	int user_stop;
	int gone;          /* ERROR event 410 */
	int dec_failed;
	bh_error *err;
	char status_msg[512];
	long events;
};

/* The decoder's callback (dec.ud = the state): an ERROR event's status is
 * kept (gone for 410) and stops the stream; any other event moves
 * c->watch_rv and goes to fn (a BOOKMARK only with deliver_bookmarks),
 * with its object's text (kube_watch_object_text). */
int kube_watch_on_event(void *ud, kube_watch_type type, json_t *obj);
/* A stream's bytes to the decoder (ud = the state); non-zero: stop. */
int kube_watch_on_bytes(void *ud, const char *data, size_t len);
/* Lists r (w->o's selectors), sets c->watch_rv to the list's and hands the
 * list to w->fn as RELIST (w->user_stop when it asks to stop). */
int kube_watch_relist(kube_client *c, const kube_resource *r, const char *ns, struct kube_wstate *w, bh_error *err);
/* The path of a watch request from c->watch_rv on (malloc'd; NULL: out of
 * memory). */
char *kube_watch_query_new(const kube_client *c, const kube_resource *r, const char *ns, const kube_watch_opts *o,
			   long tmo);
/* One watch request ended (rc as the transport's stream op returned it,
 * then the decoder's end, kube_watchdec_finish, when that was 0 and 2xx;
 * resp its answer; began and events_before: its start and w->events then):
 * 0 to go on from c->watch_rv after *delay_ms (0: at once; *failures, the
 * consecutive failures, counted as kube_watch's backoff wants); BH_EGONE
 * when a list must come first (410 Gone; c->watch_rv cleared); any other
 * code with err set when the watch must stop (kube_watch returns it). */
int kube_watch_judge(struct kube_wstate *w, const kube_resource *r, int rc, const kube_response *resp,
		     const char *path, long began, long events_before, int *failures, long *delay_ms, bh_error *err);

#endif
