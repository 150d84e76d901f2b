/* lib/fifo.h — a singly linked FIFO of nodes that carry their own link
 * field (any name): the first node and where the next one is linked in
 * (the last node's link, or the first pointer when empty), so an append is
 * two stores and no branch. The list taken off (BH_FIFO_TAKE) stays linked
 * by that field, NULL-terminated, oldest first. */
#ifndef BH_LIB_FIFO_H
#define BH_LIB_FIFO_H

#include <stddef.h>

/* The type of a FIFO of nodes of type T. */
#define BH_FIFO(T) \
	struct { \
		T *first; \
		T **last; \
	}

/* Initialiser of the FIFO named q (also for a static one). */
#define BH_FIFO_INITIALIZER(q) { NULL, &(q).first }

/* q made empty (its nodes are not touched). */
#define BH_FIFO_INIT(q) ((q)->first = NULL, (q)->last = &(q)->first)

#define BH_FIFO_EMPTY(q) ((q)->first == NULL)

/* n appended to q, linked by its field link. */
#define BH_FIFO_PUSH(q, n, link) ((n)->link = NULL, *(q)->last = (n), (q)->last = &(n)->link)

/* q's first node removed (q must not be empty). */
#define BH_FIFO_POP(q, link) \
	(((q)->first = (q)->first->link) == NULL ? (void)((q)->last = &(q)->first) : (void)0)

/* Every node of q, taken off into out (the first): q is empty after. */
#define BH_FIFO_TAKE(q, out) \
	do { \
		(out) = (q)->first; \
		BH_FIFO_INIT(q); \
	} while (0)

#endif
