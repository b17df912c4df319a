// The preload library's C side (see CChronoscopePreload.h). Nothing here allocates on the hot path: the
// call-site walk reads the stack and a fixed table; the module descriptions run once per site.
// Linux only, as `chronoscope record` is (glibc, ELF, LD_PRELOAD): elsewhere this file is empty.
#ifdef __linux__
#define _GNU_SOURCE
#include "CChronoscopePreload.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

extern void chronoscope_preload_start(void);
extern void chronoscope_preload_before_exec(void);
extern void chronoscope_preload_after_failed_exec(void);
static void find_exec_family(void);
static void disable_in_child(void);
static const char *base_name(const char *path);
/// Whether CHRONOSCOPE_TRACE_SITES=0 turned call sites off.
static int sites_off;

struct module_query {
  uintptr_t address;
  const char *prefix;
  int found;
};

static int match_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct module_query *query = data;
  if (info->dlpi_name == NULL ||
      strncmp(base_name(info->dlpi_name), query->prefix, strlen(query->prefix)) != 0)
    return 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD) continue;
    uintptr_t low = info->dlpi_addr + header->p_vaddr;
    if (query->address >= low && query->address - low < header->p_memsz) {
      query->found = 1;
      return 1;
    }
  }
  return 0;
}

// Whether `address` lies in a loaded module whose file name starts with `prefix`. Through the
// dynamic linker's list of modules and their segments, not dladdr: dladdr also searches the
// module's symbols for the nearest one, which in libswiftCore is about half a million
// instructions a call (seven calls were a fifth of the library's start-up in a shell).
static int in_module_named(const void *address, const char *prefix) {
  struct module_query query = {(uintptr_t)address, prefix, 0};
  dl_iterate_phdr(match_module, &query);
  return query.found;
}

// Loading this library loads the Swift runtime, whose crash handler (the backtracer) takes the
// fatal signals still at their defaults when it starts. A program that is not Swift (a shell the
// recorded program runs) must crash as it would have: its default dispositions are put back.
static void restore_crash_defaults(void) {
  static const int signals[] = {SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP};
  for (size_t index = 0; index < sizeof signals / sizeof *signals; index++) {
    struct sigaction current;
    if (sigaction(signals[index], NULL, &current) != 0) continue;
    void *handler = (current.sa_flags & SA_SIGINFO) ? (void *)current.sa_sigaction
                                                     : (void *)current.sa_handler;
    if (handler == NULL || handler == (void *)SIG_DFL || handler == (void *)SIG_IGN) continue;
    // The runtime installs its handler only over a default disposition.
    if (!in_module_named(handler, "libswiftCore.so")) continue;
    struct sigaction defaults;
    memset(&defaults, 0, sizeof defaults);
    defaults.sa_handler = SIG_DFL;
    sigemptyset(&defaults.sa_mask);
    sigaction(signals[index], &defaults, NULL);
  }
}

static pthread_t main_thread;
static int main_thread_known;

// The dynamic linker runs constructors when LD_PRELOAD loads the library, before the program's
// main, after the libraries it depends on (the Swift runtime, Dispatch) are set up.
__attribute__((constructor)) static void chronoscope_preload_constructor(void) {
  if (!chronoscope_preload_main_program_is_swift()) restore_crash_defaults();
  // The constructor runs on the main thread, before main.
  main_thread = pthread_self();
  main_thread_known = 1;
  pthread_atfork(NULL, NULL, disable_in_child);
  find_exec_family();
  const char *sites = getenv("CHRONOSCOPE_TRACE_SITES");
  sites_off = sites != NULL && strcmp(sites, "0") == 0;
  chronoscope_preload_start();
}

// Thread-local state in the initial-exec model: read at a fixed offset from the thread pointer,
// where the general-dynamic model a shared library gets by default calls `__tls_get_addr` on
// every access (about 55 instructions a schedule). Sound because this library is only ever
// loaded by LD_PRELOAD, with the program, when the static TLS block is laid out; `dlopen`ing it
// later is not supported (the loader would refuse it for want of static TLS room).
#define PRELOAD_TLS __thread __attribute__((tls_model("initial-exec")))

static PRELOAD_TLS int inside;

int chronoscope_preload_is_main_thread(void) {
  return main_thread_known && pthread_equal(pthread_self(), main_thread);
}
static volatile int disabled;

