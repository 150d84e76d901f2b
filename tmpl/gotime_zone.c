/* tmpl/gotime_zone.c — time zone locations (see gotime_zone.h). */
#include "tmpl/gotime_zone.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TZ_MAX_FILE (256 * 1024)
#define TZ_MAX_TYPES 256

typedef struct tzrule {
	int kind; /* 0 none, 'J' julian, 'D' day of year, 'M' month.week.day */
	int day, week, mon;
	int time;
} tzrule;

typedef struct tztype {
	int32_t off;
	int isdst;
	char abbr[16];
} tztype;

struct gotime_loc {
	int fixed;
	char fixed_name[16];
	int fixed_off;
	/* TZif */
	size_t ntrans;
	int64_t *trans;
	unsigned char *idx;
	int ntypes;
	tztype types[TZ_MAX_TYPES];
	/* footer */
	int has_ext, has_dst;
	char std[16], dst[16];
	int stdoff, dstoff;
	tzrule start, end;
	gotime_loc *next;    /* cache list */
	char name[128];
};

size_t gotime_loc_fixed_size(void)
{
	return sizeof(gotime_loc);
}

void gotime_loc_fixed_init(gotime_loc *l, const char *name, int offset)
{
	memset(l, 0, sizeof *l);
	l->fixed = 1;
	snprintf(l->fixed_name, sizeof l->fixed_name, "%s", name);
	l->fixed_off = offset;
}

/* ---- POSIX TZ strings ---- */

static const char *tz_name(const char *s, char *out, size_t outsz)
{
	size_t n = 0;
	if (*s == '<') {
		s++;
		while (*s && *s != '>') {
			if (n + 1 < outsz)
				out[n++] = *s;
			s++;
		}
		if (*s != '>')
			return NULL;
		s++;
	} else {
		while (*s && ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))) {
			if (n + 1 < outsz)
				out[n++] = *s;
			s++;
		}
		if (n < 3)
			return NULL;
	}
	out[n] = '\0';
	return s;
}

/* [+-]hh[:mm[:ss]] -> seconds */
static const char *tz_hms(const char *s, int *out)
{
	int sign = 1, v[3] = {0, 0, 0}, k = 0;
	if (*s == '+' || *s == '-') {
		sign = *s == '-' ? -1 : 1;
		s++;
	}
	if (*s < '0' || *s > '9')
		return NULL;
	for (;;) {
		int x = 0, nd = 0;
		while (*s >= '0' && *s <= '9' && nd < 3) {
			x = x * 10 + (*s++ - '0');
			nd++;
		}
		v[k++] = x;
		if (k < 3 && *s == ':' && s[1] >= '0' && s[1] <= '9') {
			s++;
			continue;
		}
		break;
	}
	*out = sign * (v[0] * 3600 + v[1] * 60 + v[2]);
	return s;
}

static const char *tz_rule(const char *s, tzrule *r)
{
	memset(r, 0, sizeof *r);
	if (*s == 'J') {
		r->kind = 'J';
		r->day = (int)strtol(s + 1, (char **)&s, 10);
	} else if (*s == 'M') {
		char *e;
		r->kind = 'M';
		r->mon = (int)strtol(s + 1, &e, 10);
		if (*e != '.')
			return NULL;
		r->week = (int)strtol(e + 1, &e, 10);
		if (*e != '.')
			return NULL;
		r->day = (int)strtol(e + 1, &e, 10);
		s = e;
		if (r->mon < 1 || r->mon > 12 || r->week < 1 || r->week > 5 || r->day < 0 || r->day > 6)
			return NULL;
	} else if (*s >= '0' && *s <= '9') {
		r->kind = 'D';
		r->day = (int)strtol(s, (char **)&s, 10);
	} else {
		return NULL;
	}
	r->time = 2 * 3600;
	if (*s == '/') {
		s = tz_hms(s + 1, &r->time);
		if (!s)
			return NULL;
	}
	return s;
}

static void parse_footer(gotime_loc *l, const char *s)
{
	int off;
	s = tz_name(s, l->std, sizeof l->std);
	if (!s || !(s = tz_hms(s, &off)))
		return;
	l->stdoff = -off;
	l->has_ext = 1;
	if (*s == '\0')
		return;
	s = tz_name(s, l->dst, sizeof l->dst);
	if (!s) {
		l->has_ext = 0;
		return;
	}
	l->dstoff = l->stdoff + 3600;
	if (*s && *s != ',') {
		if (!(s = tz_hms(s, &off))) {
			l->has_ext = 0;
			return;
		}
		l->dstoff = -off;
	}
	if (*s != ',' || !(s = tz_rule(s + 1, &l->start)) || *s != ',' || !(s = tz_rule(s + 1, &l->end))) {
		l->has_ext = 0;
		return;
	}
	l->has_dst = 1;
}

