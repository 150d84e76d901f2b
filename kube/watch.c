/* kube/watch.c — watch-stream decoding and the resuming watch loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client_priv.h"
#include "kube/internal.h"
#include "kube/kube.h"
#include "kube/watch_priv.h"
#include "kube/watchdec.h"
#include "lib/buf.h"
#include "lib/json_skim.h"

static const char *const type_names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR", "RELIST"};

const char *kube_watch_type_name(kube_watch_type t)
{
	if ((unsigned)t < sizeof type_names / sizeof type_names[0])
		return type_names[t];
	return "?";
}

/* ---- decoder ---- */

void kube_watchdec_init(kube_watchdec *d, kube_watchdec_fn fn, void *ud)
{
	memset(d, 0, sizeof *d);
	bh_buf_init(&d->line);
	bh_buf_init(&d->cut);
	bh_buf_init(&d->slim);
	d->fn = fn;
	d->ud = ud;
}

void kube_watchdec_free(kube_watchdec *d)
{
	bh_buf_free(&d->line);
	bh_buf_free(&d->cut);
	bh_buf_free(&d->slim);
}

/* ---- object.metadata.managedFields, dropped before decoding ----
 * Nothing reads an object's managedFields from a watch, and they are often
 * the larger part of it: the event's bytes go to jansson without them
 * (json_skim: the dropped value still checked for JSON syntax; anything
 * unusual leaves the line whole for jansson to judge). One scan of the
 * line finds them and the members at the decoder's drop paths. */

static const char *const mf_path[] = {"object", "metadata", "managedFields"};
#define MF_BIT 1u /* managedFields: path 0 */

/* ps: managedFields, then the object's members at the dotted paths of
 * drop (NULL-terminated, or NULL), those that fit. */
static void paths_build(json_skim_paths *ps, const char *const *drop)
{
	static const char *const object[] = {"object"};
	ps->n = 0;
	json_skim_paths_add(ps, mf_path, 3, NULL);
	for (; drop && *drop; drop++)
		json_skim_paths_add(ps, object, 1, *drop);
}

/* b := s[0..n) less the members of f at mask (json_skim_cut_found): the
 * number cut, or -1 out of memory. */
static int cut_into(bh_buf *b, const char *s, size_t n, const json_skim_found *f, unsigned mask)
{
	int ncut;
	bh_buf_reset(b);
	if (bh_buf_grow(b, n) < 0)
		return -1;
	b->len = json_skim_cut_found(s, n, f, mask, b->data, &ncut);
	b->data[b->len] = '\0';
	return ncut;
}

/* The event line decoded into *obj and its type: bytes[0..len) of line,
 * read by load (json_loadb's like, kube_watch_opts.tree_load; NULL:
 * json_loadb). */
static int event_decode(const char *line, size_t len, kube_json_load_fn load, kube_watch_type *type, json_t **obj,
			size_t *members, bh_error *err)
{
	json_error_t je;
	json_t *ev = (load ? load : json_loadb)(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!ev)
		return bh_error_set(err, BH_EPARSE, "watch event: invalid JSON at column %d: %s", je.column, je.text);
	int rc = 0;
	const char *t = json_string_value(json_object_get(ev, "type"));
	json_t *o = json_object_get(ev, "object");
	if (!json_is_object(ev) || !t) {
		rc = bh_error_set(err, BH_EPARSE, "watch event: no \"type\"");
	} else if (!json_is_object(o)) {
		rc = bh_error_set(err, BH_EPARSE, "watch event %s: \"object\" is not an object", t);
	} else {
		size_t i;
		for (i = 0; i < 5; i++)
			if (!strcmp(t, type_names[i]))
				break;
		if (i == 5)
			rc = bh_error_set(err, BH_EPARSE, "watch event: unknown type \"%.40s\"", t);
		else
			*type = (kube_watch_type)i;
	}
	if (!rc)
		*obj = json_incref(o);
	if (members)
		*members = json_object_size(ev);
	json_decref(ev);
	return rc;
}

/* Just past `key:` (key quoted, klen bytes) at p after blanks, and the
 * blanks after it; NULL when the member there has another name. */
