import TraceFormat

/// Replaces every string of a trace that could tell what an app is or does — scheduler labels,
/// call-site files and functions, thread names, mark names and fields, header metadata, the
/// process name and pid — with stable short hashes, keeping the structure and timing: every
/// event, id, time, source line and count stays as it was (docs/Sharing.md).
///
/// ```swift
/// let redaction = try Redaction(salt: "only-we-know", keepPattern: "main|app\\..*")
/// let (redacted, summary) = redaction.redact(trace)
/// redacted.schedulers[4]?.label   // "r:…" (22 characters), the same for every "app.cache"
/// summary.count(of: .label)       // labels replaced
/// ```
///
/// - **Stable.** A string becomes `r:` and 20 hex digits: 12 of a keyed SipHash-2-4 of the
///   string, 8 of a check on those 12. The same string gives the same token everywhere in a file,
///   on every run and machine; a different ``salt`` gives unrelated tokens, so two outputs cannot
///   be linked, or a guess confirmed, without knowing it.
/// - **Idempotent.** A value that is already a token *of this salt* (its check holds) is left
///   alone, so redacting twice changes nothing more. A string that merely looks like a token —
///   `r:abcd`, or 20 hex digits with a wrong check — is original data and is replaced like any
///   other: only a check forged with the salt survives (one chance in 2³² by accident).
/// - **Kept.** Empty strings (they say nothing); the header's `start` (when it is an ISO 8601
///   time), `start_ns`, `cores`, clock and version (times and machine facts); a scheduler's kind and family, and a crash's signal,
///   when they are the format's own words (others are replaced); labels that ``keep`` matches
///   whole; and the values of the slice keys `slice_from_ns` and `slice_to_ns` when they are
///   plain numbers.
///
/// - Warning: A hash hides a string, not its guessable contents: with the default (empty, so
///   public) salt anyone can hash `"main"` and find it. Pass a secret ``salt`` for a trace that
///   leaves your hands.
///
/// Not `Sendable`: ``keep`` is a `Regex`, which is not.
public struct Redaction {
  /// The salt every hash is keyed with; "" by default.
  public let salt: String
  /// Scheduler labels that this matches whole are kept as they are.
  public let keep: Regex<AnyRegexOutput>?
  private let key: SipHash.Key

  /// The prefix every token starts with.
  public static let tokenPrefix = "r:"
  /// Hex digits of the hash in a token.
  static let hashDigits = 12
  /// Hex digits of the check in a token.
  static let checkDigits = 8

  /// What a redaction replaces, for its ``Summary``.
  public enum Field: String, CaseIterable, Sendable {
    /// A scheduler's label.
    case label
    /// A call site's file.
    case file
    /// A call site's function.
    case function
    /// A thread's name.
    case threadName = "thread name"
    /// A mark's name.
    case markName = "mark name"
    /// A mark's field (its key and its value).
    case markField = "mark field"
    /// The name of named work (a `WorkContext`'s).
    case workName = "work name"
    /// A value of named work (its key and its value).
    case workValue = "work value"
    /// A Swift task's name.
    case taskName = "task name"
    /// A header metadata entry (its key and its value).
    case metadata = "metadata entry"
    /// The header's process name.
    case process = "process name"
    /// The header's pid.
    case pid
    /// A scheduler kind or family, a crash signal or a `start` that is not the format's own.
    case other = "other value"

    /// The name of several.
    public var plural: String { self == .metadata ? "metadata entries" : rawValue + "s" }
  }

  /// What a redaction did, counted per ``Field``.
  public struct Summary: Sendable, Equatable, CustomStringConvertible {
    /// Entries replaced, by field. A mark field or metadata entry counts once for its key and
    /// value.
    public private(set) var replaced: [Field: Int] = [:]
    /// Labels kept because ``Redaction/keep`` matched them.
    public internal(set) var keptByPattern = 0
    /// Values left alone because they were already redacted with this salt.
    public internal(set) var alreadyRedacted = 0

    /// How many entries of `field` were replaced.
    public func count(of field: Field) -> Int { replaced[field] ?? 0 }

    mutating func add(_ field: Field) { replaced[field, default: 0] += 1 }

    /// `replaced 12 labels (1 kept by --keep), 5 files, …; 3 already redacted`.
    public var description: String {
      var parts = Field.allCases.compactMap { field -> String? in
        let count = count(of: field)
        guard count > 0 || field == .label else { return nil }
        let name = count == 1 ? field.rawValue : field.plural
        return field == .label && keptByPattern > 0
          ? "\(count) \(name) (\(keptByPattern) kept by --keep)" : "\(count) \(name)"
      }
      if alreadyRedacted > 0 { parts.append("\(alreadyRedacted) already redacted, left alone") }
      return "replaced " + parts.joined(separator: ", ")
    }
  }

  /// Why a ``keep`` pattern cannot be used.
  public struct PatternError: Error, Sendable, CustomStringConvertible {
    /// What to tell the user.
    public let description: String
  }

  /// Makes a redaction.
  ///
  /// - Parameters:
  ///   - salt: Keys every hash: outputs with different salts cannot be linked.
  ///   - keep: Scheduler labels it matches whole are kept.
  public init(salt: String = "", keep: Regex<AnyRegexOutput>? = nil) {
    self.salt = salt
    self.keep = keep
    let salted = Array(salt.utf8)
    key = SipHash.Key(
      k0: SipHash.hash([Domain.saltHigh] + salted, key: Self.fixedKey),
      k1: SipHash.hash([Domain.saltLow] + salted, key: Self.fixedKey))
  }

