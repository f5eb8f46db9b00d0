"""The ctypes declarations cannot drift from include/clsw.h: a C program compiled
against the header prints every struct's size and field offsets and every constant's
value, and the header's function declarations are listed; all must match the bindings."""

import ctypes
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import clsw

HEADER = Path(__file__).resolve().parents[3] / "include" / "clsw.h"


def _code(text):
    """The header without comments."""
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def parse_header():
    code = _code(HEADER.read_text())
    structs = {}
    for name, body in re.findall(r"typedef struct (clsw_\w+) \{(.*?)\} \1;", code, flags=re.S):
        structs[name] = re.findall(r"(\w+)(?:\[\w+\])?;", body)
    constants = re.findall(r"^#define (CLSW_\w+) [^\n]+$", code, flags=re.M)
    for body in re.findall(r"typedef enum \w+ \{(.*?)\}", code, flags=re.S):
        constants += re.findall(r"(CLSW_\w+)\s*=", body)
    functions = set(re.findall(r"\b(clsw_\w+)\(", code))
    return structs, sorted(set(constants)), functions


def c_layout(tmp_path, structs, constants):
    cc = shutil.which("cc")
    if cc is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have a C compiler for the drift test")
        pytest.skip("no C compiler")
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "clsw.h"', "int main(void) {"]
    for name, fields in structs.items():
        lines.append(f'    printf("struct {name} %zu\\n", sizeof({name}));')
        for f in fields:
            lines.append(f'    printf("field {name}.{f} %zu\\n", offsetof({name}, {f}));')
    for c in constants:
        lines.append(f'    printf("const {c} %lld\\n", (long long)({c}));')
    lines += ["    return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", f"-I{HEADER.parent}", str(src), "-o", str(exe)], check=True)
    out = {}
    for line in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines():
        kind, name, value = line.split()
        out[(kind, name)] = int(value)
    return out


def test_structs_constants_and_functions_match_the_header(tmp_path):
    structs, constants, functions = parse_header()
    layout = c_layout(tmp_path, structs, constants)
    problems = []

    assert set(structs) == set(clsw._C_STRUCTS), "structs in clsw.h vs clsw._C_STRUCTS"
    for name, fields in structs.items():
        py = clsw._C_STRUCTS[name]
        if ctypes.sizeof(py) != layout[("struct", name)]:
            problems.append(f"sizeof({name}) is {layout[('struct', name)]} in C, {ctypes.sizeof(py)} in Python")
        py_fields = [f[0] for f in py._fields_]
        c_fields = [clsw._C_FIELD_NAMES.get(f, f) for f in fields]
        if py_fields != c_fields:
            problems.append(f"{name} fields: C {c_fields}, Python {py_fields}")
            continue
        for f, pf in zip(fields, c_fields):
            if getattr(py, pf).offset != layout[("field", f"{name}.{f}")]:
                problems.append(f"offsetof({name}, {f}) differs")

    table = clsw._c_constants()
    for c in constants:
        if c not in table:
            problems.append(f"constant {c} has no Python value")
        elif table[c] != layout[("const", c)]:
            problems.append(f"{c} is {layout[('const', c)]} in C, {table[c]} in Python")
    problems += [f"Python has a value for {c}, which clsw.h lacks" for c in set(table) - set(constants)]

    problems += [f"{f} has no ctypes signature" for f in sorted(functions - clsw._DECLARED)]
    problems += [f"{f} is declared in Python but not in clsw.h" for f in sorted(clsw._DECLARED - functions)]
    assert not problems, "\n".join(problems)
