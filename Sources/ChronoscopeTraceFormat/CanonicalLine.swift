/// A fast path for the lines recorders write most: the runtime events but marks, exactly as
/// ``TraceEncoder`` writes them (its key order, no whitespace, plain integers).
///
/// It decodes such a line straight into its ``TraceEvent``, checking every value against the
/// same limits as the general reader, and answers nil for anything else: another key order,
/// whitespace, an unknown field, an escape, a leading zero, a number of 19 digits or more, a
/// value out of range. The general scanner then reads that line and words any error. So the
/// fast path only ever accepts a line the general reader would turn into the same event without
/// a word (`CanonicalLineTests` holds both paths to that, on mutated lines too).
///
/// Filling the general reader's field slots from a template, then reading them through the typed
/// accessors, cost a third of opening a large trace; decoding straight, kind by kind, costs far
/// less (Benchmarks/README.md, "Figures behind the code").
enum CanonicalLine {
  /// Canonical lines are a few hundred bytes at most; longer ones are left to the general path.
  private static let longestLine = 512

  /// The event of the line `bytes[start..<end]` (without its newline) if it is a runtime event
  /// other than a mark, written as the encoder writes it, with every value in range; nil if the
  /// general scanner must read it.
  static func decode(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int)
    -> TraceEvent?
  {
    guard let base = bytes.baseAddress, start <= end, end <= bytes.count,
      end - start <= longestLine
    else { return nil }
    var line = Cursor(position: base + start, end: base + end, readable: base + bytes.count)
    guard line.take("{\"t\":"), let time = line.time(), line.take(",\"e\":\"") else { return nil }
    let event: TraceEvent?
    switch line.next {
    case UInt8(ascii: "s"): event = line.schedule(time)
    case UInt8(ascii: "b"): event = line.begin(time)
    case UInt8(ascii: "e"): event = line.end(time)
    case UInt8(ascii: "h"): event = line.hop(time)
    case UInt8(ascii: "c"): event = line.cancel(time)
    case UInt8(ascii: "t"): event = line.task(time)
    default: return nil
    }
    guard let event, line.take("}"), line.position == line.end else { return nil }
    return event
  }

  /// A position in the line's bytes that only moves forward over what it recognizes. Every
  /// read is checked against `end`.
  private struct Cursor {
    var position: UnsafePointer<UInt8>
    let end: UnsafePointer<UInt8>
    /// The end of the whole buffer: eight bytes can be loaded at once up to here, past `end`.
    let readable: UnsafePointer<UInt8>

    /// The next byte, or 0 at the end.
    var next: UInt8 { position < end ? position.pointee : 0 }

    /// Consumes `literal` if the line continues with it. (A byte loop over a constant: the
    /// literals are a few bytes long, and calling `memcmp` for each cost more.)
    @inline(__always)
    mutating func take(_ literal: StaticString) -> Bool {
      let count = literal.utf8CodeUnitCount
      guard end - position >= count else { return false }
      let expected = literal.utf8Start
      for index in 0..<count where position[index] != expected[index] { return false }
      position += count
      return true
    }

    /// A non-negative integer of 1 to 18 digits without a leading zero (so it cannot
    /// overflow). What follows it is checked by the next `take`.
    ///
    /// Eight bytes at a time where eight can be loaded (``Digits``): a line's numbers are most
    /// of its bytes, and a byte loop, one multiply after another, was the fast path's largest
    /// cost (perf).
    @inline(__always)
    mutating func integer() -> Int64? {
      let start = position
      var value: UInt64 = 0
      var digits = 0
      while digits < 19 {
        guard readable - position >= 8 else {
          // The buffer's last few bytes: one at a time.
          while position < end, digits < 19 {
            let digit = position.pointee &- 0x30
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            position += 1
            digits += 1
          }
          break
        }
        let chunk = UInt64(littleEndian: UnsafeRawPointer(position).loadUnaligned(as: UInt64.self))
        let run = min(Digits.leadingRun(chunk), end - position)
        guard run > 0 else { break }
        value = value &* Digits.powersOfTen[run] &+ Digits.value(chunk, count: run)
        position += run
        digits += run
        if run < 8 { break }
      }
      guard digits > 0, digits <= 18, digits == 1 || start.pointee != UInt8(ascii: "0") else {
        return nil
      }
      return Int64(bitPattern: value)
    }

    /// A time or a span: 0 through ``TraceLimits/maximumTime`` (``Fields/time(_:in:)``).
    @inline(__always)
    mutating func time() -> Int64? {
      guard let value = integer(), value <= TraceLimits.maximumTime else { return nil }
      return value
    }

    /// Any 32-bit value (``Fields/uint32(_:in:)``).
    @inline(__always)
    mutating func uint32() -> UInt32? {
      guard let value = integer(), value <= Int64(UInt32.max) else { return nil }
      return UInt32(truncatingIfNeeded: value)
    }

    /// A positive 32-bit id (``Fields/id(_:in:)``); also a run number, which has the same range.
    @inline(__always)
    mutating func id() -> UInt32? {
      guard let value = uint32(), value > 0 else { return nil }
      return value
    }

    @inline(__always)
    mutating func boolean() -> Bool? {
      if take("true") { return true }
      if take("false") { return false }
      return nil
    }

