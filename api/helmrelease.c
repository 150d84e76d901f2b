/* api/helmrelease.c — decoding and validation of a HelmRelease into the
 * typed model (see helmrelease.h); the field table is helmrelease_fields.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/helmrelease.h"
#include "lib/gojson.h"

#define PATH_MAX_LEN 512

/* A JSON number written with a fraction or an exponent that is a whole
 * number an int64 holds (NaN and anything out of range are not: converting
 * them to long long is undefined). */
static int real_is_int(double d)
{
	return d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == (double)(long long)d;
}

/* ---- Go's time.ParseDuration ------------------------------------------------ */
static int unit_of(const char *s, size_t n, int64_t *unit)
{
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = {{"ns", 1},
		     {"us", 1000},
		     {"\xc2\xb5s", 1000},
		     {"\xce\xbcs", 1000},
		     {"ms", 1000000},
		     {"s", 1000000000},
		     {"m", 60000000000LL},
		     {"h", 3600000000000LL}};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strlen(units[i].name) == n && !memcmp(units[i].name, s, n)) {
			*unit = units[i].ns;
			return 0;
		}
	return -1;
}

int hr_parse_duration(const char *orig, int64_t *out, bh_error *err)
{
	const char *s = orig;
	uint64_t d = 0;
	int neg = 0;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	if (!*s)
		return bh_error_set(err, BH_EINVAL, "time: invalid duration \"%s\"", orig);
	while (*s) {
		uint64_t v = 0, f = 0, unit;
		double scale = 1; /* as Go's: a long fraction's scale may reach +Inf, never wraps */
		int64_t u;
		int digits = 0;
		size_t n = 0;
		if (!(*s == '.' || isdigit((unsigned char)*s)))
			return bh_error_set(err, BH_EINVAL, "time: invalid duration \"%s\"", orig);
		for (; isdigit((unsigned char)*s); s++, digits++) {
			if (v > (UINT64_C(1) << 63) / 10)
				return bh_error_set(err, BH_EINVAL, "time: invalid duration \"%s\"", orig);
			v = v * 10 + (uint64_t)(*s - '0');
			if (v > UINT64_C(1) << 63)
				return bh_error_set(err, BH_EINVAL, "time: invalid duration \"%s\"", orig);
		}
		if (*s == '.') {
			int overflow = 0;
			for (s++; isdigit((unsigned char)*s); s++, digits++) {
				if (overflow)
					continue;
				if (f > (UINT64_C(1) << 63) / 10) {
					overflow = 1;
					continue;
				}
				f = f * 10 + (uint64_t)(*s - '0');
				scale *= 10;
			}
		}
		if (!digits)
			return bh_error_set(err, BH_EINVAL, "time: invalid duration \"%s\"", orig);
		while (s[n] && s[n] != '.' && !isdigit((unsigned char)s[n]))
			n++;
		if (!n)
			return bh_error_set(err, BH_EINVAL, "time: missing unit in duration \"%s\"", orig);
		if (unit_of(s, n, &u) < 0)
			return bh_error_set(err, BH_EINVAL, "time: unknown unit \"%.*s\" in duration \"%s\"", (int)n, s, orig);
		s += n;
		unit = (uint64_t)u;
		if (v > (UINT64_C(1) << 63) / unit)
			return bh_error_set(err, BH_EINVAL, "time: invalid duration \"%s\"", orig);
		v *= unit;
		if (f > 0) {
			v += (uint64_t)((double)f * ((double)unit / scale));
			if (v > UINT64_C(1) << 63)
				return bh_error_set(err, BH_EINVAL, "time: invalid duration \"%s\"", orig);
		}
		d += v;
		if (d > UINT64_C(1) << 63)
			return bh_error_set(err, BH_EINVAL, "time: invalid duration \"%s\"", orig);
	}
	if (neg) {
		*out = d == (UINT64_C(1) << 63) ? INT64_MIN : -(int64_t)d;
		return 0;
	}
	if (d > INT64_MAX)
		return bh_error_set(err, BH_EINVAL, "time: invalid duration \"%s\"", orig);
	*out = (int64_t)d;
	return 0;
}

