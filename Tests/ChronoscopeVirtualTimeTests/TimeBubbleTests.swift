import ChronoscopeVirtualTime
import Dispatch
import Foundation
import Synchronization
import XCTest

/// Unchanged code (Unchanged/, which imports only Foundation) run in a time bubble under XCTest.
final class TimeBubbleTests: XCTestCase {
  func testARetryWithExponentialBackoffReturnsAtOnceThirtyVirtualSecondsLater() async throws {
    let realStart = ContinuousClock.now
    let (result, elapsed, calls) = try await withTimeBubble { _ in
      let start = ContinuousClock.now
      let client = FlakyClient(failures: 4)
      let result = try await client.fetchWithRetry()
      return (result, ContinuousClock.now - start, client.callTimes)
    }
    XCTAssertEqual(result, "ok")
    XCTAssertEqual(elapsed, .seconds(30))
    XCTAssertEqual(
      calls.map { $0.timeIntervalSinceReferenceDate }, [0, 2, 6, 14, 30])
    XCTAssertLessThan(ContinuousClock.now - realStart, .seconds(2))
  }
}

extension TimeBubbleTests {
  func testADebouncerOnTheMainQueueRunsOnlyTheLastCallDelayAfterIt() async throws {
    let fired = try await withTimeBubble { bubble in
      let log = Log()
      let debouncer = Debouncer(delay: 0.3)
      for word in ["s", "sw", "swi"] {
        debouncer.call { log.append("\(word)@\(bubble.elapsed)") }
        try await Task.sleep(for: .milliseconds(100))
      }
      try await Task.sleep(for: .seconds(1))
      debouncer.call { log.append("swift@\(bubble.elapsed)") }
      try await Task.sleep(for: .seconds(1))
      return log.entries
    }
    XCTAssertEqual(fired, ["swi@0.5 seconds", "swift@1.6 seconds"])
  }

  func testACacheEntryExpiresByDateAfterItsTimeToLive() async throws {
    let seen = try await withTimeBubble { _ in
      let cache = TTLCache(ttl: 60)
      cache.store("v", for: "k")
      var seen: [String?] = []
      try await Task.sleep(for: .seconds(59))
      seen.append(cache.value(for: "k"))
      try await Task.sleep(for: .seconds(1))
      seen.append(cache.value(for: "k"))
      return seen
    }
    XCTAssertEqual(seen, ["v", nil])
  }

  func testATimerSourcePollsEveryIntervalStopsWhileSuspendedAndEndsWhenCancelled() async throws {
    let polls = try await withTimeBubble { _ in
      let poller = Poller(interval: 5)
      poller.start()
      try await Task.sleep(for: .seconds(16))
      poller.pause()
      try await Task.sleep(for: .seconds(20))
      poller.start()
      try await Task.sleep(for: .seconds(6))
      poller.stop()
      try await Task.sleep(for: .seconds(60))
      return poller.pollsSoFar()
    }
    // Due at 5, 10, 15; suspended at 16 with 20 due; resumed at 36: the missed deadlines fire
    // once, then 40 (one interval after the last deadline, 35); cancelled at 42.
    XCTAssertEqual(polls, [5, 10, 15, 36, 40])
  }

  func testAHeartbeatThatStopsIsDeclaredDeadTimeoutAfterTheLastBeat() async throws {
    let (beats, deadAfter) = try await withTimeBubble { _ in
      let monitor = HeartbeatMonitor()
      let start = ContinuousClock.now
      let peer = Task {
        for _ in 0..<5 {
          try await Task.sleep(for: .seconds(2))
          await monitor.beat()
        }
      }
      let dead = try await monitor.watch(timeout: .seconds(5))
      try await peer.value
      return (await monitor.beats, dead - start)
    }
    XCTAssertEqual(beats, 5)
    // The last beat at 10 s; the check at 16 s is the first more than 5 s after it.
    XCTAssertEqual(deadAfter, .seconds(16))
  }

