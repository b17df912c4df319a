// Rewrites the imported-function slots (the GOT: R_*_JUMP_SLOT and R_*_GLOB_DAT relocations) of the
// Swift runtime's libraries, so that a time bubble sees what their code asks of the clock and of
// Dispatch. See include/ChronoscopeSlots.h for the contract and docs/TimeBubbles.md for the limits.
#define _GNU_SOURCE
#include "ChronoscopeSlots.h"

#include <stddef.h>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <errno.h>
#include <sys/syscall.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SLOT_JUMP R_X86_64_JUMP_SLOT
#define SLOT_DATA R_X86_64_GLOB_DAT
#else
#define SLOT_JUMP R_AARCH64_JUMP_SLOT
#define SLOT_DATA R_AARCH64_GLOB_DAT
#endif

// MARK: The calling thread's bubble

static __thread void *current_bubble;

void *chronoscope_slots_current(void) { return current_bubble; }

void *chronoscope_slots_set_current(void *bubble) {
  void *before = current_bubble;
  current_bubble = bubble;
  return before;
}

static chronoscope_slots_callbacks callbacks;
static _Atomic int callbacks_set;

void chronoscope_slots_set_callbacks(const chronoscope_slots_callbacks *given) {
  if (atomic_exchange(&callbacks_set, 1)) return;
  callbacks = *given;
}

// MARK: Tracked objects: timer sources a bubble runs

// Open addressing over object addresses; 0 is empty, 1 a deleted entry. A bubble tracks a source
// from its `dispatch_source_set_timer` until it is cancelled or fires for the last time: few at
// once. A full table leaves the source untracked (it then runs in real time; the bubble says so).
#define TRACKED_CAPACITY 4096
static _Atomic uintptr_t tracked[TRACKED_CAPACITY];
static _Atomic int tracked_count;
static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t tracked_home(uintptr_t object) {
  return (size_t)((object >> 4) * 0x9E3779B97F4A7C15ull >> 52) % TRACKED_CAPACITY;
}

static int is_tracked(void *object) {
  if (atomic_load_explicit(&tracked_count, memory_order_acquire) == 0) return 0;
  uintptr_t key = (uintptr_t)object;
  size_t at = tracked_home(key);
  for (size_t probe = 0; probe < TRACKED_CAPACITY; probe++) {
    uintptr_t held = atomic_load_explicit(&tracked[at], memory_order_acquire);
    if (held == key) return 1;
    if (held == 0) return 0;
    at = (at + 1) % TRACKED_CAPACITY;
  }
  return 0;
}

void chronoscope_slots_track(void *object, int track) {
  uintptr_t key = (uintptr_t)object;
  if (key < 2) return;
  pthread_mutex_lock(&tracked_lock);
  size_t at = tracked_home(key);
  size_t free_at = TRACKED_CAPACITY;
  for (size_t probe = 0; probe < TRACKED_CAPACITY; probe++) {
    uintptr_t held = atomic_load_explicit(&tracked[at], memory_order_relaxed);
    if (held == key) {
      if (!track) {
        atomic_store_explicit(&tracked[at], 1, memory_order_release);
        atomic_fetch_sub_explicit(&tracked_count, 1, memory_order_release);
      }
      pthread_mutex_unlock(&tracked_lock);
      return;
    }
    if (held == 1 && free_at == TRACKED_CAPACITY) free_at = at;
    if (held == 0) {
      if (free_at == TRACKED_CAPACITY) free_at = at;
      break;
    }
    at = (at + 1) % TRACKED_CAPACITY;
  }
  if (track && free_at < TRACKED_CAPACITY) {
    atomic_store_explicit(&tracked[free_at], key, memory_order_release);
    atomic_fetch_add_explicit(&tracked_count, 1, memory_order_release);
  }
  pthread_mutex_unlock(&tracked_lock);
}

// MARK: The real functions

typedef int (*clock_gettime_f)(clockid_t, struct timespec *);
typedef int (*gettimeofday_f)(struct timeval *, void *);
typedef void (*after_block_f)(uint64_t, void *, void *);
typedef void (*after_function_f)(uint64_t, void *, void *, void (*)(void *));
typedef void (*async_block_f)(void *, void *);
typedef void (*async_function_f)(void *, void *, void (*)(void *));
typedef void (*group_async_f)(void *, void *, void *);
typedef void (*set_timer_f)(void *, uint64_t, uint64_t, uint64_t);
typedef void (*object_f)(void *);
typedef void (*set_handler_f)(void *, void *);
typedef void (*set_handler_function_f)(void *, void (*)(void *));

