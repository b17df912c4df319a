import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The current thread's id and name, as written in traces.
///
/// Ids are small numbers handed out by this process on a thread's first recorded event, so they
/// are the same for every recorder and portable across platforms (glibc hides `gettid` from
/// Swift). The main thread is always 1. The id sits in a thread-specific slot as a plain number,
/// so the crash path reads it without allocating (see ``assignedID()``).
enum ThreadIdentity {
  private static let next = Atomic<UInt32>(1)
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()

  /// This thread's id in traces.
  static func currentID() -> UInt32 {
    let assigned = assignedID()
    if assigned != 0 { return assigned }
    let id = Thread.isMainThread ? 1 : next.add(1, ordering: .relaxed).newValue
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: UInt(id)))
    return id
  }

  /// This thread's id if it has one, or 0: for the crash path, which must not allocate. Every
  /// recorder finds the same id for a thread, whether or not that thread recorded there.
  static func assignedID() -> UInt32 {
    UInt32(truncatingIfNeeded: UInt(bitPattern: pthread_getspecific(key)))
  }

  /// The thread's name: "main", the name Foundation knows it by, or empty.
  static func currentName() -> String {
    Thread.isMainThread ? "main" : Thread.current.name ?? ""
  }
}