static const char *member_at(const char *p, const char *e, const char *key, size_t klen)
{
	p = json_skim_ws(p, e);
	if ((size_t)(e - p) < klen || memcmp(p, key, klen) != 0)
		return NULL;
	p = json_skim_ws(p + klen, e);
	return p < e && *p == ':' ? json_skim_ws(p + 1, e) : NULL;
}

/* q moved back over the blanks before it, not past p. */
static const char *ws_back(const char *p, const char *q)
{
	while (q > p && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r' || q[-1] == '\n'))
		q--;
	return q;
}

/* The text of the event's object found without stepping over it: the API
 * server writes {"type":"...","object":{...}}, and when the event decodes
 * with those two members alone (the caller checks: event_decode's members,
 * duplicates refused), the object's value runs from just after
 * "object": to the line's closing brace. [*vs, *ve), or 0 (*vs NULL) when
 * the line does not begin that way (json_skim_object then steps over the
 * whole object to find it, as it must for any other order). 1 when placed. */
static int object_last(const char *s, size_t n, const char **vs, const char **ve)
{
	const char *e = s + n, *p = json_skim_ws(s, e), *q;
	*vs = *ve = NULL;
	if (p == e || *p != '{' || !(p = member_at(p + 1, e, "\"type\"", 6)) || !(p = json_skim_value(p, e, 1, 0)))
		return 0;
	p = json_skim_ws(p, e);
	if (p == e || *p != ',' || !(p = member_at(p + 1, e, "\"object\"", 8)))
		return 0;
	q = ws_back(p, e);
	if (q == p || q[-1] != '}')
		return 0;
	q = ws_back(p, q - 1);
	if (q - p < 2 || *p != '{' || q[-1] != '}')
		return 0;
	*vs = p;
	*ve = q;
	return 1;
}

/* The event line (len bytes) decoded, its object's managedFields left out
 * (the line without them kept in cut); with text, the object's own text in
 * the line decoded (NULL when the skim cannot place it), and then the
 * members at the paths of ps after the first (managedFields) are left out
 * of the tree (decoded from slim), not out of the text. */
static int event_parse(const char *line, size_t len, bh_buf *cut, bh_buf *slim, const json_skim_paths *ps,
		       kube_json_load_fn load, kube_watch_type *type, json_t **obj, const char **text, size_t *tlen,
		       bh_error *err)
{
	static const char *const keys[] = {"object", NULL};
	json_skim_span v = {NULL, NULL};
	json_skim_found f;
	const char *end, *whole = line;
	size_t wlen = len;
	int mf = 0, slimmed = 0, last = 0;
	size_t members = 0;
	unsigned found = json_skim_find(line, len, ps, &f);
	if (found & MF_BIT) {
		if ((mf = cut_into(cut, line, len, &f, MF_BIT)) < 0)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		if (mf) {
			line = cut->data;
			len = cut->len;
		}
	}
	if (text && !(last = object_last(line, len, &v.s, &v.e)) &&
	    (json_skim_object(line, line + len, 0, keys, &v, &end) < 0 || !v.s || *v.s != '{'))
		v.s = NULL; /* no text: nothing dropped from the tree either */
	if (v.s && slim && (found & ~MF_BIT)) {
		int n = cut_into(slim, whole, wlen, &f, found);
		if (n < 0)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		slimmed = n > mf; /* managedFields go first, from both alike */
	}
	int rc = slimmed ? event_decode(slim->data, slim->len, load, type, obj, &members, err)
			 : event_decode(line, len, load, type, obj, &members, err);
	if (rc)
		return rc;
	if (last && members != 2) { /* more than type and object: found by the full step after all */
		if (json_skim_object(line, line + len, 0, keys, &v, &end) < 0 || !v.s || *v.s != '{')
			v.s = NULL;
		if (!v.s && slimmed) { /* no text: the tree must be whole */
			json_decref(*obj);
			*obj = NULL;
			if ((rc = event_decode(line, len, load, type, obj, NULL, err)))
				return rc;
			slimmed = 0;
		}
	}
	/* the cut was not made: the tree's managedFields go, and the text
	 * (which has them) is not given */
	if (json_object_del(json_object_get(*obj, "metadata"), "managedFields") == 0) {
		v.s = NULL;
		if (slimmed) { /* the tree must then be whole: decoded again */
			json_decref(*obj);
			*obj = NULL;
			if ((rc = event_decode(line, len, load, type, obj, NULL, err)))
				return rc;
			json_object_del(json_object_get(*obj, "metadata"), "managedFields");
		}
	}
	if (text) {
		*text = v.s;
		*tlen = v.s ? (size_t)(v.e - v.s) : 0;
	}
	return 0;
}

int kube_watch_event_parse(const char *line, size_t len, kube_watch_type *type, json_t **obj, bh_error *err)
{
	bh_buf cut = BH_BUF_INIT;
	json_skim_paths ps;
	paths_build(&ps, NULL);
	int rc = event_parse(line, len, &cut, NULL, &ps, NULL, type, obj, NULL, NULL, err);
	bh_buf_free(&cut);
	return rc;
}

static int dec_line(kube_watchdec *d, const char *p, size_t n, bh_error *err)
{
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i == n)
		return 0;
	kube_watch_type type;
	json_t *obj = NULL;
	if (!d->paths_ready || d->paths_of != d->drop) {
		paths_build(&d->paths, d->drop);
		d->paths_of = d->drop;
		d->paths_ready = 1;
	}
	int rc = event_parse(p + i, n - i, &d->cut, &d->slim, &d->paths, d->load, &type, &obj, &d->obj_text,
			     &d->obj_len, err);
	if (rc)
		return rc;
	d->events++;
	if (d->fn && d->fn(d->ud, type, obj))
		d->stopped = 1;
	d->obj_text = NULL;
	json_decref(obj);
	return 0;
}

