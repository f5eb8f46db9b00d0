"""Makes the package importable from the source tree (bindings/python/clsw), and holds
what the test files share: the devices to run on and a native-path engine."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pytest  # noqa: E402

import clsw  # noqa: E402


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
