/* tmpl/gotime.h — the parts of Go's time package Sprig's date functions
 * use: time.Time with a location (UTC, the process's Local zone, fixed
 * offsets, IANA zones read from the system zoneinfo), Format and
 * ParseInLocation with Go reference layouts ("2006-01-02 15:04:05"),
 * Time.String, RFC 3339 JSON, AddDate, and time.Duration (ParseDuration,
 * String, Round). Error texts are Go's. */
#ifndef TMPL_GOTIME_H
#define TMPL_GOTIME_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

typedef struct gotime_loc gotime_loc;

typedef struct gotime {
	int64_t sec;            /* Unix seconds */
	int32_t nsec;           /* 0..999999999 */
	const gotime_loc *loc;  /* NULL = UTC */
	int has_mono;           /* printed as " m=+S.NNNNNNNNN" (time.Now) */
	int64_t mono_ns;
} gotime;

#define GOTIME_ZERO_SEC (-62135596800LL) /* 0001-01-01 00:00:00 UTC */

/* The process's Local zone ($TZ, else /etc/localtime; UTC when neither
 * can be read). Loaded once; call early (before a sandbox forbids file
 * access) to make sure it is available. Never NULL. */
const gotime_loc *gotime_local(void);
/* time.LoadLocation(name): "" and "UTC" -> UTC (NULL with 0 returned),
 * "Local" -> gotime_local(), else the zoneinfo file. The returned location
 * is malloc'ed and cached for the process. -1 when unknown. */
int gotime_load_location(const char *name, const gotime_loc **out);

/* For sandboxed processes (the worker's seccomp policy forbids open):
 * gotime_preload() loads the Local zone now; after
 * gotime_set_file_access(0) no zoneinfo file is read any more, so zones not
 * already loaded behave as unknown (dateInZone then uses UTC, as Go does
 * when LoadLocation fails). Call both before locking the process down. */
void gotime_preload(void);
void gotime_set_file_access(int allowed);

/* time.Now() in Local, with a monotonic reading. */
gotime gotime_now(void);
/* time.Unix(sec, 0) in Local. */
gotime gotime_unix(int64_t sec);
/* The zone in effect at t: abbreviation ("" for an unnamed fixed zone)
 * and offset in seconds east of UTC. */
void gotime_zone(const gotime *t, const char **name, int *offset);
/* Civil fields in t's zone. */
void gotime_civil(const gotime *t, int64_t *year, int *month, int *day, int *hour, int *min,
		  int *sec, int *wday, int *yday);
/* time.Date(y, mo, d, h, mi, s, ns, loc) with normalisation. */
gotime gotime_date(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t min, int64_t sec,
		   int64_t nsec, const gotime_loc *loc);

/* t.Format(layout) appended to out. */
void gotime_format(const gotime *t, const char *layout, size_t n, bh_buf *out);
/* t.String(). */
void gotime_string(const gotime *t, bh_buf *out);
/* t.MarshalJSON() text without quotes (RFC 3339 with nanoseconds); -1 when
 * the year is outside [0,9999]. */
int gotime_rfc3339(const gotime *t, bh_buf *out);

/* time.ParseInLocation(layout, value, Local). Fixed zones are allocated
 * with alloc(ud, size) (e.g. an arena). 0, or -1 with Go's message in
 * errmsg ("parsing time \"x\" as \"2006\": cannot parse \"x\" as \"2006\""). */
int gotime_parse(const char *layout, size_t ln, const char *value, size_t vn,
		 void *(*alloc)(void *ud, size_t n), void *ud, gotime *out, char *errmsg, size_t errsz);

/* time.ParseDuration: 0 or -1 with Go's message in errmsg. */
int gotime_parse_duration(const char *s, size_t n, int64_t *out, char *errmsg, size_t errsz);
/* Duration.String(). */
void gotime_duration_string(int64_t d, bh_buf *out);
/* Duration.Round(m). */
int64_t gotime_duration_round(int64_t d, int64_t m);
/* t.Sub(u) with Go's saturation. */
int64_t gotime_sub(const gotime *t, const gotime *u);
/* t.Add(d). */
gotime gotime_add(const gotime *t, int64_t d);

/* The time.Time objects of the template engine (tmpl/funcs_dates.c): the
 * gotime inside v, or NULL when v is not a time.Time; and a new time.Time
 * value in arena a (INVALID when out of memory). */
struct tmpl_value;
struct tmpl_arena;
const gotime *tmpl_time_of(const struct tmpl_value *v);
struct tmpl_value tmpl_time_value(struct tmpl_arena *a, const gotime *t);

#endif
