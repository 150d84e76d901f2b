/* tmpl/funcs_dates.c — Sprig's date and duration functions (now, date,
 * dateInZone, htmlDate, htmlDateInZone, dateModify, mustDateModify, ago,
 * duration, durationRound, toDate, mustToDate, unixEpoch and the
 * snake_case aliases) and the time.Time objects they exchange (methods
 * Year, Month, Day, Hour, Minute, Second, Nanosecond, YearDay, Weekday,
 * Unix*, IsZero, AddDate, Add, UTC, Local, Format, String, Before, After,
 * Equal, Compare). Go time semantics come from tmpl/gotime.h. */
#include <inttypes.h>
#include <string.h>

#include "tmpl/funcs.h"
#include "tmpl/gofmt.h"
#include "tmpl/gotime.h"

static const tmpl_class time_class;

static tmpl_value time_value(tmpl_arena *a, const gotime *t)
{
	gotime *copy = tmpl_arena_alloc(a, sizeof *copy);
	tmpl_object *o;
	if (!copy)
		return tmpl_invalid();
	*copy = *t;
	o = tmpl_object_new(a, &time_class, copy);
	return o ? tmpl_object_value(o) : tmpl_invalid();
}

static int ret_time(tmpl_call *c, const gotime *t)
{
	c->result = time_value(c->arena, t);
	if (c->result.kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "out of memory");
	return 0;
}

static int ret_buf(tmpl_call *c, bh_buf *b)
{
	c->result = tmpl_str_buf(c->arena, b);
	bh_buf_free(b);
	if (c->result.kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "out of memory");
	return 0;
}

static const gotime *as_time(const tmpl_value *v)
{
	return tmpl_object_data(v, &time_class);
}

static void *arena_alloc(void *ud, size_t n)
{
	return tmpl_arena_alloc(ud, n);
}

/* ---- time.Time methods ---- */

static const gotime *self_t(tmpl_call *c)
{
	return c->self->u.obj->data;
}

enum { F_YEAR, F_MONTH, F_DAY, F_HOUR, F_MINUTE, F_SECOND, F_NANO, F_YDAY, F_WDAY, F_UNIX, F_MILLI,
       F_MICRO, F_NANOS, F_ISZERO };

static int m_field(tmpl_call *c)
{
	static const char *const months[] = {"January", "February", "March", "April", "May", "June", "July",
					     "August", "September", "October", "November", "December"};
	static const char *const days[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
					   "Saturday"};
	const gotime *t = self_t(c);
	int64_t y;
	int mo, d, h, mi, s, wd, yd;
	gotime_civil(t, &y, &mo, &d, &h, &mi, &s, &wd, &yd);
	switch ((int)(intptr_t)c->data) {
	case F_YEAR: c->result = tmpl_int(y); break;
	case F_MONTH: c->result = tmpl_cstr(c->arena, months[mo - 1]); break;
	case F_DAY: c->result = tmpl_int(d); break;
	case F_HOUR: c->result = tmpl_int(h); break;
	case F_MINUTE: c->result = tmpl_int(mi); break;
	case F_SECOND: c->result = tmpl_int(s); break;
	case F_NANO: c->result = tmpl_int(t->nsec); break;
	case F_YDAY: c->result = tmpl_int(yd); break;
	case F_WDAY: c->result = tmpl_cstr(c->arena, days[wd]); break;
	case F_UNIX: c->result = tmpl_int64(t->sec); break;
	case F_MILLI: c->result = tmpl_int64(t->sec * 1000 + t->nsec / 1000000); break;
	case F_MICRO: c->result = tmpl_int64(t->sec * 1000000 + t->nsec / 1000); break;
	case F_NANOS: c->result = tmpl_int64(t->sec * 1000000000 + t->nsec); break;
	default: c->result = tmpl_bool(t->sec == GOTIME_ZERO_SEC && t->nsec == 0); break;
	}
	return 0;
}

