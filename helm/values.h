/* helm/values.h — Helm's values handling on jansson trees:
 *  - values files: multi-document YAML merged in order (loader.LoadValues);
 *  - user values: `-f` files merged in order, then --set-json, --set,
 *    --set-string, --set-file, --set-literal (pkg/cli/values MergeValues);
 *  - coalescing with chart defaults and sub-charts (pkg/chart/common/util
 *    coalesce.go): chart defaults < parent values < user values, `null`
 *    deletes a key, maps merge, lists and scalars replace, `global` flows
 *    down, each sub-chart sees the parent's `<name>:` section.
 * Numbers: json_real = Go float64 (values files, --set-json), json_integer =
 * int64 (--set). Warnings Helm logs ("cannot overwrite table with non
 * table ...") go to an optional callback. */
#ifndef BH_VALUES_H
#define BH_VALUES_H

#include <jansson.h>
#include <stddef.h>

#include "helm/chart.h"
#include "helm/strvals.h"
#include "lib/buf.h"
#include "lib/error.h"

typedef void (*values_warn_fn)(void *ud, const char *msg);

/* LoadValues: one or more YAML documents, merged. *out new object. Errors
 * "cannot unmarshal yaml document: ..." / "error reading yaml document: ...". */
int values_load_yaml(const char *text, size_t len, json_t **out, bh_error *err);

/* MergeMaps(a, b) of the values options: b wins, nested maps merge. New. */
json_t *values_merge_maps(const json_t *a, const json_t *b);

/* One user-supplied source, applied in Helm's order by values_compose(). */
typedef struct values_file {
	const char *name;   /* for messages ("failed to parse NAME: ...") */
	const char *data;
	size_t len;
} values_file;

typedef struct values_options {
	const values_file *files; size_t nfiles;         /* -f, in order */
	const char *const *set_json; size_t nset_json;   /* --set-json */
	const char *const *set; size_t nset;             /* --set */
	const char *const *set_string; size_t nset_string; /* --set-string */
	const char *const *set_file; size_t nset_file;   /* --set-file */
	const char *const *set_literal; size_t nset_literal; /* --set-literal */
	strvals_reader file_reader; void *file_ctx;      /* for --set-file */
} values_options;

/* MergeValues: the user values (new object in *out). Messages as Helm's. */
int values_compose(const values_options *o, json_t **out, bh_error *err);

/* CoalesceValues(chart, vals): deep copies vals, returns the coalesced tree
 * (new) in *out. merge=1 is MergeValues (nulls kept). */
int values_coalesce(const chart *c, const json_t *vals, int merge,
		    values_warn_fn warn, void *ud, json_t **out, bh_error *err);

/* The same for a caller that only reads the result while c's values stay
 * as they are (Helm's read-only CoalesceValues for dependency conditions
 * and tags): *out_view (new reference) shares the subtrees the merge leaves
 * unchanged with c's values trees instead of copying them, so neither it
 * nor c's values may be changed while it is held. */
int values_coalesce_view(const chart *c, const json_t *vals, int merge,
			 values_warn_fn warn, void *ud, json_t **out_view, bh_error *err);

/* The same for a caller that reads no chart values after it (it renders c
 * once): each chart's values tree is merged in place of its copy (only
 * nodes other references reach are copied), and every chart of c is left
 * with NULL values. Same result as values_coalesce. */
int values_coalesce_take(chart *c, const json_t *vals, int merge,
			 values_warn_fn warn, void *ud, json_t **out, bh_error *err);

/* The same where only c's own values are read no more (the caller replaces
 * them): c's tree is merged in place and left NULL, its sub-charts' are
 * copied as values_coalesce does. */
int values_coalesce_take_top(chart *c, const json_t *vals, int merge,
			     values_warn_fn warn, void *ud, json_t **out, bh_error *err);

/* CoalesceTables / MergeTables(dst, src): dst authoritative; modifies dst
 * (and, like Helm, may modify src). Returns dst (borrowed) or src if dst
 * is NULL. */
json_t *values_coalesce_tables(json_t *dst, json_t *src, int merge, values_warn_fn warn, void *ud);

/* Values.Table("a.b"): borrowed object or NULL. */
json_t *values_table(const json_t *v, const char *path);
/* The same; when NULL, why (if not NULL) gets Helm's ErrNoTable text for
 * the first name that is missing or not a table: "\"b\" is not a table". */
json_t *values_table_why(const json_t *v, const char *path, bh_buf *why);

#endif