static void disable_in_child(void) { disabled = 1; }

int chronoscope_preload_is_disabled(void) { return disabled; }

int chronoscope_preload_enter(void) {
  if (inside || disabled) return 0;
  inside = 1;
  return 1;
}

void chronoscope_preload_leave(void) { inside = 0; }

int chronoscope_preload_is_inside(void) { return inside; }

int chronoscope_preload_suspend(void) {
  int outer = inside;
  inside = 0;
  return outer;
}

void chronoscope_preload_restore(int outer) { inside = outer; }

// MARK: - exec

// `exec` runs no exit handlers and ends every thread: what the recorder buffered would be lost,
// and its trace left without its end. Each of the family (glibc's own calls to one another are
// internal, so each public one is interposed) ends the traces first, in the calling thread, and
// takes the end back if the call fails. Only in the process that opened the recorder: a child
// forked (`disabled`) or `vfork`ed (another pid, sharing the parent's memory and locks) touches
// nothing of the parent's. The real functions are found at start: looking one up in a child
// could take a lock another thread of the parent held at the fork.

static pid_t owner_pid;

void chronoscope_preload_note_owner(void) { owner_pid = getpid(); }

typedef int (*execve_function)(const char *, char *const[], char *const[]);
typedef int (*execv_function)(const char *, char *const[]);
typedef int (*fexecve_function)(int, char *const[], char *const[]);
static execve_function real_execve, real_execvpe;
static execv_function real_execv, real_execvp;
static fexecve_function real_fexecve;

static void find_exec_family(void) {
  real_execve = (execve_function)dlsym(RTLD_NEXT, "execve");
  real_execvpe = (execve_function)dlsym(RTLD_NEXT, "execvpe");
  real_execv = (execv_function)dlsym(RTLD_NEXT, "execv");
  real_execvp = (execv_function)dlsym(RTLD_NEXT, "execvp");
  real_fexecve = (fexecve_function)dlsym(RTLD_NEXT, "fexecve");
}

static int before_exec(void) {
  if (owner_pid == 0 || disabled || inside || getpid() != owner_pid) return 0;
  chronoscope_preload_before_exec();
  return 1;
}

// Returns `result` with the call's errno, after the recording resumed.
static int after_exec(int ended, int result) {
  int error = errno;
  if (ended) chronoscope_preload_after_failed_exec();
  errno = error;
  return result;
}

static int missing(void) {
  errno = ENOSYS;
  return -1;
}

int execve(const char *path, char *const argv[], char *const envp[]) {
  if (real_execve == NULL) return missing();
  int ended = before_exec();
  return after_exec(ended, real_execve(path, argv, envp));
}

int execvpe(const char *file, char *const argv[], char *const envp[]) {
  if (real_execvpe == NULL) return missing();
  int ended = before_exec();
  return after_exec(ended, real_execvpe(file, argv, envp));
}

int execv(const char *path, char *const argv[]) {
  if (real_execv == NULL) return missing();
  int ended = before_exec();
  return after_exec(ended, real_execv(path, argv));
}

int execvp(const char *file, char *const argv[]) {
  if (real_execvp == NULL) return missing();
  int ended = before_exec();
  return after_exec(ended, real_execvp(file, argv));
}

int fexecve(int descriptor, char *const argv[], char *const envp[]) {
  if (real_fexecve == NULL) return missing();
  int ended = before_exec();
  return after_exec(ended, real_fexecve(descriptor, argv, envp));
}

// The list forms gather their arguments (on the stack: nothing allocates) and call the vector
// forms above, which end the traces.
#define GATHER_ARGUMENTS(first, last_named, extra)                   \
  va_list count_list;                                                \
  va_start(count_list, last_named);                                  \
  size_t count = 1;                                                  \
  while (va_arg(count_list, char *) != NULL) count++;                \
  va_end(count_list);                                                \
  char *argv[count + 1];                                             \
  va_list list;                                                      \
  va_start(list, last_named);                                        \
  argv[0] = (char *)(first);                                         \
  for (size_t index = 1; index <= count; index++) argv[index] = va_arg(list, char *); \
  extra;                                                             \
  va_end(list)

int execl(const char *path, const char *arg, ...) {
  GATHER_ARGUMENTS(arg, arg, (void)0);
  return execv(path, argv);
}

