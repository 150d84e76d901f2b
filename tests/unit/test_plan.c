/* tests/unit/test_plan.c — the release state machine's choice of the next
 * action (worker/plan.c, Flux's actionForState) as a table: observed state x
 * spec (remediation retries, remediateLastFailure, strategy, RetryOnFailure,
 * force) x counters -> action, stop reason and history truncation, one row
 * per branch of the v2 document's install/upgrade remediation text. */
#include <check.h>
#include <stdio.h>

#include "worker/plan.h"
#include "tests/unit/unit_util.h"

static plan_target target_result;
static int target_asked;

static plan_target target(void *ud)
{
	(void)ud;
	target_asked++;
	return target_result;
}

enum { NOACT = 0, INST = 1, UPG = 2 };

static const struct row {
	const char *why;
	plan_state state;
	int force, retry, active;
	long iret, ifail, uret, ufail; /* install/upgrade retries and failures */
	int remediate_last, uninstall;
	plan_target t;
	plan_action want;
	plan_error err;
	plan_truncate trunc;
	int asks_target;
} rows[] = {
	{"in sync: nothing to do; history truncated to the previous success", PLAN_INSYNC, 0, 0, NOACT, 0, 0, 0, 0, 0, 0, 0,
	 PLAN_NONE, PLAN_OK, PLAN_TRUNCATE, 0},
	{"in sync with forceAt: a one-off upgrade", PLAN_INSYNC, 1, 0, UPG, 0, 0, 0, 0, 0, 0, 0, PLAN_UPGRADE, PLAN_OK,
	 PLAN_TRUNCATE, 0},
	{"in sync under RetryOnFailure: keep the 5 newest", PLAN_INSYNC, 0, 1, UPG, 0, 0, 0, 0, 0, 0, 0, PLAN_NONE, PLAN_OK,
	 PLAN_TRUNCATE_NEWEST, 0},
	{"untested: run the tests", PLAN_UNTESTED, 0, 0, INST, 0, 0, 0, 0, 0, 0, 0, PLAN_TEST, PLAN_OK, PLAN_KEEP, 0},
	{"pending-*: unlock", PLAN_LOCKED, 0, 0, UPG, 0, 0, 0, 0, 0, 0, 0, PLAN_UNLOCK, PLAN_OK, PLAN_KEEP, 0},
	{"absent: install", PLAN_ABSENT, 0, 0, NOACT, 0, 0, 0, 0, 0, 0, 0, PLAN_INSTALL, PLAN_OK, PLAN_KEEP, 0},
	{"absent, install retries left (1 failure of 2)", PLAN_ABSENT, 0, 0, INST, 2, 1, 0, 0, 0, 0, 0, PLAN_INSTALL, PLAN_OK,
	 PLAN_KEEP, 0},
	{"absent, install retries spent (0 retries, 1 failure): stalled", PLAN_ABSENT, 0, 0, INST, 0, 1, 0, 0, 0, 0, 0,
	 PLAN_NONE, PLAN_EXCEEDED, PLAN_KEEP, 0},
	{"absent, retries spent but forceAt: install", PLAN_ABSENT, 1, 0, INST, 0, 1, 0, 0, 0, 0, 0, PLAN_INSTALL, PLAN_OK,
	 PLAN_KEEP, 0},
	{"absent, negative retries: unlimited", PLAN_ABSENT, 0, 0, INST, -1, 99, 0, 0, 0, 0, 0, PLAN_INSTALL, PLAN_OK,
	 PLAN_KEEP, 0},
	{"unmanaged: history cleared, upgrade", PLAN_UNMANAGED, 0, 0, NOACT, 0, 0, 0, 0, 0, 0, 0, PLAN_UPGRADE, PLAN_OK,
	 PLAN_CLEAR, 0},
	{"out of sync: upgrade", PLAN_OUTOFSYNC, 0, 0, UPG, 0, 0, 1, 1, 0, 0, 0, PLAN_UPGRADE, PLAN_OK, PLAN_KEEP, 0},
	{"out of sync, upgrade retries spent: stalled", PLAN_OUTOFSYNC, 0, 0, UPG, 0, 0, 1, 2, 0, 0, 0, PLAN_NONE,
	 PLAN_EXCEEDED, PLAN_KEEP, 0},
	{"out of sync, retries spent but forceAt: upgrade", PLAN_OUTOFSYNC, 1, 0, UPG, 0, 0, 1, 2, 0, 0, 0, PLAN_UPGRADE,
	 PLAN_OK, PLAN_KEEP, 0},
	{"failed, no active remediation: upgrade", PLAN_FAILED, 0, 0, NOACT, 0, 0, 0, 0, 0, 0, 0, PLAN_UPGRADE, PLAN_OK,
	 PLAN_KEEP, 0},
	{"failed, no failure since the spec changed: upgrade", PLAN_FAILED, 0, 0, UPG, 0, 0, 3, 0, 0, 0, 0, PLAN_UPGRADE,
	 PLAN_OK, PLAN_KEEP, 0},
	{"failed upgrade, retries left: roll back to the verified previous release", PLAN_FAILED, 0, 0, UPG, 0, 0, 1, 1, 0, 0,
	 PLAN_TARGET_OK, PLAN_ROLLBACK, PLAN_OK, PLAN_TRUNCATE, 1},
	{"failed upgrade, rollback target gone from storage: stalled", PLAN_FAILED, 0, 0, UPG, 0, 0, 1, 1, 0, 0,
	 PLAN_TARGET_MISSING, PLAN_NONE, PLAN_MISSING_TARGET, PLAN_TRUNCATE, 1},
	{"failed upgrade, rollback target modified: upgrade again", PLAN_FAILED, 0, 0, UPG, 0, 0, 1, 1, 0, 0,
	 PLAN_TARGET_CORRUPT, PLAN_UPGRADE, PLAN_OK, PLAN_TRUNCATE, 1},
	{"failed upgrade, strategy uninstall", PLAN_FAILED, 0, 0, UPG, 0, 0, 1, 1, 0, 1, 0, PLAN_UNINSTALL_REMEDIATION,
	 PLAN_OK, PLAN_TRUNCATE, 0},
	{"failed upgrade, retries spent, remediateLastFailure: remediate", PLAN_FAILED, 0, 0, UPG, 0, 0, 1, 2, 1, 0,
	 PLAN_TARGET_OK, PLAN_ROLLBACK, PLAN_OK, PLAN_TRUNCATE, 1},
	{"failed upgrade, retries spent, no remediateLastFailure: stalled", PLAN_FAILED, 0, 0, UPG, 0, 0, 1, 2, 0, 0, 0,
	 PLAN_NONE, PLAN_EXCEEDED, PLAN_KEEP, 0},
	{"failed upgrade, forceAt: upgrade", PLAN_FAILED, 1, 0, UPG, 0, 0, 1, 2, 0, 0, 0, PLAN_UPGRADE, PLAN_OK, PLAN_KEEP, 0},
	{"failed install: uninstall remediation (install remediation is always uninstall)", PLAN_FAILED, 0, 0, INST, 1, 1,
	 0, 0, 0, 1, 0, PLAN_UNINSTALL_REMEDIATION, PLAN_OK, PLAN_TRUNCATE, 0},
	{"failed install, retries spent (default 0): stalled", PLAN_FAILED, 0, 0, INST, 0, 1, 0, 0, 0, 1, 0, PLAN_NONE,
	 PLAN_EXCEEDED, PLAN_KEEP, 0},
	{"failed, RetryOnFailure: upgrade again, no remediation, 5 newest kept", PLAN_FAILED, 0, 1, UPG, 0, 0, 0, 5, 0, 0, 0,
	 PLAN_UPGRADE, PLAN_OK, PLAN_TRUNCATE_NEWEST, 0},
	{"failed install, RetryOnFailure: upgrade again", PLAN_FAILED, 0, 1, INST, 0, 3, 0, 0, 0, 1, 0, PLAN_UPGRADE, PLAN_OK,
	 PLAN_TRUNCATE_NEWEST, 0},
};

