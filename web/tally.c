/* tally.c: see tally.h. A linear search: a tally holds 8 causes. */
#include "tally.h"

#include <stdio.h>
#include <string.h>

void tally_add(tally_t *t, const char *what)
{
  char cut[TALLY_WHAT];
  snprintf(cut, sizeof(cut), "%s", what);
  for (size_t i = 0; i < t->n; i++) {
    if (strcmp(t->v[i].what, cut) == 0) {
      t->v[i].n++;
      return;
    }
  }
  if (t->n == TALLY_MAX) {
    t->other++;
    return;
  }
  memcpy(t->v[t->n].what, cut, sizeof(cut));
  t->v[t->n].n = 1;
  t->n++;
}

void tally_sort(tally_t *t)
{
  /* Insertion sort: stable, and the array is tiny. */
  for (size_t i = 1; i < t->n; i++) {
    struct tally_entry e = t->v[i];
    size_t j = i;
    for (; j > 0 && t->v[j - 1].n < e.n; j--)
      t->v[j] = t->v[j - 1];
    t->v[j] = e;
  }
}
