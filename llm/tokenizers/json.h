/* A small JSON reader for tokenizer.json: a tree of values, strings
 * unescaped into their own buffers. Internal to libpterun_llm. */
#ifndef PTERUN_LLM_JSON_H
#define PTERUN_LLM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jv {
  int type;
  size_t n;       /* string bytes, array items, object members */
  char *s;        /* J_STR (NUL-terminated copy) */
  double num;     /* J_NUM */
  struct jv *kid; /* J_ARR: n items; J_OBJ: 2n (key, value) */
} jv;

/* Parse buf; on failure *err names what and where (returns false). */
bool json_parse(const uint8_t *buf, size_t n, jv *out, char *err, size_t errn);
void json_free(jv *v);
/* Member of an object, or NULL. */
const jv *json_get(const jv *obj, const char *key);
bool json_is_str(const jv *v, const char *s);

#endif
