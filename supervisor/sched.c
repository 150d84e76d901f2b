/* supervisor/sched.c — see sched.h. */
#include "supervisor/sched.h"

#include <stdio.h>
#include <string.h>

static unsigned running_in(const sched_item *items, size_t n, const char *ns)
{
	unsigned r = 0;
	for (size_t i = 0; i < n; i++)
		r += items[i].running && !strcmp(items[i].ns, ns);
	return r;
}

long sched_pick(sched_state *s, const sched_item *items, size_t n, unsigned cap)
{
	long after = -1, first = -1; /* best item in the next namespace after last_ns, and overall */
	for (size_t i = 0; i < n; i++) {
		const sched_item *it = &items[i];
		long *slot;
		int c;
		if (!it->ready || it->running)
			continue;
		slot = strcmp(it->ns, s->last_ns) > 0 ? &after : &first;
		if (*slot >= 0) {
			c = strcmp(it->ns, items[*slot].ns);
			if (c > 0 || (c == 0 && it->since >= items[*slot].since))
				continue;
		}
		if (cap && running_in(items, n, it->ns) >= cap)
			continue; /* this namespace is at its cap: another may go */
		*slot = (long)i;
	}
	if (after < 0) /* wrap around: the first namespace in order */
		after = first;
	if (after >= 0)
		snprintf(s->last_ns, sizeof s->last_ns, "%s", items[after].ns);
	return after;
}
