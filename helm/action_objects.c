/* helm/action_objects.c — release manifest objects (see action_objects.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/action_objects.h"
#include "helm/hooks.h"
#include "helm/sort.h"
#include "lib/buf.h"

const char *obj_name(const json_t *o)
{
	const char *s = json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
	return s ? s : "";
}

const char *obj_ns(const json_t *o)
{
	const char *s = json_string_value(json_object_get(json_object_get(o, "metadata"), "namespace"));
	return s ? s : "";
}

const char *obj_kind(const json_t *o)
{
	const char *s = json_string_value(json_object_get(o, "kind"));
	return s ? s : "";
}

void objlist_free(objlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_decref(l->obj[i]);
	free(l->obj);
	free(l->r);
	memset(l, 0, sizeof *l);
}

int objlist_parse(kube_client *kc, const char *manifest, const char *ns, int lenient, objlist *out, bh_error *err)
{
	return objlist_parse_as(kc, manifest, ns, lenient, "release manifest", out, err);
}

int objlist_parse_as(kube_client *kc, const char *manifest, const char *ns, int lenient, const char *what,
		     objlist *out, bh_error *err)
{
	char **docs = NULL;
	size_t n = 0, nerr = 0;
	int rc = 0;
	bh_buf msgs = BH_BUF_INIT;
	memset(out, 0, sizeof *out);
	if (!manifest || !*manifest)
		return 0;
	if (manifest_split(manifest, &docs, &n) < 0)
		return bh_error_set(err, BH_ENOMEM, "out of memory splitting the manifest");
	out->obj = calloc(n + 1, sizeof *out->obj);
	out->r = calloc(n + 1, sizeof *out->r);
	if (!out->obj || !out->r) {
		manifest_split_free(docs, n);
		objlist_free(out);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		json_t *o = NULL;
		bh_error e = {0};
		const char *d = docs[i];
		/* blank or comment-only documents */
		int blank = 1;
		for (const char *p = d; *p && blank;) {
			while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
				p++;
			if (*p == '#') {
				while (*p && *p != '\n')
					p++;
			} else if (*p) {
				blank = 0;
			}
		}
		if (blank)
			continue;
		int r = hooks_parse_object(kc, d, ns, &o, &out->r[out->n], &e);
		if (r == BH_ENOTFOUND && lenient)
			continue;
		if (r < 0) {
			/* the builder goes on (ContinueOnError) and reports every
			 * document's error, as k8s' errors.NewAggregate prints them */
			if (nerr++)
				bh_buf_puts(&msgs, ", ");
			bh_buf_puts(&msgs, e.msg);
			if (!rc)
				rc = r;
			if (r == BH_ENOMEM)
				break;
			continue;
		}
		out->obj[out->n++] = o;
	}
	manifest_split_free(docs, n);
	if (rc < 0) {
		bh_error_set(err, rc, "%s%s%s", nerr > 1 ? "[" : "", bh_buf_ok(&msgs) ? bh_buf_str(&msgs) : "out of memory",
			     nerr > 1 ? "]" : "");
		if (what)
			bh_error_prefix(err, "unable to build kubernetes objects from %s", what);
		objlist_free(out);
	}
	bh_buf_free(&msgs);
	return rc;
}

long objlist_find(const objlist *l, const json_t *o, const kube_resource *r)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->r[i].group, r->group) && !strcmp(l->r[i].kind, r->kind) &&
		    !strcmp(obj_ns(l->obj[i]), obj_ns(o)) && !strcmp(obj_name(l->obj[i]), obj_name(o)))
			return (long)i;
	return -1;
}

static json_t *sub_object(json_t *parent, const char *k)
{
	json_t *v = json_object_get(parent, k);
	if (!json_is_object(v)) {
		v = json_object();
		json_object_set_new(parent, k, v);
	}
	return v;
}

void obj_set_owner(json_t *o, const char *rel, const char *ns)
{
	json_t *md = sub_object(o, "metadata");
	json_object_set_new(sub_object(md, "labels"), "app.kubernetes.io/managed-by", json_string("Helm"));
	json_t *an = sub_object(md, "annotations");
	json_object_set_new(an, "meta.helm.sh/release-name", json_string(rel));
	json_object_set_new(an, "meta.helm.sh/release-namespace", json_string(ns));
}

static void require_value(bh_buf *b, const char *what, const json_t *m, const char *k, const char *v)
{
	const char *actual = json_string_value(json_object_get(m, k));
	if (actual && !strcmp(actual, v))
		return;
	if (b->len)
		bh_buf_puts(b, "; ");
	if (!actual)
		bh_buf_printf(b, "%s validation error: missing key \"%s\": must be set to \"%s\"", what, k, v);
	else
		bh_buf_printf(b, "%s validation error: key \"%s\" must equal \"%s\": current value is \"%s\"", what, k, v,
			      actual);
}

int obj_check_owner(const json_t *live, const char *rel, const char *ns, bh_error *err)
{
	const json_t *md = json_object_get(live, "metadata");
	bh_buf b = BH_BUF_INIT;
	int rc = 0;
	require_value(&b, "label", json_object_get(md, "labels"), "app.kubernetes.io/managed-by", "Helm");
	require_value(&b, "annotation", json_object_get(md, "annotations"), "meta.helm.sh/release-name", rel);
	require_value(&b, "annotation", json_object_get(md, "annotations"), "meta.helm.sh/release-namespace", ns);
	if (b.len)
		rc = bh_error_set(err, BH_ECONFLICT, "invalid ownership metadata; %s", b.data);
	bh_buf_free(&b);
	return rc;
}

void obj_describe(const json_t *o, char *buf, size_t n)
{
	snprintf(buf, n, "%s \"%s\" in namespace \"%s\"", obj_kind(o), obj_name(o), obj_ns(o));
}

void obj_report(json_t *objects, const char *op, const json_t *o)
{
	const char *av = json_string_value(json_object_get(o, "apiVersion"));
	if (!objects)
		return;
	json_array_append_new(objects, json_pack("{s:s,s:s,s:s,s:s,s:s}", "op", op, "apiVersion", av ? av : "", "kind",
						 obj_kind(o), "namespace", obj_ns(o), "name", obj_name(o)));
}
