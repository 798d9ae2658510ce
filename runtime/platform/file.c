/* Whole-file access (a read-only private mapping, or a read into memory)
 * and zero pages from the system. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

pte_status pte_file_map_open(const char *path, uint32_t flags, const pte_allocator *a, pte_file_map *out) {
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return pte_error(errno == ENOENT ? PTE_ERR_NOT_FOUND : PTE_ERR_IO, "cannot open '%s': %s", path,
                     strerror(errno));
    /* statx where glibc has it (2.28): fstat became a symbol of its own only
     * in glibc 2.33, and the wheel must load on 2.28 (cmake/glibc_baseline.py) */
#ifdef STATX_TYPE
  struct statx sb;
  int bad = statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE, &sb) != 0 || !S_ISREG(sb.stx_mode);
  size_t size = (size_t)sb.stx_size;
#else
  struct stat sb;
  int bad = fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode);
  size_t size = (size_t)sb.st_size;
#endif
  if (bad) {
    close(fd);
    return pte_error(PTE_ERR_IO, "'%s' is not a regular file", path);
  }
  if (size == 0) {
    close(fd);
    return pte_error(PTE_ERR_INVALID_PROGRAM, "'%s' is empty", path);
  }
  if (!(flags & PTE_LOAD_READ)) {
    int mflags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    if (flags & PTE_LOAD_PREFAULT) mflags |= MAP_POPULATE;
#endif
    void *p = mmap(NULL, size, PROT_READ, mflags, fd, 0);
    if (p != MAP_FAILED) {
      close(fd);
      if (flags & PTE_LOAD_MLOCK) (void)mlock(p, size);
      /* MAP_POPULATE is a request some kernels and emulators (qemu-user)
       * ignore: a read every 4 KiB (the smallest page) maps it in anyway,
       * for one load per page that is resident already */
      if (flags & PTE_LOAD_PREFAULT)
        for (size_t i = 0; i < size; i += 4096) (void)((volatile const char *)p)[i];
      out->data = p;
      out->size = size;
      out->mapped = 1;
      return PTE_OK;
    }
  }
  void *buf = pte_alloc(a, size, 64);
  if (!buf) {
    close(fd);
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory reading '%s' (%zu bytes)", path, size);
  }
  size_t got = 0;
  while (got < size) {
    ssize_t r = read(fd, (char *)buf + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      close(fd);
      pte_free(a, buf);
      return pte_error(PTE_ERR_IO, "reading '%s' failed after %zu bytes", path, got);
    }
    got += (size_t)r;
  }
  close(fd);
  out->data = buf;
  out->size = size;
  out->mapped = 0;
  return PTE_OK;
}

void pte_file_map_release(const pte_file_map *m, uint32_t flags, const void *p, size_t n) {
#ifdef MADV_DONTNEED
  const uintptr_t lo = (uintptr_t)m->data, at = (uintptr_t)p;
  if (!m->mapped || (flags & PTE_LOAD_MLOCK) || at < lo || n > m->size || at - lo > m->size - n) return;
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  const uintptr_t a = (at + page - 1) & ~(page - 1), b = (at + n) & ~(page - 1);
  /* MADV_DONTNEED on a private mapping never written drops the pages: a
   * later read maps the file's bytes again */
  if (b > a) (void)madvise((void *)a, b - a, MADV_DONTNEED);
#else
  (void)m, (void)flags, (void)p, (void)n;
#endif
}

void pte_file_map_close(pte_file_map *m, const pte_allocator *a) {
  if (!m->data) return;
  if (m->mapped) munmap(m->data, m->size);
  else pte_free(a, m->data);
  m->data = NULL;
}

void *pte_pages_zeroed(size_t size) {
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void pte_pages_free(void *p, size_t size) {
  if (p) munmap(p, size);
}

size_t pte_page_size(void) {
  long n = sysconf(_SC_PAGESIZE);
  return n > 0 ? (size_t)n : 4096;
}
