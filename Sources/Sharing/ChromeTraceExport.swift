import Analysis
import Replay
import TraceFormat

/// Traces as Chrome Trace Event Format JSON, which Perfetto UI (ui.perfetto.dev) and
/// `chrome://tracing` open — for whoever receives a trace without Chronoscope.
///
/// What maps to what (docs/Export.md):
/// - each trace is a process (`pid` 1, 2… in the order given; its name says process, pid and
///   file), lined up with the others by ``ProcessTimeline``;
/// - each queue is a track (a `tid`); where a queue's runs overlap in time (a concurrent queue),
///   the later ones go to more tracks of the same queue (`net (2)`), so that slices on one track
///   never overlap — only nest, as an inline `sync` inside the run that made it does;
/// - each run is a complete slice (`X`) with its action id, mode, run number, call site, thread,
///   and lateness in `args`; a run still going when the trace ends lasts to the end and says so;
/// - the wait from schedule to first begin is an async slice (`b`/`e`, category `wait`, its id
///   local to the process); work cancelled before it ran waits until the cancel, and work that
///   never ran until the end;
/// - a flow arrow (`s`/`f`, a numeric id) goes from the run that scheduled an action to the
///   action's first begin — only where such a run encloses the schedule, since a viewer binds an
///   arrow's tail to the slice under it (the wait slice already shows every schedule → begin);
/// - cancels, marks and findings are instants (`i`).
///
/// Times are microseconds with the nanoseconds kept as three decimals, written from integers.
///
/// ```swift
/// let json = ChromeTraceExport.export([(replay, "app.trace")])
/// ```
public enum ChromeTraceExport {
  /// What was written, for a summary.
  public struct Summary: Sendable, Equatable {
    public var processes = 0
    public var tracks = 0
    public var slices = 0
    public var waits = 0
    public var flows = 0
    public var instants = 0
  }

  /// The JSON for `traces` (a replay and the name of its file each), one process per trace.
  ///
  /// - Parameter progress: Called now and then with the fraction of events done.
  public static func export(
    _ traces: [(replay: ReplayEngine, file: String)], progress: ((Double) -> Void)? = nil
  ) -> (json: [UInt8], summary: Summary) {
    var json: [UInt8] = []
    let summary = export(traces, progress: progress) { json.append(contentsOf: $0) }
    return (json, summary)
  }

  /// Writes the JSON for `traces` to `sink` in chunks of a few megabytes, as it is made: a
  /// 10M-event export never holds its gigabytes of JSON at once.
  public static func export(
    _ traces: [(replay: ReplayEngine, file: String)], progress: ((Double) -> Void)? = nil,
    to sink: (UnsafeBufferPointer<UInt8>) -> Void
  ) -> Summary {
    withoutActuallyEscaping(sink) { sink in write(traces, progress: progress, to: sink) }
  }

  private static func write(
    _ traces: [(replay: ReplayEngine, file: String)], progress: ((Double) -> Void)?,
    to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void
  ) -> Summary {
    let out = JSONOutput(sink: sink)
    var summary = Summary()
    let timeline = ProcessTimeline(headers: traces.map(\.replay.header))
    let totalEvents = max(traces.reduce(0) { $0 + $1.replay.eventCount }, 1)
    var doneEvents = 0
    out.raw("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"chronoscope\"},")
    out.raw("\"traceEvents\":[")
    for (index, trace) in traces.enumerated() {
      var process = ProcessExport(
        replay: trace.replay, file: trace.file, pid: index + 1, offset: timeline.offsets[index])
      process.write(into: out, summary: &summary) { done in
        progress?(Double(doneEvents + done) / Double(totalEvents))
      }
      doneEvents += trace.replay.eventCount
    }
    out.raw("]}\n")
    out.flush()
    summary.processes = traces.count
    progress?(1)
    return summary
  }
}

/// One trace's events, written as one process.
private struct ProcessExport {
  let replay: ReplayEngine
  let file: String
  let pid: Int
  /// Nanoseconds added to every time: where the trace starts on the shared timeline.
  let offset: Int64
  /// JSON bytes made once per call site and thread rather than once per run.
  private var siteBytes: [UInt32: (name: [UInt8], site: [UInt8])] = [:]
  private var threadBytes: [UInt32: [UInt8]] = [:]

  init(replay: ReplayEngine, file: String, pid: Int, offset: Int64) {
    self.replay = replay
    self.file = file
    self.pid = pid
    self.offset = offset
  }

