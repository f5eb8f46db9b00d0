"""clsw for Python: GPU sequence comparison through clsw's C ABI (ctypes, no compiler).

    import clsw
    engine = clsw.Engine()                                  # CLSW_DEVICE, else "auto"
    scoring = clsw.Scoring("BLOSUM62", 11, 1)                # a built-in matrix, or a matrix file
    db = clsw.Database("db.fasta")                          # FASTA or prepared (clsw makedb)
    searcher = clsw.Searcher(engine, scoring, db, max_hits=10)   # the database goes to the devices once
    result = searcher.search("MKTAYIAKQRQISFVKSHFSRQ", query_id="q1")
    for hit in result.hits:
        print(hit.tabular)
    scores = searcher.scores("MKTAYIAKQRQISFVKSHFSRQ")    # numpy int32, one per subject
    aln = clsw.align(scoring, "HEAGAWGHEE", "PAWHEAE")
    dist = clsw.distance_matrix(engine, fasta="aln.fa")      # numpy uint32, n x n SNP distances
    aln3 = clsw.sw3_align(engine, scoring, "HEAGAWGHEE", "PAWHEAE", "HEAWHEAE")

The shared library is found through the ``CLSW_LIB`` environment variable (a path to
libclsw.so), else next to this package (``clsw/libclsw.so``, where ``pip install
bindings/python`` puts the library it builds), else where the system loader finds
``libclsw`` (``ctypes.util.find_library``; e.g. after ``scripts/install.sh /usr/local``).

Every failure raises :class:`ClswError` with the C status and clsw's message. Engines,
scorings, databases and searchers may be shared between threads (the C calls release
the GIL). Coordinates are 1-based and inclusive, as BLAST prints them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from dataclasses import dataclass
from dataclasses import fields as _fields_of
from functools import partial as _partial
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    ClassVar,
    Dict,
    Iterable,
    Iterator,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Type,
    TypedDict,
    TypeVar,
    Union,
    overload,
)

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:  # typing has Unpack from Python 3.11; type checkers know typing_extensions
    from _typeshed import DataclassInstance
    from typing_extensions import Unpack

__all__ = [
    "ClswError",
    "Engine",
    "Scoring",
    "Database",
    "Searcher",
    "Hit",
    "SearchResult",
    "Alignment",
    "DeviceInfo",
    "align",
    "align_score",
    "PsseResult",
    "psse",
    "psse_many",
    "Distances",
    "distances",
    "distance_matrix",
    "Sw3Score",
    "Sw3Alignment",
    "Sw3Row",
    "sw3_score",
    "sw3_align",
    "sw3_batch",
    "sax",
    "devices",
    "version",
    "library_path",
]

# clsw_status values (include/clsw.h)
OK = 0
STATUS_NAMES: Dict[int, str] = {
    0: "CLSW_OK",
    1: "CLSW_ERR_NULL",
    2: "CLSW_ERR_INVALID_ARGUMENT",
    3: "CLSW_ERR_IO",
    4: "CLSW_ERR_PARSE",
    5: "CLSW_ERR_OPENCL",
    6: "CLSW_ERR_BUILD",
    7: "CLSW_ERR_DEVICE",
    8: "CLSW_ERR_BUFFER_TOO_SMALL",
    9: "CLSW_ERR_INTERNAL",
    10: "CLSW_ERR_OUT_OF_MEMORY",
    11: "CLSW_ERR_RANK",
    12: "CLSW_ERR_NO_MPI",
}
ERR_BUFFER_TOO_SMALL = 8
ERR_INTERNAL = 9

ALPHABETS: Dict[str, int] = {"protein": 0, "dna": 1, "auto": 2}
ALPHABET_NAMES: Dict[int, str] = {0: "protein", 1: "dna"}
VARIANTS: Dict[str, int] = {"fast": 0, "inter": 1, "intra": 2, "plain": 3, "team": 4, "auto": 5}
STRANDS: Dict[str, int] = {"both": 0, "plus": 1, "minus": 2}
CIGARS: Dict[Optional[str], int] = {None: 0, "extended": 1, "M": 2}
STATS: Dict[str, int] = {"auto": 0, "fit": 1, "published": 2, "none": 3, "regression": 4, "shuffle": 5}
EVALUE_SOURCES: Dict[int, str] = {
    0: "fitted",
    1: "published",
    2: "none",
    3: "regression",
    4: "shuffled",
    5: "normal",
}
MODES: Dict[str, int] = {"local": 0, "global": 1, "glocal": 2}
HIT_STRANDS: Dict[int, str] = {0: "plus", 1: "minus"}
DEVICE_KINDS: Dict[int, str] = {0: "gpu", 1: "cpu", 2: "other"}
GAPS_DEFAULT = -1

# What the functions below take. Residue letters: str (encoded as UTF-8), bytes or bytearray.
_Residues = Union[str, bytes, bytearray]
# A file path, as ``open`` takes one.
_PathArg = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
# A three-sequence input: residue letters, or alphabet codes (``codes=True``) as a numpy
# array (e.g. a SAX word from :func:`sax`) or a sequence of ints.
_Sw3Input = Union[str, bytes, bytearray, "NDArray[np.integer[Any]]", Sequence[int]]
# A three-sequence end cell or coordinates: one 1-based position per sequence.
_Triple = Tuple[int, int, int]


class ClswError(Exception):
    """A failed clsw call: ``status`` (the C code), ``status_name`` and ``message``."""

    status: int
    status_name: str
    message: str

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.status_name = STATUS_NAMES.get(status, "unknown clsw_status")
        self.message = message
        super().__init__(f"{self.status_name}: {message}")


# --- the library ------------------------------------------------------------------------


def _find_library() -> str:
    env = os.environ.get("CLSW_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libclsw.so", "libclsw.so.0", "libclsw.dylib", "clsw.dll"):
        path = os.path.join(here, name)
        if os.path.exists(path):
            return path
    found = ctypes.util.find_library("clsw")
    if found:
        return found
    raise OSError(
        "libclsw not found: install the package with `pip install bindings/python` (from "
        "clsw's source tree; it builds the library with cargo and ships it in the package), "
        "or set CLSW_LIB to the path of libclsw.so, or install the library where the system "
        "loader finds it (scripts/install.sh)"
    )


# Not `_path`: that name is the path-argument helper below.
_library = _find_library()
_lib = ctypes.CDLL(_library)


def library_path() -> str:
    """The path of the shared library in use."""
    return _library


class _Opaque(ctypes.Structure):
    pass


_P = ctypes.POINTER(_Opaque)
_PP = ctypes.POINTER(_P)
if TYPE_CHECKING:
    # A C handle (a pointer to an opaque clsw struct), as the annotations below name it.
    _Ptr = ctypes._Pointer[_Opaque]
    # One of a ctypes struct's ``_fields_``: a name and a C number type or an array of them.
    _Field = Tuple[str, Union[Type[ctypes._SimpleCData[Any]], Type[ctypes.Array[Any]]]]


class _H:
    """Argument type of a handle parameter: a wrapper object (its pointer; NULL once
    closed), a raw handle pointer, or None (NULL)."""

    @classmethod
    def from_param(cls, obj: object) -> Optional[_Ptr]:
        if obj is None or isinstance(obj, _P):
            return obj
        if isinstance(obj, _Handle):
            return obj._ptr
        raise TypeError(f"expected a clsw handle, got {type(obj).__name__}")

_size = ctypes.c_size_t
_u8p = ctypes.POINTER(ctypes.c_uint8)
_CTYPE: Dict[str, Type[ctypes._SimpleCData[Any]]] = {
    "size": _size,
    "i32": ctypes.c_int32,
    "u32": ctypes.c_uint32,
    "u64": ctypes.c_uint64,
    "f64": ctypes.c_double,
    "int": ctypes.c_int,
    "str": ctypes.c_char_p,
    "char": ctypes.c_char,
}


def _layout(spec: str) -> List[_Field]:
    """The ``_fields_`` of a ctypes mirror of a clsw.h struct, from ``"name:type ..."``
    in declaration order (``type*N`` for an array of N); one table of C types serves
    every struct, and tests/test_drift.py checks each layout against the header."""
    fields: List[_Field] = []
    for item in spec.split():
        name, kind = item.split(":")
        kind, _, n = kind.partition("*")
        fields.append((name, _CTYPE[kind] * int(n) if n else _CTYPE[kind]))
    return fields


class _DeviceInfo(ctypes.Structure):
    _fields_ = _layout(
        "size:size index:size kind:u32 compute_units:u32 clock_mhz:u32 "
        "global_mem_bytes:u64 max_alloc_bytes:u64 local_mem_bytes:u64 "
        "max_work_group_size:size name:char*256 platform:char*128 "
        "opencl_c_version:char*64 driver_version:char*64"
    )


class _SearchOptions(ctypes.Structure):
    _fields_ = _layout(
        "size:size max_hits:size evalue:f64 batch_residues:u64 variant:u32 "
        "strands:u32 alignments:i32 cigar:u32 stats:u32 db_size:u64 max_hsps:size"
    )


class _Hit(ctypes.Structure):
    _fields_ = _layout(
        "size:size subject:size subject_id:str subject_length:size score:i32 "
        "strand:u32 evalue:f64 bit_score:f64 has_alignment:i32 query_start:size "
        "query_end:size subject_start:size subject_end:size length:size "
        "identities:size similarities:size mismatches:size gap_opens:size "
        "gap_columns:size percent_identity:f64 cigar:str hsp:size"
    )


class _SearchInfo(ctypes.Structure):
    _fields_ = _layout(
        "size:size hits:size query_length:size db_sequences:size "
        "strands_searched:size recomputed:size cells:u64 evalue_source:u32 "
        "lambda_:f64 k:f64 kernel_seconds:f64 scan_seconds:f64 wall_seconds:f64"
    )


class _AlignmentInfo(ctypes.Structure):
    _fields_ = _layout(
        "size:size score:i32 query_start:size query_end:size subject_start:size "
        "subject_end:size length:size identities:size similarities:size "
        "mismatches:size gap_opens:size gap_columns:size percent_identity:f64 "
        "cigar:str cigar_m:str query_row:str midline:str subject_row:str"
    )


_DECLARED: Set[str] = set()
# A ctypes foreign function: called with the C arguments, returns the C result.
_CFunction = Callable[..., Any]


def _declare(name: str, args: List[Any], restype: Optional[Type[ctypes._CData]] = ctypes.c_int) -> _CFunction:
    """Declares a C function's signature (tests/test_drift.py checks that every function
    in clsw.h is declared, and nothing else)."""
    _DECLARED.add(name)
    f: ctypes._NamedFuncPointer = getattr(_lib, name)
    f.argtypes = args
    f.restype = restype
    return f


_c = ctypes.c_char_p


_S = TypeVar("_S", bound=ctypes.Structure)


def _options(
    struct: Type[_S], init: _CFunction, table: Optional[Mapping[str, Mapping[Any, int]]] = None, **fields: Any
) -> _S:
    """An options struct filled by the library's ``clsw_*_options_init`` (the defaults
    live there, not here), then the fields the caller gave (None keeps the default).
    ``table`` maps a field to a dict that translates the caller's value."""
    o = struct()
    _check(init(ctypes.byref(o), ctypes.sizeof(o)))
    for name, value in fields.items():
        if value is None:
            continue
        if table and name in table:
            try:
                value = table[name][value]
            except KeyError:
                raise ValueError(f"unknown {name} {value!r}; use one of {sorted(map(str, table[name]))}") from None
        setattr(o, name, value)
    return o


