/* tmpl/gotime.c — Go time semantics (see gotime.h). Layout handling is a
 * port of the algorithm of Go's time/format.go (nextStdChunk, Format,
 * parse); zones come from TZif files and their POSIX TZ footer. */
#include "tmpl/gotime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tmpl/gotime_zone.h"

static const char *const long_days[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
static const char *const short_days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *const long_months[] = {"January", "February", "March", "April", "May", "June", "July",
					  "August", "September", "October", "November", "December"};
static const char *const short_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
					   "Oct", "Nov", "Dec"};

/* ---- civil calendar (proleptic Gregorian) ---- */

int64_t gotime_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

int64_t gotime_days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = gotime_floordiv(y, 400);
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	z += 719468;
	int64_t era = gotime_floordiv(z, 146097);
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

int gotime_is_leap(int64_t y)
{
	return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static int days_in(int m, int64_t y)
{
	static const int dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	return m == 2 && gotime_is_leap(y) ? 29 : dim[m - 1];
}

/* ---- zones ---- */

void gotime_zone(const gotime *t, const char **name, int *offset)
{
	if (!t->loc) {
		*name = "UTC";
		*offset = 0;
		return;
	}
	gotime_loc_lookup(t->loc, t->sec, name, offset);
}

void gotime_civil(const gotime *t, int64_t *year, int *month, int *day, int *hour, int *min, int *sec,
		  int *wday, int *yday)
{
	const char *nm;
	int off;
	gotime_zone(t, &nm, &off);
	int64_t s = t->sec + off;
	int64_t days = gotime_floordiv(s, 86400);
	int64_t rem = s - days * 86400;
	civil_from_days(days, year, month, day);
	*hour = (int)(rem / 3600);
	*min = (int)(rem % 3600 / 60);
	*sec = (int)(rem % 60);
	*wday = (int)(((days + 4) % 7 + 7) % 7);
	*yday = (int)(days - gotime_days_from_civil(*year, 1, 1)) + 1;
}

gotime gotime_date(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t min, int64_t sec,
		   int64_t nsec, const gotime_loc *loc)
{
	gotime t;
	const char *nm;
	int off1, off2;
	int64_t m = month - 1;
	year += gotime_floordiv(m, 12);
	m -= gotime_floordiv(m, 12) * 12;
	sec += gotime_floordiv(nsec, 1000000000);
	nsec -= gotime_floordiv(nsec, 1000000000) * 1000000000;
	int64_t unix = gotime_days_from_civil(year, m + 1, 1) * 86400 + (day - 1) * 86400 + hour * 3600 + min * 60 + sec;
	memset(&t, 0, sizeof t);
	t.loc = loc;
	t.nsec = (int32_t)nsec;
	if (loc) {
		gotime_loc_lookup(loc, unix, &nm, &off1);
		if (off1) {
			gotime_loc_lookup(loc, unix - off1, &nm, &off2);
			unix -= off2;
		}
	}
	t.sec = unix;
	return t;
}

gotime gotime_unix(int64_t sec)
{
	gotime t;
	memset(&t, 0, sizeof t);
	t.sec = sec;
	t.loc = gotime_local();
	return t;
}

gotime gotime_now(void)
{
	static struct timespec start;
	static int started;
	struct timespec rt, mt;
	gotime t;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	if (!started) {
		start = mt;
		started = 1;
	}
	memset(&t, 0, sizeof t);
	t.sec = rt.tv_sec;
	t.nsec = (int32_t)rt.tv_nsec;
	t.loc = gotime_local();
	t.has_mono = 1;
	t.mono_ns = (mt.tv_sec - start.tv_sec) * 1000000000LL + (mt.tv_nsec - start.tv_nsec) + 1000;
	return t;
}

/* ---- layouts ---- */

enum {
	STD_NONE = 0, STD_LONG_MONTH, STD_MONTH, STD_NUM_MONTH, STD_ZERO_MONTH, STD_LONG_WEEKDAY, STD_WEEKDAY,
	STD_DAY, STD_UNDER_DAY, STD_ZERO_DAY, STD_UNDER_YEARDAY, STD_ZERO_YEARDAY, STD_HOUR, STD_HOUR12,
	STD_ZERO_HOUR12, STD_MINUTE, STD_ZERO_MINUTE, STD_SECOND, STD_ZERO_SECOND, STD_LONG_YEAR, STD_YEAR,
	STD_PM, STD_pm, STD_TZ, STD_ISO8601_TZ, STD_ISO8601_SECONDS_TZ, STD_ISO8601_SHORT_TZ,
	STD_ISO8601_COLON_TZ, STD_ISO8601_COLON_SECONDS_TZ, STD_NUM_TZ, STD_NUM_SECONDS_TZ, STD_NUM_SHORT_TZ,
	STD_NUM_COLON_TZ, STD_NUM_COLON_SECONDS_TZ, STD_FRAC0, STD_FRAC9,
};

typedef struct chunk {
	size_t prefix;  /* bytes of literal text before the element */
	int std;        /* STD_NONE at the end */
	size_t len;     /* bytes of the element in the layout */
	int digits;     /* fractional seconds: number of digits */
	char sep;       /* fractional seconds: '.' or ',' */
} chunk;

static int has(const char *l, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);
	return n >= i + k && memcmp(l + i, w, k) == 0;
}

