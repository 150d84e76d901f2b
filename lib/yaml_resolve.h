/* lib/yaml_resolve.h — internal to lib/ (yaml*, gojson, jsonschema): goyaml.v2's
 * scalar typing (resolve.go) and the Go string/number helpers the YAML
 * reader, the YAML printer and the schema validator share. */
#ifndef BH_YAML_RESOLVE_H
#define BH_YAML_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

enum yres_kind {
	YR_NULL, YR_BOOL, YR_INT, YR_UINT, YR_FLOAT, YR_STR, YR_TIMESTAMP,
	YR_BINARY, YR_MERGE, YR_OTHER /* unresolvable explicit tag: kept as text */
};

typedef struct yres {
	enum yres_kind kind;
	int b;
	int64_t i;
	uint64_t u;
	double f;
} yres;

/* goyaml.v2 resolve(tag, s): tag is "" for a plain untagged scalar or the
 * long form ("tag:yaml.org,2002:int"). Returns 0, or -1 when an explicit tag
 * does not fit the text (r->kind then says what the text resolved to). */
int yaml_resolve(const char *tag, const char *s, size_t n, yres *r);
/* 0 when a plain untagged scalar that starts with byte c resolves to a
 * string whatever follows (yaml_resolve's answer, known without the call):
 * goyaml.v2's resolve hints are only digits, '+', '-', '.', '~' and the
 * first letters of its bool and null words (y n t f o, either case). */
static inline int yaml_plain_may_resolve(unsigned char c)
{
	switch (c) {
	case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
	case '+': case '-': case '.': case '~':
	case 'y': case 'Y': case 'n': case 'N': case 't': case 'T': case 'f': case 'F': case 'o': case 'O':
		return 1;
	default:
		return 0;
	}
}
/* The long tag of a resolved kind, for messages. */
const char *yres_tag(const yres *r);
/* goyaml.v2 isBase60Float (such strings are quoted on output). */
int yaml_is_base60_float(const char *s, size_t n);

/* 1 if s[0..n) is valid UTF-8 by Go's rules. */
int utf8_check_go(const char *s, size_t n);
/* Appends s with every invalid byte replaced by U+FFFD (Go's json.Marshal). */
void utf8_sanitize_go(bh_buf *out, const char *s, size_t n);
/* Length (1..4) of the rune at s and its value in *r (-1 when invalid, length 1). */
int utf8_rune_go(const unsigned char *s, size_t n, int32_t *r);

/* goyaml's "natural" order of two string map keys given as runes
 * (sorter.go keyList.Less): 1 if a sorts before b. v3 selects yaml.v3's
 * variant (after a digit, a letter sorts before a non-letter). */
int yaml_key_less(const int32_t *a, size_t an, const int32_t *b, size_t bn, int v3);

/* strconv.FormatFloat(v, 'g', -1, 32). */
int go_format_float32_g(char *buf, size_t n, double v);

#endif