_i32 = ctypes.c_int32
_u32 = ctypes.c_uint32
_declare("clsw_version", [], _c)
_declare("clsw_status_str", [ctypes.c_int], _c)
_declare("clsw_last_error", [], _c)
_declare("clsw_engine_new", [_c, _PP])
_declare("clsw_engine_free", [_P], None)
_declare("clsw_engine_device_count", [_H, ctypes.POINTER(_size)])
_declare("clsw_engine_describe", [_H, ctypes.c_char_p, _size, ctypes.POINTER(_size)])
_declare("clsw_device_count", [ctypes.POINTER(_size)])
_declare("clsw_device_get", [_size, ctypes.POINTER(_DeviceInfo)])
_declare("clsw_scoring_new", [_c, _i32, _i32, _PP])
_declare("clsw_scoring_new_builtin", [_c, _i32, _i32, _PP])
_declare("clsw_scoring_new_file", [_c, _i32, _i32, _PP])
_declare("clsw_scoring_new_match_mismatch", [_u32, _i32, _i32, _i32, _i32, _PP])
_declare("clsw_scoring_new_matrix", [_u32, _u8p, _size, ctypes.POINTER(_i32), _i32, _i32, _PP])
_declare("clsw_scoring_free", [_P], None)
_declare("clsw_scoring_alphabet", [_H, ctypes.POINTER(_u32)])
_declare("clsw_scoring_gaps", [_H, ctypes.POINTER(_i32), ctypes.POINTER(_i32)])
_declare("clsw_scoring_name", [_H, ctypes.c_char_p, _size, ctypes.POINTER(_size)])
_declare("clsw_scoring_with_mode", [_H, _u32, _PP])
_declare("clsw_scoring_with_pssm", [_H, _u8p, _size, _u8p, _size, ctypes.POINTER(_i32), _PP])
_declare("clsw_scoring_mode", [_H, ctypes.POINTER(_u32)])
_declare("clsw_db_new_fasta", [_c, _u32, _PP])
_declare("clsw_db_new_prepared", [_c, _PP])
_declare("clsw_db_new_file", [_c, _u32, _H, _PP])
_declare("clsw_db_notes", [_H, ctypes.c_char_p, _size, ctypes.POINTER(_size)])
_declare(
    "clsw_db_new_sequences",
    [_u32, _size, ctypes.POINTER(_u8p), ctypes.POINTER(_size), ctypes.POINTER(ctypes.c_char_p), _PP],
)
_declare(
    "clsw_db_new_codes",
    [_u32, _u8p, _size, _size, ctypes.POINTER(_u8p), ctypes.POINTER(_size), ctypes.POINTER(ctypes.c_char_p), _PP],
)
_declare("clsw_alphabet_letters", [_u32, ctypes.c_char_p, _size, ctypes.POINTER(_size)])
_declare("clsw_db_write_prepared", [_H, _c])
_declare("clsw_db_free", [_P], None)
_declare("clsw_db_count", [_H, ctypes.POINTER(_size)])
_declare("clsw_db_total_residues", [_H, ctypes.POINTER(ctypes.c_uint64)])
_declare("clsw_db_alphabet", [_H, ctypes.POINTER(_u32)])
_declare("clsw_db_length", [_H, _size, ctypes.POINTER(_size)])
_declare("clsw_db_id", [_H, _size, ctypes.c_char_p, _size, ctypes.POINTER(_size)])
_declare("clsw_db_sequence", [_H, _size, ctypes.c_char_p, _size, ctypes.POINTER(_size)])
_declare("clsw_search_options_init", [ctypes.POINTER(_SearchOptions), _size])
_declare("clsw_searcher_new", [_H, _H, _H, ctypes.POINTER(_SearchOptions), _PP])
# For MPI programs (mpi4py: comm.py2f() gives the Fortran handle); no Python wrapper yet.
_declare("clsw_searcher_new_mpi", [_H, _H, _H, ctypes.POINTER(_SearchOptions), ctypes.c_int32, _PP])
_declare("clsw_searcher_free", [_P], None)
_declare("clsw_searcher_search", [_H, _c, _u8p, _size, _PP])
_declare(
    "clsw_searcher_search_many",
    [_H, _size, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(_u8p), ctypes.POINTER(_size), _PP],
)
_declare("clsw_searcher_scores", [_H, _u8p, _size, ctypes.POINTER(_i32), _size])
_declare("clsw_hits_free", [_P], None)
_declare("clsw_hits_count", [_H, ctypes.POINTER(_size)])
_declare("clsw_hits_get", [_H, _size, ctypes.POINTER(_Hit)])
_declare("clsw_hits_info", [_H, ctypes.POINTER(_SearchInfo)])
_declare("clsw_hits_tabular", [_H, _size, _i32, ctypes.c_char_p, _size, ctypes.POINTER(_size)])
_declare("clsw_align", [_H, _u8p, _size, _u8p, _size, _PP])
_declare("clsw_align_score", [_H, _u8p, _size, _u8p, _size, ctypes.POINTER(_i32)])
_declare("clsw_alignment_free", [_P], None)
_declare("clsw_alignment_get", [_H, ctypes.POINTER(_AlignmentInfo)])


def _flag(value: Optional[bool]) -> Optional[int]:
    """A C boolean option: None (the library's default) stays None, else 0 or 1."""
    return None if value is None else int(bool(value))


def _check(status: int) -> None:
    if status != OK:
        raise ClswError(status, _lib.clsw_last_error().decode("utf-8", "replace"))



def _got(struct: Type[_S], getter: _CFunction, *args: Any) -> _S:
    """A versioned struct (``size`` set to this version's) filled by ``getter(*args, &out)``."""
    out = struct()
    out.size = ctypes.sizeof(out)
    _check(getter(*args, ctypes.byref(out)))
    return out


