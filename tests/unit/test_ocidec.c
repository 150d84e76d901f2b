/* tests/unit/test_ocidec.c — the fetcher's OCI decoders (fetcher/ocidec.h):
 * WWW-Authenticate challenges as registries send them (Bearer with quoted
 * params and escapes, Basic, several challenges, token68) and malformed
 * ones; manifests (Helm's, an index, missing or bad fields, too many
 * layers); tag lists; token answers; docker config entries matched by host. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher/ocidec.h"
#include "lib/buf.h"
#include "tests/unit/unit_util.h"

START_TEST(test_auth)
{
	oci_challenges c;
	bh_error e;
	const oci_challenge *b;
	const char *h = "Bearer realm=\"https://auth.example/token\",service=\"registry.example\","
			"scope=\"repository:charts/x:pull\", Basic realm=\"a \\\"quoted\\\" realm\"";
	ck_assert_int_eq(oci_auth_decode(h, strlen(h), &c, &e), 0);
	ck_assert_uint_eq(c.n, 2);
	b = oci_auth_find(&c, "bearer");
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(oci_auth_param_get(b, "REALM"), "https://auth.example/token");
	ck_assert_str_eq(oci_auth_param_get(b, "scope"), "repository:charts/x:pull");
	ck_assert_str_eq(oci_auth_param_get(oci_auth_find(&c, "Basic"), "realm"), "a \"quoted\" realm");
	oci_auth_free(&c);
	h = "Negotiate abc+/==, Basic realm=x";
	ck_assert_int_eq(oci_auth_decode(h, strlen(h), &c, &e), 0);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_str_eq(oci_auth_param_get(&c.c[0], ""), "abc+/==");
	ck_assert_str_eq(oci_auth_param_get(oci_auth_find(&c, "basic"), "realm"), "x");
	oci_auth_free(&c);
	h = "Bearer realm=\"unterminated";
	ck_assert_int_eq(oci_auth_decode(h, strlen(h), &c, &e), BH_EPARSE);
	oci_auth_free(&c);
	h = "Bearer realm=x junk";
	ck_assert_int_eq(oci_auth_decode(h, strlen(h), &c, &e), BH_EPARSE);
	oci_auth_free(&c);
	{
		char big[OCI_AUTH_MAX_HEADER + 10];
		memset(big, 'a', sizeof big);
		ck_assert_int_eq(oci_auth_decode(big, sizeof big, &c, &e), BH_ELIMIT);
		oci_auth_free(&c);
		bh_buf many = BH_BUF_INIT;
		bh_buf_puts(&many, "Bearer ");
		for (int i = 0; i < 20; i++)
			bh_buf_printf(&many, "p%d=v,", i);
		ck_assert_int_eq(oci_auth_decode(many.data, many.len, &c, &e), BH_ELIMIT);
		oci_auth_free(&c);
		bh_buf_free(&many);
	}
}
END_TEST

START_TEST(test_manifest)
{
	const char *helm = "{\"schemaVersion\":2,\"config\":{\"mediaType\":\"application/vnd.cncf.helm.config.v1+json\","
			   "\"digest\":\"sha256:65a07b841ece031e6d0ec5eb948eacb17aa6d7294cdeb01d5348e86242951487\",\"size\":141},"
			   "\"layers\":[{\"mediaType\":\"application/vnd.cncf.helm.chart.content.v1.tar+gzip\",\"digest\":"
			   "\"sha256:586771faef07a7d5578aa7c75c42c832ec74b5094c5c4b6b22b8284342022d28\",\"size\":4919}]}";
	oci_manifest *m;
	bh_error e;
	ck_assert_int_eq(oci_manifest_decode(helm, strlen(helm), &m, &e), 0);
	ck_assert_int_eq(m->is_index, 0);
	ck_assert_uint_eq(m->nlayers, 1);
	ck_assert_int_eq(m->layers[0].size, 4919);
	ck_assert_str_eq(m->config.media_type, "application/vnd.cncf.helm.config.v1+json");
	oci_manifest_free(m);
	const char *idx = "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":\"x\",\"digest\":\"sha256:"
			  "586771faef07a7d5578aa7c75c42c832ec74b5094c5c4b6b22b8284342022d28\",\"size\":1}]}";
	ck_assert_int_eq(oci_manifest_decode(idx, strlen(idx), &m, &e), 0);
	ck_assert_int_eq(m->is_index, 1);
	ck_assert_ptr_null(m->layers[0].artifact_type);
	oci_manifest_free(m);
	/* a referrers index: each manifest's artifactType */
	const char *refs = "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":\"x\",\"artifactType\":"
			   "\"application/vnd.dev.sigstore.bundle.v0.3+json\",\"digest\":\"a:b\",\"size\":1}]}";
	ck_assert_int_eq(oci_manifest_decode(refs, strlen(refs), &m, &e), 0);
	ck_assert_str_eq(m->layers[0].artifact_type, "application/vnd.dev.sigstore.bundle.v0.3+json");
	oci_manifest_free(m);
	const char *bad[] = {
		"{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":\"x\",\"artifactType\":1,\"digest\":\"a:b\",\"size\":1}]}",
		"[]", "{\"schemaVersion\":1,\"layers\":[]}", "{\"schemaVersion\":2}",
		"{\"schemaVersion\":2,\"config\":{\"mediaType\":\"a\",\"digest\":\"sha256:00\",\"size\":1},\"layers\":[]}",
		"{\"schemaVersion\":2,\"config\":{\"mediaType\":\"a\",\"digest\":\"md5:0\",\"size\":-1},\"layers\":[]}",
		"{\"schemaVersion\":2,\"schemaVersion\":2}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_int_lt(oci_manifest_decode(bad[i], strlen(bad[i]), &m, &e), 0);
		ck_assert_ptr_null(m);
	}
	bh_buf many = BH_BUF_INIT;
	bh_buf_puts(&many, "{\"schemaVersion\":2,\"manifests\":[");
	for (int i = 0; i <= OCI_MAX_LAYERS; i++)
		bh_buf_printf(&many, "%s{\"mediaType\":\"x\",\"digest\":\"a:b\",\"size\":1}", i ? "," : "");
	bh_buf_puts(&many, "]}");
	ck_assert_int_eq(oci_manifest_decode(many.data, many.len, &m, &e), BH_ELIMIT);
	bh_buf_free(&many);
	ck_assert_int_eq(oci_digest_valid_sha256("sha256:586771faef07a7d5578aa7c75c42c832ec74b5094c5c4b6b22b8284342022d28"), 1);
	ck_assert_int_eq(oci_digest_valid_sha256("sha256:586771FAEF07a7d5578aa7c75c42c832ec74b5094c5c4b6b22b8284342022d28"), 0);
}
END_TEST