  /// One run of an action, from its begin to its end (or the trace's end).
  struct Run {
    var action: ActionIndex
    var number: Int
    var thread: ThreadID
    var begin: Int64
    var end: Int64
    var finished: Bool
    var track = 0
  }

  /// The end of the trace: its close time when later than its last event.
  var traceEnd: Int64 { max(replay.span, replay.closedAt ?? 0) }

  mutating func write(
    into out: JSONOutput, summary: inout ProcessExportSummary, progress: (Int) -> Void
  ) {
    let runs = collectRuns()
    var tracks = TrackTable(queueCount: replay.queueSlotCount)
    var placed = runs
    for index in placed.indices {
      let run = placed[index]
      placed[index].track = tracks.place(
        queue: replay.queueSlot(of: run.action), begin: run.begin, end: run.end)
    }
    // A queue whose work never ran still gets a track, for its waits and cancels.
    for action in replay.actionIndices { tracks.ensureLane(queue: replay.queueSlot(of: action)) }
    writeMetadata(into: out, tracks: tracks, summary: &summary)
    // Each action's first run, for its wait and flow; and where each action's runs are.
    var firstRun = [Int32](repeating: -1, count: replay.actionCount)
    for (index, run) in placed.enumerated() where firstRun[run.action.int] < 0 {
      firstRun[run.action.int] = Int32(index)
    }
    var cancelledAt = [Int64?](repeating: nil, count: replay.actionCount)
    for position in replay.eventIndices {
      let event = replay.event(position)
      if event.kind == .cancel, let action = event.action, cancelledAt[action.int] == nil {
        cancelledAt[action.int] = event.time
      }
    }
    for (index, run) in placed.enumerated() {
      writeSlice(run, into: out, tracks: tracks)
      summary.slices += 1
      if index & 0xFFFF == 0 { progress(index) }
    }
    for action in replay.actionIndices {
      let first = firstRun[action.int]
      summary.waits += writeWaits(
        action, firstRun: first >= 0 ? placed[Int(first)] : nil, runs: placed,
        cancelledAt: cancelledAt[action.int], into: out, tracks: tracks)
      if first >= 0,
        writeFlow(action, to: placed[Int(first)], runs: placed, into: out, tracks: tracks)
      {
        summary.flows += 1
      }
    }
    summary.instants += writeInstants(into: out, tracks: tracks, runs: placed)
    progress(replay.eventCount)
  }

  // MARK: - Runs and tracks

  private func collectRuns() -> [Run] {
    var runs: [Run] = []
    var open = [Int32](repeating: -1, count: replay.actionCount)
    for position in replay.eventIndices {
      let event = replay.event(position)
      guard let action = event.action else { continue }
      switch event.kind {
      case .begin:
        open[action.int] = Int32(runs.count)
        runs.append(
          Run(
            action: action, number: Int(event.run ?? 1), thread: event.thread, begin: event.time,
            end: traceEnd, finished: false))
      case .end:
        let index = open[action.int]
        guard index >= 0 else { continue }
        runs[Int(index)].end = max(event.time, runs[Int(index)].begin)
        runs[Int(index)].finished = true
        open[action.int] = -1
      default:
        break
      }
    }
    return runs
  }

  // MARK: - Writing

  private func writeMetadata(
    into out: JSONOutput, tracks: TrackTable, summary: inout ProcessExportSummary
  ) {
    let header = replay.header
    let process = header.process.isEmpty ? "process" : header.process
    out.metadata(
      "process_name", pid: pid, tid: 0, name: "\(process) (pid \(header.pid)) — \(file)")
    out.metadataSort("process_sort_index", pid: pid, tid: 0, index: pid)
    for (queueSlot, lanes) in tracks.lanes.enumerated() where lanes > 0 {
      let label = queueLabel(slot: queueSlot)
      for lane in 0..<lanes {
        let tid = tracks.tid(queue: queueSlot, lane: lane)
        out.metadata(
          "thread_name", pid: pid, tid: tid, name: lane == 0 ? label : "\(label) (\(lane + 1))")
        out.metadataSort("thread_sort_index", pid: pid, tid: tid, index: tid)
        summary.tracks += 1
      }
    }
  }

  private func queueLabel(slot: Int) -> String {
    guard slot < replay.queues.count else { return "undefined queue" }
    return replay.queues[slot].label
  }