int kube_watchdec_feed(kube_watchdec *d, const char *data, size_t len, bh_error *err)
{
	size_t max = d->max_line ? d->max_line : KUBE_WATCH_MAX_LINE;
	while (len && !d->stopped) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? (size_t)(nl - data) : len;
		if (d->line.len + take > max)
			return bh_error_set(err, BH_ELIMIT, "watch event larger than %zu bytes", max);
		if (!nl) {
			bh_buf_put(&d->line, data, take);
			break;
		}
		int rc;
		if (d->line.len) {
			bh_buf_put(&d->line, data, take);
			if (!bh_buf_ok(&d->line))
				return bh_error_set(err, BH_ENOMEM, "out of memory");
			rc = dec_line(d, d->line.data, d->line.len, err);
			bh_buf_reset(&d->line);
		} else {
			rc = dec_line(d, data, take, err);
		}
		if (rc)
			return rc;
		data += take + 1;
		len -= take + 1;
	}
	if (!bh_buf_ok(&d->line))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

int kube_watchdec_finish(kube_watchdec *d, bh_error *err)
{
	if (d->stopped || !d->line.len)
		return 0;
	int rc = dec_line(d, d->line.data, d->line.len, err);
	bh_buf_reset(&d->line);
	return rc;
}

/* ---- watch loop ---- */

static void set_rv(kube_client *c, const json_t *obj)
{
	const char *rv = json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
	if (rv && *rv && strlen(rv) < sizeof c->watch_rv)
		snprintf(c->watch_rv, sizeof c->watch_rv, "%s", rv);
}

int kube_watch_on_event(void *ud, kube_watch_type type, json_t *obj)
{
	struct kube_wstate *w = ud;
	if (type == KUBE_WATCH_ERROR) {
		json_int_t code = json_integer_value(json_object_get(obj, "code"));
		const char *msg = json_string_value(json_object_get(obj, "message"));
		snprintf(w->status_msg, sizeof w->status_msg, "%lld %s", (long long)code, msg ? msg : "");
		if (code == 410)
			w->gone = 1;
		return 1; /* the server ends the watch after an ERROR anyway */
	}
	set_rv(w->c, obj);
	w->events++;
	if (type == KUBE_WATCH_BOOKMARK && !w->o->deliver_bookmarks)
		return 0;
	w->c->watch_text = w->dec.obj_text;
	w->c->watch_text_len = w->dec.obj_len;
	int stop = w->fn(w->ud, type, obj);
	w->c->watch_text = NULL;
	if (stop) {
		w->user_stop = 1;
		return 1;
	}
	return 0;
}