int execlp(const char *file, const char *arg, ...) {
  GATHER_ARGUMENTS(arg, arg, (void)0);
  return execvp(file, argv);
}

int execle(const char *path, const char *arg, ...) {
  char *const *envp;
  GATHER_ARGUMENTS(arg, arg, envp = va_arg(list, char *const *));
  return execve(path, argv, envp);
}

// MARK: - System modules

enum { maximum_ranges = 64 };
static struct { uintptr_t low, high; } system_ranges[maximum_ranges];
static int system_range_count;

static const char *const system_names[] = {
    "libdispatch.so",      "libswiftDispatch.so", "libFoundation",    "lib_Foundation",
    "libswiftCore.so",     "libswift_",           "libBlocksRuntime", "libc.so",
    "libswiftSynchronization", "libswiftGlibc",   "libChronoscopePreload", "libstdc++",
    "libgcc_s",            "ld-linux",            "libswiftObservation", "libswiftSwiftOnoneSupport",
    // Test hosts: a test's site is the test's line, not XCTest's or Swift Testing's.
    "libXCTest.so",        "libTesting.so",       "lib_TestingInterop",
};

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int is_system_module(const char *path) {
  const char *name = base_name(path);
  for (size_t index = 0; index < sizeof system_names / sizeof *system_names; index++) {
    if (strncmp(name, system_names[index], strlen(system_names[index])) == 0) return 1;
  }
  return 0;
}

static int note_concurrency(struct dl_phdr_info *info, size_t size, void *data);
static uintptr_t concurrency_low, concurrency_high;
static void check_task_layout(void);

enum { maximum_code_ranges = 256 };
static struct { uintptr_t low, high; } code_ranges[maximum_code_ranges];
static int code_range_count;

static int note_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD || !(header->p_flags & PF_X)) continue;
    if (code_range_count == maximum_code_ranges) break;
    code_ranges[code_range_count].low = info->dlpi_addr + header->p_vaddr;
    code_ranges[code_range_count].high = info->dlpi_addr + header->p_vaddr + header->p_memsz;
    code_range_count++;
  }
  // The main program (no name) is the user's code.
  if (info->dlpi_name == NULL || info->dlpi_name[0] == 0 || !is_system_module(info->dlpi_name))
    return 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD || !(header->p_flags & PF_X)) continue;
    if (system_range_count == maximum_ranges) return 1;
    system_ranges[system_range_count].low = info->dlpi_addr + header->p_vaddr;
    system_ranges[system_range_count].high = info->dlpi_addr + header->p_vaddr + header->p_memsz;
    system_range_count++;
  }
  return 0;
}

void chronoscope_preload_note_system_modules(void) {
  system_range_count = 0;
  code_range_count = 0;
  dl_iterate_phdr(note_module, NULL);
  dl_iterate_phdr(note_concurrency, NULL);
  if (concurrency_low != 0) check_task_layout();
}

// Whether `address` is in the code of a module loaded when the recorder started (modules loaded
// later are not known: their sites are found by unwinding every time).
static int in_code(uintptr_t address) {
  for (int index = 0; index < code_range_count; index++) {
    if (address >= code_ranges[index].low && address < code_ranges[index].high) return 1;
  }
  return 0;
}

static int in_system_module(uintptr_t address) {
  for (int index = 0; index < system_range_count; index++) {
    if (address >= system_ranges[index].low && address < system_ranges[index].high) return 1;
  }
  return 0;
}

static int note_concurrency(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  if (info->dlpi_name == NULL || strcmp(base_name(info->dlpi_name), "libswift_Concurrency.so") != 0)
    return 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD || !(header->p_flags & PF_X)) continue;
    concurrency_low = info->dlpi_addr + header->p_vaddr;
    concurrency_high = concurrency_low + header->p_memsz;
  }
  return 1;
}

int chronoscope_preload_is_concurrency_runtime(uintptr_t function) {
  return function >= concurrency_low && function < concurrency_high;
}