  private func time(_ nanoseconds: Int64) -> Int64 {
    let (sum, overflow) = nanoseconds.addingReportingOverflow(offset)
    return overflow ? Int64.max : sum
  }

  /// The call site of `action` as JSON bytes: the end of a slice's name (` File.swift:12"`) and
  /// the `site` argument (`"Dir/File.swift:12 f()"`); nil without a call site.
  private mutating func site(of action: ActionIndex) -> (name: [UInt8], site: [UInt8])? {
    let id = replay.action(action).site
    guard id != 0 else { return nil }
    if let cached = siteBytes[id] { return cached }
    guard let site = replay.callSite(of: action) else { return nil }
    let file = site.file.split(separator: "/").last.map(String.init) ?? site.file
    var name = JSONOutput.encoded(" \(file):\(site.line)")
    name.removeFirst()  // the name's opening quote is written with its id
    let bytes = (name, JSONOutput.encoded("\(site.file):\(site.line) \(site.function)"))
    siteBytes[id] = bytes
    return bytes
  }

  private mutating func threadTitle(_ thread: ThreadID) -> [UInt8] {
    if let cached = threadBytes[thread.rawValue] { return cached }
    let bytes = JSONOutput.encoded(
      replay.thread(thread)?.title ?? "thread \(thread.rawValue)")
    threadBytes[thread.rawValue] = bytes
    return bytes
  }

  /// A slice's name: `"#12 File.swift:40"`, or `"#12 async"` without a call site.
  private mutating func writeName(_ action: ActionIndex, into out: JSONOutput) {
    let info = replay.action(action)
    out.raw("\"#")
    out.integer(Int64(info.id.rawValue))
    if let site = site(of: action) {
      out.append(site.name)
    } else {
      out.raw(" ")
      out.raw(info.mode.staticName)
      out.raw("\"")
    }
  }

  private mutating func writeSlice(_ run: Run, into out: JSONOutput, tracks: TrackTable) {
    let info = replay.action(run.action)
    out.eventStart(phase: "X", category: "run")
    writeName(run.action, into: out)
    out.field("ts", microseconds: time(run.begin))
    out.field("dur", microseconds: run.end.subtracting(saturating: run.begin))
    out.field("pid", pid)
    out.field("tid", tracks.tid(queue: replay.queueSlot(of: run.action), lane: run.track))
    out.raw(",\"args\":{")
    out.key("action", first: true)
    out.integer(Int64(info.id.rawValue))
    out.raw(",\"mode\":\"")
    out.raw(info.mode.staticName)
    out.raw("\",\"run\":")
    out.integer(Int64(run.number))
    if let site = site(of: run.action) {
      out.raw(",\"site\":")
      out.append(site.site)
    }
    out.raw(",\"thread\":")
    out.append(threadTitle(run.thread))
    out.key("lateness_ns")
    out.integer(run.begin.subtracting(saturating: info.due(ofRun: run.number)))
    if !run.finished {
      out.key("unfinished")
      out.raw("true")
    }
    out.raw("}}")
  }

  /// The waits of `action`: schedule → first begin (or cancel, or the end); and for a repeating
  /// action, due → begin of each later run that began late. Returns how many were written.
  private func writeWaits(
    _ action: ActionIndex, firstRun: Run?, runs: [Run], cancelledAt: Int64?,
    into out: JSONOutput, tracks: TrackTable
  ) -> Int {
    let info = replay.action(action)
    let track = tracks.tid(queue: replay.queueSlot(of: action), lane: firstRun?.track ?? 0)
    let end: Int64
    var outcome: StaticString = "began"
    if let firstRun {
      end = firstRun.begin
    } else if let cancelledAt {
      end = cancelledAt
      outcome = "cancelled"
    } else {
      end = traceEnd
      outcome = "never ran"
    }
    let start = min(info.scheduledAt, end)
    for phase in [0, 1] {
      out.eventStart(phase: phase == 0 ? "b" : "e", category: "wait")
      out.raw("\"wait #")
      out.integer(Int64(info.id.rawValue))
      // A local id: Perfetto groups it per process, so files' waits never pair across processes.
      out.raw("\",\"id2\":{\"local\":\"")
      out.integer(Int64(info.id.rawValue))
      out.raw("\"}")
      out.field("ts", microseconds: time(phase == 0 ? start : end))
      out.field("pid", pid)
      out.field("tid", track)
      if phase == 0 {
        out.raw(",\"args\":{\"due_ns\":")
        out.integer(info.due)
        out.raw(",\"outcome\":\"")
        out.raw(outcome)
        out.raw("\"}}")
      }
    }
    out.raw("}")
    return 1
  }