static struct {
  clock_gettime_f clock_gettime;
  gettimeofday_f gettimeofday;
  after_block_f after;
  after_function_f after_f;
  async_block_f async, barrier_async;
  async_function_f async_f;
  group_async_f group_async, group_notify;
  long (*group_wait)(void *, uint64_t), (*semaphore_wait)(void *, uint64_t);
  set_timer_f set_timer;
  object_f resume, suspend, activate, cancel, release;
  set_handler_f set_event_handler;
  set_handler_function_f set_event_handler_f;
  void *main_queue;
  void *(*global_queue)(intptr_t, uintptr_t);
  const char *(*queue_label)(void *);
  void (*group_enter)(void *), (*group_leave)(void *);
  void *(*get_context)(void *);
  void (*retain)(void *);
  void *(*block_copy)(const void *);
  void (*block_release)(const void *);
} real;

// MARK: The replacements

#define LIKELY_OUTSIDE(bubble) __builtin_expect((bubble) == NULL, 1)

static int r_clock_gettime(clockid_t clock, struct timespec *time) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) || time == NULL) return real.clock_gettime(clock, time);
  switch (clock) {
  case CLOCK_REALTIME: case CLOCK_REALTIME_COARSE: case CLOCK_MONOTONIC:
  case CLOCK_MONOTONIC_RAW: case CLOCK_MONOTONIC_COARSE: case CLOCK_BOOTTIME:
    return callbacks.now(bubble, clock, time);
  default:
    return real.clock_gettime(clock, time);
  }
}

static int r_gettimeofday(struct timeval *value, void *zone) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) || value == NULL) return real.gettimeofday(value, zone);
  struct timespec time;
  int result = callbacks.now(bubble, CLOCK_REALTIME, &time);
  value->tv_sec = time.tv_sec;
  value->tv_usec = time.tv_nsec / 1000;
  return result;
}

static void r_after(uint64_t when, void *queue, void *block) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) ||
      !callbacks.work(bubble, chronoscope_slots_after, when, queue, NULL, block, NULL, NULL))
    real.after(when, queue, block);
}

static void r_after_f(uint64_t when, void *queue, void *context, void (*function)(void *)) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) ||
      !callbacks.work(bubble, chronoscope_slots_after_function, when, queue, NULL, NULL, context,
                      function))
    real.after_f(when, queue, context, function);
}

static void r_async(void *queue, void *block) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) ||
      !callbacks.work(bubble, chronoscope_slots_async, 0, queue, NULL, block, NULL, NULL))
    real.async(queue, block);
}

static void r_barrier_async(void *queue, void *block) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) ||
      !callbacks.work(bubble, chronoscope_slots_barrier, 0, queue, NULL, block, NULL, NULL))
    real.barrier_async(queue, block);
}

static void r_async_f(void *queue, void *context, void (*function)(void *)) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) ||
      !callbacks.work(bubble, chronoscope_slots_async_function, 0, queue, NULL, NULL, context,
                      function))
    real.async_f(queue, context, function);
}

static void r_group_async(void *group, void *queue, void *block) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) ||
      !callbacks.work(bubble, chronoscope_slots_group, 0, queue, group, block, NULL, NULL))
    real.group_async(group, queue, block);
}

static void r_group_notify(void *group, void *queue, void *block) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) ||
      !callbacks.work(bubble, chronoscope_slots_group_notify, 0, queue, group, block, NULL, NULL))
    real.group_notify(group, queue, block);
}

static long blocking_wait(long (*wait)(void *, uint64_t), int what, void *object,
                          uint64_t when) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble)) return wait(object, when);
  long result = wait(object, 0);
  if (result == 0 || when == 0) return result;
  uint64_t deadline = callbacks.blocking(bubble, what, when);
  // libdispatch reads the clock to turn the deadline into a timeout: the real one, here.
  current_bubble = NULL;
  result = wait(object, deadline);
  current_bubble = bubble;
  callbacks.unblocked(bubble, what, when, result != 0);
  return result;
}

