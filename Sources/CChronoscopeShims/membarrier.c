#include "Membarrier.h"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

int chronoscope_membarrier_register(void) {
  long commands = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (commands < 0 || !(commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return -1;
  return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 0 : -1;
}

int chronoscope_membarrier(void) {
  return syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0 ? 0 : -1;
}
#else
int chronoscope_membarrier_register(void) { return -1; }
int chronoscope_membarrier(void) { return -1; }
#endif