  /// The arrow from the run that scheduled `action` to its first run; false (and nothing
  /// written) when no run of its parent encloses the schedule: an arrow's tail binds to the slice
  /// under it, and one with nothing under it is dropped by viewers as unbound.
  private func writeFlow(
    _ action: ActionIndex, to run: Run, runs: [Run], into out: JSONOutput,
    tracks: TrackTable
  ) -> Bool {
    let info = replay.action(action)
    guard let parent = info.parent,
      let sourceTrack = parentRunTrack(parent, at: info.scheduledAt, runs: runs, tracks: tracks)
    else { return false }
    // A JSON number, unique across the export: the process above 32 bits, the action below.
    // (Perfetto rejects a flow id that is neither a number nor a hex string.)
    let id = Int64(pid) << 32 | Int64(action.int)
    for phase in [0, 1] {
      out.eventStart(phase: phase == 0 ? "s" : "f", category: "flow")
      out.raw("\"scheduled\",\"id\":")
      out.integer(id)
      if phase == 0 {
        out.field("ts", microseconds: time(min(info.scheduledAt, run.begin)))
        out.field("pid", pid)
        out.field("tid", sourceTrack)
        out.raw("}")
      }
    }
    out.raw(",\"bp\":\"e\"")
    out.field("ts", microseconds: time(run.begin))
    out.field("pid", pid)
    out.field("tid", tracks.tid(queue: replay.queueSlot(of: action), lane: run.track))
    out.raw("}")
    return true
  }

  /// The track of `parent`'s run that was under way at `time`.
  private func parentRunTrack(
    _ parent: ActionIndex, at time: Int64, runs: [Run], tracks: TrackTable
  )
    -> Int?
  {
    guard let lastRun = replay.lastRunIndex(of: parent, in: runs, at: time) else { return nil }
    let run = runs[lastRun]
    return tracks.tid(queue: replay.queueSlot(of: parent), lane: run.track)
  }

  private func writeInstants(into out: JSONOutput, tracks: TrackTable, runs: [Run]) -> Int {
    var count = 0
    for position in replay.eventIndices {
      let event = replay.event(position)
      switch event.kind {
      case .cancel:
        guard let action = event.action else { continue }
        let info = replay.action(action)
        out.eventStart(phase: "i", name: "cancel \(info.id)", category: "cancel")
        out.field("ts", microseconds: time(event.time))
        out.field("pid", pid)
        out.field("tid", tracks.tid(queue: replay.queueSlot(of: action), lane: 0))
        out.raw(",\"s\":\"t\",\"args\":{")
        out.key("after_start", first: true)
        out.raw(event.cancelledAfterStart == true ? "true" : "false")
        out.raw("}}")
        count += 1
      case .mark:
        let mark = replay.mark(of: event)
        out.eventStart(phase: "i", name: mark?.name ?? "mark", category: "mark")
        out.field("ts", microseconds: time(event.time))
        out.field("pid", pid)
        out.field("tid", 0)
        out.raw(",\"s\":\"p\",\"args\":{")
        var first = true
        for (key, value) in (mark?.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
          out.key(key, first: first)
          out.string(value)
          first = false
        }
        out.raw("}}")
        count += 1
      default:
        break
      }
    }
    for finding in FindingsAnalysis.findings(in: replay) {
      let info = replay.action(finding.action)
      out.eventStart(phase: "i", name: "\(finding.kind.rawValue) \(info.id)", category: "finding")
      out.field("ts", microseconds: time(finding.time))
      out.field("pid", pid)
      out.field("tid", tracks.tid(queue: replay.queueSlot(of: finding.action), lane: 0))
      out.raw(",\"s\":\"p\",\"args\":{")
      out.key("severity", first: true)
      out.string(finding.severity.rawValue)
      out.key("message")
      out.string(finding.message)
      out.raw("}}")
      count += 1
    }
    return count
  }
}

private typealias ProcessExportSummary = ChromeTraceExport.Summary

