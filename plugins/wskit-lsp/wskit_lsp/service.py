"""Language servers of one session (pygls client, lsprotocol types;
reference/blade.md §13 for the definition schema and its limits).

- A server starts the first time a file with an extension it serves is opened
  (:meth:`LspService.did_open`); among several enabled servers for one
  extension the highest ``priority`` wins (then the smallest id).
- It runs with cwd = the session's *execution root* and is initialised with
  that root (``rootUri``, one workspace folder), its ``initialization_options``
  and ``settings`` (sent as ``workspace/didChangeConfiguration``).
- A server found dead before a call is restarted, at most ``max_restarts``
  times; documents that were open are opened again. Past the limit the call
  raises :class:`LspError`.
- :meth:`LspService.close` sends ``shutdown`` and ``exit``, waits
  ``shutdown_timeout`` ms, then kills the process group.

pygls is asyncio-based: one event loop runs in a background thread and the
service's methods are synchronous.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from wskit.errors import WskitError
from wskit.fs import decode_text, read_bytes
from wskit.resources.servers import LspServer

#: Variables of this process a server inherits (as the MCP SDK does); the rest come from the session and the definition.
INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR")


class LspError(WskitError):
    """A language server could not be started, died past its restart limit, or a request failed."""


@dataclass
class _Live:
    definition: LspServer
    client: Any = None
    starts: int = 0
    restarts: int = 0
    capabilities: Any = None
    docs: dict[str, tuple[str, int, str]] = field(default_factory=dict)  # uri -> (language, version, text)
    diagnostics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    diag_events: dict[str, asyncio.Event] = field(default_factory=dict)
    stderr_tail: bytearray = field(default_factory=bytearray)


class LspService:
    """``session.lsp``: language servers for one session.

    :param runtime: the :class:`~wskit.session.runtime.SessionRuntime`.
    """

    def __init__(self, runtime) -> None:
        self.runtime = runtime
        self.root = Path(runtime.execution_root)
        self._live: dict[str, _Live] = {}
        self._lock = threading.RLock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="wskit-lsp", daemon=True)
        self._thread.start()
        self.closed = False

    # -- lookup -----------------------------------------------------------

    def servers(self) -> list[LspServer]:
        """The session's LSP server definitions (active, by id)."""
        return list(self.runtime.session.registry("lsp_server").active())

    def definition(self, server_id: str) -> LspServer:
        """Resolve ``server_id`` (qualified id, ``<plugin>:<name>`` or bare name).

        :raises UnknownResourceError: nothing answers.
        """
        return self.runtime.session.registry("lsp_server").get(server_id)

    def server_for(self, path: str | os.PathLike[str]) -> LspServer | None:
        """The enabled server for ``path``'s extension (highest priority, then smallest id), or None."""
        ext = Path(path).suffix.lower()
        cands = [s for s in self.servers() if s.enabled and ext in s.extension_to_language]
        cands.sort(key=lambda s: (-s.priority, s.id))
        return cands[0] if cands else None

    def running(self) -> dict[str, dict[str, int | None]]:
        """``{server id: {"pid", "starts", "restarts"}}`` of the servers started so far."""
        out = {}
        for sid, live in self._live.items():
            proc = getattr(live.client, "_server", None)
            out[sid] = {"pid": proc.pid if proc and proc.returncode is None else None,
                        "starts": live.starts, "restarts": live.restarts}
        return out

    # -- plumbing -----------------------------------------------------------

    def _run(self, coro, timeout: float):
        fut = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return fut.result(timeout)
        except TimeoutError:
            fut.cancel()
            raise LspError(f"language server request timed out after {timeout:g} s") from None

    def _uri_and_rel(self, path: str | os.PathLike[str]) -> tuple[str, str]:
        p = Path(path)
        if not p.is_absolute():
            p = self.root / p
        try:
            rel = p.relative_to(self.root)
        except ValueError:
            raise LspError(f"{path} is outside the execution root {self.root}") from None
        return p.as_uri(), PurePosixPath(*rel.parts).as_posix()

    async def _start(self, live: _Live) -> None:
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient

        d = live.definition
        client = LanguageClient("wskit", "0.1")

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diags(params):  # pygls 2 calls notification handlers with params only
            live.diagnostics[params.uri] = [
                {"line": x.range.start.line, "character": x.range.start.character, "message": x.message,
                 "severity": int(x.severity) if x.severity is not None else None, "source": x.source}
                for x in params.diagnostics]
            ev = live.diag_events.get(params.uri)
            if ev is not None:
                ev.set()

        env = {k: os.environ[k] for k in INHERITED_ENV if k in os.environ}
        env.update(self.runtime.options.env)
        env.update(d.env)
        try:
            await client.start_io(d.command, *d.args, cwd=str(self.root), env=env, start_new_session=True)
        except OSError as err:
            raise LspError(f"language server {d.id}: cannot start {d.command!r}: {err}") from None
        proc = client._server
        asyncio.get_running_loop().create_task(self._drain(proc, live))
        params = types.InitializeParams(
            process_id=os.getpid(), root_uri=self.root.as_uri(), root_path=str(self.root),
            workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)],
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText]),
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities())),
            initialization_options=d.initialization_options)
        try:
            result = await asyncio.wait_for(client.initialize_async(params), d.startup_timeout / 1000)
        except (asyncio.TimeoutError, RuntimeError, Exception) as err:
            await self._kill(client)
            raise LspError(f"language server {d.id} failed to initialise: {type(err).__name__}: {err}") from None
        client.initialized(types.InitializedParams())
        if d.settings is not None:
            client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=d.settings))
        live.client, live.capabilities = client, result.capabilities
        live.starts += 1
        for uri, (lang, version, text) in live.docs.items():
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=lang, version=version, text=text)))

    async def _drain(self, proc, live: _Live) -> None:
        while proc.stderr is not None:
            chunk = await proc.stderr.read(65536)
            if not chunk:
                return
            live.stderr_tail += chunk
            del live.stderr_tail[:-8192]

    async def _kill(self, client) -> None:
        proc = getattr(client, "_server", None)
        if proc is not None and proc.returncode is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            await proc.wait()
        client._stop_event.set()

    async def _ensure(self, live: _Live) -> Any:
        proc = getattr(live.client, "_server", None)
        if live.client is not None and proc is not None and proc.returncode is None:
            return live.client
        if live.client is not None:  # it was running: it died
            d = live.definition
            if live.restarts >= d.max_restarts:
                raise LspError(f"language server {d.id} exited (code {proc.returncode if proc else '?'}) and reached "
                               f"its restart limit ({d.max_restarts})")
            live.restarts += 1
            await self._kill(live.client)
            live.client = None
        await self._start(live)
        return live.client

    async def _request(self, live: _Live, op):
        """Run ``op(client)``; if the server turns out to have died (the exit not yet
        reaped when we looked), wait for the exit and go through the restart rule once."""
        client = await self._ensure(live)
        try:
            return await op(client)
        except RuntimeError:
            proc = getattr(client, "_server", None)
            if proc is None:
                raise
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except asyncio.TimeoutError:
                raise LspError(f"language server {live.definition.id} stopped answering") from None
            client = await self._ensure(live)
            return await op(client)

    def _live_for(self, d: LspServer) -> _Live:
        with self._lock:
            if self.closed:
                raise WskitError("LSP service is closed")
            return self._live.setdefault(d.id, _Live(definition=d))

    # -- documents and requests ----------------------------------------------

    def did_open(self, path: str | os.PathLike[str], text: str | None = None) -> str | None:
        """Open ``path`` (absolute, or relative to the execution root) in its server,
        starting the server on first use. The text is read through safe file access
        when not given.

        :returns: the server id, or None when no enabled server serves the extension.
        :raises LspError: start or restart failed; the path lies outside the execution root.
        """
        from lsprotocol import types

        d = self.server_for(path)
        if d is None:
            return None
        uri, rel = self._uri_and_rel(path)
        if text is None:
            text = decode_text(read_bytes(self.root, rel).raw, rel)
        live = self._live_for(d)
        lang = d.extension_to_language[Path(path).suffix.lower()]

        async def go():
            version = live.docs.get(uri, (lang, 0, ""))[1] + 1
            live.diag_events[uri] = asyncio.Event()
            client = await self._ensure(live)
            live.docs[uri] = (lang, version, text)
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=lang, version=version, text=text)))

        self._run(go(), d.startup_timeout / 1000 + 5)
        return d.id

    def hover(self, path: str | os.PathLike[str], line: int, character: int) -> str | None:
        """The hover text at ``line``/``character`` (0-based), or None. The file must be open."""
        from lsprotocol import types

        d, live, uri = self._opened(path)

        async def go():
            return await self._request(live, lambda client: client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character))))

        res = self._run(go(), d.request_timeout / 1000)
        if res is None:
            return None
        c = res.contents
        if isinstance(c, list):
            return "\n".join(getattr(x, "value", str(x)) for x in c)
        return getattr(c, "value", str(c))

    def diagnostics(self, path: str | os.PathLike[str], wait: float | None = None) -> list[dict[str, Any]]:
        """Diagnostics published for ``path`` (``[{"line", "character", "message", "severity", "source"}]``),
        waiting up to ``wait`` seconds (default: the definition's ``diagnostic_wait_timeout``) for the first batch."""
        d, live, uri = self._opened(path)
        wait = d.diagnostic_wait_timeout / 1000 if wait is None else wait

        async def go():
            ev = live.diag_events.get(uri)
            if ev is not None and uri not in live.diagnostics:
                try:
                    await asyncio.wait_for(ev.wait(), wait)
                except asyncio.TimeoutError:
                    pass
            return list(live.diagnostics.get(uri, []))

        return self._run(go(), wait + 5)

    def did_close(self, path: str | os.PathLike[str]) -> None:
        """Close ``path`` in its server (no-op when it is not open)."""
        from lsprotocol import types

        d = self.server_for(path)
        uri, _ = self._uri_and_rel(path)
        live = self._live.get(d.id) if d else None
        if live is None or uri not in live.docs:
            return

        async def go():
            live.docs.pop(uri, None)
            proc = getattr(live.client, "_server", None)
            if proc is not None and proc.returncode is None:
                live.client.text_document_did_close(types.DidCloseTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=uri)))

        self._run(go(), 5)

    def _opened(self, path) -> tuple[LspServer, _Live, str]:
        d = self.server_for(path)
        uri, _ = self._uri_and_rel(path)
        live = self._live.get(d.id) if d else None
        if live is None or uri not in live.docs:
            raise LspError(f"{path} is not open in a language server (call did_open first)")
        return d, live, uri

    # -- shutdown -------------------------------------------------------------

    async def _shutdown(self, live: _Live) -> None:
        client = live.client
        proc = getattr(client, "_server", None)
        if client is None or proc is None:
            return
        if proc.returncode is None:
            timeout = live.definition.shutdown_timeout / 1000
            try:
                await asyncio.wait_for(client.shutdown_async(None), timeout)
                client.exit(None)
                await asyncio.wait_for(proc.wait(), timeout)
            except Exception:  # noqa: BLE001 — any failure ends in a kill
                pass
        await self._kill(client)
        try:
            await asyncio.wait_for(client.stop(), 2)
        except Exception:  # noqa: BLE001
            pass

    def close(self) -> None:
        """Shut every server down (``shutdown``/``exit``, then a kill of its process group)
        and stop the event loop; idempotent."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            lives = list(self._live.values())
        for live in lives:
            try:
                self._run(self._shutdown(live), live.definition.shutdown_timeout / 1000 * 2 + 5)
            except LspError:
                pass
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


__all__ = ["LspError", "LspService"]