def _items(struct: Type[_S], count: _CFunction, get: _CFunction, handle: _Ptr) -> Iterator[Tuple[int, _S]]:
    """``(index, struct)`` for each item of a results handle: ``count(handle, &n)`` of
    them, each read with ``get(handle, index, &out)``."""
    n = _size(0)
    _check(count(handle, ctypes.byref(n)))
    for i in range(n.value):
        yield i, _got(struct, get, handle, i)


_D = TypeVar("_D", bound="DataclassInstance")


def _from_struct(cls: Type[_D], s: ctypes.Structure, **converted: Any) -> _D:
    """A public dataclass from its ctypes mirror: each field copied from the struct's
    field of the same name, except those given in ``converted`` (decoded text, names
    for codes)."""
    values = {name: getattr(s, name) for name in (f.name for f in _fields_of(cls)) if name not in converted}
    return cls(**values, **converted)


def _text(getter: Callable[[ctypes.Array[ctypes.c_char], int, Any], int]) -> str:
    """Calls a (buf, len, needed) getter, growing the buffer once."""
    needed = _size(0)
    buf = ctypes.create_string_buffer(64)
    status = getter(buf, len(buf), ctypes.byref(needed))
    if status == ERR_BUFFER_TOO_SMALL:
        buf = ctypes.create_string_buffer(needed.value)
        status = getter(buf, len(buf), ctypes.byref(needed))
    _check(status)
    return buf.value.decode("utf-8", "replace")


def _bytes(seq: _Residues) -> bytes:
    """Residue letters as bytes: str is encoded as UTF-8 (clsw names any byte that is not
    a residue letter, with its position)."""
    if isinstance(seq, str):
        return seq.encode("utf-8")
    return bytes(seq)


def _buffer(data: bytes) -> ctypes._Pointer[ctypes.c_uint8]:
    """A pointer to `data` for a `const uint8_t *` argument (kept alive by the caller)."""
    return ctypes.cast(ctypes.c_char_p(data), _u8p)


def _path(path: _PathArg) -> bytes:
    return os.fsencode(path)


def _alphabet(name: str) -> int:
    try:
        return ALPHABETS[name]
    except KeyError:
        raise ValueError(f"unknown alphabet {name!r}; use one of {sorted(ALPHABETS)}") from None


_HandleT = TypeVar("_HandleT", bound="_Handle")


class _Handle:
    """Owns one C handle; `close()` (or garbage collection) frees it. A closed handle
    passes NULL to the C API, which answers CLSW_ERR_NULL."""

    _free: ClassVar[Optional[_CFunction]] = None
    _ptr: Optional[_Ptr]

    def __init__(self, ptr: Optional[_Ptr]) -> None:
        self._ptr = ptr

    @classmethod
    def _wrap(cls: Type[_HandleT], ptr: _Ptr) -> _HandleT:
        """An object of this class owning ``ptr``, made without the class's own
        constructor (whose arguments are the user's)."""
        obj = cls.__new__(cls)
        _Handle.__init__(obj, ptr)
        return obj

    def close(self) -> None:
        """Frees the C handle now (once; later calls do nothing)."""
        ptr, self._ptr = self._ptr, None
        free = type(self)._free
        if ptr and free is not None:
            free(ptr)

    def __enter__(self: _HandleT) -> _HandleT:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


def version() -> str:
    """The library's version, "MAJOR.MINOR.PATCH"."""
    text: bytes = _lib.clsw_version()
    return text.decode()


@dataclass
class DeviceInfo:
    """One OpenCL device: ``kind`` "gpu", "cpu" or "other"; memory sizes in bytes."""

    index: int
    kind: str
    name: str
    platform: str
    opencl_c_version: str
    driver_version: str
    global_mem_bytes: int
    max_alloc_bytes: int
    local_mem_bytes: int
    compute_units: int
    clock_mhz: int
    max_work_group_size: int


def devices() -> List[DeviceInfo]:
    """Every OpenCL device on this machine (empty without an OpenCL runtime)."""
    n = _size(0)
    _check(_lib.clsw_device_count(ctypes.byref(n)))
    out = []
    for i in range(n.value):
        d = _got(_DeviceInfo, _lib.clsw_device_get, i)
        out.append(
            DeviceInfo(
                d.index,
                DEVICE_KINDS.get(d.kind, "other"),
                d.name.decode("utf-8", "replace"),
                d.platform.decode("utf-8", "replace"),
                d.opencl_c_version.decode("utf-8", "replace"),
                d.driver_version.decode("utf-8", "replace"),
                d.global_mem_bytes,
                d.max_alloc_bytes,
                d.local_mem_bytes,
                d.compute_units,
                d.clock_mhz,
                d.max_work_group_size,
            )
        )
    return out


class Engine(_Handle):
    """The devices work runs on. ``device``: "auto", "gpu", "cpu", "reference", "all", an
    index, a name substring or a comma-separated list; None means CLSW_DEVICE, else "auto".
    CLSW_PORTABLE=1 in the environment builds the portable kernels (no vendor code)."""

    _free = _lib.clsw_engine_free

    def __init__(self, device: Optional[str] = None) -> None:
        p = _P()
        arg = None if device is None else device.encode("utf-8")
        _check(_lib.clsw_engine_new(arg, ctypes.byref(p)))
        super().__init__(p)

    def describe(self) -> str:
        """One line per device in use."""
        return _text(lambda b, n, need: _lib.clsw_engine_describe(self, b, n, need))

    @property
    def device_count(self) -> int:
        """How many devices the engine uses."""
        n = _size(0)
        _check(_lib.clsw_engine_device_count(self, ctypes.byref(n)))
        return n.value

    def __repr__(self) -> str:
        if not self._ptr:
            return "Engine(<closed>)"
        return f"<clsw.Engine: {'; '.join(self.describe().splitlines())}>"


class Scoring(_Handle):
    """A substitution matrix and gap penalties (BLAST's convention: a gap of length L costs
    gap_open + L * gap_extend; None for both gives the matrix's customary values). A
    negative cost is read as its size, as ssearch36 writes them and as ``clsw`` reads
    them (the library's rule: -11, -1 is 11, 1); -1 for both is the C ABI's
    ``CLSW_GAPS_DEFAULT``, the customary values too."""

    _free = _lib.clsw_scoring_free

    def __init__(
        self,
        matrix: _PathArg,
        gap_open: Optional[int] = None,
        gap_extend: Optional[int] = None,
        mode: str = "local",
    ) -> None:
        """``Scoring("BLOSUM62", 11, 1)``: a matrix as ``clsw --matrix`` names one (an
        NCBI-format file where ``matrix`` is one, else a built-in name); ``mode`` as
        :meth:`with_mode`."""
        p = _P()
        _check(_lib.clsw_scoring_new(_path(matrix), *self._gaps(gap_open, gap_extend), ctypes.byref(p)))
        _Handle.__init__(self, p)
        if mode != "local":
            moded = self.with_mode(mode)
            self.close()
            self._ptr, moded._ptr = moded._ptr, None

    def __repr__(self) -> str:
        if not self._ptr:
            return "Scoring(<closed>)"
        mode = "" if self.mode == "local" else f", mode={self.mode!r}"
        return f"Scoring({self.name!r}, {self.gaps[0]}, {self.gaps[1]}{mode})"

    def with_mode(self, mode: str) -> "Scoring":
        """A copy in alignment mode ``mode``: "local" (Smith-Waterman, ssearch36),
        "global" (both sequences whole, ggsearch36) or "glocal" (the query whole,
        anywhere in the subject, glsearch36). Global and glocal searches report the
        subjects of the query's length window, with ggsearch36's normal statistics."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; modes are {', '.join(MODES)}")
        p = _P()
        _check(_lib.clsw_scoring_with_mode(self, MODES[mode], ctypes.byref(p)))
        return Scoring._wrap(p)

    def with_pssm(self, query: str, columns: str, scores: Sequence[Sequence[int]]) -> "Scoring":
        """A copy that scores ``query`` with a profile (PSSM): ``scores[i][k]`` is
        position ``i``'s score against letter ``columns[k]``; letters not in ``columns``
        score as this scoring's matrix scores them against the position's residue.
        Searches with it take ``query`` only."""
        rows = [list(r) for r in scores]
        if len(rows) != len(query) or any(len(r) != len(columns) for r in rows):
            raise ValueError(f"scores must be {len(query)} rows of {len(columns)} values")
        flat = (_i32 * (len(query) * len(columns)))(*[int(v) for r in rows for v in r])
        q, c = query.encode("ascii"), columns.encode("ascii")
        p = _P()
        _check(
            _lib.clsw_scoring_with_pssm(
                self, _buffer(q), len(q), _buffer(c), len(c), ctypes.cast(flat, ctypes.POINTER(_i32)), ctypes.byref(p)
            )
        )
        return Scoring._wrap(p)

    @property
    def mode(self) -> str:
        """The alignment mode: "local", "global" or "glocal"."""
        m = ctypes.c_uint32()
        _check(_lib.clsw_scoring_mode(self, ctypes.byref(m)))
        return {v: k for k, v in MODES.items()}[m.value]

    @staticmethod
    def _gaps(gap_open: Optional[int], gap_extend: Optional[int]) -> Tuple[int, int]:
        if (gap_open is None) != (gap_extend is None):
            raise ValueError("give both gap_open and gap_extend, or neither")
        if gap_open is None or gap_extend is None:
            return GAPS_DEFAULT, GAPS_DEFAULT
        return int(gap_open), int(gap_extend)

    @classmethod
    def builtin(cls, matrix: str, gap_open: Optional[int] = None, gap_extend: Optional[int] = None) -> "Scoring":
        """BLOSUM45/50/62/80/90, PAM30/70/250 or EDNAFULL."""
        p = _P()
        _check(_lib.clsw_scoring_new_builtin(matrix.encode("utf-8"), *cls._gaps(gap_open, gap_extend), ctypes.byref(p)))
        return cls._wrap(p)

    @classmethod
    def file(cls, path: _PathArg, gap_open: Optional[int] = None, gap_extend: Optional[int] = None) -> "Scoring":
        """An NCBI-format matrix file."""
        p = _P()
        _check(_lib.clsw_scoring_new_file(_path(path), *cls._gaps(gap_open, gap_extend), ctypes.byref(p)))
        return cls._wrap(p)

    @classmethod
    def match_mismatch(
        cls, alphabet: str, match: int, mismatch: int, gap_open: Optional[int] = None, gap_extend: Optional[int] = None
    ) -> "Scoring":
        """``match`` for equal residues, ``mismatch`` (negative) for others; alphabet
        "protein" or "dna"."""
        p = _P()
        _check(
            _lib.clsw_scoring_new_match_mismatch(
                _alphabet(alphabet), match, mismatch, *cls._gaps(gap_open, gap_extend), ctypes.byref(p)
            )
        )
        return cls._wrap(p)

    @property
    def alphabet(self) -> str:
        """The alphabet: "protein" or "dna"."""
        a = ctypes.c_uint32()
        _check(_lib.clsw_scoring_alphabet(self, ctypes.byref(a)))
        return ALPHABET_NAMES[a.value]

    @property
    def gaps(self) -> Tuple[int, int]:
        """(gap_open, gap_extend)."""
        o, e = ctypes.c_int32(), ctypes.c_int32()
        _check(_lib.clsw_scoring_gaps(self, ctypes.byref(o), ctypes.byref(e)))
        return o.value, e.value

    @property
    def name(self) -> str:
        """The matrix's name (e.g. "BLOSUM62", or "+2/-3" for match/mismatch)."""
        return _text(lambda b, n, need: _lib.clsw_scoring_name(self, b, n, need))


