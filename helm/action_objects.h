/* helm/action_objects.h — internal to helm/action*.c: the objects of a
 * release manifest and applying/deleting them with Helm's rules
 * (ownership metadata and checks, server-side apply, replace, keep policy,
 * install/uninstall order). */
#ifndef BH_HELM_ACTION_OBJECTS_H
#define BH_HELM_ACTION_OBJECTS_H

#include <jansson.h>

#include "kube/kube.h"
#include "lib/error.h"

typedef struct objlist {
	json_t **obj;       /* parsed objects (namespace defaulted) */
	kube_resource *r;
	size_t n;
} objlist;

/* Parses a release manifest ("---\n# Source: ...\n" documents). Documents
 * whose kind the server does not serve are an error unless lenient (then
 * skipped — for deletions of kinds that are gone). */
int objlist_parse(kube_client *kc, const char *manifest, const char *ns, int lenient, objlist *out, bh_error *err);
/* objlist_parse with errors read as "unable to build kubernetes objects
 * from WHAT: " and k8s' aggregate of every document's error ("[a, b]" when
 * more than one: the builder goes on); WHAT NULL: the aggregate alone. */
int objlist_parse_as(kube_client *kc, const char *manifest, const char *ns, int lenient, const char *what,
		     objlist *out, bh_error *err);
void objlist_free(objlist *l);
/* Index of the object matching o (group, kind, namespace, name) or -1. */
long objlist_find(const objlist *l, const json_t *o, const kube_resource *r);

/* "apps/Deployment ns/name"-style identity pieces. */
const char *obj_name(const json_t *o);
const char *obj_ns(const json_t *o);
const char *obj_kind(const json_t *o);

/* Adds Helm's ownership label and annotations. */
void obj_set_owner(json_t *o, const char *rel, const char *ns);
/* checkOwnership; on failure err says "invalid ownership metadata; ...". */
int obj_check_owner(const json_t *live, const char *rel, const char *ns, bh_error *err);
/* resourceString: `Kind "name" in namespace "ns"` into buf. */
void obj_describe(const json_t *o, char *buf, size_t n);

/* Report entry {"op","apiVersion","kind","namespace","name"}. */
void obj_report(json_t *objects, const char *op, const json_t *o);

#endif
