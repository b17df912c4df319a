import ChronoscopeRedaction
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

final class RedactionTests: XCTestCase {
  private func redact(_ trace: Trace, _ redaction: Redaction = Redaction()) -> (
    bytes: [UInt8], summary: Redaction.Summary
  ) {
    let (redacted, summary) = redaction.redact(trace)
    return (TraceEncoder.encode(redacted), summary)
  }

  /// Every string of `trace` that a redaction must hide: labels, files, functions, thread names,
  /// mark names and fields, metadata keys and values, the process name.
  private func originalStrings(of trace: Trace) -> Set<String> {
    var strings: Set<String> = [trace.header.process]
    for (key, value) in trace.header.metadata { strings.formUnion([key, value]) }
    for scheduler in trace.schedulers.values { strings.insert(scheduler.label) }
    for site in trace.callSites.values {
      strings.formUnion([site.file, site.function])
      // A site recorded as a code address (Recordings/feed-refresher.trace) names its module.
      if let code = site.code { strings.formUnion([code.module, code.buildID]) }
    }
    strings.formUnion(trace.threadNames.values)
    for mark in trace.marks {
      strings.insert(mark.name)
      for (key, value) in mark.fields { strings.formUnion([key, value]) }
    }
    strings.formUnion(trace.taskNames.values)
    for work in trace.works {
      strings.insert(work.name)
      for (key, value) in work.fields { strings.formUnion([key, value]) }
    }
    return strings
  }

  /// The format's own words: keys, event types, modes, kinds, families, signals, clocks. An
  /// original string inside one of them ("main", "chronoscope" in "chronoscope-trace") is in
  /// every trace and tells nothing.
  private static let formatWords = [
    "chronoscope-trace", "format", "version", "clock", "host", "virtual", "start", "start_ns",
    "process", "pid", "cores", "metadata", "thread", "scheduler", "site", "schedule", "begin",
    "end", "hop", "cancel", "mark", "work", "dropped", "close", "crash", "label", "kind", "family",
    "serial", "concurrent", "main", "dispatch", "operation-queue", "immediate", "file", "line",
    "func", "mode", "async", "sync", "after", "repeating", "delay", "due", "parent", "inline",
    "from", "run", "dur", "started", "name", "fields", "count", "events", "signal", "SIGSEGV",
    "SIGBUS", "SIGILL", "SIGABRT", "SIGTRAP", "true", "false",
  ]

  /// Asserts that no string of `original` of 4 bytes or more survives in `output`: as a
  /// substring of its bytes, unless it is only hex digits (a token may hold those by chance),
  /// then as a whole JSON string.
  private func assertNothingSurvives(
    of original: Trace, in output: [UInt8], _ name: String, kept: Set<String> = [],
    also extra: Set<String> = [], file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let text = String(decoding: output, as: UTF8.self)
    var values = Set<String>()
    for line in text.split(separator: "\n") {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
      collectStrings(object, into: &values)
    }
    let checked = originalStrings(of: original).union(extra).subtracting(kept).filter { string in
      string.utf8.count >= 4 && !Self.formatWords.contains { $0.contains(string) }
    }
    XCTAssertFalse(checked.isEmpty, name, file: file, line: line)
    for string in checked {
      let escaped = String(decoding: TraceFileWriterProbe.jsonEscaped(string), as: UTF8.self)
      if string.allSatisfy(\.isHexDigit) {
        XCTAssertFalse(
          values.contains(string), "\(name): \(string) survives", file: file, line: line)
      } else {
        XCTAssertFalse(
          text.contains(string) || text.contains(escaped),
          "\(name): \(string.debugDescription) survives",
          file: file, line: line)
      }
    }
  }

  private func collectStrings(_ object: Any, into strings: inout Set<String>) {
    switch object {
    case let string as String: strings.insert(string)
    case let dictionary as [String: Any]:
      for (key, value) in dictionary {
        strings.insert(key)
        collectStrings(value, into: &strings)
      }
    case let array as [Any]: for value in array { collectStrings(value, into: &strings) }
    default: break
    }
  }

