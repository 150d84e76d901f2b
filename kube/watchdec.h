/* kube/watchdec.h — decoder of a Kubernetes watch stream: newline-delimited
 * JSON events {"type": "...", "object": {...}} arriving in arbitrary chunks.
 * A pure function of its input bytes with a line-size limit (jansson bounds
 * the nesting depth); used by kube_watch() and fuzzed by
 * tests/fuzz/fuzz_watch.c.
 */
#ifndef BH_KUBE_WATCHDEC_H
#define BH_KUBE_WATCHDEC_H

#include <jansson.h>
#include <stddef.h>

#include "kube/kube.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/json_skim.h"

#define KUBE_WATCH_MAX_LINE (64u << 20)

/* Called for each decoded event; obj is borrowed. Return non-zero to stop. */
typedef int (*kube_watchdec_fn)(void *ud, kube_watch_type type, json_t *obj);

typedef struct kube_watchdec {
	bh_buf line;       /* bytes of the incomplete last line */
	bh_buf cut;        /* a line less its object's managedFields */
	bh_buf slim;       /* the same less the members at drop */
	const char *const *drop; /* kube_watch_opts.tree_drop */
	kube_json_load_fn load; /* kube_watch_opts.tree_load */
	/* object.metadata.managedFields, then drop's paths under "object",
	 * split at the first line (of paths_of: again when drop changes) */
	json_skim_paths paths;
	const char *const *paths_of;
	int paths_ready;
	const char *obj_text; /* during fn: the object's text (in the line), or NULL */
	size_t obj_len;
	size_t max_line;   /* 0 = KUBE_WATCH_MAX_LINE */
	kube_watchdec_fn fn;
	void *ud;
	int stopped;       /* fn asked to stop */
	long events;       /* events delivered */
} kube_watchdec;

void kube_watchdec_init(kube_watchdec *d, kube_watchdec_fn fn, void *ud);
void kube_watchdec_free(kube_watchdec *d);
/* Feeds bytes. Returns 0, or BH_EPARSE/BH_ELIMIT/BH_ENOMEM for a malformed
 * event, an over-long line, or OOM (the decoder is then unusable). Blank
 * lines are ignored. After fn returned non-zero, further input is ignored. */
int kube_watchdec_feed(kube_watchdec *d, const char *data, size_t len, bh_error *err);
/* End of stream: decodes a final line without newline, if any. */
int kube_watchdec_finish(kube_watchdec *d, bh_error *err);
/* Decodes one event line (no newline); *obj gets a new reference. */
int kube_watch_event_parse(const char *line, size_t len, kube_watch_type *type,
                           json_t **obj, bh_error *err);

#endif
