/* Allocation through a caller's allocator, and the arena (bump) allocator. */
#include "internal.h"

#include <stdlib.h>

void *pte_alloc(const pte_allocator *a, size_t size, size_t alignment) {
  if (alignment < 16) alignment = 16;
  if (size == 0) size = 1;
  if (a) return a->alloc(a->user, size, alignment);
  size_t rounded;
  if (!pte_add_ok(size, alignment - 1, &rounded)) return NULL;
  rounded &= ~(alignment - 1);
  return aligned_alloc(alignment, rounded);
}

void pte_free(const pte_allocator *a, void *p) {
  if (!p) return;
  if (a) {
    if (a->free) a->free(a->user, p);
    return;
  }
  free(p);
}

static void *arena_alloc(void *user, size_t size, size_t alignment) {
  pte_arena *arena = (pte_arena *)user;
  uintptr_t base = (uintptr_t)arena->base;
  uintptr_t cur = base + arena->used;
  uintptr_t aligned = (cur + alignment - 1) & ~(uintptr_t)(alignment - 1);
  size_t start = (size_t)(aligned - base);
  if (start > arena->size || size > arena->size - start) return NULL;
  arena->used = start + size;
  return arena->base + start;
}

void pte_arena_init(pte_arena *arena, void *buffer, size_t size) {
  arena->allocator.user = arena;
  arena->allocator.alloc = arena_alloc;
  arena->allocator.free = NULL;
  arena->base = (uint8_t *)buffer;
  arena->size = buffer ? size : 0;
  arena->used = 0;
}