// MARK: - Task names
//
// The runtime tells only the current task's name (`swift_task_getCurrentTaskName`); a job it
// hands to Dispatch belongs to a task that is not running yet. So the name is read where the
// Swift 6.3 runtime keeps it, before the job is passed on (the task is then alive, held by the
// runtime, and runs nowhere): `Task(name:)` sets bit 30 of the job's flags (at +0x20) and links a
// task-name record (kind 6, the name's C string at +0x10, the next record at +0x8) into the
// task's status-record list, whose innermost record is in the 16-byte status at +0x60, with bit
// 0x200 of its flags while another thread holds the list. The layout is the runtime's private
// ABI: it is used only when the runtime says it is that one (its debug layout version 1, a task
// of 208 bytes, no name offset of the newer layout exported) and each job is checked to be a
// task (its metadata, its kind). Otherwise, or on another architecture, no name is read, and
// `record` says so once. x86_64 only: the status is read with `lock cmpxchg16b`, as the runtime
// writes it.

static int task_names_usable;
static int task_names_checked;
static const void *task_metadata;

#if defined(__x86_64__)

// Finds whether the running Swift runtime has the layout above. Once, before main.
static void check_task_layout(void) {
  task_names_checked = 1;
  const uint32_t *version = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_internal_layout_version");
  const size_t *size = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskSize");
  const void *const *metadata = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskMetadata");
  if (version == NULL || size == NULL || metadata == NULL) return;
  if (dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskNameOffset") != NULL) return;
  if (*version != 1 || *size != 208 || *metadata == NULL) return;
  task_metadata = *metadata;
  task_names_usable = 1;
}

// The 16 bytes at `address` (aligned), read atomically: a compare-and-swap of 0 with 0.
static inline void load_status(const void *address, uint64_t *low, uint64_t *high) {
  uint64_t lo = 0, hi = 0;
  __asm__ volatile("lock cmpxchg16b %2"
                   : "+a"(lo), "+d"(hi), "+m"(*(volatile unsigned __int128 *)address)
                   : "b"((uint64_t)0), "c"((uint64_t)0)
                   : "cc", "memory");
  *low = lo;
  *high = hi;
}

int chronoscope_preload_task_name(const void *job, char *out, size_t size) {
  if (!task_names_usable || job == NULL || size == 0 || ((uintptr_t)job & 15) != 0) return 0;
  const unsigned char *task = job;
  if (*(const void *const *)task != task_metadata) return 0;
  uint32_t flags = *(const uint32_t *)(task + 0x20);
  if ((flags & 0xff) != 0 || (flags & (1u << 30)) == 0) return 0;
  uint64_t low, high;
  load_status(task + 0x60, &low, &high);
  if (low & 0x200) return 0;  // another thread holds the records: no name this time
  const unsigned char *record = (const unsigned char *)(uintptr_t)high;
  for (int walked = 0; record != NULL && walked < 16; walked++) {
    if ((((uintptr_t)record) & 7) == 0 && *record == 6) {
      const char *name = *(const char *const *)(record + 0x10);
      if (name == NULL) return 0;
      size_t length = strnlen(name, size - 1);
      memcpy(out, name, length);
      out[length] = 0;
      return (int)length;
    }
    record = *(const unsigned char *const *)(record + 8);
  }
  return 0;
}

#else

static void check_task_layout(void) { task_names_checked = 1; }

int chronoscope_preload_task_name(const void *job, char *out, size_t size) {
  (void)job;
  (void)out;
  (void)size;
  return 0;
}

#endif

// The tasks whose names were written lately: a task's name goes on its first `task` line, and
// a reader keeps it for the task's later ones, so a resumed task's is not copied again. Shared by
// the threads (a task resumes on any), relaxed: a race or a collision only writes a name twice.
static _Atomic uint64_t named_lately[256];

int chronoscope_preload_task_named_lately(uint64_t task) {
  unsigned slot = (unsigned)(task ^ (task >> 8)) % 256;
  if (atomic_load_explicit(&named_lately[slot], memory_order_relaxed) == task) return 1;
  atomic_store_explicit(&named_lately[slot], task, memory_order_relaxed);
  return 0;
}

int chronoscope_preload_task_names_unknown(void) {
  return task_names_checked && !task_names_usable && concurrency_low != 0;
}

// MARK: - Queue cache

enum { queue_cache_size = 16 };
static PRELOAD_TLS struct {
  uintptr_t queue;
  uint32_t id, generation;
} queue_cache[queue_cache_size];

static unsigned queue_slot(uintptr_t queue) { return (unsigned)(queue >> 6) % queue_cache_size; }

uint32_t chronoscope_preload_cached_queue(uintptr_t queue, uint32_t generation) {
  unsigned slot = queue_slot(queue);
  if (queue_cache[slot].queue == queue && queue_cache[slot].generation == generation)
    return queue_cache[slot].id;
  return 0;
}

void chronoscope_preload_cache_queue(uintptr_t queue, uint32_t id, uint32_t generation) {
  unsigned slot = queue_slot(queue);
  queue_cache[slot].queue = queue;
  queue_cache[slot].id = id;
  queue_cache[slot].generation = generation;
}

// MARK: - Call sites

// The walk uses the unwinder (DWARF call-frame information), not frame pointers: Swift's
// libraries are built without them (libswiftDispatch's `DispatchQueue.async` keeps a value in
// rbp), so a frame-pointer walk loses the caller of every overlay function.
//
// A full unwind costs about a microsecond, several times what the rest of recording a schedule
// does. Most schedules come through the same few chains of library frames (the overlay's
// `async` called from the program, say), and those frames' sizes are fixed: so each thread
// remembers the chains it unwound, as where on the stack, relative to the walk's own frame, each
// library frame's return address lies, what it was, and where the program's frame's lies. A
// later walk whose stack holds the same return addresses at the same places reads the program's
// frame from its place instead of unwinding. The program's return address must point into code;
// every 256th use of a chain is unwound in full and compared, and a chain that ever disagrees (a
// library frame of varying size) is not used again. x86_64 only, where the frame's canonical
// address is its frame pointer plus 16; elsewhere every walk unwinds.

enum { walk_limit = 48, chain_limit = 12, chain_count = 8, check_every = 256 };

struct walk {
  uintptr_t site, caller;
  int frames;
  // Each frame's return address and canonical frame address, for learning a chain.
  uintptr_t ips[chain_limit + 3];
  uintptr_t cfas[chain_limit + 3];
  int site_frame;  // the site's index in `ips`, or -1 past them
  int recorded;
};

static _Unwind_Reason_Code visit_frame(struct _Unwind_Context *context, void *data) {
  struct walk *walk = data;
  if (++walk->frames > walk_limit) return _URC_END_OF_STACK;
  uintptr_t address = _Unwind_GetIP(context);
  if (address == 0) return _URC_END_OF_STACK;
  if (walk->recorded < chain_limit + 3) {
    walk->ips[walk->recorded] = address;
    walk->cfas[walk->recorded] = _Unwind_GetCFA(context);
  }
  walk->recorded++;
  int system = in_system_module(address);
  // The caller is the site's own caller, when that is the program's code too.
  if (walk->site != 0) {
    if (!system) walk->caller = address - 1;
    return _URC_END_OF_STACK;
  }
  if (system) return _URC_NO_REASON;
  // Return addresses point after the call; one less is inside it, as symbolizers want.
  walk->site = address - 1;
  walk->site_frame = walk->recorded - 1;
  return _URC_NO_REASON;
}

__attribute__((always_inline)) static inline void unwind(struct walk *walk) {
  memset(walk, 0, sizeof *walk);
  _Unwind_Backtrace(visit_frame, walk);
}

#if defined(__x86_64__)

struct chain {
  int length;  // library frames, each checked
  int broken;
  unsigned uses;
  intptr_t offsets[chain_limit];
  uintptr_t expected[chain_limit];
  intptr_t site_offset, caller_offset;  // caller_offset 0: the walk found no caller
};

static PRELOAD_TLS struct chain chains[chain_count];
static PRELOAD_TLS unsigned next_chain;
static PRELOAD_TLS uintptr_t stack_low, stack_high;
// Addresses found to be the program's code lately (see `is_program_code`), by a hash of each.
static PRELOAD_TLS uintptr_t program_code[16];

// The calling thread's stack bounds, found once per thread.
static int stack_bounds(void) {
  if (stack_high == 0) {
    pthread_attr_t attributes;
    void *base = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return 0;
    int found = pthread_attr_getstack(&attributes, &base, &size) == 0;
    pthread_attr_destroy(&attributes);
    if (!found) return 0;
    stack_low = (uintptr_t)base;
    stack_high = (uintptr_t)base + size;
  }
  return 1;
}

static int read_slot(uintptr_t base, intptr_t offset, uintptr_t *value) {
  uintptr_t slot = base + (uintptr_t)offset;
  if (slot < stack_low || slot + sizeof(uintptr_t) > stack_high || slot % sizeof(uintptr_t))
    return 0;
  *value = *(const uintptr_t *)slot;
  return 1;
}

// Whether `address` is in the program's code: in code, outside the system's modules. Two scans
// of the module ranges cost a few hundred instructions a schedule, for the same few addresses
// each time (a loop's call site, its caller): the answer for each is kept, per thread, in a
// small table of the addresses found to be the program's lately. A module unloaded since can
// leave a stale entry, whose address is then no return address on the stack: a chain's site is
// a return address it read there.
static int is_program_code(uintptr_t address) {
  unsigned slot = (unsigned)((address >> 3) ^ (address >> 11)) % 16;
  if (program_code[slot] == address) return 1;
  if (!in_code(address) || in_system_module(address)) return 0;
  program_code[slot] = address;
  return 1;
}

// The site (and caller) a remembered chain gives for the stack at `base`, or 0.
static uintptr_t follow(const struct chain *chain, uintptr_t base, uintptr_t *caller) {
  uintptr_t value;
  for (int index = 0; index < chain->length; index++) {
    if (!read_slot(base, chain->offsets[index], &value) || value != chain->expected[index])
      return 0;
  }
  uintptr_t site;
  if (!read_slot(base, chain->site_offset, &site) || !is_program_code(site)) return 0;
  *caller = 0;
  if (chain->caller_offset != 0) {
    if (!read_slot(base, chain->caller_offset, &value) || !is_program_code(value)) return 0;
    *caller = value - 1;
  }
  return site - 1;
}

// Remembers the chain of a full walk from the stack at `base`, if it can be followed later.
static void learn(const struct walk *walk, uintptr_t base) {
  int known = walk->recorded < chain_limit + 3 ? walk->recorded : chain_limit + 3;
  if (walk->site == 0 || walk->site_frame >= known) return;
  // The walk's own frame is the one whose canonical address is `base`; the unwinder may report
  // frames of its own before it.
  int own = 0;
  while (own < walk->site_frame && walk->cfas[own] != base) own++;
  int length = walk->site_frame - own - 1;
  if (walk->cfas[own] != base || length < 0 || length > chain_limit) return;
  struct chain chain = {.length = length};
  // The return address into frame k lies just below the canonical address the unwinder
  // reports with it (libgcc reports the callee's, where the call pushed it). Checked below.
  for (int frame = own + 1; frame <= walk->site_frame; frame++) {
    intptr_t offset = (intptr_t)(walk->cfas[frame] - sizeof(uintptr_t) - base);
    uintptr_t value;
    if (!read_slot(base, offset, &value) || value != walk->ips[frame]) return;
    if (frame < walk->site_frame) {
      chain.offsets[frame - own - 1] = offset;
      chain.expected[frame - own - 1] = value;
    } else {
      chain.site_offset = offset;
    }
  }
  if (walk->caller != 0) {
    int frame = walk->site_frame + 1;
    if (frame >= known || walk->ips[frame] != walk->caller + 1) return;
    intptr_t offset = (intptr_t)(walk->cfas[frame] - sizeof(uintptr_t) - base);
    uintptr_t value;
    if (!read_slot(base, offset, &value) || value != walk->ips[frame]) return;
    chain.caller_offset = offset;
  }
  chains[next_chain++ % chain_count] = chain;
}

__attribute__((noinline)) uintptr_t chronoscope_preload_call_site(uintptr_t *caller) {
  *caller = 0;
  if (sites_off) return 0;
  // This function keeps a frame pointer (it asks for it): its canonical frame address is the
  // frame pointer plus the saved frame pointer and return address.
  uintptr_t base = (uintptr_t)__builtin_frame_address(0) + 2 * sizeof(uintptr_t);
  int bounded = stack_bounds();
  if (bounded) {
    for (int index = 0; index < chain_count; index++) {
      struct chain *chain = &chains[index];
      if (chain->site_offset == 0 || chain->broken) continue;
      uintptr_t outer = 0;
      uintptr_t site = follow(chain, base, &outer);
      if (site == 0) continue;
      if (++chain->uses % check_every != 0) {
        *caller = outer;
        return site;
      }
      struct walk walk;
      unwind(&walk);
      if (walk.site != site || walk.caller != outer) chain->broken = 1;
      *caller = walk.caller;
      return walk.site;
    }
  }
  struct walk walk;
  unwind(&walk);
  if (bounded) learn(&walk, base);
  *caller = walk.caller;
  return walk.site;
}

#else

uintptr_t chronoscope_preload_call_site(uintptr_t *caller) {
  *caller = 0;
  if (sites_off) return 0;
  struct walk walk;
  unwind(&walk);
  *caller = walk.caller;
  return walk.site;
}

#endif

// MARK: - Module descriptions

struct lookup {
  uintptr_t address;
  int found;
  const char *name;
  uintptr_t base;
  const ElfW(Phdr) * headers;
  int count;
};

static int find_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct lookup *lookup = data;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (lookup->address >= start && lookup->address < start + header->p_memsz) {
      lookup->found = 1;
      lookup->name = info->dlpi_name;
      lookup->base = info->dlpi_addr;
      lookup->headers = info->dlpi_phdr;
      lookup->count = info->dlpi_phnum;
      return 1;
    }
  }
  return 0;
}

