/* tmpl/gotime_zone.h — time zone locations for tmpl/gotime.c (private):
 * UTC, fixed offsets, and TZif zoneinfo files with their POSIX TZ footer,
 * looked up the way Go's time.Location does. */
#ifndef TMPL_GOTIME_ZONE_H
#define TMPL_GOTIME_ZONE_H

#include <stddef.h>
#include <stdint.h>

#include "tmpl/gotime.h"

/* Zone (abbreviation, offset) in effect at Unix time sec. */
void gotime_loc_lookup(const gotime_loc *l, int64_t sec, const char **name, int *offset);
/* Location.lookupName: 0 with *offset when the location has a zone of that
 * abbreviation, else -1. */
int gotime_loc_lookup_name(const gotime_loc *l, const char *name, int64_t sec, int *offset);
/* Fixed zones (time.FixedZone) live in caller-provided memory. */
size_t gotime_loc_fixed_size(void);
void gotime_loc_fixed_init(gotime_loc *l, const char *name, int offset);

/* Calendar arithmetic both files use (gotime.c): floor division, the day
 * number (days since 1970-01-01) of a proleptic Gregorian date, leap years. */
int64_t gotime_floordiv(int64_t a, int64_t b);
int64_t gotime_days_from_civil(int64_t y, int64_t m, int64_t d);
int gotime_is_leap(int64_t y);

#endif