/* The CRD's pattern ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$ */
static int crd_duration(const char *s)
{
	if (!*s)
		return 0;
	while (*s) {
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s == '.') {
			if (!isdigit((unsigned char)*++s))
				return 0;
			while (isdigit((unsigned char)*s))
				s++;
		}
		if (!strncmp(s, "ms", 2))
			s += 2;
		else if (*s == 's' || *s == 'm' || *s == 'h')
			s++;
		else
			return 0;
	}
	return 1;
}

/* ---- string checks ----------------------------------------------------------- */
static int alnum_lower(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int dns_label(const char *s, size_t n)
{
	if (!n || n > 63 || !alnum_lower(s[0]) || !alnum_lower(s[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!alnum_lower(s[i]) && s[i] != '-')
			return 0;
	return 1;
}

static int dns_subdomain(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 253)
		return 0;
	for (const char *p = s;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		if (!dns_label(p, len))
			return 0;
		if (!dot)
			return 1;
		p = dot + 1;
	}
}

static int target_path_ok(const char *s)
{
	if (!*s)
		return 1; /* omitempty: no target path */
	while (*s) {
		if (isalnum((unsigned char)*s) || strchr("_-.\\/", *s)) {
			s++;
			continue;
		}
		if (*s != '[')
			return 0;
		int n = 0;
		for (s++; isdigit((unsigned char)*s); s++)
			n++;
		if (n < 1 || n > 5 || *s != ']')
			return 0;
		s++;
	}
	return 1;
}

static const char *check_string(const hr_field *f, const char *s)
{
	size_t n = strlen(s);
	switch (f->check) {
	case HR_C_DNS1123_LABEL:
		return dns_label(s, n) ? NULL : "must be a DNS-1123 label (lower case alphanumerics and '-', at most 63)";
	case HR_C_DNS1123_SUBDOMAIN:
		return dns_subdomain(s) ? NULL : "must be a DNS-1123 subdomain (lower case alphanumerics, '-' and '.')";
	case HR_C_RELEASE_NAME:
		return dns_subdomain(s) ? NULL : "must be a valid Helm release name (lower case alphanumerics, '-' and '.')";
	case HR_C_VALUES_KEY:
		for (const char *p = s; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("-._", *p))
				return "may hold only alphanumerics, '-', '.' and '_'";
		return NULL;
	case HR_C_TARGET_PATH:
		return target_path_ok(s) ? NULL : "must match ^([a-zA-Z0-9_\\-.\\\\/]|\\[[0-9]{1,5}\\])+$";
	default:
		return NULL;
	}
}

static int in_list(const char *list, const char *s)
{
	size_t n = strlen(s);
	for (const char *p = list; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !memcmp(p, s, n))
			return 1;
		p = bar ? bar + 1 : NULL;
	}
	return 0;
}

/* ---- the walk against the table ------------------------------------------------ */
static int is_zero(const json_t *v)
{
	return json_is_null(v) || json_is_false(v) || (json_is_integer(v) && !json_integer_value(v)) ||
	       (json_is_string(v) && !json_string_length(v)) || (json_is_array(v) && !json_array_size(v)) ||
	       (json_is_object(v) && !json_object_size(v));
}

static const char *type_name(enum hr_type t)
{
	static const char *const names[] = {"an object", "a list", "a string", "a list of strings",
					    "a map of strings", "a boolean", "an integer", "a duration string",
					    "any value"};
	return names[t];
}

static int walk(const json_t *v, const char *path, int depth, bh_error *err);

static int walk_fields(const json_t *obj, const char *path, int depth, bh_error *err)
{
	const char *key;
	json_t *c;
	char sub[PATH_MAX_LEN];
	json_object_foreach((json_t *)obj, key, c) {
		if (snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", key) >= (int)sizeof sub)
			return bh_error_set(err, BH_ELIMIT, "field path .%s.%.40s... is too long", path, key);
		if (!hr_field_find(sub))
			return bh_error_set(err, BH_EINVAL, "unknown field .%s: the HelmRelease API has no such field", sub);
		int rc = walk(c, sub, depth + 1, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int walk(const json_t *v, const char *path, int depth, bh_error *err)
{
	const hr_field *f = hr_field_find(path);
	size_t i;
	json_t *x;
	char sub[PATH_MAX_LEN];
	if (depth > HR_MAX_DEPTH)
		return bh_error_set(err, BH_ELIMIT, ".%s is nested deeper than %d levels", path, HR_MAX_DEPTH);
	if (!f)
		return bh_error_set(err, BH_EINVAL, "unknown field .%s: the HelmRelease API has no such field", path);
	if (json_is_null(v) || f->type == HR_T_ANY)
		return 0;
	if (f->refused && !f->refused_values && !is_zero(v))
		return bh_error_set(err, BH_EDENIED, ".%s is not supported by this version of bulkhead: %s", path, f->refused);
	switch (f->type) {
	case HR_T_OBJECT:
		if (!json_is_object(v))
			break;
		return walk_fields(v, path, depth, err);
	case HR_T_LIST:
		if (!json_is_array(v))
			break;
		if (snprintf(sub, sizeof sub, "%s[]", path) >= (int)sizeof sub)
			return bh_error_set(err, BH_ELIMIT, "field path .%s is too long", path);
		json_array_foreach(v, i, x) {
			int rc;
			if (!json_is_object(x))
				return bh_error_set(err, BH_EINVAL, ".%s[%zu] must be an object", path, i);
			if ((rc = walk_fields(x, sub, depth + 1, err)) < 0)
				return bh_error_prefix(err, "in .%s[%zu]", path, i);
		}
		return 0;
	case HR_T_STRLIST:
		if (!json_is_array(v))
			break;
		json_array_foreach(v, i, x) if (!json_is_string(x)) return bh_error_set(
			err, BH_EINVAL, ".%s[%zu] must be a string", path, i);
		return 0;
	case HR_T_STRMAP: {
		const char *k;
		if (!json_is_object(v))
			break;
		json_object_foreach((json_t *)v, k, x) if (!json_is_string(x)) return bh_error_set(
			err, BH_EINVAL, ".%s.%s must be a string", path, k);
		return 0;
	}
	case HR_T_BOOL:
		if (!json_is_boolean(v))
			break;
		return 0;
	case HR_T_INT:
		if (!json_is_integer(v) && !(json_is_real(v) && real_is_int(json_real_value(v))))
			break;
		return 0;
	case HR_T_DURATION: {
		int64_t ns;
		if (!json_is_string(v))
			break;
		if (!crd_duration(json_string_value(v)) || hr_parse_duration(json_string_value(v), &ns, NULL) < 0)
			return bh_error_set(err, BH_EINVAL, ".%s: invalid duration \"%s\" (want e.g. 30s, 5m, 1h30m)", path,
					    json_string_value(v));
		return 0;
	}
	case HR_T_STRING: {
		const char *s = json_string_value(v), *why;
		size_t n;
		if (!s)
			break;
		n = strlen(s);
		if (n != json_string_length(v))
			return bh_error_set(err, BH_EINVAL, ".%s must not hold a NUL byte", path);
		if (f->enums && !in_list(f->enums, s))
			return bh_error_set(err, BH_EINVAL, ".%s: unsupported value \"%s\" (one of %s)", path, s, f->enums);
		if (f->refused_values && in_list(f->refused_values, s))
			return bh_error_set(err, BH_EDENIED, ".%s '%s' is not supported by this version of bulkhead: %s", path,
					    s, f->refused);
		if (f->min_len && n < (size_t)f->min_len)
			return bh_error_set(err, BH_EINVAL, ".%s must be at least %d characters", path, f->min_len);
		if (f->max_len && n > (size_t)f->max_len)
			return bh_error_set(err, BH_EINVAL, ".%s must be at most %d characters (it has %zu)", path, f->max_len, n);
		if (n && (why = check_string(f, s)))
			return bh_error_set(err, BH_EINVAL, ".%s \"%.100s\" %s", path, s, why);
		return 0;
	}
	default:
		return 0;
	}
	return bh_error_set(err, BH_EINVAL, ".%s must be %s", path, type_name(f->type));
}

/* ---- v2beta2 conversion --------------------------------------------------------- */
static int convert_kustomize(json_t *k, bh_error *err)
{
	json_t *smp = json_object_get(k, "patchesStrategicMerge"), *j6902 = json_object_get(k, "patchesJson6902");
	json_t *old = json_object_get(k, "patches"), *patches = json_array(), *x;
	size_t i;
	json_array_foreach(smp, i, x) {
		char *t = json_dumps(x, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!json_is_object(x) || !t) {
			free(t);
			json_decref(patches);
			return bh_error_set(err, BH_EINVAL, ".spec.postRenderers[].kustomize.patchesStrategicMerge[%zu] must be an object", i);
		}
		json_array_append_new(patches, json_pack("{s:s}", "patch", t));
		free(t);
	}
	json_array_foreach(old, i, x) json_array_append(patches, x);
	json_array_foreach(j6902, i, x) {
		json_t *ops = json_object_get(x, "patch"), *p;
		char *t = json_dumps(ops, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!json_is_object(x) || !json_is_array(ops) || !t) {
			free(t);
			json_decref(patches);
			return bh_error_set(err, BH_EINVAL, ".spec.postRenderers[].kustomize.patchesJson6902[%zu] needs a list .patch", i);
		}
		p = json_pack("{s:s}", "patch", t);
		free(t);
		if (json_object_get(x, "target"))
			json_object_set(p, "target", json_object_get(x, "target"));
		json_array_append_new(patches, p);
	}
	json_object_del(k, "patchesStrategicMerge");
	json_object_del(k, "patchesJson6902");
	if (json_array_size(patches))
		json_object_set(k, "patches", patches);
	json_decref(patches);
	return 0;
}

json_t *hr_convert_v2beta2_new(const json_t *spec, bh_error *err)
{
	json_t *s = json_deep_copy(spec), *x, *cs;
	size_t i;
	if (!s) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	json_array_foreach(json_object_get(s, "postRenderers"), i, x) {
		json_t *k = json_object_get(x, "kustomize");
		if (json_is_object(k) && convert_kustomize(k, err) < 0) {
			json_decref(s);
			return NULL;
		}
	}
	cs = json_object_get(json_object_get(s, "chart"), "spec");
	if ((x = json_object_get(cs, "valuesFile"))) {
		json_t *files = json_object_get(cs, "valuesFiles");
		if (json_is_string(x) && json_string_length(x)) {
			if (!json_is_array(files)) {
				files = json_array();
				json_object_set_new(cs, "valuesFiles", files);
			}
			json_array_insert(files, 0, x);
		}
		json_object_del(cs, "valuesFile");
	}
	return s;
}

/* ---- the typed model ------------------------------------------------------------ */
static char *dup_at(const json_t *o, const char *k, const char *def)
{
	const char *s = json_string_value(json_object_get(o, k));
	return strdup(s && *s ? s : def ? def : "");
}

static int64_t dur_at(const json_t *o, const char *k, int64_t def)
{
	const char *s = json_string_value(json_object_get(o, k));
	int64_t ns;
	return s && hr_parse_duration(s, &ns, NULL) == 0 ? ns : def;
}

static int bool_at(const json_t *o, const char *k, int def)
{
	const json_t *v = json_object_get(o, k);
	return json_is_boolean(v) ? json_is_true(v) : def;
}

static long long int_at(const json_t *o, const char *k, long long def)
{
	const json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? json_integer_value(v) : json_is_real(v) && real_is_int(json_real_value(v)) ? (long long)json_real_value(v) : def;
}

static void remediation_decode(const json_t *r, hr_remediation *out, int upgrade)
{
	out->retries = (int)int_at(r, "retries", 0);
	out->remediate_last_failure = bool_at(r, "remediateLastFailure", -1);
	out->ignore_test_failures = bool_at(r, "ignoreTestFailures", -1);
	out->strategy = upgrade ? dup_at(r, "strategy", "rollback") : NULL;
}

/* Every member of hr_action from its part of the spec (the table allows
 * only the members that part has, so the others read as their zero). */
static void action_decode(const json_t *a, hr_action *out)
{
	out->timeout_ns = dur_at(a, "timeout", -1);
	out->disable_wait = bool_at(a, "disableWait", 0);
	out->disable_wait_for_jobs = bool_at(a, "disableWaitForJobs", 0);
	out->disable_hooks = bool_at(a, "disableHooks", 0);
	out->disable_schema_validation = bool_at(a, "disableSchemaValidation", 0);
	out->disable_take_ownership = bool_at(a, "disableTakeOwnership", 0);
	out->crds = dup_at(a, "crds", NULL);
	out->skip_crds = bool_at(a, "skipCRDs", 0);
	out->create_namespace = bool_at(a, "createNamespace", 0);
	out->replace = bool_at(a, "replace", 0);
	out->force = bool_at(a, "force", 0);
	out->cleanup_on_fail = bool_at(a, "cleanupOnFail", 0);
	out->preserve_values = bool_at(a, "preserveValues", 0);
	out->recreate = bool_at(a, "recreate", 0);
	out->keep_history = bool_at(a, "keepHistory", 0);
	out->deletion_propagation = dup_at(a, "deletionPropagation", NULL);
}

static int required(const json_t *o, const char *k, const char *where, bh_error *err)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s ? 0 : bh_error_set(err, BH_EINVAL, "%s.%s is required", where, k);
}

/* The CRD's rules of .spec.install.strategy and .spec.upgrade.strategy: a
 * name, and a retryInterval only with RetryOnFailure. */
static int strategy_check(const json_t *st, const char *part, bh_error *err)
{
	const char *name = json_string_value(json_object_get(st, "name"));
	if (!json_is_object(st))
		return 0;
	if (!name || !*name)
		return bh_error_set(err, BH_EINVAL, ".spec.%s.strategy.name is required", part);
	if (json_object_get(st, "retryInterval") && strcmp(name, "RetryOnFailure") != 0)
		return bh_error_set(err, BH_EINVAL, ".spec.%s.strategy: .retryInterval can only be set when .name is "
						    "'RetryOnFailure'", part);
	return 0;
}

static int cross_checks(const json_t *md, const json_t *spec, bh_error *err)
{
	const json_t *chart = json_object_get(spec, "chart"), *ref = json_object_get(spec, "chartRef"), *x;
	const json_t *cs = json_object_get(chart, "spec");
	size_t i;
	int rc;
	if ((rc = required(md, "name", ".metadata", err)) < 0 || (rc = required(md, "namespace", ".metadata", err)) < 0)
		return rc;
	if (!dns_subdomain(json_string_value(json_object_get(md, "name"))))
		return bh_error_set(err, BH_EINVAL, ".metadata.name must be a DNS-1123 subdomain");
	if (!json_is_object(spec))
		return bh_error_set(err, BH_EINVAL, ".spec is required");
	if ((rc = required(spec, "interval", ".spec", err)) < 0)
		return rc;
	if (json_is_object(chart) && json_is_object(ref))
		return bh_error_set(err, BH_EINVAL, "both .spec.chart and .spec.chartRef are set: set exactly one "
						    "(either chart or chartRef must be set)");
	if (!json_is_object(chart) && !json_is_object(ref))
		return bh_error_set(err, BH_EINVAL, "one of .spec.chart or .spec.chartRef is required");
	if (json_is_object(chart)) {
		const json_t *sr = json_object_get(cs, "sourceRef");
		if (!json_is_object(cs))
			return bh_error_set(err, BH_EINVAL, ".spec.chart.spec is required");
		if ((rc = required(cs, "chart", ".spec.chart.spec", err)) < 0 ||
		    (rc = required(sr, "kind", ".spec.chart.spec.sourceRef", err)) < 0 ||
		    (rc = required(sr, "name", ".spec.chart.spec.sourceRef", err)) < 0)
			return rc;
		const json_t *v = json_object_get(cs, "verify");
		if (json_is_object(json_object_get(v, "secretRef")) &&
		    (rc = required(json_object_get(v, "secretRef"), "name", ".spec.chart.spec.verify.secretRef", err)) < 0)
			return rc;
		json_array_foreach(json_object_get(v, "matchOIDCIdentity"), i, x) {
			if ((rc = required(x, "issuer", ".spec.chart.spec.verify.matchOIDCIdentity[]", err)) < 0 ||
			    (rc = required(x, "subject", ".spec.chart.spec.verify.matchOIDCIdentity[]", err)) < 0)
				return bh_error_prefix(err, "in .spec.chart.spec.verify.matchOIDCIdentity[%zu]", i);
		}
	} else if ((rc = required(ref, "kind", ".spec.chartRef", err)) < 0 ||
		   (rc = required(ref, "name", ".spec.chartRef", err)) < 0) {
		return rc;
	}
	json_array_foreach(json_object_get(spec, "valuesFrom"), i, x) {
		if ((rc = required(x, "kind", ".spec.valuesFrom[]", err)) < 0 ||
		    (rc = required(x, "name", ".spec.valuesFrom[]", err)) < 0)
			return bh_error_prefix(err, "in .spec.valuesFrom[%zu]", i);
	}
	if (int_at(spec, "maxHistory", 0) < 0)
		return bh_error_set(err, BH_EINVAL, ".spec.maxHistory must not be negative");
	x = json_object_get(spec, "kubeConfig");
	if (json_is_object(x) && !json_is_object(json_object_get(x, "secretRef")) &&
	    !json_is_object(json_object_get(x, "configMapRef")))
		return bh_error_set(err, BH_EINVAL, ".spec.kubeConfig needs a secretRef");
	if (json_is_object(json_object_get(x, "secretRef")) &&
	    (rc = required(json_object_get(x, "secretRef"), "name", ".spec.kubeConfig.secretRef", err)) < 0)
		return rc;
	if (json_array_size(json_object_get(spec, "dependsOn")) > HR_MAX_DEPENDS)
		return bh_error_set(err, BH_EINVAL, ".spec.dependsOn has more than %d entries", HR_MAX_DEPENDS);
	json_array_foreach(json_object_get(spec, "dependsOn"), i, x) {
		if ((rc = required(x, "name", ".spec.dependsOn[]", err)) < 0)
			return bh_error_prefix(err, "in .spec.dependsOn[%zu]", i);
	}
	return strategy_check(json_object_get(json_object_get(spec, "install"), "strategy"), "install", err) < 0
		       ? err->code
		       : strategy_check(json_object_get(json_object_get(spec, "upgrade"), "strategy"), "upgrade", err);
}

static int fill(hr_model *m, const json_t *obj)
{
	const json_t *md = json_object_get(obj, "metadata"), *spec = m->spec, *cs, *sr, *ref, *x;
	size_t i;
	m->name = dup_at(md, "name", NULL);
	m->namespace_ = dup_at(md, "namespace", NULL);
	m->interval_ns = dur_at(spec, "interval", 0);
	m->timeout_ns = dur_at(spec, "timeout", 300LL * 1000000000);
	m->release_name = dup_at(spec, "releaseName", NULL);
	m->target_namespace = dup_at(spec, "targetNamespace", NULL);
	m->storage_namespace = dup_at(spec, "storageNamespace", NULL);
	m->service_account_name = dup_at(spec, "serviceAccountName", NULL);
	m->suspend = bool_at(spec, "suspend", 0);
	m->persistent_client = bool_at(spec, "persistentClient", 1);
	m->max_history = (int)int_at(spec, "maxHistory", 5);
	cs = json_object_get(json_object_get(spec, "chart"), "spec");
	sr = json_object_get(cs, "sourceRef");
	ref = json_object_get(spec, "chartRef");
	m->has_chart = json_is_object(cs);
	m->has_chart_ref = json_is_object(ref);
	m->chart_name = dup_at(cs, "chart", NULL);
	m->chart_version = dup_at(cs, "version", "*");
	m->source_kind = dup_at(sr, "kind", NULL);
	m->source_name = dup_at(sr, "name", NULL);
	m->source_namespace = dup_at(sr, "namespace", m->namespace_);
	m->ref_kind = dup_at(ref, "kind", NULL);
	m->ref_name = dup_at(ref, "name", NULL);
	m->ref_namespace = dup_at(ref, "namespace", m->namespace_);
	x = json_object_get(spec, "dependsOn");
	if (json_array_size(x) && !(m->depends_on = calloc(json_array_size(x), sizeof *m->depends_on)))
		return BH_ENOMEM;
	for (i = 0; i < json_array_size(x); i++, m->ndepends_on++) {
		m->depends_on[i].name = dup_at(json_array_get(x, i), "name", NULL);
		m->depends_on[i].namespace_ = dup_at(json_array_get(x, i), "namespace", m->namespace_);
	}
	remediation_decode(json_object_get(json_object_get(spec, "install"), "remediation"), &m->install_remediation, 0);
	remediation_decode(json_object_get(json_object_get(spec, "upgrade"), "remediation"), &m->upgrade_remediation, 1);
	x = json_object_get(json_object_get(spec, "install"), "strategy");
	m->install_strategy = dup_at(x, "name", "RemediateOnFailure");
	m->install_retry_interval_ns = dur_at(x, "retryInterval", HR_DEFAULT_RETRY_INTERVAL_NS);
	x = json_object_get(json_object_get(spec, "upgrade"), "strategy");
	m->upgrade_strategy = dup_at(x, "name", "RemediateOnFailure");
	m->retry_interval_ns = dur_at(x, "retryInterval", HR_DEFAULT_RETRY_INTERVAL_NS);
	x = json_object_get(spec, "test");
	m->test.enable = bool_at(x, "enable", 0);
	m->test.ignore_failures = bool_at(x, "ignoreFailures", 0);
	m->test.timeout_ns = dur_at(x, "timeout", -1);
	x = json_object_get(x, "filters");
	if (json_array_size(x) && !(m->test.filters = calloc(json_array_size(x), sizeof *m->test.filters)))
		return BH_ENOMEM;
	for (i = 0; i < json_array_size(x); i++, m->test.nfilters++) {
		m->test.filters[i].name = dup_at(json_array_get(x, i), "name", NULL);
		m->test.filters[i].exclude = bool_at(json_array_get(x, i), "exclude", 0);
	}
	action_decode(json_object_get(spec, "install"), &m->install);
	action_decode(json_object_get(spec, "upgrade"), &m->upgrade);
	action_decode(json_object_get(spec, "rollback"), &m->rollback);
	action_decode(json_object_get(spec, "uninstall"), &m->uninstall);
	return 0;
}

int hr_decode(const json_t *obj, hr_model **out, bh_error *err)
{
	const char *api = json_string_value(json_object_get(obj, "apiVersion"));
	const json_t *spec = json_object_get(obj, "spec");
	hr_model *m;
	json_t *tmp;
	int rc;
	*out = NULL;
	if (!json_is_object(obj))
		return bh_error_set(err, BH_EINVAL, "a HelmRelease must be a JSON object");
	if (!json_is_object(spec))
		return bh_error_set(err, BH_EINVAL, ".spec is required");
	if (api && strcmp(api, "helm.toolkit.fluxcd.io/v2") && strcmp(api, "helm.toolkit.fluxcd.io/v2beta2"))
		return bh_error_set(err, BH_EINVAL, "apiVersion %s is not supported (helm.toolkit.fluxcd.io/v2 or v2beta2)", api);
	if (!(m = calloc(1, sizeof *m)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	m->beta2 = api && !strcmp(api, "helm.toolkit.fluxcd.io/v2beta2");
	m->spec = m->beta2 ? hr_convert_v2beta2_new(spec, err) : json_deep_copy(spec);
	if (!m->spec) {
		hr_model_free(m);
		return err && err->code ? err->code : bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	tmp = json_object();
	json_object_update(tmp, (json_t *)obj);
	json_object_set(tmp, "spec", m->spec);
	rc = walk_fields(tmp, "", 0, err);
	if (rc == 0)
		rc = cross_checks(json_object_get(obj, "metadata"), m->spec, err);
	json_decref(tmp);
	if (rc == 0 && fill(m, obj) < 0)
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	if (rc < 0) {
		hr_model_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

hr_model *hr_model_default_new(void)
{
	hr_model *m = calloc(1, sizeof *m);
	json_t *obj = json_pack("{s:{}}", "spec");
	if (m && obj && (m->spec = json_object()) && fill(m, obj) == 0) {
		json_decref(obj);
		return m;
	}
	json_decref(obj);
	hr_model_free(m);
	return NULL;
}

int64_t hr_retry_interval_ns(const hr_model *m, const char *action)
{
	if (action && !strcmp(action, "install") && !strcmp(m->install_strategy, "RetryOnFailure"))
		return m->install_retry_interval_ns;
	if (action && !strcmp(action, "upgrade") && !strcmp(m->upgrade_strategy, "RetryOnFailure"))
		return m->retry_interval_ns;
	return 0;
}

int hr_decode_bytes(const char *text, size_t len, hr_model **out, bh_error *err)
{
	gojson_limits lim = {HR_MAX_BYTES, 256};
	json_t *obj = NULL;
	int rc;
	*out = NULL;
	if (len > HR_MAX_BYTES)
		return bh_error_set(err, BH_ELIMIT, "a HelmRelease of %zu bytes is larger than the limit of %zu", len,
				    (size_t)HR_MAX_BYTES);
	if ((rc = gojson_decode(text, len, &lim, GOJSON_KEEP_INTS, &obj, err)) < 0)
		return rc;
	rc = hr_decode(obj, out, err);
	json_decref(obj);
	return rc;
}

void hr_model_free(hr_model *m)
{
	if (!m)
		return;
	char **strs[] = {&m->name, &m->namespace_, &m->release_name, &m->target_namespace, &m->storage_namespace,
			 &m->service_account_name, &m->chart_name, &m->chart_version, &m->source_kind, &m->source_name,
			 &m->source_namespace, &m->ref_kind, &m->ref_name, &m->ref_namespace,
			 &m->upgrade_remediation.strategy, &m->upgrade_strategy, &m->install_strategy,
			 &m->install.crds, &m->install.deletion_propagation, &m->upgrade.crds,
			 &m->upgrade.deletion_propagation, &m->rollback.crds, &m->rollback.deletion_propagation,
			 &m->uninstall.crds, &m->uninstall.deletion_propagation};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		free(*strs[i]);
	for (size_t i = 0; i < m->ndepends_on; i++) {
		free(m->depends_on[i].name);
		free(m->depends_on[i].namespace_);
	}
	free(m->depends_on);
	for (size_t i = 0; i < m->test.nfilters; i++)
		free(m->test.filters[i].name);
	free(m->test.filters);
	json_decref(m->spec);
	free(m);
}
