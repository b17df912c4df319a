@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Dispatch
import Foundation

/// A trace file another process is still writing, read again whenever it has changed: what
/// ``InspectorApp/run(on:following:)`` follows for `view --follow`.
///
/// Each change reads the whole file again (about 0.1 s per 10 MB here), at most every
/// ``interval`` milliseconds; a read with errors (a file being replaced, say) is skipped and the
/// last good one stays. A final line still being written is left for the next read, as the
/// reader ignores a cut-off last line.
package struct FollowedFile: Sendable {
  /// The file's path.
  package let path: String
  private var seen: (size: Int64, modified: Date?)?
  private var lastPoll: UInt64 = 0
  /// How often the file is looked at, in milliseconds.
  package static let interval = 250

  /// Starts following `path` as it is now: take it before reading the file the first time, so
  /// that what is written meanwhile is read at the first ``poll()``.
  package init(path: String) {
    self.path = path
    seen = Self.state(of: path)
  }

  private static func state(of path: String) -> (size: Int64, modified: Date?)? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let size = (attributes[.size] as? NSNumber)?.int64Value
    else { return nil }
    return (size, attributes[.modificationDate] as? Date)
  }

  /// The replay of the file's current contents if it changed since it was last read, else nil;
  /// nil too within ``interval`` of the last look.
  package mutating func poll() -> ReplayEngine? {
    let now = DispatchTime.now().uptimeNanoseconds
    guard lastPoll == 0 || now &- lastPoll >= UInt64(Self.interval) * 1_000_000 else {
      return nil
    }
    lastPoll = now
    guard let current = Self.state(of: path),
      current.size != seen?.size || current.modified != seen?.modified
    else { return nil }
    // Copied, not mapped: a followed file is one another process writes, and may truncate (a
    // recorder starting again at the same path), which would fault a mapping under the parser.
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let reading = data.withUnsafeBytes { raw in
      TraceReader.parse(raw.bindMemory(to: UInt8.self), file: path)
    }
    guard let trace = reading.trace, !reading.hasErrors else { return nil }
    seen = current
    return ReplayEngine(trace: trace)
  }
}
