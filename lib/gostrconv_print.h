/* lib/gostrconv_print.h — internal to lib/gostrconv.c: the generated range
 * tables (lib/gostrconv_print.c, from lib/gostrconv_print_gen.py) of the code
 * points above U+00FF that Go's strconv.IsPrint accepts. Sorted, disjoint,
 * inclusive {first, last} pairs. */
#ifndef BH_GOSTRCONV_PRINT_H
#define BH_GOSTRCONV_PRINT_H

#include <stddef.h>
#include <stdint.h>

extern const uint32_t go_print[][2];
extern const size_t go_print_len;

#endif
