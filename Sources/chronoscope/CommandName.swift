import ArgumentParser
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen
import Foundation

/// Tells a mistyped command from a trace file for the default command (`view`), which takes
/// files: `chronoscope sohw x` names no file, so it is a command that does not exist.
enum CommandName {
  /// The commands, as typed.
  static var commands: [String] {
    Chronoscope.configuration.subcommands.map { $0._commandName } + ["help"]
  }

  /// What to print when `arguments` start with a word that is neither a command nor a file —
  /// `unknown command 'sohw' (did you mean 'show'?)` — or nil when they do not.
  ///
  /// A word counts as a command's name when it has no `/` and no `.` (trace files have a
  /// suffix) and names no file here, so `chronoscope app.trace` still opens the inspector and
  /// `chronoscope missing.trace` still says there is no such file.
  static func unknownCommand(in arguments: [String]) -> String? {
    guard let word = arguments.first, !word.hasPrefix("-"), !commands.contains(word),
      !word.contains("/"), !word.contains("."), !FileManager.default.fileExists(atPath: word)
    else { return nil }
    let name = TextWidth.sanitized(word)
    var message = "unknown command '\(name)'"
    if let nearest = nearest(to: word) { message += " (did you mean '\(nearest)'?)" }
    return message + "; 'chronoscope --help' lists the commands."
      + "\nTo open a trace file, name it: chronoscope view FILE.trace"
  }

  /// The command nearest to `word` by edit distance (a swap of two neighbours counts as one
  /// edit, as in `sohw`), when it is near enough to be a typo: at most a third of its letters.
  static func nearest(to word: String) -> String? {
    let word = word.lowercased()
    let scored = commands.dropLast().map { (name: $0, distance: distance(word, $0)) }
    guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
    return best.distance <= max(1, best.name.count / 3) ? best.name : nil
  }

  /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
  /// two neighbouring characters each cost one.
  static func distance(_ first: String, _ second: String) -> Int {
    let a = Array(first)
    let b = Array(second)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }
}
