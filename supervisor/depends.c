/* supervisor/depends.c — see depends.h. Names and texts follow fluxcd/
 * helm-controller internal/controller (checkDependencies). */
#include "supervisor/depends.h"
#include "supervisor/hrent.h"

#include <stdio.h>
#include <string.h>

#define MAX_WALK 256 /* HelmReleases visited looking for a cycle */

static const char *str_at(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);
	const char *s = json_string_value(b ? json_object_get(v, b) : v);
	return s ? s : "";
}

/* Ready at its current generation, as Flux checks a dependency. */
static int dep_ready(const json_t *dep)
{
	const json_t *st = json_object_get(dep, "status"), *c;
	size_t i;
	if (flux_generation(dep) !=
	    json_integer_value(json_object_get(st, "observedGeneration")))
		return 0;
	json_array_foreach(json_object_get(st, "conditions"), i, c)
		if (!strcmp(str_at(c, "type", NULL), "Ready"))
			return !strcmp(str_at(c, "status", NULL), "True");
	return 0;
}

/* The i-th dependency of hr: its name and namespace (defaulted to hr's). */
static int dep_at(const json_t *hr, size_t i, const char **ns, const char **name)
{
	const json_t *d = json_array_get(json_object_get(json_object_get(hr, "spec"), "dependsOn"), i);
	if (!d)
		return 0;
	*name = str_at(d, "name", NULL);
	*ns = *str_at(d, "namespace", NULL) ? str_at(d, "namespace", NULL) : str_at(hr, "metadata", "namespace");
	return 1;
}

typedef struct walk {
	depends_lookup_fn get;
	void *ud;
	const char *self_ns, *self_name;
	const json_t *seen[MAX_WALK];
	size_t nseen;
	const char *path[MAX_WALK][2]; /* the chain from self being followed */
	size_t depth;
} walk;

/* Depth-first from obj: 1 when a chain leads back to self (w->path holds it). */
static int reaches_self(walk *w, const json_t *obj)
{
	const char *ns, *name;
	for (size_t i = 0; dep_at(obj, i, &ns, &name); i++) {
		const json_t *d;
		size_t k;
		if (w->depth >= MAX_WALK)
			return 0;
		w->path[w->depth][0] = ns;
		w->path[w->depth][1] = name;
		w->depth++;
		if (!strcmp(ns, w->self_ns) && !strcmp(name, w->self_name))
			return 1;
		d = w->get(w->ud, ns, name);
		for (k = 0; d && k < w->nseen && w->seen[k] != d; k++)
			;
		if (d && k == w->nseen && w->nseen < MAX_WALK) {
			w->seen[w->nseen++] = d;
			if (reaches_self(w, d))
				return 1;
		}
		w->depth--;
	}
	return 0;
}

static void cycle_msg(const walk *w, char *msg, size_t n)
{
	size_t off = (size_t)snprintf(msg, n, "dependency cycle: %s/%s", w->self_ns, w->self_name);
	for (size_t i = 0; i < w->depth && off < n; i++)
		off += (size_t)snprintf(msg + off, n - off, " -> %s/%s", w->path[i][0], w->path[i][1]);
	if (off < n)
		snprintf(msg + off, n - off, ": none of them can become Ready; remove a dependsOn entry to break it");
}

int depends_check(const json_t *hr, depends_lookup_fn get, void *ud, char *msg, size_t n)
{
	walk w;
	const char *ns, *name;
	size_t i;
	memset(&w, 0, sizeof w);
	w.get = get;
	w.ud = ud;
	w.self_ns = str_at(hr, "metadata", "namespace");
	w.self_name = str_at(hr, "metadata", "name");
	if (reaches_self(&w, hr)) {
		cycle_msg(&w, msg, n);
		return DEPENDS_CYCLE;
	}
	for (i = 0; dep_at(hr, i, &ns, &name); i++) {
		const json_t *d = get(ud, ns, name);
		if (!d) {
			snprintf(msg, n, "unable to get '%s/%s' dependency: helmreleases.helm.toolkit.fluxcd.io \"%s\" not found",
				 ns, name, name);
			return DEPENDS_NOT_READY;
		}
		if (!dep_ready(d)) {
			snprintf(msg, n, "dependency '%s/%s' is not ready", ns, name);
			return DEPENDS_NOT_READY;
		}
	}
	return DEPENDS_READY;
}

json_t *depends_event_new(const char *reason, const char *msg)
{
	return json_pack("[{s:s,s:s,s:s}]", "type", "Normal", "reason", reason, "message", msg);
}
