"""Make an optional dependency fail to import, whatever is installed."""

import builtins
import sys

from cresize import _optional

#: What a package that is installed but broken raises on import, one of each kind.
BROKEN = [
    OSError("libtorch_global_deps.so: cannot open shared object file"),
    ImportError("libGL.so.1: cannot open shared object file: No such file or directory"),
    ModuleNotFoundError("No module named 'typing_extensions'", name="typing_extensions"),
    AttributeError("partially initialized module 'typing' has no attribute 'Any'"),
]


def import_raises(monkeypatch, name, exc):
    """``import name`` (and its submodules) raises ``exc`` for the rest of the test,
    ``_optional``'s memory of broken packages starting empty."""
    real = builtins.__import__
    calls = []

    def fake(module, *args, **kwargs):
        if module == name or module.startswith(name + "."):
            calls.append(module)
            raise exc
        return real(module, *args, **kwargs)

    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setattr(builtins, "__import__", fake)
    monkeypatch.setattr(_optional, "_broken", {})
    monkeypatch.setattr(_optional, "_warned", set())
    return calls