  func testATimeoutRaceEndsAtTheFirstDeadlineAndCancelsTheOtherSleep() async throws {
    let (fast, slow, elapsed) = try await withTimeBubble { bubble in
      let fast = try await withDeadline(.seconds(5)) {
        try await Task.sleep(for: .seconds(1))
        return 42
      }
      var slow: String
      do {
        _ = try await withDeadline(.seconds(5)) { try await Task.sleep(for: .seconds(10)) }
        slow = "finished"
      } catch is DeadlineExceeded {
        slow = "timed out"
      }
      return (fast, slow, bubble.elapsed)
    }
    XCTAssertEqual(fast, 42)
    XCTAssertEqual(slow, "timed out")
    XCTAssertEqual(elapsed, .seconds(6))
  }

  func testACancelledSleepThrowsAtOnceWithoutMovingTime() async throws {
    let (outcome, elapsed) = try await withTimeBubble { bubble in
      let sleeper = Task { try await Task.sleep(for: .seconds(3_600)) }
      try await Task.sleep(for: .seconds(1))
      sleeper.cancel()
      let outcome: String
      do {
        try await sleeper.value
        outcome = "slept"
      } catch is CancellationError {
        outcome = "cancelled"
      }
      return (outcome, bubble.elapsed)
    }
    XCTAssertEqual(outcome, "cancelled")
    XCTAssertEqual(elapsed, .seconds(1))
  }

  func testEveryClockReadsTheBubblesTimeFromDocumentedInstants() async throws {
    let readings = try await withTimeBubble { _ in
      try await Task.sleep(for: .seconds(90))
      // The test's own direct calls, through the test executable's import.
      var boot = timespec()
      clock_gettime(CLOCK_BOOTTIME, &boot)
      var realTime = timespec()
      clock_gettime(CLOCK_REALTIME, &realTime)
      var wall = timeval()
      gettimeofday(&wall, nil)
      return [
        Date().timeIntervalSinceReferenceDate,
        ProcessInfo.processInfo.systemUptime,
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9,
        Double(boot.tv_sec),
        Double(realTime.tv_sec) - 978_307_200,
        Double(wall.tv_sec) - 978_307_200,
        SuspendingClock.now.duration(to: SuspendingClock.now) == .zero ? 1 : 0,
      ]
    }
    XCTAssertEqual(readings, [90, 1_090, 1_090, 1_090, 90, 90, 1])
  }

  func testOutsideTheBubbleTimeStaysReal() async throws {
    let before = Date()
    _ = try await withTimeBubble { _ in try await Task.sleep(for: .seconds(3_600)) }
    let after = Date()
    XCTAssertGreaterThan(before.timeIntervalSince1970, 1_700_000_000)
    XCTAssertLessThan(after.timeIntervalSince(before), 5)
  }

  func testABubbleWhoseWorkWaitsForWhatNeverComesFailsWithinASecondNamingIt() async throws {
    let start = ContinuousClock.now
    do {
      _ = try await withTimeBubble { _ in
        let never = AsyncStream<Int> { _ in }
        for await _ in never {}
      }
      XCTFail("a stuck bubble returned")
    } catch let error as TimeBubbleError {
      guard case .stuck(_, let waiting, _) = error else { return XCTFail("\(error)") }
      XCTAssertTrue(
        waiting.contains { $0.hasPrefix("the bubble's body (started at") }, "\(waiting)")
      XCTAssertTrue("\(error)".contains("TimeBubbleTests.swift"), "\(error)")
    }
    XCTAssertLessThan(ContinuousClock.now - start, .seconds(10))
  }

  func testASynchronousBodyRunsDispatchWorkWhenItMovesTime() throws {
    let log = Log()
    try withSynchronousTimeBubble { bubble in
      DispatchQueue.global().asyncAfter(deadline: .now() + 10) { log.append("global@10") }
      DispatchQueue.main.asyncAfter(deadline: .now() + 5) { log.append("main@5") }
      let queue = DispatchQueue(label: "serial")
      for index in 0..<3 { queue.async { log.append("serial \(index)") } }
      bubble.advance(by: .seconds(4))
      log.append("at 4")
      bubble.advance(by: .seconds(6))
    }
    XCTAssertEqual(
      log.entries, ["serial 0", "serial 1", "serial 2", "at 4", "main@5", "global@10"])
  }

