#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The floor of any line reader: the newlines in `bytes`, found with `memchr`.
@inline(never)
public func newlineCount(_ bytes: UnsafeRawBufferPointer) -> Int {
  guard var cursor = bytes.baseAddress else { return 0 }
  var left = bytes.count
  var lines = 0
  while left > 0, let newline = memchr(cursor, 0x0A, left) {
    lines += 1
    let consumed = UnsafeRawPointer(newline) - cursor + 1
    cursor += consumed
    left -= consumed
  }
  return lines
}