    /// `,"key":` and a 32-bit value if the line continues with that key; `absent` if it does
    /// not; nil (the line is not canonical) if the key is there with a bad value.
    @inline(__always)
    mutating func optionalUInt32(_ key: StaticString, absent: UInt32) -> UInt32? {
      take(key) ? uint32() : absent
    }

    // The kinds, in the encoder's key order; each starts after `,"e":"`.

    mutating func schedule(_ time: Int64) -> TraceEvent? {
      guard take("schedule\",\"a\":"), let action = id(), take(",\"q\":"), let scheduler = id(),
        take(",\"mode\":\""), let mode = mode()
      else { return nil }
      var delay: Int64 = 0
      if take(",\"delay\":") {
        guard let value = self.time() else { return nil }
        delay = value
      } else if mode == .after || mode == .repeating {
        return nil  // The general reader words the missing delay.
      }
      if mode != .after, mode != .repeating { delay = 0 }  // Read only where it means something.
      guard take(",\"due\":"), let due = self.time(), take(",\"th\":"), let thread = uint32(),
        let parent = optionalUInt32(",\"parent\":", absent: 0),
        let site = optionalUInt32(",\"site\":", absent: 0)
      else { return nil }
      var inline = false
      if take(",\"inline\":") {
        guard let value = boolean() else { return nil }
        inline = value
      }
      return .schedule(
        time: time, action: action, scheduler: scheduler, mode: mode, delay: delay, due: due,
        thread: thread, parent: parent, site: site, inline: inline)
    }

    /// A mode and its closing quote.
    private mutating func mode() -> TraceEvent.ScheduleMode? {
      if take("async\"") { return .async }
      if take("after\"") { return .after }
      if take("repeating\"") { return .repeating }
      if take("sync\"") { return .sync }
      return nil
    }

    mutating func begin(_ time: Int64) -> TraceEvent? {
      guard take("begin\""), let (action, thread, run) = run() else { return nil }
      return .begin(time: time, action: action, thread: thread, run: run)
    }

    mutating func end(_ time: Int64) -> TraceEvent? {
      guard take("end\""), let (action, thread, run) = run(), take(",\"dur\":"),
        let duration = self.time()
      else { return nil }
      return .end(time: time, action: action, thread: thread, run: run, duration: duration)
    }

    /// The fields a begin and an end share: `,"a":…,"th":…,"run":…`.
    @inline(__always)
    private mutating func run() -> (action: UInt32, thread: UInt32, run: UInt32)? {
      guard take(",\"a\":"), let action = id(), take(",\"th\":"), let thread = uint32(),
        take(",\"run\":"), let run = id()
      else { return nil }
      return (action, thread, run)
    }

    mutating func hop(_ time: Int64) -> TraceEvent? {
      guard take("hop\",\"a\":"), let action = id(), take(",\"from\":"), let from = uint32(),
        take(",\"to\":"), let to = uint32()
      else { return nil }
      return .hop(time: time, action: action, from: from, to: to)
    }

    mutating func cancel(_ time: Int64) -> TraceEvent? {
      guard take("cancel\",\"a\":"), let action = id(), take(",\"th\":"), let thread = uint32(),
        let by = optionalUInt32(",\"by\":", absent: 0), take(",\"started\":"),
        let started = boolean()
      else { return nil }
      return .cancel(time: time, action: action, thread: thread, by: by, started: started)
    }

    mutating func task(_ time: Int64) -> TraceEvent? {
      guard take("task\",\"a\":"), let action = id(), take(",\"task\":"), let task = self.time(),
        task > 0
      else { return nil }
      return .task(time: time, action: action, task: UInt64(task))
    }
  }
}

/// Decimal digits eight bytes at a time, in a `UInt64` loaded little-endian (the first byte in
/// the low eight bits).
enum Digits {
  static let powersOfTen: [UInt64] = [
    1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000,
  ]

  /// How many of the eight bytes, from the first, are ASCII digits before one that is not.
  @inline(__always)
  static func leadingRun(_ chunk: UInt64) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    // A byte is a digit when its high half is 3 and, with 6 added, still 3 (0x30 ... 0x39).
    // The addition may carry into the next byte only from a byte of 0xFA or more, which is
    // no digit: nothing after the first non-digit counts.
    let high = (chunk & (0xF0 &* ones)) ^ (0x30 &* ones)
    let low = ((chunk &+ 0x06 &* ones) & (0xF0 &* ones)) ^ (0x30 &* ones)
    let notDigits = high | low
    return notDigits == 0 ? 8 : notDigits.trailingZeroBitCount / 8
  }

  /// The value of the first `count` (1 ... 8) bytes, all digits.
  @inline(__always)
  static func value(_ chunk: UInt64, count: Int) -> UInt64 {
    // The digits moved to the top bytes: the bytes shifted in below are leading zeros.
    var value = (chunk << UInt64(64 - 8 * count)) & 0x0F0F_0F0F_0F0F_0F0F
    value = (value &* (10 << 8 + 1)) >> 8 & 0x00FF_00FF_00FF_00FF  // pairs of digits
    value = (value &* (100 << 16 + 1)) >> 16 & 0x0000_FFFF_0000_FFFF  // fours
    return (value &* (10_000 << 32 + 1)) >> 32  // all eight
  }
}