  func testWorkLeftWhenTheBodyReturnsGoesOnInRealTime() async throws {
    let log = Log()
    let done = DispatchSemaphore(value: 0)
    try await withTimeBubble { _ in
      DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
        log.append("ran")
        done.signal()
      }
    }
    XCTAssertEqual(log.entries, [])
    XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
    XCTAssertEqual(log.entries, ["ran"])
  }
}

/// A thread-safe log for what code under test did.
final class Log: Sendable {
  private let lines = Mutex<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var entries: [String] { lines.withLock { $0 } }
}

extension TimeBubbleTests {
  func testABlockingWaitOnWorkOnlyTheBubbleRunsFailsWithinASecondInsteadOfHanging() async throws {
    let start = ContinuousClock.now
    do {
      try await withTimeBubble { _ in
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {}
        group.wait()
      }
      XCTFail("a blocked bubble passed")
    } catch let error as TimeBubbleError {
      guard case .blocked(_, let reason) = error else { return XCTFail("\(error)") }
      XCTAssertTrue(reason.hasPrefix("DispatchGroup.wait()"), reason)
    }
    XCTAssertLessThan(ContinuousClock.now - start, .seconds(10))
  }

  func testGroupWorkAndItsNotificationRunInTheBubble() async throws {
    let (log, elapsed) = try await withTimeBubble { bubble in
      let log = Log()
      let group = DispatchGroup()
      for index in 0..<3 {
        DispatchQueue.global().async(group: group) { log.append("work \(index)") }
      }
      group.enter()
      DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
        log.append("late")
        group.leave()
      }
      await withCheckedContinuation { continuation in
        group.notify(queue: .main) {
          log.append("notified at \(bubble.elapsed)")
          continuation.resume()
        }
      }
      return (log.entries, bubble.elapsed)
    }
    XCTAssertEqual(log, ["work 0", "work 1", "work 2", "late", "notified at 60.0 seconds"])
    XCTAssertEqual(elapsed, .seconds(60))
  }
}

extension TimeBubbleTests {
  func testEveryFormOfTaskSleepWaitsOnTheBubblesTime() async throws {
    let marks = try await withTimeBubble { bubble in
      var marks: [Duration] = []
      try await Task.sleep(for: .seconds(1))
      marks.append(bubble.elapsed)
      try await Task.sleep(nanoseconds: 2_000_000_000)
      marks.append(bubble.elapsed)
      try await Task.sleep(until: .now + .seconds(3), clock: .continuous)
      marks.append(bubble.elapsed)
      try await Task.sleep(until: .now + .seconds(4), clock: .suspending)
      marks.append(bubble.elapsed)
      // A tolerance takes the runtime's other path: a Dispatch timer source.
      try await Task.sleep(for: .seconds(5), tolerance: .seconds(1))
      marks.append(bubble.elapsed)
      try await ContinuousClock().sleep(for: .seconds(6))
      marks.append(bubble.elapsed)
      try await SuspendingClock().sleep(until: .now + .seconds(7), tolerance: .milliseconds(1))
      marks.append(bubble.elapsed)
      return marks
    }
    XCTAssertEqual(marks, [1, 3, 6, 10, 15, 21, 28].map { Duration.seconds($0) })
  }