static void write_build_id(const struct lookup *lookup, char *out, size_t out_size) {
  out[0] = 0;
  for (int index = 0; index < lookup->count; index++) {
    const ElfW(Phdr) *header = &lookup->headers[index];
    if (header->p_type != PT_NOTE) continue;
    const char *notes = (const char *)(lookup->base + header->p_vaddr);
    size_t at = 0;
    while (at + sizeof(ElfW(Nhdr)) <= header->p_memsz) {
      const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)(notes + at);
      size_t name_size = (note->n_namesz + 3) & ~(size_t)3;
      size_t desc_size = (note->n_descsz + 3) & ~(size_t)3;
      const unsigned char *desc =
          (const unsigned char *)(notes + at + sizeof(ElfW(Nhdr)) + name_size);
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          memcmp(notes + at + sizeof(ElfW(Nhdr)), "GNU", 4) == 0) {
        size_t written = 0;
        for (size_t byte = 0; byte < note->n_descsz && written + 3 <= out_size; byte++) {
          snprintf(out + written, 3, "%02x", desc[byte]);
          written += 2;
        }
        return;
      }
      at += sizeof(ElfW(Nhdr)) + name_size + desc_size;
    }
  }
}

int chronoscope_preload_describe(uintptr_t address, char *path, size_t path_size,
                                 uint64_t *offset, char *build_id, size_t build_id_size) {
  struct lookup lookup = {.address = address};
  dl_iterate_phdr(find_module, &lookup);
  if (!lookup.found || path_size == 0 || build_id_size == 0) return 0;
  if (lookup.name == NULL || lookup.name[0] == 0) {
    ssize_t length = readlink("/proc/self/exe", path, path_size - 1);
    if (length < 0) length = 0;
    path[length] = 0;
  } else {
    snprintf(path, path_size, "%s", lookup.name);
  }
  *offset = address - lookup.base;
  write_build_id(&lookup, build_id, build_id_size);
  return 1;
}

