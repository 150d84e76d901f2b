/* tests/unit/test_jsonschema.c — lib/jsonschema against Helm v4.1.4.
 * The table below was produced by running the real `helm template` on a
 * one-template chart per row (values.yaml + values.schema.json as given);
 * `want` is Helm's stderr after its "...following chart(s):\nvec:\n" lines,
 * minus the CLI's final newline. NULL means Helm accepted the values.
 * Helm prints sibling violations in Go map order (it varies between runs),
 * so top-level "- at" blocks are compared as a sorted list. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonschema.h"
#include "lib/jsonschema_internal.h"
#include "lib/yaml.h"
#include "tests/unit/vectors.h"
#include "tests/unit/unit_util.h"

static const struct golden {
	const char *name, *schema, *values, *want;
} goldens[] = {
	{"type-int",
	 "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}",
	 "a: 1.5\n",
	 "- at '/a': got number, want integer\n"},
	{"type-multi",
	 "{\"properties\":{\"a\":{\"type\":[\"string\",\"null\",\"integer\"]}}}",
	 "a: true\n",
	 "- at '/a': got boolean, want null or integer or string\n"},
	{"type-root",
	 "{\"type\":\"array\"}",
	 "a: 1\n",
	 "- at '': got object, want array\n"},
	{"required1",
	 "{\"required\":[\"a\"]}",
	 "b: 1\n",
	 "- at '': missing property 'a'\n"},
	{"required2",
	 "{\"required\":[\"a\",\"b\",\"c\"],\"properties\":{\"x\":{\"required\":[\"y\"]}}}",
	 "c: 1\nx: {}\n",
	 "- at '': missing properties 'a', 'b'\n- at '/x': missing property 'y'\n"},
	{"addl",
	 "{\"additionalProperties\":false,\"properties\":{\"a\":{}}}",
	 "a: 1\nz: 2\nb: 3\n",
	 "- at '': additional properties 'b', 'z' not allowed\n"},
	/* members written out of order: their errors still come sorted by
	 * key (the validator's first, unsorted visit found errors: redone) */
	{"members-order",
	 "{\"properties\":{\"p\":{\"properties\":{\"z\":{\"type\":\"string\"},\"b\":{\"type\":\"string\"},\"m\":{}},\"additionalProperties\":false},\"q\":{\"type\":\"string\"}}}",
	 "q: 1\np:\n  z: 1\n  x: 0\n  m: 0\n  b: 2\n  a: 0\n",
	 "- at '/p': validation failed\n  - at '/p/b': got number, want string\n  - at '/p/z': got number, want string\n"
	 "  - at '/p': additional properties 'a', 'x' not allowed\n- at '/q': got number, want string\n"},
	{"enum-num",
	 "{\"properties\":{\"a\":{\"enum\":[1,2.0,\"x\",null,true]}}}",
	 "a: 3\n",
	 "- at '/a': value must be one of 1, 2.0, 'x', <nil>, true\n"},
	{"enum-one",
	 "{\"properties\":{\"a\":{\"enum\":[\"only\"]}}}",
	 "a: 3\n",
	 "- at '/a': value must be 'only'\n"},
	{"enum-obj",
	 "{\"properties\":{\"a\":{\"enum\":[{\"x\":1},2]}}}",
	 "a: 3\n",
	 "- at '/a': 'enum' failed\n"},
	{"const",
	 "{\"properties\":{\"a\":{\"const\":\"k\"},\"b\":{\"const\":[1]},\"c\":{\"const\":1.50}}}",
	 "a: 3\nb: 2\nc: 2\n",
	 "- at '/a': value must be 'k'\n- at '/b': 'const' failed\n- at '/c': value must be 1.50\n"},
	{"minmax",
	 "{\"properties\":{\"a\":{\"minimum\":5},\"b\":{\"maximum\":1.5},\"c\":{\"exclusiveMinimum\":0},\"d\":{\"exclusiveMaximum\":10},\"e\":{\"multipleOf\":0.1},\"f\":{\"multipleOf\":3}}}",
	 "a: 1\nb: 2000000\nc: 0\nd: 10\ne: 0.35\nf: 7\n",
	 "- at '/b': maximum: got 2×10⁰⁶, want 1.5\n- at '/c': exclusiveMinimum: got 0, want 0\n- at '/d': exclusiveMaximum: got 10, want 10\n- at '/e': multipleOf: got 0.35, want 0.1\n- at '/f': multipleOf: got 7, want 3\n- at '/a': minimum: got 1, want 5\n"},
	{"multipleof-ok",
	 "{\"properties\":{\"e\":{\"multipleOf\":0.1},\"f\":{\"multipleOf\":0.01}}}",
	 "e: 0.3\nf: 19.99\n",
	 NULL},
	{"strings",
	 "{\"properties\":{\"a\":{\"minLength\":3},\"b\":{\"maxLength\":2},\"c\":{\"pattern\":\"^[a-z]+$\"}}}",
	 "a: \"é\"\nb: abc\nc: \"Ab'c\"\n",
	 "- at '/b': maxLength: got 3, want 2\n- at '/c': 'Ab\\'c' does not match pattern '^[a-z]+$'\n- at '/a': minLength: got 1, want 3\n"},
	{"arrays",
	 "{\"properties\":{\"a\":{\"minItems\":2},\"b\":{\"maxItems\":1},\"c\":{\"uniqueItems\":true},\"d\":{\"items\":{\"type\":\"string\"}}}}",
	 "a: [1]\nb: [1,2]\nc: [1, 2, 1, 2]\nd: [x, 1, y, 2]\n",
	 "- at '/b': maxItems: got 2, want 1\n- at '/c': items at 0 and 2 are equal\n- at '/d': validation failed\n  - at '/d/1': got number, want string\n  - at '/d/2': got boolean, want string\n  - at '/d/3': got number, want string\n- at '/a': minItems: got 1, want 2\n"},
	{"allof",
	 "{\"properties\":{\"a\":{\"allOf\":[{\"type\":\"string\"},{\"minimum\":3}]}}}",
	 "a: 1\n",
	 "- at '/a': 'allOf' failed\n  - at '/a': got number, want string\n  - at '/a': minimum: got 1, want 3\n"},
	{"anyof",
	 "{\"properties\":{\"a\":{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":3},{\"required\":[\"x\"]}]}}}",
	 "a: 1\n",
	 NULL},
	{"oneof-none",
	 "{\"properties\":{\"a\":{\"oneOf\":[{\"type\":\"string\"},{\"minimum\":3}]}}}",
	 "a: 1\n",
	 "- at '/a': 'oneOf' failed, none matched\n  - at '/a': got number, want string\n  - at '/a': minimum: got 1, want 3\n"},
	{"oneof-two",
	 "{\"properties\":{\"a\":{\"oneOf\":[{\"type\":\"number\"},{\"minimum\":0}]}}}",
	 "a: 1\n",
	 "- at '/a': 'oneOf' failed, subschemas 0, 1 matched\n"},
	{"not",
	 "{\"properties\":{\"a\":{\"not\":{\"type\":\"number\"}}}}",
	 "a: 1\n",
	 "- at '/a': 'not' failed\n"},
	{"ifthen",
	 "{\"if\":{\"properties\":{\"k\":{\"const\":\"a\"}}},\"then\":{\"required\":[\"x\"]},\"else\":{\"required\":[\"y\"]}}",
	 "k: a\n",
	 "- at '': missing property 'x'\n"},
	{"ifelse",
	 "{\"if\":{\"properties\":{\"k\":{\"const\":\"a\"}},\"required\":[\"k\"]},\"then\":{\"required\":[\"x\"]},\"else\":{\"required\":[\"y\"]}}",
	 "k: b\n",
	 "- at '': missing property 'y'\n"},
	{"ref2020",
	 "{\"$defs\":{\"p\":{\"type\":\"integer\",\"minimum\":1}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/p\"},\"b\":{\"$ref\":\"#/$defs/p\",\"maximum\":0}}}",
	 "a: x\nb: 5\n",
	 "- at '/a': got string, want integer\n- at '/b': maximum: got 5, want 0\n"},
	{"ref7",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"p\":{\"type\":\"integer\",\"minimum\":1}},\"properties\":{\"a\":{\"$ref\":\"#/definitions/p\"},\"b\":{\"$ref\":\"#/definitions/p\",\"maximum\":0}}}",
	 "a: x\nb: 5\n",
	 "- at '/a': got string, want integer\n"},
	{"ref-multi",
	 "{\"$defs\":{\"p\":{\"type\":\"object\",\"required\":[\"x\",\"y\"],\"properties\":{\"z\":{\"type\":\"string\"}}, \"minProperties\": 5}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/p\"}}}",
	 "a: {z: 1}\n",
	 "- at '/a': validation failed\n  - at '/a': minProperties: got 1, want 5\n  - at '/a': missing properties 'x', 'y'\n  - at '/a/z': got number, want string\n"},
	{"nested-group",
	 "{\"properties\":{\"a\":{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"string\"},\"c\":{\"type\":\"string\"}}}}}",
	 "a: {b: 1, c: 2}\n",
	 "- at '/a/b': got number, want string\n- at '/a/c': got number, want string\n"},
	{"patternprops",
	 "{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":{\"type\":\"integer\"}}",
	 "x-a: 1\nb: s\n",
	 "- at '/b': got string, want integer\n- at '/x-a': got number, want string\n"},
	{"deps7",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"dependencies\":{\"a\":[\"b\",\"c\"],\"d\":{\"required\":[\"e\"]}}}",
	 "a: 1\nd: 1\n",
	 "- at '': properties 'b', 'c' required, if 'a' exists\n- at '': missing property 'e'\n"},
	{"depreq",
	 "{\"dependentRequired\":{\"a\":[\"b\"]}}",
	 "a: 1\n",
	 "- at '': properties 'b' required, if 'a' exists\n"},
	{"draft4-excl",
	 "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"properties\":{\"a\":{\"minimum\":5,\"exclusiveMinimum\":true}}}",
	 "a: 5\n",
	 "- at '/a': exclusiveMinimum: got 5, want 5\n"},
	{"propnames",
	 "{\"propertyNames\":{\"maxLength\":3}}",
	 "abcd: 1\n",
	 "- at '': invalid propertyName 'abcd'\n  - at '': maxLength: got 4, want 3\n"},
	{"contains",
	 "{\"properties\":{\"a\":{\"contains\":{\"type\":\"string\"}}}}",
	 "a: [1, 2]\n",
	 "- at '/a': no items match contains schema\n  - at '/a/0': got number, want string\n  - at '/a/1': got number, want string\n"},
	{"mincontains",
	 "{\"properties\":{\"a\":{\"contains\":{\"type\":\"string\"},\"minContains\":2,\"maxContains\":0}}}",
	 "a: [1, x]\n",
	 "- at '/a': min 2 items required to match contains schema, but matched 1 items at 1\n  - at '/a/0': got number, want string\n- at '/a': max 0 items required to match contains schema, but matched 1 items at 1\n"},
	{"prefixitems",
	 "{\"properties\":{\"a\":{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}}}",
	 "a: [1, 2]\n",
	 "- at '/a/0': got number, want string\n- at '/a/0': false schema\n"},
	{"items7",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"properties\":{\"a\":{\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}}}",
	 "a: [1, 2, 3]\n",
	 "- at '/a/0': got number, want string\n- at '/a': last 2 additionalItem(s) not allowed\n"},
	{"false",
	 "{\"properties\":{\"a\":false}}",
	 "a: 1\n",
	 "- at '/a': false schema\n"},
	{"uneval",
	 "{\"properties\":{\"a\":{}},\"unevaluatedProperties\":false,\"allOf\":[{\"properties\":{\"b\":{}}}]}",
	 "a: 1\nb: 2\nc: 3\n",
	 "- at '/c': false schema\n"},
	{"format7",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"properties\":{\"a\":{\"format\":\"email\"},\"b\":{\"format\":\"ipv4\"},\"c\":{\"format\":\"date\"},\"d\":{\"format\":\"uri\"},\"e\":{\"format\":\"hostname\"},\"f\":{\"format\":\"date-time\"},\"g\":{\"format\":\"uuid\"}}}",
	 "a: nope\nb: 1.2.3.256\nc: 2020-13-01\nd: rel/path\ne: -bad\nf: 2020-01-01\ng: abc\n",
	 "- at '/b': '1.2.3.256' is not valid ipv4: decimal must be between 0 and 255\n- at '/c': '2020-13-01' is not valid date: parsing time \"2020-13-01\": month out of range\n- at '/d': 'rel/path' is not valid uri: relative url\n- at '/e': '-bad' is not valid hostname: label starts with hyphen\n- at '/f': '2020-01-01' is not valid date-time: less than 20 characters long\n- at '/g': 'abc' is not valid uuid: must have 5 elements\n- at '/a': 'nope' is not valid email: missing @\n"},
	{"format2020",
	 "{\"properties\":{\"a\":{\"format\":\"email\"}}}",
	 "a: nope\n",
	 NULL},
	{"quote",
	 "{\"properties\":{\"a/b~c\":{\"type\":\"string\"},\"d\":{\"enum\":[\"it's\", \"tab\\there\"]}}}",
	 "a/b~c: 1\nd: x\n",
	 "- at '/d': value must be one of 'it\\'s', 'tab\\there'\n- at '/a~1b~0c': got number, want string\n"},
	{"int64set",
	 "{\"properties\":{\"a\":{\"type\":\"string\"},\"n\":{\"maximum\":5}}}",
	 "a: 1\nn: 10\n",
	 "- at '/a': got number, want string\n"},
	{"minprops",
	 "{\"minProperties\":3,\"maxProperties\":0}",
	 "a: 1\n",
	 "- at '': minProperties: got 1, want 3\n- at '': maxProperties: got 1, want 0\n"},
	{"bigfloat",
	 "{\"properties\":{\"a\":{\"minimum\":1e30}}}",
	 "a: 123456789\n",
	 "- at '/a': minimum: got 1.23456789×10⁰⁸, want 1×10³⁰\n"},
	{"pi",
	 "{\"properties\":{\"a\":{\"prefixItems\":[{},{}],\"items\":{\"type\":\"string\"}}}}",
	 "a: [1, 2, 3, 4]\n",
	 "- at '/a/0': got number, want string\n- at '/a/1': got number, want string\n"},
	{"ui",
	 "{\"properties\":{\"a\":{\"prefixItems\":[{}],\"unevaluatedItems\":false}}}",
	 "a: [1, 2, 3]\n",
	 "- at '/a/1': false schema\n- at '/a/2': false schema\n"},
	{"anyof-uneval",
	 "{\"anyOf\":[{\"properties\":{\"a\":{}}},{\"properties\":{\"b\":{}}}],\"unevaluatedProperties\":false}",
	 "a: 1\nb: 2\nc: 3\n",
	 "- at '/c': false schema\n"},
	{"anchor",
	 "{\"$defs\":{\"x\":{\"$anchor\":\"foo\",\"type\":\"string\"}},\"properties\":{\"a\":{\"$ref\":\"#foo\"}}}",
	 "a: 1\n",
	 "- at '/a': got number, want string\n"},
	{"items7obj",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"properties\":{\"a\":{\"items\":{\"type\":\"string\"}}}}",
	 "a: [1]\n",
	 "- at '/a/0': got number, want string\n"},
	{"num-fmt",
	 "{\"properties\":{\"a\":{\"maximum\":-1e300},\"b\":{\"maximum\":-1e300},\"c\":{\"maximum\":-1e300},\"d\":{\"minimum\":1e30}}}",
	 "a: 1234.5\nb: 0.00001\nc: 1234567.25\nd: -1234\n",
	 "- at '/a': maximum: got 1,234.5, want -1×10³⁰⁰\n- at '/b': maximum: got 1×10⁻⁰⁵, want -1×10³⁰⁰\n- at '/c': maximum: got 1.23456725×10⁰⁶, want -1×10³⁰⁰\n- at '/d': minimum: got -1,234, want 1×10³⁰\n"},
	{"int-fmt",
	 "{\"properties\":{\"b\":{\"maxLength\":10}}}",
	 NULL,
	 "- at '/b': maxLength: got 1,234, want 10\n"},
	{"depschema2020",
	 "{\"dependentSchemas\":{\"a\":{\"required\":[\"q\"]}},\"properties\":{\"r\":{\"$ref\":\"#/$defs/s\"}},\"$defs\":{\"s\":{\"type\":\"object\",\"properties\":{\"t\":{\"const\":1}}}}}",
	 "a: 1\nr: {t: 2}\n",
	 "- at '/r/t': value must be 1\n- at '': missing property 'q'\n"},
	{"ref-chain7",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"a\":{\"$ref\":\"#/definitions/b\"},\"b\":{\"type\":\"object\",\"required\":[\"x\"],\"additionalProperties\":false}},\"properties\":{\"p\":{\"$ref\":\"#/definitions/a\"}}}",
	 "p: {y: 1}\n",
	 "- at '/p': validation failed\n  - at '/p': missing property 'x'\n  - at '/p': additional properties 'true' not allowed\n"},
	{"setint",
	 "{\"properties\":{\"image\":{\"properties\":{\"tag\":{\"type\":\"string\"}}}}}",
	 "image:\n  tag: 1.0\n",
	 "- at '/image/tag': got number, want string\n"},
	{"refarr",
	 "{\"$defs\":{\"s\":{\"type\":\"string\"}},\"properties\":{\"a\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/s\"}}}}",
	 "a: [1, x, 2]\n",
	 "- at '/a/0': got number, want string\n- at '/a/2': got number, want string\n"},
	{"refgroup7",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"o\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"},\"y\":{\"type\":\"string\"}}}},\"properties\":{\"a\":{\"$ref\":\"#/definitions/o\"}}}",
	 "a: {x: 1, y: 2}\n",
	 "- at '/a/x': got number, want string\n"},
	{"idref",
	 "{\"$id\":\"https://example.com/root.json\",\"$defs\":{\"s\":{\"type\":\"string\"}},\"properties\":{\"a\":{\"$ref\":\"https://example.com/root.json#/$defs/s\"}}}",
	 "a: 1\n",
	 "- at '/a': got number, want string\n"},
	{"dynref",
	 "{\"$dynamicAnchor\":\"meta\",\"type\":\"object\",\"properties\":{\"a\":{\"$dynamicRef\":\"#meta\"}},\"additionalProperties\":{\"type\":\"integer\"}}",
	 "a: {b: x}\nc: y\n",
	 "- at '/a/b': got string, want integer\n- at '/c': got boolean, want integer\n"},
	{"ifnothen",
	 "{\"if\":{\"required\":[\"a\"]},\"else\":{\"required\":[\"b\"]}}",
	 "c: 1\n",
	 "- at '': missing property 'b'\n"},
	{"oneof-obj",
	 "{\"properties\":{\"p\":{\"oneOf\":[{\"type\":\"object\",\"required\":[\"a\"]},{\"type\":\"object\",\"required\":[\"b\"]}]}}}",
	 "p: {c: 1}\n",
	 "- at '/p': 'oneOf' failed, none matched\n  - at '/p': missing property 'a'\n  - at '/p': missing property 'b'\n"},
	{"anyof-nested",
	 "{\"properties\":{\"p\":{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"},\"y\":{\"enum\":[1]}}},{\"type\":\"string\"}]}}}",
	 "p: {x: 1, y: 2}\n",
	 "- at '/p': 'anyOf' failed\n  - at '/p/x': got number, want string\n  - at '/p': got object, want string\n"},
	{"not-ref",
	 "{\"$defs\":{\"n\":{\"type\":\"null\"}},\"properties\":{\"a\":{\"not\":{\"$ref\":\"#/$defs/n\"}}}}",
	 "a: ~\n",
	 "- at '/a': 'not' failed\n"},
	{"deep",
	 "{\"properties\":{\"a\":{\"properties\":{\"b\":{\"properties\":{\"c\":{\"items\":{\"properties\":{\"d\":{\"type\":\"boolean\"}}}}}}}}}}",
	 "a: {b: {c: [{d: 1}, {d: true}, {d: x}]}}\n",
	 "- at '/a/b/c/0/d': got number, want boolean\n- at '/a/b/c/2/d': got string, want boolean\n"},
	{"minitems-zero",
	 "{\"properties\":{\"a\":{\"type\":\"array\",\"minItems\":1},\"b\":{\"type\":\"object\",\"minProperties\":1}}}",
	 "a: []\nb: {}\n",
	 "- at '/a': minItems: got 0, want 1\n- at '/b': minProperties: got 0, want 1\n"},
	{"mult-int",
	 "{\"properties\":{\"a\":{\"type\":\"integer\",\"multipleOf\":2},\"b\":{\"multipleOf\":0.01},\"c\":{\"multipleOf\":1e-3}}}",
	 "a: 3\nb: 1.005\nc: 0.0015\n",
	 "- at '/b': multipleOf: got 1.005, want 0.01\n- at '/c': multipleOf: got 0.0015, want 0.001\n- at '/a': multipleOf: got 3, want 2\n"},
	{"const-null",
	 "{\"properties\":{\"a\":{\"const\":null},\"b\":{\"const\":false}}}",
	 "a: 1\nb: 0\n",
	 "- at '/a': value must be <nil>\n- at '/b': value must be false\n"},
	{"enum-float",
	 "{\"properties\":{\"a\":{\"enum\":[1.0, 2.5, 1e2]}}}",
	 "a: 3\n",
	 "- at '/a': value must be one of 1.0, 2.5, 1e2\n"},
	{"enum-match-int",
	 "{\"properties\":{\"a\":{\"enum\":[1.0, 2]}}}",
	 "a: 1\n",
	 NULL},
	{"type-int-float",
	 "{\"properties\":{\"a\":{\"type\":\"integer\"}}}",
	 "a: 1.0\n",
	 NULL},
	{"pattern-unicode",
	 "{\"properties\":{\"a\":{\"pattern\":\"^\\\\p{L}+$\"},\"b\":{\"pattern\":\"^\\\\d+$\"},\"c\":{\"pattern\":\"^.$\"}}}",
	 "a: \"é1\"\nb: \"١٢\"\nc: \"é\"\n",
	 "- at '/a': 'é1' does not match pattern '^\\\\p{L}+$'\n- at '/b': '١٢' does not match pattern '^\\\\d+$'\n"},
	{"pattern-dollar",
	 "{\"properties\":{\"a\":{\"pattern\":\"^x$\"}}}",
	 "a: \"x\\n\"\n",
	 "- at '/a': 'x\\n' does not match pattern '^x$'\n"},
	/* Go's regexp, not PCRE2's: \s and [\s] leave out \v, [\S] holds it, a
	 * group name may come twice (helm 4.1.4) */
	{"pattern-go-syntax",
	 "{\"properties\":{\"a\":{\"pattern\":\"^x\\\\sy$\"},\"b\":{\"pattern\":\"^x[\\\\s]y$\"},\"c\":{\"pattern\":\"^x[^\\\\S]y$\"},\"d\":{\"pattern\":\"^((?<n>a)|(?<n>b))$\"},\"e\":{\"pattern\":\"^x[\\\\S]y$\"}}}",
	 "a: \"x\\vy\"\nb: \"x\\vy\"\nc: \"x\\vy\"\nd: \"b\"\ne: \"x\\vy\"\n",
	 "- at '/a': 'x\\vy' does not match pattern '^x\\\\sy$'\n- at '/b': 'x\\vy' does not match pattern '^x[\\\\s]y$'\n- at '/c': 'x\\vy' does not match pattern '^x[^\\\\S]y$'\n"},
	{"required-empty",
	 "{\"required\":[]}",
	 "a: 1\n",
	 NULL},
	{"bool-true-root",
	 "true",
	 "a: 1\n",
	 NULL},
	{"bool-false-root",
	 "false",
	 "a: 1\n",
	 "- at '': false schema\n"},
	{"uniq-obj",
	 "{\"properties\":{\"a\":{\"uniqueItems\":true}}}",
	 "a: [{x: 1, y: [1]}, {y: [1], x: 1.0}]\n",
	 "- at '/a': items at 0 and 1 are equal\n"},
	{"nested-allof-ref",
	 "{\"$defs\":{\"a\":{\"allOf\":[{\"required\":[\"x\"]},{\"required\":[\"y\"]}]}},\"$ref\":\"#/$defs/a\"}",
	 "z: 1\n",
	 "- at '': 'allOf' failed\n  - at '': missing property 'x'\n  - at '': missing property 'y'\n"},
	{"recref2019",
	 "{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$recursiveAnchor\":true,\"type\":\"object\",\"additionalProperties\":{\"$recursiveRef\":\"#\"}}",
	 "a: {b: 1}\n",
	 "- at '/a/b': got number, want object\n"},
	{"draft6-contains",
	 "{\"$schema\":\"http://json-schema.org/draft-06/schema#\",\"properties\":{\"a\":{\"contains\":{\"const\":5}}}}",
	 "a: [1, 2]\n",
	 "- at '/a': no items match contains schema\n  - at '/a/0': value must be 5\n  - at '/a/1': value must be 5\n"},
	{"draft4-id",
	 "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"definitions\":{\"s\":{\"id\":\"#str\",\"type\":\"string\"}},\"properties\":{\"a\":{\"$ref\":\"#str\"}}}",
	 "a: 1\n",
	 "- at '/a': got number, want string\n"},
	{"fmt-more",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"properties\":{\"a\":{\"format\":\"ipv6\"},\"b\":{\"format\":\"time\"},\"c\":{\"format\":\"duration\"},\"d\":{\"format\":\"json-pointer\"},\"e\":{\"format\":\"uri-reference\"},\"f\":{\"format\":\"regex\"},\"g\":{\"format\":\"unknown-x\"},\"h\":{\"format\":\"date\"}}}",
	 "a: \"1:2\"\nb: \"25:00:00Z\"\nc: P1X\nd: a/b\ne: \"a b\"\nf: \"(\"\ng: z\nh: \"2020-1-01\"\n",
	 "- at '/c': 'P1X' is not valid duration: invalid unit 'X'\n- at '/d': 'a/b' is not valid json-pointer: not starting with /\n- at '/f': '(' is not valid regex: error parsing regexp: missing closing ): `(`\n- at '/h': '2020-1-01' is not valid date: parsing time \"2020-1-01\" as \"2006-01-02\": cannot parse \"1-01\" as \"01\"\n- at '/a': '1:2' is not valid ipv6: ParseAddr(\"1:2\"): address string too short\n- at '/b': '25:00:00Z' is not valid time: hour/min/sec out of range\n"},
	{"format-ipv6",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"k0\": {\"format\": \"ipv6\"}, \"k1\": {\"format\": \"ipv6\"}, \"k2\": {\"format\": \"ipv6\"}, \"k3\": {\"format\": \"ipv6\"}, \"k4\": {\"format\": \"ipv6\"}, \"k5\": {\"format\": \"ipv6\"}, \"k6\": {\"format\": \"ipv6\"}, \"k7\": {\"format\": \"ipv6\"}, \"k8\": {\"format\": \"ipv6\"}, \"k9\": {\"format\": \"ipv6\"}, \"k10\": {\"format\": \"ipv6\"}, \"k11\": {\"format\": \"ipv6\"}, \"k12\": {\"format\": \"ipv6\"}, \"k13\": {\"format\": \"ipv6\"}, \"k14\": {\"format\": \"ipv6\"}}}",
	 "{\"k0\": \"1:2\", \"k1\": \"::g\", \"k2\": \"1::2::3\", \"k3\": \"1:2:3:4:5:6:7:8:9\", \"k4\": \":::\", \"k5\": \"fe80::1%eth0\", \"k6\": \"1.2.3.4\", \"k7\": \"::1\", \"k8\": \"::ffff:1.2.3.4\", \"k9\": \"1:2:3:4:5:6:7:8\", \"k10\": \"12345::\", \"k11\": \"g::\", \"k12\": \"::1.2.3\", \"k13\": \"1:2:3:4:5:6:7::\", \"k14\": \"\"}",
	 "- at '/k12': '::1.2.3' is not valid ipv6: ParseAddr(\"::1.2.3\"): IPv4 address too short\n- at '/k6': '1.2.3.4' is not valid ipv6: missing colon\n- at '/k10': '12345::' is not valid ipv6: ParseAddr(\"12345::\"): each group must have 4 or less digits (at \"12345::\")\n- at '/k2': '1::2::3' is not valid ipv6: ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")\n- at '/k1': '::g' is not valid ipv6: ParseAddr(\"::g\"): each colon-separated field must have at least one digit (at \"g\")\n- at '/k14': '' is not valid ipv6: missing colon\n- at '/k11': 'g::' is not valid ipv6: ParseAddr(\"g::\"): each colon-separated field must have at least one digit (at \"g::\")\n- at '/k3': '1:2:3:4:5:6:7:8:9' is not valid ipv6: ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")\n- at '/k5': 'fe80::1%eth0' is not valid ipv6: zone id is not a part of ipv6 address\n- at '/k0': '1:2' is not valid ipv6: ParseAddr(\"1:2\"): address string too short\n- at '/k4': ':::' is not valid ipv6: ParseAddr(\":::\"): each colon-separated field must have at least one digit (at \":\")\n"},
	{"format-uri",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"k0\": {\"format\": \"uri\"}, \"k1\": {\"format\": \"uri\"}, \"k2\": {\"format\": \"uri\"}, \"k3\": {\"format\": \"uri\"}, \"k4\": {\"format\": \"uri\"}, \"k5\": {\"format\": \"uri\"}, \"k6\": {\"format\": \"uri\"}, \"k7\": {\"format\": \"uri\"}, \"k8\": {\"format\": \"uri\"}, \"k9\": {\"format\": \"uri\"}, \"k10\": {\"format\": \"uri\"}, \"k11\": {\"format\": \"uri\"}, \"k12\": {\"format\": \"uri\"}}}",
	 "{\"k0\": \"a b\", \"k1\": \"rel/path\", \"k2\": \"http://x y\", \"k3\": \"http://\\u00e9.com\", \"k4\": \"http://a.com/%zz\", \"k5\": \":x\", \"k6\": \"1:x\", \"k7\": \"http://[::1]/\", \"k8\": \"http://[::g]/\", \"k9\": \"http://::1/\", \"k10\": \"mailto:a@b\", \"k11\": \"http://a.com/a\\\\b\", \"k12\": \"http://a.com/\\u0001\"}",
	 "- at '/k9': 'http://::1/' is not valid uri: ipv6 address not enclosed in brackets\n- at '/k0': 'a b' is not valid uri: relative url\n- at '/k2': 'http://x y' is not valid uri: parse \"http://x y\": invalid character \" \" in host name\n- at '/k1': 'rel/path' is not valid uri: relative url\n- at '/k4': 'http://a.com/%zz' is not valid uri: parse \"http://a.com/%zz\": invalid URL escape \"%zz\"\n- at '/k8': 'http://[::g]/' is not valid uri: parse \"http://[::g]/\": invalid host: ParseAddr(\"::g\"): each colon-separated field must have at least one digit (at \"g\")\n- at '/k5': ':x' is not valid uri: parse \":x\": missing protocol scheme\n- at '/k12': 'http://a.com/\\x01' is not valid uri: parse \"http://a.com/\\x01\": net/url: invalid control character in URL\n- at '/k6': '1:x' is not valid uri: parse \"1:x\": first path segment in URL cannot contain colon\n"},
	{"format-uri-reference",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"k0\": {\"format\": \"uri-reference\"}, \"k1\": {\"format\": \"uri-reference\"}, \"k2\": {\"format\": \"uri-reference\"}, \"k3\": {\"format\": \"uri-reference\"}, \"k4\": {\"format\": \"uri-reference\"}, \"k5\": {\"format\": \"uri-reference\"}, \"k6\": {\"format\": \"uri-reference\"}}}",
	 "{\"k0\": \"a b\", \"k1\": \"a\\\\b\", \"k2\": \"%zz\", \"k3\": \":x\", \"k4\": \"\\u00e9\", \"k5\": \"/x?y#z\", \"k6\": \"1:x\"}",
	 "- at '/k1': 'a\\\\b' is not valid uri-reference: contains \\\n- at '/k2': '%zz' is not valid uri-reference: parse \"%zz\": invalid URL escape \"%zz\"\n- at '/k3': ':x' is not valid uri-reference: parse \":x\": missing protocol scheme\n- at '/k6': '1:x' is not valid uri-reference: parse \"1:x\": first path segment in URL cannot contain colon\n"},
	/* url.Parse parses what is before the "#" (its errors quote that part;
	 * controls are refused there only), then unescapes the fragment */
	{"format-uri-reference-fragment",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"k0\": {\"format\": \"uri-reference\"}, \"k1\": {\"format\": \"uri-reference\"}, \"k2\": {\"format\": \"uri-reference\"}, \"k3\": {\"format\": \"uri-reference\"}, \"k4\": {\"format\": \"uri-reference\"}, \"k5\": {\"format\": \"uri-reference\"}, \"k6\": {\"format\": \"uri-reference\"}, \"k7\": {\"format\": \"uri-reference\"}}}",
	 "{\"k0\": \"http://a.com/%zz#frag\", \"k1\": \"a\\u0001#x\", \"k2\": \"#/$defs/abcdefgh\\u0001\", \"k3\": \"x#a\\u007fb\", \"k4\": \"a b#%zz\", \"k5\": \"1:x#y\", \"k6\": \"#a%\", \"k7\": \"http://a.com/#%zq\"}",
	 "- at '/k0': 'http://a.com/%zz#frag' is not valid uri-reference: parse \"http://a.com/%zz\": invalid URL escape \"%zz\"\n- at '/k1': 'a\\x01#x' is not valid uri-reference: parse \"a\\x01\": net/url: invalid control character in URL\n- at '/k4': 'a b#%zz' is not valid uri-reference: parse \"a b#%zz\": invalid URL escape \"%zz\"\n- at '/k5': '1:x#y' is not valid uri-reference: parse \"1:x\": first path segment in URL cannot contain colon\n- at '/k6': '#a%' is not valid uri-reference: parse \"#a%\": invalid URL escape \"%\"\n- at '/k7': 'http://a.com/#%zq' is not valid uri-reference: parse \"http://a.com/#%zq\": invalid URL escape \"%zq\"\n"},
	{"format-regex",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"k0\": {\"format\": \"regex\"}, \"k1\": {\"format\": \"regex\"}, \"k2\": {\"format\": \"regex\"}, \"k3\": {\"format\": \"regex\"}, \"k4\": {\"format\": \"regex\"}, \"k5\": {\"format\": \"regex\"}, \"k6\": {\"format\": \"regex\"}, \"k7\": {\"format\": \"regex\"}, \"k8\": {\"format\": \"regex\"}, \"k9\": {\"format\": \"regex\"}, \"k10\": {\"format\": \"regex\"}, \"k11\": {\"format\": \"regex\"}, \"k12\": {\"format\": \"regex\"}}}",
	 "{\"k0\": \"(\", \"k1\": \")\", \"k2\": \"[a\", \"k3\": \"*\", \"k4\": \"a**\", \"k5\": \"a{2}+\", \"k6\": \"(?=x)\", \"k7\": \"\\\\q\", \"k8\": \"x{2,1}\", \"k9\": \"[z-a]\", \"k10\": \"\\\\p{Foo}\", \"k11\": \"(?P<n>x)\", \"k12\": \"(?i)x\"}",
	 "- at '/k9': '[z-a]' is not valid regex: error parsing regexp: invalid character class range: `z-a`\n- at '/k0': '(' is not valid regex: error parsing regexp: missing closing ): `(`\n- at '/k8': 'x{2,1}' is not valid regex: error parsing regexp: invalid repeat count: `{2,1}`\n- at '/k7': '\\\\q' is not valid regex: error parsing regexp: invalid escape sequence: `\\q`\n- at '/k5': 'a{2}+' is not valid regex: error parsing regexp: invalid nested repetition operator: `{2}+`\n- at '/k3': '*' is not valid regex: error parsing regexp: missing argument to repetition operator: `*`\n- at '/k1': ')' is not valid regex: error parsing regexp: unexpected ): `)`\n- at '/k6': '(?=x)' is not valid regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`\n- at '/k10': '\\\\p{Foo}' is not valid regex: error parsing regexp: invalid character class range: `\\p{Foo}`\n- at '/k4': 'a**' is not valid regex: error parsing regexp: invalid nested repetition operator: `**`\n- at '/k2': '[a' is not valid regex: error parsing regexp: missing closing ]: `[a`\n"},
	{"format-hostname",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"k0\": {\"format\": \"hostname\"}, \"k1\": {\"format\": \"hostname\"}, \"k2\": {\"format\": \"hostname\"}, \"k3\": {\"format\": \"hostname\"}, \"k4\": {\"format\": \"hostname\"}, \"k5\": {\"format\": \"hostname\"}, \"k6\": {\"format\": \"hostname\"}, \"k7\": {\"format\": \"hostname\"}}}",
	 "{\"k0\": \"a_b\", \"k1\": \"\\u00e9.com\", \"k2\": \"a..b\", \"k3\": \"-a\", \"k4\": \"a-\", \"k5\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", \"k6\": \"a.b.\", \"k7\": \"\"}",
	 "- at '/k5': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' is not valid hostname: label must be 1 to 63 characters long\n- at '/k7': '' is not valid hostname: label must be 1 to 63 characters long\n- at '/k0': 'a_b' is not valid hostname: invalid character '_'\n- at '/k1': 'é.com' is not valid hostname: invalid character 'é'\n- at '/k2': 'a..b' is not valid hostname: label must be 1 to 63 characters long\n- at '/k3': '-a' is not valid hostname: label starts with hyphen\n- at '/k4': 'a-' is not valid hostname: label ends with hyphen\n"},
	{"format-email",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"k0\": {\"format\": \"email\"}, \"k1\": {\"format\": \"email\"}, \"k2\": {\"format\": \"email\"}, \"k3\": {\"format\": \"email\"}, \"k4\": {\"format\": \"email\"}, \"k5\": {\"format\": \"email\"}, \"k6\": {\"format\": \"email\"}, \"k7\": {\"format\": \"email\"}, \"k8\": {\"format\": \"email\"}}}",
	 "{\"k0\": \"a@b\", \"k1\": \"\\\"a b\\\"@c.d\", \"k2\": \"a..b@c\", \"k3\": \".a@b\", \"k4\": \"a@[1.2.3.4]\", \"k5\": \"a@[IPv6:::1]\", \"k6\": \"a@[300.1.1.1]\", \"k7\": \"a@-b\", \"k8\": \"\\u00e9@b\"}",
	 "- at '/k2': 'a..b@c' is not valid email: consecutive dots\n- at '/k8': 'é@b' is not valid email: invalid character 'é'\n- at '/k6': 'a@[300.1.1.1]' is not valid email: invalid ipv4 address: decimal must be between 0 and 255\n- at '/k7': 'a@-b' is not valid email: invalid domain: label starts with hyphen\n- at '/k3': '.a@b' is not valid email: starts with dot\n"},
	{"format-date-time",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"k0\": {\"format\": \"date-time\"}, \"k1\": {\"format\": \"date-time\"}, \"k2\": {\"format\": \"date-time\"}, \"k3\": {\"format\": \"date-time\"}, \"k4\": {\"format\": \"date-time\"}, \"k5\": {\"format\": \"date-time\"}, \"k6\": {\"format\": \"date-time\"}, \"k7\": {\"format\": \"date-time\"}, \"k8\": {\"format\": \"date-time\"}}}",
	 "{\"k0\": \"2020-01-01T00:00:00Z\", \"k1\": \"2020-01-01T25:00:00Z\", \"k2\": \"2020-01-01 00:00:00Z\", \"k3\": \"2020-13-01T00:00:00Z\", \"k4\": \"2020-01-01T00:00:00\", \"k5\": \"2020-01-01T00:00:60Z\", \"k6\": \"2020-01-01T23:59:60Z\", \"k7\": \"2020-01-01T00:00:00.Z\", \"k8\": \"2020-01-01T00:00:00+0100\"}",
	 "- at '/k3': '2020-13-01T00:00:00Z' is not valid date-time: invalid date element: parsing time \"2020-13-01\": month out of range\n- at '/k7': '2020-01-01T00:00:00.Z' is not valid date-time: invalid time element: no digits in second fraction\n- at '/k8': '2020-01-01T00:00:00+0100' is not valid date-time: invalid time element: offset must be 6 characters long\n- at '/k4': '2020-01-01T00:00:00' is not valid date-time: less than 20 characters long\n- at '/k5': '2020-01-01T00:00:60Z' is not valid date-time: invalid time element: invalid leap second\n- at '/k1': '2020-01-01T25:00:00Z' is not valid date-time: invalid time element: hour/min/sec out of range\n- at '/k2': '2020-01-01 00:00:00Z' is not valid date-time: 11th character must be t or T\n"},
	{"ue-ref",
	 "{\"$defs\":{\"b\":{\"properties\":{\"b\":{}}}},\"$ref\":\"#/$defs/b\",\"properties\":{\"a\":{}},\"unevaluatedProperties\":false}",
	 "a: 1\nb: 2\nc: 3\n",
	 "- at '/c': false schema\n"},
	{"ue-if",
	 "{\"if\":{\"properties\":{\"a\":{\"const\":1}}},\"then\":{\"properties\":{\"t\":{}}},\"else\":{\"properties\":{\"e\":{}}},\"unevaluatedProperties\":false}",
	 "a: 1\nt: 2\ne: 3\n",
	 "- at '/e': false schema\n"},
	{"ue-oneof",
	 "{\"oneOf\":[{\"properties\":{\"a\":{}},\"required\":[\"a\"]},{\"properties\":{\"b\":{}},\"required\":[\"b\"]}],\"unevaluatedProperties\":false}",
	 "a: 1\nz: 3\n",
	 "- at '/z': false schema\n"},
	{"ue-addl",
	 "{\"allOf\":[{\"additionalProperties\":true}],\"unevaluatedProperties\":false}",
	 "a: 1\n",
	 NULL},
	{"ue-pattern",
	 "{\"patternProperties\":{\"^x\":{}},\"unevaluatedProperties\":{\"type\":\"string\"}}",
	 "xa: 1\nb: 2\nc: s\n",
	 "- at '/b': got number, want string\n"},
	{"ue-nested",
	 "{\"properties\":{\"o\":{\"properties\":{\"a\":{}},\"unevaluatedProperties\":false}}}",
	 "o: {a: 1, b: 2}\n",
	 "- at '/o/b': false schema\n"},
	{"ue-anyof-fail",
	 "{\"anyOf\":[{\"properties\":{\"a\":{\"type\":\"string\"}}},{\"properties\":{\"b\":{}}}],\"unevaluatedProperties\":false}",
	 "a: 1\nb: 2\n",
	 "- at '/a': false schema\n"},
	{"ui-contains",
	 "{\"properties\":{\"l\":{\"contains\":{\"type\":\"string\"},\"unevaluatedItems\":false}}}",
	 "l: [x, 1, y]\n",
	 "- at '/l/1': false schema\n- at '/l/2': false schema\n"},
	{"ui-allof",
	 "{\"properties\":{\"l\":{\"allOf\":[{\"prefixItems\":[{}, {}]}],\"unevaluatedItems\":{\"type\":\"integer\"}}}}",
	 "l: [x, y, z, 1]\n",
	 "- at '/l/2': got string, want integer\n"},
	{"ue-depschema",
	 "{\"dependentSchemas\":{\"a\":{\"properties\":{\"b\":{}}}},\"properties\":{\"a\":{}},\"unevaluatedProperties\":false}",
	 "a: 1\nb: 2\nc: 3\n",
	 "- at '/c': false schema\n"},
	/* invalid schemas: Helm's meta-schema error (compile fails); for
	 * two-bad Helm prints the two causes in either order (Go map order),
	 * this is the order seen in 2 runs of 20 */
	{"req-bool7",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"properties\":{\"a\":{\"type\":\"string\",\"required\":true}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'http://json-schema.org/draft-07/schema#'\n- at '/properties/a/required': got boolean, want array\n"},
	{"req-bool2020",
	 "{\"properties\":{\"a\":{\"type\":\"string\",\"required\":true}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/required': got boolean, want array\n"},
	{"type-typo7",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"obj\"}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'http://json-schema.org/draft-07/schema#'\n- at '/type': 'anyOf' failed\n  - at '/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n  - at '/type': got string, want array\n"},
	{"enum-notarr",
	 "{\"properties\":{\"a\":{\"enum\":\"x\"}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/enum': got string, want array\n"},
	{"min-str",
	 "{\"properties\":{\"a\":{\"minimum\":\"5\"}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/minimum': got string, want number\n"},
	{"minlen-neg",
	 "{\"properties\":{\"a\":{\"minLength\":-1}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/minLength': minimum: got -1, want 0\n"},
	{"items-num",
	 "{\"properties\":{\"a\":{\"items\":5}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/items': got number, want boolean or object\n"},
	{"allof-empty",
	 "{\"allOf\":[]}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/allOf': minItems: got 0, want 1\n"},
	{"props-arr",
	 "{\"properties\":[]}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties': got array, want object\n"},
	{"deep-bad",
	 "{\"properties\":{\"a\":{\"properties\":{\"b\":{\"type\":[\"string\",\"bogus\"]}}}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/properties/b': 'allOf' failed\n      - at '/properties/a/properties/b/type': 'anyOf' failed\n        - at '/properties/a/properties/b/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n        - at '/properties/a/properties/b/type/1': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n"},
	{"two-bad",
	 "{\"type\":\"x\",\"minItems\":\"y\"}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '': validation failed\n    - at '/minItems': got string, want integer\n    - at '/type': 'anyOf' failed\n      - at '/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n      - at '/type': got string, want array\n"},
	{"root-arr",
	 "[1]",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': got array, want boolean or object\n"},
	{"draft4-bad",
	 "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"exclusiveMinimum\":true}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'http://json-schema.org/draft-04/schema#'\n- at '': properties 'minimum' required, if 'exclusiveMinimum' exists\n"},
	{"draft6-bad",
	 "{\"$schema\":\"http://json-schema.org/draft-06/schema#\",\"contains\":5}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'http://json-schema.org/draft-06/schema#'\n- at '/contains': got number, want boolean or object\n"},
	{"draft2019-bad",
	 "{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"properties\":{\"a\":{\"type\":1}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2019-09/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/type': 'anyOf' failed\n      - at '/properties/a/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n      - at '/properties/a/type': got number, want array\n"},
	{"ref-bad",
	 "{\"properties\":{\"a\":{\"$ref\":5}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/$ref': got number, want string\n"},
	{"defs-bad",
	 "{\"$defs\":{\"x\":5}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/$defs/x': got number, want boolean or object\n"},
	{"anchor-bad",
	 "{\"$defs\":{\"x\":{\"$anchor\":\"1bad\"}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/$defs/x': 'allOf' failed\n    - at '/$defs/x/$anchor': '1bad' does not match pattern '^[A-Za-z_][-A-Za-z0-9._]*$'\n"},
	{"id-frag",
	 "{\"$id\":\"http://x/y#frag\"}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/$id': 'http://x/y#frag' does not match pattern '^[^#]*#?$'\n"},
	{"patprop-bad",
	 "{\"patternProperties\":{\"(\":{}}}",
	 "a: 1\n",
	 "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '': invalid propertyName '('\n    - at '': '(' is not valid regex: error parsing regexp: missing closing ): `(`\n"},
	/* v6 quotes a string as Go's %q, then turns every \" into " and ' into
	 * \': a final backslash's escape \\ joined to the closing quote loses
	 * its second \ (helm prints 'fo\' for fo\ and 'fo\\\' for fo\\) */
	{"quote-bs-end",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"fo\\\\\"\n",
	 "- at '/a': 'fo\\' does not match pattern '^x$'\n"},
	{"quote-bs-start",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"\\\\fo\"\n",
	 "- at '/a': '\\\\fo' does not match pattern '^x$'\n"},
	{"quote-bs-mid",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"f\\\\o\"\n",
	 "- at '/a': 'f\\\\o' does not match pattern '^x$'\n"},
	{"quote-bs2-end",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"fo\\\\\\\\\"\n",
	 "- at '/a': 'fo\\\\\\' does not match pattern '^x$'\n"},
	{"quote-bs-only",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"\\\\\"\n",
	 "- at '/a': '\\' does not match pattern '^x$'\n"},
	{"quote-dq",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"a\\\"b\\\"\"\n",
	 "- at '/a': 'a\"b\"' does not match pattern '^x$'\n"},
	{"quote-bs-dq",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"a\\\\\\\"b\\\\\\\"\"\n",
	 "- at '/a': 'a\\\\\"b\\\\\"' does not match pattern '^x$'\n"},
	{"quote-dq-bs",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"a\\\"\\\\\"\n",
	 "- at '/a': 'a\"\\' does not match pattern '^x$'\n"},
	{"quote-sq",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"it's'\\\\\"\n",
	 "- at '/a': 'it\\'s\\'\\' does not match pattern '^x$'\n"},
	{"quote-ctl",
	 "{\"properties\": {\"a\": {\"pattern\": \"^x$\"}}}",
	 "a: \"a\\t\\n\\r\\u0007\\b\\f\\u000b\\u0001\\u001f\\u007f\\u0085b\\\\\"\n",
	 "- at '/a': 'a\\t\\n\\r\\a\\b\\f\\v\\x01\\x1f\\x7f\\u0085b\\' does not match pattern '^x$'\n"},
	{"quote-pat-bs-end",
	 "{\"properties\": {\"a\": {\"pattern\": \"a\\\\\\\\\"}}}",
	 "a: \"b\"\n",
	 "- at '/a': 'b' does not match pattern 'a\\\\\\'\n"},
	{"quote-enum-bs",
	 "{\"properties\": {\"a\": {\"enum\": [\"x\\\\\", \"y\\\"\\\\\"]}}}",
	 "a: \"z\\\\\"\n",
	 "- at '/a': value must be one of 'x\\', 'y\"\\'\n"},
	{"quote-const-bs",
	 "{\"properties\": {\"a\": {\"const\": \"c\\\\\"}}}",
	 "a: 1\n",
	 "- at '/a': value must be 'c\\'\n"},
	{"quote-req-bs",
	 "{\"properties\": {\"a\": {\"required\": [\"k\\\\\", \"l\\\"\\\\\"]}}}",
	 "a: {}\n",
	 "- at '/a': missing properties 'k\\', 'l\"\\'\n"},
	{"quote-addl-bs",
	 "{\"properties\": {\"a\": {\"additionalProperties\": false}}}",
	 "a: {\"k\\\\\": 1}\n",
	 "- at '/a': additional properties 'k\\' not allowed\n"},
	{"quote-loc-bs",
	 "{\"properties\": {\"k\\\\\": {\"type\": \"string\"}}}",
	 "\"k\\\\\": 1\n",
	 "- at '/k\\': got number, want string\n"},
	{"quote-fmt-bs",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"a\": {\"format\": \"email\"}, \"b\": {\"format\": \"uri-reference\"}, \"c\": {\"format\": \"date\"}, \"d\": {\"format\": \"regex\"}}}",
	 "a: \"a\\\"\\\\\"\nb: \"x\\\\\"\nc: \"2020\\\\\"\nd: \"a\\\\\"\n",
	 "- at '/d': 'a\\' is not valid regex: error parsing regexp: trailing backslash at end of expression: ``\n- at '/a': 'a\"\\' is not valid email: missing @\n- at '/b': 'x\\' is not valid uri-reference: contains \\\n- at '/c': '2020\\' is not valid date: parsing time \"2020\\\\\" as \"2006-01-02\": cannot parse \"\\\\\" as \"-\"\n"},
	/* kind.quote escapes what Go's strconv.IsPrint rejects (Unicode
	 * 15.0.0): other spaces, format characters, separators, unassigned and
	 * private-use code points; Unicode 15 letters stay as they are */
	{"quote-print-pattern",
	 "{\"properties\": {\"a\": {\"pattern\": \"^a$\"}}}",
	 "a: \"x\\u00a0\\u200b\\u3000\\u0378\\u00ad\\ufeff\\u061c\\u0600\\ufff9\\u1680\\u2003\\u2028\\u0085\\U0001E4D0\\U00011F00\\U00031350\\U000E0001\\uE000\\U000F0000\\u2FFC\\u00e9\\u00a1\\U0001F6DC\"\n",
	 "- at '/a': 'x\\u00a0\\u200b\\u3000\\u0378\\u00ad\\ufeff\\u061c\\u0600\\ufff9\\u1680\\u2003\\u2028\\u0085\xf0""\x9e""\x93""\x90""\xf0""\x91""\xbc""\x80""\xf0""\xb1""\x8d""\x90""\\U000e0001\\ue000\\U000f0000\\u2ffc\xc3""\xa9""\xc2""\xa1""\xf0""\x9f""\x9b""\x9c""' does not match pattern '^a$'\n"},
	{"quote-print-enum",
	 "{\"properties\": {\"a\": {\"enum\": [\"\\u00a0\", \"\\u200b\", \"\\ud83a\\udcd0\", \"\\u0378\"]}}}",
	 "a: \"\\u3000\"\n",
	 "- at '/a': value must be one of '\\u00a0', '\\u200b', '\xf0""\x9e""\xa3""\x90""', '\\u0378'\n"},
	{"quote-print-const",
	 "{\"properties\": {\"a\": {\"const\": \"\\u2003\\ufeff\"}}}",
	 "a: \"\\U00011F00\\u0600\"\n",
	 "- at '/a': value must be '\\u2003\\ufeff'\n"},
	{"quote-print-addprops",
	 "{\"additionalProperties\": false}",
	 "\"k\\u00a0\\u0378\\U0001E4D0\": 1\n",
	 "- at '': additional properties 'k\\u00a0\\u0378\xf0""\x9e""\x93""\x90""' not allowed\n"},
	{"quote-print-loc",
	 "{\"properties\": {\"k\\u200b\\u3000\": {\"type\": \"string\"}}}",
	 "\"k\\u200b\\u3000\": 1\n",
	 "- at '/k\\u200b\\u3000': got number, want string\n"},
	/* format messages: Go's strconv quoting (Atoi, ParseAddr, url.Parse,
	 * %q of a rune) escapes what IsPrint rejects; time.Parse's own quote
	 * writes every byte of a non-ASCII or control rune as \xNN */
	{"quote-print-formats",
	 "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\n \"d1\": {\"format\": \"date\"}, \"d2\": {\"format\": \"date\"}, \"d3\": {\"format\": \"date\"},\n \"t1\": {\"format\": \"date-time\"},\n \"h1\": {\"format\": \"hostname\"}, \"e1\": {\"format\": \"email\"},\n \"i4\": {\"format\": \"ipv4\"}, \"i6\": {\"format\": \"ipv6\"},\n \"u1\": {\"format\": \"uri\"}, \"u2\": {\"format\": \"uri\"}, \"u3\": {\"format\": \"uri-reference\"},\n \"p1\": {\"format\": \"json-pointer\"}, \"uu\": {\"format\": \"uuid\"},\n \"du\": {\"format\": \"duration\"}\n}}",
	 "d1: \"2020-01-0\\u00a0\"\nd2: \"2020\\n\\u3000\"\nd3: \"2020-01-01\\u0378x\"\nt1: \"2020-01-01T00:00:00\\u00a0Z\"\nh1: \"a\\u00a0b\"\ne1: \"a\\u3000@b.c\"\ni4: \"1.2.3.\\u00a0\"\ni6: \"::\\u200b\"\nu1: \"http://a\\u00a0b/\"\nu2: \"http://a:\\u00a0/\"\nu3: \"%\\u00a0\"\np1: \"/a~\\u00a0\"\nuu: \"0000000-0000-0000-0000-00000000000\\u00a0\"\ndu: \"P1\\u00a0\"\n",
	 "- at '/d3': '2020-01-01\\u0378x' is not valid date: parsing time \"2020-01-01\\xcd\\xb8x\": extra text: \"\\xcd\\xb8x\"\n- at '/i4': '1.2.3.\\u00a0' is not valid ipv4: strconv.Atoi: parsing \"\\u00a0\": invalid syntax\n- at '/i6': '::\\u200b' is not valid ipv6: ParseAddr(\"::\\u200b\"): each colon-separated field must have at least one digit (at \"\\u200b\")\n- at '/t1': '2020-01-01T00:00:00\\u00a0Z' is not valid date-time: invalid time element: offset must be 6 characters long\n- at '/d1': '2020-01-0\\u00a0' is not valid date: parsing time \"2020-01-0\\xc2\\xa0\" as \"2006-01-02\": cannot parse \"0\\xc2\\xa0\" as \"02\"\n- at '/p1': '/a~\\u00a0' is not valid json-pointer: ~ must be followed by 0 or 1\n- at '/u2': 'http://a:\\u00a0/' is not valid uri: parse \"http://a:\\u00a0/\": invalid port \":\\u00a0\" after host\n- at '/h1': 'a\\u00a0b' is not valid hostname: invalid character '\\u00a0'\n- at '/d2': '2020\\n\\u3000' is not valid date: parsing time \"2020\\x0a\\xe3\\x80\\x80\" as \"2006-01-02\": cannot parse \"\\x0a\\xe3\\x80\\x80\" as \"-\"\n- at '/e1': 'a\\u3000@b.c' is not valid email: invalid character '\\u3000'\n- at '/du': 'P1\\u00a0' is not valid duration: invalid unit '\xc3""\x82""'\n- at '/uu': '0000000-0000-0000-0000-00000000000\\u00a0' is not valid uuid: element 1 must be 8 characters long\n- at '/u3': '%\\u00a0' is not valid uri-reference: parse \"%\\u00a0\": invalid URL escape \"%\\u00a0\"\n"},
	{"valid-complex",
	 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"x\":{\"type\":\"object\"}},\"properties\":{\"a\":{\"$ref\":\"#/definitions/x\",\"description\":\"d\",\"examples\":[1]}},\"if\":true,\"then\":{\"minProperties\":0}}",
	 "a: {}\n",
	 NULL},
};

