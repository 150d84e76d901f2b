/* tests/unit/test_sources_oci.c — an OCIRepository's spec as the built-in
 * source decodes it (supervisor/sources.c, sources_oci_decode): the
 * reference's precedence (digest, then semver with its semverFilter, then
 * tag, as source-controller), defaults, and the fields refused or invalid,
 * each named. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/sources.h"
#include "tests/unit/unit_util.h"

int sv_verbose;

static json_t *ocirepo(const char *spec_json)
{
	json_error_t je;
	json_t *spec = json_loads(spec_json, 0, &je);
	ck_assert_msg(spec != NULL, "bad test JSON: %s", je.text);
	return json_pack("{s:{s:s,s:s},s:o}", "metadata", "name", "app", "namespace", "team-a", "spec", spec);
}

/* decodes spec_json (only the outcome and e are meaningful after) */
static int decode(const char *spec_json, bh_error *e)
{
	json_t *o = ocirepo(spec_json);
	sources_oci_spec s;
	int rc = sources_oci_decode(o, &s, e);
	json_decref(o);
	return rc;
}

START_TEST(test_ref_precedence)
{
	static const char *url = "\"url\":\"oci://r.example/charts/app\"";
	json_t *o;
	sources_oci_spec s;
	bh_error e;
	char spec[400];
	/* the strings point into the object: keep it while reading them */
	snprintf(spec, sizeof spec, "{%s,\"ref\":{\"digest\":\"sha256:ab\",\"semver\":\"1.x\",\"semverFilter\":\"^1\","
		 "\"tag\":\"t\"}}", url);
	o = ocirepo(spec);
	ck_assert_int_eq(sources_oci_decode(o, &s, &e), 0);
	ck_assert_str_eq(s.digest, "sha256:ab");
	ck_assert_ptr_null(s.semver);
	ck_assert_ptr_null(s.semver_filter);
	ck_assert_ptr_null(s.tag);
	json_decref(o);
	snprintf(spec, sizeof spec, "{%s,\"ref\":{\"semver\":\">=1.0.0\",\"semverFilter\":\"^1\\\\.\",\"tag\":\"t\"}}", url);
	o = ocirepo(spec);
	ck_assert_int_eq(sources_oci_decode(o, &s, &e), 0);
	ck_assert_str_eq(s.semver, ">=1.0.0");
	ck_assert_str_eq(s.semver_filter, "^1\\.");
	ck_assert_ptr_null(s.tag); /* semver wins over tag */
	json_decref(o);
	/* a filter without semver filters nothing (source-controller reads it
	 * only with semver) */
	snprintf(spec, sizeof spec, "{%s,\"ref\":{\"semverFilter\":\"^1\",\"tag\":\"t\"}}", url);
	o = ocirepo(spec);
	ck_assert_int_eq(sources_oci_decode(o, &s, &e), 0);
	ck_assert_str_eq(s.tag, "t");
	ck_assert_ptr_null(s.semver_filter);
	ck_assert_str_eq(s.operation, "extract");
	ck_assert_int_eq(s.insecure, 0);
	json_decref(o);
}
END_TEST

START_TEST(test_references)
{
	json_t *o = ocirepo("{\"url\":\"oci://r.example/c\",\"insecure\":true,\"serviceAccountName\":\"puller\","
			    "\"secretRef\":{\"name\":\"regcred\"},\"certSecretRef\":{\"name\":\"ca\"},"
			    "\"proxySecretRef\":{\"name\":\"proxy\"},\"layerSelector\":{\"mediaType\":\"m\",\"operation\":\"copy\"}}");
	sources_oci_spec s;
	bh_error e;
	ck_assert_int_eq(sources_oci_decode(o, &s, &e), 0);
	ck_assert_str_eq(s.service_account, "puller");
	ck_assert_str_eq(s.secret_ref, "regcred");
	ck_assert_str_eq(s.cert_secret_ref, "ca");
	ck_assert_str_eq(s.proxy_secret_ref, "proxy");
	ck_assert_str_eq(s.media_type, "m");
	ck_assert_str_eq(s.operation, "copy");
	ck_assert_int_eq(s.insecure, 1);
	json_decref(o);
}
END_TEST

