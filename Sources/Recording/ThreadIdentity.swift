import Foundation
import Scheduling
import Synchronization

/// The current thread's id and name, as written in traces.
///
/// Ids are small numbers handed out by this process on a thread's first recorded event, so they
/// are the same for every recorder and portable across platforms (glibc hides `gettid` from
/// Swift). The main thread is always 1.
enum ThreadIdentity {
  private static let next = Atomic<UInt32>(1)
  private static let local = ThreadLocal<UInt32> {
    Thread.isMainThread ? 1 : next.add(1, ordering: .relaxed).newValue
  }

  /// This thread's id in traces.
  static func currentID() -> UInt32 { local.withValue { $0 } }

  /// The thread's name: "main", the name Foundation knows it by, or empty.
  static func currentName() -> String {
    Thread.isMainThread ? "main" : Thread.current.name ?? ""
  }
}
