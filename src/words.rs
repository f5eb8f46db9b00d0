//! Counts in messages as a reader writes them: `1 query`, `1,250 queries`, never
//! `1 queries` or `record(s)`.

/// `n` things, singular or plural, with thousands separated: `1 query`, `1,250 queries`.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// `1234567` -> `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_thousands_are_separated() {
        assert_eq!(counted(1, "query", "queries"), "1 query");
        assert_eq!(counted(0, "query", "queries"), "0 queries");
        assert_eq!(counted(1_250, "query", "queries"), "1,250 queries");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }
}