static chunk next_chunk(const char *l, size_t n)
{
	chunk c = {n, STD_NONE, 0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		c.prefix = i;
		switch (l[i]) {
		case 'J':
			if (has(l, n, i, "Jan")) {
				if (has(l, n, i, "January")) {
					c.std = STD_LONG_MONTH, c.len = 7;
					return c;
				}
				if (!(i + 3 < n && l[i + 3] >= 'a' && l[i + 3] <= 'z')) {
					c.std = STD_MONTH, c.len = 3;
					return c;
				}
			}
			break;
		case 'M':
			if (has(l, n, i, "Mon")) {
				if (has(l, n, i, "Monday")) {
					c.std = STD_LONG_WEEKDAY, c.len = 6;
					return c;
				}
				if (!(i + 3 < n && l[i + 3] >= 'a' && l[i + 3] <= 'z')) {
					c.std = STD_WEEKDAY, c.len = 3;
					return c;
				}
			}
			if (has(l, n, i, "MST")) {
				c.std = STD_TZ, c.len = 3;
				return c;
			}
			break;
		case '0':
			if (i + 1 < n && l[i + 1] >= '1' && l[i + 1] <= '6') {
				static const int x[] = {STD_ZERO_MONTH, STD_ZERO_DAY, STD_ZERO_HOUR12, STD_ZERO_MINUTE,
							STD_ZERO_SECOND, STD_YEAR};
				c.std = x[l[i + 1] - '1'], c.len = 2;
				return c;
			}
			if (has(l, n, i, "002")) {
				c.std = STD_ZERO_YEARDAY, c.len = 3;
				return c;
			}
			break;
		case '1':
			if (i + 1 < n && l[i + 1] == '5') {
				c.std = STD_HOUR, c.len = 2;
				return c;
			}
			c.std = STD_NUM_MONTH, c.len = 1;
			return c;
		case '2':
			if (has(l, n, i, "2006")) {
				c.std = STD_LONG_YEAR, c.len = 4;
				return c;
			}
			c.std = STD_DAY, c.len = 1;
			return c;
		case '_':
			if (i + 1 < n && l[i + 1] == '2') {
				if (has(l, n, i + 1, "2006")) {
					c.prefix = i + 1, c.std = STD_LONG_YEAR, c.len = 4;
					return c;
				}
				c.std = STD_UNDER_DAY, c.len = 2;
				return c;
			}
			if (has(l, n, i, "__2")) {
				c.std = STD_UNDER_YEARDAY, c.len = 3;
				return c;
			}
			break;
		case '3': c.std = STD_HOUR12, c.len = 1; return c;
		case '4': c.std = STD_MINUTE, c.len = 1; return c;
		case '5': c.std = STD_SECOND, c.len = 1; return c;
		case 'P':
			if (i + 1 < n && l[i + 1] == 'M') {
				c.std = STD_PM, c.len = 2;
				return c;
			}
			break;
		case 'p':
			if (i + 1 < n && l[i + 1] == 'm') {
				c.std = STD_pm, c.len = 2;
				return c;
			}
			break;
		case '-':
			if (has(l, n, i, "-070000")) { c.std = STD_NUM_SECONDS_TZ, c.len = 7; return c; }
			if (has(l, n, i, "-07:00:00")) { c.std = STD_NUM_COLON_SECONDS_TZ, c.len = 9; return c; }
			if (has(l, n, i, "-0700")) { c.std = STD_NUM_TZ, c.len = 5; return c; }
			if (has(l, n, i, "-07:00")) { c.std = STD_NUM_COLON_TZ, c.len = 6; return c; }
			if (has(l, n, i, "-07")) { c.std = STD_NUM_SHORT_TZ, c.len = 3; return c; }
			break;
		case 'Z':
			if (has(l, n, i, "Z070000")) { c.std = STD_ISO8601_SECONDS_TZ, c.len = 7; return c; }
			if (has(l, n, i, "Z07:00:00")) { c.std = STD_ISO8601_COLON_SECONDS_TZ, c.len = 9; return c; }
			if (has(l, n, i, "Z0700")) { c.std = STD_ISO8601_TZ, c.len = 5; return c; }
			if (has(l, n, i, "Z07:00")) { c.std = STD_ISO8601_COLON_TZ, c.len = 6; return c; }
			if (has(l, n, i, "Z07")) { c.std = STD_ISO8601_SHORT_TZ, c.len = 3; return c; }
			break;
		case '.':
		case ',':
			if (i + 1 < n && (l[i + 1] == '0' || l[i + 1] == '9')) {
				char ch = l[i + 1];
				size_t j = i + 1;
				while (j < n && l[j] == ch)
					j++;
				if (!(j < n && l[j] >= '0' && l[j] <= '9')) {
					c.std = ch == '0' ? STD_FRAC0 : STD_FRAC9;
					c.len = j - i;
					c.digits = (int)(j - (i + 1));
					c.sep = l[i];
					return c;
				}
			}
			break;
		}
	}
	c.prefix = n;
	return c;
}

static void put_int(bh_buf *b, int64_t v, int width)
{
	if (v < 0) {
		bh_buf_putc(b, '-');
		v = -v;
	}
	bh_buf_printf(b, "%0*lld", width, (long long)v);
}