class Database(_Handle):
    """Subject sequences in database order (0-based indices)."""

    _free = _lib.clsw_db_free

    def __init__(self, path: _PathArg, alphabet: str = "auto") -> None:
        """``Database("db.fasta")``: a database file of either kind, as :meth:`open`."""
        made = Database.open(path, alphabet)
        _Handle.__init__(self, made._ptr)
        made._ptr = None  # owned by self now

    def __repr__(self) -> str:
        if not self._ptr:
            return "Database(<closed>)"
        return f"<clsw.Database: {len(self)} {self.alphabet} sequences, {self.total_residues} residues>"

    @classmethod
    def fasta(cls, path: _PathArg, alphabet: str = "auto") -> "Database":
        """A FASTA file, plain or gzip; alphabet "protein", "dna" or "auto"."""
        p = _P()
        _check(_lib.clsw_db_new_fasta(_path(path), _alphabet(alphabet), ctypes.byref(p)))
        return cls._wrap(p)

    @classmethod
    def open(cls, path: _PathArg, alphabet: str = "auto", scoring: Optional["Scoring"] = None) -> "Database":
        """A database file of either kind (FASTA or prepared), its alphabet chosen as
        ``clsw scan`` chooses it: ``alphabet`` unless "auto", else a prepared database's
        own, else ``scoring``'s (the matrix a user named; None for none), else guessed
        from the residues. What that noted is in :attr:`notes`."""
        p = _P()
        _check(_lib.clsw_db_new_file(_path(path), _alphabet(alphabet), scoring, ctypes.byref(p)))
        return cls._wrap(p)

    @classmethod
    def prepared(cls, path: _PathArg) -> "Database":
        """A prepared database (``clsw makedb``, or :meth:`write_prepared`)."""
        p = _P()
        _check(_lib.clsw_db_new_prepared(_path(path), ctypes.byref(p)))
        return cls._wrap(p)

    @classmethod
    def from_sequences(
        cls,
        sequences: Sequence[_Residues],
        names: Optional[Sequence[Optional[str]]] = None,
        alphabet: str = "protein",
    ) -> "Database":
        """Sequences (residue letters) in memory, with optional names ("id description";
        None for an unnamed one)."""
        data = [_bytes(s) for s in sequences]
        n = len(data)
        if names is not None and len(names) != n:
            raise ValueError(f"{len(names)} names for {n} sequences")
        ptrs = (_u8p * n)(*[_buffer(d) for d in data])
        lens = (_size * n)(*[len(d) for d in data])
        cnames: Optional[ctypes.Array[ctypes.c_char_p]] = None
        if names is not None:
            encoded = [None if x is None else x.encode("utf-8") for x in names]
            cnames = (ctypes.c_char_p * n)(*encoded)
        p = _P()
        _check(_lib.clsw_db_new_sequences(_alphabet(alphabet), n, ptrs, lens, cnames, ctypes.byref(p)))
        return cls._wrap(p)

    def write_prepared(self, path: _PathArg) -> None:
        """Writes the database in the prepared format (:meth:`prepared` reads it)."""
        _check(_lib.clsw_db_write_prepared(self, _path(path)))

    def __len__(self) -> int:
        n = _size(0)
        _check(_lib.clsw_db_count(self, ctypes.byref(n)))
        return n.value

    @property
    def total_residues(self) -> int:
        """Residues in all sequences."""
        n = ctypes.c_uint64(0)
        _check(_lib.clsw_db_total_residues(self, ctypes.byref(n)))
        return n.value

    @property
    def alphabet(self) -> str:
        """The alphabet: "protein" or "dna"."""
        a = ctypes.c_uint32()
        _check(_lib.clsw_db_alphabet(self, ctypes.byref(a)))
        return ALPHABET_NAMES[a.value]

    @property
    def notes(self) -> List[str]:
        """What opening the database noted (:meth:`open`, :meth:`fasta`), one line each,
        as ``clsw`` prints them after ``clsw: ``; empty when there is nothing to note."""
        text = _text(lambda b, n, need: _lib.clsw_db_notes(self, b, n, need))
        return text.split("\n") if text else []

    def length(self, k: int) -> int:
        """Sequence ``k``'s length in residues."""
        n = _size(0)
        _check(_lib.clsw_db_length(self, k, ctypes.byref(n)))
        return n.value

    def id(self, k: int) -> str:
        """Sequence ``k``'s identifier (its FASTA header up to the first space)."""
        return _text(lambda b, n, need: _lib.clsw_db_id(self, k, b, n, need))

    def sequence(self, k: int) -> str:
        """Sequence ``k``'s residue letters."""
        return _text(lambda b, n, need: _lib.clsw_db_sequence(self, k, b, n, need))


@dataclass
class Hit:
    """One hit: coordinates 1-based inclusive (BLAST's Plus/Minus convention on the minus
    strand); alignment fields are 0 when the search computed no alignments."""

    subject: int
    subject_id: str
    subject_length: int
    score: int
    strand: str
    evalue: float
    bit_score: float
    has_alignment: bool
    query_start: int
    query_end: int
    subject_start: int
    subject_end: int
    length: int
    identities: int
    similarities: int
    mismatches: int
    gap_opens: int
    gap_columns: int
    percent_identity: float
    cigar: Optional[str]
    tabular: Optional[str]
    hsp: int


@dataclass
class SearchResult:
    """One query's hits, best first, and how the search went: dynamic-programming
    ``cells`` computed, where E-values came from (``evalue_source``: "fitted",
    "published", "regression", "shuffled", "normal" (global and glocal) or "none"; ``lambda_`` and ``k`` NaN without
    statistics) and times in seconds."""

    hits: List[Hit]
    query_length: int
    db_sequences: int
    strands_searched: int
    recomputed: int
    cells: int
    evalue_source: str
    lambda_: float
    k: float
    kernel_seconds: float
    scan_seconds: float
    wall_seconds: float