START_TEST(test_table)
{
	const struct row *r = &rows[_i];
	plan_input in = {r->state, r->force, r->retry, r->active,
			 {r->iret, r->ifail, r->remediate_last, 1}, {r->uret, r->ufail, r->remediate_last, r->uninstall},
			 target, NULL};
	plan_output o;
	target_result = r->t;
	target_asked = 0;
	o = plan_next(&in);
	ck_assert_msg(o.action == r->want, "%s: action %s, want %s", r->why, plan_action_name(o.action),
		      plan_action_name(r->want));
	ck_assert_msg(o.error == r->err, "%s: error %d, want %d", r->why, o.error, r->err);
	ck_assert_msg(o.truncate == r->trunc, "%s: truncate %d, want %d", r->why, o.truncate, r->trunc);
	ck_assert_msg(target_asked == r->asks_target, "%s: target asked %d times", r->why, target_asked);
}
END_TEST

START_TEST(test_exhausted)
{
	plan_remediation r = {0, 0, 0, 0};
	ck_assert(!plan_exhausted(&r));
	r.failures = 1;
	ck_assert(plan_exhausted(&r));
	r.retries = -1;
	ck_assert(!plan_exhausted(&r));
	ck_assert_str_eq(plan_action_name(PLAN_UNINSTALL_REMEDIATION), "uninstall-remediation");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_table, 0, (int)(sizeof rows / sizeof rows[0]));
	tcase_add_test(tc, test_exhausted);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
