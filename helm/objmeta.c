/* helm/objmeta.c — see objmeta.h. */
#include "helm/objmeta.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum gotype { G_STRING, G_INT64, G_STRMAP, G_STRLIST, G_LIST, G_TIME };

static const struct field {
	const char *name;
	enum gotype type;
	const char *gotype; /* as Go's reflect prints it */
} meta_fields[] = {
	/* metav1.ObjectMeta's JSON names, sorted as the JSON object's keys are */
	{"annotations", G_STRMAP, "string"},
	{"creationTimestamp", G_TIME, NULL},
	{"deletionGracePeriodSeconds", G_INT64, "int64"},
	{"deletionTimestamp", G_TIME, NULL},
	{"finalizers", G_STRLIST, "string"},
	{"generateName", G_STRING, "string"},
	{"generation", G_INT64, "int64"},
	{"labels", G_STRMAP, "string"},
	{"managedFields", G_LIST, "[]v1.ManagedFieldsEntry"},
	{"name", G_STRING, "string"},
	{"namespace", G_STRING, "string"},
	{"ownerReferences", G_LIST, "[]v1.OwnerReference"},
	{"resourceVersion", G_STRING, "string"},
	{"selfLink", G_STRING, "string"},
	{"uid", G_STRING, "string"},
};

/* encoding/json's name for the JSON value found (UnmarshalTypeError.Value) */
static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_TRUE:
	case JSON_FALSE:
		return "bool";
	default:
		return "number";
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int type_error(bh_error *err, const json_t *v, const char *strct, const char *field, const char *gotype)
{
	char val[64];
	if (json_is_real(v) && !strcmp(gotype, "int64")) {
		/* the JSON literal: Go's shortest form of the float */
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(val, sizeof val, "number %.*g", prec, json_real_value(v));
			if (strtod(val + 7, NULL) == json_real_value(v))
				break;
		}
	} else
		snprintf(val, sizeof val, "%s", json_kind(v));
	return bh_error_set(err, BH_EINVAL, "json: cannot unmarshal %s into Go struct field %s.%s of type %s", val, strct,
			    field, gotype);
}

static int is_int64(const json_t *v)
{
	if (json_is_integer(v))
		return 1;
	if (json_is_real(v)) {
		double d = json_real_value(v);
		return d == floor(d) && fabs(d) < 9.2e18;
	}
	return 0;
}

static int check_field(const struct field *f, const json_t *v, bh_error *err)
{
	char path[64];
	size_t i;
	const char *k;
	json_t *x;
	snprintf(path, sizeof path, "metadata.%s", f->name);
	if (!v || json_is_null(v))
		return 0;
	switch (f->type) {
	case G_STRING:
		return json_is_string(v) ? 0 : type_error(err, v, "ObjectMeta", path, f->gotype);
	case G_TIME: /* metav1.Time.UnmarshalJSON reads a string and returns its error as is */
		return json_is_string(v) ? 0
					 : bh_error_set(err, BH_EINVAL, "json: cannot unmarshal %s into Go value of type string",
							json_kind(v));
	case G_INT64:
		return is_int64(v) ? 0 : type_error(err, v, "ObjectMeta", path, f->gotype);
	case G_STRMAP:
		if (!json_is_object(v))
			return type_error(err, v, "ObjectMeta", path, "map[string]string");
		{
			/* the first bad value in key order */
			const char **keys = malloc((json_object_size(v) + 1) * sizeof *keys);
			size_t n = 0;
			int rc = 0;
			if (!keys)
				return bh_error_set(err, BH_ENOMEM, "out of memory");
			json_object_foreach((json_t *)v, k, x) keys[n++] = k;
			qsort(keys, n, sizeof *keys, by_name);
			for (i = 0; i < n && !rc; i++) {
				x = json_object_get(v, keys[i]);
				if (!json_is_null(x) && !json_is_string(x))
					rc = type_error(err, x, "ObjectMeta", path, "string");
			}
			free(keys);
			return rc;
		}
	case G_STRLIST:
		if (!json_is_array(v))
			return type_error(err, v, "ObjectMeta", path, "[]string");
		json_array_foreach(v, i, x) if (!json_is_null(x) && !json_is_string(x)) return type_error(
			err, x, "ObjectMeta", path, "string");
		return 0;
	case G_LIST:
		return json_is_array(v) ? 0 : type_error(err, v, "ObjectMeta", path, f->gotype);
	}
	return 0;
}

int objmeta_check(const json_t *obj, bh_error *err)
{
	const json_t *md = json_object_get(obj, "metadata"), *v;
	/* sorted: apiVersion, kind, metadata (TypeMeta is inline) */
	if ((v = json_object_get(obj, "apiVersion")) && !json_is_null(v) && !json_is_string(v))
		return type_error(err, v, "metadataOnlyObject", "apiVersion", "string");
	if ((v = json_object_get(obj, "kind")) && !json_is_null(v) && !json_is_string(v))
		return type_error(err, v, "metadataOnlyObject", "kind", "string");
	if (!md || json_is_null(md))
		return 0;
	if (!json_is_object(md))
		return type_error(err, md, "metadataOnlyObject", "metadata", "v1.ObjectMeta");
	for (size_t i = 0; i < sizeof meta_fields / sizeof *meta_fields; i++) {
		int rc = check_field(&meta_fields[i], json_object_get(md, meta_fields[i].name), err);
		if (rc)
			return rc;
	}
	return 0;
}
