@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// Traces as Chrome Trace Event Format JSON, which Perfetto UI (ui.perfetto.dev) and
/// `chrome://tracing` open — for whoever receives a trace without Chronoscope.
///
/// What maps to what (docs/Export.md says it in full, with the viewer's rules it is laid out for):
/// - each trace is a process (its recorded `pid` where it can be), lined up with the others by
///   ``ProcessTimeline``, an empty stretch between recordings that do not overlap cut short;
/// - each scheduler is a track, its `tid` the scheduler's id in the trace; where a scheduler's runs overlap
///   (a concurrent scheduler, or runs at one instant of a virtual clock) the later ones go to more
///   tracks of the scheduler (`net (2)`): on a track a run lies inside another only as an inline
///   `sync` of it;
/// - each run is a complete slice (`X`) with its action id, mode, run number, call site, thread
///   and lateness in `args`; a run of 0 ns is drawn 1 ns long (`args.duration_ns` says 0), and
///   one still going when the trace ends lasts to the end and says so;
/// - each scheduler's waits (schedule → first begin) are async slices named `wait · <scheduler>`, their
///   action in `id2.local` and `args`, so that a viewer draws them on a few tracks per scheduler;
/// - a flow arrow goes from the run that scheduled an action to the action's first run, placed
///   where a viewer binds its ends to those two slices;
/// - the recording's start, cancels, marks and findings are process-scoped instants, off the
///   schedulers' tracks, so that no arrow binds to them; past ``FindingWindows/instantLimit``
///   findings, each kind's are windows (async slices) that count them;
/// - each hole the recorder's dropped events left is an async slice `dropped events`;
/// - a run of a Swift task's work is named by the task (`#3 typist (task 2)`).
///
/// Times are microseconds with the nanoseconds kept as three decimals, written from integers.
///
/// ```swift
/// let json = ChromeTraceExport.export([(replay, "app.trace")])
/// ```
@_spi(Benchmarks) public enum ChromeTraceExport {
  /// What was written, for a summary.
  @_spi(Benchmarks) public struct Summary: Sendable, Equatable {
    package var processes = 0
    package var tracks = 0
    package var slices = 0
    package var waits = 0
    package var flows = 0
    package var instants = 0
    /// Windows of findings, each an async slice that counts them (``FindingWindows``).
    package var findingWindows = 0
    /// What each trace whose recorder dropped events lost, in the order of the traces.
    package var losses: [Losses] = []
  }

  /// What a trace lost to its recorder's drops (its `dropped` lines), and what that cost the
  /// export.
  package struct Losses: Sendable, Equatable {
    /// The trace's file name, as given to the export.
    package var file: String
    /// The events the recorder said it dropped, in total.
    package var droppedEvents: Int64 = 0
    /// Its `dropped` lines, each marked on the timeline.
    package var dropPoints = 0
    /// Ends whose begin was dropped: runs not exported.
    package var runsWithoutBegin = 0
    /// Begins of work whose schedule was dropped: runs not exported (no scheduler to put them on).
    package var unscheduledRuns = 0
    /// Runs that had not ended when the trace ended but began before a drop: their end may be
    /// among what was dropped. Exported to the trace's end.
    package var runsWithoutEnd = 0
  }

  /// The JSON for `traces` (a replay and the name of its file each), one process per trace.
  ///
  /// - Parameter progress: Called now and then with the fraction of events done.
  package static func export(
    _ traces: [(replay: ReplayEngine, file: String)], progress: ((Double) -> Void)? = nil
  ) -> (json: [UInt8], summary: Summary) {
    var json: [UInt8] = []
    let summary = export(traces, progress: progress) { json.append(contentsOf: $0) }
    return (json, summary)
  }

  /// Writes the JSON for `traces` to `sink` in chunks of a few megabytes, as it is made: a
  /// 10M-event export never holds its gigabytes of JSON at once.
  @_spi(Benchmarks) public static func export(
    _ traces: [(replay: ReplayEngine, file: String)], progress: ((Double) -> Void)? = nil,
    to sink: (UnsafeBufferPointer<UInt8>) -> Void
  ) -> Summary {
    withoutActuallyEscaping(sink) { sink in write(traces, progress: progress, to: sink) }
  }

