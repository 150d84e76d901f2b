/* cli/hr_source.h — the HelmRelease a CLI command works on (`bulkhead
 * values`, `bulkhead reconcile`): read from a file (-f: YAML or JSON, its
 * first document, a HelmRelease of helm.toolkit.fluxcd.io) or fetched from
 * the cluster (NAME -n NS), with the kubeconfig client both use. */
#ifndef BH_CLI_HR_SOURCE_H
#define BH_CLI_HR_SOURCE_H

#include <jansson.h>
#include <stdio.h>

#include "kube/config.h"
#include "kube/kube.h"
#include "lib/error.h"

extern const kube_resource cli_helmrelease_resource;

typedef struct cli_hr_args {
	const char *file;       /* -f FILE, or NULL */
	const char *name;       /* NAME, or NULL with -f */
	const char *ns;         /* -n NS, or NULL: the file's, else the kubeconfig's, else "default" */
	const char *kubeconfig; /* --kubeconfig, or NULL: $KUBECONFIG */
} cli_hr_args;

/* Parses one of a command's flags: -f FILE, -n/--namespace NS,
 * --kubeconfig FILE (as "--flag V" or "--flag=V"), and -h/--help; *i is
 * moved past what it used. 1 when argv[*i] was one of them, 0 when not, -1
 * when the command ends here with status *exit_rc (help printed with
 * usage(stdout): 0; a flag without its value, said on stderr: 2). */
int cli_hr_flag(int argc, char **argv, int *i, cli_hr_args *a, void (*usage)(FILE *), int *exit_rc);

/* A client from a->kubeconfig (or $KUBECONFIG); *cfg and *kc are new
 * (kube_client_free, kube_config_free). */
int cli_hr_client(const cli_hr_args *a, kube_config **cfg, kube_client **kc, bh_error *err);

/* *hr: a new object, the HelmRelease of a->file, or a->ns/a->name read with
 * kc. Checks it is a HelmRelease and fills metadata.namespace when the file
 * has none. kc may be NULL with a->file. */
int cli_hr_load(const cli_hr_args *a, const kube_config *cfg, kube_client *kc, json_t **hr, bh_error *err);

#endif
