import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import HeapModule

extension LatenessBlame {
  /// The blame for each `late` finding of `replay`, by the finding's offset in `findings`: the
  /// run the finding names (its worst). Each blame keeps at most `maxShares` stretches, the
  /// longest, in time order; the rest are counted in ``omittedShares`` and
  /// ``omittedDuration``.
  ///
  /// Late runs that wait for the same things (a scheduler, the main thread, the worker threads)
  /// share one timeline of who held them up, made in one pass over the events and kept only
  /// across their windows: however many late findings overlap, the pass is made once.
  ///
  /// - Complexity: O(n) for n events, plus, per late finding, the stretches in its window.
  package static func blames(
    for findings: [Finding], in replay: ReplayEngine, maxShares: Int = reportedShares
  ) -> [Int: LatenessBlame] {
    var requests: [(offset: Int, request: Request)] = []
    for offset in findings.indices where findings[offset].kind == .late {
      let finding = findings[offset]
      if let action = finding.action,
        let request = Request(action: action, begunAt: finding.time, in: replay)
      {
        requests.append((offset, request))
      }
    }
    guard !requests.isEmpty else { return [:] }
    // One timeline per counting, found by the scheduler or thread whose runs it counts.
    var slots: [Counting: Int] = [:]
    var timelines: [Timeline] = []
    for (_, request) in requests {
      let slot = slots[request.counting] ?? timelines.count
      if slot == timelines.count {
        slots[request.counting] = slot
        timelines.append(Timeline(counting: request.counting, from: request.due))
      }
      timelines[slot].need(request.due...request.began)
    }
    var byScheduler: [SchedulerID: Int] = [:]
    var byThread: [ThreadID: Int] = [:]
    var workers: [Int] = []
    for slot in timelines.indices {
      timelines[slot].prepare()
      let counting = timelines[slot].counting
      if let scheduler = counting.scheduler { byScheduler[scheduler] = slot }
      if let thread = counting.thread { byThread[thread] = slot }
      if counting.basis == .threads { workers.append(slot) }
    }
    // Every window ends at its run's begin: nothing after the latest matters.
    let last = requests.map { $0.1.began }.max() ?? 0
    var cursor = replay
    cursor.seek(to: 0)
    while cursor.position < cursor.eventCount {
      let event = cursor.event(EventIndex(cursor.position))
      guard event.time <= last else { break }
      cursor.stepForward()
      guard let subject = event.action, event.kind == .begin || event.kind == .end else {
        continue
      }
      // The replay's own answer: a begin it ignores (a stray one) starts no run.
      let current = cursor.currentRun(of: subject)
      func visit(_ slot: Int) {
        let counts = current.map { timelines[slot].counting(subject, on: $0.thread, cursor) }
        guard counts == true || timelines[slot].sweep.under[subject] != nil else { return }
        timelines[slot].update(subject, to: counts == true ? current : nil, at: event.time)
      }
      for slot in workers { visit(slot) }
      if let slot = byScheduler[cursor.actionRecord(subject).scheduler] { visit(slot) }
      if let slot = byThread[current?.thread ?? event.thread] { visit(slot) }
    }
    var blames: [Int: LatenessBlame] = [:]
    for slot in timelines.indices { timelines[slot].finish() }
    for (offset, request) in requests {
      guard let slot = slots[request.counting] else { continue }
      blames[offset] = timelines[slot].blame(request, keeping: maxShares)
    }
    return blames
  }

  /// Who held up the runs of one counting, over the windows of its late runs.
  private struct Timeline {
    let counting: Counting
    var sweep: Sweep
    /// The late runs' windows, merged and in order, once prepared.
    private var windows: [ClosedRange<Int64>] = []
    /// The first window not yet behind the sweep.
    private var nextWindow = 0
    /// The stretches kept: those that reach into a window.
    private var kept: [Share] = []

    init(counting: Counting, from time: Int64) {
      self.counting = counting
      sweep = Sweep(from: time)
    }

    mutating func need(_ window: ClosedRange<Int64>) {
      windows.append(window)
      sweep.time = min(sweep.time, window.lowerBound)
    }

    /// Merges the windows.
    mutating func prepare() {
      var merged: [ClosedRange<Int64>] = []
      for window in windows.sorted(by: { $0.lowerBound < $1.lowerBound }) {
        if let last = merged.last, window.lowerBound <= last.upperBound {
          merged[merged.count - 1] = last.lowerBound...max(last.upperBound, window.upperBound)
        } else {
          merged.append(window)
        }
      }
      windows = merged
    }

