/* tests/unit/test_status.c — the status patches bulkheadd sends
 * (status_build, then status_patch) over a HelmRelease's life, byte for
 * byte: each step's object shows the status written before it, as the
 * watch brings it back. The expected texts were produced by status.c as
 * it was at commit 6242b37 (conditions still built by json_pack), so any
 * change in a body's bytes, member order or digest record shows here. Built with -DSTATUS_GOLDEN_PRINT it prints the texts in
 * want's form instead (to take them again from a status.c known good). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/status.h"
#include "tests/unit/unit_util.h"

int sv_verbose;

/* A message longer than status.c keeps (1024 bytes), cut inside a
 * two-byte UTF-8 sequence. */
static char long_msg[1100];

static const char *const want[] = {
	"{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"Unknown\",\"observedGeneration\":1,\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"reason\":\"Progressing\",\"message\":\"Fulfilling prerequisites\"},{\"type\":\"Reconciling\",\"status\":\"True\",\"observedGeneration\":1,\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"reason\":\"Progressing\",\"message\":\"Fulfilling prerequisites\"}],\"lastAttemptedGeneration\":1}} | dbbac0fba08aeedf",
	"{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"observedGeneration\":1,\"lastTransitionTime\":\"2026-01-01T00:00:05Z\",\"reason\":\"InstallSucceeded\",\"message\":\"Helm install succeeded for release team-a/web.v1 with chart podinfo@6.0.0\"},{\"type\":\"Released\",\"status\":\"True\",\"observedGeneration\":1,\"lastTransitionTime\":\"2026-01-01T00:00:05Z\",\"reason\":\"InstallSucceeded\",\"message\":\"Helm install succeeded\"}],\"observedGeneration\":1,\"history\":[{\"name\":\"web\",\"version\":1,\"status\":\"deployed\"}],\"lastAttemptedReleaseAction\":\"install\",\"lastAttemptedRevision\":\"6.0.0\",\"lastAttemptedConfigDigest\":\"sha256:c1\",\"lastHandledReconcileAt\":\"r1\",\"helmChart\":\"team-a/team-a-web\",\"storageNamespace\":\"team-a\"}} | af7432ad892e4027",
	"(none) | af7432ad892e4027",
	"{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"observedGeneration\":2,\"lastTransitionTime\":\"2026-01-02T00:00:00Z\",\"reason\":\"UpgradeFailed\",\"message\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"},{\"type\":\"Released\",\"status\":\"False\",\"observedGeneration\":2,\"lastTransitionTime\":\"2026-01-02T00:00:00Z\",\"reason\":\"UpgradeFailed\",\"message\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}],\"lastAttemptedGeneration\":2,\"history\":[{\"appVersion\":\"6.0.0\",\"chartName\":\"podinfo\",\"chartVersion\":\"6.1.0\",\"configDigest\":\"sha256:c1\",\"digest\":\"sha256:d1\",\"firstDeployed\":\"2026-01-01T00:00:00Z\",\"lastDeployed\":\"2026-01-02T00:00:00Z\",\"name\":\"web\",\"namespace\":\"team-a\",\"status\":\"deployed\",\"version\":2},{\"name\":\"web\",\"version\":1,\"status\":\"superseded\"}],\"lastAttemptedReleaseAction\":\"upgrade\",\"lastAttemptedRevision\":\"6.1.0\",\"failures\":1}} | 74c4435cc677b929",
	"{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"observedGeneration\":2,\"lastTransitionTime\":\"2026-01-02T00:00:00Z\",\"reason\":\"InvalidSpec\",\"message\":\"spec.chart: \\\"quoted\\\" <and> \\\\ \\t tabs\"},{\"type\":\"Released\",\"status\":\"False\",\"observedGeneration\":2,\"lastTransitionTime\":\"2026-01-02T00:00:00Z\",\"reason\":\"UpgradeFailed\",\"message\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"},{\"type\":\"Stalled\",\"status\":\"True\",\"observedGeneration\":2,\"lastTransitionTime\":\"2026-01-02T00:00:01Z\",\"reason\":\"InvalidSpec\",\"message\":\"spec.chart: \\\"quoted\\\" <and> \\\\ \\t tabs\"}],\"observedGeneration\":2}} | 52f48c227e74763b",
	"{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"observedGeneration\":3,\"lastTransitionTime\":\"2026-01-03T00:00:00Z\",\"reason\":\"UpgradeSucceeded\",\"message\":\"Helm upgrade succeeded\"},{\"type\":\"Released\",\"status\":\"True\",\"observedGeneration\":3,\"lastTransitionTime\":\"2026-01-03T00:00:00Z\",\"reason\":\"UpgradeSucceeded\",\"message\":\"Helm upgrade succeeded\"}],\"lastAttemptedGeneration\":3,\"observedGeneration\":3,\"history\":[{\"appVersion\":\"6.0.0\",\"chartName\":\"podinfo\",\"chartVersion\":\"6.0.0\",\"configDigest\":\"sha256:c1\",\"digest\":\"sha256:d1\",\"firstDeployed\":\"2026-01-01T00:00:00Z\",\"lastDeployed\":\"2026-01-01T00:00:00Z\",\"name\":\"web\",\"namespace\":\"team-a\",\"status\":\"deployed\",\"version\":1},{\"appVersion\":\"6.0.0\",\"chartName\":\"podinfo\",\"chartVersion\":\"6.1.0\",\"configDigest\":\"sha256:c1\",\"digest\":\"sha256:d1\",\"firstDeployed\":\"2026-01-01T00:00:00Z\",\"lastDeployed\":\"2026-01-02T00:00:00Z\",\"name\":\"web\",\"namespace\":\"team-a\",\"status\":\"superseded\",\"version\":2}],\"lastAttemptedRevision\":\"6.0.0\",\"lastHandledReconcileAt\":\"r2\",\"lastAppliedRevision\":\"6.0.0\",\"failures\":null}} | 8710a7f3a9420645",
	"{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"observedGeneration\":3,\"lastTransitionTime\":\"2026-01-03T00:00:10Z\",\"reason\":\"TestFailed\",\"message\":\"test hook failed\"},{\"type\":\"TestSuccess\",\"status\":\"False\",\"observedGeneration\":3,\"lastTransitionTime\":\"2026-01-03T00:00:10Z\",\"reason\":\"TestFailed\",\"message\":\"failed\"}],\"lastAttemptedGeneration\":3,\"observedGeneration\":3,\"lastAttemptedReleaseAction\":\"upgrade\",\"lastHandledReconcileAt\":\"r2\",\"helmChart\":\"team-a/team-a-web\",\"storageNamespace\":\"team-a\",\"foreign\":\"x\",\"failures\":2,\"history\":null,\"lastAttemptedRevision\":null,\"lastAttemptedConfigDigest\":null,\"lastAppliedRevision\":null}} | 0b68c6cd9f658ec7",
	"{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"observedGeneration\":3,\"lastTransitionTime\":\"2026-01-03T00:00:20Z\",\"reason\":\"UpgradeSucceeded\",\"message\":\"ok\"},{\"type\":\"TestSuccess\",\"status\":\"False\",\"observedGeneration\":3,\"lastTransitionTime\":\"2026-01-03T00:00:10Z\",\"reason\":\"TestFailed\",\"message\":\"failed\"}],\"lastAttemptedGeneration\":3,\"observedGeneration\":3,\"lastAttemptedReleaseAction\":\"upgrade\",\"lastHandledReconcileAt\":\"r2\",\"helmChart\":\"team-a/team-a-web\",\"storageNamespace\":\"team-a\",\"foreign\":\"x\",\"failures\":null}} | 0000000000000000",
};