  /// Makes a redaction whose ``keep`` pattern is Swift `Regex` syntax (`main|app\..*`).
  ///
  /// - Throws: ``PatternError`` when `keepPattern` is not a regular expression.
  public init(salt: String = "", keepPattern: String?) throws(PatternError) {
    guard let keepPattern else {
      self.init(salt: salt)
      return
    }
    do {
      self.init(salt: salt, keep: try Regex(keepPattern))
    } catch {
      throw PatternError(description: "\"\(keepPattern)\" is not a regular expression: \(error)")
    }
  }

  // MARK: - Tokens

  /// The token that replaces `value`: `r:`, then 12 hex digits of its hash and 8 of a check.
  ///
  /// - Complexity: O(`value.utf8.count`).
  public func token(for value: String) -> String {
    let hash = SipHash.hash([Domain.string] + Array(value.utf8), key: key) >> 16
    return Self.tokenPrefix + Self.hex(hash, digits: Self.hashDigits)
      + Self.hex(check(of: hash), digits: Self.checkDigits)
  }

  /// Whether `value` is a token of this salt: `r:`, 20 lowercase hex digits, and a check that
  /// holds. Then a redaction leaves it alone.
  public func isRedacted(_ value: String) -> Bool {
    let utf8 = value.utf8
    guard utf8.count == Self.tokenPrefix.utf8.count + Self.hashDigits + Self.checkDigits,
      utf8.starts(with: Self.tokenPrefix.utf8)
    else { return false }
    let digits = utf8.dropFirst(Self.tokenPrefix.utf8.count)
    guard let hash = Self.number(digits.prefix(Self.hashDigits)),
      let check = Self.number(digits.suffix(Self.checkDigits))
    else { return false }
    return check == self.check(of: hash)
  }

  /// The pid that replaces `pid`: a negative number (real pids are positive) made of 31 bits of
  /// its hash and 32 of a check, so that it is recognized as redacted as a token is. 0 (no pid)
  /// stays 0.
  public func redactedPID(_ pid: Int64) -> Int64 {
    if pid == 0 || isRedactedPID(pid) { return pid }
    let hash = SipHash.hash([Domain.pid] + Self.bytes(UInt64(bitPattern: pid)), key: key) >> 33
    return -Int64(bitPattern: hash << 32 | check(of: hash))
  }

  /// Whether `pid` is one that ``redactedPID(_:)`` makes with this salt.
  public func isRedactedPID(_ pid: Int64) -> Bool {
    guard pid < 0, pid != .min else { return false }
    let magnitude = UInt64(-pid)
    return magnitude & 0xFFFF_FFFF == check(of: magnitude >> 32)
  }

  /// 32 bits that only the salt's key gives for `hash`.
  private func check(of hash: UInt64) -> UInt64 {
    SipHash.hash([Domain.check] + Self.bytes(hash), key: key) >> 32
  }

  // MARK: - Whole traces

  /// `trace` with its strings replaced (see the type's documentation), and what was replaced.
  ///
  /// Each distinct string is hashed once.
  ///
  /// - Complexity: O(total length of the trace's strings + events).
  public func redact(_ trace: Trace) -> (trace: Trace, summary: Summary) {
    var work = Work(redaction: self)
    var out = trace
    out.header.process = work.replace(trace.header.process, .process)
    let pid = redactedPID(trace.header.pid)
    if pid != trace.header.pid { work.summary.add(.pid) }
    out.header.pid = pid
    if !trace.header.start.isEmpty, ProcessTimeline.seconds(iso8601: trace.header.start) == nil {
      out.header.start = work.replace(trace.header.start, .other)
    }
    out.header.metadata = work.replace(
      trace.header.metadata, .metadata, keptKeys: Self.sliceKeys, numbersOf: Self.sliceTimes)
    for (id, scheduler) in trace.schedulers {
      var scheduler = scheduler
      if let keep, (try? keep.wholeMatch(in: scheduler.label)) != nil {
        work.summary.keptByPattern += 1
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
      out.callSites[id] = site
    }
    for (id, name) in trace.threadNames { out.threadNames[id] = work.replace(name, .threadName) }
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
    return (out, work.summary)
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
  static let sliceKeys: Set<String> = [TraceSlice.sourceKey, TraceSlice.fromKey, TraceSlice.toKey]
  /// Metadata keys whose plain-number values are kept: times, like `start_ns`.
  static let sliceTimes: Set<String> = [TraceSlice.fromKey, TraceSlice.toKey]

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
    static let saltHigh: UInt8 = 4
    static let saltLow: UInt8 = 5
  }

  /// Turns a salt into a key: "chronosc" and "ope-reda" in ASCII, read little-endian.
  private static let fixedKey = SipHash.Key(k0: 0x6373_6f6e_6f72_6863, k1: 0x6164_6572_2d65_706f)

  /// 1 to 19 ASCII digits: a number that says nothing but itself.
  static func isPlainNumber(_ text: String) -> Bool {
    (1...19).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
  }

  private static func bytes(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

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
