/* Byte-level BPE of one pre-tokenized piece: start from one symbol per
 * byte, merge the adjacent pair of lowest rank (leftmost on ties) until no
 * pair has one. Ranks are the merges list's order (tokenizer.json) or the
 * rank of the merged bytes (tiktoken). A min-heap of candidate pairs keeps
 * it O(n log n) on long pieces. */
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"

typedef struct cand {
  int32_t rank, left, right, merged; /* positions left < right */
  int32_t lid, rid;                  /* the ids the pair had when pushed */
} cand;

typedef struct heap {
  cand *a;
  size_t n, cap;
} heap;

static bool less(const cand *x, const cand *y) {
  return x->rank != y->rank ? x->rank < y->rank : x->left < y->left;
}

static bool heap_push(heap *h, cand c) {
  if (h->n == h->cap) {
    size_t nc = h->cap ? h->cap * 2 : 64;
    cand *na = realloc(h->a, nc * sizeof *na);
    if (!na) return false;
    h->a = na;
    h->cap = nc;
  }
  size_t i = h->n++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!less(&c, &h->a[p])) break;
    h->a[i] = h->a[p];
    i = p;
  }
  h->a[i] = c;
  return true;
}

static cand heap_pop(heap *h) {
  cand top = h->a[0], last = h->a[--h->n];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    const cand *best = &last;
    if (l < h->n && less(&h->a[l], best)) {
      m = l;
      best = &h->a[l];
    }
    if (r < h->n && less(&h->a[r], best)) m = r;
    if (m == i) break;
    h->a[i] = h->a[m];
    i = m;
  }
  if (h->n) h->a[i] = last;
  return top;
}

static bool pair_rank(const pte_llm_tokenizer *t, int32_t a, int32_t b, int32_t *rank, int32_t *merged) {
  if (!t->rank_by_bytes) return tok_pairs_get(&t->merges, a, b, rank, merged);
  uint8_t tmp[2 * TOK_MAX_PIECE];
  size_t la = t->len[a], lb = t->len[b];
  if (la + lb > sizeof tmp) return false;
  memcpy(tmp, t->pool + t->off[a], la);
  memcpy(tmp + la, t->pool + t->off[b], lb);
  int32_t id = tok_map_get(t, &t->vocab, tmp, la + lb);
  if (id < 0) return false;
  *rank = *merged = id; /* tiktoken: ids are ranks */
  return true;
}

static bool push_pair(const pte_llm_tokenizer *t, heap *h, const int32_t *sym, int32_t l, int32_t r) {
  int32_t rank, merged;
  if (l < 0 || r < 0 || !pair_rank(t, sym[l], sym[r], &rank, &merged)) return true;
  return heap_push(h, (cand){rank, l, r, merged, sym[l], sym[r]});
}

pte_status bpe_encode_piece(const pte_llm_tokenizer *t, const uint8_t *s, size_t n, pte_llm_ids *out) {
  if (n == 0) return PTE_OK;
  if (t->whole_word_first) {
    int32_t id = tok_map_get(t, &t->vocab, s, n);
    if (id >= 0) return tok_ids_push(out, id);
  }
  if (n == 1) return tok_ids_push(out, t->byte_id[s[0]]);
  if (n > INT32_MAX / 4) return tok_fail("text piece too long");
  int32_t *sym = malloc(n * 3 * sizeof(int32_t));
  if (!sym) return tok_fail("out of memory");
  int32_t *prev = sym + n, *next = prev + n;
  for (size_t i = 0; i < n; i++) {
    sym[i] = t->byte_id[s[i]];
    prev[i] = (int32_t)i - 1;
    next[i] = i + 1 < n ? (int32_t)i + 1 : -1;
  }
  heap h = {0};
  pte_status st = PTE_OK;
  for (size_t i = 0; i + 1 < n; i++)
    if (!push_pair(t, &h, sym, (int32_t)i, (int32_t)i + 1)) goto oom;
  while (h.n) {
    cand c = heap_pop(&h);
    /* stale: one side merged away or changed since it was pushed */
    if (sym[c.left] != c.lid || sym[c.right] != c.rid || next[c.left] != c.right) continue;
    sym[c.left] = c.merged;
    sym[c.right] = -1;
    next[c.left] = next[c.right];
    if (next[c.right] >= 0) prev[next[c.right]] = c.left;
    if (!push_pair(t, &h, sym, prev[c.left], c.left) || !push_pair(t, &h, sym, c.left, next[c.left]))
      goto oom;
  }
  for (int32_t i = 0; i >= 0 && st == PTE_OK; i = next[i]) st = tok_ids_push(out, sym[i]);
  free(h.a);
  free(sym);
  return st;
oom:
  free(h.a);
  free(sym);
  return tok_fail("out of memory");
}
