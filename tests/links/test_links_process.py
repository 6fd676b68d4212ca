"""``gloss links check`` as a whole process: what its start-up skips (aiohttp's default TLS contexts,
garbage collection of what lives until the exit) must change nothing it checks or writes.

Each test starts a fresh interpreter: in this one aiohttp is already imported, and the start-up path
under test runs only on a process's first import of the HTTP stack."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trustme
from links_servers import Server

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--timeout", "2", "--deadline", "4", "--retries", "0", "--second-pass-delay", "0.1", "--min-interval", "0",
        "--no-progress", "--format", "json"]
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


def environment(**extra: str) -> dict[str, str]:
    """This process's environment without proxies or trust-store variables, plus ``extra``."""
    drop = {*PROXY_VARS, *(v.upper() for v in PROXY_VARS), "SSL_CERT_FILE", "SSL_CERT_DIR"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def gloss(tmp_path: Path, *args: str, env: dict[str, str] | None = None,
          script: bool = False) -> tuple[int, dict[str, Any], str]:
    """Run ``gloss links check`` in a new process; its exit status, JSON report and stderr."""
    if script:  # the console script pip made for the project (pyproject.toml's [project.scripts])
        found = shutil.which("gloss", path=str(Path(sys.executable).parent))
        assert found is not None, "the gloss script is not installed beside this Python: make .stamp-test"
        cmd = [found]
    else:
        cmd = [sys.executable, "-m", "site_plugins.cli"]
    proc = subprocess.run([*cmd, "links", "check", "--root", str(tmp_path), "--evidence",
                           str(tmp_path / "evidence.json"), *FAST, *args],
                          capture_output=True, text=True, cwd=ROOT, env=env or environment(), timeout=60)
    report = json.loads(proc.stdout) if proc.stdout.startswith("{") else {}
    return proc.returncode, report, proc.stderr


def verdicts(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {u["url"]: (u["verdict"], u["reason"]) for u in report["urls"]}


def pem(ca: trustme.CA, tmp_path: Path) -> str:
    path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return str(path)


def test_a_new_process_trusts_its_own_store_and_still_refuses_an_unknown_ca(
        tmp_path: Path, https: Server, untrusted_https: Server, ca: trustme.CA) -> None:
    trusted, unknown = https.url("/ok"), untrusted_https.url("/ok")
    code, report, err = gloss(tmp_path, trusted, unknown, "--ca-bundle", pem(ca, tmp_path))
    assert code == 1, err
    got = verdicts(report)
    assert got[trusted] == ("ok", "200 OK")
    assert got[unknown][0] == "broken"
    assert got[unknown][1].startswith("TLS certificate verification failed: ")

    # SSL_CERT_FILE as the whole trust store: read when the first https request is made, after the import.
    code, report, err = gloss(tmp_path, trusted, unknown, "--force", env=environment(SSL_CERT_FILE=pem(ca, tmp_path)))
    assert code == 1, err
    got = verdicts(report)
    assert got[trusted] == ("ok", "200 OK")
    assert got[unknown][1].startswith("TLS certificate verification failed: ")

    # Without either, our CA is trusted by no one: the local server is refused too.
    code, report, _ = gloss(tmp_path, trusted, "--force")
    assert verdicts(report)[trusted][1].startswith("TLS certificate verification failed: ")


def test_importing_the_http_stack_puts_the_environment_back_and_leaves_aiohttps_defaults_empty(
        tmp_path: Path) -> None:
    code = ("import os, gc; import site_plugins.links.pool; import aiohttp.connector as c; "
            "print(os.environ.get('SSL_CERT_FILE'), os.environ.get('SSL_CERT_DIR', 'unset'), gc.isenabled(), "
            "c._SSL_CONTEXT_VERIFIED.cert_store_stats()['x509_ca'], "
            "c._SSL_CONTEXT_VERIFIED.verify_mode == __import__('ssl').CERT_REQUIRED)")
    store = str(tmp_path / "store.pem")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                          env=environment(SSL_CERT_FILE=store))
    # The caller's variable as it was, the unset one still unset, the collector on again; aiohttp's own
    # verifying context (which the checker never uses) trusts nothing, so it could only refuse.
    assert proc.stdout.split() == [store, "unset", "True", "0", "True"]
    if ssl.create_default_context().cert_store_stats()["x509_ca"]:  # the system has a CA store to skip
        plain = subprocess.run([sys.executable, "-c", "import aiohttp.connector as c; "
                                "print(c._SSL_CONTEXT_VERIFIED.cert_store_stats()['x509_ca'])"],
                               capture_output=True, text=True, check=True, cwd=ROOT, env=environment())
        assert int(plain.stdout) > 0  # imported directly, aiohttp loads it


def test_every_session_that_may_speak_tls_gets_the_checkers_context(monkeypatch: pytest.MonkeyPatch) -> None:
    # aiohttp's default contexts are left empty (above), so none may reach them: an https host's session
    # gets the checker's context, and so does every session once a proxy is set (aiohttp 3.14 takes no
    # https:// proxy from the environment, but the proxy's scheme is aiohttp's business, not ours).
    from site_plugins.links.pool import Sender

    def sessions(*keys: str) -> int:
        made: list[ssl.SSLContext] = []

        def context() -> ssl.SSLContext:
            made.append(ssl.create_default_context())
            return made[-1]

        async def go() -> None:
            async with Sender(context, {}, 1.0) as sender:
                for key in keys:
                    sender._session(key)

        asyncio.run(go())
        return len(made)

    for name in (*PROXY_VARS, *(v.upper() for v in PROXY_VARS)):
        monkeypatch.delenv(name, raising=False)
    assert sessions("http://127.0.0.1:1") == 0  # plain http, no proxy: no TLS at all
    assert sessions("http://127.0.0.1:1", "https://127.0.0.1:2", "https://127.0.0.1:3") == 1  # made once
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    assert sessions("http://127.0.0.1:1") == 1


def test_the_gloss_script_exits_with_the_checks_status_and_everything_written(
        tmp_path: Path, http: Server) -> None:
    ok, gone = http.url("/ok?process"), http.url("/status/404?process")
    out = tmp_path / "report.json"
    code, _, err = gloss(tmp_path, ok, gone, "--output", str(out), script=True)
    assert code == 1, err
    report = json.loads(out.read_text(encoding="utf-8"))  # the whole report, closed before the exit
    assert report["exit_code"] == 1
    assert verdicts(report)[gone][0] == "broken"
    evidence = json.loads((tmp_path / "evidence.json").read_text(encoding="utf-8"))
    assert list(evidence["urls"]) == [ok]
    assert not (tmp_path / "evidence.json.journal").exists()