int kube_watch_on_bytes(void *ud, const char *data, size_t len)
{
	struct kube_wstate *w = ud;
	if (kube_watchdec_feed(&w->dec, data, len, w->err)) {
		w->dec_failed = 1;
		return 1;
	}
	return w->dec.stopped;
}

int kube_watch_relist(kube_client *c, const kube_resource *r, const char *ns, struct kube_wstate *w, bh_error *err)
{
	kube_list_opts lo = {.label_selector = w->o->label_selector, .field_selector = w->o->field_selector};
	json_t *list = NULL;
	int rc = kube_list(c, r, ns, &lo, &list, err);
	if (rc)
		return bh_error_prefix(err, "watch %s: relist", r->resource);
	set_rv(c, list);
	/* as a watch event's, the items' managedFields are not delivered */
	size_t i;
	json_t *it;
	json_array_foreach(json_object_get(list, "items"), i, it)
		json_object_del(json_object_get(it, "metadata"), "managedFields");
	if (w->fn(w->ud, KUBE_WATCH_RELIST, list))
		w->user_stop = 1;
	json_decref(list);
	return 0;
}

char *kube_watch_query_new(const kube_client *c, const kube_resource *r, const char *ns, const kube_watch_opts *o,
			   long tmo)
{
	char *base = kube_path_new(r, ns, NULL, NULL);
	bh_buf q = BH_BUF_INIT;
	bh_buf_printf(&q, "%s?watch=1&allowWatchBookmarks=true&timeoutSeconds=%ld", base ? base : "", tmo);
	free(base);
	if (c->watch_rv[0]) {
		bh_buf_puts(&q, "&resourceVersion=");
		kube_query_escape(&q, c->watch_rv);
	}
	if (o->label_selector) {
		bh_buf_puts(&q, "&labelSelector=");
		kube_query_escape(&q, o->label_selector);
	}
	if (o->field_selector) {
		bh_buf_puts(&q, "&fieldSelector=");
		kube_query_escape(&q, o->field_selector);
	}
	if (!bh_buf_ok(&q)) {
		bh_buf_free(&q);
		return NULL;
	}
	return q.data;
}

const char *kube_watch_last_rv(const kube_client *c)
{
	return c->watch_rv;
}

const char *kube_watch_object_text(const kube_client *c, size_t *len)
{
	*len = c->watch_text ? c->watch_text_len : 0;
	return c->watch_text;
}

int kube_watch_judge(struct kube_wstate *w, const kube_resource *r, int rc, const kube_response *resp,
		     const char *path, long began, long events_before, int *failures, long *delay_ms, bh_error *err)
{
	kube_client *c = w->c;
	const kube_watch_opts *o = w->o;
	int max_fail = o->max_reconnects > 0 ? o->max_reconnects : 10;
	int failed = 0;
	*delay_ms = 0;
	long ra = kube_parse_retry_after(resp->retry_after);
	int progressed = w->events > events_before;
	if (w->dec_failed || rc == BH_EPARSE) {
		failed = 1; /* garbled stream: reconnect from the last good resourceVersion */
	} else if (rc == BH_EUNAVAIL || rc == BH_ETIMEOUT) {
		failed = 1;
	} else if (rc) {
		return bh_error_prefix(err, "watch %s", r->resource);
	} else if (resp->status == 410 || w->gone) {
		c->watch_rv[0] = 0;
		*failures = 0;
		return BH_EGONE;
	} else if (w->status_msg[0]) {
		bh_error_set(err, BH_EPROTO, "watch %s: server error: %s", r->resource, w->status_msg);
		failed = 1;
	} else if (resp->status < 200 || resp->status >= 300) {
		rc = kube_client_response_error(c, resp, path, err);
		if (rc != BH_EUNAVAIL && rc != BH_ETIMEOUT)
			return bh_error_prefix(err, "watch %s", r->resource);
		failed = 1;
	}
	if (!failed) {
		*failures = 0;
		/* a server that ends watches at once with nothing to say
		 * must not make us spin */
		if (!progressed && kube_now_ms() - began < 1000)
			*delay_ms = c->retry.base_ms;
		return 0;
	}
	if (progressed)
		*failures = 0;
	++*failures;
	if (*failures > max_fail) {
		bh_error last = *err;
		return bh_error_set(err, last.code ? last.code : BH_EUNAVAIL,
				    "watch %s: giving up after %d consecutive failures: %s", r->resource, *failures,
				    last.msg);
	}
	long d = c->retry.base_ms;
	for (int i = 1; i < *failures && d < c->retry.max_ms; i++)
		d *= 2;
	if (d > c->retry.max_ms)
		d = c->retry.max_ms;
	if (ra >= 0)
		d = ra;
	*delay_ms = d;
	return 0;
}

