/* api/helmrelease_fields.c — the table of every field of the HelmRelease v2
 * API (Flux helm-controller api/v2, the v2 document), each consumed or
 * refused by name with the reason. v2beta2-only fields are converted before
 * the table is consulted (hr_convert_v2beta2_new). */
#include <string.h>

#include "api/helmrelease.h"

#define S(p) {p, HR_T_STRING, NULL, 0, 0, HR_C_NONE, NULL, NULL}
#define SL(p, lo, hi, chk) {p, HR_T_STRING, NULL, lo, hi, chk, NULL, NULL}
#define E(p, en) {p, HR_T_STRING, en, 0, 0, HR_C_NONE, NULL, NULL}
#define B(p) {p, HR_T_BOOL, NULL, 0, 0, HR_C_NONE, NULL, NULL}
#define I(p) {p, HR_T_INT, NULL, 0, 0, HR_C_NONE, NULL, NULL}
#define D(p) {p, HR_T_DURATION, NULL, 0, 0, HR_C_NONE, NULL, NULL}
#define O(p) {p, HR_T_OBJECT, NULL, 0, 0, HR_C_NONE, NULL, NULL}
#define L(p) {p, HR_T_LIST, NULL, 0, 0, HR_C_NONE, NULL, NULL}
#define SLIST(p) {p, HR_T_STRLIST, NULL, 0, 0, HR_C_NONE, NULL, NULL}
#define MAP(p) {p, HR_T_STRMAP, NULL, 0, 0, HR_C_NONE, NULL, NULL}
#define ANY(p) {p, HR_T_ANY, NULL, 0, 0, HR_C_NONE, NULL, NULL}
#define REFUSED(p, t, why) {p, t, NULL, 0, 0, HR_C_NONE, why, NULL}

#define NO_PROVIDER "workload identity providers (configMapRef) do not exist here; use .spec.kubeConfig.secretRef"

