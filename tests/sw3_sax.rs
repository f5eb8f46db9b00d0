//! SAX: the normal quantile against known values, the published breakpoint table, a
//! hand-computed word, fractional PAA, constant channels, and the series reader's
//! handling of headers, delimiters and bad input.

use clsw::sw3::sax::{
    breakpoints, erfc, inverse_normal_cdf, letters, normal_cdf, paa, parse_series, read_series, sax, symbolize,
    znormalize,
};

#[test]
fn normal_quantiles_match_known_values() {
    // Standard values of Phi^-1, to the last printed digit.
    let known = [
        (0.5, 0.0),
        (0.75, 0.674_489_750_196_081_7),
        (0.9, 1.281_551_565_544_600_4),
        (0.95, 1.644_853_626_951_472_2),
        (0.975, 1.959_963_984_540_054),
        (0.99, 2.326_347_874_040_841),
        (0.999, 3.090_232_306_167_813_5),
        (0.025, -1.959_963_984_540_054),
        (1e-10, -6.361_340_902_404_056),
    ];
    for (p, z) in known {
        let got = inverse_normal_cdf(p);
        assert!((got - z).abs() <= 1e-12 * z.abs().max(1.0), "Phi^-1({p}) = {got}, want {z}");
    }
    assert!(inverse_normal_cdf(0.0).is_nan() && inverse_normal_cdf(1.0).is_nan() && inverse_normal_cdf(-0.1).is_nan());
    // Round trips and symmetry over the whole range.
    for k in 1..1000 {
        let p = k as f64 / 1000.0;
        let z = inverse_normal_cdf(p);
        assert!((normal_cdf(z) - p).abs() < 1e-15, "round trip at {p}");
        assert!((z + inverse_normal_cdf(1.0 - p)).abs() < 1e-12, "symmetry at {p}");
    }
    for e in [1e-300, 1e-100, 1e-20, 1e-5] {
        let z = inverse_normal_cdf(e);
        assert!((normal_cdf(z) / e - 1.0).abs() < 1e-12, "tail round trip at {e}");
    }
    assert!((normal_cdf(1.0) - 0.841_344_746_068_542_9).abs() < 1e-15);
    assert!((erfc(0.5) - 0.479_500_122_186_953_5).abs() < 1e-15);
    assert!((erfc(5.0) / 1.537_459_794_428_034_8e-12 - 1.0).abs() < 1e-12);
}

#[test]
fn breakpoints_match_the_published_table() {
    // Lin, Keogh, Lonardi & Chiu (2003), table 3 (two decimals), alphabet sizes 3 to 10.
    let table: [&[f64]; 8] = [
        &[-0.43, 0.43],
        &[-0.67, 0.0, 0.67],
        &[-0.84, -0.25, 0.25, 0.84],
        &[-0.97, -0.43, 0.0, 0.43, 0.97],
        &[-1.07, -0.57, -0.18, 0.18, 0.57, 1.07],
        &[-1.15, -0.67, -0.32, 0.0, 0.32, 0.67, 1.15],
        &[-1.22, -0.76, -0.43, -0.14, 0.14, 0.43, 0.76, 1.22],
        &[-1.28, -0.84, -0.52, -0.25, 0.0, 0.25, 0.52, 0.84, 1.28],
    ];
    for (row, want) in table.iter().enumerate() {
        let alpha = row + 3;
        let got = breakpoints(alpha).unwrap();
        assert_eq!(got.len(), alpha - 1);
        for (g, w) in got.iter().zip(want.iter()) {
            assert!((g - w).abs() <= 0.005 + 1e-12, "alpha {alpha}: {got:?}");
        }
    }
    for alpha in 3..=20 {
        let bp = breakpoints(alpha).unwrap();
        assert!(bp.windows(2).all(|w| w[0] < w[1]), "increasing for {alpha}");
        for (i, b) in bp.iter().enumerate() {
            assert!((b + bp[alpha - 2 - i]).abs() < 1e-12, "symmetric for {alpha}");
            assert!((normal_cdf(*b) - (i + 1) as f64 / alpha as f64).abs() < 1e-14);
        }
    }
    assert_eq!(breakpoints(20).unwrap()[0], inverse_normal_cdf(0.05));
    assert!((breakpoints(20).unwrap()[0] + 1.644_853_626_951_472_2).abs() < 1e-12);
    for bad in [0, 1, 2, 21] {
        assert!(breakpoints(bad).unwrap_err().to_string().contains("between 3 and 20"));
    }
}

#[test]
fn hand_computed_word() {
    // 2, 4, ..., 12: mean 7, population sd sqrt(70/6); z = (x - 7) / sd.
    let x = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0];
    let (z, constant) = znormalize(&x);
    assert!(!constant);
    let sd = (70.0f64 / 6.0).sqrt();
    for (zi, xi) in z.iter().zip(x) {
        assert!((zi - (xi - 7.0) / sd).abs() < 1e-14);
    }
    // PAA with 3 segments: pair means -4/sd, 0, 4/sd = -1.1711, 0, 1.1711.
    let p = paa(&z, 3);
    assert!((p[0] + 4.0 / sd).abs() < 1e-14 && p[1].abs() < 1e-14 && (p[2] - 4.0 / sd).abs() < 1e-14);
    // Alphabet 3 (breakpoints -0.43, 0.43): a b c. Alphabet 4 (-0.67, 0, 0.67): the middle
    // value 0 sits on a breakpoint and goes up: a c d.
    assert_eq!(letters(&sax(&x, 3, 3).unwrap().codes), "abc");
    assert_eq!(letters(&sax(&x, 3, 4).unwrap().codes), "acd");
    assert_eq!(sax(&x, 6, 5).unwrap().codes, vec![0, 0, 1, 3, 4, 4]);
    // Breakpoints of alphabet 3: -0.430727..., 0.430727...
    assert_eq!(symbolize(&[-0.4307, -0.4308, 0.4308, 0.4307], &breakpoints(3).unwrap()), vec![1, 0, 2, 1]);
}

