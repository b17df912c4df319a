#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value each thread has its own copy of, made on first use.
///
/// Swift has no `thread_local`; this wraps a POSIX key. The copy is freed when its thread ends.
// @unchecked Sendable: `key` and `make` never change after init, and each thread only ever
// touches its own box.
package final class ThreadLocal<Value>: @unchecked Sendable {
  fileprivate final class Box {
    /// Only ever touched by its own thread, so the dynamic exclusivity check Swift would make on
    /// each access (two per action run, through ``ExecutionContext``) guards nothing.
    @exclusivity(unchecked) var value: Value
    init(_ value: Value) { self.value = value }
  }

  private let key: pthread_key_t
  private let make: @Sendable () -> Value

  /// Makes a thread-local whose initial value on every thread is `make()`.
  package init(_ make: @escaping @Sendable () -> Value) {
    var key = pthread_key_t()
    #if canImport(Darwin)
      let created = pthread_key_create(&key) { Unmanaged<AnyObject>.fromOpaque($0).release() }
    #else
      let created = pthread_key_create(&key) { pointer in
        if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
      }
    #endif
    precondition(created == 0, "pthread_key_create failed: \(created)")
    self.key = key
    self.make = make
  }

  /// Gives `body` this thread's copy to read or change.
  @inline(__always)
  package func withValue<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
    try Local(box: box).withValue(body)
  }

  /// This thread's copy, looked up once, for a loop that uses it many times in a row. Use it on
  /// this thread only, and not after the thread ends.
  @inline(__always)
  package func local() -> Local { Local(box: box) }

  /// One thread's copy (see ``local()``).
  package struct Local {
    fileprivate let box: Unmanaged<Box>

    /// Gives `body` the copy to read or change.
    @inline(__always)
    package func withValue<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
      // The thread's slot holds a retained box until the thread ends, so it is borrowed here,
      // not retained and released around every use.
      let result = box._withUnsafeGuaranteedRef { box in
        Result { () throws(E) -> R in try body(&box.value) }
      }
      return try result.get()
    }
  }

  private var box: Unmanaged<Box> {
    if let pointer = pthread_getspecific(key) { return Unmanaged<Box>.fromOpaque(pointer) }
    let box = Unmanaged.passRetained(Box(make()))
    pthread_setspecific(key, box.toOpaque())
    return box
  }
}