/* One write: the patch's text ("(none)" when nothing changes) and the
 * record after it; hr's status becomes what was written, as the cache
 * would show it. */
static char *step(json_t *hr, const sv_outcome *o, const char *now, uint64_t *rec)
{
	json_t *st = status_build(hr, o, now);
	char *text = NULL;
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(status_patch(hr, st, rec, &text), 0);
	/* the server's object: null members of a merge patch are gone */
	const char *k;
	json_t *v;
	void *tmp;
	json_object_foreach_safe(st, tmp, k, v) if (json_is_null(v)) json_object_del(st, k);
	json_object_set_new(hr, "status", st);
	char *out = NULL;
	ck_assert_int_ge(asprintf(&out, "%s | %016llx", text ? text : "(none)", rec ? (unsigned long long)*rec : 0ULL), 0);
	free(text);
	return out;
}

START_TEST(test_status_patches)
{
	json_t *hr = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:i,s:[s],s:{s:s}},s:{s:s}}", "apiVersion",
			       "helm.toolkit.fluxcd.io/v2", "kind", "HelmRelease", "metadata", "name", "web", "namespace",
			       "team-a", "uid", "u-1", "generation", 1, "finalizers", "finalizers.fluxcd.io", "annotations",
			       "reconcile.fluxcd.io/requestedAt", "r1", "spec", "interval", "5m");
	json_t *wst, *wst2;
	proto_snapshot snap = {0}, snap2 = {0};
	sv_outcome o;
	uint64_t rec = 0;
	char *got[16];
	size_t n = 0;
	memset(long_msg, 'a', sizeof long_msg - 1);
	memcpy(long_msg + 1023, "\xc3\xa9", 2); /* é across the cut */
	snap = (proto_snapshot){"web", "team-a", "deployed", "podinfo", "6.0.0", "6.0.0", "sha256:c1", "sha256:d1",
				"2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", 1};
	snap2 = snap;
	snap2.chart_version = "6.1.0";
	snap2.last_deployed = "2026-01-02T00:00:00Z";
	snap2.version = 2;

	/* 1. a worker starts: Ready=Unknown, Reconciling=True */
	memset(&o, 0, sizeof o);
	o.reason = "Progressing";
	o.message = "Fulfilling prerequisites";
	o.progressing = 1;
	o.attempted = 1;
	got[n++] = step(hr, &o, "2026-01-01T00:00:00Z", &rec);
	/* 2. the worker's status: its conditions, history and fields */
	wst = json_pack("{s:[{s:s,s:s,s:s,s:s,s:I},{s:s,s:s,s:s,s:s,s:I}],s:[{s:s,s:I,s:s}],s:s,s:s,s:s,s:i}",
			"conditions", "type", "Ready", "status", "True", "reason", "InstallSucceeded", "message",
			"Helm install succeeded for release team-a/web.v1 with chart podinfo@6.0.0", "observedGeneration",
			(json_int_t)1, "type", "Released", "status", "True", "reason", "InstallSucceeded", "message",
			"Helm install succeeded", "observedGeneration", (json_int_t)1, "history", "name", "web", "version",
			(json_int_t)1, "status", "deployed", "lastAttemptedReleaseAction", "install", "lastAttemptedRevision",
			"6.0.0", "lastAttemptedConfigDigest", "sha256:c1", "installFailures", 0);
	memset(&o, 0, sizeof o);
	o.ready = 1;
	o.reason = "InstallSucceeded";
	o.message = "Helm install succeeded";
	o.action = "install";
	o.attempted = 1;
	o.revision = "6.0.0";
	o.helmchart = "team-a/team-a-web";
	o.storage_ns = "team-a";
	o.event = 1;
	o.wstatus = wst;
	got[n++] = step(hr, &o, "2026-01-01T00:00:05Z", &rec);
	/* 3. the same again: nothing to send */
	got[n++] = step(hr, &o, "2026-01-01T00:00:09Z", &rec);
	/* 4. a new generation fails without a worker's status: a long
	 * message, the release it wrote supersedes the deployed one */
	json_object_set_new(json_object_get(hr, "metadata"), "generation", json_integer(2));
	memset(&o, 0, sizeof o);
	o.reason = "UpgradeFailed";
	o.message = long_msg;
	o.action = "upgrade";
	o.release = &snap2;
	o.attempted = 1;
	o.revision = "6.1.0";
	o.helmchart = "team-a/team-a-web";
	got[n++] = step(hr, &o, "2026-01-02T00:00:00Z", &rec);
	/* 5. the spec is refused: Stalled=True, observedGeneration */
	memset(&o, 0, sizeof o);
	o.reason = "InvalidSpec";
	o.message = "spec.chart: \"quoted\" <and> \\ \t tabs";
	o.stalled = 1;
	o.event = 1;
	got[n++] = step(hr, &o, "2026-01-02T00:00:01Z", &rec);
	/* 6. a new generation works: Stalled goes, history again */
	json_object_set_new(json_object_get(hr, "metadata"), "generation", json_integer(3));
	json_object_set_new(json_object_get(json_object_get(hr, "metadata"), "annotations"),
			    "reconcile.fluxcd.io/requestedAt", json_string("r2"));
	memset(&o, 0, sizeof o);
	o.ready = 1;
	o.reason = "UpgradeSucceeded";
	o.message = "Helm upgrade succeeded";
	o.action = "upgrade";
	o.release = &snap;
	o.attempted = 1;
	o.revision = "6.0.0";
	got[n++] = step(hr, &o, "2026-01-03T00:00:00Z", &rec);
	/* 7. another writer changed the status: the whole status goes */
	json_object_set_new(json_object_get(hr, "status"), "foreign", json_string("x"));
	wst2 = json_pack("{s:[{s:s,s:s,s:s,s:s,s:I},{s:s,s:s,s:s,s:s,s:I}],s:i,s:s}", "conditions", "type", "Ready",
			 "status", "False", "reason", "TestFailed", "message", "test hook failed", "observedGeneration",
			 (json_int_t)3, "type", "TestSuccess", "status", "False", "reason", "TestFailed", "message", "failed",
			 "observedGeneration", (json_int_t)3, "failures", 2, "lastAttemptedReleaseAction", "upgrade");
	memset(&o, 0, sizeof o);
	o.reason = "TestFailed";
	o.message = "test hook failed";
	o.attempted = 1;
	o.wstatus = wst2;
	got[n++] = step(hr, &o, "2026-01-03T00:00:10Z", &rec);
	/* 8. no record at all: always whole */
	memset(&o, 0, sizeof o);
	o.ready = 1;
	o.reason = "UpgradeSucceeded";
	o.message = "ok";
	got[n++] = step(hr, &o, "2026-01-03T00:00:20Z", NULL);

	for (size_t i = 0; i < n; i++) {
#ifdef STATUS_GOLDEN_PRINT
		putchar('"');
		for (const char *p = got[i]; *p; p++)
			if (*p == '"' || *p == '\\')
				printf("\\%c", *p);
			else if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x80)
				printf("\\x%02x\"\"", (unsigned char)*p);
			else
				putchar(*p);
		printf("\",\n");
#else
		ck_assert_uint_eq(n, sizeof want / sizeof want[0]);
		ck_assert_msg(!strcmp(got[i], want[i]), "step %zu:\n got %s\nwant %s", i + 1, got[i], want[i]);
#endif
		free(got[i]);
	}
	json_decref(wst);
	json_decref(wst2);
	json_decref(hr);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("status");
	TCase *tc = tcase_create("status");
	tcase_add_test(tc, test_status_patches);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