#[test]
fn paa_with_fractional_segments() {
    // 5 points into 2 segments of 2.5 points: the middle point counts half in each.
    let p = paa(&[1.0, 2.0, 3.0, 4.0, 5.0], 2);
    assert!((p[0] - 1.8).abs() < 1e-14 && (p[1] - 4.2).abs() < 1e-14, "{p:?}");
    // More segments than points: each segment lies inside one point.
    assert_eq!(paa(&[1.0, 3.0], 4), vec![1.0, 1.0, 3.0, 3.0]);
    // Divisible lengths are plain block means; the mean is preserved in every case.
    assert_eq!(paa(&[1.0, 3.0, 5.0, 7.0], 2), vec![2.0, 6.0]);
    let x: Vec<f64> = (0..97).map(|i| ((i * 37) % 11) as f64).collect();
    for w in [1, 5, 13, 96, 97, 200] {
        let p = paa(&x, w);
        let mean_p = p.iter().sum::<f64>() / w as f64;
        let mean_x = x.iter().sum::<f64>() / x.len() as f64;
        assert!((mean_p - mean_x).abs() < 1e-12, "w = {w}");
    }
}

#[test]
fn constant_channels_get_the_middle_symbol() {
    let w = sax(&[3.5; 40], 8, 5).unwrap();
    assert!(w.constant);
    assert_eq!(w.codes, vec![2; 8]);
    let w = sax(&[-1.0; 10], 4, 8).unwrap();
    assert_eq!(w.codes, vec![4; 4]);
    assert!(sax(&[1.0, f64::NAN], 2, 4).unwrap_err().to_string().contains("not finite"));
    assert!(sax(&[], 2, 4).is_err());
    assert!(sax(&[1.0, 2.0], 0, 4).is_err());
    // Word lengths past memory or the address space: errors, not an abort.
    for w in [99_999_999_999_999, usize::MAX] {
        let err = sax(&[1.0, 2.0, 3.0], w, 4).unwrap_err().to_string();
        assert!(err.contains(&format!("a SAX word of {w} segments")), "{err}");
    }
}

#[test]
fn series_files_with_and_without_headers() {
    let s = parse_series("time,ch A,ch B\n0,1.5,2\n1,-3e-1,4\n\n# comment\n2,7,8\n", "x.csv").unwrap();
    assert_eq!(s.names, ["time", "ch A", "ch B"]);
    assert_eq!(s.channels, vec![vec![0.0, 1.0, 2.0], vec![1.5, -0.3, 7.0], vec![2.0, 4.0, 8.0]]);
    let s = parse_series("1\t2\t3\n4\t5\t6\r\n", "x.tsv").unwrap();
    assert_eq!(s.names, ["ch1", "ch2", "ch3"]);
    assert_eq!(s.channels[2], vec![3.0, 6.0]);
    let s = parse_series("\u{feff}a;b\n1;2\n", "x").unwrap();
    assert_eq!(s.names, ["a", "b"]);
    let s = parse_series("5\n6\n7\n", "one.txt").unwrap();
    assert_eq!(s.channels, vec![vec![5.0, 6.0, 7.0]]);
}

#[test]
fn bad_series_files_say_where() {
    let e = parse_series("a,b,c\n1,2,3\n4,NaN,6\n", "f.csv").unwrap_err().to_string();
    assert!(e.contains("f.csv: line 3") && e.contains("column 2 ('b')") && e.contains("not a finite"), "{e}");
    let e = parse_series("a,b,c\n1,2,3\n4,5\n", "f.csv").unwrap_err().to_string();
    assert!(e.contains("line 3") && e.contains("2 fields, expected 3"), "{e}");
    let e = parse_series("1,2,3\n4,,6\n", "f.csv").unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("empty field"), "{e}");
    let e = parse_series("a,b\n1,x\n", "f.csv").unwrap_err().to_string();
    assert!(e.contains("'x' is not a number"), "{e}");
    let e = parse_series("a,b\n1,inf\n", "f.csv").unwrap_err().to_string();
    assert!(e.contains("not a finite"), "{e}");
    assert!(parse_series("a,b\n", "f.csv").unwrap_err().to_string().contains("no data rows"));
    assert!(parse_series("\n# only a comment\n", "f.csv").unwrap_err().to_string().contains("no data rows"));
}

/// A file that never ends a line is refused after a bounded read, not read whole.
#[test]
#[cfg(unix)]
fn an_endless_series_file_is_an_error_at_line_one() {
    let e = read_series(std::path::Path::new("/dev/zero")).unwrap_err().to_string();
    assert!(e.contains("/dev/zero: line 1: line is longer than 16777216 bytes"), "{e}");
}