/* splits output into top-level blocks and sorts them */
static int blkcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *normalize(const char *s)
{
	char *copy = strdup(s), *blocks[256];
	size_t nb = 0, len = strlen(copy);
	bh_buf out = BH_BUF_INIT;
	while (len && copy[len - 1] == '\n')
		copy[--len] = '\0';
	for (char *p = copy; *p && nb < 256;) {
		char *next = strstr(p + 1, "\n- ");
		blocks[nb++] = p;
		if (!next)
			break;
		*next = '\0';
		p = next + 1;
	}
	qsort(blocks, nb, sizeof *blocks, blkcmp);
	for (size_t i = 0; i < nb; i++) {
		bh_buf_puts(&out, blocks[i]);
		bh_buf_putc(&out, '\n');
	}
	free(copy);
	return bh_buf_detach(&out);
}

static int run_one(const char *schema, size_t slen, const json_t *values, const char *want, const char *name)
{
	jsonschema *s = NULL;
	bh_error e = {0};
	bh_buf out = BH_BUF_INIT;
	int rc, ok = 1;
	rc = jsonschema_compile_text(schema, slen, &s, &e);
	if (rc && want && strncmp(want, "\"file:///", 9) == 0) {
		/* Helm prints the compile error as it is, after "<chart>:\n" */
		bh_buf m = BH_BUF_INIT;
		char *a, *b;
		bh_buf_printf(&m, "%s\n", e.msg);
		a = normalize(strchr(m.data, '\n') + 1);
		b = normalize(strchr(want, '\n') + 1);
		ok = strncmp(m.data, want, (size_t)(strchr(want, '\n') - want)) == 0 && strcmp(a, b) == 0;
		if (!ok)
			fprintf(stderr, "FAIL %s:\n--- got\n%s--- want\n%s", name, m.data, want);
		free(a);
		free(b);
		bh_buf_free(&m);
		return ok;
	}
	if (rc) {
		fprintf(stderr, "FAIL %s: compile: %s\n", name, e.msg);
		return 0;
	}
	rc = jsonschema_validate(s, values, &out, &e);
	if (rc < 0) {
		fprintf(stderr, "FAIL %s: validate: %s\n", name, e.msg);
		ok = 0;
	} else if (!want) {
		if (rc != 0) {
			fprintf(stderr, "FAIL %s: want valid, got:\n%s", name, bh_buf_str(&out));
			ok = 0;
		}
	} else {
		char *a = normalize(bh_buf_str(&out)), *b = normalize(want);
		if (rc != 1 || strcmp(a, b) != 0) {
			fprintf(stderr, "FAIL %s:\n--- got\n%s--- want\n%s", name, bh_buf_str(&out), want);
			ok = 0;
		}
		/* the text always ends with exactly one newline */
		if (rc == 1 && (out.len < 2 || out.data[out.len - 1] != '\n' || out.data[out.len - 2] == '\n')) {
			fprintf(stderr, "FAIL %s: bad ending\n", name);
			ok = 0;
		}
		free(a);
		free(b);
	}
	bh_buf_free(&out);
	jsonschema_free(s);
	return ok;
}