  func testAsyncAfterOnEveryKindOfQueueAndOnWallTimeRunsAtItsDeadline() async throws {
    let log = try await withTimeBubble { bubble in
      let log = Log()
      let queues: [(String, DispatchQueue)] = [
        ("main", .main), ("global", .global(qos: .utility)),
        ("serial", DispatchQueue(label: "serial")),
        ("concurrent", DispatchQueue(label: "concurrent", attributes: .concurrent)),
      ]
      for (offset, (name, queue)) in queues.enumerated() {
        queue.asyncAfter(deadline: .now() + .seconds(offset + 1)) {
          log.append("\(name) at \(bubble.elapsed)")
        }
      }
      DispatchQueue.global().asyncAfter(wallDeadline: .now() + .seconds(10)) {
        log.append("wall at \(bubble.elapsed)")
      }
      let item = DispatchWorkItem { log.append("cancelled item ran") }
      DispatchQueue.main.asyncAfter(deadline: .now() + 2.5, execute: item)
      item.cancel()
      try await Task.sleep(for: .seconds(20))
      return log.entries
    }
    XCTAssertEqual(
      log,
      [
        "main at 1.0 seconds", "global at 2.0 seconds", "serial at 3.0 seconds",
        "concurrent at 4.0 seconds", "wall at 10.0 seconds",
      ])
  }

  func testSyncAndBarrierWorkOnQueuesMadeInTheBubbleRunOnItsThread() async throws {
    let values = try await withTimeBubble { _ in
      let queue = DispatchQueue(label: "state", attributes: .concurrent)
      let state = Log()
      queue.async(flags: .barrier) { state.append("written") }
      try await Task.sleep(for: .seconds(1))
      return queue.sync { state.entries }
    }
    XCTAssertEqual(values, ["written"])
  }
}

extension TimeBubbleTests {
  func testMainActorCodeRunsOnTheMainThreadOnTheBubblesTime() async throws {
    let refreshes = try await withTimeBubble { _ in
      let model = RefreshingModel()
      await model.start(every: .seconds(30))
      try await Task.sleep(for: .seconds(100))
      await model.stop()
      return await model.refreshes
    }
    XCTAssertEqual(refreshes, [30, 60, 90])
  }

  @MainActor func testABubbleStartedFromTheMainActorRunsMainActorWork() async throws {
    let refreshes = try await withTimeBubble { @MainActor _ in
      let model = RefreshingModel()
      model.start(every: .seconds(30))
      try await Task.sleep(for: .seconds(61))
      model.stop()
      return model.refreshes
    }
    XCTAssertEqual(refreshes, [30, 60])
  }
}

extension TimeBubbleTests {
  func testWaitUntilIdleReturnsOnceEverythingElseWaitsWithoutMovingTime() async throws {
    let (log, elapsed) = try await withTimeBubble { bubble in
      let log = Log()
      let queue = DispatchQueue(label: "chain")
      @Sendable func hop(_ left: Int) {
        queue.async {
          log.append("hop \(left)")
          if left > 0 { hop(left - 1) }
        }
      }
      hop(3)
      Task { log.append("task ran") }
      DispatchQueue.global().asyncAfter(deadline: .now() + 60) { log.append("late") }
      await bubble.waitUntilIdle()
      return (log.entries, bubble.elapsed)
    }
    XCTAssertEqual(Set(log), ["hop 3", "hop 2", "hop 1", "hop 0", "task ran"])
    XCTAssertEqual(elapsed, .zero)
  }

  func testAdvanceByMovesTimeRunningWhatFallsDue() async throws {
    let (polls, elapsed) = try await withTimeBubble { bubble in
      let poller = Poller(interval: 2)
      poller.start()
      await bubble.advance(by: .seconds(7))
      poller.stop()
      return (poller.pollsSoFar(), bubble.elapsed)
    }
    XCTAssertEqual(polls, [2, 4, 6])
    XCTAssertEqual(elapsed, .seconds(7))
  }

  func testAOneShotTimerFiresOnceAndAgainWhenScheduledAgain() async throws {
    let fired = try await withTimeBubble { bubble in
      let log = Log()
      let timer = DispatchSource.makeTimerSource(queue: .main)
      timer.setEventHandler { log.append("fired at \(bubble.elapsed)") }
      timer.schedule(deadline: .now() + 5)
      timer.activate()
      try await Task.sleep(for: .seconds(20))
      timer.schedule(deadline: .now() + 1, leeway: .seconds(1))
      try await Task.sleep(for: .seconds(20))
      timer.cancel()
      return log.entries
    }
    XCTAssertEqual(fired, ["fired at 5.0 seconds", "fired at 21.0 seconds"])
  }
}
