// The imported-function slots of the Swift runtime's libraries, rewritten in the running process so
// that a time bubble (ChronoscopeVirtualTime's `TimeBubble`) sees the clock reads and timed work of
// code that was never written for it. Linux on x86_64 and arm64 (ELF, RELA relocations); elsewhere
// `chronoscope_slots_install` returns -1 and nothing is patched.
//
// Every replacement forwards to the real function unless the calling thread runs bubble work
// (`chronoscope_slots_set_current`): code outside a bubble — other tests, the test runner — pays one
// thread-local load per call and keeps real time.
#ifndef CHRONOSCOPE_SLOTS_H
#define CHRONOSCOPE_SLOTS_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a replacement hands the bubble running on its thread.
typedef enum chronoscope_slots_work_kind {
  /// `dispatch_async` (a block, now).
  chronoscope_slots_async = 0,
  /// `dispatch_after` (a block at `when`).
  chronoscope_slots_after = 1,
  /// `dispatch_barrier_async` (a block, now, alone on its queue).
  chronoscope_slots_barrier = 2,
  /// `dispatch_group_async` (a block, now, inside `group`).
  chronoscope_slots_group = 3,
  /// `dispatch_after_f` (a function and its context at `when`): how the Swift runtime wakes a
  /// sleeping task.
  chronoscope_slots_after_function = 4,
  /// `dispatch_async_f` (a function and its context, now).
  chronoscope_slots_async_function = 5,
  /// `dispatch_group_notify` (a block, once `group` is empty).
  chronoscope_slots_group_notify = 6,
} chronoscope_slots_work_kind;

/// The bubble's side: set once, before the first install. `bubble` is the value the thread set.
typedef struct chronoscope_slots_callbacks {
  /// Fills `time` with the bubble's reading of `clock`; returns what `clock_gettime` would.
  int (*now)(void *bubble, int clock, struct timespec *time);
  /// Takes `block` (or `function` and `context`) to run on the bubble's timeline; returns 0 when the
  /// bubble refuses it (it is closing), and the real function is called instead.
  int (*work)(void *bubble, int kind, uint64_t when, void *queue, void *group, void *block,
              void *context, void (*function)(void *));
  /// A timer source's schedule (`dispatch_source_set_timer`) set from bubble work: returns 0 if the
  /// bubble refuses it.
  int (*set_timer)(void *bubble, void *source, uint64_t start, uint64_t interval, uint64_t leeway);
  /// A call on a source or object some bubble tracks (`chronoscope_slots_track`) from any thread:
  /// `operation` is one of `chronoscope_slots_object_operation`; `block`/`function` carry a handler.
  /// Returns 1 when the bubble handled it in full (the real function is not called).
  int (*object)(void *object, int operation, void *block, void (*function)(void *));
  /// Bubble work is about to block its thread in `dispatch_semaphore_wait` (`what` 0) or
  /// `dispatch_group_wait` (1) until `when`: returns the real `dispatch_time_t` to wait until
  /// instead (the bubble's time cannot move while its one thread is blocked).
  uint64_t (*blocking)(void *bubble, int what, uint64_t when);
  /// The wait ended (`timed_out` nonzero if it gave up).
  void (*unblocked)(void *bubble, int what, uint64_t when, int timed_out);
} chronoscope_slots_callbacks;

/// The calls on dispatch objects a tracked timer source needs to follow.
typedef enum chronoscope_slots_object_operation {
  chronoscope_slots_resume = 0,
  chronoscope_slots_suspend = 1,
  chronoscope_slots_activate = 2,
  chronoscope_slots_cancel = 3,
  chronoscope_slots_event_handler = 4,
  chronoscope_slots_event_handler_function = 5,
  chronoscope_slots_release = 6,
} chronoscope_slots_object_operation;

void chronoscope_slots_set_callbacks(const chronoscope_slots_callbacks *callbacks);

/// Rewrites the slots (again: libraries loaded since are patched too, and a slot the dynamic
/// linker resolved over a replacement is rewritten). Returns how many slots hold a replacement, or
/// -1 where this cannot work (not ELF with RELA relocations).
int chronoscope_slots_install(void);

/// How many slots of `symbol` hold its replacement (for tests and messages).
int chronoscope_slots_count(const char *symbol);

/// The bubble whose work this thread runs now, or NULL.
void *chronoscope_slots_current(void);
/// Sets it and returns the one before.
void *chronoscope_slots_set_current(void *bubble);

/// Starts or stops sending the calls on `object` to the `object` callback (a timer source a
/// bubble runs). Tracking is process-wide: a source is resumed or cancelled from any thread.
void chronoscope_slots_track(void *object, int tracked);

/// The real functions, past any replacement, for the bubble's own use.
int chronoscope_slots_real_clock_gettime(int clock, struct timespec *time);
void chronoscope_slots_real_after(uint64_t when, void *queue, void *block);
void chronoscope_slots_real_after_f(uint64_t when, void *queue, void *context,
                                    void (*function)(void *));
void chronoscope_slots_real_group_notify(void *group, void *queue, void *block);
void chronoscope_slots_real_set_timer(void *source, uint64_t start, uint64_t interval,
                                      uint64_t leeway);
/// Runs `function(context)` on the main queue as work of `bubble` (its clock reads and timed work
/// are the bubble's there), and returns once it ran — at once, inline, on the main thread itself.
/// Returns 0 if the main queue did not run it within `patience_ns` (it runs later, alone).
int chronoscope_slots_run_on_main(void *bubble, void *context, void (*function)(void *),
                                  int64_t patience_ns);
/// Runs a block (a dispatch block: `void (^)(void)`) and releases it when `release` is nonzero.
void chronoscope_slots_run_block(void *block, int release);
/// Runs a block and releases it: a function to hand `chronoscope_slots_run_on_main`.
void chronoscope_slots_invoke_block(void *block);
/// Copies a block (the bubble keeps it past the call that gave it).
void *chronoscope_slots_copy_block(void *block);
void chronoscope_slots_release_block(void *block);
/// What a queue is: 1 the main queue, 2 a global queue, 3 one of the Swift runtime's global executor
/// queues, 0 any other (a queue the code made).
int chronoscope_slots_queue_kind(void *queue);
/// The main queue (NULL where the bubble cannot work).
void *chronoscope_slots_main_queue(void);
/// A queue's label (never NULL).
const char *chronoscope_slots_queue_label(void *queue);
/// `dispatch_group_enter`/`leave` and `dispatch_get_context`, for the bubble's own use.
void chronoscope_slots_group_enter(void *group);
void chronoscope_slots_group_leave(void *group);
/// Whether `group` has nothing in it now (`dispatch_group_wait` with no wait).
int chronoscope_slots_group_is_empty(void *group);
void *chronoscope_slots_context(void *object);
/// `dispatch_retain` and the real `dispatch_release`: a bubble keeps the sources it fires alive.
void chronoscope_slots_retain(void *object);
void chronoscope_slots_release_object(void *object);

#ifdef __cplusplus
}
#endif

#endif