int kube_watch(kube_client *c, const kube_resource *r, const char *ns, const kube_watch_opts *opts,
               kube_watch_fn fn, void *ud, bh_error *err)
{
	static const kube_watch_opts defaults = {0};
	bh_error local;
	if (!err)
		err = &local;
	const kube_watch_opts *o = opts ? opts : &defaults;
	if (!r || !r->resource || !fn)
		return bh_error_set(err, BH_EINVAL, "watch: resource and callback are required");
	if (!c->t->ops->stream)
		return bh_error_set(err, BH_EINVAL, "watch: the transport cannot stream");
	struct kube_wstate w = {.c = c, .o = o, .fn = fn, .ud = ud, .err = err};
	long start = kube_now_ms();
	long tmo = o->timeout_seconds > 0 ? o->timeout_seconds : 300;
	int failures = 0;
	int rc = 0;
	c->watch_rv[0] = 0;
	if (o->resource_version && *o->resource_version) {
		snprintf(c->watch_rv, sizeof c->watch_rv, "%s", o->resource_version);
	} else {
		rc = kube_watch_relist(c, r, ns, &w, err);
		if (rc || w.user_stop)
			return rc;
	}
	for (;;) {
		long left = 0;
		if (o->max_seconds > 0) {
			left = o->max_seconds * 1000 - (kube_now_ms() - start);
			if (left <= 0)
				return 0;
		}
		char *path = kube_watch_query_new(c, r, ns, o, tmo);
		const char **headers = kube_merge_headers(c, NULL);
		if (!path || !headers) {
			free(path);
			free(headers);
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
		long stream_ms = (tmo + 30) * 1000;
		if (left > 0 && left < stream_ms)
			stream_ms = left;
		kube_request req = {.method = "GET", .path = path, .headers = headers, .timeout_ms = stream_ms};
		kube_response resp = KUBE_RESPONSE_INIT;
		kube_watchdec_init(&w.dec, kube_watch_on_event, &w);
		w.dec.drop = o->tree_drop;
		w.dec.load = o->tree_load;
		w.gone = w.dec_failed = 0;
		w.status_msg[0] = 0;
		long events_before = w.events;
		long began = kube_now_ms();
		rc = c->t->ops->stream(c->t->impl, &req, &resp, kube_watch_on_bytes, &w, err);
		if (!rc && !w.dec_failed && !w.dec.stopped && resp.status >= 200 && resp.status < 300)
			rc = kube_watchdec_finish(&w.dec, err) ? BH_EPARSE : 0;
		if (w.user_stop) {
			kube_watchdec_free(&w.dec);
			free(headers);
			free(path);
			kube_response_free(&resp);
			return 0;
		}
		long d = 0;
		int own_deadline = rc == BH_ETIMEOUT && o->max_seconds > 0 &&
				   kube_now_ms() - start >= o->max_seconds * 1000;
		if (own_deadline)
			rc = 0; /* the loop's top returns */
		else
			rc = kube_watch_judge(&w, r, rc, &resp, path, began, events_before, &failures, &d, err);
		kube_watchdec_free(&w.dec);
		free(headers);
		free(path);
		kube_response_free(&resp);
		if (rc == BH_EGONE) { /* resourceVersion too old: list again and resume from there */
			rc = kube_watch_relist(c, r, ns, &w, err);
			if (rc || w.user_stop)
				return rc;
			continue;
		}
		if (rc)
			return rc;
		if (d > 0)
			c->sleep_ms(c->hook_ud, d);
	}
}
