/* supervisor/noop.c — see noop.h. */
#include "supervisor/noop.h"

#include <stdio.h>
#include <string.h>

#include "lib/hash.h"
#include "proto/jload.h"
#include "lib/json_skim.h"

/* ---- a skim of the API server's answers --------------------------------------
 * A Secret list or a Secret write's answer carries the release records (tens
 * of KiB of base64 each): decoding it whole into a jansson tree was more than
 * half of the supervisor's instructions (callgrind, bench_scale N=100). The
 * text is checked for JSON structure only (the contents of the strings
 * stepped over are not), and the one or few "metadata" objects read are
 * decoded by jansson. Anything unusual (a member twice, too deep, broken
 * structure) reads as "no such answer", which only costs a worker
 * (lib/json_skim.h). */
/* metadata.name and metadata.resourceVersion of the object at p ("" when
 * absent), and the object's end in *end. -1 when p is no such object, or
 * they are no strings that fit (a Secret's name has at most 253 bytes). */
typedef struct skim_md {
	char name[512], rv[512];
} skim_md;

static int skim_metadata(const char *p, const char *e, int depth, const char **end, skim_md *md)
{
	static const char *const obj_keys[] = {"metadata", NULL}, *const md_keys[] = {"name", "resourceVersion", NULL};
	json_skim_span v[2];
	const char *mend;
	md->name[0] = md->rv[0] = '\0';
	if (json_skim_object(p, e, depth, obj_keys, v, end) < 0) {
		*end = NULL;
		return -1;
	}
	if (!v[0].s || *v[0].s != '{')
		return 0;
	if (json_skim_object(v[0].s, v[0].e, depth + 1, md_keys, v, &mend) < 0 ||
	    (v[0].s && json_skim_string(v[0].s, v[0].e, md->name, sizeof md->name) < 0) ||
	    (v[1].s && json_skim_string(v[1].s, v[1].e, md->rv, sizeof md->rv) < 0))
		return -1;
	return 0;
}

static const json_t *at(const json_t *o, const char *a, const char *b)
{
	o = json_object_get(o, a);
	return b ? json_object_get(o, b) : o;
}

int noop_eligible(const json_t *hr)
{
	const json_t *spec = json_object_get(hr, "spec"), *ann = at(hr, "metadata", "annotations");
	const char *drift = json_string_value(at(json_object_get(spec, "driftDetection"), "mode", NULL));
	if (json_object_get(json_object_get(hr, "metadata"), "deletionTimestamp") ||
	    json_is_true(json_object_get(spec, "suspend")))
		return 0;
	if (json_array_size(json_object_get(spec, "valuesFrom")) || json_object_get(spec, "kubeConfig"))
		return 0; /* read from other objects: their changes are not seen here */
	if (drift && strcmp(drift, "disabled") != 0)
		return 0; /* the cluster's objects are compared by the worker */
	if (json_is_true(at(spec, "test", "enable")))
		return 0;
	if (json_object_get(ann, "reconcile.fluxcd.io/forceAt") || json_object_get(ann, "reconcile.fluxcd.io/resetAt") ||
	    json_object_get(ann, "bulkhead.dev/test-hook"))
		return 0; /* force, reset (as status.lastHandled*At tell) and test hooks are the worker's */
	return 1;
}

int noop_is_storage_list(const char *path, const char *storage_ns)
{
	char want[320];
	size_t n;
	if (!path || !storage_ns || snprintf(want, sizeof want, "/api/v1/namespaces/%s/secrets?", storage_ns) >= (int)sizeof want)
		return 0;
	n = strlen(want);
	return !strncmp(path, want, n) && strstr(path + n, "labelSelector=") != NULL;
}

static uint64_t item_hash(const char *name, const char *rv)
{
	return bh_fnv1a(bh_fnv1a(BH_FNV1A_INIT, name, strlen(name) + 1), rv, strlen(rv));
}

uint64_t noop_store_fp(const noop_store *st)
{
	uint64_t sum = 0, count = st->n;
	for (size_t i = 0; i < st->n; i++) /* order-independent: the sum of each Secret's hash */
		sum += item_hash(st->s[i].name, st->s[i].rv);
	return bh_fnv1a(sum, &count, sizeof count);
}

static int is_release_secret(const char *name, const char *release)
{
	static const char pre[] = "sh.helm.release.v1.";
	size_t rn = strlen(release);
	return !strncmp(name, pre, sizeof pre - 1) && !strncmp(name + sizeof pre - 1, release, rn) &&
	       name[sizeof pre - 1 + rn] == '.' && name[sizeof pre + rn] == 'v';
}