// MARK: - Blocks

// The blocks ABI (clang's Block_layout): what calling a block needs.
struct block_layout {
  void *isa;
  int flags;
  int reserved;
  void (*invoke)(void *);
};

extern void *_Block_copy(const void *block);
extern void _Block_release(const void *block);

void *chronoscope_preload_copy_block(const void *block) { return _Block_copy(block); }

void chronoscope_preload_run_block(void *block) {
  ((struct block_layout *)block)->invoke(block);
  _Block_release(block);
}

// MARK: - Recorded work records
//
// Every recorded schedule hands Dispatch a record of the work (chronoscope_recorded_work), taken
// on the scheduling thread and given back on the thread that runs it. From the heap, that was a
// malloc on one thread and a free on another for each schedule: with the program's own blocks
// and Dispatch's continuations doing the same, malloc's per-thread caches ran dry on the
// scheduling thread and its arena consolidated (about 250 instructions a schedule, callgrind).
// The records are pooled instead: each thread keeps up to `works_kept` given back on it, and
// passes the surplus to a shared list in one compare-and-swap; a thread whose own pool is empty
// takes the whole shared list in one exchange. Taking all at once, never one, is what keeps the
// shared list free of the ABA problem. The pools hold at most what was ever in flight at once.

enum { works_kept = 64 };

