/* bench_bare: the "bare process" baseline of the memory figures. Prints the
 * peak and current resident set (kB) of a C process that loads nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long hwm = -1, rss = -1;
  while (f && fgets(line, sizeof line, f)) {
    if (!strncmp(line, "VmHWM:", 6)) hwm = strtol(line + 6, NULL, 10);
    else if (!strncmp(line, "VmRSS:", 6)) rss = strtol(line + 6, NULL, 10);
  }
  if (f) fclose(f);
  printf("%ld\t%ld\n", hwm, rss);
  return hwm < 0;
}
