import Glibc
import Synchronization

typealias AsyncFn = @convention(c) (OpaquePointer?, @convention(block) () -> Void) -> Void
typealias AsyncFFn = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> Void

nonisolated(unsafe) let realAsync: AsyncFn? = {
  guard let s = dlsym(UnsafeMutableRawPointer(bitPattern: -1), "dispatch_async") else { return nil }
  return unsafeBitCast(s, to: AsyncFn.self)
}()
nonisolated(unsafe) let realAsyncF: AsyncFFn? = {
  guard let s = dlsym(UnsafeMutableRawPointer(bitPattern: -1), "dispatch_async_f") else { return nil }
  return unsafeBitCast(s, to: AsyncFFn.self)
}()

let asyncCount = Atomic<Int>(0)
let asyncFCount = Atomic<Int>(0)
let runs = Atomic<Int>(0)

@_cdecl("dispatch_async")
public func interposedAsync(_ queue: OpaquePointer?, _ block: @escaping @convention(block) () -> Void) {
  asyncCount.add(1, ordering: .relaxed)
  let wrapped: @convention(block) () -> Void = {
    runs.add(1, ordering: .relaxed)
    block()
  }
  realAsync?(queue, wrapped)
}

typealias TaskIdFn = @convention(c) (UnsafeMutableRawPointer?) -> UInt64
let taskId: TaskIdFn? = {
  guard let s = dlsym(UnsafeMutableRawPointer(bitPattern: -1), "swift_task_getJobTaskId") ?? dlsym(nil, "swift_task_getJobTaskId") else { return nil }
  return unsafeBitCast(s, to: TaskIdFn.self)
}()
let ids = Mutex<[UInt64]>([])

@_cdecl("dispatch_async_f")
public func interposedAsyncF(_ queue: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ work: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) {
  asyncFCount.add(1, ordering: .relaxed)
  if let taskId { let id = taskId(context); ids.withLock { $0.append(id) } }
  realAsyncF?(queue, context, work)
}

@_cdecl("chronoscope_spike_ids")
public func reportIds() {
  let line = "task ids: \(ids.withLock { $0 })\n"
  _ = line.withCString { write(2, $0, strlen($0)) }
}

@_cdecl("chronoscope_spike_report")
public func report() {
  let line = "preload: dispatch_async \(asyncCount.load(ordering: .relaxed)) runs \(runs.load(ordering: .relaxed)) dispatch_async_f \(asyncFCount.load(ordering: .relaxed))\n"
  _ = line.withCString { write(2, $0, strlen($0)) }
}

// Report at exit.
@_cdecl("chronoscope_spike_init")
public func spikeInit() { atexit { report(); reportIds() } }