static _Atomic(chronoscope_recorded_work *) shared_works;
static PRELOAD_TLS chronoscope_recorded_work *own_works;
static PRELOAD_TLS unsigned own_count;
static PRELOAD_TLS int own_works_armed;
static pthread_key_t works_key;
static pthread_once_t works_key_once = PTHREAD_ONCE_INIT;

static void share_works(chronoscope_recorded_work *first, chronoscope_recorded_work *last) {
  chronoscope_recorded_work *head = atomic_load_explicit(&shared_works, memory_order_relaxed);
  do {
    last->next = head;
  } while (!atomic_compare_exchange_weak_explicit(&shared_works, &head, first,
                                                  memory_order_release, memory_order_relaxed));
}

// A thread that ends passes its pool on.
static void share_own_works(void *unused) {
  (void)unused;
  chronoscope_recorded_work *first = own_works;
  own_works = NULL;
  own_count = 0;
  if (first == NULL) return;
  chronoscope_recorded_work *last = first;
  while (last->next != NULL) last = last->next;
  share_works(first, last);
}

static void make_works_key(void) { pthread_key_create(&works_key, share_own_works); }

// Makes the thread's end pass its pool on: a key's destructor runs only for a value set.
static void arm_own_works(void) {
  if (own_works_armed) return;
  own_works_armed = 1;
  pthread_once(&works_key_once, make_works_key);
  pthread_setspecific(works_key, (void *)1);
}