void gotime_format(const gotime *t, const char *l, size_t n, bh_buf *out)
{
	int64_t year;
	int month, day, hour, min, sec, wday, yday, off;
	const char *name;
	gotime_zone(t, &name, &off);
	gotime_civil(t, &year, &month, &day, &hour, &min, &sec, &wday, &yday);
	while (n > 0) {
		chunk c = next_chunk(l, n);
		bh_buf_put(out, l, c.prefix);
		if (c.std == STD_NONE)
			break;
		switch (c.std) {
		case STD_YEAR: {
			int64_t y = year % 100;
			put_int(out, y < 0 ? -y : y, 2);
			break;
		}
		case STD_LONG_YEAR: put_int(out, year, 4); break;
		case STD_MONTH: bh_buf_puts(out, short_months[month - 1]); break;
		case STD_LONG_MONTH: bh_buf_puts(out, long_months[month - 1]); break;
		case STD_NUM_MONTH: put_int(out, month, 0); break;
		case STD_ZERO_MONTH: put_int(out, month, 2); break;
		case STD_WEEKDAY: bh_buf_puts(out, short_days[wday]); break;
		case STD_LONG_WEEKDAY: bh_buf_puts(out, long_days[wday]); break;
		case STD_DAY: put_int(out, day, 0); break;
		case STD_UNDER_DAY:
			if (day < 10)
				bh_buf_putc(out, ' ');
			put_int(out, day, 0);
			break;
		case STD_ZERO_DAY: put_int(out, day, 2); break;
		case STD_UNDER_YEARDAY:
			if (yday < 100) {
				bh_buf_putc(out, ' ');
				if (yday < 10)
					bh_buf_putc(out, ' ');
			}
			put_int(out, yday, 0);
			break;
		case STD_ZERO_YEARDAY: put_int(out, yday, 3); break;
		case STD_HOUR: put_int(out, hour, 2); break;
		case STD_HOUR12: put_int(out, hour % 12 == 0 ? 12 : hour % 12, 0); break;
		case STD_ZERO_HOUR12: put_int(out, hour % 12 == 0 ? 12 : hour % 12, 2); break;
		case STD_MINUTE: put_int(out, min, 0); break;
		case STD_ZERO_MINUTE: put_int(out, min, 2); break;
		case STD_SECOND: put_int(out, sec, 0); break;
		case STD_ZERO_SECOND: put_int(out, sec, 2); break;
		case STD_PM: bh_buf_puts(out, hour >= 12 ? "PM" : "AM"); break;
		case STD_pm: bh_buf_puts(out, hour >= 12 ? "pm" : "am"); break;
		case STD_ISO8601_TZ:
		case STD_ISO8601_COLON_TZ:
		case STD_ISO8601_SECONDS_TZ:
		case STD_ISO8601_SHORT_TZ:
		case STD_ISO8601_COLON_SECONDS_TZ:
			if (off == 0) {
				bh_buf_putc(out, 'Z');
				break;
			}
			/* fall through */
		case STD_NUM_TZ:
		case STD_NUM_COLON_TZ:
		case STD_NUM_SECONDS_TZ:
		case STD_NUM_SHORT_TZ:
		case STD_NUM_COLON_SECONDS_TZ: {
			int zone = off / 60, abs = off;
			int colon = c.std == STD_ISO8601_COLON_TZ || c.std == STD_NUM_COLON_TZ ||
				    c.std == STD_ISO8601_COLON_SECONDS_TZ || c.std == STD_NUM_COLON_SECONDS_TZ;
			if (zone < 0) {
				bh_buf_putc(out, '-');
				zone = -zone;
				abs = -abs;
			} else {
				bh_buf_putc(out, '+');
			}
			put_int(out, zone / 60, 2);
			if (colon)
				bh_buf_putc(out, ':');
			if (c.std != STD_NUM_SHORT_TZ && c.std != STD_ISO8601_SHORT_TZ)
				put_int(out, zone % 60, 2);
			if (c.std == STD_ISO8601_SECONDS_TZ || c.std == STD_NUM_SECONDS_TZ ||
			    c.std == STD_NUM_COLON_SECONDS_TZ || c.std == STD_ISO8601_COLON_SECONDS_TZ) {
				if (c.std == STD_NUM_COLON_SECONDS_TZ || c.std == STD_ISO8601_COLON_SECONDS_TZ)
					bh_buf_putc(out, ':');
				put_int(out, abs % 60, 2);
			}
			break;
		}
		case STD_TZ:
			if (name[0]) {
				bh_buf_puts(out, name);
			} else {
				int zone = off / 60;
				bh_buf_putc(out, zone < 0 ? '-' : '+');
				if (zone < 0)
					zone = -zone;
				put_int(out, zone / 60, 2);
				put_int(out, zone % 60, 2);
			}
			break;
		case STD_FRAC0:
		case STD_FRAC9: {
			char digits[16];
			int k = c.digits > 9 ? 9 : c.digits;
			if (c.std == STD_FRAC9 && (c.digits == 0 || t->nsec == 0))
				break;
			snprintf(digits, sizeof digits, "%09d", (int)t->nsec);
			digits[k] = '\0';
			if (c.std == STD_FRAC9)
				while (k > 0 && digits[k - 1] == '0')
					digits[--k] = '\0';
			if (k > 0 || c.std == STD_FRAC0) {
				bh_buf_putc(out, c.sep);
				bh_buf_puts(out, digits);
			}
			break;
		}
		}
		l += c.prefix + c.len;
		n -= c.prefix + c.len;
	}
}

