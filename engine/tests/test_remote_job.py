"""remote_job: an engine job on a node without the server's filesystem. End to end it runs
in apps/server/test/slurm-store-transfer.test.ts; here, its path mapping and its HTTP transfers
against a local server that stores what is PUT and serves it back."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from polyforge_engine.remote_job import map_paths, named_files, upload, with_retries


def test_paths_move_between_the_server_and_the_node() -> None:
    job = {"file": "/srv/jobs/x/mol.pdb", "viewer_file": "/srv/jobs/x", "other": "/srv/jobs/xy/a", "n": 3}
    node = map_paths(job, "/srv/jobs/x", "/tmp/polyforge-abc")
    assert node == {"file": "/tmp/polyforge-abc/mol.pdb", "viewer_file": "/tmp/polyforge-abc", "other": "/srv/jobs/xy/a", "n": 3}
    assert map_paths({"files": ["/tmp/polyforge-abc/a.pdb"]}, "/tmp/polyforge-abc", "/srv/jobs/x") == {"files": ["/srv/jobs/x/a.pdb"]}


def test_only_files_inside_the_work_directory_are_sent(tmp_path: Path) -> None:
    (tmp_path / "a.pdb").write_text("ATOM\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.csv").write_text("1\n")
    outside = tmp_path.parent / "outside.txt"
    outside.write_text("secret")
    result = {"files": {"pdb": str(tmp_path / "a.pdb"), "csv": "sub/b.csv", "up": "../outside.txt"}, "again": "a.pdb"}
    assert sorted(p.name for p in named_files(result, tmp_path)) == ["a.pdb", "b.csv"]


class Store(BaseHTTPRequestHandler):
    objects: ClassVar[dict[str, bytes]] = {}
    failures = 0

    def do_PUT(self) -> None:
        if Store.failures > 0:
            Store.failures -= 1
            self.send_response(503)
            self.end_headers()
            return
        Store.objects[self.path] = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def store_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Store)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_uploads_retry_what_the_store_refuses_for_now(tmp_path: Path, store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("polyforge_engine.remote_job.time.sleep", lambda _s: None)
    source = tmp_path / "engine.err"
    source.write_bytes(b"x" * 100 + b"the end\n")
    Store.failures = 2
    upload(f"{store_url}/err?sig=1", source, tail=8)
    assert Store.objects["/err?sig=1"] == b"the end\n"


def test_a_refusal_that_is_not_temporary_is_not_retried() -> None:
    calls: list[int] = []

    def refused() -> None:
        import urllib.error

        calls.append(1)
        raise urllib.error.HTTPError("http://x", 403, "Forbidden", {}, None)  # type: ignore[arg-type]

    with pytest.raises(Exception, match="403"):
        with_retries(refused)
    assert calls == [1]
