/* UTF-8 as the reference tokenizers see it (Python's "replace", Rust's
 * from_utf8_lossy): each maximal subpart of an ill-formed sequence is one
 * U+FFFD (Unicode 3.9, table 3-7), and Unicode letter / number / space
 * classes for the split patterns. */
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"
#include "unicode_tables.h"

int utf8_next(const uint8_t *s, size_t n, uint32_t *cp, size_t *sub) {
  const uint8_t c = s[0];
  *sub = 1;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  int need;
  uint8_t lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  uint32_t v = c & (0x3F >> need);
  for (int i = 1; i <= need; i++) {
    if ((size_t)i >= n || s[i] < lo || s[i] > hi) {
      *sub = (size_t)i;
      return 0;
    }
    v = (v << 6) | (s[i] & 0x3F);
    lo = 0x80;
    hi = 0xBF;
  }
  *cp = v;
  return need + 1;
}

size_t utf8_put(uint32_t cp, uint8_t *o) {
  if (cp < 0x80) {
    o[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (uint8_t)(0xC0 | (cp >> 6));
    o[1] = (uint8_t)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (uint8_t)(0xE0 | (cp >> 12));
    o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (uint8_t)(0xF0 | (cp >> 18));
  o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (uint8_t)(0x80 | (cp & 0x3F));
  return 4;
}

uint8_t *utf8_sanitize(const uint8_t *s, size_t n, size_t *out_n) {
  /* at most 3 output bytes per input byte */
  if (n > (SIZE_MAX - 1) / 3) return NULL;
  uint8_t *o = malloc(n * 3 + 1);
  if (!o) return NULL;
  size_t j = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t sub;
    int k = utf8_next(s + i, n - i, &cp, &sub);
    if (k > 0) {
      memcpy(o + j, s + i, (size_t)k);
      j += (size_t)k;
      i += (size_t)k;
    } else {
      j += utf8_put(0xFFFD, o + j);
      i += sub;
    }
  }
  *out_n = j;
  return o;
}

static bool in_ranges(const uint32_t (*r)[2], size_t n, uint32_t cp) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (cp < r[mid][0]) hi = mid;
    else if (cp > r[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
}

bool uni_is_letter(uint32_t cp) {
  if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  return in_ranges(k_uni_letters, sizeof k_uni_letters / sizeof k_uni_letters[0], cp);
}

bool uni_is_number(uint32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return in_ranges(k_uni_numbers, sizeof k_uni_numbers / sizeof k_uni_numbers[0], cp);
}

/* The White_Space property (what \s matches in the reference engines). */
bool uni_is_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}