static int m_format(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	gotime_format(self_t(c), c->argv[0].u.s.ptr, c->argv[0].u.s.len, &b);
	return ret_buf(c, &b);
}

static int m_string(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	gotime_string(self_t(c), &b);
	return ret_buf(c, &b);
}

static int m_add_date(tmpl_call *c)
{
	const gotime *t = self_t(c);
	int64_t y;
	int mo, d, h, mi, s, wd, yd;
	gotime n;
	gotime_civil(t, &y, &mo, &d, &h, &mi, &s, &wd, &yd);
	n = gotime_date(y + c->argv[0].u.i, mo + c->argv[1].u.i, d + c->argv[2].u.i, h, mi, s, t->nsec, t->loc);
	return ret_time(c, &n);
}

static int m_add(tmpl_call *c)
{
	gotime n = gotime_add(self_t(c), c->argv[0].u.i);
	return ret_time(c, &n);
}

/* data: 0 UTC, 1 Local */
static int m_in(tmpl_call *c)
{
	gotime n = *self_t(c);
	n.loc = c->data ? gotime_local() : NULL;
	n.has_mono = 0;
	return ret_time(c, &n);
}

/* data: 0 Before, 1 After, 2 Equal, 3 Compare */
static int m_cmp(tmpl_call *c)
{
	const gotime *o = as_time(&c->argv[0]), *t = self_t(c); /* 't' */
	int64_t d;
	d = gotime_sub(t, o);
	switch ((int)(intptr_t)c->data) {
	case 0: c->result = tmpl_bool(d < 0); break;
	case 1: c->result = tmpl_bool(d > 0); break;
	case 2: c->result = tmpl_bool(d == 0); break;
	default: c->result = tmpl_int(d < 0 ? -1 : d > 0); break;
	}
	return 0;
}

static int m_zone(tmpl_call *c)
{
	return tmpl_call_errorf(c, "invalid function signature for Zone: second return value should be error; is int");
}

#define FIELD(n, k) {n, m_field, "", (void *)(intptr_t)(k)}
static const tmpl_method time_methods[] = {
	FIELD("Year", F_YEAR), FIELD("Month", F_MONTH), FIELD("Day", F_DAY), FIELD("Hour", F_HOUR),
	FIELD("Minute", F_MINUTE), FIELD("Second", F_SECOND), FIELD("Nanosecond", F_NANO),
	FIELD("YearDay", F_YDAY), FIELD("Weekday", F_WDAY), FIELD("Unix", F_UNIX), FIELD("UnixMilli", F_MILLI),
	FIELD("UnixMicro", F_MICRO), FIELD("UnixNano", F_NANOS), FIELD("IsZero", F_ISZERO),
	{"Format", m_format, "s", NULL},
	{"String", m_string, "", NULL},
	{"AddDate", m_add_date, "iii", NULL},
	{"Add", m_add, "I", NULL},
	{"UTC", m_in, "", (void *)0},
	{"Local", m_in, "", (void *)1},
	{"Before", m_cmp, "t", (void *)0},
	{"After", m_cmp, "t", (void *)1},
	{"Equal", m_cmp, "t", (void *)2},
	{"Compare", m_cmp, "t", (void *)3},
	{"Zone", m_zone, "", NULL},
	{NULL, NULL, NULL, NULL},
};

static void time_format(bh_buf *out, const tmpl_value *self, int plus)
{
	(void)plus;
	gotime_string(self->u.obj->data, out);
}

static json_t *time_json(const tmpl_value *self, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	json_t *j;
	if (gotime_rfc3339(self->u.obj->data, &b)) {
		bh_buf_free(&b);
		bh_error_set(err, BH_EINVAL,
			     "json: error calling MarshalJSON for type time.Time: Time.MarshalJSON: year outside of range [0,9999]");
		return NULL;
	}
	j = json_stringn(bh_buf_str(&b), b.len);
	bh_buf_free(&b);
	return j;
}

static const tmpl_class time_class = {
	"time.Time", 0, time_methods, NULL, time_format, time_json, 0,
};

