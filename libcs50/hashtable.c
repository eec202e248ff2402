/* hashtable.c: separate chaining, power-of-two slots, insertion-ordered
 * iteration; see hashtable.h.
 *
 * Each node is one allocation holding its key (flexible array member) and
 * its full 64-bit hash: growth rehashes without rereading keys, and a
 * lookup compares strings only when the hashes match. Nodes also form a
 * singly linked list in insertion order; iteration walks that list, so it
 * is independent of slot layout and unaffected by growth (nodes never move,
 * only the slot chains are rebuilt). There is no removal, so the list never
 * needs unlinking.
 *
 * Invariants: nslots is a power of two; count == nodes on the order list ==
 * nodes on all chains; each node sits on chain (hash & (nslots - 1)). */
#include "hashtable.h"

#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "mem.h"

#define MIN_SLOTS ((size_t)16)
#define MAX_HINT_SLOTS ((size_t)1 << 20)

typedef struct ht_node {
  struct ht_node *chain; /* next in this slot */
  struct ht_node *next;  /* next in insertion order */
  void *item;
  uint64_t hash; /* hash_mix64(hash_str(key)) */
  char key[];
} ht_node_t;

struct hashtable {
  ht_node_t **slots;
  size_t nslots;
  size_t count;
  ht_node_t *head; /* oldest */
  ht_node_t *tail; /* newest; NULL iff head is NULL */
};

static uint64_t key_hash(const char *key)
{
  /* Mix so that the low bits we mask with depend on every key byte. */
  return hash_mix64(hash_str(key));
}

hashtable_t *hashtable_new(const int num_slots)
{
  hashtable_t *ht;
  size_t n = MIN_SLOTS;

  if (num_slots <= 0) {
    return NULL;
  }
  while (n < (size_t)num_slots && n < MAX_HINT_SLOTS) {
    n *= 2;
  }
  ht = mem_malloc(sizeof(*ht));
  if (ht == NULL) {
    return NULL;
  }
  ht->slots = mem_calloc(n, sizeof(*ht->slots));
  if (ht->slots == NULL) {
    mem_free(ht);
    return NULL;
  }
  ht->nslots = n;
  ht->count = 0;
  ht->head = NULL;
  ht->tail = NULL;
  return ht;
}

static ht_node_t *lookup(const hashtable_t *ht, const char *key, uint64_t h)
{
  for (ht_node_t *n = ht->slots[h & (ht->nslots - 1)]; n != NULL;
       n = n->chain) {
    if (n->hash == h && strcmp(n->key, key) == 0) {
      return n;
    }
  }
  return NULL;
}

/* grow: double the slot array and rechain every node. On failure keep the
 * old array: correctness does not depend on the load factor. */
static void grow(hashtable_t *ht)
{
  size_t n;
  ht_node_t **slots;

  if (ht->nslots > SIZE_MAX / 2 / sizeof(*slots)) {
    return;
  }
  n = ht->nslots * 2;
  slots = mem_calloc(n, sizeof(*slots));
  if (slots == NULL) {
    return;
  }
  for (ht_node_t *node = ht->head; node != NULL; node = node->next) {
    size_t i = node->hash & (n - 1);

    node->chain = slots[i];
    slots[i] = node;
  }
  mem_free(ht->slots);
  ht->slots = slots;
  ht->nslots = n;
}

bool hashtable_insert(hashtable_t *ht, const char *key, void *item)
{
  uint64_t h;
  size_t len;
  size_t i;
  ht_node_t *node;

  if (ht == NULL || key == NULL || item == NULL) {
    return false;
  }
  h = key_hash(key);
  if (lookup(ht, key, h) != NULL) {
    return false;
  }
  len = strlen(key) + 1;
  if (len > SIZE_MAX - sizeof(*node)) {
    return false;
  }
  node = mem_malloc(sizeof(*node) + len);
  if (node == NULL) {
    return false;
  }
  memcpy(node->key, key, len);
  node->item = item;
  node->hash = h;
  node->next = NULL;
  i = h & (ht->nslots - 1);
  node->chain = ht->slots[i];
  ht->slots[i] = node;
  if (ht->tail != NULL) {
    ht->tail->next = node;
  } else {
    ht->head = node;
  }
  ht->tail = node;
  ht->count++;
  /* Load factor 1: average chain length stays under one node or so. */
  if (ht->count > ht->nslots) {
    grow(ht);
  }
  return true;
}

void *hashtable_find(const hashtable_t *ht, const char *key)
{
  ht_node_t *node;

  if (ht == NULL || key == NULL) {
    return NULL;
  }
  node = lookup(ht, key, key_hash(key));
  return node != NULL ? node->item : NULL;
}

size_t hashtable_count(const hashtable_t *ht)
{
  return ht != NULL ? ht->count : 0;
}

void hashtable_print(const hashtable_t *ht, FILE *fp,
                     void (*itemprint)(FILE *fp, const char *key, void *item))
{
  if (fp == NULL) {
    return;
  }
  if (ht == NULL) {
    fputs("(null)\n", fp);
    return;
  }
  fputc('{', fp);
  if (itemprint != NULL) {
    for (ht_node_t *n = ht->head; n != NULL; n = n->next) {
      if (n != ht->head) {
        fputs(", ", fp);
      }
      itemprint(fp, n->key, n->item);
    }
  }
  fputs("}\n", fp);
}

void hashtable_iterate(const hashtable_t *ht, void *arg,
                       void (*itemfunc)(void *arg, const char *key, void *item))
{
  if (ht == NULL || itemfunc == NULL) {
    return;
  }
  for (ht_node_t *n = ht->head; n != NULL; n = n->next) {
    itemfunc(arg, n->key, n->item);
  }
}

void hashtable_delete(hashtable_t *ht, void (*itemdelete)(void *item))
{
  ht_node_t *n;

  if (ht == NULL) {
    return;
  }
  n = ht->head;
  while (n != NULL) {
    ht_node_t *next = n->next;

    if (itemdelete != NULL) {
      itemdelete(n->item);
    }
    mem_free(n);
    n = next;
  }
  mem_free(ht->slots);
  mem_free(ht);
}