/* seconds from the start of year y (UTC) of the rule's moment */
static int64_t rule_time(int64_t y, const tzrule *r, int off)
{
	int64_t s = 0;
	static const int dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (r->kind == 'J') {
		s = (int64_t)(r->day - 1) * 86400;
		if (gotime_is_leap(y) && r->day >= 60)
			s += 86400;
	} else if (r->kind == 'D') {
		s = (int64_t)r->day * 86400;
	} else {
		int64_t first = gotime_days_from_civil(y, r->mon, 1);
		int dow = (int)(((first + 4) % 7 + 7) % 7);
		int d = r->day - dow, mdays = dim[r->mon - 1] + (r->mon == 2 && gotime_is_leap(y));
		if (d < 0)
			d += 7;
		for (int i = 1; i < r->week; i++) {
			if (d + 7 >= mdays)
				break;
			d += 7;
		}
		s = (first - gotime_days_from_civil(y, 1, 1) + d) * 86400;
	}
	return s + r->time - off;
}

static void ext_lookup(const gotime_loc *l, int64_t sec, const char **name, int *offset)
{
	if (!l->has_dst) {
		*name = l->std;
		*offset = l->stdoff;
		return;
	}
	int64_t days = gotime_floordiv(sec, 86400);
	/* year of the UTC date */
	int64_t y = 1970 + gotime_floordiv(days * 400, 146097);
	while (gotime_days_from_civil(y, 1, 1) > days)
		y--;
	while (gotime_days_from_civil(y + 1, 1, 1) <= days)
		y++;
	int64_t ysec = sec - gotime_days_from_civil(y, 1, 1) * 86400;
	int64_t st = rule_time(y, &l->start, l->stdoff), en = rule_time(y, &l->end, l->dstoff);
	const char *sn = l->std, *dn = l->dst;
	int so = l->stdoff, dof = l->dstoff;
	if (en < st) {
		int64_t t = st;
		st = en;
		en = t;
		sn = l->dst, dn = l->std;
		so = l->dstoff, dof = l->stdoff;
	}
	if (ysec < st || ysec >= en) {
		*name = sn;
		*offset = so;
	} else {
		*name = dn;
		*offset = dof;
	}
}

static int first_zone(const gotime_loc *l)
{
	int used0 = 0;
	for (size_t i = 0; i < l->ntrans; i++)
		if (l->idx[i] == 0)
			used0 = 1;
	if (!used0)
		return 0;
	for (int i = 0; i < l->ntypes; i++)
		if (!l->types[i].isdst)
			return i;
	return 0;
}

void gotime_loc_lookup(const gotime_loc *l, int64_t sec, const char **name, int *offset)
{
	if (!l) {
		*name = "UTC";
		*offset = 0;
		return;
	}
	if (l->fixed) {
		*name = l->fixed_name;
		*offset = l->fixed_off;
		return;
	}
	if (l->ntypes == 0) {
		if (l->has_ext) {
			ext_lookup(l, sec, name, offset);
			return;
		}
		*name = "UTC";
		*offset = 0;
		return;
	}
	if (l->ntrans == 0 || sec < l->trans[0]) {
		const tztype *t = &l->types[first_zone(l)];
		*name = t->abbr;
		*offset = t->off;
		return;
	}
	size_t lo = 0, hi = l->ntrans;
	while (hi - lo > 1) {
		size_t m = (lo + hi) / 2;
		if (sec < l->trans[m])
			hi = m;
		else
			lo = m;
	}
	if (lo == l->ntrans - 1 && l->has_ext) {
		ext_lookup(l, sec, name, offset);
		return;
	}
	*name = l->types[l->idx[lo]].abbr;
	*offset = l->types[l->idx[lo]].off;
}

int gotime_loc_lookup_name(const gotime_loc *l, const char *name, int64_t sec, int *offset)
{
	if (!l || l->fixed)
		return -1;
	for (int i = 0; i < l->ntypes; i++)
		if (strcmp(l->types[i].abbr, name) == 0) {
			const char *nm;
			int off;
			gotime_loc_lookup(l, sec - l->types[i].off, &nm, &off);
			if (strcmp(nm, name) == 0) {
				*offset = off;
				return 0;
			}
		}
	for (int i = 0; i < l->ntypes; i++)
		if (strcmp(l->types[i].abbr, name) == 0) {
			*offset = l->types[i].off;
			return 0;
		}
	return -1;
}

/* ---- TZif ---- */

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
	return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

static void loc_free(gotime_loc *l)
{
	if (!l)
		return;
	free(l->trans);
	free(l->idx);
	free(l);
}

