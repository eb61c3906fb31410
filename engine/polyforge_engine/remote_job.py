"""An engine job on a compute node that shares no filesystem with the server: its files
travel through the server's file store by presigned URLs (S3, or the embedded store's signed URLs).

Run by the Slurm batch script as `python -m polyforge_engine.remote_job`, with the manifest on
stdin (JSON): the engine command, the server's work directory of the job, and the URLs:
  input_url    GET  a tar of the job's inputs (job.json and any file it names)
  events_url   PUT  the engine's JSON lines (ARCHITECTURE §6), sent again every few seconds
  stderr_url   PUT  the end of the engine's stderr
  results_url  PUT  a tar of the files the engine's result names
The job runs in a scratch directory of the node, removed at the end. Paths travel as the server's:
the inputs' paths are mapped to the scratch directory, the result's back to the server's directory.
The exit code is the engine's, so Slurm's state says whether it failed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

UPLOAD_INTERVAL_S = 5.0
STDERR_TAIL_BYTES = 64 * 1024
ATTEMPTS = 4
TIMEOUT_S = 120


def main() -> int:
    manifest = json.load(sys.stdin)
    scratch = Path(manifest.get("scratch") or os.environ.get("TMPDIR") or tempfile.gettempdir())
    work = Path(tempfile.mkdtemp(prefix="polyforge-", dir=scratch))
    try:
        return run(manifest, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(manifest: dict[str, Any], work: Path) -> int:
    server_dir = str(manifest["server_workdir"]).rstrip("/")
    stderr_path = work / "engine.err"
    try:
        inputs = work / "inputs.tar"
        download(manifest["input_url"], inputs)
        with tarfile.open(inputs) as archive:
            archive.extractall(work, filter="data")
        inputs.unlink()
        job = work / "job.json"
        job.write_text(json.dumps(map_paths(json.loads(job.read_text()), server_dir, str(work))))
    except Exception as error:  # the inputs never came: said in the stderr the server reads
        stderr_path.write_text(f"The job's inputs could not be fetched from the server's file store: {error}\n")
        upload_quietly(manifest["stderr_url"], stderr_path)
        return 1

    events = work / "events.jsonl"
    uploader = PeriodicUpload(manifest["events_url"], events, float(manifest.get("interval_s", UPLOAD_INTERVAL_S)))
    result: dict[str, Any] | None = None
    with events.open("w") as out, stderr_path.open("w") as err:
        engine = subprocess.Popen(
            [sys.executable, "-m", "polyforge_engine", manifest["command"], "--input", str(job), "--workdir", str(work)],
            stdout=subprocess.PIPE,
            stderr=err,
            cwd=work,
            text=True,
        )
        # scancel and the time limit signal this process: the engine gets it too.
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda number, _frame: engine.send_signal(number))
        uploader.start()
        assert engine.stdout is not None
        for line in engine.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue  # not a protocol line
            if isinstance(event, dict) and event.get("event") == "result" and result is None:
                result = event
            out.write(json.dumps(map_paths(event, str(work), server_dir)) + "\n")
            out.flush()
        code = engine.wait()
    uploader.stop()
    try:
        if result is not None:
            results = work / ".results.tar"
            with tarfile.open(results, "w") as archive:
                for path in named_files(result, work):
                    archive.add(path, arcname=str(path.relative_to(work)))
            upload(manifest["results_url"], results)
        upload(manifest["events_url"], events)
    except Exception as error:
        with stderr_path.open("a") as err:
            err.write(f"The job's results could not be sent to the server's file store: {error}\n")
        code = code or 1
    upload_quietly(manifest["stderr_url"], stderr_path, tail=STDERR_TAIL_BYTES)
    return code


def map_paths(value: Any, old: str, new: str) -> Any:
    """Every string that is `old` or a path under it, moved to `new`."""
    if isinstance(value, str):
        if value == old:
            return new
        return new + value[len(old) :] if value.startswith(old + "/") else value
    if isinstance(value, list):
        return [map_paths(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: map_paths(item, old, new) for key, item in value.items()}
    return value


def named_files(value: Any, work: Path) -> list[Path]:
    """The files in `work` a result names (anywhere in it), each once."""
    found: dict[Path, None] = {}

    def visit(item: Any) -> None:
        if isinstance(item, str):
            path = (work / item).resolve()
            if path.is_relative_to(work.resolve()) and path.is_file():
                found[path] = None
        elif isinstance(item, list):
            for inner in item:
                visit(inner)
        elif isinstance(item, dict):
            for inner in item.values():
                visit(inner)

    visit(value)
    return list(found)


def download(url: str, target: Path) -> None:
    def attempt() -> None:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response, target.open("wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)

    with_retries(attempt)


def upload(url: str, source: Path, tail: int | None = None) -> None:
    def attempt() -> None:
        size = source.stat().st_size
        start = max(0, size - tail) if tail is not None else 0
        with source.open("rb") as body:
            body.seek(start)
            request = urllib.request.Request(
                url,
                data=body,
                method="PUT",
                headers={"Content-Length": str(size - start), "Content-Type": "application/octet-stream"},
            )
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                response.read()

    with_retries(attempt)


def upload_quietly(url: str, source: Path, tail: int | None = None) -> None:
    try:
        upload(url, source, tail)
    except Exception as error:
        print(f"polyforge: sending {source.name} failed: {error}", file=sys.stderr)


def with_retries(attempt: Any) -> None:
    """Retries what the network or the store refused for now (5xx, a dropped connection)."""
    for number in range(1, ATTEMPTS + 1):
        try:
            attempt()
            return
        except urllib.error.HTTPError as error:
            if error.code < 500 or number == ATTEMPTS:
                raise
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if number == ATTEMPTS:
                raise
        time.sleep(2**number)


class PeriodicUpload:
    """Sends the events file again whenever it grew, every `interval` seconds (the server's view of
    the engine's progress); failures wait for the next turn."""

    def __init__(self, url: str, path: Path, interval: float) -> None:
        self.url, self.path, self.interval = url, path, interval
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.sent = -1

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join()

    def loop(self) -> None:
        while not self.stopped.wait(self.interval):
            try:
                size = self.path.stat().st_size
                if size != self.sent:
                    upload(self.url, self.path)
                    self.sent = size
            except Exception as error:
                print(f"polyforge: sending progress failed: {error}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
