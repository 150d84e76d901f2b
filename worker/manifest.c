/* worker/manifest.c — see manifest.h. */
#include "worker/manifest.h"

#include <string.h>

#include "lib/buf.h"
#include "lib/gojson.h"

/* Go's encoding of a struct: the given fields in order, omitempty. */
static void put_str_field(bh_buf *b, int *first, const json_t *o, const char *k, int omitempty)
{
	const char *s = json_string_value(json_object_get(o, k));
	if (omitempty && (!s || !*s))
		return;
	bh_buf_puts(b, *first ? "" : ",");
	*first = 0;
	gojson_quote(b, k, strlen(k), 0);
	bh_buf_putc(b, ':');
	gojson_quote(b, s ? s : "", s ? strlen(s) : 0, 0);
}

static void put_struct(bh_buf *b, const json_t *o, const char *const *fields, const int *omit)
{
	int first = 1;
	bh_buf_putc(b, '{');
	for (size_t i = 0; fields[i]; i++)
		put_str_field(b, &first, o, fields[i], omit[i]);
	bh_buf_putc(b, '}');
}

static void put_kustomize(bh_buf *b, const json_t *k)
{
	static const char *const sel[] = {"group", "version", "kind", "name", "namespace",
					  "annotationSelector", "labelSelector", NULL};
	static const int sel_omit[] = {1, 1, 1, 1, 1, 1, 1};
	static const char *const img[] = {"name", "newName", "newTag", "digest", NULL};
	static const int img_omit[] = {0, 1, 1, 1};
	const json_t *patches = json_object_get(k, "patches"), *images = json_object_get(k, "images"), *x;
	size_t i;
	int first = 1;
	bh_buf_putc(b, '{');
	if (json_array_size(patches)) {
		bh_buf_puts(b, "\"patches\":[");
		json_array_foreach(patches, i, x) {
			const json_t *t = json_object_get(x, "target");
			const char *p = json_string_value(json_object_get(x, "patch"));
			bh_buf_puts(b, i ? ",{\"patch\":" : "{\"patch\":");
			gojson_quote(b, p ? p : "", p ? strlen(p) : 0, 0);
			if (json_is_object(t)) {
				bh_buf_puts(b, ",\"target\":");
				put_struct(b, t, sel, sel_omit);
			}
			bh_buf_putc(b, '}');
		}
		bh_buf_putc(b, ']');
		first = 0;
	}
	if (json_array_size(images)) {
		bh_buf_puts(b, first ? "\"images\":[" : ",\"images\":[");
		json_array_foreach(images, i, x) {
			if (i)
				bh_buf_putc(b, ',');
			put_struct(b, x, img, img_omit);
		}
		bh_buf_putc(b, ']');
	}
	bh_buf_putc(b, '}');
}

static int finish(bh_buf *b, char out[SNAPSHOT_DIGEST_MAX], bh_error *err)
{
	bh_buf_putc(b, '\n'); /* json.Encoder */
	if (!bh_buf_ok(b)) {
		bh_buf_free(b);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	snapshot_sha256(b->data, b->len, out);
	bh_buf_free(b);
	return 0;
}

int manifest_postrenderers_digest(const json_t *spec, char out[SNAPSHOT_DIGEST_MAX], bh_error *err)
{
	const json_t *prs = json_object_get(spec, "postRenderers"), *x;
	bh_buf b = BH_BUF_INIT;
	size_t i;
	if (!json_is_array(prs)) {
		bh_buf_puts(&b, "null");
		return finish(&b, out, err);
	}
	bh_buf_putc(&b, '[');
	json_array_foreach(prs, i, x) {
		const json_t *k = json_object_get(x, "kustomize");
		if (i)
			bh_buf_putc(&b, ',');
		if (json_is_object(k)) {
			bh_buf_puts(&b, "{\"kustomize\":");
			put_kustomize(&b, k);
			bh_buf_putc(&b, '}');
		} else {
			bh_buf_puts(&b, "{}");
		}
	}
	bh_buf_putc(&b, ']');
	return finish(&b, out, err);
}

int manifest_common_metadata_digest(const json_t *spec, char out[SNAPSHOT_DIGEST_MAX], bh_error *err)
{
	const json_t *cm = json_object_get(spec, "commonMetadata");
	static const char *const fields[] = {"annotations", "labels"};
	bh_buf b = BH_BUF_INIT;
	int first = 1;
	if (!json_is_object(cm)) {
		bh_buf_puts(&b, "null");
		return finish(&b, out, err);
	}
	bh_buf_putc(&b, '{');
	for (size_t i = 0; i < 2; i++) {
		const json_t *m = json_object_get(cm, fields[i]);
		if (!json_is_object(m) || !json_object_size(m))
			continue;
		bh_buf_puts(&b, first ? "\"" : ",\"");
		bh_buf_puts(&b, fields[i]);
		bh_buf_puts(&b, "\":");
		if (gojson_encode(m, 0, &b, err) < 0) {
			bh_buf_free(&b);
			return err ? err->code : BH_EINVAL;
		}
		first = 0;
	}
	bh_buf_putc(&b, '}');
	return finish(&b, out, err);
}
