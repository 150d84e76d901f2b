/* helm/storage.c — release history in Secrets (see storage.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helm/release.h"
#include "helm/storage.h"
#include "lib/buf.h"

static const kube_resource secrets = {"", "v1", "secrets", "Secret", 1};

const char *rel_name(const json_t *rel)
{
	const char *s = json_string_value(json_object_get(rel, "name"));
	return s ? s : "";
}

const char *rel_namespace(const json_t *rel)
{
	const char *s = json_string_value(json_object_get(rel, "namespace"));
	return s ? s : "";
}

int rel_version(const json_t *rel)
{
	return (int)json_integer_value(json_object_get(rel, "version"));
}

const char *rel_status(const json_t *rel)
{
	const char *s = json_string_value(json_object_get(json_object_get(rel, "info"), "status"));
	return s ? s : "";
}

int rel_status_is_pending(const char *s)
{
	return s && (!strcmp(s, "pending-install") || !strcmp(s, "pending-upgrade") || !strcmp(s, "pending-rollback"));
}

/* Rebuilds o with the keys of order[] first (in that order), then the rest. */
static void reorder(json_t *o, const char *const *order, size_t n)
{
	json_t *tmp = json_object(), *v;
	const char *k;
	if (!tmp)
		return;
	for (size_t i = 0; i < n; i++)
		if ((v = json_object_get(o, order[i])))
			json_object_set(tmp, order[i], v);
	json_object_foreach(o, k, v) if (!json_object_get(tmp, k)) json_object_set(tmp, k, v);
	json_object_clear(o);
	json_object_foreach(tmp, k, v) json_object_set(o, k, v);
	json_decref(tmp);
}

void rel_info_set(json_t *rel, const char *key, const char *value)
{
	static const char *const order[] = {"first_deployed", "last_deployed", "deleted", "description",
					    "status", "rollback_revision", "notes", "resources"};
	json_t *info = json_object_get(rel, "info");
	if (!json_is_object(info)) {
		info = json_object();
		json_object_set_new(rel, "info", info);
	}
	if (!value)
		json_object_del(info, key);
	else
		json_object_set_new(info, key, json_string(value));
	reorder(info, order, sizeof order / sizeof order[0]);
}

void rel_set(json_t *rel, const char *key, json_t *value)
{
	static const char *const order[] = {"name", "info", "chart", "config", "manifest", "hooks",
					    "version", "namespace", "apply_method"};
	if (!value)
		json_object_del(rel, key);
	else
		json_object_set_new(rel, key, value);
	reorder(rel, order, sizeof order / sizeof order[0]);
}

void storage_now(char out[40])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	release_time_format((long long)ts.tv_sec, ts.tv_nsec, out);
}

static int vcmp(const void *a, const void *b)
{
	int x = rel_version(*(json_t *const *)a), y = rel_version(*(json_t *const *)b);
	return (x > y) - (x < y);
}

/* Decodes data.release of a storage Secret (base64 in the API, then
 * Helm's base64(gzip(json))). */
static int decode_secret(const json_t *sec, json_t **out, bh_error *err)
{
	const char *sname = json_string_value(json_object_get(json_object_get(sec, "metadata"), "name"));
	const char *data = json_string_value(json_object_get(json_object_get(sec, "data"), "release"));
	bh_buf raw = BH_BUF_INIT;
	int rc;
	*out = NULL;
	if (!data)
		return bh_error_set(err, BH_EINVAL, "release Secret %s has no data.release", sname ? sname : "?");
	rc = release_base64_decode(data, strlen(data), &raw, err);
	if (rc == 0)
		rc = release_decode(raw.data ? raw.data : "", raw.len, out, err);
	bh_buf_free(&raw);
	if (rc == 0 && (!json_is_object(*out) || rel_version(*out) <= 0)) {
		json_decref(*out);
		*out = NULL;
		rc = bh_error_set(err, BH_EINVAL, "not a release record");
	}
	if (rc < 0)
		bh_error_prefix(err, "decoding release Secret %s", sname ? sname : "?");
	return rc;
}

static int storage_list(kube_client *kc, const char *ns, const char *name, json_t **out, bh_error *err);