START_TEST(test_goldens)
{
	int failed = 0;
	for (size_t i = 0; i < sizeof goldens / sizeof goldens[0]; i++) {
		const struct golden *g = &goldens[i];
		json_t *v = NULL;
		bh_error e = {0};
		bh_buf vt = BH_BUF_INIT;
		if (g->values) {
			bh_buf_puts(&vt, g->values);
		} else { /* int-fmt: a 1234-character string */
			bh_buf_puts(&vt, "b: \"");
			for (int k = 0; k < 1234; k++)
				bh_buf_putc(&vt, 'x');
			bh_buf_puts(&vt, "\"\n");
		}
		ck_assert_msg(yaml_parse_values(vt.data, vt.len, NULL, &v, &e) == 0, "%s: %s", g->name, e.msg);
		if (!run_one(g->schema, strlen(g->schema), v, g->want, g->name))
			failed++;
		json_decref(v);
		bh_buf_free(&vt);
	}
	ck_assert_int_eq(failed, 0);
}
END_TEST

static void expect_compile_error(const char *schema, int code, const char *msg_part)
{
	jsonschema *s = NULL;
	bh_error e = {0};
	ck_assert_int_eq(jsonschema_compile_text(schema, strlen(schema), &s, &e), code);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(e.msg, msg_part) != NULL, "message [%s] lacks [%s]", e.msg, msg_part);
}

