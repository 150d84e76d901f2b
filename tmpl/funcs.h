/* tmpl/funcs.h — how template functions (and methods of objects) are
 * declared, registered and called, plus Go/Sprig conversion helpers.
 *
 * Adding a function family (e.g. Sprig's string functions):
 *   1. Create tmpl/funcs_strings.c with
 *        static int fn_upper(tmpl_call *c) { ... c->result = ...; return 0; }
 *        const tmpl_func_def tmpl_funcs_strings[] = {
 *            {"upper", fn_upper, "s", 0},
 *            {NULL, NULL, NULL, 0},
 *        };
 *   2. Declare it below (extern const tmpl_func_def tmpl_funcs_strings[];) and
 *      add one line `tmpl_funcs_strings,` to the list in tmpl/funcs_registry.c
 *      (families later in that list override earlier ones with the same name,
 *      as Helm overrides Sprig).
 *   3. Add the .c file to tmpl_libbhtmpl_a_SOURCES in tmpl/local.mk.
 *
 * Parameters are declared Go-style by a string of type codes; the engine
 * converts and checks arguments exactly as text/template does for a Go
 * function of that signature (literal and value errors such as "wrong type
 * for value; expected string; got int" or "wrong number of args for X: want
 * 2 got 1" come from the engine, not from the function):
 *   'a' interface{}   (any value; a missing value arrives as TMPL_NIL)
 *   's' string        'b' bool        'f' float64
 *   'i' int           'I' int64       'U' uint64
 *   'l' []interface{} 'm' map[string]interface{}
 *   'w' io.Writer     (nothing a template holds is one; nil is)
 *   'r' reflect.Value (raw: INVALID and NIL are passed through untouched,
 *       as Go's builtins len/index/eq receive them)
 *   a trailing '*' makes the last parameter variadic ("s*" = ...string).
 * A function reports failure by returning tmpl_call_errorf(c, ...); the
 * engine prints it as Go does: `error calling NAME: MSG`. */
#ifndef TMPL_FUNCS_H
#define TMPL_FUNCS_H

#include <stdint.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "tmpl/value.h"

typedef struct tmpl_engine tmpl_engine;
typedef struct tmpl_call tmpl_call;
typedef int (*tmpl_func_fn)(tmpl_call *c);

struct tmpl_call {
	tmpl_engine *engine;
	tmpl_arena *arena;       /* allocate results here */
	const char *name;        /* the name the template used */
	int argc;
	const tmpl_value *argv;  /* already converted to the declared types */
	const tmpl_value *self;  /* receiver, for object methods; else NULL */
	void *data;              /* tmpl_func_def.data / tmpl_method.data */
	tmpl_value result;       /* starts INVALID; set it before returning 0 */
	bh_error *err;           /* filled by tmpl_call_errorf */
	void *exec;              /* engine internals (include/tpl use it) */
};

typedef struct tmpl_func_def {
	const char *name;
	tmpl_func_fn fn;
	const char *params;      /* type codes, see above */
	void *data;              /* passed as tmpl_call.data */
} tmpl_func_def;