/* storage_memo: the release whose history is kept, and that history. A
 * record this process wrote is kept as a copy of what it stored
 * (release_stored_copy), or as the JSON text it stored, decoded only when
 * the history is read again: decoding each record written was a quarter of
 * an install's CPU. */
struct memo_text {
	int version;
	char *json;
	size_t len;
};

static struct {
	kube_client *kc;
	char ns[254], name[301];
	json_t *hist; /* NULL: not read yet (or dropped) */
	struct memo_text *text;
	size_t ntext;
	release_gzkeep *gz; /* the records' compressed charts and manifests */
} memo;

static void memo_text_drop(int version)
{
	for (size_t i = 0; i < memo.ntext; i++)
		if (version < 0 || memo.text[i].version == version) {
			free(memo.text[i].json);
			memo.text[i--] = memo.text[--memo.ntext];
		}
	if (!memo.ntext) {
		free(memo.text);
		memo.text = NULL;
	}
}

static void memo_drop(void)
{
	memo_text_drop(-1);
	json_decref(memo.hist);
	memo.hist = NULL;
}

void storage_memo(kube_client *kc)
{
	memo_drop();
	release_gzkeep_free(memo.gz);
	memset(&memo, 0, sizeof memo);
	memo.kc = kc;
	memo.gz = kc ? release_gzkeep_new() : NULL;
}

static int memo_is(kube_client *kc, const char *ns, const char *name)
{
	return memo.kc && kc == memo.kc && ns && name && !strcmp(memo.ns, ns) && !strcmp(memo.name, name);
}

static void memo_keep(kube_client *kc, const char *ns, const char *name, const json_t *hist)
{
	if (!memo.kc || kc != memo.kc || !ns || strlen(ns) >= sizeof memo.ns || strlen(name) >= sizeof memo.name)
		return;
	memo_drop();
	snprintf(memo.ns, sizeof memo.ns, "%s", ns);
	snprintf(memo.name, sizeof memo.name, "%s", name);
	memo.hist = json_deep_copy(hist);
}

/* Puts rec (a new reference, or NULL to remove) in the history as version v. */
static void memo_put(int v, json_t *rec)
{
	size_t i;
	json_t *r;
	json_array_foreach(memo.hist, i, r) if (rel_version(r) >= v) break;
	if (i < json_array_size(memo.hist) && rel_version(json_array_get(memo.hist, i)) == v)
		json_array_remove(memo.hist, i);
	if (rec)
		json_array_insert_new(memo.hist, i, rec);
}

/* After a write of version v of ns/name: rec is the record as stored, or
 * when NULL json (len bytes) is its text (both taken; neither: v was
 * deleted); on a failed write (failed) the memo is dropped, the server's
 * state being unknown. */
static void memo_write(kube_client *kc, const char *ns, const char *name, int v, json_t *rec, char *json, size_t len,
		       int failed)
{
	struct memo_text *t;
	if (!memo_is(kc, ns, name) || !memo.hist || failed) {
		if (failed && memo_is(kc, ns, name))
			memo_drop();
		json_decref(rec);
		free(json);
		return;
	}
	memo_text_drop(v);
	memo_put(v, rec);
	if (rec || !json) {
		free(json);
		return;
	}
	if (!(t = realloc(memo.text, (memo.ntext + 1) * sizeof *t))) {
		free(json);
		memo_drop();
		return;
	}
	memo.text = t;
	memo.text[memo.ntext++] = (struct memo_text){v, json, len};
}

/* Decodes the records kept as text into the history; 0, or -1 (the memo
 * is dropped and the history read from the server again). */
static int memo_decode(void)
{
	for (size_t i = 0; i < memo.ntext; i++) {
		json_t *rec = json_loadb(memo.text[i].json, memo.text[i].len, 0, NULL);
		if (!json_is_object(rec) || rel_version(rec) != memo.text[i].version) {
			json_decref(rec);
			memo_drop();
			return -1;
		}
		memo_put(memo.text[i].version, rec);
	}
	memo_text_drop(-1);
	return 0;
}

