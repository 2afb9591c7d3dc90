"""Language servers of one session (pygls client, lsprotocol types;
reference/blade.md §13 for the definition schema and its limits).

Servers
    A server starts the first time a file with an extension it serves is opened
    or queried; among several enabled servers for one extension the highest
    ``priority`` wins (then the smallest id). It runs with cwd = the session's
    *execution root*, is initialised with that root (``rootUri``, one workspace
    folder), its ``initialization_options`` and ``settings`` (sent as
    ``workspace/didChangeConfiguration``). Each start is a new *generation*: a
    server found dead before or during a call is started again (generation + 1)
    with every open document reopened at its current version, at most
    ``max_restarts`` times (none when ``restartOnCrash`` is false); past that
    the call raises :class:`LspError`. :meth:`LspService.close` sends
    ``shutdown`` and ``exit``, waits ``shutdown_timeout`` ms, then kills the
    process group.

Documents
    :meth:`~LspService.did_open`, :meth:`~LspService.did_change` (one range
    edit when the server syncs incrementally, the whole text when it syncs
    fully, nothing when it syncs nothing), :meth:`~LspService.did_save` (with
    the text when the server asks for it) and :meth:`~LspService.did_close`;
    the version of a document goes up by one on each change and never goes
    back, across restarts too. Texts are read through wskit's bounded file
    access (at most :data:`MAX_DOCUMENT_BYTES`).

Diagnostics
    A server that offers pull diagnostics (``diagnosticProvider``) is asked
    (``textDocument/diagnostic``, answered for the text it has, which is the
    latest: messages are processed in order). Otherwise the client waits for a
    publish: one carrying a version belongs to that version; one without a
    version belongs to the latest version only when nothing but the didOpen was
    sent to this process, or when it arrives after the server acknowledged the
    latest change — after every change the client sends a ``$/wskit/sync``
    request, which a server answers (with an error: LSP 3.17 has servers
    answer ``$/`` requests they do not know with ``MethodNotFound``) after it
    has processed the change. Any other publish may describe an older text and
    is left out. :meth:`~LspService.diagnostics` returns only the diagnostics
    of the latest version, waiting (bounded) for them, and raises
    :class:`DiagnosticsNotReady` rather than return an older version's.

Writes
    :meth:`~LspService.after_write` syncs a file the host wrote and returns a
    :class:`~wskit_lsp.results.WriteDiagnostics` with the new diagnostics ready
    for the model (Claude Code's and Blade's diagnostics after an edit). The
    service also registers it as an in-process ``PostToolUse`` function hook for
    the write tools (:data:`WRITE_TOOLS`): the hook's ``additionalContext`` is
    the rendered report, so it reaches the model with the tool result.

Child sessions
    A child session (:meth:`wskit.session.SessionResources.child`) with the
    parent's execution root shares the parent's running servers; its open
    documents are its own (closing one it opened does not close the parent's,
    and closing the child stops no server). The parent's
    :meth:`~LspService.close` stops the servers for both.

pygls is asyncio-based: one event loop runs in a background thread per set of
shared servers and the service's methods are synchronous.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlparse

from wskit.errors import WskitError
from wskit.fs import SafeFsError, decode_text, read_bytes
from wskit.resources.servers import LspServer
from wskit.util.bytecode import PrivateBytecode
from wskit.values import Value, field

from .documents import from_lsp_column, incremental_edit, line_at, to_lsp_column
from .results import MAX_HOVER_CHARS, MAX_RESULTS, QueryResult, WriteDiagnostics, bounded_text

#: Variables of this process a server inherits (as the MCP SDK does); the rest come from the session and the definition.
INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR")
#: Largest file the service reads to open or sync a document.
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
#: Tool names whose ``PostToolUse`` syncs the written file (Claude Code's, Gemini CLI's).
WRITE_TOOLS = "Write|Edit|MultiEdit|write_file|replace"
#: The request used as a barrier after a change (answered with an error by every conforming server).
SYNC_METHOD = "$/wskit/sync"


class LspError(WskitError):
    """A language server could not be started, died past its restart limit, or a request failed."""


class LspApprovalError(LspError):
    """A project LSP server that is not approved (or was denied, or changed since it was
    approved): nothing was started (:mod:`wskit.builtin_plugins.lsp.approval`)."""


class DiagnosticsNotReady(LspError):
    """The server did not publish diagnostics for the latest document version within the wait.

    :ivar path: the file (relative to the execution root). :ivar version: the version waited for.
    """

    def __init__(self, message: str, path: str, version: int) -> None:
        super().__init__(message)
        self.path, self.version = path, version


class _Doc(Value):
    uri: str
    rel: str
    language: str
    version: int
    text: str
    owners: set[int] = field(default_factory=set)
    opened: int = 1                   # version sent in the didOpen of the current process
    acked: int | None = None          # latest version the server acknowledged (sync barrier)
    diag_version: int | None = None   # version the stored diagnostics belong to
    diagnostics: list[dict[str, Any]] | None = None
    fresh_before: list[dict[str, Any]] | None = None   # last diagnostics known current before a write


class _Live(Value):
    definition: LspServer
    client: Any = None
    generation: int = 0
    restarts: int = 0
    capabilities: Any = None
    dropped_capabilities: list[str] = field(default_factory=list)
    docs: dict[str, _Doc] = field(default_factory=dict)
    changed: asyncio.Event | None = None
    stderr_tail: bytearray = field(default_factory=bytearray)

    def notify(self) -> None:
        ev, self.changed = self.changed, asyncio.Event()
        if ev is not None:
            ev.set()

    @property
    def encoding(self) -> str:
        enc = getattr(self.capabilities, "position_encoding", None)
        return str(getattr(enc, "value", enc) or "utf-16")


def _proc(client) -> Any:
    return getattr(client, "_server", None)


def _alive(client) -> bool:
    proc = _proc(client)
    return client is not None and proc is not None and proc.returncode is None


class _Pool:
    """The language servers of one execution root, shared by a session and its children."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        self.env = env
        self.bytecode = PrivateBytecode("wskit-lsp-pycache-")
        self.live: dict[str, _Live] = {}
        self.lock = threading.RLock()
        self.closed = False
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="wskit-lsp", daemon=True)
        self.thread.start()

    def run(self, coro, timeout: float):
        if self.closed:
            coro.close()
            raise LspError("the session's language servers are shut down (session closed)")
        fut = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return fut.result(timeout)
        except TimeoutError:
            fut.cancel()
            raise LspError(f"language server request timed out after {timeout:g} s") from None

    def live_for(self, d: LspServer) -> _Live:
        with self.lock:
            if self.closed:
                raise LspError("the session's language servers are shut down (session closed)")
            return self.live.setdefault(d.id, _Live(definition=d))

    # -- processes ------------------------------------------------------------

    async def start(self, live: _Live) -> None:
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient

        from .protocol import TolerantProtocol, tolerant_converter

        d = live.definition
        generation = live.generation + 1
        live.dropped_capabilities = []
        if live.changed is None:
            live.changed = asyncio.Event()
        client = LanguageClient("wskit", "0.1", protocol_cls=TolerantProtocol,
                                converter_factory=lambda: tolerant_converter(
                                    lambda name, why: live.dropped_capabilities.append(f"{name}: {why}")))

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diags(params):  # pygls 2 calls notification handlers with params only
            if live.generation != generation:
                return  # a publish of a previous process
            doc = live.docs.get(params.uri)
            if doc is None:
                return
            if params.version is not None:
                version = params.version
            elif doc.version == doc.opened or doc.acked == doc.version:
                version = doc.version  # nothing else was sent since the open, or the change is acknowledged
            else:
                return  # may describe an older text: left out
            if version < (doc.diag_version or 0) or version > doc.version:
                return  # a late publish for an older text than the one already known, or a bogus version
            doc.diag_version = version
            doc.diagnostics = [self._diag(x, doc) for x in params.diagnostics]
            live.notify()

        env = {k: os.environ[k] for k in INHERITED_ENV if k in os.environ}
        env.update(self.env)
        env.update(d.env)
        # a Python server never runs bytecode from the project's __pycache__ (not in its
        # approval's coverage): a private folder, unless the host set its own
        self.bytecode.apply(env, keep=self.env)
        try:
            await client.start_io(d.command, *d.args, cwd=str(self.root), env=env, start_new_session=True)
        except OSError as err:
            raise LspError(f"language server {d.id}: cannot start {d.command!r}: {err}") from None
        proc = _proc(client)
        asyncio.get_running_loop().create_task(self._drain(proc, live))
        params = types.InitializeParams(
            process_id=os.getpid(), root_uri=self.root.as_uri(), root_path=str(self.root),
            workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)],
            capabilities=types.ClientCapabilities(
                general=types.GeneralClientCapabilities(
                    position_encodings=[types.PositionEncodingKind.Utf32, types.PositionEncodingKind.Utf16]),
                text_document=types.TextDocumentClientCapabilities(
                    synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
                    hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText,
                                                                        types.MarkupKind.Markdown]),
                    definition=types.DefinitionClientCapabilities(link_support=True),
                    references=types.ReferenceClientCapabilities(),
                    document_symbol=types.DocumentSymbolClientCapabilities(
                        hierarchical_document_symbol_support=True),
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)),
                workspace=types.WorkspaceClientCapabilities(
                    workspace_folders=True, symbol=types.WorkspaceSymbolClientCapabilities())),
            initialization_options=d.initialization_options)
        try:
            result = await asyncio.wait_for(client.initialize_async(params), d.startup_timeout / 1000)
        except (asyncio.TimeoutError, RuntimeError, Exception) as err:
            await self.kill(client)
            tail = live.stderr_tail.decode("utf-8", "replace").strip().splitlines()[-3:]
            more = f"; stderr: {' | '.join(tail)}" if tail else ""
            raise LspError(f"language server {d.id} failed to initialise: "
                           f"{type(err).__name__}: {err or 'no answer'}{more}") from None
        client.initialized(types.InitializedParams())
        if d.settings is not None:
            client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=d.settings))
        live.client, live.capabilities, live.generation = client, result.capabilities, generation
        for doc in live.docs.values():
            doc.acked = doc.diag_version = doc.diagnostics = None
            doc.opened = doc.version
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=doc.uri, language_id=doc.language, version=doc.version,
                                                     text=doc.text)))
            self.barrier(live, doc)

    def _diag(self, x, doc: _Doc) -> dict[str, Any]:
        line = x.range.start.line
        code = x.code
        return {"line": line,
                "character": from_lsp_column(line_at(doc.text, line), x.range.start.character, self._enc(doc)),
                "message": x.message, "severity": int(x.severity) if x.severity is not None else None,
                "source": x.source, "code": code if code is None or isinstance(code, (int, str)) else str(code)}

    def _enc(self, doc: _Doc) -> str:
        for live in self.live.values():
            if doc.uri in live.docs:
                return live.encoding
        return "utf-16"

    async def _drain(self, proc, live: _Live) -> None:
        while proc.stderr is not None:
            chunk = await proc.stderr.read(65536)
            if not chunk:
                return
            live.stderr_tail += chunk
            del live.stderr_tail[:-8192]

    async def kill(self, client) -> None:
        proc = _proc(client)
        if proc is not None and proc.returncode is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            await proc.wait()
        client._stop_event.set()

    async def ensure(self, live: _Live) -> Any:
        if _alive(live.client):
            return live.client
        if live.client is not None:  # it was running: it died
            d = live.definition
            code = _proc(live.client).returncode if _proc(live.client) else "?"
            if not d.restart_on_crash:
                raise LspError(f"language server {d.id} exited (code {code}); restartOnCrash is false")
            if live.restarts >= d.max_restarts:
                raise LspError(f"language server {d.id} exited (code {code}) and reached "
                               f"its restart limit ({d.max_restarts})")
            live.restarts += 1
            await self.kill(live.client)
            live.client = None
        await self.start(live)
        return live.client

    async def request(self, live: _Live, op):
        """Run ``op(client)``; a server that died before or during it is restarted
        (by the restart rule) and ``op`` is tried once more on the new generation."""
        from pygls.exceptions import JsonRpcException

        client = await self.ensure(live)
        try:
            return await op(client)
        except JsonRpcException as err:
            raise LspError(f"language server {live.definition.id}: {err}") from None
        except RuntimeError:
            proc = _proc(client)
            if proc is None:
                raise
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except asyncio.TimeoutError:
                raise LspError(f"language server {live.definition.id} stopped answering") from None
            client = await self.ensure(live)
            try:
                return await op(client)
            except JsonRpcException as err:
                raise LspError(f"language server {live.definition.id}: {err}") from None
            except RuntimeError as err:
                raise LspError(f"language server {live.definition.id} failed again after a restart: {err}") from None

    # -- document sync -----------------------------------------------------------

    def sync_kind(self, live: _Live) -> tuple[int, Any]:
        """``(change kind, save option)`` of the running server: kind 0 none, 1 full, 2 incremental."""
        sync = getattr(live.capabilities, "text_document_sync", None)
        if sync is None:
            return 0, None
        if isinstance(sync, int) or hasattr(sync, "value"):
            return int(getattr(sync, "value", sync)), None
        change = getattr(sync, "change", None)
        return int(getattr(change, "value", change) or 0), getattr(sync, "save", None)

    def barrier(self, live: _Live, doc: _Doc) -> None:
        """Send the sync request for ``doc``'s current version; when the server answers,
        unversioned publishes after it belong to that version."""
        client, version = live.client, doc.version

        async def wait():
            try:
                await asyncio.wait_for(client.protocol.send_request_async(SYNC_METHOD, None),
                                       live.definition.request_timeout / 1000)
            except asyncio.TimeoutError:
                return
            except Exception:  # noqa: BLE001 -- the expected MethodNotFound error, or any other answer
                pass
            if live.client is client and doc.version == version:
                doc.acked = version

        asyncio.get_running_loop().create_task(wait())

    async def open(self, live: _Live, uri: str, rel: str, lang: str, text: str, owner: int) -> int:
        from lsprotocol import types

        client = await self.ensure(live)
        doc = live.docs.get(uri)
        if doc is not None:
            doc.owners.add(owner)
            if doc.text != text:
                await self.change(live, doc, text)
            return doc.version
        doc = live.docs[uri] = _Doc(uri=uri, rel=rel, language=lang, version=1, text=text, owners={owner})
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=lang, version=1, text=text)))
        self.barrier(live, doc)
        return doc.version

    async def change(self, live: _Live, doc: _Doc, text: str) -> int:
        from lsprotocol import types

        client = await self.ensure(live)
        if text == doc.text:
            return doc.version
        kind, _ = self.sync_kind(live)
        if doc.diag_version == doc.version and doc.diagnostics is not None:
            doc.fresh_before = doc.diagnostics
        old = doc.text
        doc.version += 1
        doc.text = text
        if kind == 2:
            edit = incremental_edit(old, text, live.encoding)
            (sl, sc, el, ec), new_text = edit
            changes = [types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=sl, character=sc),
                                  end=types.Position(line=el, character=ec)), text=new_text)]
        elif kind == 1:
            changes = [types.TextDocumentContentChangeWholeDocument(text=text)]
        else:
            return doc.version
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
            content_changes=changes))
        self.barrier(live, doc)
        return doc.version

    async def save(self, live: _Live, doc: _Doc) -> bool:
        from lsprotocol import types

        client = await self.ensure(live)
        _, save = self.sync_kind(live)
        if not save:
            return False
        include = bool(getattr(save, "include_text", False))
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), text=doc.text if include else None))
        return True

    async def close_doc(self, live: _Live, uri: str, owner: int) -> None:
        from lsprotocol import types

        doc = live.docs.get(uri)
        if doc is None:
            return
        doc.owners.discard(owner)
        if doc.owners:
            return
        live.docs.pop(uri, None)
        if _alive(live.client):
            live.client.text_document_did_close(types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)))

    async def wait_diagnostics(self, live: _Live, doc: _Doc, wait: float) -> list[dict[str, Any]] | None:
        deadline = time.monotonic() + wait
        while True:
            if doc.diag_version == doc.version and doc.diagnostics is not None:
                return list(doc.diagnostics)
            left = deadline - time.monotonic()
            if left <= 0 or live.changed is None:
                return None
            try:
                await asyncio.wait_for(live.changed.wait(), left)
            except asyncio.TimeoutError:
                return None

    # -- shutdown -------------------------------------------------------------

    async def shutdown(self, live: _Live) -> None:
        client = live.client
        proc = _proc(client)
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
        await self.kill(client)
        try:
            await asyncio.wait_for(client.stop(), 2)
        except Exception:  # noqa: BLE001
            pass

    def close(self) -> None:
        with self.lock:
            if self.closed:
                return
            lives = list(self.live.values())
        for live in lives:
            try:
                self.run(self.shutdown(live), live.definition.shutdown_timeout / 1000 * 2 + 5)
            except LspError:
                pass
        with self.lock:
            self.closed = True
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.loop.is_running():
            self.loop.close()