void gotime_string(const gotime *t, bh_buf *out)
{
	static const char layout[] = "2006-01-02 15:04:05.999999999 -0700 MST";
	gotime_format(t, layout, sizeof layout - 1, out);
	if (t->has_mono) {
		int64_t m = t->mono_ns;
		char sign = '+';
		if (m < 0) {
			sign = '-';
			m = -m;
		}
		bh_buf_printf(out, " m=%c%lld.%09lld", sign, (long long)(m / 1000000000), (long long)(m % 1000000000));
	}
}

int gotime_rfc3339(const gotime *t, bh_buf *out)
{
	static const char layout[] = "2006-01-02T15:04:05.999999999Z07:00";
	int64_t y;
	int mo, d, h, mi, s, wd, yd;
	gotime_civil(t, &y, &mo, &d, &h, &mi, &s, &wd, &yd);
	if (y < 0 || y > 9999)
		return -1;
	gotime_format(t, layout, sizeof layout - 1, out);
	return 0;
}

/* ---- parsing ---- */

static void quote(bh_buf *b, const char *s, size_t n)
{
	bh_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\')
			bh_buf_printf(b, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			bh_buf_printf(b, "\\x%02x", ch);
		else
			bh_buf_putc(b, (char)ch);
	}
	bh_buf_putc(b, '"');
}

typedef struct pstate {
	const char *layout, *value;
	size_t ln, vn;
	char *errmsg;
	size_t errsz;
} pstate;

static int perr(pstate *p, const char *lelem, size_t lelen, const char *velem, size_t velen, const char *msg)
{
	bh_buf b = BH_BUF_INIT;
	bh_buf_puts(&b, "parsing time ");
	quote(&b, p->value, p->vn);
	if (msg) {
		bh_buf_puts(&b, msg);
	} else {
		bh_buf_puts(&b, " as ");
		quote(&b, p->layout, p->ln);
		bh_buf_puts(&b, ": cannot parse ");
		quote(&b, velem, velen);
		bh_buf_puts(&b, " as ");
		quote(&b, lelem, lelen);
	}
	snprintf(p->errmsg, p->errsz, "%s", bh_buf_str(&b));
	bh_buf_free(&b);
	return -1;
}

static int isdig(const char *s, size_t n, size_t i)
{
	return i < n && s[i] >= '0' && s[i] <= '9';
}

/* getnum: one or two digits (exactly two when fixed) */
static int getnum(const char **s, size_t *n, int fixed, int *out)
{
	if (!isdig(*s, *n, 0))
		return -1;
	if (!isdig(*s, *n, 1)) {
		if (fixed)
			return -1;
		*out = (*s)[0] - '0';
		(*s)++, (*n)--;
		return 0;
	}
	*out = ((*s)[0] - '0') * 10 + (*s)[1] - '0';
	*s += 2, *n -= 2;
	return 0;
}

static int getnum3(const char **s, size_t *n, int fixed, int *out)
{
	int v = 0, i;
	for (i = 0; i < 3 && isdig(*s, *n, (size_t)i); i++)
		v = v * 10 + (*s)[i] - '0';
	if (i == 0 || (fixed && i != 3))
		return -1;
	*out = v;
	*s += i, *n -= (size_t)i;
	return 0;
}

static int lookup_name(const char *const *tab, int cnt, const char **s, size_t *n)
{
	for (int i = 0; i < cnt; i++) {
		size_t k = strlen(tab[i]);
		if (*n >= k && strncasecmp(*s, tab[i], k) == 0) {
			*s += k, *n -= k;
			return i;
		}
	}
	return -1;
}

/* parseTimeZone: length of a zone abbreviation at s, or 0 */
static size_t parse_tz(const char *s, size_t n)
{
	size_t up;
	if (n < 3)
		return 0;
	if (n >= 4 && (memcmp(s, "ChST", 4) == 0 || memcmp(s, "MeST", 4) == 0))
		return 4;
	if (memcmp(s, "GMT", 3) == 0) {
		size_t i = 3;
		if (i < n && (s[i] == '+' || s[i] == '-')) {
			size_t j = i + 1;
			long v = 0;
			while (j < n && s[j] >= '0' && s[j] <= '9' && v < 100)
				v = v * 10 + (s[j++] - '0');
			if (j > i + 1 && v <= 23)
				return j;
		}
		return 3;
	}
	if (s[0] == '+' || s[0] == '-') {
		size_t j = 1;
		long v = 0;
		while (j < n && s[j] >= '0' && s[j] <= '9' && j < 4)
			v = v * 10 + (s[j++] - '0');
		return j > 1 && v <= 23 ? j : 0;
	}
	for (up = 0; up < 6 && up < n && s[up] >= 'A' && s[up] <= 'Z'; up++)
		;
	switch (up) {
	case 5: return s[4] == 'T' ? 5 : 0;
	case 4: return s[3] == 'T' || memcmp(s, "WITA", 4) == 0 ? 4 : 0;
	case 3: return 3;
	default: return 0;
	}
}