const gotime *tmpl_time_of(const tmpl_value *v)
{
	return as_time(v);
}

tmpl_value tmpl_time_value(tmpl_arena *a, const gotime *t)
{
	return time_value(a, t);
}

/* ---- functions ---- */

static int fn_now(tmpl_call *c)
{
	gotime t = gotime_now();
	return ret_time(c, &t);
}

/* The date argument of date/dateInZone/htmlDate: time.Time, or int/int64
 * Unix seconds; anything else means now. */
static gotime date_arg(const tmpl_value *v)
{
	const gotime *t = as_time(v);
	if (t)
		return *t;
	if (v->kind == TMPL_INT || v->kind == TMPL_INT64)
		return gotime_unix(v->u.i);
	return gotime_now();
}

static int date_in_zone(tmpl_call *c, const char *fmt, size_t fn, const tmpl_value *date, const char *zone,
			size_t zn)
{
	char name[256];
	const gotime_loc *loc = NULL;
	gotime t = date_arg(date);
	bh_buf b = BH_BUF_INIT;
	if (zn < sizeof name && !memchr(zone, '\0', zn)) {
		memcpy(name, zone, zn);
		name[zn] = '\0';
		if (gotime_load_location(name, &loc))
			loc = NULL;
	}
	t.loc = loc;
	gotime_format(&t, fmt, fn, &b);
	return ret_buf(c, &b);
}

static int fn_date(tmpl_call *c)
{
	return date_in_zone(c, c->argv[0].u.s.ptr, c->argv[0].u.s.len, &c->argv[1], "Local", 5);
}

static int fn_date_in_zone(tmpl_call *c)
{
	return date_in_zone(c, c->argv[0].u.s.ptr, c->argv[0].u.s.len, &c->argv[1], c->argv[2].u.s.ptr,
			    c->argv[2].u.s.len);
}

static int fn_html_date(tmpl_call *c)
{
	return date_in_zone(c, "2006-01-02", 10, &c->argv[0], "Local", 5);
}

static int fn_html_date_in_zone(tmpl_call *c)
{
	return date_in_zone(c, "2006-01-02", 10, &c->argv[0], c->argv[1].u.s.ptr, c->argv[1].u.s.len);
}

/* data: 1 = must (bad durations are errors) */
static int fn_date_modify(tmpl_call *c)
{
	const gotime *t = as_time(&c->argv[1]); /* 't': the engine checked it */
	int64_t d;
	char em[512];
	gotime n;
	if (gotime_parse_duration(c->argv[0].u.s.ptr, c->argv[0].u.s.len, &d, em, sizeof em)) {
		if (c->data)
			return tmpl_call_errorf(c, "%s", em);
		return ret_time(c, t);
	}
	n = gotime_add(t, d);
	return ret_time(c, &n);
}

static int fn_ago(tmpl_call *c)
{
	const tmpl_value *v = &c->argv[0];
	gotime now = gotime_now(), t;
	bh_buf b = BH_BUF_INIT;
	if (as_time(v))
		t = *as_time(v);
	else if (v->kind == TMPL_INT || v->kind == TMPL_INT64)
		t = gotime_unix(v->u.i);
	else
		t = now;
	gotime_duration_string(gotime_duration_round(gotime_sub(&now, &t), 1000000000), &b);
	return ret_buf(c, &b);
}

/* Go strconv.ParseInt(s, 10, 64) as Sprig uses it (errors ignored: 0 for
 * syntax errors, the clamped value for range errors). */
static int64_t parse_int_ignoring(const char *s, size_t n)
{
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0, lim;
	if (n > 0 && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		return 0;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	int over = 0;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		if (!over) {
			if (v > (lim - (uint64_t)(s[i] - '0')) / 10)
				over = 1;
			else
				v = v * 10 + (uint64_t)(s[i] - '0');
		}
	}
	if (over)
		return neg ? INT64_MIN : INT64_MAX;
	return neg ? (int64_t)(0 - v) : (int64_t)v;
}