def _result(hits_ptr: _Ptr) -> SearchResult:
    """The search result of a hits handle, which it frees."""
    try:
        info = _got(_SearchInfo, _lib.clsw_hits_info, hits_ptr)
        hits: List[Hit] = []
        for i in range(info.hits):
            h = _got(_Hit, _lib.clsw_hits_get, hits_ptr, i)
            tabular = None
            if h.has_alignment:
                tabular = _text(_partial(_lib.clsw_hits_tabular, hits_ptr, i, 0))
            hits.append(
                _from_struct(
                    Hit,
                    h,
                    subject_id=h.subject_id.decode("utf-8", "replace"),
                    strand=HIT_STRANDS[h.strand],
                    has_alignment=bool(h.has_alignment),
                    cigar=None if not h.cigar else h.cigar.decode(),
                    tabular=tabular,
                )
            )
        return _from_struct(
            SearchResult, info, hits=hits, evalue_source=EVALUE_SOURCES.get(info.evalue_source, "none")
        )
    finally:
        _lib.clsw_hits_free(hits_ptr)


class Searcher(_Handle):
    """A database laid out on an engine's devices once, for every query. Shareable
    between threads."""

    _free = _lib.clsw_searcher_free

    def __init__(
        self,
        engine: Engine,
        scoring: Scoring,
        db: Database,
        *,
        max_hits: Optional[int] = None,
        evalue: Optional[float] = None,
        variant: Optional[str] = None,
        strands: Optional[str] = None,
        alignments: Optional[bool] = None,
        cigar: Optional[str] = None,
        batch_residues: Optional[int] = None,
        stats: Optional[str] = None,
        db_size: Optional[int] = None,
        max_hsps: Optional[int] = None,
    ) -> None:
        """Options left at None keep the library's defaults (``clsw_search_options_init``).
        ``stats``: where E-values come from (auto, fit, published, regression, shuffle, none); ``db_size``: the
        number of database sequences they count (ssearch36 -Z); ``max_hsps``: most alignments per subject
        (its further ones follow its best in the hits, ``Hit.hsp`` 1, 2, ...)."""
        o = _options(
            _SearchOptions,
            _lib.clsw_search_options_init,
            {"variant": VARIANTS, "strands": STRANDS, "cigar": CIGARS, "stats": STATS},
            max_hits=max_hits,
            evalue=evalue,
            batch_residues=batch_residues,
            variant=variant,
            strands=strands,
            cigar=cigar,
            stats=stats,
            db_size=db_size,
            max_hsps=max_hsps,
            alignments=_flag(alignments),
        )
        p = _P()
        _check(_lib.clsw_searcher_new(engine, scoring, db, ctypes.byref(o), ctypes.byref(p)))
        super().__init__(p)
        self._db_len = len(db)

    def search(self, query: _Residues, query_id: str = "query") -> SearchResult:
        """Searches one query (residue letters)."""
        data = _bytes(query)
        p = _P()
        _check(_lib.clsw_searcher_search(self, query_id.encode("utf-8"), _buffer(data), len(data), ctypes.byref(p)))
        return _result(p)

    def search_many(
        self, queries: Sequence[_Residues], query_ids: Optional[Sequence[str]] = None
    ) -> List[SearchResult]:
        """Searches several queries in one call (the devices scan the next query while the
        CPU aligns the hits of the previous one)."""
        data = [_bytes(q) for q in queries]
        n = len(data)
        ids: Optional[ctypes.Array[ctypes.c_char_p]] = None
        if query_ids is not None:
            ids = (ctypes.c_char_p * n)(*[x.encode("utf-8") for x in query_ids])
        ptrs = (_u8p * n)(*[_buffer(d) for d in data])
        lens = (_size * n)(*[len(d) for d in data])
        outs = (_P * max(n, 1))()
        _check(_lib.clsw_searcher_search_many(self, n, ids, ptrs, lens, outs))
        return [_result(outs[i]) for i in range(n)]

    def scores(self, query: _Residues) -> NDArray[np.int32]:
        """Every subject's optimal local score, database order, as a numpy int32 array."""
        data = _bytes(query)
        out = np.zeros(self._db_len, dtype=np.int32)
        ptr = out.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
        _check(_lib.clsw_searcher_scores(self, _buffer(data), len(data), ptr, out.size))
        return out


@dataclass
class Alignment:
    """A pairwise local alignment; coordinates 1-based inclusive (all 0, strings empty,
    when nothing scores above 0)."""

    score: int
    query_start: int
    query_end: int
    subject_start: int
    subject_end: int
    length: int
    identities: int
    similarities: int
    mismatches: int
    gap_opens: int
    gap_columns: int
    percent_identity: float
    cigar: str
    cigar_m: str
    query_row: str
    midline: str
    subject_row: str


def align(scoring: Scoring, query: _Residues, subject: _Residues) -> Alignment:
    """The optimal local alignment of two sequences, with traceback."""
    q, s = _bytes(query), _bytes(subject)
    p = _P()
    _check(_lib.clsw_align(scoring, _buffer(q), len(q), _buffer(s), len(s), ctypes.byref(p)))
    try:
        i = _got(_AlignmentInfo, _lib.clsw_alignment_get, p)
        text = ("cigar", "cigar_m", "query_row", "midline", "subject_row")
        return _from_struct(Alignment, i, **{name: getattr(i, name).decode() for name in text})
    finally:
        _lib.clsw_alignment_free(p)


def align_score(scoring: Scoring, query: _Residues, subject: _Residues) -> int:
    """The optimal local score alone (no traceback)."""
    q, s = _bytes(query), _bytes(subject)
    out = ctypes.c_int32()
    _check(_lib.clsw_align_score(scoring, _buffer(q), len(q), _buffer(s), len(s), ctypes.byref(out)))
    return out.value


# --- pairwise statistical significance (src/capi/psse.rs) ---------------------------------


class _PsseOptions(ctypes.Structure):
    _fields_ = _layout(
        "size:size shuffles:size window:size seed:u64 censor_below:f64 variant:u32 "
        "keep_scores:i32"
    )


class _PsseResult(ctypes.Structure):
    _fields_ = _layout(
        "size:size status:int query:size subject:size query_length:size "
        "subject_length:size score:i32 mu:f64 lambda_:f64 k:f64 p_value:f64 "
        "e_value:f64 shuffles:size censored:size cutoff:f64 recomputed:size error:str"
    )


PSSE_VARIANTS = {"fast": 0, "inter": 1, "team": 4}
_declare("clsw_psse_options_init", [ctypes.POINTER(_PsseOptions), _size])
_declare("clsw_psse", [_H, _H, _u8p, _size, _u8p, _size, ctypes.POINTER(_PsseOptions), ctypes.POINTER(_PsseResult)])
_declare(
    "clsw_psse_many",
    [
        _H,
        _H,
        _size,
        ctypes.POINTER(_u8p),
        ctypes.POINTER(_size),
        _size,
        ctypes.POINTER(_u8p),
        ctypes.POINTER(_size),
        ctypes.POINTER(_PsseOptions),
        _PP,
    ],
)
_declare("clsw_psse_results_free", [_P], None)
_declare("clsw_psse_results_count", [_H, ctypes.POINTER(_size)])
_declare("clsw_psse_results_get", [_H, _size, ctypes.POINTER(_PsseResult)])
_declare("clsw_psse_results_scores", [_H, _size, ctypes.POINTER(_i32), _size, ctypes.POINTER(_size)])


@dataclass
class PsseResult:
    """One pair's significance: the Smith-Waterman score, the Gumbel fitted to the scores
    of the subject's shuffles (``mu``, ``lambda_``), ``k = exp(lambda mu) / (m n)``,
    ``p_value = P(S >= score)`` and ``e_value = K m n exp(-lambda score)``. A pair whose
    shuffle scores cannot be fitted (e.g. all equal) has ``error`` set and None for the
    fitted numbers. ``scores``: the shuffle scores (numpy int32) when asked for."""

    query: int
    subject: int
    query_length: int
    subject_length: int
    score: Optional[int]
    mu: Optional[float]
    lambda_: Optional[float]
    k: Optional[float]
    p_value: Optional[float]
    e_value: Optional[float]
    shuffles: int
    censored: int
    cutoff: Optional[float]
    recomputed: int
    error: Optional[str] = None
    scores: Optional[NDArray[np.int32]] = None


def _psse_options(
    shuffles: Optional[int],
    window: Optional[int],
    seed: Optional[int],
    censor_below: Optional[float],
    variant: Optional[str],
    keep_scores: Optional[bool],
) -> _PsseOptions:
    return _options(
        _PsseOptions,
        _lib.clsw_psse_options_init,
        {"variant": PSSE_VARIANTS},
        shuffles=shuffles,
        window=window,
        seed=seed,
        censor_below=None if censor_below is None else float(censor_below),
        variant=variant,
        keep_scores=_flag(keep_scores),
    )


