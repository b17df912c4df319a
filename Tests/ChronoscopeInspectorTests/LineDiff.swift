/// A line diff for golden files: the lines only in `expected` as `- `, those only in `actual` as
/// `+ `, each with its line number, from a longest common subsequence, so an added or removed
/// line shows as itself instead of shifting every line after it.
func lineDiff(expected: String, actual: String) -> String {
  let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
  // common[i][j]: the length of the longest common subsequence of old[i...] and new[j...].
  var common = [[Int]](repeating: [Int](repeating: 0, count: new.count + 1), count: old.count + 1)
  for i in old.indices.reversed() {
    for j in new.indices.reversed() {
      common[i][j] =
        old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
    }
  }
  var lines: [String] = []
  var i = 0
  var j = 0
  while i < old.count || j < new.count {
    if i < old.count, j < new.count, old[i] == new[j] {
      i += 1
      j += 1
    } else if i < old.count, j == new.count || common[i + 1][j] >= common[i][j + 1] {
      lines.append("- \(i + 1): \(old[i])")
      i += 1
    } else {
      lines.append("+ \(j + 1): \(new[j])")
      j += 1
    }
  }
  return lines.joined(separator: "\n")
}