  // MARK: - Recordings

  func testNoOriginalStringOfAnyRecordingSurvivesRedaction() throws {
    for path in try TraceFixtures.recordings() {
      let (trace, _) = try TraceFixtures.read(path)
      try assertNothingSurvives(of: trace, in: redact(trace).bytes, path)
    }
  }

  func testRedactionKeepsEveryEventIdTimeSourceLineAndCount() throws {
    for path in try TraceFixtures.recordings() {
      let (trace, reading) = try TraceFixtures.read(path)
      let (bytes, _) = redact(trace)
      let (redacted, redactedReading) = try TraceFixtures.read(bytes, path)
      XCTAssertEqual(redacted.events, trace.events, path)
      XCTAssertEqual(redacted.closing, trace.closing, path)
      XCTAssertEqual(redacted.closedAt, trace.closedAt, path)
      XCTAssertEqual(redacted.header.start, trace.header.start, "a time: \(path)")
      XCTAssertEqual(redacted.header.startNanoseconds, trace.header.startNanoseconds, path)
      XCTAssertEqual(redacted.header.cores, trace.header.cores, path)
      XCTAssertEqual(redacted.header.clock, trace.header.clock, path)
      XCTAssertEqual(Set(redacted.schedulers.keys), Set(trace.schedulers.keys), path)
      for (id, scheduler) in trace.schedulers {
        XCTAssertEqual(redacted.schedulers[id]?.kind, scheduler.kind, path)
        XCTAssertEqual(redacted.schedulers[id]?.family, scheduler.family, path)
      }
      XCTAssertEqual(
        redacted.callSites.mapValues(\.line), trace.callSites.mapValues(\.line), path)
      XCTAssertEqual(Set(redacted.threadNames.keys), Set(trace.threadNames.keys), path)
      XCTAssertEqual(redacted.marks.map(\.fields.count), trace.marks.map(\.fields.count), path)
      TraceFixtures.assertNoNewDiagnostics(redactedReading, comparedTo: reading, path)
      XCTAssertEqual(
        ReplayEngine(trace: redacted).eventCount, ReplayEngine(trace: trace).eventCount, path)
    }
  }

  func testRedactingARedactedRecordingAgainChangesNothing() throws {
    for path in try TraceFixtures.recordings() {
      let (trace, _) = try TraceFixtures.read(path)
      let once = redact(trace)
      let (twice, summary) = redact(try TraceFixtures.read(once.bytes, path).trace)
      XCTAssertEqual(
        String(decoding: twice, as: UTF8.self), String(decoding: once.bytes, as: UTF8.self), path)
      XCTAssertTrue(Redaction.Field.allCases.allSatisfy { summary.count(of: $0) == 0 }, path)
      XCTAssertGreaterThan(summary.alreadyRedacted, 0, path)
    }
  }

  // MARK: - Tokens

  func testTheSameStringGivesTheSameTokenOnEveryRunAndMachine() {
    // Pinned: a token that changed would no longer match earlier redactions of the same app.
    XCTAssertEqual(Redaction().token(for: "app.cache"), Redaction().token(for: "app.cache"))
    XCTAssertEqual(Redaction().token(for: "app.cache"), "r:c9e4e88fe31af1274f0262eba28e0f49")
  }

  func testTokensAreShortAndDifferentSaltsGiveUnrelatedOnes() {
    let token = Redaction().token(for: "app.cache")
    XCTAssertTrue(token.hasPrefix(Redaction.tokenPrefix))
    XCTAssertEqual(token.count, 34, "r:, 24 hex digits of the hash (96 bits), 8 of its check")
    XCTAssertTrue(token.dropFirst(2).allSatisfy { $0.isHexDigit && !$0.isUppercase })
    XCTAssertNotEqual(Redaction(salt: "a").token(for: "app.cache"), token)
    XCTAssertNotEqual(
      Redaction(salt: "a").token(for: "app.cache"), Redaction(salt: "b").token(for: "app.cache"))
    XCTAssertEqual(
      Redaction(salt: "a").token(for: "app.cache"), Redaction(salt: "a").token(for: "app.cache"))
    XCTAssertNotEqual(Redaction().token(for: "app.cache"), Redaction().token(for: "app.cachf"))
  }