    /// `action`'s run is now `run` (nil: none, or one that does not count), from `time`.
    mutating func update(_ action: ActionIndex, to run: CurrentRun?, at time: Int64) {
      sweep.advance(to: time)
      sweep.under[action] = run
      keepWhatReachesAWindow()
    }

    /// Ends the stretches at the end of the last window, after the pass.
    mutating func finish() {
      if let end = windows.last?.upperBound { sweep.advance(to: end) }
      keepWhatReachesAWindow(all: true)
    }

    /// Moves the finished stretches out of the sweep (all of them at the end: `all`), keeping
    /// those that reach into a window.
    private mutating func keepWhatReachesAWindow(all: Bool = false) {
      // The last stretch may still grow; the ones before it are finished.
      let finished = all ? sweep.shares.count : sweep.shares.count - 1
      guard finished > 0 else { return }
      for share in sweep.shares.prefix(finished) {
        while nextWindow < windows.count, windows[nextWindow].upperBound <= share.from {
          nextWindow += 1
        }
        if nextWindow < windows.count, share.to > windows[nextWindow].lowerBound {
          kept.append(share)
        }
      }
      sweep.shares.removeFirst(finished)
    }

    /// The blame of `request`: the stretches of its window, cut to it, at most `limit` of them
    /// (the longest, in time order), once finished.
    ///
    /// - Complexity: O(s log `limit`) for the s stretches in the window.
    func blame(_ request: Request, keeping limit: Int) -> LatenessBlame {
      let (from, to) = (request.due, request.began)
      // The first stretch that ends after `from`.
      let low = kept.partitioningIndex { $0.to > from }
      let window = kept[low...].lazy.prefix { $0.from < to }.map { share in
        var share = share
        share.from = max(share.from, from)
        share.to = min(share.to, to)
        return share
      }
      let (shares, omitted) = LatenessBlame.longest(window, keeping: limit)
      var blame = request.blame(shares)
      blame.omittedShares = omitted.count
      blame.omittedDuration = omitted.duration
      return blame
    }
  }

  /// At most `limit` of `shares` (in time order), the longest, in time order, and how many were
  /// left out and how long they lasted together: what every report of a blame shows, so that a
  /// late run on a busy machine (hundreds of thousands of changes in who was busy) reads as its
  /// few longest stretches and one line for the rest.
  ///
  /// - Complexity: O(s log `limit`) for s stretches.
  package static func longest(_ shares: some Sequence<Share>, keeping limit: Int) -> (
    shares: [Share], omitted: (count: Int, duration: Int64)
  ) {
    var longest = Heap<Ranked>()
    var omitted = (count: 0, duration: Int64(0))
    for (index, share) in shares.enumerated() {
      var ranked = Ranked(share: share, index: index)
      if longest.count >= max(limit, 0) {
        // Full: the new one is left out, or takes the place of the shortest kept.
        if let shortest = longest.min, shortest < ranked {
          ranked = longest.replaceMin(with: ranked)
        }
        omitted.count += 1
        omitted.duration = omitted.duration.adding(saturating: ranked.share.duration)
      } else {
        longest.insert(ranked)
      }
    }
    return (longest.unordered.sorted { $0.index < $1.index }.map(\.share), omitted)
  }

  /// How many stretches a report of a blame lists (`check --json`, the inspector's page,
  /// `show --action`): the longest, in time order, and a count of the rest.
  package static let reportedShares = 10

  /// This blame with at most `limit` stretches: the longest, in time order, the rest counted in
  /// ``omittedShares`` and ``omittedDuration``.
  package func keepingLongest(_ limit: Int) -> LatenessBlame {
    let (kept, omitted) = Self.longest(shares, keeping: limit)
    var blame = self
    blame.shares = kept
    blame.omittedShares += omitted.count
    blame.omittedDuration = blame.omittedDuration.adding(saturating: omitted.duration)
    return blame
  }

  /// A stretch ranked for keeping: the longer first, then the earlier.
  private struct Ranked: Comparable {
    let share: Share
    let index: Int

    static func < (lhs: Ranked, rhs: Ranked) -> Bool {
      (lhs.share.duration, rhs.index) < (rhs.share.duration, lhs.index)
    }

    static func == (lhs: Ranked, rhs: Ranked) -> Bool { lhs.index == rhs.index }
  }
}
