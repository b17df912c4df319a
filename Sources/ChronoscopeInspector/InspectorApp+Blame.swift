@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay

extension InspectorApp {
  /// The action each stretch of `action`'s blame names, in order: nil for a stretch in which
  /// nothing it waited for ran.
  func blameLinks(of action: ActionIndex) -> [ActionIndex?] {
    blame(of: action)?.shares.map(\.action) ?? []
  }

  /// Why `action`'s worst run began late: the account the page made when it opened, if it is
  /// this action's, else made now.
  private func blame(of action: ActionIndex) -> LatenessBlame? {
    if let shownBlame = cache.shownBlame, shownBlame.action == action { return shownBlame.blame }
    return Self.reportedBlame(of: action, in: replay)
  }

  /// Why `action`'s worst run began late, as every report shows it: its longest stretches, in
  /// time order, and a count of the rest (``LatenessBlame/reportedShares``). A late run on a
  /// busy machine has a stretch per change in who was busy: hundreds of thousands.
  static func reportedBlame(of action: ActionIndex, in replay: ReplayEngine) -> LatenessBlame? {
    LatenessBlame.worstRun(of: action, in: replay)?.keepingLongest(LatenessBlame.reportedShares)
  }

  /// The line that counts the stretches a blame leaves out, if it leaves any out.
  private func omittedLine(_ blame: LatenessBlame) -> String? {
    guard blame.omittedShares > 0 else { return nil }
    let count = blame.omittedShares
    return
      "… and \(count) shorter stretch\(count == 1 ? "" : "es"), \(TimeText.duration(blame.omittedDuration)) in all"
  }

  /// What the page of why `action` was late shows, `link` its selected stretch; nil when it
  /// never began late.
  func blamePanel(of action: ActionIndex, link: Int) -> BlamePanel? {
    guard let blame = blame(of: action) else { return nil }
    return BlamePanel(
      title: blameTitle(blame), lines: blameLines(blame),
      stretches: blame.shares.map {
        BlamePanel.Stretch(text: blameRow($0, of: blame), isIdle: $0.action == nil)
      }, omitted: omittedLine(blame), selected: link)
  }

  /// `show --action`'s account of why the action was late, as plain lines; nil when it never
  /// began late.
  package func whyLate(of id: ActionID) -> [String]? {
    guard let action = replay.index(of: id), let blame = Self.reportedBlame(of: action, in: replay)
    else { return nil }
    let heldUpBy =
      blame.omittedShares > 0 ? "  held up by (the longest, in time order)" : "  held up by"
    return [blameTitle(blame)]
      + blameLines(blame).map { "  \($0.0.padded(to: 13))\($0.1)" }
      + [heldUpBy] + blame.shares.map { "    " + blameRow($0, of: blame) }
      + (omittedLine(blame).map { ["    " + $0] } ?? [])
  }

  private func blameTitle(_ blame: LatenessBlame) -> String {
    "Why \(replay.action(blame.action).id) was late · run \(blame.run) · \(TimeText.duration(blame.lateness))"
  }

  private func blameLines(_ blame: LatenessBlame) -> [(String, String)] {
    let waited =
      switch blame.basis {
      case .scheduler:
        "its serial scheduler \(schedulerLabel(of: blame.action)): the runs ahead of it"
      case .mainThread: "the main thread: what ran on it"
      case .threads:
        "the worker threads: what ran on them (each moment given to the run under way longest)"
      }
    return [
      ("due", TimeText.seconds(blame.due)),
      ("began", "\(TimeText.seconds(blame.began)), \(TimeText.duration(blame.lateness)) late"),
      ("waited for", waited),
    ]
  }

  /// One stretch: how long, who held things up (or that nothing did), and when.
  private func blameRow(_ share: LatenessBlame.Share, of blame: LatenessBlame) -> String {
    let when = "\(TimeText.seconds(share.from)) → \(TimeText.seconds(share.to))"
    let length = TimeText.duration(share.duration).padded(to: 12)
    guard let action = share.action else {
      let idle =
        switch blame.basis {
        case .scheduler:
          "nothing ran on \(schedulerLabel(of: blame.action)) (waiting for a thread, or the scheduler's own delay)"
        case .mainThread: "nothing ran on the main thread (the scheduler's own delay)"
        case .threads: "no worker thread ran the trace's work (the scheduler's own delay)"
        }
      return "\(length)\(idle), \(when)"
    }
    let thread = share.thread.map { " on \(threadTitle($0))" } ?? ""
    let busy = blame.basis == .threads && share.busy > 1 ? " (\(share.busy) threads busy)" : ""
    return
      "\(length)\(label(of: action).padded(to: 16))\(schedulerLabel(of: action).padded(to: 20))run \(share.run)\(thread), \(when)\(busy) · \(site(of: action))"
  }
}