static int parse_nanos(const char *s, size_t nbytes, int *ns)
{
	int v = 0;
	if (s[0] != '.' && s[0] != ',')
		return -1;
	if (nbytes > 10)
		nbytes = 10;
	for (size_t i = 1; i < nbytes; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + s[i] - '0';
	}
	for (size_t i = nbytes; i < 10; i++)
		v *= 10;
	*ns = v;
	return 0;
}

int gotime_parse(const char *layout, size_t ln, const char *value, size_t vn,
		 void *(*alloc)(void *ud, size_t n), void *ud, gotime *out, char *errmsg, size_t errsz)
{
	pstate p = {layout, value, ln, vn, errmsg, errsz};
	const char *l = layout, *v = value;
	size_t n = ln, m = vn;
	int am = 0, pm = 0;
	int64_t year = 0;
	int month = -1, day = -1, yday = -1, hour = 0, min = 0, sec = 0, nsec = 0;
	int have_z = 0, zoff = -1;
	char zname[16] = "";
	const char *range = NULL;
	for (;;) {
		chunk c = next_chunk(l, n);
		const char *stdstr = l + c.prefix;
		size_t stdlen = c.len;
		/* skip the literal prefix */
		const char *pr = l;
		size_t pn = c.prefix;
		while (pn > 0) {
			if (pr[0] == ' ') {
				if (m > 0 && v[0] != ' ')
					return perr(&p, l, c.prefix, v, m, NULL);
				while (pn > 0 && pr[0] == ' ')
					pr++, pn--;
				while (m > 0 && v[0] == ' ')
					v++, m--;
				continue;
			}
			if (m == 0 || v[0] != pr[0])
				return perr(&p, l, c.prefix, v, m, NULL);
			pr++, pn--, v++, m--;
		}
		if (c.std == STD_NONE) {
			if (m != 0) {
				bh_buf b = BH_BUF_INIT;
				bh_buf_puts(&b, ": extra text: ");
				quote(&b, v, m);
				perr(&p, NULL, 0, NULL, 0, bh_buf_str(&b));
				bh_buf_free(&b);
				return -1;
			}
			break;
		}
		l += c.prefix + c.len;
		n -= c.prefix + c.len;
		const char *hold = v;
		size_t holdn = m;
		int bad = 0, x;
		switch (c.std) {
		case STD_YEAR:
			if (m < 2 || !isdig(v, m, 0) || !isdig(v, m, 1)) {
				bad = 1;
				break;
			}
			year = (v[0] - '0') * 10 + v[1] - '0';
			year += year >= 69 ? 1900 : 2000;
			v += 2, m -= 2;
			break;
		case STD_LONG_YEAR:
			if (m < 4 || !isdig(v, m, 0) || !isdig(v, m, 1) || !isdig(v, m, 2) || !isdig(v, m, 3)) {
				bad = 1;
				break;
			}
			year = (v[0] - '0') * 1000 + (v[1] - '0') * 100 + (v[2] - '0') * 10 + v[3] - '0';
			v += 4, m -= 4;
			break;
		case STD_MONTH:
			month = lookup_name(short_months, 12, &v, &m) + 1;
			bad = month == 0;
			break;
		case STD_LONG_MONTH:
			month = lookup_name(long_months, 12, &v, &m) + 1;
			bad = month == 0;
			break;
		case STD_NUM_MONTH:
		case STD_ZERO_MONTH:
			bad = getnum(&v, &m, c.std == STD_ZERO_MONTH, &month) != 0;
			if (!bad && (month <= 0 || month > 12))
				range = "month";
			break;
		case STD_WEEKDAY:
			bad = lookup_name(short_days, 7, &v, &m) < 0;
			break;
		case STD_LONG_WEEKDAY:
			bad = lookup_name(long_days, 7, &v, &m) < 0;
			break;
		case STD_DAY:
		case STD_UNDER_DAY:
		case STD_ZERO_DAY:
			if (c.std == STD_UNDER_DAY && m > 0 && v[0] == ' ')
				v++, m--;
			bad = getnum(&v, &m, c.std == STD_ZERO_DAY, &day) != 0;
			break;
		case STD_UNDER_YEARDAY:
		case STD_ZERO_YEARDAY:
			for (int i = 0; i < 2; i++)
				if (c.std == STD_UNDER_YEARDAY && m > 0 && v[0] == ' ')
					v++, m--;
			bad = getnum3(&v, &m, c.std == STD_ZERO_YEARDAY, &yday) != 0;
			break;
		case STD_HOUR:
			bad = getnum(&v, &m, 0, &hour) != 0;
			if (hour < 0 || hour >= 24)
				range = "hour";
			break;
		case STD_HOUR12:
		case STD_ZERO_HOUR12:
			bad = getnum(&v, &m, c.std == STD_ZERO_HOUR12, &hour) != 0;
			if (hour < 0 || hour > 12)
				range = "hour";
			break;
		case STD_MINUTE:
		case STD_ZERO_MINUTE:
			bad = getnum(&v, &m, c.std == STD_ZERO_MINUTE, &min) != 0;
			if (min < 0 || min >= 60)
				range = "minute";
			break;
		case STD_SECOND:
		case STD_ZERO_SECOND:
			bad = getnum(&v, &m, c.std == STD_ZERO_SECOND, &sec) != 0;
			if (bad)
				break;
			if (sec < 0 || sec >= 60) {
				range = "second";
				break;
			}
			if (m >= 2 && (v[0] == '.' || v[0] == ',') && isdig(v, m, 1)) {
				chunk nc = next_chunk(l, n);
				if (nc.std == STD_FRAC0 || nc.std == STD_FRAC9)
					break;
				size_t k = 2;
				while (k < m && isdig(v, m, k))
					k++;
				bad = parse_nanos(v, k, &nsec) != 0;
				v += k, m -= k;
			}
			break;
		case STD_PM:
		case STD_pm:
			if (m < 2) {
				bad = 1;
				break;
			}
			if (memcmp(v, c.std == STD_PM ? "PM" : "pm", 2) == 0)
				pm = 1;
			else if (memcmp(v, c.std == STD_PM ? "AM" : "am", 2) == 0)
				am = 1;
			else
				bad = 1;
			v += 2, m -= 2;
			break;
		case STD_ISO8601_TZ:
		case STD_ISO8601_SHORT_TZ:
		case STD_ISO8601_COLON_TZ:
		case STD_ISO8601_SECONDS_TZ:
		case STD_ISO8601_COLON_SECONDS_TZ:
			if (m >= 1 && v[0] == 'Z') {
				v++, m--;
				have_z = 1;
				break;
			}
			/* fall through */
		case STD_NUM_TZ:
		case STD_NUM_SHORT_TZ:
		case STD_NUM_COLON_TZ:
		case STD_NUM_SECONDS_TZ:
		case STD_NUM_COLON_SECONDS_TZ: {
			const char *hr, *mm = "00", *ss = "00";
			char sign;
			size_t used;
			int std = c.std, h = 0, mi = 0, s = 0;
			if (std == STD_ISO8601_TZ || std == STD_NUM_TZ) {
				if (m < 5 || v[3] == ':') { bad = 1; break; }
				hr = v + 1, mm = v + 3, used = 5;
			} else if (std == STD_NUM_SHORT_TZ || std == STD_ISO8601_SHORT_TZ) {
				if (m < 3) { bad = 1; break; }
				hr = v + 1, used = 3;
			} else if (std == STD_ISO8601_COLON_TZ || std == STD_NUM_COLON_TZ) {
				if (m < 6 || v[3] != ':') { bad = 1; break; }
				hr = v + 1, mm = v + 4, used = 6;
			} else if (std == STD_NUM_COLON_SECONDS_TZ || std == STD_ISO8601_COLON_SECONDS_TZ) {
				if (m < 9 || v[3] != ':' || v[6] != ':') { bad = 1; break; }
				hr = v + 1, mm = v + 4, ss = v + 7, used = 9;
			} else {
				if (m < 7 || v[3] == ':' || v[5] == ':') { bad = 1; break; }
				hr = v + 1, mm = v + 3, ss = v + 5, used = 7;
			}
			sign = v[0];
			const char *t1 = hr, *t2 = mm, *t3 = ss;
			size_t n1 = 2, n2 = 2, n3 = 2;
			if (getnum(&t1, &n1, 1, &h) || getnum(&t2, &n2, 1, &mi) || getnum(&t3, &n3, 1, &s)) {
				bad = 1;
				break;
			}
			v += used, m -= used;
			if (h > 24)
				range = "time zone offset hour";
			if (mi > 60)
				range = "time zone offset minute";
			if (s > 60)
				range = "time zone offset second";
			zoff = (h * 60 + mi) * 60 + s;
			if (sign == '-')
				zoff = -zoff;
			else if (sign != '+')
				bad = 1;
			break;
		}
		case STD_TZ: {
			size_t k;
			if (m >= 3 && memcmp(v, "UTC", 3) == 0) {
				have_z = 1;
				v += 3, m -= 3;
				break;
			}
			k = parse_tz(v, m);
			if (k == 0 || k >= sizeof zname) {
				bad = 1;
				break;
			}
			memcpy(zname, v, k);
			zname[k] = '\0';
			v += k, m -= k;
			break;
		}
		case STD_FRAC0: {
			size_t nd = 1 + (size_t)c.digits;
			if (m < nd) {
				bad = 1;
				break;
			}
			bad = parse_nanos(v, nd, &nsec) != 0;
			v += nd, m -= nd;
			break;
		}
		case STD_FRAC9: {
			size_t i = 0;
			if (m < 2 || (v[0] != '.' && v[0] != ',') || v[1] < '0' || v[1] > '9')
				break;
			while (i + 1 < m && v[i + 1] >= '0' && v[i + 1] <= '9')
				i++;
			bad = parse_nanos(v, 1 + i, &nsec) != 0;
			v += 1 + i, m -= 1 + i;
			break;
		}
		}
		(void)x;
		if (range) {
			char msg[64];
			snprintf(msg, sizeof msg, ": %s out of range", range);
			return perr(&p, NULL, 0, NULL, 0, msg);
		}
		if (bad)
			return perr(&p, stdstr, stdlen, hold, holdn, NULL);
	}
	if (pm && hour < 12)
		hour += 12;
	else if (am && hour == 12)
		hour = 0;
	if (yday >= 0) {
		static const int before[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};
		int d = 0, mo = 0;
		if (gotime_is_leap(year)) {
			if (yday == 31 + 29) {
				mo = 2;
				d = 29;
			} else if (yday > 31 + 29) {
				yday--;
			}
		}
		if (yday < 1 || yday > 365)
			return perr(&p, NULL, 0, NULL, 0, ": day-of-year out of range");
		if (mo == 0) {
			mo = (yday - 1) / 31 + 1;
			if (before[mo] < yday)
				mo++;
			d = yday - before[mo - 1];
		}
		if (month >= 0 && month != mo)
			return perr(&p, NULL, 0, NULL, 0, ": day-of-year does not match month");
		month = mo;
		if (day >= 0 && day != d)
			return perr(&p, NULL, 0, NULL, 0, ": day-of-year does not match day");
		day = d;
	} else {
		if (month < 0)
			month = 1;
		if (day < 0)
			day = 1;
	}
	if (day < 1 || day > days_in(month, year))
		return perr(&p, NULL, 0, NULL, 0, ": day out of range");
	const gotime_loc *local = gotime_local();
	if (have_z) {
		*out = gotime_date(year, month, day, hour, min, sec, nsec, NULL);
		return 0;
	}
	if (zoff != -1 || zname[0]) {
		gotime t = gotime_date(year, month, day, hour, min, sec, nsec, NULL);
		const char *lname;
		int loff, off = 0;
		gotime_loc *fz;
		if (zoff != -1) {
			t.sec -= zoff;
			gotime_loc_lookup(local, t.sec, &lname, &loff);
			if (loff == zoff && (!zname[0] || strcmp(lname, zname) == 0)) {
				t.loc = local;
				*out = t;
				return 0;
			}
			off = zoff;
		} else {
			if (gotime_loc_lookup_name(local, zname, t.sec, &loff) == 0) {
				t.sec -= loff;
				t.loc = local;
				*out = t;
				return 0;
			}
			if (strlen(zname) > 3 && memcmp(zname, "GMT", 3) == 0)
				off = atoi(zname + 3) * 3600;
		}
		fz = alloc(ud, gotime_loc_fixed_size());
		if (!fz) {
			snprintf(errmsg, errsz, "out of memory");
			return -1;
		}
		gotime_loc_fixed_init(fz, zname, off);
		t.loc = fz;
		*out = t;
		return 0;
	}
	*out = gotime_date(year, month, day, hour, min, sec, nsec, local);
	return 0;
}