extension ReplayEngine {
  /// The index in `runs` of `action`'s run under way at `time` (begun at or before it, ended at
  /// or after it), if any. `runs` are in begin order.
  fileprivate func lastRunIndex(
    of action: ActionIndex, in runs: [ProcessExport.Run], at time: Int64
  ) -> Int? {
    // Runs are few per action and in begin order: search back from the last run begun by `time`.
    var low = 0
    var high = runs.count
    while low < high {
      let middle = (low + high) / 2
      if runs[middle].begin <= time { low = middle + 1 } else { high = middle }
    }
    var index = low - 1
    var looked = 0
    while index >= 0, looked < 4_096 {
      let run = runs[index]
      if run.action == action { return run.end >= time ? index : nil }
      index -= 1
      looked += 1
    }
    return nil
  }
}

/// Where each queue's runs go: lanes (tracks) of a queue, each a stack of the runs open on it,
/// so that a run goes on the first lane where it does not overlap what is there — or nests
/// inside it.
private struct TrackTable {
  /// Per queue slot: its lanes, each a stack of open runs' end times.
  private var open: [[[Int64]]]
  /// The first tid of each queue slot's lanes is given out as lanes appear.
  private var tids: [[Int]]
  /// Tids start well above the pids: a viewer marks the track whose tid equals its pid as the
  /// process's main thread, which no queue is.
  private var nextTid = 1_000

  init(queueCount: Int) {
    open = Array(repeating: [], count: queueCount)
    tids = Array(repeating: [], count: queueCount)
  }

  /// How many lanes each queue slot has.
  var lanes: [Int] { open.map(\.count) }

  func tid(queue: Int, lane: Int) -> Int {
    guard queue < tids.count, lane < tids[queue].count else { return 0 }
    return tids[queue][lane]
  }

  /// Gives `queue` its first lane if it has none yet.
  mutating func ensureLane(queue: Int) {
    guard queue < open.count, open[queue].isEmpty else { return }
    open[queue].append([])
    tids[queue].append(nextTid)
    nextTid += 1
  }

  /// The lane a run from `begin` to `end` on `queue` goes on.
  mutating func place(queue: Int, begin: Int64, end: Int64) -> Int {
    for lane in open[queue].indices {
      while let top = open[queue][lane].last, top <= begin { open[queue][lane].removeLast() }
      if let top = open[queue][lane].last, end > top { continue }
      open[queue][lane].append(end)
      return lane
    }
    open[queue].append([end])
    tids[queue].append(nextTid)
    nextTid += 1
    return open[queue].count - 1
  }
}

/// JSON written straight into a buffer: no `String` per event, no `JSONSerialization`; handed
/// to a sink a few megabytes at a time. (A raw buffer rather than `[UInt8]`: appending to an
/// array byte by byte was a third of the export's time, in its uniqueness and capacity checks.)
final class JSONOutput {
  private static let chunk = 4 << 20
  private let capacity = JSONOutput.chunk + 65_536
  private let buffer: UnsafeMutablePointer<UInt8>
  private var count = 0
  private var firstEvent = true
  private let sink: (UnsafeBufferPointer<UInt8>) -> Void

  init(sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
    self.sink = sink
    buffer = .allocate(capacity: capacity)
  }

  deinit { buffer.deallocate() }

  /// What is written and not yet handed to the sink.
  var bytes: [UInt8] { Array(UnsafeBufferPointer(start: buffer, count: count)) }

  /// `text` as JSON string bytes, quotes included, to append many times.
  static func encoded(_ text: String) -> [UInt8] {
    let output = JSONOutput { _ in }
    output.string(text)
    return output.bytes
  }

  /// Hands what is written so far to the sink.
  func flush() {
    if count > 0 { sink(UnsafeBufferPointer(start: buffer, count: count)) }
    count = 0
  }

  @inline(__always)
  private func byte(_ value: UInt8) {
    if count == capacity { flush() }
    buffer[count] = value
    count += 1
  }

  private func append(_ source: UnsafePointer<UInt8>, _ length: Int) {
    if count + length > capacity { flush() }
    if length > capacity {
      sink(UnsafeBufferPointer(start: source, count: length))
      return
    }
    (buffer + count).update(from: source, count: length)
    count += length
  }

  /// Appends bytes prepared beforehand (a name already escaped, say).
  func append(_ prepared: [UInt8]) {
    prepared.withUnsafeBufferPointer { if let base = $0.baseAddress { append(base, $0.count) } }
  }

