# tests/e2e/ — build fragment (see top Makefile.am).
# kube/ client against kubesim (owned by kube/)
TESTS += tests/e2e/kube_client.sh tests/e2e/kube_cli.sh tests/e2e/kube_cli_strict.sh
EXTRA_DIST += tests/e2e/kube_client.sh tests/e2e/kube_cli.sh tests/e2e/kube_cli_strict.sh

# kubesim helper: the real kubectl and helm CLIs against tests/kubesim
# (tests/e2e/lib.sh starts kubesim; these skip with 77 without the tools).
TESTS += tests/e2e/kubectl_basic.sh tests/e2e/kubectl_auth.sh tests/e2e/kubectl_faults.sh \
	tests/e2e/helm_cli_podinfo.sh tests/e2e/helm_cli_hooks.sh
EXTRA_DIST += tests/e2e/lib.sh tests/e2e/kubectl_basic.sh tests/e2e/kubectl_auth.sh tests/e2e/kubectl_faults.sh \
	tests/e2e/helm_cli_podinfo.sh tests/e2e/helm_cli_hooks.sh
# --- walking skeleton (spine): supervisor/worker end to end against kubesim ---
check_PROGRAMS += tests/e2e/hostile_worker
tests_e2e_hostile_worker_SOURCES = tests/e2e/hostile_worker.c
tests_e2e_hostile_worker_LDADD = ipc/libbhipc.a proto/libbhproto.a $(BH_LIB_LIBS)
SKELETON_E2E = tests/e2e/skeleton_demo.sh tests/e2e/skeleton_helm.sh tests/e2e/skeleton_failures.sh \
	tests/e2e/skeleton_seccomp.sh tests/e2e/skeleton_hostile.sh tests/e2e/skeleton_rbac.sh \
	tests/e2e/skeleton_artifact.sh tests/e2e/skeleton_audit.sh tests/e2e/skeleton_audit_rotate.sh
TESTS += $(SKELETON_E2E)
EXTRA_DIST += $(SKELETON_E2E) tests/e2e/skeleton_lib.sh tests/e2e/skeleton_audit_lib.sh tests/e2e/skeleton scripts/demo.sh deploy/crds
# --- end walking skeleton ---
# --- release actions (helm/action*): interop with the real helm, hooks, options, recovery ---
ACTIONS_E2E = tests/e2e/actions_interop.sh tests/e2e/actions_hooks.sh tests/e2e/actions_options.sh \
	tests/e2e/actions_lifecycle.sh tests/e2e/actions_heads.sh
TESTS += $(ACTIONS_E2E)
EXTRA_DIST += $(ACTIONS_E2E) tests/e2e/actions_lib.sh tests/e2e/heads
# --- end release actions ---
# --- release state machine (worker/reconcile): sync, upgrade, test, remediation, uninstall, unlock ---
RELEASE_E2E = tests/e2e/release_upgrade.sh tests/e2e/release_remediation.sh tests/e2e/release_lifecycle.sh \
	tests/e2e/release_values.sh tests/e2e/release_hooks.sh tests/e2e/release_delete_owned.sh tests/e2e/release_host_name.sh \
	tests/e2e/hr_delete_during_job.sh
TESTS += $(RELEASE_E2E)
EXTRA_DIST += $(RELEASE_E2E) tests/e2e/release_lib.sh tests/e2e/release
# --- end release state machine ---
# --- manifest pipeline (issue 11): post-renderers, commonMetadata, drift ---
MANIFEST_E2E = tests/e2e/release_postrender.sh tests/e2e/release_drift.sh
TESTS += $(MANIFEST_E2E)
EXTRA_DIST += $(MANIFEST_E2E)
# --- end manifest pipeline ---
# --- refusal, by name, of HelmRelease fields bulkhead lacks ---
TESTS += tests/e2e/skeleton_unsupported.sh tests/e2e/model_admission.sh tests/e2e/release_rollback_opts.sh tests/e2e/release_depends.sh tests/e2e/release_retry.sh tests/e2e/release_upgrade_force.sh tests/e2e/release_one_owner.sh tests/e2e/model_chart_template.sh tests/e2e/release_crds.sh tests/e2e/release_remote.sh tests/e2e/release_take_ownership.sh tests/e2e/release_uninstall_opts.sh \
	tests/e2e/template_dry_run_server.sh
EXTRA_DIST += tests/e2e/skeleton_unsupported.sh tests/e2e/model_admission.sh tests/e2e/release_rollback_opts.sh tests/e2e/release_depends.sh tests/e2e/release_retry.sh tests/e2e/release_upgrade_force.sh tests/e2e/release_one_owner.sh tests/e2e/model_chart_template.sh tests/e2e/release_crds.sh tests/e2e/release_remote.sh tests/e2e/release_take_ownership.sh tests/e2e/release_uninstall_opts.sh
# --- operations (issue 13): logs, metrics, probes, systemd, shutdown, leader election, sharding, fairness ---
OPS_E2E = tests/e2e/ops_logs.sh tests/e2e/ops_metrics.sh tests/e2e/ops_shutdown.sh tests/e2e/ops_systemd.sh tests/e2e/ops_leader.sh tests/e2e/ops_shard.sh tests/e2e/ops_fair.sh tests/e2e/ops_faults.sh \
	tests/e2e/ops_crash.sh tests/e2e/ops_crash_worker.sh tests/e2e/ops_rolling.sh tests/e2e/ops_chart.sh tests/e2e/ops_memory.sh tests/e2e/ops_hang.sh \
	tests/e2e/ops_cli.sh
OPS_E2E += tests/e2e/ops_status_runs.sh
TESTS += $(OPS_E2E)
EXTRA_DIST += $(OPS_E2E) tests/e2e/ops tests/e2e/ops_lib.sh deploy/chart
# --- real charts through bulkheadd and the sandbox (issue 9) ---
SANDBOX_E2E = tests/e2e/sandbox_isolation.sh tests/e2e/sandbox_crypto.sh
TESTS += $(SANDBOX_E2E)
# the corpus charts installed, upgraded and uninstalled through bulkheadd, as
# directories and as archives of every kind (issue 9's must-show)
CORPUS_E2E = tests/e2e/corpus_controller.sh tests/e2e/corpus_archives.sh tests/e2e/corpus_edges.sh
TESTS += $(CORPUS_E2E)
EXTRA_DIST += $(SANDBOX_E2E) $(CORPUS_E2E) tests/e2e/corpus_lib.sh tests/e2e/corpus_lib.py tests/e2e/corpus_edges
# --- least privilege and lock-down (deploy/, systemd/, supervisor/acl.c) ---
RBAC_E2E = tests/e2e/rbac_impersonation.sh tests/e2e/skeleton_lockdown.sh tests/e2e/deploy_flux_crds.sh \
	tests/e2e/systemd_security.sh
TESTS += $(RBAC_E2E)
EXTRA_DIST += $(RBAC_E2E) tests/e2e/deploy_rbac.py tests/e2e/flux
# --- scale (issue 14): API requests per install and per no-op, an idle supervisor ---
SCALE_E2E = tests/e2e/scale_requests.sh tests/e2e/scale_idle.sh tests/e2e/scale_h2_connections.sh
TESTS += $(SCALE_E2E)
EXTRA_DIST += $(SCALE_E2E)