  /// Tokens are long enough not to meet by chance: 100,000 distinct strings, 100,000 tokens (the
  /// old 48-bit hash met at about 16 million; 96 bits need about 2⁴⁸).
  func testDistinctStringsGiveDistinctTokens() {
    let redaction = Redaction(salt: "s")
    let tokens = Set((0..<100_000).map { redaction.token(for: "queue.\($0)") })
    XCTAssertEqual(tokens.count, 100_000)
  }

  func testOnlyTokensOfTheSameSaltCountAsRedacted() {
    let redaction = Redaction(salt: "s")
    let token = redaction.token(for: "app.cache")
    XCTAssertTrue(redaction.isRedacted(token))
    XCTAssertFalse(Redaction(salt: "t").isRedacted(token), "another salt's token")
    XCTAssertFalse(redaction.isRedacted("r:abcd"), "too short")
    XCTAssertFalse(
      redaction.isRedacted(token.uppercased().replacingOccurrences(of: "R:", with: "r:")))
    // The right shape with a check that does not hold: original data, however it looks.
    var last = token.last == "0" ? "1" : "0"
    XCTAssertFalse(redaction.isRedacted(String(token.dropLast()) + last))
    last = "x"
    XCTAssertFalse(redaction.isRedacted(String(token.dropLast()) + last))
    XCTAssertFalse(redaction.isRedacted(token + "0"))
    XCTAssertFalse(redaction.isRedacted(" " + token))
  }