def _psse_result(r: _PsseResult, scores: Optional[NDArray[np.int32]] = None) -> PsseResult:
    ok = r.status == OK
    # A pair that could not be fitted has no score or fitted numbers.
    unfitted: Dict[str, None] = {} if ok else dict.fromkeys(("score", "mu", "lambda_", "k", "p_value", "e_value"))
    return _from_struct(
        PsseResult,
        r,
        **unfitted,
        cutoff=None if r.cutoff != r.cutoff else r.cutoff,
        error=None if ok else (r.error or b"").decode("utf-8", "replace"),
        scores=scores,
    )


def psse(
    engine: Engine,
    scoring: Scoring,
    query: _Residues,
    subject: _Residues,
    *,
    shuffles: Optional[int] = None,
    window: Optional[int] = None,
    seed: Optional[int] = None,
    censor_below: Optional[float] = None,
    variant: Optional[str] = None,
) -> PsseResult:
    """Pairwise statistical significance of one pair (residue letters), as prss /
    ``ssearch36 -k``: the subject is shuffled ``shuffles`` times on the engine's devices
    (within windows of ``window`` residues when > 0), the query aligned with every
    shuffle, a Gumbel fitted (censored below the ``censor_below`` quantile when given).
    Raises :class:`ClswError` when the shuffle scores cannot be fitted."""
    q, s = _bytes(query), _bytes(subject)
    o = _psse_options(shuffles, window, seed, censor_below, variant, False)
    r = _got(_PsseResult, _lib.clsw_psse, engine, scoring, _buffer(q), len(q), _buffer(s), len(s), ctypes.byref(o))
    return _psse_result(r)


def psse_many(
    engine: Engine,
    scoring: Scoring,
    queries: Sequence[_Residues],
    subjects: Sequence[_Residues],
    *,
    shuffles: Optional[int] = None,
    window: Optional[int] = None,
    seed: Optional[int] = None,
    censor_below: Optional[float] = None,
    variant: Optional[str] = None,
    keep_scores: Optional[bool] = None,
) -> List[PsseResult]:
    """Every pair of ``queries`` x ``subjects``, query-major (pair (q, s) at
    ``q * len(subjects) + s``). Each subject's shuffles are made once and serve every
    query; a pair that cannot be fitted has ``error`` set instead of raising."""
    qd, sd = [_bytes(x) for x in queries], [_bytes(x) for x in subjects]
    qp = (_u8p * max(len(qd), 1))(*[_buffer(d) for d in qd])
    ql = (_size * max(len(qd), 1))(*[len(d) for d in qd])
    sp = (_u8p * max(len(sd), 1))(*[_buffer(d) for d in sd])
    sl = (_size * max(len(sd), 1))(*[len(d) for d in sd])
    o = _psse_options(shuffles, window, seed, censor_below, variant, keep_scores)
    p = _P()
    _check(_lib.clsw_psse_many(engine, scoring, len(qd), qp, ql, len(sd), sp, sl, ctypes.byref(o), ctypes.byref(p)))
    try:
        out = []
        for i, r in _items(_PsseResult, _lib.clsw_psse_results_count, _lib.clsw_psse_results_get, p):
            scores = None
            if keep_scores and r.status == OK:
                scores = np.zeros(r.shuffles, dtype=np.int32)
                ptr = scores.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
                _check(_lib.clsw_psse_results_scores(p, i, ptr, scores.size, None))
            out.append(_psse_result(r, scores))
        return out
    finally:
        _lib.clsw_psse_results_free(p)


# --- all-pairs distance matrices (src/capi/distance.rs) ------------------------------------


class _DistanceOptions(ctypes.Structure):
    _fields_ = _layout(
        "size:size coding:u32 ignore_constant:i32 variant:u32 want_compared:i32 "
        "metric:u32"
    )


DISTANCE_VARIANTS = {"bitplane": 0, "charpacked": 1, "cpu": 2}
METRICS = {"diff": 0, "allele-ct": 1, "ibs": 2, "1-ibs": 3}
_METRIC_NAMES = {v: k for k, v in METRICS.items()}
_DIST_COUNT_GAPS = 1
_DIST_COUNT_N = 2
_u32p = ctypes.POINTER(ctypes.c_uint32)
_f64p = ctypes.POINTER(ctypes.c_double)
_declare("clsw_distance_options_init", [ctypes.POINTER(_DistanceOptions), _size])
_declare(
    "clsw_distance_aligned",
    [_H, _size, ctypes.POINTER(_u8p), ctypes.POINTER(_size), ctypes.POINTER(_DistanceOptions), _PP],
)
_declare("clsw_distance_fasta", [_H, _c, ctypes.POINTER(_DistanceOptions), _PP])
_declare("clsw_distance_bed", [_H, _c, ctypes.POINTER(_DistanceOptions), _PP])
_declare("clsw_distance_genotype_table", [_H, _c, ctypes.POINTER(_DistanceOptions), _PP])
_declare(
    "clsw_distance_genotypes",
    [_H, ctypes.POINTER(ctypes.c_int8), _size, _size, ctypes.POINTER(_DistanceOptions), _PP],
)
_declare("clsw_distance_result_free", [_P], None)
_declare("clsw_distance_result_count", [_H, ctypes.POINTER(_size)])
_declare("clsw_distance_result_sites", [_H, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)])
_declare("clsw_distance_result_matrix", [_H, _u32p, _size, ctypes.POINTER(_size)])
_declare("clsw_distance_result_compared", [_H, _u32p, _size, ctypes.POINTER(_size)])
_declare("clsw_distance_result_values", [_H, _f64p, _size, ctypes.POINTER(_size)])
_declare("clsw_distance_result_name", [_H, _size, ctypes.c_char_p, _size, ctypes.POINTER(_size)])
_declare("clsw_distance_result_family", [_H, _size, ctypes.c_char_p, _size, ctypes.POINTER(_size)])
# The 0.1 names of the functions above (deprecated aliases in clsw.h, kept for one release).
for _f in ("free", "count", "sites", "matrix", "compared", "values", "name", "family"):
    _new = getattr(_lib, "clsw_distance_result_" + _f)
    _declare("clsw_distances_" + _f, _new.argtypes, _new.restype)


@dataclass
class Distances:
    """An all-pairs distance matrix: ``matrix`` (numpy uint32, n x n, differing compared
    sites, zero diagonal), ``compared`` (uint32 n x n compared sites, when asked for or
    implied by the metric), ``values`` (float64 n x n of ``metric``: PLINK's allele-ct, ibs
    or 1-ibs with missing calls skipped; the differences as floats for "diff"), ``names``
    and ``families`` (file inputs; None for in-memory inputs), ``sites`` in the input and
    ``considered_sites`` (without the constant ones with ``ignore_constant``)."""

    matrix: NDArray[np.uint32]
    compared: Optional[NDArray[np.uint32]]
    values: NDArray[np.float64]
    metric: str
    names: Optional[List[str]]
    families: Optional[List[str]]
    sites: int
    considered_sites: int


def _distance_options(
    count_gaps: bool,
    count_n: bool,
    ignore_constant: Optional[bool],
    variant: Optional[str],
    metric: Optional[str],
    compared: Optional[bool],
) -> _DistanceOptions:
    o = _options(
        _DistanceOptions,
        _lib.clsw_distance_options_init,
        {"variant": DISTANCE_VARIANTS, "metric": METRICS},
        ignore_constant=_flag(ignore_constant),
        variant=variant,
        metric=metric,
        want_compared=_flag(compared),
    )
    o.coding |= (_DIST_COUNT_GAPS if count_gaps else 0) | (_DIST_COUNT_N if count_n else 0)
    return o


def _read_distances(p: _Ptr, metric: str) -> Distances:
    count = _size(0)
    _check(_lib.clsw_distance_result_count(p, ctypes.byref(count)))
    n = count.value
    sites, considered = ctypes.c_uint64(0), ctypes.c_uint64(0)
    _check(_lib.clsw_distance_result_sites(p, ctypes.byref(sites), ctypes.byref(considered)))
    matrix = np.zeros((n, n), dtype=np.uint32)
    _check(_lib.clsw_distance_result_matrix(p, matrix.ctypes.data_as(_u32p), matrix.size, None))
    compared: Optional[NDArray[np.uint32]] = None
    # The library decides whether the compared sites were counted (asked for, or implied
    # by the metric): a size query answers "too small" when they were.
    if _lib.clsw_distance_result_compared(p, None, 0, None) == ERR_BUFFER_TOO_SMALL:
        compared = np.zeros((n, n), dtype=np.uint32)
        _check(_lib.clsw_distance_result_compared(p, compared.ctypes.data_as(_u32p), compared.size, None))
    values = np.zeros((n, n), dtype=np.float64)
    _check(_lib.clsw_distance_result_values(p, values.ctypes.data_as(_f64p), values.size, None))
    names: Optional[List[str]] = None
    families: Optional[List[str]] = None
    if n > 0:
        first = _size(0)
        status = _lib.clsw_distance_result_name(p, 0, None, 0, ctypes.byref(first))
        if status == ERR_BUFFER_TOO_SMALL:  # the matrix has names (file inputs)
            names = [_text(_partial(_lib.clsw_distance_result_name, p, i)) for i in range(n)]
            families = [_text(_partial(_lib.clsw_distance_result_family, p, i)) for i in range(n)]
    return Distances(matrix, compared, values, metric, names, families, sites.value, considered.value)