START_TEST(test_refused)
{
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{"{\"url\":\"oci://r/c\",\"verify\":{\"provider\":\"cosign\"}}",
		 ".spec.verify without .spec.verify.secretRef (cosign keyless verification, which needs Sigstore's public "
		 "Fulcio and Rekor online) is not supported by bulkhead's built-in sources: give the public keys in "
		 ".spec.verify.secretRef"},
		{"{\"url\":\"oci://r/c\",\"verify\":{\"provider\":\"notation\",\"secretRef\":{\"name\":\"k\"}}}",
		 ".spec.verify.provider 'notation' is not supported by bulkhead's built-in sources (only 'cosign' with the "
		 "public keys of .spec.verify.secretRef)"},
		{"{\"url\":\"oci://r/c\",\"verify\":{\"provider\":\"gpg\",\"secretRef\":{\"name\":\"k\"}}}",
		 ".spec.verify.provider 'gpg' is invalid (cosign or notation)"},
		{"{\"url\":\"oci://r/c\",\"verify\":{\"secretRef\":\"k\"}}", ".spec.verify.secretRef must be an object with a name"},
		{"{\"url\":\"oci://r/c\",\"ignore\":\"*.md\"}", ".spec.ignore is not supported by bulkhead's built-in sources"},
		{"{\"url\":\"oci://r/c\",\"provider\":\"aws\"}",
		 ".spec.provider 'aws' is not supported by bulkhead's built-in sources (only 'generic')"},
		{"{\"url\":\"https://r/c\"}", ".spec.url 'https://r/c' must be an oci:// URL"},
		{"{}", ".spec.url '' must be an oci:// URL"},
		{"{\"url\":\"oci://r/c\",\"ref\":{\"semver\":\"*\",\"semverFilter\":7}}", ".spec.ref.semverFilter must be a string"},
		{"{\"url\":\"oci://r/c\",\"proxySecretRef\":\"proxy\"}", ".spec.proxySecretRef must be an object with a name"},
		{"{\"url\":\"oci://r/c\",\"secretRef\":{\"name\":[]}}", ".spec.secretRef.name must be a string"},
		{"{\"url\":\"oci://r/c\",\"layerSelector\":{\"operation\":\"unpack\"}}",
		 ".spec.layerSelector.operation 'unpack' is invalid (extract or copy)"},
	};
	char longer[1200], spec[1400];
	bh_error e;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_int_eq(decode(bad[i].spec, &e), BH_EINVAL);
		ck_assert_str_eq(e.msg, bad[i].msg);
	}
	/* cosign with public keys: accepted (the provider defaults to cosign) */
	ck_assert_int_eq(decode("{\"url\":\"oci://r/c\",\"verify\":{\"secretRef\":{\"name\":\"keys\"}}}", &e), 0);
	ck_assert_int_eq(decode("{\"url\":\"oci://r/c\",\"verify\":null}", &e), 0);
	ck_assert_int_eq(decode("{\"url\":\"oci://r/c\",\"serviceAccountName\":\"Bad_Name\"}", &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, ".spec.serviceAccountName \"Bad_Name\" is invalid"));
	memset(longer, 'a', 1025);
	longer[1025] = '\0';
	snprintf(spec, sizeof spec, "{\"url\":\"oci://r/c\",\"ref\":{\"semver\":\"*\",\"semverFilter\":\"%s\"}}", longer);
	ck_assert_int_eq(decode(spec, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, ".spec.ref.semverFilter is longer than 1024 bytes");
}
END_TEST

/* .spec.verify of a HelmChart or an OCIRepository (sources_verify_decode):
 * its shape checked in both modes; keyless cosign and notation refused by
 * name only where the built-in sources would verify */
START_TEST(test_verify_decode)
{
	static const struct {
		const char *verify;
		int builtin_ok, external_ok;
		const char *msg;
	} cases[] = {
		{"{\"provider\":\"cosign\",\"secretRef\":{\"name\":\"keys\"}}", 1, 1, NULL},
		{"{\"secretRef\":{\"name\":\"keys\"}}", 1, 1, NULL},
		{"{\"provider\":\"cosign\",\"matchOIDCIdentity\":[{\"issuer\":\"i\",\"subject\":\"s\"}]}", 0, 1,
		 ".spec.verify without .spec.verify.secretRef"},
		{"{\"provider\":\"notation\",\"secretRef\":{\"name\":\"keys\"}}", 0, 1,
		 ".spec.verify.provider 'notation' is not supported by bulkhead's built-in sources"},
		{"{\"provider\":\"cosign\",\"secretRef\":{\"name\":\"keys\"},\"trustedRootSecretRef\":{\"name\":\"r\"}}", 0,
		 1, ".spec.verify.trustedRootSecretRef (keyless verification) is not supported"},
		{"{\"provider\":\"pgp\"}", 0, 0, ".spec.verify.provider 'pgp' is invalid (cosign or notation)"},
		{"{\"provider\":7}", 0, 0, ".spec.verify.provider must be a string"},
		{"{\"matchOIDCIdentity\":[{\"issuer\":\"i\"}]}", 0, 0,
		 ".spec.verify.matchOIDCIdentity[0]: issuer and subject are required"},
		{"{\"matchOIDCIdentity\":{}}", 0, 0, ".spec.verify.matchOIDCIdentity must be a list"},
		{"{\"secretRef\":{\"name\":1}}", 0, 0, ".spec.verify.secretRef.name must be a string"},
		{"[]", 0, 0, ".spec.verify must be an object"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *v = json_loads(cases[i].verify, 0, NULL);
		const char *secret;
		bh_error e;
		for (int builtin = 0; builtin < 2; builtin++) {
			int ok = builtin ? cases[i].builtin_ok : cases[i].external_ok;
			int rc = sources_verify_decode(v, builtin, &secret, &e);
			ck_assert_msg(ok ? rc == 0 : rc == BH_EINVAL, "%s (builtin %d): %d %s", cases[i].verify, builtin, rc,
				      rc ? e.msg : "");
			if (!ok)
				ck_assert_msg(strstr(e.msg, cases[i].msg) != NULL, "%s: '%s'", cases[i].verify, e.msg);
			else if (strstr(cases[i].verify, "keys"))
				ck_assert_str_eq(secret, "keys");
		}
		json_decref(v);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sources_oci");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_ref_precedence);
	tcase_add_test(tc, test_references);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_verify_decode);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
