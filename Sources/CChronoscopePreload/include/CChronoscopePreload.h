#ifndef CHRONOSCOPE_CPRELOAD_H
#define CHRONOSCOPE_CPRELOAD_H
// The preload library's parts that Swift cannot spell: the constructor (preload.c), the walk of
// the calling thread's stack to the program's code, the ELF facts of loaded modules, the blocks
// ABI, and a per-thread flag that keeps the recorder's own calls out of the trace. Linux only, as
// preload.c is: elsewhere this header declares nothing.

#ifdef __linux__

#include <stddef.h>
#include <stdint.h>

/// The calling thread's flag that it is inside the recorder (around an interposer's recording
/// and the real call it makes): an interposed call made meanwhile passes straight through.
/// Raises the flag; returns 0 if it was already up, or recording is off in this process (the
/// caller then records nothing).
int chronoscope_preload_enter(void);
/// Whether the calling thread is inside the recorder now (its own calls pass straight through).
int chronoscope_preload_is_inside(void);
/// Whether recording is off for good in this process: a child the program forked (without
/// `exec`) inherits the recorder but not its threads, and records nothing; its interposers then
/// touch no lock another thread of the parent may have held at the fork.
int chronoscope_preload_is_disabled(void);
/// Notes the calling process as the one whose recorder is open: the `exec` family's interposers
/// end its traces before an `exec` in it, and in no other (a child forked or `vfork`ed from it).
void chronoscope_preload_note_owner(void);

/// Lowers the flag raised by a successful enter.
void chronoscope_preload_leave(void);
/// Lowers the flag for the program's work that runs inside an interposed call (a sync's block),
/// returning what it was, for chronoscope_preload_restore.
int chronoscope_preload_suspend(void);
/// Puts the flag back as chronoscope_preload_suspend found it.
void chronoscope_preload_restore(int outer);

/// Notes the address ranges of the modules that are not the user's code (libdispatch, the Swift
/// runtime and overlays, Foundation, the C library, this library), for
/// chronoscope_preload_call_site. Called once, by the constructor.
void chronoscope_preload_note_system_modules(void);

/// The return address of the innermost frame on the calling thread's stack that is outside the
/// system modules, minus one (an address inside the call instruction, as symbolizers want), or
/// 0 when the walk cannot find one within its limits; `caller` gets the next frame's the same
/// way (or 0), for a site that turns out to be library code compiled into the program (a
/// generic function of the standard library specialized there). Walks with the unwinder (call
/// frame information), which needs no frame pointers and stops where the information ends.
uintptr_t chronoscope_preload_call_site(uintptr_t *caller);

/// The module holding `address`: its path (the executable's, resolved, for the main program),
/// the address's offset in it and its GNU build id in hex. Returns 0 when no module holds it.
int chronoscope_preload_describe(uintptr_t address, char *path, size_t path_size,
                                 uint64_t *offset, char *build_id, size_t build_id_size);

/// A heap copy of `block` (the program's reference is its own): what dispatch_async keeps.
void *chronoscope_preload_copy_block(const void *block);
/// Runs a block copied by chronoscope_preload_copy_block and releases it: a plain block handed
/// to Dispatch as a function's context, which is what dispatch_async does with it.
void chronoscope_preload_run_block(void *block);

/// Copies the name of the Swift task whose job `job` is (`Task(name:)`) into `out` (at most
/// `size` - 1 bytes and a NUL) and returns its length; 0 when the job is no task, has no name,
/// its name cannot be read now, or this runtime's task layout is not the one known. Called
/// before the job is passed on to Dispatch, while no thread runs it.
int chronoscope_preload_task_name(const void *job, char *out, size_t size);
/// Whether the calling thread is the process's main thread (the one that ran main).
int chronoscope_preload_is_main_thread(void);
/// Whether task `task`'s name was written lately; notes that it is now if not.
int chronoscope_preload_task_named_lately(uint64_t task);
/// Whether the program uses Swift concurrency on a runtime whose task layout is not known, so
/// that task names are not recorded (said once).
int chronoscope_preload_task_names_unknown(void);

/// Recorded work on its way to Dispatch: the program's (context, function) and the action its
/// runs belong to, handed to Dispatch as the context of the preload's own function.
typedef struct chronoscope_recorded_work {
  struct chronoscope_recorded_work *next;  // the pool's, while the record is free
  void *context;
  void (*function)(void *);
  uint32_t action;
  uint32_t thread;
} chronoscope_recorded_work;

/// A record for recorded work, from the calling thread's pool, else the shared one, else the
/// heap; NULL only when the heap has no room.
chronoscope_recorded_work *chronoscope_preload_take_work(void);
/// Gives a record back once its fields are read (a run's thread, usually not the one that took
/// it): it goes to the calling thread's pool, whose surplus goes to the shared one.
void chronoscope_preload_give_work(chronoscope_recorded_work *work);

/// Whether the main program is a Swift or Dispatch program (it links libswiftCore or
/// libdispatch): in any other process of the tree (a shell) the library stays inert.
int chronoscope_preload_main_program_uses_dispatch(void);
/// Whether the main program links the Swift runtime (libswiftCore).
int chronoscope_preload_main_program_is_swift(void);

/// The calling thread's cached trace id for the queue at `queue`, or 0 when it has none from
/// generation `generation` of the queue table.
uint32_t chronoscope_preload_cached_queue(uintptr_t queue, uint32_t generation);
/// Caches `id` for the queue at `queue` on the calling thread, as of `generation`.
void chronoscope_preload_cache_queue(uintptr_t queue, uint32_t id, uint32_t generation);

/// Whether `function` is code of the Swift concurrency runtime (a job's entry point it hands to
/// dispatch_async_f or dispatch_after_f, whose context is then the job).
int chronoscope_preload_is_concurrency_runtime(uintptr_t function);

#endif  // __linux__

#endif
