import Foundation
import Synchronization

/// Faults in, on another thread, the pages of memory a pass on this thread is about to write.
///
/// The first touch of a fresh page costs the kernel a zeroed page: preparing ten million events
/// touches a hundred thousand of them, a large share of its time, while the other core is idle.
/// Linux's `madvise(MADV_POPULATE_WRITE)` makes pages present without writing to them, so it
/// never races with the pass: the pass finds its pages ready, or faults them in itself where it
/// overtakes. Elsewhere, or on a kernel without it (before 5.14), nothing happens.
final class PagePopulator: Sendable {
  private struct Span: Sendable {
    var start: UInt
    var end: UInt
  }

  private let spans: [Span]
  private let done = Atomic<Bool>(false)

  /// Starts populating the whole pages inside `ranges`, in order, on a thread of its own. Only
  /// the addresses are kept: nothing here reads or writes the memory.
  init(_ ranges: [UnsafeMutableRawBufferPointer]) {
    #if os(Linux)
      let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
      spans = ranges.compactMap { range in
        guard let base = range.baseAddress else { return nil }
        let start = (UInt(bitPattern: base) + page - 1) & ~(page - 1)
        let end = (UInt(bitPattern: base) + UInt(range.count)) & ~(page - 1)
        return start < end ? Span(start: start, end: end) : nil
      }
      guard !spans.isEmpty else { return }
      // The thread holds the populator (its spans and flag) until it ends.
      let thread = Thread { [self] in run() }
      thread.name = "chronoscope.page-populator"
      thread.start()
    #else
      spans = []
    #endif
  }

  /// Stops populating, once the pass is done. The memory may be freed at once: on memory no
  /// longer mapped the call fails and the thread ends, and memory mapped anew it only makes
  /// present, never changing what it holds.
  func stop() { done.store(true, ordering: .relaxed) }

  #if os(Linux)
    private static let populateWrite: Int32 = 23  // MADV_POPULATE_WRITE, which Glibc's module lacks

    private func run() {
      // In chunks, so that it stops soon after the pass is done.
      let chunk: UInt = 4 << 20
      for span in spans {
        var start = span.start
        while start < span.end, !done.load(ordering: .relaxed) {
          let length = min(chunk, span.end - start)
          guard
            madvise(UnsafeMutableRawPointer(bitPattern: start), Int(length), Self.populateWrite)
              == 0
          else { return }
          start += length
        }
      }
    }
  #endif
}