chronoscope_recorded_work *chronoscope_preload_take_work(void) {
  chronoscope_recorded_work *work = own_works;
  if (work == NULL) {
    work = atomic_exchange_explicit(&shared_works, NULL, memory_order_acquire);
    if (work == NULL) return malloc(sizeof *work);
    arm_own_works();
    own_count = 0;
    for (chronoscope_recorded_work *each = work; each != NULL; each = each->next) own_count++;
  }
  own_works = work->next;
  own_count--;
  return work;
}

void chronoscope_preload_give_work(chronoscope_recorded_work *work) {
  arm_own_works();
  work->next = own_works;
  own_works = work;
  if (++own_count < 2 * works_kept) return;
  // Keep the first `works_kept`; share the rest.
  chronoscope_recorded_work *kept = own_works;
  for (int index = 1; index < works_kept; index++) kept = kept->next;
  chronoscope_recorded_work *first = kept->next;
  kept->next = NULL;
  own_count = works_kept;
  chronoscope_recorded_work *last = first;
  while (last->next != NULL) last = last->next;
  share_works(first, last);
}

// MARK: - Which programs

struct needed_check {
  const char *const *prefixes;
  int found;
};

static int main_program_check(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct needed_check *check = data;
  // The first module is the main program.
  const ElfW(Dyn) *dynamic = NULL;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    if (info->dlpi_phdr[index].p_type == PT_DYNAMIC)
      dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[index].p_vaddr);
  }
  if (dynamic == NULL) return 1;
  const char *strings = NULL;
  for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
    // The dynamic linker has relocated DT_STRTAB to an address on this platform.
    if (entry->d_tag == DT_STRTAB) strings = (const char *)entry->d_un.d_ptr;
  }
  if (strings == NULL) return 1;
  for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
    if (entry->d_tag != DT_NEEDED) continue;
    const char *name = strings + entry->d_un.d_val;
    for (const char *const *prefix = check->prefixes; *prefix != NULL; prefix++) {
      if (strncmp(name, *prefix, strlen(*prefix)) == 0) check->found = 1;
    }
  }
  return 1;
}

static int main_program_needs(const char *const *prefixes) {
  struct needed_check check = {prefixes, 0};
  dl_iterate_phdr(main_program_check, &check);
  return check.found;
}

int chronoscope_preload_main_program_uses_dispatch(void) {
  static const char *const prefixes[] = {"libswiftCore.so", "libdispatch.so", "libFoundation.so",
                                         NULL};
  return main_program_needs(prefixes);
}

int chronoscope_preload_main_program_is_swift(void) {
  static const char *const prefixes[] = {"libswiftCore.so", NULL};
  return main_program_needs(prefixes);
}

#endif  // __linux__