/* ---- durations ---- */

int gotime_parse_duration(const char *s0, size_t n0, int64_t *out, char *errmsg, size_t errsz)
{
	const char *s = s0;
	size_t n = n0;
	uint64_t d = 0;
	int neg = 0;
	bh_buf q = BH_BUF_INIT;
	quote(&q, s0, n0);
#define DUR_FAIL(...) do { snprintf(errmsg, errsz, __VA_ARGS__); bh_buf_free(&q); return -1; } while (0)
	if (n > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		s++, n--;
	}
	if (n == 1 && s[0] == '0') {
		*out = 0;
		bh_buf_free(&q);
		return 0;
	}
	if (n == 0)
		DUR_FAIL("time: invalid duration %s", bh_buf_str(&q));
	while (n > 0) {
		uint64_t v = 0, f = 0, unit = 0;
		double scale = 1;
		int pre = 0, post = 0, overflow = 0;
		if (!(s[0] == '.' || (s[0] >= '0' && s[0] <= '9')))
			DUR_FAIL("time: invalid duration %s", bh_buf_str(&q));
		while (n > 0 && s[0] >= '0' && s[0] <= '9') {
			if (v > (UINT64_MAX >> 1) / 10)
				DUR_FAIL("time: invalid duration %s", bh_buf_str(&q));
			v = v * 10 + (uint64_t)(s[0] - '0');
			if (v > (uint64_t)1 << 63)
				DUR_FAIL("time: invalid duration %s", bh_buf_str(&q));
			s++, n--, pre = 1;
		}
		if (n > 0 && s[0] == '.') {
			s++, n--;
			while (n > 0 && s[0] >= '0' && s[0] <= '9') {
				post = 1;
				if (!overflow) {
					if (f > (UINT64_MAX >> 1) / 10) {
						overflow = 1;
					} else {
						f = f * 10 + (uint64_t)(s[0] - '0');
						scale *= 10;
					}
				}
				s++, n--;
			}
		}
		if (!pre && !post)
			DUR_FAIL("time: invalid duration %s", bh_buf_str(&q));
		size_t i = 0;
		while (i < n && !(s[i] == '.' || (s[i] >= '0' && s[i] <= '9')))
			i++;
		if (i == 0)
			DUR_FAIL("time: missing unit in duration %s", bh_buf_str(&q));
		if (i == 2 && memcmp(s, "ns", 2) == 0) unit = 1;
		else if (i == 2 && memcmp(s, "us", 2) == 0) unit = 1000;
		else if (i == 3 && (memcmp(s, "\xc2\xb5s", 3) == 0 || memcmp(s, "\xce\xbcs", 3) == 0)) unit = 1000;
		else if (i == 2 && memcmp(s, "ms", 2) == 0) unit = 1000000;
		else if (i == 1 && s[0] == 's') unit = 1000000000ULL;
		else if (i == 1 && s[0] == 'm') unit = 60000000000ULL;
		else if (i == 1 && s[0] == 'h') unit = 3600000000000ULL;
		else {
			bh_buf u = BH_BUF_INIT;
			quote(&u, s, i);
			snprintf(errmsg, errsz, "time: unknown unit %s in duration %s", bh_buf_str(&u), bh_buf_str(&q));
			bh_buf_free(&u);
			bh_buf_free(&q);
			return -1;
		}
		s += i, n -= i;
		if (v > ((uint64_t)1 << 63) / unit)
			DUR_FAIL("time: invalid duration %s", bh_buf_str(&q));
		v *= unit;
		if (f > 0) {
			v += (uint64_t)((double)f * ((double)unit / scale));
			if (v > (uint64_t)1 << 63)
				DUR_FAIL("time: invalid duration %s", bh_buf_str(&q));
		}
		d += v;
		if (d > (uint64_t)1 << 63)
			DUR_FAIL("time: invalid duration %s", bh_buf_str(&q));
	}
	if (!neg && d > (uint64_t)INT64_MAX)
		DUR_FAIL("time: invalid duration %s", bh_buf_str(&q));
#undef DUR_FAIL
	bh_buf_free(&q);
	*out = neg ? (int64_t)(0 - d) : (int64_t)d;
	return 0;
}