  private static func write(
    _ traces: [(replay: ReplayEngine, file: String)], progress: ((Double) -> Void)?,
    to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void
  ) -> Summary {
    let out = JSONWriter(sink: sink)
    var summary = Summary()
    let timeline = ProcessTimeline(headers: traces.map(\.replay.header))
    let (offsets, cuts) = cutGaps(offsets: timeline.offsets, ends: traces.map(\.replay.end))
    let totalEvents = max(traces.reduce(0) { $0 + $1.replay.eventCount }, 1)
    var doneEvents = 0
    var takenPids: Set<Int> = []
    out.raw("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"chronoscope\"},")
    out.raw("\"traceEvents\":[")
    for (index, trace) in traces.enumerated() {
      var process = ProcessExport(
        replay: trace.replay, file: trace.file, index: index, offset: offsets[index],
        cut: cuts[index])
      process.write(into: out, takenPids: &takenPids, summary: &summary) { done in
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

  /// The offsets of recordings on the export's timeline: `offsets` (each recording's start after
  /// the earliest), with each empty stretch between recordings that do not overlap — where none
  /// of them was recording — cut to a tenth of the time recorded before it (1 ms at least), so
  /// that recordings made hours apart do not open as two slivers at the ends of an empty
  /// timeline. Also returns how much earlier each recording was placed than its wall clock says.
  static func cutGaps(offsets: [Int64], ends: [Int64]) -> (offsets: [Int64], cuts: [Int64]) {
    var placed = offsets
    var cuts = [Int64](repeating: 0, count: offsets.count)
    var cut: Int64 = 0
    var first: Int64?
    var reached: Int64 = 0
    for index in offsets.indices.sorted(by: { (offsets[$0], $0) < (offsets[$1], $1) }) {
      let start = offsets[index]
      if let first, start > reached {
        let gap = start - reached
        let kept = min(gap, max(1_000_000, (reached - first) / 10))
        cut = cut.adding(saturating: gap - kept)
      }
      if first == nil { first = start }
      reached = max(reached, start.adding(saturating: max(ends[index], 0)))
      placed[index] = start - cut
      cuts[index] = cut
    }
    return (placed, cuts)
  }
}

/// One trace's events, written as one process.
private struct ProcessExport {
  let replay: ReplayEngine
  let file: String
  let index: Int
  /// Nanoseconds added to every time: where the trace starts on the export's timeline.
  let offset: Int64
  /// How much earlier than its wall-clock start the trace was placed (an empty stretch cut).
  let cut: Int64
  /// The process id written: see ``choosePid(tracks:taken:)``.
  private var pid = 0
  /// JSON bytes made once per call site, thread and scheduler rather than once per event.
  private var siteBytes: [UInt32: (name: [UInt8], site: [UInt8])] = [:]
  private var threadBytes: [UInt32: [UInt8]] = [:]
  private var taskBytes: [TaskID: (string: [UInt8], inName: [UInt8])] = [:]
  private var schedulerBytes: [[UInt8]?]
  private var waitNameBytes: [[UInt8]?]

  init(replay: ReplayEngine, file: String, index: Int, offset: Int64, cut: Int64) {
    self.replay = replay
    self.file = file
    self.index = index
    self.offset = offset
    self.cut = cut
    schedulerBytes = Array(repeating: nil, count: replay.schedulerSlotCount)
    waitNameBytes = Array(repeating: nil, count: replay.schedulerSlotCount)
  }

  /// One run of an action, from its begin to its end (or the trace's end).
  struct Run {
    var action: ActionIndex
    var number: Int
    var thread: ThreadID
    var begin: Int64
    var end: Int64
    var finished: Bool
    /// Its index in ``TrackTable/tracks``.
    var track = 0

    /// Where its slice ends: a run of 0 ns is drawn 1 ns long, as a slice rather than the
    /// chevron a viewer draws for an instant.
    var shownEnd: Int64 { end > begin ? end : begin.adding(saturating: 1) }
  }

  var traceEnd: Int64 { replay.end }

  mutating func write(
    into out: JSONWriter, takenPids: inout Set<Int>, summary: inout ProcessExportSummary,
    progress: (Int) -> Void
  ) {
    var (runs, runsWithoutBegin) = collectRuns()
    if !replay.drops.isEmpty {
      var losses = ChromeTraceExport.Losses(file: file)
      losses.dropPoints = replay.drops.count
      losses.droppedEvents = replay.drops.reduce(0) { $0.adding(saturating: $1.count) }
      losses.runsWithoutBegin = runsWithoutBegin
      losses.unscheduledRuns = replay.unscheduledRuns
      losses.runsWithoutEnd = runs.count { endMayBeDropped($0) }
      summary.losses.append(losses)
    }
    var tracks = TrackTable(replay: replay)
    // Each run's successor on its track: what a viewer finds on top of the track after it.
    var nextOnTrack = [Int32](repeating: -1, count: runs.count)
    var lastOnTrack: [Int32] = []
    for index in runs.indices {
      let run = runs[index]
      let info = replay.action(run.action)
      let track = tracks.place(
        scheduler: replay.schedulerSlot(of: run.action), begin: run.begin, end: run.shownEnd,
        action: run.action, inlineIn: info.mode == .sync ? info.parent : nil)
      runs[index].track = track
      if track >= lastOnTrack.count {
        lastOnTrack += repeatElement(-1, count: track + 1 - lastOnTrack.count)
      }
      if lastOnTrack[track] >= 0 { nextOnTrack[Int(lastOnTrack[track])] = Int32(index) }
      lastOnTrack[track] = Int32(index)
    }
    // A scheduler whose work never ran still gets a track, for its waits.
    for action in replay.actionIndices {
      tracks.ensureTrack(scheduler: replay.schedulerSlot(of: action))
    }
    pid = choosePid(tracks: tracks, taken: takenPids)
    takenPids.insert(pid)
    writeMetadata(into: out, tracks: tracks, summary: &summary)
    writeStart(into: out)
    // Each action's first run, for its wait and flow.
    var firstRun = [Int32](repeating: -1, count: replay.actionCount)
    for (index, run) in runs.enumerated() where firstRun[run.action.int] < 0 {
      firstRun[run.action.int] = Int32(index)
    }
    var cancelledAt = [Int64?](repeating: nil, count: replay.actionCount)
    for position in replay.eventIndices {
      let event = replay.event(position)
      if event.kind == .cancel, let action = event.action, cancelledAt[action.int] == nil {
        cancelledAt[action.int] = event.time
      }
    }
    for (index, run) in runs.enumerated() {
      writeSlice(run, into: out, tracks: tracks)
      summary.slices += 1
      if index & 0xFFFF == 0 { progress(index) }
    }
    let links = RunLinks(runs: runs, nextOnTrack: nextOnTrack)
    for action in replay.actionIndices {
      let first = firstRun[action.int]
      summary.waits += writeWait(
        action, firstRun: first >= 0 ? runs[Int(first)] : nil,
        cancelledAt: cancelledAt[action.int], into: out, tracks: tracks)
      if first >= 0, writeFlow(action, to: Int(first), links: links, into: out, tracks: tracks) {
        summary.flows += 1
      }
    }
    let marked = writeInstants(into: out, tracks: tracks)
    summary.instants += marked.instants
    summary.findingWindows += marked.windows
    progress(replay.eventCount)
  }

  // MARK: - Runs and tracks

  /// The runs in begin order, and how many ends had no begin (dropped, or before a slice's
  /// window).
  private func collectRuns() -> (runs: [Run], endsWithoutBegin: Int) {
    var runs: [Run] = []
    var endsWithoutBegin = 0
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
        guard index >= 0 else {
          endsWithoutBegin += 1
          continue
        }
        runs[Int(index)].end = max(event.time, runs[Int(index)].begin)
        runs[Int(index)].finished = true
        open[action.int] = -1
      default:
        break
      }
    }
    return (runs, endsWithoutBegin)
  }

  /// Whether `run` had not ended when the trace ended but began before the recorder dropped
  /// events: its end may be among them.
  private func endMayBeDropped(_ run: Run) -> Bool {
    guard !run.finished, let last = replay.drops.last else { return false }
    return last.time >= run.begin
  }

  /// The process id to write. A viewer shows it after the process's name, so it is the recorded
  /// pid where that can be used: not 0, not another file's, and not a scheduler track's tid (a
  /// viewer takes the track whose tid equals the pid for the process's main thread). Otherwise
  /// the first number after every tid that no other file took.
  private func choosePid(tracks: TrackTable, taken: Set<Int>) -> Int {
    let tids = Set(tracks.tracks.map(\.tid))
    let recorded = replay.header.pid
    if recorded > 0, recorded <= Int64(UInt32.max), !taken.contains(Int(recorded)),
      !tids.contains(Int(recorded))
    {
      return Int(recorded)
    }
    return firstFree(after: tids.max() ?? 0) { taken.contains($0) || tids.contains($0) }
  }

  // MARK: - Writing

  private mutating func writeMetadata(
    into out: JSONWriter, tracks: TrackTable, summary: inout ProcessExportSummary
  ) {
    let header = replay.header
    let process = header.process.isEmpty ? "process" : header.process
    // Perfetto shows "<name> <pid>": the name ends with the process so that the pid follows it.
    let recordedPid = Int64(pid) == header.pid ? "" : " (pid \(header.pid))"
    out.metadata("process_name", pid: pid, tid: 0, name: "\(file) — \(process)\(recordedPid)")
    out.metadataSort("process_sort_index", pid: pid, tid: 0, index: index + 1)
    for (position, track) in tracks.ordered.enumerated() {
      let label = schedulerLabel(slot: track.scheduler)
      out.metadata(
        "thread_name", pid: pid, tid: track.tid,
        name: track.lane == 0 ? label : "\(label) (\(track.lane + 1))")
      out.metadataSort("thread_sort_index", pid: pid, tid: track.tid, index: position + 1)
      summary.tracks += 1
    }
  }

  /// An instant at the recording's start (time 0 of the trace), so that a viewer, which counts
  /// time from the earliest event, counts it from the recording's start as the trace does.
  private func writeStart(into out: JSONWriter) {
    out.eventStart(phase: "i", category: "recording")
    out.raw("\"recording start\"")
    writeInstantPlace(at: 0, into: out)
    out.member("start", first: true)
    out.string(replay.header.start)
    out.member("clock")
    out.string(replay.header.clock.rawValue)
    if cut > 0 {
      // Placed earlier than the wall clock says: an empty stretch before it was cut.
      out.member("moved_earlier_ns")
      out.integer(cut)
    }
    out.raw("}}")
  }

  /// An instant's time and process, scoped to the process (off the schedulers' tracks, where a
  /// viewer would take it for the slice an arrow starts from), and the opening of its `args`.
  private func writeInstantPlace(at time: Int64, into out: JSONWriter) {
    out.field("ts", microseconds: self.time(time))
    out.field("pid", pid)
    out.field("tid", 0)
    out.raw(",\"s\":\"p\",\"args\":{")
  }

  private func schedulerLabel(slot: Int) -> String {
    guard slot < replay.schedulers.count else { return "undefined scheduler" }
    return replay.schedulers[slot].label
  }

  /// The scheduler's label as a JSON string.
  private mutating func schedulerName(slot: Int) -> [UInt8] {
    if let cached = schedulerBytes[slot] { return cached }
    let bytes = JSONWriter.encoded(schedulerLabel(slot: slot))
    schedulerBytes[slot] = bytes
    return bytes
  }

  /// The name of the scheduler's waits, `"wait · net"`, as a JSON string.
  private mutating func waitName(slot: Int) -> [UInt8] {
    if let cached = waitNameBytes[slot] { return cached }
    let bytes = JSONWriter.encoded("wait · \(schedulerLabel(slot: slot))")
    waitNameBytes[slot] = bytes
    return bytes
  }

  private func time(_ nanoseconds: Int64) -> Int64 { nanoseconds.adding(saturating: offset) }

  /// The call site of `action` as JSON bytes: the end of a slice's name (` File.swift:12"`) and
  /// the `site` argument (`"Dir/File.swift:12 f()"`); nil without a call site.
  private mutating func site(of action: ActionIndex) -> (name: [UInt8], site: [UInt8])? {
    let id = replay.action(action).site
    guard id != 0 else { return nil }
    if let cached = siteBytes[id] { return cached }
    guard let site = replay.callSite(of: action) else { return nil }
    let file = site.file.split(separator: "/").last.map(String.init) ?? site.file
    var name = JSONWriter.encoded(" " + CallSiteRecord.place(file: file, line: site.line))
    name.removeFirst()  // the name's opening quote is written with its id
    let bytes = (name, JSONWriter.encoded(site.text))
    siteBytes[id] = bytes
    return bytes
  }

  private mutating func threadTitle(_ thread: ThreadID) -> [UInt8] {
    if let cached = threadBytes[thread.rawValue] { return cached }
    let bytes = JSONWriter.encoded(
      replay.thread(thread)?.title ?? "thread \(thread.rawValue)")
    threadBytes[thread.rawValue] = bytes
    return bytes
  }

  /// A slice's name: `"#12 File.swift:40"`, or `"#12 async"` without a call site; the work of
  /// a Swift task is named by the task too: `"#12 typist (task 2) File.swift:40"`,
  /// `"#12 typist (task 2)"`.
  private mutating func writeName(_ action: ActionIndex, into out: JSONWriter) {
    let info = replay.action(action)
    out.raw("\"#")
    out.integer(Int64(info.id.rawValue))
    let task = taskTitle(of: action)
    if let task {
      out.raw(" ")
      out.append(task.inName)
    }
    if let site = site(of: action) {
      out.append(site.name)
    } else if task == nil {
      out.raw(" ")
      out.raw(info.mode.staticName)
      out.raw("\"")
    } else {
      out.raw("\"")
    }
  }

  /// The title of the task `action` is work of, as the inspector's lanes by task show it
  /// (``TaskInfo/title``): as a JSON string, and escaped as in one but without its quotes, for
  /// a name; nil for work of no task the trace names.
  private mutating func taskTitle(of action: ActionIndex) -> (string: [UInt8], inName: [UInt8])? {
    guard let task = replay.taskInfo(of: action) else { return nil }
    if let cached = taskBytes[task.id] { return cached }
    let string = JSONWriter.encoded(task.title)
    let bytes = (string, Array(string.dropFirst().dropLast()))
    taskBytes[task.id] = bytes
    return bytes
  }

  private mutating func writeSlice(_ run: Run, into out: JSONWriter, tracks: TrackTable) {
    let info = replay.action(run.action)
    out.eventStart(phase: "X", category: "run")
    writeName(run.action, into: out)
    out.field("ts", microseconds: time(run.begin))
    out.field("dur", microseconds: run.shownEnd.subtracting(saturating: run.begin))
    out.field("pid", pid)
    out.field("tid", tracks.tracks[run.track].tid)
    out.raw(",\"args\":{")
    out.member("action", first: true)
    out.integer(Int64(info.id.rawValue))
    out.raw(",\"mode\":\"")
    out.raw(info.mode.staticName)
    out.raw("\",\"run\":")
    out.integer(Int64(run.number))
    if let task = taskTitle(of: run.action) {
      out.raw(",\"task\":")
      out.append(task.string)
    }
    if let site = site(of: run.action) {
      out.raw(",\"site\":")
      out.append(site.site)
    }
    out.raw(",\"thread\":")
    out.append(threadTitle(run.thread))
    writeWork(of: run.action, into: out)
    out.member("lateness_ns")
    out.integer(run.begin.subtracting(saturating: info.due(ofRun: run.number)))
    if run.end == run.begin {
      out.raw(",\"duration_ns\":0")
    }
    if !run.finished {
      out.member("unfinished")
      out.raw("true")
    }
    if endMayBeDropped(run) {
      out.member("end_may_be_dropped")
      out.raw("true")
    }
    out.raw("}}")
  }

  /// What the app called `action`, when it named it: `,"work":{"name":…,"values":{…}}`, which
  /// Perfetto shows as `args.work.name` and `args.work.values.KEY`.
  private func writeWork(of action: ActionIndex, into out: JSONWriter) {
    guard let work = replay.work(of: action) else { return }
    out.member("work")
    out.raw("{")
    out.member("name", first: true)
    out.string(work.name)
    out.member("values")
    out.raw("{")
    for (index, (key, value)) in work.fields.sorted(by: { $0.key < $1.key }).enumerated() {
      out.member(key, first: index == 0)
      out.string(value)
    }
    out.raw("}}")
  }

  /// The wait of `action` from its schedule to its first begin (or cancel, or the end), on its
  /// scheduler's wait track. Returns how many were written.
  private mutating func writeWait(
    _ action: ActionIndex, firstRun: Run?, cancelledAt: Int64?, into out: JSONWriter,
    tracks: TrackTable
  ) -> Int {
    let info = replay.action(action)
    let slot = replay.schedulerSlot(of: action)
    let track = tracks.firstTid(scheduler: slot)
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
    let name = waitName(slot: slot)
    for phase in [0, 1] {
      out.eventStart(phase: phase == 0 ? "b" : "e", category: "wait")
      // One name per scheduler: a viewer makes a track set per name, and packs the waits of one
      // name onto as few tracks as their overlaps allow. The action is the id: a local one,
      // which a viewer scopes to its process, so files' waits never pair across processes.
      out.append(name)
      out.raw(",\"id2\":{\"local\":\"")
      out.integer(Int64(info.id.rawValue))
      out.raw("\"}")
      out.field("ts", microseconds: time(phase == 0 ? start : end))
      out.field("pid", pid)
      out.field("tid", track)
      if phase == 0 {
        out.raw(",\"args\":{\"action\":")
        out.integer(Int64(info.id.rawValue))
        out.raw(",\"due_ns\":")
        out.integer(info.due)
        out.raw(",\"outcome\":\"")
        out.raw(outcome)
        out.raw("\"")
        writeWork(of: action, into: out)
        out.raw("}")
      }
      out.raw("}")
    }
    return 1
  }

  /// The arrow from the run that scheduled `action` to its first run (`first`, an index in the
  /// runs); false (and nothing written) when a viewer would not bind its ends to those two runs.
  ///
  /// A viewer (Perfetto's JSON importer) binds each end of an arrow to the slice on top of its
  /// track when it reads the end: the slice that began last at or before the end's time, even
  /// one that has already ended. So the tail goes at the schedule when no other slice of the
  /// parent's track begins between the parent's run and it (an inline `sync` the parent ran
  /// first, or the next run when the schedule is at the parent's last instant); else at the
  /// parent run's begin; and the arrow is left out when another slice begins at that very
  /// instant too. The head goes at the first run's begin, left out alike. (The wait slice shows
  /// every schedule → begin anyway.)
  private func writeFlow(
    _ action: ActionIndex, to first: Int, links: RunLinks, into out: JSONWriter,
    tracks: TrackTable
  ) -> Bool {
    let info = replay.action(action)
    let head = links.runs[first]
    guard let parent = info.parent,
      let source = replay.lastRunIndex(of: parent, in: links.runs, at: info.scheduledAt),
      !links.hasCoStarter(first)
    else { return false }
    let tail = links.runs[source]
    let tailTime: Int64
    if !links.anotherBegins(after: source, by: info.scheduledAt) {
      tailTime = info.scheduledAt
    } else if !links.hasCoStarter(source) {
      tailTime = tail.begin
    } else {
      return false
    }
    // The tail must be read before the head.
    guard tailTime <= head.begin else { return false }
    // A JSON number, unique across the export: the process above 32 bits, the action below.
    // (Perfetto rejects a flow id that is neither a number nor a hex string.)
    let id = Int64(index + 1) << 32 | Int64(action.int)
    out.eventStart(phase: "s", category: "flow")
    out.raw("\"scheduled\",\"id\":")
    out.integer(id)
    out.field("ts", microseconds: time(tailTime))
    out.field("pid", pid)
    out.field("tid", tracks.tracks[tail.track].tid)
    out.raw("}")
    out.eventStart(phase: "f", category: "flow")
    out.raw("\"scheduled\",\"id\":")
    out.integer(id)
    out.raw(",\"bp\":\"e\"")
    out.field("ts", microseconds: time(head.begin))
    out.field("pid", pid)
    out.field("tid", tracks.tracks[head.track].tid)
    out.raw("}")
    return true
  }

  /// The instants, and the windows of findings when there are too many for an instant each
  /// (``FindingWindows``): how many of each were written.
  private mutating func writeInstants(into out: JSONWriter, tracks: TrackTable) -> (
    instants: Int, windows: Int
  ) {
    var count = 0
    // Every instant is process-scoped: on a scheduler's track a viewer would take it for the slice
    // an arrow starts from.
    for position in replay.eventIndices {
      let event = replay.event(position)
      switch event.kind {
      case .cancel:
        guard let action = event.action else { continue }
        let info = replay.action(action)
        out.eventStart(phase: "i", category: "cancel")
        out.raw("\"cancel #")
        out.integer(Int64(info.id.rawValue))
        out.raw("\"")
        writeInstantPlace(at: event.time, into: out)
        out.member("after_start", first: true)
        out.raw(event.cancelledAfterStart == true ? "true" : "false")
        out.raw(",\"scheduler\":")
        out.append(schedulerName(slot: replay.schedulerSlot(of: action)))
        out.raw("}}")
        count += 1
      case .mark:
        let mark = replay.mark(of: event)
        out.eventStart(phase: "i", name: mark?.name ?? "mark", category: "mark")
        writeInstantPlace(at: event.time, into: out)
        var first = true
        for (key, value) in (mark?.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
          out.member(key, first: first)
          out.string(value)
          first = false
        }
        out.raw("}}")
        count += 1
      default:
        break
      }
    }
    for (number, drop) in replay.drops.enumerated() { writeDrop(drop, number: number, into: out) }
    let findings = FindingsAnalysis.findings(in: replay)
    guard let windows = FindingWindows.windows(of: findings, end: traceEnd) else {
      for finding in findings { writeFinding(finding, into: out) }
      return (count + findings.count, 0)
    }
    var windowCount = 0
    for (number, window) in windows.enumerated() {
      if window.count == 1 {
        writeFinding(window.first, into: out)
        count += 1
      } else {
        writeFindingWindow(window, number: number, into: out)
        windowCount += 1
      }
    }
    return (count, windowCount)
  }

  /// Where a `dropped` line's events were lost: an async slice `dropped events` (all of them
  /// on one track) over the recorder's write interval before the line (``TraceDrop``), from the
  /// previous drop at the earliest, so that the hole it left — runs missing, work whose
  /// schedule is gone — lies under it.
  private func writeDrop(_ drop: TraceDrop, number: Int, into out: JSONWriter) {
    let previous = number > 0 ? replay.drops[number - 1].time : 0
    let start = min(
      max(drop.time.subtracting(saturating: TraceDrop.writeInterval), previous, 0), drop.time)
    writeProcessSlice(
      "dropped events", category: "dropped", number: number, from: start,
      to: max(drop.time, start.adding(saturating: 1)), into: out
    ) {
      out.member("count", first: true)
      out.integer(drop.count)
      out.raw(
        ",\"meaning\":\"the recorder dropped this many events since its previous write, most often in the 100 ms before this slice ends: runs, waits and arrows here may be missing or cut\""
      )
    }
  }

  /// An async slice of the process from `start` to `end` named `name` — a viewer puts the
  /// slices of one name on one track — its id `"<category> <number>"`, `args` written by
  /// `arguments` (between the braces).
  private func writeProcessSlice(
    _ name: String, category: StaticString, number: Int, from start: Int64, to end: Int64,
    into out: JSONWriter, arguments: () -> Void
  ) {
    for phase in [0, 1] {
      out.eventStart(phase: phase == 0 ? "b" : "e", name: name, category: category)
      out.raw(",\"id2\":{\"local\":\"")
      out.raw(category)
      out.raw(" ")
      out.integer(Int64(number))
      out.raw("\"}")
      out.field("ts", microseconds: time(phase == 0 ? start : end))
      out.field("pid", pid)
      out.field("tid", 0)
      if phase == 0 {
        out.raw(",\"args\":{")
        arguments()
        out.raw("}")
      }
      out.raw("}")
    }
  }

  private mutating func writeFinding(_ finding: Finding, into out: JSONWriter) {
    let subject = finding.action.map { "\(replay.action($0).id)" } ?? "main thread"
    out.eventStart(phase: "i", name: "\(finding.kind.rawValue) \(subject)", category: "finding")
    writeInstantPlace(at: finding.time, into: out)
    out.member("severity", first: true)
    out.string(finding.severity.rawValue)
    out.member("message")
    out.string(finding.message)
    out.raw(",\"scheduler\":")
    out.append(
      schedulerName(
        slot: finding.action.map { replay.schedulerSlot(of: $0) }
          ?? replay.schedulerSlot(finding.scheduler) ?? replay.schedulerSlotCount - 1))
    out.raw("}}")
  }

  /// An async slice from the window's first finding to its last, named by their kind (so a
  /// viewer puts a kind's windows on one track), its `args` counting them and quoting the first.
  private func writeFindingWindow(
    _ window: FindingWindows.Window, number: Int, into out: JSONWriter
  ) {
    let start = window.first.time
    writeProcessSlice(
      window.kind.rawValue, category: "finding", number: number, from: start,
      to: max(window.last.time, start.adding(saturating: 1)), into: out
    ) {
      out.member("count", first: true)
      out.integer(Int64(window.count))
      out.member("severity")
      out.string(window.severity.rawValue)
      out.member("first")
      let first = window.first.action.map { "\(replay.action($0).id)" } ?? "main thread"
      out.string("\(first): \(window.first.message)")
      if let last = window.last.action {
        out.member("last_action")
        out.integer(Int64(replay.action(last).id.rawValue))
      }
    }
  }
}

private typealias ProcessExportSummary = ChromeTraceExport.Summary

/// The runs in begin order with each one's successor on its track, for placing an arrow's ends.
private struct RunLinks {
  let runs: [ProcessExport.Run]
  let nextOnTrack: [Int32]