static long r_semaphore_wait(void *semaphore, uint64_t when) {
  return blocking_wait(real.semaphore_wait, 0, semaphore, when);
}

static long r_group_wait(void *group, uint64_t when) {
  return blocking_wait(real.group_wait, 1, group, when);
}

static void r_set_timer(void *source, uint64_t start, uint64_t interval, uint64_t leeway) {
  void *bubble = current_bubble;
  if (LIKELY_OUTSIDE(bubble) && !is_tracked(source)) {
    real.set_timer(source, start, interval, leeway);
    return;
  }
  // A source set from bubble work, or set again after: the bubble fires it; the real timer is
  // parked for ever, so that libdispatch never fires it too.
  if (callbacks.set_timer(bubble, source, start, interval, leeway))
    real.set_timer(source, ~(uint64_t)0, ~(uint64_t)0, leeway);
  else
    real.set_timer(source, start, interval, leeway);
}

#define OBJECT_REPLACEMENT(name, operation)                                                   \
  static void r_##name(void *object) {                                                       \
    if (is_tracked(object) && callbacks.object(object, operation, NULL, NULL)) return;       \
    real.name(object);                                                                       \
  }
OBJECT_REPLACEMENT(resume, chronoscope_slots_resume)
OBJECT_REPLACEMENT(suspend, chronoscope_slots_suspend)
OBJECT_REPLACEMENT(activate, chronoscope_slots_activate)
OBJECT_REPLACEMENT(cancel, chronoscope_slots_cancel)
OBJECT_REPLACEMENT(release, chronoscope_slots_release)

static void r_set_event_handler(void *source, void *block) {
  if (is_tracked(source) || current_bubble != NULL)
    callbacks.object(source, chronoscope_slots_event_handler, block, NULL);
  real.set_event_handler(source, block);
}

static void r_set_event_handler_f(void *source, void (*function)(void *)) {
  if (is_tracked(source) || current_bubble != NULL)
    callbacks.object(source, chronoscope_slots_event_handler_function, NULL, function);
  real.set_event_handler_f(source, function);
}

// MARK: Finding and writing slots

typedef struct slot_request {
  const char *symbol;
  void *replacement;
  // Library file names (a substring of the loaded path) whose imports of `symbol` are rewritten.
  const char *const *libraries;
} slot_request;

// "" is the program itself (the test executable): code of the test process that reads the clock
// directly.
static const char *const time_readers[] = {
    "libswift_Concurrency.so", "libdispatch.so", "libFoundationEssentials.so", "libFoundation.so",
    "", NULL};
static const char *const swift_concurrency[] = {"libswift_Concurrency.so", NULL};
static const char *const swift_dispatch[] = {"libswiftDispatch.so", NULL};
static const char *const dispatch_callers[] = {"libswiftDispatch.so", "libswift_Concurrency.so",
                                               NULL};
static const char *const foundation[] = {"libFoundation.so", "libdispatch.so", "", NULL};

static slot_request requests[] = {
    {"clock_gettime", (void *)r_clock_gettime, time_readers},
    {"gettimeofday", (void *)r_gettimeofday, foundation},
    {"dispatch_after", (void *)r_after, swift_dispatch},
    {"dispatch_after_f", (void *)r_after_f, swift_concurrency},
    {"dispatch_async_f", (void *)r_async_f, swift_concurrency},
    {"dispatch_async", (void *)r_async, swift_dispatch},
    {"dispatch_barrier_async", (void *)r_barrier_async, swift_dispatch},
    {"dispatch_group_async", (void *)r_group_async, swift_dispatch},
    {"dispatch_group_notify", (void *)r_group_notify, swift_dispatch},
    {"dispatch_group_wait", (void *)r_group_wait, swift_dispatch},
    {"dispatch_semaphore_wait", (void *)r_semaphore_wait, swift_dispatch},
    {"dispatch_source_set_timer", (void *)r_set_timer, dispatch_callers},
    {"dispatch_source_set_event_handler", (void *)r_set_event_handler, swift_dispatch},
    {"dispatch_source_set_event_handler_f", (void *)r_set_event_handler_f, swift_concurrency},
    {"dispatch_resume", (void *)r_resume, swift_dispatch},
    {"dispatch_suspend", (void *)r_suspend, swift_dispatch},
    {"dispatch_activate", (void *)r_activate, dispatch_callers},
    {"dispatch_source_cancel", (void *)r_cancel, swift_dispatch},
    {"dispatch_release", (void *)r_release, dispatch_callers},
};
#define REQUEST_COUNT (sizeof(requests) / sizeof(requests[0]))

