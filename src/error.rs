//! One error type for the whole library. Every variant carries enough context for a
//! user to find the problem: which file, record, line and character; which OpenCL
//! call and code; the build log of a kernel that did not compile.

use std::fmt;
use std::path::PathBuf;

/// Everything that can go wrong in clsw.
#[derive(Debug)]
pub enum Error {
    /// A file could not be opened or read.
    Io { path: PathBuf, source: std::io::Error },
    /// A FASTA input is malformed: `record` is the 1-based record number (0 before the
    /// first header), `line` the 1-based line number.
    Fasta { source_name: String, record: usize, id: String, line: usize, message: String },
    /// A substitution matrix is unknown or malformed.
    Matrix(String),
    /// An argument is outside what the call accepts.
    InvalidArgument(String),
    /// An OpenCL call failed: the call's name and the error code with its symbolic name.
    OpenCl { call: &'static str, code: i32 },
    /// A kernel did not compile; `log` is the device compiler's build log.
    Build { device: String, log: String },
    /// No device satisfies the requested choice, or a device failed its self-test.
    Device(String),
    /// A check of clsw's own work failed on the CPU (the native path disagrees with the
    /// alignment it re-computes): a bug in clsw, never the user's input or a device.
    Internal(String),
    /// A buffer whose size follows from the input could not be allocated (host memory,
    /// or a device's limit): what it was for and how many bytes it needed.
    OutOfMemory { what: String, bytes: u128 },
    /// Another rank of an MPI job failed ([`crate::mpi`]): its rank and its error's
    /// message. The failing rank itself returns its own error.
    Rank { rank: usize, message: String },
}

/// Shorthand used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An I/O error on `path` (a file name, or a description such as "standard output").
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {}", path.display(), source),
            Error::Fasta { source_name, record, id, line, message } => {
                write!(f, "{source_name}: line {line}")?;
                if *record > 0 {
                    write!(f, " (record {record}")?;
                    if !id.is_empty() {
                        write!(f, ", '{id}'")?;
                    }
                    write!(f, ")")?;
                }
                write!(f, ": {message}")
            }
            Error::Matrix(m) => write!(f, "matrix: {m}"),
            Error::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            Error::OpenCl { call, code } => {
                write!(f, "OpenCL call {call} failed: {} ({code})", cl_error_name(*code))
            }
            Error::Build { device, log } => {
                write!(f, "OpenCL program build failed on {device}; build log:\n{log}")
            }
            Error::Device(m) => write!(f, "device: {m}"),
            Error::Internal(m) => write!(f, "internal error (please report it): {m}"),
            Error::OutOfMemory { what, bytes } => {
                write!(f, "out of memory: {what} needs {}", describe_bytes(*bytes))
            }
            Error::Rank { rank, message } => write!(f, "rank {rank}: {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Bytes as people read them, for [`Error::OutOfMemory`]: `12.9 GB (12884901888
/// bytes)`, or words saying the size overflows the address space.
pub fn describe_bytes(bytes: u128) -> String {
    if bytes > usize::MAX as u128 {
        return "more than the address space holds".to_string();
    }
    let units = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} bytes") } else { format!("{value:.1} {} ({bytes} bytes)", units[unit]) }
}

/// The symbolic name of an OpenCL error code (`CL_OUT_OF_RESOURCES`, ...); codes
/// -2000/-2001 mean the OpenCL library (or one of its functions) could not be loaded.
pub fn cl_error_name(code: i32) -> &'static str {
    opencl3::error_codes::error_text(code)
}

/// Declares a closed set of named values (kernel variants, output formats, metrics):
/// the enum, `ALL` in declaration order, `name()`, `Display`, and a case-insensitive
/// `FromStr` (with optional aliases) whose error names what was asked for and lists
/// the names, e.g. "unknown kernel variant 'warp'; variants are plain, inter, fast".
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Name:ident ($what:literal, $plural:literal) {
            $( $(#[$vmeta:meta])* $Variant:ident = $name:literal $(| $alias:literal)* ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $Name { $( $(#[$vmeta])* $Variant ),+ }

        impl $Name {
            pub const ALL: [$Name; [$($name),+].len()] = [$($Name::$Variant),+];

            pub fn name(self) -> &'static str {
                match self { $($Name::$Variant => $name),+ }
            }
        }

        impl ::std::fmt::Display for $Name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $Name {
            type Err = $crate::error::Error;
            fn from_str(s: &str) -> $crate::error::Result<$Name> {
                let t = s.trim();
                $( if t.eq_ignore_ascii_case($name) $(|| t.eq_ignore_ascii_case($alias))* {
                    return Ok($Name::$Variant);
                } )+
                Err($crate::error::Error::InvalidArgument(format!(
                    "unknown {} '{}'; {} are {}", $what, s, $plural, [$($name),+].join(", ")
                )))
            }
        }
    };
}
pub(crate) use named_enum;
