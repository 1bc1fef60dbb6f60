"""Files written whole or not at all: a temporary file beside the name, synced, renamed
into place (``_write_atomic``), for every file cresize's commands write (``cresize
resize``'s images through ``image``, ``cresize check``'s and ``cresize golden``'s
JSON through ``_check.write_text``). Standard library only: the verification tools
need not load the image layer.
"""

import errno
import os
import stat
import threading

#: The longest name of a file, in bytes (NAME_MAX of Linux's and macOS's file systems,
#: 255 UTF-16 units on Windows'): a temporary's name is cut to fit it.
NAME_MAX = 255


def _write_atomic(path, write, overwrite, later=None):
    """Call ``write(file)`` on a temporary file next to ``path``, then ``_commit`` it.

    With ``later`` (a ``concurrent.futures`` executor), ``_commit`` (the wait
    for the disk) runs there and its future is returned: the caller goes on
    with its next file meanwhile, and learns from the future whether ``path``
    was written. Whatever happens, the temporary file is renamed whole and
    synced, or removed.
    """
    if os.path.isdir(path):  # "exists (pass overwrite=True)", then EISDIR of the temporary
        raise IsADirectoryError(errno.EISDIR, "a folder has this name, not a file", path)
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"{path} exists (pass overwrite=True, or --overwrite)")
    if overwrite and os.path.islink(path) and os.path.exists(path):
        path = os.path.realpath(path)  # written through, as open() does: the link stays
    folder, name = os.path.split(path)
    # os.urandom, as secrets.token_hex, without secrets' import of OpenSSL (~2 ms a run).
    tag = f".{os.urandom(4).hex()}.tmp"
    while len(os.fsencode(f".{name}{tag}")) > NAME_MAX:  # a valid name, too long for it
        name = name[:-1]
    tmp = os.path.join(folder, f".{name}{tag}")
    f = None
    try:
        # Opened inside the try: a signal handler that raises does so as soon as
        # the open returns, and the file it created must still be removed.
        with _TEMPORARIES_LOCK:  # made and listed at once (see _abandon_temporaries)
            f = open(tmp, "x+b")  # read too: _append_ifds reads the TIFF it patches
            _TEMPORARIES.add(tmp)
        if overwrite:
            _keep_mode(tmp, path)
        write(f)
        f.flush()
        if later is None:
            _commit(f, tmp, path, overwrite)
            return None
        return later.submit(_commit, f, tmp, path, overwrite)
    except BaseException as exc:
        if not (isinstance(exc, FileExistsError) and exc.filename == tmp):  # else not ours
            _discard(f, tmp)
            if f is None and isinstance(exc, OSError) and exc.filename == tmp:
                # the temporary could not be made (no such folder, no permission):
                # name the file the caller asked for, not our hidden temporary
                raise type(exc)(exc.errno, exc.strerror, path) from None
        raise


def _keep_mode(tmp, path):
    """Give ``tmp`` the permission bits of the file at ``path`` it will replace, if any
    (a new file keeps the umask's): replacing a private 0600 file must not publish it."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:  # nothing there (or nothing this process may look at)
        return
    os.chmod(tmp, mode)


#: ``os.link`` errors that mean "this file system has no hard links" (EINVAL: Windows on FAT).
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK, errno.EXDEV, errno.EINVAL}


def _commit(f, tmp, path, overwrite=True):
    """``fsync`` and close the written temporary file ``f``, then rename ``tmp`` to
    ``path``; on any failure remove ``tmp`` and raise.

    Without ``overwrite`` the name is taken with ``os.link``, which fails if a file
    appeared at ``path`` since the caller checked (another program writing it
    meanwhile): that file is kept and FileExistsError raised. Where the file system
    has no hard links, the check is repeated just before the rename."""
    try:
        with f:
            os.fsync(f.fileno())
        with _TEMPORARIES_LOCK:  # renamed, or not at all, before an abandon
            _rename(tmp, path, overwrite)
            _TEMPORARIES.discard(tmp)
    except BaseException:
        _discard(f, tmp)
        raise


def _rename(tmp, path, overwrite):
    """``_commit``'s rename of ``tmp`` to ``path`` (a hard link and an unlink without
    ``overwrite``)."""
    if overwrite:
        os.replace(tmp, path)
        return
    appeared = f"{path} exists (it appeared while this file was written)"
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsError(appeared) from None
    except OSError as exc:
        if exc.errno not in _NO_LINKS:
            raise
        if os.path.lexists(path):
            raise FileExistsError(appeared) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


def _discard(f, tmp):
    """Close ``f`` (None: not opened) and remove the temporary file ``tmp``."""
    try:
        if f is not None:
            f.close()
    except OSError:
        pass
    with _TEMPORARIES_LOCK:
        _remove(tmp)
        _TEMPORARIES.discard(tmp)


def _remove(tmp):
    """Remove the temporary file ``tmp`` if it can be. One given a read-only file's mode
    (``_keep_mode``) is made writable first where that is refused: Windows removes no
    read-only file, and would leave it behind whenever the rename failed (a read-only
    file, or one open in another program, is not replaced there)."""
    try:
        os.unlink(tmp)
    except PermissionError:
        try:
            os.chmod(tmp, stat.S_IREAD | stat.S_IWRITE)
            os.unlink(tmp)
        except OSError:
            pass
    except OSError:
        pass


#: The temporary files ``_write_atomic`` has made and not yet renamed or removed, in
#: every thread; made, renamed and removed under ``_TEMPORARIES_LOCK``.
_TEMPORARIES: set[str] = set()
_TEMPORARIES_LOCK = threading.Lock()


def _abandon_temporaries():
    """Remove every temporary file being written and return how many there were, for a
    process about to end at once (``os._exit``: ``cresize resize``'s second Ctrl-C).

    The lock is taken and kept: no thread makes, renames or removes a temporary file
    after this, so none is left behind and no output appears half-way; outputs already
    renamed stay. Threads that then write wait for the lock until the process ends.
    (The lock is held only to open, rename or remove a file; the wait is bounded all
    the same, should the caller's own thread hold it.)"""
    _TEMPORARIES_LOCK.acquire(timeout=5)
    for tmp in _TEMPORARIES:
        _remove(tmp)
    return len(_TEMPORARIES)


def cannot_write(path, exc):
    """What a command says when the file ``path`` could not be written: the OS's reason
    of the ``OSError`` ``exc`` (``cannot write r.json: No space left on device``), in
    ``cresize check``, ``golden`` and ``demo`` alike."""
    return f"cannot write {path}: {exc.strerror or exc}"
