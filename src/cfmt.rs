//! Numbers as C's `printf` writes them (`%.*e`, `%.*g`): the formats of the tools whose
//! output clsw reproduces (BLAST+ tabular, ssearch36 `-m 8`, PLINK's matrices). Rust's
//! own `{:e}` writes no exponent sign or padding and has no `%g`.

/// `%.{precision}e`: mantissa, `e`, sign, at least two exponent digits (`1.32e-123`,
/// `8.28e-04`).
pub fn e(x: f64, precision: usize) -> String {
    let s = format!("{x:.precision$e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let e: i32 = exp.parse().unwrap_or(0);
            format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
        }
        None => s,
    }
}

/// `%.{significant}g`: `significant` significant digits (at least 1), fixed notation
/// for exponents from -4 to `significant - 1`, else exponential; no trailing zeros
/// (`0.5`, `147.126`, `6.7e-34`, `1.2e+02`); `nan`, `inf`, `-inf` as C writes them.
pub fn g(x: f64, significant: usize) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let p = significant.max(1);
    // The exponent after rounding to p significant digits.
    let sci = format!("{x:.*e}", p - 1);
    let (mantissa, exp) = sci.split_once('e').expect("scientific format");
    let exp: i32 = exp.parse().expect("exponent");
    let trim = |s: &str| -> String {
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.to_string() }
    };
    if exp < -4 || exp >= p as i32 {
        format!("{}e{}{:02}", trim(mantissa), if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        trim(&format!("{x:.*}", (p as i32 - 1 - exp) as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each value beside what C's printf writes for it (glibc).
    #[test]
    fn as_printf_writes_them() {
        for (x, p, want) in [(1.3249e-123, 2, "1.32e-123"), (8.284e-4, 2, "8.28e-04"), (12345.0, 3, "1.234e+04")] {
            assert_eq!(e(x, p), want);
        }
        for (x, p, want) in [
            (0.5, 6, "0.5"),
            (147.12578, 6, "147.126"),
            (6.7e-34, 2, "6.7e-34"),
            (3.849, 2, "3.8"),
            (123.0, 2, "1.2e+02"),
            (99.96, 2, "1e+02"),
            (0.000123456, 2, "0.00012"),
            (0.0000123, 2, "1.2e-05"),
            (12.0, 2, "12"),
            (-0.25, 6, "-0.25"),
            (1e300, 6, "1e+300"),
            (0.0, 2, "0"),
            (f64::NAN, 2, "nan"),
            (f64::NEG_INFINITY, 2, "-inf"),
        ] {
            assert_eq!(g(x, p), want, "%.{p}g of {x}");
        }
    }
}
