"""Builds the clsw wheel with the compiled library inside (the metadata is in pyproject.toml).

`pip install bindings/python` (or `pip wheel bindings/python`) runs build_py below, which
runs `cargo build --release -p clsw-capi` (capi/, the package that builds the C libraries
of the crate two directories up) and copies the shared library (libclsw.so, libclsw.dylib
or clsw.dll) into the built package, next to clsw/__init__.py, where clsw finds it: the
library that `scripts/install.sh` installs for C users.

The package loads the library with ctypes, so the wheel does not depend on the Python
version or ABI, only on the platform: it is tagged py3-none-<platform>.

pip captures a build's output and shows it only with `pip install -v` or when the build
fails, which would leave a user looking at a silent minute or two while cargo compiles.
So cargo's messages and progress bar go to the user's terminal (/dev/tty) when pip has
taken stderr and a terminal can be opened; elsewhere (CI, no terminal, Windows) they go
to stderr as before, where pip keeps them.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional, TextIO

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel  # setuptools >= 70.1
except ImportError:
    from wheel.bdist_wheel import bdist_wheel

MANIFEST = Path(__file__).resolve().parents[2] / "Cargo.toml"
LIBRARY_SUFFIXES = (".so", ".dylib", ".dll")


def terminal() -> Optional[TextIO]:
    """The user's terminal, opened for writing, when this build's stderr is not one (pip
    captures it); None when stderr already is a terminal or there is none to open."""
    if sys.stderr.isatty():
        return None
    try:
        return open("/dev/tty", "w")
    except OSError:  # no controlling terminal (CI, a service) or no /dev/tty (Windows)
        return None


def build_library() -> Path:
    """Runs cargo; returns the path of the shared library it built (or found fresh)."""
    if not MANIFEST.is_file():
        raise RuntimeError(f"{MANIFEST} not found: build the clsw Python package from clsw's source tree")
    cargo = os.environ.get("CARGO") or shutil.which("cargo")
    if not cargo:
        raise RuntimeError("building the clsw Python package needs Rust's cargo: https://rustup.rs")
    # Messages as JSON on stdout give the library's path wherever the target directory is
    # (CARGO_TARGET_DIR, .cargo/config.toml); diagnostics still print, on stderr.
    cmd = [cargo, "build", "--release", "-p", "clsw-capi",
           "--manifest-path", str(MANIFEST), "--message-format=json-render-diagnostics"]
    print(" ".join(cmd), flush=True)
    tty = terminal()
    try:
        if tty:
            # On a line of its own: pip's "Building wheel for clsw ..." has no newline yet.
            print("\nclsw: building the library with cargo", file=tty, flush=True)
        # stderr None (no terminal opened): cargo inherits this build's stderr.
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=tty, text=True, check=True).stdout
    finally:
        if tty:
            tty.close()
    for line in out.splitlines():
        msg = json.loads(line) if line.startswith("{") else {}
        target = msg.get("target", {})
        if msg.get("reason") == "compiler-artifact" and target["name"] == "clsw" and "cdylib" in target["kind"]:
            for name in msg["filenames"]:
                if name.endswith(LIBRARY_SUFFIXES):
                    return Path(name)
    raise RuntimeError("cargo built no shared library (cdylib) for clsw")


class BuildPyWithLibrary(build_py):
    """build_py, then the library into the built package (build_lib/clsw/), not the sources."""

    def run(self):
        super().run()
        library = build_library()
        self.library = os.path.join(self.build_lib, "clsw", library.name)
        self.copy_file(str(library), self.library)

    def get_outputs(self, include_bytecode=True):
        extra = [self.library] if getattr(self, "library", None) else []
        return super().get_outputs(include_bytecode) + extra


class BinaryDistribution(Distribution):
    """Carries a native library: bdist_wheel makes a platform wheel (root_is_pure False)
    whose files install into platlib."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """For any Python 3, one platform: py3-none-<platform> (ctypes needs no Python ABI)."""

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


setup(
    distclass=BinaryDistribution,
    cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel},
)
