import Dispatch
import Foundation

let queue = DispatchQueue(label: "app.work")
let group = DispatchGroup()
for i in 0..<10 {
  group.enter()
  queue.async { _ = i; group.leave() }
}
group.wait()
let done = DispatchSemaphore(value: 0)
Task.detached {
  try? await Task.sleep(for: .milliseconds(10))
  await withTaskGroup(of: Int.self) { g in for i in 0..<5 { g.addTask { i } } }
  done.signal()
}
done.wait()
print("app done")
