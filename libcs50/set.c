/* set.c: a thin wrapper over hashtable; see set.h.
 *
 * One implementation of hashing and growth, not two: a set is exactly a
 * hashtable whose size nobody predicted. The wrapper struct keeps set_t a
 * distinct type, so the compiler catches a set passed as a hashtable. */
#include "set.h"

#include "hashtable.h"
#include "mem.h"

/* Small start: many sets (e.g. one per word in an index) stay tiny. */
#define SET_INITIAL_SLOTS 16

struct set {
  hashtable_t *ht;
};

set_t *set_new(void)
{
  set_t *set = mem_malloc(sizeof(*set));

  if (set == NULL) {
    return NULL;
  }
  set->ht = hashtable_new(SET_INITIAL_SLOTS);
  if (set->ht == NULL) {
    mem_free(set);
    return NULL;
  }
  return set;
}

bool set_insert(set_t *set, const char *key, void *item)
{
  return set != NULL && hashtable_insert(set->ht, key, item);
}

void *set_find(const set_t *set, const char *key)
{
  return set != NULL ? hashtable_find(set->ht, key) : NULL;
}

size_t set_count(const set_t *set)
{
  return set != NULL ? hashtable_count(set->ht) : 0;
}

void set_print(const set_t *set, FILE *fp,
               void (*itemprint)(FILE *fp, const char *key, void *item))
{
  /* hashtable_print writes "(null)\n" for a NULL table, as we promise. */
  hashtable_print(set != NULL ? set->ht : NULL, fp, itemprint);
}

void set_iterate(const set_t *set, void *arg,
                 void (*itemfunc)(void *arg, const char *key, void *item))
{
  if (set != NULL) {
    hashtable_iterate(set->ht, arg, itemfunc);
  }
}

void set_delete(set_t *set, void (*itemdelete)(void *item))
{
  if (set != NULL) {
    hashtable_delete(set->ht, itemdelete);
    mem_free(set);
  }
}
