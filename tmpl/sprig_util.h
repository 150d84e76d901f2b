/* tmpl/sprig_util.h — helpers shared by the Sprig function families
 * (tmpl/funcs_*.c): reflect.DeepEqual, deep copies,
 * result helpers and a CSPRNG. Private to tmpl/. */
#ifndef TMPL_SPRIG_UTIL_H
#define TMPL_SPRIG_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "tmpl/funcs.h"
#include "tmpl/value.h"

/* Largest string a Sprig function builds (Go would try any size; a chart
 * must not be able to make the renderer allocate without bound). */
#define SPRIG_MAX_STRING ((size_t)128 << 20)
/* Nesting depth of maps/lists that deepCopy/deepEqual/merge will walk
 * (values can be made cyclic with `set $d "self" $d`). */
#define SPRIG_MAX_DEPTH 2000

/* reflect.DeepEqual(a, b) (cycles compare equal, as in Go); values nested
 * deeper than SPRIG_MAX_DEPTH compare unequal. */
int sprig_deep_equal(const tmpl_value *a, const tmpl_value *b);
/* Deep copy of maps and lists (types kept); other values as they are.
 * 0, or BH_ELIMIT with the call's error set (memory, or nesting deeper
 * than SPRIG_MAX_DEPTH). */
int sprig_deep_copy(tmpl_call *c, const tmpl_value *v, tmpl_value *out);
/* 0 while b is within SPRIG_MAX_STRING, else BH_ELIMIT with the error set. */
int sprig_check_size(tmpl_call *c, const bh_buf *b);

/* Sets c->result to the buffer's text and gives the buffer back to the
 * engine (tmpl_buf_put: one from tmpl_buf_get is used again, a fresh one
 * is kept or freed). 0, or BH_ELIMIT (with the error set) when the arena
 * is exhausted. */
int sprig_ret_buf(tmpl_call *c, bh_buf *b);
/* Sets the call's error to an arena/limit failure; returns BH_ELIMIT. */
int sprig_oom(tmpl_call *c);
/* New list/map in the call's arena; NULL (error set) on failure. */
tmpl_list *sprig_list(tmpl_call *c, const char *gotype, size_t cap);
tmpl_map *sprig_map(tmpl_call *c, const char *gotype);

/* Result of Helm's fromJson/fromJsonArray/fromYaml/fromYamlArray/fromToml:
 * j is the decoded value (taken: freed here), or NULL on failure with msg
 * saying why. Sets c->result to j's template value (JSON null as a nil
 * []interface{} when list), or on failure to {"Error": msg} (list = 0) or
 * [msg] (list = 1), as Helm returns errors. 0, or the call's error when out
 * of memory. */
int sprig_unmarshal_result(tmpl_call *c, json_t *j, int list, const char *msg);
/* Fills p[0..n) from the kernel CSPRNG (getrandom, pooled). 0 or -1. */
int sprig_random(void *p, size_t n);
/* Uniform random integer in [0, n) (n > 0). 0 or -1. */
int sprig_random_below(uint64_t n, uint64_t *out);

/* Sprig's strslice(): the []string view of a list, []byte, scalar or nil
 * (nil elements dropped). Returns a "[]string" list or NULL on failure.
 * A "[]string" list is returned as is (not copied), as Go does. */
tmpl_list *sprig_strslice(tmpl_call *c, const tmpl_value *v);

#endif