// Where each replacement went, so that a later install checks them again cheaply.
#define SLOT_CAPACITY 256
static struct {
  void **slot;
  void *replacement;
  int request;
  int in_relro;
} slots[SLOT_CAPACITY];
static int slot_count;
static unsigned long long seen_adds = ~0ull;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t address(uintptr_t value, uintptr_t base) {
  return value < base ? value + base : value;
}

static void write_slot(void **slot, void *value, int in_relro) {
  long page_size = sysconf(_SC_PAGESIZE);
  void *page = (void *)((uintptr_t)slot & ~(uintptr_t)(page_size - 1));
  if (in_relro && mprotect(page, (size_t)page_size, PROT_READ | PROT_WRITE) != 0) return;
  // One aligned 8-byte store: a thread calling through the slot sees the old target or the new.
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  if (in_relro) mprotect(page, (size_t)page_size, PROT_READ);
}

static void remember(void **slot, int request, int in_relro) {
  for (int i = 0; i < slot_count; i++)
    if (slots[i].slot == slot) return;
  if (slot_count == SLOT_CAPACITY) return;
  slots[slot_count].slot = slot;
  slots[slot_count].replacement = requests[request].replacement;
  slots[slot_count].request = request;
  slots[slot_count].in_relro = in_relro;
  slot_count++;
}

static int wanted_in(const char *path, const char *const *libraries) {
  if (path == NULL) return 0;
  const char *name = strrchr(path, '/');
  name = name ? name + 1 : path;
  for (const char *const *library = libraries; *library; library++) {
    if (**library == '\0') {
      if (*path == '\0') return 1;
    } else if (strncmp(name, *library, strlen(*library)) == 0) {
      return 1;
    }
  }
  return 0;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  int any = 0;
  for (size_t r = 0; r < REQUEST_COUNT; r++) any |= wanted_in(info->dlpi_name, requests[r].libraries);
  if (!any) return 0;
  uintptr_t base = info->dlpi_addr, relro_low = 0, relro_high = 0;
  ElfW(Dyn) *dynamic = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[i];
    if (header->p_type == PT_DYNAMIC) dynamic = (ElfW(Dyn) *)(base + header->p_vaddr);
    if (header->p_type == PT_GNU_RELRO) {
      relro_low = base + header->p_vaddr;
      relro_high = relro_low + header->p_memsz;
    }
  }
  if (dynamic == NULL) return 0;
  ElfW(Sym) *symbols = NULL;
  const char *strings = NULL;
  ElfW(Rela) *jump_relocations = NULL, *relocations = NULL;
  size_t jump_size = 0, size_of_relocations = 0;
  for (ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
    switch (entry->d_tag) {
    case DT_SYMTAB: symbols = (ElfW(Sym) *)address(entry->d_un.d_ptr, base); break;
    case DT_STRTAB: strings = (const char *)address(entry->d_un.d_ptr, base); break;
    case DT_JMPREL: jump_relocations = (ElfW(Rela) *)address(entry->d_un.d_ptr, base); break;
    case DT_PLTRELSZ: jump_size = entry->d_un.d_val; break;
    case DT_RELA: relocations = (ElfW(Rela) *)address(entry->d_un.d_ptr, base); break;
    case DT_RELASZ: size_of_relocations = entry->d_un.d_val; break;
    default: break;
    }
  }
  if (symbols == NULL || strings == NULL) return 0;
  ElfW(Rela) *tables[2] = {jump_relocations, relocations};
  size_t sizes[2] = {jump_size, size_of_relocations};
  for (int t = 0; t < 2; t++) {
    if (tables[t] == NULL) continue;
    for (size_t i = 0; i < sizes[t] / sizeof(ElfW(Rela)); i++) {
      ElfW(Rela) *relocation = &tables[t][i];
      unsigned long type = ELF64_R_TYPE(relocation->r_info);
      if (type != SLOT_JUMP && type != SLOT_DATA) continue;
      const char *name = strings + symbols[ELF64_R_SYM(relocation->r_info)].st_name;
      for (size_t r = 0; r < REQUEST_COUNT; r++) {
        if (strcmp(name, requests[r].symbol) != 0) continue;
        if (!wanted_in(info->dlpi_name, requests[r].libraries)) continue;
        void **slot = (void **)(base + relocation->r_offset);
        uintptr_t at = (uintptr_t)slot;
        remember(slot, (int)r, at >= relro_low && at < relro_high);
      }
    }
  }
  return 0;
}

