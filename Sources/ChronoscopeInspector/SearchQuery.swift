@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// What `/` searches for: free text, or one field (`label:`, `site:`, `mark:`, `thread:`,
/// `name:` for named work) or an action (`#12`).
struct SearchQuery: Equatable, Sendable {
  enum Field: Equatable, Sendable {
    /// Labels, call sites (file name without extension, function), marks and their fields,
    /// thread names, the names and values of named work.
    case any
    case label, site, mark, thread, name
    case action(ActionID)
  }

  let field: Field
  /// Lowercased text to find.
  let text: String

  init(_ query: String) {
    let trimmed = query.trimmingCharacters(in: .whitespaces)
    let lowered = trimmed.lowercased()
    if let id = ActionID(parsing: trimmed, requiringHash: true) {
      field = .action(id)
      text = ""
      return
    }
    let prefixes: [(String, Field)] = [
      ("label:", .label), ("site:", .site), ("mark:", .mark), ("thread:", .thread),
      ("name:", .name),
    ]
    for (prefix, field) in prefixes where lowered.hasPrefix(prefix) {
      self.field = field
      text = String(lowered.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
      return
    }
    field = .any
    text = lowered
  }

  private func wants(_ candidate: Field) -> Bool { field == .any || field == candidate }

  /// The events that match, in order: every event of an action whose label, call site or named
  /// work matches, the marks that match, and the marks made and runs begun on a matching thread.
  ///
  /// - Complexity: O(events + schedulers + call sites + marks + threads + named work).
  func matches(in replay: ReplayEngine) -> [EventIndex] {
    if case .action(let id) = field {
      guard let action = replay.index(of: id) else { return [] }
      return replay.eventIndices.filter { replay.event($0).action == action }
    }
    guard !text.isEmpty else { return [] }
    let labels = Set(
      wants(.label)
        ? replay.schedulers.filter { $0.label.lowercased().contains(text) }.map {
          SchedulerID(rawValue: $0.id)
        } : [])
    var sites: [UInt32: Bool] = [:]
    let threads = Set(
      wants(.thread)
        ? replay.threads.filter {
          $0.title.lowercased().contains(text)
            || ($0.recordedName?.lowercased().contains(text) ?? false)
        }.map(\.id) : [])
    let marks =
      wants(.mark)
      ? replay.marks.map { mark in
        mark.name.lowercased().contains(text)
          || mark.fields.contains { "\($0.key)=\($0.value)".lowercased().contains(text) }
      } : []
    let named = wants(.name) && replay.hasNamedWork
    var works: [WorkRecord: Bool] = [:]
    // Every event of a matching action, so that `n` steps through its whole life (its hops,
    // ends and cancels too), as `#12` does; a thread matches where work began on it.
    var actions: [ActionIndex: Bool] = [:]
    func matches(_ action: ActionIndex) -> Bool {
      if let known = actions[action] { return known }
      var found = labels.contains(replay.action(action).scheduler)
      if !found, named, let work = replay.work(of: action) {
        found = works[work] ?? Self.matches(work, text)
        works[work] = found
      }
      if !found, wants(.site), let site = replay.callSite(of: action) {
        found = sites[site.id] ?? self.matches(site)
        sites[site.id] = found
      }
      actions[action] = found
      return found
    }
    return replay.eventIndices.filter { index in
      let event = replay.event(index)
      if event.kind == .mark {
        if let mark = event.markIndex, marks.indices.contains(mark), marks[mark] { return true }
        return threads.contains(event.thread)
      }
      if event.kind == .begin, threads.contains(event.thread) { return true }
      return event.action.map(matches) ?? false
    }
  }

  /// Whether named work's name, or one of its `key=value` pairs, contains `text`.
  private static func matches(_ work: WorkRecord, _ text: String) -> Bool {
    work.name.lowercased().contains(text)
      || work.fields.contains { "\($0.key)=\($0.value)".lowercased().contains(text) }
  }

  /// Free text matches a site's file name without its extension and its function (so `swift`
  /// does not match every site); `site:` matches the whole `file:line function`.
  private func matches(_ site: CallSiteRecord) -> Bool {
    if field == .site {
      return site.text.lowercased().contains(text)
    }
    let file = site.file.split(separator: "/").last.map(String.init) ?? site.file
    let stem = file.split(separator: ".").first.map(String.init) ?? file
    return stem.lowercased().contains(text) || site.function.lowercased().contains(text)
  }
}
