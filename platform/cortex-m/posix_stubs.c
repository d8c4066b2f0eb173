/* POSIX calls GoogleTest links against that a semihosted board cannot
 * provide (there is no directory tree): they fail cleanly instead of leaving
 * undefined references. Only test programs need them; the library calls none. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

int mkdir(const char* path, mode_t mode) {
  (void)path;
  (void)mode;
  errno = ENOSYS;
  return -1;
}

/* The one directory there is: the host's, seen through semihosting as "/". */
char* getcwd(char* buffer, size_t size) {
  if (buffer == NULL || size < 2) {
    errno = ERANGE;
    return NULL;
  }
  memcpy(buffer, "/", 2);
  return buffer;
}