const hr_field hr_fields[] = {
	S("apiVersion"),
	S("kind"),
	ANY("metadata"), /* the API server's: name and namespace are checked */
	ANY("status"),   /* written by bulkhead */
	O("spec"),
	D("spec.interval"),
	D("spec.timeout"),
	SL("spec.releaseName", 1, 53, HR_C_RELEASE_NAME),
	SL("spec.targetNamespace", 1, 63, HR_C_DNS1123_LABEL),
	SL("spec.storageNamespace", 1, 63, HR_C_DNS1123_LABEL),
	SL("spec.serviceAccountName", 1, 253, HR_C_NONE),
	B("spec.suspend"),
	B("spec.persistentClient"),
	I("spec.maxHistory"),
	ANY("spec.values"),
	/* .spec.chart: the HelmChart template */
	O("spec.chart"),
	O("spec.chart.metadata"),
	MAP("spec.chart.metadata.labels"),
	MAP("spec.chart.metadata.annotations"),
	O("spec.chart.spec"),
	SL("spec.chart.spec.chart", 1, 2048, HR_C_NONE),
	S("spec.chart.spec.version"),
	O("spec.chart.spec.sourceRef"),
	S("spec.chart.spec.sourceRef.apiVersion"),
	E("spec.chart.spec.sourceRef.kind", "HelmRepository|GitRepository|Bucket"),
	SL("spec.chart.spec.sourceRef.name", 1, 253, HR_C_DNS1123_SUBDOMAIN),
	SL("spec.chart.spec.sourceRef.namespace", 1, 63, HR_C_DNS1123_LABEL),
	D("spec.chart.spec.interval"),
	E("spec.chart.spec.reconcileStrategy", "ChartVersion|Revision"),
	SLIST("spec.chart.spec.valuesFiles"),
	B("spec.chart.spec.ignoreMissingValuesFiles"),
	/* HelmChartTemplateVerification: copied into the HelmChart (source.c);
	 * bulkhead's built-in sources verify cosign public keys (sources.c) */
	O("spec.chart.spec.verify"),
	E("spec.chart.spec.verify.provider", "cosign|notation"),
	O("spec.chart.spec.verify.secretRef"),
	SL("spec.chart.spec.verify.secretRef.name", 1, 253, HR_C_DNS1123_SUBDOMAIN),
	L("spec.chart.spec.verify.matchOIDCIdentity"),
	S("spec.chart.spec.verify.matchOIDCIdentity[].issuer"),
	S("spec.chart.spec.verify.matchOIDCIdentity[].subject"),
	/* .spec.chartRef */
	O("spec.chartRef"),
	S("spec.chartRef.apiVersion"),
	E("spec.chartRef.kind", "OCIRepository|HelmChart|ExternalArtifact"),
	SL("spec.chartRef.name", 1, 253, HR_C_DNS1123_SUBDOMAIN),
	SL("spec.chartRef.namespace", 1, 63, HR_C_DNS1123_LABEL),
	/* dependencies */
	L("spec.dependsOn"),
	SL("spec.dependsOn[].name", 1, 253, HR_C_DNS1123_SUBDOMAIN),
	SL("spec.dependsOn[].namespace", 1, 63, HR_C_DNS1123_LABEL),
	/* remote clusters */
	O("spec.kubeConfig"),
	O("spec.kubeConfig.secretRef"),
	SL("spec.kubeConfig.secretRef.name", 1, 253, HR_C_DNS1123_SUBDOMAIN),
	SL("spec.kubeConfig.secretRef.key", 0, 253, HR_C_VALUES_KEY),
	REFUSED("spec.kubeConfig.configMapRef", HR_T_OBJECT, NO_PROVIDER),
	REFUSED("spec.kubeConfig.configMapRef.name", HR_T_STRING, NO_PROVIDER),
	/* values references */
	L("spec.valuesFrom"),
	E("spec.valuesFrom[].kind", "Secret|ConfigMap"),
	SL("spec.valuesFrom[].name", 1, 253, HR_C_DNS1123_SUBDOMAIN),
	SL("spec.valuesFrom[].valuesKey", 0, 253, HR_C_VALUES_KEY),
	SL("spec.valuesFrom[].targetPath", 0, 250, HR_C_TARGET_PATH),
	B("spec.valuesFrom[].optional"),
	/* install */
	O("spec.install"),
	D("spec.install.timeout"),
	O("spec.install.remediation"),
	I("spec.install.remediation.retries"),
	B("spec.install.remediation.ignoreTestFailures"),
	B("spec.install.remediation.remediateLastFailure"),
	O("spec.install.strategy"),
	E("spec.install.strategy.name", "RemediateOnFailure|RetryOnFailure"),
	D("spec.install.strategy.retryInterval"),
	B("spec.install.disableWait"),
	B("spec.install.disableWaitForJobs"),
	B("spec.install.disableHooks"),
	B("spec.install.disableTakeOwnership"),
	B("spec.install.disableOpenAPIValidation"), /* no client-side check to disable: see docs/spec-coverage.md */
	B("spec.install.disableSchemaValidation"),
	B("spec.install.replace"),
	B("spec.install.skipCRDs"), /* deprecated: as crds: Skip when crds is unset */
	E("spec.install.crds", "Skip|Create|CreateReplace"),
	B("spec.install.createNamespace"),
	/* upgrade */
	O("spec.upgrade"),
	D("spec.upgrade.timeout"),
	O("spec.upgrade.remediation"),
	I("spec.upgrade.remediation.retries"),
	B("spec.upgrade.remediation.ignoreTestFailures"),
	B("spec.upgrade.remediation.remediateLastFailure"),
	E("spec.upgrade.remediation.strategy", "rollback|uninstall"),
	O("spec.upgrade.strategy"),
	E("spec.upgrade.strategy.name", "RemediateOnFailure|RetryOnFailure"),
	D("spec.upgrade.strategy.retryInterval"),
	B("spec.upgrade.disableWait"),
	B("spec.upgrade.disableWaitForJobs"),
	B("spec.upgrade.disableHooks"),
	B("spec.upgrade.disableTakeOwnership"),
	B("spec.upgrade.disableOpenAPIValidation"),
	B("spec.upgrade.disableSchemaValidation"),
	B("spec.upgrade.force"),
	B("spec.upgrade.preserveValues"),
	B("spec.upgrade.cleanupOnFail"),
	E("spec.upgrade.crds", "Skip|Create|CreateReplace"),
	/* test */
	O("spec.test"),
	B("spec.test.enable"),
	D("spec.test.timeout"),
	B("spec.test.ignoreFailures"),
	L("spec.test.filters"),
	SL("spec.test.filters[].name", 1, 253, HR_C_NONE),
	B("spec.test.filters[].exclude"),
	/* rollback */
	O("spec.rollback"),
	D("spec.rollback.timeout"),
	B("spec.rollback.disableWait"),
	B("spec.rollback.disableWaitForJobs"),
	B("spec.rollback.disableHooks"),
	B("spec.rollback.recreate"),
	B("spec.rollback.force"),
	B("spec.rollback.cleanupOnFail"),
	/* uninstall */
	O("spec.uninstall"),
	D("spec.uninstall.timeout"),
	B("spec.uninstall.disableHooks"),
	B("spec.uninstall.keepHistory"),
	B("spec.uninstall.disableWait"),
	E("spec.uninstall.deletionPropagation", "background|foreground|orphan"),
	/* drift detection (the mode is checked where it is acted on) */
	O("spec.driftDetection"),
	E("spec.driftDetection.mode", "enabled|warn|disabled"),
	L("spec.driftDetection.ignore"),
	SLIST("spec.driftDetection.ignore[].paths"),
	O("spec.driftDetection.ignore[].target"),
	S("spec.driftDetection.ignore[].target.group"),
	S("spec.driftDetection.ignore[].target.version"),
	S("spec.driftDetection.ignore[].target.kind"),
	S("spec.driftDetection.ignore[].target.name"),
	S("spec.driftDetection.ignore[].target.namespace"),
	S("spec.driftDetection.ignore[].target.annotationSelector"),
	S("spec.driftDetection.ignore[].target.labelSelector"),
	/* post renderers */
	L("spec.postRenderers"),
	O("spec.postRenderers[].kustomize"),
	L("spec.postRenderers[].kustomize.patches"),
	S("spec.postRenderers[].kustomize.patches[].patch"),
	O("spec.postRenderers[].kustomize.patches[].target"),
	S("spec.postRenderers[].kustomize.patches[].target.group"),
	S("spec.postRenderers[].kustomize.patches[].target.version"),
	S("spec.postRenderers[].kustomize.patches[].target.kind"),
	S("spec.postRenderers[].kustomize.patches[].target.name"),
	S("spec.postRenderers[].kustomize.patches[].target.namespace"),
	S("spec.postRenderers[].kustomize.patches[].target.annotationSelector"),
	S("spec.postRenderers[].kustomize.patches[].target.labelSelector"),
	L("spec.postRenderers[].kustomize.images"),
	S("spec.postRenderers[].kustomize.images[].name"),
	S("spec.postRenderers[].kustomize.images[].newName"),
	S("spec.postRenderers[].kustomize.images[].newTag"),
	S("spec.postRenderers[].kustomize.images[].digest"),
	/* common metadata */
	O("spec.commonMetadata"),
	MAP("spec.commonMetadata.labels"),
	MAP("spec.commonMetadata.annotations"),
};
const size_t hr_fields_count = sizeof hr_fields / sizeof hr_fields[0];

const hr_field *hr_field_find(const char *path)
{
	for (size_t i = 0; i < hr_fields_count; i++)
		if (!strcmp(hr_fields[i].path, path))
			return &hr_fields[i];
	return NULL;
}