static int count_adds(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  *(unsigned long long *)data = info->dlpi_adds;
  return 1;
}

static int resolve_reals(void) {
  void *process = RTLD_DEFAULT;
  real.clock_gettime = (clock_gettime_f)dlsym(process, "clock_gettime");
  real.gettimeofday = (gettimeofday_f)dlsym(process, "gettimeofday");
  real.after = (after_block_f)dlsym(process, "dispatch_after");
  real.after_f = (after_function_f)dlsym(process, "dispatch_after_f");
  real.async = (async_block_f)dlsym(process, "dispatch_async");
  real.barrier_async = (async_block_f)dlsym(process, "dispatch_barrier_async");
  real.async_f = (async_function_f)dlsym(process, "dispatch_async_f");
  real.group_async = (group_async_f)dlsym(process, "dispatch_group_async");
  real.group_notify = (group_async_f)dlsym(process, "dispatch_group_notify");
  real.group_wait = (long (*)(void *, uint64_t))dlsym(process, "dispatch_group_wait");
  real.semaphore_wait = (long (*)(void *, uint64_t))dlsym(process, "dispatch_semaphore_wait");
  real.set_timer = (set_timer_f)dlsym(process, "dispatch_source_set_timer");
  real.resume = (object_f)dlsym(process, "dispatch_resume");
  real.suspend = (object_f)dlsym(process, "dispatch_suspend");
  real.activate = (object_f)dlsym(process, "dispatch_activate");
  real.cancel = (object_f)dlsym(process, "dispatch_source_cancel");
  real.release = (object_f)dlsym(process, "dispatch_release");
  real.set_event_handler = (set_handler_f)dlsym(process, "dispatch_source_set_event_handler");
  real.set_event_handler_f =
      (set_handler_function_f)dlsym(process, "dispatch_source_set_event_handler_f");
  real.main_queue = dlsym(process, "_dispatch_main_q");
  real.global_queue = (void *(*)(intptr_t, uintptr_t))dlsym(process, "dispatch_get_global_queue");
  real.queue_label = (const char *(*)(void *))dlsym(process, "dispatch_queue_get_label");
  real.group_enter = (void (*)(void *))dlsym(process, "dispatch_group_enter");
  real.group_leave = (void (*)(void *))dlsym(process, "dispatch_group_leave");
  real.get_context = (void *(*)(void *))dlsym(process, "dispatch_get_context");
  real.retain = (void (*)(void *))dlsym(process, "dispatch_retain");
  real.block_copy = (void *(*)(const void *))dlsym(process, "_Block_copy");
  real.block_release = (void (*)(const void *))dlsym(process, "_Block_release");
  return real.clock_gettime && real.gettimeofday && real.after && real.after_f && real.async &&
         real.barrier_async && real.async_f && real.group_async && real.group_notify &&
         real.group_wait && real.semaphore_wait && real.set_timer &&
         real.resume && real.suspend && real.activate && real.cancel && real.release &&
         real.set_event_handler && real.set_event_handler_f && real.main_queue &&
         real.block_copy && real.block_release && real.global_queue && real.queue_label &&
         real.group_enter && real.group_leave && real.get_context && real.retain;
}

