/// The ranges format version 1 allows; the reader rejects a value outside them as an error that
/// names the field, where it is and the range.
///
/// Trace files come from bug reports, so every number in one is hostile. The bounds leave
/// headroom so that what a viewer does with them — a time plus a delay, the difference of two
/// times, a count summed over lines — stays inside `Int64`:
///
/// ```swift
/// TraceLimits.maximumTime + TraceLimits.maximumTime  // < Int64.max: no overflow
/// ```
public enum TraceLimits {
  /// The latest time (`t`, `due`) and the longest span (`delay`, `dur`): 2⁶² − 1 ns, about 146
  /// years. Two of them add without overflowing an `Int64`.
  public static let maximumTime: Int64 = (1 << 62) - 1
  /// The largest count (`events`, `dropped`, `count`): 2⁶² − 1.
  public static let maximumCount: Int64 = (1 << 62) - 1
  /// The largest id (`a`, `q`, `site`, `parent`, `by`) and thread id (`th`, `from`, `to`):
  /// 2³² − 1. Ids start at 1; thread ids at 0.
  public static let maximumID = UInt32.max
  /// The largest run number: runs are numbered from 1.
  public static let maximumRun = UInt32.max
  /// The largest source line of a call site.
  public static let maximumSourceLine: Int64 = Int64(Int32.max)
  /// The longest string value, in UTF-8 bytes after unescaping (a label, a name, a file, a
  /// metadata value); a line is at most ``TraceReader/maximumLineLength`` bytes in any case.
  public static let maximumStringLength = 1 << 16
}