  func raw(_ text: StaticString) {
    append(text.utf8Start, text.utf8CodeUnitCount)
  }

  func eventStart(phase: StaticString, name: String, category: StaticString) {
    eventStart(phase: phase, category: category)
    string(name)
  }

  /// Starts an event up to its name's value, which the caller writes.
  func eventStart(phase: StaticString, category: StaticString) {
    if count >= Self.chunk { flush() }
    if firstEvent {
      raw("\n{\"ph\":\"")
    } else {
      raw(",\n{\"ph\":\"")
    }
    firstEvent = false
    raw(phase)
    raw("\",\"cat\":\"")
    raw(category)
    raw("\",\"name\":")
  }

  func metadata(_ kind: StaticString, pid: Int, tid: Int, name: String) {
    eventStart(phase: "M", category: "__metadata")
    byte(UInt8(ascii: "\""))
    raw(kind)
    byte(UInt8(ascii: "\""))
    field("pid", pid)
    field("tid", tid)
    raw(",\"args\":{\"name\":")
    string(name)
    raw("}}")
  }

  func metadataSort(_ kind: StaticString, pid: Int, tid: Int, index: Int) {
    eventStart(phase: "M", category: "__metadata")
    byte(UInt8(ascii: "\""))
    raw(kind)
    byte(UInt8(ascii: "\""))
    field("pid", pid)
    field("tid", tid)
    raw(",\"args\":{\"sort_index\":")
    integer(Int64(index))
    raw("}}")
  }

  func key(_ name: String, first: Bool = false) {
    if !first { byte(UInt8(ascii: ",")) }
    string(name)
    byte(UInt8(ascii: ":"))
  }

  /// `,"name":value`.
  func field(_ name: StaticString, _ value: Int) {
    raw(",\"")
    raw(name)
    raw("\":")
    integer(Int64(value))
  }

  func field(_ name: StaticString, string value: String) {
    raw(",\"")
    raw(name)
    raw("\":")
    string(value)
  }

  /// `nanoseconds` as microseconds with three decimals, exactly.
  func field(_ name: StaticString, microseconds nanoseconds: Int64) {
    raw(",\"")
    raw(name)
    raw("\":")
    let value = max(nanoseconds, 0)
    integer(value / 1_000)
    let fraction = Int(value % 1_000)
    if count + 4 > capacity { flush() }
    buffer[count] = UInt8(ascii: ".")
    buffer[count + 1] = UInt8(48 + fraction / 100)
    buffer[count + 2] = UInt8(48 + fraction / 10 % 10)
    buffer[count + 3] = UInt8(48 + fraction % 10)
    count += 4
  }

  func integer(_ value: Int64) {
    if count + 21 > capacity { flush() }
    if value < 0 {
      buffer[count] = UInt8(ascii: "-")
      count += 1
    }
    var magnitude = value.magnitude
    if magnitude < 10 {
      buffer[count] = UInt8(48 + magnitude)
      count += 1
      return
    }
    // Digits from the right into the room ahead, then in place.
    var digits = 0
    var probe = magnitude
    while probe > 0 {
      digits += 1
      probe /= 10
    }
    var position = count + digits - 1
    while magnitude > 0 {
      buffer[position] = UInt8(48 + magnitude % 10)
      magnitude /= 10
      position -= 1
    }
    count += digits
  }

  /// `text` as a JSON string: quotes, backslashes and control characters escaped; everything
  /// else as UTF-8 (a Swift string is valid Unicode, so nothing else needs escaping).
  func string(_ text: String) {
    var text = text
    text.withUTF8 { utf8 in
      guard let base = utf8.baseAddress else {
        raw("\"\"")
        return
      }
      // Most strings need no escape: copy them whole.
      if !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
        byte(UInt8(ascii: "\""))
        append(base, utf8.count)
        byte(UInt8(ascii: "\""))
        return
      }
      byte(UInt8(ascii: "\""))
      let hex: StaticString = "0123456789abcdef"
      for value in utf8 {
        switch value {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
          byte(UInt8(ascii: "\\"))
          byte(value)
        case 0..<0x20, 0x7F:
          raw("\\u00")
          byte(hex.utf8Start[Int(value >> 4)])
          byte(hex.utf8Start[Int(value & 0xF)])
        default:
          byte(value)
        }
      }
      byte(UInt8(ascii: "\""))
    }
  }
}