int chronoscope_slots_install(void) {
  pthread_mutex_lock(&install_lock);
  static int resolved = -1;
  if (resolved < 0) resolved = resolve_reals();
  if (!resolved || !atomic_load(&callbacks_set)) {
    pthread_mutex_unlock(&install_lock);
    return -1;
  }
  unsigned long long adds = 0;
  dl_iterate_phdr(count_adds, &adds);
  if (adds != seen_adds) {
    dl_iterate_phdr(scan_object, NULL);
    seen_adds = adds;
  }
  int holding = 0;
  for (int i = 0; i < slot_count; i++) {
    // Written again whenever it does not hold the replacement: the first install, or the dynamic
    // linker resolving a lazy slot over it (it resolves by name, not knowing of this).
    if (__atomic_load_n(slots[i].slot, __ATOMIC_ACQUIRE) != slots[i].replacement)
      write_slot(slots[i].slot, slots[i].replacement, slots[i].in_relro);
    if (__atomic_load_n(slots[i].slot, __ATOMIC_ACQUIRE) == slots[i].replacement) holding++;
  }
  pthread_mutex_unlock(&install_lock);
  return holding;
}

int chronoscope_slots_count(const char *symbol) {
  pthread_mutex_lock(&install_lock);
  int holding = 0;
  for (int i = 0; i < slot_count; i++)
    if (strcmp(requests[slots[i].request].symbol, symbol) == 0 &&
        __atomic_load_n(slots[i].slot, __ATOMIC_ACQUIRE) == slots[i].replacement)
      holding++;
  pthread_mutex_unlock(&install_lock);
  return holding;
}

int chronoscope_slots_real_clock_gettime(int clock, struct timespec *time) {
  clock_gettime_f function = real.clock_gettime ? real.clock_gettime : clock_gettime;
  return function(clock, time);
}

void chronoscope_slots_real_after(uint64_t when, void *queue, void *block) {
  real.after(when, queue, block);
}

void chronoscope_slots_real_after_f(uint64_t when, void *queue, void *context,
                                    void (*function)(void *)) {
  real.after_f(when, queue, context, function);
}

void chronoscope_slots_real_set_timer(void *source, uint64_t start, uint64_t interval,
                                      uint64_t leeway) {
  real.set_timer(source, start, interval, leeway);
}

void chronoscope_slots_real_group_notify(void *group, void *queue, void *block) {
  real.group_notify(group, queue, block);
}

void chronoscope_slots_run_block(void *block, int release) {
  // A block's layout (the blocks ABI): isa, flags, reserved, then its function.
  struct block_layout {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *);
  };
  ((struct block_layout *)block)->invoke(block);
  if (release) real.block_release(block);
}

struct main_run {
  void *bubble, *context;
  void (*function)(void *);
  sem_t done;
  _Atomic int abandoned;
};

static void run_on_main_trampoline(void *argument) {
  struct main_run *run = argument;
  void *before = current_bubble;
  current_bubble = run->bubble;
  run->function(run->context);
  current_bubble = before;
  // The waiter gave up: the record is this side's to free.
  if (atomic_exchange(&run->abandoned, 1)) {
    sem_destroy(&run->done);
    free(run);
    return;
  }
  sem_post(&run->done);
}

int chronoscope_slots_run_on_main(void *bubble, void *context, void (*function)(void *),
                                  int64_t patience_ns) {
  if (syscall(SYS_gettid) == getpid()) {
    function(context);
    return 1;
  }
  struct main_run *run = malloc(sizeof *run);
  if (run == NULL) {
    function(context);
    return 1;
  }
  run->bubble = bubble;
  run->context = context;
  run->function = function;
  atomic_init(&run->abandoned, 0);
  sem_init(&run->done, 0, 0);
  real.async_f(real.main_queue, run, run_on_main_trampoline);
  struct timespec deadline;
  real.clock_gettime(CLOCK_REALTIME, &deadline);
  int64_t nanoseconds = deadline.tv_nsec + patience_ns % 1000000000;
  deadline.tv_sec += patience_ns / 1000000000 + nanoseconds / 1000000000;
  deadline.tv_nsec = nanoseconds % 1000000000;
  int waited;
  while ((waited = sem_timedwait(&run->done, &deadline)) != 0 && errno == EINTR) {}
  if (waited == 0 || atomic_exchange(&run->abandoned, 1)) {
    // It ran; or it finished just as this gave up, and posts now: wait for that post, after which
    // the record is this side's to free.
    if (waited != 0)
      while (sem_wait(&run->done) != 0 && errno == EINTR) {}
    sem_destroy(&run->done);
    free(run);
    return 1;
  }
  return 0;
}

