/* lib/jsonschema_quick.c — a cheap, conservative stand-in for the
 * meta-schema check of a values.schema.json (see jsonschema_internal.h).
 *
 * It walks the schema once and accepts it only when every keyword the
 * draft meta-schemas constrain holds a value those meta-schemas accept,
 * checked by hand and at least as strictly (for all five drafts at once
 * where that is simpler: a draft-04 schema's "$defs" is walked as schemas,
 * "examples" must be an array, and so on). Anything it does not know for
 * sure (a keyword it does not model, an enum of numbers, a number 1e400 that
 * the meta-check's decoding would refuse, a tree large or deep enough to
 * reach the validator's limits) makes it answer "not sure", and the caller
 * runs the full check, which prints v6's errors. Keywords no meta-schema
 * names are unconstrained there and skipped here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/jsonschema_formats.h"
#include "lib/jsonschema_internal.h"

typedef gojson_node node;

/* The full check evaluates a handful of subschemas per instance node (and
 * at most four nested validator calls per instance level); these keep it
 * far from JSONSCHEMA_MAX_STEPS and JSONSCHEMA_MAX_DEPTH. */
#define QUICK_MAX_NODES 50000
#define QUICK_MAX_DEPTH 32
#define QUICK_MAX_SET 64 /* elements of an array checked for uniqueness */

typedef struct quick {
	int draft;
	size_t nodes;
} quick;

static int is_str(const node *v)
{
	return v->type == GOJSON_STRING;
}

static int key_is(const node *k, const char *s)
{
	size_t n = strlen(s);
	return k->len == n && memcmp(k->text, s, n) == 0;
}

static int has_key(const node *obj, const char *s)
{
	for (size_t i = 0; i < obj->n; i++)
		if (key_is(&obj->items[2 * i], s))
			return 1;
	return 0;
}

/* digits only: an integer >= 0 whatever the draft's idea of "integer" */
static int is_nonneg_int(const node *v)
{
	if (v->type != GOJSON_NUMBER || !v->len)
		return 0;
	for (size_t i = 0; i < v->len; i++)
		if (v->text[i] < '0' || v->text[i] > '9')
			return 0;
	return 1;
}

/* a plain literal (digits and one point, no sign or exponent) above 0 */
static int is_positive_number(const node *v)
{
	int nonzero = 0;
	if (v->type != GOJSON_NUMBER)
		return 0;
	for (size_t i = 0; i < v->len; i++) {
		char ch = v->text[i];
		if (ch >= '1' && ch <= '9')
			nonzero = 1;
		else if (ch != '0' && ch != '.')
			return 0;
	}
	return nonzero;
}

static int format_ok(const char *format, const node *v)
{
	bh_buf why = BH_BUF_INIT;
	int rc = is_str(v) && jsonschema_format_check(format, v->text, v->len, &why) == 0;
	bh_buf_free(&why);
	return rc;
}

/* strings, booleans and nulls only, pairwise different, at most
 * QUICK_MAX_SET of them; min_one: not empty */
static int is_unique_scalars(const node *a, int strings_only, int min_one)
{
	if (a->type != GOJSON_ARRAY || a->n > QUICK_MAX_SET || (min_one && a->n == 0))
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const node *x = &a->items[i];
		if (strings_only ? !is_str(x)
				 : !(is_str(x) || x->type == GOJSON_NULL || x->type == GOJSON_TRUE || x->type == GOJSON_FALSE))
			return 0;
		for (size_t j = 0; j < i; j++) {
			const node *y = &a->items[j];
			if (x->type == y->type && (!is_str(x) || (x->len == y->len && memcmp(x->text, y->text, x->len) == 0)))
				return 0;
		}
	}
	return 1;
}

static int is_simple_type(const node *v)
{
	return jsonschema_type_index(v) >= 0;
}

static int type_ok(const node *v)
{
	if (v->type != GOJSON_ARRAY)
		return is_simple_type(v);
	for (size_t i = 0; i < v->n; i++)
		if (!is_simple_type(&v->items[i]))
			return 0;
	return is_unique_scalars(v, 1, 1);
}

/* a number literal decodes to a finite float64: without an exponent,
 * fewer than 309 digits surely do */
static int number_ok(const node *v)
{
	if (v->len < 300 && !memchr(v->text, 'e', v->len) && !memchr(v->text, 'E', v->len))
		return 1;
	return !isinf(strtod(v->text, NULL));
}

/* every number of a subtree decodes to a finite float64 (the meta-check
 * decodes the whole schema, unknown keywords included); scalars are
 * counted and checked in their container's loop, without a call */
