/* tests/fuzz/fuzz_manifest_split.c — libFuzzer target for helm/sort.c's
 * document split and sort, differential: manifest_split against a plain
 * reading of Helm's separator `(?:^|\s*\n)---\s*` (a memchr per line, as the
 * split was before its 16-byte scan), and manifest_sort_files_inplace
 * against manifest_sort_files: the same manifests and contents, and after an
 * error the texts as they were.
 * FUZZ_SOURCES: helm/sort.c helm/sort_head.c lib/yaml.c
 * FUZZ_LIBS: -ljansson -lyaml
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/sort.h"

static int re_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int go_space(char c)
{
	return re_space(c) || c == '\v';
}

/* The reference split: appends each trimmed, non-empty document to out
 * (separated by a NUL byte) and counts them. */
static size_t ref_split(const char *text, char *out, size_t *outlen)
{
	const char *s = text;
	while (*s && go_space(*s))
		s++;
	size_t len = strlen(s), pos = 0, last = 0, cnt = 0;
	*outlen = 0;
	for (;;) {
		size_t mstart = 0, mend = 0;
		int found = 0;
		if (pos == 0 && len >= 3 && !memcmp(s, "---", 3)) {
			mend = 3;
			found = 1;
		} else {
			const char *nl = s + pos;
			while ((nl = memchr(nl, '\n', len - (size_t)(nl - s)))) {
				size_t j = (size_t)(nl++ - s) + 1;
				if (j + 3 > len)
					break;
				if (memcmp(s + j, "---", 3))
					continue;
				size_t k = j - 1;
				while (k > pos && re_space(s[k - 1]))
					k--;
				mstart = k;
				mend = j + 3;
				found = 1;
				break;
			}
		}
		size_t dend = found ? mstart : len;
		if (dend > last) {
			const char *d = s + last;
			size_t n = dend - last;
			while (n && go_space(*d))
				d++, n--;
			while (n && go_space(d[n - 1]))
				n--;
			if (n) {
				memcpy(out + *outlen, d, n);
				*outlen += n;
				out[(*outlen)++] = 0;
				cnt++;
			}
		}
		if (!found)
			break;
		while (mend < len && re_space(s[mend]))
			mend++;
		pos = last = mend;
	}
	return cnt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *ref = malloc(2 * size + 2), *rw = malloc(size + 1);
	char **docs = NULL;
	size_t nd = 0, reflen, off = 0;
	if (!text || !ref || !rw)
		goto out;
	memcpy(text, data, size);
	text[size] = 0;
	size_t nref = ref_split(text, ref, &reflen);
	if (manifest_split(text, &docs, &nd))
		goto out;
	if (nd != nref)
		abort();
	for (size_t i = 0; i < nd; i++) {
		size_t n = strlen(docs[i]);
		if (off + n >= reflen || memcmp(docs[i], ref + off, n + 1))
			abort();
		off += n + 1;
	}
	manifest_split_free(docs, nd);
	/* the sort, copying and in place */
	const char *path = "c/templates/x.yaml", *ro = text;
	manifest_list h1 = {0}, g1 = {0}, h2 = {0}, g2 = {0};
	bh_error e1, e2;
	memcpy(rw, text, size + 1);
	int r1 = manifest_sort_files(&path, &ro, 1, &h1, &g1, NULL, NULL, &e1);
	int r2 = manifest_sort_files_inplace(&path, &rw, 1, &h2, &g2, NULL, NULL, &e2);
	if (r1 != r2 || h1.n != h2.n || g1.n != g2.n || (r1 && strcmp(e1.msg, e2.msg)))
		abort();
	if (r2 && memcmp(rw, text, size + 1))
		abort(); /* not put back */
	for (int l = 0; l < 2; l++) {
		const manifest_list *a = l ? &h1 : &g1, *b = l ? &h2 : &g2;
		for (size_t i = 0; i < a->n; i++)
			if (strcmp(a->v[i].content, b->v[i].content) || strcmp(a->v[i].kind, b->v[i].kind) ||
			    strcmp(a->v[i].name, b->v[i].name) || b->v[i].content_len != strlen(b->v[i].content))
				abort();
	}
	manifest_list_free(&h1);
	manifest_list_free(&g1);
	manifest_list_free(&h2);
	manifest_list_free(&g2);
	docs = NULL;
out:
	if (docs)
		manifest_split_free(docs, nd);
	free(text);
	free(ref);
	free(rw);
	return 0;
}
