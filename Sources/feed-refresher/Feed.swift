import Dispatch
import Foundation
import Synchronization

/// Stories fetched so far, shared between tasks.
actor StoryCache {
  private var stories: [Int: String] = [:]

  func store(_ story: String, id: Int) { stories[id] = story }
  var count: Int { stories.count }
}

/// The "network": each fetch takes a few milliseconds.
func fetchStory(_ id: Int) async throws -> String {
  try await Task.sleep(for: .milliseconds(5 + id % 3))
  return "story \(id)"
}

/// The "screen", updated on the main actor.
@MainActor
final class Screen {
  private(set) var lines: [String] = []

  func show(_ line: String) { lines.append(line) }
}

/// The program, outside the main actor: its closures run on Dispatch's threads.
enum FeedRefresher {
  static let database = DispatchQueue(label: "feed.database")
  static let thumbnails: OperationQueue = {
    let queue = OperationQueue()
    queue.name = "feed.thumbnails"
    queue.maxConcurrentOperationCount = 2
    return queue
  }()
  static let cache = StoryCache()
  static let finished = DispatchGroup()
  static let ticks = Atomic<Int>(0)

  /// Saves stories: slow, because it writes the whole feed each time.
  static func save(_ count: Int) {
    database.async {
      usleep(400_000)
    }
  }

  /// The bug: reads the database synchronously from the main queue.
  static func refreshScreen(_ screen: Screen) {
    DispatchQueue.main.async {
      let count = database.sync { 12 }
      MainActor.assumeIsolated { screen.show("\(count) stories") }
    }
  }

  static func run(_ screen: Screen) {
    // Refresh every 50 ms, three times, on a Dispatch timer.
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
    finished.enter()
    timer.schedule(deadline: .now() + .milliseconds(20), repeating: .milliseconds(50))
    timer.setEventHandler {
      if ticks.add(1, ordering: .relaxed).newValue == 3 {
        timer.cancel()
        finished.leave()
      }
    }
    timer.resume()

    // Fetch the feed with a task group, caching each story in the actor.
    finished.enter()
    Task.detached {
      try await withThrowingTaskGroup(of: (Int, String).self) { group in
        for id in 1...4 {
          group.addTask { (id, try await fetchStory(id)) }
        }
        for try await (id, story) in group {
          await cache.store(story, id: id)
        }
      }
      let count = await cache.count
      await MainActor.run { screen.show("fetched \(count)") }
      // Decode the thumbnails, two at a time.
      for index in 1...4 {
        thumbnails.addOperation { usleep(2_000 + UInt32(index) * 500) }
      }
      thumbnails.addBarrierBlock { finished.leave() }
    }

    // A slow save, then the refresh that waits for it on the main thread.
    finished.enter()
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(30)) {
      save(4)
      refreshScreen(screen)
      DispatchQueue.main.async { finished.leave() }
    }

    finished.notify(queue: .main) {
      MainActor.assumeIsolated {
        print(
          "feed-refresher: \(screen.lines.joined(separator: ", ")); \(ticks.load(ordering: .relaxed)) refreshes"
        )
      }
      exit(0)
    }
  }
}