  /// Whether a slice begins on `run`'s track after it, at or before `time`: a viewer would
  /// find that one on top of the track at `time`.
  func anotherBegins(after run: Int, by time: Int64) -> Bool {
    let next = nextOnTrack[run]
    return next >= 0 && runs[Int(next)].begin <= time
  }

  /// Whether another slice begins on `run`'s track at its very begin (an inline `sync` at once):
  /// a viewer reads it after `run`, so nothing binds to `run` at its begin.
  func hasCoStarter(_ run: Int) -> Bool { anotherBegins(after: run, by: runs[run].begin) }
}

extension ReplayEngine {
  /// The index in `runs` of `action`'s run under way at `time` (begun at or before it, ended at
  /// or after it), if any. `runs` are in begin order.
  fileprivate func lastRunIndex(
    of action: ActionIndex, in runs: [ProcessExport.Run], at time: Int64
  ) -> Int? {
    // Runs are few per action and in begin order: search back from the last run begun by `time`.
    var index = runs.partitioningIndex { $0.begin > time } - 1
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

/// The first number after `start` that a viewer reads as an id (1 … `UInt32.max`, wrapping to 1)
/// and that `isTaken` does not reject.
private func firstFree(after start: Int, isTaken: (Int) -> Bool) -> Int {
  var candidate = start < Int(UInt32.max) ? max(start + 1, 1) : 1
  while isTaken(candidate) { candidate = candidate < Int(UInt32.max) ? candidate + 1 : 1 }
  return candidate
}

/// The tracks of a process's schedulers and which runs go on them. A run goes on the first track of
/// its scheduler that is free at its begin; an inline `sync` goes inside its parent's run when that
/// run is on top of a track of the scheduler and holds it whole; otherwise the scheduler gets one more
/// track. So on a track a slice lies inside another only as an inline `sync` of it, as a viewer
/// draws a slice inside another as its child.
private struct TrackTable {
  struct Track {
    /// The scheduler's slot.
    var scheduler: Int
    /// Its position among the scheduler's tracks, from 0.
    var lane: Int
    var tid: Int
    /// The runs open on it, innermost last: where their slices end, and their actions.
    var open: [(end: Int64, action: ActionIndex)] = []
  }

  private(set) var tracks: [Track] = []
  private var byScheduler: [[Int]]
  private var usedTids: Set<Int>
  /// The tid of each scheduler's first track: the scheduler's id in the trace, which a viewer shows
  /// after its name (nil for an id of 0, which a viewer takes for no thread, and for the slot of
  /// work on undefined schedulers).
  private let firstTids: [Int?]
  /// Tids for more tracks, after every scheduler id.
  private var nextTid: Int

  init(replay: ReplayEngine) {
    byScheduler = Array(repeating: [], count: replay.schedulerSlotCount)
    let ids = replay.schedulers.map { Int($0.id) }
    firstTids = (0..<replay.schedulerSlotCount).map { slot in
      slot < ids.count && ids[slot] > 0 ? ids[slot] : nil
    }
    usedTids = Set(firstTids.compactMap { $0 })
    nextTid = (ids.max() ?? 0) + 1
  }

  /// The tracks in the order to show them: by scheduler, then lane.
  var ordered: [Track] { byScheduler.flatMap { $0.map { tracks[$0] } } }

  /// The tid of `scheduler`'s first track (0 if it has none).
  func firstTid(scheduler: Int) -> Int {
    guard let first = byScheduler[scheduler].first else { return 0 }
    return tracks[first].tid
  }

  /// Gives `scheduler` its first track if it has none yet.
  mutating func ensureTrack(scheduler: Int) {
    if byScheduler[scheduler].isEmpty { _ = addTrack(scheduler: scheduler) }
  }

  private mutating func addTrack(scheduler: Int) -> Int {
    let lane = byScheduler[scheduler].count
    let tid: Int
    if lane == 0, let first = firstTids[scheduler] {
      tid = first
    } else {
      tid = firstFree(after: nextTid - 1) { usedTids.contains($0) }
      usedTids.insert(tid)
      nextTid = tid + 1
    }
    tracks.append(Track(scheduler: scheduler, lane: lane, tid: tid))
    byScheduler[scheduler].append(tracks.count - 1)
    return tracks.count - 1
  }

  /// The track (an index in `tracks`) of a run of `action` on `scheduler` from `begin` to `end` (where
  /// its slice ends), an inline `sync` of `parent` if given.
  mutating func place(
    scheduler: Int, begin: Int64, end: Int64, action: ActionIndex, inlineIn parent: ActionIndex?
  ) -> Int {
    for track in byScheduler[scheduler] {
      while let top = tracks[track].open.last, top.end <= begin {
        tracks[track].open.removeLast()
      }
    }
    if let parent {
      for track in byScheduler[scheduler] {
        if let top = tracks[track].open.last, top.action == parent, end <= top.end {
          tracks[track].open.append((end, action))
          return track
        }
      }
    }
    for track in byScheduler[scheduler] where tracks[track].open.isEmpty {
      tracks[track].open.append((end, action))
      return track
    }
    let track = addTrack(scheduler: scheduler)
    tracks[track].open.append((end, action))
    return track
  }
}

/// The export's pieces of Chrome trace JSON, written with the package's one JSON writer. Events
/// are elements of `traceEvents`, each on a line of its own.
extension JSONWriter {
  func eventStart(phase: StaticString, name: String, category: StaticString) {
    eventStart(phase: phase, category: category)
    string(name)
  }

  /// Starts an event up to its name's value, which the caller writes.
  func eventStart(phase: StaticString, category: StaticString) {
    if chunkIsFull { flush() }
    raw(needsComma ? ",\n{\"ph\":\"" : "\n{\"ph\":\"")
    needsComma = true
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

  /// `,"name":` (or `"name":` for the first of an object), the name escaped.
  func member(_ name: String, first: Bool = false) {
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
    withSpace(4) { base in
      base[0] = UInt8(ascii: ".")
      base[1] = UInt8(48 + fraction / 100)
      base[2] = UInt8(48 + fraction / 10 % 10)
      base[3] = UInt8(48 + fraction % 10)
      return 4
    }
  }
}