void chronoscope_slots_invoke_block(void *block) { chronoscope_slots_run_block(block, 1); }

void *chronoscope_slots_copy_block(void *block) { return real.block_copy(block); }
void chronoscope_slots_release_block(void *block) { real.block_release(block); }

int chronoscope_slots_queue_kind(void *queue) {
  if (queue == real.main_queue) return 1;
  // The Swift runtime's global executor runs on queues of its own, made on first use.
  const char *label = real.queue_label(queue);
  if (label && strcmp(label, "Swift global concurrent queue") == 0) return 3;
  // The global queues by quality of service (user-interactive … background, unspecified) and by
  // the older priorities (high, default, low, background).
  static const intptr_t classes[] = {0x21, 0x19, 0x15, 0x11, 0x09, 0x05, 0x00, 2, -2, -32768};
  for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
    if (queue == real.global_queue(classes[i], 0)) return 2;
  return 0;
}

void *chronoscope_slots_main_queue(void) { return real.main_queue; }

const char *chronoscope_slots_queue_label(void *queue) {
  const char *label = real.queue_label(queue);
  return label ? label : "";
}

void chronoscope_slots_group_enter(void *group) { real.group_enter(group); }
void chronoscope_slots_group_leave(void *group) { real.group_leave(group); }
int chronoscope_slots_group_is_empty(void *group) { return real.group_wait(group, 0) == 0; }
void *chronoscope_slots_context(void *object) { return real.get_context(object); }
void chronoscope_slots_retain(void *object) { real.retain(object); }
void chronoscope_slots_release_object(void *object) { real.release(object); }

#else

void *chronoscope_slots_current(void) { return NULL; }
void *chronoscope_slots_set_current(void *bubble) {
  (void)bubble;
  return NULL;
}
void chronoscope_slots_set_callbacks(const chronoscope_slots_callbacks *given) { (void)given; }
int chronoscope_slots_install(void) { return -1; }
int chronoscope_slots_count(const char *symbol) {
  (void)symbol;
  return 0;
}
void chronoscope_slots_track(void *object, int track) {
  (void)object;
  (void)track;
}
int chronoscope_slots_real_clock_gettime(int clock, struct timespec *time) {
  return clock_gettime(clock, time);
}
void chronoscope_slots_real_after(uint64_t when, void *queue, void *block) {
  (void)when; (void)queue; (void)block;
}
void chronoscope_slots_real_after_f(uint64_t when, void *queue, void *context,
                                    void (*function)(void *)) {
  (void)when; (void)queue; (void)context; (void)function;
}
void chronoscope_slots_real_set_timer(void *source, uint64_t start, uint64_t interval,
                                      uint64_t leeway) {
  (void)source; (void)start; (void)interval; (void)leeway;
}
void chronoscope_slots_real_group_notify(void *group, void *queue, void *block) {
  (void)group; (void)queue; (void)block;
}
int chronoscope_slots_run_on_main(void *bubble, void *context, void (*function)(void *),
                                  int64_t patience_ns) {
  (void)bubble;
  (void)patience_ns;
  function(context);
  return 1;
}
void chronoscope_slots_run_block(void *block, int release) { (void)block; (void)release; }
void chronoscope_slots_invoke_block(void *block) { (void)block; }
void *chronoscope_slots_copy_block(void *block) { return block; }
void chronoscope_slots_release_block(void *block) { (void)block; }
int chronoscope_slots_queue_kind(void *queue) {
  (void)queue;
  return 0;
}
void *chronoscope_slots_main_queue(void) { return NULL; }
const char *chronoscope_slots_queue_label(void *queue) {
  (void)queue;
  return "";
}
void chronoscope_slots_group_enter(void *group) { (void)group; }
void chronoscope_slots_group_leave(void *group) { (void)group; }
int chronoscope_slots_group_is_empty(void *group) {
  (void)group;
  return 1;
}
void *chronoscope_slots_context(void *object) { return object; }
void chronoscope_slots_retain(void *object) { (void)object; }
void chronoscope_slots_release_object(void *object) { (void)object; }

#endif
