"""Makes the package importable from the source tree (bindings/python/clsw), and holds
what the test files share: the devices to run on and a native-path engine.

With CLSW_PYTHON_INSTALLED=1 (.ci/run, after installing the wheel into a venv) the tests
run against the installed package instead, and check that it is the installed one
with the library its wheel carries."""

import os
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]
INSTALLED = os.environ.get("CLSW_PYTHON_INSTALLED") == "1"

if not INSTALLED:
    sys.path.insert(0, str(SOURCE))

import pytest  # noqa: E402

import clsw  # noqa: E402

if INSTALLED:
    package = Path(clsw.__file__).resolve().parent
    assert SOURCE not in package.parents, (
        f"CLSW_PYTHON_INSTALLED=1 but clsw was imported from the source tree ({package}), "
        "not from the installed package"
    )
    library = Path(clsw.library_path()).resolve()
    assert library.parent == package, (
        f"CLSW_PYTHON_INSTALLED=1 but clsw loaded {library}, not the library in the installed "
        f"package ({package}); is CLSW_LIB set?"
    )


def choices():
    """The native path, and a CPU OpenCL device when there is one."""
    out = ["reference"]
    if any(d.kind == "cpu" for d in clsw.devices()):
        out.append("cpu")
    return out


@pytest.fixture(scope="module")
def engine():
    """An engine on the native path (test files may define their own)."""
    with clsw.Engine("reference") as e:
        yield e