/* fmtFrac + fmtInt, building right to left */
void gotime_duration_string(int64_t d, bh_buf *out)
{
	char buf[40];
	int w = (int)sizeof buf;
	uint64_t u = (uint64_t)d;
	int neg = d < 0;
	if (neg)
		u = 0 - u;
#define PUT(ch) (buf[--w] = (ch))
	if (u < 1000000000ULL) {
		int prec = 0;
		PUT('s');
		if (u == 0) {
			bh_buf_puts(out, "0s");
			return;
		} else if (u < 1000) {
			prec = 0;
			PUT('n');
		} else if (u < 1000000) {
			prec = 3;
			PUT('\xb5');
			PUT('\xc2');
		} else {
			prec = 6;
			PUT('m');
		}
		int printed = 0;
		for (int i = 0; i < prec; i++) {
			int digit = (int)(u % 10);
			printed = printed || digit != 0;
			if (printed)
				PUT((char)('0' + digit));
			u /= 10;
		}
		if (printed)
			PUT('.');
		if (u == 0)
			PUT('0');
		while (u > 0) {
			PUT((char)('0' + u % 10));
			u /= 10;
		}
	} else {
		PUT('s');
		int printed = 0;
		for (int i = 0; i < 9; i++) {
			int digit = (int)(u % 10);
			printed = printed || digit != 0;
			if (printed)
				PUT((char)('0' + digit));
			u /= 10;
		}
		if (printed)
			PUT('.');
		uint64_t x = u % 60;
		if (x == 0)
			PUT('0');
		while (x > 0) {
			PUT((char)('0' + x % 10));
			x /= 10;
		}
		u /= 60;
		if (u > 0) {
			PUT('m');
			x = u % 60;
			if (x == 0)
				PUT('0');
			while (x > 0) {
				PUT((char)('0' + x % 10));
				x /= 10;
			}
			u /= 60;
			if (u > 0) {
				PUT('h');
				while (u > 0) {
					PUT((char)('0' + u % 10));
					u /= 10;
				}
			}
		}
	}
	if (neg)
		PUT('-');
#undef PUT
	bh_buf_put(out, buf + w, sizeof buf - (size_t)w);
}