/* Sets the function's error message; returns BH_EEXEC. */
int tmpl_call_errorf(tmpl_call *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- objects: Go structs/pointers exposed to templates ---- */

typedef struct tmpl_method {
	const char *name;
	tmpl_func_fn fn;         /* called with c->self = the receiver */
	const char *params;
	void *data;
} tmpl_method;

struct tmpl_class {
	const char *gotype;      /* %T, e.g. "*semver.Version", "time.Time" */
	int pointer;             /* a Go pointer: eq compares identity */
	const tmpl_method *methods; /* {NULL} terminated; may be NULL */
	/* Field .name of the object: 0 with *out set, or BH_ENOTFOUND. NULL
	 * means no fields. Methods are looked up before fields, as in Go. */
	int (*field)(const tmpl_value *self, const char *name, tmpl_value *out);
	/* %v form (Go's String() when the type has one, else the struct
	 * printing {a b}); plus = %+v. */
	void (*format)(bh_buf *out, const tmpl_value *self, int plus);
	/* encoding/json view; NULL means "{}". New reference or NULL+err. */
	json_t *(*to_json)(const tmpl_value *self, bh_error *err);
	/* 1 when to_json builds a Go struct: its object keys are inserted in
	 * Go field order and an encoder must keep that order (not sort). */
	int json_struct;
	/* Optional: the Go struct's fields in declaration order (unexported
	 * ones too; `field` must answer every name). When set, fmt prints the
	 * object as Go prints a struct ({a b}, %+v {A:a B:b}, %#v T{A:"a"},
	 * other verbs applied to each field) unless `format` is a value
	 * String() method (ptr_stringer 0). */
	const char *const *go_fields;
	/* 1 when String() has a pointer receiver: fmt (print, printf, Sprig's
	 * toString) of the value prints the struct, only the template's own
	 * output of an addressable one (tmpl_value.addr) uses `format`. */
	int ptr_stringer;
	/* 1 when every method has a pointer receiver: a value of this
	 * (non-pointer) type has them only while addressable */
	int ptr_methods;
	/* deepCopy (copystructure): a copy with the exported fields only, the
	 * unexported ones zero; 0, or BH_ENOMEM. NULL: the object itself
	 * (nothing exported to lose, and templates cannot change it). */
	int (*deep_copy)(tmpl_arena *a, const tmpl_value *self, tmpl_value *out);
};

struct tmpl_object {
	const tmpl_class *cls;
	void *data;              /* class-specific, arena- or statically owned */
};

/* New object in the arena (data is stored as given). NULL on failure. */
tmpl_object *tmpl_object_new(tmpl_arena *a, const tmpl_class *cls, void *data);
/* The object's class if v is an object of exactly that class, else NULL. */
void *tmpl_object_data(const tmpl_value *v, const tmpl_class *cls);

/* ---- registry ---- */

/* The families in tmpl/funcs_registry.c, NULL-terminated, lowest priority
 * first. */
extern const tmpl_func_def *const tmpl_func_families[];
/* Families (declare yours here). */
extern const tmpl_func_def tmpl_funcs_builtin[]; /* Go text/template */
extern const tmpl_func_def tmpl_funcs_helm[];    /* include tpl required fail lookup */
extern const tmpl_func_def tmpl_funcs_core[];    /* default int (used by the language vectors) */
/* Sprig families: strings, regex, conversion, math, defaults/reflection, lists, dicts, paths/urls */
extern const tmpl_func_def tmpl_funcs_strings[];  /* trim upper title substr wrap quote split join ... */
extern const tmpl_func_def tmpl_funcs_reflect[]; /* default empty coalesce ternary typeOf kindOf deepEqual deepCopy ... */
extern const tmpl_func_def tmpl_funcs_dicts[];   /* dict get set dig keys pick merge mergeOverwrite ... */
extern const tmpl_func_def tmpl_funcs_lists[];   /* list first rest append concat uniq has compact chunk ... */
extern const tmpl_func_def tmpl_funcs_math[];     /* add sub mul div mod max min until seq randInt addf divf round ... */
extern const tmpl_func_def tmpl_funcs_conv[];     /* atoi int int64 float64 toDecimal */
extern const tmpl_func_def tmpl_funcs_paths[];    /* base dir clean ext isAbs os* urlParse urlJoin */
extern const tmpl_func_def tmpl_funcs_regex[];    /* regexMatch regexFind* regexReplaceAll* regexSplit regexQuoteMeta */
/* Sprig/Helm families (data formats, encodings, crypto, dates, semver). */
extern const tmpl_func_def tmpl_funcs_json[];     /* toJson fromJson toPrettyJson toRawJson ... */
extern const tmpl_func_def tmpl_funcs_yaml[];     /* toYaml fromYaml toYamlPretty toToml fromToml ... */
extern const tmpl_func_def tmpl_funcs_semver[];   /* semver semverCompare */
extern const tmpl_func_def tmpl_funcs_encoding[]; /* b64enc b64dec b32enc b32dec sha*sum adler32sum */
extern const tmpl_func_def tmpl_funcs_dates[];    /* now date toDate dateModify duration ... */
extern const tmpl_func_def tmpl_funcs_crypto[];   /* bcrypt genCA encryptAES uuidv4 getHostByName ... */

/* Finds a registered function by name (last family wins); NULL if none. */
const tmpl_func_def *tmpl_func_find(const char *name);

/* ---- Go / Sprig conversions (spf13/cast semantics as Sprig uses them) ---- */

/* cast.ToInt64E: ints, floats (truncated), bools, strings parsed with base
 * prefixes (0x, 0o, 0b, leading 0 = octal; "3.0" accepted), nil -> 0.
 * Returns 0 on success or -1 when unconvertible (*out = 0, as Sprig's
 * non-E wrappers then use). */
int tmpl_to_int64(const tmpl_value *v, int64_t *out);
/* cast.ToFloat64E. */
int tmpl_to_float64(const tmpl_value *v, double *out);
/* cast.ToBoolE. */
int tmpl_to_bool(const tmpl_value *v, int *out);
/* Sprig's strval(): strings as-is, []byte as text, nil as "<nil>",
 * anything else fmt.Sprintf("%v"). Appends to out; returns 0 or a GOFMT_E*
 * code (tmpl/gofmt.h: a value that contains itself, or text too large). */
int tmpl_to_string(bh_buf *out, const tmpl_value *v);
/* Same, as an arena string value (TMPL_INVALID on a GOFMT_E* failure). */
tmpl_value tmpl_to_string_value(tmpl_arena *a, const tmpl_value *v);
/* Sprig's list coercion (toStrings/join): a list's items, or NULL. */
const tmpl_list *tmpl_as_list(const tmpl_value *v);

#endif
