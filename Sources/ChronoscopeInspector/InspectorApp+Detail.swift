import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// An action the detail view links to, and how it is related.
struct DetailLink: Equatable {
  /// `scheduled by`, `cancelled by`, `scheduled`, `cancelled`.
  let role: String
  let action: ActionIndex
}

extension InspectorApp {
  /// The actions related to `action`, in the order the detail view lists them: the one that
  /// scheduled it, the one that cancelled it, what it scheduled, what it cancelled.
  func detailLinks(of action: ActionIndex) -> [DetailLink] {
    let life = replay.life(of: action)
    var links: [DetailLink] = []
    if let parent = replay.action(action).parent {
      links.append(DetailLink(role: "scheduled by", action: parent))
    }
    if let canceller = life.cancelledBy {
      links.append(DetailLink(role: "cancelled by", action: canceller))
    }
    links += life.children.map { DetailLink(role: "scheduled", action: $0) }
    links += life.cancelled.map { DetailLink(role: "cancelled", action: $0) }
    return links
  }

  /// What the detail page of `action` shows, `link` its selected related action.
  func detailPanel(of action: ActionIndex, link: Int) -> DetailPanel {
    let info = replay.action(action)
    let life = replay.life(of: action)
    let scheduler =
      replay.scheduler(info.scheduler).map {
        "\(schedulerLabel(of: action)) (\($0.kind), \($0.family))"
      }
      ?? "scheduler \(info.scheduler.rawValue)"
    let task = replay.task(of: action).flatMap { task in
      replay.task(task).map { info in
        "\(task), whose work is \(info.actionCount == 1 ? "1 action" : "\(info.actionCount) actions")"
      }
    }
    let followed = state.history.compactMap { mode -> ActionIndex? in
      if case .detail(let action, _) = mode { action } else { nil }
    }
    let links = detailLinks(of: action)
    return DetailPanel(
      id: "\(info.id)", mode: info.mode,
      work: replay.work(of: action).map { ($0.name, $0.fields) },
      trail: followed.map { "\(replay.action($0).id)" }, scheduler: scheduler, task: task,
      scheduled: "at \(TimeText.seconds(info.scheduledAt)) on \(threadTitle(info.scheduledOn))",
      callSite: replay.callSite(of: action).map {
        DetailPanel.CallSite(file: $0.file, line: $0.line, function: $0.function)
      },
      delay: info.delay, due: info.due, runCount: life.runs.count,
      runs: DetailPanel.shownRuns(of: life.runs.count).map { index in
        let run = life.runs[index]
        return (
          index,
          DetailPanel.Run(
            number: run.number, due: run.due, began: run.began, ended: run.ended,
            thread: threadTitle(run.thread), hoppedFrom: run.hoppedFrom.map(threadTitle))
        )
      },
      cancelled: life.cancelledAt.map { ($0, life.cancelledAfterStart) },
      status: replay.status(of: action), clock: state.clock,
      links: ActionLinksPanel(
        title: "Related (\(links.count)) · j/k select · ⏎ follow · esc back",
        rows: links.map { linkRow(of: $0.action, role: $0.role) }, selected: link,
        hasNamedWork: replay.hasNamedWork))
  }

  /// A row of a list of related actions.
  func linkRow(of action: ActionIndex, role: String = "") -> ActionLinksPanel.Row {
    ActionLinksPanel.Row(
      role: role, label: label(of: action), scheduler: schedulerLane(of: action),
      workName: workName(of: action), site: site(of: action))
  }

  /// What the help shows.
  var helpPanel: HelpPanel {
    HelpPanel(
      isVirtualClock: replay.header.clock == .virtual, timeStep: state.timeStep,
      scroll: state.helpScroll)
  }

  /// The most the help scrolls at the screen's size (the smallest screen's when none is known
  /// yet): so that `k` after many `j` moves it at once.
  var helpScrollLimit: Int {
    let size = screenSize ?? (Self.minimumWidth, Self.minimumHeight)
    return helpPanel.scrollLimit(width: size.width, height: size.height)
  }
}