int64_t gotime_duration_round(int64_t d, int64_t m)
{
	int64_t r;
	if (m <= 0)
		return d;
	r = d % m;
	if (d < 0) {
		r = -r;
		if ((uint64_t)r + (uint64_t)r < (uint64_t)m)
			return d + r;
		if (d - m + r < d)
			return d - m + r;
		return INT64_MIN;
	}
	if ((uint64_t)r + (uint64_t)r < (uint64_t)m)
		return d - r;
	if (d + m - r > d)
		return d + m - r;
	return INT64_MAX;
}

int64_t gotime_sub(const gotime *t, const gotime *u)
{
	__int128 d = ((__int128)t->sec - u->sec) * 1000000000 + (t->nsec - u->nsec);
	if (d > INT64_MAX)
		return INT64_MAX;
	if (d < INT64_MIN)
		return INT64_MIN;
	return (int64_t)d;
}

gotime gotime_add(const gotime *t, int64_t d)
{
	gotime r = *t;
	int64_t ds = d / 1000000000, dn = d % 1000000000;
	r.sec += ds;
	r.nsec += (int32_t)dn;
	if (r.nsec >= 1000000000) {
		r.sec++;
		r.nsec -= 1000000000;
	} else if (r.nsec < 0) {
		r.sec--;
		r.nsec += 1000000000;
	}
	if (r.has_mono)
		r.mono_ns += d;
	return r;
}
