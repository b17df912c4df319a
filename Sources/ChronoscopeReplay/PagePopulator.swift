import Foundation
import Synchronization

/// Faults in, on another thread, the pages of memory a pass on this thread is about to write,
/// keeping a little ahead of it.
///
/// The first touch of a fresh page costs the kernel a zeroed page: preparing ten million events
/// touches a hundred thousand of them, a large share of its time, while the other core is idle.
/// Linux's `madvise(MADV_POPULATE_WRITE)` makes pages present without writing to them, so it
/// never races with the pass: the pass finds its pages ready, or faults them in itself where it
/// overtakes. Elsewhere, or on a kernel without it (before 5.14), nothing happens.
///
/// It stays at most `lead` bytes ahead of where the pass says it is (``passed(_:)``) in each
/// range, because a page made present is memory in use: running ahead through a whole table
/// held it all while the pass was still reading what it is made from, and the two together
/// were the largest part of preparing's peak.
final class PagePopulator: Sendable {
  private struct Span: Sendable {
    /// The range's first byte, which ``passed(_:)`` counts from.
    var base: UInt
    /// Its whole pages.
    var start: UInt
    var end: UInt
  }

  private struct Progress: Sendable {
    /// By range, how many of its bytes the pass has written.
    var passed: [Int]
    /// Counts the calls to ``passed(_:)``, so the thread knows whether what it read is current.
    var generation = 0
    var done = false
    /// Whether the thread has nothing to do until the pass goes on (or it has ended).
    var idle = false
  }

  private let spans: [Span]
  private let lead: UInt
  private let page: UInt
  private let progress: Mutex<Progress>
  /// Signalled when the pass goes on, and by ``stop()``.
  private let moved = DispatchSemaphore(value: 0)
  /// Signalled when the thread becomes idle, for ``waitUntilIdle()``.
  private let rested = DispatchSemaphore(value: 0)

  /// Starts populating the whole pages inside `ranges`, in order, on a thread of its own, up to
  /// `lead` bytes past what the pass has passed in each. Only the addresses are kept: nothing
  /// here reads or writes the memory.
  init(_ ranges: [UnsafeMutableRawBufferPointer], lead: Int = 16 << 20) {
    self.lead = UInt(max(lead, 0))
    progress = Mutex(Progress(passed: ranges.map { _ in 0 }))
    #if os(Linux)
      let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
      self.page = page
      spans = ranges.map { range in
        let base = UInt(bitPattern: range.baseAddress)
        let start = (base + page - 1) & ~(page - 1)
        let end = (base + UInt(range.count)) & ~(page - 1)
        return Span(
          base: base, start: start, end: range.baseAddress == nil ? start : max(start, end))
      }
      guard spans.contains(where: { $0.start < $0.end }) else {
        progress.withLock { $0.idle = true }
        rested.signal()
        return
      }
      // The thread holds the populator (its spans and flag) until it ends.
      let thread = Thread { [self] in run() }
      thread.name = "chronoscope.page-populator"
      thread.start()
    #else
      page = 4096
      spans = []
      progress.withLock { $0.idle = true }
      rested.signal()
    #endif
  }

  /// The pass has written `offsets[i]` bytes of range `i`: the populator may go on to `lead`
  /// bytes past them. Cheap enough to call every few megabytes.
  func passed(_ offsets: [Int]) {
    progress.withLock { progress in
      for index in progress.passed.indices where index < offsets.count {
        progress.passed[index] = max(progress.passed[index], offsets[index])
      }
      progress.generation += 1
      progress.idle = false
    }
    moved.signal()
  }

  /// Stops populating, once the pass is done. The memory may be freed at once: on memory no
  /// longer mapped the call fails and the thread ends, and memory mapped anew it only makes
  /// present, never changing what it holds.
  func stop() {
    progress.withLock { $0.done = true }
    moved.signal()
  }

  /// Returns once the populator has caught up with ``passed(_:)`` (or has ended): for tests,
  /// which then see exactly which pages it made present.
  func waitUntilIdle() {
    while !progress.withLock({ $0.idle }) { rested.wait() }
  }

  #if os(Linux)
    private static let populateWrite: Int32 = 23  // MADV_POPULATE_WRITE, which Glibc's module lacks
    /// At most this much per call, so that it stops soon after the pass is done.
    private static let chunk: UInt = 4 << 20

    private func run() {
      var populated = spans.map(\.start)
      defer {
        progress.withLock { $0.idle = true }
        rested.signal()
      }
      while true {
        let (passed, generation, done) = progress.withLock {
          ($0.passed, $0.generation, $0.done)
        }
        if done { return }
        var worked = false
        for index in spans.indices {
          let span = spans[index]
          let target = min(span.end, (span.base &+ UInt(passed[index]) &+ lead) & ~(page - 1))
          guard populated[index] < target else { continue }
          let length = min(Self.chunk, target - populated[index])
          let address = UnsafeMutableRawPointer(bitPattern: populated[index])
          guard madvise(address, Int(length), Self.populateWrite) == 0 else { return }
          populated[index] += length
          worked = true
        }
        if worked { continue }
        if zip(populated, spans).allSatisfy({ $0 >= $1.end }) { return }
        // Idle only if the pass has not moved since: else there is more to do already.
        let caughtUp = progress.withLock { progress in
          if progress.generation == generation, !progress.done { progress.idle = true }
          return progress.idle
        }
        if caughtUp { rested.signal() }
        moved.wait()
      }
    }
  #endif
}