int storage_history(kube_client *kc, const char *ns, const char *name, json_t **out, bh_error *err)
{
	if (memo_is(kc, ns, name) && memo.hist && memo_decode() == 0) {
		json_t *rec;
		size_t i;
		/* each record copied, its chart shared (never changed, release.h) */
		if ((*out = json_array()))
			json_array_foreach(memo.hist, i, rec) {
				if (json_array_append_new(*out, json_is_object(rec) ? release_record_copy(rec)
										     : json_deep_copy(rec)) < 0) {
					json_decref(*out);
					*out = NULL;
					break;
				}
			}
		return *out ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	int rc = storage_list(kc, ns, name, out, err);
	if (rc == 0)
		memo_keep(kc, ns, name, *out);
	return rc;
}

static int storage_list(kube_client *kc, const char *ns, const char *name, json_t **out, bh_error *err)
{
	char sel[400];
	kube_list_opts lo = {0};
	json_t *list = NULL, *it, *arr;
	json_t **v;
	size_t i, n;
	int rc;
	*out = NULL;
	if (strlen(name) > 300)
		return bh_error_set(err, BH_EINVAL, "release name too long");
	snprintf(sel, sizeof sel, "name=%s,owner=helm", name);
	lo.label_selector = sel;
	lo.max_items = STORAGE_MAX_VERSIONS;
	if ((rc = kube_list(kc, &secrets, ns, &lo, &list, err)) < 0)
		return bh_error_prefix(err, "listing the history of release %s/%s", ns, name);
	n = json_array_size(json_object_get(list, "items"));
	v = calloc(n ? n : 1, sizeof *v);
	if (!v) {
		json_decref(list);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_array_foreach(json_object_get(list, "items"), i, it) {
		if ((rc = decode_secret(it, &v[i], err)) < 0) {
			while (i--)
				json_decref(v[i]);
			free(v);
			json_decref(list);
			return rc;
		}
	}
	json_decref(list);
	qsort(v, n, sizeof *v, vcmp);
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
	*out = arr;
	return 0;
}

json_t *storage_last(const json_t *hist)
{
	size_t n = json_array_size(hist);
	return n ? json_array_get(hist, n - 1) : NULL;
}

json_t *storage_deployed(const json_t *hist)
{
	for (size_t i = json_array_size(hist); i-- > 0;)
		if (!strcmp(rel_status(json_array_get(hist, i)), "deployed"))
			return json_array_get(hist, i);
	return NULL;
}

json_t *storage_version(const json_t *hist, int version)
{
	size_t i;
	json_t *r;
	json_array_foreach(hist, i, r) if (rel_version(r) == version) return r;
	return NULL;
}

/* The Secret as request text: data.release, tens of KiB of base64 that
 * needs no escaping, is appended to the dump of the rest (jansson's dump
 * looks at each byte of a string: 5 M of a podinfo install's 68 M
 * instructions). NULL when out of memory. */
static char *secret_text_new(json_t *sec, size_t *len)
{
	json_t *data = json_incref(json_object_get(sec, "data"));
	const char *b64 = json_string_value(json_object_get(data, "release"));
	bh_buf b = BH_BUF_INIT;
	char *head;
	json_object_del(sec, "data");
	head = json_dumps(sec, JSON_COMPACT);
	json_object_set_new(sec, "data", data);
	if (!head || !b64)
		goto fail;
	bh_buf_put(&b, head, strlen(head) - 1); /* without its '}' */
	bh_buf_puts(&b, ",\"data\":{\"release\":\"");
	bh_buf_puts(&b, b64);
	bh_buf_puts(&b, "\"}}");
	if (!bh_buf_ok(&b))
		goto fail;
	free(head);
	*len = b.len;
	return bh_buf_detach(&b);
fail:
	free(head);
	bh_buf_free(&b);
	return NULL;
}

static int write_secret(kube_client *kc, const char *ns, const json_t *rel, int create, bh_error *err)
{
	struct timespec ts;
	json_t *sec, *labels;
	bh_buf js = BH_BUF_INIT;
	const char *sname;
	char buf[32], *text;
	size_t tlen = 0;
	int rc;
	clock_gettime(CLOCK_REALTIME, &ts);
	if ((rc = release_marshal_keep(memo.kc == kc ? memo.gz : NULL, rel, &js, err)) < 0) {
		bh_buf_free(&js);
		if (rc == BH_EINVAL) /* the Secrets driver's words */
			bh_error_prefix(err, "%s: failed to encode release \"%s\"", create ? "create" : "update",
					rel_name(rel));
		return rc;
	}
	if (!(sec = release_secret_keep_new(rel, bh_buf_str(&js), js.len, (long long)ts.tv_sec,
					    memo.kc == kc ? memo.gz : NULL, err))) {
		bh_buf_free(&js);
		return err ? err->code : BH_ENOMEM;
	}
	if (!ns || !*ns)
		ns = rel_namespace(rel);
	json_object_set_new(json_object_get(sec, "metadata"), "namespace", json_string(ns));
	/* the server's answer (the Secret) is not read: what it stored is sec */
	if (!create) {
		labels = json_object_get(json_object_get(sec, "metadata"), "labels");
		/* Helm's Update of a record read back with Get: system labels are
		 * rebuilt, createdAt is not carried over, modifiedAt is set */
		json_object_del(labels, "createdAt");
		snprintf(buf, sizeof buf, "%lld", (long long)ts.tv_sec);
		json_object_set_new(labels, "modifiedAt", json_string(buf));
	}
	sname = json_string_value(json_object_get(json_object_get(sec, "metadata"), "name"));
	if (!(text = secret_text_new(sec, &tlen)))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory writing the release Secret");
	else
		rc = kube_write_text(kc, &secrets, ns, create ? NULL : sname, text, tlen, NULL, err);
	if (rc == BH_EUNAVAIL && !create) /* an update's outcome must not be lost to one transient error */
		rc = kube_write_text(kc, &secrets, ns, sname, text, tlen, NULL, err);
	free(text);
	if (memo_is(kc, ns, rel_name(rel))) { /* the record as a later read decodes it */
		size_t len = js.len;
		json_t *rec = rc == 0 ? release_stored_copy_keep(memo.gz, rel) : NULL;
		char *kept = rc == 0 && !rec ? bh_buf_detach(&js) : NULL;
		memo_write(kc, ns, rel_name(rel), rel_version(rel), rec, kept, len, rc < 0 || (!rec && !kept));
	}
	bh_buf_free(&js);
	json_decref(sec);
	if (rc < 0)
		bh_error_prefix(err, "%s release %s version %d", create ? "creating" : "updating", rel_name(rel),
				rel_version(rel));
	return rc;
}

int storage_create(kube_client *kc, const char *ns, const json_t *rel, bh_error *err)
{
	return write_secret(kc, ns, rel, 1, err);
}

int storage_update(kube_client *kc, const char *ns, const json_t *rel, bh_error *err)
{
	return write_secret(kc, ns, rel, 0, err);
}

int storage_delete(kube_client *kc, const char *ns, const char *name, int version, bh_error *err)
{
	char *sname = release_secret_name_new(name, version);
	int rc;
	if (!sname)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	rc = kube_delete(kc, &secrets, ns, sname, NULL, NULL, err);
	free(sname);
	if (rc == BH_ENOTFOUND)
		rc = 0;
	memo_write(kc, ns, name, version, NULL, NULL, 0, rc < 0);
	if (rc < 0)
		bh_error_prefix(err, "deleting release %s version %d", name, version);
	return rc;
}

int storage_prune(kube_client *kc, const char *ns, const char *name, int max, int *pruned, bh_error *err)
{
	json_t *hist = NULL, *dep;
	size_t n, i;
	int rc, keep_v, count = 0, errs = 0;
	bh_error e1 = {0};
	if (pruned)
		*pruned = 0;
	if (max <= 0)
		return 0;
	if ((rc = storage_history(kc, ns, name, &hist, err)) < 0)
		return rc;
	n = json_array_size(hist);
	dep = storage_deployed(hist);
	keep_v = dep ? rel_version(dep) : -1;
	/* delete oldest first until n - deleted <= max - 1 */
	for (i = 0; i < json_array_size(hist) && n > (size_t)(max - 1); i++) {
		int v = rel_version(json_array_get(hist, i));
		if (v == keep_v)
			continue;
		if (storage_delete(kc, ns, name, v, &e1) < 0)
			errs++;
		else
			count++;
		n--;
	}
	json_decref(hist);
	if (pruned)
		*pruned = count;
	if (errs)
		return bh_error_set(err, e1.code, "pruning the history of %s: %d deletion(s) failed: %s", name, errs, e1.msg);
	return 0;
}
