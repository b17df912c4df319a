@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Crypto

/// Replaces every string of a trace that could tell what an app is or does — scheduler labels,
/// call-site files and functions (and the module paths and build ids of sites recorded as code
/// addresses), thread names, mark names and fields, header metadata, the
/// process name — with stable short hashes, and the pid with a hash or 0, keeping the structure
/// and timing: every event, id, time, source line and count stays as it was (docs/Sharing.md).
///
/// ```swift
/// let redaction = try Redaction(salt: "only-we-know", keepPattern: "main|app\\..*")
/// let (redacted, summary) = redaction.redact(trace)
/// redacted.schedulers[4]?.label   // "r:…" (34 characters), the same for every "app.cache"
/// summary.count(of: .label)       // labels replaced
/// ```
///
/// - **Stable.** A string becomes `r:` and 32 hex digits: 24 (96 bits) of an HMAC-SHA256 of the
///   string, 8 of a check on those 24, keyed by HKDF-SHA256 from the ``salt``. The same string
///   gives the same token everywhere in a file, on every run and machine; a different salt gives
///   unrelated tokens, so two outputs cannot be linked, or a guess confirmed, without knowing it.
///   96 bits do not collide by chance in any trace (10 million distinct strings meet at odds
///   below one in 10¹⁴).
/// - **Idempotent.** A value that is already a token *of this salt* (its check holds) is left
///   alone, so redacting twice changes nothing more. A string that merely looks like a token —
///   `r:abcd`, or 20 hex digits with a wrong check — is original data and is replaced like any
///   other: only a check forged with the salt survives (one chance in 2³² by accident).
/// - **Kept.** Empty strings (they say nothing); the ISO 8601 time that starts the header's
///   `start` (text after it is replaced), `start_ns`, `cores`, clock and version (times and
///   machine facts); source lines and task ids; a scheduler's kind and family, and a crash's
///   signal, when they are the format's own words (others are replaced); the thread name
///   `main`; labels and thread names that ``keep`` matches whole; and the values of the slice
///   keys `slice_from_ns` and `slice_to_ns` when they are plain numbers. ``drop`` leaves out
///   the start time, the core count, source lines or the runtime's task ids.
/// - **Apart.** A thread name the OS cut (15 bytes, as Linux keeps them) names no thread: two
///   threads with the same cut name get different tokens.
/// - **Numbers.** The pid becomes a hash only with a salt; without one it is dropped (0): a
///   number hashed with a public key is found again by hashing every pid.
/// - **Readable.** Tokens are longer than short names, so a header or mark with many short
///   entries can grow past the reader's line limit; then the entries that do not fit are left
///   out, and ``Summary/shortened`` says so.
///
/// - Warning: A hash hides a string, not its guessable contents: with the default (empty, so
///   public) salt anyone can hash `"main"` and find it, and so can anyone who guesses the salt —
///   HKDF derives a key, it does not make guessing slower. Pass a secret, random ``salt``
///   (`openssl rand -hex 16`) for a trace that leaves your hands. What redaction protects
///   against, and what it does not: docs/Sharing.md.
///
/// Not `Sendable`: ``keep`` is a `Regex`, which is not.
package struct Redaction {
  /// The salt every hash is keyed with; "" by default.
  package let salt: String
  /// Scheduler labels and thread names that this matches whole are kept as they are.
  package let keep: Regex<AnyRegexOutput>?
  /// What else is left out of the output.
  package let drop: Set<Drop>
  /// HMAC-SHA256 keyed by HKDF-SHA256 from ``salt``, before any input.
  private let keyed: HMAC<SHA256>

  /// What a redaction can leave out besides names: facts it keeps by default, because they say
  /// nothing about what the app is, but say when and on what it ran.
  package enum Drop: String, CaseIterable, Sendable {
    /// The header's `start` and `start_ns`: when the recording was made.
    case start
    /// The header's `cores`: the recording machine's core count.
    case cores
    /// Call sites' source lines, which become 0: the shape of the code.
    case lines
    /// The Swift runtime's task ids, renumbered 1, 2, … in order of appearance: how many tasks
    /// the process had made before.
    case taskIDs = "task-ids"

    /// What the summary says was dropped.
    var summary: String {
      switch self {
      case .start: "the start time"
      case .cores: "the core count"
      case .lines: "source lines"
      case .taskIDs: "task ids (renumbered)"
      }
    }
  }

  /// The thread name the recorder writes for the main thread: the format's word, kept.
  static let mainThreadName = "main"

  /// The prefix every token starts with.
  package static let tokenPrefix = "r:"
  /// Hex digits of the hash in a token.
  static let hashDigits = 24
  /// Hex digits of the check in a token.
  static let checkDigits = 8

  /// Why a ``keep`` pattern cannot be used.
  package struct PatternError: Error, Sendable, CustomStringConvertible {
    /// What to tell the user.
    package let description: String
  }

  /// Makes a redaction.
  ///
  /// - Parameters:
  ///   - salt: Keys every hash: outputs with different salts cannot be linked.
  ///   - keep: Scheduler labels and thread names it matches whole are kept.
  ///   - drop: What else to leave out.
  package init(salt: String = "", keep: Regex<AnyRegexOutput>? = nil, drop: Set<Drop> = []) {
    self.salt = salt
    self.keep = keep
    self.drop = drop
    let key = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: SymmetricKey(data: Array(salt.utf8)),
      salt: Array("chronoscope.redaction".utf8), info: Array("tokens v2".utf8),
      outputByteCount: 32)
    keyed = HMAC<SHA256>(key: key)
  }

  /// Makes a redaction whose ``keep`` pattern is Swift `Regex` syntax (`main|app\..*`).
  ///
  /// - Throws: ``PatternError`` when `keepPattern` is not a regular expression.
  package init(salt: String = "", keepPattern: String?, drop: Set<Drop> = []) throws(PatternError) {
    guard let keepPattern else {
      self.init(salt: salt, drop: drop)
      return
    }
    do {
      self.init(salt: salt, keep: try Regex(keepPattern), drop: drop)
    } catch {
      throw PatternError(description: "\"\(keepPattern)\" is not a regular expression: \(error)")
    }
  }

  // MARK: - Tokens

  /// The token that replaces `value`: `r:`, then 24 hex digits of its hash and 8 of a check.
  ///
  /// - Complexity: O(`value.utf8.count`).
  package func token(for value: String) -> String {
    token(hashing: [Domain.string] + Array(value.utf8))
  }

  /// The token for the name of one thread, unlike any other thread's: for a name the OS cut,
  /// which does not tell threads apart.
  func token(for value: String, thread: UInt32) -> String {
    token(hashing: [Domain.threadName] + Self.bytes(UInt64(thread)) + Array(value.utf8))
  }

  private func token(hashing input: [UInt8]) -> String {
    let hash = Array(mac(input).prefix(Self.hashDigits / 2))
    return Self.tokenPrefix + Self.hex(hash) + Self.hex(check(of: hash), digits: Self.checkDigits)
  }

  /// Whether `value` is a token of this salt: `r:`, 32 lowercase hex digits, and a check that
  /// holds. Then a redaction leaves it alone.
  package func isRedacted(_ value: String) -> Bool {
    let utf8 = value.utf8
    guard utf8.count == Self.tokenPrefix.utf8.count + Self.hashDigits + Self.checkDigits,
      utf8.starts(with: Self.tokenPrefix.utf8)
    else { return false }
    let digits = Array(utf8.dropFirst(Self.tokenPrefix.utf8.count))
    var hash: [UInt8] = []
    for pair in stride(from: 0, to: Self.hashDigits, by: 2) {
      guard let byte = Self.number(digits[pair..<pair + 2]) else { return false }
      hash.append(UInt8(byte))
    }
    guard let check = Self.number(digits.suffix(Self.checkDigits)) else { return false }
    return check == self.check(of: hash)
  }

  /// HMAC-SHA256 of `input` under the salt's key: a copy of the keyed state, so the key's own
  /// two blocks are hashed once per redaction, not once per string.
  private func mac(_ input: [UInt8]) -> [UInt8] {
    var hmac = keyed
    hmac.update(data: input)
    return Array(hmac.finalize())
  }

  /// The pid that replaces `pid`: with a salt, a negative number (real pids are positive) made
  /// of 31 bits of its hash and 32 of a check, so that it is recognized as redacted as a token
  /// is; without one, 0 (no pid), since a hash with the public key is reversed by hashing every
  /// pid. 0 stays 0.
  package func redactedPID(_ pid: Int64) -> Int64 {
    if salt.isEmpty { return 0 }
    if pid == 0 || isRedactedPID(pid) { return pid }
    let hash = Self.word(mac([Domain.pid] + Self.bytes(UInt64(bitPattern: pid)))) >> 33
    return -Int64(bitPattern: hash << 32 | check(of: Self.bytes(hash)))
  }

  /// Whether `pid` is one that ``redactedPID(_:)`` makes with this salt.
  package func isRedactedPID(_ pid: Int64) -> Bool {
    guard pid < 0, pid != .min else { return false }
    let magnitude = UInt64(-pid)
    return magnitude & 0xFFFF_FFFF == check(of: Self.bytes(magnitude >> 32))
  }

  /// 32 bits that only the salt's key gives for `hash`.
  private func check(of hash: [UInt8]) -> UInt64 {
    Self.word(mac([Domain.check] + hash)) >> 32
  }

  /// The first 8 bytes of `bytes`, big-endian.
  private static func word(_ bytes: [UInt8]) -> UInt64 {
    bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
  }

  // MARK: - Whole traces

  /// `trace` with its strings replaced (see the type's documentation), and what was replaced.
  ///
  /// Each distinct string is hashed once.
  ///
  /// - Complexity: O(total length of the trace's strings + events).
  package func redact(_ trace: Trace) -> (trace: Trace, summary: Summary) {
    var work = Work(redaction: self)
    var out = trace
    out.header.process = work.replace(trace.header.process, .process)
    let pid = redactedPID(trace.header.pid)
    if pid != trace.header.pid { work.summary.add(.pid) }
    out.header.pid = pid
    if drop.contains(.start) {
      out.header.start = ""
      out.header.startNanoseconds = nil
    } else {
      out.header.start = work.replaceStart(trace.header.start)
    }
    if drop.contains(.cores) { out.header.cores = nil }
    out.header.metadata = work.replace(
      trace.header.metadata, .metadata, keptKeys: Self.sliceKeys, numbersOf: Self.sliceTimes)
    for (id, scheduler) in trace.schedulers {
      var scheduler = scheduler
      if keeps(scheduler.label) {
        work.summary.keep(.label)
      } else {
        scheduler.label = work.replace(scheduler.label, .label)
      }
      if !Self.kinds.contains(scheduler.kind) {
        scheduler.kind = work.replace(scheduler.kind, .other)
      }
      if !Self.families.contains(scheduler.family) {
        scheduler.family = work.replace(scheduler.family, .other)
      }
      out.schedulers[id] = scheduler
    }
    for (id, site) in trace.callSites {
      var site = site
      site.file = work.replace(site.file, .file)
      site.function = work.replace(site.function, .function)
      // A site recorded as a code address names the module's path and its build id.
      if var code = site.code {
        code.module = work.replace(code.module, .file)
        code.buildID = work.replace(code.buildID, .other)
        site.code = code
      }
      if drop.contains(.lines) {
        site.line = 0
        site.code = nil
      }
      out.callSites[id] = site
    }
    for (id, name) in trace.threadNames where name != Self.mainThreadName {
      if keeps(name) {
        work.summary.keep(.threadName)
      } else if name.utf8.count == ThreadInfo.truncatedNameLength {
        out.threadNames[id] = work.replace(name, .threadName, thread: id)
      } else {
        out.threadNames[id] = work.replace(name, .threadName)
      }
    }
    out.marks = trace.marks.map { mark in
      MarkRecord(
        name: work.replace(mark.name, .markName),
        fields: work.replace(mark.fields, .markField, keptKeys: [], numbersOf: []))
    }
    out.works = trace.works.map { named in
      WorkRecord(
        name: named.name.isEmpty ? "" : work.replace(named.name, .workName),
        fields: work.replace(named.fields, .workValue, keptKeys: [], numbersOf: []))
    }
    out.taskNames = trace.taskNames.mapValues { work.replace($0, .taskName) }
    if var crash = trace.crash, !Self.signals.contains(crash.signal) {
      crash.signal = work.replace(crash.signal, .other)
      out.crash = crash
    }
    if drop.contains(.taskIDs) {
      (out.events, out.taskNames) = Self.renumberingTasks(out.events, names: out.taskNames)
    }
    work.summary.dropped = drop
    work.summary.shortened = Self.fitLines(&out)
    return (out, work.summary)
  }

  private func keeps(_ value: String) -> Bool {
    guard let keep else { return false }
    return (try? keep.wholeMatch(in: value)) != nil
  }

  /// `events` with each `task` line's runtime id replaced by 1, 2, … in order of appearance,
  /// and the tasks' `names` under their new ids.
  private static func renumberingTasks(_ events: [TraceEvent], names: [UInt64: String])
    -> ([TraceEvent], [UInt64: String])
  {
    var numbers: [UInt64: UInt64] = [:]
    let renumbered = events.map { event in
      guard let task = event.task else { return event }
      let number = numbers[task] ?? UInt64(numbers.count + 1)
      numbers[task] = number
      return .task(time: event.time, action: event.action, task: number)
    }
    var renamed: [UInt64: String] = [:]
    for (task, name) in names {
      if let number = numbers[task] { renamed[number] = name }
    }
    return (renumbered, renamed)
  }

  /// The words of the format that are kept: they tell nothing about the app.
  static let kinds: Set<String> = ["serial", "concurrent", "main"]
  // The families Chronoscope's own schedulers, `RecordingClock` and `RecordingSerialExecutor`
  // write (`SchedulerFamily`).
  static let families: Set<String> = [
    "dispatch", "operation-queue", "immediate", "virtual", "clock", "actor",
  ]
  static let signals: Set<String> = ["SIGSEGV", "SIGBUS", "SIGILL", "SIGABRT", "SIGTRAP"]
  /// The metadata keys a slice adds: the format's words, kept.
  static let sliceKeys: Set<String> = [
    TraceHeader.sliceSourceKey, TraceHeader.sliceFromKey, TraceHeader.sliceToKey,
  ]
  /// Metadata keys whose plain-number values are kept: times, like `start_ns`.
  static let sliceTimes: Set<String> = [TraceHeader.sliceFromKey, TraceHeader.sliceToKey]

  /// The state of one redaction: what was counted, and each distinct string's token.
  private struct Work {
    let redaction: Redaction
    var summary = Summary()
    var tokens: [String: String] = [:]

    mutating func replace(_ value: String, _ field: Field) -> String {
      guard let token = token(value) else { return value }
      summary.add(field)
      return token
    }

    /// `value` as the name of thread `thread` only (see ``Redaction/token(for:thread:)``).
    mutating func replace(_ value: String, _ field: Field, thread: UInt32) -> String {
      if value.isEmpty { return value }
      if redaction.isRedacted(value) {
        summary.alreadyRedacted += 1
        return value
      }
      summary.add(field)
      return redaction.token(for: value, thread: thread)
    }

    /// The header's `start`: the ISO 8601 time it starts with is kept, what follows the time is
    /// replaced (it is not the recorder's), and a `start` that is no time is replaced whole.
    mutating func replaceStart(_ start: String) -> String {
      guard !start.isEmpty else { return start }
      guard let length = Redaction.timeLength(start) else { return replace(start, .other) }
      let time = String(decoding: start.utf8.prefix(length), as: UTF8.self)
      let rest = String(
        decoding: start.utf8.dropFirst(length).drop { $0 == UInt8(ascii: " ") }, as: UTF8.self)
      return rest.isEmpty ? time : time + " " + replace(rest, .other)
    }

    /// The token for `value`, or nil when it stays: empty, or already redacted.
    private mutating func token(_ value: String) -> String? {
      if value.isEmpty { return nil }
      if let token = tokens[value] { return token }
      if redaction.isRedacted(value) {
        summary.alreadyRedacted += 1
        return nil
      }
      let token = redaction.token(for: value)
      tokens[value] = token
      return token
    }

    /// Keys and values replaced, but for the keys in `keptKeys`, and the values of the keys in
    /// `numbersOf` when they are plain numbers.
    mutating func replace(
      _ pairs: [String: String], _ field: Field, keptKeys: Set<String>, numbersOf: Set<String>
    ) -> [String: String] {
      var out: [String: String] = [:]
      for (key, value) in pairs.sorted(by: { $0.key < $1.key }) {
        if numbersOf.contains(key), Redaction.isPlainNumber(value) {
          out[key] = value
          continue
        }
        let newKey = keptKeys.contains(key) ? nil : token(key)
        let newValue = token(value)
        if newKey != nil || newValue != nil { summary.add(field) }
        // Two keys with one token would need a 48-bit collision; the first one wins.
        if out[newKey ?? key] == nil { out[newKey ?? key] = newValue ?? value }
      }
      return out
    }
  }

  // MARK: - Pieces

  /// Separates the uses of the one key, so that no two inputs of different kinds are hashed
  /// alike.
  private enum Domain {
    static let string: UInt8 = 1
    static let check: UInt8 = 2
    static let pid: UInt8 = 3
    static let threadName: UInt8 = 6
  }

  /// The length of the ISO 8601 time `text` starts with — `2026-11-21T23:46:35Z`, with an
  /// optional fraction of up to 9 digits and an optional `Z` or `±hh:mm` — or nil when it does
  /// not start with one. Strict, unlike Foundation's parser, which ignores what follows.
  static func timeLength(_ text: String) -> Int? {
    let bytes = Array(text.utf8.prefix(40))
    var position = 0
    func number(_ digits: Int, in range: ClosedRange<Int>) -> Bool {
      guard position + digits <= bytes.count else { return false }
      var value = 0
      for byte in bytes[position..<(position + digits)] {
        guard (0x30...0x39).contains(byte) else { return false }
        value = value * 10 + Int(byte - 0x30)
      }
      position += digits
      return range.contains(value)
    }
    func literal(_ character: Character) -> Bool {
      guard position < bytes.count, bytes[position] == character.asciiValue else { return false }
      position += 1
      return true
    }
    guard number(4, in: 0...9999), literal("-"), number(2, in: 1...12), literal("-"),
      number(2, in: 1...31), literal("T"), number(2, in: 0...23), literal(":"),
      number(2, in: 0...59), literal(":"), number(2, in: 0...60)
    else { return nil }
    let beforeFraction = position
    if literal(".") {
      var digits = 0
      while digits < 9, number(1, in: 0...9) { digits += 1 }
      if digits == 0 { position = beforeFraction }
    }
    if literal("Z") { return position }
    let beforeZone = position
    if literal("+") || literal("-") {
      if number(2, in: 0...23), literal(":"), number(2, in: 0...59) { return position }
      position = beforeZone
    }
    return position
  }

  /// Turns a salt into a key: "chronosc" and "ope-reda" in ASCII, read little-endian.
  /// 1 to 19 ASCII digits: a number that says nothing but itself.
  static func isPlainNumber(_ text: String) -> Bool {
    (1...19).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
  }

  private static func bytes(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  private static func hex(_ bytes: [UInt8]) -> String {
    String(
      decoding: bytes.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0xF)]] },
      as: UTF8.self)
  }

  private static func hex(_ value: UInt64, digits: Int) -> String {
    String(
      decoding: (0..<digits).reversed().map { hexDigits[Int((value >> (4 * UInt64($0))) & 0xF)] },
      as: UTF8.self)
  }

  /// The value of lowercase hex digits; nil for anything else.
  private static func number(_ digits: some Collection<UInt8>) -> UInt64? {
    var value: UInt64 = 0
    for digit in digits {
      guard let nibble = hexDigits.firstIndex(of: digit) else { return nil }
      value = value << 4 | UInt64(nibble)
    }
    return value
  }
}