static gotime_loc *parse_tzif(const unsigned char *d, size_t n)
{
	gotime_loc *l;
	size_t cnt[6], off = 0;
	int v2;
	if (n < 44 || memcmp(d, "TZif", 4) != 0)
		return NULL;
	v2 = d[4] >= '2';
	for (int i = 0; i < 6; i++)
		cnt[i] = be32(d + 20 + 4 * i);
	size_t isut = cnt[0], isstd = cnt[1], leapc = cnt[2], timec = cnt[3], typec = cnt[4], charc = cnt[5];
	size_t tsz = 4;
	off = 44;
	if (v2) {
		size_t skip = timec * 4 + timec + typec * 6 + charc + leapc * 8 + isstd + isut;
		if (off + skip + 44 > n || memcmp(d + off + skip, "TZif", 4) != 0)
			return NULL;
		off += skip;
		for (int i = 0; i < 6; i++)
			cnt[i] = be32(d + off + 20 + 4 * i);
		isut = cnt[0], isstd = cnt[1], leapc = cnt[2], timec = cnt[3], typec = cnt[4], charc = cnt[5];
		off += 44;
		tsz = 8;
	}
	size_t need = timec * tsz + timec + typec * 6 + charc + leapc * (tsz + 4) + isstd + isut;
	if (typec == 0 || typec > TZ_MAX_TYPES || need > n - off)
		return NULL;
	l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->ntrans = timec;
	l->trans = calloc(timec + 1, sizeof(int64_t));
	l->idx = calloc(timec + 1, 1);
	if (!l->trans || !l->idx) {
		loc_free(l);
		return NULL;
	}
	const unsigned char *p = d + off;
	for (size_t i = 0; i < timec; i++)
		l->trans[i] = tsz == 8 ? be64(p + 8 * i) : (int32_t)be32(p + 4 * i);
	p += timec * tsz;
	for (size_t i = 0; i < timec; i++) {
		l->idx[i] = p[i];
		if (p[i] >= typec) {
			loc_free(l);
			return NULL;
		}
	}
	p += timec;
	const unsigned char *chars = p + typec * 6;
	l->ntypes = (int)typec;
	for (size_t i = 0; i < typec; i++) {
		size_t ai = p[6 * i + 5];
		l->types[i].off = (int32_t)be32(p + 6 * i);
		l->types[i].isdst = p[6 * i + 4];
		if (ai < charc) {
			size_t k = 0;
			while (ai + k < charc && chars[ai + k] && k + 1 < sizeof l->types[i].abbr) {
				l->types[i].abbr[k] = (char)chars[ai + k];
				k++;
			}
		}
	}
	p += typec * 6 + charc + leapc * (tsz + 4) + isstd + isut;
	if (v2 && p < d + n && *p == '\n') {
		char foot[128];
		size_t k = 0;
		p++;
		while (p < d + n && *p != '\n' && k + 1 < sizeof foot)
			foot[k++] = (char)*p++;
		foot[k] = '\0';
		if (k > 0)
			parse_footer(l, foot);
	}
	return l;
}

static int file_access = 1;

void gotime_set_file_access(int allowed)
{
	pthread_mutex_lock(&cache_mu);
	file_access = allowed;
	pthread_mutex_unlock(&cache_mu);
}

void gotime_preload(void)
{
	(void)gotime_local();
}

/* called with cache_mu held */
static gotime_loc *load_file(const char *path)
{
	FILE *f = file_access ? fopen(path, "rb") : NULL;
	unsigned char *buf;
	size_t n;
	gotime_loc *l;
	if (!f)
		return NULL;
	buf = malloc(TZ_MAX_FILE);
	if (!buf) {
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, TZ_MAX_FILE, f);
	fclose(f);
	l = parse_tzif(buf, n);
	free(buf);
	return l;
}

static int valid_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= 100 || name[0] == '/' || name[0] == '\\' || strstr(name, ".."))
		return 0;
	return strchr(name, '\\') == NULL;
}

static gotime_loc *load_named(const char *name)
{
	static const char *const dirs[] = {"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/",
					   "/usr/lib/locale/TZ/", "/etc/zoneinfo/"};
	char path[512];
	gotime_loc *l = NULL;
	if (!valid_name(name))
		return NULL;
	for (size_t i = 0; !l && i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s%s", dirs[i], name);
		l = load_file(path);
	}
	if (l)
		snprintf(l->name, sizeof l->name, "%s", name);
	return l;
}

static gotime_loc *cache;
static gotime_loc *local_loc;
static int local_done;
static gotime_loc utc_local; /* Local when nothing can be read: UTC */

const gotime_loc *gotime_local(void)
{
	pthread_mutex_lock(&cache_mu);
	if (!local_done) {
		const char *tz = getenv("TZ");
		gotime_loc *l = NULL;
		local_done = 1;
		if (tz && *tz == ':')
			tz++;
		if (tz && *tz) {
			if (tz[0] == '/')
				l = load_file(tz);
			else
				l = load_named(tz);
		} else if (!tz) {
			l = load_file("/etc/localtime");
		}
		if (!l) {
			gotime_loc_fixed_init(&utc_local, "UTC", 0);
			l = &utc_local;
		}
		local_loc = l;
	}
	pthread_mutex_unlock(&cache_mu);
	return local_loc;
}

int gotime_load_location(const char *name, const gotime_loc **out)
{
	gotime_loc *l;
	if (name[0] == '\0' || strcmp(name, "UTC") == 0) {
		*out = NULL;
		return 0;
	}
	if (strcmp(name, "Local") == 0) {
		*out = gotime_local();
		return 0;
	}
	pthread_mutex_lock(&cache_mu);
	for (l = cache; l; l = l->next)
		if (strcmp(l->name, name) == 0)
			break;
	if (!l && (l = load_named(name))) {
		l->next = cache;
		cache = l;
	}
	pthread_mutex_unlock(&cache_mu);
	*out = l;
	return l ? 0 : -1;
}