static int fn_duration(tmpl_call *c)
{
	const tmpl_value *v = &c->argv[0];
	int64_t n = 0;
	bh_buf b = BH_BUF_INIT;
	if (v->kind == TMPL_STRING)
		n = parse_int_ignoring(v->u.s.ptr, v->u.s.len);
	else if (v->kind == TMPL_INT64)
		n = v->u.i;
	gotime_duration_string((int64_t)((uint64_t)n * 1000000000ULL), &b);
	return ret_buf(c, &b);
}

static int fn_duration_round(tmpl_call *c)
{
	const tmpl_value *v = &c->argv[0];
	int64_t d = 0;
	uint64_t u;
	char em[256];
	bh_buf b = BH_BUF_INIT;
	if (v->kind == TMPL_STRING) {
		if (gotime_parse_duration(v->u.s.ptr, v->u.s.len, &d, em, sizeof em))
			d = 0;
	} else if (v->kind == TMPL_INT64) {
		d = v->u.i;
	} else if (as_time(v)) {
		gotime now = gotime_now();
		d = gotime_sub(&now, as_time(v));
	}
	u = (uint64_t)d;
	if (d < 0)
		u = 0 - u;
	const uint64_t hour = 3600000000000ULL;
	static const struct { uint64_t mult; const char *sfx; } units[] = {
		{24 * 365, "y"}, {24 * 30, "mo"}, {24, "d"}, {1, "h"},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (u > hour * units[i].mult) {
			bh_buf_printf(&b, "%" PRIu64 "%s", u / (hour * units[i].mult), units[i].sfx);
			return ret_buf(c, &b);
		}
	if (u > 60000000000ULL)
		bh_buf_printf(&b, "%" PRIu64 "m", u / (uint64_t)60000000000);
	else if (u > 1000000000ULL)
		bh_buf_printf(&b, "%" PRIu64 "s", u / (uint64_t)1000000000);
	else
		bh_buf_puts(&b, "0s");
	return ret_buf(c, &b);
}

/* data: 1 = must */
static int fn_to_date(tmpl_call *c)
{
	gotime t;
	char em[1024];
	if (gotime_parse(c->argv[0].u.s.ptr, c->argv[0].u.s.len, c->argv[1].u.s.ptr, c->argv[1].u.s.len,
			 arena_alloc, c->arena, &t, em, sizeof em)) {
		if (c->data)
			return tmpl_call_errorf(c, "%s", em);
		memset(&t, 0, sizeof t);
		t.sec = GOTIME_ZERO_SEC;
	}
	return ret_time(c, &t);
}

static int fn_unix_epoch(tmpl_call *c)
{
	const gotime *t = as_time(&c->argv[0]); /* 't': the engine checked it */
	bh_buf b = BH_BUF_INIT;
	bh_buf_printf(&b, "%" PRId64, t->sec);
	return ret_buf(c, &b);
}

const tmpl_func_def tmpl_funcs_dates[] = {
	{"now", fn_now, "", NULL},
	{"date", fn_date, "sa", NULL},
	{"dateInZone", fn_date_in_zone, "sas", NULL},
	{"date_in_zone", fn_date_in_zone, "sas", NULL},
	{"htmlDate", fn_html_date, "a", NULL},
	{"htmlDateInZone", fn_html_date_in_zone, "as", NULL},
	{"dateModify", fn_date_modify, "st", NULL},
	{"date_modify", fn_date_modify, "st", NULL},
	{"mustDateModify", fn_date_modify, "st", (void *)1},
	{"must_date_modify", fn_date_modify, "st", (void *)1},
	{"ago", fn_ago, "a", NULL},
	{"duration", fn_duration, "a", NULL},
	{"durationRound", fn_duration_round, "a", NULL},
	{"toDate", fn_to_date, "ss", NULL},
	{"mustToDate", fn_to_date, "ss", (void *)1},
	{"unixEpoch", fn_unix_epoch, "t", NULL},
	{NULL, NULL, NULL, NULL},
};