/* Sets name's resourceVersion (rv NULL: removes it); -1 when it does not fit. */
static int store_set(noop_store *st, const char *name, const char *rv)
{
	size_t i;
	for (i = 0; i < st->n && strcmp(st->s[i].name, name) != 0; i++)
		;
	if (!rv) {
		if (i < st->n)
			st->s[i] = st->s[--st->n];
		return 0;
	}
	if (strlen(name) >= sizeof st->s[0].name || strlen(rv) >= sizeof st->s[0].rv || (i == st->n && st->n == NOOP_STORE_MAX))
		return -1;
	if (i == st->n)
		st->n++;
	memcpy(st->s[i].name, name, strlen(name) + 1);
	memcpy(st->s[i].rv, rv, strlen(rv) + 1);
	return 0;
}

int noop_store_load(noop_store *st, const char *body, size_t len, const char *release)
{
	static const char *const keys[] = {"metadata", "items", NULL};
	const char *e = body + len, *end, *p;
	json_skim_span v[2];
	json_t *md;
	const char *cont;
	int more;
	st->ok = 0;
	st->n = 0;
	if (!body || json_skim_object(body, e, 0, keys, v, &end) < 0 || json_skim_ws(end, e) != e)
		return -1;
	md = v[0].s ? jload_new(v[0].s, (size_t)(v[0].e - v[0].s), 0, NULL) : NULL;
	cont = json_string_value(json_object_get(md, "continue"));
	more = cont && *cont;
	json_decref(md);
	if (more || !v[1].s || *v[1].s != '[')
		return -1; /* not a list, or one page of several */
	for (p = json_skim_ws(v[1].s + 1, e); *p != ']';) { /* the items, checked by json_skim_object */
		skim_md m;
		int bad = skim_metadata(p, e, 2, &end, &m) < 0 || !m.name[0] || !m.rv[0] ||
			  (is_release_secret(m.name, release) && store_set(st, m.name, m.rv) < 0);
		if (bad)
			return -1;
		p = json_skim_ws(end, e);
		if (*p == ',')
			p = json_skim_ws(p + 1, e);
	}
	st->ok = 1;
	return 0;
}

int noop_storage_fp(const char *body, size_t len, const char *release, uint64_t *fp)
{
	noop_store st;
	if (noop_store_load(&st, body, len, release) < 0)
		return -1;
	*fp = noop_store_fp(&st);
	return 0;
}

void noop_store_write(noop_store *st, const char *method, const char *path, const char *storage_ns,
		      const char *release, long status, const char *body, size_t len)
{
	char coll[320];
	const char *rest, *q;
	char name[320];
	skim_md m;
	const char *end;
	size_t n;
	if (!st->ok || !method || !path || !strcmp(method, "GET") || !strcmp(method, "HEAD") ||
	    snprintf(coll, sizeof coll, "/api/v1/namespaces/%s/secrets", storage_ns) >= (int)sizeof coll ||
	    strncmp(path, coll, (n = strlen(coll))) != 0)
		return;
	rest = path + n;
	if (*rest == '/') { /* one Secret, named in the path */
		q = strchr(++rest, '?');
		n = q ? (size_t)(q - rest) : strlen(rest);
		if (n == 0 || n >= sizeof name || memchr(rest, '/', n)) {
			st->ok = 0; /* a subresource or a name we cannot read: not followed */
			return;
		}
		memcpy(name, rest, n);
		name[n] = '\0';
		if (!is_release_secret(name, release))
			return;
	} else if (*rest == '\0' || *rest == '?') {
		if (strcmp(method, "POST") != 0) { /* a delete of the collection */
			st->ok = 0;
			return;
		}
		name[0] = '\0'; /* a create: named by its answer */
	} else {
		return; /* another resource ("secretsfoo") */
	}
	if (status == 0) { /* no answer: the write may or may not have happened */
		st->ok = 0;
		return;
	}
	if (status < 200 || status > 299)
		return; /* refused: nothing changed */
	if (!strcmp(method, "DELETE")) {
		store_set(st, name, NULL);
		return;
	}
	/* no answer, or more after the object: not followed */
	if (!body || skim_metadata(body, body + len, 0, &end, &m) < 0 || json_skim_ws(end, body + len) != body + len ||
	    !m.name[0] || !m.rv[0] || (name[0] && strcmp(m.name, name) != 0))
		st->ok = 0;
	else if (is_release_secret(m.name, release) && store_set(st, m.name, m.rv) < 0)
		st->ok = 0;
}
