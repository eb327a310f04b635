"""The web app's speed on this machine (issue 13's targets), against a real server.

    python bench/web_load.py [--tabs 20] [--positions 40]

Starts ``python -m mancala serve --port 0`` and measures, printing one line each:

1. page ready: navigation start to the first position drawn (the page's
   ``ready`` mark), and to the load event, in a headless Chromium (Selenium,
   the system's chromium and chromedriver; skipped when there is none);
2. ai:medium's reply: the server's own time (its ``Server-Timing`` header) for
   /api/ai on positions from seeded random play, and the round trip;
3. analysis updates per second while deepening from the Kalah(6,4) start:
   new scores (``move`` and ``depth`` messages), and all messages with the
   ``thinking`` ones, overall and in the slowest whole second;
4. a simple request (GET /api/info) alone, then under ``--tabs`` analysis
   WebSockets deepening at once: median, 95th percentile and worst latency.

Times on a shared machine move from run to run; read them as orders of magnitude.
Needs the extras: pip install -e '.[web,web-test]' (websockets comes with web).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request

import mancala


def start_server():
    process = subprocess.Popen([sys.executable, "-m", "mancala", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    return process, line.split(" on ", 1)[1].split()[0]


def request(url, data=None):
    body = None if data is None else json.dumps(data).encode()
    started = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(
            url, body, {"content-type": "application/json"}), timeout=60) as response:
        payload = response.read()
        timing = response.headers.get("server-timing", "app;dur=nan")
    return (time.perf_counter() - started) * 1000, float(timing.split("dur=")[1]), payload


def summary(values, unit="ms"):
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
    return (f"median {statistics.median(values):.2f} {unit}, 95% {p95:.2f} {unit}, "
            f"worst {values[-1]:.2f} {unit} ({len(values)} samples)")


def page_ready(url, runs=5):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not chromium or not os.access(driver_path, os.X_OK):
        return "page ready: skipped (no chromium and chromedriver)"
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    ready, loaded = [], []
    try:
        for _ in range(runs):
            driver.get("about:blank")
            driver.get(url)
            for _ in range(500):
                marks = driver.execute_script(
                    "const r = performance.getEntriesByName('ready')[0];"
                    "const n = performance.getEntriesByType('navigation')[0];"
                    "return r && n && n.loadEventEnd ? [r.startTime, n.loadEventEnd] : null")
                if marks:
                    break
                time.sleep(0.01)
            ready.append(marks[0])
            loaded.append(marks[1])
    finally:
        driver.quit()
    return (f"page ready (first position drawn), {runs} loads: {summary(ready)}; "
            f"load event: {summary(loaded)}")


def ai_medium(url, count):
    rng = random.Random(13)
    server, trip = [], []
    for _ in range(count):
        board, moves = mancala.Board(), []
        for _ in range(rng.randrange(0, 30)):
            if board.is_game_over():
                break
            pit = rng.choice(board.legal_moves)
            board.push(pit)
            moves.append(pit)
        if board.is_game_over():
            continue
        elapsed, spent, _ = request(url + "api/ai", {"position": {"seeds": 4, "moves": moves},
                                                   "level": "ai:medium", "tab": "bench"})
        trip.append(elapsed)
        server.append(spent)
    return f"ai:medium reply, server time: {summary(server)}; round trip: {summary(trip)}"


async def analysis_rate(url, seconds=10.0):
    import websockets
    scores, thinking = [], []
    async with websockets.connect(url.replace("http", "ws", 1) + "api/analyze") as socket:
        await socket.send(json.dumps({"type": "analyze", "position": {"seeds": 4},
                                      "time": seconds}))
        start = time.perf_counter()
        deepest = 0
        while True:
            message = json.loads(await socket.recv())
            if message["type"] in ("move", "depth"):
                scores.append(time.perf_counter() - start)
                deepest = max(deepest, message["depth"])
            elif message["type"] == "thinking":
                thinking.append(time.perf_counter() - start)
            if message["type"] == "done":
                total = time.perf_counter() - start
                break

    def slowest(stamps):
        return min(sum(1 for t in stamps if s <= t < s + 1) for s in range(int(total)))

    both = scores + thinking
    return (f"analysis from the Kalah(6,4) start for {total:.1f} s, to depth {deepest}: "
            f"{len(scores)} score updates ({len(scores) / total:.1f}/s, slowest whole second "
            f"{slowest(scores)}), with the thinking messages {len(both)} "
            f"({len(both) / total:.1f}/s, slowest whole second {slowest(both)})")


async def under_load(url, tabs, samples=60):
    import websockets

    def gets():
        return [request(url + "api/info")[0] for _ in range(samples)]

    alone = await asyncio.to_thread(gets)
    sockets = []
    rng = random.Random(7)
    for number in range(tabs):
        socket = await websockets.connect(url.replace("http", "ws", 1) + "api/analyze")
        moves = []
        board = mancala.Board(seeds=5)
        for _ in range(rng.randrange(0, 8)):
            pit = rng.choice(board.legal_moves)
            board.push(pit)
            moves.append(pit)
        await socket.send(json.dumps({"type": "analyze", "time": 60,
                                      "position": {"seeds": 5, "moves": moves}}))
        sockets.append(socket)

    async def drain(socket):
        try:
            async for _ in socket:
                pass
        except Exception:
            pass

    drains = [asyncio.create_task(drain(s)) for s in sockets]
    await asyncio.sleep(2)
    loaded = await asyncio.to_thread(gets)
    for socket in sockets:
        await socket.close()
    for task in drains:
        task.cancel()
    return (f"GET /api/info alone: {summary(alone)}\n"
            f"GET /api/info under {tabs} analysing WebSockets: {summary(loaded)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tabs", type=int, default=20)
    parser.add_argument("--positions", type=int, default=40)
    args = parser.parse_args()
    process, url = start_server()
    try:
        print(f"server {url}, Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        print(page_ready(url + "?speed=off#seeds=4&south=human&north=human"), flush=True)
        print(ai_medium(url, args.positions), flush=True)
        print(asyncio.run(analysis_rate(url)), flush=True)
        print(asyncio.run(under_load(url, args.tabs)), flush=True)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(30)


if __name__ == "__main__":
    main()