  func testAStringThatOnlyLooksRedactedIsReplacedLikeAnyOther() throws {
    let lookalikes = [
      "r:abcd", "r:0123456789abcdef0123456789abcdef", Redaction(salt: "other").token(for: "x"),
    ]
    var lines = [TraceFixtures.header]
    for (index, label) in lookalikes.enumerated() {
      lines.append(
        #"{"t":0,"e":"scheduler","q":\#(index + 1),"label":"\#(label)","kind":"serial","family":"virtual"}"#
      )
    }
    lines.append(#"{"t":0,"e":"close","events":0,"dropped":0}"#)
    let trace = try TraceFixtures.read(TraceFixtures.trace(lines)).trace
    let (redacted, summary) = Redaction().redact(trace)
    XCTAssertEqual(summary.count(of: .label), 3)
    XCTAssertEqual(summary.alreadyRedacted, 0)
    for (index, label) in lookalikes.enumerated() {
      XCTAssertEqual(redacted.schedulers[UInt32(index + 1)]?.label, Redaction().token(for: label))
    }
  }

  func testWithASaltThePIDBecomesANegativeNumberThatASecondRunKeeps() {
    let redaction = Redaction(salt: "s")
    let pid = redaction.redactedPID(16547)
    XCTAssertLessThan(pid, 0, "real pids are positive")
    XCTAssertEqual(redaction.redactedPID(16547), pid)
    XCTAssertEqual(redaction.redactedPID(pid), pid)
    XCTAssertNotEqual(Redaction(salt: "x").redactedPID(16547), pid)
    XCTAssertNotEqual(Redaction(salt: "x").redactedPID(pid), pid, "another salt's pid")
    XCTAssertEqual(redaction.redactedPID(0), 0, "no pid stays no pid")
    XCTAssertLessThan(redaction.redactedPID(-5), 0)
    XCTAssertNotEqual(redaction.redactedPID(-5), -5, "a negative pid that is not ours")
    XCTAssertNotEqual(redaction.redactedPID(.min), .min)
    XCTAssertNotEqual(redaction.redactedPID(.max), .max)
  }

  func testWithoutASaltThePIDIsDroppedForItsHashWouldBeFoundByTryingEveryPID() throws {
    let (trace, _) = try TraceFixtures.read(Recordings.path("busy-app"))
    XCTAssertNotEqual(trace.header.pid, 0)
    let (redacted, summary) = Redaction().redact(trace)
    XCTAssertEqual(redacted.header.pid, 0)
    XCTAssertEqual(summary.count(of: .pid), 1)
    XCTAssertEqual(Redaction().redactedPID(16547), 0)
    XCTAssertEqual(Redaction().redactedPID(Redaction(salt: "s").redactedPID(16547)), 0)
    let salted = Redaction(salt: "s").redact(trace).trace.header.pid
    XCTAssertLessThan(salted, 0)
    // With the salt's key unknown, the hashes of all pids say nothing of which one it was.
    XCTAssertNotEqual(Redaction(salt: "t").redactedPID(trace.header.pid), salted)
  }

  // MARK: - Threads

  /// A trace with `threads` (id, name), each running one action on queue 1.
  private func traceWithThreads(_ threads: [(UInt32, String)]) throws -> Trace {
    var lines = [
      TraceFixtures.header,
      #"{"t":0,"e":"scheduler","q":1,"label":"app.io","kind":"concurrent","family":"virtual"}"#,
    ]
    for (index, (id, name)) in threads.enumerated() {
      lines.append(#"{"t":\#(index),"e":"thread","th":\#(id),"name":"\#(name)"}"#)
      lines.append(
        #"{"t":\#(index),"e":"schedule","a":\#(index + 1),"q":1,"mode":"async","due":\#(index),"th":\#(id)}"#
      )
    }
    lines.append(#"{"t":99,"e":"close","events":\#(threads.count),"dropped":0}"#)
    return try TraceFixtures.read(TraceFixtures.trace(lines)).trace
  }

  func testTwoThreadsWithTheSameCutNameGetDifferentTokens() throws {
    // Linux keeps 15 bytes of a name, Dispatch its end: every worker reads "-qos.overcommit".
    let trace = try traceWithThreads([
      (1, "main"), (2, "-qos.overcommit"), (3, "-qos.overcommit"), (4, "app.pool"), (5, "app.pool"),
    ])
    let (redacted, summary) = Redaction().redact(trace)
    let (cutA, cutB) = (
      try XCTUnwrap(redacted.threadNames[2]), try XCTUnwrap(redacted.threadNames[3])
    )
    XCTAssertNotEqual(cutA, cutB, "a cut name names no thread: two threads stay apart")
    XCTAssertTrue(Redaction().isRedacted(cutA) && Redaction().isRedacted(cutB))
    XCTAssertEqual(redacted.threadNames[4], redacted.threadNames[5], "a whole name is one name")
    XCTAssertEqual(redacted.threadNames[4], Redaction().token(for: "app.pool"))
    XCTAssertEqual(redacted.threadNames[1], "main", "the format's word")
    XCTAssertEqual(summary.count(of: .threadName), 4)
    let titles = ReplayEngine(trace: redacted).threads.map(\.title)
    XCTAssertEqual(Set(titles).count, titles.count, "\(titles)")
    let again = Redaction().redact(redacted)
    XCTAssertEqual(again.trace.threadNames, redacted.threadNames, "idempotent")
    XCTAssertEqual(again.summary.count(of: .threadName), 0)
  }

  func testKeepKeepsThreadNamesItMatchesWholeAndMainStaysMain() throws {
    let trace = try traceWithThreads([(1, "main"), (2, "app.io-1"), (3, "secret.worker")])
    let (redacted, summary) = try Redaction(keepPattern: #"app\..*"#).redact(trace)
    XCTAssertEqual(redacted.threadNames[1], "main")
    XCTAssertEqual(redacted.threadNames[2], "app.io-1")
    XCTAssertEqual(redacted.threadNames[3], Redaction().token(for: "secret.worker"))
    XCTAssertEqual(summary.countKept(of: .threadName), 1)
    XCTAssertEqual(summary.countKept(of: .label), 1)
    XCTAssertEqual(summary.count(of: .threadName), 1)
    XCTAssertTrue(
      summary.description.contains("1 thread name (1 kept by --keep)"), summary.description)
  }

  // MARK: - The header's start

  private func header(start: String, extra: String = "") -> [UInt8] {
    TraceFixtures.trace([
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"\#(start)","process":"p","pid":7,"metadata":{}\#(extra)}"#,
      #"{"t":0,"e":"close","events":0,"dropped":0}"#,
    ])
  }

  func testTextAfterTheStartTimeIsRedactedWithOrWithoutASalt() throws {
    let trace = try TraceFixtures.read(header(start: "2026-11-21T23:46:35Z alice@example.com"))
      .trace
    for redaction in [Redaction(), Redaction(salt: "s")] {
      let (redacted, summary) = redaction.redact(trace)
      XCTAssertEqual(
        redacted.header.start, "2026-11-21T23:46:35Z " + redaction.token(for: "alice@example.com"))
      XCTAssertEqual(summary.count(of: .other), 1)
      try assertNothingSurvives(
        of: trace, in: TraceEncoder.encode(redacted), "start", also: ["alice", "example.com"])
      XCTAssertEqual(redaction.redact(redacted).trace.header, redacted.header, "idempotent")
    }
  }

  func testAStartThatIsATimeIsKeptWholeAndOneThatOnlyBeginsLikeOneIsNot() throws {
    let kept = [
      "2026-11-21T23:46:35Z", "2026-11-21T23:46:35.123456789Z", "2026-11-21T23:46:35+01:00",
      "2026-11-21T23:46:35",
    ]
    for start in kept {
      let trace = try TraceFixtures.read(header(start: start)).trace
      XCTAssertEqual(Redaction().redact(trace).trace.header.start, start)
    }
    let replaced = [
      "2026-13-21T23:46:35Z", "2026-11-21 23:46:35Z", "tomorrow 2026-11-21T23:46:35Z",
    ]
    for start in replaced {
      let trace = try TraceFixtures.read(header(start: start)).trace
      XCTAssertEqual(Redaction().redact(trace).trace.header.start, Redaction().token(for: start))
    }
    let glued = try TraceFixtures.read(header(start: "2026-11-21T23:46:35Zbob")).trace
    XCTAssertEqual(
      Redaction().redact(glued).trace.header.start,
      "2026-11-21T23:46:35Z " + Redaction().token(for: "bob"))
  }

  // MARK: - Dropping what is kept

  func testDropLeavesOutTheStartTheCoresTheLinesAndTheTaskIDs() throws {
    let (trace, _) = try TraceFixtures.read(Recordings.path("async-actors"))
    XCTAssertNotNil(trace.header.startNanoseconds)
    XCTAssertNotNil(trace.header.cores)
    let tasks = trace.events.compactMap(\.task)
    XCTAssertFalse(tasks.isEmpty)
    let (redacted, summary) = Redaction(drop: Set(Redaction.Drop.allCases)).redact(trace)
    XCTAssertEqual(redacted.header.start, "")
    XCTAssertNil(redacted.header.startNanoseconds)
    XCTAssertNil(redacted.header.cores)
    XCTAssertTrue(redacted.callSites.values.allSatisfy { $0.line == 0 })
    // Renumbered in order of appearance: the same task keeps one number.
    var numbers: [UInt64: UInt64] = [:]
    for (old, new) in zip(tasks, redacted.events.compactMap(\.task)) {
      XCTAssertEqual(numbers[old, default: new], new)
      numbers[old] = new
    }
    XCTAssertEqual(Set(numbers.values), Set(1...UInt64(Set(tasks).count)))
    XCTAssertEqual(redacted.events.map(\.time), trace.events.map(\.time), "times are kept")
    XCTAssertTrue(
      summary.description.hasSuffix(
        "; dropped the start time, the core count, source lines, task ids (renumbered)"),
      summary.description)
    let (bytes, _) = redact(trace, Redaction(drop: Set(Redaction.Drop.allCases)))
    let (again, reading) = try TraceFixtures.read(bytes, "dropped")
    XCTAssertEqual(reading.warningCount, 0, "\(reading.diagnostics)")
    XCTAssertEqual(again.events, redacted.events)
  }

  // MARK: - Line lengths

  func testAHeaderNearTheLineLimitBecomesARedactedFileThatReads() throws {
    let entries = (0..<75_000).map { #""k\#($0)":"""# }.joined(separator: ",")
    let input = header(start: "2026-11-21T23:46:35Z", extra: "")
      .split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    let long = input[0].replacingOccurrences(
      of: #""metadata":{}"#,
      with: #""metadata":{"slice_from_ns":"5","slice_to_ns":"9",\#(entries)}"#)
    XCTAssertGreaterThan(long.utf8.count, TraceReader.maximumLineLength - 200_000)
    XCTAssertLessThan(long.utf8.count, TraceReader.maximumLineLength)
    let trace = try TraceFixtures.read(TraceFixtures.trace([long, input[1]])).trace
    let (bytes, summary) = redact(trace)
    let (redacted, _) = try TraceFixtures.read(bytes, "redacted")
    let headerLength = try XCTUnwrap(bytes.firstIndex(of: UInt8(ascii: "\n")))
    XCTAssertLessThanOrEqual(headerLength, TraceReader.maximumLineLength)
    XCTAssertEqual(redacted.header.metadata["slice_from_ns"], "5", "the format's keys first")
    XCTAssertEqual(redacted.header.metadata["slice_to_ns"], "9")
    let shortening = try XCTUnwrap(summary.shortened.first)
    XCTAssertEqual(shortening.line, .header)
    XCTAssertEqual(shortening.entries, 75_002)
    XCTAssertEqual(shortening.leftOut, 75_002 - redacted.header.metadata.count)
    XCTAssertGreaterThan(shortening.length, TraceReader.maximumLineLength)
    XCTAssertTrue(
      summary.description.contains(
        "the header would be \(shortening.length) bytes long, over the 1048576 a line may hold: left out \(shortening.leftOut) of its 75002 metadata entries"
      ), summary.description)
    XCTAssertEqual(redact(redacted).bytes, bytes, "idempotent")
  }

  /// A trace with one line of 80,000 short fields (`line(fields)`, at t = 1, after a thread and
  /// a queue): redacted, the line keeps what a reader reads, and the summary says which line and
  /// how much it left out.
  private func assertALineOfManyFieldsReads(
    _ line: (String) -> [String], as expected: Redaction.Shortening.Line, events: Int,
    described: String, keptFields: (Trace) -> Int, file: StaticString = #filePath,
    lineNumber: UInt = #line
  ) throws {
    let fields = (0..<80_000).map { #""f\#($0)":"""# }.joined(separator: ",")
    let lines =
      [
        TraceFixtures.header, #"{"t":0,"e":"thread","th":1,"name":"main"}"#,
        #"{"t":0,"e":"scheduler","q":1,"label":"q","kind":"serial","family":"dispatch"}"#,
      ] + line(fields) + [#"{"t":2,"e":"close","events":\#(events),"dropped":0}"#]
    let trace = try TraceFixtures.read(TraceFixtures.trace(lines)).trace
    let (bytes, summary) = redact(trace)
    let (redacted, _) = try TraceFixtures.read(bytes, "redacted")
    XCTAssertEqual(redacted.events.count, events, file: file, line: lineNumber)
    XCTAssertEqual(summary.shortened.first?.line, expected, file: file, line: lineNumber)
    XCTAssertEqual(summary.shortened.first?.entries, 80_000, file: file, line: lineNumber)
    XCTAssertEqual(
      summary.shortened.first?.leftOut, 80_000 - keptFields(redacted), file: file,
      line: lineNumber)
    XCTAssertGreaterThan(keptFields(redacted), 0, "what fits is kept", file: file, line: lineNumber)
    XCTAssertTrue(
      summary.description.contains(described), summary.description, file: file, line: lineNumber)
  }

  func testAMarkWithManyShortFieldsBecomesALineThatReads() throws {
    try assertALineOfManyFieldsReads(
      { [#"{"t":1,"e":"mark","th":1,"name":"m","fields":{\#($0)}}"#] }, as: .mark(0, time: 1),
      events: 1, described: "; the mark at 0.000000s would be ",
      keptFields: { $0.marks.first?.fields.count ?? 0 })
  }

  func testNamedWorkWithManyShortValuesBecomesALineThatReads() throws {
    try assertALineOfManyFieldsReads(
      {
        [
          #"{"t":1,"e":"schedule","a":1,"q":1,"mode":"async","due":1,"th":1}"#,
          #"{"t":1,"e":"work","a":1,"name":"w","fields":{\#($0)}}"#,
        ]
      }, as: .work(0, time: 1), events: 2,
      described: "the work line at 0.000000s would be ",
      keptFields: { $0.works.first?.fields.count ?? 0 })
  }

  // MARK: - Keep and summary

  func testKeepKeepsOnlyTheLabelsItMatchesWhole() throws {
    let (trace, _) = try TraceFixtures.read(Recordings.path("busy-app"))
    let redaction = try Redaction(keepPattern: #"main|app\.cache"#)
    let (redacted, summary) = redaction.redact(trace)
    let labels = Set(redacted.schedulers.values.map(\.label))
    XCTAssertTrue(labels.contains("main"))
    XCTAssertTrue(labels.contains("app.cache"))
    XCTAssertFalse(labels.contains { $0.hasPrefix("app.request") }, "a partial match is no match")
    XCTAssertEqual(summary.countKept(of: .label), 2)
    XCTAssertEqual(summary.count(of: .label), trace.schedulers.count - 2)
    let bytes = TraceEncoder.encode(redacted)
    try assertNothingSurvives(of: trace, in: bytes, "busy-app", kept: ["main", "app.cache"])
  }

  func testAKeepPatternThatIsNotARegularExpressionIsAnError() {
    XCTAssertThrowsError(try Redaction(keepPattern: "(unclosed")) { error in
      XCTAssertTrue("\(error)".contains("(unclosed"), "\(error)")
    }
    XCTAssertNoThrow(try Redaction(keepPattern: nil))
  }

  func testTheSummaryCountsWhatWasReplacedPerKind() throws {
    let (trace, _) = try TraceFixtures.read(Recordings.path("busy-app"))
    let (_, summary) = Redaction().redact(trace)
    XCTAssertEqual(summary.count(of: .label), trace.schedulers.count)
    XCTAssertEqual(summary.count(of: .file), trace.callSites.count)
    XCTAssertEqual(summary.count(of: .function), trace.callSites.count)
    XCTAssertEqual(
      summary.count(of: .threadName),
      trace.threadNames.values.count { !$0.isEmpty && $0 != "main" })
    XCTAssertEqual(summary.count(of: .markName), trace.marks.count)
    XCTAssertEqual(summary.count(of: .markField), trace.marks.reduce(0) { $0 + $1.fields.count })
    XCTAssertEqual(summary.count(of: .metadata), trace.header.metadata.count)
    XCTAssertEqual(summary.count(of: .process), 1)
    XCTAssertEqual(summary.count(of: .pid), 1)
    XCTAssertEqual(summary.count(of: .other), 0)
    XCTAssertTrue(summary.description.hasPrefix("replaced \(trace.schedulers.count) labels, "))
    XCTAssertTrue(summary.description.contains(", 2 metadata entries"), summary.description)
  }

  // MARK: - Hostile traces

  func testHostileStringsAreReplacedAndTheOutputStillValidates() throws {
    let long = String(repeating: "é", count: TraceLimits.maximumStringLength / 2)  // 65,536 bytes
    let lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"not a date at all","process":"Secret\u0000App\u001b[2J","pid":-77,"cores":4,"start_ns":123456789,"metadata":{"user\"email":"someone@example.com","slice_from_ns":"12e3","slice_to_ns":"1000","slice_of":"/home/someone/bug.trace"}}"#,
      #"{"t":5,"e":"thread","th":1,"name":"main"}"#,
      #"{"t":5,"e":"thread","th":7,"name":"worker\ttab\u202eright-to-left"}"#,
      #"{"t":5,"e":"scheduler","q":1,"label":"\#(long)","kind":"custom-kind-secret","family":"acme-family-secret"}"#,
      #"{"t":5,"e":"site","site":1,"file":"Secret/Module/File😀.swift","line":2147483647,"func":"handle(password:)"}"#,
      #"{"t":5,"e":"schedule","a":1,"q":1,"mode":"after","delay":10,"due":15,"th":1,"site":1}"#,
      #"{"t":6,"e":"mark","th":1,"name":"login \"tapped\" by someone","fields":{"account\\id":"12345678","token":"r:abcd"}}"#,
      #"{"t":15,"e":"hop","a":1,"from":1,"to":7}"#,
      #"{"t":15,"e":"begin","a":1,"th":7,"run":1}"#,
      #"{"t":16,"e":"crash","signal":"SIGSECRETSIGNAL","th":7}"#,
    ]
    let input = TraceFixtures.trace(lines)
    let (trace, reading) = try TraceFixtures.read(input)
    XCTAssertEqual(trace.schedulers[1]?.label.utf8.count, TraceLimits.maximumStringLength)
    let (bytes, summary) = redact(trace)
    let (redacted, redactedReading) = try TraceFixtures.read(bytes, "redacted")
    // The same warnings; their texts differ where they quote the (redacted) signal.
    XCTAssertEqual(redactedReading.warningCount, reading.warningCount)
    XCTAssertEqual(redacted.events, trace.events)
    XCTAssertEqual(redacted.crash?.thread, 7)
    XCTAssertEqual(redacted.crash?.time, 16)
    XCTAssertEqual(redacted.callSites[1]?.line, 2_147_483_647)
    XCTAssertEqual(redacted.header.startNanoseconds, 123_456_789)
    XCTAssertEqual(redacted.header.cores, 4)
    XCTAssertEqual(redacted.header.metadata["slice_to_ns"], "1000", "a time, kept")
    XCTAssertNotEqual(redacted.header.metadata["slice_from_ns"], "12e3", "not a plain number")
    XCTAssertNotEqual(redacted.header.start, trace.header.start, "not a date: replaced")
    XCTAssertEqual(redacted.header.pid, 0, "no salt: dropped")
    XCTAssertEqual(summary.count(of: .other), 4, "kind, family, signal, start")
    // The slice keys and a plain-number slice time are kept by design (docs/Sharing.md).
    try assertNothingSurvives(
      of: trace, in: bytes, "hostile", kept: ["slice_of", "slice_from_ns", "slice_to_ns", "1000"],
      also: [
        "not a date at all", "custom-kind-secret", "acme-family-secret", "SIGSECRETSIGNAL",
        "someone", "Secret", "password", "tapped", "right-to-left", "bug.trace", "12e3",
      ])
    let again = redact(redacted)
    XCTAssertEqual(again.bytes, bytes, "idempotent on hostile input too")
  }
}

/// The JSON escaping of the writer, for looking strings up in its output.
enum TraceFileWriterProbe {
  static func jsonEscaped(_ text: String) -> [UInt8] {
    var encoder = TraceEncoder()
    encoder.thread(id: 0, name: text, time: 0)
    let line = encoder.bytes
    // {"t":0,"e":"thread","th":0,"name":"…"}\n
    let prefix = Array(#"{"t":0,"e":"thread","th":0,"name":""#.utf8).count
    return Array(line[prefix..<(line.count - 3)])
  }
}
