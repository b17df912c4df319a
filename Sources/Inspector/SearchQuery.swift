import Replay
import TraceFormat

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
    if lowered.hasPrefix("#"), let id = UInt32(lowered.dropFirst()) {
      field = .action(ActionID(rawValue: id))
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

  /// The events that match, in order.
  ///
  /// - Complexity: O(events + queues + call sites + marks + threads + named work).
  func matches(in replay: ReplayEngine) -> [EventIndex] {
    if case .action(let id) = field {
      guard let action = replay.index(of: id) else { return [] }
      return replay.eventIndices.filter { replay.event($0).action == action }
    }
    guard !text.isEmpty else { return [] }
    let labels = Set(
      wants(.label)
        ? replay.queues.filter { $0.label.lowercased().contains(text) }.map {
          QueueID(rawValue: $0.id)
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
    return replay.eventIndices.filter { index in
      let event = replay.event(index)
      switch event.kind {
      case .mark:
        if let mark = event.markIndex, marks.indices.contains(mark), marks[mark] { return true }
        return threads.contains(event.thread)
      case .schedule, .begin:
        guard let action = event.action else { return false }
        if labels.contains(replay.action(action).queue) { return true }
        if event.kind == .begin, threads.contains(event.thread) { return true }
        if named, let work = replay.work(of: action) {
          let found = works[work] ?? Self.matches(work, text)
          works[work] = found
          if found { return true }
        }
        guard wants(.site), let site = replay.callSite(of: action) else { return false }
        if let known = sites[site.id] { return known }
        let found = matches(site)
        sites[site.id] = found
        return found
      case .end, .hop, .cancel, .task, .work:
        return false
      }
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
      return "\(site.file):\(site.line) \(site.function)".lowercased().contains(text)
    }
    let file = site.file.split(separator: "/").last.map(String.init) ?? site.file
    let stem = file.split(separator: ".").first.map(String.init) ?? file
    return stem.lowercased().contains(text) || site.function.lowercased().contains(text)
  }
}
