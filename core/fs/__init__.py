"""Safe file access: the one module every loader reads files through (design §4).

Every read is relative to a *base* folder (a source project, the user home, a
plugin root) and refuses, with a stable code:

========================  =====================================================
code                      refused
========================  =====================================================
``path-absolute``         an absolute target, or a drive/URL-looking one
``path-escape``           a ``..`` component (lexical escape)
``path-invalid``          NUL, backslash or an empty component
``path-not-utf8``         a byte that is not UTF-8 in a path written in a file
                          (:func:`split_written`: manifest path fields)
``secret-path``           ``.env*``, ``.ssh``, ``.aws``, ``id_rsa*``, ``*.pem``,
                          ``*.key``, ``credentials*``, ``.git`` internals
``symlink``               any symlinked component (unless ``follow_links``)
``link-cycle``            a followed link that leads back into its own walk
``hardlink``              a regular file with ``st_nlink > 1``
``special-file``          FIFO, socket, device (checked before and after open,
                          opened ``O_NONBLOCK|O_NOFOLLOW``: never blocks)
``not-found``             the file does not exist
``not-a-file``            a directory where a file was expected
``too-large``             raw size over the caller's limit, or over
                          :func:`read_limit` (8 MiB by default) when it names
                          none (checked with fstat before reading, and while
                          reading: an oversized file is never read whole)
``invalid-utf8``          bytes that are not UTF-8 (line given)
``io-error``              any other OS error
========================  =====================================================

Walking uses ``openat``-style directory file descriptors with ``O_NOFOLLOW`` on
every component, so a component swapped for a link between check and use is
still refused. Text is decoded as UTF-8 with one leading BOM stripped and CRLF
and CR normalised to LF; sizes are checked on the raw bytes.

Inside a :func:`wskit.changes.recording` block every folder listed and every
file opened (or found missing) is noted with its ``stat`` signature, so a cache
can later tell by ``stat`` alone whether a load is still current.

User-scope sources (the user's own home folders) may pass ``follow_links=True``:
file and folder links are then followed (GNU Stow, Home Manager), and the read
reports the link target so loaders can emit a ``followed-link`` diagnostic.

Every public name of safe file access is importable from this package. Its modules:
:mod:`wskit.fs.read` (opening and reading), :mod:`wskit.fs.limits` (the default byte bound),
:mod:`wskit.fs.scan` (folder listing),
:mod:`wskit.fs.descriptors` (the descriptor-level primitives fast paths share),
:mod:`wskit.fs.paths` (the lexical checks: ``path-*`` and ``secret-path``),
:mod:`wskit.fs.text` (:func:`decode_text`, :func:`find_hidden_chars`),
:mod:`wskit.fs.links` (:func:`inside_target`: may a link inside a source project be followed),
:mod:`wskit.fs.scan` (folder listing) and :class:`SafeFsError` in :mod:`wskit.errors`.
"""

from __future__ import annotations

from wskit.errors import SafeFsError
from wskit.fs.limits import MAX_READ_BYTES, read_limit
from wskit.fs.links import inside_target
from wskit.fs.paths import SECRET_PATTERNS, check_not_secret, is_secret_name, split_relative, split_written
from wskit.fs.read import DirEntry, ReadResult, is_file, read_bytes, read_head
from wskit.fs.scan import open_dir, scan_dir, scan_fd, scan_fd_tuples
from wskit.fs.text import decode_text, find_hidden_chars

__all__ = [
    "MAX_READ_BYTES", "SECRET_PATTERNS", "DirEntry", "ReadResult", "SafeFsError", "check_not_secret", "decode_text",
    "find_hidden_chars", "inside_target", "is_file", "is_secret_name", "open_dir", "read_bytes", "read_head", "read_limit",
    "scan_dir", "scan_fd",
    "scan_fd_tuples", "split_relative", "split_written",
]