START_TEST(test_compile_errors)
{
	/* Helm would fetch these; bulkhead refuses (same "failing loading" shape) */
	expect_compile_error("{\"properties\":{\"a\":{\"$ref\":\"https://example.invalid/s.json\"}}}", BH_EINVAL,
			     "failing loading \"https://example.invalid/s.json\"");
	expect_compile_error("{\"$schema\":\"http://example.com/x\"}", BH_EINVAL, "failing loading \"http://example.com/x\"");
	expect_compile_error("{\"$ref\":\"#/nope\"}", BH_EINVAL, "#/nope");
	expect_compile_error("{\"pattern\":\"(?=x)\"}", BH_EINVAL,
			     "- at '/pattern': '(?=x)' is not valid regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
	expect_compile_error("{\"pattern\":\"(\"}", BH_EINVAL, "missing closing ): `(`");
	expect_compile_error("{", BH_EPARSE, "unexpected end of JSON input");
	expect_compile_error("[1]", BH_EINVAL, "- at '': got array, want boolean or object");
}
END_TEST

START_TEST(test_compile_from_json_and_urn)
{
	json_t *schema = json_pack("{s:{s:{s:s}}}", "properties", "a", "$ref", "urn:example:thing");
	json_t *v = json_pack("{s:i}", "a", 1);
	jsonschema *s = NULL;
	bh_error e = {0};
	bh_buf out = BH_BUF_INIT;
	ck_assert_int_eq(jsonschema_compile(schema, &s, &e), 0);
	ck_assert_int_eq(jsonschema_validate(s, v, &out, &e), 0); /* urn: is permissive */
	jsonschema_free(s);
	json_decref(schema);
	json_decref(v);
	bh_buf_free(&out);
}
END_TEST

START_TEST(test_limits)
{
	/* a recursive schema over a deep value hits the depth limit, not the stack */
	const char *schema = "{\"$defs\":{\"n\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/n\"}}},\"$ref\":\"#/$defs/n\"}";
	jsonschema *s = NULL;
	bh_error e = {0};
	bh_buf out = BH_BUF_INIT;
	json_t *v = json_array(), *cur = v;
	for (int i = 0; i < 600; i++) {
		json_t *n = json_array();
		json_array_append_new(cur, n);
		cur = n;
	}
	ck_assert_int_eq(jsonschema_compile_text(schema, strlen(schema), &s, &e), 0);
	ck_assert_int_eq(jsonschema_validate(s, v, &out, &e), BH_ELIMIT);
	jsonschema_free(s);
	json_decref(v);
	bh_buf_free(&out);
}
END_TEST

/* A chain of n $refs from the root's $defs to `last`, with `first` as the
 * root's other keywords: {first "$defs":{"d0":{"$ref":"#/$defs/d1"},...,
 * "d<n>":last},"$ref":"#/$defs/d0"}. */
static char *ref_chain(const char *first, int n, const char *last)
{
	bh_buf b = BH_BUF_INIT;
	bh_buf_printf(&b, "{%s\"$defs\":{", first);
	for (int i = 0; i < n; i++)
		bh_buf_printf(&b, "\"d%d\":{\"$ref\":\"#/$defs/d%d\"},", i, i + 1);
	bh_buf_printf(&b, "\"d%d\":%s},\"$ref\":\"#/$defs/d0\"}", n, last);
	return bh_buf_detach(&b);
}

/* $ref JSON pointers: escaped tokens ("~1", "~0", percent-encoding),
 * array indices, and the names they must not match */
START_TEST(test_ref_pointers)
{
	const char *schema =
		"{\"$defs\":{\"a/b\":{\"type\":\"string\"},\"c~d\":{\"type\":\"integer\"},"
		"\"e%f\":{\"type\":\"boolean\"},\"plain\":{\"type\":\"array\"}},"
		"\"allOf\":[{\"required\":[\"s\"]}],"
		"\"properties\":{\"s\":{\"$ref\":\"#/$defs/a~1b\"},\"i\":{\"$ref\":\"#/$defs/c~0d\"},"
		"\"b\":{\"$ref\":\"#/$defs/e%25f\"},\"l\":{\"$ref\":\"#/$defs/plain\"},"
		"\"r\":{\"$ref\":\"#/allOf/0\"}}}";
	jsonschema *s = NULL;
	bh_error e = {0};
	bh_buf out = BH_BUF_INIT;
	ck_assert_msg(jsonschema_compile_text(schema, strlen(schema), &s, &e) == 0, "%s", e.msg);
	json_t *v = json_pack("{s:i,s:s,s:i,s:i,s:{}}", "s", 1, "i", "x", "b", 2, "l", 3, "r");
	ck_assert_int_eq(jsonschema_validate(s, v, &out, &e), 1);
	const char *want[] = {"- at '/s': got number, want string", "- at '/i': got string, want integer",
			      "- at '/b': got number, want boolean", "- at '/l': got number, want array",
			      "- at '/r': missing property 's'"};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		ck_assert_msg(strstr(bh_buf_str(&out), want[i]), "[%s] lacks [%s]", bh_buf_str(&out), want[i]);
	json_decref(v);
	jsonschema_free(s);
	bh_buf_free(&out);
	/* "a~01b" names the member "a~1b"; "a~1b" names "a/b", absent here */
	const char *tilde = "{\"$defs\":{\"a~1b\":{}},\"$ref\":\"#/$defs/a~01b\"}";
	ck_assert_msg(jsonschema_compile_text(tilde, strlen(tilde), &s, &e) == 0, "%s", e.msg);
	jsonschema_free(s);
	expect_compile_error("{\"$defs\":{\"a~1b\":{}},\"$ref\":\"#/$defs/a~1b\"}", BH_EINVAL, "no schema");
	expect_compile_error("{\"allOf\":[{}],\"$ref\":\"#/allOf/00\"}", BH_EINVAL, "no schema");
	expect_compile_error("{\"allOf\":[{}],\"$ref\":\"#/allOf/1\"}", BH_EINVAL, "no schema");
	/* a "$defs" big enough to be looked up by hash: a duplicate key's
	 * last value wins, as with the small ones; an absent name fails */
	bh_buf defs = BH_BUF_INIT, big = BH_BUF_INIT;
	for (int i = 0; i < 40; i++)
		bh_buf_printf(&defs, "\"helm-values.component%d.settings\":{\"type\":\"%s\"},", i, i == 25 ? "string" : "boolean");
	bh_buf_puts(&defs, "\"helm-values.component25.settings\":{\"type\":\"integer\"}");
	bh_buf_printf(&big, "{\"$defs\":{%s},\"properties\":{\"a\":{\"$ref\":\"#/$defs/helm-values.component25.settings\"},"
			    "\"b\":{\"$ref\":\"#/$defs/helm-values.component3.settings\"}}}", bh_buf_str(&defs));
	ck_assert_msg(jsonschema_compile_text(big.data, big.len, &s, &e) == 0, "%s", e.msg);
	v = json_pack("{s:s,s:i}", "a", "x", "b", 1);
	bh_buf_reset(&out);
	ck_assert_int_eq(jsonschema_validate(s, v, &out, &e), 1);
	ck_assert_str_eq(bh_buf_str(&out), "- at '/a': got string, want integer\n- at '/b': got number, want boolean\n");
	json_decref(v);
	jsonschema_free(s);
	bh_buf_free(&out);
	bh_buf_reset(&big);
	bh_buf_printf(&big, "{\"$defs\":{%s},\"$ref\":\"#/$defs/helm-values.component40.settings\"}", bh_buf_str(&defs));
	expect_compile_error(bh_buf_str(&big), BH_EINVAL, "no schema");
	bh_buf_free(&big);
	bh_buf_free(&defs);
}
END_TEST

START_TEST(test_compile_depth)
{
	jsonschema *s = NULL;
	bh_error e = {0};
	/* d255, a leaf schema, is reached 256 deep, not seen before: too deep */
	char *t = ref_chain("", 255, "{\"type\":\"string\"}");
	expect_compile_error(t, BH_ELIMIT, "schema nested deeper than 256 levels");
	free(t);
	/* the same depth, but the leaf it leads to ("not") was seen near the
	 * root: that one is not compiled again, so no error */
	t = ref_chain("\"not\":{\"type\":\"string\"},", 254, "{\"$ref\":\"#/not\"}");
	ck_assert_msg(jsonschema_compile_text(t, strlen(t), &s, &e) == 0, "%s", e.msg);
	jsonschema_free(s);
	free(t);
	/* one less deep: the leaf is fine */
	t = ref_chain("", 254, "{\"type\":\"string\"}");
	ck_assert_msg(jsonschema_compile_text(t, strlen(t), &s, &e) == 0, "%s", e.msg);
	jsonschema_free(s);
	free(t);
}
END_TEST

/* ---- the corpus' schema error cases (chart defaults + one --set) -------- */

static void corpus_case(const char *chart, const char *caseid, const char *path, json_t *value)
{
	char rel[256];
	char *sp, *vp, *ep;
	FILE *f;
	bh_buf st = BH_BUF_INIT, vt = BH_BUF_INIT, et = BH_BUF_INIT;
	json_t *values = NULL, *cur;
	bh_error e = {0};
	char buf[4096], *pathcopy, *tok, *save = NULL, *last = NULL;
	size_t n;
	const char *want;
	snprintf(rel, sizeof rel, "charts/%s/values.schema.json", chart);
	sp = vec_path(rel);
	snprintf(rel, sizeof rel, "charts/%s/values.yaml", chart);
	vp = vec_path(rel);
	snprintf(rel, sizeof rel, "cases/%s/expected.err", caseid);
	ep = vec_path(rel);
	if (!sp || !vp || !ep) {
		free(sp);
		free(vp);
		free(ep);
		json_decref(value);
		return;
	}
	f = fopen(sp, "r");
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		bh_buf_put(&st, buf, n);
	fclose(f);
	f = fopen(vp, "r");
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		bh_buf_put(&vt, buf, n);
	fclose(f);
	f = fopen(ep, "r");
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		bh_buf_put(&et, buf, n);
	fclose(f);
	ck_assert_int_eq(yaml_parse_values(vt.data, vt.len, NULL, &values, &e), 0);
	if (path) {
		pathcopy = strdup(path);
		cur = values;
		for (tok = strtok_r(pathcopy, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
			if (last) {
				json_t *next = json_object_get(cur, last);
				if (!json_is_object(next)) {
					next = json_object();
					json_object_set_new(cur, last, next);
				}
				cur = next;
			}
			last = tok;
		}
		json_object_set_new(cur, last, value);
		free(pathcopy);
	} else {
		json_decref(value);
	}
	/* expected.err: "Error: values don't...:\n<chart>:\n<ours>\n" */
	want = strchr(et.data, '\n') + 1;
	want = strchr(want, '\n') + 1;
	{
		char *w = strdup(want);
		size_t wl = strlen(w);
		if (wl && w[wl - 1] == '\n')
			w[wl - 1] = '\0';
		ck_assert_msg(run_one(st.data, st.len, values, w, caseid), "%s", caseid);
		free(w);
	}
	json_decref(values);
	bh_buf_free(&st);
	bh_buf_free(&vt);
	bh_buf_free(&et);
	free(sp);
	free(vp);
	free(ep);
}

START_TEST(test_corpus_cases)
{
	/* --set values are typed as Helm's strvals does: "three" stays a string */
	corpus_case("traefik", "traefik-schema-violation", "log.level", json_string("VERBOSE"));
	corpus_case("vault", "vault-schema-violation", "server.ha.replicas", json_string("three"));
	corpus_case("external-dns", "external-dns-bad-policy", "policy", json_string("delete-everything"));
	corpus_case("external-dns", "external-dns-missing-policy", NULL, NULL);
}
END_TEST

/* the quick meta-schema check (lib/jsonschema_quick.c): schemas it must
 * accept without the full check, and schemas it must leave to the full
 * check, which rejects them (so its "sure" is never wrong on these) */
static int quick_and_full(const char *text, int draft, int *full)
{
	gojson_node *root = NULL;
	bh_error err;
	int quick;
	ck_assert_int_eq(gojson_tree_load(text, strlen(text), NULL, &root, &err), 0);
	quick = jsonschema_meta_quick(root, draft);
	*full = jsonschema_meta_check(root, draft, &err);
	gojson_tree_free(root);
	return quick;
}

START_TEST(test_meta_quick)
{
	static const char *const good[] = {
		"{}",
		"{\"type\":\"object\",\"title\":\"t\",\"description\":\"d\",\"properties\":{\"a\":{\"type\":[\"string\",\"null\"],"
		"\"enum\":[\"x\",\"y\",null,true],\"default\":\"x\",\"minLength\":0,\"maxLength\":10,\"pattern\":\"^[a-z]+$\"},"
		"\"b\":{\"type\":\"integer\",\"minimum\":-1.5,\"maximum\":1e3,\"multipleOf\":0.5,\"examples\":[1]},"
		"\"c\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/s\"},\"minItems\":1,\"uniqueItems\":true}},"
		"\"patternProperties\":{\"^x-\":{}},\"additionalProperties\":false,\"required\":[\"a\",\"b\"],"
		"\"definitions\":{\"s\":{\"anyOf\":[{\"type\":\"string\"},{\"not\":{\"type\":\"number\"}}]}},"
		"\"dependencies\":{\"a\":[\"b\"],\"b\":{\"required\":[\"c\"]}},\"x-unknown\":[1e99,{\"type\":5}]}",
		"{\"type\":[\"array\",\"boolean\",\"integer\",\"null\",\"number\",\"object\",\"string\"],"
		"\"x-big\":[123456789012345678901234567890.5,-0.000001]}",
	};
	static const struct {
		int draft;
		const char *schema;
	} bad[] = {
		{4, "{\"exclusiveMinimum\":true}"},
		{4, "{\"required\":[]}"},
		{4, "{\"properties\":{\"a\":true}}"},
		{7, "{\"enum\":[\"a\",\"a\"]}"},
		{7, "{\"enum\":[]}"},
		{7, "{\"type\":[\"string\",\"string\"]}"},
		{7, "{\"type\":\"str\"}"},
		{7, "{\"items\":[]}"},
		{7, "{\"minLength\":-1}"},
		{7, "{\"multipleOf\":0}"},
		{7, "{\"pattern\":\"(\"}"},
		{7, "{\"patternProperties\":{\"(\":{}}}"},
		{7, "{\"required\":[\"a\",\"a\"]}"},
		{7, "{\"x-unknown\":1e400}"},
		{7, "{\"x-unknown\":[1E400]}"},
		{7, "{\"x-unknown\":{\"a\":[-1e+400]}}"},
		{7, "{\"type\":\"nul\"}"},
		{7, "{\"type\":[\"integer\",\"strings\"]}"},
		{7, "{\"properties\":{\"a\":{\"properties\":{\"b\":5}}}}"},
		{7, "{\"dependencies\":{\"a\":5}}"},
		{7, "{\"$ref\":5}"},
		{2019, "{\"$id\":\"a#b\"}"},
		{2020, "{\"$anchor\":\"1bad\"}"},
		{2020, "{\"items\":[{}]}"},
		{2020, "{\"allOf\":[]}"},
		{2020, "{\"prefixItems\":[5]}"},
		{2020, "{\"dependentRequired\":{\"a\":[1]}}"},
		{2020, "{\"readOnly\":\"yes\"}"},
		{2020, "5"},
	};
	static const int drafts[] = {4, 6, 7, 2019, 2020};
	char deep[512], big[480];
	int full;
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		for (size_t d = 0; d < sizeof drafts / sizeof *drafts; d++) {
			ck_assert_msg(quick_and_full(good[i], drafts[d], &full) == 1, "good %zu draft %d", i, drafts[d]);
			ck_assert_msg(full == 0, "good %zu draft %d: full check", i, drafts[d]);
		}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_msg(quick_and_full(bad[i].schema, bad[i].draft, &full) == 0, "%s", bad[i].schema);
		ck_assert_msg(full != 0, "%s: full check accepts it", bad[i].schema);
	}
	/* 400 digits without an exponent: past float64 too */
	strcpy(big, "{\"default\":[");
	memset(big + strlen(big), '9', 400);
	strcpy(big + strlen("{\"default\":[") + 400, "]}");
	ck_assert_int_eq(quick_and_full(big, 7, &full), 0);
	ck_assert_int_ne(full, 0);
	/* nested past what the quick walk vouches for: left to the full check */
	deep[0] = '\0';
	for (int i = 0; i < 40; i++)
		strcat(deep, "{\"not\":");
	strcat(deep, "{}");
	for (int i = 0; i < 40; i++)
		strcat(deep, "}");
	ck_assert_int_eq(quick_and_full(deep, 2020, &full), 0);
	ck_assert_int_eq(full, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jsonschema");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_goldens);
	tcase_add_test(tc, test_compile_errors);
	tcase_add_test(tc, test_compile_from_json_and_urn);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_compile_depth);
	tcase_add_test(tc, test_ref_pointers);
	tcase_add_test(tc, test_corpus_cases);
	tcase_add_test(tc, test_meta_quick);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
