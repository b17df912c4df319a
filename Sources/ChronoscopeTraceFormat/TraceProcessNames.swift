/// The file each process image of a recorded program writes (`chronoscope record`, its preload
/// library), so that no two ever share one: a program that starts other processes, or replaces
/// itself with `exec`, gives each its own trace. The recorder names the files and `record`
/// finds them by the same rule.
///
/// Each image that records has a name: its process id (`4242`) for the first image of a
/// process, and `4242-exec1`, `4242-exec2`… for the images that process `exec`s into. `%p` in a
/// path stands for it. A path without `%p` is the first recorded image's alone (the program
/// `record` started, usually); every other image writes beside it with its name before the
/// extension: `one.trace`, then `one-4243.trace` for a child, `one-4242-exec1.trace` for what
/// the program `exec`ed into.
package enum TraceProcessNames {
  /// The name of an image of process `pid`, and whether it is the first image to record, from
  /// `inherited`: the name of the image that recorded last in its line (its own earlier image,
  /// or an ancestor), nil when none did.
  package static func image(pid: Int32, inherited: String?) -> (name: String, isFirst: Bool) {
    guard let inherited, let process = process(of: inherited) else { return ("\(pid)", true) }
    guard process == pid else { return ("\(pid)", false) }
    return ("\(pid)-exec\(execs(in: inherited) &+ 1)", false)
  }

  /// The process id an image's name starts with; nil when it is no image name.
  package static func process(of name: String) -> Int32? {
    guard isImageName(Substring(name)) else { return nil }
    return Int32(name.prefix { $0 != "-" })
  }

  /// The path image `name` writes for `template`: `%p` replaced by the name; without `%p`, the
  /// template itself for the first image, else ``othersTemplate(_:)``'s path.
  package static func path(_ template: String, image name: String, isFirst: Bool) -> String {
    if template.contains("%p") { return template.replacingOccurrences(of: "%p", with: name) }
    guard !isFirst else { return template }
    return othersTemplate(template).replacingOccurrences(of: "%p", with: name)
  }

  /// Where images other than the first write, for a template without `%p`: `one-%p.trace` for
  /// `one.trace`.
  package static func othersTemplate(_ template: String) -> String {
    let (stem, suffix) = TraceRotationNames.split(template)
    return "\(stem)-%p\(suffix)"
  }

  /// Whether `text` is what `%p` became in a file of the recording: an image's name, followed by
  /// `.N` in a rotated file (see ``TraceRotationNames``).
  package static func isFileName(_ text: Substring) -> Bool {
    let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard let name = parts.first, isImageName(name) else { return false }
    return parts.count == 1 || isNumber(parts[1])
  }

  private static func isImageName(_ text: Substring) -> Bool {
    let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard let pid = parts.first, isNumber(pid) else { return false }
    guard parts.count == 2 else { return true }
    return parts[1].hasPrefix("exec") && isNumber(parts[1].dropFirst(4))
  }

  private static func execs(in name: String) -> Int {
    guard let range = name.range(of: "-exec") else { return 0 }
    return Int(name[range.upperBound...]) ?? 0
  }

  private static func isNumber(_ text: Substring) -> Bool {
    !text.isEmpty && text.count <= 10 && text.allSatisfy { $0 >= "0" && $0 <= "9" }
  }
}
