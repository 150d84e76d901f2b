/* cli/template_flags.h — the command line of `helm template` (v4.1.4) as
 * cobra/pflag read it: every flag `helm template --help` lists (and the two
 * hidden deprecated ones, --atomic and --validate), their types, the value
 * checks with helm's error texts ("invalid argument \"x\" for \"--timeout\"
 * flag: time: invalid duration \"x\""), deprecation notices, and the help
 * text. cmd_template.c runs the command from the parsed template_opts.
 * Two flags are bulkhead's own (--cpu-limit, --post-renderer-config), listed
 * apart in --help. A flag with no effect on rendering (cluster, registry, install-only) is
 * parsed and checked like helm's and otherwise has no effect, as in helm. */
#ifndef BH_TEMPLATE_FLAGS_H
#define BH_TEMPLATE_FLAGS_H

#include <stddef.h>
#include <stdio.h>

#include "lib/buf.h"

typedef struct strlist {
	const char **v;
	size_t n;
} strlist;

typedef struct template_opts {
	strlist args; /* positional arguments, in order */
	strlist values, set, set_string, set_json, set_file, set_literal, api_versions, show_only;
	const char *namespace_;    /* -n; NULL when not given */
	const char *kube_version, *output_dir, *name_template;
	const char *version;       /* --version (chart sources; logged under --debug) */
	const char *repo;          /* --repo (chart sources) */
	const char *keyring;       /* --keyring; NULL = helm's default */
	const char *ca_file, *cert_file, *key_file; /* registry client TLS files */
	const char *username, *password;            /* chart repository (cli/template_remote.h) */
	int pass_credentials, plain_http;
	const char *kubeconfig, *kube_context;      /* for the release namespace */
	const char *repo_config, *repo_cache, *registry_config; /* --dependency-update */
	const char *dry_run;       /* value given to --dry-run, NULL when absent */
	const char *color;         /* --color / --colour, last one given */
	const char *cpu_limit;     /* bulkhead's --cpu-limit SECONDS (cli/budget.h) */
	const char *pr_config;     /* bulkhead's --post-renderer-config HR.yaml */
	int include_crds, skip_tests, no_hooks, is_upgrade, debug, skip_schema, sub_notes;
	int release_name, generate_name, dep_update, verify, devel, validate, validate_set;
	int skip_crds, take_ownership; /* --dry-run=server (cli/template_cluster.h) */
	const char *kube_apiserver, *kube_token, *kube_ca_file, *kube_tls_server_name, *kube_as_user;
	strlist kube_as_group;
	int kube_insecure;
	int insecure_tls, force_replace, force_conflicts, enable_dns; /* checked, as helm checks them */
	int help;
	strlist owned; /* strings allocated while parsing */
} template_opts;

/* Parses argv[1..argc) (argv[0] is "template"). Deprecation notices and
 * helm's --wait=BOOL warnings go to stderr as helm prints them. Returns 0,
 * or -1 with helm's message (without "Error: ") in msg. */
int template_flags_parse(int argc, char **argv, template_opts *o, char *msg, size_t msz);
/* `helm template --help`, with bulkhead's name. */
void template_flags_help(FILE *f);
void template_opts_free(template_opts *o);
/* helm's default --keyring ($GNUPGHOME/pubring.gpg or ~/.gnupg/pubring.gpg),
 * appended to b. */
void template_default_keyring(bh_buf *b);
/* An EnvSettings path: given (the flag), else $env, else def with
 * "@CACHE@"/"@CONFIG@" as helmpath expands them; appended to b. */
void template_setting(bh_buf *b, const char *given, const char *env, const char *def);
/* strlist_push: appends s (not copied); -1 on OOM. */
int strlist_push(strlist *l, const char *s);

#endif