def distances(
    engine: Engine,
    sequences: Optional[Sequence[_Residues]] = None,
    *,
    fasta: Optional[_PathArg] = None,
    bfile: Optional[_PathArg] = None,
    genotypes: Optional[ArrayLike] = None,
    genotype_table: Optional[_PathArg] = None,
    count_gaps: bool = False,
    count_n: bool = False,
    ignore_constant: Optional[bool] = None,
    variant: Optional[str] = None,
    metric: Optional[str] = None,
    compared: Optional[bool] = None,
) -> Distances:
    """All-pairs distances of exactly one input: ``sequences`` (aligned sequences, all the
    same length: A, C, G, T, gaps, N, IUPAC codes), ``fasta`` (a FASTA alignment path),
    ``bfile`` (a PLINK .bed/.bim/.fam prefix), ``genotypes`` (a 2-D array, samples x sites,
    values 0/1/2 and anything else, e.g. -1, missing) or ``genotype_table`` (a 0/1/2 table
    path). Alignments compare A, C, G, T only (snp-dists' default) unless ``count_gaps`` /
    ``count_n``; ``ignore_constant`` leaves out sites constant across all samples;
    ``metric``: "diff", "allele-ct", "ibs" or "1-ibs" (PLINK's, missing calls skipped);
    ``compared``: also the compared-sites matrix."""
    given = [x is not None for x in (sequences, fasta, bfile, genotypes, genotype_table)]
    if sum(given) != 1:
        raise ValueError("give exactly one of sequences, fasta, bfile, genotypes, genotype_table")
    o = _distance_options(count_gaps, count_n, ignore_constant, variant, metric, compared)
    p = _P()
    if sequences is not None:
        data = [_bytes(s) for s in sequences]
        ptrs = (_u8p * max(len(data), 1))(*[_buffer(d) for d in data])
        lens = (_size * max(len(data), 1))(*[len(d) for d in data])
        _check(_lib.clsw_distance_aligned(engine, len(data), ptrs, lens, ctypes.byref(o), ctypes.byref(p)))
    elif fasta is not None:
        _check(_lib.clsw_distance_fasta(engine, _path(fasta), ctypes.byref(o), ctypes.byref(p)))
    elif bfile is not None:
        _check(_lib.clsw_distance_bed(engine, _path(bfile), ctypes.byref(o), ctypes.byref(p)))
    elif genotype_table is not None:
        _check(_lib.clsw_distance_genotype_table(engine, _path(genotype_table), ctypes.byref(o), ctypes.byref(p)))
    else:
        g = np.asarray(genotypes)
        if g.ndim != 2:
            raise ValueError(f"genotypes must be a 2-D array (samples x sites), got {g.ndim} dimension(s)")
        if np.issubdtype(g.dtype, np.floating):
            g = np.where(np.isnan(g), -1, g)
        g8 = np.ascontiguousarray(np.where((g >= 0) & (g <= 2), g, -1).astype(np.int8))
        samples, sites = g8.shape
        ptr = g8.ctypes.data_as(ctypes.POINTER(ctypes.c_int8))
        _check(_lib.clsw_distance_genotypes(engine, ptr, samples, sites, ctypes.byref(o), ctypes.byref(p)))
    try:
        return _read_distances(p, _METRIC_NAMES[o.metric])
    finally:
        _lib.clsw_distance_result_free(p)


class _DistanceInputs(TypedDict, total=False):
    """The keyword arguments :func:`distance_matrix` passes on to :func:`distances`."""

    fasta: Optional[_PathArg]
    bfile: Optional[_PathArg]
    genotypes: Optional[ArrayLike]
    genotype_table: Optional[_PathArg]
    count_gaps: bool
    count_n: bool
    ignore_constant: Optional[bool]
    variant: Optional[str]
    metric: Optional[str]


@overload
def distance_matrix(
    engine: Engine,
    sequences: Optional[Sequence[_Residues]] = None,
    *,
    compared: Literal[False] = False,
    **kwargs: Unpack[_DistanceInputs],
) -> NDArray[np.uint32]: ...


@overload
def distance_matrix(
    engine: Engine,
    sequences: Optional[Sequence[_Residues]] = None,
    *,
    compared: Literal[True],
    **kwargs: Unpack[_DistanceInputs],
) -> Tuple[NDArray[np.uint32], NDArray[np.uint32]]: ...


@overload
def distance_matrix(
    engine: Engine,
    sequences: Optional[Sequence[_Residues]] = None,
    *,
    compared: bool,
    **kwargs: Unpack[_DistanceInputs],
) -> Union[NDArray[np.uint32], Tuple[NDArray[np.uint32], NDArray[np.uint32]]]: ...


def distance_matrix(
    engine: Engine,
    sequences: Optional[Sequence[_Residues]] = None,
    *,
    compared: bool = False,
    **kwargs: Unpack[_DistanceInputs],
) -> Union[NDArray[np.uint32], Tuple[NDArray[np.uint32], NDArray[np.uint32]]]:
    """The n x n matrix of differences (numpy uint32) of one input (see :func:`distances`
    for the inputs and options); with ``compared=True``, the pair (differences, compared
    sites)."""
    d = distances(engine, sequences, compared=compared, **kwargs)
    if not compared:
        return d.matrix
    if d.compared is None:  # asked for, so the library counted them
        raise ClswError(ERR_INTERNAL, "the compared sites were asked for but not returned")
    return d.matrix, d.compared


# --- three-sequence alignment and SAX (src/capi/sw3.rs) ------------------------------------


class _Sw3Options(ctypes.Structure):
    _fields_ = _layout("size:size input:u32")


class _Sw3AlignmentInfo(ctypes.Structure):
    _fields_ = _layout(
        "size:size score:i32 start:size*3 end:size*3 length:size identities:size "
        "gapped_columns:size rows:str*3"
    )


class _Sw3Row(ctypes.Structure):
    _fields_ = _layout("size:size a:size b:size c:size score:i32 end:size*3")


_declare("clsw_sw3_options_init", [ctypes.POINTER(_Sw3Options), _size])
_declare(
    "clsw_sw3_score",
    [_H, _H, _u8p, _size, _u8p, _size, _u8p, _size, ctypes.POINTER(_Sw3Options), ctypes.POINTER(_i32),
     ctypes.POINTER(_size)],
)
_declare("clsw_sw3_align", [_H, _H, _u8p, _size, _u8p, _size, _u8p, _size, ctypes.POINTER(_Sw3Options), _PP])
_declare("clsw_sw3_alignment_free", [_P], None)
_declare("clsw_sw3_alignment_get", [_H, ctypes.POINTER(_Sw3AlignmentInfo)])
_declare(
    "clsw_sw3_batch",
    [_H, _H, _size, ctypes.POINTER(_u8p), ctypes.POINTER(_size), _u32p, _size, ctypes.POINTER(_Sw3Options), _PP],
)
_declare("clsw_sw3_results_free", [_P], None)
_declare("clsw_sw3_results_count", [_H, ctypes.POINTER(_size)])
_declare("clsw_sw3_results_get", [_H, _size, ctypes.POINTER(_Sw3Row)])
_declare("clsw_sax", [_f64p, _size, _size, _size, _u8p, _size, ctypes.POINTER(ctypes.c_int32)])


@dataclass
class Sw3Score:
    """A three-sequence local score and its end cell: per sequence, the 1-based position
    of the last residue covered (None when the score is 0)."""

    score: int
    end: Optional[_Triple]


@dataclass
class Sw3Alignment:
    """A three-sequence local alignment: coordinates 1-based inclusive per sequence (a
    sequence left out has start == end + 1); ``rows``: the three gapped rows (all 0 and
    empty when nothing scores above 0)."""

    score: int
    start: _Triple
    end: _Triple
    length: int
    identities: int
    gapped_columns: int
    rows: Tuple[str, str, str]


@dataclass
class Sw3Row:
    """One triple of a batch: sequence indices in the roles a, b, c, score, end cell."""

    a: int
    b: int
    c: int
    score: int
    end: Optional[_Triple]


_SW3_LETTERS = 0
_SW3_CODES = 1


def _sw3_options(codes: bool) -> _Sw3Options:
    return _options(_Sw3Options, _lib.clsw_sw3_options_init, input=_SW3_CODES if codes else None)


