/* worker/plan.c — see plan.h. */
#include "worker/plan.h"

#include <stddef.h>

int plan_exhausted(const plan_remediation *r)
{
	return r->retries >= 0 && r->failures > r->retries;
}

static plan_output out(plan_action a, plan_error e, plan_truncate t)
{
	plan_output o = {a, e, t};
	return o;
}

/* A failed release: RetryOnFailure upgrades again; RemediateOnFailure
 * upgrades when nothing failed since the last change or a force is asked,
 * stops when the retries are spent (unless the last failure is remediated),
 * else remediates by rollback (to a verified previous release) or uninstall. */
static plan_output failed(const plan_input *in)
{
	const plan_remediation *r = in->active == 1 ? &in->install : in->active == 2 ? &in->upgrade : NULL;
	if (in->retry)
		return out(PLAN_UPGRADE, PLAN_OK, PLAN_TRUNCATE_NEWEST);
	if (!r || r->failures <= 0 || in->force)
		return out(PLAN_UPGRADE, PLAN_OK, PLAN_KEEP);
	if (plan_exhausted(r) && !r->remediate_last)
		return out(PLAN_NONE, PLAN_EXCEEDED, PLAN_KEEP);
	if (r->uninstall)
		return out(PLAN_UNINSTALL_REMEDIATION, PLAN_OK, PLAN_TRUNCATE);
	switch (in->target ? in->target(in->ud) : PLAN_TARGET_MISSING) {
	case PLAN_TARGET_OK:
		return out(PLAN_ROLLBACK, PLAN_OK, PLAN_TRUNCATE);
	case PLAN_TARGET_CORRUPT:
		return out(PLAN_UPGRADE, PLAN_OK, PLAN_TRUNCATE);
	default:
		return out(PLAN_NONE, PLAN_MISSING_TARGET, PLAN_TRUNCATE);
	}
}

plan_output plan_next(const plan_input *in)
{
	plan_truncate t = in->retry ? PLAN_TRUNCATE_NEWEST : PLAN_TRUNCATE;
	switch (in->state) {
	case PLAN_INSYNC:
		return out(in->force ? PLAN_UPGRADE : PLAN_NONE, PLAN_OK, t);
	case PLAN_UNTESTED:
		return out(PLAN_TEST, PLAN_OK, PLAN_KEEP);
	case PLAN_LOCKED:
		return out(PLAN_UNLOCK, PLAN_OK, PLAN_KEEP);
	case PLAN_ABSENT:
		if (plan_exhausted(&in->install) && !in->force)
			return out(PLAN_NONE, PLAN_EXCEEDED, PLAN_KEEP);
		return out(PLAN_INSTALL, PLAN_OK, PLAN_KEEP);
	case PLAN_UNMANAGED:
		return out(PLAN_UPGRADE, PLAN_OK, PLAN_CLEAR);
	case PLAN_OUTOFSYNC:
		if (plan_exhausted(&in->upgrade) && !in->force)
			return out(PLAN_NONE, PLAN_EXCEEDED, PLAN_KEEP);
		return out(PLAN_UPGRADE, PLAN_OK, PLAN_KEEP);
	case PLAN_FAILED:
		return failed(in);
	}
	return out(PLAN_NONE, PLAN_OK, PLAN_KEEP);
}

const char *plan_action_name(plan_action a)
{
	static const char *const names[] = {"none", "install", "upgrade", "test", "unlock", "rollback", "uninstall-remediation"};
	return (size_t)a < sizeof names / sizeof names[0] ? names[a] : "?";
}