_SYMBOL_KINDS: dict[int, str] = {}


def _symbol_kind(kind) -> str:
    if not _SYMBOL_KINDS:
        from lsprotocol import types

        _SYMBOL_KINDS.update({k.value: k.name.lower() for k in types.SymbolKind})
    value = int(getattr(kind, "value", kind) or 0)
    return _SYMBOL_KINDS.get(value, str(value))


class LspService:
    """``session.lsp``: the language servers of one session.

    :param runtime: the :class:`~wskit.session.runtime.SessionRuntime`.

    A child session's service shares the pool of servers of its parent when both
    have the same execution root (see the module documentation).
    """

    def __init__(self, runtime) -> None:
        self.runtime = runtime
        self.root = Path(runtime.execution_root)
        self._docs: set[str] = set()  # uris this session opened
        self.closed = False
        self.shared = False
        pool = None
        parent = getattr(runtime.session, "parent", None)
        if parent is not None:
            try:
                pview = parent.runtime.service("lsp")
            except WskitError:
                pview = None
            if isinstance(pview, LspService) and not pview.closed and pview.root == self.root:
                pool, self.shared = pview._pool, True
        self._pool: _Pool = pool or _Pool(self.root, dict(runtime.options.env))
        self.write_hook = self._register_write_hook()

    def _register_write_hook(self) -> bool:
        try:
            hooks = self.runtime.hooks
        except WskitError:
            return False
        wait = max((s.diagnostic_wait_timeout for s in self.servers()), default=750) / 1000
        hooks.register_function("PostToolUse", self._post_tool_use, matcher=WRITE_TOOLS, name="wskit-lsp-sync",
                                timeout=wait + 30)
        return True

    def _post_tool_use(self, payload) -> dict[str, Any] | None:
        tool_input = (payload or {}).get("tool_input") or {}
        path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
        if not isinstance(path, str) or self.closed:
            return None
        try:
            report = self.after_write(path)
        except (LspError, SafeFsError) as err:
            return {"systemMessage": f"LSP: {err}"}
        text = report.render() if report is not None else ""
        if not text:
            return None
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}

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

    def running(self) -> dict[str, dict[str, Any]]:
        """``{server id: {"pid", "generation", "starts", "restarts", "documents",
        "dropped_capabilities"}}`` of the servers started so far; ``pid`` is None when
        the process is not running, ``documents`` counts the documents open in it."""
        out = {}
        for sid, live in list(self._pool.live.items()):
            proc = _proc(live.client)
            out[sid] = {"pid": proc.pid if proc and proc.returncode is None else None,
                        "generation": live.generation, "starts": live.generation, "restarts": live.restarts,
                        "documents": len(live.docs), "dropped_capabilities": list(live.dropped_capabilities)}
        return out

    def documents(self) -> dict[str, int]:
        """``{path relative to the execution root: version}`` of the documents this session opened."""
        out = {}
        for live in self._pool.live.values():
            for uri, doc in live.docs.items():
                if uri in self._docs:
                    out[doc.rel] = doc.version
        return dict(sorted(out.items()))

    # -- plumbing -----------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed:
            raise LspError("this session's LSP service is closed")

    def _uri_and_rel(self, path: str | os.PathLike[str]) -> tuple[str, str]:
        p = Path(path)
        if not p.is_absolute():
            p = self.root / p
        try:
            rel = p.relative_to(self.root)
        except ValueError:
            raise LspError(f"{path} is outside the execution root {self.root}") from None
        if ".." in rel.parts:
            raise LspError(f"{path} is outside the execution root {self.root}")
        return p.as_uri(), PurePosixPath(*rel.parts).as_posix()

    def _read(self, rel: str) -> str:
        return decode_text(read_bytes(self.root, rel, max_bytes=MAX_DOCUMENT_BYTES).raw, rel)

    def _check_approved(self, d: LspServer) -> None:
        """A server not started yet starts only when approved (project and local servers,
        :mod:`wskit.builtin_plugins.lsp.approval`).

        :raises LspApprovalError: awaiting approval, modified, denied, or the store unusable."""
        if d.id in self._pool.live:
            return
        from wskit.builtin_plugins.lsp import APPROVAL_RUNS, server_approval

        session = self.runtime.session
        state, why, _ = server_approval(d, session.binding, getattr(getattr(session, "profile", None), "home", None),
                                        folder_trusted=bool(getattr(session.trust, "trusted", False)))
        if state == "untrusted-project":
            raise LspApprovalError(f"LSP server {d.id} is not started: it {why} (`wsctl trust grant` first, "
                                   "then review it with `wsctl lsp list`); nothing was started")
        if state not in APPROVAL_RUNS:
            raise LspApprovalError(f"LSP server {d.id} is {state}" + (f" ({why})" if why else "")
                                   + f": review it with `wsctl lsp list` and run `wsctl lsp approve {d.name} "
                                   "--digest …`; nothing was started")

    def _served(self, path) -> tuple[LspServer, _Live, str, str]:
        d = self.server_for(path)
        if d is None:
            raise LspError(f"no enabled language server serves {Path(path).suffix or 'files without an extension'}")
        uri, rel = self._uri_and_rel(path)
        self._check_approved(d)
        return d, self._pool.live_for(d), uri, rel

    def _doc(self, path, *, open_it: bool = True) -> tuple[LspServer, _Live, _Doc]:
        """The document of ``path``, opened first (from disk) when ``open_it`` and this session has not."""
        d, live, uri, rel = self._served(path)
        if uri not in self._docs or uri not in live.docs:
            if not open_it:
                raise LspError(f"{rel} is not open in a language server (call did_open first)")
            self.did_open(path)
        return d, live, live.docs[uri]

    # -- documents -----------------------------------------------------------

    def did_open(self, path: str | os.PathLike[str], text: str | None = None) -> str | None:
        """Open ``path`` (absolute, or relative to the execution root) in its server,
        starting the server on first use. The text is read through safe, bounded file
        access when not given. Opening a document that is open already (in this
        session or a parent's) sends its new text as a change when it differs.

        :returns: the server id, or None when no enabled server serves the extension.
        :raises LspError: start or restart failed; the path lies outside the execution root.
        :raises SafeFsError: the file cannot be read (missing, a link, too large, not UTF-8).
        """
        self._check_open()
        d = self.server_for(path)
        if d is None:
            return None
        uri, rel = self._uri_and_rel(path)
        if text is None:
            text = self._read(rel)
        self._check_approved(d)
        live = self._pool.live_for(d)
        lang = d.extension_to_language[Path(path).suffix.lower()]
        self._pool.run(self._pool.open(live, uri, rel, lang, text, id(self)), d.startup_timeout / 1000 + 5)
        self._docs.add(uri)
        return d.id

    def did_change(self, path: str | os.PathLike[str], text: str | None = None) -> int:
        """Send ``path``'s new text (read from disk when not given): one range edit when
        the server syncs incrementally, the whole text when it syncs fully. Opens the
        document first when this session has not.

        :returns: the document's version after the change (unchanged when the text is).
        :raises LspError: no server serves the file, or the server failed.
        """
        self._check_open()
        d, live, uri, rel = self._served(path)
        if text is None:
            text = self._read(rel)
        if uri not in self._docs or uri not in live.docs:
            self.did_open(path, text)
            return live.docs[uri].version
        doc = live.docs[uri]
        return self._pool.run(self._pool.change(live, doc, text), d.request_timeout / 1000 + 5)

    def did_save(self, path: str | os.PathLike[str], text: str | None = None) -> bool:
        """Tell the server ``path`` was saved (with its text when the server asks for it);
        a ``text`` that differs from the document's is sent as a change first.

        :returns: False when the server does not want save notifications.
        """
        self._check_open()
        if text is not None:
            self.did_change(path, text)
        d, live, doc = self._doc(path)
        return self._pool.run(self._pool.save(live, doc), d.request_timeout / 1000 + 5)

    def did_close(self, path: str | os.PathLike[str]) -> None:
        """Close ``path`` for this session (no-op when it did not open it); the server is
        told when no other session sharing it keeps the document open."""
        if self.closed:
            return
        d = self.server_for(path)
        uri, _ = self._uri_and_rel(path)
        live = self._pool.live.get(d.id) if d else None
        if live is None or uri not in self._docs:
            return
        self._docs.discard(uri)
        self._pool.run(self._pool.close_doc(live, uri, id(self)), 5)

    def version(self, path: str | os.PathLike[str]) -> int | None:
        """The current version of ``path``'s document, or None when it is not open."""
        d = self.server_for(path)
        uri, _ = self._uri_and_rel(path)
        live = self._pool.live.get(d.id) if d else None
        doc = live.docs.get(uri) if live else None
        return doc.version if doc else None

    # -- diagnostics -----------------------------------------------------------

    def diagnostics(self, path: str | os.PathLike[str], wait: float | None = None) -> list[dict[str, Any]]:
        """The diagnostics of the latest version of ``path``
        (``[{"line", "character", "message", "severity", "source", "code"}]``, 0-based),
        waiting up to ``wait`` seconds (default: the definition's
        ``diagnostic_wait_timeout``) for the server's publish for that version. The
        document must be open. ``[]`` at once for a server whose ``diagnostics`` is false.

        :raises DiagnosticsNotReady: nothing was published for the latest version within
            the wait (an older version's diagnostics are never returned).
        """
        self._check_open()
        d, live, doc = self._doc(path, open_it=False)
        if not d.diagnostics:
            return []
        wait = d.diagnostic_wait_timeout / 1000 if wait is None else wait
        if getattr(live.capabilities, "diagnostic_provider", None):
            return self._pull(d, live, doc, wait)
        got = self._pool.run(self._pool.wait_diagnostics(live, doc, wait), wait + 5)
        if got is None:
            raise DiagnosticsNotReady(f"{doc.rel}: {d.id} published no diagnostics for version {doc.version} "
                                      f"within {wait:g} s", doc.rel, doc.version)
        return got

    def _pull(self, d: LspServer, live: _Live, doc: _Doc, wait: float) -> list[dict[str, Any]]:
        from lsprotocol import types

        version = doc.version

        async def go():
            return await self._pool.request(live, lambda client: client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))))

        try:
            res = self._pool.run(go(), max(wait, d.request_timeout / 1000) + 1)
        except LspError as err:
            raise DiagnosticsNotReady(f"{doc.rel}: {d.id} did not answer textDocument/diagnostic for version "
                                      f"{version}: {err}", doc.rel, version) from None
        items = getattr(res, "items", None)
        if items is None or doc.version != version:  # "unchanged" needs a previous result id we never send
            raise DiagnosticsNotReady(f"{doc.rel}: {d.id} answered no full diagnostics for version {version}",
                                      doc.rel, version)
        doc.diagnostics, doc.diag_version = [self._pool._diag(x, doc) for x in items], version
        return list(doc.diagnostics)

    def after_write(self, path: str | os.PathLike[str], *, wait: float | None = None) -> WriteDiagnostics | None:
        """Sync a file the host just wrote and collect its new diagnostics for the model:
        the text is read from disk and sent as a change (or opened, starting the server
        on first use), then saved; the diagnostics for the new version are awaited.

        :param wait: seconds to wait for them (default: the definition's ``diagnostic_wait_timeout``).
        :returns: a :class:`~wskit_lsp.results.WriteDiagnostics` (``current`` false when the
            server did not publish for the new version in time), or None when no enabled
            server serves the file.
        :raises LspError: the server failed. :raises SafeFsError: the file cannot be read.
        """
        self._check_open()
        d = self.server_for(path)
        if d is None:
            return None
        _, live, uri, rel = self._served(path)
        text = self._read(rel)
        old = live.docs.get(uri)
        before = None
        if old is not None:
            before = old.diagnostics if old.diag_version == old.version else old.fresh_before
        if uri in self._docs and old is not None:
            self.did_change(path, text)
        else:
            self.did_open(path, text)
        doc = live.docs[uri]
        self._pool.run(self._pool.save(live, doc), d.request_timeout / 1000 + 5)
        if not d.diagnostics:
            return WriteDiagnostics(path=rel, server=d.id, version=doc.version, current=True)
        try:
            now = self.diagnostics(path, wait=wait)
        except DiagnosticsNotReady:
            return WriteDiagnostics(path=rel, server=d.id, version=doc.version, current=False)
        return WriteDiagnostics(path=rel, server=d.id, version=doc.version, current=True,
                                diagnostics=tuple(now), new=WriteDiagnostics.compare(before, now))

    # -- semantic queries -----------------------------------------------------------

    def _position(self, live: _Live, doc: _Doc, line: int, character: int):
        from lsprotocol import types

        return types.Position(line=line, character=to_lsp_column(line_at(doc.text, line), character, live.encoding))

    def _ask(self, path, method: str, make_params) -> tuple[LspServer, _Live, _Doc, Any]:
        self._check_open()
        d, live, doc = self._doc(path)
        client_method = method

        async def go():
            return await self._pool.request(live, lambda client: getattr(client, client_method)(make_params(live, doc)))

        return d, live, doc, self._pool.run(go(), d.request_timeout / 1000 + 1)

    def _location(self, live: _Live, uri: str, rng, texts: dict[str, str]) -> dict[str, Any]:
        parsed = urlparse(uri)
        p = Path(unquote(parsed.path)) if parsed.scheme == "file" else None
        rel, in_root = uri, False
        if p is not None:
            try:
                rel = PurePosixPath(*p.relative_to(self.root).parts).as_posix()
                in_root = True
            except ValueError:
                rel = str(p)
        sl, sc, el, ec = rng.start.line, rng.start.character, rng.end.line, rng.end.character
        if in_root and live.encoding != "utf-32":
            text = texts.get(uri)
            if text is None:
                doc = live.docs.get(uri)
                try:
                    text = doc.text if doc else self._read(rel)
                except (SafeFsError, OSError):
                    text = ""
                texts[uri] = text
            sc = from_lsp_column(line_at(text, sl), sc, live.encoding)
            ec = from_lsp_column(line_at(text, el), ec, live.encoding)
        return {"path": rel, "line": sl, "character": sc, "end_line": el, "end_character": ec, "in_root": in_root}

    def _locations(self, kind: str, d: LspServer, live: _Live, res, limit: int) -> QueryResult:
        if res is None:
            items = []
        elif isinstance(res, (list, tuple)):
            items = list(res)
        else:
            items = [res]
        texts: dict[str, str] = {}
        out = []
        for x in items[:limit]:
            if hasattr(x, "target_uri"):  # LocationLink
                out.append(self._location(live, x.target_uri, x.target_selection_range, texts))
            else:
                out.append(self._location(live, x.uri, x.range, texts))
        out.sort(key=lambda x: (not x["in_root"], x["path"], x["line"], x["character"]))
        return QueryResult(kind=kind, items=tuple(out), total=len(items), server=d.id)

    def goto_definition(self, path: str | os.PathLike[str], line: int, character: int, *,
                        limit: int = MAX_RESULTS) -> QueryResult:
        """Where the symbol at ``line``/``character`` (0-based; characters in code points)
        of ``path`` is defined (``textDocument/definition``), opening the file first when
        needed. At most ``limit`` locations are kept (``total`` counts them all).

        :raises LspError: no server serves the file, or the request failed.
        """
        from lsprotocol import types

        d, live, doc, res = self._ask(path, "text_document_definition_async", lambda live, doc: types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=self._position(live, doc, line, character)))
        return self._locations("definition", d, live, res, limit)

    def references(self, path: str | os.PathLike[str], line: int, character: int, *,
                   include_declaration: bool = True, limit: int = MAX_RESULTS) -> QueryResult:
        """Every reference to the symbol at ``line``/``character`` of ``path``
        (``textDocument/references``), bounded to ``limit`` locations.

        :raises LspError: no server serves the file, or the request failed.
        """
        from lsprotocol import types

        d, live, doc, res = self._ask(path, "text_document_references_async", lambda live, doc: types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=self._position(live, doc, line, character),
            context=types.ReferenceContext(include_declaration=include_declaration)))
        return self._locations("references", d, live, res, limit)

    def hover(self, path: str | os.PathLike[str], line: int, character: int) -> str | None:
        """The hover text at ``line``/``character`` (0-based), or None; at most
        :data:`~wskit_lsp.results.MAX_HOVER_CHARS` characters (then a marker says how
        many more). Opens the file first when needed."""
        from lsprotocol import types

        _, _, _, res = self._ask(path, "text_document_hover_async", lambda live, doc: types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=self._position(live, doc, line, character)))
        if res is None:
            return None
        c = res.contents
        if isinstance(c, list):
            text = "\n".join(getattr(x, "value", str(x)) for x in c)
        else:
            text = getattr(c, "value", str(c))
        return bounded_text(text, MAX_HOVER_CHARS) if text else None

    def document_symbols(self, path: str | os.PathLike[str], *, limit: int = MAX_RESULTS) -> QueryResult:
        """The symbols of ``path`` (``textDocument/documentSymbol``), a tree flattened in
        document order with each symbol's ``container``, bounded to ``limit``."""
        from lsprotocol import types

        d, live, doc, res = self._ask(path, "text_document_document_symbol_async",
                                      lambda live, doc: types.DocumentSymbolParams(
                                          text_document=types.TextDocumentIdentifier(uri=doc.uri)))
        flat: list[tuple[Any, str | None, str, Any]] = []  # (symbol, container, uri, range)

        def walk(items, container):
            for s in items or ():
                if hasattr(s, "location"):  # SymbolInformation
                    flat.append((s, s.container_name or container, s.location.uri, s.location.range))
                else:
                    flat.append((s, container, doc.uri, s.selection_range))
                    walk(s.children, s.name)

        walk(res, None)
        if res and hasattr(res[0], "location"):  # flat SymbolInformation: put in document order
            flat.sort(key=lambda x: (x[3].start.line, x[3].start.character))
        return self._symbols("document_symbols", d, live, flat, limit)

    def workspace_symbols(self, query: str, path: str | os.PathLike[str] | None = None, *,
                          limit: int = MAX_RESULTS) -> QueryResult:
        """Symbols matching ``query`` across the workspace (``workspace/symbol``), asked of
        the server for ``path``'s language (default: the first running server),
        bounded to ``limit``.

        :raises LspError: no server serves ``path``, or none is running when ``path`` is None.
        """
        from lsprotocol import types

        self._check_open()
        if path is not None:
            d, live, _doc = self._doc(path)
        else:
            running = [lv for lv in self._pool.live.values() if _alive(lv.client)]
            if not running:
                raise LspError("no language server is running (open a file first, or name one)")
            live = running[0]
            d = live.definition

        async def go():
            return await self._pool.request(live, lambda client: client.workspace_symbol_async(
                types.WorkspaceSymbolParams(query=query)))

        res = self._pool.run(go(), d.request_timeout / 1000 + 1)
        flat = []
        for s in res or ():
            loc = s.location
            rng = getattr(loc, "range", None) or types.Range(start=types.Position(line=0, character=0),
                                                            end=types.Position(line=0, character=0))
            flat.append((s, s.container_name, loc.uri, rng))
        return self._symbols("workspace_symbols", d, live, flat, limit)

    def _symbols(self, kind: str, d: LspServer, live: _Live, flat, limit: int) -> QueryResult:
        texts: dict[str, str] = {}
        out = []
        for s, container, uri, rng in flat[:limit]:
            loc = self._location(live, uri, rng, texts)
            out.append({"name": s.name, "kind": _symbol_kind(s.kind), "container": container, **loc})
        return QueryResult(kind=kind, items=tuple(out), total=len(flat), server=d.id)

    # -- tools for the model -----------------------------------------------------------

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The model tools a host can register now: ``[]`` while no language server runs,
        else the ``LSP`` tool (see :mod:`wskit_lsp.tools`) for the running servers' file types."""
        from .tools import tool_definitions

        return tool_definitions(self)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run a tool from :meth:`tool_definitions`: ``{"is_error", "text"}`` (bounded text)."""
        from .tools import call_tool

        return call_tool(self, name, arguments)

    def running_languages(self) -> dict[str, str]:
        """``{extension: server id}`` for the servers that run now, or that died and will be
        restarted by the next call (``restartOnCrash`` and restarts left)."""
        out: dict[str, str] = {}
        for live in self._pool.live.values():
            d = live.definition
            restartable = live.client is not None and d.restart_on_crash and live.restarts < d.max_restarts
            if not self._pool.closed and (_alive(live.client) or restartable):
                for ext in live.definition.extension_to_language:
                    out.setdefault(ext, live.definition.id)
        return out

    def capabilities(self, server_id: str) -> Any:
        """The ``ServerCapabilities`` (lsprotocol) of a started server, or None."""
        live = self._pool.live.get(self.definition(server_id).id)
        return live.capabilities if live else None

    # -- shutdown -------------------------------------------------------------

    def close(self) -> None:
        """Close the session's service; idempotent. The owner of the servers (the top-level
        session) shuts every server down (``shutdown``/``exit``, then a kill of its process
        group); a child only closes the documents it opened."""
        if self.closed:
            return
        self.closed = True
        if self.shared:
            for live in list(self._pool.live.values()):
                for uri in list(self._docs):
                    if uri in live.docs and not self._pool.closed:
                        try:
                            self._pool.run(self._pool.close_doc(live, uri, id(self)), 5)
                        except LspError:
                            pass
            self._docs.clear()
            return
        self._pool.close()


__all__ = ["DiagnosticsNotReady", "INHERITED_ENV", "LspApprovalError", "LspError", "LspService", "MAX_DOCUMENT_BYTES", "SYNC_METHOD",
           "WRITE_TOOLS"]
