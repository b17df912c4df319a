import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The reader on good and bad input. Trace files come from bug reports: every bad line must
/// give a clear error with its position, and nothing may crash.
final class TraceReaderTests: XCTestCase {
  private let header =
    #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"2026-11-21T10:00:00Z","process":"app","pid":42,"metadata":{"build":"7"}}"#
  private let scheduler =
    #"{"t":0,"e":"scheduler","q":1,"label":"db","kind":"serial","family":"dispatch"}"#
  private let schedule = #"{"t":10,"e":"schedule","a":1,"q":1,"mode":"async","due":10,"th":1}"#

  private let close = #"{"t":1000000000,"e":"close","events":0,"dropped":0}"#

  /// Reads `lines` as a file. A trace with a header is closed as a recorder closes it (unless it
  /// has its own end marker, or `finalNewline` is false), so each test sees only its own problem.
  private func read(_ lines: [String], finalNewline: Bool = true) -> TraceReading {
    var lines = lines
    if finalNewline, lines.contains(where: { $0.contains(#""format""#) }),
      !lines.contains(where: { $0.contains(#""e":"close""#) })
    {
      lines.append(close)
    }
    let text = lines.joined(separator: "\n") + (finalNewline ? "\n" : "")
    return TraceReader.parse(Array(text.utf8), file: "bug.trace")
  }

  private func only(_ reading: TraceReading, file: StaticString = #filePath, line: UInt = #line)
    -> TraceDiagnostic?
  {
    XCTAssertEqual(reading.diagnostics.count, 1, "\(reading.diagnostics)", file: file, line: line)
    return reading.diagnostics.first
  }

  // MARK: Good input

  func testAWellFormedTraceReadsWithoutDiagnostics() throws {
    let reading = read([
      header, scheduler,
      #"{"t":1,"e":"thread","th":1,"name":"main"}"#,
      #"{"t":2,"e":"site","site":1,"file":"App/Loader.swift","line":12,"func":"load()"}"#,
      #"{"t":10,"e":"schedule","a":1,"q":1,"mode":"after","delay":5,"due":15,"th":1,"site":1}"#,
      #"{"t":15,"e":"hop","a":1,"from":1,"to":2}"#,
      #"{"t":15,"e":"begin","a":1,"th":2,"run":1}"#,
      #"{"t":18,"e":"end","a":1,"th":2,"run":1,"dur":3}"#,
      #"{"t":19,"e":"mark","th":1,"name":"login tapped","fields":{"user":"ada"}}"#,
      #"{"t":20,"e":"close","events":5,"dropped":0}"#,
    ])
    XCTAssertEqual(reading.diagnostics, [])
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertEqual(trace.header.process, "app")
    XCTAssertEqual(trace.header.metadata, ["build": "7"])
    XCTAssertEqual(trace.events.map(\.kind), [.schedule, .hop, .begin, .end, .mark])
    XCTAssertEqual(trace.events[0].delay, 5)
    XCTAssertEqual(trace.events[0].due, 15)
    XCTAssertEqual(trace.events[1].fromThread, 1)
    XCTAssertEqual(trace.events[3].duration, 3)
    XCTAssertEqual(trace.callSites[1]?.function, "load()")
    XCTAssertEqual(trace.threadNames[1], "main")
    XCTAssertEqual(trace.marks.first, MarkRecord(name: "login tapped", fields: ["user": "ada"]))
    XCTAssertEqual(trace.closing, Trace.Closing(written: 5, dropped: 0))
  }

  func testEncodingThenReadingGivesBackTheSameTrace() throws {
    var original = Trace(
      header: TraceHeader(
        clock: .virtual, start: "2026-11-21T10:00:00Z", process: "tests", pid: 7,
        metadata: ["test": "round \"trip\"\n\u{1}"]))
    original.header.cores = 3
    original.header.startNanoseconds = 1_795_000_000_123_456_789
    original.schedulers[1] = SchedulerRecord(
      id: 1, label: "q ✓ 漢", kind: "serial", family: "virtual", time: 0)
    original.callSites[3] = CallSiteRecord(id: 3, file: "A/B.swift", line: 9, function: "f(_:)")
    original.threadNames[1] = "main"
    original.marks = [MarkRecord(name: "tab\there", fields: ["k": "v"])]
    original.events = [
      .schedule(
        time: 0, action: 1, scheduler: 1, mode: .repeating, delay: 100, due: 100, thread: 1,
        parent: 0, site: 3),
      .schedule(
        time: 1, action: 2, scheduler: 1, mode: .sync, delay: 0, due: 1, thread: 1, parent: 1,
        site: 0),
      .task(time: 1, action: 2, task: 42),
      .begin(time: 100, action: 1, thread: 1, run: 1),
      .end(time: 110, action: 1, thread: 1, run: 1, duration: 10),
      .hop(time: 120, action: 2, from: 1, to: 3),
      .cancel(time: 130, action: 1, thread: 1, by: 2, started: true),
      .mark(time: 140, thread: 1, mark: 0),
    ]
    original.closing = Trace.Closing(written: 8, dropped: 1)
    let reading = TraceReader.parse(TraceEncoder.encode(original), file: "round-trip")
    XCTAssertEqual(reading.diagnostics, [])
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertEqual(trace.header, original.header)
    XCTAssertEqual(trace.events, original.events)
    XCTAssertEqual(trace.schedulers, original.schedulers)
    XCTAssertEqual(trace.callSites, original.callSites)
    XCTAssertEqual(trace.threadNames, original.threadNames)
    XCTAssertEqual(trace.marks, original.marks)
    XCTAssertEqual(trace.closing, original.closing)
  }

  func testATaskLineSaysWhoseWorkAnActionIsAndIsCheckedLikeAnyLine() throws {
    let reading = read([header, scheduler, schedule, #"{"t":10,"e":"task","a":1,"task":7}"#])
    XCTAssertEqual(reading.diagnostics, [])
    let events = try XCTUnwrap(reading.trace?.events)
    XCTAssertEqual(events.map(\.kind), [.schedule, .task])
    XCTAssertEqual(events[1].action, 1)
    XCTAssertEqual(events[1].task, 7)
    XCTAssertNil(events[0].task, "a schedule names no task")

    XCTAssertEqual(
      only(read([header, scheduler, schedule, #"{"t":10,"e":"task","a":1,"task":0}"#]))?.message,
      #"field "task" must be between 1 and 4611686018427387903, found 0"#)
    XCTAssertEqual(
      only(
        read([
          header, scheduler, schedule, #"{"t":10,"e":"task","a":1,"task":4611686018427387904}"#,
        ]))?.message,
      #"field "task" must be between 1 and 4611686018427387903, found 4611686018427387904"#)
    XCTAssertEqual(
      only(read([header, scheduler, schedule, #"{"t":10,"e":"task","a":1}"#]))?.message,
      #"missing field "task" in a task line"#)
    let stray = only(read([header, scheduler, #"{"t":10,"e":"task","a":3,"task":7}"#]))
    XCTAssertEqual(stray?.severity, .warning)
    XCTAssertEqual(stray?.message, "action #3 is named work of task 7 but was never scheduled")
  }

  func testAStartInstantOutsideItsRangeIsAnErrorNamingTheRange() {
    let late = header.replacingOccurrences(of: #""pid":42"#, with: #""pid":42,"start_ns":-5"#)
    XCTAssertEqual(
      only(read([late]))?.message,
      #"field "start_ns" must be between 0 and 4611686018427387903 (2^62 - 1 ns), found -5"#)
  }

  func testUnknownFieldsAndUnknownEventTypesAreIgnored() {
    let reading = read([
      header, scheduler,
      #"{"t":10,"e":"schedule","a":1,"q":1,"mode":"async","due":10,"th":1,"future":{"x":[1,2.5,null]},"flag":true}"#,
      #"{"t":11,"e":"gc-pause","th":1,"ms":3.5}"#,
    ])
    XCTAssertEqual(reading.diagnostics, [])
    XCTAssertEqual(reading.trace?.events.count, 1)
  }

  func testWindowsLineEndingsAndBlankLinesAreAccepted() {
    let text = header + "\r\n\r\n" + scheduler + "\r\n" + schedule + "\r\n" + close + "\r\n"
    let reading = TraceReader.parse(Array(text.utf8), file: "crlf.trace")
    XCTAssertEqual(reading.diagnostics, [])
    XCTAssertEqual(reading.trace?.events.count, 1)
  }

  // MARK: Bad lines: errors with file, line, column and reason

  func testUnterminatedStringIsAnErrorAtItsPosition() {
    let diagnostic = only(read([header, #"{"t":1,"e":"mark","th":1,"name":"oops}"#, scheduler]))
    XCTAssertEqual(diagnostic?.severity, .error)
    XCTAssertEqual(diagnostic?.file, "bug.trace")
    XCTAssertEqual(diagnostic?.line, 2)
    XCTAssertEqual(diagnostic?.column, 39)
    XCTAssertEqual(diagnostic?.message, "unterminated string (opened at column 33)")
    XCTAssertEqual(
      diagnostic?.description, "bug.trace:2:39: error: unterminated string (opened at column 33)")
  }

  func testInvalidUTF8IsAnError() {
    var bytes = Array((header + "\n").utf8)
    bytes +=
      Array(#"{"t":1,"e":"mark","th":1,"name":"a"#.utf8) + [0xC3, 0x28] + Array("\"}\n".utf8)
    bytes += Array((close + "\n").utf8)
    let reading = TraceReader.parse(bytes, file: "bug.trace")
    let diagnostic = only(reading)
    XCTAssertEqual(diagnostic?.line, 2)
    XCTAssertEqual(diagnostic?.column, 36)
    XCTAssertEqual(diagnostic?.message, "invalid UTF-8: bad continuation byte 0x28")
  }

  func testOverlongAndSurrogateEncodingsAreRejected() {
    for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF]] {
      var bytes = Array((header + "\n").utf8)
      bytes += Array(#"{"t":1,"e":"mark","th":1,"name":""#.utf8) + bad + Array("\"}\n".utf8)
      let reading = TraceReader.parse(bytes, file: "bug.trace")
      XCTAssertTrue(reading.hasErrors, "\(bad)")
      XCTAssertTrue(
        reading.diagnostics.first?.message.hasPrefix("invalid UTF-8") ?? false, "\(bad)")
    }
  }

  func testWrongTypesNameTheFieldAndWhatWasFound() {
    let reading = read([
      header, scheduler,
      #"{"t":"10","e":"begin","a":1,"th":1}"#,
      #"{"t":10,"e":"begin","a":1.5,"th":1}"#,
      #"{"t":10,"e":"cancel","a":1,"th":1,"started":"yes"}"#,
      #"{"t":10,"e":"schedule","a":1,"q":1,"mode":"later","due":10,"th":1}"#,
      #"{"t":10,"e":"begin","a":0,"th":1}"#,
      #"{"t":10,"e":"begin","a":99999999999,"th":1}"#,
      #"{"t":-5,"e":"begin","a":1,"th":1}"#,
      #"{"t":10,"e":"end","a":1,"th":1}"#,
    ])
    XCTAssertEqual(
      reading.diagnostics.map { "\($0.line):\($0.column): \($0.message)" },
      [
        #"3:6: field "t" must be an integer, found a string"#,
        #"4:25: field "a" must be an integer, found a number with a fraction or exponent"#,
        #"5:45: field "started" must be true or false, found a string"#,
        #"6:43: unknown mode "later" (expected async, sync, after or repeating)"#,
        #"7:25: field "a" must be a positive id, found 0"#,
        #"8:25: field "a" must be between 0 and 4294967295, found 99999999999"#,
        #"9:6: field "t" must be between 0 and 4611686018427387903 (2^62 - 1 ns), found -5"#,
        #"10:1: missing field "dur" in a end line"#,
      ])
  }

  func testHugeNumbersAreErrorsNotCrashes() {
    let diagnostic = only(
      read([header, #"{"t":123456789012345678901234567890,"e":"begin","a":1,"th":1}"#]))
    XCTAssertEqual(diagnostic?.column, 6)
    XCTAssertEqual(diagnostic?.message, "number too large: integers must fit in 64 bits")
  }

  func testAMissingHeaderIsAnErrorAndNoTraceIsMade() {
    let reading = read([schedule, scheduler])
    XCTAssertNil(reading.trace)
    XCTAssertEqual(reading.diagnostics.first?.line, 1)
    XCTAssertTrue(reading.diagnostics.first?.message.hasPrefix("missing header") ?? false)
  }

  func testEventsBeforeALateHeaderAreErrors() {
    let reading = read([scheduler, schedule, header, scheduler, schedule])
    XCTAssertEqual(reading.diagnostics.map(\.line), [1, 2])
    XCTAssertEqual(reading.diagnostics.last?.message, "event before the header")
    XCTAssertEqual(reading.trace?.events.count, 1)
  }

  func testAnEmptyFileIsAnError() {
    let reading = TraceReader.parse([UInt8](), file: "empty.trace")
    XCTAssertNil(reading.trace)
    XCTAssertTrue(reading.hasErrors)
  }

  func testAnUnknownMajorVersionStopsWithAClearError() {
    let newer = header.replacingOccurrences(of: #""version":1"#, with: #""version":2"#)
    let reading = read([newer, scheduler, schedule])
    XCTAssertNil(reading.trace)
    let diagnostic = only(reading)
    XCTAssertEqual(
      diagnostic?.message, "unsupported trace version 2; this chronoscope reads version 1")
  }

  func testALineOfManyMegabytesIsAnErrorAndTheRestIsRead() {
    let huge =
      #"{"t":1,"e":"mark","th":1,"name":""# + String(repeating: "x", count: 3 << 20) + #""}"#
    let reading = read([header, scheduler, huge, schedule])
    let diagnostic = only(reading)
    XCTAssertEqual(diagnostic?.line, 3)
    XCTAssertTrue(diagnostic?.message.contains("longer than 1048576 bytes") ?? false)
    XCTAssertEqual(reading.trace?.events.count, 1)
  }

  func testAHeaderLineOverTheLimitSaysItsLengthNotThatTheFileIsNoTrace() {
    let metadata = (0..<100_000).map { #""k\#($0)":"""# }.joined(separator: ",")
    let long = header.replacingOccurrences(
      of: #""metadata":{"build":"7"}"#, with: #""metadata":{\#(metadata)}"#)
    XCTAssertGreaterThan(long.utf8.count, TraceReader.maximumLineLength)
    let reading = read([long, scheduler, schedule])
    XCTAssertNil(reading.trace)
    let reason = reading.notATrace ?? ""
    XCTAssertTrue(reason.contains("the first line is \(long.utf8.count) bytes long"), reason)
    XCTAssertTrue(reason.contains("longer than 1048576 bytes"), reason)
    XCTAssertEqual(reading.diagnostics.count, 1, "\(reading.diagnostics)")
  }

  func testBinaryGarbageIsAnErrorThatNeverEchoesRawBytes() {
    var bytes = Array((header + "\n" + scheduler + "\n").utf8)
    bytes += [0x1B, 0x5B, 0x32, 0x4A, 0x00, 0xFF, 0x0A]  // ESC [2J NUL 0xFF
    bytes += Array((schedule + "\n" + close + "\n").utf8)
    let reading = TraceReader.parse(bytes, file: "bug.trace")
    let diagnostic = only(reading)
    XCTAssertEqual(diagnostic?.message, "expected '{' at the start of the line, found byte 0x1B")
    XCTAssertFalse(
      reading.diagnostics.contains { $0.description.unicodeScalars.contains { $0.value < 0x20 } })
  }

  func testControlCharactersInsideStringsMustBeEscaped() {
    let diagnostic = only(
      read([header, "{\"t\":1,\"e\":\"mark\",\"th\":1,\"name\":\"a\u{1B}[31m\"}"]))
    XCTAssertEqual(
      diagnostic?.message, "control character 0x1B inside a string (escape it as \\u00XX)")
  }

  func testStructuralMistakesAreReported() {
    let cases: [(String, String)] = [
      (
        #"{"t":1,"e":"begin","a":1,"th":1"#,
        "unterminated object: expected ',' or '}', found the end of the line"
      ),
      (#"{"t":1 "e":"begin"}"#, "expected ',' or '}', found '\"'"),
      (#"{"t":1,"e":"begin","a":1,"th":1} trailing"#, "unexpected 't' after the object"),
      (#"{t:1}"#, "expected a quoted key, found 't'"),
      (#"{"t":01,"e":"begin","a":1,"th":1}"#, "invalid number: leading zeros are not allowed"),
      (#"{"t":1,"e":"mark","th":1,"name":"\q"}"#, "invalid escape sequence '\\q'"),
      (#"{"t":1,"e":"mark","th":1,"name":"\u12"}"#, "invalid \\u escape: expected four hex digits"),
      (#"[1,2,3]"#, "expected '{' at the start of the line, found '['"),
    ]
    for (line, message) in cases {
      let reading = read([header, line, scheduler])
      XCTAssertEqual(reading.diagnostics.map(\.message), [message], line)
      XCTAssertEqual(reading.diagnostics.first?.line, 2, line)
    }
  }

  func testATruncatedFinalLineIsOnlyAWarningAsIsTheMissingEndMarker() {
    let reading = read([header, scheduler, schedule, #"{"t":12,"e":"beg"#], finalNewline: false)
    XCTAssertEqual(reading.diagnostics.map(\.severity), [.warning, .warning])
    XCTAssertEqual(reading.diagnostics.map(\.line), [4, 4])
    XCTAssertTrue(reading.diagnostics[0].message.hasPrefix("truncated final line"))
    XCTAssertTrue(reading.diagnostics[1].message.hasPrefix("the recording did not close"))
    XCTAssertFalse(reading.hasErrors)
    XCTAssertEqual(reading.trace?.events.count, 1)
  }

  func testABadLineInTheMiddleIsAnErrorEvenWithoutAFinalNewline() {
    let reading = read(
      [header, scheduler, #"{"t":12,"e":"beg"#, schedule, close], finalNewline: false)
    XCTAssertEqual(reading.diagnostics.map(\.severity), [.error])
  }

  func testTooManyProblemsAreSummarised() {
    let reading = read([header] + Array(repeating: "garbage", count: 500))
    XCTAssertEqual(reading.diagnostics.count, TraceReader.maximumDiagnostics + 1)
    XCTAssertEqual(reading.diagnostics.last?.message, "300 more problem(s) not shown")
  }

  /// Past the diagnostics shown, the reader makes no message for a bad line, but still counts
  /// it; every message shown is whole, whichever kind of failure made it (the scanner's or a
  /// field's).
  func testProblemsPastThoseShownAreCountedAndThoseShownAreWhole() {
    let bad = [
      "garbage", "{}", #"{"t":"a","e":"begin"}"#, #"{"t":-5,"e":"begin","a":1,"th":1}"#,
      #"{"t":1,"e":"begin","a":1,"th":1,"run":0}"#,
    ]
    let lines = (0..<300).map { bad[$0 % bad.count] }
    let reading = read([header] + lines + [close])
    XCTAssertEqual(reading.errorCount, 300)
    let shown = reading.diagnostics.dropLast()
    XCTAssertEqual(shown.count, TraceReader.maximumDiagnostics)
    XCTAssertTrue(shown.allSatisfy { $0.severity == .error && !$0.message.isEmpty })
    // The five kinds, in order, each time round.
    XCTAssertEqual(shown[0].message, shown[5].message)
    XCTAssertEqual(shown[199].message, shown[4].message)
    XCTAssertEqual(reading.diagnostics.last?.message, "100 more problem(s) not shown")
  }

  func testAFileThatIsNotATraceIsSaidOnceAndNotReadLineByLine() {
    let source = read(["// swift-tools-version: 6.0", "import PackageDescription", "let x = 1"])
    XCTAssertEqual(
      source.notATrace,
      "the first line is not a JSON object (expected '{' at the start of the line, found '/')")
    XCTAssertEqual(source.diagnostics.count, 1, "\(source.diagnostics)")
    XCTAssertEqual(
      read([#"{"name":"x"}"#, #"{"t":1}"#]).notATrace,
      #"the first line has no "format":"chronoscope-trace""#)
    let other = read([#"{"format":"other","version":1}"#, schedule])
    XCTAssertEqual(other.notATrace, #"its "format" is "other", not "chronoscope-trace""#)
    XCTAssertEqual(other.diagnostics.count, 1)
    XCTAssertEqual(TraceReader.parse([UInt8](), file: "empty.trace").notATrace, "the file is empty")
    XCTAssertNil(read([header, scheduler, schedule]).notATrace)
  }

  func testProblemsBeyondTheDiagnosticsCapAreStillCounted() {
    let reading = read([header] + Array(repeating: "garbage", count: 500))
    XCTAssertEqual(reading.errorCount, 500)
    XCTAssertEqual(reading.warningCount, 0)
  }

  func testAnUnreadableFileIsAnError() {
    let reading = TraceReader.read(path: "/nonexistent/chronoscope.trace")
    XCTAssertNil(reading.trace)
    XCTAssertEqual(reading.diagnostics.first?.message, "no such file")
  }

  func testAFIFOIsRefusedAtOnceWithoutWaitingForAWriter() throws {
    // Reading a FIFO waits in open() for a writer, then for its end: a trace is read from a
    // regular file only.
    let fifo = try temporaryFolder("reader-fifo").appendingPathComponent("t.trace").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let reading = FIFOWatchdog.run(reading: fifo, within: 10) { TraceReader.read(path: fifo) }
    let diagnostics = try XCTUnwrap(reading, "the read waited for a writer").diagnostics
    XCTAssertNil(reading?.trace)
    XCTAssertEqual(
      diagnostics.map(\.message),
      [
        "a FIFO, not a trace file: traces are read from regular files; save the stream to one first"
      ])
    XCTAssertEqual(diagnostics.first?.severity, .error)
  }

  // MARK: Semantic warnings

  func testSemanticOdditiesAreWarnings() {
    let reading = read([
      header, scheduler,
      #"{"t":10,"e":"begin","a":7,"th":1}"#,
      #"{"t":11,"e":"schedule","a":1,"q":1,"mode":"async","due":11,"th":1}"#,
      #"{"t":12,"e":"schedule","a":1,"q":1,"mode":"async","due":12,"th":1}"#,
      #"{"t":13,"e":"schedule","a":2,"q":9,"mode":"async","due":13,"th":1}"#,
      #"{"t":14,"e":"cancel","a":2,"th":1,"started":false}"#,
      #"{"t":15,"e":"begin","a":2,"th":2}"#,
      #"{"t":5,"e":"end","a":2,"th":2,"dur":1}"#,
    ])
    XCTAssertFalse(reading.hasErrors)
    XCTAssertEqual(
      reading.diagnostics.map { "\($0.line): \($0.message)" },
      [
        "3: action #7 begins but was never scheduled",
        "5: duplicate action id #1: it was already scheduled",
        "6: action #2 is scheduled on unknown scheduler 9",
        "8: action #2 begins after it was cancelled",
        "9: time goes backwards: 5 ns after a line at 15 ns (lines are written in time order)",
      ])
  }

  func testATraceWithoutItsEndMarkerIsWarnedAboutAtItsLastLine() throws {
    let reading = read([header, scheduler, schedule, ""], finalNewline: false)
    let diagnostic = try XCTUnwrap(only(reading))
    XCTAssertEqual(diagnostic.severity, .warning)
    XCTAssertEqual(diagnostic.line, 3, "the last line that is not blank")
    XCTAssertEqual(
      diagnostic.message,
      "the recording did not close: the process may have crashed or not called close(); the last moments may be missing"
    )
    XCTAssertNil(reading.trace?.closing)
    XCTAssertEqual(reading.trace?.events.count, 1, "everything recorded is still read")
  }

  func testHowARecordingEndedIsKeptWhateverTheNumberOfOtherProblems() {
    // 300 warnings, more than the reader keeps, before a drop, a crash and a cut-off last line.
    let neverScheduled = (1...300).map { #"{"t":\#($0),"e":"begin","a":\#($0),"th":1}"# }
    let reading = read(
      [header] + neverScheduled + [
        #"{"t":301,"e":"dropped","count":2}"#, #"{"t":302,"e":"crash","signal":"SIGSEGV","th":3}"#,
        #"{"t":303,"e":"begin","a":"#,
      ], finalNewline: false)
    XCTAssertEqual(reading.diagnostics.count, TraceReader.maximumDiagnostics + 2)
    XCTAssertEqual(
      reading.fate.map { "\($0.line):\($0.column): \($0.message)" },
      [
        "304:1: the process crashed (SIGSEGV on thread 3); the trace holds what the recorder had buffered",
        "304:26: truncated final line (the recording was cut off mid-write) ignored: expected a value, found the end of the line",
        "302:1: the recorder dropped 2 event(s) here: the trace is incomplete",
      ])
    XCTAssertEqual(read([header, scheduler, schedule]).fate, [], "closed, nothing dropped")
  }

  func testADefinitionDatedBeforeThePreviousLineIsAWarningAcrossThreads() {
    let reading = read([
      header, scheduler,
      #"{"t":20,"e":"schedule","a":1,"q":1,"mode":"async","due":20,"th":1}"#,
      #"{"t":12,"e":"thread","th":2,"name":"worker"}"#,
      #"{"t":21,"e":"begin","a":1,"th":2}"#,
      #"{"t":19,"e":"begin","a":2,"th":3}"#,
    ])
    XCTAssertEqual(
      reading.diagnostics.map { "\($0.line):\($0.column): \($0.message)" },
      [
        "4:6: time goes backwards: 12 ns after a line at 20 ns (lines are written in time order)",
        "6:6: time goes backwards: 19 ns after a line at 21 ns (lines are written in time order)",
        "6:1: action #2 begins but was never scheduled",
      ])
  }
}