static int numbers_ok(quick *q, const node *v, int depth)
{
	if (++q->nodes > QUICK_MAX_NODES || depth > QUICK_MAX_DEPTH)
		return 0;
	if (v->type == GOJSON_NUMBER)
		return number_ok(v);
	if (v->type != GOJSON_ARRAY && v->type != GOJSON_OBJECT)
		return 1;
	/* an object's values are its odd items, an array's all of them */
	size_t step = v->type == GOJSON_OBJECT ? 2 : 1, count = v->n * step;
	for (size_t i = step - 1; i < count; i += step) {
		const node *x = &v->items[i];
		if (x->type == GOJSON_ARRAY || x->type == GOJSON_OBJECT) {
			if (!numbers_ok(q, x, depth + 1))
				return 0;
		} else if (++q->nodes > QUICK_MAX_NODES || depth + 1 > QUICK_MAX_DEPTH ||
			   (x->type == GOJSON_NUMBER && !number_ok(x))) {
			return 0;
		}
	}
	return 1;
}

static int schema_ok(quick *q, const node *s, int depth);

/* an object whose values are schemas; regex_keys: its keys are regexes */
static int schema_map_ok(quick *q, const node *m, int regex_keys, int depth)
{
	if (m->type != GOJSON_OBJECT)
		return 0;
	for (size_t i = 0; i < m->n; i++) {
		if (regex_keys && !format_ok("regex", &m->items[2 * i]))
			return 0;
		if (!schema_ok(q, &m->items[2 * i + 1], depth + 1))
			return 0;
	}
	return 1;
}

/* a non-empty array of schemas */
static int schema_array_ok(quick *q, const node *a, int depth)
{
	if (a->type != GOJSON_ARRAY || a->n == 0)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (!schema_ok(q, &a->items[i], depth + 1))
			return 0;
	return 1;
}

/* "required" and the arrays of "dependencies"/"dependentRequired" */
static int string_array_ok(const quick *q, const node *v)
{
	return is_unique_scalars(v, 1, q->draft == 4);
}

/* the value of "dependencies": schemas or string arrays */
static int dependencies_ok(quick *q, const node *m, int depth)
{
	if (m->type != GOJSON_OBJECT)
		return 0;
	for (size_t i = 0; i < m->n; i++) {
		const node *v = &m->items[2 * i + 1];
		if (v->type == GOJSON_ARRAY ? !string_array_ok(q, v) : !schema_ok(q, v, depth + 1))
			return 0;
	}
	return 1;
}

static int string_arrays_ok(const quick *q, const node *m)
{
	if (m->type != GOJSON_OBJECT)
		return 0;
	for (size_t i = 0; i < m->n; i++)
		if (!string_array_ok(q, &m->items[2 * i + 1]))
			return 0;
	return 1;
}

/* "$id" (2019-09 on: no fragment but an empty one, pattern ^[^#]*#?$) */
static int id_ok(const node *v)
{
	const char *hash;
	if (!format_ok("uri-reference", v))
		return 0;
	hash = memchr(v->text, '#', v->len);
	return !hash || hash == v->text + v->len - 1;
}

enum kind {
	K_STRING, K_COUNT, K_FLAG, K_SCHEMA, K_SCHEMAS, K_MAP, K_ANY, K_EXAMPLES, K_ENUM, K_TYPE, K_REQUIRED,
	K_DEP_REQUIRED, K_DEPENDENCIES, K_NUMBER, K_EXCLUSIVE, K_MULTIPLE_OF, K_PATTERN, K_PATTERN_PROPS,
	K_ADDITIONAL, K_ITEMS, K_SCHEMA_URI, K_REF, K_DOLLAR_ID, K_ID,
	K_UNSURE /* named by a meta-schema, not modelled here */
};

/* every keyword a meta-schema of the five drafts names */
static const struct keyword {
	const char *name;
	unsigned char len, kind;
} keywords[] = {
#define K(s, k) {s, sizeof s - 1, k}
	K("type", K_TYPE), K("description", K_STRING), K("properties", K_MAP), K("default", K_ANY),
	K("items", K_ITEMS), K("enum", K_ENUM), K("required", K_REQUIRED), K("additionalProperties", K_ADDITIONAL),
	K("$ref", K_REF), K("title", K_STRING), K("format", K_STRING), K("pattern", K_PATTERN),
	K("minimum", K_NUMBER), K("maximum", K_NUMBER), K("$schema", K_SCHEMA_URI), K("$id", K_DOLLAR_ID),
	K("$defs", K_MAP), K("definitions", K_MAP), K("examples", K_EXAMPLES), K("const", K_ANY),
	K("anyOf", K_SCHEMAS), K("oneOf", K_SCHEMAS), K("allOf", K_SCHEMAS), K("not", K_SCHEMA),
	K("minLength", K_COUNT), K("maxLength", K_COUNT), K("minItems", K_COUNT), K("maxItems", K_COUNT),
	K("minProperties", K_COUNT), K("maxProperties", K_COUNT), K("minContains", K_COUNT),
	K("maxContains", K_COUNT), K("uniqueItems", K_FLAG), K("readOnly", K_FLAG), K("writeOnly", K_FLAG),
	K("deprecated", K_FLAG), K("$comment", K_STRING), K("contentMediaType", K_STRING),
	K("contentEncoding", K_STRING), K("contains", K_SCHEMA), K("propertyNames", K_SCHEMA), K("if", K_SCHEMA),
	K("then", K_SCHEMA), K("else", K_SCHEMA), K("unevaluatedItems", K_SCHEMA),
	K("unevaluatedProperties", K_SCHEMA), K("contentSchema", K_SCHEMA), K("prefixItems", K_SCHEMAS),
	K("dependentSchemas", K_MAP), K("dependentRequired", K_DEP_REQUIRED), K("dependencies", K_DEPENDENCIES),
	K("exclusiveMinimum", K_EXCLUSIVE), K("exclusiveMaximum", K_EXCLUSIVE), K("multipleOf", K_MULTIPLE_OF),
	K("patternProperties", K_PATTERN_PROPS), K("additionalItems", K_ADDITIONAL), K("id", K_ID),
	K("$anchor", K_UNSURE), K("$dynamicAnchor", K_UNSURE), K("$dynamicRef", K_UNSURE),
	K("$recursiveAnchor", K_UNSURE), K("$recursiveRef", K_UNSURE), K("$vocabulary", K_UNSURE),
#undef K
};