START_TEST(test_tags_token)
{
	const char *t = "{\"name\":\"charts/x\",\"tags\":[\"0.1.0\",\"1.0.0_b.1\",\"../x\",7,\"latest\"]}";
	char **tags, *tok;
	size_t n;
	bh_error e;
	ck_assert_int_eq(oci_tags_decode(t, strlen(t), &tags, &n, &e), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(tags[1], "1.0.0_b.1");
	oci_tags_free(tags, n);
	ck_assert_int_eq(oci_tags_decode("{\"tags\":null}", 13, &tags, &n, &e), 0);
	ck_assert_uint_eq(n, 0);
	oci_tags_free(tags, n);
	/* tags that is not a list: refused (the error is built after the document is freed) */
	ck_assert_int_eq(oci_tags_decode("{\"tags\":\"][\"}", 13, &tags, &n, &e), BH_EINVAL);
	ck_assert_ptr_null(tags);
	ck_assert_int_eq(oci_token_decode("{\"access_token\":\"abc\"}", 22, &tok, &e), 0);
	ck_assert_str_eq(tok, "abc");
	free(tok);
	ck_assert_int_eq(oci_token_decode("{\"token\":\"a b\"}", 15, &tok, &e), BH_EINVAL);
	ck_assert_int_eq(oci_token_decode("{\"token\":\"\"}", 12, &tok, &e), BH_EINVAL);
	ck_assert_int_eq(oci_token_decode("{}", 2, &tok, &e), BH_EINVAL);
}
END_TEST

/* a tag list's Link header, read as oras-go reads it */
START_TEST(test_link_next)
{
	static const struct {
		const char *in, *next;
		int rc;
	} c[] = {
	    {"</v2/charts/x/tags/list?n=2&last=0.1.0>; rel=\"next\"", "/v2/charts/x/tags/list?n=2&last=0.1.0", 0},
	    {"  <https://r.example/v2/x/tags/list?last=b>", "https://r.example/v2/x/tags/list?last=b", 0},
	    {"", NULL, 0},
	    {"   ", NULL, 0},
	    {"/v2/x/tags/list; rel=\"next\"", NULL, BH_EPARSE},
	    {"</v2/x/tags/list; rel=\"next\"", NULL, BH_EPARSE},
	    {"<>; rel=\"next\"", NULL, BH_EPARSE},
	    {"</v2/x /tags/list>", NULL, BH_EPARSE},
	    {"</v2/x\r\nX-Evil: 1>", NULL, BH_EPARSE},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *next = (char *)"unset";
		bh_error e;
		ck_assert_int_eq(oci_link_next(c[i].in, strlen(c[i].in), &next, &e), c[i].rc);
		if (c[i].next)
			ck_assert_str_eq(next, c[i].next);
		else
			ck_assert_ptr_null(next);
		free(next);
	}
	char big[OCI_MAX_LINK + 8], *next;
	bh_error e;
	memset(big, 'a', sizeof big);
	big[0] = '<';
	ck_assert_int_eq(oci_link_next(big, sizeof big, &next, &e), BH_ELIMIT);
	ck_assert_ptr_null(next);
}
END_TEST

START_TEST(test_dockercfg)
{
	const char *c = "{\"auths\":{\"https://other.example/v1/\":{\"auth\":\"eDp5\"},"
			"\"https://reg.example:5000/v1/\":{\"auth\":\"YWxpY2U6czNjcjp0\"},"
			"\"plain.example\":{\"username\":\"bob\",\"password\":\"pw\"},"
			"\"tok.example\":{\"identitytoken\":\"x\"},\"bad.example\":{\"auth\":\"!!!\"}}}";
	char *u, *p;
	bh_error e;
	ck_assert_int_eq(oci_dockercfg_lookup(c, strlen(c), "reg.example:5000", &u, &p, &e), 0);
	ck_assert_str_eq(u, "alice");
	ck_assert_str_eq(p, "s3cr:t");
	free(u), free(p);
	ck_assert_int_eq(oci_dockercfg_lookup(c, strlen(c), "plain.example", &u, &p, &e), 0);
	ck_assert_str_eq(u, "bob");
	free(u), free(p);
	ck_assert_int_eq(oci_dockercfg_lookup(c, strlen(c), "none.example", &u, &p, &e), BH_ENOTFOUND);
	ck_assert_int_eq(oci_dockercfg_lookup(c, strlen(c), "tok.example", &u, &p, &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "identity token"));
	ck_assert_int_eq(oci_dockercfg_lookup(c, strlen(c), "bad.example", &u, &p, &e), BH_EINVAL);
	ck_assert_ptr_null(u);
	ck_assert_int_eq(oci_dockercfg_lookup("{}", 2, "x", &u, &p, &e), BH_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ocidec");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_auth);
	tcase_add_test(tc, test_manifest);
	tcase_add_test(tc, test_tags_token);
	tcase_add_test(tc, test_link_next);
	tcase_add_test(tc, test_dockercfg);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