def _sw3_seq(seq: _Sw3Input) -> bytes:
    """The bytes of a three-sequence input: letters encoded, codes one byte each."""
    if isinstance(seq, np.ndarray):
        return np.ascontiguousarray(seq, dtype=np.uint8).tobytes()
    if isinstance(seq, (str, bytes, bytearray)):
        return _bytes(seq)
    return bytes(bytearray(int(c) for c in seq))


_T = TypeVar("_T")


def _three(values: Iterable[_T]) -> Tuple[_T, _T, _T]:
    """The three values of a per-sequence C array (or generator), as a tuple."""
    a, b, c = values
    return a, b, c


def sw3_score(
    engine: Engine, scoring: Scoring, a: _Sw3Input, b: _Sw3Input, c: _Sw3Input, *, codes: bool = False
) -> Sw3Score:
    """The best local three-sequence score (sum of pairs; the scoring's gaps, gap_open 0
    for linear gaps) of residue letters, or of alphabet codes (e.g. SAX words from
    :func:`sax`) with ``codes=True``; a sequence may be empty."""
    x, y, z = (_sw3_seq(s) for s in (a, b, c))
    o = _sw3_options(codes)
    score = ctypes.c_int32()
    end = (_size * 3)()
    _check(
        _lib.clsw_sw3_score(
            engine, scoring, _buffer(x), len(x), _buffer(y), len(y), _buffer(z), len(z), ctypes.byref(o),
            ctypes.byref(score), end,
        )
    )
    return Sw3Score(score.value, _three(end) if score.value > 0 else None)


def sw3_align(
    engine: Engine, scoring: Scoring, a: _Sw3Input, b: _Sw3Input, c: _Sw3Input, *, codes: bool = False
) -> Sw3Alignment:
    """The optimal three-sequence local alignment with traceback (arguments as for
    :func:`sw3_score`)."""
    x, y, z = (_sw3_seq(s) for s in (a, b, c))
    o = _sw3_options(codes)
    p = _P()
    _check(
        _lib.clsw_sw3_align(
            engine, scoring, _buffer(x), len(x), _buffer(y), len(y), _buffer(z), len(z), ctypes.byref(o),
            ctypes.byref(p),
        )
    )
    try:
        i = _got(_Sw3AlignmentInfo, _lib.clsw_sw3_alignment_get, p)
        return Sw3Alignment(
            i.score,
            _three(i.start),
            _three(i.end),
            i.length,
            i.identities,
            i.gapped_columns,
            _three((r or b"").decode() for r in i.rows),
        )
    finally:
        _lib.clsw_sw3_alignment_free(p)


def sw3_batch(
    engine: Engine,
    scoring: Scoring,
    sequences: Sequence[_Sw3Input],
    *,
    triples: Optional[Union[Sequence[Sequence[int]], NDArray[np.integer[Any]]]] = None,
    codes: bool = False,
) -> List[Sw3Row]:
    """Scores every triple a < b < c of ``sequences`` (or the given ``triples`` of indices,
    in the roles a, b, c) on the engine's devices; rows ranked by score, highest first
    (ties in triple order)."""
    data = [_sw3_seq(s) for s in sequences]
    ptrs = (_u8p * max(len(data), 1))(*[_buffer(d) for d in data])
    lens = (_size * max(len(data), 1))(*[len(d) for d in data])
    tri: Optional[ctypes._Pointer[ctypes.c_uint32]] = None
    count = 0
    if triples is not None:
        t = np.ascontiguousarray(np.asarray(triples, dtype=np.uint32).reshape(-1, 3))
        count = t.shape[0]
        if count == 0:
            raise ValueError("triples is empty; pass None for every triple")
        tri = t.ctypes.data_as(_u32p)
    o = _sw3_options(codes)
    p = _P()
    _check(_lib.clsw_sw3_batch(engine, scoring, len(data), ptrs, lens, tri, count, ctypes.byref(o), ctypes.byref(p)))
    try:
        return [
            Sw3Row(r.a, r.b, r.c, r.score, _three(r.end) if r.score > 0 else None)
            for _, r in _items(_Sw3Row, _lib.clsw_sw3_results_count, _lib.clsw_sw3_results_get, p)
        ]
    finally:
        _lib.clsw_sw3_results_free(p)


@overload
def sax(series: ArrayLike, word: int, alphabet: int, *, letters: Literal[False] = False) -> NDArray[np.uint8]: ...


@overload
def sax(series: ArrayLike, word: int, alphabet: int, *, letters: Literal[True]) -> str: ...


@overload
def sax(series: ArrayLike, word: int, alphabet: int, *, letters: bool) -> Union[NDArray[np.uint8], str]: ...


def sax(series: ArrayLike, word: int, alphabet: int, *, letters: bool = False) -> Union[NDArray[np.uint8], str]:
    """The SAX word of a numeric series: z-normalisation, ``word`` segment means (PAA),
    symbols among ``alphabet`` (3 to 20) Gaussian intervals. Returns the codes (numpy
    uint8, 0 .. alphabet - 1; align them with ``codes=True``), or the letters ('a' + code)
    as a str with ``letters=True``. A constant series gives the middle symbol throughout."""
    if int(word) < 0 or int(alphabet) < 0:
        raise ValueError(f"word ({word}) and alphabet ({alphabet}) must not be negative")
    x = np.ascontiguousarray(np.asarray(series, dtype=np.float64).ravel())
    out = np.zeros(int(word), dtype=np.uint8)
    constant = ctypes.c_int32(0)
    _check(
        _lib.clsw_sax(
            x.ctypes.data_as(_f64p), x.size, int(word), int(alphabet), out.ctypes.data_as(_u8p), out.size,
            ctypes.byref(constant),
        )
    )
    if letters:
        return "".join(chr(ord("a") + int(v)) for v in out)
    return out


# What the bindings take from include/clsw.h, by its C names: tests/test_drift.py compiles
# a C program against the header and checks every struct's size and field offsets, every
# constant, and that every declared function (and only those) has a ctypes signature.
_C_STRUCTS: Dict[str, Type[ctypes.Structure]] = {
    "clsw_device_info": _DeviceInfo,
    "clsw_search_options": _SearchOptions,
    "clsw_hit": _Hit,
    "clsw_search_info": _SearchInfo,
    "clsw_alignment_info": _AlignmentInfo,
    "clsw_psse_options": _PsseOptions,
    "clsw_psse_result": _PsseResult,
    "clsw_distance_options": _DistanceOptions,
    "clsw_sw3_options": _Sw3Options,
    "clsw_sw3_alignment_info": _Sw3AlignmentInfo,
    "clsw_sw3_row": _Sw3Row,
}
# ctypes field names that differ from C's (Python keywords).
_C_FIELD_NAMES = {"lambda": "lambda_"}


def _c_constants() -> Dict[str, int]:
    """Every clsw.h constant the bindings use, by its C name, with its value here."""
    table = {name: code for code, name in STATUS_NAMES.items()}
    table["CLSW_GAPS_DEFAULT"] = GAPS_DEFAULT
    for prefix, values in [
        ("CLSW_ALPHABET_", ALPHABETS),
        ("CLSW_VARIANT_", VARIANTS),
        ("CLSW_STRANDS_", STRANDS),
        ("CLSW_STATS_", STATS),
        ("CLSW_MODE_", MODES),
        ("CLSW_DISTANCE_", DISTANCE_VARIANTS),
        ("CLSW_METRIC_", METRICS),
    ]:
        for name, value in values.items():
            table[prefix + name.upper().replace("-", "_").replace("1_", "ONE_MINUS_")] = value
    table.update(CLSW_CIGAR_NONE=CIGARS[None], CLSW_CIGAR_EXTENDED=CIGARS["extended"], CLSW_CIGAR_M=CIGARS["M"])
    table.update({"CLSW_STRAND_" + n.upper(): v for v, n in HIT_STRANDS.items()})
    table.update({"CLSW_EVALUE_" + n.upper(): v for v, n in EVALUE_SOURCES.items()})
    table.update({"CLSW_DEVICE_" + n.upper(): v for v, n in DEVICE_KINDS.items()})
    table.update(CLSW_DISTANCE_SNP=0, CLSW_DISTANCE_COUNT_GAPS=_DIST_COUNT_GAPS, CLSW_DISTANCE_COUNT_N=_DIST_COUNT_N)
    table.update(CLSW_SW3_LETTERS=_SW3_LETTERS, CLSW_SW3_CODES=_SW3_CODES)
    # The header this library was built with: its version is the library's.
    major, minor, patch = (int(x) for x in _lib.clsw_version().decode().split("."))
    table.update(CLSW_VERSION_MAJOR=major, CLSW_VERSION_MINOR=minor, CLSW_VERSION_PATCH=patch)
    return table
