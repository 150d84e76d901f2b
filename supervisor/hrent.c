/* supervisor/hrent.c — the cache's compact HelmRelease (hrent.h). */
#include <stdlib.h>
#include <string.h>

#include "proto/jload.h"
#include "supervisor/hrent.h"
#include "supervisor/jtext.h"
#include "supervisor/source.h"

static const char *jstr2(const json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

json_int_t flux_generation(const json_t *o)
{
	return json_integer_value(json_object_get(json_object_get(o, "metadata"), "generation"));
}

const char *flux_requested_at(const json_t *o)
{
	return json_string_value(json_object_get(json_object_get(json_object_get(o, "metadata"), "annotations"),
						 "reconcile.fluxcd.io/requestedAt"));
}

int hr_has_finalizer(const json_t *hr)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(json_object_get(hr, "metadata"), "finalizers"), i, f)
		if (json_is_string(f) && !strcmp(json_string_value(f), HR_FINALIZER))
			return 1;
	return 0;
}

int hr_being_deleted(const json_t *hr)
{
	return jstr2(hr, "metadata", "deletionTimestamp") != NULL;
}

int hr_wants_reconcile_request(const json_t *hr)
{
	const char *req = flux_requested_at(hr);
	const char *handled = jstr2(hr, "status", "lastHandledReconcileAt");
	return req && (!handled || strcmp(req, handled) != 0);
}

int hr_wants_reconcile(const json_t *hr)
{
	const json_t *st = json_object_get(hr, "status");
	json_int_t gen = json_integer_value(json_object_get(json_object_get(hr, "metadata"), "generation"));
	if (json_is_true(json_object_get(json_object_get(hr, "spec"), "suspend")))
		return 0;
	if (!json_object_get(st, "lastAttemptedGeneration"))
		return !json_object_get(st, "observedGeneration") ||
		       json_integer_value(json_object_get(st, "observedGeneration")) != gen;
	if (json_integer_value(json_object_get(st, "lastAttemptedGeneration")) != gen)
		return 1;
	return hr_wants_reconcile_request(hr);
}

/* the bulk of a status and of a spec (its values and post-renderers can be
 * most of an object): hr_wants_reconcile* and source_of read none */
const char *const hrent_unread[] = {"status.history", "status.conditions", "spec.values", "spec.postRenderers", NULL};

/* Appends s (NUL included) at *p; returns where it went. */
static const char *put(char **p, const char *s, size_t n)
{
	char *at = *p;
	memcpy(at, s, n);
	at[n] = '\0';
	*p += n + 1;
	return at;
}

hr_ent *hrent_new(const json_t *hr, const char *text, size_t len)
{
	char kind[254], sns[254], sname[520];
	const char *ns = jstr2(hr, "metadata", "namespace"), *name = jstr2(hr, "metadata", "name");
	const char *uid = jstr2(hr, "metadata", "uid"), *req = flux_requested_at(hr);
	int has_src = source_of(hr, kind, sizeof kind, sns, sizeof sns, sname, sizeof sname) == 0;
	size_t nl, nn, ul, rl, kl, snl, sml, tl;
	char *p;
	hr_ent *h;
	ns = ns ? ns : "";
	name = name ? name : "";
	uid = uid ? uid : "";
	if (!has_src)
		kind[0] = sns[0] = sname[0] = '\0';
	nl = strlen(ns), nn = strlen(name), ul = strlen(uid), rl = req ? strlen(req) : 0;
	kl = strlen(kind), snl = strlen(sns), sml = strlen(sname);
	h = NULL;
	char *dumped = NULL;
	if (!text && !(text = dumped = jtext_new(hr)))
		return NULL;
	tl = text == dumped ? strlen(text) : len;
	size_t size = sizeof *h + nl + nn + ul + rl + kl + snl + sml + tl + 8;
	if ((h = malloc(size))) {
		memset(h, 0, sizeof *h);
		p = (char *)(h + 1);
		h->size = size;
		h->gen = json_integer_value(json_object_get(json_object_get(hr, "metadata"), "generation"));
		h->finalizer = hr_has_finalizer(hr) != 0;
		h->deleted = hr_being_deleted(hr) != 0;
		h->suspend = json_is_true(json_object_get(json_object_get(hr, "spec"), "suspend"));
		h->wants = hr_wants_reconcile(hr) != 0;
		h->wants_req = hr_wants_reconcile_request(hr) != 0;
		h->has_src = has_src != 0;
		h->fin_list = json_is_array(json_object_get(json_object_get(hr, "metadata"), "finalizers"));
		h->ns = put(&p, ns, nl);
		h->name = put(&p, name, nn);
		h->uid = put(&p, uid, ul);
		h->req = req ? put(&p, req, rl) : NULL;
		h->src_kind = put(&p, kind, kl);
		h->src_ns = put(&p, sns, snl);
		h->src_name = put(&p, sname, sml);
		h->len = tl;
		h->text = (char *)put(&p, text, tl);
	}
	free(dumped);
	return h;
}

hr_ent *hrent_dup(const hr_ent *h)
{
	hr_ent *c = malloc(h->size);
	if (!c)
		return NULL;
	memcpy(c, h, h->size);
#define MOVE(f) (c->f = h->f ? (const char *)c + (h->f - (const char *)h) : NULL)
	MOVE(ns);
	MOVE(name);
	MOVE(uid);
	MOVE(req);
	MOVE(src_kind);
	MOVE(src_ns);
	MOVE(src_name);
	c->text = (char *)c + (h->text - (const char *)h);
#undef MOVE
	return c;
}

json_t *hrent_tree_new(const hr_ent *h)
{
	return jload_new(h->text, h->len, 0, NULL);
}
