"""A real ``slimetrail serve`` subprocess, a throwaway PostgreSQL and the system Chromium.

Test machinery, kept out of the package: the fixtures of tests/conftest.py and
tests/web/conftest.py, the scale-out tests, scripts/screenshot.py and the web benchmarks (which
put tests/ on ``sys.path``).  Needs the test extra (``httpx2``).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx

# httpx builds a TLS context for every client it makes (every module-level ``httpx.get`` makes
# one), reading the machine's CA bundle: 70 ms of processor time each.  The test clients that
# are made often (polls, a server's start) share this one.
TLS = ssl.create_default_context()

CHROMIUM = "/usr/bin/chromium"
# Chromium's omnibox popups are web pages of their own, loaded for every new window (each
# Playwright context opens one): off, a page opens in 40% less processor time.  Chromium
# reads only the last --disable-features, so Playwright's own list (1.65's) is repeated.
PLAYWRIGHT_DISABLED_FEATURES = [
    *("AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades"),
    *("HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding"),
    *("ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect"),
    *("TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying"),
    *("AimEnabled", "PreconnectToSearch"),
]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-features="
    + ",".join([*PLAYWRIGHT_DISABLED_FEATURES, "WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer(str):
    """The base URL of a ``slimetrail serve`` subprocess that can be killed and restarted."""

    process: subprocess.Popen | None
    db_url: str
    port: int
    log_path: Path
    extra_args: tuple[str, ...]
    env: dict[str, str]

    def __new__(
        cls,
        port: int,
        db_url: str,
        log_path: Path,
        extra_args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ):
        """``env``: variables set for the server on top of this process's environment (e.g.
        ``SLIMETRAIL_GAMES`` and ``PYTHONPATH`` for games registered by tests)."""
        server = super().__new__(cls, f"http://127.0.0.1:{port}")
        server.port, server.db_url, server.log_path = port, db_url, log_path
        server.extra_args, server.process, server.env = extra_args, None, dict(env or {})
        return server

    @property
    def url(self) -> str:
        return str(self)

    def start(self, timeout: float = 60.0) -> None:
        command = [
            sys.executable,
            "-m",
            "slimetrail",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            self.db_url,
            "--log-level",
            "warning",
            *self.extra_args,
        ]
        log = self.log_path.open("ab")
        # A session of its own, so that kill() takes the worker processes down with it.
        self.process = subprocess.Popen(
            command,
            stdout=log,
            stderr=log,
            start_new_session=True,
            env={**os.environ, **self.env},
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"slimetrail serve exited:\n{self.log_path.read_text()}")
            try:
                if httpx.get(f"{self}/healthz", timeout=1.0, verify=TLS).json() == {"ok": True}:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(
            f"slimetrail serve did not answer /healthz:\n{self.log_path.read_text()}"
        )

    def kill(self) -> None:
        """kill -9 the server and its workers, as a crash would."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = None

    def restart(self, *extra_args: str) -> None:
        """kill -9 and start again on the same database and port; with ``extra_args``, with
        these options instead of the first start's."""
        self.kill()
        if extra_args:
            self.extra_args = extra_args
        self.start()


@contextmanager
def running_server(
    folder: Path, *extra_args: str, db_url: str = "", env: dict[str, str] | None = None
) -> Iterator[LiveServer]:
    """A started ``slimetrail serve`` on a free port, logging to ``folder`` (and keeping its
    SQLite database there unless ``db_url`` names one); killed on leaving."""
    db_url = db_url or f"sqlite:///{folder / 'live.db'}"
    server = LiveServer(free_port(), db_url, folder / "serve.log", extra_args, env)
    server.start()
    try:
        yield server
    finally:
        server.kill()


class LiveWorker:
    """A ``slimetrail worker`` subprocess on ``db_url`` that can be killed and restarted."""

    def __init__(self, db_url: str, log_path: Path, extra_args: tuple[str, ...] = ()) -> None:
        self.db_url, self.log_path, self.extra_args = db_url, log_path, extra_args
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 120.0) -> None:
        """Start the worker and wait until it takes jobs (its pools warmed up)."""
        from slimetrail.web.jobs import READY

        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        command = [
            sys.executable,
            "-m",
            "slimetrail",
            "worker",
            "--db",
            self.db_url,
            "--log-level",
            "warning",
            *self.extra_args,
        ]
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            command, stdout=log, stderr=log, start_new_session=True, env=dict(os.environ)
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if READY in self.log_path.read_bytes()[offset:].decode(errors="replace"):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"slimetrail worker exited:\n{self.log_path.read_text()}")
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"slimetrail worker did not get ready:\n{self.log_path.read_text()}")

    def kill(self) -> None:
        """kill -9 the worker and its pool processes, as a crash would."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = None


def pg_program(name: str) -> str | None:
    """A PostgreSQL server program: on PATH, or where Debian keeps it."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    return str(candidates[0]) if candidates else None


@contextmanager
def temp_postgres() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on loopback (``initdb``/``pg_ctl``, no fsync): yields
    its URL without a database name, ``postgresql+psycopg://postgres@127.0.0.1:PORT``."""
    initdb, pg_ctl = pg_program("initdb"), pg_program("pg_ctl")
    if not (initdb and pg_ctl):
        raise RuntimeError("initdb/pg_ctl not found (Debian package postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="slimetrail-pg-"))
    # PostgreSQL refuses to run as root: run it as the postgres user then.
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", free_port()
    run: dict = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.STDOUT}
    # --no-sync: a throwaway cluster need not wait for its files to reach the disk.
    initdb_args = ["-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync"]
    subprocess.run([*as_user, initdb, *initdb_args], **run)
    options = (
        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300"
    )
    start = [*as_user, pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log")]
    subprocess.run([*start, "-w", "start"], **run)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], **run)
        shutil.rmtree(folder, ignore_errors=True)