/* one keyword of a schema object: 1 when the meta-schemas surely accept
 * its value, 0 when not sure */
static int keyword_ok(quick *q, const node *obj, const node *k, const node *v, int depth)
{
	const struct keyword *kw = NULL;
	for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
		if (keywords[i].len == k->len && memcmp(keywords[i].name, k->text, k->len) == 0) {
			kw = &keywords[i];
			break;
		}
	if (!kw)
		return 1; /* no meta-schema names it: unconstrained */
	switch ((enum kind)kw->kind) {
	case K_STRING: return is_str(v);
	case K_COUNT: return is_nonneg_int(v);
	case K_FLAG: return v->type == GOJSON_TRUE || v->type == GOJSON_FALSE;
	case K_SCHEMA: return schema_ok(q, v, depth + 1);
	case K_SCHEMAS: return schema_array_ok(q, v, depth);
	case K_MAP: return schema_map_ok(q, v, 0, depth);
	case K_ANY: return 1;
	case K_EXAMPLES: return v->type == GOJSON_ARRAY;
	case K_ENUM: return is_unique_scalars(v, 0, 1);
	case K_TYPE: return type_ok(v);
	case K_REQUIRED: return string_array_ok(q, v);
	case K_DEP_REQUIRED: return string_arrays_ok(q, v);
	case K_DEPENDENCIES: return dependencies_ok(q, v, depth);
	case K_NUMBER: return v->type == GOJSON_NUMBER;
	case K_EXCLUSIVE:
		if (q->draft != 4)
			return v->type == GOJSON_NUMBER;
		/* draft-04: a boolean, and its bound beside it */
		return (v->type == GOJSON_TRUE || v->type == GOJSON_FALSE) &&
		       has_key(obj, k->text[10] == 'i' ? "minimum" : "maximum");
	case K_MULTIPLE_OF: return is_positive_number(v);
	case K_PATTERN: return format_ok("regex", v);
	case K_PATTERN_PROPS: return schema_map_ok(q, v, 1, depth);
	case K_ADDITIONAL: return v->type == GOJSON_TRUE || v->type == GOJSON_FALSE || schema_ok(q, v, depth + 1);
	case K_ITEMS:
		return v->type == GOJSON_ARRAY ? q->draft != 2020 && schema_array_ok(q, v, depth)
					       : schema_ok(q, v, depth + 1);
	case K_SCHEMA_URI: return format_ok("uri", v);
	case K_REF: return format_ok("uri-reference", v);
	case K_DOLLAR_ID: return id_ok(v);
	case K_ID: return is_str(v);
	case K_UNSURE: return 0;
	}
	return 0;
}

static int schema_ok(quick *q, const node *s, int depth)
{
	if (++q->nodes > QUICK_MAX_NODES || depth > QUICK_MAX_DEPTH)
		return 0;
	if (s->type == GOJSON_TRUE || s->type == GOJSON_FALSE)
		return q->draft != 4;
	if (s->type != GOJSON_OBJECT)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (!keyword_ok(q, s, &s->items[2 * i], &s->items[2 * i + 1], depth))
			return 0;
	return 1;
}

int jsonschema_meta_quick(const gojson_node *root, int draft)
{
	quick q = {draft, 0};
	/* the reader counted the tree's values, their depth and the numbers
	 * worth a look: the walk of numbers_ok only when there are some */
	const gojson_tree_info *ti = gojson_tree_info_of(root);
	if (ti->values > QUICK_MAX_NODES || ti->max_depth - 1 > QUICK_MAX_DEPTH)
		return 0;
	if (ti->long_numbers && !numbers_ok(&q, root, 0))
		return 0;
	q.nodes = 0;
	return schema_ok(&q, root, 0);
}
